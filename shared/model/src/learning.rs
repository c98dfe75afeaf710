//! Learning entities (Walch's talk): course occurrences and the certificates issued for them, in
//! two entity versions. Their keys are in `keys::learning`.

use keys::{
    Date, Gsi1Key, IndexKey, PrimaryKey, Version,
    learning::{self as k, CertType, CertVersion, Course, Location, Name, Person, types},
};

use crate::{Entity, record};

record! {
    /// One occurrence of a course: a name, a start date and a location (the "Course" of Walch's
    /// talk).
    pub struct CourseOccurrence {
        course_name: Course => COURSE_NAME = "CourseName",
        start_date: Date => START_DATE = "StartDate",
        location: Location => LOCATION = "Location",
        course_type: String => COURSE_TYPE = "CourseType",
    }
}

impl CourseOccurrence {
    /// The most characters of its course type (`create-course-occurrence` refuses more).
    pub const MAX_COURSE_TYPE_CHARS: usize = 100;
    /// The largest occurrence item DynamoDB can hold: its name and location, at 4 bytes a
    /// character, in its attributes and in its keys (the table's and `OccurrencesByDate`'s), and
    /// its course type; public pages of occurrences are read within their budget assuming every
    /// occurrence is this large. A test writes the largest occurrence and measures it.
    pub const LARGEST_BYTES: u32 = 5 * 1024;
}

impl Entity for CourseOccurrence {
    const TYPE: &'static str = types::COURSE_OCCURRENCE;
    fn key(&self) -> PrimaryKey {
        k::course_occurrence(
            self.course_name.key(),
            self.start_date,
            Self::VERSION,
            &self.location,
        )
    }
    fn gsi1(&self) -> Option<Gsi1Key> {
        Some(k::course_occurrence_index(
            self.course_name.key(),
            self.start_date,
            &self.location,
        ))
    }
    /// In `OccurrencesByDate`: `CourseKey`, `Year`, `Month`, `Day` (numbers), `LocationKey`.
    fn index_keys(&self) -> Vec<IndexKey> {
        vec![k::occurrence_by_date(
            self.course_name.key(),
            self.start_date,
            &self.location,
        )]
    }
}

record! {
    /// A certificate a student earned at a course occurrence (the "Certificate" of Walch's talk),
    /// in the entity version its keys are written in.
    pub struct Certificate {
        cert_name: Course => CERT_NAME = "CertName",
        issued_date: Date => ISSUED_DATE = "IssuedDate",
        location: Location => LOCATION = "Location",
        student: Name => STUDENT = "Student",
        cert_type: CertType => CERT_TYPE = "CertType",
        instructor: Name => INSTRUCTOR = "Instructor",
        entity_version: CertVersion => ENTITY_VERSION = "EntityVersion",
    }
}

impl Certificate {
    /// The largest certificate item there can be: course, location, student and instructor of
    /// the most four-byte characters, in its attributes and in its keys (the table's and GSI1's).
    /// Staff pages of certificates are read within the read budget assuming every certificate is
    /// this large; a test issues the largest and measures it.
    pub const LARGEST_BYTES: u32 = 4 * 1024;

    pub fn student_key(&self) -> Person {
        Person::of(self.entity_version, &self.student)
    }

    /// The same certificate written in another version (a migration's target).
    pub fn in_version(&self, version: CertVersion) -> Certificate {
        Certificate {
            entity_version: version,
            ..self.clone()
        }
    }
}

impl Entity for Certificate {
    const TYPE: &'static str = types::CERTIFICATE;
    /// What new certificates are written as.
    const VERSION: Version = Version::new(2);
    fn key(&self) -> PrimaryKey {
        k::certificate(self.cert_name.key(), self.issued_date, &self.student_key())
    }
    fn gsi1(&self) -> Option<Gsi1Key> {
        Some(k::certificate_type_index(
            &self.key(),
            self.cert_type,
            &Person::of(self.entity_version, &self.instructor),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{from_item, s, to_item};

    fn seed_certificate(version: CertVersion) -> Certificate {
        Certificate {
            cert_name: Course::parse("Intro to DynamoDB").unwrap(),
            issued_date: Date::parse_iso("2022-03-15").unwrap(),
            location: Location::parse("Building 1").unwrap(),
            student: Name::parse("student", "David Spurdy").unwrap(),
            cert_type: CertType::Completion,
            instructor: Name::parse("instructor", "Tyler Walch").unwrap(),
            entity_version: version,
        }
    }

    #[test]
    fn seed_001_items_carry_the_talks_keys_and_attributes() {
        let course = CourseOccurrence {
            course_name: Course::parse("Intro to DynamoDB").unwrap(),
            start_date: Date::parse_iso("2022-03-15").unwrap(),
            location: Location::parse("Building 1").unwrap(),
            course_type: "DevChat".into(),
        };
        let item = to_item(&course).unwrap();
        assert_eq!(item["PK"], s("introtodynamodb"));
        assert_eq!(item["SK"], s("2022/03/15#course#01#building01#"));
        assert_eq!(item["GSI1PK"], s("course#introtodynamodb#"));
        assert_eq!(item["GSI1SK"], s("2022/03/15#building01#"));
        assert_eq!(item[CourseOccurrence::COURSE_NAME], s("Intro to DynamoDB"));
        assert_eq!(item[CourseOccurrence::LOCATION], s("Building 1"));
        assert_eq!(from_item::<CourseOccurrence>(item).unwrap(), course);

        let v1 = to_item(&seed_certificate(CertVersion::V1)).unwrap();
        assert_eq!(v1["SK"], s("2022/03/15#cert#01#davidspurdy#"));
        assert_eq!(v1["GSI1PK"], s("completion#19#"));
        assert_eq!(v1["GSI1SK"], s("cert#01#tylerwalch#"));
        assert_eq!(v1[Certificate::STUDENT], s("David Spurdy"));
        assert_eq!(v1[Certificate::CERT_TYPE], s("Completion"));
        assert_eq!(v1[Certificate::ENTITY_VERSION], s("1"));
        let v2 = to_item(&seed_certificate(CertVersion::V2)).unwrap();
        assert_eq!(v2["SK"], s("2022/03/15#cert#02#david-spurdy#"));
        assert_eq!(v2["GSI1SK"], s("cert#02#tyler-walch#"));
        assert_eq!(
            from_item::<Certificate>(v2).unwrap(),
            seed_certificate(CertVersion::V2)
        );
    }
}
