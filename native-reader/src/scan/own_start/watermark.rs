//! The snapshot a table's own `scan.watermark` names (`StaticFromWatermarkStartingScanner`): the first
//! snapshot whose watermark is at or past it, found by `SnapshotManager#laterOrEqualWatermark`'s binary
//! search over snapshot ids, which assumes watermarks rise with the id (a commit's snapshots carry the larger
//! of its committable's watermark and the latest snapshot's, `FileStoreCommitImpl`).

use crate::error::{Error, Result};
use crate::snapshot::Snapshot;
use crate::table::Table;

use super::time_travel::latest_and_earliest;

/// `SnapshotManager#laterOrEqualWatermark(watermark)`, as every release searches (1.0.x starts from
/// `earliestSnapshotId()`'s file, later releases from the earliest file that exists; the two agree when that
/// file exists, which [`latest_and_earliest`] requires):
/// - `None` without snapshots, or when the latest snapshot's watermark is `Long.MIN_VALUE` (no commit carried
///   one), or when no snapshot has a watermark field;
/// - the first snapshot with a watermark field when its watermark is at or past `watermark`;
/// - else the snapshot the binary search ends on: each probe that has no watermark field looks back to the
///   nearest one that has, and the search keeps the probe whose watermark was above `watermark`, or stops at
///   one equal to it (on equal watermarks, the first one it probes).
///
/// Errors: [`Error::Unsupported`] naming the latest snapshot's file when it has no watermark field (the
/// releases compare it unboxed and fail); [`Error::Snapshot`] when a snapshot the search reads is missing;
/// the snapshot files' read errors.
pub(super) fn later_or_equal(table: &Table, watermark: i64) -> Result<Option<Snapshot>> {
    let manager = table.snapshot_manager();
    let Some((latest, earliest)) = latest_and_earliest(table)? else {
        return Ok(None);
    };
    match manager.snapshot(latest)?.watermark {
        Some(i64::MIN) => return Ok(None),
        Some(_) => {}
        None => {
            return Err(Error::Unsupported {
                path: manager.snapshot_path(latest),
                reason:
                    "scan.watermark on a table whose latest snapshot has no watermark field (the \
                         releases unbox it and fail)"
                        .to_owned(),
            })
        }
    }
    let (mut low, mut high) = (earliest.id, latest);
    let mut first = earliest.watermark;
    while first.is_none() && low < high {
        low += 1;
        first = manager.snapshot(low)?.watermark;
    }
    let Some(first) = first else {
        return Ok(None);
    };
    if first >= watermark {
        return manager.snapshot(low).map(Some);
    }
    let mut found = None;
    while low <= high {
        let mut mid = low + (high - low) / 2;
        let probe = manager.snapshot(mid)?;
        let mut probed = probe.watermark;
        while probed.is_none() && mid >= low {
            mid -= 1;
            probed = manager.snapshot(mid)?.watermark;
        }
        match probed {
            None => low = mid + 1,
            Some(w) if w > watermark => {
                high = mid - 1;
                found = Some(probe);
            }
            Some(w) if w < watermark => low = mid + 1,
            Some(_) => return Ok(Some(probe)),
        }
    }
    Ok(found)
}

/// The release's error when a batch scan of `scan.watermark=watermark` finds no snapshot
/// (`StaticFromWatermarkStartingScanner#configure`), naming the snapshot directory.
pub(super) fn none_that_late(table: &Table, watermark: i64) -> Error {
    Error::Snapshot {
        path: table.snapshot_manager().snapshot_dir(),
        reason: format!(
            "There is currently no snapshot later than or equal to watermark[{watermark}]"
        ),
    }
}
