//! Data evolution read natively: the committed corpus `c24-data-evolution` (written by Paimon 2.0.0) holds
//! whole rows 0-7 and three column updates (`b` of rows 0-4, `a` and `c` of rows 5-7, `c` of rows 0-4
//! again). Read as a release that knows data evolution (1.3.1, 1.4.2, 2.0.0), a batch scan returns each row
//! with every column from its newest writer. The expected rows are the scenario's own writes
//! (`corpora/c24-data-evolution/scenario.json`), merged by hand, never this reader's output.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type};
use arrow_array::Array;
use native_reader::decode::SplitReader;
use native_reader::{PaimonRelease, Table};

fn table() -> PathBuf {
    corpus("c24-data-evolution")
}

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora")
        .join(name)
        .join("paimon-2.0.0/table")
}

type Row = (Option<i32>, Option<String>, Option<i32>, Option<f64>);

fn rows(release: PaimonRelease) -> (usize, Vec<Row>) {
    rows_of(&table(), release)
}

fn rows_of(path: &Path, release: PaimonRelease) -> (usize, Vec<Row>) {
    let table = Arc::new(Table::open_as(path, release).unwrap());
    let splits = table.plan_batch(None).unwrap();
    let mut out = Vec::new();
    for split in &splits {
        for batch in SplitReader::new(table.clone(), split, 2).unwrap() {
            let batch = batch.unwrap();
            let id = batch.column(1).as_primitive::<Int32Type>();
            let b = batch.column(3).as_primitive::<Int32Type>();
            let c = batch.column(4).as_primitive::<Float64Type>();
            let a = arrow_cast::cast(batch.column(2), &arrow_schema::DataType::Utf8).unwrap();
            let a = a.as_string::<i32>();
            for i in 0..batch.num_rows() {
                out.push((
                    id.is_valid(i).then(|| id.value(i)),
                    a.is_valid(i).then(|| a.value(i).to_string()),
                    b.is_valid(i).then(|| b.value(i)),
                    c.is_valid(i).then(|| c.value(i)),
                ));
            }
        }
    }
    (splits.len(), out)
}

#[test]
fn a_batch_scan_merges_each_row_id_group_column_by_column() {
    let s = |v: &str| Some(v.to_string());
    let expected: Vec<Row> = vec![
        (Some(0), s("a0"), Some(100), Some(-0.5)),
        (Some(1), s("a1"), None, Some(-1.5)),
        (Some(2), None, Some(120), None),
        (Some(3), s("a3"), Some(130), Some(-3.5)),
        (Some(4), s("a4"), Some(140), Some(-4.5)),
        (Some(5), s("A5"), Some(50), Some(55.0)),
        (Some(6), None, Some(60), Some(66.0)),
        (Some(7), s("A7"), Some(70), None),
    ];
    for release in [
        PaimonRelease::V1_3_1,
        PaimonRelease::V1_4_2,
        PaimonRelease::V2_0_0,
    ] {
        let (splits, rows) = rows(release);
        assert_eq!(splits, 1, "{release}");
        assert_eq!(rows, expected, "{release}");
    }
}

#[test]
fn a_release_before_1_3_reads_every_file_as_plain_rows() {
    // 1.2.0 knows no row ids: 5 + 3 whole rows, then 5 rows of `b` alone, 3 of `a` and `c`, 5 of `c`, in
    // sequence-number order; the columns a file lacks are NULL.
    let (_, rows) = rows(PaimonRelease::V1_2_0);
    assert_eq!(rows.len(), 21);
    assert_eq!(rows[8], (None, None, Some(100), None));
    assert_eq!(rows[13], (None, Some("A5".into()), None, Some(55.0)));
    assert_eq!(rows[16], (None, None, None, Some(-0.5)));
}

#[test]
fn a_deletion_vector_on_the_anchor_file_drops_merged_rows() {
    // c27: c24's writes with deletion vectors on, rows 1, 6 and 7 deleted after the first column updates
    // (in the anchor files, the groups' oldest), then `c` of rows 0-4 written again.
    let s = |v: &str| Some(v.to_string());
    let (splits, rows) = rows_of(&corpus("c27-data-evolution-deletes"), PaimonRelease::V2_0_0);
    assert_eq!(splits, 1);
    assert_eq!(
        rows,
        vec![
            (Some(0), s("a0"), Some(100), Some(-0.5)),
            (Some(2), None, Some(120), None),
            (Some(3), s("a3"), Some(130), Some(-3.5)),
            (Some(4), s("a4"), Some(140), Some(-4.5)),
            (Some(5), s("A5"), Some(50), Some(55.0)),
        ]
    );
}

#[test]
fn row_tracking_gives_each_merged_row_the_row_id_its_append_assigned() {
    // Commits 1 and 2 appended ids 0-4 and 5-7 in order, so the row ids they were given are the ids; the
    // column updates keep them (`DataFileMeta.assignFirstRowId` of the files they update).
    let (table, _) = native_reader::system::open(
        Table::open_as(&table(), PaimonRelease::V2_0_0).unwrap(),
        "row_tracking",
    )
    .unwrap();
    let table = Arc::new(table);
    let mut pairs = Vec::new();
    for split in &table.plan_batch(None).unwrap() {
        for batch in SplitReader::new(table.clone(), split, 3).unwrap() {
            let batch = batch.unwrap();
            let n = batch.num_columns();
            assert_eq!(batch.schema().field(n - 2).name(), "_ROW_ID");
            assert_eq!(batch.schema().field(n - 1).name(), "_SEQUENCE_NUMBER");
            let id = batch.column(1).as_primitive::<Int32Type>();
            let row_id = batch
                .column(n - 2)
                .as_primitive::<arrow_array::types::Int64Type>();
            for i in 0..batch.num_rows() {
                pairs.push((i64::from(id.value(i)), row_id.value(i)));
            }
        }
    }
    assert_eq!(pairs.len(), 8);
    assert!(pairs.iter().all(|(id, row_id)| id == row_id), "{pairs:?}");
    // A table without row tracking has no such system table.
    let plain = corpus("c26-fallback-branch");
    let err = native_reader::system::open(
        Table::open_as(&plain, PaimonRelease::V2_0_0).unwrap(),
        "row_tracking",
    )
    .err()
    .unwrap()
    .to_string();
    assert!(err.contains("no row tracking"), "{err}");
}
