//! The one error type of the native reader.

use std::path::PathBuf;

/// Every way the native reader can fail. Each variant names the file it was reading.
#[derive(Debug, thiserror::Error)]
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
    /// The thread pool of [`crate::read::read_splits`] could not be started.
    #[error("cannot start the native reader's thread pool: {reason}")]
    ThreadPool { reason: String },
    /// Snapshot chain problem: a snapshot that must exist is missing.
    #[error("{path}: {reason}")]
    Snapshot { path: PathBuf, reason: String },
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Wraps an I/O error with the path that was being read.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
