//! `make migrate`: moves every v01 certificate to v02, online. It finds them with the index, as
//! Walch's talk advises ("leverage indexes in your migrations"): L12, the v01 certificates of a
//! type, is exactly the list to move, read as one list over the 20 shards (`store::merge`). Each
//! item moves in its own transaction (`learning::data::migrate_certificate`), so a kill loses
//! nothing and a rerun continues with what is left; reads stay correct throughout (L7 reads both
//! versions at once; a list walked during the migration may show a certificate in both versions,
//! once each, as it moves past the walk).

use keys::{
    Shard,
    learning::{CERTIFICATE_SHARDS, CertType, CertVersion, certificates_of_type},
};
use learning::data::{Moved, index_occurrence, migrate_certificate};
use model::{
    Entity, Item,
    learning::{Certificate, CourseOccurrence},
};
use store::{
    StoreError, Table,
    merge::{Direction, Positions, merged_page},
};

/// What a run did (or, dry, would do).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Migration {
    /// v01 certificates found.
    pub found: usize,
    pub moved: usize,
    /// v01 duplicates of a v02 certificate, deleted.
    pub duplicates: usize,
    /// Moved by someone else meanwhile.
    pub gone: usize,
}

/// Runs the migration; `dry`: only counts. `progress` is told after every page.
pub async fn run(
    table: &Table,
    dry: bool,
    mut progress: impl FnMut(&Migration),
) -> Result<Migration, StoreError> {
    let mut done = Migration::default();
    for cert_type in CertType::ALL {
        let streams: Vec<_> = (0..CERTIFICATE_SHARDS)
            .map(|n| {
                let shard = Shard::new(n, CERTIFICATE_SHARDS).expect("a shard below the count");
                certificates_of_type(cert_type, shard, Some(CertVersion::V1), None)
            })
            .collect();
        let mut positions = Positions::start(streams.len());
        loop {
            let page =
                merged_page(table, streams.clone(), positions, 100, Direction::Ascending).await?;
            for item in page.items {
                let certificate: Certificate = model::from_item(item)?;
                done.found += 1;
                if dry {
                    continue;
                }
                match migrate_certificate(table, &certificate).await? {
                    Moved::Moved => done.moved += 1,
                    Moved::Duplicate => done.duplicates += 1,
                    Moved::Gone => done.gone += 1,
                }
            }
            progress(&done);
            match page.next {
                Some(next) => positions = next,
                None => break,
            }
        }
    }
    Ok(done)
}

/// What writing `OccurrencesByDate`'s attributes did (or, dry, would do).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Indexed {
    /// Occurrences without the attributes.
    pub found: usize,
    pub indexed: usize,
    /// Deleted meanwhile.
    pub gone: usize,
}

/// Writes `OccurrencesByDate`'s attributes on every course occurrence that lacks them (items
/// written before the index existed): unlike an index over attributes items carry already, this
/// one needs each old occurrence rewritten, one UpdateItem each. They are found through GSI1,
/// whose `course#` partitions hold occurrences only (a Scan of the index, not of the table), with
/// the attributes absent. Idempotent; `dry`: only counts. `progress` is told after every page.
pub async fn index_occurrences(
    table: &Table,
    dry: bool,
    mut progress: impl FnMut(&Indexed),
) -> Result<Indexed, StoreError> {
    use keys::{Index, indexes::OccurrencesByDate};
    let first = OccurrencesByDate::DECLARATION.partition[0].name;
    let mut done = Indexed::default();
    let mut start = None;
    loop {
        let page = table
            .client()
            .scan()
            .table_name(table.name())
            .index_name(keys::index::GSI1)
            .filter_expression("begins_with(#pk, :course) AND attribute_not_exists(#key)")
            .expression_attribute_names("#pk", keys::attr::GSI1PK)
            .expression_attribute_names("#key", first)
            .expression_attribute_values(
                ":course",
                model::s(format!(
                    "{}{}",
                    keys::learning::tag::COURSE,
                    keys::DELIMITER
                )),
            )
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(|e| StoreError::Config(format!("scan of GSI1: {e}")))?;
        for item in page.items() {
            let occurrence: CourseOccurrence = model::from_item(item.clone())?;
            done.found += 1;
            if dry {
                continue;
            }
            if index_occurrence(table, &occurrence).await? {
                done.indexed += 1;
            } else {
                done.gone += 1;
            }
        }
        progress(&done);
        match page.last_evaluated_key {
            Some(k) => start = Some(k),
            None => return Ok(done),
        }
    }
}

/// What rewriting the keys of items keyed before today's text rule did (or, dry, would do).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Rekeyed {
    /// Items of a kind with text in its keys, read.
    pub read: usize,
    /// Of those, items whose keys (or shown names) today's code would make otherwise.
    pub found: usize,
    pub rewritten: usize,
    /// Changed or deleted meanwhile: left for the next run.
    pub gone: usize,
    /// Items whose key today is another item's already (the same name written again, the new
    /// way, beside the old item): both kept, for a person to decide.
    pub conflicts: Vec<String>,
}

impl Rekeyed {
    /// This run's counts and another table's, together.
    pub fn add(&mut self, other: Rekeyed) {
        self.read += other.read;
        self.found += other.found;
        self.rewritten += other.rewritten;
        self.gone += other.gone;
        self.conflicts.extend(other.conflicts);
    }
}

/// The kinds whose keys hold text (`keys::Text`): made otherwise before today's normalisation.
const TEXT_KEYED: [&str; 4] = [
    CourseOccurrence::TYPE,
    Certificate::TYPE,
    model::hr::Employee::TYPE,
    model::hr::Job::TYPE,
];

/// `item` as today's code writes it: its entity read and written again (keys made as today's
/// rule makes them, shown names in NFC), over every other attribute it holds (copies, marks,
/// revisions). `None` for a kind without text in its keys.
fn as_written_today(item: &Item) -> Option<Result<Item, model::ModelError>> {
    fn again<E: model::Entity>(item: &Item) -> Result<Item, model::ModelError> {
        let entity: E = model::from_item(item.clone())?;
        let mut today = item.clone();
        today.extend(model::to_item(&entity)?);
        Ok(today)
    }
    Some(match model::type_of(item)? {
        CourseOccurrence::TYPE => again::<CourseOccurrence>(item),
        Certificate::TYPE => again::<Certificate>(item),
        model::hr::Employee::TYPE => again::<model::hr::Employee>(item),
        model::hr::Job::TYPE => again::<model::hr::Job>(item),
        _ => return None,
    })
}

/// The primary key attributes of `item`.
fn primary_key(item: &Item) -> Item {
    item.iter()
        .filter(|(name, _)| [keys::attr::PK, keys::attr::SK].contains(&name.as_str()))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

/// `PK / SK` of an item, to name it.
fn shown_key(item: &Item) -> String {
    let text = |a: &str| {
        item.get(a)
            .and_then(|v| v.as_s().ok())
            .cloned()
            .unwrap_or_default()
    };
    format!("{} / {}", text(keys::attr::PK), text(keys::attr::SK))
}

/// Rewrites every item of a kind with text in its keys whose keys today's rule makes otherwise
/// (written before it: docs/table-design.md#text-in-keys), so that a read naming the text finds
/// it and a write of the same name meets it. Found by a Scan of those kinds (no index lists
/// them). An item whose primary key is unchanged (only an index key, or a shown name, differs)
/// is updated in place, on condition that what differs is as read; one whose primary key
/// changes is written under today's key and deleted under the old one in one transaction, on
/// condition that today's key is free (else a conflict, reported, both kept) and the old item
/// is as read. Idempotent; `dry`: only counts. `progress` is told after every page.
pub async fn rekey(
    table: &Table,
    dry: bool,
    mut progress: impl FnMut(&Rekeyed),
) -> Result<Rekeyed, StoreError> {
    use store::aws_sdk_dynamodb::types::{AttributeValue, Delete, Put, TransactWriteItem};
    let mut done = Rekeyed::default();
    let mut start = None;
    let kinds: Vec<(String, AttributeValue)> = TEXT_KEYED
        .iter()
        .enumerate()
        .map(|(i, kind)| (format!(":k{i}"), model::s(*kind)))
        .collect();
    let filter = format!(
        "#type IN ({})",
        kinds
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    loop {
        let page = table
            .client()
            .scan()
            .table_name(table.name())
            .filter_expression(&filter)
            .expression_attribute_names("#type", model::attr::TYPE)
            .set_expression_attribute_values(Some(kinds.iter().cloned().collect()))
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(|e| StoreError::Config(format!("scan for text keys: {e}")))?;
        for item in page.items() {
            let Some(today) = as_written_today(item) else {
                continue;
            };
            done.read += 1;
            let today = today?;
            if &today == item {
                continue;
            }
            done.found += 1;
            if dry {
                continue;
            }
            // What differs, as read: the condition that nothing changed it meanwhile.
            let mut unchanged = vec![];
            let mut values = std::collections::HashMap::new();
            let mut names = std::collections::HashMap::new();
            for (i, (name, was)) in item.iter().enumerate() {
                if today.get(name) != Some(was) {
                    names.insert(format!("#a{i}"), name.clone());
                    values.insert(format!(":a{i}"), was.clone());
                    unchanged.push(format!("#a{i} = :a{i}"));
                }
            }
            let unchanged = unchanged.join(" AND ");
            let written = if primary_key(&today) == primary_key(item) {
                let put = Put::builder()
                    .table_name(table.name())
                    .set_item(Some(today.clone().into_iter().collect()))
                    .condition_expression(&unchanged)
                    .set_expression_attribute_names(Some(names))
                    .set_expression_attribute_values(Some(values))
                    .build()
                    .map_err(|e| StoreError::Config(e.to_string()))?;
                vec![TransactWriteItem::builder().put(put).build()]
            } else {
                let put = Put::builder()
                    .table_name(table.name())
                    .set_item(Some(today.clone().into_iter().collect()))
                    .condition_expression("attribute_not_exists(#pk)")
                    .expression_attribute_names("#pk", keys::attr::PK)
                    .build()
                    .map_err(|e| StoreError::Config(e.to_string()))?;
                let delete = Delete::builder()
                    .table_name(table.name())
                    .set_key(Some(primary_key(item).into_iter().collect()))
                    .condition_expression(&unchanged)
                    .set_expression_attribute_names(Some(names))
                    .set_expression_attribute_values(Some(values))
                    .build()
                    .map_err(|e| StoreError::Config(e.to_string()))?;
                vec![
                    TransactWriteItem::builder().put(put).build(),
                    TransactWriteItem::builder().delete(delete).build(),
                ]
            };
            let moves = written.len() == 2;
            match table
                .client()
                .transact_write_items()
                .set_transact_items(Some(written))
                .send()
                .await
            {
                Ok(_) => done.rewritten += 1,
                Err(e) => {
                    const FAILED: &str = "ConditionalCheckFailed";
                    match store::cancellation(e) {
                        StoreError::TransactionCanceled(reasons)
                            if moves && reasons.first().is_some_and(|r| r == FAILED) =>
                        {
                            done.conflicts.push(format!(
                                "{}: today's key {} is another item's already",
                                shown_key(item),
                                shown_key(&today)
                            ))
                        }
                        StoreError::TransactionCanceled(reasons)
                            if reasons.last().is_some_and(|r| r == FAILED) =>
                        {
                            done.gone += 1
                        }
                        e => return Err(e),
                    }
                }
            }
        }
        progress(&done);
        match page.last_evaluated_key {
            Some(k) => start = Some(k),
            None => return Ok(done),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use learning::data::{certificate, issue_certificate};
    use std::collections::BTreeSet;

    /// An occurrence keyed before today's text rule: "Café Basics" sent decomposed (`e` +
    /// U+0301), kept so in its keys, which today's rule never makes (the registry classifies
    /// no such key, and a read naming the course finds nothing). `rekey` writes it under today's
    /// key and deletes the old item; a second run finds nothing. Written again beside it the
    /// new way, the old one is a conflict: both kept. A shown name not in NFC under today's keys
    /// is rewritten in place.
    #[tokio::test]
    async fn items_keyed_before_the_text_rule_are_keyed_again() {
        let table = devkit::table().await;
        let today =
            learning::fixtures::occurrence("Cafe\u{301} Basics", "2022-03-15", "Building 1");
        assert!(
            learning::data::create_occurrence(&table, &today)
                .await
                .unwrap()
        );
        let written = devkit::all_items(&table).await.remove(0);
        // The old rule's item: every text as sent, decomposed, in the keys too.
        let old: Item = written
            .iter()
            .map(|(name, value)| {
                let value = match value.as_s() {
                    Ok(text) => model::s(text.replace('\u{e9}', "e\u{301}")),
                    Err(_) => value.clone(),
                };
                (name.clone(), value)
            })
            .collect();
        let text = |i: &Item, a: &str| i[a].as_s().unwrap().clone();
        assert_ne!(
            text(&old, "PK"),
            text(&written, "PK"),
            "the key held the text"
        );
        assert!(
            keys::registry::classify(keys::Space::Base, &text(&old, "PK"), &text(&old, "SK"))
                .is_empty(),
            "no kind of today's has such a key"
        );
        table.delete(&today.key(), None).await.unwrap();
        table.put_item(old.clone(), None).await.unwrap();
        assert!(
            table
                .get::<CourseOccurrence>(&today.key(), store::Read::Strong)
                .await
                .unwrap()
                .is_none()
        );

        let dry = rekey(&table, true, |_| {}).await.unwrap();
        assert_eq!((dry.found, dry.rewritten), (1, 0));
        assert_eq!(
            devkit::all_items(&table).await,
            vec![old.clone()],
            "a dry run writes nothing"
        );
        let done = rekey(&table, false, |_| {}).await.unwrap();
        assert_eq!(
            (done.found, done.rewritten, done.conflicts.len()),
            (1, 1, 0),
            "{done:?}"
        );
        let items = devkit::all_items(&table).await;
        assert_eq!(items.len(), 1);
        assert_eq!(
            (text(&items[0], "PK"), text(&items[0], "SK")),
            (text(&written, "PK"), text(&written, "SK")),
            "today's key"
        );
        assert!(
            table
                .get::<CourseOccurrence>(&today.key(), store::Read::Strong)
                .await
                .unwrap()
                .is_some()
        );
        assert_eq!(
            rekey(&table, false, |_| {}).await.unwrap().found,
            0,
            "nothing the second time"
        );

        // The old item again, beside today's: a conflict, both kept.
        table.put_item(old.clone(), None).await.unwrap();
        let clash = rekey(&table, false, |_| {}).await.unwrap();
        assert_eq!(
            (clash.found, clash.rewritten, clash.conflicts.len()),
            (1, 0, 1),
            "{clash:?}"
        );
        assert_eq!(devkit::all_items(&table).await.len(), 2, "both kept");
        table
            .client()
            .delete_item()
            .table_name(table.name())
            .set_key(Some(primary_key(&old).into_iter().collect()))
            .send()
            .await
            .unwrap();

        // Today's keys, a shown name decomposed: rewritten in place.
        let mut shown = devkit::all_items(&table).await.remove(0);
        shown.insert("CourseName".into(), model::s("Cafe\u{301} Basics"));
        table.put_item(shown, None).await.unwrap();
        let in_place = rekey(&table, false, |_| {}).await.unwrap();
        assert_eq!((in_place.found, in_place.rewritten), (1, 1), "{in_place:?}");
        assert_eq!(
            devkit::all_items(&table).await,
            vec![written],
            "as today writes it"
        );
    }

    /// Every completion certificate, by (date, student), through L11 walked to its end.
    async fn l11(table: &Table, version: Option<CertVersion>) -> BTreeSet<(String, String)> {
        let streams: Vec<_> = (0..CERTIFICATE_SHARDS)
            .map(|n| {
                let shard = Shard::new(n, CERTIFICATE_SHARDS).unwrap();
                certificates_of_type(CertType::Completion, shard, version, None)
            })
            .collect();
        let mut all = BTreeSet::new();
        let mut positions = Positions::start(streams.len());
        loop {
            let page = merged_page(table, streams.clone(), positions, 7, Direction::Ascending)
                .await
                .unwrap();
            for item in page.items {
                let c: Certificate = model::from_item(item).unwrap();
                all.insert((c.issued_date.iso(), c.student.as_str().to_owned()));
            }
            match page.next {
                Some(p) => positions = p,
                None => return all,
            }
        }
    }

    /// The seed's story: v01 certificates (David Spurdy's among them) move to v02 while readers
    /// and a writer work; after it, L12 is empty, L11 returns what it did before plus what was
    /// issued meanwhile, every student's L7 read found their certificate throughout, and a second
    /// run has nothing to do.
    /// An occurrence written before `OccurrencesByDate` existed (no `CourseKey`, `Year`, ...) is
    /// missing from L2 until the migration writes its attributes; then L2 on the index and on
    /// GSI1 agree, and a second run has nothing to do.
    #[tokio::test]
    async fn occurrences_written_before_the_index_join_it() {
        use keys::learning::{Course, OccurrenceRead, Period};
        use learning::data::{OccurrenceIndex, occurrences_page};
        use model::Entity;
        let table = devkit::table().await;
        let new =
            learning::fixtures::occurrence(learning::fixtures::INTRO, "2022-03-15", "Building 1");
        let old =
            learning::fixtures::occurrence(learning::fixtures::INTRO, "2022-03-16", "Building 2");
        table.put(&new, None).await.unwrap();
        let mut item = model::to_item(&old).unwrap();
        for name in ["CourseKey", "Year", "Month", "Day", "LocationKey"] {
            assert!(item.remove(name).is_some(), "{name}");
        }
        table.put_item(item, None).await.unwrap();
        let course = Course::parse(learning::fixtures::INTRO).unwrap();
        let l2 = async |index| {
            let read = OccurrenceRead::In(Period::Any);
            occurrences_page(&table, index, course.key(), &read, 100, None)
                .await
                .unwrap()
                .items
        };
        let both = [new.clone(), old.clone()];
        assert_eq!(l2(OccurrenceIndex::ByDate).await, both[..1]);
        assert_eq!(l2(OccurrenceIndex::Gsi1).await, both);

        let dry = index_occurrences(&table, true, |_| {}).await.unwrap();
        assert_eq!((dry.found, dry.indexed), (1, 0), "a dry run writes nothing");
        let done = index_occurrences(&table, false, |_| {}).await.unwrap();
        assert_eq!((done.found, done.indexed, done.gone), (1, 1, 0));
        assert_eq!(l2(OccurrenceIndex::ByDate).await, both);
        assert_eq!(
            l2(OccurrenceIndex::Gsi1).await,
            l2(OccurrenceIndex::ByDate).await
        );
        let stored = table
            .get_item(&old.key(), store::Read::Strong, None)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            stored,
            model::to_item(&old).unwrap(),
            "as a new write makes it"
        );
        let again = index_occurrences(&table, false, |_| {}).await.unwrap();
        assert_eq!(again, Indexed::default(), "nothing to do the second time");
    }

    #[tokio::test]
    async fn moves_every_v01_certificate_online_and_then_has_nothing_to_do() {
        let table = devkit::table().await;
        table
            .put(
                &learning::fixtures::occurrence(
                    learning::fixtures::INTRO,
                    "2022-03-15",
                    "Building 1",
                ),
                None,
            )
            .await
            .unwrap();
        let students: Vec<String> = (0..40).map(|n| format!("Student {n}")).collect();
        for s in students.iter().map(String::as_str).chain(["David Spurdy"]) {
            let c =
                learning::fixtures::certificate("2022-03-15", s, "Tyler Walch", CertVersion::V1);
            assert_eq!(
                issue_certificate(&table, &c).await.unwrap(),
                learning::data::Issued::Issued
            );
        }
        let before = l11(&table, None).await;
        assert_eq!(before.len(), 41);

        let dry = run(&table, true, |_| {}).await.unwrap();
        assert_eq!((dry.found, dry.moved), (41, 0), "a dry run writes nothing");
        assert_eq!(l11(&table, Some(CertVersion::V1)).await.len(), 41);

        let done = std::sync::atomic::AtomicBool::new(false);
        let course = keys::learning::Course::parse(learning::fixtures::INTRO).unwrap();
        let date = keys::Date::parse_iso("2022-03-15").unwrap();
        let readers = async {
            let mut reads = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                for s in &students {
                    let name = keys::learning::Name::parse("s", s).unwrap();
                    let found = certificate(&table, &course, date, &name).await.unwrap();
                    assert!(
                        found.is_some(),
                        "{s}'s certificate vanished during the migration"
                    );
                    reads += 1;
                }
            }
            reads
        };
        let writer = async {
            // Davids Purdy, whose v01 key is David Spurdy's: issued as v02 meanwhile.
            let c = learning::fixtures::certificate(
                "2022-03-15",
                "Davids Purdy",
                "Tyler Walch",
                CertVersion::V2,
            );
            issue_certificate(&table, &c).await.unwrap()
        };
        let migration = async {
            let m = run(&table, false, |_| {}).await.unwrap();
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            m
        };
        let (reads, issued, moved) = tokio::join!(readers, writer, migration);
        assert!(reads >= students.len(), "the readers ran");
        assert_eq!(
            issued,
            learning::data::Issued::Issued,
            "the seed's collision, resolved"
        );
        assert_eq!(moved.moved, 41, "{moved:?}");

        assert!(
            l11(&table, Some(CertVersion::V1)).await.is_empty(),
            "L12 returns nothing"
        );
        let mut expected = before.clone();
        expected.insert(("2022-03-15".into(), "Davids Purdy".into()));
        assert_eq!(l11(&table, None).await, expected, "L11: everything, once");
        let again = run(&table, false, |_| {}).await.unwrap();
        assert_eq!(again, Migration::default(), "nothing to do the second time");
    }
}
