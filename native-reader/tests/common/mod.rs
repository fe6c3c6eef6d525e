//! Helpers shared by the native reader's integration tests: a committed corpus table copied somewhere it
//! may be changed, and what its `case.json` recorded.

// Each test binary uses some of these helpers.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int8Type;
use arrow_array::RecordBatch;
use native_reader::merge::read_split;
use native_reader::{Error, PaimonRelease, RowKind, Table};

/// Copies the directory tree `from` into `to` (created), files byte for byte.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Replaces the text `from` (which must be there) by `to` in the latest `schema/schema-N` of the table
/// at `table`: a table option changed in place, as no writer would.
pub fn edit_latest_schema(table: &Path, from: &str, to: &str) {
    let latest = std::fs::read_dir(table.join("schema"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .max_by_key(|p| {
            p.file_name().unwrap().to_str().unwrap()["schema-".len()..]
                .parse::<i64>()
                .unwrap()
        })
        .unwrap();
    let text = std::fs::read_to_string(&latest).unwrap();
    assert!(
        text.contains(from),
        "{} lacks {from}: {text}",
        latest.display()
    );
    std::fs::write(&latest, text.replace(from, to)).unwrap();
}

/// The released writer's batch reads that `read-batch` steps recorded in the corpus's `case.json`
/// (`expected.batch_reads`), in step order, each row as `case.json` writes it (`+I (1, "v1")`), each read
/// sorted.
pub fn recorded_batch_reads(corpus: &Path) -> Vec<Vec<String>> {
    let case: serde_json::Value =
        serde_json::from_slice(&std::fs::read(corpus.join("case.json")).unwrap()).unwrap();
    case["expected"]["batch_reads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|read| {
            let mut rows: Vec<String> = read["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect();
            rows.sort();
            rows
        })
        .collect()
}

/// Row `i` of `batch` (RowKind first) as `case.json` writes it: `+I (1, "a1")`, `+I (5, "n5", NULL)`.
pub fn render(batch: &RecordBatch, i: usize) -> String {
    let kind = batch.column(0).as_primitive::<Int8Type>().value(i);
    let values: Vec<String> = batch.columns()[1..]
        .iter()
        .map(|c| {
            if c.is_null(i) {
                return "NULL".to_string();
            }
            let text = arrow_cast::cast(c, &arrow_schema::DataType::Utf8).unwrap();
            let text = text.as_string::<i32>().value(i).to_string();
            match c.data_type() {
                arrow_schema::DataType::Utf8 | arrow_schema::DataType::Utf8View => {
                    format!("\"{text}\"")
                }
                _ => text,
            }
        })
        .collect();
    format!(
        "{} ({})",
        RowKind::from_byte(kind).unwrap().short_string(),
        values.join(", ")
    )
}

/// The batch scan that names no snapshot of `table` as `release`, read natively, sorted as
/// [`recorded_batch_reads`] sorts; the first error otherwise.
pub fn batch_read(table: &Path, release: PaimonRelease) -> Result<Vec<String>, Error> {
    let table = Arc::new(Table::open_as(table, release)?);
    let mut out = Vec::new();
    for split in table.plan_batch(None)? {
        for batch in read_split(&table, &split, 2)? {
            let batch = batch?;
            out.extend((0..batch.num_rows()).map(|i| render(&batch, i)));
        }
    }
    out.sort();
    Ok(out)
}
