//! `paimon-parity audit`: finds the commits whose changelog was lost, and proves it from the data.
//!
//! A commit of a `lookup` or `full-compaction` table writes an APPEND snapshot (new level-0 files) and then a
//! COMPACT snapshot with the same (commit user, commit identifier) that carries the changelog
//! (`FileStoreCommitImpl.commit`). When the process dies between the two, the released recovery
//! (`StreamTableCommit.filterAndCommit` → `FileStoreCommitImpl.filterCommitted`) drops the COMPACT half
//! because the identifier already has a snapshot, and streaming readers never see that changelog.
//!
//! The audit has two parts:
//! 1. **Commit pairs** (metadata only): for every (user, identifier), which halves exist; an APPEND whose
//!    level-0 files never reach a changelog (no COMPACT of the same identifier, and no later compaction that
//!    rewrote those files with changelog) is flagged.
//! 2. **Changelog completeness** (data): the changelog replayed from the earliest snapshot is folded per
//!    primary key (`+I`/`+U` set the value, `-U`/`-D` clear it) and compared with the batch read of the
//!    latest snapshot. Every key whose table value never reached the changelog is reported with its
//!    partition, bucket, the value the stream last saw, the value in the table, and the APPEND snapshot and
//!    (user, identifier) that wrote the table's value.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use arrow::row::{RowConverter, SortField};
use arrow_array::{Array, Int8Array, RecordBatch};
use native_reader::manifest::{FileKind, ManifestEntry};
use native_reader::scan::ScanMode;
use native_reader::snapshot::CommitKind;
use native_reader::table::ChangelogProducer;
use native_reader::{Split, Table};
use serde::Serialize;

use crate::diff::render_value;
use crate::error::{Error, Result};
use crate::inspect::{inspect, manifest_list_entries, Timeline};
use crate::reader::{NativeTableReader, StockTableReader, TableReader};

/// What happened to one (commit user, commit identifier).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairStatus {
    /// APPEND and COMPACT halves both exist (or the APPEND added no level-0 file).
    Complete,
    /// No COMPACT of the identifier, but a later compaction rewrote the APPEND's level-0 files with changelog.
    CompactedLater,
    /// The table's changelog producer does not use COMPACT snapshots (`none`, `input`): nothing to pair.
    NotApplicable,
    /// Level-0 files of the APPEND never reached a changelog: the changelog of this commit is lost (or, if
    /// the files are still at level 0, pending until some later compaction rewrites them).
    Incomplete,
}

/// The halves of one (commit user, commit identifier).
#[derive(Clone, Debug, Serialize)]
pub struct CommitPair {
    /// Commit user.
    pub commit_user: String,
    /// Commit identifier.
    pub commit_identifier: i64,
    /// APPEND snapshot ids of this identifier.
    pub append_snapshots: Vec<i64>,
    /// COMPACT snapshot ids of this identifier.
    pub compact_snapshots: Vec<i64>,
    /// Level-0 files the APPEND snapshots added.
    pub level0_files: usize,
    /// Verdict.
    pub status: PairStatus,
    /// Why, in words (which snapshot rewrote the files, or where the files are now).
    pub detail: String,
}

/// One key whose value in the table never reached the changelog.
#[derive(Clone, Debug, Serialize)]
pub struct MissingKey {
    /// Partition values (legacy rendering).
    pub partition: Vec<Option<String>>,
    /// Bucket.
    pub bucket: i32,
    /// The primary key, rendered.
    pub key: String,
    /// The last value the changelog showed for this key, rendered as `(1, 10)` (`<none>` when it never
    /// showed one, or it was retracted).
    pub stream_value: String,
    /// The value in the latest snapshot, rendered the same way (`<deleted>` when the table no longer has
    /// the key).
    pub table_value: String,
    /// The APPEND snapshot whose level-0 files first held the table's value, if found.
    pub written_by_snapshot: Option<i64>,
    /// Its commit user.
    pub written_by_user: Option<String>,
    /// Its commit identifier.
    pub written_by_identifier: Option<i64>,
}

/// Per commit user.
#[derive(Clone, Debug, Serialize)]
pub struct UserSummary {
    /// Commit user.
    pub commit_user: String,
    /// Its last APPEND snapshot.
    pub last_append: Option<i64>,
    /// Its last COMPACT snapshot.
    pub last_compact: Option<i64>,
    /// Identifiers whose pair is incomplete.
    pub incomplete_identifiers: Vec<i64>,
}

/// The changelog-completeness part of the audit.
#[derive(Clone, Debug, Serialize)]
pub struct Completeness {
    /// Which reader produced the changelog and the batch rows (`native` or `stock`).
    pub reader: String,
    /// First snapshot of the replayed changelog (the earliest retained one).
    pub from_snapshot: i64,
    /// Last snapshot checked (latest at audit start).
    pub to_snapshot: i64,
    /// True when the history was expired and the replay started with a full read of `from_snapshot`
    /// (`scan.mode=from-snapshot-full`) instead of the changelog from snapshot 1.
    pub started_from_full_snapshot: bool,
    /// Distinct primary keys in the table or in the changelog.
    pub keys: usize,
    /// Keys whose final value is missing from (or different in) the changelog.
    pub missing: Vec<MissingKey>,
    /// Why the check did not run, when it did not (no snapshot, no primary key, no true changelog).
    pub skipped: Option<String>,
    /// Keys left out because they sit in level-0 files that batch reads of this table do not see yet
    /// (deletion-vector and first-row tables read only level > 0: `DataTableBatchScan`); their changelog
    /// is not lost, the table view is behind the stream.
    pub pending_level0_keys: usize,
}

/// The whole audit.
#[derive(Clone, Debug, Serialize)]
pub struct AuditReport {
    /// Table directory.
    pub table: PathBuf,
    /// `changelog-producer`.
    pub changelog_producer: String,
    /// Snapshot range of the retained history.
    pub earliest_snapshot: Option<i64>,
    /// See `earliest_snapshot`.
    pub latest_snapshot: Option<i64>,
    /// Every (user, identifier).
    pub pairs: Vec<CommitPair>,
    /// Per commit user.
    pub users: Vec<UserSummary>,
    /// Changelog completeness, per reader (one entry, or two with `--reader both`).
    pub completeness: Vec<Completeness>,
    /// With `--reader both`: whether the native and stock readers found the same missing keys.
    pub readers_agree: Option<bool>,
    /// `complete` or `changelog-lost`.
    pub verdict: &'static str,
}

impl AuditReport {
    /// Exit status: 0 complete, 1 changelog lost.
    pub fn exit_code(&self) -> i32 {
        if self.verdict == "complete" {
            0
        } else {
            1
        }
    }

    /// Incomplete pairs.
    pub fn incomplete_pairs(&self) -> Vec<&CommitPair> {
        self.pairs
            .iter()
            .filter(|p| p.status == PairStatus::Incomplete)
            .collect()
    }
}

fn uses_compact_changelog(producer: &str) -> bool {
    producer == ChangelogProducer::Lookup.as_str()
        || producer == ChangelogProducer::FullCompaction.as_str()
}

/// Part 1: the commit pairs of a timeline.
pub fn commit_pairs(timeline: &Timeline) -> Vec<CommitPair> {
    let applicable = uses_compact_changelog(&timeline.changelog_producer);
    let snapshots = timeline.snapshots();
    timeline
        .commits
        .iter()
        .map(|c| {
            let ids = |kind: CommitKind| -> Vec<i64> {
                c.snapshots
                    .iter()
                    .filter(|s| s.commit_kind == kind)
                    .map(|s| s.id)
                    .collect()
            };
            let append_snapshots = ids(CommitKind::Append);
            let compact_snapshots = ids(CommitKind::Compact);
            // Level-0 files added by the APPEND halves, keyed by (partition, bucket, name).
            let mut level0: Vec<(Vec<Option<String>>, i32, String)> = Vec::new();
            for s in c
                .snapshots
                .iter()
                .filter(|s| s.commit_kind == CommitKind::Append)
            {
                for g in s.added.iter().filter(|g| g.level == 0) {
                    for n in &g.names {
                        level0.push((g.partition.clone(), g.bucket, n.clone()));
                    }
                }
            }
            let (status, detail) = if !applicable {
                (
                    PairStatus::NotApplicable,
                    format!(
                        "changelog-producer {} reads APPEND snapshots",
                        timeline.changelog_producer
                    ),
                )
            } else if append_snapshots.is_empty() || level0.is_empty() {
                (PairStatus::Complete, "no level-0 file to compact".into())
            } else if !compact_snapshots.is_empty() {
                (
                    PairStatus::Complete,
                    format!("COMPACT snapshot {:?}", compact_snapshots),
                )
            } else {
                let after = append_snapshots.iter().copied().max().unwrap_or(0);
                // A later COMPACT that deleted every one of these files and wrote changelog for their
                // (partition, bucket).
                let mut rewritten_by: Vec<i64> = Vec::new();
                let mut pending = Vec::new();
                for (partition, bucket, name) in &level0 {
                    let hit = snapshots.iter().find(|s| {
                        s.id > after
                            && s.commit_kind == CommitKind::Compact
                            && s.deleted.iter().any(|g| {
                                &g.partition == partition
                                    && g.bucket == *bucket
                                    && g.names.contains(name)
                            })
                            && s.changelog
                                .iter()
                                .any(|g| &g.partition == partition && g.bucket == *bucket)
                    });
                    match hit {
                        Some(s) => rewritten_by.push(s.id),
                        None => pending.push(name.clone()),
                    }
                }
                if pending.is_empty() {
                    rewritten_by.sort_unstable();
                    rewritten_by.dedup();
                    (
                        PairStatus::CompactedLater,
                        format!(
                            "level-0 files rewritten with changelog by snapshot {rewritten_by:?}"
                        ),
                    )
                } else {
                    (
                        PairStatus::Incomplete,
                        format!(
                            "no COMPACT snapshot for this identifier; {} of {} level-0 files never \
                             reached a changelog ({})",
                            pending.len(),
                            level0.len(),
                            pending.join(", ")
                        ),
                    )
                }
            };
            CommitPair {
                commit_user: c.commit_user.clone(),
                commit_identifier: c.commit_identifier,
                append_snapshots,
                compact_snapshots,
                level0_files: level0.len(),
                status,
                detail,
            }
        })
        .collect()
}

fn user_summaries(timeline: &Timeline, pairs: &[CommitPair]) -> Vec<UserSummary> {
    let mut users: BTreeMap<String, UserSummary> = BTreeMap::new();
    for s in timeline.snapshots() {
        let u = users
            .entry(s.commit_user.clone())
            .or_insert_with(|| UserSummary {
                commit_user: s.commit_user.clone(),
                last_append: None,
                last_compact: None,
                incomplete_identifiers: Vec::new(),
            });
        match s.commit_kind {
            CommitKind::Append => u.last_append = Some(s.id),
            CommitKind::Compact => u.last_compact = Some(s.id),
            _ => {}
        }
    }
    for p in pairs.iter().filter(|p| p.status == PairStatus::Incomplete) {
        if let Some(u) = users.get_mut(&p.commit_user) {
            u.incomplete_identifiers.push(p.commit_identifier);
        }
    }
    users.into_values().collect()
}

/// The rows of one split as the audit consumes them: the split (for partition and bucket) and its batches.
pub type SplitRows = (Split, Vec<RecordBatch>);

struct KeyState {
    partition: Vec<Option<String>>,
    bucket: i32,
    key: String,
    value: Option<(Vec<u8>, String)>,
}

/// Folds rows per primary key.
///
/// `key_columns` are the positions of the primary-key columns in the batches (after `_row_kind`);
/// value equality covers every column but `_row_kind`.
struct Folder {
    keys: RowConverter,
    values: RowConverter,
    key_columns: Vec<usize>,
    state: HashMap<Vec<u8>, KeyState>,
}

impl Folder {
    fn new(schema: &arrow_schema::Schema, key_columns: Vec<usize>) -> Result<Self> {
        let field = |i: usize| SortField::new(schema.field(i).data_type().clone());
        let keys = RowConverter::new(key_columns.iter().map(|i| field(*i)).collect())
            .map_err(|e| Error::Scenario(format!("primary key columns: {e}")))?;
        let values = RowConverter::new((1..schema.fields().len()).map(field).collect())
            .map_err(|e| Error::Scenario(format!("value columns: {e}")))?;
        Ok(Folder {
            keys,
            values,
            key_columns,
            state: HashMap::new(),
        })
    }

    /// The primary key of row `r`, rendered as `(1, "a")`.
    fn render_key(&self, batch: &RecordBatch, r: usize) -> String {
        let parts: Vec<String> = self
            .key_columns
            .iter()
            .map(|i| render_value(batch.column(*i).as_ref(), r))
            .collect();
        format!("({})", parts.join(", "))
    }

    /// Applies a batch: `+I`/`+U` set, `-U`/`-D` clear (when `changelog`), or every row sets (a table read).
    fn apply(&mut self, split: &Split, batch: &RecordBatch, changelog: bool) -> Result<()> {
        let rows = batch.num_rows();
        let kinds = batch
            .columns()
            .first()
            .and_then(|c| c.as_any().downcast_ref::<Int8Array>())
            .ok_or_else(|| Error::Scenario("batch without an Int8 _row_kind column".into()))?;
        let key_arrays: Vec<_> = self
            .key_columns
            .iter()
            .map(|i| batch.column(*i).clone())
            .collect();
        let keys = self
            .keys
            .convert_columns(&key_arrays)
            .map_err(|e| Error::Scenario(e.to_string()))?;
        let values = self
            .values
            .convert_columns(&batch.columns()[1..])
            .map_err(|e| Error::Scenario(e.to_string()))?;
        for r in 0..rows {
            let set = !changelog || matches!(kinds.value(r), 0 | 2);
            let rendered_key = self.render_key(batch, r);
            let entry = self
                .state
                .entry(keys.row(r).as_ref().to_vec())
                .or_insert_with(|| KeyState {
                    partition: split.partition.clone(),
                    bucket: split.bucket,
                    key: rendered_key,
                    value: None,
                });
            entry.partition = split.partition.clone();
            entry.bucket = split.bucket;
            entry.value = if set {
                Some((values.row(r).as_ref().to_vec(), render_values(batch, r)))
            } else {
                None
            };
        }
        Ok(())
    }
}

/// The values of one row (every column but `_row_kind`), rendered as `(1, "a", NULL)`.
pub fn render_values(batch: &RecordBatch, row: usize) -> String {
    let values: Vec<String> = batch
        .columns()
        .iter()
        .skip(1)
        .map(|c| render_value(c.as_ref(), row))
        .collect();
    format!("({})", values.join(", "))
}

/// Positions (in the read schema, after `_row_kind`) of the primary-key columns of `table`.
pub fn primary_key_columns(table: &Table) -> Result<Vec<usize>> {
    let schema = table.schema();
    schema
        .primary_keys
        .iter()
        .map(|k| {
            schema
                .fields
                .iter()
                .position(|f| &f.name == k)
                .map(|i| i + 1)
                .ok_or_else(|| Error::Table {
                    path: table.path().join("schema"),
                    reason: format!("primary key `{k}` is not a column"),
                })
        })
        .collect()
}

/// Part 2 on rows already read: folds `changelog` per key and compares with `table_rows`.
///
/// Returns the number of distinct keys and the missing ones (attribution not filled in).
pub fn compare_changelog_with_table(
    schema: &arrow_schema::Schema,
    key_columns: Vec<usize>,
    changelog: &[SplitRows],
    table_rows: &[SplitRows],
) -> Result<(usize, Vec<MissingKey>)> {
    let mut stream = Folder::new(schema, key_columns.clone())?;
    for (split, batches) in changelog {
        for b in batches {
            stream.apply(split, b, true)?;
        }
    }
    let mut table = Folder::new(schema, key_columns)?;
    for (split, batches) in table_rows {
        for b in batches {
            table.apply(split, b, false)?;
        }
    }
    Ok(missing_keys(&stream, &table))
}

fn missing_keys(stream: &Folder, table: &Folder) -> (usize, Vec<MissingKey>) {
    let mut all: HashSet<&Vec<u8>> = stream.state.keys().collect();
    all.extend(table.state.keys());
    let keys = all.len();
    let mut missing = Vec::new();
    for (k, t) in &table.state {
        let Some((tv, trendered)) = &t.value else {
            continue;
        };
        let seen = stream.state.get(k).and_then(|s| s.value.as_ref());
        if seen.map(|(sv, _)| sv) != Some(tv) {
            missing.push(MissingKey {
                partition: t.partition.clone(),
                bucket: t.bucket,
                key: t.key.clone(),
                stream_value: seen.map_or("<none>".into(), |(_, r)| r.clone()),
                table_value: trendered.clone(),
                written_by_snapshot: None,
                written_by_user: None,
                written_by_identifier: None,
            });
        }
    }
    // Keys the stream still shows but the table no longer has: their delete never reached the changelog.
    for (k, s) in &stream.state {
        if let Some((_, rendered)) = &s.value {
            if !table.state.contains_key(k) {
                missing.push(MissingKey {
                    partition: s.partition.clone(),
                    bucket: s.bucket,
                    key: s.key.clone(),
                    stream_value: rendered.clone(),
                    table_value: "<deleted>".into(),
                    written_by_snapshot: None,
                    written_by_user: None,
                    written_by_identifier: None,
                });
            }
        }
    }
    missing.sort_by(|a, b| (&a.partition, a.bucket, &a.key).cmp(&(&b.partition, b.bucket, &b.key)));
    (keys, missing)
}

/// Part 2 with one reader: replays the changelog (from snapshot 1, or as `from-snapshot-full` from the
/// earliest retained snapshot when the history has expired) and reads the latest snapshot in batch mode,
/// folding both per primary key batch by batch (memory: one entry per key, one batch per side).
///
/// Errors: the table has no primary key (nothing to fold), or the reader fails.
pub fn completeness(
    reader: &dyn TableReader,
    table: &std::sync::Arc<Table>,
    timeline: &Timeline,
) -> Result<Completeness> {
    let skipped = |reason: &str| Completeness {
        reader: reader.side().to_string(),
        from_snapshot: timeline.earliest_snapshot.unwrap_or(0),
        to_snapshot: timeline.latest_snapshot.unwrap_or(0),
        started_from_full_snapshot: false,
        keys: 0,
        missing: Vec::new(),
        skipped: Some(reason.to_string()),
        pending_level0_keys: 0,
    };
    let key_columns = primary_key_columns(table)?;
    if key_columns.is_empty() {
        return Ok(skipped(
            "the table has no primary key: there is no per-key changelog to fold",
        ));
    }
    let options = table.options();
    let producer = options.changelog_producer;
    if matches!(producer, ChangelogProducer::None | ChangelogProducer::Input)
        && options.merge_engine != "deduplicate"
    {
        return Ok(skipped(&format!(
            "with changelog-producer {} a {} table streams its raw writes, not a changelog of merged \
             values; only lookup and full-compaction produce one",
            producer.as_str(),
            options.merge_engine
        )));
    }
    let schema = native_reader::types::read_schema(&table.schema().fields);
    let mut stream = Folder::new(&schema, key_columns.clone())?;
    let mut rows = Folder::new(&schema, key_columns)?;
    let (Some(earliest), Some(latest)) = (timeline.earliest_snapshot, timeline.latest_snapshot)
    else {
        return Ok(skipped("the table has no snapshot"));
    };
    let full = earliest > 1;
    let mode = if full {
        ScanMode::StreamFull {
            from_snapshot: earliest,
        }
    } else {
        ScanMode::Stream { from_snapshot: 1 }
    };
    let path = table.path();
    for (mode, folder, changelog) in [
        (mode, &mut stream, true),
        (
            ScanMode::Batch {
                snapshot: Some(latest),
            },
            &mut rows,
            false,
        ),
    ] {
        for split in reader.plan(path, mode, latest)? {
            for batch in reader.read_split(path, &split)? {
                folder.apply(&split.split, &batch?, changelog)?;
            }
        }
    }
    let (keys, mut missing) = missing_keys(&stream, &rows);
    let mut pending_level0_keys = 0;
    if options.deletion_vectors_enabled || options.merge_engine == "first-row" {
        let pending = level0_keys(table, latest, &stream)?;
        let before = missing.len();
        missing.retain(|m| !pending.contains(&(m.partition.clone(), m.bucket, m.key.clone())));
        pending_level0_keys = before - missing.len();
    }
    Ok(Completeness {
        reader: reader.side().to_string(),
        from_snapshot: earliest,
        to_snapshot: latest,
        started_from_full_snapshot: full,
        keys,
        missing,
        skipped: None,
        pending_level0_keys,
    })
}

/// (partition values, bucket, rendered primary key) of one key.
type KeyPlace = (Vec<Option<String>>, i32, String);

/// Keys (partition, bucket, rendered key) held by the level-0 files of snapshot `id`, read natively.
fn level0_keys(
    table: &std::sync::Arc<Table>,
    id: i64,
    folder: &Folder,
) -> Result<HashSet<KeyPlace>> {
    let snapshot = table.snapshot(id)?;
    let mut out = HashSet::new();
    for group in native_reader::scan::read_all_files(table, &snapshot, &|level| level == 0)? {
        let split = Split {
            snapshot_id: id,
            partition: group.rendered.values.clone(),
            bucket: group.bucket,
            bucket_path: table.bucket_path(&group.rendered.path, group.bucket),
            data_files: group
                .files
                .iter()
                .map(native_reader::scan::data_file_desc)
                .collect(),
            before_files: Vec::new(),
            before_deletion_files: Vec::new(),
            deletion_files: Vec::new(),
            is_streaming: true,
            raw_convertible: true,
        };
        let reader = native_reader::decode::SplitReader::new(
            table.clone(),
            &split,
            native_reader::decode::DEFAULT_BATCH_SIZE,
        )?;
        for batch in reader {
            let batch = batch?;
            for r in 0..batch.num_rows() {
                out.insert((
                    split.partition.clone(),
                    split.bucket,
                    folder.render_key(&batch, r),
                ));
            }
        }
    }
    Ok(out)
}

/// Fills `written_by_*` of each missing key: the newest APPEND snapshot whose added level-0 files in the
/// key's (partition, bucket) hold a row equal to the table's value. Reads only those files, natively.
pub fn attribute(
    table: &std::sync::Arc<Table>,
    timeline: &Timeline,
    missing: &mut [MissingKey],
) -> Result<()> {
    let wanted: HashSet<(Vec<Option<String>>, i32)> = missing
        .iter()
        .filter(|m| m.table_value != "<deleted>")
        .map(|m| (m.partition.clone(), m.bucket))
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let mut appends: Vec<_> = timeline
        .snapshots()
        .into_iter()
        .filter(|s| s.commit_kind == CommitKind::Append)
        .collect();
    appends.reverse();
    for s in appends {
        let snapshot = table.snapshot(s.id)?;
        let delta = manifest_list_entries(table, &snapshot.delta_manifest_list)?;
        let mut by_bucket: BTreeMap<(Vec<u8>, i32), Vec<&ManifestEntry>> = BTreeMap::new();
        for e in delta
            .iter()
            .filter(|e| e.kind == FileKind::Add && e.file.level == 0)
        {
            by_bucket
                .entry((e.partition.clone(), e.bucket))
                .or_default()
                .push(e);
        }
        for ((partition_bytes, bucket), entries) in by_bucket {
            let source = table.manifest_path(&snapshot.delta_manifest_list);
            let rendered = table
                .partition_computer()
                .render(&partition_bytes, &source)?;
            if !wanted.contains(&(rendered.values.clone(), bucket)) {
                continue;
            }
            let split = Split {
                snapshot_id: s.id,
                partition: rendered.values.clone(),
                bucket,
                bucket_path: table.bucket_path(&rendered.path, bucket),
                data_files: entries
                    .iter()
                    .map(|e| native_reader::scan::data_file_desc(&e.file))
                    .collect(),
                before_files: Vec::new(),
                before_deletion_files: Vec::new(),
                deletion_files: Vec::new(),
                is_streaming: true,
                raw_convertible: true,
            };
            let reader = native_reader::decode::SplitReader::new(
                table.clone(),
                &split,
                native_reader::decode::DEFAULT_BATCH_SIZE,
            )?;
            let mut rows: HashSet<String> = HashSet::new();
            for b in reader {
                let b = b?;
                for r in 0..b.num_rows() {
                    rows.insert(render_values(&b, r));
                }
            }
            for m in missing.iter_mut() {
                if m.written_by_snapshot.is_none()
                    && m.partition == rendered.values
                    && m.bucket == bucket
                    && rows.contains(&m.table_value)
                {
                    m.written_by_snapshot = Some(s.id);
                    m.written_by_user = Some(s.commit_user.clone());
                    m.written_by_identifier = Some(s.commit_identifier);
                }
            }
        }
        if missing
            .iter()
            .all(|m| m.written_by_snapshot.is_some() || m.table_value == "<deleted>")
        {
            break;
        }
    }
    Ok(())
}

/// Runs part 1 and assembles the report around the given completeness results.
pub fn assemble(timeline: Timeline, completeness: Vec<Completeness>) -> AuditReport {
    let pairs = commit_pairs(&timeline);
    let users = user_summaries(&timeline, &pairs);
    let lost = pairs.iter().any(|p| p.status == PairStatus::Incomplete)
        || completeness.iter().any(|c| !c.missing.is_empty());
    let readers_agree = match completeness.as_slice() {
        [a, b] => {
            let keys = |c: &Completeness| -> Vec<(KeyPlace, String, String)> {
                c.missing
                    .iter()
                    .map(|m| {
                        (
                            (m.partition.clone(), m.bucket, m.key.clone()),
                            m.stream_value.clone(),
                            m.table_value.clone(),
                        )
                    })
                    .collect()
            };
            Some(keys(a) == keys(b) && a.keys == b.keys)
        }
        _ => None,
    };
    AuditReport {
        readers_agree,
        table: timeline.table.clone(),
        changelog_producer: timeline.changelog_producer.clone(),
        earliest_snapshot: timeline.earliest_snapshot,
        latest_snapshot: timeline.latest_snapshot,
        pairs,
        users,
        completeness,
        verdict: if lost { "changelog-lost" } else { "complete" },
    }
}

/// Reads the timeline of `path` (part 1 only, no data read).
pub fn timeline(path: &Path) -> Result<Timeline> {
    inspect(path)
}

fn show_partition(p: &[Option<String>]) -> String {
    let parts: Vec<&str> = p.iter().map(|v| v.as_deref().unwrap_or("NULL")).collect();
    format!("[{}]", parts.join(", "))
}

/// Writes the audit for people: commit pairs that are not complete, per-user summary, missing keys, verdict.
pub fn write_text(
    out: &mut dyn std::io::Write,
    r: &AuditReport,
    max_keys: usize,
) -> std::io::Result<()> {
    let range = match (r.earliest_snapshot, r.latest_snapshot) {
        (Some(a), Some(b)) => format!("snapshots {a}..{b}"),
        _ => "no snapshot".into(),
    };
    writeln!(
        out,
        "paimon-parity audit {} (changelog-producer {}, {range})",
        r.table.display(),
        r.changelog_producer
    )?;
    let count = |s: PairStatus| r.pairs.iter().filter(|p| p.status == s).count();
    writeln!(
        out,
        "commit pairs: {} (user, identifier): {} complete, {} compacted later, {} incomplete, {} not applicable",
        r.pairs.len(),
        count(PairStatus::Complete),
        count(PairStatus::CompactedLater),
        count(PairStatus::Incomplete),
        count(PairStatus::NotApplicable)
    )?;
    for p in r.incomplete_pairs() {
        writeln!(
            out,
            "  INCOMPLETE user {} identifier {}: APPEND snapshot {:?}, COMPACT snapshot {:?}: {}",
            p.commit_user, p.commit_identifier, p.append_snapshots, p.compact_snapshots, p.detail
        )?;
    }
    for u in &r.users {
        let show = |v: Option<i64>| v.map_or("-".to_string(), |v| v.to_string());
        writeln!(
            out,
            "user {}: last APPEND {}, last COMPACT {}, incomplete pairs {}",
            u.commit_user,
            show(u.last_append),
            show(u.last_compact),
            if u.incomplete_identifiers.is_empty() {
                "none".to_string()
            } else {
                format!("{:?}", u.incomplete_identifiers)
            }
        )?;
    }
    for c in &r.completeness {
        if let Some(why) = &c.skipped {
            writeln!(
                out,
                "changelog completeness ({} reader): not checked: {why}",
                c.reader
            )?;
            continue;
        }
        writeln!(
            out,
            "changelog completeness ({} reader, snapshots {}..{}{}): {} of {} keys have a final value the changelog never delivered",
            c.reader,
            c.from_snapshot,
            c.to_snapshot,
            if c.started_from_full_snapshot {
                format!(
                    "; history before snapshot {} expired, replay starts with a full read of it",
                    c.from_snapshot
                )
            } else {
                String::new()
            },
            c.missing.len(),
            c.keys
        )?;
        if c.pending_level0_keys > 0 {
            writeln!(
                out,
                "  {} keys left out: they sit in level-0 files that batch reads of this table do not see until compaction",
                c.pending_level0_keys
            )?;
        }
        for m in c.missing.iter().take(max_keys) {
            let by = match (
                &m.written_by_snapshot,
                &m.written_by_user,
                &m.written_by_identifier,
            ) {
                (Some(s), Some(u), Some(i)) => {
                    format!("; written by APPEND snapshot {s} (user {u}, identifier {i})")
                }
                _ => String::new(),
            };
            writeln!(
                out,
                "  partition {} bucket {} key {}: stream last saw {}, table has {}{by}",
                show_partition(&m.partition),
                m.bucket,
                m.key,
                m.stream_value,
                m.table_value
            )?;
        }
        if c.missing.len() > max_keys {
            writeln!(out, "  ... {} more", c.missing.len() - max_keys)?;
        }
    }
    if let Some(agree) = r.readers_agree {
        writeln!(
            out,
            "readers: native and stock {}",
            if agree {
                "find the same keys"
            } else {
                "DISAGREE (see the JSON report for both lists)"
            }
        )?;
    }
    writeln!(
        out,
        "verdict: {}",
        if r.verdict == "complete" {
            "COMPLETE: every commit's changelog is durable"
        } else {
            "CHANGELOG LOST"
        }
    )
}

/// Runs the audit of the table at `path` with `reader` (`native`, `stock` or `both`).
///
/// With `both`, the completeness part runs on each reader and the report says whether they agree.
/// Errors: an unknown reader name, an unreadable table (exit 2).
pub fn run(path: &Path, reader: &str) -> Result<AuditReport> {
    let sides: &[&str] = match reader {
        "native" => &["native"],
        "stock" => &["stock"],
        "both" => &["native", "stock"],
        other => {
            return Err(Error::Scenario(format!(
                "unknown reader `{other}`: use native, stock or both"
            )))
        }
    };
    let timeline = timeline(path)?;
    let table = std::sync::Arc::new(Table::open(&timeline.table)?);
    let mut results = Vec::new();
    for side in sides {
        let mut c = if *side == "native" {
            completeness(&NativeTableReader::new(), &table, &timeline)?
        } else {
            completeness(&StockTableReader::new()?, &table, &timeline)?
        };
        attribute(&table, &timeline, &mut c.missing)?;
        results.push(c);
    }
    Ok(assemble(timeline, results))
}
