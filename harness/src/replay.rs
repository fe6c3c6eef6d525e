//! `paimon-parity replay`: a streaming replay of one table from a start snapshot through two readers.
//!
//! 1. The end of the replay is the latest snapshot when the replay starts (so it is finite even while
//!    writers keep committing); both readers plan the stream scan (`scan.mode=from-snapshot`) up to it.
//! 2. Splits are matched by (snapshot, partition, bucket); matched splits with different file lists are a
//!    **planning** difference and their rows are not compared.
//! 3. Splits with the same files are read by both readers and diffed row by row: a **decoding** difference.

use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use native_reader::{Split, SplitKey};
use serde::Serialize;

use crate::diff::{compare_plans, diff_rows, match_splits, Paired, RowCounts, RowMismatch};
use crate::error::{Error, Result, Side, EXIT_DIFFERENT, EXIT_IDENTICAL, EXIT_UNREADABLE};
use crate::reader::{PlannedSplit, TableReader};

/// What to replay.
#[derive(Clone, Debug)]
pub struct ReplayOptions {
    /// First snapshot of the streaming scan (`scan.snapshot-id`); 1 by default.
    pub from_snapshot: i64,
    /// At most this many mismatches are described in detail (all are counted).
    pub max_mismatches: usize,
    /// Show a progress bar on stderr (hidden anyway when stderr is not a terminal).
    pub progress: bool,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            from_snapshot: 1,
            max_mismatches: 10,
            progress: true,
        }
    }
}

/// The verdict of one split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SplitVerdict {
    /// Same files, same rows in the same order.
    Identical,
    /// Matched, but the readers planned different files (a planning difference).
    DiffersPlanning,
    /// Same files, different rows (a decoding difference).
    DiffersDecoding,
    /// Only the stock reader planned this split.
    OnlyInStock,
    /// Only the native reader planned this split.
    OnlyInNative,
    /// One side could not read the split.
    Unreadable,
}

impl SplitVerdict {
    /// The word printed in the per-split line.
    pub fn word(&self) -> &'static str {
        match self {
            SplitVerdict::Identical => "identical",
            SplitVerdict::DiffersPlanning => "differs (planning)",
            SplitVerdict::DiffersDecoding => "differs (decoding)",
            SplitVerdict::OnlyInStock => "only in stock",
            SplitVerdict::OnlyInNative => "only in native",
            SplitVerdict::Unreadable => "unreadable",
        }
    }
}

/// One split of the replay, as reported.
#[derive(Clone, Debug, Serialize)]
pub struct SplitReport {
    /// (snapshot, partition, bucket).
    pub key: SplitKey,
    /// What the comparison found.
    pub verdict: SplitVerdict,
    /// Data files in the split (stock's count when both sides planned it).
    pub files: usize,
    /// Rows per RowKind from the stock reader, when it read the split.
    pub stock_rows: Option<RowCounts>,
    /// Rows per RowKind from the native reader, when it read the split.
    pub native_rows: Option<RowCounts>,
    /// Rows that differ (0 unless `differs (decoding)`).
    pub differing_rows: u64,
    /// Planning difference or read error, in words.
    pub detail: Option<String>,
    /// The first row difference, for `differs (decoding)`.
    pub first_mismatch: Option<RowMismatch>,
}

/// Totals over the replay.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Totals {
    /// Snapshots walked: from the first snapshot the scan starts at to the end snapshot.
    pub snapshots: i64,
    /// Distinct snapshots that produced at least one split.
    pub snapshots_with_splits: usize,
    /// Split pairs (matched or one-sided).
    pub splits: usize,
    /// Splits per verdict.
    pub identical: usize,
    /// See `identical`.
    pub differ_planning: usize,
    /// See `identical`.
    pub differ_decoding: usize,
    /// See `identical`.
    pub only_in_stock: usize,
    /// See `identical`.
    pub only_in_native: usize,
    /// See `identical`.
    pub unreadable: usize,
    /// Data files over all stock splits (native splits where stock has none).
    pub files: usize,
    /// Rows per RowKind the stock reader returned.
    pub stock_rows: RowCounts,
    /// Rows per RowKind the native reader returned.
    pub native_rows: RowCounts,
    /// Wall time of the whole replay, in milliseconds.
    pub wall_time_ms: u128,
}

/// Where the readers first differ.
#[derive(Clone, Debug, Serialize)]
pub struct FirstDifference {
    /// `planning` (different files or splits) or `decoding` (same files, different rows).
    pub kind: &'static str,
    /// The split.
    pub split: SplitKey,
    /// In words.
    pub detail: String,
}

/// The whole report of a replay; serialized as-is by `--json`.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayReport {
    /// The table directory, canonical.
    pub table: PathBuf,
    /// `scan.snapshot-id` of the replay.
    pub from_snapshot: i64,
    /// The latest snapshot when the replay started; the replay covers snapshots up to it.
    pub end_snapshot: i64,
    /// One entry per split pair, in stock plan order then native-only splits.
    pub splits: Vec<SplitReport>,
    /// Totals.
    pub totals: Totals,
    /// The first difference in replay order, if any.
    pub first_difference: Option<FirstDifference>,
    /// `identical`, `different` or `unreadable`.
    pub verdict: &'static str,
}

impl ReplayReport {
    /// The process exit status for this report: 0 identical, 1 different, 2 unreadable.
    pub fn exit_code(&self) -> i32 {
        match self.verdict {
            "identical" => EXIT_IDENTICAL,
            "different" => EXIT_DIFFERENT,
            _ => EXIT_UNREADABLE,
        }
    }
}

/// Resolves a table directory to a canonical absolute path, with a clear error when it is missing or is
/// not a Paimon table (no `schema/` directory).
pub fn resolve_table(path: &Path) -> Result<PathBuf> {
    let canonical = std::fs::canonicalize(path).map_err(|e| Error::Table {
        path: path.to_path_buf(),
        reason: format!("cannot open table directory: {e}"),
    })?;
    if !canonical.is_dir() {
        return Err(Error::Table {
            path: canonical,
            reason: "not a directory".into(),
        });
    }
    if !canonical.join("schema").is_dir() {
        return Err(Error::Table {
            path: canonical,
            reason: "not a Paimon table: no schema/ directory".into(),
        });
    }
    Ok(canonical)
}

/// Replays `table` from `options.from_snapshot` through `stock` and `native` and compares them.
///
/// Errors (exit 2): the table is missing, has no snapshot, or either reader cannot plan it. A split one
/// side cannot read does not stop the replay: it is reported as `unreadable` and the verdict is
/// `unreadable`.
pub fn replay(
    table: &Path,
    stock: &dyn TableReader,
    native: &dyn TableReader,
    options: &ReplayOptions,
) -> Result<ReplayReport> {
    let started = Instant::now();
    let table = resolve_table(table)?;
    let meta = native_reader::Table::open(&table)?;
    let end = meta.latest_snapshot_id()?.ok_or_else(|| Error::Table {
        path: table.join("snapshot"),
        reason: "the table has no snapshot to replay".into(),
    })?;
    let earliest = meta.earliest_snapshot_id()?.unwrap_or(1);
    let start = options.from_snapshot.max(earliest);

    // The native plan goes first: its errors name the exact metadata file that is damaged.
    let native_plan = native.plan_stream(&table, options.from_snapshot, end)?;
    let stock_plan = stock.plan_stream(&table, options.from_snapshot, end)?;
    let pairs = match_splits(&stock_plan, &native_plan, |p: &PlannedSplit| &p.split);

    let bar = if options.progress {
        let bar = ProgressBar::new(pairs.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{spinner} replay {pos}/{len} splits {wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };

    let mut totals = Totals {
        snapshots: (end - start + 1).max(0),
        ..Totals::default()
    };
    let mut splits = Vec::with_capacity(pairs.len());
    let mut first_difference: Option<FirstDifference> = None;
    let mut snapshots_seen = std::collections::BTreeSet::new();
    for pair in pairs {
        let report = compare_pair(&table, stock, native, pair);
        bar.inc(1);
        bar.set_message(format!("{}", report.key));
        snapshots_seen.insert(report.key.snapshot_id);
        totals.files += report.files;
        if let Some(r) = &report.stock_rows {
            totals.stock_rows.add(r);
        }
        if let Some(r) = &report.native_rows {
            totals.native_rows.add(r);
        }
        match report.verdict {
            SplitVerdict::Identical => totals.identical += 1,
            SplitVerdict::DiffersPlanning => totals.differ_planning += 1,
            SplitVerdict::DiffersDecoding => totals.differ_decoding += 1,
            SplitVerdict::OnlyInStock => totals.only_in_stock += 1,
            SplitVerdict::OnlyInNative => totals.only_in_native += 1,
            SplitVerdict::Unreadable => totals.unreadable += 1,
        }
        if first_difference.is_none() {
            first_difference = first_difference_of(&report);
        }
        splits.push(report);
    }
    bar.finish_and_clear();
    totals.splits = splits.len();
    totals.snapshots_with_splits = snapshots_seen.len();
    totals.wall_time_ms = started.elapsed().as_millis();
    let verdict = if totals.unreadable > 0 {
        "unreadable"
    } else if totals.identical == totals.splits {
        "identical"
    } else {
        "different"
    };
    Ok(ReplayReport {
        table,
        from_snapshot: options.from_snapshot,
        end_snapshot: end,
        splits,
        totals,
        first_difference,
        verdict,
    })
}

fn first_difference_of(report: &SplitReport) -> Option<FirstDifference> {
    let (kind, detail) = match report.verdict {
        SplitVerdict::Identical | SplitVerdict::Unreadable => return None,
        SplitVerdict::DiffersPlanning => ("planning", report.detail.clone().unwrap_or_default()),
        SplitVerdict::OnlyInStock => (
            "planning",
            "only the stock reader planned this split".into(),
        ),
        SplitVerdict::OnlyInNative => (
            "planning",
            "only the native reader planned this split".into(),
        ),
        SplitVerdict::DiffersDecoding => (
            "decoding",
            report
                .first_mismatch
                .as_ref()
                .map(|m| {
                    format!(
                        "row {}, field {}: stock {} vs native {}",
                        m.row, m.field, m.stock, m.native
                    )
                })
                .unwrap_or_default(),
        ),
    };
    Some(FirstDifference {
        kind,
        split: report.key.clone(),
        detail,
    })
}

fn read_counts(table: &Path, reader: &dyn TableReader, split: &PlannedSplit) -> Result<RowCounts> {
    let mut counts = RowCounts::default();
    for batch in reader.read_split(table, split)? {
        let batch = batch?;
        if let Some(k) = batch
            .columns()
            .first()
            .and_then(|c| c.as_any().downcast_ref::<arrow_array::Int8Array>())
        {
            counts.add_kinds(k);
        }
    }
    Ok(counts)
}

fn compare_pair(
    table: &Path,
    stock: &dyn TableReader,
    native: &dyn TableReader,
    pair: Paired<'_, PlannedSplit>,
) -> SplitReport {
    let any: &Split = match pair {
        Paired::Both(s, _) | Paired::StockOnly(s) => &s.split,
        Paired::NativeOnly(n) => &n.split,
    };
    let mut report = SplitReport {
        key: any.key(),
        verdict: SplitVerdict::Identical,
        files: any.data_files.len(),
        stock_rows: None,
        native_rows: None,
        differing_rows: 0,
        detail: None,
        first_mismatch: None,
    };
    let one_sided =
        |reader: &dyn TableReader, p: &PlannedSplit, report: &mut SplitReport| match read_counts(
            table, reader, p,
        ) {
            Ok(c) => {
                if reader.side() == Side::Stock {
                    report.stock_rows = Some(c);
                } else {
                    report.native_rows = Some(c);
                }
            }
            Err(e) => {
                report.verdict = SplitVerdict::Unreadable;
                report.detail = Some(format!("{} reader: {e}", reader.side()));
            }
        };
    match pair {
        Paired::StockOnly(s) => {
            report.verdict = SplitVerdict::OnlyInStock;
            one_sided(stock, s, &mut report);
        }
        Paired::NativeOnly(n) => {
            report.verdict = SplitVerdict::OnlyInNative;
            one_sided(native, n, &mut report);
        }
        Paired::Both(s, n) => {
            if let Some(why) = compare_plans(&s.split, &n.split) {
                report.verdict = SplitVerdict::DiffersPlanning;
                report.detail = Some(why);
                return report;
            }
            let batches = stock
                .read_split(table, s)
                .map_err(|e| (Side::Stock, e))
                .and_then(|sb| {
                    native
                        .read_split(table, n)
                        .map(|nb| (sb, nb))
                        .map_err(|e| (Side::Native, e))
                });
            match batches {
                Err((side, e)) => {
                    report.verdict = SplitVerdict::Unreadable;
                    report.detail = Some(format!("{side} reader: {e}"));
                }
                Ok((sb, nb)) => match diff_rows(sb, nb) {
                    Err(f) => {
                        report.verdict = SplitVerdict::Unreadable;
                        report.detail = Some(format!("{} reader: {}", f.side, f.error));
                    }
                    Ok(d) => {
                        report.stock_rows = Some(d.stock_rows);
                        report.native_rows = Some(d.native_rows);
                        report.differing_rows = d.differing_rows;
                        if d.first.is_some() || d.differing_rows > 0 {
                            report.verdict = SplitVerdict::DiffersDecoding;
                        }
                        report.first_mismatch = d.first;
                    }
                },
            }
        }
    }
    report
}
