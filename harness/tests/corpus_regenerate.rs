//! Every committed corpus still reproduces its situation: its scenario, run again by the released writer
//! into a temporary directory, gives exactly the committed `case.json` (snapshots and their commit kinds,
//! users and identifiers, what each commit prepared and how it ended, and what the released reader returns
//! from snapshot 1 and in batch). A scenario whose fault no longer fires, whose conflict no longer happens or
//! whose stock summary changed fails here, naming the corpus and the first difference.
//!
//! Corpora written by the release this process's JVM runs are regenerated in-process (one JVM); those written
//! by another release through `paimon-parity corpus generate --paimon-version` (one process each).

mod common;

use common::read_json;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use harness::corpus::{first_json_difference, generate_scenario, load_scenario};
use harness::reader::StockTableReader;

#[test]
fn every_scenario_regenerates_its_committed_case_json() {
    let stock = StockTableReader::new().expect("JVM starts");
    let here = stock.bridge().paimon_version().expect("version");
    // Every committed case.json: the main one of each corpus, and those of other lines beside it
    // (`corpora/<name>/paimon-<V>/`), each from the corpus's scenario.
    let mut corpora = Vec::new();
    let mut failures_early = Vec::new();
    for dir in common::scenario_dirs() {
        let lines: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("case.json").is_file())
            .collect();
        if dir.join("case.json").is_file() {
            corpora.push((dir.clone(), dir.clone()));
        } else if lines.is_empty()
            // A table with absolute paths is never committed (`Scenario::absolute_paths`).
            && !load_scenario(&dir.join("scenario.json")).is_ok_and(|s| s.absolute_paths)
        {
            failures_early.push(format!("{}: no committed table of any line", dir.display()));
        }
        corpora.extend(lines.into_iter().map(|l| (dir.clone(), l)));
    }
    let mut failures = failures_early;
    let mut timings = Vec::new();
    for (corpus, dir) in corpora {
        let name = dir
            .strip_prefix(common::repo_root().join("corpora"))
            .unwrap()
            .display()
            .to_string();
        let scenario_file = corpus.join("scenario.json");
        if !scenario_file.is_file() {
            failures.push(format!("{name}: no scenario.json"));
            continue;
        }
        let committed = read_json(&dir.join("case.json"));
        let version = committed["paimon_version"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join(common::corpus_name(&dir));
        let started = Instant::now();
        let regenerated = if version == here {
            let scenario = load_scenario(&scenario_file).unwrap();
            generate_scenario(&scenario, &out).map_err(|e| e.to_string())
        } else {
            let run = Command::new(env!("CARGO_BIN_EXE_paimon-parity"))
                .args(["corpus", "generate"])
                .arg(&scenario_file)
                .arg("--out")
                .arg(&out)
                .args(["--paimon-version", &version])
                .output()
                .expect("paimon-parity runs");
            if run.status.success() {
                Ok(read_json(&out.join("case.json")))
            } else {
                Err(String::from_utf8_lossy(&run.stderr).into_owned())
            }
        };
        timings.push(format!(
            "{name} ({version}): {:.1} s",
            started.elapsed().as_secs_f64()
        ));
        match regenerated {
            Err(e) => failures.push(format!("{name}: regeneration failed: {e}")),
            Ok(mut case) => {
                let mut committed = committed;
                for key in commit_time_options(&scenario_file) {
                    for json in [&mut committed, &mut case] {
                        if let Some(v) = json["options"].get_mut(&key) {
                            *v = serde_json::Value::from("<a commit time>");
                        }
                    }
                }
                if let Some(d) = first_json_difference(&committed, &case) {
                    failures.push(format!(
                        "{name}: regenerated case.json differs from the committed one at {d}"
                    ));
                }
            }
        }
    }
    eprintln!("regeneration times:\n  {}", timings.join("\n  "));
    assert!(
        failures.is_empty(),
        "{} corpus(es) no longer reproduce:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The table options the scenario sets to a commit time of its own (`set-option-to-snapshot-time`): a new
/// run commits at other times, so their values are the one part of `case.json` that differs.
fn commit_time_options(scenario_file: &Path) -> Vec<String> {
    use harness::corpus::{SchemaChange, Step};
    let scenario = load_scenario(scenario_file).unwrap();
    let mut keys = Vec::new();
    for step in &scenario.steps {
        if let Step::Alter { changes } = step {
            for change in changes {
                if let SchemaChange::SetOptionToSnapshotTime { key, .. } = change {
                    keys.push(key.clone());
                }
            }
        }
    }
    keys
}

/// A scenario whose situation no longer happens fails to generate, saying why.
#[test]
fn scenarios_that_stop_reproducing_fail() {
    let _stock = StockTableReader::new().expect("JVM starts");
    let table = serde_json::json!({
        "fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "v", "type": "INT"}],
        "primaryKeys": ["k"],
        "options": {"bucket": "1"}
    });
    let cases = [
        (
            "fault-never-fires",
            serde_json::json!([
                {"step": "write", "rows": [{"kind": "+I", "values": [1, 10]}]},
                {"step": "commit", "identifier": 1},
                {"step": "arm-fault", "fault": "callback-after-append"}
            ]),
            "armed but never fired",
        ),
        (
            "commit-does-not-fail",
            serde_json::json!([
                {"step": "write", "rows": [{"kind": "+I", "values": [1, 10]}]},
                {"step": "commit", "identifier": 1, "expect_error": "File deletion conflicts"}
            ]),
            "succeeded, the scenario expects it to fail",
        ),
        (
            "no-compaction-changelog",
            serde_json::json!([
                {"step": "write", "rows": [{"kind": "+I", "values": [1, 10]}]},
                {"step": "commit", "identifier": 1, "expect_compact_changelog": true}
            ]),
            "compaction changelog",
        ),
        (
            "identifier-goes-back",
            serde_json::json!([
                {"step": "write", "rows": [{"kind": "+I", "values": [1, 10]}]},
                {"step": "commit", "identifier": 2},
                {"step": "write", "rows": [{"kind": "+I", "values": [1, 11]}]},
                {"step": "commit", "identifier": 2}
            ]),
            "not above its previous one",
        ),
    ];
    for (name, steps, expected) in cases {
        let scenario: harness::corpus::Scenario = serde_json::from_value(serde_json::json!({
            "name": name, "description": "negative", "table": table, "steps": steps
        }))
        .unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let err = generate_scenario(&scenario, &tmp.path().join(name))
            .expect_err(name)
            .to_string();
        assert!(err.contains(expected), "{name}: {err}");
    }
}

/// The committed corpora stay small enough to live in the repository.
#[test]
fn committed_corpora_stay_under_40_mb() {
    fn size(p: &Path) -> u64 {
        let meta = std::fs::symlink_metadata(p).unwrap();
        if meta.is_dir() {
            std::fs::read_dir(p)
                .unwrap()
                .map(|e| size(&e.unwrap().path()))
                .sum()
        } else {
            meta.len()
        }
    }
    let total = size(&common::repo_root().join("corpora"));
    assert!(
        total < 40 * 1024 * 1024,
        "corpora/ holds {total} bytes, over 40 MB"
    );
}
