//! The cast rules' values ([`Datum`]) read from an Arrow array of the file type ([`read`]) and built back
//! into an array of the read type ([`build`]), by the Paimon types of both (a DATE and a TIME are both
//! [`Datum::Int`]; the type tells them apart).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{
    ArrayRef, BinaryArray, BinaryViewArray, BooleanArray, PrimitiveArray, StringArray,
    StringViewArray,
};
use arrow_schema::{DataType as ArrowType, TimeUnit};

use super::CastError;
use crate::decode::conform::export_epoch;
use crate::schema::{DataType, TypeKind};
use crate::value::Datum;

/// The value at `i` of `array`, an array of `arrow_type(t)`, as the cast rules see it: integers, DATE (days)
/// and TIME (milliseconds of the day) as [`Datum::Int`], DECIMAL with the type's precision and scale,
/// TIMESTAMP/LTZ as milliseconds and nanoseconds of the millisecond (seconds multiplied by 1000, wrapping;
/// [`Datum::from_arrow`] refuses seconds beyond the `i64` milliseconds instead). The caller checks
/// `array.is_null(i)` first.
pub(super) fn read(array: &ArrayRef, i: usize, t: &DataType) -> Result<Datum, CastError> {
    Ok(match (&t.kind, array.data_type()) {
        (TypeKind::Boolean, _) => Datum::Boolean(array.as_boolean().value(i)),
        (TypeKind::TinyInt, _) => Datum::Int(array.as_primitive::<Int8Type>().value(i).into()),
        (TypeKind::SmallInt, _) => Datum::Int(array.as_primitive::<Int16Type>().value(i).into()),
        (TypeKind::Int, _) => Datum::Int(array.as_primitive::<Int32Type>().value(i).into()),
        (TypeKind::BigInt, _) => Datum::Int(array.as_primitive::<Int64Type>().value(i)),
        (TypeKind::Float, _) => Datum::Float(array.as_primitive::<Float32Type>().value(i)),
        (TypeKind::Double, _) => Datum::Double(array.as_primitive::<Float64Type>().value(i)),
        (TypeKind::Decimal { precision, scale }, _) => Datum::Decimal {
            unscaled: array.as_primitive::<Decimal128Type>().value(i),
            precision: *precision,
            scale: *scale,
        },
        (TypeKind::Char(_) | TypeKind::VarChar(_), ArrowType::Utf8View) => {
            Datum::String(array.as_string_view().value(i).to_string())
        }
        (TypeKind::Char(_) | TypeKind::VarChar(_), ArrowType::Utf8) => {
            Datum::String(array.as_string::<i32>().value(i).to_string())
        }
        (TypeKind::Binary(_) | TypeKind::VarBinary(_), ArrowType::BinaryView) => {
            Datum::Bytes(array.as_binary_view().value(i).to_vec())
        }
        (TypeKind::Binary(_) | TypeKind::VarBinary(_), ArrowType::Binary) => {
            Datum::Bytes(array.as_binary::<i32>().value(i).to_vec())
        }
        (TypeKind::Date, _) => Datum::Int(array.as_primitive::<Date32Type>().value(i).into()),
        (TypeKind::Time(_), _) => Datum::Int(
            array
                .as_primitive::<Time32MillisecondType>()
                .value(i)
                .into(),
        ),
        (
            TypeKind::Timestamp(_) | TypeKind::LocalZonedTimestamp(_),
            ArrowType::Timestamp(unit, _),
        ) => {
            let v = match unit {
                TimeUnit::Second => array.as_primitive::<TimestampSecondType>().value(i),
                TimeUnit::Millisecond => array.as_primitive::<TimestampMillisecondType>().value(i),
                TimeUnit::Microsecond => array.as_primitive::<TimestampMicrosecondType>().value(i),
                TimeUnit::Nanosecond => array.as_primitive::<TimestampNanosecondType>().value(i),
            };
            let (millis, nanos) = match unit {
                TimeUnit::Second => (v.wrapping_mul(1000), 0),
                TimeUnit::Millisecond => (v, 0),
                TimeUnit::Microsecond => (v.div_euclid(1000), v.rem_euclid(1000) * 1000),
                TimeUnit::Nanosecond => (v.div_euclid(1_000_000), v.rem_euclid(1_000_000)),
            };
            timestamp(millis, nanos)
        }
        (other, dt) => {
            return Err(CastError::Unsupported(format!(
                "cannot read {other:?} from {dt}"
            )))
        }
    })
}

/// A [`Datum::Timestamp`] of epoch milliseconds and nanoseconds of the millisecond (0..=999_999, as every
/// timestamp rule yields them).
pub(super) fn timestamp(millis: i64, nanos_of_milli: i64) -> Datum {
    Datum::Timestamp {
        millis,
        nanos_of_milli: nanos_of_milli as i32,
    }
}

/// An array of `target` (`field_arrow_type(t, _)`) holding `values` (results of the cast to `t`;
/// [`Datum::Null`] is a null). TIMESTAMP values are exported as the reader exports them
/// (`export_epoch`: seconds toward zero), not by [`Datum::to_arrow`] (seconds floored).
pub(super) fn build(
    values: Vec<Datum>,
    t: &DataType,
    target: &ArrowType,
) -> Result<ArrayRef, CastError> {
    let mismatch = || {
        CastError::Unsupported(format!(
            "internal: cast produced a value of another type than {:?}",
            t.kind
        ))
    };
    macro_rules! prim {
        ($ty:ty, $pat:pat => $e:expr) => {{
            let mut out: Vec<Option<_>> = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    Datum::Null => None,
                    $pat => Some($e),
                    _ => return Err(mismatch()),
                });
            }
            Arc::new(out.into_iter().collect::<PrimitiveArray<$ty>>()) as ArrayRef
        }};
    }
    let array: ArrayRef = match &t.kind {
        TypeKind::Boolean => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    Datum::Null => None,
                    Datum::Boolean(b) => Some(b),
                    _ => return Err(mismatch()),
                });
            }
            Arc::new(BooleanArray::from(out))
        }
        TypeKind::TinyInt => prim!(Int8Type, Datum::Int(x) => x as i8),
        TypeKind::SmallInt => prim!(Int16Type, Datum::Int(x) => x as i16),
        TypeKind::Int => prim!(Int32Type, Datum::Int(x) => x as i32),
        TypeKind::BigInt => prim!(Int64Type, Datum::Int(x) => x),
        TypeKind::Float => prim!(Float32Type, Datum::Float(x) => x),
        TypeKind::Double => prim!(Float64Type, Datum::Double(x) => x),
        TypeKind::Date => prim!(Date32Type, Datum::Int(x) => x as i32),
        TypeKind::Time(_) => prim!(Time32MillisecondType, Datum::Int(x) => x as i32),
        TypeKind::Decimal { precision, scale } => {
            let array = prim!(Decimal128Type, Datum::Decimal { unscaled, .. } => unscaled);
            Arc::new(
                array
                    .as_primitive::<Decimal128Type>()
                    .clone()
                    .with_precision_and_scale(*precision, *scale)?,
            ) as ArrayRef
        }
        TypeKind::Char(_) | TypeKind::VarChar(_) => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    Datum::Null => None,
                    Datum::String(s) => Some(s),
                    _ => return Err(mismatch()),
                });
            }
            match target {
                ArrowType::Utf8View => Arc::new(StringViewArray::from_iter(out)),
                _ => Arc::new(StringArray::from(out)),
            }
        }
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    Datum::Null => None,
                    Datum::Bytes(b) => Some(b),
                    _ => return Err(mismatch()),
                });
            }
            match target {
                ArrowType::BinaryView => Arc::new(BinaryViewArray::from_iter(out)),
                _ => Arc::new(BinaryArray::from_iter(out)),
            }
        }
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
            let unit = crate::types::timestamp_unit(*p);
            let zone = match target {
                ArrowType::Timestamp(_, z) => z.clone(),
                _ => None,
            };
            let mut out: Vec<Option<i64>> = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    Datum::Null => None,
                    Datum::Timestamp {
                        millis,
                        nanos_of_milli,
                    } => Some(export_epoch(millis, i64::from(nanos_of_milli), unit)),
                    _ => return Err(mismatch()),
                });
            }
            match unit {
                TimeUnit::Second => Arc::new(
                    PrimitiveArray::<TimestampSecondType>::from(out).with_timezone_opt(zone),
                ),
                TimeUnit::Millisecond => Arc::new(
                    PrimitiveArray::<TimestampMillisecondType>::from(out).with_timezone_opt(zone),
                ),
                TimeUnit::Microsecond => Arc::new(
                    PrimitiveArray::<TimestampMicrosecondType>::from(out).with_timezone_opt(zone),
                ),
                TimeUnit::Nanosecond => Arc::new(
                    PrimitiveArray::<TimestampNanosecondType>::from(out).with_timezone_opt(zone),
                ),
            }
        }
        other => return Err(CastError::Unsupported(format!("cannot cast to {other:?}"))),
    };
    Ok(array)
}
