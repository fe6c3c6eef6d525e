//! A variant value and metadata written the way 2.0's `GenericVariantBuilder` writes them (without duplicate
//! keys): the smallest integer header that holds a value, object fields sorted by key as Java's
//! `String.compareTo` orders them (UTF-16 code units), id and offset widths from the largest id and the data
//! size, and a metadata dictionary of the keys in the order they were first added (not marked sorted).

use std::collections::HashMap;

use super::encoding::{
    self, malformed, read_unsigned, value_size, ARRAY, BINARY, DATE, DECIMAL16, DECIMAL4, DECIMAL8,
    DOUBLE, FALSE, FLOAT, INT1, INT2, INT4, INT8, LONG_STR, OBJECT, TRUE,
};

/// `GenericVariantUtil.MAX_SHORT_STR_SIZE`.
const MAX_SHORT_STR_SIZE: usize = 0x3F;
/// `GenericVariantUtil.U8_MAX`: above this many fields or elements the size takes 4 bytes.
const U8_MAX: usize = 0xFF;
/// `GenericVariantUtil.SIZE_LIMIT` (128 MiB): the largest value or metadata Java builds.
const SIZE_LIMIT: usize = 128 * 1024 * 1024;
/// `MAX_DECIMAL4_PRECISION` and `MAX_DECIMAL8_PRECISION`.
const MAX_DECIMAL4: u32 = 9;
const MAX_DECIMAL8: u32 = 18;
/// Metadata version (`GenericVariantUtil.VERSION`).
const VERSION: u8 = 1;
/// The deepest nesting [`VariantBuilder::append`] copies (Java has no limit but its stack).
const MAX_DEPTH: usize = 1000;

/// One field of an object being written (`GenericVariantBuilder.FieldEntry`): its key, its id in the
/// builder's dictionary, and its value's offset from the object's start.
pub(crate) struct FieldEntry {
    pub(crate) key: String,
    pub(crate) id: usize,
    pub(crate) offset: usize,
}

/// Mirrors `GenericVariantBuilder(allowDuplicateKeys = false)`: values are appended to one buffer, objects and
/// arrays get their headers when finished, and [`VariantBuilder::result`] gives `(value, metadata)`.
#[derive(Default)]
pub(crate) struct VariantBuilder {
    buffer: Vec<u8>,
    dictionary: HashMap<String, usize>,
    keys: Vec<String>,
}

/// `GenericVariantUtil.getIntegerSize`: bytes needed for an unsigned `value` (1 to 4).
fn integer_size(value: usize) -> usize {
    match value {
        0..=0xFF => 1,
        0x100..=0xFFFF => 2,
        0x1_0000..=0xFF_FFFF => 3,
        _ => 4,
    }
}

fn write_le(out: &mut Vec<u8>, value: u64, bytes: usize) {
    out.extend_from_slice(&value.to_le_bytes()[..bytes]);
}

const fn primitive(type_id: u8) -> u8 {
    type_id << 2
}

impl VariantBuilder {
    /// Bytes written so far (`getWritePos`).
    pub(crate) fn position(&self) -> usize {
        self.buffer.len()
    }

    /// `(value, metadata)` (`result()`): the metadata is version 1, offset width from the larger of the keys'
    /// total length and their count. Errors when the value or the metadata passes 128 MiB (Java checks the
    /// value as it grows, [`VariantBuilder::append`] too).
    pub(crate) fn result(self) -> Result<(Vec<u8>, Vec<u8>), String> {
        let total: usize = self.keys.iter().map(String::len).sum();
        let max = total.max(self.keys.len());
        if max > SIZE_LIMIT || self.buffer.len() > SIZE_LIMIT {
            return Err("a rebuilt variant is larger than 128 MiB".into());
        }
        let width = integer_size(max);
        let size = 1 + (self.keys.len() + 2) * width + total;
        if size > SIZE_LIMIT {
            return Err("a rebuilt variant's metadata is larger than 128 MiB".into());
        }
        let mut metadata = Vec::with_capacity(size);
        metadata.push(VERSION | ((width as u8 - 1) << 6));
        write_le(&mut metadata, self.keys.len() as u64, width);
        let mut offset = 0usize;
        for key in &self.keys {
            write_le(&mut metadata, offset as u64, width);
            offset += key.len();
        }
        write_le(&mut metadata, offset as u64, width);
        for key in &self.keys {
            metadata.extend_from_slice(key.as_bytes());
        }
        Ok((self.buffer, metadata))
    }

    /// `appendString`: a short string header up to 63 bytes, else `LONG_STR` with a 4-byte length.
    pub(crate) fn string(&mut self, text: &str) {
        let bytes = text.as_bytes();
        if bytes.len() > MAX_SHORT_STR_SIZE {
            self.buffer.push(primitive(LONG_STR));
            write_le(&mut self.buffer, bytes.len() as u64, 4);
        } else {
            self.buffer
                .push(((bytes.len() as u8) << 2) | encoding::SHORT_STR);
        }
        self.buffer.extend_from_slice(bytes);
    }

    /// `appendBoolean`.
    pub(crate) fn boolean(&mut self, value: bool) {
        self.buffer
            .push(primitive(if value { TRUE } else { FALSE }));
    }

    /// `appendLong`: `INT1`, `INT2`, `INT4` or `INT8`, the smallest that holds `value`.
    pub(crate) fn long(&mut self, value: i64) {
        let (type_id, bytes) = if value == value as i8 as i64 {
            (INT1, 1)
        } else if value == value as i16 as i64 {
            (INT2, 2)
        } else if value == value as i32 as i64 {
            (INT4, 4)
        } else {
            (INT8, 8)
        };
        self.buffer.push(primitive(type_id));
        write_le(&mut self.buffer, value as u64, bytes);
    }

    /// `appendDouble`: `Double.doubleToLongBits` (every NaN written as the canonical one).
    pub(crate) fn double(&mut self, value: f64) {
        let bits = if value.is_nan() {
            0x7ff8_0000_0000_0000
        } else {
            value.to_bits()
        };
        self.buffer.push(primitive(DOUBLE));
        write_le(&mut self.buffer, bits, 8);
    }

    /// `appendFloat`: `Float.floatToIntBits` (every NaN written as the canonical one).
    pub(crate) fn float(&mut self, value: f32) {
        let bits = if value.is_nan() {
            0x7fc0_0000
        } else {
            value.to_bits()
        };
        self.buffer.push(primitive(FLOAT));
        write_le(&mut self.buffer, u64::from(bits), 4);
    }

    /// `appendBinary`: a 4-byte length and the bytes.
    pub(crate) fn binary(&mut self, bytes: &[u8]) {
        self.buffer.push(primitive(BINARY));
        write_le(&mut self.buffer, bytes.len() as u64, 4);
        self.buffer.extend_from_slice(bytes);
    }

    /// `appendDate`: days since 1970-01-01.
    pub(crate) fn date(&mut self, days: i32) {
        self.buffer.push(primitive(DATE));
        write_le(&mut self.buffer, days as u32 as u64, 4);
    }

    /// `appendDecimal` of `BigDecimal(unscaled, scale)`: `DECIMAL4` when the scale and the precision (the
    /// unscaled value's digits, 1 for zero) are at most 9, `DECIMAL8` at most 18, else `DECIMAL16`.
    pub(crate) fn decimal(&mut self, unscaled: i128, scale: u8) {
        let digits = unscaled
            .unsigned_abs()
            .checked_ilog10()
            .map_or(1, |d| d + 1);
        let scale32 = u32::from(scale);
        let (type_id, bytes) = if scale32 <= MAX_DECIMAL4 && digits <= MAX_DECIMAL4 {
            (DECIMAL4, 4)
        } else if scale32 <= MAX_DECIMAL8 && digits <= MAX_DECIMAL8 {
            (DECIMAL8, 8)
        } else {
            (DECIMAL16, 16)
        };
        self.buffer.push(primitive(type_id));
        self.buffer.push(scale);
        self.buffer
            .extend_from_slice(&unscaled.to_le_bytes()[..bytes]);
    }

    /// `addKey`: the key's id in this builder's dictionary, added at the end when new.
    pub(crate) fn add_key(&mut self, key: &str) -> usize {
        if let Some(&id) = self.dictionary.get(key) {
            return id;
        }
        let id = self.keys.len();
        self.dictionary.insert(key.to_owned(), id);
        self.keys.push(key.to_owned());
        id
    }

    /// `finishWritingObject(start, fields)`: fields sorted by key (UTF-16 order, stable), then the header
    /// (size, ids, offsets, data size) put before the fields' values written since `start`.
    ///
    /// Errors: two fields with one key (`VARIANT_DUPLICATE_KEY`).
    pub(crate) fn finish_object(
        &mut self,
        start: usize,
        mut fields: Vec<FieldEntry>,
    ) -> Result<(), String> {
        fields.sort_by(|a, b| a.key.encode_utf16().cmp(b.key.encode_utf16()));
        if let Some(pair) = fields.windows(2).find(|w| w[0].key == w[1].key) {
            return Err(format!(
                "duplicate key `{}` in a variant object",
                pair[0].key
            ));
        }
        let size = fields.len();
        let max_id = fields.iter().map(|f| f.id).max().unwrap_or(0);
        let data_size = self.buffer.len() - start;
        let large = size > U8_MAX;
        let size_bytes = if large { 4 } else { 1 };
        let id_size = integer_size(max_id);
        let offset_size = integer_size(data_size);
        let mut header =
            Vec::with_capacity(1 + size_bytes + size * id_size + (size + 1) * offset_size);
        header.push(
            (u8::from(large) << 6)
                | ((id_size as u8 - 1) << 4)
                | ((offset_size as u8 - 1) << 2)
                | OBJECT,
        );
        write_le(&mut header, size as u64, size_bytes);
        for field in &fields {
            write_le(&mut header, field.id as u64, id_size);
        }
        for field in &fields {
            write_le(&mut header, field.offset as u64, offset_size);
        }
        write_le(&mut header, data_size as u64, offset_size);
        self.buffer.splice(start..start, header);
        Ok(())
    }

    /// `finishWritingArray(start, offsets)`: the header (size, offsets, data size) put before the elements
    /// written since `start`.
    pub(crate) fn finish_array(&mut self, start: usize, offsets: &[usize]) {
        let data_size = self.buffer.len() - start;
        let size = offsets.len();
        let large = size > U8_MAX;
        let size_bytes = if large { 4 } else { 1 };
        let offset_size = integer_size(data_size);
        let mut header = Vec::with_capacity(1 + size_bytes + (size + 1) * offset_size);
        header.push((u8::from(large) << 4) | ((offset_size as u8 - 1) << 2) | ARRAY);
        write_le(&mut header, size as u64, size_bytes);
        for &offset in offsets {
            write_le(&mut header, offset as u64, offset_size);
        }
        write_le(&mut header, data_size as u64, offset_size);
        self.buffer.splice(start..start, header);
    }

    /// `appendVariant`: the value at `pos` of `value` (keys looked up in `metadata`) copied in, objects and
    /// arrays rebuilt element by element so that their keys enter this builder's dictionary, other values
    /// copied byte for byte.
    ///
    /// Errors: a malformed value or metadata (`MALFORMED_VARIANT`), or an unknown primitive type.
    pub(crate) fn append(
        &mut self,
        value: &[u8],
        metadata: &[u8],
        pos: usize,
    ) -> Result<(), String> {
        self.append_at(value, metadata, pos, 0)
    }

    fn append_at(
        &mut self,
        value: &[u8],
        metadata: &[u8],
        pos: usize,
        depth: usize,
    ) -> Result<(), String> {
        if self.buffer.len() > SIZE_LIMIT {
            return Err("a rebuilt variant is larger than 128 MiB".into());
        }
        if depth > MAX_DEPTH {
            return Err(format!("a variant nested deeper than {MAX_DEPTH} levels"));
        }
        let header = *value.get(pos).ok_or_else(malformed)?;
        match header & 0x3 {
            OBJECT => {
                let object = encoding::object(value, pos)?;
                let start = self.position();
                let mut fields = Vec::with_capacity(object.size);
                for i in 0..object.size {
                    let (key, field_pos) = object.field(value, metadata, i)?;
                    let id = self.add_key(&key);
                    fields.push(FieldEntry {
                        key,
                        id,
                        offset: self.position() - start,
                    });
                    self.append_at(value, metadata, field_pos, depth + 1)?;
                }
                self.finish_object(start, fields)
            }
            ARRAY => {
                let array = encoding::array(value, pos)?;
                let start = self.position();
                let mut offsets = Vec::with_capacity(array.size);
                for i in 0..array.size {
                    let offset = read_unsigned(
                        value,
                        array.offset_start + array.offset_size * i,
                        array.offset_size,
                    )?;
                    offsets.push(self.position() - start);
                    self.append_at(value, metadata, array.data_start + offset, depth + 1)?;
                }
                self.finish_array(start, &offsets);
                Ok(())
            }
            _ => {
                let size = value_size(value, pos)?;
                let bytes = value.get(pos..pos + size).ok_or_else(malformed)?;
                self.buffer.extend_from_slice(bytes);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes of `{"b": 1, "a": "x"}` as Java's `GenericVariantBuilder` writes them (parseJson): keys in the
    /// dictionary in the order met (b, a), fields sorted by key (a, b) with offsets into the data.
    #[test]
    fn an_object_is_written_as_java_writes_it() {
        let mut b = VariantBuilder::default();
        let start = b.position();
        let id_b = b.add_key("b");
        let mut fields = vec![FieldEntry {
            key: "b".into(),
            id: id_b,
            offset: 0,
        }];
        b.long(1);
        let id_a = b.add_key("a");
        fields.push(FieldEntry {
            key: "a".into(),
            id: id_a,
            offset: b.position() - start,
        });
        b.string("x");
        b.finish_object(start, fields).unwrap();
        let (value, metadata) = b.result().unwrap();
        // header 0b00_00_00_10, 2 fields, ids [1, 0] (a then b), offsets [2, 0, 4], then INT1 1 and "x".
        assert_eq!(value, vec![0x02, 2, 1, 0, 2, 0, 4, 0x0C, 1, 0x05, b'x']);
        assert_eq!(metadata, vec![0x01, 2, 0, 1, 2, b'b', b'a']);
    }

    #[test]
    fn integers_and_decimals_take_the_smallest_header() {
        let mut b = VariantBuilder::default();
        b.long(-7);
        b.long(300);
        b.long(1 << 40);
        b.decimal(1234, 2);
        b.decimal(0, 0);
        b.decimal(12_345_678_901, 2);
        let (value, _) = b.result().unwrap();
        assert_eq!(
            value,
            [
                vec![0x0C, 0xF9],
                vec![0x10, 0x2C, 0x01],
                vec![0x18, 0, 0, 0, 0, 0, 1, 0, 0],
                vec![0x20, 2, 0xD2, 0x04, 0, 0],
                vec![0x20, 0, 0, 0, 0, 0],
                [vec![0x24, 2], 12_345_678_901i64.to_le_bytes().to_vec()].concat(),
            ]
            .concat()
        );
    }

    #[test]
    fn keys_sort_as_java_strings_do() {
        // U+FF5E sorts after U+1F600 in UTF-8 order but before it in UTF-16 order (Java's).
        let mut b = VariantBuilder::default();
        let start = b.position();
        let mut fields = Vec::new();
        for key in ["\u{1F600}", "\u{FF5E}"] {
            let id = b.add_key(key);
            fields.push(FieldEntry {
                key: key.into(),
                id,
                offset: b.position() - start,
            });
            b.boolean(true);
        }
        b.finish_object(start, fields).unwrap();
        let (value, _) = b.result().unwrap();
        // Java's order puts U+1F600 (id 0, UTF-16 0xD83D..) before U+FF5E (id 1); UTF-8 order would not.
        assert_eq!(&value[2..4], &[0, 1]);
    }
}
