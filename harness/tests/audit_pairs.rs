//! The audit's commit pairs beyond APPEND + COMPACT: an OVERWRITE write half (Paimon 1.3+ commits a write
//! whose increment deletes files or carries deletion vectors as OVERWRITE; an INSERT OVERWRITE is a write
//! half too), and `full-compaction.delta-commits`, under which most commits compact nothing and wait for a
//! later full compaction. Expected values come from the scenarios that wrote the corpora.

use crate::common;

use std::path::{Path, PathBuf};

use harness::audit::{run, AuditReport, KeyClass, PairStatus, UncommittedClass, UncommittedKind};
use native_reader::snapshot::CommitKind;

fn audit(table: &Path, reader: &str) -> AuditReport {
    run(table, reader).unwrap_or_else(|e| panic!("{}: {e}", table.display()))
}

/// The corpus of the line under test named `name`.
fn line_corpus(name: &str) -> PathBuf {
    common::line_corpora(&common::line_version())
        .into_iter()
        .find(|d| common::corpus_name(d) == name)
        .unwrap_or_else(|| panic!("no corpus {name}"))
}

/// Sets the modification time of every file under `dir` to `at`, as a copy made then would.
fn touch_tree(dir: &Path, at: std::time::SystemTime) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            touch_tree(&path, at);
        } else {
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(at).unwrap();
        }
    }
}

fn pair(r: &AuditReport, identifier: i64) -> &harness::audit::CommitPair {
    r.pairs
        .iter()
        .find(|p| p.commit_identifier == identifier)
        .unwrap_or_else(|| panic!("no pair {identifier}: {:?}", r.pairs))
}

fn key<'a>(r: &'a AuditReport, key: &str) -> &'a harness::audit::MissingKey {
    &r.findings
        .iter()
        .find(|f| f.key.key == key)
        .unwrap_or_else(|| panic!("{key} not reported: {:?}", r.findings))
        .key
}

/// A copy of `table` in which snapshot `id`'s commit kind is OVERWRITE instead of APPEND, as a Paimon 1.3+
/// writer records a write whose data increment deletes files or carries deletion-vector index files
/// (`ConflictDetection.shouldBeOverwriteCommit`); nothing else of the snapshot changes.
fn as_overwrite(table: &Path, id: i64, into: &Path) {
    common::copy_tree(table, into);
    let path = into.join(format!("snapshot/snapshot-{id}"));
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(json["commitKind"], "APPEND", "{}", path.display());
    json["commitKind"] = "OVERWRITE".into();
    std::fs::write(&path, serde_json::to_vec_pretty(&json).unwrap()).unwrap();
}

/// Issue 24: the first half of a pair may be OVERWRITE. The C00 fault corpus with commit 2's write snapshot
/// committed as OVERWRITE loses the same changelog, and its control twin stays complete.
#[test]
fn an_overwrite_write_half_pairs_with_its_compact_like_an_append() {
    let dir = tempfile::tempdir().unwrap();
    for producer in ["lookup", "full-compaction"] {
        let fault = dir.path().join(format!("{producer}-fault"));
        as_overwrite(
            &line_corpus(&format!("c00-{producer}-fault")).join("table"),
            3,
            &fault,
        );
        let r = audit(&fault, "both");
        assert_eq!(r.verdict, "changelog-lost", "{producer}");
        let incomplete = r.incomplete_pairs();
        assert_eq!(incomplete.len(), 1, "{producer}: {:?}", r.pairs);
        let p = incomplete[0];
        // From the scenario: commit 2 (snapshot 3) is the one whose COMPACT half was given up.
        assert_eq!(p.commit_identifier, 2);
        assert_eq!(p.overwrite_snapshots, [3]);
        assert!(p.append_snapshots.is_empty());
        assert!(p.compact_snapshots.is_empty());
        assert_eq!(p.level0_files, 1);
        assert_eq!(r.readers_agree, Some(true), "{producer}");
        let k = key(&r, "k=1");
        assert_eq!(k.table_value, "(1, 20)");
        assert_eq!(k.written_by_snapshot, Some(3));
        assert_eq!(k.written_by_kind, Some(CommitKind::Overwrite));
        assert_eq!(k.lost_with_identifier, Some(2));
        // A checkpoint identifier: a write committed as OVERWRITE, not an INSERT OVERWRITE.
        assert_eq!(k.overwritten_by_snapshot, None);
        let user = r
            .users
            .iter()
            .find(|u| u.commit_user == p.commit_user)
            .unwrap();
        assert_eq!(user.last_write, Some(3));

        let control = dir.path().join(format!("{producer}-control"));
        as_overwrite(
            &line_corpus(&format!("c00-{producer}-control")).join("table"),
            3,
            &control,
        );
        let r = audit(&control, "native");
        assert_eq!(r.verdict, "complete", "{producer}: {:?}", r.findings);
        let p = pair(&r, 2);
        assert_eq!(p.status, PairStatus::Complete);
        assert_eq!(
            (p.overwrite_snapshots.clone(), p.compact_snapshots.clone()),
            (vec![3], vec![4])
        );
    }
}

/// An INSERT OVERWRITE on a lookup table (c21) is an OVERWRITE snapshot followed by its writer's COMPACT,
/// both with identifier Long.MAX_VALUE: a complete pair. Paimon commits no changelog for it, so the stream
/// never shows (1, 30) or the removal of key 2: the audit says the changelog diverges and names the
/// overwrite for both keys, and the changelog file the overwrite's compaction wrote (never committed, by
/// design) is not a finding.
#[test]
fn an_insert_overwrite_is_a_complete_pair_that_explains_its_keys() {
    let table = line_corpus("c21-lookup-insert-overwrite").join("table");
    let r = audit(&table, "both");
    let p = pair(&r, i64::MAX);
    assert_eq!(p.status, PairStatus::Complete, "{}", p.detail);
    assert_eq!(p.overwrite_snapshots.len(), 1);
    assert_eq!(p.compact_snapshots.len(), 1);
    let overwrite = p.overwrite_snapshots[0];
    assert!(r.incomplete_pairs().is_empty());
    assert_eq!(r.verdict, "changelog-diverges");
    assert_eq!(r.readers_agree, Some(true));
    // From the scenario: the overwrite wrote (1, 30) and (3, 30) and dropped key 2; commit 2 then updated
    // key 3 to (3, 40) with its changelog. Keys 1 and 2 diverge, key 3 does not.
    assert_eq!(r.findings.len(), 2, "{:?}", r.findings);
    let k1 = key(&r, "k=1");
    assert_eq!(k1.table_value, "(1, 30)");
    assert_eq!(k1.written_by_kind, Some(CommitKind::Overwrite));
    assert_eq!(k1.written_by_identifier, Some(i64::MAX));
    assert_eq!(k1.overwritten_by_snapshot, Some(overwrite));
    assert_eq!(k1.lost_with_identifier, None);
    let k2 = key(&r, "k=2");
    assert_eq!(k2.class, KeyClass::PresentInStreamAbsentFromTable);
    assert_eq!(k2.stream_value, "(2, 10)");
    assert_eq!(k2.written_by_snapshot, None);
    assert_eq!(k2.overwritten_by_snapshot, Some(overwrite));
    assert_eq!(
        r.uncommitted.findings().count(),
        0,
        "{:?}",
        r.uncommitted.files
    );
    for f in &r.uncommitted.files {
        if f.kind == UncommittedKind::Changelog {
            assert_eq!(
                f.class,
                UncommittedClass::OverwriteChangelog,
                "{}",
                f.detail
            );
        }
    }
    // The released 1.0.0 writer leaves the changelog file of the overwrite's lookup compaction in the
    // bucket (`+I (1, 30)`, `+I (3, 30)`, corpora/README.md); 2.0.0 leaves none.
    if common::line_version() == "1.0.0" {
        let f = r
            .uncommitted
            .files
            .iter()
            .find(|f| f.class == UncommittedClass::OverwriteChangelog)
            .unwrap_or_else(|| panic!("{:?}", r.uncommitted.files));
        assert_eq!(f.lacking, ["+I (1, 30)", "+I (3, 30)"]);
    }
    let mut text = Vec::new();
    harness::audit::write_text(&mut text, &r, 10).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.contains("Paimon writes no changelog for an INSERT OVERWRITE"),
        "{text}"
    );

    // `inspect` says both uses of Long.MAX_VALUE.
    let timeline = harness::inspect::inspect(&table).unwrap();
    let mut text = Vec::new();
    harness::inspect::write_text(&mut text, &timeline).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.contains(
            "identifier MAX (a batch commit, or the end-of-input commit of a bounded streaming job): \
             OVERWRITE + COMPACT"
        ),
        "{text}"
    );

    // A copy of the table (as a `git clone` or `cp` makes it) gives every file the copy's modification
    // time: the overwrite's changelog file is still recognised, from its sequence numbers alone.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("table");
    common::copy_tree(&table, &copy);
    let copied_at = std::time::SystemTime::now() + std::time::Duration::from_secs(86_400);
    touch_tree(&copy, copied_at);
    let r = audit(&copy, "native");
    assert_eq!(r.verdict, "changelog-diverges", "{:?}", r.uncommitted.files);
    assert_eq!(r.uncommitted.findings().count(), 0);
}

/// Issue 25: with `full-compaction.delta-commits=3` commits 4 and 5 compact nothing and wait for the full
/// compaction due at 6, which is lost (c20 fault). Commit 6 is the incomplete one; 4 and 5 are deferred to
/// it, and every key is blamed on 6, the delete of key 3 included.
#[test]
fn delta_commits_blame_the_keys_on_the_commit_whose_full_compaction_was_lost() {
    let table = line_corpus("c20-full-compaction-delta-commits-fault").join("table");
    let r = audit(&table, "both");
    assert_eq!(r.verdict, "changelog-lost");
    assert_eq!(
        r.compaction,
        harness::inspect::CompactionSchedule::EveryNthIdentifier { delta_commits: 3 }
    );
    let statuses: Vec<(i64, PairStatus, Option<bool>)> = r
        .pairs
        .iter()
        .map(|p| (p.commit_identifier, p.status, p.compaction_due))
        .collect();
    assert_eq!(
        statuses,
        [
            (3, PairStatus::Complete, Some(true)),
            (4, PairStatus::DeferredToLost, Some(false)),
            (5, PairStatus::DeferredToLost, Some(false)),
            (6, PairStatus::Incomplete, Some(true)),
        ]
    );
    assert_eq!(pair(&r, 4).waits_for_identifier, Some(6));
    assert_eq!(pair(&r, 5).waits_for_identifier, Some(6));
    assert_eq!(pair(&r, 6).waited_on_by, [4, 5]);
    assert_eq!(r.users[0].incomplete_identifiers, [6]);
    assert_eq!(r.readers_agree, Some(true));
    // From the writes: (1, 40) by commit 4, (2, 50) and the delete of 3 by commit 5, (4, 60) by commit 6;
    // the stream has only commit 3's +I (1, 10), (2, 10), (3, 10).
    let expected = [
        ("k=1", KeyClass::FinalValueNeverDelivered, "(1, 40)", 4),
        ("k=2", KeyClass::FinalValueNeverDelivered, "(2, 50)", 5),
        (
            "k=3",
            KeyClass::PresentInStreamAbsentFromTable,
            "<deleted>",
            5,
        ),
        ("k=4", KeyClass::FinalValueNeverDelivered, "(4, 60)", 6),
    ];
    assert_eq!(r.findings.len(), expected.len(), "{:?}", r.findings);
    for (k, class, table_value, by) in expected {
        let m = key(&r, k);
        assert_eq!(
            (m.class, m.table_value.as_str()),
            (class, table_value),
            "{k}"
        );
        assert_eq!(m.written_by_identifier, Some(by), "{k}");
        assert_eq!(m.written_by_kind, Some(CommitKind::Append), "{k}");
        assert_eq!(m.lost_with_identifier, Some(6), "{k}");
        assert_eq!(
            m.lost_with_user.as_deref(),
            Some("paimon-parity-corpus"),
            "{k}"
        );
    }
    let mut text = Vec::new();
    harness::audit::write_text(&mut text, &r, 10).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.contains("DEFERRED TO A LOST COMPACTION user paimon-parity-corpus identifier 4"),
        "{text}"
    );
    assert!(
        text.contains("key k=3: present in the stream but absent from the table")
            && text.contains("its delete was written by APPEND snapshot"),
        "{text}"
    );
    // The lost full compaction's changelog file is in the bucket: exactly the changelog the control twin
    // committed for identifier 6.
    let control = line_corpus("c20-full-compaction-delta-commits-control");
    let mut want = changelog_of_snapshot(&control, 6);
    want.sort();
    let found: Vec<_> = r.uncommitted.findings().collect();
    assert_eq!(found.len(), 1, "{:?}", r.uncommitted.files);
    let mut lacking = found[0].lacking.clone();
    lacking.sort();
    assert_eq!(lacking, want);
    assert_eq!(found[0].likely_identifier, Some(6));
}

/// The control twin: commit 6's full compaction writes the changelog of 4, 5 and 6; commit 7 compacts
/// nothing and its (1, 70) waits for the full compaction due at 9, not reached: pending, not lost.
#[test]
fn delta_commits_commits_waiting_for_a_compaction_not_yet_due_are_pending() {
    let table = line_corpus("c20-full-compaction-delta-commits-control").join("table");
    let r = audit(&table, "both");
    assert_eq!(r.verdict, "complete", "{:?}", r.findings);
    let statuses: Vec<(i64, PairStatus)> = r
        .pairs
        .iter()
        .map(|p| (p.commit_identifier, p.status))
        .collect();
    assert_eq!(
        statuses,
        [
            (3, PairStatus::Complete),
            // No compaction was due at 4 and 5 (delta-commits 3): healthy, not "compacted later".
            (4, PairStatus::NoCompactionDue),
            (5, PairStatus::NoCompactionDue),
            (6, PairStatus::Complete),
            (7, PairStatus::Deferred),
        ]
    );
    assert_eq!(pair(&r, 7).waits_for_identifier, Some(9));
    for c in &r.completeness {
        assert_eq!(c.pending_compaction_keys, 1, "{} reader", c.reader);
        assert!(c.missing.is_empty(), "{} reader: {:?}", c.reader, c.missing);
    }
    assert_eq!(r.sweep, None);
}

/// The stream rows the released reader returned for snapshot `id` of a corpus (`case.json`).
fn changelog_of_snapshot(corpus: &Path, id: u64) -> Vec<String> {
    let case: serde_json::Value =
        serde_json::from_slice(&std::fs::read(corpus.join("case.json")).unwrap()).unwrap();
    case["expected"]["stream_from_snapshot_1"]["per_split"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["snapshot_id"].as_u64() == Some(id))
        .flat_map(|s| s["values"].as_array().unwrap().iter())
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}
