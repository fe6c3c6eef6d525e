//! Detection power end to end (issue 8): the released Java reader against the native reader wrapped to
//! plant exactly one row- or split-level difference in the committed `lookup-partitioned` corpus. Each
//! gives exit 1 and a report naming the split, the row ordinal and the field with both values (or, for a
//! planning difference, the split and both plans). Expected values come from the planted change itself.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array, Int8Array, RecordBatch, UInt32Array};
use harness::diff::{render_row, MismatchKind};
use harness::error::Side;
use harness::reader::{Batches, NativeTableReader, PlannedSplit, StockTableReader, TableReader};
use harness::replay::{replay, ReplayOptions, ReplayReport, SplitReport, SplitVerdict};
use native_reader::SplitKey;

/// One planted difference.
#[derive(Clone)]
enum Plant {
    /// Row `row` of split `key` left out.
    DropRow { key: SplitKey, row: usize },
    /// A copy of row `row` with `v1 = 999999` inserted before it.
    InsertRow { key: SplitKey, row: usize },
    /// Rows `row` and `row + 1` swapped.
    SwapRows { key: SplitKey, row: usize },
    /// The last row of `from` moved to the end of `to`.
    MoveLastRow { from: PlannedSplit, to: SplitKey },
    /// The RowKind of one row set to `kind`.
    SetKind { key: SplitKey, row: usize, kind: i8 },
    /// The RowKinds of rows `row` and `row + 1` swapped.
    SwapKinds { key: SplitKey, row: usize },
    /// The split not planned.
    DropSplit { key: SplitKey },
    /// An extra split planned.
    ExtraSplit { split: PlannedSplit },
    /// The split's first data file not planned.
    DropFile { key: SplitKey },
    /// A data file of another split planned in this one too.
    AddFile {
        key: SplitKey,
        file: native_reader::DataFileDesc,
    },
    /// The split planned under another partition value.
    Partition { key: SplitKey, value: String },
    /// The split planned under another bucket.
    Bucket { key: SplitKey, bucket: i32 },
    /// Every split's rows in reverse order (no difference for `--unordered`).
    ReverseAll,
}

struct Planted {
    inner: NativeTableReader,
    plant: Plant,
}

fn read_all(reader: &dyn TableReader, table: &Path, split: &PlannedSplit) -> RecordBatch {
    let batches: Vec<RecordBatch> = reader
        .read_split(table, split)
        .expect("reads")
        .map(|b| b.expect("batch"))
        .collect();
    let schema = batches.first().expect("at least one batch").schema();
    arrow::compute::concat_batches(&schema, &batches).expect("concat")
}

fn take(batch: &RecordBatch, rows: &[u32]) -> RecordBatch {
    arrow::compute::take_record_batch(batch, &UInt32Array::from(rows.to_vec())).expect("take")
}

fn with_column(batch: &RecordBatch, name: &str, array: ArrayRef) -> RecordBatch {
    let idx = batch.schema().index_of(name).expect("column");
    let mut columns = batch.columns().to_vec();
    columns[idx] = array;
    RecordBatch::try_new(batch.schema(), columns).expect("valid batch")
}

fn kinds_of(batch: &RecordBatch) -> Vec<i8> {
    batch
        .column(0)
        .as_any()
        .downcast_ref::<Int8Array>()
        .expect("_row_kind")
        .values()
        .to_vec()
}

fn with_kinds(batch: &RecordBatch, kinds: Vec<i8>) -> RecordBatch {
    with_column(batch, "_row_kind", Arc::new(Int8Array::from(kinds)))
}

/// Row `row` with `v1 = 999999`.
fn fabricated(batch: &RecordBatch, row: usize) -> RecordBatch {
    with_column(
        &take(batch, &[row as u32]),
        "v1",
        Arc::new(Int64Array::from(vec![999_999i64])),
    )
}

fn concat(parts: &[RecordBatch]) -> RecordBatch {
    arrow::compute::concat_batches(&parts[0].schema(), parts).expect("concat")
}

impl Planted {
    fn change_rows(&self, table: &Path, split: &PlannedSplit) -> Option<RecordBatch> {
        let key = split.split.key();
        let rows = || read_all(&self.inner, table, split);
        let n = |b: &RecordBatch| b.num_rows() as u32;
        Some(match &self.plant {
            Plant::DropRow { key: k, row } if *k == key => {
                let b = rows();
                let keep: Vec<u32> = (0..n(&b)).filter(|i| *i as usize != *row).collect();
                take(&b, &keep)
            }
            Plant::InsertRow { key: k, row } if *k == key => {
                let b = rows();
                concat(&[
                    b.slice(0, *row),
                    fabricated(&b, *row),
                    b.slice(*row, b.num_rows() - row),
                ])
            }
            Plant::SwapRows { key: k, row } if *k == key => {
                let b = rows();
                let mut order: Vec<u32> = (0..n(&b)).collect();
                order.swap(*row, row + 1);
                take(&b, &order)
            }
            Plant::MoveLastRow { from, .. } if from.split.key() == key => {
                let b = rows();
                b.slice(0, b.num_rows() - 1)
            }
            Plant::MoveLastRow { from, to } if *to == key => {
                let source = read_all(&self.inner, table, from);
                concat(&[rows(), source.slice(source.num_rows() - 1, 1)])
            }
            Plant::SetKind { key: k, row, kind } if *k == key => {
                let b = rows();
                let mut kinds = kinds_of(&b);
                kinds[*row] = *kind;
                with_kinds(&b, kinds)
            }
            Plant::SwapKinds { key: k, row } if *k == key => {
                let b = rows();
                let mut kinds = kinds_of(&b);
                kinds.swap(*row, row + 1);
                with_kinds(&b, kinds)
            }
            Plant::ReverseAll => {
                let b = rows();
                take(&b, &(0..n(&b)).rev().collect::<Vec<_>>())
            }
            _ => return None,
        })
    }
}

impl TableReader for Planted {
    fn side(&self) -> Side {
        Side::Native
    }

    fn plan_stream(&self, t: &Path, from: i64, end: i64) -> harness::Result<Vec<PlannedSplit>> {
        let mut plan = self.inner.plan_stream(t, from, end)?;
        let at = |plan: &[PlannedSplit], key: &SplitKey| {
            plan.iter()
                .position(|p| p.split.key() == *key)
                .expect("the planted split is planned")
        };
        match &self.plant {
            Plant::DropSplit { key } => {
                let i = at(&plan, key);
                plan.remove(i);
            }
            Plant::ExtraSplit { split } => plan.push(split.clone()),
            Plant::DropFile { key } => {
                let i = at(&plan, key);
                plan[i].split.data_files.remove(0);
            }
            Plant::AddFile { key, file } => {
                let i = at(&plan, key);
                plan[i].split.data_files.push(file.clone());
            }
            Plant::Partition { key, value } => {
                let i = at(&plan, key);
                plan[i].split.partition = vec![Some(value.clone())];
            }
            Plant::Bucket { key, bucket } => {
                let i = at(&plan, key);
                plan[i].split.bucket = *bucket;
            }
            _ => {}
        }
        Ok(plan)
    }

    fn read_split<'a>(&'a self, t: &Path, split: &'a PlannedSplit) -> harness::Result<Batches<'a>> {
        match self.change_rows(t, split) {
            Some(b) => Ok(Box::new(std::iter::once(Ok(b)))),
            None => self.inner.read_split(t, split),
        }
    }
}

struct Fixture {
    table: PathBuf,
    stock: StockTableReader,
    native: NativeTableReader,
    plan: Vec<PlannedSplit>,
}

fn fixture() -> Fixture {
    let table = std::fs::canonicalize(common::corpus("lookup-partitioned").join("table")).unwrap();
    let native = common::native();
    let end = native_reader::Table::open(&table)
        .unwrap()
        .latest_snapshot_id()
        .unwrap()
        .unwrap();
    let plan = native.plan_stream(&table, 1, end).unwrap();
    Fixture {
        table,
        stock: StockTableReader::new().expect("JVM starts"),
        native,
        plan,
    }
}

impl Fixture {
    fn rows(&self, split: &PlannedSplit) -> RecordBatch {
        read_all(&self.native, &self.table, split)
    }

    /// The first split whose rows satisfy `pred`, with its rows.
    fn find(&self, pred: impl Fn(&RecordBatch) -> bool) -> (PlannedSplit, RecordBatch) {
        self.plan
            .iter()
            .map(|p| (p.clone(), self.rows(p)))
            .find(|(_, b)| pred(b))
            .expect("a split with such rows")
    }

    fn replay(self, plant: Plant, unordered: bool) -> ReplayReport {
        let planted = Planted {
            inner: self.native,
            plant,
        };
        let options = ReplayOptions {
            progress: false,
            unordered,
            ..ReplayOptions::default()
        };
        replay(&self.table, &self.stock, &planted, &options).expect("replay runs")
    }
}

fn text(report: &ReplayReport) -> String {
    let mut out = Vec::new();
    harness::report::write_text(&mut out, report, 100).unwrap();
    String::from_utf8(out).unwrap()
}

fn differing(report: &ReplayReport) -> Vec<&SplitReport> {
    report
        .splits
        .iter()
        .filter(|s| s.verdict != SplitVerdict::Identical)
        .collect()
}

/// Exit 1, exactly the planted split differs in decoding, first at `row`/`field` with both values, and
/// the text report says so.
fn assert_decoding(
    report: &ReplayReport,
    key: &SplitKey,
    row: u64,
    field: &str,
    stock: &str,
    native: &str,
) -> harness::diff::RowMismatch {
    let text = text(report);
    assert_eq!(report.exit_code(), 1, "{text}");
    let d = differing(report);
    assert_eq!(d.len(), 1, "exactly the planted split differs:\n{text}");
    assert_eq!(&d[0].key, key, "{text}");
    assert_eq!(d[0].verdict, SplitVerdict::DiffersDecoding, "{text}");
    let m = d[0].first_mismatch.clone().expect("a mismatch");
    assert_eq!(
        (m.row, m.field.as_str(), m.stock.as_str(), m.native.as_str()),
        (row, field, stock, native),
        "{text}"
    );
    let first = report.first_difference.as_ref().unwrap();
    assert_eq!((first.kind, &first.split), ("decoding", key));
    let line = format!("{key}, row {row}, field {field}: stock {stock} | native {native}");
    assert!(text.contains(&line), "missing {line:?} in\n{text}");
    m
}

/// Exit 1, exactly the planted split differs in planning, with `detail` (when given) in the report.
fn assert_planning(
    report: &ReplayReport,
    key: &SplitKey,
    verdict: SplitVerdict,
    detail: Option<&str>,
) {
    let text = text(report);
    assert_eq!(report.exit_code(), 1, "{text}");
    let d = differing(report);
    assert_eq!(d.len(), 1, "exactly the planted split differs:\n{text}");
    assert_eq!((&d[0].key, d[0].verdict), (key, verdict), "{text}");
    assert_eq!(d[0].detail.as_deref(), detail, "{text}");
    let first = report.first_difference.as_ref().unwrap();
    assert_eq!((first.kind, &first.split), ("planning", key));
    let line = format!("{:<20} {key}", verdict.word());
    assert!(text.contains(&line), "missing {line:?} in\n{text}");
    if let Some(detail) = detail {
        assert!(text.contains(detail), "{text}");
    }
}

// ---------------------------------------------------------------------------------------------------
// Rows.
// ---------------------------------------------------------------------------------------------------

#[test]
fn missing_row_is_caught_and_pinpointed() {
    let f = fixture();
    let (split, rows) = f.find(|b| b.num_rows() >= 3);
    let key = split.split.key();
    let report = f.replay(
        Plant::DropRow {
            key: key.clone(),
            row: 1,
        },
        false,
    );
    let m = assert_decoding(&report, &key, 1, "<row>", &render_row(&rows, 1), "<none>");
    assert_eq!(m.kind, MismatchKind::Missing);
    assert_eq!(differing(&report)[0].differing_rows, 1);
}

#[test]
fn extra_row_is_caught_and_pinpointed() {
    let f = fixture();
    let (split, rows) = f.find(|b| b.num_rows() >= 3);
    let key = split.split.key();
    let extra = render_row(&fabricated(&rows, 1), 0);
    assert!(extra.contains("999999"), "{extra}");
    let report = f.replay(
        Plant::InsertRow {
            key: key.clone(),
            row: 1,
        },
        false,
    );
    let m = assert_decoding(&report, &key, 1, "<row>", "<none>", &extra);
    assert_eq!(m.kind, MismatchKind::Extra);
    assert_eq!(differing(&report)[0].differing_rows, 1);
}

#[test]
fn swapped_rows_are_caught_and_pinpointed() {
    let f = fixture();
    let (split, rows) = f.find(|b| b.num_rows() >= 2);
    let key = split.split.key();
    // The first field where rows 0 and 1 differ, and its two values.
    let schema = rows.schema();
    let (field, a, b) = (0..rows.num_columns())
        .map(|c| {
            let col = rows.column(c);
            let value = |r: usize| {
                if c == 0 {
                    harness::diff::row_kind_symbol(Some(kinds_of(&rows)[r])).to_string()
                } else {
                    harness::diff::render_value(col.as_ref(), r)
                }
            };
            (schema.field(c).name().clone(), value(0), value(1))
        })
        .find(|(_, a, b)| a != b)
        .expect("rows 0 and 1 differ");
    let report = f.replay(
        Plant::SwapRows {
            key: key.clone(),
            row: 0,
        },
        false,
    );
    let m = assert_decoding(&report, &key, 0, &field, &a, &b);
    assert_eq!(m.kind, MismatchKind::Swapped);
    assert_eq!(differing(&report)[0].differing_rows, 2);
}

#[test]
fn rows_moved_to_another_split_are_caught_in_both_splits() {
    let f = fixture();
    let (from, from_rows) = f.find(|b| b.num_rows() >= 2);
    let to = f
        .plan
        .iter()
        .find(|p| p.split.key() != from.split.key())
        .unwrap()
        .clone();
    let to_rows = f.rows(&to);
    let moved = render_row(&from_rows, from_rows.num_rows() - 1);
    let report = f.replay(
        Plant::MoveLastRow {
            from: from.clone(),
            to: to.split.key(),
        },
        false,
    );
    let text = text(&report);
    assert_eq!(report.exit_code(), 1, "{text}");
    let d = differing(&report);
    assert_eq!(d.len(), 2, "{text}");
    let by_key = |k: &SplitKey| {
        d.iter()
            .find(|s| s.key == *k)
            .expect("reported")
            .first_mismatch
            .clone()
            .unwrap()
    };
    let m = by_key(&from.split.key());
    assert_eq!(
        (
            m.row,
            m.field.as_str(),
            m.stock.as_str(),
            m.native.as_str(),
            m.kind
        ),
        (
            (from_rows.num_rows() - 1) as u64,
            "<row>",
            moved.as_str(),
            "<none>",
            MismatchKind::Missing
        ),
        "{text}"
    );
    let m = by_key(&to.split.key());
    assert_eq!(
        (
            m.row,
            m.field.as_str(),
            m.stock.as_str(),
            m.native.as_str(),
            m.kind
        ),
        (
            to_rows.num_rows() as u64,
            "<row>",
            "<none>",
            moved.as_str(),
            MismatchKind::Extra
        ),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------------------
// RowKinds.
// ---------------------------------------------------------------------------------------------------

fn kind_changed(from: i8, to: i8, from_symbol: &str, to_symbol: &str) {
    let f = fixture();
    let (split, rows) = f.find(|b| kinds_of(b).contains(&from));
    let row = kinds_of(&rows).iter().position(|k| *k == from).unwrap();
    let key = split.split.key();
    let report = f.replay(
        Plant::SetKind {
            key: key.clone(),
            row,
            kind: to,
        },
        false,
    );
    let m = assert_decoding(
        &report,
        &key,
        row as u64,
        "_row_kind",
        from_symbol,
        to_symbol,
    );
    assert_eq!(m.kind, MismatchKind::Value);
    assert_eq!(differing(&report)[0].differing_rows, 1);
}

#[test]
fn row_kind_insert_to_update_after_is_caught() {
    kind_changed(0, 2, "+I", "+U");
}

#[test]
fn row_kind_update_before_to_delete_is_caught() {
    kind_changed(1, 3, "-U", "-D");
}

#[test]
fn row_kinds_update_before_and_after_swapped_are_caught() {
    let f = fixture();
    let adjacent = |b: &RecordBatch| {
        let k = kinds_of(b);
        (0..k.len().saturating_sub(1)).find(|i| k[*i] == 1 && k[i + 1] == 2)
    };
    let (split, rows) = f.find(|b| adjacent(b).is_some());
    let row = adjacent(&rows).unwrap();
    let key = split.split.key();
    let report = f.replay(
        Plant::SwapKinds {
            key: key.clone(),
            row,
        },
        false,
    );
    assert_decoding(&report, &key, row as u64, "_row_kind", "-U", "+U");
    assert_eq!(differing(&report)[0].differing_rows, 2);
}

// ---------------------------------------------------------------------------------------------------
// Splits.
// ---------------------------------------------------------------------------------------------------

#[test]
fn missing_split_is_caught() {
    let f = fixture();
    let split = f.plan[f.plan.len() / 2].clone();
    let rows = f.rows(&split).num_rows() as u64;
    let key = split.split.key();
    let report = f.replay(Plant::DropSplit { key: key.clone() }, false);
    assert_planning(&report, &key, SplitVerdict::OnlyInStock, None);
    assert_eq!(
        differing(&report)[0].stock_rows.map(|r| r.total()),
        Some(rows)
    );
    assert!(report
        .first_difference
        .as_ref()
        .unwrap()
        .detail
        .contains("only the stock reader planned this split"));
}

#[test]
fn extra_split_is_caught() {
    let f = fixture();
    let mut extra = f.plan[0].clone();
    let end = f.plan.iter().map(|p| p.split.snapshot_id).max().unwrap();
    extra.split.snapshot_id = end + 100;
    let rows = f.rows(&extra).num_rows() as u64;
    let key = extra.split.key();
    let report = f.replay(Plant::ExtraSplit { split: extra }, false);
    assert_planning(&report, &key, SplitVerdict::OnlyInNative, None);
    assert_eq!(
        differing(&report)[0].native_rows.map(|r| r.total()),
        Some(rows)
    );
}

fn show(f: &native_reader::DataFileDesc) -> String {
    format!("{} (level {}, {} rows)", f.file_name, f.level, f.row_count)
}

#[test]
fn split_with_one_file_less_is_caught_naming_the_file() {
    let f = fixture();
    let split = f.plan[0].clone();
    let file = split.split.data_files[0].clone();
    let key = split.split.key();
    let report = f.replay(Plant::DropFile { key: key.clone() }, false);
    let detail = differing(&report)[0].detail.clone().unwrap_or_default();
    assert!(
        detail.starts_with(&format!(
            "data files differ: {} only in stock;",
            show(&file)
        )),
        "{detail}"
    );
    assert_planning(&report, &key, SplitVerdict::DiffersPlanning, Some(&detail));
}

#[test]
fn split_with_one_file_more_is_caught_naming_the_file() {
    let f = fixture();
    let split = f.plan[0].clone();
    let other = f
        .plan
        .iter()
        .find(|p| p.split.data_files[0].file_name != split.split.data_files[0].file_name)
        .unwrap()
        .split
        .data_files[0]
        .clone();
    let key = split.split.key();
    let report = f.replay(
        Plant::AddFile {
            key: key.clone(),
            file: other.clone(),
        },
        false,
    );
    let detail = differing(&report)[0].detail.clone().unwrap_or_default();
    assert!(
        detail.starts_with(&format!(
            "data files differ: {} only in native;",
            show(&other)
        )),
        "{detail}"
    );
    assert_planning(&report, &key, SplitVerdict::DiffersPlanning, Some(&detail));
}

#[test]
fn different_partition_value_is_caught_with_both_values() {
    let f = fixture();
    let split = f.plan[0].clone();
    let key = split.split.key();
    let stock_value = key.partition[0].clone().unwrap();
    let mut moved = key.clone();
    moved.partition = vec![Some("p9".into())];
    let report = f.replay(
        Plant::Partition {
            key: key.clone(),
            value: "p9".into(),
        },
        false,
    );
    assert_planning(
        &report,
        &key,
        SplitVerdict::DiffersPlanning,
        Some(&format!(
            "partition differs: stock [{stock_value}] vs native [p9] (the native reader planned the same files as {moved})"
        )),
    );
}

#[test]
fn different_bucket_is_caught_with_both_values() {
    let f = fixture();
    let split = f.plan[0].clone();
    let key = split.split.key();
    let mut moved = key.clone();
    moved.bucket = 7;
    let report = f.replay(
        Plant::Bucket {
            key: key.clone(),
            bucket: 7,
        },
        false,
    );
    assert_planning(
        &report,
        &key,
        SplitVerdict::DiffersPlanning,
        Some(&format!(
            "bucket differs: stock {} vs native 7 (the native reader planned the same files as {moved})",
            key.bucket
        )),
    );
}

// ---------------------------------------------------------------------------------------------------
// `--unordered` against the released reader.
// ---------------------------------------------------------------------------------------------------

#[test]
fn unordered_accepts_reordered_rows_and_still_catches_a_missing_row() {
    let f = fixture();
    let report = f.replay(Plant::ReverseAll, true);
    assert_eq!(report.exit_code(), 0, "{}", text(&report));

    let f = fixture();
    let report = f.replay(Plant::ReverseAll, false);
    assert_eq!(report.exit_code(), 1, "ordered diff sees the order");

    let f = fixture();
    let (split, rows) = f.find(|b| b.num_rows() >= 3);
    let key = split.split.key();
    let report = f.replay(
        Plant::DropRow {
            key: key.clone(),
            row: 2,
        },
        true,
    );
    let m = assert_decoding(&report, &key, 2, "<row>", &render_row(&rows, 2), "<none>");
    assert_eq!(m.kind, MismatchKind::Missing);
    assert!(
        m.context
            .contains("1 rows only in stock, 0 rows only in native"),
        "{}",
        m.context
    );
}

#[test]
fn unordered_flag_of_the_binary_replays_a_corpus_identically() {
    let table = common::corpus("c00-full-compaction-control").join("table");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_paimon-parity"))
        .args(["replay", table.to_str().unwrap(), "--unordered"])
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("IDENTICAL: "), "{stdout}");
}
