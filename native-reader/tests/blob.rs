//! BLOB read natively: the committed corpora `c28-blob` and `c28-blob-split-by-open-cost` (written by Paimon
//! 2.0.0) keep their BLOB column in `.blob` files beside the Parquet files of the other columns, and update
//! column `name` of rows 0-4 afterwards. The expected rows are the scenario's own writes
//! (`corpora/c28-blob/scenario.json`: row `i < 5` holds `i` repeated `3i + 1` times, NULL at row 2; rows 5-7
//! `blob-<i>-` and the bytes 0-255; row 8 an empty blob), and the split counts are the released reader's
//! plans recorded in each corpus's `case.json`; never this reader's output.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::Array;
use native_reader::decode::SplitReader;
use native_reader::{Error, PaimonRelease, Table};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora")
        .join(name)
        .join("paimon-2.0.0")
}

type Row = (Option<i32>, Option<String>, Option<Vec<u8>>);

fn read(table: &Path, release: PaimonRelease) -> (usize, Vec<Row>) {
    let table = Arc::new(Table::open_as(table, release).unwrap());
    let splits = table.plan_batch(None).unwrap();
    let mut out = Vec::new();
    for split in &splits {
        for batch in SplitReader::new(table.clone(), split, 3).unwrap() {
            let batch = batch.unwrap();
            // Column 0 is the RowKind.
            let id = batch.column(1).as_primitive::<Int32Type>();
            let name = arrow_cast::cast(batch.column(2), &arrow_schema::DataType::Utf8).unwrap();
            let name = name.as_string::<i32>();
            let payload =
                arrow_cast::cast(batch.column(3), &arrow_schema::DataType::Binary).unwrap();
            let payload = payload.as_binary::<i32>();
            for i in 0..batch.num_rows() {
                out.push((
                    id.is_valid(i).then(|| id.value(i)),
                    name.is_valid(i).then(|| name.value(i).to_string()),
                    payload.is_valid(i).then(|| payload.value(i).to_vec()),
                ));
            }
        }
    }
    (splits.len(), out)
}

/// The rows the scenario wrote, after its update of `name` (rows 0-4: `N<i>`, NULL at row 3).
fn written() -> Vec<Row> {
    let mut rows: Vec<Row> = (0..5)
        .map(|i| {
            let name = (i != 3).then(|| format!("N{i}"));
            let payload = (i != 2).then(|| vec![i as u8; (3 * i + 1) as usize]);
            (Some(i), name, payload)
        })
        .collect();
    for i in 5..8 {
        let mut payload = format!("blob-{i}-").into_bytes();
        payload.extend(0..=255u8);
        rows.push((Some(i), Some(format!("n{i}")), Some(payload)));
    }
    rows.push((Some(8), None, Some(Vec::new())));
    rows
}

fn recorded_batch_splits(dir: &Path) -> usize {
    let case: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
    case["expected"]["batch_latest"]["splits"].as_u64().unwrap() as usize
}

#[test]
fn blob_columns_merge_with_their_rows_and_weigh_as_the_option_says() {
    for (name, splits) in [("c28-blob", 2), ("c28-blob-split-by-open-cost", 1)] {
        let dir = corpus(name);
        // The released reader's plan: counted blob sizes fill two splits, the open-file cost one.
        assert_eq!(recorded_batch_splits(&dir), splits, "{name}");
        for release in [PaimonRelease::V1_4_2, PaimonRelease::V2_0_0] {
            let (planned, rows) = read(&dir.join("table"), release);
            assert_eq!(planned, splits, "{name} as {release}");
            assert_eq!(rows, written(), "{name} as {release}");
        }
    }
}

#[test]
fn a_release_before_blob_refuses_the_table_by_its_type() {
    let table = corpus("c28-blob").join("table");
    for release in [PaimonRelease::V1_0_0, PaimonRelease::V1_3_1] {
        match Table::open_as(&table, release) {
            Err(Error::Unsupported { path, reason }) => {
                assert!(path.ends_with("schema/schema-0"), "{}", path.display());
                assert!(
                    reason.contains("column `payload` has type BLOB")
                        && reason.contains(&format!("Paimon {release} does not know")),
                    "{reason}"
                );
            }
            other => panic!(
                "{release}: expected unsupported, got {:?}",
                other.map(|_| ())
            ),
        }
    }
}

/// `c32-blob-update`: rows 0-5 written with `v1-row<i>` (NULL at row 4), then `payload` rewritten twice with
/// placeholders (`corpora/c32-blob-update/scenario.json`): rows 0-5 as `v2-row0`, placeholder, placeholder,
/// `v2-row3`, placeholder, NULL; rows 1-2 as `v3-row1`, placeholder. Each row takes the newest value that is
/// not a placeholder (2.0.0's `BlobFallbackRecordReader`).
#[test]
fn blob_updates_take_each_row_from_the_newest_file_without_a_placeholder() {
    let (splits, rows) = read(
        &corpus("c32-blob-update").join("table"),
        PaimonRelease::V2_0_0,
    );
    assert_eq!(splits, 1);
    let v = |s: &str| Some(s.as_bytes().to_vec());
    let want: Vec<Row> = [
        v("v2-row0"),
        v("v3-row1"),
        // A placeholder in both updates: the first write's value.
        v("v1-row2"),
        v("v2-row3"),
        // A placeholder in the second update, a gap of the third, NULL in the first write.
        None,
        // NULL in the second update, a gap of the third.
        None,
    ]
    .into_iter()
    .enumerate()
    .map(|(i, payload)| (Some(i as i32), Some(format!("N{i}")), payload))
    .collect();
    assert_eq!(rows, want);
    // The update's file read on its own (a streaming split of its snapshot) holds placeholders: refused, as
    // the released reader fails on them.
    let table = Arc::new(
        Table::open_as(
            &corpus("c32-blob-update").join("table"),
            PaimonRelease::V2_0_0,
        )
        .unwrap(),
    );
    let stream = table.plan_stream(2, 2).unwrap();
    let err = stream
        .iter()
        .find_map(|s| {
            SplitReader::new(table.clone(), s, 3)
                .and_then(|r| r.collect::<Result<Vec<_>, _>>())
                .err()
        })
        .expect("a placeholder read on its own fails");
    assert!(matches!(err, Error::Unsupported { .. }), "{err}");
    assert!(err.to_string().contains("placeholder"), "{err}");
}
