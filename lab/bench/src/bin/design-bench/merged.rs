//! What reading a write-sharded index as one list costs. 1,000 completion certificates of one
//! course day are read page by page twice, on one fresh table:
//! - merged (L11): every shard of GSI1's `completion` partitions queried, merged into one order,
//!   `store::merge::merged_page` as the function runs it;
//! - the baseline (L9): the same certificates from their one base-table partition, one Query a
//!   page. Same items, same page sizes; what differs is the sharding.
//!
//! Reported per page size: read units per page and per returned item, Query requests per page,
//! and items read per item returned (what a page reads and throws away).

use keys::{
    Shard,
    learning::{
        CERTIFICATE_SHARDS, CertType, CertVersion, certificate_shard, certificates_of_type,
        certificates_on,
    },
};
use model::learning::Certificate;
use store::{
    Table,
    merge::{Direction, Positions, merged_page},
};

const CERTIFICATES: usize = 1_000;
const DATE: &str = "2022-03-15";
const FIRST: [&str; 40] = [
    "Ada", "Alan", "Amara", "Ben", "Carla", "Chen", "Dana", "David", "Elif", "Emma", "Farid",
    "Grace", "Hana", "Ivan", "Jade", "Jonas", "Kai", "Lena", "Luis", "Maya", "Mei", "Nia", "Noah",
    "Omar", "Priya", "Quinn", "Rosa", "Sam", "Sara", "Tariq", "Tess", "Uma", "Vera", "Wei", "Xena",
    "Yara", "Yusuf", "Zane", "Zoe", "Ines",
];
const LAST: [&str; 25] = [
    "Abbott", "Barros", "Costa", "Dietrich", "Evans", "Fischer", "Garcia", "Hughes", "Ito",
    "Jensen", "Kowalski", "Lopez", "Moreau", "Nakamura", "Okafor", "Petrov", "Quispe", "Rossi",
    "Silva", "Tanaka", "Ueda", "Varga", "Walsh", "Xu", "Young",
];

/// What one walk cost, summed over its pages.
#[derive(Default)]
struct Walk {
    pages: usize,
    returned: usize,
    read: usize,
    requests: usize,
    units: f64,
    first_page_units: f64,
}

impl Walk {
    fn page(&mut self, table: &Table, returned: usize) {
        let requests = table.meter().requests();
        let units: f64 = requests.iter().map(|r| r.capacity_units()).sum();
        if self.pages == 0 {
            self.first_page_units = units;
        }
        self.pages += 1;
        self.returned += returned;
        self.read += requests.iter().map(|r| r.items).sum::<usize>();
        self.requests += requests.len();
        self.units += units;
        table.meter().reset();
    }

    fn units_per_page(&self) -> f64 {
        self.units / self.pages as f64
    }

    fn units_per_item(&self) -> f64 {
        self.units / self.returned as f64
    }
}

async fn merged(table: &Table, limit: u32) -> Result<Walk, Box<dyn std::error::Error>> {
    let streams: Vec<_> = (0..CERTIFICATE_SHARDS)
        .map(|n| {
            let shard = Shard::new(n, CERTIFICATE_SHARDS).expect("a shard in range");
            certificates_of_type(CertType::Completion, shard, None, None)
        })
        .collect();
    let mut walk = Walk::default();
    let mut positions = Positions::start(streams.len());
    table.meter().reset();
    loop {
        let page = merged_page(
            table,
            streams.clone(),
            positions,
            limit,
            Direction::Ascending,
        )
        .await?;
        walk.page(table, page.items.len());
        match page.next {
            Some(next) => positions = next,
            None => return Ok(walk),
        }
    }
}

async fn single_partition(table: &Table, limit: u32) -> Result<Walk, Box<dyn std::error::Error>> {
    let course = learning::fixtures::occurrence(learning::fixtures::INTRO, DATE, "Building 1");
    let condition = certificates_on(course.course_name.key(), course.start_date, None);
    let mut walk = Walk::default();
    let mut start = None;
    table.meter().reset();
    loop {
        let page = table
            .query(condition.clone())
            .start(start)
            .limit(limit)
            .send()
            .await?;
        walk.page(table, page.items.len());
        match page.last_key {
            Some(key) => start = Some(key),
            None => return Ok(walk),
        }
    }
}

pub async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let table = devkit::table().await;
    // 40 × 25 distinct names: a realistic spread over the shards (their code-point sums vary as
    // real names' do, unlike "Student 1", "Student 2", ...).
    let certificates: Vec<Certificate> = (0..CERTIFICATES)
        .map(|n| {
            let student = format!("{} {}", FIRST[n % FIRST.len()], LAST[n / FIRST.len()]);
            let instructor = ["Tyler Walch", "Ann Lee", "Bo Chen"][n % 3];
            learning::fixtures::certificate(DATE, &student, instructor, CertVersion::V2)
        })
        .collect();
    devkit::batch_put(&table, &certificates).await;
    let size = devkit::item_size(&model::to_item(&certificates[0])?);
    let mut per_shard = [0usize; CERTIFICATE_SHARDS as usize];
    for c in &certificates {
        per_shard[certificate_shard(&model::Entity::key(c)).number() as usize] += 1;
    }

    println!(
        "merged pages: {CERTIFICATES} completion certificates (~{size} bytes each) of one course day;"
    );
    println!(
        "L11 merges the {CERTIFICATE_SHARDS} GSI1 shards ({} to {} certificates each), the baseline (L9) reads the one base-table partition",
        per_shard.iter().min().unwrap_or(&0),
        per_shard.iter().max().unwrap_or(&0),
    );
    for limit in [10, 100] {
        let m = merged(&table, limit).await?;
        let b = single_partition(&table, limit).await?;
        assert_eq!(
            m.returned, CERTIFICATES,
            "the merged walk returns every certificate"
        );
        assert_eq!(
            b.returned, CERTIFICATES,
            "the baseline returns every certificate"
        );
        for (name, w) in [("merged (L11)", &m), ("baseline (L9)", &b)] {
            println!(
                "limit {limit:>3}, {name:<13}: {:>3} pages, {:>6.2} units/page (first page {:>6.2}), {:>5.1} queries/page, {:.3} units/item, {:.2} items read per item returned",
                w.pages,
                w.units_per_page(),
                w.first_page_units,
                w.requests as f64 / w.pages as f64,
                w.units_per_item(),
                w.read as f64 / w.returned as f64,
            );
        }
        println!(
            "limit {limit:>3}, ratio merged / baseline: {:.1} per page, {:.1} per item",
            m.units_per_page() / b.units_per_page(),
            m.units_per_item() / b.units_per_item(),
        );
    }
    Ok(())
}
