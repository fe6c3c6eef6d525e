//! Index manifests (`org.apache.paimon.manifest.IndexManifestFile`, `IndexManifestEntrySerializer`) and the
//! deletion-vector ranges they hold (`DeletionVectorMeta`).

use std::path::Path;

use apache_avro::types::Value;

use crate::error::Result;

use super::record::{type_error, Rec};
use super::{file_kind, read_bytes, records_from_bytes, FileKind};

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

/// True for the index types a reader uses ([`DELETION_VECTORS_INDEX`], [`HASH_INDEX`]); 2.0 writers also
/// record global index types (`btree`, `bitmap`, `full-text`, vector indexes, …), which readers skip
/// (`IndexManifestFileHandler` combines each type on its own; the batch read looks only at DVs).
pub fn is_known_index_type(index_type: &str) -> bool {
    index_type == DELETION_VECTORS_INDEX || index_type == HASH_INDEX
}

/// One record of an index manifest (`IndexManifestEntry`, `_VERSION` 1 in 1.0 and 2.0; 2.0 adds
/// `_EXTERNAL_PATH` and the nullable `_GLOBAL_INDEX` record, which is not read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexManifestEntry {
    /// ADD or DELETE (`_KIND`); files referenced by snapshots hold only ADD.
    pub kind: FileKind,
    /// Serialized partition BinaryRow, arity prefix included (`_PARTITION`).
    pub partition: Vec<u8>,
    /// Bucket (`_BUCKET`).
    pub bucket: i32,
    /// [`DELETION_VECTORS_INDEX`], [`HASH_INDEX`] or (2.0) a global index type (`_INDEX_TYPE`); see
    /// [`is_known_index_type`].
    pub index_type: String,
    /// Index file name in `<table>/index/` or, with `index-file-in-data-file-dir=true`, in the bucket
    /// directory (`_FILE_NAME`).
    pub file_name: String,
    /// Size in bytes (`_FILE_SIZE`).
    pub file_size: i64,
    /// HASH: number of hashes; DELETION_VECTORS: number of vectors (`_ROW_COUNT`).
    pub row_count: i64,
    /// Deletion vectors in the file, in file order (`_DELETIONS_VECTORS_RANGES`); `None` for HASH.
    pub deletion_vectors: Option<Vec<DeletionVectorMeta>>,
    /// Absolute location of the index file (`_EXTERNAL_PATH`, 1.3+), a URI or plain path; when set it
    /// replaces the `index/` (or bucket directory) location.
    pub external_path: Option<String>,
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
            external_path: r.opt_string("_EXTERNAL_PATH")?,
        })
    })
}
