//! C00 (`shared/cases`), the reason this project exists, on every released line that is built.
//!
//! With the fault (one manifest read fails after commit 2's APPEND snapshot is durable, or a commit callback
//! throws there; then `filterAndCommit` with the same commit user) the latest snapshot is APPEND, the batch
//! read gives `(1,20)`, and the streaming changelog from snapshot 1 has no row for `(1,20)`. In the control
//! the latest snapshot is COMPACT and the changelog has `-U (1,10)` and `+U (1,20)`. Expected values come from
//! the writes.
//!
//! The committed corpora are read here by this process's released reader; every other release listed in
//! `PAIMON_PARITY_BUILD_VERSIONS` (space-separated, as `scripts/build-java` takes it) writes and reads the
//! scenarios afresh in its own process (`paimon-parity corpus generate --paimon-version V`).

use crate::common;

use std::path::Path;
use std::process::Command;

use harness::corpus::{snapshot_summaries, DEFAULT_USER};
use harness::reader::{StockTableReader, TableReader};
use native_reader::scan::ScanMode;
use serde_json::Value;

/// What C00 is judged on: the latest snapshot's kind, the batch rows, the changelog rows.
struct Observed {
    latest_kind: String,
    batch: Vec<String>,
    changelog: Vec<String>,
}

fn check(label: &str, fault: bool, o: &Observed) {
    assert_eq!(o.batch, vec!["+I (1, 20)"], "{label}: batch read");
    assert!(
        o.changelog.first().map(String::as_str) == Some("+I (1, 10)"),
        "{label}: changelog {:?}",
        o.changelog
    );
    if fault {
        assert_eq!(o.latest_kind, "APPEND", "{label}: latest snapshot");
        assert!(
            !o.changelog.iter().any(|r| r.contains("(1, 20)")),
            "{label}: the changelog must have no row for (1,20), got {:?}",
            o.changelog
        );
    } else {
        assert_eq!(o.latest_kind, "COMPACT", "{label}: latest snapshot");
        assert_eq!(
            o.changelog,
            vec!["+I (1, 10)", "-U (1, 10)", "+U (1, 20)"],
            "{label}: changelog"
        );
    }
}

fn rows(stock: &StockTableReader, table: &Path, mode: ScanMode, end: i64) -> Vec<String> {
    let mut out = Vec::new();
    for split in stock.plan(table, mode, end).unwrap() {
        for batch in stock.read_split(table, &split).unwrap() {
            let batch = batch.unwrap();
            for r in 0..batch.num_rows() {
                out.push(harness::diff::render_row(&batch, r));
            }
        }
    }
    out
}

fn is_fault(name: &str) -> Option<bool> {
    if !name.starts_with("c00-") {
        None
    } else if name.contains("fault") {
        Some(true)
    } else if name.contains("control") {
        Some(false)
    } else {
        None
    }
}

#[test]
fn committed_c00_corpora_show_the_lost_changelog() {
    let stock = StockTableReader::new().expect("JVM starts");
    let here = stock.bridge().paimon_version().unwrap();
    let mut checked = 0;
    for dir in common::line_corpora(&here) {
        let name = common::corpus_name(&dir);
        let Some(fault) = is_fault(&name) else {
            continue;
        };
        assert_eq!(common::written_by(&dir), here, "{}", dir.display());
        let table = std::fs::canonicalize(dir.join("table")).unwrap();
        let snapshots = snapshot_summaries(&table).unwrap();
        let latest = snapshots.last().unwrap();
        assert!(snapshots.iter().all(|s| s.commit_user == DEFAULT_USER));
        let observed = Observed {
            latest_kind: latest.commit_kind.clone(),
            batch: rows(
                &stock,
                &table,
                ScanMode::Batch { snapshot: None },
                latest.id,
            ),
            changelog: rows(
                &stock,
                &table,
                ScanMode::Stream { from_snapshot: 1 },
                latest.id,
            ),
        };
        check(&format!("{name} (Paimon {here})"), fault, &observed);
        checked += 1;
    }
    assert!(
        checked >= 4,
        "expected C00 control and fault corpora, checked {checked}"
    );
}

/// The releases to check: `PAIMON_PARITY_BUILD_VERSIONS`, else the default one.
fn built_versions() -> Vec<String> {
    std::env::var("PAIMON_PARITY_BUILD_VERSIONS")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| jvm_bridge::jvm::DEFAULT_PAIMON_VERSION.to_owned())
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

fn observed_from_case(case: &Value) -> Observed {
    let snapshots = case["snapshots"].as_array().unwrap();
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let changelog = case["expected"]["stream_from_snapshot_1"]["per_split"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| strings(&s["values"]))
        .collect();
    Observed {
        latest_kind: snapshots.last().unwrap()["commit_kind"]
            .as_str()
            .unwrap()
            .to_owned(),
        batch: strings(&case["expected"]["batch_latest"]["values"]),
        changelog,
    }
}

#[test]
fn every_built_line_reproduces_c00() {
    for version in built_versions() {
        for (scenario, fault) in [
            ("c00-full-compaction-control", false),
            ("c00-full-compaction-fault", true),
        ] {
            let tmp = tempfile::tempdir().unwrap();
            let out = tmp.path().join(scenario);
            let run = Command::new(env!("CARGO_BIN_EXE_paimon-parity"))
                .args(["corpus", "generate"])
                .arg(common::corpus(scenario).join("scenario.json"))
                .arg("--out")
                .arg(&out)
                .args(["--paimon-version", &version])
                .output()
                .expect("paimon-parity runs");
            assert!(
                run.status.success(),
                "{scenario} with Paimon {version}: {}",
                String::from_utf8_lossy(&run.stderr)
            );
            let case: Value =
                serde_json::from_slice(&std::fs::read(out.join("case.json")).unwrap()).unwrap();
            assert_eq!(case["paimon_version"], version.as_str());
            check(
                &format!("{scenario} (Paimon {version})"),
                fault,
                &observed_from_case(&case),
            );
        }
    }
}

/// The two-writer tables of the original failure report: writer-a's last commit published its APPEND
/// snapshot and gave up its COMPACT on a file deletion conflict with writer-b; the restarted writer-a's
/// `filterAndCommit` committed nothing, so no COMPACT snapshot of writer-a carries that identifier, while
/// the batch read shows writer-a's final rows.
#[test]
fn two_writer_corpora_lose_the_final_compact() {
    for name in ["two-writers-lookup", "two-writers-full-compaction"] {
        let dir = common::corpus(name);
        let case: Value =
            serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
        let snapshots =
            snapshot_summaries(&std::fs::canonicalize(dir.join("table")).unwrap()).unwrap();
        let last_a: Vec<_> = snapshots
            .iter()
            .filter(|s| s.commit_user == "writer-a" && s.commit_identifier == 100)
            .map(|s| s.commit_kind.as_str())
            .collect();
        assert_eq!(last_a, vec!["APPEND"], "{name}: writer-a's identifier 100");
        let b: Vec<_> = snapshots
            .iter()
            .filter(|s| s.commit_user == "writer-b" && s.commit_identifier == 100)
            .map(|s| s.commit_kind.as_str())
            .collect();
        assert_eq!(
            b,
            vec!["APPEND", "COMPACT"],
            "{name}: writer-b's identifier 100"
        );
        let outcomes: Vec<&str> = case["commits"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["user"] == "writer-a" && c["identifier"] == 100)
            .map(|c| c["outcome"].as_str().unwrap())
            .collect();
        assert_eq!(
            outcomes,
            vec![
                "failed: File deletion conflicts detected",
                "recovered: 0 committed"
            ],
            "{name}"
        );
        let batch = case["expected"]["batch_latest"]["values"]
            .as_array()
            .unwrap();
        assert_eq!(batch.len(), 450, "{name}: live keys");
        assert!(
            batch
                .iter()
                .any(|v| v.as_str().unwrap().contains("writer-a-final-k1\"")),
            "{name}: writer-a's final rows are in the batch read"
        );
    }
}
