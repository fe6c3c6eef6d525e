//! `paimon-parity report remedy`: the JSON reports of crash-point sweeps (`sweep --json`) of the same
//! scenarios on releases and remedies, side by side: per release, scenario and fault mode, each remedy's
//! failing windows (`CHANGELOG-LOST 25-60`) and totals, or `clean`. A remedy is how the swept commit was
//! recovered and by which Paimon: `released` (the release's own recovery, `filterAndCommit`), `pair-aware
//! recovery` (`sweep --recovery pair-aware`, released APIs), or a candidate (Paimon built from a patched tree,
//! never a release), named by its label.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Result};

/// The success classes of a sweep point (`crate::sweep::PointClass::is_success`).
const SUCCESS: [&str; 4] = ["OK", "ABSORBED", "SPURIOUS-FAILURE", "DEFERRED-FAILURE"];

/// One sweep's points of one fault mode.
#[derive(Clone, Debug, Serialize)]
pub struct RemedyCell {
    /// Points swept in this mode.
    pub points: usize,
    /// Points in a failing class.
    pub failing: usize,
    /// The failing windows, `CLASS first-last` (`CHANGELOG-LOST 25-60`), in operation order.
    pub windows: Vec<String>,
    /// Points per class.
    pub totals: BTreeMap<String, usize>,
    /// The sweep's JSON report.
    pub report: PathBuf,
}

/// One release, scenario and fault mode: a cell per remedy swept.
#[derive(Clone, Debug, Serialize)]
pub struct RemedyRow {
    /// The release the sweep ran (a candidate's base release).
    pub release: String,
    /// The scenario.
    pub scenario: String,
    /// The fault mode (`crash`, `fail`, `fail-after`).
    pub mode: String,
    /// Per remedy label, its cell.
    pub cells: BTreeMap<String, RemedyCell>,
}

/// The report: the remedies (columns, `released` first) and the rows, by release, scenario, mode.
#[derive(Clone, Debug, Serialize)]
pub struct RemedyReport {
    /// Sweeps read.
    pub sweeps: usize,
    /// The remedies: `released` first, then in the order first seen.
    pub remedies: Vec<String>,
    /// The rows.
    pub rows: Vec<RemedyRow>,
}

impl RemedyReport {
    /// Failing points over every cell of `remedy`.
    pub fn failing(&self, remedy: &str) -> usize {
        self.rows
            .iter()
            .filter_map(|r| r.cells.get(remedy))
            .map(|c| c.failing)
            .sum()
    }
}

/// The remedy a sweep report (the envelope) stands for: see [`remedy_label`].
fn remedy_of(v: &Value) -> String {
    remedy_label(&v["sweep"])
}

/// The remedy a sweep (the report's `sweep` object) stands for: `released` with stock recovery, `pair-aware
/// recovery`, and a candidate's label (`candidate NAME (based on the row's release), not a release`) before
/// either when the sweep ran one (`sweep.paimon.candidate`).
pub fn remedy_label(sweep: &Value) -> String {
    let candidate = Some(&sweep["paimon"]["candidate"]).filter(|c| c.is_object());
    let recovery = match sweep["recovery_strategy"].as_str() {
        Some("pair-aware") => "pair-aware recovery",
        _ => "stock recovery",
    };
    match candidate {
        // The row names the release it is based on: one column per candidate across releases.
        Some(c) => format!(
            "candidate {} (based on the row's release), not a release; {recovery}",
            c["name"].as_str().unwrap_or("?")
        ),
        None if recovery == "stock recovery" => "released".to_owned(),
        None => recovery.to_owned(),
    }
}

/// Reads the sweeps' JSON reports into the report.
///
/// Errors: [`Error::Report`] naming a file that cannot be read, is not JSON, or is not a sweep's report
/// (or one that stopped before its points); two reports of the same release, scenario and remedy.
pub fn remedy_report(files: &[PathBuf]) -> Result<RemedyReport> {
    let refused = |path: &Path, reason: String| Error::Report {
        path: path.to_path_buf(),
        reason,
        source: None,
    };
    let mut remedies: Vec<String> = Vec::new();
    let mut rows: BTreeMap<(String, String, String), BTreeMap<String, RemedyCell>> =
        BTreeMap::new();
    for path in files {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Report {
            path: path.clone(),
            reason: "cannot read it".into(),
            source: Some(Box::new(e)),
        })?;
        let v: Value = serde_json::from_str(&text).map_err(|e| Error::Report {
            path: path.clone(),
            reason: "not JSON".into(),
            source: Some(Box::new(e)),
        })?;
        let sweep = &v["sweep"];
        if v["command"] != "sweep" || !sweep.is_object() {
            return Err(refused(
                path,
                "is not the JSON report of a sweep that ran (`sweep --json`)".into(),
            ));
        }
        let remedy = remedy_of(&v);
        if !remedies.contains(&remedy) {
            remedies.push(remedy.clone());
        }
        let release = sweep["paimon_version"].as_str().unwrap_or("?").to_owned();
        let scenario = sweep["scenario"].as_str().unwrap_or("?").to_owned();
        let points = sweep["points"].as_array().cloned().unwrap_or_default();
        let mut modes: Vec<String> = Vec::new();
        for p in &points {
            let m = p["mode"].as_str().unwrap_or("?").to_owned();
            if !modes.contains(&m) {
                modes.push(m);
            }
        }
        for mode in modes {
            let mut totals = BTreeMap::new();
            let mut count = 0;
            for p in points.iter().filter(|p| p["mode"] == mode.as_str()) {
                count += 1;
                *totals
                    .entry(p["class"].as_str().unwrap_or("?").to_owned())
                    .or_insert(0) += 1;
            }
            let failing = totals
                .iter()
                .filter(|(c, _)| !SUCCESS.contains(&c.as_str()))
                .map(|(_, n)| n)
                .sum();
            let windows = sweep["windows"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|w| w["mode"] == mode.as_str())
                .filter(|w| !SUCCESS.contains(&w["class"].as_str().unwrap_or("?")))
                .map(|w| {
                    let (a, b) = (
                        w["first"].as_u64().unwrap_or(0),
                        w["last"].as_u64().unwrap_or(0),
                    );
                    let span = if a == b {
                        a.to_string()
                    } else {
                        format!("{a}-{b}")
                    };
                    format!("{} {span}", w["class"].as_str().unwrap_or("?"))
                })
                .collect();
            let cells = rows
                .entry((release.clone(), scenario.clone(), mode.clone()))
                .or_default();
            if cells.contains_key(&remedy) {
                return Err(refused(
                    path,
                    format!(
                        "sweeps {scenario} on {release} with `{remedy}` again: one report each"
                    ),
                ));
            }
            cells.insert(
                remedy.clone(),
                RemedyCell {
                    points: count,
                    failing,
                    windows,
                    totals,
                    report: path.clone(),
                },
            );
        }
    }
    // The release's own recovery first: the "before" of every other column.
    remedies.sort_by_key(|r| r != "released");
    Ok(RemedyReport {
        sweeps: files.len(),
        remedies,
        rows: rows
            .into_iter()
            .map(|((release, scenario, mode), cells)| RemedyRow {
                release,
                scenario,
                mode,
                cells,
            })
            .collect(),
    })
}

/// Writes the report as a text table: a row per release, scenario and mode, a column per remedy.
///
/// Errors: the writer's.
pub fn write_remedy_text(out: &mut dyn std::io::Write, r: &RemedyReport) -> std::io::Result<()> {
    writeln!(
        out,
        "remedy report: {} sweeps; remedies: {}",
        r.sweeps,
        r.remedies.join(" | ")
    )?;
    write!(out, "| release | scenario | mode |")?;
    for remedy in &r.remedies {
        write!(out, " {remedy} |")?;
    }
    writeln!(out)?;
    writeln!(out, "|---|---|---|{}", "---|".repeat(r.remedies.len()))?;
    for row in &r.rows {
        write!(out, "| {} | {} | {} |", row.release, row.scenario, row.mode)?;
        for remedy in &r.remedies {
            match row.cells.get(remedy) {
                Some(c) => write!(out, " {} |", crate::report::remedy_cell_words(c))?,
                None => write!(out, " not swept |")?,
            }
        }
        writeln!(out)?;
    }
    for remedy in &r.remedies {
        writeln!(out, "{remedy}: {} failing points", r.failing(remedy))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sweep report as `sweep --json` writes it, reduced to what the remedy report reads.
    fn sweep_json(dir: &Path, name: &str, recovery: &str, classes: &[&str]) -> PathBuf {
        let points: Vec<Value> = classes
            .iter()
            .enumerate()
            .map(|(i, c)| serde_json::json!({"mode": "crash", "op_index": i + 1, "class": c}))
            .collect();
        let mut windows = Vec::new();
        let mut first = 0;
        for i in 1..=classes.len() {
            if i == classes.len() || classes[i] != classes[first] {
                windows.push(
                    serde_json::json!({"mode": "crash", "first": first + 1, "last": i,
                    "class": classes[first]}),
                );
                first = i;
            }
        }
        let v = serde_json::json!({"command": "sweep", "sweep": {"paimon_version": "1.0.0",
            "scenario": "c00", "recovery_strategy": recovery, "points": points, "windows": windows}});
        let path = dir.join(name);
        std::fs::write(&path, v.to_string()).unwrap();
        path
    }

    #[test]
    fn each_remedy_is_a_column_with_its_failing_windows() {
        let dir = tempfile::tempdir().unwrap();
        let lost = ["OK", "CHANGELOG-LOST", "CHANGELOG-LOST", "SPURIOUS-FAILURE"];
        let files = [
            sweep_json(
                dir.path(),
                "b.json",
                "pair-aware",
                &["OK", "OK", "OK", "SPURIOUS-FAILURE"],
            ),
            sweep_json(dir.path(), "a.json", "stock", &lost),
        ];
        let r = remedy_report(&files).unwrap();
        assert_eq!(r.remedies, ["released", "pair-aware recovery"]);
        assert_eq!(r.rows.len(), 1);
        let released = &r.rows[0].cells["released"];
        assert_eq!((released.points, released.failing), (4, 2));
        assert_eq!(released.windows, ["CHANGELOG-LOST 2-3"]);
        assert_eq!(r.failing("pair-aware recovery"), 0);
        let mut text = Vec::new();
        write_remedy_text(&mut text, &r).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(
            text.contains(
                "| 1.0.0 | c00 | crash | CHANGELOG-LOST 2-3 (2 of 4 points) | clean (4 points) |"
            ),
            "{text}"
        );
        // The same release, scenario and remedy twice is refused, naming the file.
        let again = sweep_json(dir.path(), "c.json", "stock", &lost);
        let e = remedy_report(&[files[1].clone(), again.clone()]).unwrap_err();
        assert!(e.to_string().contains("c.json"), "{e}");
    }
}
