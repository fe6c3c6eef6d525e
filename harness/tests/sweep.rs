//! The crash-point sweep (issue 25) on the C00 scenario, with the release under test: the class of the
//! operation right before and right after each snapshot publication, found by operation and path in the
//! counting run (never by a hard-coded index). Expected values come from the scenario's writes: commit 1
//! writes (1, 10), commit 2 writes (1, 20).

use crate::common;

use harness::sweep::{sweep, FaultMode, OpView, PointClass, SweepOptions, SweepReport};

fn options(modes: Vec<FaultMode>, ops: Vec<usize>, work: &std::path::Path) -> SweepOptions {
    options_of(
        "corpora/c00-full-compaction-control/scenario.json",
        None,
        modes,
        ops,
        work,
    )
}

fn options_of(
    scenario: &str,
    commit: Option<i64>,
    modes: Vec<FaultMode>,
    ops: Vec<usize>,
    work: &std::path::Path,
) -> SweepOptions {
    SweepOptions {
        scenario_file: common::repo_root().join(scenario),
        modes,
        commit,
        writer: None,
        recoveries: 2,
        recovery_faults: vec![],
        recovery_ops: None,
        ops: Some(ops),
        keep: None,
        work: work.to_path_buf(),
        threads: 2,
        parity: true,
        strategy: Default::default(),
        progress: false,
    }
}

/// The index of the operation publishing the `kind` snapshot (`APPEND`, `COMPACT`): the rename onto
/// `snapshot/snapshot-N`.
fn publication(ops: &[OpView], kind: &str) -> usize {
    ops.iter()
        .find(|o| {
            o.op == "rename"
                && o.path.starts_with("snapshot/snapshot-")
                && o.publishes.as_deref().is_some_and(|p| p.starts_with(kind))
        })
        .unwrap_or_else(|| panic!("no {kind} publication in {ops:?}"))
        .index
}

fn class_at(r: &SweepReport, mode: FaultMode, at: usize) -> PointClass {
    r.points
        .iter()
        .find(|p| p.mode == mode && p.op_index == at)
        .unwrap_or_else(|| panic!("no point {} {at}", mode.name()))
        .class
}

#[test]
fn a_crash_between_the_two_publications_loses_the_changelog_and_nowhere_else() {
    let dir = tempfile::tempdir().unwrap();
    // The counting run alone: the swept commit's operations.
    let counted = sweep(&options(vec![FaultMode::Crash], vec![], dir.path())).unwrap();
    assert_eq!((counted.swept.identifier, counted.points.len()), (2, 0));
    let (append, compact) = (
        publication(&counted.ops, "APPEND"),
        publication(&counted.ops, "COMPACT"),
    );
    assert!(append < compact);
    // The operation before each publication closes the snapshot's temporary file.
    for p in [append, compact] {
        let before = &counted.ops[p - 2];
        assert_eq!(before.op, "close", "{before:?}");
        assert!(before.path.ends_with(".tmp"), "{before:?}");
    }

    let ops = vec![
        append - 1,
        append,
        append + 1,
        compact - 1,
        compact,
        compact + 1,
    ];
    let r = sweep(&options(vec![FaultMode::Crash], ops, dir.path())).unwrap();
    let crash = |at| class_at(&r, FaultMode::Crash, at);
    // Before the APPEND snapshot is durable nothing of commit 2 is visible: the recovery commits it whole.
    assert_eq!(crash(append - 1), PointClass::Ok);
    assert_eq!(crash(append), PointClass::Ok);
    // Between the publications: the recovery drops the COMPACT half (filterCommitted compares identifiers).
    for at in [append + 1, compact - 1, compact] {
        assert_eq!(crash(at), PointClass::ChangelogLost, "op {at}");
        let p = r.points.iter().find(|p| p.op_index == at).unwrap();
        assert_eq!(p.evidence.batch, ["(1, 20)"]);
        assert_eq!(p.evidence.changelog["(1)"], ["(1, 10)"]);
        assert_eq!(p.durable.len(), 1, "{:?}", p.durable);
        assert_eq!(p.durable[0].kind, "APPEND");
        assert_eq!(p.recovered[0].committed, Some(0));
        assert_eq!(p.evidence.audit.as_deref(), Some("changelog-lost"));
        assert_eq!(p.evidence.parity.as_deref(), Some("identical"));
    }
    // After the COMPACT snapshot is durable everything is: a success class.
    assert!(crash(compact + 1).is_success(), "{:?}", crash(compact + 1));
    assert_eq!(r.verdict, "findings");
    assert_eq!(r.exit_code(), 1);
    // OK up to the APPEND publication, then LOST (two runs of indices), then the success after.
    assert_eq!(r.windows.len(), 4, "{:?}", r.windows);

    // The page: a cell per point, the publications outlined, the lost window named; JUnit fails the 3 lost.
    let page = harness::report::sweep_page(&r);
    assert_eq!(page.matches("<li class=\"cell\"").count(), 6);
    assert_eq!(page.matches("outline:2px solid #000").count(), 2);
    assert!(page.contains("FINDINGS: 3 CHANGELOG-LOST"));
    let xml = harness::report::sweep_junit_xml(&r);
    assert!(xml.contains("tests=\"6\" failures=\"3\""), "{xml}");
}

/// With a follow-up commit 3 (+I (1, 30), full compaction), a crash after commit 2's APPEND snapshot is durable
/// loses only the intermediate change: commit 3's full compaction diffs against the top level, which still
/// holds (1, 10), so the stream goes (1, 10) -> (1, 30) and the final table is right.
#[test]
fn a_follow_up_full_compaction_merges_the_lost_change_into_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = "corpora/sweep/c00-full-compaction-follow-up.json";
    let counted = sweep(&options_of(
        scenario,
        Some(2),
        vec![FaultMode::Crash],
        vec![],
        dir.path(),
    ))
    .unwrap();
    let append = publication(&counted.ops, "APPEND");
    let r = sweep(&options_of(
        scenario,
        Some(2),
        vec![FaultMode::Crash],
        vec![append + 1],
        dir.path(),
    ))
    .unwrap();
    let p = &r.points[0];
    assert_eq!(
        p.class,
        PointClass::ChangelogLostHealedLater,
        "{:?}",
        p.findings
    );
    assert_eq!(p.evidence.batch, ["(1, 30)"]);
    assert_eq!(p.evidence.changelog["(1)"], ["(1, 10)", "(1, 30)"]);
    assert_eq!(r.expected.changes["(1)"], ["(1, 10)", "(1, 20)", "(1, 30)"]);
    // The audit names commit 2 as lost and healed later (commit 3 compacted its files), and ties the changelog
    // file the lost COMPACT wrote, which holds +U (1, 20), to it.
    assert_eq!(p.evidence.audit.as_deref(), Some("changelog-lost"));
    assert_eq!(p.evidence.audit_agrees, Some(true));
}

/// A crash inside the recovery: after a crash at the APPEND publication nothing of commit 2 is durable, and
/// the restarted job's `filterAndCommit` commits it whole (APPEND then COMPACT). A crash of that recovery
/// between its own two publications leaves the APPEND durable, and the next restart drops the COMPACT half:
/// the changelog is lost there too. After the recovery's COMPACT publication nothing is lost.
#[test]
fn a_crash_inside_the_recovery_between_its_publications_loses_the_changelog() {
    let dir = tempfile::tempdir().unwrap();
    let counted = sweep(&options(vec![FaultMode::Crash], vec![], dir.path())).unwrap();
    let append = publication(&counted.ops, "APPEND");
    let mut o = options(vec![FaultMode::Crash], vec![append], dir.path());
    o.recovery_faults = vec![FaultMode::Crash];
    o.recovery_ops = Some(vec![]);
    let r = sweep(&o).unwrap();
    assert_eq!(r.points[0].class, PointClass::Ok);
    assert_eq!(r.recovery.len(), 1, "{:?}", r.recovery);
    assert_eq!(r.recovery[0].state, "nothing");
    let (rec_append, rec_compact) = (
        publication(&r.recovery[0].ops, "APPEND"),
        publication(&r.recovery[0].ops, "COMPACT"),
    );
    o.recovery_ops = Some(vec![rec_append, rec_append + 1, rec_compact + 1]);
    let r = sweep(&o).unwrap();
    let class = |at| {
        r.recovery[0]
            .points
            .iter()
            .find(|p| p.op_index == at)
            .unwrap()
            .class
    };
    assert_eq!(class(rec_append), PointClass::Ok);
    assert_eq!(class(rec_append + 1), PointClass::ChangelogLost);
    assert!(
        class(rec_compact + 1).is_success(),
        "{:?}",
        class(rec_compact + 1)
    );
    let lost = r.recovery[0]
        .points
        .iter()
        .find(|p| p.op_index == rec_append + 1)
        .unwrap();
    assert_eq!(lost.evidence.batch, ["(1, 20)"]);
    assert_eq!(lost.evidence.changelog["(1)"], ["(1, 10)"]);
    // The second recovery ran clean and committed nothing: the identifier already had a snapshot.
    assert_eq!(lost.recovered[1].committed, Some(0));
}

/// apache/paimon#9236: two writer subtasks of one job commit under the END_INPUT identifier `Long.MAX_VALUE`;
/// subtask 1's committable, handed to `filterAndCommit` after subtask 0's landed, is dropped. Its rows (keys 3
/// and 4 of partition 1, from the scenario) never reach the table at any point, and the audit finds them only
/// in the data file no snapshot references.
#[test]
fn end_input_committables_of_a_second_subtask_are_filtered_out_at_every_point() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = options_of(
        "corpora/sweep/end-input-two-subtasks.json",
        Some(i64::MAX),
        vec![FaultMode::Crash],
        vec![1],
        dir.path(),
    );
    o.writer = Some("subtask-0".into());
    let r = sweep(&o).unwrap();
    assert_eq!(r.swept.user, "subtask-0");
    let p = &r.points[0];
    assert_eq!(p.class, PointClass::DataLost, "{:?}", p.findings);
    assert_eq!(p.evidence.batch, ["(0, 1, 10)", "(0, 2, 10)"]);
    let lost: Vec<&str> = p
        .findings
        .iter()
        .filter(|f| f.class == PointClass::DataLost)
        .map(|f| f.detail.as_str())
        .collect();
    assert_eq!(lost.len(), 2, "{lost:?}");
    assert!(
        lost[0].contains("key (1, 3)") && lost[1].contains("key (1, 4)"),
        "{lost:?}"
    );
    assert_eq!(p.evidence.audit.as_deref(), Some("rows-never-committed"));
    assert_eq!(p.evidence.audit_agrees, Some(true));
}

/// No verdict without evidence: a sweep that ran no point is NOT-CHECKED (exit 3), never CLEAN, and the
/// operations `--ops` names past the swept commit's are said, never dropped silently.
#[test]
fn a_sweep_of_no_operation_is_not_checked_and_says_why() {
    let run = |ops: &str, extra: &[&str]| {
        let mut args = vec![
            "sweep",
            "c00-full-compaction-control",
            "--fault",
            "crash",
            "--ops",
            ops,
        ];
        args.extend_from_slice(extra);
        common::paimon_parity(&args)
    };
    let (code, out, err) = run("900-910", &["--no-parity"]);
    assert_eq!(code, 3, "{out}{err}");
    let verdict = out.lines().find(|l| l.starts_with("verdict: ")).unwrap();
    assert!(
        verdict.starts_with("verdict: NOT CHECKED: --ops 900-910 names none of the swept commit's"),
        "{verdict}"
    );
    assert!(!out.contains("CLEAN"), "{out}");
    let (code, out, err) = run("", &["--no-parity"]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        out.contains("verdict: NOT CHECKED: --ops names no operation"),
        "{out}"
    );

    // One operation that exists and one past the end: the point runs, the other is named as left out.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("sweep.json");
    let (code, out, err) = run("1,900", &["--json", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let sweep = &r["sweep"];
    assert_eq!(sweep["points"].as_array().unwrap().len(), 1);
    assert_eq!(sweep["verdict"], "clean");
    let ops = sweep["ops"].as_array().unwrap().len();
    let left_out: Vec<&str> = sweep["left_out"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l.as_str())
        .collect();
    assert!(
        left_out.contains(
            &format!(
                "--ops 900: past the swept commit's {ops} file operations on Paimon {}",
                sweep["paimon_version"].as_str().unwrap()
            )
            .as_str()
        ),
        "{left_out:?}"
    );

    // A check left out is not CLEAN: one recovery does not check idempotence, --no-parity skips the replays.
    let (code, out, err) = run("1", &["--no-parity", "--recovery-attempts", "1"]);
    assert_eq!(code, 3, "{out}{err}");
    let verdict = out.lines().find(|l| l.starts_with("verdict: ")).unwrap();
    assert!(
        verdict.starts_with("verdict: NOT CHECKED: no finding at 1 point(s), but not every check ran: idempotence: 1 recovery attempt(s)")
            && verdict.contains("; parity: the native reader's stream and batch replays of each end state were not run (--no-parity)"),
        "{verdict}"
    );
    // A sweep that recovers nothing, and --recovery-ops without a recovery sweep: usage errors.
    let (code, _, err) = run("1", &["--recovery-attempts", "0"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run("1", &["--recovery-ops", "5"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--recovery-fault"), "{err}");

    // A recovery sweep asked for, whose --recovery-ops name none of the recovery's operations: not checked.
    let (code, out, err) = run(
        "1",
        &[
            "--no-parity",
            "--recovery-fault",
            "crash",
            "--recovery-ops",
            "900",
        ],
    );
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        out.contains(
            "verdict: NOT CHECKED: --recovery-fault was given, but --recovery-ops names none"
        ),
        "{out}"
    );
    assert!(
        out.contains("left out of the sweep: --recovery-ops 900: past the"),
        "{out}"
    );
}
