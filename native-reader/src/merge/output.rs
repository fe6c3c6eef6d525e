//! Cells (a merged row's fields), the output chunk, and building output batches.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{make_array, ArrayData, MutableArrayData};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, Int8Type};
use arrow_array::{new_null_array, Array, ArrayRef, Int64Array, Int8Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, SchemaRef};

use crate::error::{Error, ErrorKind, Result};
use crate::row_kind::RowKind;
use crate::schema::DataField;
use crate::value::{Datum, ValueError};

use super::loser_tree::tree_bug;
use super::run::Run;
use super::VALUE_OFFSET;

/// A field of a merged row: NULL, a value of an input record (batch `src` of the chunk, `row`), or a
/// computed value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Cell {
    Null,
    Pick { src: usize, row: usize },
    Value(Datum),
}

impl Cell {
    pub(crate) fn is_null(&self) -> bool {
        matches!(self, Cell::Null)
    }
}

/// Output rows: a whole input record, `len` consecutive whole input records of one batch (each with its
/// stored kind, all `+I`/`+U`), or merged cells (one per value column).
pub(crate) enum OutRow {
    Whole {
        src: usize,
        row: usize,
        kind: RowKind,
    },
    Range {
        src: usize,
        start: usize,
        len: usize,
    },
    Cells {
        kind: RowKind,
        cells: Vec<Cell>,
        /// The merged record's `_SEQUENCE_NUMBER` (`KeyValue.sequenceNumber` of the merge function's
        /// result), output only with [`Chunk::with_sequence`].
        seq: i64,
    },
}

impl OutRow {
    /// The number of output rows.
    fn rows(&self) -> usize {
        match self {
            OutRow::Range { len, .. } => *len,
            _ => 1,
        }
    }
}

/// The output batch being built: input batches it references, and its rows.
pub(crate) struct Chunk {
    pub(crate) generation: u64,
    pub(crate) sources: Vec<RecordBatch>,
    rows: Vec<OutRow>,
    /// Output rows in `rows` (a [`OutRow::Range`] counts its length).
    len: usize,
    /// Whether output batches hold `_SEQUENCE_NUMBER` after `_row_kind` ([`output_columns`]).
    with_sequence: bool,
}

impl Chunk {
    /// An empty chunk; its batches hold `_SEQUENCE_NUMBER` after `_row_kind` when `with_sequence`.
    pub(crate) fn new(with_sequence: bool) -> Chunk {
        Chunk {
            generation: 0,
            sources: Vec::new(),
            rows: Vec::new(),
            len: 0,
            with_sequence,
        }
    }

    /// The number of output rows in the chunk.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether output batches hold `_SEQUENCE_NUMBER` after `_row_kind`.
    pub(crate) fn with_sequence(&self) -> bool {
        self.with_sequence
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends output rows (a range of length 0 is not kept).
    pub(crate) fn push(&mut self, row: OutRow) {
        let n = row.rows();
        if n > 0 {
            self.len += n;
            self.rows.push(row);
        }
    }

    /// Builds the output batches of the chunk's rows, in order, and starts a new chunk (buffers kept): each
    /// range of at least [`SLICE_MIN_ROWS`] records goes out as a slice of its source batch, no value copied
    /// ([`slice_batch`]); the rows between such ranges are assembled into one batch ([`build_batch`]).
    /// Batches are never empty and hold at most the chunk's rows; their sizes vary with the ranges.
    ///
    /// Errors: as [`build_batch`].
    pub(crate) fn flush(
        &mut self,
        schema: &SchemaRef,
        fields: &[DataField],
        path: &Path,
    ) -> Result<Vec<RecordBatch>> {
        let sources = &self.sources;
        let with_sequence = self.with_sequence;
        let gather = |rows: &[OutRow], len: usize| -> Result<Option<RecordBatch>> {
            if rows.is_empty() {
                return Ok(None);
            }
            build_batch(schema, fields, sources, rows, len, with_sequence, path).map(Some)
        };
        let mut out = Vec::new();
        let mut from = 0;
        let mut pending = 0;
        for (i, row) in self.rows.iter().enumerate() {
            match row {
                OutRow::Range { src, start, len } if *len >= SLICE_MIN_ROWS => {
                    out.extend(gather(&self.rows[from..i], pending)?);
                    out.push(slice_batch(
                        schema,
                        sources,
                        (*src, *start, *len),
                        with_sequence,
                        path,
                    )?);
                    from = i + 1;
                    pending = 0;
                }
                other => pending += other.rows(),
            }
        }
        out.extend(gather(&self.rows[from..], pending)?);
        self.rows.clear();
        self.sources.clear();
        self.len = 0;
        self.generation += 1;
        Ok(out)
    }

    /// The source index of run `run`'s current batch, registering it on first use.
    pub(crate) fn source_of(&mut self, run: &mut Run) -> Result<usize> {
        if let Some((g, s)) = run.chunk_source {
            if g == self.generation {
                return Ok(s);
            }
        }
        let batch = run
            .current
            .as_ref()
            .map(|c| c.batch.clone())
            .ok_or_else(|| tree_bug(-1))?;
        self.sources.push(batch);
        let s = self.sources.len() - 1;
        run.chunk_source = Some((self.generation, s));
        Ok(s)
    }
}

/// One record of a run, as the merge functions see it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rec {
    pub(crate) run: usize,
    pub(crate) row: usize,
    pub(crate) kind: RowKind,
    /// Its `_SEQUENCE_NUMBER` (`KeyValue.sequenceNumber`).
    pub(crate) seq: i64,
}

/// What merge functions read records through.
pub(crate) struct Ctx<'a> {
    pub(crate) runs: &'a mut [Run],
    pub(crate) chunk: &'a mut Chunk,
    pub(crate) path: &'a Path,
    pub(crate) fields: &'a [DataField],
}

impl Ctx<'_> {
    pub(crate) fn run(&mut self, r: usize) -> Result<&mut Run> {
        self.runs.get_mut(r).ok_or_else(|| tree_bug(r as isize))
    }

    /// The source index of a record's batch.
    pub(crate) fn source(&mut self, rec: Rec) -> Result<usize> {
        let run = self
            .runs
            .get_mut(rec.run)
            .ok_or_else(|| tree_bug(rec.run as isize))?;
        self.chunk.source_of(run)
    }

    /// Field `col` of a record as a cell (NULL or a pick).
    pub(crate) fn field(&mut self, rec: Rec, col: usize) -> Result<Cell> {
        let run = self.run(rec.run)?;
        let null = run
            .current
            .as_ref()
            .map(|c| c.batch.column(col + VALUE_OFFSET).is_null(rec.row))
            .unwrap_or(true);
        if null {
            return Ok(Cell::Null);
        }
        let src = self.source(rec)?;
        Ok(Cell::Pick { src, row: rec.row })
    }

    /// The value of a cell of column `col`, `None` for NULL.
    pub(crate) fn datum(&self, cell: &Cell, col: usize) -> Result<Option<Datum>> {
        match cell {
            Cell::Null => Ok(None),
            Cell::Value(v) => Ok(Some(v.clone())),
            Cell::Pick { src, row } => {
                let batch = self
                    .chunk
                    .sources
                    .get(*src)
                    .ok_or_else(|| tree_bug(*src as isize))?;
                datum_at(batch.column(col + VALUE_OFFSET).as_ref(), *row).map_err(|e| {
                    value_error(
                        ErrorKind::Merge,
                        self.path,
                        format!("column `{}`", self.field_name(col)),
                        e,
                    )
                })
            }
        }
    }

    pub(crate) fn field_name(&self, col: usize) -> &str {
        self.fields.get(col).map_or("?", |f| f.name.as_str())
    }

    pub(crate) fn err(&self, reason: String) -> Error {
        Error::Merge {
            path: self.path.to_path_buf(),
            reason,
        }
    }
}

/// Reads one value of the types aggregate functions and sequence groups compare or compute
/// ([`Datum::from_arrow`], ARRAY, MAP and ROW values whole), `None` for NULL.
pub(crate) fn datum_at(
    array: &dyn Array,
    row: usize,
) -> std::result::Result<Option<Datum>, ValueError> {
    Ok(match Datum::from_arrow(array, row)? {
        Datum::Null => None,
        v => Some(v),
    })
}

/// A [`ValueError`] as the error of `kind` ([`Error::Merge`] or [`Error::Decode`]) on `path`, after
/// `context` (may be empty): an Arrow error stays the source, with the same message.
pub(crate) fn value_error(kind: ErrorKind, path: &Path, context: String, e: ValueError) -> Error {
    match e {
        ValueError::Arrow(a) => Error::library(kind, path, context, a),
        ValueError::Mismatch(m) => {
            let reason = if context.is_empty() {
                m
            } else {
                format!("{context}: {m}")
            };
            match kind {
                ErrorKind::Merge => Error::Merge {
                    path: path.to_path_buf(),
                    reason,
                },
                _ => Error::Decode {
                    path: path.to_path_buf(),
                    reason,
                },
            }
        }
    }
}

/// Ranges of sole keys (see [`OutRow::Range`]) of at least this many records go out as slices of their
/// source batch instead of being copied into an output batch ([`Chunk::flush`]). Below it, a separate batch
/// per range would cost the consumer more per row (a batch's fixed cost, and a row diff's per-batch work)
/// than the copy saves.
pub(crate) const SLICE_MIN_ROWS: usize = 256;

/// The output batch of `len` records of source `src` from `start`: its `_row_kind` (the stored kinds, all
/// `+I`/`+U` in a range) and value columns, sliced (shared buffers, nothing copied).
///
/// Errors: [`Error::Decode`] naming `path` when the source or its columns do not have the output's shape
/// (a bug of the merge, never expected).
fn slice_batch(
    schema: &SchemaRef,
    sources: &[RecordBatch],
    (src, start, len): (usize, usize, usize),
    with_sequence: bool,
    path: &Path,
) -> Result<RecordBatch> {
    let source = sources.get(src).ok_or_else(|| tree_bug(src as isize))?;
    if start + len > source.num_rows() {
        return Err(tree_bug(src as isize));
    }
    let columns: Vec<ArrayRef> = output_columns(source, with_sequence)
        .iter()
        .map(|c| c.slice(start, len))
        .collect();
    RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| Error::library(ErrorKind::Decode, path, "", e))
}

/// The output columns of the records of `batch` (in [`crate::decode::read_file`]'s shape: `_SEQUENCE_NUMBER`,
/// `_row_kind`, then the values): `_row_kind`, `_SEQUENCE_NUMBER` when `with_sequence` (`$audit_log` and
/// `$binlog` with `table-read.sequence-number.enabled`), then the values.
pub(crate) fn output_columns(batch: &RecordBatch, with_sequence: bool) -> Vec<ArrayRef> {
    let columns = batch.columns();
    let mut out: Vec<ArrayRef> = Vec::with_capacity(columns.len());
    out.extend(columns.get(VALUE_OFFSET - 1).cloned());
    if with_sequence {
        out.extend(columns.first().cloned());
    }
    out.extend(columns.iter().skip(VALUE_OFFSET).cloned());
    out
}

/// Pieces of consecutive whole rows averaging fewer rows than this are gathered by `interleave` (one
/// index per row) rather than copied piece by piece with `MutableArrayData`.
const MIN_AVERAGE_PIECE: usize = 4;

/// `(source, first row, rows)` of each piece of consecutive rows of one source in `rows` (whole records and
/// ranges only), in order, adjacent pieces joined.
fn whole_pieces(rows: &[OutRow]) -> Option<Vec<(usize, usize, usize)>> {
    let mut out: Vec<(usize, usize, usize)> = Vec::new();
    for r in rows {
        let (src, row, n) = match r {
            OutRow::Whole { src, row, .. } => (*src, *row, 1),
            OutRow::Range { src, start, len } => (*src, *start, *len),
            OutRow::Cells { .. } => return None,
        };
        match out.last_mut() {
            Some((s, start, len)) if *s == src && *start + *len == row => *len += n,
            _ => out.push((src, row, n)),
        }
    }
    Some(out)
}

/// One output row, ranges expanded.
enum Expanded<'a> {
    Whole { src: usize, row: usize },
    Cells(&'a [Cell]),
}

fn expanded(rows: &[OutRow]) -> impl Iterator<Item = Expanded<'_>> {
    rows.iter().flat_map(|r| {
        let (first, cells, n) = match r {
            OutRow::Whole { src, row, .. } => ((*src, *row), None, 1),
            OutRow::Range { src, start, len } => ((*src, *start), None, *len),
            OutRow::Cells { cells, .. } => ((0, 0), Some(cells.as_slice()), 1),
        };
        (0..n).map(move |i| match cells {
            Some(c) => Expanded::Cells(c),
            None => Expanded::Whole {
                src: first.0,
                row: first.1 + i,
            },
        })
    })
}

/// The `_row_kind` bytes of the `len` output rows: a range's from its source batch.
fn output_kinds(sources: &[RecordBatch], rows: &[OutRow], len: usize) -> Result<Vec<i8>> {
    let mut kinds: Vec<i8> = Vec::with_capacity(len);
    for r in rows {
        match r {
            OutRow::Whole { kind, .. } | OutRow::Cells { kind, .. } => kinds.push(kind.to_byte()),
            OutRow::Range { src, start, len } => {
                let stored = sources
                    .get(*src)
                    .and_then(|b| b.column(VALUE_OFFSET - 1).as_primitive_opt::<Int8Type>())
                    .and_then(|k| k.values().get(*start..*start + *len))
                    .ok_or_else(|| tree_bug(*src as isize))?;
                kinds.extend_from_slice(stored);
            }
        }
    }
    Ok(kinds)
}

/// The `_SEQUENCE_NUMBER`s of the `len` output rows: a whole record's and a range's from its source batch,
/// merged cells' their own.
fn output_sequence_numbers(
    sources: &[RecordBatch],
    rows: &[OutRow],
    len: usize,
) -> Result<Vec<i64>> {
    let stored = |src: usize, start: usize, n: usize| -> Result<&[i64]> {
        sources
            .get(src)
            .and_then(|b| b.column(0).as_primitive_opt::<Int64Type>())
            .and_then(|s| s.values().get(start..start + n))
            .ok_or_else(|| tree_bug(src as isize))
    };
    let mut out: Vec<i64> = Vec::with_capacity(len);
    for r in rows {
        match r {
            OutRow::Whole { src, row, .. } => out.extend_from_slice(stored(*src, *row, 1)?),
            OutRow::Range { src, start, len } => out.extend_from_slice(stored(*src, *start, *len)?),
            OutRow::Cells { seq, .. } => out.push(*seq),
        }
    }
    Ok(out)
}

/// Assembles an output batch of the `len` rows of `rows`: `_row_kind`, `_SEQUENCE_NUMBER` when
/// `with_sequence`, then each value column. When every
/// row is a whole input record, which rows to take is the same for every column: pieces of consecutive rows
/// of one source, copied piece by piece (`MutableArrayData`) when they are long enough on average, else
/// gathered by `interleave`. Columns of merged cells are gathered cell by cell, or built from computed
/// values when a column has any.
pub(crate) fn build_batch(
    schema: &SchemaRef,
    fields: &[DataField],
    sources: &[RecordBatch],
    rows: &[OutRow],
    len: usize,
    with_sequence: bool,
    path: &Path,
) -> Result<RecordBatch> {
    let mut columns: Vec<ArrayRef> =
        vec![Arc::new(Int8Array::from(output_kinds(sources, rows, len)?))];
    if with_sequence {
        columns.push(Arc::new(Int64Array::from(output_sequence_numbers(
            sources, rows, len,
        )?)));
    }
    let pieces = if rows.is_empty() {
        None
    } else {
        whole_pieces(rows)
    };
    let copy_pieces = pieces
        .as_ref()
        .filter(|p| p.len() * MIN_AVERAGE_PIECE <= len);
    let picks: Option<Vec<(usize, usize)>> = match (&pieces, copy_pieces) {
        (Some(p), None) => Some(
            p.iter()
                .flat_map(|(src, start, n)| (*start..*start + *n).map(move |r| (*src, r)))
                .collect(),
        ),
        _ => None,
    };
    let leading = 1 + usize::from(with_sequence);
    for (c, field) in schema.fields().iter().skip(leading).enumerate() {
        if let Some(pieces) = copy_pieces {
            let data: Vec<ArrayData> = sources
                .iter()
                .map(|s| s.column(c + VALUE_OFFSET).to_data())
                .collect();
            let mut out = MutableArrayData::new(data.iter().collect(), false, len);
            for (src, start, n) in pieces {
                out.try_extend(*src, *start, *start + *n)
                    .map_err(|e| Error::library(ErrorKind::Decode, path, "", e))?;
            }
            columns.push(make_array(out.freeze()));
            continue;
        }
        if let Some(picks) = &picks {
            let arrays: Vec<&dyn Array> = sources
                .iter()
                .map(|s| s.column(c + VALUE_OFFSET).as_ref())
                .collect();
            columns.push(
                arrow_select::interleave::interleave(&arrays, picks)
                    .map_err(|e| Error::library(ErrorKind::Decode, path, "", e))?,
            );
            continue;
        }
        let computed = rows.iter().any(|r| {
            matches!(r, OutRow::Cells { cells, .. } if matches!(cells.get(c), Some(Cell::Value(_))))
        });
        let array = if computed {
            let mut values = Vec::with_capacity(len);
            for r in expanded(rows) {
                let cell = match r {
                    Expanded::Whole { src, row } => Cell::Pick { src, row },
                    Expanded::Cells(cells) => cells.get(c).cloned().unwrap_or(Cell::Null),
                };
                values.push(match cell {
                    Cell::Null => None,
                    Cell::Value(v) => Some(v),
                    Cell::Pick { src, row } => {
                        let batch = sources.get(src).ok_or_else(|| tree_bug(src as isize))?;
                        datum_at(batch.column(c + VALUE_OFFSET).as_ref(), row)
                            .map_err(|e| value_error(ErrorKind::Decode, path, String::new(), e))?
                    }
                });
            }
            datums_to_array(field.data_type(), values).map_err(|e| {
                value_error(
                    ErrorKind::Decode,
                    path,
                    format!(
                        "column `{}`",
                        fields.get(c).map_or("?", |f| f.name.as_str())
                    ),
                    e,
                )
            })?
        } else {
            let null = new_null_array(field.data_type(), 1);
            let mut arrays: Vec<&dyn Array> = vec![null.as_ref()];
            for s in sources {
                arrays.push(s.column(c + VALUE_OFFSET).as_ref());
            }
            let indices: Vec<(usize, usize)> = expanded(rows)
                .map(|r| match r {
                    Expanded::Whole { src, row } => (src + 1, row),
                    Expanded::Cells(cells) => match cells.get(c) {
                        Some(Cell::Pick { src, row }) => (src + 1, *row),
                        _ => (0, 0),
                    },
                })
                .collect();
            arrow_select::interleave::interleave(&arrays, &indices)
                .map_err(|e| Error::library(ErrorKind::Decode, path, "", e))?
        };
        columns.push(array);
    }
    RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| Error::library(ErrorKind::Decode, path, "", e))
}

/// An Arrow array of `data_type` from computed values (`None`: NULL), [`Datum::to_arrow`].
pub(crate) fn datums_to_array(
    data_type: &ArrowType,
    values: Vec<Option<Datum>>,
) -> std::result::Result<ArrayRef, ValueError> {
    let values: Vec<Datum> = values
        .into_iter()
        .map(|v| v.unwrap_or(Datum::Null))
        .collect();
    Datum::to_arrow(data_type, &values)
}
