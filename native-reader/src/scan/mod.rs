//! Split planning of Paimon 1.0.0 to 2.0.0: streaming (`DataTableStreamScan`) and batch (`DataTableBatchScan`,
//! from 1.2 `AbstractBatchTableScan`) scans.
//!
//! The rules below are 1.0.0's. The release a table was opened as ([`Table::open_as`], [`crate::line`])
//! decides every rule that differs; each such decision reads the release's [`LineRules`], and the later
//! values are:
//! * follow-up of `input`/`lookup`/`full-compaction` (from 1.1.0): every snapshot with a
//!   `changelogManifestList`, any commit kind (`ChangelogFollowUpScanner`), [`LineRules::changelog_follow_up`];
//! * full first plan (from 1.3.0): levels > 0 only for changelog-producer `lookup`; follow-ups always from the
//!   next snapshot ([`LineRules::first_plan_lookup_filter`], [`LineRules::dv_first_plan_rereads_start`]);
//! * streaming splits (follow-ups and changes plans, from 1.1.0) carry no deletion files
//!   ([`LineRules::streaming_deletion_files`]); the changes plan drops no common files
//!   ([`LineRules::changes_drop_common_files`]);
//! * batch scans keep level 0 of DV tables with `deletion-vectors.merge-on-read=true` (2.0.0,
//!   [`LineRules::batch_skip_level0`]);
//! * tables with `bucket=-2` (postpone bucket): 1.1.x skips entries of buckets < 0 in every read scan; from
//!   1.2.0 batch scans, and streaming scans with changelog-producer ≠ `none`, skip them; on 1.0.x planning
//!   them is [`Error::Unsupported`] ([`LineRules::postpone_bucket`]);
//! * append tables with `streaming-read-append-overwrite=true` stream the added files of OVERWRITE snapshots
//!   (from 1.2.0, [`LineRules::append_overwrite_streaming`]).
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

mod bin_packing;
mod bounded;
mod consumer;
mod fallback;
mod file_set;
mod follow_up;
mod mode;
mod own_start;
mod split_generator;
mod starting;
#[cfg(test)]
mod tests;

use crate::error::{Error, Result};
use crate::line::{LineRules, PostponeBucket};
use crate::split::Split;
use crate::table::{Table, POSTPONE_BUCKET};

pub use fallback::plan_batch;
pub(crate) use fallback::splits_by_partition;
pub use file_set::{
    deletion_vector_index, manifest_list_record_delta, read_all_files, BucketFiles,
    DeletionVectorIndex, DeletionVectorLocation,
};
pub(crate) use file_set::{read_snapshot_entries, BucketFilter};
pub use follow_up::binary_row_hash;
pub use mode::{ScanMode, SCAN_MODE, SCAN_SNAPSHOT_ID};
pub(crate) use own_start::{resolved_scan_version, SCAN_VERSION};
pub(crate) use own_start::{tag_names, travelled_snapshot, validate_own_options};
pub(crate) use starting::batch_splits_by_partition_at;

/// The snapshot a batch scan that names none reads, when the table's own start options make it one other
/// than the latest (`scan.snapshot-id`, `scan.tag-name` of a kept snapshot, `scan.timestamp-millis`, …):
/// `Ok(Some(Some(id)))`; `Ok(Some(None))` when that scan plans nothing; `Ok(None)` when the start is not
/// one snapshot's batch scan (an increment, a file creation time, an expired tag).
///
/// Errors: as [`plan`]'s start options.
pub(crate) fn own_start_snapshot(table: &Table) -> Result<Option<Option<i64>>> {
    Ok(
        match own_start::with_table_start(table, ScanMode::Batch { snapshot: None })? {
            own_start::Start::Mode(ScanMode::Batch { snapshot: Some(id) }) => Some(Some(id)),
            // A tag's snapshot, while the snapshot is kept (the same file the tag copies).
            own_start::Start::Tagged(tagged)
                if table.snapshot_manager().snapshot_exists(tagged.id) =>
            {
                Some(Some(tagged.id))
            }
            own_start::Start::Nothing => Some(None),
            _ => None,
        },
    )
}
pub use split_generator::data_file_desc;
pub use starting::{plan_latest_full, plan_stream, plan_stream_full};

/// Whether a batch scan of `table` drops level-0 files (`DataTableBatchScan`,
/// [`LineRules::batch_skip_level0`]).
///
/// Errors: [`crate::Error::InvalidOption`] naming the schema directory for an option that is not a boolean.
pub(crate) fn batch_skips_level_0(table: &Table) -> Result<bool> {
    starting::batch_skips_level_0(table, rules(table))
}

/// The rules of the line `table` was opened as.
pub(crate) fn rules(table: &Table) -> &'static LineRules {
    table.release().rules()
}

/// Rejects what the table's line cannot plan: `bucket=-2` (postpone bucket) on a line without it
/// ([`LineRules::postpone_bucket`]), data evolution with deletion vectors on 1.3.x and 1.4.x
/// ([`LineRules::data_evolution_rejects_deletion_vectors`]).
///
/// Errors: [`Error::Unsupported`] naming the table and the option.
pub(crate) fn check_line(table: &Table) -> Result<()> {
    if table.options().bucket == POSTPONE_BUCKET
        && rules(table).postpone_bucket == PostponeBucket::Rejected
    {
        return Err(Error::Unsupported {
            path: table.path().to_path_buf(),
            reason: format!(
                "bucket={POSTPONE_BUCKET} (postpone bucket, since Paimon 1.1) read as Paimon {}, whose \
                 schema validation rejects bucket numbers below 1 other than -1",
                table.release()
            ),
        });
    }
    let options = table.options();
    if rules(table).data_evolution_rejects_deletion_vectors
        && options.data_evolution_enabled
        && options.deletion_vectors_enabled
    {
        return Err(Error::Unsupported {
            path: table.path().to_path_buf(),
            reason: format!(
                "`data-evolution.enabled` with `deletion-vectors.enabled` read as Paimon {}, whose schema \
                 validation rejects the table (\"Data evolution config must disabled with \
                 deletion-vectors.enabled\")",
                table.release()
            ),
        });
    }
    Ok(())
}

/// The bucket filter of a batch (`streaming` false) or streaming scan of `table`: the postpone-bucket rule
/// ([`real_buckets_only`]) and, where the line knows it ([`crate::line::LineRules::scan_bucket`]), the
/// bucket of `scan.bucket` (`AbstractBatchTableScan`, `AbstractFileStoreTable#newStreamScan`).
///
/// Errors: [`Error::InvalidOption`] naming the schema directory when `scan.bucket` is not an integer.
pub(crate) fn bucket_filter(table: &Table, streaming: bool) -> Result<BucketFilter> {
    let only = if rules(table).scan_bucket {
        table
            .options()
            .scan_bucket
            .get()
            .map_err(|e| e.at(table.path().join("schema")))?
    } else {
        None
    };
    Ok(BucketFilter {
        real_only: real_buckets_only(table, streaming),
        only,
    })
}

/// Whether a scan of `table` skips entries of buckets < 0: the table has `bucket=-2`, and the release
/// skips them for this scan ([`PostponeBucket`]: 1.1.x every read scan, `KeyValueFileStore` with
/// `scanType == FOR_READ`; from 1.2.0 a batch scan, or (`streaming`) a streaming scan with changelog-producer
/// ≠ `none`, `SnapshotReader#onlyReadRealBuckets` from the `AbstractBatchTableScan` and
/// `DataTableStreamScan` constructors).
pub(crate) fn real_buckets_only(table: &Table, streaming: bool) -> bool {
    let options = table.options();
    if options.bucket != POSTPONE_BUCKET {
        return false;
    }
    match rules(table).postpone_bucket {
        PostponeBucket::Rejected => false,
        PostponeBucket::EveryReadSkips => true,
        PostponeBucket::BatchAndChangelogStreamsSkip => {
            !streaming || options.changelog_producer != crate::options::ChangelogProducer::None
        }
    }
}

/// The splits of a scan in `mode`: for the streaming modes, every plan until the follow-up position passes
/// `end_snapshot` (splits of later snapshots dropped), concatenated in plan order; for [`ScanMode::Batch`]
/// the one batch plan (`end_snapshot` unused). A table's own start options (`scan.snapshot-id`,
/// `scan.tag-name`, `scan.timestamp-millis`, `scan.file-creation-time-millis`, `scan.creation-time-millis`)
/// say what a batch scan that names no snapshot reads, and fail the scans the release's validation refuses
/// (`own_start`).
///
/// Errors: [`Error::InvalidOption`] for a table's own start option that is not a long, or a start option
/// the mode's validation refuses; [`Error::Snapshot`] for a tag that does not exist or a start time before
/// every snapshot (from 1.1.1); those of [`plan_stream`], [`plan_stream_full`], [`plan_latest_full`] and
/// [`plan_batch`].
pub fn plan(table: &Table, mode: ScanMode, end_snapshot: i64) -> Result<Vec<Split>> {
    table.check_read_options()?;
    let mode = match own_start::with_table_start(table, mode)? {
        own_start::Start::Mode(mode) => mode,
        own_start::Start::Tagged(snapshot) => {
            return starting::plan_batch_of_snapshot(table, *snapshot)
        }
        own_start::Start::CreatedSince(millis) => {
            return starting::plan_batch_created_since(table, millis)
        }
        own_start::Start::Nothing => return Ok(Vec::new()),
        own_start::Start::Planned(splits) => return Ok(splits),
    };
    match mode {
        ScanMode::Stream { from_snapshot } => plan_stream(table, from_snapshot, end_snapshot),
        ScanMode::StreamFull { from_snapshot } => {
            plan_stream_full(table, from_snapshot, end_snapshot)
        }
        ScanMode::LatestFull => plan_latest_full(table, end_snapshot),
        ScanMode::Batch { snapshot } => plan_batch(table, snapshot),
    }
}

/// A scan of one table, the way into planning (`Table.newScan()`/`newStreamScan()`): from [`Table::scan`],
/// planning under the table's line ([`Table::line`]). Planning reads the snapshots and manifests afresh on every call.
#[derive(Clone, Copy, Debug)]
pub struct TableScan<'t> {
    table: &'t Table,
}

impl<'t> TableScan<'t> {
    /// The table this scan plans.
    pub fn table(&self) -> &'t Table {
        self.table
    }

    /// The splits of a scan in `mode` (streaming modes followed up to `end_snapshot`), see [`plan`].
    ///
    /// Errors: as [`plan`].
    pub fn plan(&self, mode: ScanMode, end_snapshot: i64) -> Result<Vec<Split>> {
        plan(self.table, mode, end_snapshot)
    }
}

/// Planning entry points of a [`Table`]: the scans of this module seen from the table (`table.rs` does not
/// depend on `scan/`).
impl Table {
    /// A scan of this table: the way into split planning.
    pub fn scan(&self) -> TableScan<'_> {
        TableScan { table: self }
    }

    /// The splits a Paimon streaming scan (of the table's line) with `scan.mode=from-snapshot`, `scan.snapshot-id=from_snapshot`
    /// returns until its follow-up position passes `end_snapshot` (see [`crate::scan::plan_stream`]): the
    /// first plan is empty, then one plan per accepted snapshot in `max(from, earliest)..=end_snapshot`,
    /// concatenated in snapshot order.
    ///
    /// Errors: [`Error::Snapshot`] naming the first missing snapshot file in the range; [`Error::Avro`],
    /// [`Error::BinaryRow`], [`Error::Io`] naming the manifest that is bad; [`Error::Unsupported`] for what
    /// this planner does not reproduce (ORC manifests, overwrite change plans, sorted partitions, …).
    pub fn plan_stream(&self, from_snapshot: i64, end_snapshot: i64) -> Result<Vec<Split>> {
        plan(self, ScanMode::Stream { from_snapshot }, end_snapshot)
    }

    /// The splits of a batch scan (`DataTableBatchScan.plan()`): the latest snapshot (or the table's own
    /// `scan.snapshot-id`) when `snapshot` is `None`, else `scan.snapshot-id=snapshot` (time travel). See [`crate::scan::plan_batch`] for the file
    /// set, level filters and split generation (`MergeTreeSplitGenerator`, `AppendOnlySplitGenerator`).
    ///
    /// Errors: [`Error::Snapshot`] when `snapshot` is outside `[earliest, latest]`; manifest errors naming
    /// the file as [`Table::plan_stream`].
    pub fn plan_batch(&self, snapshot: Option<i64>) -> Result<Vec<Split>> {
        plan(self, ScanMode::Batch { snapshot }, 0)
    }

    /// The splits of a streaming scan with `scan.mode=from-snapshot-full`, `scan.snapshot-id=from_snapshot`
    /// until its follow-up position passes `end_snapshot`: a full first plan of snapshot
    /// `max(from_snapshot, earliest)`, then the follow-up plans (see [`crate::scan::plan_stream_full`]).
    ///
    /// Errors: [`Error::Snapshot`] when the table has no snapshot or one in the range is missing; as
    /// [`Table::plan_batch`] otherwise.
    pub fn plan_stream_full(&self, from_snapshot: i64, end_snapshot: i64) -> Result<Vec<Split>> {
        plan(self, ScanMode::StreamFull { from_snapshot }, end_snapshot)
    }

    /// The splits of a streaming scan with `scan.mode=latest-full` until its follow-up position passes
    /// `end_snapshot`: a full first plan of the latest snapshot, then the follow-up plans (see
    /// [`crate::scan::plan_latest_full`]).
    ///
    /// Errors: as [`Table::plan_stream_full`].
    pub fn plan_latest_full(&self, end_snapshot: i64) -> Result<Vec<Split>> {
        plan(self, ScanMode::LatestFull, end_snapshot)
    }

    /// The splits of a scan in `mode` (streaming modes followed up to `end_snapshot`), see
    /// [`crate::scan::plan`].
    pub fn plan(&self, mode: ScanMode, end_snapshot: i64) -> Result<Vec<Split>> {
        self.scan().plan(mode, end_snapshot)
    }
}
