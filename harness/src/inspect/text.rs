//! The timeline for people (`paimon-parity inspect`'s text report).

use std::io::Write;

use super::{identifier_words, FileGroup, PairStatus, Timeline};

fn show_partition(p: &[Option<String>]) -> String {
    if p.is_empty() {
        return String::new();
    }
    let parts: Vec<&str> = p.iter().map(|v| v.as_deref().unwrap_or("NULL")).collect();
    format!("[{}] ", parts.join(", "))
}

fn show_groups(groups: &[FileGroup]) -> String {
    let parts: Vec<String> = groups
        .iter()
        .map(|g| {
            format!(
                "{}bucket {} level {}: {} file{} {} rows",
                show_partition(&g.partition),
                g.bucket,
                g.level,
                g.files,
                if g.files == 1 { "" } else { "s" },
                g.rows
            )
        })
        .collect();
    parts.join("; ")
}

/// Writes the timeline for people.
pub fn write_text(out: &mut dyn Write, t: &Timeline) -> std::io::Result<()> {
    let range = match (t.earliest_snapshot, t.latest_snapshot) {
        (Some(a), Some(b)) => format!("snapshots {a}..{b}"),
        _ => "no snapshot".into(),
    };
    writeln!(
        out,
        "{} (changelog-producer {}, merge-engine {}), {range}",
        t.table.display(),
        t.changelog_producer,
        t.merge_engine
    )?;
    if t.compaction != super::CompactionSchedule::NoCompactionChangelog {
        writeln!(out, "compaction: {}", t.compaction.words())?;
    }
    for c in &t.commits {
        let kinds: Vec<String> = c
            .snapshots
            .iter()
            .map(|s| format!("{:?}", s.commit_kind).to_uppercase())
            .collect();
        let mark = match &c.pair {
            Some(p) if p.status == PairStatus::Incomplete => {
                format!("   <- INCOMPLETE: {}", p.detail)
            }
            Some(p) if p.status == PairStatus::DeferredToLost => {
                format!("   <- DEFERRED TO A LOST COMPACTION: {}", p.detail)
            }
            Some(p) if p.status == PairStatus::Deferred => {
                format!("   <- deferred: {}", p.detail)
            }
            _ => String::new(),
        };
        writeln!(
            out,
            "commit user {}, identifier {}: {}{mark}",
            c.commit_user,
            identifier_words(c.commit_identifier),
            kinds.join(" + ")
        )?;
        for s in &c.snapshots {
            writeln!(
                out,
                "  snapshot {:<4} {:<8} {}  schema {}  records total {} delta {}  changelog {} file{} {} rows",
                s.id,
                format!("{:?}", s.commit_kind).to_uppercase(),
                s.time,
                s.schema_id,
                s.total_record_count.map_or("-".into(), |v| v.to_string()),
                s.delta_record_count.map_or("-".into(), |v| v.to_string()),
                s.changelog_files(),
                if s.changelog_files() == 1 { "" } else { "s" },
                s.changelog_rows()
            )?;
            if !s.added.is_empty() {
                writeln!(out, "      added   {}", show_groups(&s.added))?;
            }
            if !s.deleted.is_empty() {
                writeln!(out, "      deleted {}", show_groups(&s.deleted))?;
            }
            if !s.changelog.is_empty() {
                writeln!(out, "      changelog {}", show_groups(&s.changelog))?;
            }
        }
    }
    Ok(())
}
