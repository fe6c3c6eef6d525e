//! Where the native reader reads its files: one seam ([`FileIO`]) in front of the local file system and
//! object stores, as Paimon's `org.apache.paimon.fs.FileIO` is.
//!
//! A location is a path (`/data/wh/db.db/t`) or a URI (`s3://bucket/wh/db.db/t`; `s3a://` and `s3n://` are
//! the same store). [`for_path`] picks the file system by the location's scheme and bucket, as
//! `FileIO.get(path, CatalogContext)` does: local paths and `file:` URIs go to the local file system, S3
//! locations to an [`store::S3FileIO`] per bucket, built on first use from the options given to
//! [`configure`] (one map per process, the one the Java side gets too).
//!
//! Every reader of the crate reads through this module: snapshots, hints and schema files, manifest
//! lists, manifests and index manifests, deletion vectors, and data files (a data file on a store is
//! fetched whole with one GET and decoded from memory, so memory stays bounded by the split's files).
//! The native reader only reads: the seam has no write, copy or delete.

pub mod local;
pub mod options;
pub mod prefetch;
pub mod store;

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};

use crate::error::{Error, Result};

/// The bytes a [`FileIO`] returns (the `bytes` crate's, shared without copying).
pub use bytes::Bytes;
pub use options::{FileIOOptions, S3Settings};
pub use store::RequestCounts;

/// A read-only file system (`org.apache.paimon.fs.FileIO`'s read half).
///
/// Errors are [`std::io::Error`]s whose kind says what failed: `NotFound` for a missing file or object,
/// `PermissionDenied` for a refused request (403, bad credentials), `TimedOut` when retries ran out, and
/// whose text names the request and the location; the caller adds the path ([`Error::Io`]).
pub trait FileIO: Send + Sync + std::fmt::Debug {
    /// The whole content of the file at `path`.
    fn read(&self, path: &Path) -> std::io::Result<Bytes>;

    /// Bytes `range` (offsets in bytes, end exclusive) of the file at `path`.
    fn read_range(&self, path: &Path, range: Range<u64>) -> std::io::Result<Bytes>;

    /// Whether a file (not a directory) exists at `path` (`FileIO.exists` of a file).
    fn exists(&self, path: &Path) -> std::io::Result<bool>;

    /// Whether `path` is a directory: on a store, whether any object's key starts with `path/`.
    fn is_dir(&self, path: &Path) -> std::io::Result<bool>;

    /// The names of the files and directories directly in `dir`, in no particular order
    /// (`FileIO.listStatus`). A missing directory is an error of kind `NotFound` on a local file system and
    /// an empty list on a store, where directories do not exist apart from their objects.
    fn list(&self, dir: &Path) -> std::io::Result<Vec<String>>;

    /// The files and directories directly in `dir`, with their sizes and modification times
    /// (`FileIO.listStatus`); errors and a missing directory as [`FileIO::list`].
    fn list_status(&self, dir: &Path) -> std::io::Result<Vec<FileStatus>>;

    /// Starts fetching the whole files at `paths` in the background, so that the [`FileIO::read`]s that
    /// follow find them fetched: an object store's GETs run at the same time ([`prefetch::Prefetched`], at
    /// most [`prefetch::LIMIT`] waiting); a local file system needs nothing. A fetch that fails is done
    /// again by its read, which reports the error.
    fn prefetch(&self, paths: &[PathBuf]) {
        let _ = paths;
    }
}

/// One entry of [`FileIO::list_status`] (`org.apache.paimon.fs.FileStatus`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileStatus {
    /// The name in its directory.
    pub name: String,
    /// Whether it is a directory (on a store: a common prefix of keys).
    pub is_dir: bool,
    /// Its size in bytes (0 for a directory).
    pub size: u64,
    /// When it was last modified, in milliseconds since the Unix epoch, when known (an object's
    /// `Last-Modified`; a directory of a store has none).
    pub modified_millis: Option<i64>,
}

/// The options the stores are built with ([`configure`]), and the stores built so far, by `s3://bucket`.
struct Registry {
    options: FileIOOptions,
    stores: HashMap<String, Arc<dyn FileIO>>,
}

fn registry() -> &'static RwLock<Registry> {
    static REGISTRY: OnceLock<RwLock<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        RwLock::new(Registry {
            options: FileIOOptions::new(),
            stores: HashMap::new(),
        })
    })
}

/// Sets the options object stores are opened with (`s3.endpoint`, `s3.access-key`, … as given, see
/// [`FileIOOptions`]) for the rest of the process; stores opened with other options before are dropped
/// and opened again on next use. Local files need none.
pub fn configure(options: &FileIOOptions) {
    let mut registry = registry().write().unwrap_or_else(|e| e.into_inner());
    if registry.options != *options {
        registry.options = options.clone();
        registry.stores.clear();
    }
}

/// The options [`configure`] last set (empty when never set): what external readers get to reach the same
/// stores. Holds secrets: hand it to readers only, print [`FileIOOptions::redacted`].
pub fn configured() -> FileIOOptions {
    registry()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .options
        .clone()
}

/// How a location is stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A local path (a `file:` URI's path too).
    Local(PathBuf),
    /// An object in S3 or an S3-compatible store: `s3://bucket/key` (from `s3`, `s3a` or `s3n`).
    S3 {
        /// The bucket.
        bucket: String,
        /// The object key (or key prefix of a directory), without leading or trailing `/`.
        key: String,
    },
}

/// Reads `path` as a [`Location`]. Errors: [`Error::Unsupported`] naming the path for a scheme this reader
/// has no file system for (`oss://`, `hdfs://`, …), or an S3 URI without a bucket.
pub fn location(path: &Path) -> Result<Location> {
    let text = path.to_string_lossy();
    let Some((scheme, rest)) = text.split_once("://") else {
        return Ok(Location::Local(path.to_path_buf()));
    };
    let unsupported = |reason: String| Error::Unsupported {
        path: path.to_path_buf(),
        reason,
    };
    match scheme.to_ascii_lowercase().as_str() {
        "file" => Ok(Location::Local(PathBuf::from(format!(
            "/{}",
            rest.trim_start_matches('/')
        )))),
        "s3" | "s3a" | "s3n" => {
            let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(unsupported("an S3 location names no bucket".to_string()));
            }
            Ok(Location::S3 {
                bucket: bucket.to_string(),
                key: key.trim_matches('/').to_string(),
            })
        }
        other => Err(unsupported(format!(
            "the native reader has no FileIO for `{other}://` (it reads local paths and s3://)"
        ))),
    }
}

/// Whether `path` is a URI of an object store (not a local path or `file:` URI).
pub fn is_store(path: &Path) -> bool {
    matches!(location(path), Ok(Location::S3 { .. }))
}

/// The file system `path` lives on (see the module documentation).
///
/// Errors: [`Error::Unsupported`] as [`location`]; [`Error::Io`] naming the location when its store
/// cannot be set up from the [`configure`]d options (an option that does not parse, an invalid endpoint).
pub fn for_path(path: &Path) -> Result<Arc<dyn FileIO>> {
    match location(path)? {
        Location::Local(_) => Ok(local::shared()),
        Location::S3 { bucket, .. } => {
            let name = format!("s3://{bucket}");
            if let Some(io) = registry()
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .stores
                .get(&name)
            {
                return Ok(io.clone());
            }
            let mut registry = registry().write().unwrap_or_else(|e| e.into_inner());
            if let Some(io) = registry.stores.get(&name) {
                return Ok(io.clone());
            }
            let io: Arc<dyn FileIO> = Arc::new(
                store::S3FileIO::new(&bucket, &registry.options)
                    .map_err(|e| Error::io(PathBuf::from(&name), e))?,
            );
            registry.stores.insert(name, io.clone());
            Ok(io)
        }
    }
}

/// The whole content of `path`. Errors: [`Error::Io`] naming the path.
pub fn read(path: &Path) -> Result<Bytes> {
    for_path(path)?.read(path).map_err(|e| Error::io(path, e))
}

/// Starts fetching the files at `paths` ahead of their reads ([`FileIO::prefetch`]); files on local disk and
/// locations that cannot be read are left to their reads.
pub fn prefetch(paths: &[PathBuf]) {
    let mut by_store: HashMap<String, (Arc<dyn FileIO>, Vec<PathBuf>)> = HashMap::new();
    for path in paths {
        if let Ok(Location::S3 { bucket, .. }) = location(path) {
            if let Ok(io) = for_path(path) {
                by_store
                    .entry(bucket)
                    .or_insert_with(|| (io, Vec::new()))
                    .1
                    .push(path.clone());
            }
        }
    }
    for (io, paths) in by_store.values() {
        io.prefetch(paths);
    }
}

/// Whether a file exists at `path`. Errors: [`Error::Io`] naming the path when the answer is not known
/// (a refused or failed request).
pub fn exists(path: &Path) -> Result<bool> {
    for_path(path)?.exists(path).map_err(|e| Error::io(path, e))
}

/// The requests made to object stores by this process so far (all buckets), by kind.
pub fn store_requests() -> RequestCounts {
    store::totals()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_read_by_scheme() {
        assert_eq!(
            location(Path::new("/data/t")).unwrap(),
            Location::Local(PathBuf::from("/data/t"))
        );
        assert_eq!(
            location(Path::new("file:///data/t")).unwrap(),
            Location::Local(PathBuf::from("/data/t"))
        );
        for uri in [
            "s3://b/wh/db.db/t/",
            "s3a://b/wh/db.db/t",
            "S3N://b/wh/db.db/t",
        ] {
            assert_eq!(
                location(Path::new(uri)).unwrap(),
                Location::S3 {
                    bucket: "b".into(),
                    key: "wh/db.db/t".into()
                },
                "{uri}"
            );
        }
        let e = location(Path::new("s3:///t")).unwrap_err().to_string();
        assert!(e.contains("s3:///t") && e.contains("no bucket"), "{e}");
        let e = location(Path::new("oss://b/t")).unwrap_err().to_string();
        assert!(e.contains("unsupported") && e.contains("oss://"), "{e}");
        assert!(is_store(Path::new("s3://b/k")) && !is_store(Path::new("/k")));
    }
}
