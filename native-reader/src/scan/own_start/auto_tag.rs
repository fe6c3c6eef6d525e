//! A table's own `incremental-to-auto-tag=<tag>` (1.1.1 on; `IncrementalDiffStartingScanner#toEndAutoTag`): the
//! diff ([`super::diff`]) from the latest auto-created tag before `<tag>` to `<tag>`.
//!
//! A tag is auto-created when its name parses as a time in the table's tag period's format
//! (`TagPeriodHandler#isAutoTag`): `tag.creation-period-duration` set, `yyyyMMddHHmm`; else by
//! `tag.creation-period` (`daily` by default) and `tag.period-formatter` (`with_dashes` by default):
//! `daily` `yyyy-MM-dd` or `yyyyMMdd`, `hourly` `yyyy-MM-dd HH`, `yyyyMMdd HH` or `yyyyMMddHH`, `two-hours`
//! `yyyy-MM-dd HH` (the formatter option not read). From 1.3.1 the formats are strict (four-digit years,
//! real dates and hours); 1.1.1 and 1.2.0 parse leniently (a year of 1 to 10 digits with a sign, fields
//! rolled over), which this reader reproduces for names that are strictly valid and refuses by name for any
//! other name made of digits, signs, dashes and spaces.
//!
//! `<tag>` must be auto-created (the release's error otherwise); a missing `<tag>`, or no auto-created tag
//! before it, plans nothing. The start is the auto-created tag of the latest time before `<tag>`'s.

use crate::error::{Error, Result};
use crate::options::{InvalidOption, ValueError};
use crate::snapshot::Snapshot;
use crate::table::Table;

use super::Start;

/// `incremental-to-auto-tag` (`CoreOptions.INCREMENTAL_TO_AUTO_TAG`, 1.1.1 on).
pub(super) const INCREMENTAL_TO_AUTO_TAG: &str = "incremental-to-auto-tag";

/// A time a tag name stands for: (year, month, day, hour, minute), ordered as `LocalDateTime`.
type TagTime = (i32, u32, u32, u32, u32);

/// The plan of `table`'s own `incremental-to-auto-tag=end` (see the module doc).
///
/// Errors: [`Error::InvalidOption`] naming the schema directory for an unknown tag period or formatter, a
/// bad period duration, or an `end` that is not auto-created (the release's message); [`Error::Unsupported`]
/// for a tag name a lenient release may read otherwise (see the module doc); as [`super::diff::plan`].
pub(super) fn plan(table: &Table, end: &str) -> Result<Start> {
    super::refuse_other_branch(table, INCREMENTAL_TO_AUTO_TAG, end)?;
    let format = tag_format(table)?;
    let lenient = table.release() < crate::line::PaimonRelease::V1_3_1;
    let time_of = |name: &str| -> Result<Option<TagTime>> {
        match parse(format, name) {
            Some(time) => Ok(Some(time)),
            None if lenient && lenient_shaped(name) => Err(Error::Unsupported {
                path: super::tag_path(table, name),
                reason: format!(
                    "tag `{name}` as Paimon {} reads it for {INCREMENTAL_TO_AUTO_TAG}: its lenient \
                     TagPeriodHandler formatter may read a time from it that no strict format gives",
                    table.release()
                ),
            }),
            None => Ok(None),
        }
    };
    let Some(end_time) = time_of(end)? else {
        return Err(InvalidOption::new(
            INCREMENTAL_TO_AUTO_TAG,
            ValueError::Refused(format!("Specified tag '{end}' is not an auto-created tag.")),
        )
        .at(table.path().join("schema")));
    };
    let end_path = super::tag_path(table, end);
    if !crate::fileio::exists(&end_path)? {
        return Ok(Start::Nothing);
    }
    let mut previous: Option<(TagTime, String)> = None;
    for name in super::tag_names(table)? {
        let Some(time) = time_of(&name)? else {
            continue;
        };
        if time < end_time && previous.as_ref().is_none_or(|(t, _)| time > *t) {
            previous = Some((time, name));
        }
    }
    let Some((_, start)) = previous else {
        return Ok(Start::Nothing);
    };
    let from = Snapshot::read(&super::tag_path(table, &start))?;
    let to = Snapshot::read(&end_path)?;
    super::diff::plan(table, &from, &to, true, (INCREMENTAL_TO_AUTO_TAG, end))
}

/// The format of auto-created tag names of `table` (`TagPeriodHandler#create`): `Y`, `M`, `D`, `H` and `m`
/// are the digits of the year, month, day, hour and minute, any other character a literal.
///
/// Errors: [`Error::InvalidOption`] naming the schema directory for an unknown `tag.creation-period` or
/// `tag.period-formatter` (where the period reads it), or a `tag.creation-period-duration` that is no
/// duration.
fn tag_format(table: &Table) -> Result<&'static str> {
    let schema = table.schema();
    let at = |e: InvalidOption| e.at(table.path().join("schema"));
    if let Some(duration) = schema.option("tag.creation-period-duration") {
        crate::options::parse_duration(duration)
            .map_err(|e| at(InvalidOption::new("tag.creation-period-duration", e)))?;
        return Ok("YYYYMMDDHHmm");
    }
    let enum_value = |key: &str, default: &str| -> String {
        schema
            .option(key)
            .unwrap_or(default)
            .trim()
            .to_ascii_lowercase()
    };
    let unknown =
        |key: &str, value: String| at(InvalidOption::new(key, ValueError::UnknownValue(value)));
    let formatter = || {
        let value = enum_value("tag.period-formatter", "with_dashes");
        match value.as_str() {
            "with_dashes" => Ok(0),
            "without_dashes" => Ok(1),
            "without_dashes_and_spaces" => Ok(2),
            _ => Err(unknown("tag.period-formatter", value)),
        }
    };
    let period = enum_value("tag.creation-period", "daily");
    Ok(match period.as_str() {
        "daily" => ["YYYY-MM-DD", "YYYYMMDD", "YYYYMMDD"][formatter()?],
        "hourly" => ["YYYY-MM-DD HH", "YYYYMMDD HH", "YYYYMMDDHH"][formatter()?],
        "two-hours" => "YYYY-MM-DD HH",
        _ => return Err(unknown("tag.creation-period", period)),
    })
}

/// `name` read strictly in `format` (see [`tag_format`]): every letter a digit, every other character itself,
/// the fields a real date and time; `None` otherwise.
fn parse(format: &str, name: &str) -> Option<TagTime> {
    if name.len() != format.len() {
        return None;
    }
    let mut fields = [0u32; 5];
    for (f, c) in format.chars().zip(name.chars()) {
        let slot = match f {
            'Y' => 0,
            'M' => 1,
            'D' => 2,
            'H' => 3,
            'm' => 4,
            literal if literal == c => continue,
            _ => return None,
        };
        fields[slot] = fields[slot] * 10 + c.to_digit(10)?;
    }
    let [year, month, day, hour, minute] = fields;
    let year = year as i32;
    let valid = (1..=12).contains(&month)
        && (1..=days_in_month(year, month)).contains(&day)
        && hour < 24
        && minute < 60;
    valid.then_some((year, month, day, hour, minute))
}

/// The days of `month` in the proleptic Gregorian `year`.
fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Whether a lenient formatter of 1.1.1 or 1.2.0 might read a time from `name`: nothing but digits, signs,
/// dashes and spaces, with a digit.
fn lenient_shaped(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | ' '))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_strictly_in_the_period_format() {
        assert_eq!(parse("YYYY-MM-DD", "2026-12-03"), Some((2026, 12, 3, 0, 0)));
        assert_eq!(
            parse("YYYYMMDD HH", "20261203 07"),
            Some((2026, 12, 3, 7, 0))
        );
        assert_eq!(
            parse("YYYYMMDDHHmm", "202612030745"),
            Some((2026, 12, 3, 7, 45))
        );
        assert_eq!(parse("YYYY-MM-DD", "2024-02-29"), Some((2024, 2, 29, 0, 0)));
        for bad in [
            "2026-02-29",
            "2026-13-01",
            "2026-1-01",
            "2026/12/03",
            "t1",
            "20261203",
            "",
        ] {
            assert_eq!(parse("YYYY-MM-DD", bad), None, "{bad}");
        }
        assert_eq!(parse("YYYY-MM-DD HH", "2026-12-03 24"), None);
        assert_eq!(parse("YYYYMMDDHHmm", "202612030760"), None);
    }

    #[test]
    fn lenient_shapes_are_digits_signs_dashes_and_spaces() {
        assert!(lenient_shaped("2026-1-1"));
        assert!(lenient_shaped("+2026-12-01"));
        assert!(!lenient_shaped("t1"));
        assert!(!lenient_shaped("--"));
        assert!(!lenient_shaped("2026-12-01x"));
    }
}
