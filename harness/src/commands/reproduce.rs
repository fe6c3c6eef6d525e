//! `paimon-parity reproduce`: re-runs the command a bundle records on the bundle and says whether its finding
//! reproduces (the same verdict, the same first difference).

use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;

use super::retain::{child, write_bundle_json};
use super::stdout_err;
use crate::bundle::manifest::finding_of_report;
use crate::bundle::{unpack, Finding};
use crate::cli::ReproduceArgs;
use crate::error::{Error, Result, EXIT_DIFFERENT, EXIT_IDENTICAL, EXIT_UNREADABLE};
use crate::report::{check_json_target, text_output};

/// The outcome of `reproduce` (the JSON report's `bundle`).
#[derive(Clone, Debug, Serialize)]
pub(super) struct Reproduction {
    /// The bundle file.
    path: PathBuf,
    /// `reproduced`, `not-reproduced` or `cannot-run`.
    verdict: &'static str,
    /// The command line run (`paimon-parity <command> BUNDLE <args>`).
    command_line: Option<String>,
    /// The finding the bundle records.
    recorded: Option<Finding>,
    /// What the command finds on the bundle now; `None` when it could not run.
    now: Option<Finding>,
    /// Why it did not reproduce, or could not run, in words.
    reason: Option<String>,
    /// The re-run's own JSON report.
    report: Option<serde_json::Value>,
}

/// Re-runs the recorded command; exit 0 reproduced, 1 not reproduced, 2 cannot run.
pub(super) fn run(args: ReproduceArgs) -> Result<i32> {
    check_json_target(args.json.as_deref())?;
    let options = serde_json::to_value(&args).unwrap_or_default();
    let outcome = reproduce(&args);
    let code = |r: &Reproduction| match r.verdict {
        "reproduced" => EXIT_IDENTICAL,
        "not-reproduced" => EXIT_DIFFERENT,
        _ => EXIT_UNREADABLE,
    };
    if let Some(path) = &args.json {
        write_bundle_json(path, "reproduce", options, &outcome, code, |r| {
            r.report
                .as_ref()
                .and_then(|v| v["jdk"].as_str().map(str::to_owned))
        })?;
    }
    let r = outcome?;
    let mut out = text_output(args.json.as_deref());
    if let Some(c) = &r.command_line {
        writeln!(out, "command: {c}").map_err(stdout_err)?;
    }
    let words = |f: &Finding| {
        format!(
            "{}{}",
            f.verdict.to_uppercase(),
            f.first_difference
                .as_ref()
                .map(|d| format!(", first difference: {d}"))
                .unwrap_or_default()
        )
    };
    if let Some(f) = &r.recorded {
        writeln!(out, "recorded: {}", words(f)).map_err(stdout_err)?;
    }
    if let Some(f) = &r.now {
        writeln!(out, "now:      {}", words(f)).map_err(stdout_err)?;
    }
    match r.verdict {
        "reproduced" => writeln!(out, "REPRODUCED: same verdict, same first difference"),
        "not-reproduced" => writeln!(out, "NOT REPRODUCED: {}", r.reason.as_deref().unwrap_or("")),
        _ => writeln!(out, "CANNOT RUN: {}", r.reason.as_deref().unwrap_or("")),
    }
    .map_err(stdout_err)?;
    Ok(code(&r))
}

/// The work of [`run`]. A damaged bundle is an error (exit 2); a command that cannot run is a
/// `cannot-run` outcome (exit 2, said why).
fn reproduce(args: &ReproduceArgs) -> Result<Reproduction> {
    // Checked whole before anything runs: a damaged bundle is exit 2 naming what is wrong.
    let unpacked = unpack(&args.bundle)?;
    let manifest = unpacked.manifest.clone();
    drop(unpacked);
    let cannot = |reason: String, recorded: Option<Finding>| Reproduction {
        path: args.bundle.clone(),
        verdict: "cannot-run",
        command_line: recorded.as_ref().map(|f| f.command_line.clone()),
        recorded,
        now: None,
        reason: Some(reason),
        report: None,
    };
    let Some(recorded) = manifest.finding.clone() else {
        return Ok(cannot(
            "the bundle records no command to re-run (it was written from no report)".into(),
            None,
        ));
    };
    let version = manifest.paimon_version.clone();
    if let Err(e) = native_reader::PaimonRelease::parse(&version) {
        return Ok(cannot(
            format!("the bundle was found with Paimon {version}: {e}"),
            Some(recorded),
        ));
    }
    // The released reader is needed by every replay and by an audit that reads with it.
    let needs_jvm = recorded.command == "replay"
        || recorded
            .args
            .windows(2)
            .any(|w| w[0] == "--reader" && (w[1] == "stock" || w[1] == "both"));
    let (target, built) = jvm_bridge::jvm::built_versions();
    let classpath_set = std::env::var_os("PAIMON_PARITY_CLASSPATH").is_some();
    if needs_jvm && !classpath_set && !built.contains(&version) {
        return Ok(cannot(
            format!(
                "the finding was found with the released Paimon {version}, which is not built here (built in {}: {}); \
                 build it with `scripts/build-java --paimon-version {version}`",
                target.display(),
                if built.is_empty() {
                    "none".to_owned()
                } else {
                    built.join(", ")
                }
            ),
            Some(recorded),
        ));
    }
    let dir = tempfile::tempdir().map_err(|e| Error::Io {
        path: std::env::temp_dir(),
        source: e,
    })?;
    let json = dir.path().join("report.json");
    let mut command = vec![recorded.command.clone(), args.bundle.display().to_string()];
    command.extend(recorded.args.iter().cloned());
    command.extend(["--json".into(), json.display().to_string()]);
    let status = child(&command)?;
    let report: Option<serde_json::Value> = std::fs::read(&json)
        .ok()
        .and_then(|t| serde_json::from_slice(&t).ok());
    let now = report.as_ref().and_then(finding_of_report);
    let Some(now) = now else {
        let error = report
            .as_ref()
            .and_then(|r| r["error"]["message"].as_str().map(str::to_owned))
            .unwrap_or_else(|| format!("it wrote no report (exit {status})"));
        let mut r = cannot(
            format!("the recorded command failed on the bundle: {error}"),
            Some(recorded),
        );
        r.report = report;
        return Ok(r);
    };
    let (verdict, reason) = if recorded.same_as(&now) {
        ("reproduced", None)
    } else if recorded.verdict != now.verdict {
        let not_retained = report.as_ref().map_or(0, |r| {
            r["runs"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|run| run["split_verdicts"]["not_retained"].as_u64())
                .sum::<u64>()
        });
        let why = if now.verdict == "nothing-compared" && not_retained > 0 {
            format!(
                ": the bundle retains none of the {not_retained} splits' files (a bundle of `--files findings` \
                 keeps no data file when nothing was found; `retain --files all` keeps the evidence of the {} replay)",
                recorded.verdict
            )
        } else {
            String::new()
        };
        (
            "not-reproduced",
            Some(format!(
                "verdict {} was recorded, the bundle gives {}{why}",
                recorded.verdict, now.verdict
            )),
        )
    } else {
        (
            "not-reproduced",
            Some(format!(
                "same verdict, another first difference: recorded {}, now {}",
                recorded.first_difference.as_deref().unwrap_or("none"),
                now.first_difference.as_deref().unwrap_or("none")
            )),
        )
    };
    Ok(Reproduction {
        path: args.bundle.clone(),
        verdict,
        command_line: Some(recorded.command_line.clone()),
        recorded: Some(recorded),
        now: Some(now),
        reason,
        report,
    })
}
