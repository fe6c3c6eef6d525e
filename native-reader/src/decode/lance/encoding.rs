//! One page of a Lance 2.0 file (`major 0, minor 3`) decoded from its array encoding (Lance's
//! `encodings_v2_0.proto`, the "legacy" encodings its 2.0 writer picks: `CoreArrayEncodingStrategy`) into
//! an Arrow array of the column's logical type:
//!
//! * `flat`: fixed-width values, `bits_per_value` each (1 for booleans, as an Arrow bitmap), uncompressed;
//! * `nullable`: `no_nulls` (the values), `some_nulls` (a 1-bit validity and the values, NULL slots
//!   included) or `all_nulls`;
//! * `binary`: one end offset per value (u64), a NULL value's raised by `null_adjustment`, and the bytes;
//! * `dictionary`: 1-based u8 indices (0 is NULL) into `num_dictionary_items` items;
//! * `fixed_size_list` (without validity of its own) and `fixed_size_binary`.
//!
//! Any other encoding (bitpacking, FSST, packed structs, general compression, the 2.1 structural
//! layouts) is an [`LanceError::Unsupported`] naming it.

use std::sync::Arc;

use arrow::buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_array::cast::AsArray;
use arrow_array::types::{UInt64Type, UInt8Type};
use arrow_array::{make_array, new_null_array, Array, ArrayRef, UInt32Array};
use arrow_schema::DataType as ArrowType;

use super::proto::array_encoding::Kind;
use super::proto::{ArrayEncoding, Flat};

/// Why a page could not be decoded: an encoding or layout this reader does not decode, or bytes that do not
/// hold what their encoding says.
#[derive(Debug)]
pub(crate) enum LanceError {
    Unsupported(String),
    Invalid(String),
}

pub(crate) type PageResult<T> = Result<T, LanceError>;

fn invalid<T>(reason: impl Into<String>) -> PageResult<T> {
    Err(LanceError::Invalid(reason.into()))
}

/// The bytes of a page's buffers, by index.
pub(crate) struct PageBuffers<'a> {
    pub(crate) buffers: Vec<&'a [u8]>,
}

impl PageBuffers<'_> {
    fn flat(&self, flat: &Flat) -> PageResult<&[u8]> {
        if let Some(c) = flat.compression.as_ref().filter(|c| !c.scheme.is_empty()) {
            return Err(LanceError::Unsupported(format!(
                "a Lance page compressed with `{}`",
                c.scheme
            )));
        }
        let buffer = flat
            .buffer
            .as_ref()
            .ok_or_else(|| LanceError::Invalid("a flat encoding without its buffer".into()))?;
        if buffer.buffer_type != 0 {
            return Err(LanceError::Unsupported(
                "a Lance value held in a column or file buffer".into(),
            ));
        }
        self.buffers
            .get(buffer.buffer_index as usize)
            .copied()
            .ok_or_else(|| {
                LanceError::Invalid(format!("page buffer {} is missing", buffer.buffer_index))
            })
    }
}

fn child<'e>(
    encoding: &'e Option<Box<ArrayEncoding>>,
    what: &str,
) -> PageResult<&'e ArrayEncoding> {
    encoding
        .as_deref()
        .ok_or_else(|| LanceError::Invalid(format!("an encoding without its {what}")))
}

/// The page's `rows` values of Arrow type `t`, decoded from `encoding` over `buffers`.
pub(crate) fn decode(
    encoding: &ArrayEncoding,
    buffers: &PageBuffers<'_>,
    rows: usize,
    t: &ArrowType,
) -> PageResult<ArrayRef> {
    let kind = encoding
        .kind
        .as_ref()
        .ok_or_else(|| LanceError::Invalid("an empty array encoding".into()))?;
    match kind {
        Kind::Flat(flat) => flat_values(flat, buffers, rows, t),
        Kind::Nullable(n) => {
            if let Some(no) = &n.no_nulls {
                decode(child(&no.values, "values")?, buffers, rows, t)
            } else if let Some(some) = &n.some_nulls {
                let validity = decode(
                    child(&some.validity, "validity")?,
                    buffers,
                    rows,
                    &ArrowType::Boolean,
                )?;
                let validity = validity.as_boolean().values().clone();
                let values = decode(child(&some.values, "values")?, buffers, rows, t)?;
                with_nulls(values, NullBuffer::new(validity))
            } else if n.all_nulls.is_some() {
                Ok(new_null_array(t, rows))
            } else {
                invalid("a nullable encoding of no kind")
            }
        }
        Kind::Binary(b) => binary(b, buffers, rows, t),
        Kind::Dictionary(d) => {
            // u8 indices: at most 255 items (the writer's `DictionaryEncoder`).
            if d.num_dictionary_items > 256 {
                return invalid(format!("{} dictionary items", d.num_dictionary_items));
            }
            let indices = decode(
                child(&d.indices, "indices")?,
                buffers,
                rows,
                &ArrowType::UInt8,
            )?;
            let items = decode(
                child(&d.items, "items")?,
                buffers,
                d.num_dictionary_items as usize,
                t,
            )?;
            // Index 0 is NULL; index i is item i - 1.
            let indices = indices.as_primitive::<UInt8Type>();
            let mut take = Vec::with_capacity(rows);
            for &i in indices.values() {
                if i == 0 {
                    take.push(None);
                } else if usize::from(i) <= items.len() {
                    take.push(Some(u32::from(i) - 1));
                } else {
                    return invalid(format!(
                        "dictionary index {i} beyond its {} items",
                        items.len()
                    ));
                }
            }
            arrow_select::take::take(&items, &UInt32Array::from(take), None)
                .map_err(|e| LanceError::Invalid(e.to_string()))
        }
        Kind::FixedSizeList(l) => {
            let ArrowType::FixedSizeList(item, dimension) = t else {
                return invalid(format!("a fixed-size list page for a {t} column"));
            };
            if l.has_validity {
                return Err(LanceError::Unsupported(
                    "a Lance fixed-size list page with its own validity".into(),
                ));
            }
            if i64::from(l.dimension) != i64::from(*dimension) {
                return invalid(format!(
                    "a fixed-size list of {} for a column of {dimension}",
                    l.dimension
                ));
            }
            let values = decode(
                child(&l.items, "items")?,
                buffers,
                rows.checked_mul(l.dimension as usize).ok_or_else(|| {
                    LanceError::Invalid("a fixed-size list beyond 2^64 values".into())
                })?,
                item.data_type(),
            )?;
            arrow_array::FixedSizeListArray::try_new(item.clone(), *dimension, values, None)
                .map(|a| Arc::new(a) as ArrayRef)
                .map_err(|e| LanceError::Invalid(e.to_string()))
        }
        Kind::FixedSizeBinary(f) => {
            let ArrowType::FixedSizeBinary(width) = t else {
                return invalid(format!("a fixed-size binary page for a {t} column"));
            };
            if i64::from(f.byte_width) != i64::from(*width) {
                return invalid("a fixed-size binary of another width");
            }
            let bytes = decode(
                child(&f.bytes, "bytes")?,
                buffers,
                rows.checked_mul(f.byte_width as usize).ok_or_else(|| {
                    LanceError::Invalid("a fixed-size binary beyond 2^64 bytes".into())
                })?,
                &ArrowType::UInt8,
            )?;
            let data = bytes.to_data();
            build(t, rows, vec![data.buffers()[0].clone()], vec![])
        }
        other => Err(LanceError::Unsupported(format!(
            "the Lance encoding `{}`",
            other.name()
        ))),
    }
}

/// The width in bits of a fixed-width Arrow type's value, or None.
fn bit_width(t: &ArrowType) -> Option<u64> {
    match t {
        ArrowType::Boolean => Some(1),
        ArrowType::FixedSizeBinary(w) => u64::try_from(*w).ok().map(|w| w * 8),
        other => other.primitive_width().map(|w| w as u64 * 8),
    }
}

fn flat_values(
    flat: &Flat,
    buffers: &PageBuffers<'_>,
    rows: usize,
    t: &ArrowType,
) -> PageResult<ArrayRef> {
    let bytes = buffers.flat(flat)?;
    match bit_width(t) {
        Some(bits) if bits == flat.bits_per_value => {}
        _ => {
            return Err(LanceError::Unsupported(format!(
                "{} bits per value for a {t} column",
                flat.bits_per_value
            )))
        }
    }
    let needed = (rows as u64)
        .checked_mul(flat.bits_per_value)
        .map(|bits| bits.div_ceil(8))
        .and_then(|n| usize::try_from(n).ok());
    let Some(bytes) = needed.and_then(|n| bytes.get(..n)) else {
        return invalid(format!(
            "a page buffer of {} bytes for {rows} values of {} bits",
            bytes.len(),
            flat.bits_per_value
        ));
    };
    build(t, rows, vec![Buffer::from_slice_ref(bytes)], vec![])
}

fn build(
    t: &ArrowType,
    rows: usize,
    buffers: Vec<Buffer>,
    children: Vec<arrow::array::ArrayData>,
) -> PageResult<ArrayRef> {
    arrow::array::ArrayData::try_new(t.clone(), rows, None, 0, buffers, children)
        .map(make_array)
        .map_err(|e| LanceError::Invalid(e.to_string()))
}

/// `values` with `nulls` laid over them (a `some_nulls` page: its values hold a slot for each NULL).
pub(crate) fn with_nulls(values: ArrayRef, nulls: NullBuffer) -> PageResult<ArrayRef> {
    if nulls.len() != values.len() {
        return invalid("a validity bitmap of another length than its values");
    }
    let nulls = match values.nulls() {
        Some(own) => NullBuffer::new(own.inner() & nulls.inner()),
        None => nulls,
    };
    let data = values.to_data().into_builder().nulls(Some(nulls)).build();
    data.map(make_array)
        .map_err(|e| LanceError::Invalid(e.to_string()))
}

/// End offsets with NULLs raised by `adjustment` (`binary` and `list` pages) into Arrow offsets starting at
/// 0 and a validity: value i is NULL when its offset is at least `adjustment`, and its length is its end
/// less the previous end either way.
pub(crate) fn offsets_and_validity(
    ends: &[u64],
    adjustment: u64,
    total: u64,
) -> PageResult<(Vec<u64>, BooleanBuffer)> {
    let mut offsets = Vec::with_capacity(ends.len() + 1);
    offsets.push(0u64);
    let mut valid = arrow::array::BooleanBufferBuilder::new(ends.len());
    let mut previous = 0u64;
    for &end in ends {
        let (is_valid, end) = if adjustment > 0 && end >= adjustment {
            (false, end - adjustment)
        } else {
            (true, end)
        };
        if end < previous || end > total {
            return invalid(format!(
                "an end offset {end} before {previous} or beyond {total}"
            ));
        }
        offsets.push(end);
        valid.append(is_valid);
        previous = end;
    }
    Ok((offsets, valid.finish()))
}

fn binary(
    b: &super::proto::Binary,
    buffers: &PageBuffers<'_>,
    rows: usize,
    t: &ArrowType,
) -> PageResult<ArrayRef> {
    let ends = decode(
        child(&b.indices, "indices")?,
        buffers,
        rows,
        &ArrowType::UInt64,
    )?;
    let ends = ends.as_primitive::<UInt64Type>();
    if ends.null_count() > 0 {
        return invalid("binary end offsets with NULLs");
    }
    // The bytes of every value: as many as the last end says (ends never decrease, NULLs' included).
    let (offsets, validity) = offsets_and_validity(ends.values(), b.null_adjustment, u64::MAX)?;
    let total = offsets.last().copied().unwrap_or(0);
    let bytes = if total == 0 {
        Buffer::from_vec(Vec::<u8>::new())
    } else {
        let bytes = decode(
            child(&b.bytes, "bytes")?,
            buffers,
            total as usize,
            &ArrowType::UInt8,
        )?;
        bytes.to_data().buffers()[0].clone()
    };
    let nulls = Some(NullBuffer::new(validity)).filter(|n| n.null_count() > 0);
    let offsets_buffer = match t {
        ArrowType::Utf8 | ArrowType::Binary => {
            let narrow = offsets
                .iter()
                .map(|&o| i32::try_from(o))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| LanceError::Invalid("a binary page beyond 2 GiB".into()))?;
            OffsetBuffer::new(ScalarBuffer::from(narrow))
                .into_inner()
                .into_inner()
        }
        ArrowType::LargeUtf8 | ArrowType::LargeBinary => {
            let wide = offsets.iter().map(|&o| o as i64).collect::<Vec<_>>();
            OffsetBuffer::new(ScalarBuffer::from(wide))
                .into_inner()
                .into_inner()
        }
        other => return invalid(format!("a binary page for a {other} column")),
    };
    arrow::array::ArrayData::try_new(
        t.clone(),
        rows,
        nulls.map(|n| n.into_inner().into_inner()),
        0,
        vec![offsets_buffer, bytes],
        vec![],
    )
    .map(make_array)
    .map_err(|e| LanceError::Invalid(e.to_string()))
}
