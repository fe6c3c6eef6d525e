//! Values, cells and the output chunk; building output batches.

use std::cmp::Ordering;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{
    new_null_array, Array, ArrayRef, BinaryArray, BooleanArray, Decimal128Array, Float32Array,
    Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, RecordBatch, StringArray,
};
use arrow_schema::{DataType as ArrowType, SchemaRef};

use crate::aggregate::val::Val;
use crate::error::{Error, ErrorKind, Result};
use crate::row_kind::RowKind;
use crate::schema::DataField;

use super::loser_tree::tree_bug;
use super::run::Run;
use super::VALUE_OFFSET;

/// A non-null value computed by an aggregate function (integers of every width, dates and times as `Int`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f32),
    Double(f64),
    Decimal(i128),
    Str(String),
    Bytes(Vec<u8>),
    /// An ARRAY, MAP or ROW value (collection aggregate functions).
    Nested(Val),
}

/// A field of a merged row: NULL, a value of an input record (batch `src` of the chunk, `row`), or a
/// computed value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Cell {
    Null,
    Pick { src: usize, row: usize },
    Value(Scalar),
}

impl Cell {
    pub(crate) fn is_null(&self) -> bool {
        matches!(self, Cell::Null)
    }
}

/// An output row: a whole input record, or merged cells (one per value column).
pub(crate) enum OutRow {
    Whole {
        src: usize,
        row: usize,
        kind: RowKind,
    },
    Cells {
        kind: RowKind,
        cells: Vec<Cell>,
    },
}

/// The output batch being built: input batches it references, and its rows.
pub(crate) struct Chunk {
    pub(crate) generation: u64,
    pub(crate) sources: Vec<RecordBatch>,
    pub(crate) rows: Vec<OutRow>,
}

impl Chunk {
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
    pub(crate) fn scalar(&self, cell: &Cell, col: usize) -> Result<Option<Scalar>> {
        match cell {
            Cell::Null => Ok(None),
            Cell::Value(v) => Ok(Some(v.clone())),
            Cell::Pick { src, row } => {
                let batch = self
                    .chunk
                    .sources
                    .get(*src)
                    .ok_or_else(|| tree_bug(*src as isize))?;
                scalar_at(batch.column(col + VALUE_OFFSET).as_ref(), *row).map_err(|reason| {
                    Error::Merge {
                        path: self.path.to_path_buf(),
                        reason: format!("column `{}`: {reason}", self.field_name(col)),
                    }
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

/// Reads one non-null value of the types aggregate functions and sequence groups compare or compute
/// ([`Val::from_arrow`], with ARRAY, MAP and ROW values kept whole as [`Scalar::Nested`]).
pub(crate) fn scalar_at(
    array: &dyn Array,
    row: usize,
) -> std::result::Result<Option<Scalar>, String> {
    Ok(Some(match Val::from_arrow(array, row)? {
        Val::Null => return Ok(None),
        Val::Bool(b) => Scalar::Bool(b),
        Val::Int(i) => Scalar::Int(i),
        Val::Float(f) => Scalar::Float(f),
        Val::Double(d) => Scalar::Double(d),
        Val::Decimal(d) => Scalar::Decimal(d),
        Val::Str(s) => Scalar::Str(s),
        Val::Bytes(b) => Scalar::Bytes(b),
        nested @ (Val::List(_) | Val::Map(_) | Val::Row(_)) => Scalar::Nested(nested),
    }))
}

/// `InternalRowUtils.compare` (aggregate `max`/`min`): `Float/Double.compare` for floating point (NaN
/// largest, -0.0 < 0.0); BOOLEAN and nested types are incomparable (an error, as in Java).
pub(crate) fn compare_internal(a: &Scalar, b: &Scalar) -> std::result::Result<Ordering, String> {
    Ok(match (a, b) {
        (Scalar::Int(x), Scalar::Int(y)) => x.cmp(y),
        (Scalar::Float(x), Scalar::Float(y)) => java_float_compare(*x as f64, *y as f64),
        (Scalar::Double(x), Scalar::Double(y)) => java_float_compare(*x, *y),
        (Scalar::Decimal(x), Scalar::Decimal(y)) => x.cmp(y),
        (Scalar::Str(x), Scalar::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Scalar::Bytes(x), Scalar::Bytes(y)) => x.cmp(y),
        (Scalar::Bool(_), _) => return Err("Incomparable type: BOOLEAN".into()),
        _ => return Err("values of different types".into()),
    })
}

/// Java `Double.compare`: total order with NaN largest and -0.0 below 0.0.
pub(crate) fn java_float_compare(x: f64, y: f64) -> Ordering {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => x.total_cmp(&y),
    }
}

/// The generated `RecordComparator`'s per-field order (sequence groups): `<`/`>` for numbers,
/// `false < true`, bytes for strings and binaries.
pub(crate) fn compare_codegen(a: &Scalar, b: &Scalar) -> Ordering {
    pub(crate) fn partial<T: PartialOrd>(x: T, y: T) -> Ordering {
        if x > y {
            Ordering::Greater
        } else if x < y {
            Ordering::Less
        } else {
            Ordering::Equal
        }
    }
    match (a, b) {
        (Scalar::Bool(x), Scalar::Bool(y)) => x.cmp(y),
        (Scalar::Int(x), Scalar::Int(y)) => x.cmp(y),
        (Scalar::Float(x), Scalar::Float(y)) => partial(x, y),
        (Scalar::Double(x), Scalar::Double(y)) => partial(x, y),
        (Scalar::Decimal(x), Scalar::Decimal(y)) => x.cmp(y),
        (Scalar::Str(x), Scalar::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Scalar::Bytes(x), Scalar::Bytes(y)) => x.cmp(y),
        _ => Ordering::Equal,
    }
}

/// Assembles an output batch: `_row_kind`, then each value column by `interleave` of the picked input
/// values, or from computed values when a column has any.
pub(crate) fn build_batch(
    schema: &SchemaRef,
    fields: &[DataField],
    sources: &[RecordBatch],
    rows: &[OutRow],
    path: &Path,
) -> Result<RecordBatch> {
    let err = |reason: String| Error::Decode {
        path: path.to_path_buf(),
        reason,
    };
    let kinds: Vec<i8> = rows
        .iter()
        .map(|r| match r {
            OutRow::Whole { kind, .. } | OutRow::Cells { kind, .. } => kind.to_byte(),
        })
        .collect();
    let mut columns: Vec<ArrayRef> = vec![Arc::new(Int8Array::from(kinds))];
    for (c, field) in schema.fields().iter().skip(1).enumerate() {
        let computed = rows.iter().any(|r| {
            matches!(r, OutRow::Cells { cells, .. } if matches!(cells.get(c), Some(Cell::Value(_))))
        });
        let array = if computed {
            let mut values = Vec::with_capacity(rows.len());
            for r in rows {
                let cell = match r {
                    OutRow::Whole { src, row, .. } => Cell::Pick {
                        src: *src,
                        row: *row,
                    },
                    OutRow::Cells { cells, .. } => cells.get(c).cloned().unwrap_or(Cell::Null),
                };
                values.push(match cell {
                    Cell::Null => None,
                    Cell::Value(v) => Some(v),
                    Cell::Pick { src, row } => {
                        let batch = sources.get(src).ok_or_else(|| tree_bug(src as isize))?;
                        scalar_at(batch.column(c + VALUE_OFFSET).as_ref(), row).map_err(&err)?
                    }
                });
            }
            scalars_to_array(field.data_type(), values).map_err(|e| {
                err(format!(
                    "column `{}`: {e}",
                    fields.get(c).map_or("?", |f| f.name.as_str())
                ))
            })?
        } else {
            let null = new_null_array(field.data_type(), 1);
            let mut arrays: Vec<&dyn Array> = vec![null.as_ref()];
            for s in sources {
                arrays.push(s.column(c + VALUE_OFFSET).as_ref());
            }
            let indices: Vec<(usize, usize)> = rows
                .iter()
                .map(|r| match r {
                    OutRow::Whole { src, row, .. } => (src + 1, *row),
                    OutRow::Cells { cells, .. } => match cells.get(c) {
                        Some(Cell::Pick { src, row }) => (src + 1, *row),
                        _ => (0, 0),
                    },
                })
                .collect();
            arrow_select::interleave::interleave(&arrays, &indices)
                .map_err(|e| err(e.to_string()))?
        };
        columns.push(array);
    }
    RecordBatch::try_new(schema.clone(), columns).map_err(|e| err(e.to_string()))
}

/// An Arrow array of `data_type` from computed values.
pub(crate) fn scalars_to_array(
    data_type: &ArrowType,
    values: Vec<Option<Scalar>>,
) -> std::result::Result<ArrayRef, String> {
    pub(crate) fn ints(values: &[Option<Scalar>]) -> std::result::Result<Vec<Option<i64>>, String> {
        values
            .iter()
            .map(|v| match v {
                None => Ok(None),
                Some(Scalar::Int(i)) => Ok(Some(*i)),
                Some(other) => Err(format!("{other:?} is not an integer")),
            })
            .collect()
    }
    let bad = |v: &Scalar| format!("{v:?} does not fit {data_type}");
    Ok(match data_type {
        ArrowType::Int8 => Arc::new(Int8Array::from(
            ints(&values)?
                .into_iter()
                .map(|v| v.map(|v| v as i8))
                .collect::<Vec<_>>(),
        )),
        ArrowType::Int16 => Arc::new(Int16Array::from(
            ints(&values)?
                .into_iter()
                .map(|v| v.map(|v| v as i16))
                .collect::<Vec<_>>(),
        )),
        ArrowType::Int32 => Arc::new(Int32Array::from(
            ints(&values)?
                .into_iter()
                .map(|v| v.map(|v| v as i32))
                .collect::<Vec<_>>(),
        )),
        ArrowType::Int64 => Arc::new(Int64Array::from(ints(&values)?)),
        ArrowType::Float32 => Arc::new(Float32Array::from(
            values
                .iter()
                .map(|v| match v {
                    None => Ok(None),
                    Some(Scalar::Float(f)) => Ok(Some(*f)),
                    Some(o) => Err(bad(o)),
                })
                .collect::<std::result::Result<Vec<_>, _>>()?,
        )),
        ArrowType::Float64 => Arc::new(Float64Array::from(
            values
                .iter()
                .map(|v| match v {
                    None => Ok(None),
                    Some(Scalar::Double(f)) => Ok(Some(*f)),
                    Some(o) => Err(bad(o)),
                })
                .collect::<std::result::Result<Vec<_>, _>>()?,
        )),
        ArrowType::Decimal128(p, s) => Arc::new(
            Decimal128Array::from(
                values
                    .iter()
                    .map(|v| match v {
                        None => Ok(None),
                        Some(Scalar::Decimal(d)) => Ok(Some(*d)),
                        Some(o) => Err(bad(o)),
                    })
                    .collect::<std::result::Result<Vec<_>, _>>()?,
            )
            .with_precision_and_scale(*p, *s)
            .map_err(|e| e.to_string())?,
        ),
        ArrowType::Boolean => Arc::new(BooleanArray::from(
            values
                .iter()
                .map(|v| match v {
                    None => Ok(None),
                    Some(Scalar::Bool(b)) => Ok(Some(*b)),
                    Some(o) => Err(bad(o)),
                })
                .collect::<std::result::Result<Vec<_>, _>>()?,
        )),
        ArrowType::Utf8 => Arc::new(StringArray::from(
            values
                .into_iter()
                .map(|v| match v {
                    None => Ok(None),
                    Some(Scalar::Str(s)) => Ok(Some(s)),
                    Some(o) => Err(bad(&o)),
                })
                .collect::<std::result::Result<Vec<_>, _>>()?,
        )),
        ArrowType::Binary => Arc::new(BinaryArray::from_iter(
            values
                .into_iter()
                .map(|v| match v {
                    None => Ok(None),
                    Some(Scalar::Bytes(b)) => Ok(Some(b)),
                    Some(o) => Err(bad(&o)),
                })
                .collect::<std::result::Result<Vec<_>, _>>()?,
        )),
        ArrowType::List(_) | ArrowType::Map(_, _) | ArrowType::Struct(_) => Val::to_arrow(
            data_type,
            &values
                .into_iter()
                .map(|v| match v {
                    None => Ok(Val::Null),
                    Some(Scalar::Nested(v)) => Ok(v),
                    Some(o) => Err(bad(&o)),
                })
                .collect::<std::result::Result<Vec<_>, _>>()?,
        )?,
        other => return Err(format!("computed values of type {other} are not supported")),
    })
}
