//! Rendering rows and values for reports: `+I (1, "a", NULL)`.

use arrow_array::{Array, Int8Array, RecordBatch};
use native_reader::RowKind;

use super::value;

/// The symbol Paimon prints for a RowKind byte ([`RowKind::short_string`] of [`RowKind::from_byte`]), or
/// `??` for a null or a byte other than 0 to 3.
pub fn row_kind_symbol(kind: Option<i8>) -> &'static str {
    kind.and_then(RowKind::from_byte)
        .map_or("??", RowKind::short_string)
}

/// Renders one value: `NULL` for null, strings quoted, floats with sign and NaN payload, nested values in
/// full (see [`value`]).
pub fn render_value(array: &dyn Array, row: usize) -> String {
    value::render_value(array, row)
}

/// Renders one row as `+I (1, "a", NULL)`.
pub fn render_row(batch: &RecordBatch, row: usize) -> String {
    let kind = batch
        .columns()
        .first()
        .and_then(|c| c.as_any().downcast_ref::<Int8Array>())
        .and_then(|k| k.is_valid(row).then(|| k.value(row)));
    let values: Vec<String> = batch
        .columns()
        .iter()
        .skip(1)
        .map(|c| render_value(c.as_ref(), row))
        .collect();
    format!("{} ({})", row_kind_symbol(kind), values.join(", "))
}
