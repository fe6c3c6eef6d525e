//! Serialized `BinaryRow`s (`org.apache.paimon.data.BinaryRow`, written by `BinaryRowWriter` and
//! `SerializationUtils.serializeBinaryRow`): the partition (`_PARTITION`), key (`_MIN_KEY`, `_MAX_KEY`) and
//! stats rows of manifests.
//!
//! Serialized shape (all lengths in bytes):
//!
//! ```text
//! [ i32 BE arity ][ null bits: W = ((arity + 63 + 8) / 64) * 8 ][ 8-byte slot per field ][ var-length region ]
//! ```
//!
//! Inside the row every multi-byte value is little-endian. Byte 0 of the null bits is the RowKind header; field
//! `i` is null when bit `8 + i` is set (LSB first). Strings and binaries of at most 7 bytes live inside their
//! slot (top byte `0x80 | len`); longer ones, DECIMAL with precision > 18 and TIMESTAMP with precision > 3
//! keep `(offset << 32) | x` in the slot and their bytes at `offset` from the row start.
//!
//! Every read is bounds-checked: malformed bytes give an error, never a panic.

use std::path::Path;

use crate::error::{Error, Result};
use crate::schema::{DataType, TypeKind};

/// The value model ([`crate::value::Datum`]), re-exported where it started: the fields of a BinaryRow.
pub use crate::value::Datum;

/// A view of a serialized BinaryRow (the row bytes without the 4-byte arity prefix).
#[derive(Clone, Copy, Debug)]
pub struct BinaryRow<'a> {
    arity: usize,
    bytes: &'a [u8],
}

/// Width in bytes of the null-bit region of a row of `arity` fields
/// (`BinaryRow.calculateBitSetWidthInBytes`: `((arity + 63 + 8) / 64) * 8`).
pub fn null_bits_width(arity: usize) -> usize {
    arity.saturating_add(63 + 8) / 64 * 8
}

impl<'a> BinaryRow<'a> {
    /// Wraps a serialized row as stored in Avro bytes: 4-byte big-endian arity, then the row bytes.
    ///
    /// Errors when the prefix is missing, the arity is negative, or the bytes are too short for the
    /// null bits and fixed slots.
    pub fn from_serialized(serialized: &'a [u8]) -> std::result::Result<Self, BinaryRowError> {
        let prefix: [u8; 4] = serialized
            .get(..4)
            .and_then(|p| p.try_into().ok())
            .ok_or_else(|| {
                BinaryRowError::from(format!(
                    "{} bytes, too short for the arity prefix",
                    serialized.len()
                ))
            })?;
        let arity = i32::from_be_bytes(prefix);
        if arity < 0 {
            return Err(format!("negative arity {arity}").into());
        }
        Self::new(arity as usize, &serialized[4..])
    }

    /// Wraps row bytes (no arity prefix) of a row with `arity` fields.
    pub fn new(arity: usize, bytes: &'a [u8]) -> std::result::Result<Self, BinaryRowError> {
        let fixed = null_bits_width(arity)
            .checked_add(arity.checked_mul(8).ok_or("arity overflow")?)
            .ok_or("arity overflow")?;
        if bytes.len() < fixed {
            return Err(format!(
                "arity {arity} needs at least {fixed} bytes, the row has {}",
                bytes.len()
            )
            .into());
        }
        Ok(BinaryRow { arity, bytes })
    }

    /// Number of fields.
    pub fn arity(&self) -> usize {
        self.arity
    }

    /// The row bytes (without the arity prefix).
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The RowKind header byte (0 = `+I` for partitions, keys and stats).
    pub fn header(&self) -> u8 {
        self.bytes.first().copied().unwrap_or(0)
    }

    fn check_index(&self, pos: usize) -> std::result::Result<(), BinaryRowError> {
        if pos >= self.arity {
            Err(format!("field {pos} out of range, arity {}", self.arity).into())
        } else {
            Ok(())
        }
    }

    /// True when field `pos` is null.
    pub fn is_null_at(&self, pos: usize) -> std::result::Result<bool, BinaryRowError> {
        self.check_index(pos)?;
        let bit = pos + 8;
        let byte = self.bytes.get(bit >> 3).ok_or_else(|| {
            BinaryRowError::from(format!("null bit of field {pos} out of bounds"))
        })?;
        Ok(byte & (1 << (bit & 7)) != 0)
    }

    fn slot_offset(&self, pos: usize) -> usize {
        null_bits_width(self.arity) + pos * 8
    }

    fn slot(&self, pos: usize) -> std::result::Result<[u8; 8], BinaryRowError> {
        self.check_index(pos)?;
        let off = self.slot_offset(pos);
        self.bytes
            .get(off..off + 8)
            .and_then(|s| s.try_into().ok())
            .ok_or_else(|| BinaryRowError::from(format!("slot of field {pos} out of bounds")))
    }

    /// The 8-byte slot of field `pos` as a little-endian i64.
    pub fn get_long(&self, pos: usize) -> std::result::Result<i64, BinaryRowError> {
        Ok(i64::from_le_bytes(self.slot(pos)?))
    }

    /// The low 4 bytes of the slot of field `pos` as a little-endian i32.
    pub fn get_int(&self, pos: usize) -> std::result::Result<i32, BinaryRowError> {
        let s = self.slot(pos)?;
        Ok(i32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }

    fn var_region(
        &self,
        pos: usize,
        offset: u64,
        len: u64,
    ) -> std::result::Result<&'a [u8], BinaryRowError> {
        let start = usize::try_from(offset).map_err(|_| "offset overflow".to_string())?;
        let len = usize::try_from(len).map_err(|_| "length overflow".to_string())?;
        if len == 0 {
            // Java copies nothing for an empty part, wherever its offset points
            // (`MemorySegmentUtils.copyToBytes` falls through to the multi-segment copy, which copies no
            // byte when the offset is past the row): an empty string or binary, not an error.
            return Ok(&[]);
        }
        let end = start
            .checked_add(len)
            .ok_or_else(|| "offset + length overflow".to_string())?;
        self.bytes.get(start..end).ok_or_else(|| {
            format!(
                "field {pos}: variable-length part [{start}, {end}) outside the row of {} bytes",
                self.bytes.len()
            )
            .into()
        })
    }

    /// The bytes of a string or binary field (inline when at most 7 bytes, else in the var-length region).
    pub fn get_binary(&self, pos: usize) -> std::result::Result<&'a [u8], BinaryRowError> {
        let slot = self.slot(pos)?;
        let v = u64::from_le_bytes(slot);
        if v & (1 << 63) != 0 {
            let len = ((v >> 56) & 0x7F) as usize;
            if len > 7 {
                return Err(format!("field {pos}: inline length {len} > 7").into());
            }
            let start = self.slot_offset(pos);
            // The slot was read above, so start..start+len is in bounds.
            self.bytes.get(start..start + len).ok_or_else(|| {
                BinaryRowError::from(format!("field {pos}: inline bytes out of bounds"))
            })
        } else {
            self.var_region(pos, v >> 32, v & 0xFFFF_FFFF)
        }
    }

    /// Decodes field `pos` as type `t` (nullability of `t` is not enforced: a set null bit gives `Null`).
    ///
    /// Errors on out-of-bounds offsets, invalid UTF-8, oversized decimals, and nested types (ARRAY, MAP,
    /// MULTISET, ROW), which never occur in partitions, keys or stats.
    pub fn get(&self, pos: usize, t: &DataType) -> std::result::Result<Datum, BinaryRowError> {
        if self.is_null_at(pos)? {
            return Ok(Datum::Null);
        }
        let slot = self.slot(pos)?;
        Ok(match &t.kind {
            TypeKind::Boolean => Datum::Boolean(slot[0] != 0),
            TypeKind::TinyInt => Datum::Int(slot[0] as i8 as i64),
            TypeKind::SmallInt => Datum::Int(i16::from_le_bytes([slot[0], slot[1]]) as i64),
            TypeKind::Int | TypeKind::Date | TypeKind::Time(_) => {
                Datum::Int(i32::from_le_bytes([slot[0], slot[1], slot[2], slot[3]]) as i64)
            }
            TypeKind::BigInt => Datum::Int(i64::from_le_bytes(slot)),
            TypeKind::Float => {
                Datum::Float(f32::from_le_bytes([slot[0], slot[1], slot[2], slot[3]]))
            }
            TypeKind::Double => Datum::Double(f64::from_le_bytes(slot)),
            TypeKind::Char(_) | TypeKind::VarChar(_) => {
                let b = self.get_binary(pos)?;
                Datum::String(
                    String::from_utf8(b.to_vec())
                        .map_err(|e| format!("field {pos}: invalid UTF-8: {e}"))?,
                )
            }
            TypeKind::Binary(_) | TypeKind::VarBinary(_) => {
                Datum::Bytes(self.get_binary(pos)?.to_vec())
            }
            TypeKind::Decimal { precision, scale } => {
                let unscaled = if *precision <= 18 {
                    i64::from_le_bytes(slot) as i128
                } else {
                    let v = u64::from_le_bytes(slot);
                    let b = self.var_region(pos, v >> 32, v & 0xFFFF_FFFF)?;
                    be_twos_complement(b).map_err(|e| format!("field {pos}: {e}"))?
                };
                Datum::Decimal {
                    unscaled,
                    precision: *precision,
                    scale: *scale,
                }
            }
            TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
                if *p <= 3 {
                    Datum::Timestamp {
                        millis: i64::from_le_bytes(slot),
                        nanos_of_milli: 0,
                    }
                } else {
                    let v = u64::from_le_bytes(slot);
                    let nanos = (v & 0xFFFF_FFFF) as u32 as i32;
                    if !(0..1_000_000).contains(&nanos) {
                        return Err(format!(
                            "field {pos}: nano-of-millisecond {nanos} out of range"
                        )
                        .into());
                    }
                    let b = self.var_region(pos, v >> 32, 8)?;
                    let millis = i64::from_le_bytes(
                        b.try_into()
                            .map_err(|_| format!("field {pos}: short timestamp"))?,
                    );
                    Datum::Timestamp {
                        millis,
                        nanos_of_milli: nanos,
                    }
                }
            }
            TypeKind::Array(_)
            | TypeKind::Vector(_, _)
            | TypeKind::Multiset(_)
            | TypeKind::Map(_, _)
            | TypeKind::Row(_)
            | TypeKind::Variant
            | TypeKind::Blob => {
                return Err(format!(
                    "field {pos}: type {:?} is not supported in a BinaryRow here",
                    t.kind
                )
                .into())
            }
        })
    }
}

/// Big-endian two's complement (Java `BigInteger.toByteArray`) to i128; 1..=16 bytes.
fn be_twos_complement(b: &[u8]) -> std::result::Result<i128, BinaryRowError> {
    if b.is_empty() || b.len() > 16 {
        return Err(format!("decimal of {} bytes (expected 1..=16)", b.len()).into());
    }
    let fill = if b[0] & 0x80 != 0 { 0xFF } else { 0x00 };
    let mut buf = [fill; 16];
    buf[16 - b.len()..].copy_from_slice(b);
    Ok(i128::from_be_bytes(buf))
}

/// Decodes a serialized row (with its 4-byte arity prefix) into one [`Datum`] per type.
///
/// Errors (as a reason string) when the arity differs from `types.len()` or any field is malformed.
pub fn decode_row(
    serialized: &[u8],
    types: &[&DataType],
) -> std::result::Result<Vec<Datum>, BinaryRowError> {
    let row = BinaryRow::from_serialized(serialized)?;
    if row.arity() != types.len() {
        return Err(format!(
            "arity {} but {} field types expected",
            row.arity(),
            types.len()
        )
        .into());
    }
    types
        .iter()
        .enumerate()
        .map(|(i, t)| row.get(i, t))
        .collect()
}

/// [`decode_row`] with the error as [`Error::BinaryRow`] naming `path`, the file the row came from.
pub fn read_row(serialized: &[u8], types: &[&DataType], path: &Path) -> Result<Vec<Datum>> {
    decode_row(serialized, types).map_err(|reason| Error::BinaryRow {
        path: path.to_path_buf(),
        reason: reason.0,
    })
}

impl Datum {
    /// True for [`Datum::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Datum::Null)
    }

    /// The value as `partition.legacy-name=true` renders it: Java `toString()` of Paimon's internal value
    /// (`InternalRowPartitionComputer` with legacy names). `Ok(None)` for NULL.
    ///
    /// Integers (and DATE days, TIME millis) in decimal; BOOLEAN `true`/`false`; strings as is; DECIMAL as
    /// `BigDecimal.toPlainString()`; FLOAT/DOUBLE as Java `Float/Double.toString` (shortest round-trip
    /// digits, as JDK 19+ prints them); TIMESTAMP/LTZ as `LocalDateTime.toString()` of the stored value.
    /// Errors for binary values, whose Java rendering (`[B@<identity hash>`) cannot be reproduced.
    pub fn to_legacy_string(&self) -> std::result::Result<Option<String>, BinaryRowError> {
        Ok(Some(match self {
            Datum::Null => return Ok(None),
            Datum::Boolean(b) => b.to_string(),
            Datum::Int(v) => v.to_string(),
            Datum::Float(f) => java_float_to_string(*f),
            Datum::Double(d) => java_double_to_string(*d),
            Datum::String(s) => s.clone(),
            Datum::Bytes(_) => {
                return Err(
                    "a BINARY/VARBINARY value has no reproducible legacy string (Java prints `[B@hash`)"
                        .into(),
                )
            }
            Datum::Decimal {
                unscaled, scale, ..
            } => decimal_to_plain_string(*unscaled, *scale),
            Datum::Timestamp {
                millis,
                nanos_of_milli,
            } => local_date_time_string(*millis, *nanos_of_milli),
            Datum::List(_) | Datum::Map(_) | Datum::Row(_) => {
                return Err("an ARRAY, MAP or ROW value has no legacy string here".into())
            }
        }))
    }
}

/// `BigDecimal.valueOf(unscaled, scale).toPlainString()`.
pub fn decimal_to_plain_string(unscaled: i128, scale: i8) -> String {
    let neg = unscaled < 0;
    let digits = unscaled.unsigned_abs().to_string();
    let body = if scale <= 0 {
        if unscaled == 0 {
            digits
        } else {
            format!("{digits}{}", "0".repeat((-(scale as i32)) as usize))
        }
    } else {
        let scale = scale as usize;
        if digits.len() <= scale {
            format!("0.{}{digits}", "0".repeat(scale - digits.len()))
        } else {
            let (int, frac) = digits.split_at(digits.len() - scale);
            format!("{int}.{frac}")
        }
    };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

/// Proleptic Gregorian (year, month, day) of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    (y, m, d)
}

/// `java.time.LocalDate.toString()` of (year, month, day): `yyyy-MM-dd`, years beyond 9999 with `+`.
pub fn java_local_date_string(year: i64, month: u32, day: u32) -> String {
    let y = if year.abs() < 1000 {
        if year < 0 {
            format!("-{:04}", -year)
        } else {
            format!("{year:04}")
        }
    } else if year > 9999 {
        format!("+{year}")
    } else {
        year.to_string()
    };
    format!("{y}-{month:02}-{day:02}")
}

/// `org.apache.paimon.data.Timestamp.toString()`, i.e. `LocalDateTime.toString()` of the stored value:
/// `yyyy-MM-ddTHH:mm`, then `:ss` unless seconds and nanos are 0, then `.SSS`, `.SSSSSS` or `.SSSSSSSSS`
/// (the shortest of the three that is exact) unless nanos are 0.
pub fn local_date_time_string(millis: i64, nanos_of_milli: i32) -> String {
    let days = millis.div_euclid(86_400_000);
    let ms_of_day = millis.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let nano_of_day = ms_of_day * 1_000_000 + nanos_of_milli as i64;
    let hour = nano_of_day / 3_600_000_000_000;
    let minute = nano_of_day / 60_000_000_000 % 60;
    let second = nano_of_day / 1_000_000_000 % 60;
    let nano = nano_of_day % 1_000_000_000;
    let mut s = format!("{}T{hour:02}:{minute:02}", java_local_date_string(y, m, d));
    if second > 0 || nano > 0 {
        s.push_str(&format!(":{second:02}"));
        if nano > 0 {
            if nano % 1_000_000 == 0 {
                s.push_str(&format!(".{:03}", nano / 1_000_000));
            } else if nano % 1000 == 0 {
                s.push_str(&format!(".{:06}", nano / 1000));
            } else {
                s.push_str(&format!(".{nano:09}"));
            }
        }
    }
    s
}

/// Java `Double.toString`: plain notation for 1e-3 <= |d| < 1e7 (at least one fraction digit), otherwise
/// computerized scientific notation `d.dddE±n`; shortest round-trip digits.
pub fn java_double_to_string(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    java_format(
        format!("{:e}", d.abs()),
        d < 0.0,
        (1e-3..1e7).contains(&d.abs()),
    )
}

/// Java `Float.toString`, same rules as [`java_double_to_string`] with float digits.
pub fn java_float_to_string(f: f32) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    java_format(
        format!("{:e}", f.abs()),
        f < 0.0,
        (1e-3..1e7).contains(&f.abs()),
    )
}

/// Formats Rust's shortest `{:e}` output (`d[.ddd]e[-]n`) the Java way.
fn java_format(sci: String, negative: bool, plain: bool) -> String {
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let digits = if digits.is_empty() {
        "0".to_string()
    } else {
        digits
    };
    let body = if plain {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                format!("{digits}{}.0", "0".repeat(int_len - digits.len()))
            } else {
                format!("{}.{}", &digits[..int_len], &digits[int_len..])
            }
        } else {
            format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
        }
    } else {
        let (first, rest) = digits.split_at(1);
        format!("{first}.{}E{exp}", if rest.is_empty() { "0" } else { rest })
    };
    if negative {
        format!("-{body}")
    } else {
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::parse_atomic;

    fn t(s: &str) -> DataType {
        parse_atomic(s).unwrap()
    }

    fn with_prefix(arity: i32, row: &[u8]) -> Vec<u8> {
        let mut v = arity.to_be_bytes().to_vec();
        v.extend_from_slice(row);
        v
    }

    #[test]
    fn int_example() {
        // §3.2: INT 5.
        let mut row = vec![0u8; 8];
        row.extend_from_slice(&[5, 0, 0, 0, 0, 0, 0, 0]);
        let bytes = with_prefix(1, &row);
        assert_eq!(&bytes[..4], &[0, 0, 0, 1]);
        assert_eq!(
            decode_row(&bytes, &[&t("INT")]).unwrap(),
            vec![Datum::Int(5)]
        );
    }

    /// The slot of a DOUBLE 54.0 (`0x404B000000000000`) read as a STRING, as a pre-2.0 release reads a
    /// `_WRITE_COLS` file's stats: offset `0x404B0000`, length 0, far past the row. Java prints "" (it
    /// copies no byte); a non-empty part out there is still an error.
    #[test]
    fn an_empty_part_past_the_row_is_empty() {
        let mut row = vec![0u8; 8];
        row.extend_from_slice(&54.0f64.to_le_bytes());
        let bytes = with_prefix(1, &row);
        assert_eq!(
            decode_row(&bytes, &[&t("STRING")]).unwrap(),
            vec![Datum::String(String::new())]
        );
        let mut row = vec![0u8; 8];
        row.extend_from_slice(&((0x404B_0000u64 << 32) | 1).to_le_bytes());
        assert!(decode_row(&with_prefix(1, &row), &[&t("STRING")]).is_err());
    }

    #[test]
    fn inline_string_example() {
        // §3.2: STRING "abc" inline.
        let mut row = vec![0u8; 8];
        row.extend_from_slice(&[0x61, 0x62, 0x63, 0, 0, 0, 0, 0x83]);
        let bytes = with_prefix(1, &row);
        assert_eq!(
            decode_row(&bytes, &[&t("STRING")]).unwrap(),
            vec![Datum::String("abc".into())]
        );
    }

    #[test]
    fn var_length_string_example() {
        // §3.2: STRING "2024-01-01", offset 16, length 10.
        let mut row = vec![0u8; 8];
        row.extend_from_slice(&[0x0A, 0, 0, 0, 0x10, 0, 0, 0]);
        row.extend_from_slice(b"2024-01-01");
        row.extend_from_slice(&[0; 6]);
        let bytes = with_prefix(1, &row);
        assert_eq!(
            decode_row(&bytes, &[&t("STRING")]).unwrap(),
            vec![Datum::String("2024-01-01".into())]
        );
    }

    #[test]
    fn empty_row() {
        let bytes = with_prefix(0, &[0; 8]);
        assert_eq!(bytes.len(), 12);
        assert_eq!(decode_row(&bytes, &[]).unwrap(), vec![]);
    }

    #[test]
    fn nulls_and_mixed_types() {
        // arity 3: [NULL INT, BIGINT -2, BOOLEAN true]
        let mut row = vec![0u8; 8];
        row[1] = 0b0000_0001; // bit 8 => field 0 null
        row.extend_from_slice(&[0; 8]);
        row.extend_from_slice(&(-2i64).to_le_bytes());
        row.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]);
        let bytes = with_prefix(3, &row);
        let got = decode_row(&bytes, &[&t("INT"), &t("BIGINT"), &t("BOOLEAN")]).unwrap();
        assert_eq!(got, vec![Datum::Null, Datum::Int(-2), Datum::Boolean(true)]);
        assert_eq!(got[0].to_legacy_string().unwrap(), None);
        assert_eq!(got[1].to_legacy_string().unwrap().as_deref(), Some("-2"));
        assert_eq!(got[2].to_legacy_string().unwrap().as_deref(), Some("true"));
    }

    #[test]
    fn small_ints_decimal_timestamp() {
        // arity 4: TINYINT -1, SMALLINT 300, DECIMAL(5,2) -12.34, TIMESTAMP(6) with nanos
        let mut row = vec![0u8; 8];
        row.extend_from_slice(&[0xFF, 0, 0, 0, 0, 0, 0, 0]);
        row.extend_from_slice(&300i16.to_le_bytes());
        row.extend_from_slice(&[0; 6]);
        row.extend_from_slice(&(-1234i64).to_le_bytes());
        let ts_offset: u64 = 8 + 4 * 8;
        row.extend_from_slice(&((ts_offset << 32) | 123_456).to_le_bytes());
        // 2024-01-01T00:00:01.001 = 1704067201001 ms
        row.extend_from_slice(&1_704_067_201_001i64.to_le_bytes());
        let bytes = with_prefix(4, &row);
        let got = decode_row(
            &bytes,
            &[
                &t("TINYINT"),
                &t("SMALLINT"),
                &t("DECIMAL(5, 2)"),
                &t("TIMESTAMP(9)"),
            ],
        )
        .unwrap();
        assert_eq!(got[0], Datum::Int(-1));
        assert_eq!(got[1], Datum::Int(300));
        assert_eq!(
            got[2].to_legacy_string().unwrap().as_deref(),
            Some("-12.34")
        );
        assert_eq!(
            got[3],
            Datum::Timestamp {
                millis: 1_704_067_201_001,
                nanos_of_milli: 123_456
            }
        );
        assert_eq!(
            got[3].to_legacy_string().unwrap().as_deref(),
            Some("2024-01-01T00:00:01.001123456")
        );
    }

    #[test]
    fn big_decimal_in_var_region() {
        // DECIMAL(20, 0) = -1 stored as one byte 0xFF at offset 16
        let mut row = vec![0u8; 8];
        row.extend_from_slice(&((16u64 << 32) | 1).to_le_bytes());
        row.extend_from_slice(&[0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        let bytes = with_prefix(1, &row);
        let got = decode_row(&bytes, &[&t("DECIMAL(20, 0)")]).unwrap();
        assert_eq!(
            got[0],
            Datum::Decimal {
                unscaled: -1,
                precision: 20,
                scale: 0
            }
        );
    }

    #[test]
    fn malformed_rows_are_errors() {
        assert!(decode_row(&[0, 0], &[]).is_err());
        assert!(decode_row(&[0xFF, 0xFF, 0xFF, 0xFF], &[]).is_err());
        // arity 1 but no slot
        assert!(decode_row(&with_prefix(1, &[0; 8]), &[&t("INT")]).is_err());
        // arity mismatch
        assert!(decode_row(&with_prefix(0, &[0; 8]), &[&t("INT")]).is_err());
        // pointer out of bounds
        let mut row = vec![0u8; 8];
        row.extend_from_slice(&((1000u64 << 32) | 10).to_le_bytes());
        assert!(decode_row(&with_prefix(1, &row), &[&t("STRING")]).is_err());
        // huge arity
        assert!(decode_row(&[0x7F, 0xFF, 0xFF, 0xFF], &[]).is_err());
        // invalid UTF-8 inline
        let mut row = vec![0u8; 8];
        row.extend_from_slice(&[0xFF, 0xFE, 0, 0, 0, 0, 0, 0x82]);
        assert!(decode_row(&with_prefix(1, &row), &[&t("STRING")]).is_err());
        // error wrapping names the file
        let err = read_row(&[1], &[], Path::new("/x/manifest-1")).unwrap_err();
        assert!(matches!(err, Error::BinaryRow { .. }));
        assert!(err.to_string().contains("/x/manifest-1"));
    }

    #[test]
    fn java_strings() {
        assert_eq!(java_double_to_string(1.0), "1.0");
        assert_eq!(java_double_to_string(14.1), "14.1");
        assert_eq!(java_double_to_string(-0.5), "-0.5");
        assert_eq!(java_double_to_string(0.001), "0.001");
        assert_eq!(java_double_to_string(0.0001), "1.0E-4");
        assert_eq!(java_double_to_string(1e7), "1.0E7");
        assert_eq!(java_double_to_string(1234567.0), "1234567.0");
        assert_eq!(java_double_to_string(1.5e300), "1.5E300");
        assert_eq!(java_float_to_string(0.1), "0.1");
        assert_eq!(java_float_to_string(3.0e10), "3.0E10");
        assert_eq!(decimal_to_plain_string(5, 3), "0.005");
        assert_eq!(decimal_to_plain_string(-5, 3), "-0.005");
        assert_eq!(decimal_to_plain_string(12345, 2), "123.45");
        assert_eq!(decimal_to_plain_string(7, 0), "7");
        assert_eq!(local_date_time_string(0, 0), "1970-01-01T00:00");
        assert_eq!(local_date_time_string(1000, 0), "1970-01-01T00:00:01");
        assert_eq!(local_date_time_string(-1, 0), "1969-12-31T23:59:59.999");
        assert_eq!(
            local_date_time_string(1, 1000),
            "1970-01-01T00:00:00.001001"
        );
        assert_eq!(civil_from_days(19723), (2024, 1, 1));
        assert_eq!(java_local_date_string(12, 3, 4), "0012-03-04");
        assert_eq!(java_local_date_string(-12, 3, 4), "-0012-03-04");
        assert_eq!(java_local_date_string(10000, 1, 1), "+10000-01-01");
    }
}

/// A serialized BinaryRow (partition, key or stats) that does not decode: what is wrong, at which field (`BinaryRow`, `BinarySection`). The text is the message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BinaryRowError(pub String);

impl From<String> for BinaryRowError {
    fn from(message: String) -> Self {
        BinaryRowError(message)
    }
}

impl From<&str> for BinaryRowError {
    fn from(message: &str) -> Self {
        BinaryRowError(message.to_string())
    }
}

impl std::ops::Deref for BinaryRowError {
    type Target = str;

    /// The message.
    fn deref(&self) -> &str {
        &self.0
    }
}
