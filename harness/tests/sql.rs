//! `paimon-parity sql` and [`paimon_sql::SqlSession`]: DataFusion over tables the native reader reads. The
//! expected values come from each corpus's `case.json` (its snapshots as the writer committed them, the rows
//! the released reader returned when it was written), never from the native reader.

mod common;

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
