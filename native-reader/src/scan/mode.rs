//! The scan modes the replay plans (`CoreOptions.StartupMode` in a streaming or a batch scan).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `scan.mode` (`CoreOptions.SCAN_MODE`).
pub const SCAN_MODE: &str = "scan.mode";
/// `scan.snapshot-id` (`CoreOptions.SCAN_SNAPSHOT_ID`).
pub const SCAN_SNAPSHOT_ID: &str = "scan.snapshot-id";

/// How a scan starts and whether it follows new snapshots: the scan modes the native reader plans like the
/// released reader (`CoreOptions.StartupMode` in a streaming or a batch scan).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "mode")]
pub enum ScanMode {
    /// Streaming, `scan.mode=from-snapshot`, `scan.snapshot-id=from_snapshot`: an empty first plan, then
    /// one follow-up plan per accepted snapshot from `max(from_snapshot, earliest)` ([`plan_stream`]).
    Stream {
        /// `scan.snapshot-id`.
        from_snapshot: i64,
    },
    /// Streaming, `scan.mode=from-snapshot-full`, `scan.snapshot-id=from_snapshot`: a full first plan of
    /// snapshot `max(from_snapshot, earliest)`, then follow-up plans ([`plan_stream_full`]).
    StreamFull {
        /// `scan.snapshot-id`.
        from_snapshot: i64,
    },
    /// Streaming, `scan.mode=latest-full`: a full first plan of the latest snapshot, then follow-up plans
    /// ([`plan_latest_full`]).
    LatestFull,
    /// Batch `newScan().plan()`: the latest snapshot, or `scan.snapshot-id=snapshot` (time travel)
    /// ([`plan_batch`]).
    Batch {
        /// `scan.snapshot-id`, `None` for the latest snapshot.
        snapshot: Option<i64>,
    },
}

impl ScanMode {
    /// The dynamic table options that make the released scans plan this mode (laid over the table's own by
    /// `Table.copy(Map)`): `scan.mode=from-snapshot` (or `from-snapshot-full`) with
    /// `scan.snapshot-id=<from_snapshot>` for the streams, `scan.mode=latest-full`, and for a batch scan
    /// `scan.snapshot-id=<snapshot>` when a snapshot `>= 0` is named, else nothing (the latest snapshot).
    pub fn dynamic_options(&self) -> BTreeMap<&'static str, String> {
        let mut options = BTreeMap::new();
        match *self {
            ScanMode::Stream { from_snapshot } => {
                options.insert(SCAN_MODE, "from-snapshot".to_owned());
                options.insert(SCAN_SNAPSHOT_ID, from_snapshot.to_string());
            }
            ScanMode::StreamFull { from_snapshot } => {
                options.insert(SCAN_MODE, "from-snapshot-full".to_owned());
                options.insert(SCAN_SNAPSHOT_ID, from_snapshot.to_string());
            }
            ScanMode::LatestFull => {
                options.insert(SCAN_MODE, "latest-full".to_owned());
            }
            ScanMode::Batch { snapshot } => {
                if let Some(id) = snapshot.filter(|id| *id >= 0) {
                    options.insert(SCAN_SNAPSHOT_ID, id.to_string());
                }
            }
        }
        options
    }

    /// The mode's name as the command line spells it: `stream`, `stream-full`, `latest-full`, `batch`.
    pub fn name(&self) -> &'static str {
        match self {
            ScanMode::Stream { .. } => "stream",
            ScanMode::StreamFull { .. } => "stream-full",
            ScanMode::LatestFull => "latest-full",
            ScanMode::Batch { .. } => "batch",
        }
    }

    /// True for the streaming modes (the plan is followed until an end snapshot).
    pub fn is_streaming(&self) -> bool {
        !matches!(self, ScanMode::Batch { .. })
    }
}

impl std::fmt::Display for ScanMode {
    /// `stream from snapshot 3`, `stream-full from snapshot 1`, `latest-full`, `batch`, `batch of snapshot 4`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScanMode::Stream { from_snapshot } | ScanMode::StreamFull { from_snapshot } => {
                write!(f, "{} from snapshot {from_snapshot}", self.name())
            }
            ScanMode::LatestFull => f.write_str("latest-full"),
            ScanMode::Batch { snapshot: None } => f.write_str("batch"),
            ScanMode::Batch { snapshot: Some(id) } => write!(f, "batch of snapshot {id}"),
        }
    }
}
