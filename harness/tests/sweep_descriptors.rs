//! A crashed `FaultyFileIO` releases the descriptors of its open output streams (issue 33): a long sweep runs
//! every point in one JVM, and a crash at an output stream's `close` used to leave that stream open for good.
//! It counts only the descriptors on files under its own table's directory, which no test beside it in this
//! binary opens.

use crate::common;

use harness::sweep::{sweep, FaultMode, SweepOptions};

/// This process's open file descriptors on files under `dir` (the JVM runs in this process).
fn open_descriptors(dir: &std::path::Path) -> usize {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_link(e.path()).ok())
        .filter(|target| target.starts_with(dir))
        .count()
}

#[test]
fn crashes_at_output_stream_closes_leak_no_descriptor() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = SweepOptions {
        scenario_file: common::repo_root()
            .join("corpora/c00-full-compaction-control/scenario.json"),
        modes: vec![FaultMode::Crash, FaultMode::Fail],
        commit: None,
        writer: None,
        recoveries: 1,
        recovery_faults: vec![],
        recovery_ops: None,
        ops: Some(vec![]),
        keep: None,
        work: dir.path().to_path_buf(),
        threads: 1,
        parity: false,
        strategy: Default::default(),
        progress: false,
    };
    // The counting run: the close of every output stream the swept commit opens.
    let counted = sweep(&o).unwrap();
    let closes: Vec<usize> = counted
        .ops
        .iter()
        .filter(|op| op.op == "close")
        .map(|op| op.index)
        .collect();
    assert!(closes.len() >= 4, "{:?}", counted.ops);
    o.ops = Some(closes.clone());
    let r = sweep(&o).unwrap();
    assert_eq!(r.points.len(), 2 * closes.len());
    assert!(r.points.iter().all(|p| p.evidence.snapshots.len() >= 3));
    // Every point's table was under the work directory (removed since; a leaked descriptor still names it).
    let left = open_descriptors(dir.path());
    eprintln!("descriptors left open under the work directory: {left}");
    assert_eq!(
        left,
        0,
        "{} points crashed or failed at an output stream's close",
        r.points.len()
    );
}
