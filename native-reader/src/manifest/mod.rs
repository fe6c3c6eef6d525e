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

mod avro_container;
mod index_manifest;
mod manifest_file;
mod manifest_list;
mod orc;
mod record;
#[cfg(test)]
mod tests;

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

pub use avro_container::MAX_AVRO_ALLOCATION;
pub use index_manifest::{
    index_manifest_from_bytes, read_index_manifest, DeletionVectorMeta, IndexManifestEntry,
    DELETION_VECTORS_INDEX, HASH_INDEX,
};
pub use manifest_file::{manifest_file_from_bytes, read_manifest_file, DataFileMeta, ManifestEntry};
pub use manifest_list::{manifest_list_from_bytes, read_manifest_list, ManifestFileMeta};

use avro_container::{check_container, AVRO_MAGIC};
use orc::orc_records;
use record::Rec;


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

pub(super) fn file_kind(v: i32) -> std::result::Result<FileKind, String> {
    match v {
        0 => Ok(FileKind::Add),
        1 => Ok(FileKind::Delete),
        other => Err(format!("unknown _KIND {other}")),
    }
}

pub(super) fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io(path, e))
}

/// Reads every record of the bytes of an Avro container file through `convert`.
pub(super) fn records_from_bytes<T>(
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
