//! Value equality, the canonical Arrow representation and value rendering: the diff's equality rules in
//! one place.
//!
//! Two readers may return the same values in different Arrow *representations*: a dictionary-encoded
//! column or a plain one, `Utf8View` / `LargeUtf8` or `Utf8`, `BinaryView` / `LargeBinary` or `Binary`,
//! `LargeList` / `ListView` or `List`, other names or nullability flags on the fields nested inside lists and
//! maps. [`logical_type`] maps every representation to one canonical type and [`normalize`] rewrites an
//! array into it (without copying values where Arrow allows). Anything else that differs in the type —
//! a decimal's precision or scale, a timestamp's unit or zone, an integer's width, a struct field's name — is
//! a difference of its own and is never cast away.
//!
//! Values of the same canonical type are equal when [`diff_at`] finds no difference:
//! * NULL equals NULL only (never the empty string, zero, an empty list or an empty map);
//! * floats are equal when their bits are (IEEE-754 total order): `NaN` equals a `NaN` with the same
//!   payload, `0.0` differs from `-0.0`, and one `NaN` payload differs from another;
//! * strings and binaries byte for byte (a trailing space is a difference);
//! * structs field by field, lists element by element, maps entry by entry **in order** (the order the
//!   reader returns the entries in is part of what it returns).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float16Type, Float32Type, Float64Type};
use arrow_array::{
    downcast_primitive_array, Array, ArrayRef, ArrowNativeTypeOp, FixedSizeListArray, ListArray,
    MapArray, RecordBatch, RecordBatchOptions, StructArray,
};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{ArrowError, DataType, Field, FieldRef, Fields, Schema, SchemaRef, SortOptions};

/// Name of the element field of a canonical list.
const ITEM: &str = "item";
/// Name of the entries field of a canonical map.
const ENTRIES: &str = "entries";

fn item_field(t: DataType) -> FieldRef {
    Arc::new(Field::new(ITEM, t, true))
}

fn entries_field(key: DataType, value: DataType) -> FieldRef {
    Arc::new(Field::new(
        ENTRIES,
        DataType::Struct(Fields::from(vec![
            Field::new("key", key, false),
            Field::new("value", value, true),
        ])),
        false,
    ))
}

/// The canonical type of `t`: the same logical type with representation choices removed (dictionary and
/// run-end encoding, view and large variants of strings, binaries and lists, nested field names and
/// nullability inside lists and maps, nullability of struct fields, a map's `keys_sorted` flag).
///
/// Two columns whose canonical types differ hold different types of values: that is reported, with both
/// types, and never cast away.
pub fn logical_type(t: &DataType) -> DataType {
    match t {
        DataType::Dictionary(_, v) => logical_type(v),
        DataType::RunEndEncoded(_, v) => logical_type(v.data_type()),
        DataType::Utf8View | DataType::LargeUtf8 => DataType::Utf8,
        DataType::BinaryView | DataType::LargeBinary => DataType::Binary,
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::ListView(f)
        | DataType::LargeListView(f) => DataType::List(item_field(logical_type(f.data_type()))),
        DataType::FixedSizeList(f, n) => {
            DataType::FixedSizeList(item_field(logical_type(f.data_type())), *n)
        }
        DataType::Struct(fields) => DataType::Struct(
            fields
                .iter()
                .map(|f| Field::new(f.name(), logical_type(f.data_type()), true))
                .collect::<Vec<_>>()
                .into(),
        ),
        DataType::Map(f, _) => match f.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => DataType::Map(
                entries_field(
                    logical_type(kv[0].data_type()),
                    logical_type(kv[1].data_type()),
                ),
                false,
            ),
            _ => t.clone(),
        },
        other => other.clone(),
    }
}

/// `array` rewritten into its canonical type ([`logical_type`]). Buffers are shared where Arrow allows
/// (renamed nested fields, plain arrays); dictionaries and views are materialized. An array that cannot be
/// rewritten (which valid arrays of Paimon's types never are) is returned unchanged, so that its type shows
/// as different.
pub fn normalize(array: &ArrayRef) -> ArrayRef {
    let target = logical_type(array.data_type());
    if *array.data_type() == target {
        return array.clone();
    }
    try_normalize(array, &target).unwrap_or_else(|_| array.clone())
}

fn try_normalize(array: &ArrayRef, target: &DataType) -> Result<ArrayRef, ArrowError> {
    match array.data_type() {
        DataType::Dictionary(_, v) => Ok(normalize(&arrow_cast::cast(array, v)?)),
        DataType::RunEndEncoded(_, v) => Ok(normalize(&arrow_cast::cast(array, v.data_type())?)),
        DataType::LargeList(f) | DataType::ListView(f) | DataType::LargeListView(f) => {
            let as_list = DataType::List(item_field(f.data_type().clone()));
            Ok(normalize(&arrow_cast::cast(array, &as_list)?))
        }
        DataType::List(_) => {
            let list = array.as_list_opt::<i32>().ok_or_else(|| mismatch(array))?;
            let values = normalize(list.values());
            Ok(Arc::new(ListArray::try_new(
                item_field(values.data_type().clone()),
                list.offsets().clone(),
                values,
                list.nulls().cloned(),
            )?))
        }
        DataType::FixedSizeList(_, n) => {
            let list = array
                .as_fixed_size_list_opt()
                .ok_or_else(|| mismatch(array))?;
            let values = normalize(list.values());
            Ok(Arc::new(FixedSizeListArray::try_new(
                item_field(values.data_type().clone()),
                *n,
                values,
                list.nulls().cloned(),
            )?))
        }
        DataType::Struct(fields) => {
            let s = array.as_struct_opt().ok_or_else(|| mismatch(array))?;
            let columns: Vec<ArrayRef> = s.columns().iter().map(normalize).collect();
            let fields: Fields = fields
                .iter()
                .zip(&columns)
                .map(|(f, c)| Field::new(f.name(), c.data_type().clone(), true))
                .collect::<Vec<_>>()
                .into();
            Ok(Arc::new(StructArray::try_new_with_length(
                fields,
                columns,
                s.nulls().cloned(),
                s.len(),
            )?))
        }
        DataType::Map(_, _) => {
            let m = array.as_map_opt().ok_or_else(|| mismatch(array))?;
            let entries = m.entries();
            if entries.num_columns() != 2 {
                return Err(mismatch(array));
            }
            let key = normalize(entries.column(0));
            let value = normalize(entries.column(1));
            let field = entries_field(key.data_type().clone(), value.data_type().clone());
            let DataType::Struct(kv) = field.data_type() else {
                return Err(mismatch(array));
            };
            let entries = StructArray::try_new_with_length(
                kv.clone(),
                vec![key, value],
                None,
                entries.len(),
            )?;
            Ok(Arc::new(MapArray::try_new(
                field,
                m.offsets().clone(),
                entries,
                m.nulls().cloned(),
                false,
            )?))
        }
        _ => arrow_cast::cast(array, target),
    }
}

fn mismatch(array: &ArrayRef) -> ArrowError {
    ArrowError::InvalidArgumentError(format!(
        "array does not match its data type {}",
        array.data_type()
    ))
}

/// A batch with every column in its canonical type, plus the types the reader returned.
#[derive(Clone, Debug)]
pub(crate) struct Canonical {
    /// Canonical columns; field names as the reader returned them, every field nullable.
    pub batch: RecordBatch,
    /// The reader's own schema (types as returned, for messages).
    pub original: SchemaRef,
}

impl Canonical {
    /// Normalizes every column of `batch`.
    pub fn new(batch: &RecordBatch) -> Result<Self, ArrowError> {
        let original = batch.schema();
        let columns: Vec<ArrayRef> = batch.columns().iter().map(normalize).collect();
        let fields: Vec<Field> = original
            .fields()
            .iter()
            .zip(&columns)
            .map(|(f, c)| Field::new(f.name(), c.data_type().clone(), true))
            .collect();
        let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
        let batch =
            RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), columns, &options)?;
        Ok(Canonical { batch, original })
    }

    /// Rows in the batch.
    pub fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }
}

/// How one column of the stock batch relates to the same column of the native batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ColumnMatch {
    /// Same name and canonical type: values can be compared.
    Comparable,
    /// Name or canonical type differs, or one side has no such column: every row differs.
    Differs,
}

/// Column by column, whether two canonical batches can be compared.
pub(crate) fn match_columns(stock: &Canonical, native: &Canonical) -> Vec<ColumnMatch> {
    let (s, n) = (stock.batch.schema(), native.batch.schema());
    let columns = s.fields().len().max(n.fields().len());
    (0..columns)
        .map(|c| match (s.fields().get(c), n.fields().get(c)) {
            (Some(a), Some(b)) if a.name() == b.name() && a.data_type() == b.data_type() => {
                ColumnMatch::Comparable
            }
            _ => ColumnMatch::Differs,
        })
        .collect()
}

/// Row-wise equality of two equally long columns of the same canonical type: `None` when every row is
/// equal, else one flag per row (`true` = equal).
pub(crate) fn column_equality(stock: &ArrayRef, native: &ArrayRef) -> Option<Vec<bool>> {
    let rows = stock.len().min(native.len());
    let t = stock.data_type();
    if !t.is_nested() && *t != DataType::Null {
        if let Ok(eq) = arrow_ord::cmp::not_distinct(stock, native) {
            if eq.null_count() == 0 && eq.true_count() == eq.len() {
                return None;
            }
            return Some(
                (0..eq.len())
                    .map(|i| eq.is_valid(i) && eq.value(i))
                    .collect(),
            );
        }
    }
    let mut flags: Option<Vec<bool>> = None;
    for i in 0..rows {
        if diff_at(stock.as_ref(), i, native.as_ref(), i, false).is_some() {
            flags.get_or_insert_with(|| vec![true; rows])[i] = false;
        }
    }
    flags
}

/// Whether row `i` of `stock` equals row `j` of `native` in every column (canonical batches, columns
/// matched by [`match_columns`]).
pub(crate) fn rows_equal(stock: &RecordBatch, i: usize, native: &RecordBatch, j: usize) -> bool {
    stock.num_columns() == native.num_columns()
        && stock.columns().iter().zip(native.columns()).all(|(a, b)| {
            a.data_type() == b.data_type() && diff_at(a.as_ref(), i, b.as_ref(), j, false).is_none()
        })
}

/// One step of the path to a nested value.
#[derive(Clone, Debug)]
enum Step {
    Field(String),
    Index(usize),
    Key(usize),
    Value(usize),
}

/// Where two values first differ, below a column.
#[derive(Clone, Debug, Default)]
pub(crate) struct ValueDiff {
    /// Steps from the innermost difference outwards (reversed on rendering).
    steps: Vec<Step>,
    /// The stock value at that place, rendered (empty when not asked for).
    pub stock: String,
    /// The native value, rendered the same way.
    pub native: String,
}

impl ValueDiff {
    /// The path below the column: `.a`, `[2]`, `[0].key`, `[1].value.b`; empty at the column itself.
    pub fn path(&self) -> String {
        let mut out = String::new();
        for step in self.steps.iter().rev() {
            match step {
                Step::Field(name) => {
                    out.push('.');
                    out.push_str(name);
                }
                Step::Index(i) => out.push_str(&format!("[{i}]")),
                Step::Key(i) => out.push_str(&format!("[{i}].key")),
                Step::Value(i) => out.push_str(&format!("[{i}].value")),
            }
        }
        out
    }
}

/// The first difference between value `i` of `a` and value `j` of `b` (same canonical type), or `None` when
/// they are equal. With `describe`, the differing values are rendered.
pub(crate) fn diff_at(
    a: &dyn Array,
    i: usize,
    b: &dyn Array,
    j: usize,
    describe: bool,
) -> Option<ValueDiff> {
    let here = || {
        Some(ValueDiff {
            steps: Vec::new(),
            stock: if describe {
                render_value(a, i)
            } else {
                String::new()
            },
            native: if describe {
                render_value(b, j)
            } else {
                String::new()
            },
        })
    };
    if a.data_type() != b.data_type() {
        return here();
    }
    if *a.data_type() == DataType::Null {
        return None;
    }
    match (a.is_null(i), b.is_null(j)) {
        (true, true) => return None,
        (true, false) | (false, true) => return here(),
        (false, false) => {}
    }
    let nested = |steps: Step, inner: Option<ValueDiff>| {
        inner.map(|mut d| {
            d.steps.push(steps);
            d
        })
    };
    match a.data_type() {
        DataType::Struct(fields) => {
            let (Some(sa), Some(sb)) = (a.as_struct_opt(), b.as_struct_opt()) else {
                return here();
            };
            for (k, f) in fields.iter().enumerate() {
                let d = diff_at(sa.column(k).as_ref(), i, sb.column(k).as_ref(), j, describe);
                if d.is_some() {
                    return nested(Step::Field(f.name().clone()), d);
                }
            }
            None
        }
        DataType::List(_) => {
            let (Some(la), Some(lb)) = (a.as_list_opt::<i32>(), b.as_list_opt::<i32>()) else {
                return here();
            };
            elements(&la.value(i), &lb.value(j), describe).or_else(|| {
                (la.value_length(i) != lb.value_length(j))
                    .then(here)
                    .flatten()
            })
        }
        DataType::FixedSizeList(_, _) => {
            let (Some(la), Some(lb)) = (a.as_fixed_size_list_opt(), b.as_fixed_size_list_opt())
            else {
                return here();
            };
            elements(&la.value(i), &lb.value(j), describe)
        }
        DataType::Map(_, _) => {
            let (Some(ma), Some(mb)) = (a.as_map_opt(), b.as_map_opt()) else {
                return here();
            };
            let (ea, eb) = (ma.value(i), mb.value(j));
            if ea.len() != eb.len() || ea.num_columns() != 2 || eb.num_columns() != 2 {
                return here();
            }
            for k in 0..ea.len() {
                let d = diff_at(ea.column(0).as_ref(), k, eb.column(0).as_ref(), k, describe);
                if d.is_some() {
                    return nested(Step::Key(k), d);
                }
                let d = diff_at(ea.column(1).as_ref(), k, eb.column(1).as_ref(), k, describe);
                if d.is_some() {
                    return nested(Step::Value(k), d);
                }
            }
            None
        }
        _ => {
            if leaf_equal(a, i, b, j) {
                None
            } else {
                here()
            }
        }
    }
}

/// Lists element by element: a different length is a difference at the list itself (returned by the
/// caller); otherwise the first differing element.
fn elements(a: &ArrayRef, b: &ArrayRef, describe: bool) -> Option<ValueDiff> {
    if a.len() != b.len() {
        return None;
    }
    for k in 0..a.len() {
        if let Some(mut d) = diff_at(a.as_ref(), k, b.as_ref(), k, describe) {
            d.steps.push(Step::Index(k));
            return Some(d);
        }
    }
    None
}

/// Equality of two non-null values of the same non-nested type. Floats by their bits.
fn leaf_equal(a: &dyn Array, i: usize, b: &dyn Array, j: usize) -> bool {
    downcast_primitive_array!(
        a, b => { a.value(i).is_eq(b.value(j)) }
        (DataType::Boolean, DataType::Boolean) => match (a.as_boolean_opt(), b.as_boolean_opt()) {
            (Some(a), Some(b)) => a.value(i) == b.value(j),
            _ => false,
        },
        (DataType::Utf8, DataType::Utf8) => match (a.as_string_opt::<i32>(), b.as_string_opt::<i32>()) {
            (Some(a), Some(b)) => a.value(i) == b.value(j),
            _ => false,
        },
        (DataType::Binary, DataType::Binary) => match (a.as_binary_opt::<i32>(), b.as_binary_opt::<i32>()) {
            (Some(a), Some(b)) => a.value(i) == b.value(j),
            _ => false,
        },
        (DataType::FixedSizeBinary(_), DataType::FixedSizeBinary(_)) => {
            match (a.as_fixed_size_binary_opt(), b.as_fixed_size_binary_opt()) {
                (Some(a), Some(b)) => a.value(i) == b.value(j),
                _ => false,
            }
        }
        _ => arrow_ord::ord::make_comparator(a, b, SortOptions::default())
            .map(|cmp| cmp(i, j).is_eq())
            .unwrap_or(false),
    )
}

/// Renders one value so that different values never look alike: `NULL` for null, strings quoted and
/// escaped, floats with their sign (`-0.0`) and NaN with its bits (`NaN (0x7ff8000000000001)`), structs as
/// `{a: 1, b: "x"}`, lists as `[1, 2]`, maps as `{"k": 1}` in entry order, everything else as Arrow
/// displays it (decimals with their scale, timestamps with their fraction).
pub fn render_value(array: &dyn Array, row: usize) -> String {
    let mut out = String::new();
    write_value(&mut out, array, row);
    out
}

fn write_value(out: &mut String, array: &dyn Array, row: usize) {
    if row >= array.len() {
        out.push_str("<none>");
        return;
    }
    if let Some(dict) = array.as_any_dictionary_opt() {
        let keys = dict.normalized_keys();
        match keys.get(row) {
            Some(k) if dict.keys().is_valid(row) => write_value(out, dict.values().as_ref(), *k),
            _ => out.push_str("NULL"),
        }
        return;
    }
    if array.logical_nulls().is_some_and(|n| n.is_null(row)) {
        out.push_str("NULL");
        return;
    }
    match array.data_type() {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let s = match array.data_type() {
                DataType::Utf8 => array.as_string_opt::<i32>().map(|a| a.value(row)),
                DataType::LargeUtf8 => array.as_string_opt::<i64>().map(|a| a.value(row)),
                _ => array.as_string_view_opt().map(|a| a.value(row)),
            };
            match s {
                Some(s) => out.push_str(&format!("{s:?}")),
                None => out.push_str("<unprintable>"),
            }
        }
        DataType::Float64 => {
            if let Some(a) = array.as_primitive_opt::<Float64Type>() {
                let v = a.value(row);
                if v.is_nan() {
                    out.push_str(&format!("NaN (0x{:016x})", v.to_bits()));
                } else {
                    out.push_str(&format!("{v:?}"));
                }
            }
        }
        DataType::Float32 => {
            if let Some(a) = array.as_primitive_opt::<Float32Type>() {
                let v = a.value(row);
                if v.is_nan() {
                    out.push_str(&format!("NaN (0x{:08x})", v.to_bits()));
                } else {
                    out.push_str(&format!("{v:?}"));
                }
            }
        }
        DataType::Float16 => {
            if let Some(a) = array.as_primitive_opt::<Float16Type>() {
                let v = a.value(row);
                if v.is_nan() {
                    out.push_str(&format!("NaN (0x{:04x})", v.to_bits()));
                } else {
                    out.push_str(&format!("{:?}", v.to_f32()));
                }
            }
        }
        DataType::Struct(fields) => {
            let Some(s) = array.as_struct_opt() else {
                out.push_str("<unprintable>");
                return;
            };
            out.push('{');
            for (k, f) in fields.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                out.push_str(f.name());
                out.push_str(": ");
                write_value(out, s.column(k).as_ref(), row);
            }
            out.push('}');
        }
        DataType::List(_) | DataType::LargeList(_) | DataType::FixedSizeList(_, _) => {
            let values = match array.data_type() {
                DataType::List(_) => array.as_list_opt::<i32>().map(|l| l.value(row)),
                DataType::LargeList(_) => array.as_list_opt::<i64>().map(|l| l.value(row)),
                _ => array.as_fixed_size_list_opt().map(|l| l.value(row)),
            };
            let Some(values) = values else {
                out.push_str("<unprintable>");
                return;
            };
            out.push('[');
            for k in 0..values.len() {
                if k > 0 {
                    out.push_str(", ");
                }
                write_value(out, values.as_ref(), k);
            }
            out.push(']');
        }
        DataType::Map(_, _) => {
            let Some(m) = array.as_map_opt() else {
                out.push_str("<unprintable>");
                return;
            };
            let entries = m.value(row);
            out.push('{');
            if entries.num_columns() == 2 {
                for k in 0..entries.len() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    write_value(out, entries.column(0).as_ref(), k);
                    out.push_str(": ");
                    write_value(out, entries.column(1).as_ref(), k);
                }
            }
            out.push('}');
        }
        // A TIME outside the day (Paimon 1.0's TimestampToTimeCastRule gives `millis % 86400000`, negative
        // before 1970), which Arrow's formatter cannot show: the milliseconds.
        DataType::Time32(arrow_schema::TimeUnit::Millisecond)
            if array
                .as_primitive_opt::<arrow_array::types::Time32MillisecondType>()
                .is_some_and(|t| !(0..86_400_000).contains(&t.value(row))) =>
        {
            let ms = array
                .as_primitive::<arrow_array::types::Time32MillisecondType>()
                .value(row);
            out.push_str(&format!("TIME({ms} ms)"));
        }
        _ => {
            let options = FormatOptions::default().with_null("NULL");
            match ArrayFormatter::try_new(array, &options) {
                Ok(f) => out.push_str(&f.value(row).to_string()),
                Err(e) => out.push_str(&format!("<unprintable: {e}>")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{DictionaryArray, Float64Array, Int32Array, StringArray};
    use arrow_schema::TimeUnit;

    #[test]
    fn representations_share_a_logical_type_and_types_do_not() {
        let dict = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8View));
        assert_eq!(logical_type(&dict), DataType::Utf8);
        assert_eq!(logical_type(&DataType::LargeUtf8), DataType::Utf8);
        assert_eq!(logical_type(&DataType::BinaryView), DataType::Binary);
        let element = DataType::LargeList(Arc::new(Field::new("element", DataType::Int32, false)));
        let item = DataType::List(Arc::new(Field::new("item", DataType::Int32, true)));
        assert_eq!(logical_type(&element), logical_type(&item));
        // Types that hold other values stay apart.
        let ts = |tz: Option<&str>| DataType::Timestamp(TimeUnit::Microsecond, tz.map(Into::into));
        assert_ne!(logical_type(&ts(None)), logical_type(&ts(Some("UTC"))));
        assert_ne!(
            logical_type(&DataType::Decimal128(10, 2)),
            logical_type(&DataType::Decimal128(10, 3))
        );
        let a = DataType::Struct(vec![Field::new("a", DataType::Int32, true)].into());
        let b = DataType::Struct(vec![Field::new("b", DataType::Int32, true)].into());
        assert_ne!(logical_type(&a), logical_type(&b));
    }

    #[test]
    fn normalize_turns_a_dictionary_into_its_values() {
        let keys = Int32Array::from(vec![Some(1), None, Some(0)]);
        let values = Arc::new(StringArray::from(vec!["x", "y"]));
        let dict: ArrayRef = Arc::new(DictionaryArray::try_new(keys, values).unwrap());
        let plain = normalize(&dict);
        assert_eq!(plain.data_type(), &DataType::Utf8);
        let expected: ArrayRef = Arc::new(StringArray::from(vec![Some("y"), None, Some("x")]));
        assert_eq!(column_equality(&plain, &expected), None);
        assert_eq!(render_value(dict.as_ref(), 0), "\"y\"");
        assert_eq!(render_value(dict.as_ref(), 1), "NULL");
    }

    #[test]
    fn floats_compare_by_bits() {
        let a: ArrayRef = Arc::new(Float64Array::from(vec![
            0.0,
            f64::from_bits(0x7ff8_0000_0000_0000),
            f64::from_bits(0x7ff8_0000_0000_0000),
        ]));
        let b: ArrayRef = Arc::new(Float64Array::from(vec![
            -0.0,
            f64::from_bits(0x7ff8_0000_0000_0000),
            f64::from_bits(0x7ff8_0000_0000_0002),
        ]));
        assert_eq!(column_equality(&a, &b), Some(vec![false, true, false]));
        // The per-value path (used inside nested values) agrees with the vectorized one.
        let per_value: Vec<bool> = (0..3)
            .map(|i| diff_at(a.as_ref(), i, b.as_ref(), i, false).is_none())
            .collect();
        assert_eq!(per_value, vec![false, true, false]);
        assert_eq!(render_value(b.as_ref(), 2), "NaN (0x7ff8000000000002)");
        assert_eq!(render_value(b.as_ref(), 0), "-0.0");
    }
}

/// One value as typed JSON, for machine-readable reports: `null` for NULL, booleans and integers as JSON
/// booleans and numbers, finite floats as numbers, strings as strings; every other type (NaN and
/// infinities, decimals, dates, times, timestamps, binaries, structs, lists, maps) as the string
/// [`render_value`] gives, so that no value loses precision or becomes ambiguous.
pub fn json_value(array: &dyn Array, row: usize) -> serde_json::Value {
    use serde_json::Value;
    if row >= array.len() || array.logical_nulls().is_some_and(|n| n.is_null(row)) {
        return Value::Null;
    }
    let number = |n: Option<serde_json::Number>| {
        n.map(Value::Number)
            .unwrap_or_else(|| Value::String(render_value(array, row)))
    };
    use arrow_array::types::*;
    match array.data_type() {
        DataType::Boolean => Value::Bool(array.as_boolean().value(row)),
        DataType::Int8 => Value::from(array.as_primitive::<Int8Type>().value(row)),
        DataType::Int16 => Value::from(array.as_primitive::<Int16Type>().value(row)),
        DataType::Int32 => Value::from(array.as_primitive::<Int32Type>().value(row)),
        DataType::Int64 => Value::from(array.as_primitive::<Int64Type>().value(row)),
        DataType::UInt8 => Value::from(array.as_primitive::<UInt8Type>().value(row)),
        DataType::UInt16 => Value::from(array.as_primitive::<UInt16Type>().value(row)),
        DataType::UInt32 => Value::from(array.as_primitive::<UInt32Type>().value(row)),
        DataType::UInt64 => Value::from(array.as_primitive::<UInt64Type>().value(row)),
        DataType::Float32 => number(serde_json::Number::from_f64(f64::from(
            array.as_primitive::<Float32Type>().value(row),
        ))),
        DataType::Float64 => number(serde_json::Number::from_f64(
            array.as_primitive::<Float64Type>().value(row),
        )),
        DataType::Utf8 => Value::String(array.as_string::<i32>().value(row).to_owned()),
        DataType::LargeUtf8 => Value::String(array.as_string::<i64>().value(row).to_owned()),
        DataType::Utf8View => Value::String(array.as_string_view().value(row).to_owned()),
        _ => Value::String(render_value(array, row)),
    }
}

/// The values of `columns` (positions in `batch`) of row `row` as a JSON object keyed by column name, each
/// value typed as [`json_value`] gives it.
pub fn json_row(
    batch: &RecordBatch,
    columns: impl IntoIterator<Item = usize>,
    row: usize,
) -> serde_json::Map<String, serde_json::Value> {
    let schema = batch.schema();
    columns
        .into_iter()
        .map(|i| {
            (
                schema.field(i).name().clone(),
                json_value(batch.column(i).as_ref(), row),
            )
        })
        .collect()
}

#[cfg(test)]
mod json_tests {
    use super::*;
    use arrow_array::{Float64Array, Int32Array, StringArray};

    #[test]
    fn json_values_are_typed_and_named() {
        let batch = RecordBatch::try_from_iter([
            (
                "id",
                Arc::new(Int32Array::from(vec![Some(7), None])) as ArrayRef,
            ),
            (
                "name",
                Arc::new(StringArray::from(vec!["a<b", "c"])) as ArrayRef,
            ),
            (
                "x",
                Arc::new(Float64Array::from(vec![1.5, f64::NAN])) as ArrayRef,
            ),
        ])
        .unwrap();
        assert_eq!(
            serde_json::Value::Object(json_row(&batch, 0..3, 0)).to_string(),
            r#"{"id":7,"name":"a<b","x":1.5}"#
        );
        // NULL is null, NaN keeps its payload as a string rather than becoming null.
        assert_eq!(
            serde_json::Value::Object(json_row(&batch, [0, 2], 1)).to_string(),
            r#"{"id":null,"x":"NaN (0x7ff8000000000000)"}"#
        );
    }
}
