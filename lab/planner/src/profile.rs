//! Each API function's sample request (`events/<function>.json`) as the code sends it
//! ([`devkit::profile`]), measured by the tests crate's `samples` into
//! `lab/planner/profiles.json` (`make cost` writes it; the test fails when the code's requests
//! differ from the file) and read here: a pattern the planner has no model of is planned from its
//! function's profile, and each modelled one is held to it (`tests/profiles.rs`).

pub use devkit::profile::{Profile, Sent, Written, form};
use keys::indexes::IndexDesign;

/// The profiles of `lab/planner/profiles.json`, as this build was compiled with.
pub fn all() -> &'static [Profile] {
    static PROFILES: std::sync::OnceLock<Vec<Profile>> = std::sync::OnceLock::new();
    PROFILES.get_or_init(|| {
        serde_json::from_str(include_str!("../profiles.json"))
            .expect("lab/planner/profiles.json: `make cost` writes it")
    })
}

/// The profile of `function`'s sample request in the default deployment.
pub fn of(function: &str) -> Option<&'static Profile> {
    all()
        .iter()
        .find(|p| p.function == function && p.design.is_none())
}

/// The profile of `function`'s sample request in `design` (the template's `IndexDesign`): the
/// one measured in that design where the function was (its requests depend on it), else the
/// default deployment's.
pub fn of_in(function: &str, design: IndexDesign) -> Option<&'static Profile> {
    all()
        .iter()
        .find(|p| p.function == function && p.design.as_deref() == Some(design.as_str()))
        .filter(|_| design != crate::inputs::index_design_default())
        .or_else(|| of(function))
}
