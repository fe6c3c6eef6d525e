//! Manifest lists, manifest files and index manifests (`org.apache.paimon.manifest.ManifestList`,
//! `ManifestFile`, `IndexManifestFile` with their `*Serializer`s), read from Avro object container files.
//!
//! Fields are matched **by name**, and fields absent from the writer's schema read as null, which is how
//! Java reads files of older writers (e.g. 0.9 `DataFileMeta` without `_VALUE_STATS_COLS`/`_EXTERNAL_PATH`)
//! and ignores fields of newer ones (1.1+ `_MIN_BUCKET`, 1.3+ `_FIRST_ROW_ID`, …). Nullable records are
//! written as `["null", record]` unions, the top-level record included; unions are unwrapped transparently.
//!
//! `manifest.format=orc` files hold the same records as ORC struct columns; they are decoded with `orc-rust`
//! and read through the same by-name field readers.
//!
//! Errors: [`Error::Io`] when a file cannot be read, [`Error::Unsupported`] for Parquet manifests
//! (`manifest.format=parquet`), [`Error::Avro`] naming the file for anything malformed (bad container,
//! missing required field, wrong type, unknown `_KIND`/`_VERSION`). Decoding never panics on bad bytes.

use std::path::Path;

use apache_avro::types::Value;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Whether a manifest entry adds or deletes a file (`FileKind`; `_KIND` 0 = ADD, 1 = DELETE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FileKind {
    /// `_KIND` = 0.
    Add,
    /// `_KIND` = 1.
    Delete,
}

/// Where a data file came from (`FileSource`; `_FILE_SOURCE` 0 = APPEND, 1 = COMPACT).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FileSource {
    /// Flushed new data.
    Append,
    /// Written by compaction.
    Compact,
}

/// One record of a manifest list (`ManifestFileMeta`, `_VERSION` 2). Partition stats are skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestFileMeta {
    /// Manifest file name, resolved in `<table>/manifest/` (`_FILE_NAME`).
    pub file_name: String,
    /// Size in bytes (`_FILE_SIZE`).
    pub file_size: i64,
    /// Number of ADD entries (`_NUM_ADDED_FILES`).
    pub num_added_files: i64,
    /// Number of DELETE entries (`_NUM_DELETED_FILES`).
    pub num_deleted_files: i64,
    /// Schema id at write time (`_SCHEMA_ID`).
    pub schema_id: i64,
}

/// A data or changelog file (`org.apache.paimon.io.DataFileMeta`, the `_FILE` record). Stats are skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataFileMeta {
    /// File name in the bucket directory (`_FILE_NAME`).
    pub file_name: String,
    /// Size in bytes (`_FILE_SIZE`).
    pub file_size: i64,
    /// All rows, retract rows included (`_ROW_COUNT`).
    pub row_count: i64,
    /// Serialized BinaryRow (arity prefix included) of the first trimmed-PK key (`_MIN_KEY`); empty row for
    /// append tables.
    pub min_key: Vec<u8>,
    /// Same for the last key (`_MAX_KEY`).
    pub max_key: Vec<u8>,
    /// `_MIN_SEQUENCE_NUMBER`.
    pub min_sequence_number: i64,
    /// `_MAX_SEQUENCE_NUMBER`.
    pub max_sequence_number: i64,
    /// Schema the file was written with (`_SCHEMA_ID`).
    pub schema_id: i64,
    /// LSM level (`_LEVEL`).
    pub level: i32,
    /// Extra files next to it, e.g. `<file>.index` (`_EXTRA_FILES`).
    pub extra_files: Vec<String>,
    /// Creation time, epoch milliseconds of the writer's local wall clock (`_CREATION_TIME`).
    pub creation_time: Option<i64>,
    /// Number of `-U`/`-D` rows (`_DELETE_ROW_COUNT`); `None` for files of ≤0.7 writers.
    pub delete_row_count: Option<i64>,
    /// Inlined file index (`_EMBEDDED_FILE_INDEX`), for filtering only.
    pub embedded_index: Option<Vec<u8>>,
    /// `_FILE_SOURCE`, 0.9+.
    pub file_source: Option<FileSource>,
    /// Columns covered by the value stats (`_VALUE_STATS_COLS`, 1.0+); `None` = all.
    pub value_stats_cols: Option<Vec<String>>,
    /// Absolute location when outside the table (`_EXTERNAL_PATH`, 1.0+; always null from 1.0 writers).
    pub external_path: Option<String>,
}

/// One record of a manifest file (`ManifestEntry`, `_VERSION` 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestEntry {
    /// ADD or DELETE (`_KIND`).
    pub kind: FileKind,
    /// Serialized partition BinaryRow, 4-byte arity prefix included (`_PARTITION`); Java compares
    /// partitions by these bytes.
    pub partition: Vec<u8>,
    /// Bucket (`_BUCKET`).
    pub bucket: i32,
    /// Table `bucket` option at write time (`_TOTAL_BUCKETS`).
    pub total_buckets: i32,
    /// The file (`_FILE`).
    pub file: DataFileMeta,
}

/// Where one deletion vector lives in an index file (`DeletionVectorMeta`, a `_DELETIONS_VECTORS_RANGES` row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeletionVectorMeta {
    /// The data file the deletion vector belongs to (`f0`).
    pub data_file_name: String,
    /// Byte offset of the vector's 4-byte length field in the index file (`f1`).
    pub offset: i32,
    /// Length as recorded (`f2`).
    pub length: i32,
    /// Number of deleted rows (`_CARDINALITY`, 1.0+; `None` from 0.9 writers).
    pub cardinality: Option<i64>,
}

/// Deletion-vector index type name (`DeletionVectorsIndexFile.DELETION_VECTORS_INDEX`).
pub const DELETION_VECTORS_INDEX: &str = "DELETION_VECTORS";
/// Dynamic-bucket hash index type name (`HashIndexFile.HASH_INDEX`).
pub const HASH_INDEX: &str = "HASH";

/// One record of an index manifest (`IndexManifestEntry`, `_VERSION` 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexManifestEntry {
    /// ADD or DELETE (`_KIND`); files referenced by snapshots hold only ADD.
    pub kind: FileKind,
    /// Serialized partition BinaryRow, arity prefix included (`_PARTITION`).
    pub partition: Vec<u8>,
    /// Bucket (`_BUCKET`).
    pub bucket: i32,
    /// [`DELETION_VECTORS_INDEX`] or [`HASH_INDEX`] (`_INDEX_TYPE`).
    pub index_type: String,
    /// Index file name in `<table>/index/` (`_FILE_NAME`).
    pub file_name: String,
    /// Size in bytes (`_FILE_SIZE`).
    pub file_size: i64,
    /// HASH: number of hashes; DELETION_VECTORS: number of vectors (`_ROW_COUNT`).
    pub row_count: i64,
    /// Deletion vectors in the file, in file order (`_DELETIONS_VECTORS_RANGES`); `None` for HASH.
    pub deletion_vectors: Option<Vec<DeletionVectorMeta>>,
}

/// Reads a manifest list: one [`ManifestFileMeta`] per manifest, in list order.
pub fn read_manifest_list(path: &Path) -> Result<Vec<ManifestFileMeta>> {
    manifest_list_from_bytes(path, &read_bytes(path)?)
}

/// [`read_manifest_list`] of the file's bytes, already in memory; `path` only names the file in errors.
pub fn manifest_list_from_bytes(path: &Path, bytes: &[u8]) -> Result<Vec<ManifestFileMeta>> {
    records_from_bytes(path, bytes, |r| {
        r.check_version(2)?;
        Ok(ManifestFileMeta {
            file_name: r.string("_FILE_NAME")?,
            file_size: r.long("_FILE_SIZE")?,
            num_added_files: r.long("_NUM_ADDED_FILES")?,
            num_deleted_files: r.long("_NUM_DELETED_FILES")?,
            schema_id: r.long("_SCHEMA_ID")?,
        })
    })
}

/// Reads a manifest file: its entries in file order.
pub fn read_manifest_file(path: &Path) -> Result<Vec<ManifestEntry>> {
    manifest_file_from_bytes(path, &read_bytes(path)?)
}

/// [`read_manifest_file`] of the file's bytes, already in memory; `path` only names the file in errors.
pub fn manifest_file_from_bytes(path: &Path, bytes: &[u8]) -> Result<Vec<ManifestEntry>> {
    records_from_bytes(path, bytes, |r| {
        r.check_version(2)?;
        let f = r.record("_FILE")?;
        Ok(ManifestEntry {
            kind: file_kind(r.int("_KIND")?)?,
            partition: r.bytes("_PARTITION")?,
            bucket: r.int("_BUCKET")?,
            total_buckets: r.int("_TOTAL_BUCKETS")?,
            file: DataFileMeta {
                file_name: f.string("_FILE_NAME")?,
                file_size: f.long("_FILE_SIZE")?,
                row_count: f.long("_ROW_COUNT")?,
                min_key: f.bytes("_MIN_KEY")?,
                max_key: f.bytes("_MAX_KEY")?,
                min_sequence_number: f.long("_MIN_SEQUENCE_NUMBER")?,
                max_sequence_number: f.long("_MAX_SEQUENCE_NUMBER")?,
                schema_id: f.long("_SCHEMA_ID")?,
                level: f.int("_LEVEL")?,
                extra_files: f.opt_strings("_EXTRA_FILES")?.unwrap_or_default(),
                creation_time: f.opt_long("_CREATION_TIME")?,
                delete_row_count: f.opt_long("_DELETE_ROW_COUNT")?,
                embedded_index: f.opt_bytes("_EMBEDDED_FILE_INDEX")?,
                file_source: f
                    .opt_int("_FILE_SOURCE")?
                    .map(|v| match v {
                        0 => Ok(FileSource::Append),
                        1 => Ok(FileSource::Compact),
                        other => Err(format!("unknown _FILE_SOURCE {other}")),
                    })
                    .transpose()?,
                value_stats_cols: f.opt_strings("_VALUE_STATS_COLS")?,
                external_path: f.opt_string("_EXTERNAL_PATH")?,
            },
        })
    })
}

/// Reads an index manifest: its entries in file order.
pub fn read_index_manifest(path: &Path) -> Result<Vec<IndexManifestEntry>> {
    index_manifest_from_bytes(path, &read_bytes(path)?)
}

/// [`read_index_manifest`] of the file's bytes, already in memory; `path` only names the file in errors.
pub fn index_manifest_from_bytes(path: &Path, bytes: &[u8]) -> Result<Vec<IndexManifestEntry>> {
    records_from_bytes(path, bytes, |r| {
        r.check_version(1)?;
        let deletion_vectors = match r.get("_DELETIONS_VECTORS_RANGES") {
            None => None,
            Some(Value::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    let dv = Rec::from_value(item, "_DELETIONS_VECTORS_RANGES element")?;
                    out.push(DeletionVectorMeta {
                        data_file_name: dv.string("f0")?,
                        offset: dv.int("f1")?,
                        length: dv.int("f2")?,
                        cardinality: dv.opt_long("_CARDINALITY")?,
                    });
                }
                Some(out)
            }
            Some(other) => return Err(type_error("_DELETIONS_VECTORS_RANGES", "array", other)),
        };
        Ok(IndexManifestEntry {
            kind: file_kind(r.int("_KIND")?)?,
            partition: r.bytes("_PARTITION")?,
            bucket: r.int("_BUCKET")?,
            index_type: r.string("_INDEX_TYPE")?,
            file_name: r.string("_FILE_NAME")?,
            file_size: r.long("_FILE_SIZE")?,
            row_count: r.long("_ROW_COUNT")?,
            deletion_vectors,
        })
    })
}

fn file_kind(v: i32) -> std::result::Result<FileKind, String> {
    match v {
        0 => Ok(FileKind::Add),
        1 => Ok(FileKind::Delete),
        other => Err(format!("unknown _KIND {other}")),
    }
}

const AVRO_MAGIC: &[u8] = b"Obj\x01";

fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io(path, e))
}

/// Reads every record of the bytes of an Avro container file through `convert`.
fn records_from_bytes<T>(
    path: &Path,
    bytes: &[u8],
    convert: impl Fn(&Rec<'_>) -> std::result::Result<T, String>,
) -> Result<Vec<T>> {
    let avro_err = |reason: String| Error::Avro {
        path: path.to_path_buf(),
        reason,
    };
    if bytes.starts_with(b"ORC") {
        // `manifest.format=orc`: the same records, as ORC struct columns.
        // The unwind guard keeps "never a panic" should a corner of the ORC decoder panic on bad bytes.
        let records = std::panic::catch_unwind(|| orc_records(bytes.to_vec()))
            .unwrap_or_else(|_| Err("the ORC decoder panicked on this file".into()))
            .map_err(|reason| Error::Avro {
                path: path.to_path_buf(),
                reason: format!("ORC manifest: {reason}"),
            })?;
        let mut out = Vec::with_capacity(records.len());
        for (i, value) in records.iter().enumerate() {
            let rec = Rec::from_value(value, "record")
                .and_then(|rec| convert(&rec))
                .map_err(|e| avro_err(format!("ORC record {i}: {e}")))?;
            out.push(rec);
        }
        return Ok(out);
    }
    if !bytes.starts_with(AVRO_MAGIC) {
        if bytes.starts_with(b"PAR1") {
            return Err(Error::Unsupported {
                path: path.to_path_buf(),
                reason: "Parquet manifest files (table option manifest.format) are not supported, only avro and orc".into(),
            });
        }
        return Err(avro_err(
            "not an Avro object container file (bad magic)".into(),
        ));
    }
    // apache-avro returns errors for malformed input; the unwind guard keeps "never a panic" even if a
    // corner of the decoder does not.
    let decoded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let reader = apache_avro::Reader::new(bytes).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for (i, value) in reader.enumerate() {
            let value = value.map_err(|e| format!("record {i}: {e}"))?;
            let rec = Rec::from_value(&value, "record").map_err(|e| format!("record {i}: {e}"))?;
            out.push(convert(&rec).map_err(|e| format!("record {i}: {e}"))?);
        }
        Ok::<_, String>(out)
    }));
    match decoded {
        Ok(r) => r.map_err(avro_err),
        Err(_) => Err(avro_err("the Avro decoder panicked on this file".into())),
    }
}

/// Decodes an ORC manifest (list, manifest or index manifest written with `manifest.format=orc`) into
/// one record value per row, fields by name, so that the Avro field readers apply unchanged.
/// Manifests are small metadata files: the whole file is decoded at once.
fn orc_records(bytes: Vec<u8>) -> std::result::Result<Vec<Value>, String> {
    let reader = orc_rust::ArrowReaderBuilder::try_new(bytes::Bytes::from(bytes))
        .map_err(|e| e.to_string())?
        .build();
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| e.to_string())?;
        let columns: Vec<(String, &dyn arrow_array::Array)> = batch
            .schema()
            .fields()
            .iter()
            .zip(batch.columns())
            .map(|(f, c)| (f.name().clone(), c.as_ref()))
            .collect();
        for row in 0..batch.num_rows() {
            let fields = columns
                .iter()
                .map(|(name, c)| Ok((name.clone(), arrow_value(*c, row)?)))
                .collect::<std::result::Result<Vec<_>, String>>()?;
            out.push(Value::Record(fields));
        }
    }
    Ok(out)
}

/// The value at `row` of an Arrow array as an Avro value (the types manifests use).
fn arrow_value(array: &dyn arrow_array::Array, row: usize) -> std::result::Result<Value, String> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    use arrow_schema::{DataType as A, TimeUnit};
    if array.is_null(row) {
        return Ok(Value::Null);
    }
    Ok(match array.data_type() {
        A::Boolean => Value::Boolean(array.as_boolean().value(row)),
        A::Int8 => Value::Int(array.as_primitive::<Int8Type>().value(row).into()),
        A::Int16 => Value::Int(array.as_primitive::<Int16Type>().value(row).into()),
        A::Int32 => Value::Int(array.as_primitive::<Int32Type>().value(row)),
        A::Int64 => Value::Long(array.as_primitive::<Int64Type>().value(row)),
        A::Float32 => Value::Float(array.as_primitive::<Float32Type>().value(row)),
        A::Float64 => Value::Double(array.as_primitive::<Float64Type>().value(row)),
        A::Utf8 => Value::String(array.as_string::<i32>().value(row).to_string()),
        A::Binary => Value::Bytes(array.as_binary::<i32>().value(row).to_vec()),
        A::Timestamp(unit, _) => {
            let millis = match unit {
                TimeUnit::Second => array.as_primitive::<TimestampSecondType>().value(row) * 1000,
                TimeUnit::Millisecond => array.as_primitive::<TimestampMillisecondType>().value(row),
                TimeUnit::Microsecond => array
                    .as_primitive::<TimestampMicrosecondType>()
                    .value(row)
                    .div_euclid(1000),
                TimeUnit::Nanosecond => array
                    .as_primitive::<TimestampNanosecondType>()
                    .value(row)
                    .div_euclid(1_000_000),
            };
            Value::TimestampMillis(millis)
        }
        A::Struct(fields) => {
            let s = array.as_struct();
            Value::Record(
                fields
                    .iter()
                    .zip(s.columns())
                    .map(|(f, c)| Ok((f.name().clone(), arrow_value(c.as_ref(), row)?)))
                    .collect::<std::result::Result<_, String>>()?,
            )
        }
        A::List(_) => {
            let values = array.as_list::<i32>().value(row);
            Value::Array(
                (0..values.len())
                    .map(|i| arrow_value(values.as_ref(), i))
                    .collect::<std::result::Result<_, String>>()?,
            )
        }
        other => return Err(format!("unexpected column type {other}")),
    })
}

fn unwrap_union(v: &Value) -> &Value {
    match v {
        Value::Union(_, inner) => unwrap_union(inner),
        other => other,
    }
}

fn type_error(field: &str, expected: &str, got: &Value) -> String {
    let kind = match got {
        Value::Null => "null",
        Value::Boolean(_) => "boolean",
        Value::Int(_) => "int",
        Value::Long(_) => "long",
        Value::Float(_) => "float",
        Value::Double(_) => "double",
        Value::Bytes(_) | Value::Fixed(..) => "bytes",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Map(_) => "map",
        Value::Record(_) => "record",
        _ => "another type",
    };
    format!("field `{field}`: expected {expected}, found {kind}")
}

/// A record whose fields are looked up by name.
struct Rec<'a> {
    fields: &'a [(String, Value)],
}

impl<'a> Rec<'a> {
    fn from_value(v: &'a Value, what: &str) -> std::result::Result<Self, String> {
        match unwrap_union(v) {
            Value::Record(fields) => Ok(Rec { fields }),
            other => Err(type_error(what, "record", other)),
        }
    }

    /// The field's value with unions unwrapped; `None` when absent or null.
    fn get(&self, name: &str) -> Option<&'a Value> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| unwrap_union(v))
            .filter(|v| !matches!(v, Value::Null))
    }

    fn required(&self, name: &str) -> std::result::Result<&'a Value, String> {
        self.get(name)
            .ok_or_else(|| format!("required field `{name}` is missing or null"))
    }

    fn check_version(&self, expected: i32) -> std::result::Result<(), String> {
        let v = self.int("_VERSION")?;
        if v != expected {
            return Err(format!("unsupported _VERSION {v}, expected {expected}"));
        }
        Ok(())
    }

    fn opt_long(&self, name: &str) -> std::result::Result<Option<i64>, String> {
        self.get(name)
            .map(|v| match v {
                Value::Long(x)
                | Value::TimestampMillis(x)
                | Value::TimestampMicros(x)
                | Value::LocalTimestampMillis(x)
                | Value::LocalTimestampMicros(x)
                | Value::TimeMicros(x) => Ok(*x),
                Value::Int(x) | Value::Date(x) | Value::TimeMillis(x) => Ok(*x as i64),
                other => Err(type_error(name, "long", other)),
            })
            .transpose()
    }

    fn long(&self, name: &str) -> std::result::Result<i64, String> {
        self.required(name)?;
        self.opt_long(name)?
            .ok_or_else(|| format!("required field `{name}` is missing or null"))
    }

    fn opt_int(&self, name: &str) -> std::result::Result<Option<i32>, String> {
        self.opt_long(name)?
            .map(|x| i32::try_from(x).map_err(|_| format!("field `{name}`: {x} is not an int")))
            .transpose()
    }

    fn int(&self, name: &str) -> std::result::Result<i32, String> {
        self.opt_int(name)?
            .ok_or_else(|| format!("required field `{name}` is missing or null"))
    }

    fn opt_string(&self, name: &str) -> std::result::Result<Option<String>, String> {
        self.get(name)
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                Value::Bytes(b) => String::from_utf8(b.clone())
                    .map_err(|_| format!("field `{name}`: invalid UTF-8")),
                other => Err(type_error(name, "string", other)),
            })
            .transpose()
    }

    fn string(&self, name: &str) -> std::result::Result<String, String> {
        self.opt_string(name)?
            .ok_or_else(|| format!("required field `{name}` is missing or null"))
    }

    fn opt_bytes(&self, name: &str) -> std::result::Result<Option<Vec<u8>>, String> {
        self.get(name)
            .map(|v| match v {
                Value::Bytes(b) | Value::Fixed(_, b) => Ok(b.clone()),
                Value::String(s) => Ok(s.as_bytes().to_vec()),
                other => Err(type_error(name, "bytes", other)),
            })
            .transpose()
    }

    fn bytes(&self, name: &str) -> std::result::Result<Vec<u8>, String> {
        self.opt_bytes(name)?
            .ok_or_else(|| format!("required field `{name}` is missing or null"))
    }

    fn opt_strings(&self, name: &str) -> std::result::Result<Option<Vec<String>>, String> {
        self.get(name)
            .map(|v| match v {
                Value::Array(items) => items
                    .iter()
                    .map(|item| match unwrap_union(item) {
                        Value::String(s) => Ok(s.clone()),
                        other => Err(type_error(name, "array of strings", other)),
                    })
                    .collect(),
                other => Err(type_error(name, "array", other)),
            })
            .transpose()
    }

    fn record(&self, name: &str) -> std::result::Result<Rec<'a>, String> {
        Rec::from_value(self.required(name)?, name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use apache_avro::{Codec, Schema, Writer};

    const ENTRY_SCHEMA_09: &str = r#"["null",{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},{"name":"_FILE","type":["null",{"type":"record","name":"record__FILE","fields":[{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},{"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},{"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null}]}],"default":null}]}]"#;

    fn entry_value(kind: i32, name: &str, version: i32) -> Value {
        let empty_row = vec![0u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        Value::Union(
            1,
            Box::new(Value::Record(vec![
                ("_VERSION".into(), Value::Int(version)),
                ("_KIND".into(), Value::Int(kind)),
                ("_PARTITION".into(), Value::Bytes(empty_row.clone())),
                ("_BUCKET".into(), Value::Int(3)),
                ("_TOTAL_BUCKETS".into(), Value::Int(4)),
                (
                    "_FILE".into(),
                    Value::Union(
                        1,
                        Box::new(Value::Record(vec![
                            ("_FILE_NAME".into(), Value::String(name.into())),
                            ("_FILE_SIZE".into(), Value::Long(100)),
                            ("_ROW_COUNT".into(), Value::Long(7)),
                            ("_MIN_KEY".into(), Value::Bytes(empty_row.clone())),
                            ("_MAX_KEY".into(), Value::Bytes(empty_row)),
                            ("_MIN_SEQUENCE_NUMBER".into(), Value::Long(1)),
                            ("_MAX_SEQUENCE_NUMBER".into(), Value::Long(7)),
                            ("_SCHEMA_ID".into(), Value::Long(0)),
                            ("_LEVEL".into(), Value::Int(0)),
                            (
                                "_EXTRA_FILES".into(),
                                Value::Array(vec![Value::String("x.index".into())]),
                            ),
                            (
                                "_CREATION_TIME".into(),
                                Value::Union(
                                    1,
                                    Box::new(Value::TimestampMillis(1_700_000_000_000)),
                                ),
                            ),
                            (
                                "_DELETE_ROW_COUNT".into(),
                                Value::Union(0, Box::new(Value::Null)),
                            ),
                        ])),
                    ),
                ),
            ])),
        )
    }

    fn write(path: &Path, schema: &str, values: Vec<Value>, codec: Codec) {
        let schema = Schema::parse_str(schema).unwrap();
        let mut w = Writer::with_codec(&schema, Vec::new(), codec);
        for v in values {
            w.append(v).unwrap();
        }
        std::fs::write(path, w.into_inner().unwrap()).unwrap();
    }

    #[test]
    fn reads_older_manifest_with_missing_trailing_fields() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("manifest-a-0");
        write(
            &p,
            ENTRY_SCHEMA_09,
            vec![
                entry_value(0, "data-1.parquet", 2),
                entry_value(1, "data-0.parquet", 2),
            ],
            Codec::Zstandard(Default::default()),
        );
        let entries = read_manifest_file(&p).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].kind, FileKind::Add);
        assert_eq!(entries[1].kind, FileKind::Delete);
        let f = &entries[0].file;
        assert_eq!(f.file_name, "data-1.parquet");
        assert_eq!(entries[0].bucket, 3);
        assert_eq!(entries[0].total_buckets, 4);
        assert_eq!(entries[0].partition.len(), 12);
        assert_eq!(f.row_count, 7);
        assert_eq!(f.extra_files, vec!["x.index".to_string()]);
        assert_eq!(f.creation_time, Some(1_700_000_000_000));
        assert_eq!(f.delete_row_count, None);
        assert_eq!(f.file_source, None);
        assert_eq!(f.external_path, None);
        assert_eq!(f.value_stats_cols, None);
    }

    #[test]
    fn bad_version_and_kind_are_avro_errors() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("manifest-v1");
        write(
            &p,
            ENTRY_SCHEMA_09,
            vec![entry_value(0, "d", 1)],
            Codec::Null,
        );
        let err = read_manifest_file(&p).unwrap_err();
        assert!(matches!(err, Error::Avro { .. }), "{err}");
        assert!(err.to_string().contains("_VERSION"));
        let p = dir.path().join("manifest-kind");
        write(
            &p,
            ENTRY_SCHEMA_09,
            vec![entry_value(5, "d", 2)],
            Codec::Null,
        );
        assert!(matches!(
            read_manifest_file(&p).unwrap_err(),
            Error::Avro { .. }
        ));
    }

    #[test]
    fn malformed_files_name_the_path() {
        let dir = tempfile::tempdir().unwrap();
        // not Avro at all
        let p = dir.path().join("manifest-garbage");
        std::fs::write(&p, b"hello world").unwrap();
        let err = read_manifest_file(&p).unwrap_err();
        assert!(matches!(err, Error::Avro { .. }), "{err}");
        assert!(err.to_string().contains("manifest-garbage"));
        // valid header, truncated body
        let good = dir.path().join("manifest-good");
        write(
            &good,
            ENTRY_SCHEMA_09,
            (0..50)
                .map(|i| entry_value(0, &format!("data-{i}"), 2))
                .collect(),
            Codec::Snappy,
        );
        let bytes = std::fs::read(&good).unwrap();
        for cut in [5, bytes.len() / 3, bytes.len() / 2, bytes.len() - 3] {
            let p = dir.path().join(format!("manifest-cut-{cut}"));
            std::fs::write(&p, &bytes[..cut]).unwrap();
            let err = read_manifest_file(&p).unwrap_err();
            assert!(matches!(err, Error::Avro { .. }), "cut {cut}: {err}");
            assert!(err.to_string().contains(&format!("manifest-cut-{cut}")));
        }
        // flipped bytes never panic
        for i in (4..bytes.len()).step_by(7) {
            let mut b = bytes.clone();
            b[i] ^= 0x5A;
            let p = dir.path().join("manifest-flip");
            std::fs::write(&p, &b).unwrap();
            let _ = read_manifest_file(&p);
            let _ = read_manifest_list(&p);
            let _ = read_index_manifest(&p);
        }
        // a manifest list is not a manifest file
        let err = read_manifest_list(&good).unwrap_err();
        assert!(matches!(err, Error::Avro { .. }), "{err}");
        // missing file
        assert!(matches!(
            read_manifest_file(&dir.path().join("nope")).unwrap_err(),
            Error::Io { .. }
        ));
        // A truncated ORC manifest is an error naming the file, not a panic.
        let p = dir.path().join("manifest-orc");
        std::fs::write(&p, b"ORC\x11\x00\x00").unwrap();
        let err = read_manifest_file(&p).unwrap_err();
        assert!(matches!(err, Error::Avro { .. }), "{err}");
        assert!(err.to_string().contains("manifest-orc"));
        // Parquet manifests are not supported.
        std::fs::write(&p, b"PAR1\x00\x00").unwrap();
        assert!(matches!(
            read_manifest_file(&p).unwrap_err(),
            Error::Unsupported { .. }
        ));
    }

    #[test]
    fn reads_index_manifest_with_and_without_cardinality() {
        let schema = r#"["null",{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",{"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[{"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"},{"name":"_CARDINALITY","type":["null","long"],"default":null}]}]}],"default":null}]}]"#;
        let dv = |name: &str, off: i32, card: Option<i64>| {
            Value::Union(
                1,
                Box::new(Value::Record(vec![
                    ("f0".into(), Value::String(name.into())),
                    ("f1".into(), Value::Int(off)),
                    ("f2".into(), Value::Int(22)),
                    (
                        "_CARDINALITY".into(),
                        match card {
                            Some(c) => Value::Union(1, Box::new(Value::Long(c))),
                            None => Value::Union(0, Box::new(Value::Null)),
                        },
                    ),
                ])),
            )
        };
        let entry = |ty: &str, dvs: Option<Vec<Value>>| {
            Value::Union(
                1,
                Box::new(Value::Record(vec![
                    ("_VERSION".into(), Value::Int(1)),
                    ("_KIND".into(), Value::Int(0)),
                    ("_PARTITION".into(), Value::Bytes(vec![0; 12])),
                    ("_BUCKET".into(), Value::Int(1)),
                    ("_INDEX_TYPE".into(), Value::String(ty.into())),
                    ("_FILE_NAME".into(), Value::String("index-u-0".into())),
                    ("_FILE_SIZE".into(), Value::Long(64)),
                    ("_ROW_COUNT".into(), Value::Long(2)),
                    (
                        "_DELETIONS_VECTORS_RANGES".into(),
                        match dvs {
                            Some(d) => Value::Union(1, Box::new(Value::Array(d))),
                            None => Value::Union(0, Box::new(Value::Null)),
                        },
                    ),
                ])),
            )
        };
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("index-manifest-u-0");
        write(
            &p,
            schema,
            vec![
                entry(
                    DELETION_VECTORS_INDEX,
                    Some(vec![dv("data-a", 1, Some(3)), dv("data-b", 31, None)]),
                ),
                entry(HASH_INDEX, None),
            ],
            Codec::Null,
        );
        let got = read_index_manifest(&p).unwrap();
        assert_eq!(got.len(), 2);
        let dvs = got[0].deletion_vectors.as_ref().unwrap();
        assert_eq!(dvs[0].data_file_name, "data-a");
        assert_eq!(dvs[0].offset, 1);
        assert_eq!(dvs[0].length, 22);
        assert_eq!(dvs[0].cardinality, Some(3));
        assert_eq!(dvs[1].cardinality, None);
        assert_eq!(got[1].index_type, HASH_INDEX);
        assert_eq!(got[1].deletion_vectors, None);
    }
}
