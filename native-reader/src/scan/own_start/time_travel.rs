//! The snapshots a table's own start times name: `scan.timestamp-millis`
//! (`SnapshotManager#earlierOrEqualTimeMills`) and `scan.creation-time-millis`
//! (`TimeTravelUtil#earlierThanTimeMills`), searched as the releases search them (a binary search over
//! snapshot ids, which assumes commit times rise with the id).

use crate::error::{Error, Result};
use crate::line::TimestampBeforeEarliest;
use crate::snapshot::Snapshot;
use crate::table::Table;

/// The snapshot a batch scan of `scan.timestamp-millis=millis` reads: the latest whose commit time
/// (`timeMillis`) is at most `millis`, found by the release's binary search (on equal times, the first one
/// it probes). `None` when there is none: no snapshot at all, or (from 1.1.1) every snapshot is later.
/// 1.0.x returns the earliest snapshot when it is later ([`TimestampBeforeEarliest::ReadsEarliest`]).
///
/// Errors: [`Error::Snapshot`] naming a snapshot file the search needs that is missing (as Java's
/// `snapshot(id)` fails); [`Error::Unsupported`] when the earliest snapshot file is missing (the releases
/// look further in different ways); read errors of the snapshot files.
pub(super) fn earlier_or_equal(table: &Table, millis: i64) -> Result<Option<Snapshot>> {
    let manager = table.snapshot_manager();
    let Some(latest) = manager.latest_snapshot_id()? else {
        return Ok(None);
    };
    let Some(earliest) = earliest_existing(table)? else {
        return Ok(None);
    };
    if earliest.time_millis > millis {
        return Ok(match table.release().rules().timestamp_before_earliest {
            TimestampBeforeEarliest::ReadsEarliest => Some(earliest),
            TimestampBeforeEarliest::FailsScan | TimestampBeforeEarliest::Fails => None,
        });
    }
    let (mut low, mut high) = (earliest.id, latest);
    let mut found = None;
    while low <= high {
        let mid = low + (high - low) / 2;
        let snapshot = manager.snapshot(mid)?;
        if snapshot.time_millis > millis {
            high = mid - 1;
        } else if snapshot.time_millis < millis {
            low = mid + 1;
            found = Some(snapshot);
        } else {
            return Ok(Some(snapshot));
        }
    }
    Ok(found)
}

/// The release's message for a batch scan of `scan.timestamp-millis=millis` that finds no snapshot
/// (`StaticFromTimestampStartingScanner`), as an [`Error::Snapshot`] naming the snapshot directory.
///
/// Errors: the earliest snapshot's read errors.
pub(super) fn none_that_early(table: &Table, millis: i64) -> Result<Error> {
    let earliest = earliest_existing(table)?
        .map(|s| s.time_millis.to_string())
        .unwrap_or_else(|| "null".to_owned());
    Ok(Error::Snapshot {
        path: table.snapshot_manager().snapshot_dir(),
        reason: format!(
            "There is currently no snapshot earlier than or equal to timestamp [{millis}], the earliest \
             snapshot's timestamp is [{earliest}]"
        ),
    })
}

/// `TimeTravelUtil#earlierThanTimeMills(…, startFromChangelog = false, returnNullIfTooEarly = true)`: the
/// latest snapshot id whose commit time is before `millis` (a binary search), `None` when the earliest
/// snapshot is not before it or there is no snapshot.
///
/// Errors: as [`earlier_or_equal`].
pub(super) fn earlier_than(table: &Table, millis: i64) -> Result<Option<i64>> {
    let manager = table.snapshot_manager();
    let Some(latest) = manager.latest_snapshot_id()? else {
        return Ok(None);
    };
    let Some(earliest) = earliest_existing(table)? else {
        return Ok(None);
    };
    if earliest.time_millis >= millis {
        return Ok(None);
    }
    let (mut low, mut high) = (earliest.id, latest);
    while low < high {
        let mid = (low + high + 1) / 2;
        if manager.snapshot(mid)?.time_millis < millis {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    Ok(Some(low))
}

/// The earliest snapshot (`SnapshotManager#earliestSnapshotId`, then its file); `None` without snapshots.
///
/// Errors: [`Error::Unsupported`] naming the file when the earliest id's file is missing (1.0 fails, later
/// releases try the next ids, each release within its own bound); its read errors.
fn earliest_existing(table: &Table) -> Result<Option<Snapshot>> {
    let manager = table.snapshot_manager();
    let Some(id) = manager.earliest_snapshot_id()? else {
        return Ok(None);
    };
    if !manager.snapshot_exists(id) {
        return Err(Error::Unsupported {
            path: manager.snapshot_path(id),
            reason: "a start time of a table whose earliest snapshot file is missing (the releases look \
                     for the next one each in their own way)"
                .to_owned(),
        });
    }
    manager.snapshot(id).map(Some)
}
