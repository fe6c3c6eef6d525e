//! `paimon-parity sql` and [`paimon_sql::SqlSession`]: DataFusion over tables the native reader reads. The
//! expected values come from each corpus's `case.json` (its snapshots as the writer committed them, the rows
//! the released reader returned when it was written), never from the native reader.

use crate::common;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::RecordBatch;

fn case(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap()
}

fn single_i64(batches: &[RecordBatch]) -> i64 {
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rows, 1, "one row expected");
    let b = batches.iter().find(|b| b.num_rows() == 1).unwrap();
    b.column(0).as_primitive::<Int64Type>().value(0)
}

#[test]
fn sql_counts_what_the_writer_committed_and_the_released_reader_returned() {
    let release = native_reader::PaimonRelease::parse(&common::line_version()).unwrap();
    let mut checked = 0;
    for dir in common::corpora() {
        if common::written_by(&dir) != "1.0.0" {
            continue;
        }
        let case = case(&dir);
        let Some(rows) = case["expected"]["batch_latest"]["rows"].as_array() else {
            continue;
        };
        let mut session = paimon_sql::SqlSession::new(release).unwrap();
        session.register_table("t", &dir.join("table")).unwrap();
        let snapshots = single_i64(
            &session
                .query(r#"SELECT count(*) FROM "t$snapshots""#)
                .unwrap(),
        );
        assert_eq!(
            snapshots as usize,
            case["snapshots"].as_array().unwrap().len(),
            "{}",
            dir.display()
        );
        // Every row the released reader's batch scan returned (`rows` counts +I, -U, +U, -D).
        let returned: i64 = rows.iter().map(|n| n.as_i64().unwrap()).sum();
        let counted = single_i64(&session.query("SELECT count(*) FROM t").unwrap());
        assert_eq!(counted, returned, "{}", dir.display());
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} corpora checked");
}

#[test]
fn a_table_name_is_registered_once_and_bad_sql_names_the_problem() {
    let release = native_reader::PaimonRelease::V1_0_0;
    let mut session = paimon_sql::SqlSession::new(release).unwrap();
    let table = common::corpora()[0].join("table");
    session.register_table("t", &table).unwrap();
    let twice = session.register_table("t", &table).unwrap_err().to_string();
    assert!(twice.contains("registered twice"), "{twice}");
    let bad = session
        .query("SELECT * FROM nowhere")
        .unwrap_err()
        .to_string();
    assert!(bad.contains("nowhere"), "{bad}");
    let missing = session
        .register_table("u", std::path::Path::new("/nonexistent/table"))
        .unwrap_err()
        .to_string();
    assert!(missing.contains("/nonexistent/table"), "{missing}");
}

/// `t$audit_log`, `t$binlog` and `t$ro` are DataFusion tables too: their row counts and the kinds in
/// `rowkind` equal what the released reader returns for them (its rows of the same batch scans, read here
/// through the bridge), on a table whose last commit deleted a key (c20-…-fault: the audit log keeps it as
/// `-D`) and whose top level holds the compacted rows.
#[test]
fn split_shaped_system_tables_are_queried_as_the_released_reader_returns_them() {
    use harness::reader::{StockTableReader, TableReader};
    let release = native_reader::PaimonRelease::parse(&common::line_version()).unwrap();
    let dir = common::line_corpora(&common::line_version())
        .into_iter()
        .find(|d| common::corpus_name(d) == "c20-full-compaction-delta-commits-fault")
        .expect("c20 on every line");
    let stock = StockTableReader::new().expect("JVM starts");
    // The released reader's rows of each view's batch scan: (rows, kinds in `rowkind`).
    let released = |view: &str| -> (i64, Vec<String>) {
        let location = dir.join(format!("table${view}"));
        let mode = native_reader::scan::ScanMode::Batch { snapshot: None };
        let end = native_reader::Table::open(&dir.join("table"))
            .unwrap()
            .snapshot_manager()
            .latest_snapshot_id()
            .unwrap()
            .unwrap();
        let mut rows = 0;
        let mut kinds = Vec::new();
        for split in stock.plan(&location, mode, end).unwrap() {
            for batch in stock.read_split(&location, &split).unwrap() {
                let batch = batch.unwrap();
                rows += batch.num_rows() as i64;
                if view != "ro" {
                    let column = batch.column(1).as_string::<i32>();
                    kinds.extend(column.iter().flatten().map(str::to_owned));
                }
            }
        }
        kinds.sort();
        (rows, kinds)
    };
    let mut session = paimon_sql::SqlSession::new(release).unwrap();
    session.register_table("t", &dir.join("table")).unwrap();
    for view in ["audit_log", "binlog", "ro"] {
        let (rows, kinds) = released(view);
        let counted = single_i64(
            &session
                .query(&format!(r#"SELECT count(*) FROM "t${view}""#))
                .unwrap(),
        );
        assert_eq!(counted, rows, "t${view}");
        if view != "ro" {
            let batches = session
                .query(&format!(
                    r#"SELECT rowkind FROM "t${view}" ORDER BY rowkind"#
                ))
                .unwrap();
            let mut ours: Vec<String> = batches
                .iter()
                .flat_map(|b| {
                    let c = b.column(0).as_string::<i32>();
                    c.iter().flatten().map(str::to_owned).collect::<Vec<_>>()
                })
                .collect();
            ours.sort();
            assert_eq!(ours, kinds, "t${view}");
        }
    }
    // The deleted key is in the audit log, not in the table.
    let deleted = single_i64(
        &session
            .query(r#"SELECT count(*) FROM "t$audit_log" WHERE rowkind = '-D'"#)
            .unwrap(),
    );
    assert!(deleted >= 1, "no -D row in t$audit_log");
}
