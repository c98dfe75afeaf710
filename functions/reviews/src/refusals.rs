//! The reviews' refusals that several functions share: each function's `Refused` names the ones
//! it answers (`api::refusals!`), so the code and its meaning are written once.

use api::Refusal;

pub const USER_NOT_FOUND: Refusal = Refusal::new(
    404,
    "user_not_found",
    "no user has that name, or the caller may not see it",
);
pub const BOOK_NOT_FOUND: Refusal = Refusal::new(404, "book_not_found", "no book has that id");
