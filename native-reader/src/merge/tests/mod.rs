//! The merge reader's tests, by topic: `values` (Java's float order, digits, datums through arrays),
//! `read_kind` (which read a split gets), `engines` (deduplicate, first-row, partial-update), `aggregation`
//! (the aggregation engine and its functions) and `runs` (single-run sections, lookup picks, keys one run
//! holds). The helpers here build a table and merge runs given as rows.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Int32Builder, Int64Builder, StringBuilder, StringViewBuilder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::Int8Type;
use arrow_array::{ArrayRef, Int64Array, Int8Array, RecordBatch};
use arrow_schema::DataType as ArrowType;
use serde_json::{json, Value};

use super::reader::MergeReader;
use super::run::{RunContext, RunSource};
use crate::error::Result;
use crate::row_kind::RowKind;
use crate::table::Table;
use crate::value::Datum;

mod aggregation;
mod engines;
mod read_kind;
mod runs;
mod values;

/// Batches in `read_file`'s shape, from memory: the run of a test.
struct MemoryRun(VecDeque<RecordBatch>);

impl RunSource for MemoryRun {
    fn next_batch(&mut self, _ctx: &RunContext) -> Result<Option<(RecordBatch, PathBuf, i32)>> {
        Ok(self
            .0
            .pop_front()
            .map(|b| (b, PathBuf::from("<memory>"), 0)))
    }
}

/// A table with `fields` (JSON DataFields), primary key `pk` and `options`, in a temporary directory.
fn table(dir: &Path, fields: Value, pk: &[&str], options: Value) -> Arc<Table> {
    table_as(dir, fields, pk, options, crate::PaimonRelease::default())
}

/// [`table`] read as `release`.
fn table_as(
    dir: &Path,
    fields: Value,
    pk: &[&str],
    options: Value,
    release: crate::PaimonRelease,
) -> Arc<Table> {
    std::fs::create_dir_all(dir.join("schema")).unwrap();
    let schema = json!({"version": 3, "id": 0, "fields": fields, "highestFieldId": 10,
        "partitionKeys": [], "primaryKeys": pk, "options": options});
    std::fs::write(dir.join("schema/schema-0"), schema.to_string()).unwrap();
    Arc::new(Table::open_as(dir, release).unwrap())
}

fn kv_fields(extra: &[(&str, &str)]) -> Value {
    let mut fields = vec![json!({"id": 0, "name": "k", "type": "INT NOT NULL"})];
    for (i, (name, ty)) in extra.iter().enumerate() {
        fields.push(json!({"id": i + 1, "name": name, "type": ty}));
    }
    Value::Array(fields)
}

/// One batch in `read_file`'s shape: rows of (sequence, kind, values in column order).
fn batch(table: &Table, rows: &[(i64, i8, Value)]) -> RecordBatch {
    let schema = Arc::new(crate::decode::file_read_schema(table, true));
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(
            rows.iter().map(|r| r.0).collect::<Vec<_>>(),
        )),
        Arc::new(Int8Array::from(
            rows.iter().map(|r| r.1).collect::<Vec<_>>(),
        )),
    ];
    for (c, field) in schema.fields().iter().enumerate().skip(2) {
        let values: Vec<&Value> = rows.iter().map(|r| &r.2[c - 2]).collect();
        let array: ArrayRef = match field.data_type() {
            ArrowType::Int32 => {
                let mut b = Int32Builder::new();
                values
                    .iter()
                    .for_each(|v| b.append_option(v.as_i64().map(|x| x as i32)));
                Arc::new(b.finish())
            }
            ArrowType::Int64 => {
                let mut b = Int64Builder::new();
                values.iter().for_each(|v| b.append_option(v.as_i64()));
                Arc::new(b.finish())
            }
            ArrowType::Utf8View => {
                let mut b = StringViewBuilder::new();
                values.iter().for_each(|v| b.append_option(v.as_str()));
                Arc::new(b.finish())
            }
            ArrowType::Utf8 => {
                let mut b = StringBuilder::new();
                values.iter().for_each(|v| b.append_option(v.as_str()));
                Arc::new(b.finish())
            }
            ArrowType::Boolean => {
                let mut b = BooleanBuilder::new();
                values.iter().for_each(|v| b.append_option(v.as_bool()));
                Arc::new(b.finish())
            }
            other => {
                let vals: Vec<Datum> = values.iter().map(|v| json_val(other, v)).collect();
                Datum::to_arrow(other, &vals).unwrap()
            }
        };
        columns.push(array);
    }
    RecordBatch::try_new(schema, columns).unwrap()
}

/// The rows of one batch of a test run: (sequence, kind, values in column order).
type TestRows = Vec<(i64, i8, Value)>;

/// Merges one section whose runs are given as rows (one batch each), in output batches of 2 rows; returns
/// `kind v1 v2 ...` per output row.
fn merge(table: &Arc<Table>, runs: Vec<TestRows>) -> Result<Vec<String>> {
    let runs: Vec<Vec<TestRows>> = runs.into_iter().map(|rows| vec![rows]).collect();
    merge_batches(table, &runs, 2)
}

/// Merges one section whose runs are given as batches of rows, in output batches of `batch_size`; returns
/// `kind v1 v2 ...` per output row.
fn merge_batches(
    table: &Arc<Table>,
    runs: &[Vec<TestRows>],
    batch_size: usize,
) -> Result<Vec<String>> {
    let section: Vec<Box<dyn RunSource>> = runs
        .iter()
        .map(|batches| {
            Box::new(MemoryRun(batches.iter().map(|b| batch(table, b)).collect()))
                as Box<dyn RunSource>
        })
        .collect();
    let mut reader =
        MergeReader::with_sections(table, "/t/bucket-0", &[], vec![section], batch_size, None)?;
    let mut out = Vec::new();
    while let Some(b) = reader.next_batch()? {
        assert!(b.num_rows() > 0 && b.num_rows() <= batch_size);
        for r in 0..b.num_rows() {
            let kind =
                ["+I", "-U", "+U", "-D"][b.column(0).as_primitive::<Int8Type>().value(r) as usize];
            let mut line = kind.to_string();
            for c in b.columns().iter().skip(1) {
                line.push(' ');
                line.push_str(&arrow_cast::display::array_value_to_string(c.as_ref(), r).unwrap());
            }
            out.push(line);
        }
    }
    Ok(out)
}

const I: i8 = RowKind::Insert.to_byte();
const UA: i8 = RowKind::UpdateAfter.to_byte();
const UB: i8 = 1;
const D: i8 = RowKind::Delete.to_byte();

/// A JSON test value as a [`Datum`] of `data_type` (BINARY as a hex string).
fn json_val(data_type: &ArrowType, v: &Value) -> Datum {
    match (data_type, v) {
        (_, Value::Null) => Datum::Null,
        (ArrowType::Int32 | ArrowType::Int64, v) => Datum::Int(v.as_i64().unwrap()),
        (ArrowType::Utf8 | ArrowType::Utf8View, v) => {
            Datum::String(v.as_str().unwrap().to_string())
        }
        (ArrowType::Binary | ArrowType::BinaryView, v) => {
            let h = v.as_str().unwrap();
            Datum::Bytes(
                (0..h.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
                    .collect(),
            )
        }
        (ArrowType::List(f), Value::Array(items)) => {
            Datum::List(items.iter().map(|x| json_val(f.data_type(), x)).collect())
        }
        (other, v) => panic!("test value {v} of {other}"),
    }
}
