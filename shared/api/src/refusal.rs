//! What a function refuses, declared once: each function module lists its refusals in one enum
//! ([`refusals!`]), whose one `match` gives each its status, its code and when it is answered.
//! The handler refuses with a variant (`Refused::PriceChanged.because(message)`), its route's
//! contract documents the enum's list (`.refusals(Refused::ALL)`), and `lab/catalogue` writes
//! from those lists the route's error responses and `openapi.yaml`'s list of codes, which
//! `docs/errors.md`'s table is held to. A code no enum declares cannot be answered: [`ApiError`]
//! has no constructor taking one.
//!
//! What any route may answer, whatever its function (malformed input, a missing token, a body
//! too large, DynamoDB busy or away, a bug), is [`Common`]: the handlers' shared helpers answer
//! those, and every route documents them from its shape.

use crate::ApiError;

/// A refusal: its HTTP status, its stable code, and when a function answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub code: &'static str,
    /// When it is answered, for the route's documentation (markdown, no trailing period).
    pub when: &'static str,
}

impl Refusal {
    pub const fn new(status: u16, code: &'static str, when: &'static str) -> Refusal {
        Refusal { status, code, when }
    }

    /// This refusal as an answer, with `message`: what happened and the caller's next step.
    pub fn because(self, message: impl Into<String>) -> ApiError {
        ApiError::refusing(self, message.into())
    }

    /// The item a point read found, or this refusal (its message made only when needed).
    pub fn unless_found<T>(
        self,
        found: Option<T>,
        message: impl FnOnce() -> String,
    ) -> Result<T, ApiError> {
        found.ok_or_else(|| self.because(message()))
    }
}

/// Declares a function's refusals: an enum whose variants are each a [`Refusal`] (a
/// `Refusal::new(status, code, when)`, or a constant a shared helper of the context declares),
/// with `refusal()` (the one match), `because(message)` (the answer), and `ALL` (what the
/// route's contract documents). A function module lists its variants only, and gets the enum
/// `Refused`: `api::refusals! { CartFull = Refusal::new(409, "cart_full", WHEN) }`.
///
/// ```
/// api::refusals! {
///     /// What this function refuses.
///     pub enum Refused {
///         CartFull = api::Refusal::new(409, "cart_full", "a new line for a cart of 100 lines"),
///     }
/// }
/// let answer = Refused::CartFull.because("The cart holds 100 lines already.");
/// assert_eq!((answer.status, answer.code), (409, "cart_full"));
/// assert_eq!(Refused::ALL, &[Refused::CartFull.refusal()]);
/// ```
#[macro_export]
macro_rules! refusals {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $refusal:expr ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $( $(#[$variant_meta])* $variant ),+
        }

        impl $name {
            /// Every refusal, in declaration order: what the route's contract documents.
            pub const ALL: &'static [$crate::Refusal] = &[$( $name::$variant.refusal() ),+];

            /// Its status, code and when it is answered.
            pub const fn refusal(self) -> $crate::Refusal {
                match self {
                    $( $name::$variant => $refusal ),+
                }
            }

            /// This refusal as an answer, with `message`.
            pub fn because(self, message: impl Into<String>) -> $crate::ApiError {
                self.refusal().because(message)
            }

            /// The item a point read found, or this refusal.
            pub fn unless_found<T>(
                self,
                found: Option<T>,
                message: impl FnOnce() -> String,
            ) -> Result<T, $crate::ApiError> {
                self.refusal().unless_found(found, message)
            }
        }

        impl From<$name> for $crate::Refusal {
            fn from(refused: $name) -> $crate::Refusal {
                refused.refusal()
            }
        }
    };
    // A function module's: its variants only, the enum `Refused`.
    ( $( $(#[$variant_meta:meta])* $variant:ident = $refusal:expr ),+ $(,)? ) => {
        $crate::refusals! {
            /// What this function refuses beyond what any route may answer ([`api::Common`]):
            /// what its contract documents, and the only refusals its handler can answer.
            pub enum Refused {
                $( $(#[$variant_meta])* $variant = $refusal ),+
            }
        }
    };
}

refusals! {
    /// What any route may answer, whatever its function: see the module's header. Every route
    /// documents the ones its shape allows (a body: `body_too_large`; a signed-in route:
    /// `unauthorized`...), in `openapi.yaml`'s shared responses.
    pub enum Common {
        InvalidParameter = Refusal::new(400, "invalid_parameter", "a path or query parameter is malformed"),
        InvalidRequest = Refusal::new(400, "invalid_request", "the request's URL cannot be read"),
        MissingBody = Refusal::new(400, "missing_body", "the route takes a body and none was sent"),
        InvalidJson = Refusal::new(400, "invalid_json", "the body is not JSON"),
        InvalidBody = Refusal::new(400, "invalid_body", "the body is not what the route takes"),
        DuplicateField = Refusal::new(400, "duplicate_field", "an object of the body names a member twice"),
        InvalidCursor = Refusal::new(400, "invalid_cursor", "a cursor this query did not issue"),
        Unauthorized = Refusal::new(401, "unauthorized", "a signed-in route reached without a token's claims"),
        Forbidden = Refusal::new(403, "forbidden", "a staff route called by someone not in the staff group"),
        BodyTooLarge = Refusal::new(413, "body_too_large", "a body over 64 KiB"),
        InternalError = Refusal::new(500, "internal_error", "a bug, or a deployment to fix"),
        Throttled = Refusal::new(503, "throttled", "DynamoDB throttled the request, or a write stayed contended"),
        Unavailable = Refusal::new(503, "unavailable", "DynamoDB could not be reached or failed on its side"),
    }
}
