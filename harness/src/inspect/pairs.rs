//! Part 1 of the audit, commit pairs (metadata only): for every (commit user, commit identifier), which
//! halves exist, and whether the level-0 files of its write half ever reached a changelog.
//!
//! The write half is the APPEND snapshot, or an OVERWRITE one: from Paimon 1.3.0
//! `FileStoreCommitImpl.commit` commits a write whose data increment deletes files or carries
//! deletion-vector index files as OVERWRITE (`ConflictDetection.shouldBeOverwriteCommit`), and an INSERT
//! OVERWRITE (`FileStoreCommitImpl.overwritePartition`) is also a write snapshot followed by the COMPACT of
//! its writer's compaction, with the same identifier. Both pair with their COMPACT the same way.
//!
//! A level-0 file reaches the changelog when a compaction that writes changelog rewrites it: any
//! compaction of a level-0 file into a higher level with `lookup` (`ChangelogMergeTreeRewriter
//! .rewriteLookupChangelog`), a compaction whose output reaches the maximum level with `full-compaction`
//! (`FullChangelogMergeTreeCompactRewriter.rewriteChangelog`). A compaction that rewrites it without
//! changelog (a `full-compaction` table's intermediate compaction) hands its records to the files it adds in
//! that bucket, which are followed the same way.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use native_reader::snapshot::CommitKind;
use serde::Serialize;

use super::schedule::{CompactionSchedule, Due};
use super::{SnapshotInfo, Timeline};

/// What happened to one (commit user, commit identifier).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairStatus {
    /// Write and COMPACT halves both exist (or the write half added no level-0 file).
    Complete,
    /// No COMPACT of the identifier, but a later compaction rewrote the level-0 files with changelog, and the
    /// table's schedule does not say whether this commit was to compact (a lookup writer that does not wait
    /// for its compaction): nothing shows a loss.
    CompactedLater,
    /// A compaction was due in this commit and its COMPACT half never became durable (recovery dropped it),
    /// and a later compaction ([`CommitPair::healed_by`]) rewrote the level-0 files with changelog, which
    /// delivered the keys' final values: this commit's own changelog is lost for good (a consumer that needs
    /// every change, not only final values, misses it). The records it lost are in the uncommitted changelog
    /// files its COMPACT half wrote, when they are still there (part 3 ties them to the commit).
    LostHealedLater,
    /// No compaction was due at this identifier (`full-compaction.delta-commits` above 1) and a later
    /// compaction rewrote the level-0 files with changelog: healthy.
    NoCompactionDue,
    /// The table's changelog producer does not use COMPACT snapshots (`none`, `input`): nothing to pair.
    NotApplicable,
    /// A compaction was due in this commit and its COMPACT half never became durable: the level-0 files of
    /// the write half (and those of earlier commits waiting for this compaction, [`CommitPair::waited_on_by`])
    /// never reached a changelog.
    Incomplete,
    /// No compaction was due at this identifier (`full-compaction.delta-commits` above 1, or a schedule the
    /// table does not state): the level-0 files wait for a later compaction that has not run yet. Not lost.
    Deferred,
    /// No compaction was due at this identifier; the level-0 files waited for the full compaction due at
    /// [`CommitPair::waits_for_identifier`], whose COMPACT half never became durable: the changelog of this
    /// commit is lost with that commit's, which the keys are blamed on.
    DeferredToLost,
}

impl PairStatus {
    /// Whether the commit's changelog is lost: [`PairStatus::Incomplete`] (not delivered yet, maybe never)
    /// or [`PairStatus::LostHealedLater`] (its own changes lost, the final values delivered later).
    pub fn lost_changelog(self) -> bool {
        matches!(self, PairStatus::Incomplete | PairStatus::LostHealedLater)
    }

    /// In words: `complete`, `compacted later`, `not applicable`, `incomplete`, `deferred`, `deferred to a
    /// lost compaction`.
    pub fn words(self) -> &'static str {
        match self {
            PairStatus::Complete => "complete",
            PairStatus::CompactedLater => "compacted later",
            PairStatus::LostHealedLater => "changelog lost, healed later",
            PairStatus::NoCompactionDue => "no compaction due",
            PairStatus::NotApplicable => "not applicable",
            PairStatus::Incomplete => "incomplete",
            PairStatus::Deferred => "deferred",
            PairStatus::DeferredToLost => "deferred to a lost compaction",
        }
    }
}

/// (partition values, bucket, file name) of one data file.
pub type FileAt = (Vec<Option<String>>, i32, String);

/// The halves of one (commit user, commit identifier).
#[derive(Clone, Debug, Serialize)]
pub struct CommitPair {
    /// Commit user.
    pub commit_user: String,
    /// Commit identifier.
    pub commit_identifier: i64,
    /// APPEND snapshot ids of this identifier.
    pub append_snapshots: Vec<i64>,
    /// OVERWRITE snapshot ids of this identifier: a write half too (a 1.3+ write whose increment deletes
    /// files or carries deletion vectors, or an INSERT OVERWRITE).
    pub overwrite_snapshots: Vec<i64>,
    /// COMPACT snapshot ids of this identifier.
    pub compact_snapshots: Vec<i64>,
    /// Level-0 files the write half (APPEND and OVERWRITE snapshots) added.
    pub level0_files: usize,
    /// Verdict.
    pub status: PairStatus,
    /// Why, in words (which snapshot rewrote the files, or where the files are now).
    pub detail: String,
    /// Whether the table's compaction schedule makes this commit compact (`full-compaction.delta-commits`,
    /// `lookup`); `None` when the schedule is unknown or the producer writes no compaction changelog.
    pub compaction_due: Option<bool>,
    /// [`PairStatus::Deferred`] and [`PairStatus::DeferredToLost`]: the identifier whose full compaction the
    /// level-0 files wait for (or waited for, when lost).
    pub waits_for_identifier: Option<i64>,
    /// [`PairStatus::Incomplete`]: the identifiers of this user whose level-0 files waited for this commit's
    /// lost full compaction.
    pub waited_on_by: Vec<i64>,
    /// [`PairStatus::LostHealedLater`]: the snapshots whose compaction later rewrote the level-0 files with
    /// changelog (and delivered the final values).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub healed_by: Vec<i64>,
    /// [`PairStatus::Incomplete`]: why the COMPACT half is missing, as far as the table shows (a conflicting
    /// commit that took the COMPACT's snapshot id, or the causes that leave this trace).
    pub cause: Option<String>,
    /// The level-0 files the write half added.
    #[serde(skip)]
    pub level0: Vec<FileAt>,
    /// The files that hold this commit's level-0 records and that no changelog-writing compaction has
    /// rewritten yet (the level-0 files themselves, or the files a compaction without changelog rewrote
    /// them into).
    #[serde(skip)]
    pub waiting: Vec<FileAt>,
}

impl CommitPair {
    /// The write half: APPEND and OVERWRITE snapshot ids, in id order.
    pub fn write_snapshots(&self) -> Vec<i64> {
        let mut all: Vec<i64> = self
            .append_snapshots
            .iter()
            .chain(&self.overwrite_snapshots)
            .copied()
            .collect();
        all.sort_unstable();
        all
    }

    /// `APPEND snapshot [3]`, `OVERWRITE snapshot [3]` or both, for the text reports.
    pub fn write_words(&self) -> String {
        let mut parts = Vec::new();
        if !self.append_snapshots.is_empty() || self.overwrite_snapshots.is_empty() {
            parts.push(format!("APPEND snapshot {:?}", self.append_snapshots));
        }
        if !self.overwrite_snapshots.is_empty() {
            parts.push(format!("OVERWRITE snapshot {:?}", self.overwrite_snapshots));
        }
        parts.join(", ")
    }
}

/// Whether `kind` is the first (write) half of a pair: APPEND, or OVERWRITE (see the module documentation).
pub fn is_write_half(kind: CommitKind) -> bool {
    matches!(kind, CommitKind::Append | CommitKind::Overwrite)
}

/// What part 1 needs to know of the table besides its snapshots and schedule.
struct Rules {
    lookup: bool,
    max_level: i32,
}

/// Where the records of some level-0 files went.
#[derive(Default)]
struct Lineage {
    /// Snapshots whose compaction rewrote them with changelog.
    rewritten_by: BTreeSet<i64>,
    /// Non-COMPACT snapshots that deleted them (an overwrite replaced them).
    dropped_by: BTreeSet<i64>,
    /// The files that still hold them without a changelog.
    waiting: Vec<FileAt>,
}

/// Whether the compaction `s`, which deleted a tracked file at `level` of (`partition`, `bucket`), wrote
/// its changelog (see the module documentation): changelog files in that bucket, a `lookup` compaction of a
/// level-0 file, an output at the maximum level, or no output at all (nothing is left to deliver).
fn writes_changelog(
    s: &SnapshotInfo,
    partition: &[Option<String>],
    bucket: i32,
    level: i32,
    rules: &Rules,
) -> bool {
    let here = |g: &&super::FileGroup| g.partition == partition && g.bucket == bucket;
    if s.changelog.iter().any(|g| here(&g)) {
        return true;
    }
    let mut added = s.added.iter().filter(here).peekable();
    if added.peek().is_none() {
        return true;
    }
    let levels: Vec<i32> = added.map(|g| g.level).collect();
    (rules.lookup && level == 0 && levels.iter().all(|l| *l > 0))
        || (!rules.lookup && levels.iter().any(|l| *l >= rules.max_level))
}

/// Follows `level0` through every snapshot after `after` (see [`Lineage`]).
fn follow(
    level0: &[(FileAt, i32)],
    after: i64,
    snapshots: &[&SnapshotInfo],
    rules: &Rules,
) -> Lineage {
    type Bucket = (Vec<Option<String>>, i32);
    let mut tracked: HashMap<Bucket, HashSet<String>> = HashMap::new();
    for ((p, b, n), _) in level0 {
        tracked
            .entry((p.clone(), *b))
            .or_default()
            .insert(n.clone());
    }
    let mut out = Lineage::default();
    for s in snapshots.iter().filter(|s| s.id > after) {
        if tracked.is_empty() {
            break;
        }
        let mut handed_on: HashSet<Bucket> = HashSet::new();
        for g in &s.deleted {
            let key = (g.partition.clone(), g.bucket);
            let Some(names) = tracked.get_mut(&key) else {
                continue;
            };
            let hit: Vec<&String> = g.names.iter().filter(|n| names.contains(*n)).collect();
            if hit.is_empty() {
                continue;
            }
            for n in hit {
                names.remove(n);
            }
            if s.commit_kind != CommitKind::Compact {
                out.dropped_by.insert(s.id);
            } else if writes_changelog(s, &g.partition, g.bucket, g.level, rules) {
                out.rewritten_by.insert(s.id);
            } else {
                handed_on.insert(key);
            }
        }
        for key in handed_on {
            let names = tracked.entry(key.clone()).or_default();
            for g in s
                .added
                .iter()
                .filter(|g| g.partition == key.0 && g.bucket == key.1)
            {
                names.extend(g.names.iter().cloned());
            }
        }
        tracked.retain(|_, names| !names.is_empty());
    }
    let mut waiting: Vec<FileAt> = tracked
        .into_iter()
        .flat_map(|((p, b), names)| names.into_iter().map(move |n| (p.clone(), b, n)))
        .collect();
    waiting.sort();
    out.waiting = waiting;
    out
}

/// `3 of 4 level-0 files (a, b, c)` of the waiting files, naming at most five.
fn waiting_words(waiting: &[FileAt], level0: usize) -> String {
    let names: Vec<&str> = waiting.iter().map(|(_, _, n)| n.as_str()).collect();
    let shown = names.iter().take(5).copied().collect::<Vec<_>>().join(", ");
    let more = if names.len() > 5 {
        format!(" and {} more", names.len() - 5)
    } else {
        String::new()
    };
    format!(
        "{} file{} holding records of its {level0} level-0 file{} never reached a changelog ({shown}{more})",
        waiting.len(),
        if waiting.len() == 1 { "" } else { "s" },
        if level0 == 1 { "" } else { "s" },
    )
}

/// The text of [`CommitPair::cause`] for an incomplete pair whose write half is `write` (its last
/// snapshot): the snapshot right after it when it is a write of another commit that took the COMPACT's
/// place, else the causes that leave this trace.
fn missing_compact_cause(
    write: i64,
    user: &str,
    identifier: i64,
    snapshots: &[&SnapshotInfo],
) -> String {
    let next = snapshots.iter().find(|s| s.id == write + 1);
    if let Some(n) = next.filter(|n| {
        n.commit_kind == CommitKind::Overwrite
            && (n.commit_user != user || n.commit_identifier != identifier)
    }) {
        return format!(
            "the next snapshot, {}, is an OVERWRITE of user {} (identifier {}): from Paimon 1.4.1 a commit \
             allowed to roll back (CommitRollback) removes a conflicting COMPACT snapshot and takes its id, \
             which may be what removed this COMPACT half",
            n.id,
            n.commit_user,
            super::identifier_words(n.commit_identifier)
        );
    }
    "the process stopped between the two snapshots and the recovery (filterAndCommit) dropped the \
     COMPACT half, or the COMPACT failed (a conflict with another writer); on Paimon 1.4.1+ a COMPACT \
     snapshot rolled back by a conflicting commit in a catalog with version management (CommitRollback) \
     leaves the same trace"
        .to_owned()
}

/// Part 1: the commit pairs of a timeline, in timeline order.
pub fn commit_pairs(timeline: &Timeline) -> Vec<CommitPair> {
    let schedule = &timeline.compaction;
    let applicable = *schedule != CompactionSchedule::NoCompactionChangelog;
    let rules = Rules {
        lookup: timeline.changelog_producer == "lookup",
        max_level: timeline.num_levels - 1,
    };
    let snapshots = timeline.snapshots();
    let mut pairs: Vec<CommitPair> = timeline
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
            let mut pair = CommitPair {
                commit_user: c.commit_user.clone(),
                commit_identifier: c.commit_identifier,
                append_snapshots: ids(CommitKind::Append),
                overwrite_snapshots: ids(CommitKind::Overwrite),
                compact_snapshots: ids(CommitKind::Compact),
                level0_files: 0,
                status: PairStatus::Complete,
                detail: String::new(),
                compaction_due: match schedule.due(c.commit_identifier) {
                    Due::Yes => Some(true),
                    Due::No { .. } => Some(false),
                    Due::Unknown => None,
                },
                waits_for_identifier: None,
                waited_on_by: Vec::new(),
                healed_by: Vec::new(),
                cause: None,
                level0: Vec::new(),
                waiting: Vec::new(),
            };
            let mut level0: Vec<(FileAt, i32)> = Vec::new();
            for s in c.snapshots.iter().filter(|s| is_write_half(s.commit_kind)) {
                for g in s.added.iter().filter(|g| g.level == 0) {
                    for n in &g.names {
                        level0.push(((g.partition.clone(), g.bucket, n.clone()), 0));
                    }
                }
            }
            pair.level0_files = level0.len();
            pair.level0 = level0.iter().map(|(f, _)| f.clone()).collect();
            let write = pair.write_snapshots();
            if !applicable {
                pair.status = PairStatus::NotApplicable;
                pair.detail = format!(
                    "changelog-producer {} reads the write snapshots",
                    timeline.changelog_producer
                );
                return pair;
            }
            if write.is_empty() || level0.is_empty() {
                pair.detail = "no level-0 file to compact".into();
                return pair;
            }
            let after = write.iter().copied().max().unwrap_or(0);
            let lineage = follow(&level0, after, &snapshots, &rules);
            let mut later: Vec<String> = Vec::new();
            let rewritten: Vec<i64> = lineage
                .rewritten_by
                .iter()
                .copied()
                .filter(|id| !pair.compact_snapshots.contains(id))
                .collect();
            if !rewritten.is_empty() {
                later.push(format!("rewritten with changelog by snapshot {rewritten:?}"));
            }
            if !lineage.dropped_by.is_empty() {
                later.push(format!(
                    "replaced by the overwrite of snapshot {:?}",
                    lineage.dropped_by
                ));
            }
            let compact_words = format!("COMPACT snapshot {:?}", pair.compact_snapshots);
            if lineage.waiting.is_empty() {
                if pair.compact_snapshots.is_empty() {
                    match schedule.due(c.commit_identifier) {
                        Due::Yes if !rewritten.is_empty() => {
                            pair.status = PairStatus::LostHealedLater;
                            pair.healed_by = rewritten.clone();
                            pair.detail = format!(
                                "no COMPACT snapshot for this identifier, though it was due to compact ({}): \
                                 its changelog is lost; the level-0 files were {}, which delivered the final \
                                 values later",
                                schedule.words(),
                                later.join("; ")
                            );
                            pair.cause = Some(missing_compact_cause(
                                after,
                                &pair.commit_user,
                                pair.commit_identifier,
                                &snapshots,
                            ));
                        }
                        Due::No { .. } => {
                            pair.status = PairStatus::NoCompactionDue;
                            pair.detail = format!(
                                "no compaction was due at this identifier ({}); level-0 files {}",
                                schedule.words(),
                                later.join("; ")
                            );
                        }
                        _ => {
                            pair.status = PairStatus::CompactedLater;
                            pair.detail = format!("level-0 files {}", later.join("; "));
                        }
                    }
                } else if later.is_empty() {
                    pair.detail = compact_words;
                } else {
                    pair.detail = format!("{compact_words}; level-0 files {}", later.join("; "));
                }
                return pair;
            }
            let waiting = waiting_words(&lineage.waiting, level0.len());
            match (schedule.due(c.commit_identifier), pair.compact_snapshots.is_empty()) {
                (Due::Yes, false) => {
                    pair.detail = format!("{compact_words}; {waiting}");
                }
                (Due::Yes, true) => {
                    pair.status = PairStatus::Incomplete;
                    pair.detail = format!(
                        "no COMPACT snapshot for this identifier, though it was due to compact ({}); {waiting}",
                        schedule.words()
                    );
                    pair.cause = Some(missing_compact_cause(
                        after,
                        &pair.commit_user,
                        pair.commit_identifier,
                        &snapshots,
                    ));
                }
                (Due::No { next }, _) => {
                    pair.status = PairStatus::Deferred;
                    pair.waits_for_identifier = Some(next);
                    pair.detail = format!(
                        "no compaction was due at this identifier ({}){}; {waiting}: they wait for the full \
                         compaction due at identifier {}",
                        schedule.words(),
                        if pair.compact_snapshots.is_empty() {
                            String::new()
                        } else {
                            format!("; its {compact_words} wrote no changelog for them")
                        },
                        super::identifier_words(next)
                    );
                }
                (Due::Unknown, _) => {
                    pair.status = PairStatus::Deferred;
                    pair.detail = format!(
                        "{}; {waiting}: they wait for a later compaction, or lost it",
                        schedule.words()
                    );
                }
            }
            pair.waiting = lineage.waiting;
            pair
        })
        .collect();
    blame_due_compactions(&mut pairs, &snapshots);
    pairs
}

/// For every deferred pair with a known due identifier: the same user's first later commit that was due to
/// compact. When that commit's COMPACT half never became durable, the deferred pair is
/// [`PairStatus::DeferredToLost`] and the due commit [`PairStatus::Incomplete`] (even without level-0 files
/// of its own), naming the identifiers that waited for it.
fn blame_due_compactions(pairs: &mut [CommitPair], snapshots: &[&SnapshotInfo]) {
    // Per user: (identifier, index) of its due commits, in identifier order.
    let mut due: BTreeMap<&str, Vec<(i64, usize)>> = BTreeMap::new();
    for (i, p) in pairs.iter().enumerate() {
        if p.compaction_due == Some(true) {
            due.entry(p.commit_user.as_str())
                .or_default()
                .push((p.commit_identifier, i));
        }
    }
    let mut blamed: Vec<(usize, usize)> = Vec::new();
    for (i, p) in pairs.iter().enumerate() {
        if p.status != PairStatus::Deferred || p.waits_for_identifier.is_none() {
            continue;
        }
        let Some(list) = due.get(p.commit_user.as_str()) else {
            continue;
        };
        let mut sorted = list.clone();
        sorted.sort_unstable();
        if let Some(&(_, m)) = sorted.iter().find(|(id, _)| *id > p.commit_identifier) {
            blamed.push((i, m));
        }
    }
    for (i, m) in blamed {
        let (due_id, due_lost, due_has_compact) = {
            let d = &pairs[m];
            let lost = d.compact_snapshots.is_empty() && !d.write_snapshots().is_empty();
            (d.commit_identifier, lost, !d.compact_snapshots.is_empty())
        };
        let waiter = pairs[i].commit_identifier;
        let p = &mut pairs[i];
        p.waits_for_identifier = Some(due_id);
        if due_lost {
            p.status = PairStatus::DeferredToLost;
            p.detail = format!(
                "{}; the full compaction due at identifier {} never became durable (that commit has no COMPACT \
                 snapshot), so their changelog was lost with it",
                p.detail.split(": they wait for").next().unwrap_or(&p.detail),
                super::identifier_words(due_id)
            );
            let d = &mut pairs[m];
            d.waited_on_by.push(waiter);
            if d.status != PairStatus::Incomplete {
                d.status = PairStatus::Incomplete;
                d.detail = format!(
                    "no COMPACT snapshot for this identifier, though a full compaction was due ({})",
                    d.detail
                );
                let write = d.write_snapshots().last().copied().unwrap_or(0);
                d.cause = Some(missing_compact_cause(
                    write,
                    &d.commit_user,
                    d.commit_identifier,
                    snapshots,
                ));
            }
        } else if due_has_compact {
            p.detail = format!(
                "{}; the full compaction of identifier {} did not rewrite them",
                p.detail
                    .split(": they wait for")
                    .next()
                    .unwrap_or(&p.detail),
                super::identifier_words(due_id)
            );
        }
    }
    for p in pairs.iter_mut().filter(|p| !p.waited_on_by.is_empty()) {
        p.waited_on_by.sort_unstable();
        p.detail = format!(
            "{}; the level-0 files of identifier{} {:?} waited for this compaction",
            p.detail,
            if p.waited_on_by.len() == 1 { "" } else { "s" },
            p.waited_on_by
        );
    }
}

#[cfg(test)]
#[path = "pairs_tests.rs"]
mod tests;
