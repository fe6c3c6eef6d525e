//! Folding rows per primary key: `+I`/`+U` set the value, `-U`/`-D` clear it (a changelog), or every
//! row sets it (a table read); then the keys whose table value the changelog never delivered.

use std::collections::{HashMap, HashSet};

use arrow::row::{RowConverter, SortField};
use arrow_array::{Array, ArrayRef, Int8Array, RecordBatch};
use native_reader::types::without_view;
use native_reader::{RowKind, Split, Table};

use super::{KeyClass, KeyPlace, MissingKey};
use crate::diff::{json_row, render_value};

/// A JSON object keyed by column name (typed values, [`crate::diff::json_value`]).
type JsonRow = serde_json::Map<String, serde_json::Value>;
use crate::error::{Error, Result};

/// The rows of one split as the audit consumes them: the split (for partition and bucket) and its batches.
pub type SplitRows = (Split, Vec<RecordBatch>);

struct KeyState {
    partition: Vec<Option<String>>,
    bucket: i32,
    key: String,
    /// The primary key's columns, named and typed.
    key_values: JsonRow,
    /// The key's current value: its row bytes, rendering, and named, typed columns.
    value: Option<(Vec<u8>, String, JsonRow)>,
    /// The last row folded for the key: its RowKind, values and snapshot, e.g. `-D (10, 10) at snapshot 6`.
    last_event: String,
    /// The snapshot of that last row.
    last_snapshot: i64,
    /// Whether that last row was a retraction (`-U`/`-D`).
    last_retracts: bool,
}

/// One key as a fold left it ([`Folder::views`]).
pub(super) struct KeyView<'a> {
    /// Its current value, rendered `(1, 20)`, and by column name; `None` when retracted.
    pub value: Option<(&'a str, &'a JsonRow)>,
    /// Its last event, `-D (10, 10) at snapshot 6`.
    pub last_event: &'a str,
    /// The snapshot of that event.
    pub last_snapshot: i64,
}

/// Folds rows per primary key.
///
/// `key_columns` are the positions of the primary-key columns in the batches (after `_row_kind`);
/// value equality covers every column but `_row_kind`.
pub(super) struct Folder {
    keys: RowConverter,
    values: RowConverter,
    key_columns: Vec<usize>,
    state: HashMap<Vec<u8>, KeyState>,
}

impl Folder {
    pub(super) fn new(schema: &arrow_schema::Schema, key_columns: Vec<usize>) -> Result<Self> {
        let field = |i: usize| SortField::new(without_view(schema.field(i).data_type()));
        let keys =
            RowConverter::new(key_columns.iter().map(|i| field(*i)).collect()).map_err(|e| {
                Error::ScenarioSource {
                    context: "primary key columns".to_owned(),
                    source: e.into(),
                }
            })?;
        let values =
            RowConverter::new((1..schema.fields().len()).map(field).collect()).map_err(|e| {
                Error::ScenarioSource {
                    context: "value columns".to_owned(),
                    source: e.into(),
                }
            })?;
        Ok(Folder {
            keys,
            values,
            key_columns,
            state: HashMap::new(),
        })
    }

    /// Every key of the fold by (partition, bucket, rendered key), with its current value (rendering and
    /// typed row; `None` when it was retracted), its last event and that event's snapshot.
    pub(super) fn views(&self) -> HashMap<KeyPlace, KeyView<'_>> {
        self.state
            .values()
            .map(|s| {
                (
                    (s.partition.clone(), s.bucket, s.key.clone()),
                    KeyView {
                        value: s.value.as_ref().map(|(_, r, row)| (r.as_str(), row)),
                        last_event: &s.last_event,
                        last_snapshot: s.last_snapshot,
                    },
                )
            })
            .collect()
    }

    /// The primary key of row `r`, each column with its name: `id=1` or `(id=1, name="a")`.
    pub(super) fn render_key(&self, batch: &RecordBatch, r: usize) -> String {
        render_key(batch, &self.key_columns, r)
    }

    /// Applies a batch: `+I`/`+U` set, `-U`/`-D` clear (when `changelog`), or every row sets (a table read).
    pub(super) fn apply(
        &mut self,
        split: &Split,
        batch: &RecordBatch,
        changelog: bool,
    ) -> Result<()> {
        let rows = batch.num_rows();
        let kinds = batch
            .columns()
            .first()
            .and_then(|c| c.as_any().downcast_ref::<Int8Array>())
            .ok_or_else(|| Error::Scenario("batch without an Int8 _row_kind column".into()))?;
        // The native reader's string and binary views and the released reader's plain arrays fold as the
        // same values.
        let columns: Vec<ArrayRef> = batch
            .columns()
            .iter()
            .map(plain_column)
            .collect::<Result<_>>()?;
        let key_arrays: Vec<_> = self
            .key_columns
            .iter()
            .map(|i| columns[*i].clone())
            .collect();
        let keys = self
            .keys
            .convert_columns(&key_arrays)
            .map_err(|e| Error::ScenarioSource {
                context: String::new(),
                source: e.into(),
            })?;
        let values =
            self.values
                .convert_columns(&columns[1..])
                .map_err(|e| Error::ScenarioSource {
                    context: String::new(),
                    source: e.into(),
                })?;
        for r in 0..rows {
            let set = !changelog || RowKind::from_byte(kinds.value(r)).is_some_and(RowKind::is_add);
            let rendered_key = self.render_key(batch, r);
            let entry = self
                .state
                .entry(keys.row(r).as_ref().to_vec())
                .or_insert_with(|| KeyState {
                    partition: split.partition.clone(),
                    bucket: split.bucket,
                    key: rendered_key,
                    key_values: json_row(batch, self.key_columns.iter().copied(), r),
                    value: None,
                    last_event: String::new(),
                    last_snapshot: split.snapshot_id,
                    last_retracts: false,
                });
            entry.partition = split.partition.clone();
            entry.bucket = split.bucket;
            let rendered = render_values(batch, r);
            entry.last_event = format!(
                "{} {rendered} at snapshot {}",
                crate::diff::row_kind_symbol(Some(kinds.value(r))),
                split.snapshot_id
            );
            entry.last_snapshot = split.snapshot_id;
            entry.last_retracts = !set;
            entry.value = if set {
                let typed = json_row(batch, 1..batch.num_columns(), r);
                Some((values.row(r).as_ref().to_vec(), rendered, typed))
            } else {
                None
            };
        }
        Ok(())
    }
}

/// The primary key of row `r` of `batch`, whose key columns are at `key_columns`, each column with its
/// name: `id=1` or `(id=1, name="a")`.
pub(super) fn render_key(batch: &RecordBatch, key_columns: &[usize], r: usize) -> String {
    let schema = batch.schema();
    let parts: Vec<String> = key_columns
        .iter()
        .map(|i| {
            format!(
                "{}={}",
                schema.field(*i).name(),
                render_value(batch.column(*i).as_ref(), r)
            )
        })
        .collect();
    match parts.as_slice() {
        [one] => one.clone(),
        _ => format!("({})", parts.join(", ")),
    }
}

/// The values of one row (every column but `_row_kind`), rendered as `(1, "a", NULL)`.
pub fn render_values(batch: &RecordBatch, row: usize) -> String {
    let values: Vec<String> = batch
        .columns()
        .iter()
        .skip(1)
        .map(|c| render_value(c.as_ref(), row))
        .collect();
    format!("({})", values.join(", "))
}

/// Positions (in the read schema, after `_row_kind`) of the primary-key columns of `table`.
pub(super) fn primary_key_columns(table: &Table) -> Result<Vec<usize>> {
    let schema = table.schema();
    schema
        .primary_keys
        .iter()
        .map(|k| {
            schema
                .fields
                .iter()
                .position(|f| &f.name == k)
                .map(|i| i + 1)
                .ok_or_else(|| Error::Table {
                    path: table.path().join("schema"),
                    reason: format!("primary key `{k}` is not a column"),
                })
        })
        .collect()
}

/// Part 2 on rows already read: folds `changelog` per key and compares with `table_rows`.
///
/// Returns the number of distinct keys and the missing ones (attribution not filled in).
pub fn compare_changelog_with_table(
    schema: &arrow_schema::Schema,
    key_columns: Vec<usize>,
    changelog: &[SplitRows],
    table_rows: &[SplitRows],
) -> Result<(usize, Vec<MissingKey>)> {
    let mut stream = Folder::new(schema, key_columns.clone())?;
    for (split, batches) in changelog {
        for b in batches {
            stream.apply(split, b, true)?;
        }
    }
    let mut table = Folder::new(schema, key_columns)?;
    for (split, batches) in table_rows {
        for b in batches {
            table.apply(split, b, false)?;
        }
    }
    Ok(missing_keys(&stream, &table))
}

pub(super) fn missing_keys(stream: &Folder, table: &Folder) -> (usize, Vec<MissingKey>) {
    let mut all: HashSet<&Vec<u8>> = stream.state.keys().collect();
    all.extend(table.state.keys());
    let keys = all.len();
    let mut missing = Vec::new();
    for (k, t) in &table.state {
        let Some((tv, trendered, trow)) = &t.value else {
            continue;
        };
        let in_stream = stream.state.get(k);
        let seen = in_stream.and_then(|s| s.value.as_ref());
        if seen.map(|(sv, _, _)| sv) != Some(tv) {
            let deleted = in_stream.is_some_and(|s| s.last_retracts);
            missing.push(MissingKey {
                partition: t.partition.clone(),
                bucket: t.bucket,
                key: t.key.clone(),
                key_values: t.key_values.clone(),
                class: if deleted {
                    KeyClass::DeletedInStreamPresentInTable
                } else {
                    KeyClass::FinalValueNeverDelivered
                },
                stream_last_event: in_stream.map(|s| s.last_event.clone()),
                stream_last_snapshot: in_stream.map(|s| s.last_snapshot),
                stream_value: seen.map_or("<none>".into(), |(_, r, _)| r.clone()),
                table_value: trendered.clone(),
                stream_row: seen.map(|(_, _, row)| row.clone()),
                table_row: Some(trow.clone()),
                written_by_snapshot: None,
                written_by_user: None,
                written_by_identifier: None,
                written_by_kind: None,
                lost_with_user: None,
                lost_with_identifier: None,
                overwritten_by_snapshot: None,
                durable: None,
            });
        }
    }
    // Keys the stream still shows but the table no longer has: their delete never reached the changelog.
    for (k, s) in &stream.state {
        if let Some((_, rendered, row)) = &s.value {
            if !table.state.contains_key(k) {
                missing.push(MissingKey {
                    partition: s.partition.clone(),
                    bucket: s.bucket,
                    key: s.key.clone(),
                    key_values: s.key_values.clone(),
                    class: KeyClass::PresentInStreamAbsentFromTable,
                    stream_last_event: Some(s.last_event.clone()),
                    stream_last_snapshot: Some(s.last_snapshot),
                    stream_value: rendered.clone(),
                    table_value: "<deleted>".into(),
                    stream_row: Some(row.clone()),
                    table_row: None,
                    written_by_snapshot: None,
                    written_by_user: None,
                    written_by_identifier: None,
                    written_by_kind: None,
                    lost_with_user: None,
                    lost_with_identifier: None,
                    overwritten_by_snapshot: None,
                    durable: None,
                });
            }
        }
    }
    missing.sort_by(|a, b| (&a.partition, a.bucket, &a.key).cmp(&(&b.partition, b.bucket, &b.key)));
    (keys, missing)
}

/// `column` as the type it is folded as, [`without_view`] of its type (views copied into a plain array;
/// others shared).
fn plain_column(column: &ArrayRef) -> Result<ArrayRef> {
    let plain = without_view(column.data_type());
    let column = if &plain == column.data_type() {
        column.clone()
    } else {
        arrow_cast::cast(column, &plain).map_err(|e| Error::ScenarioSource {
            context: "string views".to_owned(),
            source: e.into(),
        })?
    };
    sorted_maps(&column).map_err(|e| Error::ScenarioSource {
        context: "map entries".to_owned(),
        source: e.into(),
    })
}

/// `column` with each map's entries sorted by key, at any depth: a MAP is a set of entries, and the order a
/// reader returns them in follows the file that holds the row (a shared-shredding map's value columns, a
/// `row` file's `HashMap`), so the same value read from a level-0 file and from its compaction can list
/// them differently.
fn sorted_maps(column: &ArrayRef) -> std::result::Result<ArrayRef, arrow_schema::ArrowError> {
    use arrow_array::cast::AsArray;
    use arrow_array::{ListArray, MapArray, StructArray};
    use std::sync::Arc;
    fn has_map(t: &arrow_schema::DataType) -> bool {
        match t {
            arrow_schema::DataType::Map(..) => true,
            arrow_schema::DataType::List(f) => has_map(f.data_type()),
            arrow_schema::DataType::Struct(fields) => fields.iter().any(|f| has_map(f.data_type())),
            _ => false,
        }
    }
    if !has_map(column.data_type()) {
        return Ok(column.clone());
    }
    Ok(match column.data_type() {
        arrow_schema::DataType::Map(field, sorted) => {
            let map = column.as_map();
            let entries = map.entries();
            let keys = sorted_maps(entries.column(0))?;
            let values = sorted_maps(entries.column(1))?;
            // By key, then by value: a map read with a key twice still folds as one set.
            let converter = RowConverter::new(vec![
                SortField::new(keys.data_type().clone()),
                SortField::new(values.data_type().clone()),
            ])?;
            let rows = converter.convert_columns(&[keys.clone(), values.clone()])?;
            let offsets = map.value_offsets();
            let mut order: Vec<u32> = Vec::with_capacity(keys.len());
            for w in offsets.windows(2) {
                let mut range: Vec<u32> = (w[0] as u32..w[1] as u32).collect();
                range.sort_by(|a, b| rows.row(*a as usize).cmp(&rows.row(*b as usize)));
                order.extend(range);
            }
            let indices = arrow_array::UInt32Array::from(order);
            let entries = StructArray::try_new(
                entries.fields().clone(),
                vec![
                    arrow_select::take::take(keys.as_ref(), &indices, None)?,
                    arrow_select::take::take(values.as_ref(), &indices, None)?,
                ],
                None,
            )?;
            let lengths = offsets.windows(2).map(|w| (w[1] - w[0]) as usize);
            Arc::new(MapArray::try_new(
                field.clone(),
                arrow::buffer::OffsetBuffer::from_lengths(lengths),
                entries,
                map.nulls().cloned(),
                *sorted,
            )?)
        }
        arrow_schema::DataType::List(field) => {
            let list = column.as_list::<i32>();
            Arc::new(ListArray::try_new(
                field.clone(),
                list.offsets().clone(),
                sorted_maps(list.values())?,
                list.nulls().cloned(),
            )?)
        }
        arrow_schema::DataType::Struct(fields) => {
            let row = column.as_struct();
            let children = row
                .columns()
                .iter()
                .map(sorted_maps)
                .collect::<std::result::Result<Vec<_>, _>>()?;
            Arc::new(StructArray::try_new(
                fields.clone(),
                children,
                row.nulls().cloned(),
            )?)
        }
        _ => column.clone(),
    })
}

#[cfg(test)]
mod tests {
    use arrow_array::builder::{Int32Builder, MapBuilder, StringBuilder};
    use arrow_array::cast::AsArray;

    use super::*;

    /// One map value whose entries come in two orders, and an empty and a NULL map: after sorting, the two
    /// orders are the same row.
    #[test]
    fn map_entries_fold_as_a_set() {
        let mut b = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
        for entries in [[("b", 2), ("a", 1)], [("a", 1), ("b", 2)]] {
            for (k, v) in entries {
                b.keys().append_value(k);
                b.values().append_value(v);
            }
            b.append(true).unwrap();
        }
        b.append(true).unwrap();
        b.append(false).unwrap();
        let column: ArrayRef = std::sync::Arc::new(b.finish());
        let sorted = sorted_maps(&column).unwrap();
        let converter =
            RowConverter::new(vec![SortField::new(sorted.data_type().clone())]).unwrap();
        let rows = converter
            .convert_columns(std::slice::from_ref(&sorted))
            .unwrap();
        assert_eq!(rows.row(0), rows.row(1));
        let map = sorted.as_map();
        assert_eq!(map.value(0).column(0).as_string::<i32>().value(0), "a");
        assert!(map.value(2).is_empty() && map.is_null(3));
    }
}
