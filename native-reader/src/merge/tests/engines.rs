//! The deduplicate, first-row and partial-update merge engines, and the sequence field.

use crate::error::Error;

use super::*;

#[test]
fn deduplicate_keeps_the_latest_record_and_its_kind() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(dir.path(), kv_fields(&[("v", "INT")]), &["k"], json!({}));
    let runs = vec![
        vec![
            (0, I, json!([1, 10])),
            (1, I, json!([2, 20])),
            (5, I, json!([4, 40])),
        ],
        vec![
            (2, UA, json!([1, 11])),
            (3, D, json!([2, 20])),
            (4, I, json!([3, 30])),
        ],
    ];
    assert_eq!(
        merge(&t, runs.clone()).unwrap(),
        ["+U 1 11", "+I 3 30", "+I 4 40"]
    );
    // ignore-delete: the -D of key 2 is skipped, its +I stays.
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "INT")]),
        &["k"],
        json!({"ignore-delete": "true"}),
    );
    assert_eq!(
        merge(&t, runs).unwrap(),
        ["+U 1 11", "+I 2 20", "+I 3 30", "+I 4 40"]
    );
}

#[test]
fn a_key_seen_once_is_emitted_unchanged_and_deletes_are_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "BIGINT")]),
        &["k"],
        json!({"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"}),
    );
    let runs = vec![
        vec![(0, UA, json!([1, 5])), (1, D, json!([2, 7]))],
        vec![(2, I, json!([3, 1]))],
    ];
    assert_eq!(merge(&t, runs).unwrap(), ["+U 1 5", "+I 3 1"]);
}

#[test]
fn sequence_field_orders_records_before_the_sequence_number() {
    for (order, expected) in [("ascending", "+I 1 1 5"), ("descending", "+I 1 2 3")] {
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            kv_fields(&[("v", "INT"), ("ts", "INT")]),
            &["k"],
            json!({"sequence.field": "ts", "sequence.field.sort-order": order}),
        );
        let runs = vec![
            vec![(0, I, json!([1, 1, 5]))],
            vec![(1, I, json!([1, 2, 3]))],
        ];
        assert_eq!(merge(&t, runs).unwrap(), [expected], "{order}");
    }
}

#[test]
fn first_row_keeps_the_first_record_and_rejects_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[("v", "INT")]),
        &["k"],
        json!({"merge-engine": "first-row"}),
    );
    let runs = vec![vec![(1, UA, json!([1, 11]))], vec![(0, I, json!([1, 10]))]];
    assert_eq!(merge(&t, runs).unwrap(), ["+I 1 10"]);
    let runs = vec![vec![(1, D, json!([1, 11]))], vec![(0, I, json!([1, 10]))]];
    assert!(matches!(merge(&t, runs), Err(Error::Merge { .. })));
}

#[test]
fn partial_update_merges_non_null_fields() {
    let dir = tempfile::tempdir().unwrap();
    let fields = kv_fields(&[("a", "INT"), ("b", "STRING")]);
    let t = table(
        dir.path(),
        fields.clone(),
        &["k"],
        json!({"merge-engine": "partial-update"}),
    );
    let runs = vec![
        vec![(0, I, json!([1, 1, null])), (1, I, json!([2, 2, "x"]))],
        vec![(2, UA, json!([1, null, "y"]))],
    ];
    assert_eq!(merge(&t, runs).unwrap(), ["+I 1 1 y", "+I 2 2 x"]);
    // A delete is rejected by default ...
    let runs = vec![
        vec![(0, I, json!([1, 1, "a"]))],
        vec![(1, D, json!([1, 1, "a"]))],
    ];
    assert!(matches!(merge(&t, runs.clone()), Err(Error::Merge { .. })));
    // ... removes the row with remove-record-on-delete (a later insert starts afresh) ...
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        fields.clone(),
        &["k"],
        json!({"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"}),
    );
    assert_eq!(merge(&t, runs.clone()).unwrap(), Vec::<String>::new());
    let mut again = runs.clone();
    again.push(vec![(2, I, json!([1, null, "b"]))]);
    assert_eq!(merge(&t, again).unwrap(), ["+I 1  b"]);
    // ... and is skipped with ignore-delete.
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        fields,
        &["k"],
        json!({"merge-engine": "partial-update", "ignore-delete": "true"}),
    );
    assert_eq!(merge(&t, runs).unwrap(), ["+I 1 1 a"]);
}

#[test]
fn partial_update_sequence_groups() {
    // The example of Paimon's partial-update docs: two groups, each updated only by newer sequences.
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        kv_fields(&[
            ("a", "INT"),
            ("b", "INT"),
            ("g_1", "INT"),
            ("c", "INT"),
            ("d", "INT"),
            ("g_2", "INT"),
        ]),
        &["k"],
        json!({"merge-engine": "partial-update",
               "fields.g_1.sequence-group": "a,b", "fields.g_2.sequence-group": "c,d"}),
    );
    let runs = vec![
        vec![(0, I, json!([1, 1, 1, 1, 1, 1, 1]))],
        vec![(1, I, json!([1, 2, 2, 2, null, null, null]))],
        vec![(2, I, json!([1, 3, 3, 1, 3, 3, 3]))],
    ];
    assert_eq!(merge(&t, runs).unwrap(), ["+I 1 2 2 2 3 3 3"]);
    // Retracting with an older group sequence leaves the group alone; a newer one clears it.
    let runs = vec![
        vec![(0, I, json!([1, 1, 1, 5, 1, 1, 5]))],
        vec![(1, UB, json!([1, 1, 1, 4, 1, 1, 6]))],
    ];
    assert_eq!(merge(&t, runs).unwrap(), ["+I 1 1 1 5   6"]);
}

#[test]
fn partial_update_aggregates_sequence_fields_in_1_0_0_only() {
    // `fields.default-aggregate-function=sum` with one sequence group: 1.0.0's
    // PartialUpdateMergeFunction.Factory gives every non-key field the default aggregator, the group's
    // sequence field `g` included, so `g` is summed (`row.setField(i, aggregator.agg(accumulator, field))`
    // after the sequence fields were set); from 1.0.1 (apache/paimon#4897) sequence fields get none and `g`
    // is the newer record's. `a` is summed by every release.
    use crate::PaimonRelease::*;
    let runs = || {
        vec![
            vec![(0, I, json!([1, 10, 1]))],
            vec![(1, I, json!([1, 5, 2]))],
        ]
    };
    for (release, want) in [
        (V1_0_0, "+I 1 15 3"),
        (V1_0_1, "+I 1 15 2"),
        (V1_2_0, "+I 1 15 2"),
        (V2_0_0, "+I 1 15 2"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let t = table_as(
            dir.path(),
            kv_fields(&[("a", "INT"), ("g", "INT")]),
            &["k"],
            json!({"merge-engine": "partial-update", "fields.g.sequence-group": "a",
                   "fields.default-aggregate-function": "sum"}),
            release,
        );
        assert_eq!(merge(&t, runs()).unwrap(), [want], "{release}");
    }
}

#[test]
fn a_removed_partial_update_row_is_what_each_release_builds() {
    // As `$audit_log` reads it (the merge keeps `-D` results): the row `remove-record-on-delete` removes is
    // 1.0.x all NULL, 1.1-1.3 the `-D` record's NOT NULL fields (`initRow`), 1.4 on all of its fields; from
    // 1.1 a key with retract records only (`-U`s, which remove nothing) merges to `-D` (`meetInsert`) with
    // its first retract's fields; 1.0.x to `+I` of nothing set.
    use crate::PaimonRelease::*;
    for (release, removed, retracted) in [
        (V1_0_0, "-D  ", "+I  "),
        (V1_1_1, "-D 1 ", "-D 2 "),
        (V1_3_1, "-D 1 ", "-D 2 "),
        (V1_4_2, "-D 1 7", "-D 2 8"),
        (V2_0_0, "-D 1 7", "-D 2 8"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let t = table_as(
            dir.path(),
            kv_fields(&[("a", "INT")]),
            &["k"],
            json!({"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true",
                   "ignore-delete": "false"}),
            release,
        );
        let t = Arc::new(Arc::try_unwrap(t).ok().unwrap().with_audit_log().unwrap());
        let runs = vec![
            vec![(0, I, json!([1, 1])), (1, UB, json!([2, 8]))],
            vec![(2, D, json!([1, 7])), (3, UB, json!([2, 9]))],
        ];
        assert_eq!(
            merge(&t, runs).unwrap(),
            [removed.to_string(), retracted.to_string()],
            "{release}"
        );
    }
}

#[test]
fn aggregation_remove_record_on_delete_restarts_the_row_from_the_delete() {
    // `AggregateMergeFunction` (1.1 on): a `-D` makes the result `-D` of a row initialised from it (1.1-1.3
    // its NOT NULL fields, 1.4 on all), and later records aggregate onto that row. 1.0.x has no such option
    // and `sum` retracts.
    use crate::PaimonRelease::*;
    for (release, restarted, removed) in [
        (V1_0_0, "+I 1 3", Some("+I 2 0")),
        (V1_1_1, "+I 1 3", None),
        (V1_3_1, "+I 1 3", None),
        (V1_4_2, "+I 1 8", None),
        (V2_0_0, "+I 1 8", None),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let t = table_as(
            dir.path(),
            kv_fields(&[("v", "BIGINT")]),
            &["k"],
            json!({"merge-engine": "aggregation", "fields.v.aggregate-function": "sum",
                   "aggregation.remove-record-on-delete": "true"}),
            release,
        );
        let runs = vec![
            vec![(0, I, json!([1, 5])), (1, I, json!([2, 5]))],
            vec![(2, D, json!([1, 5])), (3, D, json!([2, 5]))],
            vec![(4, I, json!([1, 3]))],
        ];
        let mut want = vec![restarted.to_string()];
        want.extend(removed.map(str::to_string));
        assert_eq!(merge(&t, runs).unwrap(), want, "{release}");
    }
    // `fields.<f>.ignore-retract` conflicts with it (`FieldAggregatorFactory`).
    let dir = tempfile::tempdir().unwrap();
    let t = table_as(
        dir.path(),
        kv_fields(&[("v", "BIGINT")]),
        &["k"],
        json!({"merge-engine": "aggregation", "fields.v.aggregate-function": "sum",
               "aggregation.remove-record-on-delete": "true", "fields.v.ignore-retract": "true"}),
        V2_0_0,
    );
    let err = merge(&t, vec![vec![(0, I, json!([1, 5]))]]).unwrap_err();
    assert!(err.to_string().contains("conflicting behavior"), "{err}");
}
