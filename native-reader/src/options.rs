//! Typed table options with Paimon 1.0 defaults (`org.apache.paimon.CoreOptions`), parsed once when the
//! table opens ([`CoreOptions::from_map`]).
//!
//! Options Java parses when the table is created or opened (`bucket`, `changelog-producer`, sizes,
//! durations, booleans) fail [`crate::Table::open`] with [`crate::Error::InvalidOption`]. Options Java reads
//! only where a scan or a merge needs them (`merge-engine`, `stream-scan-mode`, `num-levels`,
//! `force-lookup`, `file.format`, `manifest.format`) are typed here too, but a bad value is kept as a
//! [`Deferred`] error and reported where the option is read, so a table whose unused option is bad still
//! reads, as it does with the released reader.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::decode::FileFormat;
use crate::partition::DEFAULT_PARTITION_NAME;

/// Why an option value does not parse; the text is the value as written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ValueError {
    /// Not a 32-bit integer.
    #[error("`{0}` is not an int")]
    NotAnInt(String),
    /// Not `true`/`false` (any case).
    #[error("`{0}` is not a boolean")]
    NotABoolean(String),
    /// Not one of the option's enum values (any case).
    #[error("unknown value `{0}`")]
    UnknownValue(String),
    /// A memory size or duration without a leading number.
    #[error("`{0}` does not start with a number")]
    NoNumber(String),
    /// The number of a memory size or duration does not fit 64 bits.
    #[error("`{0}` overflows a 64-bit number")]
    NumberOverflow(String),
    /// A memory size whose unit is unknown: (unit, value).
    #[error("unknown memory unit `{0}` in `{1}`")]
    MemoryUnit(String, String),
    /// A memory size whose byte count overflows 64 bits.
    #[error("`{0}` overflows 64 bits")]
    MemoryOverflow(String),
    /// A duration whose unit is unknown: (unit, value).
    #[error("unknown time unit `{0}` in `{1}`")]
    TimeUnit(String, String),
    /// Not a 64-bit integer.
    #[error("`{0}` is not a long")]
    NotALong(String),
    /// Set where the scan's startup mode (`scan.mode`, named here) wants it unset
    /// (`SchemaValidation#validateStartupMode`).
    #[error("must be null when you use {0} for scan.mode")]
    MustBeNullInMode(String),
    /// Set together with another option (named here) the scan's startup mode takes instead
    /// (`SchemaValidation#validateStartupMode`).
    #[error("must be null when you set {0}")]
    ConflictsWith(String),
    /// The scan's startup mode (named second) takes exactly one of these options (named first, comma
    /// separated), and not this many (`SchemaValidation#checkExactOneOptionExistInMode`).
    #[error("must set only one key in [{0}] when you use {1} for scan.mode")]
    OnlyOneInMode(String, String),
    /// Unset where the scan's startup mode (named here) needs it
    /// (`SchemaValidation#checkOptionExistInMode`).
    #[error("can not be null when you use {0} for scan.mode")]
    MissingInMode(String),
    /// A column's default value (`fields.<f>.default-value`) that the cast from STRING to the column's type
    /// refuses or throws on (`DefaultValueAssigner#createDefaultValueRow`): (value, why).
    #[error("default value `{0}` does not cast to the column's type: {1}")]
    DefaultValue(String, String),
    /// A value the release's scan refuses with this message (`IllegalArgumentException`), e.g. an
    /// `incremental-between` range outside the snapshots kept.
    #[error("{0}")]
    Refused(String),
}

/// A table option whose value does not parse: `option `{key}`: {error}`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("option `{key}`: {error}")]
pub struct InvalidOption {
    /// The option key, e.g. `bucket`.
    pub key: String,
    /// Why its value does not parse.
    pub error: ValueError,
}

impl InvalidOption {
    pub(crate) fn new(key: &str, error: ValueError) -> Self {
        InvalidOption {
            key: key.to_string(),
            error,
        }
    }

    /// The [`crate::Error::InvalidOption`] of this option in the schema at `path`.
    pub fn at(&self, path: impl Into<std::path::PathBuf>) -> crate::Error {
        crate::Error::InvalidOption {
            path: path.into(),
            key: self.key.clone(),
            reason: self.error.clone(),
        }
    }
}

/// The value of an option Java reads only where it is used: typed when the table opens, its parse error kept
/// and reported by the reader of the option (as Java's `CoreOptions` getters throw at the call).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deferred<T> {
    value: Result<T, InvalidOption>,
    /// The value as written, lower-cased (for enum options; empty for the others).
    text: String,
}

impl<T: Copy> Deferred<T> {
    fn ok(value: T) -> Self {
        Deferred {
            value: Ok(value),
            text: String::new(),
        }
    }

    fn of(value: Result<T, InvalidOption>) -> Self {
        Deferred {
            value,
            text: String::new(),
        }
    }

    /// The typed value, or the option's parse error.
    pub fn get(&self) -> Result<T, &InvalidOption> {
        self.value.as_ref().copied()
    }

    /// True when the value parsed and equals `v`.
    pub fn is(&self, v: T) -> bool
    where
        T: PartialEq,
    {
        self.value.as_ref().is_ok_and(|x| *x == v)
    }
}

/// An enum option's value as text: its name, e.g. `first-row`.
pub trait OptionName: Copy + 'static {
    /// The option value as Paimon spells it (lower case).
    fn as_str(&self) -> &'static str;
    /// Every value.
    const ALL: &'static [Self];
}

impl<T: OptionName> Deferred<T> {
    /// Parses an enum option (any case), `default` when unset; an unknown value is kept lower-cased.
    fn parse(key: &str, text: Option<&str>, default: T) -> Self {
        let Some(text) = text else {
            return Deferred::ok(default);
        };
        let lower = text.to_ascii_lowercase();
        let value = T::ALL
            .iter()
            .copied()
            .find(|v| v.as_str() == lower)
            .ok_or_else(|| InvalidOption::new(key, ValueError::UnknownValue(text.to_string())));
        Deferred { value, text: lower }
    }

    /// The value's name, or the unknown value as written, lower-cased.
    pub fn as_str(&self) -> &str {
        match &self.value {
            Ok(v) => v.as_str(),
            Err(_) => &self.text,
        }
    }
}

impl<T: OptionName> std::fmt::Display for Deferred<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<T: OptionName> PartialEq<&str> for Deferred<T> {
    /// Compares with the option's lower-case text, e.g. `options.merge_engine == "first-row"`.
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// `merge-engine` (`CoreOptions.MergeEngine`): how records of one primary key merge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MergeEngine {
    /// `deduplicate` (default): the latest record wins.
    Deduplicate,
    /// `partial-update`: the latest non-null value of each field wins.
    PartialUpdate,
    /// `aggregation`: per-field aggregate functions.
    Aggregation,
    /// `first-row`: the first record wins.
    FirstRow,
}

impl OptionName for MergeEngine {
    fn as_str(&self) -> &'static str {
        match self {
            MergeEngine::Deduplicate => "deduplicate",
            MergeEngine::PartialUpdate => "partial-update",
            MergeEngine::Aggregation => "aggregation",
            MergeEngine::FirstRow => "first-row",
        }
    }
    const ALL: &'static [Self] = &[
        MergeEngine::Deduplicate,
        MergeEngine::PartialUpdate,
        MergeEngine::Aggregation,
        MergeEngine::FirstRow,
    ];
}

/// `changelog-producer` (`CoreOptions.ChangelogProducer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChangelogProducer {
    /// `none` (default): streaming reads the delta of APPEND snapshots.
    None,
    /// `input`: writers double-write input records to changelog files.
    Input,
    /// `full-compaction`: changelog produced by full compactions.
    FullCompaction,
    /// `lookup`: changelog produced by lookup compaction before commit.
    Lookup,
}

impl ChangelogProducer {
    /// The option value, e.g. `full-compaction`.
    pub fn as_str(&self) -> &'static str {
        OptionName::as_str(self)
    }
}

impl OptionName for ChangelogProducer {
    fn as_str(&self) -> &'static str {
        match self {
            ChangelogProducer::None => "none",
            ChangelogProducer::Input => "input",
            ChangelogProducer::FullCompaction => "full-compaction",
            ChangelogProducer::Lookup => "lookup",
        }
    }
    const ALL: &'static [Self] = &[
        ChangelogProducer::None,
        ChangelogProducer::Input,
        ChangelogProducer::FullCompaction,
        ChangelogProducer::Lookup,
    ];
}

/// `stream-scan-mode` (`CoreOptions.StreamScanMode`): `none` for user scans, the others are internal scans
/// of dedicated compaction and monitor jobs, which this reader does not plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamScanMode {
    /// `none` (default).
    None,
    /// `compact-bucket-table`.
    CompactBucketTable,
    /// `file-monitor`.
    FileMonitor,
}

impl OptionName for StreamScanMode {
    fn as_str(&self) -> &'static str {
        match self {
            StreamScanMode::None => "none",
            StreamScanMode::CompactBucketTable => "compact-bucket-table",
            StreamScanMode::FileMonitor => "file-monitor",
        }
    }
    const ALL: &'static [Self] = &[
        StreamScanMode::None,
        StreamScanMode::CompactBucketTable,
        StreamScanMode::FileMonitor,
    ];
}

/// `sort-engine` (`CoreOptions.SortEngine`): how a merge read sorts the records of a section's runs
/// (`SortMergeReader.createSortMergeReader`). Both give the records of one key in ascending sequence order
/// (`sequence.field`, then `_SEQUENCE_NUMBER`); they differ only for records of equal key and sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SortEngine {
    /// `loser-tree` (default): `SortMergeReaderWithLoserTree`.
    LoserTree,
    /// `min-heap`: `SortMergeReaderWithMinHeap`, a `java.util.PriorityQueue` refilled batch by batch.
    MinHeap,
}

impl OptionName for SortEngine {
    fn as_str(&self) -> &'static str {
        match self {
            SortEngine::LoserTree => "loser-tree",
            SortEngine::MinHeap => "min-heap",
        }
    }
    const ALL: &'static [Self] = &[SortEngine::LoserTree, SortEngine::MinHeap];
}

impl OptionName for FileFormat {
    fn as_str(&self) -> &'static str {
        match self {
            FileFormat::Parquet => "parquet",
            FileFormat::Orc => "orc",
            FileFormat::Avro => "avro",
            FileFormat::Blob => "blob",
            FileFormat::Row => "row",
            FileFormat::Lance => "lance",
            FileFormat::Vortex => "vortex",
            FileFormat::Csv => "csv",
            FileFormat::Json => "json",
            FileFormat::Text => "text",
        }
    }
    // `.blob` files hold one column of a data-evolution table; no table's `file.format`.
    const ALL: &'static [Self] = &[
        FileFormat::Parquet,
        FileFormat::Orc,
        FileFormat::Avro,
        FileFormat::Row,
        FileFormat::Lance,
        FileFormat::Vortex,
        FileFormat::Csv,
        FileFormat::Json,
        FileFormat::Text,
    ];
}

/// Typed table options with Paimon 1.0 defaults (`org.apache.paimon.CoreOptions`). Only the options this
/// reader needs are typed; every option as written stays in [`crate::schema::TableSchema::options`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreOptions {
    /// `bucket`, default −1 (dynamic bucket for PK tables, bucket-unaware for append tables).
    pub bucket: i32,
    /// `changelog-producer`, default `none`.
    pub changelog_producer: ChangelogProducer,
    /// `merge-engine` (any case), default `deduplicate`; an unknown engine is rejected by the merge.
    pub merge_engine: Deferred<MergeEngine>,
    /// `file.format` (any case), default `parquet` (`orc` for schema files of version ≤ 2, applied by the
    /// schema reader). Data files are decoded by their extension.
    pub file_format: Deferred<FileFormat>,
    /// `manifest.format` (any case), default `avro`. Manifests are decoded by their magic bytes.
    pub manifest_format: Deferred<FileFormat>,
    /// `partition.default-name`, default `__DEFAULT_PARTITION__`.
    pub partition_default_name: String,
    /// `partition.legacy-name`, default true.
    pub partition_legacy_name: bool,
    /// `deletion-vectors.enabled`, default false.
    pub deletion_vectors_enabled: bool,
    /// `data-evolution.enabled` (`CoreOptions.DATA_EVOLUTION_ENABLED`, 1.3+), default false: files may hold
    /// some columns of a row-id range, merged on read (see [`crate::line::LineRules::data_evolution`]).
    pub data_evolution_enabled: bool,
    /// `row-tracking.enabled` (`CoreOptions.ROW_TRACKING_ENABLED`, 1.3+), default false: append files carry a
    /// first row id, and `$row_tracking` reads `_ROW_ID` and `_SEQUENCE_NUMBER`.
    pub row_tracking_enabled: bool,
    /// `sequence.snapshot-ordering` (`CoreOptions.SEQUENCE_SNAPSHOT_ORDERING`, 2.0), default false: a merge
    /// read orders the records of APPEND files by their commit's snapshot id (see
    /// [`crate::line::LineRules::snapshot_sequence_ordering`]).
    pub snapshot_sequence_ordering: bool,
    /// `source.split.target-size` in bytes, default 128 MiB.
    pub split_target_size: i64,
    /// `source.split.open-file-cost` in bytes, default 4 MiB.
    pub split_open_file_cost: i64,
    /// `blob.split-by-file-size` (`CoreOptions.blobSplitByFileSize`, 1.4+), default `!blob-as-descriptor`: a
    /// `.blob` file weighs its size when a data-evolution scan bin-packs row-id groups, else the open-file cost.
    pub blob_split_by_file_size: bool,
    /// `data-file.path-directory`: data directories live under `<table>/<this>/` when set.
    pub data_file_path_directory: Option<String>,
    /// `streaming-read-overwrite`, default false.
    pub streaming_read_overwrite: bool,
    /// `scan.plan-sort-partition`, default false.
    pub scan_plan_sort_partition: bool,
    /// `ignore-delete` (fallback keys `first-row.`, `deduplicate.`, `partial-update.ignore-delete`), default false.
    pub ignore_delete: bool,
    /// `sequence.field`, unset by default.
    pub sequence_field: Option<String>,
    /// `stream-scan-mode` (any case), default `none`; streaming plans reject the others.
    pub stream_scan_mode: Deferred<StreamScanMode>,
    /// `sort-engine` (any case), default `loser-tree`; read where a merge read is built (`MergeSorter`).
    pub sort_engine: Deferred<SortEngine>,
    /// `num-levels`, else `num-sorted-run.compaction-trigger` + 1 (trigger default 5); read by the full first
    /// plan of a streaming scan.
    pub num_levels: Deferred<i32>,
    /// `force-lookup`, default false; read by the full first plan of a streaming scan.
    pub force_lookup: Deferred<bool>,
    /// `deletion-vectors.merge-on-read` (2.0, default false): batch scans of DV tables keep level-0 files.
    /// Read by the 2.0 line only ([`crate::line::BatchSkipLevel0`]).
    pub deletion_vectors_merge_on_read: Deferred<bool>,
    /// `streaming-read-append-overwrite` (2.0, default false): streaming scans of append tables read the
    /// added files of OVERWRITE snapshots. Read by the 2.0 line only
    /// ([`crate::line::LineRules::append_overwrite_streaming`]).
    pub streaming_read_append_overwrite: Deferred<bool>,
    /// `scan.bucket` (`CoreOptions.SCAN_BUCKET`, 2.0, unset by default): the one bucket the data table's scans
    /// plan. Read by the 2.0 line only ([`crate::line::LineRules::scan_bucket`]).
    pub scan_bucket: Deferred<Option<i32>>,
    /// `batch-scan-mode` (`CoreOptions.BATCH_SCAN_MODE`, 1.3, default `none`) is `compact` (any case): batch
    /// scans keep the level-0 files they would skip. Read from 1.3 only
    /// ([`crate::line::LineRules::batch_scan_mode`]).
    pub batch_scan_compact: Deferred<bool>,
    /// `scan.ignore-lost-files` (`CoreOptions.SCAN_IGNORE_LOST_FILE`, 1.4, default false). Read from 1.4
    /// only ([`crate::line::LineRules::ignore_failed_files`]).
    pub scan_ignore_lost_files: Deferred<bool>,
    /// `scan.ignore-corrupt-files` (`CoreOptions.SCAN_IGNORE_CORRUPT_FILE`, 1.4, default false). Read from
    /// 1.4 only ([`crate::line::LineRules::ignore_failed_files`]).
    pub scan_ignore_corrupt_files: Deferred<bool>,
    /// `CoreOptions.changelogLifecycleDecoupled()`: `changelog.num-retained.max` > `snapshot.num-retained.max`,
    /// or `changelog.time-retained` > `snapshot.time-retained`, or `changelog.num-retained.min` >
    /// `snapshot.num-retained.min` (changelog options default to the snapshot ones).
    pub changelog_lifecycle_decoupled: bool,
}

impl Default for CoreOptions {
    fn default() -> Self {
        CoreOptions {
            bucket: -1,
            changelog_producer: ChangelogProducer::None,
            merge_engine: Deferred::ok(MergeEngine::Deduplicate),
            file_format: Deferred::ok(FileFormat::Parquet),
            manifest_format: Deferred::ok(FileFormat::Avro),
            partition_default_name: DEFAULT_PARTITION_NAME.into(),
            partition_legacy_name: true,
            deletion_vectors_enabled: false,
            data_evolution_enabled: false,
            row_tracking_enabled: false,
            snapshot_sequence_ordering: false,
            split_target_size: 128 << 20,
            split_open_file_cost: 4 << 20,
            blob_split_by_file_size: true,
            data_file_path_directory: None,
            streaming_read_overwrite: false,
            scan_plan_sort_partition: false,
            ignore_delete: false,
            sequence_field: None,
            stream_scan_mode: Deferred::ok(StreamScanMode::None),
            sort_engine: Deferred::ok(SortEngine::LoserTree),
            num_levels: Deferred::ok(6),
            force_lookup: Deferred::ok(false),
            deletion_vectors_merge_on_read: Deferred::ok(false),
            streaming_read_append_overwrite: Deferred::ok(false),
            scan_bucket: Deferred::ok(None),
            batch_scan_compact: Deferred::ok(false),
            scan_ignore_lost_files: Deferred::ok(false),
            scan_ignore_corrupt_files: Deferred::ok(false),
            changelog_lifecycle_decoupled: false,
        }
    }
}

impl CoreOptions {
    /// Types the options of a schema file, applying defaults for absent keys.
    ///
    /// Errors: [`InvalidOption`] naming the option when a value Java parses at open cannot be parsed the way
    /// Java parses it: integers, booleans (`true`/`false`, any case), memory sizes (`128 mb`, `4mb`, bytes
    /// without unit), durations (`1 h`, `30 min`, milliseconds without unit) and `changelog-producer` (any
    /// case). Bad values of the [`Deferred`] options are kept, not returned.
    pub fn from_map(options: &BTreeMap<String, String>) -> Result<CoreOptions, InvalidOption> {
        let d = CoreOptions::default();
        let get = |k: &str| options.get(k).map(String::as_str);
        let bool_opt = |k: &str, default: bool| -> Result<bool, InvalidOption> {
            get(k).map_or(Ok(default), |v| {
                parse_bool(v).map_err(|e| InvalidOption::new(k, e))
            })
        };
        let int_opt = |k: &str, default: i32| -> Result<i32, InvalidOption> {
            get(k).map_or(Ok(default), |v| {
                v.trim()
                    .parse::<i32>()
                    .map_err(|_| InvalidOption::new(k, ValueError::NotAnInt(v.to_string())))
            })
        };
        let size_opt = |k: &str, default: i64| -> Result<i64, InvalidOption> {
            get(k).map_or(Ok(default), |v| {
                parse_memory_size(v).map_err(|e| InvalidOption::new(k, e))
            })
        };
        let duration_opt = |k: &str| -> Result<Option<Duration>, InvalidOption> {
            get(k)
                .map(|v| parse_duration(v).map_err(|e| InvalidOption::new(k, e)))
                .transpose()
        };
        let changelog_producer = Deferred::parse(
            "changelog-producer",
            get("changelog-producer"),
            d.changelog_producer,
        )
        .value?;
        let ignore_delete = [
            "ignore-delete",
            "first-row.ignore-delete",
            "deduplicate.ignore-delete",
            "partial-update.ignore-delete",
        ]
        .iter()
        .find(|k| options.contains_key(**k))
        .map_or(Ok(false), |k| bool_opt(k, false))?;

        let snap_min = int_opt("snapshot.num-retained.min", 10)?;
        let snap_max = int_opt("snapshot.num-retained.max", i32::MAX)?;
        let snap_time =
            duration_opt("snapshot.time-retained")?.unwrap_or(Duration::from_secs(3600));
        let cl_min = int_opt("changelog.num-retained.min", snap_min)?;
        let cl_max = int_opt("changelog.num-retained.max", snap_max)?;
        let cl_time = duration_opt("changelog.time-retained")?.unwrap_or(snap_time);

        // Read lazily by Java: parsed now, errors kept for the reader of the option.
        let num_levels = match get("num-levels") {
            Some(_) => int_opt("num-levels", 0),
            None => int_opt("num-sorted-run.compaction-trigger", 5).map(|t| t.wrapping_add(1)),
        };

        Ok(CoreOptions {
            bucket: int_opt("bucket", d.bucket)?,
            changelog_producer,
            merge_engine: Deferred::parse(
                "merge-engine",
                get("merge-engine"),
                MergeEngine::Deduplicate,
            ),
            file_format: Deferred::parse("file.format", get("file.format"), FileFormat::Parquet),
            manifest_format: Deferred::parse(
                "manifest.format",
                get("manifest.format"),
                FileFormat::Avro,
            ),
            partition_default_name: get("partition.default-name")
                .map_or(d.partition_default_name, str::to_string),
            partition_legacy_name: bool_opt("partition.legacy-name", true)?,
            deletion_vectors_enabled: bool_opt("deletion-vectors.enabled", false)?,
            data_evolution_enabled: bool_opt("data-evolution.enabled", false)?,
            row_tracking_enabled: bool_opt("row-tracking.enabled", false)?,
            snapshot_sequence_ordering: bool_opt("sequence.snapshot-ordering", false)?,
            split_target_size: size_opt("source.split.target-size", d.split_target_size)?,
            split_open_file_cost: size_opt("source.split.open-file-cost", d.split_open_file_cost)?,
            blob_split_by_file_size: bool_opt(
                "blob.split-by-file-size",
                !bool_opt("blob-as-descriptor", false)?,
            )?,
            data_file_path_directory: get("data-file.path-directory").map(str::to_string),
            streaming_read_overwrite: bool_opt("streaming-read-overwrite", false)?,
            scan_plan_sort_partition: bool_opt("scan.plan-sort-partition", false)?,
            ignore_delete,
            sequence_field: get("sequence.field").map(str::to_string),
            stream_scan_mode: Deferred::parse(
                "stream-scan-mode",
                get("stream-scan-mode"),
                StreamScanMode::None,
            ),
            sort_engine: Deferred::parse("sort-engine", get("sort-engine"), SortEngine::LoserTree),
            num_levels: Deferred::of(num_levels),
            force_lookup: Deferred::of(bool_opt("force-lookup", false)),
            deletion_vectors_merge_on_read: Deferred::of(bool_opt(
                "deletion-vectors.merge-on-read",
                false,
            )),
            streaming_read_append_overwrite: Deferred::of(bool_opt(
                "streaming-read-append-overwrite",
                false,
            )),
            scan_bucket: Deferred::of(
                get("scan.bucket")
                    .map(|_| int_opt("scan.bucket", 0))
                    .transpose(),
            ),
            batch_scan_compact: Deferred::of(match get("batch-scan-mode") {
                None => Ok(false),
                Some(v) if v.eq_ignore_ascii_case("none") => Ok(false),
                Some(v) if v.eq_ignore_ascii_case("compact") => Ok(true),
                Some(v) => Err(InvalidOption::new(
                    "batch-scan-mode",
                    ValueError::UnknownValue(v.to_string()),
                )),
            }),
            scan_ignore_lost_files: Deferred::of(bool_opt("scan.ignore-lost-files", false)),
            scan_ignore_corrupt_files: Deferred::of(bool_opt("scan.ignore-corrupt-files", false)),
            changelog_lifecycle_decoupled: cl_max > snap_max
                || cl_time > snap_time
                || cl_min > snap_min,
        })
    }
}

pub(crate) fn parse_bool(v: &str) -> Result<bool, ValueError> {
    match v.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(ValueError::NotABoolean(v.to_string())),
    }
}

/// Splits `<digits><blanks><unit>` the way `MemorySize.parseBytes`/`TimeUtils.parseDuration` do.
fn number_and_unit(text: &str) -> Result<(i64, String), ValueError> {
    let t = text.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Err(ValueError::NoNumber(text.to_string()));
    }
    let n = t[..digits]
        .parse::<i64>()
        .map_err(|_| ValueError::NumberOverflow(text.to_string()))?;
    Ok((n, t[digits..].trim().to_lowercase()))
}

/// `MemorySize.parseBytes`: a number and an optional unit (`b`, `k`/`kb`, `m`/`mb`, `g`/`gb`, `t`/`tb`,
/// powers of 1024, and their long names); bytes without unit.
///
/// Errors: [`ValueError`] for a missing number, an unknown unit or a byte count over 64 bits.
pub fn parse_memory_size(text: &str) -> Result<i64, ValueError> {
    let (n, unit) = number_and_unit(text)?;
    let mult: i64 = match unit.as_str() {
        "" | "b" | "bytes" => 1,
        "k" | "kb" | "kibibytes" => 1 << 10,
        "m" | "mb" | "mebibytes" => 1 << 20,
        "g" | "gb" | "gibibytes" => 1 << 30,
        "t" | "tb" | "tebibytes" => 1 << 40,
        other => return Err(ValueError::MemoryUnit(other.to_string(), text.to_string())),
    };
    n.checked_mul(mult)
        .ok_or_else(|| ValueError::MemoryOverflow(text.to_string()))
}

/// `TimeUtils.parseDuration`: a number and an optional unit (`d`/`day(s)`, `h`/`hour(s)`,
/// `min`/`m`/`minute(s)`, `s`/`sec(s)`/`second(s)`, `ms`/`milli(s)`/`millisecond(s)`,
/// `µs`/`micro(s)`/`microsecond(s)`, `ns`/`nano(s)`/`nanosecond(s)`); milliseconds without unit.
///
/// Errors: [`ValueError`] for a missing number or an unknown unit.
pub fn parse_duration(text: &str) -> Result<Duration, ValueError> {
    let (n, unit) = number_and_unit(text)?;
    let n = n as u64;
    let d = match unit.as_str() {
        "" | "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => Duration::from_millis(n),
        "d" | "day" | "days" => Duration::from_secs(n.saturating_mul(86_400)),
        "h" | "hour" | "hours" => Duration::from_secs(n.saturating_mul(3600)),
        "min" | "m" | "minute" | "minutes" => Duration::from_secs(n.saturating_mul(60)),
        "s" | "sec" | "secs" | "second" | "seconds" => Duration::from_secs(n),
        "µs" | "micro" | "micros" | "microsecond" | "microseconds" => Duration::from_micros(n),
        "ns" | "nano" | "nanos" | "nanosecond" | "nanoseconds" => Duration::from_nanos(n),
        other => return Err(ValueError::TimeUnit(other.to_string(), text.to_string())),
    };
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pairs: &[(&str, &str)]) -> Result<CoreOptions, InvalidOption> {
        CoreOptions::from_map(
            &pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn defaults() {
        let o = opts(&[]).unwrap();
        assert_eq!(o, CoreOptions::default());
        assert_eq!(o.bucket, -1);
        assert_eq!(o.split_target_size, 134_217_728);
        assert_eq!(o.split_open_file_cost, 4_194_304);
        assert!(!o.changelog_lifecycle_decoupled);
    }

    #[test]
    fn parses_values() {
        let o = opts(&[
            ("bucket", "4"),
            ("changelog-producer", "FULL-COMPACTION"),
            ("merge-engine", "partial-update"),
            ("deletion-vectors.enabled", "TRUE"),
            ("source.split.target-size", "64 mb"),
            ("source.split.open-file-cost", "1kb"),
            ("partition.default-name", "null_part"),
            ("partition-update.ignore-delete", "true"),
            ("partial-update.ignore-delete", "true"),
        ])
        .unwrap();
        assert_eq!(o.bucket, 4);
        assert_eq!(o.changelog_producer, ChangelogProducer::FullCompaction);
        assert_eq!(o.merge_engine, "partial-update");
        assert!(o.deletion_vectors_enabled);
        assert_eq!(o.split_target_size, 64 << 20);
        assert_eq!(o.split_open_file_cost, 1024);
        assert_eq!(o.partition_default_name, "null_part");
        assert!(o.ignore_delete);
        assert!(opts(&[("bucket", "x")]).is_err());
        assert!(opts(&[("changelog-producer", "sometimes")]).is_err());
        assert!(opts(&[("deletion-vectors.enabled", "yes")]).is_err());
        assert!(opts(&[("source.split.target-size", "12 parsecs")]).is_err());
    }

    #[test]
    fn changelog_decoupling() {
        // snapshot.num-retained.max defaults to Integer.MAX_VALUE: a changelog max alone never exceeds it
        assert!(
            !opts(&[("changelog.num-retained.max", "100")])
                .unwrap()
                .changelog_lifecycle_decoupled
        );
        assert!(
            opts(&[
                ("snapshot.num-retained.max", "50"),
                ("changelog.num-retained.max", "100")
            ])
            .unwrap()
            .changelog_lifecycle_decoupled
        );
        assert!(
            opts(&[("changelog.time-retained", "2 h")])
                .unwrap()
                .changelog_lifecycle_decoupled
        );
        assert!(
            !opts(&[("changelog.time-retained", "60 min")])
                .unwrap()
                .changelog_lifecycle_decoupled
        );
        assert!(
            opts(&[("changelog.num-retained.min", "11")])
                .unwrap()
                .changelog_lifecycle_decoupled
        );
        assert!(
            !opts(&[
                ("snapshot.num-retained.min", "20"),
                ("changelog.num-retained.min", "20")
            ])
            .unwrap()
            .changelog_lifecycle_decoupled
        );
    }

    #[test]
    fn durations_and_sizes() {
        assert_eq!(parse_duration("1 h").unwrap(), Duration::from_secs(3600));
        assert_eq!(parse_duration("500").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2d").unwrap(), Duration::from_secs(172_800));
        assert_eq!(parse_duration("3 MIN").unwrap(), Duration::from_secs(180));
        assert!(parse_duration("h").is_err());
        assert_eq!(parse_memory_size("128 mb").unwrap(), 128 << 20);
        assert_eq!(parse_memory_size("10").unwrap(), 10);
        assert_eq!(parse_memory_size(" 2 GB ").unwrap(), 2 << 30);
        assert!(parse_memory_size("99999999999 tb").is_err());
    }
}
