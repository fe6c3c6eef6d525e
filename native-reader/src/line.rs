//! Release lines of Apache Paimon the native reader can mimic, and the rules that differ between them.
//!
//! The native reader plans (and, through hooks, decodes) the way one released Java reader does: the release
//! under test. [`PaimonLine`] names the line (`1.0.x`, `2.0.x`) and [`LineRules`] holds every rule that
//! differs between lines as data, one row per line ([`PaimonLine::rules`]). Planning (`scan/`) reads the
//! rules instead of testing the version, so a further line (e.g. 1.4) is one more enum variant and one more
//! row.
//!
//! The line is chosen by the caller (the harness takes it from the release whose class path the stock side
//! runs) and carried by the [`crate::Table`] it opens ([`crate::Table::open_as`]); [`PaimonLine::default`]
//! is 1.0, so callers that do not choose keep the 1.0 behaviour.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// A release line of Apache Paimon whose reader the native reader mimics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PaimonLine {
    /// Paimon 1.0.x (`release-1.0.0`, `release-1.0.1`).
    #[default]
    V1_0,
    /// Paimon 2.0.x (`release-2.0.0`).
    V2_0,
}

impl PaimonLine {
    /// Every line, oldest first.
    pub const ALL: [PaimonLine; 2] = [PaimonLine::V1_0, PaimonLine::V2_0];

    /// The line of a release version string: `1.0.0`, `1.0.1`, `1.0.x` → [`PaimonLine::V1_0`]; `2.0.0`,
    /// `2.0.x` → [`PaimonLine::V2_0`]. Surrounding blanks and a `-SNAPSHOT`/`-rcN` suffix are accepted.
    ///
    /// Errors: [`Error::UnsupportedRelease`] naming `version` for any other release (1.1–1.4, 3.x, text
    /// that is not a version).
    pub fn parse(version: &str) -> Result<PaimonLine> {
        let trimmed = version.trim();
        let core = trimmed.split(['-', '+']).next().unwrap_or_default();
        let mut parts = core.split('.');
        let (major, minor) = (parts.next(), parts.next());
        let patch_ok = parts
            .next()
            .is_none_or(|p| p == "x" || (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())))
            && parts.next().is_none();
        match (major, minor, patch_ok) {
            (Some("1"), Some("0"), true) => Ok(PaimonLine::V1_0),
            (Some("2"), Some("0"), true) => Ok(PaimonLine::V2_0),
            _ => Err(Error::UnsupportedRelease {
                version: version.to_owned(),
                reason: "the native reader implements the 1.0.x and 2.0.x lines only".into(),
            }),
        }
    }

    /// The line's name as a version pattern: `1.0.x`, `2.0.x`.
    pub fn name(self) -> &'static str {
        match self {
            PaimonLine::V1_0 => "1.0.x",
            PaimonLine::V2_0 => "2.0.x",
        }
    }

    /// The rules of this line (one row of the table).
    pub fn rules(self) -> &'static LineRules {
        match self {
            PaimonLine::V1_0 => &V1_0_RULES,
            PaimonLine::V2_0 => &V2_0_RULES,
        }
    }
}

impl fmt::Display for PaimonLine {
    /// `1.0.x`, `2.0.x`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PaimonLine {
    type Err = Error;

    /// As [`PaimonLine::parse`].
    fn from_str(s: &str) -> Result<Self> {
        PaimonLine::parse(s)
    }
}

/// Which snapshots the follow-up scanner of changelog-producer `input`, `lookup` and `full-compaction` plans
/// (`none` is `DeltaFollowUpScanner` in every line: APPEND snapshots, `ScanMode.DELTA`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangelogFollowUp {
    /// 1.0: by commit kind. `input` plans APPEND snapshots (`InputChangelogFollowUpScanner`),
    /// `lookup`/`full-compaction` COMPACT snapshots (`CompactionChangelogFollowUpScanner`); `ScanMode.CHANGELOG`.
    ByCommitKind,
    /// 2.0: every snapshot whose `changelogManifestList` is non-null, whatever its commit kind
    /// (`ChangelogFollowUpScanner`); `ScanMode.CHANGELOG`.
    WithChangelogManifest,
}

/// Which tables the full first plan of a streaming scan (`DataTableStreamScan#tryFirstPlan`) reads at levels
/// above 0 only (`full-compaction` reads the top level only in every line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstPlanLookupFilter {
    /// 1.0 `CoreOptions#needLookup`: changelog-producer `lookup`, deletion vectors, merge-engine `first-row`
    /// or `force-lookup`.
    NeedLookup,
    /// 2.0: changelog-producer `lookup` only.
    LookupProducer,
}

/// When a batch scan of a primary-key table drops level-0 files (`DataTableBatchScan` in 1.0,
/// `AbstractBatchTableScan` with `CoreOptions#batchScanSkipLevel0` in 2.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchSkipLevel0 {
    /// 1.0: deletion vectors enabled, or merge-engine `first-row`.
    DeletionVectorsOrFirstRow,
    /// 2.0: with deletion vectors, unless `deletion-vectors.merge-on-read=true`; without, merge-engine
    /// `first-row`.
    DeletionVectorsUnlessMergeOnRead,
}

/// The Arrow timezone of a `TIMESTAMP WITH LOCAL TIME ZONE` column (decode hook; not read by planning).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimestampLtzZone {
    /// 1.0 paimon-arrow: the JVM default zone (`ZoneId.systemDefault()`), which the native reader takes as
    /// it does today.
    JvmDefault,
    /// 2.0 paimon-arrow (`ArrowFieldTypeConversion`): `"UTC"`.
    Utc,
}

/// The nullability of the value field of an Arrow map (decode hook; not read by planning).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapValueNullability {
    /// 1.0 paimon-arrow: the value field is forced NOT NULL.
    ForcedNotNull,
    /// 2.0 paimon-arrow: the value field is nullable as the Paimon value type says.
    FromType,
}

/// The rules that differ between release lines, one value per rule (one row of the table per line, see
/// [`PaimonLine::rules`]). Field docs give the 1.0 and 2.0 values and the Java class they come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineRules {
    /// Follow-up scanner of `input`/`lookup`/`full-compaction` (`DataTableStreamScan#createFollowUpScanner`).
    pub changelog_follow_up: ChangelogFollowUp,
    /// Level filter of the full first plan for lookup-style tables (`DataTableStreamScan#tryFirstPlan`).
    pub first_plan_lookup_filter: FirstPlanLookupFilter,
    /// 1.0 true: after a full first plan of a table with deletion vectors but no lookup changelog, the
    /// follow-up starts at the same snapshot (its level-0 files are read again as a delta); 2.0 false: always
    /// `currentSnapshotId + 1`.
    pub dv_first_plan_rereads_start: bool,
    /// 2.0 true: `nextPlan` skips plans without splits, so one `plan()` call can pass several snapshots
    /// (1.0 false: it returns the empty plan). Concatenated splits are the same either way, so the native
    /// planner, which returns the concatenation, does not branch on it; it documents how the stock side's
    /// plan loop behaves (its stop rule, `jvm_bridge::scan_options::StreamStop`, holds for both).
    pub skip_empty_plans: bool,
    /// 1.0 true: streaming splits (DELTA/CHANGELOG follow-ups and the overwrite changes plan) carry the
    /// deletion files of their data files; 2.0 false (`SnapshotReaderImpl#generateSplits` and
    /// `toIncrementalPlan` read the DV index only when not streaming).
    pub streaming_deletion_files: bool,
    /// Level-0 skipping of batch scans of primary-key tables.
    pub batch_skip_level0: BatchSkipLevel0,
    /// 2.0 true: a table with `bucket=-2` (postpone bucket, since 1.1) is readable; batch scans, and
    /// streaming scans with changelog-producer ≠ `none`, skip entries of buckets < 0
    /// (`SnapshotReader#onlyReadRealBuckets`). 1.0 false: such a table is [`Error::Unsupported`] (1.0's
    /// schema validation rejects bucket numbers below 1 other than −1).
    pub postpone_bucket: bool,
    /// 2.0 true: an append table with `streaming-read-append-overwrite=true` streams an OVERWRITE snapshot as
    /// the ADD files of its delta (`AppendOnlyFileStoreTable#supportStreamingReadOverwrite`,
    /// `FollowUpScanner#getOverwriteChangesPlan` with `isAppend`); 1.0 false (append tables never stream
    /// overwrites; the option does not exist).
    pub append_overwrite_streaming: bool,
    /// 1.0 true: the overwrite changes plan drops files both deleted and added (`before.removeIf(data::remove)`
    /// on `DataFileMeta`s). 2.0 false: `SnapshotReaderImpl#deduplicate` compares whole `ManifestEntry`s, whose
    /// kinds (DELETE before, ADD after) always differ, so nothing is dropped.
    pub changes_drop_common_files: bool,
    /// How a TIMESTAMP value becomes a TIME of day in a schema-evolution cast (`TimestampToTimeCastRule`).
    pub timestamp_to_time: TimestampToTime,
    /// What `nested_update` (`FieldNestedUpdateAgg.agg`) makes of a NULL accumulator.
    pub nested_update_null_accumulator: NestedUpdateNullAccumulator,
    /// 2.0 true: under `merge-engine=aggregation`, the `sequence.field` columns are aggregated with
    /// `last_value` whatever `fields.default-aggregate-function` says
    /// (`AggregateMergeFunction#getAggFuncName`); 1.0 false: they take the default like any column. (An
    /// aggregate function configured on a sequence field itself is refused by both releases' schema
    /// validation.)
    pub sequence_fields_last_value: bool,
    /// Arrow timezone of `TIMESTAMP_LTZ` columns (decode hook, wired by the decode side).
    pub timestamp_ltz_zone: TimestampLtzZone,
    /// Nullability of Arrow map values (decode hook, wired by the decode side).
    pub map_value_nullability: MapValueNullability,
}

/// TIMESTAMP (without time zone) to TIME in `TimestampToTimeCastRule`: the milliseconds of the day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimestampToTime {
    /// 1.0: `(int) (millis % MILLIS_PER_DAY)`, negative for instants before 1970 (an invalid TIME).
    Remainder,
    /// 2.0: `(int) Math.floorMod(millis, MILLIS_PER_DAY)`, always in `0..86_400_000`.
    FloorMod,
}

/// `FieldNestedUpdateAgg.agg(accumulator = NULL, input)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NestedUpdateNullAccumulator {
    /// 1.0: the input array as it is, NULL elements included.
    KeepsInput,
    /// 2.0: the input's non-NULL rows (`addNonNullRows`), through the key map when `nested-key` is set;
    /// 2.0 also adds `nested-sequence-field`, `count-limit` and `nested-key-null-strategy`, which this
    /// reader refuses as unsupported unless at their defaults.
    NonNullRows,
}

/// The rules of Paimon 1.0.x.
pub const V1_0_RULES: LineRules = LineRules {
    changelog_follow_up: ChangelogFollowUp::ByCommitKind,
    first_plan_lookup_filter: FirstPlanLookupFilter::NeedLookup,
    dv_first_plan_rereads_start: true,
    skip_empty_plans: false,
    streaming_deletion_files: true,
    batch_skip_level0: BatchSkipLevel0::DeletionVectorsOrFirstRow,
    postpone_bucket: false,
    append_overwrite_streaming: false,
    changes_drop_common_files: true,
    timestamp_to_time: TimestampToTime::Remainder,
    nested_update_null_accumulator: NestedUpdateNullAccumulator::KeepsInput,
    sequence_fields_last_value: false,
    timestamp_ltz_zone: TimestampLtzZone::JvmDefault,
    map_value_nullability: MapValueNullability::ForcedNotNull,
};

/// The rules of Paimon 2.0.x.
pub const V2_0_RULES: LineRules = LineRules {
    changelog_follow_up: ChangelogFollowUp::WithChangelogManifest,
    first_plan_lookup_filter: FirstPlanLookupFilter::LookupProducer,
    dv_first_plan_rereads_start: false,
    skip_empty_plans: true,
    streaming_deletion_files: false,
    batch_skip_level0: BatchSkipLevel0::DeletionVectorsUnlessMergeOnRead,
    postpone_bucket: true,
    append_overwrite_streaming: true,
    changes_drop_common_files: false,
    timestamp_to_time: TimestampToTime::FloorMod,
    nested_update_null_accumulator: NestedUpdateNullAccumulator::NonNullRows,
    sequence_fields_last_value: true,
    timestamp_ltz_zone: TimestampLtzZone::Utc,
    map_value_nullability: MapValueNullability::FromType,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_versions_name_their_line() {
        for v in [
            "1.0.0",
            "1.0.1",
            "1.0.x",
            " 1.0.0 ",
            "1.0.0-SNAPSHOT",
            "1.0",
        ] {
            assert_eq!(PaimonLine::parse(v).unwrap(), PaimonLine::V1_0, "{v}");
        }
        for v in ["2.0.0", "2.0.x", "2.0.0-rc10"] {
            assert_eq!(v.parse::<PaimonLine>().unwrap(), PaimonLine::V2_0, "{v}");
        }
        for v in [
            "1.1.0", "1.4.0", "0.9.0", "3.0.0", "2", "", "2.0.0.1", "latest", "1.0.a",
        ] {
            let err = PaimonLine::parse(v).unwrap_err();
            assert!(matches!(err, Error::UnsupportedRelease { .. }), "{v}");
            assert!(err.to_string().contains(&format!("`{v}`")), "{err}");
        }
        assert_eq!(PaimonLine::default(), PaimonLine::V1_0);
        assert_eq!(PaimonLine::V2_0.to_string(), "2.0.x");
    }

    #[test]
    fn every_line_has_its_own_row() {
        assert_eq!(PaimonLine::V1_0.rules(), &V1_0_RULES);
        assert_eq!(PaimonLine::V2_0.rules(), &V2_0_RULES);
        assert_ne!(V1_0_RULES, V2_0_RULES);
    }
}
