//! The metadata system tables registered beside a table: each read when a query scans it, and a query
//! scanning one the native reader cannot read fails with the reason, not with "table not found".

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
fn metadata_tables_are_read_when_a_query_scans_them_and_a_failed_read_is_named() {
    // A copy of c01 registered, then its manifests removed: had `$files` been read at registration, the
    // query would still answer. It fails naming the system table and the manifest, and `$snapshots` (no
    // manifest needed) answers with the table's 2 commits (its scenario.json).
    let dir = temp_dir("lazy");
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
    assert_eq!(count, 2);
    // A name nothing was registered under stays DataFusion's own error, one that merely ends like a
    // registered one too.
    for query in [r#"SELECT * FROM "t$nope""#, r#"SELECT * FROM "at$files""#] {
        let err = session.query(query).unwrap_err();
        assert!(matches!(err, Error::DataFusion(_)), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh directory under the system's temporary directory, for this process and `what`.
fn temp_dir(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("paimon-sql-{what}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
