//! The one error type of this crate.

/// Why a query could not be registered or run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The native reader could not open, plan or read a table (its error names the file or table).
    #[error(transparent)]
    Native(Box<native_reader::Error>),
    /// DataFusion refused the query or failed running it (a SQL error names what it could not resolve).
    #[error("SQL: {0}")]
    DataFusion(Box<datafusion::error::DataFusionError>),
    /// A table name that cannot be registered (empty, or given twice).
    #[error("{0}")]
    Usage(String),
    /// A query scanned a metadata system table of a registered table that the native reader refuses to read
    /// (`$files` with a value it cannot render as the released reader does, a metadata file it cannot read),
    /// or named a view the release has none of.
    #[error("table `{table}` is not readable: {reason}")]
    Unread {
        /// The system table's name in the session, e.g. `t$files`.
        table: String,
        /// The native reader's error, naming the table or file.
        reason: String,
    },
    /// The row-count aggregation of an unordered diff stopped ([`crate::multiset::SpillingCounts`]), with
    /// DataFusion's words (a memory limit too small for a batch, a spill file that cannot be written).
    #[error("unordered row counts: {0}")]
    Aggregation(String),
    /// The query's runtime could not start.
    #[error("cannot start the query runtime: {0}")]
    Runtime(#[from] std::io::Error),
}

impl From<native_reader::Error> for Error {
    fn from(e: native_reader::Error) -> Self {
        Error::Native(Box::new(e))
    }
}

impl From<datafusion::error::DataFusionError> for Error {
    fn from(e: datafusion::error::DataFusionError) -> Self {
        Error::DataFusion(Box::new(e))
    }
}

/// The result of this crate's operations.
pub type Result<T> = std::result::Result<T, Error>;
