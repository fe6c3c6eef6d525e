//! C11 and `streaming-read-overwrite`: the changes plans of OVERWRITE snapshots.

use super::*;

/// `BinaryRow` of one INT (`BinaryRow.singleColumn`-like, row kind `+I`), serialized with its arity prefix.
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
