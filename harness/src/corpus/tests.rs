use std::path::Path;

use serde_json::json;

use super::random::SplitMix64;
use super::*;

#[test]
fn scenario_json_round_trips_and_rejects_unknown_fields() {
    let text = r#"{
        "name": "t", "description": "d",
        "table": {"fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "v", "type": "INT"}],
                  "primaryKeys": ["k"], "options": {"bucket": "1"}},
        "steps": [
            {"step": "write", "rows": [{"kind": "+I", "values": [1, 10]}]},
            {"step": "compact", "partition": [], "bucket": 0, "full": true},
            {"step": "arm-fault", "fault": "manifest-read-after-snapshot"},
            {"step": "commit", "identifier": 1, "expect_error": "injected"},
            {"step": "recover", "expect_committed": 0},
            {"step": "read-batch"},
            {"step": "random", "seed": 1, "keys": 4, "commits": 2, "update_ratio": 0.5, "delete_ratio": 0.1}
        ]
    }"#;
    let s: Scenario = serde_json::from_str(text).unwrap();
    assert_eq!(s.steps.len(), 7);
    match &s.steps[3] {
        Step::Commit {
            user,
            wait_compaction,
            expect_error,
            ..
        } => {
            assert_eq!(user, DEFAULT_USER);
            assert!(*wait_compaction);
            assert_eq!(expect_error.as_deref(), Some("injected"));
        }
        other => panic!("{other:?}"),
    }
    let again: Scenario = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(again.steps.len(), 7);
    let bad = text.replace("\"full\": true", "\"fulll\": true");
    assert!(serde_json::from_str::<Scenario>(&bad).is_err());
    let bad = text.replace("\"step\": \"read-batch\"", "\"step\": \"read-all\"");
    assert!(serde_json::from_str::<Scenario>(&bad).is_err());
}

#[test]
fn json_difference_names_the_path() {
    let a = json!({"x": [1, {"y": 2}], "z": 1});
    assert_eq!(first_json_difference(&a, &a), None);
    let b = json!({"x": [1, {"y": 3}], "z": 1});
    assert_eq!(
        first_json_difference(&a, &b).as_deref(),
        Some("x[1].y: 2 vs 3")
    );
    let c = json!({"x": [1], "z": 1});
    assert_eq!(
        first_json_difference(&a, &c).as_deref(),
        Some("x: 2 items vs 1")
    );
}

#[test]
fn splitmix_is_stable() {
    let mut r = SplitMix64(20_261_129);
    let a: Vec<u64> = (0..3).map(|_| r.below(1000)).collect();
    let mut r = SplitMix64(20_261_129);
    let b: Vec<u64> = (0..3).map(|_| r.below(1000)).collect();
    assert_eq!(a, b);
    let u = SplitMix64(7).unit();
    assert!((0.0..1.0).contains(&u));
}

#[test]
fn every_committed_scenario_parses() {
    for file in scenario_files(&corpora_dir()).unwrap() {
        let s = load_scenario(&file).unwrap_or_else(|e| panic!("{e}"));
        let dir = file.parent().and_then(Path::file_name).unwrap();
        assert_eq!(dir.to_str(), Some(s.name.as_str()), "{}", file.display());
    }
}
