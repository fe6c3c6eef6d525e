//! Decoding data and changelog files into Arrow record batches.
//!
//! Two entry points:
//! * [`read_file`]: one file, lazily, as [`FileBatches`] — what both the no-merge reader and the merge-on-read
//!   reader build on (Paimon's `KeyValueFileReaderFactory` / `RawFileSplitRead.createFileReader` with
//!   `FormatReaderMapping` and `ApplyDeletionVectorReader`);
//! * [`SplitReader`]: a split read without merging (`KeyValueTableRead` with `isStreaming=true`, i.e. the
//!   no-merge reader, and `RawFileSplitRead` for raw-convertible splits): files in split order, rows in file
//!   order, each row with its stored RowKind (`_VALUE_KIND` of primary-key files; `+I` for append tables).
//!
//! How one file is read (mirrors `FormatReaderMapping` + `SchemaEvolutionUtil` + `CastExecutors` of 1.0):
//! 1. the format is the text after the last `.` of the file name ([`FileFormat::of`]);
//! 2. the file is read with the schema it was written with (`DataFileDesc::schema_id`): each column of the
//!    table's latest schema is looked up by **field id** in that schema and read by the name it has there
//!    (added columns are NULL, dropped columns are not read, renamed/reordered columns follow their id);
//! 3. each column is decoded into the Arrow type of its **file** type ([`crate::types::arrow_type`]) by the
//!    format's [`FormatReader`] ([`parquet`], [`orc`], [`avro`], chosen by [`FileFormat::reader`]), then cast to the read type with Paimon's cast rules
//!    ([`cast`]) when the type changed;
//! 4. the deletion vector, if any, drops the rows at deleted positions (row ordinals in the file).
//!
//! Partition columns are read from the file like every other column: 1.0 fills them from the split's
//! partition row instead, but every data file of a 1.0 table stores all table columns, partition columns
//! included, with the values of its partition, and partition columns cannot change type, so both give the
//! same values.
//!
//! Memory: one file open at a time and one batch of at most `batch_size` rows in flight (plus the format's
//! own buffers: one Parquet row group's pages, one ORC stripe, one Avro block). Parquet and ORC files are
//! mapped into memory ([`mapped`]): their column chunks are slices of the page cache, not heap copies. Decoding ahead
//! ([`crate::read::ahead`]) holds two files of a split open, or two readers of one file's column halves,
//! with at most two decoded batches waiting for each.

pub(crate) mod avro;
pub(crate) mod blob;
mod blob_bunch;
pub(crate) mod blob_ref;
pub(crate) mod cast;
pub(crate) mod conform;
mod error;
mod evolution;
mod failed_files;
mod file;
mod format;
mod lance;
pub mod mapped;
pub(crate) mod orc;
pub(crate) mod orc_tail;
pub(crate) mod parquet;
mod row_format;
mod shared_map;
mod split_reader;
mod text;
mod vector_bunch;
mod vortex;

#[cfg(test)]
mod tests;

pub(crate) use self::error::DecodeError;
pub(crate) use self::failed_files::FailedFiles;
pub use self::file::{file_read_schema, read_file, FileBatches};
pub(crate) use self::file::{read_file_with, SplitContext};
pub(crate) use self::format::FileColumn;
pub use self::format::FileFormat;
pub(crate) use self::format::{FormatReader, RawBatches};
pub use self::split_reader::SplitReader;

/// Name of the RowKind column inside primary-key data and changelog files (`SpecialFields.VALUE_KIND`).
pub(crate) const VALUE_KIND_COLUMN: &str = "_VALUE_KIND";

/// Name of the sequence-number column inside primary-key data and changelog files, and of the optional
/// leading column of [`FileBatches`] (`SpecialFields.SEQUENCE_NUMBER`).
pub(crate) const SEQUENCE_NUMBER_COLUMN: &str = "_SEQUENCE_NUMBER";

/// Default number of rows per decoded batch (the stock side exports batches of the same size).
pub const DEFAULT_BATCH_SIZE: usize = 4096;

/// What [`read_file`] returns besides the table's value columns, and how much at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileReadOptions {
    /// Prepend a `_SEQUENCE_NUMBER` Int64 NOT NULL column (`KeyValue.sequenceNumber`). Primary-key files
    /// store it; for append files (which do not) row `i` of the file gets `min_sequence_number + i`.
    pub with_sequence_number: bool,
    /// Maximum rows per batch (at least 1). Batches can be smaller (file ends, deleted rows dropped);
    /// empty batches are never returned.
    pub batch_size: usize,
    /// The file is read as `RawFileSplitRead` reads a batch split of a primary-key table without merging
    /// (a raw-convertible split, e.g. with deletion vectors): by the table's columns, not by the key-value
    /// layout the file holds. Formats that find columns by name read the same either way; a `csv` file of a
    /// primary-key table is then refused (its fields are positional).
    pub raw_table_read: bool,
}

impl Default for FileReadOptions {
    /// No sequence number, [`DEFAULT_BATCH_SIZE`] rows.
    fn default() -> Self {
        FileReadOptions {
            with_sequence_number: false,
            batch_size: DEFAULT_BATCH_SIZE,
            raw_table_read: false,
        }
    }
}
