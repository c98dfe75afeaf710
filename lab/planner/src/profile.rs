//! Each API function's sample request (`events/<function>.json`) as the code sends it
//! ([`devkit::profile`]), measured by the tests crate's `samples` into
//! `lab/planner/profiles.json` (`make cost` writes it; the test fails when the code's requests
//! differ from the file) and read here: a pattern the planner has no model of is planned from its
//! function's profile, and each modelled one is held to it (`tests/profiles.rs`).

pub use devkit::profile::{Profile, Sent, Written, form};
use keys::indexes::IndexDesign;

/// The profiles of `lab/planner/profiles.json` (every pattern's example) and
/// `lab/planner/worst-profiles.json` (every declared worst case), as this build was compiled with.
pub fn all() -> &'static [Profile] {
    static PROFILES: std::sync::OnceLock<Vec<Profile>> = std::sync::OnceLock::new();
    PROFILES.get_or_init(|| {
        let mut all: Vec<Profile> = serde_json::from_str(include_str!("../profiles.json"))
            .expect("lab/planner/profiles.json: `make cost` writes it");
        let worst: Vec<Profile> = serde_json::from_str(include_str!("../worst-profiles.json"))
            .expect("lab/planner/worst-profiles.json: `make cost` writes it");
        all.extend(worst);
        all
    })
}

/// The profile of `function`'s sample request in the default deployment.
pub fn of(function: &str) -> Option<&'static Profile> {
    all()
        .iter()
        .find(|p| p.function == function && p.sample && p.design.is_none())
}

/// The profile of `function`'s sample request in `design` (the template's `IndexDesign`): the
/// one measured in that design where the function was (its requests depend on it), else the
/// default deployment's.
pub fn of_in(function: &str, design: IndexDesign) -> Option<&'static Profile> {
    all()
        .iter()
        .find(|p| {
            p.function == function && p.sample && p.design.as_deref() == Some(design.as_str())
        })
        .filter(|_| design != crate::inputs::index_design_default())
        .or_else(|| of(function))
}

/// Which of a route's requests a call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// Its pattern's example (the catalogue's), as every call of the pattern were it.
    #[default]
    Example,
    /// The route's declared worst case: the costliest call (a new cart line's transaction, a
    /// page at its limit), after the requests that set it up.
    Worst,
}

/// The profile of `route` (`GET /warehouses/{warehouseId}`) as `shape` makes it: pattern
/// `pattern`'s example (the route's first profiled one without a pattern), or its worst case;
/// in `design` where it was profiled in it, else in the default deployment.
pub fn of_route_in(
    route: &str,
    pattern: Option<&str>,
    shape: Shape,
    design: IndexDesign,
) -> Option<&'static Profile> {
    let fits = |p: &&Profile, design: Option<&str>| {
        p.route == route
            && p.design.as_deref() == design
            && match shape {
                Shape::Example => p.shape.is_none() && pattern.is_none_or(|id| p.pattern == id),
                Shape::Worst => p.shape.as_deref() == Some("worst"),
            }
    };
    let own = (design != crate::inputs::index_design_default())
        .then(|| all().iter().find(|p| fits(p, Some(design.as_str()))))
        .flatten();
    own.or_else(|| all().iter().find(|p| fits(p, None)))
}
