//! A table's streaming scan registered as a SQL table: its changes by RowKind are those the released
//! reader streamed when the corpus was written (`case.json`: `expected.stream_from_snapshot_1.rows`, in
//! `+I -U +U -D` order).

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, Int8Type};
use native_reader::PaimonRelease;
use paimon_sql::SqlSession;

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora")
        .join(name)
}

#[test]
fn a_stream_table_holds_the_released_readers_changes_by_row_kind() {
    for name in [
        "c07-deletion-vectors",
        "c11-streaming-read-overwrite",
        "lookup-partitioned",
    ] {
        let case: serde_json::Value =
            serde_json::from_slice(&std::fs::read(corpus(name).join("case.json")).unwrap())
                .unwrap();
        let expected: Vec<i64> = case["expected"]["stream_from_snapshot_1"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_i64().unwrap())
            .collect();
        let mut session = SqlSession::new(PaimonRelease::V1_0_0).unwrap();
        session
            .register_stream("s", &corpus(name).join("table"), None)
            .unwrap();
        let batches = session
            .query("SELECT _row_kind, count(*) FROM s GROUP BY _row_kind")
            .unwrap();
        let mut counts = vec![0i64; 4];
        for b in &batches {
            let kinds = b.column(0).as_primitive::<Int8Type>();
            let n = b.column(1).as_primitive::<Int64Type>();
            for i in 0..b.num_rows() {
                counts[kinds.value(i) as usize] = n.value(i);
            }
        }
        assert_eq!(counts, expected, "{name}");
    }
}
