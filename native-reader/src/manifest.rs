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

/// The largest length or item count apache-avro may take from a manifest (`util::max_allocation_bytes`,
/// process-wide, set by the first manifest read): 16 MiB for a string, a bytes value or a block, and
/// 16 Mi items for an array or map, which apache-avro reserves up front (56 to 80 bytes per item) before
/// reading them. A corrupt count then costs at most about 1 GiB for a moment instead of aborting the
/// process. Paimon writes blocks of about 64 KiB, and no manifest field comes near these sizes.
pub const MAX_AVRO_ALLOCATION: usize = 16 << 20;

/// Reads one zig-zag variable-length long of the Avro binary encoding at `pos`.
fn avro_long(b: &[u8], pos: &mut usize) -> std::result::Result<i64, String> {
    let mut value: u64 = 0;
    for shift in (0..64).step_by(7) {
        let byte = *b
            .get(*pos)
            .ok_or_else(|| format!("truncated at byte {}", *pos))?;
        *pos += 1;
        value |= u64::from(byte & 0x7F) << shift;
        if byte & 0x80 == 0 {
            return Ok(((value >> 1) as i64) ^ -((value & 1) as i64));
        }
    }
    Err(format!(
        "a variable-length integer at byte {} is longer than 10 bytes",
        *pos
    ))
}

/// Checks the names and sizes of a writer schema (Avro schema JSON) before apache-avro parses it: apache-avro
/// 0.21 panics on a name or alias that is not an Avro name (`Name::new(..).unwrap()`) and allocates a
/// `fixed` value of the schema's size up front. Every `name`, `aliases` entry and named-type reference
/// must be dotted identifiers (`[A-Za-z_][A-Za-z0-9_]*`), a `namespace` too (or empty), and a `fixed`
/// size at most [`MAX_AVRO_ALLOCATION`]. Anything else wrong is left to apache-avro, which reports it.
fn check_writer_schema(json: &[u8]) -> std::result::Result<(), String> {
    fn is_name(s: &str) -> bool {
        let s = s.strip_prefix('.').unwrap_or(s);
        !s.is_empty()
            && s.split('.').all(|part| {
                let mut chars = part.chars();
                chars
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
    }
    fn name(v: &serde_json::Value, what: &str) -> std::result::Result<(), String> {
        match v {
            serde_json::Value::String(s) if is_name(s) => Ok(()),
            serde_json::Value::String(s) => Err(format!("{what} `{s}` is not an Avro name")),
            _ => Ok(()),
        }
    }
    fn walk(v: &serde_json::Value) -> std::result::Result<(), String> {
        match v {
            serde_json::Value::String(_) => name(v, "type"),
            serde_json::Value::Array(items) => items.iter().try_for_each(walk),
            serde_json::Value::Object(o) => {
                if let Some(n) = o.get("name") {
                    name(n, "name")?;
                }
                if let Some(serde_json::Value::String(ns)) = o.get("namespace") {
                    if !ns.is_empty() && !is_name(ns) {
                        return Err(format!("namespace `{ns}` is not an Avro name"));
                    }
                }
                if let Some(serde_json::Value::Array(aliases)) = o.get("aliases") {
                    aliases.iter().try_for_each(|a| name(a, "alias"))?;
                }
                if o.get("type").and_then(|t| t.as_str()) == Some("fixed") {
                    let size = o.get("size").and_then(serde_json::Value::as_u64);
                    if size.is_some_and(|n| n > MAX_AVRO_ALLOCATION as u64) {
                        return Err(format!(
                            "fixed size {} exceeds {MAX_AVRO_ALLOCATION}",
                            size.unwrap_or_default()
                        ));
                    }
                }
                for key in ["type", "items", "values"] {
                    if let Some(t) = o.get(key) {
                        walk(t)?;
                    }
                }
                if let Some(serde_json::Value::Array(fields)) = o.get("fields") {
                    for f in fields {
                        if let serde_json::Value::Object(f) = f {
                            if let Some(n) = f.get("name") {
                                name(n, "field name")?;
                            }
                            if let Some(serde_json::Value::Array(aliases)) = f.get("aliases") {
                                aliases.iter().try_for_each(|a| name(a, "alias"))?;
                            }
                            if let Some(t) = f.get("type") {
                                walk(t)?;
                            }
                        }
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
    let v: serde_json::Value =
        serde_json::from_slice(json).map_err(|e| format!("not JSON: {e}"))?;
    walk(&v)
}

/// Reads a length at `pos` and checks that that many bytes follow; returns it.
fn avro_len(b: &[u8], pos: &mut usize, what: &str) -> std::result::Result<usize, String> {
    let at = *pos;
    let len = avro_long(b, pos)?;
    usize::try_from(len)
        .ok()
        .filter(|n| *n <= b.len() - *pos)
        .ok_or_else(|| {
            format!(
                "{what} at byte {at} claims {len} bytes, {} remain",
                b.len() - *pos
            )
        })
}

/// Checks the framing of an Avro object container file without decoding values: the header's metadata map
/// (every count and length must fit in the bytes that follow), its writer schema ([`check_writer_schema`]),
/// the 16-byte sync marker, and every data block (object count, byte size within the file, the same sync
/// marker after it). The error is a reason.
fn check_container(b: &[u8]) -> std::result::Result<(), String> {
    let mut pos = AVRO_MAGIC.len();
    let mut schema = None;
    loop {
        let at = pos;
        let count = avro_long(b, &mut pos)?;
        if count == 0 {
            break;
        }
        if count < 0 {
            avro_long(b, &mut pos)?; // byte size of the block
        }
        let count = count.unsigned_abs();
        // Every entry is at least a key length and a value length.
        if count > ((b.len() - pos) / 2) as u64 {
            return Err(format!(
                "header metadata map at byte {at} claims {count} entries in {} bytes",
                b.len() - pos
            ));
        }
        for _ in 0..count {
            let key = avro_len(b, &mut pos, "header metadata key")?;
            let name = &b[pos..pos + key];
            pos += key;
            let value = avro_len(b, &mut pos, "header metadata value")?;
            if name == b"avro.schema" {
                schema = Some(&b[pos..pos + value]);
            }
            pos += value;
        }
    }
    check_writer_schema(schema.ok_or("the header has no avro.schema")?)
        .map_err(|e| format!("the header's writer schema: {e}"))?;
    let sync = b
        .get(pos..pos + 16)
        .ok_or("truncated in the header's sync marker")?;
    pos += 16;
    let mut block = 0usize;
    while pos < b.len() {
        let at = pos;
        let objects = avro_long(b, &mut pos)?;
        if objects < 0 {
            return Err(format!(
                "block {block} at byte {at}: negative object count {objects}"
            ));
        }
        let size = avro_len(b, &mut pos, &format!("block {block}"))?;
        pos += size;
        if b.get(pos..pos + 16) != Some(sync) {
            return Err(format!(
                "block {block} at byte {at}: no sync marker after its {size} bytes (truncated or corrupt)"
            ));
        }
        pos += 16;
        block += 1;
    }
    Ok(())
}

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
    // apache-avro sizes buffers and collections from counts in the file before reading their items: check
    // the container framing here, and bound what one count may allocate (see MAX_AVRO_ALLOCATION).
    check_container(bytes).map_err(avro_err)?;
    apache_avro::util::max_allocation_bytes(MAX_AVRO_ALLOCATION);
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
    let tail = &bytes[bytes
        .len()
        .saturating_sub(crate::decode::orc_tail::TAIL_LEN as usize)..];
    crate::decode::orc_tail::check_tail(tail, bytes.len() as u64).map_err(|e| e.to_string())?;
    let bytes = crate::decode::orc_tail::Bounded(bytes::Bytes::from(bytes));
    let reader = orc_rust::ArrowReaderBuilder::try_new(bytes)
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
                TimeUnit::Millisecond => {
                    array.as_primitive::<TimestampMillisecondType>().value(row)
                }
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

    /// Found by the `manifest` fuzz target: a 2 KB file whose header metadata map claims billions of
    /// entries made apache-avro reserve them up front (`malloc` of 10 GB, an abort). Now an Avro error.
    #[test]
    fn header_map_with_a_huge_count_is_an_error_not_an_allocation() {
        let path = Path::new("manifest-oom");
        let crashing = include_bytes!("../tests/fuzz-regressions/manifest-oom-header-map");
        let mut huge = AVRO_MAGIC.to_vec();
        huge.extend_from_slice(&[0xFE, 0xFF, 0xFF, 0xFF, 0x7F]); // zig-zag 2^34 - 1 entries
        huge.extend_from_slice(b"avro.codec");
        for bytes in [&crashing[..], &huge[..]] {
            for err in [
                manifest_list_from_bytes(path, bytes).unwrap_err(),
                manifest_file_from_bytes(path, bytes).unwrap_err(),
                index_manifest_from_bytes(path, bytes).unwrap_err(),
            ] {
                assert!(matches!(err, Error::Avro { .. }), "{err}");
                let text = err.to_string();
                assert!(
                    text.contains("manifest-oom") && text.contains("entries"),
                    "{text}"
                );
            }
        }
        // What one count may allocate is bounded for the whole process.
        assert_eq!(
            apache_avro::util::max_allocation_bytes(usize::MAX),
            MAX_AVRO_ALLOCATION
        );
    }

    /// Found by the `manifest` fuzz target: a writer schema naming a record `record__FILE__VALUE_ST TS`
    /// made apache-avro panic (`Name::new(..).unwrap()`). Now an Avro error naming the bad name.
    #[test]
    fn invalid_names_in_the_writer_schema_are_errors_not_panics() {
        let path = Path::new("manifest-bad-name");
        let crashing = include_bytes!("../tests/fuzz-regressions/manifest-panic-schema-name");
        let err = manifest_file_from_bytes(path, crashing).unwrap_err();
        assert!(matches!(err, Error::Avro { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("`record__FILE__VALUE_ST TS` is not an Avro name"),
            "{err}"
        );
        let ok = |json: &str| check_writer_schema(json.as_bytes());
        assert!(ok(ENTRY_SCHEMA_09).is_ok());
        for bad in [
            r#"{"type":"record","name":"a b","fields":[]}"#,
            r#"{"type":"record","name":"r","namespace":"x..y","fields":[]}"#,
            r#"{"type":"record","name":"r","aliases":["1x"],"fields":[]}"#,
            r#"{"type":"record","name":"r","fields":[{"name":"f","type":"no such"}]}"#,
            r#"{"type":"record","name":"r","fields":[{"name":"f","type":["null",{"type":"array","items":"a-b"}]}]}"#,
            r#"{"type":"fixed","name":"f","size":1000000000000}"#,
            "not json",
        ] {
            assert!(ok(bad).is_err(), "{bad}");
        }
    }

    /// Found by the `manifest` fuzz target: ORC manifests whose tail announces lengths past the file (a
    /// slice past the end in `orc-rust`) are rejected before `orc-rust` reads them; one whose footer's
    /// root type is not a struct trips an `orc-rust` assertion, which the unwind guard turns into an
    /// error naming the file (the panic message still reaches stderr: `orc-rust` 0.9 asserts instead of
    /// returning an error there).
    #[test]
    fn corrupt_orc_manifests_are_errors() {
        let path = Path::new("manifest-orc");
        let past_end = include_bytes!("../tests/fuzz-regressions/manifest-orc-tail-past-end");
        let err = manifest_file_from_bytes(path, past_end).unwrap_err();
        assert!(
            err.to_string().contains("postscript announces a footer"),
            "{err}"
        );
        let not_struct = include_bytes!("../tests/fuzz-regressions/manifest-orc-root-not-struct");
        let err = manifest_list_from_bytes(path, not_struct).unwrap_err();
        assert!(matches!(err, Error::Avro { .. }), "{err}");
        assert!(err.to_string().contains("manifest-orc"), "{err}");
    }

    #[test]
    fn container_framing_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("manifest-good");
        write(
            &good,
            ENTRY_SCHEMA_09,
            (0..20)
                .map(|i| entry_value(0, &format!("data-{i}"), 2))
                .collect(),
            Codec::Null,
        );
        let bytes = std::fs::read(&good).unwrap();
        assert!(check_container(&bytes).is_ok());
        // A block claiming more bytes than the file has.
        let cut = &bytes[..bytes.len() - 40];
        let reason = check_container(cut).unwrap_err();
        assert!(
            reason.contains("block 0") && reason.contains("remain"),
            "{reason}"
        );
        // Bytes after the last block that are not a block.
        let mut trailing = bytes.clone();
        trailing.extend_from_slice(&[0x02, 0x02, 0xAA]);
        assert!(check_container(&trailing).unwrap_err().contains("block 1"));
        // A varint that never ends.
        let mut endless = AVRO_MAGIC.to_vec();
        endless.extend_from_slice(&[0xFF; 12]);
        assert!(check_container(&endless)
            .unwrap_err()
            .contains("longer than 10 bytes"));
        assert!(check_container(AVRO_MAGIC)
            .unwrap_err()
            .contains("truncated"));
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
