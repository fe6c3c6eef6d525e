//! Branches: `replay`, `inspect` and `audit` of one branch of a table (`--branch NAME`, or `TABLE$branch_NAME`)
//! on the committed corpus `c26-fallback-branch` (written by Paimon 2.0.0), whose branch `b1` holds
//! partitions 1, 2 and 4 (the scenario's writes), read by both readers of this process's release.

use crate::common;

use harness::reader::StockTableReader;
use harness::replay::{replay, ReplayMode, ReplayOptions};

fn table() -> std::path::PathBuf {
    common::repo_root().join("corpora/c26-fallback-branch/paimon-2.0.0/table")
}

#[test]
fn a_branch_replays_identically_in_every_mode() {
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let branch = harness::location::with_branch(&table(), "b1");
    for mode in [
        ReplayMode::Stream,
        ReplayMode::StreamFull,
        ReplayMode::LatestFull,
        ReplayMode::Batch,
    ] {
        let options = ReplayOptions {
            progress: false,
            mode,
            ..ReplayOptions::default()
        };
        let report = replay(&branch, &stock, &native, &options).unwrap();
        assert_eq!(report.verdict, "identical", "{mode:?}");
        // b1's own snapshots (2), not the main branch's; its latest batch has its 3 partitions.
        assert_eq!(report.end_snapshot, 2, "{mode:?}");
        if mode == ReplayMode::Batch {
            let mut partitions: Vec<_> = report
                .splits
                .iter()
                .map(|s| s.key.partition.clone())
                .collect();
            partitions.sort();
            assert_eq!(
                partitions,
                vec![
                    vec![Some("1".to_string())],
                    vec![Some("2".to_string())],
                    vec![Some("4".to_string())]
                ]
            );
        }
    }
}

#[test]
fn the_branch_flag_names_the_branch_and_refuses_what_is_not_one() {
    let t = common::path_str(&table()).to_owned();
    let (out, _) = common::expect_exit(0, &["inspect", &t, "--branch", "b1"]);
    assert!(
        out.contains("table$branch_b1") && out.contains("commit user backfill"),
        "{out}"
    );
    assert!(!out.contains("commit user main"), "{out}");
    let (_, err) = common::expect_exit(2, &["replay", &t, "--branch", "nope", "--mode", "batch"]);
    assert!(
        err.contains("no branch `nope`") && err.contains("branch-nope"),
        "{err}"
    );
    let named = format!("{t}$branch_b1");
    let (_, err) = common::expect_exit(2, &["audit", &named, "--branch", "b1"]);
    assert!(err.contains("names a branch already"), "{err}");
}
