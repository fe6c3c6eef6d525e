//! One data or changelog file read into batches of the table's latest schema (see [`read_file`]).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BooleanArray, Int64Array, Int8Array, RecordBatch, RecordBatchOptions,
};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};

use super::{
    cast, FileColumn, FileFormat, FileReadOptions, RawBatches, SEQUENCE_NUMBER_COLUMN,
    VALUE_KIND_COLUMN,
};
use crate::deletion_vector::DeletionVector;
use crate::error::{Error, ErrorKind, Result};
use crate::line::LineRules;
use crate::read::ahead::{Ahead, AheadPool};
use crate::row_kind::RowKind;
use crate::schema::{DataType, TypeKind};
use crate::split::{DataFileDesc, DeletionFileDesc};
use crate::table::Table;
use crate::types::{arrow_field, row_kind_field};

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
    /// The line rules of the release under test (schema-evolution casts).
    rules: &'static LineRules,
    /// Top-level strings and binaries as views ([`Table::string_views`]).
    views: bool,
    deletion: Option<DeletionVector>,
    /// `$row_tracking`'s columns, after the table's ([`Table::row_tracking_columns`]).
    row_tracking: Option<RowTracking>,
    /// Rows of the file read so far (the position of the next row).
    position: u64,
    /// The raw batches end with a BOOLEAN column marking the lines that give no row (a text format's).
    dropped_lines: bool,
    /// `_ROW_COUNT` of the file's manifest entry: the file must hold exactly this many rows (Paimon writes
    /// it exactly; a file with more or fewer rows is damaged or not the file the manifest describes).
    expected_rows: u64,
    /// The file must hold exactly `expected_rows` rows. False for the text formats: a line is a row, and a
    /// value with a line break is read as two lines (as the released reader reads it), so the count can
    /// exceed the manifest's.
    exact_rows: bool,
    done: bool,
}

/// Where `$row_tracking`'s two columns come from ([`Table::row_tracking_columns`]), as
/// `DataFileRecordReader` fills them: the file's own `_ROW_ID` and `_SEQUENCE_NUMBER` where it stores a
/// value, else `first_row_id + position` and the file's `max_sequence_number`.
#[derive(Clone, Copy, Debug)]
struct RowTracking {
    /// Requested columns holding the stored values (none for a `.blob` file, which holds one column).
    stored: Option<(usize, usize)>,
    /// `_FIRST_ROW_ID` of the file.
    first_row_id: Option<i64>,
    /// `_MAX_SEQUENCE_NUMBER` of the file.
    max_sequence_number: i64,
}

#[derive(Clone, Copy, Debug)]
enum SequenceSource {
    /// Requested column `index` holds it.
    Column(usize),
    /// Append file: `base + position`.
    Positional(i64),
    /// Every record the same: an APPEND file's snapshot id under `sequence.snapshot-ordering`.
    Constant(i64),
}

/// The sequence number every record of `file` takes in a merge read under `sequence.snapshot-ordering`
/// (`KeyValueFileReaderFactory`, 2.0: an APPEND file's `_MIN_SEQUENCE_NUMBER`, where the commit stamped its
/// snapshot id); `None` when the stored ones are read (the rule is off for the release, the read needs no
/// sequence, or the file was written by compaction, whose records already carry their snapshot ids).
///
/// Errors: [`Error::Decode`] naming the file when its manifest entry has no `_FILE_SOURCE`, which the
/// released reader refuses too ("sequence.snapshot-ordering requires data files with fileSource").
fn snapshot_ordered_sequence(
    table: &Table,
    file: &DataFileDesc,
    path: &Path,
    options: &FileReadOptions,
) -> Result<Option<i64>> {
    if !options.with_sequence_number
        || !table.release().rules().snapshot_sequence_ordering
        || !table.options().snapshot_sequence_ordering
    {
        return Ok(None);
    }
    match file.file_source {
        Some(crate::manifest::FileSource::Append) => Ok(Some(file.min_sequence_number)),
        Some(crate::manifest::FileSource::Compact) => Ok(None),
        None => Err(Error::Decode {
            path: path.to_path_buf(),
            reason: "sequence.snapshot-ordering orders records by their file's source, and the \
                     manifest entry has no _FILE_SOURCE"
                .into(),
        }),
    }
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
    let views = table.string_views();
    out.extend(fields.iter().map(|f| arrow_field(f, views)));
    if table.row_tracking_columns() {
        out.extend(crate::system::row_tracking_fields());
    }
    Schema::new(out)
}

/// Opens one data or changelog file of `table` for reading, lazily.
///
/// * `bucket_path`: the bucket directory ([`Split::bucket_path`]); the file is `bucket_path/file.file_name`,
///   or its external path ([`DataFileDesc::path`]).
/// * `deletion`: the file's deletion vector, if any; rows at deleted positions are dropped.
///
/// Batches have [`file_read_schema`]`(table, options.with_sequence_number)`: `[_SEQUENCE_NUMBER]`,
/// `_row_kind` (the stored `_VALUE_KIND` of primary-key files, 0 = `+I` for append files), then the table's
/// latest-schema columns mapped by field id from the file's schema, missing ones NULL, changed types cast
/// per Paimon's rules, then for `$row_tracking` ([`Table::row_tracking_columns`]) `_ROW_ID` and
/// `_SEQUENCE_NUMBER` (stored, else the file's first row id plus the row's position, and its max sequence
/// number).
///
/// Errors (here or from the iterator), each naming the file: [`Error::Unsupported`] naming the schema file
/// for a table this reader refuses ([`Table::check_readable`]: `blob-view-field` columns, …), and naming
/// the data file for an external path on a non-local file system, an unknown or 2.0 format
/// (`.managed.blob`, `lance`, …, and `.row` before 2.0.0), a `.blob` placeholder row, a shredded VARIANT
/// before 1.3.0, a shared-shredding MAP before 2.0.0, a BLOB view or a BLOB descriptor of a non-local file,
/// or a type change Paimon cannot cast; [`Error::Io`] when the file cannot be opened;
/// [`Error::Decode`] when its bytes are not what its schema says (a primary-key file without `_VALUE_KIND`,
/// a NULL or invalid row kind, a corrupt page/stripe/block); [`Error::DeletionVector`] naming the index and
/// data file for a bad deletion vector or one deleting a position beyond the file's rows; schema errors when
/// `schema_id` is unknown.
pub fn read_file(
    table: &Arc<Table>,
    bucket_path: &str,
    file: &DataFileDesc,
    deletion: Option<&DeletionFileDesc>,
    options: &FileReadOptions,
) -> Result<FileBatches> {
    read_file_with(
        table,
        bucket_path,
        file,
        deletion,
        options,
        SplitContext::default(),
    )
}

/// What [`read_file_with`] knows of the split a file is read for, beyond the table.
#[derive(Clone, Copy, Default)]
pub(crate) struct SplitContext<'a> {
    /// Decode a Parquet or ORC file's columns in two halves side by side on this pool.
    pub(crate) ahead: Option<&'a AheadPool>,
    /// Field ids read as NULL whether or not the file holds them (the Parquet reader of 1.0.0 to 1.1.1
    /// keeps, per split read, the columns one file lacked:
    /// [`crate::line::LineRules::parquet_missing_columns_sticky`]).
    pub(crate) forced_missing: Option<&'a HashSet<i32>>,
    /// The split's partition values as [`crate::split::Split::partition`] renders them, one per partition
    /// key: the text formats fill partition columns from them, as `FormatReaderMapping` fills them from the
    /// split's partition (`PartitionUtils.trimPartitionFields`).
    pub(crate) partition: Option<&'a [Option<String>]>,
}

/// [`read_file`], with the columns of a Parquet or ORC file decoded by two readers side by side when
/// `ahead` is given: the columns are split into two halves of about equal decoding work, each half read by
/// its own format reader, the second decoded ahead on the pool ([`crate::read::ahead`]), and each pair of
/// batches put back together in column order. The batches are those of [`read_file`]; the parallelism is
/// inside one file (for splits of a single file, where there is nothing else to overlap). Avro files,
/// whose records are decoded whole whatever the projection, and files of one column are read as
/// [`read_file`] reads them.
///
/// `split`: what the split being read adds ([`SplitContext`]).
///
/// Errors: as [`read_file`]; [`Error::Decode`] naming the file when the two halves disagree on a batch's
/// row count.
pub(crate) fn read_file_with(
    table: &Arc<Table>,
    bucket_path: &str,
    file: &DataFileDesc,
    deletion: Option<&DeletionFileDesc>,
    options: &FileReadOptions,
    split: SplitContext<'_>,
) -> Result<FileBatches> {
    let SplitContext {
        ahead,
        forced_missing,
        partition,
    } = split;
    table.check_readable()?;
    let path = file
        .path(bucket_path)
        .map_err(|reason| Error::Unsupported {
            path: file.display_path(bucket_path),
            reason,
        })?;
    let format = FileFormat::of(&file.file_name, &path)?;
    if let Some(first) = format.first_release().filter(|&r| table.release() < r) {
        return Err(Error::Unsupported {
            path,
            reason: format!(
                "the `{}` file format is read as Paimon {first} and later; {} has no reader for it, or one this reader does not model",
                crate::options::OptionName::as_str(&format),
                table.release()
            ),
        });
    }
    let latest = table.schema();
    let file_schema = table.schema_by_id(file.schema_id)?;
    let primary_keyed = !latest.primary_keys.is_empty();
    // A data-evolution file holds only its `_WRITE_COLS` (`schema.project(writeCols)`): the other columns
    // are NULL on the releases that know it; earlier releases look for every column of the file's schema.
    let written = |f: &crate::schema::DataField| match &file.write_cols {
        Some(cols) if table.release().rules().data_evolution.known() => cols.contains(&f.name),
        _ => true,
    };
    let by_id: HashMap<i32, &crate::schema::DataField> = file_schema
        .fields
        .iter()
        .filter(|f| written(f) && !forced_missing.is_some_and(|m| m.contains(&f.id)))
        .map(|f| (f.id, f))
        .collect();

    let views = table.string_views();
    let variant_shredding = table.release().rules().variant_shredding;
    let map_shredding = table.release() >= crate::PaimonRelease::V2_0_0;
    let mut columns: Vec<FileColumn> = Vec::new();
    let mut sequence = None;
    let mut value_kind = None;
    if primary_keyed {
        if let Some(snapshot) = snapshot_ordered_sequence(table, file, &path, options)? {
            sequence = Some(SequenceSource::Constant(snapshot));
        } else if options.with_sequence_number {
            sequence = Some(SequenceSource::Column(columns.len()));
            columns.push(FileColumn {
                name: SEQUENCE_NUMBER_COLUMN.into(),
                id: i32::MAX - 1,
                data_type: DataType {
                    kind: TypeKind::BigInt,
                    nullable: false,
                },
                views,
                variant_shredding,
                map_shredding,
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
            views,
            variant_shredding,
            map_shredding,
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
                    views,
                    variant_shredding,
                    map_shredding,
                });
            }
            None => sources.push(Source::Missing),
        }
    }
    let row_tracking = table.row_tracking_columns().then(|| {
        let stored = (format != FileFormat::Blob).then(|| {
            let at = columns.len();
            for (name, id) in [crate::system::ROW_ID, crate::system::SEQUENCE_NUMBER] {
                columns.push(FileColumn {
                    name: name.into(),
                    id,
                    data_type: DataType {
                        kind: TypeKind::BigInt,
                        nullable: true,
                    },
                    views,
                    variant_shredding,
                    map_shredding,
                });
            }
            (at, at + 1)
        });
        // 1.4.x numbers a `.blob` file's rows from 1 ([`crate::line::FieldBunches::blob_positions_from_one`]).
        let blob_shift = format == FileFormat::Blob
            && table
                .release()
                .rules()
                .field_bunches
                .blob_positions_from_one();
        RowTracking {
            stored,
            first_row_id: file.first_row_id.map(|f| f + i64::from(blob_shift)),
            max_sequence_number: file.max_sequence_number,
        }
    });
    let deletion = deletion
        .map(|d| DeletionVector::read(d, &path, file.row_count))
        .transpose()?;
    let batch_size = options.batch_size.max(1);
    let raw = match ahead {
        Some(pool)
            if columns.len() >= 2 && matches!(format, FileFormat::Parquet | FileFormat::Orc) =>
        {
            ColumnHalves::open(format, &path, &columns, batch_size, pool)?
        }
        _ if format == FileFormat::Blob => {
            let descriptors = table.blob_as_descriptor();
            if descriptors {
                super::blob::check_descriptor_location(file, &path)?;
            }
            super::blob::open(&path, &columns, batch_size, descriptors)?
        }
        _ if format == FileFormat::Row || format.is_text() => {
            let keys = file_schema.trimmed_primary_keys();
            let thin = file_schema
                .option("data-file.thin-mode")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
            // `RawFileSplitRead` (a primary-key table's files read without merging, as a batch scan with
            // deletion vectors reads them) takes the file's columns to be the table's (`TableSchema::fields`),
            // not the key-value layout the file holds, and gives every row +I: a CSV line's fields are then
            // found at the table columns' positions, as the released reader finds them.
            let raw_csv = format == FileFormat::Csv && primary_keyed && options.raw_table_read;
            let physical = super::row_format::physical_columns(
                file,
                &file_schema.fields,
                (primary_keyed && !raw_csv).then_some((keys.as_slice(), thin)),
                &columns,
            );
            if format == FileFormat::Row {
                let batches = format.open(&path, &physical, batch_size)?;
                super::row_format::project(batches, &physical, &columns)
            } else {
                super::text::TextRead {
                    format,
                    options: &latest.options,
                    file_columns: &physical,
                    rules: table.release().rules(),
                    partition_keys: &latest.partition_keys,
                    partition_values: partition,
                    raw_insert: raw_csv,
                }
                .open(&path, &columns, batch_size)?
            }
        }
        _ => format.open(&path, &columns, batch_size)?,
    };
    // BLOB values held in the data file itself (descriptors of `.managed.blob` packs, or inline).
    // A `row` file holds the payloads themselves: only `blob-as-descriptor` changes them (into an error).
    let descriptors = table.blob_as_descriptor();
    let inline = format == FileFormat::Row;
    let raw = if format != FileFormat::Blob
        && !format.is_text()
        && (descriptors || !inline)
        && columns.iter().any(|c| c.data_type.contains_blob())
    {
        let views = !table.blob_view_fields().is_empty();
        super::blob_ref::resolve(raw, &columns, descriptors, inline, views, &path)
    } else {
        raw
    };
    // A NOT NULL column a data-evolution file does not hold is NULL here, as the released reader gives it;
    // the merge of its row-id group takes that column from the file or bunch that holds it.
    let mut schema = file_read_schema(table, options.with_sequence_number);
    if file.write_cols.is_some() && sources.iter().any(|s| matches!(s, Source::Missing)) {
        // After `[_SEQUENCE_NUMBER]` and `_row_kind`.
        let first = usize::from(options.with_sequence_number) + 1;
        let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
        for (field, source) in fields[first..].iter_mut().zip(&sources) {
            if matches!(source, Source::Missing) {
                field.set_nullable(true);
            }
        }
        schema = Schema::new(fields);
    }
    Ok(FileBatches {
        schema: Arc::new(schema),
        targets: latest.fields.iter().map(|f| f.data_type.clone()).collect(),
        rules: table.release().rules(),
        views,
        path,
        raw,
        value_kind,
        sequence,
        sources,
        deletion,
        row_tracking,
        position: 0,
        expected_rows: u64::try_from(file.row_count).unwrap_or(0),
        exact_rows: !format.is_text(),
        dropped_lines: format.is_text(),
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
    fn convert(&mut self, rows: usize, mut raw: Vec<ArrayRef>) -> Result<Option<RecordBatch>> {
        let start = self.position;
        self.position += rows as u64;
        // A text file's lines that give no row (a dropped malformed line, a JSON `null`) still take a
        // position, as `returnedPosition` counts them: the reader marks them in a last column.
        let dropped = if self.dropped_lines {
            let marks = raw
                .pop()
                .and_then(|m| m.as_any().downcast_ref::<BooleanArray>().cloned());
            Some(
                marks
                    .ok_or_else(|| self.decode_err("a text batch without its line marks".into()))?,
            )
        } else {
            None
        };
        let keep = (self.deletion.is_some()
            || dropped.as_ref().is_some_and(|d| d.true_count() > 0))
        .then(|| {
            BooleanArray::from_iter((0..rows).map(|i| {
                let position = start + i as u64;
                let deleted = self
                    .deletion
                    .as_ref()
                    .is_some_and(|dv| dv.is_deleted(position));
                let dropped = dropped.as_ref().is_some_and(|d| d.value(i));
                Some(!deleted && !dropped)
            }))
        });
        let kept = keep.as_ref().map_or(rows, |k| k.true_count());
        if kept == 0 {
            return Ok(None);
        }
        let select = |array: &ArrayRef| -> Result<ArrayRef> {
            match &keep {
                Some(k) if kept < rows => arrow_select::filter::filter(array, k)
                    .map_err(|e| Error::library(ErrorKind::Decode, &self.path, "", e)),
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
            Some(SequenceSource::Constant(value)) => {
                out.push(Arc::new(Int64Array::from_value(value, kept)));
            }
            None => {}
        }
        match self.value_kind {
            Some(i) => {
                let kinds = select(&raw[i])?;
                let valid = kinds.as_any().downcast_ref::<Int8Array>().is_some_and(|k| {
                    k.null_count() == 0
                        && k.values().iter().all(|v| RowKind::from_byte(*v).is_some())
                });
                if !valid {
                    return Err(self.decode_err(format!(
                        "{VALUE_KIND_COLUMN} has NULL or invalid values (must be 0..=3)"
                    )));
                }
                out.push(kinds);
            }
            None => out.push(Arc::new(Int8Array::from(vec![
                RowKind::Insert.to_byte();
                kept
            ]))),
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
                    cast::cast(&selected, from, target, *id, self.views, self.rules).map_err(
                        |e| {
                            let column = format!("column `{}`", field.name());
                            match e {
                                cast::CastError::Arrow(e) => {
                                    Error::library(ErrorKind::Decode, &self.path, column, e)
                                }
                                e => Error::Decode {
                                    path: self.path.clone(),
                                    reason: format!("{column}: {e}"),
                                },
                            }
                        },
                    )?
                }
            };
            out.push(array);
        }
        if let Some(tracking) = self.row_tracking {
            let kept_positions = || {
                (start..start + rows as u64)
                    .enumerate()
                    .filter(|(i, _)| keep.as_ref().is_none_or(|k| k.value(*i)))
            };
            let stored = |at: Option<usize>| -> Result<Option<ArrayRef>> {
                at.map(|i| select(&raw[i])).transpose()
            };
            let row_ids = stored(tracking.stored.map(|s| s.0))?;
            let row_ids = row_ids
                .as_ref()
                .and_then(|a| a.as_any().downcast_ref::<Int64Array>());
            let mut ids = Vec::with_capacity(kept);
            for (at, (_, position)) in kept_positions().enumerate() {
                ids.push(match (row_ids, tracking.first_row_id) {
                    (Some(a), _) if a.is_valid(at) => a.value(at),
                    (_, Some(first)) => first.wrapping_add(position as i64),
                    (_, None) => return Err(self.decode_err(
                        "`$row_tracking`: the file has no `_FIRST_ROW_ID` and no stored `_ROW_ID`"
                            .into(),
                    )),
                });
            }
            out.push(Arc::new(Int64Array::from(ids)));
            let sequence = stored(tracking.stored.map(|s| s.1))?;
            let sequence = sequence
                .as_ref()
                .and_then(|a| a.as_any().downcast_ref::<Int64Array>());
            let numbers: Int64Array = (0..kept)
                .map(|at| match sequence {
                    Some(a) if a.is_valid(at) => a.value(at),
                    _ => tracking.max_sequence_number,
                })
                .map(Some)
                .collect();
            out.push(Arc::new(numbers));
        }
        let options = RecordBatchOptions::new().with_row_count(Some(kept));
        RecordBatch::try_new_with_options(self.schema.clone(), out, &options)
            .map(Some)
            .map_err(|e| Error::library(ErrorKind::Decode, &self.path, "", e))
    }
}

impl Iterator for FileBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            match self.raw.next() {
                None => {
                    self.done = true;
                    if self.exact_rows && self.position != self.expected_rows {
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
                Some(Ok((rows, _)))
                    if self.exact_rows && self.position + rows as u64 > self.expected_rows =>
                {
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

/// The columns of one file read by two format readers (see [`read_file_with`]): `first` on the caller's
/// thread, `second` decoded ahead on the pool; `order[i]` is where requested column `i` is in the
/// concatenation of the halves.
struct ColumnHalves {
    path: PathBuf,
    first: RawBatches,
    second: Ahead<RawBatches>,
    order: Vec<usize>,
    failed: bool,
}

impl ColumnHalves {
    /// Splits `columns` into two halves of about equal decoding weight and opens a reader of each.
    fn open(
        format: FileFormat,
        path: &Path,
        columns: &[FileColumn],
        batch_size: usize,
        pool: &AheadPool,
    ) -> Result<RawBatches> {
        let (a, b) = halves(columns);
        let pick = |idx: &[usize]| -> Vec<FileColumn> {
            idx.iter().map(|i| columns[*i].clone()).collect()
        };
        let first = format.open(path, &pick(&a), batch_size)?;
        let second = format.open(path, &pick(&b), batch_size)?;
        let mut order = vec![0; columns.len()];
        for (at, i) in a.iter().chain(b.iter()).enumerate() {
            order[*i] = at;
        }
        Ok(Box::new(ColumnHalves {
            path: path.to_path_buf(),
            first,
            second: Ahead::new(second, pool.clone()),
            order,
            failed: false,
        }))
    }
}

/// Relative decoding work of a column: variable-length and nested values cost more than fixed-width ones.
fn decode_weight(t: &DataType) -> u32 {
    match &t.kind {
        TypeKind::Char(_)
        | TypeKind::VarChar(_)
        | TypeKind::Binary(_)
        | TypeKind::VarBinary(_)
        | TypeKind::Variant
        | TypeKind::Blob => 4,
        TypeKind::Array(_)
        | TypeKind::Vector(..)
        | TypeKind::Multiset(_)
        | TypeKind::Map(..)
        | TypeKind::Row(_) => 6,
        _ => 1,
    }
}

/// Positions of `columns` in two non-empty halves (each in request order) of about equal
/// [`decode_weight`]: heaviest first, each to the lighter half. Needs at least two columns.
fn halves(columns: &[FileColumn]) -> (Vec<usize>, Vec<usize>) {
    let mut by_weight: Vec<usize> = (0..columns.len()).collect();
    by_weight.sort_by_key(|i| std::cmp::Reverse(decode_weight(&columns[*i].data_type)));
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (mut wa, mut wb) = (0u32, 0u32);
    for i in by_weight {
        let w = decode_weight(&columns[i].data_type);
        if wa <= wb {
            a.push(i);
            wa += w;
        } else {
            b.push(i);
            wb += w;
        }
    }
    a.sort_unstable();
    b.sort_unstable();
    (a, b)
}

impl Iterator for ColumnHalves {
    type Item = Result<(usize, Vec<ArrayRef>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let item = match (self.first.next(), self.second.next()) {
            (None, None) => return None,
            (Some(Err(e)), _) | (_, Some(Err(e))) => Err(e),
            (Some(Ok((rows, mut arrays))), Some(Ok((other_rows, more)))) if rows == other_rows => {
                arrays.extend(more);
                Ok((
                    rows,
                    self.order.iter().map(|at| arrays[*at].clone()).collect(),
                ))
            }
            (first, second) => {
                let rows = |b: &Option<Result<(usize, Vec<ArrayRef>)>>| match b {
                    Some(Ok((n, _))) => n.to_string(),
                    _ => "no".into(),
                };
                Err(Error::Decode {
                    path: self.path.clone(),
                    reason: format!(
                        "two readers of the file's column halves disagree: {} rows against {} rows in \
                         one batch",
                        rows(&first),
                        rows(&second)
                    ),
                })
            }
        };
        if item.is_err() {
            self.failed = true;
        }
        Some(item)
    }
}
