//! `--unordered`: the rows of a split compared as a multiset, for readers whose row order within a merge
//! split may legitimately differ from the released reader's.
//!
//! Every row (RowKind included) is encoded with Arrow's row format (`arrow::row`, from the canonical types
//! of [`super::value`], so values are equal exactly when the ordered diff finds them equal) and counted in
//! one hash map: `+1` for a stock row, `-1` for a native row, an entry dropped when its count is back to 0.
//! Both sides are consumed batch by batch, always the side that has returned fewer rows so far, so the map
//! holds only rows not yet matched by the other side: about one batch when both sides return the rows in
//! about the same order (any order within a batch), the split's distinct rows at worst. What is left at the end is what only one side returns (EXCEPT ALL in both directions).

use std::collections::HashMap;
use std::sync::Arc;

use arrow::row::{RowConverter, SortField};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use super::value::{match_columns, Canonical, ColumnMatch};
use super::{
    canonical, count_kinds, render_row, render_value, MismatchKind, ReadFailure, RowCounts,
    RowDiff, RowMismatch,
};
use crate::error::{Error, Side};
use crate::reader::Batches;

/// At most this many rows only one side has are rendered, per side.
pub const UNORDERED_SAMPLES: usize = 5;

/// Counts of one distinct row.
struct Entry {
    /// Stock copies minus native copies.
    net: i64,
    /// Lowest ordinal this row was seen at on the stock side (`u64::MAX`: not seen).
    first_stock: u64,
    /// Same on the native side.
    first_native: u64,
}

/// The first batch seen fixes the schema every other batch must have.
struct Reference {
    side: Side,
    converter: RowConverter,
    canonical: SchemaRef,
    /// The first batch's first row (one row only, for describing a type difference).
    sample: Option<Canonical>,
}

struct Stream<'a> {
    side: Side,
    batches: Batches<'a>,
    done: bool,
    ordinal: u64,
    counts: RowCounts,
}

impl Stream<'_> {
    fn next(&mut self) -> Result<Option<RecordBatch>, ReadFailure> {
        if self.done {
            return Ok(None);
        }
        match self.batches.next() {
            None => {
                self.done = true;
                Ok(None)
            }
            Some(Err(error)) => Err(ReadFailure {
                side: self.side,
                error,
            }),
            Some(Ok(b)) => {
                count_kinds(&mut self.counts, &b);
                Ok(Some(b))
            }
        }
    }
}

#[derive(Default)]
struct State {
    reference: Option<Reference>,
    rows: HashMap<Box<[u8]>, Entry>,
    type_difference: Option<RowMismatch>,
}

fn compare_error(side: Side, what: &str, e: impl Into<crate::error::BoxError>) -> ReadFailure {
    ReadFailure {
        side,
        error: Error::CompareSource {
            context: format!("{side} rows {what}"),
            source: e.into(),
        },
    }
}

impl State {
    fn add(&mut self, side: Side, ordinal: u64, batch: &RecordBatch) -> Result<(), ReadFailure> {
        if self.type_difference.is_some() {
            return Ok(());
        }
        let c = canonical(side, batch)?;
        if self.reference.is_none() {
            let fields = c
                .batch
                .schema()
                .fields()
                .iter()
                .map(|f| SortField::new(f.data_type().clone()))
                .collect();
            let converter = RowConverter::new(fields)
                .map_err(|e| compare_error(side, "cannot be compared as a multiset", e))?;
            self.reference = Some(Reference {
                side,
                converter,
                canonical: c.batch.schema(),
                sample: (c.num_rows() > 0).then(|| Canonical {
                    batch: c.batch.slice(0, 1),
                    original: c.original.clone(),
                }),
            });
        }
        let Some(reference) = self.reference.as_mut() else {
            return Ok(());
        };
        if reference.sample.is_none() && c.num_rows() > 0 && reference.side == side {
            reference.sample = Some(Canonical {
                batch: c.batch.slice(0, 1),
                original: c.original.clone(),
            });
        }
        if c.batch.schema().fields() != reference.canonical.fields() {
            if side == reference.side {
                // One reader changing its own schema mid-split: compare against its first batch's schema.
                return Err(compare_error(
                    side,
                    "change schema within the split",
                    format!("{} vs {}", reference.canonical, c.batch.schema()),
                ));
            }
            self.type_difference = Some(describe_type_difference(reference, &c, side, ordinal));
            self.rows = HashMap::new();
            return Ok(());
        }
        let rows = reference
            .converter
            .convert_columns(c.batch.columns())
            .map_err(|e| compare_error(side, "cannot be encoded", e))?;
        let delta = match side {
            Side::Stock => 1,
            Side::Native | Side::External(_) => -1,
        };
        for i in 0..rows.num_rows() {
            let row = rows.row(i);
            let key: &[u8] = row.as_ref();
            let at = ordinal + i as u64;
            let remove = match self.rows.get_mut(key) {
                Some(e) => {
                    e.net += delta;
                    e.note(side, at);
                    e.net == 0
                }
                None => {
                    let mut e = Entry {
                        net: delta,
                        first_stock: u64::MAX,
                        first_native: u64::MAX,
                    };
                    e.note(side, at);
                    self.rows.insert(key.into(), e);
                    false
                }
            };
            if remove {
                self.rows.remove(key);
            }
        }
        Ok(())
    }
}

impl Entry {
    fn note(&mut self, side: Side, at: u64) {
        match side {
            Side::Stock => self.first_stock = self.first_stock.min(at),
            Side::Native | Side::External(_) => self.first_native = self.first_native.min(at),
        }
    }
}

/// A type difference between the reference batch and a batch of the other side.
fn describe_type_difference(
    reference: &Reference,
    other: &Canonical,
    side: Side,
    ordinal: u64,
) -> RowMismatch {
    let empty = Canonical {
        batch: RecordBatch::new_empty(reference.canonical.clone()),
        original: reference.canonical.clone(),
    };
    let sample = reference.sample.as_ref().unwrap_or(&empty);
    let (stock, native) = match side {
        Side::Native | Side::External(_) => (sample, other),
        Side::Stock => (other, sample),
    };
    let columns = match_columns(stock, native);
    let column = columns
        .iter()
        .position(|m| *m == ColumnMatch::Differs)
        .unwrap_or(0);
    let describe = |c: &Canonical| -> (Option<String>, String) {
        match (
            c.original.fields().get(column),
            c.batch.columns().get(column),
        ) {
            (Some(f), Some(a)) => {
                let v = if a.is_empty() {
                    "<no rows>".to_string()
                } else {
                    render_value(a.as_ref(), 0)
                };
                (
                    Some(f.name().clone()),
                    format!("{v} (column {}: {})", f.name(), f.data_type()),
                )
            }
            _ => (None, "<no such column>".into()),
        }
    };
    let (stock_name, stock_value) = describe(stock);
    let (native_name, native_value) = describe(native);
    let field = stock_name
        .or(native_name)
        .unwrap_or_else(|| format!("#{column}"));
    RowMismatch {
        row: ordinal,
        field,
        stock: stock_value,
        native: native_value,
        kind: MismatchKind::Type,
        context: format!(
            "the column differs in name or type (from {side} row {ordinal} on); rows of different types \
             cannot match, every row differs\n"
        ),
    }
}

/// Diffs the rows of one split as a multiset: the same rows (RowKind included) as many times on each side,
/// in any order. Reports how many rows only one side has and renders the first [`UNORDERED_SAMPLES`] of
/// each side, by ordinal; the first mismatch is the one-sided row with the lowest ordinal (`<row>`).
///
/// Errors: the first read error of either side, or a batch that cannot be encoded (a column type outside
/// Paimon's type mapping), with the side named.
pub fn diff_rows_unordered(
    stock: Batches<'_>,
    native: Batches<'_>,
) -> Result<RowDiff, ReadFailure> {
    let mut streams = [
        Stream {
            side: Side::Stock,
            batches: stock,
            done: false,
            ordinal: 0,
            counts: RowCounts::default(),
        },
        Stream {
            side: Side::Native,
            batches: native,
            done: false,
            ordinal: 0,
            counts: RowCounts::default(),
        },
    ];
    let mut state = State::default();
    // Always read from the side that is behind (stock on a tie), so the two sides stay within a batch of
    // each other and rows returned in about the same order cancel out early.
    loop {
        let behind = streams
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.done)
            .min_by_key(|(i, s)| (s.ordinal, *i))
            .map(|(i, _)| i);
        let Some(i) = behind else {
            break;
        };
        let stream = &mut streams[i];
        if let Some(batch) = stream.next()? {
            state.add(stream.side, stream.ordinal, &batch)?;
            stream.ordinal += batch.num_rows() as u64;
        }
    }
    let [s, n] = streams;
    let mut diff = RowDiff {
        stock_rows: s.counts,
        native_rows: n.counts,
        ..RowDiff::default()
    };
    if let Some(m) = state.type_difference {
        diff.differing_rows = s.ordinal.max(n.ordinal);
        diff.first = Some(m);
        return Ok(diff);
    }
    let Some(reference) = state.reference else {
        return Ok(diff);
    };
    // (ordinal, copies, row bytes) per side.
    let mut stock_only: Vec<(u64, u64, &[u8])> = Vec::new();
    let mut native_only: Vec<(u64, u64, &[u8])> = Vec::new();
    for (key, e) in &state.rows {
        if e.net > 0 {
            stock_only.push((e.first_stock, e.net.unsigned_abs(), key));
        } else if e.net < 0 {
            native_only.push((e.first_native, e.net.unsigned_abs(), key));
        }
    }
    diff.only_in_stock = stock_only.iter().map(|r| r.1).sum();
    diff.only_in_native = native_only.iter().map(|r| r.1).sum();
    diff.differing_rows = diff.only_in_stock + diff.only_in_native;
    if diff.differing_rows == 0 {
        return Ok(diff);
    }
    stock_only.sort_unstable_by_key(|r| r.0);
    native_only.sort_unstable_by_key(|r| r.0);
    let parser = reference.converter.parser();
    let render = |bytes: &[u8]| -> String {
        let arrays = match reference.converter.convert_rows([parser.parse(bytes)]) {
            Ok(a) => a,
            Err(e) => return format!("<unprintable row: {e}>"),
        };
        match RecordBatch::try_new(Arc::clone(&reference.canonical), arrays) {
            Ok(b) => render_row(&b, 0),
            Err(e) => format!("<unprintable row: {e}>"),
        }
    };
    let mut context = format!(
        "compared as multisets: {} rows only in stock, {} rows only in native\n",
        diff.only_in_stock, diff.only_in_native
    );
    for (mark, side, list) in [
        ("-", Side::Stock, &stock_only),
        ("+", Side::Native, &native_only),
    ] {
        for (ordinal, copies, bytes) in list.iter().take(UNORDERED_SAMPLES) {
            let times = if *copies > 1 {
                format!(" ({copies} copies)")
            } else {
                String::new()
            };
            context.push_str(&format!(
                "{mark} {side} row {ordinal}{times}: {}\n",
                render(bytes)
            ));
        }
        if list.len() > UNORDERED_SAMPLES {
            context.push_str(&format!(
                "{mark} ... {} more distinct rows only in {side}\n",
                list.len() - UNORDERED_SAMPLES
            ));
        }
    }
    let first_stock = stock_only.first();
    let first_native = native_only.first();
    let (ordinal, kind, stock, native) = match (first_stock, first_native) {
        (Some(s), Some(n)) if n.0 < s.0 => (n.0, MismatchKind::Extra, "<none>".into(), render(n.2)),
        (Some(s), _) => (s.0, MismatchKind::Missing, render(s.2), "<none>".into()),
        (None, Some(n)) => (n.0, MismatchKind::Extra, "<none>".into(), render(n.2)),
        (None, None) => return Ok(diff),
    };
    diff.first = Some(RowMismatch {
        row: ordinal,
        field: "<row>".into(),
        stock,
        native,
        kind,
        context,
    });
    Ok(diff)
}
