//! The local file system behind [`super::FileIO`] (`org.apache.paimon.fs.local.LocalFileIO`'s read half).
//! Data files are not read through it but mapped (`crate::decode::mapped`).

use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;

use super::{FileIO, FileStatus};

/// Local files, read with `std::fs`. A `file:` URI is read as its path.
#[derive(Debug, Default)]
pub struct LocalFileIO;

/// The one [`LocalFileIO`] of the process.
pub fn shared() -> Arc<dyn FileIO> {
    static LOCAL: OnceLock<Arc<dyn FileIO>> = OnceLock::new();
    LOCAL.get_or_init(|| Arc::new(LocalFileIO)).clone()
}

/// `path`, or the path of a `file:` URI.
fn local(path: &Path) -> std::borrow::Cow<'_, Path> {
    match super::location(path) {
        Ok(super::Location::Local(p)) if p != path => std::borrow::Cow::Owned(p),
        _ => std::borrow::Cow::Borrowed(path),
    }
}

impl FileIO for LocalFileIO {
    fn read(&self, path: &Path) -> std::io::Result<Bytes> {
        std::fs::read(local(path)).map(Bytes::from)
    }

    fn read_range(&self, path: &Path, range: Range<u64>) -> std::io::Result<Bytes> {
        let mut file = std::fs::File::open(local(path))?;
        file.seek(SeekFrom::Start(range.start))?;
        let mut out = Vec::new();
        file.take(range.end.saturating_sub(range.start))
            .read_to_end(&mut out)?;
        Ok(Bytes::from(out))
    }

    fn exists(&self, path: &Path) -> std::io::Result<bool> {
        Ok(local(path).is_file())
    }

    fn is_dir(&self, path: &Path) -> std::io::Result<bool> {
        Ok(local(path).is_dir())
    }

    fn list(&self, dir: &Path) -> std::io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(local(dir))? {
            if let Some(name) = entry?.file_name().to_str() {
                names.push(name.to_string());
            }
        }
        Ok(names)
    }

    fn list_status(&self, dir: &Path) -> std::io::Result<Vec<FileStatus>> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(local(dir))? {
            let entry = entry?;
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            // Symbolic links followed, as `std::fs::metadata` does.
            let meta = std::fs::metadata(entry.path()).ok();
            out.push(FileStatus {
                name,
                is_dir: meta.as_ref().is_some_and(std::fs::Metadata::is_dir),
                size: meta.as_ref().map_or(0, std::fs::Metadata::len),
                modified_millis: meta
                    .and_then(|m| m.modified().ok())
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .and_then(|d| i64::try_from(d.as_millis()).ok()),
            });
        }
        Ok(out)
    }
}
