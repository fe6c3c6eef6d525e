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
//!    format module ([`parquet`], [`orc`], [`avro`]), then cast to the read type with Paimon's cast rules
//!    ([`cast`]) when the type changed;
//! 4. the deletion vector, if any, drops the rows at deleted positions (row ordinals in the file).
//!
//! Partition columns are read from the file like every other column: 1.0 fills them from the split's
//! partition row instead, but every data file of a 1.0 table stores all table columns, partition columns
//! included, with the values of its partition, and partition columns cannot change type, so both give the
//! same values.
//!
//! Memory: one file open at a time and one batch of at most `batch_size` rows in flight (plus the format's
//! own buffers: one Parquet row group's pages, one ORC stripe, one Avro block).

pub mod avro;
pub mod cast;
pub mod conform;
mod file;
pub mod orc;
pub(crate) mod orc_tail;
pub mod parquet;
mod split_reader;

#[cfg(test)]
mod tests;

use std::path::Path;

use arrow_array::ArrayRef;

use crate::error::{Error, Result};
use crate::schema::DataType;

pub use self::file::{file_read_schema, read_file, FileBatches};
pub use self::split_reader::SplitReader;

/// Name of the RowKind column inside primary-key data and changelog files (`SpecialFields.VALUE_KIND`).
pub const VALUE_KIND_COLUMN: &str = "_VALUE_KIND";

/// Name of the sequence-number column inside primary-key data and changelog files, and of the optional
/// leading column of [`FileBatches`] (`SpecialFields.SEQUENCE_NUMBER`).
pub const SEQUENCE_NUMBER_COLUMN: &str = "_SEQUENCE_NUMBER";

/// Default number of rows per decoded batch (the stock side exports batches of the same size).
pub const DEFAULT_BATCH_SIZE: usize = 4096;

/// The file formats a data file can have, taken from the text after the last `.` of its name
/// (`FormatReaderMapping` / `file.format.per.level`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    /// `.parquet` (paimon-format `ParquetFileFormat`).
    Parquet,
    /// `.orc` (paimon-format `OrcFileFormat`).
    Orc,
    /// `.avro` (paimon-format `AvroFileFormat`).
    Avro,
}

impl FileFormat {
    /// The format of `file_name`, or [`Error::Unsupported`] naming `path` for an unknown extension.
    pub fn of(file_name: &str, path: &Path) -> Result<FileFormat> {
        match file_name
            .rsplit('.')
            .next()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("parquet") => Ok(FileFormat::Parquet),
            Some("orc") => Ok(FileFormat::Orc),
            Some("avro") => Ok(FileFormat::Avro),
            _ => Err(Error::Unsupported {
                path: path.to_path_buf(),
                reason: format!("unknown file format of `{file_name}`"),
            }),
        }
    }
}

/// What [`read_file`] returns besides the table's value columns, and how much at a time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReadOptions {
    /// Prepend a `_SEQUENCE_NUMBER` Int64 NOT NULL column (`KeyValue.sequenceNumber`). Primary-key files
    /// store it; for append files (which do not) row `i` of the file gets `min_sequence_number + i`.
    pub with_sequence_number: bool,
    /// Maximum rows per batch (at least 1). Batches can be smaller (file ends, deleted rows dropped);
    /// empty batches are never returned.
    pub batch_size: usize,
}

impl Default for FileReadOptions {
    /// No sequence number, [`DEFAULT_BATCH_SIZE`] rows.
    fn default() -> Self {
        FileReadOptions {
            with_sequence_number: false,
            batch_size: DEFAULT_BATCH_SIZE,
        }
    }
}

/// One column requested from a format reader: its name and Paimon type in the file's own schema.
///
/// A format reader returns, per batch, one array per requested column in request order, each of exactly
/// `types::arrow_type(&data_type)` (nested field names and nullability included), rows in file order with
/// no row skipped.
#[derive(Clone, Debug)]
pub struct FileColumn {
    /// Column name in the file.
    pub name: String,
    /// Field id in the file's schema (Parquet `field_id`, ORC `paimon.id`); used only for messages.
    pub id: i32,
    /// Paimon type in the file's schema.
    pub data_type: DataType,
}

/// Batches of a format reader: (row count, one array per requested [`FileColumn`]).
pub(crate) type RawBatches = Box<dyn Iterator<Item = Result<(usize, Vec<ArrayRef>)>> + Send>;
