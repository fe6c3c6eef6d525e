//! Decoding parity: tables written by the released Paimon 1.0 writer (through `jvm-bridge`'s CorpusWriter, in
//! a temporary directory) with every type, every file format, every compression and evolved schemas are read
//! by the released reader and the native reader and must come out identical (`harness::replay`), with the
//! very same Arrow types on both sides. Where paimon-arrow cannot export a type (MULTISET), the native rows
//! are checked against the written values.

use crate::common;

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use harness::corpus::{generate_scenario, Scenario};
use harness::reader::{NativeTableReader, StockTableReader, TableReader};
use harness::replay::{replay, ReplayOptions};
use serde_json::{json, Value};

/// Writes `scenario` with the released writer into a fresh directory under `dir`; returns the table path.
fn write(dir: &Path, scenario: Value) -> PathBuf {
    let scenario: Scenario = serde_json::from_value(scenario).expect("valid scenario");
    let out = dir.join(&scenario.name);
    generate_scenario(&scenario, &out).unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
    std::fs::canonicalize(out.join("table")).unwrap()
}

/// Replays `table` and asserts the verdict is "identical" and that every batch has the same Arrow schema
/// (types, nested names, nullability, field-id metadata) on both sides.
fn assert_identical(table: &Path, stock: &StockTableReader, native: &NativeTableReader) {
    let options = ReplayOptions {
        progress: false,
        ..ReplayOptions::default()
    };
    let report = replay(table, stock, native, &options).expect("replay runs");
    assert_eq!(
        report.verdict,
        "identical",
        "{}: {}",
        table.display(),
        harness::report::summary_line(&report)
    );
    assert!(report.totals.splits > 0, "{}: no splits", table.display());
    let latest = native
        .table(table)
        .unwrap()
        .latest_snapshot_id()
        .unwrap()
        .unwrap_or(1);
    let stock_splits = stock.plan_stream(table, 1, latest).unwrap();
    let native_splits = native.plan_stream(table, 1, latest).unwrap();
    let first = |reader: &dyn TableReader, split| -> Option<RecordBatch> {
        reader
            .read_split(table, split)
            .unwrap()
            .next()
            .map(|b| b.unwrap())
    };
    let views = native.table(table).unwrap().string_views();
    for (s, n) in stock_splits.iter().zip(&native_splits) {
        if let (Some(sb), Some(nb)) = (first(stock, s), first(native, n)) {
            for (sf, nf) in sb.schema().fields().iter().zip(nb.schema().fields()) {
                // Top-level strings and binaries: views in the native reader of a Parquet table, plain in
                // the released one (the same values, README "Equality rules"); every other type exactly the
                // released one.
                let native_type = match nf.data_type() {
                    DataType::Utf8View => DataType::Utf8,
                    DataType::BinaryView => DataType::Binary,
                    other => other.clone(),
                };
                assert_eq!(
                    sf.data_type(),
                    &native_type,
                    "{}: column {}",
                    table.display(),
                    sf.name()
                );
                if matches!(sf.data_type(), DataType::Utf8 | DataType::Binary) {
                    assert_eq!(
                        matches!(nf.data_type(), DataType::Utf8View | DataType::BinaryView),
                        views,
                        "{}: column {} is {}",
                        table.display(),
                        sf.name(),
                        nf.data_type()
                    );
                }
                assert_eq!(sf.is_nullable(), nf.is_nullable(), "{}", sf.name());
            }
        }
    }
}

fn row_type(fields: &[(&str, Value)]) -> Value {
    let fields: Vec<Value> = fields
        .iter()
        .enumerate()
        .map(|(i, (n, t))| json!({"id": 1000 + i, "name": n, "type": t}))
        .collect();
    json!({"type": "ROW", "fields": fields})
}

/// A primary-key table with every Paimon 1.0 type the format can store, three rows of edge values
/// (extremes, NULLs, empty strings, pre-1970 and far-future instants, NaN, -0.0, non-ASCII, nested NULLs),
/// then a delete.
fn every_type_scenario(format: &str) -> Value {
    let mut fields: Vec<(&str, Value)> = vec![
        ("id", json!("INT NOT NULL")),
        ("b", json!("BOOLEAN")),
        ("ti", json!("TINYINT")),
        ("si", json!("SMALLINT")),
        ("i", json!("INT")),
        ("bi", json!("BIGINT")),
        ("f", json!("FLOAT")),
        ("d", json!("DOUBLE")),
        // Parquet: INT32, INT64 and FIXED_LEN_BYTE_ARRAY decimals.
        ("dec5", json!("DECIMAL(5, 2)")),
        ("dec15", json!("DECIMAL(15, 3)")),
        ("dec30", json!("DECIMAL(30, 4)")),
        ("dec38", json!("DECIMAL(38, 10)")),
        ("c", json!("CHAR(5)")),
        ("vc", json!("VARCHAR(10)")),
        ("s", json!("STRING")),
    ];
    if format == "parquet" {
        // ORC stores only BYTES.
        fields.push(("bin", json!("BINARY(4)")));
        fields.push(("vbin", json!("VARBINARY(8)")));
    }
    fields.extend([
        ("by", json!("BYTES")),
        ("dt", json!("DATE")),
        ("tm", json!("TIME")),
        ("tm3", json!("TIME(3)")),
        ("ts0", json!("TIMESTAMP(0)")),
        ("ts3", json!("TIMESTAMP(3)")),
        ("ts6", json!("TIMESTAMP(6)")),
    ]);
    if format != "avro" {
        // Avro stores timestamps up to precision 6; Parquet writes INT96 here.
        fields.push(("ts9", json!("TIMESTAMP(9)")));
    }
    fields.extend([
        ("l0", json!("TIMESTAMP(0) WITH LOCAL TIME ZONE")),
        ("l3", json!("TIMESTAMP(3) WITH LOCAL TIME ZONE")),
        ("l6", json!("TIMESTAMP(6) WITH LOCAL TIME ZONE")),
    ]);
    if format != "avro" {
        fields.push(("l9", json!("TIMESTAMP(9) WITH LOCAL TIME ZONE")));
    }
    fields.extend([
        ("arr", json!({"type": "ARRAY", "element": "INT"})),
        (
            "arr2",
            json!({"type": "ARRAY", "element": {"type": "ARRAY NOT NULL", "element": "STRING"}}),
        ),
        (
            "m",
            json!({"type": "MAP", "key": "STRING NOT NULL", "value": "INT"}),
        ),
        (
            "m2",
            json!({"type": "MAP", "key": "INT NOT NULL", "value": "STRING"}),
        ),
        (
            "r",
            row_type(&[
                ("x", json!("INT")),
                ("y", json!("STRING")),
                ("z", row_type(&[("w", json!("DOUBLE"))])),
            ]),
        ),
        (
            "ar",
            json!({"type": "ARRAY", "element": row_type(&[("a", json!("INT")), ("bb", json!("DECIMAL(20, 2)"))])}),
        ),
        (
            "mr",
            json!({"type": "MAP", "key": "BIGINT NOT NULL", "value": {"type": "ARRAY", "element": "TIMESTAMP(3)"}}),
        ),
    ]);
    let names: Vec<&str> = fields.iter().map(|(n, _)| *n).collect();
    let row = |values: &[(&str, Value)]| -> Value {
        let v: Vec<Value> = names
            .iter()
            .map(|n| {
                values
                    .iter()
                    .find(|(k, _)| k == n)
                    .map_or(Value::Null, |(_, v)| v.clone())
            })
            .collect();
        Value::Array(v)
    };
    // 17 string keys: the map grows past 16 entries (a Java HashMap resize for Avro's read order).
    let many: Vec<Value> = [
        "k1", "k2", "zz", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n",
    ]
    .iter()
    .enumerate()
    .map(|(i, k)| json!([k, if i == 1 { Value::Null } else { json!(i) }]))
    .collect();
    let r1 = row(&[
        ("id", json!(1)),
        ("b", json!(true)),
        ("ti", json!(-128)),
        ("si", json!(-32768)),
        ("i", json!(-2147483648i64)),
        ("bi", json!(i64::MIN)),
        ("f", json!(-1.5)),
        ("d", json!("NaN")),
        ("dec5", json!("-999.99")),
        ("dec15", json!("123456789012.345")),
        ("dec30", json!("-12345678901234567890123456.7891")),
        ("dec38", json!("1234567890123456789012345678.0123456789")),
        ("c", json!("ab")),
        ("vc", json!("hello")),
        ("s", json!("wörld ✓")),
        ("bin", json!("AQID")),
        ("vbin", json!("AQIDBAUGBwg=")),
        ("by", json!("")),
        ("dt", json!(-719162)),
        ("tm", json!(0)),
        ("tm3", json!(86399999)),
        ("ts0", json!("1969-12-31T23:59:59")),
        ("ts3", json!("1969-12-31T23:59:59.999")),
        ("ts6", json!("1969-12-31T23:59:59.999999")),
        ("ts9", json!("2024-02-29T12:34:56.123456789")),
        ("l0", json!("2024-01-01T00:00:01")),
        ("l3", json!("1900-01-01T00:00:00.001")),
        ("l6", json!("2262-04-11T23:47:16.854775")),
        ("l9", json!("1970-01-01T00:00:00.000000001")),
        ("arr", json!([1, null, 3])),
        ("arr2", json!([["a", null], []])),
        ("m", Value::Array(many)),
        (
            "m2",
            json!([
                [3, "three"],
                [-1, "minus"],
                [100, null],
                [17, "x"],
                [1, "one"]
            ]),
        ),
        ("r", json!([1, "y", [2.5]])),
        ("ar", json!([[1, "1.25"], null, [null, null]])),
        (
            "mr",
            json!([
                [5, ["2020-01-01T00:00:00.001", null]],
                [-5, []],
                [4294967296i64, null]
            ]),
        ),
    ]);
    let r2 = row(&[("id", json!(2))]);
    let r3 = row(&[
        ("id", json!(3)),
        ("b", json!(false)),
        ("ti", json!(127)),
        ("si", json!(32767)),
        ("i", json!(2147483647)),
        ("bi", json!(i64::MAX)),
        ("f", json!("Infinity")),
        ("d", json!(-0.0)),
        ("dec5", json!("0.01")),
        ("dec15", json!("-0.001")),
        ("dec30", json!("0")),
        ("dec38", json!("-0.0000000001")),
        ("c", json!("abcde")),
        ("vc", json!("")),
        ("s", json!("")),
        ("bin", json!("AAAAAA==")),
        ("vbin", json!("")),
        ("by", json!("/w==")),
        ("dt", json!(2932896)),
        ("tm", json!(3723000)),
        ("tm3", json!(1)),
        ("ts0", json!("0001-01-01T00:00:00")),
        ("ts3", json!("9999-12-31T23:59:59.999")),
        ("ts6", json!("0001-01-01T00:00:00.000001")),
        // Beyond the i64 nanosecond range: both sides wrap the same way.
        ("ts9", json!("2262-04-12T00:00:00.000000001")),
        ("l0", json!("9999-12-31T23:59:59")),
        ("l3", json!("0001-01-01T00:00:00")),
        ("l6", json!("1969-12-31T23:59:59.999999")),
        ("l9", json!("9999-12-31T23:59:59.999999999")),
        ("arr", json!([])),
        ("m", json!([])),
        ("m2", json!([[0, ""]])),
        // A ROW whose fields are all NULL (Parquet reads it back as a NULL row).
        ("r", json!([null, null, null])),
        ("ar", json!([])),
        ("mr", json!([])),
    ]);
    let table_fields: Vec<Value> = fields
        .iter()
        .map(|(n, t)| json!({"name": n, "type": t}))
        .collect();
    json!({
        "name": format!("types-{format}"),
        "description": format!("every type in {format}"),
        "table": {
            "fields": table_fields,
            "primaryKeys": ["id"],
            "options": {"bucket": "1", "file.format": format}
        },
        "steps": [
            {"step": "write", "rows": [
                {"kind": "+I", "values": r1},
                {"kind": "+I", "values": r2.clone()},
                {"kind": "+I", "values": r3}
            ]},
            {"step": "commit", "identifier": 1},
            {"step": "write", "rows": [{"kind": "-D", "values": r2}]},
            {"step": "commit", "identifier": 2}
        ]
    })
}

#[test]
fn every_type_in_every_format_reads_identically() {
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let dir = tempfile::tempdir().unwrap();
    for format in ["parquet", "orc", "avro"] {
        let table = write(dir.path(), every_type_scenario(format));
        assert_identical(&table, &stock, &native);
    }
}

/// A table whose files use every format and compression (`file.format` and `file.compression` changed
/// between commits; the reader takes each file's format from its name).
#[test]
fn every_format_and_compression_reads_identically() {
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let dir = tempfile::tempdir().unwrap();
    let mut steps = Vec::new();
    let mut id = 0;
    for (format, codecs) in [
        // Parquet's Hadoop `lz4` codec needs native libraries the writer JVM lacks; `lz4_raw` is LZ4 too.
        (
            "parquet",
            vec!["zstd", "lz4_raw", "snappy", "gzip", "uncompressed"],
        ),
        ("orc", vec!["zstd", "lz4", "snappy", "zlib", "none"]),
        ("avro", vec!["zstd", "snappy", "deflate", "null"]),
    ] {
        for codec in codecs {
            id += 1;
            steps.push(json!({"step": "alter", "changes": [
                {"op": "set-option", "key": "file.format", "value": format},
                {"op": "set-option", "key": "file.compression", "value": codec}
            ]}));
            let rows: Vec<Value> = (0..50)
                .map(|k| {
                    json!({"kind": "+I", "values": [id * 100 + k, format!("{format}-{codec}-{k}"), k as f64 / 3.0, [k, null]]})
                })
                .collect();
            steps.push(json!({"step": "write", "rows": rows}));
            steps.push(json!({"step": "commit", "identifier": id}));
        }
    }
    let table = write(
        dir.path(),
        json!({
            "name": "formats-and-codecs",
            "description": "one file per (format, compression)",
            "table": {
                "fields": [
                    {"name": "id", "type": "INT NOT NULL"},
                    {"name": "s", "type": "STRING"},
                    {"name": "x", "type": "DOUBLE"},
                    {"name": "a", "type": {"type": "ARRAY", "element": "INT"}}
                ],
                "primaryKeys": ["id"],
                "options": {"bucket": "1", "changelog-producer": "input"}
            },
            "steps": steps
        }),
    );
    // Each format's files are really there.
    let mut names = Vec::new();
    for entry in std::fs::read_dir(table.join("bucket-0")).unwrap() {
        names.push(entry.unwrap().file_name().to_string_lossy().into_owned());
    }
    for ext in [".parquet", ".orc", ".avro"] {
        assert!(
            names.iter().any(|n| n.ends_with(ext)),
            "no {ext} file: {names:?}"
        );
    }
    assert_identical(&table, &stock, &native);
}

/// Schema evolution: every column of the first file is read through a type change, a rename, a drop, an
/// added column and a reordering, with Paimon's cast rules (values chosen so that the Java casts succeed).
#[test]
fn evolved_schemas_read_identically_in_every_format() {
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let dir = tempfile::tempdir().unwrap();
    for format in ["parquet", "orc", "avro"] {
        let fields = [
            ("id", "INT NOT NULL"),
            ("a", "INT"),
            ("b", "FLOAT"),
            ("c", "DECIMAL(5, 2)"),
            ("d", "STRING"),
            ("e", "TIMESTAMP(6)"),
            ("f", "VARCHAR(10)"),
            ("g", "INT"),
            ("h", "INT"),
            ("i", "DOUBLE"),
            ("j", "DECIMAL(6, 3)"),
            ("k", "STRING"),
            ("l", "DATE"),
            ("m", "BIGINT"),
            ("n", "BOOLEAN"),
            ("o", "BYTES"),
            ("p", "STRING"),
        ];
        let fields: Vec<Value> = fields
            .iter()
            .map(|(n, t)| json!({"name": n, "type": t}))
            .collect();
        let changes = json!([
            {"op": "update-column-type", "name": "a", "type": "BIGINT"},
            {"op": "update-column-type", "name": "b", "type": "DOUBLE"},
            {"op": "update-column-type", "name": "c", "type": "DECIMAL(4, 1)"},
            {"op": "rename-column", "from": "d", "to": "d2"},
            {"op": "update-column-type", "name": "e", "type": "TIMESTAMP(3)"},
            {"op": "update-column-type", "name": "f", "type": "VARCHAR(3)"},
            {"op": "drop-column", "name": "g"},
            {"op": "update-column-type", "name": "h", "type": "TINYINT"},
            {"op": "update-column-type", "name": "i", "type": "INT"},
            {"op": "update-column-type", "name": "j", "type": "STRING"},
            {"op": "update-column-type", "name": "k", "type": "INT"},
            {"op": "update-column-type", "name": "l", "type": "TIMESTAMP(3)"},
            {"op": "update-column-type", "name": "m", "type": "STRING"},
            {"op": "update-column-type", "name": "n", "type": "INT"},
            {"op": "update-column-type", "name": "o", "type": "BINARY(2)"},
            {"op": "update-column-type", "name": "p", "type": "CHAR(4)"},
            {"op": "add-column", "name": "q", "type": "INT"},
            {"op": "move-first", "name": "f"}
        ]);
        let table = write(
            dir.path(),
            json!({
                "name": format!("evolution-{format}"),
                "description": "type changes, rename, drop, add, move",
                "table": {"fields": fields, "primaryKeys": ["id"], "options": {"bucket": "1", "file.format": format}},
                "steps": [
                    {"step": "write", "rows": [
                        {"kind": "+I", "values": [1, 300, 1.5, "123.45", "x", "2024-01-01T00:00:00.123456", "hello worl", 7, -129, 2.9, "-1.234", "42", 19000, 4294967297i64, true, "AQID", "ab"]},
                        {"kind": "+I", "values": [2, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null]},
                        {"kind": "+I", "values": [3, -1, -0.0, "-99.99", "", "1969-12-31T23:59:59.999999", "", 1, 200, -1e10, "999.999", "-7.5", -1, -1, false, "", "abcdefg"]}
                    ]},
                    {"step": "commit", "identifier": 1},
                    {"step": "alter", "changes": changes},
                    {"step": "commit", "identifier": 2}
                ]
            }),
        );
        assert_identical(&table, &stock, &native);
    }
}

/// (id, MULTISET<STRING> entries sorted, MULTISET<INT> entries in order).
type MultisetRow = (i32, Option<Vec<(String, i32)>>, Option<Vec<(i32, i32)>>);

/// MULTISET cannot be exported by paimon-arrow 1.0 (`ArrowFieldTypeConversion` throws), so the native rows are
/// checked against the written values: element → count, as a map.
#[test]
fn multisets_read_as_written() {
    let _stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let dir = tempfile::tempdir().unwrap();
    for format in ["parquet", "avro"] {
        // Written directly (a scenario would also read it back with the stock reader, which cannot).
        let table = dir.path().join(format!("multiset-{format}"));
        // The released Avro writer cannot write a MULTISET of non-strings (an array of records it then
        // casts to ARRAY): that column is Parquet only.
        let mut fields = vec![
            json!({"name": "id", "type": "INT NOT NULL"}),
            json!({"name": "ms", "type": {"type": "MULTISET", "element": "STRING NOT NULL"}}),
        ];
        if format == "parquet" {
            fields.push(
                json!({"name": "mi", "type": {"type": "MULTISET", "element": "INT NOT NULL"}}),
            );
        }
        let schema = json!({"fields": fields, "options": {"bucket": "-1", "file.format": format}});
        jvm_bridge::CorpusWriter::create_table(&table, &schema.to_string()).unwrap();
        let io = dir.path().join(format!("io-{format}"));
        std::fs::create_dir_all(&io).unwrap();
        let writer = jvm_bridge::CorpusWriter::open(&table, "multiset", &io).unwrap();
        let rows = if format == "parquet" {
            json!([
                {"kind": "+I", "values": [1, [["b", 2], ["a", 1]], [[7, 3]]]},
                {"kind": "+I", "values": [2, null, []]}
            ])
        } else {
            json!([
                {"kind": "+I", "values": [1, [["b", 2], ["a", 1]]]},
                {"kind": "+I", "values": [2, null]}
            ])
        };
        writer.write(&rows.to_string()).unwrap();
        writer.commit(1, true).unwrap();
        writer.close().unwrap();
        let table = std::fs::canonicalize(&table).unwrap();
        let mut rows: Vec<MultisetRow> = Vec::new();
        for split in native.plan_stream(&table, 1, 1).unwrap() {
            for batch in native.read_split(&table, &split).unwrap() {
                let batch = batch.unwrap();
                let ids = batch.column(1).as_primitive::<Int32Type>();
                let ms = batch.column(2).as_map();
                let mi = batch.columns().get(3).map(|c| c.as_map());
                for r in 0..batch.num_rows() {
                    let strings = (!ms.is_null(r)).then(|| {
                        let e = ms.value(r);
                        let mut v: Vec<(String, i32)> = (0..e.len())
                            .map(|i| {
                                (
                                    e.column(0).as_string::<i32>().value(i).to_string(),
                                    e.column(1).as_primitive::<Int32Type>().value(i),
                                )
                            })
                            .collect();
                        v.sort();
                        v
                    });
                    let ints = mi.filter(|mi| !mi.is_null(r)).map(|mi| {
                        let e = mi.value(r);
                        (0..e.len())
                            .map(|i| {
                                (
                                    e.column(0).as_primitive::<Int32Type>().value(i),
                                    e.column(1).as_primitive::<Int32Type>().value(i),
                                )
                            })
                            .collect()
                    });
                    rows.push((ids.value(r), strings, ints));
                }
            }
        }
        rows.sort_by_key(|r| r.0);
        let parquet = format == "parquet";
        assert_eq!(
            rows,
            vec![
                (
                    1,
                    Some(vec![("a".to_string(), 1), ("b".to_string(), 2)]),
                    parquet.then(|| vec![(7, 3)])
                ),
                (2, None, parquet.then(Vec::new)),
            ],
            "{format}"
        );
    }
}
