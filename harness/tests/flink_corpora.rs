//! The committed Flink corpora (`corpora/flink/<name>`, written by the released Paimon Flink connector through
//! `flink-writer`): the native reader replays each identically to the released reader, the released reader
//! still returns what `case.json` recorded, and `truth.json` agrees with the job's input (recomputed here from
//! the scenario's source) and with the table. Each runs on the release line that wrote it
//! (`PAIMON_PARITY_PAIMON_VERSION`); the others are left to that line's run (scripts/test).
//!
//! Only `PAIMON_PARITY_FLINK_JOB=1` runs Flink jobs (`flink_job_writes_a_table_whose_truth_holds`, f06's targeted
//! COMPACT-half loss, and `flink_job_with_a_failure_while_writing_finishes_the_input`, f13's failure while
//! writing): they need the Flink writer of the line (scripts/build-flink-writer) and take 15-30 s each.

use crate::common;

use std::path::{Path, PathBuf};

use harness::corpus::{
    flink_corpora, load_scenario, snapshot_summaries, stock_summary, FlinkRow, FlinkTruth,
    StockSummary,
};
use harness::reader::StockTableReader;
use harness::replay::{replay, ReplayOptions};

fn quiet() -> ReplayOptions {
    ReplayOptions {
        progress: false,
        ..ReplayOptions::default()
    }
}

/// The Flink corpora written by this process's release line.
fn this_line() -> Vec<PathBuf> {
    let line = common::line_version();
    flink_corpora(&common::repo_root().join("corpora"))
        .into_iter()
        .filter(|d| common::written_by(d) == line)
        .collect()
}

fn read_truth(dir: &Path) -> FlinkTruth {
    serde_json::from_value(common::read_json(&dir.join("truth.json"))).unwrap()
}

/// The truth file against the scenario's own input and the table's snapshots (no reader involved).
fn check_truth_against_input(dir: &Path) {
    let scenario = load_scenario(&dir.join("scenario.json")).unwrap();
    let source = &scenario.flink.as_ref().expect("a flink job").source;
    let truth = read_truth(dir);
    assert_eq!(&truth.input, source, "{}", dir.display());
    // The input's final state, from the source's formula: every key below `keys` ends with one final record,
    // deleted or not, written by the producer that owns it.
    let state = source.final_state();
    assert_eq!(state.len(), source.keys as usize, "{}", dir.display());
    let rows: Vec<FlinkRow> = state.values().filter_map(|r| *r).collect();
    assert_eq!(truth.final_rows, rows, "{}", dir.display());
    for r in &truth.final_rows {
        assert_eq!(
            r.k % source.producers as i32,
            r.producer,
            "{}",
            dir.display()
        );
        assert!(
            r.seq >= source.records,
            "{}: not a final record",
            dir.display()
        );
    }
    assert_eq!(
        truth.final_rows.len() + truth.deleted_keys.len(),
        source.keys as usize,
        "{}",
        dir.display()
    );
    // Lost COMPACT halves name APPEND snapshots of the table with no COMPACT of the same commit.
    let snapshots = snapshot_summaries(&dir.join("table")).unwrap();
    for lost in &truth.lost_compact_halves {
        let append = snapshots
            .iter()
            .find(|s| s.id == lost.append_snapshot)
            .expect("the APPEND snapshot exists");
        assert_eq!(append.commit_kind, "APPEND");
        assert_eq!(
            (&append.commit_user, append.commit_identifier),
            (&lost.commit_user, lost.identifier)
        );
        assert!(!snapshots.iter().any(|s| s.commit_kind == "COMPACT"
            && s.commit_user == lost.commit_user
            && s.commit_identifier == lost.identifier));
    }
    // A targeted failure takes the COMPACT half of exactly the commit it names.
    if let Some(t) = &scenario.flink.as_ref().unwrap().failures.targeted {
        let user = truth
            .commit_users
            .get(&format!("producer-{}", t.producer))
            .expect("the producer committed");
        assert!(
            truth
                .lost_compact_halves
                .iter()
                .any(|l| &l.commit_user == user && l.identifier == t.identifier),
            "{}: commit {} of {user} kept its COMPACT half",
            dir.display(),
            t.identifier
        );
    }
    // The failure at end of input on "compact" takes the COMPACT half of the commit it fired after.
    let failures = common::read_json(&dir.join("failures.json"));
    let job = scenario.flink.as_ref().unwrap();
    if let Some(e) = &job.failures.end_of_input {
        let log = &failures["end_of_input"];
        assert_eq!(log["fired"], true, "{}", dir.display());
        if e.at == harness::corpus::EndOfInputPoint::Compact {
            let user = &truth.commit_users[&format!("producer-{}", e.producer)];
            let id = log["identifier"].as_i64().unwrap();
            assert!(
                truth
                    .lost_compact_halves
                    .iter()
                    .any(|l| &l.commit_user == user && l.identifier == id),
                "{}: commit {id} kept its COMPACT half",
                dir.display()
            );
        }
    }
    // The aborted attempt's changelog files are those the failure log names for the failing attempt, and in
    // the table; no snapshot of a later checkpoint came from that attempt.
    if job.failures.while_writing.is_some() {
        let log = &failures["while_writing"];
        assert_eq!(log["fired"], true, "{}", dir.display());
        assert_eq!(
            log["later_commits_of_aborted_attempt"],
            serde_json::json!([]),
            "{}",
            dir.display()
        );
        let named: Vec<&str> = log["files_of_aborted_attempt"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        for f in &truth.aborted_attempts {
            assert!(named.contains(&f.as_str()), "{}: {f}", dir.display());
            assert!(dir.join(f).is_file(), "{}: {f}", dir.display());
        }
    } else {
        assert!(truth.aborted_attempts.is_empty(), "{}", dir.display());
    }
    // One commit user per producer.
    assert_eq!(
        truth.commit_users.len(),
        source.producers as usize,
        "{}",
        dir.display()
    );
}

#[test]
fn every_truth_file_agrees_with_its_jobs_input() {
    let all = flink_corpora(&common::repo_root().join("corpora"));
    assert!(all.len() >= 6, "expected the committed Flink corpora");
    for dir in all {
        check_truth_against_input(&dir);
    }
}

#[test]
fn flink_corpora_of_this_line_replay_identically_and_hold_their_truth() {
    let corpora = this_line();
    if corpora.is_empty() {
        eprintln!(
            "no Flink corpus written by Paimon {}",
            common::line_version()
        );
        return;
    }
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    for dir in corpora {
        let table = std::fs::canonicalize(dir.join("table")).unwrap();
        let report = replay(&table, &stock, &native, &quiet()).expect("replay runs");
        assert_eq!(
            report.verdict,
            "identical",
            "{}: {}",
            dir.display(),
            harness::report::summary_line(&report)
        );
        let case = common::read_json(&dir.join("case.json"));
        let expected: StockSummary =
            serde_json::from_value(case["expected"]["stream_from_snapshot_1"].clone()).unwrap();
        assert_eq!(
            stock_summary(&stock, &table).unwrap(),
            expected,
            "{}",
            dir.display()
        );
        // Where no data was lost, a batch read of the released reader is the input's final state.
        let truth = read_truth(&dir);
        let batch = harness::corpus::batch_summary(&stock, &table, None).unwrap();
        if truth.batch_differences.is_empty() {
            let want: Vec<String> = truth
                .final_rows
                .iter()
                .map(|r| format!("+I ({}, {}, {}, {})", r.k, r.producer, r.seq, r.v))
                .collect();
            let mut want = want;
            want.sort();
            assert_eq!(batch.values, want, "{}", dir.display());
        }
    }
}

/// Writes the scenario of `corpora/flink/<name>` afresh with a Flink job of this line into the target directory
/// and checks its truth against its input; returns the directory.
fn write_afresh(name: &str) -> PathBuf {
    let line = common::line_version();
    let mut scenario: serde_json::Value = common::read_json(
        &common::repo_root()
            .join("corpora/flink")
            .join(name)
            .join("scenario.json"),
    );
    scenario["paimon_version"] = serde_json::json!(line);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("flink-job-{name}-{line}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("scenario.json"), scenario.to_string()).unwrap();
    common::expect_exit(
        0,
        &[
            "corpus",
            "generate",
            common::path_str(&dir),
            "--out",
            common::path_str(&dir),
            "--paimon-version",
            &line,
        ],
    );
    check_truth_against_input(&dir);
    dir
}

fn flink_job_opted_in() -> bool {
    if std::env::var("PAIMON_PARITY_FLINK_JOB").ok().as_deref() != Some("1") {
        eprintln!("skipped: set PAIMON_PARITY_FLINK_JOB=1 to run a Flink job");
        return false;
    }
    true
}

/// Opt-in (`PAIMON_PARITY_FLINK_JOB=1`): a Flink job of this line writes f06's scenario afresh with a targeted
/// COMPACT-half loss, and the truth holds: the batch read is the input's final state, the chosen commit lost
/// its COMPACT half.
#[test]
fn flink_job_writes_a_table_whose_truth_holds() {
    if !flink_job_opted_in() {
        return;
    }
    let truth = read_truth(&write_afresh("f06-lookup-compact-half-lost"));
    assert!(
        truth.batch_differences.is_empty(),
        "{:?}",
        truth.batch_differences
    );
    assert_eq!(
        truth.lost_compact_halves.len(),
        1,
        "{:?}",
        truth.lost_compact_halves
    );
}

/// Opt-in (`PAIMON_PARITY_FLINK_JOB=1`): a Flink job of this line writes f13's scenario afresh, the failure while
/// writing fires and aborts an attempt, and the job still writes the input's final state (the truth's checks of
/// the failure log hold; whether a changelog file is left depends on the release's order of writes).
#[test]
fn flink_job_with_a_failure_while_writing_finishes_the_input() {
    if !flink_job_opted_in() {
        return;
    }
    let dir = write_afresh("f13-lookup-aborted-attempt");
    let truth = read_truth(&dir);
    assert!(
        truth.batch_differences.is_empty(),
        "{:?}",
        truth.batch_differences
    );
    let failures = common::read_json(&dir.join("failures.json"));
    assert_eq!(failures["while_writing"]["fired"], true);
    eprintln!(
        "{}: aborted attempts {:?}",
        dir.display(),
        truth.aborted_attempts
    );
}
