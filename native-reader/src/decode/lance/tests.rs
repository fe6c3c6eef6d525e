//! The fixture `native-reader/tests/data/lance/types.lance` was written by pylance 0.39.0 (the Lance of Paimon
//! 2.0.0's lance-core) from the values its `generate.py` lists; each expectation below restates them.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int32Type, Int64Type,
    TimestampMicrosecondType,
};
use arrow_array::Array;

use super::*;

const ROWS: usize = 120;

fn fixture() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/lance/types.lance"
    ))
    .unwrap()
}

fn column(file: &LanceFile<'_>, name: &str) -> ArrayRef {
    let (field, first) = file
        .top_level()
        .into_iter()
        .find(|(f, _)| f.name == name)
        .unwrap();
    let mut next = first;
    let array = file.read_field(field, &mut next, ROWS).unwrap();
    assert_eq!(array.len(), ROWS, "{name}");
    array
}

#[test]
fn every_encoding_of_the_2_0_writer_reads_back_the_written_values() {
    let bytes = fixture();
    let file = LanceFile::parse(&bytes).unwrap();
    assert_eq!(file.rows, ROWS);

    let i = column(&file, "i");
    let i = i.as_primitive::<Int32Type>();
    let l = column(&file, "l");
    let b = column(&file, "b");
    let d = column(&file, "d");
    let s = column(&file, "s");
    let k = column(&file, "k");
    let dec = column(&file, "dec");
    let ts = column(&file, "ts");
    let dt = column(&file, "dt");
    let bin = column(&file, "bin");
    let list = column(&file, "list");
    let row = column(&file, "row");
    let vec = column(&file, "vec");
    let fixed = column(&file, "fixed");
    let none = column(&file, "none");
    assert_eq!(none.null_count(), ROWS);
    assert_eq!(dec.data_type(), &ArrowType::Decimal128(10, 2));
    for r in 0..ROWS {
        let n = r as i64;
        assert_eq!(i.is_null(r), r % 7 == 3, "i {r}");
        if r % 7 != 3 {
            assert_eq!(i.value(r), (n * 3 - 50) as i32);
        }
        assert_eq!(l.as_primitive::<Int64Type>().value(r), n * 1_000_000_007);
        assert_eq!(
            (!b.is_null(r)).then(|| b.as_boolean().value(r)),
            (r % 5 != 0).then_some(r % 3 == 0),
            "b {r}"
        );
        assert_eq!(d.as_primitive::<Float64Type>().value(r), n as f64 / 4.0);
        let expected_s = (r % 11 != 0).then(|| "v".repeat(r % 4) + &r.to_string());
        assert_eq!(
            (!s.is_null(r)).then(|| s.as_string::<i32>().value(r).to_owned()),
            expected_s,
            "s {r}"
        );
        let expected_k = (r % 9 != 0).then(|| format!("key-{}", r % 5));
        assert_eq!(
            (!k.is_null(r)).then(|| k.as_string::<i32>().value(r).to_owned()),
            expected_k,
            "k {r}"
        );
        assert_eq!(
            (!dec.is_null(r)).then(|| dec.as_primitive::<Decimal128Type>().value(r)),
            (r != 1).then_some(i128::from(n * 1234 - 5000)),
            "dec {r}"
        );
        assert_eq!(
            ts.as_primitive::<TimestampMicrosecondType>().value(r),
            n * 86_400_000_123
        );
        assert_eq!(dt.as_primitive::<Date32Type>().value(r), (n * 3) as i32);
        assert_eq!(
            (!bin.is_null(r)).then(|| bin.as_binary::<i32>().value(r).to_vec()),
            (r % 6 != 0).then(|| vec![(r % 256) as u8, 0, 255]),
            "bin {r}"
        );
        let list = list.as_list::<i32>();
        assert_eq!(list.is_null(r), r % 10 == 4, "list {r}");
        if r % 10 != 4 {
            let items = list.value(r);
            let items = items.as_primitive::<Int32Type>();
            assert_eq!(
                items.values().to_vec(),
                (0..(r % 4) as i32).collect::<Vec<_>>()
            );
        }
        let row = row.as_struct();
        assert_eq!(row.column(0).as_primitive::<Int32Type>().value(r), r as i32);
        let y = row.column(1);
        assert_eq!(
            (!y.is_null(r)).then(|| y.as_string::<i32>().value(r).to_owned()),
            (r % 2 == 0).then(|| format!("y{r}")),
            "row.y {r}"
        );
        let v = vec.as_fixed_size_list().value(r);
        assert_eq!(
            v.as_primitive::<Float32Type>().values().to_vec(),
            vec![n as f32, n as f32 + 0.5, -(n as f32)]
        );
        assert_eq!(fixed.as_fixed_size_binary().value(r), [r as u8; 4]);
    }
}

#[test]
fn bad_files_and_unread_layouts_are_errors_not_panics() {
    let bytes = fixture();
    // Cut anywhere, the footer is gone: an error.
    for cut in [0, 10, 39, bytes.len() / 2, bytes.len() - 1] {
        assert!(matches!(
            LanceFile::parse(&bytes[..cut]),
            Err(LanceError::Invalid(_))
        ));
    }
    // A 2.1 file (version 2.1 in the footer) is refused by name.
    let mut v21 = bytes.clone();
    let at = v21.len() - 8;
    v21[at..at + 4].copy_from_slice(&[2, 0, 1, 0]);
    match LanceFile::parse(&v21) {
        Err(LanceError::Unsupported(reason)) => assert!(reason.contains("2.1"), "{reason}"),
        other => panic!("{:?}", other.err()),
    }
    // Position tables pointing past the end: errors.
    let mut far = bytes.clone();
    let at = far.len() - 40 + 16;
    far[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(LanceFile::parse(&far).is_err());
    // Every single-byte corruption of the metadata decodes or fails, never panics.
    let file = LanceFile::parse(&bytes).unwrap();
    let metadata_start = file
        .columns
        .iter()
        .flat_map(|c| c.pages.iter().flat_map(|p| p.buffer_offsets.iter()))
        .max()
        .copied()
        .unwrap_or(0) as usize;
    for at in metadata_start..bytes.len() {
        let mut bad = bytes.clone();
        bad[at] ^= 0x5A;
        if let Ok(file) = LanceFile::parse(&bad) {
            for (field, first) in file.top_level() {
                let mut next = first;
                let _ = file.read_field(field, &mut next, file.rows);
            }
        }
    }
}

#[test]
fn logical_types_map_to_arrow_and_unknown_ones_are_refused() {
    assert_eq!(
        arrow_type("timestamp:ms:-").unwrap(),
        ArrowType::Timestamp(TimeUnit::Millisecond, None)
    );
    assert_eq!(
        arrow_type("timestamp:us:UTC").unwrap(),
        ArrowType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
    );
    assert_eq!(
        arrow_type("fixed_size_list:decimal:128:10:2:4").unwrap(),
        ArrowType::FixedSizeList(
            Arc::new(Field::new("item", ArrowType::Decimal128(10, 2), true)),
            4
        )
    );
    for unknown in [
        "map",
        "dict:string:int8:false",
        "timestamp:xs:-",
        "decimal:64:1:0",
    ] {
        assert!(
            matches!(arrow_type(unknown), Err(LanceError::Unsupported(_))),
            "{unknown}"
        );
    }
}
