//! Running the points of a sweep: each one a scenario run with its fault, checked, replayed and audited, `--threads`
//! at a time in the one JVM, each in its own table under the work directory.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::check::{self, Evidence, SnapshotRef};
use super::class::{self, PointClass};
use super::oracle::Expected;
use super::plan::SweptCommit;
use super::{
    mask_uuids, ClassWindow, FaultMode, Finding, OpView, Point, RecoveryView, SweepOptions,
};
use crate::corpus::{run_with_crash_point, CrashPoint, Scenario};
use crate::error::{Error, Result};
use crate::reader::{NativeTableReader, StockTableReader};
use crate::replay::{ReplayMode, ReplayOptions};

/// What every point of one sweep shares.
pub(super) struct Ctx<'a> {
    pub(super) options: &'a SweepOptions,
    pub(super) scenario: &'a Scenario,
    pub(super) swept: &'a SweptCommit,
    pub(super) expected: &'a Expected,
    pub(super) stock: &'a StockTableReader,
    pub(super) native: &'a NativeTableReader,
}

/// One point to run: the commit fault, and a fault in the first recovery.
#[derive(Clone, Copy)]
pub(super) struct Job {
    pub(super) commit: (FaultMode, usize),
    pub(super) recovery: Option<(FaultMode, usize)>,
}

impl Job {
    /// The point's own fault: the recovery's in a recovery sweep, else the commit's.
    fn own(&self) -> (FaultMode, usize) {
        self.recovery.unwrap_or(self.commit)
    }

    fn dir(&self, work: &Path) -> PathBuf {
        match self.recovery {
            None => work.join(format!("{}-{:03}", self.commit.0.name(), self.commit.1)),
            Some((m, i)) => work.join(format!(
                "recovery-{}-{:03}-{}-{i:03}",
                self.commit.0.name(),
                self.commit.1,
                m.name()
            )),
        }
    }
}

/// Runs `jobs`, `options.threads` at a time, in one JVM; the points in the order of `jobs`.
pub(super) fn run_jobs(
    ctx: &Ctx<'_>,
    jobs: &[Job],
    ops: &[OpView],
    rec_ops: &[OpView],
    label: &str,
) -> Result<Vec<Point>> {
    let bar = ctx.options.progress.then(|| {
        let b = indicatif::ProgressBar::new(jobs.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "sweep {msg}: {bar:30} {pos}/{len} points, {elapsed} (eta {eta})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b.set_message(label.to_owned());
        b
    });
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Point>>>> =
        Mutex::new((0..jobs.len()).map(|_| None).collect());
    let threads = ctx.options.threads.max(1).min(jobs.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                if crate::replay::interrupted() {
                    break;
                }
                let n = next.fetch_add(1, Ordering::SeqCst);
                let Some(job) = jobs.get(n).copied() else {
                    break;
                };
                let point = run_point(ctx, ops, rec_ops, job);
                if let Some(b) = &bar {
                    b.inc(1);
                }
                if let Ok(mut r) = results.lock() {
                    r[n] = Some(point);
                }
            });
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let results = results.into_inner().unwrap_or_default();
    let mut points = Vec::with_capacity(results.len());
    for r in results {
        match r {
            Some(p) => points.push(p?),
            None => {
                return Err(Error::Usage(
                    "the sweep was interrupted before every point ran".into(),
                ))
            }
        }
    }
    Ok(points)
}

/// Keeps the table of each window's first point under `--keep` (as `<prefix><mode>-<op>`); removes the rest.
pub(super) fn keep_firsts(
    options: &SweepOptions,
    points: &mut [Point],
    windows: &[ClassWindow],
    prefix: &str,
) {
    for p in points.iter_mut() {
        let dir = options.work.join(&p.work_dir);
        let first = windows
            .iter()
            .any(|w| w.mode == p.mode && w.first == p.op_index);
        if let (Some(keep), true) = (&options.keep, first) {
            let to = keep.join(format!("{prefix}{}-{:03}", p.mode.name(), p.op_index));
            let _ = std::fs::remove_dir_all(&to);
            if std::fs::create_dir_all(keep).is_ok()
                && std::fs::rename(dir.join("table"), &to).is_ok()
            {
                p.kept = Some(to);
            }
        }
        super::remove_work(&dir);
    }
}

fn run_point(ctx: &Ctx<'_>, ops: &[OpView], rec_ops: &[OpView], job: Job) -> Result<Point> {
    let started = Instant::now();
    let options = ctx.options;
    let dir = job.dir(&options.work);
    super::remove_work(&dir);
    let table = dir.join("table");
    let run = run_with_crash_point(
        ctx.scenario,
        &table,
        &super::io_dir(&dir),
        ctx.stock,
        &CrashPoint {
            step: ctx.swept.step,
            mode: job.commit.0,
            at: job.commit.1,
            recoveries: options.recoveries.max(usize::from(job.recovery.is_some())),
            recovery_fault: job.recovery,
            strategy: options.strategy,
        },
    )?;
    let table = if native_reader::fileio::is_store(&table) {
        table
    } else {
        std::fs::canonicalize(&table).unwrap_or(table)
    };
    let mut evidence = Evidence::default();
    let mut findings = check::check(ctx.stock, &table, &run, ctx.expected, &mut evidence);
    if options.parity {
        evidence.parity = Some(parity(&table, ctx.stock, ctx.native, &mut findings));
    }
    match crate::audit::audit(&table, crate::audit::AuditReaders::Native) {
        Ok(a) => {
            let answer = class::AuditAnswer::Verdict {
                verdict: a.verdict,
                rows_never_committed: a.uncommitted.findings().next().is_some(),
                durable_but_unread: a
                    .findings
                    .iter()
                    .any(|f| f.key.class == crate::audit::KeyClass::DurableButUnread),
                healed_only: a.pairs.iter().any(|p| p.status.lost_changelog())
                    && a.pairs
                        .iter()
                        .all(|p| p.status != crate::inspect::PairStatus::Incomplete),
            };
            evidence.audit_agrees = Some(class::audit_agrees(&findings, &answer));
            evidence.audit = Some(a.verdict.to_owned());
        }
        Err(e) => {
            evidence.audit_agrees =
                Some(class::audit_agrees(&findings, &class::AuditAnswer::Failed));
            evidence.audit = Some(format!("error: {e}"));
        }
    }
    // Temporary snapshot objects left behind (`snapshot/.snapshot-N.<uuid>.tmp`), local or in the store.
    let snapshot_dir = table.join("snapshot");
    evidence.tmp_files = native_reader::fileio::for_path(&snapshot_dir)
        .ok()
        .and_then(|io| io.list(&snapshot_dir).ok())
        .map_or(0, |names| {
            names.iter().filter(|n| n.ends_with(".tmp")).count()
        });
    let (own_window, own_ops) = match job.recovery {
        None => (Some(&run.window), ops),
        Some(_) => (run.recovery_window.as_ref(), rec_ops),
    };
    let fired = own_window.is_some_and(|w| w.fired_at > 0);
    let class = class::classify(&run, &findings, fired);
    let (mode, at) = job.own();
    let counted = own_ops.get(at.wrapping_sub(1));
    let words = |op: &str, path: &str| format!("{op} {path}");
    let fired_on = own_window
        .filter(|w| w.fired_at > 0)
        .and_then(|w| w.ops.get(at.wrapping_sub(1)))
        .map(|o| words(&o.op, &mask_uuids(&o.path)))
        .filter(|f| counted.is_none_or(|c| *f != words(&c.op, &c.path)));
    let new_since = |s: &crate::corpus::SnapshotSummary| !run.before.iter().any(|b| b.id == s.id);
    Ok(Point {
        mode,
        op_index: at,
        op: counted.map(|c| c.op.clone()).unwrap_or_default(),
        path: counted.map(|c| c.path.clone()).unwrap_or_default(),
        class,
        findings: findings
            .found
            .into_iter()
            .map(|(class, detail)| Finding { class, detail })
            .collect(),
        fired_on,
        commit_error: run.commit_error.clone(),
        durable: run
            .durable
            .iter()
            .filter(|s| new_since(s))
            .map(SnapshotRef::from)
            .collect(),
        recovered: run
            .recoveries
            .iter()
            .map(|r| RecoveryView {
                committed: r.committed,
                error: r.error.clone(),
                added: r.added.iter().map(SnapshotRef::from).collect(),
                compact_halves: r.compact_halves.clone(),
                conflicts: r.conflicts.clone(),
            })
            .collect(),
        evidence,
        after: None,
        kept: None,
        work_dir: dir
            .strip_prefix(&options.work)
            .map(Path::to_path_buf)
            .unwrap_or_default(),
        millis: started.elapsed().as_millis() as u64,
    })
}

/// Replays the end state in stream and batch mode; `identical`, or what differs (a `PARITY-DIFFERS` finding).
fn parity(
    table: &Path,
    stock: &StockTableReader,
    native: &NativeTableReader,
    findings: &mut class::Findings,
) -> String {
    let mut out = Vec::new();
    for mode in [ReplayMode::Stream, ReplayMode::Batch] {
        let options = ReplayOptions {
            progress: false,
            mode,
            ..ReplayOptions::default()
        };
        match crate::replay::replay(table, stock, native, &options) {
            Ok(r) if r.verdict == "identical" => {}
            Ok(r) => out.push(format!(
                "{}: {}{}",
                mode.name(),
                r.verdict,
                r.first_difference
                    .as_ref()
                    .map(|d| format!(" ({})", d.detail))
                    .unwrap_or_default()
            )),
            Err(e) => out.push(format!("{}: {e}", mode.name())),
        }
    }
    if out.is_empty() {
        "identical".to_owned()
    } else {
        let text = out.join("; ");
        findings.found.push((
            PointClass::ParityDiffers,
            format!("native against released: {text}"),
        ));
        text
    }
}
