//! Reviews: books, users and their reviews; the stream handler that keeps ratings and review counts.
//!
//! One module per Lambda (its declaration, handler and tests); one binary per Lambda in
//! `src/bin/`, a few lines that serve the module. Beside them, what the context does with the table
//! and shows of it: [`data`] (its reads and writes), [`views`] (its records as clients read them),
//! [`params`] (its own request parameters), and [`fixtures`] (the entities its tests, the seeds and
//! the tools start from).

api::functions![
    get_book,
    put_book,
    put_review,
    delete_review,
    get_user,
    put_user,
];

stream_handler::consumers![aggregate_reviews,];

pub mod data;
pub mod fixtures;
pub mod params;
pub mod views;
