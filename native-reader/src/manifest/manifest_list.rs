//! Manifest lists (`org.apache.paimon.manifest.ManifestList`, `ManifestFileMetaSerializer`).

use std::path::Path;

use crate::error::Result;

use super::{read_bytes, records_from_bytes};

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
