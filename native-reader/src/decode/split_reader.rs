//! A split read without merging, file after file (see [`SplitReader`]).

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use super::evolution::GroupBatches;
use super::failed_files::FailedFiles;
use super::file::{read_file_with, SplitContext};
use super::{FileBatches, FileReadOptions};
use crate::error::{Error, ErrorKind, Result};
use crate::line::DataEvolution;
use crate::read::ahead::{Ahead, AheadPool};
use crate::split::{DataFileDesc, DeletionFileDesc, Split};
use crate::table::Table;

/// Reads one split without merging, lazily: an iterator of record batches in the read schema
/// ([`crate::types::read_schema`]: `_row_kind` then the table's columns, then `_ROW_ID` and
/// `_SEQUENCE_NUMBER` for `$row_tracking`, [`crate::system::row_tracking_fields`]; `_SEQUENCE_NUMBER`
/// after `_row_kind` for `$audit_log` with `table-read.sequence-number.enabled`,
/// [`crate::system::audit_read_schema`]).
///
/// Files are read one after another with [`super::read_file`] (deletion vectors applied per file); errors
/// are reported per item and name the file; after the first error the iterator ends. Decoding ahead
/// ([`SplitReader::with_ahead`]) changes only when and where the batches are decoded, not which or in what
/// order.
pub struct SplitReader {
    table: Arc<Table>,
    split: Split,
    schema: SchemaRef,
    options: FileReadOptions,
    /// What is read one after another: each a file's index in `split.data_files`, or (data evolution) the
    /// indexes of one row-id group of more than one file, merged ([`super::evolution::GroupBatches`]).
    units: Vec<Vec<usize>>,
    next_unit: usize,
    /// Per schema id, the columns earlier Parquet files of the split lacked, on releases whose reader
    /// remembers them ([`crate::line::LineRules::parquet_missing_columns_sticky`]).
    sticky_missing: HashMap<i64, HashSet<i32>>,
    /// The file being read, then (decoding ahead) the next ones, opened and decoded on the pool.
    current: VecDeque<Box<dyn Iterator<Item = Result<RecordBatch>> + Send>>,
    /// Decode ahead on this pool ([`crate::read::ahead`]): the next [`AHEAD_FILES`] files at once.
    ahead: Option<AheadPool>,
    /// `split.partition`, shared by the files' readers.
    partition: Arc<[Option<String>]>,
    /// What a file that fails to read becomes (`scan.ignore-lost-files`, `scan.ignore-corrupt-files`).
    on_failure: FailedFiles,
    failed: bool,
}

/// Files of a split decoded at once when decoding ahead (the one being read included).
const AHEAD_FILES: usize = 2;

/// One file of a split, opened by its first step (so that decoding ahead opens it on the pool too).
struct LazyFile {
    table: Arc<Table>,
    bucket_path: String,
    file: DataFileDesc,
    deletion: Option<DeletionFileDesc>,
    options: FileReadOptions,
    /// Decode the file's columns in two halves side by side on this pool ([`read_file_with`]).
    columns_ahead: Option<AheadPool>,
    /// Field ids read as NULL ([`crate::line::LineRules::parquet_missing_columns_sticky`]).
    forced_missing: Option<HashSet<i32>>,
    /// The split's partition ([`crate::split::Split::partition`]).
    partition: Arc<[Option<String>]>,
    /// What the file becomes when it fails to read.
    on_failure: FailedFiles,
    open: Option<FileBatches>,
    failed: bool,
}

impl Iterator for LazyFile {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Result<RecordBatch>> {
        if self.failed {
            return None;
        }
        if self.open.is_none() {
            let open = || {
                read_file_with(
                    &self.table,
                    &self.bucket_path,
                    &self.file,
                    self.deletion.as_ref(),
                    &self.options,
                    SplitContext {
                        ahead: self.columns_ahead.as_ref(),
                        forced_missing: self.forced_missing.as_ref(),
                        partition: Some(&self.partition),
                    },
                )
            };
            match self.on_failure.open(&self.file, &self.bucket_path, open) {
                Ok(Some(f)) => self.open = Some(f),
                // Read as empty (`DataFileRecordReader` with a null reader).
                Ok(None) => {
                    self.failed = true;
                    return None;
                }
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
        let open = self.open.as_mut()?;
        match open.next() {
            Some(Err(e)) => {
                self.failed = true;
                Some(Err(self.on_failure.after_open(e, open.path())))
            }
            other => other,
        }
    }
}

impl SplitReader {
    /// Prepares to read `split` of `table` in batches of at most `batch_size` rows.
    ///
    /// Errors: [`Error::Decode`] naming the bucket directory when `deletion_files` is neither empty nor one
    /// entry per data file.
    pub fn new(table: Arc<Table>, split: &Split, batch_size: usize) -> Result<SplitReader> {
        Self::with_ahead(table, split, batch_size, None)
    }

    /// [`SplitReader::new`], decoding up to [`AHEAD_FILES`] files ahead on `ahead`'s threads when given
    /// (the same batches in the same order; see [`crate::read::ahead`]).
    ///
    /// Errors: as [`SplitReader::new`].
    pub fn with_ahead(
        table: Arc<Table>,
        split: &Split,
        batch_size: usize,
        ahead: Option<AheadPool>,
    ) -> Result<SplitReader> {
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
        let mut schema = crate::types::read_schema_as(&table.schema().fields, table.string_views());
        if table.row_tracking_columns() || table.data_evolution() {
            let mut fields: Vec<_> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
            if table.data_evolution() {
                // A file of some columns alone, read by itself, has NULL in the NOT NULL columns it does
                // not hold: 1.4 returns them so (2.0 fails on them, and so does the merge of a group).
                for field in fields.iter_mut().skip(1) {
                    field.set_nullable(true);
                }
            }
            if table.row_tracking_columns() {
                fields.extend(crate::system::row_tracking_fields());
            }
            schema = arrow_schema::Schema::new(fields);
        }
        let with_sequence_number = crate::system::audit_sequence_number(&table);
        let schema = Arc::new(crate::system::audit_read_schema(&table, schema));
        let on_failure = FailedFiles::of(&table)?;
        let units = if table.data_evolution() {
            data_evolution_units(split, table.release().rules().data_evolution)?
        } else {
            (0..split.data_files.len()).map(|i| vec![i]).collect()
        };
        Ok(SplitReader {
            table,
            split: split.clone(),
            schema,
            options: FileReadOptions {
                with_sequence_number,
                batch_size: batch_size.max(1),
                raw_table_read: !split.is_streaming,
            },
            units,
            next_unit: 0,
            sticky_missing: HashMap::new(),
            current: VecDeque::new(),
            ahead,
            partition: split.partition.clone().into(),
            on_failure,
            failed: false,
        })
    }

    /// The schema of every batch: `_row_kind` then the table's columns.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Queues the next file (or row-id group) of the split; false when every one is queued.
    fn queue_next(&mut self) -> bool {
        let Some(unit) = self.units.get(self.next_unit) else {
            return false;
        };
        self.next_unit += 1;
        if unit.len() > 1 {
            let files = unit
                .iter()
                .map(|&i| self.split.data_files[i].clone())
                .collect();
            // The group's deletion vector is its anchor file's (`DataEvolutionSplitRead#readDeletionVector`).
            let refs: Vec<&DataFileDesc> =
                unit.iter().map(|&i| &self.split.data_files[i]).collect();
            let deletion = crate::evolution::anchor_file(&refs).and_then(|anchor| {
                let at = refs.iter().position(|f| std::ptr::eq(*f, anchor))?;
                self.split.deletion_files.get(unit[at]).cloned().flatten()
            });
            let group = GroupBatches::new(
                self.table.clone(),
                self.split.bucket_path.clone(),
                self.split.partition.clone(),
                files,
                deletion,
                self.options,
                self.on_failure,
            );
            self.current.push_back(match &self.ahead {
                Some(pool) => Box::new(Ahead::new(group, pool.clone())),
                None => Box::new(group),
            });
            return true;
        }
        let index = unit[0];
        let file = self.split.data_files[index].clone();
        let deletion = self.split.deletion_files.get(index).cloned().flatten();
        // Decoding ahead: a split of one file splits the file's columns between the threads, a split of
        // more files decodes the next file while this one is read.
        let single = self.split.data_files.len() == 1;
        let forced_missing = self.sticky_missing(&file);
        let lazy = LazyFile {
            table: self.table.clone(),
            bucket_path: self.split.bucket_path.clone(),
            file,
            deletion,
            options: self.options,
            columns_ahead: self.ahead.clone().filter(|_| single),
            forced_missing,
            partition: self.partition.clone(),
            on_failure: self.on_failure,
            open: None,
            failed: false,
        };
        self.current.push_back(match &self.ahead {
            Some(pool) if !single => Box::new(Ahead::new(lazy, pool.clone())),
            _ => Box::new(lazy),
        });
        true
    }
}

impl SplitReader {
    /// On a release whose Parquet reader remembers the columns a file lacked
    /// ([`crate::line::LineRules::parquet_missing_columns_sticky`]): adds the columns of `file`'s schema
    /// that it does not hold (those outside its `_WRITE_COLS`) to the ones remembered for its schema id, and
    /// returns them all, to be read as NULL. `None` on other releases, for other formats, or when nothing
    /// is remembered.
    fn sticky_missing(&mut self, file: &DataFileDesc) -> Option<HashSet<i32>> {
        if !self.table.release().rules().parquet_missing_columns_sticky
            || !file.file_name.ends_with(".parquet")
        {
            return None;
        }
        let remembered = self.sticky_missing.entry(file.schema_id).or_default();
        if let (Some(cols), Ok(schema)) =
            (&file.write_cols, self.table.schema_by_id(file.schema_id))
        {
            remembered.extend(
                schema
                    .fields
                    .iter()
                    .filter(|f| !cols.contains(&f.name))
                    .map(|f| f.id),
            );
        }
        (!remembered.is_empty()).then(|| remembered.clone())
    }
}

/// The read units of a data-evolution split: its row-id groups ([`crate::evolution::row_id_groups`]), in
/// row-id order.
///
/// Errors: [`Error::Unsupported`] naming the bucket when a file has no `_FIRST_ROW_ID`, or when a group of
/// more than one file has a deletion vector (deletion vectors of merged groups are not read here).
fn data_evolution_units(split: &Split, rule: DataEvolution) -> Result<Vec<Vec<usize>>> {
    let refuse = |reason: String| Error::Unsupported {
        path: PathBuf::from(&split.bucket_path),
        reason,
    };
    let units = crate::evolution::row_id_groups(&split.data_files, rule).map_err(refuse)?;
    // 1.3.x refuses a data-evolution table with deletion vectors (its schema validation); 1.4 on reads a
    // group's deletion vector from its anchor file.
    if rule == DataEvolution::ByFirstRowId {
        for unit in units.iter().filter(|u| u.len() > 1) {
            if let Some(&i) = unit
                .iter()
                .find(|&&i| split.deletion_files.get(i).is_some_and(Option::is_some))
            {
                return Err(refuse(format!(
                    "data file {} has a deletion vector in a row-id group of {} files (data evolution with deletion vectors), which this release does not read",
                    split.data_files[i].file_name,
                    unit.len()
                )));
            }
        }
    }
    Ok(units)
}

impl Iterator for SplitReader {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            let window = if self.ahead.is_some() { AHEAD_FILES } else { 1 };
            while self.current.len() < window && self.queue_next() {}
            let file = self.current.front_mut()?;
            match file.next() {
                Some(Ok(batch)) => {
                    // Same columns, same types: only the schema object differs (and `_SEQUENCE_NUMBER`
                    // goes after `_row_kind`, as `$audit_log` reads it).
                    let mut columns = batch.columns().to_vec();
                    if self.options.with_sequence_number && columns.len() > 1 {
                        columns.swap(0, 1);
                    }
                    return Some(
                        RecordBatch::try_new(self.schema.clone(), columns).map_err(|e| {
                            self.failed = true;
                            Error::library(
                                ErrorKind::Decode,
                                PathBuf::from(&self.split.bucket_path),
                                "",
                                e,
                            )
                        }),
                    );
                }
                Some(Err(e)) => {
                    self.failed = true;
                    self.current.clear();
                    return Some(Err(e));
                }
                None => {
                    self.current.pop_front();
                }
            }
        }
    }
}
