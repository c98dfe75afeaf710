//! An entity's version, part of its keys.

use std::borrow::Cow;

use super::pad;
use crate::Segment;

/// An entity's version, written into its keys after the entity's static tag (Walch's talk:
/// `cert#01#`), so two versions of one entity live side by side during a migration and a query for
/// one never reads the other. Two digits, 1 to 99.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Version(u8);

impl Version {
    pub const WIDTH: usize = 2;

    /// A version known at compile time (an entity declaration's).
    pub const fn new(v: u8) -> Version {
        assert!(v >= 1 && v <= 99, "entity versions are 1..=99");
        Version(v)
    }

    pub fn number(self) -> u8 {
        self.0
    }
}

impl Segment for Version {
    const SEG: crate::shape::Seg = crate::shape::Seg::Version;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Owned(pad(self.0.into(), Self::WIDTH).expect("two digits"))
    }
}
