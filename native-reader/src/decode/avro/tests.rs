//! Unit tests of the Avro decoder.

use std::sync::Arc;

use arrow_array::{ArrayRef, BinaryArray};

use crate::schema::{DataType, TypeKind};

use super::column::decimal;
use super::cursor::Cursor;
use super::map_order::java_map_order;

#[test]
fn java_hash_map_order_for_small_int_keys() {
    // Integer keys hash to themselves: buckets 0..15 in a 16-slot table, so a HashMap iterates
    // small non-negative ints in ascending order whatever the insertion order.
    let keys: ArrayRef = Arc::new(arrow_array::Int32Array::from(vec![5, 1, 3, 17]));
    let t = DataType {
        kind: TypeKind::Int,
        nullable: false,
    };
    // 17 lands in bucket 1 after 1 (insertion order within the bucket).
    assert_eq!(
        java_map_order(&keys, &t, &[0, 4]).unwrap(),
        vec![1, 3, 2, 0]
    );
    let bytes = DataType {
        kind: TypeKind::VarBinary(10),
        nullable: false,
    };
    let b: ArrayRef = Arc::new(BinaryArray::from_vec(vec![b"x"]));
    assert!(java_map_order(&b, &bytes, &[0, 1]).is_none());
}

#[test]
fn decimals_rescale_half_up_and_overflow_to_none() {
    assert_eq!(decimal(&[0x04, 0xD2], 2, 10, 2), Some(1234));
    assert_eq!(decimal(&[0xFB, 0x2E], 2, 10, 2), Some(-1234));
    assert_eq!(decimal(&[0x04, 0xD2], 2, 10, 1), Some(123)); // 12.34 -> 12.3
    assert_eq!(decimal(&[0x04, 0xD7], 2, 10, 1), Some(124)); // 12.39 -> 12.4
    assert_eq!(decimal(&[0xFB, 0x29], 2, 10, 1), Some(-124)); // -12.39 -> -12.4
    assert_eq!(decimal(&[0x04, 0xD2], 2, 3, 2), None); // 4 digits > precision 3
    assert_eq!(decimal(&[], 0, 1, 0), Some(0));
}

#[test]
fn cursor_decodes_zigzag_and_rejects_truncation() {
    let bytes = [0x00, 0x01, 0x02, 0x7F, 0x80, 0x01];
    let mut c = Cursor {
        bytes: &bytes,
        pos: 0,
    };
    assert_eq!(c.long().unwrap(), 0);
    assert_eq!(c.long().unwrap(), -1);
    assert_eq!(c.long().unwrap(), 1);
    assert_eq!(c.long().unwrap(), -64);
    assert_eq!(c.long().unwrap(), 64);
    assert!(c.long().is_err());
}

/// VECTOR<INT NOT NULL, 2> in an Avro data file (`AvroSchemaConverter`: an array), decoded as FixedSizeList(2).
#[test]
fn vectors_in_avro_files_are_fixed_size_lists() {
    use apache_avro::types::Value;
    use arrow_array::cast::AsArray;
    use arrow_array::Array;
    let schema = apache_avro::Schema::parse_str(
        r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[
            {"name":"e","type":["null",{"type":"array","items":"int"}],"default":null}]}"#,
    )
    .unwrap();
    let mut w = apache_avro::Writer::new(&schema, Vec::new());
    let row = |v: Option<Vec<i32>>| {
        Value::Record(vec![(
            "e".into(),
            match v {
                Some(v) => Value::Union(
                    1,
                    Box::new(Value::Array(v.into_iter().map(Value::Int).collect())),
                ),
                None => Value::Union(0, Box::new(Value::Null)),
            },
        )])
    };
    w.append(row(Some(vec![1, 2]))).unwrap();
    w.append(row(None)).unwrap();
    w.append(row(Some(vec![3, 4]))).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data-v.avro");
    std::fs::write(&path, w.into_inner().unwrap()).unwrap();
    let column = crate::decode::FileColumn {
        name: "e".into(),
        id: 4,
        views: false,
        variant_shredding: true,
        map_shredding: true,
        data_type: crate::schema::parse_type(
            &serde_json::json!({"type": "VECTOR", "element": "INT NOT NULL", "length": 2}),
        )
        .unwrap(),
    };
    let mut batches = super::open(&path, std::slice::from_ref(&column), 16).unwrap();
    let (rows, arrays) = batches.next().unwrap().unwrap();
    assert_eq!(rows, 3);
    assert_eq!(
        arrays[0].data_type(),
        &crate::types::field_arrow_type(&column.data_type, 4, false)
    );
    let e = arrays[0].as_fixed_size_list();
    assert!(e.is_valid(0) && e.is_null(1) && e.is_valid(2));
    let ints = e.values().as_primitive::<arrow_array::types::Int32Type>();
    assert_eq!(
        (ints.value(0), ints.value(1), ints.value(4), ints.value(5)),
        (1, 2, 3, 4)
    );
}
