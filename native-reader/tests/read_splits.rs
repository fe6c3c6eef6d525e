//! Parallel split reads keep the plan's order: `read::read_splits` over the streaming plan of the committed
//! `lookup-partitioned` corpus (98 splits) hands out every split, and every row of it, exactly as the
//! released Java reader returned them when the corpus was written (`case.json`,
//! `expected.stream_from_snapshot_1.per_split`: split keys, RowKind counts and the rows rendered in order).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int8Type};
use native_reader::read::{read_splits, ReadOptions};
use native_reader::{Error, Table};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora")
        .join(name)
}

/// The released reader's streaming splits: (snapshot, partition, bucket, [(row kind, k)] in order).
type Expected = Vec<(i64, Vec<Option<String>>, i32, Vec<(String, i32)>)>;

fn expected_stream(name: &str) -> Expected {
    let case: serde_json::Value =
        serde_json::from_slice(&std::fs::read(corpus(name).join("case.json")).unwrap()).unwrap();
    let per_split = case["expected"]["stream_from_snapshot_1"]["per_split"]
        .as_array()
        .unwrap();
    per_split
        .iter()
        .map(|s| {
            let partition = s["partition"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect();
            // `+I ("p0", 5, 1612412, "paimon-parity-corpus-c1-k5")`: the kind, then k (second field).
            let rows = s["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| {
                    let v = v.as_str().unwrap();
                    let (kind, fields) = v.split_once(' ').unwrap();
                    let k = fields.split(", ").nth(1).unwrap().parse().unwrap();
                    (kind.to_string(), k)
                })
                .collect();
            (
                s["snapshot_id"].as_i64().unwrap(),
                partition,
                s["bucket"].as_i64().unwrap() as i32,
                rows,
            )
        })
        .collect()
}

const KINDS: [&str; 4] = ["+I", "-U", "+U", "-D"];

/// Every row of a split as (RowKind, k), in the order the reader returned them.
fn rows_of(
    read: impl Iterator<Item = Result<arrow_array::RecordBatch, Error>>,
) -> Vec<(String, i32)> {
    let mut rows = Vec::new();
    for batch in read {
        let batch = batch.unwrap();
        let kinds = batch.column(0).as_primitive::<Int8Type>();
        let k = batch.column(2).as_primitive::<Int32Type>();
        for r in 0..batch.num_rows() {
            rows.push((KINDS[kinds.value(r) as usize].to_string(), k.value(r)));
        }
    }
    rows
}

#[test]
fn parallel_reads_hand_out_splits_and_rows_in_plan_order() {
    let name = "lookup-partitioned";
    let expected = expected_stream(name);
    let table = Arc::new(Table::open(&corpus(name).join("table")).unwrap());
    let end = table.latest_snapshot_id().unwrap().unwrap();
    let splits = table.plan_stream(1, end).unwrap();
    assert_eq!(splits.len(), expected.len(), "splits planned");

    // Batches of one row and more threads than cores: the most interleaving the pool can produce.
    for threads in [1, 3, 8] {
        let options = ReadOptions {
            threads,
            in_flight: 2 * threads,
            batch_size: 1,
            buffer_bytes: 1,
            decode_ahead: true,
        };
        let reads = read_splits(table.clone(), splits.clone(), options).unwrap();
        let mut seen = 0;
        for (i, read) in reads.enumerate() {
            assert_eq!(read.index, i, "{threads} threads: split order");
            let (snapshot, partition, bucket, rows) = &expected[i];
            let split = &splits[i];
            assert_eq!(
                (split.snapshot_id, &split.partition, split.bucket),
                (*snapshot, partition, *bucket),
                "split {i}"
            );
            assert_eq!(&rows_of(read), rows, "{threads} threads: rows of split {i}");
            seen += 1;
        }
        assert_eq!(seen, expected.len(), "{threads} threads: every split");
    }
    // Each split decoded ahead inside itself (the column halves of a single file, the next file of a split
    // of several), as `read_splits` does for the last splits of a plan: the same rows in the same order.
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap(),
    );
    for batch_size in [1, 4096] {
        for (i, split) in splits.iter().enumerate() {
            let read = native_reader::merge::read_split_with(
                &table,
                split,
                batch_size,
                Some(pool.clone()),
            )
            .unwrap();
            assert_eq!(rows_of(read), expected[i].3, "split {i} decoded ahead");
        }
    }
}

#[test]
fn a_broken_split_is_an_error_naming_its_file_and_the_others_still_read() {
    let name = "lookup-partitioned";
    let expected = expected_stream(name);
    let table = Arc::new(Table::open(&corpus(name).join("table")).unwrap());
    let end = table.latest_snapshot_id().unwrap().unwrap();
    let mut splits = table.plan_stream(1, end).unwrap();
    splits[1].data_files[0].file_name = "data-missing-0.parquet".into();
    // The last split is decoded ahead inside itself (the tail of the plan): its error comes out the same way.
    let last = splits.len() - 1;
    splits[last].data_files[0].file_name = "data-missing-1.parquet".into();
    let options = ReadOptions {
        threads: 2,
        in_flight: 4,
        batch_size: 4096,
        buffer_bytes: 1,
        decode_ahead: true,
    };
    let mut rows = Vec::new();
    for read in read_splits(table, splits, options).unwrap() {
        let index = read.index;
        let mut n = 0;
        let mut error = None;
        for batch in read {
            match batch {
                Ok(b) => n += b.num_rows(),
                Err(e) => error = Some(e),
            }
        }
        if index == 1 || index == last {
            let e = error.expect("the split with a missing file fails");
            assert!(matches!(e, Error::Io { .. }), "{e}");
            let file = if index == 1 {
                "data-missing-0.parquet"
            } else {
                "data-missing-1.parquet"
            };
            assert!(e.to_string().contains(file), "{e}");
        } else {
            assert!(error.is_none(), "split {index}: {error:?}");
            rows.push(n);
        }
    }
    let mut want: Vec<usize> = expected.iter().map(|s| s.3.len()).collect();
    want.remove(last);
    want.remove(1);
    assert_eq!(rows, want);
}

#[test]
fn dropping_the_reads_early_stops_the_workers() {
    let table = Arc::new(Table::open(&corpus("lookup-partitioned").join("table")).unwrap());
    let end = table.latest_snapshot_id().unwrap().unwrap();
    let splits = table.plan_stream(1, end).unwrap();
    let options = ReadOptions {
        threads: 2,
        in_flight: 4,
        batch_size: 1,
        buffer_bytes: 1,
        decode_ahead: true,
    };
    let mut reads = read_splits(table.clone(), splits, options).unwrap();
    let mut first = reads.next().unwrap();
    assert!(first.next().unwrap().is_ok());
    // The second split's worker is now blocked on its full channel. Once the receivers are gone, every
    // worker's next send fails and it returns, releasing its handle on the table.
    assert!(Arc::strong_count(&table) > 1);
    drop(first);
    drop(reads);
    let started = std::time::Instant::now();
    while Arc::strong_count(&table) > 1 {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "workers still hold the table 30 s after the reads were dropped"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Reading the splits out of plan order (all handed out first, then read last to first) with a budget of one
/// byte must neither deadlock nor mix rows: each split still gives the rows the released reader returned.
#[test]
fn splits_read_out_of_order_with_a_tiny_budget_still_finish() {
    let name = "lookup-partitioned";
    let expected = expected_stream(name);
    let table = Arc::new(Table::open(&corpus(name).join("table")).unwrap());
    let end = table.latest_snapshot_id().unwrap().unwrap();
    let splits = table.plan_stream(1, end).unwrap();
    let options = ReadOptions {
        threads: 2,
        in_flight: 4,
        batch_size: 1,
        buffer_bytes: 1,
        decode_ahead: true,
    };
    let mut reads: Vec<_> = read_splits(table, splits, options).unwrap().collect();
    assert_eq!(reads.len(), expected.len());
    while let Some(read) = reads.pop() {
        let i = read.index;
        assert_eq!(rows_of(read), expected[i].3, "rows of split {i}");
    }
}

/// Rows of `(pt STRING, k INT, v1 BIGINT, v2 STRING)` batches rendered as the corpus writer renders the
/// released reader's rows: `+I ("p0", 10, 1662246, "writer-a-c1-k10")`.
fn render_rows(
    batches: impl Iterator<Item = Result<arrow_array::RecordBatch, Error>>,
) -> Vec<String> {
    use arrow_array::types::Int64Type;
    use arrow_array::Array;
    let mut out = Vec::new();
    for batch in batches {
        let batch = batch.unwrap();
        let kinds = batch.column(0).as_primitive::<Int8Type>();
        let pt = batch.column(1).as_string_view();
        let k = batch.column(2).as_primitive::<Int32Type>();
        let v1 = batch.column(3).as_primitive::<Int64Type>();
        let v2 = batch.column(4).as_string_view();
        for r in 0..batch.num_rows() {
            let v1 = if v1.is_null(r) {
                "NULL".to_string()
            } else {
                v1.value(r).to_string()
            };
            let v2 = if v2.is_null(r) {
                "NULL".to_string()
            } else {
                format!("{:?}", v2.value(r))
            };
            out.push(format!(
                "{} ({:?}, {}, {v1}, {v2})",
                KINDS[kinds.value(r) as usize],
                pt.value(r),
                k.value(r)
            ));
        }
    }
    out
}

/// Decoding ahead inside a split (sorted runs of a merge section on the pool, the next file of a split, the
/// column halves of a single-file split) returns the rows the released reader returned for the batch
/// scan of the latest snapshot of `two-writers-lookup` (16 splits of merge-on-read and raw reads,
/// `expected.batch_latest.values`, sorted as the corpus stores them), on one thread and on several, with
/// batches of one row and more.
#[test]
fn decoding_ahead_inside_splits_returns_the_released_readers_batch_rows() {
    let name = "two-writers-lookup";
    let case: serde_json::Value =
        serde_json::from_slice(&std::fs::read(corpus(name).join("case.json")).unwrap()).unwrap();
    let expected = &case["expected"]["batch_latest"];
    let mut want: Vec<String> = expected["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    want.sort();
    let table = Arc::new(Table::open(&corpus(name).join("table")).unwrap());
    let end = table.latest_snapshot_id().unwrap().unwrap();
    assert_eq!(end, expected["snapshot_id"].as_i64().unwrap());
    let splits = table
        .plan(native_reader::scan::ScanMode::Batch { snapshot: None }, end)
        .unwrap();
    assert_eq!(splits.len() as u64, expected["splits"].as_u64().unwrap());
    let merged = splits
        .iter()
        .filter(|s| {
            native_reader::merge::split_read_kind(true, s, false).unwrap()
                == native_reader::merge::SplitReadKind::Merge
        })
        .count();
    assert!(merged > 0, "the plan has merge-on-read splits");
    for (threads, decode_ahead) in [(1, true), (2, false), (2, true), (3, true)] {
        for batch_size in [1, 7, 4096] {
            let options = ReadOptions {
                threads,
                in_flight: 2 * threads,
                batch_size,
                buffer_bytes: 1,
                decode_ahead,
            };
            let mut got = Vec::new();
            for read in read_splits(table.clone(), splits.clone(), options).unwrap() {
                got.extend(render_rows(read));
            }
            got.sort();
            assert_eq!(
                got, want,
                "{threads} threads, decode ahead {decode_ahead}, batches of {batch_size}"
            );
        }
    }
    // `read_splits` decodes ahead only in the last splits of a plan; every split read that way on its own.
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap(),
    );
    for batch_size in [1, 7, 4096] {
        let mut got = Vec::new();
        for split in &splits {
            got.extend(render_rows(
                native_reader::merge::read_split_with(
                    &table,
                    split,
                    batch_size,
                    Some(pool.clone()),
                )
                .unwrap(),
            ));
        }
        got.sort();
        assert_eq!(
            got, want,
            "each split decoded ahead, batches of {batch_size}"
        );
    }
    // A sorted run whose file is missing fails its merge split with the error naming the file.
    let mut broken = splits
        .iter()
        .find(|s| {
            native_reader::merge::split_read_kind(true, s, false).unwrap()
                == native_reader::merge::SplitReadKind::Merge
        })
        .unwrap()
        .clone();
    let last = broken.data_files.len() - 1;
    broken.data_files[last].file_name = "data-missing-2.parquet".into();
    let error = native_reader::merge::read_split_with(&table, &broken, 7, Some(pool.clone()))
        .and_then(|batches| batches.collect::<Result<Vec<_>, _>>())
        .expect_err("a merge split with a missing file fails");
    assert!(matches!(error, Error::Io { .. }), "{error}");
    assert!(
        error.to_string().contains("data-missing-2.parquet"),
        "{error}"
    );
}
