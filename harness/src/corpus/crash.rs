//! One run of a scenario with a fault at one numbered file operation of one commit: what the crash-point
//! sweep (`crate::sweep`) classes. The released writer does everything; this module only drives it and
//! records what happened.

use std::path::Path;

use jvm_bridge::corpus::{
    close_crash_window, open_crash_window, CrashWindow, FaultMode, RecoveryStrategy,
};
use serde::Serialize;

use super::generate::Run;
use super::summary::explain;
use super::summary::{snapshot_summaries, SnapshotSummary};
use super::{Scenario, Step};
use crate::error::{Error, Result};
use crate::reader::StockTableReader;

/// Where and how [`run_with_crash_point`] faults a scenario.
#[derive(Clone, Copy, Debug)]
pub struct CrashPoint {
    /// The index in the scenario's steps of the swept `commit` step.
    pub step: usize,
    /// The fault.
    pub mode: FaultMode,
    /// The operation of the swept commit it fires at, from 1 (ignored for [`FaultMode::None`]).
    pub at: usize,
    /// How many times the restarted job recovers the swept commit (`filterAndCommit` of its committables).
    pub recoveries: usize,
    /// A fault inside the first recovery: its mode and the recovery's operation it fires at (from 1).
    /// [`FaultMode::None`] counts the first recovery's operations without a fault; `None` records nothing.
    pub recovery_fault: Option<(FaultMode, usize)>,
    /// How the restarted job recovers (`filterAndCommit` as released, or pair-aware first).
    pub strategy: RecoveryStrategy,
}

/// What one recovery did.
#[derive(Clone, Debug, Serialize)]
pub struct Recovery {
    /// How many identifiers `filterAndCommit` committed; `None` when it threw.
    pub committed: Option<i32>,
    /// Its exception, when it threw.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The snapshots it added (`APPEND`, `COMPACT`, …, by id).
    pub added: Vec<SnapshotSummary>,
    /// Identifiers whose COMPACT half the pair-aware step committed whole.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub compact_halves: Vec<i64>,
    /// Identifiers with a message whose COMPACT half the pair-aware step left out, because a later commit had
    /// already removed a file it compacts (that compaction made the changelog of the same changes).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<i64>,
}

/// What happened in one run ([`run_with_crash_point`]).
#[derive(Clone, Debug, Serialize)]
pub struct CrashRun {
    /// The swept commit's file operations, and where the fault fired.
    pub window: CrashWindow,
    /// The swept commit's exception, when `commit` threw.
    pub commit_error: Option<String>,
    /// The snapshots present right after the swept commit returned or threw (before any recovery).
    pub durable: Vec<SnapshotSummary>,
    /// The snapshots present before the swept commit.
    pub before: Vec<SnapshotSummary>,
    /// Whether the job restarted right after the swept commit (it threw, or the fault crashed the process):
    /// the recoveries then came before the later steps.
    pub restarted: bool,
    /// Each recovery, in order. The job restarts when the commit threw or crashed; when it returned, the steps
    /// after it run first on the same committer, then the restarts (which must commit nothing).
    pub recoveries: Vec<Recovery>,
    /// The first recovery's file operations and where its fault fired, when [`CrashPoint::recovery_fault`]
    /// was set.
    pub recovery_window: Option<CrashWindow>,
    /// A step after the swept commit that failed: its index and exception. With the injected fault's marker in
    /// it, a failure the swept commit left for the next commit (`DEFERRED-FAILURE`).
    pub later_error: Option<(usize, String)>,
}

/// Runs `scenario` into `table` (created here; it must not exist), with a fault of `point.mode` at operation
/// `point.at` of the swept commit, then recovers as a restarted Flink job does ([`CrashRun`]).
///
/// The steps before the swept commit must succeed (their own faults and expected errors are the caller's
/// to remove); a failure there is an error, as is a scenario whose step `point.step` is not a `commit`.
pub fn run_with_crash_point(
    scenario: &Scenario,
    table: &Path,
    io_tmp: &Path,
    stock: &StockTableReader,
    point: &CrashPoint,
) -> Result<CrashRun> {
    let Some(Step::Commit {
        user,
        identifier,
        wait_compaction,
        watermark,
        ..
    }) = scenario.steps.get(point.step)
    else {
        return Err(Error::Scenario(format!(
            "step {} of scenario `{}` is not a commit",
            point.step, scenario.name
        )));
    };
    if super::location_exists(table) {
        return Err(Error::Scenario(format!(
            "{} already exists",
            table.display()
        )));
    }
    std::fs::create_dir_all(io_tmp).map_err(|e| Error::Io {
        path: io_tmp.to_path_buf(),
        source: e,
    })?;
    let schema = serde_json::to_string(&scenario.table).map_err(|e| Error::ScenarioSource {
        context: String::new(),
        source: e.into(),
    })?;
    jvm_bridge::CorpusWriter::create_table(table, &schema)?;
    let mut run = Run::new(table, io_tmp, &scenario.table, stock);
    run.writer_options = scenario.writer_options.clone();
    run.commit_users = scenario.commit_users.clone();
    let outcome = crash_steps(
        &mut run,
        scenario,
        point,
        user,
        (*identifier, *watermark),
        *wait_compaction,
    );
    // Whatever happened, the window must not stay open.
    let _ = close_crash_window(table);
    // Closing after a crash can fail (the old writer's FileIO is gone): that is the crash, not an error.
    let _ = run.close();
    outcome
}

fn crash_steps(
    run: &mut Run<'_>,
    scenario: &Scenario,
    point: &CrashPoint,
    user: &str,
    (identifier, watermark): (i64, Option<i64>),
    wait_compaction: bool,
) -> Result<CrashRun> {
    for (i, step) in scenario.steps[..point.step].iter().enumerate() {
        run.step(i, step).map_err(|e| {
            Error::Scenario(format!(
                "step {i} ({}) before the swept commit: {}",
                super::scenario::step_name(step),
                explain(&e)
            ))
        })?;
    }
    run.note_identifier(user, identifier)?;
    // No snapshot directory yet when the swept commit is the first.
    let before = snapshot_summaries(run.table).unwrap_or_default();
    let table = run.table;
    let writer = &run.writer(user)?.writer;
    writer.prepare(identifier, wait_compaction)?;
    open_crash_window(table, point.mode, point.at)?;
    let committed = writer.commit_prepared_carrying(identifier, watermark);
    let window = close_crash_window(table)?;
    let commit_error = committed.err().map(|e| explain(&Error::from(e)));
    let durable = snapshot_summaries(run.table).unwrap_or_default();
    let restart = commit_error.is_some() || (point.mode == FaultMode::Crash && window.fired_at > 0);
    let mut out = CrashRun {
        window,
        commit_error,
        durable,
        before,
        restarted: restart,
        recoveries: Vec::new(),
        recovery_window: None,
        later_error: None,
    };
    let later = &scenario.steps[point.step + 1..];
    if restart {
        // Other jobs' steps while the swept job is down, up to its `restart` step.
        let down = later
            .iter()
            .position(|s| matches!(s, Step::Restart))
            .unwrap_or(0);
        out.later_error = later_steps(run, point.step + 1, &later[..down]);
        recover(run, user, identifier, point, &mut out)?;
        run.mark_stale_after_recovery(user);
        if out.later_error.is_none() {
            out.later_error = later_steps(run, point.step + 1 + down, &later[down..]);
        }
    } else {
        out.later_error = later_steps(run, point.step + 1, later);
        recover(run, user, identifier, point, &mut out)?;
    }
    Ok(out)
}

fn recover(
    run: &mut Run<'_>,
    user: &str,
    identifier: i64,
    point: &CrashPoint,
    out: &mut CrashRun,
) -> Result<()> {
    for attempt in 0..point.recoveries {
        let before = snapshot_summaries(run.table).unwrap_or_default();
        let fault = point.recovery_fault.filter(|_| attempt == 0);
        if let Some((mode, at)) = fault {
            open_crash_window(run.table, mode, at)?;
        }
        let result = run
            .writer(user)?
            .writer
            .recover_identifier_with(identifier, point.strategy);
        if fault.is_some() {
            out.recovery_window = Some(close_crash_window(run.table)?);
        }
        let after = snapshot_summaries(run.table).unwrap_or_default();
        let added = after
            .into_iter()
            .filter(|s| !before.iter().any(|b| b.id == s.id))
            .collect();
        let (outcome, error) = match result {
            Ok(o) => (Some(o), None),
            Err(e) => (None, Some(explain(&Error::from(e)))),
        };
        let (compact_halves, conflicts) = outcome
            .as_ref()
            .map(|o| (o.compact_halves.clone(), o.conflicts.clone()))
            .unwrap_or_default();
        out.recoveries.push(Recovery {
            committed: outcome.map(|o| o.committed),
            error,
            added,
            compact_halves,
            conflicts,
        });
    }
    Ok(())
}

/// Runs `steps` (which start at index `first` of the scenario); the first that fails stops them.
fn later_steps(run: &mut Run<'_>, first: usize, steps: &[Step]) -> Option<(usize, String)> {
    for (i, step) in steps.iter().enumerate() {
        if let Err(e) = run.step(first + i, step) {
            return Some((first + i, explain(&e)));
        }
    }
    None
}
