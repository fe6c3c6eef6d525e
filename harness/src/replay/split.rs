//! One matched split pair: the plan comparison, the row diff, and the words for a side that failed.

use std::path::Path;

use arrow_array::RecordBatch;
use native_reader::Split;

use crate::diff::{compare_plans, diff_split, Paired, RowCounts, RowOrder};
use crate::error::{Error, ExternalFailure, Result, Side};
use crate::reader::{Batches, PlannedSplit, TableReader};

use super::{FirstDifference, SplitReport, SplitVerdict};

pub(super) fn first_difference_of(report: &SplitReport, reader: &str) -> Option<FirstDifference> {
    let (kind, detail) = match report.verdict {
        SplitVerdict::Identical
        | SplitVerdict::Unreadable
        | SplitVerdict::ReaderError
        | SplitVerdict::Unsupported => return None,
        SplitVerdict::DiffersPlanning => ("planning", report.detail.clone().unwrap_or_default()),
        SplitVerdict::OnlyInStock => (
            "planning",
            "only the stock reader planned this split".into(),
        ),
        SplitVerdict::OnlyInNative => (
            "planning",
            format!("only the {reader} reader planned this split"),
        ),
        SplitVerdict::DiffersDecoding => (
            "decoding",
            report
                .first_mismatch
                .as_ref()
                .map(|m| {
                    format!(
                        "row {}, field {}: stock {} vs {reader} {}",
                        m.row, m.field, m.stock, m.native
                    )
                })
                .unwrap_or_default(),
        ),
    };
    Some(FirstDifference {
        kind,
        split: report.key.clone(),
        detail,
    })
}

/// The error of a replay whose planning failed on at least one side: the failing side's error (the native
/// one when both fail) and what the other side did, its own error or the splits it planned.
pub(super) fn plan_failure(
    stock: Result<Vec<PlannedSplit>>,
    native: Result<Vec<PlannedSplit>>,
    end: i64,
) -> Error {
    let accepts = |side: Side, splits: &[PlannedSplit]| {
        format!(
            "the {side} reader plans the table without error ({} splits up to snapshot {end})",
            splits.len()
        )
    };
    let (failed, other) = match (native, stock) {
        (Err(n), Err(s)) => (n, side_error(Side::Stock, &s)),
        (Err(n), Ok(s)) => (n, accepts(Side::Stock, &s)),
        (Ok(n), Err(s)) => (s, accepts(Side::Native, &n)),
        (Ok(n), Ok(s)) => {
            return Error::Scenario(format!(
                "internal: plan_failure called with two plans ({} and {} splits)",
                n.len(),
                s.len()
            ))
        }
    };
    Error::Plan {
        failed: Box::new(failed),
        other,
    }
}

/// The verdict of a split a reader failed on: an external reader's own failure is its `reader error` or
/// `unsupported`; any other failure makes the split `unreadable`.
fn failed_verdict(e: &Error) -> SplitVerdict {
    match e {
        Error::External {
            kind: ExternalFailure::Unsupported,
            ..
        } => SplitVerdict::Unsupported,
        Error::External { .. } => SplitVerdict::ReaderError,
        _ => SplitVerdict::Unreadable,
    }
}

/// `<side> reader: <error>`, without repeating the side when the error already names it.
pub(super) fn side_error(side: Side, e: &Error) -> String {
    match e {
        Error::Native(_) | Error::Stock(_) | Error::Plan { .. } | Error::External { .. } => {
            e.to_string()
        }
        other => format!("{side} reader: {other}"),
    }
}

/// The error of the reader that failed on a split, followed by what the other reader does with the same
/// split (its rows, or its own error), so that a split one reader rejects and the other reads is said to
/// be so.
pub(super) fn unreadable_detail(
    table: &Path,
    failed: Side,
    error: &Error,
    other: &dyn TableReader,
    other_split: &PlannedSplit,
) -> String {
    let outcome = match read_counts(table, other, other_split) {
        Ok(c) => format!("the {} reader reads the split ({c})", other.side()),
        Err(e) => side_error(other.side(), &e),
    };
    format!("{}; {outcome}", side_error(failed, error))
}

pub(super) fn read_counts(
    table: &Path,
    reader: &dyn TableReader,
    split: &PlannedSplit,
) -> Result<RowCounts> {
    let mut counts = RowCounts::default();
    for batch in reader.read_split(table, split)? {
        let batch = batch?;
        if let Some(k) = batch
            .columns()
            .first()
            .and_then(|c| c.as_any().downcast_ref::<arrow_array::Int8Array>())
        {
            counts.add_kinds(k);
        }
    }
    Ok(counts)
}

pub(super) fn compare_pair(
    table: &Path,
    stock: &dyn TableReader,
    native: &dyn TableReader,
    pair: Paired<'_, PlannedSplit>,
    order: RowOrder,
) -> SplitReport {
    let any: &Split = match pair {
        Paired::Both(s, _) | Paired::StockOnly(s) => &s.split,
        Paired::NativeOnly(n) => &n.split,
    };
    let mut report = SplitReport {
        position: 0,
        key: any.key(),
        verdict: SplitVerdict::Identical,
        files: any.data_files.len(),
        stock_rows: None,
        native_rows: None,
        differing_rows: 0,
        detail: None,
        first_mismatch: None,
    };
    let one_sided =
        |reader: &dyn TableReader, p: &PlannedSplit, report: &mut SplitReport| match read_counts(
            table, reader, p,
        ) {
            Ok(c) => {
                if reader.side() == Side::Stock {
                    report.stock_rows = Some(c);
                } else {
                    report.native_rows = Some(c);
                }
            }
            Err(e) => {
                report.verdict = failed_verdict(&e);
                report.detail = Some(side_error(reader.side(), &e));
            }
        };
    match pair {
        Paired::StockOnly(s) => {
            report.verdict = SplitVerdict::OnlyInStock;
            one_sided(stock, s, &mut report);
        }
        Paired::NativeOnly(n) => {
            report.verdict = SplitVerdict::OnlyInNative;
            one_sided(native, n, &mut report);
        }
        Paired::Both(s, n) => {
            if let Some(why) = compare_plans(&s.split, &n.split) {
                report.verdict = SplitVerdict::DiffersPlanning;
                // `compare_plans` names the sides stock and native; an external reader by its name.
                let why = match native.side() {
                    Side::External(name) => why
                        .replace("vs native ", &format!("vs {name} "))
                        .replace("only in native", &format!("only in {name}")),
                    _ => why,
                };
                report.detail = Some(why);
                return report;
            }
            let batches = stock
                .read_split(table, s)
                .map_err(|e| (Side::Stock, e))
                .and_then(|sb| {
                    native
                        .read_split(table, n)
                        .map(|nb| (sb, nb))
                        .map_err(|e| (Side::Native, e))
                });
            // The reader that did not fail, and its split.
            let other = |failed: Side| -> (&dyn TableReader, &PlannedSplit) {
                if failed == Side::Stock {
                    (native, n)
                } else {
                    (stock, s)
                }
            };
            match batches {
                Err((side, e)) => {
                    report.verdict = failed_verdict(&e);
                    if side == Side::Stock {
                        let (reader, split) = other(side);
                        report.detail = Some(unreadable_detail(table, side, &e, reader, split));
                    } else {
                        // The compared reader failed: the released reader's rows still count as evidence.
                        let outcome = match read_counts(table, stock, s) {
                            Ok(c) => {
                                report.stock_rows = Some(c);
                                format!("the {} reader reads the split ({c})", Side::Stock)
                            }
                            Err(e) => side_error(Side::Stock, &e),
                        };
                        report.detail = Some(format!("{}; {outcome}", side_error(side, &e)));
                    }
                }
                Ok((sb, nb)) => match diff_split(sb, nb, order) {
                    Err(f) => {
                        report.verdict = failed_verdict(&f.error);
                        let (reader, split) = other(f.side);
                        report.detail =
                            Some(unreadable_detail(table, f.side, &f.error, reader, split));
                    }
                    Ok(d) => {
                        report.stock_rows = Some(d.stock_rows);
                        report.native_rows = Some(d.native_rows);
                        report.differing_rows = d.differing_rows;
                        if d.first.is_some() || d.differing_rows > 0 {
                            report.verdict = SplitVerdict::DiffersDecoding;
                        }
                        report.first_mismatch = d.first;
                    }
                },
            }
        }
    }
    report
}

/// What a reading thread hands back for one pair: the whole comparison (readers that can be read from any
/// thread), or the released reader's batches read ahead for a comparison on the replay's thread.
pub(super) enum Ahead {
    /// The pair compared on the reading thread.
    Compared(SplitReport),
    /// The released reader's side, read ahead.
    Read(Prefetched),
}

impl Ahead {
    /// Bytes held while waiting for the replay's thread (Arrow buffers of the batches read ahead).
    pub(super) fn bytes(&self) -> usize {
        match self {
            Ahead::Compared(_) => 0,
            Ahead::Read(p) => p.bytes,
        }
    }
}

/// The released reader's batches of one split, read ahead of the comparison.
pub(super) struct Prefetched {
    /// The split they are of; `None` when nothing was read ahead (a planning difference, a native-only
    /// split, or the released reader failed: the comparison reads, and reports, it again).
    split: Option<Split>,
    batches: Vec<RecordBatch>,
    bytes: usize,
}

/// Reads the released reader's side of `pair` ahead of its comparison when the comparison will read it
/// (a pair with the same files, or a split only the released reader planned).
pub(super) fn prefetch_stock(
    table: &Path,
    stock: &dyn TableReader,
    pair: Paired<'_, PlannedSplit>,
) -> Prefetched {
    let nothing = Prefetched {
        split: None,
        batches: Vec::new(),
        bytes: 0,
    };
    let s = match pair {
        Paired::Both(s, n) if compare_plans(&s.split, &n.split).is_none() => s,
        Paired::StockOnly(s) => s,
        _ => return nothing,
    };
    let read = stock
        .read_split(table, s)
        .and_then(|batches| batches.collect::<Result<Vec<RecordBatch>>>());
    match read {
        Ok(batches) => Prefetched {
            split: Some(s.split.clone()),
            bytes: batches.iter().map(RecordBatch::get_array_memory_size).sum(),
            batches,
        },
        Err(_) => nothing,
    }
}

impl Prefetched {
    /// The released reader with this split's batches already in hand: reading the split again returns
    /// them (once per read, as clones of the same buffers); any other split is read by `stock` itself.
    pub(super) fn reader<'r>(self, stock: &'r dyn TableReader) -> PrefetchedReader<'r> {
        PrefetchedReader {
            inner: stock,
            ahead: self,
        }
    }
}

/// See [`Prefetched::reader`].
pub(super) struct PrefetchedReader<'r> {
    inner: &'r dyn TableReader,
    ahead: Prefetched,
}

impl TableReader for PrefetchedReader<'_> {
    fn side(&self) -> Side {
        self.inner.side()
    }

    fn plan_stream(
        &self,
        table: &Path,
        from_snapshot: i64,
        end_snapshot: i64,
    ) -> Result<Vec<PlannedSplit>> {
        self.inner.plan_stream(table, from_snapshot, end_snapshot)
    }

    fn read_split<'a>(&'a self, table: &Path, split: &'a PlannedSplit) -> Result<Batches<'a>> {
        if self.ahead.split.as_ref() == Some(&split.split) {
            return Ok(Box::new(self.ahead.batches.clone().into_iter().map(Ok)));
        }
        self.inner.read_split(table, split)
    }
}
