//! The released-API remedy of issue 35 (`sweep --recovery pair-aware`, the bridge's `PairAwareRecovery`), on
//! the release under test. Points are found by the publications of the counting run, never by a hard-coded
//! index. Expected values come from the scenarios' writes: the writer's commit 1 writes (1, 10), its commit 2
//! writes (1, 20).

use crate::common;

use harness::sweep::{
    sweep, FaultMode, OpView, PointClass, RecoveryStrategy, SweepOptions, SweepReport,
};

fn options(
    scenario: &str,
    writer: Option<&str>,
    strategy: RecoveryStrategy,
    ops: Vec<usize>,
    work: &std::path::Path,
) -> SweepOptions {
    SweepOptions {
        scenario_file: common::repo_root().join(scenario),
        modes: vec![FaultMode::Crash],
        commit: Some(2),
        writer: writer.map(str::to_owned),
        recoveries: 2,
        recovery_faults: vec![],
        recovery_ops: None,
        ops: Some(ops),
        keep: None,
        work: work.to_path_buf(),
        threads: 2,
        parity: true,
        strategy,
        progress: false,
    }
}

/// The index of the rename publishing the `kind` snapshot.
fn publication(ops: &[OpView], kind: &str) -> usize {
    ops.iter()
        .find(|o| o.publishes.as_deref().is_some_and(|p| p.starts_with(kind)))
        .unwrap_or_else(|| panic!("no {kind} publication in {ops:?}"))
        .index
}

/// The swept commit's APPEND and COMPACT publications (a counting run alone).
fn publications(scenario: &str, writer: Option<&str>, work: &std::path::Path) -> (usize, usize) {
    let counted = sweep(&options(
        scenario,
        writer,
        RecoveryStrategy::Stock,
        vec![],
        work,
    ))
    .unwrap();
    (
        publication(&counted.ops, "APPEND"),
        publication(&counted.ops, "COMPACT"),
    )
}

fn point(r: &SweepReport, at: usize) -> &harness::sweep::Point {
    r.points.iter().find(|p| p.op_index == at).unwrap()
}

/// C00's full-compaction table: a crash between the two publications leaves the APPEND snapshot of commit 2
/// durable and its COMPACT one not. Released recovery drops commit 2 and its changelog (CHANGELOG-LOST);
/// pair-aware recovery commits the COMPACT half alone with identifier 2, once, and the stream delivers
/// (1, 10) then (1, 20).
#[test]
fn pair_aware_recovery_commits_the_missing_compact_half_once() {
    let scenario = "corpora/c00-full-compaction-control/scenario.json";
    let dir = tempfile::tempdir().unwrap();
    let (append, compact) = publications(scenario, None, dir.path());
    let between = vec![append + 1, compact - 1, compact];
    let stock = sweep(&options(
        scenario,
        None,
        RecoveryStrategy::Stock,
        between.clone(),
        dir.path(),
    ))
    .unwrap();
    for &at in &between {
        assert_eq!(
            point(&stock, at).class,
            PointClass::ChangelogLost,
            "op {at}"
        );
    }
    let r = sweep(&options(
        scenario,
        None,
        RecoveryStrategy::PairAware,
        between.clone(),
        dir.path(),
    ))
    .unwrap();
    assert_eq!(r.recovery_strategy, RecoveryStrategy::PairAware);
    for &at in &between {
        let p = point(&r, at);
        assert_eq!(p.class, PointClass::Ok, "op {at}: {:?}", p.findings);
        assert_eq!(p.durable.len(), 1);
        assert_eq!(p.durable[0].kind, "APPEND");
        let first = &p.recovered[0];
        assert_eq!(first.compact_halves, [2]);
        assert_eq!(first.committed, Some(1));
        assert_eq!(first.added.len(), 1, "{:?}", first.added);
        assert_eq!(
            (first.added[0].kind.as_str(), first.added[0].identifier),
            ("COMPACT", 2)
        );
        // The second restart finds the pair complete: nothing more.
        assert_eq!(p.recovered[1].committed, Some(0));
        assert!(p.recovered[1].added.is_empty());
        assert_eq!(p.evidence.batch, ["(1, 20)"]);
        assert!(
            p.evidence.changelog.is_empty(),
            "{:?}",
            p.evidence.changelog
        );
        assert_eq!(p.evidence.audit.as_deref(), Some("complete"));
        assert_eq!(p.evidence.parity.as_deref(), Some("identical"));
    }
    assert_eq!((r.verdict, r.exit_code()), ("clean", 0));
}

/// The conflict: a dedicated compaction job fully compacts the bucket while the writer's job is down, so the
/// files commit 2's COMPACT half compacts are gone when the writer recovers (committing it would fail with
/// "File deletion conflicts detected!"). The compactor's compaction made the changelog of (1, 20) itself:
/// released recovery loses nothing there, and pair-aware recovery leaves the half out (committing its
/// changelog too would deliver the change twice).
#[test]
fn pair_aware_recovery_leaves_out_a_half_a_later_compaction_rewrote() {
    let scenario = "corpora/sweep/compaction-job-while-down.json";
    let dir = tempfile::tempdir().unwrap();
    let (append, compact) = publications(scenario, Some("writer"), dir.path());
    for strategy in [RecoveryStrategy::Stock, RecoveryStrategy::PairAware] {
        let r = sweep(&options(
            scenario,
            Some("writer"),
            strategy,
            vec![append + 1, compact],
            dir.path(),
        ))
        .unwrap();
        for at in [append + 1, compact] {
            let p = point(&r, at);
            assert_eq!(
                p.class,
                PointClass::SpuriousFailure,
                "{strategy:?} op {at}: {:?}",
                p.findings
            );
            let conflicts: &[i64] = if strategy == RecoveryStrategy::PairAware {
                &[2]
            } else {
                &[]
            };
            assert_eq!(p.recovered[0].conflicts, conflicts);
            assert_eq!(p.recovered[0].committed, Some(0));
            assert_eq!(p.evidence.batch, ["(1, 20)"]);
            assert!(
                p.evidence.changelog.is_empty(),
                "{:?}",
                p.evidence.changelog
            );
            // The compactor's commit came between: APPEND and COMPACT of user `compactor`.
            assert!(
                p.evidence
                    .snapshots
                    .iter()
                    .any(|s| s.user == "compactor" && s.kind == "COMPACT"),
                "{:?}",
                p.evidence.snapshots
            );
        }
    }
}

/// The patch of release `version`'s Java API generation (`remedies/pair-recovery/paimon-<generation>.patch`).
fn patch_of(version: &str) -> std::path::PathBuf {
    let generation = match version {
        "1.0.0" | "1.0.1" | "1.1.1" | "1.2.0" => "1.0",
        "1.3.1" => "1.3",
        _ => "1.4",
    };
    common::repo_root().join(format!("remedies/pair-recovery/paimon-{generation}.patch"))
}

/// The remedy in Paimon's commit (`remedies/pair-recovery`), built as candidate `pair-recovery-<V>` of the
/// release under test (`scripts/build-java --candidate`) and swept at the points between C00's two
/// publications in every fault mode: the released recovery loses the changelog there (above), the patched
/// one commits the missing COMPACT half, and the reports name the candidate, never the release. In the
/// conflict scenario it gives the half up as pair-aware recovery does.
#[test]
fn the_patched_commit_recovers_the_missing_compact_half() {
    let version = common::line_version();
    let name = format!("pair-recovery-{version}");
    let out = std::process::Command::new(common::repo_root().join("scripts/build-java"))
        .args(["--candidate", &name, "--based-on", &version, "--patch"])
        .arg(patch_of(&version))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = tempfile::tempdir().unwrap();
    for (scenario, writer, want) in [
        (
            "corpora/c00-full-compaction-control/scenario.json",
            None,
            "OK",
        ),
        (
            "corpora/sweep/compaction-job-while-down.json",
            Some("writer"),
            "SPURIOUS-FAILURE",
        ),
    ] {
        let (append, compact) = publications(scenario, writer, dir.path());
        let json = dir.path().join("sweep.json");
        let ops = format!("{},{},{}", append + 1, compact - 1, compact);
        let scenario_path = common::repo_root().join(scenario);
        let mut args = vec![
            "sweep",
            common::path_str(&scenario_path),
            "--candidate",
            &name,
            "--commit",
            "2",
            "--fault",
            "crash",
            "--ops",
            &ops,
            "--json",
            common::path_str(&json),
        ];
        if let Some(w) = writer {
            args.extend(["--writer", w]);
        }
        let (code, out, err) = common::paimon_parity(&args);
        assert_eq!(code, 0, "{scenario}: {out}{err}");
        let r = common::read_json(&json)["sweep"].clone();
        assert_eq!(r["paimon"]["candidate"]["name"], name.as_str());
        let points = r["points"].as_array().unwrap();
        assert_eq!(points.len(), 3);
        for p in points {
            assert_eq!(p["class"], want, "{scenario}: {p}");
            assert_eq!(p["durable"][0]["kind"], "APPEND", "{p}");
        }
        assert!(out.contains(&format!(
            "candidate {name} (based on {version}), not a release"
        )));
    }
}
