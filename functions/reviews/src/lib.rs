//! Reviews: books, users and their reviews; the stream handler that keeps ratings and review counts.
//!
//! One module per Lambda (its declaration, handler and tests); one binary per Lambda in
//! `src/bin/`, a few lines that serve the module.

api::functions![
    get_book,
    put_book,
    put_review,
    delete_review,
    get_user,
    put_user,
];

stream_handler::consumers![aggregate_reviews,];

pub mod params;
pub mod views;
