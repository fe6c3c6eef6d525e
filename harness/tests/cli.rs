//! The `paimon-parity` binary: exit statuses and messages for good and bad input.

mod common;

use std::process::Command;

use common::paimon_parity;

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
    let envelope: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json.path()).unwrap()).unwrap();
    assert_eq!(envelope["schema"], "paimon-parity-report");
    assert_eq!(envelope["schema_version"], 1);
    assert_eq!(envelope["command"], "replay");
    assert_eq!(envelope["status"], "complete");
    assert_eq!(envelope["exit_code"], 0);
    assert_eq!(envelope["paimon_version"], common::line_version());
    assert!(
        envelope["jdk"].as_str().is_some_and(|j| !j.is_empty()),
        "{envelope:#}"
    );
    assert_eq!(envelope["options"]["mode"], serde_json::json!(["stream"]));
    // Not given: the stream starts at the earliest retained snapshot.
    assert_eq!(
        envelope["options"]["from_snapshot"],
        serde_json::Value::Null
    );
    assert_eq!(envelope["runs"][0]["report"]["from_snapshot"], 1);
    assert_eq!(envelope["runs"].as_array().unwrap().len(), 1);
    assert_eq!(envelope["runs"][0]["verdict"], "identical");
    let report = &envelope["runs"][0]["report"];
    assert_eq!(report["verdict"], "identical");
    // C00 control: changelog +I (1,10) then -U (1,10), +U (1,20), from the two COMPACT snapshots.
    assert_eq!(report["totals"]["stock_rows"]["insert"], 1);
    assert_eq!(report["totals"]["stock_rows"]["update_before"], 1);
    assert_eq!(report["totals"]["stock_rows"]["update_after"], 1);
    assert_eq!(report["splits"].as_array().unwrap().len(), 2);
}

/// A stream that plans nothing on either side has no evidence: the verdict is NOTHING-COMPARED with exit
/// status 3, never IDENTICAL. C03 (changelog-producer none) ends with a COMPACT snapshot 4, which a stream
/// from snapshot 4 reads nothing of.
#[test]
fn a_replay_that_compares_nothing_is_not_identical() {
    let table = common::corpus("c03-two-writers-equal-sequence").join("table");
    let json = tempfile::NamedTempFile::new().unwrap();
    let (code, stdout, stderr) = paimon_parity(&[
        "replay",
        table.to_str().unwrap(),
        "--from-snapshot",
        "4",
        "--json",
        json.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "stdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.contains("NOTHING-COMPARED: "), "{stdout}");
    assert!(!stdout.contains("IDENTICAL"), "{stdout}");
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json.path()).unwrap()).unwrap();
    assert_eq!(report["exit_code"], 3);
    assert_eq!(report["runs"][0]["verdict"], "nothing-compared");
    assert_eq!(report["runs"][0]["report"]["totals"]["splits"], 0);
}

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

/// The released reader's row counts (`+I -U +U -D`) as recorded in a corpus's `case.json`.
fn expected_counts(corpus: &str, scan: &str) -> (u64, String) {
    let case: serde_json::Value =
        serde_json::from_slice(&std::fs::read(common::corpus(corpus).join("case.json")).unwrap())
            .unwrap();
    let e = &case["expected"][scan];
    let rows: Vec<u64> = e["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    (
        e["splits"].as_u64().unwrap(),
        format!(
            "{} ({} {} {} {})",
            rows.iter().sum::<u64>(),
            rows[0],
            rows[1],
            rows[2],
            rows[3]
        ),
    )
}

#[test]
fn several_tables_and_modes_print_a_matrix_and_exit_with_the_worst_verdict() {
    let a = common::corpus("c00-lookup-control").join("table");
    let b = common::corpus("c09-aggregation").join("table");
    let dir = tempfile::tempdir().unwrap();
    // A copy of C00 whose schema file is not JSON: its runs fail, the others still run.
    let broken = dir.path().join("broken").join("table");
    common::copy_tree(&a, &broken);
    std::fs::write(broken.join("schema").join("schema-0"), "{ not JSON").unwrap();
    let json = dir.path().join("matrix.json");
    let (code, stdout, stderr) = paimon_parity(&[
        "replay",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--mode",
        "stream,batch",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "stdout: {stdout}\nstderr: {stderr}");
    for (corpus, scan, mode) in [
        ("c00-lookup-control", "stream_from_snapshot_1", "stream"),
        ("c00-lookup-control", "batch_latest", "batch"),
        ("c09-aggregation", "stream_from_snapshot_1", "stream"),
        ("c09-aggregation", "batch_latest", "batch"),
    ] {
        let (splits, rows) = expected_counts(corpus, scan);
        let line = format!(
            "| {corpus} | {mode} | native | {splits} | {splits} / 0 / 0 / 0 | {rows} | {rows} | identical |"
        );
        assert!(stdout.contains(&line), "missing `{line}` in\n{stdout}");
    }
    assert!(stdout.contains("4 runs: 4 identical"), "{stdout}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let runs = report["runs"].as_array().unwrap();
    // The same shape as one run: per run its summary and its report with every split.
    assert_eq!(runs.len(), 4);
    assert_eq!(report["status"], "complete");
    assert_eq!(
        report["options"]["mode"],
        serde_json::json!(["stream", "batch"])
    );
    for run in runs {
        assert_eq!(run["verdict"], "identical");
        assert_eq!(
            run["report"]["splits"].as_array().unwrap().len(),
            run["splits"].as_u64().unwrap() as usize
        );
    }

    let (code, stdout, stderr) = paimon_parity(&[
        "replay",
        broken.to_str().unwrap(),
        b.to_str().unwrap(),
        "--mode",
        "all",
    ]);
    assert_eq!(code, 2, "stdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.contains("schema-0"), "{stdout}");
    assert!(
        stdout.contains("| broken | stream | native | 0 |") && stdout.contains("| error |"),
        "{stdout}"
    );
    assert!(stdout.contains("8 runs: 4 error, 4 identical"), "{stdout}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_closed_stdout_ends_quietly() {
    // `paimon-parity corpus list | head -1`: the reader is gone before the first line is written.
    let mut child = Command::new(env!("CARGO_BIN_EXE_paimon-parity"))
        .args(["corpus", "list"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("waits");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr, "");
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

#[test]
fn json_to_stdout_is_parseable_and_an_unwritable_json_path_fails_first() {
    let table = common::corpus("c01-key-order").join("table");
    let (code, stdout, stderr) = paimon_parity(&["replay", table.to_str().unwrap(), "--json", "-"]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("stdout is the JSON report");
    assert_eq!(v["runs"][0]["verdict"], "identical");
    assert_eq!(v["runs"][0]["report"]["totals"]["splits"], 2);
    assert!(
        stderr.contains("IDENTICAL: "),
        "the text report goes to stderr: {stderr}"
    );

    let started = std::time::Instant::now();
    let (code, _, stderr) = paimon_parity(&[
        "replay",
        table.to_str().unwrap(),
        "--json",
        "/nonexistent/dir/report.json",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("/nonexistent/dir/report.json"), "{stderr}");
    // Before the replay: no JVM was started, so nothing of the report was printed.
    assert!(!stderr.contains("IDENTICAL"), "{stderr}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn version_names_the_built_releases_the_lines_and_the_jdk() {
    let (code, stdout, _) = paimon_parity(&["--version"]);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with(&format!("paimon-parity {}\n", env!("CARGO_PKG_VERSION"))),
        "{stdout}"
    );
    // scripts/build-java builds 1.0.0 before any test runs.
    assert!(
        stdout.contains("released Paimon built for the stock reader: 1.0.0"),
        "{stdout}"
    );
    assert!(
        stdout.contains("native reader releases: 1.0.0, 1.0.1, 1.1.1, 1.2.0, 1.3.1, 1.4.2, 2.0.0"),
        "{stdout}"
    );
    assert!(
        stdout.contains("JDK: openjdk version") || stdout.contains("JDK: java version"),
        "{stdout}"
    );
    assert!(
        stdout.contains("external readers: example (set up)"),
        "{stdout}"
    );
}

#[test]
fn junit_has_a_case_per_run_and_per_differing_split() {
    let table = common::corpus("c01-key-order").join("table");
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("replay.xml");
    let example = env!("CARGO_BIN_EXE_paimon-parity-example-reader");
    let planted = format!("planted={example} --fault change-value");
    let (code, _, stderr) = paimon_parity(&[
        "replay",
        table.to_str().unwrap(),
        "--reader",
        "native,planted",
        "--reader-command",
        &planted,
        "--junit",
        junit.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{stderr}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"paimon-parity replay\" tests=\"3\" failures=\"2\" errors=\"0\">"), "{xml}");
    assert!(
        xml.contains("<testcase classname=\"c01-key-order\" name=\"stream / native\""),
        "{xml}"
    );
    assert!(
        xml.contains("<testcase classname=\"c01-key-order\" name=\"stream / planted\""),
        "{xml}"
    );
    // C01 commit 1 writes (1, 101, 5); the planted reader returns 6 for it.
    assert!(
        xml.contains("name=\"snapshot 1, partition [], bucket 0\">\n      <failure type=\"differs (decoding)\" message=\"row 0, field amount: stock 5 | planted 6\">"),
        "{xml}"
    );
    assert_eq!(xml.matches("<testcase ").count(), 3);
}

#[test]
fn identical_splits_are_counted_by_default_listed_with_v_and_q_prints_the_summary() {
    // C01 streams two splits, both identical.
    let table = common::corpus("c01-key-order").join("table");
    let t = table.to_str().unwrap();
    let (_, normal, _) = paimon_parity(&["replay", t]);
    assert!(
        normal.contains("  (2 identical splits not listed; -v lists them)\nIDENTICAL: "),
        "{normal}"
    );
    assert!(!normal.contains("  identical "), "{normal}");
    let (_, verbose, _) = paimon_parity(&["replay", t, "-v"]);
    assert_eq!(
        verbose.matches("  identical            snapshot ").count(),
        2,
        "{verbose}"
    );
    let (code, quiet, _) = paimon_parity(&["replay", t, "-q"]);
    assert_eq!(code, 0);
    assert!(quiet.starts_with("IDENTICAL: 2 snapshots"), "{quiet}");
    assert_eq!(quiet.lines().count(), 1, "{quiet}");
}

#[test]
fn help_has_placeholders_defaults_and_an_example_per_subcommand() {
    let (code, help, _) = paimon_parity(&["replay", "--help"]);
    assert_eq!(code, 0);
    for needle in [
        "--json <FILE>",
        "--from-snapshot <N>",
        "[default: 10]",
        "default: the earliest retained snapshot",
        "--reader <NAME>",
        "--reader-command <NAME=COMMAND>",
        "Examples:\n  paimon-parity replay corpora/c07-deletion-vectors/table",
        "Exit status: 0 identical, 1 different or incomplete",
    ] {
        assert!(help.contains(needle), "missing `{needle}` in\n{help}");
    }
    for sub in ["inspect", "audit", "bench", "corpus", "completions"] {
        let (code, help, _) = paimon_parity(&[sub, "--help"]);
        assert_eq!(code, 0, "{sub}");
        assert!(
            help.contains(&format!("  paimon-parity {sub} ")),
            "{sub}: {help}"
        );
    }
}

#[test]
fn ctrl_c_stops_the_replay_and_prints_the_partial_summary() {
    let tables: Vec<String> = common::corpora()
        .into_iter()
        .map(|c| c.join("table").display().to_string())
        .collect();
    let mut args = vec!["replay".to_owned()];
    args.extend(tables);
    args.extend(["--mode".to_owned(), "all".to_owned()]);
    let json = tempfile::NamedTempFile::new().unwrap();
    args.extend(["--json".to_owned(), json.path().display().to_string()]);
    let child = Command::new(env!("CARGO_BIN_EXE_paimon-parity"))
        .args(&args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    // Past the handler's installation (the first thing replay does), well before the last of the runs.
    std::thread::sleep(std::time::Duration::from_secs(4));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let out = child.wait_with_output().expect("waits");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(130),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(
        stderr.contains("paimon-parity: interrupted; stopping after the split in hand"),
        "{stderr}"
    );
    // The matrix of the runs so far (the run in hand marked interrupted, unless Ctrl-C came between two
    // runs), then how many of the runs were done.
    assert!(stdout.contains("\n| table | mode | reader |"), "{stdout}");
    assert!(stdout.contains("\ninterrupted: "), "{stdout}");
    assert!(stdout.contains(" runs done (Ctrl-C)\n"), "{stdout}");
    // The JSON report is written too, marked interrupted, with the runs done.
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json.path()).unwrap()).unwrap();
    assert_eq!(report["status"], "interrupted");
    assert_eq!(report["exit_code"], 130);
    let done = stdout
        .split("\ninterrupted: ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok())
        .expect("runs done");
    assert_eq!(report["runs"].as_array().unwrap().len(), done, "{stdout}");
}

/// A replay stopped by an error still writes its JSON report, marked `error`, with the error and the run.
#[test]
fn the_json_report_is_written_when_an_error_stops_the_replay() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("table");
    common::copy_tree(&common::corpus("c00-lookup-control").join("table"), &broken);
    std::fs::write(broken.join("schema").join("schema-0"), "{ not JSON").unwrap();
    let json = dir.path().join("report.json");
    let (code, _, stderr) = paimon_parity(&[
        "replay",
        broken.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["status"], "error", "{report:#}");
    assert_eq!(report["exit_code"], 2);
    let message = report["error"]["message"].as_str().unwrap();
    assert!(message.contains("schema-0"), "{message}");
    assert!(
        stderr.contains(message),
        "the same message as on stderr: {stderr}"
    );
    assert_eq!(report["runs"][0]["verdict"], "error");
    assert_eq!(report["runs"][0]["report"], serde_json::Value::Null);

    // An unknown reader: a usage error before any run, still reported.
    let (code, _, _) = paimon_parity(&[
        "replay",
        broken.to_str().unwrap(),
        "--reader",
        "nosuch",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["status"], "error");
    assert_eq!(report["error"]["kind"], "Usage");
    assert_eq!(report["runs"], serde_json::json!([]));
}

#[test]
fn inspect_marks_the_incomplete_pair_and_filters_by_snapshot_and_partition() {
    // C00 (lookup fault): commit 1 is APPEND + COMPACT; commit 2's COMPACT half never became durable.
    let table = common::corpus("c00-lookup-fault").join("table");
    let t = table.to_str().unwrap();
    let (code, text, stderr) = paimon_parity(&["inspect", t]);
    assert_eq!(code, 0, "{stderr}");
    assert!(text.contains("identifier 1: APPEND + COMPACT\n"), "{text}");
    assert!(
        text.contains(
            "identifier 2: APPEND   <- INCOMPLETE: no COMPACT snapshot for this identifier"
        ),
        "{text}"
    );
    let (_, later, _) = paimon_parity(&["inspect", t, "--from-snapshot", "3"]);
    assert!(!later.contains("identifier 1:"), "{later}");
    assert!(later.contains("  snapshot 3 "), "{later}");
    let (_, json, _) = paimon_parity(&["inspect", t, "--json", "-"]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON on stdout");
    assert_eq!(v["command"], "inspect");
    // Metadata only: no JVM.
    assert_eq!(v["jdk"], serde_json::Value::Null);
    let v = &v["timeline"];
    assert_eq!(v["commits"][1]["pair"]["status"], "incomplete");
    assert_eq!(v["commits"][0]["pair"]["status"], "complete");

    // lookup-partitioned writes partitions p0 and p1.
    let table = common::corpus("lookup-partitioned").join("table");
    let (_, p1, _) = paimon_parity(&["inspect", table.to_str().unwrap(), "--partition", "p1"]);
    assert!(p1.contains("[p1] bucket"), "{p1}");
    assert!(!p1.contains("[p0]"), "{p1}");
}

/// A table option the released reader honours and the native reader does not implement is refused by
/// name, never read differently: a copy of C01 with `sort-engine=min-heap` (the released merge read then
/// sorts with `SortMergeReaderWithMinHeap`).
#[test]
fn an_unimplemented_read_option_is_an_unsupported_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    common::copy_tree(&common::corpus("c01-key-order").join("table"), &table);
    let schema = table.join("schema").join("schema-0");
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&schema).unwrap()).unwrap();
    v["options"]["sort-engine"] = "min-heap".into();
    std::fs::write(&schema, serde_json::to_vec(&v).unwrap()).unwrap();
    let (code, stdout, stderr) =
        paimon_parity(&["replay", table.to_str().unwrap(), "--mode", "batch"]);
    assert_eq!(code, 2, "stdout: {stdout}\nstderr: {stderr}");
    assert!(
        stderr.contains("table option `sort-engine=min-heap` is not implemented"),
        "{stderr}"
    );
    assert!(stderr.contains("schema-0"), "{stderr}");
    assert!(!stdout.contains("IDENTICAL"), "{stdout}");
}

#[test]
fn shell_completions_cover_the_subcommands_and_their_options() {
    let (code, bash, stderr) = paimon_parity(&["completions", "bash"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(bash.contains("complete -F _paimon__parity"), "{bash}");
    for word in [
        "replay",
        "audit",
        "inspect",
        "bench",
        "corpus",
        "--reader-timeout",
        "--html",
    ] {
        assert!(bash.contains(word), "bash completion lacks {word}");
    }
    let (code, zsh, _) = paimon_parity(&["completions", "zsh"]);
    assert_eq!(code, 0);
    assert!(zsh.starts_with("#compdef paimon-parity"), "{zsh}");
    let (code, fish, _) = paimon_parity(&["completions", "fish"]);
    assert_eq!(code, 0);
    assert!(fish.contains("complete -c paimon-parity"), "{fish}");
    // An unknown shell is clap's usage error, naming the possible values.
    let (code, _, stderr) = paimon_parity(&["completions", "tcsh"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("bash"), "{stderr}");
}

/// `bench` on a small Avro table: the plain apache-avro baseline is measured, `--compare` reads an earlier
/// run's JSON (with the removed probe's `paimon_rust` key, as older reports have) and prints new against old
/// per kind and reader, `--html` writes the chart, `--flamegraph` writes one SVG per kind.
#[test]
fn bench_compares_with_an_earlier_run_and_writes_a_chart_and_flame_graphs() {
    let table = common::corpus("format-avro").join("table");
    let t = table.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.json");
    let bench = |extra: &[&str]| {
        let mut args = vec!["bench", t, "--native-only", "--no-rss", "--samples", "1"];
        args.extend(extra);
        paimon_parity(&args)
    };
    let (code, stdout, stderr) = bench(&["--json", old.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let mut report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&old).unwrap()).unwrap();
    // No paimon-rust probe any more (`--reader paimon-rust` measures it); earlier runs' JSON has its result
    // under `paimon_rust`, which `--compare` below must still read.
    assert!(report.get("paimon_rust").is_none(), "{report:#}");
    report["paimon_rust"] = serde_json::json!({"available": false, "reason": "not built"});
    std::fs::write(&old, serde_json::to_vec(&report).unwrap()).unwrap();
    let kinds = report["kinds"].as_array().unwrap();
    assert!(!kinds.is_empty());
    for k in kinds {
        let plain = k["measurements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == "plain")
            .unwrap_or_else(|| panic!("no plain Avro baseline in {k:#}"));
        // The plain decoder reads every row stored in the files.
        assert_eq!(plain["rows"], k["file_rows"], "{k:#}");
    }
    let html = dir.path().join("bench.html");
    let flame = dir.path().join("flame");
    let (code, stdout, stderr) = bench(&[
        "--json",
        dir.path().join("new.json").to_str().unwrap(),
        "--compare",
        old.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
        "--flamegraph",
        flame.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!("compared with {}", old.display())),
        "{stdout}"
    );
    for k in kinds {
        let kind = k["kind"].as_str().unwrap();
        assert!(
            stdout.contains(&format!("  {kind:<10} native-1t ")),
            "{kind}: {stdout}"
        );
        for name in [format!("{kind}.svg"), format!("{kind}-open-first-row.svg")] {
            let svg = std::fs::read_to_string(flame.join(&name)).unwrap();
            assert!(
                svg.contains("<svg") && svg.contains("native_reader"),
                "{name}"
            );
        }
    }
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<svg") && page.contains("native-1t") && page.contains("plain"));
    assert!(!page.contains("http"), "the chart fetches nothing");
    // A missing earlier run fails before the benchmark, naming the file.
    let (code, _, stderr) = bench(&["--compare", "/nonexistent/old.json"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("/nonexistent/old.json"), "{stderr}");
}

/// The replay page's timeline ends at the snapshot the replay read (C01 has snapshots 1 and 2): a batch of
/// snapshot 1 shows snapshot 1 only, a batch of the latest shows both.
#[test]
fn the_replay_page_shows_the_timeline_up_to_the_replayed_snapshot() {
    let table = common::corpus("c01-key-order").join("table");
    let t = table.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let page = |extra: &[&str], name: &str| {
        let html = dir.path().join(name);
        let mut args = vec![
            "replay",
            t,
            "--mode",
            "batch",
            "-q",
            "--html",
            html.to_str().unwrap(),
        ];
        args.extend(extra);
        let (code, stdout, stderr) = paimon_parity(&args);
        assert_eq!(code, 0, "{stdout}{stderr}");
        std::fs::read_to_string(html).unwrap()
    };
    let first = page(&["--snapshot", "1"], "first.html");
    assert!(first.contains("title=\"snapshot 1 APPEND"), "{first}");
    assert!(!first.contains("title=\"snapshot 2 APPEND"));
    let latest = page(&[], "latest.html");
    assert!(latest.contains("title=\"snapshot 2 APPEND"));
}

/// `bench --reader example`: an external reader is timed on the same splits as the others and returns the
/// released reader's row count on every kind (the expected value: `stock-export`'s rows), with its time to
/// the first byte of each answer and from there to the last; the whole replay is measured at 1 and 2 threads
/// and returns the same rows.
#[test]
fn bench_times_an_external_reader_and_the_whole_replay_on_the_same_splits() {
    let table = common::corpus("lookup-partitioned").join("table");
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bench.json");
    let (code, stdout, stderr) = paimon_parity(&[
        "bench",
        table.to_str().unwrap(),
        "--samples",
        "1",
        "--no-rss",
        "--threads",
        "2",
        "--reader",
        "example",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let kinds = report["kinds"].as_array().unwrap();
    assert_eq!(kinds.len(), 3, "changelog, raw and merge");
    for kind in kinds {
        let rows = |name: &str| {
            kind["measurements"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["name"] == name)
                .map(|m| m["rows"].as_u64().unwrap())
        };
        let stock = rows("stock-export").expect("stock-export");
        for name in ["reader:example", "replay-1t", "replay-par"] {
            assert_eq!(rows(name), Some(stock), "{name} on {}", kind["kind"]);
        }
        let fixed = &kind["fixed_cost_us"];
        assert!(fixed["reader:example-to-first-byte"].as_f64().unwrap() > 0.0);
        assert!(fixed["reader:example-first-to-last-byte"]
            .as_f64()
            .is_some());
        assert!(kind["ratios"]["native-1t vs reader:example"]
            .as_f64()
            .is_some());
        assert!(kind["unmeasured"].as_object().unwrap().is_empty());
    }
    // lookup-partitioned: 98 changelog splits with 209 rows (the table's writes, corpora/README.md).
    assert_eq!(kinds[0]["measurements"][0]["rows"], 209);
}
