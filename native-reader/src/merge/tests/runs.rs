//! Sections and runs: a single run, the lookup merge's pick, and keys only one run holds (the tree's fast
//! path and slices of a run's batch).

use super::*;

#[test]
fn single_run_sections_stream_without_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(dir.path(), kv_fields(&[("v", "INT")]), &["k"], json!({}));
    let rows = vec![
        (0, I, json!([1, 1])),
        (1, D, json!([2, 2])),
        (2, UA, json!([3, 3])),
    ];
    assert_eq!(merge(&t, vec![rows]).unwrap(), ["+I 1 1", "+U 3 3"]);
}

#[test]
fn lookup_merge_keeps_one_record_above_level_0_by_the_rule_of_each_line() {
    use crate::merge::run::LookupPick;
    // Levels of one key's records in merge order (sequence ascending).
    // C18's shape: the old value at level 5, the lookup compaction's aggregate at level 4.
    assert_eq!(LookupPick::Latest.pick(&[5, 4]), Some(1));
    assert_eq!(LookupPick::LowestLevel.pick(&[5, 4]), Some(1));
    // A newer record deeper down (possible with `sequence.field`): 1.0 keeps the latest, 2.0 the lowest
    // level.
    assert_eq!(LookupPick::Latest.pick(&[3, 5]), Some(1));
    assert_eq!(LookupPick::LowestLevel.pick(&[3, 5]), Some(0));
    // Equal levels: 2.0 keeps the first (its comparison is strict).
    assert_eq!(LookupPick::LowestLevel.pick(&[2, 2, 0]), Some(0));
    assert_eq!(LookupPick::Latest.pick(&[2, 2, 0]), Some(1));
    // Level 0 only: nothing to pick, every record is merged.
    assert_eq!(LookupPick::Latest.pick(&[0, 0]), None);
}

/// Keys only one run holds are emitted straight from that run (the tree's fast path), keys two runs hold
/// still merge, across output batches of 2 rows and a run ending in the middle.
#[test]
fn keys_of_one_run_pass_the_tree_and_shared_keys_still_merge() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "BIGINT")]),
        &["k"],
        json!({"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"}),
    );
    let runs = vec![
        vec![
            (0, I, json!([1, 1])),
            (1, I, json!([2, 1])),
            (2, I, json!([3, 1])),
            (3, D, json!([4, 1])),
            (4, I, json!([5, 1])),
            (5, I, json!([6, 1])),
        ],
        vec![
            (10, I, json!([3, 10])),
            (11, I, json!([7, 100])),
            (12, UA, json!([8, 1000])),
        ],
    ];
    // Key 3 is in both runs: summed. Key 4 is a lone -D: dropped. The rest unchanged, kinds kept.
    assert_eq!(
        merge(&t, runs).unwrap(),
        [
            "+I 1 1",
            "+I 2 1",
            "+I 3 11",
            "+I 5 1",
            "+I 6 1",
            "+I 7 100",
            "+U 8 1000"
        ]
    );
}

/// Long stretches of keys only one run holds go out as ranges of that run's batch: cut at `-U`/`-D`
/// records (dropped), at the end of each batch of the run, at a key the other run holds, at a key repeated
/// inside the run, and at the output batch size; the deduplicated rows are the same whatever the output
/// batch size (whole-row copies and per-row gathers alike).
#[test]
fn stretches_of_sole_keys_go_out_as_ranges_with_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "STRING")]),
        &["k"],
        json!({"merge-engine": "deduplicate"}),
    );
    let row = |seq: i64, kind: i8, k: i64, v: &str| (seq, kind, json!([k, v]));
    // Run 0: keys 1..=40 in two batches of 20 (sequence = key); key 5 and key 33 are deletes, key 17 a -U.
    let kind_of = |k: i64| match k {
        5 | 33 => D,
        17 => UB,
        _ => I,
    };
    let run0: Vec<Vec<_>> = vec![
        (1..=20)
            .map(|k| row(k, kind_of(k), k, &format!("a{k}")))
            .collect(),
        (21..=40)
            .map(|k| row(k, kind_of(k), k, &format!("a{k}")))
            .collect(),
    ];
    // Run 1: keys 3, 8, 26 (a +U), 33 (re-inserted), 45 (twice in this run, which no other run holds: as
    // Java's tree takes one record per run and key, two keys of one record each) and 50, later sequences.
    let run1 = vec![vec![
        row(100, UA, 3, "b3"),
        row(102, UA, 8, "b8"),
        row(103, UA, 26, "b26"),
        row(104, I, 33, "b33"),
        row(105, D, 45, "b45-first"),
        row(106, I, 45, "b45-second"),
        row(107, I, 50, "b50"),
    ]];
    // Expected from the records above: the latest record of each key (of 45: the -D alone, dropped, then
    // the +I alone), `-U`/`-D` results dropped.
    let mut expected = Vec::new();
    for k in 1..=40i64 {
        let line = match k {
            3 => "+U 3 b3".to_string(),
            8 => "+U 8 b8".to_string(),
            26 => "+U 26 b26".to_string(),
            33 => "+I 33 b33".to_string(),
            5 | 17 => continue,
            _ => format!("+I {k} a{k}"),
        };
        expected.push(line);
    }
    expected.push("+I 45 b45-second".to_string());
    expected.push("+I 50 b50".to_string());
    for batch_size in [1, 3, 7, 1000] {
        assert_eq!(
            merge_batches(&t, &[run0.clone(), run1.clone()], batch_size).unwrap(),
            expected,
            "batch size {batch_size}"
        );
    }
}

#[test]
fn long_stretches_of_sole_keys_go_out_as_slices_of_their_batch() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "STRING")]),
        &["k"],
        json!({"merge-engine": "deduplicate"}),
    );
    // Run 0: keys 1..=1000, one batch; run 1 updates keys 300 and 900. Keys 1..=299 and 301..=899 are each
    // held by run 0 alone (299 and 599 records, over `SLICE_MIN_ROWS`).
    let run0: TestRows = (1..=1000)
        .map(|k| (k, I, json!([k, format!("a{k}")])))
        .collect();
    let run1: TestRows = vec![
        (2000, UA, json!([300, "b300"])),
        (2001, UA, json!([900, "b900"])),
    ];
    let input = batch(&t, &run0);
    let expected: Vec<String> = (1..=1000)
        .map(|k| match k {
            300 | 900 => format!("+U {k} b{k}"),
            _ => format!("+I {k} a{k}"),
        })
        .collect();
    for batch_size in [100, 4096] {
        assert_eq!(
            merge_batches(&t, &[vec![run0.clone()], vec![run1.clone()]], batch_size).unwrap(),
            expected,
            "batch size {batch_size}"
        );
    }
    // With room for them, the two stretches are their own batches: slices of the input batch's string views.
    let section: Vec<Box<dyn RunSource>> = vec![
        Box::new(MemoryRun(vec![input.clone()].into())),
        Box::new(MemoryRun(vec![batch(&t, &run1)].into())),
    ];
    let mut reader =
        MergeReader::with_sections(&t, "/t/bucket-0", &[], vec![section], 4096, None).unwrap();
    let mut sizes = Vec::new();
    let mut shared = Vec::new();
    let input_views = input.column(3).as_string_view().views().as_ptr_range();
    while let Some(b) = reader.next_batch().unwrap() {
        sizes.push(b.num_rows());
        shared.push(input_views.contains(&b.column(2).as_string_view().views().as_ptr()));
    }
    assert_eq!(sizes, [299, 1, 599, 101]);
    assert_eq!(shared, [true, false, true, false]);
}
