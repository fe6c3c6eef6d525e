//! Part 3 of the audit: files written but never committed.
//!
//! A writer writes its data and changelog files into the bucket directories before it commits them
//! (`KeyValueFileWriterFactory`; the COMPACT half's compacted and changelog files too). When the commit
//! never lands (the process stopped, `filterAndCommit` dropped the committable because the identifier
//! already had a snapshot, a COMPACT failed on a conflict), the files stay where they were written and no
//! snapshot references them. After a recovery that dropped a committable, they are the only trace of it in
//! the table.
//!
//! Each such file is read natively, one at a time, and its records are compared with the committed files
//! of its bucket ([`rows::lacking`]): a file whose records the table already has (an aborted write that a
//! replay wrote again, the output of a compaction done again) holds nothing the table lacks and is not a
//! finding. Only reads: nothing is deleted or written.

mod listing;
mod rows;

use std::path::PathBuf;
use std::sync::Arc;

use native_reader::Table;
use serde::Serialize;

use super::{CommitPair, PairStatus};
use crate::error::Result;
use crate::inspect::{identifier_words, iso_time, Timeline};

/// At most this many lacking records are rendered per file ([`UncommittedFile::lacking`]).
pub const MAX_SHOWN_RECORDS: usize = 10;

/// A data file or a changelog file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum UncommittedKind {
    /// A data file (`data-file.prefix`, default `data-`).
    Data,
    /// A changelog file (`changelog-file.prefix`, default `changelog-`).
    Changelog,
}

/// What an uncommitted file means for the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum UncommittedClass {
    /// A data file holding records the table lacks: a commit that wrote them never landed. A finding.
    RowsTheTableLacks,
    /// A changelog file holding records the stream never delivered: the changelog of a commit (usually a
    /// COMPACT half) that never landed. A finding.
    ChangelogTheStreamLacks,
    /// Everything in it is in the table (or the stream) already: left by an aborted write. Not a finding.
    NothingLacking,
    /// The changelog that the compaction of an INSERT OVERWRITE's writer wrote, which Paimon never commits
    /// (`FileStoreCommitImpl.overwritePartition` logs "Overwrite mode currently does not commit any
    /// changelog" and leaves the files). Not a finding: the overwrite's rows are in the table, and no
    /// streaming reader was ever to see them.
    OverwriteChangelog,
    /// Its records are no newer than the table at the earliest retained snapshot, whose history has
    /// expired: a file of the expired history that expiration did not delete, or one written and never
    /// committed back then; the retained history cannot tell which. Not a finding.
    BeforeRetainedHistory,
    /// It could not be read (a file cut short by a crash while it was written, or not a data file), or
    /// compared. Not a finding: nothing can be said of its rows.
    Unreadable,
    /// A changelog file of an aborted attempt: tied to no commit whose changelog is lost, its sequence numbers
    /// are those of the level-0 files of a commit that landed whole (the restarted job re-processed the same
    /// input and committed it again). It owes the stream nothing. Not a finding.
    AbortedAttempt,
    /// The audit is pinned (`--to-snapshot`) before the latest snapshot, and the file holds records newer than
    /// all the pinned history committed in its bucket: written after the pin, by a commit the pinned audit
    /// does not look at (or by one just before it that never landed: the two look alike at the pin). Not a
    /// finding here; an audit of a later snapshot judges it.
    AfterPin,
}

impl UncommittedClass {
    /// Whether the class is a finding (rows the table or the stream lacks).
    pub fn is_finding(self) -> bool {
        matches!(
            self,
            UncommittedClass::RowsTheTableLacks | UncommittedClass::ChangelogTheStreamLacks
        )
    }

    /// In words, for the text report.
    pub fn words(self) -> &'static str {
        match self {
            UncommittedClass::RowsTheTableLacks => "ROWS THE TABLE LACKS",
            UncommittedClass::ChangelogTheStreamLacks => "CHANGELOG THE STREAM LACKS",
            UncommittedClass::NothingLacking => "nothing the table lacks",
            UncommittedClass::OverwriteChangelog => "changelog an overwrite does not commit",
            UncommittedClass::BeforeRetainedHistory => "before the retained history",
            UncommittedClass::Unreadable => "unreadable",
            UncommittedClass::AbortedAttempt => "an aborted attempt, redone",
            UncommittedClass::AfterPin => "written after the pinned snapshot",
        }
    }
}

/// One file in a bucket directory that no snapshot, tag, long-lived changelog or branch references.
#[derive(Clone, Debug, Serialize)]
pub struct UncommittedFile {
    /// Partition values, from the directory names.
    pub partition: Vec<Option<String>>,
    /// Bucket.
    pub bucket: i32,
    /// File name.
    pub file: String,
    /// Full path.
    pub path: PathBuf,
    /// Data or changelog file.
    pub kind: UncommittedKind,
    /// Size in bytes.
    pub size: u64,
    /// Last modification time (ISO-8601 UTC), to place it on the snapshot timeline.
    pub modified: Option<String>,
    /// Records in it.
    pub rows: usize,
    /// Smallest and largest sequence number of its records.
    pub sequence_numbers: Option<[i64; 2]>,
    /// Records the table (data file) or the stream (changelog file) lacks.
    pub lacking_rows: usize,
    /// The first of them ([`MAX_SHOWN_RECORDS`]), `+U (1, 20)`, values in the order of the report's columns.
    pub lacking: Vec<String>,
    /// What it means.
    pub class: UncommittedClass,
    /// The incomplete commit whose level-0 files' sequence numbers its own overlap (the commit whose COMPACT
    /// half wrote it, most likely), when exactly one does.
    pub likely_user: Option<String>,
    /// See `likely_user`.
    pub likely_identifier: Option<i64>,
    /// In words.
    pub detail: String,
}

/// Part 3 of the audit.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Uncommitted {
    /// Bucket directories listed.
    pub buckets: usize,
    /// Files the metadata references (data and changelog files, each once).
    pub committed_files: usize,
    /// Files in the bucket directories that nothing references, in (bucket directory, name) order.
    pub files: Vec<UncommittedFile>,
    /// Committed files the comparison skipped because they are no longer on disk.
    pub committed_files_missing: usize,
    /// Why the check did not run, when it did not (a snapshot, tag or manifest that cannot be read).
    pub skipped: Option<String>,
}

impl Uncommitted {
    /// The files that are findings (rows the table or the stream lacks).
    pub fn findings(&self) -> impl Iterator<Item = &UncommittedFile> {
        self.files.iter().filter(|f| f.class.is_finding())
    }
}

/// The pair of `pairs` whose changelog is lost and whose files in the same bucket directory have sequence
/// numbers overlapping `range`, when exactly one does: an incomplete pair's waiting files, or the level-0
/// files of a pair whose changelog was lost and healed later (a later compaction rewrote them).
fn likely_pair<'a>(
    pairs: &'a [CommitPair],
    committed: &[listing::Committed],
    range: [i64; 2],
    bucket: i32,
    partition: &[Option<String>],
) -> Option<&'a CommitPair> {
    let mut hits = pairs.iter().filter(|p| {
        let files = match p.status {
            PairStatus::Incomplete => &p.waiting,
            PairStatus::LostHealedLater => &p.level0,
            _ => return false,
        };
        files.iter().any(|(wp, wb, name)| {
            *wb == bucket
                && wp.as_slice() == partition
                && committed.iter().any(|c| {
                    &c.meta.file_name == name
                        && c.meta.min_sequence_number <= range[1]
                        && range[0] <= c.meta.max_sequence_number
                })
        })
    });
    let first = hits.next()?;
    hits.next().is_none().then_some(first)
}

/// The commit that landed whole (its changelog not lost) whose writer assigned the newest sequence number of
/// `range` in the same bucket directory: the commit an aborted attempt's restart wrote again (the re-processed
/// input gets the same sequence numbers). A writer numbers a bucket's records one by one, and its write buffer
/// keeps only the newest record per key, so a commit's level-0 file holds the sequence numbers from its newest
/// record down to its oldest kept one, and the records it superseded lie between the previous level-0 file's
/// newest and its oldest kept one: the commit owns `(P, max]`, `P` the newest sequence number of the bucket's
/// other level-0 files below its `max` (a re-run that moved a checkpoint boundary can supersede the very
/// record that was newest in the aborted attempt). A changelog file that reaches past every landed commit's
/// level-0 records (a dropped committable's, whose compaction also read older records) is not one, nor one
/// whose newest record is the newest of a commit whose changelog was lost (`P` is that commit's `max`).
fn redone_pair<'a>(
    pairs: &'a [CommitPair],
    committed: &[listing::Committed],
    range: [i64; 2],
    bucket: i32,
    partition: &[Option<String>],
) -> Option<&'a CommitPair> {
    let level0 = |p: &'a CommitPair| {
        p.level0.iter().filter_map(move |(wp, wb, name)| {
            (*wb == bucket && wp.as_slice() == partition)
                .then(|| committed.iter().find(|c| &c.meta.file_name == name))
                .flatten()
                .map(|c| (c.meta.min_sequence_number, c.meta.max_sequence_number))
        })
    };
    let all: Vec<(i64, i64)> = pairs.iter().flat_map(level0).collect();
    pairs.iter().find(|p| {
        matches!(
            p.status,
            PairStatus::Complete | PairStatus::CompactedLater | PairStatus::NoCompactionDue
        ) && level0(p).any(|file| assigned_by(range[1], file, &all))
    })
}

/// Whether the writer of the level-0 file `file` (`[min, max]` sequence numbers) assigned sequence number `seq`:
/// it lies in the file's range, or between the newest sequence number of the bucket's other level-0 files
/// (`level0`, the file itself among them) below `max`, exclusive, and `max`.
fn assigned_by(seq: i64, (min, max): (i64, i64), level0: &[(i64, i64)]) -> bool {
    let below = level0
        .iter()
        .map(|(_, m)| *m)
        .filter(|m| *m < max)
        .max()
        .unwrap_or(i64::MIN);
    (min..=max).contains(&seq) || (below < seq && seq <= max)
}

/// The commit with an OVERWRITE write half and identifier `Long.MAX_VALUE` (an INSERT OVERWRITE) that
/// wrote the uncommitted changelog file `c` of `range`: its level-0 files in the same bucket directory
/// overlap the file's sequence numbers, and the file was written before its OVERWRITE snapshot (checked only
/// when `mtimes`: the files' modification times are the writer's, [`writer_mtimes`]).
fn overwrite_pair<'a>(
    pairs: &'a [CommitPair],
    timeline: &Timeline,
    committed: &[listing::Committed],
    range: [i64; 2],
    c: &listing::Candidate,
    mtimes: bool,
) -> Option<&'a CommitPair> {
    let times: std::collections::HashMap<i64, i64> = timeline
        .snapshots()
        .into_iter()
        .map(|s| (s.id, s.time_millis))
        .collect();
    pairs.iter().find(|p| {
        p.commit_identifier == i64::MAX
            && !p.overwrite_snapshots.is_empty()
            && p.status != PairStatus::Incomplete
            && p.overwrite_snapshots.iter().any(|s| {
                c.modified_millis
                    .filter(|_| mtimes)
                    .zip(times.get(s))
                    .is_none_or(|(m, t)| m <= *t)
            })
            && p.level0.iter().any(|(_, b, name)| {
                *b == c.bucket
                    && committed.iter().any(|f| {
                        &f.meta.file_name == name
                            && f.meta.min_sequence_number <= range[1]
                            && range[0] <= f.meta.max_sequence_number
                    })
            })
    })
}

/// True when the table's file modification times are still the writer's: the latest snapshot's file was
/// last modified within a minute after the `timeMillis` it records (Paimon takes the time just before it
/// writes the file). A copy (`cp`, a `git clone`, an unpacked archive) gives every file the copy's time,
/// and then no file's modification time is evidence of when it was written.
fn writer_mtimes(table: &Table, timeline: &Timeline) -> bool {
    const SLACK_MILLIS: i64 = 60_000;
    let Some(latest) = timeline.latest_snapshot else {
        return false;
    };
    let Some(recorded) = timeline
        .snapshots()
        .into_iter()
        .find(|s| s.id == latest)
        .map(|s| s.time_millis)
    else {
        return false;
    };
    // The snapshot file's modification time (an object's Last-Modified on a store), from a listing of
    // the snapshot directory.
    let snapshots = table.snapshot_manager().snapshot_dir();
    let name = format!("snapshot-{latest}");
    native_reader::fileio::for_path(&snapshots)
        .ok()
        .and_then(|io| io.list_status(&snapshots).ok())
        .and_then(|listed| listed.into_iter().find(|f| f.name == name))
        .and_then(|f| f.modified_millis)
        .is_some_and(|m| (recorded - SLACK_MILLIS..=recorded + SLACK_MILLIS).contains(&m))
}

/// When the timeline stops before the table's latest snapshot (`audit --to-snapshot`): per bucket directory,
/// the newest sequence number of the files the pinned history committed (added or changelog files of its
/// snapshots); `None` when the timeline reaches the latest snapshot.
fn pinned_sequence(
    table: &Table,
    timeline: &Timeline,
    referenced: &listing::Referenced,
) -> Result<Option<std::collections::HashMap<String, i64>>> {
    let (Some(pin), Some(latest)) = (timeline.latest_snapshot, table.latest_snapshot_id()?) else {
        return Ok(None);
    };
    if pin >= latest {
        return Ok(None);
    }
    let names: std::collections::HashSet<&str> = timeline
        .commits
        .iter()
        .flat_map(|c| &c.snapshots)
        .flat_map(|s| s.added.iter().chain(&s.changelog))
        .flat_map(|g| g.names.iter().map(String::as_str))
        .collect();
    let mut out = std::collections::HashMap::new();
    for (bucket_path, files) in &referenced.by_bucket {
        let newest = files
            .iter()
            .filter(|f| names.contains(f.meta.file_name.as_str()))
            .map(|f| f.meta.max_sequence_number)
            .max();
        if let Some(n) = newest {
            out.insert(bucket_path.clone(), n);
        }
    }
    Ok(Some(out))
}

/// Part 3: the files in the bucket directories of `table` that no metadata references, each read and
/// compared with the committed files of its bucket. An incomplete pair of `pairs` whose COMPACT half
/// left such a file gets that as its [`CommitPair::cause`].
///
/// Never fails the audit: metadata that cannot be read makes the check [`Uncommitted::skipped`], and an
/// uncommitted file that cannot be read or compared (a committed file of its bucket cannot be read) is
/// reported as [`UncommittedClass::Unreadable`] with the error.
pub fn find(table: &Arc<Table>, timeline: &Timeline, pairs: &mut [CommitPair]) -> Uncommitted {
    match try_find(table, timeline, pairs) {
        Ok(u) => u,
        Err(e) => Uncommitted {
            skipped: Some(e.to_string()),
            ..Uncommitted::default()
        },
    }
}

fn try_find(
    table: &Arc<Table>,
    timeline: &Timeline,
    pairs: &mut [CommitPair],
) -> Result<Uncommitted> {
    let referenced =
        listing::referenced(table, timeline.earliest_snapshot, timeline.latest_snapshot)?;
    let (buckets, candidates) = listing::candidates(table, &referenced)?;
    // In a copied or cloned table the files' modification times are the copy's, not the writer's, and say
    // nothing about when a file was written relative to a snapshot.
    let mtimes = writer_mtimes(table, timeline);
    let pinned = pinned_sequence(table, timeline, &referenced)?;
    let mut out = Uncommitted {
        buckets,
        committed_files: referenced.by_bucket.values().map(Vec::len).sum(),
        ..Uncommitted::default()
    };
    let none = Vec::new();
    for c in candidates {
        let committed = referenced.by_bucket.get(&c.bucket_path).unwrap_or(&none);
        // The committed files name the partition the way the reader renders it; the directory names are
        // the fallback for a bucket directory with nothing committed in it.
        let partition = committed
            .first()
            .map_or_else(|| c.partition.clone(), |f| f.partition.clone());
        let bucket = committed.first().map_or(c.bucket, |f| f.bucket);
        let mut file = UncommittedFile {
            partition,
            bucket,
            file: c.name.clone(),
            path: PathBuf::from(&c.bucket_path).join(&c.name),
            kind: if c.changelog {
                UncommittedKind::Changelog
            } else {
                UncommittedKind::Data
            },
            size: c.size,
            modified: c.modified_millis.map(iso_time),
            rows: 0,
            sequence_numbers: None,
            lacking_rows: 0,
            lacking: Vec::new(),
            class: UncommittedClass::Unreadable,
            likely_user: None,
            likely_identifier: None,
            detail: String::new(),
        };
        let records = match rows::read_uncommitted(table, &c) {
            Ok(r) => r,
            Err(e) => {
                file.detail = format!("cannot be read: {e}");
                out.files.push(file);
                continue;
            }
        };
        file.rows = records.len();
        file.sequence_numbers = records
            .iter()
            .map(|r| r.seq)
            .min()
            .zip(records.iter().map(|r| r.seq).max())
            .map(|(a, b)| [a, b]);
        if let (Some([_, newest]), Some(pinned)) = (file.sequence_numbers, &pinned) {
            if let Some(up_to) = pinned.get(&c.bucket_path).filter(|up_to| newest > **up_to) {
                file.class = UncommittedClass::AfterPin;
                file.detail = format!(
                    "not committed by snapshot {}, the snapshot this audit is pinned to: it holds records \
                     (up to sequence number {newest}) newer than all that the pinned history committed in its \
                     bucket (up to {up_to}), so it was written after the pin (or by a commit just before it \
                     that never landed, which an audit of a later snapshot tells apart): not a finding here",
                    timeline.latest_snapshot.unwrap_or(0)
                );
                out.files.push(file);
                continue;
            }
        }
        if let (Some([_, newest]), Some(up_to)) = (
            file.sequence_numbers,
            referenced.expired_up_to.get(&c.bucket_path),
        ) {
            if newest <= *up_to {
                file.class = UncommittedClass::BeforeRetainedHistory;
                file.detail = format!(
                    "written but never committed in the retained history: its records (sequence numbers up to \
                     {newest}) are no newer than the table at the earliest retained snapshot {} (up to {up_to}), \
                     whose history expired: a file of the expired history that expiration did not delete, or \
                     one never committed back then; the retained history cannot tell: not a finding",
                    timeline.earliest_snapshot.unwrap_or(0)
                );
                out.files.push(file);
                continue;
            }
        }
        let (lacking, missing) = match rows::lacking(table, &c, &records, committed) {
            Ok(found) => found,
            Err(e) => {
                file.detail = format!(
                    "holds {} records, which could not be compared with its bucket's committed files: {e}",
                    records.len()
                );
                out.files.push(file);
                continue;
            }
        };
        out.committed_files_missing += missing;
        file.lacking_rows = lacking.len();
        file.lacking = lacking
            .iter()
            .take(MAX_SHOWN_RECORDS)
            .map(|i| records[*i].words())
            .collect();
        if let Some(range) = file.sequence_numbers {
            if let Some(p) = likely_pair(pairs, committed, range, file.bucket, &file.partition) {
                file.likely_user = Some(p.commit_user.clone());
                file.likely_identifier = Some(p.commit_identifier);
            }
        }
        let of = match (&file.likely_user, file.likely_identifier) {
            (Some(u), Some(i)) => format!(
                "; its sequence numbers are those of the incomplete commit of user {u}, identifier {}: \
                 most likely the output of its COMPACT half",
                identifier_words(i)
            ),
            _ => String::new(),
        };
        let overwrite = file
            .sequence_numbers
            .filter(|_| c.changelog && file.likely_identifier.is_none() && !lacking.is_empty())
            .and_then(|range| overwrite_pair(pairs, timeline, committed, range, &c, mtimes));
        if let Some(p) = overwrite {
            file.class = UncommittedClass::OverwriteChangelog;
            file.detail = format!(
                "written but never committed: the changelog of the compaction of the overwrite of user {}, \
                 identifier {} (OVERWRITE snapshot {:?}), which Paimon does not commit (an overwrite commits no \
                 changelog, FileStoreCommitImpl.overwritePartition); its {} records never reach a streaming \
                 reader by design: not a finding",
                p.commit_user,
                identifier_words(p.commit_identifier),
                p.overwrite_snapshots,
                lacking.len()
            );
            out.files.push(file);
            continue;
        }
        let redone = file
            .sequence_numbers
            .filter(|_| c.changelog && file.likely_identifier.is_none() && !lacking.is_empty())
            .and_then(|range| redone_pair(pairs, committed, range, file.bucket, &file.partition));
        if let Some(p) = redone {
            file.class = UncommittedClass::AbortedAttempt;
            file.detail = format!(
                "written but never committed by an aborted attempt: its sequence numbers are those of the \
                 level-0 files of user {}, identifier {} ({}), which landed whole after the restart \
                 re-processed the same input; {} of its {} records differ from what was redone, and it owes \
                 the stream nothing: not a finding",
                p.commit_user,
                identifier_words(p.commit_identifier),
                p.write_words(),
                lacking.len(),
                records.len()
            );
            out.files.push(file);
            continue;
        }
        (file.class, file.detail) = match (lacking.is_empty(), c.changelog) {
            (true, _) => (
                UncommittedClass::NothingLacking,
                format!(
                    "written but never committed; its {} records are all in the table's committed files \
                     (left by an aborted write): not a finding{of}",
                    records.len()
                ),
            ),
            (false, false) => (
                UncommittedClass::RowsTheTableLacks,
                format!(
                    "written but never committed, and {} of its {} records are not in the table: the commit \
                     that wrote them never landed (a recovery dropped it, or the process stopped before \
                     committing), and this file is their only trace in the table{of}",
                    lacking.len(),
                    records.len()
                ),
            ),
            (false, true) => (
                UncommittedClass::ChangelogTheStreamLacks,
                format!(
                    "written but never committed, and {} of its {} changelog records never reached the \
                     stream: the commit that wrote them never landed, and this file is their only trace in \
                     the table{of}",
                    lacking.len(),
                    records.len()
                ),
            ),
        };
        out.files.push(file);
    }
    for p in pairs.iter_mut().filter(|p| p.status.lost_changelog()) {
        let left: Vec<&str> = out
            .files
            .iter()
            .filter(|f| {
                f.likely_user.as_deref() == Some(p.commit_user.as_str())
                    && f.likely_identifier == Some(p.commit_identifier)
            })
            .map(|f| f.file.as_str())
            .collect();
        if !left.is_empty() {
            p.cause = Some(format!(
                "its COMPACT half was written but never committed: {} in the bucket director{} (see the \
                 uncommitted files): the COMPACT failed (an error, or a conflict with another writer) or \
                 the process stopped after the write snapshot, and the recovery (filterAndCommit) dropped it",
                left.join(", "),
                if left.len() == 1 { "y holds it" } else { "ies hold them" }
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::assigned_by;

    #[test]
    fn a_commit_owns_the_sequence_numbers_its_write_buffer_superseded() {
        // f13's bucket 0: the re-run's level-0 files [484, 523] and [574, 631]; the aborted attempt's
        // newest record, 524, was superseded in the second one's write buffer.
        let level0 = [(369, 397), (439, 464), (484, 523), (574, 631)];
        assert!(assigned_by(524, (574, 631), &level0));
        assert!(assigned_by(573, (574, 631), &level0));
        assert!(assigned_by(500, (484, 523), &level0));
        assert!(!assigned_by(524, (484, 523), &level0));
        // The newest record of the previous file is that file's, not the next one's: a lost commit's
        // changelog ends there.
        assert!(!assigned_by(523, (574, 631), &level0));
        assert!(!assigned_by(632, (574, 631), &level0));
        // The first file of a bucket owns everything below it.
        assert!(assigned_by(0, (369, 397), &level0));
    }
}
