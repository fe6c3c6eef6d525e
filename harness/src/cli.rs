//! Command-line interface of `paimon-parity`.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::error::{Result, EXIT_UNREADABLE};
use crate::reader::{NativeTableReader, StockTableReader};
use crate::replay::{replay, ReplayOptions};
use crate::report::{write_json, write_text};

/// Proves a native reader of Apache Paimon tables returns exactly what the released Java reader returns.
#[derive(Parser, Debug)]
#[command(name = "paimon-parity", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Replay a table from a snapshot through the released Java reader and the native reader, split by
    /// split and row by row. Exit 0 when identical, 1 when they differ, 2 when a side cannot read the table.
    Replay {
        /// The table directory (the one holding `schema/`, `snapshot/`, `manifest/`).
        table: PathBuf,
        /// First snapshot of the streaming scan (`scan.mode=from-snapshot`, `scan.snapshot-id`).
        #[arg(long, default_value_t = 1)]
        from_snapshot: i64,
        /// Also write the report as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Describe at most this many mismatching splits in detail.
        #[arg(long, default_value_t = 10)]
        max_mismatches: usize,
    },
    /// Print the snapshot timeline of a table: commit kind, user, identifier, time, record counts, files
    /// added and deleted per level and bucket, changelog; APPEND and COMPACT halves of a commit together.
    Inspect {
        /// The table directory.
        table: PathBuf,
        /// Also write the timeline as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Find commits whose changelog was lost (APPEND durable, COMPACT never) and prove it from the data.
    /// Exit 0 when the changelog is complete, 1 when changelog was lost, 2 when the table cannot be read.
    Audit {
        /// The table directory.
        table: PathBuf,
        /// Which reader replays the changelog and reads the table: native, stock, or both (cross-check).
        #[arg(long, default_value = "native")]
        reader: String,
        /// Also write the audit as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        /// List at most this many missing keys.
        #[arg(long, default_value_t = 20)]
        max_keys: usize,
    },
    /// Write test corpora with the released Paimon writer.
    Corpus {
        #[command(subcommand)]
        command: CorpusCommand,
    },
}

/// `paimon-parity corpus ...`.
#[derive(Subcommand, Debug)]
pub enum CorpusCommand {
    /// Write a built-in scenario into `<out>/table` and record `<out>/case.json`.
    Generate {
        /// Scenario name (`paimon-parity corpus list`).
        scenario: String,
        /// Corpus directory to create.
        #[arg(long)]
        out: PathBuf,
    },
    /// List the built-in scenarios.
    List,
}

/// Runs the command and returns the process exit status.
pub fn run(cli: Cli) -> i32 {
    match execute(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("paimon-parity: error: {e}");
            EXIT_UNREADABLE
        }
    }
}

fn execute(cli: Cli) -> Result<i32> {
    match cli.command {
        Command::Replay {
            table,
            from_snapshot,
            json,
            max_mismatches,
        } => {
            let options = ReplayOptions {
                from_snapshot,
                max_mismatches,
                progress: true,
            };
            // Check the table before starting a JVM: a missing directory fails fast.
            crate::replay::resolve_table(&table)?;
            let stock = StockTableReader::new()?;
            let native = NativeTableReader::new();
            let report = replay(&table, &stock, &native, &options)?;
            let mut out = std::io::stdout().lock();
            write_text(&mut out, &report, max_mismatches).map_err(|e| crate::Error::Io {
                path: PathBuf::from("<stdout>"),
                source: e,
            })?;
            if let Some(path) = json {
                write_json(&path, &report)?;
            }
            Ok(report.exit_code())
        }
        Command::Inspect { table, json } => {
            let timeline = crate::inspect::inspect(&table)?;
            let mut out = std::io::stdout().lock();
            crate::inspect::write_text(&mut out, &timeline).map_err(|e| crate::Error::Io {
                path: PathBuf::from("<stdout>"),
                source: e,
            })?;
            if let Some(path) = json {
                write_json(&path, &timeline)?;
            }
            Ok(0)
        }
        Command::Audit {
            table,
            reader,
            json,
            max_keys,
        } => {
            let report = crate::audit::run(&table, &reader)?;
            let mut out = std::io::stdout().lock();
            crate::audit::write_text(&mut out, &report, max_keys).map_err(|e| crate::Error::Io {
                path: PathBuf::from("<stdout>"),
                source: e,
            })?;
            if let Some(path) = json {
                write_json(&path, &report)?;
            }
            Ok(report.exit_code())
        }
        Command::Corpus { command } => match command {
            CorpusCommand::List => {
                for name in crate::corpus::scenario_names() {
                    let s = crate::corpus::scenario(name)?;
                    println!("{name}: {}", s.description);
                }
                Ok(0)
            }
            CorpusCommand::Generate { scenario, out } => {
                let case = crate::corpus::generate(&scenario, &out)?;
                println!("wrote {}", case.display());
                Ok(0)
            }
        },
    }
}
