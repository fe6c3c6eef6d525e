//! Decoding data and changelog files into Arrow record batches.
//!
//! Two entry points:
//! * [`read_file`]: one file, lazily, as [`FileBatches`] — what both the no-merge reader and the merge-on-read
//!   reader build on (Paimon's `KeyValueFileReaderFactory` / `RawFileSplitRead.createFileReader` with
//!   `FormatReaderMapping` and `ApplyDeletionVectorReader`);
//! * [`SplitReader`]: a split read without merging (`KeyValueTableRead` with `isStreaming=true`, i.e. the
//!   no-merge reader, and `RawFileSplitRead` for raw-convertible splits): files in split order, rows in file
//!   order, each row with its stored RowKind (`_VALUE_KIND` of primary-key files; `+I` for append tables).
//!
//! How one file is read (mirrors `FormatReaderMapping` + `SchemaEvolutionUtil` + `CastExecutors` of 1.0):
//! 1. the format is the text after the last `.` of the file name ([`FileFormat::of`]);
//! 2. the file is read with the schema it was written with (`DataFileDesc::schema_id`): each column of the
//!    table's latest schema is looked up by **field id** in that schema and read by the name it has there
//!    (added columns are NULL, dropped columns are not read, renamed/reordered columns follow their id);
//! 3. each column is decoded into the Arrow type of its **file** type ([`crate::types::arrow_type`]) by the
//!    format module ([`parquet`], [`orc`], [`avro`]), then cast to the read type with Paimon's cast rules
//!    ([`cast`]) when the type changed;
//! 4. the deletion vector, if any, drops the rows at deleted positions (row ordinals in the file).
//!
//! Partition columns are read from the file like every other column: 1.0 fills them from the split's
//! partition row instead, but every data file of a 1.0 table stores all table columns, partition columns
//! included, with the values of its partition, and partition columns cannot change type, so both give the
//! same values.
//!
//! Memory: one file open at a time and one batch of at most `batch_size` rows in flight (plus the format's
//! own buffers: one Parquet row group's pages, one ORC stripe, one Avro block).

pub mod avro;
pub mod cast;
pub mod conform;
pub mod orc;
pub(crate) mod orc_tail;
pub mod parquet;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BooleanArray, Int64Array, Int8Array, RecordBatch, RecordBatchOptions,
};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};

use crate::deletion_vector::DeletionVector;
use crate::error::{Error, Result};
use crate::schema::{DataType, TypeKind};
use crate::split::{DataFileDesc, DeletionFileDesc, Split};
use crate::table::Table;
use crate::types::{arrow_field, row_kind_field};

/// Name of the RowKind column inside primary-key data and changelog files (`SpecialFields.VALUE_KIND`).
pub const VALUE_KIND_COLUMN: &str = "_VALUE_KIND";

/// Name of the sequence-number column inside primary-key data and changelog files, and of the optional
/// leading column of [`FileBatches`] (`SpecialFields.SEQUENCE_NUMBER`).
pub const SEQUENCE_NUMBER_COLUMN: &str = "_SEQUENCE_NUMBER";

/// Default number of rows per decoded batch (the stock side exports batches of the same size).
pub const DEFAULT_BATCH_SIZE: usize = 4096;

/// The file formats a data file can have, taken from the text after the last `.` of its name
/// (`FormatReaderMapping` / `file.format.per.level`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    /// `.parquet` (paimon-format `ParquetFileFormat`).
    Parquet,
    /// `.orc` (paimon-format `OrcFileFormat`).
    Orc,
    /// `.avro` (paimon-format `AvroFileFormat`).
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

/// What [`read_file`] returns besides the table's value columns, and how much at a time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReadOptions {
    /// Prepend a `_SEQUENCE_NUMBER` Int64 NOT NULL column (`KeyValue.sequenceNumber`). Primary-key files
    /// store it; for append files (which do not) row `i` of the file gets `min_sequence_number + i`.
    pub with_sequence_number: bool,
    /// Maximum rows per batch (at least 1). Batches can be smaller (file ends, deleted rows dropped);
    /// empty batches are never returned.
    pub batch_size: usize,
}

impl Default for FileReadOptions {
    /// No sequence number, [`DEFAULT_BATCH_SIZE`] rows.
    fn default() -> Self {
        FileReadOptions {
            with_sequence_number: false,
            batch_size: DEFAULT_BATCH_SIZE,
        }
    }
}

/// One column requested from a format reader: its name and Paimon type in the file's own schema.
///
/// A format reader returns, per batch, one array per requested column in request order, each of exactly
/// `types::arrow_type(&data_type)` (nested field names and nullability included), rows in file order with
/// no row skipped.
#[derive(Clone, Debug)]
pub struct FileColumn {
    /// Column name in the file.
    pub name: String,
    /// Field id in the file's schema (Parquet `field_id`, ORC `paimon.id`); used only for messages.
    pub id: i32,
    /// Paimon type in the file's schema.
    pub data_type: DataType,
}

/// Batches of a format reader: (row count, one array per requested [`FileColumn`]).
pub(crate) type RawBatches = Box<dyn Iterator<Item = Result<(usize, Vec<ArrayRef>)>> + Send>;

/// Where an output value column comes from.
#[derive(Clone, Debug)]
enum Source {
    /// Not in the file (added later): NULL.
    Missing,
    /// Requested column `index`, decoded as `from` (its file type), cast to the read type when different.
    Column {
        index: usize,
        from: DataType,
        id: i32,
    },
}

/// The batches of one data or changelog file, lazily decoded (see [`read_file`]).
///
/// `Send`; holds the open file until dropped or exhausted. After the first error it returns `None`.
pub struct FileBatches {
    path: PathBuf,
    schema: SchemaRef,
    raw: RawBatches,
    value_kind: Option<usize>,
    sequence: Option<SequenceSource>,
    sources: Vec<Source>,
    targets: Vec<DataType>,
    deletion: Option<DeletionVector>,
    /// Rows of the file read so far (the position of the next row).
    position: u64,
    /// `_ROW_COUNT` of the file's manifest entry: the file must hold exactly this many rows (Paimon writes
    /// it exactly; a file with more or fewer rows is damaged or not the file the manifest describes).
    expected_rows: u64,
    done: bool,
}

#[derive(Clone, Copy, Debug)]
enum SequenceSource {
    /// Requested column `index` holds it.
    Column(usize),
    /// Append file: `base + position`.
    Positional(i64),
}

/// The schema of [`read_file`]'s batches for `table`: [`SEQUENCE_NUMBER_COLUMN`] Int64 NOT NULL when
/// `with_sequence_number`, then `_row_kind` Int8 NOT NULL, then the latest schema's columns
/// ([`crate::types::arrow_field`] of each).
pub fn file_read_schema(table: &Table, with_sequence_number: bool) -> Schema {
    let fields = &table.schema().fields;
    let mut out = Vec::with_capacity(fields.len() + 2);
    if with_sequence_number {
        out.push(Field::new(SEQUENCE_NUMBER_COLUMN, ArrowType::Int64, false));
    }
    out.push(row_kind_field());
    out.extend(fields.iter().map(arrow_field));
    Schema::new(out)
}

/// Opens one data or changelog file of `table` for reading, lazily.
///
/// * `bucket_path`: the bucket directory ([`Split::bucket_path`]); the file is `bucket_path/file.file_name`.
/// * `deletion`: the file's deletion vector, if any; rows at deleted positions are dropped.
///
/// Batches have [`file_read_schema`]`(table, options.with_sequence_number)`: `[_SEQUENCE_NUMBER]`,
/// `_row_kind` (the stored `_VALUE_KIND` of primary-key files, 0 = `+I` for append files), then the table's
/// latest-schema columns mapped by field id from the file's schema, missing ones NULL, changed types cast
/// per Paimon's rules.
///
/// Errors (here or from the iterator), each naming the file: [`Error::Unsupported`] for an unknown format or
/// a type change Paimon cannot cast; [`Error::Io`] when the file cannot be opened; [`Error::Decode`] when its
/// bytes are not what its schema says (a primary-key file without `_VALUE_KIND`, a NULL or invalid row kind,
/// a corrupt page/stripe/block); [`Error::DeletionVector`] naming the index and data file for a bad deletion
/// vector or one deleting a position beyond the file's rows; schema errors when `schema_id` is unknown.
pub fn read_file(
    table: &Arc<Table>,
    bucket_path: &str,
    file: &DataFileDesc,
    deletion: Option<&DeletionFileDesc>,
    options: &FileReadOptions,
) -> Result<FileBatches> {
    let path = Path::new(bucket_path).join(&file.file_name);
    let format = FileFormat::of(&file.file_name, &path)?;
    let latest = table.schema();
    let file_schema = table.schema_by_id(file.schema_id)?;
    let primary_keyed = !latest.primary_keys.is_empty();
    let by_id: HashMap<i32, &crate::schema::DataField> =
        file_schema.fields.iter().map(|f| (f.id, f)).collect();

    let mut columns: Vec<FileColumn> = Vec::new();
    let mut sequence = None;
    let mut value_kind = None;
    if primary_keyed {
        if options.with_sequence_number {
            sequence = Some(SequenceSource::Column(columns.len()));
            columns.push(FileColumn {
                name: SEQUENCE_NUMBER_COLUMN.into(),
                id: i32::MAX - 1,
                data_type: DataType {
                    kind: TypeKind::BigInt,
                    nullable: false,
                },
            });
        }
        value_kind = Some(columns.len());
        columns.push(FileColumn {
            name: VALUE_KIND_COLUMN.into(),
            id: i32::MAX - 2,
            data_type: DataType {
                kind: TypeKind::TinyInt,
                nullable: false,
            },
        });
    } else if options.with_sequence_number {
        sequence = Some(SequenceSource::Positional(file.min_sequence_number));
    }
    let mut sources = Vec::with_capacity(latest.fields.len());
    for field in &latest.fields {
        match by_id.get(&field.id) {
            Some(old) => {
                cast::check_castable(&old.data_type, &field.data_type).map_err(|reason| {
                    Error::Unsupported {
                        path: path.clone(),
                        reason: format!("column `{}`: {reason}", field.name),
                    }
                })?;
                sources.push(Source::Column {
                    index: columns.len(),
                    from: old.data_type.clone(),
                    id: field.id,
                });
                columns.push(FileColumn {
                    name: old.name.clone(),
                    id: old.id,
                    data_type: old.data_type.clone(),
                });
            }
            None => sources.push(Source::Missing),
        }
    }
    let deletion = deletion
        .map(|d| DeletionVector::read(d, &path, file.row_count))
        .transpose()?;
    let batch_size = options.batch_size.max(1);
    let raw = match format {
        FileFormat::Parquet => parquet::open(&path, &columns, batch_size)?,
        FileFormat::Orc => orc::open(&path, &columns, batch_size)?,
        FileFormat::Avro => avro::open(&path, &columns, batch_size)?,
    };
    Ok(FileBatches {
        schema: Arc::new(file_read_schema(table, options.with_sequence_number)),
        targets: latest.fields.iter().map(|f| f.data_type.clone()).collect(),
        path,
        raw,
        value_kind,
        sequence,
        sources,
        deletion,
        position: 0,
        expected_rows: u64::try_from(file.row_count).unwrap_or(0),
        done: false,
    })
}

impl FileBatches {
    /// The schema of every batch (see [`file_read_schema`]).
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn decode_err(&self, reason: String) -> Error {
        Error::Decode {
            path: self.path.clone(),
            reason,
        }
    }

    /// Turns one raw batch into an output batch; `None` when every row of it is deleted.
    fn convert(&mut self, rows: usize, raw: Vec<ArrayRef>) -> Result<Option<RecordBatch>> {
        let start = self.position;
        self.position += rows as u64;
        let keep = self.deletion.as_ref().map(|dv| {
            BooleanArray::from_iter((start..start + rows as u64).map(|p| Some(!dv.is_deleted(p))))
        });
        let kept = keep.as_ref().map_or(rows, |k| k.true_count());
        if kept == 0 {
            return Ok(None);
        }
        let select = |array: &ArrayRef| -> Result<ArrayRef> {
            match &keep {
                Some(k) if kept < rows => {
                    arrow_select::filter::filter(array, k).map_err(|e| Error::Decode {
                        path: self.path.clone(),
                        reason: e.to_string(),
                    })
                }
                _ => Ok(array.clone()),
            }
        };
        let mut out: Vec<ArrayRef> = Vec::with_capacity(self.schema.fields().len());
        match self.sequence {
            Some(SequenceSource::Column(i)) => {
                let seq = select(&raw[i])?;
                if seq.null_count() > 0 {
                    return Err(
                        self.decode_err(format!("{SEQUENCE_NUMBER_COLUMN} has NULL values"))
                    );
                }
                out.push(seq);
            }
            Some(SequenceSource::Positional(base)) => {
                let values = (start..start + rows as u64)
                    .enumerate()
                    .filter(|(i, _)| keep.as_ref().is_none_or(|k| k.value(*i)))
                    .map(|(_, p)| base.wrapping_add(p as i64));
                out.push(Arc::new(Int64Array::from_iter_values(values)));
            }
            None => {}
        }
        match self.value_kind {
            Some(i) => {
                let kinds = select(&raw[i])?;
                let valid = kinds.as_any().downcast_ref::<Int8Array>().is_some_and(|k| {
                    k.null_count() == 0 && k.values().iter().all(|v| (0..=3).contains(v))
                });
                if !valid {
                    return Err(self.decode_err(format!(
                        "{VALUE_KIND_COLUMN} has NULL or invalid values (must be 0..=3)"
                    )));
                }
                out.push(kinds);
            }
            None => out.push(Arc::new(Int8Array::from(vec![0i8; kept]))),
        }
        for ((source, target), field) in self
            .sources
            .iter()
            .zip(&self.targets)
            .zip(self.schema.fields().iter().skip(out.len()))
        {
            let array = match source {
                Source::Missing => arrow_array::new_null_array(field.data_type(), kept),
                Source::Column { index, from, id } => {
                    let selected = select(&raw[*index])?;
                    cast::cast(&selected, from, target, *id).map_err(|reason| Error::Decode {
                        path: self.path.clone(),
                        reason: format!("column `{}`: {reason}", field.name()),
                    })?
                }
            };
            out.push(array);
        }
        let options = RecordBatchOptions::new().with_row_count(Some(kept));
        RecordBatch::try_new_with_options(self.schema.clone(), out, &options)
            .map(Some)
            .map_err(|e| self.decode_err(e.to_string()))
    }
}

impl Iterator for FileBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            match self.raw.next() {
                None => {
                    self.done = true;
                    if self.position != self.expected_rows {
                        return Some(Err(self.decode_err(format!(
                            "the file has {} rows, but its manifest entry records {}",
                            self.position, self.expected_rows
                        ))));
                    }
                    if let Some(dv) = &self.deletion {
                        if let Err(reason) = dv.check_positions(self.position as i64) {
                            return Some(Err(Error::DeletionVector {
                                path: self.path.clone(),
                                reason: format!(
                                    "the file has fewer rows than its deletion vector: {reason}"
                                ),
                            }));
                        }
                    }
                }
                Some(Err(e)) => {
                    self.done = true;
                    return Some(Err(e));
                }
                Some(Ok((rows, _))) if self.position + rows as u64 > self.expected_rows => {
                    self.done = true;
                    return Some(Err(self.decode_err(format!(
                        "the file has more than the {} rows its manifest entry records",
                        self.expected_rows
                    ))));
                }
                Some(Ok((rows, arrays))) => match self.convert(rows, arrays) {
                    Ok(Some(batch)) => return Some(Ok(batch)),
                    Ok(None) => {}
                    Err(e) => {
                        self.done = true;
                        return Some(Err(e));
                    }
                },
            }
        }
        None
    }
}

/// Reads one split without merging, lazily: an iterator of record batches in the read schema
/// ([`crate::types::read_schema`]: `_row_kind` then the table's columns).
///
/// Files are read one after another with [`read_file`] (deletion vectors applied per file); errors are
/// reported per item and name the file; after the first error the iterator ends.
pub struct SplitReader {
    table: Arc<Table>,
    split: Split,
    schema: SchemaRef,
    options: FileReadOptions,
    next_file: usize,
    current: Option<FileBatches>,
    failed: bool,
}

impl SplitReader {
    /// Prepares to read `split` of `table` in batches of at most `batch_size` rows.
    ///
    /// Errors: [`Error::Decode`] naming the bucket directory when `deletion_files` is neither empty nor one
    /// entry per data file.
    pub fn new(table: Arc<Table>, split: &Split, batch_size: usize) -> Result<SplitReader> {
        if !split.deletion_files.is_empty() && split.deletion_files.len() != split.data_files.len()
        {
            return Err(Error::Decode {
                path: PathBuf::from(&split.bucket_path),
                reason: format!(
                    "{} deletion files for {} data files",
                    split.deletion_files.len(),
                    split.data_files.len()
                ),
            });
        }
        let schema = Arc::new(crate::types::read_schema(&table.schema().fields));
        Ok(SplitReader {
            table,
            split: split.clone(),
            schema,
            options: FileReadOptions {
                with_sequence_number: false,
                batch_size: batch_size.max(1),
            },
            next_file: 0,
            current: None,
            failed: false,
        })
    }

    /// The schema of every batch: `_row_kind` then the table's columns.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn open_next(&mut self) -> Result<Option<FileBatches>> {
        let Some(file) = self.split.data_files.get(self.next_file) else {
            return Ok(None);
        };
        let deletion = self
            .split
            .deletion_files
            .get(self.next_file)
            .and_then(Option::as_ref);
        self.next_file += 1;
        read_file(
            &self.table,
            &self.split.bucket_path,
            file,
            deletion,
            &self.options,
        )
        .map(Some)
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
            match file.next() {
                Some(Ok(batch)) => {
                    // Same columns, same types: only the schema object differs.
                    return Some(
                        RecordBatch::try_new(self.schema.clone(), batch.columns().to_vec())
                            .map_err(|e| {
                                self.failed = true;
                                Error::Decode {
                                    path: file.path().to_path_buf(),
                                    reason: e.to_string(),
                                }
                            }),
                    );
                }
                Some(Err(e)) => {
                    self.failed = true;
                    return Some(Err(e));
                }
                None => self.current = None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use ::parquet::arrow::ArrowWriter;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type};
    use arrow_array::Int32Array;

    use super::*;

    /// An append table (`id INT`, `s STRING`) with one Parquet data file holding ids 0..10.
    fn table_with_file(dir: &Path) -> (Arc<Table>, String, DataFileDesc) {
        std::fs::create_dir_all(dir.join("schema")).unwrap();
        std::fs::write(
            dir.join("schema/schema-0"),
            r#"{"version":3,"id":0,"fields":[{"id":0,"name":"id","type":"INT"},{"id":1,"name":"s","type":"STRING"}],
               "highestFieldId":1,"partitionKeys":[],"primaryKeys":[],"options":{}}"#,
        )
        .unwrap();
        let bucket = dir.join("bucket-0");
        std::fs::create_dir_all(&bucket).unwrap();
        // Written with the old name `id` only: `s` was added later and reads as NULL.
        let ids: ArrayRef = Arc::new(Int32Array::from_iter_values(0..10));
        let batch = RecordBatch::try_from_iter([("id", ids)]).unwrap();
        let file = std::fs::File::create(bucket.join("data-x-0.parquet")).unwrap();
        let mut writer = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let desc = DataFileDesc {
            file_name: "data-x-0.parquet".into(),
            level: 0,
            row_count: 10,
            file_size: 0,
            min_sequence_number: 100,
            max_sequence_number: 109,
            schema_id: 0,
            delete_row_count: Some(0),
            min_key: Vec::new(),
            max_key: Vec::new(),
        };
        let table = Arc::new(Table::open(dir).unwrap());
        (table, bucket.to_string_lossy().into_owned(), desc)
    }

    /// A 32-bit deletion vector record (after a version byte) deleting `positions` (< 2^16).
    fn dv_index(dir: &Path, positions: &[u16]) -> DeletionFileDesc {
        let mut body = crate::deletion_vector::BITMAP32_MAGIC
            .to_be_bytes()
            .to_vec();
        body.extend_from_slice(&[0x3A, 0x30, 0, 0, 1, 0, 0, 0]); // cookie 12346, one container
        body.extend_from_slice(&0u16.to_le_bytes()); // key 0
        body.extend_from_slice(&(positions.len() as u16 - 1).to_le_bytes());
        body.extend_from_slice(&16u32.to_le_bytes()); // container offset
        for p in positions {
            body.extend_from_slice(&p.to_le_bytes());
        }
        let mut file = vec![1u8];
        file.extend_from_slice(&(body.len() as i32).to_be_bytes());
        file.extend_from_slice(&body);
        file.extend_from_slice(&[0, 0, 0, 0]);
        let path = dir.join("index-dv-0");
        std::fs::write(&path, &file).unwrap();
        DeletionFileDesc {
            path: path.to_string_lossy().into_owned(),
            offset: 1,
            length: body.len() as i64,
            cardinality: Some(positions.len() as i64),
        }
    }

    #[test]
    fn read_file_maps_by_id_applies_deletion_vectors_and_adds_sequence_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let (table, bucket, file) = table_with_file(dir.path());
        let dv = dv_index(dir.path(), &[0, 3, 4, 9]);
        let options = FileReadOptions {
            with_sequence_number: true,
            batch_size: 4,
        };
        let batches: Vec<RecordBatch> = read_file(&table, &bucket, &file, Some(&dv), &options)
            .unwrap()
            .map(|b| b.unwrap())
            .collect();
        assert!(batches
            .iter()
            .all(|b| b.num_rows() > 0 && b.num_rows() <= 4));
        let mut ids = Vec::new();
        let mut seqs = Vec::new();
        for b in &batches {
            assert_eq!(b.schema().field(0).name(), SEQUENCE_NUMBER_COLUMN);
            assert_eq!(b.schema().field(1).name(), "_row_kind");
            assert!(b
                .column(1)
                .as_primitive::<arrow_array::types::Int8Type>()
                .values()
                .iter()
                .all(|k| *k == 0));
            assert_eq!(b.column(3).null_count(), b.num_rows());
            ids.extend(
                b.column(2)
                    .as_primitive::<Int32Type>()
                    .values()
                    .iter()
                    .copied(),
            );
            seqs.extend(
                b.column(0)
                    .as_primitive::<Int64Type>()
                    .values()
                    .iter()
                    .copied(),
            );
        }
        assert_eq!(ids, vec![1, 2, 5, 6, 7, 8]);
        assert_eq!(seqs, vec![101, 102, 105, 106, 107, 108]);
        // Without options: no sequence number column.
        let plain = read_file(&table, &bucket, &file, None, &FileReadOptions::default()).unwrap();
        assert_eq!(plain.schema().fields().len(), 3);
        assert_eq!(plain.map(|b| b.unwrap().num_rows()).sum::<usize>(), 10);
    }

    #[test]
    fn deletion_vector_beyond_the_file_is_an_error_naming_both_files() {
        let dir = tempfile::tempdir().unwrap();
        let (table, bucket, file) = table_with_file(dir.path());
        let dv = dv_index(dir.path(), &[2, 10]);
        let err = read_file(
            &table,
            &bucket,
            &file,
            Some(&dv),
            &FileReadOptions::default(),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            err.contains("index-dv-0") && err.contains("data-x-0.parquet"),
            "{err}"
        );
        // A file shorter than its manifest entry says: caught when the file ends.
        let lying = DataFileDesc {
            row_count: 11,
            ..file
        };
        let results: Vec<_> = read_file(
            &table,
            &bucket,
            &lying,
            Some(&dv),
            &FileReadOptions::default(),
        )
        .unwrap()
        .collect();
        let last = results.last().unwrap().as_ref().unwrap_err().to_string();
        assert!(
            last.contains("data-x-0.parquet") && last.contains("manifest entry records 11"),
            "{last}"
        );
    }

    #[test]
    fn unknown_formats_are_refused_by_name() {
        let path = Path::new("/t/bucket-0/data-1.csv");
        let err = FileFormat::of("data-1.csv", path).unwrap_err().to_string();
        assert!(err.contains("data-1.csv"));
        assert_eq!(
            FileFormat::of("data-1.zstd.orc", path).unwrap(),
            FileFormat::Orc
        );
        assert_eq!(
            FileFormat::of("changelog-1.AVRO", path).unwrap(),
            FileFormat::Avro
        );
    }
}
