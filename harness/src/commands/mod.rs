//! What each `paimon-parity` subcommand does with its parsed arguments ([`crate::cli`] is the model).

mod audit;
mod bench;
mod corpus;
mod inspect;
mod replay;
mod report;
mod reproduce;
mod retain;
mod sql;
mod stock_reader;
mod sweep;
mod sweep_compare;
mod units;
mod upgrade_matrix;

use std::path::{Path, PathBuf};

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
        // Any other error, a damaged or unreadable bundle included: exit 2, the message naming what is wrong.
        Err(e) => {
            eprintln!("paimon-parity: error: {e}");
            EXIT_UNREADABLE
        }
    }
}

fn execute(cli: Cli) -> Result<i32> {
    let options =
        crate::store_options::from_args(&cli.store.options, cli.store.options_file.as_deref())?;
    native_reader::fileio::configure(&options);
    jvm_bridge::stock::set_file_io_options(options.as_map());
    match cli.command {
        Command::Replay(args) => replay::run(args),
        Command::Inspect {
            table,
            json,
            html,
            from_snapshot,
            to_snapshot,
            partition,
            branch,
        } => {
            let filter = crate::inspect::InspectFilter {
                from: from_snapshot,
                to: to_snapshot,
                partition,
            };
            let table = TableArg::open_branch(&table, branch.as_deref())?;
            inspect::run(table.path(), json, html, &filter)
        }
        Command::Audit {
            table,
            branch,
            reader,
            json,
            html,
            max_keys,
            paimon_version,
            candidate,
            to_snapshot,
        } => {
            let table = TableArg::open_branch(&table, branch.as_deref())?;
            audit::run(
                table.path(),
                table.is_bundle(),
                reader,
                json,
                html,
                max_keys,
                paimon_version,
                candidate,
                to_snapshot,
            )
        }
        Command::Retain(args) => retain::run(args),
        Command::Reproduce(args) => reproduce::run(args),
        Command::Bench(args) => bench::run(args),
        Command::BenchRss { table } => bench::rss(&table),
        Command::Corpus { command } => corpus::run(command),
        Command::StockReader(args) => stock_reader::run(args),
        Command::UpgradeMatrix(args) => upgrade_matrix::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Report { command } => report::run(command),
        Command::Units(args) => units::run(args),
        Command::Sql(args) => sql::run(args),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut out = std::io::stdout().lock();
            clap_complete::generate(shell, &mut Cli::command(), "paimon-parity", &mut out);
            std::io::Write::flush(&mut out).map_err(stdout_err)?;
            Ok(0)
        }
    }
}

/// Selects candidate `name` for this process's JVM (`--candidate`; [`jvm_bridge::jvm::select_candidate`]),
/// checking that `--paimon-version`, when given, is the release it is based on. Prints on stderr what runs:
/// `running candidate NAME (based on V), not a release: N patches, M overlay classes`.
///
/// Errors: [`crate::Error::Usage`] for a candidate that is not built (naming the built ones and the build
/// command) or based on another release than `paimon_version`.
fn select_candidate(name: &str, paimon_version: Option<&str>) -> Result<jvm_bridge::Candidate> {
    let candidate = jvm_bridge::Candidate::load(name).map_err(usage)?;
    if let Some(v) = paimon_version.filter(|v| *v != candidate.based_on) {
        return Err(crate::Error::Usage(format!(
            "--candidate {name} is based on Paimon {}, not --paimon-version {v}",
            candidate.based_on
        )));
    }
    let candidate = jvm_bridge::jvm::select_candidate(name).map_err(usage)?;
    eprintln!(
        "running {}: {} patch(es), {} overlay class(es), {} jar(s)",
        candidate.label(),
        candidate.patches.len(),
        candidate.classes.len(),
        candidate.jars.len()
    );
    Ok(candidate)
}

/// A candidate that cannot be used is a usage error (exit 2, the message naming the built ones).
pub(super) fn usage(e: jvm_bridge::Error) -> crate::Error {
    match e {
        jvm_bridge::Error::Candidate(m) => crate::Error::Usage(m),
        other => crate::Error::Stock(other),
    }
}

/// A table argument: a table directory as given, or a bundle file (`paimon-parity retain`) unpacked into a
/// temporary directory, removed when this is dropped.
pub(crate) struct TableArg {
    path: PathBuf,
    bundle: Option<crate::bundle::Unpacked>,
}

impl TableArg {
    /// `path` as given when it is a directory (a `file:///…` URI as its local path); a bundle file unpacked
    /// and checked (a line on stderr says what it holds).
    ///
    /// Errors: [`crate::Error::Bundle`] for a damaged bundle; [`crate::Error::Table`] for a store URI or a
    /// `file:` URI of another host ([`crate::location::table_location`]).
    pub(crate) fn open(path: &Path) -> Result<Self> {
        let path = &crate::location::table_location(path)?;
        if crate::location::is_store(path) || !crate::bundle::is_bundle(path) {
            return Ok(TableArg {
                path: path.to_path_buf(),
                bundle: None,
            });
        }
        let unpacked = crate::bundle::unpack(path)?;
        eprintln!("{}", unpacked.describe());
        Ok(TableArg {
            path: unpacked.table(),
            bundle: Some(unpacked),
        })
    }

    /// [`TableArg::open`], naming branch `branch` of the table when given (`--branch`): the location gets
    /// [`crate::location::BRANCH_SUFFIX`] and the name.
    ///
    /// Errors: as [`TableArg::open`]; [`crate::Error::Usage`] for a bundle file or a location that names a
    /// branch already.
    pub(crate) fn open_branch(path: &Path, branch: Option<&str>) -> Result<Self> {
        let Some(branch) = branch else {
            return Self::open(path);
        };
        if crate::location::split_branch(path).1.is_some() {
            return Err(crate::Error::Usage(format!(
                "--branch {branch}: {} names a branch already",
                path.display()
            )));
        }
        let arg = Self::open(path)?;
        if arg.is_bundle() {
            return Err(crate::Error::Usage(format!(
                "--branch {branch}: {} is an evidence bundle, which holds one branch's files",
                path.display()
            )));
        }
        // `t$row_tracking` with `--branch b1` is `t$branch_b1$row_tracking`.
        let (table, system) = crate::location::split_system(&arg.path);
        let path = crate::location::with_branch(&table, branch);
        Ok(TableArg {
            path: match system {
                Some(name) => crate::location::with_system(&path, &name),
                None => path,
            },
            bundle: None,
        })
    }

    /// The table directory to read.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether it is an unpacked bundle (only the splits whose files it retains are read).
    pub(crate) fn is_bundle(&self) -> bool {
        self.bundle.is_some()
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

/// Bytes of table files under which the JVM starts with [`jvm_bridge::jvm::Compilation::QuickStart`]
/// (64 MiB): below it, C2 compiling costs more than it saves (measured on the committed corpora); above, the
/// compiled code reads several times faster (the bench tables).
const QUICK_START_BYTES: u64 = 64 << 20;

/// Entries of the tables' directories looked at before the tables count as large anyway.
const QUICK_START_ENTRIES: usize = 20_000;

/// Chooses how the JVM compiles before it starts: quick start when the files under `tables` add up to less
/// than [`QUICK_START_BYTES`] (counted by walking the directories, stopping at the threshold or after
/// [`QUICK_START_ENTRIES`] entries), tiered otherwise. Only reads directory entries.
fn choose_compilation(tables: &[PathBuf]) {
    let mut bytes = 0u64;
    let mut entries = 0usize;
    let mut stack: Vec<PathBuf> = tables.to_vec();
    while let Some(dir) = stack.pop() {
        let Ok(list) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in list.flatten() {
            entries += 1;
            if bytes >= QUICK_START_BYTES || entries > QUICK_START_ENTRIES {
                return;
            }
            match entry.metadata() {
                Ok(m) if m.is_dir() => stack.push(entry.path()),
                Ok(m) => bytes += m.len(),
                Err(_) => {}
            }
        }
    }
    jvm_bridge::jvm::select_compilation(jvm_bridge::jvm::Compilation::QuickStart);
}
