//! The metadata system tables registered beside a table: each read when a query scans it, and a query
//! scanning one the native reader refuses fails with the reason, not with "table not found".

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use native_reader::PaimonRelease;
use paimon_sql::{Error, SqlSession};

fn corpus(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora")
        .join(path)
}

#[test]
fn a_refused_system_table_is_named_with_its_reason() {
    // c24's files written by 2.0.0 with `_WRITE_COLS`, read as 1.4.2: that release reads their stats at the
    // positions of all the schema's columns, so `$files` is refused by name.
    let mut session = SqlSession::new(PaimonRelease::V1_4_2).unwrap();
    session
        .register_table("t", &corpus("c24-data-evolution/paimon-2.0.0/table"))
        .unwrap();
    let err = session
        .query(r#"SELECT count(*) FROM "t$files""#)
        .unwrap_err();
    assert!(matches!(err, Error::Unread { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("t$files") && text.contains("_WRITE_COLS"),
        "{text}"
    );
    // A name nothing was registered under stays DataFusion's own error, one that merely ends like a refused
    // one too.
    for query in [r#"SELECT * FROM "t$nope""#, r#"SELECT * FROM "at$files""#] {
        let err = session.query(query).unwrap_err();
        assert!(matches!(err, Error::DataFusion(_)), "{err}");
    }
}

#[test]
fn buckets_and_files_of_a_table_are_queryable() {
    // c01 is written with `bucket=1` (its scenario.json): one bucket, 0.
    let mut session = SqlSession::new(PaimonRelease::V1_0_0).unwrap();
    session
        .register_table("t", &corpus("c01-key-order/table"))
        .unwrap();
    for table in ["t$buckets", "t$files"] {
        let batches = session
            .query(&format!(r#"SELECT DISTINCT bucket FROM "{table}""#))
            .unwrap();
        let buckets: Vec<i32> = batches
            .iter()
            .flat_map(|b| b.column(0).as_primitive::<Int32Type>().values().to_vec())
            .collect();
        assert_eq!(buckets, vec![0], "{table}");
    }
}

/// Copies the directory `from` into `to`, recursively.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

#[test]
fn metadata_tables_are_read_when_a_query_scans_them() {
    // A copy of c01 registered, then its manifests removed: had `$files` been read at registration, the
    // query would still answer. It fails naming the manifest, and `$snapshots` (no manifest needed) answers
    // with the table's 2 commits (its scenario.json).
    let dir = std::env::temp_dir().join(format!("paimon-sql-lazy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_tree(&corpus("c01-key-order/table"), &dir);
    let mut session = SqlSession::new(PaimonRelease::V1_0_0).unwrap();
    session.register_table("t", &dir).unwrap();
    std::fs::remove_dir_all(dir.join("manifest")).unwrap();
    let err = session
        .query(r#"SELECT count(*) FROM "t$files""#)
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::Unread { .. }), "{text}");
    assert!(
        text.contains("t$files") && text.contains("manifest"),
        "{text}"
    );
    let batches = session
        .query(r#"SELECT count(*) FROM "t$snapshots""#)
        .unwrap();
    let count = batches[0]
        .column(0)
        .as_primitive::<arrow_array::types::Int64Type>()
        .value(0);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(count, 2);
}
