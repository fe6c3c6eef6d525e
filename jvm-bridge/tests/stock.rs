//! End-to-end tests of the released Paimon reader and writer through the embedded JVM.
//!
//! Expected values come from what the tests write, never from what a reader returned.
//! Needs the Java side: `mvn -B -q -f jvm-bridge/java/pom.xml package`.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use arrow_array::{Array, Int32Array, Int8Array, RecordBatch, StringArray};
use arrow_schema::DataType;
use jvm_bridge::{CorpusWriter, Error, StockBatches, StockReader, StockSplit};

/// The tests share one JVM and assert on its global allocator, so they run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

const KV_SCHEMA: &str = r#"{
  "fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"}],
  "partitionKeys": [],
  "primaryKeys": ["k"],
  "options": {"bucket": "1", "changelog-producer": "input"}
}"#;

/// `(row kind, k, v)` of every row of `batches`, asserting the batch shape on the way.
fn rows(batches: &[RecordBatch]) -> Vec<(i8, i32, Option<String>)> {
    let mut out = Vec::new();
    for b in batches {
        let schema = b.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["_row_kind", "k", "v"]);
        let types: Vec<&DataType> = schema.fields().iter().map(|f| f.data_type()).collect();
        assert_eq!(types, [&DataType::Int8, &DataType::Int32, &DataType::Utf8]);
        let nullable: Vec<bool> = schema.fields().iter().map(|f| f.is_nullable()).collect();
        assert_eq!(nullable, [false, false, true]);
        let ids: Vec<Option<&str>> = schema
            .fields()
            .iter()
            .map(|f| f.metadata().get("PARQUET:field_id").map(String::as_str))
            .collect();
        assert_eq!(ids, [Some("2147483645"), Some("0"), Some("1")]);
        assert!(b.num_rows() > 0 && b.num_rows() <= jvm_bridge::stock::BATCH_ROWS);

        let kind = b.column(0).as_any().downcast_ref::<Int8Array>().unwrap();
        let k = b.column(1).as_any().downcast_ref::<Int32Array>().unwrap();
        let v = b.column(2).as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.num_rows() {
            let value = (!v.is_null(i)).then(|| v.value(i).to_owned());
            out.push((kind.value(i), k.value(i), value));
        }
    }
    out
}

fn read_all(reader: &StockReader, dir: &Path, split: &StockSplit) -> Vec<RecordBatch> {
    reader
        .read_split(dir, split)
        .unwrap()
        .collect::<jvm_bridge::Result<Vec<_>>>()
        .unwrap()
}

fn s(v: &str) -> Option<String> {
    Some(v.to_owned())
}

#[test]
fn stream_plan_and_rows_of_an_input_changelog_table() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("kv");
    let io = tmp.path().join("io");
    std::fs::create_dir_all(&io).unwrap();

    CorpusWriter::create_table(&dir, KV_SCHEMA).unwrap();
    let writer = CorpusWriter::open(&dir, "stock-test", &io).unwrap();
    writer
        .write(r#"[{"kind":"+I","values":[1,"a"]},{"kind":"+I","values":[2,"b"]}]"#)
        .unwrap();
    writer.commit(1, true).unwrap();
    writer
        .write(r#"[{"kind":"-D","values":[1,"a"]},{"kind":"+U","values":[2,"bb"]}]"#)
        .unwrap();
    writer.commit(2, true).unwrap();
    writer.close().unwrap();

    let reader = StockReader::new().unwrap();
    // The release this process loads (PAIMON_PARITY_PAIMON_VERSION, default 1.0.0).
    assert_eq!(
        reader.paimon_version().unwrap(),
        jvm_bridge::jvm::paimon_version()
    );
    let latest = reader.latest_snapshot_id(&dir).unwrap();
    assert_eq!(latest, Some(2));
    let splits = reader.plan_stream(&dir, 1, 2).unwrap();

    assert_eq!(splits.len(), 2, "{splits:#?}");
    let bucket_path = format!("{}/bucket-0", dir.display());
    for (split, snapshot) in splits.iter().zip([1, 2]) {
        let d = &split.split;
        assert_eq!(d.snapshot_id, snapshot);
        assert!(d.partition.is_empty());
        assert_eq!(d.bucket, 0);
        assert_eq!(d.bucket_path, bucket_path);
        assert!(d.is_streaming);
        assert!(d.before_files.is_empty());
        assert!(d.deletion_files.is_empty());
        assert_eq!(d.data_files.len(), 1, "{d:#?}");
        let f = &d.data_files[0];
        assert!(f.file_name.starts_with("changelog-"), "{}", f.file_name);
        assert_eq!(f.row_count, 2);
        assert_eq!(f.level, 0);
        assert_eq!(f.schema_id, 0);
        assert!(f.file_size > 0);
        assert!(!split.payload.is_empty());
    }

    let first = read_all(&reader, &dir, &splits[0]);
    assert_eq!(rows(&first), vec![(0, 1, s("a")), (0, 2, s("b"))]);
    let second = read_all(&reader, &dir, &splits[1]);
    assert_eq!(rows(&second), vec![(3, 1, s("a")), (2, 2, s("bb"))]);

    assert_eq!(reader.open_readers().unwrap(), 0);
    drop(first);
    drop(second);
    assert_eq!(reader.allocated_bytes().unwrap(), 0);

    // A range past the latest snapshot stops on its own; a range that starts after it is empty.
    assert_eq!(reader.plan_stream(&dir, 1, 10).unwrap().len(), 2);
    assert_eq!(reader.plan_stream(&dir, 2, 2).unwrap().len(), 1);
    assert!(reader.plan_stream(&dir, 3, 10).unwrap().is_empty());
}

#[test]
fn java_exceptions_become_errors_and_the_jvm_stays_usable() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let reader = StockReader::new().unwrap();

    let missing = tmp.path().join("no-such-table");
    match reader.plan_stream(&missing, 1, 1) {
        Err(Error::Java {
            class,
            message,
            stack,
        }) => {
            assert!(!class.is_empty());
            assert!(!message.is_empty());
            assert!(stack.contains(&class), "{stack}");
            assert!(stack.contains("\tat "), "{stack}");
        }
        other => panic!("expected a Java exception, got {other:?}"),
    }

    // The next call works: write a table and plan it.
    let dir = tmp.path().join("kv");
    let io = tmp.path().join("io");
    std::fs::create_dir_all(&io).unwrap();
    CorpusWriter::create_table(&dir, KV_SCHEMA).unwrap();
    let writer = CorpusWriter::open(&dir, "stock-test", &io).unwrap();

    // Writer errors come back the same way and leave the writer usable.
    match writer.write(r#"[{"kind":"+I","values":["not an int","a"]}]"#) {
        Err(Error::Java { class, message, .. }) => {
            assert_eq!(class, "java.lang.IllegalArgumentException");
            assert!(message.contains("column 'k'"), "{message}");
        }
        other => panic!("expected a Java exception, got {other:?}"),
    }
    writer
        .write(r#"[{"kind":"+I","values":[7,null]}]"#)
        .unwrap();
    writer.commit(1, true).unwrap();
    drop(writer);

    let splits = reader.plan_stream(&dir, 1, 1).unwrap();
    assert_eq!(splits.len(), 1);
    let batches = read_all(&reader, &dir, &splits[0]);
    assert_eq!(rows(&batches), vec![(0, 7, None)]);

    // A payload that is not a DataSplit is a Java error too, and nothing stays open.
    let mut bogus = splits[0].clone();
    bogus.payload = vec![1, 2, 3];
    assert!(matches!(
        reader.read_split(&dir, &bogus),
        Err(Error::Java { .. })
    ));
    assert_eq!(reader.open_readers().unwrap(), 0);
}

#[test]
fn batches_are_bounded_and_memory_is_released() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("kv");
    let io = tmp.path().join("io");
    std::fs::create_dir_all(&io).unwrap();

    const N: i32 = 10_000;
    CorpusWriter::create_table(&dir, KV_SCHEMA).unwrap();
    let writer = CorpusWriter::open(&dir, "stock-test", &io).unwrap();
    let rows_json: Vec<String> = (0..N)
        .map(|k| format!(r#"{{"kind":"+I","values":[{k},"v{k}"]}}"#))
        .collect();
    writer.write(&format!("[{}]", rows_json.join(","))).unwrap();
    writer.commit(1, true).unwrap();
    writer.close().unwrap();

    let reader = StockReader::new().unwrap();
    let splits = reader.plan_stream(&dir, 1, 1).unwrap();
    assert_eq!(splits.len(), 1);
    assert_eq!(splits[0].split.row_count(), i64::from(N));

    let batches = read_all(&reader, &dir, &splits[0]);
    let sizes: Vec<usize> = batches.iter().map(|b| b.num_rows()).collect();
    assert_eq!(sizes, [4096, 4096, 1808]);
    let expected: Vec<(i8, i32, Option<String>)> =
        (0..N).map(|k| (0, k, Some(format!("v{k}")))).collect();
    assert_eq!(rows(&batches), expected);
    assert_eq!(reader.open_readers().unwrap(), 0);
    assert!(reader.allocated_bytes().unwrap() > 0);

    // Batches can be released on a thread that never touched the JVM.
    std::thread::spawn(move || drop(batches)).join().unwrap();
    assert_eq!(reader.allocated_bytes().unwrap(), 0);

    // Dropping a half-read iterator closes the Java reader; the batch it gave stays valid.
    let mut it: StockBatches = reader.read_split(&dir, &splits[0]).unwrap();
    let first = it.next().unwrap().unwrap();
    assert_eq!(reader.open_readers().unwrap(), 1);
    drop(it);
    assert_eq!(reader.open_readers().unwrap(), 0);
    assert_eq!(
        rows(std::slice::from_ref(&first))[4095],
        (0, 4095, s("v4095"))
    );
    drop(first);
    assert_eq!(reader.allocated_bytes().unwrap(), 0);
}

#[test]
fn handles_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<StockReader>();
    send::<StockBatches>();
    send::<CorpusWriter>();
}

const TYPED_SCHEMA: &str = r#"{
  "fields": [
    {"name": "pt", "type": "STRING NOT NULL"},
    {"name": "k", "type": "INT NOT NULL"},
    {"name": "d", "type": "DECIMAL(10, 2)"},
    {"name": "ts", "type": "TIMESTAMP(6)"},
    {"name": "day", "type": "DATE"},
    {"name": "b", "type": "BYTES"},
    {"name": "f", "type": "DOUBLE"},
    {"name": "ltz", "type": "TIMESTAMP(3) WITH LOCAL TIME ZONE"}
  ],
  "partitionKeys": ["pt"],
  "primaryKeys": ["pt", "k"],
  "options": {"bucket": "1", "changelog-producer": "lookup"}
}"#;

/// The values of one typed row, as written.
#[derive(Clone, Debug, PartialEq)]
struct Typed {
    pt: String,
    k: i32,
    /// Unscaled DECIMAL(10, 2).
    d: Option<i128>,
    /// Micros since the epoch.
    ts: Option<i64>,
    /// Days since the epoch.
    day: Option<i32>,
    b: Option<Vec<u8>>,
    f: Option<f64>,
    /// Millis since the epoch (UTC).
    ltz: Option<i64>,
}

fn typed_rows(batches: &[RecordBatch]) -> Vec<(i8, Typed)> {
    use arrow_array::{
        BinaryArray, Date32Array, Decimal128Array, Float64Array, TimestampMicrosecondArray,
        TimestampMillisecondArray,
    };
    use arrow_schema::TimeUnit;
    let mut out = Vec::new();
    for b in batches {
        let schema = b.schema();
        let types: Vec<DataType> = schema
            .fields()
            .iter()
            .map(|f| f.data_type().clone())
            .collect();
        assert_eq!(
            types,
            vec![
                DataType::Int8,
                DataType::Utf8,
                DataType::Int32,
                DataType::Decimal128(10, 2),
                DataType::Timestamp(TimeUnit::Microsecond, None),
                DataType::Date32,
                DataType::Binary,
                DataType::Float64,
                DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
            ]
        );
        let c = |i: usize| b.column(i).as_any();
        let kind = c(0).downcast_ref::<Int8Array>().unwrap();
        let pt = c(1).downcast_ref::<StringArray>().unwrap();
        let k = c(2).downcast_ref::<Int32Array>().unwrap();
        let d = c(3).downcast_ref::<Decimal128Array>().unwrap();
        let ts = c(4).downcast_ref::<TimestampMicrosecondArray>().unwrap();
        let day = c(5).downcast_ref::<Date32Array>().unwrap();
        let bin = c(6).downcast_ref::<BinaryArray>().unwrap();
        let f = c(7).downcast_ref::<Float64Array>().unwrap();
        let ltz = c(8).downcast_ref::<TimestampMillisecondArray>().unwrap();
        for i in 0..b.num_rows() {
            out.push((
                kind.value(i),
                Typed {
                    pt: pt.value(i).to_owned(),
                    k: k.value(i),
                    d: (!d.is_null(i)).then(|| d.value(i)),
                    ts: (!ts.is_null(i)).then(|| ts.value(i)),
                    day: (!day.is_null(i)).then(|| day.value(i)),
                    b: (!bin.is_null(i)).then(|| bin.value(i).to_vec()),
                    f: (!f.is_null(i)).then(|| f.value(i)),
                    ltz: (!ltz.is_null(i)).then(|| ltz.value(i)),
                },
            ));
        }
    }
    out
}

#[test]
fn typed_values_partitions_and_lookup_changelog() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("typed");
    CorpusWriter::create_table(&dir, TYPED_SCHEMA).unwrap();
    let writer = CorpusWriter::open(&dir, "stock-test", tmp.path()).unwrap();
    writer
        .write(
            r#"[{"kind":"+I","values":["p1",1,"12.30","2024-01-02T03:04:05.123456",19000,"AAEC",1.5,"2024-01-02T03:04:05.123"]},
                {"kind":"+I","values":["p2",2,null,null,null,null,"NaN",null]}]"#,
        )
        .unwrap();
    writer.commit(1, true).unwrap();
    writer
        .write(r#"[{"kind":"+U","values":["p1",1,"1.00","1970-01-01T00:00:01",0,"",2.5,null]}]"#)
        .unwrap();
    writer.compact(r#"["p1"]"#, 0, true).unwrap();
    writer.commit(2, true).unwrap();
    writer.close().unwrap();

    // 2024-01-02T03:04:05Z is 1_704_164_645 s after the epoch.
    let row1 = Typed {
        pt: "p1".to_owned(),
        k: 1,
        d: Some(1230),
        ts: Some(1_704_164_645_123_456),
        day: Some(19000),
        b: Some(vec![0, 1, 2]),
        f: Some(1.5),
        ltz: Some(1_704_164_645_123),
    };
    let row1_after = Typed {
        pt: "p1".to_owned(),
        k: 1,
        d: Some(100),
        ts: Some(1_000_000),
        day: Some(0),
        b: Some(vec![]),
        f: Some(2.5),
        ltz: None,
    };

    // Each commit makes an APPEND snapshot and, since lookup compacts new files, a COMPACT snapshot with the
    // same identifier: snapshots 1 (APPEND), 2 (COMPACT), 3 (APPEND), 4 (COMPACT). The lookup producer's
    // changelog lives in the COMPACT snapshots only.
    let reader = StockReader::new().unwrap();
    assert_eq!(reader.latest_snapshot_id(&dir).unwrap(), Some(4));
    let splits = reader.plan_stream(&dir, 1, 4).unwrap();
    let mut p1 = Vec::new();
    let mut p2 = Vec::new();
    for split in &splits {
        let d = &split.split;
        assert!(d.snapshot_id == 2 || d.snapshot_id == 4, "{d:#?}");
        assert!(d.is_streaming);
        let pt = d.partition.clone();
        assert_eq!(
            d.bucket_path,
            format!(
                "{}/pt={}/bucket-0",
                dir.display(),
                pt[0].as_deref().unwrap()
            )
        );
        let got = typed_rows(&read_all(&reader, &dir, split));
        match pt.as_slice() {
            [Some(p)] if p == "p1" => p1.push((d.snapshot_id, got)),
            [Some(p)] if p == "p2" => p2.push((d.snapshot_id, got)),
            other => panic!("unexpected partition {other:?}"),
        }
    }
    assert_eq!(
        p1,
        vec![
            (2, vec![(0, row1.clone())]),
            (4, vec![(1, row1), (2, row1_after)]),
        ]
    );
    assert_eq!(p2.len(), 1);
    let (snapshot, rows) = &p2[0];
    assert_eq!(*snapshot, 2);
    assert_eq!(rows.len(), 1);
    let (kind, r) = &rows[0];
    assert_eq!(*kind, 0);
    assert!(r.f.is_some_and(f64::is_nan));
    let expected = Typed {
        pt: "p2".to_owned(),
        k: 2,
        d: None,
        ts: None,
        day: None,
        b: None,
        f: None,
        ltz: None,
    };
    assert_eq!(
        Typed {
            f: None,
            ..r.clone()
        },
        expected
    );

    assert_eq!(reader.open_readers().unwrap(), 0);
    assert_eq!(reader.allocated_bytes().unwrap(), 0);
}
