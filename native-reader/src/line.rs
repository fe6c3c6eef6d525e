//! Releases of Apache Paimon the native reader can mimic, and the rules that differ between them.
//!
//! The native reader plans (and, through hooks, decodes and merges) the way one released Java reader does:
//! the release under test. [`PaimonRelease`] names the release (`1.0.0`, `1.0.1`, `1.1.1`, `1.2.0`, `1.3.1`,
//! `1.4.2`, `2.0.0`: every release whose jars the registries here serve) and [`LineRules`] holds every rule
//! that differs between releases as data, one row per release ([`PaimonRelease::rules`]). Planning
//! (`scan/`), merging (`merge/`) and decoding read the rules instead of testing the version, so a further
//! release is one more enum variant, one more row and one more entry of [`PaimonRelease::ALL`].
//!
//! Rules are keyed by release, not by minor line: 1.0.0 and 1.0.1 differ (`sequence.field` under
//! aggregation, sequence-group fields under partial-update). The first release of each rule, with the Paimon
//! commit that brought it, is in `shared/docs/paimon-1.x-lines.md` §2 and §6; releases not listed here
//! (1.1.0, 1.3.0, 1.3.2, 1.4.1) agree with the listed release of their minor line on every rule below, but
//! are refused because the stock side cannot load them here (their jars do not resolve).
//!
//! The release is chosen by the caller (the harness takes it from the release whose class path the stock
//! side runs) and carried by the [`crate::Table`] it opens ([`crate::Table::open_as`]);
//! [`PaimonRelease::default`] is 1.0.0, so callers that do not choose keep the 1.0.0 behaviour.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

mod field_bunches;
mod files_table;
mod incremental_diff;
pub use field_bunches::FieldBunches;
pub use files_table::FilesTable;
pub use incremental_diff::IncrementalDiff;

/// A release of Apache Paimon whose reader the native reader mimics. Ordered by release (`V1_0_0 <
/// V1_0_1 < … < V2_0_0`), so a rule that first appeared in release R holds for `release >= R`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PaimonRelease {
    /// Paimon 1.0.0 (`release-1.0.0`, f5d600525f).
    #[default]
    V1_0_0,
    /// Paimon 1.0.1 (`release-1.0.1`, c07ec05d28).
    V1_0_1,
    /// Paimon 1.1.1 (`release-1.1.1`, 9b7265d50d).
    V1_1_1,
    /// Paimon 1.2.0 (`release-1.2.0`, f4c28643bb).
    V1_2_0,
    /// Paimon 1.3.1 (`release-1.3.1`, 28dfdfed24).
    V1_3_1,
    /// Paimon 1.4.2 (`release-1.4.2`, ac223f47d9).
    V1_4_2,
    /// Paimon 2.0.0 (`release-2.0.0`, 604e6d5e13).
    V2_0_0,
}

impl PaimonRelease {
    /// Every supported release, oldest first.
    pub const ALL: [PaimonRelease; 7] = [
        PaimonRelease::V1_0_0,
        PaimonRelease::V1_0_1,
        PaimonRelease::V1_1_1,
        PaimonRelease::V1_2_0,
        PaimonRelease::V1_3_1,
        PaimonRelease::V1_4_2,
        PaimonRelease::V2_0_0,
    ];

    /// The supported releases as one comma-separated list (`1.0.0, 1.0.1, …, 2.0.0`), for messages.
    pub fn supported_list() -> String {
        PaimonRelease::ALL
            .iter()
            .map(|r| r.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The release of a version string: exactly one of [`PaimonRelease::ALL`]'s names (`1.0.0`, `1.3.1`,
    /// …). Surrounding blanks and a `-SNAPSHOT` or `-rcN` suffix (a release candidate's jar) are accepted.
    ///
    /// Errors: [`Error::UnsupportedRelease`] naming `version` and listing the supported releases for any
    /// other text (another patch release such as `1.3.2`, a minor line such as `1.0.x`, `3.0.0`, text that is
    /// not a version).
    pub fn parse(version: &str) -> Result<PaimonRelease> {
        let trimmed = version.trim();
        let core = trimmed.split(['-', '+']).next().unwrap_or_default();
        PaimonRelease::ALL
            .into_iter()
            .find(|r| r.name() == core)
            .ok_or_else(|| Error::UnsupportedRelease {
                version: version.to_owned(),
                reason: format!(
                    "the native reader implements the releases {}",
                    PaimonRelease::supported_list()
                ),
            })
    }

    /// The release's version: `1.0.0`, `1.3.1`, `2.0.0`.
    pub fn name(self) -> &'static str {
        match self {
            PaimonRelease::V1_0_0 => "1.0.0",
            PaimonRelease::V1_0_1 => "1.0.1",
            PaimonRelease::V1_1_1 => "1.1.1",
            PaimonRelease::V1_2_0 => "1.2.0",
            PaimonRelease::V1_3_1 => "1.3.1",
            PaimonRelease::V1_4_2 => "1.4.2",
            PaimonRelease::V2_0_0 => "2.0.0",
        }
    }

    /// The rules of this release (one row of the table).
    pub fn rules(self) -> &'static LineRules {
        match self {
            PaimonRelease::V1_0_0 => &V1_0_0_RULES,
            PaimonRelease::V1_0_1 => &V1_0_1_RULES,
            PaimonRelease::V1_1_1 => &V1_1_1_RULES,
            PaimonRelease::V1_2_0 => &V1_2_0_RULES,
            PaimonRelease::V1_3_1 => &V1_3_1_RULES,
            PaimonRelease::V1_4_2 => &V1_4_2_RULES,
            PaimonRelease::V2_0_0 => &V2_0_0_RULES,
        }
    }
}

impl fmt::Display for PaimonRelease {
    /// `1.0.0`, `2.0.0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PaimonRelease {
    type Err = Error;

    /// As [`PaimonRelease::parse`].
    fn from_str(s: &str) -> Result<Self> {
        PaimonRelease::parse(s)
    }
}

/// Which snapshots the follow-up scanner of changelog-producer `input`, `lookup` and `full-compaction` plans
/// (`none` is `DeltaFollowUpScanner` in every release: APPEND snapshots, `ScanMode.DELTA`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangelogFollowUp {
    /// 1.0.x: by commit kind. `input` plans APPEND snapshots (`InputChangelogFollowUpScanner`),
    /// `lookup`/`full-compaction` COMPACT snapshots (`CompactionChangelogFollowUpScanner`); `ScanMode.CHANGELOG`.
    ByCommitKind,
    /// From 1.1.0: every snapshot whose `changelogManifestList` is non-null, whatever its commit kind
    /// (`ChangelogFollowUpScanner`); `ScanMode.CHANGELOG`.
    WithChangelogManifest,
}

/// Which tables the full first plan of a streaming scan (`DataTableStreamScan#tryFirstPlan`) reads at levels
/// above 0 only (`full-compaction` reads the top level only in every release).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstPlanLookupFilter {
    /// Up to 1.2.0, `CoreOptions#needLookup`: changelog-producer `lookup`, deletion vectors, merge-engine
    /// `first-row` or `force-lookup`.
    NeedLookup,
    /// From 1.3.0: changelog-producer `lookup` only.
    LookupProducer,
}

/// When a batch scan of a primary-key table drops level-0 files (`DataTableBatchScan` in 1.0, `CoreOptions
/// #batchScanSkipLevel0` from 1.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchSkipLevel0 {
    /// Every 1.x: deletion vectors enabled, or merge-engine `first-row` (from 1.3 also only when
    /// `batch-scan-mode` is `none`, the only value this reader accepts).
    DeletionVectorsOrFirstRow,
    /// 2.0: with deletion vectors, unless `deletion-vectors.merge-on-read=true`; without, merge-engine
    /// `first-row`.
    DeletionVectorsUnlessMergeOnRead,
}

/// The files a batch scan of `$ro` (`ReadOptimizedTable`) of a primary-key table reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadOptimizedLevels {
    /// 1.0.x: `withLevelFilter(level == num-levels − 1)`, which `DataTableBatchScan` replaces with its own
    /// `level > 0` filter when it skips level 0 ([`BatchSkipLevel0`]).
    TopUnlessBatchSkipsLevel0,
    /// From 1.1.0: `withLevel(num-levels − 1)`, kept beside the batch scan's level filter: the top level.
    Top,
}

/// What a release does with a table whose `bucket` is `-2` (the postpone bucket, `BucketMode
/// .POSTPONE_BUCKET`, written under `bucket-postpone/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PostponeBucket {
    /// 1.0.x: no such bucket; the table is [`Error::Unsupported`] (1.0's `SchemaValidation` rejects bucket
    /// numbers below 1 other than -1).
    Rejected,
    /// 1.1.x: every read scan, batch or streaming, skips entries of buckets < 0 (`KeyValueFileStore`,
    /// `POSTPONE_BUCKET && scanType == FOR_READ`).
    EveryReadSkips,
    /// From 1.2.0: batch scans skip buckets < 0, streaming scans only with changelog-producer ≠ `none`
    /// (`SnapshotReader#onlyReadRealBuckets` from the `DataTableStreamScan` and `AbstractBatchTableScan`
    /// constructors).
    BatchAndChangelogStreamsSkip,
}

/// The aggregate function of the `sequence.field` columns of a `merge-engine=aggregation` table
/// (`AggregateMergeFunction#getAggFuncName`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SequenceFieldAggregation {
    /// 1.0.0: like any column (its `fields.<f>.aggregate-function`, else the default).
    Default,
    /// 1.0.1 (apache/paimon#4977): `last_non_null_value`.
    LastNonNullValue,
    /// From 1.1.0 (apache/paimon#5065): `last_value`.
    LastValue,
}

/// Which record above level 0 `LookupMergeFunction` keeps of one key's records (it merges the records of
/// level 0 with that one only). Applied on read too, for `CoreOptions#needLookup` tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LookupPick {
    /// Up to 1.1.x: the last record above level 0 in merge (sequence) order (`candidates
    /// .descendingIterator()`).
    Latest,
    /// From 1.2.0 (apache/paimon#5632): the record on the lowest positive level, the first of equal levels
    /// (`pickHighLevel`).
    LowestLevel,
}

/// The Arrow timezone of a `TIMESTAMP WITH LOCAL TIME ZONE` column (decode hook; not read by planning).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimestampLtzZone {
    /// Every 1.x paimon-arrow: the JVM default zone (`ZoneId.systemDefault()`), which the native reader takes
    /// as it does today.
    JvmDefault,
    /// 2.0 paimon-arrow (`ArrowFieldTypeConversion`): `"UTC"`.
    Utc,
}

/// What a batch scan of a table's own `scan.timestamp-millis` reads when no snapshot is that old
/// (`SnapshotManager#earlierOrEqualTimeMills`, `StaticFromTimestampStartingScanner`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimestampBeforeEarliest {
    /// 1.0.x: the earliest snapshot (`earlierOrEqualTimeMills` returns it when its time is later); a table
    /// without a snapshot plans nothing.
    ReadsEarliest,
    /// 1.1.1: the scan fails (`There is currently no snapshot earlier than or equal to timestamp [T], the
    /// earliest snapshot's timestamp is [E]`), as it does on a table without a snapshot; `$manifests` lists
    /// the latest snapshot's (`TimeTravelUtil#resolveSnapshotFromOptions` falls back to it).
    FailsScan,
    /// From 1.2.0: the scan and `$manifests` fail (`TimeTravelUtil#tryTravelToSnapshot` builds the same
    /// starting scanner).
    Fails,
}

/// A batch scan of a table's own `incremental-between=<start>,<end>` (snapshot ids; delta or changelog
/// files of the snapshots after `start` up to `end`), or `incremental-between-timestamp` (commit times, each
/// naming the latest snapshot committed at or before it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IncrementalBetween {
    /// 1.0.x (`IncrementalStartingScanner`): a value that is not two longs names two tags
    /// (`IncrementalTagStartingScanner`); `start` must not pass `end`; a table without a snapshot plans
    /// nothing; the splits are batch splits, read merged (`DropDeleteReader` included) as any batch split.
    /// Times (`IncrementalTimeStampStartingScanner`) must be two longs; a table without a snapshot fails.
    BatchSplits,
    /// From 1.1.1 (`IncrementalDeltaStartingScanner`): two existing tags are read first; `end` must not be
    /// before `start`, and `start == end` or a table without a snapshot plans nothing; the splits are
    /// streaming splits, every record read with its RowKind, unmerged. Times (`betweenTimestamps`) are two
    /// longs or else two local times (`DateTimeUtils#parseTimestampData`), the end not before the start.
    StreamingSplits,
}

/// The nullability of the value field of an Arrow map (decode hook; not read by planning).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapValueNullability {
    /// Up to 1.2.0 paimon-arrow (`ArrowUtils`, `mapType.getValueType().notNull()`): forced NOT NULL.
    ForcedNotNull,
    /// From 1.3.0 paimon-arrow: nullable as the Paimon value type says.
    FromType,
}

/// The rules that differ between releases, one value per rule (one row of the table per release, see
/// [`PaimonRelease::rules`]). Field docs give the values and the Java class they come from; the first release
/// of each value is in `shared/docs/paimon-1.x-lines.md` §2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineRules {
    /// Follow-up scanner of `input`/`lookup`/`full-compaction` (`DataTableStreamScan#createFollowUpScanner`).
    pub changelog_follow_up: ChangelogFollowUp,
    /// Level filter of the full first plan for lookup-style tables (`DataTableStreamScan#tryFirstPlan`).
    pub first_plan_lookup_filter: FirstPlanLookupFilter,
    /// Up to 1.2.0 true: after a full first plan of a table with deletion vectors but no lookup changelog,
    /// the follow-up starts at the same snapshot (its level-0 files are read again as a delta); from 1.3.0
    /// false: always `currentSnapshotId + 1`.
    pub dv_first_plan_rereads_start: bool,
    /// From 1.3.0 true: `nextPlan` skips plans without splits, so one `plan()` call can pass several
    /// snapshots (before, false: it returns the empty plan). Concatenated splits are the same either way, so
    /// the native planner, which returns the concatenation, does not branch on it; it documents how the stock
    /// side's plan loop behaves (its stop rule, `jvm_bridge::scan_options::StreamStop`, holds for both).
    pub skip_empty_plans: bool,
    /// 1.0.x true: streaming splits (DELTA/CHANGELOG follow-ups and the overwrite changes plan) carry the
    /// deletion files of their data files; from 1.1.0 false (`SnapshotReaderImpl#generateSplits` and
    /// `toIncrementalPlan` read the DV index only when not streaming).
    pub streaming_deletion_files: bool,
    /// Level-0 skipping of batch scans of primary-key tables.
    pub batch_skip_level0: BatchSkipLevel0,
    /// The levels `$ro` reads of a primary-key table.
    pub read_optimized_levels: ReadOptimizedLevels,
    /// Tables with `bucket=-2` (the postpone bucket).
    pub postpone_bucket: PostponeBucket,
    /// From 1.2.0 true: an append table with `streaming-read-append-overwrite=true` streams an OVERWRITE
    /// snapshot as the ADD files of its delta (`AppendOnlyFileStoreTable#supportStreamingReadOverwrite`,
    /// `FollowUpScanner#getOverwriteChangesPlan` with `isAppend`); before, false (append tables never stream
    /// overwrites; the option does not exist).
    pub append_overwrite_streaming: bool,
    /// 1.0.x true: the overwrite changes plan drops files both deleted and added (`before.removeIf(data::
    /// remove)` on `DataFileMeta`s). From 1.1.0 false: the dedup compares whole `ManifestEntry`s, whose kinds
    /// (DELETE before, ADD after) always differ, so nothing is dropped.
    pub changes_drop_common_files: bool,
    /// How a TIMESTAMP value becomes a TIME of day in a schema-evolution cast (`TimestampToTimeCastRule`).
    pub timestamp_to_time: TimestampToTime,
    /// What `nested_update` (`FieldNestedUpdateAgg.agg`) makes of a NULL accumulator.
    pub nested_update_null_accumulator: NestedUpdateNullAccumulator,
    /// The aggregate function of `sequence.field` columns under `merge-engine=aggregation` (an aggregate
    /// function configured on a sequence field itself is refused by every release's schema validation).
    pub sequence_field_aggregation: SequenceFieldAggregation,
    /// 1.0.0 true: under `merge-engine=partial-update`, the sequence fields of `fields.<seq>.sequence-group`
    /// get an aggregator like other columns (their `aggregate-function`, else `fields.default-aggregate-
    /// function`); from 1.0.1 (apache/paimon#4897) false: sequence fields are never aggregated
    /// (`PartialUpdateMergeFunction.Factory#createFieldAggregators`).
    pub partial_update_aggregates_sequence_fields: bool,
    /// What a partial-update key without a non-retract record merges to, and what the row a `-D` removes
    /// holds under `partial-update.remove-record-on-delete` and `aggregation.remove-record-on-delete`
    /// (`PartialUpdateMergeFunction` `meetInsert`, and both functions' `initRow`). Seen where the merge
    /// keeps `-D` results (`$audit_log`).
    pub init_row: InitRow,
    /// Which record above level 0 `LookupMergeFunction` keeps for lookup tables
    /// (`PrimaryKeyFileStoreTable` wraps the merge function of reads too).
    pub lookup_pick: LookupPick,
    /// Up to 1.2.0 true: the reader fills a column's NULLs with `fields.<f>.default-value`
    /// (`DefaultValueAssigner`, removed in 1.3.0 by apache/paimon#5804), as [`crate::merge::default_values`]
    /// does.
    pub read_time_default_values: bool,
    /// How a table with `data-evolution.enabled` is planned and read (`DataEvolutionSplitGenerator`,
    /// `DataEvolutionSplitRead`): which files form a row-id group, merged column by column, each column
    /// from the newest file (`_MAX_SEQUENCE_NUMBER`) whose `_WRITE_COLS` hold it.
    pub data_evolution: DataEvolution,
    /// 1.0.0 true: the Parquet reader factory, one per (schema id, format) in a split read
    /// (`RawFileSplitRead.formatReaderMappings`), remembers every column a file lacked
    /// (`ParquetReaderFactory.unknownFieldsIndices`, an instance field) and reads it as NULL in every later
    /// file of the split with that schema id, even files that hold it. Only files that hold some columns
    /// (data evolution, `_WRITE_COLS`, written by 1.3+) lack any. From 1.0.1 false: the default reader is
    /// `VectorizedParquetRecordReader`, which reads each file's own columns (the old one stays behind
    /// `parquet.use-old-reader`).
    pub parquet_missing_columns_sticky: bool,
    /// Which partitions a batch scan of a table with `scan.fallback-branch` reads from the fallback branch
    /// (`FallbackReadFileStoreTable.FallbackReadScan#plan`).
    pub fallback_branch: FallbackBranch,
    /// The type names the release's schema parser knows (`DataTypeJsonParser`): a schema with a later type
    /// fails to parse there, so the table is refused as a whole.
    pub type_names: TypeNames,
    /// 1.3.x and 1.4.x true: schema validation refuses a table with both `data-evolution.enabled` and
    /// `deletion-vectors.enabled` when the table is opened (`SchemaValidation`: "Data evolution config must
    /// disabled with deletion-vectors.enabled"). 2.0 reads such tables (deletion vectors of row-id groups).
    pub data_evolution_rejects_deletion_vectors: bool,
    /// How a row-id group's `.blob` and vector-store files are read: merged as any file (up to 1.3), in
    /// chains (1.4), or with BLOB placeholders (2.0).
    pub field_bunches: FieldBunches,
    /// 2.0.0 true: with `sequence.snapshot-ordering`, a merge read gives every record of an APPEND file the
    /// file's `_MIN_SEQUENCE_NUMBER` (the commit's snapshot id) as its sequence number
    /// (`KeyValueFileReaderFactory`); earlier releases know no such option and use the stored ones.
    pub snapshot_sequence_ordering: bool,
    /// 2.0.0 true: `scan.bucket` restricts the batch and streaming scans of the data table (and so `$ro`,
    /// `$audit_log`, `$binlog`, `$files` and `$partitions`, which scan through it) to that bucket's manifest
    /// entries (`AbstractBatchTableScan`, `AbstractFileStoreTable#newStreamScan`, `withBucket`); earlier
    /// releases know no such option.
    pub scan_bucket: bool,
    /// From 1.3.0 true: batch scans skip level 0 (under [`LineRules::batch_skip_level0`]) only when
    /// `batch-scan-mode` is `none`, the default; `compact` keeps level-0 files, merged on read
    /// (`AbstractBatchTableScan`, #5790). Earlier releases know no such option.
    pub batch_scan_mode: bool,
    /// From 1.4 true: a primary-key table with `table-read.sequence-number.enabled=true` reads as
    /// `$audit_log` and `$binlog` with `_SEQUENCE_NUMBER` (BIGINT NOT NULL) after `rowkind`, each row's
    /// `KeyValue.sequenceNumber` (`AuditLogTable`, `key-value.sequence_number.enabled` on its data read).
    /// Earlier releases know no such option.
    pub audit_log_sequence_number: bool,
    /// From 1.4 true: `scan.ignore-lost-files` and `scan.ignore-corrupt-files` skip a data file whose reader
    /// fails to open, lost (`FileIO.exists` is false) or corrupt (it exists), instead of failing
    /// (`DataFileRecordReader#createReader`); a failure after the file opened ends the file there
    /// (`readBatch`). Earlier releases know no such options.
    pub ignore_failed_files: bool,
    /// From 1.3 true: `streaming.read.snapshot.delay` compares the time of the snapshot the follow-up
    /// fetched, a long-lived changelog where the snapshot expired (`shouldDelaySnapshot(Snapshot)`); before,
    /// the snapshot file's alone, and a snapshot that expired is never held back (`shouldDelaySnapshot(long)`).
    pub snapshot_delay_of_fetched: bool,
    /// A table's own `scan.timestamp-millis` older than every snapshot, in a batch scan.
    pub timestamp_before_earliest: TimestampBeforeEarliest,
    /// A table's own `incremental-between` of snapshot ids, in a batch scan.
    pub incremental_between: IncrementalBetween,
    /// How a diff split (`incremental-between` of two tags, `incremental-between-scan-mode=diff`) is read.
    pub incremental_diff: IncrementalDiff,
    /// From 1.4.2 true: `incremental-between-tag-to-snapshot=true` reads two tags as the increment between
    /// their snapshot ids (`IncrementalDeltaStartingScanner#betweenSnapshotIds`) instead of their diff.
    /// Earlier releases know no such option.
    pub incremental_tag_to_snapshot: bool,
    /// From 1.3.0 true: a shredded Parquet VARIANT (`typed_value`) is rebuilt (`PaimonShreddingUtils`,
    /// apache/paimon#5901); before, false: the reader looks up `value` and `metadata` alone (refused by name).
    pub variant_shredding: bool,
    /// The columns of the `$snapshots` system table (`SnapshotsTable.TABLE_TYPE`).
    pub snapshots_table: SnapshotsTable,
    /// The columns of `$manifests`.
    pub manifests_table: ManifestsTable,
    /// The columns, partition strings and file set of `$partitions` and `$buckets` (`PartitionsTable`,
    /// `BucketsTable`).
    pub partitions_table: PartitionsTable,
    /// The columns, partition string, file set and stats of `$files` (`FilesTable`).
    pub files_table: FilesTable,
    /// Arrow timezone of `TIMESTAMP_LTZ` columns (decode hook, wired by the decode side).
    pub timestamp_ltz_zone: TimestampLtzZone,
    /// Nullability of Arrow map values (decode hook, wired by the decode side).
    pub map_value_nullability: MapValueNullability,
}

/// The columns of `$snapshots` ([`LineRules::snapshots_table`]), each value adding one to the last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotsTable {
    /// Up to 1.3.x: `snapshot_id` … `watermark` (13 columns).
    UpToWatermark,
    /// 1.4.x: and `next_row_id`.
    WithNextRowId,
    /// 2.0: and `operation`.
    WithOperation,
}

/// The columns of `$manifests` ([`LineRules::manifests_table`]), each value adding to the last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ManifestsTable {
    /// 1.0.0: `file_name`, `file_size`, `num_added_files`, `num_deleted_files`, `schema_id`.
    Counts,
    /// 1.0.1: and `min_partition_stats`, `max_partition_stats`, the partition bounds as `Arrays.toString`
    /// of their internal values (`[v1, v2]`, a DATE as its day count).
    WithPartitionArrays,
    /// 1.1.x to 1.3.x: the partition bounds cast to STRING (`RowToStringCastRule`: `{v1, v2}`).
    WithPartitionStats,
    /// From 1.4: and `min_row_id`, `max_row_id`.
    WithRowIds,
}

/// `$partitions` and `$buckets` ([`LineRules::partitions_table`]): how the partition column renders the
/// partition, which files `$partitions` counts and its columns. `$buckets` has the same six columns in every
/// release and renders its partition as `$partitions` does up to 1.3.x (`{…}` from 1.1.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PartitionsTable {
    /// 1.0.x: `[v1, v2]` (`Arrays.toString` of the internal values: DATE as its day number, NULL `null`),
    /// sorted as Java strings; `$partitions` lists the batch scan's files (level 0 skipped where the batch
    /// scan skips it); 5 columns.
    ArrayString,
    /// 1.1.x and 1.2.x: `{v1, v2}` (`RowToStringCastRule`: each value CAST to STRING, NULL `null`), sorted
    /// as UTF-8 bytes; the batch scan's files.
    RowString,
    /// 1.3.x: `RowString`, `$partitions` counting every level (`withLevelFilter(level -> true)`).
    RowStringAllLevels,
    /// 1.4.x: `$partitions`' partition `k1=v1/k2=v2` (the legacy spec read back as the partition type, NULL
    /// the default partition name), and `created_at`, `created_by`, `updated_by`, `options` (9 columns).
    Spec,
    /// 2.0: and `total_buckets`, `done`, `deleted_record_count` (12 columns).
    SpecWithBuckets,
}

/// The type names a release's schema parser knows ([`LineRules::type_names`]); each later one adds to the
/// earlier ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TypeNames {
    /// 1.0.x: neither VARIANT, BLOB nor VECTOR.
    Classic,
    /// 1.1.0 to 1.3.x: VARIANT (#4757).
    Variant,
    /// From 1.4.1: BLOB and VECTOR too (#6268, #7204).
    BlobAndVector,
}

impl TypeNames {
    /// The first type in `t` (itself or nested) this release's parser does not know, with the first release
    /// that knows it: `("BLOB", "1.4.1")`; `None` when it knows them all.
    pub fn unknown_in(self, t: &crate::schema::DataType) -> Option<(&'static str, &'static str)> {
        use crate::schema::TypeKind;
        let mut found = None;
        t.visit(&mut |k| {
            let later = match k {
                TypeKind::Variant if self < TypeNames::Variant => Some(("VARIANT", "1.1.0")),
                TypeKind::Blob if self < TypeNames::BlobAndVector => Some(("BLOB", "1.4.1")),
                TypeKind::Vector(..) if self < TypeNames::BlobAndVector => {
                    Some(("VECTOR", "1.4.1"))
                }
                _ => None,
            };
            found = found.or(later);
        });
        found
    }
}

/// Row-id groups of a data-evolution table ([`LineRules::data_evolution`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataEvolution {
    /// Up to 1.2.0: the readers know neither `_FIRST_ROW_ID` nor `_WRITE_COLS` and read every file as a
    /// plain file of whole rows (the columns a file lacks NULL).
    Unknown,
    /// 1.3.x: files sorted by `_FIRST_ROW_ID` then `_MAX_SEQUENCE_NUMBER` descending; files with the same
    /// first row id are one group (`DataEvolutionSplitGenerator.split`); overlapping groups are an error.
    ByFirstRowId,
    /// From 1.4: files whose row-id ranges overlap are one group (`RangeHelper.mergeOverlappingRanges`),
    /// groups in row-id order, files in manifest order (sorted newest first when merged).
    ByRowIdRange,
}

impl DataEvolution {
    /// Whether this release reads data-evolution tables as such (1.3.0 on).
    pub fn known(self) -> bool {
        self != DataEvolution::Unknown
    }
}

/// A batch scan of a table with `scan.fallback-branch` ([`LineRules::fallback_branch`]): the main branch's
/// splits, then the fallback branch's splits of the partitions the main branch does not have, each read by
/// its own branch's table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FallbackBranch {
    /// 1.0.x and 1.1.x: planned as 1.2's, but splits carry no mark of their branch: the read picks the
    /// fallback branch's table for every split whose first file has a key (`minKey().getFieldCount() > 0`,
    /// a primary-key table's; refused by name for one the main branch planned), the main branch's for the
    /// others, whichever branch planned them.
    KeyedFilesReadByFallback,
    /// 1.2.x and 1.3.x: the main branch has a partition when its batch plan has a split of it
    /// (`completePartitions` from `mainScan.plan()`); splits are `FallbackDataSplit`s.
    PlannedPartitions,
    /// 1.4 on: the main branch has a partition when a partition listing of its batch scan has it
    /// (`listPartitions()`, whatever the plan keeps of it); `scan.primary-branch` puts the other branch
    /// first (`wrappedFirst` false).
    ListedPartitions,
}

impl FallbackBranch {
    /// Whether the release knows `scan.primary-branch` (`CoreOptions.SCAN_PRIMARY_BRANCH`, 1.4 on): the
    /// branch read first, the main branch read for the partitions it lacks.
    pub fn primary_branch_known(self) -> bool {
        self == FallbackBranch::ListedPartitions
    }
}

/// TIMESTAMP (without time zone) to TIME in `TimestampToTimeCastRule`: the milliseconds of the day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimestampToTime {
    /// Every 1.x: `(int) (millis % MILLIS_PER_DAY)`, negative for instants before 1970 (an invalid TIME).
    Remainder,
    /// 2.0: `(int) Math.floorMod(millis, MILLIS_PER_DAY)`, always in `0..86_400_000`.
    FloorMod,
}

/// The merge functions' row initialisation from a record (`initRow`): `PartialUpdateMergeFunction`'s at the
/// first retract record of a key and for the row a `-D` removes under `partial-update.remove-record-on-delete`;
/// `AggregateMergeFunction`'s for the row a `-D` removes under `aggregation.remove-record-on-delete` (1.1 on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitRow {
    /// 1.0.x: none; a partial-update key merges to `+I` (its row what the non-retract records set), a
    /// removed row is all NULL; `aggregation.remove-record-on-delete` does not exist.
    None,
    /// 1.1.0 to 1.3.x: a key without a non-retract record merges to `-D` (`meetInsert`); `initRow` sets the
    /// record's NOT NULL fields only (failing on a NULL in one).
    NotNullFields,
    /// From 1.4.0: as [`InitRow::NotNullFields`], but `initRow` sets every field.
    AllFields,
}

/// `FieldNestedUpdateAgg.agg(accumulator = NULL, input)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NestedUpdateNullAccumulator {
    /// Every 1.x: the input array as it is, NULL elements included.
    KeepsInput,
    /// 2.0: the input's non-NULL rows (`addNonNullRows`), through the key map when `nested-key` is set;
    /// 2.0 also adds `nested-sequence-field` and `nested-key-null-strategy` (and 1.3 `count-limit`), which
    /// this reader refuses as unsupported unless at their defaults.
    NonNullRows,
}

/// The rules of Paimon 1.0.0.
pub const V1_0_0_RULES: LineRules = LineRules {
    changelog_follow_up: ChangelogFollowUp::ByCommitKind,
    first_plan_lookup_filter: FirstPlanLookupFilter::NeedLookup,
    dv_first_plan_rereads_start: true,
    skip_empty_plans: false,
    streaming_deletion_files: true,
    batch_skip_level0: BatchSkipLevel0::DeletionVectorsOrFirstRow,
    read_optimized_levels: ReadOptimizedLevels::TopUnlessBatchSkipsLevel0,
    postpone_bucket: PostponeBucket::Rejected,
    append_overwrite_streaming: false,
    changes_drop_common_files: true,
    timestamp_to_time: TimestampToTime::Remainder,
    nested_update_null_accumulator: NestedUpdateNullAccumulator::KeepsInput,
    sequence_field_aggregation: SequenceFieldAggregation::Default,
    partial_update_aggregates_sequence_fields: true,
    init_row: InitRow::None,
    lookup_pick: LookupPick::Latest,
    read_time_default_values: true,
    data_evolution: DataEvolution::Unknown,
    parquet_missing_columns_sticky: true,
    fallback_branch: FallbackBranch::KeyedFilesReadByFallback,
    type_names: TypeNames::Classic,
    snapshots_table: SnapshotsTable::UpToWatermark,
    manifests_table: ManifestsTable::Counts,
    partitions_table: PartitionsTable::ArrayString,
    files_table: FilesTable::ArrayPartition,
    data_evolution_rejects_deletion_vectors: false,
    field_bunches: FieldBunches::None,
    snapshot_sequence_ordering: false,
    scan_bucket: false,
    batch_scan_mode: false,
    audit_log_sequence_number: false,
    ignore_failed_files: false,
    snapshot_delay_of_fetched: false,
    timestamp_before_earliest: TimestampBeforeEarliest::ReadsEarliest,
    incremental_between: IncrementalBetween::BatchSplits,
    incremental_diff: IncrementalDiff::AfterSecondByValue,
    incremental_tag_to_snapshot: false,
    variant_shredding: false,
    timestamp_ltz_zone: TimestampLtzZone::JvmDefault,
    map_value_nullability: MapValueNullability::ForcedNotNull,
};

/// The rules of Paimon 1.0.1: 1.0.0's, with apache/paimon#4977 (sequence fields under aggregation),
/// #4897 (sequence-group fields under partial-update), the vectorized Parquet reader by default and the
/// partition bounds in `$manifests`.
pub const V1_0_1_RULES: LineRules = LineRules {
    parquet_missing_columns_sticky: false,
    manifests_table: ManifestsTable::WithPartitionArrays,
    sequence_field_aggregation: SequenceFieldAggregation::LastNonNullValue,
    partial_update_aggregates_sequence_fields: false,
    ..V1_0_0_RULES
};

/// The rules of Paimon 1.1.1: the changelog-manifest follow-up and no deletion files on streaming splits
/// (#5095, #5058), whole-entry dedup of the changes plan (#5343), `last_value` for sequence fields (#5065),
/// the postpone bucket skipped by every read (#5095), the VARIANT type (#4757) and `$ro`'s own level
/// (`withLevel`, no longer replaced by the batch scan's level filter), a batch scan of a time before every
/// snapshot failing (`earlierOrEqualTimeMills` no longer returns the earliest), and the increments of
/// `incremental-between` read as streaming splits (`IncrementalDeltaStartingScanner`).
pub const V1_1_1_RULES: LineRules = LineRules {
    timestamp_before_earliest: TimestampBeforeEarliest::FailsScan,
    incremental_between: IncrementalBetween::StreamingSplits,
    incremental_diff: IncrementalDiff::AfterSecondByValueAndKind,
    init_row: InitRow::NotNullFields,
    changelog_follow_up: ChangelogFollowUp::WithChangelogManifest,
    streaming_deletion_files: false,
    changes_drop_common_files: false,
    sequence_field_aggregation: SequenceFieldAggregation::LastValue,
    postpone_bucket: PostponeBucket::EveryReadSkips,
    type_names: TypeNames::Variant,
    read_optimized_levels: ReadOptimizedLevels::Top,
    manifests_table: ManifestsTable::WithPartitionStats,
    partitions_table: PartitionsTable::RowString,
    files_table: FilesTable::CastPartition,
    ..V1_0_1_RULES
};

/// The rules of Paimon 1.2.0: 1.1.1's, with the postpone bucket's read rule of 2.0 (#5783), append-table
/// overwrite streaming (#5593), the lowest-level lookup pick (#5632), fallback splits marked as such, and
/// `$manifests` of a time before every snapshot failing as the scan does (`TimeTravelUtil`).
pub const V1_2_0_RULES: LineRules = LineRules {
    timestamp_before_earliest: TimestampBeforeEarliest::Fails,
    postpone_bucket: PostponeBucket::BatchAndChangelogStreamsSkip,
    append_overwrite_streaming: true,
    lookup_pick: LookupPick::LowestLevel,
    fallback_branch: FallbackBranch::PlannedPartitions,
    files_table: FilesTable::DeleteRowCount,
    ..V1_1_1_RULES
};

/// The rules of Paimon 1.3.1: 1.2.0's, with the lookup-producer first plan and no re-read of its start
/// (#5866), empty plans skipped (#5931), no read-time default values (#5804), nullable map values in
/// Arrow (#5922) and data-evolution reads (#6038).
pub const V1_3_1_RULES: LineRules = LineRules {
    batch_scan_mode: true,
    snapshot_delay_of_fetched: true,
    variant_shredding: true,
    first_plan_lookup_filter: FirstPlanLookupFilter::LookupProducer,
    dv_first_plan_rereads_start: false,
    skip_empty_plans: true,
    read_time_default_values: false,
    map_value_nullability: MapValueNullability::FromType,
    data_evolution: DataEvolution::ByFirstRowId,
    data_evolution_rejects_deletion_vectors: true,
    partitions_table: PartitionsTable::RowStringAllLevels,
    files_table: FilesTable::AllLevels,
    ..V1_2_0_RULES
};

/// The rules of Paimon 1.4.2: 1.3.1's (still `DeletionVectorsOrFirstRow`, `Remainder`, `KeepsInput`, the
/// JVM zone), with data-evolution groups by overlapping row-id ranges and the fallback branch read for the
/// partitions the main branch does not list, and the BLOB and VECTOR types.
pub const V1_4_2_RULES: LineRules = LineRules {
    init_row: InitRow::AllFields,
    incremental_tag_to_snapshot: true,
    audit_log_sequence_number: true,
    ignore_failed_files: true,
    data_evolution: DataEvolution::ByRowIdRange,
    fallback_branch: FallbackBranch::ListedPartitions,
    type_names: TypeNames::BlobAndVector,
    snapshots_table: SnapshotsTable::WithNextRowId,
    manifests_table: ManifestsTable::WithRowIds,
    partitions_table: PartitionsTable::Spec,
    files_table: FilesTable::RowIds,
    field_bunches: FieldBunches::Chains,
    ..V1_3_1_RULES
};

/// The rules of Paimon 2.0.0: 1.4.2's, with deletion-vector merge-on-read batch scans (#7948), the
/// `floorMod` TIMESTAMP→TIME cast (#8769), `nested_update`'s non-NULL rows (#8272), `TIMESTAMP_LTZ` in
/// UTC (#7364), BLOB placeholders and `sequence.snapshot-ordering`.
pub const V2_0_0_RULES: LineRules = LineRules {
    batch_skip_level0: BatchSkipLevel0::DeletionVectorsUnlessMergeOnRead,
    incremental_diff: IncrementalDiff::AfterByValueAndKind,
    timestamp_to_time: TimestampToTime::FloorMod,
    nested_update_null_accumulator: NestedUpdateNullAccumulator::NonNullRows,
    timestamp_ltz_zone: TimestampLtzZone::Utc,
    snapshots_table: SnapshotsTable::WithOperation,
    partitions_table: PartitionsTable::SpecWithBuckets,
    files_table: FilesTable::WriteColsStats,
    data_evolution_rejects_deletion_vectors: false,
    field_bunches: FieldBunches::BlobPlaceholders,
    snapshot_sequence_ordering: true,
    scan_bucket: true,
    ..V1_4_2_RULES
};

#[cfg(test)]
mod tests;
