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

/// c67's table copied, its `incremental-between` set to `value`.
fn between(value: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    copy_dir(&corpus("c67-incremental-between").join("table"), &table);
    edit_latest_schema(
        &table,
        "\"incremental-between\" : \"1,4\"",
        &format!("\"incremental-between\" : \"{value}\""),
    );
    (dir, table)
}

fn fails_naming(table: &Path, release: PaimonRelease, text: &str) {
    let err = batch_read(table, release).unwrap_err();
    assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
    assert!(err.to_string().contains(text), "{release}: {err}");
    assert!(err.to_string().contains("`incremental-between`"), "{err}");
}

#[test]
fn a_range_the_release_refuses_fails_with_its_message() {
    let (_d, table) = between("4,1");
    fails_naming(
        &table,
        PaimonRelease::V1_0_0,
        "Starting snapshotId 4 must less than ending snapshotId 1.",
    );
    fails_naming(
        &table,
        PaimonRelease::V2_0_0,
        "Ending snapshotId should >= starting snapshotId 1. [4]",
    );
    let (_d, table) = between("1,9");
    for release in [PaimonRelease::V1_0_0, PaimonRelease::V2_0_0] {
        fails_naming(
            &table,
            release,
            "The specified scan snapshotId range [1, 9] is out of available snapshotId range [1, 5].",
        );
    }
    let (_d, table) = between("1");
    fails_naming(&table, PaimonRelease::V2_0_0, "But is: 1");
    // Two parts that are neither tags nor snapshot ids: 1.0.x takes them for tags, and fails on the first
    // that does not exist.
    let (_d, table) = between("x,y");
    fails_naming(&table, PaimonRelease::V2_0_0, "Didn't find two tags");
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
    // `diff` (1.1.1 on) is refused by name; 1.0.x knows no such mode.
    let (_d, table) = between("1,4");
    edit_latest_schema(
        &table,
        "\"incremental-between\" : \"1,4\"",
        "\"incremental-between\" : \"1,4\",\n    \"incremental-between-scan-mode\" : \"diff\"",
    );
    let err = batch_read(&table, PaimonRelease::V2_0_0).unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err}");
    assert!(err.to_string().contains("diff"), "{err}");
    let err = batch_read(&table, PaimonRelease::V1_0_0).unwrap_err();
    assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
    // The streams fail the release's validation.
    let opened = Table::open_as(&table, PaimonRelease::V2_0_0).unwrap();
    assert!(matches!(
        opened.plan_stream(1, 5).unwrap_err(),
        Error::InvalidOption { .. }
    ));
}
