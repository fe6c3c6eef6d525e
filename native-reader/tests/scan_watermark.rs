//! A table's own `scan.watermark` and `scan.bounded.watermark` read natively, on copies of the committed corpora
//! `c71-table-scan-watermark` and `c72-scan-bounded-watermark`
//! (written by Paimon 2.0.0) with the option's value edited.
//!
//! The scenario's five commits carry watermarks 1000, none, 3000, 2000 and 5000, so the snapshot files carry
//! 1000, 1000, 3000, 3000, 5000 and 5000 (snapshot 6 is the COMPACT one of commit 5). Commit `c` upserts keys
//! `c`, `c + 1` and `c + 2` with `v<c>-<k>`; commit 4 also deletes key 1. The expected rows are those writes,
//! merged up to the snapshot the release's search (`SnapshotManager#laterOrEqualWatermark`) picks. The
//! released readers' agreement on the committed value (2500), in every scan, is checked by the harness's
//! `corpus_parity`.

use std::path::{Path, PathBuf};

use native_reader::{Error, PaimonRelease, Table};

use crate::common;
use common::{batch_read, copy_dir, edit_latest_schema};

/// The scenario's writes, merged up to snapshot `snapshot` (1 to 5), as the batch read renders them (also
/// `scan_version`'s expectation, on copies of the same table).
pub(crate) fn snapshot_rows(snapshot: i64) -> Vec<String> {
    let mut latest = std::collections::BTreeMap::new();
    for commit in 1..=snapshot {
        for key in commit..commit + 3 {
            latest.insert(key, format!("v{commit}-{key}"));
        }
        if commit == 4 {
            latest.remove(&1);
        }
    }
    let mut rows: Vec<String> = latest
        .into_iter()
        .map(|(k, v)| format!(r#"+I ({k}, "{v}")"#))
        .collect();
    rows.sort();
    rows
}

/// c71's table copied, its `scan.watermark=2500` replaced by `value`.
fn with_watermark(value: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora/c71-table-scan-watermark/paimon-2.0.0/table");
    copy_dir(&corpus, &table);
    edit_latest_schema(
        &table,
        "\"scan.watermark\" : \"2500\"",
        &format!("\"scan.watermark\" : \"{value}\""),
    );
    (dir, table)
}

#[test]
fn the_first_snapshot_at_or_past_the_watermark_is_read_on_every_release() {
    // (watermark, the snapshot the search ends on)
    for (watermark, snapshot) in [
        // The earliest snapshot's watermark is already at or past it.
        ("0", 1),
        ("1000", 1),
        // The committed value: the first snapshot past it.
        ("2500", 3),
        // Equal to snapshots 3 and 4: the first probe (snapshot 3) matches.
        ("3000", 3),
        // Snapshot 4 carries 3000, so the next one past 4000 is snapshot 5 (its COMPACT snapshot 6 has the
        // same rows).
        ("4000", 5),
        ("5000", 5),
    ] {
        let (_dir, table) = with_watermark(watermark);
        for release in PaimonRelease::ALL {
            assert_eq!(
                batch_read(&table, release).unwrap(),
                snapshot_rows(snapshot),
                "scan.watermark={watermark} as {release}"
            );
        }
    }
}

#[test]
fn a_watermark_past_every_snapshot_fails_with_the_release_message() {
    let (_dir, table) = with_watermark("5001");
    for release in PaimonRelease::ALL {
        let err = batch_read(&table, release).unwrap_err();
        assert!(matches!(err, Error::Snapshot { .. }), "{release}: {err}");
        assert!(
            err.to_string()
                .contains("There is currently no snapshot later than or equal to watermark[5001]"),
            "{release}: {err}"
        );
    }
}

#[test]
fn a_watermark_that_is_not_a_long_is_an_invalid_option() {
    let (_dir, table) = with_watermark("soon");
    let err = batch_read(&table, PaimonRelease::V2_0_0).unwrap_err();
    assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
    assert!(err.to_string().contains("scan.watermark"), "{err}");
}

#[test]
fn a_table_whose_snapshots_carry_no_watermark_has_no_snapshot_to_read() {
    // Snapshots written without a watermark carry `Long.MIN_VALUE`: the search returns no snapshot, and the
    // batch scan fails as the release's does.
    let (_dir, table) = with_watermark("1");
    let snapshots = table.join("snapshot");
    for entry in std::fs::read_dir(&snapshots).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("snapshot-")
        {
            let text = std::fs::read_to_string(&path).unwrap();
            let edited = ["1000", "3000", "5000"].iter().fold(text, |t, w| {
                t.replace(
                    &format!("\"watermark\" : {w}"),
                    "\"watermark\" : -9223372036854775808",
                )
            });
            std::fs::write(&path, edited).unwrap();
        }
    }
    let opened = Table::open_as(&table, PaimonRelease::V2_0_0).unwrap();
    assert_eq!(opened.snapshot(6).unwrap().watermark, Some(i64::MIN));
    let err = batch_read(&table, PaimonRelease::V1_0_0).unwrap_err();
    assert!(
        err.to_string()
            .contains("There is currently no snapshot later than or equal to watermark[1]"),
        "{err}"
    );
}

/// The splits' snapshot ids of `table`'s plan in `mode` up to snapshot 6, the latest, as `release`.
fn planned_snapshots(table: &Path, release: PaimonRelease, mode: &str) -> Vec<i64> {
    let table = Table::open_as(table, release).unwrap();
    let splits = match mode {
        "stream" => table.plan_stream(1, 6),
        "stream-full" => table.plan_stream_full(1, 6),
        _ => table.plan_latest_full(6),
    };
    splits.unwrap().iter().map(|s| s.snapshot_id).collect()
}

/// `c72-scan-bounded-watermark`: C71's table and commits with `scan.bounded.watermark=2500`. A stream ends
/// at snapshot 3, the first whose watermark (3000) is past the bound; a full first plan of a snapshot past it
/// (the latest, 5000) is the stream's only plan (the released reader's streams, recorded in `case.json` and
/// compared by `corpus_parity`, end there too). Without the bound, each stream plans every snapshot.
#[test]
fn a_bounded_stream_ends_at_the_first_snapshot_past_its_watermark() {
    let table = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora/c72-scan-bounded-watermark/paimon-2.0.0/table");
    for release in PaimonRelease::ALL {
        // Commits 1 and 2 are the APPEND snapshots 1 and 2 (changelog-producer=input: one split each).
        assert_eq!(
            planned_snapshots(&table, release, "stream"),
            [1, 2],
            "{release}"
        );
        assert_eq!(
            planned_snapshots(&table, release, "stream-full"),
            [1, 2],
            "{release}"
        );
        assert_eq!(
            planned_snapshots(&table, release, "latest-full"),
            [6],
            "{release}"
        );
    }
    // The same table unbounded: snapshots 1 to 5 stream (the COMPACT snapshot 6 has no changelog).
    let dir = tempfile::tempdir().unwrap();
    let unbounded = dir.path().join("table");
    copy_dir(&table, &unbounded);
    edit_latest_schema(
        &unbounded,
        "\"scan.bounded.watermark\" : \"2500\"",
        "\"scan.bounded.watermark\" : \"9000\"",
    );
    assert_eq!(
        planned_snapshots(&unbounded, PaimonRelease::V2_0_0, "stream"),
        [1, 2, 3, 4, 5]
    );
    // A bound that is not a long fails the stream, naming the option.
    edit_latest_schema(
        &unbounded,
        "\"scan.bounded.watermark\" : \"9000\"",
        "\"scan.bounded.watermark\" : \"later\"",
    );
    let err = Table::open_as(&unbounded, PaimonRelease::V2_0_0)
        .unwrap()
        .plan_stream(1, 6)
        .unwrap_err();
    assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
    assert!(err.to_string().contains("scan.bounded.watermark"), "{err}");
}
