//! Describing the first difference of a split: the field, both values, and the rows around it.

use arrow_array::{Array, Int8Array};

use super::render::{render_row, render_value, row_kind_symbol};
use super::value::{diff_at, Canonical, ColumnMatch};
use super::{MismatchKind, RowMismatch, CONTEXT_ROWS};
use crate::error::Side;

/// A row pair in the current batches.
pub(super) struct Position<'b> {
    pub(super) stock: &'b Canonical,
    pub(super) si: usize,
    pub(super) stock_start: u64,
    pub(super) native: &'b Canonical,
    pub(super) ni: usize,
    pub(super) native_start: u64,
}

pub(super) fn describe_field(
    at: &Position<'_>,
    column: usize,
    kind: MismatchKind,
    columns: &[ColumnMatch],
) -> RowMismatch {
    let (ss, ns) = (at.stock.batch.schema(), at.native.batch.schema());
    let stock_name = ss.fields().get(column).map(|f| f.name().clone());
    let native_name = ns.fields().get(column).map(|f| f.name().clone());
    let name = stock_name
        .clone()
        .or_else(|| native_name.clone())
        .unwrap_or_else(|| format!("#{column}"));
    let row = at.stock_start + at.si as u64;
    let rows = rows_context(at);
    if columns.get(column) != Some(&ColumnMatch::Comparable) {
        let same_name = stock_name == native_name;
        let value = |c: &Canonical, i: usize| match c.batch.columns().get(column) {
            None => "<no such column>".to_string(),
            Some(array) => {
                let t = c
                    .original
                    .fields()
                    .get(column)
                    .map(|f| f.data_type().to_string())
                    .unwrap_or_default();
                let v = render_value(array.as_ref(), i);
                if same_name {
                    format!("{v} ({t})")
                } else {
                    let n = c.batch.schema().field(column).name().clone();
                    format!("{v} (column {n}: {t})")
                }
            }
        };
        let type_of = |c: &Canonical| {
            c.original
                .fields()
                .get(column)
                .map(|f| format!("{}: {}", f.name(), f.data_type()))
                .unwrap_or_else(|| "<no such column>".into())
        };
        return RowMismatch {
            row,
            field: name,
            stock: value(at.stock, at.si),
            native: value(at.native, at.ni),
            kind: MismatchKind::Type,
            context: format!(
                "the column differs in name or type: stock {} vs native {}; every row differs\n{rows}",
                type_of(at.stock),
                type_of(at.native)
            ),
        };
    }
    let (Some(sa), Some(na)) = (
        at.stock.batch.columns().get(column),
        at.native.batch.columns().get(column),
    ) else {
        return RowMismatch {
            row,
            field: name,
            stock: "<no such column>".into(),
            native: "<no such column>".into(),
            kind,
            context: rows,
        };
    };
    let (field, stock, native) = if column == 0 {
        (
            name,
            render_kind(sa.as_ref(), at.si),
            render_kind(na.as_ref(), at.ni),
        )
    } else {
        match diff_at(sa.as_ref(), at.si, na.as_ref(), at.ni, true) {
            Some(d) => (format!("{name}{}", d.path()), d.stock, d.native),
            None => (
                name,
                render_value(sa.as_ref(), at.si),
                render_value(na.as_ref(), at.ni),
            ),
        }
    };
    let note = match kind {
        MismatchKind::Swapped => format!("rows {row} and {} come in the other order\n", row + 1),
        _ => String::new(),
    };
    RowMismatch {
        row,
        field,
        stock,
        native,
        kind,
        context: format!("{note}{rows}"),
    }
}

pub(super) fn describe_one_sided(at: &Position<'_>, only: Side) -> RowMismatch {
    let rows = rows_context(at);
    let (row, kind, stock, native) = match only {
        Side::Stock => (
            at.stock_start + at.si as u64,
            MismatchKind::Missing,
            render_row(&at.stock.batch, at.si),
            "<none>".to_string(),
        ),
        Side::Native | Side::External(_) => (
            at.native_start + at.ni as u64,
            MismatchKind::Extra,
            "<none>".to_string(),
            render_row(&at.native.batch, at.ni),
        ),
    };
    RowMismatch {
        row,
        field: "<row>".into(),
        stock,
        native,
        kind,
        context: format!("row {row} is returned by the {only} reader only\n{rows}"),
    }
}

fn render_kind(array: &dyn Array, row: usize) -> String {
    let k = array.as_any().downcast_ref::<Int8Array>();
    match k.and_then(|k| k.is_valid(row).then(|| k.value(row))) {
        Some(v) => row_kind_symbol(Some(v)).to_string(),
        None => render_value(array, row),
    }
}

/// Up to [`CONTEXT_ROWS`] rows from `from`, one per line with their ordinal.
pub(super) fn rows_text(c: &Canonical, from: usize, batch_start: u64) -> String {
    (from..(from + CONTEXT_ROWS).min(c.num_rows()))
        .map(|r| {
            format!(
                "  row {}: {}\n",
                batch_start + r as u64,
                render_row(&c.batch, r)
            )
        })
        .collect()
}

/// A unified diff of the rows around a row pair (stock `-`, native `+`), with the ordinals it covers.
fn rows_context(at: &Position<'_>) -> String {
    let window = |c: &Canonical, i: usize| {
        let from = i.saturating_sub(CONTEXT_ROWS);
        let to = (i + CONTEXT_ROWS + 1).min(c.num_rows());
        let text: String = (from..to)
            .map(|r| format!("{}\n", render_row(&c.batch, r)))
            .collect();
        (from, to, text)
    };
    let (sf, st, stext) = window(at.stock, at.si);
    let (nf, nt, ntext) = window(at.native, at.ni);
    let diff = similar::TextDiff::from_lines(&stext, &ntext)
        .unified_diff()
        .context_radius(CONTEXT_ROWS)
        .header("stock", "native")
        .to_string();
    format!(
        "stock rows {}..{}, native rows {}..{}:\n{diff}",
        at.stock_start + sf as u64,
        at.stock_start + st as u64,
        at.native_start + nf as u64,
        at.native_start + nt as u64
    )
}
