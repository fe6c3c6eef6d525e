//! Paimon's cast rules for columns whose type changed by schema evolution (`org.apache.paimon.casting
//! .CastExecutors` as `SchemaEvolutionUtil.createIndexCastMapping` applies them in 1.0: the value read with
//! the file's type is cast to the table's type). ALTER TABLE (`SchemaManager`, 1.0) allows a type change
//! exactly when `DataTypeCasts.supportsExplicitCast` holds and `CastExecutors.resolve` finds a rule, so the
//! pairs below are every change a 1.0 table can hold. The JVM zone is UTC (the bridge's), so the local-zone
//! conversions of the Java rules are the identity.
//!
//! Rules reproduced (value semantics of the Java rule in parentheses):
//! * TINYINT..BIGINT, FLOAT, DOUBLE to each other (`NumericPrimitiveCastRule`: `Number.byteValue()` etc.,
//!   i.e. Java primitive conversions: integer narrowing wraps, float to integer saturates, NaN is 0);
//! * integers, FLOAT/DOUBLE and BOOLEAN to DECIMAL (`NumericPrimitiveToDecimalCastRule`,
//!   `BooleanToNumericCastRule`: `DecimalUtils.castFrom`, FLOAT/DOUBLE through `BigDecimal.valueOf`, i.e. the
//!   `Double.toString` digits, NaN and infinities are errors as Java throws), DECIMAL to DECIMAL
//!   (`DecimalToDecimalCastRule`): rescaled HALF_UP; a value with more digits than the target precision
//!   (NULL from `Decimal.fromBigDecimal`) fails the read as it does in the released reader (below);
//! * DECIMAL to integers (rounded toward zero, then narrowed like Java) and to FLOAT/DOUBLE
//!   (`DecimalToNumericPrimitiveCastRule`);
//! * BOOLEAN to numbers (1/0) and integers to BOOLEAN (non-zero) (`BooleanToNumericCastRule`,
//!   `NumericToBooleanCastRule`);
//! * numbers and BOOLEAN to CHAR/VARCHAR/STRING (Java `toString`) and strings to strings
//!   (`BinaryStringUtils.toCharacterString`: longer values are cut to the target length in characters, CHAR
//!   targets padded with spaces); DATE, TIME and TIMESTAMP/LTZ to STRING only, i.e. nullable
//!   VARCHAR(2147483647) (`DateToStringCastRule`, `TimeToStringCastRule`, `TimestampToStringCastRule`:
//!   `DateTimeUtils.formatDate`, `formatTimestampMillis` and `formatTimestamp` with the file type's
//!   precision);
//! * BINARY/VARBINARY/BYTES to each other and strings to them (`BinaryToBinaryCastRule`,
//!   `StringToBinaryCastRule`: the UTF-8 bytes, then `BinaryStringUtils.toBinaryString`: BINARY(n) targets
//!   padded with zero bytes or cut, VARBINARY(n) targets cut); binary to strings (`BinaryToStringCastRule`:
//!   the bytes as UTF-8, neither cut nor padded to the target length);
//! * strings to TINYINT..BIGINT and BOOLEAN (`StringToNumericPrimitiveCastRule`, `StringToBooleanCastRule`:
//!   `BinaryStringUtils.toLong` syntax, untrimmed, a fraction is dropped; `t/true/y/yes/1`, `f/false/n/no/0`),
//!   to FLOAT/DOUBLE (`Float.parseFloat`/`Double.parseDouble`: trimmed, `NaN`, `Infinity`, hexadecimal, a
//!   `fFdD` suffix), to DECIMAL (`StringToDecimalCastRule`: `new BigDecimal(text)`, then as above), to DATE
//!   (`BinaryStringUtils.toDate`: digits only are a day count, else `DateTimeUtils.parseDate`), to TIME
//!   (`toTime`: digits only are milliseconds, else `DateTimeUtils.parseTime`, zone offsets included), to
//!   TIMESTAMP (`toTimestamp`: digits only are an epoch count in the unit of the precision 0, 3, 6 or 9, else
//!   `DateTimeUtils.parseTimestampData`, i.e. `DEFAULT_TIMESTAMP_FORMATTER` with SMART resolution: a day
//!   past the month's end is clamped, `24:00:00` is the next midnight, the fraction floored to the
//!   precision) and to TIMESTAMP WITH LOCAL TIME ZONE (the same text parse, never digits as a number).
//!   Text the Java cast throws on is a read error naming the file, the column and the value;
//! * TIMESTAMP/LTZ to TIMESTAMP/LTZ (`TimestampToTimestampCastRule`: a lower target precision truncates with
//!   `DateTimeUtils.truncate`'s rule, which keeps the value when its nano-of-second has no more decimal digits
//!   than the precision); DATE and TIME to TIMESTAMP/LTZ (`DateToTimestampCastRule`,
//!   `TimeToTimestampCastRule`: the time of day on 1970-01-01); TIMESTAMP to DATE and TIME
//!   (`TimestampToDateCastRule`, `TimestampToTimeCastRule`: `millis / 86400000` and `millis % 86400000` in
//!   Java, i.e. toward zero and negative before 1970; LTZ: the UTC local date and time); TIMESTAMP/LTZ to INT
//!   and BIGINT (`TimestampToNumericPrimitiveCastRule`: `millis / 1000`) and INT/BIGINT to TIMESTAMP/LTZ
//!   (`NumericPrimitiveToTimestamp`: seconds since the epoch).
//!
//! Other type changes (no 1.0 rule, e.g. TIME(p) to TIME(q), FLOAT to BOOLEAN, DATE to VARCHAR(n)) are
//! refused when the file is opened ([`check_castable`]), naming the column. Known differences: a value Java
//! parses with non-ASCII Unicode digits (`Character.isDigit`) is an error here; invalid UTF-8 in BINARY to
//! STRING is replaced as `String::from_utf8_lossy` does. Where `Decimal.fromBigDecimal` yields NULL
//! (overflow), the released reader's `CastedRow` still reports the field non-null and paimon-arrow fails with
//! a `NullPointerException`; this reader fails the read too, naming the file, the column and the value. `cast_java_cases.txt` holds the released jar's results
//! for the values the unit tests check (`scripts/cast-probe`).

mod array;
mod binary;
mod decimal;
mod error;
mod numeric;
mod string;
mod temporal;

#[cfg(test)]
mod tests;

use crate::line::{LineRules, TimestampToTime};
use arrow_array::{Array, ArrayRef};

pub(crate) use self::error::CastError;

use self::array::{build, read, timestamp};
use self::binary::to_binary;
use self::decimal::{decimal_overflow, decimal_to_f64};
use self::numeric::{float_to_integer, narrow};
use self::string::{
    parse_integral, parse_java_float, string_to_date, string_to_time, string_to_timestamp,
    to_character,
};
use self::temporal::{
    format_date, format_time, format_timestamp, precision_of, truncate, MILLIS_PER_DAY,
};
use crate::binary_row::{decimal_to_plain_string, java_double_to_string, java_float_to_string};
use crate::java::big_decimal::{parse_big_decimal, rescale_half_up};
use crate::schema::{DataType, TypeKind};
use crate::types::field_arrow_type;
use crate::value::Datum;

/// Families of types as the cast rules see them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Boolean,
    Integer,
    Approximate,
    Decimal,
    Character,
    Binary,
    Date,
    Time,
    Timestamp,
    Nested,
}

fn family(t: &DataType) -> Family {
    match t.kind {
        TypeKind::Boolean => Family::Boolean,
        TypeKind::TinyInt | TypeKind::SmallInt | TypeKind::Int | TypeKind::BigInt => {
            Family::Integer
        }
        TypeKind::Float | TypeKind::Double => Family::Approximate,
        TypeKind::Decimal { .. } => Family::Decimal,
        TypeKind::Char(_) | TypeKind::VarChar(_) => Family::Character,
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => Family::Binary,
        TypeKind::Date => Family::Date,
        TypeKind::Time(_) => Family::Time,
        TypeKind::Timestamp(_) | TypeKind::LocalZonedTimestamp(_) => Family::Timestamp,
        _ => Family::Nested,
    }
}

/// `VarCharType.STRING_TYPE` (nullable VARCHAR(2147483647)): the only target of `DateToStringCastRule`,
/// `TimeToStringCastRule` and `TimestampToStringCastRule` (rules are keyed by the exact type, nullability
/// included).
fn is_string_type(t: &DataType) -> bool {
    t.kind == TypeKind::VarChar(i32::MAX as u32) && t.nullable
}

/// Ok when a column written as `from` can be read as `to`: same type up to nullability, or a pair for which
/// `CastExecutors.resolve` of Paimon 1.0 finds a rule (the module docs); the error is a reason.
pub(crate) fn check_castable(from: &DataType, to: &DataType) -> Result<(), CastError> {
    use Family::*;
    if from.kind == to.kind {
        return Ok(());
    }
    let ok = match (family(from), family(to)) {
        (Boolean, Integer | Approximate | Decimal | Character) => true,
        (Integer, Boolean | Integer | Approximate | Decimal | Character) => true,
        // NumericPrimitiveToTimestamp: INT and BIGINT only.
        (Integer, Timestamp) => matches!(from.kind, TypeKind::Int | TypeKind::BigInt),
        (Approximate | Decimal, Integer | Approximate | Decimal | Character) => true,
        (Character, Nested) => false,
        (Character, _) => true,
        (Binary, Binary | Character) => true,
        (Date | Time, Timestamp) => true,
        (Date | Time | Timestamp, Character) => is_string_type(to),
        (Timestamp, Timestamp | Date | Time) => true,
        // TimestampToNumericPrimitiveCastRule: INT and BIGINT only.
        (Timestamp, Integer) => matches!(to.kind, TypeKind::Int | TypeKind::BigInt),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(CastError::NoRule {
            from: from.kind.clone(),
            to: to.kind.clone(),
        })
    }
}

/// Casts `array` (of `arrow_type_as(from, views)`) to `field_arrow_type(to, field_id, views)` by Paimon's
/// rules, with the line-specific ones taken from `rules` (the release line under test); `views`: the table's
/// top-level strings and binaries are views ([`crate::Table::string_views`]). The error is a reason (a value
/// the Java cast would throw on, or an unsupported change).
pub(crate) fn cast(
    array: &ArrayRef,
    from: &DataType,
    to: &DataType,
    field_id: i32,
    views: bool,
    rules: &LineRules,
) -> Result<ArrayRef, CastError> {
    if from.kind == to.kind {
        return Ok(array.clone());
    }
    check_castable(from, to)?;
    let mut values = Vec::with_capacity(array.len());
    for i in 0..array.len() {
        values.push(if array.is_null(i) {
            Datum::Null
        } else {
            cast_value(read(array, i, from)?, from, to, rules)?
        });
    }
    build(values, to, &field_arrow_type(to, field_id, views))
}

/// One value of `from` cast to `to` as [`cast`] casts a column's values (`CastFieldGetter`, also applied to
/// stats by `SimpleStatsEvolution`); NULL stays NULL.
pub(crate) fn cast_datum(
    v: Datum,
    from: &DataType,
    to: &DataType,
    rules: &LineRules,
) -> Result<Datum, CastError> {
    if from.kind == to.kind || v.is_null() {
        return Ok(v);
    }
    check_castable(from, to)?;
    cast_value(v, from, to, rules)
}

/// One non-null value of `from` cast to `to`. DATE and TIME values are [`Datum::Int`] like the integers: their
/// rules come first, chosen by the file type.
fn cast_value(
    v: Datum,
    from: &DataType,
    to: &DataType,
    rules: &LineRules,
) -> Result<Datum, CastError> {
    use Datum as D;
    use TypeKind as K;
    let decimal = |x: Option<i128>, precision: u8, scale: i8| {
        x.map(|unscaled| D::Decimal {
            unscaled,
            precision,
            scale,
        })
    };
    // DATE, TIME and the Java `int` results.
    let int32 = |x: i32| D::Int(i64::from(x));
    Ok(match (v, &to.kind) {
        // DATE (days) and TIME (milliseconds of the day).
        // DateToStringCastRule: DateTimeUtils.formatDate.
        (D::Int(d), K::VarChar(_)) if from.kind == K::Date => D::String(format_date(d as i32)),
        // TimeToStringCastRule: DateTimeUtils.formatTimestampMillis with the file type's precision.
        (D::Int(t), K::VarChar(_)) if matches!(from.kind, K::Time(_)) => {
            D::String(format_time(t as i32, precision_of(&from.kind)))
        }
        (D::Int(d), K::Timestamp(_) | K::LocalZonedTimestamp(_)) if from.kind == K::Date => {
            timestamp(d * MILLIS_PER_DAY, 0)
        }
        // TimeToTimestampCastRule: the time of day on 1970-01-01, precision unchanged.
        (D::Int(t), K::Timestamp(_) | K::LocalZonedTimestamp(_))
            if matches!(from.kind, K::Time(_)) =>
        {
            timestamp(t, 0)
        }
        // Numeric primitives.
        (D::Int(x), K::TinyInt | K::SmallInt | K::Int | K::BigInt) => D::Int(narrow(x, &to.kind)),
        (D::Int(x), K::Float) => D::Float(x as f32),
        (D::Int(x), K::Double) => D::Double(x as f64),
        (D::Float(f), K::TinyInt | K::SmallInt | K::Int | K::BigInt) => {
            D::Int(float_to_integer(f64::from(f), &to.kind))
        }
        (D::Double(d), K::TinyInt | K::SmallInt | K::Int | K::BigInt) => {
            D::Int(float_to_integer(d, &to.kind))
        }
        (D::Float(f), K::Double) => D::Double(f64::from(f)),
        (D::Double(d), K::Float) => D::Float(d as f32),
        (D::Float(f), K::Float) => D::Float(f),
        (D::Double(d), K::Double) => D::Double(d),
        // Decimals.
        (D::Int(x), K::Decimal { precision, scale }) => {
            match decimal(
                rescale_half_up(i128::from(x), 0, *precision, i32::from(*scale)),
                *precision,
                *scale,
            ) {
                Some(v) => v,
                None => return Err(decimal_overflow(x.to_string(), &to.kind)),
            }
        }
        // NumericPrimitiveToDecimalCastRule: `DecimalUtils.castFrom(double)`, i.e. `BigDecimal.valueOf`
        // (the `Double.toString` digits; a float is widened to double first); NaN and infinities throw.
        (v @ (D::Float(_) | D::Double(_)), K::Decimal { precision, scale }) => {
            let d = match v {
                D::Float(f) => f64::from(f),
                D::Double(d) => d,
                _ => 0.0,
            };
            let text = java_double_to_string(d);
            let parsed = parse_big_decimal(&text)
                .ok_or_else(|| CastError::Value(format!("cannot cast {text} to {:?}", to.kind)))?;
            match decimal(parsed.to_unscaled(*precision, *scale), *precision, *scale) {
                Some(v) => v,
                None => return Err(decimal_overflow(text.clone(), &to.kind)),
            }
        }
        (
            D::Decimal {
                unscaled: x,
                scale: s,
                ..
            },
            K::Decimal { precision, scale },
        ) => match decimal(
            rescale_half_up(x, i32::from(s), *precision, i32::from(*scale)),
            *precision,
            *scale,
        ) {
            Some(v) => v,
            None => return Err(decimal_overflow(decimal_to_plain_string(x, s), &to.kind)),
        },
        (
            D::Decimal {
                unscaled: x,
                scale: s,
                ..
            },
            K::TinyInt | K::SmallInt | K::Int | K::BigInt,
        ) => {
            let whole = x / 10i128.pow(s.max(0) as u32);
            // BigDecimal.longValue keeps the low 64 bits, then the Java narrowing cast.
            D::Int(narrow(whole as i64, &to.kind))
        }
        (
            D::Decimal {
                unscaled: x,
                scale: s,
                ..
            },
            K::Double,
        ) => D::Double(decimal_to_f64(x, s)),
        (
            D::Decimal {
                unscaled: x,
                scale: s,
                ..
            },
            K::Float,
        ) => D::Float(decimal_to_f64(x, s) as f32),
        // Booleans (BooleanToNumericCastRule: 1 or 0; DECIMAL through DecimalUtils.castFrom).
        (D::Boolean(b), K::TinyInt | K::SmallInt | K::Int | K::BigInt) => D::Int(i64::from(b)),
        (D::Boolean(b), K::Float) => D::Float(if b { 1.0 } else { 0.0 }),
        (D::Boolean(b), K::Double) => D::Double(if b { 1.0 } else { 0.0 }),
        (D::Boolean(b), K::Decimal { precision, scale }) => {
            match decimal(
                rescale_half_up(i128::from(b), 0, *precision, i32::from(*scale)),
                *precision,
                *scale,
            ) {
                Some(v) => v,
                None => return Err(decimal_overflow(b.to_string(), &to.kind)),
            }
        }
        (D::Int(x), K::Boolean) => D::Boolean(x != 0),
        // To strings.
        (D::Int(x), K::Char(_) | K::VarChar(_)) => D::String(to_character(x.to_string(), &to.kind)),
        (D::Float(f), K::Char(_) | K::VarChar(_)) => {
            D::String(to_character(java_float_to_string(f), &to.kind))
        }
        (D::Double(d), K::Char(_) | K::VarChar(_)) => {
            D::String(to_character(java_double_to_string(d), &to.kind))
        }
        (
            D::Decimal {
                unscaled: x,
                scale: s,
                ..
            },
            K::Char(_) | K::VarChar(_),
        ) => D::String(to_character(decimal_to_plain_string(x, s), &to.kind)),
        (D::Boolean(b), K::Char(_) | K::VarChar(_)) => {
            D::String(to_character(b.to_string(), &to.kind))
        }
        // TimestampToStringCastRule: DateTimeUtils.formatTimestamp (the JVM zone is UTC).
        (
            D::Timestamp {
                millis,
                nanos_of_milli,
            },
            K::VarChar(_),
        ) => D::String(format_timestamp(
            millis,
            i64::from(nanos_of_milli),
            precision_of(&from.kind),
        )),
        // BinaryToStringCastRule: BinaryString.fromBytes, neither cut nor padded to the target length.
        (D::Bytes(b), K::Char(_) | K::VarChar(_)) => {
            D::String(String::from_utf8_lossy(&b).into_owned())
        }
        (D::String(s), K::Char(_) | K::VarChar(_)) => D::String(to_character(s, &to.kind)),
        // From strings.
        (D::String(s), K::TinyInt | K::SmallInt | K::Int | K::BigInt) => {
            let parsed = parse_integral(&s).ok_or_else(|| {
                CastError::Value(format!("cannot cast string {s:?} to {:?}", to.kind))
            })?;
            if narrow(parsed, &to.kind) != parsed {
                return Err(CastError::Value(format!(
                    "string {s:?} is out of range of {:?}",
                    to.kind
                )));
            }
            D::Int(parsed)
        }
        (D::String(s), K::Float) => D::Float(
            parse_java_float(&s, true)
                .ok_or_else(|| CastError::Value(format!("cannot cast string {s:?} to FLOAT")))?
                as f32,
        ),
        (D::String(s), K::Double) => D::Double(
            parse_java_float(&s, false)
                .ok_or_else(|| CastError::Value(format!("cannot cast string {s:?} to DOUBLE")))?,
        ),
        // StringToDecimalCastRule: `new BigDecimal(text)` (throws on bad text), then
        // `Decimal.fromBigDecimal` (HALF_UP to the scale, NULL beyond the precision).
        (D::String(s), K::Decimal { precision, scale }) => {
            let parsed = parse_big_decimal(&s).ok_or_else(|| {
                CastError::Value(format!("cannot cast string {s:?} to {:?}", to.kind))
            })?;
            match decimal(parsed.to_unscaled(*precision, *scale), *precision, *scale) {
                Some(v) => v,
                None => return Err(decimal_overflow(format!("{s:?}"), &to.kind)),
            }
        }
        (D::String(s), K::Boolean) => match s.to_lowercase().as_str() {
            "t" | "true" | "y" | "yes" | "1" => D::Boolean(true),
            "f" | "false" | "n" | "no" | "0" => D::Boolean(false),
            _ => {
                return Err(CastError::Value(format!(
                    "cannot cast string {s:?} to BOOLEAN"
                )))
            }
        },
        (D::String(s), K::Date) => int32(string_to_date(&s)?),
        (D::String(s), K::Time(_)) => int32(string_to_time(&s)?),
        (D::String(s), K::Timestamp(p)) => {
            let (m, n) = string_to_timestamp(&s, *p, true)?;
            timestamp(m, n)
        }
        (D::String(s), K::LocalZonedTimestamp(p)) => {
            let (m, n) = string_to_timestamp(&s, *p, false)?;
            timestamp(m, n)
        }
        // StringToBinaryCastRule: the UTF-8 bytes, then BinaryStringUtils.toBinaryString.
        (D::String(s), K::Binary(_) | K::VarBinary(_)) => {
            D::Bytes(to_binary(s.into_bytes(), &to.kind))
        }
        // Binary (BinaryToBinaryCastRule).
        (D::Bytes(b), K::Binary(_) | K::VarBinary(_)) => D::Bytes(to_binary(b, &to.kind)),
        // Timestamps.
        (
            D::Timestamp {
                millis,
                nanos_of_milli,
            },
            K::Timestamp(p) | K::LocalZonedTimestamp(p),
        ) => {
            let (m, n) = truncate(millis, i64::from(nanos_of_milli), *p);
            timestamp(m, n)
        }
        // TimestampToDateCastRule: `(int) (millis / MILLIS_PER_DAY)` (toward zero) for TIMESTAMP, the
        // local date (floor) for TIMESTAMP WITH LOCAL TIME ZONE.
        (D::Timestamp { millis: m, .. }, K::Date) => int32(match from.kind {
            K::LocalZonedTimestamp(_) => m.div_euclid(MILLIS_PER_DAY) as i32,
            _ => (m / MILLIS_PER_DAY) as i32,
        }),
        // TimestampToTimeCastRule: for TIMESTAMP `(int) (millis % MILLIS_PER_DAY)` (negative before 1970) in
        // 1.0, `Math.floorMod` in 2.0 ([`TimestampToTime`]); the local time of day for TIMESTAMP WITH LOCAL
        // TIME ZONE.
        (D::Timestamp { millis: m, .. }, K::Time(_)) => int32(match from.kind {
            K::LocalZonedTimestamp(_) => m.rem_euclid(MILLIS_PER_DAY) as i32,
            _ => match rules.timestamp_to_time {
                TimestampToTime::Remainder => (m % MILLIS_PER_DAY) as i32,
                TimestampToTime::FloorMod => m.rem_euclid(MILLIS_PER_DAY) as i32,
            },
        }),
        // TimestampToNumericPrimitiveCastRule: DateTimeUtils.unixTimestamp (millis / 1000, toward zero).
        (D::Timestamp { millis: m, .. }, K::BigInt) => D::Int(m / 1000),
        (D::Timestamp { millis: m, .. }, K::Int) => D::Int(i64::from((m / 1000) as i32)),
        // NumericPrimitiveToTimestamp (INT, BIGINT): seconds since the epoch, `value * 1000` in long.
        (D::Int(x), K::Timestamp(_) | K::LocalZonedTimestamp(_)) => {
            timestamp(x.wrapping_mul(1000), 0)
        }
        (v, k) => return Err(CastError::Value(format!("cannot cast {v:?} to {k:?}"))),
    })
}
