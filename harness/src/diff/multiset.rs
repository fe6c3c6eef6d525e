//! `--unordered`: the rows of a split compared as a multiset, for readers whose row order within a merge
//! split may legitimately differ from the released reader's.
//!
//! Every row (RowKind included) is encoded with Arrow's row format (`arrow::row`, from the canonical types
//! of [`super::value`], so values are equal exactly when the ordered diff finds them equal) and counted in
//! one hash map: `+1` for a stock row, `-1` for a native row, an entry dropped when its count is back to 0.
//! Both sides are consumed batch by batch, always the side that has returned fewer rows so far, so the map
//! holds only rows not yet matched by the other side: about one batch when both sides return the rows in
//! about the same order (any order within a batch), the split's distinct rows at worst. What is left at
//! the end is what only one side returns (EXCEPT ALL in both directions).
//!
//! The map is bounded: once its rows take more than half the memory limit ([`DEFAULT_UNORDERED_MEMORY`],
//! `replay --unordered-memory`), they are handed to DataFusion's hash aggregation
//! ([`paimon_sql::multiset::SpillingCounts`]: `SUM` of the counts by row, spilled to disk when its pool,
//! the other half, is full) and the map starts empty again; at the end the map's rest joins them and the aggregation returns
//! the rows whose count is not 0. A split whose sides agree in order never reaches the aggregation.

use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use arrow::row::{RowConverter, SortField};
use arrow_array::builder::BinaryBuilder;
use arrow_array::{Array, BinaryArray, Int64Array, RecordBatch, UInt64Array};
use arrow_schema::SchemaRef;
use paimon_sql::multiset::{counts_schema, SpillingCounts};

use super::value::{match_columns, Canonical, ColumnMatch};
use super::{
    canonical, count_kinds, render_row, render_value, MismatchKind, ReadFailure, RowCounts,
    RowDiff, RowMismatch,
};
use crate::error::{Error, Side};
use crate::reader::Batches;

/// At most this many rows only one side has are rendered, per side.
pub const UNORDERED_SAMPLES: usize = 5;

/// The default memory limit of one split's multiset comparison, in bytes (256 MiB): the rows held in its
/// map before they go to the spilling aggregation, and that aggregation's own limit.
pub const DEFAULT_UNORDERED_MEMORY: usize = 256 << 20;

/// Bytes a map entry takes besides its row's bytes: the boxed key's pointer and length, [`Entry`], and the
/// hash table's control byte and slack, rounded up.
const ENTRY_OVERHEAD: usize = 64;

/// Rows per batch handed to the aggregation.
const SPILL_BATCH_ROWS: usize = 8192;

/// Counts of one distinct row.
struct Entry {
    /// Stock copies minus native copies.
    net: i64,
    /// One more than the highest ordinal this row was seen at on the stock side (0: not seen). The copies a
    /// side has beyond the other's are reported at its last copy: the same answer whether or not the row's
    /// count went back to 0 on the way, or through the aggregation.
    last_stock: u64,
    /// Same on the native side.
    last_native: u64,
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

struct State {
    reference: Option<Reference>,
    rows: HashMap<Box<[u8]>, Entry>,
    /// About how many bytes `rows` holds (each row's bytes plus [`ENTRY_OVERHEAD`]).
    held: usize,
    /// Half the memory limit: `rows` is handed to `spill` when it holds more, and the aggregation's pool
    /// has the other half.
    limit: usize,
    /// The aggregation the rows go to once the map has outgrown `limit`.
    spill: Option<SpillingCounts>,
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
            self.held = 0;
            self.spill = None;
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
                        last_stock: 0,
                        last_native: 0,
                    };
                    e.note(side, at);
                    self.rows.insert(key.into(), e);
                    self.held += key.len() + ENTRY_OVERHEAD;
                    false
                }
            };
            if remove {
                self.rows.remove(key);
                self.held = self.held.saturating_sub(key.len() + ENTRY_OVERHEAD);
            }
        }
        if self.held > self.limit {
            self.spill_rows(side)?;
        }
        Ok(())
    }

    /// Hands every row of the map to the aggregation (started on first use) and empties the map.
    fn spill_rows(&mut self, side: Side) -> Result<(), ReadFailure> {
        let spill = match self.spill.as_mut() {
            Some(s) => s,
            None => self.spill.insert(
                SpillingCounts::start(self.limit)
                    .map_err(|e| compare_error(side, "cannot be counted", e))?,
            ),
        };
        let mut drained = self.rows.drain().peekable();
        while drained.peek().is_some() {
            let mut keys = BinaryBuilder::new();
            let (mut net, mut last_stock, mut last_native) = (Vec::new(), Vec::new(), Vec::new());
            for (key, e) in drained.by_ref().take(SPILL_BATCH_ROWS) {
                keys.append_value(&key);
                net.push(e.net);
                last_stock.push(e.last_stock);
                last_native.push(e.last_native);
            }
            let batch = RecordBatch::try_new(
                counts_schema(),
                vec![
                    Arc::new(keys.finish()),
                    Arc::new(Int64Array::from(net)),
                    Arc::new(UInt64Array::from(last_stock)),
                    Arc::new(UInt64Array::from(last_native)),
                ],
            )
            .map_err(|e| compare_error(side, "cannot be counted", e))?;
            spill
                .push(batch)
                .map_err(|e| compare_error(side, "cannot be counted", e))?;
        }
        self.held = 0;
        Ok(())
    }

    /// The rows whose count is not 0, from the map, or from the aggregation once it has started.
    fn leftovers(mut self) -> Result<(Option<Reference>, Leftovers), ReadFailure> {
        let mut out = Leftovers::default();
        if self.spill.is_none() {
            for (key, e) in self.rows.drain() {
                out.add(&key, e.net, e.last_stock, e.last_native);
            }
            return Ok((self.reference, out));
        }
        // The rest of the map joins what the aggregation already holds.
        self.spill_rows(Side::Stock)?;
        let Some(spill) = self.spill.take() else {
            return Ok((self.reference, out));
        };
        let failed = |e| compare_error(Side::Stock, "cannot be counted", e);
        let mut remaining = spill.finish();
        while let Some(batch) = remaining.next_batch().map_err(failed)? {
            let column = |i: usize| batch.column(i).as_any();
            let (Some(keys), Some(net), Some(stock), Some(native)) = (
                column(0).downcast_ref::<BinaryArray>(),
                column(1).downcast_ref::<Int64Array>(),
                column(2).downcast_ref::<UInt64Array>(),
                column(3).downcast_ref::<UInt64Array>(),
            ) else {
                return Err(failed(paimon_sql::Error::Aggregation(format!(
                    "unexpected counts {}",
                    batch.schema()
                ))));
            };
            for i in 0..batch.num_rows() {
                if !net.is_null(i) {
                    out.add(keys.value(i), net.value(i), stock.value(i), native.value(i));
                }
            }
        }
        out.spilled_bytes = remaining.spilled_bytes;
        Ok((self.reference, out))
    }
}

/// One row only one side has, as a rendering sample: ordered by ordinal, so a max-heap keeps the lowest.
type Sample = (u64, u64, Box<[u8]>);

/// What the counting leaves: totals per side and the lowest-ordinal rows of each.
#[derive(Default)]
struct Leftovers {
    /// Copies only stock returned, and how many distinct rows they are.
    stock_copies: u64,
    stock_distinct: u64,
    /// Same for native.
    native_copies: u64,
    native_distinct: u64,
    /// The [`UNORDERED_SAMPLES`] lowest-ordinal rows of each side (ordinal, copies, bytes).
    stock_samples: BinaryHeap<Sample>,
    native_samples: BinaryHeap<Sample>,
    spilled_bytes: usize,
}

impl Leftovers {
    /// Counts one row with its net copies and its sides' last ordinals plus one (as in [`Entry`]).
    fn add(&mut self, key: &[u8], net: i64, last_stock: u64, last_native: u64) {
        let copies = net.unsigned_abs();
        let (total, distinct, samples, at) = match net.signum() {
            1 => (
                &mut self.stock_copies,
                &mut self.stock_distinct,
                &mut self.stock_samples,
                last_stock.saturating_sub(1),
            ),
            -1 => (
                &mut self.native_copies,
                &mut self.native_distinct,
                &mut self.native_samples,
                last_native.saturating_sub(1),
            ),
            _ => return,
        };
        *total += copies;
        *distinct += 1;
        if samples.len() < UNORDERED_SAMPLES || samples.peek().is_some_and(|top| at < top.0) {
            samples.push((at, copies, key.into()));
            if samples.len() > UNORDERED_SAMPLES {
                samples.pop();
            }
        }
    }
}

impl Entry {
    fn note(&mut self, side: Side, at: u64) {
        match side {
            Side::Stock => self.last_stock = self.last_stock.max(at + 1),
            Side::Native | Side::External(_) => self.last_native = self.last_native.max(at + 1),
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
/// each side, by ordinal; the first mismatch is the one-sided row with the lowest ordinal (`<row>`). A row
/// one side has more copies of is placed at that side's last copy.
/// Memory is bounded by [`DEFAULT_UNORDERED_MEMORY`] ([`diff_multiset`] takes another limit).
///
/// Errors: the first read error of either side, or a batch that cannot be encoded (a column type outside
/// Paimon's type mapping), with the side named.
pub fn diff_rows_unordered(
    stock: Batches<'_>,
    native: Batches<'_>,
) -> Result<RowDiff, ReadFailure> {
    diff_multiset(stock, native, DEFAULT_UNORDERED_MEMORY).map(|(diff, _)| diff)
}

/// [`diff_rows_unordered`] with `memory_limit` bytes for the rows not yet matched (the in-memory map, then
/// the spilling aggregation's pool; `usize::MAX`: never spill). Also returns the bytes DataFusion spilled
/// to disk (0 when the map sufficed).
///
/// Errors: as [`diff_rows_unordered`], and the aggregation's failure (a spill file that cannot be written)
/// as a comparison error.
pub fn diff_multiset(
    stock: Batches<'_>,
    native: Batches<'_>,
    memory_limit: usize,
) -> Result<(RowDiff, usize), ReadFailure> {
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
    let mut state = State {
        reference: None,
        rows: HashMap::new(),
        held: 0,
        limit: memory_limit / 2,
        spill: None,
        type_difference: None,
    };
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
    if let Some(m) = state.type_difference.take() {
        diff.differing_rows = s.ordinal.max(n.ordinal);
        diff.first = Some(m);
        return Ok((diff, 0));
    }
    let (reference, left) = state.leftovers()?;
    let spilled = left.spilled_bytes;
    let Some(reference) = reference else {
        return Ok((diff, spilled));
    };
    diff.only_in_stock = left.stock_copies;
    diff.only_in_native = left.native_copies;
    diff.differing_rows = diff.only_in_stock + diff.only_in_native;
    if diff.differing_rows == 0 {
        return Ok((diff, spilled));
    }
    let stock_only = left.stock_samples.into_sorted_vec();
    let native_only = left.native_samples.into_sorted_vec();
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
    for (mark, side, list, distinct) in [
        ("-", Side::Stock, &stock_only, left.stock_distinct),
        ("+", Side::Native, &native_only, left.native_distinct),
    ] {
        for (ordinal, copies, bytes) in list {
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
        if distinct > list.len() as u64 {
            context.push_str(&format!(
                "{mark} ... {} more distinct rows only in {side}\n",
                distinct - list.len() as u64
            ));
        }
    }
    let (ordinal, kind, stock, native) = match (stock_only.first(), native_only.first()) {
        (Some(s), Some(n)) if n.0 < s.0 => {
            (n.0, MismatchKind::Extra, "<none>".into(), render(&n.2))
        }
        (Some(s), _) => (s.0, MismatchKind::Missing, render(&s.2), "<none>".into()),
        (None, Some(n)) => (n.0, MismatchKind::Extra, "<none>".into(), render(&n.2)),
        (None, None) => return Ok((diff, spilled)),
    };
    diff.first = Some(RowMismatch {
        row: ordinal,
        field: "<row>".into(),
        stock,
        native,
        kind,
        context,
    });
    Ok((diff, spilled))
}
