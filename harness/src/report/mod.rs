//! Rendering a [`ReplayReport`] for people (text) and machines (JSON).

mod html;
mod json;
mod junit;
mod matrix;
pub mod remedy;
mod sweep_junit;
mod upgrade_junit;

use std::io::Write;
use std::path::{Path, PathBuf};

pub(crate) use html::esc;
pub use html::{
    audit_page, check_html_target, inspect_page, remedy_cell_words, remedy_page, replay_page,
    sweep_page, timelines, upgrade_page, write_html,
};
pub use json::{
    compare_candidate, compared_candidate_lines, compared_candidates, paimon_label, JsonReport,
    PaimonUsed, ReplayRun, ReportError, Status, SCHEMA, SCHEMA_VERSION,
};
pub use junit::{junit_xml, write_junit, JunitRun};
pub(crate) use matrix::table_name;
pub use matrix::{write_matrix, write_run, MatrixRun};
pub use sweep_junit::junit_xml as sweep_junit_xml;
pub use upgrade_junit::junit_xml as upgrade_junit_xml;

use crate::error::{Error, Result};
use crate::replay::{ReplayReport, SplitVerdict};

/// How much of a replay the text report lists (`replay -q`, the default, `-v`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Verbosity {
    /// `-q`: the summary line and the first difference only.
    Quiet,
    /// The default: the splits that are not identical, a count of the identical ones, the summary, the
    /// first difference and the mismatches.
    #[default]
    Normal,
    /// `-v`: every split, identical ones included.
    Verbose,
}

/// Writes the human-readable report: one line per split, the summary line, the first difference, and
/// the first `max_mismatches` row mismatches with a diff of their neighbouring rows ([`Verbosity::Verbose`]:
/// every split is listed).
pub fn write_text(
    out: &mut dyn Write,
    report: &ReplayReport,
    max_mismatches: usize,
) -> std::io::Result<()> {
    write_text_as(out, report, max_mismatches, Verbosity::Verbose)
}

/// [`write_text`] at `verbosity`.
pub fn write_text_as(
    out: &mut dyn Write,
    report: &ReplayReport,
    max_mismatches: usize,
    verbosity: Verbosity,
) -> std::io::Result<()> {
    if verbosity == Verbosity::Quiet {
        return write_summary(out, report);
    }
    match report.mode {
        native_reader::scan::ScanMode::Stream { .. } => writeln!(
            out,
            "paimon-parity replay {} (stream scan from snapshot {} to snapshot {}){}",
            report.table.display(),
            report.from_snapshot,
            report.end_snapshot,
            reader_suffix(report)
        )?,
        mode => writeln!(
            out,
            "paimon-parity replay {} ({mode} scan, up to snapshot {}){}",
            report.table.display(),
            report.end_snapshot,
            reader_suffix(report)
        )?,
    }
    let mut unlisted = 0usize;
    for s in &report.splits {
        if verbosity == Verbosity::Normal && s.verdict == SplitVerdict::Identical {
            unlisted += 1;
            continue;
        }
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
    if unlisted > 0 {
        writeln!(
            out,
            "  ({unlisted} identical splits not listed; -v lists them)"
        )?;
    }
    write_summary(out, report)?;
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
                "  {}, row {}, field {}: stock {} | {} {}",
                s.key, m.row, m.field, m.stock, report.reader, m.native
            )?;
            for line in m.context.lines() {
                let line = if report.reader == "native" {
                    line.to_owned()
                } else {
                    line.replace("+++ native", &format!("+++ {}", report.reader))
                        .replace(", native rows", &format!(", {} rows", report.reader))
                };
                writeln!(out, "    {line}")?;
            }
        }
    }
    Ok(())
}

/// The summary line and, when the readers differ, the first difference.
fn write_summary(out: &mut dyn Write, report: &ReplayReport) -> std::io::Result<()> {
    writeln!(out, "{}", summary_line(report))?;
    if let Some(f) = &report.first_difference {
        writeln!(
            out,
            "first difference: {} at {}: {}",
            f.kind, f.split, f.detail
        )?;
    }
    Ok(())
}

/// ` against <reader>` for an external reader (with its own version string when it gave one); nothing for
/// the native reader, whose report reads as before.
fn reader_suffix(report: &ReplayReport) -> String {
    if report.reader == "native" {
        return String::new();
    }
    match &report.reader_version {
        // A candidate's version string starts with its name: `candidate@fix (candidate fix (based on ...`.
        Some(v) if v.starts_with(&report.reader) => format!(" against {v}"),
        Some(v) => format!(" against {} ({v})", report.reader),
        None => format!(" against {}", report.reader),
    }
}

/// The one-line summary: verdict, snapshots, splits, files, rows per RowKind on each side, wall time.
pub fn summary_line(report: &ReplayReport) -> String {
    let t = &report.totals;
    let mut split_parts = vec![format!("{} identical", t.identical)];
    let only_in_reader = format!("only in {}", report.reader);
    for (n, word) in [
        (t.differ_planning, "differ in planning"),
        (t.differ_decoding, "differ in decoding"),
        (t.only_in_stock, "only in stock"),
        (t.only_in_native, only_in_reader.as_str()),
        (t.unreadable, "unreadable"),
        (t.reader_errors, "reader errors"),
        (t.unsupported, "unsupported"),
    ] {
        if n > 0 {
            split_parts.push(format!("{n} {word}"));
        }
    }
    let shard = report
        .shard
        .map(|s| format!(" (shard {s})"))
        .unwrap_or_default();
    // Splits of an evidence bundle whose files it does not retain: planned, not compared, said so.
    if t.not_retained > 0 {
        split_parts.push(format!("{} not retained", t.not_retained));
    }
    format!(
        "{}{shard}: {} snapshots ({} with splits), {} splits ({}), {} files, stock {}, {} {}, {:.2} s",
        report.verdict.to_uppercase(),
        t.snapshots,
        t.snapshots_with_splits,
        t.splits,
        split_parts.join(", "),
        t.files,
        t.stock_rows,
        report.reader,
        t.native_rows,
        t.wall_time_ms as f64 / 1000.0
    )
}

/// `--json -`: the JSON goes to standard output (and the text report to standard error).
pub const JSON_TO_STDOUT: &str = "-";

/// Whether `--json PATH` sends the JSON to standard output.
pub fn json_to_stdout(json: Option<&Path>) -> bool {
    json.is_some_and(|p| p.as_os_str() == JSON_TO_STDOUT)
}

/// Checks that `--json PATH` can be written before any work starts (creating the file, or leaving an
/// existing one as it is until the report replaces it); `-` is standard output.
///
/// Errors: [`Error::Io`] naming the path.
pub fn check_json_target(json: Option<&Path>) -> Result<()> {
    match json {
        Some(path) if path.as_os_str() != JSON_TO_STDOUT => check_writable(path),
        _ => Ok(()),
    }
}

/// Checks that a report file can be written before any work starts: creates it, or leaves an existing one as
/// it is until the report replaces it.
///
/// Errors: [`Error::Io`] naming the path.
pub(crate) fn check_writable(path: &Path) -> Result<()> {
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map(drop)
        .map_err(|e| Error::Io {
            path: path.to_path_buf(),
            source: e,
        })
}

/// Where the text report goes: standard error when the JSON takes standard output (`--json -`), else
/// standard output.
pub fn text_output(json: Option<&Path>) -> Box<dyn Write> {
    if json_to_stdout(json) {
        Box::new(std::io::stderr())
    } else {
        Box::new(std::io::stdout().lock())
    }
}

/// Writes a report (replay, timeline, audit) as pretty JSON to `path`, or to standard output for `-`.
pub fn write_json<T: serde::Serialize>(path: &Path, report: &T) -> Result<()> {
    let text = serde_json::to_string_pretty(report).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    if path.as_os_str() == JSON_TO_STDOUT {
        let mut out = std::io::stdout().lock();
        return out
            .write_all((text + "\n").as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| Error::Io {
                path: PathBuf::from("<stdout>"),
                source: e,
            });
    }
    std::fs::write(path, text + "\n").map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })
}
