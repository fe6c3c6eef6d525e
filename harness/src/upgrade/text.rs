//! The matrix for people: a table of releases (rows: written by A, columns: read by B), then every upgrade
//! finding with the rules it can come from, every native difference and every cell that could not be
//! compared, and a closing verdict.

use std::io::Write;

use super::{Cell, CellClass, Origin, PairResult, UpgradeMatrix};

/// The words of one cell of the release table: `identical/total`, then what else its cells are.
pub fn pair_cell(p: &PairResult) -> String {
    if p.cells == 0 {
        return "no corpora".into();
    }
    let mut out = format!("{}/{}", p.identical, p.cells);
    for (n, one, many) in [
        (p.nothing_compared, "nothing compared", "nothing compared"),
        (p.upgrade_findings, "finding", "findings"),
        (p.native_differs, "native difference", "native differences"),
        (p.unsupported, "unsupported", "unsupported"),
        (p.errors, "error", "errors"),
        (p.not_written, "not written", "not written"),
    ] {
        if n > 0 {
            out.push_str(&format!(", {n} {}", if n == 1 { one } else { many }));
        }
    }
    out
}

/// One line naming a cell: `written by A, read by B: corpus (mode)`.
pub fn cell_name(c: &Cell) -> String {
    format!(
        "{} -> {} {} ({})",
        c.written_by,
        c.read_by,
        c.corpus,
        c.mode.name()
    )
}

/// The rules of a finding in words: `rule (A value -> B value), ...`, or that none applies.
pub fn rules_words(c: &Cell) -> String {
    if c.candidate_rules.is_empty() {
        return "no rule of native-reader/src/line.rs that differs between the releases applies to \
                this table and scan"
            .into();
    }
    c.candidate_rules
        .iter()
        .map(|r| format!("{} ({} -> {})", r.rule, r.written_by_value, r.read_by_value))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether the native reader follows both releases on the finding's corpus and scan, in words.
pub fn follows_words(c: &Cell) -> &'static str {
    match c.native_follows_both {
        Some(true) => {
            "the native reader returns each release's reading as that release (A x A identical)"
        }
        Some(false) => {
            "the native reader does not return A's own reading as A (see the A x A cell)"
        }
        None => "A x A not run",
    }
}

/// Writes the matrix: the release table, the corpora not written, every upgrade finding, native difference
/// and problem, and the verdict line.
pub fn write_matrix_text(
    out: &mut dyn Write,
    m: &UpgradeMatrix,
    fail_on_findings: bool,
) -> std::io::Result<()> {
    writeln!(
        out,
        "upgrade matrix: releases {}; {} scenarios; modes {}",
        m.releases.join(", "),
        m.scenarios.len(),
        m.modes
            .iter()
            .map(|x| x.name())
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    if let Some(store) = &m.store {
        writeln!(
            out,
            "tables: written into and read from {} (<release>/<scenario>/table)",
            store.display()
        )?;
    }
    writeln!(
        out,
        "rows: written by A; columns: read by B (native reader and release A's own reader against release \
         B); cell: identical/cells, then findings (B reads A's table differently from A), native \
         differences, unsupported, errors, not written (release A's writer failed on the scenario)"
    )?;
    writeln!(out)?;
    write!(out, "| written by \\ read by |")?;
    for b in &m.releases {
        write!(out, " {b} |")?;
    }
    writeln!(out)?;
    writeln!(out, "|---|{}", "---|".repeat(m.releases.len()))?;
    for a in &m.releases {
        write!(out, "| {a} |")?;
        for b in &m.releases {
            let cell = m
                .pairs
                .iter()
                .find(|p| &p.written_by == a && &p.read_by == b)
                .map(pair_cell)
                .unwrap_or_default();
            write!(out, " {cell} |")?;
        }
        writeln!(out)?;
    }
    writeln!(out)?;
    write_corpora(
        out,
        m,
        Origin::NotWritten,
        "the release's writer failed on the scenario; every cell that reads its table is a failing \
         `not-written` cell, and the next run tries again",
        "not written",
    )?;
    write_corpora(
        out,
        m,
        Origin::Pinned,
        "the scenario names the releases that write it",
        "not written by design",
    )?;
    if !m.not_built.is_empty() {
        writeln!(
            out,
            "not checked ({} releases asked for are not built; nothing they write or read is checked):",
            m.not_built.len()
        )?;
        for n in &m.not_built {
            writeln!(out, "  Paimon {}: build it with `{}`", n.release, n.build)?;
        }
        writeln!(out)?;
    }
    for p in m.pairs.iter().filter(|p| p.error.is_some()) {
        writeln!(
            out,
            "replay of {} -> {} failed: {}",
            p.written_by,
            p.read_by,
            p.error.as_deref().unwrap_or_default()
        )?;
    }
    let findings: Vec<&Cell> = m.cells_of(CellClass::UpgradeFinding).collect();
    writeln!(
        out,
        "upgrade findings ({}): release B reads A's table differently from release A, the native reader \
         agreeing with B",
        findings.len()
    )?;
    for c in &findings {
        writeln!(
            out,
            "  {}: {}",
            cell_name(c),
            c.detail.as_deref().unwrap_or_default()
        )?;
        writeln!(out, "    rules: {}; {}", rules_words(c), follows_words(c))?;
    }
    for (class, title) in [
        (
            CellClass::NativeDiffers,
            "native differences (the native reader does not return what release B returns)",
        ),
        (
            CellClass::Unsupported,
            "unsupported (the native reader refuses something the table needs, by name)",
        ),
        (CellClass::Error, "errors (a run could not compare)"),
        (
            CellClass::NotWritten,
            "not written (release A's writer failed on the scenario: no table to read)",
        ),
    ] {
        let list: Vec<&Cell> = m.cells_of(class).collect();
        if list.is_empty() {
            continue;
        }
        writeln!(out, "{title}: {}", list.len())?;
        for c in list {
            writeln!(
                out,
                "  {}: {}",
                cell_name(c),
                c.detail.as_deref().unwrap_or_default()
            )?;
        }
    }
    writeln!(out)?;
    writeln!(out, "{}", verdict_line(m, fail_on_findings))
}

/// The corpora of `origin`, one line each (`  c16 by 1.0.0: why`) under `title (N: why):`; nothing when
/// there are none.
fn write_corpora(
    out: &mut dyn Write,
    m: &UpgradeMatrix,
    origin: Origin,
    why: &str,
    title: &str,
) -> std::io::Result<()> {
    let corpora: Vec<_> = m.corpora.iter().filter(|c| c.origin == origin).collect();
    if corpora.is_empty() {
        return Ok(());
    }
    writeln!(out, "{title} ({}: {why}):", corpora.len())?;
    for c in corpora {
        writeln!(
            out,
            "  {} by {}: {}",
            c.corpus,
            c.release,
            c.detail.as_deref().unwrap_or_default()
        )?;
    }
    writeln!(out)
}

/// The closing line: the verdict over every cell (as the exit status, [`UpgradeMatrix::exit_code`]:
/// `INTERRUPTED`, `NATIVE DIFFERS`, `NOT WRITTEN`, `NOTHING COMPARED` or `NOT CHECKED` with the reasons, else
/// `NATIVE IDENTICAL`), the findings and how they count, the time.
pub fn verdict_line(m: &UpgradeMatrix, fail_on_findings: bool) -> String {
    let count = |class| m.cells_of(class).count();
    let failing =
        count(CellClass::NativeDiffers) + count(CellClass::Unsupported) + count(CellClass::Error);
    let findings = count(CellClass::UpgradeFinding);
    let not_written = count(CellClass::NotWritten);
    let not_checked = m.not_checked();
    let head = if m.interrupted {
        "INTERRUPTED".to_owned()
    } else if failing > 0 {
        format!(
            "NATIVE DIFFERS: {} native differences, {} unsupported, {} errors{}",
            count(CellClass::NativeDiffers),
            count(CellClass::Unsupported),
            count(CellClass::Error),
            if not_written > 0 {
                format!(", {not_written} not written")
            } else {
                String::new()
            }
        )
    } else if not_written > 0 {
        format!("NOT WRITTEN: {not_written} cells whose table release A's writer failed to write")
    } else if !m.cells.iter().any(|c| c.class.compared()) {
        format!("NOTHING COMPARED ({})", not_checked.join("; "))
    } else if !not_checked.is_empty() {
        format!("NOT CHECKED ({})", not_checked.join("; "))
    } else {
        "NATIVE IDENTICAL".to_owned()
    };
    let finding_words = if findings == 0 {
        "no upgrade finding".to_owned()
    } else if fail_on_findings {
        format!("{findings} upgrade findings (--fail-on-findings: they fail the matrix)")
    } else {
        format!(
            "{findings} upgrade findings (findings about Paimon, not about the native reader: listed, exit 0 \
             unless --fail-on-findings)"
        )
    };
    format!(
        "{head}: {} pairs, {} cells ({} identical, {} nothing compared), {finding_words}, {:.1} s",
        m.pairs.len(),
        m.cells.len(),
        count(CellClass::Identical),
        count(CellClass::NothingCompared),
        m.wall_time_ms as f64 / 1000.0
    )
}
