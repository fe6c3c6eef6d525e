//! The per-user summary of the audit: each commit user's last write and COMPACT snapshots and its
//! incomplete identifiers.

use std::collections::BTreeMap;

use native_reader::snapshot::CommitKind;

use super::{CommitPair, UserSummary};
use crate::inspect::{is_write_half, Timeline};

/// One [`UserSummary`] per commit user of `timeline`, in user order.
pub(super) fn user_summaries(timeline: &Timeline, pairs: &[CommitPair]) -> Vec<UserSummary> {
    let mut users: BTreeMap<String, UserSummary> = BTreeMap::new();
    for s in timeline.snapshots() {
        let u = users
            .entry(s.commit_user.clone())
            .or_insert_with(|| UserSummary {
                commit_user: s.commit_user.clone(),
                last_append: None,
                last_compact: None,
                last_write: None,
                incomplete_identifiers: Vec::new(),
            });
        match s.commit_kind {
            CommitKind::Append => u.last_append = Some(s.id),
            CommitKind::Compact => u.last_compact = Some(s.id),
            _ => {}
        }
        if is_write_half(s.commit_kind) {
            u.last_write = Some(s.id);
        }
    }
    for p in pairs.iter().filter(|p| p.status.lost_changelog()) {
        if let Some(u) = users.get_mut(&p.commit_user) {
            u.incomplete_identifiers.push(p.commit_identifier);
        }
    }
    users.into_values().collect()
}
