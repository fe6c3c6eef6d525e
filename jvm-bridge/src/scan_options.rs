//! What a scan mode means to the released reader, decided on the Rust side: the dynamic options it sets
//! on the table (`Table.copy(Map)`) and, for the streaming modes, when the plan loop ends. The Java side
//! (`StockReader.planBatch`, `openStreamScan`, `nextStreamPlan`) only applies the options and returns plans.

use std::collections::BTreeMap;

use native_reader::scan::ScanMode;

pub use native_reader::scan::{SCAN_MODE, SCAN_SNAPSHOT_ID};

/// The dynamic table options that make the released scans plan `mode` ([`ScanMode::dynamic_options`], the
/// one place that says so for both readers):
///
/// - [`ScanMode::Stream`] sets `scan.mode=from-snapshot`, `scan.snapshot-id=<from_snapshot>`;
/// - [`ScanMode::StreamFull`] sets `scan.mode=from-snapshot-full`, `scan.snapshot-id=<from_snapshot>`;
/// - [`ScanMode::LatestFull`] sets `scan.mode=latest-full`;
/// - [`ScanMode::Batch`] sets `scan.snapshot-id=<snapshot>` when a snapshot `>= 0` is given, else nothing
///   (the latest snapshot).
pub fn scan_options(mode: ScanMode) -> BTreeMap<&'static str, String> {
    mode.dynamic_options()
}

/// The stop rule of a streaming replay up to `end_snapshot`: `StreamTableScan.plan()` is called until
/// `checkpoint()` (the next snapshot to scan) exceeds `end_snapshot`, or until two `SnapshotNotExistPlan`s
/// in a row leave the checkpoint where it was. Splits of snapshots after `end_snapshot` are dropped (the
/// scanner skips snapshots it ignores, so one plan can land past the end).
///
/// The rule holds for both release lines: 1.0 returns a (possibly empty) plan per scanned snapshot; 2.0
/// skips empty plans inside one `plan()` call (`DataTableStreamScan#nextPlan`), so a call either returns
/// the next non-empty plan (possibly of a snapshot past the end, dropped by [`StreamStop::keeps`]) or a
/// `SnapshotNotExistPlan` whose checkpoint is already `latest + 1`. Either way the checkpoint passes the
/// end after the last snapshot ≤ `end_snapshot` was consumed, and no split of a snapshot ≤ the end is lost.
#[derive(Clone, Debug)]
pub struct StreamStop {
    end_snapshot: i64,
    /// The checkpoint after the previous plan (`None` before the first, as Java's `null`).
    previous: Option<i64>,
    /// `SnapshotNotExistPlan`s in a row without progress.
    idle: u32,
}

impl StreamStop {
    /// The rule for a replay up to `end_snapshot` (inclusive).
    pub fn new(end_snapshot: i64) -> Self {
        Self {
            end_snapshot,
            previous: None,
            idle: 0,
        }
    }

    /// Whether a split of snapshot `snapshot_id` belongs to the replay (`snapshot_id <= end_snapshot`).
    pub fn keeps(&self, snapshot_id: i64) -> bool {
        snapshot_id <= self.end_snapshot
    }

    /// After one plan: `checkpoint` is `StreamTableScan.checkpoint()` (`None` for null), `snapshot_not_exist`
    /// whether the plan was a `SnapshotNotExistPlan`. Returns true when the loop ends.
    pub fn after_plan(&mut self, checkpoint: Option<i64>, snapshot_not_exist: bool) -> bool {
        if checkpoint.is_some_and(|next| next > self.end_snapshot) {
            return true;
        }
        if snapshot_not_exist && checkpoint == self.previous {
            self.idle += 1;
            if self.idle >= 2 {
                return true;
            }
        } else {
            self.idle = 0;
        }
        self.previous = checkpoint;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(mode: ScanMode) -> Vec<(&'static str, String)> {
        scan_options(mode).into_iter().collect()
    }

    #[test]
    fn each_mode_sets_the_options_of_the_released_scan() {
        assert_eq!(
            pairs(ScanMode::Stream { from_snapshot: 3 }),
            vec![
                (SCAN_MODE, "from-snapshot".to_owned()),
                (SCAN_SNAPSHOT_ID, "3".to_owned())
            ]
        );
        assert_eq!(
            pairs(ScanMode::StreamFull { from_snapshot: 1 }),
            vec![
                (SCAN_MODE, "from-snapshot-full".to_owned()),
                (SCAN_SNAPSHOT_ID, "1".to_owned())
            ]
        );
        assert_eq!(
            pairs(ScanMode::LatestFull),
            vec![(SCAN_MODE, "latest-full".to_owned())]
        );
        assert_eq!(pairs(ScanMode::Batch { snapshot: None }), vec![]);
        assert_eq!(pairs(ScanMode::Batch { snapshot: Some(-1) }), vec![]);
        assert_eq!(
            pairs(ScanMode::Batch { snapshot: Some(0) }),
            vec![(SCAN_SNAPSHOT_ID, "0".to_owned())]
        );
    }

    #[test]
    fn the_stream_ends_the_same_way_when_2_0_skips_empty_plans() {
        // Snapshots 1..=5, end 4; 2 and 3 give empty plans. 1.0: one plan per snapshot.
        let mut stop = StreamStop::new(4);
        for checkpoint in [1, 2, 3, 4] {
            assert!(!stop.after_plan(Some(checkpoint), checkpoint == 1));
        }
        assert!(stop.after_plan(Some(5), false));
        // 2.0: the first plan (SnapshotNotExistPlan, checkpoint 1), snapshot 1's plan, then one call that
        // skips 2 and 3 and returns snapshot 4's plan with checkpoint 5.
        let mut stop = StreamStop::new(4);
        assert!(!stop.after_plan(Some(1), true));
        assert!(!stop.after_plan(Some(2), false));
        assert!(stop.after_plan(Some(5), false));
        // 2.0 with 4 and 5 empty too: the call passes every snapshot and reports SnapshotNotExistPlan at
        // latest + 1, which is past the end.
        let mut stop = StreamStop::new(4);
        assert!(!stop.after_plan(Some(1), true));
        assert!(!stop.after_plan(Some(2), false));
        assert!(stop.after_plan(Some(6), true));
        // 2.0 landing past the end: snapshot 5's plan arrives with checkpoint 6; its splits are dropped.
        assert!(!stop.keeps(5));
    }

    #[test]
    fn the_stream_ends_past_the_end_snapshot_or_after_two_idle_plans() {
        let mut stop = StreamStop::new(3);
        assert!(stop.keeps(3) && !stop.keeps(4));
        assert!(!stop.after_plan(Some(2), false));
        assert!(!stop.after_plan(Some(3), false));
        assert!(stop.after_plan(Some(4), false));

        // A checkpoint that does not move on two SnapshotNotExistPlans in a row ends the loop.
        let mut stop = StreamStop::new(10);
        assert!(!stop.after_plan(Some(5), false));
        assert!(!stop.after_plan(Some(5), true));
        assert!(stop.after_plan(Some(5), true));

        // A null checkpoint before the first plan counts as no progress, like Java's Objects.equals.
        let mut stop = StreamStop::new(10);
        assert!(!stop.after_plan(None, true));
        assert!(stop.after_plan(None, true));

        // Progress in between resets the count.
        let mut stop = StreamStop::new(10);
        assert!(!stop.after_plan(Some(5), true));
        assert!(!stop.after_plan(Some(5), true));
        assert!(!stop.after_plan(Some(6), false));
        assert!(!stop.after_plan(Some(6), true));
        assert!(stop.after_plan(Some(6), true));
    }
}
