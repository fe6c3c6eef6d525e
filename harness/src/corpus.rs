//! `paimon-parity corpus generate`: writes a retained table with the **released** Paimon writer (through
//! `jvm-bridge`'s `CorpusWriter`) and records its `case.json`.
//!
//! The scenarios are built in for now (declarative scenario files come with the corpora issue). Each one
//! is deterministic: the same scenario gives the same rows and the same commit sequence (file names and
//! times differ from run to run, as the writer picks them).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Value};

use crate::diff::RowCounts;
use crate::error::{Error, Result};
use crate::reader::{StockTableReader, TableReader};

/// A built-in scenario: a table definition and a list of steps.
pub struct Scenario {
    /// Short name, also the corpus directory name.
    pub name: &'static str,
    /// What the corpus is and why it exists.
    pub description: &'static str,
    /// `{"fields": [...], "partitionKeys": [...], "primaryKeys": [...], "options": {...}}`.
    pub schema: Value,
    /// The writes, in order.
    pub steps: Vec<Step>,
}

/// One step of a scenario.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "step", rename_all = "kebab-case")]
pub enum Step {
    /// Write rows as `[{"kind": "+I", "values": [...]}, ...]` (values in column order).
    Write { rows: Value },
    /// Compact one (partition, bucket); `full` for a full compaction.
    Compact {
        partition: Value,
        bucket: i32,
        full: bool,
    },
    /// `prepareCommit(wait_compaction, identifier)` then `commit(identifier, ...)`.
    Commit {
        identifier: i64,
        wait_compaction: bool,
    },
}

/// The names of the built-in scenarios.
pub fn scenario_names() -> Vec<&'static str> {
    vec![C00_CONTROL, LOOKUP_PARTITIONED]
}

/// C00 of `shared/cases`, control run: two commits of one key with full compaction.
pub const C00_CONTROL: &str = "c00-full-compaction-control";
/// A partitioned primary-key table with lookup changelog, 4 buckets, 3 partitions, 12 commits.
pub const LOOKUP_PARTITIONED: &str = "lookup-partitioned";

/// Commit user of every built-in scenario.
pub const COMMIT_USER: &str = "paimon-parity-corpus";

/// Looks a built-in scenario up by name.
pub fn scenario(name: &str) -> Result<Scenario> {
    match name {
        C00_CONTROL => Ok(c00_control()),
        LOOKUP_PARTITIONED => Ok(lookup_partitioned()),
        other => Err(Error::Scenario(format!(
            "unknown scenario `{other}`; built-in scenarios: {}",
            scenario_names().join(", ")
        ))),
    }
}

fn c00_control() -> Scenario {
    let unpartitioned = json!([]);
    let mut steps = Vec::new();
    for (id, v) in [(1, 10), (2, 20)] {
        steps.push(Step::Write {
            rows: json!([{"kind": "+I", "values": [1, v]}]),
        });
        steps.push(Step::Compact {
            partition: unpartitioned.clone(),
            bucket: 0,
            full: true,
        });
        steps.push(Step::Commit {
            identifier: id,
            wait_compaction: true,
        });
    }
    Scenario {
        name: C00_CONTROL,
        description: "C00 control (no fault): (k INT, v INT), primary key k, bucket=1, \
            changelog-producer=full-compaction. Commit 1 writes +I (1,10) with a full compaction, commit 2 \
            writes +I (1,20) with a full compaction. The streaming changelog from snapshot 1 is +I (1,10), \
            then -U (1,10), +U (1,20); the latest snapshot is COMPACT.",
        schema: json!({
            "fields": [
                {"name": "k", "type": "INT NOT NULL"},
                {"name": "v", "type": "INT"}
            ],
            "partitionKeys": [],
            "primaryKeys": ["k"],
            "options": {
                "bucket": "1",
                "changelog-producer": "full-compaction",
                "file.format": "parquet",
                "snapshot.num-retained.min": "1000",
                "snapshot.num-retained.max": "1000"
            }
        }),
        steps,
    }
}

/// A small deterministic generator (SplitMix64), so that scenarios do not depend on a crate's stream.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn lookup_partitioned() -> Scenario {
    let partitions = ["p0", "p1", "p2"];
    let keys_per_partition = 16;
    let commits = 12;
    let mut rng = SplitMix64(20_261_129);
    // Current value of each (partition, key), to write updates and deletes of rows that exist.
    let mut live: BTreeMap<(usize, i32), (i64, String)> = BTreeMap::new();
    let mut steps = Vec::new();
    for commit in 1..=commits {
        let mut rows = Vec::new();
        let mut touched = std::collections::BTreeSet::new();
        let ops = 10 + rng.below(10) as usize;
        for _ in 0..ops {
            let p = rng.below(partitions.len() as u64) as usize;
            let k = rng.below(keys_per_partition) as i32;
            if !touched.insert((p, k)) {
                continue;
            }
            let v1 = commit * 1000 + rng.below(1000) as i64;
            let v2 = format!("c{commit}-{}-{k}", partitions[p]);
            match live.get(&(p, k)).cloned() {
                None => {
                    rows.push(json!({"kind": "+I", "values": [partitions[p], k, v1, v2]}));
                    live.insert((p, k), (v1, v2));
                }
                Some((old1, old2)) => {
                    if rng.below(4) == 0 {
                        rows.push(json!({"kind": "-D", "values": [partitions[p], k, old1, old2]}));
                        live.remove(&(p, k));
                    } else {
                        rows.push(json!({"kind": "+U", "values": [partitions[p], k, v1, v2]}));
                        live.insert((p, k), (v1, v2));
                    }
                }
            }
        }
        steps.push(Step::Write {
            rows: Value::Array(rows),
        });
        steps.push(Step::Commit {
            identifier: commit,
            wait_compaction: true,
        });
    }
    Scenario {
        name: LOOKUP_PARTITIONED,
        description: "A partitioned primary-key table (pt STRING, k INT, v1 BIGINT, v2 STRING), primary key \
            (pt, k), partitioned by pt, 4 buckets, changelog-producer=lookup, deletion vectors off, parquet. \
            One commit user writes 12 commits of seeded inserts, updates (+U) and deletes (-D) over 3 \
            partitions x 16 keys, waiting for compaction at each commit so that lookup changelog lands in \
            COMPACT snapshots.",
        schema: json!({
            "fields": [
                {"name": "pt", "type": "STRING NOT NULL"},
                {"name": "k", "type": "INT NOT NULL"},
                {"name": "v1", "type": "BIGINT"},
                {"name": "v2", "type": "STRING"}
            ],
            "partitionKeys": ["pt"],
            "primaryKeys": ["pt", "k"],
            "options": {
                "bucket": "4",
                "changelog-producer": "lookup",
                "deletion-vectors.enabled": "false",
                "file.format": "parquet",
                "snapshot.num-retained.min": "1000",
                "snapshot.num-retained.max": "1000"
            }
        }),
        steps,
    }
}

/// One snapshot of the written table, from its own snapshot file.
#[derive(Clone, Debug, Serialize)]
pub struct SnapshotSummary {
    /// Snapshot id.
    pub id: i64,
    /// `APPEND`, `COMPACT`, `OVERWRITE` or `ANALYZE`.
    pub commit_kind: String,
    /// Commit user.
    pub commit_user: String,
    /// Commit identifier.
    pub commit_identifier: i64,
}

/// What the stock reader returns for one split of the streaming replay from snapshot 1.
#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct StockSplitSummary {
    /// Snapshot of the split.
    pub snapshot_id: i64,
    /// Partition values (legacy rendering, NULL as null).
    pub partition: Vec<Option<String>>,
    /// Bucket.
    pub bucket: i32,
    /// Data (changelog) files in the split.
    pub files: usize,
    /// Rows per RowKind, `[+I, -U, +U, -D]`.
    pub rows: [u64; 4],
}

/// What the stock reader returns from snapshot 1: the `expected` part of `case.json`.
#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct StockSummary {
    /// Number of splits.
    pub splits: usize,
    /// Rows per RowKind over all splits, `[+I, -U, +U, -D]`.
    pub rows: [u64; 4],
    /// Per split, in plan order.
    pub per_split: Vec<StockSplitSummary>,
}

fn kinds(c: &RowCounts) -> [u64; 4] {
    [c.insert, c.update_before, c.update_after, c.delete]
}

/// Replays `table` from snapshot 1 with the stock reader only and summarizes splits and rows per RowKind.
pub fn stock_summary(stock: &StockTableReader, table: &Path) -> Result<StockSummary> {
    let meta = native_reader::Table::open(table)?;
    let end = meta.latest_snapshot_id()?.ok_or_else(|| Error::Table {
        path: table.join("snapshot"),
        reason: "the table has no snapshot".into(),
    })?;
    let splits = stock.plan_stream(table, 1, end)?;
    let mut total = RowCounts::default();
    let mut per_split = Vec::with_capacity(splits.len());
    for s in &splits {
        let mut c = RowCounts::default();
        for batch in stock.read_split(table, s)? {
            let batch = batch?;
            if let Some(k) = batch
                .columns()
                .first()
                .and_then(|a| a.as_any().downcast_ref::<arrow_array::Int8Array>())
            {
                c.add_kinds(k);
            }
        }
        total.add(&c);
        per_split.push(StockSplitSummary {
            snapshot_id: s.split.snapshot_id,
            partition: s.split.partition.clone(),
            bucket: s.split.bucket,
            files: s.split.data_files.len(),
            rows: kinds(&c),
        });
    }
    Ok(StockSummary {
        splits: splits.len(),
        rows: kinds(&total),
        per_split,
    })
}

/// Generates scenario `name` into `out` (the corpus directory): `out/table/` is the Paimon table,
/// `out/scenario.json` the steps, `out/case.json` the description and the stock reader's summary.
///
/// Errors: `out/table` already exists (never overwritten), the writer or the stock reader fails.
pub fn generate(name: &str, out: &Path) -> Result<PathBuf> {
    let scenario = scenario(name)?;
    let table = out.join("table");
    if table.exists() {
        return Err(Error::Scenario(format!(
            "{} already exists; remove it first to regenerate",
            table.display()
        )));
    }
    let io = |path: &Path, e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    std::fs::create_dir_all(out).map_err(|e| io(out, e))?;
    let tmp = std::env::temp_dir().join(format!("paimon-parity-io-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| io(&tmp, e))?;

    jvm_bridge::CorpusWriter::create_table(&table, &scenario.schema.to_string())?;
    let writer = jvm_bridge::CorpusWriter::open(&table, COMMIT_USER, &tmp)?;
    for step in &scenario.steps {
        match step {
            Step::Write { rows } => writer.write(&rows.to_string())?,
            Step::Compact {
                partition,
                bucket,
                full,
            } => writer.compact(&partition.to_string(), *bucket, *full)?,
            Step::Commit {
                identifier,
                wait_compaction,
            } => writer.commit(*identifier, *wait_compaction)?,
        }
    }
    writer.close()?;
    let _ = std::fs::remove_dir_all(&tmp);

    let table = std::fs::canonicalize(&table).map_err(|e| io(&table, e))?;
    let stock = StockTableReader::new()?;
    let expected = stock_summary(&stock, &table)?;
    let meta = native_reader::Table::open(&table)?;
    let latest = meta.latest_snapshot_id()?.unwrap_or(0);
    let mut snapshots = Vec::new();
    for id in 1..=latest {
        let s = meta.snapshot(id)?;
        snapshots.push(SnapshotSummary {
            id,
            commit_kind: format!("{:?}", s.commit_kind).to_uppercase(),
            commit_user: s.commit_user.clone(),
            commit_identifier: s.commit_identifier,
        });
    }
    let case = json!({
        "name": scenario.name,
        "description": scenario.description,
        "paimon_version": stock.bridge().paimon_version()?,
        "written_by": "org.apache.paimon:paimon-bundle (released), through jvm-bridge CorpusWriter",
        "table": "table",
        "schema": scenario.schema,
        "snapshots": snapshots,
        "expected": {
            "stream_from_snapshot_1": expected,
        },
    });
    let steps = serde_json::to_string_pretty(&scenario.steps)
        .map_err(|e| Error::Scenario(e.to_string()))?;
    let scenario_path = out.join("scenario.json");
    std::fs::write(&scenario_path, steps + "\n").map_err(|e| io(&scenario_path, e))?;
    let case_path = out.join("case.json");
    let text = serde_json::to_string_pretty(&case).map_err(|e| Error::Scenario(e.to_string()))?;
    std::fs::write(&case_path, text + "\n").map_err(|e| io(&case_path, e))?;
    Ok(case_path)
}
