//! Manifest lists (`org.apache.paimon.manifest.ManifestList`, `ManifestFileMetaSerializer`).

use std::path::Path;

use crate::error::Result;

use super::{read_bytes, records_from_bytes};

/// One record of a manifest list (`ManifestFileMeta`, `_VERSION` 2 in 1.0 and 2.0 alike). Partition stats are
/// skipped. The bucket, level and row-id ranges are 1.1+/1.4+ columns (null or absent from 1.0 writers); they
/// are read by name, which is how the two layouts (6 and 12 columns under the same `_VERSION`) are told apart.
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
    /// The smallest partition of the manifest's entries, a serialized `BinaryRow` of the partition fields
    /// (`_PARTITION_STATS._MIN_VALUES`); empty when the list records no partition stats.
    pub min_partition: Vec<u8>,
    /// The largest partition (`_PARTITION_STATS._MAX_VALUES`).
    pub max_partition: Vec<u8>,
    /// Smallest bucket of the manifest's entries (`_MIN_BUCKET`, 1.1+); `None` when not recorded.
    pub min_bucket: Option<i32>,
    /// Largest bucket (`_MAX_BUCKET`, 1.1+); negative for postpone-only manifests.
    pub max_bucket: Option<i32>,
    /// Smallest LSM level (`_MIN_LEVEL`, 1.1+).
    pub min_level: Option<i32>,
    /// Largest LSM level (`_MAX_LEVEL`, 1.1+).
    pub max_level: Option<i32>,
    /// Smallest first row id of the files (`_MIN_ROW_ID`, 1.4+, row-tracking tables only).
    pub min_row_id: Option<i64>,
    /// Largest row id of the files (`_MAX_ROW_ID`, 1.4+).
    pub max_row_id: Option<i64>,
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
            min_partition: partition_stats(r, "_MIN_VALUES")?,
            max_partition: partition_stats(r, "_MAX_VALUES")?,
            min_bucket: r.opt_int("_MIN_BUCKET")?,
            max_bucket: r.opt_int("_MAX_BUCKET")?,
            min_level: r.opt_int("_MIN_LEVEL")?,
            max_level: r.opt_int("_MAX_LEVEL")?,
            min_row_id: r.opt_long("_MIN_ROW_ID")?,
            max_row_id: r.opt_long("_MAX_ROW_ID")?,
        })
    })
}

/// `_PARTITION_STATS.<field>` of a manifest list record (empty when the stats are null).
fn partition_stats(
    r: &super::record::Rec<'_>,
    field: &str,
) -> std::result::Result<Vec<u8>, super::Malformed> {
    match r.opt_record("_PARTITION_STATS")? {
        Some(stats) => stats.bytes(field),
        None => Ok(Vec::new()),
    }
}
