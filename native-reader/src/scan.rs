//! Split planning of Paimon 1.0.x: streaming (`DataTableStreamScan`) and batch (`DataTableBatchScan`) scans.
//!
//! **Streaming, `scan.mode=from-snapshot`** ([`plan_stream`]):
//! * Starting scanner (`ContinuousFromSnapshotStartingScanner`): the first plan is empty; the next snapshot
//!   is `max(S, earliest)`, where earliest is the earliest long-lived changelog when the changelog lifecycle
//!   is decoupled and one exists, else the earliest snapshot.
//! * Follow-up scanner, one snapshot per plan (`DeltaFollowUpScanner`, `InputChangelogFollowUpScanner`,
//!   `CompactionChangelogFollowUpScanner`), by `changelog-producer`:
//!   `none` ⇒ APPEND snapshots, ADD entries of `deltaManifestList`; `input` ⇒ APPEND snapshots,
//!   `changelogManifestList`; `lookup`/`full-compaction` ⇒ COMPACT snapshots, `changelogManifestList`.
//!   Other snapshots produce no plan, except that for a primary-key table with `streaming-read-overwrite=true`
//!   an OVERWRITE snapshot gives a **changes plan** ([`plan_changes`], `SnapshotReaderImpl.readChanges`): per
//!   (partition, bucket) a split whose before-files are the files the overwrite deleted and whose data files are
//!   those it added.
//! * Splits (`SnapshotReaderImpl.generateSplits`): ADD entries grouped by partition (first seen) then bucket
//!   (first seen), files in manifest-entry order; PK tables and fixed-bucket append tables get one split per
//!   (partition, bucket); bucket-unaware append tables (`bucket=-1`) get their files sorted by
//!   `_MIN_SEQUENCE_NUMBER` and bin-packed (`AppendOnlySplitGenerator`, `BinPacking.packForOrdered`).
//!   `is_streaming` and `raw_convertible` are true. With `deletion-vectors.enabled`, each split carries one
//!   deletion file (or `None`) per data file from the snapshot's index manifest.
//!
//! **Streaming with a full first plan**, `scan.mode=from-snapshot-full` ([`plan_stream_full`],
//! `ContinuousFromSnapshotFullStartingScanner`) and `latest-full` ([`plan_latest_full`], `FullStartingScanner`):
//! the first plan is the ALL-mode file set of snapshot `max(S, earliest)` (resp. the latest snapshot) split
//! like a batch scan (`is_streaming=false`), with the level filter of `DataTableStreamScan.tryFirstPlan`:
//! only levels > 0 when a lookup is needed (`changelog-producer=lookup`, deletion vectors, `first-row`,
//! `force-lookup`), else only the top level (`num-levels − 1`) for `changelog-producer=full-compaction`.
//! The follow-up plans start at the next snapshot, or at the same one when deletion vectors are enabled
//! without lookup changelog (its level-0 files are read again as a delta).
//!
//! **Batch** ([`plan_batch`]): the ALL-mode file set of the latest snapshot (`FullStartingScanner`) or of a
//! given one (`StaticFromSnapshotStartingScanner`, which rejects ids outside `[earliest, latest]`); level-0
//! files are dropped for PK tables with deletion vectors or `first-row`. Splits per (partition, bucket):
//! `MergeTreeSplitGenerator.splitForBatch` for PK tables (raw-convertible bin packing, or
//! [`interval_partition`] sections bin-packed by size), `AppendOnlySplitGenerator.splitForBatch` for append
//! tables (files sorted by `_MIN_SEQUENCE_NUMBER`, bin-packed). Bin packing uses `source.split.target-size`
//! with `source.split.open-file-cost` as the minimum weight.
//!
//! The ALL-mode file set (§2.7 of the format notes, `AbstractFileStoreScan` with `ScanMode.ALL`): manifests of
//! `baseManifestList` then `deltaManifestList`; ADD entries whose identifier (partition, bucket, level, file
//! name, extra files, embedded index, external path) no DELETE entry names, in manifest then entry order.
//!
//! Memory is bounded by one snapshot's manifests: snapshots are planned one after the other.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::binary_row::{decode_row, Datum};
use crate::error::{Error, Result};
use crate::manifest::{
    read_index_manifest, read_manifest_file, read_manifest_list, DataFileMeta, DeletionVectorMeta,
    FileKind, ManifestEntry, DELETION_VECTORS_INDEX,
};
use crate::partition::RenderedPartition;
use crate::schema::{DataType, TableSchema};
use crate::snapshot::{CommitKind, Snapshot};
use crate::split::{DataFileDesc, DeletionFileDesc, Split};
use crate::table::{ChangelogProducer, Table};

/// Which manifest list a follow-up plan reads (`ScanMode.DELTA` or `ScanMode.CHANGELOG`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FollowUpMode {
    /// `deltaManifestList` (changelog-producer `none`).
    Delta,
    /// `changelogManifestList` (`input`, `lookup`, `full-compaction`).
    Changelog,
}

/// The follow-up scanner of a table: whether it plans a snapshot of `kind` (`FollowUpScanner.shouldScanSnapshot`)
/// and, if so, from which manifest list.
pub fn follow_up(producer: ChangelogProducer, kind: CommitKind) -> Option<FollowUpMode> {
    match (producer, kind) {
        (ChangelogProducer::None, CommitKind::Append) => Some(FollowUpMode::Delta),
        (ChangelogProducer::Input, CommitKind::Append) => Some(FollowUpMode::Changelog),
        (ChangelogProducer::Lookup | ChangelogProducer::FullCompaction, CommitKind::Compact) => {
            Some(FollowUpMode::Changelog)
        }
        _ => None,
    }
}

/// The first snapshot id the follow-up scanner reads for `scan.snapshot-id=from_snapshot`:
/// `max(from_snapshot, earliest)`, `None` when the table has no snapshot (nor long-lived changelog).
pub fn starting_snapshot_id(table: &Table, from_snapshot: i64) -> Result<Option<i64>> {
    let sm = table.snapshot_manager();
    let earliest = if table.options().changelog_lifecycle_decoupled {
        match sm.earliest_long_lived_changelog_id()? {
            Some(id) => Some(id),
            None => sm.earliest_snapshot_id()?,
        }
    } else {
        sm.earliest_snapshot_id()?
    };
    Ok(earliest.map(|e| from_snapshot.max(e)))
}

/// Fetches the snapshot the follow-up scanner reads at `id` (`NextSnapshotFetcher`): `snapshot-<id>`, or,
/// when it has expired and the changelog lifecycle is decoupled, `changelog/changelog-<id>`.
///
/// Errors: [`Error::Snapshot`] naming `snapshot-<id>` when neither exists.
pub fn fetch_snapshot(table: &Table, id: i64) -> Result<Snapshot> {
    let sm = table.snapshot_manager();
    if sm.snapshot_exists(id) {
        return sm.snapshot(id);
    }
    let earliest = sm.earliest_snapshot_id()?;
    let expired = earliest.is_some_and(|e| id < e);
    if expired && table.options().changelog_lifecycle_decoupled && sm.changelog_exists(id) {
        return sm.changelog(id);
    }
    let reason = if expired {
        format!(
            "snapshot {id} has expired (earliest snapshot is {})",
            earliest.unwrap_or_default()
        )
    } else {
        match sm.latest_snapshot_id()? {
            Some(latest) => format!("snapshot {id} does not exist (latest snapshot is {latest})"),
            None => format!("snapshot {id} does not exist (the table has no snapshot)"),
        }
    };
    Err(Error::Snapshot {
        path: sm.snapshot_path(id),
        reason,
    })
}

/// How a scan starts and whether it follows new snapshots: the scan modes the native reader plans like the
/// released reader (`CoreOptions.StartupMode` in a streaming or a batch scan).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "mode")]
pub enum ScanMode {
    /// Streaming, `scan.mode=from-snapshot`, `scan.snapshot-id=from_snapshot`: an empty first plan, then
    /// one follow-up plan per accepted snapshot from `max(from_snapshot, earliest)` ([`plan_stream`]).
    Stream {
        /// `scan.snapshot-id`.
        from_snapshot: i64,
    },
    /// Streaming, `scan.mode=from-snapshot-full`, `scan.snapshot-id=from_snapshot`: a full first plan of
    /// snapshot `max(from_snapshot, earliest)`, then follow-up plans ([`plan_stream_full`]).
    StreamFull {
        /// `scan.snapshot-id`.
        from_snapshot: i64,
    },
    /// Streaming, `scan.mode=latest-full`: a full first plan of the latest snapshot, then follow-up plans
    /// ([`plan_latest_full`]).
    LatestFull,
    /// Batch `newScan().plan()`: the latest snapshot, or `scan.snapshot-id=snapshot` (time travel)
    /// ([`plan_batch`]).
    Batch {
        /// `scan.snapshot-id`, `None` for the latest snapshot.
        snapshot: Option<i64>,
    },
}

impl ScanMode {
    /// The mode's name as the command line spells it: `stream`, `stream-full`, `latest-full`, `batch`.
    pub fn name(&self) -> &'static str {
        match self {
            ScanMode::Stream { .. } => "stream",
            ScanMode::StreamFull { .. } => "stream-full",
            ScanMode::LatestFull => "latest-full",
            ScanMode::Batch { .. } => "batch",
        }
    }

    /// True for the streaming modes (the plan is followed until an end snapshot).
    pub fn is_streaming(&self) -> bool {
        !matches!(self, ScanMode::Batch { .. })
    }
}

impl std::fmt::Display for ScanMode {
    /// `stream from snapshot 3`, `stream-full from snapshot 1`, `latest-full`, `batch`, `batch of snapshot 4`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScanMode::Stream { from_snapshot } | ScanMode::StreamFull { from_snapshot } => {
                write!(f, "{} from snapshot {from_snapshot}", self.name())
            }
            ScanMode::LatestFull => f.write_str("latest-full"),
            ScanMode::Batch { snapshot: None } => f.write_str("batch"),
            ScanMode::Batch { snapshot: Some(id) } => write!(f, "batch of snapshot {id}"),
        }
    }
}

/// The splits of a scan in `mode`: for the streaming modes, every plan until the follow-up position passes
/// `end_snapshot` (splits of later snapshots dropped), concatenated in plan order; for [`ScanMode::Batch`]
/// the one batch plan (`end_snapshot` unused).
///
/// Errors: those of [`plan_stream`], [`plan_stream_full`], [`plan_latest_full`] and [`plan_batch`].
pub fn plan(table: &Table, mode: ScanMode, end_snapshot: i64) -> Result<Vec<Split>> {
    match mode {
        ScanMode::Stream { from_snapshot } => plan_stream(table, from_snapshot, end_snapshot),
        ScanMode::StreamFull { from_snapshot } => {
            plan_stream_full(table, from_snapshot, end_snapshot)
        }
        ScanMode::LatestFull => plan_latest_full(table, end_snapshot),
        ScanMode::Batch { snapshot } => plan_batch(table, snapshot),
    }
}

fn check_streaming_options(table: &Table) -> Result<()> {
    let options = table.options();
    let unsupported = |reason: String| Error::Unsupported {
        path: table.path().to_path_buf(),
        reason,
    };
    if options.stream_scan_mode != "none" {
        return Err(unsupported(format!(
            "stream-scan-mode={} (internal streaming scans)",
            options.stream_scan_mode
        )));
    }
    if options.scan_plan_sort_partition {
        return Err(unsupported("scan.plan-sort-partition=true".into()));
    }
    Ok(())
}

/// Streaming plan of `scan.mode=from-snapshot`, `scan.snapshot-id=from_snapshot`, followed until the next
/// snapshot id passes `end_snapshot`: the splits of every accepted snapshot in
/// `max(from_snapshot, earliest)..=end_snapshot`, in snapshot order.
///
/// Empty when `from_snapshot > end_snapshot` (or the start is past the end). Errors: [`Error::Snapshot`]
/// naming the first missing snapshot in the range (also when the table has no snapshot at all);
/// [`Error::Unsupported`] for internal `stream-scan-mode`s and `scan.plan-sort-partition=true`; manifest
/// errors as [`plan_snapshot`] and [`plan_changes`].
pub fn plan_stream(table: &Table, from_snapshot: i64, end_snapshot: i64) -> Result<Vec<Split>> {
    check_streaming_options(table)?;
    if from_snapshot > end_snapshot {
        return Ok(Vec::new());
    }
    let Some(next) = starting_snapshot_id(table, from_snapshot)? else {
        return Err(Error::Snapshot {
            path: table.snapshot_manager().snapshot_path(from_snapshot),
            reason: format!(
                "the table has no snapshot, cannot stream from {from_snapshot} to {end_snapshot}"
            ),
        });
    };
    let mut splits = Vec::new();
    follow_up_plans(table, next, end_snapshot, &mut splits)?;
    Ok(splits)
}

/// The follow-up loop of `DataTableStreamScan.nextPlan`: the plans of snapshots `next..=end_snapshot`,
/// appended to `splits`.
fn follow_up_plans(
    table: &Table,
    mut next: i64,
    end_snapshot: i64,
    splits: &mut Vec<Split>,
) -> Result<()> {
    let options = table.options();
    while next <= end_snapshot {
        let snapshot = fetch_snapshot(table, next)?;
        if snapshot.commit_kind == CommitKind::Overwrite
            && options.streaming_read_overwrite
            && table.is_primary_key_table()
        {
            splits.extend(plan_changes(table, &snapshot)?);
        } else {
            splits.extend(plan_snapshot(table, &snapshot)?.unwrap_or_default());
        }
        next += 1;
    }
    Ok(())
}

/// `num-levels` of the table: the option, else `num-sorted-run.compaction-trigger` + 1 (trigger default 5).
///
/// Errors: [`Error::Json`] naming the schema file's directory when an option is not an integer.
pub fn num_levels(table: &Table) -> Result<i32> {
    let int = |key: &str| -> Result<Option<i32>> {
        table
            .schema()
            .option(key)
            .map(|v| {
                v.trim().parse::<i32>().map_err(|_| Error::Json {
                    path: table.path().join("schema"),
                    reason: format!("option `{key}`: `{v}` is not an int"),
                })
            })
            .transpose()
    };
    match int("num-levels")? {
        Some(n) => Ok(n),
        None => Ok(int("num-sorted-run.compaction-trigger")?.unwrap_or(5) + 1),
    }
}

/// A table option as a boolean (`true`/`false`, any case), `default` when unset.
fn bool_option(table: &Table, key: &str, default: bool) -> Result<bool> {
    match table.schema().option(key) {
        None => Ok(default),
        Some(v) => match v.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(Error::Json {
                path: table.path().join("schema"),
                reason: format!("option `{key}`: `{v}` is not a boolean"),
            }),
        },
    }
}

/// `CoreOptions.lookupStrategy()` of 1.0: `(needLookup, produceChangelog, deletionVector)`.
fn lookup_strategy(table: &Table) -> Result<(bool, bool, bool)> {
    let options = table.options();
    let first_row = options.merge_engine == "first-row";
    let produce_changelog = options.changelog_producer == ChangelogProducer::Lookup;
    let dv = options.deletion_vectors_enabled;
    let force = bool_option(table, "force-lookup", false)?;
    Ok((
        produce_changelog || dv || first_row || force,
        produce_changelog,
        dv,
    ))
}

/// Streaming plan of `scan.mode=from-snapshot-full`, `scan.snapshot-id=from_snapshot`
/// (`ContinuousFromSnapshotFullStartingScanner`): the full first plan of snapshot `max(from_snapshot,
/// earliest)` (see the module docs for its level filter), then the follow-up plans up to `end_snapshot`.
/// Splits of snapshots after `end_snapshot` are dropped (as the stock side does).
///
/// Errors: [`Error::Snapshot`] when the table has no snapshot or the starting snapshot does not exist;
/// otherwise as [`plan_stream`] and [`plan_batch`].
pub fn plan_stream_full(
    table: &Table,
    from_snapshot: i64,
    end_snapshot: i64,
) -> Result<Vec<Split>> {
    check_streaming_options(table)?;
    let sm = table.snapshot_manager();
    let Some(earliest) = sm.earliest_snapshot_id()? else {
        return Err(Error::Snapshot {
            path: sm.snapshot_path(from_snapshot),
            reason: format!("the table has no snapshot, cannot stream from {from_snapshot}"),
        });
    };
    full_then_follow_up(table, from_snapshot.max(earliest), end_snapshot)
}

/// Streaming plan of `scan.mode=latest-full` (`FullStartingScanner`): the full first plan of the latest
/// snapshot (see the module docs for its level filter), then the follow-up plans up to `end_snapshot`.
///
/// Errors: [`Error::Snapshot`] when the table has no snapshot; otherwise as [`plan_stream_full`].
pub fn plan_latest_full(table: &Table, end_snapshot: i64) -> Result<Vec<Split>> {
    check_streaming_options(table)?;
    let sm = table.snapshot_manager();
    let Some(latest) = sm.latest_snapshot_id()? else {
        return Err(Error::Snapshot {
            path: sm.snapshot_dir(),
            reason: "the table has no snapshot, cannot stream from the latest".into(),
        });
    };
    full_then_follow_up(table, latest, end_snapshot)
}

fn full_then_follow_up(table: &Table, start: i64, end_snapshot: i64) -> Result<Vec<Split>> {
    let snapshot = table.snapshot(start)?;
    let (need_lookup, produce_changelog, dv) = lookup_strategy(table)?;
    let top = num_levels(table)? - 1;
    let level_filter: Box<dyn Fn(i32) -> bool> = if need_lookup {
        Box::new(|level| level > 0)
    } else if table.options().changelog_producer == ChangelogProducer::FullCompaction {
        Box::new(move |level| level == top)
    } else {
        Box::new(|_| true)
    };
    let mut splits = Vec::new();
    if start <= end_snapshot {
        let groups = read_all_files(table, &snapshot, &*level_filter)?;
        splits = batch_splits(table, &snapshot, groups)?;
    }
    let next = if !produce_changelog && dv {
        start
    } else {
        start + 1
    };
    follow_up_plans(table, next, end_snapshot, &mut splits)?;
    Ok(splits)
}

/// Batch plan (`DataTableBatchScan.plan()`): the latest snapshot when `snapshot` is `None`
/// (`FullStartingScanner`; no splits when the table has no snapshot), else `scan.snapshot-id=snapshot`
/// (`StaticFromSnapshotStartingScanner`).
///
/// Errors: [`Error::Snapshot`] when `snapshot` is outside `[earliest, latest]` (the message of
/// `StaticFromSnapshotStartingScanner`) or its file is missing; [`Error::Unsupported`] for
/// `scan.plan-sort-partition=true`; manifest errors as [`plan_snapshot`]; [`Error::BinaryRow`] naming the
/// data file whose min/max key is malformed.
pub fn plan_batch(table: &Table, snapshot: Option<i64>) -> Result<Vec<Split>> {
    if table.options().scan_plan_sort_partition {
        return Err(Error::Unsupported {
            path: table.path().to_path_buf(),
            reason: "scan.plan-sort-partition=true".into(),
        });
    }
    let sm = table.snapshot_manager();
    let id = match snapshot {
        None => match sm.latest_snapshot_id()? {
            Some(id) => id,
            None => return Ok(Vec::new()),
        },
        Some(id) => {
            let (earliest, latest) = (sm.earliest_snapshot_id()?, sm.latest_snapshot_id()?);
            let (Some(earliest), Some(latest)) = (earliest, latest) else {
                return Ok(Vec::new());
            };
            if id < earliest || id > latest {
                return Err(Error::Snapshot {
                    path: sm.snapshot_path(id),
                    reason: format!(
                        "The specified scan snapshotId {id} is out of available snapshotId range \
                         [{earliest}, {latest}]."
                    ),
                });
            }
            id
        }
    };
    let snapshot = table.snapshot(id)?;
    let options = table.options();
    let drop_level_0 = table.is_primary_key_table()
        && (options.deletion_vectors_enabled || options.merge_engine == "first-row");
    let groups = if drop_level_0 {
        read_all_files(table, &snapshot, &|level| level > 0)?
    } else {
        read_all_files(table, &snapshot, &|_| true)?
    };
    batch_splits(table, &snapshot, groups)
}

/// The follow-up plan of one snapshot: `None` when the table's follow-up scanner skips its commit kind,
/// else its splits (possibly none).
///
/// Errors: [`Error::Io`]/[`Error::Avro`] naming a manifest list, manifest or index manifest that cannot be
/// read; [`Error::BinaryRow`] naming the manifest holding a malformed partition; [`Error::Unsupported`]
/// naming the manifest for ORC manifests, unrenderable partition values and files with an external path.
pub fn plan_snapshot(table: &Table, snapshot: &Snapshot) -> Result<Option<Vec<Split>>> {
    let Some(mode) = follow_up(table.options().changelog_producer, snapshot.commit_kind) else {
        return Ok(None);
    };
    let list = match mode {
        FollowUpMode::Delta => Some(snapshot.delta_manifest_list.as_str()),
        FollowUpMode::Changelog => snapshot.changelog_manifest_list.as_deref(),
    };
    let groups = match list {
        Some(name) => read_added_files(table, name)?,
        None => Vec::new(),
    };
    let dv_index = if table.options().deletion_vectors_enabled && !groups.is_empty() {
        deletion_vector_index(table, snapshot)?
    } else {
        HashMap::new()
    };
    Ok(Some(generate_splits(table, snapshot.id, groups, &dv_index)))
}

/// The changes plan of an OVERWRITE snapshot that a streaming scan of a primary-key table with
/// `streaming-read-overwrite=true` reads instead of its follow-up plan (`DataTableStreamScan.handleOverwriteSnapshot`,
/// `FollowUpScanner.getOverwriteChangesPlan`, `SnapshotReaderImpl.readChanges` and `toChangesPlan`):
///
/// * the entries of `deltaManifestList`, in manifest order and not merged (`ScanMode.DELTA`): DELETE entries are
///   the before-files, ADD entries the data files, each grouped by partition then bucket (first seen);
/// * one split per (partition, bucket) present on either side, in the iteration order of Java's
///   `HashMap<BinaryRow, HashSet<Integer>>` filled with the before side's keys then the data side's
///   ([`java_hash_order`]; partitions by `BinaryRow.hashCode()` through `computeIfAbsent`, buckets by their
///   value through `HashSet.addAll`);
/// * files both deleted and added are dropped from both lists (`before.removeIf(data::remove)`);
/// * `is_streaming` true, `raw_convertible` false; with `deletion-vectors.enabled`, one deletion file (or
///   `None`) per data file from this snapshot's index manifest and per before-file from the index manifest
///   of snapshot `id − 1`.
///
/// Errors: [`Error::Snapshot`] when deletion vectors are enabled and snapshot `id − 1` is missing; otherwise
/// as [`read_added_files`] and [`deletion_vector_index`].
pub fn plan_changes(table: &Table, snapshot: &Snapshot) -> Result<Vec<Split>> {
    let list_path = table.manifest_path(&snapshot.delta_manifest_list);
    let mut before = Grouper::new(table);
    let mut after = Grouper::new(table);
    for meta in read_manifest_list(&list_path)? {
        let path = table.manifest_path(&meta.file_name);
        for entry in read_manifest_file(&path)? {
            let side = match entry.kind {
                FileKind::Delete => &mut before,
                FileKind::Add => &mut after,
            };
            side.add(&path, entry.partition, entry.bucket, entry.file)?;
        }
    }
    let (before, after) = (before.partitions, after.partitions);
    // `buckets`: partition → bucket set, filled before side first (HashMap.computeIfAbsent + HashSet.addAll).
    let mut parts: Vec<(Vec<u8>, RenderedPartition, Vec<i32>)> = Vec::new();
    for (partition, rendered, buckets) in before.iter().chain(after.iter()) {
        let slot = match parts.iter().position(|(p, _, _)| p == partition) {
            Some(i) => i,
            None => {
                parts.push((partition.clone(), rendered.clone(), Vec::new()));
                parts.len() - 1
            }
        };
        for (bucket, _) in buckets {
            if !parts[slot].2.contains(bucket) {
                parts[slot].2.push(*bucket);
            }
        }
    }
    let files_of = |side: &[PartitionGroup], partition: &[u8], bucket: i32| -> Vec<DataFileMeta> {
        side.iter()
            .find(|(p, _, _)| p == partition)
            .and_then(|(_, _, buckets)| buckets.iter().find(|(b, _)| *b == bucket))
            .map(|(_, files)| files.clone())
            .unwrap_or_default()
    };
    let parts = java_hash_order(
        parts
            .into_iter()
            .map(|p| (binary_row_hash(&p.0), p))
            .collect(),
        JavaInsert::ComputeIfAbsent,
    );
    let dv = table.options().deletion_vectors_enabled;
    let (before_dvs, after_dvs) = if dv {
        let previous = table.snapshot(snapshot.id - 1)?;
        (
            deletion_vector_index(table, &previous)?,
            deletion_vector_index(table, snapshot)?,
        )
    } else {
        (HashMap::new(), HashMap::new())
    };
    let mut splits = Vec::new();
    for (partition, rendered, buckets) in parts {
        let buckets = java_hash_order(
            buckets.into_iter().map(|b| (b, b)).collect(),
            JavaInsert::Put,
        );
        for bucket in buckets {
            let mut before_files = files_of(&before, &partition, bucket);
            let mut data_files = files_of(&after, &partition, bucket);
            // `before.removeIf(data::remove)`: List.remove drops the first equal data file.
            before_files.retain(|b| match data_files.iter().position(|d| d == b) {
                Some(i) => {
                    data_files.remove(i);
                    false
                }
                None => true,
            });
            let deletion_files = |index: &DeletionVectorIndex, files: &[DataFileMeta]| {
                if !dv {
                    return Vec::new();
                }
                let dvs = index.get(&(partition.clone(), bucket));
                files.iter().map(|f| deletion_file(table, dvs, f)).collect()
            };
            splits.push(Split {
                snapshot_id: snapshot.id,
                partition: rendered.values.clone(),
                bucket,
                bucket_path: table.bucket_path(&rendered.path, bucket),
                deletion_files: deletion_files(&after_dvs, &data_files),
                before_deletion_files: deletion_files(&before_dvs, &before_files),
                data_files: data_files.iter().map(data_file_desc).collect(),
                before_files: before_files.iter().map(data_file_desc).collect(),
                is_streaming: true,
                raw_convertible: false,
            });
        }
    }
    Ok(splits)
}

/// Java's `BinaryRow.hashCode()` of a serialized partition row (4-byte arity prefix, then the row):
/// `MurmurHashUtils.hashBytesByWords` (seed 42, little-endian 4-byte words as `MemorySegment.getInt` reads them
/// on x86) over the row bytes.
pub fn binary_row_hash(serialized: &[u8]) -> i32 {
    crate::murmur_hash::hash_bytes_by_words(serialized.get(4..).unwrap_or_default())
}

/// How keys went into a Java `HashMap` (JDK 8 and later), which decides their order within a bin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JavaInsert {
    /// `put`/`HashSet.add`: appended to the bin; the table doubles after an insert that makes the size
    /// exceed the threshold.
    Put,
    /// `computeIfAbsent`: prepended to the bin; the table doubles before an insert when the size already
    /// exceeds the threshold.
    ComputeIfAbsent,
}

/// The iteration order of a Java `HashMap`/`HashSet` (default capacity 16, load factor 0.75) whose distinct
/// keys, with these `hashCode()`s, were inserted in this order with `insert`: by bin (`(h ^ h >>> 16) &
/// (capacity − 1)` at the final capacity), then within a bin in insertion order ([`JavaInsert::Put`]) or in
/// reverse insertion order ([`JavaInsert::ComputeIfAbsent`]); resizes keep the order within a bin. Bins that
/// Java turns into trees (8 or more keys in one bin of a table of 64 bins or more) are not modelled.
pub fn java_hash_order<T>(items: Vec<(i32, T)>, insert: JavaInsert) -> Vec<T> {
    let (mut capacity, mut size) = (16usize, 0usize);
    for _ in 0..items.len() {
        if insert == JavaInsert::ComputeIfAbsent && size > capacity / 4 * 3 {
            capacity *= 2;
        }
        size += 1;
        if insert == JavaInsert::Put && size > capacity / 4 * 3 {
            capacity *= 2;
        }
    }
    let n = items.len();
    let mut keyed: Vec<(usize, usize, T)> = items
        .into_iter()
        .enumerate()
        .map(|(i, (h, t))| {
            let h = h as u32;
            let order = match insert {
                JavaInsert::Put => i,
                JavaInsert::ComputeIfAbsent => n - i,
            };
            (((h ^ (h >> 16)) as usize) & (capacity - 1), order, t)
        })
        .collect();
    keyed.sort_by_key(|(bin, order, _)| (*bin, *order));
    keyed.into_iter().map(|(_, _, t)| t).collect()
}

/// Files of one (partition, bucket), in manifest-entry order.
#[derive(Debug)]
pub struct BucketFiles {
    /// Serialized partition row (Java's partition identity).
    pub partition: Vec<u8>,
    /// The partition rendered for splits and paths.
    pub rendered: RenderedPartition,
    /// Bucket.
    pub bucket: i32,
    /// ADD files in manifest order.
    pub files: Vec<DataFileMeta>,
}

/// One partition's serialized row, rendering and buckets (first seen order) with their files.
type PartitionGroup = (Vec<u8>, RenderedPartition, Vec<(i32, Vec<DataFileMeta>)>);

/// Groups ADD entries by partition (first seen) then bucket (first seen), files in arrival order
/// (`FileStoreScan.Plan.groupByPartFiles`, two nested `LinkedHashMap`s).
struct Grouper<'t> {
    table: &'t Table,
    partitions: Vec<PartitionGroup>,
    index: HashMap<Vec<u8>, usize>,
}

impl<'t> Grouper<'t> {
    fn new(table: &'t Table) -> Self {
        Grouper {
            table,
            partitions: Vec::new(),
            index: HashMap::new(),
        }
    }

    /// Adds one entry read from the manifest at `path` (for error messages).
    fn add(
        &mut self,
        path: &Path,
        partition: Vec<u8>,
        bucket: i32,
        file: DataFileMeta,
    ) -> Result<()> {
        if let Some(external) = &file.external_path {
            return Err(Error::Unsupported {
                path: path.to_path_buf(),
                reason: format!(
                    "data file {} has an external path ({external})",
                    file.file_name
                ),
            });
        }
        let slot = match self.index.get(&partition) {
            Some(i) => *i,
            None => {
                let rendered = self.table.partition_computer().render(&partition, path)?;
                self.index.insert(partition.clone(), self.partitions.len());
                self.partitions.push((partition, rendered, Vec::new()));
                self.partitions.len() - 1
            }
        };
        let buckets = &mut self.partitions[slot].2;
        match buckets.iter_mut().find(|(b, _)| *b == bucket) {
            Some((_, files)) => files.push(file),
            None => buckets.push((bucket, vec![file])),
        }
        Ok(())
    }

    fn finish(self) -> Vec<BucketFiles> {
        self.partitions
            .into_iter()
            .flat_map(|(partition, rendered, buckets)| {
                buckets.into_iter().map(move |(bucket, files)| BucketFiles {
                    partition: partition.clone(),
                    rendered: rendered.clone(),
                    bucket,
                    files,
                })
            })
            .collect()
    }
}

/// Reads the manifest list `name` without merging (DELTA/CHANGELOG scan modes) and groups its ADD entries by
/// partition (first seen) then bucket (first seen), files in manifest-entry order
/// (`FileStoreScan.Plan.groupByPartFiles`). Groups of one partition stay adjacent.
pub fn read_added_files(table: &Table, manifest_list: &str) -> Result<Vec<BucketFiles>> {
    let list_path = table.manifest_path(manifest_list);
    let metas = read_manifest_list(&list_path)?;
    let mut grouper = Grouper::new(table);
    for meta in metas {
        let path = table.manifest_path(&meta.file_name);
        for entry in read_manifest_file(&path)? {
            if entry.kind == FileKind::Add {
                grouper.add(&path, entry.partition, entry.bucket, entry.file)?;
            }
        }
    }
    Ok(grouper.finish())
}

/// What identifies a file entry across ADD and DELETE entries (`FileEntry.Identifier`).
#[derive(PartialEq, Eq, Hash)]
struct FileIdentifier {
    partition: Vec<u8>,
    bucket: i32,
    level: i32,
    file_name: String,
    extra_files: Vec<String>,
    embedded_index: Option<Vec<u8>>,
    external_path: Option<String>,
}

impl FileIdentifier {
    fn of(e: &ManifestEntry) -> Self {
        FileIdentifier {
            partition: e.partition.clone(),
            bucket: e.bucket,
            level: e.file.level,
            file_name: e.file.file_name.clone(),
            extra_files: e.file.extra_files.clone(),
            embedded_index: e.file.embedded_index.clone(),
            external_path: e.file.external_path.clone(),
        }
    }
}

/// The ALL-mode file set of `snapshot` (`ScanMode.ALL`): ADD entries of the manifests of
/// `baseManifestList` then `deltaManifestList` whose identifier no DELETE entry names, keeping only files
/// whose level passes `level_filter` (applied to ADD and DELETE entries alike, as the manifest row filter
/// does), grouped like [`read_added_files`].
///
/// Errors: as [`read_added_files`].
pub fn read_all_files(
    table: &Table,
    snapshot: &Snapshot,
    level_filter: &dyn Fn(i32) -> bool,
) -> Result<Vec<BucketFiles>> {
    let mut manifests = Vec::new();
    for list in [&snapshot.base_manifest_list, &snapshot.delta_manifest_list] {
        manifests.extend(read_manifest_list(&table.manifest_path(list))?);
    }
    let mut deleted: HashSet<FileIdentifier> = HashSet::new();
    let mut added: Vec<(std::path::PathBuf, Vec<ManifestEntry>)> = Vec::new();
    for meta in &manifests {
        let path = table.manifest_path(&meta.file_name);
        let mut adds = Vec::new();
        for entry in read_manifest_file(&path)? {
            if !level_filter(entry.file.level) {
                continue;
            }
            match entry.kind {
                FileKind::Delete => {
                    deleted.insert(FileIdentifier::of(&entry));
                }
                FileKind::Add => adds.push(entry),
            }
        }
        if meta.num_added_files > 0 {
            added.push((path, adds));
        }
    }
    let mut grouper = Grouper::new(table);
    for (path, entries) in added {
        for entry in entries {
            if deleted.contains(&FileIdentifier::of(&entry)) {
                continue;
            }
            grouper.add(&path, entry.partition, entry.bucket, entry.file)?;
        }
    }
    Ok(grouper.finish())
}

/// A deletion vector located in an index file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeletionVectorLocation {
    /// Index file name in `<table>/index/`.
    pub index_file: String,
    /// The vector's range.
    pub meta: DeletionVectorMeta,
}

/// Deletion vectors of a snapshot: (partition bytes, bucket) → data file name → location, from the
/// `DELETION_VECTORS` entries of the snapshot's index manifest. When several index files of one bucket name
/// the same data file, the later entry wins (as `SnapshotReaderImpl.getDeletionFiles` does).
pub type DeletionVectorIndex = HashMap<(Vec<u8>, i32), HashMap<String, DeletionVectorLocation>>;

/// Reads the deletion-vector index of `snapshot` (empty when it has no index manifest).
pub fn deletion_vector_index(table: &Table, snapshot: &Snapshot) -> Result<DeletionVectorIndex> {
    let mut out: DeletionVectorIndex = HashMap::new();
    let Some(name) = &snapshot.index_manifest else {
        return Ok(out);
    };
    for entry in read_index_manifest(&table.manifest_path(name))? {
        if entry.index_type != DELETION_VECTORS_INDEX {
            continue;
        }
        let files = out.entry((entry.partition, entry.bucket)).or_default();
        for meta in entry.deletion_vectors.unwrap_or_default() {
            files.insert(
                meta.data_file_name.clone(),
                DeletionVectorLocation {
                    index_file: entry.file_name.clone(),
                    meta,
                },
            );
        }
    }
    Ok(out)
}

/// Builds the splits of one snapshot's grouped files (`SnapshotReaderImpl.generateSplits` with
/// `isStreaming=true`).
pub fn generate_splits(
    table: &Table,
    snapshot_id: i64,
    groups: Vec<BucketFiles>,
    dv_index: &DeletionVectorIndex,
) -> Vec<Split> {
    let options = table.options();
    let bucket_unaware_append = !table.is_primary_key_table() && options.bucket == -1;
    let mut splits = Vec::new();
    for group in groups {
        let bucket_path = table.bucket_path(&group.rendered.path, group.bucket);
        let dvs = dv_index.get(&(group.partition.clone(), group.bucket));
        let packs = if bucket_unaware_append {
            let mut files = group.files;
            files.sort_by_key(|f| f.min_sequence_number);
            pack_for_ordered(
                files,
                |f| f.file_size.max(options.split_open_file_cost),
                options.split_target_size,
            )
        } else {
            vec![group.files]
        };
        for files in packs {
            let deletion_files = if options.deletion_vectors_enabled {
                files.iter().map(|f| deletion_file(table, dvs, f)).collect()
            } else {
                Vec::new()
            };
            splits.push(Split {
                snapshot_id,
                partition: group.rendered.values.clone(),
                bucket: group.bucket,
                bucket_path: bucket_path.clone(),
                data_files: files.iter().map(data_file_desc).collect(),
                before_files: Vec::new(),
                deletion_files,
                before_deletion_files: Vec::new(),
                is_streaming: true,
                raw_convertible: true,
            });
        }
    }
    splits
}

/// The split view of a [`DataFileMeta`].
pub fn data_file_desc(f: &DataFileMeta) -> DataFileDesc {
    DataFileDesc {
        file_name: f.file_name.clone(),
        level: f.level,
        row_count: f.row_count,
        file_size: f.file_size,
        min_sequence_number: f.min_sequence_number,
        max_sequence_number: f.max_sequence_number,
        schema_id: f.schema_id,
        delete_row_count: f.delete_row_count,
        min_key: f.min_key.clone(),
        max_key: f.max_key.clone(),
    }
}

/// The deletion file of `file` in one bucket's deletion-vector map, as a split carries it.
fn deletion_file(
    table: &Table,
    dvs: Option<&HashMap<String, DeletionVectorLocation>>,
    file: &DataFileMeta,
) -> Option<DeletionFileDesc> {
    dvs.and_then(|m| m.get(&file.file_name))
        .map(|loc| DeletionFileDesc {
            path: table
                .index_path(&loc.index_file)
                .to_string_lossy()
                .into_owned(),
            offset: loc.meta.offset as i64,
            length: loc.meta.length as i64,
            cardinality: loc.meta.cardinality,
        })
}

/// Builds the splits of a batch plan (or a streaming full first plan) of `snapshot` from its ALL-mode file
/// groups (`SnapshotReaderImpl.generateSplits` with `isStreaming=false`): per (partition, bucket),
/// [`merge_tree_split_for_batch`] for PK tables, [`append_split_for_batch`] for append tables; deletion files
/// from the snapshot's index manifest when deletion vectors are enabled.
///
/// Errors: [`Error::BinaryRow`] naming the data file whose `_MIN_KEY`/`_MAX_KEY` is malformed; index
/// manifest errors as [`deletion_vector_index`].
pub fn batch_splits(
    table: &Table,
    snapshot: &Snapshot,
    groups: Vec<BucketFiles>,
) -> Result<Vec<Split>> {
    let options = table.options();
    let dv_index = if options.deletion_vectors_enabled && !groups.is_empty() {
        deletion_vector_index(table, snapshot)?
    } else {
        HashMap::new()
    };
    let key_comparator = KeyComparator::new(table.schema());
    let mut splits = Vec::new();
    for group in groups {
        let bucket_path = table.bucket_path(&group.rendered.path, group.bucket);
        let dvs = dv_index.get(&(group.partition.clone(), group.bucket));
        let packs = if table.is_primary_key_table() {
            let keyed = decode_keys(&key_comparator, group.files, &bucket_path)?;
            merge_tree_split_for_batch(
                keyed,
                &key_comparator,
                options.split_target_size,
                options.split_open_file_cost,
                options.deletion_vectors_enabled || options.merge_engine == "first-row",
            )
            .into_iter()
            .map(|(files, raw)| (files.into_iter().map(|k| k.file).collect(), raw))
            .collect()
        } else {
            append_split_for_batch(
                group.files,
                options.split_target_size,
                options.split_open_file_cost,
            )
            .into_iter()
            .map(|files| (files, true))
            .collect::<Vec<_>>()
        };
        for (files, raw_convertible) in packs {
            let deletion_files = if options.deletion_vectors_enabled {
                files.iter().map(|f| deletion_file(table, dvs, f)).collect()
            } else {
                Vec::new()
            };
            splits.push(Split {
                snapshot_id: snapshot.id,
                partition: group.rendered.values.clone(),
                bucket: group.bucket,
                bucket_path: bucket_path.clone(),
                data_files: files.iter().map(data_file_desc).collect(),
                before_files: Vec::new(),
                deletion_files,
                before_deletion_files: Vec::new(),
                is_streaming: false,
                raw_convertible,
            });
        }
    }
    Ok(splits)
}

/// `AppendOnlySplitGenerator.splitForBatch`: files stably sorted by `_MIN_SEQUENCE_NUMBER`, then bin-packed
/// in order with weight `max(file size, open_file_cost)` up to `target_size` bytes. Every split is
/// raw-convertible.
pub fn append_split_for_batch(
    mut files: Vec<DataFileMeta>,
    target_size: i64,
    open_file_cost: i64,
) -> Vec<Vec<DataFileMeta>> {
    files.sort_by_key(|f| f.min_sequence_number);
    pack_for_ordered(files, |f| f.file_size.max(open_file_cost), target_size)
}

/// A data file with its decoded `_MIN_KEY` and `_MAX_KEY`.
#[derive(Clone, Debug)]
pub struct KeyedFile<F> {
    /// The file.
    pub file: F,
    /// Decoded `_MIN_KEY` (trimmed primary key).
    pub min_key: Vec<Datum>,
    /// Decoded `_MAX_KEY`.
    pub max_key: Vec<Datum>,
}

fn decode_keys(
    cmp: &KeyComparator,
    files: Vec<DataFileMeta>,
    bucket_path: &str,
) -> Result<Vec<KeyedFile<DataFileMeta>>> {
    files
        .into_iter()
        .map(|f| {
            let path = Path::new(bucket_path).join(&f.file_name);
            Ok(KeyedFile {
                min_key: cmp.decode(&f.min_key, &path)?,
                max_key: cmp.decode(&f.max_key, &path)?,
                file: f,
            })
        })
        .collect()
}

/// Something with a size, a level and a delete-row count: what split generation looks at in a data file.
pub trait FileStats {
    /// `_FILE_SIZE` in bytes.
    fn size(&self) -> i64;
    /// `_LEVEL`.
    fn level(&self) -> i32;
    /// `_DELETE_ROW_COUNT`, `None` when unknown.
    fn delete_rows(&self) -> Option<i64>;
}

impl FileStats for DataFileMeta {
    fn size(&self) -> i64 {
        self.file_size
    }
    fn level(&self) -> i32 {
        self.level
    }
    fn delete_rows(&self) -> Option<i64> {
        self.delete_row_count
    }
}

impl FileStats for DataFileDesc {
    fn size(&self) -> i64 {
        self.file_size
    }
    fn level(&self) -> i32 {
        self.level
    }
    fn delete_rows(&self) -> Option<i64> {
        self.delete_row_count
    }
}

/// `withoutDeleteRow`: `_DELETE_ROW_COUNT` is 0, or unknown (null, files of old writers).
pub fn without_delete_row<F: FileStats>(f: &F) -> bool {
    f.delete_rows().is_none_or(|c| c == 0)
}

/// `MergeTreeSplitGenerator.splitForBatch` over one bucket's files (in manifest order): the split groups and
/// whether each is raw-convertible.
///
/// * If every file is above level 0 without delete rows, and deletion vectors or `first-row` are on
///   (`always_raw`) or all files are on one level: the files are bin-packed in their order, all raw.
/// * Else [`interval_partition`] gives sections (each flattened run by run), the sections are bin-packed in
///   order with weight `max(section size, open_file_cost)`, and a split is raw-convertible when it holds one
///   file without delete rows.
pub fn merge_tree_split_for_batch<F: FileStats>(
    files: Vec<KeyedFile<F>>,
    cmp: &KeyComparator,
    target_size: i64,
    open_file_cost: i64,
    always_raw: bool,
) -> Vec<(Vec<KeyedFile<F>>, bool)> {
    let raw_convertible = files
        .iter()
        .all(|f| f.file.level() != 0 && without_delete_row(&f.file));
    let one_level = files
        .iter()
        .map(|f| f.file.level())
        .collect::<HashSet<_>>()
        .len()
        == 1;
    if raw_convertible && (always_raw || one_level) {
        return pack_for_ordered(files, |f| f.file.size().max(open_file_cost), target_size)
            .into_iter()
            .map(|p| (p, true))
            .collect();
    }
    let sections: Vec<Vec<KeyedFile<F>>> = interval_partition(files, cmp)
        .into_iter()
        .map(|runs| runs.into_iter().flatten().collect())
        .collect();
    pack_for_ordered(
        sections,
        |s| {
            s.iter()
                .map(|f| f.file.size())
                .sum::<i64>()
                .max(open_file_cost)
        },
        target_size,
    )
    .into_iter()
    .map(|packed| {
        let files: Vec<KeyedFile<F>> = packed.into_iter().flatten().collect();
        let raw = files.len() == 1 && without_delete_row(&files[0].file);
        (files, raw)
    })
    .collect()
}

/// `IntervalPartition.partition()`: sections of sorted runs.
///
/// Files are sorted (stably) by (min key, max key); a new section starts when a file's min key is greater
/// than the largest max key of the current section. Inside a section, runs are built greedily with a
/// priority queue of runs ordered by their last file's max key: each next file is appended to the run with
/// the smallest last max key if it starts after it, else it opens a new run. The runs of a section are
/// returned in the queue's internal array order, exactly as `java.util.PriorityQueue.stream()` yields them,
/// because that order decides the file order of a split and the leaf order of the merge.
pub fn interval_partition<F>(
    mut files: Vec<KeyedFile<F>>,
    cmp: &KeyComparator,
) -> Vec<Vec<Vec<KeyedFile<F>>>> {
    files.sort_by(|a, b| {
        cmp.compare(&a.min_key, &b.min_key)
            .then_with(|| cmp.compare(&a.max_key, &b.max_key))
    });
    let mut result = Vec::new();
    let mut section: Vec<KeyedFile<F>> = Vec::new();
    let mut bound: Option<Vec<Datum>> = None;
    for file in files {
        if let Some(b) = &bound {
            if !section.is_empty() && cmp.compare(&file.min_key, b) == Ordering::Greater {
                result.push(section_runs(std::mem::take(&mut section), cmp));
                bound = None;
            }
        }
        let extend = match &bound {
            None => true,
            Some(b) => cmp.compare(&file.max_key, b) == Ordering::Greater,
        };
        if extend {
            bound = Some(file.max_key.clone());
        }
        section.push(file);
    }
    if !section.is_empty() {
        result.push(section_runs(section, cmp));
    }
    result
}

fn section_runs<F>(metas: Vec<KeyedFile<F>>, cmp: &KeyComparator) -> Vec<Vec<KeyedFile<F>>> {
    let by_last_max = |a: &Vec<KeyedFile<F>>, b: &Vec<KeyedFile<F>>| match (a.last(), b.last()) {
        (Some(x), Some(y)) => cmp.compare(&x.max_key, &y.max_key),
        _ => Ordering::Equal,
    };
    let mut queue = JavaPriorityQueue::new();
    let mut metas = metas.into_iter();
    let Some(first) = metas.next() else {
        return Vec::new();
    };
    queue.offer(vec![first], &by_last_max);
    for meta in metas {
        let Some(mut top) = queue.poll(&by_last_max) else {
            break;
        };
        let after = top
            .last()
            .is_some_and(|last| cmp.compare(&meta.min_key, &last.max_key) == Ordering::Greater);
        if after {
            top.push(meta);
        } else {
            queue.offer(vec![meta], &by_last_max);
        }
        queue.offer(top, &by_last_max);
    }
    queue.into_vec()
}

/// A binary min-heap laid out exactly like `java.util.PriorityQueue` with a comparator (same sift-up and
/// sift-down rules), so that its array order, which `PriorityQueue.iterator()` and `stream()` expose, is the
/// same as Java's for the same sequence of `offer`/`poll` calls.
#[derive(Debug, Default)]
pub struct JavaPriorityQueue<T> {
    items: Vec<T>,
}

impl<T> JavaPriorityQueue<T> {
    /// An empty queue.
    pub fn new() -> Self {
        JavaPriorityQueue { items: Vec::new() }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The head (smallest element), if any.
    pub fn peek(&self) -> Option<&T> {
        self.items.first()
    }

    /// `offer`: append, then sift up while strictly smaller than the parent.
    pub fn offer(&mut self, item: T, cmp: &impl Fn(&T, &T) -> Ordering) {
        self.items.push(item);
        let mut k = self.items.len() - 1;
        while k > 0 {
            let parent = (k - 1) / 2;
            if cmp(&self.items[k], &self.items[parent]) != Ordering::Less {
                break;
            }
            self.items.swap(k, parent);
            k = parent;
        }
    }

    /// `poll`: remove the head; the last element moves to the root and sifts down, taking the right child
    /// only when it is strictly smaller than the left one, and stopping when not greater than the child.
    pub fn poll(&mut self, cmp: &impl Fn(&T, &T) -> Ordering) -> Option<T> {
        if self.items.is_empty() {
            return None;
        }
        let last = self.items.len() - 1;
        self.items.swap(0, last);
        let result = self.items.pop();
        let n = self.items.len();
        let mut k = 0;
        let half = n / 2;
        while k < half {
            let mut child = 2 * k + 1;
            let right = child + 1;
            if right < n && cmp(&self.items[child], &self.items[right]) == Ordering::Greater {
                child = right;
            }
            if cmp(&self.items[k], &self.items[child]) != Ordering::Greater {
                break;
            }
            self.items.swap(k, child);
            k = child;
        }
        result
    }

    /// The elements in array (iteration) order.
    pub fn into_vec(self) -> Vec<T> {
        self.items
    }

    /// The elements in array (iteration) order.
    pub fn as_slice(&self) -> &[T] {
        &self.items
    }
}

/// Compares trimmed primary keys the way Paimon's generated `RecordComparator` over the key type does: field
/// by field in key order, NULL first, integers/dates/times and floating point numerically (`<`/`>`, so NaN
/// equals anything), strings and binaries by unsigned bytes then length, decimals by value, timestamps by
/// (milliseconds, nanoseconds), `false < true`.
#[derive(Clone, Debug)]
pub struct KeyComparator {
    types: Vec<DataType>,
}

impl KeyComparator {
    /// The comparator of `schema`'s trimmed primary key.
    pub fn new(schema: &TableSchema) -> Self {
        KeyComparator {
            types: schema
                .trimmed_primary_keys()
                .into_iter()
                .map(|f| f.data_type.clone())
                .collect(),
        }
    }

    /// Decodes a serialized key row (`_MIN_KEY`/`_MAX_KEY`, arity prefix included).
    ///
    /// Errors: [`Error::BinaryRow`] naming `path` (the data file the key describes).
    pub fn decode(&self, serialized: &[u8], path: &Path) -> Result<Vec<Datum>> {
        let types: Vec<&DataType> = self.types.iter().collect();
        decode_row(serialized, &types).map_err(|reason| Error::BinaryRow {
            path: path.to_path_buf(),
            reason: format!("key row: {reason}"),
        })
    }

    /// Compares two decoded keys.
    pub fn compare(&self, a: &[Datum], b: &[Datum]) -> Ordering {
        for (x, y) in a.iter().zip(b) {
            let c = compare_datum(x, y);
            if c != Ordering::Equal {
                return c;
            }
        }
        a.len().cmp(&b.len())
    }
}

/// One field of [`KeyComparator::compare`].
pub fn compare_datum(a: &Datum, b: &Datum) -> Ordering {
    use Datum::*;
    fn partial<T: PartialOrd>(x: T, y: T) -> Ordering {
        if x > y {
            Ordering::Greater
        } else if x < y {
            Ordering::Less
        } else {
            Ordering::Equal
        }
    }
    match (a, b) {
        (Null, Null) => Ordering::Equal,
        (Null, _) => Ordering::Less,
        (_, Null) => Ordering::Greater,
        (Boolean(x), Boolean(y)) => x.cmp(y),
        (Int(x), Int(y)) => x.cmp(y),
        (Float(x), Float(y)) => partial(x, y),
        (Double(x), Double(y)) => partial(x, y),
        (String(x), String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Bytes(x), Bytes(y)) => x.cmp(y),
        (
            Decimal {
                unscaled: x,
                scale: sx,
                ..
            },
            Decimal {
                unscaled: y,
                scale: sy,
                ..
            },
        ) if sx == sy => x.cmp(y),
        (
            Timestamp {
                millis: mx,
                nanos_of_milli: nx,
            },
            Timestamp {
                millis: my,
                nanos_of_milli: ny,
            },
        ) => (mx, nx).cmp(&(my, ny)),
        // Different types never meet in one key column.
        _ => Ordering::Equal,
    }
}

/// `BinPacking.packForOrdered`: items in order; a new bin starts when adding the next item would exceed
/// `target` and the current bin is not empty.
pub fn pack_for_ordered<T>(items: Vec<T>, weight: impl Fn(&T) -> i64, target: i64) -> Vec<Vec<T>> {
    let mut packed = Vec::new();
    let mut bin = Vec::new();
    let mut bin_weight: i64 = 0;
    for item in items {
        let w = weight(&item);
        if bin_weight.saturating_add(w) > target && !bin.is_empty() {
            packed.push(std::mem::take(&mut bin));
            bin_weight = 0;
        }
        bin_weight = bin_weight.saturating_add(w);
        bin.push(item);
    }
    if !bin.is_empty() {
        packed.push(bin);
    }
    packed
}

/// Sum over the ADD entries minus the DELETE entries of a manifest list's row counts; for a snapshot's delta
/// list this is the snapshot's `deltaRecordCount`, for its changelog list `changelogRecordCount`.
pub fn manifest_list_record_delta(table: &Table, manifest_list: &str) -> Result<i64> {
    let mut sum = 0i64;
    for meta in read_manifest_list(&table.manifest_path(manifest_list))? {
        for e in read_manifest_file(&table.manifest_path(&meta.file_name))? {
            match e.kind {
                FileKind::Add => sum += e.file.row_count,
                FileKind::Delete => sum -= e.file.row_count,
            }
        }
    }
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use apache_avro::types::Value;
    use apache_avro::{Codec, Schema, Writer};
    use std::path::Path;

    const LIST_SCHEMA: &str = r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},{"name":"_SCHEMA_ID","type":"long"}]}"#;
    const ENTRY_SCHEMA: &str = r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},{"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}}]}}]}"#;
    const INDEX_SCHEMA: &str = r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":{"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[{"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"},{"name":"_CARDINALITY","type":["null","long"]}]}}]}]}"#;

    fn write_avro(path: &Path, schema: &str, values: Vec<Value>) {
        let schema = Schema::parse_str(schema).unwrap();
        let mut w = Writer::with_codec(&schema, Vec::new(), Codec::Null);
        for v in values {
            w.append(v).unwrap();
        }
        std::fs::write(path, w.into_inner().unwrap()).unwrap();
    }

    fn rec(fields: Vec<(&str, Value)>) -> Value {
        Value::Record(
            fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    /// Serialized one-STRING partition row: `Some(s)` with |s| <= 7, or NULL.
    fn part_row(v: Option<&str>) -> Vec<u8> {
        let mut b = vec![0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
        let mut slot = [0u8; 8];
        match v {
            None => b[5] = 1,
            Some(s) => {
                slot[..s.len()].copy_from_slice(s.as_bytes());
                slot[7] = 0x80 | s.len() as u8;
            }
        }
        b.extend_from_slice(&slot);
        b
    }

    struct E {
        kind: i32,
        part: Option<&'static str>,
        bucket: i32,
        name: &'static str,
        size: i64,
        min_seq: i64,
    }

    fn entry(e: &E) -> Value {
        let empty = vec![0u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        rec(vec![
            ("_VERSION", Value::Int(2)),
            ("_KIND", Value::Int(e.kind)),
            ("_PARTITION", Value::Bytes(part_row(e.part))),
            ("_BUCKET", Value::Int(e.bucket)),
            ("_TOTAL_BUCKETS", Value::Int(-1)),
            (
                "_FILE",
                rec(vec![
                    ("_FILE_NAME", Value::String(e.name.into())),
                    ("_FILE_SIZE", Value::Long(e.size)),
                    ("_ROW_COUNT", Value::Long(e.size / 10)),
                    ("_MIN_KEY", Value::Bytes(empty.clone())),
                    ("_MAX_KEY", Value::Bytes(empty)),
                    ("_MIN_SEQUENCE_NUMBER", Value::Long(e.min_seq)),
                    ("_MAX_SEQUENCE_NUMBER", Value::Long(e.min_seq + 1)),
                    ("_SCHEMA_ID", Value::Long(0)),
                    ("_LEVEL", Value::Int(0)),
                    ("_EXTRA_FILES", Value::Array(vec![])),
                ]),
            ),
        ])
    }

    /// A table at `dir` with one STRING partition column `p`, the given primary keys and options, and
    /// snapshots: 1 APPEND (`entries`), 2 COMPACT (same delta), 3 APPEND with an empty delta, 4 COMPACT whose
    /// index manifest has a deletion vector for `f-dv` in (p=a, bucket 0).
    fn build_table(dir: &Path, primary_keys: &str, options: &str, entries: &[E]) {
        for d in ["schema", "snapshot", "manifest"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        std::fs::write(
            dir.join("schema/schema-0"),
            format!(
                r#"{{"version":3,"id":0,"fields":[{{"id":0,"name":"p","type":"STRING"}},{{"id":1,"name":"k","type":"INT NOT NULL"}}],
                "highestFieldId":1,"partitionKeys":["p"],"primaryKeys":[{primary_keys}],"options":{{{options}}}}}"#
            ),
        )
        .unwrap();
        let m = dir.join("manifest");
        write_avro(
            &m.join("manifest-0"),
            ENTRY_SCHEMA,
            entries.iter().map(entry).collect(),
        );
        let list = |name: &str| {
            rec(vec![
                ("_VERSION", Value::Int(2)),
                ("_FILE_NAME", Value::String(name.into())),
                ("_FILE_SIZE", Value::Long(1)),
                ("_NUM_ADDED_FILES", Value::Long(1)),
                ("_NUM_DELETED_FILES", Value::Long(0)),
                ("_SCHEMA_ID", Value::Long(0)),
            ])
        };
        write_avro(&m.join("list-delta"), LIST_SCHEMA, vec![list("manifest-0")]);
        write_avro(&m.join("list-empty"), LIST_SCHEMA, vec![]);
        write_avro(
            &m.join("index-manifest-0"),
            INDEX_SCHEMA,
            vec![rec(vec![
                ("_VERSION", Value::Int(1)),
                ("_KIND", Value::Int(0)),
                ("_PARTITION", Value::Bytes(part_row(Some("a")))),
                ("_BUCKET", Value::Int(0)),
                ("_INDEX_TYPE", Value::String(DELETION_VECTORS_INDEX.into())),
                ("_FILE_NAME", Value::String("index-0".into())),
                ("_FILE_SIZE", Value::Long(40)),
                ("_ROW_COUNT", Value::Long(1)),
                (
                    "_DELETIONS_VECTORS_RANGES",
                    Value::Union(
                        1,
                        Box::new(Value::Array(vec![rec(vec![
                            ("f0", Value::String("f-dv".into())),
                            ("f1", Value::Int(1)),
                            ("f2", Value::Int(22)),
                            ("_CARDINALITY", Value::Union(1, Box::new(Value::Long(2)))),
                        ])])),
                    ),
                ),
            ])],
        );
        for (id, kind, delta, index) in [
            (1, "APPEND", "list-delta", None),
            (2, "COMPACT", "list-delta", None),
            (3, "APPEND", "list-empty", Some("index-manifest-0")),
            (4, "COMPACT", "list-delta", Some("index-manifest-0")),
        ] {
            let index = index.map_or(String::new(), |i| format!(r#""indexManifest":"{i}","#));
            std::fs::write(
                dir.join(format!("snapshot/snapshot-{id}")),
                format!(
                    r#"{{"version":3,"id":{id},"schemaId":0,"baseManifestList":"list-empty","deltaManifestList":"{delta}",
                    "changelogManifestList":"list-delta",{index}"commitUser":"u","commitIdentifier":{id},"commitKind":"{kind}","timeMillis":0}}"#
                ),
            )
            .unwrap();
        }
    }

    /// (snapshot, partition, bucket or bucket path, file names) of a split.
    type Summary<'a, B> = (i64, Vec<Option<String>>, B, Vec<&'a str>);

    fn names(s: &Split) -> Vec<&str> {
        s.data_files.iter().map(|f| f.file_name.as_str()).collect()
    }

    #[test]
    fn bucket_unaware_append_sorts_and_bin_packs() {
        let dir = tempfile::tempdir().unwrap();
        let e = |kind, part, name, size, min_seq| E {
            kind,
            part,
            bucket: 0,
            name,
            size,
            min_seq,
        };
        build_table(
            dir.path(),
            "",
            r#""source.split.target-size":"100 b","source.split.open-file-cost":"1 b""#,
            &[
                e(0, Some("a"), "f-60", 60, 5),
                e(0, None, "f-null", 10, 0),
                e(0, Some("a"), "f-50", 50, 0),
                e(1, Some("a"), "f-deleted", 10, 3),
                e(0, Some("a"), "f-30", 30, 10),
            ],
        );
        let t = Table::open(dir.path()).unwrap();
        let splits = t.plan_stream(1, 4).unwrap();
        // snapshot 1 only: COMPACT 2 and 4 are skipped, APPEND 3 has an empty delta
        let root = t.root_string();
        let got: Vec<Summary<String>> = splits
            .iter()
            .map(|s| {
                (
                    s.snapshot_id,
                    s.partition.clone(),
                    s.bucket_path.clone(),
                    names(s),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    1,
                    vec![Some("a".into())],
                    format!("{root}/p=a/bucket-0"),
                    vec!["f-50"]
                ),
                (
                    1,
                    vec![Some("a".into())],
                    format!("{root}/p=a/bucket-0"),
                    vec!["f-60", "f-30"]
                ),
                (
                    1,
                    vec![None],
                    format!("{root}/p=__DEFAULT_PARTITION__/bucket-0"),
                    vec!["f-null"]
                ),
            ]
        );
        assert!(splits.iter().all(|s| s.is_streaming && s.raw_convertible));
        assert!(splits.iter().all(|s| s.deletion_files.is_empty()));
    }

    #[test]
    fn pk_table_groups_by_first_seen_partition_and_bucket() {
        let dir = tempfile::tempdir().unwrap();
        let e = |part, bucket, name| E {
            kind: 0,
            part,
            bucket,
            name,
            size: 10,
            min_seq: 100,
        };
        build_table(
            dir.path(),
            r#""p","k""#,
            r#""bucket":"2","changelog-producer":"lookup","deletion-vectors.enabled":"true""#,
            &[
                e(Some("a"), 1, "f-a1-x"),
                e(None, 0, "f-n0"),
                e(Some("a"), 0, "f-dv"),
                e(Some("a"), 1, "f-a1-y"),
                e(Some("a"), 0, "f-a0"),
            ],
        );
        let t = Table::open(dir.path()).unwrap();
        // lookup: COMPACT snapshots 2 and 4 read their changelog list; only 4 has an index manifest.
        let splits = t.plan_stream(1, 4).unwrap();
        let got: Vec<Summary<i32>> = splits
            .iter()
            .map(|s| (s.snapshot_id, s.partition.clone(), s.bucket, names(s)))
            .collect();
        let a = || vec![Some("a".to_string())];
        // LinkedHashMap<partition, LinkedHashMap<bucket, files>>: all buckets of partition `a` (first seen
        // bucket 1, then 0) come before the NULL partition seen second.
        assert_eq!(
            got,
            vec![
                (2, a(), 1, vec!["f-a1-x", "f-a1-y"]),
                (2, a(), 0, vec!["f-dv", "f-a0"]),
                (2, vec![None], 0, vec!["f-n0"]),
                (4, a(), 1, vec!["f-a1-x", "f-a1-y"]),
                (4, a(), 0, vec!["f-dv", "f-a0"]),
                (4, vec![None], 0, vec!["f-n0"]),
            ]
        );
        for s in &splits {
            assert_eq!(s.deletion_files.len(), s.data_files.len());
        }
        assert_eq!(splits[1].deletion_files, vec![None, None]);
        let dv = splits[4].deletion_files[0].as_ref().unwrap();
        assert_eq!(
            dv.path,
            dir.path().join("index").join("index-0").to_string_lossy()
        );
        assert_eq!((dv.offset, dv.length, dv.cardinality), (1, 22, Some(2)));
        assert_eq!(splits[4].deletion_files[1], None);
        // from before the earliest snapshot and a missing end
        assert_eq!(t.plan_stream(-5, 4).unwrap(), splits);
        let err = t.plan_stream(3, 5).unwrap_err();
        assert!(matches!(err, Error::Snapshot { .. }), "{err}");
        assert!(err.to_string().contains("snapshot-5"));
    }

    #[test]
    fn expired_snapshot_in_range_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        build_table(dir.path(), "", "", &[]);
        std::fs::remove_file(dir.path().join("snapshot/snapshot-2")).unwrap();
        let t = Table::open(dir.path()).unwrap();
        let err = t.plan_stream(1, 3).unwrap_err();
        assert!(matches!(err, Error::Snapshot { .. }), "{err}");
        assert!(err.to_string().contains("snapshot-2"), "{err}");
        // no snapshot at all
        for id in [1, 3, 4] {
            std::fs::remove_file(dir.path().join(format!("snapshot/snapshot-{id}"))).unwrap();
        }
        let err = t.plan_stream(1, 3).unwrap_err();
        assert!(matches!(err, Error::Snapshot { .. }), "{err}");
    }

    #[test]
    fn follow_up_scanners() {
        use ChangelogProducer as P;
        use CommitKind as K;
        assert_eq!(follow_up(P::None, K::Append), Some(FollowUpMode::Delta));
        assert_eq!(follow_up(P::None, K::Compact), None);
        assert_eq!(follow_up(P::None, K::Overwrite), None);
        assert_eq!(
            follow_up(P::Input, K::Append),
            Some(FollowUpMode::Changelog)
        );
        assert_eq!(follow_up(P::Input, K::Compact), None);
        assert_eq!(
            follow_up(P::Lookup, K::Compact),
            Some(FollowUpMode::Changelog)
        );
        assert_eq!(
            follow_up(P::FullCompaction, K::Compact),
            Some(FollowUpMode::Changelog)
        );
        assert_eq!(follow_up(P::Lookup, K::Append), None);
        assert_eq!(follow_up(P::FullCompaction, K::Analyze), None);
    }

    #[test]
    fn bin_packing_like_java() {
        let packs = pack_for_ordered(vec![5, 5, 5, 20, 1, 1], |x| *x, 10);
        assert_eq!(packs, vec![vec![5, 5], vec![5], vec![20], vec![1, 1]]);
        let packs = pack_for_ordered(Vec::<i64>::new(), |x| *x, 10);
        assert!(packs.is_empty());
        // open-file cost as minimum weight
        let packs = pack_for_ordered(vec![1, 1, 1, 1, 1], |x| (*x).max(4), 10);
        assert_eq!(packs, vec![vec![1, 1], vec![1, 1], vec![1]]);
    }

    #[test]
    fn java_priority_queue_layout() {
        let cmp = |a: &(i32, char), b: &(i32, char)| a.0.cmp(&b.0);
        let mut q = JavaPriorityQueue::new();
        for (i, v) in [5, 3, 8, 1].into_iter().enumerate() {
            q.offer((v, (b'a' + i as u8) as char), &cmp);
        }
        let keys: Vec<i32> = q.as_slice().iter().map(|x| x.0).collect();
        assert_eq!(keys, [1, 3, 8, 5]);
        assert_eq!(q.poll(&cmp).map(|x| x.0), Some(1));
        let keys: Vec<i32> = q.as_slice().iter().map(|x| x.0).collect();
        assert_eq!(keys, [3, 5, 8]);
        // Equal elements never move past each other on offer.
        let mut q = JavaPriorityQueue::new();
        q.offer((1, 'x'), &cmp);
        q.offer((1, 'y'), &cmp);
        assert_eq!(q.into_vec(), [(1, 'x'), (1, 'y')]);
    }

    fn int_key(v: i32) -> Vec<u8> {
        let mut b = vec![0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
        b.extend_from_slice(&(v as i64).to_le_bytes());
        b
    }

    fn int_schema() -> TableSchema {
        TableSchema::parse(
            br#"{"version":3,"id":0,"fields":[{"id":0,"name":"k","type":"INT NOT NULL"}],
                "highestFieldId":0,"partitionKeys":[],"primaryKeys":["k"],"options":{}}"#,
        )
        .unwrap()
    }

    fn desc(
        name: &str,
        min: i32,
        max: i32,
        level: i32,
        size: i64,
        deletes: Option<i64>,
    ) -> DataFileDesc {
        DataFileDesc {
            file_name: name.into(),
            level,
            row_count: 1,
            file_size: size,
            min_sequence_number: 0,
            max_sequence_number: 0,
            schema_id: 0,
            delete_row_count: deletes,
            min_key: int_key(min),
            max_key: int_key(max),
        }
    }

    fn keyed(cmp: &KeyComparator, files: Vec<DataFileDesc>) -> Vec<KeyedFile<DataFileDesc>> {
        files
            .into_iter()
            .map(|f| KeyedFile {
                min_key: cmp.decode(&f.min_key, Path::new("x")).unwrap(),
                max_key: cmp.decode(&f.max_key, Path::new("x")).unwrap(),
                file: f,
            })
            .collect()
    }

    fn sections_of(parts: Vec<Vec<Vec<KeyedFile<DataFileDesc>>>>) -> Vec<Vec<Vec<String>>> {
        parts
            .into_iter()
            .map(|runs| {
                runs.into_iter()
                    .map(|r| r.into_iter().map(|k| k.file.file_name).collect())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn interval_partition_sections_and_runs() {
        let cmp = KeyComparator::new(&int_schema());
        // The example of MergeTreeSplitGenerator's comment.
        let files = vec![
            desc("e", 200, 600, 0, 1, Some(0)),
            desc("a", 1, 2, 0, 1, Some(0)),
            desc("d", 5, 190, 0, 1, Some(0)),
            desc("b", 3, 4, 0, 1, Some(0)),
            desc("c", 5, 180, 0, 1, Some(0)),
            desc("f", 210, 700, 0, 1, Some(0)),
        ];
        let s = sections_of(interval_partition(keyed(&cmp, files), &cmp));
        assert_eq!(
            s,
            vec![
                vec![vec!["a"]],
                vec![vec!["b"]],
                vec![vec!["c"], vec!["d"]],
                vec![vec!["e"], vec!["f"]],
            ]
        );
        // Runs come in the queue's array order: [b, c] moved before [a].
        let files = vec![
            desc("a", 1, 10, 0, 1, Some(0)),
            desc("b", 2, 3, 0, 1, Some(0)),
            desc("c", 4, 5, 0, 1, Some(0)),
        ];
        let s = sections_of(interval_partition(keyed(&cmp, files), &cmp));
        assert_eq!(s, vec![vec![vec!["b", "c"], vec!["a"]]]);
    }

    #[test]
    fn merge_tree_split_generation() {
        let cmp = KeyComparator::new(&int_schema());
        let names =
            |groups: Vec<(Vec<KeyedFile<DataFileDesc>>, bool)>| -> Vec<(Vec<String>, bool)> {
                groups
                    .into_iter()
                    .map(|(f, raw)| (f.into_iter().map(|k| k.file.file_name).collect(), raw))
                    .collect()
            };
        // One level, no delete rows: bin-packed in order, all raw (target 10, open cost 4).
        let files = vec![
            desc("x", 5, 9, 3, 5, Some(0)),
            desc("y", 1, 4, 3, 5, None),
            desc("z", 10, 12, 3, 1, Some(0)),
        ];
        assert_eq!(
            names(merge_tree_split_for_batch(
                keyed(&cmp, files),
                &cmp,
                10,
                4,
                false
            )),
            vec![
                (vec!["x".into(), "y".into()], true),
                (vec!["z".into()], true)
            ]
        );
        // Level 0 present: sections by key range; a lone file without delete rows is raw.
        let files = vec![
            desc("l0", 1, 5, 0, 3, Some(0)),
            desc("l1", 2, 8, 1, 3, Some(0)),
            desc("far", 20, 30, 1, 3, Some(2)),
            desc("farther", 40, 50, 1, 3, Some(0)),
        ];
        assert_eq!(
            names(merge_tree_split_for_batch(
                keyed(&cmp, files),
                &cmp,
                7,
                1,
                false
            )),
            vec![
                (vec!["l0".into(), "l1".into()], false),
                (vec!["far".into(), "farther".into()], false),
            ]
        );
        // A lone file without delete rows is raw-convertible, even at level 0.
        let files = vec![
            desc("l0", 1, 5, 0, 3, Some(0)),
            desc("l1", 2, 8, 1, 3, Some(0)),
            desc("far", 20, 30, 1, 3, Some(2)),
            desc("farther", 40, 50, 0, 3, Some(0)),
        ];
        assert_eq!(
            names(merge_tree_split_for_batch(
                keyed(&cmp, files),
                &cmp,
                4,
                1,
                false
            )),
            vec![
                (vec!["l0".into(), "l1".into()], false),
                (vec!["far".into()], false),
                (vec!["farther".into()], true),
            ]
        );
        // Deletion vectors: raw-convertible files are packed as they come even across levels.
        let files = vec![
            desc("p", 1, 5, 2, 3, Some(0)),
            desc("q", 2, 8, 1, 3, Some(0)),
        ];
        assert_eq!(
            names(merge_tree_split_for_batch(
                keyed(&cmp, files),
                &cmp,
                100,
                1,
                true
            )),
            vec![(vec!["p".into(), "q".into()], true)]
        );
    }

    const FULL_ENTRY_SCHEMA: &str = r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},{"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},{"name":"_DELETE_ROW_COUNT","type":["null","long"]}]}}]}"#;

    /// (kind, file, level, min key, max key, size)
    type Entry = (i32, &'static str, i32, i32, i32, i64);

    fn full_entry(e: &Entry) -> Value {
        rec(vec![
            ("_VERSION", Value::Int(2)),
            ("_KIND", Value::Int(e.0)),
            ("_PARTITION", Value::Bytes(vec![0u8; 12])),
            ("_BUCKET", Value::Int(0)),
            ("_TOTAL_BUCKETS", Value::Int(1)),
            (
                "_FILE",
                rec(vec![
                    ("_FILE_NAME", Value::String(e.1.into())),
                    ("_FILE_SIZE", Value::Long(e.5)),
                    ("_ROW_COUNT", Value::Long(1)),
                    ("_MIN_KEY", Value::Bytes(int_key(e.3))),
                    ("_MAX_KEY", Value::Bytes(int_key(e.4))),
                    ("_MIN_SEQUENCE_NUMBER", Value::Long(0)),
                    ("_MAX_SEQUENCE_NUMBER", Value::Long(0)),
                    ("_SCHEMA_ID", Value::Long(0)),
                    ("_LEVEL", Value::Int(e.2)),
                    ("_EXTRA_FILES", Value::Array(vec![])),
                    (
                        "_DELETE_ROW_COUNT",
                        Value::Union(1, Box::new(Value::Long(0))),
                    ),
                ]),
            ),
        ])
    }

    /// An unpartitioned PK table (k INT) with `options` and snapshots: 1 APPEND (base: -, delta: m1),
    /// 2 COMPACT (base: m1, delta: m2), 3 APPEND (base: m1, m2, delta: m3).
    fn build_all_mode_table(dir: &Path, options: &str, m1: &[Entry], m2: &[Entry], m3: &[Entry]) {
        for d in ["schema", "snapshot", "manifest"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        std::fs::write(
            dir.join("schema/schema-0"),
            format!(
                r#"{{"version":3,"id":0,"fields":[{{"id":0,"name":"k","type":"INT NOT NULL"}},{{"id":1,"name":"v","type":"INT"}}],
                "highestFieldId":1,"partitionKeys":[],"primaryKeys":["k"],"options":{{{options}}}}}"#
            ),
        )
        .unwrap();
        let m = dir.join("manifest");
        let meta = |name: &str, entries: &[Entry]| {
            let added = entries.iter().filter(|e| e.0 == 0).count() as i64;
            rec(vec![
                ("_VERSION", Value::Int(2)),
                ("_FILE_NAME", Value::String(name.into())),
                ("_FILE_SIZE", Value::Long(1)),
                ("_NUM_ADDED_FILES", Value::Long(added)),
                (
                    "_NUM_DELETED_FILES",
                    Value::Long(entries.len() as i64 - added),
                ),
                ("_SCHEMA_ID", Value::Long(0)),
            ])
        };
        for (name, entries) in [("m1", m1), ("m2", m2), ("m3", m3)] {
            write_avro(
                &m.join(name),
                FULL_ENTRY_SCHEMA,
                entries.iter().map(full_entry).collect(),
            );
        }
        write_avro(&m.join("l-empty"), LIST_SCHEMA, vec![]);
        write_avro(&m.join("l-1"), LIST_SCHEMA, vec![meta("m1", m1)]);
        write_avro(&m.join("l-2"), LIST_SCHEMA, vec![meta("m2", m2)]);
        write_avro(&m.join("l-3"), LIST_SCHEMA, vec![meta("m3", m3)]);
        write_avro(
            &m.join("l-12"),
            LIST_SCHEMA,
            vec![meta("m1", m1), meta("m2", m2)],
        );
        for (id, kind, base, delta) in [
            (1, "APPEND", "l-empty", "l-1"),
            (2, "COMPACT", "l-1", "l-2"),
            (3, "APPEND", "l-12", "l-3"),
        ] {
            std::fs::write(
                dir.join(format!("snapshot/snapshot-{id}")),
                format!(
                    r#"{{"version":3,"id":{id},"schemaId":0,"baseManifestList":"{base}","deltaManifestList":"{delta}",
                    "changelogManifestList":null,"commitUser":"u","commitIdentifier":{id},"commitKind":"{kind}","timeMillis":0}}"#
                ),
            )
            .unwrap();
        }
    }

    fn split_files(splits: &[Split]) -> Vec<(i64, Vec<&str>, bool, bool)> {
        splits
            .iter()
            .map(|s| (s.snapshot_id, names(s), s.is_streaming, s.raw_convertible))
            .collect()
    }

    #[test]
    fn batch_plans_read_the_all_mode_file_set() {
        // Snapshot 1: f0, f1 at level 0. Snapshot 2 compacts f0 away and upgrades f1 to level 5 (DELETE
        // level 0 + ADD level 5), adding g at level 5. Snapshot 3 adds h at level 0.
        let m1: Vec<Entry> = vec![(0, "f0", 0, 1, 5, 10), (0, "f1", 0, 6, 9, 10)];
        let m2: Vec<Entry> = vec![
            (1, "f0", 0, 1, 5, 10),
            (1, "f1", 0, 6, 9, 10),
            (0, "f1", 5, 6, 9, 10),
            (0, "g", 5, 1, 5, 10),
        ];
        let m3: Vec<Entry> = vec![(0, "h", 0, 2, 3, 10)];
        let dir = tempfile::tempdir().unwrap();
        build_all_mode_table(dir.path(), r#""bucket":"1""#, &m1, &m2, &m3);
        let t = Table::open(dir.path()).unwrap();
        // Latest: f1 and g at level 5, h at level 0 → sections {g, h} (runs [h], [g] in queue order) and
        // {f1}, packed into one split.
        assert_eq!(
            split_files(&t.plan_batch(None).unwrap()),
            vec![(3, vec!["h", "g", "f1"], false, false)]
        );
        // Time travel.
        assert_eq!(
            split_files(&t.plan_batch(Some(1)).unwrap()),
            vec![(1, vec!["f0", "f1"], false, false)]
        );
        assert_eq!(
            split_files(&t.plan_batch(Some(2)).unwrap()),
            vec![(2, vec!["f1", "g"], false, true)]
        );
        let err = t.plan_batch(Some(4)).unwrap_err();
        assert!(
            err.to_string()
                .contains("out of available snapshotId range [1, 3]"),
            "{err}"
        );
        // A batch split's files carry what a merge read needs.
        let s = &t.plan_batch(None).unwrap()[0];
        assert_eq!(s.data_files[1].min_key, int_key(1));
        assert_eq!(s.data_files[0].delete_row_count, Some(0));

        // Deletion vectors: level 0 is not visible to batch reads.
        let dir = tempfile::tempdir().unwrap();
        build_all_mode_table(
            dir.path(),
            r#""bucket":"1","deletion-vectors.enabled":"true""#,
            &m1,
            &m2,
            &m3,
        );
        let t = Table::open(dir.path()).unwrap();
        assert_eq!(
            split_files(&t.plan_batch(None).unwrap()),
            vec![(3, vec!["f1", "g"], false, true)]
        );
        // Streaming full first plan with DVs (lookup needed): levels > 0; the follow-up starts at the same
        // snapshot (deletion vectors without lookup changelog) and reads its APPEND delta.
        assert_eq!(
            split_files(&t.plan_latest_full(3).unwrap()),
            vec![
                (3, vec!["f1", "g"], false, true),
                (3, vec!["h"], true, true)
            ]
        );
    }

    #[test]
    fn stream_full_first_plans() {
        let m1: Vec<Entry> = vec![(0, "f0", 0, 1, 5, 10)];
        let m2: Vec<Entry> = vec![(1, "f0", 0, 1, 5, 10), (0, "top", 5, 1, 5, 10)];
        let m3: Vec<Entry> = vec![(0, "h", 0, 2, 3, 10)];
        // full-compaction: only the top level in the first plan; follow-ups read COMPACT changelogs
        // (none here).
        let dir = tempfile::tempdir().unwrap();
        build_all_mode_table(
            dir.path(),
            r#""bucket":"1","changelog-producer":"full-compaction""#,
            &m1,
            &m2,
            &m3,
        );
        let t = Table::open(dir.path()).unwrap();
        assert_eq!(
            split_files(&t.plan_stream_full(1, 3).unwrap()),
            Vec::<(i64, Vec<&str>, bool, bool)>::new()
        );
        assert_eq!(
            split_files(&t.plan_stream_full(2, 3).unwrap()),
            vec![(2, vec!["top"], false, true)]
        );
        // none: every level, then the APPEND deltas after the first snapshot.
        let dir = tempfile::tempdir().unwrap();
        build_all_mode_table(dir.path(), r#""bucket":"1""#, &m1, &m2, &m3);
        let t = Table::open(dir.path()).unwrap();
        assert_eq!(
            split_files(&t.plan_stream_full(1, 3).unwrap()),
            vec![(1, vec!["f0"], false, true), (3, vec!["h"], true, true)]
        );
        // The end cuts the follow-ups; a start past the end keeps nothing.
        assert_eq!(split_files(&t.plan_stream_full(1, 2).unwrap()).len(), 1);
        assert!(t.plan_stream_full(3, 2).unwrap().is_empty());
        assert!(t.plan_stream_full(9, 9).is_err());
        assert_eq!(
            t.plan(ScanMode::StreamFull { from_snapshot: 1 }, 3)
                .unwrap(),
            t.plan_stream_full(1, 3).unwrap()
        );
    }

    /// Expected values printed by the released 1.0.0 jars: `BinaryRow.hashCode()` of a one-STRING row
    /// `("a")` and of one-INT rows, and the iteration order of `HashSet<Integer>`s.
    #[test]
    fn java_hashes_and_hash_order() {
        let a: Vec<u8> = [
            0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 97, 0, 0, 0, 0, 0, 0, -127i8,
        ]
        .iter()
        .map(|b| *b as u8)
        .collect();
        assert_eq!(binary_row_hash(&a), 943_281_246);
        let int_row = |k: i32| {
            let mut row = vec![0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
            row.extend_from_slice(&i64::from(k).to_le_bytes());
            row
        };
        let java = [
            1_465_514_398,
            1_340_390_384,
            -771_300_025,
            1_447_522_506,
            260_196_596,
        ];
        for (k, h) in (1..=5).zip(java) {
            assert_eq!(binary_row_hash(&int_row(k)), h, "key {k}");
        }
        let set = |keys: &[i32]| {
            java_hash_order(keys.iter().map(|k| (*k, *k)).collect(), JavaInsert::Put)
        };
        assert_eq!(set(&[20, 3, 16, 35, 4]), vec![16, 3, 35, 20, 4]);
        // 16 keys: the set has resized to 32 bins.
        let evens: Vec<i32> = (0..=30).rev().step_by(2).collect();
        assert_eq!(set(&evens), (0..=30).step_by(2).collect::<Vec<_>>());
        // `HashMap.computeIfAbsent` prepends within a bin and resizes before the insert that follows the
        // one exceeding the threshold: 13 keys stay in 16 bins, 14 keys end in 32.
        let map = |keys: &[i32]| {
            java_hash_order(
                keys.iter().map(|k| (*k, *k)).collect(),
                JavaInsert::ComputeIfAbsent,
            )
        };
        assert_eq!(map(&[20, 3, 16, 35, 4]), vec![16, 35, 3, 4, 20]);
        let fives = |n: i32| (0..n).map(|i| i * 5).collect::<Vec<_>>();
        assert_eq!(
            map(&fives(14)),
            vec![0, 65, 35, 5, 40, 10, 45, 15, 50, 20, 55, 25, 60, 30]
        );
        assert_eq!(
            map(&fives(13)),
            vec![0, 50, 35, 20, 5, 55, 40, 25, 10, 60, 45, 30, 15]
        );
    }
}
