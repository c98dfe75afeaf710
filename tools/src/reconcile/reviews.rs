//! Reviews' derived values: books' rating counts and sums, users' review counts, and each review's
//! share of its day's stats.

use keys::{Id, reviews as rk};
use model::{
    Entity, Item,
    derived::DailyStats,
    reviews::{Book, Review, User},
};
use store::StoreError;

use super::{Drifted, Tally, add, day, n, s};

/// The attributes of reviews' derived sums.
pub(super) const ATTRIBUTES: &[&str] = &[Book::RATING_COUNT, Book::RATING_SUM, User::REVIEW_COUNT];

/// Takes in one item of the scan.
pub(super) fn read(tally: &mut Tally, item: &Item) {
    let Tally {
        expected, stored, ..
    } = tally;
    match model::type_of(item) {
        Some(Book::TYPE) => {
            let isbn = s(item, Book::ISBN);
            for attr in [Book::RATING_COUNT, Book::RATING_SUM] {
                add(expected, format!("book {isbn} {attr}"), 0);
                add(stored, format!("book {isbn} {attr}"), n(item, attr));
            }
        }
        Some(User::TYPE) => {
            let user = s(item, User::USERNAME);
            let name = format!("user {user} {}", User::REVIEW_COUNT);
            add(expected, name.clone(), 0);
            add(stored, name, n(item, User::REVIEW_COUNT));
        }
        Some(Review::TYPE) => {
            let (isbn, user) = (s(item, Review::ISBN), s(item, Review::USERNAME));
            add(expected, format!("book {isbn} {}", Book::RATING_COUNT), 1);
            add(
                expected,
                format!("book {isbn} {}", Book::RATING_SUM),
                n(item, Review::GRADE),
            );
            add(expected, format!("user {user} {}", User::REVIEW_COUNT), 1);
            let day = day(item, Review::REVIEW_DATE);
            add(expected, format!("day {day} {}", DailyStats::REVIEWS), 1);
        }
        _ => {}
    }
}

/// Writes the correction of one of reviews' values; `false` when the item changed since it was
/// read.
pub(super) async fn correct(drifted: &Drifted<'_>) -> Result<bool, StoreError> {
    match drifted.parts().as_slice() {
        ["book", id, attr] => {
            let attr = drifted.attribute(attr)?;
            let key = rk::book(&rk::Isbn::parse(id)?);
            let current = drifted.find(Book::TYPE, Book::ISBN, id);
            drifted.set_on_existing(key, attr, current).await
        }
        ["user", id, attr] => {
            let attr = drifted.attribute(attr)?;
            let key = rk::user(&Id::parse("username", id)?);
            let current = drifted.find(User::TYPE, User::USERNAME, id);
            drifted.set_on_existing(key, attr, current).await
        }
        _ => Err(drifted.bad("no correction for it")),
    }
}
