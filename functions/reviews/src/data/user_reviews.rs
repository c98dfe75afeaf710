//! R2, a user's reviews a page at a time, as the deployment's index design (`INDEX_DESIGN`)
//! reads them: the user's overloaded GSI1 partition (the user first, then the reviews); or
//! `ReviewsByUser`'s keys and then the reviews and the user by their keys (`dedicated`); or
//! `ReviewsByUserAll`'s whole reviews and the user by its key beside them (`projected`).
//! `get-user` asks [`UserReviews`] for a page and never sees which design answers.

use keys::{indexes::IndexDesign, reviews as k};
use model::{
    Item,
    reviews::{Review, User},
};
use store::{Deps, Paging, PagingError, Read, StoreError, Table, cursor::CursorError};

/// A page: the user on a first page, the reviews, the next page's cursor; `None` when the user
/// does not exist.
pub type Page = Option<(Option<User>, Vec<Review>, Option<String>)>;

/// R2's reader of the design `deps` read at start-up.
#[derive(Debug, Clone, Copy)]
pub struct UserReviews(IndexDesign);

impl UserReviews {
    pub fn of(deps: &Deps) -> Result<UserReviews, StoreError> {
        Ok(UserReviews(store::index_design(deps)?))
    }

    /// A position in the user's list (a cursor's `ExclusiveStartKey`, from any design) as this
    /// design reads it: its review's table key, and that review's key in the design's index.
    pub fn position(self, user: &keys::Id, at: &Item) -> Result<Item, CursorError> {
        let foreign = || CursorError::Malformed;
        let (isbn, by, when) = k::review_at(text(at, keys::attr::PK), text(at, keys::attr::SK))
            .map_err(|_| foreign())?;
        if &by != user {
            return Err(foreign());
        }
        let mut start = model::key_item(&k::review(&isbn, &by, when));
        start.extend(match self.0 {
            IndexDesign::Overloaded => model::key_item(&k::review_index(&isbn, &by, when)),
            IndexDesign::Dedicated => model::index_key_item(&k::review_by_user(&isbn, &by, when)),
            IndexDesign::Projected => {
                model::index_key_item(&k::review_by_user_all(&isbn, &by, when))
            }
        });
        Ok(start)
    }

    /// One page of the user's reviews, newest first, within the page's read budget.
    pub async fn page(
        self,
        table: &Table,
        paging: &Paging<'_>,
        user: &keys::Id,
    ) -> Result<Page, PagingError> {
        let largest = Review::LARGEST_BYTES;
        match self.0 {
            IndexDesign::Overloaded => {
                paging
                    .parent_page::<User, Review, _>(table, k::user_and_reviews(user), largest)
                    .await
            }
            IndexDesign::Dedicated => Ok(page_by_user(table, paging, user).await?),
            IndexDesign::Projected => Ok(page_by_user_all(table, paging, user, largest).await?),
        }
    }
}

/// The most bytes an entry of `ReviewsByUser` holds: a review's table and index keys, for the
/// longest username (a test measures the largest).
pub const LARGEST_ENTRY_BYTES: u32 = 512;

/// How many reviews a dedicated page holds at most: as many as one Query of their entries and
/// one BatchGetItem of them (and the user, on a first page) can read within the page's budget,
/// were each review the largest there can be. 10 of 21 KB: 0.5 + 0.5 + 10 × 3 units.
pub fn dedicated_page(first: bool) -> u32 {
    store::budget_fetches(
        store::PAGE_READ_BUDGET,
        LARGEST_ENTRY_BYTES,
        model::reviews::Review::LARGEST_BYTES,
        u32::from(first),
    )
}

/// A page on `ReviewsByUser`: the page's keys, newest first, then the reviews and (first page)
/// the user in one BatchGetItem; `None` when the user does not exist.
async fn page_by_user(
    table: &Table,
    paging: &Paging<'_>,
    user: &keys::Id,
) -> Result<Page, StoreError> {
    let first = paging.is_first();
    let entries = table
        .query(k::reviews_by_user(user))
        .backwards()
        .limit(paging.limit.min(dedicated_page(first)))
        .start(paging.start.clone())
        .send()
        .await?;
    let mut wanted = entries
        .items
        .iter()
        .map(|e| {
            let (isbn, by, at) = k::review_at(text(e, keys::attr::PK), text(e, keys::attr::SK))?;
            Ok(k::review(&isbn, &by, at))
        })
        .collect::<Result<Vec<_>, keys::KeyError>>()
        .map_err(store::StoreError::from)?;
    if first {
        wanted.push(k::user(user));
    }
    let fetched = match wanted.is_empty() {
        true => Vec::new(),
        false => table.batch_get(&wanted, &[], Read::Eventual).await?,
    };
    let (mut record, mut reviews) = (None, Vec::with_capacity(fetched.len()));
    for item in fetched {
        match model::type_of(&item) {
            Some(t) if t == <User as model::Entity>::TYPE => record = Some(model::from_item(item)?),
            _ => reviews.push(model::from_item::<Review>(item)?),
        }
    }
    if first && record.is_none() {
        return Ok(None);
    }
    // BatchGetItem answers in any order: the index's is the page's.
    let order = |r: &Review| wanted.iter().position(|w| *w == model::Entity::key(r));
    reviews.sort_by_key(order);
    Ok(Some((
        record,
        reviews,
        paging.next_cursor(entries.last_key)?,
    )))
}

/// A page on `ReviewsByUserAll`: the page's reviews whole, newest first, within the page's read
/// budget, and on a first page the user beside them (one GetItem, sent at the same time);
/// `None` when the user does not exist.
async fn page_by_user_all(
    table: &Table,
    paging: &Paging<'_>,
    user: &keys::Id,
    largest: u32,
) -> Result<Page, StoreError> {
    let first = paging.is_first();
    // The user's GetItem (a record under 4 KB, eventually consistent) takes half a unit of the
    // page's budget.
    let budget = store::Budget {
        units: store::PAGE_READ_BUDGET - if first { 0.5 } else { 0.0 },
        largest,
    };
    let query = table.query(k::reviews_by_user_all(user)).backwards();
    let reviews = store::read_within(query, paging.limit, paging.start.clone(), budget);
    let record = async {
        match first {
            true => table.get::<User>(&k::user(user), Read::Eventual).await,
            false => Ok(None),
        }
    };
    let (page, record) = tokio::try_join!(reviews, record)?;
    if first && record.is_none() {
        return Ok(None);
    }
    let reviews = page
        .items
        .into_iter()
        .map(model::from_item::<Review>)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some((record, reviews, paging.next_cursor(page.last_key)?)))
}

/// A string attribute of an item read back ("" if absent: no key matches it).
fn text<'i>(item: &'i Item, name: &str) -> &'i str {
    item.get(name)
        .and_then(|v| v.as_s().ok())
        .map_or("", String::as_str)
}
