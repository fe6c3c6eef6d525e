//! Synthetic splits of millions of rows `(_row_kind, id BIGINT, s STRING)`, produced lazily batch by
//! batch (never held whole), for the diff's memory tests (`large_split`) and the `unordered` bench
//! (`#[path]`).

use std::fmt::Write;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{ArrayRef, Int64Array, Int8Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use harness::reader::Batches;

fn schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("_row_kind", DataType::Int8, false),
        Field::new("id", DataType::Int64, false),
        Field::new("s", DataType::Utf8, true),
    ]))
}

/// The batch of rows `ids` (kind `id % 4`, `s` = `row-<id>`, or `row-<id>-changed` for `changed`).
fn batch_of(schema: &Arc<Schema>, ids: &[u64], changed: Option<u64>) -> RecordBatch {
    let kinds = Int8Array::from_iter_values(ids.iter().map(|i| (i % 4) as i8));
    let id = Int64Array::from_iter_values(ids.iter().map(|i| *i as i64));
    let mut s = StringBuilder::with_capacity(ids.len(), ids.len() * 12);
    for i in ids {
        if Some(*i) == changed {
            let _ = write!(s, "row-{i}-changed");
        } else {
            let _ = write!(s, "row-{i}");
        }
        s.append_value("");
    }
    let columns: Vec<ArrayRef> = vec![Arc::new(kinds), Arc::new(id), Arc::new(s.finish())];
    RecordBatch::try_new(schema.clone(), columns).expect("valid batch")
}

/// A synthetic split of `rows` rows, produced lazily in batches of `batch` rows. `changed`: this row's `s`
/// gets a suffix. `missing`: this row is left out. `reversed`: every batch holds its rows in reverse order.
pub fn split(
    rows: u64,
    batch: u64,
    changed: Option<u64>,
    missing: Option<u64>,
    reversed: bool,
) -> Batches<'static> {
    let schema = schema();
    let starts = (0..rows.div_ceil(batch)).map(move |b| b * batch);
    Box::new(starts.map(move |start| {
        let end = (start + batch).min(rows);
        let mut ids: Vec<u64> = (start..end).filter(|i| Some(*i) != missing).collect();
        if reversed {
            ids.reverse();
        }
        Ok(batch_of(&schema, &ids, changed))
    }))
}

/// [`split`] from its last row to its first (the whole split reversed, lazily), without `missing`.
pub fn split_from_end(rows: u64, batch: u64, missing: Option<u64>) -> Batches<'static> {
    let schema = schema();
    let ends = (0..rows.div_ceil(batch)).map(move |b| rows - b * batch);
    Box::new(ends.map(move |end| {
        let ids: Vec<u64> = (end.saturating_sub(batch)..end)
            .rev()
            .filter(|i| Some(*i) != missing)
            .collect();
        Ok(batch_of(&schema, &ids, None))
    }))
}
