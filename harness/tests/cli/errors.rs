//! Bad input and usage errors: exit status 2, naming what is wrong.

use std::process::Command;

use crate::common::{self, paimon_parity};

/// Snapshot arguments outside the table's snapshots, or for a scan that does not use them, are usage errors
/// that say what the table has (c00-full-compaction-control has snapshots 1..4), before any JVM starts.
#[test]
fn snapshot_arguments_outside_the_table_or_its_scans_are_usage_errors() {
    let table = common::corpus("c00-full-compaction-control").join("table");
    let t = table.to_str().unwrap();
    for (args, expected) in [
        (
            vec!["--from-snapshot", "999"],
            format!("--from-snapshot 999: {t} has snapshots 1..4"),
        ),
        (
            vec!["--mode", "batch", "--snapshot", "5"],
            format!("--snapshot 5: {t} has snapshots 1..4"),
        ),
        (
            vec!["--snapshot", "2"],
            "--snapshot picks the snapshot of a batch scan".to_owned(),
        ),
        (
            vec!["--mode", "batch,latest-full", "--from-snapshot", "2"],
            "--from-snapshot starts a streaming scan".to_owned(),
        ),
    ] {
        let mut all = vec!["replay", t];
        all.extend(&args);
        let started = std::time::Instant::now();
        let (code, stdout, stderr) = paimon_parity(&all);
        assert_eq!(code, 2, "{args:?}: {stdout}{stderr}");
        assert!(stderr.contains(&expected), "{args:?}: {stderr}");
        assert!(!stdout.contains("IDENTICAL"), "{stdout}");
        // No JVM was started for it.
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{args:?}"
        );
    }
    // Within the range, both are fine.
    let (code, _, stderr) = paimon_parity(&[
        "replay",
        t,
        "--mode",
        "all",
        "--from-snapshot",
        "4",
        "--snapshot",
        "3",
        "-q",
    ]);
    assert_eq!(code, 0, "{stderr}");
}

/// Snapshot ids start at 1: `--from-snapshot 0` or `-1` is a usage error (clap's exit status 2) naming the
/// option, before any JVM starts.
#[test]
fn snapshot_ids_below_1_are_usage_errors() {
    let table = common::corpus("c00-full-compaction-control").join("table");
    for (option, bad) in [
        ("--from-snapshot", "0"),
        ("--from-snapshot", "-1"),
        ("--snapshot", "0"),
    ] {
        let arg = format!("{option}={bad}");
        let (code, stdout, stderr) = paimon_parity(&["replay", table.to_str().unwrap(), &arg]);
        assert_eq!(code, 2, "{arg}: stdout {stdout}");
        assert!(stderr.contains(option), "{arg}: {stderr}");
        assert!(stdout.is_empty(), "{arg}: {stdout}");
    }
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

#[test]
fn an_unknown_reader_is_a_usage_error_naming_the_known_ones() {
    let table = common::corpus("c01-key-order").join("table");
    let (code, _, stderr) = paimon_parity(&["replay", table.to_str().unwrap(), "--reader", "nope"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "unknown reader `nope`; known: native, stock@<release>, candidate@<name>, example, paimon-rust, \
             pypaimon"
        ),
        "{stderr}"
    );
}

/// `paimon-parity replay C01` with one environment variable set.
fn replay_with_env(var: &str, value: &str) -> (i32, String) {
    let table = common::corpus("c01-key-order").join("table");
    let out = Command::new(env!("CARGO_BIN_EXE_paimon-parity"))
        .args(["replay", table.to_str().unwrap()])
        .env(var, value)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_bad_heap_setting_is_exit_2_naming_the_variable_before_the_jvm_starts() {
    let (code, stderr) = replay_with_env("PAIMON_PARITY_XMX", "lots");
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("PAIMON_PARITY_XMX=`lots` is not a heap size: digits with an optional k, m, g or t suffix"),
        "{stderr}"
    );
    let (code, stderr) = replay_with_env("PAIMON_PARITY_XMX", "1m");
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("PAIMON_PARITY_XMX=`1m` is below 16m"),
        "{stderr}"
    );
}

#[test]
fn a_missing_class_path_entry_is_exit_2_naming_the_variable_and_the_entry() {
    let (code, stderr) = replay_with_env("PAIMON_PARITY_CLASSPATH", "/nonexistent/paimon.jar");
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "PAIMON_PARITY_CLASSPATH: the entry `/nonexistent/paimon.jar` does not exist"
        ),
        "{stderr}"
    );
}

/// A table option the released reader honours and the native reader does not implement is refused by
/// name, never read differently: a copy of C01 with `scan.version=99`, a snapshot C01 does not have, which the
/// table's load keeps rather than resolving it (`AbstractFileStoreTable#travelToVersion`).
#[test]
fn an_unimplemented_read_option_is_an_unsupported_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    common::copy_tree(&common::corpus("c01-key-order").join("table"), &table);
    let schema = table.join("schema").join("schema-0");
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&schema).unwrap()).unwrap();
    v["options"]["scan.version"] = "99".into();
    std::fs::write(&schema, serde_json::to_vec(&v).unwrap()).unwrap();
    let (code, stdout, stderr) =
        paimon_parity(&["replay", table.to_str().unwrap(), "--mode", "batch"]);
    assert_eq!(code, 2, "stdout: {stdout}\nstderr: {stderr}");
    assert!(
        stderr.contains("table option `scan.version=99` is not implemented"),
        "{stderr}"
    );
    assert!(stderr.contains("schema-0"), "{stderr}");
    assert!(!stdout.contains("IDENTICAL"), "{stdout}");
}
