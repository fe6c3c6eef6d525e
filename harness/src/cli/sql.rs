//! The arguments of `paimon-parity sql`.

use std::path::PathBuf;

// The arguments of `sql` (no doc comment here: clap takes the about text from the variant).
#[derive(clap::Args, Debug)]
pub struct SqlArgs {
    /// The query (DataFusion SQL). Quote system tables: `"t$snapshots"`.
    pub query: String,
    /// A Paimon table to query, as `NAME=LOCATION` (a directory or store URI); repeatable. The table's rows
    /// at its latest snapshot are `NAME`, its system tables `NAME$snapshots`, `NAME$schemas`, `NAME$options`,
    /// `NAME$tags`, `NAME$manifests`, `NAME$partitions`, `NAME$buckets`, `NAME$files`, and its split-shaped `NAME$audit_log`, `NAME$binlog`,
    /// `NAME$ro`.
    #[arg(long = "table", value_name = "NAME=LOCATION")]
    pub tables: Vec<String>,
    /// A Paimon table's streaming scan to query, as `NAME=LOCATION`; repeatable. `NAME` holds every change
    /// of every snapshot from the earliest retained one to the latest, as `replay --mode stream` reads them
    /// (`scan.mode=from-snapshot`), with `_row_kind` first (0 `+I`, 1 `-U`, 2 `+U`, 3 `-D`).
    #[arg(long = "stream", value_name = "NAME=LOCATION")]
    pub streams: Vec<String>,
    /// A table whose latest snapshot's batch scan is read by both readers, as the tables `stock` (the
    /// released reader) and `native`, each with `_row_kind` first: `SELECT * FROM native EXCEPT ALL
    /// SELECT * FROM stock` lists the rows only the native reader returned. Both sides are held in memory.
    #[arg(long, value_name = "TABLE")]
    pub replay: Option<PathBuf>,
    /// The release both readers follow (default 1.0.0, or `PAIMON_PARITY_PAIMON_VERSION`).
    #[arg(long, value_name = "VERSION")]
    pub paimon_version: Option<String>,
    /// Write the result as JSON (an array of objects, one per row) to FILE (`-`: standard output) instead
    /// of printing a table.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["csv", "arrow"])]
    pub json: Option<PathBuf>,
    /// Write the result as CSV with a header to FILE (`-`: standard output) instead of printing a table.
    #[arg(long, value_name = "FILE", conflicts_with = "arrow")]
    pub csv: Option<PathBuf>,
    /// Write the result as Arrow IPC (file format) to FILE instead of printing a table.
    #[arg(long, value_name = "FILE")]
    pub arrow: Option<PathBuf>,
}
