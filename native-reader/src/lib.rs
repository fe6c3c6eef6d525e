//! `native-reader`: a vectorized native reader of Apache Paimon tables.
//!
//! It reads a table directory (schema, snapshots, manifest lists and manifests), plans splits the way the
//! released Paimon Java reader of one release does (1.0.0 by default, or 1.0.1, 1.1.1, 1.2.0, 1.3.1, 1.4.2,
//! 2.0.0: [`line`], [`Table::open_as`]), and decodes data and changelog files into Arrow record batches with
//! each row's RowKind in a leading `_row_kind` Int8 column (0 `+I`, 1 `-U`, 2 `+U`, 3 `-D`).
//!
//! Modules are named after the Paimon concepts they mirror.

mod aggregate;
pub mod binary_row;
pub mod decode;
pub mod deletion_vector;
pub mod error;
pub mod evolution;
pub mod fileio;
pub(crate) mod java;
pub mod line;
pub mod manifest;
pub mod merge;
pub(crate) mod mergetree;
pub mod options;
pub mod partition;
pub mod read;
pub mod read_options;
pub mod row_kind;
pub mod scan;
pub mod schema;
pub mod snapshot;
pub mod split;
pub mod system;
pub mod table;
pub mod types;
pub mod value;
pub(crate) mod variant;

/// The sketch unions of the `theta_sketch` and `hll_sketch` aggregate functions.
pub use aggregate::sketch;
pub use error::{Cause, Error, ErrorKind, Result};
pub use line::{LineRules, PaimonRelease};
pub use row_kind::RowKind;
pub use split::{DataFileDesc, DeletionFileDesc, Split, SplitKey};
pub use table::Table;
