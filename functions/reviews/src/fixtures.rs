//! The reviews context's fixtures: the books, users and reviews of Pernin's introduction every
//! test starts from, written through this crate's own writes ([`crate::data`]), as the functions
//! write them. Not behind a feature: one build serves the functions, the tools and the tests.
//!
//! They write as GSI1's design does (`IndexDesign` overloaded): the items carry GSI1's keys and
//! every attribute `ReviewsByUser` indexes, so a table with both indexes answers R2 both ways.

use keys::{Date, Id, Timestamp, indexes::IndexDesign, reviews::Isbn};
use model::reviews::Review;
use store::Table;

use crate::data::{self as reviews, NewReview, PutReviewOutcome};

/// The first review date of Pernin's introduction: 2001-08-05T02:46:00Z.
pub const REVIEW_2001_MS: u64 = 996_979_560_000;
/// The Fellowship of the Ring (HarperCollins, 1954).
pub const FELLOWSHIP: &str = "9780261102354";

pub fn id(s: &str) -> Id {
    Id::parse("id", s).expect("a valid test id")
}

pub fn isbn(s: &str) -> Isbn {
    Isbn::parse(s).expect("a valid test ISBN")
}

pub fn at(ms: u64) -> Timestamp {
    Timestamp::from_ms(ms).expect("a test instant before 9999")
}

/// A book (title "T", author "A", 1954).
pub async fn book(table: &Table, book: &str) -> Isbn {
    let b = isbn(book);
    reviews::put_book(table, &b, "T", "A", 1954)
        .await
        .expect("put book");
    b
}

/// A book as a reader knows it: "The Fellowship of the Ring", J.R.R. Tolkien, 1954, under `book`.
pub async fn titled_book(table: &Table, book: &str) -> Isbn {
    let b = isbn(book);
    reviews::put_book(
        table,
        &b,
        "The Fellowship of the Ring",
        "J.R.R. Tolkien",
        1954,
    )
    .await
    .expect("put book");
    b
}

/// A user, member since 2000-09-29.
pub async fn user(table: &Table, user: &str) -> Id {
    let u = id(user);
    let since = Date::parse_iso("2000-09-29").expect("valid");
    reviews::put_user(table, IndexDesign::Overloaded, &u, Some(since), since)
        .await
        .expect("put user");
    u
}

/// `user`'s review of `book` (both must exist), written at `ms`.
pub async fn review(
    table: &Table,
    book: &str,
    user: &str,
    ms: u64,
    grade: u8,
    text: &str,
) -> Review {
    let outcome = reviews::put_review(
        table,
        IndexDesign::Overloaded,
        &NewReview {
            isbn: isbn(book),
            user: id(user),
            grade,
            text: text.into(),
            at: at(ms),
        },
    )
    .await
    .expect("put review");
    match outcome {
        PutReviewOutcome::Created(r) | PutReviewOutcome::Updated(r) => r,
        other => panic!("the book and the user must exist: {other:?}"),
    }
}
