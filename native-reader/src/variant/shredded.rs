//! A shredded VARIANT (`variant.shreddingSchema` or `variant.inferShreddingSchema`, 2.0 Parquet) rebuilt into
//! one value and metadata per row, as 2.0's reader does (`VariantShreddingReadPlanFactory`,
//! `PaimonShreddingUtils.assembleVariantBatch`, `ShreddingUtils.rebuild`): the file's group is read as a
//! shredding schema (`PaimonShreddingUtils.buildVariantSchema`), and every non-NULL row is rebuilt with a new
//! [`VariantBuilder`], so its metadata is a new dictionary of the keys in the order the rebuild meets them,
//! even for a row whose value was not shredded.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
};
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, FixedSizeBinaryArray,
    Float32Array, Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, ListArray,
    StringArray, StructArray,
};
use arrow_schema::DataType as ArrowType;

use super::builder::{FieldEntry, VariantBuilder};
use super::encoding::{self, malformed, OBJECT};

/// Name of the shredded part of a variant group (`PaimonShreddingUtils.TYPED_VALUE_FIELD_NAME`).
pub(crate) const TYPED_VALUE: &str = "typed_value";

/// Why a shredded variant column could not be rebuilt.
#[derive(Debug)]
pub(crate) enum ShredError {
    /// The group is not a shredding schema the released reader accepts (`Invalid variant shredding schema`).
    Schema(String),
    /// A row's parts are malformed (the released reader fails there too).
    Row(usize, String),
}

/// The rebuilt `(value, metadata)` of every row of `group` (the Parquet group of a VARIANT column with a
/// `typed_value` child, read as a struct), NULL where the group is NULL.
///
/// Errors: [`ShredError::Schema`] when the group is not a valid shredding schema; [`ShredError::Row`] naming
/// the row when its parts are malformed.
pub(crate) fn rebuild_column(
    group: &StructArray,
) -> Result<(BinaryArray, BinaryArray), ShredError> {
    let shape = bind(group, true).map_err(ShredError::Schema)?;
    let metadata = shape
        .metadata
        .clone()
        .ok_or_else(|| ShredError::Schema("a top-level variant group without `metadata`".into()))?;
    let mut values = Vec::with_capacity(group.len());
    let mut metadatas = Vec::with_capacity(group.len());
    for row in 0..group.len() {
        if group.is_null(row) {
            values.push(None);
            metadatas.push(None);
            continue;
        }
        if metadata.is_null(row) {
            return Err(ShredError::Row(row, malformed()));
        }
        let mut builder = VariantBuilder::default();
        rebuild(&shape, row, metadata.value(row), &mut builder)
            .map_err(|e| ShredError::Row(row, e))?;
        let (value, meta) = builder.result().map_err(|e| ShredError::Row(row, e))?;
        values.push(Some(value));
        metadatas.push(Some(meta));
    }
    Ok((
        BinaryArray::from_iter(values),
        BinaryArray::from_iter(metadatas),
    ))
}

/// One level of a shredding schema bound to its arrays (`VariantSchema` with the columns).
struct Shape {
    /// The level's group, for its NULLs (a shredded object field's group must not be NULL).
    group: StructArray,
    /// `value`: the unshredded variant (or an object's unshredded fields).
    value: Option<BinaryArray>,
    /// `metadata`: only at the top level.
    metadata: Option<BinaryArray>,
    typed: Option<Typed>,
}

enum Typed {
    Scalar(Scalar),
    /// The typed struct and, in its order, each field's name and shape.
    Object(StructArray, Vec<(String, Shape)>),
    /// The typed list and its elements' shape.
    Array(ListArray, Box<Shape>),
}

/// A typed scalar column, as `buildVariantSchema` accepts them.
enum Scalar {
    Boolean(BooleanArray),
    Int8(Int8Array),
    Int16(Int16Array),
    Int32(Int32Array),
    Int64(Int64Array),
    Float(Float32Array),
    Double(Float64Array),
    String(StringArray),
    Binary(FixedSizeBinaryArray),
    Date(Date32Array),
    Decimal(Decimal128Array, u8),
}

/// `buildVariantSchema`: the level's children must be `typed_value`, `value` (binary) and, exactly at the
/// top level, `metadata` (binary), each at most once.
fn bind(group: &StructArray, top_level: bool) -> Result<Shape, String> {
    let invalid = |what: String| format!("invalid variant shredding schema: {what}");
    if group.num_columns() == 0 {
        return Err(invalid("an empty group".into()));
    }
    let mut shape = Shape {
        group: group.clone(),
        value: None,
        metadata: None,
        typed: None,
    };
    let names: Vec<String> = group.column_names().iter().map(|n| n.to_string()).collect();
    for (name, column) in names.iter().zip(group.columns()) {
        match name.as_str() {
            TYPED_VALUE if shape.typed.is_none() => shape.typed = Some(bind_typed(column)?),
            "value" if shape.value.is_none() => shape.value = Some(binary(column)?),
            "metadata" if shape.metadata.is_none() => shape.metadata = Some(binary(column)?),
            other => return Err(invalid(format!("a field `{other}`"))),
        }
    }
    if top_level != shape.metadata.is_some() {
        return Err(invalid(if top_level {
            "no `metadata` at the top level".into()
        } else {
            "`metadata` below the top level".into()
        }));
    }
    Ok(shape)
}

fn binary(column: &ArrayRef) -> Result<BinaryArray, String> {
    match column.data_type() {
        ArrowType::Binary | ArrowType::LargeBinary | ArrowType::BinaryView => {
            let cast = arrow_cast::cast(column, &ArrowType::Binary).map_err(|e| e.to_string())?;
            Ok(cast.as_binary::<i32>().clone())
        }
        other => Err(format!(
            "invalid variant shredding schema: `value` or `metadata` of type {other}"
        )),
    }
}

fn bind_typed(column: &ArrayRef) -> Result<Typed, String> {
    let refused = |t: &ArrowType| {
        format!(
            "invalid variant shredding schema: a `typed_value` of type {t}, which the released reader \
             refuses (buildVariantSchema)"
        )
    };
    let scalar = match column.data_type() {
        ArrowType::Struct(_) => {
            let typed = column.as_struct().clone();
            let mut fields = Vec::with_capacity(typed.num_columns());
            let names: Vec<String> = typed.column_names().iter().map(|n| n.to_string()).collect();
            for (name, child) in names.into_iter().zip(typed.columns()) {
                let group = child
                    .as_struct_opt()
                    .ok_or_else(|| refused(child.data_type()))?;
                fields.push((name, bind(group, false)?));
            }
            return Ok(Typed::Object(typed, fields));
        }
        ArrowType::List(_) | ArrowType::LargeList(_) => {
            let list = arrow_cast::cast(column, &list_of(column)).map_err(|e| e.to_string())?;
            let list = list.as_list::<i32>().clone();
            let elements = list.values().clone();
            let group = elements
                .as_struct_opt()
                .ok_or_else(|| refused(elements.data_type()))?;
            let element = bind(group, false)?;
            return Ok(Typed::Array(list, Box::new(element)));
        }
        ArrowType::Boolean => Scalar::Boolean(column.as_boolean().clone()),
        ArrowType::Int8 => Scalar::Int8(column.as_primitive::<Int8Type>().clone()),
        ArrowType::Int16 => Scalar::Int16(column.as_primitive::<Int16Type>().clone()),
        ArrowType::Int32 => Scalar::Int32(column.as_primitive::<Int32Type>().clone()),
        ArrowType::Int64 => Scalar::Int64(column.as_primitive::<Int64Type>().clone()),
        ArrowType::Float32 => Scalar::Float(column.as_primitive::<Float32Type>().clone()),
        ArrowType::Float64 => Scalar::Double(column.as_primitive::<Float64Type>().clone()),
        ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View => {
            let cast = arrow_cast::cast(column, &ArrowType::Utf8).map_err(|e| e.to_string())?;
            Scalar::String(cast.as_string::<i32>().clone())
        }
        ArrowType::FixedSizeBinary(_) => Scalar::Binary(column.as_fixed_size_binary().clone()),
        ArrowType::Date32 => Scalar::Date(column.as_primitive::<Date32Type>().clone()),
        ArrowType::Decimal32(p, s) | ArrowType::Decimal64(p, s) | ArrowType::Decimal128(p, s)
            if *s >= 0 =>
        {
            let cast = arrow_cast::cast(column, &ArrowType::Decimal128(*p, *s))
                .map_err(|e| e.to_string())?;
            Scalar::Decimal(cast.as_primitive::<Decimal128Type>().clone(), *s as u8)
        }
        other => return Err(refused(other)),
    };
    Ok(Typed::Scalar(scalar))
}

fn list_of(column: &ArrayRef) -> ArrowType {
    match column.data_type() {
        ArrowType::LargeList(field) | ArrowType::List(field) => ArrowType::List(field.clone()),
        other => other.clone(),
    }
}

impl Typed {
    /// Whether this level's `typed_value` is not NULL in row `row`.
    fn is_valid(&self, row: usize) -> bool {
        match self {
            Typed::Scalar(s) => scalar_valid(s, row),
            Typed::Object(typed, _) => typed.is_valid(row),
            Typed::Array(list, _) => list.is_valid(row),
        }
    }
}

/// `ShreddingUtils.rebuild(row, metadata, schema, builder)` for row `row` of `shape`'s arrays: the typed
/// value when it is not NULL (an object's unshredded fields from `value` after its shredded ones), else
/// `value`; neither is malformed.
fn rebuild(
    shape: &Shape,
    row: usize,
    metadata: &[u8],
    builder: &mut VariantBuilder,
) -> Result<(), String> {
    let typed = shape.typed.as_ref().filter(|t| t.is_valid(row));
    let value = shape.value.as_ref().filter(|v| v.is_valid(row));
    match (typed, value) {
        (Some(Typed::Scalar(s)), _) => {
            append_scalar(s, row, builder);
            Ok(())
        }
        (Some(Typed::Array(list, element)), _) => {
            let offsets = list.value_offsets();
            let (from, to) = (offsets[row] as usize, offsets[row + 1] as usize);
            let start = builder.position();
            let mut positions = Vec::with_capacity(to - from);
            for i in from..to {
                positions.push(builder.position() - start);
                rebuild(element, i, metadata, builder)?;
            }
            builder.finish_array(start, &positions);
            Ok(())
        }
        (Some(Typed::Object(_, fields)), residual) => {
            let start = builder.position();
            let mut entries = Vec::with_capacity(fields.len());
            for (name, field) in fields {
                // A shredded field's group is never NULL; a missing field has NULL parts.
                if field.group.is_null(row) {
                    return Err(malformed());
                }
                let present = field.typed.as_ref().is_some_and(|t| t.is_valid(row))
                    || field.value.as_ref().is_some_and(|v| v.is_valid(row));
                if present {
                    let id = builder.add_key(name);
                    entries.push(FieldEntry {
                        key: name.clone(),
                        id,
                        offset: builder.position() - start,
                    });
                    rebuild(field, row, metadata, builder)?;
                }
            }
            if let Some(residual) = residual {
                let bytes = residual.value(row);
                encoding::check_metadata(metadata)?;
                if bytes.first().is_none_or(|h| h & 0x3 != OBJECT) {
                    return Err(malformed());
                }
                let object = encoding::object(bytes, 0)?;
                for i in 0..object.size {
                    let (key, pos) = object.field(bytes, metadata, i)?;
                    // The unshredded fields must not repeat a shredded one.
                    if fields.iter().any(|(name, _)| *name == key) {
                        return Err(malformed());
                    }
                    let id = builder.add_key(&key);
                    entries.push(FieldEntry {
                        key,
                        id,
                        offset: builder.position() - start,
                    });
                    builder.append(bytes, metadata, pos)?;
                }
            }
            builder.finish_object(start, entries)
        }
        (None, Some(value)) => {
            encoding::check_metadata(metadata)?;
            builder.append(value.value(row), metadata, 0)
        }
        (None, None) => Err(malformed()),
    }
}

fn scalar_valid(s: &Scalar, row: usize) -> bool {
    let a: &dyn Array = match s {
        Scalar::Boolean(a) => a,
        Scalar::Int8(a) => a,
        Scalar::Int16(a) => a,
        Scalar::Int32(a) => a,
        Scalar::Int64(a) => a,
        Scalar::Float(a) => a,
        Scalar::Double(a) => a,
        Scalar::String(a) => a,
        Scalar::Binary(a) => a,
        Scalar::Date(a) => a,
        Scalar::Decimal(a, _) => a,
    };
    a.is_valid(row)
}

/// The typed scalar of row `row`, appended as `rebuild` appends each `VariantSchema.ScalarType`.
fn append_scalar(s: &Scalar, row: usize, builder: &mut VariantBuilder) {
    match s {
        Scalar::Boolean(a) => builder.boolean(a.value(row)),
        Scalar::Int8(a) => builder.long(i64::from(a.value(row))),
        Scalar::Int16(a) => builder.long(i64::from(a.value(row))),
        Scalar::Int32(a) => builder.long(i64::from(a.value(row))),
        Scalar::Int64(a) => builder.long(a.value(row)),
        Scalar::Float(a) => builder.float(a.value(row)),
        Scalar::Double(a) => builder.double(a.value(row)),
        Scalar::String(a) => builder.string(a.value(row)),
        Scalar::Binary(a) => builder.binary(a.value(row)),
        Scalar::Date(a) => builder.date(a.value(row)),
        Scalar::Decimal(a, scale) => builder.decimal(a.value(row), *scale),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::buffer::NullBuffer;
    use arrow_array::{Array, ArrayRef, BinaryArray, Int32Array, StructArray};
    use arrow_schema::{Field, Fields};

    use super::{rebuild_column, ShredError};

    fn binary(values: Vec<Option<&[u8]>>) -> ArrayRef {
        Arc::new(BinaryArray::from(values))
    }

    fn group(children: Vec<(&str, ArrayRef)>, nulls: Option<NullBuffer>) -> StructArray {
        let fields: Fields = children
            .iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
            .collect();
        StructArray::new(
            fields,
            children.into_iter().map(|(_, a)| a).collect(),
            nulls,
        )
    }

    /// `{"a": <typed INT>}` with the unshredded fields in `value`: row 0 has `a` = 1 and `{"b": true}` left
    /// over, row 1 is `a` missing and `value` a plain string, row 2 a NULL variant.
    fn shredded() -> StructArray {
        // Metadata of the file: one key, "b" (version 1, offsets 1 byte).
        let metadata: &[u8] = &[0x01, 1, 0, 1, b'b'];
        let a = group(
            vec![
                ("value", binary(vec![None, None, None])),
                (
                    "typed_value",
                    Arc::new(Int32Array::from(vec![Some(1), None, None])) as ArrayRef,
                ),
            ],
            None,
        );
        let typed = group(
            vec![("a", Arc::new(a) as ArrayRef)],
            Some(NullBuffer::from(vec![true, false, false])),
        );
        // {"b": true}: object header, 1 field, id 0, offsets [0, 1], TRUE.
        let residual: &[u8] = &[0x02, 1, 0, 0, 1, 0x04];
        // "hi": a short string.
        let plain: &[u8] = &[0x09, b'h', b'i'];
        group(
            vec![
                (
                    "metadata",
                    binary(vec![Some(metadata), Some(metadata), None]),
                ),
                ("value", binary(vec![Some(residual), Some(plain), None])),
                ("typed_value", Arc::new(typed) as ArrayRef),
            ],
            Some(NullBuffer::from(vec![true, true, false])),
        )
    }

    #[test]
    fn rows_are_rebuilt_with_a_new_dictionary() {
        let (value, metadata) = rebuild_column(&shredded()).unwrap();
        // Row 0: {"a": 1, "b": true}; keys in the order met (a shredded, then b left over).
        assert_eq!(value.value(0), &[0x02, 2, 0, 1, 0, 2, 3, 0x0C, 1, 0x04]);
        assert_eq!(metadata.value(0), &[0x01, 2, 0, 1, 2, b'a', b'b']);
        // Row 1: the string copied, and an empty dictionary.
        assert_eq!(value.value(1), &[0x09, b'h', b'i']);
        assert_eq!(metadata.value(1), &[0x01, 0, 0]);
        assert!(value.is_null(2) && metadata.is_null(2));
    }

    #[test]
    fn a_row_with_neither_part_is_malformed_and_a_binary_typed_value_is_refused() {
        let metadata: &[u8] = &[0x01, 0, 0];
        let both_null = group(
            vec![
                ("metadata", binary(vec![Some(metadata)])),
                ("value", binary(vec![None])),
                (
                    "typed_value",
                    Arc::new(Int32Array::from(vec![None::<i32>])) as ArrayRef,
                ),
            ],
            None,
        );
        assert!(matches!(
            rebuild_column(&both_null),
            Err(ShredError::Row(0, _))
        ));
        let bytes_typed = group(
            vec![
                ("metadata", binary(vec![Some(metadata)])),
                ("typed_value", binary(vec![Some(b"x")])),
            ],
            None,
        );
        match rebuild_column(&bytes_typed) {
            Err(ShredError::Schema(reason)) => assert!(reason.contains("Binary"), "{reason}"),
            other => panic!("expected a schema refusal, got {:?}", other.map(|_| ())),
        }
    }
}
