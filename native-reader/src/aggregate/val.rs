//! Values of any Paimon type as the aggregate functions see them, from and to Arrow arrays.

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
/// A value of any Paimon type, as the collection aggregate functions see it (dates, times and
/// timestamps as `Int` in their Arrow unit).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Val {
    Null,
    Bool(bool),
    Int(i64),
    Float(f32),
    Double(f64),
    Decimal(i128),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<Val>),
    Map(Vec<(Val, Val)>),
    Row(Vec<Val>),
}

impl Val {
    /// The value at `row` of `array` (any type the native reader produces).
    pub(crate) fn from_arrow(array: &dyn Array, row: usize) -> std::result::Result<Val, String> {
        if array.is_null(row) {
            return Ok(Val::Null);
        }
        Ok(match array.data_type() {
            ArrowType::Boolean => Val::Bool(array.as_boolean().value(row)),
            ArrowType::Int8 => Val::Int(array.as_primitive::<Int8Type>().value(row) as i64),
            ArrowType::Int16 => Val::Int(array.as_primitive::<Int16Type>().value(row) as i64),
            ArrowType::Int32 => Val::Int(array.as_primitive::<Int32Type>().value(row) as i64),
            ArrowType::Int64 => Val::Int(array.as_primitive::<Int64Type>().value(row)),
            ArrowType::Date32 => Val::Int(array.as_primitive::<Date32Type>().value(row) as i64),
            ArrowType::Time32(TimeUnit::Millisecond) => {
                Val::Int(array.as_primitive::<Time32MillisecondType>().value(row) as i64)
            }
            ArrowType::Timestamp(unit, _) => Val::Int(match unit {
                TimeUnit::Second => array.as_primitive::<TimestampSecondType>().value(row),
                TimeUnit::Millisecond => {
                    array.as_primitive::<TimestampMillisecondType>().value(row)
                }
                TimeUnit::Microsecond => {
                    array.as_primitive::<TimestampMicrosecondType>().value(row)
                }
                TimeUnit::Nanosecond => array.as_primitive::<TimestampNanosecondType>().value(row),
            }),
            ArrowType::Float32 => Val::Float(array.as_primitive::<Float32Type>().value(row)),
            ArrowType::Float64 => Val::Double(array.as_primitive::<Float64Type>().value(row)),
            ArrowType::Decimal128(_, _) => {
                Val::Decimal(array.as_primitive::<Decimal128Type>().value(row))
            }
            ArrowType::Utf8 => Val::Str(array.as_string::<i32>().value(row).to_string()),
            ArrowType::Binary => Val::Bytes(array.as_binary::<i32>().value(row).to_vec()),
            ArrowType::List(_) => {
                let values = array.as_list::<i32>().value(row);
                Val::List(
                    (0..values.len())
                        .map(|i| Val::from_arrow(values.as_ref(), i))
                        .collect::<std::result::Result<_, _>>()?,
                )
            }
            ArrowType::Map(_, _) => {
                let entries = array.as_map().value(row);
                if entries.num_columns() != 2 {
                    return Err("a map whose entries are not (key, value)".into());
                }
                let (k, v) = (entries.column(0), entries.column(1));
                Val::Map(
                    (0..entries.len())
                        .map(|i| {
                            Ok((
                                Val::from_arrow(k.as_ref(), i)?,
                                Val::from_arrow(v.as_ref(), i)?,
                            ))
                        })
                        .collect::<std::result::Result<_, String>>()?,
                )
            }
            ArrowType::Struct(_) => {
                let s = array.as_struct();
                Val::Row(
                    s.columns()
                        .iter()
                        .map(|c| Val::from_arrow(c.as_ref(), row))
                        .collect::<std::result::Result<_, _>>()?,
                )
            }
            other => return Err(format!("values of type {other} are not aggregated")),
        })
    }

    /// An Arrow array of `data_type` holding `values`.
    pub(crate) fn to_arrow(
        data_type: &ArrowType,
        values: &[Val],
    ) -> std::result::Result<ArrayRef, String> {
        let bad = |v: &Val| format!("{v:?} does not fit {data_type}");
        macro_rules! prim {
            ($arr:ty, $pat:pat => $e:expr) => {{
                let v: std::result::Result<Vec<_>, String> = values
                    .iter()
                    .map(|v| match v {
                        Val::Null => Ok(None),
                        $pat => Ok(Some($e)),
                        o => Err(bad(o)),
                    })
                    .collect();
                Arc::new(<$arr>::from(v?)) as ArrayRef
            }};
        }
        let nulls = || NullBuffer::from(values.iter().map(|v| *v != Val::Null).collect::<Vec<_>>());
        Ok(match data_type {
            ArrowType::Boolean => prim!(BooleanArray, Val::Bool(b) => *b),
            ArrowType::Int8 => prim!(Int8Array, Val::Int(i) => *i as i8),
            ArrowType::Int16 => prim!(Int16Array, Val::Int(i) => *i as i16),
            ArrowType::Int32 => prim!(Int32Array, Val::Int(i) => *i as i32),
            ArrowType::Int64 => prim!(Int64Array, Val::Int(i) => *i),
            ArrowType::Date32 => prim!(Date32Array, Val::Int(i) => *i as i32),
            ArrowType::Time32(TimeUnit::Millisecond) => {
                prim!(Time32MillisecondArray, Val::Int(i) => *i as i32)
            }
            ArrowType::Timestamp(unit, tz) => {
                let a: ArrayRef = match unit {
                    TimeUnit::Second => prim!(TimestampSecondArray, Val::Int(i) => *i),
                    TimeUnit::Millisecond => prim!(TimestampMillisecondArray, Val::Int(i) => *i),
                    TimeUnit::Microsecond => prim!(TimestampMicrosecondArray, Val::Int(i) => *i),
                    TimeUnit::Nanosecond => prim!(TimestampNanosecondArray, Val::Int(i) => *i),
                };
                arrow::compute::cast(&a, &ArrowType::Timestamp(*unit, tz.clone()))
                    .map_err(|e| e.to_string())?
            }
            ArrowType::Float32 => prim!(Float32Array, Val::Float(f) => *f),
            ArrowType::Float64 => prim!(Float64Array, Val::Double(f) => *f),
            ArrowType::Decimal128(p, s) => {
                let v: std::result::Result<Vec<_>, String> = values
                    .iter()
                    .map(|v| match v {
                        Val::Null => Ok(None),
                        Val::Decimal(d) => Ok(Some(*d)),
                        o => Err(bad(o)),
                    })
                    .collect();
                Arc::new(
                    Decimal128Array::from(v?)
                        .with_precision_and_scale(*p, *s)
                        .map_err(|e| e.to_string())?,
                )
            }
            ArrowType::Utf8 => prim!(StringArray, Val::Str(s) => s.as_str()),
            ArrowType::Binary => {
                let v: std::result::Result<Vec<Option<&[u8]>>, String> = values
                    .iter()
                    .map(|v| match v {
                        Val::Null => Ok(None),
                        Val::Bytes(b) => Ok(Some(b.as_slice())),
                        o => Err(bad(o)),
                    })
                    .collect();
                Arc::new(BinaryArray::from(v?))
            }
            ArrowType::List(field) => {
                let mut lengths = Vec::with_capacity(values.len());
                let mut children = Vec::new();
                for v in values {
                    match v {
                        Val::Null => lengths.push(0),
                        Val::List(items) => {
                            lengths.push(items.len());
                            children.extend(items.iter().cloned());
                        }
                        o => return Err(bad(o)),
                    }
                }
                let child = Val::to_arrow(field.data_type(), &children)?;
                Arc::new(
                    ListArray::try_new(
                        field.clone(),
                        OffsetBuffer::from_lengths(lengths),
                        child,
                        Some(nulls()),
                    )
                    .map_err(|e| e.to_string())?,
                )
            }
            ArrowType::Map(field, sorted) => {
                let ArrowType::Struct(kv) = field.data_type() else {
                    return Err(format!("map entries of type {}", field.data_type()));
                };
                if kv.len() != 2 {
                    return Err("map entries are not (key, value)".into());
                }
                let mut lengths = Vec::with_capacity(values.len());
                let (mut keys, mut vals) = (Vec::new(), Vec::new());
                for v in values {
                    match v {
                        Val::Null => lengths.push(0),
                        Val::Map(entries) => {
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
                        Val::to_arrow(kv[0].data_type(), &keys)?,
                        Val::to_arrow(kv[1].data_type(), &vals)?,
                    ],
                    None,
                )
                .map_err(|e| e.to_string())?;
                Arc::new(
                    MapArray::try_new(
                        field.clone(),
                        OffsetBuffer::from_lengths(lengths),
                        entries,
                        Some(nulls()),
                        *sorted,
                    )
                    .map_err(|e| e.to_string())?,
                )
            }
            ArrowType::Struct(fields) => {
                let mut columns: Vec<Vec<Val>> =
                    vec![Vec::with_capacity(values.len()); fields.len()];
                for v in values {
                    match v {
                        Val::Null => columns.iter_mut().for_each(|c| c.push(Val::Null)),
                        Val::Row(items) if items.len() == fields.len() => {
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
                    .map(|(f, c)| Val::to_arrow(f.data_type(), c))
                    .collect::<std::result::Result<Vec<_>, _>>()?;
                Arc::new(
                    StructArray::try_new(fields.clone(), children, Some(nulls()))
                        .map_err(|e| e.to_string())?,
                )
            }
            other => return Err(format!("computed values of type {other} are not supported")),
        })
    }
}
