//! Bringing an array decoded by a format library to exactly the Arrow type [`crate::types::field_arrow_type`]
//! fixes for its Paimon type (nested field names, nullability and metadata included), with the value
//! conversions Paimon's readers and paimon-arrow's writers apply (e.g. timestamp units).
//!
//! Nested arrays are rebuilt around their (converted) children without copying buffers.

use std::sync::Arc;

use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use arrow_array::{
    new_null_array, Array, ArrayRef, ListArray, MapArray, PrimitiveArray, StructArray,
};
use arrow_schema::{DataType as ArrowType, Field, TimeUnit};

use super::shared_map;
use crate::decode::{DecodeError, FileColumn};
use crate::error::Result as ReadResult;
use crate::schema::{DataType, TypeKind};
use crate::variant::shredded;

/// One decoded batch of a data file as the read schema's columns: each file column found at its position is
/// [`conform`]ed and then passed through the format's own `fixup` (Parquet's NULL rows of nested ROWs, ORC's
/// CHAR padding); a column the file does not have is all NULL. Returns (rows, columns).
///
/// Errors: [`crate::Error::Decode`] or [`crate::Error::Library`] naming `path` and the column.
pub(crate) fn conform_batch(
    batch: &arrow_array::RecordBatch,
    columns: &[FileColumn],
    positions: &[Option<usize>],
    path: &std::path::Path,
    fixup: impl Fn(&ArrayRef, &DataType) -> Result<ArrayRef, DecodeError>,
) -> ReadResult<(usize, Vec<ArrayRef>)> {
    let rows = batch.num_rows();
    let mut out = Vec::with_capacity(columns.len());
    for (column, position) in columns.iter().zip(positions) {
        let found =
            position.and_then(|i| Some((batch.columns().get(i)?, batch.schema_ref().field(i))));
        let array = match found.map(|(a, field)| (a, field.metadata())) {
            Some((a, _))
                if !column.variant_shredding
                    && holds_shredded_variant(&column.data_type, a.data_type()) =>
            {
                return Err(DecodeError::Unsupported(
                    "a shredded VARIANT (`typed_value`), which this release reads as `value` and \
                     `metadata` alone (rebuilt from 1.3.0, PaimonShreddingUtils), is not supported"
                        .into(),
                )
                .prefixed(&format!("column `{}`", column.name))
                .at(path));
            }
            Some((a, metadata)) => logical(a, column, metadata)
                .and_then(|a| conform_to(&a, &column.data_type, &column.arrow_type()))
                .and_then(|a| fixup(&a, &column.data_type))
                .map_err(|e| e.prefixed(&format!("column `{}`", column.name)).at(path))?,
            None => new_null_array(&column.arrow_type(), rows),
        };
        out.push(array);
    }
    Ok((rows, out))
}

/// Whether a column of Paimon type `t` stored as `stored` holds a shredded VARIANT: a VARIANT stored as a
/// group with `typed_value`.
fn holds_shredded_variant(t: &DataType, stored: &ArrowType) -> bool {
    match (&t.kind, stored) {
        (TypeKind::Variant, ArrowType::Struct(fields)) => {
            fields.iter().any(|f| f.name() == shredded::TYPED_VALUE)
        }
        (TypeKind::Row(children), ArrowType::Struct(fields)) => children.iter().any(|c| {
            fields
                .iter()
                .find(|f| f.name() == &c.name)
                .is_some_and(|f| holds_shredded_variant(&c.data_type, f.data_type()))
        }),
        (
            TypeKind::Array(e) | TypeKind::Vector(e, _),
            ArrowType::List(f) | ArrowType::LargeList(f),
        ) => holds_shredded_variant(e, f.data_type()),
        (TypeKind::Map(k, v), ArrowType::Map(f, _)) => map_entries(f)
            .is_some_and(|(kt, vt)| holds_shredded_variant(k, kt) || holds_shredded_variant(v, vt)),
        (TypeKind::Multiset(k), ArrowType::Map(f, _)) => {
            map_entries(f).is_some_and(|(kt, _)| holds_shredded_variant(k, kt))
        }
        _ => false,
    }
}

/// The column as its Paimon type lays it out: a MAP stored in the shared-shredding layout rebuilt from its
/// struct (when the release reads that layout) with the field `metadata`; any other column as stored.
fn logical(
    array: &ArrayRef,
    column: &FileColumn,
    metadata: &std::collections::HashMap<String, String>,
) -> Result<ArrayRef, DecodeError> {
    if !(matches!(column.data_type.kind, TypeKind::Map(..))
        && shared_map::is_shared_shredding(array))
    {
        return Ok(array.clone());
    }
    if !column.map_shredding {
        return Err(DecodeError::Unsupported(
            "a MAP in the shared-shredding layout (from 2.0.0), which this release reads as its \
             physical struct, is not supported"
                .into(),
        ));
    }
    shared_map::to_map(array, metadata)
}

/// The key and value types of a map's entries field.
fn map_entries(entries: &Field) -> Option<(&ArrowType, &ArrowType)> {
    match entries.data_type() {
        ArrowType::Struct(kv) if kv.len() == 2 => Some((kv[0].data_type(), kv[1].data_type())),
        _ => None,
    }
}

/// Converts `array` (a column of Paimon type `t`) to `target` (its [`FileColumn::arrow_type`]); the error
/// is a reason (no file name).
fn conform_to(array: &ArrayRef, t: &DataType, target: &ArrowType) -> Result<ArrayRef, DecodeError> {
    if array.data_type() == target {
        return Ok(array.clone());
    }
    if let ArrowType::Null = array.data_type() {
        return Ok(new_null_array(target, array.len()));
    }
    if let ArrowType::Utf8View | ArrowType::BinaryView = target {
        // A top-level string or binary column the format did not decode as views (ORC, Avro, Parquet's
        // fixed-length binaries): its plain array, then views of its bytes (arrow-cast shares the data buffer;
        // values of at most 12 bytes are copied into their view).
        let plain = conform_to(array, t, &crate::types::without_view(target))?;
        return arrow_cast::cast(&plain, target).map_err(DecodeError::from);
    }
    match (&t.kind, target) {
        (TypeKind::Array(element), ArrowType::List(field)) => {
            let (offsets, values, nulls) = list_parts(array)?;
            let values = conform_to(&values, element, field.data_type())?;
            ListArray::try_new(field.clone(), offsets, values, nulls)
                .map(|a| Arc::new(a) as ArrayRef)
                .map_err(DecodeError::from)
        }
        (TypeKind::Map(key, value), ArrowType::Map(entries, sorted)) => {
            conform_map(array, key, value, entries, *sorted)
        }
        (TypeKind::Multiset(element), ArrowType::Map(entries, sorted)) => {
            let count = DataType {
                kind: TypeKind::Int,
                nullable: false,
            };
            conform_map(array, element, &count, entries, *sorted)
        }
        (TypeKind::Variant, ArrowType::Struct(targets)) => variant(array, targets),
        (TypeKind::Vector(element, length), ArrowType::FixedSizeList(field, size)) => {
            vector(array, element, *length, field, *size)
        }
        (TypeKind::Row(fields), ArrowType::Struct(targets)) => {
            let source = array.as_struct_opt().ok_or_else(|| {
                DecodeError::from(format!("expected a struct, found {}", array.data_type()))
            })?;
            let mut children = Vec::with_capacity(fields.len());
            for (i, (f, target)) in fields.iter().zip(targets.iter()).enumerate() {
                let child = source
                    .column_by_name(&f.name)
                    .or_else(|| source.columns().get(i))
                    .cloned();
                let child = match child {
                    Some(c) => conform_to(&c, &f.data_type, target.data_type())?,
                    None => new_null_array(target.data_type(), array.len()),
                };
                children.push(child);
            }
            StructArray::try_new(targets.clone(), children, source.nulls().cloned())
                .map(|a| Arc::new(a) as _)
                .map_err(DecodeError::from)
        }
        (
            TypeKind::Timestamp(_) | TypeKind::LocalZonedTimestamp(_),
            ArrowType::Timestamp(unit, zone),
        ) => timestamp(array, *unit, zone.clone()),
        _ => arrow_cast::cast(array, target).map_err(|e| {
            DecodeError::library(
                format!("cannot convert {} to {target}", array.data_type()),
                e,
            )
        }),
    }
}

/// A VARIANT as stored in Parquet (`group { required binary value; required binary metadata }`, 2.0
/// `ParquetSchemaConverter`) brought to `targets` (`types::variant_type`): children matched by name. A
/// shredded variant (a `typed_value` child, `variant.shreddingSchema`) is rebuilt row by row as the released
/// reader rebuilds it ([`crate::variant::shredded`]).
fn variant(array: &ArrayRef, targets: &arrow_schema::Fields) -> Result<ArrayRef, DecodeError> {
    let source = array.as_struct_opt().ok_or_else(|| {
        DecodeError::from(format!(
            "VARIANT stored as {}, expected a group of value and metadata",
            array.data_type()
        ))
    })?;
    if source.column_by_name(shredded::TYPED_VALUE).is_some() {
        let (value, metadata) = shredded::rebuild_column(source).map_err(|e| match e {
            shredded::ShredError::Schema(reason) => {
                DecodeError::Unsupported(format!("shredded VARIANT: {reason}"))
            }
            shredded::ShredError::Row(row, reason) => {
                DecodeError::from(format!("shredded VARIANT, row {row}: {reason}"))
            }
        })?;
        let rebuilt = StructArray::try_new(
            arrow_schema::Fields::from(vec![
                Field::new(crate::types::VARIANT_VALUE, ArrowType::Binary, true),
                Field::new(crate::types::VARIANT_METADATA, ArrowType::Binary, true),
            ]),
            vec![Arc::new(value) as ArrayRef, Arc::new(metadata) as ArrayRef],
            source.nulls().cloned(),
        )
        .map_err(DecodeError::from)?;
        return variant(&(Arc::new(rebuilt) as ArrayRef), targets);
    }
    let mut children = Vec::with_capacity(targets.len());
    for target in targets.iter() {
        let child = source.column_by_name(target.name()).ok_or_else(|| {
            DecodeError::from(format!(
                "VARIANT group without its `{}` field",
                target.name()
            ))
        })?;
        let child = arrow_cast::cast(child, target.data_type())
            .map_err(|e| DecodeError::library(format!("VARIANT `{}`", target.name()), e))?;
        // Both children are required binaries: NULL only under a NULL variant.
        if let Some(nulls) = child.nulls() {
            let masked = (0..child.len()).any(|i| nulls.is_null(i) && source.is_valid(i));
            if masked {
                return Err(DecodeError::from(format!(
                    "VARIANT with a NULL `{}` in a non-NULL row",
                    target.name()
                )));
            }
        }
        children.push(child);
    }
    // NOT NULL children may hold placeholders only under NULL parents: build without the child null masks.
    let children = children
        .into_iter()
        .map(|c| {
            let data = c.to_data().into_builder().nulls(None).build();
            data.map(arrow_array::make_array)
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(DecodeError::from)?;
    StructArray::try_new(targets.clone(), children, source.nulls().cloned())
        .map(|a| Arc::new(a) as ArrayRef)
        .map_err(DecodeError::from)
}

/// A VECTOR<T, n> as stored brought to FixedSizeList(n): a 3-level LIST (Parquet, ORC, Avro; the length not
/// recorded), whose every non-NULL list must have exactly n elements and whose NULL vector takes n NULL
/// placeholder elements, or a FixedSizeList of n already (Lance).
pub(crate) fn vector(
    array: &ArrayRef,
    element: &DataType,
    length: u32,
    field: &Arc<Field>,
    size: i32,
) -> Result<ArrayRef, DecodeError> {
    if let Some(fixed) = array.as_fixed_size_list_opt() {
        if fixed.value_length() != size {
            return Err(DecodeError::from(format!(
                "a VECTOR of length {length} stored as a fixed-size list of {}",
                fixed.value_length()
            )));
        }
        let values = conform_to(fixed.values(), element, field.data_type())?;
        return arrow_array::FixedSizeListArray::try_new(
            field.clone(),
            size,
            values,
            fixed.nulls().cloned(),
        )
        .map(|a| Arc::new(a) as ArrayRef)
        .map_err(DecodeError::from);
    }
    let (offsets, values, nulls) = list_parts(array)?;
    let values = conform_to(&values, element, field.data_type())?;
    let n = length as usize;
    let mut take: Vec<Option<u32>> = Vec::with_capacity(array.len() * n);
    for (i, w) in offsets.windows(2).enumerate() {
        let (start, end) = (w[0] as usize, w[1] as usize);
        if nulls.as_ref().is_some_and(|b| b.is_null(i)) {
            take.extend(std::iter::repeat_n(None, n));
            continue;
        }
        if end - start != n {
            return Err(DecodeError::from(format!(
                "row {i}: a VECTOR of length {length} holds {} elements",
                end - start
            )));
        }
        for j in start..end {
            let j =
                u32::try_from(j).map_err(|_| DecodeError::from("vector offsets beyond 2^32"))?;
            take.push(Some(j));
        }
    }
    let indices = arrow_array::UInt32Array::from(take);
    let values = arrow_select::take::take(values.as_ref(), &indices, None)
        .map_err(|e| DecodeError::library("VECTOR elements", e))?;
    arrow_array::FixedSizeListArray::try_new(field.clone(), size, values, nulls)
        .map(|a| Arc::new(a) as ArrayRef)
        .map_err(DecodeError::from)
}

/// Offsets, values and nulls of a List or LargeList array (LargeList offsets narrowed to i32).
fn list_parts(
    array: &ArrayRef,
) -> Result<(OffsetBuffer<i32>, ArrayRef, Option<NullBuffer>), DecodeError> {
    match array.data_type() {
        ArrowType::List(_) => {
            let l = array.as_list::<i32>();
            Ok((l.offsets().clone(), l.values().clone(), l.nulls().cloned()))
        }
        ArrowType::LargeList(_) => {
            let l = array.as_list::<i64>();
            let offsets = l
                .offsets()
                .iter()
                .map(|o| {
                    i32::try_from(*o).map_err(|_| DecodeError::from("list offsets beyond 2^31"))
                })
                .collect::<Result<Vec<i32>, DecodeError>>()?;
            Ok((
                OffsetBuffer::new(offsets.into()),
                l.values().clone(),
                l.nulls().cloned(),
            ))
        }
        ArrowType::Map(_, _) => {
            let m = array.as_map();
            Ok((
                m.offsets().clone(),
                Arc::new(m.entries().clone()),
                m.nulls().cloned(),
            ))
        }
        other => Err(DecodeError::from(format!("expected a list, found {other}"))),
    }
}

fn conform_map(
    array: &ArrayRef,
    key: &DataType,
    value: &DataType,
    entries: &Arc<Field>,
    sorted: bool,
) -> Result<ArrayRef, DecodeError> {
    let (offsets, pairs, nulls) = list_parts(array)?;
    let pairs = pairs.as_struct_opt().ok_or_else(|| {
        DecodeError::from(format!(
            "map entries are not a struct but {}",
            pairs.data_type()
        ))
    })?;
    if pairs.num_columns() != 2 {
        return Err(DecodeError::from(format!(
            "map entries have {} fields, expected 2",
            pairs.num_columns()
        )));
    }
    let ArrowType::Struct(targets) = entries.data_type() else {
        return Err("map entries type is not a struct".into());
    };
    let keys = conform_to(pairs.column(0), key, targets[0].data_type())?;
    let values = conform_to(pairs.column(1), value, targets[1].data_type())?;
    let entries_array = StructArray::try_new(targets.clone(), vec![keys, values], None)
        .map_err(DecodeError::from)?;
    MapArray::try_new(entries.clone(), offsets, entries_array, nulls, sorted)
        .map(|a| Arc::new(a) as _)
        .map_err(DecodeError::from)
}

/// Epoch value of `unit` as (milliseconds, nano-of-millisecond), the way Paimon's `Timestamp` factory
/// methods split it (`fromEpochMillis`, `fromMicros`: floor division; nanoseconds likewise).
fn split(value: i64, unit: TimeUnit) -> (i64, i64) {
    match unit {
        TimeUnit::Second => (value.wrapping_mul(1000), 0),
        TimeUnit::Millisecond => (value, 0),
        TimeUnit::Microsecond => (value.div_euclid(1000), value.rem_euclid(1000) * 1000),
        TimeUnit::Nanosecond => (value.div_euclid(1_000_000), value.rem_euclid(1_000_000)),
    }
}

/// The epoch value paimon-arrow exports for (millis, nanoOfMilli) at `unit` (`ArrowUtils
/// .nonCastedTimestampToEpoch`): seconds = millis / 1000 truncated toward zero, micros = millis * 1000 +
/// nanoOfMilli / 1000, nanos = millis * 10^6 + nanoOfMilli (Java long arithmetic, wrapping).
pub(crate) fn export_epoch(millis: i64, nano_of_milli: i64, unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => millis / 1000,
        TimeUnit::Millisecond => millis,
        TimeUnit::Microsecond => millis.wrapping_mul(1000).wrapping_add(nano_of_milli / 1000),
        TimeUnit::Nanosecond => millis.wrapping_mul(1_000_000).wrapping_add(nano_of_milli),
    }
}

/// Converts a timestamp array of any unit/zone to `unit` with zone `zone`, as Paimon reads the stored value
/// into a `Timestamp` and paimon-arrow exports it.
fn timestamp(
    array: &ArrayRef,
    unit: TimeUnit,
    zone: Option<Arc<str>>,
) -> Result<ArrayRef, DecodeError> {
    if let ArrowType::Decimal128(_, 9) = array.data_type() {
        // Epoch nanoseconds as i128 (orc-rust's form for timestamps beyond the i64 nanosecond range).
        let nanos = array.as_primitive::<arrow_array::types::Decimal128Type>();
        let converted = nanos.values().iter().map(|n| {
            let millis = n.div_euclid(1_000_000) as i64;
            export_epoch(millis, n.rem_euclid(1_000_000) as i64, unit)
        });
        return Ok(timestamp_array(
            converted,
            array.nulls().cloned(),
            unit,
            zone,
        ));
    }
    let ArrowType::Timestamp(from, _) = array.data_type() else {
        return arrow_cast::cast(array, &ArrowType::Timestamp(unit, zone)).map_err(|e| {
            DecodeError::library(
                format!("cannot convert {} to a timestamp", array.data_type()),
                e,
            )
        });
    };
    let from = *from;
    let values: Vec<i64> = match from {
        TimeUnit::Second => prim_values::<TimestampSecondType>(array),
        TimeUnit::Millisecond => prim_values::<TimestampMillisecondType>(array),
        TimeUnit::Microsecond => prim_values::<TimestampMicrosecondType>(array),
        TimeUnit::Nanosecond => prim_values::<TimestampNanosecondType>(array),
    };
    let converted = values.into_iter().map(|v| {
        let (millis, nanos) = split(v, from);
        export_epoch(millis, nanos, unit)
    });
    Ok(timestamp_array(
        converted,
        array.nulls().cloned(),
        unit,
        zone,
    ))
}

/// A timestamp array of `unit` and `zone` from exported epoch values.
fn timestamp_array(
    converted: impl Iterator<Item = i64>,
    nulls: Option<NullBuffer>,
    unit: TimeUnit,
    zone: Option<Arc<str>>,
) -> ArrayRef {
    match unit {
        TimeUnit::Second => Arc::new(
            PrimitiveArray::<TimestampSecondType>::new(converted.collect(), nulls)
                .with_timezone_opt(zone),
        ),
        TimeUnit::Millisecond => Arc::new(
            PrimitiveArray::<TimestampMillisecondType>::new(converted.collect(), nulls)
                .with_timezone_opt(zone),
        ),
        TimeUnit::Microsecond => Arc::new(
            PrimitiveArray::<TimestampMicrosecondType>::new(converted.collect(), nulls)
                .with_timezone_opt(zone),
        ),
        TimeUnit::Nanosecond => Arc::new(
            PrimitiveArray::<TimestampNanosecondType>::new(converted.collect(), nulls)
                .with_timezone_opt(zone),
        ),
    }
}

fn prim_values<T: arrow_array::ArrowPrimitiveType<Native = i64>>(array: &ArrayRef) -> Vec<i64> {
    array.as_primitive::<T>().values().to_vec()
}

/// Rebuilds a nested array bottom-up: `leaf` may replace any array (given its Paimon type) after its
/// children were rebuilt; nested arrays keep their types, so the result has `array`'s exact type.
pub(crate) fn rewrite(
    array: &ArrayRef,
    t: &DataType,
    leaf: &dyn Fn(ArrayRef, &DataType) -> Result<ArrayRef, DecodeError>,
) -> Result<ArrayRef, DecodeError> {
    let rebuilt: ArrayRef = match (&t.kind, array.data_type()) {
        (TypeKind::Array(element), ArrowType::List(field)) => {
            let list = array.as_list::<i32>();
            let values = rewrite(list.values(), element, leaf)?;
            Arc::new(
                ListArray::try_new(
                    field.clone(),
                    list.offsets().clone(),
                    values,
                    list.nulls().cloned(),
                )
                .map_err(DecodeError::from)?,
            )
        }
        (TypeKind::Map(_, _) | TypeKind::Multiset(_), ArrowType::Map(entries, sorted)) => {
            let (key_t, value_t) = match &t.kind {
                TypeKind::Map(k, v) => (k.as_ref().clone(), v.as_ref().clone()),
                TypeKind::Multiset(e) => (
                    e.as_ref().clone(),
                    DataType {
                        kind: TypeKind::Int,
                        nullable: false,
                    },
                ),
                _ => unreachable_types()?,
            };
            let map = array.as_map();
            let kv = map.entries();
            let keys = rewrite(kv.column(0), &key_t, leaf)?;
            let values = rewrite(kv.column(1), &value_t, leaf)?;
            let ArrowType::Struct(fields) = entries.data_type() else {
                return Err("map entries are not a struct".into());
            };
            let kv = StructArray::try_new(fields.clone(), vec![keys, values], kv.nulls().cloned())
                .map_err(DecodeError::from)?;
            Arc::new(
                MapArray::try_new(
                    entries.clone(),
                    map.offsets().clone(),
                    kv,
                    map.nulls().cloned(),
                    *sorted,
                )
                .map_err(DecodeError::from)?,
            )
        }
        (TypeKind::Row(fields), ArrowType::Struct(arrow_fields))
            if fields.len() == arrow_fields.len() =>
        {
            let s = array.as_struct();
            let children = s
                .columns()
                .iter()
                .zip(fields)
                .map(|(c, f)| rewrite(c, &f.data_type, leaf))
                .collect::<Result<Vec<_>, _>>()?;
            Arc::new(
                StructArray::try_new(arrow_fields.clone(), children, s.nulls().cloned())
                    .map_err(DecodeError::from)?,
            )
        }
        _ => array.clone(),
    };
    leaf(rebuilt, t)
}

fn unreachable_types<T>() -> Result<T, DecodeError> {
    Err("unexpected type".into())
}

/// Paimon 1.0's Parquet reader (`RowColumnReader`, `NestedColumnReader.readRow`) returns a ROW as NULL
/// whenever all of its fields are NULL, at any depth; applied to a decoded array of type `t`.
pub(crate) fn parquet_row_nulls(array: &ArrayRef, t: &DataType) -> Result<ArrayRef, DecodeError> {
    rewrite(array, t, &|a, t| {
        let TypeKind::Row(_) = t.kind else {
            return Ok(a);
        };
        let s = a.as_struct();
        if s.num_columns() == 0 {
            return Ok(a);
        }
        let len = s.len();
        let any_child: Vec<bool> = (0..len)
            .map(|i| s.columns().iter().any(|c| c.is_valid(i)))
            .collect();
        let parent = s.nulls();
        let valid: Vec<bool> = (0..len)
            .map(|i| any_child[i] && parent.is_none_or(|n| n.is_valid(i)))
            .collect();
        if valid.iter().all(|v| *v) {
            return Ok(a);
        }
        let ArrowType::Struct(fields) = a.data_type() else {
            return Ok(a);
        };
        StructArray::try_new(
            fields.clone(),
            s.columns().to_vec(),
            Some(NullBuffer::from(valid)),
        )
        .map(|s| Arc::new(s) as ArrayRef)
        .map_err(DecodeError::from)
    })
}

/// The ORC Java reader (`CharTreeReader`) strips trailing spaces from CHAR(n) values (the writer pads
/// them to n); applied to a decoded array of type `t`.
pub(crate) fn orc_char_trim(array: &ArrayRef, t: &DataType) -> Result<ArrayRef, DecodeError> {
    rewrite(array, t, &|a, t| {
        let TypeKind::Char(_) = t.kind else {
            return Ok(a);
        };
        if let Some(views) = a.as_string_view_opt() {
            let trimmed: arrow_array::StringViewArray = views
                .iter()
                .map(|v| v.map(|s| s.trim_end_matches(' ')))
                .collect();
            return Ok(Arc::new(trimmed) as ArrayRef);
        }
        let Some(strings) = a.as_string_opt::<i32>() else {
            return Ok(a);
        };
        let trimmed: arrow_array::StringArray = strings
            .iter()
            .map(|v| v.map(|s| s.trim_end_matches(' ')))
            .collect();
        Ok(Arc::new(trimmed) as ArrayRef)
    })
}
