//! The value model of the cast rules: one value as Paimon's Java objects hold it ([`V`]), read from an
//! Arrow array of the file type and built back into an array of the read type. Local to `cast/` (only
//! `mod.rs` and `tests.rs` use it), so the crate's one value model can replace it here alone.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{ArrayRef, BinaryArray, BooleanArray, PrimitiveArray, StringArray};
use arrow_schema::{DataType as ArrowType, TimeUnit};

use super::CastError;
use crate::decode::conform::export_epoch;
use crate::schema::{DataType, TypeKind};

/// One value as Paimon's Java objects hold it.
#[derive(Clone, Debug)]
pub(super) enum V {
    Bool(bool),
    /// TINYINT..BIGINT.
    Int(i64),
    Float(f32),
    Double(f64),
    /// Unscaled value and scale.
    Dec(i128, i32),
    Str(String),
    Bin(Vec<u8>),
    Date(i32),
    Time(i32),
    /// (millisecond, nanoOfMillisecond).
    Ts(i64, i64),
}

pub(super) fn read(array: &ArrayRef, i: usize, t: &DataType) -> Result<V, CastError> {
    Ok(match (&t.kind, array.data_type()) {
        (TypeKind::Boolean, _) => V::Bool(array.as_boolean().value(i)),
        (TypeKind::TinyInt, _) => V::Int(array.as_primitive::<Int8Type>().value(i).into()),
        (TypeKind::SmallInt, _) => V::Int(array.as_primitive::<Int16Type>().value(i).into()),
        (TypeKind::Int, _) => V::Int(array.as_primitive::<Int32Type>().value(i).into()),
        (TypeKind::BigInt, _) => V::Int(array.as_primitive::<Int64Type>().value(i)),
        (TypeKind::Float, _) => V::Float(array.as_primitive::<Float32Type>().value(i)),
        (TypeKind::Double, _) => V::Double(array.as_primitive::<Float64Type>().value(i)),
        (TypeKind::Decimal { scale, .. }, _) => V::Dec(
            array.as_primitive::<Decimal128Type>().value(i),
            i32::from(*scale),
        ),
        (TypeKind::Char(_) | TypeKind::VarChar(_), _) => {
            V::Str(array.as_string::<i32>().value(i).to_string())
        }
        (TypeKind::Binary(_) | TypeKind::VarBinary(_), _) => {
            V::Bin(array.as_binary::<i32>().value(i).to_vec())
        }
        (TypeKind::Date, _) => V::Date(array.as_primitive::<Date32Type>().value(i)),
        (TypeKind::Time(_), _) => V::Time(array.as_primitive::<Time32MillisecondType>().value(i)),
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
            match unit {
                TimeUnit::Second => V::Ts(v.wrapping_mul(1000), 0),
                TimeUnit::Millisecond => V::Ts(v, 0),
                TimeUnit::Microsecond => V::Ts(v.div_euclid(1000), v.rem_euclid(1000) * 1000),
                TimeUnit::Nanosecond => V::Ts(v.div_euclid(1_000_000), v.rem_euclid(1_000_000)),
            }
        }
        (other, dt) => {
            return Err(CastError::Unsupported(format!(
                "cannot read {other:?} from {dt}"
            )))
        }
    })
}

pub(super) fn build(
    values: Vec<Option<V>>,
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
                    None => None,
                    Some($pat) => Some($e),
                    Some(_) => return Err(mismatch()),
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
                    None => None,
                    Some(V::Bool(b)) => Some(b),
                    Some(_) => return Err(mismatch()),
                });
            }
            Arc::new(BooleanArray::from(out))
        }
        TypeKind::TinyInt => prim!(Int8Type, V::Int(x) => x as i8),
        TypeKind::SmallInt => prim!(Int16Type, V::Int(x) => x as i16),
        TypeKind::Int => prim!(Int32Type, V::Int(x) => x as i32),
        TypeKind::BigInt => prim!(Int64Type, V::Int(x) => x),
        TypeKind::Float => prim!(Float32Type, V::Float(x) => x),
        TypeKind::Double => prim!(Float64Type, V::Double(x) => x),
        TypeKind::Date => prim!(Date32Type, V::Date(x) => x),
        TypeKind::Time(_) => prim!(Time32MillisecondType, V::Time(x) => x),
        TypeKind::Decimal { precision, scale } => {
            let array = prim!(Decimal128Type, V::Dec(x, _) => x);
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
                    None => None,
                    Some(V::Str(s)) => Some(s),
                    Some(_) => return Err(mismatch()),
                });
            }
            Arc::new(StringArray::from(out))
        }
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    None => None,
                    Some(V::Bin(b)) => Some(b),
                    Some(_) => return Err(mismatch()),
                });
            }
            Arc::new(BinaryArray::from_iter(out))
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
                    None => None,
                    Some(V::Ts(m, n)) => Some(export_epoch(m, n, unit)),
                    Some(_) => return Err(mismatch()),
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
