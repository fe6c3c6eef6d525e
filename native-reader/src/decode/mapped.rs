//! Data files as bytes mapped into memory (`mmap`), so that the format decoders slice column chunks and
//! stripes out of the page cache instead of copying them into buffers of their own with `read` system
//! calls (what parquet-rs's and orc-rust's `File` readers do: one copy and one fresh allocation per column
//! chunk). The decoders get a [`bytes::Bytes`] that owns the mapping; every slice they keep holds it alive.
//!
//! Safety of the mapping: Paimon never changes a data, changelog or index file once its commit names it
//! (every write creates a file with a new name; expiry and compaction delete files, and a deleted file's
//! mapping stays valid). A file truncated by some other program while it is mapped would make the process
//! fail with `SIGBUS` where `read` would return an error: set `PAIMON_PARITY_MMAP=0` to read with `read`
//! system calls instead, on file systems where files may change in place. Files that cannot be mapped
//! (empty files, special file systems) are read the same way. A data file in an object store is fetched
//! whole with one GET ([`crate::fileio`]) and decoded from memory the same way.

use std::fs::File;
use std::path::Path;
use std::sync::OnceLock;

use bytes::Bytes;

use crate::error::{Error, Result};

/// Whether data files are mapped (`PAIMON_PARITY_MMAP` is not `0`, `false` or `off`); read once.
pub fn mmap_enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| {
        !matches!(
            std::env::var("PAIMON_PARITY_MMAP").as_deref(),
            Ok("0") | Ok("false") | Ok("off")
        )
    })
}

/// A data file opened for decoding: its bytes mapped into memory, or the open file when it is not mapped
/// (mapping off, an empty file, a file system that cannot map).
pub(crate) enum DataFile {
    Mapped(Bytes),
    Read(File),
}

/// The whole of the file at `path`, mapped, fetched (a store) or read (see [`open`]): for formats decoded
/// from all their bytes at once (`.blob`, `.row`, `.managed.blob` packs).
///
/// Errors: [`Error::Io`] naming the file when it cannot be opened or read.
pub(crate) fn read_all(path: &Path) -> Result<Bytes> {
    match open(path)? {
        DataFile::Mapped(bytes) => Ok(bytes),
        DataFile::Read(mut file) => {
            let mut buf = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut buf).map_err(|e| Error::io(path, e))?;
            Ok(Bytes::from(buf))
        }
    }
}

/// Opens `path` for decoding (see [`DataFile`]). Errors: [`Error::Io`] naming the file when it cannot be
/// opened.
pub(crate) fn open(path: &Path) -> Result<DataFile> {
    if crate::fileio::is_store(path) {
        // One GET of the whole object: the decoders slice it as they slice a mapping.
        return crate::fileio::read(path).map(DataFile::Mapped);
    }
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    if !mmap_enabled() {
        return Ok(DataFile::Read(file));
    }
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len == 0 {
        return Ok(DataFile::Read(file));
    }
    match map(&file) {
        Ok(map) => Ok(DataFile::Mapped(Bytes::from_owner(map))),
        Err(_) => Ok(DataFile::Read(file)),
    }
}

/// Maps the whole of `file` read-only.
#[allow(unsafe_code)]
fn map(file: &File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the mapping is read-only and private to this reader, which never writes the file; Paimon
    // never modifies or truncates a committed file in place (see the module documentation for the one
    // failure mode, SIGBUS on a file truncated by another program, and how to turn mapping off).
    unsafe { memmap2::MmapOptions::new().map(file) }
}
