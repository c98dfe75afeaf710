//! What `openapi.yaml` says of a route beyond its declaration ([`crate::Route`]), declared beside
//! it as its module's `CONTRACTS` (one per route; never read by the binary, so none of this is
//! linked into a Lambda): the query
//! parameters it reads, the body it takes, what it answers and the refusals it documents, each
//! schema from the Rust type that parses or builds it (`#[derive(JsonSchema)]`, descriptions from
//! doc comments). `lab/catalogue`'s `openapi` walks every function's routes and writes the whole
//! document from these; what every route shares (400, 401 on a signed-in route, 403 on a staff
//! route, 413 with a body, 503) is derived there, not declared here.

use crate::Refusal;
use crate::function::{Worst, WorstCase};
use schemars::{JsonSchema, Schema, SchemaGenerator};

/// A JSON Schema of a Rust type, as the document references it.
#[derive(Clone, Copy)]
pub struct SchemaOf(pub fn(&mut SchemaGenerator) -> Schema);

impl SchemaOf {
    /// `T`'s schema: a `$ref` to `#/components/schemas/<T's name>`, or `T` inline when it says so
    /// (`#[schemars(inline)]`: an answer's envelope).
    pub const fn of<T: JsonSchema>() -> SchemaOf {
        fn subschema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
            generator.subschema_for::<T>()
        }
        SchemaOf(subschema::<T>)
    }

    pub fn build(self, generator: &mut SchemaGenerator) -> Schema {
        (self.0)(generator)
    }
}

impl PartialEq for SchemaOf {
    fn eq(&self, other: &SchemaOf) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl Eq for SchemaOf {}

impl std::fmt::Debug for SchemaOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SchemaOf(..)")
    }
}

/// A route's contract: see the module's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contract {
    /// The query parameters it reads beyond a paginated route's `limit` and `cursor` (those come
    /// from [`crate::Route::page`]).
    pub query: &'static [Query],
    /// What its page size says beyond "the page size" (a public route's 32 read units).
    pub page_note: Option<&'static str>,
    /// Its JSON body: its type, and whether it may be left out.
    pub body: Option<RequestBody>,
    /// Its success ([`Contract::ok`], [`Contract::created`], [`Contract::no_content`]), and a
    /// put's second one: 200 replaced, then 201 created ([`Contract::put`]); read both with
    /// [`Contract::answers`].
    pub answer: Answer,
    pub created: Option<Answer>,
    /// What its function refuses beyond what any route may answer: its `refusals!` enum's `ALL`
    /// ([`crate::refusal`]).
    pub refusals: &'static [Refusal],
    /// A public route's costliest call in half read units (DynamoDB bills reads by the half;
    /// `x-worst-case-read-units`), which `make cost` measures.
    pub worst_read_halves: Option<u32>,
    /// A write route's or a public read's costliest request ([`Contract::worst`]), which
    /// `make cost` measures.
    pub worst: Option<WorstCase>,
    /// Its tag, when not its context's (`derived` for a derived counter's read).
    pub tag: Option<&'static str>,
    /// Its `operationId`, when not its function's name (`getCustomer` for `get-customer`): one of
    /// a function's several routes (`getRegion` of `get-reference`).
    pub operation_id: Option<&'static str>,
    /// What no type says, merged into the operation as written (a header parameter, a
    /// response's headers and links): kept beside the handler that reads and sends them.
    pub more: Option<More>,
}

/// JSON merged into a generated operation ([`Contract::more`]).
#[derive(Clone, Copy)]
pub struct More(pub fn() -> serde_json::Value);

impl PartialEq for More {
    fn eq(&self, other: &More) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl Eq for More {}

impl std::fmt::Debug for More {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("More(..)")
    }
}

impl Contract {
    /// A contract answering `answer`; nothing else yet.
    const fn answering(answer: Answer) -> Contract {
        Contract {
            query: &[],
            page_note: None,
            body: None,
            answer,
            created: None,
            refusals: &[],
            worst_read_halves: None,
            worst: None,
            tag: None,
            operation_id: None,
            more: None,
        }
    }

    /// A contract answering 200 with a body of type `T` (a read, or a page: `limit` and `cursor`
    /// come from the route's [`crate::Route::paged`]).
    pub const fn ok<T: JsonSchema>(description: &'static str) -> Contract {
        Contract::answering(Answer::of::<T>(200, description))
    }

    /// A contract answering 201 with a body of type `T`: what a write created.
    pub const fn created<T: JsonSchema>(description: &'static str) -> Contract {
        Contract::answering(Answer::of::<T>(201, description))
    }

    /// A contract answering 204, no body.
    pub const fn no_content(description: &'static str) -> Contract {
        Contract::answering(Answer::no_content(description))
    }

    /// A put's contract: 200 with the record of type `T` when it `replaced` one, 201 when it
    /// `created` it.
    pub const fn put<T: JsonSchema>(replaced: &'static str, created: &'static str) -> Contract {
        Contract {
            created: Some(Answer::of::<T>(201, created)),
            ..Contract::ok::<T>(replaced)
        }
    }

    /// Its successes, in the order of their statuses.
    pub fn answers(&self) -> impl Iterator<Item = &Answer> {
        std::iter::once(&self.answer).chain(&self.created)
    }

    /// With a body of type `T`.
    pub const fn body<T: JsonSchema>(self) -> Contract {
        Contract {
            body: Some(RequestBody {
                schema: SchemaOf::of::<T>(),
                required: true,
            }),
            ..self
        }
    }

    /// With a body of type `T` that may be left out.
    pub const fn optional_body<T: JsonSchema>(self) -> Contract {
        Contract {
            body: Some(RequestBody {
                schema: SchemaOf::of::<T>(),
                required: false,
            }),
            ..self
        }
    }

    /// With these query parameters.
    pub const fn query(self, query: &'static [Query]) -> Contract {
        Contract { query, ..self }
    }

    /// With these refusals.
    pub const fn refusals(self, refusals: &'static [Refusal]) -> Contract {
        Contract { refusals, ..self }
    }

    /// With the page size's note.
    pub const fn page_note(self, note: &'static str) -> Contract {
        Contract {
            page_note: Some(note),
            ..self
        }
    }

    /// The contract, with `worst` building the route's costliest request ([`Worst`]): here, and
    /// not in the route's `FUNCTION`, so that no deployed binary carries it.
    pub const fn worst(self, worst: fn() -> Worst) -> Contract {
        Contract {
            worst: Some(WorstCase(worst)),
            ..self
        }
    }

    /// A public route's costliest call, in read units (a multiple of 0.5).
    pub const fn worst_read_units(self, units: f64) -> Contract {
        let halves = units * 2.0;
        assert!(
            halves >= 0.0 && halves == (halves as u32) as f64,
            "a multiple of 0.5"
        );
        Contract {
            worst_read_halves: Some(halves as u32),
            ..self
        }
    }

    /// [`Contract::worst_read_units`] as declared.
    pub fn worst_read_units_declared(&self) -> Option<f64> {
        self.worst_read_halves.map(|h| f64::from(h) / 2.0)
    }

    /// Named `id` rather than after its function.
    pub const fn operation_id(self, id: &'static str) -> Contract {
        Contract {
            operation_id: Some(id),
            ..self
        }
    }

    /// With `more` merged into the operation ([`Contract::more`]).
    pub const fn more(self, more: fn() -> serde_json::Value) -> Contract {
        Contract {
            more: Some(More(more)),
            ..self
        }
    }

    /// Under this tag rather than its context's.
    pub const fn tag(self, tag: &'static str) -> Contract {
        Contract {
            tag: Some(tag),
            ..self
        }
    }
}

/// A request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestBody {
    pub schema: SchemaOf,
    pub required: bool,
}

/// A success: its status, what it means, and its body's type (`None`: no body, a 204).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub description: &'static str,
    pub schema: Option<SchemaOf>,
}

impl Answer {
    /// `status` with a body of type `T`.
    pub const fn of<T: JsonSchema>(status: u16, description: &'static str) -> Answer {
        Answer {
            status,
            description,
            schema: Some(SchemaOf::of::<T>()),
        }
    }

    /// 204, no body.
    pub const fn no_content(description: &'static str) -> Answer {
        Answer {
            status: 204,
            description,
            schema: None,
        }
    }
}

/// A query parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Query {
    pub name: &'static str,
    /// What it does; `""` when its name says it.
    pub description: &'static str,
    pub required: bool,
    pub schema: SchemaOf,
}

impl Query {
    /// An optional parameter of type `T`.
    pub const fn of<T: JsonSchema>(name: &'static str, description: &'static str) -> Query {
        Query {
            name,
            description,
            required: false,
            schema: SchemaOf::of::<T>(),
        }
    }

    /// An optional parameter whose schema no type holds (a year as `YYYY`).
    pub const fn with(
        name: &'static str,
        description: &'static str,
        schema: fn(&mut SchemaGenerator) -> Schema,
    ) -> Query {
        Query {
            name,
            description,
            required: false,
            schema: SchemaOf(schema),
        }
    }

    /// The same, required.
    pub const fn required(self) -> Query {
        Query {
            required: true,
            ..self
        }
    }
}
