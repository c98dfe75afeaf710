//! Reviews' derived values: books' rating counts and sums, users' review counts, and each review's
//! share of its day's stats.

use keys::{Id, reviews as rk};
use model::{
    Entity, Item,
    derived::DailyStats,
    reviews::{Book, Review, User},
};
use store::{StoreError, Update};

use super::{Drifted, Tally, add, day, n, s};

/// The attributes of reviews' derived sums.
pub(super) const ATTRIBUTES: &[&str] = &[Book::RATING_COUNT, Book::RATING_SUM, User::REVIEW_COUNT];

/// Takes in one item of the scan.
pub(super) fn read(tally: &mut Tally, item: &Item) {
    match model::type_of(item) {
        Some(Book::TYPE) => {
            let isbn = s(item, Book::ISBN);
            for attr in [Book::RATING_COUNT, Book::RATING_SUM] {
                let name = format!("book {isbn} {attr}");
                add(&mut tally.expected, name.clone(), 0);
                add(&mut tally.stored, name.clone(), n(item, attr));
                tally.hold(name, item, attr, 0);
            }
        }
        Some(User::TYPE) => {
            let user = s(item, User::USERNAME);
            let name = format!("user {user} {}", User::REVIEW_COUNT);
            add(&mut tally.expected, name.clone(), 0);
            add(&mut tally.stored, name.clone(), n(item, User::REVIEW_COUNT));
            tally.hold(name, item, User::REVIEW_COUNT, 0);
        }
        Some(Review::TYPE) => {
            let expected = &mut tally.expected;
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
            drifted.set_one(key, attr, true, Update::new()).await
        }
        ["user", id, attr] => {
            let attr = drifted.attribute(attr)?;
            let key = rk::user(&Id::parse("username", id)?);
            drifted.set_one(key, attr, true, Update::new()).await
        }
        _ => Err(drifted.bad("no correction for it")),
    }
}
