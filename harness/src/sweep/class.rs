//! The class of each crash point: the findings of its checks (`super::check`), the exceptions the fault does
//! not explain, what each recovery did, and whether the audit says what the checks found.

use serde::Serialize;

use crate::corpus::CrashRun;

/// The class of one crash point, worst first in [`PointClass::ALL`]. The first four are success classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "SCREAMING-KEBAB-CASE")]
pub enum PointClass {
    /// A read of the end state throws, or the snapshot chain is invalid (ids not contiguous, a snapshot file
    /// that cannot be read, LATEST past the last snapshot).
    Corrupt,
    /// The swept commit threw an exception that does not carry the injected fault's marker
    /// ([`jvm_bridge::corpus::INJECTED`]): a failure of its own (a `NullPointerException`, a conflict), or
    /// one before the fault point was reached. Not the fault's doing, so the point says nothing about it.
    UnexpectedError,
    /// A recovery (`filterAndCommit` after the restart) threw, other than by the recovery sweep's own
    /// injected fault in the first recovery.
    RecoveryThrew,
    /// A step of the scenario after the swept commit (a later write or commit) threw an exception without
    /// the injected fault's marker.
    LaterStepThrew,
    /// The batch read of the latest snapshot lacks a row the writes made, holds an older value, or holds a
    /// key the writes deleted.
    DataLost,
    /// The batch read holds a key twice.
    DuplicateRows,
    /// A recovery after the first committed again, or added a snapshot; or one (user, identifier) has two
    /// snapshots of one kind.
    NotIdempotent,
    /// The streaming changelog from snapshot 1 never delivers a key's final value.
    ChangelogLost,
    /// The changelog delivers values the writes never made, or repeats one.
    ChangelogDuplicated,
    /// The changelog delivers a commit's change after a later one: it retracts a value the key held before its
    /// current one, so a consumer applying it in order is left at a stale value (a commit's changelog committed
    /// late, after the next commit's).
    ChangelogOutOfOrder,
    /// The changelog delivers each key's final value, but misses an intermediate one: the swept commit's
    /// changelog is lost and a later compaction healed the final values (the audit's `lost-healed-later`
    /// pair; it merged the lost change into the next one).
    ChangelogLostHealedLater,
    /// The native reader does not return what the released reader returns on the end state.
    ParityDiffers,
    /// The fault was never reached: the run made fewer operations than the counting run (no evidence).
    NotReached,
    /// The commit returned, and a later commit threw the fault's error (a maintenance error kept for it).
    DeferredFailure,
    /// The commit threw, but everything was already durable: recovery had nothing to commit.
    SpuriousFailure,
    /// The fault fired and the commit still returned normally (a retry or a swallowed error absorbed it).
    Absorbed,
    /// The commit failed or crashed, and the restarted job's recovery committed it: nothing lost.
    Ok,
}

impl PointClass {
    /// Every class, worst first.
    pub const ALL: [PointClass; 17] = [
        PointClass::Corrupt,
        PointClass::UnexpectedError,
        PointClass::RecoveryThrew,
        PointClass::LaterStepThrew,
        PointClass::DataLost,
        PointClass::DuplicateRows,
        PointClass::NotIdempotent,
        PointClass::ChangelogLost,
        PointClass::ChangelogOutOfOrder,
        PointClass::ChangelogDuplicated,
        PointClass::ChangelogLostHealedLater,
        PointClass::ParityDiffers,
        PointClass::NotReached,
        PointClass::DeferredFailure,
        PointClass::SpuriousFailure,
        PointClass::Absorbed,
        PointClass::Ok,
    ];

    /// The class as the report spells it (`CHANGELOG-LOST`).
    pub fn name(self) -> &'static str {
        match self {
            PointClass::Corrupt => "CORRUPT",
            PointClass::UnexpectedError => "UNEXPECTED-ERROR",
            PointClass::RecoveryThrew => "RECOVERY-THREW",
            PointClass::LaterStepThrew => "LATER-STEP-THREW",
            PointClass::DataLost => "DATA-LOST",
            PointClass::DuplicateRows => "DUPLICATE-ROWS",
            PointClass::NotIdempotent => "NOT-IDEMPOTENT",
            PointClass::ChangelogLost => "CHANGELOG-LOST",
            PointClass::ChangelogDuplicated => "CHANGELOG-DUPLICATED",
            PointClass::ChangelogOutOfOrder => "CHANGELOG-OUT-OF-ORDER",
            PointClass::ChangelogLostHealedLater => "CHANGELOG-LOST-HEALED-LATER",
            PointClass::ParityDiffers => "PARITY-DIFFERS",
            PointClass::NotReached => "NOT-REACHED",
            PointClass::DeferredFailure => "DEFERRED-FAILURE",
            PointClass::SpuriousFailure => "SPURIOUS-FAILURE",
            PointClass::Absorbed => "ABSORBED",
            PointClass::Ok => "OK",
        }
    }

    /// A success class: the commit protocol kept data and changelog whole.
    pub fn is_success(self) -> bool {
        matches!(
            self,
            PointClass::Ok
                | PointClass::Absorbed
                | PointClass::SpuriousFailure
                | PointClass::DeferredFailure
        )
    }

    /// Makes the sweep exit 1: data or changelog lost or wrong, not idempotent, readers differ, or no
    /// evidence.
    pub fn fails(self) -> bool {
        !self.is_success()
    }
}

/// Every finding of one point: the classes that apply, each with its detail.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    /// (class, detail), in the order found.
    pub found: Vec<(PointClass, String)>,
}

impl Findings {
    pub(super) fn add(&mut self, class: PointClass, detail: String) {
        self.found.push((class, detail));
    }

    /// The classes found, in the order found (the tests of this module and of `check` compare them).
    #[cfg(test)]
    pub(super) fn classes(&self) -> Vec<PointClass> {
        self.found.iter().map(|(c, _)| *c).collect()
    }

    /// Whether `class` was found.
    pub(super) fn has(&self, class: PointClass) -> bool {
        self.found.iter().any(|(c, _)| *c == class)
    }
}

/// Whether an exception's text carries the injected fault's marker (the fault's own doing).
fn injected(e: &str) -> bool {
    e.contains(jvm_bridge::corpus::INJECTED)
}

/// The exceptions the fault does not explain: the swept commit's without the fault's marker (before or after
/// the fault point), and a later step's.
pub(super) fn exceptions(run: &CrashRun, f: &mut Findings) {
    if let Some(e) = run.commit_error.as_deref().filter(|e| !injected(e)) {
        let when = if run.window.fired_at > 0 {
            format!("after the fault fired at operation {}", run.window.fired_at)
        } else {
            format!(
                "before the fault point, after {} of its file operations",
                run.window.ops.len()
            )
        };
        f.add(
            PointClass::UnexpectedError,
            format!("the swept commit threw, {when}, an exception without the injected fault's marker: {e}"),
        );
    }
    if let Some((step, e)) = run.later_error.as_ref().filter(|(_, e)| !injected(e)) {
        f.add(
            PointClass::LaterStepThrew,
            format!("step {step} after the swept commit threw: {e}"),
        );
    }
}

pub(super) fn recoveries(run: &CrashRun, f: &mut Findings) {
    for (i, r) in run.recoveries.iter().enumerate() {
        match &r.error {
            // The recovery's own injected fault (a recovery sweep faults the first recovery only): expected.
            Some(e) if i == 0 && run.recovery_window.is_some() && injected(e) => {}
            Some(e) => f.add(
                PointClass::RecoveryThrew,
                format!("recovery {} threw: {e}", i + 1),
            ),
            None => {}
        }
    }
    // Once the commit has landed (it returned; or a recovery returned, having committed it or found it
    // committed), a later recovery of the same committables must commit nothing.
    let mut landed = !run.restarted;
    for (i, r) in run.recoveries.iter().enumerate() {
        let committed = r.committed.unwrap_or(0) > 0 || !r.added.is_empty();
        if landed && committed {
            f.add(
                PointClass::NotIdempotent,
                format!(
                    "recovery {} committed again ({} identifier(s), snapshots {:?})",
                    i + 1,
                    r.committed.unwrap_or(0),
                    r.added.iter().map(|s| s.id).collect::<Vec<_>>()
                ),
            );
        }
        landed |= r.committed.is_some();
    }
}

/// What the audit said of a point's end state ([`audit_agrees`]).
#[derive(Clone, Copy, Debug)]
pub enum AuditAnswer<'a> {
    /// The audit ran: its verdict (`complete`, `changelog-lost`, `rows-never-committed`,
    /// `changelog-diverges`, `not-checked`), and whether it lists files no snapshot references that hold rows
    /// the table or its changelog lacks.
    Verdict {
        /// [`crate::audit::AuditReport::verdict`].
        verdict: &'a str,
        /// Whether [`crate::audit::Uncommitted::findings`] is not empty.
        rows_never_committed: bool,
        /// Whether the audit reports a key as written and durable but returned by no reader
        /// ([`crate::audit::KeyClass::DurableButUnread`]: the level-0 files of a lost COMPACT half on a
        /// deletion-vector table).
        durable_but_unread: bool,
        /// Whether every commit the audit names as having lost its changelog was healed later
        /// ([`crate::inspect::PairStatus::LostHealedLater`]): a dropped COMPACT half whose level-0 files a
        /// later compaction rewrote with changelog.
        healed_only: bool,
    },
    /// The audit failed with an error.
    Failed,
}

/// Whether the audit of a point's end state says what the checks found, exactly:
/// - a corrupt end state: the audit fails, or reports a finding;
/// - rows lost from the batch read: the audit lists the files no snapshot references that hold them (a
///   committable dropped: its `rows-never-committed` part, whatever its headline), or says `changelog-lost`
///   with the rows durable but unread (a deletion-vector table's batch read skips the level-0 files of the
///   lost COMPACT half);
/// - a final value never delivered: `changelog-lost` (an incomplete commit pair);
/// - an intermediate change merged away (a later compaction delivered the final value): `changelog-lost`,
///   or `rows-never-committed` (the lost COMPACT's changelog file, which no snapshot references);
/// - none of those: `complete`, or `changelog-lost` naming only dropped COMPACT halves that a later
///   compaction healed, with no changelog file of theirs holding anything the stream lacks. A `not-checked` audit or a failed one never agrees with a point the checks
///   could judge.
pub fn audit_agrees(findings: &Findings, audit: &AuditAnswer<'_>) -> bool {
    let found = |class| findings.has(class);
    let AuditAnswer::Verdict {
        verdict,
        rows_never_committed,
        durable_but_unread,
        healed_only,
    } = *audit
    else {
        return found(PointClass::Corrupt);
    };
    if found(PointClass::Corrupt) {
        !matches!(verdict, "complete" | "not-checked")
    } else if found(PointClass::DataLost) {
        rows_never_committed || (verdict == "changelog-lost" && durable_but_unread)
    } else if found(PointClass::ChangelogLost) || found(PointClass::ChangelogLostHealedLater) {
        verdict == "changelog-lost"
    } else {
        // Whole at every value: complete; or a dropped COMPACT half the audit names (lost, healed later)
        // whose changes a later compaction, another writer's, delivered again in full: no changelog file of
        // it holds anything the stream lacks.
        verdict == "complete"
            || (verdict == "changelog-lost" && healed_only && !rows_never_committed)
    }
}

/// The class of a point from its findings and how its commit ended (the success classes when nothing was
/// found).
///
/// `fired`: whether the point's fault fired (the commit's, or in a recovery sweep the recovery's).
pub fn classify(run: &CrashRun, findings: &Findings, fired: bool) -> PointClass {
    if let Some(worst) = findings.found.iter().map(|(c, _)| *c).min() {
        return worst;
    }
    if !fired {
        return PointClass::NotReached;
    }
    if run.later_error.as_ref().is_some_and(|(_, e)| injected(e)) {
        return PointClass::DeferredFailure;
    }
    match &run.commit_error {
        None => PointClass::Absorbed,
        Some(_)
            if run
                .recoveries
                .first()
                .is_some_and(|r| r.committed == Some(0)) =>
        {
            PointClass::SpuriousFailure
        }
        Some(_) => PointClass::Ok,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run whose commit made `ops` operations, the fault firing at `fired_at` (0: not reached).
    fn run(ops: usize, fired_at: usize, commit_error: Option<&str>) -> CrashRun {
        let op = jvm_bridge::corpus::FileOp {
            op: "exists".into(),
            path: "snapshot/LATEST".into(),
            thread: "main".into(),
        };
        CrashRun {
            window: jvm_bridge::corpus::CrashWindow {
                ops: vec![op; ops],
                fired_at,
                fired_op: None,
            },
            commit_error: commit_error.map(str::to_owned),
            durable: vec![],
            before: vec![],
            restarted: commit_error.is_some(),
            recoveries: vec![],
            recovery_window: None,
            later_error: None,
        }
    }

    fn recovery(committed: Option<i32>, error: Option<&str>) -> crate::corpus::Recovery {
        crate::corpus::Recovery {
            committed,
            error: error.map(str::to_owned),
            added: vec![],
            compact_halves: vec![],
            conflicts: vec![],
        }
    }

    /// The class `check` and `classify` give a run whose end state the reads find whole.
    fn class_of(run: &CrashRun, fired: bool) -> PointClass {
        let mut f = Findings::default();
        exceptions(run, &mut f);
        recoveries(run, &mut f);
        classify(run, &f, fired)
    }

    const FAULT: &str = "java.io.IOException: paimon-parity injected fault: crash at operation 5";

    #[test]
    fn only_exceptions_carrying_the_injected_fault_are_the_faults_doing() {
        // The fault fired, the commit threw it, the recovery committed the identifier: OK.
        let mut r = run(5, 5, Some(FAULT));
        r.recoveries = vec![recovery(Some(1), None), recovery(Some(0), None)];
        assert_eq!(class_of(&r, true), PointClass::Ok);
        // The same, but the commit's exception does not carry the marker (an NPE after the fault fired).
        r.commit_error = Some("java.lang.NullPointerException: manifest".into());
        assert_eq!(class_of(&r, true), PointClass::UnexpectedError);
        // Nothing was durable and recovery committed nothing: was SPURIOUS-FAILURE, a success class.
        r.recoveries = vec![recovery(Some(0), None), recovery(Some(0), None)];
        assert_eq!(class_of(&r, true), PointClass::UnexpectedError);
        // An exception before the fault point (3 operations of a fault at 5): not NOT-REACHED.
        let mut r = run(3, 0, Some("java.lang.IllegalStateException: conflict"));
        r.recoveries = vec![recovery(Some(1), None)];
        assert_eq!(class_of(&r, false), PointClass::UnexpectedError);
        let mut f = Findings::default();
        exceptions(&r, &mut f);
        assert!(
            f.found[0].1.contains("before the fault point, after 3"),
            "{:?}",
            f.found
        );
        // The commit returned before reaching the fault: NOT-REACHED, a failing class.
        let r = run(3, 0, None);
        assert_eq!(class_of(&r, false), PointClass::NotReached);
        assert!(PointClass::NotReached.fails());
    }

    #[test]
    fn a_later_steps_exception_is_its_own_class_not_the_recoverys() {
        let mut r = run(5, 5, None);
        r.later_error = Some((4, "java.lang.RuntimeException: no space".into()));
        assert_eq!(class_of(&r, true), PointClass::LaterStepThrew);
        assert!(PointClass::LaterStepThrew.fails());
        // A later commit that throws the fault's error kept for it: DEFERRED-FAILURE.
        r.later_error = Some((4, FAULT.into()));
        assert_eq!(class_of(&r, true), PointClass::DeferredFailure);
    }

    #[test]
    fn a_recovery_may_throw_the_injected_fault_only_in_a_recovery_sweep() {
        let mut r = run(5, 5, Some(FAULT));
        r.recoveries = vec![recovery(None, Some(FAULT)), recovery(Some(1), None)];
        // A commit sweep: no fault was injected into the recovery, so its exception is a finding.
        assert_eq!(class_of(&r, true), PointClass::RecoveryThrew);
        // A recovery sweep faults the first recovery: expected there, and only there.
        r.recovery_window = Some(jvm_bridge::corpus::CrashWindow::default());
        assert_eq!(class_of(&r, true), PointClass::Ok);
        r.recoveries.swap(0, 1);
        assert_eq!(class_of(&r, true), PointClass::RecoveryThrew);
    }

    #[test]
    fn a_recovery_that_returned_lands_the_commit_even_when_it_committed_nothing() {
        // The commit threw after both snapshots were durable: recovery 1 finds it committed (0), and a
        // recovery 2 that commits again is not idempotent.
        let mut r = run(5, 5, Some(FAULT));
        r.recoveries = vec![recovery(Some(0), None), recovery(Some(1), None)];
        assert_eq!(class_of(&r, true), PointClass::NotIdempotent);
        // A recovery that threw did not land it: the next one may commit.
        r.recoveries = vec![
            recovery(None, Some("java.io.IOException: disk")),
            recovery(Some(1), None),
        ];
        assert_eq!(class_of(&r, true), PointClass::RecoveryThrew);
        let mut f = Findings::default();
        recoveries(&r, &mut f);
        assert!(
            !f.classes().contains(&PointClass::NotIdempotent),
            "{:?}",
            f.found
        );
    }

    #[test]
    fn the_audit_agrees_only_when_it_says_exactly_what_the_checks_found() {
        let with = |class: Option<PointClass>| {
            let mut f = Findings::default();
            if let Some(c) = class {
                f.add(c, String::new());
            }
            f
        };
        let said = |verdict, rows_never_committed| AuditAnswer::Verdict {
            verdict,
            rows_never_committed,
            durable_but_unread: false,
            healed_only: false,
        };
        let lost = with(Some(PointClass::ChangelogLost));
        assert!(audit_agrees(&lost, &said("changelog-lost", false)));
        assert!(!audit_agrees(&lost, &said("rows-never-committed", true)));
        assert!(!audit_agrees(&lost, &said("changelog-diverges", false)));
        // Rows lost: the audit must name the files that hold them, not only a lost changelog.
        let data = with(Some(PointClass::DataLost));
        assert!(audit_agrees(&data, &said("rows-never-committed", true)));
        assert!(audit_agrees(&data, &said("changelog-lost", true)));
        assert!(!audit_agrees(&data, &said("changelog-lost", false)));
        // A deletion-vector table: the rows are durable in level 0, which no reader returns.
        let unread = |verdict| AuditAnswer::Verdict {
            verdict,
            rows_never_committed: false,
            durable_but_unread: true,
            healed_only: false,
        };
        assert!(audit_agrees(&data, &unread("changelog-lost")));
        assert!(!audit_agrees(&data, &unread("changelog-diverges")));
        // Lost, healed later: the audit names the commit (its lost-healed-later pair), and a changelog file
        // alone is no longer the story.
        let merged = with(Some(PointClass::ChangelogLostHealedLater));
        assert!(!audit_agrees(&merged, &said("rows-never-committed", true)));
        assert!(audit_agrees(&merged, &said("changelog-lost", false)));
        assert!(!audit_agrees(&merged, &said("changelog-diverges", false)));
        assert!(!audit_agrees(&merged, &said("not-checked", false)));
        // Nothing lost: complete, and nothing else; a failed or not-checked audit never agrees.
        let whole = with(None);
        assert!(audit_agrees(&whole, &said("complete", false)));
        assert!(!audit_agrees(&whole, &said("not-checked", false)));
        assert!(!audit_agrees(&whole, &said("changelog-lost", false)));
        // Whole, and a dropped COMPACT half another writer's compaction delivered again in full: the audit
        // names it, healed later; with an incomplete commit, or a changelog file the stream lacks, it does not
        // agree.
        let healed = |rows_never_committed| AuditAnswer::Verdict {
            verdict: "changelog-lost",
            rows_never_committed,
            durable_but_unread: false,
            healed_only: true,
        };
        assert!(audit_agrees(&whole, &healed(false)));
        assert!(!audit_agrees(&whole, &healed(true)));
        assert!(!audit_agrees(&whole, &AuditAnswer::Failed));
        assert!(!audit_agrees(&lost, &AuditAnswer::Failed));
        // A corrupt end state: the audit fails or finds something.
        let corrupt = with(Some(PointClass::Corrupt));
        assert!(audit_agrees(&corrupt, &AuditAnswer::Failed));
        assert!(!audit_agrees(&corrupt, &said("complete", false)));
    }
}
