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

/// Why shard reports cannot be merged: which report (its index in the order given to [`merge`]) and what
/// is wrong with it, in words naming both values that differ.
#[derive(Debug, PartialEq, Eq)]
pub struct MergeRefused {
    /// The index of the report refused, in the order given to [`merge`].
    pub report: usize,
    /// What is wrong, e.g. `shard 2/4 of /t is of table /u, shard 1/4 (the first report) of table /t`.
    pub reason: String,
}

/// `shard I/N` of a report, or `a report` for one written without `--shard`.
fn shard_name(r: &ReplayReport) -> String {
    r.shard
        .map_or_else(|| "a report".to_owned(), |s| format!("shard {s}"))
}

/// Merges the reports of the shards of one replay (one table, scan and reader; one per shard, any order)
/// into the report the unsharded replay writes: its splits in plan order, its totals, first difference and
/// verdict recomputed from them the way the replay computes them; the wall time is the longest shard's.
///
/// Errors: [`MergeRefused`] when a report is not a shard; the reports are of different tables (the whole
/// table path), states of the table (end snapshot), scans (mode, start snapshot), readers, shard counts or
/// plan sizes; a report records no plan size (written before shards recorded it); a shard is missing or
/// repeated, or was interrupted; or the split positions of the shards do not cover the paired plan
/// (`0..plan_size`) exactly once, each in the shard that takes it.
pub fn merge(mut reports: Vec<ReplayReport>) -> Result<ReplayReport, MergeRefused> {
    let Some(first) = reports.first() else {
        return Err(MergeRefused {
            report: 0,
            reason: "no report to merge".into(),
        });
    };
    let first_name = shard_name(first);
    let refuse = |report: usize, what: String| {
        Err(MergeRefused {
            report,
            reason: format!(
                "{} of {} {what}",
                shard_name(&reports[report]),
                reports[report].table.display()
            ),
        })
    };
    let Some(shard) = first.shard else {
        return refuse(0, "is not a shard (written without --shard)".into());
    };
    for (i, r) in reports.iter().enumerate() {
        let what = match r.shard {
            None => Some("is not a shard (written without --shard)".to_owned()),
            Some(s) if s.count != shard.count => Some(format!(
                "is shard {s}, the first report shard {shard}: different shard counts"
            )),
            // The whole table path (canonical as the replay wrote it), not a part of it: two copies of a
            // table in two directories are two tables.
            _ if r.table != first.table => Some(format!(
                "is of table {}, {first_name} (the first report) of table {}: not the same table",
                r.table.display(),
                first.table.display()
            )),
            _ if r.end_snapshot != first.end_snapshot => Some(format!(
                "ends at snapshot {}, {first_name} (the first report) at {}: not the same state of the table",
                r.end_snapshot, first.end_snapshot
            )),
            _ if r.mode != first.mode || r.from_snapshot != first.from_snapshot => Some(format!(
                "is a {} scan from snapshot {}, {first_name} (the first report) a {} scan from snapshot {}",
                r.mode.name(),
                r.from_snapshot,
                first.mode.name(),
                first.from_snapshot
            )),
            _ if r.reader != first.reader => Some(format!(
                "compares reader {}, {first_name} (the first report) reader {}",
                r.reader, first.reader
            )),
            _ if r.verdict == "interrupted" => {
                Some("was interrupted (Ctrl-C): run that shard again".to_owned())
            }
            _ if r.plan_size.is_none() => Some(
                "records no plan size (`plan_size`: written by a paimon-parity that did not record it), so \
                 its splits cannot be checked to cover the plan: run that shard again"
                    .to_owned(),
            ),
            _ if r.plan_size != first.plan_size => Some(format!(
                "has a paired plan of {} split pairs, {first_name} (the first report) of {}: not the same plan",
                r.plan_size.unwrap_or_default(),
                first.plan_size.map_or_else(|| "no recorded size".to_owned(), |n| n.to_string())
            )),
            _ => None,
        };
        if let Some(what) = what {
            return refuse(i, what);
        }
    }
    let mut seen: BTreeSet<usize> = BTreeSet::new();
    for (i, r) in reports.iter().enumerate() {
        if !seen.insert(r.shard.map_or(0, |s| s.index)) {
            return refuse(i, "is given twice".into());
        }
    }
    let missing: Vec<String> = (1..=shard.count)
        .filter(|i| !seen.contains(i))
        .map(|i| format!("{i}/{}", shard.count))
        .collect();
    if !missing.is_empty() {
        return Err(MergeRefused {
            report: 0,
            reason: format!(
                "shard {} of {} is missing",
                missing.join(", "),
                first.table.display()
            ),
        });
    }
    // Every position of the paired plan exactly once, each in the shard that takes it.
    let plan_size = first.plan_size.unwrap_or_default();
    let mut covered: Vec<Option<usize>> = vec![None; plan_size];
    for (i, r) in reports.iter().enumerate() {
        let this = r.shard.unwrap_or(shard);
        for split in &r.splits {
            let p = split.position;
            let what = if p >= plan_size {
                Some(format!(
                    "holds split position {p} ({}), outside the paired plan of {plan_size} split pairs",
                    split.key
                ))
            } else if !this.takes(p) {
                Some(format!(
                    "holds split position {p} ({}), which shard {} takes, not {this}",
                    split.key,
                    Shard {
                        index: p % shard.count + 1,
                        count: shard.count
                    }
                ))
            } else {
                // Only this shard takes `p` (each index is given once): a repeat is in this report.
                covered[p].map(|_| format!("holds split position {p} ({}) twice", split.key))
            };
            if let Some(what) = what {
                return refuse(i, what);
            }
            covered[p] = Some(i);
        }
    }
    let uncovered: Vec<usize> = (0..plan_size).filter(|p| covered[*p].is_none()).collect();
    if let Some(p) = uncovered.first() {
        let owner = reports
            .iter()
            .position(|r| r.shard.is_some_and(|s| s.takes(*p)))
            .unwrap_or(0);
        return refuse(
            owner,
            format!(
                "lacks split position {p} of the paired plan of {plan_size} split pairs (no shard holds {} \
                 of its positions): the shards do not cover the plan",
                uncovered.len()
            ),
        );
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
    merged.plan_size = None;
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

    /// Shard `index`/`count` of a stream replay of `table` whose paired plan has `plan_size` pairs, holding
    /// the identical splits at `positions`.
    fn shard(
        table: &str,
        index: usize,
        count: usize,
        plan_size: Option<usize>,
        positions: &[usize],
    ) -> ReplayReport {
        let splits: Vec<SplitReport> = positions
            .iter()
            .map(|p| SplitReport {
                position: *p,
                key: native_reader::SplitKey {
                    snapshot_id: 1 + *p as i64,
                    partition: Vec::new(),
                    bucket: 0,
                },
                verdict: super::super::SplitVerdict::Identical,
                files: 1,
                stock_rows: None,
                native_rows: None,
                differing_rows: 0,
                detail: None,
                first_mismatch: None,
            })
            .collect();
        let (totals, first_difference, verdict) = summarize(&splits, 9, "native", false);
        ReplayReport {
            table: table.into(),
            reader: "native".into(),
            reader_version: None,
            from_snapshot: 1,
            mode: native_reader::scan::ScanMode::Stream { from_snapshot: 1 },
            end_snapshot: 9,
            splits,
            not_retained: Vec::new(),
            totals,
            first_difference,
            verdict,
            shard: Some(Shard { index, count }),
            plan_size,
        }
    }

    fn refusal(reports: Vec<ReplayReport>) -> MergeRefused {
        merge(reports).expect_err("refused")
    }

    #[test]
    fn shards_covering_the_plan_once_merge_into_every_position_in_order() {
        let merged = merge(vec![
            shard("/w/a/t", 2, 2, Some(5), &[1, 3]),
            shard("/w/a/t", 1, 2, Some(5), &[0, 2, 4]),
        ])
        .unwrap();
        let positions: Vec<usize> = merged.splits.iter().map(|s| s.position).collect();
        assert_eq!(positions, [0, 1, 2, 3, 4]);
        assert_eq!((merged.totals.splits, merged.verdict), (5, "identical"));
        assert_eq!((merged.shard, merged.plan_size), (None, None));
    }

    #[test]
    fn positions_missing_repeated_or_in_the_wrong_shard_are_refused() {
        // Position 4 is in no shard.
        let r = refusal(vec![
            shard("/t", 1, 2, Some(5), &[0, 2]),
            shard("/t", 2, 2, Some(5), &[1, 3]),
        ]);
        assert_eq!(r.report, 0);
        assert!(
            r.reason.starts_with(
                "shard 1/2 of /t lacks split position 4 of the paired plan of 5 split pairs"
            ),
            "{}",
            r.reason
        );
        // Position 2 twice in one shard.
        let r = refusal(vec![
            shard("/t", 1, 2, Some(4), &[0, 2, 2]),
            shard("/t", 2, 2, Some(4), &[1, 3]),
        ]);
        assert!(
            r.reason.contains("holds split position 2 (") && r.reason.ends_with(") twice"),
            "{}",
            r.reason
        );
        // Position 1 in shard 1, which shard 2 takes.
        let r = refusal(vec![
            shard("/t", 1, 2, Some(4), &[0, 1, 2]),
            shard("/t", 2, 2, Some(4), &[3]),
        ]);
        assert!(
            r.reason.contains("holds split position 1 (")
                && r.reason.ends_with("which shard 2/2 takes, not 1/2"),
            "{}",
            r.reason
        );
        // A position past the plan.
        let r = refusal(vec![
            shard("/t", 1, 2, Some(2), &[0]),
            shard("/t", 2, 2, Some(2), &[1, 3]),
        ]);
        assert_eq!(r.report, 1);
        assert!(
            r.reason
                .contains("outside the paired plan of 2 split pairs"),
            "{}",
            r.reason
        );
    }

    #[test]
    fn another_table_with_the_same_last_two_components_is_refused() {
        let r = refusal(vec![
            shard("/one/corpus/table", 1, 2, Some(2), &[0]),
            shard("/two/corpus/table", 2, 2, Some(2), &[1]),
        ]);
        assert_eq!(r.report, 1);
        assert_eq!(
            r.reason,
            "shard 2/2 of /two/corpus/table is of table /two/corpus/table, shard 1/2 (the first report) of \
             table /one/corpus/table: not the same table"
        );
    }

    #[test]
    fn a_shard_without_a_plan_size_or_with_another_one_is_refused() {
        let r = refusal(vec![
            shard("/t", 1, 2, Some(2), &[0]),
            shard("/t", 2, 2, None, &[1]),
        ]);
        assert_eq!(r.report, 1);
        assert!(
            r.reason.starts_with("shard 2/2 of /t records no plan size"),
            "{}",
            r.reason
        );
        let r = refusal(vec![
            shard("/t", 1, 2, Some(2), &[0]),
            shard("/t", 2, 2, Some(3), &[1]),
        ]);
        assert!(
            r.reason
                .contains("has a paired plan of 3 split pairs, shard 1/2 (the first report) of 2"),
            "{}",
            r.reason
        );
    }
}
