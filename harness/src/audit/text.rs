//! The audit for people: commit pairs that are not complete, per-user summary, missing keys, files written
//! but never committed, verdict.

use super::{AuditReport, KeyClass, PairStatus, UncommittedClass};
use crate::inspect::identifier_words;

/// Where to look next when a table shows an incomplete pair: the crash-point sweep (`paimon-parity sweep`).
pub const SWEEP_HINT: &str = "paimon-parity sweep SCENARIO --paimon-version V fails a commit of a scenario at \
    every file operation (crash, fail, fail-after), recovers as a restarted job does, and classes what each \
    point leaves (changelog lost, merged, duplicated, data lost): it shows which points of your release lose a \
    COMPACT half (on C00 every crash between the APPEND and the COMPACT publication does)";

/// `partition dt=2024-01-01, ` with the partition columns' names (nothing for an unpartitioned table).
fn show_partition(names: &[String], p: &[Option<String>]) -> String {
    if p.is_empty() {
        return String::new();
    }
    format!("partition {}, ", named_partition(names, p))
}

/// Partition values with their columns' names, `pt=p0, d=NULL` (`[]` for an unpartitioned table); a value
/// without a name (a partition of an older schema) is shown alone.
pub fn named_partition(names: &[String], p: &[Option<String>]) -> String {
    if p.is_empty() {
        return "[]".to_owned();
    }
    p.iter()
        .enumerate()
        .map(|(i, v)| {
            let value = v.as_deref().unwrap_or("NULL");
            match names.get(i) {
                Some(n) => format!("{n}={value}"),
                None => value.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Writes the audit for people: commit pairs that are not complete, per-user summary, missing keys, verdict.
pub fn write_text(
    out: &mut dyn std::io::Write,
    r: &AuditReport,
    max_keys: usize,
) -> std::io::Result<()> {
    let range = match (r.earliest_snapshot, r.latest_snapshot) {
        (Some(a), Some(b)) => format!("snapshots {a}..{b}"),
        _ => "no snapshot".into(),
    };
    writeln!(
        out,
        "paimon-parity audit {} (changelog-producer {}, {range})",
        r.table.display(),
        r.changelog_producer
    )?;
    if r.compaction != crate::inspect::CompactionSchedule::NoCompactionChangelog {
        writeln!(out, "compaction: {}", r.compaction.words())?;
    }
    let count = |s: PairStatus| r.pairs.iter().filter(|p| p.status == s).count();
    writeln!(
        out,
        "commit pairs: {} (user, identifier): {} complete, {} compacted later, {} with no compaction due, {} \
         changelog lost and healed later, {} deferred, {} deferred to a lost compaction, {} incomplete, {} not \
         applicable",
        r.pairs.len(),
        count(PairStatus::Complete),
        count(PairStatus::CompactedLater),
        count(PairStatus::NoCompactionDue),
        count(PairStatus::LostHealedLater),
        count(PairStatus::Deferred),
        count(PairStatus::DeferredToLost),
        count(PairStatus::Incomplete),
        count(PairStatus::NotApplicable)
    )?;
    for p in r.incomplete_pairs() {
        writeln!(
            out,
            "  INCOMPLETE user {} identifier {}: {}, COMPACT snapshot {:?}: {}",
            p.commit_user,
            identifier_words(p.commit_identifier),
            p.write_words(),
            p.compact_snapshots,
            p.detail
        )?;
        if let Some(cause) = &p.cause {
            writeln!(out, "    why: {cause}")?;
        }
    }
    for p in r.pairs_with(PairStatus::LostHealedLater) {
        writeln!(
            out,
            "  CHANGELOG LOST, HEALED LATER user {} identifier {}: {}, no COMPACT snapshot; final values \
             delivered by the compaction of snapshot {:?}: {}",
            p.commit_user,
            identifier_words(p.commit_identifier),
            p.write_words(),
            p.healed_by,
            p.detail
        )?;
        if let Some(cause) = &p.cause {
            writeln!(out, "    why: {cause}")?;
        }
    }
    for p in r.pairs_with(PairStatus::DeferredToLost) {
        writeln!(
            out,
            "  DEFERRED TO A LOST COMPACTION user {} identifier {}: {}: {}",
            p.commit_user,
            identifier_words(p.commit_identifier),
            p.write_words(),
            p.detail
        )?;
    }
    for p in r.pairs_with(PairStatus::Deferred) {
        writeln!(
            out,
            "  deferred user {} identifier {}: {}: {}",
            p.commit_user,
            identifier_words(p.commit_identifier),
            p.write_words(),
            p.detail
        )?;
    }
    for u in &r.users {
        let show = |v: Option<i64>| v.map_or("-".to_string(), |v| v.to_string());
        writeln!(
            out,
            "user {}: last APPEND {}, last COMPACT {}, incomplete pairs {}",
            u.commit_user,
            show(u.last_append),
            show(u.last_compact),
            if u.incomplete_identifiers.is_empty() {
                "none".to_string()
            } else {
                format!("{:?}", u.incomplete_identifiers)
            }
        )?;
    }
    for c in &r.completeness {
        if let Some(why) = &c.skipped {
            writeln!(
                out,
                "changelog completeness ({} reader): not checked: {why}",
                c.reader
            )?;
            continue;
        }
        writeln!(
            out,
            "changelog completeness ({} reader, snapshots {}..{}{}): {} of {} keys: the changelog disagrees with the table",
            c.reader,
            c.from_snapshot,
            c.to_snapshot,
            if c.started_from_full_snapshot {
                format!(
                    "; history before snapshot {} expired, replay starts with a full read of it",
                    c.from_snapshot
                )
            } else {
                String::new()
            },
            c.missing.len(),
            c.keys
        )?;
        for note in c.left_out_notes() {
            writeln!(out, "  {note}")?;
        }
    }
    let checked = r
        .completeness
        .iter()
        .filter(|c| c.skipped.is_none())
        .count();
    if !r.findings.is_empty() {
        writeln!(out, "  (values are ({}))", r.columns.join(", "))?;
    }
    for f in r.findings.iter().take(max_keys) {
        let m = &f.key;
        let kind = match m.written_by_kind {
            Some(native_reader::snapshot::CommitKind::Overwrite) => "OVERWRITE",
            _ => "APPEND",
        };
        let what = match &m.durable {
            Some(d) if d.row.is_none() => "its delete was written by",
            Some(_) => "written by",
            None if m.table_row.is_none() => "its delete was written by",
            None => "written by",
        };
        let mut by = match (
            &m.written_by_snapshot,
            &m.written_by_user,
            &m.written_by_identifier,
        ) {
            (Some(s), Some(u), Some(i)) => format!(
                "; {what} {kind} snapshot {s} (user {u}, identifier {})",
                identifier_words(*i)
            ),
            _ => String::new(),
        };
        match (&m.lost_with_user, m.lost_with_identifier) {
            (Some(_), Some(i)) if Some(i) == m.written_by_identifier => {
                by.push_str(", whose COMPACT half was lost");
            }
            (Some(u), Some(i)) => by.push_str(&format!(
                ", whose level-0 files waited for the full compaction of user {u}, identifier {}, which was lost",
                identifier_words(i)
            )),
            _ => {}
        }
        if let Some(s) = m.overwritten_by_snapshot {
            if m.written_by_kind != Some(native_reader::snapshot::CommitKind::Overwrite) {
                by.push_str(&format!(
                    "; the OVERWRITE snapshot {s} replaced the files of its bucket after the stream's last event"
                ));
            }
            by.push_str(
                " (Paimon writes no changelog for an INSERT OVERWRITE, and streaming reads skip OVERWRITE \
                 snapshots unless streaming-read-overwrite=true)",
            );
        }
        let last = m
            .stream_last_event
            .clone()
            .unwrap_or_else(|| "nothing (the key never appeared in it)".into());
        let readers = match (&f.readers_agree, &f.disagreement) {
            (Some(true), _) => " [both readers agree]".to_owned(),
            (Some(false), Some(why)) => {
                format!(
                    " [found by {}; readers DISAGREE: {why}]",
                    f.found_by.join(", ")
                )
            }
            _ if checked > 1 => format!(" [found by {}]", f.found_by.join(", ")),
            _ => String::new(),
        };
        let table = match &m.durable {
            Some(d) => format!(
                "the batch read has {}, and the newest durable record is {} (sequence number {}) in the \
                 level-{} file {}",
                m.table_value, d.record, d.sequence_number, d.level, d.file
            ),
            None => format!("the table has {}", m.table_value),
        };
        writeln!(
            out,
            "  {}bucket {}, key {}: {}: the stream's last event is {last}, {table}{by}{readers}",
            show_partition(&r.partition_keys, &m.partition),
            m.bucket,
            m.key,
            m.class.words(),
        )?;
    }
    if r.findings.len() > max_keys {
        writeln!(out, "  ... {} more", r.findings.len() - max_keys)?;
    }
    let u = &r.uncommitted;
    let findings = u.findings().count();
    if let Some(why) = &u.skipped {
        writeln!(out, "files written but never committed: not checked: {why}")?;
    } else {
        writeln!(
        out,
        "files written but never committed: {} in {} bucket director{} ({} committed files), {findings} holding \
         rows the table or its changelog lacks",
        u.files.len(),
        u.buckets,
        if u.buckets == 1 { "y" } else { "ies" },
        u.committed_files
    )?;
    }
    for f in u
        .files
        .iter()
        .filter(|f| f.class.is_finding())
        .take(max_keys)
    {
        writeln!(
            out,
            "  {}bucket {}, {}: {}: {}",
            show_partition(&r.partition_keys, &f.partition),
            f.bucket,
            f.file,
            f.class.words(),
            f.detail
        )?;
        if !f.lacking.is_empty() {
            writeln!(
                out,
                "    {}{}",
                f.lacking.join(", "),
                if f.lacking_rows > f.lacking.len() {
                    format!(" ... {} more", f.lacking_rows - f.lacking.len())
                } else {
                    String::new()
                }
            )?;
        }
    }
    for (class, why) in [
        (
            UncommittedClass::NothingLacking,
            "hold nothing the table lacks (left by aborted writes)",
        ),
        (
            UncommittedClass::OverwriteChangelog,
            "hold the changelog of an INSERT OVERWRITE, which Paimon never commits",
        ),
        (
            UncommittedClass::BeforeRetainedHistory,
            "are no newer than the earliest retained snapshot (left from the expired history)",
        ),
        (
            UncommittedClass::AbortedAttempt,
            "hold the changelog of an aborted attempt, whose input the restarted job re-processed and committed",
        ),
        (UncommittedClass::Unreadable, "cannot be read or compared"),
    ] {
        let n = u.files.iter().filter(|f| f.class == class).count();
        if n > 0 {
            writeln!(out, "  {n} more {why}: not findings")?;
        }
    }
    if u.committed_files_missing > 0 {
        writeln!(
            out,
            "  {} committed files were not on disk and could not be compared",
            u.committed_files_missing
        )?;
    }
    if let Some(agree) = r.readers_agree {
        writeln!(
            out,
            "readers: native and stock {}",
            if agree {
                "find the same keys"
            } else {
                "DISAGREE on the keys marked above (the JSON report has each reader's list)"
            }
        )?;
    }
    writeln!(out, "verdict: {}", verdict_words(r))?;
    if let Some(sweep) = &r.sweep {
        writeln!(out, "next: {sweep}")?;
    }
    Ok(())
}

/// Where the listed values of a `changelog-lost` report can be read: a batch read of the table, or (for
/// [`KeyClass::DurableButUnread`] keys) only the level-0 files of the incomplete commit.
fn where_values_are(r: &AuditReport) -> &'static str {
    let unread = r
        .findings
        .iter()
        .filter(|f| f.key.class == KeyClass::DurableButUnread)
        .count();
    if unread == 0 {
        "A batch read of the table has them"
    } else if unread == r.findings.len() {
        "No reader returns them either: they are durable only in level-0 files of the incomplete commit, \
         which batch reads of this table skip (deletion vectors), and stay unread until a compaction \
         rewrites those files, which may never come"
    } else {
        "A batch read of the table has those of the other classes; those written and durable in level-0 \
         files of the incomplete commit no reader returns: batch reads of this table skip level 0 \
         (deletion vectors) until a compaction rewrites those files, which may never come"
    }
}

/// The commits whose changelog is lost, in words: `user U identifier I (APPEND snapshot [N])`, with `healed
/// later by snapshot [M]` for those whose final values a later compaction delivered.
fn lost_commits(r: &AuditReport) -> String {
    r.pairs
        .iter()
        .filter(|p| p.status.lost_changelog())
        .map(|p| {
            let healed = if p.healed_by.is_empty() {
                String::new()
            } else {
                format!(", healed later by snapshot {:?}", p.healed_by)
            };
            format!(
                "user {} identifier {} ({}{healed})",
                p.commit_user,
                identifier_words(p.commit_identifier),
                p.write_words()
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The verdict sentence of `r`, as the `verdict:` line (and the HTML page) words it.
fn verdict_words(r: &AuditReport) -> String {
    match r.verdict {
            "complete" => "COMPLETE: every commit's changelog is durable".to_owned(),
            "not-checked" => format!(
                "NOT CHECKED: no finding, but no evidence either: {}",
                r.not_checked.as_deref().unwrap_or("the changelog-completeness check compared nothing")
            ),
            "changelog-lost" if r.incomplete_pairs().is_empty() => format!(
                "CHANGELOG LOST, HEALED LATER: {}: each commit's write snapshot became durable but its COMPACT \
                 half, which writes the changelog, never did; a later compaction delivered the keys' final \
                 values, so a consumer of final values is whole, but the changes of those commits never reached \
                 the stream (a consumer that needs every change lost them)",
                lost_commits(r)
            ),
            "changelog-lost" => format!(
                "CHANGELOG LOST: a commit's write snapshot became durable but its COMPACT half, which writes \
                 the changelog, never did, so a streaming job reading this table never saw the listed values. \
                 {}; the incomplete pair above names the commit (user, identifier) whose changelog was lost, \
                 and each key names the commit it is blamed on. Commits whose changelog is lost: {}",
                where_values_are(r),
                lost_commits(r)
            ),
            "rows-never-committed" =>
                "ROWS NEVER COMMITTED: no commit of the retained history is incomplete, but files in the \
                 bucket directories that no snapshot references hold rows the table lacks, or changelog the \
                 stream never delivered: a commit wrote them and never landed (a recovery dropped its \
                 committable, or the process stopped before committing). Those files, listed above, are the \
                 only trace of them in the table".to_owned(),
            _ =>
                "CHANGELOG DIVERGES: no commit is incomplete, yet the changelog disagrees with the table for \
                 the listed keys. Typical causes: two writers gave the same sequence number to one key, \
                 concurrent writers on one bucket, a re-insert that produced no changelog, or an INSERT \
                 OVERWRITE (no changelog, and skipped by streaming reads without streaming-read-overwrite). \
                 Compare the commit users and sequence numbers of the listed keys' files (paimon-parity inspect)".to_owned(),
    }
}
