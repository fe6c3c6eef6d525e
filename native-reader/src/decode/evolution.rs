//! One row-id group of a data-evolution split, merged column by column (`DataEvolutionSplitRead`'s union
//! reader, `DataEvolutionFileReader`): see [`crate::evolution`].

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{new_null_array, ArrayRef, BooleanArray, RecordBatch};
use arrow_schema::SchemaRef;

use super::failed_files::FailedFiles;
use super::file::{read_file_with, SplitContext};
use super::FileReadOptions;
use crate::deletion_vector::DeletionVector;
use crate::error::{Error, ErrorKind, Result};
use crate::evolution::ColumnSource;
use crate::line::FieldBunches;
use crate::split::{DataFileDesc, DeletionFileDesc};
use crate::table::Table;

/// The merged rows of one row-id group of data files (more than one file, all spanning the same row ids),
/// in batches of at most `batch_size` rows in [`super::file_read_schema`] (no sequence number column).
///
/// Memory: the group's winning columns are held decoded (one file's worth of rows per column); a group
/// is at most a split.
pub(crate) struct GroupBatches {
    table: Arc<Table>,
    bucket_path: String,
    /// The split's partition values (the text formats fill partition columns from them).
    partition: Vec<Option<String>>,
    files: Vec<DataFileDesc>,
    /// The deletion vector of the group's anchor file ([`crate::evolution::anchor_file`]), whose positions
    /// count from the group's first row: it drops merged rows.
    deletion: Option<DeletionFileDesc>,
    options: FileReadOptions,
    /// What a failed file becomes (refused with `scan.ignore-*-files`: [`FailedFiles::in_row_id_group`]).
    on_failure: FailedFiles,
    merged: Option<RecordBatch>,
    offset: usize,
    failed: bool,
}

impl GroupBatches {
    /// Prepares to read `files` (one row-id group, in split order) of `table`, dropping the rows `deletion`
    /// (the anchor file's deletion vector) deletes; nothing is read until the first batch is asked for.
    pub(crate) fn new(
        table: Arc<Table>,
        bucket_path: String,
        partition: Vec<Option<String>>,
        files: Vec<DataFileDesc>,
        deletion: Option<DeletionFileDesc>,
        options: FileReadOptions,
        on_failure: FailedFiles,
    ) -> Self {
        GroupBatches {
            table,
            bucket_path,
            partition,
            files,
            deletion,
            options,
            on_failure,
            merged: None,
            offset: 0,
            failed: false,
        }
    }

    /// Reads every file that supplies a column and puts the columns together.
    ///
    /// Errors: those of [`crate::evolution::merge_order`], [`crate::evolution::column_sources`] and
    /// [`read_file_with`]; [`Error::Decode`] naming a file whose rows are not the group's row count.
    fn merge(&self) -> Result<RecordBatch> {
        // 2.0: the `.blob` files of each BLOB column are read together, with fallback on placeholders
        // (`BlobFileBunch`); 1.4 chains them (`SpecialFieldBunch`); both chain vector-store files. Up to 1.3
        // `.blob` files are merged as any other file (and vector-store files refused when planning).
        let bunching = self.table.release().rules().field_bunches;
        let (mut plain, mut blobs, mut vectors) = (Vec::new(), Vec::new(), Vec::new());
        for f in &self.files {
            if bunching == FieldBunches::None {
                plain.push(f);
            } else if super::blob_bunch::is_blob_file(f) {
                blobs.push(f);
            } else if super::vector_bunch::is_vector_store_file(f) {
                vectors.push(f);
            } else {
                plain.push(f);
            }
        }
        if plain.is_empty() {
            return Err(Error::Unsupported {
                path: PathBuf::from(&self.bucket_path),
                reason: "a row-id group of `.blob` or vector-store files only".into(),
            });
        }
        let bunches = super::blob_bunch::by_field(&self.table, &blobs, &self.bucket_path)?;
        let order = crate::evolution::merge_order(&plain, &self.bucket_path)?;
        let ordered: Vec<&DataFileDesc> = order.iter().map(|&i| plain[i]).collect();
        let vector_bunches = super::vector_bunch::bunches(
            &self.table,
            &vectors,
            Some(ordered[0].row_count),
            &self.bucket_path,
        )?;
        let blob_fields: HashSet<i32> = bunches.keys().copied().collect();
        let vector_fields: Vec<HashSet<i32>> =
            vector_bunches.iter().map(|b| b.field_ids.clone()).collect();
        let sources = crate::evolution::column_sources(
            &self.table,
            &ordered,
            &blob_fields,
            &vector_fields,
            &self.bucket_path,
        )?;
        let rows = usize::try_from(ordered[0].row_count).unwrap_or(0);
        let group_range = crate::evolution::RowIdRange::range(ordered[0]).map_err(|reason| {
            Error::Unsupported {
                path: PathBuf::from(&self.bucket_path),
                reason,
            }
        })?;
        // `$row_tracking`'s columns: from the newest file that is not a `.blob` file (its `DataBunch` comes
        // first in `splitFieldBunches`, and every bunch's read type holds them).
        let tracking = if self.table.row_tracking_columns() {
            let at = ordered.iter().position(|f| !f.file_name.ends_with(".blob"));
            Some(at.ok_or_else(|| Error::Unsupported {
                path: PathBuf::from(&self.bucket_path),
                reason: "`$row_tracking` of a row-id group of `.blob` files only".into(),
            })?)
        } else {
            None
        };
        let from_files = sources.iter().filter_map(|s| match s {
            ColumnSource::File(at) => Some(*at),
            _ => None,
        });
        let mut decoded: Vec<Option<RecordBatch>> = vec![None; ordered.len()];
        for source in from_files.chain(tracking) {
            if decoded[source].is_none() {
                decoded[source] = Some(self.read_rows(&[ordered[source]], group_range)?);
            }
        }
        let mut vector_decoded: Vec<Option<RecordBatch>> = vec![None; vector_bunches.len()];
        for source in &sources {
            if let ColumnSource::VectorBunch(at) = *source {
                if vector_decoded[at].is_none() {
                    let files = &vector_bunches[at].files;
                    vector_decoded[at] = Some(self.read_rows(files, group_range)?);
                }
            }
        }
        let schema: SchemaRef = Arc::new(super::file_read_schema(&self.table, false));
        // `_row_kind`: every row of an append table is `+I`.
        let mut columns: Vec<ArrayRef> =
            vec![Arc::new(arrow_array::Int8Array::from(vec![0i8; rows]))];
        for (i, source) in sources.iter().enumerate() {
            let field = schema.field(i + 1);
            columns.push(match source {
                ColumnSource::File(at) => match &decoded[*at] {
                    Some(batch) => batch.column(i + 1).clone(),
                    None => new_null_array(field.data_type(), rows),
                },
                ColumnSource::BlobBunch(id) if bunching == FieldBunches::Chains => {
                    let files = bunches.get(id).map_or(&[][..], Vec::as_slice);
                    let chained =
                        super::vector_bunch::chain(files, Some(ordered[0].row_count), "blob")
                            .map_err(|reason| Error::Unsupported {
                                path: PathBuf::from(&self.bucket_path),
                                reason,
                            })?;
                    self.read_rows(&chained, group_range)?.column(i + 1).clone()
                }
                ColumnSource::BlobBunch(id) => {
                    let files = bunches.get(id).map_or(&[][..], Vec::as_slice);
                    let values = super::blob_bunch::read_bunch(
                        files,
                        group_range,
                        &self.bucket_path,
                        self.table.blob_as_descriptor(),
                    )?;
                    arrow_cast::cast(&values, field.data_type()).map_err(|e| {
                        Error::library(
                            ErrorKind::Decode,
                            PathBuf::from(&self.bucket_path),
                            field.name(),
                            e,
                        )
                    })?
                }
                ColumnSource::VectorBunch(at) => match &vector_decoded[*at] {
                    Some(batch) => batch.column(i + 1).clone(),
                    None => new_null_array(field.data_type(), rows),
                },
                ColumnSource::Null => new_null_array(field.data_type(), rows),
            });
        }
        if let Some(batch) = tracking.and_then(|t| decoded[t].as_ref()) {
            let n = batch.num_columns();
            columns.extend([batch.column(n - 2).clone(), batch.column(n - 1).clone()]);
        }
        let merged = RecordBatch::try_new(schema, columns).map_err(|e| {
            Error::library(ErrorKind::Decode, PathBuf::from(&self.bucket_path), "", e)
        })?;
        let Some(deletion) = &self.deletion else {
            return Ok(merged);
        };
        // `ApplyDeletionVectorReader` on every file of the group, all spanning the anchor's rows.
        let anchor = crate::evolution::anchor_file(&ordered).unwrap_or(ordered[0]);
        let dv = DeletionVector::read(deletion, &self.path(anchor), ordered[0].row_count)?;
        let keep = BooleanArray::from_iter((0..rows as u64).map(|p| Some(!dv.is_deleted(p))));
        arrow_select::filter::filter_record_batch(&merged, &keep)
            .map_err(|e| Error::library(ErrorKind::Decode, PathBuf::from(&self.bucket_path), "", e))
    }

    /// `files` (one data file, or a vector-store bunch's chain) read one after another, whole, as one batch
    /// in [`super::file_read_schema`].
    ///
    /// Errors: those of [`read_file_with`]; [`Error::Decode`] naming the first file when the rows read are
    /// not those of the group `(first, last)` (`createUnionReader`: "All files in a field merge split should
    /// have the same row count" and "the same first row id").
    fn read_rows(&self, files: &[&DataFileDesc], (first, last): (i64, i64)) -> Result<RecordBatch> {
        let mut batches = Vec::new();
        for file in files {
            let refuse = |e| self.on_failure.in_row_id_group(e, file, &self.bucket_path);
            let read = read_file_with(
                &self.table,
                &self.bucket_path,
                file,
                None,
                &self.options,
                SplitContext {
                    partition: Some(&self.partition),
                    ..SplitContext::default()
                },
            )
            .map_err(refuse)?;
            for batch in read {
                batches.push(batch.map_err(refuse)?);
            }
        }
        let at = self.path(files[0]);
        // The files' own schema: a NOT NULL column a file does not hold is nullable there.
        let schema = match batches.first() {
            Some(b) => b.schema(),
            None => Arc::new(super::file_read_schema(&self.table, false)),
        };
        let batch = arrow_select::concat::concat_batches(&schema, &batches)
            .map_err(|e| Error::library(ErrorKind::Decode, at.clone(), "", e))?;
        let rows = last - first + 1;
        let starts = files[0].first_row_id;
        if batch.num_rows() as i64 != rows || starts != Some(first) {
            let (n, starts) = (batch.num_rows(), starts.unwrap_or_default());
            return Err(Error::Decode {
                path: at,
                reason: format!(
                    "{n} rows from row id {starts} (with the {} file(s) chained to it), but its row-id group \
                     spans {rows} rows from row id {first}",
                    files.len() - 1
                ),
            });
        }
        Ok(batch)
    }

    fn path(&self, file: &DataFileDesc) -> PathBuf {
        file.display_path(&self.bucket_path)
    }
}

impl Iterator for GroupBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Result<RecordBatch>> {
        if self.failed {
            return None;
        }
        if self.merged.is_none() {
            match self.merge() {
                Ok(b) => self.merged = Some(b),
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
        let merged = self.merged.as_ref()?;
        if self.offset >= merged.num_rows() {
            return None;
        }
        let len = self
            .options
            .batch_size
            .max(1)
            .min(merged.num_rows() - self.offset);
        let batch = merged.slice(self.offset, len);
        self.offset += len;
        Some(Ok(batch))
    }
}
