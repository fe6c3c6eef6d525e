//! `StockReader::plan` in every scan mode, on a table written here with the released writer.
//!
//! Expected values come from what the test writes. Needs the Java side (`scripts/build-java`).

use jvm_bridge::{CorpusWriter, Error, StockReader};
use native_reader::scan::ScanMode;

const SCHEMA: &str = r#"{
  "fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"}],
  "partitionKeys": [],
  "primaryKeys": ["k"],
  "options": {"bucket": "1"}
}"#;

#[test]
fn batch_and_full_plans_of_the_released_scans() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("t");
    let io = tmp.path().join("io");
    std::fs::create_dir_all(&io).unwrap();
    CorpusWriter::create_table(&dir, SCHEMA).unwrap();
    let w = CorpusWriter::open(&dir, "plan-modes", &io).unwrap();
    w.write(r#"[{"kind":"+I","values":[1,"a"]},{"kind":"+I","values":[2,"b"]}]"#)
        .unwrap();
    w.commit(1, false).unwrap();
    w.write(r#"[{"kind":"-D","values":[1,"a"]}]"#).unwrap();
    w.commit(2, false).unwrap();
    w.close().unwrap();
    let dir = std::fs::canonicalize(&dir).unwrap();

    let reader = StockReader::new().unwrap();
    // Batch, latest: two overlapping level-0 files merged in one split, sorted by (min key, max key):
    // the delete of key 1 (keys 1..1) before the first commit's file (keys 1..2).
    let batch = reader
        .plan(&dir, ScanMode::Batch { snapshot: None }, 2)
        .unwrap();
    assert_eq!(batch.len(), 1);
    let s = &batch[0].split;
    assert_eq!(s.snapshot_id, 2);
    assert!(!s.is_streaming && !s.raw_convertible);
    assert_eq!(s.data_files.len(), 2);
    let deletes: Vec<Option<i64>> = s.data_files.iter().map(|f| f.delete_row_count).collect();
    assert_eq!(deletes, [Some(1), Some(0)]);
    // Keys are serialized BinaryRows: 4-byte arity 1, 8 bytes of null bits, one 8-byte slot.
    assert_eq!(s.data_files[0].max_key[12], 1);
    let f = &s.data_files[1];
    assert_eq!(f.min_key.len(), 20);
    assert_eq!(&f.min_key[..4], &[0, 0, 0, 1]);
    assert_eq!(f.min_key[12], 1);
    assert_eq!(f.max_key[12], 2);

    // Time travel to snapshot 1: one file, raw-convertible.
    let first = reader
        .plan(&dir, ScanMode::Batch { snapshot: Some(1) }, 2)
        .unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].split.snapshot_id, 1);
    assert!(first[0].split.raw_convertible);
    match reader.plan(&dir, ScanMode::Batch { snapshot: Some(3) }, 2) {
        Err(Error::Java { message, .. }) => {
            assert!(
                message.contains("out of available snapshotId range"),
                "{message}"
            )
        }
        other => panic!("expected a Java error, got {other:?}"),
    }

    // from-snapshot-full 1: the full plan of snapshot 1 (a batch split), then snapshot 2's delta.
    let full = reader
        .plan(&dir, ScanMode::StreamFull { from_snapshot: 1 }, 2)
        .unwrap();
    let shape: Vec<(i64, bool, usize)> = full
        .iter()
        .map(|p| {
            (
                p.split.snapshot_id,
                p.split.is_streaming,
                p.split.data_files.len(),
            )
        })
        .collect();
    assert_eq!(shape, [(1, false, 1), (2, true, 1)]);
    // latest-full: the full plan of snapshot 2 only.
    let latest = reader.plan(&dir, ScanMode::LatestFull, 2).unwrap();
    let shape: Vec<(i64, bool, usize)> = latest
        .iter()
        .map(|p| {
            (
                p.split.snapshot_id,
                p.split.is_streaming,
                p.split.data_files.len(),
            )
        })
        .collect();
    assert_eq!(shape, [(2, false, 2)]);
    // stream: the same as plan_stream.
    let stream = reader
        .plan(&dir, ScanMode::Stream { from_snapshot: 1 }, 2)
        .unwrap();
    assert_eq!(stream.len(), 2);
    assert!(stream.iter().all(|p| p.split.is_streaming));

    // Every split the stock side planned reads back (rows of the merged batch split: key 2 only).
    let rows: usize = reader
        .read_split(&dir, &batch[0])
        .unwrap()
        .map(|b| b.unwrap().num_rows())
        .sum();
    assert_eq!(rows, 1);
}
