//! Split matching, file-list comparison and the row-by-row diff.
//!
//! Equality rules (they follow what the released reader returns, value for value; see [`value`] for the
//! value-level rules and README "Equality rules"):
//! * rows are compared in order within a split: RowKind first, then every field by position
//!   (`--unordered`: as a multiset, see [`diff_rows_unordered`]);
//! * a column whose name or type differs between the readers differs on every row, and the report names
//!   both types: nothing is cast away (a decimal's scale, a timestamp's unit, an integer's width are
//!   types); only *representations* are unified: dictionary or plain, `Utf8View` / `LargeUtf8` or `Utf8`,
//!   view / large binaries and lists, names and nullability of fields nested in lists and maps;
//! * two NULLs are equal, NULL never equals a value (NULL is not the empty string, nor zero);
//! * floats are equal when their bits are (IEEE-754 total order): `NaN` equals the same `NaN`, one `NaN`
//!   payload differs from another, `0.0` differs from `-0.0`;
//! * strings byte for byte, structs field by field, lists element by element, maps entry by entry in order;
//! * batch boundaries do not matter: both sides are consumed as one stream of rows.
//!
//! When rows first differ, the diff looks one or two rows ahead (within the batches in memory) to tell a
//! changed value from a row only one side has, or two rows swapped; it then realigns past a missing or
//! extra row, so one missing row counts as one differing row.
//!
//! Memory is bounded by one batch per side: the ordered diff never holds a whole split.

mod multiset;
pub mod value;

use std::collections::{HashMap, VecDeque};

use arrow_array::{Array, Int8Array, RecordBatch};
use native_reader::{DataFileDesc, Split, SplitKey};
use serde::Serialize;

use crate::error::{Error, Side};
use crate::reader::Batches;

pub use multiset::{diff_rows_unordered, UNORDERED_SAMPLES};
use value::{column_equality, diff_at, match_columns, rows_equal, Canonical, ColumnMatch};
pub use value::{logical_type, normalize};

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
    /// Both readers planned it (under the same key, or the same files under another key).
    Both(&'a T, &'a T),
    /// Only the stock reader planned this split.
    StockOnly(&'a T),
    /// Only the native reader planned this split.
    NativeOnly(&'a T),
}

/// Pairs of splits matched by (snapshot, partition, bucket). A key planned several times on one side
/// (bin-packed append splits) is matched by its occurrence: the n-th with the n-th.
///
/// A split left unmatched on both sides with the very same (non-empty) list of data files is paired too:
/// the readers planned the same files under another snapshot, partition or bucket, which
/// [`compare_plans`] then names (stock value and native value) instead of reporting two unrelated
/// one-sided splits.
///
/// Order: stock order, then native-only splits in native order.
pub fn match_splits<'a, T>(
    stock: &'a [T],
    native: &'a [T],
    split_of: impl Fn(&T) -> &Split,
) -> Vec<Paired<'a, T>> {
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
    // Second pass: the same files planned under another key.
    let files = |s: &T| -> Vec<String> {
        split_of(s)
            .data_files
            .iter()
            .map(|f| f.file_name.clone())
            .collect()
    };
    let mut native_by_files: HashMap<Vec<String>, VecDeque<usize>> = HashMap::new();
    for (i, n) in native.iter().enumerate() {
        if !used[i] && !split_of(n).data_files.is_empty() {
            native_by_files.entry(files(n)).or_default().push_back(i);
        }
    }
    if !native_by_files.is_empty() {
        for pair in out.iter_mut() {
            if let Paired::StockOnly(s) = *pair {
                if let Some(i) = native_by_files
                    .get_mut(&files(s))
                    .and_then(VecDeque::pop_front)
                {
                    used[i] = true;
                    *pair = Paired::Both(s, &native[i]);
                }
            }
        }
    }
    for (i, n) in native.iter().enumerate() {
        if !used[i] {
            out.push(Paired::NativeOnly(n));
        }
    }
    out
}

fn show_partition(p: &[Option<String>]) -> String {
    let parts: Vec<&str> = p.iter().map(|v| v.as_deref().unwrap_or("NULL")).collect();
    format!("[{}]", parts.join(", "))
}

/// Compares what two readers planned for the same split. `None` when the plans agree; otherwise a sentence
/// naming the first difference with both values: the key (snapshot, partition, bucket) when the same files
/// were planned under another one, the data files (naming the file only one side has), the before files,
/// deletion files, flags, bucket path.
pub fn compare_plans(stock: &Split, native: &Split) -> Option<String> {
    fn files(list: &[DataFileDesc]) -> Vec<(String, i32, i64)> {
        list.iter()
            .map(|f| (f.file_name.clone(), f.level, f.row_count))
            .collect()
    }
    fn show_one((n, l, r): &(String, i32, i64)) -> String {
        format!("{n} (level {l}, {r} rows)")
    }
    fn show(list: &[(String, i32, i64)]) -> String {
        let parts: Vec<String> = list.iter().map(show_one).collect();
        format!("[{}]", parts.join(", "))
    }
    fn what_differs(s: &[(String, i32, i64)], n: &[(String, i32, i64)]) -> String {
        let only = |a: &[(String, i32, i64)], b: &[(String, i32, i64)]| {
            a.iter()
                .filter(|f| !b.iter().any(|g| g.0 == f.0))
                .map(show_one)
                .collect::<Vec<_>>()
        };
        let (only_s, only_n) = (only(s, n), only(n, s));
        let mut parts = Vec::new();
        if !only_s.is_empty() {
            parts.push(format!("{} only in stock", only_s.join(", ")));
        }
        if !only_n.is_empty() {
            parts.push(format!("{} only in native", only_n.join(", ")));
        }
        if parts.is_empty() {
            parts.push("same files in another order, level or row count".into());
        }
        parts.join(", ")
    }
    let (sk, nk) = (stock.key(), native.key());
    if sk != nk {
        let mut parts = Vec::new();
        if sk.snapshot_id != nk.snapshot_id {
            parts.push(format!(
                "snapshot differs: stock {} vs native {}",
                sk.snapshot_id, nk.snapshot_id
            ));
        }
        if sk.partition != nk.partition {
            parts.push(format!(
                "partition differs: stock {} vs native {}",
                show_partition(&sk.partition),
                show_partition(&nk.partition)
            ));
        }
        if sk.bucket != nk.bucket {
            parts.push(format!(
                "bucket differs: stock {} vs native {}",
                sk.bucket, nk.bucket
            ));
        }
        return Some(format!(
            "{} (the native reader planned the same files as {nk})",
            parts.join("; ")
        ));
    }
    let (sf, nf) = (files(&stock.data_files), files(&native.data_files));
    if sf != nf {
        return Some(format!(
            "data files differ: {}; stock {} vs native {}",
            what_differs(&sf, &nf),
            show(&sf),
            show(&nf)
        ));
    }
    let (sb, nb) = (files(&stock.before_files), files(&native.before_files));
    if sb != nb {
        return Some(format!(
            "before files differ: {}; stock {} vs native {}",
            what_differs(&sb, &nb),
            show(&sb),
            show(&nb)
        ));
    }
    if stock.before_deletion_files != native.before_deletion_files {
        return Some(format!(
            "before deletion files differ: stock {:?} vs native {:?}",
            stock.before_deletion_files, native.before_deletion_files
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

/// What kind of difference a [`RowMismatch`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MismatchKind {
    /// The same row position holds a different value in `field` (RowKind included, as `_row_kind`).
    Value,
    /// Column `field` has another name or Arrow type on the two sides (both types are in the values); it
    /// differs on every row.
    Type,
    /// A row the stock reader returns and the native reader does not (`field` is `<row>`).
    Missing,
    /// A row only the native reader returns (`field` is `<row>`).
    Extra,
    /// Two neighbouring rows come in the other order; `field` is the first field where they differ.
    Swapped,
}

/// The first place where the rows of one split differ.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RowMismatch {
    /// 0-based ordinal of the row within the split (for an extra row: its ordinal on the native side; the
    /// two sides agree on every row before it).
    pub row: u64,
    /// Name of the differing field (`_row_kind` for a RowKind difference; `s.a`, `l[2]`, `m[0].key` for a
    /// value nested in column `s`, `l`, `m`), or `<row>` when one side has no such row at all.
    pub field: String,
    /// The stock reader's value (rendered; `NULL` for null, strings quoted; the whole row for `<row>`;
    /// with its Arrow type for a type difference), or `<none>`.
    pub stock: String,
    /// The native reader's value, rendered the same way, or `<none>`.
    pub native: String,
    /// What kind of difference this is.
    pub kind: MismatchKind,
    /// A unified diff of the neighbouring rows (stock as `-`, native as `+`), after a line saying what
    /// differs.
    pub context: String,
}

/// The result of diffing the rows of one split.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RowDiff {
    /// Rows per RowKind the stock reader returned.
    pub stock_rows: RowCounts,
    /// Rows per RowKind the native reader returned.
    pub native_rows: RowCounts,
    /// Rows that differ: changed rows, plus rows only one side has.
    pub differing_rows: u64,
    /// Of `differing_rows`, rows only the stock reader returns.
    pub only_in_stock: u64,
    /// Of `differing_rows`, rows only the native reader returns.
    pub only_in_native: u64,
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

/// At most this many differing rows per split are examined for a missing, extra or swapped row (the rest
/// are counted as changed at their ordinal).
pub const MAX_CLASSIFIED: usize = 4096;

/// At most this many missing or extra rows per split are realigned past.
pub const MAX_REALIGNED: usize = 256;

struct Cursor<'a> {
    side: Side,
    batches: Batches<'a>,
    current: Option<Canonical>,
    offset: usize,
    /// Ordinal of row 0 of `current` within the split.
    batch_start: u64,
    counts: RowCounts,
}

impl<'a> Cursor<'a> {
    fn new(side: Side, batches: Batches<'a>) -> Self {
        Cursor {
            side,
            batches,
            current: None,
            offset: 0,
            batch_start: 0,
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
            if let Some(b) = self.current.take() {
                self.batch_start += b.num_rows() as u64;
            }
            self.offset = 0;
            match self.batches.next() {
                None => return Ok(false),
                Some(Err(error)) => {
                    return Err(ReadFailure {
                        side: self.side,
                        error,
                    })
                }
                Some(Ok(b)) => {
                    count_kinds(&mut self.counts, &b);
                    self.current = Some(canonical(self.side, &b)?);
                }
            }
        }
    }

    /// The ordinal of the next unread row.
    fn ordinal(&self) -> u64 {
        self.batch_start + self.offset as u64
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

/// Adds the RowKinds of a batch as the reader returned it (`_row_kind` Int8 first).
pub(crate) fn count_kinds(counts: &mut RowCounts, batch: &RecordBatch) {
    if let Some(kinds) = batch
        .columns()
        .first()
        .and_then(|c| c.as_any().downcast_ref::<Int8Array>())
    {
        counts.add_kinds(kinds);
    } else {
        counts.invalid += batch.num_rows() as u64;
    }
}

/// The canonical form of a batch a reader returned.
pub(crate) fn canonical(
    side: Side,
    batch: &RecordBatch,
) -> std::result::Result<Canonical, ReadFailure> {
    Canonical::new(batch).map_err(|e| ReadFailure {
        side,
        error: Error::Compare(format!("{side} batch cannot be normalized: {e}")),
    })
}

/// Diffs the rows of one split: in order ([`diff_rows`]) or, with `unordered`, as a multiset
/// ([`diff_rows_unordered`]).
pub fn diff_split(
    stock: Batches<'_>,
    native: Batches<'_>,
    unordered: bool,
) -> std::result::Result<RowDiff, ReadFailure> {
    if unordered {
        diff_rows_unordered(stock, native)
    } else {
        diff_rows(stock, native)
    }
}

/// Diffs the rows of one split in order, streaming: both sides are consumed batch by batch, so memory is
/// bounded by one batch per side.
///
/// Errors: the first read error of either side, with the side named.
pub fn diff_rows(
    stock: Batches<'_>,
    native: Batches<'_>,
) -> std::result::Result<RowDiff, ReadFailure> {
    let mut s = Cursor::new(Side::Stock, stock);
    let mut n = Cursor::new(Side::Native, native);
    let mut diff = RowDiff::default();
    let mut classify_budget = MAX_CLASSIFIED;
    let mut realign_budget = MAX_REALIGNED;
    loop {
        let has_s = s.fill()?;
        let has_n = n.fill()?;
        match (has_s, has_n) {
            (false, false) => break,
            (true, false) | (false, true) => {
                let (only, cursor) = if has_s {
                    (Side::Stock, &mut s)
                } else {
                    (Side::Native, &mut n)
                };
                let first = match (&diff.first, &cursor.current) {
                    (None, Some(c)) => Some((
                        cursor.ordinal(),
                        render_row(&c.batch, cursor.offset),
                        rows_text(c, cursor.offset, cursor.batch_start),
                    )),
                    _ => None,
                };
                let rest = cursor.drain()?;
                if let Some((ordinal, row, rows)) = first {
                    let (kind, stock_value, native_value) = match only {
                        Side::Stock => (MismatchKind::Missing, row, "<none>".to_string()),
                        Side::Native => (MismatchKind::Extra, "<none>".to_string(), row),
                    };
                    diff.first = Some(RowMismatch {
                        row: ordinal,
                        field: "<row>".into(),
                        stock: stock_value,
                        native: native_value,
                        kind,
                        context: format!(
                            "only the {only} reader returns rows from ordinal {ordinal} on ({rest} rows), the first:\n{rows}"
                        ),
                    });
                }
                diff.differing_rows += rest;
                match only {
                    Side::Stock => diff.only_in_stock += rest,
                    Side::Native => diff.only_in_native += rest,
                }
                break;
            }
            (true, true) => {
                let (Some(sb), Some(nb)) = (&s.current, &n.current) else {
                    break;
                };
                let len = s.remaining().min(n.remaining());
                let columns = match_columns(sb, nb);
                let sc = sb.batch.slice(s.offset, len);
                let nc = nb.batch.slice(n.offset, len);
                let equality: Vec<Option<Vec<bool>>> = columns
                    .iter()
                    .enumerate()
                    .map(
                        |(c, m)| match (m, sc.columns().get(c), nc.columns().get(c)) {
                            (ColumnMatch::Comparable, Some(a), Some(b)) => column_equality(a, b),
                            _ => Some(vec![false; len]),
                        },
                    )
                    .collect();
                if equality.iter().all(Option::is_none) {
                    s.offset += len;
                    n.offset += len;
                    continue;
                }
                let type_difference = columns.contains(&ColumnMatch::Differs);
                let first_column = |r: usize| {
                    equality
                        .iter()
                        .position(|e| e.as_ref().is_some_and(|flags| !flags[r]))
                };
                let mut shift: Option<(usize, Side)> = None;
                for r in 0..len {
                    let Some(column) = first_column(r) else {
                        continue;
                    };
                    let (si, ni) = (s.offset + r, n.offset + r);
                    // With a column of another type no row can equal another: no classification (and
                    // `describe_field` reports the type for that column).
                    let mut kind = if type_difference {
                        MismatchKind::Value
                    } else if classify_budget > 0 {
                        classify_budget -= 1;
                        classify(&sb.batch, si, &nb.batch, ni)
                    } else {
                        MismatchKind::Value
                    };
                    match kind {
                        MismatchKind::Missing | MismatchKind::Extra if realign_budget > 0 => {
                            let only = if kind == MismatchKind::Missing {
                                Side::Stock
                            } else {
                                Side::Native
                            };
                            shift = Some((r, only));
                            break;
                        }
                        MismatchKind::Missing | MismatchKind::Extra => kind = MismatchKind::Value,
                        _ => {}
                    }
                    diff.differing_rows += 1;
                    if diff.first.is_none() {
                        let at = Position {
                            stock: sb,
                            si,
                            stock_start: s.batch_start,
                            native: nb,
                            ni,
                            native_start: n.batch_start,
                        };
                        diff.first = Some(describe_field(&at, column, kind, &columns));
                    }
                }
                match shift {
                    None => {
                        s.offset += len;
                        n.offset += len;
                    }
                    Some((r, only)) => {
                        realign_budget -= 1;
                        diff.differing_rows += 1;
                        if diff.first.is_none() {
                            let at = Position {
                                stock: sb,
                                si: s.offset + r,
                                stock_start: s.batch_start,
                                native: nb,
                                ni: n.offset + r,
                                native_start: n.batch_start,
                            };
                            diff.first = Some(describe_one_sided(&at, only));
                        }
                        match only {
                            Side::Stock => {
                                diff.only_in_stock += 1;
                                s.offset += r + 1;
                                n.offset += r;
                            }
                            Side::Native => {
                                diff.only_in_native += 1;
                                s.offset += r;
                                n.offset += r + 1;
                            }
                        }
                    }
                }
            }
        }
    }
    diff.stock_rows = s.counts;
    diff.native_rows = n.counts;
    Ok(diff)
}

/// Looks one or two rows ahead of the first differing row pair (`stock` row `si`, `native` row `ni`) to tell
/// a missing, an extra or a swapped row from a changed value.
fn classify(stock: &RecordBatch, si: usize, native: &RecordBatch, ni: usize) -> MismatchKind {
    let (sl, nl) = (stock.num_rows() - si, native.num_rows() - ni);
    let have = |a: usize, b: usize| a < sl && b < nl;
    let eq = |a: usize, b: usize| have(a, b) && rows_equal(stock, si + a, native, ni + b);
    if eq(0, 1) && eq(1, 0) {
        MismatchKind::Swapped
    } else if eq(1, 0) && (!have(2, 1) || eq(2, 1)) {
        MismatchKind::Missing
    } else if eq(0, 1) && (!have(1, 2) || eq(1, 2)) {
        MismatchKind::Extra
    } else {
        MismatchKind::Value
    }
}

/// A row pair in the current batches.
struct Position<'b> {
    stock: &'b Canonical,
    si: usize,
    stock_start: u64,
    native: &'b Canonical,
    ni: usize,
    native_start: u64,
}

fn describe_field(
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

fn describe_one_sided(at: &Position<'_>, only: Side) -> RowMismatch {
    let rows = rows_context(at);
    let (row, kind, stock, native) = match only {
        Side::Stock => (
            at.stock_start + at.si as u64,
            MismatchKind::Missing,
            render_row(&at.stock.batch, at.si),
            "<none>".to_string(),
        ),
        Side::Native => (
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
fn rows_text(c: &Canonical, from: usize, batch_start: u64) -> String {
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
