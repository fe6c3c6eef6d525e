//! Decoding data and changelog files of a split into Arrow record batches.
//!
//! Mirrors what the released Paimon 1.0 reader returns for a split read without merging
//! (`KeyValueTableRead` with `isStreaming=true`, i.e. the no-merge `KeyValueFileReaderFactory` path, and
//! `RawFileSplitRead` for append tables): files in split order, rows in file order, each row with its stored
//! RowKind (`_VALUE_KIND` of primary-key files; `+I` for append tables).
//!
//! Output shape: [`crate::types::read_schema`] of the table's latest schema: `_row_kind` Int8 then the table
//! columns. Columns are matched to the file by **field id** (the file's own schema, `_SCHEMA_ID`, names the
//! column in the file); a column the file does not have is NULL. Decoding is column by column on Arrow arrays:
//! the Parquet reader decodes pages into arrays, and each column is cast once per batch to its Arrow type.
//!
//! Memory: one file open at a time and one batch of at most `batch_size` rows in flight.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{new_null_array, Array, ArrayRef, Int8Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ProjectionMask;

use crate::error::{Error, Result};
use crate::schema::TableSchema;
use crate::split::Split;
use crate::table::Table;
use crate::types::read_schema;

/// Name of the RowKind column inside primary-key data and changelog files (`SpecialFields.VALUE_KIND`).
pub const VALUE_KIND_COLUMN: &str = "_VALUE_KIND";

/// Default number of rows per decoded batch (the stock side exports batches of the same size).
pub const DEFAULT_BATCH_SIZE: usize = 4096;

/// The file formats a data file can have, taken from the text after the last `.` of its name
/// (`FormatReaderMapping` / `file.format.per.level`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    Parquet,
    Orc,
    Avro,
}

impl FileFormat {
    /// The format of `file_name`, or [`Error::Unsupported`] naming `path` for an unknown extension.
    pub fn of(file_name: &str, path: &Path) -> Result<FileFormat> {
        match file_name
            .rsplit('.')
            .next()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("parquet") => Ok(FileFormat::Parquet),
            Some("orc") => Ok(FileFormat::Orc),
            Some("avro") => Ok(FileFormat::Avro),
            _ => Err(Error::Unsupported {
                path: path.to_path_buf(),
                reason: format!("unknown file format of `{file_name}`"),
            }),
        }
    }
}

/// Reads one split without merging, lazily: an iterator of record batches in the read schema.
///
/// Errors are reported per item and name the file: [`Error::Unsupported`] for ORC/Avro files and for
/// splits carrying deletion vectors (not yet read natively), [`Error::Decode`] for a file that cannot be
/// decoded, [`Error::Io`] for a file that cannot be opened.
pub struct SplitReader {
    table: Arc<Table>,
    split: Split,
    schema: SchemaRef,
    primary_keyed: bool,
    batch_size: usize,
    next_file: usize,
    current: Option<FileReader>,
    failed: bool,
}

struct FileReader {
    path: PathBuf,
    reader: ParquetRecordBatchReader,
    /// For each output column after `_row_kind`: the index in the projected batch, or None (NULL column).
    columns: Vec<Option<usize>>,
    value_kind: Option<usize>,
}

impl SplitReader {
    /// Prepares to read `split` of `table` in batches of `batch_size` rows.
    pub fn new(table: Arc<Table>, split: &Split, batch_size: usize) -> Result<SplitReader> {
        let latest = table.schema();
        let schema = Arc::new(read_schema(&latest.fields));
        let primary_keyed = !latest.primary_keys.is_empty();
        if !split.deletion_files.iter().all(Option::is_none) {
            return Err(Error::Unsupported {
                path: PathBuf::from(&split.bucket_path),
                reason: "splits with deletion vectors are not read natively yet".into(),
            });
        }
        Ok(SplitReader {
            table,
            split: split.clone(),
            schema,
            primary_keyed,
            batch_size: batch_size.max(1),
            next_file: 0,
            current: None,
            failed: false,
        })
    }

    /// The schema of every batch: `_row_kind` then the table's columns.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn open_next(&mut self) -> Result<Option<FileReader>> {
        let Some(file) = self.split.data_files.get(self.next_file) else {
            return Ok(None);
        };
        self.next_file += 1;
        let path = Path::new(&self.split.bucket_path).join(&file.file_name);
        match FileFormat::of(&file.file_name, &path)? {
            FileFormat::Parquet => {}
            other => {
                return Err(Error::Unsupported {
                    path,
                    reason: format!("{other:?} files are not decoded natively yet"),
                })
            }
        }
        let file_schema = self.table.schema_by_id(file.schema_id)?;
        open_parquet(
            &path,
            &file_schema,
            self.table.schema(),
            self.primary_keyed,
            self.batch_size,
        )
        .map(Some)
    }

    fn convert(&self, file: &FileReader, batch: RecordBatch) -> Result<RecordBatch> {
        let rows = batch.num_rows();
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.schema.fields().len());
        let kinds: ArrayRef = match file.value_kind {
            Some(i) => cast_to(
                batch.column(i),
                &ArrowType::Int8,
                &file.path,
                VALUE_KIND_COLUMN,
            )?,
            None => Arc::new(Int8Array::from(vec![0i8; rows])),
        };
        if kinds.null_count() > 0 {
            return Err(Error::Decode {
                path: file.path.clone(),
                reason: format!("{VALUE_KIND_COLUMN} has NULL values"),
            });
        }
        columns.push(kinds);
        for (field, source) in self.schema.fields().iter().skip(1).zip(&file.columns) {
            let array = match source {
                Some(i) => cast_to(
                    batch.column(*i),
                    field.data_type(),
                    &file.path,
                    field.name(),
                )?,
                None => new_null_array(field.data_type(), rows),
            };
            columns.push(array);
        }
        RecordBatch::try_new(self.schema.clone(), columns).map_err(|e| Error::Decode {
            path: file.path.clone(),
            reason: e.to_string(),
        })
    }
}

impl Iterator for SplitReader {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            if self.current.is_none() {
                match self.open_next() {
                    Ok(Some(f)) => self.current = Some(f),
                    Ok(None) => return None,
                    Err(e) => {
                        self.failed = true;
                        return Some(Err(e));
                    }
                }
            }
            let file = self.current.as_mut()?;
            match file.reader.next() {
                Some(Ok(batch)) => {
                    let file = self.current.take()?;
                    let out = self.convert(&file, batch);
                    self.current = Some(file);
                    if out.is_err() {
                        self.failed = true;
                    }
                    return Some(out);
                }
                Some(Err(e)) => {
                    self.failed = true;
                    let path = file.path.clone();
                    return Some(Err(Error::Decode {
                        path,
                        reason: e.to_string(),
                    }));
                }
                None => self.current = None,
            }
        }
    }
}

fn cast_to(array: &ArrayRef, to: &ArrowType, path: &Path, column: &str) -> Result<ArrayRef> {
    if array.data_type() == to {
        return Ok(array.clone());
    }
    arrow_cast::cast(array, to).map_err(|e| Error::Decode {
        path: path.to_path_buf(),
        reason: format!(
            "column `{column}`: cannot read {} as {to}: {e}",
            array.data_type()
        ),
    })
}

/// Opens a Parquet data or changelog file and works out which file column feeds each output column.
///
/// `file_schema` is the schema the file was written with (its `_SCHEMA_ID`), `read_schema` the table's
/// latest schema: an output column is found in the file through the field id it has in both, and read by
/// the name it had in `file_schema` (the 1.0 reader matches Parquet columns by name).
fn open_parquet(
    path: &Path,
    file_schema: &TableSchema,
    read_schema: &TableSchema,
    primary_keyed: bool,
    batch_size: usize,
) -> Result<FileReader> {
    let decode_err = |reason: String| Error::Decode {
        path: path.to_path_buf(),
        reason,
    };
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| decode_err(format!("not a readable Parquet file: {e}")))?;
    let arrow_schema: &Schema = builder.schema();
    let by_name: HashMap<&str, usize> = arrow_schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name().as_str(), i))
        .collect();
    let names_by_id: HashMap<i32, &str> = file_schema
        .fields
        .iter()
        .map(|f| (f.id, f.name.as_str()))
        .collect();

    // Root columns to read, in file order (the projection keeps file order).
    let mut wanted: Vec<usize> = Vec::new();
    let value_kind_root = if primary_keyed {
        let i = by_name.get(VALUE_KIND_COLUMN).copied().ok_or_else(|| {
            decode_err(format!(
                "primary-key data file without a `{VALUE_KIND_COLUMN}` column"
            ))
        })?;
        wanted.push(i);
        Some(i)
    } else {
        None
    };
    let mut roots: Vec<Option<usize>> = Vec::with_capacity(read_schema.fields.len());
    for field in &read_schema.fields {
        let root = names_by_id
            .get(&field.id)
            .and_then(|name| by_name.get(name).copied());
        // A column whose type cannot be cast is reported when its first batch is converted.
        if let Some(i) = root {
            wanted.push(i);
        }
        roots.push(root);
    }
    wanted.sort_unstable();
    wanted.dedup();
    let position = |root: usize| wanted.iter().position(|w| *w == root);
    let columns = roots.iter().map(|r| r.and_then(position)).collect();
    let value_kind = value_kind_root.and_then(position);

    let mask = ProjectionMask::roots(builder.parquet_schema(), wanted.iter().copied());
    let reader = builder
        .with_projection(mask)
        .with_batch_size(batch_size)
        .build()
        .map_err(|e| decode_err(e.to_string()))?;
    Ok(FileReader {
        path: path.to_path_buf(),
        reader,
        columns,
        value_kind,
    })
}
