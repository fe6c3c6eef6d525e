//! `paimon-parity bench`: decode throughput of the native reader against the released Java reader on the same
//! splits, in the same run, and against plain parquet-rs / orc-rust decoding of the same files.
//!
//! Per split kind (streaming changelog splits, raw batch splits, merge-on-read batch splits) it times:
//!
//! * `native-1t`: the native reader (`native_reader::merge::read_split`) over every split on one thread;
//! * `native-par`: the same over as many threads as the machine has cores through
//!   `native_reader::read::read_splits` (a rayon pool, output kept in plan order);
//! * `stock-export`: the released reader through the bridge, rows exported to Arrow (Rust-side timing);
//! * `stock-count`: the released reader counting rows in Java, no export (`System.nanoTime` in Java);
//! * `plain`: parquet-rs / orc-rust decoding of the split's files, every column, no Paimon logic
//!   (not measured for Avro);
//! * per-split fixed cost: time to the first batch of a one-row native read, of the plain footer parse,
//!   and of the bridge's first exported batch.
//!
//! The stock reader plans every split; the native reader reads the very same [`Split`] descriptions, so
//! both read the same files. Every sample is kept in the report.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use native_reader::merge::{split_read_kind, SplitReadKind};
use native_reader::scan::ScanMode;
use native_reader::{Split, Table};
use serde::Serialize;

use crate::error::{Error, Result};

/// Rows per native batch in the throughput runs (the stock side exports 4096 too).
const BATCH_SIZE: usize = 4096;

/// What `paimon-parity bench` is asked to do.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Timed repetitions of every measurement (after one warm-up run).
    pub samples: usize,
    /// Threads of the parallel native run (default: available cores).
    pub threads: usize,
    /// Skip the released reader (no JVM).
    pub native_only: bool,
    /// The paimon-rust probe binary, when built.
    pub paimon_rust_probe: Option<PathBuf>,
    /// Measure the peak resident memory of a native-only replay in a child process.
    pub measure_rss: bool,
    /// Bytes of decoded batches `native-par` may buffer ahead of the consumer
    /// (`native_reader::read::ReadOptions::buffer_bytes`; default that of `ReadOptions::default()`).
    pub buffer_bytes: usize,
}

impl Default for BenchOptions {
    fn default() -> Self {
        Self {
            samples: 5,
            threads: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            native_only: false,
            paimon_rust_probe: default_probe(),
            measure_rss: true,
            buffer_bytes: native_reader::read::ReadOptions::default().buffer_bytes,
        }
    }
}

/// The paimon-rust probe built by `scripts/bench-paimon-rust`, if present: `$PAIMON_PARITY_PAIMON_RUST_PROBE`,
/// else the script's target directory `$PAIMON_PARITY_PROBE_TARGET` (default
/// `$HOME/.cache/paimon-parity/paimon-rust-probe-target`), else `benches/paimon-rust-probe/target`.
pub fn default_probe() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PAIMON_PARITY_PAIMON_RUST_PROBE") {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    let cache_target = std::env::var_os("PAIMON_PARITY_PROBE_TARGET")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|h| PathBuf::from(h).join(".cache/paimon-parity/paimon-rust-probe-target"))
        });
    cache_target
        .map(|t| t.join("release/paimon-rust-probe"))
        .into_iter()
        .chain(std::iter::once(workspace_dir().join(
            "benches/paimon-rust-probe/target/release/paimon-rust-probe",
        )))
        .find(|p| p.is_file())
}

/// The workspace directory this binary was built from (for `benches/results`).
pub fn workspace_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The default JSON path: `benches/results/<UTC timestamp>.json` in the workspace.
pub fn default_json_path() -> PathBuf {
    let ts = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    workspace_dir().join(format!("benches/results/{ts}.json"))
}

/// The whole benchmark report (also the JSON document).
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// The table directory.
    pub table: String,
    /// Machine, JVM, library versions, load.
    pub environment: Environment,
    /// One entry per split kind found in the table.
    pub kinds: Vec<KindReport>,
    /// paimon-rust (the `paimon` crate), run by its own probe binary, on a batch read of the latest snapshot.
    pub paimon_rust: Value,
    /// Peak resident memory of a native-only replay (child process), in bytes, or why it is missing.
    pub native_replay_peak_rss: Value,
}

/// Loosely typed extra results (probe output, errors in words).
pub type Value = serde_json::Value;

/// Where and with what the benchmark ran.
#[derive(Clone, Debug, Serialize)]
pub struct Environment {
    /// CPU model name (`/proc/cpuinfo`).
    pub cpu: String,
    /// Logical cores available to this process.
    pub cores: usize,
    /// `/proc/loadavg` before and after the run (the machine may be shared).
    pub load_before: String,
    /// See `load_before`.
    pub load_after: String,
    /// First line of `java -version`.
    pub java: String,
    /// `StockReader::paimon_version()`.
    pub paimon: String,
    /// Versions of the crates that decode (from the workspace's `Cargo.lock`).
    pub crates: BTreeMap<String, String>,
    /// Whether this binary was built with optimizations.
    pub optimized: bool,
    /// UTC start time.
    pub started: String,
    /// Timed samples per measurement.
    pub samples: usize,
    /// Threads of `native-par`.
    pub threads: usize,
    /// Bytes of decoded batches `native-par` buffers ahead of the consumer.
    pub buffer_bytes: usize,
}

/// Results for one split kind.
#[derive(Clone, Debug, Serialize)]
pub struct KindReport {
    /// `changelog` (streaming), `raw` (batch, no merge), `merge` (batch, merge-on-read).
    pub kind: String,
    /// The plan the splits come from, e.g. `stream from 1` or `batch snapshot 12`.
    pub plan: String,
    /// Number of splits.
    pub splits: usize,
    /// Number of data files in them.
    pub files: usize,
    /// Sum of the files' sizes.
    pub file_bytes: u64,
    /// Rows stored in the files.
    pub file_rows: u64,
    /// Rows the readers return (native; the stock count is in each measurement).
    pub rows: u64,
    /// Every measurement.
    pub measurements: Vec<Measurement>,
    /// Per-split fixed costs, mean microseconds per split (per file for `plain-footer`).
    pub fixed_cost_us: BTreeMap<String, f64>,
    /// Ratios of throughputs (median times), e.g. `native-1t / stock-export`.
    pub ratios: BTreeMap<String, f64>,
}

/// One measured reader over all splits of a kind.
#[derive(Clone, Debug, Serialize)]
pub struct Measurement {
    /// `native-1t`, `native-par`, `stock-export`, `stock-count`, `plain`.
    pub name: String,
    /// Rows returned (per sample; they must all agree).
    pub rows: u64,
    /// Every sample in seconds.
    pub samples_s: Vec<f64>,
    /// Median of the samples.
    pub median_s: f64,
    /// `rows / median_s`.
    pub rows_per_s: f64,
    /// File bytes of the kind / `median_s`, in MB (10^6 bytes) per second.
    pub mb_per_s: f64,
}

/// The splits of one kind, as the stock reader (or, without it, the native reader) planned them.
pub struct KindSplits {
    /// `changelog`, `raw` or `merge`.
    pub kind: &'static str,
    /// Which plan they come from.
    pub plan: String,
    /// The splits; `payload` is empty when the native reader planned them.
    pub splits: Vec<jvm_bridge::StockSplit>,
}

/// Runs the benchmark on `table` and prints progress to stderr.
///
/// Errors: a reader failing on the table ([`Error::Native`], [`Error::Stock`]), an unreadable file in the
/// plain decode ([`Error::Table`]).
pub fn run(table: &Path, opts: &BenchOptions) -> Result<BenchReport> {
    let started = chrono::Utc::now().to_rfc3339();
    let load_before = loadavg();
    let native = Arc::new(Table::open(table)?);
    let end = native.latest_snapshot_id()?.ok_or_else(|| Error::Table {
        path: table.to_path_buf(),
        reason: "the table has no snapshot".into(),
    })?;
    let stock = if opts.native_only {
        None
    } else {
        Some(jvm_bridge::StockReader::new()?)
    };
    let kinds = plan_kinds(table, &native, stock.as_ref(), end)?;
    let mut reports = Vec::new();
    for k in &kinds {
        eprintln!(
            "bench: {} ({}): {} splits, {} files",
            k.kind,
            k.plan,
            k.splits.len(),
            k.splits
                .iter()
                .map(|s| s.split.data_files.len())
                .sum::<usize>()
        );
        reports.push(bench_kind(table, &native, stock.as_ref(), k, opts)?);
    }
    let paimon_rust = match &opts.paimon_rust_probe {
        Some(p) => run_probe(p, table, opts.samples),
        None => {
            serde_json::json!({"available": false, "reason": "not built (scripts/bench-paimon-rust)"})
        }
    };
    let native_replay_peak_rss = if opts.measure_rss {
        measure_rss_child(table)
    } else {
        serde_json::json!({"available": false, "reason": "not measured"})
    };
    let paimon = match &stock {
        Some(s) => s.paimon_version()?,
        None => "not started".into(),
    };
    let environment = Environment {
        cpu: cpu_model(),
        cores: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        load_before,
        load_after: loadavg(),
        java: java_version(),
        paimon,
        crates: crate_versions(),
        optimized: !cfg!(debug_assertions),
        started,
        samples: opts.samples,
        threads: opts.threads,
        buffer_bytes: opts.buffer_bytes,
    };
    Ok(BenchReport {
        table: table.display().to_string(),
        environment,
        kinds: reports,
        paimon_rust,
        native_replay_peak_rss,
    })
}

/// Plans the splits of each kind. With the stock reader, its plans (so both sides read the same splits);
/// without it, the native plans (no payload).
///
/// Errors: either reader's planning errors.
pub fn plan_kinds(
    table: &Path,
    native: &Arc<Table>,
    stock: Option<&jvm_bridge::StockReader>,
    end: i64,
) -> Result<Vec<KindSplits>> {
    let plan = |mode: ScanMode| -> Result<Vec<jvm_bridge::StockSplit>> {
        match stock {
            Some(s) => Ok(s.plan(table, mode, end)?),
            None => Ok(native
                .plan(mode, end)?
                .into_iter()
                .map(|split| jvm_bridge::StockSplit {
                    split,
                    payload: Vec::new(),
                })
                .collect()),
        }
    };
    let mut out = Vec::new();
    let stream: Vec<_> = plan(ScanMode::Stream { from_snapshot: 1 })?
        .into_iter()
        .filter(|s| !s.split.data_files.is_empty())
        .collect();
    if !stream.is_empty() {
        out.push(KindSplits {
            kind: "changelog",
            plan: "stream from snapshot 1".into(),
            splits: stream,
        });
    }
    let pk = native.is_primary_key_table();
    let mut raw: Option<KindSplits> = None;
    let mut merge: Option<KindSplits> = None;
    // The latest snapshot that has splits of a kind supplies that kind's splits.
    let earliest = native.earliest_snapshot_id()?.unwrap_or(1);
    let mut id = end;
    while id >= earliest && (raw.is_none() || merge.is_none()) {
        let splits = plan(ScanMode::Batch { snapshot: Some(id) })?;
        let mut r = Vec::new();
        let mut m = Vec::new();
        for s in splits {
            match split_read_kind(pk, &s.split)? {
                // Batch plans carry no before-files, so `Changes` does not occur here.
                SplitReadKind::Merge | SplitReadKind::Changes => m.push(s),
                SplitReadKind::Raw | SplitReadKind::NoMerge => r.push(s),
            }
        }
        if raw.is_none() && !r.is_empty() {
            raw = Some(KindSplits {
                kind: "raw",
                plan: format!("batch snapshot {id}"),
                splits: r,
            });
        }
        if merge.is_none() && !m.is_empty() {
            merge = Some(KindSplits {
                kind: "merge",
                plan: format!("batch snapshot {id}"),
                splits: m,
            });
        }
        id -= 1;
    }
    out.extend(raw);
    out.extend(merge);
    Ok(out)
}

fn bench_kind(
    table: &Path,
    native: &Arc<Table>,
    stock: Option<&jvm_bridge::StockReader>,
    k: &KindSplits,
    opts: &BenchOptions,
) -> Result<KindReport> {
    let splits: Vec<Split> = k.splits.iter().map(|s| s.split.clone()).collect();
    let files = split_files(&splits);
    let file_bytes: u64 = splits
        .iter()
        .flat_map(|s| s.data_files.iter())
        .map(|f| f.file_size.max(0) as u64)
        .sum();
    let file_rows: u64 = splits.iter().map(|s| s.row_count().max(0) as u64).sum();
    let samples = opts.samples.max(1);
    let mut measurements = Vec::new();

    let native_1t = measure("native-1t", samples, file_bytes, || {
        native_read_all(native, &splits, 1)
    })?;
    let rows = native_1t.rows;
    measurements.push(native_1t);
    if opts.threads > 1 {
        measurements.push(measure("native-par", samples, file_bytes, || {
            native_read_all_with(native, &splits, opts.threads, opts.buffer_bytes)
        })?);
    }
    if let Some(stock) = stock {
        measurements.push(measure("stock-export", samples, file_bytes, || {
            let mut n = 0u64;
            for s in &k.splits {
                for b in stock.read_split(table, s)? {
                    n += b?.num_rows() as u64;
                }
            }
            Ok(n)
        })?);
        measurements.push(measure_java_count(
            stock, table, &k.splits, samples, file_bytes,
        )?);
    }
    // The plain decoders are a baseline, not a reader under test: when they cannot decode a file that
    // Paimon wrote (orc-rust overflows on year-9999 timestamps in nanoseconds), the baseline is left out
    // and the rest of the comparison still runs.
    match plain_measurement(&files, samples, file_bytes) {
        Ok(Some(plain)) => measurements.push(plain),
        Ok(None) => {}
        Err(e) => eprintln!("bench:   plain: not measured: {e}"),
    }

    let mut fixed_cost_us = BTreeMap::new();
    fixed_cost_us.insert(
        "native-open-first-row".into(),
        mean_us(samples, splits.len(), || {
            for s in &splits {
                let mut r = native_reader::merge::read_split(native, s, 1)?;
                if let Some(b) = r.next() {
                    b?;
                }
            }
            Ok(())
        })?,
    );
    if plain_format(&files).is_some() {
        fixed_cost_us.insert(
            "plain-footer-per-file".into(),
            mean_us(samples, files.len(), || {
                for f in &files {
                    plain_open(f)?;
                }
                Ok(())
            })?,
        );
    }
    if let Some(stock) = stock {
        fixed_cost_us.insert(
            "stock-open-first-batch".into(),
            mean_us(samples, splits.len(), || {
                for s in &k.splits {
                    let mut it = stock.read_split(table, s)?;
                    if let Some(b) = it.next() {
                        b?;
                    }
                }
                Ok(())
            })?,
        );
    }

    let median = |name: &str| {
        measurements
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.median_s)
    };
    let mut ratios = BTreeMap::new();
    let mut ratio = |label: &str, fast: &str, slow: &str| {
        if let (Some(f), Some(s)) = (median(fast), median(slow)) {
            if f > 0.0 {
                ratios.insert(label.to_string(), s / f);
            }
        }
    };
    ratio("native-1t vs stock-export", "native-1t", "stock-export");
    ratio("native-1t vs stock-count", "native-1t", "stock-count");
    ratio("native-1t vs plain", "native-1t", "plain");
    ratio("native-par vs native-1t", "native-par", "native-1t");
    ratio("native-par vs stock-export", "native-par", "stock-export");
    Ok(KindReport {
        kind: k.kind.into(),
        plan: k.plan.clone(),
        splits: splits.len(),
        files: files.len(),
        file_bytes,
        file_rows,
        rows,
        measurements,
        fixed_cost_us,
        ratios,
    })
}

/// One warm-up run, then `samples` timed runs of `f` (which returns the rows it read).
fn measure(
    name: &str,
    samples: usize,
    bytes: u64,
    mut f: impl FnMut() -> Result<u64>,
) -> Result<Measurement> {
    let rows = f()?;
    let mut times = Vec::with_capacity(samples);
    for _ in 0..samples {
        let t = Instant::now();
        let n = f()?;
        times.push(t.elapsed().as_secs_f64());
        if n != rows {
            return Err(Error::Compare(format!(
                "{name}: {n} rows in one run, {rows} in another"
            )));
        }
    }
    eprintln!(
        "bench:   {name}: {rows} rows, median {:.3} s",
        median_of(&times)
    );
    Ok(measurement(name, rows, times, bytes))
}

fn measurement(name: &str, rows: u64, samples_s: Vec<f64>, bytes: u64) -> Measurement {
    let median_s = median_of(&samples_s);
    let per_s = |x: f64| if median_s > 0.0 { x / median_s } else { 0.0 };
    Measurement {
        name: name.into(),
        rows,
        rows_per_s: per_s(rows as f64),
        mb_per_s: per_s(bytes as f64) / 1e6,
        samples_s,
        median_s,
    }
}

/// The Java-side time of counting every split's rows (`StockReader.countSplit`), per sample.
fn measure_java_count(
    stock: &jvm_bridge::StockReader,
    table: &Path,
    splits: &[jvm_bridge::StockSplit],
    samples: usize,
    bytes: u64,
) -> Result<Measurement> {
    let run = || -> Result<(u64, f64)> {
        let mut rows = 0u64;
        let mut nanos = 0i64;
        for s in splits {
            let (r, n) = stock.count_split(table, s)?;
            rows += r.max(0) as u64;
            nanos += n;
        }
        Ok((rows, nanos as f64 / 1e9))
    };
    let (rows, _) = run()?;
    let mut times = Vec::with_capacity(samples);
    for _ in 0..samples {
        let (n, t) = run()?;
        if n != rows {
            return Err(Error::Compare(format!(
                "stock-count: {n} rows in one run, {rows} in another"
            )));
        }
        times.push(t);
    }
    eprintln!(
        "bench:   stock-count: {rows} rows, median {:.3} s",
        median_of(&times)
    );
    Ok(measurement("stock-count", rows, times, bytes))
}

fn median_of(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Median over `samples` runs of `f` (after a warm-up), in microseconds per unit (`units` per run).
fn mean_us(samples: usize, units: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?;
    let mut times = Vec::with_capacity(samples);
    for _ in 0..samples {
        let t = Instant::now();
        f()?;
        times.push(t.elapsed().as_secs_f64());
    }
    Ok(median_of(&times) * 1e6 / units.max(1) as f64)
}

/// Reads every split with the native reader on `threads` threads; returns the rows read. More than one
/// thread goes through `native_reader::read::read_splits` (a rayon pool, splits handed out in plan order,
/// as a replay consumes them). One thread is a spawned thread rather than the caller's (which, with the stock
/// reader, is the thread that created the JVM), so that `native-1t` and `native-par` both decode on threads
/// of their own.
pub fn native_read_all(table: &Arc<Table>, splits: &[Split], threads: usize) -> Result<u64> {
    let buffer_bytes = native_reader::read::ReadOptions::default().buffer_bytes;
    native_read_all_with(table, splits, threads, buffer_bytes)
}

/// [`native_read_all`] with at most `buffer_bytes` of decoded batches buffered ahead of the consumer on
/// more than one thread (`native_reader::read::ReadOptions::buffer_bytes`): with few large splits, a small
/// budget holds every worker but the one on the split being consumed.
pub fn native_read_all_with(
    table: &Arc<Table>,
    splits: &[Split],
    threads: usize,
    buffer_bytes: usize,
) -> Result<u64> {
    if threads <= 1 {
        return std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let mut n = 0u64;
                    for s in splits {
                        n += native_read_split(table, s)?;
                    }
                    Ok(n)
                })
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
    }
    let options = native_reader::read::ReadOptions {
        threads,
        in_flight: 2 * threads,
        batch_size: BATCH_SIZE,
        buffer_bytes,
    };
    let mut n = 0u64;
    for split in native_reader::read::read_splits(table.clone(), splits.to_vec(), options)? {
        for batch in split {
            n += batch?.num_rows() as u64;
        }
    }
    Ok(n)
}

/// Reads one split natively; returns its rows.
pub fn native_read_split(table: &Arc<Table>, split: &Split) -> Result<u64> {
    let mut n = 0u64;
    for b in native_reader::merge::read_split(table, split, BATCH_SIZE)? {
        n += b?.num_rows() as u64;
    }
    Ok(n)
}

/// The plain format of `files` when all are Parquet or all ORC.
fn plain_format(files: &[PathBuf]) -> Option<&'static str> {
    let ext = |p: &PathBuf| {
        p.extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
    };
    let first = ext(files.first()?)?;
    if !files
        .iter()
        .all(|f| ext(f).as_deref() == Some(first.as_str()))
    {
        return None;
    }
    match first.as_str() {
        "parquet" => Some("parquet"),
        "orc" => Some("orc"),
        _ => None,
    }
}

fn plain_err(path: &Path, reason: impl std::fmt::Display) -> Error {
    Error::Table {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    }
}

enum PlainReader {
    Parquet(parquet::arrow::arrow_reader::ParquetRecordBatchReader),
    Orc(Box<orc_rust::ArrowReader<File>>),
}

/// Opens `path` with parquet-rs or orc-rust (footer parsed), all columns, batches of [`BATCH_SIZE`].
fn plain_open(path: &Path) -> Result<PlainReader> {
    let file = File::open(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    if ext.eq_ignore_ascii_case("orc") {
        let r = orc_rust::ArrowReaderBuilder::try_new(file)
            .map_err(|e| plain_err(path, e))?
            .with_batch_size(BATCH_SIZE)
            .build();
        Ok(PlainReader::Orc(Box::new(r)))
    } else {
        let r = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|e| plain_err(path, e))?
            .with_batch_size(BATCH_SIZE)
            .build()
            .map_err(|e| plain_err(path, e))?;
        Ok(PlainReader::Parquet(r))
    }
}

/// The data files of `splits`, as paths.
pub fn split_files(splits: &[Split]) -> Vec<PathBuf> {
    splits
        .iter()
        .flat_map(|s| {
            s.data_files
                .iter()
                .map(move |f| Path::new(&s.bucket_path).join(&f.file_name))
        })
        .collect()
}

/// Decodes `path` entirely with the plain format reader; returns its rows.
pub fn plain_decode(path: &Path) -> Result<u64> {
    let mut n = 0u64;
    match plain_open(path)? {
        PlainReader::Parquet(r) => {
            for b in r {
                n += b.map_err(|e| plain_err(path, e))?.num_rows() as u64;
            }
        }
        PlainReader::Orc(r) => {
            for b in r {
                n += b.map_err(|e| plain_err(path, e))?.num_rows() as u64;
            }
        }
    }
    Ok(n)
}

fn plain_measurement(files: &[PathBuf], samples: usize, bytes: u64) -> Result<Option<Measurement>> {
    if plain_format(files).is_none() {
        return Ok(None);
    }
    measure("plain", samples, bytes, || {
        let mut n = 0u64;
        for f in files {
            n += plain_decode(f)?;
        }
        Ok(n)
    })
    .map(Some)
}

/// Runs the paimon-rust probe: `<probe> <table> <samples>` printing one JSON object.
fn run_probe(probe: &Path, table: &Path, samples: usize) -> Value {
    let out = std::process::Command::new(probe)
        .arg(table)
        .arg(samples.to_string())
        .output();
    match out {
        Ok(o) => match serde_json::from_slice::<Value>(&o.stdout) {
            Ok(v) => v,
            Err(_) => serde_json::json!({
                "available": false,
                "reason": format!(
                    "probe exited with {} and no JSON: {}",
                    o.status,
                    String::from_utf8_lossy(&o.stderr).chars().take(2000).collect::<String>()
                ),
            }),
        },
        Err(e) => {
            serde_json::json!({"available": false, "reason": format!("cannot run {}: {e}", probe.display())})
        }
    }
}

/// Runs `paimon-parity bench-rss <table>` as a child (no JVM in it) and returns its report.
fn measure_rss_child(table: &Path) -> Value {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return serde_json::json!({"available": false, "reason": e.to_string()}),
    };
    match std::process::Command::new(exe)
        .arg("bench-rss")
        .arg(table)
        .output()
    {
        Ok(o) => serde_json::from_slice::<Value>(&o.stdout).unwrap_or_else(|_| {
            serde_json::json!({
                "available": false,
                "reason": String::from_utf8_lossy(&o.stderr).chars().take(2000).collect::<String>(),
            })
        }),
        Err(e) => serde_json::json!({"available": false, "reason": e.to_string()}),
    }
}

/// The native-only replay whose peak resident memory `bench` reports: the streaming plan from snapshot 1
/// and the batch plan of the latest snapshot, every split read natively on one thread. Returns the JSON
/// report (`rows`, `seconds`, `vm_hwm_bytes` from `/proc/self/status`).
///
/// Errors: the native reader's.
pub fn native_replay_rss(table: &Path) -> Result<Value> {
    let t = Instant::now();
    let native = Arc::new(Table::open(table)?);
    let end = native.latest_snapshot_id()?.unwrap_or(0);
    let mut rows = 0u64;
    let mut splits = 0usize;
    for mode in [
        ScanMode::Stream { from_snapshot: 1 },
        ScanMode::Batch { snapshot: None },
    ] {
        for s in native.plan(mode, end)? {
            rows += native_read_split(&native, &s)?;
            splits += 1;
        }
    }
    Ok(serde_json::json!({
        "available": true,
        "what": "native replay: stream from snapshot 1 and batch of the latest snapshot, one thread",
        "splits": splits,
        "rows": rows,
        "seconds": t.elapsed().as_secs_f64(),
        "vm_hwm_bytes": proc_status_kb("VmHWM").map(|k| k * 1024),
    }))
}

fn proc_status_kb(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with(key))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|_| "unknown".into())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn java_version() -> String {
    let java = std::env::var_os("JAVA_HOME")
        .map(|h| PathBuf::from(h).join("bin/java"))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("java"));
    match std::process::Command::new(java).arg("-version").output() {
        Ok(o) => String::from_utf8_lossy(&o.stderr)
            .lines()
            .next()
            .unwrap_or("unknown")
            .to_owned(),
        Err(e) => format!("unknown ({e})"),
    }
}

/// Versions of the decoding crates, read from the workspace's `Cargo.lock` at build time.
fn crate_versions() -> BTreeMap<String, String> {
    const LOCK: &str = include_str!("../../Cargo.lock");
    let wanted = ["arrow", "parquet", "orc-rust", "apache-avro", "jni", "zstd"];
    let mut out = BTreeMap::new();
    out.insert("harness".into(), env!("CARGO_PKG_VERSION").into());
    let mut name: Option<&str> = None;
    for line in LOCK.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"'));
        } else if let (Some(v), Some(n)) = (line.strip_prefix("version = "), name) {
            if wanted.contains(&n) {
                out.entry(n.to_owned())
                    .or_insert_with(|| v.trim_matches('"').to_owned());
            }
            name = None;
        }
    }
    out
}

/// Prints the report as a table: per kind, each measurement's rows/s and MB/s, then the ratios, fixed
/// costs, environment and samples.
pub fn write_text(out: &mut impl Write, r: &BenchReport) -> std::io::Result<()> {
    let e = &r.environment;
    writeln!(out, "table: {}", r.table)?;
    writeln!(
        out,
        "environment: {} ({} cores), {}, Paimon {}, optimized {}, load {} -> {}",
        e.cpu, e.cores, e.java, e.paimon, e.optimized, e.load_before, e.load_after
    )?;
    writeln!(
        out,
        "crates: {}",
        e.crates
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    for k in &r.kinds {
        writeln!(out)?;
        writeln!(
            out,
            "{} ({}): {} splits, {} files, {:.1} MB, {} file rows, {} rows returned",
            k.kind,
            k.plan,
            k.splits,
            k.files,
            k.file_bytes as f64 / 1e6,
            k.file_rows,
            k.rows
        )?;
        writeln!(
            out,
            "  {:<14} {:>10} {:>10} {:>12} {:>9}  samples (s)",
            "reader", "rows", "median s", "rows/s", "MB/s"
        )?;
        for m in &k.measurements {
            writeln!(
                out,
                "  {:<14} {:>10} {:>10.4} {:>12.0} {:>9.1}  {}",
                m.name,
                m.rows,
                m.median_s,
                m.rows_per_s,
                m.mb_per_s,
                m.samples_s
                    .iter()
                    .map(|s| format!("{s:.4}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            )?;
        }
        for (name, v) in &k.ratios {
            writeln!(out, "  ratio {name}: {v:.2}x")?;
        }
        for (name, v) in &k.fixed_cost_us {
            writeln!(out, "  fixed cost {name}: {v:.0} us")?;
        }
    }
    writeln!(out)?;
    writeln!(out, "paimon-rust: {}", r.paimon_rust)?;
    writeln!(out, "native replay peak RSS: {}", r.native_replay_peak_rss)?;
    Ok(())
}
