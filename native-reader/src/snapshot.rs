//! Snapshots (`org.apache.paimon.Snapshot`, `snapshot/snapshot-N` JSON) and the snapshot directory rules of
//! `org.apache.paimon.utils.SnapshotManager`: `LATEST`/`EARLIEST` hint files with listing fallback, and
//! long-lived changelogs (`changelog/changelog-N`, `Changelog`) when the changelog lifecycle is decoupled.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};

/// File name prefix of snapshot files in `snapshot/`.
pub const SNAPSHOT_PREFIX: &str = "snapshot-";
/// File name prefix of long-lived changelog files in `changelog/`.
pub const CHANGELOG_PREFIX: &str = "changelog-";
/// Hint file holding the latest id.
pub const LATEST_HINT: &str = "LATEST";
/// Hint file holding the earliest id.
pub const EARLIEST_HINT: &str = "EARLIEST";

/// Why a snapshot was committed (`Snapshot.CommitKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CommitKind {
    /// New data files (and `input` changelog files) from a write.
    Append,
    /// Compaction: files rewritten, `lookup`/`full-compaction` changelog, deletion-vector updates.
    Compact,
    /// INSERT OVERWRITE or partition drop.
    Overwrite,
    /// Statistics only.
    Analyze,
}

/// What a 2.0 commit did, as the engine told it (`Snapshot.Operation`, 2.0+ `operation` key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Operation {
    /// INSERT / plain write.
    Write,
    /// INSERT OVERWRITE.
    Overwrite,
    /// DELETE.
    Delete,
    /// TRUNCATE.
    Truncate,
    /// UPDATE.
    Update,
    /// MERGE INTO.
    Merge,
    /// CREATE TABLE AS SELECT.
    CreateTableAsSelect,
    /// REPLACE TABLE AS SELECT.
    ReplaceTableAsSelect,
    /// CREATE OR REPLACE TABLE AS SELECT.
    CreateOrReplaceTableAsSelect,
}

/// One `snapshot-N` (or `changelog-N`) file of a 1.0 or 2.0 writer (`org.apache.paimon.Snapshot`; 2.0 moved it
/// to paimon-api). Unknown keys (`logOffsets`, which 1.0 always wrote and 1.4+ no longer writes, and any key
/// of a later writer) are ignored, as Jackson's `ignoreUnknown` does in Java. Keys a 2.0 writer adds are kept
/// when they say something a reader or `inspect` may want (`uuid`, the manifest list sizes, `properties`,
/// `nextRowId`, `operation`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// Snapshot file format version (3 since 0.9; `None` for very old files).
    #[serde(default)]
    pub version: Option<i32>,
    /// Random UUID of this snapshot (2.0+ `uuid`); `None` for snapshots of older writers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Snapshot id, equal to N of the file name.
    pub id: i64,
    /// Latest schema id at commit time.
    pub schema_id: i64,
    /// Manifest list (name in `manifest/`) of every file before this commit.
    pub base_manifest_list: String,
    /// Size in bytes of `baseManifestList` (1.1+ `baseManifestListSize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_manifest_list_size: Option<i64>,
    /// Manifest list of the changes made by this commit.
    pub delta_manifest_list: String,
    /// Size in bytes of `deltaManifestList` (1.1+ `deltaManifestListSize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_manifest_list_size: Option<i64>,
    /// Manifest list of the changelog files produced by this commit; `None` when there are none.
    #[serde(default)]
    pub changelog_manifest_list: Option<String>,
    /// Size in bytes of `changelogManifestList` (1.1+ `changelogManifestListSize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changelog_manifest_list_size: Option<i64>,
    /// Index manifest (name in `manifest/`) listing the full current set of index files.
    #[serde(default)]
    pub index_manifest: Option<String>,
    /// UUID of the writing job.
    pub commit_user: String,
    /// Checkpoint id, or `i64::MAX` for batch commits.
    pub commit_identifier: i64,
    /// Commit kind.
    pub commit_kind: CommitKind,
    /// Commit wall-clock time, epoch milliseconds.
    pub time_millis: i64,
    /// Rows of all data files after this commit (ADD minus DELETE row counts).
    #[serde(default)]
    pub total_record_count: Option<i64>,
    /// ADD row count minus DELETE row count of this commit's delta.
    #[serde(default)]
    pub delta_record_count: Option<i64>,
    /// Rows in this commit's changelog files; 2.0 writers leave the key out when there are none (1.0 wrote 0).
    #[serde(default)]
    pub changelog_record_count: Option<i64>,
    /// Watermark (`i64::MIN` when Flink had none).
    #[serde(default)]
    pub watermark: Option<i64>,
    /// Statistics file name in `statistics/`.
    #[serde(default)]
    pub statistics: Option<String>,
    /// Commit properties (1.2+ `properties`, e.g. `SequenceSnapshotProperties`); `None` when the writer left
    /// the key out (it does when there are none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<std::collections::BTreeMap<String, String>>,
    /// Row id the next commit assigns first (1.3+ `nextRowId`; every 2.0 commit writes it, 0 without row
    /// tracking).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_row_id: Option<i64>,
    /// What the engine did (2.0+ `operation`); `None` when not set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<Operation>,
}

impl Snapshot {
    /// Parses snapshot JSON.
    ///
    /// Errors: the JSON error when the bytes are not a snapshot.
    pub fn parse(bytes: &[u8]) -> std::result::Result<Snapshot, serde_json::Error> {
        serde_json::from_slice(bytes)
    }

    /// Reads and parses a snapshot or changelog file.
    ///
    /// Errors: [`Error::Io`] when unreadable (including missing), [`Error::Library`] of kind
    /// [`ErrorKind::Json`] (read as [`Error::Json`]) when malformed.
    pub fn read(path: &Path) -> Result<Snapshot> {
        let bytes = crate::fileio::read(path)?;
        Self::parse(&bytes).map_err(|e| Error::library(ErrorKind::Json, path, "", e))
    }
}

/// The snapshot and long-lived changelog directories of a table (main branch).
#[derive(Clone, Debug)]
pub struct SnapshotManager {
    table_path: PathBuf,
}

impl SnapshotManager {
    /// A manager for the table at `table_path`.
    pub fn new(table_path: &Path) -> Self {
        SnapshotManager {
            table_path: table_path.to_path_buf(),
        }
    }

    /// `<table>/snapshot`.
    pub fn snapshot_dir(&self) -> PathBuf {
        self.table_path.join("snapshot")
    }

    /// `<table>/changelog`.
    pub fn changelog_dir(&self) -> PathBuf {
        self.table_path.join("changelog")
    }

    /// `<table>/snapshot/snapshot-<id>`.
    pub fn snapshot_path(&self, id: i64) -> PathBuf {
        self.snapshot_dir().join(format!("{SNAPSHOT_PREFIX}{id}"))
    }

    /// `<table>/changelog/changelog-<id>`.
    pub fn changelog_path(&self, id: i64) -> PathBuf {
        self.changelog_dir().join(format!("{CHANGELOG_PREFIX}{id}"))
    }

    /// True when `snapshot-<id>` exists (false when that cannot be known: the read that follows names the
    /// failure).
    pub fn snapshot_exists(&self, id: i64) -> bool {
        crate::fileio::exists(&self.snapshot_path(id)).unwrap_or(false)
    }

    /// True when `changelog/changelog-<id>` exists (false when that cannot be known).
    pub fn changelog_exists(&self, id: i64) -> bool {
        crate::fileio::exists(&self.changelog_path(id)).unwrap_or(false)
    }

    /// Reads snapshot `id`.
    ///
    /// Errors: [`Error::Snapshot`] naming the file when it does not exist; [`Error::Io`]/[`Error::Json`]
    /// when it cannot be read or parsed.
    pub fn snapshot(&self, id: i64) -> Result<Snapshot> {
        let path = self.snapshot_path(id);
        read_existing(&path, || format!("snapshot {id} does not exist"))
    }

    /// Reads long-lived changelog `id` (same JSON as a snapshot). Errors as [`SnapshotManager::snapshot`].
    pub fn changelog(&self, id: i64) -> Result<Snapshot> {
        let path = self.changelog_path(id);
        read_existing(&path, || {
            format!("long-lived changelog {id} does not exist")
        })
    }

    /// Latest snapshot id (`SnapshotManager.latestSnapshotId`), `None` when there is none.
    ///
    /// Rule: if `LATEST` holds h > 0 and `snapshot-(h+1)` does not exist, h; otherwise the largest id among
    /// the `snapshot-<id>` files. (As in Java, h is trusted even when `snapshot-h` itself is missing.)
    /// Errors: [`Error::Io`] when the directory exists but cannot be listed.
    pub fn latest_snapshot_id(&self) -> Result<Option<i64>> {
        find_latest(&self.snapshot_dir(), SNAPSHOT_PREFIX)
    }

    /// Earliest snapshot id (`SnapshotManager.earliestSnapshotId`), `None` when there is none.
    ///
    /// Rule: if `EARLIEST` holds h and `snapshot-h` exists, h; otherwise the smallest listed id.
    pub fn earliest_snapshot_id(&self) -> Result<Option<i64>> {
        find_earliest(&self.snapshot_dir(), SNAPSHOT_PREFIX)
    }

    /// Latest long-lived changelog id (`changelog/` with the same hint rules).
    pub fn latest_long_lived_changelog_id(&self) -> Result<Option<i64>> {
        find_latest(&self.changelog_dir(), CHANGELOG_PREFIX)
    }

    /// Earliest long-lived changelog id (`changelog/` with the same hint rules).
    pub fn earliest_long_lived_changelog_id(&self) -> Result<Option<i64>> {
        find_earliest(&self.changelog_dir(), CHANGELOG_PREFIX)
    }
}

fn read_existing(path: &Path, missing: impl FnOnce() -> String) -> Result<Snapshot> {
    match crate::fileio::for_path(path)?.read(path) {
        Ok(bytes) => {
            Snapshot::parse(&bytes).map_err(|e| Error::library(ErrorKind::Json, path, "", e))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::Snapshot {
            path: path.to_path_buf(),
            reason: missing(),
        }),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Reads a hint file (`SnapshotManager.readHint`): the whole content parsed as a decimal i64 (no trimming,
/// like `Long.parseLong`). Any failure (missing, unreadable, garbage) gives `None`.
pub fn read_hint(dir: &Path, name: &str) -> Option<i64> {
    let bytes = crate::fileio::read(&dir.join(name)).ok()?;
    std::str::from_utf8(&bytes).ok()?.parse::<i64>().ok()
}

/// Ids of the files `<prefix><id>` in `dir` (`FileUtils.listVersionedFiles`); an absent directory has none.
/// Names whose suffix is not a decimal i64 are skipped.
pub fn list_ids(dir: &Path, prefix: &str) -> Result<Vec<i64>> {
    let names = match crate::fileio::for_path(dir)?.list(dir) {
        Ok(names) => names,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    let mut ids = Vec::new();
    for name in names {
        if let Some(id) = name
            .strip_prefix(prefix)
            .and_then(|s| s.parse::<i64>().ok())
        {
            ids.push(id);
        }
    }
    Ok(ids)
}

fn find_latest(dir: &Path, prefix: &str) -> Result<Option<i64>> {
    if let Some(h) = read_hint(dir, LATEST_HINT) {
        if h > 0 {
            let next = dir.join(format!("{prefix}{}", h.saturating_add(1)));
            if !crate::fileio::exists(&next)? {
                return Ok(Some(h));
            }
        }
    }
    Ok(list_ids(dir, prefix)?.into_iter().max())
}

fn find_earliest(dir: &Path, prefix: &str) -> Result<Option<i64>> {
    if let Some(h) = read_hint(dir, EARLIEST_HINT) {
        if crate::fileio::exists(&dir.join(format!("{prefix}{h}")))? {
            return Ok(Some(h));
        }
    }
    Ok(list_ids(dir, prefix)?.into_iter().min())
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON: &str = r#"{
      "version" : 3, "id" : 7, "schemaId" : 0,
      "baseManifestList" : "manifest-list-a-0", "deltaManifestList" : "manifest-list-a-1",
      "changelogManifestList" : null, "indexManifest" : "index-manifest-b-0",
      "commitUser" : "u", "commitIdentifier" : 9223372036854775807, "commitKind" : "COMPACT",
      "timeMillis" : 1684155393354, "logOffsets" : { }, "totalRecordCount" : 1,
      "deltaRecordCount" : -2, "changelogRecordCount" : 0, "watermark" : -9223372036854775808,
      "baseManifestListSize" : 5, "nextRowId" : 0, "someFutureKey" : [1, 2]
    }"#;

    /// A snapshot as `Snapshot.toJson` of 2.0.0 writes it: no `logOffsets`, no `changelogRecordCount`
    /// (no changelog), the new keys present, plus a key no release writes.
    const JSON_2_0: &str = r#"{
      "version" : 3, "uuid" : "0f8e3c2a-6b1d-4c57-9a3e-2d7b5e9f1a20", "id" : 4, "schemaId" : 1,
      "baseManifestList" : "manifest-list-c-2", "baseManifestListSize" : 1093,
      "deltaManifestList" : "manifest-list-c-3", "deltaManifestListSize" : 1011,
      "changelogManifestList" : "manifest-list-c-4", "changelogManifestListSize" : 1002,
      "commitUser" : "u2", "commitIdentifier" : 3, "commitKind" : "APPEND",
      "timeMillis" : 1767225600000, "totalRecordCount" : 10, "deltaRecordCount" : 3,
      "properties" : { "sequence.snapshot" : "4" }, "nextRowId" : 0, "operation" : "CREATE_OR_REPLACE_TABLE_AS_SELECT",
      "futureKey" : { "nested" : true }
    }"#;

    #[test]
    fn parses_2_0_snapshot_json() {
        let s = Snapshot::parse(JSON_2_0.as_bytes()).unwrap();
        assert_eq!(s.id, 4);
        assert_eq!(
            s.uuid.as_deref(),
            Some("0f8e3c2a-6b1d-4c57-9a3e-2d7b5e9f1a20")
        );
        assert_eq!(s.base_manifest_list_size, Some(1093));
        assert_eq!(s.delta_manifest_list_size, Some(1011));
        assert_eq!(
            s.changelog_manifest_list.as_deref(),
            Some("manifest-list-c-4")
        );
        assert_eq!(s.changelog_manifest_list_size, Some(1002));
        assert_eq!(s.index_manifest, None);
        assert_eq!(s.changelog_record_count, None);
        assert_eq!(s.total_record_count, Some(10));
        assert_eq!(s.next_row_id, Some(0));
        assert_eq!(s.operation, Some(Operation::CreateOrReplaceTableAsSelect));
        let props = s.properties.as_ref().unwrap();
        assert_eq!(
            props.get("sequence.snapshot").map(String::as_str),
            Some("4")
        );
        for (op, want) in [
            ("WRITE", Operation::Write),
            ("TRUNCATE", Operation::Truncate),
            ("MERGE", Operation::Merge),
        ] {
            let json = JSON_2_0.replace("CREATE_OR_REPLACE_TABLE_AS_SELECT", op);
            assert_eq!(
                Snapshot::parse(json.as_bytes()).unwrap().operation,
                Some(want)
            );
        }
        // 1.0 snapshots have none of the new keys.
        let old = Snapshot::parse(JSON.as_bytes()).unwrap();
        assert_eq!(
            (old.uuid, old.operation, old.properties),
            (None, None, None)
        );
        assert_eq!(old.next_row_id, Some(0));
        assert_eq!(old.base_manifest_list_size, Some(5));
    }

    fn snap(id: i64) -> String {
        JSON.replace("\"id\" : 7", &format!("\"id\" : {id}"))
    }

    #[test]
    fn parses_snapshot_json() {
        let s = Snapshot::parse(JSON.as_bytes()).unwrap();
        assert_eq!(s.id, 7);
        assert_eq!(s.commit_kind, CommitKind::Compact);
        assert_eq!(s.commit_identifier, i64::MAX);
        assert_eq!(s.changelog_manifest_list, None);
        assert_eq!(s.index_manifest.as_deref(), Some("index-manifest-b-0"));
        assert_eq!(s.delta_record_count, Some(-2));
        assert_eq!(s.watermark, Some(i64::MIN));
        assert!(Snapshot::parse(b"{\"id\": 1}").is_err());
        assert!(Snapshot::parse(JSON.replace("COMPACT", "MERGE").as_bytes()).is_err());
    }

    fn table_with(ids: &[i64]) -> (tempfile::TempDir, SnapshotManager) {
        let dir = tempfile::tempdir().unwrap();
        let m = SnapshotManager::new(dir.path());
        std::fs::create_dir_all(m.snapshot_dir()).unwrap();
        for id in ids {
            std::fs::write(m.snapshot_path(*id), snap(*id)).unwrap();
        }
        (dir, m)
    }

    #[test]
    fn no_snapshot_dir_means_none() {
        let dir = tempfile::tempdir().unwrap();
        let m = SnapshotManager::new(dir.path());
        assert_eq!(m.latest_snapshot_id().unwrap(), None);
        assert_eq!(m.earliest_snapshot_id().unwrap(), None);
        let err = m.snapshot(1).unwrap_err();
        assert!(matches!(err, Error::Snapshot { .. }));
        assert!(err.to_string().contains("snapshot-1"));
    }

    #[test]
    fn hints_are_used_when_consistent() {
        let (_d, m) = table_with(&[3, 4, 5]);
        std::fs::write(m.snapshot_dir().join("LATEST"), "5").unwrap();
        std::fs::write(m.snapshot_dir().join("EARLIEST"), "3").unwrap();
        assert_eq!(m.latest_snapshot_id().unwrap(), Some(5));
        assert_eq!(m.earliest_snapshot_id().unwrap(), Some(3));
        assert_eq!(m.snapshot(4).unwrap().id, 4);
    }

    #[test]
    fn stale_or_garbage_hints_fall_back_to_listing() {
        let (_d, m) = table_with(&[3, 4, 5, 6]);
        // stale LATEST: snapshot-5 exists after 4
        std::fs::write(m.snapshot_dir().join("LATEST"), "4").unwrap();
        // stale EARLIEST: snapshot-1 was expired
        std::fs::write(m.snapshot_dir().join("EARLIEST"), "1").unwrap();
        assert_eq!(m.latest_snapshot_id().unwrap(), Some(6));
        assert_eq!(m.earliest_snapshot_id().unwrap(), Some(3));
        // garbage
        std::fs::write(m.snapshot_dir().join("LATEST"), "x\n").unwrap();
        std::fs::write(m.snapshot_dir().join("EARLIEST"), "").unwrap();
        assert_eq!(m.latest_snapshot_id().unwrap(), Some(6));
        assert_eq!(m.earliest_snapshot_id().unwrap(), Some(3));
        // trailing newline is garbage for Long.parseLong too, listing gives the same answer
        std::fs::write(m.snapshot_dir().join("LATEST"), "6\n").unwrap();
        assert_eq!(m.latest_snapshot_id().unwrap(), Some(6));
        // zero or negative LATEST is ignored
        std::fs::write(m.snapshot_dir().join("LATEST"), "0").unwrap();
        assert_eq!(m.latest_snapshot_id().unwrap(), Some(6));
        // missing hints
        std::fs::remove_file(m.snapshot_dir().join("LATEST")).unwrap();
        std::fs::remove_file(m.snapshot_dir().join("EARLIEST")).unwrap();
        assert_eq!(m.latest_snapshot_id().unwrap(), Some(6));
        assert_eq!(m.earliest_snapshot_id().unwrap(), Some(3));
        // unrelated files are ignored
        std::fs::write(m.snapshot_dir().join("snapshot-x"), "").unwrap();
        std::fs::write(m.snapshot_dir().join(".snapshot-9.tmp"), "").unwrap();
        assert_eq!(m.latest_snapshot_id().unwrap(), Some(6));
    }

    #[test]
    fn latest_hint_ahead_is_trusted_like_java() {
        // Java returns h when snapshot-(h+1) is absent, without checking snapshot-h.
        let (_d, m) = table_with(&[1, 2]);
        std::fs::write(m.snapshot_dir().join("LATEST"), "9").unwrap();
        assert_eq!(m.latest_snapshot_id().unwrap(), Some(9));
    }

    #[test]
    fn empty_snapshot_dir() {
        let (_d, m) = table_with(&[]);
        std::fs::write(m.snapshot_dir().join("EARLIEST"), "1").unwrap();
        assert_eq!(m.latest_snapshot_id().unwrap(), None);
        assert_eq!(m.earliest_snapshot_id().unwrap(), None);
    }

    #[test]
    fn malformed_snapshot_is_json_error() {
        let (_d, m) = table_with(&[]);
        std::fs::write(m.snapshot_path(1), "{not json").unwrap();
        let err = m.snapshot(1).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Json { .. }
                    | Error::Library {
                        kind: ErrorKind::Json,
                        ..
                    }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("snapshot-1"));
    }
}
