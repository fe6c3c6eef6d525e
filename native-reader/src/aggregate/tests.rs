/// `Decimal.hashCode()` and `Timestamp.hashCode()` as the released Paimon 1.0.0 jar printed them
/// (`Decimal.fromBigDecimal(new BigDecimal(v), p, s).hashCode()`, `Timestamp.fromEpochMillis(ms, nanos)`).
#[test]
fn decimal_and_timestamp_hashes_match_java() {
    assert_eq!(decimal_hash(1234, 2), 38256);
    assert_eq!(decimal_hash(-1234, 2), -38252);
    assert_eq!(decimal_hash(0, 0), 0);
    assert_eq!(
        decimal_hash(99_999_999_999_999_999_999_123_456, 6),
        -11_083_962
    );
    assert_eq!(
        decimal_hash(-99_999_999_999_999_999_999_123_456, 6),
        11_083_974
    );
    assert_eq!(decimal_hash(123_456_789_012_345_678, 0), -1_905_628_419);
    assert_eq!(decimal_hash(i128::from(i64::MIN), 0), i32::MIN);
    assert_eq!(decimal_hash(15, 1), 466);
    assert_eq!(timestamp_hash(0, 9), 0);
    assert_eq!(timestamp_hash(1_700_000_000_123_456_789, 9), 751_750_245);
    assert_eq!(timestamp_hash(-1, 9), 999_999);
    assert_eq!(
        timestamp_hash(-86_400_001 * 1_000_000 + 5, 9),
        -1_616_567_291
    );
    // The same instants in coarser units hash alike when they have no finer digits.
    assert_eq!(
        timestamp_hash(1_700_000_000_123, 3),
        timestamp_hash(1_700_000_000_123_000_000, 9)
    );
    assert_eq!(
        timestamp_hash(1_700_000_000_123_456, 6),
        timestamp_hash(1_700_000_000_123_456_000, 9)
    );
    assert_eq!(timestamp_hash(-1, 6), timestamp_hash(-1000, 9));
}

use super::bitmap::rbm32_or;
use super::collect::{collect_agg, collect_retract};
use super::java_hash::{binary_row_key, decimal_hash, murmur, timestamp_hash};
use super::merge_map::merge_map_retract;
use super::AggError;
use crate::schema::{DataField, DataType, TypeKind};
use crate::value::Datum;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn kind(k: TypeKind) -> DataType {
    DataType {
        kind: k,
        nullable: true,
    }
}

fn strs(v: &[&str]) -> Datum {
    Datum::List(v.iter().map(|s| Datum::String(s.to_string())).collect())
}

// Expected values below were printed by the released Paimon 1.0.0 classes (paimon-bundle 1.0.0).

#[test]
fn binary_string_hash_codes() {
    for (s, h) in [
        ("", 142593372),
        ("a", 1485273170),
        ("abcde", 814637928),
        ("hello world!", -294328854),
        ("s01", 1744629105),
    ] {
        assert_eq!(murmur(s.as_bytes()), h, "{s:?}");
    }
}

#[test]
fn hash_set_order_follows_java_through_a_resize() {
    // new HashSet<>() of BinaryString s01..s15, in insertion order (resized at the 13th).
    let names: Vec<String> = (1..=15).map(|i| format!("s{i:02}")).collect();
    let input: Vec<&str> = names.iter().map(String::as_str).collect();
    let out = collect_agg(
        &kind(TypeKind::VarChar(10)),
        true,
        &Datum::Null,
        &strs(&input),
    )
    .unwrap();
    let java = [
        "s08", "s11", "s04", "s01", "s10", "s14", "s13", "s03", "s15", "s02", "s07", "s12", "s05",
        "s09", "s06",
    ];
    assert_eq!(out, strs(&java));
}

#[test]
fn nested_key_binary_rows_and_hashes() {
    let int = DataField {
        id: 0,
        name: "id".into(),
        data_type: kind(TypeKind::Int),
        default_value: None,
    };
    let key = binary_row_key(&[&int], &[&Datum::Int(7)]).unwrap();
    assert_eq!(key, hex("00000000000000000700000000000000"));
    assert_eq!(murmur(&key), -348168691);
    let string = DataField {
        data_type: kind(TypeKind::VarChar(100)),
        ..int.clone()
    };
    let key = binary_row_key(&[&string], &[&Datum::String("a long string key".into())]).unwrap();
    assert_eq!(
        key,
        hex("0000000000000000110000001000000061206c6f6e6720737472696e67206b657900000000000000")
    );
    assert_eq!(murmur(&key), -1492712202);
}

#[test]
fn rbm32_union_is_byte_identical_to_java() {
    for (a, b, java) in [
        // A run container (0..100) with an array: one run container of 101 values, then 200.
        (
            "3b3000000100006300010000006300",
            "3a30000001000000000002001000000064006500c800",
            "3b3000000100006600020000006500c8000000",
        ),
        // An array serialized without runOptimize with another key: runOptimize turns 1..20 into a
        // run; three containers need no offsets in the run format.
        (
            "3a3000000100000000001300100000000100020003000400050006000700080009000a000b000c000d000e000f0010001100120013001400",
            "3a300000020000000000000003000000180000001a00000005000000",
            "3b3001000100001300030000000100010013000000",
        ),
        // Two empty bitmaps.
        ("3a30000000000000", "3a30000000000000", "3a30000000000000"),
    ] {
        assert_eq!(rbm32_or(&hex(a), &hex(b)).unwrap(), hex(java));
    }
    assert!(matches!(
        rbm32_or(&[1, 2, 3], &hex("3a30000000000000")),
        Err(AggError::Java(_))
    ));
}

#[test]
fn collection_retraction_follows_java() {
    let int = kind(TypeKind::Int);
    let ints = |v: &[i64]| Datum::List(v.iter().map(|i| Datum::Int(*i)).collect());
    // collect removes one equal element per retracted element.
    assert_eq!(
        collect_retract(&int, false, &ints(&[1, 2, 2, 3]), &ints(&[2, 5])).unwrap(),
        ints(&[1, 2, 3])
    );
    // A NULL retraction of a non-NULL accumulator: Java's NullPointerException.
    assert!(matches!(
        collect_retract(&int, false, &ints(&[1]), &Datum::Null),
        Err(AggError::Java(_))
    ));
    // merge_map keeps the accumulator's entries whose key is not retracted.
    let map = |v: &[(i64, &str)]| {
        Datum::Map(
            v.iter()
                .map(|(k, s)| (Datum::Int(*k), Datum::String(s.to_string())))
                .collect(),
        )
    };
    assert_eq!(
        merge_map_retract(&int, &map(&[(3, "c"), (1, "a")]), &map(&[(3, "x")])).unwrap(),
        map(&[(1, "a")])
    );
    // byte[] elements hash by identity in Java: not reproduced.
    assert!(matches!(
        collect_agg(
            &kind(TypeKind::VarBinary(10)),
            true,
            &Datum::List(vec![Datum::Bytes(vec![1])]),
            &Datum::Null
        ),
        Err(AggError::Unsupported(_))
    ));
}

/// `FieldNestedUpdateAgg.agg(NULL, input)` by release line: 1.0 keeps the input as it is, 2.0 keeps its
/// non-NULL rows (`addNonNullRows`); the released 2.0.0 reader returns `[{id: 4, v: "d"}]` for the c10 key
/// whose first value is `[NULL, {id: 4, v: "d"}]`, the released 1.0.0 reader the array as written.
#[test]
fn nested_update_of_a_null_accumulator_follows_the_line() {
    use crate::aggregate::nested_update::NestedUpdate;
    use crate::line::NestedUpdateNullAccumulator as N;
    let fields = vec![DataField {
        id: 0,
        name: "id".into(),
        data_type: DataType {
            kind: TypeKind::Int,
            nullable: true,
        },
        default_value: None,
    }];
    let input = Datum::List(vec![Datum::Null, Datum::Row(vec![Datum::Int(4)])]);
    for (rule, expected) in [
        (N::KeepsInput, input.clone()),
        (
            N::NonNullRows,
            Datum::List(vec![Datum::Row(vec![Datum::Int(4)])]),
        ),
    ] {
        let agg = NestedUpdate {
            fields: &fields,
            key: &[],
            null_accumulator: rule,
        };
        assert_eq!(agg.agg(&Datum::Null, &input).unwrap(), expected, "{rule:?}");
        // A NULL input keeps the accumulator on both lines.
        assert_eq!(agg.agg(&input, &Datum::Null).unwrap(), input, "{rule:?}");
    }
}
