//! Seeded random bursts of commits (`{"step": "random", ...}`): the plan of columns and keys, the
//! generator, and the run's random steps.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::generate::Run;
use native_reader::RowKind;

use super::{RandomBurst, RandomCompact, RowSpec};
use crate::error::{Error, Result};

impl Run<'_> {
    pub(super) fn random(&mut self, burst: &RandomBurst) -> Result<()> {
        let plan = RandomPlan::new(self, burst)?;
        let mut rng = SplitMix64(burst.seed);
        // Live values per (user, partition index, key).
        let mut live: BTreeMap<(usize, usize, i64), Vec<Value>> = BTreeMap::new();
        let mut commit_no = 0u32;
        if burst.fill {
            for u in 0..burst.users.len() {
                commit_no += 1;
                let mut rows = Vec::new();
                for p in 0..plan.partitions.len() {
                    for k in plan.keys_of(u) {
                        let values = plan.row(p, k, commit_no, &burst.users[u], &mut rng);
                        rows.push(RowSpec {
                            kind: RowKind::Insert,
                            values: values.clone(),
                        });
                        live.insert((u, p, k), values);
                    }
                }
                self.random_commit(burst, &burst.users[u], rows)?;
            }
        }
        for _ in 0..burst.commits {
            commit_no += 1;
            let u = rng.below(burst.users.len() as u64) as usize;
            let [lo, hi] = burst.rows_per_commit;
            let n = lo + rng.below(u64::from(hi.saturating_sub(lo)) + 1) as u32;
            let mut rows = Vec::new();
            let mut touched = BTreeSet::new();
            for _ in 0..n {
                let p = rng.below(plan.partitions.len() as u64) as usize;
                let k = plan.key_base(u) + rng.below(u64::from(burst.keys)) as i64;
                if !touched.insert((p, k)) {
                    continue;
                }
                let roll = rng.unit();
                match live.get(&(u, p, k)).cloned() {
                    None => {
                        let values = plan.row(p, k, commit_no, &burst.users[u], &mut rng);
                        rows.push(RowSpec {
                            kind: RowKind::Insert,
                            values: values.clone(),
                        });
                        live.insert((u, p, k), values);
                    }
                    Some(old) if roll < burst.delete_ratio => {
                        rows.push(RowSpec {
                            kind: RowKind::Delete,
                            values: old,
                        });
                        live.remove(&(u, p, k));
                    }
                    Some(_) if roll < burst.delete_ratio + burst.update_ratio => {
                        let values = plan.row(p, k, commit_no, &burst.users[u], &mut rng);
                        rows.push(RowSpec {
                            kind: RowKind::UpdateAfter,
                            values: values.clone(),
                        });
                        live.insert((u, p, k), values);
                    }
                    Some(_) => {}
                }
            }
            self.random_commit(burst, &burst.users[u], rows)?;
        }
        Ok(())
    }

    fn random_commit(&mut self, burst: &RandomBurst, user: &str, rows: Vec<RowSpec>) -> Result<()> {
        let reopen = burst.reopen_on_switch;
        let w = self.writer(user)?;
        if reopen && w.stale {
            w.writer.reopen()?;
            w.stale = false;
        }
        let rows = serde_json::to_string(&rows).map_err(|e| Error::ScenarioSource {
            context: String::new(),
            source: e.into(),
        })?;
        w.writer.write(&rows)?;
        match burst.compact {
            RandomCompact::None => {}
            RandomCompact::Touched => {
                w.writer.compact_touched(false)?;
            }
            RandomCompact::TouchedFull => {
                w.writer.compact_touched(true)?;
            }
        }
        let identifier = self.last_identifier.get(user).copied().unwrap_or(0) + 1;
        self.commit(user, (identifier, None), true, None, None)
    }
}

/// How a random burst builds rows for the run's current columns.
struct RandomPlan {
    partitions: Vec<Vec<Value>>,
    /// Per column: where its value comes from.
    columns: Vec<Column>,
    keys: u32,
    key_base: i64,
}

enum Column {
    Partition(usize),
    Key,
    Int,
    BigInt,
    Text,
}

impl RandomPlan {
    fn new(run: &Run<'_>, burst: &RandomBurst) -> Result<Self> {
        if burst.users.is_empty() || burst.keys == 0 {
            return Err(Error::Scenario("random: needs users and keys > 0".into()));
        }
        let ratio = |r: f64| (0.0..=1.0).contains(&r);
        if !ratio(burst.update_ratio)
            || !ratio(burst.delete_ratio)
            || burst.update_ratio + burst.delete_ratio > 1.0
        {
            return Err(Error::Scenario(
                "random: update_ratio and delete_ratio are shares in [0, 1] with a sum of at most 1".into(),
            ));
        }
        if burst.rows_per_commit[0] > burst.rows_per_commit[1] {
            return Err(Error::Scenario(
                "random: rows_per_commit is [min, max]".into(),
            ));
        }
        let mut partitions = Vec::new();
        for p in &burst.partitions {
            let values = match p {
                Value::Array(a) => a.clone(),
                other => vec![other.clone()],
            };
            if values.len() != run.partition_keys.len() {
                return Err(Error::Scenario(format!(
                    "random: partition {p} has {} value(s), the table has {} partition key(s)",
                    values.len(),
                    run.partition_keys.len()
                )));
            }
            partitions.push(values);
        }
        if partitions.is_empty() {
            if !run.partition_keys.is_empty() {
                return Err(Error::Scenario(
                    "random: a partitioned table needs `partitions`".into(),
                ));
            }
            partitions.push(Vec::new());
        }
        let key_columns: Vec<&String> = run
            .primary_keys
            .iter()
            .filter(|k| !run.partition_keys.contains(k))
            .collect();
        if key_columns.len() != 1 {
            return Err(Error::Scenario(
                "random: the table needs exactly one primary-key column outside the partition keys"
                    .into(),
            ));
        }
        let mut columns = Vec::new();
        for (name, ty) in &run.fields {
            let base = ty.trim().to_ascii_uppercase();
            let base = base.trim_end_matches("NOT NULL").trim();
            let col = if let Some(i) = run.partition_keys.iter().position(|k| k == name) {
                Column::Partition(i)
            } else if name == key_columns[0] {
                if base != "INT" && base != "BIGINT" && base != "INTEGER" {
                    return Err(Error::Scenario(format!(
                        "random: key column `{name}` is {ty}, not INT or BIGINT"
                    )));
                }
                Column::Key
            } else {
                match base {
                    "INT" | "INTEGER" => Column::Int,
                    "BIGINT" => Column::BigInt,
                    "STRING" => Column::Text,
                    _ if base.starts_with("VARCHAR") => Column::Text,
                    _ => {
                        return Err(Error::Scenario(format!(
                            "random: column `{name}` is {ty}; random bursts fill INT, BIGINT and STRING only"
                        )))
                    }
                }
            };
            columns.push(col);
        }
        Ok(Self {
            partitions,
            columns,
            keys: burst.keys,
            key_base: burst.key_base,
        })
    }

    fn key_base(&self, user: usize) -> i64 {
        self.key_base + user as i64 * i64::from(self.keys)
    }

    fn keys_of(&self, user: usize) -> std::ops::Range<i64> {
        let base = self.key_base(user);
        base..base + i64::from(self.keys)
    }

    fn row(&self, p: usize, key: i64, commit: u32, user: &str, rng: &mut SplitMix64) -> Vec<Value> {
        self.columns
            .iter()
            .map(|c| match c {
                Column::Partition(i) => self.partitions[p].get(*i).cloned().unwrap_or(Value::Null),
                Column::Key => json!(key),
                Column::Int => json!(i64::from(commit) * 1000 + rng.below(1000) as i64),
                Column::BigInt => {
                    json!(i64::from(commit) * 1_000_000 + rng.below(1_000_000) as i64)
                }
                Column::Text => json!(format!("{user}-c{commit}-k{key}")),
            })
            .collect()
    }
}

/// A small deterministic generator (SplitMix64), so that scenarios do not depend on a crate's stream.
pub(super) struct SplitMix64(pub(super) u64);

impl SplitMix64 {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(super) fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    /// Uniform in `[0, 1)`.
    pub(super) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}
