//! `java.math.BigDecimal` as Paimon's `Decimal` uses it: rescaling `setScale(scale, RoundingMode.HALF_UP)`
//! with the precision check of `Decimal.fromBigDecimal`, and parsing `new BigDecimal(String)`.

/// `Decimal.fromBigDecimal(bd.setScale(to_scale, HALF_UP), precision, to_scale)` of the decimal
/// `unscaled * 10^-from_scale`: the unscaled value at `to_scale`, rounded half away from zero when digits
/// are dropped; `None` (Java's null) when the result has more than `precision` digits or does not fit 128
/// bits.
pub(crate) fn rescale_half_up(
    unscaled: i128,
    from_scale: i32,
    precision: u8,
    to_scale: i32,
) -> Option<i128> {
    let v = unscaled;
    let diff = to_scale - from_scale;
    let v = if diff > 0 {
        v.checked_mul(10i128.checked_pow(diff as u32)?)?
    } else if diff < 0 {
        let d = 10i128.checked_pow((-diff) as u32)?;
        let (q, r) = (v / d, v % d);
        // HALF_UP: round away from zero when the dropped part is at least half.
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

/// A `java.math.BigDecimal` parsed from text: `coefficient * 10^-scale`, the coefficient's decimal digits
/// without leading zeros (empty for zero).
#[derive(Debug, PartialEq)]
pub(crate) struct BigDec {
    negative: bool,
    digits: Vec<u8>,
    scale: i64,
}

/// `new BigDecimal(String)`: `[+-]digits[.digits][e[+-]digits]` (at least one digit, no whitespace), the
/// scale within the int range; `None` where Java throws `NumberFormatException`.
pub(crate) fn parse_big_decimal(s: &str) -> Option<BigDec> {
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
    pub(crate) fn to_unscaled(&self, precision: u8, scale: i8) -> Option<i128> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `new BigDecimal(text)` then `Decimal.fromBigDecimal` (StringToDecimalCastRule): HALF_UP on the first
    /// dropped digit, NULL past the precision, whitespace and a lone `.` throw.
    #[test]
    fn string_to_decimal_follows_big_decimal() {
        let dec = |s: &str, p, sc| parse_big_decimal(s).map(|b| b.to_unscaled(p, sc));
        assert_eq!(dec("12.345", 6, 2), Some(Some(1235)));
        assert_eq!(dec("-0.005", 6, 2), Some(Some(-1)));
        assert_eq!(dec("1E+2", 6, 2), Some(Some(10_000)));
        assert_eq!(dec("9999.995", 6, 2), Some(None));
        assert_eq!(dec("-999999999.5", 10, 0), Some(Some(-1_000_000_000)));
        assert_eq!(dec("1e-99999", 6, 2), Some(Some(0)));
        assert_eq!(dec(" 1", 6, 2), None);
        assert_eq!(dec(".", 6, 2), None);
        assert_eq!(dec("1e99999999999", 6, 2), None);
    }
}
