//! `--candidate NAME` (README, "Candidates"): the test candidate of `jvm-bridge/tests/fixtures/
//! candidate-marker.patch` (a constant added to `FileStoreCommitImpl`, nothing else changed) on 1.0.0 and
//! 2.0.0 (each that is built). A sweep run by the candidate is labelled as one in every report, its overlay
//! is what the JVM loaded, and it counts the release's own commit (69 operations on 1.0.0, 57 on 2.0.0:
//! shared/docs/commit-crash-points.md); a replay keeps the release as the reference and the candidate as one
//! more reader; an audit names it; an unknown candidate is a usage error naming the build command.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use common::{expect_exit, path_str, read_json, repo_root};

/// Builds are serialised: two tests building one candidate at once would share its work tree.
static BUILD: Mutex<()> = Mutex::new(());

/// `test-marker-<version>`, built from the test patch unless a build newer than the patch and the script is
/// there; `None` when release `version` is not built.
fn candidate(version: &str) -> Option<String> {
    let _one = BUILD.lock().unwrap_or_else(|p| p.into_inner());
    if !jvm_bridge::jvm::build_dir(version).join("classes").is_dir() {
        eprintln!("Paimon {version} is not built: its candidate is not tested");
        return None;
    }
    let name = format!("test-marker-{version}");
    let patch = repo_root().join("jvm-bridge/tests/fixtures/candidate-marker.patch");
    let script = repo_root().join("scripts/build-candidate");
    let built = jvm_bridge::candidate::candidate_dir(&name).join("candidate.json");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let fresh = modified(&built).is_some_and(|b| {
        Some(b) > modified(&patch)
            && Some(b) > modified(&script)
            && Some(b) > modified(&jvm_bridge::jvm::build_dir(version).join("classes"))
    });
    if !fresh {
        let out = Command::new(repo_root().join("scripts/build-java"))
            .args(["--candidate", &name, "--based-on", version, "--patch"])
            .arg(&patch)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Some(name)
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("paimon-parity-candidate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn a_sweep_run_by_a_candidate_is_labelled_as_one_on_1_0_0_and_2_0_0() {
    for (version, ops) in [("1.0.0", 69), ("2.0.0", 57)] {
        let Some(name) = candidate(version) else {
            continue;
        };
        let label = format!("candidate {name} (based on {version}), not a release");
        let (json, junit, html) = (
            temp(&format!("sweep-{version}.json")),
            temp(&format!("sweep-{version}.xml")),
            temp(&format!("sweep-{version}.html")),
        );
        let (out, err) = expect_exit(
            0,
            &[
                "sweep",
                "c00-full-compaction-control",
                "--candidate",
                &name,
                "--ops",
                "1,2",
                "--fault",
                "crash",
                "--json",
                path_str(&json),
                "--junit",
                path_str(&junit),
                "--html",
                path_str(&html),
            ],
        );
        assert!(
            err.contains(&format!("running {label}: 1 patch(es)")),
            "{err}"
        );
        let report = read_json(&json);
        assert_eq!(report["paimon"]["version"], version);
        assert_eq!(report["paimon"]["label"], label.as_str());
        assert_eq!(
            report["paimon_version"], version,
            "the release it is based on"
        );
        let c = &report["paimon"]["candidate"];
        assert_eq!(c["name"], name.as_str());
        assert_eq!(c["based_on"], version);
        assert_eq!(c["patches"][0]["lines_added"], 3);
        let origin = c["overlay_loaded_from"].as_str().unwrap();
        assert!(
            origin.ends_with(&format!("/candidate-{name}/overlay/")),
            "{origin}"
        );
        let sweep = &report["sweep"];
        assert_eq!(sweep["paimon"]["label"], label.as_str());
        assert_eq!(
            sweep["ops"].as_array().unwrap().len(),
            ops,
            "the release's commit"
        );
        assert_eq!(sweep["totals"]["crash"]["OK"], 2, "{}", sweep["totals"]);
        // Text: the report's own first line (stdout holds only the text: the JSON went to a file).
        let first = out.lines().next().unwrap();
        assert_eq!(
            first,
            format!(
                "paimon-parity sweep c00-full-compaction-control ({label}): commit 2 of user \
                 paimon-parity-corpus, {ops} file operations"
            )
        );
        let junit = std::fs::read_to_string(&junit).unwrap();
        assert!(
            junit.contains(&format!("commit 2 crash ({label})\"")),
            "{junit}"
        );
        let html = std::fs::read_to_string(&html).unwrap();
        assert!(
            html.contains(&format!("commit 2 ({label})</h1>")),
            "no label in the page title"
        );
    }
}

#[test]
fn a_replay_keeps_the_release_as_the_reference_and_diffs_the_candidate() {
    let version = common::line_version();
    let Some(name) = candidate(&version) else {
        panic!("this process's release {version} must be built");
    };
    let table = common::line_corpora(&version)
        .into_iter()
        .find(|d| common::corpus_name(d) == "c00-full-compaction-control")
        .unwrap()
        .join("table");
    let json = temp("replay.json");
    let junit = temp("replay.xml");
    let (out, _) = expect_exit(
        0,
        &[
            "replay",
            path_str(&table),
            "--candidate",
            &name,
            "--json",
            path_str(&json),
            "--junit",
            path_str(&junit),
        ],
    );
    let report = read_json(&json);
    // The oracle is the release: this process ran no candidate.
    assert_eq!(report["paimon_version"], version.as_str());
    assert_eq!(report["paimon"]["candidate"], serde_json::Value::Null);
    assert_eq!(report["paimon"]["label"], format!("Paimon {version}"));
    let compared = &report["paimon"]["compared_candidates"];
    assert_eq!(compared.as_array().unwrap().len(), 1);
    assert_eq!(compared[0]["name"], name.as_str());
    let runs = report["runs"].as_array().unwrap();
    let readers: Vec<&str> = runs.iter().map(|r| r["reader"].as_str().unwrap()).collect();
    let reader = format!("candidate@{name}");
    assert_eq!(readers, ["native", reader.as_str()]);
    let label = format!("candidate {name} (based on {version}), not a release");
    assert_eq!(runs[1]["reader_version"], format!("{reader} ({label})"));
    assert_eq!(runs[1]["verdict"], "identical");
    // C00 control: +I(1,10), then -U(1,10) +U(1,20), from both the release and the candidate.
    let kinds = |rows: &serde_json::Value| {
        ["insert", "update_before", "update_after", "delete"].map(|k| rows[k].as_u64().unwrap())
    };
    assert_eq!(kinds(&runs[1]["stock_rows"]), [1, 1, 1, 0]);
    assert_eq!(
        kinds(&runs[1]["native_rows"]),
        [1, 1, 1, 0],
        "the candidate's rows"
    );
    assert!(
        out.contains(&format!(
            "{reader} is {label}; the reference is the released Paimon {version}"
        )),
        "{out}"
    );
    let junit = std::fs::read_to_string(&junit).unwrap();
    assert!(
        junit.contains(&format!("stream / {reader} ({label})")),
        "{junit}"
    );
}

#[test]
fn an_audit_names_the_candidate_and_finds_what_the_release_finds() {
    let version = common::line_version();
    let Some(name) = candidate(&version) else {
        panic!("this process's release {version} must be built");
    };
    let table = common::line_corpora(&version)
        .into_iter()
        .find(|d| common::corpus_name(d) == "c00-full-compaction-fault")
        .unwrap()
        .join("table");
    let json = temp("audit.json");
    let (out, _) = expect_exit(
        1,
        &[
            "audit",
            path_str(&table),
            "--reader",
            "stock",
            "--candidate",
            &name,
            "--json",
            path_str(&json),
        ],
    );
    let label = format!("candidate {name} (based on {version}), not a release");
    assert_eq!(out.lines().next().unwrap(), format!("audited with {label}"));
    let report = read_json(&json);
    assert_eq!(report["paimon"]["label"], label.as_str());
    assert_eq!(
        report["audit"]["verdict"], "changelog-lost",
        "{}",
        report["audit"]["verdict"]
    );
}

#[test]
fn an_unknown_candidate_is_a_usage_error_naming_the_build_command() {
    let (_, err) = expect_exit(
        2,
        &[
            "sweep",
            "c00-full-compaction-control",
            "--candidate",
            "no-such-candidate",
        ],
    );
    assert!(
        err.contains("no candidate `no-such-candidate` is built"),
        "{err}"
    );
    assert!(
        err.contains("scripts/build-java --candidate no-such-candidate --based-on V --patch FILE"),
        "{err}"
    );
}
