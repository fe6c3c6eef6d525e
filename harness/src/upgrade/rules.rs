//! The release rules an upgrade finding can come from: the rules of `native_reader::line::LineRules` whose
//! value differs between the writing release A and the reading release B, kept when they apply to the table
//! (its options, keys and column types, from its latest schema) and to the scan.
//!
//! This names candidates, not a proof: the proof that a finding is a release rule is that the native reader,
//! which follows one row of rules per release, returns release A's rows as A (the A x A cell) and release B's
//! as B (the cell itself). Each rule's first release, with the Paimon change behind it, is in
//! `shared/docs/paimon-1.x-lines.md` §2 and in the doc comments of `native-reader/src/line.rs`.

use std::path::Path;

use native_reader::line::LineRules;
use native_reader::schema::{DataType, TableSchema, TypeKind};
use native_reader::PaimonRelease;
use serde::Serialize;

use crate::replay::ReplayMode;

/// A rule whose value differs between two releases.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RuleChange {
    /// The rule: its `LineRules` field name, e.g. `streaming_deletion_files`.
    pub rule: &'static str,
    /// Its value in the writing release A (`Debug` of the value, e.g. `ByCommitKind`, `true`).
    pub written_by_value: String,
    /// Its value in the reading release B.
    pub read_by_value: String,
}

/// What the rules' relevance depends on: the table's latest schema and the scan.
#[derive(Clone, Debug, Default)]
pub struct TableFacts {
    options: std::collections::BTreeMap<String, String>,
    primary_key: bool,
    schemas: usize,
    has_time: bool,
    has_ltz: bool,
    has_map: bool,
    has_default_value: bool,
    /// The latest schema's top-level columns: name, type, default value set.
    fields: Vec<(String, DataType, bool)>,
}

impl TableFacts {
    /// The facts of the table at `table` (its `schema/` directory); a table whose schema cannot be read has
    /// none, and every changed rule is then a candidate.
    pub fn of(table: &Path) -> Option<TableFacts> {
        let dir = table.join("schema");
        let mut ids: Vec<i64> = std::fs::read_dir(&dir)
            .ok()?
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                e.file_name()
                    .to_str()?
                    .strip_prefix("schema-")?
                    .parse()
                    .ok()
            })
            .collect();
        ids.sort_unstable();
        let latest = TableSchema::read(&dir.join(format!("schema-{}", ids.last()?))).ok()?;
        let mut facts = TableFacts {
            primary_key: !latest.primary_keys.is_empty(),
            schemas: ids.len(),
            has_default_value: latest.fields.iter().any(|f| f.default_value.is_some()),
            ..TableFacts::default()
        };
        for f in &latest.fields {
            visit(&f.data_type, &mut facts);
            facts.fields.push((
                f.name.clone(),
                f.data_type.clone(),
                f.default_value.is_some(),
            ));
        }
        facts.has_default_value |= latest
            .options
            .keys()
            .any(|k| k.starts_with("fields.") && k.ends_with(".default-value"));
        facts.options = latest.options;
        Some(facts)
    }

    fn option(&self, key: &str) -> Option<&str> {
        self.options.get(key).map(String::as_str)
    }

    fn is(&self, key: &str, value: &str) -> bool {
        self.option(key)
            .is_some_and(|v| v.eq_ignore_ascii_case(value))
    }

    fn changelog_producer(&self) -> &str {
        self.option("changelog-producer").unwrap_or("none")
    }

    fn deletion_vectors(&self) -> bool {
        self.is("deletion-vectors.enabled", "true")
    }

    /// `CoreOptions#needLookup`: lookup changelog, deletion vectors, first-row, or `force-lookup`.
    fn need_lookup(&self) -> bool {
        self.changelog_producer() == "lookup"
            || self.deletion_vectors()
            || self.is("merge-engine", "first-row")
            || self.is("force-lookup", "true")
    }

    /// Whether column `name`'s type has a part for which `pick` holds.
    fn column_has(&self, name: &str, pick: fn(&TypeKind) -> bool) -> bool {
        self.fields
            .iter()
            .any(|(n, t, _)| n == name && type_has(t, pick))
    }

    /// Whether `fields.<name>.<suffix>` is set (to `value`, when given).
    fn field_option_is(&self, name: &str, suffix: &str, value: Option<&str>) -> bool {
        self.option(&format!("fields.{name}.{suffix}"))
            .is_some_and(|v| value.is_none_or(|want| v.eq_ignore_ascii_case(want)))
    }

    /// Whether `name` is a sequence field of a `fields.<a,b>.sequence-group` of partial-update.
    fn is_sequence_group_field(&self, name: &str) -> bool {
        self.options.keys().any(|k| {
            k.strip_prefix("fields.")
                .and_then(|k| k.strip_suffix(".sequence-group"))
                .is_some_and(|seq| seq.split(',').any(|f| f.trim() == name))
        })
    }

    fn any_field_option(&self, suffix: &str, value: Option<&str>) -> bool {
        self.options.iter().any(|(k, v)| {
            k.starts_with("fields.")
                && k.ends_with(suffix)
                && value.is_none_or(|want| v.eq_ignore_ascii_case(want))
        })
    }
}

/// Whether `t` or a type nested in it satisfies `pick`.
fn type_has(t: &DataType, pick: fn(&TypeKind) -> bool) -> bool {
    pick(&t.kind)
        || match &t.kind {
            TypeKind::Array(e) | TypeKind::Vector(e, _) | TypeKind::Multiset(e) => {
                type_has(e, pick)
            }
            TypeKind::Map(k, v) => type_has(k, pick) || type_has(v, pick),
            TypeKind::Row(fields) => fields.iter().any(|f| type_has(&f.data_type, pick)),
            _ => false,
        }
}

fn visit(t: &DataType, facts: &mut TableFacts) {
    match &t.kind {
        TypeKind::Time(_) => facts.has_time = true,
        TypeKind::LocalZonedTimestamp(_) => facts.has_ltz = true,
        TypeKind::Map(k, v) => {
            facts.has_map = true;
            visit(k, facts);
            visit(v, facts);
        }
        TypeKind::Multiset(e) => {
            facts.has_map = true;
            visit(e, facts);
        }
        TypeKind::Array(e) | TypeKind::Vector(e, _) => visit(e, facts),
        TypeKind::Row(fields) => fields.iter().for_each(|f| visit(&f.data_type, facts)),
        _ => {}
    }
}

/// One rule: its name, its value as text, when it applies, and, for a rule that changes the values of
/// particular columns only, which.
struct Rule {
    name: &'static str,
    value: fn(&LineRules) -> String,
    applies: fn(&TableFacts, ReplayMode) -> bool,
    column: Option<fn(&TableFacts, &str) -> bool>,
}

fn streaming(mode: ReplayMode) -> bool {
    mode != ReplayMode::Batch
}

/// The modes whose first plan is a full plan of a snapshot (`from-snapshot-full`, `latest-full`).
fn full_first_plan(mode: ReplayMode) -> bool {
    matches!(mode, ReplayMode::StreamFull | ReplayMode::LatestFull)
}

/// Every rule of `LineRules`, in its field order.
const RULES: &[Rule] = &[
    Rule {
        name: "changelog_follow_up",
        value: |r| format!("{:?}", r.changelog_follow_up),
        applies: |t, m| {
            streaming(m)
                && matches!(
                    t.changelog_producer(),
                    "input" | "lookup" | "full-compaction"
                )
        },
        column: None,
    },
    Rule {
        name: "first_plan_lookup_filter",
        value: |r| format!("{:?}", r.first_plan_lookup_filter),
        applies: |t, m| full_first_plan(m) && t.need_lookup(),
        column: None,
    },
    Rule {
        name: "dv_first_plan_rereads_start",
        value: |r| format!("{:?}", r.dv_first_plan_rereads_start),
        applies: |t, m| {
            full_first_plan(m) && t.deletion_vectors() && t.changelog_producer() != "lookup"
        },
        column: None,
    },
    Rule {
        name: "streaming_deletion_files",
        value: |r| format!("{:?}", r.streaming_deletion_files),
        applies: |t, m| streaming(m) && t.deletion_vectors(),
        column: None,
    },
    Rule {
        name: "batch_skip_level0",
        value: |r| format!("{:?}", r.batch_skip_level0),
        applies: |t, m| {
            (m == ReplayMode::Batch || full_first_plan(m))
                && t.primary_key
                && (t.deletion_vectors() || t.is("merge-engine", "first-row"))
        },
        column: None,
    },
    Rule {
        name: "postpone_bucket",
        value: |r| format!("{:?}", r.postpone_bucket),
        applies: |t, _| t.option("bucket") == Some("-2"),
        column: None,
    },
    Rule {
        name: "append_overwrite_streaming",
        value: |r| format!("{:?}", r.append_overwrite_streaming),
        applies: |t, m| {
            streaming(m) && !t.primary_key && t.is("streaming-read-append-overwrite", "true")
        },
        column: None,
    },
    Rule {
        name: "changes_drop_common_files",
        value: |r| format!("{:?}", r.changes_drop_common_files),
        applies: |t, m| streaming(m) && t.is("streaming-read-overwrite", "true"),
        column: None,
    },
    Rule {
        name: "timestamp_to_time",
        value: |r| format!("{:?}", r.timestamp_to_time),
        applies: |t, _| t.schemas > 1 && t.has_time,
        column: Some(|t, f| t.column_has(f, |k| matches!(k, TypeKind::Time(_)))),
    },
    Rule {
        name: "nested_update_null_accumulator",
        value: |r| format!("{:?}", r.nested_update_null_accumulator),
        applies: |t, _| t.any_field_option(".aggregate-function", Some("nested_update")),
        column: Some(|t, f| t.field_option_is(f, "aggregate-function", Some("nested_update"))),
    },
    Rule {
        name: "sequence_field_aggregation",
        value: |r| format!("{:?}", r.sequence_field_aggregation),
        applies: |t, _| t.is("merge-engine", "aggregation") && t.option("sequence.field").is_some(),
        column: Some(|t, f| {
            t.option("sequence.field")
                .is_some_and(|s| s.split(',').any(|x| x.trim() == f))
        }),
    },
    Rule {
        name: "partial_update_aggregates_sequence_fields",
        value: |r| format!("{:?}", r.partial_update_aggregates_sequence_fields),
        applies: |t, _| {
            t.is("merge-engine", "partial-update") && t.any_field_option(".sequence-group", None)
        },
        column: Some(|t, f| t.is_sequence_group_field(f)),
    },
    Rule {
        name: "lookup_pick",
        value: |r| format!("{:?}", r.lookup_pick),
        applies: |t, _| t.primary_key && t.need_lookup(),
        column: None,
    },
    Rule {
        name: "read_time_default_values",
        value: |r| format!("{:?}", r.read_time_default_values),
        applies: |t, _| t.has_default_value,
        column: Some(|t, f| {
            t.field_option_is(f, "default-value", None)
                || t.fields.iter().any(|(n, _, d)| n == f && *d)
        }),
    },
    Rule {
        name: "scan_bucket",
        value: |r| format!("{:?}", r.scan_bucket),
        applies: |t, _| t.options.contains_key("scan.bucket"),
        column: None,
    },
    Rule {
        name: "batch_scan_mode",
        value: |r| format!("{:?}", r.batch_scan_mode),
        applies: |t, m| !streaming(m) && t.primary_key && t.options.contains_key("batch-scan-mode"),
        column: None,
    },
    Rule {
        name: "incremental_between",
        value: |r| format!("{:?}", r.incremental_between),
        applies: |t, m| {
            !streaming(m)
                && (t.options.contains_key("incremental-between")
                    || t.options.contains_key("incremental-between-timestamp"))
        },
        column: None,
    },
    Rule {
        name: "incremental_diff",
        value: |r| format!("{:?}", r.incremental_diff),
        applies: |t, m| {
            !streaming(m)
                && t.primary_key
                && (t.options.contains_key("incremental-between")
                    || t.options.contains_key("incremental-between-timestamp")
                    || t.options.contains_key("incremental-to-auto-tag"))
        },
        column: None,
    },
    Rule {
        name: "incremental_tag_to_snapshot",
        value: |r| format!("{:?}", r.incremental_tag_to_snapshot),
        applies: |t, m| {
            !streaming(m)
                && t.options
                    .contains_key("incremental-between-tag-to-snapshot")
        },
        column: None,
    },
    Rule {
        name: "timestamp_before_earliest",
        value: |r| format!("{:?}", r.timestamp_before_earliest),
        applies: |t, m| {
            !streaming(m)
                && (t.options.contains_key("scan.timestamp-millis")
                    || t.options.contains_key("log.scan.timestamp-millis"))
        },
        column: None,
    },
    Rule {
        name: "timestamp_ltz_zone",
        value: |r| format!("{:?}", r.timestamp_ltz_zone),
        applies: |t, _| t.has_ltz,
        column: Some(|t, f| t.column_has(f, |k| matches!(k, TypeKind::LocalZonedTimestamp(_)))),
    },
    Rule {
        name: "map_value_nullability",
        value: |r| format!("{:?}", r.map_value_nullability),
        applies: |t, _| t.has_map,
        column: Some(|t, f| {
            t.column_has(f, |k| {
                matches!(k, TypeKind::Map(..) | TypeKind::Multiset(_))
            })
        }),
    },
];

/// The rules whose value differs between `written_by` and `read_by`, every one of them (for the matrix's
/// legend of a pair).
pub fn changed_rules(written_by: PaimonRelease, read_by: PaimonRelease) -> Vec<RuleChange> {
    RULES
        .iter()
        .filter_map(|r| change(r, written_by, read_by))
        .collect()
}

/// The rules whose value differs between `written_by` and `read_by` and that apply to a table with `facts`
/// (every changed rule when the facts are unknown) read in `mode`. With `column` (the column a decoding
/// difference names first), the rules that change that column's values, when any applies; else every rule
/// that applies.
pub fn candidate_rules(
    written_by: PaimonRelease,
    read_by: PaimonRelease,
    facts: Option<&TableFacts>,
    mode: ReplayMode,
    column: Option<&str>,
) -> Vec<RuleChange> {
    let applying: Vec<&Rule> = RULES
        .iter()
        .filter(|r| facts.is_none_or(|f| (r.applies)(f, mode)))
        .filter(|r| change(r, written_by, read_by).is_some())
        .collect();
    let of_column: Vec<&Rule> = match (facts, column) {
        (Some(f), Some(c)) => applying
            .iter()
            .copied()
            .filter(|r| r.column.is_some_and(|on| on(f, c)))
            .collect(),
        _ => Vec::new(),
    };
    let chosen = if of_column.is_empty() {
        applying
    } else {
        of_column
    };
    chosen
        .into_iter()
        .filter_map(|r| change(r, written_by, read_by))
        .collect()
}

/// The top-level column a decoding difference names first (`… row 3, field nu.id: stock …` names `nu`);
/// `None` for a planning difference.
pub fn differing_column(detail: &str) -> Option<&str> {
    let rest = detail.strip_prefix("decoding")?;
    let at = rest.find(", field ")? + ", field ".len();
    let field = rest[at..].split(": ").next()?;
    let top = field.split(['.', '[']).next()?;
    (!top.is_empty()).then_some(top)
}

fn change(r: &Rule, a: PaimonRelease, b: PaimonRelease) -> Option<RuleChange> {
    let (va, vb) = ((r.value)(a.rules()), (r.value)(b.rules()));
    (va != vb).then_some(RuleChange {
        rule: r.name,
        written_by_value: va,
        read_by_value: vb,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_that_change_between_releases() {
        use PaimonRelease::*;
        let names = |v: Vec<RuleChange>| v.into_iter().map(|c| c.rule).collect::<Vec<_>>();
        assert_eq!(
            names(changed_rules(V1_3_1, V1_4_2)),
            ["incremental_tag_to_snapshot"]
        );
        assert_eq!(
            names(changed_rules(V1_0_0, V1_0_1)),
            [
                "sequence_field_aggregation",
                "partial_update_aggregates_sequence_fields"
            ]
        );
        assert_eq!(
            names(changed_rules(V1_4_2, V2_0_0)),
            [
                "batch_skip_level0",
                "timestamp_to_time",
                "nested_update_null_accumulator",
                "scan_bucket",
                "incremental_diff",
                "timestamp_ltz_zone"
            ]
        );
        let change = &changed_rules(V1_0_0, V2_0_0)[0];
        assert_eq!(change.rule, "changelog_follow_up");
        assert_eq!(
            (
                change.written_by_value.as_str(),
                change.read_by_value.as_str()
            ),
            ("ByCommitKind", "WithChangelogManifest")
        );
    }

    #[test]
    fn candidates_follow_the_table_and_the_scan() {
        let corpora = crate::corpus::corpora_dir();
        let dv = TableFacts::of(&corpora.join("c07-deletion-vectors/table")).unwrap();
        let names = |mode| {
            candidate_rules(
                PaimonRelease::V1_0_0,
                PaimonRelease::V2_0_0,
                Some(&dv),
                mode,
                None,
            )
            .into_iter()
            .map(|c| c.rule)
            .collect::<Vec<_>>()
        };
        assert!(names(ReplayMode::Stream).contains(&"streaming_deletion_files"));
        assert!(!names(ReplayMode::Batch).contains(&"streaming_deletion_files"));
        assert!(names(ReplayMode::Batch).contains(&"batch_skip_level0"));
        assert!(!names(ReplayMode::Stream).contains(&"timestamp_ltz_zone"));
    }

    #[test]
    fn a_decoding_difference_narrows_the_rules_to_its_column() {
        let corpora = crate::corpus::corpora_dir();
        // c12 casts a TIMESTAMP column to TIME (`ts_t`) and has a TIMESTAMP WITH LOCAL TIME ZONE column.
        let casts = TableFacts::of(&corpora.join("c12-schema-evolution-casts/table")).unwrap();
        let names = |column| {
            candidate_rules(
                PaimonRelease::V1_0_0,
                PaimonRelease::V2_0_0,
                Some(&casts),
                ReplayMode::Stream,
                column,
            )
            .into_iter()
            .map(|c| c.rule)
            .collect::<Vec<_>>()
        };
        assert!(names(None).contains(&"timestamp_ltz_zone"));
        assert_eq!(names(Some("ts_t")), ["timestamp_to_time"]);
        assert_eq!(
            differing_column(
                "decoding at snapshot 1, partition [], bucket 0: row 1, field ts_t: stock 23:59:59.999 vs \
                 stock@1.0.0 TIME(-1 ms)"
            ),
            Some("ts_t")
        );
        assert_eq!(
            differing_column(
                "decoding at snapshot 5, partition [], bucket 0: row 3, field nu[0].id: stock 1"
            ),
            Some("nu")
        );
        assert_eq!(
            differing_column("planning at snapshot 2: only in stock"),
            None
        );
    }
}
