//! JVM faults: the stock reader running out of heap, Arrow memory and reader handles after replays, and a
//! replay while another writer keeps committing to the table.

use crate::common;
use crate::damage;

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Mutex, MutexGuard};

use harness::reader::{Batches, PlannedSplit, StockTableReader, TableReader};
use harness::replay::{replay, ReplayOptions};
use jvm_bridge::CorpusWriter;
use native_reader::scan::ScanMode;

/// Tests of this file share one JVM and assert on its global allocator: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn quiet() -> ReplayOptions {
    ReplayOptions {
        progress: false,
        ..ReplayOptions::default()
    }
}

/// The heap of the child process: far below the 64 MiB value it must read.
const SMALL_HEAP: &str = "32m";

#[test]
fn stock_out_of_heap_is_an_error_naming_the_heap_and_the_jvm_survives() {
    let _serial = serial();
    // One 64 MiB string (written here with this process's 2g heap), then a small commit after it.
    let base = damage::huge_value_table(64);
    let (_guard, table) = damage::copy_of(&base);
    {
        let io = tempfile::tempdir().unwrap();
        let writer = CorpusWriter::open(&table, "after-the-huge-row", io.path()).unwrap();
        writer
            .write(r#"[{"kind":"+I","values":[2,"small"]},{"kind":"+I","values":[3,"rows"]}]"#)
            .unwrap();
        writer.commit(1, true).unwrap();
        writer.close().unwrap();
    }
    let cwd = tempfile::tempdir().unwrap();
    let json = cwd.path().join("report.json");
    let out = Command::new(env!("CARGO_BIN_EXE_paimon-parity"))
        .current_dir(cwd.path())
        .env(jvm_bridge::jvm::XMX_ENV, SMALL_HEAP)
        .arg("replay")
        .arg(&table)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("java.lang.OutOfMemoryError"), "{text}");
    assert!(text.contains(&format!("-Xmx{SMALL_HEAP}")), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    let crash_files: Vec<_> = std::fs::read_dir(cwd.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with("hs_err"))
        .collect();
    assert!(crash_files.is_empty(), "{crash_files:?}");

    // The heap ran out while reading the first split; the same JVM then read the next one.
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let report = &report["runs"][0]["report"];
    let splits = report["splits"].as_array().unwrap();
    assert_eq!(splits.len(), 2, "{report:#}");
    assert_eq!(splits[0]["verdict"], "unreadable");
    let detail = splits[0]["detail"].as_str().unwrap();
    println!("first split: {detail}");
    assert!(
        detail.starts_with("stock reader: java.lang.OutOfMemoryError"),
        "{detail}"
    );
    // The native reader reads the 64 MiB row, and the report says so.
    assert!(
        detail.contains("the native reader reads the split (1 rows"),
        "{detail}"
    );
    assert_eq!(splits[1]["verdict"], "identical", "{report:#}");
    assert_eq!(splits[1]["stock_rows"]["insert"], 2);
}

#[test]
fn after_replays_no_arrow_memory_and_no_reader_is_left() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let bridge = stock.bridge();

    // A full replay of every committed corpus.
    let mut splits = 0;
    for dir in common::corpora() {
        let report = replay(&dir.join("table"), &stock, &native, &quiet()).unwrap();
        assert_eq!(report.verdict, "identical", "{}", dir.display());
        splits += report.totals.splits;
        assert_eq!(bridge.open_readers().unwrap(), 0, "{}", dir.display());
        assert_eq!(bridge.allocated_bytes().unwrap(), 0, "{}", dir.display());
    }
    assert!(splits > 50, "only {splits} splits replayed");

    // A replay whose reads fail half-way (a corrupt page) and one that stops at planning.
    let (_g1, corrupt) = damage::copy_of(&damage::c00());
    let changelog = damage::files_with_prefix(&corrupt.join("bucket-0"), "changelog-");
    damage::corrupt_parquet_column(&changelog[0], "v");
    let report = replay(&corrupt, &stock, &native, &quiet()).unwrap();
    assert_eq!(report.verdict, "unreadable");
    assert_eq!(bridge.open_readers().unwrap(), 0);
    assert_eq!(bridge.allocated_bytes().unwrap(), 0);

    // Batches held by the caller keep their memory until dropped, then release it.
    let table = std::fs::canonicalize(damage::lookup()).unwrap();
    let plan = stock.plan_stream(&table, 1, 24).unwrap();
    let held: Vec<_> = stock
        .read_split(&table, &plan[0])
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert!(!held.is_empty());
    assert!(bridge.allocated_bytes().unwrap() > 0);
    assert_eq!(bridge.open_readers().unwrap(), 0, "exhausted readers close");
    let open: Batches<'_> = stock.read_split(&table, &plan[1]).unwrap();
    assert_eq!(bridge.open_readers().unwrap(), 1);
    drop(open);
    drop(held);
    assert_eq!(bridge.open_readers().unwrap(), 0);
    assert_eq!(bridge.allocated_bytes().unwrap(), 0);
}

/// A reader that, on its first plan, lets a writer commit more snapshots and waits for them before
/// planning, so that the table moves on between the start of the replay and its plans and reads.
struct CommitsDuringPlanning<'a> {
    inner: &'a dyn TableReader,
    go: Mutex<Option<mpsc::Sender<()>>>,
    committed: Mutex<mpsc::Receiver<i64>>,
}

impl CommitsDuringPlanning<'_> {
    fn let_writer_commit(&self) {
        let go = self.go.lock().unwrap().take();
        if let Some(go) = go {
            go.send(()).unwrap();
            // Wait for the writer's first two commits.
            let rx = self.committed.lock().unwrap();
            rx.recv().unwrap();
            rx.recv().unwrap();
        }
    }
}

impl TableReader for CommitsDuringPlanning<'_> {
    fn side(&self) -> harness::error::Side {
        self.inner.side()
    }
    fn plan_stream(&self, t: &Path, from: i64, end: i64) -> harness::Result<Vec<PlannedSplit>> {
        self.let_writer_commit();
        self.inner.plan_stream(t, from, end)
    }
    fn plan(&self, t: &Path, mode: ScanMode, end: i64) -> harness::Result<Vec<PlannedSplit>> {
        self.let_writer_commit();
        self.inner.plan(t, mode, end)
    }
    fn read_split<'a>(&'a self, t: &Path, split: &'a PlannedSplit) -> harness::Result<Batches<'a>> {
        self.inner.read_split(t, split)
    }
}

#[test]
fn replay_while_another_writer_commits_is_finite_and_reports_its_range() {
    let _serial = serial();
    let (_guard, table) = damage::copy_of(&damage::lookup());
    let table = std::fs::canonicalize(table).unwrap();
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let snapshots = native_reader::snapshot::SnapshotManager::new(&table);
    let latest_before = snapshots.latest_snapshot_id().unwrap().unwrap();

    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (done_tx, done_rx) = mpsc::channel::<i64>();
    let stop = AtomicBool::new(false);
    let io = tempfile::tempdir().unwrap();
    let planning = CommitsDuringPlanning {
        inner: &native,
        go: Mutex::new(Some(go_tx)),
        committed: Mutex::new(done_rx),
    };
    let (report, commits) = std::thread::scope(|s| {
        let (table, io, stop) = (&table, &io, &stop);
        let writer_thread = s.spawn(move || {
            go_rx.recv().unwrap();
            let writer = CorpusWriter::open(table, "concurrent-writer", io.path()).unwrap();
            let mut commits = 0i64;
            // Two commits while the replay plans, then more while it reads, until it is done.
            while commits < 2 || !stop.load(Ordering::SeqCst) {
                commits += 1;
                let rows: Vec<String> = (0..5)
                    .map(|i| {
                        format!(
                            r#"{{"kind":"+I","values":["p{}",{},{},"concurrent"]}}"#,
                            i % 3,
                            1000 + commits * 10 + i,
                            commits
                        )
                    })
                    .collect();
                writer.write(&format!("[{}]", rows.join(","))).unwrap();
                writer.commit(commits, true).unwrap();
                let _ = done_tx.send(commits);
            }
            writer.close().unwrap();
            commits
        });
        let report = replay(table, &stock, &planning, &quiet());
        stop.store(true, Ordering::SeqCst);
        (report, writer_thread.join().unwrap())
    });
    let report = report.expect("the replay finishes");
    let latest_after = snapshots.latest_snapshot_id().unwrap().unwrap();

    assert!(commits >= 2, "{commits} commits");
    assert!(
        latest_after >= latest_before + 2,
        "the writer committed while the replay ran: {latest_before} -> {latest_after}"
    );
    // The replay covers exactly the snapshots that existed when it started.
    assert_eq!(report.end_snapshot, latest_before);
    assert_eq!(report.from_snapshot, 1);
    assert_eq!(report.totals.snapshots, latest_before);
    assert!(report
        .splits
        .iter()
        .all(|s| s.key.snapshot_id <= latest_before));
    assert_eq!(
        report.verdict,
        "identical",
        "{}",
        harness::report::summary_line(&report)
    );
    // And returns what the corpus held then: case.json's stream from snapshot 1.
    let case: serde_json::Value = serde_json::from_slice(
        &std::fs::read(common::corpus("lookup-partitioned").join("case.json")).unwrap(),
    )
    .unwrap();
    let expected = &case["expected"]["stream_from_snapshot_1"];
    let t = &report.totals.stock_rows;
    assert_eq!(
        serde_json::json!([t.insert, t.update_before, t.update_after, t.delete]),
        expected["rows"]
    );
    assert_eq!(serde_json::json!(report.totals.splits), expected["splits"]);
    let mut text = Vec::new();
    harness::report::write_text(&mut text, &report, 10).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.contains(&format!("from snapshot 1 to snapshot {latest_before}")),
        "{text}"
    );
}
