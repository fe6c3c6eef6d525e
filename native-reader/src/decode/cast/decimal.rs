//! DECIMAL rules: HALF_UP rescaling with the precision check (`Decimal.fromBigDecimal`), `new
//! BigDecimal(String)` parsing, `BigDecimal.doubleValue()`, and the overflow error.

use crate::binary_row::decimal_to_plain_string;
use crate::schema::TypeKind;

/// Rescales an unscaled decimal HALF_UP; `None` when it does not fit `precision` digits.
pub(super) fn rescale(v: i128, from: i32, precision: u8, to: i32) -> Option<i128> {
    let diff = to - from;
    let v = if diff > 0 {
        v.checked_mul(10i128.checked_pow(diff as u32)?)?
    } else if diff < 0 {
        let d = 10i128.checked_pow((-diff) as u32)?;
        let (q, r) = (v / d, v % d);
        if r.unsigned_abs() * 2 >= d.unsigned_abs() {
            q + v.signum()
        } else {
            q
        }
    } else {
        v
    };
    let digits = v.unsigned_abs().checked_ilog10().map_or(1, |d| d + 1);
    (digits <= u32::from(precision)).then_some(v)
}

/// A value that does not fit the target DECIMAL: `Decimal.fromBigDecimal` gives NULL, but the released
/// reader's `CastedRow` still reports the field non-null (the file value's flag), so reading it fails there
/// (`NullPointerException` in paimon-arrow, and in any consumer of the row). The native read fails too.
pub(super) fn decimal_overflow(value: String, to: &TypeKind) -> String {
    format!(
        "{value} does not fit {to:?}: the cast gives NULL in a field the released reader reports \
         non-null (CastedRow), so Paimon 1.0 fails reading it (NullPointerException)"
    )
}

/// A `java.math.BigDecimal` parsed from text: `coefficient * 10^-scale`, the coefficient's decimal digits
/// without leading zeros (empty for zero).
#[derive(Debug, PartialEq)]
pub(super) struct BigDec {
    negative: bool,
    digits: Vec<u8>,
    scale: i64,
}

/// `new BigDecimal(String)`: `[+-]digits[.digits][e[+-]digits]` (at least one digit, no whitespace), the
/// scale within the int range; `None` where Java throws `NumberFormatException`.
pub(super) fn parse_big_decimal(s: &str) -> Option<BigDec> {
    let b = s.as_bytes();
    let mut i = 0;
    let negative = b.first() == Some(&b'-');
    if matches!(b.first(), Some(b'-' | b'+')) {
        i = 1;
    }
    let mut digits = Vec::new();
    let mut seen = false;
    let mut fraction = 0i64;
    let mut dot = false;
    while i < b.len() {
        match b[i] {
            c @ b'0'..=b'9' => {
                seen = true;
                if !(digits.is_empty() && c == b'0') {
                    digits.push(c - b'0');
                }
                if dot {
                    fraction += 1;
                }
            }
            b'.' if !dot => dot = true,
            _ => break,
        }
        i += 1;
    }
    if !seen {
        return None;
    }
    let mut exponent = 0i64;
    if i < b.len() {
        if !matches!(b[i], b'e' | b'E') {
            return None;
        }
        let rest = &s[i + 1..];
        let body = rest.strip_prefix(['+', '-']).unwrap_or(rest);
        if body.is_empty() || !body.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let magnitude: i64 = body
            .parse()
            .ok()
            .filter(|e| *e <= i64::from(i32::MAX) + 1)?;
        exponent = if rest.starts_with('-') {
            -magnitude
        } else {
            magnitude
        };
    }
    let scale = fraction - exponent;
    if scale < i64::from(i32::MIN) || scale > i64::from(i32::MAX) {
        return None;
    }
    Some(BigDec {
        negative,
        digits,
        scale,
    })
}

impl BigDec {
    /// `Decimal.fromBigDecimal(bd, precision, scale)`: `setScale(scale, HALF_UP)`, `None` (Java's null)
    /// when the result has more than `precision` digits; the unscaled value otherwise.
    pub(super) fn to_unscaled(&self, precision: u8, scale: i8) -> Option<i128> {
        let shift = i64::from(scale) - self.scale;
        let mut digits = self.digits.clone();
        if shift >= 0 {
            if !digits.is_empty() {
                if digits.len() as i64 + shift > i64::from(precision) {
                    return None;
                }
                digits.extend(std::iter::repeat_n(0, shift as usize));
            }
        } else {
            let drop = (-shift) as u64;
            let round_up;
            if drop > digits.len() as u64 {
                round_up = false;
                digits.clear();
            } else {
                let keep = digits.len() - drop as usize;
                round_up = digits[keep] >= 5;
                digits.truncate(keep);
            }
            if round_up {
                let mut k = digits.len();
                loop {
                    if k == 0 {
                        digits.insert(0, 1);
                        break;
                    }
                    k -= 1;
                    if digits[k] == 9 {
                        digits[k] = 0;
                    } else {
                        digits[k] += 1;
                        break;
                    }
                }
            }
        }
        if digits.len() > usize::from(precision) {
            return None;
        }
        let magnitude = digits.iter().fold(0i128, |v, d| v * 10 + i128::from(*d));
        Some(if self.negative { -magnitude } else { magnitude })
    }
}

/// `BigDecimal.doubleValue()` of `x * 10^-s` (correctly rounded via the decimal string).
pub(super) fn decimal_to_f64(x: i128, s: i32) -> f64 {
    decimal_to_plain_string(x, s as i8)
        .parse()
        .unwrap_or(f64::NAN)
}
