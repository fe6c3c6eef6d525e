//! Vortex data files (2.0 `paimon-vortex`, `file.format=vortex`; Paimon's `VortexReaderFactory` reads them
//! through the native library of `dev.vortex:vortex-jni`), decoded natively with the `vortex-file` crate.
//!
//! Paimon's `VortexRecordsWriter` hands each batch to Vortex as Arrow (paimon-arrow's `ArrowFormatCWriter`),
//! so a file is one top-level struct whose fields are the written columns by name; Vortex chooses each
//! column's encodings (dictionaries, bit packing, FSST strings, ALP floats, run ends, …), which the crate's
//! default encodings decode. `VortexRecordsReader` selects the requested columns by name
//! (`Expression.select`) and reads them back as Arrow; so does this reader, with the Arrow types Vortex gives
//! its dtypes, brought to Paimon's by [`super::conform`]. A requested column the file lacks reads as NULL.
//!
//! The file is read into memory whole and decoded chunk by chunk as the batches are taken: memory is bounded
//! by one file (Paimon's `target-file-size`), not by the table.

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use arrow_array::{ArrayRef, RecordBatch, RecordBatchReader};
use vortex_array::dtype::DType;
use vortex_array::expr::{root, select};
use vortex_arrow::ArrowSessionExt;
use vortex_file::OpenOptionsSessionExt;
use vortex_io::runtime::current::CurrentThreadRuntime;
use vortex_io::runtime::BlockingRuntime;
use vortex_io::session::{RuntimeSession, RuntimeSessionExt};
use vortex_layout::session::LayoutSession;
use vortex_session::VortexSession;

use super::conform::conform_batch;
use super::format::{FileColumn, FormatReader, RawBatches};
use super::mapped;
use crate::error::{Error, ErrorKind, Result};

/// The executor Vortex's scans run on: no threads of its own; a reader thread that takes a batch drives it
/// (rayon's threads each drive their own files' scans).
static RUNTIME: LazyLock<CurrentThreadRuntime> = LazyLock::new(CurrentThreadRuntime::new);

/// The Vortex session every file is opened with: arrays, layouts, [`RUNTIME`] and the encodings a Vortex
/// file may hold (`vortex_file::register_default_encodings`).
static SESSION: LazyLock<VortexSession> = LazyLock::new(|| {
    let session = vortex_array::array_session()
        .with::<LayoutSession>()
        .with::<RuntimeSession>()
        .with_handle(RUNTIME.handle());
    vortex_file::register_default_encodings(&session);
    session
});

/// Reads `.vortex` data files ([`FormatReader`]).
pub(crate) struct VortexReader;

/// The reason given when the Vortex library panics on a file (it asserts some of a file's invariants).
const PANICKED: &str = "the Vortex library panicked on this file";

impl FormatReader for VortexReader {
    fn open(&self, path: &Path, columns: &[FileColumn], batch_size: usize) -> Result<RawBatches> {
        let bytes = mapped::read_all(path)?;
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            open_bytes(bytes, path, columns, batch_size)
        }))
        .unwrap_or_else(|_| {
            Err(Error::Decode {
                path: path.to_path_buf(),
                reason: PANICKED.into(),
            })
        })
    }
}

/// [`VortexReader::open`] of the file's bytes.
fn open_bytes(
    bytes: bytes::Bytes,
    path: &Path,
    columns: &[FileColumn],
    batch_size: usize,
) -> Result<RawBatches> {
    let fail = |context: &str, e: vortex_error::VortexError| {
        Error::library(ErrorKind::Decode, path, context, e)
    };
    let file = SESSION
        .open_options()
        .open_buffer(bytes)
        .map_err(|e| fail("not a readable Vortex file", e))?;
    let DType::Struct(fields, _) = file.dtype() else {
        return Err(Error::Decode {
            path: path.to_path_buf(),
            reason: format!(
                "a Vortex data file of Paimon holds a struct of columns, this one a `{}`",
                file.dtype()
            ),
        });
    };
    let names = fields.names();
    // The requested columns the file holds, each once, in request order; `positions` maps each
    // requested column to its place among them.
    let mut found: Vec<&str> = Vec::new();
    let mut positions = Vec::with_capacity(columns.len());
    for column in columns {
        match names.iter().position(|n| n.as_ref() == column.name) {
            Some(_) => {
                let at = found.iter().position(|f| *f == column.name);
                positions.push(Some(at.unwrap_or_else(|| {
                    found.push(&column.name);
                    found.len() - 1
                })));
            }
            None => positions.push(None),
        }
    }
    let rows = usize::try_from(file.row_count()).map_err(|_| Error::Decode {
        path: path.to_path_buf(),
        reason: format!("{} rows do not fit this machine", file.row_count()),
    })?;
    let projection = select(found, root())
        .bind(file.dtype())
        .map_err(|e| fail("the projection of the requested columns", e))?;
    let schema = Arc::new(
        SESSION
            .arrow()
            .to_arrow_schema(projection.dtype())
            .map_err(|e| fail("the Arrow schema of the requested columns", e))?,
    );
    let reader = file
        .scan()
        .map_err(|e| fail("a scan", e))?
        .with_projection(projection)
        .into_record_batch_reader(schema, &*RUNTIME)
        .map_err(|e| fail("a scan", e))?;
    Ok(Box::new(Batches {
        reader: Box::new(reader),
        pending: None,
        columns: columns.to_vec(),
        positions,
        path: path.to_path_buf(),
        step: batch_size.max(1),
        rows_left: rows,
    }))
}

/// The batches of one file: Vortex's chunks, cut to at most `step` rows and conformed.
struct Batches {
    reader: Box<dyn RecordBatchReader + Send>,
    /// The rest of a chunk longer than `step`.
    pending: Option<RecordBatch>,
    columns: Vec<FileColumn>,
    positions: Vec<Option<usize>>,
    path: PathBuf,
    step: usize,
    /// Rows of the file not yet handed out: a file whose requested columns are all absent still has rows.
    rows_left: usize,
}

impl Iterator for Batches {
    type Item = Result<(usize, Vec<ArrayRef>)>;

    fn next(&mut self) -> Option<Self::Item> {
        let chunk = match self.pending.take() {
            Some(chunk) => chunk,
            None => {
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.reader.next()))
                    .unwrap_or_else(|_| {
                        Some(Err(arrow_schema::ArrowError::ExternalError(
                            PANICKED.into(),
                        )))
                    }) {
                    Some(Ok(chunk)) => chunk,
                    Some(Err(e)) => {
                        self.rows_left = 0;
                        return Some(Err(Error::library(
                            ErrorKind::Decode,
                            &self.path,
                            "a chunk of the Vortex file",
                            e,
                        )));
                    }
                    None if self.rows_left > 0 && self.positions.iter().all(Option::is_none) => {
                        // No column of the file was requested: the scan yields nothing, the rows are NULLs.
                        let n = self.rows_left.min(self.step);
                        let options =
                            arrow_array::RecordBatchOptions::new().with_row_count(Some(n));
                        let empty = RecordBatch::try_new_with_options(
                            Arc::new(arrow_schema::Schema::empty()),
                            vec![],
                            &options,
                        );
                        match empty {
                            Ok(empty) => empty,
                            Err(e) => {
                                return Some(Err(Error::library(
                                    ErrorKind::Decode,
                                    &self.path,
                                    "",
                                    e,
                                )))
                            }
                        }
                    }
                    None => return None,
                }
            }
        };
        if chunk.num_rows() == 0 {
            return self.next();
        }
        let batch = if chunk.num_rows() > self.step {
            self.pending = Some(chunk.slice(self.step, chunk.num_rows() - self.step));
            chunk.slice(0, self.step)
        } else {
            chunk
        };
        self.rows_left = self.rows_left.saturating_sub(batch.num_rows());
        Some(conform_batch(
            &batch,
            &self.columns,
            &self.positions,
            &self.path,
            |a, _| Ok(a.clone()),
        ))
    }
}

#[cfg(test)]
mod tests {
    //! The file read here is in the committed corpus `c45-vortex-format` (written by paimon-vortex 2.0.0):
    //! partition p0's file of commit 2, whose rows the scenario lists (k 1: `uno`, 11, `0.01`; k 2: only the
    //! vector `[1.5, 2.5, 3.5]` and `extra` = `added`).

    use arrow_array::cast::AsArray;
    use arrow_array::types::{Decimal128Type, Int32Type, Int64Type};
    use arrow_array::Array;

    use super::*;
    use crate::schema::parse_atomic;

    const FILE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../corpora/c45-vortex-format/paimon-2.0.0/table/pt=p0/bucket-0/",
        "data-90205261-df22-4751-9881-2a257a2bdc0c-0.vortex"
    );

    fn column(name: &str, t: &str) -> FileColumn {
        FileColumn {
            name: name.into(),
            id: 0,
            data_type: parse_atomic(t).unwrap(),
            views: false,
            variant_shredding: true,
            map_shredding: true,
        }
    }

    #[test]
    fn requested_columns_read_back_the_written_values_in_request_order() {
        let columns = [
            column("extra", "STRING"),
            column("k", "INT NOT NULL"),
            column("dec", "DECIMAL(10, 2)"),
            column("l", "BIGINT"),
            column("not_in_file", "INT"),
            column("k", "INT NOT NULL"),
        ];
        let batches: Vec<_> = VortexReader
            .open(Path::new(FILE), &columns, 1)
            .unwrap()
            .collect::<Result<_>>()
            .unwrap();
        // A batch size of one row cuts Vortex's chunk.
        assert_eq!(batches.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [1, 1]);
        let (_, first) = &batches[0];
        let (_, second) = &batches[1];
        assert!(first[0].as_string::<i32>().is_null(0));
        assert_eq!(second[0].as_string::<i32>().value(0), "added");
        assert_eq!(first[1].as_primitive::<Int32Type>().value(0), 1);
        assert_eq!(second[1].as_primitive::<Int32Type>().value(0), 2);
        assert_eq!(first[2].as_primitive::<Decimal128Type>().value(0), 1);
        assert_eq!(first[3].as_primitive::<Int64Type>().value(0), 11);
        assert!(second[3].is_null(0));
        assert_eq!(first[4].null_count(), 1);
        assert_eq!(first[5].as_primitive::<Int32Type>().value(0), 1);
    }

    /// Truncations and flipped bytes of a real file are errors or values, never a panic out of the reader
    /// (the Vortex library asserts some invariants of a file; one of these corruptions trips one).
    #[test]
    fn a_corrupt_file_never_panics_out_of_the_reader() {
        let good = std::fs::read(FILE).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data-0.vortex");
        let columns = [column("k", "INT NOT NULL"), column("extra", "STRING")];
        let n = good.len();
        let mut errors = 0;
        let truncated = (0..n).step_by(n / 40 + 1).map(|cut| good[..cut].to_vec());
        let flipped = (0..n).step_by(n / 120 + 1).map(|at| {
            let mut bytes = good.clone();
            bytes[at] ^= 0x5A;
            bytes
        });
        for bytes in truncated.chain(flipped) {
            std::fs::write(&path, &bytes).unwrap();
            let failed = match VortexReader.open(&path, &columns, 1024) {
                Err(_) => true,
                Ok(batches) => batches.fold(false, |failed, b| failed | b.is_err()),
            };
            errors += usize::from(failed);
        }
        assert!(errors >= 40, "{errors} corruptions were errors");
    }

    #[test]
    fn a_file_that_is_not_vortex_is_a_decode_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data-0.vortex");
        for bytes in [&b""[..], b"VTXF", &[7u8; 4096]] {
            std::fs::write(&path, bytes).unwrap();
            let err = match VortexReader.open(&path, &[column("k", "INT")], 10) {
                Err(e) => e,
                Ok(mut batches) => batches.next().unwrap().unwrap_err(),
            };
            let text = err.to_string();
            assert!(text.contains("data-0.vortex"), "{text}");
            assert!(text.contains("cannot decode"), "{text}");
        }
    }
}
