//! Table options the released reader honours when it plans or reads, and this reader does not implement.
//!
//! Every option a release reads at plan or read time either changes nothing the reader returns (file index,
//! batch size, manifest parallelism, lookup caches, Flink-only options), or is implemented here the way that
//! release does it (merge engines and their options, `sequence.field`, `ignore-delete`, changelog producers,
//! `streaming-read-overwrite`, deletion vectors, `scan.plan-sort-partition` is refused at plan time), or is
//! listed in [`UNSUPPORTED_READ_OPTIONS`] and refused by name ([`crate::Table::check_read_options`]), so that
//! a table setting one is an [`crate::Error::Unsupported`] rather than other rows than the release returns.
//! Options a line does not know are ignored by its reader and are not listed for it.

use crate::line::PaimonLine;

/// When a table option's value makes it unsupported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Whatever its value.
    Always,
    /// Unless its value is one of these (ASCII case ignored): the values whose behaviour this reader has.
    Unless(&'static [&'static str]),
}

/// One option the released reader of some lines honours and this reader does not implement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsupportedOption {
    /// The key; a `*` stands for one column name (`fields.*.default-value`).
    pub pattern: &'static str,
    /// The lines whose released reader applies it.
    pub lines: &'static [PaimonLine],
    /// Which values are refused.
    pub refused: Refused,
    /// What the release does with it, and where (the Java class).
    pub release: &'static str,
}

const BOTH: &[PaimonLine] = &[PaimonLine::V1_0, PaimonLine::V2_0];
const V1: &[PaimonLine] = &[PaimonLine::V1_0];
const V2: &[PaimonLine] = &[PaimonLine::V2_0];

const fn option(
    pattern: &'static str,
    lines: &'static [PaimonLine],
    refused: Refused,
    release: &'static str,
) -> UnsupportedOption {
    UnsupportedOption {
        pattern,
        lines,
        refused,
        release,
    }
}

/// The table options refused on read, per line (surveyed from the 1.0.0 and 2.0.0 release sources:
/// `CoreOptions` and where each option is read at plan or read time).
pub const UNSUPPORTED_READ_OPTIONS: &[UnsupportedOption] = &[
    option(
        "fields.*.default-value",
        V1,
        Refused::Always,
        "the released 1.0 reader returns this value for the column's NULLs (DefaultValueAssigner)",
    ),
    option(
        "scan.file-creation-time-millis",
        BOTH,
        Refused::Always,
        "the released reader skips data files created before this time (the scan's file creation time filter)",
    ),
    option(
        "scan.snapshot-id",
        BOTH,
        Refused::Always,
        "a batch scan reads this snapshot instead of the latest (StaticFromSnapshotStartingScanner)",
    ),
    option(
        "scan.tag-name",
        BOTH,
        Refused::Always,
        "a batch scan reads the tag's snapshot (StaticFromTagStartingScanner)",
    ),
    option(
        "scan.watermark",
        BOTH,
        Refused::Always,
        "a batch scan reads the first snapshot past this watermark (StaticFromWatermarkStartingScanner)",
    ),
    option(
        "scan.timestamp-millis",
        BOTH,
        Refused::Always,
        "a batch scan reads the snapshot of this time (StaticFromTimestampStartingScanner)",
    ),
    option(
        "scan.timestamp",
        BOTH,
        Refused::Always,
        "a batch scan reads the snapshot of this time (StaticFromTimestampStartingScanner)",
    ),
    option(
        "scan.version",
        BOTH,
        Refused::Always,
        "time travel to this snapshot or tag, overriding the scan's start snapshot (travelToVersion, TimeTravelUtil)",
    ),
    option(
        "scan.mode",
        BOTH,
        Refused::Unless(&["default", "latest", "latest-full", "full"]),
        "a batch scan starts with this startup mode's scanner (AbstractDataTableScan#createStartingScanner)",
    ),
    option(
        "incremental-between",
        BOTH,
        Refused::Always,
        "a batch scan reads the changes between two snapshots or tags (incremental starting scanners)",
    ),
    option(
        "incremental-between-timestamp",
        BOTH,
        Refused::Always,
        "a batch scan reads the changes between two times (incremental starting scanners)",
    ),
    option(
        "incremental-to-auto-tag",
        V2,
        Refused::Always,
        "a batch scan reads the changes up to an auto-created tag (IncrementalDeltaStartingScanner)",
    ),
    option(
        "scan.creation-time-millis",
        V2,
        Refused::Always,
        "a batch scan starts from the snapshot of this creation time (createCreationTimestampStartingScanner)",
    ),
    option(
        "scan.bounded.watermark",
        BOTH,
        Refused::Always,
        "a streaming scan ends at the first snapshot past this watermark (DataTableStreamScan's BoundedChecker)",
    ),
    option(
        "streaming.read.snapshot.delay",
        BOTH,
        Refused::Always,
        "a streaming scan holds back snapshots younger than this delay (DataTableStreamScan#shouldDelaySnapshot)",
    ),
    option(
        "consumer-id",
        BOTH,
        Refused::Always,
        "a streaming scan starts at the consumer's recorded next snapshot (AbstractDataTableScan#createStartingScanner)",
    ),
    option(
        "scan.fallback-branch",
        BOTH,
        Refused::Always,
        "a batch scan reads partitions missing from the main branch out of this branch (FallbackReadFileStoreTable)",
    ),
    option(
        "scan.primary-branch",
        V2,
        Refused::Always,
        "partitions of this branch are read from it before the main branch (FallbackReadFileStoreTable)",
    ),
    option(
        "chain-table.enabled",
        V2,
        Refused::Unless(&["false"]),
        "the table is read as a chain of snapshot and delta branches (ChainGroupReadTable)",
    ),
    option(
        "scan.bucket",
        V2,
        Refused::Always,
        "scans plan only this bucket (AbstractBatchTableScan / newStreamScan withBucket)",
    ),
    option(
        "batch-scan-mode",
        V2,
        Refused::Unless(&["none"]),
        "batch scans of deletion-vector and first-row tables keep level-0 files (AbstractBatchTableScan)",
    ),
    option(
        "sort-engine",
        BOTH,
        Refused::Unless(&["loser-tree"]),
        "merge reads sort with a min-heap, which orders records of equal key and sequence differently (SortMergeReaderWithMinHeap)",
    ),
    option(
        "aggregation.remove-record-on-delete",
        V2,
        Refused::Unless(&["false"]),
        "a -D record removes the aggregated row (AggregateMergeFunction)",
    ),
    option(
        "key-value.sequence_number.enabled",
        V2,
        Refused::Unless(&["false"]),
        "primary-key rows come back with _SEQUENCE_NUMBER in front (KeyValueTableRead)",
    ),
    option(
        "scan.ignore-corrupt-files",
        V2,
        Refused::Unless(&["false"]),
        "reads skip data files that cannot be decoded instead of failing (KeyValueFileReaderFactory, RawFileSplitRead)",
    ),
    option(
        "scan.ignore-lost-files",
        V2,
        Refused::Unless(&["false"]),
        "reads skip data files that do not exist instead of failing (KeyValueFileReaderFactory, RawFileSplitRead)",
    ),
];

impl UnsupportedOption {
    /// Whether option `key=value` of a table read as `line` is refused by this entry.
    pub fn refuses(&self, line: PaimonLine, key: &str, value: &str) -> bool {
        self.lines.contains(&line)
            && key_matches(self.pattern, key)
            && match self.refused {
                Refused::Always => true,
                Refused::Unless(values) => {
                    !values.iter().any(|v| v.eq_ignore_ascii_case(value.trim()))
                }
            }
    }
}

/// The entry of [`UNSUPPORTED_READ_OPTIONS`] that refuses `key=value` on `line`, if any.
pub fn refusal(line: PaimonLine, key: &str, value: &str) -> Option<&'static UnsupportedOption> {
    UNSUPPORTED_READ_OPTIONS
        .iter()
        .find(|o| o.refuses(line, key, value))
}

/// Whether option `key` matches `pattern` (`*`: one column name, never empty).
fn key_matches(pattern: &str, key: &str) -> bool {
    match pattern.split_once('*') {
        Some((prefix, suffix)) => {
            key.len() > prefix.len() + suffix.len()
                && key.starts_with(prefix)
                && key.ends_with(suffix)
        }
        None => key == pattern,
    }
}
