//! The audit on the tables the stock Paimon Flink connector wrote (`corpora/flink/<name>`, issue 36), against
//! each job's own truth (`truth.json`: computed from the job's input and its snapshot timeline, never from the
//! audit): every commit whose due compaction's COMPACT half never became durable is named (user, identifier,
//! APPEND snapshot) and nothing else is, the verdict follows, and an uncommitted changelog file is a finding
//! only when it is tied to such a commit. The native reader audits every table with the rules of the release
//! that wrote it, so this runs once, whatever the release line of the process.

mod common;

use std::collections::BTreeSet;

use serde_json::Value;

#[test]
fn the_audit_names_exactly_the_commits_whose_compact_half_the_jobs_lost() {
    let dirs = harness::corpus::flink_corpora(&common::repo_root().join("corpora"));
    assert!(dirs.len() >= 8, "{dirs:?}");
    let mut lossy = 0;
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
        // The jobs' final values all reached the stream (truth: no stream difference), so every lost commit
        // was healed later, and no key is missing from the changelog.
        assert_eq!(truth["stream_differences"], serde_json::json!([]), "{name}");
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
            assert!(
                out.contains("CHANGELOG LOST, HEALED LATER"),
                "{name}: {out}"
            );
            for (user, identifier, _) in &want {
                assert!(
                    out.contains(&format!(
                        "user {user} identifier {identifier} (APPEND snapshot"
                    )),
                    "{name}: {out}"
                );
            }
        }
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
}
