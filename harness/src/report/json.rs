//! The one JSON shape of every `--json` report (`replay`, `audit`, `inspect`): an envelope that says which
//! tool, release, JDK and options produced it and how the command ended, around the command's own result.
//! Documented field by field in `docs/json-report.md`; [`SCHEMA`] and [`SCHEMA_VERSION`] name it.

use serde::{Deserialize, Serialize};

use super::MatrixRun;
use crate::audit::AuditReport;
use crate::error::{Error, EXIT_INTERRUPTED};
use crate::inspect::Timeline;
use crate::replay::ReplayReport;

/// The `schema` of every report.
pub const SCHEMA: &str = "paimon-parity-report";

/// The `schema_version`: raised when a field is renamed, removed or changes meaning (adding a field does
/// not raise it).
pub const SCHEMA_VERSION: u32 = 1;

/// How the command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// The command did all its work (whatever the verdicts).
    Complete,
    /// An error stopped the command (see `error`); what was done before it is kept.
    Error,
    /// Ctrl-C stopped the command; what was done before it is kept.
    Interrupted,
}

/// The error that stopped a command, in the report.
#[derive(Clone, Debug, Serialize)]
pub struct ReportError {
    /// The harness error's kind (`Error` variant, e.g. `Table`, `Native`, `Stock`, `Usage`).
    pub kind: String,
    /// Its message, as printed on stderr.
    pub message: String,
}

impl ReportError {
    /// The report's view of `e`.
    pub fn of(e: &Error) -> Self {
        let debug = format!("{e:?}");
        let kind = debug
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .next()
            .unwrap_or("Error")
            .to_owned();
        ReportError {
            kind,
            message: e.to_string(),
        }
    }
}

/// One run of a replay: its summary (the matrix line: table, mode, reader, verdict, counts, exit code,
/// error) and, when it got as far, its whole report with every split.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReplayRun {
    /// The run's summary.
    #[serde(flatten)]
    pub summary: MatrixRun,
    /// The run's report: per split its key, verdict, files, row counts per RowKind on each side, first
    /// mismatch; `None` when the run stopped with an error before comparing.
    pub report: Option<ReplayReport>,
}

impl ReplayRun {
    /// A run of `mode` on `table` that produced a report.
    pub fn of_report(
        table: &std::path::Path,
        mode: crate::replay::ReplayMode,
        report: ReplayReport,
    ) -> Self {
        ReplayRun {
            summary: MatrixRun::of_report(table, mode, report.clone()),
            report: Some(report),
        }
    }
}

/// The Paimon a command ran (`paimon` in the JSON envelope): release `version`, or a candidate based on it.
/// A candidate is never the oracle: where one is named, the reports say `candidate NAME (based on V), not a
/// release` ([`PaimonUsed::label`]).
#[derive(Clone, Debug, Serialize)]
pub struct PaimonUsed {
    /// The release: the one the JVM runs, or the one the candidate is based on (whose rules the native
    /// reader follows either way).
    pub version: String,
    /// The candidate this process's JVM runs instead of the release (`sweep`/`audit --candidate`):
    /// `jvm_bridge::Candidate::report_json`, `{"name", "based_on", "patches": [...], "source", "classes": N,
    /// "jars", "built_at", "overlay_loaded_from"}`; `None` when it runs the release.
    pub candidate: Option<serde_json::Value>,
    /// The candidates compared as readers against the release, which stays the reference (`replay
    /// --candidate`, reader `candidate@NAME`), each as `candidate` (`overlay_loaded_from` null: each ran in
    /// a child process).
    pub compared_candidates: Vec<serde_json::Value>,
    /// How the text reports name it: `Paimon V`, or `candidate NAME (based on V), not a release`.
    pub label: String,
}

impl PaimonUsed {
    /// What this process runs: [`jvm_bridge::jvm::candidate`], else release
    /// [`jvm_bridge::jvm::paimon_version`]; the compared candidates of [`compare_candidate`].
    pub fn current() -> Self {
        let version = jvm_bridge::jvm::paimon_version();
        let candidate = jvm_bridge::jvm::candidate();
        // Their JVMs are child processes: this process's JVM runs the release, so it cannot say where the
        // candidate's overlay was loaded from.
        let compared = compared_candidates()
            .iter()
            .map(|c| {
                let mut j = c.report_json();
                j["overlay_loaded_from"] = serde_json::Value::Null;
                j
            })
            .collect();
        PaimonUsed {
            label: paimon_label(),
            candidate: candidate.as_ref().map(jvm_bridge::Candidate::report_json),
            compared_candidates: compared,
            version,
        }
    }
}

/// The candidates this process compares with the release as readers ([`compare_candidate`]).
static COMPARED: std::sync::Mutex<Vec<jvm_bridge::Candidate>> = std::sync::Mutex::new(Vec::new());

/// Records that this process compares `candidate` with the release (`replay --candidate`), for
/// [`PaimonUsed::compared_candidates`].
pub fn compare_candidate(candidate: jvm_bridge::Candidate) {
    COMPARED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(candidate);
}

/// The candidates recorded with [`compare_candidate`], in order.
pub fn compared_candidates() -> Vec<jvm_bridge::Candidate> {
    COMPARED.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// `candidate@NAME is candidate NAME (based on V), not a release; the reference is the released Paimon V`
/// for each compared candidate ([`compare_candidate`]), for the text reports of `replay`.
pub fn compared_candidate_lines() -> Vec<String> {
    compared_candidates()
        .iter()
        .map(|c| {
            format!(
                "{}{} is {}; the reference is the released Paimon {}",
                crate::external::stock_at::CANDIDATE_PREFIX,
                c.name,
                c.label(),
                c.based_on
            )
        })
        .collect()
}

/// The Paimon this process runs, in words: `Paimon 1.0.0`, or `candidate NAME (based on 1.0.0), not a
/// release` when the JVM runs a candidate ([`jvm_bridge::jvm::select_candidate`]).
pub fn paimon_label() -> String {
    match jvm_bridge::jvm::candidate() {
        Some(c) => c.label(),
        None => format!("Paimon {}", jvm_bridge::jvm::paimon_version()),
    }
}

/// The envelope around a command's result.
#[derive(Clone, Debug, Serialize)]
pub struct JsonReport<'a> {
    /// Always [`SCHEMA`].
    pub schema: &'static str,
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// `replay`, `audit` or `inspect`.
    pub command: &'static str,
    /// This tool's version (`paimon-parity --version`).
    pub tool_version: &'static str,
    /// The released Paimon version of the stock reader (`--paimon-version`, else
    /// `PAIMON_PARITY_PAIMON_VERSION`, else 1.0.0).
    pub paimon_version: String,
    /// The Paimon this command ran, with the candidate it ran instead of the release, if any, and the
    /// candidates a replay compared with the release (`replay --candidate`): [`PaimonUsed`].
    pub paimon: PaimonUsed,
    /// The release whose rules the native reader planned as (`1.0.0` … `2.0.0`, `native_reader::line`; before
    /// the rules were keyed by release this was a minor line, `1.0.x`); `None` for a version it does not
    /// implement.
    pub paimon_line: Option<String>,
    /// The JDK of the JVM this command started (`java.vm.vendor java.runtime.version`); `None` when it
    /// started none (only native reading or metadata).
    pub jdk: Option<String>,
    /// Every option of the command, defaults included, by its long flag name without dashes.
    pub options: serde_json::Value,
    /// How the command ended.
    pub status: Status,
    /// The process exit status the command ends with.
    pub exit_code: i32,
    /// The error, when `status` is `error`.
    pub error: Option<ReportError>,
    /// `replay`: every run (table x mode x reader) in order, one for a single replay; empty otherwise.
    pub runs: &'a [ReplayRun],
    /// `audit`: the audit; `None` otherwise, or when the audit failed.
    pub audit: Option<&'a AuditReport>,
    /// `inspect`: the timeline; `None` otherwise, or when reading it failed.
    pub timeline: Option<&'a Timeline>,
}

impl ReplayRun {
    /// A run that stopped with an error before it compared anything.
    pub fn of_error(
        table: &std::path::Path,
        mode: crate::replay::ReplayMode,
        reader: &str,
        e: &Error,
    ) -> Self {
        ReplayRun {
            summary: MatrixRun::of_error(table, mode, reader, e),
            report: None,
        }
    }
}

impl<'a> JsonReport<'a> {
    /// An envelope for `command` run with `options`, its status and exit code taken from `outcome`
    /// (`Ok(exit code)` or the error that stopped it; exit 130 is [`Status::Interrupted`]).
    pub fn new(
        command: &'static str,
        options: serde_json::Value,
        outcome: Result<i32, &Error>,
    ) -> Self {
        let paimon_version = jvm_bridge::jvm::paimon_version();
        let paimon_line = native_reader::PaimonRelease::parse(&paimon_version)
            .ok()
            .map(|l| l.to_string());
        let (status, exit_code, error) = match outcome {
            Ok(EXIT_INTERRUPTED) => (Status::Interrupted, EXIT_INTERRUPTED, None),
            Ok(code) => (Status::Complete, code, None),
            Err(e) => (
                Status::Error,
                crate::error::EXIT_UNREADABLE,
                Some(ReportError::of(e)),
            ),
        };
        JsonReport {
            schema: SCHEMA,
            schema_version: SCHEMA_VERSION,
            command,
            tool_version: env!("CARGO_PKG_VERSION"),
            paimon: PaimonUsed::current(),
            paimon_version,
            paimon_line,
            jdk: jvm_bridge::jvm::running_jdk(),
            options,
            status,
            exit_code,
            error,
            runs: &[],
            audit: None,
            timeline: None,
        }
    }
}
