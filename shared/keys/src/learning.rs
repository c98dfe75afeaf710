//! Learning keys (seed 001, Tyler Walch's key-design talk): course occurrences and certificates,
//! in the talk's final design, verbatim.
//!
//! | item              | PK                  | SK                                          | GSI1PK                   | GSI1SK                          |
//! |-------------------|---------------------|---------------------------------------------|--------------------------|---------------------------------|
//! | course occurrence | `<course>`          | `<yyyy/mm/dd>#course#<v:2>#<location>#`     |                          |                                 |
//! | certificate       | `<course>`          | `<yyyy/mm/dd>#cert#<v:2>#<student>#`        | `<certType>#<shard:2>#`  | `cert#<v:2>#<instructor>#`      |
//!
//! Course names, locations and people are free text, normalised (lower case, no whitespace) and
//! escaped ([`Text`]); numbers inside a location are zero padded (`Building 1` → `building01`).
//! These keys carry no upper-case static prefix: a course partition is lower-case text without a
//! delimiter, and every other partition key of the table has one, so they never meet (the
//! registry proves it). Certificate types are a closed set, so a type can never spell another
//! entity's GSI1 key. Entity versions stand after the entity tag (`cert#01#`), so a version 2
//! coexists with version 1 during a migration. The certificate's GSI1 partition is write sharded:
//! the sum of the sort key's code points modulo 20 (the talk's `calcShardID`).

use std::{borrow::Cow, fmt, str::FromStr};

use crate::{
    Composite, Date, Gsi1Key, Key, KeyError, PrimaryKey, Segment, Shard, Text, Version,
    code_point_shard, value::pad,
};

/// Static tags of learning keys (the registry declares where each one stands).
pub mod tag {
    pub const COURSE: &str = "course";
    pub const CERT: &str = "cert";
}

pub mod types {
    pub const COURSE_OCCURRENCE: &str = "CourseOccurrence";
    pub const CERTIFICATE: &str = "Certificate";
}

/// Width of a number inside a location (`building01`).
pub const LOCATION_NUMBER_WIDTH: usize = 2;

/// A location, normalised as free text with its numbers zero padded: `Building 1` →
/// `building01`, so `Building 2` sorts before `Building 10`. A number too wide is an error.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location(Text);

impl Location {
    pub fn parse(value: &str) -> Result<Location, KeyError> {
        let mut padded = String::with_capacity(value.len() + 4);
        let mut digits = String::new();
        let flush = |digits: &mut String, out: &mut String| -> Result<(), KeyError> {
            if !digits.is_empty() {
                let n: u64 = digits.parse().map_err(|_| KeyError::Overflow {
                    value: u64::MAX,
                    width: LOCATION_NUMBER_WIDTH,
                })?;
                out.push_str(&pad(n, LOCATION_NUMBER_WIDTH)?);
                digits.clear();
            }
            Ok(())
        };
        for c in value.chars() {
            if c.is_ascii_digit() {
                digits.push(c);
            } else {
                flush(&mut digits, &mut padded)?;
                padded.push(c);
            }
        }
        flush(&mut digits, &mut padded)?;
        Ok(Location(Text::parse("location", &padded)?))
    }

    pub fn as_key(&self) -> &str {
        self.0.as_key()
    }
}

impl Segment for Location {
    fn segment(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.0.as_key())
    }
}

/// The kinds of certificate: a closed set, written lower case in keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CertType {
    Completion,
    Attendance,
}

impl CertType {
    pub const ALL: [CertType; 2] = [CertType::Completion, CertType::Attendance];

    /// As the seed writes it in a record (`Completion`).
    pub fn as_str(self) -> &'static str {
        match self {
            CertType::Completion => "Completion",
            CertType::Attendance => "Attendance",
        }
    }

    /// As it stands in a key (`completion`).
    pub fn tag(self) -> &'static str {
        match self {
            CertType::Completion => "completion",
            CertType::Attendance => "attendance",
        }
    }
}

impl FromStr for CertType {
    type Err = KeyError;
    fn from_str(s: &str) -> Result<Self, KeyError> {
        CertType::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| KeyError::Malformed(s.to_owned()))
    }
}

impl fmt::Display for CertType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

crate::serde_as_string!(CertType, CertType::from_str);

/// Shards of the certificates' GSI1 partitions (seed 001: `% 20`).
pub const CERTIFICATE_SHARDS: u32 = 20;

fn course_pk(course: &Text) -> String {
    Composite::new().seg(course).build()
}

/// A course occurrence: `<course>`, `<yyyy/mm/dd>#course#<v>#<location>#`.
pub fn course_occurrence(
    course: &Text,
    date: Date,
    version: Version,
    location: &Location,
) -> PrimaryKey {
    Key::new(
        course_pk(course),
        Composite::new()
            .seg(&date)
            .lit(tag::COURSE)
            .seg(&version)
            .seg(location)
            .build_delimited(),
    )
}

/// A certificate: `<course>`, `<yyyy/mm/dd>#cert#<v>#<student>#`.
pub fn certificate(course: &Text, date: Date, version: Version, student: &Text) -> PrimaryKey {
    Key::new(
        course_pk(course),
        Composite::new()
            .seg(&date)
            .lit(tag::CERT)
            .seg(&version)
            .seg(student)
            .build_delimited(),
    )
}

/// The GSI1 shard of a certificate: the sum of its sort key's code points modulo 20.
pub fn certificate_shard(certificate: &PrimaryKey) -> Shard {
    code_point_shard(certificate.sk(), CERTIFICATE_SHARDS)
}

/// GSI1 key of a certificate: `<certType>#<shard>#`, `cert#<v>#<instructor>#`.
pub fn certificate_type_index(
    certificate: &PrimaryKey,
    cert_type: CertType,
    version: Version,
    instructor: &Text,
) -> Gsi1Key {
    Key::new(
        Composite::new()
            .lit(cert_type.tag())
            .seg(&certificate_shard(certificate))
            .build_delimited(),
        Composite::new()
            .lit(tag::CERT)
            .seg(&version)
            .seg(instructor)
            .build_delimited(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Text {
        Text::parse("t", s).unwrap()
    }

    const V1: Version = Version::new(1);

    #[test]
    fn seed_001_final_design_verbatim() {
        let course = text("Intro to DynamoDB");
        let date = Date::parse_iso("2022-03-15").unwrap();
        let occurrence =
            course_occurrence(&course, date, V1, &Location::parse("Building 1").unwrap());
        assert_eq!(
            (occurrence.pk(), occurrence.sk()),
            ("introtodynamodb", "2022/03/15#course#01#building01#")
        );
        let cert = certificate(&course, date, V1, &text("David Spurdy"));
        assert_eq!(
            (cert.pk(), cert.sk()),
            ("introtodynamodb", "2022/03/15#cert#01#davidspurdy#")
        );
        let gsi = certificate_type_index(&cert, CertType::Completion, V1, &text("Tyler Walch"));
        assert_eq!(
            (gsi.pk(), gsi.sk()),
            ("completion#19#", "cert#01#tylerwalch#")
        );
    }

    #[test]
    fn locations_pad_their_numbers_and_refuse_wide_ones() {
        assert_eq!(
            Location::parse("Building 1").unwrap().as_key(),
            "building01"
        );
        assert_eq!(Location::parse("Room 12B").unwrap().as_key(), "room12b");
        assert!(matches!(
            Location::parse("Building 100"),
            Err(KeyError::Overflow { .. })
        ));
        assert!(Location::parse(&format!("B{}", "9".repeat(40))).is_err());
        assert!(Location::parse("  ").is_err());
    }

    #[test]
    fn cert_types_are_a_closed_set() {
        assert_eq!(
            "Completion".parse::<CertType>().unwrap(),
            CertType::Completion
        );
        assert_eq!(
            "completion".parse::<CertType>().unwrap(),
            CertType::Completion
        );
        assert!("course".parse::<CertType>().is_err());
    }
}
