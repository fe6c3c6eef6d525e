//! `paimon-parity audit`: finds the commits whose changelog was lost, and proves it from the data.
//!
//! A commit of a `lookup` or `full-compaction` table writes a write snapshot (APPEND, or OVERWRITE: see
//! [`crate::inspect::pairs`]) with new level-0 files and then a COMPACT snapshot with the same (commit user,
//! commit identifier) that carries the changelog (`FileStoreCommitImpl.commit`). When the process dies
//! between the two, the released recovery (`StreamTableCommit.filterAndCommit` →
//! `FileStoreCommitImpl.filterCommitted`) drops the COMPACT half because the identifier already has a
//! snapshot, and streaming readers never see that changelog.
//!
//! The audit has three parts:
//! 1. **Commit pairs** (metadata only, [`crate::inspect::pairs`]): for every (user, identifier), which halves
//!    exist; a commit that was due to compact (`full-compaction.delta-commits`, `lookup`) and whose level-0
//!    files never reach a changelog (no COMPACT of the same identifier, and no later compaction that
//!    rewrote them with changelog) is flagged, and the commits whose files waited for it are named.
//! 2. **Changelog completeness** (data): the changelog replayed from the earliest snapshot is folded per
//!    primary key (`+I`/`+U` set the value, `-U`/`-D` clear it) and compared with the batch read of the
//!    latest snapshot. Every key whose table value never reached the changelog is reported with its
//!    partition, bucket, the value the stream last saw, the value in the table, the write snapshot and
//!    (user, identifier) that wrote the table's value (or the key's delete), and the commit whose lost
//!    COMPACT should have delivered it.
//! 3. **Files written but never committed** ([`uncommitted`]): data and changelog files in the bucket
//!    directories that no snapshot references, with the rows they hold that the table (or its changelog)
//!    lacks, read natively one file at a time.

mod attribution;
mod completeness;
mod durable;
mod fold;
mod text;
pub mod uncommitted;
mod users;

use std::path::{Path, PathBuf};

use native_reader::Table;
use serde::Serialize;

use crate::error::{Error, Result, Side};
use crate::inspect::{inspect, CompactionSchedule, Timeline};
use crate::reader::{this_release, NativeTableReader, StockTableReader};
use native_reader::snapshot::CommitKind;

pub use crate::inspect::{commit_pairs, CommitPair, PairStatus};
use attribution::{attribute, blame};
use completeness::completeness;
pub use fold::{compare_changelog_with_table, render_values, SplitRows};
pub use text::{named_partition, write_text, SWEEP_HINT};
pub use uncommitted::{Uncommitted, UncommittedClass, UncommittedFile, UncommittedKind};
use users::user_summaries;

/// Part 1 of the audit (commit pairs, metadata only) of `timeline`: one [`CommitPair`] per (commit user,
/// commit identifier), in timeline order ([`crate::inspect::commit_pairs`]).
pub fn commit_pairs_of(timeline: &Timeline) -> Vec<CommitPair> {
    commit_pairs(timeline)
}

/// How the changelog of one key disagrees with the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyClass {
    /// The table has a value the changelog never delivered (it delivered an older one, or none).
    FinalValueNeverDelivered,
    /// The changelog's last event for the key is a `-U`/`-D`, yet the table still has the key.
    DeletedInStreamPresentInTable,
    /// The changelog still shows a value, yet the table no longer has the key (its delete never reached the
    /// changelog).
    PresentInStreamAbsentFromTable,
    /// Written and durable, but returned by no reader: the key's newest durable record (highest sequence
    /// number among the committed files of its bucket, level 0 included) sits in the level-0 files of a
    /// commit whose COMPACT half was lost, and differs from both what the changelog delivered and what the
    /// batch read returns. Batch reads of a deletion-vector table skip level 0 (`DataTableBatchScan`), so
    /// neither reader returns it until a compaction rewrites those files, which may never come.
    DurableButUnread,
}

impl KeyClass {
    /// In words, for the text report.
    pub fn words(self) -> &'static str {
        match self {
            KeyClass::FinalValueNeverDelivered => "final value never delivered",
            KeyClass::DeletedInStreamPresentInTable => {
                "deleted in the stream but present in the table"
            }
            KeyClass::PresentInStreamAbsentFromTable => {
                "present in the stream but absent from the table"
            }
            KeyClass::DurableButUnread => {
                "written and durable in level-0 files of the incomplete commit, returned by no reader until \
                 a compaction rewrites them"
            }
        }
    }
}

/// One key whose value in the table never reached the changelog.
#[derive(Clone, Debug, Serialize)]
pub struct MissingKey {
    /// Partition values (legacy rendering).
    pub partition: Vec<Option<String>>,
    /// Bucket.
    pub bucket: i32,
    /// The primary key, each column with its name: `id=7`, or `(id=7, name="a")` for a composite key.
    pub key: String,
    /// The primary key's columns by name, typed (`{"id": 7}`).
    pub key_values: serde_json::Map<String, serde_json::Value>,
    /// How the stream and the table disagree on it.
    pub class: KeyClass,
    /// The stream's last event for the key: RowKind, values, snapshot (`-D (10, 10) at snapshot 6`);
    /// `None` when the stream never showed the key.
    pub stream_last_event: Option<String>,
    /// The snapshot of that last event.
    pub stream_last_snapshot: Option<i64>,
    /// The last value the changelog showed for this key, rendered as `(1, 10)` (`<none>` when it never
    /// showed one, or it was retracted).
    pub stream_value: String,
    /// The value in the latest snapshot, rendered the same way (`<deleted>` when the table no longer has
    /// the key). For [`KeyClass::DurableButUnread`], what the batch read returns (`<none>` when it does not
    /// return the key); the durable value is in `durable`.
    pub table_value: String,
    /// The stream's last value of the row by column name, typed; `None` where `stream_value` is `<none>`.
    pub stream_row: Option<serde_json::Map<String, serde_json::Value>>,
    /// The table's row by column name, typed; `None` where `table_value` is `<deleted>`.
    pub table_row: Option<serde_json::Map<String, serde_json::Value>>,
    /// The newest write snapshot (APPEND or OVERWRITE) whose level-0 files hold the table's value, or, for
    /// a key the table no longer has, the key's delete (`-D`/`-U`), if found.
    pub written_by_snapshot: Option<i64>,
    /// Its commit user.
    pub written_by_user: Option<String>,
    /// Its commit identifier.
    pub written_by_identifier: Option<i64>,
    /// Its commit kind (`APPEND` or `OVERWRITE`).
    pub written_by_kind: Option<CommitKind>,
    /// The commit whose COMPACT half never became durable and would have delivered this key's change: the
    /// writing commit when its pair is [`PairStatus::Incomplete`], or the commit whose full compaction its
    /// level-0 files waited for ([`PairStatus::DeferredToLost`]).
    pub lost_with_user: Option<String>,
    /// See `lost_with_user`.
    pub lost_with_identifier: Option<i64>,
    /// An INSERT OVERWRITE (an OVERWRITE snapshot with identifier `Long.MAX_VALUE`) that explains the key:
    /// it wrote the table's value, or it replaced the files of the key's bucket after the stream's last
    /// event. Paimon writes no changelog for an INSERT OVERWRITE
    /// (`FileStoreCommitImpl.overwritePartition`), and streaming reads skip OVERWRITE snapshots unless
    /// `streaming-read-overwrite` is set.
    pub overwritten_by_snapshot: Option<i64>,
    /// [`KeyClass::DurableButUnread`]: the key's newest durable record, which no reader returns; `None` for
    /// the other classes.
    pub durable: Option<DurableRecord>,
}

/// The newest durable record of a key: the record with the highest sequence number among the committed
/// files of its bucket in the latest snapshot (level 0 included, deletion vectors applied).
#[derive(Clone, Debug, Serialize)]
pub struct DurableRecord {
    /// Its RowKind and values, `+U (1, 20)` or `-D (3, 10)`.
    pub record: String,
    /// The value it leaves the key with, rendered as `(1, 20)`, or `<deleted>` for a retraction
    /// (`-U`/`-D`).
    pub value: String,
    /// That value by column name, typed; `None` for a retraction.
    pub row: Option<serde_json::Map<String, serde_json::Value>>,
    /// Its `_SEQUENCE_NUMBER`.
    pub sequence_number: i64,
    /// The data file that holds it.
    pub file: String,
    /// That file's LSM level.
    pub level: i32,
}

/// Per commit user.
#[derive(Clone, Debug, Serialize)]
pub struct UserSummary {
    /// Commit user.
    pub commit_user: String,
    /// Its last APPEND snapshot.
    pub last_append: Option<i64>,
    /// Its last COMPACT snapshot.
    pub last_compact: Option<i64>,
    /// Its last write snapshot (APPEND or OVERWRITE).
    pub last_write: Option<i64>,
    /// Identifiers whose pair is incomplete.
    pub incomplete_identifiers: Vec<i64>,
}

/// The changelog-completeness part of the audit.
#[derive(Clone, Debug, Serialize)]
pub struct Completeness {
    /// Which reader produced the changelog and the batch rows (`native` or `stock`).
    pub reader: String,
    /// First snapshot of the replayed changelog (the earliest retained one).
    pub from_snapshot: i64,
    /// Last snapshot checked (latest at audit start).
    pub to_snapshot: i64,
    /// True when the history was expired and the replay started with a full read of `from_snapshot`
    /// (`scan.mode=from-snapshot-full`) instead of the changelog from snapshot 1.
    pub started_from_full_snapshot: bool,
    /// Distinct primary keys in the table or in the changelog, and those only the durable level-0 files of a
    /// lost compaction hold ([`KeyClass::DurableButUnread`]).
    pub keys: usize,
    /// Keys whose final value is missing from (or different in) the changelog.
    pub missing: Vec<MissingKey>,
    /// Why the check did not run, when it did not (no snapshot, no primary key, no true changelog).
    pub skipped: Option<String>,
    /// Keys left out because they sit in level-0 files that batch reads of this table do not see yet
    /// (deletion-vector and first-row tables read only level > 0: `DataTableBatchScan`); their changelog
    /// is not lost, the table view is behind the stream.
    pub pending_level0_keys: usize,
    /// Keys left out because the stream saw them in the postpone bucket (`bucket = -2`, Paimon 2.0), which
    /// batch reads skip until a job moves its records into real buckets; not lost, not yet in the table.
    pub pending_postpone_keys: usize,
    /// Keys left out because their table value was written by a [`PairStatus::Deferred`] commit whose
    /// level-0 files wait for a full compaction due at a later identifier (`full-compaction.delta-commits`):
    /// not lost, the changelog comes with that compaction.
    pub pending_compaction_keys: usize,
    /// Splits of the changelog and batch reads left out because the evidence bundle audited does not retain
    /// all their files (0 for a table).
    pub not_retained_splits: usize,
}

impl Completeness {
    /// The sentences that say which keys the check left out and why (level-0 files batch reads do not see
    /// yet, the postpone bucket), one per reason that applies; the text report and the HTML page both
    /// print them.
    pub fn left_out_notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.pending_level0_keys > 0 {
            notes.push(format!(
                "{} keys left out: they sit in level-0 files that batch reads of this table do not see until \
                 compaction",
                self.pending_level0_keys
            ));
        }
        if self.pending_compaction_keys > 0 {
            notes.push(format!(
                "{} keys left out: their values sit in level-0 files that wait for the next full compaction \
                 (full-compaction.delta-commits), which writes their changelog",
                self.pending_compaction_keys
            ));
        }
        if self.pending_postpone_keys > 0 {
            notes.push(format!(
                "{} keys left out: the stream saw them in the postpone bucket (bucket -2), which batch reads \
                 skip until a job moves them into real buckets",
                self.pending_postpone_keys
            ));
        }
        if self.not_retained_splits > 0 {
            notes.push(format!(
                "{} splits not retained: the evidence bundle audited does not keep all their files, so their \
                 keys are not audited",
                self.not_retained_splits
            ));
        }
        notes
    }
}

/// One key the audit reports, listed once however many readers found it.
#[derive(Clone, Debug, Serialize)]
pub struct KeyFinding {
    /// The key as the first reader that found it reports it (`native` before `stock`).
    #[serde(flatten)]
    pub key: MissingKey,
    /// The readers that report this key (`native`, `stock`).
    pub found_by: Vec<String>,
    /// With `--reader both`: whether both readers report the key with the same class, stream value and table
    /// value; `None` with one reader.
    pub readers_agree: Option<bool>,
    /// Where the readers disagree on this key, in words (`the stock reader does not report it`, or the other
    /// reader's class and values).
    pub disagreement: Option<String>,
}

/// The whole audit.
#[derive(Clone, Debug, Serialize)]
pub struct AuditReport {
    /// Table directory.
    pub table: PathBuf,
    /// Partition columns (the names of `MissingKey::partition`).
    pub partition_keys: Vec<String>,
    /// Primary-key columns (the names in `MissingKey::key`).
    pub primary_keys: Vec<String>,
    /// Every column, in the order of the rendered values (`MissingKey::table_value`, `stream_value`).
    pub columns: Vec<String>,
    /// `changelog-producer`.
    pub changelog_producer: String,
    /// Snapshot range of the retained history.
    pub earliest_snapshot: Option<i64>,
    /// See `earliest_snapshot`.
    pub latest_snapshot: Option<i64>,
    /// Every (user, identifier).
    pub pairs: Vec<CommitPair>,
    /// Per commit user.
    pub users: Vec<UserSummary>,
    /// Changelog completeness, per reader (one entry, or two with `--reader both`).
    pub completeness: Vec<Completeness>,
    /// With `--reader both`: whether the native and stock readers found the same missing keys.
    pub readers_agree: Option<bool>,
    /// Every key any reader reports, once, in (partition, bucket, key) order, with which readers report it
    /// and whether they agree.
    pub findings: Vec<KeyFinding>,
    /// When the table's writers compact (from its options: `full-compaction.delta-commits`, `lookup`), which
    /// decides whether a commit without COMPACT half lost it or compacts later.
    pub compaction: CompactionSchedule,
    /// Part 3: files in the bucket directories that no snapshot references.
    pub uncommitted: Uncommitted,
    /// With an incomplete pair: where to look next, `paimon-parity sweep` ([`SWEEP_HINT`]); `None` otherwise.
    pub sweep: Option<String>,
    /// `complete`; `changelog-lost` (a commit is incomplete: its write half is durable and its COMPACT half,
    /// which writes the changelog, never became durable); `rows-never-committed` (no commit is incomplete,
    /// but files no snapshot references hold rows the table, or changelog the stream, lacks: a committable
    /// was dropped); or `changelog-diverges` (none of those, yet the changelog disagrees with the table:
    /// sequence-number ties between writers, concurrent writers on one bucket, a re-insert that produced no
    /// changelog, an INSERT OVERWRITE). Every finding exits 1. `not-checked` when none of those was found
    /// but the completeness check compared nothing (it was skipped, or it compared 0 keys: an empty table,
    /// an evidence bundle that retains none of the splits' files): no evidence either way, exit 3, with
    /// the reason in `not_checked`.
    pub verdict: &'static str,
    /// Why the verdict is `not-checked` (the completeness check's reason, or what it compared none of);
    /// `None` for every other verdict.
    pub not_checked: Option<String>,
}

impl AuditReport {
    /// Exit status: 0 complete, 1 for any finding (changelog lost, rows never committed, changelog
    /// diverges), 3 ([`crate::error::EXIT_NOTHING_COMPARED`]) when nothing was checked (`not-checked`).
    pub fn exit_code(&self) -> i32 {
        match self.verdict {
            "complete" => crate::error::EXIT_IDENTICAL,
            "not-checked" => crate::error::EXIT_NOTHING_COMPARED,
            _ => crate::error::EXIT_DIFFERENT,
        }
    }

    /// Incomplete pairs.
    pub fn incomplete_pairs(&self) -> Vec<&CommitPair> {
        self.pairs_with(PairStatus::Incomplete)
    }

    /// The pairs with `status`, in timeline order.
    pub fn pairs_with(&self, status: PairStatus) -> Vec<&CommitPair> {
        self.pairs.iter().filter(|p| p.status == status).collect()
    }
}

/// (partition values, bucket, rendered primary key) of one key.
pub(super) type KeyPlace = (Vec<Option<String>>, i32, String);

/// Assembles the report around the results of the three parts.
fn assemble(
    timeline: Timeline,
    pairs: Vec<CommitPair>,
    completeness: Vec<Completeness>,
    uncommitted: Uncommitted,
) -> AuditReport {
    let users = user_summaries(&timeline, &pairs);
    let incomplete = pairs.iter().any(|p| p.status.lost_changelog());
    let never_committed = uncommitted.files.iter().any(|f| f.class.is_finding());
    let diverges = completeness.iter().any(|c| !c.missing.is_empty());
    let findings = findings(&completeness);
    let not_checked = not_checked(&completeness);
    let readers_agree = match completeness.as_slice() {
        [a, b] => Some(a.keys == b.keys && findings.iter().all(|f| f.readers_agree == Some(true))),
        _ => None,
    };
    AuditReport {
        readers_agree,
        findings,
        partition_keys: timeline.partition_keys.clone(),
        primary_keys: timeline.primary_keys.clone(),
        columns: timeline.columns.clone(),
        table: timeline.table.clone(),
        changelog_producer: timeline.changelog_producer.clone(),
        earliest_snapshot: timeline.earliest_snapshot,
        latest_snapshot: timeline.latest_snapshot,
        pairs,
        users,
        completeness,
        compaction: timeline.compaction.clone(),
        uncommitted,
        sweep: incomplete.then(|| SWEEP_HINT.to_owned()),
        verdict: if incomplete {
            "changelog-lost"
        } else if never_committed {
            "rows-never-committed"
        } else if diverges {
            "changelog-diverges"
        } else if not_checked.is_some() {
            "not-checked"
        } else {
            "complete"
        },
        not_checked: (!incomplete && !never_committed && !diverges)
            .then_some(not_checked)
            .flatten(),
    }
}

/// Why the completeness part checked nothing, when it did not: a reader whose check was skipped (its
/// reason), or that compared 0 keys (an empty table, or a bundle that retains none of the splits' files);
/// also when no reader ran. `None` when every reader compared at least one key.
fn not_checked(completeness: &[Completeness]) -> Option<String> {
    if completeness.is_empty() {
        return Some("no reader ran the changelog-completeness check".to_owned());
    }
    completeness.iter().find_map(|c| {
        if let Some(why) = &c.skipped {
            return Some(format!("the {} reader's check was skipped: {why}", c.reader));
        }
        (c.keys == 0).then(|| {
            if c.not_retained_splits > 0 {
                format!(
                    "the {} reader compared 0 keys: the evidence bundle retains the files of none of the {} \
                     splits read (`retain --files all` keeps them)",
                    c.reader, c.not_retained_splits
                )
            } else {
                format!(
                    "the {} reader compared 0 keys: neither the changelog of snapshots {}..{} nor the table \
                     holds a key",
                    c.reader, c.from_snapshot, c.to_snapshot
                )
            }
        })
    })
}

/// The keys of every reader's completeness, each once: which readers report it, and whether they agree on
/// its class and values.
fn findings(completeness: &[Completeness]) -> Vec<KeyFinding> {
    let place = |m: &MissingKey| -> KeyPlace { (m.partition.clone(), m.bucket, m.key.clone()) };
    let mut by_key: std::collections::BTreeMap<KeyPlace, Vec<(&str, &MissingKey)>> =
        std::collections::BTreeMap::new();
    for c in completeness.iter().filter(|c| c.skipped.is_none()) {
        for m in &c.missing {
            by_key.entry(place(m)).or_default().push((&c.reader, m));
        }
    }
    let readers: Vec<&str> = completeness
        .iter()
        .filter(|c| c.skipped.is_none())
        .map(|c| c.reader.as_str())
        .collect();
    by_key
        .into_values()
        .filter_map(|found| {
            let (_, first) = *found.first()?;
            let same = |m: &MissingKey| {
                m.class == first.class
                    && m.stream_value == first.stream_value
                    && m.table_value == first.table_value
            };
            let disagreement = if readers.len() < 2 {
                None
            } else if let Some(missing) =
                readers.iter().find(|r| !found.iter().any(|(f, _)| f == *r))
            {
                Some(format!("the {missing} reader does not report this key"))
            } else {
                found.iter().skip(1).find(|(_, m)| !same(m)).map(|(r, m)| {
                    format!(
                        "the {r} reader finds it {}: stream last event {}, table {}",
                        m.class.words(),
                        m.stream_last_event.as_deref().unwrap_or("none"),
                        m.table_value
                    )
                })
            };
            Some(KeyFinding {
                key: first.clone(),
                found_by: found.iter().map(|(r, _)| (*r).to_owned()).collect(),
                readers_agree: (readers.len() >= 2).then_some(disagreement.is_none()),
                disagreement,
            })
        })
        .collect()
}

/// Reads the timeline of `path` (part 1 only, no data read).
pub fn timeline(path: &Path) -> Result<Timeline> {
    inspect(path)
}

/// Which reader replays the changelog and reads the table (`--reader`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AuditReaders {
    /// The native reader alone.
    Native,
    /// The released Java reader alone.
    Stock,
    /// Both, native first, and whether they find the same keys (a cross-check).
    Both,
}

impl AuditReaders {
    /// The readers the completeness part runs on, in order.
    pub fn sides(self) -> &'static [Side] {
        match self {
            AuditReaders::Native => &[Side::Native],
            AuditReaders::Stock => &[Side::Stock],
            AuditReaders::Both => &[Side::Native, Side::Stock],
        }
    }
}

impl std::str::FromStr for AuditReaders {
    type Err = Error;

    /// `native`, `stock` or `both`; anything else is [`Error::Scenario`] naming the three.
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "native" => Ok(AuditReaders::Native),
            "stock" => Ok(AuditReaders::Stock),
            "both" => Ok(AuditReaders::Both),
            other => Err(Error::Scenario(format!(
                "unknown reader `{other}`: use native, stock or both"
            ))),
        }
    }
}

/// Runs the audit of the table at `path` with `reader` (`native`, `stock` or `both`, see [`AuditReaders`]).
///
/// Errors: an unknown reader name, an unreadable table (exit 2).
pub fn run(path: &Path, reader: &str) -> Result<AuditReport> {
    audit(path, reader.parse()?)
}

/// Runs the audit of the table at `path` with `readers`.
///
/// With [`AuditReaders::Both`], the completeness part runs on each reader and the report says whether
/// they agree. The native side plans as the process's release ([`this_release`]).
/// Errors: an unreadable table (exit 2); a release the native reader does not implement.
pub fn audit(path: &Path, readers: AuditReaders) -> Result<AuditReport> {
    audit_with(path, readers, false)
}

/// [`audit`], of an unpacked evidence bundle when `retained_only` (`paimon-parity retain`): the changelog
/// and batch splits whose files the bundle does not retain are left out of part 2 and counted in
/// [`Completeness::not_retained_splits`] (a bundle keeps whole buckets, so the keys of the retained buckets
/// are audited as in the table); committed files it does not retain are counted by part 3.
///
/// Errors: as [`audit`].
pub fn audit_with(path: &Path, readers: AuditReaders, retained_only: bool) -> Result<AuditReport> {
    audit_to(path, readers, retained_only, None)
}

/// [`audit_with`] of the table as it was at snapshot `to` (`audit --to-snapshot`, the pin of a unit of
/// `scripts/spark-audit`): the snapshots after it are left out of the history and the final state is that
/// snapshot's, so that an audit run again while writers commit finds the same; files committed after it are
/// never taken for uncommitted ones. `None`: up to the latest snapshot.
///
/// Errors: as [`audit`]; a `to` outside the retained snapshots is a usage error naming them.
pub fn audit_to(
    path: &Path,
    readers: AuditReaders,
    retained_only: bool,
    to: Option<i64>,
) -> Result<AuditReport> {
    let release = this_release()?;
    let timeline = crate::inspect::inspect_to(path, to)?;
    let (base, branch) = crate::location::split_branch(&timeline.table);
    let table = std::sync::Arc::new(Table::open_branch(&base, branch.as_deref(), release)?);
    let mut pairs = commit_pairs(&timeline);
    let mut results = Vec::new();
    for side in readers.sides() {
        let mut c = match side {
            Side::Native => completeness(
                &NativeTableReader::for_release(release),
                &table,
                &timeline,
                &pairs,
                retained_only,
            )?,
            Side::Stock => completeness(
                &StockTableReader::new()?,
                &table,
                &timeline,
                &pairs,
                retained_only,
            )?,
            Side::External(name) => {
                return Err(Error::Usage(format!(
                    "audit reads with the released and the native reader only, not `{name}`"
                )))
            }
        };
        attribute(&table, &timeline, &mut c.missing)?;
        blame(&pairs, &mut c);
        results.push(c);
    }
    let uncommitted = uncommitted::find(&table, &timeline, &mut pairs);
    Ok(assemble(timeline, pairs, results, uncommitted))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn completeness(reader: &str, missing: Vec<MissingKey>) -> Completeness {
        Completeness {
            reader: reader.into(),
            from_snapshot: 1,
            to_snapshot: 3,
            started_from_full_snapshot: false,
            keys: 2,
            missing,
            skipped: None,
            pending_level0_keys: 0,
            pending_postpone_keys: 0,
            pending_compaction_keys: 0,
            not_retained_splits: 0,
        }
    }

    fn key(k: i64, table_value: &str) -> MissingKey {
        MissingKey {
            partition: vec![],
            bucket: 0,
            key: format!("k={k}"),
            key_values: serde_json::Map::from_iter([("k".to_owned(), k.into())]),
            class: KeyClass::FinalValueNeverDelivered,
            stream_last_event: Some(format!("+I ({k}, 1) at snapshot 1")),
            stream_last_snapshot: Some(1),
            stream_value: format!("({k}, 1)"),
            table_value: table_value.into(),
            stream_row: None,
            table_row: None,
            written_by_snapshot: None,
            written_by_user: None,
            written_by_identifier: None,
            written_by_kind: None,
            lost_with_user: None,
            lost_with_identifier: None,
            overwritten_by_snapshot: None,
            durable: None,
        }
    }

    /// (key, found by, readers agree, disagreement) of one finding.
    type Listed<'a> = (&'a str, Vec<String>, Option<bool>, Option<&'a str>);

    #[test]
    fn each_key_is_listed_once_with_the_readers_that_report_it() {
        let both = [
            completeness("native", vec![key(1, "(1, 2)"), key(2, "(2, 2)")]),
            completeness("stock", vec![key(1, "(1, 2)"), key(3, "(3, 2)")]),
        ];
        let f = findings(&both);
        let listed: Vec<Listed<'_>> = f
            .iter()
            .map(|f| {
                (
                    f.key.key.as_str(),
                    f.found_by.clone(),
                    f.readers_agree,
                    f.disagreement.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            listed,
            [
                (
                    "k=1",
                    vec!["native".into(), "stock".into()],
                    Some(true),
                    None
                ),
                (
                    "k=2",
                    vec!["native".into()],
                    Some(false),
                    Some("the stock reader does not report this key")
                ),
                (
                    "k=3",
                    vec!["stock".into()],
                    Some(false),
                    Some("the native reader does not report this key")
                ),
            ]
        );
        // The same key with another table value: listed once, as a disagreement naming the other view.
        let f = findings(&[
            completeness("native", vec![key(1, "(1, 2)")]),
            completeness("stock", vec![key(1, "(1, 5)")]),
        ]);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].disagreement.as_deref(),
            Some("the stock reader finds it final value never delivered: stream last event +I (1, 1) at snapshot 1, table (1, 5)")
        );
        // One reader: no agreement to speak of.
        let f = findings(&[completeness("native", vec![key(1, "(1, 2)")])]);
        assert_eq!(f[0].readers_agree, None);
    }
}
