//! The pages of a paginated pattern, and their cursors.
//!
//! A client asks for a page with a size and, after the first page, the previous page's cursor
//! ([`PageRequest`]: what the HTTP layer reads from `?limit=&cursor=`). A [`Paging`] checks that
//! cursor against its *binding* (the pattern and every parameter that selects its items, so a
//! cursor cannot be replayed against another pattern, item or range), reads the page (one query,
//! a collection under its parent, or write-sharded streams merged) and signs the next page's
//! cursor ([`crate::cursor`]).

use keys::{KeyCondition, KeySpace};
use model::{Entity, Item};

use crate::{
    Deps, Page, Query, Selection, StoreError, Table,
    cursor::{CursorCodec, CursorError},
    merge::{self, Budget, Direction, MergeKey, Positions, Stream},
};

/// The most read units one page of a collection may consume ([`Paging::parent_page`]): 256 KB
/// read eventually consistently. A public page's worst case is this, not its `limit` times its
/// largest item (a book's 100 reviews of 5,000 four-byte characters, 128.5 units, before).
pub const PAGE_READ_BUDGET: f64 = 32.0;

/// How many items of at most `largest` bytes one eventually consistent Query can read without
/// consuming more than `units`: the Query sums their sizes and rounds up to 4 KB, half a unit
/// each, so `n` items cost at most `(n * largest / 4096 + 1) / 2` units.
pub fn budget_items(units: f64, largest: u32) -> u32 {
    let blocks = (units * 2.0).floor() - 1.0;
    if blocks <= 0.0 {
        return 0;
    }
    ((blocks * 4096.0) / f64::from(largest.max(1))).floor() as u32
}

/// How many items one page can fetch within `units` through an index that projects keys only:
/// ONE Query of `n` entries of at most `entry` bytes (summed and rounded up to 4 KB, half a unit
/// each), then ONE BatchGetItem of those items, each of at most `largest` bytes and rounded up to
/// 4 KB on its own, with `others` items of at most 4 KB beside them (a parent). At most 100 keys
/// in all, BatchGetItem's limit; at least one item, whatever the budget.
pub fn budget_fetches(units: f64, entry: u32, largest: u32, others: u32) -> u32 {
    let half_units = |bytes: u64| bytes.div_ceil(4096).max(1) as f64 * 0.5;
    let cost = |n: u32| {
        half_units(u64::from(n) * u64::from(entry))
            + f64::from(n) * half_units(u64::from(largest))
            + f64::from(others) * 0.5
    };
    (1..=100u32.saturating_sub(others))
        .take_while(|&n| cost(n) <= units)
        .last()
        .unwrap_or(1)
}

/// At most `limit` items of `query` from `start`, within `budget` (a page's:
/// [`Budget::page`]): read in rounds of as many items as the budget left could pay for were each
/// of them its `largest`, so it never consumes more, whatever the items hold (a page reads at
/// least one item); a page cut short has a `last_key` like any other. Items of the usual size
/// fill `limit` in the first round.
pub async fn read_within<C: Selection>(
    query: Query<'_, C>,
    limit: u32,
    start: Option<Item>,
    budget: Budget,
) -> Result<Page<Item>, StoreError> {
    let (mut items, mut start, mut spent) = (Vec::new(), start, 0.0);
    let mut wanted = limit;
    loop {
        let affordable = budget_items(budget.units - spent, budget.largest);
        let round = match wanted.min(affordable) {
            0 if items.is_empty() => 1,
            0 => break,
            n => n,
        };
        let page = query.clone().limit(round).start(start).send().await?;
        spent += page.read_units;
        wanted = wanted.saturating_sub(page.items.len() as u32);
        items.extend(page.items);
        start = page.last_key;
        if start.is_none() || wanted == 0 {
            break;
        }
    }
    Ok(Page {
        items,
        last_key: start,
        read_units: spent,
    })
}

/// What a client asked for: how many items, and from where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    /// Items per page, already checked against the pattern's bounds.
    pub limit: u32,
    /// The previous page's `nextCursor`, as the client passed it back; `None` for a first page.
    pub cursor: Option<String>,
}

/// Why a page could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PagingError {
    /// The cursor is not one this query issued (malformed, forged, or for another binding): the
    /// client's mistake.
    #[error(transparent)]
    Cursor(#[from] CursorError),
    /// The table, or a configuration without a cursor key.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A page of a paginated pattern: its size, where it starts and what its cursors are bound to.
#[derive(Debug)]
pub struct Paging<'d> {
    /// Items per page: the request's, or the pattern's default.
    pub limit: u32,
    /// DynamoDB's `ExclusiveStartKey`; `None` for a first page.
    pub start: Option<Item>,
    binding: String,
    cursors: &'d CursorCodec,
}

impl<'d> Paging<'d> {
    /// The page `page` asks for, its cursors signed with `deps`' key; `bind` makes the binding
    /// from the limit (include it when a page's shape depends on it). A cursor issued for another
    /// binding, or not issued by us, is a [`PagingError::Cursor`].
    pub fn new(
        deps: &'d Deps,
        page: PageRequest,
        bind: impl FnOnce(u32) -> String,
    ) -> Result<Paging<'d>, PagingError> {
        let binding = bind(page.limit);
        let cursors = deps.cursors()?;
        let start = page
            .cursor
            .map(|c| cursors.decode(&binding, &c))
            .transpose()?;
        Ok(Paging {
            limit: page.limit,
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
    pub async fn items<C: Selection>(
        &self,
        query: Query<'_, C>,
    ) -> Result<(Vec<Item>, Option<String>), PagingError> {
        let page = query
            .limit(self.limit)
            .start(self.start.clone())
            .send()
            .await?;
        Ok((page.items, self.next_cursor(page.last_key)?))
    }

    /// [`Paging::items`] within [`PAGE_READ_BUDGET`] ([`read_within`]) for items of at most
    /// `largest` bytes: what every page an API serves does.
    pub async fn items_within<C: Selection>(
        &self,
        query: Query<'_, C>,
        largest: u32,
    ) -> Result<(Vec<Item>, Option<String>), PagingError> {
        let budget = Budget::page(largest);
        let page = read_within(query, self.limit, self.start.clone(), budget).await?;
        Ok((page.items, self.next_cursor(page.last_key)?))
    }

    /// [`Paging::items_within`], each decoded as `E`.
    pub async fn page_within<E: Entity, C: Selection>(
        &self,
        query: Query<'_, C>,
        largest: u32,
    ) -> Result<(Vec<E>, Option<String>), PagingError> {
        let (items, next) = self.items_within(query, largest).await?;
        Ok((decode(items)?, next))
    }

    /// [`Paging::items`], each decoded as `E` (a pattern that reads one kind of item).
    pub async fn page<E: Entity, C: Selection>(
        &self,
        query: Query<'_, C>,
    ) -> Result<(Vec<E>, Option<String>), PagingError> {
        let (items, next) = self.items(query).await?;
        Ok((decode(items)?, next))
    }

    /// [`Paging::page`], each item as `show` shows it: a page of one query, as its answer lists
    /// it (`paging.page_shown(query, view::record)`).
    pub async fn page_shown<E: Entity, V, C: Selection>(
        &self,
        query: Query<'_, C>,
        show: impl Fn(&E) -> V,
    ) -> Result<(Vec<V>, Option<String>), PagingError> {
        let (items, next) = self.items(query).await?;
        Ok((shown(items, show)?, next))
    }

    /// [`Paging::page_shown`] within [`PAGE_READ_BUDGET`] ([`Paging::items_within`]): a page
    /// of items of at most `largest` bytes, as its answer lists them.
    pub async fn page_shown_within<E: Entity, V, C: Selection>(
        &self,
        query: Query<'_, C>,
        largest: u32,
        show: impl Fn(&E) -> V,
    ) -> Result<(Vec<V>, Option<String>), PagingError> {
        let (items, next) = self.items_within(query, largest).await?;
        Ok((shown(items, show)?, next))
    }

    /// One page of a collection read backwards from its parent's own record
    /// ([`Query::parent_page`]): the parent (first page only), its children newest first, and the
    /// next page's cursor. `None` when the parent does not exist.
    ///
    /// The page stops at [`PAGE_READ_BUDGET`]: it is read in rounds of as many items as the
    /// budget left could pay for were each of them `largest_child` bytes, so it never consumes
    /// more, whatever the children hold; a page cut short has a cursor like any other. Children
    /// of the usual size fill the page's `limit` in the first round.
    pub async fn parent_page<P: Entity, C: Entity, S: KeySpace>(
        &self,
        table: &Table,
        condition: KeyCondition<S>,
        largest_child: u32,
    ) -> Result<Option<(Option<P>, Vec<C>, Option<String>)>, PagingError> {
        let (mut parent, mut children) = (None, Vec::new());
        let (mut start, mut spent) = (self.start.clone(), 0.0);
        let mut wanted = self.limit;
        loop {
            let first = start.is_none();
            // The parent comes first on a first page: it is one of the round's items.
            let affordable = budget_items(PAGE_READ_BUDGET - spent, largest_child);
            let round = wanted.min(affordable.saturating_sub(u32::from(first)));
            // A first page reads at least its parent and one child, whatever the budget.
            if round == 0 && !first {
                break;
            }
            let Some(page) = table
                .query(condition.clone())
                .parent_page::<P, C>(round.max(1), start.clone())
                .await?
            else {
                return Ok(None);
            };
            spent += page.read_units;
            parent = parent.or(page.parent);
            wanted = wanted.saturating_sub(page.children.len() as u32);
            children.extend(page.children);
            start = page.last_key;
            if start.is_none() || wanted == 0 {
                break;
            }
        }
        let next = self.next_cursor(start)?;
        Ok(Some((parent, children, next)))
    }

    /// One page of write-sharded `streams` merged into one order ([`merge`]), and the next page's
    /// cursor (every stream's position, signed as one), within [`PAGE_READ_BUDGET`] for items of
    /// at most `largest` bytes ([`merge::Budget`]).
    pub async fn merged_page<C: Stream>(
        &self,
        table: &Table,
        streams: Vec<C>,
        direction: Direction,
        largest: u32,
    ) -> Result<(Vec<Item>, Option<String>), PagingError> {
        let budget = Budget::page(largest);
        self.merged_page_by(table, streams, direction, MergeKey::SortKey, budget)
            .await
    }

    /// [`Paging::merged_page`] with the streams merged by `by` ([`MergeKey`]): streams whose sort
    /// keys start with a part of their own (one per order status) merged by an attribute; within
    /// `budget` (less than a page's when the page read something else first).
    pub async fn merged_page_by<C: Stream>(
        &self,
        table: &Table,
        streams: Vec<C>,
        direction: Direction,
        by: MergeKey,
        budget: Budget,
    ) -> Result<(Vec<Item>, Option<String>), PagingError> {
        let positions = match &self.start {
            None => Positions::start(streams.len()),
            Some(flat) => {
                Positions::from_item(flat, streams.len()).ok_or(CursorError::Malformed)?
            }
        };
        let page = merge::merged_page_by(
            table,
            streams,
            positions,
            self.limit,
            direction,
            by,
            Some(budget),
        )
        .await?;
        let next = self.next_cursor(page.next.map(|p| p.to_item()))?;
        Ok((page.items, next))
    }

    /// The `nextCursor` after a page: DynamoDB's `LastEvaluatedKey`, signed and bound.
    pub fn next_cursor(&self, last_key: Option<Item>) -> Result<Option<String>, StoreError> {
        last_key
            .map(|k| self.cursors.encode(&self.binding, &k))
            .transpose()
    }
}

/// Each of `items` decoded as `E` and shown as `show` shows it: a read page's (a merged one's)
/// items as its answer lists them.
pub fn shown<E: Entity, V>(items: Vec<Item>, show: impl Fn(&E) -> V) -> Result<Vec<V>, StoreError> {
    items
        .into_iter()
        .map(|item| model::from_item::<E>(item).map(|e| show(&e)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(StoreError::from)
}

/// Each of `items` as `E`.
fn decode<E: Entity>(items: Vec<Item>) -> Result<Vec<E>, StoreError> {
    items
        .into_iter()
        .map(model::from_item::<E>)
        .collect::<Result<Vec<_>, _>>()
        .map_err(StoreError::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page fetched through a keys-only index pays 4 KB per item, however small: within 32
    /// units, ten reviews of 21 KB and their user, or 56 items of 400 bytes; never more than
    /// BatchGetItem's 100 keys; always one.
    #[test]
    fn a_fetched_page_holds_what_its_budget_pays_for_rounded_per_item() {
        assert_eq!(budget_fetches(32.0, 512, 21_024, 1), 10);
        assert_eq!(budget_fetches(32.0, 512, 21_024, 0), 10);
        assert_eq!(budget_fetches(32.0, 512, 400, 1), 56);
        assert_eq!(budget_fetches(1_000.0, 64, 400, 1), 99);
        assert_eq!(budget_fetches(1.0, 512, 21_024, 1), 1);
        // A Query of whole items sums their sizes: 12 of 21 KB.
        assert_eq!(budget_items(32.0, 21_024), 12);
    }
}
