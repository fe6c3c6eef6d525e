//! `paimon-parity reproduce`: re-runs the command a bundle records on the bundle and says whether its finding
//! reproduces (the same verdict, the same first difference).

use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;

use super::retain::{child, write_bundle_json};
use super::stdout_err;
use crate::bundle::manifest::finding_of_report;
use crate::bundle::manifest::NOTHING_COMPARED;
use crate::bundle::{unpack, Counts, Finding};
use crate::cli::ReproduceArgs;
use crate::error::{
    Error, Result, EXIT_DIFFERENT, EXIT_IDENTICAL, EXIT_NOTHING_COMPARED, EXIT_UNREADABLE,
};
use crate::report::{check_json_target, text_output};

/// The outcome of `reproduce` (the JSON report's `bundle`).
#[derive(Clone, Debug, Serialize)]
pub(super) struct Reproduction {
    /// The bundle file.
    path: PathBuf,
    /// `reproduced`, `not-reproduced`, `nothing-compared` (the recorded run and the re-run both compared
    /// nothing: no evidence either way) or `cannot-run`.
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
    /// What the comparison could not check, in words (a bundle that records no counts); `None` otherwise.
    note: Option<String>,
}

/// Re-runs the recorded command; exit 0 reproduced, 1 not reproduced, 2 cannot run, 3 nothing compared
/// (neither the recorded run nor the re-run compared anything).
pub(super) fn run(args: ReproduceArgs) -> Result<i32> {
    check_json_target(args.json.as_deref())?;
    let options = serde_json::to_value(&args).unwrap_or_default();
    let outcome = reproduce(&args);
    let code = |r: &Reproduction| match r.verdict {
        "reproduced" => EXIT_IDENTICAL,
        "not-reproduced" => EXIT_DIFFERENT,
        "nothing-compared" => EXIT_NOTHING_COMPARED,
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
            "{}{}{}",
            f.verdict.to_uppercase(),
            f.counts
                .as_ref()
                .map(|c| format!(" ({})", c.words()))
                .unwrap_or_default(),
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
    if let Some(n) = &r.note {
        writeln!(out, "note: {n}").map_err(stdout_err)?;
    }
    let reason = r.reason.as_deref().unwrap_or("");
    match r.verdict {
        "reproduced" => writeln!(
            out,
            "REPRODUCED: same verdict, same first difference, counts of the same run"
        ),
        "not-reproduced" => writeln!(out, "NOT REPRODUCED: {reason}"),
        "nothing-compared" => writeln!(out, "NOTHING-COMPARED: {reason}"),
        _ => writeln!(out, "CANNOT RUN: {reason}"),
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
        note: None,
    };
    let Some(recorded) = manifest.finding.clone() else {
        return Ok(cannot(
            "the bundle records no command to re-run (it was written from no report)".into(),
            None,
        ));
    };
    // `bundle.json` is not covered by the files' checksums: its recorded arguments are checked against what
    // `retain` records before anything runs, so a bundle cannot make this machine run a program or
    // compare something else.
    let rerun_args = match rerun_args(&recorded.command, &recorded.args, &args.reader_commands) {
        Ok(a) => a,
        Err(why) => return Ok(cannot(why, Some(recorded))),
    };
    let rerun_line = format!(
        "paimon-parity {} {} {}",
        recorded.command,
        args.bundle.display(),
        rerun_args.join(" ")
    );
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
    command.extend(rerun_args.iter().cloned());
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
            .unwrap_or_else(|| {
                format!(
                    "`paimon-parity {}` wrote no report ({})",
                    command.join(" "),
                    super::retain::status_words(status)
                )
            });
        let mut r = cannot(
            format!("the recorded command failed on the bundle: {error}"),
            Some(recorded),
        );
        r.report = report;
        return Ok(r);
    };
    let (verdict, reason, note) = compare(&recorded, &now, report.as_ref());
    Ok(Reproduction {
        path: args.bundle.clone(),
        verdict,
        command_line: Some(rerun_line),
        recorded: Some(recorded),
        now: Some(now),
        reason,
        report,
        note,
    })
}

/// Whether a finding compared nothing: its verdict says so (`nothing-compared`, `not-checked`), or its
/// counts compared 0 splits or keys. A finding without counts (a bundle written before they were recorded)
/// is judged by its verdict alone.
fn compared_nothing(f: &Finding) -> bool {
    NOTHING_COMPARED.contains(&f.verdict.as_str())
        || f.counts.as_ref().is_some_and(|c| c.compared == 0)
}

/// The outcome of comparing the re-run's finding `now` (its report `report`) with the `recorded` one:
/// (`reproduced` | `not-reproduced` | `nothing-compared`, why not, a note on what could not be compared).
///
/// A re-run that compared nothing never reproduces a recorded run that compared something (whatever the
/// verdicts), and when both compared nothing there is no finding to reproduce (`nothing-compared`). Else
/// the verdict, the first difference (in fields) and the counts ([`Counts::mismatch`]) must be the recorded
/// ones.
fn compare(
    recorded: &Finding,
    now: &Finding,
    report: Option<&serde_json::Value>,
) -> (&'static str, Option<String>, Option<String>) {
    let counted = |f: &Finding| {
        f.counts
            .as_ref()
            .map_or_else(|| "no counts recorded".to_owned(), Counts::words)
    };
    // The audit's own reason when it checked nothing (`audit.not_checked`).
    let counted_now = format!(
        "{}{}",
        counted(now),
        report
            .and_then(|r| r["audit"]["not_checked"].as_str())
            .map(|why| format!(", not checked: {why}"))
            .unwrap_or_default()
    );
    let note = recorded.counts.is_none().then(|| {
        "the bundle records no counts (written before they were recorded): the re-run's counts are not \
         compared, only that it compared something"
            .to_owned()
    });
    match (compared_nothing(recorded), compared_nothing(now)) {
        (true, true) => {
            return (
                "nothing-compared",
                Some(format!(
                    "the recorded run ({}, {}) and the re-run ({}, {}) both compared nothing: no evidence \
                     either way",
                    recorded.verdict,
                    counted(recorded),
                    now.verdict,
                    counted_now
                )),
                note,
            )
        }
        (false, true) => {
            return (
                "not-reproduced",
                Some(format!(
                    "the re-run compared nothing (verdict {}, {}); the recorded run found {} with {}{}",
                    now.verdict,
                    counted_now,
                    recorded.verdict,
                    counted(recorded),
                    not_retained_hint(recorded, now, report)
                )),
                note,
            )
        }
        _ => {}
    }
    if recorded.verdict != now.verdict {
        return (
            "not-reproduced",
            Some(format!(
                "verdict {} was recorded, the bundle gives {}",
                recorded.verdict, now.verdict
            )),
            note,
        );
    }
    if !recorded.same_as(now) {
        return (
            "not-reproduced",
            Some(format!(
                "same verdict, another first difference: recorded {}, now {}",
                recorded.first_difference.as_deref().unwrap_or("none"),
                now.first_difference.as_deref().unwrap_or("none")
            )),
            note,
        );
    }
    match (&recorded.counts, &now.counts) {
        (Some(r), Some(n)) => match r.mismatch(n) {
            Some(why) => (
                "not-reproduced",
                Some(format!(
                    "same verdict and first difference, other counts: {why}"
                )),
                note,
            ),
            None => ("reproduced", None, note),
        },
        (Some(_), None) => (
            "not-reproduced",
            Some("the re-run's report holds no counts to compare with the recorded ones".into()),
            note,
        ),
        (None, _) => ("reproduced", None, note),
    }
}

/// Why a re-run of a bundle compared nothing when the bundle retains none of the splits' files, for people;
/// empty otherwise.
fn not_retained_hint(
    recorded: &Finding,
    now: &Finding,
    report: Option<&serde_json::Value>,
) -> String {
    let not_retained = now.counts.as_ref().map_or_else(
        || {
            report.map_or(0, |r| {
                r["runs"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|run| run["split_verdicts"]["not_retained"].as_u64())
                    .sum::<u64>()
            })
        },
        |c| c.not_retained_splits,
    );
    if not_retained == 0 {
        return String::new();
    }
    format!(
        ": the bundle retains none of the {not_retained} splits' files (a bundle of `--files findings` keeps no \
         data file when nothing was found, `--files none` none at all; `retain --files all` keeps the \
         evidence of the {} run)",
        recorded.verdict
    )
}

/// The arguments a recorded finding re-runs with, checked against what `retain` records
/// (`bundle::manifest::finding_of_report`): for `replay` `--mode`, `--from-snapshot`, `--snapshot`,
/// `--reader`, `--unordered`, `--reader-plans`, `--reader-timeout` and `--paimon-version`; for `audit`
/// `--reader native|stock|both` and `--paimon-version`; values that are not options themselves.
///
/// A recorded `--reader-command NAME=CMD` is replaced by the one `given` names NAME with (`reproduce
/// --reader-command`): a program the bundle names is never run.
///
/// Errors (a `cannot-run` reason, in words): another command, an option outside that list (a bundle edited
/// by hand or written by another tool: `--json`, `--shard` and the like would change what is compared or
/// written), and a `--reader-command` whose NAME `given` does not name.
fn rerun_args(
    command: &str,
    args: &[String],
    given: &[String],
) -> std::result::Result<Vec<String>, String> {
    let (with_value, flags): (&[&str], &[&str]) = match command {
        "replay" => (
            &[
                "--mode",
                "--from-snapshot",
                "--snapshot",
                "--reader",
                "--reader-timeout",
                "--paimon-version",
            ],
            &["--unordered", "--reader-plans"],
        ),
        "audit" => (&["--reader", "--paimon-version"], &[]),
        other => {
            return Err(format!(
            "the bundle records the command `{other}`; reproduce re-runs `replay` and `audit` only"
        ))
        }
    };
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--reader-command" && command == "replay" {
            let recorded = it.next().map_or("", String::as_str);
            let name = recorded.split_once('=').map_or(recorded, |(n, _)| n);
            let Some(mine) = given
                .iter()
                .find(|g| g.split_once('=').is_some_and(|(n, _)| n == name))
            else {
                return Err(format!(
                    "the finding was made with the external reader `{name}`, which the bundle says ran as \
                     `{recorded}`; reproduce never runs a program a bundle names: check that command, then \
                     pass it as `--reader-command {recorded}`"
                ));
            };
            out.extend([a.clone(), mine.clone()]);
            continue;
        }
        if flags.contains(&a.as_str()) {
            out.push(a.clone());
            continue;
        }
        if !with_value.contains(&a.as_str()) {
            return Err(format!(
                "the bundle records the argument `{a}` for `{command}`, which `retain` never records (the \
                 bundle's bundle.json was edited, or written by another tool); nothing was run"
            ));
        }
        let value = it
            .next()
            .filter(|v| !v.starts_with('-'))
            .ok_or_else(|| format!("the bundle records `{a}` without a value; nothing was run"))?;
        if command == "audit"
            && a == "--reader"
            && !matches!(value.as_str(), "native" | "stock" | "both")
        {
            return Err(format!(
                "the bundle records `--reader {value}` for `audit`, which reads with native, stock or both \
                 only; nothing was run"
            ));
        }
        out.extend([a.clone(), value.clone()]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundle_cannot_make_reproduce_run_a_program_or_another_comparison() {
        let v = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let recorded = v(&[
            "--mode",
            "stream",
            "--reader",
            "native",
            "--unordered",
            "--paimon-version",
            "1.0.0",
        ]);
        assert_eq!(rerun_args("replay", &recorded, &[]).unwrap(), recorded);
        let evil = v(&[
            "--mode",
            "stream",
            "--reader",
            "evil",
            "--reader-command",
            "evil=touch /tmp/x",
        ]);
        let e = rerun_args("replay", &evil, &[]).unwrap_err();
        assert!(e.contains("never runs a program a bundle names"), "{e}");
        // The user's command for that reader runs instead; one for another reader does not count.
        let rerun = rerun_args("replay", &evil, &v(&["evil=/usr/bin/true"])).unwrap();
        assert_eq!(rerun[5], "evil=/usr/bin/true");
        assert!(rerun_args("replay", &evil, &v(&["other=/usr/bin/true"])).is_err());
        for extra in [
            &["--shard", "2/2"][..],
            &["--json", "/tmp/x.json"],
            &["--threads", "8"],
        ] {
            let mut a = recorded.clone();
            a.extend(v(extra));
            let e = rerun_args("replay", &a, &[]).unwrap_err();
            assert!(e.contains(&format!("`{}`", extra[0])), "{e}");
        }
        assert!(rerun_args("replay", &v(&["--mode", "--unordered"]), &[]).is_err());
        assert!(rerun_args("audit", &v(&["--reader", "example"]), &[]).is_err());
        assert!(rerun_args("audit", &v(&["--mode", "batch"]), &[]).is_err());
        assert!(rerun_args("sweep", &[], &[]).is_err());
        assert_eq!(
            rerun_args(
                "audit",
                &v(&["--reader", "both", "--paimon-version", "2.0.0"]),
                &[]
            )
            .unwrap()
            .len(),
            4
        );
    }

    fn finding(verdict: &str, counts: Option<(&str, u64, u64)>) -> Finding {
        Finding {
            command: "audit".into(),
            args: Vec::new(),
            command_line: String::new(),
            verdict: verdict.into(),
            exit_code: 0,
            first_difference: None,
            first_difference_fields: None,
            counts: counts.map(|(unit, compared, not_retained)| Counts {
                unit: unit.into(),
                compared,
                not_retained_splits: not_retained,
                stock_rows: None,
                native_rows: None,
            }),
        }
    }

    #[test]
    fn nothing_compared_never_reproduces_a_run_that_compared_something() {
        let recorded = finding("complete", Some(("keys", 4, 0)));
        // The audit's own not-checked verdict, or 0 keys under another verdict.
        let report = serde_json::json!({"audit": {"not_checked": "no split retained"}});
        let (verdict, reason, _) = compare(
            &recorded,
            &finding("not-checked", Some(("keys", 0, 2))),
            Some(&report),
        );
        assert_eq!(verdict, "not-reproduced");
        assert_eq!(
            reason.unwrap(),
            "the re-run compared nothing (verdict not-checked, 0 keys compared (2 splits not retained), not \
             checked: no split retained); the recorded run found complete with 4 keys compared: the bundle \
             retains none of the 2 splits' files (a bundle of `--files findings` keeps no data file when \
             nothing was found, `--files none` none at all; `retain --files all` keeps the evidence of the \
             complete run)"
        );
        let (verdict, ..) = compare(&recorded, &finding("complete", Some(("keys", 0, 2))), None);
        assert_eq!(verdict, "not-reproduced");
        // Both nothing: no evidence either way.
        let (verdict, ..) = compare(
            &finding("nothing-compared", Some(("splits", 0, 0))),
            &finding("nothing-compared", Some(("splits", 0, 0))),
            None,
        );
        assert_eq!(verdict, "nothing-compared");
        // The same counts reproduce; other counts do not.
        assert_eq!(compare(&recorded, &recorded.clone(), None).0, "reproduced");
        assert_eq!(
            compare(&recorded, &finding("complete", Some(("keys", 3, 0))), None).0,
            "not-reproduced"
        );
    }

    #[test]
    fn a_bundle_without_counts_reproduces_by_verdict_with_a_note_but_never_from_nothing() {
        let old = finding("complete", None);
        let (verdict, reason, note) =
            compare(&old, &finding("complete", Some(("keys", 4, 0))), None);
        assert_eq!((verdict, reason), ("reproduced", None));
        assert!(note.unwrap().starts_with("the bundle records no counts"));
        let (verdict, ..) = compare(&old, &finding("complete", Some(("keys", 0, 0))), None);
        assert_eq!(verdict, "not-reproduced");
    }
}
