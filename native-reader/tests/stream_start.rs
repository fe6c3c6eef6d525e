//! Two table options of streaming scans, natively, on committed corpora written by Paimon 2.0.0:
//! - `c56-consumer-id`: `consumer-id=reader-1`, whose consumer file the released `ConsumerManager` wrote
//!   with `nextSnapshot` 3: every streaming scan starts there (`AbstractDataTableScan#createStartingScanner`);
//! - `c55-streaming-read-snapshot-delay`: a delay of a hundred years holds back every follow-up plan
//!   (`DataTableStreamScan#shouldDelaySnapshot`);
//! - `c57-table-scan-snapshot-id`: the table's own `scan.snapshot-id=2` is the snapshot of a batch scan that
//!   names none, and fails a `latest-full` scan (`SchemaValidation#validateStartupMode`);
//! - `c58-table-scan-tag-name`: the table's own `scan.tag-name=t2` (a tag of snapshot 2) likewise, and fails
//!   the scans that set `scan.snapshot-id`.
//!
//! Expected snapshots are the tables' own (the consumer file's `nextSnapshot`, the snapshots the writer
//! committed); the released reader's agreement is checked by the harness's `corpus_parity`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use native_reader::scan::ScanMode;
use native_reader::{Error, PaimonRelease, Split, Table};

use crate::common;

fn table_of(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora")
        .join(name)
        .join("paimon-2.0.0/table")
}

/// The snapshot ids `splits` were planned from.
fn snapshots(splits: &[Split]) -> BTreeSet<i64> {
    splits.iter().map(|s| s.snapshot_id).collect()
}

fn plan(table: &Path, release: PaimonRelease, mode: ScanMode) -> Result<Vec<Split>, Error> {
    let table = Table::open_as(table, release)?;
    let latest = table.snapshot_manager().latest_snapshot_id()?.unwrap();
    table.plan(mode, latest)
}

const STREAMS: [ScanMode; 3] = [
    ScanMode::Stream { from_snapshot: 1 },
    ScanMode::StreamFull { from_snapshot: 1 },
    ScanMode::LatestFull,
];

#[test]
fn every_streaming_scan_starts_at_the_consumers_next_snapshot() {
    let location = table_of("c56-consumer-id");
    let recorded: serde_json::Value = serde_json::from_slice(
        &std::fs::read(location.join("consumer/consumer-reader-1")).unwrap(),
    )
    .unwrap();
    let next = recorded["nextSnapshot"].as_i64().unwrap();
    assert_eq!(next, 3);
    for release in [PaimonRelease::V2_0_0, PaimonRelease::V1_0_0] {
        for mode in STREAMS {
            let splits = plan(&location, release, mode).unwrap();
            assert_eq!(
                snapshots(&splits),
                BTreeSet::from([3, 4, 5]),
                "{mode} as {release}"
            );
        }
        // A batch scan reads the latest snapshot (6, the compaction after the fifth commit), consumer or not.
        let batch = plan(&location, release, ScanMode::Batch { snapshot: None }).unwrap();
        assert_eq!(snapshots(&batch), BTreeSet::from([6]));
    }
}

#[test]
fn a_consumer_ignoring_its_progress_or_unreadable_is_handled_as_the_release_does() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    common::copy_dir(&table_of("c56-consumer-id"), &table);
    common::edit_latest_schema(
        &table,
        r#""consumer-id" : "reader-1""#,
        r#""consumer-id" : "reader-1",
    "consumer.ignore-progress" : "true""#,
    );
    let splits = plan(&table, PaimonRelease::V2_0_0, STREAMS[0]).unwrap();
    assert_eq!(snapshots(&splits), BTreeSet::from([1, 2, 3, 4, 5]));

    common::edit_latest_schema(
        &table,
        r#""consumer.ignore-progress" : "true""#,
        r#""consumer.ignore-progress" : "yes""#,
    );
    let err = plan(&table, PaimonRelease::V2_0_0, STREAMS[0]).unwrap_err();
    assert!(matches!(err, Error::InvalidOption { .. }), "{err}");

    common::edit_latest_schema(
        &table,
        r#""consumer.ignore-progress" : "yes""#,
        r#""consumer.ignore-progress" : "false""#,
    );
    let consumer = table.join("consumer/consumer-reader-1");
    std::fs::write(&consumer, "{ \"next\" : 3 }").unwrap();
    let err = plan(&table, PaimonRelease::V2_0_0, STREAMS[1]).unwrap_err();
    assert!(matches!(err, Error::Json { .. }), "{err}");
    assert!(err.to_string().contains("consumer-reader-1"), "{err}");

    // Another consumer id, with no file: the scan starts where its mode says.
    common::edit_latest_schema(
        &table,
        r#""consumer-id" : "reader-1""#,
        r#""consumer-id" : "reader-2""#,
    );
    let splits = plan(&table, PaimonRelease::V2_0_0, STREAMS[0]).unwrap();
    assert_eq!(snapshots(&splits), BTreeSet::from([1, 2, 3, 4, 5]));
}

#[test]
fn a_snapshot_delay_holds_back_every_follow_up_plan() {
    let location = table_of("c55-streaming-read-snapshot-delay");
    for release in [PaimonRelease::V2_0_0, PaimonRelease::V1_2_0] {
        let stream = plan(&location, release, STREAMS[0]).unwrap();
        assert!(stream.is_empty(), "{release}");
        let full = plan(&location, release, STREAMS[1]).unwrap();
        assert_eq!(snapshots(&full), BTreeSet::from([1]), "{release}");
        let latest = plan(&location, release, STREAMS[2]).unwrap();
        assert_eq!(snapshots(&latest), BTreeSet::from([4]), "{release}");
    }

    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    common::copy_dir(&location, &table);
    let option = r#""streaming.read.snapshot.delay" : "36500 d""#;
    common::edit_latest_schema(
        &table,
        option,
        r#""streaming.read.snapshot.delay" : "1 ms""#,
    );
    let stream = plan(&table, PaimonRelease::V2_0_0, STREAMS[0]).unwrap();
    assert_eq!(snapshots(&stream), BTreeSet::from([1, 2, 3, 4]));

    common::edit_latest_schema(
        &table,
        r#""streaming.read.snapshot.delay" : "1 ms""#,
        r#""streaming.read.snapshot.delay" : "soon""#,
    );
    let err = plan(&table, PaimonRelease::V2_0_0, STREAMS[0]).unwrap_err();
    assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
    assert!(err.to_string().contains("streaming.read.snapshot.delay"));
}

#[test]
fn a_tables_own_snapshot_id_is_what_a_batch_scan_reads() {
    let location = table_of("c57-table-scan-snapshot-id");
    for release in [PaimonRelease::V2_0_0, PaimonRelease::V1_0_0] {
        let table = std::sync::Arc::new(Table::open_as(&location, release).unwrap());
        let splits = table.plan_batch(None).unwrap();
        assert_eq!(snapshots(&splits), BTreeSet::from([2]), "{release}");
        // Commits 1 and 2 upsert keys 1-3 and 2-4: four keys.
        let rows: usize = splits
            .iter()
            .flat_map(|s| native_reader::merge::read_split(&table, s, 16).unwrap())
            .map(|b| b.unwrap().num_rows())
            .sum();
        assert_eq!(rows, 4, "{release}");
        // A snapshot the scan names itself wins.
        let pinned = table.plan_batch(Some(4)).unwrap();
        assert_eq!(snapshots(&pinned), BTreeSet::from([4]), "{release}");
        let stream = plan(&location, release, STREAMS[0]).unwrap();
        assert_eq!(
            snapshots(&stream),
            BTreeSet::from([1, 2, 3, 4]),
            "{release}"
        );
        let err = plan(&location, release, STREAMS[2]).unwrap_err();
        assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
        assert!(err.to_string().contains("latest-full"), "{err}");
    }
}

#[test]
fn a_tables_own_tag_is_what_a_batch_scan_reads() {
    let location = table_of("c58-table-scan-tag-name");
    let tag: serde_json::Value =
        serde_json::from_slice(&std::fs::read(location.join("tag/tag-t2")).unwrap()).unwrap();
    let tagged = tag["id"].as_i64().unwrap();
    assert_eq!(tagged, 2);
    for release in [PaimonRelease::V2_0_0, PaimonRelease::V1_0_0] {
        let splits = plan(&location, release, ScanMode::Batch { snapshot: None }).unwrap();
        assert_eq!(snapshots(&splits), BTreeSet::from([tagged]), "{release}");
        for mode in STREAMS {
            let err = plan(&location, release, mode).unwrap_err();
            assert!(matches!(err, Error::InvalidOption { .. }), "{mode}: {err}");
            assert!(err.to_string().contains("scan.tag-name"), "{err}");
        }
        let err = plan(&location, release, ScanMode::Batch { snapshot: Some(4) }).unwrap_err();
        assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
    }

    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    common::copy_dir(&location, &table);
    common::edit_latest_schema(
        &table,
        r#""scan.tag-name" : "t2""#,
        r#""scan.tag-name" : "t9""#,
    );
    let err = plan(
        &table,
        PaimonRelease::V2_0_0,
        ScanMode::Batch { snapshot: None },
    )
    .unwrap_err();
    assert!(matches!(err, Error::Snapshot { .. }), "{err}");
    assert!(err.to_string().contains("tag-t9"), "{err}");
}
