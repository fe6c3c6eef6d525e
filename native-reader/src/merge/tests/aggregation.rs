//! The aggregation merge engine: sequence fields by release, the aggregate functions, retraction, and
//! invalid options.

use crate::error::Error;
use crate::merge::function::merge_function;

use super::*;

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
