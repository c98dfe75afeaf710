//! The task that follows one mapping's shards: it lists them, and starts a worker for each shard
//! once its parent is done, as Lambda keeps a shard's records in order across splits and
//! rotations.

use std::{collections::HashSet, sync::Arc, time::Instant};

use tokio::task::JoinSet;

use super::{
    mapping::Mapping,
    shard::{ShardInfo, ShardReader, Start, list_shards},
    status::ShardState,
    worker,
};

/// Lists the shards and starts reading the first ones before returning, so that a `LATEST`
/// mapping starts from this moment; then follows new shards in a task of its own. Aborting the
/// task stops the mapping's workers too.
pub async fn start(mapping: Arc<Mapping>) -> Result<tokio::task::JoinHandle<()>, String> {
    let listed_at = Instant::now();
    let shards = list_shards(&mapping.client, &mapping.stream_arn).await?;
    let mut started = HashSet::new();
    let mut workers = JoinSet::new();
    start_ready(&mapping, &shards, &mut started, &mut workers, true).await?;
    mapping.update(|s| s.listed_at = Some(listed_at));
    Ok(tokio::spawn(follow(mapping, started, workers)))
}

async fn follow(mapping: Arc<Mapping>, mut started: HashSet<String>, mut workers: JoinSet<()>) {
    loop {
        tokio::select! {
            _ = mapping.wake.notified() => {}
            _ = tokio::time::sleep(mapping.timing.list_interval) => {}
            Some(Err(e)) = workers.join_next(), if !workers.is_empty() => {
                if e.is_panic() {
                    mapping.error(format!("a shard worker panicked: {e}; that shard is stuck"));
                }
            }
        }
        let listed_at = Instant::now();
        match list_shards(&mapping.client, &mapping.stream_arn).await {
            Ok(shards) => {
                if let Err(e) =
                    start_ready(&mapping, &shards, &mut started, &mut workers, false).await
                {
                    mapping.error(e);
                }
                mapping.update(|s| s.listed_at = Some(listed_at));
            }
            Err(e) => mapping.error(e),
        }
    }
}

/// Starts a worker for every shard [`plan`] says is ready.
async fn start_ready(
    mapping: &Arc<Mapping>,
    shards: &[ShardInfo],
    started: &mut HashSet<String>,
    workers: &mut JoinSet<()>,
    first_listing: bool,
) -> Result<(), String> {
    let finished: HashSet<String> = mapping.update(|s| {
        s.shards
            .iter()
            .filter(|(_, st)| st.finished)
            .map(|(id, _)| id.clone())
            .collect()
    });
    let latest = first_listing && mapping.start == Start::Latest;
    for (id, step) in plan(shards, started, &finished, latest) {
        started.insert(id.clone());
        let Step::Read(position) = step else {
            let skipped = ShardState {
                finished: true,
                ..ShardState::default()
            };
            mapping.update(|s| s.shards.insert(id, skipped));
            continue;
        };
        let mut reader =
            ShardReader::new(mapping.client.clone(), &mapping.stream_arn, &id, position);
        if first_listing {
            reader.prepare().await?;
        }
        mapping.update(|s| s.shards.insert(id, ShardState::default()));
        workers.spawn(worker::run(mapping.clone(), reader));
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Read(Start),
    /// Counts as finished: a closed shard a `LATEST` mapping found when it started.
    Skip,
}

/// What to do with each shard not started yet whose parent is done (finished, or no longer
/// listed: its records expired). `latest_start`: the first listing of a `LATEST` mapping, which
/// skips closed shards and reads open ones from their latest record; every other shard is read
/// from its start, so that a shard's records follow its parent's.
fn plan(
    shards: &[ShardInfo],
    started: &HashSet<String>,
    finished: &HashSet<String>,
    latest_start: bool,
) -> Vec<(String, Step)> {
    let listed: HashSet<&str> = shards.iter().map(|s| s.id.as_str()).collect();
    let mut done: HashSet<&str> = finished.iter().map(String::as_str).collect();
    let mut planned: HashSet<&str> = HashSet::new();
    let mut steps = Vec::new();
    // Until nothing changes: a skipped shard lets its children start in the same listing.
    loop {
        let ready: Vec<&ShardInfo> = shards
            .iter()
            .filter(|s| !started.contains(&s.id) && !planned.contains(s.id.as_str()))
            .filter(|s| {
                s.parent
                    .as_deref()
                    .is_none_or(|p| !listed.contains(p) || done.contains(p))
            })
            .collect();
        if ready.is_empty() {
            return steps;
        }
        for shard in ready {
            planned.insert(&shard.id);
            let step = match (latest_start, shard.closed) {
                (true, true) => {
                    done.insert(&shard.id);
                    Step::Skip
                }
                (true, false) => Step::Read(Start::Latest),
                (false, _) => Step::Read(Start::TrimHorizon),
            };
            steps.push((shard.id.clone(), step));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(id: &str, parent: Option<&str>, closed: bool) -> ShardInfo {
        ShardInfo::new(id, parent, closed)
    }

    fn set(ids: &[&str]) -> HashSet<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    /// a (closed) -> b (closed) -> c (open); x: a shard whose parent expired.
    fn lineage() -> Vec<ShardInfo> {
        vec![
            shard("c", Some("b"), false),
            shard("b", Some("a"), true),
            shard("a", None, true),
            shard("x", Some("expired"), false),
        ]
    }

    #[test]
    fn children_wait_for_their_parents() {
        let trim = Step::Read(Start::TrimHorizon);
        let shards = lineage();
        let none = set(&[]);
        assert_eq!(
            plan(&shards, &none, &none, false),
            [("a".to_string(), trim), ("x".to_string(), trim)]
        );
        let started = set(&["a", "x"]);
        assert_eq!(plan(&shards, &started, &none, false), []);
        assert_eq!(
            plan(&shards, &started, &set(&["a"]), false),
            [("b".to_string(), trim)]
        );
        let started = set(&["a", "b", "x"]);
        assert_eq!(
            plan(&shards, &started, &set(&["a", "b"]), false),
            [("c".to_string(), trim)]
        );
    }

    #[test]
    fn latest_skips_closed_shards_and_reads_open_ones_from_now() {
        let shards = lineage();
        let none = set(&[]);
        let steps = plan(&shards, &none, &none, true);
        assert_eq!(
            steps,
            [
                ("a".to_string(), Step::Skip),
                ("x".to_string(), Step::Read(Start::Latest)),
                ("b".to_string(), Step::Skip),
                ("c".to_string(), Step::Read(Start::Latest)),
            ]
        );
    }
}
