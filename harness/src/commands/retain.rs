//! `paimon-parity retain`: writes the evidence bundle of a table (`crate::bundle`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde::Serialize;
use serde_json::Value;

use super::stdout_err;
use crate::bundle::manifest::finding_of_report;
use crate::bundle::pack::{list_table, TableFile};
use crate::bundle::select::{needed, Needed};
use crate::bundle::{
    pack, BundleFile, FileKind, Files, Finding, LeftOut, Manifest, PackStats, RetainOptions,
    BUNDLE_VERSION, SCHEMA,
};
use crate::cli::{ModeArg, RetainArgs};
use crate::error::{Error, Result};
use crate::report::{check_json_target, text_output, write_json, JsonReport};

/// The JSON report of `retain` and `reproduce`: the common envelope and the bundle.
#[derive(Serialize)]
struct BundleJson<'a, T: Serialize> {
    /// The envelope (`command`: `retain` or `reproduce`).
    #[serde(flatten)]
    pub envelope: JsonReport<'a>,
    /// What the command did with the bundle; `None` when an error came first.
    pub bundle: Option<&'a T>,
}

/// Writes the JSON report of `command` (`retain` or `reproduce`) run with `options` to `path`: the envelope,
/// its exit status `code` of the result (or the error), the JDK `jdk` names, and the result as `bundle`.
///
/// Errors: [`Error::Io`] naming `path`.
pub(super) fn write_bundle_json<T: Serialize>(
    path: &Path,
    command: &'static str,
    options: Value,
    outcome: &Result<T>,
    code: impl Fn(&T) -> i32,
    jdk: impl Fn(&T) -> Option<String>,
) -> Result<()> {
    let mut envelope = JsonReport::new(command, options, outcome.as_ref().map(code));
    if let Ok(r) = outcome {
        envelope.jdk = jdk(r);
    }
    write_json(
        path,
        &BundleJson {
            envelope,
            bundle: outcome.as_ref().ok(),
        },
    )
}

/// What `retain` wrote (the JSON report's `bundle`).
#[derive(Serialize)]
pub(super) struct Retained {
    /// The bundle file.
    path: PathBuf,
    /// The manifest written as its first entry.
    manifest: Manifest,
    /// Writing it: files, bytes, bundle size, threads, wall time.
    pack: PackStats,
    /// Bytes of every file of the table.
    table_bytes: u64,
    /// The bundle's size as a share of the table's bytes, in percent.
    bundle_percent_of_table: f64,
    /// Why a selection was wider than asked, in words.
    notes: Vec<String>,
}

/// Writes the bundle; exit 0 when written.
pub(super) fn run(args: RetainArgs) -> Result<i32> {
    check_json_target(args.json.as_deref())?;
    if let Some(v) = &args.paimon_version {
        jvm_bridge::jvm::select_paimon_version(v)?;
    }
    let options = serde_json::to_value(&args).unwrap_or_default();
    let outcome = retain(&args);
    if let Some(path) = &args.json {
        write_bundle_json(
            path,
            "retain",
            options,
            &outcome,
            |_| 0,
            |r| r.manifest.jdk.clone(),
        )?;
    }
    let r = outcome?;
    let mut out = text_output(args.json.as_deref());
    let m = &r.manifest;
    let mb = |b: u64| b as f64 / 1e6;
    writeln!(
        out,
        "RETAINED: {} ({} bytes, {:.1}% of the table's {} bytes): {} files ({} metadata, {} data; {:.3} MB), {} data files left out ({:.3} MB), {:.2} s on {} zstd threads",
        r.path.display(),
        r.pack.bundle_bytes,
        r.bundle_percent_of_table,
        r.table_bytes,
        m.files.len(),
        m.files.iter().filter(|f| f.kind == FileKind::Metadata).count(),
        m.files.iter().filter(|f| f.kind == FileKind::Data).count(),
        mb(m.retained_bytes),
        m.left_out.len(),
        mb(m.left_out_bytes),
        r.pack.wall_time_ms as f64 / 1000.0,
        r.pack.threads,
    )
    .map_err(stdout_err)?;
    match &m.finding {
        Some(f) => {
            writeln!(
                out,
                "finding: {} -> {} (exit {})",
                f.command_line,
                f.verdict.to_uppercase(),
                f.exit_code
            )
            .map_err(stdout_err)?;
            if let Some(d) = &f.first_difference {
                writeln!(out, "first difference: {d}").map_err(stdout_err)?;
            }
        }
        None => writeln!(out, "finding: none recorded").map_err(stdout_err)?,
    }
    for n in &r.notes {
        writeln!(out, "note: {n}").map_err(stdout_err)?;
    }
    Ok(0)
}

/// The work of [`run`].
fn retain(args: &RetainArgs) -> Result<Retained> {
    let table = crate::replay::resolve_table(&args.table)?;
    refuse_out_inside(&table, &args.out)?;
    let release = crate::reader::this_release()?;
    // The reports: the one given, or the replay's and the audit's, each in its own process.
    let reports: Vec<Value> = match &args.report {
        Some(path) => vec![read_finding_report(path)?],
        None => run_finders(args, &table)?,
    };
    let findings: Vec<Finding> = reports.iter().filter_map(finding_of_report).collect();
    // Reports that stopped before any run or audit (an error, a usage error) record nothing to retain.
    if findings.is_empty() {
        let why: Vec<String> = reports
            .iter()
            .map(|r| {
                format!(
                    "the {} stopped: {}",
                    r["command"].as_str().unwrap_or("?"),
                    r["error"]["message"]
                        .as_str()
                        .unwrap_or("no run or audit in its report")
                )
            })
            .collect();
        return Err(Error::Report {
            path: args.report.clone().unwrap_or_else(|| table.clone()),
            reason: format!(
                "no finding to retain ({}): no bundle written",
                why.join("; ")
            ),
            source: None,
        });
    }
    // The finding: the first report's that found something (a difference, a problem, lost changelog), else
    // the first one's.
    let finding = findings
        .iter()
        .find(|f| f.exit_code == 1 || f.exit_code == 2)
        .or(findings.first())
        .cloned();
    let jdk = reports
        .iter()
        .find_map(|r| r["jdk"].as_str().map(str::to_owned));
    // Every report names its release (checked as it was read): never assumed.
    let paimon_version = reports
        .iter()
        .find_map(|r| r["paimon_version"].as_str().map(str::to_owned))
        .ok_or_else(|| {
            Error::Usage("no report names the Paimon release the finding was found with".into())
        })?;

    let files = list_table(&table)?;
    let table_bytes: u64 = files.iter().map(|f| f.size).sum();
    let selection: Option<Needed> = match args.files {
        Files::Findings => Some(needed(&table, &reports, release)?),
        _ => None,
    };
    let keep = |f: &TableFile| match (f.kind, args.files, &selection) {
        (FileKind::Metadata, _, _) => true,
        (_, Files::All, _) => true,
        (_, Files::None, _) => false,
        (_, Files::Findings, Some(n)) => n.contains(&f.relative),
        (_, Files::Findings, None) => false,
    };
    let (kept, left): (Vec<&TableFile>, Vec<&TableFile>) = files.iter().partition(|f| keep(f));
    let reason = match args.files {
        Files::None => "--files none",
        _ => "no finding needs it",
    };
    let paimon_line = native_reader::PaimonRelease::parse(&paimon_version)
        .ok()
        .map(|l| l.to_string());
    let mut manifest = Manifest {
        schema: SCHEMA.into(),
        bundle_version: BUNDLE_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        paimon_version,
        paimon_line,
        jdk,
        created: chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        table: args.table.display().to_string(),
        options: RetainOptions {
            from_snapshot: args.from_snapshot,
            mode: ModeArg::expand(&args.mode)
                .iter()
                .map(|m| m.name().to_owned())
                .collect(),
            paimon_version: args.paimon_version.clone(),
            files: args.files,
            report: args.report.as_ref().map(|p| p.display().to_string()),
        },
        finding,
        retained_bytes: kept.iter().map(|f| f.size).sum(),
        left_out_bytes: left.iter().map(|f| f.size).sum(),
        files: kept
            .iter()
            .map(|f| BundleFile {
                path: f.relative.clone(),
                kind: f.kind,
                size: f.size,
                sha256: String::new(),
            })
            .collect(),
        left_out: left
            .iter()
            .map(|f| LeftOut {
                path: f.relative.clone(),
                kind: f.kind,
                size: f.size,
                reason: reason.into(),
            })
            .collect(),
        notes: selection
            .as_ref()
            .map(|s| s.notes.clone())
            .unwrap_or_default(),
    };
    let sources: Vec<TableFile> = kept.iter().map(|f| (*f).clone()).collect();
    let stats = pack(&args.out, &mut manifest, &sources)?;
    Ok(Retained {
        path: args.out.clone(),
        bundle_percent_of_table: if table_bytes == 0 {
            0.0
        } else {
            stats.bundle_bytes as f64 * 100.0 / table_bytes as f64
        },
        table_bytes,
        pack: stats,
        notes: manifest.notes.clone(),
        manifest,
    })
}

/// The JSON report `retain --report` takes the finding from, checked to be one it can use: a
/// `paimon-parity-report` of `replay` or `audit` that names its release (`paimon_version`).
///
/// Errors: [`Error::Report`] naming the file and what is wrong (cannot be read, not JSON, another schema or
/// command, no release named).
fn read_finding_report(path: &Path) -> Result<Value> {
    let refused = |reason: String, source: Option<crate::error::BoxError>| Error::Report {
        path: path.to_path_buf(),
        reason,
        source,
    };
    let text = std::fs::read(path)
        .map_err(|e| refused("cannot read the report".into(), Some(e.into())))?;
    let v: Value = serde_json::from_slice(&text)
        .map_err(|e| refused("not a paimon-parity JSON report".into(), Some(e.into())))?;
    if v["schema"] != crate::report::SCHEMA {
        return Err(refused(
            format!("is not a {} JSON report", crate::report::SCHEMA),
            None,
        ));
    }
    match v["command"].as_str() {
        Some("replay" | "audit") => {}
        other => {
            return Err(refused(
                format!(
                    "is the report of `{}`, not of `replay` or `audit`: it records no finding",
                    other.unwrap_or("?")
                ),
                None,
            ))
        }
    }
    if !v["paimon_version"].is_string() {
        return Err(refused(
            "names no Paimon release (`paimon_version`): the release the finding was found with cannot be \
             told, and is not assumed"
                .into(),
            None,
        ));
    }
    Ok(v)
}

/// Refuses a bundle path inside the table directory (the harness never writes into the table it reads). A
/// table in a store cannot hold a local bundle path.
fn refuse_out_inside(table: &Path, out: &Path) -> Result<()> {
    if crate::location::is_store(table) {
        return Ok(());
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let parent = std::fs::canonicalize(&parent).map_err(|e| Error::Io {
        path: out.to_path_buf(),
        source: e,
    })?;
    if parent.starts_with(table) {
        return Err(Error::Usage(format!(
            "--out {}: the bundle would be written inside the table it retains; write it elsewhere",
            out.display()
        )));
    }
    Ok(())
}

/// Runs the replay and the audit of `table` as `retain` was asked, each as its own `paimon-parity` process
/// (one released Paimon per process), and returns their JSON reports.
///
/// Errors: [`Error::Report`] naming the report file a child did not write (or wrote unreadable), the child's
/// command line and exit status; [`Error::Io`] when a child cannot be started.
fn run_finders(args: &RetainArgs, table: &Path) -> Result<Vec<Value>> {
    let dir = tempfile::tempdir().map_err(|e| Error::Io {
        path: std::env::temp_dir(),
        source: e,
    })?;
    let modes: Vec<String> = ModeArg::expand(&args.mode)
        .iter()
        .map(|m| m.name().to_owned())
        .collect();
    let mut replay: Vec<String> = vec![
        "replay".into(),
        table.display().to_string(),
        "--mode".into(),
        modes.join(","),
        "-q".into(),
    ];
    if let Some(n) = args.from_snapshot {
        replay.extend(["--from-snapshot".into(), n.to_string()]);
    }
    let mut audit: Vec<String> = vec!["audit".into(), table.display().to_string()];
    let version = jvm_bridge::jvm::paimon_version();
    for a in [&mut replay, &mut audit] {
        a.extend(["--paimon-version".into(), version.clone()]);
    }
    // The children read a store with this run's options: handed over in a file only this user can read, never
    // on a command line (which `ps` shows and the reports record). A local table needs none.
    let options = native_reader::fileio::configured();
    if crate::location::is_store(table) && !options.is_empty() {
        let file = dir.path().join("file-io-options");
        crate::store_options::write_private(&file, &options)?;
        for a in [&mut replay, &mut audit] {
            a.extend(["--options-file".into(), file.display().to_string()]);
        }
    }
    let mut reports = Vec::new();
    for (name, mut command) in [("replay", replay), ("audit", audit)] {
        let json = dir.path().join(format!("{name}.json"));
        command.extend(["--json".into(), json.display().to_string()]);
        let line = format!("paimon-parity {}", command.join(" "));
        eprintln!("retain: {line}");
        let status = child(&command)?;
        // A child that wrote no report leaves the finding unknown: no bundle is written.
        let missing = |what: &str, source: crate::error::BoxError| {
            Error::Report {
            path: json.clone(),
            reason: format!(
                "the {name} run by retain (`{line}`, {}) wrote no report{what}: no finding to retain, no \
                 bundle written",
                status_words(status)
            ),
            source: Some(source),
        }
        };
        let text = std::fs::read(&json).map_err(|e| missing("", e.into()))?;
        if text.is_empty() {
            return Err(missing(" (the file is empty)", "0 bytes".into()));
        }
        let v = serde_json::from_slice::<Value>(&text)
            .map_err(|e| missing(" (the file is not JSON)", e.into()))?;
        reports.push(v);
    }
    Ok(reports)
}

/// `exit N`, or `killed by signal N`, for people.
pub(super) fn status_words(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => "no exit status".to_owned(),
    }
}

/// Runs this executable with `args`, its output on standard error; returns its exit status.
///
/// Errors: [`Error::Io`] when it cannot be started.
pub(super) fn child(args: &[String]) -> Result<std::process::ExitStatus> {
    let exe = std::env::current_exe().map_err(|e| Error::Io {
        path: PathBuf::from("paimon-parity"),
        source: e,
    })?;
    let status = std::process::Command::new(&exe)
        .args(args)
        .stdout(Stdio::from(std::io::stderr()))
        .stderr(Stdio::inherit())
        .status()
        .map_err(|e| Error::Io {
            path: exe.clone(),
            source: e,
        })?;
    Ok(status)
}
