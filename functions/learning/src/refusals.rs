//! Learning's refusals that several functions share: each function's `Refused` names the ones it
//! answers (`api::refusals!`), so the code and its meaning are written once.

use api::Refusal;

pub const COURSE_NOT_FOUND: Refusal = Refusal::new(
    404,
    "course_not_found",
    "no occurrence of that course on that day",
);
