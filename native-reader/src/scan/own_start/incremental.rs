//! A table's own `incremental-between=<start>,<end>` of two snapshot ids, in a batch scan
//! (`scan.mode=incremental`, or the default mode with the option set): the files that the snapshots after
//! `start` up to `end` added, as the release's incremental starting scanner plans them
//! (`IncrementalStartingScanner` in 1.0.x, `IncrementalDeltaStartingScanner` from 1.1.1; the rule of the
//! line: [`IncrementalBetween`]).
//!
//! * `incremental-between-scan-mode` (`auto` by default, any case): `delta` reads the delta manifest list of
//!   each APPEND snapshot (COMPACT and OVERWRITE snapshots skipped), `changelog` the changelog manifest list
//!   of each snapshot but OVERWRITE ones; `auto` is `delta` under `changelog-producer=none`, else
//!   `changelog`. From 1.1.1, `diff` plans the diff of the two snapshots (`IncrementalDiffStartingScanner`,
//!   [`super::diff`]), no range check but both snapshot files read.
//! * The value is cut at each `,` as Java's `String.split` cuts it (trailing empty parts dropped), and must
//!   give two parts, each a long as `Long.parseLong` reads it (no blank around).
//! * Two tags plan the diff of their snapshots: on 1.0.x when the two parts are not longs
//!   (`IncrementalTagStartingScanner`: both tags must exist, and the end tag's snapshot id must be larger);
//!   from 1.1.1 when both tags exist, before the parts are read as ids (`IncrementalDiffStartingScanner
//!   #betweenTags`: the end tag's id not below the start's, equal ids plan nothing). From 1.4.2
//!   `incremental-between-tag-to-snapshot=true` reads them as the increment between their snapshot ids
//!   instead (`IncrementalDeltaStartingScanner#betweenSnapshotIds`: the range check, no order check).
//! * The files are grouped by (partition, bucket) and split as a batch scan splits them
//!   (`SplitGenerator#splitForBatch`), each split of snapshot `end`, without deletion files. 1.0.x reads them
//!   as batch splits (merged); from 1.1.1 they are streaming splits, each record read with its RowKind.
//!
//! `$ro` of a primary-key table keeps the files of the top level alone, as its scan's level filter does.
//!
//! `incremental-between-timestamp=<start>,<end>` names the same increment by commit times
//! ([`plan_between_times`]): `start` becomes the latest snapshot committed at or before it (one before the
//! earliest when every snapshot is later), `end` likewise (the latest snapshot when none is that early), each
//! found by the release's binary search (`SnapshotManager#earlierOrEqualTimeMills`); a range that misses
//! every snapshot plans nothing. 1.0.x (`IncrementalTimeStampStartingScanner`) reads two longs; from 1.1.1
//! (`IncrementalDeltaStartingScanner#betweenTimestamps`) two longs or else two local times as
//! `DateTimeUtils#parseTimestampData` reads them in the JVM's zone (UTC in the bridge), `end` not before
//! `start`, and equal times plan nothing. With `diff` (1.1.1 on) the two snapshots found are diffed, `start`
//! becoming the earliest snapshot when none is that early (`IncrementalDiffStartingScanner#betweenTimestamps`).
//!
//! Not modelled, refused by name: an increment (not a diff) of a table whose batch scan filters level 0 out
//! (deletion vectors, `first-row`: the scan's level filter applies to the increment too), a table with a
//! fallback or primary branch.

use crate::error::{Error, Result};
use crate::line::{IncrementalBetween, PaimonRelease};
use crate::options::{ChangelogProducer, InvalidOption, ValueError};
use crate::snapshot::{CommitKind, Snapshot};
use crate::split::Split;
use crate::table::Table;

use super::startup::{
    StartOptions, INCREMENTAL_BETWEEN, INCREMENTAL_BETWEEN_SCAN_MODE, INCREMENTAL_BETWEEN_TIMESTAMP,
};
use super::time_travel::{earlier_or_equal, latest_and_earliest, parse_timestamp_text};
use super::Start;

/// `incremental-between-tag-to-snapshot` (1.4.2 on; `CoreOptions.INCREMENTAL_BETWEEN_TAG_TO_SNAPSHOT`).
const INCREMENTAL_BETWEEN_TAG_TO_SNAPSHOT: &str = "incremental-between-tag-to-snapshot";

/// Which manifest list of each snapshot an increment reads (`ScanMode.DELTA`, `ScanMode.CHANGELOG`), or the
/// diff of the two snapshots (`IncrementalBetweenScanMode.DIFF`, 1.1.1 on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Changes {
    Delta,
    Changelog,
    Diff,
}

/// The batch plan of `table`'s own `incremental-between` (see the module doc).
///
/// Errors: [`Error::InvalidOption`] naming the schema directory for a value the release refuses (not two
/// parts, not two snapshot ids on 1.1.1 on, `start` after `end`, a range outside the snapshots kept, an
/// unknown scan mode, two tags out of order), with the release's message; [`Error::Snapshot`] naming a tag
/// file that does not exist (1.0.x), or for a DELETE entry in an increment; [`Error::Unsupported`] for what
/// is not read natively (see the module doc); the snapshot, tag and manifest files' read errors.
/// `incremental-between-timestamp`: as [`plan_between_times`].
pub(super) fn plan(table: &Table, options: &StartOptions) -> Result<Start> {
    let schema_dir = table.path().join("schema");
    let refused = |key: &str, message: String| {
        InvalidOption::new(key, ValueError::Refused(message)).at(&schema_dir)
    };
    let Some(value) = options.incremental_between.as_deref() else {
        return match (
            &options.incremental_between_timestamp,
            &options.incremental_to_auto_tag,
        ) {
            (None, Some(end)) => super::auto_tag::plan(table, end),
            _ => plan_between_times(table, options),
        };
    };
    let rule = table.release().rules().incremental_between;
    let parts = java_split_comma(value);
    let [start, end] = parts[..] else {
        return Err(refused(INCREMENTAL_BETWEEN, not_two_parts(rule, value)));
    };
    super::refuse_other_branch(table, INCREMENTAL_BETWEEN, value)?;
    let manager = table.snapshot_manager();
    let ids = (start.parse::<i64>(), end.parse::<i64>());
    let (start, end, changes) = match rule {
        IncrementalBetween::BatchSplits => {
            let changes = changes(table, options)?;
            let (Ok(start), Ok(end)) = ids else {
                // `IncrementalTagStartingScanner`: `TagManager#taggedSnapshot` of each tag, start first.
                let from = Snapshot::read(&super::existing_tag(table, start)?)?;
                let to = Snapshot::read(&super::existing_tag(table, end)?)?;
                if to.id <= from.id {
                    return Err(refused(
                        INCREMENTAL_BETWEEN,
                        format!(
                            "Tag end {end} with snapshot id {} should be larger than tag start {start} with \
                             snapshot id {}",
                            to.id, from.id
                        ),
                    ));
                }
                return super::diff::plan(table, &from, &to, false, (INCREMENTAL_BETWEEN, value));
            };
            let (Some(earliest), Some(latest)) = (
                manager.earliest_snapshot_id()?,
                manager.latest_snapshot_id()?,
            ) else {
                return Ok(Start::Nothing);
            };
            if start > end {
                return Err(refused(
                    INCREMENTAL_BETWEEN,
                    format!("Starting snapshotId {start} must less than ending snapshotId {end}."),
                ));
            }
            check_range(start, end, earliest, latest)
                .map_err(|m| refused(INCREMENTAL_BETWEEN, m))?;
            (start, end, changes)
        }
        IncrementalBetween::StreamingSplits => {
            let exists = |name| crate::fileio::exists(&super::tag_path(table, name));
            if exists(start)? && exists(end)? {
                return between_tags(table, options, (start, end), value);
            }
            let (Ok(start_id), Ok(end_id)) = ids else {
                return Err(refused(
                    INCREMENTAL_BETWEEN,
                    format!(
                        "Didn't find two tags for start '{start}' and end '{end}', and they are not two \
                         snapshot Ids. Please set two tags or two snapshot Ids."
                    ),
                ));
            };
            if end_id < start_id {
                return Err(refused(
                    INCREMENTAL_BETWEEN,
                    // `Preconditions.checkArgument` fills the one `%s` and appends the other argument.
                    format!(
                        "Ending snapshotId should >= starting snapshotId {end_id}. [{start_id}]"
                    ),
                ));
            }
            let Some(earliest) = manager.earliest_snapshot_id()? else {
                return Ok(Start::Nothing);
            };
            if start_id == end_id {
                return Ok(Start::Nothing);
            }
            let changes = changes(table, options)?;
            if changes == Changes::Diff {
                // `IncrementalDiffStartingScanner#betweenSnapshotIds`: no range check.
                let (from, to) = (table.snapshot(start_id)?, table.snapshot(end_id)?);
                return super::diff::plan(table, &from, &to, true, (INCREMENTAL_BETWEEN, value));
            }
            let latest = manager.latest_snapshot_id()?.unwrap_or(earliest);
            check_range(start_id, end_id, earliest, latest)
                .map_err(|m| refused(INCREMENTAL_BETWEEN, m))?;
            (start_id, end_id, changes)
        }
    };
    plan_increment(table, start, end, changes, rule)
}

/// The batch plan of `table`'s own `incremental-between-timestamp` (see the module doc).
///
/// Errors: [`Error::InvalidOption`] naming the schema directory for a value the release refuses (not two
/// parts; 1.0.x: a part that is no long; 1.1.1 on: not two longs nor two local times, `end` before
/// `start`; `start` after `end` once both are snapshot ids), with the release's message;
/// [`Error::Unsupported`] for a 1.0.x table without snapshots (the release fails on a null earliest snapshot
/// id), and as [`plan`] for the rest.
fn plan_between_times(table: &Table, options: &StartOptions) -> Result<Start> {
    let value = options
        .incremental_between_timestamp
        .as_deref()
        .unwrap_or_default();
    let refused = |message: String| {
        InvalidOption::new(INCREMENTAL_BETWEEN_TIMESTAMP, ValueError::Refused(message))
            .at(table.path().join("schema"))
    };
    super::refuse_other_branch(table, INCREMENTAL_BETWEEN_TIMESTAMP, value)?;
    let rule = table.release().rules().incremental_between;
    let parts = java_split_comma(value);
    let manager = table.snapshot_manager();
    let (start, end, changes) = match rule {
        IncrementalBetween::BatchSplits => {
            // `CoreOptions#incrementalBetween` reads either option, with one message for both.
            let [start, end] = parts[..] else {
                return Err(refused(not_two_parts(rule, value)));
            };
            let changes = changes(table, options)?;
            // `Long.parseLong`'s `NumberFormatException`, start first.
            let long = |s: &str| {
                s.parse::<i64>()
                    .map_err(|_| refused(format!("For input string: \"{s}\"")))
            };
            let (start, end) = (long(start)?, long(end)?);
            let Some((latest, earliest)) = latest_and_earliest(table)? else {
                return Err(Error::Unsupported {
                    path: manager.snapshot_dir(),
                    reason: format!(
                        "the table's own {INCREMENTAL_BETWEEN_TIMESTAMP} on a table without snapshots (the \
                         released 1.0.x reader fails on a null earliest snapshot id)"
                    ),
                });
            };
            if start > manager.snapshot(latest)?.time_millis || end < earliest.time_millis {
                return Ok(Start::Nothing);
            }
            let (start_id, end_id) = ids_between(table, start, end, latest, &earliest)?;
            if start_id > end_id {
                // `IncrementalStartingScanner#checkScanSnapshotIdValidity`.
                return Err(refused(format!(
                    "Starting snapshotId {start_id} must less than ending snapshotId {end_id}."
                )));
            }
            (start_id, end_id, changes)
        }
        IncrementalBetween::StreamingSplits => {
            let message = || {
                refused(format!(
                    "The incremental-between-timestamp must specific start(exclusive) and end timestamp. \
                     But is: {value}"
                ))
            };
            let [start, end] = parts[..] else {
                return Err(message());
            };
            let (start, end) = match (start.parse::<i64>(), end.parse::<i64>()) {
                (Ok(start), Ok(end)) => (start, end),
                _ => match (parse_timestamp_text(start), parse_timestamp_text(end)) {
                    (Some(start), Some(end)) => (start, end),
                    _ => return Err(message()),
                },
            };
            let Some((latest, earliest)) = latest_and_earliest(table)? else {
                return Ok(Start::Nothing);
            };
            if end < start {
                return Err(refused(format!(
                    "Ending timestamp {end} should be >= starting timestamp {start}."
                )));
            }
            if start == end
                || start > manager.snapshot(latest)?.time_millis
                || end < earliest.time_millis
            {
                return Ok(Start::Nothing);
            }
            let changes = changes(table, options)?;
            if changes == Changes::Diff {
                // `IncrementalDiffStartingScanner#betweenTimestamps`: the earliest snapshot when none is as
                // early as `start`, the latest when none is as early as `end`.
                let from = earlier_or_equal(table, start)?.unwrap_or(earliest);
                let to = match earlier_or_equal(table, end)? {
                    Some(found) => found,
                    None => manager.snapshot(latest)?,
                };
                let key = (INCREMENTAL_BETWEEN_TIMESTAMP, value);
                return super::diff::plan(table, &from, &to, true, key);
            }
            let (start_id, end_id) = ids_between(table, start, end, latest, &earliest)?;
            (start_id, end_id, changes)
        }
    };
    plan_increment(table, start, end, changes, rule)
}

/// `incremental-between` of two existing tags, from 1.1.1: the diff of their snapshots
/// (`IncrementalDiffStartingScanner#betweenTags`), or from 1.4.2 with `incremental-between-tag-to-snapshot
/// =true` the increment between their snapshot ids.
///
/// Errors: as [`plan`].
fn between_tags(
    table: &Table,
    options: &StartOptions,
    (start, end): (&str, &str),
    value: &str,
) -> Result<Start> {
    let refused = |key: &str, message: String| {
        InvalidOption::new(key, ValueError::Refused(message)).at(table.path().join("schema"))
    };
    let from = Snapshot::read(&super::tag_path(table, start))?;
    let to = Snapshot::read(&super::tag_path(table, end))?;
    let to_snapshot = match table.schema().option(INCREMENTAL_BETWEEN_TAG_TO_SNAPSHOT) {
        Some(v) if table.release().rules().incremental_tag_to_snapshot => {
            crate::options::parse_bool(v.trim())
                .map_err(|e| InvalidOption::new(INCREMENTAL_BETWEEN_TAG_TO_SNAPSHOT, e))
                .map_err(|e| e.at(table.path().join("schema")))?
        }
        _ => false,
    };
    if to_snapshot {
        let changes = changes(table, options)?;
        if changes == Changes::Diff {
            // `AbstractDataTableScan#toSnapshotScanMode` knows no DIFF.
            return Err(refused(
                INCREMENTAL_BETWEEN_SCAN_MODE,
                "Unsupported incremental scan mode DIFF".into(),
            ));
        }
        let manager = table.snapshot_manager();
        let (Some(earliest), Some(latest)) = (
            manager.earliest_snapshot_id()?,
            manager.latest_snapshot_id()?,
        ) else {
            return Err(Error::Unsupported {
                path: manager.snapshot_dir(),
                reason: format!(
                    "the table's own {INCREMENTAL_BETWEEN}={value} of two tags read as snapshot ids on a \
                     table without snapshots (the release unboxes a null earliest snapshot id)"
                ),
            });
        };
        check_range(from.id, to.id, earliest, latest)
            .map_err(|m| refused(INCREMENTAL_BETWEEN, m))?;
        let rule = table.release().rules().incremental_between;
        return plan_increment(table, from.id, to.id, changes, rule);
    }
    if to.id < from.id {
        return Err(refused(
            INCREMENTAL_BETWEEN,
            format!(
                "Tag end {end} with snapshot id {} should be >= tag start {start} with snapshot id {}",
                to.id, from.id
            ),
        ));
    }
    if to.id == from.id {
        return Ok(Start::Nothing);
    }
    super::diff::plan(table, &from, &to, true, (INCREMENTAL_BETWEEN, value))
}

/// `CoreOptions#incrementalBetween`'s message for a value that is not two parts: 1.0.x reads either option
/// there, with one message for both; from 1.1.1 it reads `incremental-between` alone.
fn not_two_parts(rule: IncrementalBetween, value: &str) -> String {
    let what = match rule {
        IncrementalBetween::BatchSplits => {
            "incremental-between or incremental-between-timestamp  must specific start(exclusive) and end \
             snapshot or timestamp,"
        }
        IncrementalBetween::StreamingSplits => {
            "incremental-between must specific start(exclusive) and end snapshot,"
        }
    };
    format!(
        "The {what} for example, 'incremental-between'='5,10' means changes between snapshot 5 and snapshot \
         10. But is: {value}"
    )
}

/// The snapshot ids an increment between the commit times `start` and `end` reads between: the latest
/// snapshot committed at or before `start` (one before the earliest when the earliest is later), and the
/// latest committed at or before `end` (the latest snapshot when none is).
///
/// Errors: the snapshot files' read errors.
fn ids_between(
    table: &Table,
    start: i64,
    end: i64,
    latest: i64,
    earliest: &Snapshot,
) -> Result<(i64, i64)> {
    let start_id = match earlier_or_equal(table, start)? {
        Some(found) if earliest.time_millis <= start => found.id,
        _ => earliest.id - 1,
    };
    let end_id = earlier_or_equal(table, end)?.map_or(latest, |found| found.id);
    Ok((start_id, end_id))
}

/// The splits of the increment (start, end] (see the module doc).
fn plan_increment(
    table: &Table,
    start: i64,
    end: i64,
    changes: Changes,
    rule: IncrementalBetween,
) -> Result<Start> {
    if super::super::batch_skips_level_0(table)? {
        return Err(Error::Unsupported {
            path: table.path().join("schema"),
            reason: format!(
                "the table's own increment ({INCREMENTAL_BETWEEN} or {INCREMENTAL_BETWEEN_TIMESTAMP}) on a \
                 table whose batch scan leaves level 0 out \
                 (deletion vectors or first-row: the scan's level filter applies to the increment too)"
            ),
        });
    }
    let snapshots = (start + 1..=end)
        .map(|id| table.snapshot(id))
        .collect::<Result<Vec<_>>>()?;
    let lists: Vec<&str> = snapshots
        .iter()
        .filter_map(|s| match changes {
            Changes::Delta => {
                (s.commit_kind == CommitKind::Append).then_some(s.delta_manifest_list.as_str())
            }
            Changes::Changelog if s.commit_kind == CommitKind::Overwrite => None,
            Changes::Changelog => s.changelog_manifest_list.as_deref(),
            Changes::Diff => None,
        })
        .collect();
    let mut groups = super::super::file_set::read_only_added_files(
        table,
        &lists,
        super::super::bucket_filter(table, false)?,
    )?;
    // `$ro` of a primary-key table: its scan's level filter (the top level) applies to the increment.
    if table.read_optimized() && table.is_primary_key_table() {
        let top = super::super::starting::num_levels(table)? - 1;
        for group in &mut groups {
            group.files.retain(|f| f.level == top);
        }
        groups.retain(|g| !g.files.is_empty());
    }
    let last = table.snapshot(end)?;
    let mut splits: Vec<Split> = super::super::split_generator::batch_splits(table, &last, groups)?;
    for split in &mut splits {
        split.deletion_files.clear();
        split.is_streaming = rule == IncrementalBetween::StreamingSplits;
    }
    Ok(Start::Planned(splits))
}

/// `incremental-between-scan-mode` resolved to the manifest list read (`auto`: by the changelog producer), or
/// the diff (`diff`, 1.1.1 on).
///
/// Errors: [`Error::InvalidOption`] for a value that is no mode of the release.
fn changes(table: &Table, options: &StartOptions) -> Result<Changes> {
    let text = options.incremental_scan_mode.as_deref().unwrap_or("auto");
    match text.trim().to_ascii_lowercase().as_str() {
        "auto" if table.options().changelog_producer == ChangelogProducer::None => {
            Ok(Changes::Delta)
        }
        "auto" | "changelog" => Ok(Changes::Changelog),
        "delta" => Ok(Changes::Delta),
        "diff" if table.release() >= PaimonRelease::V1_1_1 => Ok(Changes::Diff),
        _ => Err(InvalidOption::new(
            INCREMENTAL_BETWEEN_SCAN_MODE,
            ValueError::UnknownValue(text.into()),
        )
        .at(table.path().join("schema"))),
    }
}

/// The release's range check: `start` may be one before the earliest snapshot (the range is open on the
/// left), `end` at most the latest. The error is the release's message.
fn check_range(
    start: i64,
    end: i64,
    earliest: i64,
    latest: i64,
) -> std::result::Result<(), String> {
    if start >= earliest - 1 && end <= latest {
        return Ok(());
    }
    Err(format!(
        "The specified scan snapshotId range [{start}, {end}] is out of available snapshotId range \
         [{earliest}, {latest}]."
    ))
}

/// `value.split(",")` as Java cuts it: every part, trailing empty parts dropped.
fn java_split_comma(value: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = value.split(',').collect();
    while parts.len() > 1 && parts.last() == Some(&"") {
        parts.pop();
    }
    if parts == [""] && !value.is_empty() {
        parts.clear();
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_is_cut_as_java_cuts_it() {
        assert_eq!(java_split_comma("1,3"), ["1", "3"]);
        assert_eq!(java_split_comma("1,3,"), ["1", "3"]);
        assert_eq!(java_split_comma(",3"), ["", "3"]);
        assert_eq!(java_split_comma("1"), ["1"]);
        assert_eq!(java_split_comma(""), [""]);
        assert!(java_split_comma(",,").is_empty());
        assert_eq!(java_split_comma(" 1, 3"), [" 1", " 3"]);
        // `Long.parseLong` takes no blank: " 1" is not a snapshot id.
        assert!(" 1".parse::<i64>().is_err());
    }

    #[test]
    fn the_range_may_start_one_before_the_earliest_snapshot() {
        assert!(check_range(0, 4, 1, 4).is_ok());
        assert!(check_range(2, 3, 1, 4).is_ok());
        let err = check_range(0, 5, 1, 4).unwrap_err();
        assert_eq!(
            err,
            "The specified scan snapshotId range [0, 5] is out of available snapshotId range [1, 4]."
        );
        assert!(check_range(1, 4, 3, 4).is_err());
    }
}
