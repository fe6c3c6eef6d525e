//! `replay --threads N`: the report does not depend on the number of threads. Several corpora in every mode
//! (many splits, planning and decoding of every format, deletion vectors, a merge engine) replay at 1 and at 3
//! threads, through the native reader and through an external reader with a planted difference (read in
//! order while the released reader reads ahead), and the JSON reports are equal apart from timings and the
//! options that differ. The expected values are the 1-thread run's, which the corpus tests check against the
//! tables' own writes; the planted difference is checked against the example reader's fault (amount + 1).

use crate::common;

use serde_json::Value;

fn replay_json(args: &[&str], threads: &str) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("replay.json");
    let mut all: Vec<&str> = vec!["replay"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--threads", threads, "-q", "--json", json.to_str().unwrap()]);
    let (code, _, stderr) = common::paimon_parity(&all);
    let text = std::fs::read_to_string(&json).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    (code, serde_json::from_str(&text).unwrap())
}

#[test]
fn the_report_is_the_same_at_one_and_at_three_threads() {
    let tables: Vec<String> = [
        "c07-deletion-vectors",
        "c00-lookup-fault",
        "format-orc",
        "format-avro",
        "c09-partial-update",
    ]
    .iter()
    .map(|c| common::corpus(c).join("table").display().to_string())
    .collect();
    let mut args: Vec<&str> = tables.iter().map(String::as_str).collect();
    args.extend_from_slice(&["--mode", "all"]);
    let (code1, one) = replay_json(&args, "1");
    let (code3, three) = replay_json(&args, "3");
    assert_eq!((code1, code3), (0, 0));
    let splits: u64 = one["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["report"]["totals"]["splits"].as_u64().unwrap())
        .sum();
    assert!(splits >= 20, "{splits} splits compared");
    assert_eq!(
        common::without_timings(&one),
        common::without_timings(&three)
    );
}

#[test]
fn an_external_reader_read_in_order_reports_the_same_first_difference_at_any_threads() {
    let table = common::corpus("c01-key-order").join("table");
    let example = env!("CARGO_BIN_EXE_paimon-parity-example-reader");
    let planted = format!("planted={example} --fault change-value");
    let args = [
        table.to_str().unwrap(),
        "--reader",
        "planted",
        "--reader-command",
        &planted,
        "--mode",
        "stream,batch",
    ];
    let (code1, one) = replay_json(&args, "1");
    let (code3, three) = replay_json(&args, "3");
    assert_eq!((code1, code3), (1, 1));
    let first = &three["runs"][0]["report"]["first_difference"];
    assert!(
        first.to_string().contains("amount"),
        "the planted change of `amount`: {first}"
    );
    assert_eq!(
        common::without_timings(&one),
        common::without_timings(&three)
    );
}
