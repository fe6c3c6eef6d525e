//! `paimon-parity replay`: one table and mode (report, first difference, optional JSON), or several
//! (one summary per run, then the table x mode matrix).

use super::stdout_err;
use crate::cli::ModeArg;
use crate::cli::ReplayArgs;
use crate::error::Result;
use crate::reader::{release_line, NativeTableReader, StockTableReader};
use crate::replay::{replay, resolve_table, ReplayOptions};
use crate::report::{write_json, write_matrix, write_run, write_text, MatrixRun};

/// Runs the replays; the exit status is the worst run's.
pub(super) fn run(args: ReplayArgs) -> Result<i32> {
    let ReplayArgs {
        tables,
        from_snapshot,
        json,
        max_mismatches,
        paimon_version,
        unordered,
        mode,
        snapshot,
    } = args;
    if let Some(v) = &paimon_version {
        jvm_bridge::jvm::select_paimon_version(v)?;
    }
    // The same release picks the stock class path and the native line.
    let line = release_line()?;
    let modes = ModeArg::expand(&mode);
    let options = |mode| ReplayOptions {
        from_snapshot,
        max_mismatches,
        progress: true,
        unordered,
        mode,
        snapshot,
    };
    if let ([table], [mode]) = (tables.as_slice(), modes.as_slice()) {
        // Check the table before starting a JVM: a missing directory fails fast.
        resolve_table(table)?;
        let stock = StockTableReader::new()?;
        let native = NativeTableReader::for_line(line);
        let report = replay(table, &stock, &native, &options(*mode))?;
        let mut out = std::io::stdout().lock();
        write_text(&mut out, &report, max_mismatches).map_err(stdout_err)?;
        if let Some(path) = json {
            write_json(&path, &report)?;
        }
        return Ok(report.exit_code());
    }
    for table in &tables {
        resolve_table(table)?;
    }
    let stock = StockTableReader::new()?;
    let native = NativeTableReader::for_line(line);
    let mut runs = Vec::new();
    for table in &tables {
        for mode in &modes {
            let run = match replay(table, &stock, &native, &options(*mode)) {
                Ok(report) => MatrixRun::of_report(table, *mode, report),
                Err(e) => MatrixRun::of_error(table, *mode, &e),
            };
            let mut out = std::io::stdout().lock();
            write_run(&mut out, &run).map_err(stdout_err)?;
            runs.push(run);
        }
    }
    let mut out = std::io::stdout().lock();
    write_matrix(&mut out, &runs).map_err(stdout_err)?;
    if let Some(path) = json {
        write_json(&path, &runs)?;
    }
    Ok(runs
        .iter()
        .map(|r| r.exit_code)
        .max_by_key(|c| crate::error::exit_severity(*c))
        .unwrap_or(0))
}
