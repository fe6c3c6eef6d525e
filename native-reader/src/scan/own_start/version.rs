//! A table's own `scan.version` (`CoreOptions.SCAN_VERSION`), as the table's load resolves it: the load's
//! time travel (1.0.x and 1.1.x `AbstractFileStoreTable#travelToVersion`, from 1.2.0
//! `TimeTravelUtil#adaptScanVersion` in `AbstractFileStoreTable#tryTimeTravel`) replaces it with the start
//! option it names when it finds that option's snapshot:
//! - the name of a tag that exists: `scan.tag-name` (tags first, whatever the name looks like);
//! - `watermark-<N>`: `scan.watermark=N`, when a snapshot's watermark reaches N
//!   ([`super::watermark::later_or_equal`]);
//! - digits: `scan.snapshot-id`, when that snapshot exists.
//!
//! The table is then read as one with that option of its own ([`super`]). Every other case, where the load
//! keeps `scan.version` (a snapshot not found: 1.0.x returns no schema, 1.2.0 on catch the failure) or fails
//! (1.0.x and 1.1.x, on a name that is none of these; the later releases differ from one another there:
//! jvm-bridge's replays show 1.2.0 streaming on as without it, 1.4.2 and 2.0.0 failing as with a tag that
//! does not exist), and `scan.version` beside another start option or a `scan.mode` (the
//! releases resolve the pair in different orders), or a snapshot of another schema's columns (the load reads
//! every scan with that schema), is left as it is and refused by name
//! ([`crate::read_options::UNSUPPORTED_READ_OPTIONS`]).

use crate::error::Result;
use crate::snapshot::Snapshot;
use crate::table::Table;

use super::startup::{
    INCREMENTAL_BETWEEN, INCREMENTAL_BETWEEN_TIMESTAMP, INCREMENTAL_TO_AUTO_TAG,
    SCAN_CREATION_TIME_MILLIS, SCAN_FILE_CREATION_TIME_MILLIS, SCAN_MODE, SCAN_SNAPSHOT_ID,
    SCAN_TAG_NAME, SCAN_TIMESTAMP, SCAN_TIMESTAMP_MILLIS, SCAN_WATERMARK,
};

/// `scan.version`.
pub(crate) const SCAN_VERSION: &str = "scan.version";

/// The prefix of a watermark version (`TimeTravelUtil.WATERMARK_PREFIX`).
const WATERMARK_PREFIX: &str = "watermark-";

/// The start option (key, value) the load of `table` puts in place of its own `scan.version`; `None` when
/// the table has none, or when the load keeps it (see the module doc).
///
/// Errors: the snapshot and tag files' read errors; as [`super::watermark::later_or_equal`].
pub(crate) fn resolved(table: &Table) -> Result<Option<(&'static str, String)>> {
    let schema = table.schema();
    let Some(version) = schema.option(SCAN_VERSION) else {
        return Ok(None);
    };
    let others = [
        SCAN_SNAPSHOT_ID,
        SCAN_TAG_NAME,
        SCAN_WATERMARK,
        SCAN_TIMESTAMP_MILLIS[0],
        SCAN_TIMESTAMP_MILLIS[1],
        SCAN_TIMESTAMP,
        SCAN_FILE_CREATION_TIME_MILLIS,
        SCAN_CREATION_TIME_MILLIS,
        INCREMENTAL_BETWEEN,
        INCREMENTAL_BETWEEN_TIMESTAMP,
        INCREMENTAL_TO_AUTO_TAG,
        SCAN_MODE[0],
        SCAN_MODE[1],
    ];
    if others.iter().any(|k| schema.option(k).is_some())
        || table.primary().is_some()
        || table.fallback().is_some()
    {
        return Ok(None);
    }
    let tag = super::tag_path(table, version);
    let (key, value, snapshot) = if crate::fileio::exists(&tag)? {
        (SCAN_TAG_NAME, version.to_owned(), Snapshot::read(&tag)?)
    } else if let Some(digits) = version.strip_prefix(WATERMARK_PREFIX) {
        let Ok(watermark) = digits.parse::<i64>() else {
            return Ok(None);
        };
        match super::watermark::later_or_equal(table, watermark)? {
            Some(snapshot) => (SCAN_WATERMARK, watermark.to_string(), snapshot),
            None => return Ok(None),
        }
    } else if !version.is_empty() && version.bytes().all(|b| b.is_ascii_digit()) {
        match version.parse::<i64>() {
            Ok(id) if table.snapshot_manager().snapshot_exists(id) => {
                (SCAN_SNAPSHOT_ID, version.to_owned(), table.snapshot(id)?)
            }
            _ => return Ok(None),
        }
    } else {
        return Ok(None);
    };
    // The load reads the table with that snapshot's schema in every scan (`schema(snapshot.schemaId())`);
    // only one with the latest schema's columns is read here.
    if table.schema_by_id(snapshot.schema_id)?.fields != schema.fields {
        return Ok(None);
    }
    Ok(Some((key, value)))
}
