//! HR's refusals that several functions share (a reference record's: `reference::NotFound`): each
//! function's `Refused` names the ones it answers (`api::refusals!`), so the code and its meaning
//! are written once.

use api::Refusal;

pub const EMPLOYEE_NOT_FOUND: Refusal =
    Refusal::new(404, "employee_not_found", "no employee has that id");
