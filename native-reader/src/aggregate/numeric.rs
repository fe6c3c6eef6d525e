//! The numeric functions: `sum` (`FieldSumAgg`), `product` (`FieldProductAgg`), `max` (`FieldMaxAgg`) and
//! `min` (`FieldMinAgg`). Integers wrap at their width as Java's do; DECIMAL results that do not fit the
//! declared precision are NULL (`Decimal.fromBigDecimal`); FLOAT and DOUBLE as IEEE arithmetic.

use crate::java::big_decimal::rescale_half_up;
use std::cmp::Ordering;

use crate::error::{Error, Result};
use crate::merge::output::{Cell, Ctx};
use crate::schema::TypeKind;
use crate::value::compare::compare_internal;
use crate::value::Datum;

use super::{null_keeps_other, value, AggField, FieldAggregator};

/// `FieldSumAgg`: sums; retracting subtracts (from NULL: the negated input).
pub(crate) struct Sum(pub(crate) AggField);

impl FieldAggregator for Sum {
    fn field(&self) -> &AggField {
        &self.0
    }

    fn agg(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        null_keeps_other(&self.0, ctx, acc, input, |a, b| {
            arith(&self.0, ctx, a, b, false)
        })
    }

    fn retract(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        if acc.is_null() || input.is_null() {
            if !acc.is_null() {
                return Ok(acc);
            }
            if input.is_null() {
                return Ok(Cell::Null);
            }
            let b = value(&self.0, ctx, &input)?;
            return negate(&self.0, ctx, b);
        }
        let (a, b) = (value(&self.0, ctx, &acc)?, value(&self.0, ctx, &input)?);
        arith(&self.0, ctx, a, b, true)
    }
}

/// `FieldProductAgg`: multiplies; retracting divides.
pub(crate) struct Product(pub(crate) AggField);

impl FieldAggregator for Product {
    fn field(&self) -> &AggField {
        &self.0
    }

    fn agg(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        null_keeps_other(&self.0, ctx, acc, input, |a, b| {
            multiply(&self.0, ctx, a, b)
        })
    }

    fn retract(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        null_keeps_other(&self.0, ctx, acc, input, |a, b| divide(&self.0, ctx, a, b))
    }
}

/// `FieldMaxAgg` (`max` true) or `FieldMinAgg`: by `InternalRowUtils.compare`; no retraction.
pub(crate) struct MaxMin {
    pub(crate) field: AggField,
    pub(crate) max: bool,
}

impl FieldAggregator for MaxMin {
    fn field(&self) -> &AggField {
        &self.field
    }

    fn agg(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        if acc.is_null() || input.is_null() {
            return Ok(if acc.is_null() { input } else { acc });
        }
        let (a, b) = (
            value(&self.field, ctx, &acc)?,
            value(&self.field, ctx, &input)?,
        );
        let ord = compare_internal(&a, &b).map_err(|e| ctx.err(e.to_string()))?;
        let acc_smaller = ord == Ordering::Less;
        Ok(if acc_smaller == self.max { input } else { acc })
    }
}

/// The number of decimal digits of `v` (`BigDecimal.precision` of an unscaled value; 0 has one).
pub(crate) fn number_digits(v: i128) -> u32 {
    let mut n = v.unsigned_abs();
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// An integer result at the field's width (Java's `byte`/`short`/`int` overflow).
fn wrap(f: &AggField, v: i64) -> i64 {
    match f.kind {
        TypeKind::TinyInt => v as i8 as i64,
        TypeKind::SmallInt => v as i16 as i64,
        TypeKind::Int => v as i32 as i64,
        _ => v,
    }
}

/// A DECIMAL value of the field's type.
fn decimal(f: &AggField, unscaled: i128) -> Datum {
    let (precision, scale) = match f.kind {
        TypeKind::Decimal { precision, scale } => (precision, scale),
        _ => (38, 0),
    };
    Datum::Decimal {
        unscaled,
        precision,
        scale,
    }
}

/// A DECIMAL result, NULL when it does not fit the field's precision.
fn decimal_fit(f: &AggField, v: Option<i128>) -> Cell {
    let precision = match f.kind {
        TypeKind::Decimal { precision, .. } => precision as u32,
        _ => 38,
    };
    match v {
        Some(v) if number_digits(v) <= precision => Cell::Value(decimal(f, v)),
        _ => Cell::Null,
    }
}

/// Sum (`subtract` false) or difference of two non-null values (`FieldSumAgg`).
fn arith(f: &AggField, ctx: &Ctx<'_>, a: Datum, b: Datum, subtract: bool) -> Result<Cell> {
    Ok(match (a, b) {
        (Datum::Int(a), Datum::Int(b)) => Cell::Value(Datum::Int(wrap(
            f,
            if subtract {
                a.wrapping_sub(b)
            } else {
                a.wrapping_add(b)
            },
        ))),
        (Datum::Float(a), Datum::Float(b)) => {
            Cell::Value(Datum::Float(if subtract { a - b } else { a + b }))
        }
        (Datum::Double(a), Datum::Double(b)) => {
            Cell::Value(Datum::Double(if subtract { a - b } else { a + b }))
        }
        (Datum::Decimal { unscaled: a, .. }, Datum::Decimal { unscaled: b, .. }) => {
            let compact = matches!(f.kind, TypeKind::Decimal { precision, .. } if precision <= 18);
            if compact {
                let exact = if subtract {
                    (a as i64).checked_sub(b as i64)
                } else {
                    (a as i64).checked_add(b as i64)
                };
                if let Some(v) = exact {
                    // DecimalUtils.add/subtract keep a compact result without a precision check.
                    return Ok(Cell::Value(decimal(f, v as i128)));
                }
            }
            decimal_fit(
                f,
                if subtract {
                    a.checked_sub(b)
                } else {
                    a.checked_add(b)
                },
            )
        }
        _ => return Err(ctx.err("sum over non-numbers".into())),
    })
}

fn negate(f: &AggField, ctx: &Ctx<'_>, b: Datum) -> Result<Cell> {
    Ok(match b {
        Datum::Int(v) => Cell::Value(Datum::Int(wrap(f, v.wrapping_neg()))),
        Datum::Float(v) => Cell::Value(Datum::Float(-v)),
        Datum::Double(v) => Cell::Value(Datum::Double(-v)),
        Datum::Decimal { unscaled, .. } => Cell::Value(decimal(f, -unscaled)),
        _ => return Err(ctx.err("sum over non-numbers".into())),
    })
}

fn multiply(f: &AggField, ctx: &Ctx<'_>, a: Datum, b: Datum) -> Result<Cell> {
    Ok(match (a, b) {
        (Datum::Int(a), Datum::Int(b)) => Cell::Value(Datum::Int(wrap(f, a.wrapping_mul(b)))),
        (Datum::Float(a), Datum::Float(b)) => Cell::Value(Datum::Float(a * b)),
        (Datum::Double(a), Datum::Double(b)) => Cell::Value(Datum::Double(a * b)),
        (Datum::Decimal { unscaled: a, .. }, Datum::Decimal { unscaled: b, .. }) => {
            let (precision, scale) = match f.kind {
                TypeKind::Decimal { precision, scale } => (precision, i32::from(scale.max(0))),
                _ => (38, 0),
            };
            // BigDecimal multiply (scale 2s), then setScale(s, HALF_UP) and the precision check
            // (`Decimal.fromBigDecimal`); NULL when it does not fit.
            let rescaled = a
                .checked_mul(b)
                .and_then(|p| rescale_half_up(p, 2 * scale, precision, scale));
            match rescaled {
                Some(v) => Cell::Value(decimal(f, v)),
                None => Cell::Null,
            }
        }
        _ => return Err(ctx.err("product over non-numbers".into())),
    })
}

fn divide(f: &AggField, ctx: &Ctx<'_>, a: Datum, b: Datum) -> Result<Cell> {
    Ok(match (a, b) {
        (Datum::Int(_), Datum::Int(0)) => {
            return Err(ctx.err(format!(
                "/ by zero retracting product of column `{}`",
                ctx.field_name(f.col)
            )))
        }
        (Datum::Int(a), Datum::Int(b)) => Cell::Value(Datum::Int(wrap(f, a.wrapping_div(b)))),
        (Datum::Float(a), Datum::Float(b)) => Cell::Value(Datum::Float(a / b)),
        (Datum::Double(a), Datum::Double(b)) => Cell::Value(Datum::Double(a / b)),
        (Datum::Decimal { .. }, Datum::Decimal { .. }) => {
            return Err(Error::Unsupported {
                path: ctx.path.to_path_buf(),
                reason: format!(
                    "retracting a DECIMAL product (BigDecimal.divide) of column `{}`",
                    ctx.field_name(f.col)
                ),
            })
        }
        _ => return Err(ctx.err("product over non-numbers".into())),
    })
}
