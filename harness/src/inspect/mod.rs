//! `paimon-parity inspect`: the snapshot timeline of a table, read from its own metadata.
//!
//! For each retained snapshot: id, commit kind, commit user, commit identifier, time, record counts, files
//! added and deleted per (partition, bucket, level), changelog files and rows, schema id. Snapshots are
//! grouped by (commit user, commit identifier), so that the APPEND and COMPACT halves of one commit
//! (`FileStoreCommitImpl.commit` writes up to two snapshots with the same identifier) sit together.
//!
//! Only metadata is read (snapshot JSON, manifest lists, manifests): never a data file, never a write.
//!
//! The pairing of the halves (the audit's part 1, [`pairs`]) is metadata only too, so it lives here: the
//! audit reads the timeline and its pairs, never the other way round.

pub mod pairs;
pub mod schedule;
mod text;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use native_reader::manifest::{read_manifest_file, read_manifest_list, FileKind, ManifestEntry};
use native_reader::snapshot::{CommitKind, Snapshot};
use native_reader::Table;
use serde::Serialize;

use crate::error::Result;
pub use pairs::{commit_pairs, is_write_half, CommitPair, FileAt, PairStatus};
pub use schedule::{CompactionSchedule, Due};
pub use text::write_text;

/// Files of one (partition, bucket, level) added or deleted by a snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileGroup {
    /// Partition values (legacy rendering; NULL as `None`).
    pub partition: Vec<Option<String>>,
    /// Bucket.
    pub bucket: i32,
    /// LSM level of the files.
    pub level: i32,
    /// Number of files.
    pub files: usize,
    /// Sum of their `_ROW_COUNT`.
    pub rows: i64,
    /// The file names, in manifest order.
    pub names: Vec<String>,
}

/// One snapshot of the timeline.
#[derive(Clone, Debug, Serialize)]
pub struct SnapshotInfo {
    /// Snapshot id.
    pub id: i64,
    /// `APPEND`, `COMPACT`, `OVERWRITE` or `ANALYZE`.
    pub commit_kind: CommitKind,
    /// Commit user.
    pub commit_user: String,
    /// Commit identifier (`i64::MAX` for batch commits and for the end-of-input commit of a bounded streaming
    /// job, see [`identifier_words`]).
    pub commit_identifier: i64,
    /// Commit time, epoch milliseconds.
    pub time_millis: i64,
    /// Commit time as an ISO-8601 UTC string.
    pub time: String,
    /// Schema id at commit time.
    pub schema_id: i64,
    /// `totalRecordCount`.
    pub total_record_count: Option<i64>,
    /// `deltaRecordCount`.
    pub delta_record_count: Option<i64>,
    /// `changelogRecordCount`.
    pub changelog_record_count: Option<i64>,
    /// Files added by this snapshot's delta, grouped.
    pub added: Vec<FileGroup>,
    /// Files deleted by this snapshot's delta, grouped.
    pub deleted: Vec<FileGroup>,
    /// Changelog files of this snapshot, grouped.
    pub changelog: Vec<FileGroup>,
}

impl SnapshotInfo {
    /// Number of changelog files.
    pub fn changelog_files(&self) -> usize {
        self.changelog.iter().map(|g| g.files).sum()
    }

    /// Rows in changelog files.
    pub fn changelog_rows(&self) -> i64 {
        self.changelog.iter().map(|g| g.rows).sum()
    }
}

/// The snapshots of one (commit user, commit identifier).
#[derive(Clone, Debug, Serialize)]
pub struct CommitGroup {
    /// Commit user.
    pub commit_user: String,
    /// Commit identifier.
    pub commit_identifier: i64,
    /// Its snapshots in id order.
    pub snapshots: Vec<SnapshotInfo>,
    /// Whether its APPEND and COMPACT halves pair up (the audit's part 1, from the whole timeline), and why.
    pub pair: Option<PairView>,
}

/// The pairing verdict of one (commit user, commit identifier), as `inspect` shows it.
#[derive(Clone, Debug, Serialize)]
pub struct PairView {
    /// `complete`, `compacted-later`, `not-applicable`, `incomplete`, `deferred` or `deferred-to-lost`
    /// ([`PairStatus`]).
    pub status: PairStatus,
    /// Why, in words.
    pub detail: String,
}

/// What `inspect` shows of a timeline: the snapshots in `[from, to]` (inclusive; `None` is open), and of
/// their files only those of `partition` (values joined with `/`, `NULL` for a NULL value) when given.
#[derive(Clone, Debug, Default)]
pub struct InspectFilter {
    /// First snapshot shown.
    pub from: Option<i64>,
    /// Last snapshot shown.
    pub to: Option<i64>,
    /// Only this partition's files, e.g. `2024-01-01/7`.
    pub partition: Option<String>,
}

impl InspectFilter {
    fn keeps_partition(&self, p: &[Option<String>]) -> bool {
        match &self.partition {
            None => true,
            Some(want) => {
                let have: Vec<&str> = p.iter().map(|v| v.as_deref().unwrap_or("NULL")).collect();
                have.join("/") == *want
            }
        }
    }

    /// `timeline` limited to what this filter shows; the pairing verdicts stay those of the whole timeline.
    pub fn apply(&self, mut timeline: Timeline) -> Timeline {
        for c in &mut timeline.commits {
            c.snapshots.retain(|s| {
                self.from.is_none_or(|f| s.id >= f) && self.to.is_none_or(|t| s.id <= t)
            });
            if self.partition.is_some() {
                for s in &mut c.snapshots {
                    s.added.retain(|g| self.keeps_partition(&g.partition));
                    s.deleted.retain(|g| self.keeps_partition(&g.partition));
                    s.changelog.retain(|g| self.keeps_partition(&g.partition));
                }
                c.snapshots.retain(|s| {
                    !(s.added.is_empty() && s.deleted.is_empty() && s.changelog.is_empty())
                });
            }
        }
        timeline.commits.retain(|c| !c.snapshots.is_empty());
        timeline
    }
}

/// The whole timeline.
#[derive(Clone, Debug, Serialize)]
pub struct Timeline {
    /// Table directory.
    pub table: PathBuf,
    /// `changelog-producer` of the latest schema.
    pub changelog_producer: String,
    /// `merge-engine` of the latest schema.
    pub merge_engine: String,
    /// Partition columns of the latest schema, in partition order (the names of `FileGroup::partition`).
    pub partition_keys: Vec<String>,
    /// Primary-key columns of the latest schema (empty for an append table).
    pub primary_keys: Vec<String>,
    /// Every column of the latest schema, in order.
    pub columns: Vec<String>,
    /// When the table's writers compact level-0 files into a changelog (`full-compaction.delta-commits`,
    /// `lookup`, see [`CompactionSchedule`]).
    pub compaction: CompactionSchedule,
    /// `num-levels` (default `num-sorted-run.compaction-trigger` + 1): a `full-compaction` table writes
    /// changelog when a compaction's output reaches level `num_levels - 1`.
    pub num_levels: i32,
    /// Earliest retained snapshot, if any.
    pub earliest_snapshot: Option<i64>,
    /// Latest snapshot, if any.
    pub latest_snapshot: Option<i64>,
    /// Groups in order of their first snapshot.
    pub commits: Vec<CommitGroup>,
}

impl Timeline {
    /// Every snapshot in id order.
    pub fn snapshots(&self) -> Vec<&SnapshotInfo> {
        let mut all: Vec<&SnapshotInfo> = self.commits.iter().flat_map(|c| &c.snapshots).collect();
        all.sort_by_key(|s| s.id);
        all
    }
}

/// ISO-8601 UTC rendering of epoch milliseconds.
pub fn iso_time(millis: i64) -> String {
    chrono::DateTime::from_timestamp_millis(millis)
        .map(|t| t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
        .unwrap_or_else(|| format!("{millis} ms"))
}

/// Reads every entry of a manifest list, in list order then entry order.
pub fn manifest_list_entries(table: &Table, list: &str) -> Result<Vec<ManifestEntry>> {
    let mut out = Vec::new();
    for meta in read_manifest_list(&table.manifest_path(list))? {
        out.extend(read_manifest_file(&table.manifest_path(&meta.file_name))?);
    }
    Ok(out)
}

fn group(table: &Table, entries: &[&ManifestEntry], source: &Path) -> Result<Vec<FileGroup>> {
    let mut groups: Vec<FileGroup> = Vec::new();
    let mut index: BTreeMap<(Vec<u8>, i32, i32), usize> = BTreeMap::new();
    for e in entries {
        let key = (e.partition.clone(), e.bucket, e.file.level);
        let i = match index.get(&key) {
            Some(i) => *i,
            None => {
                let partition = table
                    .partition_computer()
                    .render(&e.partition, source)?
                    .values;
                groups.push(FileGroup {
                    partition,
                    bucket: e.bucket,
                    level: e.file.level,
                    files: 0,
                    rows: 0,
                    names: Vec::new(),
                });
                index.insert(key, groups.len() - 1);
                groups.len() - 1
            }
        };
        let g = &mut groups[i];
        g.files += 1;
        g.rows += e.file.row_count;
        g.names.push(e.file.file_name.clone());
    }
    Ok(groups)
}

/// Describes one snapshot from its delta and changelog manifest lists.
pub fn snapshot_info(table: &Table, snapshot: &Snapshot) -> Result<SnapshotInfo> {
    let delta_path = table.manifest_path(&snapshot.delta_manifest_list);
    let delta = manifest_list_entries(table, &snapshot.delta_manifest_list)?;
    let added: Vec<&ManifestEntry> = delta.iter().filter(|e| e.kind == FileKind::Add).collect();
    let deleted: Vec<&ManifestEntry> = delta
        .iter()
        .filter(|e| e.kind == FileKind::Delete)
        .collect();
    let changelog_entries = match &snapshot.changelog_manifest_list {
        Some(list) => manifest_list_entries(table, list)?,
        None => Vec::new(),
    };
    let changelog: Vec<&ManifestEntry> = changelog_entries
        .iter()
        .filter(|e| e.kind == FileKind::Add)
        .collect();
    Ok(SnapshotInfo {
        id: snapshot.id,
        commit_kind: snapshot.commit_kind,
        commit_user: snapshot.commit_user.clone(),
        commit_identifier: snapshot.commit_identifier,
        time_millis: snapshot.time_millis,
        time: iso_time(snapshot.time_millis),
        schema_id: snapshot.schema_id,
        total_record_count: snapshot.total_record_count,
        delta_record_count: snapshot.delta_record_count,
        changelog_record_count: snapshot.changelog_record_count,
        added: group(table, &added, &delta_path)?,
        deleted: group(table, &deleted, &delta_path)?,
        changelog: group(table, &changelog, &delta_path)?,
    })
}

/// Reads the timeline of the table at `path` (every retained snapshot, earliest to latest).
///
/// Errors: the directory is not a table, or a snapshot or manifest is unreadable (the error names it).
pub fn inspect(path: &Path) -> Result<Timeline> {
    inspect_to(path, None)
}

/// [`inspect`] of the table as it was at snapshot `to` (`audit --to-snapshot`): the snapshots after it are
/// left out, as if not yet committed; `None` reads up to the latest.
///
/// Errors: as [`inspect`]; [`crate::Error::Usage`] for a `to` outside the retained snapshots (naming them).
pub fn inspect_to(path: &Path, to: Option<i64>) -> Result<Timeline> {
    let path = crate::replay::resolve_table(path)?;
    let (base, branch) = crate::location::split_branch(&path);
    // The timeline is metadata only: read with the newest release's schema parser, which knows every type
    // (an older one refuses a VARIANT or BLOB column the timeline does not read).
    let newest = native_reader::PaimonRelease::ALL[native_reader::PaimonRelease::ALL.len() - 1];
    let table = Table::open_branch(&base, branch.as_deref(), newest)?;
    let earliest = table.earliest_snapshot_id()?;
    let mut latest = table.latest_snapshot_id()?;
    if let Some(pin) = to {
        match (earliest, latest) {
            (Some(first), Some(last)) if (first..=last).contains(&pin) => latest = Some(pin),
            (Some(first), Some(last)) => {
                return Err(crate::Error::Usage(format!(
                    "--to-snapshot {pin}: {} has snapshots {first}..{last}",
                    path.display()
                )))
            }
            _ => {}
        }
    }
    let mut commits: Vec<CommitGroup> = Vec::new();
    let mut by_commit: BTreeMap<(String, i64), usize> = BTreeMap::new();
    if let (Some(first), Some(last)) = (earliest, latest) {
        for id in first..=last {
            let snapshot = table.snapshot(id)?;
            let info = snapshot_info(&table, &snapshot)?;
            let key = (info.commit_user.clone(), info.commit_identifier);
            match by_commit.get(&key) {
                Some(i) => commits[*i].snapshots.push(info),
                None => {
                    by_commit.insert(key, commits.len());
                    commits.push(CommitGroup {
                        commit_user: info.commit_user.clone(),
                        commit_identifier: info.commit_identifier,
                        snapshots: vec![info],
                        pair: None,
                    });
                }
            }
        }
    }
    let mut timeline = Timeline {
        table: path,
        changelog_producer: table.options().changelog_producer.as_str().to_string(),
        merge_engine: table.options().merge_engine.to_string(),
        partition_keys: table.schema().partition_keys.clone(),
        primary_keys: table.schema().primary_keys.clone(),
        columns: table
            .schema()
            .fields
            .iter()
            .map(|f| f.name.clone())
            .collect(),
        compaction: CompactionSchedule::of(
            table.options().changelog_producer.as_str(),
            &table.schema().options,
        ),
        // An unparsable value is the reader's error to raise; here it falls back to Paimon's default.
        num_levels: table.options().num_levels.get().unwrap_or(6),
        earliest_snapshot: earliest,
        latest_snapshot: latest,
        commits,
    };
    let pairs = commit_pairs(&timeline);
    for c in &mut timeline.commits {
        c.pair = pairs
            .iter()
            .find(|p| p.commit_user == c.commit_user && p.commit_identifier == c.commit_identifier)
            .map(|p| PairView {
                status: p.status,
                detail: p.detail.clone(),
            });
    }
    Ok(timeline)
}

/// A commit identifier in words: the number, or for `i64::MAX` (`BatchWriteBuilder.COMMIT_IDENTIFIER`) `MAX
/// (a batch commit, or the end-of-input commit of a bounded streaming job)`: both use it (Flink commits
/// the end of a bounded input as checkpoint `Long.MAX_VALUE`).
pub fn identifier_words(id: i64) -> String {
    if id == i64::MAX {
        "MAX (a batch commit, or the end-of-input commit of a bounded streaming job)".into()
    } else {
        id.to_string()
    }
}
