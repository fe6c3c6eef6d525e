//! `paimon-parity upgrade-matrix` on 1.0.0 -> 2.0.0 with two committed corpora, both written by each release
//! (`corpora/<name>/table` by 1.0.0, `corpora/<name>/paimon-2.0.0/table` by 2.0.0: nothing is generated), in
//! the `stream` and `batch` scans.
//!
//! Expected values come from the released readers' own records of these tables, not from the native reader:
//!
//! - `format-parquet`: a deduplicate table; every release reads it the same (both `case.json` record the same
//!   stream and batch).
//! - `c19-aggregation-sequence-field`: `merge-engine=aggregation`, `sequence.field=s`, default function `sum`,
//!   rows `(k=1, s=1, v=10)` then `(1, 2, 20)`. The released 1.0.0 reader's batch read of the 1.0.0 table is
//!   `+I (1, 3, 30)` (`corpora/c19-aggregation-sequence-field/case.json`: 1.0.0 sums the sequence field like
//!   any column), the released 2.0.0 reader's of the 2.0.0 table `+I (1, 2, 30)` (`paimon-2.0.0/case.json`:
//!   from 1.1.0 a sequence field is aggregated with `last_value`, apache/paimon#5065). The stream (one split
//!   per snapshot, no merge) is the same for both. So when 2.0.0 reads 1.0.0's table, its batch read is
//!   `s = 2` where 1.0.0's own is `s = 3`: an upgrade finding, with the rule `sequence_field_aggregation`.
//!
//! Then the matrix's verdicts without evidence (issue 33), on the real binary: bad `--releases` (exit 2), a
//! matrix with no cell or releases not built (exit 3, never 0), a scenario the writer fails on (a failing
//! `not-written` cell, exit 1), and that failure tried again by the next run.

use crate::common;

use std::path::Path;
use std::process::Command;

fn built(version: &str) -> bool {
    jvm_bridge::jvm::built_versions()
        .1
        .iter()
        .any(|v| v == version)
}

/// Whether the releases a test needs are built. A release `PAIMON_PARITY_BUILD_VERSIONS` leaves out (as
/// `scripts/test` takes it: the releases asked for) leaves the test out, saying so; a release asked for (or
/// any, without that variable) that is not built fails the test, naming the command that builds it.
fn needs(releases: &[&str]) -> bool {
    if let Ok(asked) = std::env::var("PAIMON_PARITY_BUILD_VERSIONS") {
        let asked: Vec<&str> = asked.split_whitespace().collect();
        if let Some(r) = releases.iter().find(|r| !asked.contains(r)) {
            eprintln!("left out: PAIMON_PARITY_BUILD_VERSIONS does not ask for Paimon {r}");
            return false;
        }
    }
    for r in releases {
        assert!(
            built(r),
            "the Java side of Paimon {r} is not built: run `scripts/build-java --paimon-version {r}`"
        );
    }
    true
}

/// Runs `paimon-parity upgrade-matrix <args>` with `env` set (and no release chosen by the environment):
/// exit status, stdout, stderr.
fn upgrade_matrix(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_paimon-parity"))
        .arg("upgrade-matrix")
        .args(args)
        .env_remove("PAIMON_PARITY_PAIMON_VERSION")
        .env_remove("PAIMON_PARITY_JVM_OPTIONS")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn case(path: &str) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(common::repo_root().join(path)).unwrap()).unwrap()
}

#[test]
fn the_matrix_of_1_0_0_and_2_0_0_classes_every_cell() {
    if !needs(&["1.0.0", "2.0.0"]) {
        return;
    }
    // The released readers' own records (see the module doc).
    let c19_10 = case("corpora/c19-aggregation-sequence-field/case.json");
    let c19_20 = case("corpora/c19-aggregation-sequence-field/paimon-2.0.0/case.json");
    assert_eq!(c19_10["paimon_version"], "1.0.0");
    assert_eq!(c19_20["paimon_version"], "2.0.0");
    assert_eq!(
        c19_10["expected"]["batch_latest"]["values"],
        serde_json::json!(["+I (1, 3, 30)"])
    );
    assert_eq!(
        c19_20["expected"]["batch_latest"]["values"],
        serde_json::json!(["+I (1, 2, 30)"])
    );

    let work = tempfile::tempdir().unwrap();
    let json = work.path().join("matrix.json");
    let html = work.path().join("matrix.html");
    let junit = work.path().join("matrix.xml");
    let out = Command::new(env!("CARGO_BIN_EXE_paimon-parity"))
        .args([
            "upgrade-matrix",
            "c19-aggregation-sequence-field",
            "format-parquet",
        ])
        .args([
            "--releases",
            "2.0.0,1.0.0",
            "--mode",
            "stream,batch",
            "--work",
        ])
        .arg(work.path().join("work"))
        .arg("--json")
        .arg(&json)
        .arg("--html")
        .arg(&html)
        .arg("--junit")
        .arg(&junit)
        .env_remove("PAIMON_PARITY_PAIMON_VERSION")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "findings alone exit 0: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["command"], "upgrade-matrix");
    assert_eq!(report["status"], "complete");
    assert_eq!(report["exit_code"], 0);
    assert_eq!(report["paimon_version"], "1.0.0,2.0.0");
    let m = &report["upgrade_matrix"];
    assert_eq!(m["releases"], serde_json::json!(["1.0.0", "2.0.0"]));
    let pairs: Vec<(String, String, u64, u64, u64)> = m["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["written_by"].as_str().unwrap().to_owned(),
                p["read_by"].as_str().unwrap().to_owned(),
                p["cells"].as_u64().unwrap(),
                p["identical"].as_u64().unwrap(),
                p["upgrade_findings"].as_u64().unwrap(),
            )
        })
        .collect();
    let pair = |a: &str, b: &str, cells, identical, findings| {
        (a.to_owned(), b.to_owned(), cells, identical, findings)
    };
    assert_eq!(
        pairs,
        [
            pair("1.0.0", "1.0.0", 4, 4, 0),
            pair("1.0.0", "2.0.0", 4, 3, 1),
            pair("2.0.0", "2.0.0", 4, 4, 0),
        ]
    );
    // Every table came from the repository.
    assert!(m["corpora"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["origin"] == "committed"));

    let cells = m["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 12);
    let cell = |a: &str, b: &str, corpus: &str, mode: &str| {
        cells
            .iter()
            .find(|c| {
                c["written_by"] == a
                    && c["read_by"] == b
                    && c["corpus"] == corpus
                    && c["mode"] == mode
            })
            .unwrap_or_else(|| panic!("no cell {a} {b} {corpus} {mode}"))
    };
    let finding = cell("1.0.0", "2.0.0", "c19-aggregation-sequence-field", "batch");
    assert_eq!(finding["class"], "upgrade-finding", "{finding:#}");
    assert_eq!(finding["native"]["verdict"], "identical");
    assert_eq!(finding["stock_at"]["reader"], "stock@1.0.0");
    assert_eq!(finding["stock_at"]["verdict"], "different");
    // Rows, not counts: one row on each side, s = 2 (2.0.0) against s = 3 (1.0.0's own reading).
    let detail = finding["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("decoding at snapshot 2")
            && detail.ends_with("field s: stock 2 vs stock@1.0.0 3"),
        "{detail}"
    );
    assert_eq!(finding["stock_at"]["stock_rows"]["insert"], 1);
    assert_eq!(finding["stock_at"]["reader_rows"]["insert"], 1);
    assert_eq!(
        finding["candidate_rules"],
        serde_json::json!([{
            "rule": "sequence_field_aggregation",
            "written_by_value": "Default",
            "read_by_value": "LastValue"
        }])
    );
    assert_eq!(finding["native_follows_both"], true);
    for (a, b, corpus, mode) in [
        ("1.0.0", "1.0.0", "c19-aggregation-sequence-field", "batch"),
        ("2.0.0", "2.0.0", "c19-aggregation-sequence-field", "batch"),
        ("1.0.0", "2.0.0", "c19-aggregation-sequence-field", "stream"),
        ("1.0.0", "2.0.0", "format-parquet", "stream"),
        ("1.0.0", "2.0.0", "format-parquet", "batch"),
    ] {
        let c = cell(a, b, corpus, mode);
        assert_eq!(c["class"], "identical", "{c:#}");
        assert_eq!(c["stock_at"].is_null(), a == b, "{c:#}");
    }
    // Release 1.0.0's own rows in the matrix are the ones its `case.json` records.
    let own = cell("1.0.0", "2.0.0", "format-parquet", "batch");
    let recorded = &case("corpora/format-parquet/case.json")["expected"]["batch_latest"]["rows"];
    let rows = &own["stock_at"]["reader_rows"];
    assert_eq!(
        [
            &rows["insert"],
            &rows["update_before"],
            &rows["update_after"],
            &rows["delete"]
        ],
        [&recorded[0], &recorded[1], &recorded[2], &recorded[3]]
    );

    // The text: the table, the finding with its rule, the verdict.
    assert!(text.contains("| 1.0.0 | 4/4 | 3/4, 1 finding |"), "{text}");
    assert!(text.contains("| 2.0.0 |  | 4/4 |"), "{text}");
    assert!(
        text.contains(
            "1.0.0 -> 2.0.0 c19-aggregation-sequence-field (batch): decoding at snapshot 2"
        ),
        "{text}"
    );
    assert!(
        text.contains("rules: sequence_field_aggregation (Default -> LastValue)"),
        "{text}"
    );
    assert!(
        text.contains("NATIVE IDENTICAL: 3 pairs, 12 cells (11 identical"),
        "{text}"
    );

    // The page and the JUnit XML.
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Upgrade findings (1)"), "{page}");
    assert!(page.contains("sequence_field_aggregation"));
    assert!(!page.contains("http://") && !page.contains("https://") && !page.contains("<script"));
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(xml.matches("<testcase ").count(), 12);
    assert!(xml.contains("<system-out>upgrade finding: decoding at snapshot 2"));
    assert!(!xml.contains("<failure"));
}

#[test]
fn bad_arguments_exit_2_before_any_work() {
    let (code, _, err) = common::paimon_parity(&["upgrade-matrix", "--releases", "1.3.0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("1.3.0"), "{err}");
    let (code, _, err) = common::paimon_parity(&["upgrade-matrix", "no-such-scenario"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no scenario `no-such-scenario`"), "{err}");
    // No release at all.
    let (code, _, err) = upgrade_matrix(&["c01-key-order", "--releases", ""], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--releases: no release to run"), "{err}");
}

#[test]
fn a_release_named_and_not_built_is_a_usage_error_naming_the_build_command() {
    let (_, built) = jvm_bridge::jvm::built_versions();
    let absent: Vec<String> = native_reader::PaimonRelease::ALL
        .iter()
        .map(|r| r.to_string())
        .filter(|r| !built.contains(r))
        .collect();
    if absent.is_empty() {
        eprintln!("left out: every release is built here, none to name as not built");
        return;
    }
    for r in &absent {
        let (code, out, err) =
            upgrade_matrix(&["c01-key-order", "--releases", &format!("1.0.0,{r}")], &[]);
        assert_eq!(code, 2, "{out}{err}");
        assert!(
            err.contains(&format!(
                "--releases: {r}: the Java side of Paimon {r} is not built"
            )) && err.contains(&format!("`scripts/build-java --paimon-version {r}`")),
            "{err}"
        );
    }
}

#[test]
fn a_matrix_without_a_cell_exits_3_with_the_reason() {
    if !needs(&["1.0.0"]) {
        return;
    }
    // C16 is written by 2.0.0 only: run on 1.0.0 alone, the matrix has no cell (and starts no JVM).
    let dir = tempfile::tempdir().unwrap();
    let (report, junit) = (dir.path().join("m.json"), dir.path().join("m.xml"));
    let work = dir.path().join("work");
    let (code, out, err) = upgrade_matrix(
        &[
            "c16-postpone-bucket",
            "--releases",
            "1.0.0",
            "--mode",
            "batch",
            "--work",
            work.to_str().unwrap(),
            "--json",
            report.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 3, "{out}{err}");
    let why = "no cell: none of the releases run (1.0.0) writes any of the scenarios \
               (c16-postpone-bucket by 1.0.0: the scenario is written by Paimon 2.0.0 only)";
    assert!(out.contains(&format!("NOTHING COMPARED ({why})")), "{out}");
    let r = json(&report);
    assert_eq!(r["exit_code"], 3);
    assert_eq!(r["not_checked"], serde_json::json!([why]));
    assert_eq!(r["upgrade_matrix"]["cells"], serde_json::json!([]));
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("<failure message=\"nothing-compared\">no cell: none of the releases run"),
        "{xml}"
    );
}

#[test]
fn releases_all_names_each_release_not_built_and_never_exits_0() {
    if !needs(&["1.0.0"]) {
        return;
    }
    let (_, built) = jvm_bridge::jvm::built_versions();
    let absent: Vec<String> = native_reader::PaimonRelease::ALL
        .iter()
        .map(|r| r.to_string())
        .filter(|r| !built.contains(r))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let (report, junit) = (dir.path().join("m.json"), dir.path().join("m.xml"));
    let work = dir.path().join("work");
    // C16, written by 2.0.0 only, in the stream scan: one identical cell when 2.0.0 is built.
    let (code, out, err) = upgrade_matrix(
        &[
            "c16-postpone-bucket",
            "--releases",
            "all",
            "--mode",
            "stream",
            "--work",
            work.to_str().unwrap(),
            "--json",
            report.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ],
        &[],
    );
    let r = json(&report);
    let m = &r["upgrade_matrix"];
    let not_built: Vec<&str> = m["not_built"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["release"].as_str().unwrap())
        .collect();
    assert_eq!(not_built, absent, "{out}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    for a in &absent {
        let build = format!("scripts/build-java --paimon-version {a}");
        assert!(
            out.contains(&format!("  Paimon {a}: build it with `{build}`")),
            "{out}"
        );
        assert!(
            r["not_checked"].as_array().unwrap().iter().any(|w| w
                .as_str()
                .unwrap()
                .contains(&format!("Paimon {a} is not built"))),
            "{r:#}"
        );
        assert!(
            xml.contains(&format!("<skipped message=\"not built: {build}\"/>")),
            "{xml}"
        );
    }
    if built.iter().any(|b| b == "2.0.0") {
        let cells = m["cells"].as_array().unwrap();
        assert_eq!(cells.len(), 1, "{out}");
        assert_eq!(cells[0]["class"], "identical", "{out}");
        assert_eq!(
            (&cells[0]["written_by"], &cells[0]["read_by"]),
            (&"2.0.0".into(), &"2.0.0".into())
        );
    }
    // Evidence of every release asked for, or exit 3.
    let want = if absent.is_empty() && built.iter().any(|b| b == "2.0.0") {
        0
    } else {
        3
    };
    assert_eq!(code, want, "{out}{err}");
    assert_eq!(r["exit_code"], want);
}

/// A copy of C01's scenario in `dir` (no committed table beside it: the matrix writes it), with `edit`.
fn c01_scenario(dir: &Path, edit: impl Fn(String) -> String) -> std::path::PathBuf {
    let text =
        std::fs::read_to_string(common::repo_root().join("corpora/c01-key-order/scenario.json"))
            .unwrap();
    let file = dir.join("scenario.json");
    std::fs::write(&file, edit(text)).unwrap();
    file
}

#[test]
fn a_scenario_the_writer_fails_on_is_a_failing_not_written_cell() {
    if !needs(&["1.0.0"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Paimon refuses the table: `bucket` is no number.
    let scenario = c01_scenario(dir.path(), |t| {
        t.replace("\"bucket\": \"1\"", "\"bucket\": \"not-a-number\"")
    });
    let (report, junit) = (dir.path().join("m.json"), dir.path().join("m.xml"));
    let (code, out, err) = upgrade_matrix(
        &[
            scenario.to_str().unwrap(),
            "--releases",
            "1.0.0",
            "--mode",
            "stream,batch",
            "--work",
            dir.path().join("work").to_str().unwrap(),
            "--json",
            report.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 1, "{out}{err}");
    let writer = "Could not parse value 'not-a-number' for key 'bucket'";
    let r = json(&report);
    assert_eq!(r["exit_code"], 1);
    let m = &r["upgrade_matrix"];
    assert_eq!(m["corpora"][0]["origin"], "not-written");
    let cells = m["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2, "{m:#}");
    for (c, mode) in cells.iter().zip(["stream", "batch"]) {
        assert_eq!(c["class"], "not-written");
        assert_eq!(c["mode"], mode);
        assert!(c["detail"].as_str().unwrap().contains(writer), "{c:#}");
    }
    assert_eq!(m["pairs"][0]["not_written"], 2);
    assert_eq!(m["pairs"][0]["cells"], 2);
    assert!(out.contains("| 1.0.0 | 0/2, 2 not written |"), "{out}");
    assert!(out.contains("NOT WRITTEN: 2 cells"), "{out}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(
        xml.matches("<failure message=\"not-written\">").count(),
        2,
        "{xml}"
    );
    assert!(
        xml.contains("Could not parse value &apos;not-a-number&apos; for key &apos;bucket&apos;"),
        "{xml}"
    );
}

#[test]
fn a_failed_write_is_tried_again_by_the_next_run() {
    if !needs(&["1.0.0"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let scenario = c01_scenario(dir.path(), |t| t);
    let report = dir.path().join("m.json");
    let work = dir.path().join("work");
    let args = [
        scenario.to_str().unwrap(),
        "--releases",
        "1.0.0",
        "--mode",
        "batch",
        "--work",
        work.to_str().unwrap(),
        "--json",
        report.to_str().unwrap(),
    ];
    // The first run's writer cannot start its JVM (a failure of the machine, not of the scenario).
    let (code, out, err) =
        upgrade_matrix(&args, &[("PAIMON_PARITY_JVM_OPTIONS", "-XX:+NoSuchOption")]);
    assert_eq!(code, 1, "{out}{err}");
    let first = json(&report);
    assert_eq!(
        first["upgrade_matrix"]["corpora"][0]["origin"],
        "not-written"
    );
    assert!(out.contains("cannot start the JVM"), "{out}");
    // The next run writes it and compares: the released reader's batch rows are the ones C01's writes give
    // (`corpora/c01-key-order/case.json`, recorded by the released 1.0.0 reader).
    let (code, out, err) = upgrade_matrix(&args, &[]);
    assert_eq!(code, 0, "{out}{err}");
    let second = json(&report);
    let m = &second["upgrade_matrix"];
    assert_eq!(m["corpora"][0]["origin"], "generated", "{m:#}");
    let cell = &m["cells"][0];
    assert_eq!(cell["class"], "identical", "{cell:#}");
    let recorded = &json(&common::repo_root().join("corpora/c01-key-order/case.json"))["expected"]
        ["batch_latest"]["rows"];
    let rows = &cell["native"]["stock_rows"];
    assert_eq!(
        [
            &rows["insert"],
            &rows["update_before"],
            &rows["update_after"],
            &rows["delete"]
        ],
        [&recorded[0], &recorded[1], &recorded[2], &recorded[3]]
    );
}
