//! Follow-up scanners (`FollowUpScanner`): `DeltaFollowUpScanner`, 1.0's `InputChangelogFollowUpScanner` and
//! `CompactionChangelogFollowUpScanner`, 2.0's `ChangelogFollowUpScanner` (chosen by
//! [`LineRules::changelog_follow_up`]), the snapshot fetcher, and the overwrite plans
//! (`SnapshotReaderImpl.readChanges`, 2.0's append overwrite DELTA read).

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::java::hash_map::{java_hash_order, JavaInsert};
use crate::line::{ChangelogFollowUp, LineRules};
use crate::manifest::{read_manifest_file, read_manifest_list, DataFileMeta, FileKind};
use crate::options::ChangelogProducer;
use crate::partition::RenderedPartition;
use crate::snapshot::{CommitKind, Snapshot};
use crate::split::Split;
use crate::table::Table;

use super::file_set::{
    deletion_vector_index, read_added_files, DeletionVectorIndex, Grouper, PartitionGroup,
};
use super::split_generator::{data_file_desc, deletion_file, generate_splits};

/// Which manifest list a follow-up plan reads (`ScanMode.DELTA` or `ScanMode.CHANGELOG`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FollowUpMode {
    /// `deltaManifestList` (changelog-producer `none`).
    Delta,
    /// `changelogManifestList` (`input`, `lookup`, `full-compaction`).
    Changelog,
}

/// The follow-up scanner of a table in 1.0: whether it plans a snapshot of `kind`
/// (`FollowUpScanner.shouldScanSnapshot`) and, if so, from which manifest list.
pub(crate) fn follow_up(producer: ChangelogProducer, kind: CommitKind) -> Option<FollowUpMode> {
    match (producer, kind) {
        (ChangelogProducer::None, CommitKind::Append) => Some(FollowUpMode::Delta),
        (ChangelogProducer::Input, CommitKind::Append) => Some(FollowUpMode::Changelog),
        (ChangelogProducer::Lookup | ChangelogProducer::FullCompaction, CommitKind::Compact) => {
            Some(FollowUpMode::Changelog)
        }
        _ => None,
    }
}

/// The follow-up scanner of a table under `rule` ([`LineRules::changelog_follow_up`]): whether it plans
/// `snapshot` and from which manifest list. `none` is `DeltaFollowUpScanner` (APPEND, DELTA) in every line;
/// [`ChangelogFollowUp::ByCommitKind`] is [`follow_up`]; [`ChangelogFollowUp::WithChangelogManifest`]
/// (2.0 `ChangelogFollowUpScanner`) plans every snapshot with a `changelogManifestList`, in CHANGELOG mode.
pub(crate) fn follow_up_of(
    rule: ChangelogFollowUp,
    producer: ChangelogProducer,
    snapshot: &Snapshot,
) -> Option<FollowUpMode> {
    match (rule, producer) {
        (_, ChangelogProducer::None) | (ChangelogFollowUp::ByCommitKind, _) => {
            follow_up(producer, snapshot.commit_kind)
        }
        (ChangelogFollowUp::WithChangelogManifest, _) => snapshot
            .changelog_manifest_list
            .is_some()
            .then_some(FollowUpMode::Changelog),
    }
}

/// Fetches the snapshot the follow-up scanner reads at `id` (`NextSnapshotFetcher`): `snapshot-<id>`, or,
/// when it has expired and the changelog lifecycle is decoupled, `changelog/changelog-<id>`.
///
/// Errors: [`Error::Snapshot`] naming `snapshot-<id>` when neither exists.
pub(crate) fn fetch_snapshot(table: &Table, id: i64) -> Result<Snapshot> {
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

/// Whether the streaming scan plans OVERWRITE snapshots itself (`FileStoreTable#supportStreamingReadOverwrite`):
/// primary-key tables with `streaming-read-overwrite=true`; append tables with
/// `streaming-read-append-overwrite=true` on a line with [`LineRules::append_overwrite_streaming`].
///
/// Errors: [`Error::InvalidOption`] naming the schema directory when `streaming-read-append-overwrite` is
/// not a boolean (read on such a line only).
pub(crate) fn streams_overwrite(table: &Table, rules: &LineRules) -> Result<bool> {
    let options = table.options();
    if table.is_primary_key_table() {
        return Ok(options.streaming_read_overwrite);
    }
    if !rules.append_overwrite_streaming {
        return Ok(false);
    }
    options
        .streaming_read_append_overwrite
        .get()
        .map_err(|e| e.at(table.path().join("schema")))
}

/// The follow-up loop of `DataTableStreamScan.nextPlan`: the plans of snapshots `next..=end_snapshot`,
/// appended to `splits`. An OVERWRITE snapshot of a table that streams overwrites ([`streams_overwrite`])
/// gives the changes plan (primary-key tables, [`plan_changes`]) or the DELTA plan of its added files (append
/// tables, 2.0 `FollowUpScanner#getOverwriteChangesPlan` with `isAppend`); other snapshots go to the
/// follow-up scanner ([`plan_snapshot`]). Whether the line skips empty plans
/// ([`LineRules::skip_empty_plans`]) does not change the concatenation. The loop stops at the first snapshot
/// `streaming.read.snapshot.delay` holds back ([`super::consumer::SnapshotDelay`]).
pub(crate) fn follow_up_plans(
    table: &Table,
    mut next: i64,
    end_snapshot: i64,
    splits: &mut Vec<Split>,
) -> Result<()> {
    let rules = super::rules(table);
    let overwrite = streams_overwrite(table, rules)?;
    let delay = super::consumer::SnapshotDelay::of(table)?;
    let bound = super::bounded::BoundedWatermark::of(table)?;
    while next <= end_snapshot {
        let snapshot = fetch_snapshot(table, next)?;
        if bound.ends_at(&snapshot) || delay.holds_back(table, &snapshot)? {
            break;
        }
        if snapshot.commit_kind == CommitKind::Overwrite && overwrite {
            if table.is_primary_key_table() {
                splits.extend(plan_changes(table, &snapshot)?);
            } else {
                splits.extend(plan_list(table, &snapshot, FollowUpMode::Delta)?);
            }
        } else {
            splits.extend(plan_snapshot(table, &snapshot)?.unwrap_or_default());
        }
        next += 1;
    }
    Ok(())
}

/// The follow-up plan of one snapshot: `None` when the table's follow-up scanner skips its commit kind,
/// else its splits (possibly none).
///
/// Errors: [`Error::Io`]/[`Error::Avro`] naming a manifest list, manifest or index manifest that cannot be
/// read; [`Error::BinaryRow`] naming the manifest holding a malformed partition; [`Error::Unsupported`]
/// naming the manifest for ORC manifests, unrenderable partition values and files with an external path.
pub(crate) fn plan_snapshot(table: &Table, snapshot: &Snapshot) -> Result<Option<Vec<Split>>> {
    let rule = super::rules(table).changelog_follow_up;
    let Some(mode) = follow_up_of(rule, table.options().changelog_producer, snapshot) else {
        return Ok(None);
    };
    plan_list(table, snapshot, mode).map(Some)
}

/// The streaming splits of the ADD entries of `snapshot`'s delta (`mode` DELTA) or changelog (CHANGELOG)
/// manifest list (`SnapshotReaderImpl.read` with `isStreaming`): deletion files attached when deletion vectors
/// are on and the line attaches them to streaming splits ([`LineRules::streaming_deletion_files`]); the
/// postpone bucket skipped as [`super::real_buckets_only`] says.
///
/// Errors: as [`plan_snapshot`].
fn plan_list(table: &Table, snapshot: &Snapshot, mode: FollowUpMode) -> Result<Vec<Split>> {
    let list = match mode {
        FollowUpMode::Delta => Some(snapshot.delta_manifest_list.as_str()),
        FollowUpMode::Changelog => snapshot.changelog_manifest_list.as_deref(),
    };
    let groups = match list {
        Some(name) => read_added_files(table, name, super::bucket_filter(table, true)?)?,
        None => Vec::new(),
    };
    let dv_index = if streaming_deletion_files(table) && !groups.is_empty() {
        deletion_vector_index(table, snapshot)?
    } else {
        HashMap::new()
    };
    generate_splits(table, snapshot.id, groups, &dv_index)
}

/// Whether streaming splits of `table` carry deletion files: deletion vectors on and
/// [`LineRules::streaming_deletion_files`].
pub(crate) fn streaming_deletion_files(table: &Table) -> bool {
    table.options().deletion_vectors_enabled && super::rules(table).streaming_deletion_files
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
/// * files both deleted and added are dropped from both lists (`before.removeIf(data::remove)`) when the line
///   does so ([`LineRules::changes_drop_common_files`], 1.0; 2.0 compares whole manifest entries, kinds
///   included, and drops nothing);
/// * `is_streaming` true, `raw_convertible` false; with `deletion-vectors.enabled` on a line that attaches
///   deletion files to streaming splits ([`LineRules::streaming_deletion_files`], 1.0), one deletion file (or
///   `None`) per data file from this snapshot's index manifest and per before-file from the index manifest
///   of snapshot `id − 1`;
/// * the postpone bucket skipped as [`super::real_buckets_only`] says.
///
/// Shape: the native [`Split`] with before-files stands for 1.0's `DataSplit` with before-files and 2.0's
/// `IncrementalSplit` (before/after files) alike.
///
/// Errors: [`Error::Snapshot`] when deletion vectors are enabled and snapshot `id − 1` is missing; otherwise
/// as [`read_added_files`] and [`deletion_vector_index`].
pub(crate) fn plan_changes(table: &Table, snapshot: &Snapshot) -> Result<Vec<Split>> {
    let rules = super::rules(table);
    let buckets = super::bucket_filter(table, true)?;
    let list_path = table.manifest_path(&snapshot.delta_manifest_list);
    let mut before = Grouper::new(table);
    let mut after = Grouper::new(table);
    for meta in read_manifest_list(&list_path)? {
        let path = table.manifest_path(&meta.file_name);
        for entry in read_manifest_file(&path)? {
            if !buckets.keeps(entry.bucket) {
                continue;
            }
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
    let dv = streaming_deletion_files(table);
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
            if rules.changes_drop_common_files {
                before_files.retain(|b| match data_files.iter().position(|d| d == b) {
                    Some(i) => {
                        data_files.remove(i);
                        false
                    }
                    None => true,
                });
            }
            let deletion_files = |index: &DeletionVectorIndex, files: &[DataFileMeta]| {
                if !dv {
                    return Vec::new();
                }
                let dvs = index.get(&(partition.clone(), bucket));
                files.iter().map(|f| deletion_file(dvs, f)).collect()
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
                fallback: false,
            });
        }
    }
    Ok(splits)
}

/// Java's `BinaryRow.hashCode()` of a serialized partition row (4-byte arity prefix, then the row):
/// `MurmurHashUtils.hashBytesByWords` (seed 42, little-endian 4-byte words as `MemorySegment.getInt` reads them
/// on x86) over the row bytes.
pub fn binary_row_hash(serialized: &[u8]) -> i32 {
    crate::java::murmur_hash::hash_bytes_by_words(serialized.get(4..).unwrap_or_default())
}
