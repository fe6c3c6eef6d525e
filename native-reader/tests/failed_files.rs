//! `scan.ignore-lost-files` and `scan.ignore-corrupt-files` (Paimon 1.4+), natively: the committed corpora
//! `c53-ignore-lost-and-corrupt-files` (a primary-key table, Parquet, merge reads) and
//! `c54-append-ignore-lost-and-corrupt-files` (an append table, ORC), each with one data file deleted and
//! one cut to half its bytes after the writes. Expected rows are the released 2.0.0 writer's own batch reads
//! before and after the damage (`case.json`), never this reader's output.

use std::path::{Path, PathBuf};

use native_reader::{Error, PaimonRelease, Table};

use crate::common;
use common::batch_read;

const C53: &str = "c53-ignore-lost-and-corrupt-files";
const C54: &str = "c54-append-ignore-lost-and-corrupt-files";

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora")
        .join(name)
        .join("paimon-2.0.0")
}

/// The released writer's batch reads recorded in `case.json`: before and after the damage, each sorted.
fn recorded(name: &str) -> [Vec<String>; 2] {
    common::recorded_batch_reads(&corpus(name))
        .try_into()
        .unwrap()
}

/// The corpus's table copied into a fresh temporary directory.
fn copy(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    common::copy_dir(&corpus(name).join("table"), &table);
    (dir, table)
}

#[test]
fn lost_and_corrupt_files_read_as_empty_from_1_4() {
    for name in [C53, C54] {
        let [before, after] = recorded(name);
        assert!(after.len() < before.len(), "{name}: the damage lost rows");
        for release in [PaimonRelease::V2_0_0, PaimonRelease::V1_4_2] {
            let read = batch_read(&corpus(name).join("table"), release).unwrap();
            assert_eq!(read, after, "{name} as {release}");
        }
    }
}

#[test]
fn before_1_4_the_lost_file_fails_the_read() {
    for name in [C53, C54] {
        let err = batch_read(&corpus(name).join("table"), PaimonRelease::V1_3_1).unwrap_err();
        assert!(matches!(err, Error::Io { .. }), "{name}: {err}");
        assert!(err.to_string().contains("/data-"), "{name}: {err}");
    }
}

#[test]
fn each_option_skips_only_its_own_failure() {
    for name in [C53, C54] {
        let (_dir, table) = copy(name);
        common::edit_latest_schema(
            &table,
            r#""scan.ignore-corrupt-files" : "true""#,
            r#""scan.ignore-corrupt-files" : "false""#,
        );
        // The cut file exists: without its option it fails the read, naming it.
        let err = batch_read(&table, PaimonRelease::V2_0_0).unwrap_err();
        assert!(!matches!(err, Error::Io { .. }), "{name}: {err}");
        assert!(err.to_string().contains("/data-"), "{name}: {err}");

        let (_dir, table) = copy(name);
        common::edit_latest_schema(
            &table,
            r#""scan.ignore-lost-files" : "true""#,
            r#""scan.ignore-lost-files" : "false""#,
        );
        // The deleted file is lost, not corrupt: `scan.ignore-corrupt-files` does not skip it.
        let err = batch_read(&table, PaimonRelease::V2_0_0).unwrap_err();
        assert!(matches!(err, Error::Io { .. }), "{name}: {err}");

        let (_dir, table) = copy(name);
        common::edit_latest_schema(
            &table,
            r#""scan.ignore-lost-files" : "true""#,
            r#""scan.ignore-lost-files" : "maybe""#,
        );
        let err = batch_read(&table, PaimonRelease::V2_0_0).unwrap_err();
        assert!(matches!(err, Error::InvalidOption { .. }), "{name}: {err}");
        assert!(err.to_string().contains("scan.ignore-lost-files"), "{err}");
    }
}

#[test]
fn a_file_failing_after_it_opened_is_refused_by_name() {
    // c53's live files in its manifests' order: file 0 (bucket 0, commit 1) is intact. Its column chunks
    // are overwritten, its footer kept: the file opens, and fails on its first page.
    let (_dir, table) = copy(C53);
    let opened = Table::open_as(&table, PaimonRelease::V2_0_0).unwrap();
    let snapshot = opened.snapshot_manager().snapshot(3).unwrap();
    let groups = native_reader::scan::read_all_files(&opened, &snapshot, &|_| true).unwrap();
    let file = &groups[0].files[0];
    let path = Path::new(&opened.bucket_path(&groups[0].rendered.path, groups[0].bucket))
        .join(&file.file_name);
    let mut bytes = std::fs::read(&path).unwrap();
    // Every column chunk's bytes (page headers and pages), from the footer's own offsets.
    let footer = parquet::file::metadata::ParquetMetaDataReader::new()
        .parse_and_finish(&bytes::Bytes::from(bytes.clone()))
        .unwrap();
    for group in footer.row_groups() {
        for column in group.columns() {
            let (start, length) = column.byte_range();
            bytes[start as usize..(start + length) as usize].fill(0xff);
        }
    }
    std::fs::write(&path, &bytes).unwrap();
    let err = batch_read(&table, PaimonRelease::V2_0_0).unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err}");
    let text = err.to_string();
    assert!(text.contains(&file.file_name), "{text}");
    assert!(text.contains("scan.ignore-corrupt-files"), "{text}");
}
