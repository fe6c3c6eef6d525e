//! A planted difference in the native reader's rows is caught: exit 1, and the report names the split,
//! the row and the field, with both values.

use crate::common;

use std::path::Path;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch};
use harness::error::Side;
use harness::reader::{Batches, NativeTableReader, PlannedSplit, StockTableReader, TableReader};
use harness::replay::{replay, ReplayOptions, SplitVerdict};

/// Wraps the native reader and adds 1 to column `v1` of row `row` of the `nth` split it reads.
struct Planted {
    inner: NativeTableReader,
    target: native_reader::SplitKey,
    row: usize,
}

impl TableReader for Planted {
    fn side(&self) -> Side {
        Side::Native
    }
    fn plan_stream(&self, t: &Path, from: i64, end: i64) -> harness::Result<Vec<PlannedSplit>> {
        self.inner.plan_stream(t, from, end)
    }
    fn read_split<'a>(&'a self, t: &Path, split: &'a PlannedSplit) -> harness::Result<Batches<'a>> {
        let batches = self.inner.read_split(t, split)?;
        if split.split.key() != self.target {
            return Ok(batches);
        }
        let mut seen = 0usize;
        let row = self.row;
        Ok(Box::new(batches.map(move |b| {
            let b = b?;
            let start = seen;
            seen += b.num_rows();
            if row < start || row >= seen {
                return Ok(b);
            }
            let idx = b.schema().index_of("v1").unwrap();
            let col = b.column(idx).as_any().downcast_ref::<Int64Array>().unwrap();
            let changed: Int64Array = (0..col.len())
                .map(|i| {
                    let v = col.is_valid(i).then(|| col.value(i));
                    if i == row - start {
                        Some(v.unwrap_or(0) + 1)
                    } else {
                        v
                    }
                })
                .collect();
            let mut cols: Vec<ArrayRef> = b.columns().to_vec();
            cols[idx] = Arc::new(changed);
            Ok(RecordBatch::try_new(b.schema(), cols).unwrap())
        })))
    }
}

#[test]
fn one_changed_native_value_is_caught_and_pinpointed() {
    let table = std::fs::canonicalize(common::corpus("lookup-partitioned").join("table")).unwrap();
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let end = native_reader::Table::open(&table)
        .unwrap()
        .latest_snapshot_id()
        .unwrap()
        .unwrap();
    // Plant in the first split with at least 3 rows, at row 2.
    let plan = native.plan_stream(&table, 1, end).unwrap();
    let target = plan
        .iter()
        .find(|s| s.split.row_count() >= 3)
        .expect("a split with 3 rows")
        .split
        .key();
    let planted = Planted {
        inner: native,
        target: target.clone(),
        row: 2,
    };
    let options = ReplayOptions {
        progress: false,
        ..ReplayOptions::default()
    };
    let report = replay(&table, &stock, &planted, &options).unwrap();
    assert_eq!(report.verdict, "different");
    assert_eq!(report.exit_code(), 1);
    let differing: Vec<_> = report
        .splits
        .iter()
        .filter(|s| s.verdict != SplitVerdict::Identical)
        .collect();
    assert_eq!(differing.len(), 1, "exactly the planted split differs");
    let split = differing[0];
    assert_eq!(split.key, target);
    assert_eq!(split.verdict, SplitVerdict::DiffersDecoding);
    assert_eq!(split.differing_rows, 1);
    let m = split.first_mismatch.as_ref().unwrap();
    assert_eq!(m.row, 2);
    assert_eq!(m.field, "v1");
    let stock_value: i64 = m.stock.parse().unwrap();
    let native_value: i64 = m.native.parse().unwrap();
    assert_eq!(native_value, stock_value + 1);
    let first = report.first_difference.as_ref().unwrap();
    assert_eq!(first.kind, "decoding");
    assert_eq!(first.split, target);

    let mut text = Vec::new();
    harness::report::write_text(&mut text, &report, 10).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("differs (decoding)"), "{text}");
    assert!(
        text.contains(&format!("{target}, row 2, field v1")),
        "{text}"
    );
}
