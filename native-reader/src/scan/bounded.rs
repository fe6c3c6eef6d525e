//! `scan.bounded.watermark` (`CoreOptions.SCAN_BOUNDED_WATERMARK`): a streaming scan ends at the first
//! snapshot whose watermark is past the bound (`BoundedChecker#watermark`, `DataTableStreamScan` throws
//! `EndOfScanException`), the same on every release. Batch scans do not look at it.

use crate::error::Result;
use crate::options::{InvalidOption, ValueError};
use crate::snapshot::Snapshot;
use crate::table::Table;

/// The option's key.
const KEY: &str = "scan.bounded.watermark";

/// A streaming scan's bound: the watermark in milliseconds past which it ends, `None` when unbounded
/// (`BoundedChecker.neverEnd()`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BoundedWatermark(Option<i64>);

impl BoundedWatermark {
    /// The bound of `table`'s streaming scans.
    ///
    /// Errors: [`crate::Error::InvalidOption`] naming the schema directory when the option is not a long.
    pub(crate) fn of(table: &Table) -> Result<BoundedWatermark> {
        match table.schema().option(KEY) {
            None => Ok(BoundedWatermark(None)),
            Some(value) => value
                .trim()
                .parse::<i64>()
                .map(|bound| BoundedWatermark(Some(bound)))
                .map_err(|_| {
                    InvalidOption::new(KEY, ValueError::NotALong(value.to_string()))
                        .at(table.path().join("schema"))
                }),
        }
    }

    /// `BoundedChecker#shouldEndInput`: `snapshot` has a watermark, and it is past the bound.
    pub(crate) fn ends_at(&self, snapshot: &Snapshot) -> bool {
        matches!((self.0, snapshot.watermark), (Some(bound), Some(w)) if w > bound)
    }

    /// Whether a stream whose first plan names no snapshot and goes on from `next` ends before it
    /// (`DataTableStreamScan#tryFirstPlan` on `NextSnapshot`): snapshot `next - 1` exists and ends it.
    ///
    /// Errors: the snapshot file's read errors.
    pub(crate) fn ended_before(&self, table: &Table, next: i64) -> Result<bool> {
        if self.0.is_none() || !table.snapshot_manager().snapshot_exists(next - 1) {
            return Ok(false);
        }
        Ok(self.ends_at(&table.snapshot(next - 1)?))
    }
}
