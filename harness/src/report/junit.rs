//! `replay --junit FILE`: the runs as JUnit XML, the format CI systems show. One `<testsuite>` per table,
//! one `<testcase>` per scan mode and reader (`stream / native`), failed when the run is not identical
//! (`<failure>` for differences and reader failures, `<error>` when the released reader could not read, or
//! the run could not start), and one more `<testcase>` per split that is not identical, named by its
//! (snapshot, partition, bucket).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::replay::{ReplayMode, ReplayReport, SplitVerdict};

/// One replay run as JUnit sees it.
#[derive(Clone, Debug)]
pub struct JunitRun {
    /// The table directory as given.
    pub table: PathBuf,
    /// Its short name (the matrix's).
    pub name: String,
    /// The scan.
    pub mode: ReplayMode,
    /// The compared reader.
    pub reader: String,
    /// Seconds the run took.
    pub seconds: f64,
    /// The verdict (`identical`, `different`, `incomplete`, `unreadable`, `nothing-compared`, `error`).
    pub verdict: String,
    /// The summary line, or the error.
    pub summary: String,
    /// Splits that are not identical: (split, verdict word, detail).
    pub splits: Vec<(String, SplitVerdict, String)>,
}

impl JunitRun {
    /// The run of `report`.
    pub fn of_report(table: &Path, name: String, mode: ReplayMode, report: &ReplayReport) -> Self {
        JunitRun {
            table: table.to_path_buf(),
            name,
            mode,
            // A candidate is named with its label (`candidate@fix (candidate fix (based on 2.0.0), not a
            // release)`), the version string its reader gives.
            reader: match &report.reader_version {
                Some(v)
                    if crate::external::stock_at::candidate_of(&report.reader).is_some()
                        && v.starts_with(&report.reader) =>
                {
                    v.clone()
                }
                _ => report.reader.clone(),
            },
            seconds: report.totals.wall_time_ms as f64 / 1000.0,
            verdict: report.verdict.to_owned(),
            summary: super::summary_line(report),
            splits: report
                .splits
                .iter()
                .filter(|s| s.verdict != SplitVerdict::Identical)
                .map(|s| {
                    let detail = match &s.first_mismatch {
                        Some(m) => format!(
                            "row {}, field {}: stock {} | {} {}",
                            m.row, m.field, m.stock, report.reader, m.native
                        ),
                        None => s.detail.clone().unwrap_or_default(),
                    };
                    (s.key.to_string(), s.verdict, detail)
                })
                .collect(),
        }
    }

    /// A run that could not start.
    pub fn of_error(table: &Path, name: String, mode: ReplayMode, reader: &str, e: &Error) -> Self {
        JunitRun {
            table: table.to_path_buf(),
            name,
            mode,
            reader: reader.to_owned(),
            seconds: 0.0,
            verdict: "error".into(),
            summary: e.to_string(),
            splits: Vec::new(),
        }
    }
}

/// `s` with XML's five special characters escaped (and other control characters dropped: XML 1.0 cannot
/// hold them); shared by every JUnit report.
pub(super) fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// Whether a run's own test case fails (it is not identical).
fn failed(r: &JunitRun) -> bool {
    r.verdict != "identical"
}

/// Whether a run's own test case is an `<error>` (the released reader could not read, or the run could
/// not start) rather than a `<failure>`.
fn is_error(r: &JunitRun) -> bool {
    r.verdict == "error" || r.verdict == "unreadable"
}

/// (tests, failures, errors) of `runs`: each run's own case plus one failed case per split not identical.
fn counts<'a>(runs: impl Iterator<Item = &'a JunitRun>) -> (usize, usize, usize) {
    runs.fold((0, 0, 0), |(tests, failures, errors), r| {
        (
            tests + 1 + r.splits.len(),
            failures + usize::from(failed(r) && !is_error(r)) + r.splits.len(),
            errors + usize::from(is_error(r)),
        )
    })
}

/// The JUnit XML of `runs` (grouped by table, in the order given).
pub fn junit_xml(runs: &[JunitRun]) -> String {
    let mut tables: Vec<&PathBuf> = Vec::new();
    for r in runs {
        if !tables.contains(&&r.table) {
            tables.push(&r.table);
        }
    }
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let (total, failures, errors) = counts(runs.iter());
    let _ = writeln!(
        out,
        "<testsuites name=\"paimon-parity replay\" tests=\"{total}\" failures=\"{failures}\" errors=\"{errors}\">"
    );
    for table in tables {
        let these: Vec<&JunitRun> = runs.iter().filter(|r| &r.table == table).collect();
        let name = xml(&these[0].name);
        let (tests, failures, errors) = counts(these.iter().copied());
        let time: f64 = these.iter().map(|r| r.seconds).sum();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{name}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{time:.3}\">"
        );
        for r in these {
            let case = format!("{} / {}", r.mode.name(), r.reader);
            let _ = write!(
                out,
                "    <testcase classname=\"{name}\" name=\"{}\" time=\"{:.3}\"",
                xml(&case),
                r.seconds
            );
            if !failed(r) {
                out.push_str("/>\n");
            } else {
                let tag = if is_error(r) { "error" } else { "failure" };
                let _ = writeln!(
                    out,
                    ">\n      <{tag} type=\"{}\" message=\"{}\">{}</{tag}>\n    </testcase>",
                    xml(&r.verdict),
                    xml(&r.summary),
                    xml(&r.summary)
                );
            }
            for (split, verdict, detail) in &r.splits {
                let _ = writeln!(
                    out,
                    "    <testcase classname=\"{name}.{}\" name=\"{}\">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>",
                    xml(&case),
                    xml(split),
                    xml(verdict.word()),
                    xml(detail),
                    xml(detail)
                );
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// Writes [`junit_xml`] of `runs` to `path`.
///
/// Errors: [`Error::Io`] naming the path.
pub fn write_junit(path: &Path, runs: &[JunitRun]) -> Result<()> {
    std::fs::write(path, junit_xml(runs)).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_characters_are_escaped() {
        assert_eq!(
            xml("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
        );
    }
}
