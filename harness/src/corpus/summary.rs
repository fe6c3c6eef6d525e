//! What the released reader returns from a written table, as recorded in `case.json`: the streaming
//! replay from snapshot 1, batch reads, the snapshots, the latest options; and the JSON comparison used
//! when a corpus is regenerated.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use native_reader::scan::ScanMode;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::MAX_RECORDED_ROWS;
use crate::diff::{render_row, RowCounts};
use crate::error::{Error, Result};
use crate::reader::{StockTableReader, TableReader};

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
    let ids: BTreeSet<i64> = list_names(&dir)?
        .iter()
        .filter_map(|n| n.strip_prefix("snapshot-")?.parse::<i64>().ok())
        .collect();
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
pub(super) fn latest_options(table: &Path) -> Result<Value> {
    let dir = table.join("schema");
    let latest: Option<i64> = list_names(&dir)?
        .iter()
        .filter_map(|n| n.strip_prefix("schema-")?.parse::<i64>().ok())
        .max();
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

/// The names in the directory `dir`, local or in a store ([`native_reader::fileio`]).
///
/// Errors: [`Error::Io`] naming `dir`.
fn list_names(dir: &Path) -> Result<Vec<String>> {
    let io = native_reader::fileio::for_path(dir).map_err(|e| Error::Io {
        path: dir.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })?;
    io.list(dir).map_err(|e| Error::Io {
        path: dir.to_path_buf(),
        source: e,
    })
}

fn read_json(path: &Path) -> Result<Value> {
    let bytes = native_reader::fileio::read(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })?;
    serde_json::from_slice(&bytes).map_err(|e| Error::TableSource {
        path: path.to_path_buf(),
        context: "not JSON".to_owned(),
        source: e.into(),
    })
}

/// An expectation of `case.json` from the stock reader's `what` read (`streaming`, `batch`; the scenario's
/// `option` expects it to fail): its summary,
/// or `{"error": text}` when the scenario expects the read to fail with `text` (`expect_stream_error`,
/// `expect_batch_error`).
///
/// Errors: [`Error::Scenario`] when the read fails unexpectedly, succeeds where a failure is expected, or
/// fails with another error.
pub(super) fn expectation(
    (what, option): (&str, &str),
    read: Result<Value>,
    expected_error: Option<&str>,
) -> Result<Value> {
    let scenario = |m: String| Err(Error::Scenario(format!("stock {what} read: {m}")));
    match (read, expected_error) {
        (Ok(summary), None) => Ok(summary),
        (Err(e), None) => scenario(explain(&e)),
        (Ok(_), Some(text)) => scenario(format!(
            "expected to fail with `{text}` ({option}), but it succeeded"
        )),
        (Err(e), Some(text)) if explain(&e).contains(text) => Ok(json!({ "error": text })),
        (Err(e), Some(text)) => scenario(format!(
            "expected to fail with `{text}` ({option}), but failed with: {}",
            explain(&e)
        )),
    }
}

/// `e` in words; for a Java exception also the frame that threw it (released Paimon exceptions often have no
/// message).
pub(super) fn explain(e: &Error) -> String {
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
