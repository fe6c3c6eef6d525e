//! Text data files: paimon-format's `csv`, `json` and `text` formats (`file.format=csv|json|text`, first
//! released in 1.3.0 (`csv`, `json`) and 1.4.1 (`text`); modelled as 2.0.0 and 1.4.2 read them).
//!
//! A file is one value per line ([`lines`]): `CsvFileReader` cuts a line into fields ([`csv`]),
//! `JsonFileReader` reads it as a JSON object ([`json`]), `TextFileReader` returns it whole as the one
//! STRING column. The bytes are decompressed by the file name's last extension, as Hadoop's
//! `CompressionCodecFactory` picks a codec (`HadoopCompressionUtils`): `.gz` (GzipCodec), `.deflate`
//! (DeflateCodec, a zlib stream) and `.bz2` (BZip2Codec, a bzip2 stream) are read; `.snappy`, `.lz4` and
//! `.zst` are refused by name (Hadoop's block framings, and codecs that the released writer cannot use
//! without Hadoop's native library). A `text`
//! file keeps its `.text` name whatever `file.compression` says (`DataFilePathFactory` adds the compression
//! extension to `csv` and `json` only), so, as in Java, it is read as it is.
//!
//! The options are the table's (`FileFormatDiscover` builds each format from the table's options), read with
//! Paimon's fallback keys: `csv.field-delimiter` (`field-delimiter`, `seq`; default `,`),
//! `csv.line-delimiter` (`lineSep`; `\n`), `csv.quote-character` (`quote`; `"`), `csv.escape-character`
//! (`escape`; `\`), `csv.include-header` (`header`; false), `csv.null-literal` (`nullvalue`; empty),
//! `csv.mode` (`mode`; permissive), `json.ignore-parse-errors` (false), `json.line-delimiter` (`\n`),
//! `text.line-delimiter` (`lineSep`; `\n`).
//!
//! Partition columns are not read from the file: they are filled from the split's partition, as
//! `FormatReaderMapping` fills them (`PartitionUtils.trimPartitionFields`), so a line that a CSV value's line
//! break cut short keeps its partition, and a `text` table may be partitioned. A primary-key table's file read
//! without merging (`RawFileSplitRead`, the batch of a table with deletion vectors) is read as Java reads it:
//! the table's columns are taken for the file's (a CSV field is then found at the table column's position,
//! not the key-value layout's), and every row is +I.
//!
//! The file is decompressed into memory whole and parsed a batch at a time: memory is bounded by one file
//! (Paimon's `target-file-size`), not by the table.

mod csv;
mod json;
mod lines;
mod values;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use arrow_array::ArrayRef;

use super::format::{FileColumn, FileFormat, RawBatches};
use super::mapped;
use crate::error::{Error, Result};
use crate::line::LineRules;
use crate::schema::TypeKind;
use crate::value::Datum;

use self::csv::Mode as CsvMode;

/// The `csv.*` options of a table (`CsvOptions`), as the parser uses them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CsvOptions {
    /// First UTF-16 unit of `csv.field-delimiter`.
    separator: u16,
    /// First UTF-16 unit of `csv.quote-character`.
    quote: u16,
    /// First UTF-16 unit of `csv.escape-character`.
    escape: u16,
    /// `csv.null-literal`.
    null_literal: String,
    /// `csv.include-header`: the first line of each file is skipped.
    include_header: bool,
    /// `csv.mode`.
    mode: CsvMode,
    /// `csv.line-delimiter`.
    line_delimiter: String,
}

/// Paimon's `Options.get` with fallback keys: the first key present.
fn get<'a>(options: &'a BTreeMap<String, String>, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| options.get(*k).map(String::as_str))
}

fn first_unit(value: &str, key: &str) -> std::result::Result<u16, String> {
    value
        .encode_utf16()
        .next()
        .ok_or_else(|| format!("`{key}` is empty (Java's `charAt(0)` throws)"))
}

impl CsvOptions {
    /// The options of a table's option map. Errors: a reason naming the option (an empty delimiter, quote or
    /// escape, an unknown mode, or the combinations `CsvParser` refuses).
    pub(crate) fn from_options(
        options: &BTreeMap<String, String>,
    ) -> std::result::Result<CsvOptions, String> {
        let separator = first_unit(
            get(options, &["csv.field-delimiter", "field-delimiter", "seq"]).unwrap_or(","),
            "csv.field-delimiter",
        )?;
        let quote = first_unit(
            get(options, &["csv.quote-character", "quote"]).unwrap_or("\""),
            "csv.quote-character",
        )?;
        let escape = first_unit(
            get(options, &["csv.escape-character", "escape"]).unwrap_or("\\"),
            "csv.escape-character",
        )?;
        let mode = match get(options, &["csv.mode", "mode"])
            .unwrap_or("permissive")
            .to_ascii_lowercase()
            .as_str()
        {
            "permissive" => CsvMode::Permissive,
            "dropmalformed" => CsvMode::DropMalformed,
            "failfast" => CsvMode::FailFast,
            other => return Err(format!("`csv.mode` = `{other}` is not a mode")),
        };
        let include_header = get(options, &["csv.include-header", "header"])
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
        if separator == 0 || separator == quote || separator == escape {
            return Err(
                "`csv.field-delimiter` is NUL or equals the quote or escape character".into(),
            );
        }
        if (quote != 0 || escape != 0) && quote == escape {
            return Err("`csv.quote-character` equals `csv.escape-character`".into());
        }
        Ok(CsvOptions {
            separator,
            quote,
            escape,
            null_literal: get(options, &["csv.null-literal", "nullvalue"])
                .unwrap_or("")
                .to_owned(),
            include_header,
            mode,
            line_delimiter: get(options, &["csv.line-delimiter", "lineSep"])
                .unwrap_or("\n")
                .to_owned(),
        })
    }
}

/// How one text file is read: the format, its options, and the release's rules for the values.
pub(crate) struct TextRead<'a> {
    /// `Csv`, `Json` or `Text`.
    pub(crate) format: FileFormat,
    /// The table's options.
    pub(crate) options: &'a BTreeMap<String, String>,
    /// The columns the file was written with, in order (`FormatReaderMapping`'s `allDataFieldsInFile`):
    /// a CSV field's position is its column's place here.
    pub(crate) file_columns: &'a [FileColumn],
    /// The release's rules (the casts of DATE, TIME, TIMESTAMP and DECIMAL text).
    pub(crate) rules: &'static LineRules,
    /// The table's partition keys (`partitionKeys`).
    pub(crate) partition_keys: &'a [String],
    /// The split's partition values, rendered ([`crate::split::Split::partition`]), one per partition key;
    /// `None` when the file is read outside any split (`decode::read_file`).
    pub(crate) partition_values: Option<&'a [Option<String>]>,
    /// Every row is +I: the requested `_VALUE_KIND` column is 0 and not read from the file
    /// (`RawFileSplitRead` of a primary-key table's file).
    pub(crate) raw_insert: bool,
}

/// The parser of one file's lines.
enum Parser {
    Csv {
        options: CsvOptions,
        projection: Vec<usize>,
        partition: Vec<bool>,
        types: Vec<crate::schema::DataType>,
    },
    Json {
        ignore_errors: bool,
    },
    Text,
}

impl TextRead<'_> {
    /// Opens `path` and parses `columns` in batches of at most `batch_size` rows ([`super::format::FormatReader`]'s
    /// contract). Errors: [`Error::Unsupported`] for a compression or an option combination not read here,
    /// [`Error::Decode`] for bytes that do not decompress, or options the released reader refuses; a line
    /// the released reader fails on is a decode error of its batch, naming the file and the line number.
    pub(crate) fn open(
        &self,
        path: &Path,
        columns: &[FileColumn],
        batch_size: usize,
    ) -> Result<RawBatches> {
        let unsupported = |reason: String| Error::Unsupported {
            path: path.to_path_buf(),
            reason,
        };
        let decode = |reason: String| Error::Decode {
            path: path.to_path_buf(),
            reason,
        };
        // Partition columns are filled from the split's partition, as `FormatReaderMapping` fills them
        // (`PartitionUtils.trimPartitionFields`): the format reader never sees them. A rendered value that
        // does not read back as the column's type (e.g. a TIMESTAMP's `toString`) leaves the column to the
        // file, where the CSV parser refuses a line that leaves it unread.
        let fixed: Vec<Option<Datum>> = columns
            .iter()
            .map(|c| {
                if self.raw_insert && c.name == super::VALUE_KIND_COLUMN {
                    return Some(Datum::Int(0));
                }
                // A column the file was not written with (a row-tracking column, which Java reads as a
                // system field, not through the format reader) is NULL, as the format readers' contract says.
                if !self.file_columns.iter().any(|f| f.name == c.name) {
                    return Some(Datum::Null);
                }
                let at = self.partition_keys.iter().position(|k| *k == c.name)?;
                match self.partition_values?.get(at)? {
                    None => Some(Datum::Null),
                    Some(text) => values::parse_value(text, &c.data_type, self.rules)
                        .ok()
                        .flatten(),
                }
            })
            .collect();
        let all_columns = columns;
        let columns: Vec<FileColumn> = all_columns
            .iter()
            .zip(&fixed)
            .filter(|(_, f)| f.is_none())
            .map(|(c, _)| c.clone())
            .collect();
        let columns = columns.as_slice();
        let (parser, delimiter) = match self.format {
            FileFormat::Csv => {
                let options = CsvOptions::from_options(self.options).map_err(decode)?;
                // A column is found by name among the written ones (`createProjectionMapping`; the
                // others are fixed NULLs above).
                let projection: Vec<usize> = columns
                    .iter()
                    .filter_map(|c| self.file_columns.iter().position(|f| f.name == c.name))
                    .collect();
                let types = self
                    .file_columns
                    .iter()
                    .map(|c| c.data_type.clone())
                    .collect();
                let delimiter = options.line_delimiter.clone();
                let partition = columns
                    .iter()
                    .map(|c| self.partition_keys.contains(&c.name))
                    .collect();
                (
                    Parser::Csv {
                        options,
                        projection,
                        partition,
                        types,
                    },
                    delimiter,
                )
            }
            FileFormat::Json => {
                let ignore_errors = get(self.options, &["json.ignore-parse-errors"])
                    .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
                let delimiter = get(self.options, &["json.line-delimiter"]).unwrap_or("\n");
                (Parser::Json { ignore_errors }, delimiter.to_owned())
            }
            _ => {
                if columns.len() > 1
                    || columns.iter().any(|c| {
                        !matches!(c.data_type.kind, TypeKind::VarChar(_) | TypeKind::Char(_))
                    })
                {
                    return Err(unsupported(format!(
                        "a text file holds one STRING column; {} columns other than the partition's are read",
                        columns.len()
                    )));
                }
                let delimiter =
                    get(self.options, &["text.line-delimiter", "lineSep"]).unwrap_or("\n");
                (Parser::Text, delimiter.to_owned())
            }
        };
        let bytes = decompress(path, mapped::read_all(path)?)?;
        Ok(Box::new(TextBatches {
            bytes,
            pos: 0,
            delimiter,
            header: matches!(&parser, Parser::Csv { options, .. } if options.include_header),
            parser,
            columns: columns.to_vec(),
            all_columns: all_columns.to_vec(),
            fixed,
            rules: self.rules,
            path: path.to_path_buf(),
            step: batch_size.max(1),
            line: 0,
            done: false,
        }))
    }
}

/// The file's bytes decompressed by its last extension (Hadoop's `CompressionCodecFactory.getCodec`).
fn decompress(path: &Path, bytes: bytes::Bytes) -> Result<bytes::Bytes> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let extension = name.rsplit('.').next().unwrap_or("");
    let mut out = Vec::new();
    let read = match extension {
        "gz" => flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_end(&mut out),
        "deflate" => flate2::read::ZlibDecoder::new(&bytes[..]).read_to_end(&mut out),
        "bz2" => bzip2::read::MultiBzDecoder::new(&bytes[..]).read_to_end(&mut out),
        "snappy" | "lz4" | "zst" => {
            return Err(Error::Unsupported {
                path: path.to_path_buf(),
                reason: format!(
                    "a text data file compressed with Hadoop's `.{extension}` codec is not read natively"
                ),
            })
        }
        _ => return Ok(bytes),
    };
    read.map_err(|e| Error::Decode {
        path: path.to_path_buf(),
        reason: format!("the `.{extension}` stream does not decompress: {e}"),
    })?;
    Ok(out.into())
}

/// The batches of one text file.
struct TextBatches {
    /// The decompressed file (the mapped file itself when it is not compressed).
    bytes: bytes::Bytes,
    /// Byte offset of the next line.
    pos: usize,
    delimiter: String,
    /// The CSV header line is still to be skipped.
    header: bool,
    parser: Parser,
    /// The columns the parser reads (the requested ones without the fixed partition columns).
    columns: Vec<FileColumn>,
    /// The requested columns.
    all_columns: Vec<FileColumn>,
    /// Per requested column, its value in every row (a partition column), or `None`: parsed.
    fixed: Vec<Option<Datum>>,
    rules: &'static LineRules,
    path: PathBuf,
    step: usize,
    /// Lines read so far (for messages).
    line: usize,
    done: bool,
}

impl TextBatches {
    fn next_batch(&mut self) -> Result<Option<(usize, Vec<ArrayRef>)>> {
        let mut lines = lines::Lines::new(&self.bytes, &self.delimiter);
        lines.seek(self.pos);
        if self.header {
            self.header = false;
            if lines.next().is_some() {
                self.line += 1;
            }
        }
        let mut rows: Vec<Vec<Datum>> = Vec::new();
        // Per line: it gave no row (its position is still taken: `returnedPosition` counts every line).
        let mut dropped: Vec<bool> = Vec::new();
        let decode = |line: usize, reason: String| Error::Decode {
            path: self.path.clone(),
            reason: format!("line {line}: {reason}"),
        };
        let named: Vec<(&str, &crate::schema::DataType)> = self
            .columns
            .iter()
            .map(|c| (c.name.as_str(), &c.data_type))
            .collect();
        while rows.len() < self.step {
            let Some(text) = lines.next() else {
                self.done = true;
                break;
            };
            self.line += 1;
            let row = match &self.parser {
                Parser::Csv {
                    options,
                    projection,
                    partition,
                    types,
                } => {
                    match csv::parse_line(&text, projection, partition, types, options, self.rules)
                    {
                        Ok(csv::Parsed::Row(row)) => Some(row),
                        Ok(csv::Parsed::Dropped) => None,
                        Err(csv::CsvError::Value(r)) => return Err(decode(self.line, r)),
                        Err(csv::CsvError::Unsupported(r)) => {
                            return Err(Error::Unsupported {
                                path: self.path.clone(),
                                reason: format!("line {}: {r}", self.line),
                            })
                        }
                    }
                }
                Parser::Json { ignore_errors } => {
                    match json::parse_line(&text, &named, *ignore_errors, self.rules) {
                        Ok(row) => row,
                        Err(json::JsonError::Value(r)) => return Err(decode(self.line, r)),
                        Err(json::JsonError::Unsupported(r)) => {
                            return Err(Error::Unsupported {
                                path: self.path.clone(),
                                reason: r,
                            })
                        }
                    }
                }
                Parser::Text => Some(
                    self.columns
                        .iter()
                        .map(|_| Datum::String(text.clone()))
                        .collect(),
                ),
            };
            dropped.push(row.is_none());
            rows.push(row.unwrap_or_else(|| vec![Datum::Null; self.columns.len()]));
        }
        self.pos = lines.position();
        if rows.is_empty() {
            return Ok(None);
        }
        let mut arrays = Vec::with_capacity(self.all_columns.len());
        let mut parsed = 0;
        for (column, fixed) in self.all_columns.iter().zip(&self.fixed) {
            let values: Vec<Datum> = match fixed {
                Some(value) => vec![value.clone(); rows.len()],
                None => {
                    parsed += 1;
                    rows.iter_mut()
                        .map(|r| std::mem::replace(&mut r[parsed - 1], Datum::Null))
                        .collect()
                }
            };
            arrays.push(Datum::to_arrow(&column.arrow_type(), &values).map_err(|e| {
                Error::Decode {
                    path: self.path.clone(),
                    reason: format!("column `{}`: {e}", column.name),
                }
            })?);
        }
        // The last column marks the lines that gave no row ([`super::file`] drops them by position).
        arrays.push(Arc::new(arrow_array::BooleanArray::from(dropped)));
        Ok(Some((rows.len(), arrays)))
    }
}

impl Iterator for TextBatches {
    type Item = Result<(usize, Vec<ArrayRef>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done && self.pos >= self.bytes.len() {
            return None;
        }
        match self.next_batch() {
            Ok(Some(batch)) => Some(Ok(batch)),
            Ok(None) => None,
            Err(e) => {
                self.done = true;
                self.pos = self.bytes.len();
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn csv_options_follow_the_fallback_keys() {
        let o = CsvOptions::from_options(&options(&[
            ("seq", ";"),
            ("field-delimiter", "|"),
            ("header", "TRUE"),
            ("mode", "FAILFAST"),
            ("nullvalue", "\\N"),
        ]))
        .unwrap();
        // `csv.field-delimiter` falls back to `field-delimiter` before `seq`.
        assert_eq!(o.separator, u16::from(b'|'));
        assert!(o.include_header);
        assert_eq!(o.mode, CsvMode::FailFast);
        assert_eq!(o.null_literal, "\\N");
        let o = CsvOptions::from_options(&options(&[
            ("csv.field-delimiter", "\t"),
            ("field-delimiter", "|"),
        ]))
        .unwrap();
        assert_eq!(o.separator, u16::from(b'\t'));
        assert_eq!(o.quote, u16::from(b'"'));
        assert_eq!(o.escape, u16::from(b'\\'));
        // `CsvParser` refuses a separator equal to the quote, and an unknown mode is not a mode.
        assert!(CsvOptions::from_options(&options(&[("csv.field-delimiter", "\"")])).is_err());
        assert!(CsvOptions::from_options(&options(&[("csv.mode", "lenient")])).is_err());
    }

    fn column(name: &str, kind: TypeKind) -> FileColumn {
        FileColumn {
            name: name.into(),
            id: 0,
            data_type: crate::schema::DataType {
                kind,
                nullable: true,
            },
            views: false,
            variant_shredding: true,
            map_shredding: true,
        }
    }

    #[test]
    fn partition_columns_come_from_the_split_and_unwritten_columns_are_null() {
        let dir = std::env::temp_dir().join(format!("pp-text-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data-1.csv");
        // The second line is what a value's line break leaves: its partition field is unread.
        std::fs::write(&path, "a,p0,1\nb\n").unwrap();
        let string = TypeKind::VarChar(i32::MAX as u32);
        let written = [
            column("s", string.clone()),
            column("pt", string.clone()),
            column("n", TypeKind::Int),
        ];
        let requested = [
            column("s", string.clone()),
            column("pt", string),
            column("_ROW_ID", TypeKind::BigInt),
        ];
        let table_options = BTreeMap::new();
        let keys = ["pt".to_string()];
        let partition = [Some("p0".to_string())];
        let read = TextRead {
            format: FileFormat::Csv,
            options: &table_options,
            file_columns: &written,
            rules: crate::PaimonRelease::V2_0_0.rules(),
            partition_keys: &keys,
            partition_values: Some(&partition),
            raw_insert: false,
        };
        let batches: Vec<_> = read
            .open(&path, &requested, 10)
            .unwrap()
            .collect::<Result<_>>()
            .unwrap();
        let (rows, arrays) = &batches[0];
        assert_eq!(*rows, 2);
        let strings = |a: &ArrayRef| -> Vec<Option<String>> {
            arrow_array::cast::AsArray::as_string::<i32>(a.as_ref())
                .iter()
                .map(|v| v.map(str::to_owned))
                .collect()
        };
        assert_eq!(strings(&arrays[0]), [Some("a".into()), Some("b".into())]);
        assert_eq!(strings(&arrays[1]), [Some("p0".into()), Some("p0".into())]);
        assert_eq!(arrays[2].null_count(), 2);
        // Without the split's partition the second line leaves `pt` unread: refused by name.
        let read = TextRead {
            partition_values: None,
            ..read
        };
        let err = read
            .open(&path, &requested, 10)
            .unwrap()
            .find_map(|b| b.err())
            .unwrap();
        assert!(
            matches!(&err, Error::Unsupported { reason, .. } if reason.contains("partition")),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn lines_that_give_no_row_keep_their_positions() {
        let dir = std::env::temp_dir().join(format!("text-marks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let written = [
            column("n", TypeKind::Int),
            column("s", TypeKind::VarChar(i32::MAX as u32)),
        ];
        let marks = |format: FileFormat, file: &str, text: &str, options: &[(&str, &str)]| {
            let path = dir.join(file);
            std::fs::write(&path, text).unwrap();
            let options: BTreeMap<String, String> = options
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let read = TextRead {
                format,
                options: &options,
                file_columns: &written,
                rules: crate::PaimonRelease::V2_0_0.rules(),
                partition_keys: &[],
                partition_values: Some(&[]),
                raw_insert: false,
            };
            let batches: Vec<_> = read
                .open(&path, &written, 2)
                .unwrap()
                .collect::<Result<_>>()
                .unwrap();
            // Each batch ends with the marks of its lines; batches of 2 lines, dropped ones included.
            batches
                .iter()
                .flat_map(|(rows, arrays)| {
                    let marks = arrays.last().unwrap().as_any();
                    let marks = marks.downcast_ref::<arrow_array::BooleanArray>().unwrap();
                    assert_eq!(marks.len(), *rows);
                    marks.iter().map(Option::unwrap).collect::<Vec<_>>()
                })
                .collect::<Vec<bool>>()
        };
        // `csv.mode=dropmalformed`: the malformed second line is dropped, its position kept (the deletion
        // vector of a later line counts it, as `returnedPosition` does). The header takes none.
        assert_eq!(
            marks(
                FileFormat::Csv,
                "data-1.csv",
                "n,s\n1,a\nx,b\n3,c\n",
                &[
                    ("csv.mode", "dropmalformed"),
                    ("csv.include-header", "true")
                ]
            ),
            [false, true, false]
        );
        // A JSON `null` line, and with `json.ignore-parse-errors` a line that does not parse.
        assert_eq!(
            marks(
                FileFormat::Json,
                "data-2.json",
                "{\"n\":1}\nnull\n{bad\n{\"n\":4}\n",
                &[("json.ignore-parse-errors", "true")]
            ),
            [false, true, true, false]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn codecs_are_chosen_by_the_last_extension() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(b"a\nb\n").unwrap();
        let bytes = bytes::Bytes::from(gz.finish().unwrap());
        assert_eq!(
            decompress(Path::new("/t/data-1.csv.gz"), bytes.clone()).unwrap(),
            &b"a\nb\n"[..]
        );
        // A `.text` file is read as it is, compressed or not (`DataFilePathFactory` gives it no codec suffix).
        assert_eq!(
            decompress(Path::new("/t/data-1.text"), bytes.clone()).unwrap(),
            bytes
        );
        let err = decompress(Path::new("/t/data-1.json.zst"), bytes.clone()).unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{err}");
        let err = decompress(Path::new("/t/data-1.csv.deflate"), bytes).unwrap_err();
        assert!(err.to_string().contains("data-1.csv.deflate"), "{err}");
    }
}
