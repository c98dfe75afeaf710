//! Pagination: a page's size and cursor, read from the request, and the pages of a query.

use keys::{KeyCondition, KeySpace};
use lambda_http::Request;
use model::Entity;
use store::{Deps, Table};

use crate::{ApiError, query, query_u32};

/// A page request of a paginated pattern: its size, where it starts (the `cursor` query
/// parameter) and what its cursors are bound to (the pattern and every parameter that selects its
/// items), so a cursor cannot be replayed against another pattern, item or range.
#[derive(Debug)]
pub struct Paging<'d> {
    /// Items per page: the `limit` query parameter, or the pattern's default.
    pub limit: u32,
    /// DynamoDB's `ExclusiveStartKey`; `None` for a first page.
    pub start: Option<model::Item>,
    binding: String,
    cursors: &'d store::cursor::CursorCodec,
}

impl<'d> Paging<'d> {
    /// Reads `limit` (`default`, within `1..=max`) and `cursor`; `bind` makes the binding from the
    /// limit (include it when a page's shape depends on it).
    pub fn from_request(
        req: &Request,
        deps: &'d Deps,
        default: u32,
        max: u32,
        bind: impl FnOnce(u32) -> String,
    ) -> Result<Paging<'d>, ApiError> {
        let limit = query_u32(req, "limit", default, 1, max)?;
        let binding = bind(limit);
        let cursors = deps.cursors()?;
        let start = query(req, "cursor")
            .map(|c| cursors.decode(&binding, &c))
            .transpose()?;
        Ok(Paging {
            limit,
            start,
            binding,
            cursors,
        })
    }

    pub fn is_first(&self) -> bool {
        self.start.is_none()
    }

    /// One page of `query` (its index, direction and filters set by the caller): at most `limit`
    /// items from the cursor's position, and the next page's cursor.
    pub async fn items<S: KeySpace>(
        &self,
        query: store::Query<'_, S>,
    ) -> Result<(Vec<model::Item>, Option<String>), ApiError> {
        let page = query
            .limit(self.limit)
            .start(self.start.clone())
            .send()
            .await?;
        Ok((page.items, self.next_cursor(page.last_key)?))
    }

    /// [`Paging::items`], each decoded as `E` (a pattern that reads one kind of item).
    pub async fn page<E: Entity, S: KeySpace>(
        &self,
        query: store::Query<'_, S>,
    ) -> Result<(Vec<E>, Option<String>), ApiError> {
        let (items, next) = self.items(query).await?;
        let items = items
            .into_iter()
            .map(model::from_item::<E>)
            .collect::<Result<Vec<_>, _>>()?;
        Ok((items, next))
    }

    /// One page of a collection read backwards from its parent's own record
    /// ([`store::Query::parent_page`]): the parent (first page only), its children newest first,
    /// and the next page's cursor. `None` when the parent does not exist.
    pub async fn parent_page<P: Entity, C: Entity, S: KeySpace>(
        &self,
        table: &Table,
        condition: KeyCondition<S>,
    ) -> Result<Option<(Option<P>, Vec<C>, Option<String>)>, ApiError> {
        let Some(page) = table
            .query(condition)
            .parent_page::<P, C>(self.limit, self.start.clone())
            .await?
        else {
            return Ok(None);
        };
        let next = self.next_cursor(page.last_key)?;
        Ok(Some((page.parent, page.children, next)))
    }

    /// One page of write-sharded `streams` merged into one order ([`store::merge`]), and the
    /// next page's cursor (every stream's position, signed as one).
    pub async fn merged_page<S: KeySpace>(
        &self,
        table: &Table,
        streams: Vec<KeyCondition<S>>,
        direction: store::merge::Direction,
    ) -> Result<(Vec<model::Item>, Option<String>), ApiError> {
        self.merged_page_by(table, streams, direction, store::merge::MergeKey::SortKey)
            .await
    }

    /// [`Paging::merged_page`] with the streams merged by `by` ([`store::merge::MergeKey`]):
    /// streams whose sort keys start with a part of their own (one per order status) merged by
    /// an attribute.
    pub async fn merged_page_by<S: KeySpace>(
        &self,
        table: &Table,
        streams: Vec<KeyCondition<S>>,
        direction: store::merge::Direction,
        by: store::merge::MergeKey,
    ) -> Result<(Vec<model::Item>, Option<String>), ApiError> {
        use store::merge::{Positions, merged_page_by};
        let positions = match &self.start {
            None => Positions::start(streams.len()),
            Some(flat) => Positions::from_item(flat, streams.len())
                .ok_or(ApiError::from(store::cursor::CursorError::Malformed))?,
        };
        let page = merged_page_by(table, streams, positions, self.limit, direction, by).await?;
        let next = self.next_cursor(page.next.map(|p| p.to_item()))?;
        Ok((page.items, next))
    }

    /// The `nextCursor` after a page: DynamoDB's `LastEvaluatedKey`, signed and bound.
    pub fn next_cursor(&self, last_key: Option<model::Item>) -> Result<Option<String>, ApiError> {
        Ok(last_key
            .map(|k| self.cursors.encode(&self.binding, &k))
            .transpose()?)
    }
}
