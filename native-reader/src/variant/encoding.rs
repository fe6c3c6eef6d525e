//! Reading the variant binary encoding (the Parquet Variant spec, 2.0's `GenericVariantUtil`): the header
//! byte's basic type (low 2 bits) and type info, objects' and arrays' layouts, value sizes, and metadata
//! dictionary keys. Every read is bounds-checked (an object's or array's ids and offsets must fit the value);
//! a value out of bounds is `MALFORMED_VARIANT`, as in Java.

/// Basic types (`GenericVariantUtil.SHORT_STR`, `OBJECT`, `ARRAY`; primitives are 0).
pub(crate) const SHORT_STR: u8 = 1;
pub(crate) const OBJECT: u8 = 2;
pub(crate) const ARRAY: u8 = 3;

/// Primitive type ids (`GenericVariantUtil`).
pub(crate) const NULL: u8 = 0;
pub(crate) const TRUE: u8 = 1;
pub(crate) const FALSE: u8 = 2;
pub(crate) const INT1: u8 = 3;
pub(crate) const INT2: u8 = 4;
pub(crate) const INT4: u8 = 5;
pub(crate) const INT8: u8 = 6;
pub(crate) const DOUBLE: u8 = 7;
pub(crate) const DECIMAL4: u8 = 8;
pub(crate) const DECIMAL8: u8 = 9;
pub(crate) const DECIMAL16: u8 = 10;
pub(crate) const DATE: u8 = 11;
pub(crate) const TIMESTAMP: u8 = 12;
pub(crate) const TIMESTAMP_NTZ: u8 = 13;
pub(crate) const FLOAT: u8 = 14;
pub(crate) const BINARY: u8 = 15;
pub(crate) const LONG_STR: u8 = 16;
pub(crate) const UUID: u8 = 20;

/// The error Java raises as `MALFORMED_VARIANT`.
pub(crate) fn malformed() -> String {
    "malformed variant (MALFORMED_VARIANT)".into()
}

/// `readUnsigned`: `bytes` little-endian bytes at `pos` as an unsigned integer below 2^31.
pub(crate) fn read_unsigned(value: &[u8], pos: usize, bytes: usize) -> Result<usize, String> {
    let slice = value.get(pos..pos + bytes).ok_or_else(malformed)?;
    let n = slice
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    if n > i32::MAX as u64 {
        return Err(malformed());
    }
    Ok(n as usize)
}

/// An object's layout (`handleObject`): field count, id and offset widths, where ids, offsets and data start.
pub(crate) struct ObjectLayout {
    pub(crate) size: usize,
    pub(crate) id_size: usize,
    pub(crate) offset_size: usize,
    pub(crate) id_start: usize,
    pub(crate) offset_start: usize,
    pub(crate) data_start: usize,
}

/// An array's layout (`handleArray`): element count, offset width, where offsets and data start.
pub(crate) struct ArrayLayout {
    pub(crate) size: usize,
    pub(crate) offset_size: usize,
    pub(crate) offset_start: usize,
    pub(crate) data_start: usize,
}

fn header(value: &[u8], pos: usize, basic: u8) -> Result<u8, String> {
    let h = *value.get(pos).ok_or_else(malformed)?;
    if h & 0x3 != basic {
        return Err(malformed());
    }
    Ok(h >> 2)
}

/// The layout of the object at `pos`. Errors when the value there is not an object or is cut short.
pub(crate) fn object(value: &[u8], pos: usize) -> Result<ObjectLayout, String> {
    let info = header(value, pos, OBJECT)?;
    let size_bytes = if (info >> 4) & 1 == 1 { 4 } else { 1 };
    let size = read_unsigned(value, pos + 1, size_bytes)?;
    let id_size = usize::from((info >> 2) & 0x3) + 1;
    let offset_size = usize::from(info & 0x3) + 1;
    let id_start = pos + 1 + size_bytes;
    let offset_start = id_start + size * id_size;
    let data_start = offset_start + (size + 1) * offset_size;
    if data_start > value.len() {
        return Err(malformed());
    }
    Ok(ObjectLayout {
        size,
        id_size,
        offset_size,
        id_start,
        offset_start,
        data_start,
    })
}

/// The layout of the array at `pos`. Errors when the value there is not an array or is cut short.
pub(crate) fn array(value: &[u8], pos: usize) -> Result<ArrayLayout, String> {
    let info = header(value, pos, ARRAY)?;
    let size_bytes = if (info >> 2) & 1 == 1 { 4 } else { 1 };
    let size = read_unsigned(value, pos + 1, size_bytes)?;
    let offset_size = usize::from(info & 0x3) + 1;
    let offset_start = pos + 1 + size_bytes;
    let data_start = offset_start + (size + 1) * offset_size;
    if data_start > value.len() {
        return Err(malformed());
    }
    Ok(ArrayLayout {
        size,
        offset_size,
        offset_start,
        data_start,
    })
}

impl ObjectLayout {
    /// Field `i` of this object in `value` (`getFieldAtIndex`): its key from `metadata` and its value's
    /// position. Errors when the id, offset or key is out of bounds.
    pub(crate) fn field(
        &self,
        value: &[u8],
        metadata: &[u8],
        i: usize,
    ) -> Result<(String, usize), String> {
        let id = read_unsigned(value, self.id_start + self.id_size * i, self.id_size)?;
        let offset = read_unsigned(
            value,
            self.offset_start + self.offset_size * i,
            self.offset_size,
        )?;
        Ok((metadata_key(metadata, id)?, self.data_start + offset))
    }
}

/// `valueSize`: the bytes the value at `pos` takes.
///
/// Errors: a value cut short, or a primitive type id Java does not know (`UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT`).
pub(crate) fn value_size(value: &[u8], pos: usize) -> Result<usize, String> {
    let h = *value.get(pos).ok_or_else(malformed)?;
    let info = h >> 2;
    let last_offset = |offset_start: usize, size: usize, offset_size: usize, data_start: usize| {
        read_unsigned(value, offset_start + size * offset_size, offset_size)
            .map(|end| data_start - pos + end)
    };
    match h & 0x3 {
        SHORT_STR => Ok(1 + usize::from(info)),
        OBJECT => {
            let o = object(value, pos)?;
            last_offset(o.offset_start, o.size, o.offset_size, o.data_start)
        }
        ARRAY => {
            let a = array(value, pos)?;
            last_offset(a.offset_start, a.size, a.offset_size, a.data_start)
        }
        _ => match info {
            NULL | TRUE | FALSE => Ok(1),
            INT1 => Ok(2),
            INT2 => Ok(3),
            INT4 | DATE | FLOAT => Ok(5),
            INT8 | DOUBLE | TIMESTAMP | TIMESTAMP_NTZ => Ok(9),
            DECIMAL4 => Ok(6),
            DECIMAL8 => Ok(10),
            DECIMAL16 => Ok(18),
            BINARY | LONG_STR => Ok(1 + 4 + read_unsigned(value, pos + 1, 4)?),
            UUID => Ok(17),
            other => Err(format!(
                "unknown primitive type {other} in a variant (UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT)"
            )),
        },
    }
}

/// `getMetadataKey`: key `id` of the metadata dictionary, decoded as Java's `new String(bytes, UTF_8)` does
/// (malformed sequences replaced).
pub(crate) fn metadata_key(metadata: &[u8], id: usize) -> Result<String, String> {
    let first = *metadata.first().ok_or_else(malformed)?;
    let width = usize::from((first >> 6) & 0x3) + 1;
    let count = read_unsigned(metadata, 1, width)?;
    if id >= count {
        return Err(malformed());
    }
    let strings = 1 + (count + 2) * width;
    let offset = read_unsigned(metadata, 1 + (id + 1) * width, width)?;
    let next = read_unsigned(metadata, 1 + (id + 2) * width, width)?;
    if offset > next {
        return Err(malformed());
    }
    let bytes = metadata
        .get(strings + offset..strings + next)
        .ok_or_else(malformed)?;
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

/// `new GenericVariant(value, metadata)`'s check: metadata of version 1.
pub(crate) fn check_metadata(metadata: &[u8]) -> Result<(), String> {
    match metadata.first() {
        Some(b) if b & 0x0F == 1 => Ok(()),
        _ => Err(malformed()),
    }
}
