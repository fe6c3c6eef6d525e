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

mod common;

use std::process::Command;

fn built(version: &str) -> bool {
    jvm_bridge::jvm::built_versions()
        .1
        .iter()
        .any(|v| v == version)
}

fn case(path: &str) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(common::repo_root().join(path)).unwrap()).unwrap()
}

#[test]
fn the_matrix_of_1_0_0_and_2_0_0_classes_every_cell() {
    if !(built("1.0.0") && built("2.0.0")) {
        eprintln!("skipped: the Java side of 1.0.0 and 2.0.0 is not built (scripts/build-java)");
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
}
