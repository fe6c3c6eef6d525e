//! `csv` data files: a line to a row as paimon-format's `CsvParser.parse` does it (2.0.0).
//!
//! The line is cut into fields at the separator outside quotes, with `CsvParser`'s own quote and escape
//! rules (UTF-16 units, as Java indexes the line): an escape character keeps a following quote or escape,
//! a doubled quote inside a field is one quote, a quote in the middle of an unquoted field (not among the
//! line's first three units, nor beside a separator) is kept, and a field left inside an open quote at the
//! line's end is NULL. Only the fields up to the last projected one are cut. A blank line is a row of NULLs.
//! A line holds no line break: a quoted value with one was cut into two lines by the line reader, as Java
//! cuts it.
//!
//! A field equal to the `null-literal` (default empty) is NULL. A field that does not parse
//! ([`super::values::parse_value`]) is handled by `csv.mode`: `permissive` (default) leaves it and every later
//! projected field NULL, `dropmalformed` drops the row, `failfast` fails the read.

use super::values::{java_is_whitespace, parse_value};
use super::CsvOptions;
use crate::line::LineRules;
use crate::schema::DataType;
use crate::value::Datum;

/// `csv.mode` (`CsvOptions.Mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// `permissive`: a malformed field and the projected fields after it are NULL.
    Permissive,
    /// `dropmalformed`: a row with a malformed field is dropped.
    DropMalformed,
    /// `failfast`: a malformed field fails the read.
    FailFast,
}

/// The outcome of one line.
#[derive(Debug, PartialEq)]
pub(super) enum Parsed {
    /// The projected values, in projection order.
    Row(Vec<Datum>),
    /// `dropmalformed` dropped the line.
    Dropped,
}

/// Cuts a line into the raw fields `0..count` (`None`: the field is absent or left in an open quote).
pub(super) fn split_fields(line: &str, count: usize, options: &CsvOptions) -> Vec<Option<String>> {
    let mut values: Vec<Option<String>> = vec![None; count];
    let units: Vec<u16> = line.encode_utf16().collect();
    let (sep, quote, escape) = (options.separator, options.quote, options.escape);
    let mut buffer: Vec<u16> = Vec::new();
    let (mut column, mut in_quotes, mut in_field) = (0usize, false, false);
    let mut pos = 0usize;
    let peek = |pos: usize| units.get(pos + 1).copied();
    while pos < units.len() && column < count {
        let c = units[pos];
        if c == escape {
            if in_quotes || in_field {
                let next = peek(pos);
                if next == Some(quote) || next == Some(escape) {
                    buffer.push(units[pos + 1]);
                    pos += 1;
                }
            }
        } else if c == quote {
            if (in_quotes || in_field) && peek(pos) == Some(quote) {
                buffer.push(units[pos + 1]);
                pos += 1;
            } else {
                if pos > 2
                    && units[pos - 1] != sep
                    && units.len() > pos + 1
                    && units[pos + 1] != sep
                {
                    if !buffer.is_empty() && buffer.iter().all(|u| java_is_whitespace(*u)) {
                        buffer.clear();
                    } else {
                        buffer.push(c);
                    }
                }
                in_quotes = !in_quotes;
            }
            in_field = !in_field;
        } else if c == sep && !in_quotes {
            values[column] = Some(String::from_utf16_lossy(&buffer));
            column += 1;
            buffer.clear();
            in_field = false;
        } else {
            buffer.push(c);
            in_field = true;
        }
        pos += 1;
    }
    if column < count && !in_quotes {
        values[column] = Some(String::from_utf16_lossy(&buffer));
    }
    values
}

/// Why a line is not read.
#[derive(Debug, PartialEq)]
pub(super) enum CsvError {
    /// The released reader fails on the line (`failfast`); the reason names the value.
    Value(String),
    /// The native reader does not read the line: a column of a type CSV does not hold, or a partition
    /// column whose field is absent or malformed (Java fills a partition column from the split's partition,
    /// the native reader from the file).
    Unsupported(String),
}

/// The row of `line`: `projection[i]` is the index in the file's columns (`types`) of projected column
/// `i`, and `partition[i]` says whether it is a partition column. Errors: [`CsvError`].
pub(super) fn parse_line(
    line: &str,
    projection: &[usize],
    partition: &[bool],
    types: &[DataType],
    options: &CsvOptions,
    rules: &LineRules,
) -> Result<Parsed, CsvError> {
    let mut row = vec![Datum::Null; projection.len()];
    if projection.is_empty() {
        return Ok(Parsed::Row(row));
    }
    let unread_partition = |from: usize| {
        match (from..projection.len()).find(|i| partition.get(*i).copied().unwrap_or(false)) {
            Some(_) => Err(CsvError::Unsupported(format!(
                "line {line:?} leaves a partition column's field unread (the released reader takes it from the partition)"
            ))),
            None => Ok(()),
        }
    };
    if line.encode_utf16().all(java_is_whitespace) {
        unread_partition(0)?;
        return Ok(Parsed::Row(row));
    }
    let count = projection.iter().max().map_or(0, |m| m + 1);
    let fields = split_fields(line, count, options);
    for (i, &ordinal) in projection.iter().enumerate() {
        let Some(text) = fields[ordinal].as_deref() else {
            unread_partition(i)?;
            continue;
        };
        if text == options.null_literal {
            continue;
        }
        let data_type = &types[ordinal];
        match parse_value(text, data_type, rules) {
            Ok(Some(v)) => row[i] = v,
            Ok(None) => {
                return Err(CsvError::Unsupported(format!(
                    "a csv file holds no {:?} column (CsvFileFormat refuses one)",
                    data_type.kind
                )))
            }
            Err(reason) => match options.mode {
                Mode::Permissive => {
                    unread_partition(i)?;
                    break;
                }
                Mode::DropMalformed => return Ok(Parsed::Dropped),
                Mode::FailFast => {
                    return Err(CsvError::Value(format!("csv.mode is failfast: {reason}")))
                }
            },
        }
    }
    Ok(Parsed::Row(row))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> CsvOptions {
        CsvOptions::from_options(&Default::default()).unwrap()
    }

    fn split(line: &str, count: usize) -> Vec<Option<String>> {
        split_fields(line, count, &options())
    }

    fn s(v: &str) -> Option<String> {
        Some(v.to_owned())
    }

    #[test]
    fn fields_are_cut_as_csv_parser_cuts_them() {
        assert_eq!(split("a,b,c", 3), [s("a"), s("b"), s("c")]);
        // The writer quotes a value holding the separator or a quote, escaping the quote with `\`.
        assert_eq!(
            split(r#"1,"x,y","say \"hi\"""#, 3),
            [s("1"), s("x,y"), s(r#"say "hi""#)]
        );
        assert_eq!(split(r#""a""b",c"#, 2), [s(r#"a"b"#), s("c")]);
        // An embedded quote past the third unit is kept; near the start it is dropped.
        assert_eq!(
            split(r#"abc,de"f"g,h"#, 3),
            [s("abc"), s(r#"de"f"g"#), s("h")]
        );
        // A field left in an open quote at the line's end is NULL.
        assert_eq!(split(r#"1,"open"#, 2), [s("1"), None]);
        // Fields past the last projected one are not cut; missing ones are NULL.
        assert_eq!(split("a,b,c", 1), [s("a")]);
        assert_eq!(split("a", 3), [s("a"), None, None]);
        // The writer's empty string `""` reads as the empty text (NULL under the default null literal).
        assert_eq!(split(r#""",x"#, 2), [s(""), s("x")]);
    }

    #[test]
    fn modes_decide_a_malformed_field() {
        let rules = crate::PaimonRelease::V2_0_0.rules();
        let int = DataType {
            kind: crate::schema::TypeKind::Int,
            nullable: true,
        };
        let types = vec![int.clone(), int.clone(), int];
        let mut o = options();
        let none = [false; 3];
        assert_eq!(
            parse_line("1,x,3", &[0, 1, 2], &none, &types, &o, rules).unwrap(),
            Parsed::Row(vec![Datum::Int(1), Datum::Null, Datum::Null])
        );
        assert_eq!(
            parse_line("  ", &[0, 1], &none, &types, &o, rules).unwrap(),
            Parsed::Row(vec![Datum::Null, Datum::Null])
        );
        // A partition column left unread by the break is refused (Java takes it from the partition).
        assert!(matches!(
            parse_line(
                "1,x,3",
                &[0, 1, 2],
                &[false, false, true],
                &types,
                &o,
                rules
            ),
            Err(CsvError::Unsupported(_))
        ));
        assert!(matches!(
            parse_line("1", &[0, 2], &[false, true], &types, &o, rules),
            Err(CsvError::Unsupported(_))
        ));
        o.mode = Mode::DropMalformed;
        assert_eq!(
            parse_line("1,x,3", &[0, 1, 2], &none, &types, &o, rules).unwrap(),
            Parsed::Dropped
        );
        o.mode = Mode::FailFast;
        assert!(matches!(
            parse_line("1,x,3", &[2, 1], &none, &types, &o, rules),
            Err(CsvError::Value(_))
        ));
    }
}
