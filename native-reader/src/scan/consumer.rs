//! Two table options of streaming scans, as the released `DataTableStreamScan` applies them:
//! - `consumer-id`: a streaming scan starts where the consumer left off
//!   (`AbstractDataTableScan#createStartingScanner`), [`consumer_next_snapshot`];
//! - `streaming.read.snapshot.delay`: follow-up plans hold back snapshots younger than the delay
//!   (`DataTableStreamScan#shouldDelaySnapshot`), [`SnapshotDelay`].

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::options::{parse_bool, parse_duration, InvalidOption};
use crate::snapshot::Snapshot;
use crate::table::Table;

/// `consumer/consumer-<id>` as `Consumer.toJson` writes it.
#[derive(Deserialize)]
struct ConsumerFile {
    #[serde(rename = "nextSnapshot")]
    next_snapshot: i64,
}

/// Where the consumer `id` of `table`'s branch is recorded: `<branch>/consumer/consumer-<id>`
/// (`ConsumerManager#consumerPath`).
fn consumer_path(table: &Table, id: &str) -> PathBuf {
    let snapshot_dir = table.snapshot_manager().snapshot_dir();
    let branch_dir = snapshot_dir.parent().unwrap_or(table.path());
    branch_dir.join("consumer").join(format!("consumer-{id}"))
}

/// The snapshot a streaming scan of `table` starts from by its consumer: with `consumer-id` set,
/// `consumer.ignore-progress` false and the consumer's file present, its `nextSnapshot`, planned as
/// `ContinuousFromSnapshotStartingScanner` plans it (in every streaming mode, whatever `scan.mode` says);
/// else `None`. Batch scans never read it.
///
/// Errors: [`Error::InvalidOption`] naming the schema directory when `consumer.ignore-progress` is not a
/// boolean; [`Error::Io`] / [`Error::Json`] naming the consumer file when it cannot be read or is not a
/// consumer (`Consumer.fromPath`).
pub(crate) fn consumer_next_snapshot(table: &Table) -> Result<Option<i64>> {
    let Some(id) = table.schema().option("consumer-id") else {
        return Ok(None);
    };
    let ignore = match table.schema().option("consumer.ignore-progress") {
        Some(v) => parse_bool(v).map_err(|e| {
            InvalidOption::new("consumer.ignore-progress", e).at(table.path().join("schema"))
        })?,
        None => false,
    };
    if ignore {
        return Ok(None);
    }
    let path = consumer_path(table, id);
    if !crate::fileio::exists(&path)? {
        return Ok(None);
    }
    let bytes = crate::fileio::read(&path)?;
    let consumer: ConsumerFile = serde_json::from_slice(&bytes).map_err(|e| Error::Json {
        path: path.clone(),
        reason: format!("not a consumer: {e}"),
    })?;
    Ok(Some(consumer.next_snapshot))
}

/// `streaming.read.snapshot.delay` of a streaming scan (`CoreOptions#streamingReadDelay`): a follow-up plan
/// stops at the first snapshot committed less than the delay ago, which the released scan reports as not
/// there yet (`SnapshotNotExistPlan`), and so does the scan after it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SnapshotDelay {
    /// The delay in milliseconds; `None` without the option.
    millis: Option<i64>,
    /// 1.3 on: the time of the snapshot the follow-up fetched (a long-lived changelog where the snapshot
    /// expired); before, the snapshot's alone, never a delay where it expired
    /// ([`crate::line::LineRules::snapshot_delay_of_fetched`]).
    of_fetched: bool,
}

impl SnapshotDelay {
    /// The delay of `table`'s streaming scans.
    ///
    /// Errors: [`Error::InvalidOption`] naming the schema directory when the option is not a duration
    /// (`TimeUtils.parseDuration`).
    pub(crate) fn of(table: &Table) -> Result<SnapshotDelay> {
        let key = "streaming.read.snapshot.delay";
        let millis = match table.schema().option(key) {
            Some(v) => {
                let d = parse_duration(v)
                    .map_err(|e| InvalidOption::new(key, e).at(table.path().join("schema")))?;
                Some(i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            }
            None => None,
        };
        Ok(SnapshotDelay {
            millis,
            of_fetched: table.release().rules().snapshot_delay_of_fetched,
        })
    }

    /// Whether the follow-up holds back `fetched` (snapshot or long-lived changelog `fetched.id`) now.
    ///
    /// Errors: the snapshot's own read errors (1.0 to 1.2 read the snapshot file by id).
    pub(crate) fn holds_back(&self, table: &Table, fetched: &Snapshot) -> Result<bool> {
        let Some(delay) = self.millis else {
            return Ok(false);
        };
        let time = if self.of_fetched {
            fetched.time_millis
        } else {
            let sm = table.snapshot_manager();
            if !sm.snapshot_exists(fetched.id) {
                return Ok(false);
            }
            sm.snapshot(fetched.id)?.time_millis
        };
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        Ok(time > now.saturating_sub(delay))
    }
}
