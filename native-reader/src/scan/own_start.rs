//! A table's own `scan.snapshot-id` or `scan.tag-name` (table options, not the scan's): what the released
//! scans do with them when the scan sets its own options over the table's (`Table.copy(dynamicOptions)`, the
//! scan's winning).
//!
//! `scan.snapshot-id=K`:
//! - a batch scan that names no snapshot reads K (`CoreOptions#startupMode` is `FROM_SNAPSHOT`:
//!   `StaticFromSnapshotStartingScanner`);
//! - a streaming scan from a snapshot sets `scan.snapshot-id` itself, which replaces the table's;
//! - a `latest-full` scan fails: `SchemaValidation#validateStartupMode` wants no `scan.snapshot-id` with
//!   `LATEST_FULL`.
//!
//! `scan.tag-name=T`:
//! - a batch scan that names no snapshot reads the tag's snapshot as the tag holds it, retained or not
//!   (`StaticFromTagStartingScanner`);
//! - a scan that sets `scan.snapshot-id` (streaming from a snapshot, a batch scan of a snapshot) fails
//!   validation (`FROM_SNAPSHOT` takes one of `scan.snapshot-id`, `scan.tag-name`, `scan.watermark`;
//!   `FROM_SNAPSHOT_FULL` none but the first), and so does `latest-full`.
//!
//! Either way the snapshot read must have the latest schema's columns: the released reader reads a snapshot
//! of another schema with that schema (`AbstractFileStoreTable#tryTimeTravel`), which this reader does not
//! (refused by name). The table's other start options (`scan.timestamp-millis`, `scan.watermark`, …) stay
//! refused by name ([`crate::read_options::UNSUPPORTED_READ_OPTIONS`]).

use crate::error::{Error, Result};
use crate::options::{InvalidOption, ValueError};
use crate::snapshot::Snapshot;
use crate::table::Table;

use super::ScanMode;

/// `scan.snapshot-id` (`CoreOptions.SCAN_SNAPSHOT_ID`).
const SCAN_SNAPSHOT_ID: &str = "scan.snapshot-id";
/// `scan.tag-name` (`CoreOptions.SCAN_TAG_NAME`).
const SCAN_TAG_NAME: &str = "scan.tag-name";

/// What a scan of a table plans, given the table's own start options.
#[derive(Debug)]
pub(crate) enum Start {
    /// The scan in this mode.
    Mode(ScanMode),
    /// The batch scan of this snapshot, a tag's (`StaticFromTagStartingScanner`).
    Tagged(Box<Snapshot>),
}

/// The scan `mode` of `table` becomes, given the table's own `scan.snapshot-id` and `scan.tag-name` (see
/// the module doc).
///
/// Errors: [`Error::InvalidOption`] naming the schema directory when `scan.snapshot-id` is not a 64-bit
/// integer (batch), or when the mode is one the release's validation refuses with the option;
/// [`Error::Snapshot`] naming the tag file when the tag does not exist; [`Error::Io`] / [`Error::Json`]
/// when it cannot be read; [`Error::Unsupported`] as [`check_same_columns`], or for a tag of a table with a
/// fallback or primary branch.
pub(crate) fn with_table_start(table: &Table, mode: ScanMode) -> Result<Start> {
    let invalid =
        |key: &str, e: ValueError| InvalidOption::new(key, e).at(table.path().join("schema"));
    if let Some(tag) = table.schema().option(SCAN_TAG_NAME) {
        return match mode {
            ScanMode::Batch { snapshot: None } => tagged(table, tag).map(Start::Tagged),
            ScanMode::LatestFull => Err(invalid(
                SCAN_TAG_NAME,
                ValueError::MustBeNullInMode("latest-full".into()),
            )),
            _ => Err(invalid(
                SCAN_TAG_NAME,
                ValueError::ConflictsWith(SCAN_SNAPSHOT_ID.into()),
            )),
        };
    }
    let Some(value) = table.schema().option(SCAN_SNAPSHOT_ID) else {
        return Ok(Start::Mode(mode));
    };
    match mode {
        ScanMode::Batch { snapshot: None } => {
            let id = value
                .trim()
                .parse::<i64>()
                .map_err(|_| invalid(SCAN_SNAPSHOT_ID, ValueError::NotALong(value.to_string())))?;
            if let Ok(snapshot) = table.snapshot(id) {
                check_same_columns(table, &snapshot, SCAN_SNAPSHOT_ID, value)?;
            }
            Ok(Start::Mode(ScanMode::Batch { snapshot: Some(id) }))
        }
        ScanMode::LatestFull => Err(invalid(
            SCAN_SNAPSHOT_ID,
            ValueError::MustBeNullInMode("latest-full".into()),
        )),
        other => Ok(Start::Mode(other)),
    }
}

/// The snapshot tag `name` of `table`'s branch holds (`<branch>/tag/tag-<name>`, `TagManager`).
fn tagged(table: &Table, name: &str) -> Result<Box<Snapshot>> {
    if table.primary().is_some() || table.fallback().is_some() {
        return Err(Error::Unsupported {
            path: table.path().to_path_buf(),
            reason: format!(
                "the table's own {SCAN_TAG_NAME}={name} on a table with a fallback or primary branch \
                 (which snapshot of the other branch the released reader reads is not modelled)"
            ),
        });
    }
    let path = table.meta_path().join("tag").join(format!("tag-{name}"));
    if !crate::fileio::exists(&path)? {
        return Err(Error::Snapshot {
            path,
            reason: format!("Tag '{name}' doesn't exist."),
        });
    }
    let snapshot = Snapshot::read(&path)?;
    check_same_columns(table, &snapshot, SCAN_TAG_NAME, name)?;
    Ok(Box::new(snapshot))
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

/// The snapshot the table's own `scan.snapshot-id` or `scan.tag-name` names, for the metadata tables that
/// travel to it (`$manifests`: `TimeTravelUtil.tryTravelOrLatest`); `None` without either option.
///
/// Errors: [`Error::InvalidOption`] when `scan.snapshot-id` is not a long; the snapshot's or tag's read
/// errors ([`Error::Snapshot`] for a tag that does not exist); [`Error::Unsupported`] as in
/// [`with_table_start`].
pub(crate) fn travelled_snapshot(table: &Table) -> Result<Option<Snapshot>> {
    match with_table_start(table, ScanMode::Batch { snapshot: None })? {
        Start::Tagged(snapshot) => Ok(Some(*snapshot)),
        Start::Mode(ScanMode::Batch { snapshot: Some(id) }) => table.snapshot(id).map(Some),
        Start::Mode(_) => Ok(None),
    }
}
