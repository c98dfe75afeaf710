//! How the reviews context's records are shown to clients (camelCase JSON): books, users, reviews.
//! The generic shapes (a derived value and its drift note) are `api::views`'.

use model::reviews::{Book, Review, User};
use serde_json::{Value, json};

use api::Caller;
use api::views::{derived, with_drift};

pub fn book(b: &Book) -> Value {
    let mut drift = Vec::new();
    let count = derived(&b.rating_count, "rating.count", &mut drift);
    if b.rating_sum.value().is_none() {
        drift.push("rating.average");
    }
    let view = json!({
        "isbn": b.isbn,
        "title": b.title,
        "author": b.author,
        "publicationYear": b.publication_year,
        "rating": { "count": count, "average": b.average_rating() },
    });
    with_drift(view, drift)
}

pub fn user(u: &User) -> Value {
    let mut drift = Vec::new();
    let view = json!({
        "username": u.username,
        "membershipDate": u.membership_date,
        "reviewCount": derived(&u.review_count, "reviewCount", &mut drift),
    });
    with_drift(view, drift)
}

pub fn review(r: &Review) -> Value {
    json!({
        "isbn": r.isbn,
        "username": r.username,
        "grade": r.grade,
        "text": r.review_text,
        "reviewDate": r.review_date,
    })
}

/// A review on a page anyone may read (R1): its `username`, the author's account id (the
/// token's `sub`, also their `customerId`), only for the author and staff; anyone else reads
/// the grade, the text and the date (docs/access.md).
pub fn public_review(r: &Review, caller: Option<&Caller>) -> Value {
    let mut view = review(r);
    if !caller.is_some_and(|c| c.may_see(&r.username))
        && let Some(members) = view.as_object_mut()
    {
        members.shift_remove("username");
    }
    view
}
