//! Committed corpora copied with their latest schema file edited, and replayed against this line's released
//! reader: how the parity tests reach table options that no release's writer lets a corpus set, or variants
//! of a corpus's own options, without a corpus each.

use std::path::{Path, PathBuf};

use crate::common;
use harness::reader::StockTableReader;
use harness::replay::{replay, ReplayMode, ReplayOptions};

/// `corpus`'s table (written by 2.0.0) copied into `dir`, with `from` replaced by `to` in its latest schema
/// file.
pub(crate) fn rewritten(dir: &Path, corpus: &str, from: &str, to: &str) -> PathBuf {
    let table = dir.join(corpus);
    let committed = common::repo_root()
        .join("corpora")
        .join(corpus)
        .join("paimon-2.0.0/table");
    common::copy_tree(&committed, &table);
    let latest = std::fs::read_dir(table.join("schema"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .max_by_key(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.trim_start_matches("schema-")
                .parse::<u64>()
                .unwrap_or(0)
        })
        .unwrap();
    let text = std::fs::read_to_string(&latest).unwrap();
    assert!(text.contains(from), "{}", latest.display());
    std::fs::write(&latest, text.replace(from, to)).unwrap();
    table
}

/// Replays each table in every mode: identical in the modes listed with it, and failing on both readers
/// (the native one not by refusing) in the others.
pub(crate) fn assert_replays(cases: &[(PathBuf, &[&str])]) {
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let modes = [
        ("stream", ReplayMode::Stream),
        ("stream-full", ReplayMode::StreamFull),
        ("latest-full", ReplayMode::LatestFull),
        ("batch", ReplayMode::Batch),
    ];
    for (table, identical) in cases {
        for (name, mode) in modes {
            let options = ReplayOptions {
                progress: false,
                mode,
                ..ReplayOptions::default()
            };
            let at = format!("{} [{name}]", table.display());
            match replay(table, &stock, &native, &options) {
                Ok(report) => {
                    assert!(identical.contains(&name), "{at}: {}", report.verdict);
                    assert_eq!(report.verdict, "identical", "{at}");
                    assert!(report.totals.splits > 0, "{at}: compared nothing");
                }
                Err(e) => {
                    let text = e.to_string();
                    assert!(!identical.contains(&name), "{at}: {text}");
                    // Both readers fail, the native one not by refusing.
                    assert!(text.contains("; stock reader: java."), "{at}: {text}");
                    assert!(!text.contains("unsupported"), "{at}: {text}");
                }
            }
        }
    }
}
