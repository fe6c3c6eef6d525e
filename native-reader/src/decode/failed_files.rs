//! Data files that fail to read under `scan.ignore-lost-files` and `scan.ignore-corrupt-files` (1.4+,
//! [`crate::line::LineRules::ignore_failed_files`]), as `DataFileRecordReader` treats them.
//!
//! The released reader opens each data file with its format reader (`FormatReaderFactory#createReader`: a
//! Parquet footer, an ORC tail, an Avro header). When that throws, it asks `FileIO.exists`:
//! - the file is lost: with `scan.ignore-lost-files` it is read as empty, else `FileNotFoundException`;
//! - the file exists: with `scan.ignore-corrupt-files` it is read as empty, else the error.
//!
//! A failure after the file opened (`readBatch`) ends the file there with `scan.ignore-corrupt-files`,
//! keeping the rows of the batches already returned. Which rows those are depends on the format reader's
//! batches (`read.batch-size`, row groups, stripes), which this reader does not model: such a failure is
//! [`Error::Unsupported`] naming the file, never other rows than the release returns. A file of a
//! data-evolution row-id group, read together with the others of its group, is refused the same way when
//! it fails with either option on.

use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind, Result};
use crate::split::DataFileDesc;
use crate::table::Table;

use super::FileBatches;

/// How a read of `table` treats a data file that fails (both false: every failure is an error, as every
/// release before 1.4 does).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FailedFiles {
    /// `scan.ignore-lost-files` (`CoreOptions.SCAN_IGNORE_LOST_FILE`).
    lost: bool,
    /// `scan.ignore-corrupt-files` (`CoreOptions.SCAN_IGNORE_CORRUPT_FILE`).
    corrupt: bool,
}

impl FailedFiles {
    /// The rule of `table` as its release reads it: both options from 1.4, neither before.
    ///
    /// Errors: [`Error::InvalidOption`] naming the schema directory when an option is not a boolean (the
    /// release fails building its read, `Options.get`).
    pub(crate) fn of(table: &Table) -> Result<FailedFiles> {
        if !table.release().rules().ignore_failed_files {
            return Ok(FailedFiles::default());
        }
        let options = table.options();
        let get = |option: &crate::options::Deferred<bool>| {
            option.get().map_err(|e| e.at(table.path().join("schema")))
        };
        Ok(FailedFiles {
            lost: get(&options.scan_ignore_lost_files)?,
            corrupt: get(&options.scan_ignore_corrupt_files)?,
        })
    }

    /// Whether either option is on.
    pub(crate) fn any(self) -> bool {
        self.lost || self.corrupt
    }

    /// Opens `file` (in `bucket_path`) with `open`: `Ok(None)` when it fails to open and the release reads
    /// it as empty (lost with `scan.ignore-lost-files`, corrupt with `scan.ignore-corrupt-files`).
    ///
    /// Errors: `open`'s error when the file is not skipped (a lost file's is the native "cannot open", as the
    /// release's `FileNotFoundException`); errors other than the file's own decoding or I/O (a deletion
    /// vector, an option, an unsupported feature) are never skipped; [`Error::Io`] when `FileIO.exists`
    /// itself fails.
    pub(crate) fn open(
        self,
        file: &DataFileDesc,
        bucket_path: &str,
        open: impl FnOnce() -> Result<FileBatches>,
    ) -> Result<Option<FileBatches>> {
        let error = match open() {
            Ok(batches) => return Ok(Some(batches)),
            Err(e) => e,
        };
        if !self.any() {
            return Err(error);
        }
        let Ok(path) = file.path(bucket_path) else {
            return Err(error);
        };
        if !is_file_failure(&error, &path) {
            return Err(error);
        }
        let skip = if crate::fileio::exists(&path)? {
            self.corrupt
        } else {
            self.lost
        };
        if skip {
            Ok(None)
        } else {
            Err(error)
        }
    }

    /// What a failure of an opened file becomes: with `scan.ignore-corrupt-files`, [`Error::Unsupported`]
    /// naming the file (see the module doc), else `error` itself.
    pub(crate) fn after_open(self, error: Error, path: &Path) -> Error {
        if self.corrupt && is_file_failure(&error, path) {
            Error::Unsupported {
                path: path.to_path_buf(),
                reason: format!(
                    "the data file fails after it opened, with scan.ignore-corrupt-files=true: the released \
                     reader keeps the rows of the batches its format reader returned before the failure, \
                     which this reader does not model ({error})"
                ),
            }
        } else {
            error
        }
    }

    /// What a failure of a file of a data-evolution row-id group becomes: with either option on,
    /// [`Error::Unsupported`] naming the file, else `error` itself.
    pub(crate) fn in_row_id_group(
        self,
        error: Error,
        file: &DataFileDesc,
        bucket_path: &str,
    ) -> Error {
        let path = file.display_path(bucket_path);
        if self.any() && is_file_failure(&error, &path) {
            Error::Unsupported {
                path,
                reason: format!(
                    "a data file of a data-evolution row-id group fails to read, with \
                     scan.ignore-lost-files or scan.ignore-corrupt-files on: what the released reader \
                     merges without it is not modelled ({error})"
                ),
            }
        } else {
            error
        }
    }
}

/// Whether `error` is `path`'s own failure to be read (I/O or decoding), the failures `DataFileRecordReader`
/// catches.
fn is_file_failure(error: &Error, path: &Path) -> bool {
    let at = |p: &PathBuf| p == path;
    match error {
        Error::Io { path, .. } | Error::Decode { path, .. } | Error::Avro { path, .. } => at(path),
        Error::Library { kind, path, .. } => {
            matches!(kind, ErrorKind::Decode | ErrorKind::Avro) && at(path)
        }
        _ => false,
    }
}
