//! The sweep as text: per fault mode the windows of one class with the operations that bound them, the totals,
//! the time, the verdict.

use std::io::Write;

use super::{ClassWindow, OpView, PointClass, SweepReport};

/// Writes `r` as text.
///
/// Errors: the writer's.
/// `quiet` (`sweep -q`): only the first line, the totals per fault mode and the verdict.
pub fn write_text(
    out: &mut dyn Write,
    r: &SweepReport,
    threads: usize,
    quiet: bool,
) -> std::io::Result<()> {
    writeln!(
        out,
        "paimon-parity sweep {} ({}): commit {} of user {}, {} file operations",
        r.scenario,
        r.paimon.label,
        r.swept.identifier,
        r.swept.user,
        r.ops.len()
    )?;
    if quiet {
        let mut modes: Vec<_> = r.points.iter().map(|p| p.mode).collect();
        modes.dedup();
        for mode in modes {
            let totals = r.totals.get(mode.name()).map(|t| {
                PointClass::ALL
                    .iter()
                    .filter_map(|c| t.get(c.name()).map(|n| format!("{} {n}", c.name())))
                    .collect::<Vec<_>>()
                    .join(", ")
            });
            writeln!(out, "  {}: {}", mode.name(), totals.unwrap_or_default())?;
        }
        return writeln!(out, "verdict: {}", r.verdict_words());
    }
    write_publications(out, &r.ops)?;
    writeln!(
        out,
        "  recovery: {}",
        match r.recovery_strategy {
            crate::sweep::RecoveryStrategy::Stock => "stock (filterAndCommit, as released)",
            crate::sweep::RecoveryStrategy::PairAware =>
                "pair-aware (the missing COMPACT half first, released APIs; then filterAndCommit)",
        }
    )?;
    let pool = r.ops.iter().filter(|o| o.pool).count();
    if pool > 0 {
        writeln!(
            out,
            "  {pool} operations ran on the manifest-read pool; points are matched {}",
            r.order
        )?;
    }
    for l in &r.left_out {
        writeln!(out, "  left out of the sweep: {l}")?;
    }
    let expected: Vec<String> = r.expected.rows.values().cloned().collect();
    writeln!(
        out,
        "  expected (from the scenario's writes): batch {}; changelog {}",
        if expected.is_empty() {
            "empty".to_owned()
        } else {
            expected.join(", ")
        },
        r.expected
            .changes
            .iter()
            .map(|(k, v)| format!("key {k}: {}", v.join(" -> ")))
            .collect::<Vec<_>>()
            .join("; ")
    )?;
    let mut modes: Vec<_> = r.points.iter().map(|p| p.mode).collect();
    modes.dedup();
    for mode in modes {
        let n = r.points.iter().filter(|p| p.mode == mode).count();
        writeln!(out, "\n{} ({n} points):", mode.name())?;
        for w in r.windows.iter().filter(|w| w.mode == mode) {
            writeln!(out, "  {}: {}, {}", bounds(w), w.class.name(), w.detail)?;
        }
        if let Some(t) = r.totals.get(mode.name()) {
            let mut parts: Vec<(PointClass, usize)> = PointClass::ALL
                .iter()
                .filter_map(|c| t.get(c.name()).map(|n| (*c, *n)))
                .collect();
            parts.sort_by_key(|(c, _)| *c);
            writeln!(
                out,
                "  totals: {}",
                parts
                    .iter()
                    .map(|(c, n)| format!("{} {n}", c.name()))
                    .collect::<Vec<_>>()
                    .join(", ")
            )?;
        }
    }
    for rs in &r.recovery {
        writeln!(
            out,
            "\nrecovery after {} ({} durable): {} operations in the first recovery",
            rs.commit_fault,
            rs.state,
            rs.ops.len()
        )?;
        write_publications(out, &rs.ops)?;
        for w in &rs.windows {
            writeln!(
                out,
                "  {} {}: {}, {}",
                w.mode.name(),
                bounds(w),
                w.class.name(),
                w.detail
            )?;
        }
    }
    for p in r.every_point().filter(|p| p.kept.is_some()) {
        if let Some(k) = &p.kept {
            writeln!(
                out,
                "kept: {} op {} ({}): {}",
                p.mode.name(),
                p.op_index,
                p.class.name(),
                k.display()
            )?;
        }
    }
    if r.audit_disagrees > 0 {
        writeln!(
            out,
            "audit: at {} point(s) the audit did not find a lost changelog exactly where the checks did",
            r.audit_disagrees
        )?;
    }
    let points = r.every_point().count();
    writeln!(
        out,
        "\ntime: counting run {:.1} s; {} points in {:.1} s ({:.2} s per point on {threads} thread(s))",
        r.count_millis as f64 / 1000.0,
        points,
        r.total_millis as f64 / 1000.0,
        r.every_point().map(|p| p.millis).sum::<u64>() as f64 / 1000.0 / points.max(1) as f64,
    )?;
    writeln!(out, "verdict: {}", r.verdict_words())
}

/// The operations that publish a snapshot, a line each.
fn write_publications(out: &mut dyn Write, ops: &[OpView]) -> std::io::Result<()> {
    for o in ops.iter().filter(|o| o.publishes.is_some()) {
        writeln!(
            out,
            "  op {}: {} {} publishes the {}",
            o.index,
            o.op,
            o.path,
            o.publishes.as_deref().unwrap_or_default()
        )?;
    }
    Ok(())
}

/// A window's operations with the ones that bound it: `op 5 (exists x)` or `ops 5-9 (exists x .. rename y)`.
fn bounds(w: &ClassWindow) -> String {
    if w.first == w.last {
        format!("op {} ({})", w.first, w.first_op)
    } else {
        format!(
            "ops {}-{} ({} .. {})",
            w.first, w.last, w.first_op, w.last_op
        )
    }
}
