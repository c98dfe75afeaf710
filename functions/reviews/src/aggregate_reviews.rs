//! Stream handler (reviews → counters). From reviews (`Type = Review`), inserted, modified or
//! removed (TTL removals included):
//! - the book's `RatingCount` and `RatingSum` (the average is computed on read);
//! - the user's `ReviewCount`;
//! - site-wide reviews per day (of the review date, UTC), on `AGGREGATE_SHARDS` write shards.
//!
//! An updated review is re-dated (a removal of the old item and an insert of the new one), so the
//! deltas follow without special cases. `store::aggregate::apply` coalesces them into one write
//! per touched target and makes each record count exactly once.

use std::collections::BTreeMap;

use keys::{Date, Shard, derived, reviews as k};
use model::{
    Entity,
    derived::DailyStats,
    n,
    reviews::{Book, Review, User},
    s,
};
use store::{
    Deps, Needs,
    aggregate::{Applied, Contribution},
};
use stream_handler::{BatchResponse, Change, Consumer, Event, Source};

/// Its name (binary, template resource, sample event, metrics' `Pattern`) and what it needs.
pub const CONSUMER: Consumer = Consumer {
    name: "aggregate-reviews",
    needs: Needs::SHARDS,
    sources: &[Source::changes(Review::TYPE)],
};

pub async fn handle(deps: &Deps, event: Event) -> BatchResponse {
    handle_counted(deps, &event).await.0
}

/// The handler, also returning what it wrote (for tests and the benchmark).
pub async fn handle_counted(deps: &Deps, event: &Event) -> (BatchResponse, Applied) {
    let owns = CONSUMER.types();
    stream_handler::aggregate_batch(deps, event, &CONSUMER, &owns, contributions_of).await
}

/// A review's contributions; `shard` is the daily stats' shard of the batch's lane.
fn contributions_of(change: &Change<'_>, shard: Shard) -> Result<Vec<Contribution>, String> {
    if change.type_name() != Some(Review::TYPE) {
        // Other types are filtered out before they reach this function (FilterCriteria).
        return Ok(Vec::new());
    }
    let old = change.old_image::<Review>().map_err(|e| e.to_string())?;
    let new = change.new_image::<Review>().map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    // Book and user: new minus old (a modify may change the grade).
    let Some(any) = new.as_ref().or(old.as_ref()) else {
        return Ok(out);
    };
    let present = |r: &Option<Review>| i64::from(r.is_some());
    let grade = |r: &Option<Review>| r.as_ref().map_or(0, |r| i64::from(r.grade));
    let count = present(&new) - present(&old);
    let book_adds = [
        (Book::RATING_COUNT, count),
        (Book::RATING_SUM, grade(&new) - grade(&old)),
    ];
    out.push(
        change
            .contribution(k::book(&any.isbn), Book::TYPE, book_adds)
            .to_existing(),
    );
    let user_adds = [(User::REVIEW_COUNT, count)];
    out.push(
        change
            .contribution(k::user(&any.username), User::TYPE, user_adds)
            .to_existing(),
    );
    // The day: each image counts on its own review date (one contribution per day touched, as a
    // modify that keeps the date nets to nothing).
    let mut days: BTreeMap<Date, i64> = BTreeMap::new();
    for (image, sign) in [(&old, -1), (&new, 1)] {
        let Some(r) = image else { continue };
        *days.entry(r.review_date.date()).or_default() += sign;
    }
    for (date, delta) in days {
        let labels = [
            (DailyStats::DATE, s(date.iso())),
            (DailyStats::SHARD, n(shard.number())),
        ];
        let target = derived::daily_stats(date, shard);
        let adds = [(DailyStats::REVIEWS, delta)];
        out.push(
            change
                .contribution(target, DailyStats::TYPE, adds)
                .labelled(labels),
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{NewReview, put_review, put_user};
    use keys::{Id, indexes::IndexDesign, reviews::Isbn};
    use model::Item;
    use serde_json::Value;
    use testkit::{Change as C, all_items, stream_event, stream_record};

    const SHARDS: u32 = 4;
    const ISBN: &str = "9780261102354";
    const DAY_MS: u64 = 1_790_000_000_000; // 2026-09-21

    fn num(item: &Item, attr: &str) -> i64 {
        item.get(attr)
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    }

    async fn library() -> Deps {
        let table = testkit::table().await;
        let today = Date::parse_iso("2026-01-01").unwrap();
        crate::fixtures::titled_book(&table, ISBN).await;
        for u in ["ann", "bob"] {
            put_user(
                &table,
                IndexDesign::default(),
                &Id::parse("u", u).unwrap(),
                None,
                today,
            )
            .await
            .unwrap();
        }
        Deps::new(table, CONSUMER.needs, testkit::TEST_CURSOR_KEY, SHARDS).unwrap()
    }

    async fn review(deps: &Deps, user: &str, grade: u8, at_ms: u64) {
        let r = NewReview {
            isbn: Isbn::parse(ISBN).unwrap(),
            user: Id::parse("u", user).unwrap(),
            grade,
            text: "Must read.".into(),
            at: crate::fixtures::at(at_ms),
        };
        put_review(&deps.table, IndexDesign::default(), &r)
            .await
            .unwrap();
    }

    async fn reviews(deps: &Deps) -> Vec<Item> {
        all_items(&deps.table)
            .await
            .into_iter()
            .filter(|i| i["Type"].as_s().unwrap() == "Review")
            .collect()
    }

    /// (book count, book sum, ann's count, bob's count, reviews per day).
    async fn derived(deps: &Deps) -> (i64, i64, i64, i64, BTreeMap<String, i64>) {
        let items = all_items(&deps.table).await;
        let of = |ty: &str, key: &str, attr: &str| {
            items
                .iter()
                .find(|i| i["Type"].as_s().unwrap() == ty && i["PK"].as_s().unwrap().ends_with(key))
                .map_or(0, |i| num(i, attr))
        };
        let mut days = BTreeMap::new();
        for i in items
            .iter()
            .filter(|i| i["Type"].as_s().unwrap() == "DailyStats")
        {
            *days.entry(i["Date"].as_s().unwrap().clone()).or_default() += num(i, "Reviews");
        }
        days.retain(|_, v| *v != 0);
        (
            of("Book", ISBN, "RatingCount"),
            of("Book", ISBN, "RatingSum"),
            of("User", "ann", "ReviewCount"),
            of("User", "bob", "ReviewCount"),
            days,
        )
    }

    fn records<'a>(
        items: &'a [Item],
        first_seq: u64,
        kind: impl Fn(&'a Item) -> C<'a>,
    ) -> Vec<Value> {
        items
            .iter()
            .enumerate()
            .map(|(i, it)| {
                stream_record(
                    &format!("ev{}", first_seq + i as u64),
                    first_seq + i as u64,
                    kind(it),
                )
            })
            .collect()
    }

    #[tokio::test]
    async fn ratings_and_counts_are_exact_under_replays_and_updates() {
        let deps = library().await;
        review(&deps, "ann", 8, DAY_MS).await;
        review(&deps, "bob", 5, DAY_MS + 60_000).await;
        let first = reviews(&deps).await;
        let batch = stream_event(records(&first, 1, C::Insert));
        let (r, _) = handle_counted(&deps, &batch).await;
        assert!(r.batch_item_failures.is_empty());
        let day = "2026-09-21".to_owned();
        assert_eq!(
            derived(&deps).await,
            (2, 13, 1, 1, BTreeMap::from([(day.clone(), 2)]))
        );
        handle_counted(&deps, &batch).await;
        assert_eq!(derived(&deps).await.0, 2, "a replay counts nothing");

        // Ann updates her review a day later: the old item is removed, a re-dated one inserted.
        review(&deps, "ann", 10, DAY_MS + 86_400_000).await;
        let ann_new: Vec<_> = reviews(&deps)
            .await
            .into_iter()
            .filter(|i| i["Username"].as_s().unwrap() == "ann")
            .collect();
        let ann_old: Vec<_> = first
            .iter()
            .filter(|i| i["Username"].as_s().unwrap() == "ann")
            .cloned()
            .collect();
        let mut update = records(&ann_old, 10, C::Remove);
        update.extend(records(&ann_new, 11, C::Insert));
        handle_counted(&deps, &stream_event(update)).await;
        assert_eq!(
            derived(&deps).await,
            (
                2,
                15,
                1,
                1,
                BTreeMap::from([(day, 1), ("2026-09-22".to_owned(), 1)])
            )
        );

        // A grade changed in place (MODIFY), then Bob's review expires by TTL.
        let bob = reviews(&deps)
            .await
            .into_iter()
            .find(|i| i["Username"].as_s().unwrap() == "bob")
            .unwrap();
        let mut regraded = bob.clone();
        regraded.insert("Grade".into(), n(7));
        let batch = stream_event(vec![
            stream_record("m1", 20, C::Modify(&bob, &regraded)),
            stream_record("t1", 21, C::TtlRemove(&regraded)),
        ]);
        let (r, _) = handle_counted(&deps, &batch).await;
        assert!(r.batch_item_failures.is_empty());
        assert_eq!(
            derived(&deps).await,
            (1, 10, 1, 0, BTreeMap::from([("2026-09-22".to_owned(), 1)]))
        );
    }
}
