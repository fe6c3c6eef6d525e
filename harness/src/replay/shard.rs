//! Shards: one replay spread over several processes or machines (`replay --shard I/N`), and the merge of
//! their reports into the report the whole replay would have written (`paimon-parity report merge`).
//!
//! Both readers plan the whole scan in every shard (planning is cheap and must be the released planner's
//! own); shard I of N then compares only the split pairs whose position in the paired plan (released plan
//! order, then the compared reader's own splits) is `I - 1` modulo `N`. Positions depend only on the table
//! and the scan, so the N shards of one table and scan cover every pair exactly once, and round robin keeps
//! them balanced when the splits of one snapshot sit together.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::{summarize, ReplayReport, SplitReport};

/// Shard `index` of `count` (`--shard I/N`, 1 <= I <= N).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 1-based.
    pub index: usize,
    /// How many shards the replay is spread over.
    pub count: usize,
}

impl Shard {
    /// Whether the split pair at `position` (0-based, in paired plan order) belongs to this shard.
    pub fn takes(&self, position: usize) -> bool {
        position % self.count == self.index - 1
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `I/N` with 1 <= I <= N, e.g. `2/4`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("`{s}` is not a shard: I/N with 1 <= I <= N, e.g. 2/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Why shard reports cannot be merged.
#[derive(Debug, PartialEq, Eq)]
pub struct MergeRefused(pub String);

/// Merges the reports of the shards of one replay (one table, scan and reader; one per shard, any order)
/// into the report the unsharded replay writes: its splits in plan order, its totals, first difference and
/// verdict recomputed from them the way the replay computes them; the wall time is the longest shard's.
///
/// Errors: [`MergeRefused`] when a report is not a shard, the reports are of different tables (name or end
/// snapshot), scans (mode, start snapshot), readers or shard counts, a shard is missing or repeated, or one
/// was interrupted.
pub fn merge(mut reports: Vec<ReplayReport>) -> Result<ReplayReport, MergeRefused> {
    let refuse = |m: String| Err(MergeRefused(m));
    let Some(first) = reports.first() else {
        return refuse("no report to merge".into());
    };
    let Some(shard) = first.shard else {
        return refuse(format!(
            "the report of {} ({}) is not a shard (written without --shard)",
            first.table.display(),
            first.mode.name()
        ));
    };
    let name = |r: &ReplayReport| {
        let t = &r.table;
        let last = |p: &std::path::Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
        (last(t), t.parent().and_then(last))
    };
    for r in &reports {
        let what = match r.shard {
            None => Some("is not a shard (written without --shard)".to_owned()),
            Some(s) if s.count != shard.count => Some(format!(
                "is shard {s}, the first report shard {shard}: different shard counts"
            )),
            _ if name(r) != name(first) => Some(format!(
                "is of table {}, the first report of {}",
                r.table.display(),
                first.table.display()
            )),
            _ if r.end_snapshot != first.end_snapshot => Some(format!(
                "ends at snapshot {}, the first report at {}: not the same state of the table",
                r.end_snapshot, first.end_snapshot
            )),
            _ if r.mode != first.mode || r.from_snapshot != first.from_snapshot => Some(format!(
                "is a {} scan from snapshot {}, the first report a {} scan from snapshot {}",
                r.mode.name(),
                r.from_snapshot,
                first.mode.name(),
                first.from_snapshot
            )),
            _ if r.reader != first.reader => Some(format!(
                "compares reader {}, the first report reader {}",
                r.reader, first.reader
            )),
            _ if r.verdict == "interrupted" => {
                Some("was interrupted (Ctrl-C): run that shard again".to_owned())
            }
            _ => None,
        };
        if let Some(what) = what {
            let shard = r
                .shard
                .map_or_else(|| "a report".to_owned(), |s| format!("shard {s}"));
            return refuse(format!("{shard} of {} {what}", r.table.display()));
        }
    }
    let indexes: BTreeSet<usize> = reports
        .iter()
        .filter_map(|r| r.shard.map(|s| s.index))
        .collect();
    if indexes.len() != reports.len() {
        return refuse(format!(
            "a shard of {} is given twice",
            first.table.display()
        ));
    }
    let missing: Vec<String> = (1..=shard.count)
        .filter(|i| !indexes.contains(i))
        .map(|i| format!("{i}/{}", shard.count))
        .collect();
    if !missing.is_empty() {
        return refuse(format!(
            "shard {} of {} is missing",
            missing.join(", "),
            first.table.display()
        ));
    }
    let wall = reports
        .iter()
        .map(|r| r.totals.wall_time_ms)
        .max()
        .unwrap_or(0);
    let snapshots = first.totals.snapshots;
    let mut splits: Vec<SplitReport> = reports
        .iter_mut()
        .flat_map(|r| r.splits.drain(..))
        .collect();
    splits.sort_by_key(|s| s.position);
    let mut merged = reports.swap_remove(0);
    let (mut totals, first_difference, verdict) =
        summarize(&splits, snapshots, &merged.reader, false);
    totals.wall_time_ms = wall;
    // An evidence bundle's splits it does not retain are left out before sharding: every shard lists them.
    totals.not_retained = merged.not_retained.len();
    merged.splits = splits;
    merged.totals = totals;
    merged.first_difference = first_difference;
    // A shard's verdict is its splits' (an unreadable shard has an unreadable split): recomputed, not kept.
    merged.verdict = verdict;
    merged.shard = None;
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_cover_every_position_once() {
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "4", "a/b", "1/0", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let shards: Vec<Shard> = (1..=3).map(|index| Shard { index, count: 3 }).collect();
        for position in 0..10 {
            assert_eq!(shards.iter().filter(|s| s.takes(position)).count(), 1);
        }
        assert!(shards[1].takes(1) && shards[1].takes(4) && !shards[1].takes(2));
    }
}
