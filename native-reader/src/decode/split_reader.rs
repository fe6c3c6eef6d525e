//! A split read without merging, file after file (see [`SplitReader`]).

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use super::{read_file, FileBatches, FileReadOptions};
use crate::error::{Error, ErrorKind, Result};
use crate::split::Split;
use crate::table::Table;

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
                                Error::library(ErrorKind::Decode, file.path(), "", e)
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
