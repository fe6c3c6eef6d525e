//! The system tables made of a table's metadata files, not of its data: `$snapshots` (`SnapshotsTable`),
//! `$schemas` (`SchemasTable`), `$options` (`OptionsTable`), `$tags` (`TagsTable`) and `$manifests`
//! (`ManifestsTable`, [`super::manifests`]), with the columns and values the released reader of each
//! release returns ([`crate::line::LineRules::snapshots_table`], [`crate::line::LineRules::manifests_table`]).
//!
//! Timestamps are `TIMESTAMP(3)` wall clocks of the commit's epoch milliseconds in the JVM's default zone
//! (`LocalDateTime.ofInstant(…, ZoneId.systemDefault())`); the bridge runs its JVM in UTC, so they are the
//! epoch milliseconds themselves.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int8Array, RecordBatch};

use super::SystemTable;
use crate::error::{Error, ErrorKind, Result};
use crate::line::SnapshotsTable;
use crate::schema::{parse_atomic, DataField};
use crate::snapshot::list_ids;
use crate::table::Table;
use crate::value::Datum;

/// The columns of `system` as `table`'s release defines them, as Paimon fields (`TABLE_TYPE`).
///
/// Errors: [`Error::Decode`] naming the table if one of the types below did not parse (a bug here, never
/// the table's bytes).
pub(crate) fn fields(table: &Table, system: SystemTable) -> Result<Vec<DataField>> {
    let columns: &[(&str, &str)] = match system {
        SystemTable::Snapshots => {
            let all: &[(&str, &str)] = &[
                ("snapshot_id", "BIGINT NOT NULL"),
                ("schema_id", "BIGINT NOT NULL"),
                ("commit_user", "STRING NOT NULL"),
                ("commit_identifier", "BIGINT NOT NULL"),
                ("commit_kind", "STRING NOT NULL"),
                ("commit_time", "TIMESTAMP(3) NOT NULL"),
                ("base_manifest_list", "STRING NOT NULL"),
                ("delta_manifest_list", "STRING NOT NULL"),
                ("changelog_manifest_list", "STRING"),
                ("total_record_count", "BIGINT"),
                ("delta_record_count", "BIGINT"),
                ("changelog_record_count", "BIGINT"),
                ("watermark", "BIGINT"),
                ("next_row_id", "BIGINT"),
                ("operation", "STRING"),
            ];
            &all[..snapshots_columns(table.release().rules().snapshots_table)]
        }
        SystemTable::Schemas => &[
            ("schema_id", "BIGINT NOT NULL"),
            ("fields", "STRING NOT NULL"),
            ("partition_keys", "STRING NOT NULL"),
            ("primary_keys", "STRING NOT NULL"),
            ("options", "STRING NOT NULL"),
            ("comment", "STRING"),
            ("update_time", "TIMESTAMP(3) NOT NULL"),
        ],
        SystemTable::Options => &[("key", "STRING NOT NULL"), ("value", "STRING NOT NULL")],
        SystemTable::Manifests => {
            super::manifests::columns(table.release().rules().manifests_table)
        }
        SystemTable::Tags => &[
            ("tag_name", "STRING NOT NULL"),
            ("snapshot_id", "BIGINT NOT NULL"),
            ("schema_id", "BIGINT NOT NULL"),
            ("commit_time", "TIMESTAMP(3) NOT NULL"),
            ("record_count", "BIGINT"),
            ("create_time", "TIMESTAMP(3)"),
            ("time_retained", "STRING"),
        ],
        SystemTable::Partitions | SystemTable::Buckets => {
            super::files_tables::columns(table.release().rules().partitions_table, system)
        }
        SystemTable::Files => {
            return super::files::fields(table.release().rules().files_table).map_err(|reason| {
                Error::Decode {
                    path: table.meta_path().to_path_buf(),
                    reason: format!("system table `files`: {reason}"),
                }
            })
        }
        SystemTable::RowTracking
        | SystemTable::AuditLog
        | SystemTable::Binlog
        | SystemTable::ReadOptimized => &[],
    };
    columns
        .iter()
        .enumerate()
        .map(|(id, (name, t))| {
            let data_type = parse_atomic(t).map_err(|e| Error::Decode {
                path: table.meta_path().to_path_buf(),
                reason: format!("system table `{}` column `{name}`: {e}", system.name()),
            })?;
            Ok(DataField {
                id: id as i32,
                name: (*name).into(),
                data_type,
                default_value: None,
            })
        })
        .collect()
}

fn snapshots_columns(rule: SnapshotsTable) -> usize {
    match rule {
        SnapshotsTable::UpToWatermark => 13,
        SnapshotsTable::WithNextRowId => 14,
        SnapshotsTable::WithOperation => 15,
    }
}

/// The rows of metadata system table `system` of `table`, in one batch of [`crate::types::read_schema`] of
/// its [`fields`] (`_row_kind` `+I`, then the columns), in the released reader's order: snapshots by id from
/// the earliest to the latest (`snapshotsWithinRange`, ids without a file skipped), schemas in the order
/// the file system lists `schema/` (`SchemaManager.listAll`, unsorted), options in the order of Java's
/// `HashMap` of the latest schema's options ([`java_hash_map_order`]); `$partitions` and `$buckets` as
/// [`super::files_tables`] says.
///
/// Errors: [`Error::Snapshot`] / [`Error::Io`] / [`Error::Json`] naming the metadata file that cannot be
/// read; [`Error::Unsupported`] for a system table that is not made of metadata, a table the release
/// cannot open (`bucket=-2` before 1.1), or what [`super::files_tables`] does not reproduce (named there).
pub fn read(table: &Table, system: SystemTable) -> Result<RecordBatch> {
    read_with_order(table, system).map(|rows| rows.batch)
}

/// The rows of a metadata system table ([`read`]) and the ranges of them whose order is not known.
#[derive(Clone, Debug)]
pub struct MetadataRows {
    /// The rows, as [`read`] returns them.
    pub batch: RecordBatch,
    /// Row ranges (indices into `batch`, ascending, disjoint) whose rows the released reader returns in
    /// an order its threads decide: in `$files`, the rows of two or more partitions of one bin of the hash
    /// map `SnapshotReader.partitions()` fills from one thread per manifest. Within a range each
    /// partition's rows are contiguous and in the released reader's order; the partitions are in an order
    /// of the native reader's own. Empty for every other system table.
    pub unordered: Vec<std::ops::Range<usize>>,
}

/// The schema of [`read`]'s batch for `system` of `table` (`_row_kind`, then the release's columns), without
/// reading a row.
///
/// Errors: [`Error::Unsupported`] for a system table that is not made of metadata; as [`read`] for a bug in
/// the column types.
pub fn schema(table: &Table, system: SystemTable) -> Result<arrow_schema::Schema> {
    if !system.is_metadata() {
        return Err(Error::Unsupported {
            path: table.meta_path().to_path_buf(),
            reason: format!("`${}` is read by splits, not as metadata", system.name()),
        });
    }
    Ok(crate::types::read_schema(&fields(table, system)?))
}

/// [`read`], with the row ranges whose order the released reader's threads decide.
///
/// Errors: those of [`read`].
pub fn read_with_order(table: &Table, system: SystemTable) -> Result<MetadataRows> {
    // A table the release cannot open (`bucket=-2` before 1.1) has no system tables either.
    crate::scan::check_line(table)?;
    let mut unordered = Vec::new();
    let rows = match system {
        SystemTable::Snapshots => snapshot_rows(table)?,
        SystemTable::Schemas => schema_rows(table)?,
        SystemTable::Options => option_rows(table)?,
        SystemTable::Tags => tag_rows(table)?,
        SystemTable::Manifests => super::manifests::rows(table)?,
        SystemTable::Partitions | SystemTable::Buckets => super::files_tables::rows(table, system)?,
        SystemTable::Files => {
            let (rows, ranges) = super::files::rows(table)?;
            unordered = ranges;
            rows
        }
        SystemTable::RowTracking
        | SystemTable::AuditLog
        | SystemTable::Binlog
        | SystemTable::ReadOptimized => {
            return Err(Error::Unsupported {
                path: table.meta_path().to_path_buf(),
                reason: format!("`${}` is read by splits, not as metadata", system.name()),
            })
        }
    };
    let fields = fields(table, system)?;
    let schema = Arc::new(crate::types::read_schema(&fields));
    let mut columns: Vec<ArrayRef> = vec![Arc::new(Int8Array::from(vec![0i8; rows.len()]))];
    for (i, field) in schema.fields().iter().skip(1).enumerate() {
        let values: Vec<Datum> = rows.iter().map(|r| r[i].clone()).collect();
        let array = Datum::to_arrow(field.data_type(), &values).map_err(|e| Error::Decode {
            path: table.meta_path().to_path_buf(),
            reason: format!(
                "system table `{}` column `{}`: {e}",
                system.name(),
                field.name()
            ),
        })?;
        columns.push(array);
    }
    let batch = RecordBatch::try_new(schema, columns)
        .map_err(|e| Error::library(ErrorKind::Decode, table.meta_path(), "", e))?;
    Ok(MetadataRows { batch, unordered })
}

/// A Java enum's `toString()`: its name, as the snapshot JSON spells it.
fn enum_name(v: &impl serde::Serialize) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn string(s: impl Into<String>) -> Datum {
    Datum::String(s.into())
}

fn opt<T>(v: Option<T>, f: impl FnOnce(T) -> Datum) -> Datum {
    v.map_or(Datum::Null, f)
}

fn timestamp(millis: i64) -> Datum {
    Datum::Timestamp {
        millis,
        nanos_of_milli: 0,
    }
}

fn snapshot_rows(table: &Table) -> Result<Vec<Vec<Datum>>> {
    let manager = table.snapshot_manager();
    let (Some(earliest), Some(latest)) = (
        manager.earliest_snapshot_id()?,
        manager.latest_snapshot_id()?,
    ) else {
        return Ok(Vec::new());
    };
    let columns = snapshots_columns(table.release().rules().snapshots_table);
    let mut rows = Vec::new();
    for id in earliest..=latest {
        if !manager.snapshot_exists(id) {
            continue;
        }
        let s = manager.snapshot(id)?;
        let mut row = vec![
            Datum::Int(s.id),
            Datum::Int(s.schema_id),
            string(&s.commit_user),
            Datum::Int(s.commit_identifier),
            string(enum_name(&s.commit_kind)),
            timestamp(s.time_millis),
            string(&s.base_manifest_list),
            string(&s.delta_manifest_list),
            opt(s.changelog_manifest_list.clone(), string),
            opt(s.total_record_count, Datum::Int),
            opt(s.delta_record_count, Datum::Int),
            opt(s.changelog_record_count, Datum::Int),
            opt(s.watermark, Datum::Int),
            opt(s.next_row_id, Datum::Int),
            opt(s.operation, |o| string(enum_name(&o))),
        ];
        row.truncate(columns);
        rows.push(row);
    }
    Ok(rows)
}

/// The tags of the table (or branch), `tag/tag-<name>`, by name (`TagsTable`'s `TreeMap`): each its
/// snapshot's id, schema id, commit time and total record count, then the create time and retention a tag
/// created with a retention holds (`Tag.fromSnapshotAndTagTtl`: `tagCreateTime`, a `LocalDateTime`, and
/// `tagTimeRetained`, a `Duration` shown as `Duration.toString()`), NULL without them.
///
/// Errors: [`Error::Json`] naming the tag file when it cannot be parsed or holds a create time or
/// retention in a form Jackson's `JavaTimeModule` does not write.
fn tag_rows(table: &Table) -> Result<Vec<Vec<Datum>>> {
    let dir = table.meta_path().join("tag");
    let mut tags = crate::scan::tag_names(table)?;
    // `String.compareTo`: UTF-16 code units.
    tags.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
    let mut rows = Vec::with_capacity(tags.len());
    for name in tags {
        let path = dir.join(format!("tag-{name}"));
        let text = crate::fileio::read(&path)?;
        let json: serde_json::Value = serde_json::from_slice(&text).map_err(|e| Error::Json {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        let bad = |key: &str| Error::Json {
            path: path.clone(),
            reason: format!("`{key}` is not in a form Jackson's JavaTimeModule writes"),
        };
        let created = match json.get("tagCreateTime").filter(|v| !v.is_null()) {
            Some(v) => {
                let (millis, nanos_of_milli) =
                    crate::java::time::local_date_time(v).ok_or_else(|| bad("tagCreateTime"))?;
                Datum::Timestamp {
                    millis,
                    nanos_of_milli,
                }
            }
            None => Datum::Null,
        };
        let retained = match json.get("tagTimeRetained").filter(|v| !v.is_null()) {
            // The number's text, not its f64: a duration is exact to the nanosecond.
            Some(value) => {
                let (seconds, nanos) = number_text(&text, "tagTimeRetained")
                    .and_then(crate::java::time::duration_from_seconds)
                    // The text found must be the value parsed (not a key of the same name elsewhere).
                    .filter(|(s, n)| {
                        value.as_f64().is_some_and(|v| {
                            let found = *s as f64 + f64::from(*n) / 1e9;
                            (found - v).abs() <= 1e-6 * v.abs().max(1.0)
                        })
                    })
                    .ok_or_else(|| bad("tagTimeRetained"))?;
                string(crate::java::time::duration_to_string(seconds, nanos))
            }
            None => Datum::Null,
        };
        // The tag file is its snapshot's JSON: parsed once, read as a snapshot.
        let snapshot: crate::snapshot::Snapshot =
            serde_json::from_value(json).map_err(|e| Error::Json {
                path: path.clone(),
                reason: e.to_string(),
            })?;
        rows.push(vec![
            string(name),
            Datum::Int(snapshot.id),
            Datum::Int(snapshot.schema_id),
            timestamp(snapshot.time_millis),
            opt(snapshot.total_record_count, Datum::Int),
            created,
            retained,
        ]);
    }
    Ok(rows)
}

/// The literal text of the JSON number under `key` in the JSON `text` (`"key" : 5415.25`), its last
/// occurrence (a `Tag` writes its own fields after the snapshot's); `None` when the key is not followed by
/// a number.
fn number_text<'a>(text: &'a [u8], key: &str) -> Option<&'a str> {
    let text = std::str::from_utf8(text).ok()?;
    let quoted = format!("\"{key}\"");
    let rest = text[text.rfind(&quoted)? + quoted.len()..].trim_start();
    let rest = rest.strip_prefix(':')?.trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E')))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// The schema files of the table (or branch) in listing order, each with its id and its JSON (keys in file
/// order).
fn schema_files(table: &Table) -> Result<Vec<(i64, serde_json::Value)>> {
    let dir = table.meta_path().join("schema");
    let mut out = Vec::new();
    // `SchemaManager.listAllIds`: in the order the file system lists them (`FileIO.listStatus`), not sorted.
    for id in list_ids(&dir, "schema-")? {
        out.push((id, read_json(&dir.join(format!("schema-{id}")))?));
    }
    Ok(out)
}

/// The JSON of the metadata file at `path`, keys in file order.
///
/// Errors: [`Error::Io`] naming the file when it cannot be read, [`Error::Json`] when it is not JSON.
fn read_json(path: &std::path::Path) -> Result<serde_json::Value> {
    let bytes = crate::fileio::read(path)?;
    serde_json::from_slice(&bytes).map_err(|e| Error::Json {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

fn schema_rows(table: &Table) -> Result<Vec<Vec<Datum>>> {
    let mut rows = Vec::new();
    let dir = table.meta_path().join("schema");
    for (id, json) in schema_files(table)? {
        let path = dir.join(format!("schema-{id}"));
        let bad = |what: &str| Error::Json {
            path: path.clone(),
            reason: format!("schema file without a valid `{what}`"),
        };
        let compact = |key: &str| -> Result<Datum> {
            let v = json.get(key).cloned().unwrap_or(serde_json::json!([]));
            Ok(string(serde_json::to_string(&v).map_err(|_| bad(key))?))
        };
        let options = options_in_java_order(&json);
        let options_json = serde_json::Value::Object(
            options
                .into_iter()
                .map(|(k, v)| (k, serde_json::Value::String(v)))
                .collect(),
        );
        rows.push(vec![
            Datum::Int(
                json.get("id")
                    .and_then(|v| v.as_i64())
                    .ok_or_else(|| bad("id"))?,
            ),
            compact("fields")?,
            compact("partitionKeys")?,
            compact("primaryKeys")?,
            string(serde_json::to_string(&options_json).map_err(|_| bad("options"))?),
            opt(json.get("comment").and_then(|v| v.as_str()), string),
            timestamp(json.get("timeMillis").and_then(|v| v.as_i64()).unwrap_or(0)),
        ]);
    }
    Ok(rows)
}

fn option_rows(table: &Table) -> Result<Vec<Vec<Datum>>> {
    // `SchemaManager.latest()`: the largest id.
    let Some((_, json)) = schema_files(table)?.into_iter().max_by_key(|(id, _)| *id) else {
        return Ok(Vec::new());
    };
    Ok(options_in_java_order(&json)
        .into_iter()
        .map(|(k, v)| vec![string(k), string(v)])
        .collect())
}

/// The `options` of a schema file in the order Java iterates them: `SchemaSerializer` puts them, in file
/// order, into a `HashMap` ([`java_hash_map_order`]).
fn options_in_java_order(json: &serde_json::Value) -> Vec<(String, String)> {
    let Some(options) = json.get("options").and_then(|o| o.as_object()) else {
        return Vec::new();
    };
    let mut entries = Vec::with_capacity(options.len());
    for (k, v) in options {
        // `JsonNode.asText()`: a string's text, another value's JSON text.
        let text = match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        entries.push((k.clone(), text));
    }
    java_hash_map_order(entries)
}

/// `entries` (distinct keys, in insertion order) in the iteration order of a `java.util.HashMap` they were
/// put into one by one: by bucket (`(h ^ h >>> 16) & (capacity - 1)` of `String.hashCode`), insertion order
/// within a bucket; the capacity is the table's after the puts (16, doubled whenever the size passes 3/4 of
/// it). Buckets that would become trees (8 or more keys in one bucket of a table of 64 or more) are not
/// modelled.
pub(crate) fn java_hash_map_order<V>(entries: Vec<(String, V)>) -> Vec<(String, V)> {
    let mut capacity: usize = 16;
    while entries.len() > capacity * 3 / 4 {
        capacity *= 2;
    }
    let mut keyed: Vec<(usize, usize, (String, V))> = entries
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let h = java_string_hash(&e.0);
            let spread = (h ^ (h >> 16)) as usize & (capacity - 1);
            (spread, i, e)
        })
        .collect();
    keyed.sort_by_key(|(bucket, i, _)| (*bucket, *i));
    keyed.into_iter().map(|(_, _, e)| e).collect()
}

/// `String.hashCode` (over UTF-16 code units, wrapping), as an unsigned 32-bit value.
fn java_string_hash(s: &str) -> u32 {
    s.encode_utf16()
        .fold(0u32, |h, c| h.wrapping_mul(31).wrapping_add(u32::from(c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_string_hashes_and_hash_map_order() {
        // Values Java prints for "bucket".hashCode() and "file.format".hashCode().
        assert_eq!(java_string_hash("bucket") as i32, -1378203158);
        assert_eq!(java_string_hash("file.format") as i32, 1135789225);
        assert_eq!(java_string_hash("") as i32, 0);
        // new HashMap<>() with "b", "a", "c" put: buckets 2 ('b' = 98), 1, 3 of 16.
        let order = java_hash_map_order(vec![("b".into(), 0), ("a".into(), 1), ("c".into(), 2)]);
        let keys: Vec<&str> = order.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["a", "b", "c"]);
        // 13 keys make the table 32 wide: "q" (113) goes to bucket 17, after "a" (97 -> 1).
        let many: Vec<(String, ())> = "qabcdefghijkl"
            .chars()
            .map(|c| (c.to_string(), ()))
            .collect();
        let order = java_hash_map_order(many);
        assert_eq!(order[0].0, "a");
        assert_eq!(order.last().unwrap().0, "q");
    }
}
