//! The table x mode matrix of a multi-table or multi-mode `replay`.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::summary_line;
use crate::diff::RowCounts;
use crate::error::{Error, EXIT_UNREADABLE};
use crate::replay::{ReplayMode, ReplayReport, SplitVerdict};

/// One run of a multi-table or multi-mode `replay`: its summary, or the error that stopped it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatrixRun {
    /// The table directory as given.
    pub table: PathBuf,
    /// The scan replayed.
    pub mode: ReplayMode,
    /// The reader compared with the released one (`native` or an external reader's name).
    pub reader: String,
    /// The external reader's own name and version, when it said.
    pub reader_version: Option<String>,
    /// Per-split verdicts of the run (0 on error): identical, differing, reader errors, unsupported.
    pub split_verdicts: SplitCounts,
    /// `identical`, `different`, `incomplete`, `unreadable`, `nothing-compared`, or `error` (the replay
    /// could not start: see `error`).
    pub verdict: String,
    /// Split pairs (0 on error).
    pub splits: usize,
    /// Rows per RowKind the stock reader returned.
    pub stock_rows: RowCounts,
    /// Rows per RowKind the compared reader returned.
    pub native_rows: RowCounts,
    /// The summary line of the run, or the error message.
    pub summary: String,
    /// The first difference in words, if any.
    pub first_difference: Option<String>,
    /// The error that stopped the run (a table or plan either reader rejects).
    pub error: Option<String>,
    /// The first split a reader failed on or does not support, in words (or the run's error).
    pub first_problem: Option<String>,
    /// This run's exit status (0 identical, 1 different, 2 unreadable or error, 3 nothing compared).
    pub exit_code: i32,
}

impl MatrixRun {
    /// The run's summary from its report.
    pub fn of_report(table: &Path, mode: ReplayMode, report: ReplayReport) -> Self {
        let t = &report.totals;
        let split_verdicts = SplitCounts {
            identical: t.identical,
            different: t.differ_planning + t.differ_decoding + t.only_in_stock + t.only_in_native,
            reader_errors: t.reader_errors,
            unsupported: t.unsupported,
            unreadable: t.unreadable,
            not_retained: t.not_retained,
        };
        let first_problem = report
            .splits
            .iter()
            .find(|s| {
                matches!(
                    s.verdict,
                    SplitVerdict::ReaderError
                        | SplitVerdict::Unsupported
                        | SplitVerdict::Unreadable
                )
            })
            .map(|s| {
                format!(
                    "{} at {}: {}",
                    s.verdict.word(),
                    s.key,
                    s.detail.clone().unwrap_or_default()
                )
            });
        MatrixRun {
            table: table.to_path_buf(),
            mode,
            reader: report.reader.clone(),
            reader_version: report.reader_version.clone(),
            split_verdicts,
            first_problem,
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
    pub fn of_error(table: &Path, mode: ReplayMode, reader: &str, error: &Error) -> Self {
        MatrixRun {
            table: table.to_path_buf(),
            mode,
            reader: reader.to_owned(),
            reader_version: None,
            split_verdicts: SplitCounts::default(),
            first_problem: Some(error.to_string()),
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

/// Split verdicts of one run, counted.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct SplitCounts {
    /// Identical splits.
    pub identical: usize,
    /// Splits that differ in planning or decoding, or that one side alone planned.
    pub different: usize,
    /// Splits the external reader failed on.
    pub reader_errors: usize,
    /// Splits the external reader does not support.
    pub unsupported: usize,
    /// Splits the released (or native) reader could not read.
    pub unreadable: usize,
    /// Splits of an evidence bundle not compared because it does not retain all their files.
    pub not_retained: usize,
}

impl std::fmt::Display for SplitCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} / {} / {} / {}",
            self.identical, self.different, self.reader_errors, self.unsupported
        )?;
        if self.unreadable > 0 {
            write!(f, " (+{} unreadable)", self.unreadable)?;
        }
        if self.not_retained > 0 {
            write!(f, " (+{} not retained)", self.not_retained)?;
        }
        Ok(())
    }
}

/// Writes one run of a multi-run replay: a header naming table and scan, its summary line, and its first
/// difference.
pub fn write_run(out: &mut dyn Write, run: &MatrixRun) -> std::io::Result<()> {
    writeln!(
        out,
        "paimon-parity replay {} --mode {} --reader {}",
        run.table.display(),
        run.mode.name(),
        run.reader
    )?;
    writeln!(out, "  {}", run.summary)?;
    if let Some(f) = &run.first_difference {
        writeln!(out, "  first difference: {f}")?;
    }
    if let Some(p) = &run.first_problem {
        if run.error.is_none() {
            writeln!(out, "  first problem: {p}")?;
        }
    }
    Ok(())
}

/// Writes the table x mode matrix of a multi-run replay as a Markdown table: splits, rows per side (total
/// and per RowKind `+I -U +U -D`), verdict; then the count of runs per verdict.
pub fn write_matrix(out: &mut dyn Write, runs: &[MatrixRun]) -> std::io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "| table | mode | reader | splits | identical / differ / error / unsupported | stock rows (+I -U +U -D) | reader rows (+I -U +U -D) | verdict | first difference or problem |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|---|---|---|")?;
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
        let note = r
            .first_difference
            .as_ref()
            .or(r.first_problem.as_ref())
            .map(|n| shorten(&n.replace('|', "/"), 160))
            .unwrap_or_default();
        writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {note} |",
            r.mode.name(),
            r.reader,
            r.splits,
            r.split_verdicts,
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

/// `text` cut to at most `max` characters, with `…` where it was cut.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut s: String = text.chars().take(max - 1).collect();
    s.push('…');
    s
}

/// `corpora/c00/table` -> `c00`: the table directory's name, or its parent's when it is called `table`;
/// `corpora/c00/paimon-2.0.0/table` (a table of another line beside the corpus) -> `c00/paimon-2.0.0`.
pub(crate) fn table_name(path: &Path) -> String {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    match name(path).as_deref() {
        Some("table") => match path.parent() {
            Some(parent) => match (name(parent), parent.parent().and_then(name)) {
                (Some(line), Some(corpus)) if line.starts_with("paimon-") => {
                    format!("{corpus}/{line}")
                }
                (Some(n), _) => n,
                _ => path.display().to_string(),
            },
            None => path.display().to_string(),
        },
        Some(n) => n.to_string(),
        None => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::table_name;
    use std::path::Path;

    #[test]
    fn tables_are_named_by_their_corpus_and_line() {
        assert_eq!(table_name(Path::new("corpora/c00/table")), "c00");
        assert_eq!(
            table_name(Path::new("corpora/c00/paimon-2.0.0/table")),
            "c00/paimon-2.0.0"
        );
        assert_eq!(table_name(Path::new("/w/db.db/orders")), "orders");
    }
}
