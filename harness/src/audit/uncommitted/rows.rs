//! The records of one uncommitted file, read natively, and which of them the table (or its changelog)
//! lacks. Memory holds one uncommitted file's records at a time; the committed files they are compared
//! with are streamed batch by batch.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{Array, Int64Array, Int8Array, RecordBatch};
use native_reader::decode::{read_file, FileReadOptions, DEFAULT_BATCH_SIZE};
use native_reader::{DataFileDesc, RowKind, Table};

use super::listing::{Candidate, Committed};
use crate::audit::fold::{primary_key_columns, render_key};
use crate::diff::{render_value, row_kind_symbol};
use crate::error::Result;

/// Column names of a primary-key data file that are not table columns (`KeyValueFileWriterFactory`:
/// `_SEQUENCE_NUMBER`, `_VALUE_KIND`, and the key fields `_KEY_<name>`), and 2.0's `_ROW_ID`.
fn is_system_column(name: &str) -> bool {
    matches!(name, "_SEQUENCE_NUMBER" | "_VALUE_KIND" | "_ROW_ID") || name.starts_with("_KEY_")
}

/// One record of a file: its sequence number, RowKind, key and values.
#[derive(Clone, Debug)]
pub(super) struct Record {
    /// `_SEQUENCE_NUMBER` (for an append file, its position).
    pub seq: i64,
    /// The stored RowKind byte.
    pub kind: i8,
    /// `+I`/`+U` (true) or `-U`/`-D`.
    pub adds: bool,
    /// The primary key rendered with its names (`k=1`); the values for an append table.
    pub key: String,
    /// Every column's value, rendered `(1, 20)`.
    pub values: String,
}

impl Record {
    /// `+U (1, 20)`.
    pub fn words(&self) -> String {
        format!("{} {}", row_kind_symbol(Some(self.kind)), self.values)
    }

    /// What a committed record must equal to be this one: the RowKind and values of a changelog record
    /// (the stream delivers it as it is), add-or-retract and values of a data record (a merge keeps the
    /// latest record's values, and may turn `+I` into `+U`).
    fn identity(&self, changelog: bool) -> String {
        if changelog {
            self.words()
        } else {
            format!("{} {}", if self.adds { '+' } else { '-' }, self.values)
        }
    }
}

/// The number of rows and the column names in a Parquet, ORC or Avro file's own metadata (its footer, or
/// for Avro its schema and a count of its records).
///
/// Errors: the format reader's, as text.
fn footer(path: &Path) -> std::result::Result<(i64, Vec<String>), String> {
    let name = path.to_string_lossy();
    if native_reader::fileio::is_store(path) {
        // One GET of the whole object, read from memory.
        let bytes = native_reader::fileio::read(path).map_err(|e| e.to_string())?;
        return footer_of(&name, bytes);
    }
    let file = File::open(path).map_err(|e| e.to_string())?;
    footer_of(&name, file)
}

/// A data file to read a footer of: the local file, or an object's bytes.
trait FooterInput:
    parquet::file::reader::ChunkReader + orc_rust::reader::ChunkReader + 'static
{
    /// The whole file as a stream (Avro's container is read from its start).
    fn stream(self) -> Box<dyn std::io::Read>;
}

impl FooterInput for File {
    fn stream(self) -> Box<dyn std::io::Read> {
        Box::new(std::io::BufReader::new(self))
    }
}

impl FooterInput for native_reader::fileio::Bytes {
    fn stream(self) -> Box<dyn std::io::Read> {
        Box::new(std::io::Cursor::new(self))
    }
}

/// [`footer`] of a file opened as `input`.
fn footer_of(
    name: &str,
    input: impl FooterInput,
) -> std::result::Result<(i64, Vec<String>), String> {
    let file = input;
    if name.ends_with(".parquet") {
        let b = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|e| e.to_string())?;
        let columns = b.schema().fields().iter().map(|f| f.name().clone());
        Ok((b.metadata().file_metadata().num_rows(), columns.collect()))
    } else if name.ends_with(".orc") {
        let b = orc_rust::ArrowReaderBuilder::try_new(file).map_err(|e| e.to_string())?;
        let meta = b.file_metadata();
        let columns = meta.root_data_type().children().iter();
        Ok((
            i64::try_from(meta.number_of_rows()).unwrap_or(i64::MAX),
            columns.map(|c| c.name().to_owned()).collect(),
        ))
    } else {
        let reader = apache_avro::Reader::new(file.stream()).map_err(|e| e.to_string())?;
        let columns = match reader.writer_schema() {
            apache_avro::Schema::Record(r) => r.fields.iter().map(|f| f.name.clone()).collect(),
            _ => Vec::new(),
        };
        let mut rows = 0i64;
        for record in reader {
            record.map_err(|e| e.to_string())?;
            rows += 1;
        }
        Ok((rows, columns))
    }
}

/// The schema a file was written with: the newest of the table's schemas whose columns are exactly the
/// file's (system columns aside), else the latest.
fn schema_of(table: &Table, columns: &[String]) -> i64 {
    let mut wanted: Vec<&str> = columns
        .iter()
        .map(String::as_str)
        .filter(|c| !is_system_column(c))
        .collect();
    wanted.sort_unstable();
    let latest = table.schema().id;
    (0..=latest)
        .rev()
        .find(|id| {
            table.schema_by_id(*id).is_ok_and(|s| {
                let mut names: Vec<&str> = s.fields.iter().map(|f| f.name.as_str()).collect();
                names.sort_unstable();
                names == wanted
            })
        })
        .unwrap_or(latest)
}

/// Reads the records of `file` in `bucket_path` through the native reader (`read_file`, with sequence
/// numbers), passing each batch's records to `each`.
fn for_each_record(
    table: &Arc<Table>,
    bucket_path: &str,
    file: &DataFileDesc,
    each: &mut dyn FnMut(Record),
) -> Result<()> {
    let key_columns: Vec<usize> = primary_key_columns(table)?
        .into_iter()
        .map(|i| i + 1)
        .collect();
    let options = FileReadOptions {
        with_sequence_number: true,
        batch_size: DEFAULT_BATCH_SIZE,
        raw_table_read: false,
    };
    for batch in read_file(table, bucket_path, file, None, &options)? {
        let batch: RecordBatch = batch?;
        let (Some(seqs), Some(kinds)) = (
            batch.column(0).as_any().downcast_ref::<Int64Array>(),
            batch.column(1).as_any().downcast_ref::<Int8Array>(),
        ) else {
            continue;
        };
        for r in 0..batch.num_rows() {
            let values: Vec<String> = batch
                .columns()
                .iter()
                .skip(2)
                .map(|c| render_value(c.as_ref(), r))
                .collect();
            let values = format!("({})", values.join(", "));
            let kind = kinds.value(r);
            each(Record {
                seq: seqs.value(r),
                kind,
                adds: RowKind::from_byte(kind).is_none_or(RowKind::is_add),
                key: if key_columns.is_empty() {
                    values.clone()
                } else {
                    render_key(&batch, &key_columns, r)
                },
                values,
            });
        }
    }
    Ok(())
}

/// The records of the uncommitted file `c`, read natively with the schema its columns match.
///
/// Errors: the file cannot be read (its footer, or a record), as text for the report.
pub(super) fn read_uncommitted(
    table: &Arc<Table>,
    c: &Candidate,
) -> std::result::Result<Vec<Record>, String> {
    let path = Path::new(&c.bucket_path).join(&c.name);
    let (rows, columns) = footer(&path)?;
    let file = DataFileDesc {
        file_name: c.name.clone(),
        level: 0,
        row_count: rows,
        file_size: i64::try_from(c.size).unwrap_or(i64::MAX),
        min_sequence_number: 0,
        max_sequence_number: 0,
        schema_id: schema_of(table, &columns),
        delete_row_count: None,
        min_key: Vec::new(),
        max_key: Vec::new(),
        external_path: None,
        first_row_id: None,
        write_cols: None,
        file_source: None,
    };
    let mut out = Vec::new();
    for_each_record(table, &c.bucket_path, &file, &mut |r| out.push(r))
        .map_err(|e| e.to_string())?;
    Ok(out)
}

/// Which of `records` (of the uncommitted file `c`) the table lacks, by index, comparing with the files
/// `committed` in the same bucket:
/// - a changelog record is lacking unless a committed changelog file holds the same RowKind and values
///   (the stream delivered it);
/// - a data record is lacking unless a committed data file holds the same record (a replayed write, or a
///   compaction's output), or a committed record of its key has a higher sequence number (the table moved
///   past it); a retraction is also not lacking when no live file holds its key (the table does not have
///   the key).
///
/// Committed files missing from the disk are skipped and counted in the second value.
pub(super) fn lacking(
    table: &Arc<Table>,
    c: &Candidate,
    records: &[Record],
    committed: &[Committed],
) -> Result<(Vec<usize>, usize)> {
    let mut index: HashMap<String, Vec<usize>> = HashMap::new();
    let mut keys: HashMap<&str, (i64, bool)> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        index.entry(r.identity(c.changelog)).or_default().push(i);
        keys.entry(r.key.as_str()).or_insert((i64::MIN, false));
    }
    let primary_keyed = !table.schema().primary_keys.is_empty();
    let mut matched = vec![false; records.len()];
    let mut missing_files = 0;
    for f in committed.iter().filter(|f| f.changelog == c.changelog) {
        let path = Path::new(&c.bucket_path).join(&f.meta.file_name);
        if f.meta.external_path.is_none() && !native_reader::fileio::exists(&path).unwrap_or(false)
        {
            missing_files += 1;
            continue;
        }
        let desc = native_reader::scan::data_file_desc(&f.meta);
        for_each_record(table, &c.bucket_path, &desc, &mut |r| {
            if let Some(hits) = index.get(&r.identity(c.changelog)) {
                for i in hits {
                    matched[*i] = true;
                }
            }
            if primary_keyed && !c.changelog {
                if let Some((seq, live)) = keys.get_mut(r.key.as_str()) {
                    *seq = (*seq).max(r.seq);
                    *live |= f.live;
                }
            }
        })?;
    }
    let out = records
        .iter()
        .enumerate()
        .filter(|(i, r)| {
            if matched[*i] {
                return false;
            }
            if c.changelog || !primary_keyed {
                return true;
            }
            let (newest, live) = keys[r.key.as_str()];
            newest < r.seq && (r.adds || live)
        })
        .map(|(i, _)| i)
        .collect();
    Ok((out, missing_files))
}
