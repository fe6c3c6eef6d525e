//! Replay modes (`stream`, `stream-full`, `latest-full`, `batch`): every committed corpus and every
//! paimon-cpp table replays identically in each mode, and cases C01, C02, C03 and C09 of `shared/cases`,
//! written here with the released writer, read back in batch mode with the values the writes imply.
//!
//! Expected values come from the case text and the writes, never from a reader's output.

mod common;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use harness::reader::{StockTableReader, TableReader};
use harness::replay::{replay, ReplayMode, ReplayOptions, ReplayReport};
use jvm_bridge::CorpusWriter;
use native_reader::scan::ScanMode;

/// The JVM is shared; writers and readers of these tests run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn options(mode: ReplayMode) -> ReplayOptions {
    ReplayOptions {
        progress: false,
        mode,
        ..ReplayOptions::default()
    }
}

const MODES: [ReplayMode; 4] = [
    ReplayMode::Stream,
    ReplayMode::StreamFull,
    ReplayMode::LatestFull,
    ReplayMode::Batch,
];

/// The paimon-cpp tables (read-only; the harness never writes into a table it reads).
fn paimon_cpp_tables() -> Vec<PathBuf> {
    let root = Path::new("/work/shared/external-corpora/paimon-cpp");
    let mut out = Vec::new();
    for format in ["orc", "parquet"] {
        let Ok(dbs) = std::fs::read_dir(root.join(format)) else {
            continue;
        };
        for db in dbs.flatten() {
            for t in std::fs::read_dir(db.path()).into_iter().flatten().flatten() {
                if t.path().join("schema").is_dir() {
                    out.push(t.path());
                }
            }
        }
    }
    out.sort();
    out
}

/// Replays `table` in `mode`; a table the released reader cannot read must fail with the Java message,
/// and the command line must then exit 2 with that message.
fn assert_replays_identically(table: &Path, mode: ReplayMode, stock: &StockTableReader) {
    let native = common::native();
    match replay(table, stock, &native, &options(mode)) {
        Ok(report) => {
            assert_eq!(
                report.verdict,
                "identical",
                "{} in {mode:?}: {}",
                table.display(),
                harness::report::summary_line(&report)
            );
            eprintln!(
                "{} {mode:?}: {}",
                table.display(),
                harness::report::summary_line(&report)
            );
        }
        Err(harness::Error::Stock(jvm_bridge::Error::Java { .. })) => {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_paimon-parity"))
                .args(["replay", table.to_str().unwrap(), "--mode", mode_arg(mode)])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{stderr}");
            assert!(stderr.contains("stock reader"), "{stderr}");
        }
        Err(e) => panic!("{} in {mode:?}: {e}", table.display()),
    }
}

fn mode_arg(mode: ReplayMode) -> &'static str {
    match mode {
        ReplayMode::Stream => "stream",
        ReplayMode::StreamFull => "stream-full",
        ReplayMode::LatestFull => "latest-full",
        ReplayMode::Batch => "batch",
    }
}

#[test]
fn every_corpus_and_paimon_cpp_table_replays_identically_in_every_mode() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    let mut tables: Vec<PathBuf> = common::corpora().iter().map(|c| c.join("table")).collect();
    tables.extend(paimon_cpp_tables());
    assert!(!tables.is_empty());
    for table in &tables {
        for mode in MODES {
            assert_replays_identically(table, mode, &stock);
        }
    }
}

#[test]
fn batch_time_travel_replays_every_snapshot_identically() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let mut tables: Vec<PathBuf> = common::corpora().iter().map(|c| c.join("table")).collect();
    tables.extend(paimon_cpp_tables());
    for table in &tables {
        let meta = native_reader::Table::open(table).unwrap();
        let (Some(first), Some(last)) = (
            meta.earliest_snapshot_id().unwrap(),
            meta.latest_snapshot_id().unwrap(),
        ) else {
            continue;
        };
        for id in first..=last {
            let opts = ReplayOptions {
                snapshot: Some(id),
                ..options(ReplayMode::Batch)
            };
            let report = replay(table, &stock, &native, &opts).unwrap();
            // A snapshot whose batch plan is empty on both sides (e.g. every row deleted) compares nothing:
            // its own verdict, and still agreement of the two planners.
            assert!(
                matches!(report.verdict, "identical" | "nothing-compared"),
                "{} snapshot {id}: {}",
                table.display(),
                harness::report::summary_line(&report)
            );
        }
        // Outside [earliest, latest]: both readers refuse.
        assert!(native
            .plan(
                table,
                ScanMode::Batch {
                    snapshot: Some(last + 1)
                },
                last
            )
            .is_err());
        assert!(stock
            .plan(
                table,
                ScanMode::Batch {
                    snapshot: Some(last + 1)
                },
                last
            )
            .is_err());
    }
}

// ---------------------------------------------------------------------------------------------------
// Cases written with the released writer
// ---------------------------------------------------------------------------------------------------

/// A table in a temporary directory and a directory for the writers' IOManager.
struct Scratch {
    _dir: tempfile::TempDir,
    table: PathBuf,
    io: PathBuf,
}

fn scratch(schema: &str) -> Scratch {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t");
    let io = dir.path().join("io");
    std::fs::create_dir_all(&io).unwrap();
    CorpusWriter::create_table(&table, schema).unwrap();
    let table = std::fs::canonicalize(&table).unwrap();
    Scratch {
        _dir: dir,
        table,
        io,
    }
}

/// Every row of a batch read of the latest snapshot by `reader`, rendered (`+I (1, 'a')`), sorted.
fn batch_rows(reader: &dyn TableReader, table: &Path) -> Vec<String> {
    let splits = reader
        .plan(table, ScanMode::Batch { snapshot: None }, i64::MAX)
        .unwrap();
    let mut rows = Vec::new();
    for split in &splits {
        for batch in reader.read_split(table, split).unwrap() {
            let batch = batch.unwrap();
            for r in 0..batch.num_rows() {
                rows.push(harness::diff::render_row(&batch, r));
            }
        }
    }
    rows.sort();
    rows
}

/// Parity in every mode, then the batch rows of both readers.
fn check(table: &Path, stock: &StockTableReader) -> (Vec<String>, Vec<String>) {
    for mode in MODES {
        assert_replays_identically(table, mode, stock);
    }
    let native = common::native();
    (batch_rows(stock, table), batch_rows(&native, table))
}

fn report_of(table: &Path, stock: &StockTableReader, mode: ReplayMode) -> ReplayReport {
    replay(table, stock, &common::native(), &options(mode)).unwrap()
}

fn sorted(rows: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = rows.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// C01: the key is compared in declared key order (order_no, customer), not column order.
#[test]
fn c01_composite_key_in_declared_order() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    let s = scratch(
        r#"{"fields":[{"name":"customer","type":"BIGINT NOT NULL"},{"name":"order_no","type":"BIGINT NOT NULL"},
            {"name":"amount","type":"BIGINT"}],
            "partitionKeys":[],"primaryKeys":["order_no","customer"],"options":{"bucket":"1"}}"#,
    );
    let w = CorpusWriter::open(&s.table, "c01", &s.io).unwrap();
    w.write(
        r#"[{"kind":"+I","values":[1,101,5]},{"kind":"+I","values":[1,102,6]},
            {"kind":"+I","values":[2,103,7]},{"kind":"+I","values":[2,104,8]}]"#,
    )
    .unwrap();
    w.commit(1, true).unwrap();
    w.write(r#"[{"kind":"+U","values":[1,102,60]}]"#).unwrap();
    w.commit(2, true).unwrap();
    w.close().unwrap();

    let (stock_rows, native_rows) = check(&s.table, &stock);
    // Four rows; order 102 has amount 60 and keeps the +U kind of its last write.
    let expected = sorted(&[
        "+I (1, 101, 5)",
        "+U (1, 102, 60)",
        "+I (2, 103, 7)",
        "+I (2, 104, 8)",
    ]);
    assert_eq!(stock_rows, expected);
    assert_eq!(native_rows, expected);
    // The batch split merges two overlapping files.
    let report = report_of(&s.table, &stock, ReplayMode::Batch);
    assert_eq!(report.totals.splits, 1);
    assert_eq!(report.totals.files, 2);
}

/// C02: overlapping files of a primary-key table are merged, never unioned.
#[test]
fn c02_overlapping_files_are_merged() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    let s = scratch(
        r#"{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"val","type":"STRING"}],
            "partitionKeys":[],"primaryKeys":["id"],"options":{"bucket":"1","file.format":"parquet"}}"#,
    );
    let w = CorpusWriter::open(&s.table, "c02", &s.io).unwrap();
    w.write(r#"[{"kind":"+I","values":[1,"old"]},{"kind":"+I","values":[2,"two"]}]"#)
        .unwrap();
    w.commit(1, false).unwrap();
    w.write(r#"[{"kind":"+I","values":[1,"new"]}]"#).unwrap();
    w.commit(2, false).unwrap();
    w.close().unwrap();

    let (stock_rows, native_rows) = check(&s.table, &stock);
    let expected = sorted(&["+I (1, \"new\")", "+I (2, \"two\")"]);
    assert_eq!(stock_rows, expected);
    assert_eq!(native_rows, expected);
}

/// C03: two commit users write the same key with equal sequence numbers (both writers open their bucket
/// before either commits). Both readers agree before and after a full compaction.
#[test]
fn c03_two_writers_equal_sequence() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    let s = scratch(
        r#"{"fields":[{"name":"c1","type":"INT NOT NULL"},{"name":"c2","type":"INT"}],
            "partitionKeys":[],"primaryKeys":["c1"],"options":{"bucket":"1"}}"#,
    );
    let a = CorpusWriter::open(&s.table, "user-a", &s.io).unwrap();
    let b = CorpusWriter::open(&s.table, "user-b", &s.io).unwrap();
    a.write(r#"[{"kind":"+I","values":[1,8]}]"#).unwrap();
    b.write(r#"[{"kind":"+I","values":[1,9]}]"#).unwrap();
    a.commit(1, false).unwrap();
    b.commit(1, false).unwrap();
    a.close().unwrap();
    b.close().unwrap();

    // Both files hold key 1 with the same sequence number.
    let native = common::native();
    let splits = native
        .plan(&s.table, ScanMode::Batch { snapshot: None }, i64::MAX)
        .unwrap();
    let files: Vec<_> = splits
        .iter()
        .flat_map(|p| p.split.data_files.clone())
        .collect();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0].min_sequence_number, files[1].min_sequence_number);

    let (before_stock, before_native) = check(&s.table, &stock);
    assert_eq!(before_native, before_stock);
    // Released 1.0.0 returns 8 here: its loser tree lets the record of the first-committed file win
    // the tie (later releases changed the tie-break and return 9).
    assert_eq!(before_stock, vec!["+I (1, 8)".to_string()]);

    let c = CorpusWriter::open(&s.table, "user-c", &s.io).unwrap();
    c.compact("[]", 0, true).unwrap();
    c.commit(1, true).unwrap();
    c.close().unwrap();
    let (after_stock, after_native) = check(&s.table, &stock);
    assert_eq!(after_native, after_stock);
    // After the full compaction one file holds whichever record the compaction's merge let win: its
    // level-0 files are ordered by max sequence, then by file name (a random UUID) when the sequences
    // are equal (`Levels`), so 1.0.x keeps 8 or 9 from run to run. Both readers see the same file.
    assert!(
        after_stock == ["+I (1, 8)"] || after_stock == ["+I (1, 9)"],
        "{after_stock:?}"
    );
}

/// C09: aggregation (`sum`) values exist only after merging; the partial-update twin keeps the last
/// non-null value.
#[test]
fn c09_aggregation_and_partial_update_merge() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    for (engine, extra, expected) in [
        (
            "aggregation",
            r#","fields.v.aggregate-function":"sum""#,
            ["+I (1, 3, 1)", "+I (2, 1, 1)"],
        ),
        ("partial-update", "", ["+I (1, 2, 1)", "+I (2, 1, 1)"]),
    ] {
        let s = scratch(&format!(
            r#"{{"fields":[{{"name":"k","type":"INT NOT NULL"}},{{"name":"v","type":"INT"}},{{"name":"d","type":"INT NOT NULL"}}],
                "partitionKeys":["d"],"primaryKeys":["k","d"],
                "options":{{"bucket":"1","merge-engine":"{engine}"{extra}}}}}"#
        ));
        let w = CorpusWriter::open(&s.table, "c09", &s.io).unwrap();
        w.write(r#"[{"kind":"+I","values":[1,1,1]},{"kind":"+I","values":[2,1,1]}]"#)
            .unwrap();
        w.commit(1, false).unwrap();
        w.write(r#"[{"kind":"+I","values":[1,2,1]}]"#).unwrap();
        w.commit(2, false).unwrap();
        w.close().unwrap();

        let (stock_rows, native_rows) = check(&s.table, &stock);
        assert_eq!(stock_rows, sorted(&expected), "{engine}");
        assert_eq!(native_rows, sorted(&expected), "{engine}");
    }
}

/// `BinaryRow` of one INT (`BinaryRow.singleColumn`-like, row kind `+I`), serialized with its arity prefix.
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

fn int_key_row(k: i32) -> Vec<u8> {
    let mut row = 1i32.to_be_bytes().to_vec();
    row.extend_from_slice(&[0u8; 8]); // header (row kind +I) and null bits
    row.extend_from_slice(&(k as i64).to_le_bytes()); // the fixed-length slot
    row
}

/// C11: with `streaming-read-overwrite=true`, the stream reads the OVERWRITE snapshot 3 of
/// `c11-streaming-read-overwrite` as a changes plan. Expected from the writes: before the overwrite,
/// partition `a` holds 1→a1, 2→a2-u (an +U), 3→a3, 4→a4; the overwrite writes 1→a1, 2→a2-o, 4→a4, 5→a5-o.
/// Java (`IncrementalChangelogReadProvider`) reads per (partition, bucket) the merged before-files with
/// every row turned into -D (`ReverseReader`), then the merged new files: no diff, so the identical keys 1 and
/// 4 come out as -D and +I too. Buckets: `abs(hash(trimmed key row) % 2)` (`KeyAndBucketExtractor`).
#[test]
fn c11_streaming_read_overwrite_changes_plan() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let table = common::corpus("c11-streaming-read-overwrite").join("table");
    let table = std::fs::canonicalize(table).unwrap();

    let bucket = |k: i32| (native_reader::scan::binary_row_hash(&int_key_row(k)) % 2).abs();
    let before = [(1, "a1"), (2, "a2-u"), (3, "a3"), (4, "a4")];
    let after = [(1, "a1"), (2, "a2-o"), (4, "a4"), (5, "a5-o")];
    // Buckets in Java `HashSet<Integer>` order (ascending for small buckets), each side in key order.
    let mut expected: Vec<(i32, Vec<String>)> = Vec::new();
    for b in 0..2 {
        let mut rows: Vec<String> = before
            .iter()
            .filter(|(k, _)| bucket(*k) == b)
            .map(|(k, v)| format!("-D (\"a\", {k}, \"{v}\")"))
            .collect();
        rows.extend(
            after
                .iter()
                .filter(|(k, _)| bucket(*k) == b)
                .map(|(k, v)| format!("+I (\"a\", {k}, \"{v}\")")),
        );
        if !rows.is_empty() {
            expected.push((b, rows));
        }
    }
    assert!(!expected.is_empty());

    for reader in [&stock as &dyn TableReader, &native] {
        let splits = reader
            .plan(&table, ScanMode::Stream { from_snapshot: 1 }, 4)
            .unwrap();
        let overwrite: Vec<_> = splits.iter().filter(|p| p.split.snapshot_id == 3).collect();
        let mut got: Vec<(i32, Vec<String>)> = Vec::new();
        for p in &overwrite {
            assert_eq!(p.split.partition, vec![Some("a".to_string())]);
            assert!(p.split.is_streaming);
            assert!(
                !p.split.before_files.is_empty(),
                "{:?}: every bucket of partition a had files before",
                reader.side()
            );
            let mut rows = Vec::new();
            for batch in reader.read_split(&table, p).unwrap() {
                let batch = batch.unwrap();
                for r in 0..batch.num_rows() {
                    rows.push(harness::diff::render_row(&batch, r));
                }
            }
            got.push((p.split.bucket, rows));
        }
        assert_eq!(got, expected, "{:?}", reader.side());
        // Nothing of partition b is in the overwrite snapshot, and the last commit is read as a delta.
        assert!(splits
            .iter()
            .filter(|p| p.split.snapshot_id == 4)
            .all(|p| p.split.before_files.is_empty()));
    }
    assert_eq!(
        report_of(&table, &stock, ReplayMode::Stream).verdict,
        "identical"
    );
}

/// Changes plans of an overwrite spanning 16 partitions of 3 buckets: both readers plan the same splits in
/// the same order (Java iterates a `HashMap<BinaryRow, HashSet<Integer>>` filled with `computeIfAbsent`,
/// resized once), with buckets only on the after side (new partitions), only on the before side and on
/// both, and read them identically in every mode.
#[test]
fn streaming_read_overwrite_of_many_partitions_plans_in_java_order() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let s = scratch(
        r#"{"fields":[{"name":"p","type":"INT NOT NULL"},{"name":"k","type":"INT NOT NULL"},{"name":"v","type":"STRING"}],
            "partitionKeys":["p"],"primaryKeys":["p","k"],
            "options":{"bucket":"3","streaming-read-overwrite":"true","file.format":"orc"}}"#,
    );
    let rows = |ps: std::ops::Range<i32>, tag: &str| -> String {
        let mut out = Vec::new();
        for p in ps {
            for k in 0..6 {
                if (p + k) % 4 != 0 {
                    out.push(format!(
                        r#"{{"kind":"+I","values":[{p},{k},"{tag}{p}-{k}"]}}"#
                    ));
                }
            }
        }
        format!("[{}]", out.join(","))
    };
    let w = CorpusWriter::open(&s.table, "stream", &s.io).unwrap();
    w.write(&rows(0..14, "v")).unwrap();
    w.commit(1, true).unwrap();
    w.close().unwrap();
    // Partitions 4..14 are rewritten (5 with its values unchanged), 14..20 are new. With
    // `dynamic-partition-overwrite=true` (the default) partitions 0..4, which no row touches, stay.
    let tagged = rows(4..20, "o").replace("\"o5-", "\"v5-");
    let options = std::collections::BTreeMap::new();
    jvm_bridge::corpus::overwrite(&s.table, "batch", &s.io, &options, None, &tagged).unwrap();
    let plan = |reader: &dyn TableReader| {
        reader
            .plan(&s.table, ScanMode::Stream { from_snapshot: 1 }, 2)
            .unwrap()
            .into_iter()
            .filter(|p| p.split.snapshot_id == 2)
            .map(|p| {
                (
                    p.split.key(),
                    p.split.before_files.len(),
                    p.split.data_files.len(),
                )
            })
            .collect::<Vec<_>>()
    };
    let (stock_plan, native_plan) = (plan(&stock), plan(&native));
    assert!(stock_plan.len() > 16, "{stock_plan:?}");
    assert_eq!(native_plan, stock_plan);
    assert!(stock_plan.iter().any(|(_, b, d)| *b == 0 && *d > 0));
    assert!(stock_plan.iter().any(|(_, b, d)| *b > 0 && *d > 0));
    for mode in MODES {
        assert_replays_identically(&s.table, mode, &stock);
    }
}

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

/// A changes plan of a table with deletion vectors: the before-files carry the deletion vectors of the
/// snapshot before the overwrite (`DataSplit.beforeDeletionFiles()`), and both readers apply them. Expected
/// from the writes: before the overwrite the table holds 1→10, 2→21 (updated), 3 deleted, 4→40; the
/// overwrite writes 1→10, 2→22, 5→50.
#[test]
fn streaming_read_overwrite_with_deletion_vectors() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let s = scratch(
        r#"{"fields":[{"name":"k","type":"INT NOT NULL"},{"name":"v","type":"INT"}],
            "partitionKeys":[],"primaryKeys":["k"],
            "options":{"bucket":"1","streaming-read-overwrite":"true","deletion-vectors.enabled":"true"}}"#,
    );
    let w = CorpusWriter::open(&s.table, "stream", &s.io).unwrap();
    w.write(
        r#"[{"kind":"+I","values":[1,10]},{"kind":"+I","values":[2,20]},
            {"kind":"+I","values":[3,30]},{"kind":"+I","values":[4,40]}]"#,
    )
    .unwrap();
    w.commit(1, true).unwrap();
    w.write(r#"[{"kind":"+U","values":[2,21]},{"kind":"-D","values":[3,30]}]"#)
        .unwrap();
    w.commit(2, true).unwrap();
    w.close().unwrap();
    let options = std::collections::BTreeMap::new();
    jvm_bridge::corpus::overwrite(
        &s.table,
        "batch",
        &s.io,
        &options,
        None,
        r#"[{"kind":"+I","values":[1,10]},{"kind":"+I","values":[2,22]},{"kind":"+I","values":[5,50]}]"#,
    )
    .unwrap();
    let end = native_reader::Table::open(&s.table)
        .unwrap()
        .latest_snapshot_id()
        .unwrap()
        .unwrap();
    let expected = [
        "-D (1, 10)",
        "-D (2, 21)",
        "-D (4, 40)",
        "+I (1, 10)",
        "+I (2, 22)",
        "+I (5, 50)",
    ];
    for reader in [&stock as &dyn TableReader, &native] {
        let splits = reader
            .plan(&s.table, ScanMode::Stream { from_snapshot: 1 }, end)
            .unwrap();
        let changes: Vec<_> = splits
            .iter()
            .filter(|p| !p.split.before_files.is_empty())
            .collect();
        assert_eq!(changes.len(), 1, "{:?}", reader.side());
        assert!(
            changes[0]
                .split
                .before_deletion_files
                .iter()
                .any(Option::is_some),
            "{:?}: {:?}",
            reader.side(),
            changes[0].split
        );
        let mut rows = Vec::new();
        for batch in reader.read_split(&s.table, changes[0]).unwrap() {
            let batch = batch.unwrap();
            for r in 0..batch.num_rows() {
                rows.push(harness::diff::render_row(&batch, r));
            }
        }
        assert_eq!(rows, expected, "{:?}", reader.side());
    }
    for mode in MODES {
        assert_replays_identically(&s.table, mode, &stock);
    }
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
