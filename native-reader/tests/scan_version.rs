//! A table's own `scan.version`, which the table's load resolves into the start option it names
//! (`scan::own_start::version`). No release's schema validation lets a writer set it alone, so these are
//! copies of committed corpora written by Paimon 2.0.0, with their own start option rewritten as a
//! `scan.version`:
//! - `c71-table-scan-watermark`, its `scan.watermark=2500` replaced: snapshot `s` holds the scenario's writes
//!   merged up to commit `s` (commit `c` upserts keys `c` to `c + 2` with `v<c>-<k>`, commit 4 also deletes
//!   key 1), and the snapshots' watermarks are 1000, 1000, 3000, 3000, 5000 and 5000;
//! - `c58-table-scan-tag-name` with `scan.version=t2` in place of `scan.tag-name=t2` (tag `t2` of snapshot 2).
//!
//! The released readers' agreement on such copies, in every scan and on every release, is checked by the
//! harness's `parity` tests (`scan_version`).

use std::path::{Path, PathBuf};

use native_reader::{Error, PaimonRelease};

use crate::common;
use crate::scan_watermark::snapshot_rows;
use common::{batch_read, copy_dir, edit_latest_schema};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora")
        .join(name)
        .join("paimon-2.0.0/table")
}

/// `table` copied, its latest schema's `from` replaced by `to`.
fn edited(table: &Path, from: &str, to: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("table");
    copy_dir(table, &copy);
    edit_latest_schema(&copy, from, to);
    (dir, copy)
}

/// c71 with `scan.version=value` in place of its `scan.watermark`.
fn with_version(value: &str) -> (tempfile::TempDir, PathBuf) {
    edited(
        &corpus("c71-table-scan-watermark"),
        "\"scan.watermark\" : \"2500\"",
        &format!("\"scan.version\" : \"{value}\""),
    )
}

#[test]
fn a_snapshot_id_or_watermark_version_reads_that_snapshot_on_every_release() {
    let (_d0, table) = with_version("3");
    let (_d1, watermark) = with_version("watermark-2500");
    let (_d2, padded) = with_version("0004");
    for release in PaimonRelease::ALL {
        assert_eq!(
            batch_read(&table, release).unwrap(),
            snapshot_rows(3),
            "{release}"
        );
        // The first snapshot whose watermark reaches 2500.
        assert_eq!(
            batch_read(&watermark, release).unwrap(),
            snapshot_rows(3),
            "{release}"
        );
        assert_eq!(
            batch_read(&padded, release).unwrap(),
            snapshot_rows(4),
            "{release}"
        );
    }
}

#[test]
fn a_tag_version_reads_the_tags_snapshot() {
    let (_dir, table) = edited(
        &corpus("c58-table-scan-tag-name"),
        "\"scan.tag-name\" : \"t2\"",
        "\"scan.version\" : \"t2\"",
    );
    let tagged = corpus("c58-table-scan-tag-name");
    for release in [PaimonRelease::V1_0_0, PaimonRelease::V2_0_0] {
        // The same rows as the committed table's own `scan.tag-name=t2`.
        assert_eq!(
            batch_read(&table, release).unwrap(),
            batch_read(&tagged, release).unwrap(),
            "{release}"
        );
        assert_eq!(batch_read(&table, release).unwrap().len(), 4, "{release}");
    }
}

#[test]
fn a_version_the_load_keeps_is_refused_by_name() {
    // No such tag, no snapshot 99, no snapshot that late, and a version beside a `scan.mode`.
    let mut tables = vec![
        with_version("nope"),
        with_version("99"),
        with_version("watermark-9000"),
    ];
    tables.push(edited(
        &corpus("c71-table-scan-watermark"),
        "\"scan.watermark\" : \"2500\"",
        "\"scan.version\" : \"3\", \"scan.mode\" : \"latest\"",
    ));
    for (_dir, table) in &tables {
        for release in [PaimonRelease::V1_0_0, PaimonRelease::V2_0_0] {
            let err = batch_read(table, release).unwrap_err();
            assert!(matches!(err, Error::Unsupported { .. }), "{release}: {err}");
            assert!(err.to_string().contains("scan.version"), "{release}: {err}");
        }
    }
}
