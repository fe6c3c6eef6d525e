//! `java.time` values as Paimon's JSON holds them and as Java prints them: a `LocalDateTime` and a
//! `Duration` read as Jackson's `JavaTimeModule` reads them (its default forms: a date-time as an array of
//! fields, a duration as decimal seconds), and `Duration.toString()`.

use super::big_decimal::parse_big_decimal;

const NANOS_PER_SECOND: i128 = 1_000_000_000;

/// Days since 1970-01-01 of a proleptic Gregorian date (`LocalDate.toEpochDay`).
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A `LocalDateTime` as Jackson's `LocalDateTimeDeserializer` reads it: an array `[year, month, day, hour,
/// minute]`, then the second and the nano-of-second when not zero (`LocalDateTimeSerializer` leaves them
/// out), or an ISO string `2026-12-05T23:34:31.573595425`. Returns its wall-clock fields as milliseconds
/// since 1970-01-01T00:00 and the nanoseconds within the millisecond (`Timestamp.fromLocalDateTime`), or
/// `None` for any other form or a field out of range.
pub(crate) fn local_date_time(value: &serde_json::Value) -> Option<(i64, i32)> {
    let fields: Vec<i64> = match value {
        serde_json::Value::Array(items) => items
            .iter()
            .map(serde_json::Value::as_i64)
            .collect::<Option<_>>()?,
        serde_json::Value::String(text) => iso_fields(text)?,
        _ => return None,
    };
    if !(5..=7).contains(&fields.len()) {
        return None;
    }
    let field = |i: usize| fields.get(i).copied().unwrap_or(0);
    let (month, day) = (u32::try_from(field(1)).ok()?, u32::try_from(field(2)).ok()?);
    let (hour, minute, second, nano) = (field(3), field(4), field(5), field(6));
    // `Year.MIN_VALUE..=Year.MAX_VALUE`: what a `LocalDateTime` can hold.
    if !(-999_999_999..=999_999_999).contains(&field(0))
        || !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || !(0..24).contains(&hour)
        || !(0..60).contains(&minute)
        || !(0..60).contains(&second)
        || !(0..1_000_000_000).contains(&nano)
    {
        return None;
    }
    // `Timestamp.fromLocalDateTime`: epoch day × millis per day + the millis of the day, in Java's
    // wrapping long arithmetic.
    let millis_of_day = (hour * 3600 + minute * 60 + second) * 1000 + nano / 1_000_000;
    let millis = days_from_civil(field(0), month, day)
        .wrapping_mul(86_400_000)
        .wrapping_add(millis_of_day);
    Some((millis, (nano % 1_000_000) as i32))
}

/// `yyyy-MM-ddTHH:mm[:ss[.fraction]]` as the fields of [`local_date_time`]'s array form.
fn iso_fields(text: &str) -> Option<Vec<i64>> {
    let (date, time) = text.split_once('T')?;
    let mut fields: Vec<i64> = date
        .splitn(3, '-')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let (hms, fraction) = time.split_once('.').unwrap_or((time, ""));
    for part in hms.split(':') {
        fields.push(part.parse().ok()?);
    }
    if !fraction.is_empty() {
        if fraction.len() > 9 || !fraction.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        fields.push(format!("{fraction:0<9}").parse().ok()?);
    }
    Some(fields)
}

/// A `Duration` as Jackson's `DurationDeserializer` reads a JSON number (decimal seconds, what
/// `DurationSerializer` writes: `5415.250000000`, `1.00E-7`), normalized as `Duration.ofSeconds(seconds,
/// nanoAdjustment)`: whole seconds (rounded down) and nanoseconds in `0..1_000_000_000`. Digits past the
/// ninth decimal (which Jackson never writes) are rounded half up here, where Jackson truncates. `None` for text
/// that is not such a number or a value outside `Duration`'s range.
pub(crate) fn duration_from_seconds(text: &str) -> Option<(i64, u32)> {
    let nanos = parse_big_decimal(text.trim())?.to_unscaled(38, 9)?;
    let seconds = i64::try_from(nanos.div_euclid(NANOS_PER_SECOND)).ok()?;
    Some((seconds, nanos.rem_euclid(NANOS_PER_SECOND) as u32))
}

/// `Duration.toString()` of `seconds` and `nanos` (as [`duration_from_seconds`] returns them): ISO-8601
/// with hours, minutes and seconds only (`PT24H`, `PT1H30M15.25S`, `PT0.000001S`, `PT0S`, `PT-0.5S`).
pub(crate) fn duration_to_string(seconds: i64, nanos: u32) -> String {
    if seconds == 0 && nanos == 0 {
        return "PT0S".into();
    }
    let effective = if seconds < 0 && nanos > 0 {
        seconds + 1
    } else {
        seconds
    };
    let (hours, minutes, secs) = (effective / 3600, (effective % 3600) / 60, effective % 60);
    let mut out = String::from("PT");
    if hours != 0 {
        out.push_str(&format!("{hours}H"));
    }
    if minutes != 0 {
        out.push_str(&format!("{minutes}M"));
    }
    if secs == 0 && nanos == 0 && out.len() > 2 {
        return out;
    }
    if seconds < 0 && nanos > 0 && secs == 0 {
        out.push_str("-0");
    } else {
        out.push_str(&secs.to_string());
    }
    if nanos > 0 {
        let fraction = if seconds < 0 {
            2 * 1_000_000_000 - i64::from(nanos)
        } else {
            i64::from(nanos) + 1_000_000_000
        };
        // Java appends the 10-digit number and turns its leading `1` into the point.
        let digits = fraction.to_string();
        out.push('.');
        out.push_str(digits[1..].trim_end_matches('0'));
    }
    out.push('S');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What Java's `Duration.toString()` prints for each (`Duration.ofSeconds(s, n)` of the
    /// decimal seconds Jackson writes).
    #[test]
    fn durations_print_as_java_prints_them() {
        let cases = [
            ("86400.000000000", "PT24H"),
            ("5415.250000000", "PT1H30M15.25S"),
            ("0.000001000", "PT0.000001S"),
            ("1.00E-7", "PT0.0000001S"),
            ("0", "PT0S"),
            ("60", "PT1M"),
            ("3601", "PT1H1S"),
            ("-0.5", "PT-0.5S"),
            ("-90.25", "PT-1M-30.25S"),
        ];
        for (json, java) in cases {
            let (s, n) = duration_from_seconds(json).unwrap();
            assert_eq!(duration_to_string(s, n), java, "{json}");
        }
        assert_eq!(duration_from_seconds("x"), None);
    }

    #[test]
    fn local_date_times_in_both_of_jacksons_forms() {
        let array = serde_json::json!([2026, 12, 5, 23, 34, 31, 573_595_425]);
        let text = serde_json::json!("2026-12-05T23:34:31.573595425");
        let expected = Some((1_796_513_671_573, 595_425));
        assert_eq!(local_date_time(&array), expected);
        assert_eq!(local_date_time(&text), expected);
        // Second and nano left out when zero.
        assert_eq!(
            local_date_time(&serde_json::json!([1970, 1, 2, 0, 1])),
            Some((86_460_000, 0))
        );
        assert_eq!(
            local_date_time(&serde_json::json!([2026, 13, 1, 0, 0])),
            None
        );
        // Past `Year.MAX_VALUE` is no `LocalDateTime`; at it, Java's long arithmetic wraps (no panic).
        assert_eq!(
            local_date_time(&serde_json::json!([1_000_000_000, 1, 1, 0, 0])),
            None
        );
        assert!(local_date_time(&serde_json::json!([999_999_999, 12, 31, 23, 59])).is_some());
    }
}
