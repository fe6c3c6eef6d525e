//! Split matching, file-list comparison and the row-by-row diff.
//!
//! Equality rules (they follow what the released reader returns, value for value):
//! * rows are compared in order within a split: RowKind first, then every field by position;
//! * two NULLs are equal, NULL never equals a value (NULL is not the empty string, nor zero);
//! * floats compare by their IEEE-754 total order, so `NaN` equals `NaN` and `0.0` differs from `-0.0`;
//! * when the native reader returns another Arrow type than the stock reader for a column, the native column
//!   is cast to the stock type first; a column that cannot be cast differs on every row;
//! * batch boundaries do not matter: both sides are consumed as one stream of rows.
//!
//! Memory is bounded by one batch per side: the diff never holds a whole split.

use std::collections::VecDeque;

use arrow_array::{Array, ArrayRef, BooleanArray, Int8Array, RecordBatch};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{DataType, SortOptions};
use native_reader::{DataFileDesc, Split, SplitKey};
use serde::Serialize;

use crate::error::Side;
use crate::reader::Batches;

/// Rows per RowKind (`org.apache.paimon.types.RowKind`): `+I`, `-U`, `+U`, `-D`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RowCounts {
    /// `+I` rows (byte value 0).
    pub insert: u64,
    /// `-U` rows (byte value 1).
    pub update_before: u64,
    /// `+U` rows (byte value 2).
    pub update_after: u64,
    /// `-D` rows (byte value 3).
    pub delete: u64,
    /// Rows whose `_row_kind` is not 0..=3 (never valid).
    pub invalid: u64,
}

impl RowCounts {
    /// All rows.
    pub fn total(&self) -> u64 {
        self.insert + self.update_before + self.update_after + self.delete + self.invalid
    }

    /// Adds every row of a `_row_kind` column.
    pub fn add_kinds(&mut self, kinds: &Int8Array) {
        for k in kinds.iter() {
            match k {
                Some(0) => self.insert += 1,
                Some(1) => self.update_before += 1,
                Some(2) => self.update_after += 1,
                Some(3) => self.delete += 1,
                _ => self.invalid += 1,
            }
        }
    }

    /// Adds another count.
    pub fn add(&mut self, other: &RowCounts) {
        self.insert += other.insert;
        self.update_before += other.update_before;
        self.update_after += other.update_after;
        self.delete += other.delete;
        self.invalid += other.invalid;
    }
}

impl std::fmt::Display for RowCounts {
    /// `12 rows (+I 10, -U 1, +U 1, -D 0)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} rows (+I {}, -U {}, +U {}, -D {}",
            self.total(),
            self.insert,
            self.update_before,
            self.update_after,
            self.delete
        )?;
        if self.invalid > 0 {
            write!(f, ", invalid {}", self.invalid)?;
        }
        f.write_str(")")
    }
}

/// The symbol Paimon prints for a RowKind byte.
pub fn row_kind_symbol(kind: Option<i8>) -> &'static str {
    match kind {
        Some(0) => "+I",
        Some(1) => "-U",
        Some(2) => "+U",
        Some(3) => "-D",
        _ => "??",
    }
}

/// A split as matched across the two readers.
#[derive(Clone, Copy, Debug)]
pub enum Paired<'a, T> {
    /// Both readers planned it.
    Both(&'a T, &'a T),
    /// Only the stock reader planned it.
    StockOnly(&'a T),
    /// Only the native reader planned it.
    NativeOnly(&'a T),
}

/// Pairs of splits matched by (snapshot, partition, bucket). A key planned several times on one side
/// (bin-packed append splits) is matched by its occurrence: the n-th with the n-th.
///
/// Order: stock order, then native-only splits in native order.
pub fn match_splits<'a, T>(
    stock: &'a [T],
    native: &'a [T],
    split_of: impl Fn(&T) -> &Split,
) -> Vec<Paired<'a, T>> {
    use std::collections::HashMap;
    let mut native_by_key: HashMap<SplitKey, VecDeque<usize>> = HashMap::new();
    for (i, s) in native.iter().enumerate() {
        native_by_key
            .entry(split_of(s).key())
            .or_default()
            .push_back(i);
    }
    let mut used = vec![false; native.len()];
    let mut out = Vec::with_capacity(stock.len().max(native.len()));
    for s in stock {
        let n = native_by_key
            .get_mut(&split_of(s).key())
            .and_then(VecDeque::pop_front);
        match n {
            Some(i) => {
                used[i] = true;
                out.push(Paired::Both(s, &native[i]));
            }
            None => out.push(Paired::StockOnly(s)),
        }
    }
    for (i, n) in native.iter().enumerate() {
        if !used[i] {
            out.push(Paired::NativeOnly(n));
        }
    }
    out
}

/// Compares what two readers planned for the same split key. `None` when the plans agree; otherwise a
/// sentence naming the first difference (files, levels, row counts, flags, deletion files).
pub fn compare_plans(stock: &Split, native: &Split) -> Option<String> {
    fn files(list: &[DataFileDesc]) -> Vec<(String, i32, i64)> {
        list.iter()
            .map(|f| (f.file_name.clone(), f.level, f.row_count))
            .collect()
    }
    fn show(list: &[(String, i32, i64)]) -> String {
        let parts: Vec<String> = list
            .iter()
            .map(|(n, l, r)| format!("{n} (level {l}, {r} rows)"))
            .collect();
        format!("[{}]", parts.join(", "))
    }
    let (sf, nf) = (files(&stock.data_files), files(&native.data_files));
    if sf != nf {
        return Some(format!(
            "data files differ: stock {} vs native {}",
            show(&sf),
            show(&nf)
        ));
    }
    let (sb, nb) = (files(&stock.before_files), files(&native.before_files));
    if sb != nb {
        return Some(format!(
            "before files differ: stock {} vs native {}",
            show(&sb),
            show(&nb)
        ));
    }
    if stock.deletion_files != native.deletion_files {
        return Some(format!(
            "deletion files differ: stock {:?} vs native {:?}",
            stock.deletion_files, native.deletion_files
        ));
    }
    if stock.is_streaming != native.is_streaming {
        return Some(format!(
            "is-streaming differs: stock {} vs native {}",
            stock.is_streaming, native.is_streaming
        ));
    }
    if stock.raw_convertible != native.raw_convertible {
        return Some(format!(
            "raw-convertible differs: stock {} vs native {}",
            stock.raw_convertible, native.raw_convertible
        ));
    }
    if stock.bucket_path.trim_end_matches('/') != native.bucket_path.trim_end_matches('/') {
        return Some(format!(
            "bucket path differs: stock {} vs native {}",
            stock.bucket_path, native.bucket_path
        ));
    }
    None
}

/// The first place where the rows of one split differ.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RowMismatch {
    /// 0-based ordinal of the row within the split.
    pub row: u64,
    /// Name of the differing field (`_row_kind` for a RowKind difference), or `<row>` when one side has no
    /// such row at all.
    pub field: String,
    /// The stock reader's value (rendered; `NULL` for null, strings quoted), or `<none>`.
    pub stock: String,
    /// The native reader's value, rendered the same way, or `<none>`.
    pub native: String,
    /// A unified diff of the neighbouring rows (stock as `-`, native as `+`).
    pub context: String,
}

/// The result of diffing the rows of one split.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RowDiff {
    /// Rows per RowKind the stock reader returned.
    pub stock_rows: RowCounts,
    /// Rows per RowKind the native reader returned.
    pub native_rows: RowCounts,
    /// Rows at the same ordinal that differ in any field, plus rows only one side has.
    pub differing_rows: u64,
    /// The first difference, if any.
    pub first: Option<RowMismatch>,
}

/// An error while reading one side of a split.
#[derive(Debug)]
pub struct ReadFailure {
    /// Which reader failed.
    pub side: Side,
    /// What it said.
    pub error: crate::error::Error,
}

/// Rows of context shown on each side of a mismatch.
pub const CONTEXT_ROWS: usize = 3;

struct Cursor<'a> {
    side: Side,
    batches: Batches<'a>,
    current: Option<RecordBatch>,
    offset: usize,
    counts: RowCounts,
}

impl<'a> Cursor<'a> {
    fn new(side: Side, batches: Batches<'a>) -> Self {
        Cursor {
            side,
            batches,
            current: None,
            offset: 0,
            counts: RowCounts::default(),
        }
    }

    /// Makes sure a batch with unread rows is current; false at the end of the stream.
    fn fill(&mut self) -> std::result::Result<bool, ReadFailure> {
        loop {
            if let Some(b) = &self.current {
                if self.offset < b.num_rows() {
                    return Ok(true);
                }
            }
            match self.batches.next() {
                None => {
                    self.current = None;
                    return Ok(false);
                }
                Some(Err(error)) => {
                    return Err(ReadFailure {
                        side: self.side,
                        error,
                    })
                }
                Some(Ok(b)) => {
                    if let Some(kinds) = b
                        .columns()
                        .first()
                        .and_then(|c| c.as_any().downcast_ref::<Int8Array>())
                    {
                        self.counts.add_kinds(kinds);
                    } else {
                        self.counts.invalid += b.num_rows() as u64;
                    }
                    self.current = Some(b);
                    self.offset = 0;
                }
            }
        }
    }

    fn remaining(&self) -> usize {
        self.current
            .as_ref()
            .map(|b| b.num_rows() - self.offset)
            .unwrap_or(0)
    }

    /// Skips to the end, counting rows; returns how many rows were left.
    fn drain(&mut self) -> std::result::Result<u64, ReadFailure> {
        let mut n = 0u64;
        while self.fill()? {
            n += self.remaining() as u64;
            self.offset = self.current.as_ref().map(|b| b.num_rows()).unwrap_or(0);
        }
        Ok(n)
    }
}

/// Diffs the rows of one split, streaming: both sides are consumed batch by batch.
///
/// Errors: the first read error of either side, with the side named.
pub fn diff_rows(
    stock: Batches<'_>,
    native: Batches<'_>,
) -> std::result::Result<RowDiff, ReadFailure> {
    let mut s = Cursor::new(Side::Stock, stock);
    let mut n = Cursor::new(Side::Native, native);
    let mut diff = RowDiff::default();
    let mut ordinal = 0u64;
    loop {
        let has_s = s.fill()?;
        let has_n = n.fill()?;
        match (has_s, has_n) {
            (false, false) => break,
            (true, false) | (false, true) => {
                let (rest, only) = if has_s {
                    (s.drain()?, Side::Stock)
                } else {
                    (n.drain()?, Side::Native)
                };
                if diff.first.is_none() {
                    diff.first = Some(RowMismatch {
                        row: ordinal,
                        field: "<row>".into(),
                        stock: if only == Side::Stock {
                            format!("{rest} more rows")
                        } else {
                            "<none>".into()
                        },
                        native: if only == Side::Native {
                            format!("{rest} more rows")
                        } else {
                            "<none>".into()
                        },
                        context: format!(
                            "only the {only} reader returns rows from ordinal {ordinal} on"
                        ),
                    });
                }
                diff.differing_rows += rest;
                break;
            }
            (true, true) => {
                let len = s.remaining().min(n.remaining());
                let (Some(sb), Some(nb)) = (&s.current, &n.current) else {
                    break;
                };
                let sc = sb.slice(s.offset, len);
                let nc = nb.slice(n.offset, len);
                let (differing, first) = compare_chunks(&sc, &nc);
                diff.differing_rows += differing;
                if diff.first.is_none() {
                    if let Some((row, col)) = first {
                        diff.first = Some(describe(&sc, &nc, row, col, ordinal));
                    }
                }
                s.offset += len;
                n.offset += len;
                ordinal += len as u64;
            }
        }
    }
    diff.stock_rows = s.counts;
    diff.native_rows = n.counts;
    Ok(diff)
}

/// Per-column equality of two equally long chunks; returns the number of differing rows and the first
/// (row, column) that differs.
fn compare_chunks(stock: &RecordBatch, native: &RecordBatch) -> (u64, Option<(usize, usize)>) {
    let rows = stock.num_rows();
    let columns = stock.num_columns().max(native.num_columns());
    let mut row_ok = vec![true; rows];
    let mut first: Option<(usize, usize)> = None;
    for c in 0..columns {
        let eq = match (stock.columns().get(c), native.columns().get(c)) {
            (Some(l), Some(r)) => column_equal(l, r),
            _ => vec![false; rows],
        };
        for (row, ok) in eq.iter().enumerate() {
            if !ok {
                row_ok[row] = false;
                if first.is_none_or(|(fr, _)| row < fr) {
                    first = Some((row, c));
                }
            }
        }
    }
    let differing = row_ok.iter().filter(|ok| !**ok).count() as u64;
    (differing, first)
}

/// Row-wise equality of two columns under the module's equality rules.
fn column_equal(stock: &ArrayRef, native: &ArrayRef) -> Vec<bool> {
    let rows = stock.len();
    let native = if stock.data_type() == native.data_type() {
        native.clone()
    } else {
        match arrow_cast::cast(native, stock.data_type()) {
            Ok(a) => a,
            Err(_) => return vec![false; rows],
        }
    };
    if let Ok(eq) = arrow_ord::cmp::not_distinct(stock, &native) {
        return bool_vec(&eq);
    }
    match arrow_ord::ord::make_comparator(stock.as_ref(), native.as_ref(), SortOptions::default()) {
        Ok(cmp) => (0..rows)
            .map(|i| cmp(i, i) == std::cmp::Ordering::Equal)
            .collect(),
        Err(_) => vec![false; rows],
    }
}

fn bool_vec(a: &BooleanArray) -> Vec<bool> {
    (0..a.len()).map(|i| a.is_valid(i) && a.value(i)).collect()
}

/// Renders one value: `NULL` for null, strings quoted, everything else as Arrow displays it.
pub fn render_value(array: &dyn Array, row: usize) -> String {
    if array.is_null(row) {
        return "NULL".into();
    }
    let options = FormatOptions::default().with_null("NULL");
    let text = match ArrayFormatter::try_new(array, &options) {
        Ok(f) => f.value(row).to_string(),
        Err(e) => format!("<unprintable: {e}>"),
    };
    match array.data_type() {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => format!("{text:?}"),
        _ => text,
    }
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

fn describe(
    stock: &RecordBatch,
    native: &RecordBatch,
    row: usize,
    column: usize,
    base: u64,
) -> RowMismatch {
    let name_of = |b: &RecordBatch| b.schema().fields().get(column).map(|f| f.name().clone());
    let field = name_of(stock)
        .or_else(|| name_of(native))
        .unwrap_or_else(|| format!("#{column}"));
    let value = |b: &RecordBatch| match b.columns().get(column) {
        Some(c) if column == 0 => {
            let k = c.as_any().downcast_ref::<Int8Array>();
            row_kind_symbol(k.and_then(|k| k.is_valid(row).then(|| k.value(row)))).to_string()
        }
        Some(c) => render_value(c.as_ref(), row),
        None => "<no such column>".into(),
    };
    let from = row.saturating_sub(CONTEXT_ROWS);
    let to = (row + CONTEXT_ROWS + 1).min(stock.num_rows());
    let lines = |b: &RecordBatch| -> String {
        (from..to)
            .map(|r| format!("row {}: {}\n", base + r as u64, render_row(b, r)))
            .collect()
    };
    let (sl, nl) = (lines(stock), lines(native));
    let context = similar::TextDiff::from_lines(&sl, &nl)
        .unified_diff()
        .context_radius(CONTEXT_ROWS)
        .header("stock", "native")
        .to_string();
    RowMismatch {
        row: base + row as u64,
        field,
        stock: value(stock),
        native: value(native),
        context,
    }
}
