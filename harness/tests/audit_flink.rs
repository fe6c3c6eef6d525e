//! The audit on the tables the stock Paimon Flink connector wrote (`corpora/flink/<name>`, issue 36), against
//! each job's own truth (`truth.json`: computed from the job's input and its snapshot timeline, never from the
//! audit): every commit whose due compaction's COMPACT half never became durable is named (user, identifier,
//! APPEND snapshot) and nothing else is, the verdict follows, the keys whose final value never reached the stream
//! are exactly the truth's (with its classes), an uncommitted changelog file is a finding only when it is tied to
//! such a commit, and the changelog files an aborted attempt left (truth's `aborted_attempts`, from the job's
//! failure log) are listed as `aborted-attempt`, never as findings. The native reader audits every table with
//! the rules of the release that wrote it, so this runs once, whatever the release line of the process.

use crate::common;

use std::collections::BTreeSet;

use serde_json::Value;

#[test]
fn the_audit_names_exactly_the_commits_whose_compact_half_the_jobs_lost() {
    let dirs = harness::corpus::flink_corpora(&common::repo_root().join("corpora"));
    assert!(dirs.len() >= 8, "{dirs:?}");
    let mut lossy = 0;
    let mut unhealed = 0;
    let mut aborted_tables = 0;
    let mut aborted_listed = 0;
    for dir in dirs {
        let truth = common::read_json(&dir.join("truth.json"));
        let release = common::written_by(&dir);
        let json = tempfile::NamedTempFile::new().unwrap();
        let table = dir.join("table");
        let (code, out, err) = common::paimon_parity(&[
            "audit",
            common::path_str(&table),
            "--paimon-version",
            &release,
            "--reader",
            "native",
            "--json",
            common::path_str(json.path()),
        ]);
        let name = common::corpus_name(&dir);
        let report = common::read_json(json.path());
        let audit = &report["audit"];
        let lost = |v: &Value| -> BTreeSet<(String, i64, i64)> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|h| {
                    (
                        h["commit_user"].as_str().unwrap().to_owned(),
                        h["identifier"].as_i64().unwrap(),
                        h["append_snapshot"].as_i64().unwrap(),
                    )
                })
                .collect()
        };
        let want = lost(&truth["lost_compact_halves"]);
        let found: BTreeSet<(String, i64, i64)> = audit["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["status"] == "incomplete" || p["status"] == "lost-healed-later")
            .map(|p| {
                (
                    p["commit_user"].as_str().unwrap().to_owned(),
                    p["commit_identifier"].as_i64().unwrap(),
                    p["append_snapshots"][0].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(found, want, "{name}: {out}{err}");
        // The keys whose final value never reached the stream, and how, as the truth has them from the job's
        // input: an absent expected row is a delete the stream missed; a stream that last retracted the key
        // shows it deleted.
        let truth_keys: BTreeSet<(i64, &str)> = truth["stream_differences"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let class = match (d["expected"].is_null(), d["actual"].is_null()) {
                    (true, _) => "present-in-stream-absent-from-table",
                    (false, true) if d["retracted"] == true => "deleted-in-stream-present-in-table",
                    _ => "final-value-never-delivered",
                };
                (d["k"].as_i64().unwrap(), class)
            })
            .collect();
        let audit_keys: BTreeSet<(i64, &str)> = audit["completeness"][0]["missing"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["key_values"]["k"].as_i64().unwrap(),
                    m["class"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(audit_keys, truth_keys, "{name}: {out}");
        let (verdict, exit) = if want.is_empty() {
            ("complete", 0)
        } else {
            lossy += 1;
            ("changelog-lost", 1)
        };
        assert_eq!(
            (audit["verdict"].as_str(), code),
            (Some(verdict), exit),
            "{name}: {out}"
        );
        if !want.is_empty() {
            // Healed later when every final value reached the stream; else the commit is incomplete and the
            // keys above are blamed on it.
            let healed = truth_keys.is_empty();
            unhealed += usize::from(!healed);
            assert!(
                out.contains(if healed {
                    "CHANGELOG LOST, HEALED LATER"
                } else {
                    "INCOMPLETE"
                }),
                "{name}: {out}"
            );
            for (user, identifier, _) in &want {
                let words = if *identifier == i64::MAX {
                    format!("user {user} identifier MAX")
                } else {
                    format!("user {user} identifier {identifier} (APPEND snapshot")
                };
                assert!(out.contains(&words), "{name}: {out}");
            }
            for m in audit["completeness"][0]["missing"].as_array().unwrap() {
                assert!(
                    want.iter()
                        .any(|w| Some(w.1) == m["lost_with_identifier"].as_i64()),
                    "{name}: key {} is blamed on no lost commit",
                    m["key"]
                );
            }
        }
        // The changelog files an aborted attempt left: listed as such, and not findings. One whose records the
        // stream has all the same (a re-run that cut its checkpoints where the aborted attempt did writes the
        // same changelog again) is `nothing-lacking`, also not a finding; no other file is an aborted attempt.
        let aborted: BTreeSet<String> = truth["aborted_attempts"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|f| f.as_str().unwrap().rsplit('/').next().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default();
        let files = audit["uncommitted"]["files"].as_array().unwrap();
        for f in &aborted {
            let class = files
                .iter()
                .find(|u| u["file"] == f.as_str())
                .map(|u| u["class"].as_str().unwrap());
            assert!(
                matches!(class, Some("aborted-attempt" | "nothing-lacking")),
                "{name}: {f} is {class:?}: {out}"
            );
            aborted_listed += usize::from(class == Some("aborted-attempt"));
        }
        for u in files.iter().filter(|u| u["class"] == "aborted-attempt") {
            assert!(
                aborted.contains(u["file"].as_str().unwrap()),
                "{name}: {} is no aborted attempt's: {out}",
                u["file"]
            );
        }
        aborted_tables += usize::from(!aborted.is_empty());
        // An uncommitted file is a finding only as the lost changelog of one of those commits.
        let ids: BTreeSet<i64> = want.iter().map(|w| w.1).collect();
        for f in audit["uncommitted"]["files"].as_array().unwrap() {
            if f["class"] == "changelog-the-stream-lacks" || f["class"] == "rows-the-table-lacks" {
                let tied = f["likely_identifier"].as_i64();
                assert!(
                    tied.is_some_and(|i| ids.contains(&i)),
                    "{name}: {} is a finding tied to no lost commit: {}",
                    f["file"],
                    f["detail"]
                );
            }
        }
    }
    assert!(
        lossy >= 3,
        "the corpora lose COMPACT halves in at least 3 tables"
    );
    assert!(
        unhealed >= 1,
        "a corpus loses the end of input's changelog for good"
    );
    assert!(
        aborted_tables >= 2 && aborted_listed >= 2,
        "two corpora hold an aborted attempt's changelog, listed as `aborted-attempt`"
    );
}
