//! A table's own `scan.version`, replayed against this line's released reader.
//!
//! No release's schema validation lets a writer set `scan.version` alone (`must set only one key in
//! [scan.snapshot-id,scan.tag-name,scan.watermark] when you use from-snapshot`), so no corpus has it. The
//! released reader still reads a table whose schema names one: its load resolves it into the start option it
//! names before validating (1.0.x and 1.1.x `AbstractFileStoreTable#travelToVersion`, 1.2.0 on
//! `TimeTravelUtil#adaptScanVersion`). These are committed corpora copied, with their own start option
//! rewritten as a `scan.version`; every scan must be identical, or fail on both readers.

use crate::edited::{assert_replays, rewritten};

#[test]
fn a_scan_version_reads_as_the_released_load_resolves_it() {
    let dir = tempfile::tempdir().unwrap();
    // (table, the modes whose scan is identical; the others fail on both readers)
    let cases: [(std::path::PathBuf, &[&str]); 3] = [
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
    assert_replays(&cases);
}
