//! `paimon-parity upgrade-matrix`: every pair A <= B of released Paimon versions, A's corpora replayed with
//! release B through the native reader and release A's own reader ([`crate::upgrade`]); the matrix as text,
//! JSON (`upgrade_matrix` in the report envelope), HTML and JUnit.

use std::path::PathBuf;

use serde::Serialize;

use super::stdout_err;
use crate::cli::{ModeArg, UpgradeMatrixArgs};
use crate::error::{Error, Result};
use crate::report::{
    check_html_target, check_json_target, text_output, upgrade_page, write_html, write_json,
    JsonReport,
};
use crate::upgrade::{run_matrix, MatrixOptions, UpgradeMatrix};

/// The JSON report of the matrix: the common envelope with `command: "upgrade-matrix"` and the matrix.
#[derive(Serialize)]
struct MatrixReport<'a> {
    #[serde(flatten)]
    envelope: JsonReport<'a>,
    /// The matrix; `None` when the command stopped before it (see `error`).
    upgrade_matrix: Option<&'a UpgradeMatrix>,
    /// Why the matrix proves less than asked ([`UpgradeMatrix::not_checked`]: releases not built, no cell
    /// compared), one sentence each; empty when it proves what was asked (or stopped before it).
    not_checked: Vec<String>,
}

/// Runs the matrix and writes its reports; the exit status is the matrix's
/// ([`UpgradeMatrix::exit_code`]: 0 proven, 1 a failing cell, 3 nothing compared or a release of `all` not
/// built, 130 interrupted).
///
/// Errors (exit 2): a report path cannot be written, `PAIMON_PARITY_CLASSPATH` is set, a release or scenario
/// is unknown, a release named in `--releases` is not built, the work directory cannot be written.
pub(super) fn run(args: UpgradeMatrixArgs) -> Result<i32> {
    check_json_target(args.json.as_deref())?;
    check_json_target(args.junit.as_deref())?;
    check_html_target(args.html.as_deref())?;
    let options_json = serde_json::to_value(&args).unwrap_or_default();
    let outcome = matrix(&args);
    if let Some(path) = &args.json {
        let code = match &outcome {
            Ok(m) => Ok(m.exit_code(args.fail_on_findings)),
            Err(e) => Err(e),
        };
        let mut envelope = JsonReport::new("upgrade-matrix", options_json, code);
        // The matrix spans releases: no single release or line, and its own process starts no JVM.
        envelope.paimon_version = match &outcome {
            Ok(m) => m.releases.join(","),
            Err(_) => args.releases.join(","),
        };
        envelope.paimon_line = None;
        envelope.paimon.version = envelope.paimon_version.clone();
        envelope.paimon.label = format!("Paimon {}", envelope.paimon_version);
        envelope.jdk = outcome
            .as_ref()
            .ok()
            .and_then(|m| m.pairs.iter().find_map(|p| p.jdk.clone()));
        let report = MatrixReport {
            envelope,
            upgrade_matrix: outcome.as_ref().ok(),
            not_checked: outcome
                .as_ref()
                .map(UpgradeMatrix::not_checked)
                .unwrap_or_default(),
        };
        write_json(path, &report)?;
    }
    let m = outcome?;
    let mut out = text_output(args.json.as_deref());
    crate::upgrade::text::write_matrix_text(&mut out, &m, args.fail_on_findings)
        .map_err(stdout_err)?;
    if let Some(path) = &args.html {
        write_html(path, &upgrade_page(&m, args.fail_on_findings))?;
    }
    if let Some(path) = &args.junit {
        std::fs::write(
            path,
            crate::report::upgrade_junit_xml(&m, args.fail_on_findings),
        )
        .map_err(|e| Error::Io {
            path: path.clone(),
            source: e,
        })?;
    }
    Ok(m.exit_code(args.fail_on_findings))
}

/// Checks the arguments and runs the matrix.
fn matrix(args: &UpgradeMatrixArgs) -> Result<UpgradeMatrix> {
    if std::env::var_os(jvm_bridge::jvm::CLASSPATH_ENV).is_some_and(|v| !v.is_empty()) {
        return Err(Error::Usage(format!(
            "{} is set: the matrix starts one process per release, each with that release's build; unset it",
            jvm_bridge::jvm::CLASSPATH_ENV
        )));
    }
    let releases = crate::upgrade::parse_releases(&args.releases)?;
    let scenarios: Vec<PathBuf> = if args.scenarios.is_empty() {
        crate::corpus::scenario_files(&crate::corpus::corpora_dir())?
    } else {
        args.scenarios
            .iter()
            .map(|s| crate::corpus::resolve_scenario(s))
            .collect::<Result<_>>()
            .map_err(|e| Error::Usage(e.to_string()))?
    };
    let modes = ModeArg::expand(&args.mode);
    let work = args
        .work
        .clone()
        .unwrap_or_else(|| crate::external::cache_dir().join("upgrade-matrix"));
    let store = args
        .store
        .as_deref()
        .map(crate::location::table_location)
        .transpose()?;
    crate::replay::stop_on_interrupt();
    run_matrix(&MatrixOptions {
        releases: releases.run,
        not_built: releases.not_built,
        scenarios,
        modes,
        work,
        exe: crate::external::stock_at::paimon_parity_exe(),
        store,
        progress: true,
    })
}
