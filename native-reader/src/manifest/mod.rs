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

use crate::error::{Cause, Error, ErrorKind, Result};

pub(crate) use avro_container::MAX_AVRO_ALLOCATION;
pub use index_manifest::{
    index_manifest_from_bytes, is_known_index_type, read_index_manifest, DeletionVectorMeta,
    IndexManifestEntry, DELETION_VECTORS_INDEX, HASH_INDEX,
};
pub use manifest_file::{
    manifest_file_from_bytes, read_manifest_file, DataFileMeta, ManifestEntry, SimpleStats,
};
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

fn file_kind(v: i32) -> std::result::Result<FileKind, Malformed> {
    match v {
        0 => Ok(FileKind::Add),
        1 => Ok(FileKind::Delete),
        other => Err(format!("unknown _KIND {other}").into()),
    }
}

fn read_bytes(path: &Path) -> Result<bytes::Bytes> {
    crate::fileio::read(path)
}

/// Why the bytes of a manifest do not decode: a check of ours with its text, or a library's error with what
/// was being read. Becomes the reason of an [`Error::Avro`] ([`Error::Library`] with [`ErrorKind::Avro`]).
#[derive(Debug)]
enum Malformed {
    /// A check of this module failed; the text says what.
    Invalid(String),
    /// Avro, ORC, Arrow or JSON failed while reading `context` (may be empty).
    Library {
        /// What was being read.
        context: String,
        /// The library's error.
        source: Cause,
    },
}

impl Malformed {
    /// A library error while reading `context`.
    fn library(context: impl Into<String>, source: impl Into<Cause>) -> Self {
        Malformed::Library {
            context: context.into(),
            source: source.into(),
        }
    }

    /// The same error seen from the enclosing read: `{context}: {self}`.
    fn within(self, context: impl std::fmt::Display) -> Self {
        match self {
            Malformed::Invalid(text) => Malformed::Invalid(format!("{context}: {text}")),
            Malformed::Library {
                context: inner,
                source,
            } => Malformed::Library {
                context: if inner.is_empty() {
                    context.to_string()
                } else {
                    format!("{context}: {inner}")
                },
                source,
            },
        }
    }

    /// The [`Error`] naming the manifest at `path`.
    fn at(self, path: &Path) -> Error {
        match self {
            Malformed::Invalid(reason) => Error::Avro {
                path: path.to_path_buf(),
                reason,
            },
            Malformed::Library { context, source } => {
                Error::library(ErrorKind::Avro, path, context, source)
            }
        }
    }
}

impl From<String> for Malformed {
    fn from(text: String) -> Self {
        Malformed::Invalid(text)
    }
}

impl From<&str> for Malformed {
    fn from(text: &str) -> Self {
        Malformed::Invalid(text.to_string())
    }
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Malformed::Invalid(text) => f.write_str(text),
            Malformed::Library { context, source } if context.is_empty() => write!(f, "{source}"),
            Malformed::Library { context, source } => write!(f, "{context}: {source}"),
        }
    }
}

/// Reads every record of the bytes of an Avro container file through `convert`.
fn records_from_bytes<T>(
    path: &Path,
    bytes: &[u8],
    convert: impl Fn(&Rec<'_>) -> std::result::Result<T, Malformed>,
) -> Result<Vec<T>> {
    if bytes.starts_with(b"ORC") {
        // `manifest.format=orc`: the same records, as ORC struct columns.
        // The unwind guard keeps "never a panic" should a corner of the ORC decoder panic on bad bytes.
        let records = std::panic::catch_unwind(|| orc_records(bytes.to_vec()))
            .unwrap_or_else(|_| Err("the ORC decoder panicked on this file".into()))
            .map_err(|e| e.within("ORC manifest").at(path))?;
        let mut out = Vec::with_capacity(records.len());
        for (i, value) in records.iter().enumerate() {
            let rec = Rec::from_value(value, "record")
                .and_then(|rec| convert(&rec))
                .map_err(|e| e.within(format_args!("ORC record {i}")).at(path))?;
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
        return Err(Malformed::from("not an Avro object container file (bad magic)").at(path));
    }
    // apache-avro sizes buffers and collections from counts in the file before reading their items: check
    // the container framing here, and bound what one count may allocate (see MAX_AVRO_ALLOCATION).
    check_container(bytes).map_err(|e| e.at(path))?;
    apache_avro::util::max_allocation_bytes(MAX_AVRO_ALLOCATION);
    // apache-avro returns errors for malformed input; the unwind guard keeps "never a panic" even if a
    // corner of the decoder does not.
    let decoded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let reader = apache_avro::Reader::new(bytes).map_err(|e| Malformed::library("", e))?;
        let mut out = Vec::new();
        for (i, value) in reader.enumerate() {
            let record = format_args!("record {i}").to_string();
            let value = value.map_err(|e| Malformed::library(record.as_str(), e))?;
            let rec = Rec::from_value(&value, "record").map_err(|e| e.within(&record))?;
            out.push(convert(&rec).map_err(|e| e.within(&record))?);
        }
        Ok::<_, Malformed>(out)
    }));
    match decoded {
        Ok(r) => r.map_err(|e| e.at(path)),
        Err(_) => Err(Malformed::from("the Avro decoder panicked on this file").at(path)),
    }
}
