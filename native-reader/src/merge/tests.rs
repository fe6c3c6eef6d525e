use std::cmp::Ordering;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int8Type;
use arrow_array::{ArrayRef, Int64Array, Int8Array, RecordBatch};
use arrow_schema::DataType as ArrowType;

use super::function::merge_function;
use super::output::{datum_at, datums_to_array};
use super::reader::MergeReader;
use super::run::{RunContext, RunSource};
use super::*;
use crate::aggregate::numeric::number_digits;
use crate::error::{Error, Result};
use crate::row_kind::RowKind;
use crate::split::{DataFileDesc, Split};
use crate::value::compare::{compare_codegen, java_float_compare};
use crate::value::Datum;

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
use crate::table::Table;

use arrow_array::builder::{
    BooleanBuilder, Int32Builder, Int64Builder, StringBuilder, StringViewBuilder,
};
use serde_json::{json, Value};

#[test]
fn java_float_order() {
    assert_eq!(java_float_compare(f64::NAN, 1.0), Ordering::Greater);
    assert_eq!(java_float_compare(-0.0, 0.0), Ordering::Less);
    assert_eq!(java_float_compare(f64::NAN, f64::NAN), Ordering::Equal);
    assert_eq!(
        compare_codegen(&Datum::Double(-0.0), &Datum::Double(0.0)),
        Ordering::Equal
    );
}

#[test]
fn digits() {
    assert_eq!(number_digits(0), 1);
    assert_eq!(number_digits(999), 3);
    assert_eq!(number_digits(-1000), 4);
}

#[test]
fn scalars_round_trip_through_arrays() {
    let decimal = |unscaled| Datum::Decimal {
        unscaled,
        precision: 5,
        scale: 2,
    };
    let a = datums_to_array(
        &ArrowType::Decimal128(5, 2),
        vec![Some(decimal(12345)), None],
    )
    .unwrap();
    assert_eq!(datum_at(a.as_ref(), 0).unwrap(), Some(decimal(12345)));
    assert_eq!(datum_at(a.as_ref(), 1).unwrap(), None);
    assert!(datums_to_array(&ArrowType::Int32, vec![Some(Datum::String("x".into()))]).is_err());
}

#[test]
fn read_kind_follows_key_value_table_read() {
    let split = |streaming, raw, drc: Option<i64>| Split {
        snapshot_id: 1,
        partition: vec![],
        bucket: 0,
        bucket_path: "/t/bucket-0".into(),
        data_files: vec![DataFileDesc {
            file_name: "f".into(),
            level: 1,
            row_count: 1,
            file_size: 1,
            min_sequence_number: 0,
            max_sequence_number: 0,
            schema_id: 0,
            delete_row_count: drc,
            min_key: vec![],
            max_key: vec![],
            external_path: None,
        }],
        before_files: vec![],
        before_deletion_files: vec![],
        deletion_files: vec![],
        is_streaming: streaming,
        raw_convertible: raw,
    };
    use SplitReadKind::*;
    assert_eq!(
        split_read_kind(false, &split(false, false, None)).unwrap(),
        NoMerge
    );
    assert_eq!(
        split_read_kind(true, &split(false, true, Some(0))).unwrap(),
        Raw
    );
    // unknown delete-row counts force the merge reader (legacy files)
    assert_eq!(
        split_read_kind(true, &split(false, true, None)).unwrap(),
        Merge
    );
    assert_eq!(
        split_read_kind(true, &split(true, true, Some(0))).unwrap(),
        NoMerge
    );
    assert_eq!(
        split_read_kind(true, &split(false, false, Some(0))).unwrap(),
        Merge
    );
    let mut with_before = split(false, false, Some(0));
    with_before.before_files = with_before.data_files.clone();
    // a batch split with before-files (IncrementalDiffSplitRead) is not read natively
    assert!(matches!(
        split_read_kind(true, &with_before),
        Err(Error::Unsupported { .. })
    ));
    // a streaming one is a changes split (IncrementalChangelogReadProvider), raw-convertible or not
    let mut streaming_before = split(true, true, Some(0));
    streaming_before.before_files = streaming_before.data_files.clone();
    assert_eq!(split_read_kind(true, &streaming_before).unwrap(), Changes);
    // without before-files a streaming split stays a no-merge split (MergeFileSplitReadProvider)
    assert_eq!(
        split_read_kind(true, &split(true, false, Some(0))).unwrap(),
        NoMerge
    );
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
        MergeReader::with_sections(table, "/t/bucket-0", vec![section], batch_size, None)?;
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

#[test]
fn deduplicate_keeps_the_latest_record_and_its_kind() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(dir.path(), kv_fields(&[("v", "INT")]), &["k"], json!({}));
    let runs = vec![
        vec![
            (0, I, json!([1, 10])),
            (1, I, json!([2, 20])),
            (5, I, json!([4, 40])),
        ],
        vec![
            (2, UA, json!([1, 11])),
            (3, D, json!([2, 20])),
            (4, I, json!([3, 30])),
        ],
    ];
    assert_eq!(
        merge(&t, runs.clone()).unwrap(),
        ["+U 1 11", "+I 3 30", "+I 4 40"]
    );
    // ignore-delete: the -D of key 2 is skipped, its +I stays.
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "INT")]),
        &["k"],
        json!({"ignore-delete": "true"}),
    );
    assert_eq!(
        merge(&t, runs).unwrap(),
        ["+U 1 11", "+I 2 20", "+I 3 30", "+I 4 40"]
    );
}

#[test]
fn a_key_seen_once_is_emitted_unchanged_and_deletes_are_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "BIGINT")]),
        &["k"],
        json!({"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"}),
    );
    let runs = vec![
        vec![(0, UA, json!([1, 5])), (1, D, json!([2, 7]))],
        vec![(2, I, json!([3, 1]))],
    ];
    assert_eq!(merge(&t, runs).unwrap(), ["+U 1 5", "+I 3 1"]);
}

#[test]
fn sequence_field_orders_records_before_the_sequence_number() {
    for (order, expected) in [("ascending", "+I 1 1 5"), ("descending", "+I 1 2 3")] {
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            kv_fields(&[("v", "INT"), ("ts", "INT")]),
            &["k"],
            json!({"sequence.field": "ts", "sequence.field.sort-order": order}),
        );
        let runs = vec![
            vec![(0, I, json!([1, 1, 5]))],
            vec![(1, I, json!([1, 2, 3]))],
        ];
        assert_eq!(merge(&t, runs).unwrap(), [expected], "{order}");
    }
}

#[test]
fn first_row_keeps_the_first_record_and_rejects_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "INT")]),
        &["k"],
        json!({"merge-engine": "first-row"}),
    );
    let runs = vec![vec![(1, UA, json!([1, 11]))], vec![(0, I, json!([1, 10]))]];
    assert_eq!(merge(&t, runs).unwrap(), ["+I 1 10"]);
    let runs = vec![vec![(1, D, json!([1, 11]))], vec![(0, I, json!([1, 10]))]];
    assert!(matches!(merge(&t, runs), Err(Error::Merge { .. })));
}

#[test]
fn partial_update_merges_non_null_fields() {
    let dir = tempfile::tempdir().unwrap();
    let fields = kv_fields(&[("a", "INT"), ("b", "STRING")]);
    let t = table(
        dir.path(),
        fields.clone(),
        &["k"],
        json!({"merge-engine": "partial-update"}),
    );
    let runs = vec![
        vec![(0, I, json!([1, 1, null])), (1, I, json!([2, 2, "x"]))],
        vec![(2, UA, json!([1, null, "y"]))],
    ];
    assert_eq!(merge(&t, runs).unwrap(), ["+I 1 1 y", "+I 2 2 x"]);
    // A delete is rejected by default ...
    let runs = vec![
        vec![(0, I, json!([1, 1, "a"]))],
        vec![(1, D, json!([1, 1, "a"]))],
    ];
    assert!(matches!(merge(&t, runs.clone()), Err(Error::Merge { .. })));
    // ... removes the row with remove-record-on-delete (a later insert starts afresh) ...
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        fields.clone(),
        &["k"],
        json!({"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"}),
    );
    assert_eq!(merge(&t, runs.clone()).unwrap(), Vec::<String>::new());
    let mut again = runs.clone();
    again.push(vec![(2, I, json!([1, null, "b"]))]);
    assert_eq!(merge(&t, again).unwrap(), ["+I 1  b"]);
    // ... and is skipped with ignore-delete.
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        fields,
        &["k"],
        json!({"merge-engine": "partial-update", "ignore-delete": "true"}),
    );
    assert_eq!(merge(&t, runs).unwrap(), ["+I 1 1 a"]);
}

#[test]
fn partial_update_sequence_groups() {
    // The example of Paimon's partial-update docs: two groups, each updated only by newer sequences.
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[
            ("a", "INT"),
            ("b", "INT"),
            ("g_1", "INT"),
            ("c", "INT"),
            ("d", "INT"),
            ("g_2", "INT"),
        ]),
        &["k"],
        json!({"merge-engine": "partial-update",
               "fields.g_1.sequence-group": "a,b", "fields.g_2.sequence-group": "c,d"}),
    );
    let runs = vec![
        vec![(0, I, json!([1, 1, 1, 1, 1, 1, 1]))],
        vec![(1, I, json!([1, 2, 2, 2, null, null, null]))],
        vec![(2, I, json!([1, 3, 3, 1, 3, 3, 3]))],
    ];
    assert_eq!(merge(&t, runs).unwrap(), ["+I 1 2 2 2 3 3 3"]);
    // Retracting with an older group sequence leaves the group alone; a newer one clears it.
    let runs = vec![
        vec![(0, I, json!([1, 1, 1, 5, 1, 1, 5]))],
        vec![(1, UB, json!([1, 1, 1, 4, 1, 1, 6]))],
    ];
    assert_eq!(merge(&t, runs).unwrap(), ["+I 1 1 1 5   6"]);
}

#[test]
fn partial_update_aggregates_sequence_fields_in_1_0_0_only() {
    // `fields.default-aggregate-function=sum` with one sequence group: 1.0.0's
    // PartialUpdateMergeFunction.Factory gives every non-key field the default aggregator, the group's
    // sequence field `g` included, so `g` is summed (`row.setField(i, aggregator.agg(accumulator, field))`
    // after the sequence fields were set); from 1.0.1 (apache/paimon#4897) sequence fields get none and `g`
    // is the newer record's. `a` is summed by every release.
    use crate::PaimonRelease::*;
    let runs = || {
        vec![
            vec![(0, I, json!([1, 10, 1]))],
            vec![(1, I, json!([1, 5, 2]))],
        ]
    };
    for (release, want) in [
        (V1_0_0, "+I 1 15 3"),
        (V1_0_1, "+I 1 15 2"),
        (V1_2_0, "+I 1 15 2"),
        (V2_0_0, "+I 1 15 2"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let t = table_as(
            dir.path(),
            kv_fields(&[("a", "INT"), ("g", "INT")]),
            &["k"],
            json!({"merge-engine": "partial-update", "fields.g.sequence-group": "a",
                   "fields.default-aggregate-function": "sum"}),
            release,
        );
        assert_eq!(merge(&t, runs()).unwrap(), [want], "{release}");
    }
}

#[test]
fn aggregation_sequence_fields_by_release() {
    // `sequence.field=s` under `fields.default-aggregate-function=sum`: 1.0.0's AggregateMergeFunction gives
    // `s` the default (sum: 1 + 2), 1.0.1 `last_non_null_value` (#4977), 1.1.1 and later `last_value`
    // (#5065): 2 either way here. `v` is summed by every release.
    use crate::PaimonRelease::*;
    for (release, want) in [
        (V1_0_0, "+I 1 3 15"),
        (V1_0_1, "+I 1 2 15"),
        (V1_1_1, "+I 1 2 15"),
        (V2_0_0, "+I 1 2 15"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let t = table_as(
            dir.path(),
            kv_fields(&[("s", "INT"), ("v", "INT")]),
            &["k"],
            json!({"merge-engine": "aggregation", "sequence.field": "s",
                   "fields.default-aggregate-function": "sum"}),
            release,
        );
        let runs = vec![
            vec![(0, I, json!([1, 1, 10]))],
            vec![(1, I, json!([1, 2, 5]))],
        ];
        assert_eq!(merge(&t, runs).unwrap(), [want], "{release}");
    }
}

#[test]
fn aggregate_functions() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[
            ("s", "BIGINT"),
            ("mx", "INT"),
            ("mn", "INT"),
            ("l", "STRING"),
            ("ba", "BOOLEAN"),
            ("bo", "BOOLEAN"),
            ("p", "INT"),
            ("x", "INT"),
            ("fv", "INT"),
            ("fnn", "INT"),
            ("lv", "INT"),
        ]),
        &["k"],
        json!({"merge-engine": "aggregation",
            "fields.s.aggregate-function": "sum", "fields.mx.aggregate-function": "max",
            "fields.mn.aggregate-function": "min", "fields.l.aggregate-function": "listagg",
            "fields.l.list-agg-delimiter": "|",
            "fields.ba.aggregate-function": "bool_and", "fields.bo.aggregate-function": "bool_or",
            "fields.p.aggregate-function": "product",
            "fields.fv.aggregate-function": "first_value",
            "fields.fnn.aggregate-function": "first_non_null_value",
            "fields.lv.aggregate-function": "last_value"}),
    );
    let runs = vec![
        vec![(
            0,
            I,
            json!([1, 10, 5, 5, "a", true, false, 2, 7, null, null, 1]),
        )],
        vec![(
            1,
            UA,
            json!([1, 20, 3, 3, "b", false, false, 3, null, 8, 9, null]),
        )],
        vec![(
            2,
            I,
            json!([1, null, 9, null, null, true, true, null, null, 6, 4, 2]),
        )],
    ];
    // A merged row is +I whatever its inputs' kinds.
    assert_eq!(
        merge(&t, runs).unwrap(),
        ["+I 1 30 9 3 a|b false true 6 7  9 2"]
    );
}

#[test]
fn aggregate_retraction() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("s", "BIGINT"), ("m", "INT")]),
        &["k"],
        json!({"merge-engine": "aggregation", "fields.s.aggregate-function": "sum",
               "fields.m.aggregate-function": "max", "fields.m.ignore-retract": "true"}),
    );
    let runs = vec![
        vec![(0, I, json!([1, 10, 1]))],
        vec![(1, UB, json!([1, 4, 7]))],
        vec![(2, UA, json!([1, 6, 2]))],
        vec![(3, D, json!([2, 5, 1]))],
        vec![(4, I, json!([2, 1, 1]))],
    ]
    .into_iter()
    .collect::<Vec<_>>();
    // key 2: retract 5 from nothing = -5, then +1 = -4 (the -D sorts first by sequence)
    assert_eq!(merge(&t, runs).unwrap(), ["+I 1 12 2", "+I 2 -4 1"]);
    // max cannot retract without ignore-retract
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("m", "INT")]),
        &["k"],
        json!({"merge-engine": "aggregation", "fields.m.aggregate-function": "max"}),
    );
    let runs = vec![vec![(0, I, json!([1, 1]))], vec![(1, UB, json!([1, 1]))]];
    assert!(matches!(merge(&t, runs), Err(Error::Merge { .. })));
}

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

#[test]
fn collection_and_bitmap_functions_merge() {
    let dir = tempfile::tempdir().unwrap();
    let fields = json!([
        {"id": 0, "name": "k", "type": "INT NOT NULL"},
        {"id": 1, "name": "c", "type": {"type": "ARRAY", "element": "INT"}},
        {"id": 2, "name": "r", "type": "BYTES"},
        {"id": 3, "name": "r64", "type": "BYTES"}
    ]);
    let t = table(
        dir.path(),
        fields.clone(),
        &["k"],
        json!({"merge-engine": "aggregation", "fields.c.aggregate-function": "collect",
               "fields.r.aggregate-function": "rbm32", "fields.r64.aggregate-function": "rbm64"}),
    );
    // RoaringBitmap32 {1, 2, 3} | {3, 4}: one run container (RoaringBitmap32.serialize after runOptimize).
    let (a, b) = (
        "3a300000010000000000020010000000010002000300",
        "3a30000001000000000001001000000003000400",
    );
    let runs = vec![
        vec![(0, I, json!([1, [1, 2], a, null]))],
        vec![(1, I, json!([1, [3], b, "00"]))],
    ];
    assert_eq!(
        merge(&t, runs).unwrap(),
        ["+I 1 [1, 2, 3] 3b3000000100000300010001000300 00"]
    );
    // Two rbm64 values: Roaring64Bitmap's serialized union is not reproduced.
    let runs = vec![
        vec![(0, I, json!([1, null, null, "00"]))],
        vec![(1, I, json!([1, null, null, "01"]))],
    ];
    assert!(matches!(merge(&t, runs), Err(Error::Unsupported { .. })));
    // rbm32 cannot retract (UnsupportedOperationException) unless ignore-retract.
    let runs = vec![
        vec![(0, I, json!([1, null, a, null]))],
        vec![(1, UB, json!([1, null, a, null]))],
    ];
    assert!(matches!(merge(&t, runs), Err(Error::Merge { .. })));

    // In a partial-update sequence group, FieldCollectAgg.aggReversed is agg(accumulator, input):
    // an older record's elements still come after the accumulator's.
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        json!([
            {"id": 0, "name": "k", "type": "INT NOT NULL"},
            {"id": 1, "name": "g", "type": "INT"},
            {"id": 2, "name": "c", "type": {"type": "ARRAY", "element": "INT"}}
        ]),
        &["k"],
        json!({"merge-engine": "partial-update", "fields.g.sequence-group": "c",
               "fields.c.aggregate-function": "collect"}),
    );
    let runs = vec![
        vec![(0, I, json!([1, 2, [1]]))],
        vec![(1, I, json!([1, 1, [2]]))],
    ];
    assert_eq!(merge(&t, runs).unwrap(), ["+I 1 2 [1, 2]"]);
}

#[test]
fn invalid_merge_options_fail_like_java() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "STRING")]),
        &["k"],
        json!({"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"}),
    );
    assert!(matches!(merge_function(&t), Err(Error::Merge { .. })));
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "INT")]),
        &["k"],
        json!({"merge-engine": "aggregation", "fields.v.aggregate-function": "collect"}),
    );
    // FieldCollectAggFactory: "Data type for collect column must be 'Array' ...".
    assert!(matches!(merge_function(&t), Err(Error::Merge { .. })));
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "BYTES")]),
        &["k"],
        json!({"merge-engine": "aggregation", "fields.v.aggregate-function": "hll_sketch"}),
    );
    assert!(merge_function(&t).is_ok());
    // FieldThetaSketchAggFactory: "Data type for theta sketch column must be 'VarBinaryType' ...".
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "STRING")]),
        &["k"],
        json!({"merge-engine": "aggregation", "fields.v.aggregate-function": "theta_sketch"}),
    );
    assert!(matches!(merge_function(&t), Err(Error::Merge { .. })));
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "INT")]),
        &["k"],
        json!({"merge-engine": "partial-update", "fields.v.aggregate-function": "sum"}),
    );
    assert!(matches!(merge_function(&t), Err(Error::Merge { .. })));
}

#[test]
fn single_run_sections_stream_without_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(dir.path(), kv_fields(&[("v", "INT")]), &["k"], json!({}));
    let rows = vec![
        (0, I, json!([1, 1])),
        (1, D, json!([2, 2])),
        (2, UA, json!([3, 3])),
    ];
    assert_eq!(merge(&t, vec![rows]).unwrap(), ["+I 1 1", "+U 3 3"]);
}

#[test]
fn lookup_merge_keeps_one_record_above_level_0_by_the_rule_of_each_line() {
    use super::run::LookupPick;
    // Levels of one key's records in merge order (sequence ascending).
    // C18's shape: the old value at level 5, the lookup compaction's aggregate at level 4.
    assert_eq!(LookupPick::Latest.pick(&[5, 4]), Some(1));
    assert_eq!(LookupPick::LowestLevel.pick(&[5, 4]), Some(1));
    // A newer record deeper down (possible with `sequence.field`): 1.0 keeps the latest, 2.0 the lowest
    // level.
    assert_eq!(LookupPick::Latest.pick(&[3, 5]), Some(1));
    assert_eq!(LookupPick::LowestLevel.pick(&[3, 5]), Some(0));
    // Equal levels: 2.0 keeps the first (its comparison is strict).
    assert_eq!(LookupPick::LowestLevel.pick(&[2, 2, 0]), Some(0));
    assert_eq!(LookupPick::Latest.pick(&[2, 2, 0]), Some(1));
    // Level 0 only: nothing to pick, every record is merged.
    assert_eq!(LookupPick::Latest.pick(&[0, 0]), None);
}

/// Keys only one run holds are emitted straight from that run (the tree's fast path), keys two runs hold
/// still merge, across output batches of 2 rows and a run ending in the middle.
#[test]
fn keys_of_one_run_pass_the_tree_and_shared_keys_still_merge() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "BIGINT")]),
        &["k"],
        json!({"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"}),
    );
    let runs = vec![
        vec![
            (0, I, json!([1, 1])),
            (1, I, json!([2, 1])),
            (2, I, json!([3, 1])),
            (3, D, json!([4, 1])),
            (4, I, json!([5, 1])),
            (5, I, json!([6, 1])),
        ],
        vec![
            (10, I, json!([3, 10])),
            (11, I, json!([7, 100])),
            (12, UA, json!([8, 1000])),
        ],
    ];
    // Key 3 is in both runs: summed. Key 4 is a lone -D: dropped. The rest unchanged, kinds kept.
    assert_eq!(
        merge(&t, runs).unwrap(),
        [
            "+I 1 1",
            "+I 2 1",
            "+I 3 11",
            "+I 5 1",
            "+I 6 1",
            "+I 7 100",
            "+U 8 1000"
        ]
    );
}

/// Long stretches of keys only one run holds go out as ranges of that run's batch: cut at `-U`/`-D`
/// records (dropped), at the end of each batch of the run, at a key the other run holds, at a key repeated
/// inside the run, and at the output batch size; the deduplicated rows are the same whatever the output
/// batch size (whole-row copies and per-row gathers alike).
#[test]
fn stretches_of_sole_keys_go_out_as_ranges_with_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "STRING")]),
        &["k"],
        json!({"merge-engine": "deduplicate"}),
    );
    let row = |seq: i64, kind: i8, k: i64, v: &str| (seq, kind, json!([k, v]));
    // Run 0: keys 1..=40 in two batches of 20 (sequence = key); key 5 and key 33 are deletes, key 17 a -U.
    let kind_of = |k: i64| match k {
        5 | 33 => D,
        17 => UB,
        _ => I,
    };
    let run0: Vec<Vec<_>> = vec![
        (1..=20)
            .map(|k| row(k, kind_of(k), k, &format!("a{k}")))
            .collect(),
        (21..=40)
            .map(|k| row(k, kind_of(k), k, &format!("a{k}")))
            .collect(),
    ];
    // Run 1: keys 3, 8, 26 (a +U), 33 (re-inserted), 45 (twice in this run, which no other run holds: as
    // Java's tree takes one record per run and key, two keys of one record each) and 50, later sequences.
    let run1 = vec![vec![
        row(100, UA, 3, "b3"),
        row(102, UA, 8, "b8"),
        row(103, UA, 26, "b26"),
        row(104, I, 33, "b33"),
        row(105, D, 45, "b45-first"),
        row(106, I, 45, "b45-second"),
        row(107, I, 50, "b50"),
    ]];
    // Expected from the records above: the latest record of each key (of 45: the -D alone, dropped, then
    // the +I alone), `-U`/`-D` results dropped.
    let mut expected = Vec::new();
    for k in 1..=40i64 {
        let line = match k {
            3 => "+U 3 b3".to_string(),
            8 => "+U 8 b8".to_string(),
            26 => "+U 26 b26".to_string(),
            33 => "+I 33 b33".to_string(),
            5 | 17 => continue,
            _ => format!("+I {k} a{k}"),
        };
        expected.push(line);
    }
    expected.push("+I 45 b45-second".to_string());
    expected.push("+I 50 b50".to_string());
    for batch_size in [1, 3, 7, 1000] {
        assert_eq!(
            merge_batches(&t, &[run0.clone(), run1.clone()], batch_size).unwrap(),
            expected,
            "batch size {batch_size}"
        );
    }
}

#[test]
fn long_stretches_of_sole_keys_go_out_as_slices_of_their_batch() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "STRING")]),
        &["k"],
        json!({"merge-engine": "deduplicate"}),
    );
    // Run 0: keys 1..=1000, one batch; run 1 updates keys 300 and 900. Keys 1..=299 and 301..=899 are each
    // held by run 0 alone (299 and 599 records, over `SLICE_MIN_ROWS`).
    let run0: TestRows = (1..=1000)
        .map(|k| (k, I, json!([k, format!("a{k}")])))
        .collect();
    let run1: TestRows = vec![
        (2000, UA, json!([300, "b300"])),
        (2001, UA, json!([900, "b900"])),
    ];
    let input = batch(&t, &run0);
    let expected: Vec<String> = (1..=1000)
        .map(|k| match k {
            300 | 900 => format!("+U {k} b{k}"),
            _ => format!("+I {k} a{k}"),
        })
        .collect();
    for batch_size in [100, 4096] {
        assert_eq!(
            merge_batches(&t, &[vec![run0.clone()], vec![run1.clone()]], batch_size).unwrap(),
            expected,
            "batch size {batch_size}"
        );
    }
    // With room for them, the two stretches are their own batches: slices of the input batch's string views.
    let section: Vec<Box<dyn RunSource>> = vec![
        Box::new(MemoryRun(vec![input.clone()].into())),
        Box::new(MemoryRun(vec![batch(&t, &run1)].into())),
    ];
    let mut reader =
        MergeReader::with_sections(&t, "/t/bucket-0", vec![section], 4096, None).unwrap();
    let mut sizes = Vec::new();
    let mut shared = Vec::new();
    let input_views = input.column(3).as_string_view().views().as_ptr_range();
    while let Some(b) = reader.next_batch().unwrap() {
        sizes.push(b.num_rows());
        shared.push(input_views.contains(&b.column(2).as_string_view().views().as_ptr()));
    }
    assert_eq!(sizes, [299, 1, 599, 101]);
    assert_eq!(shared, [true, false, true, false]);
}
