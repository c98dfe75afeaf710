//! The registry of every key shape of the table, across contexts and indexes.
//!
//! A key is a sequence of segments joined by the delimiter, and no segment value can contain the
//! delimiter (identifiers reject it, text escapes it, numbers and dates are digits). So a key
//! splits back into exactly its segments, and a *shape* (one [`Seg`] per segment) describes every
//! key an entity can have. Two entities' keys can only meet if their shapes have the same number
//! of segments and every position could hold the same string; [`overlap`] decides that, and the
//! tests prove it false for every pair of entities in the same space: no key of one entity can
//! equal another's, whatever the inputs.
//!
//! The kinds are not written here: each context module declares its key shapes once
//! (`key_shapes!`, [`crate::shape`]), which makes both the builder and its [`Kind`], and [`KINDS`]
//! gathers them. A property test makes a key with every builder and checks that it is
//! [`classify`]d as its own kind and nothing else's (each value type's [`Seg`] accepts its key
//! form), and every read pattern's key condition is shown to select only the entities it decodes.
//! [`tables`] renders the kinds for `docs/keys.md`.

use std::str::FromStr;

use crate::{
    Date, Id, SortableId, Space, Text, Timestamp, commerce, derived, hr, learning, reviews,
    unescape,
};

pub use crate::shape::{Kind, Seg};

fn digits(s: &str, width: usize) -> bool {
    s.len() == width && s.bytes().all(|b| b.is_ascii_digit())
}

impl Seg {
    /// Whether this segment may be `s`.
    pub fn accepts(self, s: &str) -> bool {
        match self {
            Seg::Lit(l) => s == l,
            Seg::Id => Id::parse("id", s).is_ok(),
            Seg::Text => Text::is_key_form(s),
            Seg::Ulid => SortableId::parse(s).is_ok(),
            Seg::Date => Date::parse_hierarchical(s).is_ok(),
            Seg::IsoDate => Date::parse_iso(s).is_ok(),
            Seg::Timestamp => Timestamp::parse(s).is_ok(),
            Seg::Isbn => reviews::is_canonical_isbn(s),
            Seg::Sku => digits(s, commerce::Sku::WIDTH) && s != "000000000000",
            Seg::Shard => digits(s, crate::Shard::WIDTH),
            Seg::Version => digits(s, crate::Version::WIDTH) && s != "00",
            Seg::Status => commerce::OrderStatus::from_str(s).is_ok(),
            Seg::Quarter => crate::Quarter::parse(s).is_ok(),
            Seg::Total => digits(s, commerce::RANKED_TOTAL_WIDTH),
            Seg::CertType => learning::CertType::ALL.iter().any(|t| t.tag() == s),
            Seg::Person => learning::Person::is_key_form(s),
            Seg::Escaped => unescape(s).is_some(),
        }
    }
}

impl Kind {
    pub fn matches(&self, space: Space, pk: &str, sk: &str) -> bool {
        self.space == space && shape_matches(self.pk, pk) && shape_matches(self.sk, sk)
    }
}

fn shape_matches(shape: &[Seg], key: &str) -> bool {
    let parts: Vec<&str> = key.split(crate::DELIMITER).collect();
    parts.len() == shape.len() && shape.iter().zip(parts).all(|(seg, p)| seg.accepts(p))
}

use Seg::*;

/// Every context's key shapes, as each module declares them.
const CONTEXTS: &[&[Kind]] = &[
    commerce::KINDS,
    reviews::KINDS,
    learning::KINDS,
    hr::KINDS,
    derived::KINDS,
];

/// Every key of the table and its indexes, by entity and space.
pub const KINDS: &[Kind] = &crate::shape::concat::<{ crate::shape::count(CONTEXTS) }>(CONTEXTS);

/// Every registered kind a key could belong to (exactly one, for every key the builders make).
pub fn classify(space: Space, pk: &str, sk: &str) -> Vec<&'static Kind> {
    KINDS.iter().filter(|k| k.matches(space, pk, sk)).collect()
}

/// The form of a partition key of the table (`index` `None`) or of an index, as the docs show it
/// (`CUSTOMER#<customerId>`): the first registered kind of that space whose partition shape fits.
pub fn partition_form(index: Option<&str>, pk: &str) -> Option<String> {
    KINDS
        .iter()
        .find(|k| k.space.index() == index && shape_matches(k.pk, pk))
        .map(Kind::pk_form)
}

/// A string some segment kind may hold, used to decide whether a literal can meet a value.
fn could_meet(a: Seg, b: Seg) -> bool {
    match (a, b) {
        (Lit(x), Lit(y)) => x == y,
        (Lit(x), other) | (other, Lit(x)) => other.accepts(x),
        // Two value kinds: assume they can (the proof then needs a literal elsewhere).
        _ => true,
    }
}

fn shapes_overlap(a: &[Seg], b: &[Seg]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| could_meet(*x, *y))
}

/// Whether two kinds could ever produce the same key: same space, and both shapes overlap.
pub fn overlap(a: &Kind, b: &Kind) -> bool {
    a.space == b.space && shapes_overlap(a.pk, b.pk) && shapes_overlap(a.sk, b.sk)
}

/// One context's key shapes as a Markdown table: what `docs/contexts/<context>.md` shows.
pub fn table(context: &str) -> String {
    let mut out = String::from(
        "| entity | index | partition key | sort key | builder |\n|---|---|---|---|---|\n",
    );
    for k in KINDS.iter().filter(|k| k.context == context) {
        out.push_str(&format!(
            "| `{}` | {} | `{}` | `{}` | `{context}::{}` |\n",
            k.entity,
            k.space.index().unwrap_or("table"),
            k.pk_form(),
            k.sk_form(),
            k.builder,
        ));
    }
    out
}

/// Every context's table, then the multi-attribute indexes: the body of `docs/keys.md`.
pub fn tables() -> String {
    let mut contexts: Vec<&str> = KINDS.iter().map(|k| k.context).collect();
    contexts.dedup();
    let mut out = String::new();
    for context in contexts {
        out.push_str(&format!("\n### {context}\n\n{}", table(context)));
    }
    let attributes = |attrs: &[crate::KeyAttribute]| {
        attrs
            .iter()
            .map(|a| format!("`{}` {}", a.name, a.ty.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    out.push_str(
        "\n### Multi-attribute indexes\n\n| index | partition | sort | projection | entities |\n\
         |---|---|---|---|---|\n",
    );
    for index in crate::indexes::ALL {
        let members: Vec<String> = crate::indexes::members(index.name)
            .iter()
            .map(|m| format!("`{m}`"))
            .collect();
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            index.name,
            attributes(index.partition),
            attributes(index.sort),
            index.projection.as_str(),
            members.join(", "),
        ));
    }
    out.push('\n');
    out
}

/// What the proof (`tests`, below) hands each context's `proof` module, which lists beside the
/// context's declarations every key its builders make and every read of its key conditions: one
/// small pool of values for every builder, so that keys of different entities share their inputs
/// and any collision that existed would be tried.
#[cfg(test)]
pub(crate) mod proof {
    use proptest::prelude::*;

    use crate::{
        Id, Key, KeyCondition, KeySpace, Shard, Space, Version,
        commerce::{OrderStatus, Sku},
        learning::{CertType, Location},
        reviews::Isbn,
    };

    fn arb_id() -> impl Strategy<Value = Id> {
        prop_oneof![
            Just("A"),
            Just("a"),
            Just("ORDER"),
            Just("USER"),
            Just("1"),
            Just("x.y"),
            Just("PRODUCT")
        ]
        .prop_map(|s| Id::parse("id", s).unwrap())
    }

    fn arb_text() -> impl Strategy<Value = crate::Text> {
        "[aA#% 1]{1,6}[a1#]".prop_map(|s| crate::Text::parse("t", &s).unwrap())
    }

    #[derive(Debug, Clone)]
    pub(crate) struct Inputs {
        pub(crate) a: Id,
        pub(crate) b: Id,
        pub(crate) ms: u64,
        pub(crate) sku: Sku,
        pub(crate) isbn: Isbn,
        pub(crate) shard: Shard,
        pub(crate) status: OrderStatus,
        pub(crate) course: crate::Text,
        pub(crate) person: crate::learning::Person,
        pub(crate) location: Location,
        pub(crate) cert_type: CertType,
        pub(crate) version: Version,
    }

    pub(crate) fn arb_inputs() -> impl Strategy<Value = Inputs> {
        (
            (
                arb_id(),
                arb_id(),
                0u64..(1 << 47),
                1..=Sku::MAX,
                crate::reviews::tests::arb_isbn(),
            ),
            (
                0u32..20,
                0usize..8,
                arb_text(),
                ("[a-c# %-]{0,6}[a-c]", 0usize..2),
                "[a-c ]{0,2}[1-9]{0,2}[a-c ]{0,2}[a-c]",
            ),
            (0usize..2, 1u8..=99),
        )
            .prop_map(
                |((a, b, ms, sku, isbn), (shard, status, course, person, loc), (ct, v))| Inputs {
                    a,
                    b,
                    ms,
                    sku: Sku::new(sku).unwrap(),
                    isbn,
                    shard: Shard::new(shard, 20).unwrap(),
                    status: OrderStatus::ALL[status],
                    course,
                    person: crate::learning::Person::of(
                        crate::learning::CertVersion::ALL[person.1],
                        &crate::learning::Name::parse("name", &person.0).unwrap(),
                    ),
                    location: Location::parse(&loc).unwrap(),
                    cert_type: CertType::ALL[ct],
                    version: Version::new(v),
                },
            )
    }

    /// A key a builder made: its entity, space, partition key and sort key.
    pub(crate) type Made = (&'static str, Space, String, String);

    /// A read: its pattern, space, partition key, sort condition, and the entities its decoder
    /// expects.
    pub(crate) type Read = (
        &'static str,
        Space,
        String,
        crate::SortCondition,
        &'static [&'static str],
    );

    /// The key `entity`'s builder made.
    pub(crate) fn made<S: KeySpace>(entity: &'static str, key: Key<S>) -> Made {
        let (pk, sk) = key.into_parts();
        (entity, S::SPACE, pk, sk)
    }

    /// A read of `condition` by `pattern`, decoding `members`.
    pub(crate) fn read<S: KeySpace>(
        pattern: &'static str,
        condition: KeyCondition<S>,
        members: &'static [&'static str],
    ) -> Read {
        (
            pattern,
            S::SPACE,
            condition.pk().to_owned(),
            condition.sort().clone(),
            members,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::proof::{Inputs, Made, Read, arb_inputs};
    use super::*;
    use commerce::{tag as c, types as ct};
    use derived::tag as d;
    use hr::tag as h;
    use learning::types as lt;
    use proptest::prelude::*;
    use reviews::tag as r;

    /// The key tables of the docs show what the declarations say: `docs/keys.md` all of them,
    /// each context's page its own. A changed shape fails here until `UPDATE_KEYS=1 cargo test
    /// -p keys key_page` rewrites the tables (between their markers).
    #[test]
    fn the_key_pages_are_the_declarations() {
        const BEGIN: &str = "<!-- generated from the key declarations: begin -->\n";
        const END: &str = "<!-- generated from the key declarations: end -->";
        let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/");
        let mut pages = vec![("keys.md".to_owned(), tables())];
        for context in [
            commerce::CONTEXT,
            reviews::CONTEXT,
            learning::CONTEXT,
            hr::CONTEXT,
        ] {
            pages.push((format!("contexts/{context}.md"), table(context)));
        }
        for (page, body) in pages {
            let path = format!("{docs}{page}");
            let text = std::fs::read_to_string(&path).expect(&path);
            let (Some(start), Some(end)) = (text.find(BEGIN), text.find(END)) else {
                panic!("docs/{page} has no markers {BEGIN:?} ... {END:?}");
            };
            if text[start + BEGIN.len()..end] == body {
                continue;
            }
            if std::env::var_os("UPDATE_KEYS").is_some() {
                let updated = format!("{}{BEGIN}{body}{}", &text[..start], &text[end..]);
                std::fs::write(&path, updated).expect(&path);
                continue;
            }
            panic!(
                "docs/{page} differs from the key declarations: run `UPDATE_KEYS=1 cargo test \
                 -p keys key_page` and review the change.\n--- generated\n{body}"
            );
        }
    }

    /// The docs' count of the kinds of entity GSI1 holds is the declarations': the pages that
    /// argue about overloading say how overloaded it is.
    #[test]
    fn the_docs_count_gsi1_s_kinds_as_declared() {
        let n = KINDS
            .iter()
            .filter(|k| k.space.index() == Some("GSI1"))
            .count();
        let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/");
        for (page, said) in [
            (
                "one-table-or-many.md",
                format!("it holds {n} kinds of entity"),
            ),
            ("one-table-or-many.md", format!("shared by {n} kinds of")),
            ("key-designs.md", format!("GSI1 holds {n} kinds")),
        ] {
            let text = std::fs::read_to_string(format!("{docs}{page}"))
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            assert!(text.contains(&said), "docs/{page} does not say {said:?}");
        }
    }

    #[test]
    fn no_two_entities_can_share_a_key_whatever_the_inputs() {
        for (i, a) in KINDS.iter().enumerate() {
            for b in &KINDS[i + 1..] {
                assert!(
                    !overlap(a, b),
                    "{} and {} in {:?} could make the same key",
                    a.entity,
                    b.entity,
                    a.space
                );
            }
        }
    }

    #[test]
    fn every_entity_has_one_shape_per_space() {
        for (i, a) in KINDS.iter().enumerate() {
            for b in &KINDS[i + 1..] {
                assert!(
                    !(a.entity == b.entity && a.space == b.space),
                    "{} twice in {:?}",
                    a.entity,
                    a.space
                );
            }
        }
    }

    #[test]
    fn tagged_partitions_and_course_partitions_never_meet() {
        // Every partition key but a course's starts with a static tag and holds a delimiter; a
        // course's is one text segment, which never does. Upper-case tags can't be text either.
        for k in KINDS {
            if k.context == learning::CONTEXT && k.space == Space::Base {
                assert_eq!(k.pk, &[Text]);
            } else {
                assert!(
                    k.pk.len() >= 2,
                    "{}: a delimiter in every tagged key",
                    k.entity
                );
            }
        }
        for tag in [
            c::CUSTOMER,
            c::ORDER,
            c::CART,
            r::BOOK,
            r::USER,
            d::STATS,
            h::EMPLOYEE,
            h::WAREHOUSE,
        ] {
            assert!(!Text.accepts(tag), "{tag}");
        }
    }

    #[test]
    fn learning_seed_rows_classify_as_their_entities() {
        let one = |space, pk, sk| {
            let kinds = classify(space, pk, sk);
            assert_eq!(kinds.len(), 1, "{pk} / {sk}: {kinds:?}");
            kinds[0].entity
        };
        assert_eq!(
            one(
                Space::Base,
                "introtodynamodb",
                "2022/03/15#course#01#building01#"
            ),
            lt::COURSE_OCCURRENCE
        );
        assert_eq!(
            one(
                Space::Base,
                "introtodynamodb",
                "2022/03/15#cert#01#davidspurdy#"
            ),
            lt::CERTIFICATE
        );
        assert_eq!(
            one(Space::Gsi1, "completion#19#", "cert#01#tylerwalch#"),
            lt::CERTIFICATE
        );
        // A "course" named like a tagged key is still text (escaped, lower case): never a customer.
        let t = crate::Text::parse("course", "CUSTOMER#123").unwrap();
        assert_eq!(t.as_key(), "customer%23123");
        assert!(classify(Space::Base, t.as_key(), "A").is_empty());
    }

    /// Every key every builder makes from `i`, with the entity it is for: each context's
    /// `proof::keys`, beside its declarations.
    fn every_key(i: &Inputs) -> Vec<Made> {
        [
            commerce::proof::keys(i),
            reviews::proof::keys(i),
            learning::proof::keys(i),
            hr::proof::keys(i),
            derived::proof::keys(i),
        ]
        .concat()
    }

    /// Every read pattern's key condition, with the entities its decoder expects: each context's
    /// `proof::reads`, beside its key conditions.
    fn every_read(i: &Inputs) -> Vec<Read> {
        [
            commerce::proof::reads(i),
            reviews::proof::reads(i),
            learning::proof::reads(i),
            hr::proof::reads(i),
        ]
        .concat()
    }

    /// Every key of a multi-attribute index an item writes, with its entity: an occurrence's
    /// `OccurrencesByDate` attributes, and the order attributes headers and summaries both carry.
    fn every_index_key(i: &Inputs) -> Vec<(&'static str, crate::IndexKey)> {
        use crate::{
            Index,
            indexes::{
                AccountRepId, CustomerId, CustomerOrdersByStatus, EntityType, OrderId,
                RepOrdersByStatus, Status,
            },
        };
        let date = crate::Timestamp::from_ms(i.ms).unwrap().date();
        let id = SortableId::at_ms(i.ms);
        let mut keys = vec![(
            lt::COURSE_OCCURRENCE,
            learning::occurrence_by_date(&i.course, date, &i.location),
        )];
        for entity in [EntityType::ORDER_HEADER, EntityType::ORDER_SUMMARY] {
            let sort = || (Status(i.status), OrderId(id));
            keys.push((
                entity.0,
                CustomerOrdersByStatus::item_key((CustomerId(i.a.clone()), entity.clone()), sort()),
            ));
            keys.push((
                entity.0,
                RepOrdersByStatus::item_key((AccountRepId(i.b.clone()), entity.clone()), sort()),
            ));
        }
        keys.push((ct::ORDER_LINE, commerce::order_line_by_product(id, i.sku)));
        let at = crate::Timestamp::from_ms(i.ms).unwrap();
        keys.push((
            reviews::types::REVIEW,
            reviews::review_by_user(&i.isbn, &i.a, at),
        ));
        keys.push((
            reviews::types::REVIEW,
            reviews::review_by_user_all(&i.isbn, &i.a, at),
        ));
        keys
    }

    /// Every read of a multi-attribute index, with the entities its decoder expects.
    fn every_index_read(
        i: &Inputs,
    ) -> Vec<(&'static str, crate::IndexCondition, &'static [&'static str])> {
        use crate::{
            Index,
            indexes::{
                AccountRepId, CustomerId, CustomerOrdersByStatus, EntityType, OrderId,
                RepOrdersByStatus, Status,
            },
            learning::{OccurrenceRead, Period},
        };
        const OCC: &[&str] = &[lt::COURSE_OCCURRENCE];
        let date = crate::Timestamp::from_ms(i.ms).unwrap().date();
        let year = date.hierarchical()[..4].parse().unwrap();
        let (lo, hi) = (
            SortableId::floor(i.ms),
            SortableId::ceiling(i.ms + 86_400_000),
        );
        let mut reads: Vec<_> = [
            OccurrenceRead::In(Period::Any),
            OccurrenceRead::In(Period::Year(year)),
            OccurrenceRead::In(Period::Month(year, crate::indexes::ymd(date).1.0)),
            OccurrenceRead::In(Period::Day(date)),
            OccurrenceRead::At(date, i.location.clone()),
        ]
        .into_iter()
        .map(|r| (r.pattern(), r.by_date(&i.course).unwrap(), OCC))
        .collect();
        reads.push((
            "C4s",
            CustomerOrdersByStatus::key((CustomerId(i.a.clone()), EntityType::ORDER_HEADER))
                .eq(Status(i.status))
                .between(OrderId(lo), OrderId(hi)),
            &[ct::ORDER_HEADER],
        ));
        reads.push((
            "O10",
            RepOrdersByStatus::key((AccountRepId(i.b.clone()), EntityType::ORDER_SUMMARY))
                .eq(Status(i.status))
                .between(OrderId(lo), OrderId(hi)),
            &[ct::ORDER_SUMMARY],
        ));
        reads.push((
            "O8",
            commerce::order_lines_by_product(i.sku),
            &[ct::ORDER_LINE],
        ));
        reads.push((
            "R2",
            reviews::reviews_by_user(&i.a),
            &[reviews::types::REVIEW],
        ));
        reads.push((
            "R2",
            reviews::reviews_by_user_all(&i.a),
            &[reviews::types::REVIEW],
        ));
        reads
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// The registry's guarantees on the multi-attribute indexes: every key an item writes
        /// is in an index that declares its entity a member, and every read selects only the
        /// entities it decodes (keys from two input sets: one shared with the read, one not).
        #[test]
        fn every_index_read_selects_only_the_entities_it_decodes(i in arb_inputs(), j in arb_inputs()) {
            let keys: Vec<_> = every_index_key(&i).into_iter().chain(every_index_key(&j)).collect();
            for (entity, key) in &keys {
                prop_assert!(crate::indexes::members(key.index().name).contains(entity));
            }
            let mut selected = 0;
            for (pattern, read, members) in every_index_read(&i) {
                for (entity, key) in &keys {
                    let value = |n: &str| key.get(n).cloned();
                    if key.index().name == read.index().name && read.matches(value) {
                        selected += 1;
                        prop_assert!(members.contains(entity), "{} reads a {} ({:?})", pattern, entity, key);
                    }
                }
            }
            prop_assert!(selected >= 7, "each read finds its own inputs' item");
        }

        #[test]
        fn every_key_a_builder_makes_is_its_own_entitys_and_no_one_elses(i in arb_inputs()) {
            // Builder and kind come from one declaration; what this checks is that each value's
            // key form is what its type's `SEG` accepts, and that no other kind takes the key.
            let mut made = std::collections::BTreeSet::new();
            for (entity, space, pk, sk) in every_key(&i) {
                let kinds = classify(space, &pk, &sk);
                let entities: Vec<_> = kinds.iter().map(|k| k.entity).collect();
                prop_assert_eq!(entities, vec![entity], "{:?} {} / {}", space, pk, sk);
                made.insert((kinds[0].context, kinds[0].builder));
            }
            let missing: Vec<_> = KINDS
                .iter()
                .filter(|k| !made.contains(&(k.context, k.builder)))
                .map(|k| format!("{}::{}", k.context, k.builder))
                .collect();
            prop_assert!(missing.is_empty(), "every_key makes no key of {:?}", missing);
        }

        #[test]
        fn every_read_selects_only_the_entities_it_decodes(i in arb_inputs(), j in arb_inputs()) {
            // Keys from two input sets: one shared with the read's own inputs, one not.
            let keys: Vec<_> = every_key(&i).into_iter().chain(every_key(&j)).collect();
            for (pattern, space, pk, sort, members) in every_read(&i) {
                for (entity, key_space, kpk, ksk) in &keys {
                    if *key_space == space && *kpk == pk && sort.matches(ksk) {
                        prop_assert!(members.contains(entity), "{} reads a {} ({} / {})", pattern, entity, kpk, ksk);
                    }
                }
            }
        }
    }
}
