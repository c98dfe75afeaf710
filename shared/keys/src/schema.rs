//! The JSON Schema of each value type, declared beside its parser: what `openapi.yaml` says a
//! client may send and will read (`lab/catalogue`'s `openapi` gathers them). A type whose text
//! form is the same both ways is one named schema (`#/components/schemas/Id`); one that reads
//! more forms than it writes (an ISBN-10 is read, an ISBN-13 written) is inline, as the
//! generator's contract asks.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::{
    Date, Id, MAX_ID_LEN, MAX_TEXT_LEN, Timestamp,
    learning::{CertType, Course, Location},
    reviews::Isbn,
};

/// A named schema: `$ref`erenced from wherever it is used.
macro_rules! named {
    ($ty:ty, $name:literal, $schema:tt) => {
        impl JsonSchema for $ty {
            fn schema_name() -> Cow<'static, str> {
                $name.into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!($schema)
            }
        }
    };
}

named!(Id, "Id", {
    "description": "letters, digits, `-`, `_` and `.`; at most 64 characters",
    "type": "string",
    "pattern": format!("^[A-Za-z0-9._-]{{1,{MAX_ID_LEN}}}$"),
});

named!(Timestamp, "Timestamp", {
    "description": "ISO 8601, UTC, milliseconds",
    "type": "string",
    "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$",
});

impl JsonSchema for Date {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Date".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "format": "date" })
    }
}

impl JsonSchema for Isbn {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Isbn".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        if generator.contract().is_serialize() {
            json_schema!({
                "description": "normalised to ISBN-13",
                "type": "string",
                "pattern": "^97[89][0-9]{10}$",
            })
        } else {
            json_schema!({
                "description": "ISBN-10 or ISBN-13 with a correct check digit, hyphens and spaces allowed",
                "type": "string",
                "minLength": 10,
                "maxLength": crate::reviews::MAX_ISBN_INPUT,
                "pattern": "^[0-9Xx -]+$",
            })
        }
    }
}

/// Free text that takes part in a key, as a client sends it.
fn free_text() -> Schema {
    json_schema!({
        "description": format!("free text that takes part in a key: compared as NFKC, case folded, whitespace removed (one key for one name however it is typed), escaped; at most {MAX_TEXT_LEN} characters"),
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_TEXT_LEN,
    })
}

/// [`free_text`], named: a student's or an instructor's name, a course's.
pub struct FreeText;

impl JsonSchema for FreeText {
    fn schema_name() -> Cow<'static, str> {
        "FreeText".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        free_text()
    }
}

impl JsonSchema for Course {
    fn schema_name() -> Cow<'static, str> {
        "FreeText".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        free_text()
    }
}

named!(Location, "Location", {
    "description": "a location: free text whose numbers are padded to two digits (a wider number is a 400), and without `!`, `\"` or `$`, which would sort it differently in the two key designs of L2-L6",
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_TEXT_LEN,
    "pattern": "^[^!\"$]*$",
});

impl JsonSchema for CertType {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "CertType".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let written: Vec<&str> = CertType::ALL.iter().map(|t| t.as_str()).collect();
        if generator.contract().is_serialize() {
            json_schema!({ "type": "string", "enum": written })
        } else {
            let read: Vec<&str> = CertType::ALL
                .iter()
                .map(|t| t.tag())
                .chain(written.iter().copied())
                .collect();
            json_schema!({ "description": "a certificate type, any case", "type": "string", "enum": read })
        }
    }
}

named!(crate::SortableId, "OrderId", {
    "description": "a ULID in its canonical (upper-case) form",
    "type": "string",
    "pattern": "^[0-7][0-9A-HJKMNP-TV-Z]{25}$",
});

named!(crate::commerce::Sku, "Sku", {
    "type": "integer",
    "minimum": 1,
    "maximum": crate::commerce::Sku::MAX,
});

impl JsonSchema for crate::commerce::OrderStatus {
    fn schema_name() -> Cow<'static, str> {
        "OrderStatus".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let all: Vec<&str> = crate::commerce::OrderStatus::ALL
            .iter()
            .map(|s| s.as_str())
            .collect();
        json_schema!({ "type": "string", "enum": all })
    }
}

named!(crate::Quarter, "Quarter", {
    "description": "a sales period, a quarter",
    "type": "string",
    "pattern": "^[0-9]{4}-Q[1-4]$",
    "examples": ["2026-Q4"],
});
