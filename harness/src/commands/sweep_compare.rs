//! `paimon-parity sweep SCENARIO --compare --recovery pair-aware` (or `--candidate NAME`): the scenario swept twice, by two child
//! processes of this binary (one Paimon build per JVM, so that a candidate can run beside its release): the
//! base with the release's own recovery, and the remedy the other arguments name; then each point marked
//! ([`crate::sweep::compare`]).

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::retain::{child, status_words};
use super::stdout_err;
use crate::cli::{SweepArgs, SweepFault, SweepRecovery};
use crate::error::{Error, Result};
use crate::report::{check_json_target, text_output, write_json, JsonReport};
use crate::sweep::compare::{compare, write_comparison, SweepComparison};

/// The JSON report of `sweep --compare`: the envelope, the comparison and both sweeps.
#[derive(Serialize)]
struct CompareJson<'a> {
    #[serde(flatten)]
    envelope: JsonReport<'a>,
    sweep_compare: Option<&'a SweepComparison>,
    /// The two sweeps' `sweep` objects: `base`, `remedy`.
    sweeps: Value,
}

/// Runs both sweeps and the comparison; exit as [`SweepComparison::exit_code`].
///
/// Errors (exit 2): `--compare` with nothing to compare against (`--recovery stock`); a sweep that wrote no
/// report; the two sweeps of different scenarios or releases.
pub(super) fn run(args: SweepArgs) -> Result<i32> {
    check_json_target(args.json.as_deref())?;
    if args.html.is_some() || args.junit.is_some() {
        return Err(Error::Usage(
            "sweep --compare writes text and --json; run each sweep alone for --html and --junit"
                .into(),
        ));
    }
    if args.recovery == SweepRecovery::Stock && args.candidate.is_none() {
        return Err(Error::Usage(
            "sweep --compare needs a remedy to compare with the release's own recovery: --recovery \
             pair-aware, or --candidate NAME"
                .into(),
        ));
    }
    let options_json = serde_json::to_value(&args).unwrap_or_default();
    let dir = tempfile::tempdir().map_err(|e| Error::Io {
        path: std::env::temp_dir(),
        source: e,
    })?;
    // The children read a store with this run's options, handed over in a file only this user can read.
    let options = native_reader::fileio::configured();
    let options_file = dir.path().join("file-io-options");
    if !options.is_empty() {
        crate::store_options::write_private(&options_file, &options)?;
    }
    let mut sweeps = Vec::new();
    for (side, recovery, candidate) in [
        ("base", SweepRecovery::Stock, None),
        ("remedy", args.recovery, args.candidate.as_deref()),
    ] {
        let json = dir.path().join(format!("{side}.json"));
        let mut a = child_args(&args, recovery, &json);
        if let Some(name) = candidate {
            a.extend(["--candidate".into(), name.to_owned()]);
        }
        if !options.is_empty() {
            a.extend(["--options-file".into(), options_file.display().to_string()]);
        }
        eprintln!("sweep --compare: the {side} sweep");
        let status = child(&a)?;
        let v = read_sweep(&json).ok_or_else(|| Error::Report {
            path: json.clone(),
            reason: format!(
                "the {side} sweep (`paimon-parity {}`, {}) wrote no report",
                a.join(" "),
                status_words(status)
            ),
            source: None,
        })?;
        sweeps.push(v);
    }
    // A candidate by its own label (`candidate NAME (based on V), not a release`), with its recovery.
    let remedy_words = match sweeps[1]["paimon"]["label"].as_str() {
        Some(label) if sweeps[1]["paimon"]["candidate"].is_object() => format!(
            "{label}; {} recovery",
            sweeps[1]["recovery_strategy"].as_str().unwrap_or("stock")
        ),
        _ => crate::report::remedy::remedy_label(&sweeps[1]),
    };
    let c = compare("released", &sweeps[0], &remedy_words, &sweeps[1])?;
    if let Some(path) = &args.json {
        let report = CompareJson {
            envelope: JsonReport::new("sweep", options_json, Ok(c.exit_code())),
            sweep_compare: Some(&c),
            sweeps: serde_json::json!({"base": sweeps[0], "remedy": sweeps[1]}),
        };
        write_json(path, &report)?;
    }
    let mut out = text_output(args.json.as_deref());
    write_comparison(&mut out, &c).map_err(stdout_err)?;
    Ok(c.exit_code())
}

/// The `sweep` object of a child's JSON report, when it wrote one.
fn read_sweep(path: &Path) -> Option<Value> {
    let v: Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    v["sweep"].is_object().then(|| v["sweep"].clone())
}

/// The arguments of one side's sweep: this run's, with `recovery` and its JSON report into `json`.
fn child_args(args: &SweepArgs, recovery: SweepRecovery, json: &Path) -> Vec<String> {
    let mut a = vec!["sweep".to_owned(), args.scenario.clone()];
    let list = |faults: &[SweepFault]| {
        faults
            .iter()
            .map(|f| match f {
                SweepFault::Crash => "crash",
                SweepFault::Fail => "fail",
                SweepFault::FailAfter => "fail-after",
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut opt = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            a.extend([k.to_owned(), v]);
        }
    };
    opt("--paimon-version", args.paimon_version.clone());
    opt("--fault", Some(list(&args.fault)).filter(|s| !s.is_empty()));
    opt("--commit", args.commit.map(|c| c.to_string()));
    opt("--writer", args.writer.clone());
    opt(
        "--recovery-attempts",
        Some(args.recovery_attempts.to_string()),
    );
    opt(
        "--recovery-fault",
        Some(list(&args.recovery_fault)).filter(|s| !s.is_empty()),
    );
    opt("--recovery-ops", args.recovery_ops.clone());
    opt("--ops", args.ops.clone());
    opt(
        "--work",
        args.work.as_ref().map(|w| w.display().to_string()),
    );
    opt("--threads", args.threads.map(|t| t.to_string()));
    opt(
        "--recovery",
        Some(
            match recovery {
                SweepRecovery::Stock => "stock",
                SweepRecovery::PairAware => "pair-aware",
            }
            .to_owned(),
        ),
    );
    opt("--json", Some(json.display().to_string()));
    if args.no_parity {
        a.push("--no-parity".into());
    }
    a
}
