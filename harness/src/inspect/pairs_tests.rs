//! Tests of [`super`] (commit pairs), kept beside it so that `pairs.rs` stays readable.
use std::path::PathBuf;

use super::*;
use crate::inspect::{CommitGroup, FileGroup};

/// `(level, names)` groups of bucket 0 of an unpartitioned table.
fn groups(files: &[(i32, &[&str])]) -> Vec<FileGroup> {
    files
        .iter()
        .map(|(level, names)| FileGroup {
            partition: Vec::new(),
            bucket: 0,
            level: *level,
            files: names.len(),
            rows: names.len() as i64,
            names: names.iter().map(|n| (*n).to_owned()).collect(),
        })
        .collect()
}

struct Snap {
    id: i64,
    kind: CommitKind,
    user: &'static str,
    identifier: i64,
    added: &'static [(i32, &'static [&'static str])],
    deleted: &'static [(i32, &'static [&'static str])],
    changelog: bool,
}

fn timeline(producer: &str, compaction: CompactionSchedule, snaps: &[Snap]) -> Timeline {
    let mut commits: Vec<CommitGroup> = Vec::new();
    for s in snaps {
        let info = SnapshotInfo {
            id: s.id,
            commit_kind: s.kind,
            commit_user: s.user.to_owned(),
            commit_identifier: s.identifier,
            time_millis: s.id * 1000,
            time: String::new(),
            schema_id: 0,
            total_record_count: None,
            delta_record_count: None,
            changelog_record_count: None,
            added: groups(s.added),
            deleted: groups(s.deleted),
            changelog: if s.changelog {
                groups(&[(5, &["changelog"])])
            } else {
                Vec::new()
            },
        };
        match commits
            .iter_mut()
            .find(|c| c.commit_user == s.user && c.commit_identifier == s.identifier)
        {
            Some(c) => c.snapshots.push(info),
            None => commits.push(CommitGroup {
                commit_user: s.user.to_owned(),
                commit_identifier: s.identifier,
                snapshots: vec![info],
                pair: None,
            }),
        }
    }
    Timeline {
        table: PathBuf::from("t"),
        changelog_producer: producer.to_owned(),
        merge_engine: "deduplicate".into(),
        partition_keys: Vec::new(),
        primary_keys: vec!["k".into()],
        columns: vec!["k".into(), "v".into()],
        compaction,
        num_levels: 6,
        earliest_snapshot: snaps.first().map(|s| s.id),
        latest_snapshot: snaps.last().map(|s| s.id),
        commits,
    }
}

/// An APPEND snapshot adding the level-0 file `a`.
fn write(id: i64, user: &'static str, identifier: i64) -> Snap {
    Snap {
        id,
        kind: CommitKind::Append,
        user,
        identifier,
        added: &[(0, &["a"])],
        deleted: &[],
        changelog: false,
    }
}

/// A full-compaction table whose intermediate compaction (no changelog, output below the maximum level)
/// rewrites a level-0 file: the records are followed into its output, which the later full compaction
/// rewrites with changelog.
#[test]
fn records_are_followed_through_a_compaction_without_changelog() {
    let every = CompactionSchedule::EveryNthIdentifier { delta_commits: 3 };
    let t = timeline(
        "full-compaction",
        every,
        &[
            write(1, "u", 1),
            Snap {
                id: 2,
                kind: CommitKind::Compact,
                user: "u",
                identifier: 1,
                added: &[(2, &["b"])],
                deleted: &[(0, &["a"])],
                changelog: false,
            },
            Snap {
                added: &[(0, &["c"])],
                ..write(3, "u", 3)
            },
            Snap {
                id: 4,
                kind: CommitKind::Compact,
                user: "u",
                identifier: 3,
                added: &[(5, &["d"])],
                deleted: &[(2, &["b"]), (0, &["c"])],
                changelog: true,
            },
        ],
    );
    let pairs = commit_pairs(&t);
    // Identifier 1 was not due: its own COMPACT wrote no changelog, the full compaction of 3 did.
    assert_eq!(pairs[0].status, PairStatus::Complete, "{}", pairs[0].detail);
    assert_eq!(
        pairs[0].detail,
        "COMPACT snapshot [2]; level-0 files rewritten with changelog by snapshot [4]"
    );
    assert!(pairs[0].waiting.is_empty());
    assert_eq!(pairs[1].status, PairStatus::Complete);
    // Without the full compaction, identifier 1's records still wait, in file b.
    let t = timeline(
        "full-compaction",
        CompactionSchedule::EveryNthIdentifier { delta_commits: 3 },
        &[
            write(1, "u", 1),
            Snap {
                id: 2,
                kind: CommitKind::Compact,
                user: "u",
                identifier: 1,
                added: &[(2, &["b"])],
                deleted: &[(0, &["a"])],
                changelog: false,
            },
        ],
    );
    let pairs = commit_pairs(&t);
    assert_eq!(pairs[0].status, PairStatus::Deferred);
    assert_eq!(pairs[0].waits_for_identifier, Some(3));
    assert_eq!(pairs[0].waiting, [(Vec::new(), 0, "b".to_owned())]);
}

/// A missing COMPACT whose snapshot id an OVERWRITE of another commit took (what a 1.4.1+ CommitRollback
/// leaves) is said to be the likely cause; otherwise the causes that leave the trace are listed, the
/// rollback among them.
#[test]
fn the_cause_names_an_overwrite_that_took_the_compact_place() {
    let t = timeline(
        "lookup",
        CompactionSchedule::EveryCommit { caveat: None },
        &[
            write(1, "a", 7),
            Snap {
                id: 2,
                kind: CommitKind::Overwrite,
                user: "b",
                identifier: 3,
                added: &[(0, &["x"])],
                deleted: &[],
                changelog: false,
            },
            Snap {
                id: 3,
                kind: CommitKind::Compact,
                user: "b",
                identifier: 3,
                added: &[(5, &["y"])],
                deleted: &[(0, &["x"])],
                changelog: true,
            },
        ],
    );
    let pairs = commit_pairs(&t);
    assert_eq!(pairs[0].status, PairStatus::Incomplete);
    let cause = pairs[0].cause.as_deref().unwrap();
    assert!(
        cause.starts_with("the next snapshot, 2, is an OVERWRITE of user b (identifier 3)"),
        "{cause}"
    );
    assert!(cause.contains("CommitRollback"), "{cause}");
    // The OVERWRITE pairs with its COMPACT.
    assert_eq!(pairs[1].status, PairStatus::Complete);
    assert_eq!(pairs[1].overwrite_snapshots, [2]);

    let t = timeline(
        "lookup",
        CompactionSchedule::EveryCommit { caveat: None },
        &[write(1, "a", 7)],
    );
    let cause = commit_pairs(&t)[0].cause.clone().unwrap();
    assert!(cause.contains("filterAndCommit"), "{cause}");
    assert!(
        cause.contains("1.4.1+") && cause.contains("CommitRollback"),
        "{cause}"
    );
}

/// A schedule the table does not state makes a commit without COMPACT deferred with no due identifier;
/// a producer without compaction changelog makes every pair not applicable.
#[test]
fn unknown_schedules_defer_and_other_producers_do_not_pair() {
    let unknown = CompactionSchedule::Unknown {
        reason: "write-only=true".into(),
    };
    let t = timeline("lookup", unknown, &[write(1, "a", 7)]);
    let p = &commit_pairs(&t)[0];
    assert_eq!(
        (p.status, p.waits_for_identifier),
        (PairStatus::Deferred, None)
    );
    assert_eq!(p.compaction_due, None);
    assert!(p.detail.contains("write-only=true"), "{}", p.detail);
    let t = timeline(
        "input",
        CompactionSchedule::NoCompactionChangelog,
        &[write(1, "a", 7)],
    );
    assert_eq!(commit_pairs(&t)[0].status, PairStatus::NotApplicable);
}
