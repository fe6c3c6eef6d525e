//! The on-disk cache of `stock@V` answers: per release, table and scan, the plan release `V` made and the
//! rows it returned for each of its splits, so that a `read` request (and a later replay of the same table and
//! scan) is answered without starting a JVM.
//!
//! Layout: `<dir>/<V>/<key>/` with `key.json` (what the entry is: release, table, scan, fingerprint),
//! `plan.json` (the protocol's plan answer) and `split-<i>.arrows` (the answer stream of the plan's split
//! `i`). An entry is written into a temporary directory and renamed into place, so a half-written entry is
//! never read. The key hashes the release, the canonical table path, the scan (mode, start, time travel, end
//! snapshot) and a fingerprint of the table's `snapshot/` and `schema/` directories (file names, sizes,
//! modification times): a table that gained a snapshot, or was written afresh at the same path, gets a new
//! key. Nothing is ever written into the table.

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
    /// Errors: [`Error::TableSource`] when the table's `snapshot/` or `schema/` directory cannot be listed.
    pub(super) fn entry(
        &self,
        version: &str,
        table: &Path,
        scan: &ScanRequest,
    ) -> Result<CacheEntry> {
        let table = std::fs::canonicalize(table).map_err(|e| Error::TableSource {
            path: table.to_path_buf(),
            context: "cannot open table directory".into(),
            source: e.into(),
        })?;
        let fingerprint = fingerprint(&table)?;
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

/// A hash of the names, sizes and modification times of the files in the table's `snapshot/` and `schema/`
/// directories.
///
/// Errors: [`Error::TableSource`] when a directory cannot be listed (a missing `snapshot/` counts as empty).
fn fingerprint(table: &Path) -> Result<u64> {
    let mut h = DefaultHasher::new();
    for sub in ["snapshot", "schema"] {
        let dir = table.join(sub);
        let entries = match std::fs::read_dir(&dir) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                return Err(Error::TableSource {
                    path: dir,
                    context: "cannot list".into(),
                    source: e.into(),
                })
            }
        };
        let mut files: Vec<(String, u64, u128)> = entries
            .filter_map(|e| e.ok())
            .map(|e| {
                let meta = e.metadata().ok();
                let modified = meta
                    .as_ref()
                    .and_then(|m| m.modified().ok())
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map(|d| d.as_nanos())
                    .unwrap_or_default();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    meta.map(|m| m.len()).unwrap_or_default(),
                    modified,
                )
            })
            .collect();
        files.sort();
        sub.hash(&mut h);
        files.hash(&mut h);
    }
    Ok(h.finish())
}
