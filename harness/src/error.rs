//! The one error type of the harness, and the exit codes it maps to.

use std::path::PathBuf;

/// Which reader an error came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The released Paimon Java reader, driven through `jvm-bridge`.
    Stock,
    /// The native reader (`native-reader`).
    Native,
    /// An external reader speaking `paimon-parity-reader/1`, by its declared name (`crate::external`).
    External(&'static str),
}

/// How an external reader failed on a split (its stream's `paimon.parity.status`, or the harness's
/// finding that its output is unusable).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExternalFailure {
    /// The reader failed: its own `error` status, a crash, a timeout, output that is not Arrow IPC, a wrong
    /// schema, a stream missing.
    Error,
    /// The reader does not implement something the split needs (`unsupported` status).
    Unsupported,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::Stock => "stock",
            Side::Native => "native",
            Side::External(name) => name,
        })
    }
}

/// Every way the harness can fail. All of them mean "a table could not be read" (exit 2), never
/// "the readers differ" (exit 1), which is a report, not an error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The table directory is missing or is not a Paimon table.
    #[error("{path}: {reason}")]
    Table { path: PathBuf, reason: String },
    /// A table file could not be opened or parsed: `{path}: {context}: {source}` (`{path}: {source}` without
    /// a context), the underlying I/O, JSON, Parquet or ORC error kept as the source.
    #[error("{path}: {}{source}", prefix(context))]
    TableSource {
        /// The file or directory.
        path: PathBuf,
        /// What was being done, e.g. `not JSON`; may be empty.
        context: String,
        /// The underlying error.
        #[source]
        source: BoxError,
    },
    /// A report file cannot be read, or cannot be used: merged with the others (`report merge`), taken a
    /// finding from (`retain --report`: another command, no release named), or was never written (the replay
    /// or audit `retain` runs wrote none). The file and what is wrong, the I/O or JSON error kept as the
    /// source when there is one.
    #[error("{path}: {reason}")]
    Report {
        /// The report file.
        path: PathBuf,
        /// What is wrong, e.g. `shard 2/4 is missing`.
        reason: String,
        /// The underlying error (reading, JSON), if any.
        #[source]
        source: Option<BoxError>,
    },
    /// The native reader failed.
    #[error("native reader: {0}")]
    Native(#[source] Box<native_reader::Error>),
    /// The stock reader (or its JVM) failed.
    #[error("stock reader: {0}")]
    Stock(#[from] jvm_bridge::Error),
    /// A SQL query could not be registered or run (`paimon-parity sql`).
    #[error("sql: {0}")]
    Sql(#[from] paimon_sql::Error),
    /// A file the harness writes (report, corpus description) could not be written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A reader could not plan the table: the failing reader's error (the native one when both fail) and
    /// what the other reader did with the table, its own error or the splits it planned, so that a table
    /// one reader rejects and the other accepts is reported as such.
    #[error("{failed}; {other}")]
    Plan {
        /// The error of the reader that failed.
        failed: Box<Error>,
        /// The other reader's outcome, in words.
        other: String,
    },
    /// An external reader failed, or answered `unsupported`, on a split or on the whole request:
    /// `{reader}: {message}`, then what it printed on stderr (last lines). A replay reports it as that
    /// reader's `reader error` or `unsupported` verdict (exit 1), never as an unreadable table.
    #[error("{reader}: {message}{}", stderr_suffix(stderr))]
    External {
        /// The reader's declared name.
        reader: String,
        /// Error or unsupported.
        kind: ExternalFailure,
        /// What failed, in words.
        message: String,
        /// The last lines of its stderr, joined with ` | `; may be empty.
        stderr: String,
    },
    /// A command line that cannot be run as given (an unknown reader, a malformed flag).
    #[error("usage: {0}")]
    Usage(String),
    /// A corpus scenario is invalid.
    #[error("scenario: {0}")]
    Scenario(String),
    /// A corpus scenario cannot be read, encoded or folded: `scenario: {context}: {source}` (`scenario:
    /// {source}` without a context), the JSON or Arrow error kept as the source.
    #[error("scenario: {}{source}", prefix(context))]
    ScenarioSource {
        /// What was being done (a file, `primary key columns`); may be empty.
        context: String,
        /// The underlying error.
        #[source]
        source: BoxError,
    },
    /// The rows a reader returned cannot be compared: `cannot compare rows: {context}: {source}`, the
    /// Arrow error kept as the source.
    #[error("cannot compare rows: {context}: {source}")]
    CompareSource {
        /// Which side's rows and what failed, e.g. `stock batch cannot be normalized`.
        context: String,
        /// The underlying error.
        #[source]
        source: BoxError,
    },
    /// The rows a reader returned cannot be compared (a batch that cannot be normalized, a column type the
    /// `--unordered` row format does not support).
    #[error("cannot compare rows: {0}")]
    Compare(String),
    /// An evidence bundle (`paimon-parity retain`) cannot be read, or is damaged: `bundle {path}: {source}`,
    /// the source naming what is wrong (`crate::bundle::Damage`: truncated, a changed or missing file, a path
    /// that escapes the bundle, an absolute path, a link, a manifest that cannot be read), its own I/O, zstd
    /// or JSON error kept below it. Exit 2.
    #[error("bundle {path}: {source}")]
    Bundle {
        /// The bundle file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: BoxError,
    },
}

impl From<native_reader::Error> for Error {
    fn from(e: native_reader::Error) -> Self {
        Error::Native(Box::new(e))
    }
}

/// The source of an error variant that wraps a library error (I/O, JSON, Arrow, Parquet, ORC).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// `"; stderr: {tail}"`, or nothing for an empty tail.
fn stderr_suffix(tail: &str) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!("; stderr: {tail}")
    }
}

/// `"{context}: "`, or nothing for an empty context.
fn prefix(context: &str) -> String {
    if context.is_empty() {
        String::new()
    } else {
        format!("{context}: ")
    }
}

/// Result alias of the harness.
pub type Result<T> = std::result::Result<T, Error>;

/// Exit status when both readers agree on every split and row.
pub const EXIT_IDENTICAL: i32 = 0;
/// Exit status when the readers differ (planning or decoding).
pub const EXIT_DIFFERENT: i32 = 1;
/// Exit status when either side could not read the table.
pub const EXIT_UNREADABLE: i32 = 2;
/// Exit status when the run compared nothing: both readers planned no split for the scan (an empty table,
/// a stream start past the last snapshot, a batch scan of a table whose files all sit in the postpone
/// bucket), so there is no evidence either way. Not IDENTICAL.
pub const EXIT_NOTHING_COMPARED: i32 = 3;
/// Exit status of a replay stopped by Ctrl-C (128 + SIGINT, as shells report it); its partial summary is
/// printed and written.
pub const EXIT_INTERRUPTED: i32 = 130;

/// How bad an exit status is, for the worst of many runs: unreadable, then different, then nothing
/// compared, then identical (an unknown status counts as the worst).
pub fn exit_severity(code: i32) -> u8 {
    match code {
        EXIT_IDENTICAL => 0,
        EXIT_NOTHING_COMPARED => 1,
        EXIT_DIFFERENT => 2,
        EXIT_UNREADABLE => 3,
        _ => 4,
    }
}
