//! One requested column's buffers: values decoded from the Avro binary encoding by (writer schema, Paimon
//! type), finished as the column's Arrow array.

use std::sync::Arc;

use arrow::buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_array::types::{
    Date32Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    Time32MillisecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Decimal128Array, ListArray, MapArray, PrimitiveArray,
    StringArray, StructArray, UInt32Array,
};
use arrow_schema::{DataType as ArrowType, TimeUnit};

use crate::decode::conform::export_epoch;
use crate::decode::DecodeError;
use crate::java::big_decimal::rescale_half_up;
use crate::schema::{DataType, TypeKind};
use crate::types::timestamp_unit;

use super::cursor::{skip, Cursor};
use super::map_order::java_map_order;
use super::schema::{unwrap_nullable, Logical, Schema};

/// One column's buffers; `t` is the Paimon type it is decoded as.
pub(super) struct Column {
    t: DataType,
    /// The Arrow type [`Column::finish`] builds (field metadata included).
    pub(super) target: ArrowType,
    valid: Vec<bool>,
    data: Data,
}

pub(super) enum Data {
    Bool(Vec<bool>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    /// Exported epoch values in `unit`.
    Timestamp(TimeUnit, Vec<i64>),
    Decimal {
        precision: u8,
        scale: i8,
        values: Vec<i128>,
    },
    /// Strings (UTF-8 checked at finish) or binary.
    Bytes {
        offsets: Vec<i32>,
        data: Vec<u8>,
    },
    List {
        offsets: Vec<i32>,
        child: Box<Column>,
    },
    Map {
        offsets: Vec<i32>,
        key: Box<Column>,
        value: Box<Column>,
    },
    Struct(Vec<Column>),
}

impl Column {
    /// Buffers for values of Paimon type `t`, finished as `target` (`field_arrow_type(t, id)`).
    pub(super) fn new(t: &DataType, target: &ArrowType) -> Result<Column, DecodeError> {
        let child_type = |i: usize| -> Result<ArrowType, DecodeError> {
            match target {
                ArrowType::List(f) | ArrowType::FixedSizeList(f, _) if i == 0 => {
                    Ok(f.data_type().clone())
                }
                ArrowType::Map(entries, _) => match entries.data_type() {
                    ArrowType::Struct(kv) if i < 2 => Ok(kv[i].data_type().clone()),
                    _ => Err(DecodeError::from(format!(
                        "map type {target} without key and value"
                    ))),
                },
                ArrowType::Struct(fields) => {
                    fields.get(i).map(|f| f.data_type().clone()).ok_or_else(|| {
                        DecodeError::from(format!("struct type {target} without field {i}"))
                    })
                }
                _ => Err(DecodeError::from(format!("{target} has no child {i}"))),
            }
        };
        let data = match &t.kind {
            TypeKind::Boolean => Data::Bool(Vec::new()),
            TypeKind::TinyInt => Data::I8(Vec::new()),
            TypeKind::SmallInt => Data::I16(Vec::new()),
            TypeKind::Int | TypeKind::Date | TypeKind::Time(_) => Data::I32(Vec::new()),
            TypeKind::BigInt => Data::I64(Vec::new()),
            TypeKind::Float => Data::F32(Vec::new()),
            TypeKind::Double => Data::F64(Vec::new()),
            TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
                Data::Timestamp(timestamp_unit(*p), Vec::new())
            }
            TypeKind::Decimal { precision, scale } => Data::Decimal {
                precision: *precision,
                scale: *scale,
                values: Vec::new(),
            },
            TypeKind::Char(_)
            | TypeKind::VarChar(_)
            | TypeKind::Binary(_)
            | TypeKind::VarBinary(_) => Data::Bytes {
                offsets: vec![0],
                data: Vec::new(),
            },
            // VECTOR is an Avro array (`AvroSchemaConverter`), decoded as a list and made fixed-size in
            // `finish`.
            TypeKind::Vector(e, _) => Data::List {
                offsets: vec![0],
                child: Box::new(Column::new(e, &child_type(0)?)?),
            },
            // paimon-format's Avro writer cannot write VARIANT; BLOB tables are refused before decoding
            // (`Table::check_readable`).
            TypeKind::Variant | TypeKind::Blob => {
                return Err(DecodeError::Unsupported(format!(
                    "type {:?} in an Avro data file is not supported by this reader",
                    t.kind
                )))
            }
            TypeKind::Array(e) => Data::List {
                offsets: vec![0],
                child: Box::new(Column::new(e, &child_type(0)?)?),
            },
            TypeKind::Map(k, v) => Data::Map {
                offsets: vec![0],
                key: Box::new(Column::new(k, &child_type(0)?)?),
                value: Box::new(Column::new(v, &child_type(1)?)?),
            },
            TypeKind::Multiset(e) => Data::Map {
                offsets: vec![0],
                key: Box::new(Column::new(e, &child_type(0)?)?),
                value: Box::new(Column::new(
                    &DataType {
                        kind: TypeKind::Int,
                        nullable: false,
                    },
                    &child_type(1)?,
                )?),
            },
            TypeKind::Row(fields) => Data::Struct(
                fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| Column::new(&f.data_type, &child_type(i)?))
                    .collect::<Result<_, _>>()?,
            ),
        };
        Ok(Column {
            t: t.clone(),
            target: target.clone(),
            valid: Vec::new(),
            data,
        })
    }

    pub(super) fn len(&self) -> usize {
        self.valid.len()
    }

    /// Appends a NULL (nested children get placeholder entries where Arrow needs them).
    pub(super) fn push_null(&mut self) {
        self.valid.push(false);
        match &mut self.data {
            Data::Bool(v) => v.push(false),
            Data::I8(v) => v.push(0),
            Data::I16(v) => v.push(0),
            Data::I32(v) => v.push(0),
            Data::I64(v) | Data::Timestamp(_, v) => v.push(0),
            Data::F32(v) => v.push(0.0),
            Data::F64(v) => v.push(0.0),
            Data::Decimal { values, .. } => values.push(0),
            Data::Bytes { offsets, data } => offsets.push(data.len() as i32),
            Data::List { offsets, .. } | Data::Map { offsets, .. } => {
                let last = offsets.last().copied().unwrap_or(0);
                offsets.push(last);
            }
            Data::Struct(children) => children.iter_mut().for_each(Column::push_null),
        }
    }

    /// Decodes one value written with `schema` and appends it.
    pub(super) fn decode(
        &mut self,
        schema: &Schema,
        c: &mut Cursor<'_>,
    ) -> Result<(), DecodeError> {
        if let Schema::Union(branches) = schema {
            let b = c.branch(branches)?;
            return match b {
                Schema::Null => {
                    self.push_null();
                    Ok(())
                }
                other => self.decode(other, c),
            };
        }
        if let Schema::Null = schema {
            self.push_null();
            return Ok(());
        }
        let mismatch =
            |what: &str| DecodeError::from(format!("cannot read Avro {schema:?} as {what}"));
        match (&mut self.data, schema) {
            (Data::Bool(v), Schema::Boolean) => v.push(c.boolean()?),
            (Data::I8(v), Schema::Int | Schema::Long(_)) => v.push(c.long()? as i8),
            (Data::I16(v), Schema::Int | Schema::Long(_)) => v.push(c.long()? as i16),
            (Data::I32(v), Schema::Int) => v.push(c.int()?),
            (Data::I64(v), Schema::Int | Schema::Long(_)) => v.push(c.long()?),
            (Data::F32(v), Schema::Float) => v.push(c.f32()?),
            (Data::F64(v), Schema::Double) => v.push(c.f64()?),
            (Data::Timestamp(unit, v), Schema::Long(logical)) => {
                let raw = c.long()?;
                let (millis, nanos) = match logical {
                    Logical::TimestampMillis => (raw, 0),
                    Logical::TimestampMicros => (raw.div_euclid(1000), raw.rem_euclid(1000) * 1000),
                    _ => return Err(mismatch("a timestamp (no timestamp logical type)")),
                };
                v.push(export_epoch(millis, nanos, *unit));
            }
            (
                Data::Decimal {
                    precision,
                    scale,
                    values,
                },
                Schema::Bytes(Logical::Decimal { scale: file_scale })
                | Schema::Fixed(_, Logical::Decimal { scale: file_scale }),
            ) => {
                let bytes = match schema {
                    Schema::Fixed(n, _) => c.take(*n)?,
                    _ => c.len_prefixed()?,
                };
                match decimal(bytes, *file_scale, *precision, *scale) {
                    Some(v) => values.push(v),
                    None => {
                        // Too many digits for the column: NULL, as `Decimal.fromBigDecimal` returns.
                        values.push(0);
                        self.valid.push(false);
                        return Ok(());
                    }
                }
            }
            (Data::Bytes { offsets, data }, Schema::String | Schema::Bytes(_)) => {
                data.extend_from_slice(c.len_prefixed()?);
                offsets
                    .push(i32::try_from(data.len()).map_err(|_| "column over 2 GiB in one batch")?);
            }
            (Data::Bytes { offsets, data }, Schema::Fixed(n, _)) => {
                data.extend_from_slice(c.take(*n)?);
                offsets
                    .push(i32::try_from(data.len()).map_err(|_| "column over 2 GiB in one batch")?);
            }
            (Data::List { offsets, child }, Schema::Array(items)) => {
                loop {
                    let n = c.block_count()?;
                    if n == 0 {
                        break;
                    }
                    for _ in 0..n {
                        child.decode(items, c)?;
                    }
                }
                offsets.push(child.len() as i32);
            }
            (
                Data::Map {
                    offsets,
                    key,
                    value,
                },
                Schema::Map(values),
            ) => {
                loop {
                    let n = c.block_count()?;
                    if n == 0 {
                        break;
                    }
                    for _ in 0..n {
                        key.decode(&Schema::String, c)?;
                        value.decode(values, c)?;
                    }
                }
                offsets.push(key.len() as i32);
            }
            (
                Data::Map {
                    offsets,
                    key,
                    value,
                },
                Schema::Array(items),
            ) => {
                let Schema::Record(fields) = unwrap_nullable(items) else {
                    return Err(mismatch("a map (array items are not key/value records)"));
                };
                loop {
                    let n = c.block_count()?;
                    if n == 0 {
                        break;
                    }
                    for _ in 0..n {
                        if let Schema::Union(b) = items.as_ref() {
                            // A nullable entry record: Java would fail on a NULL entry too.
                            if let Schema::Null = c.branch(b)? {
                                return Err("NULL map entry".into());
                            }
                        }
                        let (mut got_key, mut got_value) = (false, false);
                        for (name, f) in fields {
                            match name.as_str() {
                                "key" => {
                                    key.decode(f, c)?;
                                    got_key = true;
                                }
                                "value" => {
                                    value.decode(f, c)?;
                                    got_value = true;
                                }
                                _ => skip(f, c)?,
                            }
                        }
                        if !got_key {
                            return Err("map entry record without `key`".into());
                        }
                        if !got_value {
                            value.push_null();
                        }
                    }
                }
                offsets.push(key.len() as i32);
            }
            (Data::Struct(children), Schema::Record(fields)) => {
                let TypeKind::Row(targets) = &self.t.kind else {
                    return Err("struct column of a non-ROW type".into());
                };
                let mut seen = vec![false; children.len()];
                for (name, f) in fields {
                    match targets.iter().position(|t| &t.name == name) {
                        Some(i) if !seen[i] => {
                            children[i].decode(f, c)?;
                            seen[i] = true;
                        }
                        _ => skip(f, c)?,
                    }
                }
                for (child, seen) in children.iter_mut().zip(seen) {
                    if !seen {
                        child.push_null();
                    }
                }
            }
            _ => return Err(mismatch(&format!("{:?}", self.t.kind))),
        }
        self.valid.push(true);
        Ok(())
    }

    pub(super) fn nulls(&self) -> Option<NullBuffer> {
        if self.valid.iter().all(|v| *v) {
            None
        } else {
            Some(NullBuffer::from(self.valid.clone()))
        }
    }

    /// Builds the Arrow array of exactly `self.target` and resets the buffers.
    pub(super) fn finish(&mut self) -> Result<ArrayRef, DecodeError> {
        let target = self.target.clone();
        let nulls = self.nulls();
        let len = self.len();
        self.valid.clear();
        let err = DecodeError::from;
        let array: ArrayRef = match &mut self.data {
            Data::Bool(v) => Arc::new(BooleanArray::new(std::mem::take(v).into(), nulls)),
            Data::I8(v) => Arc::new(PrimitiveArray::<Int8Type>::new(
                std::mem::take(v).into(),
                nulls,
            )),
            Data::I16(v) => Arc::new(PrimitiveArray::<Int16Type>::new(
                std::mem::take(v).into(),
                nulls,
            )),
            Data::I32(v) => {
                let values: ScalarBuffer<i32> = std::mem::take(v).into();
                match target {
                    ArrowType::Date32 => Arc::new(PrimitiveArray::<Date32Type>::new(values, nulls)),
                    ArrowType::Time32(_) => {
                        Arc::new(PrimitiveArray::<Time32MillisecondType>::new(values, nulls))
                    }
                    _ => Arc::new(PrimitiveArray::<Int32Type>::new(values, nulls)),
                }
            }
            Data::I64(v) => Arc::new(PrimitiveArray::<Int64Type>::new(
                std::mem::take(v).into(),
                nulls,
            )),
            Data::F32(v) => Arc::new(PrimitiveArray::<Float32Type>::new(
                std::mem::take(v).into(),
                nulls,
            )),
            Data::F64(v) => Arc::new(PrimitiveArray::<Float64Type>::new(
                std::mem::take(v).into(),
                nulls,
            )),
            Data::Timestamp(unit, v) => {
                let values: ScalarBuffer<i64> = std::mem::take(v).into();
                let zone = match &target {
                    ArrowType::Timestamp(_, z) => z.clone(),
                    _ => None,
                };
                match unit {
                    TimeUnit::Second => Arc::new(
                        PrimitiveArray::<TimestampSecondType>::new(values, nulls)
                            .with_timezone_opt(zone),
                    ),
                    TimeUnit::Millisecond => Arc::new(
                        PrimitiveArray::<TimestampMillisecondType>::new(values, nulls)
                            .with_timezone_opt(zone),
                    ),
                    TimeUnit::Microsecond => Arc::new(
                        PrimitiveArray::<TimestampMicrosecondType>::new(values, nulls)
                            .with_timezone_opt(zone),
                    ),
                    TimeUnit::Nanosecond => Arc::new(
                        PrimitiveArray::<TimestampNanosecondType>::new(values, nulls)
                            .with_timezone_opt(zone),
                    ),
                }
            }
            Data::Decimal {
                precision,
                scale,
                values,
            } => Arc::new(
                Decimal128Array::new(std::mem::take(values).into(), nulls)
                    .with_precision_and_scale(*precision, *scale)
                    .map_err(err)?,
            ),
            Data::Bytes { offsets, data } => {
                let offsets = OffsetBuffer::new(std::mem::replace(offsets, vec![0]).into());
                let data = std::mem::take(data);
                let plain: ArrayRef = match target {
                    ArrowType::Utf8 | ArrowType::Utf8View => Arc::new(
                        StringArray::try_new(offsets, data.into(), nulls)
                            .map_err(|e| format!("invalid UTF-8 string: {e}"))?,
                    ),
                    _ => Arc::new(BinaryArray::try_new(offsets, data.into(), nulls).map_err(err)?),
                };
                match target {
                    // Top-level columns: views of the bytes just built (the data buffer is shared).
                    ArrowType::Utf8View | ArrowType::BinaryView => {
                        arrow_cast::cast(&plain, &target).map_err(err)?
                    }
                    _ => plain,
                }
            }
            Data::List { offsets, child } => {
                let offsets = OffsetBuffer::new(std::mem::replace(offsets, vec![0]).into());
                match (&target, &self.t.kind) {
                    (ArrowType::List(field), _) => Arc::new(
                        ListArray::try_new(field.clone(), offsets, child.finish()?, nulls)
                            .map_err(err)?,
                    ),
                    (ArrowType::FixedSizeList(field, size), TypeKind::Vector(element, length)) => {
                        let list: ArrayRef = Arc::new(
                            ListArray::try_new(
                                Arc::new(field.as_ref().clone()),
                                offsets,
                                child.finish()?,
                                nulls,
                            )
                            .map_err(err)?,
                        );
                        crate::decode::conform::vector(&list, element, *length, field, *size)?
                    }
                    _ => return Err("list column of a non-list type".into()),
                }
            }
            Data::Map {
                offsets,
                key,
                value,
            } => {
                let ArrowType::Map(entries, sorted) = &target else {
                    return Err("map column of a non-map type".into());
                };
                let ArrowType::Struct(kv) = entries.data_type() else {
                    return Err("map entries are not a struct".into());
                };
                let offsets = std::mem::replace(offsets, vec![0]);
                let key_type = key.t.clone();
                let mut keys = key.finish()?;
                let mut values = value.finish()?;
                if let Some(order) = java_map_order(&keys, &key_type, &offsets) {
                    let indices = UInt32Array::from(order);
                    keys = arrow_select::take::take(&keys, &indices, None).map_err(err)?;
                    values = arrow_select::take::take(&values, &indices, None).map_err(err)?;
                }
                let entries_array =
                    StructArray::try_new(kv.clone(), vec![keys, values], None).map_err(err)?;
                Arc::new(
                    MapArray::try_new(
                        entries.clone(),
                        OffsetBuffer::new(offsets.into()),
                        entries_array,
                        nulls,
                        *sorted,
                    )
                    .map_err(err)?,
                )
            }
            Data::Struct(children) => {
                let ArrowType::Struct(fields) = &target else {
                    return Err("struct column of a non-struct type".into());
                };
                let arrays = children
                    .iter_mut()
                    .map(Column::finish)
                    .collect::<Result<Vec<_>, _>>()?;
                if arrays.is_empty() {
                    Arc::new(StructArray::new_empty_fields(len, nulls))
                } else {
                    Arc::new(StructArray::try_new(fields.clone(), arrays, nulls).map_err(err)?)
                }
            }
        };
        Ok(array)
    }
}

/// The unscaled value of a big-endian two's complement decimal at `from_scale`, rescaled HALF_UP to
/// `to_scale` ([`rescale_half_up`]); `None` when it has more than `precision` digits (or does not fit 128
/// bits).
pub(super) fn decimal(bytes: &[u8], from_scale: i32, precision: u8, to_scale: i8) -> Option<i128> {
    if bytes.len() > 16 {
        // Accept longer encodings only when they are sign extension.
        let (head, tail) = bytes.split_at(bytes.len() - 16);
        let fill = if tail[0] & 0x80 != 0 { 0xFF } else { 0 };
        if !head.iter().all(|b| *b == fill) {
            return None;
        }
        return decimal(tail, from_scale, precision, to_scale);
    }
    let mut v: i128 = if bytes.first().is_some_and(|b| b & 0x80 != 0) {
        -1
    } else {
        0
    };
    for b in bytes {
        v = (v << 8) | i128::from(*b);
    }
    rescale_half_up(v, from_scale, precision, i32::from(to_scale))
}
