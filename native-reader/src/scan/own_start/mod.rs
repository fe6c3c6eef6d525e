//! A table's own start options (table options, not the scan's): what the released scans do with them when
//! the scan lays its own options over the table's (`Table.copy(dynamicOptions)`, the scan's winning), as
//! `CoreOptions#startupMode` resolves the mode and `AbstractDataTableScan#createStartingScanner` starts it.
//!
//! Every scan first passes the release's validation (`SchemaValidation#validateStartupMode`,
//! [`startup::StartOptions::validate`]): the streaming scans set `scan.mode` and `scan.snapshot-id`
//! themselves, so a table's own `scan.tag-name`, `scan.timestamp-millis` or
//! `scan.file-creation-time-millis` fails them, and `latest-full` fails with any of these or
//! `scan.snapshot-id`. A streaming scan that passes plans as its mode says (a table's own
//! `scan.snapshot-id` is replaced by the scan's; `scan.creation-time-millis` is not looked at).
//!
//! A batch scan that names no snapshot reads:
//! - `scan.timestamp-millis=T`, or `scan.timestamp` (a local date and time in the JVM's zone, UTC in
//!   jvm-bridge's JVM): the latest snapshot committed at or before T (`StaticFromTimestampStartingScanner`;
//!   a T before every snapshot as [`crate::line::LineRules::timestamp_before_earliest`] says);
//! - `scan.snapshot-id=K`: snapshot K (`StaticFromSnapshotStartingScanner`);
//! - `scan.tag-name=T`: the tag's snapshot as the tag holds it, retained or not
//!   (`StaticFromTagStartingScanner`);
//! - `scan.file-creation-time-millis=T`: the latest snapshot's data files created at or after T
//!   (`FileCreationTimeStartingScanner`: `DataFileMeta#creationTimeEpochMillis`, the local creation time in
//!   the JVM's zone, which jvm-bridge's JVM sets to UTC);
//! - `scan.creation-time-millis=T` (1.2.0 on): the first snapshot committed at or after T when one is, else
//!   as `scan.file-creation-time-millis=T` (`createCreationTimestampStartingScanner`);
//! - `scan.watermark=W`: the first snapshot whose watermark is at or past W, or the release's error when none
//!   is (`StaticFromWatermarkStartingScanner`, [`watermark`]). A streaming scan from a snapshot fails the
//!   validation (one of `scan.snapshot-id`, `scan.tag-name`, `scan.watermark`); `latest-full` and
//!   `from-snapshot-full` pass it and do not look at the watermark.
//!
//! A snapshot read for the first three must have the latest schema's columns: the released reader reads a
//! snapshot of another schema with that schema (`AbstractFileStoreTable#tryTimeTravel`), which this reader
//! does not (refused by name). `incremental-between` of two snapshot ids and `incremental-between-timestamp`
//! of two commit times plan the increment between them ([`incremental`]). `scan.version` is replaced, when
//! the table opens, by the option it names ([`version`]). `incremental-between` of two tags, the `diff` scan
//! mode and `incremental-to-auto-tag` plan the diff of two snapshots ([`diff`], [`auto_tag`]). A `scan.version`
//! the table's load cannot resolve stays refused by name
//! ([`crate::read_options::UNSUPPORTED_READ_OPTIONS`]).

mod auto_tag;
mod diff;
mod incremental;
mod startup;
mod time_travel;
mod version;
mod watermark;

pub(crate) use version::{resolved as resolved_scan_version, SCAN_VERSION};

use crate::error::{Error, Result};
use crate::line::PaimonRelease::V1_2_0;
use crate::line::TimestampBeforeEarliest;
use crate::snapshot::Snapshot;
use crate::table::Table;

use super::ScanMode;
use startup::{long_of, StartOptions, StartupMode};
use startup::{
    SCAN_CREATION_TIME_MILLIS, SCAN_FILE_CREATION_TIME_MILLIS, SCAN_SNAPSHOT_ID, SCAN_TAG_NAME,
    SCAN_TIMESTAMP, SCAN_TIMESTAMP_MILLIS, SCAN_WATERMARK,
};

/// What a scan of a table plans, given the table's own start options.
#[derive(Debug)]
pub(crate) enum Start {
    /// The scan in this mode.
    Mode(ScanMode),
    /// The batch scan of this snapshot, a tag's (`StaticFromTagStartingScanner`).
    Tagged(Box<Snapshot>),
    /// The batch scan of the latest snapshot's data files created at or after this time, in milliseconds
    /// since the epoch (`FileCreationTimeStartingScanner`).
    CreatedSince(i64),
    /// No split: 1.0's batch scan of a start time on a table without a snapshot (`NoSnapshot`), an empty
    /// increment.
    Nothing,
    /// These splits: the increment of `incremental-between` ([`incremental`]).
    Planned(Vec<crate::split::Split>),
}

/// What the scan `mode` of `table` plans, given the table's own start options (see the module doc).
///
/// Errors: [`Error::InvalidOption`] naming the schema directory when a start option the batch scan reads is
/// not a long, or when the release's validation refuses the options in this mode; [`Error::Snapshot`] naming
/// the tag file when the tag does not exist, or naming the snapshot directory when no snapshot is as old as
/// `scan.timestamp-millis` (from 1.1.1); [`Error::Io`] / [`Error::Json`] when a snapshot or tag cannot be
/// read; [`Error::Unsupported`] as [`check_same_columns`], for a tag of a table with a fallback or primary
/// branch, or for `scan.creation-time-millis` where the release would read a long-lived changelog.
pub(crate) fn with_table_start(table: &Table, mode: ScanMode) -> Result<Start> {
    let at_schema = |e: crate::options::InvalidOption| e.at(table.path().join("schema"));
    validate_own_options(table)?;
    let options = StartOptions::of(table, mode);
    options.validate().map_err(at_schema)?;
    if mode.is_streaming() {
        return Ok(Start::Mode(mode));
    }
    let long = |key: &str, value: &str| long_of(key, value).map_err(at_schema);
    let startup = options.startup_mode();
    if matches!(
        startup,
        StartupMode::FromTimestamp
            | StartupMode::FromFileCreationTime
            | StartupMode::FromCreationTimestamp
            | StartupMode::CompactedFull
    ) && (table.primary().is_some() || table.fallback().is_some())
    {
        return Err(Error::Unsupported {
            path: table.path().to_path_buf(),
            reason: "a start of the table's own (scan.timestamp-millis, scan.timestamp, \
                     scan.file-creation-time-millis, scan.creation-time-millis, scan.mode=compacted-full) on \
                     a table with a fallback or primary branch (what the released reader gives the other \
                     branch is not modelled)"
                .to_owned(),
        });
    }
    match startup {
        StartupMode::FromTimestamp => {
            let (key, value, millis) = start_time(table, &options)?;
            match time_travel::earlier_or_equal(table, millis)? {
                Some(snapshot) => {
                    check_same_columns(table, &snapshot, key, value)?;
                    Ok(Start::Mode(ScanMode::Batch {
                        snapshot: Some(snapshot.id),
                    }))
                }
                None => match table.release().rules().timestamp_before_earliest {
                    TimestampBeforeEarliest::ReadsEarliest => Ok(Start::Nothing),
                    _ => Err(time_travel::none_that_early(table, millis)?),
                },
            }
        }
        StartupMode::FromSnapshot | StartupMode::FromSnapshotFull => {
            match (&options.snapshot_id, &options.watermark, &options.tag_name) {
                (Some(value), _, _) if options.own_snapshot_id => {
                    let id = long(SCAN_SNAPSHOT_ID, value)?;
                    if let Ok(snapshot) = table.snapshot(id) {
                        check_same_columns(table, &snapshot, SCAN_SNAPSHOT_ID, value)?;
                    }
                    Ok(Start::Mode(ScanMode::Batch { snapshot: Some(id) }))
                }
                (None, Some(value), _) if startup == StartupMode::FromSnapshot => {
                    from_watermark(table, value, long(SCAN_WATERMARK, value)?)
                }
                (None, _, Some(tag)) => tagged(table, tag).map(Start::Tagged),
                _ => Ok(Start::Mode(mode)),
            }
        }
        StartupMode::FromFileCreationTime => {
            let value = options.file_creation_time_millis.as_deref();
            Ok(Start::CreatedSince(long(
                SCAN_FILE_CREATION_TIME_MILLIS,
                value.unwrap_or_default(),
            )?))
        }
        StartupMode::FromCreationTimestamp => {
            let value = options.creation_time_millis.as_deref().unwrap_or_default();
            let millis = long(SCAN_CREATION_TIME_MILLIS, value)?;
            from_creation_time(table, millis)
        }
        StartupMode::CompactedFull => compacted(table),
        StartupMode::Incremental => incremental::plan(table, &options),
        StartupMode::LatestFull | StartupMode::Latest => Ok(Start::Mode(mode)),
    }
}

/// `compacted-full` in a batch scan: the latest snapshot that closes a compaction, read whole
/// (`CompactedStartingScanner`: the latest COMPACT snapshot; with `changelog-producer=full-compaction` or
/// `full-compaction.delta-commits=D` set, `FullCompactedStartingScanner`: the latest COMPACT snapshot whose
/// commit identifier is a multiple of D (1 by default) or `Long.MAX_VALUE`), found from the latest snapshot
/// down to the earliest, skipping missing files (`SnapshotManager#pickOrLatest`); the latest snapshot when
/// none is.
///
/// Errors: [`Error::InvalidOption`] when `full-compaction.delta-commits` is not an int,
/// [`Error::Unsupported`] when it is 0; the snapshot files' read errors.
fn compacted(table: &Table) -> Result<Start> {
    use crate::snapshot::CommitKind;
    const DELTA_COMMITS: &str = "full-compaction.delta-commits";
    let full = table.options().changelog_producer
        == crate::options::ChangelogProducer::FullCompaction
        || table.schema().option(DELTA_COMMITS).is_some();
    let delta_commits = match table.schema().option(DELTA_COMMITS) {
        Some(value) => value.trim().parse::<i32>().map_err(|_| {
            crate::options::InvalidOption::new(
                DELTA_COMMITS,
                crate::options::ValueError::NotAnInt(value.to_string()),
            )
            .at(table.path().join("schema"))
        })?,
        None => 1,
    };
    if delta_commits == 0 {
        return Err(Error::Unsupported {
            path: table.path().join("schema"),
            reason: format!(
                "scan.mode=compacted-full with {DELTA_COMMITS}=0 (the release divides by it)"
            ),
        });
    }
    let picked = |s: &Snapshot| {
        s.commit_kind == CommitKind::Compact
            && (!full
                || s.commit_identifier == i64::MAX
                || s.commit_identifier % i64::from(delta_commits) == 0)
    };
    let manager = table.snapshot_manager();
    let (Some(latest), Some(earliest)) = (
        manager.latest_snapshot_id()?,
        manager.earliest_snapshot_id()?,
    ) else {
        return Ok(Start::Mode(ScanMode::Batch { snapshot: None }));
    };
    for id in (earliest..=latest).rev() {
        if manager.snapshot_exists(id) && picked(&manager.snapshot(id)?) {
            return Ok(Start::Mode(ScanMode::Batch { snapshot: Some(id) }));
        }
    }
    Ok(Start::Mode(ScanMode::Batch {
        snapshot: Some(latest),
    }))
}

/// The start time of `from-timestamp`: the option that gives it, its value, and the time in milliseconds
/// since the epoch (`scan.timestamp-millis`, else `scan.timestamp` parsed as
/// [`time_travel::parse_timestamp_text`] reads it).
///
/// Every release reads `scan.timestamp` so (1.0 and 1.1 in `CoreOptions#scanTimestampMills`, later ones in
/// `AbstractDataTableScan`).
///
/// Errors: [`Error::InvalidOption`] naming the schema directory when `scan.timestamp-millis` is not a long;
/// [`Error::Unsupported`] for a `scan.timestamp` outside the forms read here.
fn start_time<'o>(
    table: &Table,
    options: &'o StartOptions,
) -> Result<(&'static str, &'o str, i64)> {
    let at_schema = |e: crate::options::InvalidOption| e.at(table.path().join("schema"));
    if let Some(value) = &options.timestamp_millis {
        let key = SCAN_TIMESTAMP_MILLIS[0];
        return Ok((key, value, long_of(key, value).map_err(at_schema)?));
    }
    let value = options.timestamp_text.as_deref().unwrap_or_default();
    match time_travel::parse_timestamp_text(value.trim()) {
        Some(millis) => Ok((SCAN_TIMESTAMP, value, millis)),
        None => Err(Error::Unsupported {
            path: table.path().join("schema"),
            reason: format!(
                "the table's own {SCAN_TIMESTAMP}={value}: not a `yyyy-M-d[ H:m:s[.fraction]]` local time \
                 this reader parses as the release's DateTimeUtils#parseTimestampData does"
            ),
        }),
    }
}

/// `createCreationTimestampStartingScanner` of a batch scan: the snapshot after the latest one committed
/// before `millis`, when it exists, else the latest snapshot's files created at or after `millis`.
///
/// Errors: [`Error::Unsupported`] naming the table when its changelog outlives its snapshots (the search
/// then runs over long-lived changelogs), or when the snapshot found exists only as a long-lived changelog;
/// the snapshot files' errors.
fn from_creation_time(table: &Table, millis: i64) -> Result<Start> {
    let unsupported = |reason: &str| Error::Unsupported {
        path: table.path().to_path_buf(),
        reason: format!("the table's own {SCAN_CREATION_TIME_MILLIS}={millis} {reason}"),
    };
    if table.options().changelog_lifecycle_decoupled {
        return Err(unsupported(
            "on a table whose changelog outlives its snapshots (the releases search the long-lived changelogs)",
        ));
    }
    let manager = table.snapshot_manager();
    match time_travel::earlier_than(table, millis)?.map(|id| id + 1) {
        Some(id) if manager.snapshot_exists(id) => {
            Ok(Start::Mode(ScanMode::Batch { snapshot: Some(id) }))
        }
        Some(id) if manager.changelog_exists(id) => Err(unsupported(&format!(
            "names snapshot {id}, which exists only as a long-lived changelog"
        ))),
        _ => Ok(Start::CreatedSince(millis)),
    }
}

/// A batch scan of the table's own `scan.watermark=value` (`StaticFromWatermarkStartingScanner`): the whole of
/// the first snapshot whose watermark is at or past `watermark` ([`watermark::later_or_equal`]).
///
/// Errors: [`Error::Snapshot`] naming the snapshot directory when there is none, in the release's words;
/// [`Error::Unsupported`] on a table with a fallback or primary branch, and as [`check_same_columns`] and
/// [`watermark::later_or_equal`]; the snapshot files' read errors.
fn from_watermark(table: &Table, value: &str, watermark: i64) -> Result<Start> {
    refuse_other_branch(table, SCAN_WATERMARK, value)?;
    match watermark::later_or_equal(table, watermark)? {
        Some(snapshot) => {
            check_same_columns(table, &snapshot, SCAN_WATERMARK, value)?;
            Ok(Start::Mode(ScanMode::Batch {
                snapshot: Some(snapshot.id),
            }))
        }
        None => Err(watermark::none_that_late(table, watermark)),
    }
}

/// A start option `key=value` of a table with a fallback or primary branch (a tag, a watermark, an increment):
/// refused by name, since what the released reader gives the other branch is not modelled.
///
/// Errors: [`Error::Unsupported`] naming the table's schema directory.
fn refuse_other_branch(table: &Table, key: &str, value: &str) -> Result<()> {
    if table.primary().is_some() || table.fallback().is_some() {
        return Err(Error::Unsupported {
            path: table.path().join("schema"),
            reason: format!(
                "the table's own {key}={value} on a table with a fallback or primary branch (what the \
                 released reader gives the other branch is not modelled)"
            ),
        });
    }
    Ok(())
}

/// The validation of `table`'s own start options alone, which the table's load runs before any scan or
/// system table (`FileStoreTableFactory#create` copies the table with no dynamic option, and the copy runs
/// `SchemaValidation#validateStartupMode`): a schema that a later release wrote may fail this release's
/// validation there, whatever a scan sets (`incremental-to-auto-tag` with `scan.mode=incremental` on 1.0.x).
///
/// Errors: [`Error::InvalidOption`] naming the schema directory, as [`StartOptions::validate`] words it.
pub(crate) fn validate_own_options(table: &Table) -> Result<()> {
    StartOptions::of(table, ScanMode::Batch { snapshot: None })
        .validate()
        .map_err(|e| e.at(table.path().join("schema")))
}

/// The snapshot tag `name` of `table`'s branch holds (`<branch>/tag/tag-<name>`, `TagManager`).
fn tagged(table: &Table, name: &str) -> Result<Box<Snapshot>> {
    refuse_other_branch(table, SCAN_TAG_NAME, name)?;
    let snapshot = Snapshot::read(&existing_tag(table, name)?)?;
    check_same_columns(table, &snapshot, SCAN_TAG_NAME, name)?;
    Ok(Box::new(snapshot))
}

/// The file of tag `name` of `table`'s branch (`<branch>/tag/tag-<name>`, `TagManager#tagPath`).
fn tag_path(table: &Table, name: &str) -> std::path::PathBuf {
    table.meta_path().join("tag").join(format!("tag-{name}"))
}

/// The names of `table`'s tags (the `tag-<name>` files of its branch's `tag/` directory, in the listing's
/// order), none when it has no such directory (`TagManager#tagObjects` before its sort).
///
/// Errors: the file system's, naming the directory.
pub(crate) fn tag_names(table: &Table) -> Result<Vec<String>> {
    let dir = table.meta_path().join("tag");
    let io = crate::fileio::for_path(&dir)?;
    match io.list(&dir) {
        Ok(names) => Ok(names
            .iter()
            .filter_map(|n| n.strip_prefix("tag-").map(str::to_owned))
            .collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(Error::io(&dir, e)),
    }
}

/// [`tag_path`] of a tag that exists.
///
/// Errors: [`Error::Snapshot`] naming the tag file when it does not exist, in `TagManager#taggedSnapshot`'s
/// words; the file system's errors.
fn existing_tag(table: &Table, name: &str) -> Result<std::path::PathBuf> {
    let path = tag_path(table, name);
    if !crate::fileio::exists(&path)? {
        return Err(Error::Snapshot {
            path,
            reason: format!("Tag '{name}' doesn't exist."),
        });
    }
    Ok(path)
}

/// Refuses a batch scan of `snapshot` (named by the table's own `key=value`) written with a schema whose
/// columns are not the latest schema's: the released reader then reads with that schema (time travel).
///
/// Errors: [`Error::Unsupported`] naming the table's schema directory.
fn check_same_columns(table: &Table, snapshot: &Snapshot, key: &str, value: &str) -> Result<()> {
    let written = table.schema_by_id(snapshot.schema_id)?;
    if written.fields != table.schema().fields {
        return Err(Error::Unsupported {
            path: table.path().join("schema"),
            reason: format!(
                "the table's own {key}={value} names snapshot {} of schema {}, whose columns are not the \
                 latest schema's: the released reader reads it with that schema (time travel)",
                snapshot.id, snapshot.schema_id
            ),
        });
    }
    Ok(())
}

/// The snapshot the table's own `scan.snapshot-id`, `scan.tag-name`, `scan.watermark` or
/// `scan.timestamp-millis` names, for the metadata tables that travel to it (`$manifests`: `TimeTravelUtil`);
/// `None` for the latest (without these options, or where the release falls back to the latest: a watermark
/// past every snapshot up to 1.1.x, `resolveSnapshotFromOptions`; from 1.2.0 `StaticFromWatermarkStartingScanner`
/// fails on it).
///
/// Errors: [`Error::InvalidOption`] when the option is not a long or fails validation; the snapshot's or
/// tag's read errors ([`Error::Snapshot`] for a tag that does not exist, or from 1.2.0 for a time before
/// every snapshot); [`Error::Unsupported`] as in [`with_table_start`].
pub(crate) fn travelled_snapshot(table: &Table) -> Result<Option<Snapshot>> {
    let options = StartOptions::of(table, ScanMode::Batch { snapshot: None });
    // `scan.timestamp` travels from 1.2.0 (`TimeTravelUtil`'s keys); before, the latest snapshot.
    let text_travels = options.timestamp_text.is_some() && table.release() >= V1_2_0;
    let named = [
        options.snapshot_id.is_some(),
        options.tag_name.is_some(),
        options.watermark.is_some(),
        options.timestamp_millis.is_some(),
        text_travels,
    ];
    match named.iter().filter(|n| **n).count() {
        0 => return Ok(None),
        1 => {}
        _ => {
            return Err(Error::Unsupported {
                path: table.path().join("schema"),
                reason:
                    "a metadata table of a table with more than one of its own scan.snapshot-id, \
                         scan.tag-name, scan.watermark and scan.timestamp-millis"
                        .to_owned(),
            })
        }
    }
    if let Some(value) = &options.watermark {
        let at_schema = |e: crate::options::InvalidOption| e.at(table.path().join("schema"));
        let watermark = long_of(SCAN_WATERMARK, value).map_err(at_schema)?;
        return match watermark::later_or_equal(table, watermark)? {
            Some(snapshot) => Ok(Some(snapshot)),
            None if table.release() >= V1_2_0 => Err(watermark::none_that_late(table, watermark)),
            None => Ok(None),
        };
    }
    if options.timestamp_millis.is_some() || text_travels {
        let (_, _, millis) = start_time(table, &options)?;
        return match time_travel::earlier_or_equal(table, millis)? {
            Some(snapshot) => Ok(Some(snapshot)),
            None => match table.release().rules().timestamp_before_earliest {
                TimestampBeforeEarliest::Fails => Err(time_travel::none_that_early(table, millis)?),
                _ => Ok(None),
            },
        };
    }
    match with_table_start(table, ScanMode::Batch { snapshot: None })? {
        Start::Tagged(snapshot) => Ok(Some(*snapshot)),
        Start::Mode(ScanMode::Batch { snapshot: Some(id) }) => table.snapshot(id).map(Some),
        _ => Ok(None),
    }
}
