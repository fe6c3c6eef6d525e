//! The audit for people: commit pairs that are not complete, per-user summary, missing keys, verdict.

use super::{AuditReport, PairStatus};

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
    let count = |s: PairStatus| r.pairs.iter().filter(|p| p.status == s).count();
    writeln!(
        out,
        "commit pairs: {} (user, identifier): {} complete, {} compacted later, {} incomplete, {} not applicable",
        r.pairs.len(),
        count(PairStatus::Complete),
        count(PairStatus::CompactedLater),
        count(PairStatus::Incomplete),
        count(PairStatus::NotApplicable)
    )?;
    for p in r.incomplete_pairs() {
        writeln!(
            out,
            "  INCOMPLETE user {} identifier {}: APPEND snapshot {:?}, COMPACT snapshot {:?}: {}",
            p.commit_user, p.commit_identifier, p.append_snapshots, p.compact_snapshots, p.detail
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
        let by = match (
            &m.written_by_snapshot,
            &m.written_by_user,
            &m.written_by_identifier,
        ) {
            (Some(s), Some(u), Some(i)) => {
                format!("; written by APPEND snapshot {s} (user {u}, identifier {i})")
            }
            _ => String::new(),
        };
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
        writeln!(
            out,
            "  {}bucket {}, key {}: {}: the stream's last event is {last}, the table has {}{by}{readers}",
            show_partition(&r.partition_keys, &m.partition),
            m.bucket,
            m.key,
            m.class.words(),
            m.table_value
        )?;
    }
    if r.findings.len() > max_keys {
        writeln!(out, "  ... {} more", r.findings.len() - max_keys)?;
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
    writeln!(
        out,
        "verdict: {}",
        match r.verdict {
            "complete" => "COMPLETE: every commit's changelog is durable",
            "changelog-lost" =>
                "CHANGELOG LOST: a commit's APPEND became durable but its COMPACT half, which writes the \
                 changelog, never did, so a streaming job reading this table never saw the listed values. \
                 A batch read of the table has them; the incomplete pair above names the commit (user, \
                 identifier) whose changelog was lost",
            _ =>
                "CHANGELOG DIVERGES: no commit is incomplete, yet the changelog disagrees with the table for \
                 the listed keys. Typical causes: two writers gave the same sequence number to one key, \
                 concurrent writers on one bucket, or a re-insert that produced no changelog. Compare the \
                 commit users and sequence numbers of the listed keys' files (paimon-parity inspect)",
        }
    )
}
