//! The expected end state of a swept scenario, from the scenario's own writes (never from a reader): the rows a
//! batch read of the latest snapshot returns, and per key the values the streaming changelog from snapshot 1
//! takes it through.
//!
//! The model is Paimon's default merge engine (`deduplicate`, `DeduplicateMergeFunction`) on a primary-key
//! table: within a commit a user's rows apply in write order, `+I`/`+U` set the key's value and `-U`/`-D`
//! remove it; commits apply in the order they are committed. Anything else a scenario could do (another merge
//! engine, `sequence.field`, overwrites, schema changes, random bursts) is refused by name.

use std::collections::BTreeMap;

use native_reader::RowKind;
use serde::Serialize;
use serde_json::Value;

use crate::corpus::{Scenario, Step};
use crate::error::{Error, Result};

/// A key, as its primary-key values render (`(1)`, `(1, "a")`).
pub type Key = String;

/// What the scenario's writes make of the table.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Expected {
    /// Per key, its row after the last commit (`(1, 20)`); absent keys are deleted.
    pub rows: BTreeMap<Key, String>,
    /// Per key, the values it takes commit by commit (`(1, 10)`, then `(1, 20)`; `<deleted>` for a removal),
    /// consecutive repeats collapsed: what a complete changelog delivers.
    pub changes: BTreeMap<Key, Vec<String>>,
    /// The column positions of the primary key in the row.
    #[serde(skip)]
    pub key_columns: Vec<usize>,
}

/// A deleted key in [`Expected::changes`].
pub const DELETED: &str = "<deleted>";

/// The column types whose JSON values the model renders the way the harness renders Arrow values.
const MODELLED_TYPES: &[&str] = &[
    "INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "STRING", "VARCHAR", "CHAR", "BOOLEAN",
];

/// Renders a scenario value as `crate::diff::render_value` renders the Arrow value it becomes.
pub fn render(v: &Value) -> String {
    match v {
        Value::Null => "NULL".to_owned(),
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// `(a, b, …)` of rendered values.
pub fn tuple<'a>(values: impl IntoIterator<Item = &'a str>) -> String {
    format!("({})", values.into_iter().collect::<Vec<_>>().join(", "))
}

/// The expected end state of `scenario` when every commit lands once.
///
/// Errors: [`Error::Scenario`] (`unsupported by the sweep's oracle: …`) for what the model does not cover, named.
pub fn expected(scenario: &Scenario) -> Result<Expected> {
    let unsupported =
        |what: String| Error::Scenario(format!("unsupported by the sweep's oracle: {what}"));
    let t = &scenario.table;
    if t.primary_keys.is_empty() {
        return Err(unsupported(
            "an append table (no primary key); the oracle models primary-key tables".into(),
        ));
    }
    for key in [
        "merge-engine",
        "sequence.field",
        "ignore-delete",
        "partial-update.ignore-delete",
    ] {
        if let Some(v) = t.options.get(key) {
            if !(key == "merge-engine" && v == "deduplicate") {
                return Err(unsupported(format!(
                    "the table option `{key}={v}` (the oracle models the deduplicate merge engine)"
                )));
            }
        }
    }
    for f in &t.fields {
        let ty = f.data_type.as_str().unwrap_or("");
        let base = ty
            .trim_end_matches(" NOT NULL")
            .split('(')
            .next()
            .unwrap_or("")
            .trim();
        if !MODELLED_TYPES.contains(&base) {
            return Err(unsupported(format!(
                "column `{}` of type {} (modelled: {})",
                f.name,
                f.data_type,
                MODELLED_TYPES.join(", ")
            )));
        }
    }
    let key_columns: Vec<usize> = t
        .primary_keys
        .iter()
        .map(|k| {
            t.fields
                .iter()
                .position(|f| &f.name == k)
                .ok_or_else(|| unsupported(format!("primary key `{k}` is not a column")))
        })
        .collect::<Result<_>>()?;
    let mut out = Expected {
        key_columns: key_columns.clone(),
        ..Expected::default()
    };
    // Per user: the rows written since its last commit.
    let mut buffered: BTreeMap<&str, Vec<(RowKind, Vec<String>)>> = BTreeMap::new();
    for step in &scenario.steps {
        match step {
            Step::Write { user, rows } => {
                let b = buffered.entry(user.as_str()).or_default();
                for r in rows {
                    if r.values.len() != t.fields.len() {
                        return Err(Error::Scenario(format!(
                            "a row of user `{user}` has {} values, the table has {} columns: {:?}",
                            r.values.len(),
                            t.fields.len(),
                            r.values
                        )));
                    }
                    b.push((r.kind, r.values.iter().map(render).collect()));
                }
            }
            Step::Commit { user, .. } => {
                let rows = buffered.remove(user.as_str()).unwrap_or_default();
                let mut touched = Vec::new();
                for (kind, values) in rows {
                    let key = tuple(key_columns.iter().map(|i| values[*i].as_str()));
                    match kind {
                        RowKind::Insert | RowKind::UpdateAfter => {
                            out.rows
                                .insert(key.clone(), tuple(values.iter().map(String::as_str)));
                        }
                        RowKind::UpdateBefore | RowKind::Delete => {
                            out.rows.remove(&key);
                        }
                    }
                    touched.push(key);
                }
                for key in touched {
                    let now = out
                        .rows
                        .get(&key)
                        .map_or(DELETED, String::as_str)
                        .to_owned();
                    let seq = out.changes.entry(key).or_default();
                    if seq.last() != Some(&now) {
                        seq.push(now);
                    }
                }
            }
            Step::Compact { .. }
            | Step::ReadBatch
            | Step::Restart
            | Step::Reopen { .. }
            | Step::Recover { .. } => {}
            Step::ArmFault { .. } => {}
            Step::Alter { .. }
            | Step::Overwrite { .. }
            | Step::WriteColumns { .. }
            | Step::CreateBranch { .. }
            | Step::CreateTag { .. }
            | Step::DeleteRows { .. }
            | Step::DamageFile { .. }
            | Step::ResetConsumer { .. }
            | Step::Random(_) => {
                return Err(unsupported(format!(
                    "a `{}` step",
                    crate::corpus::step_name(step)
                )))
            }
        }
    }
    // A key deleted before it was ever seen has no change.
    out.changes
        .retain(|_, seq| !(seq.len() == 1 && seq[0] == DELETED));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(name: &str) -> Scenario {
        let path = crate::corpus::corpora_dir()
            .join(name)
            .join("scenario.json");
        crate::corpus::load_scenario(&path).unwrap()
    }

    /// C00: commit 1 writes +I (1, 10), commit 2 writes +I (1, 20).
    #[test]
    fn c00_ends_at_1_20_after_1_10() {
        let e = expected(&scenario("c00-full-compaction-control")).unwrap();
        assert_eq!(e.rows.len(), 1);
        assert_eq!(e.rows["(1)"], "(1, 20)");
        assert_eq!(e.changes["(1)"], ["(1, 10)", "(1, 20)"]);
        assert_eq!(e.key_columns, [0]);
    }

    #[test]
    fn deletes_and_strings_follow_the_writes() {
        let mut s = scenario("c00-full-compaction-control");
        s.table.fields[1].data_type = Value::String("STRING".into());
        s.steps = serde_json::from_value(serde_json::json!([
            {"step": "write", "rows": [{"kind": "+I", "values": [1, "a"]}, {"kind": "+I", "values": [2, "b"]}]},
            {"step": "commit", "identifier": 1},
            {"step": "write", "rows": [{"kind": "-D", "values": [1, "a"]}, {"kind": "+U", "values": [2, "c"]},
                                       {"kind": "-D", "values": [3, "x"]}]},
            {"step": "commit", "identifier": 2}
        ]))
        .unwrap();
        let e = expected(&s).unwrap();
        assert_eq!(e.rows.keys().collect::<Vec<_>>(), ["(2)"]);
        assert_eq!(e.rows["(2)"], "(2, \"c\")");
        assert_eq!(e.changes["(1)"], ["(1, \"a\")", DELETED]);
        assert_eq!(e.changes["(2)"], ["(2, \"b\")", "(2, \"c\")"]);
        // Key 3 was deleted before it existed: no change.
        assert!(!e.changes.contains_key("(3)"));
    }

    #[test]
    fn other_merge_engines_are_refused_by_name() {
        let e = expected(&scenario("c09-partial-update")).unwrap_err();
        assert!(e.to_string().contains("merge-engine=partial-update"), "{e}");
    }
}
