//! Command-line interface of `paimon-parity`.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::error::{Result, EXIT_UNREADABLE};
use crate::reader::{NativeTableReader, StockTableReader};
use crate::replay::{replay, ReplayMode, ReplayOptions};
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
        /// First snapshot of the streaming scan (`scan.snapshot-id` of `--mode stream|stream-full`).
        #[arg(long, default_value_t = 1)]
        from_snapshot: i64,
        /// The scan to replay: `stream` (`scan.mode=from-snapshot`), `stream-full`
        /// (`from-snapshot-full`), `latest-full`, or `batch` (`newScan().plan()`).
        #[arg(long, value_enum, default_value_t = ReplayMode::Stream)]
        mode: ReplayMode,
        /// With `--mode batch`: read this snapshot (`scan.snapshot-id`) instead of the latest.
        #[arg(long)]
        snapshot: Option<i64>,
        /// Also write the report as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Describe at most this many mismatching splits in detail.
        #[arg(long, default_value_t = 10)]
        max_mismatches: usize,
        /// Compare the rows of each split as a multiset (any order), for readers whose row order within a
        /// merge split may legitimately differ; reports the rows only one side has.
        #[arg(long)]
        unordered: bool,
        /// Released Paimon version of the stock reader (its build in `jvm-bridge/java/target/paimon-<V>`);
        /// default 1.0.0, or `PAIMON_PARITY_PAIMON_VERSION`.
        #[arg(long)]
        paimon_version: Option<String>,
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
    /// Decode throughput on the same splits: native (1 thread and parallel), the released reader with and
    /// without Arrow export, plain parquet-rs / orc-rust decoding of the same files, paimon-rust when its
    /// probe is built; per split kind (changelog, raw batch, merge-on-read batch), with every sample.
    Bench {
        /// The table directory.
        table: PathBuf,
        /// Write the report as JSON here (default `benches/results/<UTC timestamp>.json`).
        #[arg(long)]
        json: Option<PathBuf>,
        /// Timed samples per measurement (after one warm-up run).
        #[arg(long, default_value_t = 5)]
        samples: usize,
        /// Threads of the parallel native run (default: available cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Native reader and plain decoding only (no JVM).
        #[arg(long)]
        native_only: bool,
        /// Skip the peak-RSS child run.
        #[arg(long)]
        no_rss: bool,
    },
    /// Internal to `bench`: a native-only replay that prints its peak resident memory as JSON.
    #[command(hide = true)]
    BenchRss {
        /// The table directory.
        table: PathBuf,
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
    /// Run a scenario with the released writer into `<out>/table` and record `<out>/scenario.json` and
    /// `<out>/case.json`.
    Generate {
        /// Scenario file, directory holding `scenario.json`, or corpus name (`corpora/<name>/scenario.json`).
        scenario: String,
        /// Corpus directory to create.
        #[arg(long)]
        out: PathBuf,
        /// Released Paimon version that writes it (its build in `jvm-bridge/java/target/paimon-<V>`);
        /// default 1.0.0, or `PAIMON_PARITY_PAIMON_VERSION`.
        #[arg(long)]
        paimon_version: Option<String>,
    },
    /// List the committed scenarios (`corpora/*/scenario.json`).
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
            paimon_version,
            unordered,
            mode,
            snapshot,
        } => {
            if let Some(v) = &paimon_version {
                jvm_bridge::jvm::select_paimon_version(v)?;
            }
            let options = ReplayOptions {
                from_snapshot,
                max_mismatches,
                progress: true,
                unordered,
                mode,
                snapshot,
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
            crate::audit::write_text(&mut out, &report, max_keys).map_err(|e| {
                crate::Error::Io {
                    path: PathBuf::from("<stdout>"),
                    source: e,
                }
            })?;
            if let Some(path) = json {
                write_json(&path, &report)?;
            }
            Ok(report.exit_code())
        }
        Command::Bench {
            table,
            json,
            samples,
            threads,
            native_only,
            no_rss,
        } => {
            crate::replay::resolve_table(&table)?;
            let mut opts = crate::bench::BenchOptions {
                samples,
                native_only,
                measure_rss: !no_rss,
                ..Default::default()
            };
            if let Some(t) = threads {
                opts.threads = t;
            }
            let report = crate::bench::run(&table, &opts)?;
            let mut out = std::io::stdout().lock();
            crate::bench::write_text(&mut out, &report).map_err(|e| crate::Error::Io {
                path: PathBuf::from("<stdout>"),
                source: e,
            })?;
            let path = json.unwrap_or_else(crate::bench::default_json_path);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| crate::Error::Io {
                    path: dir.to_path_buf(),
                    source: e,
                })?;
            }
            write_json(&path, &report)?;
            println!("wrote {}", path.display());
            Ok(0)
        }
        Command::BenchRss { table } => {
            let v = crate::bench::native_replay_rss(&table)?;
            println!("{v}");
            Ok(0)
        }
        Command::Corpus { command } => match command {
            CorpusCommand::List => {
                for file in crate::corpus::scenario_files(&crate::corpus::corpora_dir())? {
                    let s = crate::corpus::load_scenario(&file)?;
                    println!("{}: {}", s.name, s.description);
                }
                Ok(0)
            }
            CorpusCommand::Generate {
                scenario,
                out,
                paimon_version,
            } => {
                if let Some(v) = &paimon_version {
                    jvm_bridge::jvm::select_paimon_version(v)?;
                }
                let file = crate::corpus::resolve_scenario(&scenario)?;
                let case = crate::corpus::generate(&file, &out)?;
                println!("wrote {}", case.display());
                Ok(0)
            }
        },
    }
}
