//! Avro data files (paimon-format `AvroFileFormat`, `AvroRowDatumReader`, `FieldReaderFactory`), decoded
//! straight from the Avro binary encoding into Arrow column buffers.
//!
//! The object container is read block by block (header with `avro.schema`, `avro.codec` and the sync
//! marker; then blocks of `count`, `size`, data, sync); a block is decompressed with its codec (`null`,
//! `deflate`, `snappy`, `zstandard`, `bzip2`, `xz` as far as `apache-avro` supports them) and its records
//! are decoded field by field into one typed buffer per requested column: a column's decoder is a tree built
//! once from the (writer schema, Paimon type) pair, so the per-value work is a match on that tree, with no
//! boxed per-row values. Unrequested fields are skipped by their schema.
//!
//! Read rules mirrored from the 1.0 reader (`AvroSchemaVisitor`, `FieldReaderFactory`):
//! * a nullable field is the union `["null", T]`: branch 0 is NULL (other unions: the branch's schema says);
//!   a top-level `["null", record]` union is unwrapped;
//! * TINYINT/SMALLINT are Avro `int` narrowed like Java's `(byte)`/`(short)` casts; DATE and TIME
//!   (`time-millis`) are `int`;
//! * TIMESTAMP/LTZ are `long`: `timestamp-millis`/`local-timestamp-millis` are epoch milliseconds
//!   (`Timestamp.fromEpochMillis`), `*-micros` epoch microseconds (`Timestamp.fromMicros`); the value is then
//!   exported in the unit of the column's precision as paimon-arrow does;
//! * DECIMAL is `bytes`/`fixed` with logical type `decimal(p, s)`: big-endian two's complement unscaled
//!   value at the file's scale, rescaled HALF_UP to the column's scale; a value with more digits than the
//!   column's precision is NULL (`Decimal.fromBigDecimal`);
//! * MAP with CHAR/VARCHAR keys (and MULTISET of strings) is an Avro `map`; other MAPs are an `array` of
//!   `{key, value}` records. Java collects either into a `java.util.HashMap`, so the released reader returns
//!   the entries in **HashMap iteration order**; [`map_order::java_map_order`] reproduces that order for keys whose Java
//!   `hashCode` is a function of the value (strings, integers, floats, booleans, decimals, timestamps). For
//!   BINARY/BYTES and nested keys Java hashes object identity, an order no reader can reproduce: those
//!   maps keep file order.
//! * ROW is a record whose fields are matched by name.
//!
//! Columns are matched **by name** in the writer schema; a name the file lacks reads as NULL.

mod column;
mod container;
mod cursor;
mod map_order;
mod schema;

#[cfg(test)]
mod tests;

use std::path::Path;

pub(crate) use self::container::open;
use crate::decode::{FileColumn, FormatReader, RawBatches};
use crate::error::Result;

/// Nesting limit of writer schemas (protects the recursive decoder from hostile schemas).
const MAX_DEPTH: usize = 64;

/// The Avro [`FormatReader`] (paimon-format `AvroFileFormat.createReaderFactory`): [`open`].
pub(crate) struct AvroReader;

impl FormatReader for AvroReader {
    fn open(&self, path: &Path, columns: &[FileColumn], batch_size: usize) -> Result<RawBatches> {
        open(path, columns, batch_size)
    }
}
