//! A table's own `incremental-between` read natively, on the committed corpora written by Paimon 2.0.0:
//! - `c67-incremental-between`: no changelog producer, so the increment is the delta files of the APPEND
//!   snapshots in the range;
//! - `c68-incremental-between-changelog`: `changelog-producer=input`, the changelog files instead.
//!
//! Both set `incremental-between=1,4` after five snapshots: commit 2 wrote snapshot 2 (APPEND) and 3
//! (COMPACT, a full compaction of partition a), commit 3 snapshot 4. Expected rows are the records the
//! scenario wrote in those commits (`scenario.json`): 1.1.1 on read them as they were written, with their
//! RowKinds; 1.0.x merges them per key and drops the delete. The released readers' agreement, in every scan,
//! is checked by the harness's `corpus_parity`.

use std::path::{Path, PathBuf};

use native_reader::{Error, PaimonRelease, Table};

use crate::common;
use common::{batch_read, copy_dir, edit_latest_schema};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora")
        .join(name)
        .join("paimon-2.0.0")
}

fn sorted(rows: &[&str]) -> Vec<String> {
    let mut rows: Vec<String> = rows.iter().map(|r| r.to_string()).collect();
    rows.sort();
    rows
}

/// Commits 2 and 3 of the scenario, as written (snapshots 2 and 4).
const WRITTEN: [&str; 7] = [
    r#"+U ("a", 2, "v2-a2")"#,
    r#"-D ("a", 3, "v1-a3")"#,
    r#"+I ("a", 5, "v2-a5")"#,
    r#"+U ("b", 4, "v2-b4")"#,
    r#"+U ("a", 1, "v3-a1")"#,
    r#"+U ("a", 2, "v3-a2")"#,
    r#"+I ("b", 6, "v3-b6")"#,
];

/// The same records merged per key, the latest kept and the delete dropped.
const MERGED: [&str; 5] = [
    r#"+U ("a", 1, "v3-a1")"#,
    r#"+U ("a", 2, "v3-a2")"#,
    r#"+I ("a", 5, "v2-a5")"#,
    r#"+U ("b", 4, "v2-b4")"#,
    r#"+I ("b", 6, "v3-b6")"#,
];

#[test]
fn the_increment_is_read_record_by_record_from_1_1_and_merged_before() {
    for name in [
        "c67-incremental-between",
        "c68-incremental-between-changelog",
    ] {
        let table = corpus(name).join("table");
        for release in PaimonRelease::ALL {
            let expected = if release < PaimonRelease::V1_1_1 {
                sorted(&MERGED)
            } else {
                sorted(&WRITTEN)
            };
            assert_eq!(
                batch_read(&table, release).unwrap(),
                expected,
                "{name} as {release}"
            );
        }
    }
}

const BETWEEN: &str = "incremental-between";
const BETWEEN_TIMES: &str = "incremental-between-timestamp";

/// c67's table copied, its `incremental-between=1,4` replaced by `key=value`.
fn with_option(key: &str, value: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    copy_dir(&corpus("c67-incremental-between").join("table"), &table);
    edit_latest_schema(
        &table,
        "\"incremental-between\" : \"1,4\"",
        &format!("\"{key}\" : \"{value}\""),
    );
    (dir, table)
}

/// c67's table copied, its `incremental-between` set to `value`.
fn between(value: &str) -> (tempfile::TempDir, PathBuf) {
    with_option(BETWEEN, value)
}

/// A batch read of `table` as `release` fails on option `key`, with `text` in its message.
fn fails_naming(table: &Path, release: PaimonRelease, key: &str, text: &str) {
    let err = batch_read(table, release).unwrap_err();
    assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
    assert!(err.to_string().contains(text), "{release}: {err}");
    assert!(err.to_string().contains(&format!("`{key}`")), "{err}");
}

#[test]
fn a_range_the_release_refuses_fails_with_its_message() {
    let (_d, table) = between("4,1");
    fails_naming(
        &table,
        PaimonRelease::V1_0_0,
        BETWEEN,
        "Starting snapshotId 4 must less than ending snapshotId 1.",
    );
    fails_naming(
        &table,
        PaimonRelease::V2_0_0,
        BETWEEN,
        "Ending snapshotId should >= starting snapshotId 1. [4]",
    );
    let (_d, table) = between("1,9");
    for release in [PaimonRelease::V1_0_0, PaimonRelease::V2_0_0] {
        fails_naming(
            &table,
            release,
            BETWEEN,
            "The specified scan snapshotId range [1, 9] is out of available snapshotId range [1, 5].",
        );
    }
    let (_d, table) = between("1");
    fails_naming(&table, PaimonRelease::V2_0_0, BETWEEN, "But is: 1");
    // Two parts that are neither tags nor snapshot ids: 1.0.x takes them for tags, and fails on the first
    // that does not exist.
    let (_d, table) = between("x,y");
    fails_naming(
        &table,
        PaimonRelease::V2_0_0,
        BETWEEN,
        "Didn't find two tags",
    );
    let err = batch_read(&table, PaimonRelease::V1_0_0).unwrap_err();
    assert!(matches!(err, Error::Snapshot { .. }), "{err}");
    assert!(err.to_string().contains("Tag 'x' doesn't exist."), "{err}");
}

#[test]
fn an_empty_or_unread_increment() {
    // start == end: nothing, on every release.
    let (_d, table) = between("2,2");
    for release in PaimonRelease::ALL {
        assert_eq!(batch_read(&table, release).unwrap(), Vec::<String>::new());
    }
    // The COMPACT snapshot alone: no delta.
    let (_d, table) = between("2,3");
    assert_eq!(
        batch_read(&table, PaimonRelease::V2_0_0).unwrap(),
        Vec::<String>::new()
    );
    // `diff` (1.1.1 on) reads the keys whose value snapshot 4 changed since snapshot 1, each as its latest
    // write put it (the scenario's writes: a3 and b1 deleted give nothing, b2 and b3 are unchanged); 1.0.x
    // knows no such mode.
    let (_d, table) = between("1,4");
    edit_latest_schema(
        &table,
        "\"incremental-between\" : \"1,4\"",
        "\"incremental-between\" : \"1,4\",\n    \"incremental-between-scan-mode\" : \"diff\"",
    );
    for release in [PaimonRelease::V1_1_1, PaimonRelease::V2_0_0] {
        assert_eq!(
            batch_read(&table, release).unwrap(),
            [
                r#"+I ("a", 5, "v2-a5")"#,
                r#"+I ("b", 6, "v3-b6")"#,
                r#"+U ("a", 1, "v3-a1")"#,
                r#"+U ("a", 2, "v3-a2")"#,
                r#"+U ("b", 4, "v2-b4")"#,
            ],
            "{release:?}"
        );
    }
    let err = batch_read(&table, PaimonRelease::V1_0_0).unwrap_err();
    assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
    // The streams fail the release's validation.
    let opened = Table::open_as(&table, PaimonRelease::V2_0_0).unwrap();
    assert!(matches!(
        opened.plan_stream(1, 5).unwrap_err(),
        Error::InvalidOption { .. }
    ));
}

/// Commit 1 of the scenario (snapshot 1): the inserts.
const INSERTED: [&str; 8] = [
    r#"+I ("a", 1, "v1-a1")"#,
    r#"+I ("a", 2, "v1-a2")"#,
    r#"+I ("a", 3, "v1-a3")"#,
    r#"+I ("a", 4, "v1-a4")"#,
    r#"+I ("b", 1, "v1-b1")"#,
    r#"+I ("b", 2, "v1-b2")"#,
    r#"+I ("b", 3, "v1-b3")"#,
    r#"+I ("b", 4, "v1-b4")"#,
];

/// The commit time (`timeMillis`) of snapshot `id` of c67's table, from its snapshot file.
fn commit_time(id: i64) -> i64 {
    let table = corpus("c67-incremental-between").join("table");
    let text = std::fs::read_to_string(table.join(format!("snapshot/snapshot-{id}"))).unwrap();
    let snapshot: serde_json::Value = serde_json::from_str(&text).unwrap();
    snapshot["timeMillis"].as_i64().unwrap()
}

/// `millis` as the UTC local time `yyyy-MM-dd HH:mm:ss.SSS`.
fn utc_text(millis: i64) -> String {
    chrono::DateTime::from_timestamp_millis(millis)
        .unwrap()
        .format("%Y-%m-%d %H:%M:%S%.3f")
        .to_string()
}

/// c67's table copied, its `incremental-between=1,4` replaced by `incremental-between-timestamp=value`.
fn between_times(value: &str) -> (tempfile::TempDir, PathBuf) {
    with_option(BETWEEN_TIMES, value)
}

#[test]
fn commit_times_name_the_snapshots_of_the_increment() {
    // Snapshot 1's own time names snapshot 1 (the latest committed at or before it), snapshot 4's names 4:
    // the increment of `incremental-between=1,4`.
    let (_d, table) = between_times(&format!("{},{}", commit_time(1), commit_time(4)));
    for release in PaimonRelease::ALL {
        let expected = if release < PaimonRelease::V1_1_1 {
            sorted(&MERGED)
        } else {
            sorted(&WRITTEN)
        };
        assert_eq!(batch_read(&table, release).unwrap(), expected, "{release}");
    }
    // The same as local times in UTC: read from 1.1.1; 1.0.x reads longs only (`Long.parseLong`).
    let (_d, table) = between_times(&format!(
        "{},{}",
        utc_text(commit_time(1)),
        utc_text(commit_time(4))
    ));
    let first = utc_text(commit_time(1));
    for release in PaimonRelease::ALL {
        if release < PaimonRelease::V1_1_1 {
            fails_naming(
                &table,
                release,
                BETWEEN_TIMES,
                &format!("For input string: \"{first}\""),
            );
        } else {
            assert_eq!(
                batch_read(&table, release).unwrap(),
                sorted(&WRITTEN),
                "{release}"
            );
        }
    }
    // A start before every commit names one before the earliest snapshot: commit 1's inserts are in.
    let (_d, table) = between_times(&format!("0,{}", commit_time(4)));
    let mut expected: Vec<&str> = INSERTED.to_vec();
    expected.extend(WRITTEN);
    assert_eq!(
        batch_read(&table, PaimonRelease::V2_0_0).unwrap(),
        sorted(&expected)
    );
}

#[test]
fn times_the_release_refuses_or_that_name_no_snapshot() {
    // Before every commit: nothing, on every release.
    let (_d, table) = between_times("0,1");
    for release in PaimonRelease::ALL {
        assert_eq!(batch_read(&table, release).unwrap(), Vec::<String>::new());
    }
    // Equal times: nothing (from 1.1.1 by the check, on 1.0.x as an empty range).
    let (_d, table) = between_times(&format!("{0},{0}", commit_time(2)));
    for release in PaimonRelease::ALL {
        assert_eq!(batch_read(&table, release).unwrap(), Vec::<String>::new());
    }
    // An end before the start: refused from 1.1.1; 1.0.x checks the snapshot ids they name.
    let (_d, table) = between_times(&format!("{},{}", commit_time(4), commit_time(1)));
    let (four, one) = (commit_time(4), commit_time(1));
    fails_naming(
        &table,
        PaimonRelease::V2_0_0,
        BETWEEN_TIMES,
        &format!("Ending timestamp {one} should be >= starting timestamp {four}."),
    );
    fails_naming(
        &table,
        PaimonRelease::V1_0_0,
        BETWEEN_TIMES,
        "Starting snapshotId 4 must less than ending snapshotId 1.",
    );
    // Not two times.
    let (_d, table) = between_times("x,y");
    fails_naming(
        &table,
        PaimonRelease::V2_0_0,
        BETWEEN_TIMES,
        "The incremental-between-timestamp must specific start(exclusive) and end timestamp. But is: x,y",
    );
    fails_naming(
        &table,
        PaimonRelease::V1_0_0,
        BETWEEN_TIMES,
        "For input string: \"x\"",
    );
    let (_d, table) = between_times("1");
    fails_naming(
        &table,
        PaimonRelease::V2_0_0,
        BETWEEN_TIMES,
        "end timestamp. But is: 1",
    );
    fails_naming(
        &table,
        PaimonRelease::V1_0_0,
        BETWEEN_TIMES,
        "The incremental-between or incremental-between-timestamp  must specific",
    );
}
