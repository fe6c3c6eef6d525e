//! No false alarms: identical data however laid out.

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder, StringBuilder, StringDictionaryBuilder};
use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, LargeStringArray, ListArray, MapArray, StringViewArray, StructArray,
};
use arrow_schema::{DataType, Field, Fields};

use super::*;

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
