//! Learning keys (Walch's talk, on key design): course occurrences and certificates, with the
//! talk's final design's key values (v02 certificates and the migration to them are this
//! project's).
//!
//! Each key shape is declared once, below (`key_shapes!`: one line makes the builder and the
//! registry's kind); `docs/keys.md` shows them all as tables, generated from these declarations.
//!
//! Course names, locations and people are free text, normalised (lower case, no whitespace) and
//! escaped ([`Text`]); numbers inside a location are zero padded (`Building 1` → `building01`).
//! These keys carry no upper-case static prefix: a course partition is lower-case text without a
//! delimiter, and every other partition key of the table has one, so they never meet (the
//! registry proves it). Certificate types are a closed set, so a type can never spell another
//! entity's GSI1 key. Entity versions stand after the entity tag (`cert#01#`), so a version 2
//! coexists with version 1 during a migration. The certificate's GSI1 partition is write sharded:
//! the sum of the sort key's code points modulo 20 (the talk's `calcShardID`).
//!
//! Course occurrences also stand in GSI1, in a partition of their own per course, so the
//! occurrence patterns (L2–L6) read occurrences only and never pay for a course's certificates.
//!
//! Certificates come in two versions. v01 is the talk's: a person's name lower case with the
//! spaces removed, which loses word boundaries (`David Spurdy` and `Davids Purdy` are both
//! `davidspurdy`). v02 keeps them ([`Person`]): `david-spurdy`, `davids-purdy`.

use std::{borrow::Cow, fmt, str::FromStr};

use crate::{
    Base, Composite, Date, Gsi1, Index, IndexCondition, IndexKey, KeyCondition, KeyError,
    PrimaryKey, Segment, Shard, SortCondition, Text, Version, code_point_shard,
    segment::shown,
    unicode::{self, Lines},
    value::pad,
};
use occurrences_by_date::{CourseKey, LocationKey, Month, OccurrencesByDate, Year, ymd};

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

/// Characters a location may not hold. GSI1 orders a day's occurrences by the escaped location
/// followed by the delimiter (`#`, escaped `%23`); `OccurrencesByDate` by the location itself.
/// The two orders part only where a location continues with a character below `#` (`!`, `"`;
/// whitespace and control characters never reach a key) after another ends, or where `#` meets
/// `$` (escaped, `#` sorts as `%`, after `$`). Without these three they are one order, so both
/// designs answer every page alike.
pub const LOCATION_REFUSED: &str = "!\"$";

/// A location, normalised as free text with its numbers zero padded: `Building 1` →
/// `building01`, so `Building 2` sorts before `Building 10`. A number too wide is an error, and
/// so is a character of [`LOCATION_REFUSED`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location(Text, String);

impl Location {
    pub fn parse(value: &str) -> Result<Location, KeyError> {
        if let Some(found) = unicode::refused(value, Lines::One) {
            return Err(KeyError::InvisibleCharacter {
                what: "location",
                found,
            });
        }
        // Padded and checked as the key holds it: `１２` is `12`, `＂` is `"`.
        let folded = unicode::fold(value);
        if let Some(found) = folded.chars().find(|c| LOCATION_REFUSED.contains(*c)) {
            return Err(KeyError::RefusedCharacter {
                what: "location",
                found,
                refused: "! \" $",
            });
        }
        let mut padded = String::with_capacity(folded.len() + 4);
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
        for c in folded.chars() {
            if c.is_ascii_digit() {
                digits.push(c);
            } else {
                flush(&mut digits, &mut padded)?;
                padded.push(c);
            }
        }
        flush(&mut digits, &mut padded)?;
        Ok(Location(Text::parse("location", &padded)?, shown(value)))
    }

    pub fn as_key(&self) -> &str {
        self.0.as_key()
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.1)
    }
}

crate::serde_as_string!(Location, Location::parse);

/// A course, by its name as given (`Intro to DynamoDB`) and its key (`introtodynamodb`). A
/// course's key parses to itself, so a path may name the course either way.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Course {
    name: String,
    key: Text,
}

impl Course {
    pub fn parse(value: &str) -> Result<Course, KeyError> {
        Ok(Course {
            key: Text::parse("courseName", value)?,
            name: shown(value),
        })
    }

    pub fn key(&self) -> &Text {
        &self.key
    }
}

impl fmt::Display for Course {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

crate::serde_as_string!(Course, Course::parse);

impl Segment for Location {
    const SEG: crate::shape::Seg = crate::shape::Seg::Text;
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

impl Segment for CertType {
    const SEG: crate::shape::Seg = crate::shape::Seg::CertType;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.tag())
    }
}

/// A certificate's entity version: what its keys look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CertVersion {
    /// v01, the talk's key: people as [`Text`] (word boundaries lost).
    V1,
    /// v02: people as words (see [`Person`]); what new certificates are written as.
    V2,
}

impl CertVersion {
    /// Every version a read may meet, oldest first.
    pub const ALL: [CertVersion; 2] = [CertVersion::V1, CertVersion::V2];
    /// What new certificates are written as.
    pub const CURRENT: CertVersion = CertVersion::V2;

    pub fn version(self) -> Version {
        match self {
            CertVersion::V1 => Version::new(1),
            CertVersion::V2 => Version::new(2),
        }
    }

    pub fn parse(s: &str) -> Result<CertVersion, KeyError> {
        CertVersion::ALL
            .into_iter()
            .find(|v| s.trim().parse::<u8>().ok() == Some(v.version().number()))
            .ok_or_else(|| KeyError::Malformed(format!("certificate version {s:?}")))
    }
}

impl fmt::Display for CertVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.version().number())
    }
}

crate::serde_as_string!(CertVersion, CertVersion::parse);

pub use crate::Name;

/// A person (student, instructor) as a certificate of a given version writes them.
///
/// - v01: the rule of Walch's talk, [`Text`]: lower case, whitespace removed, escaped.
/// - v02: the words of the name, lower case, joined by `-`; inside a word `%`, `#` and `-` are
///   escaped (`%25`, `%23`, `%2d`), so a `-` in the key is always a word boundary and two names
///   with different words (after lower-casing) never share a key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Person {
    V1(Text),
    V2(String),
}

impl Person {
    pub fn of(version: CertVersion, name: &Name) -> Person {
        match version {
            CertVersion::V1 => Person::V1(name.key()),
            CertVersion::V2 => Person::V2(words(name.as_str())),
        }
    }

    pub fn version(&self) -> CertVersion {
        match self {
            Person::V1(_) => CertVersion::V1,
            Person::V2(_) => CertVersion::V2,
        }
    }

    pub fn as_key(&self) -> &str {
        match self {
            Person::V1(t) => t.as_key(),
            Person::V2(s) => s,
        }
    }

    /// Whether `s` is a key some person of some version has.
    pub fn is_key_form(s: &str) -> bool {
        Text::is_key_form(s) || unwords(s).is_some_and(|name| words(&name) == s)
    }
}

/// The name a v02 key was made from (its words, lower case, single spaces); `None` for a string
/// [`words`] cannot have produced.
fn unwords(key: &str) -> Option<String> {
    let mut words = Vec::new();
    for word in key.split('-') {
        let mut out = String::new();
        let mut rest = word;
        while let Some(pos) = rest.find('%') {
            out.push_str(&rest[..pos]);
            let code = rest.get(pos..pos + 3)?;
            out.push(match code {
                "%25" => '%',
                "%23" => '#',
                "%2d" => '-',
                _ => return None,
            });
            rest = &rest[pos + 3..];
        }
        out.push_str(rest);
        words.push(out);
    }
    Some(words.join(" "))
}

impl Segment for Person {
    const SEG: crate::shape::Seg = crate::shape::Seg::Person;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.as_key())
    }
}

/// v02's person key: lower-cased words joined by `-`, each word escaped (`%`, `#`, `-`).
fn words(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, word) in unicode::fold(name).split_whitespace().enumerate() {
        if i > 0 {
            out.push('-');
        }
        for c in word.chars() {
            match c {
                '%' => out.push_str("%25"),
                '#' => out.push_str("%23"),
                '-' => out.push_str("%2d"),
                c => out.push(c),
            }
        }
    }
    out
}

/// Shards of the certificates' GSI1 partitions (Walch's talk: `% 20`).
pub const CERTIFICATE_SHARDS: u32 = 20;

fn course_pk(course: &Text) -> String {
    Composite::new().seg(course).build()
}

fn occurrences_pk(course: &Text) -> String {
    Composite::new()
        .lit(tag::COURSE)
        .seg(course)
        .build_delimited()
}

crate::shape::key_shapes! {
    context: "learning";
    /// A course occurrence, in its course's partition by date.
    pub fn course_occurrence(
        course: &Text, date: Date, version: Version, location: &Location,
    ) -> Base<COURSE_OCCURRENCE> {
        {course} / {date} # COURSE # {version} # {location} #
    }
    /// GSI1 key of a course occurrence: the course's occurrences in date order, apart from its
    /// certificates.
    pub fn course_occurrence_index(
        course: &Text, date: Date, location: &Location,
    ) -> Gsi1<COURSE_OCCURRENCE> {
        COURSE # {course} # / {date} # {location} #
    }
    /// A certificate; the version is the student key's.
    pub fn certificate(course: &Text, date: Date, student: &Person) -> Base<CERTIFICATE> {
        {course} / {date} # CERT # {student.version().version()} # {student} #
    }
    /// GSI1 key of a certificate, on its type's shard; the version is the instructor key's (a
    /// certificate writes both people in its own version).
    pub fn certificate_type_index(
        certificate: &PrimaryKey, cert_type: CertType, instructor: &Person,
    ) -> Gsi1<CERTIFICATE> {
        {cert_type} # {certificate_shard(certificate)} # / CERT # {instructor.version().version()} # {instructor} #
    }
}

/// The GSI1 shard of a certificate: the sum of its sort key's code points modulo 20.
pub fn certificate_shard(certificate: &PrimaryKey) -> Shard {
    code_point_shard(certificate.sk(), CERTIFICATE_SHARDS)
}

fn type_shard_pk(cert_type: CertType, shard: Shard) -> String {
    Composite::new()
        .lit(cert_type.tag())
        .seg(&shard)
        .build_delimited()
}

/// How much of the date an occurrence read narrows to (L2–L5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    /// L2: every occurrence.
    Any,
    /// L3: a year.
    Year(u16),
    /// L4: a month of a year.
    Month(u16, u8),
    /// L5: a day.
    Day(Date),
}

impl Period {
    /// The sort-key prefix: `2022/`, `2022/03/`, `2022/03/15#`. A year or month prefix ends on
    /// the date's own separator, so `2022/0` (a partial month) can never be asked for.
    fn prefix(self) -> Result<String, KeyError> {
        Ok(match self {
            Period::Any => String::new(),
            Period::Year(y) => format!("{}/", pad(y.into(), 4)?),
            Period::Month(y, m) => {
                if !(1..=12).contains(&m) {
                    return Err(KeyError::InvalidDate(format!("{y}-{m}")));
                }
                format!("{}/{}/", pad(y.into(), 4)?, pad(m.into(), 2)?)
            }
            Period::Day(d) => Composite::new().seg(&d).build_delimited(),
        })
    }
}

/// L2–L5: a course's occurrences in a period, in date order (GSI1).
pub fn occurrences(course: &Text, period: Period) -> Result<KeyCondition<Gsi1>, KeyError> {
    let prefix = period.prefix()?;
    let sort = if prefix.is_empty() {
        SortCondition::All
    } else {
        SortCondition::BeginsWith(prefix)
    };
    Ok(KeyCondition::new(occurrences_pk(course), sort))
}

/// L6: a course's occurrences on a day at locations beginning with `partial` (GSI1).
pub fn occurrences_at(course: &Text, date: Date, partial: &Location) -> KeyCondition<Gsi1> {
    KeyCondition::new(
        occurrences_pk(course),
        SortCondition::BeginsWith(Composite::new().seg(&date).build_with_partial(partial)),
    )
}

/// The occurrences' multi-attribute index (L2–L6; all indexes: [`crate::indexes`]), beside
/// GSI1's `<yyyy/mm/dd>#<location>#` keys: the date as three numbers, the location as normalised.
pub mod occurrences_by_date {
    use super::{Location, types};
    use crate::{
        Index, KeyError, Text,
        multi::{EntityType, StrValue},
        unescape,
    };

    use crate::key_attribute as attribute;

    attribute!(
        /// A course's key, as its base partition key writes it (normalised [`Text`]).
        CourseKey(Text) = "CourseKey", S, |t| t.as_key().to_owned()
    );
    impl StrValue for CourseKey {}

    attribute!(
        /// A year, 1 to 9999.
        Year(u16) = "Year", N, |y| i64::from(*y)
    );
    attribute!(
        /// A month, 1 to 12 ([`Month::new`]).
        Month(u8) = "Month", N, |m| i64::from(*m)
    );
    attribute!(
        /// A day of the month, 1 to 31 ([`Day::new`]).
        Day(u8) = "Day", N, |d| i64::from(*d)
    );
    attribute!(
        /// A location as its key normalises it (lower case, numbers padded), not escaped: no
        /// delimiter follows it.
        LocationKey(Location) = "LocationKey", S, |l| unescape(l.as_key()).expect("a location key is escaped text")
    );
    impl StrValue for LocationKey {}

    impl Month {
        pub fn new(month: u8) -> Result<Month, KeyError> {
            (1..=12)
                .contains(&month)
                .then_some(Month(month))
                .ok_or_else(|| KeyError::InvalidDate(format!("month {month}")))
        }
    }

    impl Day {
        pub fn new(day: u8) -> Result<Day, KeyError> {
            (1..=31)
                .contains(&day)
                .then_some(Day(day))
                .ok_or_else(|| KeyError::InvalidDate(format!("day {day}")))
        }
    }

    /// A date's three sort attributes.
    pub fn ymd(date: crate::Date) -> (Year, Month, Day) {
        let d = date.inner();
        (
            Year(u16::try_from(d.year()).expect("a key date's year is 1 to 9999")),
            Month(u8::from(d.month())),
            Day(d.day()),
        )
    }

    impl EntityType {
        pub const COURSE_OCCURRENCE: EntityType = EntityType(types::COURSE_OCCURRENCE);
    }

    /// L2–L6: a course's occurrences by date, then location.
    pub struct OccurrencesByDate;

    impl Index for OccurrencesByDate {
        const NAME: &'static str = "OccurrencesByDate";
        type Partition = (CourseKey,);
        type Sort = (Year, Month, Day, LocationKey);
    }
}

/// A course occurrence's key in `OccurrencesByDate` ([`crate::indexes`]): its course key, the
/// date as three numbers, the location as normalised (not escaped). Only occurrences write it.
pub fn occurrence_by_date(course: &Text, date: Date, location: &Location) -> IndexKey {
    let (year, month, day) = ymd(date);
    OccurrencesByDate::item_key(
        (CourseKey(course.clone()),),
        (year, month, day, LocationKey(location.clone())),
    )
}

/// L2–L5 on `OccurrencesByDate`: `CourseKey = :c`, then `Year = :y`, `Month = :m`, `Day = :d` as
/// the period narrows. The index holds occurrences only.
pub fn occurrences_by_date(course: &Text, period: Period) -> Result<IndexCondition, KeyError> {
    let c = OccurrencesByDate::key((CourseKey(course.clone()),));
    Ok(match period {
        Period::Any => c.build(),
        Period::Year(y) => c.eq(Year(y)).build(),
        Period::Month(y, m) => c.eq(Year(y)).eq(Month::new(m)?).build(),
        Period::Day(d) => {
            let (y, m, d) = ymd(d);
            c.eq(y).eq(m).eq(d).build()
        }
    })
}

/// L6 on `OccurrencesByDate`: a day's occurrences at locations beginning with `partial`.
pub fn occurrences_by_date_at(course: &Text, date: Date, partial: &Location) -> IndexCondition {
    let (y, m, d) = ymd(date);
    OccurrencesByDate::key((CourseKey(course.clone()),))
        .eq(y)
        .eq(m)
        .eq(d)
        .begins_with(LocationKey(partial.clone()))
}

/// What an occurrence read (L2–L6) selects: a period, or a day's locations beginning with a
/// partial location. Both key designs serve it: GSI1's concatenated keys (seed 001's) and
/// `OccurrencesByDate`'s typed attributes; their answers are equal, page by page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OccurrenceRead {
    /// L2 (any), L3 (a year), L4 (a month), L5 (a day).
    In(Period),
    /// L6: a day, at locations beginning with the given one.
    At(Date, Location),
}

impl OccurrenceRead {
    pub fn pattern(&self) -> &'static str {
        match self {
            OccurrenceRead::In(Period::Any) => "L2",
            OccurrenceRead::In(Period::Year(_)) => "L3",
            OccurrenceRead::In(Period::Month(..)) => "L4",
            OccurrenceRead::In(Period::Day(_)) => "L5",
            OccurrenceRead::At(..) => "L6",
        }
    }

    /// The concatenated design: GSI1, `begins_with` on `<yyyy/mm/dd>#<location>#`.
    pub fn on_gsi1(&self, course: &Text) -> Result<KeyCondition<Gsi1>, KeyError> {
        match self {
            OccurrenceRead::In(period) => occurrences(course, *period),
            OccurrenceRead::At(date, partial) => Ok(occurrences_at(course, *date, partial)),
        }
    }

    /// The multi-attribute design: `OccurrencesByDate`, `=` on the date's numbers.
    pub fn by_date(&self, course: &Text) -> Result<IndexCondition, KeyError> {
        match self {
            OccurrenceRead::In(period) => occurrences_by_date(course, *period),
            OccurrenceRead::At(date, partial) => Ok(occurrences_by_date_at(course, *date, partial)),
        }
    }
}

/// L8: a course's day: its occurrences and certificates of that date, one query.
pub fn course_day(course: &Text, date: Date) -> KeyCondition<Base> {
    KeyCondition::new(
        course_pk(course),
        SortCondition::BeginsWith(Composite::new().seg(&date).build_delimited()),
    )
}

/// L8 all days, the talk's "All Courses and associated Certificates": the course's whole
/// partition, every occurrence and certificate of every date, one query per page.
pub fn course_partition(course: &Text) -> KeyCondition<Base> {
    KeyCondition::new(course_pk(course), SortCondition::All)
}

/// L9 (every version) and L10 (one version): a course's certificates of a date.
pub fn certificates_on(
    course: &Text,
    date: Date,
    version: Option<CertVersion>,
) -> KeyCondition<Base> {
    let prefix = Composite::new().seg(&date).lit(tag::CERT);
    let prefix = match version {
        Some(v) => prefix.seg(&v.version()).build_delimited(),
        None => prefix.build_delimited(),
    };
    KeyCondition::new(course_pk(course), SortCondition::BeginsWith(prefix))
}

/// L11–L13 on one shard of a certificate type: every certificate (L11), one version (L12), one
/// version's certificates by an instructor (L13). A read of the type queries every shard.
pub fn certificates_of_type(
    cert_type: CertType,
    shard: Shard,
    version: Option<CertVersion>,
    instructor: Option<&Person>,
) -> KeyCondition<Gsi1> {
    let pk = type_shard_pk(cert_type, shard);
    let sort = match (version, instructor) {
        (_, Some(i)) => SortCondition::BeginsWith(
            Composite::new()
                .lit(tag::CERT)
                .seg(&i.version().version())
                .seg(i)
                .build_delimited(),
        ),
        (Some(v), None) => SortCondition::BeginsWith(
            Composite::new()
                .lit(tag::CERT)
                .seg(&v.version())
                .build_delimited(),
        ),
        (None, None) => SortCondition::All,
    };
    KeyCondition::new(pk, sort)
}

/// This context's part of the registry's proof (`registry::tests`): every key its builders make
/// from one set of inputs, with its entity, and every read's key condition with the entities its decoder expects. Beside the declarations, so that a new key
/// shape or key condition and its line here are one change.
#[cfg(test)]
pub(crate) mod proof {
    use super::{types as lt, *};
    use crate::registry::proof::{Inputs, Made, Read, made as k, read as q};

    pub(crate) fn keys(i: &Inputs) -> Vec<Made> {
        let date = crate::Timestamp::from_ms(i.ms).unwrap().date();
        let cert = certificate(&i.course, date, &i.person);
        vec![
            k(
                lt::COURSE_OCCURRENCE,
                course_occurrence(&i.course, date, i.version, &i.location),
            ),
            k(
                lt::CERTIFICATE,
                certificate_type_index(&cert, i.cert_type, &i.person),
            ),
            k(
                lt::COURSE_OCCURRENCE,
                course_occurrence_index(&i.course, date, &i.location),
            ),
            k(lt::CERTIFICATE, cert.clone()),
        ]
    }

    pub(crate) fn reads(i: &Inputs) -> Vec<Read> {
        const OCC: &[&str] = &[lt::COURSE_OCCURRENCE];
        const CERT: &[&str] = &[lt::CERTIFICATE];
        let date = crate::Timestamp::from_ms(i.ms).unwrap().date();
        let year = date.hierarchical()[..4].parse().unwrap();
        vec![
            q("L2", occurrences(&i.course, Period::Any).unwrap(), OCC),
            q(
                "L3",
                occurrences(&i.course, Period::Year(year)).unwrap(),
                OCC,
            ),
            q(
                "L4",
                occurrences(&i.course, Period::Month(year, 3)).unwrap(),
                OCC,
            ),
            q(
                "L5",
                occurrences(&i.course, Period::Day(date)).unwrap(),
                OCC,
            ),
            q("L6", occurrences_at(&i.course, date, &i.location), OCC),
            q(
                "L8",
                course_day(&i.course, date),
                &[lt::COURSE_OCCURRENCE, lt::CERTIFICATE],
            ),
            q(
                "L8 all days",
                course_partition(&i.course),
                &[lt::COURSE_OCCURRENCE, lt::CERTIFICATE],
            ),
            q("L9", certificates_on(&i.course, date, None), CERT),
            q(
                "L10",
                certificates_on(&i.course, date, Some(i.person.version())),
                CERT,
            ),
            q(
                "L11",
                certificates_of_type(i.cert_type, i.shard, None, None),
                CERT,
            ),
            q(
                "L12",
                certificates_of_type(i.cert_type, i.shard, Some(i.person.version()), None),
                CERT,
            ),
            q(
                "L13",
                certificates_of_type(i.cert_type, i.shard, None, Some(&i.person)),
                CERT,
            ),
        ]
    }
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
        let cert = certificate(&course, date, &v1("David Spurdy"));
        assert_eq!(
            (cert.pk(), cert.sk()),
            ("introtodynamodb", "2022/03/15#cert#01#davidspurdy#")
        );
        let gsi = certificate_type_index(&cert, CertType::Completion, &v1("Tyler Walch"));
        assert_eq!(
            (gsi.pk(), gsi.sk()),
            ("completion#19#", "cert#01#tylerwalch#")
        );
        assert_eq!(certificate_shard(&cert), Shard::new(19, 20).unwrap());
    }

    fn v1(name: &str) -> Person {
        Person::of(CertVersion::V1, &Name::parse("n", name).unwrap())
    }

    fn v2(name: &str) -> Person {
        Person::of(CertVersion::V2, &Name::parse("n", name).unwrap())
    }

    #[test]
    fn v01_loses_word_boundaries_and_v02_keeps_them() {
        let course = text("Intro to DynamoDB");
        let date = Date::parse_iso("2022-03-15").unwrap();
        let (david, davids) = ("David Spurdy", "Davids Purdy");
        assert_eq!(
            certificate(&course, date, &v1(david)),
            certificate(&course, date, &v1(davids))
        );
        let (a, b) = (
            certificate(&course, date, &v2(david)),
            certificate(&course, date, &v2(davids)),
        );
        assert_eq!(a.sk(), "2022/03/15#cert#02#david-spurdy#");
        assert_eq!(b.sk(), "2022/03/15#cert#02#davids-purdy#");
        // Case and spacing are still normalised; a hyphen inside a name is not a word boundary.
        assert_eq!(v2("  DAVID   spurdy "), v2("David Spurdy"));
        assert_eq!(v2("Jean-Luc Picard").as_key(), "jean%2dluc-picard");
        assert_ne!(v2("Jean-Luc Picard"), v2("Jean Luc Picard"));
        assert_eq!(v2("a#b 100%").as_key(), "a%23b-100%25");
        assert!(Name::parse("n", " \t ").is_err());
        assert!(Name::parse("n", &"x".repeat(129)).is_err());
        assert_eq!(
            Name::parse("n", "  David   Spurdy ").unwrap().as_str(),
            "David Spurdy"
        );
        assert_eq!(CertVersion::parse("2").unwrap(), CertVersion::V2);
        assert!(CertVersion::parse("3").is_err());
        let gsi = certificate_type_index(&a, CertType::Completion, &v2("Tyler Walch"));
        assert_eq!(gsi.sk(), "cert#02#tyler-walch#");
    }

    /// One student in two Unicode forms is one person in both versions (the tester's second
    /// certificate of "José Ortega" on one day), and a location's numbers are padded whatever
    /// digits they are written in.
    #[test]
    fn people_and_places_are_one_key_whatever_their_unicode_form() {
        let (nfc, nfd) = ("Jos\u{E9} Ortega", "JOSE\u{301}  ortega");
        assert_eq!(v1(nfc), v1(nfd));
        assert_eq!(v2(nfc), v2(nfd));
        assert_eq!(v2(nfd).as_key(), "jos\u{E9}-ortega");
        assert_eq!(
            Location::parse("Room \u{FF11}\u{FF12}").unwrap().as_key(),
            Location::parse("room 12").unwrap().as_key()
        );
        assert!(matches!(
            Location::parse("Room \u{FF02}1"),
            Err(KeyError::RefusedCharacter { found: '"', .. })
        ));
        assert_eq!(
            Location::parse("Caf\u{E9} 1").unwrap().to_string(),
            Location::parse("Cafe\u{301} 1").unwrap().to_string()
        );
    }

    proptest::proptest! {
        /// v02 is injective on names up to case and the amount of whitespace: two names whose
        /// lower-cased words differ never share a key, and a key never holds the delimiter.
        #[test]
        fn v02_person_keys_are_injective(a in "[aA -%#]{1,8}", b in "[aA -%#]{1,8}") {
            let words = |s: &str| -> Vec<String> {
                s.split_whitespace().map(str::to_lowercase).collect()
            };
            if let (Ok(na), Ok(nb)) = (Name::parse("n", &a), Name::parse("n", &b)) {
                let (ka, kb) = (Person::of(CertVersion::V2, &na), Person::of(CertVersion::V2, &nb));
                proptest::prop_assert!(!ka.as_key().contains('#'));
                proptest::prop_assert_eq!(ka == kb, words(&a) == words(&b));
            }
        }
    }

    #[test]
    fn occurrence_reads_are_prefixes_that_end_on_a_separator() {
        let course = text("Intro to DynamoDB");
        let date = Date::parse_iso("2022-03-15").unwrap();
        let b1 = Location::parse("Building 1").unwrap();
        let idx = course_occurrence_index(&course, date, &b1);
        assert_eq!(
            (idx.pk(), idx.sk()),
            ("course#introtodynamodb#", "2022/03/15#building01#")
        );
        let sort = |p| occurrences(&course, p).unwrap().sort().clone();
        assert_eq!(sort(Period::Any), SortCondition::All);
        assert_eq!(
            sort(Period::Year(2022)),
            SortCondition::BeginsWith("2022/".into())
        );
        assert_eq!(
            sort(Period::Month(2022, 3)),
            SortCondition::BeginsWith("2022/03/".into())
        );
        assert_eq!(
            sort(Period::Day(date)),
            SortCondition::BeginsWith("2022/03/15#".into())
        );
        assert!(occurrences(&course, Period::Month(2022, 13)).is_err());
        assert!(occurrences(&course, Period::Year(10000)).is_err());
        let l6 = occurrences_at(&course, date, &Location::parse("build").unwrap());
        assert_eq!(
            l6.sort(),
            &SortCondition::BeginsWith("2022/03/15#build".into())
        );
        for p in [
            Period::Any,
            Period::Year(2022),
            Period::Month(2022, 3),
            Period::Day(date),
        ] {
            assert!(occurrences(&course, p).unwrap().matches(&idx), "{p:?}");
        }
        assert!(l6.matches(&idx));
        // March is not reached by a read of 2022/1 (no partial months exist), nor 2023.
        assert!(
            !occurrences(&course, Period::Year(2023))
                .unwrap()
                .matches(&idx)
        );
        assert!(
            !occurrences(&course, Period::Month(2022, 1))
                .unwrap()
                .matches(&idx)
        );
    }

    #[test]
    fn certificate_reads_select_by_date_version_type_and_instructor() {
        let course = text("Intro to DynamoDB");
        let date = Date::parse_iso("2022-03-15").unwrap();
        let old = certificate(&course, date, &v1("David Spurdy"));
        let new = certificate(&course, date, &v2("Davids Purdy"));
        let occurrence =
            course_occurrence(&course, date, V1, &Location::parse("Building 1").unwrap());
        let day = course_day(&course, date);
        assert_eq!(day.sort(), &SortCondition::BeginsWith("2022/03/15#".into()));
        assert!(day.matches(&old) && day.matches(&new) && day.matches(&occurrence));
        let l9 = certificates_on(&course, date, None);
        assert_eq!(
            l9.sort(),
            &SortCondition::BeginsWith("2022/03/15#cert#".into())
        );
        assert!(l9.matches(&old) && l9.matches(&new) && !l9.matches(&occurrence));
        let l10 = certificates_on(&course, date, Some(CertVersion::V1));
        assert_eq!(
            l10.sort(),
            &SortCondition::BeginsWith("2022/03/15#cert#01#".into())
        );
        assert!(l10.matches(&old) && !l10.matches(&new));

        let shard = certificate_shard(&old);
        let gsi = certificate_type_index(&old, CertType::Completion, &v1("Tyler Walch"));
        let of = |v, i: Option<&Person>| certificates_of_type(CertType::Completion, shard, v, i);
        assert_eq!(of(None, None).pk(), "completion#19#");
        assert!(of(None, None).matches(&gsi));
        assert!(of(Some(CertVersion::V1), None).matches(&gsi));
        assert!(!of(Some(CertVersion::V2), None).matches(&gsi));
        assert!(of(None, Some(&v1("Tyler Walch"))).matches(&gsi));
        assert!(
            !of(None, Some(&v1("Tyler"))).matches(&gsi),
            "ends on a delimiter"
        );
        assert!(
            !of(None, Some(&v2("Tyler Walch"))).matches(&gsi),
            "another version"
        );
        assert!(
            !certificates_of_type(CertType::Attendance, shard, None, None).matches(&gsi),
            "another type"
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
        for refused in ["Room A!", "\"Annex\"", "$5 hall"] {
            assert!(
                matches!(
                    Location::parse(refused),
                    Err(KeyError::RefusedCharacter { .. })
                ),
                "{refused}"
            );
        }
        assert!(
            Location::parse("Room #1 & 100% (east)").is_err(),
            "100 is too wide"
        );
        assert!(Location::parse("Room #1 & 10% (east)").is_ok());
    }

    proptest::proptest! {
        /// The two key designs order a day's occurrences alike: GSI1 by the escaped location and
        /// the delimiter after it (`<yyyy/mm/dd>#<location>#`), `OccurrencesByDate` by the
        /// location as it is. For every pair of locations a key accepts, the orders agree.
        #[test]
        fn both_designs_order_locations_alike(
            common in "[-aA1#$%&!\".é ]{0,3}",
            x in "[-aA1#$%&!\".é ]{0,3}",
            y in "[-aA1#$%&!\".é ]{0,3}",
        ) {
            // Two locations that often share a beginning, where the orders could part.
            let (a, b) = (format!("{common}{x}"), format!("{common}{y}"));
            let (Ok(la), Ok(lb)) = (Location::parse(&a), Location::parse(&b)) else {
                return Ok(());
            };
            let course = text("c");
            let date = Date::parse_iso("2022-03-15").unwrap();
            let gsi1 = |l: &Location| course_occurrence_index(&course, date, l).sk().to_owned();
            let by_date = |l: &Location| {
                occurrence_by_date(&course, date, l).get("LocationKey").cloned().unwrap()
            };
            proptest::prop_assert_eq!(
                gsi1(&la).cmp(&gsi1(&lb)),
                by_date(&la).compare(&by_date(&lb)).unwrap(),
                "{:?} / {:?}", a, b
            );
        }
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
