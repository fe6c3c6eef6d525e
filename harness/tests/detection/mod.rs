//! Detection power at the diff level (issue 8), with two in-memory readers over the same plan — one with
//! exactly one planted difference — replayed by the real `replay()`: every planted difference gives exit 1
//! and a report naming the split, the row ordinal and the field with both values; identical data however
//! laid out gives exit 0.
//!
//! One module per kind of planted difference: `fields` (one field changed, for every type), `row_kinds`,
//! `row_changes` (rows missing, extra, swapped, moved), `planning` (splits missing, extra, with a file more
//! or less, another partition or bucket), `no_false_alarms` (identical data however laid out) and
//! `unordered` (`--unordered`: a split as a multiset).

use crate::synthetic;

mod fields;
mod no_false_alarms;
mod planning;
mod row_changes;
mod row_kinds;
mod unordered;

use arrow_array::RecordBatch;
use synthetic::*;

fn planted(native: RecordBatch) -> harness::replay::ReplayReport {
    replay_mem(one_split(base()), one_split(native), false)
}

fn assert_identical(report: &harness::replay::ReplayReport) {
    let text = text(report);
    assert_eq!(report.verdict, "identical", "{text}");
    assert_eq!(report.exit_code(), 0, "{text}");
    assert!(differing(report).is_empty(), "{text}");
}
