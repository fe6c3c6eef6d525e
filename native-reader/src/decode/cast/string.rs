//! Strings to other types and to strings, as `BinaryStringUtils` and `DateTimeUtils` (1.0) parse and cut
//! them: `toCharacterString`, `toLong`, `toDate`, `toTime`, `toTimestamp`, and Java's
//! `Float.parseFloat`/`Double.parseDouble`.

use super::temporal::{days_from_civil, month_length, MILLIS_PER_DAY};
use super::CastError;
use crate::schema::TypeKind;

/// `BinaryStringUtils.toCharacterString`: cut to the target length in characters, pad CHAR with spaces.
pub(super) fn to_character(s: String, t: &TypeKind) -> String {
    let (len, pad) = match t {
        TypeKind::Char(n) => (*n as usize, true),
        TypeKind::VarChar(n) => (*n as usize, false),
        _ => return s,
    };
    let chars = s.chars().count();
    if chars > len {
        s.chars().take(len).collect()
    } else if chars < len && pad {
        let mut out = s;
        out.extend(std::iter::repeat_n(' ', len - chars));
        out
    } else {
        s
    }
}

/// `BinaryStringUtils.toLong`: optional sign, decimal digits, optionally `.` and more digits (the fraction
/// is dropped); no whitespace; `None` for anything else or a value outside `i64`.
pub(super) fn parse_integral(s: &str) -> Option<i64> {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if s.is_empty() || body.is_empty() && s.len() == 1 {
        return None;
    }
    if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut v: i64 = 0;
    for b in int.bytes() {
        v = v.checked_mul(10)?.checked_sub(i64::from(b - b'0'))?;
    }
    if s.starts_with('-') {
        Some(v)
    } else {
        v.checked_neg()
    }
}

/// Java `String.trim()`: strips leading and trailing characters up to U+0020.
pub(super) fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// `StringUtils.isNumeric`: non-empty and only digits (ASCII here; other Unicode digits fail the Java
/// conversions that follow as well).
pub(super) fn is_numeric(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `Integer.parseInt` of text already known to be ASCII digits (`DateTimeUtils.isInteger`): overflow is the
/// only failure (a `NumberFormatException`).
pub(super) fn parse_java_int(s: &str, whole: &str) -> Result<i32, CastError> {
    s.parse::<i32>().map_err(|_| {
        CastError::Value(format!(
            "cannot parse {whole:?}: {s:?} is out of the INT range"
        ))
    })
}

/// `DateTimeUtils.isInteger`: non-empty, ASCII digits only.
pub(super) fn is_integer(s: &str) -> bool {
    is_numeric(s)
}

/// `BinaryStringUtils.toDate` (StringToDateCastRule): digits only are a day count (`toInt`), otherwise
/// `DateTimeUtils.parseDate`; a value Java cannot convert is an error, as the Java cast throws.
pub(super) fn string_to_date(s: &str) -> Result<i32, CastError> {
    if is_numeric(s) {
        return parse_java_int(s, s);
    }
    parse_date(s)?.ok_or_else(|| CastError::Value(format!("cannot cast string {s:?} to DATE")))
}

/// `DateTimeUtils.parseDate`: the text before the first space (if not at the start), `y`, `y-m` or `y-m-d`
/// with each part trimmed and made of ASCII digits, year 0..=9999 and a valid day; `Ok(None)` where Java
/// returns null.
pub(super) fn parse_date(s: &str) -> Result<Option<i32>, CastError> {
    let s = match s.find(' ') {
        Some(ws) if ws > 0 => &s[..ws],
        _ => s,
    };
    let part = |p: &str| -> Result<Option<i32>, CastError> {
        let p = java_trim(p);
        if !is_integer(p) {
            return Ok(None);
        }
        parse_java_int(p, s).map(Some)
    };
    let (y, m, d) = match s.find('-') {
        None => match part(s)? {
            Some(y) => (y, 1, 1),
            None => return Ok(None),
        },
        Some(h1) => {
            let Some(y) = part(&s[..h1])? else {
                return Ok(None);
            };
            match s[h1 + 1..].find('-').map(|i| i + h1 + 1) {
                None => match part(&s[h1 + 1..])? {
                    Some(m) => (y, m, 1),
                    None => return Ok(None),
                },
                Some(h2) => {
                    let Some(m) = part(&s[h1 + 1..h2])? else {
                        return Ok(None);
                    };
                    let Some(d) = part(&s[h2 + 1..])? else {
                        return Ok(None);
                    };
                    (y, m, d)
                }
            }
        }
    };
    // DateTimeUtils.isIllegalDate (true when legal).
    if !(0..=9999).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Ok(None);
    }
    if d > month_length(i64::from(y), m as u32) as i32 {
        return Ok(None);
    }
    Ok(Some(
        days_from_civil(i64::from(y), m as u32, d as u32) as i32
    ))
}

/// `BinaryStringUtils.toTime` (StringToTimeCastRule): digits only are milliseconds of the day (`toInt`, not
/// range-checked), otherwise `DateTimeUtils.parseTime`.
pub(super) fn string_to_time(s: &str) -> Result<i32, CastError> {
    if is_numeric(s) {
        return parse_java_int(s, s);
    }
    parse_time(s)?.ok_or_else(|| CastError::Value(format!("cannot cast string {s:?} to TIME")))
}

/// `DateTimeUtils.parseTime`: `h[:m[:s[.fff]]]` with an optional zone `[+-]hh[:mm]` that is subtracted from
/// (`-`) or added to (`+`) the hours and minutes; parts are trimmed, never range-checked; int arithmetic
/// wraps as in Java.
pub(super) fn parse_time(v: &str) -> Result<Option<i32>, CastError> {
    let int = |p: &str| -> Result<Option<i32>, CastError> {
        let p = java_trim(p);
        if !is_integer(p) {
            return Ok(None);
        }
        parse_java_int(p, v).map(Some)
    };
    macro_rules! int_or_null {
        ($p:expr) => {
            match int($p)? {
                Some(x) => x,
                None => return Ok(None),
            }
        };
    }
    let colon1 = v.find(':');
    let mut operator: i32 = -1;
    let mut end = v.len();
    let mut timezone = v.find('-');
    if timezone.is_none() {
        timezone = v.find('+');
        operator = 1;
    }
    let (tz_hour, tz_minute) = match timezone {
        None => (0, 0),
        Some(tz) => {
            end = tz;
            match v[tz..].find(':').map(|i| i + tz) {
                None => (int_or_null!(&v[tz + 1..]), 0),
                Some(colon3) => (
                    int_or_null!(&v[tz + 1..colon3]),
                    int_or_null!(&v[colon3 + 1..]),
                ),
            }
        }
    };
    // Java's substring(begin, end) throws when begin > end; such text is an error too.
    let sub = |a: usize, b: usize| -> Result<&str, CastError> {
        v.get(a..b)
            .filter(|_| a <= b)
            .ok_or_else(|| CastError::Value(format!("cannot cast string {v:?} to TIME")))
    };
    let (hour, minute, second, milli);
    match colon1 {
        None => {
            hour = int_or_null!(sub(0, end)?);
            (minute, second, milli) = (0, 0, 0);
        }
        Some(c1) => {
            hour = int_or_null!(sub(0, c1)?);
            match v[c1 + 1..].find(':').map(|i| i + c1 + 1) {
                None => {
                    minute = int_or_null!(sub(c1 + 1, end)?);
                    (second, milli) = (0, 0);
                }
                Some(c2) => {
                    minute = int_or_null!(sub(c1 + 1, c2)?);
                    match v[c2..].find('.').map(|i| i + c2) {
                        None => {
                            second = int_or_null!(sub(c2 + 1, end)?);
                            milli = 0;
                        }
                        Some(dot) => {
                            second = int_or_null!(sub(c2 + 1, dot)?);
                            milli = parse_fraction(java_trim(sub(dot + 1, end)?));
                        }
                    }
                }
            }
        }
    }
    let hour = hour.wrapping_add(operator.wrapping_mul(tz_hour));
    let minute = minute.wrapping_add(operator.wrapping_mul(tz_minute));
    Ok(Some(
        hour.wrapping_mul(3_600_000)
            .wrapping_add(minute.wrapping_mul(60_000))
            .wrapping_add(second.wrapping_mul(1000))
            .wrapping_add(milli),
    ))
}

/// `DateTimeUtils.parseFraction`: milliseconds from the first three characters (non-digits count as 0),
/// rounded up when the fourth character is `'5'` or above (any character, as Java compares chars).
pub(super) fn parse_fraction(v: &str) -> i32 {
    let chars: Vec<char> = v.chars().collect();
    let mut multiplier = 100;
    let mut r = 0;
    for (i, c) in chars.iter().enumerate() {
        let x = c.to_digit(10).filter(|_| c.is_ascii_digit()).unwrap_or(0) as i32;
        r += multiplier * x;
        if multiplier < 10 {
            if chars.get(i + 1).is_some_and(|n| *n >= '5') {
                r += 1;
            }
            break;
        }
        multiplier /= 10;
    }
    r
}

/// `BinaryStringUtils.toTimestamp` (StringToTimestampCastRule): for TIMESTAMP, digits only are an epoch
/// count in the unit of the precision (0, 3, 6 or 9; other precisions throw); otherwise
/// `DateTimeUtils.parseTimestampData`. TIMESTAMP WITH LOCAL TIME ZONE always parses the text (the JVM
/// zone is UTC). Returns (millisecond, nanoOfMillisecond).
pub(super) fn string_to_timestamp(
    s: &str,
    precision: u8,
    numeric: bool,
) -> Result<(i64, i64), CastError> {
    if numeric && is_numeric(s) {
        let epoch = parse_integral(s).ok_or_else(|| {
            CastError::Value(format!(
                "cannot cast string {s:?} to TIMESTAMP: out of range"
            ))
        })?;
        return match precision {
            0 => Ok((epoch.wrapping_mul(1000), 0)),
            3 => Ok((epoch, 0)),
            6 => Ok((epoch / 1000, (epoch % 1000) * 1000)),
            9 => Ok((epoch / 1_000_000, epoch % 1_000_000)),
            p => Err(CastError::Value(format!(
                "cannot cast string {s:?} to TIMESTAMP({p}): a number is only read at precision 0, 3, 6 or 9"
            ))),
        };
    }
    parse_timestamp_text(s, precision).ok_or_else(|| {
        CastError::Value(format!(
            "cannot cast string {s:?} to TIMESTAMP({precision})"
        ))
    })
}

/// Cursor over ASCII text for [`parse_timestamp_text`].
pub(super) struct Cursor<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn digits_at(&self, from: usize) -> usize {
        self.b[from..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    }

    fn literal(&mut self, c: u8) -> Option<()> {
        (self.b.get(self.pos) == Some(&c)).then(|| self.pos += 1)
    }

    /// An optional `appendValue(field, 2)` section: exactly two digits.
    fn fixed2(&mut self) -> Option<i64> {
        if self.digits_at(self.pos) >= 2 {
            let v =
                i64::from(self.b[self.pos] - b'0') * 10 + i64::from(self.b[self.pos + 1] - b'0');
            self.pos += 2;
            Some(v)
        } else {
            None
        }
    }

    /// An optional `appendValue(field)` section: 1..19 digits, SignStyle.NORMAL (a `-` is taken, a `+` is
    /// not); `None` when it does not parse.
    fn variable(&mut self) -> Option<i64> {
        let negative = self.b.get(self.pos) == Some(&b'-');
        let start = self.pos + usize::from(negative);
        let n = self.digits_at(start).min(19);
        if n == 0 {
            return None;
        }
        let v = std::str::from_utf8(&self.b[start..start + n])
            .ok()?
            .parse::<i64>()
            .ok()?;
        self.pos = start + n;
        Some(if negative { -v } else { v })
    }

    /// `[XX][X]`: two optional sections of one field. A second value that differs from the first fails its
    /// section (`DateTimeParseContext.setParsedField`), which is then undone; out-of-range values fail
    /// later, at resolution.
    fn field(&mut self) -> Option<i64> {
        let a = self.fixed2();
        let save = self.pos;
        match self.variable() {
            Some(b) if a.is_some_and(|a| a != b) => {
                self.pos = save;
                a
            }
            Some(b) => Some(b),
            None => a,
        }
    }
}

/// `DateTimeUtils.parseTimestampData`: Java's `DEFAULT_TIMESTAMP_FORMATTER`
/// (`yyyy-[MM][M]-[dd][d]` then optionally ` [HH][H]:[mm][m]:[ss][s]` and a fraction of 0 to 9 digits after
/// an optional `.`), parsed strictly and resolved SMART (a day past the month's end is clamped to it, a
/// `24:00:00` is the next midnight), missing fields defaulted as `fromTemporalAccessor` does, the nanos
/// floored to `precision`. `None` where Java throws.
pub(super) fn parse_timestamp_text(s: &str, precision: u8) -> Option<(i64, i64)> {
    let mut c = Cursor {
        b: s.as_bytes(),
        pos: 0,
    };
    // yyyy: YEAR_OF_ERA, 4 to 19 digits, SignStyle.EXCEEDS_PAD (a '+' exactly when more than 4 digits).
    let plus = c.b.first() == Some(&b'+');
    let start = usize::from(plus);
    let n = c.digits_at(start).min(19);
    if n < 4 || (n > 4) != plus {
        return None;
    }
    let year: i64 = s.get(start..start + n)?.parse().ok()?;
    c.pos = start + n;
    if !(1..=999_999_999).contains(&year) {
        return None;
    }
    c.literal(b'-')?;
    let month = c.field();
    c.literal(b'-')?;
    let day = c.field();
    let (mut hour, mut minute, mut second, mut nano) = (None, None, None, None);
    if c.pos < c.b.len() {
        // The optional time section: all of it or nothing (and then the text is not fully parsed).
        c.literal(b' ')?;
        hour = c.field();
        c.literal(b':')?;
        minute = c.field();
        c.literal(b':')?;
        second = c.field();
        if c.literal(b'.').is_some() {
            let n = c.digits_at(c.pos).min(9);
            if n > 0 {
                let digits = &s[c.pos..c.pos + n];
                nano = Some(digits.parse::<i64>().ok()? * 10i64.pow(9 - n as u32));
            } else {
                nano = Some(0);
            }
            c.pos += n;
        }
        if c.pos != c.b.len() {
            return None;
        }
    }
    // Resolution (ResolverStyle.SMART).
    let mut month_value = 1u32;
    let mut day_value = 1u32;
    if let Some(m) = month {
        if !(1..=12).contains(&m) {
            return None;
        }
        month_value = m as u32;
    }
    if let Some(d) = day {
        if !(1..=31).contains(&d) {
            return None;
        }
        day_value = d as u32;
        if month.is_some() {
            day_value = day_value.min(month_length(year, month_value));
        }
    }
    if day_value > month_length(year, month_value) {
        return None;
    }
    let (h, mi, sec, ns) = (
        hour.unwrap_or(0),
        minute.unwrap_or(0),
        second.unwrap_or(0),
        nano.unwrap_or(0),
    );
    let mut extra_day = 0;
    let h = if h == 24 && mi == 0 && sec == 0 && ns == 0 && hour.is_some() {
        extra_day = 1;
        0
    } else {
        h
    };
    if !(0..=23).contains(&h) || !(0..=59).contains(&mi) || !(0..=59).contains(&sec) {
        return None;
    }
    let ns = match precision {
        0 => 0,
        9 => ns,
        p => {
            let unit = 10i64.pow(9 - u32::from(p));
            ns - ns % unit
        }
    };
    let days = days_from_civil(year, month_value, day_value) + extra_day;
    let nano_of_day = ((h * 60 + mi) * 60 + sec) * 1_000_000_000 + ns;
    Some((
        days.wrapping_mul(MILLIS_PER_DAY)
            .wrapping_add(nano_of_day / 1_000_000),
        nano_of_day % 1_000_000,
    ))
}

/// Java `Double.parseDouble` / `Float.parseFloat` (`FloatingDecimal.readJavaFormatString`): trimmed text,
/// optional sign, then `NaN`, `Infinity`, a decimal `digits[.digits][e[+-]digits]` or a hexadecimal
/// `0x hex[.hex] p[+-]digits`, optionally followed by one of `fFdD`; correctly rounded to `f32` when
/// `single` (returned widened). `None` where Java throws.
pub(super) fn parse_java_float(s: &str, single: bool) -> Option<f64> {
    let t = java_trim(s);
    let (negative, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let sign = |v: f64| if negative { -v } else { v };
    match body {
        "NaN" => return Some(f64::NAN),
        "Infinity" => return Some(sign(f64::INFINITY)),
        _ => {}
    }
    let body = body.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(body);
    if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        return parse_hex_float(hex, single).map(sign);
    }
    let b = body.as_bytes();
    let mut i = 0;
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_part = &body[int_start..i];
    let mut frac_part = "";
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let f = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        frac_part = &body[f..i];
    }
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let mut exp_part = "0";
    if i < b.len() {
        if !matches!(b[i], b'e' | b'E') {
            return None;
        }
        let rest = &body[i + 1..];
        let digits = rest.strip_prefix(['+', '-']).unwrap_or(rest);
        if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        exp_part = rest;
    }
    let normalized = format!(
        "{}{}.{}e{}",
        if negative { "-" } else { "" },
        if int_part.is_empty() { "0" } else { int_part },
        if frac_part.is_empty() { "0" } else { frac_part },
        exp_part
    );
    if single {
        normalized.parse::<f32>().ok().map(f64::from)
    } else {
        normalized.parse::<f64>().ok()
    }
}

/// The hexadecimal form of [`parse_java_float`] after `0x`: `hex[.hex]p[+-]digits` (the binary exponent is
/// required).
pub(super) fn parse_hex_float(s: &str, single: bool) -> Option<f64> {
    let (mantissa, exp) = s.split_once(['p', 'P'])?;
    let exp_digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
    if exp_digits.is_empty() || !exp_digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let exp: i64 = exp
        .parse::<i64>()
        .unwrap_or(if exp.starts_with('-') {
            -1_000_000
        } else {
            1_000_000
        })
        .clamp(-1_000_000, 1_000_000);
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if (int.is_empty() && frac.is_empty())
        || !int
            .bytes()
            .chain(frac.bytes())
            .all(|c| c.is_ascii_hexdigit())
    {
        return None;
    }
    // Up to 30 significant hex digits exactly; a sticky bit for the rest.
    let mut value: u128 = 0;
    let mut shift: i64 = 0;
    let mut sticky = false;
    let mut significant = 0;
    for (k, c) in int.bytes().chain(frac.bytes()).enumerate() {
        let d = (c as char).to_digit(16)? as u128;
        let in_fraction = k >= int.len();
        if value == 0 && d == 0 {
            if in_fraction {
                shift -= 4;
            }
            continue;
        }
        if significant < 30 {
            value = value << 4 | d;
            significant += 1;
            if in_fraction {
                shift -= 4;
            }
        } else {
            sticky |= d != 0;
            if !in_fraction {
                shift += 4;
            }
        }
    }
    if value == 0 {
        return Some(0.0);
    }
    if sticky {
        value = value << 1 | 1;
        shift -= 1;
    }
    let e = exp + shift;
    if single {
        let v = scale2(value as f64, e);
        Some(f64::from(v as f32))
    } else {
        let lead = 127 - value.leading_zeros() as i64;
        // Keep 54 bits and a sticky bit so the final rounding to 53 bits is correct.
        let (m, e) = if lead > 62 {
            let drop = lead - 62;
            let rest = value & ((1u128 << drop) - 1);
            ((value >> drop) as u64 | u64::from(rest != 0), e + drop)
        } else {
            (value as u64, e)
        };
        Some(scale2(m as f64, e))
    }
}

/// `x * 2^e` without overflowing or underflowing the intermediate power.
pub(super) fn scale2(mut x: f64, e: i64) -> f64 {
    let mut e = e.clamp(-4000, 4000);
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
    }
    x * 2f64.powi(e as i32)
}
