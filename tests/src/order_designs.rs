//! C4 by status and O10 in both key designs against DynamoDB Local: GSI1's concatenated
//! `<STATUS>#<orderId>` keys and the multi-attribute indexes `CustomerOrdersByStatus` /
//! `RepOrdersByStatus` ([`commerce::data::ByStatus`], [`commerce::data::RepOrders`]) answer
//! the same pages, item by item, over random orders (many customers and reps, every status,
//! orders on the same millisecond and day, statuses changed by the status projection's store
//! function), for several page sizes and date ranges; both answer what the orders say; a walk
//! that changes design between pages continues where it stood; a reader in the move's second
//! step (`moving-2`) answers whole lists from GSI1 until its index exists; and each deployment
//! (`OrderStatusKeys`, the table made from the template for it) writes each order into its own
//! design's indexes only, the multi-attribute one answering every list without GSI1 keys.

use std::collections::BTreeMap;

use futures::StreamExt;

use commerce::data::{ByStatus, Design, RepOrders, StatusKeys, StatusRead, apply_order_status};
use keys::{Date, Id, SortableId, commerce::OrderStatus};
use model::{Item, commerce::Order};
use store::Table;

/// 2026-03-01T00:00:00Z.
const MARCH_1: u64 = 1_772_323_200_000;
const DAY: u64 = 86_400_000;
const REPS: [&str; 3] = ["E1", "E2", "E3"];
const PAGE_SIZES: [u32; 4] = [1, 2, 5, 100];

/// A fixed-seed generator (splitmix64): the same orders on every run.
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

/// Customers `c0..c7` (the first six under a rep, two reps each), and 160 orders over ten days,
/// many on the same day and some on the same millisecond; most moved on by one to three status
/// changes. Returns every order as it stands.
async fn orders(table: &Table, seed: u64) -> Vec<Order> {
    orders_in(table, StatusKeys::default(), seed).await
}

/// [`orders`] as the writers of `design` write them.
async fn orders_in(table: &Table, design: StatusKeys, seed: u64) -> Vec<Order> {
    hr::fixtures::org(table).await;
    for rep in REPS {
        hr::fixtures::employee(table, rep, &format!("Rep {rep}")).await;
    }
    let customers: Vec<String> = (0..8).map(|c| format!("c{c}")).collect();
    for (i, c) in customers.iter().enumerate() {
        match REPS.get(i / 2) {
            Some(rep) => commerce::fixtures::customer_of_rep(table, c, rep).await,
            None => commerce::fixtures::customer(table, c).await,
        };
    }
    let mut draw = Draw(seed);
    let mut placed = Vec::new();
    for n in 0..160u64 {
        // Every fourth order shares the millisecond of the one before it.
        let ms = match placed.last() {
            Some(&(_, ms)) if n % 4 == 3 => ms,
            _ => MARCH_1 + draw.below(10) * DAY + draw.below(3) * 3_600_000 + draw.below(1000),
        };
        let customer = &customers[draw.below(customers.len() as u64) as usize];
        let order = commerce::fixtures::order_in(table, design, customer, ms, &[(1, 1, 100)]).await;
        placed.push((order.order_id, ms));
    }
    for (order, ms) in &placed {
        for change in 0..draw.below(4) {
            let status = OrderStatus::ALL[draw.below(8) as usize];
            let event = SortableId::at_ms(ms + 1000 * (change + 1));
            assert!(
                apply_order_status(table, design, *order, event, status)
                    .await
                    .unwrap()
            );
        }
    }
    let mut orders = Vec::new();
    for (order, _) in placed {
        let header: model::commerce::OrderHeader = table
            .get(&keys::commerce::order_header(order), store::Read::Strong)
            .await
            .unwrap()
            .unwrap();
        orders.push(header.0);
    }
    orders
}

/// A walk's pages: each page's items.
type Pages = Vec<Vec<Item>>;

/// Every page of a walk of `read`, each asked of `design(page number)`, and the design that
/// served each page.
async fn walk(
    table: &Table,
    read: &StatusRead,
    limit: u32,
    design: impl Fn(usize) -> StatusKeys,
) -> (Pages, Vec<Design>) {
    let (mut pages, mut served) = (Vec::new(), Vec::new());
    let mut start: Option<Item> = None;
    loop {
        let page = read
            .page(table, design(pages.len()), limit, start.as_ref())
            .await
            .unwrap();
        assert!(page.items.len() <= limit as usize);
        pages.push(page.items);
        served.push(page.served_by);
        match page.last_key {
            Some(k) => start = Some(k),
            None => return (pages, served),
        }
        assert!(pages.len() < 500, "a walk that does not end");
    }
}

fn order_ids(pages: &Pages) -> Vec<String> {
    pages
        .iter()
        .flatten()
        .map(|i| i[Order::ORDER_ID].as_s().unwrap().clone())
        .collect()
}

/// What a walk must return: the orders `keep` selects, newest first.
fn expected(orders: &[Order], keep: impl Fn(&Order) -> bool) -> Vec<String> {
    let mut ids: Vec<_> = orders
        .iter()
        .filter(|o| keep(o))
        .map(|o| o.order_id)
        .collect();
    ids.sort_unstable_by(|a, b| b.cmp(a));
    ids.iter().map(ToString::to_string).collect()
}

/// Walks one read in both designs and across them, for every page size: the same pages, item
/// by item, and the orders `want`. Returns how many pages were compared.
async fn same_pages(table: &Table, read: StatusRead, want: &[String], what: &str) -> usize {
    let mut compared = 0;
    for limit in PAGE_SIZES {
        let only = |design| move |_| StatusKeys::only(design);
        let (gsi1, served) = walk(table, &read, limit, only(Design::Concatenated)).await;
        assert!(served.iter().all(|s| *s == Design::Concatenated));
        let (multi, served) = walk(table, &read, limit, only(Design::MultiAttribute)).await;
        assert!(served.iter().all(|s| *s == Design::MultiAttribute));
        assert_eq!(order_ids(&gsi1), want, "{what}, {limit} a page, GSI1");
        // Item by item: the same items, whole, on the same pages (a last page may be empty in
        // one design and absent in the other: DynamoDB may not know a page was the last).
        let trim = |p: &Pages| {
            let mut p = p.clone();
            while p.last().is_some_and(Vec::is_empty) {
                p.pop();
            }
            p
        };
        assert_eq!(trim(&multi), trim(&gsi1), "{what}, {limit} a page");
        let alternate = |n: usize| StatusKeys::only(Design::ALL[n % 2]);
        let (crossed, served) = walk(table, &read, limit, alternate).await;
        assert!(
            served
                .iter()
                .enumerate()
                .all(|(n, s)| *s == Design::ALL[n % 2])
        );
        assert_eq!(
            order_ids(&crossed),
            want,
            "{what}, {limit} a page, designs alternating"
        );
        compared += gsi1.len();
    }
    compared
}

fn id(s: &str) -> Id {
    Id::parse("id", s).unwrap()
}

/// The date ranges walked: one day, three days, and every day of the orders and beyond.
fn ranges() -> [(Date, Date); 3] {
    let day = |d: u8| Date::from_ymd(2026, 3, 1 + d).unwrap();
    [(day(2), day(2)), (day(3), day(5)), (day(0), day(30))]
}

fn placed_in(o: &Order, from: Date, to: Date) -> bool {
    let ms = i128::from(o.order_id.timestamp_ms());
    from.start_ms() <= ms && ms <= to.end_ms()
}

#[tokio::test]
async fn both_designs_answer_the_same_pages() {
    let table = testkit::table().await;
    let orders = orders(&table, 3).await;
    let mut cases = Vec::new();
    let mut by_status = BTreeMap::<&str, usize>::new();
    for (from, to) in ranges() {
        for status in OrderStatus::ALL {
            for c in 0..8 {
                let customer = format!("c{c}");
                let read = ByStatus::customer(&id(&customer), status, from, to).unwrap();
                let want = expected(&orders, |o| {
                    o.customer_id.as_str() == customer
                        && o.status == status
                        && placed_in(o, from, to)
                });
                *by_status.entry(status.as_str()).or_default() += want.len();
                let what = format!("C4 {customer} {status} {from}..{to}");
                cases.push((StatusRead::One(read), want, what));
            }
            for rep in REPS {
                let read = ByStatus::rep(&id(rep), status, from, to).unwrap();
                let want = expected(&orders, |o| {
                    o.account_rep_id.as_ref().is_some_and(|r| r.as_str() == rep)
                        && o.status == status
                        && placed_in(o, from, to)
                });
                let what = format!("O10 {rep} {status} {from}..{to}");
                cases.push((StatusRead::One(read), want, what));
            }
        }
        for rep in REPS {
            let read = RepOrders::new(&id(rep), from, to).unwrap();
            let want = expected(&orders, |o| {
                o.account_rep_id.as_ref().is_some_and(|r| r.as_str() == rep)
                    && placed_in(o, from, to)
            });
            let what = format!("O10 {rep} every status {from}..{to}");
            cases.push((StatusRead::Every(read), want, what));
        }
    }
    // The cases are independent reads: several at a time, as the walks wait on DynamoDB Local.
    let table = &table;
    let compared: usize = futures::stream::iter(cases)
        .map(|(read, want, what)| async move { same_pages(table, read, &want, &what).await })
        .buffer_unordered(8)
        .collect::<Vec<usize>>()
        .await
        .into_iter()
        .sum();
    // The data reached every case it was made for: every status, and full pages.
    assert!(
        by_status.len() == 8 && by_status.values().all(|n| *n > 0),
        "{by_status:?}"
    );
    assert!(compared > 1000, "{compared} pages");
}

/// A fresh table as the template declares it, without the orders indexes: as before the move.
async fn before_the_move() -> Table {
    let client = devkit::client();
    let name = devkit::test_table_name("test", &ulid::Ulid::new().to_string().to_lowercase());
    tools::move_index::create_table_before(&client, &name)
        .await
        .unwrap();
    Table::new(client, name).recording()
}

/// A reader in the move's second step (`moving-2`: CloudFormation has asked for the index, not
/// waited for it) before its indexes exist (or while DynamoDB still builds them) keeps answering
/// whole lists, from GSI1.
#[tokio::test]
async fn a_reader_moving_answers_from_gsi1_until_the_index_is_there() {
    let table = before_the_move().await;
    let orders = orders(&table, 5).await;
    let (from, to) = ranges()[2];
    let c4 = ByStatus::customer(&id("c1"), OrderStatus::Open, from, to).unwrap();
    let want = expected(&orders, |o| {
        o.customer_id.as_str() == "c1" && o.status == OrderStatus::Open
    });
    let o10 = RepOrders::new(&id("E2"), from, to).unwrap();
    let want_o10 = expected(&orders, |o| {
        o.account_rep_id
            .as_ref()
            .is_some_and(|r| r.as_str() == "E2")
    });
    assert!(!want.is_empty() && !want_o10.is_empty());
    for limit in PAGE_SIZES {
        for (read, want) in [
            (StatusRead::One(c4.clone()), &want),
            (StatusRead::Every(o10.clone()), &want_o10),
        ] {
            let (pages, served) = walk(&table, &read, limit, |_| StatusKeys::Moving2).await;
            assert!(served.iter().all(|s| *s == Design::Concatenated));
            assert_eq!(order_ids(&pages), *want);
        }
    }
}

/// Outside a move a reader asks DynamoDB nothing about its indexes: in the multi-attribute
/// design it reads its index, and a table without it (a deployment the template cannot make)
/// is an error naming the index, not a silent fallback to GSI1 after a DescribeTable.
#[tokio::test]
async fn a_multi_attribute_reader_reads_only_its_index() {
    let table = before_the_move().await;
    orders(&table, 7).await;
    let (from, to) = ranges()[2];
    let c4 = ByStatus::customer(&id("c1"), OrderStatus::Open, from, to).unwrap();
    let o10 = RepOrders::new(&id("E2"), from, to).unwrap();
    for (read, index) in [
        (StatusRead::One(c4), "CustomerOrdersByStatus"),
        (StatusRead::Every(o10), "RepOrdersByStatus"),
    ] {
        let e = read
            .page(&table, StatusKeys::MultiAttribute, 10, None)
            .await
            .unwrap_err();
        assert!(e.to_string().contains(index), "{e}");
    }
}

/// The table `template.yaml` makes for `OrderStatusKeys=keys`.
async fn table_of(keys: StatusKeys) -> Table {
    let client = devkit::client();
    let name = devkit::test_table_name("test", &ulid::Ulid::new().to_string().to_lowercase());
    let template = sam_template::Template::workspace_with(&[("OrderStatusKeys", keys.as_str())]);
    devkit::create_table(&client, &name, &template.unwrap().table)
        .await
        .unwrap();
    Table::new(client, name).recording()
}

/// How many entries of an order's items (its header, summary and lines) each index of `table`
/// holds, by name.
async fn entries(table: &Table) -> BTreeMap<String, i32> {
    use store::aws_sdk_dynamodb::types::{AttributeValue, Select};
    let described = table
        .client()
        .describe_table()
        .table_name(table.name())
        .send()
        .await
        .unwrap();
    let mut counts = BTreeMap::new();
    for index in described.table.unwrap().global_secondary_indexes() {
        let name = index.index_name().unwrap().to_owned();
        let scan = table
            .client()
            .scan()
            .table_name(table.name())
            .index_name(&name);
        let types = ["Order", "OrderHeader", "OrderItem"].map(|t| AttributeValue::S(t.into()));
        let count = scan
            .filter_expression("#t IN (:a, :b, :c)")
            .expression_attribute_names("#t", "Type")
            .set_expression_attribute_values(Some(
                [":a", ":b", ":c"]
                    .map(str::to_owned)
                    .into_iter()
                    .zip(types)
                    .collect(),
            ))
            .select(Select::Count)
            .send()
            .await
            .unwrap()
            .count;
        counts.insert(name, count);
    }
    counts
}

/// Each deployment's writers put an order in its own design's indexes only: a customer under a
/// rep, one order of three lines, one status change. Every index entry costs a write unit with
/// every write of the item, so this is what place-order and a status change pay for.
#[tokio::test]
async fn each_deployment_writes_an_order_into_its_own_indexes_only() {
    // GSI1: the three lines (O8) in every design; the header (under its customer) and the
    // summary (under its rep) unless multi-attribute. GSI2: the header (O5). The orders
    // indexes: the header and the summary (both carry every key attribute; `Type` keeps them
    // apart), where the table has them.
    let with = |gsi1: i32, customer: Option<i32>, rep: Option<i32>| {
        let mut m = BTreeMap::from([("GSI1".to_owned(), gsi1), ("GSI2".to_owned(), 1)]);
        m.insert("OccurrencesByDate".to_owned(), 0);
        m.extend(customer.map(|n| ("CustomerOrdersByStatus".to_owned(), n)));
        m.extend(rep.map(|n| ("RepOrdersByStatus".to_owned(), n)));
        m
    };
    let want = [
        (StatusKeys::Concatenated, with(5, None, None)),
        (StatusKeys::Moving1, with(5, Some(2), None)),
        (StatusKeys::Moving2, with(5, Some(2), Some(2))),
        (StatusKeys::MultiAttribute, with(3, Some(2), Some(2))),
    ];
    for (keys, want) in want {
        let table = table_of(keys).await;
        hr::fixtures::org(&table).await;
        hr::fixtures::employee(&table, "E1", "Rep E1").await;
        commerce::fixtures::customer_of_rep(&table, "c1", "E1").await;
        let lines = [(1, 1, 100), (2, 1, 100), (3, 2, 50)];
        let order = commerce::fixtures::order_in(&table, keys, "c1", MARCH_1, &lines).await;
        let event = SortableId::at_ms(MARCH_1 + 1000);
        let applied = apply_order_status(&table, keys, order.order_id, event, OrderStatus::Shipped);
        assert!(applied.await.unwrap());
        let got = entries(&table).await;
        assert_eq!(got, want, "{}", keys.as_str());
    }
}

/// Orders written by the multi-attribute design's writers (no GSI1 keys on headers and
/// summaries, statuses moved by `Status` alone) answer every C4-by-status and O10 list from the
/// indexes as the orders say, and GSI1 holds none of them.
#[tokio::test]
async fn the_multi_attribute_design_answers_every_list_without_gsi1_keys() {
    let table = table_of(StatusKeys::MultiAttribute).await;
    let orders = orders_in(&table, StatusKeys::MultiAttribute, 11).await;
    let only = |_| StatusKeys::MultiAttribute;
    let (from, to) = ranges()[2];
    let mut listed = 0;
    for status in OrderStatus::ALL {
        for c in 0..8 {
            let customer = format!("c{c}");
            let read =
                StatusRead::One(ByStatus::customer(&id(&customer), status, from, to).unwrap());
            let want = expected(&orders, |o| {
                o.customer_id.as_str() == customer && o.status == status
            });
            let (pages, served) = walk(&table, &read, 5, only).await;
            assert!(served.iter().all(|s| *s == Design::MultiAttribute));
            assert_eq!(order_ids(&pages), want, "C4 {customer} {status}");
            listed += want.len();
        }
    }
    for rep in REPS {
        let read = StatusRead::Every(RepOrders::new(&id(rep), from, to).unwrap());
        let want = expected(&orders, |o| {
            o.account_rep_id.as_ref().is_some_and(|r| r.as_str() == rep)
        });
        let (pages, _) = walk(&table, &read, 5, only).await;
        assert_eq!(order_ids(&pages), want, "O10 {rep}");
    }
    assert_eq!(listed, orders.len(), "every order in one C4 list");
    let in_gsi1 = devkit::all_items(&table).await.into_iter().filter(|i| {
        let ty = i["Type"].as_s().unwrap();
        (ty == "Order" || ty == "OrderHeader") && i.keys().any(|k| k.starts_with("GSI1"))
    });
    assert_eq!(in_gsi1.count(), 0);
}
