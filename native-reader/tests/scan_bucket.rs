//! `scan.bucket` (Paimon 2.0), natively: the committed corpus `c48-scan-bucket` (written by Paimon 2.0.0), a
//! partitioned primary-key table with 3 buckets whose last schema sets `scan.bucket=1`. Expected rows are the
//! scenario's own writes (`corpora/c48-scan-bucket/scenario.json`), and the buckets are those the table's
//! manifests record; the released 2.0.0 reader's agreement is checked by the harness's `corpus_parity`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use native_reader::merge::read_split;
use native_reader::scan::ScanMode;
use native_reader::{Error, PaimonRelease, Split, Table};

use crate::common;

fn location() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora/c48-scan-bucket/paimon-2.0.0/table")
}

/// The rows `(k, v)` of `splits` read as `table`'s release, sorted.
fn rows(table: &Arc<Table>, splits: &[Split]) -> Vec<(i32, String)> {
    let mut out = Vec::new();
    for split in splits {
        for batch in read_split(table, split, 4).unwrap() {
            let batch = batch.unwrap();
            let k = batch.column(1).as_primitive::<Int32Type>();
            let v = arrow_cast::cast(batch.column(3), &arrow_schema::DataType::Utf8).unwrap();
            let v = v.as_string::<i32>();
            for i in 0..batch.num_rows() {
                out.push((k.value(i), v.value(i).to_string()));
            }
        }
    }
    out.sort();
    out
}

/// The table's latest rows as the scenario wrote them: four commits of keys 1-16, key 9 deleted last.
fn written() -> Vec<(i32, String)> {
    [
        (1, "v1-2"),
        (2, "v2-4"),
        (3, "v3-2"),
        (4, "v4-3"),
        (5, "v5-2"),
        (6, "v6-1"),
        (7, "v7-3"),
        (8, "v8-2"),
        (10, "v10-4"),
        (11, "v11-1"),
        (12, "v12-1"),
        (13, "v13-3"),
        (14, "v14-3"),
        (15, "v15-3"),
        (16, "v16-3"),
    ]
    .into_iter()
    .map(|(k, v)| (k, v.to_string()))
    .collect()
}

fn buckets(splits: &[Split]) -> BTreeSet<i32> {
    splits.iter().map(|s| s.bucket).collect()
}

#[test]
fn scans_of_2_0_0_plan_only_the_bucket_and_earlier_releases_every_bucket() {
    // 1.4.2 knows no `scan.bucket`: every bucket, every written row.
    let all = Arc::new(Table::open_as(&location(), PaimonRelease::V1_4_2).unwrap());
    let every = all.plan_batch(None).unwrap();
    assert_eq!(buckets(&every), BTreeSet::from([0, 1, 2]));
    assert_eq!(rows(&all, &every), written());

    // 2.0.0: bucket 1 only, in batch and streaming scans alike, with the rows 1.4.2 reads from bucket 1.
    let one = Arc::new(Table::open_as(&location(), PaimonRelease::V2_0_0).unwrap());
    let batch = one.plan_batch(None).unwrap();
    assert_eq!(buckets(&batch), BTreeSet::from([1]));
    let of_bucket_1: Vec<Split> = every.into_iter().filter(|s| s.bucket == 1).collect();
    let expected = rows(&all, &of_bucket_1);
    assert!(!expected.is_empty() && expected.len() < written().len());
    assert_eq!(rows(&one, &batch), expected);
    let latest = one.latest_snapshot_id().unwrap().unwrap();
    for mode in [
        ScanMode::Stream { from_snapshot: 1 },
        ScanMode::StreamFull { from_snapshot: 1 },
        ScanMode::LatestFull,
    ] {
        let splits = native_reader::scan::plan(&one, mode, latest).unwrap();
        assert_eq!(buckets(&splits), BTreeSet::from([1]), "{mode:?}");
    }
}

#[test]
fn a_scan_bucket_that_is_not_an_integer_fails_on_2_0_0_only() {
    let dir =
        std::env::temp_dir().join(format!("paimon-parity-scan-bucket-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    common::copy_dir(&location(), &dir);
    common::edit_latest_schema(&dir, r#""scan.bucket" : "1""#, r#""scan.bucket" : "one""#);

    let one = Table::open_as(&dir, PaimonRelease::V2_0_0).unwrap();
    let err = one.plan_batch(None).unwrap_err();
    assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
    assert!(err.to_string().contains("scan.bucket"), "{err}");
    let all = Table::open_as(&dir, PaimonRelease::V1_4_2).unwrap();
    assert_eq!(
        buckets(&all.plan_batch(None).unwrap()),
        BTreeSet::from([0, 1, 2])
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
