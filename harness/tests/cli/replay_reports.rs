//! A replay's summary, matrix, JSON, JUnit and HTML reports, its verdicts, and Ctrl-C.

use std::process::Command;

use crate::common::{self, paimon_parity};

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
