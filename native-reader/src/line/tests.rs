//! The per-release rules of each release, checked against what each release does.

use super::*;

#[test]
fn each_release_knows_the_type_names_of_its_time() {
    let t = |json: &str| crate::schema::parse_type(&serde_json::from_str(json).unwrap()).unwrap();
    let variant = t(r#"{"type": "ARRAY", "element": "VARIANT"}"#);
    let blob = t(r#"{"type": "ROW", "fields": [{"id": 1, "name": "b", "type": "BLOB"}]}"#);
    let int = t(r#""INT NOT NULL""#);
    let rules = |r: PaimonRelease| r.rules().type_names;
    assert_eq!(
        rules(PaimonRelease::V1_0_1).unknown_in(&variant),
        Some(("VARIANT", "1.1.0"))
    );
    assert_eq!(rules(PaimonRelease::V1_1_1).unknown_in(&variant), None);
    assert_eq!(
        rules(PaimonRelease::V1_3_1).unknown_in(&blob),
        Some(("BLOB", "1.4.1"))
    );
    assert_eq!(rules(PaimonRelease::V1_4_2).unknown_in(&blob), None);
    assert_eq!(rules(PaimonRelease::V1_0_0).unknown_in(&int), None);
}

#[test]
fn release_versions_name_their_release() {
    for (v, want) in [
        ("1.0.0", PaimonRelease::V1_0_0),
        (" 1.0.0 ", PaimonRelease::V1_0_0),
        ("1.0.0-SNAPSHOT", PaimonRelease::V1_0_0),
        ("1.0.1", PaimonRelease::V1_0_1),
        ("1.1.1", PaimonRelease::V1_1_1),
        ("1.2.0", PaimonRelease::V1_2_0),
        ("1.3.1", PaimonRelease::V1_3_1),
        ("1.4.2", PaimonRelease::V1_4_2),
        ("2.0.0", PaimonRelease::V2_0_0),
        ("2.0.0-rc10", PaimonRelease::V2_0_0),
    ] {
        assert_eq!(v.parse::<PaimonRelease>().unwrap(), want, "{v}");
    }
    for v in [
        "1.0.x", "1.0", "1.1.0", "1.3.2", "1.4.0", "1.4.1", "0.9.0", "3.0.0", "2", "", "2.0.0.1",
        "latest", "1.0.a",
    ] {
        let err = PaimonRelease::parse(v).unwrap_err();
        assert!(matches!(err, Error::UnsupportedRelease { .. }), "{v}");
        let text = err.to_string();
        assert!(text.contains(&format!("`{v}`")), "{text}");
        assert!(
            text.contains("1.0.0, 1.0.1, 1.1.1, 1.2.0, 1.3.1, 1.4.2, 2.0.0"),
            "{text}"
        );
    }
    assert_eq!(PaimonRelease::default(), PaimonRelease::V1_0_0);
    assert_eq!(PaimonRelease::V2_0_0.to_string(), "2.0.0");
    assert!(PaimonRelease::ALL.windows(2).all(|w| w[0] < w[1]));
}

/// `$partitions` / `$buckets` per release, from each release tag's `PartitionsTable.java` (the `[…]` of
/// `Arrays.toString` in 1.0.x, `CastExecutors.resolveToString` from 1.1.0, `withLevelFilter(level -> true)`
/// from 1.3.0, the `k=v` spec and 9 columns in 1.4.x, 12 columns in 2.0.0).
#[test]
fn each_release_has_the_partitions_table_of_its_tag() {
    use PaimonRelease::*;
    use PartitionsTable::*;
    let got: Vec<PartitionsTable> = PaimonRelease::ALL
        .iter()
        .map(|r| r.rules().partitions_table)
        .collect();
    let want = [
        ArrayString,
        ArrayString,
        RowString,
        RowString,
        RowStringAllLevels,
        Spec,
        SpecWithBuckets,
    ];
    assert_eq!(got, want);
    assert_eq!(
        PaimonRelease::ALL,
        [V1_0_0, V1_0_1, V1_1_1, V1_2_0, V1_3_1, V1_4_2, V2_0_0]
    );
}

/// The release × rule table of `shared/docs/paimon-1.x-lines.md` §6, one column at a time, written from
/// that table (not from the constants above).
#[test]
fn each_release_has_the_values_of_the_release_map() {
    use PaimonRelease::*;
    let with = |f: fn(&LineRules) -> bool| -> Vec<PaimonRelease> {
        PaimonRelease::ALL
            .into_iter()
            .filter(|r| f(r.rules()))
            .collect()
    };
    assert_eq!(
        with(|r| r.changelog_follow_up == ChangelogFollowUp::ByCommitKind),
        [V1_0_0, V1_0_1]
    );
    assert_eq!(
        with(|r| r.first_plan_lookup_filter == FirstPlanLookupFilter::NeedLookup),
        [V1_0_0, V1_0_1, V1_1_1, V1_2_0]
    );
    assert_eq!(
        with(|r| r.dv_first_plan_rereads_start),
        [V1_0_0, V1_0_1, V1_1_1, V1_2_0]
    );
    assert_eq!(with(|r| r.skip_empty_plans), [V1_3_1, V1_4_2, V2_0_0]);
    assert_eq!(with(|r| r.streaming_deletion_files), [V1_0_0, V1_0_1]);
    assert_eq!(
        with(|r| r.batch_skip_level0 == BatchSkipLevel0::DeletionVectorsUnlessMergeOnRead),
        [V2_0_0]
    );
    assert_eq!(
        with(|r| r.postpone_bucket == PostponeBucket::Rejected),
        [V1_0_0, V1_0_1]
    );
    assert_eq!(
        with(|r| r.read_optimized_levels == ReadOptimizedLevels::TopUnlessBatchSkipsLevel0),
        [V1_0_0, V1_0_1]
    );
    assert_eq!(
        with(|r| r.manifests_table == ManifestsTable::Counts),
        [V1_0_0]
    );
    assert_eq!(
        with(|r| r.manifests_table == ManifestsTable::WithPartitionArrays),
        [V1_0_1]
    );
    assert_eq!(
        with(|r| r.manifests_table == ManifestsTable::WithRowIds),
        [V1_4_2, V2_0_0]
    );
    assert_eq!(
        with(|r| r.postpone_bucket == PostponeBucket::EveryReadSkips),
        [V1_1_1]
    );
    assert_eq!(
        with(|r| r.append_overwrite_streaming),
        [V1_2_0, V1_3_1, V1_4_2, V2_0_0]
    );
    assert_eq!(with(|r| r.changes_drop_common_files), [V1_0_0, V1_0_1]);
    assert_eq!(
        with(|r| r.timestamp_to_time == TimestampToTime::FloorMod),
        [V2_0_0]
    );
    assert_eq!(
        with(|r| r.nested_update_null_accumulator == NestedUpdateNullAccumulator::NonNullRows),
        [V2_0_0]
    );
    assert_eq!(
        with(|r| r.sequence_field_aggregation == SequenceFieldAggregation::Default),
        [V1_0_0]
    );
    assert_eq!(
        with(|r| r.sequence_field_aggregation == SequenceFieldAggregation::LastNonNullValue),
        [V1_0_1]
    );
    assert_eq!(
        with(|r| r.partial_update_aggregates_sequence_fields),
        [V1_0_0]
    );
    assert_eq!(
        with(|r| r.lookup_pick == LookupPick::Latest),
        [V1_0_0, V1_0_1, V1_1_1]
    );
    assert_eq!(
        with(|r| r.read_time_default_values),
        [V1_0_0, V1_0_1, V1_1_1, V1_2_0]
    );
    assert_eq!(
        with(|r| r.timestamp_ltz_zone == TimestampLtzZone::Utc),
        [V2_0_0]
    );
    assert_eq!(
        with(|r| r.map_value_nullability == MapValueNullability::ForcedNotNull),
        [V1_0_0, V1_0_1, V1_1_1, V1_2_0]
    );
}
