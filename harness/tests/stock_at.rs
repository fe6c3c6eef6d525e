//! `stock@V` (`paimon-parity stock-reader --paimon-version V`, `harness::external::stock_at`): the released
//! reader of one release as an external reader. Its plan and rows must be what the released reader returns
//! when the replay drives it directly: the test compares the child's answers with this process's own
//! `StockTableReader` of the same release (the release this test process runs), split by split and batch by
//! batch, on C07 (`corpora/c07-deletion-vectors`: lookup changelog, deletion vectors, five streaming splits)
//! and C01 (`corpora/c01-key-order`).

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use arrow_array::RecordBatch;
use arrow_ipc::reader::StreamReader;
use harness::external::stock_at::{CACHE_ENV, PAYLOAD_FORMAT};
use harness::external::{
    Action, PlanAnswer, PlannedBySelf, Request, RequestSplit, ScanRequest, META_SPLIT, META_STATUS,
};
use harness::reader::{StockTableReader, TableReader};
use harness::replay::ReplayMode;
use native_reader::scan::ScanMode;

fn table(name: &str) -> PathBuf {
    common::repo_root()
        .join("corpora")
        .join(name)
        .join("table")
        .canonicalize()
        .unwrap()
}

/// Runs `stock-reader --paimon-version <this process's release>` with `request` on stdin: its stdout.
fn ask(request: &Request, cache: Option<&Path>) -> Vec<u8> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_paimon-parity"));
    command
        .args(["stock-reader", "--paimon-version", &common::line_version()])
        .env_remove(CACHE_ENV)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = cache {
        command.env(CACHE_ENV, dir);
    }
    let mut child = command.spawn().expect("paimon-parity runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&serde_json::to_vec(request).unwrap())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "stock-reader failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn plan_request(table: &Path, mode: ScanMode, end: i64) -> Request {
    Request::new(Action::Plan, table, ScanRequest::of(mode, end), Vec::new())
}

/// The answer streams of a `read` request, in order: (split index, status, batches).
fn streams(mut bytes: &[u8]) -> Vec<(String, String, Vec<RecordBatch>)> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let mut reader = StreamReader::try_new(&mut bytes, None).unwrap();
        let meta = reader.schema().metadata().clone();
        let batches = reader.by_ref().collect::<Result<Vec<_>, _>>().unwrap();
        out.push((meta[META_SPLIT].clone(), meta[META_STATUS].clone(), batches));
    }
    out
}

/// `batches` as one list of rows rendered column by column (batch boundaries and schema metadata aside).
fn rows(batches: &[RecordBatch]) -> Vec<String> {
    let mut out = Vec::new();
    for b in batches {
        for i in 0..b.num_rows() {
            let row: Vec<String> = b
                .columns()
                .iter()
                .map(|c| {
                    arrow_cast::display::array_value_to_string(c, i).unwrap()
                        + &format!(" {:?}", c.data_type())
                })
                .collect();
            out.push(row.join(" | "));
        }
    }
    out
}

fn check_against_direct_stock(name: &str, mode: ScanMode, cache: Option<&Path>) {
    let table = table(name);
    let end = native_reader::snapshot::SnapshotManager::new(&table)
        .latest_snapshot_id()
        .unwrap()
        .unwrap();
    let stock = StockTableReader::new().expect("the released reader starts");
    let direct = stock.plan(&table, mode, end).unwrap();
    assert!(
        !direct.is_empty(),
        "{name} {mode}: the released reader plans splits"
    );

    let plan: PlanAnswer =
        serde_json::from_slice(&ask(&plan_request(&table, mode, end), cache)).unwrap();
    let planned: Vec<_> = plan.splits.iter().map(|p| p.split.clone()).collect();
    let expected: Vec<_> = direct.iter().map(|p| p.split.clone()).collect();
    assert_eq!(
        planned, expected,
        "{name} {mode}: the plan of stock@V is the released plan"
    );
    assert!(plan.splits.iter().all(|p| p
        .java_split
        .as_ref()
        .is_some_and(|j| j.format == PAYLOAD_FORMAT)));

    // The read request hands the splits back (in reverse order: answers follow the request's order).
    let request_splits: Vec<RequestSplit> = plan
        .splits
        .iter()
        .rev()
        .enumerate()
        .map(|(index, p)| request_split(index, p))
        .collect();
    let read = Request::new(
        Action::Read,
        &table,
        ScanRequest::of(mode, end),
        request_splits,
    );
    let answers = streams(&ask(&read, cache));
    assert_eq!(answers.len(), direct.len());
    for (i, (index, status, batches)) in answers.iter().enumerate() {
        assert_eq!(
            (index.as_str(), status.as_str()),
            (i.to_string().as_str(), "ok")
        );
        let split = &direct[direct.len() - 1 - i];
        let want: Vec<RecordBatch> = stock
            .read_split(&table, split)
            .unwrap()
            .collect::<harness::Result<_>>()
            .unwrap();
        assert_eq!(
            rows(batches),
            rows(&want),
            "{name} {mode}: split {} read by stock@V",
            split.split.key()
        );
        let names = |b: &[RecordBatch]| {
            b.first().map(|b| {
                b.schema()
                    .fields()
                    .iter()
                    .map(|f| f.name().clone())
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(names(batches), names(&want));
    }
}

#[test]
fn stock_at_plans_and_reads_as_the_released_reader() {
    check_against_direct_stock(
        "c07-deletion-vectors",
        ScanMode::Stream { from_snapshot: 1 },
        None,
    );
    check_against_direct_stock("c01-key-order", ScanMode::Batch { snapshot: None }, None);
}

#[test]
fn stock_at_answers_from_its_cache_what_it_answered_before() {
    let dir = tempfile::tempdir().unwrap();
    // The plan request fills the cache (plan and rows); the read request is answered from it.
    check_against_direct_stock("c01-key-order", ScanMode::LatestFull, Some(dir.path()));
    let entries: Vec<_> = std::fs::read_dir(dir.path().join(common::line_version()))
        .unwrap()
        .collect();
    assert_eq!(entries.len(), 1, "one cached scan");
    // Asked again, the cached answers are the released reader's.
    check_against_direct_stock("c01-key-order", ScanMode::LatestFull, Some(dir.path()));
}

#[test]
fn a_replay_against_stock_at_its_own_release_is_identical() {
    let version = common::line_version();
    let json = tempfile::NamedTempFile::new().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_paimon-parity"))
        .arg("replay")
        .arg(table("c07-deletion-vectors"))
        .args(["--paimon-version", &version, "--mode", "stream,batch", "-q"])
        .args(["--reader", &format!("stock@{version}"), "--json"])
        .arg(json.path())
        .env(CACHE_ENV, cache.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json.path()).unwrap()).unwrap();
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for (run, mode) in runs.iter().zip([ReplayMode::Stream, ReplayMode::Batch]) {
        assert_eq!(run["mode"], mode.name());
        assert_eq!(run["reader"], format!("stock@{version}"));
        assert_eq!(run["verdict"], "identical", "{run}");
        assert_eq!(run["stock_rows"], run["native_rows"]);
        assert!(run["splits"].as_u64().unwrap() > 0);
    }
}

#[test]
fn an_unknown_or_unbuilt_release_is_a_usage_error() {
    let (code, _, err) = common::paimon_parity(&[
        "replay",
        "corpora/c01-key-order/table",
        "--reader",
        "stock@1.3.0",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("stock@1.3.0"), "{err}");
}

/// The read request's entry `index` for a split the plan answer holds: the split handed back as planned.
fn request_split(index: usize, p: &PlannedBySelf) -> RequestSplit {
    RequestSplit {
        index,
        split_type: p.split_type.clone().unwrap_or_else(|| "DataSplit".into()),
        java_split: p.java_split.clone(),
        split: p.split.clone(),
    }
}

/// What `stock@V` answers (with `cache`) to a plan request and then a read request of every split it
/// planned: per split, its rows.
fn stock_at_rows(table: &Path, mode: ScanMode, end: i64, cache: &Path) -> Vec<Vec<String>> {
    let plan: PlanAnswer =
        serde_json::from_slice(&ask(&plan_request(table, mode, end), Some(cache))).unwrap();
    let splits: Vec<RequestSplit> = plan
        .splits
        .iter()
        .enumerate()
        .map(|(index, p)| request_split(index, p))
        .collect();
    let read = Request::new(Action::Read, table, ScanRequest::of(mode, end), splits);
    streams(&ask(&read, Some(cache)))
        .iter()
        .map(|(_, status, batches)| {
            assert_eq!(status, "ok");
            rows(batches)
        })
        .collect()
}

#[test]
fn a_data_file_rewritten_at_the_same_path_is_read_again_not_served_from_the_cache() {
    // C06 (append-only, partitioned): two data files of 762 bytes with other rows in one partition.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("db.db/t");
    common::copy_tree(&table("c06-null-partitions"), &copy);
    let bucket = copy.join("dt=__DEFAULT_PARTITION__/region=eu/bucket-0");
    let (kept, other) = (
        bucket.join("data-45b5eb1b-54dd-419d-acb3-26654168104e-0.parquet"),
        bucket.join("data-45b5eb1b-54dd-419d-acb3-26654168104e-1.parquet"),
    );
    let (kept_bytes, other_bytes) = (
        std::fs::read(&kept).unwrap(),
        std::fs::read(&other).unwrap(),
    );
    assert_eq!(kept_bytes.len(), other_bytes.len());
    assert_ne!(kept_bytes, other_bytes);
    let mode = ScanMode::Batch { snapshot: None };
    let end = native_reader::snapshot::SnapshotManager::new(&copy)
        .latest_snapshot_id()
        .unwrap()
        .unwrap();
    let cache = dir.path().join("cache");
    let before = stock_at_rows(&copy, mode, end, &cache);

    // The file rewritten in place with the other file's rows: same path, same size, old modification time.
    let modified = std::fs::metadata(&kept).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(10));
    let f = std::fs::OpenOptions::new().write(true).open(&kept).unwrap();
    (&f).write_all(&other_bytes).unwrap();
    f.set_modified(modified).unwrap();
    drop(f);

    // Expected: the released reader's own reading of the rewritten table, in this process.
    let stock = StockTableReader::new().expect("the released reader starts");
    let expected: Vec<Vec<String>> = stock
        .plan(&copy, mode, end)
        .unwrap()
        .iter()
        .map(|s| {
            let batches: Vec<RecordBatch> = stock
                .read_split(&copy, s)
                .unwrap()
                .collect::<harness::Result<_>>()
                .unwrap();
            rows(&batches)
        })
        .collect();
    assert_ne!(
        expected, before,
        "the rewrite changes what the released reader returns"
    );
    assert_eq!(
        stock_at_rows(&copy, mode, end, &cache),
        expected,
        "stock@V served the answer from before the rewrite"
    );
}
