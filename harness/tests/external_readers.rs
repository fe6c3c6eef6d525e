//! The external-reader protocol (`adapters/README.md`) end to end: the released reader against the example
//! adapter (`paimon-parity-example-reader`), as it is and with each planted fault, on C01
//! (`corpora/c01-key-order`, Paimon 1.0.0).
//!
//! Expected values come from C01's writes: commit 1 writes `+I (1, 101, 5)`, `(1, 102, 6)`, `(2, 103, 7)`,
//! `(2, 104, 8)` (read in key order `order_no, customer`), commit 2 `+U (1, 102, 60)`; a stream replay from
//! snapshot 1 has one split per snapshot, 4 and 1 rows.

use crate::common;

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use harness::external::{ExternalReader, ReaderSpec};
use harness::reader::StockTableReader;
use harness::replay::{replay, ReplayMode, ReplayOptions, ReplayReport, SplitVerdict};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn c01() -> PathBuf {
    common::repo_root().join("corpora/c01-key-order/table")
}

fn example(args: &[&str]) -> ExternalReader {
    let mut command = vec![env!("CARGO_BIN_EXE_paimon-parity-example-reader").to_owned()];
    command.extend(args.iter().map(|a| a.to_string()));
    ExternalReader::new(ReaderSpec {
        name: "example".into(),
        command,
        setup: None,
    })
    .with_timeout(Duration::from_secs(5))
}

fn run(reader: &ExternalReader, mode: ReplayMode) -> ReplayReport {
    let _guard = serial();
    let stock = StockTableReader::new().expect("the released reader starts");
    let options = ReplayOptions {
        progress: false,
        mode,
        ..ReplayOptions::default()
    };
    replay(&c01(), &stock, reader, &options).expect("the released reader reads C01")
}

fn verdicts(r: &ReplayReport) -> Vec<SplitVerdict> {
    r.splits.iter().map(|s| s.verdict).collect()
}

fn detail(r: &ReplayReport, i: usize) -> String {
    r.splits[i].detail.clone().unwrap_or_default()
}

#[test]
fn the_example_adapter_matches_the_released_reader() {
    let r = run(&example(&[]), ReplayMode::Stream);
    assert_eq!(
        verdicts(&r),
        [SplitVerdict::Identical, SplitVerdict::Identical]
    );
    assert_eq!(r.verdict, "identical");
    assert_eq!(r.exit_code(), 0);
    assert_eq!(r.reader, "example");
    assert!(r
        .reader_version
        .as_deref()
        .unwrap_or("")
        .starts_with("paimon-parity-example-reader"));
    assert_eq!(r.totals.native_rows.insert, 4);
    assert_eq!(r.totals.native_rows.update_after, 1);
}

#[test]
fn a_reader_that_plans_by_itself_is_diffed_plan_and_rows() {
    let r = run(&example(&[]).plans_by_itself(true), ReplayMode::Batch);
    assert_eq!(verdicts(&r), [SplitVerdict::Identical]);
    // Batch: the four orders, order 102 with amount 60.
    assert_eq!(r.totals.native_rows.total(), 4);
}

#[test]
fn a_planted_value_change_is_the_first_difference_with_both_values() {
    let r = run(&example(&["--fault", "change-value"]), ReplayMode::Stream);
    assert_eq!(
        verdicts(&r),
        [SplitVerdict::DiffersDecoding, SplitVerdict::Identical]
    );
    let m = r.splits[0].first_mismatch.as_ref().expect("a mismatch");
    assert_eq!(
        (m.row, m.field.as_str(), m.stock.as_str(), m.native.as_str()),
        (0, "amount", "5", "6")
    );
    assert_eq!(r.splits[0].differing_rows, 1);
    assert_eq!(r.verdict, "different");
    assert_eq!(r.exit_code(), 1);
}

#[test]
fn a_missing_row_is_named() {
    let r = run(&example(&["--fault", "drop-row"]), ReplayMode::Stream);
    assert_eq!(
        verdicts(&r),
        [SplitVerdict::DiffersDecoding, SplitVerdict::Identical]
    );
    let m = r.splits[0].first_mismatch.as_ref().expect("a mismatch");
    assert_eq!(
        (m.row, m.stock.as_str(), m.native.as_str()),
        (3, "+I (2, 104, 8)", "<none>")
    );
    assert_eq!(r.splits[0].native_rows.map(|c| c.total()), Some(3));
}

#[test]
fn a_crash_is_the_readers_error_with_its_exit_status_and_stderr() {
    let r = run(&example(&["--fault", "crash"]), ReplayMode::Stream);
    assert_eq!(
        verdicts(&r),
        [SplitVerdict::ReaderError, SplitVerdict::ReaderError]
    );
    let d = detail(&r, 0);
    assert!(d.contains("ended after 0 of 2 splits"), "{d}");
    assert!(d.contains("exit status 101"), "{d}");
    assert!(d.contains("planted crash at split 0"), "{d}");
    // The released reader's side of the split is still said.
    assert!(
        d.contains("the stock reader reads the split (4 rows"),
        "{d}"
    );
    assert_eq!(r.verdict, "incomplete");
    assert_eq!(r.exit_code(), 1);
}

#[test]
fn a_hang_is_stopped_after_the_timeout() {
    let reader = example(&["--fault", "hang"]).with_timeout(Duration::from_secs(2));
    let started = std::time::Instant::now();
    let r = run(&reader, ReplayMode::Stream);
    assert_eq!(
        verdicts(&r),
        [SplitVerdict::ReaderError, SplitVerdict::ReaderError]
    );
    let d = detail(&r, 0);
    assert!(
        d.contains("no answer for split 0 within 2 s; the reader was stopped"),
        "{d}"
    );
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn garbage_on_stdout_is_not_arrow() {
    let r = run(&example(&["--fault", "garbage"]), ReplayMode::Stream);
    assert_eq!(
        verdicts(&r),
        [SplitVerdict::ReaderError, SplitVerdict::ReaderError]
    );
    let d = detail(&r, 0);
    assert!(
        d.contains("the answer to split 0 is not an Arrow IPC stream (it starts with `this is not"),
        "{d}"
    );
}

#[test]
fn a_wrong_schema_is_the_readers_error() {
    let r = run(&example(&["--fault", "wrong-schema"]), ReplayMode::Stream);
    assert_eq!(
        verdicts(&r),
        [SplitVerdict::ReaderError, SplitVerdict::Identical]
    );
    let d = detail(&r, 0);
    assert!(
        d.contains("wrong schema: the first column is `row_kind` Int8, expected `_row_kind` Int8"),
        "{d}"
    );
}

#[test]
fn statuses_error_and_unsupported_are_kept_apart() {
    let r = run(&example(&["--fault", "unsupported"]), ReplayMode::Stream);
    assert_eq!(
        verdicts(&r),
        [SplitVerdict::Unsupported, SplitVerdict::Identical]
    );
    assert!(
        detail(&r, 0).starts_with("example: planted unsupported feature"),
        "{}",
        detail(&r, 0)
    );
    assert_eq!((r.totals.unsupported, r.totals.reader_errors), (1, 0));
    assert_eq!(r.verdict, "incomplete");
    let r = run(&example(&["--fault", "error"]), ReplayMode::Stream);
    assert_eq!(
        verdicts(&r),
        [SplitVerdict::ReaderError, SplitVerdict::Identical]
    );
    assert_eq!((r.totals.unsupported, r.totals.reader_errors), (0, 1));
}

#[test]
fn a_stream_that_stops_early_leaves_the_rest_unanswered() {
    let r = run(
        &example(&["--fault", "short", "--fault-split", "0"]),
        ReplayMode::Stream,
    );
    assert_eq!(
        verdicts(&r),
        [SplitVerdict::Identical, SplitVerdict::ReaderError]
    );
    assert!(
        detail(&r, 1).contains("ended after 1 of 2 splits (exit status 0)"),
        "{}",
        detail(&r, 1)
    );
}

#[test]
fn a_missing_program_says_how_to_set_it_up() {
    let reader = ExternalReader::new(ReaderSpec {
        name: "absent".into(),
        command: vec!["/nonexistent/paimon-parity-absent-reader".into()],
        setup: Some("adapters/absent/setup".into()),
    });
    let r = run(&reader, ReplayMode::Stream);
    assert_eq!(
        verdicts(&r),
        [SplitVerdict::ReaderError, SplitVerdict::ReaderError]
    );
    let d = detail(&r, 0);
    assert!(
        d.contains("cannot start `/nonexistent/paimon-parity-absent-reader`"),
        "{d}"
    );
    assert!(d.contains("set it up with `adapters/absent/setup`"), "{d}");
    assert_eq!(r.exit_code(), 1);
}

#[test]
fn the_readers_flag_parses_and_unknown_names_are_usage_errors() {
    let spec = ReaderSpec::parse_flag("mine=/opt/r --x 1").unwrap();
    assert_eq!(spec.command, ["/opt/r", "--x", "1"]);
    assert!(ReaderSpec::parse_flag("mine").is_err());
    assert!(ReaderSpec::parse_flag("=/opt/r").is_err());
    let shipped: Vec<String> = harness::external::shipped_readers()
        .unwrap()
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(shipped, ["example", "paimon-rust", "pypaimon"]);
}
