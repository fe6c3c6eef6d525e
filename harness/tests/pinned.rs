//! `replay --to-snapshot N` and `audit --to-snapshot N`: a run pinned to snapshot N of a table is the run of the
//! table as it was at N. The expected values come from a copy of the table whose later snapshots were never
//! published (their snapshot files removed and `LATEST` set back to N), replayed by the released reader unpinned.

use crate::common;

use std::path::Path;

use serde_json::Value;

/// A copy of `table` as it was when snapshot `n` was the latest.
fn as_of(table: &Path, n: i64, into: &Path) {
    common::copy_tree(table, into);
    let snapshots = into.join("snapshot");
    for entry in std::fs::read_dir(&snapshots).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(id) = name
            .strip_prefix("snapshot-")
            .and_then(|i| i.parse::<i64>().ok())
        {
            if id > n {
                std::fs::remove_file(snapshots.join(&name)).unwrap();
            }
        }
    }
    std::fs::write(snapshots.join("LATEST"), n.to_string()).unwrap();
}

/// The runs of a replay report, each without its table location and timings.
fn runs(v: &Value) -> Vec<Value> {
    v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| {
            let mut r = common::without_timings(&run["report"]);
            r.as_object_mut().unwrap().remove("table");
            r
        })
        .collect()
}

#[test]
fn a_replay_pinned_to_a_snapshot_is_the_replay_of_the_table_as_it_was_then() {
    // C07 has snapshots 1..10 (deletion vectors, compactions): pinned at 6, 4 snapshots are left out.
    let table = common::corpus("c07-deletion-vectors").join("table");
    let dir = tempfile::tempdir().unwrap();
    let then = dir.path().join("then");
    as_of(&table, 6, &then);
    let (pinned, unpinned) = (dir.path().join("pinned.json"), dir.path().join("then.json"));
    let modes = "stream,stream-full,latest-full,batch";
    let (code, out, err) = common::paimon_parity(&[
        "replay",
        common::path_str(&table),
        "--mode",
        modes,
        "--to-snapshot",
        "6",
        "-q",
        "--json",
        common::path_str(&pinned),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = common::paimon_parity(&[
        "replay",
        common::path_str(&then),
        "--mode",
        modes,
        "-q",
        "--json",
        common::path_str(&unpinned),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let (pinned, then) = (common::read_json(&pinned), common::read_json(&unpinned));
    let (a, b) = (runs(&pinned), runs(&then));
    assert_eq!(a.len(), 4);
    for (mode, (a, b)) in modes.split(',').zip(a.iter().zip(&b)) {
        assert_eq!(a, b, "{mode}");
        assert_eq!(a["end_snapshot"], 6, "{mode}");
        assert!(a["totals"]["splits"].as_u64().unwrap() > 0, "{mode}");
    }
    // Outside the retained snapshots: a usage error naming them.
    let (code, _, err) =
        common::paimon_parity(&["replay", common::path_str(&table), "--to-snapshot", "11"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--to-snapshot 11") && err.contains("has snapshots 1..10"),
        "{err}"
    );
}

#[test]
fn an_audit_pinned_before_a_lost_compact_half_finds_nothing_written_after_the_pin() {
    // C00-lookup-fault: commit 1 whole (snapshots 1, 2), commit 2's APPEND (snapshot 3) durable and its COMPACT
    // half lost, its changelog file left in the bucket. Pinned at 2, the table was complete; the file commit 2
    // wrote later is not a finding there.
    let table = common::corpus("c00-lookup-fault").join("table");
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("audit.json");
    let (code, out, err) = common::paimon_parity(&[
        "audit",
        common::path_str(&table),
        "--to-snapshot",
        "2",
        "--json",
        common::path_str(&json),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let audit = &common::read_json(&json)["audit"];
    assert_eq!(audit["verdict"], "complete");
    assert_eq!(audit["latest_snapshot"], 2);
    let classes: Vec<&str> = audit["uncommitted"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["class"].as_str().unwrap())
        .collect();
    assert!(classes.contains(&"after-pin"), "{classes:?}");
    // Its completeness part is that of the table as it was at 2.
    let then = dir.path().join("then");
    as_of(&table, 2, &then);
    let then_json = dir.path().join("then.json");
    let (_, out, err) = common::paimon_parity(&[
        "audit",
        common::path_str(&then),
        "--json",
        common::path_str(&then_json),
    ]);
    let then = &common::read_json(&then_json)["audit"];
    assert_eq!(audit["completeness"], then["completeness"], "{out}{err}");
    assert_eq!(audit["pairs"], then["pairs"]);
    // Unpinned, the same table lost commit 2's changelog.
    let (code, _, _) = common::paimon_parity(&["audit", common::path_str(&table)]);
    assert_eq!(code, 1);
}
