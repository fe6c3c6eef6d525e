//! A table's own `scan.snapshot-id` (a table option, not the scan's): what the released scans do with it
//! when the scan sets its own options over the table's (`Table.copy(dynamicOptions)`, the scan's winning).
//!
//! - A batch scan that names no snapshot reads this one (`CoreOptions#startupMode` is `FROM_SNAPSHOT`:
//!   `StaticFromSnapshotStartingScanner`).
//! - A streaming scan from a snapshot sets `scan.snapshot-id` itself, which replaces the table's.
//! - A `latest-full` scan fails: `SchemaValidation#validateStartupMode` wants no `scan.snapshot-id` with
//!   `LATEST_FULL`.
//!
//! The table's other start options (`scan.tag-name`, `scan.timestamp-millis`, …) stay refused by name
//! ([`crate::read_options::UNSUPPORTED_READ_OPTIONS`]).

use crate::error::Result;
use crate::options::{InvalidOption, ValueError};
use crate::table::Table;

use super::ScanMode;

/// `scan.snapshot-id` (`CoreOptions.SCAN_SNAPSHOT_ID`).
const SCAN_SNAPSHOT_ID: &str = "scan.snapshot-id";

/// The scan `mode` of `table` becomes, given the table's own `scan.snapshot-id` (see the module doc).
///
/// Errors: [`crate::Error::InvalidOption`] naming the schema directory when the option is not a 64-bit
/// integer (batch), or when the mode is [`ScanMode::LatestFull`] (the release's validation error);
/// [`crate::Error::Unsupported`] as [`check_same_columns`].
pub(crate) fn with_table_start(table: &Table, mode: ScanMode) -> Result<ScanMode> {
    let Some(value) = table.schema().option(SCAN_SNAPSHOT_ID) else {
        return Ok(mode);
    };
    let invalid =
        |e: ValueError| InvalidOption::new(SCAN_SNAPSHOT_ID, e).at(table.path().join("schema"));
    match mode {
        ScanMode::Batch { snapshot: None } => {
            let id = value
                .trim()
                .parse::<i64>()
                .map_err(|_| invalid(ValueError::NotALong(value.to_string())))?;
            check_same_columns(table, id)?;
            Ok(ScanMode::Batch { snapshot: Some(id) })
        }
        ScanMode::LatestFull => Err(invalid(ValueError::MustBeNullInMode("latest-full".into()))),
        other => Ok(other),
    }
}

/// Refuses a batch scan of snapshot `id` written with a schema whose columns are not the latest schema's:
/// the released reader then reads with that schema (`AbstractFileStoreTable#tryTimeTravel`), which this
/// reader does not. A snapshot that cannot be read is left to the plan, which names it.
///
/// Errors: [`crate::Error::Unsupported`] naming the snapshot file.
fn check_same_columns(table: &Table, id: i64) -> Result<()> {
    let Ok(snapshot) = table.snapshot(id) else {
        return Ok(());
    };
    let written = table.schema_by_id(snapshot.schema_id)?;
    if written.fields != table.schema().fields {
        return Err(crate::Error::Unsupported {
            path: table.snapshot_manager().snapshot_path(id),
            reason: format!(
                "the table's own {SCAN_SNAPSHOT_ID}={id} names a snapshot of schema {}, whose columns are \
                 not the latest schema's: the released reader reads it with that schema (time travel)",
                snapshot.schema_id
            ),
        });
    }
    Ok(())
}
