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
use model::learning::{Certificate, CourseOccurrence};
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

#[cfg(test)]
mod tests {
    use super::*;

    use learning::data::{certificate, issue_certificate};
    use std::collections::BTreeSet;

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
