//! `sweep --compare`: one scenario swept twice, with the release's own recovery (the base) and with a remedy
//! (`--recovery pair-aware`, or a candidate), each point marked by what the remedy did to it: `closed` (the
//! base fails there, the remedy does not), `still-lost` (both fail), `newly-broken` (the remedy fails where the
//! base does not) or `unchanged` (neither fails). Points are matched by fault mode and operation index; where
//! the two sides' operations differ (a candidate that changes the commit's own operations), the first
//! difference is named.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::PointClass;
use crate::error::{Error, Result};

/// What the remedy did to one point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mark {
    /// The remedy fails where the base does not.
    NewlyBroken,
    /// Both fail.
    StillLost,
    /// The base fails, the remedy does not.
    Closed,
    /// Neither fails.
    Unchanged,
}

impl Mark {
    /// The name the text, the JSON and the HTML use.
    pub fn name(self) -> &'static str {
        match self {
            Mark::NewlyBroken => "newly-broken",
            Mark::StillLost => "still-lost",
            Mark::Closed => "closed",
            Mark::Unchanged => "unchanged",
        }
    }
}

/// One point on both sides.
#[derive(Clone, Debug, Serialize)]
pub struct ComparedPoint {
    /// The fault mode.
    pub mode: String,
    /// The operation's index, from 1.
    pub op_index: u64,
    /// The operation in words (`rename snapshot/snapshot-3`), from the base's counting run.
    pub op: String,
    /// The base's class (`CHANGELOG-LOST`).
    pub base: String,
    /// The remedy's class.
    pub remedy: String,
    /// The mark.
    pub mark: Mark,
}

/// Consecutive points of one mode with the same mark and the same pair of classes.
#[derive(Clone, Debug, Serialize)]
pub struct MarkWindow {
    /// The fault mode.
    pub mode: String,
    /// First operation index.
    pub first: u64,
    /// Last operation index.
    pub last: u64,
    /// The mark.
    pub mark: Mark,
    /// The base's class there.
    pub base: String,
    /// The remedy's class there.
    pub remedy: String,
}

/// The comparison (`sweep_compare` in the JSON report).
#[derive(Clone, Debug, Serialize)]
pub struct SweepComparison {
    /// The scenario.
    pub scenario: String,
    /// The release both sides ran (a candidate's base release).
    pub release: String,
    /// The base, in words (`released (stock recovery)`).
    pub base: String,
    /// The remedy, in words (`pair-aware recovery`, `candidate NAME (based on V), not a release`).
    pub remedy: String,
    /// Every point matched on both sides, by mode then index.
    pub points: Vec<ComparedPoint>,
    /// The points grouped into windows.
    pub windows: Vec<MarkWindow>,
    /// Per mode, points per mark.
    pub totals: BTreeMap<String, BTreeMap<String, usize>>,
    /// Where the two sides do not match: operations that differ, points on one side only.
    pub mismatches: Vec<String>,
}

impl SweepComparison {
    /// Points with `mark`.
    pub fn count(&self, mark: Mark) -> usize {
        self.points.iter().filter(|p| p.mark == mark).count()
    }

    /// 0 when the remedy fails at no point, 1 when it fails at one (still lost or newly broken), 3 when no
    /// point was compared.
    pub fn exit_code(&self) -> i32 {
        if self.points.is_empty() {
            crate::error::EXIT_NOTHING_COMPARED
        } else if self.count(Mark::StillLost) + self.count(Mark::NewlyBroken) > 0 {
            crate::error::EXIT_DIFFERENT
        } else {
            crate::error::EXIT_IDENTICAL
        }
    }
}

/// Whether a class name is a failing one ([`PointClass::fails`]).
fn fails(class: &str) -> bool {
    PointClass::ALL
        .iter()
        .find(|c| c.name() == class)
        .is_none_or(|c| c.fails())
}

/// Compares the `sweep` objects of two JSON reports (`sweep --json`), `base` the release's own recovery.
///
/// Errors: [`Error::Usage`] when they sweep different scenarios or releases.
pub fn compare(
    base_words: &str,
    base: &Value,
    remedy_words: &str,
    remedy: &Value,
) -> Result<SweepComparison> {
    for field in ["scenario", "paimon_version"] {
        if base[field] != remedy[field] {
            return Err(Error::Usage(format!(
                "sweep --compare: the two sweeps differ in {field} ({} and {})",
                base[field], remedy[field]
            )));
        }
    }
    let ops = |v: &Value| -> Vec<String> {
        v["ops"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|o| {
                format!(
                    "{} {}",
                    o["op"].as_str().unwrap_or("?"),
                    o["path"].as_str().unwrap_or("?")
                )
            })
            .collect()
    };
    let (base_ops, remedy_ops) = (ops(base), ops(remedy));
    let mut mismatches = Vec::new();
    if let Some(i) =
        (0..base_ops.len().max(remedy_ops.len())).find(|&i| base_ops.get(i) != remedy_ops.get(i))
    {
        mismatches.push(format!(
            "the swept commit's operations differ from op {}: {} on the base, {} with the remedy",
            i + 1,
            base_ops.get(i).map_or("none", String::as_str),
            remedy_ops.get(i).map_or("none", String::as_str)
        ));
    }
    let points = |v: &Value| -> BTreeMap<(String, u64), String> {
        v["points"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| {
                (
                    (
                        p["mode"].as_str().unwrap_or("?").to_owned(),
                        p["op_index"].as_u64().unwrap_or(0),
                    ),
                    p["class"].as_str().unwrap_or("?").to_owned(),
                )
            })
            .collect()
    };
    let (b, r) = (points(base), points(remedy));
    let mut out = Vec::new();
    for ((mode, at), base_class) in &b {
        let Some(remedy_class) = r.get(&(mode.clone(), *at)) else {
            mismatches.push(format!("{mode} op {at}: swept on the base only"));
            continue;
        };
        let mark = match (fails(base_class), fails(remedy_class)) {
            (true, true) => Mark::StillLost,
            (true, false) => Mark::Closed,
            (false, true) => Mark::NewlyBroken,
            (false, false) => Mark::Unchanged,
        };
        out.push(ComparedPoint {
            mode: mode.clone(),
            op_index: *at,
            op: base_ops.get(*at as usize - 1).cloned().unwrap_or_default(),
            base: base_class.clone(),
            remedy: remedy_class.clone(),
            mark,
        });
    }
    for (mode, at) in r.keys().filter(|k| !b.contains_key(*k)) {
        mismatches.push(format!("{mode} op {at}: swept with the remedy only"));
    }
    // The base's mode order (crash, fail, fail-after), then the index.
    let order: Vec<String> = base["points"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["mode"].as_str().map(str::to_owned))
        .fold(Vec::new(), |mut v, m| {
            if !v.contains(&m) {
                v.push(m);
            }
            v
        });
    out.sort_by_key(|p| (order.iter().position(|m| *m == p.mode), p.op_index));
    let mut windows: Vec<MarkWindow> = Vec::new();
    let mut totals: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for p in &out {
        *totals
            .entry(p.mode.clone())
            .or_default()
            .entry(p.mark.name().to_owned())
            .or_insert(0) += 1;
        match windows.last_mut() {
            Some(w)
                if w.mode == p.mode
                    && w.mark == p.mark
                    && w.base == p.base
                    && w.remedy == p.remedy
                    && w.last + 1 == p.op_index =>
            {
                w.last = p.op_index
            }
            _ => windows.push(MarkWindow {
                mode: p.mode.clone(),
                first: p.op_index,
                last: p.op_index,
                mark: p.mark,
                base: p.base.clone(),
                remedy: p.remedy.clone(),
            }),
        }
    }
    Ok(SweepComparison {
        scenario: base["scenario"].as_str().unwrap_or("?").to_owned(),
        release: base["paimon_version"].as_str().unwrap_or("?").to_owned(),
        base: base_words.to_owned(),
        remedy: remedy_words.to_owned(),
        points: out,
        windows,
        totals,
        mismatches,
    })
}

/// Writes the comparison as text: per mode its windows (`closed 25-60 (CHANGELOG-LOST -> OK)`) and totals.
///
/// Errors: the writer's.
pub fn write_comparison(out: &mut dyn std::io::Write, c: &SweepComparison) -> std::io::Result<()> {
    writeln!(
        out,
        "paimon-parity sweep --compare {} (Paimon {}): {} against {}",
        c.scenario, c.release, c.remedy, c.base
    )?;
    let mut mode = "";
    for w in &c.windows {
        if w.mode != mode {
            mode = &w.mode;
            writeln!(out, "{mode}:")?;
        }
        let span = if w.first == w.last {
            format!("op {}", w.first)
        } else {
            format!("ops {}-{}", w.first, w.last)
        };
        writeln!(
            out,
            "  {span}: {} ({} -> {})",
            w.mark.name(),
            w.base,
            w.remedy
        )?;
    }
    for (mode, marks) in &c.totals {
        let words: Vec<String> = marks.iter().map(|(m, n)| format!("{m} {n}")).collect();
        writeln!(out, "totals {mode}: {}", words.join(", "))?;
    }
    for m in &c.mismatches {
        writeln!(out, "mismatch: {m}")?;
    }
    writeln!(
        out,
        "verdict: {} closed, {} still lost, {} newly broken, {} unchanged",
        c.count(Mark::Closed),
        c.count(Mark::StillLost),
        c.count(Mark::NewlyBroken),
        c.count(Mark::Unchanged)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(classes: &[&str]) -> Value {
        serde_json::json!({
            "scenario": "c00", "paimon_version": "1.0.0",
            "ops": classes.iter().enumerate().map(|(i, _)| serde_json::json!({"op": "rename", "path": format!("p{i}")})).collect::<Vec<_>>(),
            "points": classes.iter().enumerate().map(|(i, c)| serde_json::json!({"mode": "crash", "op_index": i + 1, "class": c})).collect::<Vec<_>>(),
        })
    }

    #[test]
    fn each_point_is_marked_by_what_the_remedy_did() {
        let base = sweep(&["OK", "CHANGELOG-LOST", "CHANGELOG-LOST", "OK", "DATA-LOST"]);
        let remedy = sweep(&["OK", "OK", "OK", "CHANGELOG-DUPLICATED", "DATA-LOST"]);
        let c = compare("released", &base, "pair-aware recovery", &remedy).unwrap();
        let marks: Vec<Mark> = c.points.iter().map(|p| p.mark).collect();
        assert_eq!(
            marks,
            [
                Mark::Unchanged,
                Mark::Closed,
                Mark::Closed,
                Mark::NewlyBroken,
                Mark::StillLost
            ]
        );
        assert_eq!(
            (c.windows.len(), c.windows[1].first, c.windows[1].last),
            (4, 2, 3)
        );
        assert_eq!(c.totals["crash"]["closed"], 2);
        assert_eq!(c.exit_code(), 1);
        assert!(c.mismatches.is_empty());
        let mut text = Vec::new();
        write_comparison(&mut text, &c).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(
            text.contains("ops 2-3: closed (CHANGELOG-LOST -> OK)"),
            "{text}"
        );
        // A remedy that closes everything exits 0; another scenario is refused.
        let fixed = sweep(&["OK", "OK", "OK", "OK", "OK"]);
        assert_eq!(compare("a", &base, "b", &fixed).unwrap().exit_code(), 0);
        let mut other = fixed.clone();
        other["scenario"] = "c01".into();
        assert!(compare("a", &base, "b", &other).is_err());
    }
}
