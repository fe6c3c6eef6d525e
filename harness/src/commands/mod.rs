//! What each `paimon-parity` subcommand does with its parsed arguments ([`crate::cli`] is the model).

mod audit;
mod bench;
mod corpus;
mod inspect;
mod replay;
mod report;
mod stock_reader;
mod sweep;
mod upgrade_matrix;

use std::path::PathBuf;

use crate::cli::{Cli, Command};
use crate::error::{Result, EXIT_UNREADABLE};

/// Runs the command and returns the process exit status: the command's own, or
/// [`EXIT_UNREADABLE`] after printing `paimon-parity: error: <error>` to stderr.
pub fn run(cli: Cli) -> i32 {
    match execute(cli) {
        Ok(code) => code,
        // A reader of the output that stopped reading (`paimon-parity corpus list | head -1`): end quietly.
        Err(crate::Error::Io { path, source })
            if source.kind() == std::io::ErrorKind::BrokenPipe && path.as_os_str() == STDOUT =>
        {
            0
        }
        Err(e) => {
            eprintln!("paimon-parity: error: {e}");
            EXIT_UNREADABLE
        }
    }
}

fn execute(cli: Cli) -> Result<i32> {
    match cli.command {
        Command::Replay(args) => replay::run(args),
        Command::Inspect {
            table,
            json,
            html,
            from_snapshot,
            to_snapshot,
            partition,
        } => {
            let filter = crate::inspect::InspectFilter {
                from: from_snapshot,
                to: to_snapshot,
                partition,
            };
            inspect::run(&table, json, html, &filter)
        }
        Command::Audit {
            table,
            reader,
            json,
            html,
            max_keys,
            paimon_version,
        } => audit::run(&table, reader, json, html, max_keys, paimon_version),
        Command::Bench(args) => bench::run(args),
        Command::BenchRss { table } => bench::rss(&table),
        Command::Corpus { command } => corpus::run(command),
        Command::StockReader(args) => stock_reader::run(args),
        Command::UpgradeMatrix(args) => upgrade_matrix::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Report { command } => report::run(command),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut out = std::io::stdout().lock();
            clap_complete::generate(shell, &mut Cli::command(), "paimon-parity", &mut out);
            std::io::Write::flush(&mut out).map_err(stdout_err)?;
            Ok(0)
        }
    }
}

/// How errors name standard output.
const STDOUT: &str = "<stdout>";

/// The error of writing a report to standard output.
fn stdout_err(e: std::io::Error) -> crate::Error {
    crate::Error::Io {
        path: PathBuf::from(STDOUT),
        source: e,
    }
}
