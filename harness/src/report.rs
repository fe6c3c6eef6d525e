//! Rendering a [`ReplayReport`] for people (text) and machines (JSON).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::diff::RowCounts;
use crate::error::{Error, Result, EXIT_UNREADABLE};
use crate::replay::{ReplayMode, ReplayReport, SplitVerdict};

/// Writes the human-readable report: one line per split, the summary line, the first difference, and
/// the first `max_mismatches` row mismatches with a diff of their neighbouring rows.
pub fn write_text(
    out: &mut dyn Write,
    report: &ReplayReport,
    max_mismatches: usize,
) -> std::io::Result<()> {
    match report.mode {
        native_reader::scan::ScanMode::Stream { .. } => writeln!(
            out,
            "paimon-parity replay {} (stream scan from snapshot {} to snapshot {})",
            report.table.display(),
            report.from_snapshot,
            report.end_snapshot
        )?,
        mode => writeln!(
            out,
            "paimon-parity replay {} ({mode} scan, up to snapshot {})",
            report.table.display(),
            report.end_snapshot
        )?,
    }
    for s in &report.splits {
        let rows = s
            .stock_rows
            .or(s.native_rows)
            .map(|r| r.to_string())
            .unwrap_or_else(|| "-".into());
        let files = if s.files == 1 { "file" } else { "files" };
        write!(
            out,
            "  {:<20} {}: {} {files}, {rows}",
            s.verdict.word(),
            s.key,
            s.files
        )?;
        match (&s.verdict, &s.first_mismatch, &s.detail) {
            (SplitVerdict::DiffersDecoding, Some(m), _) => write!(
                out,
                "; {} differing rows, first at row {} field {}",
                s.differing_rows, m.row, m.field
            )?,
            (_, _, Some(d)) => write!(out, "; {d}")?,
            _ => {}
        }
        writeln!(out)?;
    }
    writeln!(out, "{}", summary_line(report))?;
    if let Some(f) = &report.first_difference {
        writeln!(
            out,
            "first difference: {} at {}: {}",
            f.kind, f.split, f.detail
        )?;
    }
    let mismatches: Vec<_> = report
        .splits
        .iter()
        .filter_map(|s| s.first_mismatch.as_ref().map(|m| (s, m)))
        .take(max_mismatches)
        .collect();
    if !mismatches.is_empty() {
        writeln!(out, "mismatches (first {} splits):", mismatches.len())?;
        for (s, m) in mismatches {
            writeln!(
                out,
                "  {}, row {}, field {}: stock {} | native {}",
                s.key, m.row, m.field, m.stock, m.native
            )?;
            for line in m.context.lines() {
                writeln!(out, "    {line}")?;
            }
        }
    }
    Ok(())
}

/// The one-line summary: verdict, snapshots, splits, files, rows per RowKind on each side, wall time.
pub fn summary_line(report: &ReplayReport) -> String {
    let t = &report.totals;
    let mut split_parts = vec![format!("{} identical", t.identical)];
    for (n, word) in [
        (t.differ_planning, "differ in planning"),
        (t.differ_decoding, "differ in decoding"),
        (t.only_in_stock, "only in stock"),
        (t.only_in_native, "only in native"),
        (t.unreadable, "unreadable"),
    ] {
        if n > 0 {
            split_parts.push(format!("{n} {word}"));
        }
    }
    format!(
        "{}: {} snapshots ({} with splits), {} splits ({}), {} files, stock {}, native {}, {:.2} s",
        report.verdict.to_uppercase(),
        t.snapshots,
        t.snapshots_with_splits,
        t.splits,
        split_parts.join(", "),
        t.files,
        t.stock_rows,
        t.native_rows,
        t.wall_time_ms as f64 / 1000.0
    )
}

/// One run of a multi-table or multi-mode `replay`: its summary, or the error that stopped it.
#[derive(Clone, Debug, Serialize)]
pub struct MatrixRun {
    /// The table directory as given.
    pub table: PathBuf,
    /// The scan replayed.
    pub mode: ReplayMode,
    /// `identical`, `different`, `unreadable`, or `error` (the replay could not start: see `error`).
    pub verdict: String,
    /// Split pairs (0 on error).
    pub splits: usize,
    /// Rows per RowKind the stock reader returned.
    pub stock_rows: RowCounts,
    /// Rows per RowKind the native reader returned.
    pub native_rows: RowCounts,
    /// The summary line of the run, or the error message.
    pub summary: String,
    /// The first difference in words, if any.
    pub first_difference: Option<String>,
    /// The error that stopped the run (a table or plan either reader rejects).
    pub error: Option<String>,
    /// This run's exit status (0 identical, 1 different, 2 unreadable or error).
    pub exit_code: i32,
}

impl MatrixRun {
    /// The run's summary from its report.
    pub fn of_report(table: &Path, mode: ReplayMode, report: ReplayReport) -> Self {
        MatrixRun {
            table: table.to_path_buf(),
            mode,
            verdict: report.verdict.to_string(),
            splits: report.totals.splits,
            stock_rows: report.totals.stock_rows,
            native_rows: report.totals.native_rows,
            summary: summary_line(&report),
            first_difference: report
                .first_difference
                .as_ref()
                .map(|f| format!("{} at {}: {}", f.kind, f.split, f.detail)),
            error: None,
            exit_code: report.exit_code(),
        }
    }

    /// A run that stopped with an error (exit 2).
    pub fn of_error(table: &Path, mode: ReplayMode, error: &Error) -> Self {
        MatrixRun {
            table: table.to_path_buf(),
            mode,
            verdict: "error".into(),
            splits: 0,
            stock_rows: RowCounts::default(),
            native_rows: RowCounts::default(),
            summary: format!("ERROR: {error}"),
            first_difference: None,
            error: Some(error.to_string()),
            exit_code: EXIT_UNREADABLE,
        }
    }
}

/// Writes one run of a multi-run replay: a header naming table and scan, its summary line, and its first
/// difference.
pub fn write_run(out: &mut dyn Write, run: &MatrixRun) -> std::io::Result<()> {
    writeln!(
        out,
        "paimon-parity replay {} --mode {}",
        run.table.display(),
        mode_word(run.mode)
    )?;
    writeln!(out, "  {}", run.summary)?;
    if let Some(f) = &run.first_difference {
        writeln!(out, "  first difference: {f}")?;
    }
    Ok(())
}

/// Writes the table x mode matrix of a multi-run replay as a Markdown table: splits, rows per side (total
/// and per RowKind `+I -U +U -D`), verdict; then the count of runs per verdict.
pub fn write_matrix(out: &mut dyn Write, runs: &[MatrixRun]) -> std::io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "| table | mode | splits | stock rows (+I -U +U -D) | native rows (+I -U +U -D) | verdict |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|")?;
    let counts = |r: &RowCounts| {
        format!(
            "{} ({} {} {} {})",
            r.total(),
            r.insert,
            r.update_before,
            r.update_after,
            r.delete
        )
    };
    for r in runs {
        let name = table_name(&r.table);
        writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} |",
            mode_word(r.mode),
            r.splits,
            counts(&r.stock_rows),
            counts(&r.native_rows),
            r.verdict
        )?;
    }
    let mut verdicts: Vec<(&str, usize)> = Vec::new();
    for r in runs {
        match verdicts.iter_mut().find(|(v, _)| *v == r.verdict) {
            Some((_, n)) => *n += 1,
            None => verdicts.push((&r.verdict, 1)),
        }
    }
    let parts: Vec<String> = verdicts.iter().map(|(v, n)| format!("{n} {v}")).collect();
    writeln!(out)?;
    writeln!(out, "{} runs: {}", runs.len(), parts.join(", "))
}

/// `corpora/c00/table` -> `c00`: the table directory's name, or its parent's when it is called `table`.
fn table_name(path: &Path) -> String {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    match name(path).as_deref() {
        Some("table") => path
            .parent()
            .and_then(name)
            .unwrap_or_else(|| path.display().to_string()),
        Some(n) => n.to_string(),
        None => path.display().to_string(),
    }
}

fn mode_word(mode: ReplayMode) -> &'static str {
    match mode {
        ReplayMode::Stream => "stream",
        ReplayMode::StreamFull => "stream-full",
        ReplayMode::LatestFull => "latest-full",
        ReplayMode::Batch => "batch",
    }
}

/// Writes a report (replay, timeline, audit) as pretty JSON to `path`.
pub fn write_json<T: serde::Serialize>(path: &Path, report: &T) -> Result<()> {
    let text = serde_json::to_string_pretty(report).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    std::fs::write(path, text + "\n").map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })
}
