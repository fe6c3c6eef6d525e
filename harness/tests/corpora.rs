//! Every committed corpus replays identically through the released Java reader and the native reader,
//! and the stock reader still returns what `case.json` recorded when the corpus was written.

use crate::common;

use harness::corpus::{stock_summary, StockSummary};
use harness::reader::{StockTableReader, TableReader};
use harness::replay::{replay, ReplayOptions};

fn quiet() -> ReplayOptions {
    ReplayOptions {
        progress: false,
        ..ReplayOptions::default()
    }
}

#[test]
fn every_corpus_replays_identically_and_matches_case_json() {
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let corpora = common::line_corpora(&common::line_version());
    assert!(
        corpora.len() >= 2,
        "expected at least two committed corpora"
    );
    for dir in corpora {
        let table = dir.join("table");
        let report = replay(&table, &stock, &native, &quiet()).expect("replay runs");
        let case: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
        let expected: StockSummary =
            serde_json::from_value(case["expected"]["stream_from_snapshot_1"].clone()).unwrap();
        // A stream the released writer's reader planned nothing for (C55: every snapshot held back by
        // `streaming.read.snapshot.delay`) compares nothing, and says so.
        let verdict = if expected.splits == 0 {
            "nothing-compared"
        } else {
            "identical"
        };
        assert_eq!(
            report.verdict,
            verdict,
            "{}: {}",
            dir.display(),
            harness::report::summary_line(&report)
        );
        assert_eq!(
            report.totals.splits > 0,
            expected.splits > 0,
            "{}: splits",
            dir.display()
        );
        let actual = stock_summary(&stock, &std::fs::canonicalize(&table).unwrap()).unwrap();
        assert_eq!(
            actual,
            expected,
            "{}: stock reader differs from case.json",
            dir.display()
        );
        let t = &report.totals.stock_rows;
        assert_eq!(
            [t.insert, t.update_before, t.update_after, t.delete],
            expected.rows,
            "{}",
            dir.display()
        );
    }
}

/// C00 control: the changelog holds exactly what the two commits wrote: `+I (1,10)`, then `-U (1,10)`,
/// `+U (1,20)` (expected values from the writes, see `shared/cases` C00).
#[test]
fn c00_control_changelog_is_what_was_written() {
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let table =
        std::fs::canonicalize(common::corpus("c00-full-compaction-control").join("table")).unwrap();
    let expected = vec!["+I (1, 10)", "-U (1, 10)", "+U (1, 20)"];
    for reader in [&stock as &dyn TableReader, &native] {
        let mut rows = Vec::new();
        for split in reader.plan_stream(&table, 1, 4).unwrap() {
            for batch in reader.read_split(&table, &split).unwrap() {
                let batch = batch.unwrap();
                for r in 0..batch.num_rows() {
                    rows.push(harness::diff::render_row(&batch, r));
                }
            }
        }
        assert_eq!(rows, expected, "{} reader", reader.side());
    }
}
