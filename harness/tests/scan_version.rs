//! A table's own `scan.version`, replayed against this line's released reader.
//!
//! No release's schema validation lets a writer set `scan.version` alone (`must set only one key in
//! [scan.snapshot-id,scan.tag-name,scan.watermark] when you use from-snapshot`), so no corpus has it. The
//! released reader still reads a table whose schema names one: its load resolves it into the start option it
//! names before validating (1.0.x and 1.1.x `AbstractFileStoreTable#travelToVersion`, 1.2.0 on
//! `TimeTravelUtil#adaptScanVersion`). These are committed corpora copied, with their own start option
//! rewritten as a `scan.version`; every scan must be identical, or fail on both readers.

use std::path::{Path, PathBuf};

use crate::common;
use harness::reader::StockTableReader;
use harness::replay::{replay, ReplayMode, ReplayOptions};

/// `corpus`'s table copied into `dir`, with `from` replaced by `to` in its latest schema file.
fn rewritten(dir: &Path, corpus: &str, from: &str, to: &str) -> PathBuf {
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

#[test]
fn a_scan_version_reads_as_the_released_load_resolves_it() {
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let dir = tempfile::tempdir().unwrap();
    // (table, the modes whose scan is identical; the others fail on both readers)
    let cases = [
        // Digits: `scan.snapshot-id=3`, as C57's own snapshot id (`latest-full` conflicts with it).
        (
            rewritten(
                dir.path(),
                "c71-table-scan-watermark",
                "\"scan.watermark\" : \"2500\"",
                "\"scan.version\" : \"3\"",
            ),
            &["stream", "stream-full", "batch"][..],
        ),
        // `watermark-2500`: `scan.watermark=2500`, as C71 (a stream from a snapshot conflicts with it).
        (
            rewritten(
                dir.path().join("w").as_path(),
                "c71-table-scan-watermark",
                "\"scan.watermark\" : \"2500\"",
                "\"scan.version\" : \"watermark-2500\"",
            ),
            &["stream-full", "latest-full", "batch"][..],
        ),
        // A tag's name: `scan.tag-name=t2`, as C58 (every scan but the batch one conflicts with it).
        (
            rewritten(
                dir.path(),
                "c58-table-scan-tag-name",
                "\"scan.tag-name\" : \"t2\"",
                "\"scan.version\" : \"t2\"",
            ),
            &["batch"][..],
        ),
    ];
    let modes = [
        ("stream", ReplayMode::Stream),
        ("stream-full", ReplayMode::StreamFull),
        ("latest-full", ReplayMode::LatestFull),
        ("batch", ReplayMode::Batch),
    ];
    for (table, identical) in &cases {
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
