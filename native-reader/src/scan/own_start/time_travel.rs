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
    let Some((latest, earliest)) = latest_and_earliest(table)? else {
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
    let Some((latest, earliest)) = latest_and_earliest(table)? else {
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

/// The latest snapshot id and the earliest snapshot, where both searches start; `None` without snapshots.
///
/// Errors: as [`earliest_existing`].
pub(super) fn latest_and_earliest(table: &Table) -> Result<Option<(i64, Snapshot)>> {
    let Some(latest) = table.snapshot_manager().latest_snapshot_id()? else {
        return Ok(None);
    };
    Ok(earliest_existing(table)?.map(|earliest| (latest, earliest)))
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

/// `scan.timestamp` as every release reads it: `DateTimeUtils#parseTimestampData(text, 3, zone)`
/// (`yyyy-[MM][M]-[dd][d]`, optionally ` [HH][H]:[mm][m]:[ss][s]` and a fraction of up to 9 digits after a
/// point, the whole text) floored to milliseconds, as a local time in the JVM's zone, which jvm-bridge's JVM
/// sets to UTC. Milliseconds since the epoch; `None` for a text outside the forms read here: a year of other
/// than 4 digits, a field out of range (hour 24 included), anything left over. A day past the month's end
/// is moved to its last day, as Java's `SMART` resolver does.
pub(super) fn parse_timestamp_text(text: &str) -> Option<i64> {
    let mut rest = text;
    let year = take_number(&mut rest, 4, 4, Some('-'))?;
    let month = take_number(&mut rest, 1, 2, Some('-'))?;
    let day = take_number(&mut rest, 1, 2, None)?;
    let (mut hour, mut minute, mut second, mut nanos) = (0, 0, 0, 0);
    if let Some(time) = rest.strip_prefix(' ') {
        rest = time;
        hour = take_number(&mut rest, 1, 2, Some(':'))?;
        minute = take_number(&mut rest, 1, 2, Some(':'))?;
        second = take_number(&mut rest, 1, 2, None)?;
        if let Some(fraction) = rest.strip_prefix('.') {
            let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 9 {
                return None;
            }
            nanos = format!("{:0<9}", &fraction[..digits]).parse::<u32>().ok()?;
            rest = &fraction[digits..];
        }
    }
    if !rest.is_empty()
        || year == 0
        || !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let last_day = match month {
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => 31,
    };
    let days = days_from_civil(
        i64::from(year),
        i64::from(month),
        i64::from(day.min(last_day)),
    );
    let seconds = days * 86_400 + i64::from(hour * 3600 + minute * 60 + second);
    Some(seconds * 1000 + i64::from(nanos / 1_000_000))
}

/// The decimal number of `min..=max` digits at the start of `rest`, then the character `after` when given;
/// `rest` moves past both. `None` when they are not there.
fn take_number(rest: &mut &str, min: usize, max: usize, after: Option<char>) -> Option<u32> {
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits < min || digits > max {
        return None;
    }
    let value = rest[..digits].parse().ok()?;
    *rest = &rest[digits..];
    if let Some(c) = after {
        *rest = rest.strip_prefix(c)?;
    }
    Some(value)
}

/// Days from 1970-01-01 to the proleptic Gregorian date `y-m-d`.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::parse_timestamp_text;

    #[test]
    fn timestamp_texts_parse_as_the_releases_formatter_reads_them_in_utc() {
        for (text, millis) in [
            ("1970-01-01", Some(0)),
            ("1970-1-2", Some(86_400_000)),
            ("2026-12-07 08:30:05.123", Some(1_796_632_205_123)),
            ("2026-12-07 8:30:5", Some(1_796_632_205_000)),
            ("2026-12-07 08:30:05.1239", Some(1_796_632_205_123)),
            ("2026-12-07 08:30:05.", Some(1_796_632_205_000)),
            // SMART moves a day past the month's end to its last day.
            ("2023-02-30", Some(1_677_542_400_000)),
            ("2024-02-30", Some(1_709_164_800_000)),
            ("2026-12-07 08:30", None),
            ("2026-13-01", None),
            ("2026-12-07 24:00:00", None),
            ("2026-12-07T08:30:05", None),
            ("26-12-07", None),
            ("2026-12-07 08:30:05.1234567890", None),
            ("noon", None),
        ] {
            assert_eq!(parse_timestamp_text(text), millis, "{text}");
        }
    }
}
