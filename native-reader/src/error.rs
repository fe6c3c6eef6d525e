//! The one error type of the native reader.

use std::path::PathBuf;

/// Every way the native reader can fail. Each variant names the file it was reading.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The path is not a Paimon table directory (no `schema/` directory or no `schema-N` file).
    #[error("{path}: not a Paimon table: {reason}")]
    NotATable { path: PathBuf, reason: String },
    /// An I/O error while reading a file.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A JSON metadata file (schema, snapshot, hint) is malformed.
    #[error("{path}: invalid JSON: {reason}")]
    Json { path: PathBuf, reason: String },
    /// A table option of the schema file `path` (or directory) has a value that does not parse, or that the
    /// release's validation refuses in this scan (`CoreOptions`, `SchemaValidation`):
    /// `{path}: invalid table option `{key}`: {reason}`.
    #[error("{path}: invalid table option `{key}`: {reason}")]
    InvalidOption {
        path: PathBuf,
        /// The option key, e.g. `bucket`.
        key: String,
        /// Why its value does not parse.
        reason: crate::options::ValueError,
    },
    /// An Avro manifest list, manifest or index manifest is malformed.
    #[error("{path}: invalid Avro: {reason}")]
    Avro { path: PathBuf, reason: String },
    /// A serialized BinaryRow (partition, key or stats) is malformed.
    #[error("{path}: invalid BinaryRow: {reason}")]
    BinaryRow { path: PathBuf, reason: String },
    /// A data or changelog file cannot be decoded.
    #[error("{path}: cannot decode: {reason}")]
    Decode { path: PathBuf, reason: String },
    /// A deletion vector (`index/index-*` file) is malformed or does not fit its data file; `path` is the
    /// index file, `reason` names the data file.
    #[error("{path}: invalid deletion vector: {reason}")]
    DeletionVector { path: PathBuf, reason: String },
    /// Merge-on-read rejected the table's options or a record, where the released reader throws too (e.g.
    /// a delete record reaching a `first-row` or `partial-update` merge, an aggregate function that cannot
    /// retract); `path` is the bucket directory or table, `reason` names the option, key or file.
    #[error("{path}: merge failed: {reason}")]
    Merge { path: PathBuf, reason: String },
    /// The table uses something this reader does not support yet.
    #[error("{path}: unsupported: {reason}")]
    Unsupported { path: PathBuf, reason: String },
    /// The release under test (`--paimon-version`) is not a line this reader mimics
    /// ([`crate::line::PaimonRelease::parse`]); `version` is the string as given.
    #[error("Paimon release `{version}`: unsupported: {reason}")]
    UnsupportedRelease { version: String, reason: String },
    /// The thread pool of [`crate::read::read_splits`] could not be started.
    #[error("cannot start the native reader's thread pool: {reason}")]
    ThreadPool { reason: String },
    /// Snapshot chain problem: a snapshot that must exist is missing.
    #[error("{path}: {reason}")]
    Snapshot { path: PathBuf, reason: String },
    /// A library (Arrow, Parquet, ORC, Avro, JSON, I/O) failed on `path`; the library's error is kept as the
    /// [`std::error::Error::source`]. The message reads as the matching variant above reads
    /// (`{path}: cannot decode: {context}: {source}`), `kind` saying which.
    #[error("{path}: {kind}{}", with_context(context, source))]
    Library {
        /// What was being done, as the other variants name it.
        kind: ErrorKind,
        /// The file.
        path: PathBuf,
        /// What was being read when the library failed (a footer, a column, a record); may be empty.
        context: String,
        /// The library's error (boxed: Parquet's and ORC's errors are large, and `Result<_, Error>` is returned
        /// on every path).
        #[source]
        source: Box<Cause>,
    },
}

/// What the native reader was doing when a library failed: the words of the matching [`Error`] variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A JSON metadata file ([`Error::Json`]).
    Json,
    /// An Avro manifest list, manifest or index manifest ([`Error::Avro`]).
    Avro,
    /// A data or changelog file ([`Error::Decode`]).
    Decode,
    /// A deletion vector ([`Error::DeletionVector`]).
    DeletionVector,
    /// A serialized BinaryRow ([`Error::BinaryRow`]).
    BinaryRow,
    /// Merge-on-read ([`Error::Merge`]).
    Merge,
    /// The snapshot chain ([`Error::Snapshot`]).
    Snapshot,
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The prefix each variant prints after `{path}: `, colon and space included.
        f.write_str(match self {
            ErrorKind::Json => "invalid JSON: ",
            ErrorKind::Avro => "invalid Avro: ",
            ErrorKind::Decode => "cannot decode: ",
            ErrorKind::DeletionVector => "invalid deletion vector: ",
            ErrorKind::BinaryRow => "invalid BinaryRow: ",
            ErrorKind::Merge => "merge failed: ",
            ErrorKind::Snapshot => "",
        })
    }
}

/// `context: source`, or `source` alone when there is no context.
fn with_context(context: &str, source: &Cause) -> String {
    if context.is_empty() {
        source.to_string()
    } else {
        format!("{context}: {source}")
    }
}

/// The library error underneath an [`Error::Library`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Cause {
    /// `arrow` (casts, record batches, IPC).
    #[error(transparent)]
    Arrow(#[from] arrow_schema::ArrowError),
    /// `parquet`.
    #[error(transparent)]
    Parquet(#[from] parquet::errors::ParquetError),
    /// `orc-rust` (boxed: the crate's error is large).
    #[error(transparent)]
    Orc(Box<orc_rust::error::OrcError>),
    /// `apache-avro` (boxed: the crate's error is large).
    #[error(transparent)]
    Avro(Box<apache_avro::Error>),
    /// `serde_json`.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// I/O.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// `vortex-file` and the Vortex crates under it (boxed: the crate's error is large).
    #[error(transparent)]
    Vortex(Box<vortex_error::VortexError>),
}

impl From<vortex_error::VortexError> for Cause {
    fn from(e: vortex_error::VortexError) -> Self {
        Cause::Vortex(Box::new(e))
    }
}

impl From<orc_rust::error::OrcError> for Cause {
    fn from(e: orc_rust::error::OrcError) -> Self {
        Cause::Orc(Box::new(e))
    }
}

impl From<apache_avro::Error> for Cause {
    fn from(e: apache_avro::Error) -> Self {
        Cause::Avro(Box::new(e))
    }
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// A library error on `path` while doing `kind`, with what was being read (`context`, may be empty);
    /// the library error stays the source.
    pub fn library(
        kind: ErrorKind,
        path: impl Into<PathBuf>,
        context: impl Into<String>,
        source: impl Into<Cause>,
    ) -> Self {
        Error::Library {
            kind,
            path: path.into(),
            context: context.into(),
            source: Box::new(source.into()),
        }
    }

    /// Wraps an I/O error with the path that was being read.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
