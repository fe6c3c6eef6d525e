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
//! * `replay-1t`, `replay-par`: the whole replay of the same splits (the released reader with export, the
//!   native reader and the row diff, `crate::replay::compare_splits`) on 1 thread and on `--threads`; its
//!   floor is `stock-export`, which a replay must read through (ratio `replay-1t vs stock-export`, at most 1);
//! * `plain`: parquet-rs / orc-rust decoding of the split's files, every column, no Paimon logic
//!   and apache-avro's row decoder for Avro;
//! * per-split fixed cost: time to the first batch of a one-row native read, of the plain footer parse,
//!   and of the bridge's first exported batch.
//!
//! The stock reader plans every split; the native reader reads the very same [`Split`] descriptions, so
//! both read the same files. Every sample is kept in the report.

mod chart;
mod compare;
mod environment;
mod kinds;
mod output;
mod plain;
mod profile;
mod store;
mod timing;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use native_reader::scan::ScanMode;
use native_reader::Table;
use serde::Serialize;

use crate::error::{Error, Result};

pub use chart::html_chart;
pub use compare::{compare, write_comparison, Comparison};
pub use environment::native_replay_rss;
pub(crate) use environment::workspace_dir;
use environment::{cpu_model, crate_versions, java_version, loadavg, measure_rss_child};
use kinds::bench_kind;
pub use kinds::plan_kinds;
pub use output::{default_json_path, write_text};
pub use plain::{plain_decode, split_files};
pub use profile::flamegraph;
pub use store::{StoreCopy, StoreRequests};
pub use timing::native_read_all;
pub(crate) use timing::{native_read_all_with, native_read_split};

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
    /// Measure the peak resident memory of a native-only replay in a child process.
    pub measure_rss: bool,
    /// Bytes of decoded batches `native-par` may buffer ahead of the consumer
    /// (`native_reader::read::ReadOptions::buffer_bytes`; default that of `ReadOptions::default()`).
    pub buffer_bytes: usize,
    /// Write one flame graph per kind of `native-1t` into this directory (`<kind>.svg`), and one of the
    /// fixed cost per split (`<kind>-open-first-row.svg`).
    pub flamegraph_dir: Option<PathBuf>,
    /// Read only the first this many splits of each kind (all when `None`).
    pub max_splits: Option<usize>,
    /// Measure only the kinds named here (`changelog`, `raw`, `merge`); every kind when empty.
    pub kinds: Vec<String>,
    /// `native-par` decodes inside each split in parallel too
    /// (`native_reader::read::ReadOptions::decode_ahead`; default true).
    pub decode_ahead: bool,
    /// A copy of the table in an object store, read natively beside the table on disk (`--store`).
    pub store: Option<PathBuf>,
}

impl Default for BenchOptions {
    fn default() -> Self {
        Self {
            samples: 5,
            threads: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            native_only: false,
            measure_rss: true,
            buffer_bytes: native_reader::read::ReadOptions::default().buffer_bytes,
            flamegraph_dir: None,
            max_splits: None,
            kinds: Vec::new(),
            decode_ahead: true,
            store: None,
        }
    }
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
    /// Peak resident memory of a native-only replay (child process), in bytes, or why it is missing.
    pub native_replay_peak_rss: Value,
}

/// Loosely typed extra results (the peak-RSS child's report, errors in words).
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
    /// Whether `native-par` also decodes inside each split in parallel
    /// (`native_reader::read::ReadOptions::decode_ahead`).
    pub decode_ahead: bool,
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
    /// The flame graph of `native-1t` on this kind (`--flamegraph DIR`), when written.
    pub flamegraph: Option<String>,
    /// Readers asked for (`--reader`) that could not be measured on this kind, with the reason.
    pub unmeasured: BTreeMap<String, String>,
    /// What one native read of the kind's splits from the store copy (`--store`) requested.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_requests: Option<StoreRequests>,
}

/// One measured reader over all splits of a kind.
#[derive(Clone, Debug, Serialize)]
pub struct Measurement {
    /// `native-1t`, `native-par`, `stock-export`, `stock-count`, `replay-1t`, `replay-par`, `plain`.
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
    /// The scan they come from (what an external reader is told) and its end snapshot.
    pub scan: (ScanMode, i64),
}

/// Runs the benchmark on `table` and prints progress to stderr.
///
/// Errors: a reader failing on the table ([`Error::Native`], [`Error::Stock`]), an unreadable file in the
/// plain decode ([`Error::Table`]).
pub fn run(
    table: &Path,
    opts: &BenchOptions,
    readers: &[Box<dyn crate::reader::TableReader>],
) -> Result<BenchReport> {
    let started = chrono::Utc::now().to_rfc3339();
    let load_before = loadavg();
    let native = Arc::new(Table::open_as(table, crate::reader::this_release()?)?);
    let end = native.latest_snapshot_id()?.ok_or_else(|| Error::Table {
        path: table.to_path_buf(),
        reason: "the table has no snapshot".into(),
    })?;
    let stock = if opts.native_only {
        None
    } else {
        Some(jvm_bridge::StockReader::new()?)
    };
    let store = match &opts.store {
        Some(uri) => Some(StoreCopy::open(table, &native, uri)?),
        None => None,
    };
    let mut kinds = plan_kinds(table, &native, stock.as_ref(), end)?;
    if !opts.kinds.is_empty() {
        kinds.retain(|k| opts.kinds.iter().any(|name| name == k.kind));
    }
    if let Some(n) = opts.max_splits {
        for k in &mut kinds {
            if k.splits.len() > n {
                k.splits.truncate(n);
                k.plan = format!("{}, first {n} splits", k.plan);
            }
        }
    }
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
        reports.push(bench_kind(
            table,
            &native,
            stock.as_ref(),
            k,
            opts,
            readers,
            store.as_ref(),
        )?);
    }
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
        decode_ahead: opts.decode_ahead,
    };
    Ok(BenchReport {
        table: table.display().to_string(),
        environment,
        kinds: reports,
        native_replay_peak_rss,
    })
}
