//! `paimon-parity replay`: a streaming replay of one table from a start snapshot through two readers.
//!
//! 1. The end of the replay is the latest snapshot when the replay starts (so it is finite even while
//!    writers keep committing); both readers plan the stream scan (`scan.mode=from-snapshot`) up to it.
//! 2. Splits are matched by (snapshot, partition, bucket); matched splits with different file lists are a
//!    **planning** difference and their rows are not compared.
//! 3. Splits with the same files are read by both readers and diffed row by row: a **decoding** difference.

mod location;
mod parallel;
mod progress;
pub mod retained;
mod shard;
mod split;

use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use native_reader::scan::ScanMode;
use native_reader::SplitKey;
use serde::{Deserialize, Deserializer, Serialize};

use crate::diff::{
    compare_plans, match_splits, Paired, RowCounts, RowMismatch, RowOrder, DEFAULT_UNORDERED_MEMORY,
};
use crate::error::{
    Error, Result, EXIT_DIFFERENT, EXIT_IDENTICAL, EXIT_INTERRUPTED, EXIT_NOTHING_COMPARED,
    EXIT_UNREADABLE,
};
use crate::reader::{PlannedSplit, TableReader};

pub use progress::{spinner, Spinner};
pub use shard::{merge as merge_shards, MergeRefused, Shard};

pub use location::{meta_location, resolve_table};
pub(crate) use parallel::{in_order, InFlight};
use split::{compare_pair, first_difference_of, plan_failure, prefetch_stock, Ahead};

/// Set by the first Ctrl-C ([`stop_on_interrupt`]): a replay stops after the split in hand and reports what
/// it compared, marked interrupted.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Installs the Ctrl-C handler of `paimon-parity replay`: the first Ctrl-C asks the replay to stop after the
/// split in hand (its partial summary is printed and written, verdict `interrupted`, exit 130); a second
/// one ends the process at once with status 130. Installing it twice is harmless.
pub fn stop_on_interrupt() {
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, std::sync::atomic::Ordering::SeqCst) {
            std::process::exit(EXIT_INTERRUPTED);
        }
        eprintln!("paimon-parity: interrupted; stopping after the split in hand (Ctrl-C again to quit now)");
    });
}

/// Whether Ctrl-C asked the replay to stop.
pub fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

/// What to replay.
#[derive(Clone, Debug)]
pub struct ReplayOptions {
    /// First snapshot of the streaming scan (`scan.snapshot-id`); 1 by default.
    pub from_snapshot: i64,
    /// At most this many mismatches are described in detail (all are counted).
    pub max_mismatches: usize,
    /// Show a progress bar on stderr (hidden anyway when stderr is not a terminal).
    pub progress: bool,
    /// Compare the rows of a split as a multiset (`--unordered`), for readers whose row order within a
    /// merge split may legitimately differ; reports the rows only one side has.
    pub unordered: bool,
    /// With `unordered`: bytes of rows not yet matched that one split's comparison holds in memory before
    /// DataFusion's aggregation takes them, spilling to disk (`--unordered-memory`, in MiB there);
    /// [`DEFAULT_UNORDERED_MEMORY`] by default.
    pub unordered_memory: usize,
    /// Which scan to replay (`--mode`); [`ReplayMode::Stream`] by default.
    pub mode: ReplayMode,
    /// Batch time travel (`--snapshot`, `scan.snapshot-id` of [`ReplayMode::Batch`]); the latest snapshot
    /// when `None`.
    pub snapshot: Option<i64>,
    /// Splits read at once (`--threads`; 1 by default here, the cores from the command line): the released
    /// reader reads them on as many JVM threads, each with its own `TableRead`; the report is the same at
    /// any number. A reader that must be read in order ([`TableReader::reads_in_order`]: external readers)
    /// is read on the replay's thread while the released reader's splits are read ahead.
    pub threads: usize,
    /// Bytes (Arrow buffers) the splits read ahead may hold while they wait for their turn
    /// (`--memory-budget`, MiB on the command line; [`DEFAULT_BUDGET_BYTES`] by default).
    pub budget_bytes: usize,
    /// Compare only the split pairs of this shard (`--shard I/N`); every pair when `None`.
    pub shard: Option<Shard>,
    /// The pinned end of the replay (`--to-snapshot`): the snapshot the scans end at (streaming), read
    /// (batch, unless [`ReplayOptions::snapshot`]) or plan in full (`latest-full`); the latest snapshot when
    /// the replay starts when `None`.
    pub to_snapshot: Option<i64>,
    /// The table is an unpacked evidence bundle (`paimon-parity retain`): compare only the splits whose files
    /// are all retained ([`retained::split_is_retained`]) and count the others in [`Totals::not_retained`];
    /// `false` by default (a missing file of a table is an unreadable split).
    pub retained_only: bool,
}

/// The default of `replay --threads`: the cores this process may use (1 when that cannot be told).
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The default [`ReplayOptions::budget_bytes`]: 512 MiB.
pub const DEFAULT_BUDGET_BYTES: usize = 512 << 20;

/// The scans `paimon-parity replay --mode` replays (see `native_reader::scan::ScanMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReplayMode {
    /// Streaming, `scan.mode=from-snapshot` from `--from-snapshot`: follow-up plans only.
    #[default]
    Stream,
    /// Streaming, `scan.mode=from-snapshot-full` from `--from-snapshot`: a full first plan, then follow-ups.
    StreamFull,
    /// Streaming, `scan.mode=latest-full`: a full first plan of the latest snapshot, then follow-ups.
    LatestFull,
    /// Batch `newScan().plan()` of the latest snapshot, or of `--snapshot`.
    Batch,
}

impl ReplayMode {
    /// The [`ScanMode`] of this replay mode: `from_snapshot` is the `scan.snapshot-id` of the streaming
    /// modes, `snapshot` the time travel of [`ReplayMode::Batch`] (`None`: the latest snapshot).
    pub fn scan_mode(self, from_snapshot: i64, snapshot: Option<i64>) -> ScanMode {
        match self {
            ReplayMode::Stream => ScanMode::Stream { from_snapshot },
            ReplayMode::StreamFull => ScanMode::StreamFull { from_snapshot },
            ReplayMode::LatestFull => ScanMode::LatestFull,
            ReplayMode::Batch => ScanMode::Batch { snapshot },
        }
    }

    /// The mode's name as `--mode` spells it ([`ScanMode::name`]): `stream`, `stream-full`,
    /// `latest-full`, `batch`.
    pub fn name(self) -> &'static str {
        self.scan_mode(1, None).name()
    }
}

impl ReplayOptions {
    /// The scan both readers plan.
    pub fn scan_mode(&self) -> ScanMode {
        self.mode.scan_mode(self.from_snapshot, self.snapshot)
    }

    /// How each split's rows are compared: `unordered` with its memory limit, else in order.
    pub fn row_order(&self) -> RowOrder {
        if self.unordered {
            RowOrder::Multiset {
                memory_limit: self.unordered_memory,
            }
        } else {
            RowOrder::InOrder
        }
    }
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            from_snapshot: 1,
            max_mismatches: 10,
            progress: true,
            unordered: false,
            unordered_memory: DEFAULT_UNORDERED_MEMORY,
            mode: ReplayMode::Stream,
            snapshot: None,
            threads: 1,
            budget_bytes: DEFAULT_BUDGET_BYTES,
            shard: None,
            to_snapshot: None,
            retained_only: false,
        }
    }
}

/// The verdict of one split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The external reader failed on the split (its `error` status, a crash, a timeout, unusable output).
    ReaderError,
    /// The external reader does not implement something the split needs (its `unsupported` status).
    Unsupported,
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
            SplitVerdict::ReaderError => "reader error",
            SplitVerdict::Unsupported => "unsupported",
        }
    }
}

/// One split of the replay, as reported.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SplitReport {
    /// 0-based position of the pair in the paired plan (released plan order, then the compared reader's
    /// own splits), the same in every shard of the replay ([`Shard`]).
    #[serde(default)]
    pub position: usize,
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
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
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
    /// See `identical`.
    pub reader_errors: usize,
    /// See `identical`.
    pub unsupported: usize,
    /// Splits planned but not compared because the evidence bundle replayed does not retain all their files
    /// ([`ReplayOptions::retained_only`]; 0 for a table). Not counted in `splits`.
    #[serde(default)]
    pub not_retained: usize,
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
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FirstDifference {
    /// `planning` (different files or splits) or `decoding` (same files, different rows).
    #[serde(deserialize_with = "difference_kind")]
    pub kind: Word,
    /// The split.
    pub split: SplitKey,
    /// In words.
    pub detail: String,
}

/// The whole report of a replay; serialized as-is by `--json`, read back by `report merge`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReplayReport {
    /// The table directory, canonical (`paimon-parity replay` of a bundle: the bundle file as given).
    pub table: PathBuf,
    /// The reader compared with the released one: `native`, or an external reader's declared name.
    pub reader: String,
    /// The external reader's own name and version (`paimon.parity.reader`), when it said.
    pub reader_version: Option<String>,
    /// `scan.snapshot-id` of the replay.
    pub from_snapshot: i64,
    /// The scan replayed.
    pub mode: ScanMode,
    /// The latest snapshot when the replay started; the replay covers snapshots up to it.
    pub end_snapshot: i64,
    /// One entry per split pair, in stock plan order then native-only splits.
    pub splits: Vec<SplitReport>,
    /// The keys of the splits planned but not compared, in plan order: the evidence bundle replayed does not
    /// retain all their files (empty for a table).
    #[serde(default)]
    pub not_retained: Vec<SplitKey>,
    /// Totals.
    pub totals: Totals,
    /// The first difference in replay order, if any.
    pub first_difference: Option<FirstDifference>,
    /// `identical`, `different`, `incomplete` (no difference, but some splits the reader failed on or does
    /// not support), `unreadable` (the released or native reader failed), `nothing-compared` (neither
    /// reader planned a split), or `interrupted` (Ctrl-C: the splits up to then are reported).
    #[serde(deserialize_with = "replay_verdict")]
    pub verdict: Word,
    /// The shard this report covers (`--shard`), `None` for a whole replay (and a merged one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// With `shard`: the split pairs of the whole paired plan (positions `0..plan_size`), which `report
    /// merge` checks the shards cover exactly once; `None` for a whole replay (and a merged one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_size: Option<usize>,
}

impl ReplayReport {
    /// The process exit status for this report: 0 identical, 1 different or incomplete, 2 unreadable, 3
    /// nothing compared.
    pub fn exit_code(&self) -> i32 {
        match self.verdict {
            "identical" => EXIT_IDENTICAL,
            "different" | "incomplete" => EXIT_DIFFERENT,
            "interrupted" => EXIT_INTERRUPTED,
            "nothing-compared" => EXIT_NOTHING_COMPARED,
            _ => EXIT_UNREADABLE,
        }
    }
}

/// A word of a fixed set (a verdict, a kind of difference), as the report holds it; read back from JSON
/// through the set, so that a report read back is the report written.
pub type Word = &'static str;

/// One of `known`, as the static string the report holds.
fn known_word<'de, D: Deserializer<'de>>(
    d: D,
    known: &[&'static str],
) -> std::result::Result<&'static str, D::Error> {
    let word = String::deserialize(d)?;
    known
        .iter()
        .find(|k| **k == word)
        .copied()
        .ok_or_else(|| serde::de::Error::unknown_variant(&word, &[]))
}

/// [`ReplayReport::verdict`] read back.
fn replay_verdict<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<&'static str, D::Error> {
    known_word(
        d,
        &[
            "identical",
            "different",
            "incomplete",
            "unreadable",
            "nothing-compared",
            "interrupted",
        ],
    )
}

/// [`FirstDifference::kind`] read back.
fn difference_kind<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<&'static str, D::Error> {
    known_word(d, &["planning", "decoding"])
}

/// The totals, the first difference and the verdict of a replay whose split reports are `splits` (in plan
/// order), over `snapshots` snapshots, comparing `reader`; `stopped` when Ctrl-C ended it early. The wall
/// time is left at 0.
pub(crate) fn summarize(
    splits: &[SplitReport],
    snapshots: i64,
    reader: &str,
    stopped: bool,
) -> (Totals, Option<FirstDifference>, &'static str) {
    let mut totals = Totals {
        snapshots,
        splits: splits.len(),
        ..Totals::default()
    };
    let mut first_difference = None;
    let mut snapshots_seen = std::collections::BTreeSet::new();
    for report in splits {
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
            SplitVerdict::ReaderError => totals.reader_errors += 1,
            SplitVerdict::Unsupported => totals.unsupported += 1,
        }
        if first_difference.is_none() {
            first_difference = first_difference_of(report, reader);
        }
    }
    totals.snapshots_with_splits = snapshots_seen.len();
    let verdict = if stopped {
        "interrupted"
    } else if totals.unreadable > 0 {
        "unreadable"
    } else if totals.splits == 0 {
        // Both readers planned nothing: no evidence either way.
        "nothing-compared"
    } else {
        verdict_of(&totals)
    };
    (totals, first_difference, verdict)
}

/// Compares `splits`, planned by the released reader and read by both `stock` and `native` (the same
/// descriptions on both sides: `bench`'s replay kinds), on up to `threads` threads with the replay's
/// in-flight rules (`budget_bytes` of Arrow buffers waiting), and returns their reports in plan order.
pub fn compare_splits(
    table: &Path,
    stock: &dyn TableReader,
    native: &dyn TableReader,
    splits: &[PlannedSplit],
    threads: usize,
    budget_bytes: usize,
) -> Vec<SplitReport> {
    let pairs: Vec<_> = splits.iter().map(|s| Paired::Both(s, s)).collect();
    let positions: Vec<usize> = (0..splits.len()).collect();
    let limits = InFlight {
        threads,
        budget_bytes,
    };
    compare_in_order(
        table,
        stock,
        native,
        &pairs,
        &positions,
        limits,
        RowOrder::InOrder,
        |_| true,
    )
    .0
}

/// Compares `pairs` (at `positions` of the paired plan) on up to `limits.threads` threads and returns their
/// reports in order, and whether `go_on` stopped it (called with each report in order; `false` stops).
/// The released reader's splits are read ahead on the other threads; a reader that can be read from any
/// thread is compared there too, one that must be read in order ([`TableReader::reads_in_order`]) is
/// compared on the calling thread, in plan order.
#[allow(clippy::too_many_arguments)]
fn compare_in_order(
    table: &Path,
    stock: &dyn TableReader,
    native: &dyn TableReader,
    pairs: &[Paired<'_, PlannedSplit>],
    positions: &[usize],
    limits: InFlight,
    order: RowOrder,
    mut go_on: impl FnMut(&SplitReport) -> bool,
) -> (Vec<SplitReport>, bool) {
    let mut out = Vec::with_capacity(pairs.len());
    let mut stopped = false;
    let ordered = native.reads_in_order();
    in_order(
        pairs.len(),
        limits,
        |i| {
            if ordered {
                Ahead::Read(prefetch_stock(table, stock, pairs[i]))
            } else {
                Ahead::Compared(compare_pair(table, stock, native, pairs[i], order))
            }
        },
        Ahead::bytes,
        |i, work| {
            let mut report = match work {
                Ahead::Compared(report) => report,
                Ahead::Read(prefetched) => {
                    let stock = prefetched.reader(stock);
                    compare_pair(table, &stock, native, pairs[i], order)
                }
            };
            report.position = positions[i];
            let more = go_on(&report);
            out.push(report);
            stopped = !more;
            more
        },
    );
    (out, stopped)
}

/// The verdict of a replay whose splits were all read by the released reader: `identical` only when every
/// split was compared and is identical, `different` when any differs, else `incomplete`.
fn verdict_of(t: &Totals) -> &'static str {
    if t.identical == t.splits {
        "identical"
    } else if t.differ_planning + t.differ_decoding + t.only_in_stock + t.only_in_native > 0 {
        "different"
    } else {
        "incomplete"
    }
}

/// The report of a replay in which the external reader `native` could not plan (or could not be sent the
/// splits): every released split is that reader's error (or unsupported), with the reason.
#[allow(clippy::too_many_arguments)]
fn reader_plan_failed(
    table: &Path,
    native: &dyn TableReader,
    options: &ReplayOptions,
    mode: ScanMode,
    start: i64,
    end: i64,
    stock_plan: Vec<PlannedSplit>,
    error: &Error,
    started: Instant,
) -> ReplayReport {
    let verdict = match error {
        Error::External {
            kind: crate::error::ExternalFailure::Unsupported,
            ..
        } => SplitVerdict::Unsupported,
        _ => SplitVerdict::ReaderError,
    };
    let reader = native.side().to_string();
    let splits: Vec<SplitReport> = stock_plan
        .iter()
        .enumerate()
        .filter(|(i, _)| options.shard.is_none_or(|s| s.takes(*i)))
        .map(|(position, p)| SplitReport {
            position,
            key: p.split.key(),
            verdict,
            files: p.split.data_files.len(),
            stock_rows: None,
            native_rows: None,
            differing_rows: 0,
            detail: Some(error.to_string()),
            first_mismatch: None,
        })
        .collect();
    let (mut totals, first_difference, verdict) =
        summarize(&splits, (end - start + 1).max(0), &reader, false);
    totals.wall_time_ms = started.elapsed().as_millis();
    ReplayReport {
        reader,
        reader_version: native.reader_version(),
        table: table.to_path_buf(),
        from_snapshot: options.from_snapshot,
        mode,
        end_snapshot: end,
        splits,
        not_retained: Vec::new(),
        verdict,
        totals,
        first_difference,
        shard: options.shard,
        plan_size: options.shard.map(|_| stock_plan.len()),
    }
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
    // The snapshot directory alone fixes the range (no schema needed), so that a table whose schema the
    // native reader rejects is still planned by the stock reader and both verdicts are reported.
    let meta = native_reader::snapshot::SnapshotManager::new(&meta_location(&table));
    let latest = meta.latest_snapshot_id()?.ok_or_else(|| Error::Table {
        path: meta_location(&table).join("snapshot"),
        reason: "the table has no snapshot to replay".into(),
    })?;
    let earliest = meta.earliest_snapshot_id()?.unwrap_or(1);
    let end = match options.to_snapshot {
        Some(pin) if pin < earliest || pin > latest => {
            return Err(Error::Usage(format!(
                "--to-snapshot {pin}: {} has snapshots {earliest}..{latest}",
                table.display()
            )))
        }
        Some(pin) => pin,
        None => latest,
    };
    let mode = options.scan_mode();
    // The scan the readers plan: a pinned `latest-full` is the full plan of the pin (`from-snapshot-full` at
    // it), since `scan.mode=latest-full` would plan whatever is latest when the released reader plans.
    let planned = match (mode, options.to_snapshot) {
        (ScanMode::LatestFull, Some(_)) => ScanMode::StreamFull { from_snapshot: end },
        (ScanMode::Batch { snapshot: None }, Some(_)) => ScanMode::Batch {
            snapshot: Some(end),
        },
        _ => mode,
    };
    let (start, end) = match mode {
        ScanMode::Stream { .. } | ScanMode::StreamFull { .. } => {
            (options.from_snapshot.max(earliest), end)
        }
        ScanMode::LatestFull => (end, end),
        ScanMode::Batch { snapshot } => {
            let id = snapshot.unwrap_or(end);
            (id, id)
        }
    };

    let planning = spinner(options.progress.then(|| {
        format!(
            "planning the {} scan of {} (snapshots {start}..{end})",
            mode.name(),
            table.display()
        )
    }));
    // Both readers plan even when one fails, so that a table one reader rejects and the other accepts is
    // reported as such. The native error comes first: it names the exact metadata file that is damaged.
    // An external reader that reads the released planner's splits gets exactly those; one that plans by
    // itself and fails to is reported as that reader's error on every split, not as an unreadable table.
    let (stock_plan, native_plan) = if native.reads_released_plan() {
        let s = stock.plan(&table, planned, end)?;
        let n = s.clone();
        (s, n)
    } else {
        let native_plan = native.plan(&table, planned, end);
        let stock_plan = stock.plan(&table, planned, end);
        match (stock_plan, native_plan) {
            (Ok(s), Ok(n)) => (s, n),
            (Ok(s), Err(e @ Error::External { .. })) => {
                return Ok(reader_plan_failed(
                    &table, native, options, mode, start, end, s, &e, started,
                ));
            }
            (s, n) => return Err(plan_failure(s, n, end)),
        }
    };
    let paired = match_splits(&stock_plan, &native_plan, |p: &PlannedSplit| &p.split);
    // An evidence bundle: only the splits whose files it retained are compared, the others counted.
    let (paired, not_retained) = if options.retained_only {
        retained::retained_pairs(paired)
    } else {
        (paired, Vec::new())
    };
    // A shard compares only its pairs; positions are those of the whole paired plan.
    let plan_size = paired.len();
    let (positions, pairs): (Vec<usize>, Vec<_>) = paired
        .into_iter()
        .enumerate()
        .filter(|(i, _)| options.shard.is_none_or(|s| s.takes(*i)))
        .unzip();
    // The compared reader's splits that will be read, in the order they will be: matched splits with the
    // same files, and splits only it planned (a split with other files than the released one is a planning
    // difference and is not read).
    let to_read: Vec<PlannedSplit> = pairs
        .iter()
        .filter_map(|p| match p {
            Paired::Both(s, n) if compare_plans(&s.split, &n.split).is_none() => Some((*n).clone()),
            Paired::NativeOnly(n) => Some((*n).clone()),
            _ => None,
        })
        .collect();
    if let Err(e) = native.begin_read(&table, planned, end, &to_read) {
        return Ok(reader_plan_failed(
            &table, native, options, mode, start, end, stock_plan, &e, started,
        ));
    }

    drop(planning);
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

    let limits = InFlight {
        threads: options.threads,
        budget_bytes: options.budget_bytes,
    };
    // Ctrl-C stops the replay after the split in hand; that split is still reported.
    let (splits, stopped) = compare_in_order(
        &table,
        stock,
        native,
        &pairs,
        &positions,
        limits,
        options.row_order(),
        |report| {
            bar.inc(1);
            bar.set_message(format!("{}", report.key));
            !interrupted()
        },
    );
    bar.finish_and_clear();
    let reader = native.side().to_string();
    let (mut totals, first_difference, verdict) =
        summarize(&splits, (end - start + 1).max(0), &reader, stopped);
    totals.wall_time_ms = started.elapsed().as_millis();
    totals.not_retained = not_retained.len();
    Ok(ReplayReport {
        reader,
        reader_version: native.reader_version(),
        table,
        from_snapshot: options.from_snapshot,
        mode,
        end_snapshot: end,
        splits,
        not_retained,
        totals,
        first_difference,
        verdict,
        shard: options.shard,
        plan_size: options.shard.map(|_| plan_size),
    })
}
