//! One text value to a Paimon value, as paimon-format's `CsvParser.parseField` and `JsonFileReader
//! .convertPrimitiveStringToType` turn the text of a field into a value (2.0.0).

use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;

use crate::decode::cast::{cast_datum, CastError};
use crate::line::LineRules;
use crate::schema::{DataType, TypeKind};
use crate::value::Datum;

/// Java's `Base64.getDecoder()`: the basic alphabet, padding optional, stray trailing bits accepted.
const JAVA_BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// Java `Long.parseLong(s, 10)` (and `Integer.parseInt`, `Short.parseShort`, `Byte.parseByte` by their range,
/// and `CsvParser.parseInt`/`parseLong`, which parse the same text): an optional sign and decimal digits,
/// nothing else (no blank, no fraction). `None` where Java throws or returns null. Only ASCII digits are
/// read (Java also takes other Unicode decimal digits).
pub(super) fn parse_java_integer(s: &str, min: i64, max: i64) -> Option<i64> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value: i128 = if digits.len() > 20 {
        return None;
    } else {
        digits.parse().ok()?
    };
    let value = if s.starts_with('-') { -value } else { value };
    (i128::from(min)..=i128::from(max))
        .contains(&value)
        .then_some(value as i64)
}

/// The range of an integer type.
fn range(kind: &TypeKind) -> Option<(i64, i64)> {
    Some(match kind {
        TypeKind::TinyInt => (i64::from(i8::MIN), i64::from(i8::MAX)),
        TypeKind::SmallInt => (i64::from(i16::MIN), i64::from(i16::MAX)),
        TypeKind::Int => (i64::from(i32::MIN), i64::from(i32::MAX)),
        TypeKind::BigInt => (i64::MIN, i64::MAX),
        _ => return None,
    })
}

/// The value of `text` read as a column of `to`:
/// * TINYINT..BIGINT: [`parse_java_integer`] in the type's range;
/// * FLOAT, DOUBLE: `Float.parseFloat`, `Double.parseDouble`;
/// * BOOLEAN: `Boolean.parseBoolean` (`true` in any case; anything else is false);
/// * CHAR, VARCHAR: the text as it is (neither padded nor cut);
/// * BINARY, VARBINARY: Java's basic Base64 decoder;
/// * DATE, TIME, TIMESTAMP, TIMESTAMP WITH LOCAL TIME ZONE, DECIMAL: Paimon's cast from STRING
///   (`CastExecutors.resolve(STRING, type)`); a DECIMAL that does not fit is NULL (`Decimal.fromBigDecimal`).
///
/// `Ok(None)`: `to` is a type neither format reads here (nested, VARIANT, BLOB), for the caller to refuse.
/// `Err(reason)`: Java throws, or `CsvParser` reports the value malformed.
pub(super) fn parse_value(
    text: &str,
    to: &DataType,
    rules: &LineRules,
) -> Result<Option<Datum>, String> {
    use TypeKind as K;
    let value = match &to.kind {
        kind @ (K::TinyInt | K::SmallInt | K::Int | K::BigInt) => {
            let (min, max) = range(kind).unwrap_or((i64::MIN, i64::MAX));
            Datum::Int(
                parse_java_integer(text, min, max)
                    .ok_or_else(|| format!("For input string: {text:?} ({kind:?})"))?,
            )
        }
        K::Boolean => Datum::Boolean(text.eq_ignore_ascii_case("true")),
        K::Char(_) | K::VarChar(_) => Datum::String(text.to_owned()),
        K::Binary(_) | K::VarBinary(_) => Datum::Bytes(
            JAVA_BASE64
                .decode(text)
                .map_err(|e| format!("{text:?} is not Base64: {e}"))?,
        ),
        K::Float
        | K::Double
        | K::Date
        | K::Time(_)
        | K::Timestamp(_)
        | K::LocalZonedTimestamp(_)
        | K::Decimal { .. } => {
            let string = DataType {
                kind: K::VarChar(i32::MAX as u32),
                nullable: true,
            };
            match cast_datum(Datum::String(text.to_owned()), &string, to, rules) {
                Ok(v) => v,
                Err(CastError::DecimalOverflow { .. }) => Datum::Null,
                Err(e) => return Err(e.to_string()),
            }
        }
        _ => return Ok(None),
    };
    Ok(Some(value))
}

/// Java `Character.isWhitespace` of one UTF-16 unit ([`crate::partition::is_java_whitespace`]; a surrogate
/// is not whitespace).
pub(super) fn java_is_whitespace(c: u16) -> bool {
    char::from_u32(u32::from(c)).is_some_and(crate::partition::is_java_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_parse_as_java_does() {
        assert_eq!(parse_java_integer("+12", i64::MIN, i64::MAX), Some(12));
        assert_eq!(
            parse_java_integer("-9223372036854775808", i64::MIN, i64::MAX),
            Some(i64::MIN)
        );
        assert_eq!(
            parse_java_integer("9223372036854775808", i64::MIN, i64::MAX),
            None
        );
        assert_eq!(parse_java_integer("128", -128, 127), None);
        for bad in ["", "-", "+", " 1", "1.0", "1e3", "0x1"] {
            assert_eq!(parse_java_integer(bad, i64::MIN, i64::MAX), None, "{bad}");
        }
    }

    #[test]
    fn base64_is_javas_basic_decoder() {
        assert_eq!(JAVA_BASE64.decode("/w==").unwrap(), [0xFF]);
        assert_eq!(JAVA_BASE64.decode("/w").unwrap(), [0xFF]);
        assert!(JAVA_BASE64.decode("a b").is_err());
    }
}
