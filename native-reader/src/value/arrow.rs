//! [`Datum`]s from and to Arrow arrays of the types the native reader produces ([`crate::types::arrow_type`]):
//! integers of every width, DATE (days) and TIME (milliseconds) as [`Datum::Int`]; TIMESTAMP in its Arrow
//! unit ([`crate::types::timestamp_unit`]) as [`Datum::Timestamp`]; DECIMAL with the array's precision and
//! scale; ARRAY, MAP and ROW as nested values.

use std::sync::Arc;

use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time32MillisecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float32Array,
    Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, ListArray, MapArray, StringArray,
    StructArray, Time32MillisecondArray, TimestampMicrosecondArray, TimestampMillisecondArray,
    TimestampNanosecondArray, TimestampSecondArray,
};
use arrow_schema::{DataType as ArrowType, TimeUnit};

use super::{Datum, ValueError};

type ValueResult<T> = Result<T, ValueError>;

impl Datum {
    /// The value at `row` of `array` (any type the native reader produces).
    pub(crate) fn from_arrow(array: &dyn Array, row: usize) -> ValueResult<Datum> {
        if array.is_null(row) {
            return Ok(Datum::Null);
        }
        Ok(match array.data_type() {
            ArrowType::Boolean => Datum::Boolean(array.as_boolean().value(row)),
            ArrowType::Int8 => Datum::Int(array.as_primitive::<Int8Type>().value(row) as i64),
            ArrowType::Int16 => Datum::Int(array.as_primitive::<Int16Type>().value(row) as i64),
            ArrowType::Int32 => Datum::Int(array.as_primitive::<Int32Type>().value(row) as i64),
            ArrowType::Int64 => Datum::Int(array.as_primitive::<Int64Type>().value(row)),
            ArrowType::Date32 => Datum::Int(array.as_primitive::<Date32Type>().value(row) as i64),
            ArrowType::Time32(TimeUnit::Millisecond) => {
                Datum::Int(array.as_primitive::<Time32MillisecondType>().value(row) as i64)
            }
            ArrowType::Timestamp(unit, _) => {
                let v = match unit {
                    TimeUnit::Second => array.as_primitive::<TimestampSecondType>().value(row),
                    TimeUnit::Millisecond => {
                        array.as_primitive::<TimestampMillisecondType>().value(row)
                    }
                    TimeUnit::Microsecond => {
                        array.as_primitive::<TimestampMicrosecondType>().value(row)
                    }
                    TimeUnit::Nanosecond => {
                        array.as_primitive::<TimestampNanosecondType>().value(row)
                    }
                };
                timestamp_from_unit(v, *unit)?
            }
            ArrowType::Float32 => Datum::Float(array.as_primitive::<Float32Type>().value(row)),
            ArrowType::Float64 => Datum::Double(array.as_primitive::<Float64Type>().value(row)),
            ArrowType::Decimal128(precision, scale) => Datum::Decimal {
                unscaled: array.as_primitive::<Decimal128Type>().value(row),
                precision: *precision,
                scale: *scale,
            },
            ArrowType::Utf8 => Datum::String(array.as_string::<i32>().value(row).to_string()),
            ArrowType::Utf8View => Datum::String(array.as_string_view().value(row).to_string()),
            ArrowType::Binary => Datum::Bytes(array.as_binary::<i32>().value(row).to_vec()),
            ArrowType::BinaryView => Datum::Bytes(array.as_binary_view().value(row).to_vec()),
            ArrowType::List(_) => {
                let values = array.as_list::<i32>().value(row);
                Datum::List(
                    (0..values.len())
                        .map(|i| Datum::from_arrow(values.as_ref(), i))
                        .collect::<ValueResult<_>>()?,
                )
            }
            ArrowType::Map(_, _) => {
                let entries = array.as_map().value(row);
                if entries.num_columns() != 2 {
                    return Err(ValueError::Mismatch(
                        "a map whose entries are not (key, value)".into(),
                    ));
                }
                let (k, v) = (entries.column(0), entries.column(1));
                Datum::Map(
                    (0..entries.len())
                        .map(|i| {
                            Ok((
                                Datum::from_arrow(k.as_ref(), i)?,
                                Datum::from_arrow(v.as_ref(), i)?,
                            ))
                        })
                        .collect::<ValueResult<_>>()?,
                )
            }
            ArrowType::Struct(_) => {
                let s = array.as_struct();
                Datum::Row(
                    s.columns()
                        .iter()
                        .map(|c| Datum::from_arrow(c.as_ref(), row))
                        .collect::<ValueResult<_>>()?,
                )
            }
            other => {
                return Err(ValueError::Mismatch(format!(
                    "values of type {other} are not aggregated"
                )))
            }
        })
    }

    /// An Arrow array of `data_type` holding `values`.
    pub(crate) fn to_arrow(data_type: &ArrowType, values: &[Datum]) -> ValueResult<ArrayRef> {
        let bad = |v: &Datum| ValueError::Mismatch(format!("{v:?} does not fit {data_type}"));
        macro_rules! prim {
            ($arr:ty, $pat:pat => $e:expr) => {{
                let v: ValueResult<Vec<_>> = values
                    .iter()
                    .map(|v| match v {
                        Datum::Null => Ok(None),
                        $pat => Ok(Some($e)),
                        o => Err(bad(o)),
                    })
                    .collect();
                Arc::new(<$arr>::from(v?)) as ArrayRef
            }};
        }
        let nulls =
            || NullBuffer::from(values.iter().map(|v| *v != Datum::Null).collect::<Vec<_>>());
        Ok(match data_type {
            ArrowType::Boolean => prim!(BooleanArray, Datum::Boolean(b) => *b),
            ArrowType::Int8 => prim!(Int8Array, Datum::Int(i) => *i as i8),
            ArrowType::Int16 => prim!(Int16Array, Datum::Int(i) => *i as i16),
            ArrowType::Int32 => prim!(Int32Array, Datum::Int(i) => *i as i32),
            ArrowType::Int64 => prim!(Int64Array, Datum::Int(i) => *i),
            ArrowType::Date32 => prim!(Date32Array, Datum::Int(i) => *i as i32),
            ArrowType::Time32(TimeUnit::Millisecond) => {
                prim!(Time32MillisecondArray, Datum::Int(i) => *i as i32)
            }
            ArrowType::Timestamp(unit, tz) => {
                let a: ArrayRef = match unit {
                    TimeUnit::Second => {
                        prim!(TimestampSecondArray, Datum::Timestamp { millis, nanos_of_milli } => timestamp_to_unit(*millis, *nanos_of_milli, TimeUnit::Second))
                    }
                    TimeUnit::Millisecond => {
                        prim!(TimestampMillisecondArray, Datum::Timestamp { millis, nanos_of_milli } => timestamp_to_unit(*millis, *nanos_of_milli, TimeUnit::Millisecond))
                    }
                    TimeUnit::Microsecond => {
                        prim!(TimestampMicrosecondArray, Datum::Timestamp { millis, nanos_of_milli } => timestamp_to_unit(*millis, *nanos_of_milli, TimeUnit::Microsecond))
                    }
                    TimeUnit::Nanosecond => {
                        prim!(TimestampNanosecondArray, Datum::Timestamp { millis, nanos_of_milli } => timestamp_to_unit(*millis, *nanos_of_milli, TimeUnit::Nanosecond))
                    }
                };
                arrow::compute::cast(&a, &ArrowType::Timestamp(*unit, tz.clone()))?
            }
            ArrowType::Float32 => prim!(Float32Array, Datum::Float(f) => *f),
            ArrowType::Float64 => prim!(Float64Array, Datum::Double(f) => *f),
            ArrowType::Decimal128(p, s) => {
                let v: ValueResult<Vec<_>> = values
                    .iter()
                    .map(|v| match v {
                        Datum::Null => Ok(None),
                        Datum::Decimal { unscaled, .. } => Ok(Some(*unscaled)),
                        o => Err(bad(o)),
                    })
                    .collect();
                Arc::new(Decimal128Array::from(v?).with_precision_and_scale(*p, *s)?)
            }
            ArrowType::Utf8 => prim!(StringArray, Datum::String(s) => s.as_str()),
            ArrowType::Binary => {
                let v: ValueResult<Vec<Option<&[u8]>>> = values
                    .iter()
                    .map(|v| match v {
                        Datum::Null => Ok(None),
                        Datum::Bytes(b) => Ok(Some(b.as_slice())),
                        o => Err(bad(o)),
                    })
                    .collect();
                Arc::new(BinaryArray::from(v?))
            }
            ArrowType::Utf8View | ArrowType::BinaryView => {
                let plain = Datum::to_arrow(&crate::types::without_view(data_type), values)?;
                arrow::compute::cast(&plain, data_type)?
            }
            ArrowType::List(field) => {
                let mut lengths = Vec::with_capacity(values.len());
                let mut children = Vec::new();
                for v in values {
                    match v {
                        Datum::Null => lengths.push(0),
                        Datum::List(items) => {
                            lengths.push(items.len());
                            children.extend(items.iter().cloned());
                        }
                        o => return Err(bad(o)),
                    }
                }
                let child = Datum::to_arrow(field.data_type(), &children)?;
                Arc::new(ListArray::try_new(
                    field.clone(),
                    OffsetBuffer::from_lengths(lengths),
                    child,
                    Some(nulls()),
                )?)
            }
            ArrowType::FixedSizeList(field, size) => {
                // A NULL list takes `size` placeholder elements (NULL when the element is nullable,
                // else its zero value of the element type's array).
                let n = usize::try_from(*size).map_err(|_| bad(&Datum::Null))?;
                let mut children = Vec::with_capacity(values.len() * n);
                let mut placeholders = false;
                for v in values {
                    match v {
                        Datum::Null => {
                            placeholders = true;
                            children.extend(std::iter::repeat_n(Datum::Null, n));
                        }
                        Datum::List(items) if items.len() == n => {
                            children.extend(items.iter().cloned())
                        }
                        o => return Err(bad(o)),
                    }
                }
                let mut child = Datum::to_arrow(field.data_type(), &children)?;
                if !field.is_nullable() && placeholders {
                    // NOT NULL elements: the placeholders' validity is dropped (their slots are unread).
                    let data = child.to_data().into_builder().nulls(None).build()?;
                    child = arrow_array::make_array(data);
                }
                Arc::new(arrow_array::FixedSizeListArray::try_new(
                    field.clone(),
                    *size,
                    child,
                    Some(nulls()),
                )?)
            }
            ArrowType::Map(field, sorted) => {
                let ArrowType::Struct(kv) = field.data_type() else {
                    return Err(ValueError::Mismatch(format!(
                        "map entries of type {}",
                        field.data_type()
                    )));
                };
                if kv.len() != 2 {
                    return Err(ValueError::Mismatch(
                        "map entries are not (key, value)".into(),
                    ));
                }
                let mut lengths = Vec::with_capacity(values.len());
                let (mut keys, mut vals) = (Vec::new(), Vec::new());
                for v in values {
                    match v {
                        Datum::Null => lengths.push(0),
                        Datum::Map(entries) => {
                            lengths.push(entries.len());
                            for (k, x) in entries {
                                keys.push(k.clone());
                                vals.push(x.clone());
                            }
                        }
                        o => return Err(bad(o)),
                    }
                }
                let entries = StructArray::try_new(
                    kv.clone(),
                    vec![
                        Datum::to_arrow(kv[0].data_type(), &keys)?,
                        Datum::to_arrow(kv[1].data_type(), &vals)?,
                    ],
                    None,
                )?;
                Arc::new(MapArray::try_new(
                    field.clone(),
                    OffsetBuffer::from_lengths(lengths),
                    entries,
                    Some(nulls()),
                    *sorted,
                )?)
            }
            ArrowType::Struct(fields) => {
                let mut columns: Vec<Vec<Datum>> =
                    vec![Vec::with_capacity(values.len()); fields.len()];
                for v in values {
                    match v {
                        Datum::Null => columns.iter_mut().for_each(|c| c.push(Datum::Null)),
                        Datum::Row(items) if items.len() == fields.len() => {
                            for (c, x) in columns.iter_mut().zip(items) {
                                c.push(x.clone());
                            }
                        }
                        o => return Err(bad(o)),
                    }
                }
                let children = fields
                    .iter()
                    .zip(&columns)
                    .map(|(f, c)| Datum::to_arrow(f.data_type(), c))
                    .collect::<ValueResult<Vec<_>>>()?;
                Arc::new(StructArray::try_new(
                    fields.clone(),
                    children,
                    Some(nulls()),
                )?)
            }
            other => {
                return Err(ValueError::Mismatch(format!(
                    "computed values of type {other} are not supported"
                )))
            }
        })
    }
}

/// A TIMESTAMP held in Arrow `unit` as [`Datum::Timestamp`] (milliseconds and nanoseconds of the
/// millisecond). Errors: seconds beyond the milliseconds an `i64` holds (no Paimon timestamp is).
fn timestamp_from_unit(v: i64, unit: TimeUnit) -> ValueResult<Datum> {
    let (millis, nanos) = match unit {
        TimeUnit::Second => (
            v.checked_mul(1000).ok_or_else(|| {
                ValueError::Mismatch(format!("timestamp of {v} seconds is out of range"))
            })?,
            0,
        ),
        TimeUnit::Millisecond => (v, 0),
        TimeUnit::Microsecond => (v.div_euclid(1000), v.rem_euclid(1000) * 1000),
        TimeUnit::Nanosecond => (v.div_euclid(1_000_000), v.rem_euclid(1_000_000)),
    };
    Ok(Datum::Timestamp {
        millis,
        nanos_of_milli: nanos as i32,
    })
}

/// The value in Arrow `unit` of a timestamp (the inverse of [`timestamp_from_unit`]).
fn timestamp_to_unit(millis: i64, nanos_of_milli: i32, unit: TimeUnit) -> i64 {
    let nanos = i64::from(nanos_of_milli);
    match unit {
        TimeUnit::Second => millis.div_euclid(1000),
        TimeUnit::Millisecond => millis,
        TimeUnit::Microsecond => millis.wrapping_mul(1000).wrapping_add(nanos / 1000),
        TimeUnit::Nanosecond => millis.wrapping_mul(1_000_000).wrapping_add(nanos),
    }
}
