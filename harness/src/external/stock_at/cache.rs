//! The on-disk cache of `stock@V` answers: per release, table and scan, the plan release `V` made and the
//! rows it returned for each of its splits, so that a `read` request (and a later replay of the same table and
//! scan) is answered without starting a JVM.
//!
//! Layout: `<dir>/<V>/<key>/` with `key.json` (what the entry is: release, table, scan, fingerprint),
//! `plan.json` (the protocol's plan answer) and `split-<i>.arrows` (the answer stream of the plan's split
//! `i`). An entry is written into a temporary directory and renamed into place, so a half-written entry is
//! never read. The key hashes the release, the canonical table path, the scan (mode, start, time travel, end
//! snapshot) and a fingerprint of every file under the table directory ([`fingerprint`]: snapshots, schemas,
//! manifests, data, changelog and index files, deletion vectors; each file's path, size, modification time
//! and, on Unix, inode and status-change time): a table that gained a snapshot, was written afresh at the
//! same path, or had any file rewritten in place (even to the same size with its modification time set
//! back) gets a new key, so a stale answer is never served. Nothing is ever written into the table.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use super::answer::SplitAnswer;
use crate::error::{Error, Result};
use crate::external::{PlanAnswer, ScanRequest};

/// Environment variable naming the cache directory of `stock@V` readers; unset or empty: no cache (a replay
/// run then starts two JVMs of release `V`, one per request).
pub const CACHE_ENV: &str = "PAIMON_PARITY_STOCK_READER_CACHE";

/// The cache directory of `stock@V` answers.
#[derive(Clone, Debug)]
pub struct StockCache {
    dir: PathBuf,
}

/// One entry of the cache: a release's plan of one scan of one table, and its rows.
#[derive(Clone, Debug)]
pub(super) struct CacheEntry {
    dir: PathBuf,
    key: serde_json::Value,
}

impl StockCache {
    /// A cache in `dir` (created when the first entry is stored).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        StockCache { dir: dir.into() }
    }

    /// The cache [`CACHE_ENV`] names, if any.
    pub fn from_env() -> Option<Self> {
        std::env::var_os(CACHE_ENV)
            .filter(|v| !v.is_empty())
            .map(StockCache::new)
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The entry of release `version`'s `scan` of `table` (which may not be stored yet).
    ///
    /// Errors: [`Error::TableSource`] when the table directory, or a directory under it, cannot be listed.
    pub(super) fn entry(
        &self,
        version: &str,
        table: &Path,
        scan: &ScanRequest,
    ) -> Result<CacheEntry> {
        let (table, fingerprint) = if native_reader::fileio::is_store(table) {
            (table.to_path_buf(), store_fingerprint(table)?)
        } else {
            let table = std::fs::canonicalize(table).map_err(|e| Error::TableSource {
                path: table.to_path_buf(),
                context: "cannot open table directory".into(),
                source: e.into(),
            })?;
            let fingerprint = fingerprint(&table)?;
            (table, fingerprint)
        };
        let key = serde_json::json!({
            "release": version,
            "table": table.display().to_string(),
            "scan": scan,
            "fingerprint": format!("{fingerprint:016x}"),
        });
        let mut h = DefaultHasher::new();
        key.to_string().hash(&mut h);
        let name = table
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(CacheEntry {
            dir: self
                .dir
                .join(version)
                .join(format!("{name}-{}-{:016x}", scan.mode, h.finish())),
            key,
        })
    }
}

impl CacheEntry {
    /// The plan stored in this entry; `None` when there is none (or it cannot be read: the entry is then
    /// recomputed).
    pub fn plan(&self) -> Option<PlanAnswer> {
        let bytes = std::fs::read(self.dir.join("plan.json")).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// The stored answer to the plan's split `index`; `None` when there is none.
    pub fn answer(&self, index: usize) -> Option<SplitAnswer> {
        let file = std::fs::File::open(self.dir.join(format!("split-{index}.arrows"))).ok()?;
        SplitAnswer::read(std::io::BufReader::new(file)).ok()
    }

    /// Stores `plan` and `answers` (one per split of the plan, in its order). An entry stored meanwhile by
    /// another process is kept (both hold the same release's answer).
    ///
    /// Errors: [`Error::Io`] naming the file that cannot be written.
    pub fn store(&self, plan: &PlanAnswer, answers: &[SplitAnswer], reader: &str) -> Result<()> {
        let io = |path: &Path, e: std::io::Error| Error::Io {
            path: path.to_path_buf(),
            source: e,
        };
        let parent = self.dir.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
        let tmp = parent.join(format!(
            ".{}.tmp-{}",
            self.dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).map_err(|e| io(&tmp, e))?;
        let key_file = tmp.join("key.json");
        std::fs::write(&key_file, pretty(&self.key)).map_err(|e| io(&key_file, e))?;
        for (i, a) in answers.iter().enumerate() {
            let file = tmp.join(format!("split-{i}.arrows"));
            let mut bytes = Vec::new();
            a.write(&mut bytes, i, reader)
                .map_err(|e| io(&file, std::io::Error::other(e)))?;
            std::fs::write(&file, bytes).map_err(|e| io(&file, e))?;
        }
        // The plan last: an entry is complete once it has a plan.
        let plan_file = tmp.join("plan.json");
        std::fs::write(&plan_file, pretty(plan)).map_err(|e| io(&plan_file, e))?;
        if std::fs::rename(&tmp, &self.dir).is_err() {
            // Another process stored it first (or an unreadable entry is in the way: replace it).
            if self.plan().is_none() {
                let _ = std::fs::remove_dir_all(&self.dir);
                std::fs::rename(&tmp, &self.dir).map_err(|e| io(&self.dir, e))?;
            } else {
                let _ = std::fs::remove_dir_all(&tmp);
            }
        }
        Ok(())
    }
}

/// `value` as pretty JSON text with a final newline.
fn pretty<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default() + "\n"
}

/// A hash of every file under `table` (recursively, in path order): its path relative to `table`, its size,
/// its modification time (ns since the epoch) and, on Unix, its inode and status-change time (ns), which a
/// rewrite in place changes even when it keeps the size and sets the modification time back. Everything a
/// released reader's answer can depend on lies under the table directory (Paimon's `FileStorePathFactory`:
/// `snapshot/`, `schema/`, `manifest/`, `index/`, `changelog/`, the partition and `bucket-<n>` directories of
/// the data files), so any change to what it reads changes the hash.
///
/// Errors: [`Error::TableSource`] when a directory cannot be listed.
fn fingerprint(table: &Path) -> Result<u64> {
    let mut files: Vec<(String, [u128; 4])> = Vec::new();
    let mut dirs = vec![table.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| Error::TableSource {
            path: dir.clone(),
            context: "cannot list".into(),
            source: e.into(),
        })?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::TableSource {
                path: dir.clone(),
                context: "cannot list".into(),
                source: e.into(),
            })?;
            let path = entry.path();
            // A file removed while listing is a change too: it is simply absent from the hash.
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                dirs.push(path);
                continue;
            }
            let relative = path
                .strip_prefix(table)
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned();
            files.push((relative, stamp(&meta)));
        }
    }
    files.sort();
    let mut h = DefaultHasher::new();
    files.hash(&mut h);
    Ok(h.finish())
}

/// [`fingerprint`] of a table in a store: every object under it, by its path relative to the table, size and
/// `Last-Modified`, listed through the native reader's FileIO (one LIST per directory; nothing is read).
///
/// Errors: [`Error::TableSource`] naming the directory that cannot be listed.
fn store_fingerprint(table: &Path) -> Result<u64> {
    let io = native_reader::fileio::for_path(table)?;
    let mut files: Vec<(String, u64, Option<i64>)> = Vec::new();
    let mut dirs = vec![table.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries = io.list_status(&dir).map_err(|e| Error::TableSource {
            path: dir.clone(),
            context: "cannot list".into(),
            source: e.into(),
        })?;
        for entry in entries {
            let path = dir.join(&entry.name);
            if entry.is_dir {
                dirs.push(path);
                continue;
            }
            let relative = path
                .strip_prefix(table)
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned();
            files.push((relative, entry.size, entry.modified_millis));
        }
    }
    files.sort();
    let mut h = DefaultHasher::new();
    files.hash(&mut h);
    Ok(h.finish())
}

/// Size, modification time (ns), and on Unix inode and status-change time (ns) of a file.
fn stamp(meta: &std::fs::Metadata) -> [u128; 4] {
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    #[cfg(unix)]
    let (inode, changed) = {
        use std::os::unix::fs::MetadataExt;
        (
            u128::from(meta.ino()),
            (meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128) as u128,
        )
    };
    #[cfg(not(unix))]
    let (inode, changed) = (0, 0);
    [u128::from(meta.len()), modified, inode, changed]
}

#[cfg(test)]
mod tests {
    use super::*;
    use native_reader::scan::ScanMode;

    /// A table directory with one file of each kind a released reader reads.
    fn table(dir: &Path) -> Vec<PathBuf> {
        let files = [
            "snapshot/snapshot-1",
            "schema/schema-0",
            "manifest/manifest-list-1",
            "manifest/manifest-1",
            "index/index-1",
            "dt=1/bucket-0/data-1.parquet",
            "dt=1/bucket-0/changelog-1.parquet",
        ];
        files
            .iter()
            .map(|f| {
                let path = dir.join(f);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, format!("{f}: rows A")).unwrap();
                path
            })
            .collect()
    }

    #[test]
    fn a_file_rewritten_at_the_same_path_is_not_served_from_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("db.db/t");
        let files = table(&root);
        let cache = StockCache::new(dir.path().join("cache"));
        let scan = ScanRequest::of(ScanMode::Batch { snapshot: None }, 1);
        let plan = PlanAnswer { splits: Vec::new() };
        for file in &files[2..] {
            let entry = cache.entry("1.0.0", &root, &scan).unwrap();
            entry.store(&plan, &[], "stock@1.0.0").unwrap();
            // Nothing changed: the stored answer is served.
            assert!(cache.entry("1.0.0", &root, &scan).unwrap().plan().is_some());
            // The file rewritten in place with other rows, the same size and its old modification time.
            let meta = std::fs::metadata(file).unwrap();
            let before = std::fs::read(file).unwrap();
            let after = String::from_utf8(before.clone())
                .unwrap()
                .replace("rows A", "rows B");
            assert_eq!(after.len(), before.len());
            std::thread::sleep(std::time::Duration::from_millis(10));
            let f = std::fs::OpenOptions::new().write(true).open(file).unwrap();
            std::io::Write::write_all(&mut &f, after.as_bytes()).unwrap();
            f.set_modified(meta.modified().unwrap()).unwrap();
            drop(f);
            assert_eq!(std::fs::metadata(file).unwrap().len(), meta.len());
            assert!(
                cache.entry("1.0.0", &root, &scan).unwrap().plan().is_none(),
                "{}: the answer from before the rewrite is served",
                file.display()
            );
        }
        // A data file added beside the others is a change too.
        let entry = cache.entry("1.0.0", &root, &scan).unwrap();
        entry.store(&plan, &[], "stock@1.0.0").unwrap();
        std::fs::write(root.join("dt=1/bucket-0/data-2.parquet"), "rows C").unwrap();
        assert!(cache.entry("1.0.0", &root, &scan).unwrap().plan().is_none());
    }
}
