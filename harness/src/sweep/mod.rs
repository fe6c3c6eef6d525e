//! `paimon-parity sweep`: fails the commit protocol of one commit of a scenario at every file operation, in each
//! fault mode, recovers as a restarted Flink job does, and classes what each point does to data, changelog and
//! idempotence (issue 25; design facts in `docs/commit-crash-points.md` of the shared docs).
//!
//! 1. A counting run records the swept commit's file operations in order ([`jvm_bridge::corpus::CrashWindow`]).
//! 2. For each operation N and fault mode, the scenario runs into a fresh table with the fault at N
//!    ([`crate::corpus::run_with_crash_point`]); the job restarts and recovers (`filterAndCommit` of the same
//!    committables) as many times as asked.
//! 3. Each end state is checked against the scenario's own writes ([`oracle`]), replayed by the native reader
//!    against the released one, and audited; the point gets a [`PointClass`].
//!
//! Operation order: the writer's operations come in program order; the COMPACT half's conflict check reads
//! manifests on Paimon's manifest-read pool, whose reads start in no fixed order. Points are matched by index;
//! every point records the operation the fault actually fired on, and a point whose fired operation differs
//! from the counting run's names both (they are reads of the same group, which leave the disk as it was).

mod check;
mod class;
pub mod compare;
mod oracle;
mod plan;
mod points;
pub mod text;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub use check::{Evidence, SnapshotRef};
pub use class::PointClass;
pub use jvm_bridge::corpus::{FaultMode, RecoveryStrategy};
pub use oracle::Expected;
pub use plan::SweptCommit;
use points::{keep_firsts, run_jobs, Ctx, Job};
use serde::Serialize;

use crate::corpus::{run_with_crash_point, CrashPoint};
use crate::error::{Error, Result};
use crate::reader::{NativeTableReader, StockTableReader};

/// What to sweep.
#[derive(Clone, Debug)]
pub struct SweepOptions {
    /// The scenario file.
    pub scenario_file: PathBuf,
    /// The fault modes, in order.
    pub modes: Vec<FaultMode>,
    /// The identifier of the commit to sweep; the scenario's last commit when `None`.
    pub commit: Option<i64>,
    /// Only a commit of this writer (a step's `user`); any when `None`.
    pub writer: Option<String>,
    /// How many times the restarted job recovers (2: the second checks idempotence; below 2 a sweep without
    /// findings is `not-checked`).
    pub recoveries: usize,
    /// Fault modes of the recovery sweep (`--recovery-fault`): for each distinct durable state the commit's
    /// faults leave, the first recovery's own operations are swept in these modes; none when empty.
    pub recovery_faults: Vec<FaultMode>,
    /// Only these operations of the first recovery (from 1); every one when `None`.
    pub recovery_ops: Option<Vec<usize>>,
    /// Only these operations (from 1); every one when `None`.
    pub ops: Option<Vec<usize>>,
    /// Keep the table of the first point of each window here.
    pub keep: Option<PathBuf>,
    /// Where the points' tables are written (removed afterwards, unless kept).
    pub work: PathBuf,
    /// Points run at the same time (one JVM; each point its own table).
    pub threads: usize,
    /// Replay each end state with the native reader against the released one (without it a sweep without
    /// findings is `not-checked`).
    pub parity: bool,
    /// How the restarted job recovers: `filterAndCommit` as released (`stock`), or the bridge's
    /// `PairAwareRecovery` first (`pair-aware`, `--recovery`).
    pub strategy: RecoveryStrategy,
    /// A progress bar on stderr.
    pub progress: bool,
}

/// One operation of the swept commit, from the counting run.
#[derive(Clone, Debug, Serialize)]
pub struct OpView {
    /// Index, from 1.
    pub index: usize,
    /// The `FileIO` method, or `close` of an output stream.
    pub op: String,
    /// Path relative to the table (a rename's target), UUIDs shown as `<uuid>`.
    pub path: String,
    /// Made on Paimon's manifest-read pool (no fixed order within its group).
    pub pool: bool,
    /// The snapshot this operation publishes (`APPEND snapshot 3`), for the rename onto `snapshot-N`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub publishes: Option<String>,
}

/// What one recovery did, in a point.
#[derive(Clone, Debug, Serialize)]
pub struct RecoveryView {
    /// Identifiers committed; `None` when it threw.
    pub committed: Option<i32>,
    /// Its exception.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Snapshots it added.
    pub added: Vec<SnapshotRef>,
    /// Identifiers whose COMPACT half the pair-aware step committed whole.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub compact_halves: Vec<i64>,
    /// Identifiers with a message whose COMPACT half the pair-aware step left out, because a later commit had
    /// already removed a file it compacts (that compaction made the changelog of the same changes).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<i64>,
}

/// One class found at a point, with its detail.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// The class.
    pub class: PointClass,
    /// What shows it.
    pub detail: String,
}

/// One crash point: a fault mode at one operation.
#[derive(Clone, Debug, Serialize)]
pub struct Point {
    /// The fault mode.
    pub mode: FaultMode,
    /// The operation's index, from 1.
    pub op_index: usize,
    /// The operation's `FileIO` method (from the counting run).
    pub op: String,
    /// Its path relative to the table (a rename's target), UUIDs as `<uuid>`.
    pub path: String,
    /// The class: the worst finding, else the success class.
    pub class: PointClass,
    /// Every finding.
    pub findings: Vec<Finding>,
    /// The operation the fault fired on in this run, when it is not the counting run's (a read of the
    /// manifest-read pool's group); `None` when it is the same.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fired_on: Option<String>,
    /// The commit's exception, when it threw.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit_error: Option<String>,
    /// The snapshots the swept commit left durable before any recovery (kind and id).
    pub durable: Vec<SnapshotRef>,
    /// What each recovery committed.
    pub recovered: Vec<RecoveryView>,
    /// The end state's evidence.
    pub evidence: Evidence,
    /// In a recovery sweep: the commit fault this point's recovery ran after, and the durable state it left
    /// (`crash at op 25: APPEND durable`); `None` for a point of the commit sweep.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// Where the table is kept (`--keep`), when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<PathBuf>,
    /// The point's directory under the sweep's work directory (removed after the sweep).
    #[serde(skip)]
    pub work_dir: PathBuf,
    /// Wall time of the point, milliseconds.
    pub millis: u64,
}

/// Consecutive operations of one fault mode with one class.
#[derive(Clone, Debug, Serialize)]
pub struct ClassWindow {
    /// The fault mode.
    pub mode: FaultMode,
    /// First operation index.
    pub first: usize,
    /// Last operation index.
    pub last: usize,
    /// The class.
    pub class: PointClass,
    /// The first operation, in words (`rename snapshot/snapshot-3`).
    pub first_op: String,
    /// The last operation, in words.
    pub last_op: String,
    /// The first point's main finding, or how its commit ended.
    pub detail: String,
}

/// The sweep of the first recovery's operations after one commit fault (one per distinct durable state).
#[derive(Clone, Debug, Serialize)]
pub struct RecoverySweep {
    /// The durable state the commit fault left: the swept commit's snapshots before recovery (`nothing`,
    /// `APPEND`, `APPEND + COMPACT`).
    pub state: String,
    /// The commit fault (`crash at op 25`), the first point of the commit sweep that left this state.
    pub commit_fault: String,
    /// The first recovery's operations, from its counting run.
    pub ops: Vec<OpView>,
    /// Every point: `mode`, `op_index`, `op` and `path` are the recovery's.
    pub points: Vec<Point>,
    /// The points grouped into windows of one class.
    pub windows: Vec<ClassWindow>,
}

/// The whole sweep.
#[derive(Clone, Debug, Serialize)]
pub struct SweepReport {
    /// The scenario's name.
    pub scenario: String,
    /// The scenario file.
    pub scenario_file: PathBuf,
    /// The released Paimon that wrote and read every point (the release a candidate is based on).
    pub paimon_version: String,
    /// How the restarted job recovered (`stock`: `filterAndCommit` as released; `pair-aware`).
    pub recovery_strategy: RecoveryStrategy,
    /// The Paimon that wrote, committed, recovered and read every point: the release, or the candidate run
    /// instead of it (`sweep --candidate`), with its label for the text, JUnit and HTML reports.
    pub paimon: crate::report::PaimonUsed,
    /// The commit swept.
    pub swept: SweptCommit,
    /// What of the scenario was left out (its own fault), in words.
    pub left_out: Vec<String>,
    /// The end state the writes make.
    pub expected: Expected,
    /// The swept commit's operations, from the counting run.
    pub ops: Vec<OpView>,
    /// How points are matched to operations.
    pub order: &'static str,
    /// Every point, by mode then index.
    pub points: Vec<Point>,
    /// The points grouped into windows of one class, per mode in order.
    pub windows: Vec<ClassWindow>,
    /// Per mode, the number of points of each class.
    pub totals: BTreeMap<String, BTreeMap<String, usize>>,
    /// The recovery sweeps (`--recovery-fault`), one per distinct durable state.
    pub recovery: Vec<RecoverySweep>,
    /// Points whose audit did not find a lost changelog exactly where the checks did.
    pub audit_disagrees: usize,
    /// Wall time of the counting run, milliseconds.
    pub count_millis: u64,
    /// Wall time of the whole sweep, milliseconds.
    pub total_millis: u64,
    /// `findings` (a point in a failing class, or an audit that disagrees with the checks), else
    /// `not-checked` (no point ran: `--ops` named none of the swept commit's operations, or a recovery sweep
    /// asked for ran no point; or a check was left out: fewer than 2 recoveries, no parity; the reason in
    /// `not_checked`), else `clean` (every point in a success class, every check run).
    pub verdict: &'static str,
    /// Why the verdict is `not-checked`; `None` otherwise.
    pub not_checked: Option<String>,
}

impl SweepReport {
    /// 0 clean, 1 findings, 3 ([`crate::error::EXIT_NOTHING_COMPARED`]) when nothing was checked.
    pub fn exit_code(&self) -> i32 {
        match self.verdict {
            "clean" => crate::error::EXIT_IDENTICAL,
            "not-checked" => crate::error::EXIT_NOTHING_COMPARED,
            _ => crate::error::EXIT_DIFFERENT,
        }
    }

    /// Every point: the commit sweep's, then each recovery sweep's.
    pub fn every_point(&self) -> impl Iterator<Item = &Point> {
        self.points
            .iter()
            .chain(self.recovery.iter().flat_map(|r| r.points.iter()))
    }

    /// The verdict in words, as the text report's `verdict:` line and the HTML page say it.
    pub fn verdict_words(&self) -> String {
        match self.verdict {
            "clean" => format!(
                "CLEAN: every one of the {} points kept data and changelog whole, and every recovery was \
                 idempotent",
                self.every_point().count()
            ),
            "not-checked" => format!(
                "NOT CHECKED: {}",
                self.not_checked.as_deref().unwrap_or("no point ran")
            ),
            _ => {
                let mut failing: Vec<String> = PointClass::ALL
                    .iter()
                    .filter(|c| c.fails())
                    .filter_map(|c| {
                        let n = self.every_point().filter(|p| p.class == *c).count();
                        (n > 0).then(|| format!("{n} {}", c.name()))
                    })
                    .collect();
                if self.audit_disagrees > 0 {
                    failing.push(format!(
                        "the audit disagreed with the checks at {} point(s)",
                        self.audit_disagrees
                    ));
                }
                format!("FINDINGS: {}", failing.join(", "))
            }
        }
    }
}

/// The operations of `requested` (every one of `1..=count` when `None`) that exist, and those past `count`.
fn requested_ops(requested: Option<&[usize]>, count: usize) -> (Vec<usize>, Vec<usize>) {
    match requested {
        None => ((1..=count).collect(), Vec::new()),
        Some(list) => list.iter().partition(|i| (1..=count).contains(*i)),
    }
}

/// `[1, 2, 3, 7]` as `1-3, 7`.
fn ranges(ops: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ops.len() {
        let mut j = i;
        while j + 1 < ops.len() && ops[j + 1] == ops[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            ops[i].to_string()
        } else {
            format!("{}-{}", ops[i], ops[j])
        });
        i = j + 1;
    }
    out.join(", ")
}

/// How points are matched to operations ([`SweepReport::order`]).
pub const ORDER: &str = "by index in the counting run's order; the reads of the manifest-read pool start in no \
fixed order, so a point inside such a group faults whichever read comes at that index (each point records the \
operation it fired on when it differs)";

/// `path` with every UUID (8-4-4-4-12 hex digits) shown as `<uuid>`.
pub fn mask_uuids(path: &str) -> String {
    let b = path.as_bytes();
    let groups = [8usize, 4, 4, 4, 12];
    let mut out = String::with_capacity(path.len());
    let mut i = 0;
    'outer: while i < b.len() {
        let mut j = i;
        for (g, len) in groups.iter().enumerate() {
            if j + len > b.len() || !b[j..j + len].iter().all(u8::is_ascii_hexdigit) {
                out.push(b[i] as char);
                i += 1;
                continue 'outer;
            }
            j += len;
            if g < 4 {
                if b.get(j) != Some(&b'-') {
                    out.push(b[i] as char);
                    i += 1;
                    continue 'outer;
                }
                j += 1;
            }
        }
        out.push_str("<uuid>");
        i = j;
    }
    out
}

/// Runs the sweep.
///
/// Errors (exit 2): the scenario cannot be read, is not modelled by the oracle, has no such commit, or its steps
/// before the swept commit fail; the JVM cannot start; the work directory cannot be written.
pub fn sweep(options: &SweepOptions) -> Result<SweepReport> {
    let started = Instant::now();
    let scenario = crate::corpus::load_scenario(&options.scenario_file)?;
    let (scenario, swept, mut left_out) =
        plan::prepare(&scenario, options.commit, options.writer.as_deref())?;
    let expected = oracle::expected(&scenario)?;
    let stock = StockTableReader::new()?;
    let version = stock.bridge().paimon_version()?;
    if !native_reader::fileio::is_store(&options.work) {
        std::fs::create_dir_all(&options.work).map_err(|e| Error::Io {
            path: options.work.clone(),
            source: e,
        })?;
    } else if options.keep.is_some() {
        return Err(Error::Usage(format!(
            "--keep with the points written in a store ({}): unsupported (kept tables are moved on local \
             disk); sweep on local disk to keep them",
            options.work.display()
        )));
    }
    // 1. Count.
    let count_dir = options.work.join("count");
    remove_work(&count_dir);
    let counted = run_with_crash_point(
        &scenario,
        &count_dir.join("table"),
        &io_dir(&count_dir),
        &stock,
        &CrashPoint {
            step: swept.step,
            mode: FaultMode::None,
            at: 0,
            recoveries: 0,
            recovery_fault: None,
            strategy: options.strategy,
        },
    )?;
    if let Some(e) = &counted.commit_error {
        return Err(Error::Scenario(format!(
            "the swept commit {} fails without a fault: {e}",
            swept.identifier
        )));
    }
    let ops = views_of(&counted.window, &counted.durable);
    remove_work(&count_dir);
    let count_millis = started.elapsed().as_millis() as u64;

    // 2. Every point of the commit.
    let (indices, past) = requested_ops(options.ops.as_deref(), ops.len());
    if !past.is_empty() {
        left_out.push(format!(
            "--ops {}: past the swept commit's {} file operations on Paimon {version}",
            ranges(&past),
            ops.len()
        ));
    }
    let mut not_checked = None;
    if indices.is_empty() || options.modes.is_empty() {
        not_checked = Some(if options.modes.is_empty() {
            "no fault mode was given".to_owned()
        } else if past.is_empty() {
            format!(
                "--ops names no operation (the swept commit has {} file operations: 1-{})",
                ops.len(),
                ops.len()
            )
        } else {
            format!(
                "--ops {} names none of the swept commit's {} file operations (1-{}) on Paimon {version}",
                ranges(&past),
                ops.len(),
                ops.len()
            )
        });
    }
    let jobs: Vec<Job> = options
        .modes
        .iter()
        .flat_map(|m| {
            indices.iter().map(move |i| Job {
                commit: (*m, *i),
                recovery: None,
            })
        })
        .collect();
    let ctx = Ctx {
        options,
        scenario: &scenario,
        swept: &swept,
        expected: &expected,
        stock: &stock,
        native: &NativeTableReader::for_this_process()?,
    };
    let label = format!("{} commit {}", scenario.name, swept.identifier);
    let mut points = run_jobs(&ctx, &jobs, &ops, &[], &label)?;
    let windows = windows_of(&points, &ops);
    keep_firsts(options, &mut points, &windows, "");

    // 3. The recovery sweep: for each distinct durable state, the first recovery's own operations.
    let mut recovery = Vec::new();
    if !options.recovery_faults.is_empty() {
        let mut states: Vec<(String, &Point)> = Vec::new();
        for p in &points {
            let state = durable_state(p);
            if p.class != PointClass::NotReached && !states.iter().any(|(s, _)| *s == state) {
                states.push((state, p));
            }
        }
        for (n, (state, p)) in states.into_iter().enumerate() {
            let commit = (p.mode, p.op_index);
            let commit_fault = format!(
                "{} at op {} ({} {})",
                p.mode.name(),
                p.op_index,
                p.op,
                p.path
            );
            let dir = options.work.join(format!("recovery-count-{n}"));
            remove_work(&dir);
            let counted = run_with_crash_point(
                &scenario,
                &dir.join("table"),
                &io_dir(&dir),
                &stock,
                &CrashPoint {
                    step: swept.step,
                    mode: commit.0,
                    at: commit.1,
                    recoveries: 1,
                    recovery_fault: Some((FaultMode::None, 0)),
                    strategy: options.strategy,
                },
            )?;
            let after = crate::corpus::snapshot_summaries(&dir.join("table")).unwrap_or_default();
            remove_work(&dir);
            let rec_ops = counted
                .recovery_window
                .as_ref()
                .map(|w| views_of(w, &after))
                .unwrap_or_default();
            let (rec_indices, rec_past) =
                requested_ops(options.recovery_ops.as_deref(), rec_ops.len());
            if !rec_past.is_empty() {
                left_out.push(format!(
                    "--recovery-ops {}: past the {} file operations of the first recovery after {commit_fault}",
                    ranges(&rec_past),
                    rec_ops.len()
                ));
            }
            let jobs: Vec<Job> = options
                .recovery_faults
                .iter()
                .flat_map(|m| {
                    rec_indices.iter().map(move |i| Job {
                        commit,
                        recovery: Some((*m, *i)),
                    })
                })
                .collect();
            let label = format!("{} recovery after {commit_fault}", scenario.name);
            let mut rec_points = run_jobs(&ctx, &jobs, &ops, &rec_ops, &label)?;
            for rp in &mut rec_points {
                rp.after = Some(format!("{commit_fault}: {state} durable"));
            }
            let windows = windows_of(&rec_points, &rec_ops);
            keep_firsts(
                options,
                &mut rec_points,
                &windows,
                &format!("recovery-{}-{:03}-", commit.0.name(), commit.1),
            );
            recovery.push(RecoverySweep {
                state,
                commit_fault,
                ops: rec_ops,
                points: rec_points,
                windows,
            });
        }
    }

    let mut totals: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for p in &points {
        *totals
            .entry(p.mode.name().to_owned())
            .or_default()
            .entry(p.class.name().to_owned())
            .or_default() += 1;
    }
    let every = || {
        points
            .iter()
            .chain(recovery.iter().flat_map(|r| r.points.iter()))
    };
    // An audit that did not run counts as a disagreement: a point is never clean on a check that was not made.
    let audit_disagrees = every()
        .filter(|p| p.evidence.audit_agrees != Some(true))
        .count();
    if not_checked.is_none()
        && !options.recovery_faults.is_empty()
        && recovery.iter().all(|r| r.points.is_empty())
    {
        not_checked = Some(if recovery.is_empty() {
            "--recovery-fault was given, but no point of the commit sweep reached its fault, so no recovery \
             could be swept"
                .to_owned()
        } else {
            "--recovery-fault was given, but --recovery-ops names none of the first recovery's operations"
                .to_owned()
        });
    }
    // Checks the options left out: a sweep that finds nothing is not CLEAN without them.
    let mut skipped = Vec::new();
    if options.recoveries < 2 {
        skipped.push(format!(
            "idempotence: {} recovery attempt(s) per point, and the second is what checks that a landed commit \
             is not committed again (--recovery-attempts 2)",
            options.recoveries
        ));
    }
    if !options.parity {
        skipped.push(
            "parity: the native reader's stream and batch replays of each end state were not run (--no-parity)"
                .to_owned(),
        );
    }
    if not_checked.is_none() && !skipped.is_empty() {
        not_checked = Some(format!(
            "no finding at {} point(s), but not every check ran: {}",
            every().count(),
            skipped.join("; ")
        ));
    }
    let verdict = if !every().all(|p| p.class.is_success()) || audit_disagrees > 0 {
        "findings"
    } else if not_checked.is_some() {
        "not-checked"
    } else {
        "clean"
    };
    Ok(SweepReport {
        scenario: scenario.name.clone(),
        scenario_file: options.scenario_file.clone(),
        paimon_version: version,
        recovery_strategy: options.strategy,
        paimon: crate::report::PaimonUsed::current(),
        swept,
        left_out,
        expected,
        ops,
        order: ORDER,
        points,
        windows,
        totals,
        recovery,
        audit_disagrees,
        count_millis,
        total_millis: started.elapsed().as_millis() as u64,
        verdict,
        not_checked: (verdict == "not-checked").then_some(not_checked).flatten(),
    })
}

/// Removes a point's directory: on local disk, or (a store prefix) through the released `FileIO`'s recursive
/// delete, with its local I/O directory ([`io_dir`]). Quiet: what cannot be removed stays.
pub fn remove_work(dir: &Path) {
    if native_reader::fileio::is_store(dir) {
        let _ = jvm_bridge::CorpusWriter::delete_table(dir);
        let _ = std::fs::remove_dir_all(io_dir(dir));
    } else {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// The writer's local I/O directory (`IOManager`: spills, lookup files) of the point at `dir`: beside its
/// table on local disk; for a table in a store, under the system's temporary directory.
pub fn io_dir(dir: &Path) -> PathBuf {
    if native_reader::fileio::is_store(dir) {
        let name = dir
            .file_name()
            .map_or_else(|| "point".into(), |n| n.to_string_lossy().into_owned());
        std::env::temp_dir().join(format!(
            "paimon-parity-sweep-io-{}-{name}",
            std::process::id()
        ))
    } else {
        dir.join("io")
    }
}

/// The swept commit's snapshots a point left durable before any recovery, in words.
fn durable_state(p: &Point) -> String {
    if p.durable.is_empty() {
        "nothing".to_owned()
    } else {
        p.durable
            .iter()
            .map(|s| s.kind.as_str())
            .collect::<Vec<_>>()
            .join(" + ")
    }
}

/// The operations of `window`, the publications named from `durable` (the snapshots after it).
fn views_of(
    window: &jvm_bridge::corpus::CrashWindow,
    durable: &[crate::corpus::SnapshotSummary],
) -> Vec<OpView> {
    window
        .ops
        .iter()
        .enumerate()
        .map(|(i, o)| {
            // A rename on local disk, the COPY onto `snapshot-N` on a store (`FaultyStoreFileIO`).
            let publishes = (o.op == "rename" || o.op == "COPY")
                .then(|| o.path.strip_prefix("snapshot/snapshot-"))
                .flatten()
                .and_then(|id| id.parse::<i64>().ok())
                .map(|id| {
                    let kind = durable
                        .iter()
                        .find(|s| s.id == id)
                        .map_or("the", |s| s.commit_kind.as_str());
                    format!("{kind} snapshot {id}")
                });
            OpView {
                index: i + 1,
                op: o.op.clone(),
                path: mask_uuids(&o.path),
                pool: o.thread.to_ascii_uppercase().contains("MANIFEST"),
                publishes,
            }
        })
        .collect()
}

fn windows_of(points: &[Point], ops: &[OpView]) -> Vec<ClassWindow> {
    let words = |i: usize| {
        ops.get(i.wrapping_sub(1))
            .map(|o| format!("{} {}", o.op, o.path))
            .unwrap_or_default()
    };
    let mut out: Vec<ClassWindow> = Vec::new();
    for p in points {
        if let Some(w) = out.last_mut() {
            if w.mode == p.mode && w.class == p.class && w.last + 1 == p.op_index {
                w.last = p.op_index;
                w.last_op = words(p.op_index);
                continue;
            }
        }
        let detail = p.findings.first().map_or_else(
            || match (&p.commit_error, p.class) {
                (_, PointClass::NotReached) => "the fault was not reached".to_owned(),
                _ if p.after.is_some() => match p.recovered.first() {
                    Some(r) if r.error.is_some() => {
                        "the recovery threw; the next one completed the commit".to_owned()
                    }
                    _ => "the recovery returned; the commit is whole".to_owned(),
                },
                (Some(_), PointClass::SpuriousFailure) => {
                    "the commit threw; everything was durable".to_owned()
                }
                (Some(_), _) => "the commit threw; the recovery committed it".to_owned(),
                (None, _) => "the commit returned".to_owned(),
            },
            |f| f.detail.clone(),
        );
        out.push(ClassWindow {
            mode: p.mode,
            first: p.op_index,
            last: p.op_index,
            class: p.class,
            first_op: words(p.op_index),
            last_op: words(p.op_index),
            detail,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requested_operations_past_the_commit_are_kept_apart_and_named() {
        assert_eq!(requested_ops(None, 3), (vec![1, 2, 3], vec![]));
        assert_eq!(
            requested_ops(Some(&[2, 3, 68, 69, 70, 900]), 69),
            (vec![2, 3, 68, 69], vec![70, 900])
        );
        assert_eq!(requested_ops(Some(&[]), 69), (vec![], vec![]));
        assert_eq!(ranges(&[900, 901, 902, 910]), "900-902, 910");
        assert_eq!(ranges(&[7]), "7");
    }

    #[test]
    fn uuids_are_masked_and_nothing_else() {
        assert_eq!(
            mask_uuids("manifest/manifest-list-4130449f-97f3-4e5f-bfcc-96805931abbb-12"),
            "manifest/manifest-list-<uuid>-12"
        );
        assert_eq!(
            mask_uuids("snapshot/.snapshot-3.0b1e8a52-0c2f-4f56-9a43-7d0e1b2c3d4e.tmp"),
            "snapshot/.snapshot-3.<uuid>.tmp"
        );
        assert_eq!(mask_uuids("snapshot/snapshot-3"), "snapshot/snapshot-3");
        assert_eq!(mask_uuids("deadbeef-1234"), "deadbeef-1234");
    }
}
