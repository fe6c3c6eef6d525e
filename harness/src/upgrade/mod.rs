//! `paimon-parity upgrade-matrix`: for every pair A <= B of released Paimon versions, the corpora written by
//! release A replayed with release B, through both readers and in every scan mode (issue 24: readers and
//! writers are upgraded at different times, and a streaming job restarted on a new release re-plans
//! snapshots an older release wrote).
//!
//! One process runs one release, so the matrix is a parent of child processes of this binary:
//!
//! 1. **Corpora** ([`corpora`]): per release A and scenario, the table A wrote: committed (`corpora/<name>/table`
//!    for 1.0.0, `corpora/<name>/paimon-<A>/table`), else written once into the work directory by `corpus
//!    generate --paimon-version A`. A scenario pinned to one release is written by that release only.
//! 2. **Release A's own reading**: `stock-reader --paimon-version A record <A's tables>` plans and reads every
//!    scan with release A in one JVM, into the `stock@A` cache ([`crate::external::stock_at`]).
//! 3. **Per pair** (A, B): one child `replay <A's tables> --paimon-version B --reader native --reader stock@A
//!    --mode ...` (`--reader native` alone when A = B: the plain parity run). `stock@A` plans by itself with
//!    release A's planner and returns release A's rows (from the cache), and the replay diffs its splits and
//!    rows against release B's, split by split, as it diffs the native reader's.
//! 4. **Cells** ([`classify`]): per (A, B, corpus, mode) `identical`, `nothing-compared`, `upgrade-finding`
//!    (release B reads A's table differently from A, the native reader agreeing with B), `native-differs`,
//!    `unsupported`, `error`, or `not-written` (release A's writer failed on the scenario); each finding with
//!    the release rules it can come from ([`rules`]).
//!
//! No verdict without evidence ([`UpgradeMatrix::exit_code`]): a matrix exits 0 only when at least one cell
//! compared something and every release `--releases` names was run; a release `all` names that is not built,
//! or a matrix whose cells compared nothing (or that has no cell), exits 3 with the reason
//! ([`UpgradeMatrix::not_checked`]).
//!
//! JVM starts: one per corpus generated (once per work directory), one per release recorded, one per pair.

pub mod classify;
pub mod corpora;
pub mod rules;
pub mod text;
mod verdict;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use native_reader::PaimonRelease;
use serde::Serialize;

pub use classify::{classify, CellClass, ChildReport, RunView};
pub use corpora::{Children, CorpusSource, Destination, Origin, ScenarioFile};
pub use rules::{candidate_rules, changed_rules, differing_column, RuleChange, TableFacts};

use crate::error::{Error, Result};
use crate::external::stock_at;
use crate::replay::ReplayMode;

/// What to run.
#[derive(Clone, Debug)]
pub struct MatrixOptions {
    /// The releases, oldest first (each with its Java side built).
    pub releases: Vec<PaimonRelease>,
    /// Releases the matrix was asked for (`--releases all`) whose Java side is not built: not run, listed as
    /// not checked ([`UpgradeMatrix::not_built`]).
    pub not_built: Vec<PaimonRelease>,
    /// The scenario files (`corpora/<name>/scenario.json`).
    pub scenarios: Vec<PathBuf>,
    /// The scans of every replay.
    pub modes: Vec<ReplayMode>,
    /// The work directory: generated corpora (`corpora/<A>/<name>`), the `stock@A` cache (`stock-cache/`),
    /// the children's JSON reports and logs (`runs/`).
    pub work: PathBuf,
    /// The `paimon-parity` binary the children run.
    pub exe: PathBuf,
    /// A store URI (`s3://bucket/prefix`) the releases write their corpora into (`<store>/<A>/<name>`) and the
    /// children read them from, with the run's file-system options; `None`: the committed corpora and the
    /// work directory.
    pub store: Option<PathBuf>,
    /// Show progress bars on stderr (hidden anyway when stderr is not a terminal).
    pub progress: bool,
}

/// The whole matrix; serialized as the `upgrade_matrix` of the JSON report (`harness/JSON-REPORT.md`).
#[derive(Clone, Debug, Serialize)]
pub struct UpgradeMatrix {
    /// The releases, oldest first.
    pub releases: Vec<String>,
    /// The scans replayed.
    pub modes: Vec<ReplayMode>,
    /// The scenarios, by name.
    pub scenarios: Vec<String>,
    /// The work directory.
    pub work_dir: PathBuf,
    /// The store the corpora were written into and read from (`--store`), if any.
    pub store: Option<PathBuf>,
    /// Per release and scenario, the table that release wrote (or why there is none).
    pub corpora: Vec<CorpusSource>,
    /// Per pair (A, B), A <= B: the counts of its cells and its replay.
    pub pairs: Vec<PairResult>,
    /// Every cell: (A, B, corpus, mode).
    pub cells: Vec<Cell>,
    /// Wall time of the whole matrix, in milliseconds.
    pub wall_time_ms: u128,
    /// Ctrl-C stopped the matrix; the pairs done before are reported.
    pub interrupted: bool,
    /// Releases asked for (`--releases all`: every release the native reader implements) whose Java side is
    /// not built, so nothing they write or read is checked; each with the command that builds it.
    pub not_built: Vec<NotBuilt>,
}

/// A release the matrix was asked for whose Java side is not built (`jvm-bridge/java/target/paimon-<V>`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NotBuilt {
    /// The release, e.g. `1.2.0`.
    pub release: String,
    /// The command that builds it: `scripts/build-java --paimon-version <release>`.
    pub build: String,
}

impl NotBuilt {
    /// The entry of `release`.
    pub fn of(release: PaimonRelease) -> Self {
        NotBuilt {
            release: release.to_string(),
            build: format!("scripts/build-java --paimon-version {release}"),
        }
    }
}

/// One pair (A, B): the replay of A's corpora with release B.
#[derive(Clone, Debug, Serialize)]
pub struct PairResult {
    /// Release A, which wrote the tables.
    pub written_by: String,
    /// Release B, which read them.
    pub read_by: String,
    /// Corpora A wrote (tables replayed).
    pub corpora: usize,
    /// Cells: (corpora A wrote + corpora A's writer failed on) x modes.
    pub cells: usize,
    /// Cells per class.
    pub identical: usize,
    /// See `identical`.
    pub nothing_compared: usize,
    /// See `identical`.
    pub upgrade_findings: usize,
    /// See `identical`.
    pub native_differs: usize,
    /// See `identical`.
    pub unsupported: usize,
    /// See `identical`.
    pub errors: usize,
    /// Cells of corpora release A's writer failed to write (class `not-written`).
    pub not_written: usize,
    /// The rules of `native-reader/src/line.rs` whose value differs between A and B.
    pub changed_rules: Vec<RuleChange>,
    /// The child replay's JSON report (every split of every run).
    pub report: Option<PathBuf>,
    /// The child replay's output (stdout and stderr).
    pub log: Option<PathBuf>,
    /// The child replay's exit status (`None`: killed by a signal, or not run).
    pub exit_code: Option<i32>,
    /// The child's JDK (`java.vm.vendor java.runtime.version`).
    pub jdk: Option<String>,
    /// Wall time of the pair's replay, in milliseconds.
    pub wall_time_ms: u128,
    /// Why the pair's replay could not be read (then every cell of the pair is an error).
    pub error: Option<String>,
}

/// One cell: corpus `corpus` written by A, scanned in `mode` by release B.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    /// Release A, which wrote the table.
    pub written_by: String,
    /// Release B, which read it.
    pub read_by: String,
    /// The scenario's name.
    pub corpus: String,
    /// The table directory (empty for a `not-written` cell: release A wrote no table).
    pub table: PathBuf,
    /// The scan.
    pub mode: ReplayMode,
    /// What the cell found.
    pub class: CellClass,
    /// The first difference (a finding's: release A's against release B's) or the problem, in words.
    pub detail: Option<String>,
    /// The native reader's run against release B.
    pub native: Option<RunView>,
    /// `stock@A`'s run against release B (A < B).
    pub stock_at: Option<RunView>,
    /// For an upgrade finding: the rules that differ between A and B and apply to this table and scan.
    pub candidate_rules: Vec<RuleChange>,
    /// For an upgrade finding: whether the A x A cell of the same corpus and scan is identical, i.e. the
    /// native reader following A's rules returns A's reading while, following B's, it returns B's: the
    /// difference is one of the release rules it follows.
    pub native_follows_both: Option<bool>,
}

impl UpgradeMatrix {
    /// The cells of class `class`, in matrix order.
    pub fn cells_of(&self, class: CellClass) -> impl Iterator<Item = &Cell> {
        self.cells.iter().filter(move |c| c.class == class)
    }
}

/// Every release the native reader implements whose Java side is built (`jvm-bridge/java/target/paimon-<V>`),
/// oldest first.
pub fn built_releases() -> Vec<PaimonRelease> {
    let (_, built) = jvm_bridge::jvm::built_versions();
    PaimonRelease::ALL
        .into_iter()
        .filter(|r| built.iter().any(|b| b == r.name()))
        .collect()
}

/// The releases `--releases` asks for: those the matrix runs, and those `all` names whose Java side is not
/// built (reported as not checked, exit 3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Releases {
    /// The releases to run, oldest first, each built.
    pub run: Vec<PaimonRelease>,
    /// The releases `all` names that are not built, oldest first.
    pub not_built: Vec<PaimonRelease>,
}

/// Parses `--releases`: `all` (every release the native reader implements, `PaimonRelease::ALL`: the
/// [`built_releases`] are run, the others listed in [`Releases::not_built`]) or a comma-separated list,
/// sorted and deduplicated.
///
/// Errors: [`Error::Usage`] for a release named in the list that the native reader does not implement or
/// whose Java side is not built (naming it, the built ones and `scripts/build-java --paimon-version V`), or
/// when no release is left to run.
pub fn parse_releases(args: &[String]) -> Result<Releases> {
    let mut out = Vec::new();
    let mut not_built = Vec::new();
    for a in args.iter().flat_map(|a| a.split(',')).map(str::trim) {
        if a.is_empty() {
            continue;
        }
        if a == "all" {
            let built = built_releases();
            not_built.extend(
                PaimonRelease::ALL
                    .into_iter()
                    .filter(|r| !built.contains(r)),
            );
            out.extend(built);
            continue;
        }
        stock_at::check_built(a).map_err(|e| match e {
            Error::Usage(m) => Error::Usage(format!(
                "--releases: {}",
                m.trim_start_matches(stock_at::PREFIX)
            )),
            other => other,
        })?;
        out.push(PaimonRelease::parse(a)?);
    }
    out.sort();
    out.dedup();
    not_built.sort();
    not_built.dedup();
    if out.is_empty() {
        let (target, _) = jvm_bridge::jvm::built_versions();
        return Err(Error::Usage(format!(
            "--releases: no release to run (none of {} is built in {}; run scripts/build-java \
             --paimon-version V)",
            PaimonRelease::supported_list(),
            target.display()
        )));
    }
    Ok(Releases {
        run: out,
        not_built,
    })
}

/// Runs the matrix.
///
/// Errors: the work directory cannot be written, a scenario cannot be read, a child cannot be started.
/// A pair whose replay fails is reported (its cells `error`), not an error.
pub fn run_matrix(options: &MatrixOptions) -> Result<UpgradeMatrix> {
    let started = Instant::now();
    let io = |path: &Path, e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    std::fs::create_dir_all(&options.work).map_err(|e| io(&options.work, e))?;
    let work = std::fs::canonicalize(&options.work).map_err(|e| io(&options.work, e))?;
    let runs_dir = work.join("runs");
    std::fs::create_dir_all(&runs_dir).map_err(|e| io(&runs_dir, e))?;
    let cache = work.join("stock-cache");
    let options_file = children_options(&work, options.store.as_deref())?;
    let children = Children {
        exe: &options.exe,
        options_file: options_file.as_deref(),
    };
    let to = Destination {
        work: &work,
        store: options.store.as_deref(),
    };
    let scenarios = options
        .scenarios
        .iter()
        .map(|f| ScenarioFile::read(f))
        .collect::<Result<Vec<_>>>()?;
    let releases: Vec<String> = options.releases.iter().map(|r| r.to_string()).collect();
    let modes_arg = options
        .modes
        .iter()
        .map(|m| m.name())
        .collect::<Vec<_>>()
        .join(",");

    // 1. The tables each release wrote.
    let progress = bar(
        options.progress,
        (releases.len() * scenarios.len()) as u64,
        "{spinner} corpora {pos}/{len} {wide_msg}",
    );
    let mut corpora = Vec::new();
    for release in &releases {
        for s in &scenarios {
            progress.set_message(format!("{} written by {release}", s.name));
            corpora.push(corpora::table_of(children, to, s, release)?);
            progress.inc(1);
            if crate::replay::interrupted() {
                break;
            }
        }
    }
    progress.finish_and_clear();
    let written = |release: &str| -> Vec<&CorpusSource> {
        corpora
            .iter()
            .filter(|c| c.release == release && c.written())
            .collect()
    };
    let unwritten = |release: &str| -> Vec<&CorpusSource> {
        corpora
            .iter()
            .filter(|c| c.release == release && c.origin == Origin::NotWritten)
            .collect()
    };

    // 2. Each release's own reading of its tables, when a later release reads them.
    for (i, a) in releases.iter().enumerate() {
        if i + 1 == releases.len() || crate::replay::interrupted() {
            continue;
        }
        let tables: Vec<&Path> = written(a)
            .iter()
            .filter_map(|c| c.table.as_deref())
            .collect();
        if tables.is_empty() {
            continue;
        }
        let _spinner = crate::replay::spinner(options.progress.then(|| {
            format!(
                "release {a} reads its own {} corpora ({modes_arg})",
                tables.len()
            )
        }));
        let log = runs_dir.join(format!("stock-{a}-record.log"));
        // A failed recording only costs JVM starts: stock@A then plans and reads per request.
        let _ = run_child(
            children
                .command()
                .args(["stock-reader", "--paimon-version", a, "record"])
                .args(&tables)
                .args(["--mode", &modes_arg, "--cache"])
                .arg(&cache),
            &log,
        )?;
    }

    // 3. and 4. Every pair, its cells.
    let pair_count = releases.len() * (releases.len() + 1) / 2;
    let progress = bar(
        options.progress,
        pair_count as u64,
        "{spinner} {elapsed} pairs {pos}/{len} {wide_msg}",
    );
    let mut pairs = Vec::new();
    let mut cells = Vec::new();
    let mut interrupted = crate::replay::interrupted();
    'pairs: for (j, b) in releases.iter().enumerate() {
        for a in &releases[..=j] {
            if interrupted {
                break 'pairs;
            }
            let sources = written(a);
            progress.set_message(format!(
                "written by {a}, read by {b}: {} corpora x {} modes",
                sources.len(),
                options.modes.len()
            ));
            let (pair, pair_cells) = run_pair(
                options,
                children,
                &runs_dir,
                &cache,
                (a, b),
                (&sources, &unwritten(a)),
                &modes_arg,
            )?;
            interrupted |= crate::replay::interrupted() || pair.exit_code == Some(130);
            pairs.push(pair);
            cells.extend(pair_cells);
            progress.inc(1);
        }
    }
    progress.finish_and_clear();
    attribute(&mut cells);
    if let Some(file) = &options_file {
        let _ = std::fs::remove_file(file);
    }
    Ok(UpgradeMatrix {
        releases,
        modes: options.modes.clone(),
        scenarios: scenarios.iter().map(|s| s.name.clone()).collect(),
        work_dir: work,
        store: options.store.clone(),
        corpora,
        pairs,
        cells,
        wall_time_ms: started.elapsed().as_millis(),
        interrupted,
        not_built: options.not_built.iter().map(|r| NotBuilt::of(*r)).collect(),
    })
}

/// The options file the children of a matrix over a store get (`<work>/file-io-options`, mode 0600, written
/// anew: the run's options, removed when the matrix ends); `None` for corpora on local disk.
///
/// Errors: [`Error::Usage`] when `store` is not a store URI; [`Error::Table`] naming it when the store cannot
/// be listed with the run's options (a missing bucket, wrong credentials, an unreachable endpoint: checked once, before any
/// child starts); [`Error::Io`] when the file cannot be written.
fn children_options(work: &Path, store: Option<&Path>) -> Result<Option<PathBuf>> {
    let Some(store) = store else {
        return Ok(None);
    };
    if !native_reader::fileio::is_store(store) {
        return Err(Error::Usage(format!(
            "--store {}: not an object-store URI (s3://bucket/prefix); corpora on local disk go into --work",
            store.display()
        )));
    }
    // One LIST: a HEAD of a missing key answers 404 whether or not the bucket exists.
    native_reader::fileio::for_path(store)?
        .list_status(store)
        .map_err(|e| Error::Table {
            path: store.to_path_buf(),
            reason: format!("--store: cannot list the store: {e}"),
        })?;
    let file = work.join("file-io-options");
    match std::fs::remove_file(&file) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(Error::Io {
                path: file,
                source: e,
            })
        }
        _ => {}
    }
    crate::store_options::write_private(&file, &native_reader::fileio::configured())?;
    Ok(Some(file))
}

/// A progress bar of `len` steps drawn with `template` (hidden without `progress`).
fn bar(progress: bool, len: u64, template: &str) -> indicatif::ProgressBar {
    if !progress {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// Runs `command` to its end with stdout and stderr into `log`, without the environment that would pick
/// another release than its `--paimon-version`; its exit status (`None`: killed by a signal).
///
/// Errors: [`Error::Io`] when the log cannot be created or the child cannot be started.
fn run_child(command: &mut Command, log: &Path) -> Result<Option<i32>> {
    let io = |path: &Path, e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let out = std::fs::File::create(log).map_err(|e| io(log, e))?;
    let err = out.try_clone().map_err(|e| io(log, e))?;
    let status = command
        .env_remove(jvm_bridge::jvm::PAIMON_VERSION_ENV)
        .stdin(std::process::Stdio::null())
        .stdout(out)
        .stderr(err)
        .status()
        .map_err(|e| io(Path::new(command.get_program()), e))?;
    Ok(status.code())
}

/// One pair (`a`, `b`): the child replay of A's tables (`sources`) with release B, and its cells, then one
/// `not-written` cell per mode for every corpus of `unwritten` (those A's writer failed on).
///
/// Errors: [`Error::Io`] when the child cannot be started.
fn run_pair(
    options: &MatrixOptions,
    children: Children<'_>,
    runs_dir: &Path,
    cache: &Path,
    (a, b): (&str, &str),
    (sources, unwritten): (&[&CorpusSource], &[&CorpusSource]),
    modes_arg: &str,
) -> Result<(PairResult, Vec<Cell>)> {
    let started = Instant::now();
    let cross = a != b;
    let readers = if cross {
        format!("native,{}{a}", stock_at::PREFIX)
    } else {
        "native".to_owned()
    };
    let (ra, rb) = (PaimonRelease::parse(a)?, PaimonRelease::parse(b)?);
    let mut pair = PairResult {
        written_by: a.to_owned(),
        read_by: b.to_owned(),
        corpora: sources.len(),
        cells: (sources.len() + unwritten.len()) * options.modes.len(),
        identical: 0,
        nothing_compared: 0,
        upgrade_findings: 0,
        native_differs: 0,
        unsupported: 0,
        errors: 0,
        not_written: 0,
        changed_rules: changed_rules(ra, rb),
        report: None,
        log: None,
        exit_code: None,
        jdk: None,
        wall_time_ms: 0,
        error: None,
    };
    let failed_writes = not_written_cells(a, b, unwritten, &options.modes);
    pair.not_written = failed_writes.len();
    if sources.is_empty() {
        return Ok((pair, failed_writes));
    }
    let json = runs_dir.join(format!("written-by-{a}-read-by-{b}.json"));
    let log = runs_dir.join(format!("written-by-{a}-read-by-{b}.log"));
    let _ = std::fs::remove_file(&json);
    let tables: Vec<&Path> = sources.iter().filter_map(|s| s.table.as_deref()).collect();
    let code = run_child(
        children
            .command()
            .arg("replay")
            .args(&tables)
            .args([
                "--paimon-version",
                b,
                "--reader",
                &readers,
                "--mode",
                modes_arg,
                "-q",
            ])
            .arg("--json")
            .arg(&json)
            .env(stock_at::CACHE_ENV, cache),
        &log,
    )?;
    pair.exit_code = code;
    pair.log = Some(log.clone());
    let report: Option<ChildReport> = std::fs::read(&json)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    let report = match report {
        Some(r) => {
            pair.report = Some(json);
            pair.jdk = r.jdk.clone();
            if r.status == "error" {
                pair.error = r.error_message();
            }
            r
        }
        None => {
            let tail = std::fs::read_to_string(&log).unwrap_or_default();
            pair.error = Some(format!(
                "the replay wrote no JSON report (exit status {}): {}",
                code.map(|c| c.to_string()).unwrap_or_else(|| "none".into()),
                corpora::last_lines(&tail, 3)
            ));
            ChildReport::default()
        }
    };
    let mut by_run: HashMap<(String, String, String), RunView> = HashMap::new();
    for run in report.runs {
        by_run.insert(
            (run.table.clone(), run.mode.clone(), run.reader.clone()),
            run,
        );
    }
    let stock_reader = format!("{}{a}", stock_at::PREFIX);
    let mut cells = Vec::new();
    for source in sources {
        let Some(table) = source.table.clone() else {
            continue;
        };
        let key = table.display().to_string();
        for mode in &options.modes {
            let native = by_run
                .get(&(key.clone(), mode.name().to_owned(), "native".to_owned()))
                .cloned();
            let stock_at_run = by_run
                .get(&(key.clone(), mode.name().to_owned(), stock_reader.clone()))
                .cloned();
            let (class, detail) = match (&pair.error, native.is_none() && stock_at_run.is_none()) {
                (Some(e), true) => (CellClass::Error, Some(e.clone())),
                _ => classify(native.as_ref(), stock_at_run.as_ref(), cross),
            };
            match class {
                CellClass::Identical => pair.identical += 1,
                CellClass::NothingCompared => pair.nothing_compared += 1,
                CellClass::UpgradeFinding => pair.upgrade_findings += 1,
                CellClass::NativeDiffers => pair.native_differs += 1,
                CellClass::Unsupported => pair.unsupported += 1,
                CellClass::Error => pair.errors += 1,
                CellClass::NotWritten => pair.not_written += 1,
            }
            let candidate_rules = if class == CellClass::UpgradeFinding {
                let column = detail.as_deref().and_then(differing_column);
                candidate_rules(ra, rb, TableFacts::of(&table).as_ref(), *mode, column)
            } else {
                Vec::new()
            };
            cells.push(Cell {
                written_by: a.to_owned(),
                read_by: b.to_owned(),
                corpus: source.corpus.clone(),
                table: table.clone(),
                mode: *mode,
                class,
                detail,
                native,
                stock_at: stock_at_run,
                candidate_rules,
                native_follows_both: None,
            });
        }
    }
    cells.extend(failed_writes);
    pair.wall_time_ms = started.elapsed().as_millis();
    Ok((pair, cells))
}

/// The cells of pair (`a`, `b`) for the corpora release A's writer failed on: one `not-written` cell per
/// corpus and mode, its `detail` the writer's error and its `table` empty (there is none).
fn not_written_cells(
    a: &str,
    b: &str,
    unwritten: &[&CorpusSource],
    modes: &[ReplayMode],
) -> Vec<Cell> {
    let mut cells = Vec::new();
    for source in unwritten {
        for mode in modes {
            cells.push(Cell {
                written_by: a.to_owned(),
                read_by: b.to_owned(),
                corpus: source.corpus.clone(),
                table: PathBuf::new(),
                mode: *mode,
                class: CellClass::NotWritten,
                detail: Some(format!(
                    "release {a}'s writer failed on the scenario, so there is no table to read: {}",
                    source.detail.as_deref().unwrap_or("no error recorded")
                )),
                native: None,
                stock_at: None,
                candidate_rules: Vec::new(),
                native_follows_both: None,
            });
        }
    }
    cells
}

/// Sets [`Cell::native_follows_both`] of every upgrade finding from the A x A cell of its corpus and scan.
fn attribute(cells: &mut [Cell]) {
    let same: HashMap<(String, String, &'static str), CellClass> = cells
        .iter()
        .filter(|c| c.written_by == c.read_by)
        .map(|c| {
            (
                (c.written_by.clone(), c.corpus.clone(), c.mode.name()),
                c.class,
            )
        })
        .collect();
    for c in cells
        .iter_mut()
        .filter(|c| c.class == CellClass::UpgradeFinding)
    {
        c.native_follows_both = same
            .get(&(c.written_by.clone(), c.corpus.clone(), c.mode.name()))
            .map(|class| matches!(class, CellClass::Identical | CellClass::NothingCompared));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict::tests::matrix;

    #[test]
    fn a_finding_is_attributed_to_the_rules_when_a_x_a_is_identical() {
        let mut m = matrix(&[CellClass::UpgradeFinding]);
        let mut same = m.cells[0].clone();
        same.read_by = "1.0.0".into();
        same.class = CellClass::Identical;
        m.cells.push(same);
        attribute(&mut m.cells);
        assert_eq!(m.cells[0].native_follows_both, Some(true));
    }
}
