//! The arguments of `paimon-parity bench`.

use std::path::PathBuf;

// The arguments of `bench` (no doc comment here: clap takes the subcommand's about text from the variant).
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// The table directory.
    pub table: PathBuf,
    /// Also read the same splits natively from a copy of the table in an object store (e.g.
    /// s3://bucket/wh/db.db/t on a local server, with --option or the AWS environment): native-1t-store and
    /// native-par-store beside native-1t and native-par, the ratio to disk, and requests and bytes per
    /// split.
    #[arg(long, value_name = "URI")]
    pub store: Option<PathBuf>,
    /// Write the report as JSON to FILE (default `benches/results/<UTC timestamp>.json`).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Timed samples per measurement (after one warm-up run).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub samples: usize,
    /// Threads of the parallel native run (default: available cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Native reader and plain decoding only (no JVM).
    #[arg(long)]
    pub native_only: bool,
    /// Read only the first N splits of each kind (e.g. 1: how a table with a single split uses the
    /// threads, through decoding ahead inside the split).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_splits: Option<u64>,
    /// `native-par` reads each split on one thread: no decoding inside a split in parallel (sorted runs,
    /// next file, column halves), to see what that parallelism brings.
    #[arg(long)]
    pub no_decode_ahead: bool,
    /// Measure only these split kinds (default: every kind the table has).
    #[arg(long, value_name = "KIND", value_delimiter = ',', value_parser = ["changelog", "raw", "merge"])]
    pub kind: Vec<String>,
    /// Skip the peak-RSS child run.
    #[arg(long)]
    pub no_rss: bool,
    /// MiB of decoded batches `native-par` may buffer ahead of the consumer over all splits in
    /// flight (default: the native reader's `ReadOptions::buffer_bytes`, 64 MiB).
    #[arg(long)]
    pub buffer_mib: Option<usize>,
    /// Released Paimon version of the stock reader and the release whose rules the native reader plans by; default
    /// 1.0.0, or `PAIMON_PARITY_PAIMON_VERSION`.
    #[arg(long, value_name = "VERSION")]
    pub paimon_version: Option<String>,
    /// Write one SVG flame graph per split kind of the native reader (one thread, at least 3 s of samples)
    /// into DIR (`changelog.svg`, `raw.svg`, `merge.svg`), and one of the fixed cost per split (every split
    /// opened and its first row read, over and over: `changelog-open-first-row.svg`, …).
    #[arg(long, value_name = "DIR")]
    pub flamegraph: Option<PathBuf>,
    /// Also write a self-contained HTML chart of rows/s per reader per kind, ratios marked, to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Compare with an earlier run's JSON (e.g. `benches/results/bench-pk-parquet.json`): per kind and
    /// reader, new rows/s against old.
    #[arg(long, value_name = "OLD.json")]
    pub compare: Option<PathBuf>,
    /// Also time these readers of the external protocol on the same splits (repeatable or comma-separated):
    /// a reader shipped in `adapters/readers.json` (`example`, `paimon-rust`, `pypaimon`) or one declared with
    /// `--reader-command`; each as `reader:NAME`, with its time to the first byte of each split's answer and
    /// from there to the last. The native reader is always measured.
    #[arg(long = "reader", value_name = "NAME", value_delimiter = ',')]
    pub readers: Vec<String>,
    /// Declares an external reader: `NAME=COMMAND`, as `replay --reader-command`. Repeatable.
    #[arg(long = "reader-command", value_name = "NAME=COMMAND")]
    pub reader_commands: Vec<String>,
    /// Seconds an external reader may take to answer one split.
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    pub reader_timeout: u64,
}
