//! C10 and Java's hash order: collection, map and bitmap aggregate functions.

use super::*;

/// C10: collection and bitmap aggregate functions merged across two level-0 files, with a `-D` retraction.
/// Small INTEGERs hash to themselves, so Java's `HashSet`/`HashMap` results (collect with distinct,
/// merge_map) iterate in ascending order; the rbm32 union {1, 2, 3} | {3, 4} becomes one run container
/// after `runOptimize` (cookie 12347, one run flag, key 0 with 4 values, run (1, length 4)).
#[test]
fn c10_collection_and_bitmap_aggregate_functions() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    let s = scratch(
        r#"{"fields":[{"name":"k","type":"INT NOT NULL"},
            {"name":"col","type":{"type":"ARRAY","element":"INT"}},
            {"name":"cold","type":{"type":"ARRAY","element":"INT"}},
            {"name":"mm","type":{"type":"MAP","key":"INT NOT NULL","value":"STRING"}},
            {"name":"nu","type":{"type":"ARRAY","element":{"type":"ROW","fields":[
                {"id":10,"name":"id","type":"INT"},{"id":11,"name":"v","type":"STRING"}]}}},
            {"name":"r32","type":"BYTES"},{"name":"s","type":"BIGINT"}],
            "partitionKeys":[],"primaryKeys":["k"],
            "options":{"bucket":"1","merge-engine":"aggregation",
                "fields.col.aggregate-function":"collect",
                "fields.cold.aggregate-function":"collect","fields.cold.distinct":"true",
                "fields.mm.aggregate-function":"merge_map",
                "fields.nu.aggregate-function":"nested_update","fields.nu.nested-key":"id",
                "fields.r32.aggregate-function":"rbm32","fields.r32.ignore-retract":"true",
                "fields.s.aggregate-function":"sum"}}"#,
    );
    // RoaringBitmap32 {1, 2, 3} and {3, 4} as Paimon serializes them (array containers).
    let (b123, b34) = (
        "OjAAAAEAAAAAAAIAEAAAAAEAAgADAA==",
        "OjAAAAEAAAAAAAEAEAAAAAMABAA=",
    );
    let w = CorpusWriter::open(&s.table, "c10", &s.io).unwrap();
    w.write(&format!(
        r#"[{{"kind":"+I","values":[1,[1,2],[3,1],[[2,"b"],[1,"a"]],[[1,"a"]],"{b123}",10]}},
            {{"kind":"+I","values":[2,[5],[5],[[5,"e"]],[[5,"e"]],null,1]}}]"#
    ))
    .unwrap();
    w.commit(1, false).unwrap();
    w.write(&format!(
        r#"[{{"kind":"+I","values":[1,[2],[2,1],[[1,"A"],[3,"c"]],[[1,"b"]],"{b34}",5]}},
            {{"kind":"-D","values":[2,[5],[5],[[5,"x"]],[[5,"e"]],"{b34}",1]}}]"#
    ))
    .unwrap();
    w.commit(2, false).unwrap();
    w.close().unwrap();

    let expected = [
        r#"+I (1, [1, 2, 2], [1, 2, 3], {1: "A", 2: "b", 3: "c"}, [{id: 1, v: "b"}], 3b3000000100000300010001000300, 15)"#,
        "+I (2, [], [], {}, [], NULL, 0)",
    ];
    let (stock_rows, native_rows) = check(&s.table, &stock);
    assert_eq!(stock_rows, sorted(&expected));
    assert_eq!(native_rows, sorted(&expected));
}

/// `collect` with `distinct` and `merge_map` over DECIMAL and TIMESTAMP elements and keys: Java builds the
/// results in a `HashSet`/`HashMap`, so their order follows `Decimal.hashCode()` (`BigDecimal`'s) and
/// `Timestamp.hashCode()`; with more than 12 distinct values the table also resizes. The released reader's
/// rows are the expected ones; the native reader must return the same rows in the same order.
#[test]
fn collect_distinct_and_merge_map_over_decimals_and_timestamps_keep_java_hash_order() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    let s = scratch(
        r#"{"fields":[{"name":"k","type":"INT NOT NULL"},
            {"name":"dec","type":{"type":"ARRAY","element":"DECIMAL(10, 2)"}},
            {"name":"ts","type":{"type":"ARRAY","element":"TIMESTAMP(6)"}},
            {"name":"mm","type":{"type":"MAP","key":"DECIMAL(10, 2) NOT NULL","value":"INT"}}],
            "partitionKeys":[],"primaryKeys":["k"],
            "options":{"bucket":"1","merge-engine":"aggregation",
                "fields.dec.aggregate-function":"collect","fields.dec.distinct":"true",
                "fields.ts.aggregate-function":"collect","fields.ts.distinct":"true",
                "fields.mm.aggregate-function":"merge_map"}}"#,
    );
    let w = CorpusWriter::open(&s.table, "hash-order", &s.io).unwrap();
    w.write(r#"[{"kind": "+I", "values": [1, ["7.13", "14.26", "21.39", "28.52", "35.65", "42.78", "49.91", "56.04", "63.17", "70.30"], ["2024-01-01T00:00:00.000000", "2024-01-02T01:00:00.000111", "2024-01-03T02:00:00.000222", "2024-01-04T03:00:00.000333", "2024-01-05T04:00:00.000444", "2024-01-06T05:00:00.000555", "2024-01-07T06:00:00.000666", "2024-01-08T07:00:00.000777", "2024-01-09T08:00:00.000888"], [["7.13", 0], ["14.26", 1], ["21.39", 2], ["28.52", 3], ["35.65", 4], ["42.78", 5], ["49.91", 6], ["56.04", 7], ["63.17", 8], ["70.30", 9]]]}]"#).unwrap();
    w.commit(1, false).unwrap();
    w.write(r#"[{"kind": "+I", "values": [1, ["42.78", "49.91", "56.04", "63.17", "70.30", "77.43", "84.56", "91.69", "98.82", "105.95", "112.08", "119.21", "126.34", "-12345678.90", "99999999.99"], ["2024-01-05T04:00:00.000444", "2024-01-06T05:00:00.000555", "2024-01-07T06:00:00.000666", "2024-01-08T07:00:00.000777", "2024-01-09T08:00:00.000888", "2024-01-10T09:00:00.000999", "2024-01-11T00:00:00.001110", "2024-01-12T01:00:00.001221", "2024-01-13T02:00:00.001332", "2024-01-14T03:00:00.001443", "2024-01-15T04:00:00.001554", "2024-01-16T05:00:00.001665", "2024-01-17T06:00:00.001776", "1969-12-31T23:59:59.999999"], [["42.78", 100], ["49.91", 101], ["56.04", 102], ["63.17", 103], ["70.30", 104], ["77.43", 105], ["84.56", 106], ["91.69", 107], ["98.82", 108], ["105.95", 109], ["112.08", 110], ["119.21", 111], ["126.34", 112], ["-12345678.90", 113], ["99999999.99", 114]]]}]"#).unwrap();
    w.commit(2, false).unwrap();
    w.close().unwrap();

    let report = report_of(&s.table, &stock, ReplayMode::Batch);
    assert_eq!(report.verdict, "identical", "{:?}", report.first_difference);
    let stock_rows = batch_rows(&stock, &s.table);
    assert_eq!(stock_rows.len(), 1);
    // 20 distinct decimals, 18 distinct timestamps and 20 map keys, in Java hash order.
    assert!(stock_rows[0].contains("-12345678.90"), "{}", stock_rows[0]);
    for mode in MODES {
        assert_replays_identically(&s.table, mode, &stock);
    }
}
