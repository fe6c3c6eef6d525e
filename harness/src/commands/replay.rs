//! `paimon-parity replay`: one table, mode and reader (report, first difference, optional JSON), or several
//! (one summary per run, then the table x mode x reader matrix).

use std::io::Write;
use std::time::Duration;

use super::stdout_err;
use crate::cli::ModeArg;
use crate::cli::ReplayArgs;
use crate::error::{Error, Result};
use crate::external::{shipped_readers, stock_at, ExternalReader, ReaderSpec};
use crate::reader::{this_release, NativeTableReader, StockTableReader, TableReader};
use crate::replay::{replay, resolve_table, ReplayMode, ReplayOptions};
use crate::report::{
    check_html_target, check_json_target, replay_page, table_name, text_output, timelines,
    write_html, write_json, write_junit, write_matrix, write_run, write_text_as, JsonReport,
    JunitRun, MatrixRun, ReplayRun, Verbosity,
};

/// The readers `--reader` names, in order: `native`, or external readers from `--reader-command` and
/// `adapters/readers.json` (the flag wins over the shipped file).
///
/// Errors: [`Error::Usage`] for a name neither declares (listing the known ones), a malformed
/// `--reader-command`.
pub(super) fn readers(
    names: &[String],
    reader_commands: &[String],
    reader_timeout: u64,
    reader_plans: bool,
    line: native_reader::PaimonRelease,
) -> Result<Vec<Box<dyn TableReader>>> {
    let mut declared: Vec<ReaderSpec> = reader_commands
        .iter()
        .map(|f| ReaderSpec::parse_flag(f))
        .collect::<Result<_>>()?;
    let needs_shipped = names.iter().any(|r| {
        r != "native"
            && stock_at::release_of(r).is_none()
            && stock_at::candidate_of(r).is_none()
            && !declared.iter().any(|d| &d.name == r)
    });
    if needs_shipped {
        declared.extend(shipped_readers()?);
    }
    let mut out: Vec<Box<dyn TableReader>> = Vec::new();
    for name in names {
        let name = name.trim();
        if name == "native" {
            out.push(Box::new(NativeTableReader::for_release(line)));
            continue;
        }
        // `stock@V`: the released reader of release V, always planning by itself (release V reads only the
        // splits it planned).
        if let (Some(version), false) = (
            stock_at::release_of(name),
            declared.iter().any(|d| d.name == name),
        ) {
            out.push(Box::new(
                ExternalReader::new(stock_at::spec(version)?)
                    .with_timeout(Duration::from_secs(reader_timeout.max(1)))
                    .plans_by_itself(true),
            ));
            continue;
        }
        // `candidate@NAME`: a candidate, answered like `stock@V` by its own JVM; never the reference.
        if let (Some(candidate), false) = (
            stock_at::candidate_of(name),
            declared.iter().any(|d| d.name == name),
        ) {
            out.push(Box::new(
                ExternalReader::new(stock_at::candidate_spec(candidate)?)
                    .with_timeout(Duration::from_secs(reader_timeout.max(1)))
                    .plans_by_itself(true),
            ));
            continue;
        }
        let spec = declared.iter().find(|d| d.name == name).ok_or_else(|| {
            let mut known: Vec<&str> = vec!["native", "stock@<release>", "candidate@<name>"];
            known.extend(declared.iter().map(|d| d.name.as_str()));
            Error::Usage(format!(
                "unknown reader `{name}`; known: {} (or declare one with --reader-command NAME=COMMAND)",
                known.join(", ")
            ))
        })?;
        out.push(Box::new(
            ExternalReader::new(spec.clone())
                .with_timeout(Duration::from_secs(reader_timeout.max(1)))
                .plans_by_itself(reader_plans),
        ));
    }
    Ok(out)
}

/// Runs the replays; the exit status is the worst run's. With `--json` (and `--html`), the report is
/// written however the command ends: complete, stopped by an error (marked `error`, with the runs done
/// before it) or by Ctrl-C (`interrupted`).
pub(super) fn run(args: ReplayArgs) -> Result<i32> {
    // An unwritable report path fails before any work.
    check_json_target(args.json.as_deref())?;
    check_json_target(args.junit.as_deref())?;
    check_html_target(args.html.as_deref())?;
    let options = serde_json::to_value(&args).unwrap_or_default();
    let json = args.json.clone();
    let html = args.html.clone();
    let tables = args.tables.clone();
    let mut runs = Vec::new();
    let outcome = run_replays(args, &mut runs);
    if let Some(path) = &json {
        let mut report = JsonReport::new("replay", options, outcome.as_ref().map(|c| *c));
        report.runs = &runs;
        write_json(path, &report)?;
    }
    // The page shows runs; an error before the first run is on stderr and in the JSON report.
    if let (Some(path), false) = (&html, runs.is_empty()) {
        write_replay_html(path, &runs, &tables)?;
    }
    outcome
}

/// Writes the HTML page of `runs`: each run, and each table's timeline up to the last snapshot its runs
/// replayed (writers may have committed since); a table that cannot be read here has no timeline.
///
/// Errors: [`Error::Io`] naming `path`.
pub(super) fn write_replay_html(
    path: &std::path::Path,
    runs: &[ReplayRun],
    tables: &[std::path::PathBuf],
) -> Result<()> {
    let pairs: Vec<_> = runs
        .iter()
        .map(|r| (&r.summary, r.report.as_ref()))
        .collect();
    let mut shown = timelines(tables);
    for (table, timeline) in &mut shown {
        let end = runs
            .iter()
            .filter(|r| &r.summary.table == table)
            .filter_map(|r| r.report.as_ref().map(|rep| rep.end_snapshot))
            .max();
        if end.is_some() {
            let filter = crate::inspect::InspectFilter {
                to: end,
                ..Default::default()
            };
            *timeline = filter.apply(timeline.clone());
        }
    }
    write_html(path, &replay_page(&pairs, &shown))
}

/// Refuses snapshot arguments that cannot mean what they say, before any JVM starts: `--snapshot` without
/// a batch mode, `--from-snapshot` without a streaming mode, an explicit `--from-snapshot` (streaming
/// modes), `--snapshot` (batch) or `--to-snapshot` outside a table's retained snapshots, and a start or a
/// batch snapshot after the pin. A table without snapshots is left to the replay, which reports it.
///
/// Errors: [`Error::Usage`] naming the option and the snapshots the table has.
fn check_snapshot_arguments(
    tables: &[std::path::PathBuf],
    modes: &[ReplayMode],
    from_snapshot: Option<i64>,
    snapshot: Option<i64>,
    to_snapshot: Option<i64>,
) -> Result<()> {
    let streams = modes
        .iter()
        .any(|m| matches!(m, ReplayMode::Stream | ReplayMode::StreamFull));
    let batch = modes.contains(&ReplayMode::Batch);
    if from_snapshot.is_some() && !streams {
        return Err(Error::Usage(
            "--from-snapshot starts a streaming scan: use it with --mode stream, stream-full (or all)"
                .into(),
        ));
    }
    if snapshot.is_some() && !batch {
        return Err(Error::Usage(
            "--snapshot picks the snapshot of a batch scan: use it with --mode batch (or all)"
                .into(),
        ));
    }
    for table in tables {
        let path = resolve_table(table)?;
        let snapshots = native_reader::snapshot::SnapshotManager::new(&path);
        let (Some(earliest), Some(latest)) = (
            snapshots.earliest_snapshot_id()?,
            snapshots.latest_snapshot_id()?,
        ) else {
            continue;
        };
        let check = |option: &str, id: Option<i64>| match id {
            Some(id) if id < earliest || id > latest => Err(Error::Usage(format!(
                "{option} {id}: {} has snapshots {earliest}..{latest}",
                table.display()
            ))),
            _ => Ok(()),
        };
        if streams {
            check("--from-snapshot", from_snapshot)?;
        }
        if batch {
            check("--snapshot", snapshot)?;
        }
        check("--to-snapshot", to_snapshot)?;
        if let (Some(from), Some(to), true) = (from_snapshot, to_snapshot, streams) {
            if from > to {
                return Err(Error::Usage(format!(
                    "--from-snapshot {from} is after --to-snapshot {to}: the streaming scan would be empty"
                )));
            }
        }
        if let (Some(id), Some(to), true) = (snapshot, to_snapshot, batch) {
            if id > to {
                return Err(Error::Usage(format!(
                    "--snapshot {id} is after --to-snapshot {to}, the snapshot the replay is pinned to"
                )));
            }
        }
    }
    Ok(())
}

/// Starts the released reader's JVM, with a spinner while it starts (a few seconds: the class path of the
/// released Paimon is loaded).
fn start_stock() -> Result<StockTableReader> {
    let _spinner = crate::replay::spinner(Some(format!(
        "starting the JVM with the released Paimon {}",
        jvm_bridge::jvm::paimon_version()
    )));
    StockTableReader::new()
}

/// The replays of [`run`], each pushed to `runs` as it ends.
/// `--all-tables`: each location that is not a table replaced by the tables under it (a warehouse, a
/// database, a folder of tables; [`crate::location::tables_in`]), in name order.
///
/// Errors: the error of [`resolve_table`] for a location that is neither a table nor holds one.
pub(super) fn every_table(locations: &[std::path::PathBuf]) -> Result<Vec<std::path::PathBuf>> {
    let mut out = Vec::new();
    for given in locations {
        let location = crate::location::table_location(given)?;
        let resolved = resolve_table(&location);
        if resolved.is_ok() || crate::bundle::is_bundle(&location) {
            out.push(location);
            continue;
        }
        let tables = crate::location::tables_in(&location);
        if tables.is_empty() {
            return resolved.map(|_| Vec::new());
        }
        eprintln!(
            "{}: {} table(s): {}",
            location.display(),
            tables.len(),
            tables
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        out.extend(tables.into_iter().map(|(_, p)| p));
    }
    Ok(out)
}

fn run_replays(mut args: ReplayArgs, runs: &mut Vec<ReplayRun>) -> Result<i32> {
    if let Some(name) = &args.candidate {
        // The released V stays the reference; the candidate is one more reader, in its own process.
        let candidate = jvm_bridge::Candidate::load(name).map_err(super::usage)?;
        let release = args
            .paimon_version
            .get_or_insert_with(|| candidate.based_on.clone());
        if *release != candidate.based_on {
            return Err(Error::Usage(format!(
                "--candidate {name} is based on Paimon {}, not --paimon-version {release}",
                candidate.based_on
            )));
        }
        let reader = format!("{}{name}", stock_at::CANDIDATE_PREFIX);
        if !args.readers.contains(&reader) {
            args.readers.push(reader);
        }
        eprintln!(
            "reference: the released Paimon {}; compared: {} as the reader {}{name}",
            candidate.based_on,
            candidate.label(),
            stock_at::CANDIDATE_PREFIX
        );
        crate::report::compare_candidate(candidate);
    }
    if let Some(v) = &args.paimon_version {
        jvm_bridge::jvm::select_paimon_version(v)?;
    }
    crate::replay::stop_on_interrupt();
    // The same release picks the stock class path and the native line.
    let line = this_release()?;
    let readers = readers(
        &args.readers,
        &args.reader_commands,
        args.reader_timeout,
        args.reader_plans,
        line,
    )?;
    if args.all_tables {
        args.tables = every_table(&args.tables)?;
    }
    // `--units`: the unit's scans, each with its own pin and shard; its tables in order of first use.
    let unit = args
        .units
        .as_deref()
        .map(super::units::read_unit)
        .transpose()?;
    if let Some(scans) = &unit {
        args.tables = Vec::new();
        for scan in scans {
            if !args.tables.contains(&scan.table) {
                args.tables.push(scan.table.clone());
            }
        }
    }
    // Bundle files are unpacked (and checked) first; their replays compare only the retained splits.
    let opened = args
        .tables
        .iter()
        .map(|t| super::TableArg::open_branch(t, args.branch.as_deref()))
        .collect::<Result<Vec<_>>>()?;
    if args.branch.is_some() {
        args.tables = opened.iter().map(|t| t.path().to_path_buf()).collect();
    }
    // A unit's scans name tables (`paimon-parity units` plans no bundle): a bundle there would match no scan.
    // Metadata system tables (`t$snapshots`, …) are compared whole, not by splits.
    if unit.is_none()
        && !args.tables.is_empty()
        && args
            .tables
            .iter()
            .all(|t| crate::system_tables::metadata_table(t, line).is_some())
    {
        return system_table_replays(&args.tables, line, args.quiet);
    }
    if let (Some(_), Some(bundle)) = (
        &unit,
        args.tables.iter().zip(&opened).find(|(_, t)| t.is_bundle()),
    ) {
        return Err(Error::Usage(format!(
            "--units: {} is an evidence bundle; a unit lists tables (replay a bundle by itself)",
            bundle.0.display()
        )));
    }
    // Unpacked table -> the bundle file it came from: runs and reports name the bundle.
    let bundles: std::collections::HashMap<std::path::PathBuf, std::path::PathBuf> = opened
        .iter()
        .zip(&args.tables)
        .filter(|(t, _)| t.is_bundle())
        .map(|(t, given)| (t.path().to_path_buf(), given.clone()))
        .collect();
    let label = |table: &std::path::PathBuf| bundles.get(table).unwrap_or(table).clone();
    let named = |table: &std::path::PathBuf, mut report: crate::replay::ReplayReport| {
        if let Some(bundle) = bundles.get(table) {
            report.table = bundle.clone();
        }
        report
    };
    let tables: Vec<std::path::PathBuf> = opened.iter().map(|t| t.path().to_path_buf()).collect();
    super::choose_compilation(&tables);
    let ReplayArgs {
        from_snapshot,
        json,
        max_mismatches,
        unordered,
        unordered_memory,
        mode,
        snapshot,
        junit,
        verbose,
        quiet,
        threads,
        memory_budget,
        shard,
        to_snapshot,
        ..
    } = args;
    let threads = threads.map_or_else(crate::replay::default_threads, |t| t as usize);
    let verbosity = if quiet {
        Verbosity::Quiet
    } else if verbose {
        Verbosity::Verbose
    } else {
        Verbosity::Normal
    };
    let mut modes = ModeArg::expand(&mode);
    if let Some(scans) = &unit {
        modes = Vec::new();
        for scan in scans {
            if !modes.contains(&scan.mode) {
                modes.push(scan.mode);
            }
        }
    }
    // A unit carries its pins (the snapshot flags conflict with --units); its runs check them.
    if unit.is_none() {
        check_snapshot_arguments(&tables, &modes, from_snapshot, snapshot, to_snapshot)?;
    }
    // A unit's scan: its own pin and shard (the flags otherwise).
    let scan_of = |table: &std::path::Path, mode: ReplayMode| {
        unit.as_ref().and_then(|scans| {
            scans
                .iter()
                .find(|s| s.table == table && s.mode == mode)
                .map(|s| (s.to_snapshot, Some(s.shard)))
        })
    };
    let options = |table: &std::path::Path, mode| ReplayOptions {
        from_snapshot: from_snapshot.unwrap_or(1),
        max_mismatches,
        progress: true,
        unordered,
        unordered_memory: (unordered_memory as usize).saturating_mul(1 << 20),
        mode,
        snapshot,
        threads,
        budget_bytes: (memory_budget as usize).saturating_mul(1 << 20),
        shard: scan_of(table, mode).map_or(shard, |(_, s)| s),
        to_snapshot: scan_of(table, mode).map_or(to_snapshot, |(pin, _)| pin),
        retained_only: bundles.contains_key(table),
    };
    if let ([table], [mode], [reader], None) = (
        tables.as_slice(),
        modes.as_slice(),
        readers.as_slice(),
        &unit,
    ) {
        // Check the table before starting a JVM: a missing directory fails fast.
        resolve_table(table)?;
        let stock = start_stock()?;
        let report =
            replay(table, &stock, reader.as_ref(), &options(table, *mode)).map(|r| named(table, r));
        let table = &label(table);
        if let Some(path) = &junit {
            let name = table_name(table);
            let run = match &report {
                Ok(r) => JunitRun::of_report(table, name, *mode, r),
                Err(e) => JunitRun::of_error(table, name, *mode, &reader.side().to_string(), e),
            };
            write_junit(path, &[run])?;
        }
        let report = match report {
            Ok(r) => r,
            Err(e) => {
                let reader = reader.side().to_string();
                runs.push(ReplayRun::of_error(table, *mode, &reader, &e));
                return Err(e);
            }
        };
        let mut out = text_output(json.as_deref());
        write_text_as(&mut out, &report, max_mismatches, verbosity).map_err(stdout_err)?;
        let code = report.exit_code();
        runs.push(ReplayRun::of_report(table, *mode, report));
        return Ok(code);
    }
    // A unit's table that cannot be opened is that run's error; the other runs go on.
    if unit.is_none() {
        for table in &tables {
            resolve_table(table)?;
        }
    }
    let stock = start_stock()?;
    let mut junit_runs = Vec::new();
    // Every table x mode x reader, in that order. Runs of readers that can be read from any thread go
    // side by side (up to --threads at once, the splits of each read one after another, no progress bars);
    // an external reader answers one request at a time, so with one the runs go one after another. The
    // output is in run order either way.
    // A unit's scans in its order, else every table x mode.
    let scans: Vec<(&std::path::PathBuf, ReplayMode)> = match &unit {
        Some(unit_scans) => unit_scans
            .iter()
            .filter_map(|s| tables.iter().find(|t| **t == s.table).map(|t| (t, s.mode)))
            .collect(),
        None => tables
            .iter()
            .flat_map(|t| modes.iter().map(move |m| (t, *m)))
            .collect(),
    };
    let jobs: Vec<(&std::path::PathBuf, ReplayMode, &dyn TableReader)> = scans
        .iter()
        .flat_map(|(t, m)| readers.iter().map(move |r| (*t, *m, r.as_ref())))
        .collect();
    let side_by_side = threads > 1 && jobs.len() > 1 && readers.iter().all(|r| !r.reads_in_order());
    let run_options = |table: &std::path::Path, mode| {
        if side_by_side {
            ReplayOptions {
                progress: false,
                threads: 1,
                ..options(table, mode)
            }
        } else {
            options(table, mode)
        }
    };
    let limits = crate::replay::InFlight {
        threads: if side_by_side { threads } else { 1 },
        budget_bytes: usize::MAX,
    };
    let mut failed: Option<Error> = None;
    crate::replay::in_order(
        jobs.len(),
        limits,
        |i| {
            let (table, mode, reader) = jobs[i];
            replay(table, &stock, reader, &run_options(table, mode)).map(|r| named(table, r))
        },
        |_| 0,
        |i, outcome| {
            let (table, mode, reader) = jobs[i];
            let table = &label(table);
            let name = table_name(table);
            let run = match outcome {
                Ok(report) => {
                    junit_runs.push(JunitRun::of_report(table, name, mode, &report));
                    ReplayRun::of_report(table, mode, report)
                }
                Err(e) => {
                    let reader = reader.side().to_string();
                    junit_runs.push(JunitRun::of_error(table, name, mode, &reader, &e));
                    ReplayRun::of_error(table, mode, &reader, &e)
                }
            };
            let mut out = text_output(json.as_deref());
            if let Err(e) = write_run(&mut out, &run.summary) {
                failed = Some(stdout_err(e));
                return false;
            }
            runs.push(run);
            !crate::replay::interrupted()
        },
    );
    if let Some(e) = failed {
        return Err(e);
    }
    let total_runs = jobs.len();
    let stopped = crate::replay::interrupted();
    let mut out = text_output(json.as_deref());
    let summaries: Vec<MatrixRun> = runs.iter().map(|r| r.summary.clone()).collect();
    write_matrix(&mut out, &summaries).map_err(stdout_err)?;
    for line in crate::report::compared_candidate_lines() {
        writeln!(out, "{line}").map_err(stdout_err)?;
    }
    if stopped {
        writeln!(
            out,
            "interrupted: {} of {total_runs} runs done (Ctrl-C)",
            runs.len()
        )
        .map_err(stdout_err)?;
    }
    if let Some(path) = &junit {
        write_junit(path, &junit_runs)?;
    }
    if stopped {
        return Ok(crate::error::EXIT_INTERRUPTED);
    }
    Ok(summaries
        .iter()
        .map(|r| r.exit_code)
        .max_by_key(|c| crate::error::exit_severity(*c))
        .unwrap_or(0))
}

/// `replay` of metadata system tables ([`crate::system_tables`]): each compared whole, its summary line
/// printed; the exit status is the worst (1 for a difference, 3 when both readers returned no row).
///
/// Errors: the first comparison that cannot run (a table or metadata file that cannot be read, the
/// released reader's refusal).
fn system_table_replays(
    tables: &[std::path::PathBuf],
    line: native_reader::PaimonRelease,
    quiet: bool,
) -> Result<i32> {
    let stock = start_stock()?;
    let mut status = 0;
    for table in tables {
        let location = resolve_table(table)?;
        let parity = crate::system_tables::compare(&location, line, &stock)?;
        if !quiet {
            println!(
                "paimon-parity replay {} (system table ${}, Paimon {line})",
                location.display(),
                parity.system_table
            );
        }
        println!("{}", crate::system_tables::summary_line(&parity));
        status = status.max(match parity.verdict() {
            "DIFFERS" => 1,
            "NOTHING-COMPARED" => 3,
            _ => 0,
        });
    }
    // 3 (nothing compared) ranks below 1 (a difference).
    Ok(if status == 3 && tables.len() > 1 {
        3
    } else {
        status
    })
}
