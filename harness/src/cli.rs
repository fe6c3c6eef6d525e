//! Command-line interface of `paimon-parity`.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::error::{Result, EXIT_UNREADABLE};
use crate::reader::{NativeTableReader, StockTableReader};
use crate::replay::{replay, ReplayMode, ReplayOptions};
use crate::report::{write_json, write_matrix, write_run, write_text, MatrixRun};

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
    ///
    /// Several tables and/or modes (`--mode stream,batch`) run one after another in one JVM; each run prints
    /// its summary and first difference, then a table of table x mode -> splits, rows, verdict. The exit
    /// status is the worst run's.
    Replay {
        /// The table directories (each the one holding `schema/`, `snapshot/`, `manifest/`).
        #[arg(required = true, num_args = 1..)]
        tables: Vec<PathBuf>,
        /// First snapshot of the streaming scan (`scan.snapshot-id` of `--mode stream|stream-full`).
        #[arg(long, default_value_t = 1)]
        from_snapshot: i64,
        /// The scans to replay, comma-separated: `stream` (`scan.mode=from-snapshot`), `stream-full`
        /// (`from-snapshot-full`), `latest-full`, `batch` (`newScan().plan()`), or `all` (the four).
        #[arg(long, value_delimiter = ',', default_value = "stream")]
        mode: Vec<ModeArg>,
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
        /// MiB of decoded batches `native-par` may buffer ahead of the consumer over all splits in
        /// flight (default: the native reader's `ReadOptions::buffer_bytes`, 64 MiB).
        #[arg(long)]
        buffer_mib: Option<usize>,
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

/// A `--mode` value of `replay`: one scan, or `all` of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// `scan.mode=from-snapshot` from `--from-snapshot`.
    Stream,
    /// `scan.mode=from-snapshot-full` from `--from-snapshot`.
    StreamFull,
    /// `scan.mode=latest-full`.
    LatestFull,
    /// A batch plan of the latest snapshot, or of `--snapshot`.
    Batch,
    /// The four scans above, in that order.
    All,
}

impl ModeArg {
    /// The replay modes the arguments name, in order, each once.
    pub fn expand(args: &[ModeArg]) -> Vec<ReplayMode> {
        let mut modes = Vec::new();
        for a in args {
            let these: &[ReplayMode] = match a {
                ModeArg::Stream => &[ReplayMode::Stream],
                ModeArg::StreamFull => &[ReplayMode::StreamFull],
                ModeArg::LatestFull => &[ReplayMode::LatestFull],
                ModeArg::Batch => &[ReplayMode::Batch],
                ModeArg::All => &[
                    ReplayMode::Stream,
                    ReplayMode::StreamFull,
                    ReplayMode::LatestFull,
                    ReplayMode::Batch,
                ],
            };
            for m in these {
                if !modes.contains(m) {
                    modes.push(*m);
                }
            }
        }
        modes
    }
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
            tables,
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
            let modes = ModeArg::expand(&mode);
            let options = |mode| ReplayOptions {
                from_snapshot,
                max_mismatches,
                progress: true,
                unordered,
                mode,
                snapshot,
            };
            let stdout_err = |e| crate::Error::Io {
                path: PathBuf::from("<stdout>"),
                source: e,
            };
            if let ([table], [mode]) = (tables.as_slice(), modes.as_slice()) {
                // Check the table before starting a JVM: a missing directory fails fast.
                crate::replay::resolve_table(table)?;
                let stock = StockTableReader::new()?;
                let native = NativeTableReader::new();
                let report = replay(table, &stock, &native, &options(*mode))?;
                let mut out = std::io::stdout().lock();
                write_text(&mut out, &report, max_mismatches).map_err(stdout_err)?;
                if let Some(path) = json {
                    write_json(&path, &report)?;
                }
                return Ok(report.exit_code());
            }
            for table in &tables {
                crate::replay::resolve_table(table)?;
            }
            let stock = StockTableReader::new()?;
            let native = NativeTableReader::new();
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
            Ok(runs.iter().map(|r| r.exit_code).max().unwrap_or(0))
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
            buffer_mib,
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
            if let Some(m) = buffer_mib {
                opts.buffer_bytes = m << 20;
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
