//! Starting scanners (`StartingScanner`, same semantics in 1.0 and 2.0): `ContinuousFromSnapshotStartingScanner`,
//! `ContinuousFromSnapshotFullStartingScanner`, `FullStartingScanner` and `StaticFromSnapshotStartingScanner`,
//! with the first-plan level filter of `DataTableStreamScan.tryFirstPlan` and the batch level-0 rule, both
//! by the table's line ([`LineRules`]).

use crate::error::{Error, Result};
use crate::line::{BatchSkipLevel0, FirstPlanLookupFilter, LineRules, ReadOptimizedLevels};
use crate::manifest::DataFileMeta;
use crate::options::{ChangelogProducer, Deferred, MergeEngine, StreamScanMode};
use crate::split::Split;
use crate::table::Table;
use std::collections::HashMap;

use super::consumer::consumer_next_snapshot;
use super::file_set::read_all_files_of;
use super::follow_up::follow_up_plans;
use super::split_generator::batch_splits;

/// The first snapshot id the follow-up scanner reads for `scan.snapshot-id=from_snapshot`:
/// `max(from_snapshot, earliest)`, `None` when the table has no snapshot (nor long-lived changelog).
pub(crate) fn starting_snapshot_id(table: &Table, from_snapshot: i64) -> Result<Option<i64>> {
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

fn check_streaming_options(table: &Table) -> Result<()> {
    super::check_line(table)?;
    let options = table.options();
    let unsupported = |reason: String| Error::Unsupported {
        path: table.path().to_path_buf(),
        reason,
    };
    if !options.stream_scan_mode.is(StreamScanMode::None) {
        return Err(unsupported(format!(
            "stream-scan-mode={} (internal streaming scans)",
            options.stream_scan_mode
        )));
    }
    if options.scan_plan_sort_partition {
        return Err(unsupported("scan.plan-sort-partition=true".into()));
    }
    if table.read_optimized() && table.is_primary_key_table() {
        // `ReadOptimizedTable.newStreamScan` throws.
        return Err(Error::NotATable {
            path: table.path().to_path_buf(),
            reason:
                "Unsupported streaming scan for read optimized table (`$ro` of a primary-key table)"
                    .into(),
        });
    }
    Ok(())
}

/// Streaming plan of `scan.mode=from-snapshot`, `scan.snapshot-id=from_snapshot`, followed until the next
/// snapshot id passes `end_snapshot`: the splits of every accepted snapshot in
/// `max(from_snapshot, earliest)..=end_snapshot`, in snapshot order. A table's `consumer-id` whose consumer
/// is recorded replaces `from_snapshot` with its `nextSnapshot` (`consumer/consumer-<id>`), in this mode
/// and in [`plan_stream_full`] and [`plan_latest_full`], which then plan as this one.
///
/// Empty when `from_snapshot > end_snapshot` (or the start is past the end). Errors: [`Error::Snapshot`]
/// naming the first missing snapshot in the range (also when the table has no snapshot at all);
/// [`Error::Unsupported`] for internal `stream-scan-mode`s and `scan.plan-sort-partition=true`; manifest
/// errors as [`plan_snapshot`] and [`plan_changes`].
pub fn plan_stream(table: &Table, from_snapshot: i64, end_snapshot: i64) -> Result<Vec<Split>> {
    check_streaming_options(table)?;
    let from_snapshot = consumer_next_snapshot(table)?.unwrap_or(from_snapshot);
    stream_from(table, from_snapshot, end_snapshot)
}

/// [`plan_stream`] from `from_snapshot` itself, the consumer already looked up.
fn stream_from(table: &Table, from_snapshot: i64, end_snapshot: i64) -> Result<Vec<Split>> {
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
    if !super::bounded::BoundedWatermark::of(table)?.ended_before(table, next)? {
        follow_up_plans(table, next, end_snapshot, &mut splits)?;
    }
    Ok(splits)
}

/// `num-levels` of the table: the option, else `num-sorted-run.compaction-trigger` + 1 (trigger default 5),
/// as typed when the table opened ([`crate::options::CoreOptions::num_levels`]).
///
/// Errors: [`Error::InvalidOption`] naming the schema file's directory when an option is not an integer.
pub(crate) fn num_levels(table: &Table) -> Result<i32> {
    deferred(table, &table.options().num_levels)
}

/// The value of a [`Deferred`] option, or its parse error naming the schema file's directory.
fn deferred<T: Copy>(table: &Table, option: &Deferred<T>) -> Result<T> {
    option.get().map_err(|e| e.at(table.path().join("schema")))
}

/// `CoreOptions.lookupStrategy()` of 1.0: `(needLookup, produceChangelog, deletionVector)`.
fn lookup_strategy(table: &Table) -> Result<(bool, bool, bool)> {
    let options = table.options();
    let first_row = options.merge_engine.is(MergeEngine::FirstRow);
    let produce_changelog = options.changelog_producer == ChangelogProducer::Lookup;
    let dv = options.deletion_vectors_enabled;
    let force = deferred(table, &options.force_lookup)?;
    Ok((
        produce_changelog || dv || first_row || force,
        produce_changelog,
        dv,
    ))
}

/// The full first plan's choices under `rules` (`DataTableStreamScan#tryFirstPlan`): whether it reads only
/// levels above 0 ([`LineRules::first_plan_lookup_filter`]) and whether the follow-up starts at the scanned snapshot
/// itself rather than the next ([`LineRules::dv_first_plan_rereads_start`]: 1.0 when deletion vectors are on
/// without lookup changelog).
///
/// Errors: [`Error::InvalidOption`] naming the schema directory when `force-lookup` is not a boolean (1.0).
pub(crate) fn first_plan_rules(table: &Table, rules: &LineRules) -> Result<(bool, bool)> {
    let lookup_producer = table.options().changelog_producer == ChangelogProducer::Lookup;
    match rules.first_plan_lookup_filter {
        FirstPlanLookupFilter::NeedLookup => {
            let (need_lookup, produce_changelog, dv) = lookup_strategy(table)?;
            let rereads = rules.dv_first_plan_rereads_start && !produce_changelog && dv;
            Ok((need_lookup, rereads))
        }
        FirstPlanLookupFilter::LookupProducer => {
            let dv = table.options().deletion_vectors_enabled;
            let rereads = rules.dv_first_plan_rereads_start && !lookup_producer && dv;
            Ok((lookup_producer, rereads))
        }
    }
}

/// Whether a batch scan drops level-0 files (primary-key tables only), under
/// [`LineRules::batch_skip_level0`], and from 1.3 only with `batch-scan-mode=none`
/// ([`LineRules::batch_scan_mode`]).
///
/// Errors: [`Error::InvalidOption`] naming the schema directory when `deletion-vectors.merge-on-read` is not
/// a boolean (2.0, DV tables), or `batch-scan-mode` neither `none` nor `compact` (1.3 on, where level 0
/// would be skipped).
pub(crate) fn batch_skips_level_0(table: &Table, rules: &LineRules) -> Result<bool> {
    if !table.is_primary_key_table() {
        return Ok(false);
    }
    let options = table.options();
    let skips = skips_level_0_by_engine(table, rules)?;
    if skips && rules.batch_scan_mode && deferred(table, &options.batch_scan_compact)? {
        return Ok(false);
    }
    Ok(skips)
}

/// `CoreOptions#batchScanSkipLevel0` of the line: deletion vectors (2.0: unless merged on read) or
/// first-row.
fn skips_level_0_by_engine(table: &Table, rules: &LineRules) -> Result<bool> {
    let options = table.options();
    let first_row = options.merge_engine.is(MergeEngine::FirstRow);
    Ok(match rules.batch_skip_level0 {
        BatchSkipLevel0::DeletionVectorsOrFirstRow => options.deletion_vectors_enabled || first_row,
        BatchSkipLevel0::DeletionVectorsUnlessMergeOnRead => {
            if options.deletion_vectors_enabled {
                !deferred(table, &options.deletion_vectors_merge_on_read)?
            } else {
                first_row
            }
        }
    })
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
    if let Some(next) = consumer_next_snapshot(table)? {
        return stream_from(table, next, end_snapshot);
    }
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
    if let Some(next) = consumer_next_snapshot(table)? {
        return stream_from(table, next, end_snapshot);
    }
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
    let (need_lookup, rereads_start) = first_plan_rules(table, super::rules(table))?;
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
        let buckets = super::bucket_filter(table, true)?;
        let groups = read_all_files_of(table, &snapshot, &*level_filter, buckets)?;
        splits = batch_splits(table, &snapshot, groups)?;
    }
    // A bounded stream whose full plan's snapshot is already past the bound ends after that plan.
    if super::bounded::BoundedWatermark::of(table)?.ends_at(&snapshot) {
        return Ok(splits);
    }
    let next = if rereads_start { start } else { start + 1 };
    follow_up_plans(table, next, end_snapshot, &mut splits)?;
    Ok(splits)
}

/// A branch's batch splits, with the snapshot they were planned from and the partitions its scan lists
/// (rendered values); no snapshot when the branch has none.
pub(crate) type BranchPlan = (
    Vec<Split>,
    Option<(crate::snapshot::Snapshot, Vec<Vec<Option<String>>>)>,
);

/// The splits of the main branch's batch plan (see [`super::fallback::plan_batch`]), with the snapshot they
/// were planned from and the partitions its scan lists; no snapshot when the table has none.
///
/// Errors: as [`super::fallback::plan_batch`].
pub(crate) fn plan_batch_of_branch(table: &Table, snapshot: Option<i64>) -> Result<BranchPlan> {
    match batch_files(table, snapshot)? {
        Some((snapshot, groups)) => {
            let listed = groups.iter().map(|g| g.rendered.values.clone()).collect();
            let splits = batch_splits(table, &snapshot, groups)?;
            Ok((splits, Some((snapshot, listed))))
        }
        None => Ok((Vec::new(), None)),
    }
}

/// The snapshot a batch scan reads (the latest when `snapshot` is `None`) and its file groups, after the
/// batch level filter and the postpone-bucket rule; `None` when the table has no snapshot.
///
/// Errors: as [`plan_batch`].
pub(crate) fn batch_files(
    table: &Table,
    snapshot: Option<i64>,
) -> Result<Option<(crate::snapshot::Snapshot, Vec<super::file_set::BucketFiles>)>> {
    batch_files_of(table, snapshot, false)
}

/// One partition's splits (serialized partition row; each split with its files' manifest records).
pub(crate) type PartitionSplits = (Vec<u8>, Vec<(Split, Vec<DataFileMeta>)>);

/// The splits of the latest snapshot's batch scan of each partition, one partition at a time (`newScan()
/// .withPartitionFilter(partition)`), each split with its files' full manifest records, in the scan's
/// order; every level when `all_levels` (`withLevelFilter(level -> true)`, which turns the batch scan's
/// level-0 rule off), else the batch scan's levels. Partitions are keyed by their serialized row; none
/// when the table has no snapshot.
///
/// Errors: as [`batch_files`] and [`batch_splits`]; [`Error::Decode`] naming the table if a split names a
/// file its groups do not hold (a bug here).
pub(crate) fn batch_splits_by_partition(
    table: &Table,
    all_levels: bool,
) -> Result<Vec<PartitionSplits>> {
    batch_splits_by_partition_at(table, None, all_levels)
}

/// [`batch_splits_by_partition`] of snapshot `snapshot` (the latest when `None`).
///
/// Errors: as [`batch_splits_by_partition`]; [`Error::Snapshot`] for a snapshot outside the ones kept.
pub(crate) fn batch_splits_by_partition_at(
    table: &Table,
    snapshot: Option<i64>,
    all_levels: bool,
) -> Result<Vec<PartitionSplits>> {
    let Some((snapshot, groups)) = batch_files_of(table, snapshot, all_levels)? else {
        return Ok(Vec::new());
    };
    let mut files: HashMap<(Vec<u8>, i32, String), DataFileMeta> = HashMap::new();
    let mut partitions: Vec<(Vec<u8>, Vec<super::file_set::BucketFiles>)> = Vec::new();
    for group in groups {
        for f in &group.files {
            files.insert(
                (group.partition.clone(), group.bucket, f.file_name.clone()),
                f.clone(),
            );
        }
        match partitions.iter_mut().find(|(p, _)| *p == group.partition) {
            Some((_, of_partition)) => of_partition.push(group),
            None => partitions.push((group.partition.clone(), vec![group])),
        }
    }
    let mut out = Vec::with_capacity(partitions.len());
    for (partition, groups) in partitions {
        let mut splits = Vec::new();
        for split in batch_splits(table, &snapshot, groups)? {
            let mut metas = Vec::with_capacity(split.data_files.len());
            for f in &split.data_files {
                let key = (partition.clone(), split.bucket, f.file_name.clone());
                let meta = files.get(&key).cloned().ok_or_else(|| Error::Decode {
                    path: table.meta_path().to_path_buf(),
                    reason: format!("split file `{}` is in no file group", f.file_name),
                })?;
                metas.push(meta);
            }
            splits.push((split, metas));
        }
        out.push((partition, splits));
    }
    Ok(out)
}

fn batch_files_of(
    table: &Table,
    snapshot: Option<i64>,
    all_levels: bool,
) -> Result<Option<(crate::snapshot::Snapshot, Vec<super::file_set::BucketFiles>)>> {
    check_batch_options(table)?;
    let sm = table.snapshot_manager();
    let id = match snapshot {
        None => match sm.latest_snapshot_id()? {
            Some(id) => id,
            None => return Ok(None),
        },
        Some(id) => {
            let (earliest, latest) = (sm.earliest_snapshot_id()?, sm.latest_snapshot_id()?);
            let (Some(earliest), Some(latest)) = (earliest, latest) else {
                return Ok(None);
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
    files_of_snapshot(table, table.snapshot(id)?, all_levels).map(Some)
}

/// The batch scan's options this planner refuses, and the table's line.
fn check_batch_options(table: &Table) -> Result<()> {
    super::check_line(table)?;
    if table.options().scan_plan_sort_partition {
        return Err(Error::Unsupported {
            path: table.path().to_path_buf(),
            reason: "scan.plan-sort-partition=true".into(),
        });
    }
    Ok(())
}

/// The batch splits of `snapshot` as given (a tag's, `StaticFromTagStartingScanner`: not looked up among
/// the retained snapshots), with the batch level filter and the postpone-bucket rule.
///
/// Errors: as [`batch_files`] and [`batch_splits`].
pub(crate) fn plan_batch_of_snapshot(
    table: &Table,
    snapshot: crate::snapshot::Snapshot,
) -> Result<Vec<Split>> {
    check_batch_options(table)?;
    let (snapshot, groups) = files_of_snapshot(table, snapshot, false)?;
    batch_splits(table, &snapshot, groups)
}

/// The file groups of `snapshot` as a batch scan of it groups them (the batch scan's options checked, its
/// level filter and the postpone-bucket rule applied): one side of an incremental diff.
///
/// Errors: as [`plan_batch_of_snapshot`].
pub(crate) fn batch_file_groups(
    table: &Table,
    snapshot: &crate::snapshot::Snapshot,
) -> Result<Vec<super::file_set::BucketFiles>> {
    check_batch_options(table)?;
    Ok(files_of_snapshot(table, snapshot.clone(), false)?.1)
}

/// `snapshot`'s file groups under the batch level filter (every level when `all_levels`) and the
/// postpone-bucket rule.
fn files_of_snapshot(
    table: &Table,
    snapshot: crate::snapshot::Snapshot,
    all_levels: bool,
) -> Result<(crate::snapshot::Snapshot, Vec<super::file_set::BucketFiles>)> {
    let rules = super::rules(table);
    let drop_level_0 = !all_levels && batch_skips_level_0(table, rules)?;
    let buckets = super::bucket_filter(table, false)?;
    let top = if table.read_optimized() && table.is_primary_key_table() {
        match rules.read_optimized_levels {
            ReadOptimizedLevels::TopUnlessBatchSkipsLevel0 if drop_level_0 => None,
            _ => Some(num_levels(table)? - 1),
        }
    } else {
        None
    };
    let groups = match top {
        Some(top) => read_all_files_of(table, &snapshot, &|level| level == top, buckets)?,
        None if drop_level_0 => read_all_files_of(table, &snapshot, &|level| level > 0, buckets)?,
        None => read_all_files_of(table, &snapshot, &|_| true, buckets)?,
    };
    Ok((snapshot, groups))
}

/// The batch splits of `FileCreationTimeStartingScanner`: the latest snapshot's files under the batch level
/// filter and the postpone-bucket rule, keeping those created at or after `millis` (milliseconds since the
/// epoch; `DataFileMeta#creationTimeEpochMillis`, the file's local creation time read in the JVM's zone,
/// UTC in jvm-bridge's JVM, so the stored value itself). No split when the table has no snapshot.
///
/// Errors: as [`batch_files`] and [`batch_splits`]; [`Error::Unsupported`] naming a data file without a
/// creation time (the release fails on it).
pub(crate) fn plan_batch_created_since(table: &Table, millis: i64) -> Result<Vec<Split>> {
    check_batch_options(table)?;
    let Some(id) = table.snapshot_manager().latest_snapshot_id()? else {
        return Ok(Vec::new());
    };
    let (snapshot, mut groups) = files_of_snapshot(table, table.snapshot(id)?, false)?;
    for group in &mut groups {
        if let Some(f) = group.files.iter().find(|f| f.creation_time.is_none()) {
            return Err(Error::Unsupported {
                path: table.path().to_path_buf(),
                reason: format!(
                    "data file {} has no _CREATION_TIME, which scan.file-creation-time-millis compares",
                    f.file_name
                ),
            });
        }
        group
            .files
            .retain(|f| f.creation_time.is_some_and(|t| t >= millis));
    }
    groups.retain(|g| !g.files.is_empty());
    batch_splits(table, &snapshot, groups)
}
