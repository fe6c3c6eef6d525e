//! Batch scans of a table with a fallback branch (`scan.fallback-branch`, `FallbackReadFileStoreTable`
//! `.FallbackReadScan#plan`): the main branch's splits, then the fallback branch's splits of the partitions
//! the main branch does not have, marked [`Split::fallback`] and read by the fallback branch's table. With a
//! primary branch (`scan.primary-branch`, 1.4 on) the roles turn: the primary branch's splits first, read by
//! its table, then the main branch's splits of the partitions it lacks, marked [`Split::fallback`].
//! Streaming scans plan the main branch alone (`newStreamScan` is not wrapped).

use std::collections::{HashMap, HashSet};

use crate::error::{Error, Result};
use crate::line::FallbackBranch;
use crate::snapshot::Snapshot;
use crate::split::Split;
use crate::table::Table;

use super::file_set::BucketFiles;
use super::split_generator::batch_splits;
use super::starting::{
    batch_files, batch_splits_by_partition, plan_batch_of_branch, PartitionSplits,
};

/// A partition as splits name it (its rendered values).
type Partition = Vec<Option<String>>;

/// Batch plan (`DataTableBatchScan.plan()`): the latest snapshot when `snapshot` is `None`
/// (`FullStartingScanner`; no splits when the table has no snapshot), else `scan.snapshot-id=snapshot`
/// (`StaticFromSnapshotStartingScanner`). With a fallback branch (`scan.fallback-branch`), the main
/// branch's splits are followed by the fallback branch's splits of the partitions the main branch lacks.
///
/// The main branch has a partition when its plan has a split of it (1.2, 1.3:
/// [`FallbackBranch::PlannedPartitions`]) or when its scan lists it (1.4 on:
/// [`FallbackBranch::ListedPartitions`]). The fallback branch is read at its latest snapshot, or, when the
/// main branch is read at a snapshot given, at its last snapshot not newer than that one
/// (`rewriteOtherOptions`: `earlierOrEqualTimeMills`, else snapshot 1).
///
/// Errors: [`Error::Snapshot`] when `snapshot` is outside `[earliest, latest]` (the message of
/// `StaticFromSnapshotStartingScanner`) or its file is missing; [`Error::Unsupported`] for
/// `scan.plan-sort-partition=true`; manifest errors naming the file; [`Error::BinaryRow`] naming the data
/// file whose min/max key is malformed; the same of the fallback branch; [`Error::Unsupported`] naming the
/// other branch's schema when its row type is not the main branch's.
pub fn plan_batch(table: &Table, snapshot: Option<i64>) -> Result<Vec<Split>> {
    if let Some(primary) = table.primary() {
        same_row_type(table, primary, crate::table::SCAN_PRIMARY_BRANCH)?;
        return primary_first(table, primary, snapshot);
    }
    if let Some(fallback) = table.fallback() {
        same_row_type(table, fallback, crate::table::SCAN_FALLBACK_BRANCH)?;
    }
    let (splits, planned) = plan_batch_of_branch(table, snapshot)?;
    let planned = planned.map(|(s, listed)| (s, listed.into_iter().collect()));
    with_fallback(table, (splits, planned), snapshot.is_some())
}

/// The splits of a batch scan of each partition alone (`newScan().withPartitionFilter([p])`, as `$files`
/// plans them: [`batch_splits_by_partition`]) of a table that may have a fallback or a primary branch.
/// `FallbackReadScan#plan` decides by partition; with the branch read first (the primary branch, else this
/// one) and the other:
/// - 1.4 on ([`FallbackBranch::ListedPartitions`], and every primary branch): the first branch's splits,
///   then the other's when the first branch's scan does not list the partition (its listing keeps the
///   batch scan's level filter, so a partition with level-0 files only is not listed where level 0 is
///   skipped);
/// - 1.0 to 1.3 ([`FallbackBranch::PlannedPartitions`], [`FallbackBranch::KeyedFilesReadByFallback`]):
///   this branch's splits, or the fallback branch's when this branch planned none;
/// - without either branch, this branch's splits.
///
/// Errors: as [`batch_splits_by_partition`] of either branch; [`Error::Unsupported`] naming the other
/// branch's schema when its row type is not this branch's (`validateSchema`).
pub(crate) fn splits_by_partition(table: &Table, all_levels: bool) -> Result<Vec<PartitionSplits>> {
    let (first, second) = match (table.primary(), table.fallback()) {
        (Some(primary), _) => {
            same_row_type(table, primary, crate::table::SCAN_PRIMARY_BRANCH)?;
            (primary.as_ref(), table)
        }
        (None, Some(fallback)) => {
            same_row_type(table, fallback, crate::table::SCAN_FALLBACK_BRANCH)?;
            match table.release().rules().fallback_branch {
                FallbackBranch::ListedPartitions => {}
                FallbackBranch::PlannedPartitions | FallbackBranch::KeyedFilesReadByFallback => {
                    let mut own = batch_splits_by_partition(table, all_levels)?;
                    let planned: HashSet<Vec<u8>> = own.iter().map(|(p, _)| p.clone()).collect();
                    own.extend(
                        batch_splits_by_partition(fallback, all_levels)?
                            .into_iter()
                            .filter(|(p, _)| !planned.contains(p)),
                    );
                    return Ok(own);
                }
            }
            (table, fallback.as_ref())
        }
        (None, None) => return batch_splits_by_partition(table, all_levels),
    };
    let listed: HashSet<Vec<u8>> = batch_files(first, None)?
        .map(|(_, groups)| groups.into_iter().map(|g| g.partition).collect())
        .unwrap_or_default();
    let mut out: HashMap<Vec<u8>, _> = batch_splits_by_partition(first, all_levels)?
        .into_iter()
        .collect();
    for (partition, splits) in batch_splits_by_partition(second, all_levels)? {
        if !listed.contains(&partition) {
            out.entry(partition).or_default().extend(splits);
        }
    }
    Ok(out.into_iter().collect())
}

/// `FallbackReadFileStoreTable.validateSchema` (every batch scan): the other branch's columns must have the
/// main branch's types, position by position, top-level nullability aside.
///
/// Errors: [`Error::Unsupported`] naming the other branch's schema directory when they differ (the released
/// reader's scan throws `IllegalArgumentException` there).
fn same_row_type(table: &Table, other: &Table, option: &str) -> Result<()> {
    let (main, theirs) = (&table.schema().fields, &other.schema().fields);
    if main.len() == theirs.len()
        && main
            .iter()
            .zip(theirs)
            .all(|(a, b)| a.data_type.kind == b.data_type.kind)
    {
        return Ok(());
    }
    Err(Error::Unsupported {
        path: other.meta_path().join("schema"),
        reason: format!(
            "the branch named by `{option}` does not have the main branch's row type; the released reader's \
             batch scan fails on it (FallbackReadFileStoreTable.validateSchema)"
        ),
    })
}

/// `main` (the main branch's splits, with the snapshot they were planned from and the partitions its scan
/// lists) followed by the fallback branch's splits of the other partitions, on a table with a fallback
/// branch; `main`'s splits alone otherwise (see [`plan_batch`]).
///
/// Errors: those of the fallback branch's batch planning, naming its files.
fn with_fallback(
    table: &Table,
    main: (Vec<Split>, Option<(Snapshot, HashSet<Partition>)>),
    snapshot_given: bool,
) -> Result<Vec<Split>> {
    let (splits, planned) = main;
    let Some(fallback) = table.fallback() else {
        return Ok(splits);
    };
    let complete: HashSet<Partition> = match table.release().rules().fallback_branch {
        FallbackBranch::PlannedPartitions | FallbackBranch::KeyedFilesReadByFallback => {
            splits.iter().map(|s| s.partition.clone()).collect()
        }
        FallbackBranch::ListedPartitions => planned
            .as_ref()
            .map(|(_, listed)| listed.clone())
            .unwrap_or_default(),
    };
    // `rewriteOtherOptions`: a `scan.snapshot-id` given to the main branch (even its latest) pins the other
    // branch by time.
    let pinned = match &planned {
        Some((snapshot, _)) if snapshot_given => {
            Some(fallback_snapshot_at(fallback, snapshot.time_millis)?)
        }
        _ => None,
    };
    match batch_files(fallback, pinned)? {
        Some((snapshot, groups)) => append_second(splits, fallback, &snapshot, groups, &complete),
        None => Ok(splits),
    }
}

/// The batch plan of a table with a primary branch (`scan.primary-branch`: `FallbackReadScan` with the other
/// table first): the primary branch's splits, then this branch's splits of the partitions the primary branch
/// does not list, marked [`Split::fallback`] (read by this branch's table). The primary branch is read at its
/// latest snapshot, or, when this branch is read at a snapshot given, at its last snapshot not newer than
/// that one (`rewriteOtherOptions`).
///
/// Errors: those of either branch's batch planning, naming its files.
fn primary_first(table: &Table, primary: &Table, snapshot: Option<i64>) -> Result<Vec<Split>> {
    let main = batch_files(table, snapshot)?;
    // `rewriteOtherOptions`: a `scan.snapshot-id` given to the main branch (even its latest) pins the primary
    // branch by time.
    let pinned = match (&main, snapshot) {
        (Some((planned, _)), Some(_)) => Some(fallback_snapshot_at(primary, planned.time_millis)?),
        _ => None,
    };
    let (splits, listed) = plan_batch_of_branch(primary, pinned)?;
    let complete: HashSet<Partition> = listed
        .map(|(_, listed)| listed.into_iter().collect())
        .unwrap_or_default();
    match main {
        Some((snapshot, groups)) => append_second(splits, table, &snapshot, groups, &complete),
        None => Ok(splits),
    }
}

/// `splits` (the first branch's) followed by `second`'s splits of its file `groups` (of `snapshot`) whose
/// partition is not in `complete`, marked [`Split::fallback`] (`FallbackReadScan#plan`).
///
/// Errors: those of `second`'s split generation, naming its files.
fn append_second(
    mut splits: Vec<Split>,
    second: &Table,
    snapshot: &Snapshot,
    groups: Vec<BucketFiles>,
    complete: &HashSet<Partition>,
) -> Result<Vec<Split>> {
    let remaining: Vec<BucketFiles> = groups
        .into_iter()
        .filter(|g| !complete.contains(&g.rendered.values))
        .collect();
    if remaining.is_empty() {
        return Ok(splits);
    }
    for mut split in batch_splits(second, snapshot, remaining)? {
        split.fallback = true;
        splits.push(split);
    }
    Ok(splits)
}

/// `SnapshotManager.earlierOrEqualTimeMills(millis)` of the fallback branch: its newest snapshot committed
/// at or before `millis`, else snapshot 1 (`Snapshot.FIRST_SNAPSHOT_ID`).
fn fallback_snapshot_at(fallback: &Table, millis: i64) -> Result<i64> {
    let sm = fallback.snapshot_manager();
    let (Some(earliest), Some(latest)) = (sm.earliest_snapshot_id()?, sm.latest_snapshot_id()?)
    else {
        return Ok(1);
    };
    for id in (earliest..=latest).rev() {
        if fallback.snapshot(id)?.time_millis <= millis {
            return Ok(id);
        }
    }
    Ok(1)
}
