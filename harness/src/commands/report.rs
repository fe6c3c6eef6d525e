//! `paimon-parity report merge`: the reports of the shards of one replay (`replay --shard I/N --json`)
//! merged into the report of the whole replay (JSON, JUnit, HTML, text), with one verdict and exit status;
//! with `--per-table`, the shards of several replays (one per table of a warehouse) merged per replay and
//! reported side by side.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::replay::write_replay_html;
use super::stdout_err;
use crate::cli::ReportCommand;
use crate::error::{exit_severity, Error, Result};
use crate::replay::merge_shards;
use crate::report::{
    check_html_target, check_json_target, table_name, text_output, write_json, write_junit,
    write_matrix, write_run, JunitRun, MatrixRun, ReplayRun, SCHEMA,
};

/// Runs `report merge`; returns the merged replay's exit status.
///
/// Errors: [`Error::Report`] naming the file that cannot be read or merged; [`Error::Io`] for an output.
pub(super) fn run(command: ReportCommand) -> Result<i32> {
    let (reports, json, junit, html, per_table) = match command {
        ReportCommand::Merge {
            reports,
            json,
            junit,
            html,
            per_table,
        } => (reports, json, junit, html, per_table),
        ReportCommand::Remedy {
            reports,
            json,
            html,
        } => return remedy(&reports, json.as_deref(), html.as_deref()),
    };
    check_json_target(json.as_deref())?;
    check_json_target(junit.as_deref())?;
    check_html_target(html.as_deref())?;
    let shards: Vec<(PathBuf, Value)> = reports
        .iter()
        .map(|p| read_report(p).map(|v| (p.clone(), v)))
        .collect::<Result<_>>()?;
    let (first_path, first) = &shards[0];
    let release = |v: &Value| v["paimon_version"].as_str().unwrap_or_default().to_owned();
    let all: Vec<&(PathBuf, Value)> = shards.iter().collect();
    agree_with_first(&all, release, |this, first, theirs| {
        format!("was written with Paimon {this}, {first} with Paimon {theirs}: not shards of one replay")
    })?;
    for (path, v) in &shards[1..] {
        if let Some((flag, this, theirs)) = differing_option(v, first) {
            return Err(refused(
                path,
                format!(
                    "was run with {flag} {this}, {} with {flag} {theirs}: not shards of one replay",
                    first_path.display()
                ),
            ));
        }
    }
    let merged_runs = if per_table {
        merge_per_run(&shards)?
    } else {
        let all: Vec<&(PathBuf, Value)> = shards.iter().collect();
        merge_replay(&all)?
    };
    let summaries: Vec<MatrixRun> = merged_runs.iter().map(|r| r.summary.clone()).collect();
    let code = summaries
        .iter()
        .map(|r| r.exit_code)
        .max_by_key(|c| exit_severity(*c))
        .unwrap_or(0);
    let mut out = text_output(json.as_deref());
    for run in &summaries {
        write_run(&mut out, run).map_err(stdout_err)?;
    }
    if summaries.len() > 1 {
        write_matrix(&mut out, &summaries).map_err(stdout_err)?;
    }
    writeln!(
        out,
        "merged {} shard reports ({} ...)",
        shards.len(),
        first_path.display()
    )
    .map_err(stdout_err)?;
    drop(out);
    if let Some(path) = &json {
        // The first shard's envelope (tool, release, JDK, options), as the whole replay's.
        let mut envelope = first.clone();
        envelope["runs"] = serde_json::to_value(&merged_runs).unwrap_or_default();
        envelope["exit_code"] = code.into();
        envelope["status"] = "complete".into();
        envelope["error"] = Value::Null;
        if let Some(options) = envelope["options"].as_object_mut() {
            options.insert("shard".into(), Value::Null);
            if per_table {
                let mut tables: Vec<String> = merged_runs
                    .iter()
                    .map(|r| r.summary.table.display().to_string())
                    .collect();
                tables.dedup();
                options.insert("tables".into(), tables.into());
            }
            options.insert("json".into(), path.display().to_string().into());
        }
        write_json(path, &envelope)?;
    }
    if let Some(path) = &junit {
        let runs: Vec<JunitRun> = merged_runs
            .iter()
            .filter_map(|r| {
                let report = r.report.as_ref()?;
                let table = &r.summary.table;
                Some(JunitRun::of_report(
                    table,
                    table_name(table),
                    r.summary.mode,
                    report,
                ))
            })
            .collect();
        write_junit(path, &runs)?;
    }
    if let Some(path) = &html {
        let tables: Vec<PathBuf> = merged_runs
            .iter()
            .map(|r| r.summary.table.clone())
            .collect();
        write_replay_html(path, &merged_runs, &tables)?;
    }
    Ok(code)
}

/// `report merge --per-table`: every run of every report (each a shard of one scan, or a whole one; a unit
/// of `paimon-parity units` holds several), grouped by table, scan and reader, each group merged as the
/// shards of that run. Runs come in the order of their table's path, then scan and reader.
///
/// Errors: [`Error::Report`] naming a report whose runs cannot be read, or a group that [`merge_shards`]
/// refuses (a shard missing or repeated, different pins).
fn merge_per_run(shards: &[(PathBuf, Value)]) -> Result<Vec<ReplayRun>> {
    type Group<'a> = Vec<(&'a PathBuf, ReplayRun)>;
    let mut groups: std::collections::BTreeMap<(String, &'static str, String), Group<'_>> =
        std::collections::BTreeMap::new();
    for (path, v) in shards {
        for run in runs_of(path, v)? {
            let key = (
                run.summary.table.display().to_string(),
                run.summary.mode.name(),
                run.summary.reader.clone(),
            );
            groups.entry(key).or_default().push((path, run));
        }
    }
    groups
        .into_values()
        .map(|group| {
            let of: Vec<(&PathBuf, &ReplayRun)> = group.iter().map(|(p, r)| (*p, r)).collect();
            merge_runs(&of)
        })
        .collect()
}

/// The runs of the report `v` read from `path`.
fn runs_of(path: &Path, v: &Value) -> Result<Vec<ReplayRun>> {
    serde_json::from_value(v["runs"].clone()).map_err(|e| Error::Report {
        path: path.to_path_buf(),
        reason: "its runs are not those of a replay report".into(),
        source: Some(Box::new(e)),
    })
}

/// The runs of one scan by one reader, one per shard: their merged run, or the first that stopped with an
/// error (the merged run is that error).
fn merge_runs(of: &[(&PathBuf, &ReplayRun)]) -> Result<ReplayRun> {
    if let Some((_, errored)) = of.iter().find(|(_, r)| r.report.is_none()) {
        return Ok((*errored).clone());
    }
    let reports = of.iter().filter_map(|(_, r)| r.report.clone()).collect();
    let merged = merge_shards(reports).map_err(|e| refused(of[e.report].0, e.reason))?;
    let summary = &of[0].1.summary;
    Ok(ReplayRun::of_report(&summary.table, summary.mode, merged))
}

/// Checks that every shard has the same `property` as the first.
///
/// Errors: [`Error::Report`] naming the first shard that differs, with `message(its value, the first
/// shard's path, the first's value)`.
fn agree_with_first<T: PartialEq + std::fmt::Display>(
    shards: &[&(PathBuf, Value)],
    property: impl Fn(&Value) -> T,
    message: impl Fn(&T, &std::path::Display<'_>, &T) -> String,
) -> Result<()> {
    let (first_path, first) = shards[0];
    let expected = property(first);
    for (path, v) in &shards[1..] {
        let this = property(v);
        if this != expected {
            return Err(refused(
                path,
                message(&this, &first_path.display(), &expected),
            ));
        }
    }
    Ok(())
}

/// Merges the shards of one replay (already checked to be of one release and the same options) into its
/// runs.
///
/// Errors: [`Error::Report`] naming the shard whose runs are not those of the others, or that
/// [`merge_shards`] refuses.
fn merge_replay(shards: &[&(PathBuf, Value)]) -> Result<Vec<ReplayRun>> {
    let (_, first) = shards[0];
    let run_count = |v: &Value| v["runs"].as_array().map_or(0, Vec::len);
    agree_with_first(shards, run_count, |this, first, theirs| {
        format!("has {this} runs (table x mode x reader), {first} has {theirs}: not shards of one replay")
    })?;
    // Run k of every shard is run k of the replay (tables, modes and readers come in one order).
    let parsed: Vec<Vec<ReplayRun>> = shards
        .iter()
        .map(|(path, v)| runs_of(path, v))
        .collect::<Result<_>>()?;
    let mut merged_runs: Vec<ReplayRun> = Vec::new();
    for k in 0..run_count(first) {
        let of_k: Vec<(&PathBuf, &ReplayRun)> = shards
            .iter()
            .zip(&parsed)
            .map(|((p, _), runs)| (p, &runs[k]))
            .collect();
        // Run k of every shard is the same scan by the same reader (errored runs included).
        let (_, run0) = of_k[0];
        if let Some((path, run)) = of_k.iter().find(|(_, r)| {
            r.summary.mode != run0.summary.mode || r.summary.reader != run0.summary.reader
        }) {
            return Err(refused(
                path,
                format!(
                    "run {} is the {} scan by reader {}, run {} of {} the {} scan by reader {}: not shards of one replay",
                    k + 1,
                    run.summary.mode.name(),
                    run.summary.reader,
                    k + 1,
                    of_k[0].0.display(),
                    run0.summary.mode.name(),
                    run0.summary.reader
                ),
            ));
        }
        merged_runs.push(merge_runs(&of_k)?);
    }
    Ok(merged_runs)
}

use std::io::Write;

/// A report file, checked to be a `replay` report of this schema that ran to the end.
/// Runs `report remedy`: the text table, and the JSON and HTML asked for; exit 0.
///
/// Errors: as [`crate::report::remedy::remedy_report`]; [`Error::Io`] for an output.
fn remedy(reports: &[PathBuf], json: Option<&Path>, html: Option<&Path>) -> Result<i32> {
    check_json_target(json)?;
    check_html_target(html)?;
    let r = crate::report::remedy::remedy_report(reports)?;
    if let Some(path) = json {
        write_json(path, &r)?;
    }
    if let Some(path) = html {
        crate::report::write_html(path, &crate::report::remedy_page(&r))?;
    }
    let mut out = text_output(json);
    crate::report::remedy::write_remedy_text(&mut out, &r).map_err(stdout_err)?;
    Ok(0)
}

fn read_report(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Report {
        path: path.to_path_buf(),
        reason: "cannot read it".into(),
        source: Some(Box::new(e)),
    })?;
    let v: Value = serde_json::from_str(&text).map_err(|e| Error::Report {
        path: path.to_path_buf(),
        reason: "not JSON".into(),
        source: Some(Box::new(e)),
    })?;
    if v["schema"] != SCHEMA {
        return Err(refused(path, format!("is not a {SCHEMA} JSON report")));
    }
    if v["command"] != "replay" {
        return Err(refused(
            path,
            format!(
                "is the report of `{}`, not of `replay`",
                v["command"].as_str().unwrap_or("?")
            ),
        ));
    }
    if !v["paimon_version"].is_string() {
        return Err(refused(
            path,
            "names no Paimon release (`paimon_version`): its shards cannot be checked to be of one release"
                .into(),
        ));
    }
    if !v["options"].is_object() {
        return Err(refused(
            path,
            "has no `options` object: the options its shard ran with cannot be checked".into(),
        ));
    }
    match v["status"].as_str() {
        Some("complete") if v["runs"].as_array().is_none_or(Vec::is_empty) => Err(refused(
            path,
            "has no runs (table x mode x reader): nothing to merge".into(),
        )),
        Some("complete") => Ok(v),
        Some(other) => Err(refused(
            path,
            format!(
                "did not run to the end (status {other}{}): run that shard again",
                v["error"]["message"]
                    .as_str()
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default()
            ),
        )),
        None => Err(refused(path, "has no status".into())),
    }
}

/// The options that change what a shard compares, as the JSON report's `options` names them, with their
/// flags: shards run with different values are not shards of one replay.
const SAME_OPTIONS: [(&str, &str); 4] = [
    ("unordered", "--unordered"),
    ("reader_plans", "--reader-plans"),
    ("reader_commands", "--reader-command"),
    ("reader_timeout", "--reader-timeout"),
];

/// The first of [`SAME_OPTIONS`] whose value differs between the reports `a` and `b`: its flag and both
/// values as JSON (`absent` for a missing one).
fn differing_option(a: &Value, b: &Value) -> Option<(&'static str, String, String)> {
    let shown = |v: &Value| {
        if v.is_null() {
            "absent".to_owned()
        } else {
            v.to_string()
        }
    };
    SAME_OPTIONS.iter().find_map(|(key, flag)| {
        let (x, y) = (&a["options"][key], &b["options"][key]);
        (x != y).then(|| (*flag, shown(x), shown(y)))
    })
}

fn refused(path: &Path, reason: String) -> Error {
    Error::Report {
        path: path.to_path_buf(),
        reason,
        source: None,
    }
}
