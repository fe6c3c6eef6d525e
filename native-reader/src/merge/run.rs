//! Sorted runs: their files read one after the other, with comparison keys per batch.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::buffer::ScalarBuffer;
use arrow::row::{RowConverter, Rows};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, Int8Type};
use arrow_array::{ArrayRef, RecordBatch};

use crate::decode::{read_file, FileBatches, FileReadOptions};
use crate::error::{Error, Result};
use crate::split::{DataFileDesc, DeletionFileDesc};
use crate::table::Table;

use super::loser_tree::State;
use super::INSERT;
/// What every run reader of one split shares.
pub(crate) struct RunContext {
    pub(crate) table: Arc<Table>,
    pub(crate) bucket_path: String,
    pub(crate) options: FileReadOptions,
    /// Columns of the trimmed primary key in a [`read_file`] batch.
    pub(crate) key_columns: Vec<usize>,
    pub(crate) keys: RowConverter,
    /// Columns of `sequence.field` in a [`read_file`] batch, with their converter.
    pub(crate) user_sequence: Option<(Vec<usize>, RowConverter)>,
}

/// The current batch of a run with its comparison keys.
pub(crate) struct RunBatch {
    pub(crate) batch: RecordBatch,
    /// Comparison rows of the key and the user sequence; `None` in single-run sections, which never
    /// compare.
    pub(crate) keys: Option<Rows>,
    pub(crate) user_sequence: Option<Rows>,
    pub(crate) sequence: ScalarBuffer<i64>,
    pub(crate) kinds: ScalarBuffer<i8>,
}

/// Where a run's batches come from.
pub(crate) enum RunSource {
    /// Data files read one after the other with [`read_file`].
    Files {
        files: std::vec::IntoIter<(DataFileDesc, Option<DeletionFileDesc>)>,
        reader: Option<FileBatches>,
    },
    /// Batches in [`read_file`]'s shape (tests).
    #[cfg(test)]
    Memory(std::collections::VecDeque<RecordBatch>),
}

impl RunSource {
    /// The next non-empty batch and the file it came from, `None` at the end.
    pub(crate) fn next_batch(&mut self, ctx: &RunContext) -> Result<Option<(RecordBatch, PathBuf)>> {
        match self {
            RunSource::Files { files, reader } => loop {
                if reader.is_none() {
                    let Some((file, dv)) = files.next() else {
                        return Ok(None);
                    };
                    *reader = Some(read_file(
                        &ctx.table,
                        &ctx.bucket_path,
                        &file,
                        dv.as_ref(),
                        &ctx.options,
                    )?);
                }
                let Some(r) = reader.as_mut() else {
                    return Ok(None);
                };
                match r.next() {
                    None => *reader = None,
                    Some(Err(e)) => return Err(e),
                    Some(Ok(batch)) if batch.num_rows() == 0 => {}
                    Some(Ok(batch)) => return Ok(Some((batch, r.path().to_path_buf()))),
                }
            },
            #[cfg(test)]
            RunSource::Memory(batches) => {
                Ok(batches.pop_front().map(|b| (b, PathBuf::from("<memory>"))))
            }
        }
    }
}

/// One sorted run: its files read one after the other (a leaf of the loser tree).
pub(crate) struct Run {
    pub(crate) source: RunSource,
    pub(crate) current: Option<RunBatch>,
    pub(crate) row: usize,
    pub(crate) started: bool,
    pub(crate) state: State,
    pub(crate) first_same_key: isize,
    /// (output chunk generation, source index) of the current batch once registered in the chunk.
    pub(crate) chunk_source: Option<(u64, usize)>,
    /// Whether batches get comparison rows (runs of a loser tree).
    pub(crate) compared: bool,
}

impl Run {
    pub(crate) fn new(source: RunSource, compared: bool) -> Run {
        Run {
            source,
            compared,
            current: None,
            row: 0,
            started: false,
            state: State::WinnerWithNewKey,
            first_same_key: -1,
            chunk_source: None,
        }
    }

    pub(crate) fn has_record(&self) -> bool {
        self.current.is_some()
    }

    /// Moves to the next record (none at the end of the run).
    pub(crate) fn step(&mut self, ctx: &RunContext) -> Result<()> {
        if self.started {
            if let Some(c) = &self.current {
                if self.row + 1 < c.batch.num_rows() {
                    self.row += 1;
                    return Ok(());
                }
            }
        }
        self.started = true;
        self.current = None;
        self.chunk_source = None;
        if let Some((batch, path)) = self.source.next_batch(ctx)? {
            self.current = Some(run_batch(ctx, batch, &path, self.compared)?);
            self.row = 0;
        }
        Ok(())
    }

    /// `LeafIterator.advanceIfAvailable`.
    pub(crate) fn advance(&mut self, ctx: &RunContext) -> Result<()> {
        self.first_same_key = -1;
        self.state = State::WinnerWithNewKey;
        self.step(ctx)
    }

    pub(crate) fn set_first_same_key(&mut self, index: isize) {
        if self.first_same_key == -1 {
            self.first_same_key = index;
        }
    }

    pub(crate) fn kind(&self) -> i8 {
        self.current.as_ref().map_or(INSERT, |c| c.kinds[self.row])
    }
}

pub(crate) fn run_batch(
    ctx: &RunContext,
    batch: RecordBatch,
    path: &Path,
    compared: bool,
) -> Result<RunBatch> {
    let err = |reason: String| Error::Decode {
        path: path.to_path_buf(),
        reason,
    };
    let columns =
        |idx: &[usize]| -> Vec<ArrayRef> { idx.iter().map(|i| batch.column(*i).clone()).collect() };
    let keys = if compared {
        Some(
            ctx.keys
                .convert_columns(&columns(&ctx.key_columns))
                .map_err(|e| err(format!("primary key: {e}")))?,
        )
    } else {
        None
    };
    let user_sequence = match &ctx.user_sequence {
        Some((idx, conv)) if compared => Some(
            conv.convert_columns(&columns(idx))
                .map_err(|e| err(format!("sequence.field: {e}")))?,
        ),
        _ => None,
    };
    let sequence = batch
        .column(0)
        .as_primitive_opt::<Int64Type>()
        .ok_or_else(|| err("_SEQUENCE_NUMBER is not BIGINT".into()))?
        .values()
        .clone();
    let kinds = batch
        .column(1)
        .as_primitive_opt::<Int8Type>()
        .ok_or_else(|| err("_row_kind is not TINYINT".into()))?
        .values()
        .clone();
    Ok(RunBatch {
        batch,
        keys,
        user_sequence,
        sequence,
        kinds,
    })
}

/// `LoserTree` of Paimon 1.0 over the runs of one section, with the same node states and tie rules, so the
/// records of one key come out in the same order as in Java even when their sequences are equal.
impl Run {
    /// Moves to the next whole batch (for single-run sections).
    pub(crate) fn step_batch(&mut self, ctx: &RunContext) -> Result<()> {
        if let Some(c) = &self.current {
            self.row = c.batch.num_rows().saturating_sub(1);
        }
        self.step(ctx)
    }
}

