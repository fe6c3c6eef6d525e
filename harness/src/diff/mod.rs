//! Split matching, file-list comparison and the row-by-row diff.
//!
//! Equality rules (they follow what the released reader returns, value for value; see [`value`] for the
//! value-level rules and docs/src/concepts/equality-rules.md):
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

mod counts;
mod describe;
mod multiset;
mod plans;
mod render;
mod rows;
pub mod value;

use serde::Serialize;

use crate::error::Side;
use crate::reader::Batches;

pub(crate) use counts::count_kinds;
pub use counts::RowCounts;
pub use multiset::{
    diff_multiset, diff_rows_unordered, DEFAULT_UNORDERED_MEMORY, UNORDERED_SAMPLES,
};
pub use plans::{compare_plans, match_splits, Paired};
pub use render::{render_row, render_value, row_kind_symbol};
pub(crate) use rows::canonical;
pub use rows::diff_rows;
pub use value::{json_row, json_value, logical_type, normalize};

/// What kind of difference a [`RowMismatch`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
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
/// How the rows of a split are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowOrder {
    /// Row by row, in order ([`diff_rows`]).
    InOrder,
    /// As a multiset (`--unordered`, [`diff_multiset`]), holding at most `memory_limit` bytes of rows not
    /// yet matched before spilling them (`--unordered-memory`).
    Multiset {
        /// Bytes; [`DEFAULT_UNORDERED_MEMORY`] by default.
        memory_limit: usize,
    },
}

/// Diffs the rows of one split: in order ([`diff_rows`]) or as a multiset ([`diff_multiset`]).
pub fn diff_split(
    stock: Batches<'_>,
    native: Batches<'_>,
    order: RowOrder,
) -> Result<RowDiff, ReadFailure> {
    match order {
        RowOrder::InOrder => diff_rows(stock, native),
        RowOrder::Multiset { memory_limit } => {
            diff_multiset(stock, native, memory_limit).map(|(diff, _)| diff)
        }
    }
}
