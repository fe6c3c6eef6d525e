//! The metadata system tables registered beside a table: `$partitions`, `$buckets` and `$files` are there
//! when the native reader reads them for the table, and a query naming one it refuses fails with the reason,
//! not with "table not found".

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
