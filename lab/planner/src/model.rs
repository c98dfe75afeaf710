//! Each modelled access pattern as the requests it makes: which partition key of which index each
//! read and write touches, built with the real key builders (`keys`) from real entities (`model`)
//! and their real index membership (`Entity::gsi1`, `Entity::gsi2`), and how many capacity units
//! each costs, from the size DynamoDB counts for a real item of the model. Change a key design
//! and these touches, hence the plan, change with it.

use keys::{
    Date, Gsi1Key, Gsi2Key, Id, IndexCondition, KeySpace, KeyValue, PrimaryKey, Quarter, Shard,
    Timestamp,
    commerce::{self as kc, OrderId, OrderStatus, Sku},
    derived as kd,
    indexes::IndexDesign,
    learning::{self as kl, CertType, CertVersion, Course, Location, Name},
    reviews::{self as kr, Isbn},
};
use model::{
    Entity as _,
    commerce::{
        Customer, Inventory, Order, OrderHeader, OrderLine, OrderSummary, Product, RepSales,
    },
    derived::DailyStats,
    learning::Certificate,
    reviews::{Book, Review, ReviewMarker, User},
};

pub use crate::entity::{SAMPLE_MS, customer_id, isbn, order_id, rep_id, sku, student, user_id};
pub use crate::touch::{Also, Arrival, Draw, Ix, Shape, StreamWrite, Touch, rcu, touch, wcu};
use crate::{
    fanout,
    workload::{Entity, ItemKind, PatternLoad, Workload},
};

/// A global secondary index of the template: its name and key attributes.
#[derive(Debug, Clone)]
pub struct IndexSchema {
    pub index: Ix,
    pub partition: Vec<String>,
    pub sort: Vec<String>,
    /// The partition key's shape for the report: `<CustomerId>, <Type>`.
    pub label: &'static str,
}

/// Every global secondary index of `template.yaml` deployed with `IndexDesign` = `design` (its
/// other parameters at their defaults; what the code's cost tests bill writes against too): an
/// item stands in each whose key attributes it all carries (DynamoDB's sparse indexes).
pub fn template_indexes(design: IndexDesign) -> &'static [IndexSchema] {
    static INDEXES: std::sync::OnceLock<Vec<Vec<IndexSchema>>> = std::sync::OnceLock::new();
    let all = INDEXES.get_or_init(|| {
        IndexDesign::ALL
            .iter()
            .map(|d| {
                devkit::size::deployed_indexes_in(*d)
                    .iter()
                    .map(|i| IndexSchema {
                        index: Ix(Box::leak(i.name.clone().into_boxed_str())),
                        partition: i.key.partition.clone(),
                        sort: i.key.sort.clone(),
                        label: Box::leak(
                            i.key
                                .partition
                                .iter()
                                .map(|a| format!("<{a}>"))
                                .collect::<Vec<_>>()
                                .join(", ")
                                .into_boxed_str(),
                        ),
                    })
                    .collect()
            })
            .collect()
    });
    devkit::size::of_design(all, design).as_slice()
}

use devkit::profile::key_text as text_of;

/// A real item of the model written (`before`: the item it replaces, whose index keys may move):
/// its base-table partition and every index it stands in, each billed as the code's cost tests
/// bill a write (`devkit::touched_write_units`: 1 unit per KB, the table's twice in a
/// transaction, index copies included once, a moved index key a delete and a put). `labels` names the partition shapes
/// of the indexes as the catalogue writes them.
fn stored(
    d: Design,
    item: &model::Item,
    before: Option<&model::Item>,
    base_label: &'static str,
    labels: &[(Ix, &'static str, Shape)],
    transactional: bool,
) -> Vec<Touch> {
    let pk = text_of(item.get(keys::attr::PK).expect("a PK"));
    let sk = text_of(item.get(keys::attr::SK).expect("an SK"));
    let mut out = Vec::new();
    for (index, units) in devkit::item_write_units(
        before,
        Some(item),
        false,
        transactional,
        devkit::size::deployed_indexes_in(d.index_design),
    ) {
        let Some(name) = index else {
            out.push(Touch {
                sk: sk.clone(),
                ..touch(Ix::TABLE, &pk, base_label, Shape::Collection).write(units)
            });
            continue;
        };
        let i = d
            .indexes()
            .iter()
            .find(|i| i.index.0 == name)
            .expect("a deployed index");
        let key_of = |item: &model::Item| {
            i.partition
                .iter()
                .map(|a| item.get(a).map(text_of))
                .collect::<Option<Vec<_>>>()
        };
        let Some(values) = key_of(item).or_else(|| before.and_then(key_of)) else {
            continue;
        };
        let (label, shape) = labels
            .iter()
            .find(|(ix, _, _)| *ix == i.index)
            .map_or((i.label, Shape::Increasing), |(_, l, s)| (*l, *s));
        out.push(touch(i.index, &values.join(", "), label, shape).write(units));
    }
    out
}

/// A transaction's ConditionCheck of an item of `bytes`: a write action, on the table only.
fn check(bytes: f64) -> f64 {
    devkit::check_units(bytes as usize)
}

/// Average sizes, in bytes as DynamoDB counts them, of real items of the model (or the
/// workload's stated ones).
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    pub customer: f64,
    pub order_summary: f64,
    pub order_header: f64,
    pub order_line: f64,
    /// A product's inventory in a warehouse (O8 reads them beside the order lines).
    pub inventory: f64,
    /// An order line's entry in the index O8 reads (`OrderLinesByProduct`'s projection, or
    /// GSI1's full copy).
    pub order_line_entry: f64,
    pub product: f64,
    pub product_sales: f64,
    pub daily_stats: f64,
    pub rep_sales: f64,
    /// The marks of a stream target whose sources are in one partition (a customer, a book)
    /// (`store::aggregate`): its writes carry them. A counter shard's are its lanes'
    /// ([`counter_write`]).
    pub marks_own: f64,
    /// The marks' count of a target every stream shard writes (a user's review count).
    pub lanes_shared: f64,
    /// A ranked target's mark of one lane, kept aside (`store::aggregate::mark_aside_item`).
    pub mark_aside: f64,
    /// An order's idempotency record (the key, a digest of the body and the response replayed).
    pub idempotency: f64,
    pub book: f64,
    pub user: f64,
    pub review: f64,
    /// A review's entry in the index R2 reads (`ReviewsByUser`'s keys, or GSI1's full copy).
    pub review_entry: f64,
    pub certificate: f64,
    /// Which sizes the workload stated instead of measuring.
    pub stated: &'static [&'static str],
}

fn size_of<E: model::Entity>(e: &E) -> f64 {
    item_size(&model::to_item(e).expect("a model item"))
}

fn item_size(item: &model::Item) -> f64 {
    devkit::item_size(item) as f64
}

/// The size of `item`'s entry in `index` as the design's template declares it: what a Query of
/// the index reads of it (the whole item where the index projects `ALL`; the item itself where
/// the design has no such index, which then reads GSI1's full copy).
fn entry_size(d: Design, item: &model::Item, index: &str) -> f64 {
    let t = devkit::size::template_in(d.index_design);
    t.table
        .global_indexes
        .iter()
        .find(|i| i.name == index)
        .map_or_else(
            || item_size(item),
            |i| devkit::index_entry_size(item, &t.table, i) as f64,
        )
}

fn at() -> Timestamp {
    Timestamp::from_ms(SAMPLE_MS).expect("a valid instant")
}

/// Order ids as place-order makes them (ULIDs over the sample day), from a fixed sequence so a
/// plan is the same each run: the first `n` of [`SAMPLE_IDS`], made once.
pub fn order_ids(n: usize) -> impl Iterator<Item = OrderId> {
    static IDS: std::sync::OnceLock<Vec<OrderId>> = std::sync::OnceLock::new();
    let ids = IDS.get_or_init(|| {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        (0..SAMPLE_IDS)
            .map(|i| {
                let random = (u128::from(next()) << 64 | u128::from(next())) >> 48;
                let ms = SAMPLE_MS + (i as u64 * 86_400_000 / SAMPLE_IDS as u64);
                OrderId::parse(&ulid::Ulid::from_parts(ms, random).to_string()).expect("a ULID")
            })
            .collect()
    });
    ids.iter().copied().take(n.min(SAMPLE_IDS))
}

/// Order ids sampled for the share of each shard a hash of the id gives: enough that the fullest
/// of 15 shards is within about 2% of its exact share.
pub const SAMPLE_IDS: usize = 200_000;

fn order(id: OrderId, customer: &Id, rep: Option<&Id>, lines: u64, shards: u32) -> Order {
    Order {
        order_id: id,
        customer_id: customer.clone(),
        status: OrderStatus::Open,
        created_at: at(),
        total: 12_345 * lines as i64,
        item_count: lines,
        event_count: None,
        last_event_id: None,
        account_rep_id: rep.cloned(),
        status_shard: Some(kc::order_status_shard(id, shards)),
        currency: Some("USD".to_owned()),
    }
}

fn line(id: OrderId, sku: Sku) -> OrderLine {
    OrderLine {
        order_id: id,
        sku,
        quantity: 2,
        unit_price: 1_999,
    }
}

/// A GSI1 key of each certificate shard of the type, from real certificates: the first students
/// whose certificates land on each shard.
fn certificate_shard_keys() -> Vec<Gsi1Key> {
    let mut found: std::collections::BTreeMap<String, Gsi1Key> = Default::default();
    for k in 1..100_000 {
        let c = certificate(k, 1);
        let index = c.gsi1().expect("a certificate is in GSI1");
        found.entry(index.pk().to_owned()).or_insert(index);
        if found.len() == kl::CERTIFICATE_SHARDS as usize {
            break;
        }
    }
    found.into_values().collect()
}

/// A review of the book by the user, as R3 writes it.
fn review_of(book: &Isbn, user: &Id) -> Review {
    Review {
        isbn: book.clone(),
        username: user.clone(),
        grade: 8,
        review_text: "A review of a few sentences: what the reader liked, what they did not, \
                      and whom they would give the book to."
            .to_owned(),
        review_date: at(),
    }
}

fn review(d: Design, book: &Isbn, user: &Id) -> model::Item {
    d.item(&review_of(book, user))
}

fn certificate(k: u64, course: u64) -> Certificate {
    Certificate {
        cert_name: Course::parse(&format!("Course {course}")).expect("a course"),
        issued_date: at().date(),
        location: Location::parse("Building 1").expect("a location"),
        student: student(k),
        cert_type: CertType::Completion,
        instructor: Name::parse("instructor", "Ada Instructor").expect("a name"),
        entity_version: CertVersion::CURRENT,
    }
}

impl Sizes {
    /// Real items of the model, measured; the workload's stated sizes instead where it gives them.
    pub fn of(w: &Workload, d: Design) -> Sizes {
        let shards = d.order_status_shards;
        let id = order_ids(1).next().expect("one id");
        let c = customer_id(1);
        let rep = rep_id(1);
        let o = order(id, &c, Some(&rep), 3, shards);
        let customer = Customer {
            customer_id: c.clone(),
            name: "Alex Customer".to_owned(),
            email: "alex.customer@example.com".to_owned(),
            created_at: at(),
            updated_at: at(),
            order_count: 12.into(),
            lifetime_value: 123_456.into(),
            account_rep_id: Some(rep.clone()),
        };
        let product = Product {
            sku: sku(1),
            name: "A product of the catalogue".to_owned(),
            description: Some("What it is, in a sentence or two of the catalogue.".to_owned()),
            created_at: at(),
            updated_at: at(),
            price: Some(1_999),
            currency: Some("USD".to_owned()),
            total_inventory: 1_000.into(),
        };
        let date = at().date();
        let shards = f64::from(w.stream.shards.max(1));
        let review = review_of(&isbn(1), &user_id(1));
        let inventory = Inventory {
            sku: sku(1),
            warehouse_id: Id::parse("warehouse", "W00001").expect("an id"),
            quantity: 1_000,
            updated_at: at(),
            version: 12,
        };
        let mut s = Sizes {
            customer: size_of(&customer),
            order_summary: size_of(&OrderSummary(o.clone())),
            order_header: size_of(&OrderHeader(o.clone())),
            order_line: item_size(&d.item(&line(id, sku(1)))),
            inventory: item_size(&d.item(&inventory)),
            order_line_entry: entry_size(
                d,
                &d.item(&line(id, sku(1))),
                kc::order_lines_by_product(sku(1)).index().name,
            ),
            product: size_of(&product),
            product_sales: size_of(&model::commerce::ProductSales {
                sku: sku(1),
                shard: Shard::new(0, 1).expect("shard 0"),
                units_sold: 1_000_000.into(),
                revenue: 1_999_000_000.into(),
            }),
            daily_stats: size_of(&DailyStats {
                date,
                shard: Shard::new(0, 1).expect("shard 0"),
                orders: 100_000.into(),
                revenue: 1_234_567_890.into(),
                reviews: 1_000.into(),
            }),
            // Its ranking key is written with its total (not an `Entity::gsi1`): add it.
            rep_sales: size_of(&RepSales {
                period: Quarter::of(date),
                rep_id: rep.clone(),
                total: 123_456_789.into(),
                order_count: 1_000.into(),
            }) + gsi_key_bytes(
                &kc::rep_ranking_index(Quarter::of(date), 123_456_789, &rep).expect("a key"),
            ),
            marks_own: marks_bytes(MARKS_PER_STREAM_SHARD),
            lanes_shared: shards * MARKS_PER_STREAM_SHARD,
            mark_aside: devkit::item_size(&store::aggregate::mark_aside_item(
                &kd::lane_mark(&kc::rep_sales(Quarter::of(date), &rep), "AbC-d_01234"),
                store::aggregate::Sequence::parse("4421584500000000017450439091")
                    .expect("a sequence number"),
                1_795_860_000,
            )) as f64,
            idempotency: size_of(&model::commerce::Idempotency {
                customer_id: c.clone(),
                idempotency_key: Id::parse("key", "7d6f1c2e-5b1a-4c5e-9a57-2f3c1b0d9e11")
                    .expect("a key"),
                order_id: id,
                request_hash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
                    .to_owned(),
                // place-order's 201 body for three lines, as replayed.
                response: format!(
                    r#"{{"orderId":"{id}","customerId":"{}","status":"OPEN","createdAt":"2026-11-28T12:00:00.000Z","currency":"USD","total":{},"items":[{}]}}"#,
                    c.as_str(),
                    3 * 2 * 1999,
                    (1..=3)
                        .map(|k| format!(r#"{{"sku":"{}","quantity":2,"unitPrice":1999}}"#, sku(k)))
                        .collect::<Vec<_>>()
                        .join(",")
                ),
                expires_at: 1_795_900_000,
            }),
            book: size_of(&Book {
                isbn: isbn(1),
                title: "The Title of a Book".to_owned(),
                author: "An Author".to_owned(),
                publication_year: 2024,
                rating_count: 1_000.into(),
                rating_sum: 8_000.into(),
            }),
            user: item_size(&d.item(&User {
                username: user_id(1),
                membership_date: date,
                review_count: 12.into(),
            })),
            review: item_size(&d.item(&review)),
            review_entry: entry_size(
                d,
                &d.item(&review),
                kr::reviews_by_user(&user_id(1)).index().name,
            ),
            certificate: size_of(&certificate(1, 1)),
            stated: &[],
        };
        let mut stated = Vec::new();
        for (kind, bytes) in &w.item_bytes {
            let b = *bytes as f64;
            let name = match kind {
                ItemKind::Customer => {
                    s.customer = b;
                    "customer"
                }
                ItemKind::Order => {
                    s.order_summary = b;
                    s.order_header = b;
                    "order"
                }
                ItemKind::OrderLine => {
                    s.order_line = b;
                    "order_line"
                }
                ItemKind::Product => {
                    s.product = b;
                    "product"
                }
                ItemKind::Review => {
                    s.review = b;
                    "review"
                }
                ItemKind::Book => {
                    s.book = b;
                    "book"
                }
                ItemKind::User => {
                    s.user = b;
                    "user"
                }
                ItemKind::Certificate => {
                    s.certificate = b;
                    "certificate"
                }
            };
            stated.push(name);
        }
        s.stated = Box::leak(stated.into_boxed_slice());
        s
    }
}

/// Marks a target keeps per stream shard that writes it. DynamoDB Streams closes each shard and
/// opens its child every few hours ([`STREAM_SHARD_HOURS`]), and a consumer's write drops the
/// mark of the shard its own follows (`stream_handler::lineage`): a target that shard's lineage
/// keeps writing holds its open shard's mark and, until the child's first write, its parent's.
/// A target no later shard writes keeps its marks for 25 hours
/// (`store::aggregate::MARK_KEPT_SECONDS`), but is not written meanwhile: they cost nothing.
pub const MARKS_PER_STREAM_SHARD: f64 = 2.0;

/// How long a DynamoDB Streams shard stays open before its child takes over: about 4 hours, as
/// observed (AWS does not document the period).
pub const STREAM_SHARD_HOURS: f64 = 4.0;

/// Marks a counter shard keeps per stream shard that writes it. Each of a lineage's shards
/// chooses its counter shard anew ([`Lane::counter_shard`](store::aggregate::Lane)), so the
/// child rarely writes where its parent did and cannot drop the parent's mark there: a counter
/// shard holds the mark of every shard that wrote it in the 25 hours marks are kept, about
/// `25 / 4 + 1` per lineage that writes it now.
pub const MARKS_PER_COUNTER_LANE: f64 =
    store::aggregate::MARK_KEPT_SECONDS as f64 / 3600.0 / STREAM_SHARD_HOURS + 1.0;

/// The bytes a target's marks of `lanes` lanes add to it.
fn marks_bytes(lanes: f64) -> f64 {
    static ONE: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    let one = *ONE.get_or_init(|| {
        let marks: model::Item = store::aggregate::sample_marks(1).into_iter().collect();
        item_size(&marks)
    });
    one * lanes.round()
}

/// What one consumer write of a counter shard of `bytes` costs, `lanes` stream shards writing it
/// now (its marks are theirs and their lineages' of the last 25 hours).
pub fn counter_write(bytes: f64, lanes: f64) -> f64 {
    wcu(bytes + marks_bytes(lanes * MARKS_PER_COUNTER_LANE))
}

/// `item` with the marks of `lanes` lanes: a stream target as the consumer writes it.
fn marked(mut item: model::Item, lanes: f64) -> model::Item {
    item.extend(store::aggregate::sample_marks(lanes.round() as usize));
    item
}

fn gsi_key_bytes<S: KeySpace>(k: &keys::Key<S>) -> f64 {
    (S::PK.len() + k.pk().len() + S::SK.len() + k.sk().len()) as f64
}

/// A Query's partition in a multi-attribute index, as its reader's key condition names it
/// (`keys`): the index the design's template declares by that name, keyed by the condition's
/// partition values.
fn indexed(c: &IndexCondition, d: Design, shape: Shape) -> Touch {
    let name = c.index().name;
    let i = d
        .indexes()
        .iter()
        .find(|i| i.index.0 == name)
        .unwrap_or_else(|| panic!("{name}: not an index of the design's template"));
    let pk = c
        .partition()
        .iter()
        .map(|(_, v)| match v {
            KeyValue::S(s) => s.clone(),
            KeyValue::N(n) => n.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ");
    touch(i.index, &pk, i.label, shape)
}

fn base(k: &PrimaryKey, label: &'static str, shape: Shape) -> Touch {
    keyed(Ix::TABLE, k, label, shape)
}
fn gsi1(k: &Gsi1Key, label: &'static str, shape: Shape) -> Touch {
    keyed(Ix::GSI1, k, label, shape)
}
fn gsi2(k: &Gsi2Key, label: &'static str, shape: Shape) -> Touch {
    keyed(Ix::GSI2, k, label, shape)
}
fn keyed<S: KeySpace>(index: Ix, k: &keys::Key<S>, label: &'static str, shape: Shape) -> Touch {
    Touch {
        sk: k.sk().to_owned(),
        ..touch(index, k.pk(), label, shape)
    }
}

/// A partition key each call makes anew (`ORDER#<new id>`, an idempotency record), as its label.
fn fresh(label: &'static str) -> Touch {
    Touch {
        fresh: true,
        own: false,
        ..touch(Ix::TABLE, label, label, Shape::Item)
    }
}

/// The share of order ids on each of the `count` shards a real shard rule puts them on (its
/// `weight` modulo the count, `Shard::of_weight`), over a fixed sample of real order ids as large
/// as `population` (up to [`SAMPLE_IDS`]). The weights are computed once per rule and sample, the
/// shares once per count: plans try many counts.
pub fn spread(population: u64, count: u32, weight: fn(OrderId) -> u64) -> Vec<(Shard, f64)> {
    type Weights = std::collections::HashMap<(usize, usize), std::sync::Arc<Vec<u64>>>;
    type Spreads = std::collections::HashMap<(usize, u32, usize), Vec<(Shard, f64)>>;
    static WEIGHTS: std::sync::OnceLock<std::sync::Mutex<Weights>> = std::sync::OnceLock::new();
    static CACHE: std::sync::OnceLock<std::sync::Mutex<Spreads>> = std::sync::OnceLock::new();
    let n = population.clamp(1, SAMPLE_IDS as u64) as usize;
    let key = (weight as usize, count, n);
    let cache = CACHE.get_or_init(Default::default);
    if let Some(s) = cache.lock().expect("the spreads").get(&key) {
        return s.clone();
    }
    let weights = WEIGHTS
        .get_or_init(Default::default)
        .lock()
        .expect("the weights")
        .entry((weight as usize, n))
        .or_insert_with(|| std::sync::Arc::new(order_ids(n).map(weight).collect()))
        .clone();
    let mut counts = vec![0u64; count as usize];
    for w in weights.iter() {
        counts[Shard::of_weight(*w, count).number() as usize] += 1;
    }
    let shares: Vec<(Shard, f64)> = counts
        .into_iter()
        .enumerate()
        .filter(|(_, c)| *c > 0)
        .map(|(i, c)| {
            (
                Shard::new(i as u32, count).expect("a shard"),
                c as f64 / n as f64,
            )
        })
        .collect();
    cache
        .lock()
        .expect("the spreads")
        .insert(key, shares.clone());
    shares
}

/// The stream shards whose lane writes each of `count` counter shards of `consumer`
/// (`Lane::counter_shard`, the real rule), over `shards` sample shard ids: the shards that no
/// lane chooses are not listed. Cached: plans try many counts.
pub fn lane_spread(consumer: &'static str, shards: u32, count: u32) -> Vec<(Shard, f64)> {
    type Spreads = std::collections::HashMap<(&'static str, u32, u32), Vec<(Shard, f64)>>;
    static CACHE: std::sync::OnceLock<std::sync::Mutex<Spreads>> = std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (consumer, shards, count);
    if let Some(s) = cache.lock().expect("the spreads").get(&key) {
        return s.clone();
    }
    let mut lanes = vec![0u32; count as usize];
    for i in 0..shards.max(1) {
        let lane = store::aggregate::Lane::new(consumer, SAMPLE_STREAM, &sample_shard_id(i));
        lanes[lane.counter_shard(count).number() as usize] += 1;
    }
    let spread: Vec<(Shard, f64)> = lanes
        .into_iter()
        .enumerate()
        .filter(|(_, n)| *n > 0)
        .map(|(i, n)| (Shard::new(i as u32, count).expect("a shard"), f64::from(n)))
        .collect();
    cache
        .lock()
        .expect("the spreads")
        .insert(key, spread.clone());
    spread
}

/// The write shards of a consumer's counters (a day's stats, a product's sales), as its lanes
/// choose them: each with the stream shards that write it, their share of the records, and how
/// they arrive.
pub struct CounterShards(pub Vec<CounterShard>);

pub struct CounterShard {
    pub shard: Shard,
    /// Stream shards whose lane writes it.
    pub lanes: f64,
    /// Its share of the counter's records.
    pub share: f64,
    pub stream: StreamWrite,
}

impl CounterShards {
    fn of(w: &Workload, d: Design, stream: StreamWrite) -> CounterShards {
        let shards = w.stream.shards.max(1);
        CounterShards(
            lane_spread(stream.consumer, shards, d.aggregate_shards)
                .into_iter()
                .map(|(shard, lanes)| CounterShard {
                    shard,
                    lanes,
                    share: lanes / f64::from(shards),
                    stream: StreamWrite {
                        arrives: Arrival::Lanes(lanes),
                        ..stream
                    },
                })
                .collect(),
        )
    }
}

/// A stream ARN as DynamoDB names one, for sample lanes.
const SAMPLE_STREAM: &str =
    "arn:aws:dynamodb:us-east-1:123456789012:table/app/stream/2026-12-01T00:00:00.000";

/// The `i`th sample stream shard id, in DynamoDB Streams' form.
fn sample_shard_id(i: u32) -> String {
    format!(
        "shardId-00000001764547200000-{:08x}",
        0x9e37_79b9_u32.wrapping_mul(i + 1)
    )
}

/// The key design the plan runs with: the workload's parameters over the template's defaults.
#[derive(Debug, Clone, Copy)]
pub struct Design {
    pub order_status_shards: u32,
    pub aggregate_shards: u32,
    /// Which indexes serve R2 and O8 (template `IndexDesign`): the indexes the table has, whether
    /// users, reviews, order lines and inventories carry GSI1 keys, and what R2 and O8 send.
    pub index_design: IndexDesign,
}

impl Design {
    /// An entity whose GSI1 copy the index design decides (a user, a review, an order line, an
    /// inventory), as its writer writes it (`model::to_item_with_gsi1`, as the functions call
    /// it with `IndexDesign::writes_gsi1`).
    pub fn item<E: model::Entity>(self, e: &E) -> model::Item {
        model::to_item_with_gsi1(e, self.index_design.writes_gsi1()).expect("a model item")
    }

    /// The global indexes of the table in this design (`template.yaml` deployed with its
    /// `IndexDesign`).
    pub fn indexes(self) -> &'static [IndexSchema] {
        template_indexes(self.index_design)
    }
}

/// Everything a call of `p` does, as draws from its populations.
pub fn draws<'a>(p: &'a PatternLoad, w: &'a Workload, d: Design, s: &'a Sizes) -> Vec<Draw<'a>> {
    let items = |default: u64| p.items.unwrap_or(default) as f64;
    let fixed = |f: Box<dyn Fn(u64) -> Vec<Touch> + 'a>| Draw {
        from: None,
        per_call: 1.0,
        touches: f,
    };
    let from = |e: Entity, per_call: f64, f: Box<dyn Fn(u64) -> Vec<Touch> + 'a>| Draw {
        from: Some(e),
        per_call,
        touches: f,
    };
    let orders = w.entities.orders.as_ref().map_or(1_000_000, |o| o.count);
    match p.id.as_str() {
        // A customer and their newest orders: one Query of the customer's collection.
        "C1" => {
            let n = items(10);
            vec![from(
                Entity::Customers,
                1.0,
                Box::new(move |k| {
                    let bytes = s.customer + n * s.order_summary;
                    vec![
                        base(
                            &kc::customer(&customer_id(k)),
                            "CUSTOMER#<id>",
                            Shape::Collection,
                        )
                        .read(rcu(bytes, false), n + 1.0),
                    ]
                }),
            )]
        }
        "C3" => place_order(p, w, d, s, orders),
        // An order's collection: header, lines, events.
        "C5" => {
            let n = items(6);
            vec![from(
                Entity::Orders,
                1.0,
                Box::new(move |k| {
                    vec![
                        base(
                            &kc::order_header(order_id(k)),
                            "ORDER#<orderId>",
                            Shape::Collection,
                        )
                        .read(rcu(s.order_header + n * s.order_line, false), n + 1.0),
                    ]
                }),
            )]
        }
        "C6" => add_order_event(p, w, d, orders),
        // Every OPEN order (or a page of them) across the N shards of GSI2, queried in parallel.
        "O5" => {
            let n = o5_items(p, w) as f64;
            let found = spread(n as u64, d.order_status_shards, kc::order_shard_weight);
            // Every shard is queried, those that hold none of the orders too (each Query costs
            // at least half a unit).
            let shares: Vec<(Shard, f64)> = (0..d.order_status_shards)
                .map(|i| {
                    let shard = Shard::new(i, d.order_status_shards).expect("a shard");
                    let share = found
                        .iter()
                        .find(|(s, _)| *s == shard)
                        .map_or(0.0, |(_, share)| *share);
                    (shard, share)
                })
                .collect();
            vec![fixed(Box::new(move |_| {
                shares
                    .iter()
                    .map(|(shard, share)| {
                        let k = kc::order_status_index(
                            *shard,
                            order_ids(1).next().expect("an id"),
                            OrderStatus::Open,
                        );
                        let on_shard = n * share;
                        gsi2(&k, "ORDERS#<shard>", Shape::Collection)
                            .read(rcu(on_shard * s.order_header, false), on_shard)
                            .shared()
                    })
                    .collect()
            }))]
        }
        // A product's order lines (and its inventories), newest first.
        "O8" => {
            let n = items(50);
            match d.index_design {
                IndexDesign::Overloaded => vec![from(
                    Entity::Products,
                    1.0,
                    Box::new(move |k| {
                        vec![
                            gsi1(
                                &kc::order_line_product_index(
                                    order_ids(1).next().expect("an id"),
                                    sku(k),
                                ),
                                "PRODUCT#<sku>",
                                Shape::Increasing,
                            )
                            .read(rcu(n * s.order_line, false), n),
                        ]
                    }),
                )],
                // The product's inventories from its own partition, then the rest of the page
                // from the lines' own index (its entries: keys, `Type`, quantity, price), unless
                // the inventories fill it. A product is stocked in each of the workload's
                // warehouses (as the seeds stock theirs), in none if it declares none.
                IndexDesign::Dedicated | IndexDesign::Projected => {
                    let stocked = w.entities.warehouses.as_ref().map_or(0, |p| p.count) as f64;
                    let inventories = stocked.min(n);
                    let lines = n - inventories;
                    vec![from(
                        Entity::Products,
                        1.0,
                        Box::new(move |k| {
                            let mut t = vec![
                                base(&kc::product(sku(k)), "PRODUCT#<sku>", Shape::Collection)
                                    .read(rcu(inventories * s.inventory, false), inventories),
                            ];
                            if lines > 0.0 {
                                t.push(
                                    indexed(
                                        &kc::order_lines_by_product(sku(k)),
                                        d,
                                        Shape::Increasing,
                                    )
                                    .read(rcu(lines * s.order_line_entry, false), lines),
                                );
                            }
                            t
                        }),
                    )]
                }
            }
        }
        "O13" => vec![from(
            Entity::Products,
            1.0,
            Box::new(move |k| {
                vec![
                    base(&kc::product(sku(k)), "PRODUCT#<sku>", Shape::Item)
                        .read(rcu(s.product, false), 1.0),
                ]
            }),
        )],
        "O14" => {
            let n = items(10);
            vec![fixed(Box::new(move |_| {
                vec![
                    gsi1(
                        &kc::rep_ranking_index(Quarter::of(at().date()), 0, &rep_id(1))
                            .expect("a key"),
                        "RANKING#<YYYY-Qn>",
                        Shape::Collection,
                    )
                    .read(rcu(n * s.rep_sales, false), n)
                    .shared(),
                ]
            }))]
        }
        // What a sharded counter's reader pays: every shard, in one BatchGetItem.
        "get-product-sales" => vec![from(
            Entity::Products,
            1.0,
            Box::new(move |k| {
                kc::product_sales_shards(sku(k), d.aggregate_shards)
                    .iter()
                    .map(|key| {
                        base(key, "SALES#<sku>#<shard>", Shape::Item)
                            .read(rcu(s.product_sales, false), 1.0)
                    })
                    .collect()
            }),
        )],
        "get-daily-stats" => vec![fixed(Box::new(move |_| {
            kd::daily_stats_shards(at().date(), d.aggregate_shards)
                .iter()
                .map(|key| {
                    base(key, "STATS#<date>#<shard>", Shape::Item)
                        .read(rcu(s.daily_stats, false), 1.0)
                        .shared()
                })
                .collect()
        }))],
        // A book and its newest reviews: one Query of its collection.
        "R1" => {
            let n = items(15);
            vec![from(
                Entity::Books,
                1.0,
                Box::new(move |k| {
                    vec![
                        base(&kr::book(&isbn(k)), "BOOK#<isbn>", Shape::Collection)
                            .read(rcu(s.book + n * s.review, false), n + 1.0),
                    ]
                }),
            )]
        }
        "R2" => match d.index_design {
            IndexDesign::Overloaded => {
                let n = items(15);
                vec![from(
                    Entity::Users,
                    1.0,
                    Box::new(move |k| {
                        vec![
                            gsi1(
                                &kr::user_index(&user_id(k)),
                                "USER#<username>",
                                Shape::Collection,
                            )
                            .read(rcu(s.user + n * s.review, false), n + 1.0),
                        ]
                    }),
                )]
            }
            // A first page: the user's newest entries in their own index (keys only), then one
            // BatchGetItem of those reviews and the user, each item rounded up to 4 KB on its
            // own; as many reviews as get-user's page budget allows.
            IndexDesign::Dedicated => {
                let n = items(15).min(f64::from(reviews::data::user_reviews::dedicated_page(true)));
                let mut out = vec![from(
                    Entity::Users,
                    1.0,
                    Box::new(move |k| {
                        let user = user_id(k);
                        vec![
                            indexed(&kr::reviews_by_user(&user), d, Shape::Collection)
                                .read(rcu(n * s.review_entry, false), n),
                            base(&kr::user(&user), "USER#<username>", Shape::Item)
                                .read(rcu(s.user, false), 1.0),
                        ]
                    }),
                )];
                // Each review in its book's partition: the books a user reviewed, drawn as
                // the books are; without books in the workload, a cost on no key in
                // particular.
                let review = |t: Touch| t.read(rcu(s.review, false), 1.0);
                out.push(match w.entities.books {
                    Some(_) => from(
                        Entity::Books,
                        n,
                        Box::new(move |k| {
                            vec![review(base(
                                &kr::book(&isbn(k)),
                                "BOOK#<isbn>",
                                Shape::Collection,
                            ))]
                        }),
                    ),
                    None => Draw {
                        from: None,
                        per_call: n,
                        touches: Box::new(move |_| vec![review(fresh("BOOK#<isbn>"))]),
                    },
                });
                out
            }
            // A first page: the user's newest reviews, whole, from their own index (one Query,
            // summed and rounded once as on GSI1), and the user by its key beside them.
            IndexDesign::Projected => {
                let n = items(15);
                vec![from(
                    Entity::Users,
                    1.0,
                    Box::new(move |k| {
                        let user = user_id(k);
                        vec![
                            indexed(&kr::reviews_by_user_all(&user), d, Shape::Collection)
                                .read(rcu(n * s.review, false), n),
                            base(&kr::user(&user), "USER#<username>", Shape::Item)
                                .read(rcu(s.user, false), 1.0),
                        ]
                    }),
                )]
            }
        },
        "R3" => put_review(p, w, d, s),
        // 20 parallel Queries, one per certificate shard of the type, a page each.
        "L11" => {
            let n = items(20);
            vec![fixed(Box::new(move |_| {
                certificate_shard_keys()
                    .iter()
                    .map(|key| {
                        gsi1(key, "<certType>#<shard>#", Shape::Collection)
                            .read(rcu(n * s.certificate, false), n)
                            .shared()
                    })
                    .collect()
            }))]
        }
        // One transaction: the occurrence checked, the certificate put (in its course's
        // partition, its copy in GSI1 on its type's shard), the same student's v01 certificate
        // checked absent. The course is drawn from the courses, the student from the students.
        "issue-certificate" => vec![
            from(
                Entity::Students,
                1.0,
                Box::new(move |k| {
                    let c = model::to_item(&certificate(k, 1)).expect("an item");
                    stored(
                        d,
                        &c,
                        None,
                        "<course>",
                        &[(Ix::GSI1, "<certType>#<shard>#", Shape::Collection)],
                        true,
                    )
                    .into_iter()
                    .filter(|t| t.index != Ix::TABLE)
                    .map(Touch::shared)
                    .collect()
                }),
            ),
            from(
                Entity::Courses,
                1.0,
                Box::new(move |k| {
                    let c = certificate(1, k);
                    let occurrence = model::learning::CourseOccurrence {
                        course_name: c.cert_name.clone(),
                        start_date: at().date(),
                        location: Location::parse("Building 1").expect("a location"),
                        course_type: "Instructor-led".to_owned(),
                    };
                    let occurrence_bytes = size_of(&occurrence);
                    let v1 = c.in_version(CertVersion::V1).key();
                    let mut t: Vec<Touch> = stored(
                        d,
                        &model::to_item(&c).expect("an item"),
                        None,
                        "<course>",
                        &[],
                        true,
                    )
                    .into_iter()
                    .filter(|t| t.index == Ix::TABLE)
                    .collect();
                    t.push(
                        base(&occurrence.key(), "<course>", Shape::Collection)
                            .write(check(occurrence_bytes)),
                    );
                    // No such item: the least a check costs.
                    t.push(base(&v1, "<course>", Shape::Collection).write(check(0.0)));
                    t
                }),
            ),
        ],
        other => crate::generic::resolve_shaped(other, d.index_design, p.shape.unwrap_or_default())
            .map(crate::generic::draws)
            .unwrap_or_else(|| unreachable!("{other}: checked when the workload was read")),
    }
}

/// C3: the products read (strongly consistent BatchGetItem), then one transaction: the summary in
/// the customer's partition, the header and each line in the new order's partition, each in
/// every index its item stands in (GSI1, GSI2 and the multi-attribute indexes, by the attributes
/// the real item carries as the design writes it: a line in GSI1, or in `OrderLinesByProduct`);
/// then what `commerce-stream` writes for each.
fn place_order<'a>(
    p: &'a PatternLoad,
    w: &'a Workload,
    d: Design,
    s: &'a Sizes,
    orders: u64,
) -> Vec<Draw<'a>> {
    let lines = f64::from(p.lines.unwrap_or(3));
    let rep_share = p.rep_share.unwrap_or(0.0);
    let reps = w.entities.reps.as_ref().map_or(1, |r| r.count);
    let header_shards = spread(orders, d.order_status_shards, kc::order_shard_weight);
    let stream = StreamWrite {
        consumer: fanout::COMMERCE_STREAM,
        arrives: Arrival::Every,
        ranked: false,
    };
    let counters = std::rc::Rc::new(CounterShards::of(w, d, stream));
    let sales = counters.clone();
    let txn = |bytes: f64| 2.0 * wcu(bytes);
    // A stream target's write: one UpdateItem of the item with its marks.
    let own = move |bytes: f64| wcu(bytes + s.marks_own);
    let id = order_ids(1).next().expect("an id");
    // What the header's copy in GSI2 costs, as the billing rule has it for this transaction.
    let gsi2_header = stored(
        d,
        &model::to_item(&OrderHeader(order(
            id,
            &customer_id(1),
            None,
            lines as u64,
            d.order_status_shards,
        )))
        .expect("an item"),
        None,
        "ORDER#<orderId>",
        &[],
        true,
    )
    .iter()
    .filter(|t| t.index == Ix::GSI2)
    .map(|t| t.wcu)
    .sum::<f64>();
    // The header's GSI2 shard is a hash of its id: spread below over real ids, not one.
    let header_writes = move |o: &Order| -> Vec<Touch> {
        let mut t = stored(
            d,
            &model::to_item(&OrderHeader(o.clone())).expect("an item"),
            None,
            "ORDER#<orderId>",
            &[(Ix::GSI1, "CUSTOMER#<id>", Shape::Collection)],
            true,
        );
        t.retain(|t| t.index != Ix::GSI2);
        t
    };
    let summary_writes = move |o: &Order| {
        stored(
            d,
            &model::to_item(&OrderSummary(o.clone())).expect("an item"),
            None,
            "CUSTOMER#<id>",
            &[(Ix::GSI1, "REP#<repId>", Shape::Increasing)],
            true,
        )
    };
    let mut out: Vec<Draw<'a>> = vec![
        Draw {
            from: Some(Entity::Customers),
            per_call: 1.0,
            touches: Box::new(move |k| {
                let c = customer_id(k);
                let o = order(id, &c, None, lines as u64, d.order_status_shards);
                // Read strongly consistent for its account rep, then checked in the
                // transaction (it exists and keeps that rep): a write action on its item.
                let mut t = vec![
                    base(&kc::customer(&c), "CUSTOMER#<id>", Shape::Item)
                        .read(rcu(s.customer, true), 1.0)
                        .write(check(s.customer)),
                ];
                t.extend(summary_writes(&o));
                // The order's idempotency record, put in the transaction (a client that sends an
                // `Idempotency-Key`, as the API asks of every retrying client).
                t.push(fresh("IDEMPOTENCY#<customer>#<key>").write(txn(s.idempotency)));
                t.extend(header_writes(&o).into_iter().map(|t| {
                    // The header's own partition is the new order's.
                    if t.index == Ix::TABLE { t.fresh() } else { t }
                }));
                // commerce-stream: the customer's OrderCount and LifetimeValue.
                t.push(
                    base(&kc::customer(&c), "CUSTOMER#<id>", Shape::Item)
                        .write(own(s.customer))
                        .by_stream(stream),
                );
                t
            }),
        },
        Draw {
            from: None,
            per_call: 1.0,
            touches: Box::new(move |_| {
                let mut t = Vec::new();
                for (shard, share) in &header_shards {
                    let k = kc::order_status_index(*shard, id, OrderStatus::Open);
                    t.push(
                        gsi2(&k, "ORDERS#<shard>", Shape::Increasing)
                            .write(gsi2_header)
                            .times(*share)
                            .shared(),
                    );
                }
                for c in &counters.0 {
                    t.push(
                        base(
                            &kd::daily_stats(at().date(), c.shard),
                            "STATS#<date>#<shard>",
                            Shape::Item,
                        )
                        .write(counter_write(s.daily_stats, c.lanes))
                        .times(c.share)
                        .shared()
                        .by_stream(c.stream),
                    );
                }
                t
            }),
        },
        Draw {
            from: Some(Entity::Products),
            per_call: lines,
            touches: Box::new(move |k| {
                let product = sku(k);
                // Read in the strongly consistent BatchGetItem (each item rounded up on its
                // own), then its price checked in the transaction: a write action.
                let mut t = vec![
                    base(&kc::product(product), "PRODUCT#<sku>", Shape::Item)
                        .read(rcu(s.product, true), 1.0)
                        .write(check(s.product)),
                ];
                t.extend(
                    stored(
                        d,
                        &d.item(&line(id, product)),
                        None,
                        "ORDER#<orderId>",
                        &[(Ix::GSI1, "PRODUCT#<sku>", Shape::Increasing)],
                        true,
                    )
                    .into_iter()
                    .map(|t| if t.index == Ix::TABLE { t.fresh() } else { t }),
                );
                for c in &sales.0 {
                    t.push(
                        base(
                            &kc::product_sales(product, c.shard),
                            "SALES#<sku>#<shard>",
                            Shape::Item,
                        )
                        .write(counter_write(s.product_sales, c.lanes))
                        .times(c.share)
                        .by_stream(c.stream),
                    );
                }
                t
            }),
        },
    ];
    if rep_share > 0.0 {
        // Orders under a rep: the indexes its summary and header join because they carry the
        // rep (GSI1 `REP#<repId>`, the rep's orders by status), and the rep's quarterly sales, a
        // ranked read-modify-write that moves its GSI1 ranking key (a delete and a put).
        out.push(Draw {
            from: Some(Entity::Reps),
            per_call: rep_share,
            touches: Box::new(move |k| {
                let rep = rep_id(k.min(reps));
                let without = order(
                    id,
                    &customer_id(1),
                    None,
                    lines as u64,
                    d.order_status_shards,
                );
                let with = Order {
                    account_rep_id: Some(rep.clone()),
                    ..without.clone()
                };
                let before: Vec<Touch> = summary_writes(&without)
                    .into_iter()
                    .chain(header_writes(&without))
                    .collect();
                let mut t: Vec<Touch> = summary_writes(&with)
                    .into_iter()
                    .chain(header_writes(&with))
                    .filter(|t| !before.iter().any(|b| b.index == t.index && b.pk == t.pk))
                    .collect();
                let ranked = StreamWrite {
                    ranked: true,
                    ..stream
                };
                // The rep's sales are one more target of the summary's record; the customer, a
                // rep's, has its copy in GSI1 (`REP#<repId>`, O9) rewritten with its counters
                // (and its marks: the index projects every attribute).
                t.push(
                    gsi1(
                        &kc::rep_customer_index(&rep, &customer_id(1)),
                        "REP#<repId>",
                        Shape::Collection,
                    )
                    .write(own(s.customer))
                    .by_handler(),
                );
                let period = Quarter::of(at().date());
                let sales = kc::rep_sales(period, &rep);
                t.push(
                    // All reps' sales of a quarter share one partition key, an item each: read,
                    // then written in a transaction with its lane's mark, kept aside.
                    base(&sales, "SALESPERIOD#<YYYY-Qn>", Shape::Collection)
                        .read(1.0, 1.0)
                        .write(txn(s.rep_sales))
                        .shared()
                        .by_stream(ranked)
                        .moving(
                            &kc::rep_ranking_index(period, 1, &rep).expect("a key"),
                            "RANKING#<YYYY-Qn>",
                            // A delete and a put of its entry, in the transaction (an
                            // index entry is billed once there: devkit::bill).
                            2.0 * wcu(s.rep_sales),
                        ),
                );
                // The lane's mark of it: read, and put in the same transaction. One partition
                // per rep's quarter, an item per stream shard.
                t.push(
                    base(
                        &kd::lane_mark(&sales, "AbC-d_01234"),
                        "MARK#<target>",
                        Shape::Collection,
                    )
                    .read(1.0, 1.0)
                    .write(txn(s.mark_aside))
                    .shared()
                    .by_stream(ranked),
                );
                t
            }),
        });
    }
    out
}

/// C6: the header's event count (its index copies rewritten with it) and the event, one
/// transaction in the order's partition; then `commerce-stream` moves the order's status on its
/// header and its summary: every index whose key holds the status (GSI1, GSI2) takes a delete
/// and a put. A summary under a rep (`rep_share`) has its GSI1 copy under the rep moved too.
fn add_order_event<'a>(
    p: &'a PatternLoad,
    w: &'a Workload,
    d: Design,
    orders: u64,
) -> Vec<Draw<'a>> {
    let customers = w.entities.customers.as_ref().map_or(orders, |c| c.count);
    let reps = w.entities.reps.as_ref().map_or(1, |r| r.count);
    let rep_share = p.rep_share.unwrap_or(0.0);
    let event_bytes = 200.0;
    let make = move |k: u64, rep: Option<&Id>| {
        order(
            order_id(k),
            &customer_id(1 + k % customers),
            rep,
            3,
            d.order_status_shards,
        )
    };
    // Before and after: the event counted, then the status moved (OPEN to PROCESSING).
    let counted = |o: &Order| Order {
        event_count: Some(1),
        ..o.clone()
    };
    let moved = move |o: &Order| Order {
        status: OrderStatus::Processing,
        ..counted(o)
    };
    let labels = |gsi1_label| {
        [
            (Ix::GSI1, gsi1_label, Shape::Collection),
            (Ix::GSI2, "ORDERS#<shard>", Shape::Collection),
        ]
    };
    // Its GSI2 partition is a status shard, shared by every order, the shard a hash of its id:
    // spread below over real ids, as place-order's (the orders' draw keeps its own keys only).
    let shard_units = {
        let o = make(1, None);
        let header = |o: Order| model::to_item(&OrderHeader(o)).expect("an item");
        let units = |after: Order, before: Order, transactional| {
            stored(
                d,
                &header(after),
                Some(&header(before)),
                "ORDER#<orderId>",
                &[],
                transactional,
            )
            .iter()
            .filter(|t| t.index == Ix::GSI2)
            .map(|t| t.wcu)
            .sum::<f64>()
        };
        (
            units(counted(&o), o.clone(), true),
            units(moved(&o), counted(&o), false),
        )
    };
    // commerce-stream's conditional UpdateItem of the summary: its status moved.
    let summary_moves = move |o: &Order| -> Vec<Touch> {
        let summary = |o: Order| model::to_item(&OrderSummary(o)).expect("an item");
        stored(
            d,
            &summary(moved(o)),
            Some(&summary(o.clone())),
            "CUSTOMER#<id>",
            &labels("REP#<repId>"),
            false,
        )
        .into_iter()
        .map(Touch::by_handler)
        .collect()
    };
    let shards = spread(orders, d.order_status_shards, kc::order_shard_weight);
    let mut out = vec![Draw {
        from: None,
        per_call: 1.0,
        touches: Box::new(move |_| {
            let id = order_ids(1).next().expect("an id");
            shards
                .iter()
                .flat_map(|(shard, share)| {
                    let k = kc::order_status_index(*shard, id, OrderStatus::Open);
                    [
                        gsi2(&k, "ORDERS#<shard>", Shape::Collection)
                            .write(shard_units.0)
                            .times(*share)
                            .shared(),
                        gsi2(&k, "ORDERS#<shard>", Shape::Collection)
                            .write(shard_units.1)
                            .times(*share)
                            .shared()
                            .by_handler(),
                    ]
                })
                .collect()
        }),
    }];
    out.push(Draw {
        from: Some(Entity::Orders),
        per_call: 1.0,
        touches: Box::new(move |k| {
            let o = make(k, None);
            let header = |o: Order| model::to_item(&OrderHeader(o)).expect("an item");
            let mut t: Vec<Touch> = stored(
                d,
                &header(counted(&o)),
                Some(&header(o.clone())),
                "ORDER#<orderId>",
                &labels("CUSTOMER#<id>"),
                true,
            )
            .into_iter()
            .filter(|t| t.index != Ix::GSI2)
            .collect();
            t.push(
                base(
                    &OrderHeader(o.clone()).key(),
                    "ORDER#<orderId>",
                    Shape::Collection,
                )
                .write(2.0 * wcu(event_bytes)),
            );
            // commerce-stream: a conditional UpdateItem of each.
            t.extend(
                stored(
                    d,
                    &header(moved(&o)),
                    Some(&header(counted(&o))),
                    "ORDER#<orderId>",
                    &labels("CUSTOMER#<id>"),
                    false,
                )
                .into_iter()
                .filter(|t| t.index != Ix::GSI2)
                .map(Touch::by_handler),
            );
            t.extend(summary_moves(&o));
            t
        }),
    });
    if rep_share > 0.0 {
        out.push(Draw {
            from: Some(Entity::Reps),
            per_call: rep_share,
            touches: Box::new(move |k| {
                let o = make(1, Some(&rep_id(k.min(reps))));
                summary_moves(&o)
                    .into_iter()
                    .filter(|t| t.index == Ix::GSI1)
                    .collect()
            }),
        });
    }
    out
}

/// R3: the marker read (strongly consistent), then one transaction: book and user checked, the
/// marker put, the review put (in the book's partition, and the user's partition of GSI1 or, in
/// the dedicated index design, of `ReviewsByUser`) and, for a replaced review (`replace_share`),
/// the old one deleted; then `aggregate-reviews` counts each record (the new review in, the old
/// one out) into the book, the user (its GSI1 copy rewritten with it, where it has one) and the
/// day's stats. A replacement's two records share one batch, so the book and the
/// user are written once a call.
fn put_review<'a>(p: &'a PatternLoad, w: &'a Workload, d: Design, s: &'a Sizes) -> Vec<Draw<'a>> {
    let reviews = fanout::AGGREGATE_REVIEWS;
    // A stream target's write: one UpdateItem of the item with its marks.
    let own = move |bytes: f64| wcu(bytes + s.marks_own);
    let replace = p.replace_share.unwrap_or(0.0);
    let records = 1.0 + replace;
    let counter = |arrives| StreamWrite {
        consumer: reviews,
        arrives,
        ranked: false,
    };
    let counters = CounterShards::of(w, d, counter(Arrival::Every));
    vec![
        Draw {
            from: Some(Entity::Books),
            per_call: 1.0,
            touches: Box::new(move |k| {
                let book = isbn(k);
                // The book checked in the transaction (a write action on its item), and the
                // review put there (and the old one deleted), its sort key starting with its
                // time (`<ISO-8601>#USER#<username>`): the newest end of the collection.
                let mut t =
                    vec![base(&kr::book(&book), "BOOK#<isbn>", Shape::Item).write(check(s.book))];
                t.extend(
                    stored(
                        d,
                        &review(d, &book, &user_id(1)),
                        None,
                        "BOOK#<isbn>",
                        &[],
                        true,
                    )
                    .into_iter()
                    .filter(|t| t.index == Ix::TABLE)
                    .map(|t| Touch {
                        shape: Shape::Increasing,
                        ..t.times_wcu(1.0 + replace)
                    }),
                );
                // The book's RatingCount and RatingSum: every review of a book is in the
                // book's partition, so its records arrive on one stream shard.
                t.push(
                    base(&kr::book(&book), "BOOK#<isbn>", Shape::Item)
                        .write(own(s.book))
                        .by_stream(counter(Arrival::One))
                        .records(records),
                );
                // Each record's day: the new review's, and the old one's.
                for c in &counters.0 {
                    t.push(
                        base(
                            &kd::daily_stats(at().date(), c.shard),
                            "STATS#<date>#<shard>",
                            Shape::Item,
                        )
                        .write(counter_write(s.daily_stats, c.lanes))
                        .times(c.share * records)
                        .shared()
                        .by_stream(c.stream),
                    );
                }
                t
            }),
        },
        Draw {
            from: Some(Entity::Users),
            per_call: 1.0,
            touches: Box::new(move |k| {
                let user = user_id(k);
                // The marker read strongly consistent, then put in the transaction; the user
                // checked there (a write action on its item); the review's copy in GSI1, or its
                // entry in `ReviewsByUser`.
                let marker = model::to_item(&ReviewMarker {
                    username: user.clone(),
                    isbn: isbn(1),
                    review_sk: model::Entity::key(&review_of(&isbn(1), &user))
                        .sk()
                        .to_owned(),
                })
                .expect("an item");
                let mut t: Vec<Touch> = stored(d, &marker, None, "USER#<username>", &[], true)
                    .into_iter()
                    .map(|t| t.read(rcu(devkit::item_size(&marker) as f64, true), 1.0))
                    .collect();
                t.extend(
                    stored(
                        d,
                        &review(d, &isbn(1), &user),
                        None,
                        "BOOK#<isbn>",
                        &[(Ix::GSI1, "USER#<username>", Shape::Increasing)],
                        true,
                    )
                    .into_iter()
                    .filter(|t| t.index != Ix::TABLE)
                    .map(|t| t.times_wcu(1.0 + replace)),
                );
                t.push(base(&kr::user(&user), "USER#<username>", Shape::Item).write(check(s.user)));
                // The user's ReviewCount, and its copy in GSI1 (`USER#<username>`, R2's head)
                // where the design keeps one.
                let user_item = stored(
                    d,
                    &marked(
                        d.item(&User {
                            username: user.clone(),
                            membership_date: at().date(),
                            review_count: 12.into(),
                        }),
                        s.lanes_shared,
                    ),
                    None,
                    "USER#<username>",
                    &[(Ix::GSI1, "USER#<username>", Shape::Collection)],
                    false,
                );
                for u in user_item {
                    let shape = if u.index == Ix::TABLE {
                        Shape::Item
                    } else {
                        Shape::Collection
                    };
                    t.push(
                        Touch { shape, ..u }
                            .by_stream(counter(Arrival::Every))
                            .records(records),
                    );
                }
                t
            }),
        },
    ]
}

/// Items one O5 call reads: as the workload says, else every OPEN order (seed 003's
/// MaxRequiredIO: the orders times their OPEN share), else a page of 50.
pub fn o5_items(p: &PatternLoad, w: &Workload) -> u64 {
    p.items.unwrap_or_else(|| {
        w.entities
            .orders
            .as_ref()
            .and_then(|o| o.open_fraction.map(|f| (o.count as f64 * f).round() as u64))
            .unwrap_or(50)
    })
}

/// Today's date of the plan's sample items.
pub fn sample_date() -> Date {
    at().date()
}

/// Stream records one call of a pattern puts on the stream, per consumer that reads them.
pub fn records_per_call(p: &PatternLoad) -> Vec<(&'static str, f64)> {
    match p.id.as_str() {
        // The summary and each line.
        "C3" => vec![(
            fanout::COMMERCE_STREAM,
            1.0 + f64::from(p.lines.unwrap_or(3)),
        )],
        // The event; then the status projection's MODIFY of the summary, a record of its own.
        "C6" => vec![(fanout::COMMERCE_STREAM, 2.0)],
        // The new review, and the one it replaces.
        "R3" => vec![(
            fanout::AGGREGATE_REVIEWS,
            1.0 + p.replace_share.unwrap_or(0.0),
        )],
        _ => Vec::new(),
    }
}
