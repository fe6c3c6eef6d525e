//! The ordered, streaming row diff of one split: cursors over both sides, realignment past a missing or
//! extra row, classification of the first difference.

use arrow_array::RecordBatch;

use super::counts::count_kinds;
use super::describe::{describe_field, describe_one_sided, rows_text, Position};
use super::render::render_row;
use super::value::{column_equality, match_columns, rows_equal, Canonical, ColumnMatch};
use super::{
    MismatchKind, ReadFailure, RowCounts, RowDiff, RowMismatch, MAX_CLASSIFIED, MAX_REALIGNED,
};
use crate::error::{Error, Side};
use crate::reader::Batches;

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
    fn fill(&mut self) -> Result<bool, ReadFailure> {
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
    fn drain(&mut self) -> Result<u64, ReadFailure> {
        let mut n = 0u64;
        while self.fill()? {
            n += self.remaining() as u64;
            self.offset = self.current.as_ref().map(|b| b.num_rows()).unwrap_or(0);
        }
        Ok(n)
    }
}

pub(crate) fn canonical(side: Side, batch: &RecordBatch) -> Result<Canonical, ReadFailure> {
    Canonical::new(batch).map_err(|e| ReadFailure {
        side,
        error: Error::CompareSource {
            context: format!("{side} batch cannot be normalized"),
            source: e.into(),
        },
    })
}

/// Diffs the rows of one split in order, streaming: both sides are consumed batch by batch, so memory is
/// bounded by one batch per side.
///
/// Errors: the first read error of either side, with the side named.
pub fn diff_rows(stock: Batches<'_>, native: Batches<'_>) -> Result<RowDiff, ReadFailure> {
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
                        Side::Native | Side::External(_) => {
                            (MismatchKind::Extra, "<none>".to_string(), row)
                        }
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
                    Side::Native | Side::External(_) => diff.only_in_native += rest,
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
                            Side::Native | Side::External(_) => {
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
