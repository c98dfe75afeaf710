//! How the reviews context's records are shown to clients (camelCase JSON): books, users, reviews.
//! Each view is a type whose JSON Schema is `openapi.yaml`'s (descriptions from these comments).
//! The generic shapes (a derived value and its drift note) are `api::wire`'.

use api::Caller;
use api::wire::{DerivedInteger, Drift, derived};
use keys::{Date, Id, Timestamp, reviews::Isbn};
use model::reviews::{Book as BookRecord, Review as ReviewRecord, User as UserRecord};
use schemars::JsonSchema;
use serde::Serialize;

/// A book and its rating.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Book {
    pub isbn: Isbn,
    pub title: String,
    pub author: String,
    pub publication_year: i32,
    pub rating: Rating,
    #[serde(rename = "_drift", skip_serializing_if = "Vec::is_empty")]
    #[schemars(skip)]
    drift: Drift,
}

/// A book's rating, derived by the stream handlers from its reviews.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(inline)]
pub struct Rating {
    pub count: DerivedInteger,
    /// to hundredths; null without reviews
    pub average: Option<f64>,
}

/// A user and how many reviews they wrote.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct User {
    pub username: Id,
    pub membership_date: Date,
    pub review_count: DerivedInteger,
    #[serde(rename = "_drift", skip_serializing_if = "Vec::is_empty")]
    #[schemars(skip)]
    drift: Drift,
}

/// A review.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Review {
    pub isbn: Isbn,
    /// the author's account id: on a book's public page (R1) only for the author and staff
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Id")]
    pub username: Option<Id>,
    #[schemars(range(min = ReviewRecord::MIN_GRADE, max = ReviewRecord::MAX_GRADE))]
    pub grade: u8,
    pub text: String,
    pub review_date: Timestamp,
}

pub fn book(b: &BookRecord) -> Book {
    let mut drift = Vec::new();
    let count = derived(&b.rating_count, "rating.count", &mut drift);
    if b.rating_sum.value().is_none() {
        drift.push("rating.average");
    }
    Book {
        isbn: b.isbn.clone(),
        title: b.title.clone(),
        author: b.author.clone(),
        publication_year: b.publication_year,
        rating: Rating {
            count,
            average: b.average_rating(),
        },
        drift,
    }
}

pub fn user(u: &UserRecord) -> User {
    let mut drift = Vec::new();
    let review_count = derived(&u.review_count, "reviewCount", &mut drift);
    User {
        username: u.username.clone(),
        membership_date: u.membership_date,
        review_count,
        drift,
    }
}

pub fn review(r: &ReviewRecord) -> Review {
    Review {
        isbn: r.isbn.clone(),
        username: Some(r.username.clone()),
        grade: r.grade,
        text: r.review_text.clone(),
        review_date: r.review_date,
    }
}

/// A review on a page anyone may read (R1): its `username`, the author's account id (the
/// token's `sub`, also their `customerId`), only for the author and staff; anyone else reads
/// the grade, the text and the date (docs/access.md).
pub fn public_review(r: &ReviewRecord, caller: Option<&Caller>) -> Review {
    let mut view = review(r);
    if !caller.is_some_and(|c| c.may_see(&r.username)) {
        view.username = None;
    }
    view
}
