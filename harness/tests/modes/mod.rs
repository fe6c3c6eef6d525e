//! Replay modes (`stream`, `stream-full`, `latest-full`, `batch`): every committed corpus and every
//! paimon-cpp table replays identically in each mode, and cases C01, C02, C03 and C09 of `shared/cases`,
//! written here with the released writer, read back in batch mode with the values the writes imply.
//!
//! Expected values come from the case text and the writes, never from a reader's output.
//!
//! The committed corpora and paimon-cpp tables in every mode in `corpora`; the cases written here, by
//! topic: `merging` (C01, C02, C03, C09), `aggregates` (C10, and Java's hash order), `overwrite` (C11 and
//! the changes plans of `streaming-read-overwrite`) and `type_changes` (C12).

use crate::common;

mod aggregates;
mod corpora;
mod merging;
mod overwrite;
mod type_changes;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use harness::reader::{StockTableReader, TableReader};
use harness::replay::{replay, ReplayMode, ReplayOptions, ReplayReport};
use jvm_bridge::CorpusWriter;
use native_reader::scan::ScanMode;

/// The JVM is shared; writers and readers of these tests run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn options(mode: ReplayMode) -> ReplayOptions {
    ReplayOptions {
        progress: false,
        mode,
        ..ReplayOptions::default()
    }
}

const MODES: [ReplayMode; 4] = [
    ReplayMode::Stream,
    ReplayMode::StreamFull,
    ReplayMode::LatestFull,
    ReplayMode::Batch,
];

/// Replays `table` in `mode`; a table the released reader cannot read must fail with the Java message,
/// and the command line must then exit 2 with that message.
fn assert_replays_identically(table: &Path, mode: ReplayMode, stock: &StockTableReader) {
    let native = common::native();
    match replay(table, stock, &native, &options(mode)) {
        Ok(report) => {
            assert_eq!(
                report.verdict,
                "identical",
                "{} in {mode:?}: {}",
                table.display(),
                harness::report::summary_line(&report)
            );
            eprintln!(
                "{} {mode:?}: {}",
                table.display(),
                harness::report::summary_line(&report)
            );
        }
        Err(harness::Error::Stock(jvm_bridge::Error::Java { .. })) => {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_paimon-parity"))
                .args(["replay", table.to_str().unwrap(), "--mode", mode_arg(mode)])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{stderr}");
            assert!(stderr.contains("stock reader"), "{stderr}");
        }
        Err(e) => panic!("{} in {mode:?}: {e}", table.display()),
    }
}

fn mode_arg(mode: ReplayMode) -> &'static str {
    match mode {
        ReplayMode::Stream => "stream",
        ReplayMode::StreamFull => "stream-full",
        ReplayMode::LatestFull => "latest-full",
        ReplayMode::Batch => "batch",
    }
}

// ---------------------------------------------------------------------------------------------------
// Cases written with the released writer
// ---------------------------------------------------------------------------------------------------

/// A table in a temporary directory and a directory for the writers' IOManager.
struct Scratch {
    _dir: tempfile::TempDir,
    table: PathBuf,
    io: PathBuf,
}

fn scratch(schema: &str) -> Scratch {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t");
    let io = dir.path().join("io");
    std::fs::create_dir_all(&io).unwrap();
    CorpusWriter::create_table(&table, schema).unwrap();
    let table = std::fs::canonicalize(&table).unwrap();
    Scratch {
        _dir: dir,
        table,
        io,
    }
}

/// Every row of a batch read of the latest snapshot by `reader`, rendered (`+I (1, 'a')`), sorted.
fn batch_rows(reader: &dyn TableReader, table: &Path) -> Vec<String> {
    let splits = reader
        .plan(table, ScanMode::Batch { snapshot: None }, i64::MAX)
        .unwrap();
    let mut rows = Vec::new();
    for split in &splits {
        for batch in reader.read_split(table, split).unwrap() {
            let batch = batch.unwrap();
            for r in 0..batch.num_rows() {
                rows.push(harness::diff::render_row(&batch, r));
            }
        }
    }
    rows.sort();
    rows
}

/// Parity in every mode, then the batch rows of both readers.
fn check(table: &Path, stock: &StockTableReader) -> (Vec<String>, Vec<String>) {
    for mode in MODES {
        assert_replays_identically(table, mode, stock);
    }
    let native = common::native();
    (batch_rows(stock, table), batch_rows(&native, table))
}

fn report_of(table: &Path, stock: &StockTableReader, mode: ReplayMode) -> ReplayReport {
    replay(table, stock, &common::native(), &options(mode)).unwrap()
}

fn sorted(rows: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = rows.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}
