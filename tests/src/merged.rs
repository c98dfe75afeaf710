//! `store::merge` against DynamoDB Local: the certificates of Walch's talk, written sharded over
//! 20 GSI1 partitions per type, read back as one list (L11–L13) page by page through a cursor.

use std::collections::BTreeSet;

use futures::StreamExt;
use keys::{
    Shard,
    learning::{
        CERTIFICATE_SHARDS, CertType, CertVersion, Course, Location, Name, Person,
        certificates_of_type,
    },
};
use model::{Entity, Item, learning::Certificate};
use proptest::prelude::*;
use store::merge::{Direction, Positions, merged_page};

const INSTRUCTORS: [&str; 3] = ["Tyler Walch", "Ann Lee", "Bo"];

fn arb_certificate() -> impl Strategy<Value = Certificate> {
    (
        0usize..2,
        1u8..4,
        "[A-Da-d]{1,2}( [a-d]{1,2})?",
        0usize..3,
        0usize..2,
        0usize..2,
    )
        .prop_map(|(course, day, student, instructor, ct, v)| Certificate {
            cert_name: Course::parse(["Intro to DynamoDB", "Modeling 101"][course]).unwrap(),
            issued_date: keys::Date::from_ymd(2022, 3, day).unwrap(),
            location: Location::parse("Building 1").unwrap(),
            student: Name::parse("student", &student).unwrap(),
            cert_type: CertType::ALL[ct],
            instructor: Name::parse("instructor", INSTRUCTORS[instructor]).unwrap(),
            entity_version: CertVersion::ALL[v],
        })
}

/// Which of L11–L13 a walk reads.
#[derive(Debug, Clone)]
enum Read {
    All,
    Version(CertVersion),
    Instructor(CertVersion, usize),
}

fn arb_read() -> impl Strategy<Value = Read> {
    prop_oneof![
        Just(Read::All),
        (0usize..2).prop_map(|v| Read::Version(CertVersion::ALL[v])),
        (0usize..2, 0usize..3).prop_map(|(v, i)| Read::Instructor(CertVersion::ALL[v], i)),
    ]
}

/// A string whose ascending order is `s`'s descending order (for ASCII keys): each byte
/// inverted, then a terminator above every inverted byte, so a prefix sorts after its
/// extensions.
fn invert(s: &str) -> String {
    let mut out: String = s.bytes().map(|b| char::from(0x7f - b)).collect();
    out.push('\u{80}');
    out
}

/// The GSI1 shard a certificate item stands in (`<type>#<shard>#`).
fn shard_of(item: &Item) -> u32 {
    text(item, "GSI1PK")
        .split('#')
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("a sharded certificate")
}

fn text(item: &Item, name: &str) -> String {
    item[name].as_s().unwrap().clone()
}

/// Walks the read over `certificates`; returns the items each page read from DynamoDB.
async fn walk(
    certificates: Vec<Certificate>,
    read: Read,
    limit: u32,
    direction: Direction,
) -> Vec<usize> {
    let table = testkit::table().await;
    // A few writes at a time: DynamoDB Local times out on its locks under hundreds at once.
    futures::stream::iter(certificates.iter().map(|c| table.put(c, None)))
        .buffer_unordered(8)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let instructor = match &read {
        Read::Instructor(v, i) => Some(Person::of(
            *v,
            &Name::parse("instructor", INSTRUCTORS[*i]).unwrap(),
        )),
        _ => None,
    };
    let version = match &read {
        Read::Version(v) => Some(*v),
        _ => None,
    };
    let streams: Vec<_> = (0..CERTIFICATE_SHARDS)
        .map(|n| {
            let shard = Shard::new(n, CERTIFICATE_SHARDS).unwrap();
            certificates_of_type(CertType::Completion, shard, version, instructor.as_ref())
        })
        .collect();
    // What the walk must return: every completion certificate in the table the read selects.
    let expected: BTreeSet<(String, String)> = testkit::all_items(&table)
        .await
        .into_iter()
        .filter(|i| {
            let gsi1pk = text(i, "GSI1PK");
            let sk = text(i, "GSI1SK");
            let shard: u32 = gsi1pk
                .split('#')
                .nth(1)
                .and_then(|n| n.parse().ok())
                .unwrap_or(99);
            streams
                .get(shard as usize)
                .is_some_and(|c| c.pk() == gsi1pk && c.sort().matches(&sk))
        })
        .map(|i| (text(&i, "PK"), text(&i, "SK")))
        .collect();

    let (mut seen, mut order, mut pages, mut reads) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut positions = Positions::start(streams.len());
    loop {
        table.meter().reset();
        let page = merged_page(&table, streams.clone(), positions, limit, direction)
            .await
            .unwrap();
        reads.push(
            table
                .meter()
                .requests()
                .iter()
                .map(|r| r.items)
                .sum::<usize>(),
        );
        assert!(page.items.len() <= limit as usize);
        pages.push(page.items.len());
        for item in &page.items {
            assert_eq!(model::type_of(item), Some(Certificate::TYPE));
            seen.push((text(item, "PK"), text(item, "SK")));
            let shard = shard_of(item);
            let sort = text(item, "GSI1SK");
            order.push(match direction {
                Direction::Ascending => (sort, shard),
                // Descending: by sort key, highest first; ties still by shard, lowest first.
                Direction::Descending => (invert(&sort), shard),
            });
        }
        let Some(next) = page.next else { break };
        // As a cursor carries it.
        positions = Positions::from_item(&next.to_item(), streams.len()).unwrap();
        assert!(
            pages.len() <= expected.len() + 2,
            "a walk that does not end"
        );
    }
    let distinct: BTreeSet<_> = seen.iter().cloned().collect();
    assert_eq!(distinct.len(), seen.len(), "an item came back twice");
    assert_eq!(distinct, expected, "every selected item, and nothing else");
    assert!(
        order.is_sorted(),
        "merged order: by sort key, then shard: {order:?}"
    );
    let full = &pages[..pages.len() - 1];
    assert!(
        full.iter().all(|n| *n == limit as usize),
        "only the last page is short: {pages:?}"
    );
    reads
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Every matching certificate exactly once, in the merged order, for any page size and any
    /// spread over shards (empty shards, shards that run out early, ties on the sort key).
    #[test]
    fn a_sharded_index_walks_as_one_ordered_list(
        certificates in prop::collection::vec(arb_certificate(), 0..60),
        read in arb_read(),
        limit in 1u32..25,
        descending in any::<bool>(),
    ) {
        let direction = if descending { Direction::Descending } else { Direction::Ascending };
        let _reads = tokio::runtime::Runtime::new().unwrap().block_on(walk(certificates, read, limit, direction));
    }
}

/// A page reads about what it returns, not `limit` items from every shard (which would be
/// 20 × `limit`): `limit + 2 × shards` at most on its first fetch, plus what shards that ran dry
/// are asked for again; here, never more than `2 × limit + 2 × shards`. (Capacity is another
/// matter: every shard's query costs at least 0.5 RCU, so a page costs at least 10 RCU.)
#[tokio::test]
async fn a_page_reads_little_more_than_it_returns() {
    let certificates: Vec<Certificate> = (0..300)
        .map(|n| Certificate {
            cert_name: Course::parse("Intro to DynamoDB").unwrap(),
            issued_date: keys::Date::from_ymd(2022, 3, 15).unwrap(),
            location: Location::parse("Building 1").unwrap(),
            student: Name::parse("student", &format!("Student {n}")).unwrap(),
            cert_type: CertType::Completion,
            instructor: Name::parse("instructor", INSTRUCTORS[n % 3]).unwrap(),
            entity_version: CertVersion::V2,
        })
        .collect();
    for limit in [10, 100] {
        let reads = walk(certificates.clone(), Read::All, limit, Direction::Ascending).await;
        let shards = CERTIFICATE_SHARDS as usize;
        for (page, read) in reads.iter().enumerate() {
            assert!(
                *read <= 2 * limit as usize + 2 * shards,
                "limit {limit}, page {page} read {read} items: {reads:?}"
            );
        }
        eprintln!("limit {limit}: items read per page {reads:?}");
    }
}

#[tokio::test]
async fn a_cursor_for_other_streams_or_a_forged_position_is_refused() {
    let flat = Positions::start(20).to_item();
    assert_eq!(Positions::from_item(&flat, 20), Some(Positions::start(20)));
    let forged = Item::from([("25".to_owned(), model::s("done"))]);
    assert_eq!(Positions::from_item(&forged, 20), None);
    let mixed = Item::from([
        ("3".to_owned(), model::s("done")),
        ("3.PK".to_owned(), model::s("x")),
    ]);
    assert_eq!(Positions::from_item(&mixed, 20), None);
    let table = testkit::table().await;
    let streams = vec![certificates_of_type(
        CertType::Completion,
        Shard::new(0, 20).unwrap(),
        None,
        None,
    )];
    assert!(
        merged_page(
            &table,
            streams,
            Positions::start(2),
            5,
            Direction::Ascending
        )
        .await
        .is_err()
    );
}

/// A walk with certificates written between its pages: what the walk promises (`store::merge`):
/// every certificate there from the start comes back once, in order among themselves; a new one
/// comes back at most once, and exactly when it sorts after the position its own shard had
/// reached when it was written (a shard not started; or after an item with a smaller sort key).
/// It never comes back when its shard had finished or had passed its sort key. (A new
/// certificate that ties the position's sort key may go either way: DynamoDB orders ties by the
/// table's keys.)
async fn walk_with_inserts(
    initial: Vec<Certificate>,
    inserts: Vec<(usize, Certificate)>,
    limit: u32,
) {
    use store::merge::Position;
    let table = testkit::table().await;
    let key = |c: &Certificate| {
        let item = model::to_item(c).unwrap();
        (text(&item, "PK"), text(&item, "SK"))
    };
    // Distinct table keys: a write to an existing key is an update, not an insert.
    let mut keys = BTreeSet::new();
    let initial: Vec<_> = initial
        .into_iter()
        .filter(|c| keys.insert(key(c)))
        .collect();
    let mut inserts: Vec<_> = inserts
        .into_iter()
        .filter(|(_, c)| keys.insert(key(c)))
        .collect();
    inserts.sort_by_key(|(page, _)| *page);
    testkit::batch_put(&table, &initial).await;
    let streams: Vec<_> = (0..CERTIFICATE_SHARDS)
        .map(|n| {
            let shard = Shard::new(n, CERTIFICATE_SHARDS).unwrap();
            certificates_of_type(CertType::Completion, shard, None, None)
        })
        .collect();
    let completion: BTreeSet<_> = initial
        .iter()
        .filter(|c| c.cert_type == CertType::Completion)
        .map(key)
        .collect();

    let (mut seen, mut initial_order) = (Vec::new(), Vec::new());
    // For each insert of a completion certificate: whether the walk must return it (None: either).
    let mut promised: Vec<((String, String), Option<bool>)> = Vec::new();
    let mut positions = Positions::start(streams.len());
    let mut page_no = 0;
    let mut pending = inserts.into_iter().peekable();
    loop {
        while let Some((_, c)) = pending.next_if(|(p, _)| *p <= page_no) {
            table.put(&c, None).await.unwrap();
            if c.cert_type != CertType::Completion {
                continue;
            }
            let item = model::to_item(&c).unwrap();
            let shard = shard_of(&item) as usize;
            let sort = text(&item, "GSI1SK");
            let returned = match &positions.0[shard] {
                Position::Start => Some(true),
                Position::Done => Some(false),
                Position::After(at) => match sort.as_str().cmp(text(at, "GSI1SK").as_str()) {
                    std::cmp::Ordering::Greater => Some(true),
                    std::cmp::Ordering::Less => Some(false),
                    std::cmp::Ordering::Equal => None,
                },
            };
            promised.push((key(&c), returned));
        }
        let page = merged_page(
            &table,
            streams.clone(),
            positions,
            limit,
            Direction::Ascending,
        )
        .await
        .unwrap();
        for item in &page.items {
            let k = (text(item, "PK"), text(item, "SK"));
            if completion.contains(&k) {
                let shard = shard_of(item);
                initial_order.push((text(item, "GSI1SK"), shard));
            }
            seen.push(k);
        }
        page_no += 1;
        let Some(next) = page.next else { break };
        positions = Positions::from_item(&next.to_item(), streams.len()).unwrap();
        assert!(page_no <= keys.len() + 2, "a walk that does not end");
    }
    let distinct: BTreeSet<_> = seen.iter().cloned().collect();
    assert_eq!(distinct.len(), seen.len(), "a certificate came back twice");
    assert!(
        completion.is_subset(&distinct),
        "every certificate there from the start"
    );
    assert!(
        initial_order.is_sorted(),
        "the initial certificates in merged order: {initial_order:?}"
    );
    for (k, returned) in &promised {
        if let Some(returned) = returned {
            assert_eq!(
                distinct.contains(k),
                *returned,
                "a certificate written during the walk: {k:?}"
            );
        }
    }
    let extra: Vec<_> = distinct
        .iter()
        .filter(|k| !completion.contains(*k) && !promised.iter().any(|(p, _)| p == *k))
        .collect();
    assert!(
        extra.is_empty(),
        "returned but never written as a completion: {extra:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn certificates_written_during_a_walk_come_back_at_most_once_as_promised(
        initial in prop::collection::vec(arb_certificate(), 0..40),
        inserts in prop::collection::vec((0usize..6, arb_certificate()), 0..20),
        limit in 1u32..12,
    ) {
        tokio::runtime::Runtime::new().unwrap().block_on(walk_with_inserts(initial, inserts, limit));
    }
}
