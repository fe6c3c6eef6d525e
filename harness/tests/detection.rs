//! Detection power at the diff level (issue 8), with two in-memory readers over the same plan — one with
//! exactly one planted difference — replayed by the real `replay()`: every planted difference gives exit 1
//! and a report naming the split, the row ordinal and the field with both values; identical data however
//! laid out gives exit 0.

mod synthetic;

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder, StringBuilder, StringDictionaryBuilder};
use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, Int64Array, LargeStringArray, ListArray, MapArray, RecordBatch,
    StringViewArray, StructArray, TimestampMillisecondArray,
};
use arrow_schema::{DataType, Field, Fields};
use harness::diff::MismatchKind;
use harness::replay::SplitVerdict;
use synthetic::*;

fn planted(native: RecordBatch) -> harness::replay::ReplayReport {
    replay_mem(one_split(base()), one_split(native), false)
}

// ---------------------------------------------------------------------------------------------------
// One field changed, for every type.
// ---------------------------------------------------------------------------------------------------

#[test]
fn decimal_scale_is_a_type_difference_not_cast_away() {
    // Same numeric values (1.23 = 1.230), scale 3 instead of 2: a cast to the stock type would hide it.
    let scaled: Vec<i128> = DECIMALS.iter().map(|v| v * 10).collect();
    let native = with_column(&base(), "dec", decimals(&scaled, 10, 3));
    let report = planted(native);
    let m = assert_pinpointed(
        &report,
        &key(),
        0,
        "dec",
        "1.23 (Decimal128(10, 2))",
        "1.230 (Decimal128(10, 3))",
    );
    assert_eq!(m.kind, MismatchKind::Type);
    assert_eq!(differing(&report)[0].differing_rows, 5, "every row differs");
}

#[test]
fn decimal_precision_is_a_type_difference() {
    let native = with_column(&base(), "dec", decimals(&DECIMALS, 12, 2));
    let m = assert_pinpointed(
        &planted(native),
        &key(),
        0,
        "dec",
        "1.23 (Decimal128(10, 2))",
        "1.23 (Decimal128(12, 2))",
    );
    assert_eq!(m.kind, MismatchKind::Type);
}

#[test]
fn timestamp_truncated_to_milliseconds_is_caught() {
    let mut v = MICROS;
    v[0] = v[0] / 1000 * 1000; // .123456 -> .123000
    let native = with_column(&base(), "ts", micros(&v));
    let m = assert_pinpointed(
        &planted(native),
        &key(),
        0,
        "ts",
        "2023-11-14T22:13:20.123456",
        "2023-11-14T22:13:20.123",
    );
    assert_eq!(m.kind, MismatchKind::Value);
}

#[test]
fn timestamp_returned_in_milliseconds_is_a_type_difference() {
    // Row 1 has no sub-millisecond part: a cast from ms to µs would make it equal; the unit is reported.
    let ms: Vec<i64> = MICROS.iter().map(|v| v / 1000).collect();
    let native = with_column(
        &base(),
        "ts",
        Arc::new(TimestampMillisecondArray::from(ms)) as ArrayRef,
    );
    let m = assert_pinpointed(
        &planted(native),
        &key(),
        0,
        "ts",
        "2023-11-14T22:13:20.123456 (Timestamp(µs))",
        "2023-11-14T22:13:20.123 (Timestamp(ms))",
    );
    assert_eq!(m.kind, MismatchKind::Type);
}

#[test]
fn trailing_space_is_caught() {
    let native = with_column(
        &base(),
        "s",
        strings(&[Some("a"), Some("bb "), Some(""), None, Some("e")]),
    );
    assert_pinpointed(&planted(native), &key(), 1, "s", "\"bb\"", "\"bb \"");
}

#[test]
fn null_against_empty_string_is_caught() {
    let native = with_column(
        &base(),
        "s",
        strings(&[Some("a"), Some("bb"), None, None, Some("e")]),
    );
    assert_pinpointed(&planted(native), &key(), 2, "s", "\"\"", "NULL");
}

#[test]
fn null_against_zero_is_caught() {
    let native = with_column(
        &base(),
        "n",
        longs(&[Some(10), None, Some(30), None, Some(50)]),
    );
    assert_pinpointed(&planted(native), &key(), 1, "n", "0", "NULL");
}

#[test]
fn zero_against_negative_zero_is_caught() {
    let native = with_column(
        &base(),
        "f",
        doubles(&[
            1.5f64.to_bits(),
            (-0.0f64).to_bits(),
            NAN,
            (-2.5f64).to_bits(),
            3.0f64.to_bits(),
        ]),
    );
    assert_pinpointed(&planted(native), &key(), 1, "f", "0.0", "-0.0");
}

#[test]
fn one_nan_payload_against_another_is_caught() {
    let native = with_column(
        &base(),
        "f",
        doubles(&[
            1.5f64.to_bits(),
            0.0f64.to_bits(),
            NAN_OTHER,
            (-2.5f64).to_bits(),
            3.0f64.to_bits(),
        ]),
    );
    assert_pinpointed(
        &planted(native),
        &key(),
        2,
        "f",
        "NaN (0x7ff8000000000000)",
        "NaN (0x7ff8000000000001)",
    );
}

#[test]
fn map_entry_order_is_caught() {
    let native = with_column(
        &base(),
        "m",
        map(&[
            Some(vec![("y", 2), ("x", 1)]),
            Some(vec![]),
            Some(vec![("k", 7)]),
            None,
            Some(vec![("a", 1), ("b", 2), ("c", 3)]),
        ]),
    );
    let report = planted(native);
    let m = assert_pinpointed(&report, &key(), 0, "m[0].key", "\"x\"", "\"y\"");
    // The context shows both whole maps.
    assert!(m.context.contains(r#"{"x": 1, "y": 2}"#), "{}", m.context);
    assert!(m.context.contains(r#"{"y": 2, "x": 1}"#), "{}", m.context);
}

#[test]
fn map_value_is_caught() {
    let native = with_column(
        &base(),
        "m",
        map(&[
            Some(vec![("x", 1), ("y", 2)]),
            Some(vec![]),
            Some(vec![("k", 8)]),
            None,
            Some(vec![("a", 1), ("b", 2), ("c", 3)]),
        ]),
    );
    assert_pinpointed(&planted(native), &key(), 2, "m[0].value", "7", "8");
}

#[test]
fn empty_map_against_null_map_is_caught() {
    let native = with_column(
        &base(),
        "m",
        map(&[
            Some(vec![("x", 1), ("y", 2)]),
            None,
            Some(vec![("k", 7)]),
            None,
            Some(vec![("a", 1), ("b", 2), ("c", 3)]),
        ]),
    );
    assert_pinpointed(&planted(native), &key(), 1, "m", "{}", "NULL");
}

#[test]
fn nested_struct_field_is_caught() {
    let native = with_column(
        &base(),
        "st",
        structs(&[
            Some((Some(1), Some("p"))),
            Some((Some(2), Some("r"))),
            None,
            Some((Some(4), None)),
            Some((Some(5), Some("t"))),
        ]),
    );
    assert_pinpointed(&planted(native), &key(), 1, "st.b", "\"q\"", "\"r\"");
}

#[test]
fn null_struct_against_struct_of_nulls_is_caught() {
    let native = with_column(
        &base(),
        "st",
        structs(&[
            Some((Some(1), Some("p"))),
            Some((Some(2), Some("q"))),
            Some((None, None)),
            Some((Some(4), None)),
            Some((Some(5), Some("t"))),
        ]),
    );
    assert_pinpointed(
        &planted(native),
        &key(),
        2,
        "st",
        "NULL",
        "{a: NULL, b: NULL}",
    );
}

#[test]
fn list_element_and_length_are_caught() {
    let native = with_column(
        &base(),
        "l",
        lists(&[
            Some(vec![1, 2]),
            Some(vec![3]),
            Some(vec![]),
            None,
            Some(vec![5, 6, 8]),
        ]),
    );
    assert_pinpointed(&planted(native), &key(), 4, "l[2]", "7", "8");
    let native = with_column(
        &base(),
        "l",
        lists(&[
            Some(vec![1, 2]),
            Some(vec![3, 3]),
            Some(vec![]),
            None,
            Some(vec![5, 6, 7]),
        ]),
    );
    assert_pinpointed(&planted(native), &key(), 1, "l", "[3]", "[3, 3]");
}

#[test]
fn integer_width_is_a_type_difference() {
    let native = with_column(
        &base(),
        "id",
        Arc::new(Int64Array::from(vec![1i64, 2, 3, 4, 5])) as ArrayRef,
    );
    let m = assert_pinpointed(&planted(native), &key(), 0, "id", "1 (Int32)", "1 (Int64)");
    assert_eq!(m.kind, MismatchKind::Type);
}

#[test]
fn renamed_column_is_caught_with_both_names() {
    let native = rename(&base(), "n", "N");
    let m = assert_pinpointed(
        &planted(native),
        &key(),
        0,
        "n",
        "10 (column n: Int64)",
        "10 (column N: Int64)",
    );
    assert_eq!(m.kind, MismatchKind::Type);
}

// ---------------------------------------------------------------------------------------------------
// RowKind changed.
// ---------------------------------------------------------------------------------------------------

fn with_kinds(k: [i8; 5]) -> RecordBatch {
    with_column(&base(), "_row_kind", kinds(&k))
}

#[test]
fn row_kind_insert_to_update_after_is_caught() {
    let m = assert_pinpointed(
        &planted(with_kinds([0, 2, 1, 2, 3])),
        &key(),
        1,
        "_row_kind",
        "+I",
        "+U",
    );
    assert_eq!(m.kind, MismatchKind::Value);
}

#[test]
fn row_kind_update_before_to_delete_is_caught() {
    assert_pinpointed(
        &planted(with_kinds([0, 0, 3, 2, 3])),
        &key(),
        2,
        "_row_kind",
        "-U",
        "-D",
    );
}

#[test]
fn row_kinds_update_before_and_after_swapped_are_caught() {
    let report = planted(with_kinds([0, 0, 2, 1, 3]));
    assert_pinpointed(&report, &key(), 2, "_row_kind", "-U", "+U");
    assert_eq!(differing(&report)[0].differing_rows, 2);
}

// ---------------------------------------------------------------------------------------------------
// Rows missing, extra, swapped, moved.
// ---------------------------------------------------------------------------------------------------

#[test]
fn missing_row_is_caught_as_one_row_only_in_stock() {
    let b = base();
    let report = planted(rows(&b, &[0, 1, 3, 4]));
    let expected = harness::diff::render_row(&b, 2);
    let m = assert_pinpointed(&report, &key(), 2, "<row>", &expected, "<none>");
    assert_eq!(m.kind, MismatchKind::Missing);
    assert_eq!(
        differing(&report)[0].differing_rows,
        1,
        "realigned after it"
    );
    assert!(expected.starts_with("-U (3, 7.89"), "{expected}");
}

#[test]
fn missing_last_row_is_caught() {
    let b = base();
    let report = planted(rows(&b, &[0, 1, 2, 3]));
    let m = assert_pinpointed(
        &report,
        &key(),
        4,
        "<row>",
        &harness::diff::render_row(&b, 4),
        "<none>",
    );
    assert_eq!(m.kind, MismatchKind::Missing);
}

#[test]
fn extra_row_is_caught_as_one_row_only_in_native() {
    let b = base();
    // A copy of row 0 with another id, inserted at ordinal 1.
    let extra = with_column(
        &rows(&b, &[0]),
        "id",
        Arc::new(arrow_array::Int32Array::from(vec![99])) as ArrayRef,
    );
    let native =
        arrow::compute::concat_batches(&b.schema(), &[b.slice(0, 1), extra.clone(), b.slice(1, 4)])
            .unwrap();
    let report = planted(native);
    let m = assert_pinpointed(
        &report,
        &key(),
        1,
        "<row>",
        "<none>",
        &harness::diff::render_row(&extra, 0),
    );
    assert_eq!(m.kind, MismatchKind::Extra);
    assert_eq!(differing(&report)[0].differing_rows, 1);
}

#[test]
fn extra_last_row_is_caught() {
    let b = base();
    let report = planted(rows(&b, &[0, 1, 2, 3, 4, 4]));
    let m = assert_pinpointed(
        &report,
        &key(),
        5,
        "<row>",
        "<none>",
        &harness::diff::render_row(&b, 4),
    );
    assert_eq!(m.kind, MismatchKind::Extra);
}

#[test]
fn two_swapped_rows_are_caught() {
    let report = planted(rows(&base(), &[0, 2, 1, 3, 4]));
    // Rows 1 and 2 differ first in the RowKind (+I vs -U).
    let m = assert_pinpointed(&report, &key(), 1, "_row_kind", "+I", "-U");
    assert_eq!(m.kind, MismatchKind::Swapped);
    assert_eq!(differing(&report)[0].differing_rows, 2);
    assert!(m.context.contains("rows 1 and 2"), "{}", m.context);
}

#[test]
fn rows_moved_to_another_split_are_caught_in_both() {
    let b = base();
    let a = split(3, "p1", 2, &["data-a.parquet"]);
    let c = split(3, "p1", 3, &["data-c.parquet"]);
    let stock = vec![(a.clone(), vec![b.clone()]), (c.clone(), vec![b.clone()])];
    // The native reader returns the last row of split a at the end of split c.
    let native = vec![
        (a.clone(), vec![b.slice(0, 4)]),
        (c.clone(), vec![b.clone(), b.slice(4, 1)]),
    ];
    let report = replay_mem(stock, native, false);
    let text = text(&report);
    assert_eq!(report.exit_code(), 1);
    let d = differing(&report);
    assert_eq!(d.len(), 2, "{text}");
    let moved = harness::diff::render_row(&b, 4);
    let ma = d[0].first_mismatch.as_ref().unwrap();
    assert_eq!(d[0].key, a.key());
    assert_eq!((ma.row, ma.field.as_str()), (4, "<row>"));
    assert_eq!(
        (ma.stock.as_str(), ma.native.as_str()),
        (moved.as_str(), "<none>")
    );
    let mc = d[1].first_mismatch.as_ref().unwrap();
    assert_eq!(d[1].key, c.key());
    assert_eq!((mc.row, mc.field.as_str()), (5, "<row>"));
    assert_eq!(
        (mc.stock.as_str(), mc.native.as_str()),
        ("<none>", moved.as_str())
    );
    assert!(text.contains(&format!(
        "{}, row 4, field <row>: stock {moved} | native <none>",
        a.key()
    )));
    assert!(text.contains(&format!(
        "{}, row 5, field <row>: stock <none> | native {moved}",
        c.key()
    )));
}

#[test]
fn missing_row_at_a_batch_boundary_is_realigned() {
    let b = base();
    // The native batches end right before and start right after the missing row 2.
    let native = vec![b.slice(0, 2), b.slice(3, 2)];
    let report = replay_mem(
        one_split(b.clone()),
        vec![(split(3, "p1", 2, &["data-a.parquet"]), native)],
        false,
    );
    let m = assert_pinpointed(
        &report,
        &key(),
        2,
        "<row>",
        &harness::diff::render_row(&b, 2),
        "<none>",
    );
    assert_eq!(m.kind, MismatchKind::Missing);
    assert_eq!(differing(&report)[0].differing_rows, 1);
}

// ---------------------------------------------------------------------------------------------------
// Splits missing, extra, with a file more or less, another partition or bucket.
// ---------------------------------------------------------------------------------------------------

fn two_splits() -> Vec<(native_reader::Split, Vec<RecordBatch>)> {
    vec![
        (split(3, "p1", 2, &["data-a.parquet"]), vec![base()]),
        (split(5, "p2", 0, &["data-b.parquet"]), vec![base()]),
    ]
}

fn assert_planning(
    report: &harness::replay::ReplayReport,
    key: &native_reader::SplitKey,
    verdict: SplitVerdict,
    detail: Option<&str>,
) {
    let text = text(report);
    assert_eq!(report.exit_code(), 1, "{text}");
    let d = differing(report);
    assert_eq!(d.len(), 1, "{text}");
    assert_eq!(&d[0].key, key, "{text}");
    assert_eq!(d[0].verdict, verdict, "{text}");
    assert_eq!(d[0].detail.as_deref(), detail, "{text}");
    let first = report.first_difference.as_ref().unwrap();
    assert_eq!((first.kind, &first.split), ("planning", key));
    assert!(text.contains(&format!("{key}")), "{text}");
    if let Some(detail) = detail {
        assert!(text.contains(detail), "{text}");
    }
}

#[test]
fn missing_split_is_caught() {
    let mut native = two_splits();
    let gone = native.remove(1);
    let report = replay_mem(two_splits(), native, false);
    assert_planning(&report, &gone.0.key(), SplitVerdict::OnlyInStock, None);
    let d = differing(&report);
    assert_eq!(d[0].stock_rows.map(|r| r.total()), Some(5));
    assert!(text(&report).contains("only in stock"));
}

#[test]
fn extra_split_is_caught() {
    let mut native = two_splits();
    let extra = split(7, "p3", 1, &["data-x.parquet"]);
    native.push((extra.clone(), vec![base()]));
    let report = replay_mem(two_splits(), native, false);
    assert_planning(&report, &extra.key(), SplitVerdict::OnlyInNative, None);
    assert_eq!(
        differing(&report)[0].native_rows.map(|r| r.total()),
        Some(5)
    );
}

#[test]
fn split_with_one_file_less_is_caught_naming_the_file() {
    let mut stock = two_splits();
    stock[0].0 = split(3, "p1", 2, &["data-a.parquet", "data-a2.parquet"]);
    let report = replay_mem(stock, two_splits(), false);
    assert_planning(
        &report,
        &two_splits()[0].0.key(),
        SplitVerdict::DiffersPlanning,
        Some(
            "data files differ: data-a2.parquet (level 0, 5 rows) only in stock; \
             stock [data-a.parquet (level 0, 5 rows), data-a2.parquet (level 0, 5 rows)] \
             vs native [data-a.parquet (level 0, 5 rows)]",
        ),
    );
}

#[test]
fn split_with_one_file_more_is_caught_naming_the_file() {
    let mut native = two_splits();
    native[1].0 = split(5, "p2", 0, &["data-b.parquet", "data-z.parquet"]);
    let report = replay_mem(two_splits(), native, false);
    assert_planning(
        &report,
        &two_splits()[1].0.key(),
        SplitVerdict::DiffersPlanning,
        Some(
            "data files differ: data-z.parquet (level 0, 5 rows) only in native; \
             stock [data-b.parquet (level 0, 5 rows)] \
             vs native [data-b.parquet (level 0, 5 rows), data-z.parquet (level 0, 5 rows)]",
        ),
    );
}

#[test]
fn different_partition_value_is_caught_with_both_values() {
    let mut native = two_splits();
    native[0].0.partition = vec![Some("p9".into())];
    let moved = native[0].0.key();
    let report = replay_mem(two_splits(), native, false);
    assert_planning(
        &report,
        &two_splits()[0].0.key(),
        SplitVerdict::DiffersPlanning,
        Some(&format!(
            "partition differs: stock [p1] vs native [p9] (the native reader planned the same files as {moved})"
        )),
    );
}

#[test]
fn different_bucket_is_caught_with_both_values() {
    let mut native = two_splits();
    native[1].0.bucket = 3;
    let moved = native[1].0.key();
    let report = replay_mem(two_splits(), native, false);
    assert_planning(
        &report,
        &two_splits()[1].0.key(),
        SplitVerdict::DiffersPlanning,
        Some(&format!(
            "bucket differs: stock 0 vs native 3 (the native reader planned the same files as {moved})"
        )),
    );
}

// ---------------------------------------------------------------------------------------------------
// No false alarms: identical data however laid out.
// ---------------------------------------------------------------------------------------------------

fn assert_identical(report: &harness::replay::ReplayReport) {
    let text = text(report);
    assert_eq!(report.verdict, "identical", "{text}");
    assert_eq!(report.exit_code(), 0, "{text}");
    assert!(differing(report).is_empty(), "{text}");
}

#[test]
fn identical_rows_compare_equal() {
    assert_identical(&planted(base()));
}

#[test]
fn batch_boundaries_do_not_matter() {
    let b = base();
    for (stock, native) in [
        (vec![5], vec![1, 1, 1, 1, 1]),
        (vec![2, 3], vec![3, 2]),
        (vec![1, 4], vec![0, 4, 0, 1, 0]),
    ] {
        let report = replay_mem(
            vec![(split(3, "p1", 2, &["data-a.parquet"]), cut(&b, &stock))],
            vec![(split(3, "p1", 2, &["data-a.parquet"]), cut(&b, &native))],
            false,
        );
        assert_identical(&report);
    }
}

#[test]
fn dictionary_against_plain_strings_is_equal() {
    let mut d = StringDictionaryBuilder::<Int32Type>::new();
    for v in [Some("a"), Some("bb"), Some(""), None, Some("e")] {
        match v {
            Some(v) => {
                d.append_value(v);
            }
            None => d.append_null(),
        }
    }
    let native = with_column(&base(), "s", Arc::new(d.finish()) as ArrayRef);
    assert!(matches!(
        native.schema().field_with_name("s").unwrap().data_type(),
        DataType::Dictionary(_, _)
    ));
    assert_identical(&planted(native));
}

#[test]
fn string_views_and_large_strings_against_strings_are_equal() {
    let v = [Some("a"), Some("bb"), Some(""), None, Some("e")];
    let view = with_column(
        &base(),
        "s",
        Arc::new(StringViewArray::from(v.to_vec())) as ArrayRef,
    );
    assert_identical(&planted(view));
    let large = with_column(
        &base(),
        "s",
        Arc::new(LargeStringArray::from(v.to_vec())) as ArrayRef,
    );
    assert_identical(&planted(large));
}

#[test]
fn nan_against_the_same_nan_is_equal_also_nested() {
    // Base column f holds the canonical NaN on both sides; here also another payload, negative NaN, and
    // NaN inside a struct and a list, the same on both sides.
    let payloads = [
        NAN,
        NAN_OTHER,
        0xfff8_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        NAN,
    ];
    let floats = doubles(&payloads);
    let st: ArrayRef = Arc::new(
        StructArray::try_new(
            Fields::from(vec![Field::new("x", DataType::Float64, true)]),
            vec![floats.clone()],
            None,
        )
        .unwrap(),
    );
    let offsets = arrow::buffer::OffsetBuffer::from_lengths([1, 1, 1, 1, 1]);
    let list: ArrayRef = Arc::new(
        ListArray::try_new(
            Arc::new(Field::new("element", DataType::Float64, true)),
            offsets,
            floats.clone(),
            None,
        )
        .unwrap(),
    );
    let b = with_column(&base(), "f", floats);
    let b = with_column(&b, "st", st);
    let b = with_column(&b, "l", list);
    assert_identical(&replay_mem(one_split(b.clone()), one_split(b), false));
}

#[test]
fn nested_field_names_nullability_and_representations_are_equal() {
    // Stock: list<int> with element field "item", map entries "entries". Native: list field "element",
    // non-nullable elements, map entries named "key_value", keys as string views inside a large list.
    let stock = base();
    let l = stock
        .column_by_name("l")
        .unwrap()
        .as_any()
        .downcast_ref::<ListArray>()
        .unwrap()
        .clone();
    let (_, offsets, values, nulls) = l.into_parts();
    let renamed: ArrayRef = Arc::new(
        ListArray::try_new(
            Arc::new(Field::new("element", DataType::Int32, false)),
            offsets,
            values,
            nulls,
        )
        .unwrap(),
    );
    let large: ArrayRef = arrow_cast::cast(
        &renamed,
        &DataType::LargeList(Arc::new(Field::new("element", DataType::Int32, false))),
    )
    .unwrap();
    let m = stock
        .column_by_name("m")
        .unwrap()
        .as_any()
        .downcast_ref::<MapArray>()
        .unwrap()
        .clone();
    let (_, offsets, entries, nulls, _) = m.into_parts();
    let keys: ArrayRef = arrow_cast::cast(entries.column(0), &DataType::Utf8View).unwrap();
    let kv = Fields::from(vec![
        Field::new("k", DataType::Utf8View, false),
        Field::new("v", DataType::Int32, true),
    ]);
    let entries =
        StructArray::try_new(kv.clone(), vec![keys, entries.column(1).clone()], None).unwrap();
    let map: ArrayRef = Arc::new(
        MapArray::try_new(
            Arc::new(Field::new("key_value", DataType::Struct(kv), false)),
            offsets,
            entries,
            nulls,
            true,
        )
        .unwrap(),
    );
    let native = with_column(&with_column(&stock, "l", large), "m", map);
    assert_identical(&planted(native.clone()));
    // And the same in a struct field nested one level deeper, as a dictionary.
    let mut d = StringDictionaryBuilder::<Int32Type>::new();
    d.append_value("p");
    d.append_value("q");
    d.append_null();
    d.append_null();
    d.append_value("t");
    let st = stock
        .column_by_name("st")
        .unwrap()
        .as_any()
        .downcast_ref::<StructArray>()
        .unwrap()
        .clone();
    let (fields, mut columns, nulls) = st.into_parts();
    columns[1] = Arc::new(d.finish());
    let fields = Fields::from(vec![
        fields[0].as_ref().clone(),
        Field::new("b", columns[1].data_type().clone(), true),
    ]);
    let st: ArrayRef = Arc::new(StructArray::try_new(fields, columns, nulls).unwrap());
    assert_identical(&planted(with_column(&native, "st", st)));
}

#[test]
fn list_builder_lists_against_from_iter_lists_are_equal() {
    let mut lb = ListBuilder::new(Int32Builder::new());
    for row in [
        Some(vec![1, 2]),
        Some(vec![3]),
        Some(vec![]),
        None,
        Some(vec![5, 6, 7]),
    ] {
        match row {
            Some(v) => {
                for x in v {
                    lb.values().append_value(x);
                }
                lb.append(true);
            }
            None => lb.append(false),
        }
    }
    let native = with_column(&base(), "l", Arc::new(lb.finish()) as ArrayRef);
    assert_identical(&planted(native));
    // A plain string builder against StringArray::from: same values.
    let mut sb = StringBuilder::new();
    for v in [Some("a"), Some("bb"), Some(""), None, Some("e")] {
        sb.append_option(v);
    }
    assert_identical(&planted(with_column(
        &base(),
        "s",
        Arc::new(sb.finish()) as ArrayRef,
    )));
}

// ---------------------------------------------------------------------------------------------------
// `--unordered`: a split as a multiset.
// ---------------------------------------------------------------------------------------------------

#[test]
fn unordered_accepts_reordered_rows_that_ordered_reports() {
    let b = base();
    let shuffled = rows(&b, &[3, 0, 4, 2, 1]);
    let stock = vec![(split(3, "p1", 2, &["data-a.parquet"]), cut(&b, &[2, 3]))];
    let native = vec![(
        split(3, "p1", 2, &["data-a.parquet"]),
        cut(&shuffled, &[1, 1, 3]),
    )];
    assert_identical(&replay_mem(stock.clone(), native.clone(), true));
    assert_eq!(replay_mem(stock, native, false).exit_code(), 1);
}

#[test]
fn unordered_reports_the_rows_only_one_side_has() {
    let b = base();
    // Native: rows reordered, row 1 missing, row 3 twice.
    let native = rows(&b, &[4, 3, 0, 2, 3]);
    let report = replay_mem(one_split(b.clone()), one_split(native), true);
    let row1 = harness::diff::render_row(&b, 1);
    let m = assert_pinpointed(&report, &key(), 1, "<row>", &row1, "<none>");
    assert_eq!(m.kind, MismatchKind::Missing);
    let d = differing(&report);
    assert_eq!(d[0].differing_rows, 2);
    let row3 = harness::diff::render_row(&b, 3);
    assert!(
        m.context
            .contains("1 rows only in stock, 1 rows only in native"),
        "{}",
        m.context
    );
    assert!(
        m.context.contains(&format!("- stock row 1: {row1}")),
        "{}",
        m.context
    );
    // The second copy of row 3 is native row 4.
    assert!(
        m.context.contains(&format!("+ native row 4: {row3}")),
        "{}",
        m.context
    );
}

#[test]
fn unordered_reports_an_extra_row() {
    let b = base();
    let native = rows(&b, &[1, 0, 2, 3, 4, 2]);
    let report = replay_mem(one_split(b.clone()), one_split(native), true);
    // The second copy of row 2 is native row 5.
    let m = assert_pinpointed(
        &report,
        &key(),
        5,
        "<row>",
        "<none>",
        &harness::diff::render_row(&b, 2),
    );
    assert_eq!(m.kind, MismatchKind::Extra);
}

#[test]
fn unordered_catches_every_value_difference_too() {
    // A NaN payload, a trailing space, map entry order: the multiset rows differ.
    let cases: Vec<(&str, ArrayRef)> = vec![
        (
            "f",
            doubles(&[
                1.5f64.to_bits(),
                0.0f64.to_bits(),
                NAN_OTHER,
                (-2.5f64).to_bits(),
                3.0f64.to_bits(),
            ]),
        ),
        (
            "s",
            strings(&[Some("a"), Some("bb "), Some(""), None, Some("e")]),
        ),
        (
            "m",
            map(&[
                Some(vec![("y", 2), ("x", 1)]),
                Some(vec![]),
                Some(vec![("k", 7)]),
                None,
                Some(vec![("a", 1), ("b", 2), ("c", 3)]),
            ]),
        ),
    ];
    for (column, array) in cases {
        let b = base();
        let native = with_column(&b, column, array);
        let report = replay_mem(one_split(b.clone()), one_split(native.clone()), true);
        let d = differing(&report);
        assert_eq!(report.exit_code(), 1, "{column}");
        assert_eq!(d.len(), 1, "{column}");
        assert_eq!(d[0].differing_rows, 2, "{column}: one row on each side");
        let m = d[0].first_mismatch.as_ref().unwrap();
        assert_eq!(m.field, "<row>");
        let changed = (0..5)
            .find(|r| harness::diff::render_row(&b, *r) != harness::diff::render_row(&native, *r))
            .unwrap();
        assert_eq!(m.row, changed as u64, "{column}");
        assert_eq!(m.stock, harness::diff::render_row(&b, changed), "{column}");
        assert!(
            m.context.contains(&format!(
                "+ native row {changed}: {}",
                harness::diff::render_row(&native, changed)
            )),
            "{column}: {}",
            m.context
        );
    }
}

#[test]
fn unordered_reports_a_type_difference_with_both_types() {
    let scaled: Vec<i128> = DECIMALS.iter().map(|v| v * 10).collect();
    let native = with_column(&base(), "dec", decimals(&scaled, 10, 3));
    let report = replay_mem(one_split(base()), one_split(native), true);
    let m = assert_pinpointed(
        &report,
        &key(),
        0,
        "dec",
        "1.23 (column dec: Decimal128(10, 2))",
        "1.230 (column dec: Decimal128(10, 3))",
    );
    assert_eq!(m.kind, MismatchKind::Type);
}

#[test]
fn unordered_accepts_representation_differences() {
    let v = [Some("a"), Some("bb"), Some(""), None, Some("e")];
    let native = with_column(
        &rows(&base(), &[4, 3, 2, 1, 0]),
        "s",
        Arc::new(StringViewArray::from(
            v.iter().rev().cloned().collect::<Vec<_>>(),
        )) as ArrayRef,
    );
    assert_identical(&replay_mem(one_split(base()), one_split(native), true));
}

#[test]
fn value_difference_before_a_type_difference_is_named_as_a_value() {
    // Column `id` differs at row 0, column `dec` (after it) has another type on every row.
    let scaled: Vec<i128> = DECIMALS.iter().map(|v| v * 10).collect();
    let native = with_column(&base(), "dec", decimals(&scaled, 10, 3));
    let native = with_column(
        &native,
        "id",
        Arc::new(arrow_array::Int32Array::from(vec![9, 2, 3, 4, 5])) as ArrayRef,
    );
    let report = planted(native);
    let m = assert_pinpointed(&report, &key(), 0, "id", "1", "9");
    assert_eq!(m.kind, MismatchKind::Value);
    assert_eq!(differing(&report)[0].differing_rows, 5);
}
