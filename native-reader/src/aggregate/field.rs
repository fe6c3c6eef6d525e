//! One field's aggregate function with its state (`FieldAggregator`).

use std::cmp::Ordering;

use crate::error::{Error, Result};
use crate::merge::output::{compare_internal, Cell, Ctx, Scalar};
use crate::schema::TypeKind;

use super::factory::{AggFunc, AggSpec};
use super::val::Val;
use super::{bitmap, collect, merge_map, nested_update, AggError};
/// One field's aggregate function with its state (`FieldAggregator`).
pub(crate) struct FieldAgg {
    pub(crate) spec: AggSpec,
    pub(crate) col: usize,
    pub(crate) initialized: bool,
}

pub(crate) fn number_digits(v: i128) -> u32 {
    let mut n = v.unsigned_abs();
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

impl FieldAgg {
    pub(crate) fn new(spec: AggSpec, col: usize) -> FieldAgg {
        FieldAgg {
            spec,
            col,
            initialized: false,
        }
    }

    pub(crate) fn reset(&mut self) {
        self.initialized = false;
    }

    pub(crate) fn unsupported_retract(&self, ctx: &Ctx) -> Error {
        ctx.err(format!(
            "Aggregate function '{}' does not support retraction, If you allow this function to \
             ignore retraction messages, you can configure 'fields.${{field_name}}.ignore-retract'='true'. \
             (column `{}`)",
            self.spec.name,
            ctx.field_name(self.col)
        ))
    }

    /// `agg(accumulator, input)`.
    pub(crate) fn agg(&mut self, ctx: &Ctx, acc: Cell, input: Cell) -> Result<Cell> {
        use AggFunc::*;
        match &self.spec.func {
            PrimaryKey | LastValue => Ok(input),
            LastNonNullValue => Ok(if input.is_null() { acc } else { input }),
            FirstValue => {
                if !self.initialized {
                    self.initialized = true;
                    Ok(input)
                } else {
                    Ok(acc)
                }
            }
            FirstNonNullValue => {
                if !self.initialized && !input.is_null() {
                    self.initialized = true;
                    Ok(input)
                } else {
                    Ok(acc)
                }
            }
            Collect { element, distinct } => {
                let (a, b) = (self.val(ctx, &acc)?, self.val(ctx, &input)?);
                let r = collect::collect_agg(element, *distinct, &a, &b);
                self.computed(ctx, r)
            }
            MergeMap { key } => {
                let (a, b) = (self.val(ctx, &acc)?, self.val(ctx, &input)?);
                let r = merge_map::merge_map_agg(key, &a, &b);
                self.computed(ctx, r)
            }
            NestedUpdate { fields, key } => {
                let (a, b) = (self.val(ctx, &acc)?, self.val(ctx, &input)?);
                let r = nested_update::NestedUpdate { fields, key }.agg(&a, &b);
                self.computed(ctx, r)
            }
            _ if acc.is_null() || input.is_null() => Ok(if acc.is_null() { input } else { acc }),
            Rbm32 => match (self.value(ctx, &acc)?, self.value(ctx, &input)?) {
                (Scalar::Bytes(a), Scalar::Bytes(b)) => {
                    let r = bitmap::rbm32_or(&a, &b).map(Val::Bytes);
                    self.computed(ctx, r)
                }
                _ => Err(ctx.err("rbm32 over non-binaries".into())),
            },
            ThetaSketch | HllSketch => match (self.value(ctx, &acc)?, self.value(ctx, &input)?) {
                (Scalar::Bytes(a), Scalar::Bytes(b)) => {
                    let r = if self.spec.func == ThetaSketch {
                        super::sketch::theta_union(&a, &b)
                    } else {
                        super::sketch::hll_union(&a, &b)
                    };
                    self.computed(ctx, r.map(Val::Bytes).map_err(AggError::Java))
                }
                _ => Err(ctx.err(format!("{} over non-binaries", self.spec.name))),
            },
            Rbm64 => Err(Error::Unsupported {
                path: ctx.path.to_path_buf(),
                reason: format!(
                    "rbm64 of column `{}`: Paimon 1.0 serializes the union as a Roaring64Bitmap \
                     (RoaringBitmap 1.0.5's ART layout), which is not reproduced",
                    ctx.field_name(self.col)
                ),
            }),
            Max | Min => {
                let (a, b) = (self.value(ctx, &acc)?, self.value(ctx, &input)?);
                let ord = compare_internal(&a, &b).map_err(|e| ctx.err(e))?;
                let acc_smaller = ord == Ordering::Less;
                Ok(match (&self.spec.func, acc_smaller) {
                    (Max, true) | (Min, false) => input,
                    _ => acc,
                })
            }
            Sum => {
                let (a, b) = (self.value(ctx, &acc)?, self.value(ctx, &input)?);
                self.arith(ctx, a, b, false)
            }
            Product => {
                let (a, b) = (self.value(ctx, &acc)?, self.value(ctx, &input)?);
                self.multiply(ctx, a, b)
            }
            Listagg(delimiter) => {
                let (a, b) = (self.value(ctx, &acc)?, self.value(ctx, &input)?);
                match (a, b) {
                    (Scalar::Str(a), Scalar::Str(b)) => {
                        Ok(Cell::Value(Scalar::Str(format!("{a}{delimiter}{b}"))))
                    }
                    _ => Err(ctx.err("listagg over non-strings".into())),
                }
            }
            BoolAnd | BoolOr => {
                let (a, b) = (self.value(ctx, &acc)?, self.value(ctx, &input)?);
                match (a, b) {
                    (Scalar::Bool(a), Scalar::Bool(b)) => {
                        Ok(Cell::Value(Scalar::Bool(if self.spec.func == BoolAnd {
                            a && b
                        } else {
                            a || b
                        })))
                    }
                    _ => Err(ctx.err("bool_and/bool_or over non-booleans".into())),
                }
            }
        }
    }

    /// `aggReversed(accumulator, input)` = `agg(input, accumulator)`; `FieldCollectAgg` overrides it
    /// with `agg(accumulator, input)`.
    pub(crate) fn agg_reversed(&mut self, ctx: &Ctx, acc: Cell, input: Cell) -> Result<Cell> {
        if matches!(self.spec.func, AggFunc::Collect { .. }) {
            return self.agg(ctx, acc, input);
        }
        self.agg(ctx, input, acc)
    }

    /// A cell's value for the collection functions (`Val::Null` for NULL).
    pub(crate) fn val(&self, ctx: &Ctx, cell: &Cell) -> Result<Val> {
        Ok(match ctx.scalar(cell, self.col)? {
            None => Val::Null,
            Some(Scalar::Nested(v)) => v,
            Some(Scalar::Bytes(b)) => Val::Bytes(b),
            Some(other) => {
                return Err(ctx.err(format!(
                    "column `{}`: {other:?} is not a collection",
                    ctx.field_name(self.col)
                )))
            }
        })
    }

    /// The cell of a collection function's result; its errors as Java's or as unsupported.
    pub(crate) fn computed(&self, ctx: &Ctx, r: std::result::Result<Val, AggError>) -> Result<Cell> {
        match r {
            Ok(Val::Null) => Ok(Cell::Null),
            Ok(Val::Bytes(b)) => Ok(Cell::Value(Scalar::Bytes(b))),
            Ok(v) => Ok(Cell::Value(Scalar::Nested(v))),
            Err(AggError::Java(m)) => Err(ctx.err(format!(
                "{} of column `{}`: {m}",
                self.spec.name,
                ctx.field_name(self.col)
            ))),
            Err(AggError::Unsupported(m)) => Err(Error::Unsupported {
                path: ctx.path.to_path_buf(),
                reason: format!(
                    "{} of column `{}`: {m}",
                    self.spec.name,
                    ctx.field_name(self.col)
                ),
            }),
        }
    }

    /// `retract(accumulator, input)`.
    pub(crate) fn retract(&mut self, ctx: &Ctx, acc: Cell, input: Cell) -> Result<Cell> {
        use AggFunc::*;
        if self.spec.ignore_retract {
            return Ok(acc);
        }
        match &self.spec.func {
            PrimaryKey => Ok(input),
            LastValue => Ok(Cell::Null),
            LastNonNullValue => Ok(if input.is_null() { acc } else { Cell::Null }),
            Sum => {
                if acc.is_null() || input.is_null() {
                    if !acc.is_null() {
                        return Ok(acc);
                    }
                    if input.is_null() {
                        return Ok(Cell::Null);
                    }
                    let b = self.value(ctx, &input)?;
                    return self.negate(ctx, b);
                }
                let (a, b) = (self.value(ctx, &acc)?, self.value(ctx, &input)?);
                self.arith(ctx, a, b, true)
            }
            Product => {
                if acc.is_null() || input.is_null() {
                    return Ok(if acc.is_null() { input } else { acc });
                }
                let (a, b) = (self.value(ctx, &acc)?, self.value(ctx, &input)?);
                self.divide(ctx, a, b)
            }
            Collect { element, distinct } => {
                let (a, b) = (self.val(ctx, &acc)?, self.val(ctx, &input)?);
                let r = collect::collect_retract(element, *distinct, &a, &b);
                self.computed(ctx, r)
            }
            MergeMap { key } => {
                let (a, b) = (self.val(ctx, &acc)?, self.val(ctx, &input)?);
                let r = merge_map::merge_map_retract(key, &a, &b);
                self.computed(ctx, r)
            }
            NestedUpdate { fields, key } => {
                let (a, b) = (self.val(ctx, &acc)?, self.val(ctx, &input)?);
                let r = nested_update::NestedUpdate { fields, key }.retract(&a, &b);
                self.computed(ctx, r)
            }
            _ => Err(self.unsupported_retract(ctx)),
        }
    }

    pub(crate) fn value(&self, ctx: &Ctx, cell: &Cell) -> Result<Scalar> {
        ctx.scalar(cell, self.col)?.ok_or_else(|| {
            ctx.err(format!(
                "column `{}`: unexpected NULL",
                ctx.field_name(self.col)
            ))
        })
    }

    pub(crate) fn wrap(&self, v: i64) -> i64 {
        match self.spec.kind {
            TypeKind::TinyInt => v as i8 as i64,
            TypeKind::SmallInt => v as i16 as i64,
            TypeKind::Int => v as i32 as i64,
            _ => v,
        }
    }

    pub(crate) fn decimal_fit(&self, v: Option<i128>) -> Cell {
        let precision = match self.spec.kind {
            TypeKind::Decimal { precision, .. } => precision as u32,
            _ => 38,
        };
        match v {
            Some(v) if number_digits(v) <= precision => Cell::Value(Scalar::Decimal(v)),
            _ => Cell::Null,
        }
    }

    /// Sum (`subtract` false) or difference of two non-null values (`FieldSumAgg`).
    pub(crate) fn arith(&self, ctx: &Ctx, a: Scalar, b: Scalar, subtract: bool) -> Result<Cell> {
        Ok(match (a, b) {
            (Scalar::Int(a), Scalar::Int(b)) => Cell::Value(Scalar::Int(self.wrap(if subtract {
                a.wrapping_sub(b)
            } else {
                a.wrapping_add(b)
            }))),
            (Scalar::Float(a), Scalar::Float(b)) => {
                Cell::Value(Scalar::Float(if subtract { a - b } else { a + b }))
            }
            (Scalar::Double(a), Scalar::Double(b)) => {
                Cell::Value(Scalar::Double(if subtract { a - b } else { a + b }))
            }
            (Scalar::Decimal(a), Scalar::Decimal(b)) => {
                let compact = matches!(self.spec.kind, TypeKind::Decimal { precision, .. } if precision <= 18);
                if compact {
                    let exact = if subtract {
                        (a as i64).checked_sub(b as i64)
                    } else {
                        (a as i64).checked_add(b as i64)
                    };
                    if let Some(v) = exact {
                        // DecimalUtils.add/subtract keep a compact result without a precision check.
                        return Ok(Cell::Value(Scalar::Decimal(v as i128)));
                    }
                }
                self.decimal_fit(if subtract {
                    a.checked_sub(b)
                } else {
                    a.checked_add(b)
                })
            }
            _ => return Err(ctx.err("sum over non-numbers".into())),
        })
    }

    pub(crate) fn negate(&self, ctx: &Ctx, b: Scalar) -> Result<Cell> {
        Ok(match b {
            Scalar::Int(v) => Cell::Value(Scalar::Int(self.wrap(v.wrapping_neg()))),
            Scalar::Float(v) => Cell::Value(Scalar::Float(-v)),
            Scalar::Double(v) => Cell::Value(Scalar::Double(-v)),
            Scalar::Decimal(v) => Cell::Value(Scalar::Decimal(-v)),
            _ => return Err(ctx.err("sum over non-numbers".into())),
        })
    }

    pub(crate) fn multiply(&self, ctx: &Ctx, a: Scalar, b: Scalar) -> Result<Cell> {
        Ok(match (a, b) {
            (Scalar::Int(a), Scalar::Int(b)) => {
                Cell::Value(Scalar::Int(self.wrap(a.wrapping_mul(b))))
            }
            (Scalar::Float(a), Scalar::Float(b)) => Cell::Value(Scalar::Float(a * b)),
            (Scalar::Double(a), Scalar::Double(b)) => Cell::Value(Scalar::Double(a * b)),
            (Scalar::Decimal(a), Scalar::Decimal(b)) => {
                let scale = match self.spec.kind {
                    TypeKind::Decimal { scale, .. } => scale.max(0) as u32,
                    _ => 0,
                };
                // BigDecimal multiply (scale 2s), then setScale(s, HALF_UP) and the precision check.
                let product = a.checked_mul(b);
                let rescaled = product.and_then(|p| {
                    let d = 10i128.checked_pow(scale)?;
                    let q = p / d;
                    let r = p % d;
                    Some(if r.unsigned_abs() * 2 >= d.unsigned_abs() {
                        q + p.signum()
                    } else {
                        q
                    })
                });
                self.decimal_fit(rescaled)
            }
            _ => return Err(ctx.err("product over non-numbers".into())),
        })
    }

    pub(crate) fn divide(&self, ctx: &Ctx, a: Scalar, b: Scalar) -> Result<Cell> {
        Ok(match (a, b) {
            (Scalar::Int(_), Scalar::Int(0)) => {
                return Err(ctx.err(format!(
                    "/ by zero retracting product of column `{}`",
                    ctx.field_name(self.col)
                )))
            }
            (Scalar::Int(a), Scalar::Int(b)) => {
                Cell::Value(Scalar::Int(self.wrap(a.wrapping_div(b))))
            }
            (Scalar::Float(a), Scalar::Float(b)) => Cell::Value(Scalar::Float(a / b)),
            (Scalar::Double(a), Scalar::Double(b)) => Cell::Value(Scalar::Double(a / b)),
            (Scalar::Decimal(_), Scalar::Decimal(_)) => {
                return Err(Error::Unsupported {
                    path: ctx.path.to_path_buf(),
                    reason: format!(
                        "retracting a DECIMAL product (BigDecimal.divide) of column `{}`",
                        ctx.field_name(self.col)
                    ),
                })
            }
            _ => return Err(ctx.err("product over non-numbers".into())),
        })
    }
}

