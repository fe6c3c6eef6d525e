//! The truth of a Flink-written table, from the job's side: the input the job's source produced (computed
//! here from the same formula as `flink-writer`'s `InputGenerator`), checked against what the released
//! reader returns (a batch read, a stream from snapshot 1 folded per key) and the snapshot timeline.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use arrow_array::{Array, Int32Array, Int64Array, Int8Array, RecordBatch};
use native_reader::scan::ScanMode;
use native_reader::RowKind;
use serde::{Deserialize, Serialize};

use super::flink::FlinkSource;
use super::summary::SnapshotSummary;
use crate::error::{Error, Result};
use crate::reader::{PlannedSplit, StockTableReader, TableReader};

/// One row of a Flink table (`k INT, producer INT, seq BIGINT, v BIGINT`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct FlinkRow {
    /// The primary key.
    pub k: i32,
    /// The producer that wrote it.
    pub producer: i32,
    /// The index of the record in its producer's input.
    pub seq: i64,
    /// The value.
    pub v: i64,
}

/// One record of a producer's input: a row, upserted or deleted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputRecord {
    /// The row (a deletion carries values too; only its key matters).
    pub row: FlinkRow,
    /// `-D` instead of `+I`.
    pub delete: bool,
}

fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn hash(seed: i64, producer: i32, i: i64, salt: u64) -> u64 {
    let mut h = mix(seed as u64);
    h = mix(h ^ (i64::from(producer) as u64));
    h = mix(h ^ (i as u64));
    mix(h ^ salt)
}

impl FlinkSource {
    /// The keys producer `p` owns (`k % producers == p`).
    pub fn own_keys(&self, p: i32) -> i64 {
        let (keys, n) = (i64::from(self.keys), i64::from(self.producers));
        (keys - i64::from(p) + n - 1) / n
    }

    /// Record `i` of producer `p`: the first `records` pick one of its keys and upsert it, or delete it
    /// (one in eight); then one final record per key it owns, in key order (a deletion for one in five).
    pub fn record(&self, p: i32, i: i64) -> InputRecord {
        let own = self.own_keys(p).max(1) as u64;
        let (slot, delete) = if i < self.records {
            (
                hash(self.seed, p, i, 1) % own,
                hash(self.seed, p, i, 2).is_multiple_of(8),
            )
        } else {
            (
                (i - self.records) as u64,
                hash(self.seed, p, i, 2).is_multiple_of(5),
            )
        };
        InputRecord {
            row: FlinkRow {
                k: p + self.producers as i32 * slot as i32,
                producer: p,
                seq: i,
                v: (hash(self.seed, p, i, 3) % 1_000_000) as i64,
            },
            delete,
        }
    }

    /// Every record of producer `p`, in order.
    pub fn records_of(&self, p: i32) -> impl Iterator<Item = InputRecord> + '_ {
        (0..self.records + self.own_keys(p)).map(move |i| self.record(p, i))
    }

    /// The state the whole input leaves, per key: the row, or `None` when the key ends deleted. Every key
    /// below `keys` is present (each has its final record).
    pub fn final_state(&self) -> BTreeMap<i32, Option<FlinkRow>> {
        let mut state = BTreeMap::new();
        for p in 0..self.producers as i32 {
            for r in self.records_of(p) {
                state.insert(r.row.k, (!r.delete).then_some(r.row));
            }
        }
        state
    }
}

/// A key whose value in a read differs from the input's final value.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct KeyDifference {
    /// The key.
    pub k: i32,
    /// The input's final row (`None`: deleted).
    pub expected: Option<FlinkRow>,
    /// What the read holds for the key (`None`: absent).
    pub actual: Option<FlinkRow>,
    /// The read's last event for the key was a retraction (`-U`/`-D`): the key was seen and then cleared
    /// (always false for a batch read, and for a key the read never saw).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retracted: bool,
}

/// A commit that had a compaction due and whose COMPACT half is not in the table: its changelog is lost,
/// even if a later compaction heals the final values.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct LostCompactHalf {
    /// Commit user.
    pub commit_user: String,
    /// Commit identifier (`i64::MAX`: the end of input).
    pub identifier: i64,
    /// The commit's APPEND snapshot.
    pub append_snapshot: i64,
}

/// `truth.json` of a Flink corpus.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FlinkTruth {
    /// The source, as the scenario gave it.
    pub input: FlinkSource,
    /// Records per producer (random ones, then one final record per key).
    pub records_per_producer: Vec<i64>,
    /// The final rows of the input, by key (keys that end deleted left out).
    pub final_rows: Vec<FlinkRow>,
    /// Keys whose final record is a deletion.
    pub deleted_keys: Vec<i32>,
    /// Keys where the released reader's batch read of the latest snapshot differs from `final_rows`: data
    /// lost (or resurrected) in the table itself.
    pub batch_differences: Vec<KeyDifference>,
    /// Keys whose final value never reaches a stream from snapshot 1 (the released reader's changelog
    /// folded per key: `+I`/`+U` set the key, `-U`/`-D` clear it): what a consumer waits for forever.
    pub stream_differences: Vec<KeyDifference>,
    /// The table's changelog producer and, for `full-compaction`, its `full-compaction.delta-commits`.
    pub changelog_producer: String,
    /// `full-compaction.delta-commits` (1 unless set).
    pub delta_commits: i64,
    /// Commits (user, identifier) with an APPEND snapshot and a compaction due: every one under `lookup`;
    /// under `full-compaction` those whose identifier is a multiple of `delta_commits`, and the end of input.
    pub compactions_due: usize,
    /// Those of them without a COMPACT snapshot of the same user and identifier.
    pub lost_compact_halves: Vec<LostCompactHalf>,
    /// Commit user of each producer's job (`producer-<p>` -> the user its snapshots carry).
    pub commit_users: BTreeMap<String, String>,
    /// Failovers per producer, random failures fired and the targeted failure, from the failure log.
    pub job: serde_json::Value,
    /// Changelog files (paths relative to the corpus directory) that the task attempt aborted by the failure
    /// while writing created and left in the table, never committed: the restarted job re-processed their
    /// input. From the job's failure log (`while_writing.files_of_aborted_attempt`), those still in the table.
    #[serde(default)]
    pub aborted_attempts: Vec<String>,
}

fn column<T: 'static>(batch: &RecordBatch, i: usize) -> Result<&T> {
    batch
        .columns()
        .get(i)
        .and_then(|c| c.as_any().downcast_ref::<T>())
        .ok_or_else(|| {
            Error::Scenario(format!(
                "a Flink table's rows are (kind, k INT, producer INT, seq BIGINT, v BIGINT); column {i} is not"
            ))
        })
}

/// Folds the rows of `splits` per key, in order: `+I`/`+U` set the key, `-U`/`-D` clear it. Also returns the
/// keys whose last event was a retraction.
fn fold(
    stock: &StockTableReader,
    table: &Path,
    splits: &[PlannedSplit],
) -> Result<(BTreeMap<i32, FlinkRow>, BTreeSet<i32>)> {
    let mut state = BTreeMap::new();
    let mut retracted = BTreeSet::new();
    for split in splits {
        for batch in stock.read_split(table, split)? {
            let batch = batch?;
            let kind = column::<Int8Array>(&batch, 0)?;
            let k = column::<Int32Array>(&batch, 1)?;
            let producer = column::<Int32Array>(&batch, 2)?;
            let seq = column::<Int64Array>(&batch, 3)?;
            let v = column::<Int64Array>(&batch, 4)?;
            for r in 0..batch.num_rows() {
                let row = FlinkRow {
                    k: k.value(r),
                    producer: producer.value(r),
                    seq: seq.value(r),
                    v: v.value(r),
                };
                match RowKind::from_byte(kind.value(r)) {
                    Some(RowKind::Insert | RowKind::UpdateAfter) => {
                        state.insert(row.k, row);
                        retracted.remove(&row.k);
                    }
                    _ => {
                        state.remove(&row.k);
                        retracted.insert(row.k);
                    }
                }
            }
        }
    }
    Ok((state, retracted))
}

fn differences(
    expected: &BTreeMap<i32, Option<FlinkRow>>,
    actual: &BTreeMap<i32, FlinkRow>,
    retracted: &BTreeSet<i32>,
) -> Vec<KeyDifference> {
    let keys: BTreeSet<i32> = expected.keys().chain(actual.keys()).copied().collect();
    keys.into_iter()
        .filter_map(|k| {
            let e = expected.get(&k).copied().flatten();
            let a = actual.get(&k).copied();
            (e != a).then_some(KeyDifference {
                k,
                expected: e,
                actual: a,
                retracted: retracted.contains(&k),
            })
        })
        .collect()
}

/// The commits with a compaction due and no durable COMPACT half, and how many had one due.
pub fn lost_compact_halves(
    snapshots: &[SnapshotSummary],
    changelog_producer: &str,
    delta_commits: i64,
) -> (usize, Vec<LostCompactHalf>) {
    let compacted: BTreeSet<(&str, i64)> = snapshots
        .iter()
        .filter(|s| s.commit_kind == "COMPACT")
        .map(|s| (s.commit_user.as_str(), s.commit_identifier))
        .collect();
    let mut due = 0;
    let mut lost = Vec::new();
    for s in snapshots.iter().filter(|s| s.commit_kind == "APPEND") {
        let id = s.commit_identifier;
        let is_due = match changelog_producer {
            "lookup" => true,
            "full-compaction" => id == i64::MAX || id % delta_commits.max(1) == 0,
            _ => false,
        };
        if !is_due {
            continue;
        }
        due += 1;
        if !compacted.contains(&(s.commit_user.as_str(), id)) {
            lost.push(LostCompactHalf {
                commit_user: s.commit_user.clone(),
                identifier: id,
                append_snapshot: s.id,
            });
        }
    }
    (due, lost)
}

/// Computes `truth.json` of the Flink table at `table` written from `source`, with the table's latest
/// `options`, its `snapshots`, the job's failure log `job` and the changelog files an aborted attempt left
/// (`aborted_attempts`, from the failure log).
///
/// Errors: the released reader fails, or the rows are not of a Flink table's shape.
pub fn truth(
    stock: &StockTableReader,
    table: &Path,
    source: &FlinkSource,
    options: &serde_json::Value,
    snapshots: &[SnapshotSummary],
    job: serde_json::Value,
    aborted_attempts: Vec<String>,
) -> Result<FlinkTruth> {
    let expected = source.final_state();
    let latest = snapshots.last().map_or(0, |s| s.id);
    let batch_splits = stock.plan(
        table,
        ScanMode::Batch {
            snapshot: Some(latest),
        },
        latest,
    )?;
    let (batch, _) = fold(stock, table, &batch_splits)?;
    let (stream, retracted) = fold(stock, table, &stock.plan_stream(table, 1, latest)?)?;
    let changelog_producer = options
        .get("changelog-producer")
        .and_then(|v| v.as_str())
        .unwrap_or("none")
        .to_owned();
    let delta_commits = options
        .get("full-compaction.delta-commits")
        .and_then(|v| v.as_str())
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let (compactions_due, lost_compact_halves) =
        lost_compact_halves(snapshots, &changelog_producer, delta_commits);
    let mut commit_users = BTreeMap::new();
    for s in snapshots {
        if let Some((prefix, _)) = s.commit_user.split_once('_') {
            commit_users.insert(prefix.to_owned(), s.commit_user.clone());
        }
    }
    Ok(FlinkTruth {
        input: source.clone(),
        records_per_producer: (0..source.producers as i32)
            .map(|p| source.records + source.own_keys(p))
            .collect(),
        final_rows: expected.values().filter_map(|r| *r).collect(),
        deleted_keys: expected
            .iter()
            .filter(|(_, r)| r.is_none())
            .map(|(k, _)| *k)
            .collect(),
        batch_differences: differences(&expected, &batch, &BTreeSet::new()),
        stream_differences: differences(&expected, &stream, &retracted),
        changelog_producer,
        delta_commits,
        compactions_due,
        lost_compact_halves,
        commit_users,
        job,
        aborted_attempts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(producers: u32) -> FlinkSource {
        FlinkSource {
            keys: 10,
            records: 50,
            seed: 7,
            producers,
            rate_per_second: 100.0,
        }
    }

    #[test]
    fn producers_own_disjoint_keys_and_end_with_one_record_per_key() {
        let s = source(3);
        assert_eq!([s.own_keys(0), s.own_keys(1), s.own_keys(2)], [4, 3, 3]);
        for p in 0..3 {
            let all: Vec<_> = s.records_of(p).collect();
            assert_eq!(all.len() as i64, 50 + s.own_keys(p));
            assert!(all.iter().all(|r| r.row.k % 3 == p && r.row.k < 10));
            let tail: Vec<i32> = all[50..].iter().map(|r| r.row.k).collect();
            let want: Vec<i32> = (0..s.own_keys(p) as i32).map(|j| p + 3 * j).collect();
            assert_eq!(tail, want);
        }
        assert_eq!(s.final_state().len(), 10);
    }

    #[test]
    fn the_hash_is_splitmix64() {
        // SplitMix64's first output for seed 0 (its published reference value).
        assert_eq!(mix(0), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn a_missing_compact_half_is_lost_only_when_compaction_was_due() {
        let snap = |id, kind: &str, ident| SnapshotSummary {
            id,
            commit_kind: kind.into(),
            commit_user: "producer-0_u".into(),
            commit_identifier: ident,
            schema_id: 0,
        };
        let snapshots = vec![
            snap(1, "APPEND", 1),
            snap(2, "APPEND", 2),
            snap(3, "APPEND", 3),
            snap(4, "COMPACT", 3),
            snap(5, "APPEND", i64::MAX),
        ];
        let (due, lost) = lost_compact_halves(&snapshots, "full-compaction", 3);
        assert_eq!(due, 2);
        assert_eq!(
            lost,
            vec![LostCompactHalf {
                commit_user: "producer-0_u".into(),
                identifier: i64::MAX,
                append_snapshot: 5
            }]
        );
        let (due, lost) = lost_compact_halves(&snapshots, "lookup", 1);
        assert_eq!((due, lost.len()), (4, 3));
        assert_eq!(lost_compact_halves(&snapshots, "input", 1), (0, vec![]));
    }
}
