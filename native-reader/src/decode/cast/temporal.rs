//! DATE, TIME and TIMESTAMP rules: `DateTimeUtils.truncate`, the civil calendar, and
//! `DateTimeUtils.formatDate`/`formatTimestampMillis`/`formatTimestamp`.

use crate::binary_row::civil_from_days;
use crate::schema::TypeKind;

/// `DateTimeUtils.truncate(ts, precision)`, quirk included: the value is kept when the decimal digits of its
/// nano-of-second (without leading zeros) are no more than `precision`.
pub(super) fn truncate(millis: i64, nanos: i64, precision: u8) -> (i64, i64) {
    let nano_of_second = millis.rem_euclid(1000) * 1_000_000 + nanos;
    let digits = nano_of_second.to_string().len();
    if digits <= usize::from(precision) {
        return (millis, nanos);
    }
    if precision <= 3 {
        let ten = 10i64.pow(u32::from(3 - precision));
        ((millis / ten) * ten, 0)
    } else {
        let ten = 10i64.pow(u32::from(9 - precision));
        (millis, (nanos / ten) * ten)
    }
}

pub(super) const MILLIS_PER_DAY: i64 = 86_400_000;

/// The precision of TIME/TIMESTAMP types (`DataTypeChecks.getPrecision`).
pub(super) fn precision_of(t: &TypeKind) -> u8 {
    match t {
        TypeKind::Time(p) | TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => *p,
        _ => 0,
    }
}

pub(super) use crate::java::time::days_from_civil;

pub(super) fn is_leap_year(y: i64) -> bool {
    y % 400 == 0 || (y % 4 == 0 && y % 100 != 0)
}

pub(super) fn month_length(y: i64, m: u32) -> u32 {
    match m {
        2 if is_leap_year(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `DateTimeUtils.int4`/`int2`: digits by Java int arithmetic (`(char) ('0' + (i / 1000) % 10)`), quirks for
/// years outside 0..=9999 included.
pub(super) fn push_digits(out: &mut String, i: i32, width: u32) {
    for k in (0..width).rev() {
        let digit = (i / 10i32.pow(k)) % 10;
        out.push(char::from_u32((48 + digit) as u32).unwrap_or('?'));
    }
}

/// `DateTimeUtils.formatDate` (julian day arithmetic in Java ints, `int4` year).
pub(super) fn format_date(date: i32) -> String {
    let julian = date.wrapping_add(2_440_588);
    let j = julian.wrapping_add(32_044);
    let g = j / 146_097;
    let dg = j % 146_097;
    let c = (dg / 36_524 + 1) * 3 / 4;
    let dc = dg - c * 36_524;
    let b = dc / 1461;
    let db = dc % 1461;
    let a = (db / 365 + 1) * 3 / 4;
    let da = db - a * 365;
    let y = g * 400 + c * 100 + b * 4 + a;
    let m = (da * 5 + 308) / 153 - 2;
    let d = da - (m + 4) * 153 / 5 + 122;
    let year = y - 4800 + (m + 2) / 12;
    let month = (m + 2) % 12 + 1;
    let day = d + 1;
    let mut out = String::with_capacity(10);
    push_digits(&mut out, year, 4);
    out.push('-');
    push_digits(&mut out, month, 2);
    out.push('-');
    push_digits(&mut out, day, 2);
    out
}

/// `DateTimeUtils.formatTimestampMillis(time, precision)`: `HH:mm:ss`, then for a precision above 0 a `.` and
/// millisecond digits that stop after the last non-zero one (at least one digit).
pub(super) fn format_time(time: i32, precision: u8) -> String {
    let mut time = i64::from(time);
    while time < 0 {
        time += MILLIS_PER_DAY;
    }
    let time = time as i32;
    let (h, m, s, mut ms) = (
        time / 3_600_000,
        time % 3_600_000 / 60_000,
        time % 60_000 / 1000,
        time % 1000,
    );
    let mut out = String::with_capacity(12);
    push_digits(&mut out, h, 2);
    out.push(':');
    push_digits(&mut out, m, 2);
    out.push(':');
    push_digits(&mut out, s, 2);
    if precision > 0 {
        out.push('.');
        let mut p = precision;
        while p > 0 {
            out.push(char::from(b'0' + (ms / 100) as u8));
            ms = ms % 100 * 10;
            if ms == 0 {
                break;
            }
            p -= 1;
        }
    }
    out
}

/// `DateTimeUtils.formatTimestamp(ts, precision)`: `yyyy-MM-dd HH:mm:ss`, then the nine nano-of-second
/// digits with trailing zeros dropped down to `precision` digits.
pub(super) fn format_timestamp(millis: i64, nanos: i64, precision: u8) -> String {
    let days = millis.div_euclid(MILLIS_PER_DAY);
    let nano_of_day = millis.rem_euclid(MILLIS_PER_DAY) * 1_000_000 + nanos;
    let (y, mo, d) = civil_from_days(days);
    let secs = nano_of_day / 1_000_000_000;
    let mut out = String::with_capacity(29);
    push_digits(&mut out, y as i32, 4);
    out.push('-');
    push_digits(&mut out, mo as i32, 2);
    out.push('-');
    push_digits(&mut out, d as i32, 2);
    out.push(' ');
    push_digits(&mut out, (secs / 3600) as i32, 2);
    out.push(':');
    push_digits(&mut out, (secs / 60 % 60) as i32, 2);
    out.push(':');
    push_digits(&mut out, (secs % 60) as i32, 2);
    let mut fraction = format!("{:09}", nano_of_day % 1_000_000_000);
    while fraction.len() > usize::from(precision) && fraction.ends_with('0') {
        fraction.pop();
    }
    if !fraction.is_empty() {
        out.push('.');
        out.push_str(&fraction);
    }
    out
}
