//! In-memory readers over a synthetic plan, for diff-level tests without a JVM: two [`MemReader`]s over
//! the same splits, one of them with a planted difference, replayed by the real `replay()`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{Int32Builder, MapBuilder, StringBuilder};
use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, Decimal128Array, Float64Array, Int32Array, Int64Array, Int8Array, ListArray,
    RecordBatch, StringArray, StructArray, TimestampMicrosecondArray,
};
use arrow_schema::{DataType, Field, Fields, Schema, TimeUnit};
use harness::error::Side;
use harness::reader::{Batches, PlannedSplit, TableReader};
use harness::replay::{replay, ReplayOptions, ReplayReport, SplitReport, SplitVerdict};
use native_reader::{Split, SplitKey};

/// A reader that plans fixed splits and returns fixed batches for them.
pub struct MemReader {
    pub side: Side,
    pub splits: Vec<(Split, Vec<RecordBatch>)>,
}

impl TableReader for MemReader {
    fn side(&self) -> Side {
        self.side
    }

    fn plan_stream(&self, _: &Path, _: i64, _: i64) -> harness::Result<Vec<PlannedSplit>> {
        Ok(self
            .splits
            .iter()
            .enumerate()
            .map(|(i, (s, _))| PlannedSplit {
                split: s.clone(),
                payload: Some((i as u64).to_le_bytes().to_vec()),
                wire: None,
            })
            .collect())
    }

    fn read_split<'a>(&'a self, _: &Path, split: &'a PlannedSplit) -> harness::Result<Batches<'a>> {
        let i = split
            .payload
            .as_ref()
            .and_then(|p| <[u8; 8]>::try_from(p.as_slice()).ok())
            .map(u64::from_le_bytes)
            .expect("a split this reader planned") as usize;
        Ok(Box::new(self.splits[i].1.clone().into_iter().map(Ok)))
    }
}

/// A split of one partition value and bucket, with files of 5 rows each.
pub fn split(snapshot: i64, partition: &str, bucket: i32, files: &[&str]) -> Split {
    let data_files: Vec<serde_json::Value> = files
        .iter()
        .map(|f| {
            serde_json::json!({
                "file_name": f, "level": 0, "row_count": 5, "file_size": 1000,
                "min_sequence_number": 0, "max_sequence_number": 4, "schema_id": 0
            })
        })
        .collect();
    serde_json::from_value(serde_json::json!({
        "snapshot_id": snapshot,
        "partition": [partition],
        "bucket": bucket,
        "bucket_path": format!("/mem/pt={partition}/bucket-{bucket}"),
        "data_files": data_files,
        "before_files": [],
        "deletion_files": [],
        "is_streaming": true,
        "raw_convertible": true
    }))
    .expect("a valid split")
}

/// Any table directory with snapshots: `replay()` only reads its latest snapshot id; the in-memory readers
/// ignore it.
pub fn table() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora/c00-full-compaction-control/table")
        .canonicalize()
        .expect("the c00 corpus")
}

/// Replays two in-memory readers.
pub fn replay_mem(
    stock: Vec<(Split, Vec<RecordBatch>)>,
    native: Vec<(Split, Vec<RecordBatch>)>,
    unordered: bool,
) -> ReplayReport {
    let stock = MemReader {
        side: Side::Stock,
        splits: stock,
    };
    let native = MemReader {
        side: Side::Native,
        splits: native,
    };
    let options = ReplayOptions {
        progress: false,
        unordered,
        ..ReplayOptions::default()
    };
    let report = replay(&table(), &stock, &native, &options).expect("replay runs");
    if unordered {
        // With no memory for the rows not yet matched, every row goes through DataFusion's aggregation:
        // the report must be the same, word for word.
        let spilling = ReplayOptions {
            unordered_memory: 0,
            ..options
        };
        let through = replay(&table(), &stock, &native, &spilling).expect("replay runs");
        // The text without the run's duration (", 0.01 s" at the end of the summary line).
        let untimed = |r: &ReplayReport| -> Vec<String> {
            text(r)
                .lines()
                .map(|l| match l.rsplit_once(", ") {
                    Some((head, tail)) if tail.ends_with(" s") => head.to_owned(),
                    _ => l.to_owned(),
                })
                .collect()
        };
        assert_eq!(
            untimed(&through),
            untimed(&report),
            "the spilling multiset diff differs"
        );
    }
    report
}

/// The text report.
pub fn text(report: &ReplayReport) -> String {
    let mut out = Vec::new();
    harness::report::write_text(&mut out, report, 10).expect("writes");
    String::from_utf8(out).expect("utf-8")
}

/// The splits that are not identical.
pub fn differing(report: &ReplayReport) -> Vec<&SplitReport> {
    report
        .splits
        .iter()
        .filter(|s| s.verdict != SplitVerdict::Identical)
        .collect()
}

/// Asserts a decoding difference: exit 1, exactly one differing split (`key`), its first mismatch at
/// `row`/`field` with both values, and the text report line naming all of them.
pub fn assert_pinpointed(
    report: &ReplayReport,
    key: &SplitKey,
    row: u64,
    field: &str,
    stock: &str,
    native: &str,
) -> harness::diff::RowMismatch {
    let text = text(report);
    assert_eq!(report.exit_code(), 1, "{text}");
    let d = differing(report);
    assert_eq!(d.len(), 1, "exactly one split differs:\n{text}");
    assert_eq!(&d[0].key, key, "{text}");
    assert_eq!(d[0].verdict, SplitVerdict::DiffersDecoding, "{text}");
    let m = d[0].first_mismatch.clone().expect("a first mismatch");
    assert_eq!(
        (m.row, m.field.as_str(), m.stock.as_str(), m.native.as_str()),
        (row, field, stock, native),
        "{text}"
    );
    let line = format!("{key}, row {row}, field {field}: stock {stock} | native {native}");
    assert!(text.contains(&line), "missing {line:?} in\n{text}");
    m
}

/// Replaces column `name` of `batch` (keeping its field name; the type follows the array).
pub fn with_column(batch: &RecordBatch, name: &str, array: ArrayRef) -> RecordBatch {
    let schema = batch.schema();
    let idx = schema.index_of(name).expect("column exists");
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    fields[idx] = Field::new(name, array.data_type().clone(), true);
    let mut columns = batch.columns().to_vec();
    columns[idx] = array;
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("valid batch")
}

/// Renames column `from` of `batch`.
pub fn rename(batch: &RecordBatch, from: &str, to: &str) -> RecordBatch {
    let schema = batch.schema();
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            if f.name() == from {
                f.as_ref().clone().with_name(to)
            } else {
                f.as_ref().clone()
            }
        })
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), batch.columns().to_vec())
        .expect("valid batch")
}

/// Canonical quiet NaN and another payload.
pub const NAN: u64 = 0x7ff8_0000_0000_0000;
pub const NAN_OTHER: u64 = 0x7ff8_0000_0000_0001;

/// Row kinds of [`base`].
pub const KINDS: [i8; 5] = [0, 0, 1, 2, 3];
/// Unscaled `dec` values of [`base`] (scale 2).
pub const DECIMALS: [i128; 5] = [123, 456, 789, 10, 200];
/// `ts` values of [`base`], microseconds.
pub const MICROS: [i64; 5] = [
    1_700_000_000_123_456,
    1_700_000_001_000_000,
    1_700_000_002_500_001,
    1_700_000_003_999_999,
    1_700_000_004_000_007,
];

pub fn kinds(k: &[i8]) -> ArrayRef {
    Arc::new(Int8Array::from(k.to_vec()))
}
pub fn strings(v: &[Option<&str>]) -> ArrayRef {
    Arc::new(StringArray::from(v.to_vec()))
}
pub fn longs(v: &[Option<i64>]) -> ArrayRef {
    Arc::new(Int64Array::from(v.to_vec()))
}
pub fn doubles(bits: &[u64]) -> ArrayRef {
    Arc::new(Float64Array::from(
        bits.iter().map(|b| f64::from_bits(*b)).collect::<Vec<_>>(),
    ))
}
pub fn decimals(unscaled: &[i128], precision: u8, scale: i8) -> ArrayRef {
    Arc::new(
        Decimal128Array::from(unscaled.to_vec())
            .with_precision_and_scale(precision, scale)
            .expect("valid decimal"),
    )
}
pub fn micros(v: &[i64]) -> ArrayRef {
    Arc::new(TimestampMicrosecondArray::from(v.to_vec()))
}

/// A map column from entries per row (`None`: a NULL map).
pub fn map(rows: &[Option<Vec<(&str, i32)>>]) -> ArrayRef {
    let mut b = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    for row in rows {
        match row {
            None => b.append(false).expect("append"),
            Some(entries) => {
                for (k, v) in entries {
                    b.keys().append_value(k);
                    b.values().append_value(*v);
                }
                b.append(true).expect("append");
            }
        }
    }
    Arc::new(b.finish())
}

/// A `struct<a INT, b STRING>` column (`None`: a NULL struct).
pub fn structs(rows: &[Option<(Option<i32>, Option<&str>)>]) -> ArrayRef {
    let a: Int32Array = rows.iter().map(|r| r.and_then(|r| r.0)).collect();
    let b: StringArray = rows.iter().map(|r| r.and_then(|r| r.1)).collect();
    let nulls: Vec<bool> = rows.iter().map(Option::is_some).collect();
    Arc::new(
        StructArray::try_new(
            Fields::from(vec![
                Field::new("a", DataType::Int32, true),
                Field::new("b", DataType::Utf8, true),
            ]),
            vec![Arc::new(a), Arc::new(b)],
            Some(nulls.into()),
        )
        .expect("valid struct"),
    )
}

/// A `list<int>` column (`None`: a NULL list).
pub fn lists(rows: &[Option<Vec<i32>>]) -> ArrayRef {
    Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(
        rows.iter().map(|r| {
            r.as_ref()
                .map(|v| v.iter().map(|x| Some(*x)).collect::<Vec<_>>())
        }),
    ))
}

/// Five rows of every kind of column the planted tests change:
/// `_row_kind, id INT, dec DECIMAL(10,2), ts TIMESTAMP(6), s STRING, n BIGINT, f DOUBLE,
/// m MAP<STRING,INT>, st ROW<a INT, b STRING>, l ARRAY<INT>`.
pub fn base() -> RecordBatch {
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("_row_kind", kinds(&KINDS)),
        ("id", Arc::new(Int32Array::from(vec![1, 2, 3, 4, 5]))),
        ("dec", decimals(&DECIMALS, 10, 2)),
        ("ts", micros(&MICROS)),
        (
            "s",
            strings(&[Some("a"), Some("bb"), Some(""), None, Some("e")]),
        ),
        ("n", longs(&[Some(10), Some(0), Some(30), None, Some(50)])),
        (
            "f",
            doubles(&[
                1.5f64.to_bits(),
                0.0f64.to_bits(),
                NAN,
                (-2.5f64).to_bits(),
                3.0f64.to_bits(),
            ]),
        ),
        (
            "m",
            map(&[
                Some(vec![("x", 1), ("y", 2)]),
                Some(vec![]),
                Some(vec![("k", 7)]),
                None,
                Some(vec![("a", 1), ("b", 2), ("c", 3)]),
            ]),
        ),
        (
            "st",
            structs(&[
                Some((Some(1), Some("p"))),
                Some((Some(2), Some("q"))),
                None,
                Some((Some(4), None)),
                Some((Some(5), Some("t"))),
            ]),
        ),
        (
            "l",
            lists(&[
                Some(vec![1, 2]),
                Some(vec![3]),
                Some(vec![]),
                None,
                Some(vec![5, 6, 7]),
            ]),
        ),
    ];
    let fields: Vec<Field> = columns
        .iter()
        .map(|(n, a)| Field::new(*n, a.data_type().clone(), *n != "_row_kind"))
        .collect();
    RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        columns.into_iter().map(|(_, a)| a).collect(),
    )
    .expect("valid batch")
}

/// `base()` rows in the order of `rows` (repeats allowed).
pub fn rows(batch: &RecordBatch, rows: &[u32]) -> RecordBatch {
    let idx = arrow_array::UInt32Array::from(rows.to_vec());
    arrow::compute::take_record_batch(batch, &idx).expect("take")
}

/// The same rows cut into batches of the given lengths.
pub fn cut(batch: &RecordBatch, lengths: &[usize]) -> Vec<RecordBatch> {
    let mut out = Vec::new();
    let mut at = 0;
    for len in lengths {
        out.push(batch.slice(at, *len));
        at += len;
    }
    assert_eq!(at, batch.num_rows(), "lengths cover the batch");
    out
}

/// `TimeUnit` re-export for tests.
pub const MS: TimeUnit = TimeUnit::Millisecond;

/// `(split, batches)` with the base rows.
pub fn one_split(batch: RecordBatch) -> Vec<(Split, Vec<RecordBatch>)> {
    vec![(split(3, "p1", 2, &["data-a.parquet"]), vec![batch])]
}

/// The key of [`one_split`].
pub fn key() -> SplitKey {
    split(3, "p1", 2, &["data-a.parquet"]).key()
}

/// Sanity: every column of `b` has `b.num_rows()` rows.
pub fn check(b: &RecordBatch) {
    for c in b.columns() {
        assert_eq!(c.len(), b.num_rows());
    }
}
