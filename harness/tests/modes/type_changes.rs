//! C12: column types changed by ALTER TABLE, read through the released cast rules.

use super::*;

/// C12: column types changed by ALTER TABLE (`SchemaChange.updateColumnType`) are read through Paimon 1.0's
/// cast rules. Expected values follow from the writes and the Java rules: `StringToDecimalCastRule`
/// (`new BigDecimal`, HALF_UP to the scale), `StringToDateCastRule` (`BinaryStringUtils.toDate`: digits only
/// are a day count), `TimestampToDateCastRule` (`(int) (millis / 86400000)`, toward zero, so the last
/// millisecond of 1969 is day 0), `BinaryToStringCastRule` (the UTF-8 bytes) and `StringToTimestampCastRule`
/// (`DateTimeUtils.parseTimestampData`: SMART resolution clamps Feb 30 to Feb 28, `24:00:00` is the next
/// midnight; digits only are epoch microseconds at precision 6).
#[test]
fn c12_column_type_changes_read_through_java_cast_rules() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    let s = scratch(
        r#"{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"dec","type":"STRING"},
            {"name":"day","type":"STRING"},{"name":"ts","type":"TIMESTAMP(3)"},{"name":"bin","type":"VARBINARY(8)"},
            {"name":"text_ts","type":"STRING"}],
            "partitionKeys":[],"primaryKeys":["id"],"options":{"bucket":"1","file.format":"parquet"}}"#,
    );
    let w = CorpusWriter::open(&s.table, "c12", &s.io).unwrap();
    // "aMOp" is base64 of the UTF-8 bytes of "hé", "YWI=" of "ab".
    w.write(
        r#"[{"kind":"+I","values":[1,"12.345","2024-02-29","1969-12-31T23:59:59.999","aMOp","2023-02-30 24:00:00"]},
            {"kind":"+I","values":[2,"-0.005","19000","2024-01-02T03:04:05.999","YWI=","1700000000123456"]}]"#,
    )
    .unwrap();
    w.commit(1, true).unwrap();
    w.close().unwrap();
    jvm_bridge::corpus::alter_table(
        &s.table,
        r#"[{"op":"update-column-type","name":"dec","type":"DECIMAL(6, 2)"},
            {"op":"update-column-type","name":"day","type":"DATE"},
            {"op":"update-column-type","name":"ts","type":"DATE"},
            {"op":"update-column-type","name":"bin","type":"STRING"},
            {"op":"update-column-type","name":"text_ts","type":"TIMESTAMP(6)"}]"#,
    )
    .unwrap();
    let w = CorpusWriter::open(&s.table, "c12", &s.io).unwrap();
    w.write(r#"[{"kind":"+I","values":[3,"1.50",0,0,"new","1970-01-01T00:00:00.000001"]}]"#)
        .unwrap();
    w.commit(2, true).unwrap();
    w.close().unwrap();

    let (stock_rows, native_rows) = check(&s.table, &stock);
    let expected = sorted(&[
        "+I (1, 12.35, 2024-02-29, 1970-01-01, \"hé\", 2023-03-01T00:00:00)",
        "+I (2, -0.01, 2022-01-08, 2024-01-02, \"ab\", 2023-11-14T22:13:20.123456)",
        "+I (3, 1.50, 1970-01-01, 1970-01-01, \"new\", 1970-01-01T00:00:00.000001)",
    ]);
    assert_eq!(stock_rows, expected);
    assert_eq!(native_rows, expected);
}

/// The first error of a batch read of the latest snapshot by `reader`, if any.
fn batch_read_error(reader: &dyn TableReader, table: &Path) -> Option<String> {
    let splits = match reader.plan(table, ScanMode::Batch { snapshot: None }, i64::MAX) {
        Ok(s) => s,
        Err(e) => return Some(e.to_string()),
    };
    for split in &splits {
        let batches = match reader.read_split(table, split) {
            Ok(b) => b,
            Err(e) => return Some(e.to_string()),
        };
        for batch in batches {
            if let Err(e) = batch {
                return Some(e.to_string());
            }
        }
    }
    None
}

/// C12: a string the Java cast throws on (`BinaryStringUtils.toDate` of `"2023-02-30"`: `parseDate` returns
/// null for a day past the month's end, then `DateTimeException`) fails the released read, and the native
/// read fails too, naming the data file and the value.
#[test]
fn c12_unparsable_string_after_type_change_is_an_error_naming_file_and_value() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    let s = scratch(
        r#"{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"day","type":"STRING"}],
            "partitionKeys":[],"primaryKeys":["id"],"options":{"bucket":"1","file.format":"parquet"}}"#,
    );
    let w = CorpusWriter::open(&s.table, "c12", &s.io).unwrap();
    w.write(r#"[{"kind":"+I","values":[1,"2024-02-29"]},{"kind":"+I","values":[2,"2023-02-30"]}]"#)
        .unwrap();
    w.commit(1, true).unwrap();
    w.close().unwrap();
    jvm_bridge::corpus::alter_table(
        &s.table,
        r#"[{"op":"update-column-type","name":"day","type":"DATE"}]"#,
    )
    .unwrap();

    let stock_error = batch_read_error(&stock, &s.table).expect("the released reader throws");
    assert!(stock_error.contains("2023-02-30"), "{stock_error}");
    let native_error =
        batch_read_error(&common::native(), &s.table).expect("the native reader fails");
    assert!(native_error.contains("\"2023-02-30\""), "{native_error}");
    assert!(native_error.contains(".parquet"), "{native_error}");
    assert!(native_error.contains("`day`"), "{native_error}");
}

/// C12: a DECIMAL narrowed by ALTER so that an old value no longer fits. The cast rule gives NULL
/// (`Decimal.fromBigDecimal`), but the released reader's `CastedRow` keeps the file value's non-null flag, so
/// reading the row fails in Java (`NullPointerException`); the native read fails too, naming the file, the
/// column and the value, instead of inventing a NULL.
#[test]
fn c12_decimal_overflow_after_type_change_fails_in_both_readers() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    let s = scratch(
        r#"{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"amount","type":"STRING"}],
            "partitionKeys":[],"primaryKeys":["id"],"options":{"bucket":"1","file.format":"parquet"}}"#,
    );
    let w = CorpusWriter::open(&s.table, "c12", &s.io).unwrap();
    w.write(r#"[{"kind":"+I","values":[1,"12.34"]},{"kind":"+I","values":[2,"123456.7"]}]"#)
        .unwrap();
    w.commit(1, true).unwrap();
    w.close().unwrap();
    jvm_bridge::corpus::alter_table(
        &s.table,
        r#"[{"op":"update-column-type","name":"amount","type":"DECIMAL(6, 2)"}]"#,
    )
    .unwrap();

    let stock_error = batch_read_error(&stock, &s.table).expect("the released reader fails");
    assert!(
        stock_error.contains("NullPointerException"),
        "{stock_error}"
    );
    let native_error =
        batch_read_error(&common::native(), &s.table).expect("the native reader fails");
    assert!(
        native_error.contains("\"123456.7\" does not fit"),
        "{native_error}"
    );
    assert!(native_error.contains(".parquet"), "{native_error}");
    assert!(native_error.contains("`amount`"), "{native_error}");
}
