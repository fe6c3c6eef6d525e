//! Splits missing, extra, with a file more or less, another partition or bucket.

use arrow_array::RecordBatch;
use harness::replay::SplitVerdict;

use super::*;

fn two_splits() -> Vec<(native_reader::Split, Vec<RecordBatch>)> {
    vec![
        (split(3, "p1", 2, &["data-a.parquet"]), vec![base()]),
        (split(5, "p2", 0, &["data-b.parquet"]), vec![base()]),
    ]
}

fn assert_planning(
    report: &harness::replay::ReplayReport,
    key: &native_reader::SplitKey,
    verdict: SplitVerdict,
    detail: Option<&str>,
) {
    let text = text(report);
    assert_eq!(report.exit_code(), 1, "{text}");
    let d = differing(report);
    assert_eq!(d.len(), 1, "{text}");
    assert_eq!(&d[0].key, key, "{text}");
    assert_eq!(d[0].verdict, verdict, "{text}");
    assert_eq!(d[0].detail.as_deref(), detail, "{text}");
    let first = report.first_difference.as_ref().unwrap();
    assert_eq!((first.kind, &first.split), ("planning", key));
    assert!(text.contains(&format!("{key}")), "{text}");
    if let Some(detail) = detail {
        assert!(text.contains(detail), "{text}");
    }
}

#[test]
fn missing_split_is_caught() {
    let mut native = two_splits();
    let gone = native.remove(1);
    let report = replay_mem(two_splits(), native, false);
    assert_planning(&report, &gone.0.key(), SplitVerdict::OnlyInStock, None);
    let d = differing(&report);
    assert_eq!(d[0].stock_rows.map(|r| r.total()), Some(5));
    assert!(text(&report).contains("only in stock"));
}

#[test]
fn extra_split_is_caught() {
    let mut native = two_splits();
    let extra = split(7, "p3", 1, &["data-x.parquet"]);
    native.push((extra.clone(), vec![base()]));
    let report = replay_mem(two_splits(), native, false);
    assert_planning(&report, &extra.key(), SplitVerdict::OnlyInNative, None);
    assert_eq!(
        differing(&report)[0].native_rows.map(|r| r.total()),
        Some(5)
    );
}

#[test]
fn split_with_one_file_less_is_caught_naming_the_file() {
    let mut stock = two_splits();
    stock[0].0 = split(3, "p1", 2, &["data-a.parquet", "data-a2.parquet"]);
    let report = replay_mem(stock, two_splits(), false);
    assert_planning(
        &report,
        &two_splits()[0].0.key(),
        SplitVerdict::DiffersPlanning,
        Some(
            "data files differ: data-a2.parquet (level 0, 5 rows) only in stock; \
             stock [data-a.parquet (level 0, 5 rows), data-a2.parquet (level 0, 5 rows)] \
             vs native [data-a.parquet (level 0, 5 rows)]",
        ),
    );
}

#[test]
fn split_with_one_file_more_is_caught_naming_the_file() {
    let mut native = two_splits();
    native[1].0 = split(5, "p2", 0, &["data-b.parquet", "data-z.parquet"]);
    let report = replay_mem(two_splits(), native, false);
    assert_planning(
        &report,
        &two_splits()[1].0.key(),
        SplitVerdict::DiffersPlanning,
        Some(
            "data files differ: data-z.parquet (level 0, 5 rows) only in native; \
             stock [data-b.parquet (level 0, 5 rows)] \
             vs native [data-b.parquet (level 0, 5 rows), data-z.parquet (level 0, 5 rows)]",
        ),
    );
}

#[test]
fn different_partition_value_is_caught_with_both_values() {
    let mut native = two_splits();
    native[0].0.partition = vec![Some("p9".into())];
    let moved = native[0].0.key();
    let report = replay_mem(two_splits(), native, false);
    assert_planning(
        &report,
        &two_splits()[0].0.key(),
        SplitVerdict::DiffersPlanning,
        Some(&format!(
            "partition differs: stock [p1] vs native [p9] (the native reader planned the same files as {moved})"
        )),
    );
}

#[test]
fn different_bucket_is_caught_with_both_values() {
    let mut native = two_splits();
    native[1].0.bucket = 3;
    let moved = native[1].0.key();
    let report = replay_mem(two_splits(), native, false);
    assert_planning(
        &report,
        &two_splits()[1].0.key(),
        SplitVerdict::DiffersPlanning,
        Some(&format!(
            "bucket differs: stock 0 vs native 3 (the native reader planned the same files as {moved})"
        )),
    );
}
