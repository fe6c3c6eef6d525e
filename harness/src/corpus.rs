//! `paimon-parity corpus`: writes retained tables with the **released** Paimon writer (through `jvm-bridge`'s
//! `CorpusWriter`) from declarative scenario files, and records what the released reader returns in
//! `case.json`.
//!
//! A scenario (`corpora/<name>/scenario.json`, format in `corpora/README.md`) names a table (columns, keys,
//! options) and steps in order: writes with RowKinds as a named commit user, compactions, commits with an
//! identifier, schema changes, faults armed at exact points of the commit protocol, recoveries the way a
//! restarted job does them, and seeded random bursts. Every scenario is deterministic: the same file gives the
//! same rows, the same commit sequence and the same `case.json` (file names and times differ from run to run,
//! as the writer picks them, and are not recorded). Expectations in the scenario (a commit must fail with a
//! given message, a prepared commit must carry compaction changelog, a recovery must commit N identifiers,
//! an armed fault must fire) make generation fail when a scenario stops reproducing its situation.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::diff::{render_row, RowCounts};
use crate::error::{Error, Result};
use crate::reader::{StockTableReader, TableReader};
use native_reader::scan::ScanMode;

/// Commit user of steps that name none.
pub const DEFAULT_USER: &str = "paimon-parity-corpus";
/// The commit user of an `overwrite` step when it names none (the released `BatchWriteBuilderImpl` would pick a
/// random UUID, which would make `case.json` irreproducible).
pub const DEFAULT_OVERWRITE_USER: &str = "paimon-parity-overwrite";

/// Streams or batches with at most this many rows are recorded row by row in `case.json`.
pub const MAX_RECORDED_ROWS: u64 = 1024;

/// A scenario file: a table definition and a list of steps.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short name, also the corpus directory name.
    pub name: String,
    /// What the corpus is and why it exists.
    pub description: String,
    /// The Paimon release that must write this corpus (e.g. `1.0.0`); any when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paimon_version: Option<String>,
    /// The table.
    pub table: TableSpec,
    /// Dynamic table options per commit user, for that user's writer only (`table.copy(options)`), e.g.
    /// `{"writer-a": {"data-file.prefix": "data-1-"}}`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub writer_options: BTreeMap<String, BTreeMap<String, String>>,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// The table of a scenario, in the JSON shape `jvm-bridge`'s `CorpusWriter::create_table` takes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    /// Columns in order.
    pub fields: Vec<FieldSpec>,
    /// Partition keys.
    #[serde(default, rename = "partitionKeys")]
    pub partition_keys: Vec<String>,
    /// Primary key (empty: an append table).
    #[serde(default, rename = "primaryKeys")]
    pub primary_keys: Vec<String>,
    /// Table options (`bucket`, `changelog-producer`, `merge-engine`, `deletion-vectors.enabled`,
    /// `file.format`, `sequence.field`, ...).
    #[serde(default)]
    pub options: BTreeMap<String, String>,
}

/// One column.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldSpec {
    /// Column name.
    pub name: String,
    /// Paimon SQL type string (`INT NOT NULL`, `DECIMAL(38, 0)`, `TIMESTAMP(9)`), or Paimon's JSON form of a
    /// type for ARRAY / MAP / ROW.
    #[serde(rename = "type")]
    pub data_type: Value,
}

/// One row to write: its RowKind (`+I`, `-U`, `+U`, `-D`) and its values in column order.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowSpec {
    /// `+I`, `-U`, `+U` or `-D`.
    pub kind: String,
    /// Values in column order (see `jvm_bridge::corpus` for the JSON form of each type).
    pub values: Vec<Value>,
}

/// One step of a scenario.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Step {
    /// Write rows as commit user `user` (`StreamTableWrite.write`); they are buffered until the user's next
    /// commit.
    Write {
        /// Commit user (default [`DEFAULT_USER`]).
        #[serde(default = "default_user")]
        user: String,
        /// The rows.
        rows: Vec<RowSpec>,
    },
    /// Ask user `user`'s writer for a compaction (`StreamTableWrite.compact`): of one (partition, bucket), or
    /// with `touched` of every (partition, bucket) it wrote since its last commit. Committed by its next commit.
    Compact {
        /// Commit user (default [`DEFAULT_USER`]).
        #[serde(default = "default_user")]
        user: String,
        /// Partition key values (`[]` for an unpartitioned table); with `bucket`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partition: Option<Vec<Value>>,
        /// Bucket; with `partition`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bucket: Option<i32>,
        /// Every (partition, bucket) written since the last commit instead of one.
        #[serde(default)]
        touched: bool,
        /// Full compaction.
        #[serde(default)]
        full: bool,
    },
    /// `prepareCommit(wait_compaction, identifier)` then `commit(identifier, ...)` as user `user`.
    Commit {
        /// Commit user (default [`DEFAULT_USER`]).
        #[serde(default = "default_user")]
        user: String,
        /// Commit identifier; strictly increasing per user.
        identifier: i64,
        /// Wait for compaction in `prepareCommit` (default true, which keeps the corpus deterministic).
        #[serde(default = "yes")]
        wait_compaction: bool,
        /// The commit must fail with an error whose message contains this text (an armed fault, a conflict).
        /// Its messages then stay pending for a `recover` step.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expect_error: Option<String>,
        /// The prepared commit must (true) or must not (false) carry compaction changelog files.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expect_compact_changelog: Option<bool>,
    },
    /// Change the schema (`SchemaManager.commitChanges`): `{"op":"add-column","name":..,"type":..}`,
    /// `{"op":"rename-column","from":..,"to":..}`, `{"op":"drop-column","name":..}`,
    /// `{"op":"update-column-type","name":..,"type":..}` (`SchemaChange.updateColumnType`),
    /// `{"op":"set-option","key":..,"value":..}`, `{"op":"remove-option","key":..}`. Open writers are reopened.
    Alter {
        /// The changes, applied together.
        changes: Vec<Value>,
    },
    /// Arm a fault that fires once at an exact point: `manifest-read-after-snapshot` (the first manifest read
    /// after the next snapshot is published fails: a commit's APPEND snapshot is durable, its COMPACT snapshot
    /// is never written) or `callback-after-append` (a commit callback throws after the next APPEND snapshot).
    ArmFault {
        /// The fault's name.
        fault: String,
    },
    /// What a restarted job does after a failed commit: rebuild user `user`'s writer and committer (same
    /// commit user) and `filterAndCommit` its pending identifiers.
    Recover {
        /// Commit user (default [`DEFAULT_USER`]).
        #[serde(default = "default_user")]
        user: String,
        /// How many identifiers `filterAndCommit` must report committed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expect_committed: Option<i32>,
    },
    /// Rebuild user `user`'s writer and committer (same commit user), which then restore from the latest
    /// snapshot, as a job restarted from a successful checkpoint does.
    Reopen {
        /// Commit user (default [`DEFAULT_USER`]).
        #[serde(default = "default_user")]
        user: String,
    },
    /// One batch overwrite through the released batch write path
    /// (`newBatchWriteBuilder().withOverwrite(partition)`, write, `prepareCommit()`, `commit(messages)`): an
    /// OVERWRITE snapshot replacing the files of the overwritten partitions with the rows, identifier
    /// `BatchWriteBuilder.COMMIT_IDENTIFIER` (`i64::MAX`). Other users' writers are marked stale.
    Overwrite {
        /// Commit user (default [`DEFAULT_OVERWRITE_USER`]); its `writer_options` apply.
        #[serde(default = "default_overwrite_user")]
        user: String,
        /// Static partition values for the first partition keys (absent: the whole table). With
        /// `dynamic-partition-overwrite=true` (the default) only partitions the rows touch are replaced.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partition: Option<Vec<Value>>,
        /// The rows.
        rows: Vec<RowSpec>,
    },
    /// Record a batch read of the latest snapshot at this point in `case.json`.
    ReadBatch,
    /// A seeded random burst of commits.
    Random(RandomBurst),
}

/// A seeded random burst: users own disjoint key ranges in every partition and take turns (at random) writing
/// inserts, updates (`+U`) and deletes (`-D`) of their keys, one commit per turn.
///
/// The table must have exactly one primary-key column outside the partition keys, of type INT or BIGINT (the
/// key), and other columns of type INT, BIGINT or STRING (filled with generated values).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomBurst {
    /// Seed of the generator (SplitMix64).
    pub seed: u64,
    /// Commit users (default: [`DEFAULT_USER`] alone). User `i` owns keys `[key_base + i*keys, key_base + (i+1)*keys)`.
    #[serde(default = "default_users")]
    pub users: Vec<String>,
    /// Partitions: each a JSON array of partition key values (a scalar for one partition key). Empty for an
    /// unpartitioned table.
    #[serde(default)]
    pub partitions: Vec<Value>,
    /// Keys per user and partition.
    pub keys: u32,
    /// First key.
    #[serde(default)]
    pub key_base: i64,
    /// Before the random commits, every user inserts all its keys in one commit.
    #[serde(default)]
    pub fill: bool,
    /// Random commits (after the fill).
    pub commits: u32,
    /// Rows per random commit, `[min, max]`.
    #[serde(default = "default_rows_per_commit")]
    pub rows_per_commit: [u32; 2],
    /// Of the rows that touch a live key, the share that update it.
    pub update_ratio: f64,
    /// Of the rows that touch a live key, the share that delete it (the rest leave it alone).
    pub delete_ratio: f64,
    /// Before each commit, compact the (partition, bucket)s written: `none` (default), `touched`, or
    /// `touched-full` (what `changelog-producer=full-compaction` needs with the Java API).
    #[serde(default = "default_compact")]
    pub compact: String,
    /// Reopen a user's writer before its turn when another user committed since its last commit (default
    /// true), so that each writer compacts files that still exist.
    #[serde(default = "yes")]
    pub reopen_on_switch: bool,
}

fn default_user() -> String {
    DEFAULT_USER.to_owned()
}
fn default_overwrite_user() -> String {
    DEFAULT_OVERWRITE_USER.to_owned()
}
fn default_users() -> Vec<String> {
    vec![default_user()]
}
fn yes() -> bool {
    true
}
fn default_rows_per_commit() -> [u32; 2] {
    [8, 24]
}
fn default_compact() -> String {
    "none".to_owned()
}

/// One snapshot of the written table, from its own snapshot file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct SnapshotSummary {
    /// Snapshot id.
    pub id: i64,
    /// `APPEND`, `COMPACT`, `OVERWRITE` or `ANALYZE`.
    pub commit_kind: String,
    /// Commit user.
    pub commit_user: String,
    /// Commit identifier.
    pub commit_identifier: i64,
    /// Schema id.
    pub schema_id: i64,
}

/// What the stock reader returns for one split of the streaming replay from snapshot 1.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
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
    /// The rows, rendered (`+U (1, 20)`), when the whole replay has at most [`MAX_RECORDED_ROWS`] rows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

/// What the stock reader returns from snapshot 1: the `expected.stream_from_snapshot_1` part of `case.json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct StockSummary {
    /// Number of splits.
    pub splits: usize,
    /// Rows per RowKind over all splits, `[+I, -U, +U, -D]`.
    pub rows: [u64; 4],
    /// Per split, in plan order.
    pub per_split: Vec<StockSplitSummary>,
}

/// What a batch read of one snapshot returns through the stock reader.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct BatchSummary {
    /// The snapshot read.
    pub snapshot_id: i64,
    /// Number of splits of the batch plan.
    pub splits: usize,
    /// Rows per RowKind, `[+I, -U, +U, -D]`.
    pub rows: [u64; 4],
    /// The rows, rendered and sorted, when there are at most [`MAX_RECORDED_ROWS`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

fn kinds(c: &RowCounts) -> [u64; 4] {
    [c.insert, c.update_before, c.update_after, c.delete]
}

fn count_batch(c: &mut RowCounts, batch: &arrow_array::RecordBatch) {
    if let Some(k) = batch
        .columns()
        .first()
        .and_then(|a| a.as_any().downcast_ref::<arrow_array::Int8Array>())
    {
        c.add_kinds(k);
    }
}

/// The latest snapshot id of `table` as the released reader sees it.
fn latest_snapshot(stock: &StockTableReader, table: &Path) -> Result<i64> {
    stock
        .bridge()
        .latest_snapshot_id(table)?
        .ok_or_else(|| Error::Table {
            path: table.join("snapshot"),
            reason: "the table has no snapshot".into(),
        })
}

/// Replays `table` from snapshot 1 with the stock reader only and summarizes splits and rows per RowKind
/// (and the rows themselves when there are at most [`MAX_RECORDED_ROWS`]).
pub fn stock_summary(stock: &StockTableReader, table: &Path) -> Result<StockSummary> {
    let end = latest_snapshot(stock, table)?;
    let splits = stock.plan_stream(table, 1, end)?;
    let mut total = RowCounts::default();
    let mut per_split = Vec::with_capacity(splits.len());
    for s in &splits {
        let mut c = RowCounts::default();
        let mut values = Vec::new();
        for batch in stock.read_split(table, s)? {
            let batch = batch?;
            count_batch(&mut c, &batch);
            if total.total() + c.total() <= MAX_RECORDED_ROWS {
                values.extend((0..batch.num_rows()).map(|r| render_row(&batch, r)));
            }
        }
        total.add(&c);
        per_split.push(StockSplitSummary {
            snapshot_id: s.split.snapshot_id,
            partition: s.split.partition.clone(),
            bucket: s.split.bucket,
            files: s.split.data_files.len(),
            rows: kinds(&c),
            values,
        });
    }
    if total.total() > MAX_RECORDED_ROWS {
        for s in &mut per_split {
            s.values.clear();
        }
    }
    Ok(StockSummary {
        splits: splits.len(),
        rows: kinds(&total),
        per_split,
    })
}

/// Reads snapshot `snapshot` of `table` (the latest when `None`) with a batch scan of the released reader
/// (merged rows of a primary-key table) and summarizes it.
pub fn batch_summary(
    stock: &StockTableReader,
    table: &Path,
    snapshot: Option<i64>,
) -> Result<BatchSummary> {
    let snapshot_id = match snapshot {
        Some(id) => id,
        None => latest_snapshot(stock, table)?,
    };
    let splits = stock.plan(
        table,
        ScanMode::Batch {
            snapshot: Some(snapshot_id),
        },
        snapshot_id,
    )?;
    let mut counts = RowCounts::default();
    let mut values = Vec::new();
    for split in &splits {
        for batch in stock.read_split(table, split)? {
            let batch = batch?;
            count_batch(&mut counts, &batch);
            if counts.total() <= MAX_RECORDED_ROWS {
                values.extend((0..batch.num_rows()).map(|r| render_row(&batch, r)));
            }
        }
    }
    if counts.total() > MAX_RECORDED_ROWS {
        values.clear();
    }
    values.sort();
    Ok(BatchSummary {
        snapshot_id,
        splits: splits.len(),
        rows: kinds(&counts),
        values,
    })
}

/// Reads a scenario file.
///
/// Errors: [`Error::Io`] (unreadable), [`Error::Scenario`] (not a valid scenario: unknown step or field,
/// missing field, wrong type).
pub fn load_scenario(path: &Path) -> Result<Scenario> {
    let bytes = std::fs::read(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    serde_json::from_slice(&bytes).map_err(|e| Error::Scenario(format!("{}: {e}", path.display())))
}

/// The workspace's `corpora/` directory.
pub fn corpora_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("corpora")
}

/// Finds a scenario file from a command-line argument: a scenario file, a directory holding `scenario.json`,
/// or the name of a corpus (`corpora/<name>/scenario.json`, relative to the current directory, then to the
/// workspace).
///
/// Errors: [`Error::Scenario`] naming the places looked at.
pub fn resolve_scenario(arg: &str) -> Result<PathBuf> {
    let direct = PathBuf::from(arg);
    let mut candidates = vec![direct.clone(), direct.join("scenario.json")];
    if !arg.contains('/') {
        candidates.push(Path::new("corpora").join(arg).join("scenario.json"));
        candidates.push(corpora_dir().join(arg).join("scenario.json"));
    }
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| {
            Error::Scenario(format!(
                "no scenario `{arg}`; looked at {}",
                candidates
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
}

/// Every scenario file under `corpora` (`<corpora>/<name>/scenario.json`), sorted by name.
///
/// Errors: [`Error::Io`] when `corpora` cannot be listed.
pub fn scenario_files(corpora: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(corpora).map_err(|e| Error::Io {
        path: corpora.to_path_buf(),
        source: e,
    })?;
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::Io {
            path: corpora.to_path_buf(),
            source: e,
        })?;
        let file = entry.path().join("scenario.json");
        if file.is_file() {
            out.push(file);
        }
    }
    out.sort();
    Ok(out)
}

/// Generates the scenario in `scenario_file` into `out` (the corpus directory): `out/table/` is the Paimon
/// table, `out/scenario.json` a copy of the scenario, `out/case.json` the description, the snapshots and
/// the stock reader's summary. Returns the path of `case.json`.
///
/// The process's JVM must run the release the scenario names (if it names one); select it with
/// `jvm_bridge::jvm::select_paimon_version` before the JVM starts.
///
/// Errors: `out/table` already exists (never overwritten), the scenario is invalid or stops reproducing its
/// situation (an expectation failed), the writer or the stock reader fails.
pub fn generate(scenario_file: &Path, out: &Path) -> Result<PathBuf> {
    let scenario = load_scenario(scenario_file)?;
    let case = generate_scenario(&scenario, out)?;
    let io = |path: &Path, e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let target = out.join("scenario.json");
    let same = match (
        std::fs::canonicalize(scenario_file),
        std::fs::canonicalize(&target),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same {
        std::fs::copy(scenario_file, &target).map_err(|e| io(&target, e))?;
    }
    let case_path = out.join("case.json");
    let text = serde_json::to_string_pretty(&case).map_err(|e| Error::Scenario(e.to_string()))?;
    std::fs::write(&case_path, text + "\n").map_err(|e| io(&case_path, e))?;
    Ok(case_path)
}

/// Runs `scenario` into `out/table` and returns the `case.json` value (without writing it).
///
/// Errors: as [`generate`].
pub fn generate_scenario(scenario: &Scenario, out: &Path) -> Result<Value> {
    let table = out.join("table");
    if table.exists() {
        return Err(Error::Scenario(format!(
            "{} already exists; remove it first to regenerate",
            table.display()
        )));
    }
    let stock = StockTableReader::new()?;
    let version = stock.bridge().paimon_version()?;
    if let Some(wanted) = &scenario.paimon_version {
        if *wanted != version {
            return Err(Error::Scenario(format!(
                "scenario `{}` must be written by Paimon {wanted}, but this process runs Paimon {version} \
                 (use --paimon-version {wanted})",
                scenario.name
            )));
        }
    }
    let io = |path: &Path, e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    std::fs::create_dir_all(out).map_err(|e| io(out, e))?;
    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let tmp = std::env::temp_dir().join(format!(
        "paimon-parity-io-{}-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        scenario.name
    ));
    std::fs::create_dir_all(&tmp).map_err(|e| io(&tmp, e))?;

    let schema =
        serde_json::to_string(&scenario.table).map_err(|e| Error::Scenario(e.to_string()))?;
    jvm_bridge::CorpusWriter::create_table(&table, &schema)?;
    let table = std::fs::canonicalize(&table).map_err(|e| io(&table, e))?;
    let mut run = Run::new(&table, &tmp, &scenario.table, &stock);
    run.writer_options = scenario.writer_options.clone();
    let outcome = run.steps(&scenario.steps);
    let fired = run.check_faults_fired();
    let closed = run.close();
    let _ = std::fs::remove_dir_all(&tmp);
    outcome?;
    fired?;
    closed?;
    let Run {
        log, batch_reads, ..
    } = run;

    let stream = stock_summary(&stock, &table)
        .map_err(|e| Error::Scenario(format!("stock streaming read: {}", explain(&e))))?;
    let batch = batch_summary(&stock, &table, None)
        .map_err(|e| Error::Scenario(format!("stock batch read: {}", explain(&e))))?;
    let snapshots = snapshot_summaries(&table)?;
    let options = latest_options(&table)?;
    Ok(json!({
        "name": scenario.name,
        "description": scenario.description,
        "paimon_version": version,
        "written_by": "org.apache.paimon:paimon-bundle (released), through jvm-bridge CorpusWriter",
        "table": "table",
        "schema": scenario.table,
        "options": options,
        "snapshots": snapshots,
        "commits": log,
        "expected": {
            "stream_from_snapshot_1": stream,
            "batch_latest": batch,
            "batch_reads": batch_reads,
        },
    }))
}

/// The first place where two JSON values differ, as a path (`expected.batch_latest.rows[2]`) with both
/// values; `None` when they are equal.
pub fn first_json_difference(expected: &Value, actual: &Value) -> Option<String> {
    fn walk(path: &str, a: &Value, b: &Value) -> Option<String> {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for (k, va) in x {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    match y.get(k) {
                        Some(vb) => {
                            if let Some(d) = walk(&p, va, vb) {
                                return Some(d);
                            }
                        }
                        None => return Some(format!("{p}: {va} vs missing")),
                    }
                }
                y.keys()
                    .find(|k| !x.contains_key(*k))
                    .map(|k| format!("{path}.{k}: missing vs {}", y[k]))
            }
            (Value::Array(x), Value::Array(y)) => {
                for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                    if let Some(d) = walk(&format!("{path}[{i}]"), va, vb) {
                        return Some(d);
                    }
                }
                (x.len() != y.len()).then(|| format!("{path}: {} items vs {}", x.len(), y.len()))
            }
            _ => (a != b).then(|| format!("{path}: {a} vs {b}")),
        }
    }
    walk("", expected, actual)
}

/// The snapshots of `table`, read from its snapshot files (`snapshot/snapshot-N`), by id.
///
/// Errors: [`Error::Io`], [`Error::Table`] (a snapshot file is not the expected JSON).
pub fn snapshot_summaries(table: &Path) -> Result<Vec<SnapshotSummary>> {
    let dir = table.join("snapshot");
    let entries = std::fs::read_dir(&dir).map_err(|e| Error::Io {
        path: dir.clone(),
        source: e,
    })?;
    let mut ids = BTreeSet::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::Io {
            path: dir.clone(),
            source: e,
        })?;
        let name = entry.file_name();
        if let Some(id) = name
            .to_str()
            .and_then(|n| n.strip_prefix("snapshot-"))
            .and_then(|n| n.parse::<i64>().ok())
        {
            ids.insert(id);
        }
    }
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let path = dir.join(format!("snapshot-{id}"));
        let v = read_json(&path)?;
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        let num = |k: &str| v.get(k).and_then(Value::as_i64);
        let bad = |k: &str| Error::Table {
            path: path.clone(),
            reason: format!("snapshot file has no `{k}`"),
        };
        out.push(SnapshotSummary {
            id,
            commit_kind: text("commitKind").ok_or_else(|| bad("commitKind"))?,
            commit_user: text("commitUser").ok_or_else(|| bad("commitUser"))?,
            commit_identifier: num("commitIdentifier").ok_or_else(|| bad("commitIdentifier"))?,
            schema_id: num("schemaId").ok_or_else(|| bad("schemaId"))?,
        });
    }
    Ok(out)
}

/// The options of the latest schema of `table` (`schema/schema-N` with the largest N).
fn latest_options(table: &Path) -> Result<Value> {
    let dir = table.join("schema");
    let entries = std::fs::read_dir(&dir).map_err(|e| Error::Io {
        path: dir.clone(),
        source: e,
    })?;
    let mut latest: Option<i64> = None;
    for entry in entries.flatten() {
        if let Some(id) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.strip_prefix("schema-"))
            .and_then(|n| n.parse::<i64>().ok())
        {
            latest = latest.max(Some(id));
        }
    }
    let id = latest.ok_or_else(|| Error::Table {
        path: dir.clone(),
        reason: "no schema file".into(),
    })?;
    let v = read_json(&dir.join(format!("schema-{id}")))?;
    let options: BTreeMap<String, Value> = v
        .get("options")
        .and_then(Value::as_object)
        .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    Ok(json!(options))
}

fn read_json(path: &Path) -> Result<Value> {
    let bytes = std::fs::read(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    serde_json::from_slice(&bytes).map_err(|e| Error::Table {
        path: path.to_path_buf(),
        reason: format!("not JSON: {e}"),
    })
}

/// What happened to one commit, as recorded in `case.json` (`commits`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct CommitRecord {
    /// Commit user.
    pub user: String,
    /// Commit identifier (for a recovery: the identifiers handed to `filterAndCommit`).
    pub identifier: i64,
    /// `committed`, `failed: <expected text>`, or `recovered: <n> committed`.
    pub outcome: String,
    /// What `prepareCommit` returned (absent for a recovery).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prepared: Option<jvm_bridge::corpus::Prepared>,
}

/// A batch read recorded by a `read-batch` step.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct BatchRead {
    /// Index of the step in the scenario.
    pub after_step: usize,
    /// The batch read.
    #[serde(flatten)]
    pub batch: BatchSummary,
}

/// A user's writer and what the run knows about it.
struct UserWriter {
    writer: jvm_bridge::CorpusWriter,
    /// Another user committed since this writer was (re)opened or last committed.
    stale: bool,
    /// Identifiers prepared and not committed (failed commits awaiting a recovery).
    pending: Vec<i64>,
}

/// The state of one scenario run.
struct Run<'a> {
    table: &'a Path,
    tmp: &'a Path,
    stock: &'a StockTableReader,
    fields: Vec<(String, String)>,
    partition_keys: Vec<String>,
    primary_keys: Vec<String>,
    writers: BTreeMap<String, UserWriter>,
    writer_options: BTreeMap<String, BTreeMap<String, String>>,
    last_identifier: HashMap<String, i64>,
    log: Vec<CommitRecord>,
    batch_reads: Vec<BatchRead>,
}

impl<'a> Run<'a> {
    fn new(table: &'a Path, tmp: &'a Path, spec: &TableSpec, stock: &'a StockTableReader) -> Self {
        Self {
            table,
            tmp,
            stock,
            fields: spec
                .fields
                .iter()
                .map(|f| (f.name.clone(), type_text(&f.data_type)))
                .collect(),
            partition_keys: spec.partition_keys.clone(),
            primary_keys: spec.primary_keys.clone(),
            writers: BTreeMap::new(),
            writer_options: BTreeMap::new(),
            last_identifier: HashMap::new(),
            log: Vec::new(),
            batch_reads: Vec::new(),
        }
    }

    fn writer(&mut self, user: &str) -> Result<&mut UserWriter> {
        if !self.writers.contains_key(user) {
            let options = self.writer_options.get(user).cloned().unwrap_or_default();
            let writer =
                jvm_bridge::CorpusWriter::open_with_options(self.table, user, self.tmp, &options)?;
            self.writers.insert(
                user.to_owned(),
                UserWriter {
                    writer,
                    stale: false,
                    pending: Vec::new(),
                },
            );
        }
        self.writers
            .get_mut(user)
            .ok_or_else(|| Error::Scenario(format!("no writer for user `{user}`")))
    }

    fn steps(&mut self, steps: &[Step]) -> Result<()> {
        for (i, step) in steps.iter().enumerate() {
            self.step(i, step).map_err(|e| {
                Error::Scenario(format!("step {i} ({}): {}", step_name(step), explain(&e)))
            })?;
        }
        Ok(())
    }

    /// Disarms the table's faults; fails when one was armed and never fired.
    fn check_faults_fired(&self) -> Result<()> {
        let unfired = jvm_bridge::corpus::disarm_faults(self.table)?;
        if !unfired.is_empty() {
            return Err(Error::Scenario(format!(
                "fault(s) {} were armed but never fired: the scenario no longer reproduces its situation",
                unfired.join(", ")
            )));
        }
        Ok(())
    }

    fn step(&mut self, index: usize, step: &Step) -> Result<()> {
        match step {
            Step::Write { user, rows } => {
                for r in rows {
                    check_kind(&r.kind)?;
                }
                let rows =
                    serde_json::to_string(rows).map_err(|e| Error::Scenario(e.to_string()))?;
                Ok(self.writer(user)?.writer.write(&rows)?)
            }
            Step::Compact {
                user,
                partition,
                bucket,
                touched,
                full,
            } => {
                let w = self.writer(user)?;
                match (partition, bucket, touched) {
                    (Some(p), Some(b), false) => {
                        let p =
                            serde_json::to_string(p).map_err(|e| Error::Scenario(e.to_string()))?;
                        Ok(w.writer.compact(&p, *b, *full)?)
                    }
                    (None, None, true) => Ok(w.writer.compact_touched(*full).map(|_| ())?),
                    _ => Err(Error::Scenario(
                        "a compact step takes either `partition` and `bucket`, or `touched: true`"
                            .into(),
                    )),
                }
            }
            Step::Commit {
                user,
                identifier,
                wait_compaction,
                expect_error,
                expect_compact_changelog,
            } => self.commit(
                user,
                *identifier,
                *wait_compaction,
                expect_error.as_deref(),
                *expect_compact_changelog,
            ),
            Step::Alter { changes } => self.alter(changes),
            Step::ArmFault { fault } => {
                jvm_bridge::corpus::arm_fault(self.table, fault).map_err(Error::from)
            }
            Step::Recover {
                user,
                expect_committed,
            } => {
                let w = self.writer(user)?;
                let pending = std::mem::take(&mut w.pending);
                let committed = w.writer.recover()?;
                w.stale = false;
                if let Some(expected) = expect_committed {
                    if *expected != committed {
                        return Err(Error::Scenario(format!(
                            "filterAndCommit committed {committed} identifier(s), the scenario expects {expected}"
                        )));
                    }
                }
                self.log.push(CommitRecord {
                    user: user.clone(),
                    identifier: pending.iter().copied().max().unwrap_or(-1),
                    outcome: format!("recovered: {committed} committed"),
                    prepared: None,
                });
                if committed > 0 {
                    self.mark_others_stale(user);
                }
                Ok(())
            }
            Step::Reopen { user } => {
                let w = self.writer(user)?;
                w.writer.reopen()?;
                w.stale = false;
                Ok(())
            }
            Step::Overwrite {
                user,
                partition,
                rows,
            } => self.overwrite(user, partition.as_deref(), rows),
            Step::ReadBatch => {
                let batch = batch_summary(self.stock, self.table, None)?;
                self.batch_reads.push(BatchRead {
                    after_step: index,
                    batch,
                });
                Ok(())
            }
            Step::Random(burst) => self.random(burst),
        }
    }

    fn mark_others_stale(&mut self, user: &str) {
        for (name, w) in self.writers.iter_mut() {
            if name != user {
                w.stale = true;
            }
        }
    }

    fn commit(
        &mut self,
        user: &str,
        identifier: i64,
        wait_compaction: bool,
        expect_error: Option<&str>,
        expect_compact_changelog: Option<bool>,
    ) -> Result<()> {
        if let Some(last) = self.last_identifier.get(user) {
            if identifier <= *last {
                return Err(Error::Scenario(format!(
                    "identifier {identifier} of user `{user}` is not above its previous one ({last})"
                )));
            }
        }
        self.last_identifier.insert(user.to_owned(), identifier);
        let w = self.writer(user)?;
        let prepared = w.writer.prepare(identifier, wait_compaction)?;
        if let Some(expected) = expect_compact_changelog {
            if expected != (prepared.compact_changelog > 0) {
                return Err(Error::Scenario(format!(
                    "the prepared commit {identifier} carries {} compaction changelog file(s), the scenario \
                     expects {}: it no longer reproduces its situation",
                    prepared.compact_changelog,
                    if expected { "some" } else { "none" }
                )));
            }
        }
        let result = w.writer.commit_prepared(identifier);
        let outcome = match (result, expect_error) {
            (Ok(()), None) => "committed".to_owned(),
            (Ok(()), Some(text)) => {
                return Err(Error::Scenario(format!(
                    "commit {identifier} succeeded, the scenario expects it to fail with `{text}`: it no longer \
                     reproduces its situation"
                )))
            }
            (Err(e), Some(text)) if error_mentions(&e, text) => {
                w.pending.push(identifier);
                format!("failed: {text}")
            }
            (Err(e), _) => return Err(e.into()),
        };
        self.log.push(CommitRecord {
            user: user.to_owned(),
            identifier,
            outcome,
            prepared: Some(prepared),
        });
        // A failed commit may still have published its APPEND snapshot.
        self.mark_others_stale(user);
        if let Some(w) = self.writers.get_mut(user) {
            w.stale = false;
        }
        Ok(())
    }

    fn overwrite(
        &mut self,
        user: &str,
        partition: Option<&[Value]>,
        rows: &[RowSpec],
    ) -> Result<()> {
        for r in rows {
            check_kind(&r.kind)?;
        }
        let rows_json = serde_json::to_string(rows).map_err(|e| Error::Scenario(e.to_string()))?;
        let partition_json = partition
            .map(serde_json::to_string)
            .transpose()
            .map_err(|e| Error::Scenario(e.to_string()))?;
        let options = self.writer_options.get(user).cloned().unwrap_or_default();
        let prepared = jvm_bridge::corpus::overwrite(
            self.table,
            user,
            self.tmp,
            &options,
            partition_json.as_deref(),
            &rows_json,
        )?;
        self.log.push(CommitRecord {
            user: user.to_owned(),
            identifier: i64::MAX,
            outcome: "committed".to_owned(),
            prepared: Some(prepared),
        });
        self.mark_others_stale(user);
        Ok(())
    }

    fn alter(&mut self, changes: &[Value]) -> Result<()> {
        if let Some((user, _)) = self.writers.iter().find(|(_, w)| !w.pending.is_empty()) {
            return Err(Error::Scenario(format!(
                "user `{user}` has pending identifiers; recover before altering the table"
            )));
        }
        let text = serde_json::to_string(changes).map_err(|e| Error::Scenario(e.to_string()))?;
        jvm_bridge::corpus::alter_table(self.table, &text)?;
        for change in changes {
            self.apply_change(change)?;
        }
        for w in self.writers.values_mut() {
            w.writer.reopen()?;
            w.stale = false;
        }
        Ok(())
    }

    /// Keeps the run's column list in step with the table (for random bursts after a schema change).
    fn apply_change(&mut self, change: &Value) -> Result<()> {
        let s = |k: &str| {
            change
                .get(k)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| Error::Scenario(format!("schema change needs `{k}`: {change}")))
        };
        match s("op")?.as_str() {
            "add-column" => {
                let ty = change
                    .get("type")
                    .map(type_text)
                    .ok_or_else(|| Error::Scenario(format!("add-column needs `type`: {change}")))?;
                self.fields.push((s("name")?, ty));
            }
            "rename-column" => {
                let (from, to) = (s("from")?, s("to")?);
                for f in &mut self.fields {
                    if f.0 == from {
                        f.0 = to.clone();
                    }
                }
            }
            "drop-column" => {
                let name = s("name")?;
                self.fields.retain(|f| f.0 != name);
            }
            "update-column-type" => {
                let name = s("name")?;
                let ty = change.get("type").map(type_text).ok_or_else(|| {
                    Error::Scenario(format!("update-column-type needs `type`: {change}"))
                })?;
                for f in &mut self.fields {
                    if f.0 == name {
                        f.1 = ty.clone();
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn random(&mut self, burst: &RandomBurst) -> Result<()> {
        let plan = RandomPlan::new(self, burst)?;
        let mut rng = SplitMix64(burst.seed);
        // Live values per (user, partition index, key).
        let mut live: BTreeMap<(usize, usize, i64), Vec<Value>> = BTreeMap::new();
        let mut commit_no = 0u32;
        if burst.fill {
            for u in 0..burst.users.len() {
                commit_no += 1;
                let mut rows = Vec::new();
                for p in 0..plan.partitions.len() {
                    for k in plan.keys_of(u) {
                        let values = plan.row(p, k, commit_no, &burst.users[u], &mut rng);
                        rows.push(RowSpec {
                            kind: "+I".into(),
                            values: values.clone(),
                        });
                        live.insert((u, p, k), values);
                    }
                }
                self.random_commit(burst, &burst.users[u], rows)?;
            }
        }
        for _ in 0..burst.commits {
            commit_no += 1;
            let u = rng.below(burst.users.len() as u64) as usize;
            let [lo, hi] = burst.rows_per_commit;
            let n = lo + rng.below(u64::from(hi.saturating_sub(lo)) + 1) as u32;
            let mut rows = Vec::new();
            let mut touched = BTreeSet::new();
            for _ in 0..n {
                let p = rng.below(plan.partitions.len() as u64) as usize;
                let k = plan.key_base(u) + rng.below(u64::from(burst.keys)) as i64;
                if !touched.insert((p, k)) {
                    continue;
                }
                let roll = rng.unit();
                match live.get(&(u, p, k)).cloned() {
                    None => {
                        let values = plan.row(p, k, commit_no, &burst.users[u], &mut rng);
                        rows.push(RowSpec {
                            kind: "+I".into(),
                            values: values.clone(),
                        });
                        live.insert((u, p, k), values);
                    }
                    Some(old) if roll < burst.delete_ratio => {
                        rows.push(RowSpec {
                            kind: "-D".into(),
                            values: old,
                        });
                        live.remove(&(u, p, k));
                    }
                    Some(_) if roll < burst.delete_ratio + burst.update_ratio => {
                        let values = plan.row(p, k, commit_no, &burst.users[u], &mut rng);
                        rows.push(RowSpec {
                            kind: "+U".into(),
                            values: values.clone(),
                        });
                        live.insert((u, p, k), values);
                    }
                    Some(_) => {}
                }
            }
            self.random_commit(burst, &burst.users[u], rows)?;
        }
        Ok(())
    }

    fn random_commit(&mut self, burst: &RandomBurst, user: &str, rows: Vec<RowSpec>) -> Result<()> {
        let reopen = burst.reopen_on_switch;
        let w = self.writer(user)?;
        if reopen && w.stale {
            w.writer.reopen()?;
            w.stale = false;
        }
        let rows = serde_json::to_string(&rows).map_err(|e| Error::Scenario(e.to_string()))?;
        w.writer.write(&rows)?;
        match burst.compact.as_str() {
            "none" => {}
            "touched" => {
                w.writer.compact_touched(false)?;
            }
            "touched-full" => {
                w.writer.compact_touched(true)?;
            }
            other => {
                return Err(Error::Scenario(format!(
                    "random `compact` is none, touched or touched-full, not `{other}`"
                )))
            }
        }
        let identifier = self.last_identifier.get(user).copied().unwrap_or(0) + 1;
        self.commit(user, identifier, true, None, None)
    }

    fn close(&mut self) -> Result<()> {
        let mut first = None;
        for (_, w) in std::mem::take(&mut self.writers) {
            if let Err(e) = w.writer.close() {
                first.get_or_insert(e);
            }
        }
        match first {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }
}

/// How a random burst builds rows for the run's current columns.
struct RandomPlan {
    partitions: Vec<Vec<Value>>,
    /// Per column: where its value comes from.
    columns: Vec<Column>,
    keys: u32,
    key_base: i64,
}

enum Column {
    Partition(usize),
    Key,
    Int,
    BigInt,
    Text,
}

impl RandomPlan {
    fn new(run: &Run, burst: &RandomBurst) -> Result<Self> {
        if burst.users.is_empty() || burst.keys == 0 {
            return Err(Error::Scenario("random: needs users and keys > 0".into()));
        }
        let ratio = |r: f64| (0.0..=1.0).contains(&r);
        if !ratio(burst.update_ratio)
            || !ratio(burst.delete_ratio)
            || burst.update_ratio + burst.delete_ratio > 1.0
        {
            return Err(Error::Scenario(
                "random: update_ratio and delete_ratio are shares in [0, 1] with a sum of at most 1".into(),
            ));
        }
        if burst.rows_per_commit[0] > burst.rows_per_commit[1] {
            return Err(Error::Scenario(
                "random: rows_per_commit is [min, max]".into(),
            ));
        }
        let mut partitions = Vec::new();
        for p in &burst.partitions {
            let values = match p {
                Value::Array(a) => a.clone(),
                other => vec![other.clone()],
            };
            if values.len() != run.partition_keys.len() {
                return Err(Error::Scenario(format!(
                    "random: partition {p} has {} value(s), the table has {} partition key(s)",
                    values.len(),
                    run.partition_keys.len()
                )));
            }
            partitions.push(values);
        }
        if partitions.is_empty() {
            if !run.partition_keys.is_empty() {
                return Err(Error::Scenario(
                    "random: a partitioned table needs `partitions`".into(),
                ));
            }
            partitions.push(Vec::new());
        }
        let key_columns: Vec<&String> = run
            .primary_keys
            .iter()
            .filter(|k| !run.partition_keys.contains(k))
            .collect();
        if key_columns.len() != 1 {
            return Err(Error::Scenario(
                "random: the table needs exactly one primary-key column outside the partition keys"
                    .into(),
            ));
        }
        let mut columns = Vec::new();
        for (name, ty) in &run.fields {
            let base = ty.trim().to_ascii_uppercase();
            let base = base.trim_end_matches("NOT NULL").trim();
            let col = if let Some(i) = run.partition_keys.iter().position(|k| k == name) {
                Column::Partition(i)
            } else if name == key_columns[0] {
                if base != "INT" && base != "BIGINT" && base != "INTEGER" {
                    return Err(Error::Scenario(format!(
                        "random: key column `{name}` is {ty}, not INT or BIGINT"
                    )));
                }
                Column::Key
            } else {
                match base {
                    "INT" | "INTEGER" => Column::Int,
                    "BIGINT" => Column::BigInt,
                    "STRING" => Column::Text,
                    _ if base.starts_with("VARCHAR") => Column::Text,
                    _ => {
                        return Err(Error::Scenario(format!(
                            "random: column `{name}` is {ty}; random bursts fill INT, BIGINT and STRING only"
                        )))
                    }
                }
            };
            columns.push(col);
        }
        Ok(Self {
            partitions,
            columns,
            keys: burst.keys,
            key_base: burst.key_base,
        })
    }

    fn key_base(&self, user: usize) -> i64 {
        self.key_base + user as i64 * i64::from(self.keys)
    }

    fn keys_of(&self, user: usize) -> std::ops::Range<i64> {
        let base = self.key_base(user);
        base..base + i64::from(self.keys)
    }

    fn row(&self, p: usize, key: i64, commit: u32, user: &str, rng: &mut SplitMix64) -> Vec<Value> {
        self.columns
            .iter()
            .map(|c| match c {
                Column::Partition(i) => self.partitions[p].get(*i).cloned().unwrap_or(Value::Null),
                Column::Key => json!(key),
                Column::Int => json!(i64::from(commit) * 1000 + rng.below(1000) as i64),
                Column::BigInt => {
                    json!(i64::from(commit) * 1_000_000 + rng.below(1_000_000) as i64)
                }
                Column::Text => json!(format!("{user}-c{commit}-k{key}")),
            })
            .collect()
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
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn type_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `e` in words; for a Java exception also the frame that threw it (released Paimon exceptions often have no
/// message).
fn explain(e: &Error) -> String {
    match e {
        Error::Stock(jvm_bridge::Error::Java { stack, .. }) => {
            let at = stack
                .lines()
                .map(str::trim)
                .find(|l| l.starts_with("at "))
                .unwrap_or("");
            format!("{e} ({at})")
        }
        other => other.to_string(),
    }
}

/// Whether `e` (its message, or for a Java exception its stack trace with the causes) contains `text`.
fn error_mentions(e: &jvm_bridge::Error, text: &str) -> bool {
    match e {
        jvm_bridge::Error::Java { stack, .. } if stack.contains(text) => true,
        other => other.to_string().contains(text),
    }
}

fn check_kind(kind: &str) -> Result<()> {
    match kind {
        "+I" | "-U" | "+U" | "-D" => Ok(()),
        other => Err(Error::Scenario(format!(
            "row kind `{other}` is not one of +I, -U, +U, -D"
        ))),
    }
}

fn step_name(step: &Step) -> &'static str {
    match step {
        Step::Write { .. } => "write",
        Step::Compact { .. } => "compact",
        Step::Commit { .. } => "commit",
        Step::Alter { .. } => "alter",
        Step::ArmFault { .. } => "arm-fault",
        Step::Recover { .. } => "recover",
        Step::Reopen { .. } => "reopen",
        Step::Overwrite { .. } => "overwrite",
        Step::ReadBatch => "read-batch",
        Step::Random(_) => "random",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_json_round_trips_and_rejects_unknown_fields() {
        let text = r#"{
            "name": "t", "description": "d",
            "table": {"fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "v", "type": "INT"}],
                      "primaryKeys": ["k"], "options": {"bucket": "1"}},
            "steps": [
                {"step": "write", "rows": [{"kind": "+I", "values": [1, 10]}]},
                {"step": "compact", "partition": [], "bucket": 0, "full": true},
                {"step": "arm-fault", "fault": "manifest-read-after-snapshot"},
                {"step": "commit", "identifier": 1, "expect_error": "injected"},
                {"step": "recover", "expect_committed": 0},
                {"step": "read-batch"},
                {"step": "random", "seed": 1, "keys": 4, "commits": 2, "update_ratio": 0.5, "delete_ratio": 0.1}
            ]
        }"#;
        let s: Scenario = serde_json::from_str(text).unwrap();
        assert_eq!(s.steps.len(), 7);
        match &s.steps[3] {
            Step::Commit {
                user,
                wait_compaction,
                expect_error,
                ..
            } => {
                assert_eq!(user, DEFAULT_USER);
                assert!(*wait_compaction);
                assert_eq!(expect_error.as_deref(), Some("injected"));
            }
            other => panic!("{other:?}"),
        }
        let again: Scenario = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(again.steps.len(), 7);
        let bad = text.replace("\"full\": true", "\"fulll\": true");
        assert!(serde_json::from_str::<Scenario>(&bad).is_err());
        let bad = text.replace("\"step\": \"read-batch\"", "\"step\": \"read-all\"");
        assert!(serde_json::from_str::<Scenario>(&bad).is_err());
    }

    #[test]
    fn json_difference_names_the_path() {
        let a = json!({"x": [1, {"y": 2}], "z": 1});
        assert_eq!(first_json_difference(&a, &a), None);
        let b = json!({"x": [1, {"y": 3}], "z": 1});
        assert_eq!(
            first_json_difference(&a, &b).as_deref(),
            Some("x[1].y: 2 vs 3")
        );
        let c = json!({"x": [1], "z": 1});
        assert_eq!(
            first_json_difference(&a, &c).as_deref(),
            Some("x: 2 items vs 1")
        );
    }

    #[test]
    fn splitmix_is_stable() {
        let mut r = SplitMix64(20_261_129);
        let a: Vec<u64> = (0..3).map(|_| r.below(1000)).collect();
        let mut r = SplitMix64(20_261_129);
        let b: Vec<u64> = (0..3).map(|_| r.below(1000)).collect();
        assert_eq!(a, b);
        let u = SplitMix64(7).unit();
        assert!((0.0..1.0).contains(&u));
    }

    #[test]
    fn every_committed_scenario_parses() {
        for file in scenario_files(&corpora_dir()).unwrap() {
            let s = load_scenario(&file).unwrap_or_else(|e| panic!("{e}"));
            let dir = file.parent().and_then(Path::file_name).unwrap();
            assert_eq!(dir.to_str(), Some(s.name.as_str()), "{}", file.display());
        }
    }
}
