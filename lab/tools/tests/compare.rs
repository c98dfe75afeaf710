//! `make compare` on a small volume: each deployment holds the same data, R2 shows every review
//! of every user in each, and what differs is where the design says: with R2 and O8 on indexes
//! of their own, GSI1 holds no user, review, order line or inventory, `ReviewsByUser` holds each
//! review's keys only, `OrderLinesByProduct` each order line, and R2 pays a request more per page
//! and a read of each review on its own.

use keys::{commerce::types as ct, indexes::IndexDesign, reviews::types as rt};
use tools::compare::{self, DEPLOYMENTS};
use tools::volume::Volume;

const TINY: Volume = Volume {
    customers: 10,
    orders: 20,
    products: 4,
    carts: 3,
    books: 4,
    users: 6,
    // Each user reviews each book once.
    reviews: 24,
    courses: 1,
    occurrences_per_course: 2,
    certificates: 8,
    employees: 5,
};

#[tokio::test]
async fn every_deployment_holds_the_same_data_and_differs_where_its_design_says() {
    let client = devkit::client();
    devkit::reap_test_tables(&client, devkit::TABLE_PREFIXES).await;
    let base = devkit::test_table_name("test", &keys::SortableId::new().to_string().to_lowercase());
    let mut measured = Vec::new();
    for (n, d) in DEPLOYMENTS.into_iter().enumerate() {
        measured.push(
            // The org without its 300 orders: the volume's orders stand in for them.
            compare::measure(&client, &format!("{base}-{n}"), d, 0, Some(&TINY))
                .await
                .unwrap(),
        );
    }
    let [one, per, dedicated] = &measured[..] else {
        panic!("three deployments")
    };
    // The seeds' 3 reviews and the volume's 24, in every deployment.
    let reviews = 27;
    for m in &measured {
        assert_eq!(
            m.held
                .iter()
                .filter(|((_, i, e), _)| i == "table" && e == rt::REVIEW)
                .map(|(_, (n, _))| n)
                .sum::<usize>(),
            reviews
        );
        assert_eq!(
            m.r2[2],
            reviews as f64,
            "{}: every review shown",
            m.deployment.name()
        );
    }
    // The same items with one table or four, but for the days' site-wide counts, which a table
    // per context splits between its two consumers' tables: a shard item in each where one
    // table has one for both.
    let days = |m: &compare::Measured| m.entries("table", keys::derived::types::DAILY_STATS);
    assert!(days(per) >= days(one));
    assert_eq!(
        one.total("table").0 - days(one),
        per.total("table").0 - days(per)
    );
    assert_eq!(one.total("GSI1"), per.total("GSI1"));
    assert_eq!(one.r2, per.r2);
    assert_eq!(one.o8, per.o8);
    // With R2 on its own index: the same items, less their GSI1 keys; GSI1 without users and
    // reviews, ReviewsByUser with every review's keys.
    assert_eq!(dedicated.total("table").0, one.total("table").0);
    assert!(dedicated.total("table").1 < one.total("table").1);
    assert_eq!(one.entries("GSI1", rt::REVIEW), reviews);
    assert_eq!(dedicated.entries("GSI1", rt::REVIEW), 0);
    assert_eq!(dedicated.entries("GSI1", rt::USER), 0);
    assert_eq!(dedicated.entries("ReviewsByUser", rt::REVIEW), reviews);
    assert_eq!(dedicated.total("ReviewsByUser").0, reviews, "reviews only");
    assert_eq!(one.total("ReviewsByUser"), (0, 0));
    // O8: OrderLinesByProduct with every order line, GSI1 without lines and inventories.
    let lines = one.entries("GSI1", ct::ORDER_LINE);
    assert!(lines > 20);
    assert_eq!(
        dedicated.entries("OrderLinesByProduct", ct::ORDER_LINE),
        lines
    );
    assert_eq!(
        dedicated.total("OrderLinesByProduct").0,
        lines,
        "order lines only"
    );
    assert_eq!(dedicated.entries("GSI1", ct::ORDER_LINE), 0);
    assert_eq!(dedicated.entries("GSI1", ct::INVENTORY), 0);
    assert!(one.entries("GSI1", ct::INVENTORY) > 0);
    // R2: the same pages; a Query and a BatchGetItem each with its own index, one Query on GSI1.
    let [requests, units, _, pages] = one.r2;
    assert_eq!(requests, pages);
    assert_eq!(dedicated.r2[3], pages);
    // (A last page that lists no review sends no BatchGetItem.)
    assert!(dedicated.r2[0] > pages && dedicated.r2[0] <= 2.0 * pages);
    assert!(dedicated.r2[1] > units);
    assert_eq!(dedicated.deployment.design, IndexDesign::Dedicated);
    // O8: every order line and inventory shown in each design; the dedicated design's first page
    // is two Queries (the inventories, then the lines).
    assert_eq!(dedicated.o8[2], one.o8[2]);
    assert!(one.o8[2] > lines as f64);
    assert_eq!(one.o8[0], one.o8[3], "one Query a page");
    assert!(dedicated.o8[0] > dedicated.o8[3]);
    // The streams: with one table both mappings read every record of every context; with a
    // table per context the reviews' consumer reads its own table's only, and is handed the
    // same reviews.
    let read = |m: &compare::Measured, f: &str| {
        let s = &m.streamed.mappings[f];
        (s.delivered + s.filtered_out, s.delivered)
    };
    let (commerce, reviews) = ("commerce-stream", "aggregate-reviews");
    assert_eq!(
        read(one, commerce).0,
        read(one, reviews).0,
        "one stream, two readers"
    );
    assert!(read(per, reviews).0 < read(one, reviews).0 / 2.0);
    assert_eq!(read(per, reviews).1, read(one, reviews).1);
    for m in &measured {
        assert!(
            m.streamed.spent[commerce].write_units > 0.0,
            "{}",
            m.deployment.name()
        );
        assert!(
            m.streamed.spent[reviews].write_units > 0.0,
            "{}",
            m.deployment.name()
        );
    }
    let report = compare::report(&measured);
    assert!(report.contains("| one-table, dedicated |"), "{report}");
}
