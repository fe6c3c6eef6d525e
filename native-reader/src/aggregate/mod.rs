//! The field aggregate functions of Paimon 1.0 (`org.apache.paimon.mergetree.compact.aggregate`), which
//! the `aggregation` merge engine and the sequence groups of `partial-update` apply per field.
//!
//! [`FieldAggregator`] mirrors `FieldAggregator` (`agg`, `aggReversed`, `retract`, `reset`), one
//! implementation per Java class: [`last_value`] (`primary-key`, `last_value`, `last_non_null_value`,
//! `first_value`, `first_non_null_value`), [`numeric`] (`sum`, `product`, `max`, `min`), [`boolean`]
//! (`bool_and`, `bool_or`), [`listagg`], [`collect`], [`merge_map`], [`nested_update`], [`bitmap`]
//! (`rbm32`, `rbm64`) and [`sketch`] (`theta_sketch`, `hll_sketch`); [`factory`] (`FieldAggregatorFactory`)
//! maps a function name to its constructor, wrapped in [`IgnoreRetract`] with `fields.<f>.ignore-retract`.
//!
//! The collection and bitmap functions compute as the released classes do: `collect` (`FieldCollectAgg`),
//! `merge_map` (`FieldMergeMapAgg`), `nested_update` (`FieldNestedUpdateAgg`) and `rbm32`
//! (`FieldRoaringBitmap32Agg`).
//!
//! Output order is part of the result. Java builds some results in a `java.util.HashMap`/`HashSet`
//! (`collect` with `fields.<f>.distinct`, `merge_map`, `nested_update` with `fields.<f>.nested-key`), whose
//! iteration order follows the elements' `hashCode()`; [`java_hash::JavaHashMap`] reproduces that order (bins of a
//! power-of-two table, `hash ^ (hash >>> 16)`, resize at load factor 0.75 keeping bin order). Hashes are
//! those of the Java objects Paimon's `InternalArray.ElementGetter` returns: `Byte`, `Short`, `Integer`
//! (also DATE and TIME), `Long`, `Float`, `Double`, `Boolean`, `BinaryString` (`MurmurHashUtils.hashBytes`),
//! and for nested keys the projected `BinaryRow` (`MurmurHashUtils.hashBytesByWords` over its bytes).
//! `Decimal` (`BigDecimal.hashCode`) and `Timestamp` (millisecond and nano-of-millisecond) hash as in
//! Java. Elements whose Java hash is not reproduced (`byte[]` hashes by identity; nested values are not
//! modelled) and a bin reaching 9 entries (Java then resizes early or turns the bin
//! into a tree) are [`AggError::Unsupported`].
//!
//! `rbm32`: the union is serialized in the portable RoaringBitmap format after `runOptimize()`, as
//! `RoaringBitmap32.serialize` does with RoaringBitmap 1.0.5 (bundled by Paimon 1.0.0). The container type
//! `runOptimize` leaves depends on the type `or` produced when the cardinality `c <= 4096` and the run
//! count `r` satisfy `c == 2r` or `c == 2r + 1`: a key in one input keeps its container; array with array
//! stays an array; a run container on either side gives a run container (`RunContainer.or`/`ior` end in
//! `toEfficientContainer` or `toBitmapIfNeeded`). The one case not reproduced ([`AggError::Unsupported`])
//! is two run containers whose union is larger as runs than as a bitmap yet holds at most 4096 values
//! (Java then keeps a bitmap container of at most 4096 values). 3000 random pairs of Java-written bitmaps
//! (arrays, runs, bitmaps, optimized or not, several keys) merged byte-identically to
//! `FieldRoaringBitmap32Agg.agg`.
//!
//! `rbm64` is not here: Paimon 1.0's `RoaringBitmap64` wraps a `Roaring64Bitmap`, whose `serialize` writes
//! its adaptive radix tree, not the portable format; [`crate::merge`] merges it only when one side is NULL.

pub(crate) mod bitmap;
pub(crate) mod boolean;
pub(crate) mod collect;
pub(crate) mod factory;
pub(crate) mod java_hash;
pub(crate) mod last_value;
pub(crate) mod listagg;
pub(crate) mod merge_map;
pub(crate) mod nested_update;
pub(crate) mod numeric;
pub mod sketch;
#[cfg(test)]
mod tests;

use crate::error::{Error, Result};
use crate::merge::output::{Cell, Ctx};
use crate::schema::TypeKind;
use crate::value::Datum;

pub(crate) use factory::{create, field_function};

/// Why an aggregate function could not produce its value.
#[derive(Debug)]
pub(crate) enum AggError {
    /// Java throws here too (the message says what Java throws).
    Java(String),
    /// Java computes a value the native reader does not reproduce exactly.
    Unsupported(String),
}

pub(crate) type AggResult<T> = std::result::Result<T, AggError>;

pub(crate) fn unsupported<T>(reason: impl Into<String>) -> AggResult<T> {
    Err(AggError::Unsupported(reason.into()))
}

/// The field an aggregator computes: the function's name as configured (errors name it), the field's
/// index among the table's columns, and its type.
#[derive(Clone, Debug)]
pub(crate) struct AggField {
    pub(crate) function: String,
    pub(crate) col: usize,
    pub(crate) kind: TypeKind,
}

/// One field's aggregate function with its state (`org.apache.paimon.mergetree.compact.aggregate.
/// FieldAggregator`). Values are [`Cell`]s of the merge: NULL, a value of an input record or a computed
/// value; `ctx` reads them. Errors: [`Error::Merge`] where Java throws, [`Error::Unsupported`] where Java
/// computes something not reproduced.
pub(crate) trait FieldAggregator: Send {
    /// The field this aggregator computes.
    fn field(&self) -> &AggField;

    /// `agg(accumulator, inputField)`.
    fn agg(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell>;

    /// `aggReversed(accumulator, inputField)`: `agg(inputField, accumulator)` unless the class overrides it.
    fn agg_reversed(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        self.agg(ctx, input, acc)
    }

    /// `retract(accumulator, retractField)`: Java's `UnsupportedOperationException` unless the class
    /// overrides it.
    fn retract(&mut self, ctx: &Ctx<'_>, _acc: Cell, _input: Cell) -> Result<Cell> {
        Err(unsupported_retract(self.field(), ctx))
    }

    /// `reset()`: before the records of the next key.
    fn reset(&mut self) {}
}

/// `FieldIgnoreRetractAgg` (`fields.<f>.ignore-retract`): a retraction keeps the accumulator.
pub(crate) struct IgnoreRetract(pub(crate) Box<dyn FieldAggregator>);

impl FieldAggregator for IgnoreRetract {
    fn field(&self) -> &AggField {
        self.0.field()
    }

    fn agg(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        self.0.agg(ctx, acc, input)
    }

    fn agg_reversed(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        self.0.agg_reversed(ctx, acc, input)
    }

    fn retract(&mut self, _ctx: &Ctx<'_>, acc: Cell, _input: Cell) -> Result<Cell> {
        Ok(acc)
    }

    fn reset(&mut self) {
        self.0.reset()
    }
}

/// The error of a function without a retraction (Java's `UnsupportedOperationException`).
fn unsupported_retract(f: &AggField, ctx: &Ctx<'_>) -> Error {
    ctx.err(format!(
        "Aggregate function '{}' does not support retraction, If you allow this function to \
         ignore retraction messages, you can configure 'fields.${{field_name}}.ignore-retract'='true'. \
         (column `{}`)",
        f.function,
        ctx.field_name(f.col)
    ))
}

/// The rule most of Java's field aggregators start with (`FieldSumAgg`, `FieldProductAgg`,
/// `FieldBoolAndAgg`, `FieldBoolOrAgg`, `FieldListaggAgg`): a NULL on either side keeps the
/// other side; otherwise `combine` gets both values.
fn null_keeps_other(
    f: &AggField,
    ctx: &Ctx<'_>,
    acc: Cell,
    input: Cell,
    combine: impl FnOnce(Datum, Datum) -> Result<Cell>,
) -> Result<Cell> {
    if acc.is_null() || input.is_null() {
        return Ok(if acc.is_null() { input } else { acc });
    }
    let (a, b) = (value(f, ctx, &acc)?, value(f, ctx, &input)?);
    combine(a, b)
}

/// A non-NULL cell's value. Errors: [`Error::Merge`] for NULL.
fn value(f: &AggField, ctx: &Ctx<'_>, cell: &Cell) -> Result<Datum> {
    ctx.datum(cell, f.col)?.ok_or_else(|| {
        ctx.err(format!(
            "column `{}`: unexpected NULL",
            ctx.field_name(f.col)
        ))
    })
}

/// A cell's value for the collection and bitmap functions (`Datum::Null` for NULL).
fn val(f: &AggField, ctx: &Ctx<'_>, cell: &Cell) -> Result<Datum> {
    Ok(match ctx.datum(cell, f.col)? {
        None => Datum::Null,
        Some(v @ (Datum::List(_) | Datum::Map(_) | Datum::Row(_) | Datum::Bytes(_))) => v,
        Some(other) => {
            return Err(ctx.err(format!(
                "column `{}`: {other:?} is not a collection",
                ctx.field_name(f.col)
            )))
        }
    })
}

/// The cell of a collection function's result; its errors as Java's or as unsupported.
fn computed(f: &AggField, ctx: &Ctx<'_>, r: AggResult<Datum>) -> Result<Cell> {
    match r {
        Ok(Datum::Null) => Ok(Cell::Null),
        Ok(v) => Ok(Cell::Value(v)),
        Err(AggError::Java(m)) => Err(ctx.err(format!(
            "{} of column `{}`: {m}",
            f.function,
            ctx.field_name(f.col)
        ))),
        Err(AggError::Unsupported(m)) => Err(Error::Unsupported {
            path: ctx.path.to_path_buf(),
            reason: format!("{} of column `{}`: {m}", f.function, ctx.field_name(f.col)),
        }),
    }
}
