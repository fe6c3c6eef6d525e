//! The other subcommands and flags: `inspect`, `bench`, `completions`, `--version`, `--help`, and a closed
//! stdout.

use std::process::Command;

use crate::common::{self, paimon_parity};

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
