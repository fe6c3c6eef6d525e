//! One field changed, for every type.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, TimestampMillisecondArray};
use harness::diff::MismatchKind;

use super::*;

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
