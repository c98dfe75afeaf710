//! Key shapes, each declared once: one line per entity and space makes its builder function and
//! its registry entry ([`Kind`]), and the key page of the docs is rendered from those entries.
//!
//! A declaration reads as the function it makes, with the key as its body, the partition key and
//! the sort key apart by `/`, their segments apart by `#` (spaced: `BOOK#` would be a reserved
//! prefix):
//!
//! ```text
//! /// A review: newest first in its book's collection.
//! pub fn review(isbn: &Isbn, user: &Id, at: Timestamp) -> Base<REVIEW> {
//!     BOOK # {isbn} / {at} # USER # {user}
//! }
//! ```
//!
//! - `Base<REVIEW>`: the space (`Base`, `Gsi1`, `Gsi2`) and the entity's `Type` (a constant of the
//!   module's `types`); `Result<Gsi1<..>>` when a segment may fail (`{RankedTotal::new(t)?}`);
//! - `BOOK`: a static tag, a constant of the module's `tag`; an empty segment is a leading or
//!   trailing delimiter (`# ORDER # {order}`, `{date} # {location} #`);
//! - `{isbn}`: a value, any expression of the arguments whose type is a [`Segment`]. The type
//!   says what the segment may hold ([`Segment::SEG`]), so the registry's kind comes from the
//!   same line as the key, and a wrong argument does not compile.
//!
//! [`crate::registry`] gathers every module's `KINDS` and proves, from them, that no two
//! entities' keys can meet.

use std::marker::PhantomData;

use crate::{KeyError, Segment, Space};

/// What one segment of a key may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seg {
    /// A static tag, exactly (`""` is the leading delimiter of Good's data-modeling post, or a
    /// trailing one).
    Lit(&'static str),
    /// An identifier ([`crate::Id`]).
    Id,
    /// Normalised, escaped free text ([`crate::Text`]).
    Text,
    /// A ULID ([`crate::SortableId`]).
    Ulid,
    /// `YYYY/MM/DD`.
    Date,
    /// `YYYY-MM-DD`.
    IsoDate,
    /// A fixed-width ISO-8601 timestamp ([`crate::Timestamp`]).
    Timestamp,
    /// A 13-digit ISBN.
    Isbn,
    /// A 12-digit SKU.
    Sku,
    /// A two-digit shard number.
    Shard,
    /// A two-digit entity version.
    Version,
    /// An order status.
    Status,
    /// A sales period, `YYYY-Qn`.
    Quarter,
    /// An order total in cents, 19 digits (a ranking key).
    Total,
    /// A certificate type's key tag.
    CertType,
    /// A person in a certificate key, of any version ([`crate::learning::Person`]).
    Person,
    /// An escaped key string (a lane mark's target, its lane).
    Escaped,
}

impl Seg {
    /// How a key's description shows the segment: the tag itself, or a placeholder of its form.
    pub fn placeholder(self) -> &'static str {
        match self {
            Seg::Lit(l) => l,
            Seg::Id => "<id>",
            Seg::Text => "<text>",
            Seg::Ulid => "<ulid>",
            Seg::Date => "<yyyy/mm/dd>",
            Seg::IsoDate => "<yyyy-mm-dd>",
            Seg::Timestamp => "<timestamp>",
            Seg::Isbn => "<isbn>",
            Seg::Sku => "<sku>",
            Seg::Shard => "<shard>",
            Seg::Version => "<vv>",
            Seg::Status => "<status>",
            Seg::Quarter => "<yyyy-Qn>",
            Seg::Total => "<total>",
            Seg::CertType => "<certType>",
            Seg::Person => "<person>",
            Seg::Escaped => "<key>",
        }
    }
}

/// One entity's keys in one space, as its declaration gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    /// The entity's `Type`.
    pub entity: &'static str,
    pub context: &'static str,
    pub space: Space,
    pub pk: &'static [Seg],
    pub sk: &'static [Seg],
    /// The function that makes the key.
    pub builder: &'static str,
    /// Per segment of `pk`, then of `sk`: the argument it is, when it is one (`""` otherwise).
    pub names: &'static [&'static str],
}

impl Kind {
    /// The partition key as the docs show it: `BOOK#<isbn>`.
    pub fn pk_form(&self) -> String {
        form(self.pk, &self.names[..self.pk.len()])
    }

    /// The sort key as the docs show it: `<at:timestamp>#USER#<user>`.
    pub fn sk_form(&self) -> String {
        form(self.sk, &self.names[self.pk.len()..])
    }
}

fn form(shape: &[Seg], names: &[&str]) -> String {
    shape
        .iter()
        .zip(names)
        .map(|(seg, name)| {
            let form = seg.placeholder().trim_matches(['<', '>']);
            match (seg, *name) {
                (Seg::Lit(_), _) | (_, "") => seg.placeholder().to_owned(),
                // Identifiers and text are named alone; other values say their form too.
                (Seg::Id | Seg::Text, name) => format!("<{name}>"),
                (_, name) if name == form => format!("<{name}>"),
                (_, name) => format!("<{name}:{form}>"),
            }
        })
        .collect::<Vec<_>>()
        .join(&crate::DELIMITER.to_string())
}

/// Every module's kinds, one after another (a `const`, so the registry is a table to read).
pub const fn concat<const N: usize>(parts: &[&[Kind]]) -> [Kind; N] {
    let mut out = [parts[0][0]; N];
    let (mut part, mut at) = (0, 0);
    while part < parts.len() {
        let mut i = 0;
        while i < parts[part].len() {
            out[at] = parts[part][i];
            (i, at) = (i + 1, at + 1);
        }
        part += 1;
    }
    assert!(at == N, "N is the number of kinds");
    out
}

/// How many kinds `parts` hold.
pub const fn count(parts: &[&[Kind]]) -> usize {
    let (mut part, mut n) = (0, 0);
    while part < parts.len() {
        n += parts[part].len();
        part += 1;
    }
    n
}

// What the declaration macro expands to: a value segment's kind is its type's `SEG`, found from
// the expression's type without evaluating it (a closure over the builder's arguments, coerced to a
// function pointer in a `const`).

#[doc(hidden)]
pub struct Of<T>(PhantomData<T>);

impl<T: Segment> Of<T> {
    pub fn new(_: &T) -> Of<T> {
        Of(PhantomData)
    }
}

#[doc(hidden)]
pub const fn seg_of<A, T: Segment>(_: fn(A) -> Result<Of<T>, KeyError>) -> Seg {
    T::SEG
}

/// A value as the segment it is, by method call, so that `isbn` (an `&Isbn`) and `at` (a
/// `Timestamp`) are both taken by reference.
#[doc(hidden)]
pub trait AsSegment: Segment + Sized {
    fn as_segment(&self) -> &Self {
        self
    }
}

impl<T: Segment> AsSegment for T {}

/// Declares a module's key shapes (see the [module](self)): each one's builder function, and the
/// module's `CONTEXT` and `KINDS`.
macro_rules! key_shapes {
    (context: $context:literal; $($decls:tt)*) => {
        /// The context these keys belong to, as the registry names it.
        pub const CONTEXT: &str = $context;
        $crate::shape::key_shapes! { @decl [] $($decls)* }
    };
    // One declaration at a time; the kinds are gathered until the end.
    (@decl [$($kinds:tt)*]) => {
        /// Every key shape of this module, as [`crate::registry::KINDS`] gathers them.
        pub const KINDS: &[$crate::shape::Kind] = &[$($kinds),*];
    };
    (@decl [$($kinds:tt)*]
        $(#[$m:meta])* $vis:vis fn $name:ident $args:tt -> Result<$space:ident<$entity:ident>> { $($key:tt)* }
        $($rest:tt)*
    ) => {
        $crate::shape::key_shapes! {
            @split (@fn [$(#[$m])*] $vis $name $args ($space) (Result<$crate::Key<$crate::$space>, $crate::KeyError>) Ok)
            [] [] $($key)*
        }
        $crate::shape::key_shapes! {
            @decl [$($kinds)* ($crate::shape::key_shapes! { @split (@kind $name $space $entity $args) [] [] $($key)* })]
            $($rest)*
        }
    };
    (@decl [$($kinds:tt)*]
        $(#[$m:meta])* $vis:vis fn $name:ident $args:tt -> $space:ident<$entity:ident> { $($key:tt)* }
        $($rest:tt)*
    ) => {
        $crate::shape::key_shapes! {
            @split (@fn [$(#[$m])*] $vis $name $args ($space) ($crate::Key<$crate::$space>))
            [] [] $($key)*
        }
        $crate::shape::key_shapes! {
            @decl [$($kinds)* ($crate::shape::key_shapes! { @split (@kind $name $space $entity $args) [] [] $($key)* })]
            $($rest)*
        }
    };
    // A key, `BOOK # {isbn} / {at} # USER # {user}`, into one bracketed group of tokens per
    // segment of the partition key, then of the sort key (empty: a leading or trailing `#`).
    (@split $then:tt [$($g:tt)*] [$($c:tt)*] # $($rest:tt)*) => {
        $crate::shape::key_shapes! { @split $then [$($g)* [$($c)*]] [] $($rest)* }
    };
    (@split ($($then:tt)*) [$($g:tt)*] [$($c:tt)*] / $($rest:tt)*) => {
        $crate::shape::key_shapes! { @sort ($($then)* [$($g)* [$($c)*]]) [] [] $($rest)* }
    };
    (@split $then:tt [$($g:tt)*] [$($c:tt)*] $t:tt $($rest:tt)*) => {
        $crate::shape::key_shapes! { @split $then [$($g)*] [$($c)* $t] $($rest)* }
    };
    (@sort $then:tt [$($g:tt)*] [$($c:tt)*] # $($rest:tt)*) => {
        $crate::shape::key_shapes! { @sort $then [$($g)* [$($c)*]] [] $($rest)* }
    };
    (@sort $then:tt [$($g:tt)*] [$($c:tt)*] $t:tt $($rest:tt)*) => {
        $crate::shape::key_shapes! { @sort $then [$($g)*] [$($c)* $t] $($rest)* }
    };
    (@sort ($($then:tt)*) [$($g:tt)*] [$($c:tt)*]) => {
        $crate::shape::key_shapes! { $($then)* [$($g)* [$($c)*]] }
    };
    // The builder: each segment pushed in order.
    (@fn [$($m:tt)*] $vis:vis $name:ident ($($p:ident: $t:ty),* $(,)?) ($space:ident) ($($ret:tt)*) $($ok:ident)?
        [$($pk:tt)*] [$($sk:tt)*]
    ) => {
        $($m)*
        $vis fn $name($($p: $t),*) -> $($ret)* {
            #[allow(unused_imports)]
            use $crate::shape::AsSegment as _;
            let key = $crate::Composite::new();
            $(let key = $crate::shape::key_shapes!(@push key $pk);)*
            let pk = key.build();
            let key = $crate::Composite::new();
            $(let key = $crate::shape::key_shapes!(@push key $sk);)*
            let sk = key.build();
            $($ok)?($crate::Key::<$crate::$space>::new(pk, sk))
        }
    };
    (@push $key:ident []) => { $key.lit("") };
    (@push $key:ident [$tag:ident]) => { $key.lit(tag::$tag) };
    (@push $key:ident [{$e:expr}]) => { $key.seg($e.as_segment()) };
    // The registry's kind: each segment's `Seg`, and the argument it names.
    (@kind $name:ident $space:ident $entity:ident $args:tt [$($pk:tt)*] [$($sk:tt)*]) => {
        $crate::shape::Kind {
            entity: types::$entity,
            context: CONTEXT,
            space: $crate::Space::$space,
            pk: &[$($crate::shape::key_shapes!(@seg $args $pk)),*],
            sk: &[$($crate::shape::key_shapes!(@seg $args $sk)),*],
            builder: stringify!($name),
            names: &[$($crate::shape::key_shapes!(@name $pk),)* $($crate::shape::key_shapes!(@name $sk)),*],
        }
    };
    (@seg $args:tt []) => { $crate::shape::Seg::Lit("") };
    (@seg $args:tt [$tag:ident]) => { $crate::shape::Seg::Lit(tag::$tag) };
    (@seg ($($p:ident: $t:ty),* $(,)?) [{$e:expr}]) => {
        $crate::shape::seg_of(
            #[allow(unused_variables)]
            |($($p,)*): ($($t,)*)| {
                use $crate::shape::AsSegment as _;
                Ok($crate::shape::Of::new($e.as_segment()))
            },
        )
    };
    (@name [{$p:ident}]) => { stringify!($p) };
    (@name $other:tt) => { "" };
}

pub(crate) use key_shapes;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Gsi1Key, Id, PrimaryKey, Timestamp};

    mod tag {
        pub const THING: &str = "THING";
        pub const PART: &str = "PART";
        pub const TOP: &str = "TOP";
    }

    mod types {
        pub const THING: &str = "Thing";
    }

    /// A number below 100, two digits: a segment that may fail.
    struct Small(u64);

    impl Small {
        fn new(n: u64) -> Result<Small, KeyError> {
            (n < 100)
                .then_some(Small(n))
                .ok_or(KeyError::Overflow { value: n, width: 2 })
        }
    }

    impl Segment for Small {
        const SEG: Seg = Seg::Shard;
        fn segment(&self) -> std::borrow::Cow<'_, str> {
            crate::pad(self.0, 2).unwrap().into()
        }
    }

    key_shapes! {
        context: "test";
        /// A thing and its part.
        fn thing(id: &Id, at: Timestamp) -> Base<THING> { THING # {id} / # PART # {at} # }
        fn thing_index(id: &Id, n: u64) -> Result<Gsi1<THING>> { TOP / {Small::new(n)?} # {id} }
    }

    fn id(s: &str) -> Id {
        Id::parse("id", s).unwrap()
    }

    #[test]
    fn a_declaration_makes_its_builder() {
        let at = Timestamp::from_ms(0).unwrap();
        let k: PrimaryKey = thing(&id("a"), at);
        assert_eq!(
            (k.pk(), k.sk()),
            ("THING#a", "#PART#1970-01-01T00:00:00.000Z#")
        );
        let i: Gsi1Key = thing_index(&id("a"), 7).unwrap();
        assert_eq!((i.pk(), i.sk()), ("TOP", "07#a"));
        assert!(thing_index(&id("a"), 100).is_err());
    }

    #[test]
    fn a_declaration_makes_its_kind() {
        use Seg::*;
        let [t, i] = KINDS else {
            panic!("two kinds: {KINDS:?}")
        };
        assert_eq!(
            (t.entity, t.context, t.space, t.builder),
            ("Thing", CONTEXT, Space::Base, "thing")
        );
        assert_eq!(t.pk, &[Lit("THING"), Id]);
        assert_eq!(t.sk, &[Lit(""), Lit("PART"), Timestamp, Lit("")]);
        assert_eq!(
            (t.pk_form().as_str(), t.sk_form().as_str()),
            ("THING#<id>", "#PART#<at:timestamp>#")
        );
        assert_eq!(
            (i.space, i.pk, i.sk),
            (Space::Gsi1, &[Lit("TOP")][..], &[Shard, Id][..])
        );
        assert_eq!(
            i.sk_form(),
            "<shard>#<id>",
            "a computed value shows its form"
        );
        let all: [Kind; 4] = concat(&[KINDS, KINDS]);
        assert_eq!((count(&[KINDS, KINDS]), all[3]), (4, *i));
    }
}
