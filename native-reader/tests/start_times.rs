//! A table's own start times, natively, on committed corpora written by Paimon 2.0.0, each after four
//! commits of three upserts whose released batch reads `case.json` recorded (snapshots 1 to 4):
//! - `c59-table-scan-timestamp-millis`: `scan.timestamp-millis` at snapshot 2's commit time;
//! - `c60-table-scan-file-creation-time`: `scan.file-creation-time-millis` 1 ms after it;
//! - `c61-table-scan-creation-time`: `scan.creation-time-millis` at snapshot 3's commit time (1.2.0 on);
//! - `c63-table-scan-timestamp`: `scan.timestamp` at snapshot 2's commit time as a UTC local date and time;
//! - `c62-table-scan-mode-compacted-full`: `scan.mode=compacted-full` after three commits, the second with a
//!   full compaction (its reads: snapshots 1, 3 and 4).
//!
//! Expected rows are the released writer's own batch reads, or the rows the scenario wrote; the released
//! reader's agreement on the committed tables is checked by the harness's `corpus_parity`.

use std::path::{Path, PathBuf};

use native_reader::scan::ScanMode;
use native_reader::{Error, PaimonRelease, Table};

use crate::common;
use common::{batch_read, copy_dir, edit_latest_schema, recorded_batch_reads};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora")
        .join(name)
        .join("paimon-2.0.0")
}

/// The released reads of snapshots 1 to 4.
fn recorded(name: &str) -> [Vec<String>; 4] {
    recorded_batch_reads(&corpus(name)).try_into().unwrap()
}

/// The corpus's table copied into a fresh directory, its latest schema's text `from` replaced by `to`.
fn edited(name: &str, from: &str, to: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    copy_dir(&corpus(name).join("table"), &table);
    edit_latest_schema(&table, from, to);
    (dir, table)
}

/// The corpus's table copied into a fresh directory, with its own `key` set to `value` in place.
fn with_option(name: &str, key: &str, value: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    copy_dir(&corpus(name).join("table"), &table);
    let schema = std::fs::read_to_string(latest_schema(&table)).unwrap();
    let at = schema.find(&format!("\"{key}\" : \"")).unwrap();
    let start = at + key.len() + 6;
    let end = start + schema[start..].find('"').unwrap();
    edit_latest_schema(
        &table,
        &format!("\"{key}\" : \"{}\"", &schema[start..end]),
        &format!("\"{key}\" : \"{value}\""),
    );
    (dir, table)
}

fn latest_schema(table: &Path) -> PathBuf {
    let mut ids: Vec<i64> = std::fs::read_dir(table.join("schema"))
        .unwrap()
        .map(|e| {
            e.unwrap().file_name().to_str().unwrap()["schema-".len()..]
                .parse()
                .unwrap()
        })
        .collect();
    ids.sort();
    table.join(format!("schema/schema-{}", ids.last().unwrap()))
}

fn plan(table: &Path, release: PaimonRelease, mode: ScanMode) -> Result<(), Error> {
    let table = Table::open_as(table, release)?;
    table.plan(mode, 4).map(drop)
}

const STREAMS: [ScanMode; 3] = [
    ScanMode::Stream { from_snapshot: 1 },
    ScanMode::StreamFull { from_snapshot: 1 },
    ScanMode::LatestFull,
];

/// Every streaming scan of `table` as `release` fails the release's validation, naming option `key`.
fn streams_fail_naming(table: &Path, release: PaimonRelease, key: &str) {
    for mode in STREAMS {
        let err = plan(table, release, mode).unwrap_err();
        assert!(matches!(err, Error::InvalidOption { .. }), "{mode}: {err}");
        assert!(
            err.to_string().contains(&format!("`{key}`")),
            "{mode}: {err}"
        );
    }
}

#[test]
fn a_tables_own_timestamp_reads_the_snapshot_of_that_time() {
    let name = "c59-table-scan-timestamp-millis";
    let table = corpus(name).join("table");
    let reads = recorded(name);
    for release in PaimonRelease::ALL {
        assert_eq!(batch_read(&table, release).unwrap(), reads[1], "{release}");
        streams_fail_naming(&table, release, "scan.timestamp-millis");
        // The batch read of a snapshot by id: `from-timestamp` still, with a conflicting option.
        let err = plan(&table, release, ScanMode::Batch { snapshot: Some(4) }).unwrap_err();
        assert!(
            err.to_string()
                .contains("must be null when you set scan.timestamp-millis,scan.timestamp"),
            "{err}"
        );
    }
    // Later than every snapshot: the latest.
    let (_dir, later) = with_option(name, "scan.timestamp-millis", "4102444800000");
    assert_eq!(batch_read(&later, PaimonRelease::V2_0_0).unwrap(), reads[3]);
    // Before every snapshot: 1.0 reads the earliest, later releases fail with the release's message.
    let (_dir, earlier) = with_option(name, "scan.timestamp-millis", "0");
    for release in [PaimonRelease::V1_0_0, PaimonRelease::V1_0_1] {
        assert_eq!(
            batch_read(&earlier, release).unwrap(),
            reads[0],
            "{release}"
        );
    }
    for release in [PaimonRelease::V1_1_1, PaimonRelease::V2_0_0] {
        let err = batch_read(&earlier, release).unwrap_err();
        assert!(matches!(err, Error::Snapshot { .. }), "{err}");
        assert!(
            err.to_string().contains(
                "There is currently no snapshot earlier than or equal to timestamp [0], the earliest \
                 snapshot's timestamp is ["
            ),
            "{err}"
        );
    }
    let (_dir, bad) = with_option(name, "scan.timestamp-millis", "noon");
    let err = batch_read(&bad, PaimonRelease::V2_0_0).unwrap_err();
    assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
    assert!(err.to_string().contains("`noon` is not a long"), "{err}");
}

#[test]
fn a_tables_own_file_creation_time_reads_the_files_created_since() {
    let name = "c60-table-scan-file-creation-time";
    let table = corpus(name).join("table");
    // The files of commits 3 and 4 merged alone: the keys they wrote, each with its last value.
    let written = [
        r#"+I (3, "v3-3")"#,
        r#"+I (4, "v4-4")"#,
        r#"+I (5, "v4-5")"#,
        r#"+I (6, "v4-6")"#,
    ];
    for release in PaimonRelease::ALL {
        assert_eq!(batch_read(&table, release).unwrap(), written, "{release}");
        streams_fail_naming(&table, release, "scan.file-creation-time-millis");
    }
    // Since the epoch: every file of the latest snapshot; from 2100: none.
    let (_dir, all) = with_option(name, "scan.file-creation-time-millis", "0");
    assert_eq!(
        batch_read(&all, PaimonRelease::V2_0_0).unwrap(),
        recorded(name)[3]
    );
    let (_dir, none) = with_option(name, "scan.file-creation-time-millis", "4102444800000");
    assert!(batch_read(&none, PaimonRelease::V2_0_0).unwrap().is_empty());
}

#[test]
fn a_tables_own_creation_time_reads_the_first_snapshot_since_from_1_2() {
    let name = "c61-table-scan-creation-time";
    let table = corpus(name).join("table");
    let reads = recorded(name);
    for release in PaimonRelease::ALL {
        let expected = if release >= PaimonRelease::V1_2_0 {
            &reads[2]
        } else {
            &reads[3]
        };
        assert_eq!(&batch_read(&table, release).unwrap(), expected, "{release}");
        // The streams and `latest-full` set their own `scan.mode`, which wins.
        for mode in STREAMS {
            plan(&table, release, mode).unwrap();
        }
    }
    // Before every snapshot: the latest snapshot's files created since, all of them; after every
    // snapshot: those created since, none.
    let (_dir, earlier) = with_option(name, "scan.creation-time-millis", "0");
    assert_eq!(
        batch_read(&earlier, PaimonRelease::V2_0_0).unwrap(),
        reads[3]
    );
    let (_dir, later) = with_option(name, "scan.creation-time-millis", "4102444800000");
    assert!(batch_read(&later, PaimonRelease::V2_0_0)
        .unwrap()
        .is_empty());
}

#[test]
fn a_tables_own_compacted_full_mode_reads_the_latest_compaction() {
    let name = "c62-table-scan-mode-compacted-full";
    let table = corpus(name).join("table");
    let [_, compacted, latest]: [Vec<String>; 3] =
        recorded_batch_reads(&corpus(name)).try_into().unwrap();
    for release in PaimonRelease::ALL {
        assert_eq!(batch_read(&table, release).unwrap(), compacted, "{release}");
        for mode in STREAMS {
            plan(&table, release, mode).unwrap();
        }
        let err = plan(&table, release, ScanMode::Batch { snapshot: Some(4) }).unwrap_err();
        assert!(
            err.to_string()
                .contains("must be null when you use compacted-full for scan.mode"),
            "{err}"
        );
    }
    // With full-compaction.delta-commits the compaction counts only at an identifier it divides: commit 2's
    // at 2, not at 3 (the latest snapshot then).
    let mode = r#""scan.mode" : "compacted-full""#;
    for (delta, expected) in [("2", &compacted), ("3", &latest)] {
        let with_delta = format!(r#"{mode}, "full-compaction.delta-commits" : "{delta}""#);
        let (_dir, t) = edited(name, mode, &with_delta);
        assert_eq!(
            &batch_read(&t, PaimonRelease::V2_0_0).unwrap(),
            expected,
            "{delta}"
        );
    }
    let with_zero = format!(r#"{mode}, "full-compaction.delta-commits" : "0""#);
    let (_dir, zero) = edited(name, mode, &with_zero);
    let err = batch_read(&zero, PaimonRelease::V2_0_0).unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err}");
}

#[test]
fn a_tables_own_explicit_startup_mode_is_validated_as_the_release_does() {
    let name = "c59-table-scan-timestamp-millis";
    let timestamp = r#""scan.timestamp-millis" : ""#;
    // `from-timestamp` said outright reads as the timestamp alone does.
    let explicit = format!(r#""scan.mode" : "from-timestamp", {timestamp}"#);
    let (_dir, t) = edited(name, timestamp, &explicit);
    assert_eq!(
        batch_read(&t, PaimonRelease::V2_0_0).unwrap(),
        recorded(name)[1]
    );
    // A mode without the option it needs fails, as `SchemaValidation` fails it.
    for (mode, message) in [
        (
            "from-snapshot",
            "must set only one key in [scan.snapshot-id,scan.tag-name,scan.watermark] when you use \
             from-snapshot for scan.mode",
        ),
        (
            "from-file-creation-time",
            "`scan.file-creation-time-millis`: can not be null when you use from-file-creation-time",
        ),
        (
            "latest",
            "`scan.timestamp-millis`: must be null when you use latest for scan.mode",
        ),
    ] {
        let (_dir, t) = edited(name, timestamp, &format!(r#""scan.mode" : "{mode}", {timestamp}"#));
        let err = batch_read(&t, PaimonRelease::V2_0_0).unwrap_err();
        assert!(matches!(err, Error::InvalidOption { .. }), "{mode}: {err}");
        assert!(err.to_string().contains(message), "{mode}: {err}");
    }
    // `from-creation-timestamp` is a startup mode from 1.2.0 only.
    let (_dir, t) = edited(
        name,
        timestamp,
        &format!(r#""scan.mode" : "from-creation-timestamp", {timestamp}"#),
    );
    let err = batch_read(&t, PaimonRelease::V1_1_1).unwrap_err();
    assert!(err.to_string().contains("unknown value"), "{err}");
}

#[test]
fn a_tables_own_timestamp_text_reads_the_snapshot_of_that_time_on_every_release() {
    let name = "c63-table-scan-timestamp";
    let table = corpus(name).join("table");
    let reads = recorded(name);
    for release in PaimonRelease::ALL {
        assert_eq!(batch_read(&table, release).unwrap(), reads[1], "{release}");
        streams_fail_naming(&table, release, "scan.timestamp");
    }
    // A form the release parses but this reader does not is refused by name, never read otherwise.
    let (_dir, t) = with_option(name, "scan.timestamp", "+12026-12-07");
    let err = batch_read(&t, PaimonRelease::V2_0_0).unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err}");
}

#[test]
fn a_tables_own_start_on_a_table_with_a_fallback_branch_is_refused_by_name() {
    let name = "c26-fallback-branch";
    let fallback = r#""scan.fallback-branch" : "b1""#;
    for start in [
        r#""scan.mode" : "compacted-full""#,
        r#""scan.timestamp-millis" : "0""#,
    ] {
        let (_dir, t) = edited(name, fallback, &format!("{fallback}, {start}"));
        let err = batch_read(&t, PaimonRelease::V2_0_0).unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{start}: {err}");
        assert!(
            err.to_string().contains("fallback or primary branch"),
            "{err}"
        );
    }
}
