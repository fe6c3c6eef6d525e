//! Part 1 of the audit, commit pairs (metadata only): for every (commit user, commit identifier), which
//! halves exist, and whether the APPEND's level-0 files ever reached a changelog.

use std::collections::BTreeMap;

use native_reader::snapshot::CommitKind;
use native_reader::table::ChangelogProducer;

use super::{CommitPair, PairStatus, UserSummary};
use crate::inspect::Timeline;

fn uses_compact_changelog(producer: &str) -> bool {
    producer == ChangelogProducer::Lookup.as_str()
        || producer == ChangelogProducer::FullCompaction.as_str()
}

/// Part 1: the commit pairs of a timeline.
pub(crate) fn commit_pairs(timeline: &Timeline) -> Vec<CommitPair> {
    let applicable = uses_compact_changelog(&timeline.changelog_producer);
    let snapshots = timeline.snapshots();
    timeline
        .commits
        .iter()
        .map(|c| {
            let ids = |kind: CommitKind| -> Vec<i64> {
                c.snapshots
                    .iter()
                    .filter(|s| s.commit_kind == kind)
                    .map(|s| s.id)
                    .collect()
            };
            let append_snapshots = ids(CommitKind::Append);
            let compact_snapshots = ids(CommitKind::Compact);
            // Level-0 files added by the APPEND halves, keyed by (partition, bucket, name).
            let mut level0: Vec<(Vec<Option<String>>, i32, String)> = Vec::new();
            for s in c
                .snapshots
                .iter()
                .filter(|s| s.commit_kind == CommitKind::Append)
            {
                for g in s.added.iter().filter(|g| g.level == 0) {
                    for n in &g.names {
                        level0.push((g.partition.clone(), g.bucket, n.clone()));
                    }
                }
            }
            let (status, detail) = if !applicable {
                (
                    PairStatus::NotApplicable,
                    format!(
                        "changelog-producer {} reads APPEND snapshots",
                        timeline.changelog_producer
                    ),
                )
            } else if append_snapshots.is_empty() || level0.is_empty() {
                (PairStatus::Complete, "no level-0 file to compact".into())
            } else if !compact_snapshots.is_empty() {
                (
                    PairStatus::Complete,
                    format!("COMPACT snapshot {:?}", compact_snapshots),
                )
            } else {
                let after = append_snapshots.iter().copied().max().unwrap_or(0);
                // A later COMPACT that deleted every one of these files and wrote changelog for their
                // (partition, bucket).
                let mut rewritten_by: Vec<i64> = Vec::new();
                let mut pending = Vec::new();
                for (partition, bucket, name) in &level0 {
                    let hit = snapshots.iter().find(|s| {
                        s.id > after
                            && s.commit_kind == CommitKind::Compact
                            && s.deleted.iter().any(|g| {
                                &g.partition == partition
                                    && g.bucket == *bucket
                                    && g.names.contains(name)
                            })
                            && s.changelog
                                .iter()
                                .any(|g| &g.partition == partition && g.bucket == *bucket)
                    });
                    match hit {
                        Some(s) => rewritten_by.push(s.id),
                        None => pending.push(name.clone()),
                    }
                }
                if pending.is_empty() {
                    rewritten_by.sort_unstable();
                    rewritten_by.dedup();
                    (
                        PairStatus::CompactedLater,
                        format!(
                            "level-0 files rewritten with changelog by snapshot {rewritten_by:?}"
                        ),
                    )
                } else {
                    (
                        PairStatus::Incomplete,
                        format!(
                            "no COMPACT snapshot for this identifier; {} of {} level-0 files never \
                             reached a changelog ({})",
                            pending.len(),
                            level0.len(),
                            pending.join(", ")
                        ),
                    )
                }
            };
            CommitPair {
                commit_user: c.commit_user.clone(),
                commit_identifier: c.commit_identifier,
                append_snapshots,
                compact_snapshots,
                level0_files: level0.len(),
                status,
                detail,
            }
        })
        .collect()
}

pub(super) fn user_summaries(timeline: &Timeline, pairs: &[CommitPair]) -> Vec<UserSummary> {
    let mut users: BTreeMap<String, UserSummary> = BTreeMap::new();
    for s in timeline.snapshots() {
        let u = users
            .entry(s.commit_user.clone())
            .or_insert_with(|| UserSummary {
                commit_user: s.commit_user.clone(),
                last_append: None,
                last_compact: None,
                incomplete_identifiers: Vec::new(),
            });
        match s.commit_kind {
            CommitKind::Append => u.last_append = Some(s.id),
            CommitKind::Compact => u.last_compact = Some(s.id),
            _ => {}
        }
    }
    for p in pairs.iter().filter(|p| p.status == PairStatus::Incomplete) {
        if let Some(u) = users.get_mut(&p.commit_user) {
            u.incomplete_identifiers.push(p.commit_identifier);
        }
    }
    users.into_values().collect()
}
