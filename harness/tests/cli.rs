//! The `paimon-parity` binary: exit statuses and messages for good and bad input.

mod common;

use std::process::Command;

fn paimon_parity(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_paimon-parity"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn replay_of_a_committed_corpus_exits_0_and_prints_the_summary() {
    let table = common::corpus("c00-full-compaction-control").join("table");
    let json = tempfile::NamedTempFile::new().unwrap();
    let (code, stdout, stderr) = paimon_parity(&[
        "replay",
        table.to_str().unwrap(),
        "--json",
        json.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "stdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.contains("IDENTICAL: "), "{stdout}");
    assert!(stdout.contains("identical"), "{stdout}");
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json.path()).unwrap()).unwrap();
    assert_eq!(report["verdict"], "identical");
    // C00 control: changelog +I (1,10) then -U (1,10), +U (1,20), from the two COMPACT snapshots.
    assert_eq!(report["totals"]["stock_rows"]["insert"], 1);
    assert_eq!(report["totals"]["stock_rows"]["update_before"], 1);
    assert_eq!(report["totals"]["stock_rows"]["update_after"], 1);
    assert_eq!(report["splits"].as_array().unwrap().len(), 2);
}

#[test]
fn missing_directory_exits_2_naming_the_path() {
    let (code, _, stderr) = paimon_parity(&["replay", "/nonexistent/paimon/table"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("/nonexistent/paimon/table"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn non_paimon_directory_exits_2_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README"), "not a table").unwrap();
    let (code, _, stderr) = paimon_parity(&["replay", dir.path().to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains(dir.path().to_str().unwrap()), "{stderr}");
    assert!(stderr.contains("not a Paimon table"), "{stderr}");
}

#[test]
fn unreadable_snapshot_file_exits_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    common::copy_tree(
        &common::corpus("c00-full-compaction-control").join("table"),
        &table,
    );
    let snapshot = table.join("snapshot").join("snapshot-2");
    std::fs::write(&snapshot, "{ this is not JSON").unwrap();
    let (code, stdout, stderr) = paimon_parity(&["replay", table.to_str().unwrap()]);
    assert_eq!(code, 2, "stdout: {stdout}\nstderr: {stderr}");
    assert!(stderr.contains("snapshot-2"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        !stderr.contains("SIGSEGV") && !stderr.contains("hs_err"),
        "{stderr}"
    );
}
