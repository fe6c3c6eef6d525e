//! Sorted runs: where their batches come from ([`RunSource`], the data files of a run read one after the
//! other: [`FileRun`]), and the run as a cursor of the loser tree ([`Run`]), with comparison keys per batch.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::buffer::ScalarBuffer;
use arrow::row::{RowConverter, Rows};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, Int8Type};
use arrow_array::{ArrayRef, RecordBatch};

use crate::decode::{read_file_with, FailedFiles, FileBatches, FileReadOptions, SplitContext};
use crate::error::{Error, ErrorKind, Result};
pub(crate) use crate::line::LookupPick;
use crate::options::SortEngine;
use crate::read::ahead::{Ahead, AheadPool};
use crate::row_kind::RowKind;
use crate::split::{DataFileDesc, DeletionFileDesc};
use crate::table::Table;

use super::loser_tree::Cursor;

/// What every run reader of one split shares.
pub(crate) struct RunContext {
    pub(crate) table: Arc<Table>,
    pub(crate) bucket_path: String,
    /// The split's partition values ([`crate::split::Split::partition`]): the text formats fill partition
    /// columns from them.
    pub(crate) partition: Vec<Option<String>>,
    pub(crate) options: FileReadOptions,
    /// Columns of the trimmed primary key in a [`read_file`] batch.
    pub(crate) key_columns: Vec<usize>,
    pub(crate) keys: RowConverter,
    /// Columns of `sequence.field` in a [`read_file`] batch, with their converter.
    pub(crate) user_sequence: Option<(Vec<usize>, RowConverter)>,
    /// `LookupMergeFunction` around the merge function, and its pick, when the table needs lookup.
    pub(crate) lookup: Option<LookupPick>,
    /// Decode each run ahead on this pool ([`crate::read::ahead`]), when reading on more than one thread.
    pub(crate) ahead: Option<AheadPool>,
    /// What a file that fails to read becomes (`scan.ignore-lost-files`, `scan.ignore-corrupt-files`).
    pub(crate) on_failure: FailedFiles,
    /// The table's `sort-engine`: under `min-heap` a key whose records tie on their sequence is refused
    /// ([`super::reader::merge_section`]).
    pub(crate) sort_engine: SortEngine,
    /// Results that are no add (`-U`, `-D`) are kept: no `DropDeleteReader` (`forceKeepDelete`,
    /// `$audit_log`).
    pub(crate) keep_delete: bool,
    /// A key seen once goes out as it is, without the merge function (`ReducerMergeFunctionWrapper`); false
    /// for the diff read, whose `DiffMerger` sees every key.
    pub(crate) sole_keys_as_is: bool,
}

/// `LookupMergeFunction`'s pick ([`LookupPick`], a rule of the release: up to 1.1.x the last record above
/// level 0 in merge order, from 1.2.0 the one on the lowest level). The released reader wraps the merge
/// function in it when `CoreOptions#needLookup` (`changelog-producer=lookup`, `deletion-vectors.enabled`,
/// `force-lookup`; the first-row engine is never wrapped), for every merge read
/// (`PrimaryKeyFileStoreTable#store`).
impl LookupPick {
    /// The position in `levels` (the levels of one key's records, in merge order) of the record above
    /// level 0 that is kept, `None` when every record is at level 0.
    pub(crate) fn pick(self, levels: &[i32]) -> Option<usize> {
        let mut high = levels.iter().enumerate().filter(|(_, l)| **l > 0);
        match self {
            LookupPick::Latest => high.next_back().map(|(i, _)| i),
            LookupPick::LowestLevel => high.min_by_key(|(_, l)| **l).map(|(i, _)| i),
        }
    }
}

/// The current batch of a run with its comparison keys.
pub(crate) struct RunBatch {
    pub(crate) batch: RecordBatch,
    /// Comparison rows of the key and the user sequence; `None` in single-run sections, which never
    /// compare.
    keys: Option<Rows>,
    user_sequence: Option<Rows>,
    sequence: ScalarBuffer<i64>,
    pub(crate) kinds: ScalarBuffer<i8>,
    /// The level of the file the batch came from.
    pub(crate) level: i32,
    /// Whether `keys` are strictly increasing (each record the only one of its key in the batch).
    unique_keys: bool,
}

/// Where a run's batches come from: batches in [`read_file`]'s shape (`_SEQUENCE_NUMBER`, `_row_kind`,
/// then the table's columns), sorted by key.
pub(crate) trait RunSource: Send {
    /// The next non-empty batch, the file it came from and that file's level, `None` at the end.
    fn next_batch(&mut self, ctx: &RunContext) -> Result<Option<(RecordBatch, PathBuf, i32)>>;
}

/// The data files of one sorted run, read one after the other with [`read_file`] (deletion vectors
/// applied per file).
pub(crate) struct FileRun {
    files: std::vec::IntoIter<(DataFileDesc, Option<DeletionFileDesc>)>,
    reader: Option<FileBatches>,
    /// The level of the file being read.
    level: i32,
}

impl FileRun {
    pub(crate) fn new(files: Vec<(DataFileDesc, Option<DeletionFileDesc>)>) -> FileRun {
        FileRun {
            files: files.into_iter(),
            reader: None,
            level: 0,
        }
    }
}

impl RunSource for FileRun {
    fn next_batch(&mut self, ctx: &RunContext) -> Result<Option<(RecordBatch, PathBuf, i32)>> {
        loop {
            if self.reader.is_none() {
                let Some((file, dv)) = self.files.next() else {
                    return Ok(None);
                };
                self.level = file.level;
                let open = || {
                    read_file_with(
                        &ctx.table,
                        &ctx.bucket_path,
                        &file,
                        dv.as_ref(),
                        &ctx.options,
                        SplitContext {
                            partition: Some(&ctx.partition),
                            ..SplitContext::default()
                        },
                    )
                };
                // A skipped file adds no record to its run.
                self.reader = ctx.on_failure.open(&file, &ctx.bucket_path, open)?;
                continue;
            }
            let Some(r) = self.reader.as_mut() else {
                return Ok(None);
            };
            match r.next() {
                None => self.reader = None,
                Some(Err(e)) => return Err(ctx.on_failure.after_open(e, r.path())),
                Some(Ok(batch)) if batch.num_rows() == 0 => {}
                Some(Ok(batch)) => return Ok(Some((batch, r.path().to_path_buf(), self.level))),
            }
        }
    }
}

/// A run whose batches are decoded ahead on a pool ([`crate::read::ahead`]): the same batches, in the
/// same order, as its source.
pub(crate) struct AheadRun(Ahead<RunSteps>);

impl AheadRun {
    pub(crate) fn new(
        source: Box<dyn RunSource>,
        ctx: Arc<RunContext>,
        pool: AheadPool,
    ) -> AheadRun {
        AheadRun(Ahead::new(
            RunSteps {
                source,
                ctx,
                failed: false,
            },
            pool,
        ))
    }
}

/// A run source as an iterator (what [`Ahead`] steps); ends after the first error.
pub(crate) struct RunSteps {
    source: Box<dyn RunSource>,
    ctx: Arc<RunContext>,
    failed: bool,
}

impl Iterator for RunSteps {
    type Item = Result<(RecordBatch, PathBuf, i32)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.source.next_batch(&self.ctx) {
            Ok(Some(b)) => Some(Ok(b)),
            Ok(None) => None,
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

impl RunSource for AheadRun {
    fn next_batch(&mut self, _ctx: &RunContext) -> Result<Option<(RecordBatch, PathBuf, i32)>> {
        self.0.next().transpose()
    }
}

/// One sorted run positioned on its current record (a cursor of the loser tree).
pub(crate) struct Run {
    source: Box<dyn RunSource>,
    pub(crate) current: Option<RunBatch>,
    pub(crate) row: usize,
    started: bool,
    /// (output chunk generation, source index) of the current batch once registered in the chunk.
    pub(crate) chunk_source: Option<(u64, usize)>,
    /// Whether batches get comparison rows (runs of a loser tree).
    compared: bool,
}

impl Run {
    pub(crate) fn new(source: Box<dyn RunSource>, compared: bool) -> Run {
        Run {
            source,
            compared,
            current: None,
            row: 0,
            started: false,
            chunk_source: None,
        }
    }

    /// Moves to the next record (none at the end of the run).
    fn step(&mut self, ctx: &RunContext) -> Result<()> {
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
        if let Some((batch, path, level)) = self.source.next_batch(ctx)? {
            self.current = Some(run_batch(ctx, batch, &path, level, self.compared)?);
            self.row = 0;
        }
        Ok(())
    }

    /// Moves to the next whole batch (for single-run sections).
    pub(crate) fn step_batch(&mut self, ctx: &RunContext) -> Result<()> {
        if let Some(c) = &self.current {
            self.row = c.batch.num_rows().saturating_sub(1);
        }
        self.step(ctx)
    }

    /// The comparison key of the current record (`None` at the end of the run, or in a run that is not
    /// compared).
    pub(crate) fn key(&self) -> Option<arrow::row::Row<'_>> {
        let c = self.current.as_ref()?;
        c.keys.as_ref().map(|k| k.row(self.row))
    }

    /// The end (exclusive) of the records from the current one on whose keys are below `bound` (every key
    /// when `None`) and each the only record of its key in the run, within the current batch: the current
    /// record when it is not such a record. The batch's last record is never included (whether its key
    /// goes on in the next batch is not known yet). Found by a galloping search in a batch of strictly
    /// increasing keys, record by record otherwise.
    pub(crate) fn sole_keys_below(&self, bound: Option<arrow::row::Row<'_>>) -> usize {
        let start = self.row;
        let Some(RunBatch {
            keys: Some(k),
            batch,
            unique_keys,
            ..
        }) = &self.current
        else {
            return start;
        };
        let n = batch.num_rows();
        if start + 1 >= n {
            return start;
        }
        // Records in [start, limit) are followed by a greater key.
        let limit = if *unique_keys {
            n - 1
        } else {
            let mut i = start;
            while i + 1 < n && k.row(i + 1) > k.row(i) {
                i += 1;
            }
            i
        };
        let Some(b) = bound else {
            return limit;
        };
        // Galloping: the first record in [start, limit) whose key is not below the bound (keys increase).
        let below = |i: usize| k.row(i) < b;
        let mut lo = start;
        let mut step = 1;
        let mut hi = loop {
            let probe = lo + step;
            if probe >= limit {
                break limit;
            }
            if !below(probe) {
                break probe;
            }
            lo = probe;
            step *= 2;
        };
        // Keys before `lo` (and `lo` itself unless it is `start`) are below the bound; `hi` is not below
        // or is the limit.
        if lo == start && (lo >= limit || !below(lo)) {
            return start;
        }
        lo += 1;
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if below(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The level of the file of the current record (0 without one).
    pub(crate) fn level(&self) -> i32 {
        self.current.as_ref().map_or(0, |c| c.level)
    }

    /// The `_SEQUENCE_NUMBER` of the current record (0 without one).
    pub(crate) fn sequence_number(&self) -> i64 {
        self.current
            .as_ref()
            .and_then(|c| c.sequence.get(self.row).copied())
            .unwrap_or(0)
    }

    /// The kind of the current record (`+I` without one). Errors: [`Error::Decode`] for a byte that is
    /// not a RowKind (the decoder lets none through).
    pub(crate) fn kind(&self) -> Result<RowKind> {
        let Some(c) = &self.current else {
            return Ok(RowKind::Insert);
        };
        let byte = c.kinds[self.row];
        RowKind::from_byte(byte).ok_or_else(|| kind_error(byte))
    }
}

/// Whether each row of `keys` is greater than the one before it.
fn strictly_increasing(keys: &Rows) -> bool {
    (1..keys.num_rows()).all(|i| keys.row(i - 1) < keys.row(i))
}

/// [`Error::Decode`] for a `_row_kind` byte that is not a RowKind (the decoder lets none through).
pub(crate) fn kind_error(byte: i8) -> Error {
    Error::Decode {
        path: PathBuf::from("<merge>"),
        reason: format!("_row_kind {byte} is not a RowKind"),
    }
}

impl Cursor for Run {
    type Context = RunContext;

    fn has_record(&self) -> bool {
        self.current.is_some()
    }

    fn advance(&mut self, ctx: &RunContext) -> Result<()> {
        self.step(ctx)
    }

    fn key_order(&self, other: &Run) -> Option<Ordering> {
        match (&self.current, &other.current) {
            (Some(x), Some(y)) => match (&x.keys, &y.keys) {
                (Some(kx), Some(ky)) => Some(kx.row(self.row).cmp(&ky.row(other.row))),
                _ => None,
            },
            _ => None,
        }
    }

    fn sequence_order(&self, other: &Run) -> Option<Ordering> {
        match (&self.current, &other.current) {
            (Some(x), Some(y)) => {
                let user = match (&x.user_sequence, &y.user_sequence) {
                    (Some(ux), Some(uy)) => ux.row(self.row).cmp(&uy.row(other.row)),
                    _ => Ordering::Equal,
                };
                Some(user.then(x.sequence[self.row].cmp(&y.sequence[other.row])))
            }
            _ => None,
        }
    }
}

fn run_batch(
    ctx: &RunContext,
    batch: RecordBatch,
    path: &Path,
    level: i32,
    compared: bool,
) -> Result<RunBatch> {
    let err = |reason: &str| Error::Decode {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    let columns =
        |idx: &[usize]| -> Vec<ArrayRef> { idx.iter().map(|i| batch.column(*i).clone()).collect() };
    let keys = if compared {
        Some(
            ctx.keys
                .convert_columns(&columns(&ctx.key_columns))
                .map_err(|e| Error::library(ErrorKind::Decode, path, "primary key", e))?,
        )
    } else {
        None
    };
    let user_sequence = match &ctx.user_sequence {
        Some((idx, conv)) if compared => Some(
            conv.convert_columns(&columns(idx))
                .map_err(|e| Error::library(ErrorKind::Decode, path, "sequence.field", e))?,
        ),
        _ => None,
    };
    let sequence = batch
        .column(0)
        .as_primitive_opt::<Int64Type>()
        .ok_or_else(|| err("_SEQUENCE_NUMBER is not BIGINT"))?
        .values()
        .clone();
    let kinds = batch
        .column(1)
        .as_primitive_opt::<Int8Type>()
        .ok_or_else(|| err("_row_kind is not TINYINT"))?
        .values()
        .clone();
    let unique_keys = keys.as_ref().is_some_and(strictly_increasing);
    Ok(RunBatch {
        batch,
        keys,
        user_sequence,
        sequence,
        kinds,
        level,
        unique_keys,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::row::SortField;
    use arrow_array::{Int32Array, Int64Array, Int8Array};
    use arrow_schema::DataType;

    use super::*;

    struct NoBatches;

    impl RunSource for NoBatches {
        fn next_batch(&mut self, _ctx: &RunContext) -> Result<Option<(RecordBatch, PathBuf, i32)>> {
            Ok(None)
        }
    }

    /// A run positioned on record `row` of one batch with `keys`, compared.
    fn run_at(keys: &[i32], row: usize) -> Run {
        let conv = RowConverter::new(vec![SortField::new(DataType::Int32)]).unwrap();
        let k: ArrayRef = Arc::new(Int32Array::from(keys.to_vec()));
        let rows = conv.convert_columns(std::slice::from_ref(&k)).unwrap();
        let n = keys.len();
        let batch = RecordBatch::try_from_iter([
            (
                "_SEQUENCE_NUMBER",
                Arc::new(Int64Array::from(vec![0i64; n])) as ArrayRef,
            ),
            (
                "_row_kind",
                Arc::new(Int8Array::from(vec![0i8; n])) as ArrayRef,
            ),
            ("k", k),
        ])
        .unwrap();
        let unique_keys = strictly_increasing(&rows);
        let mut run = Run::new(Box::new(NoBatches), true);
        run.current = Some(RunBatch {
            batch,
            keys: Some(rows),
            user_sequence: None,
            sequence: vec![0i64; n].into(),
            kinds: vec![0i8; n].into(),
            level: 0,
            unique_keys,
        });
        run.row = row;
        run.started = true;
        run
    }

    /// `sole_keys_below(bound)` of a run on record `row` of a batch with `keys`.
    fn sole(keys: &[i32], row: usize, bound: Option<i32>) -> usize {
        let run = run_at(keys, row);
        let conv = RowConverter::new(vec![SortField::new(DataType::Int32)]).unwrap();
        let b: Vec<ArrayRef> = bound
            .map(|b| vec![Arc::new(Int32Array::from(vec![b])) as ArrayRef])
            .unwrap_or_default();
        let rows = bound.map(|_| conv.convert_columns(&b).unwrap());
        run.sole_keys_below(rows.as_ref().map(|r| r.row(0)))
    }

    /// The end of a stretch of sole keys, record by record: what the merge would emit before re-playing
    /// the tree (keys below the bound, each followed by a greater key in the batch).
    #[test]
    fn sole_keys_below_stops_at_the_bound_a_repeated_key_and_the_last_record() {
        let keys: Vec<i32> = (0..100).map(|i| i * 2).collect(); // 0, 2, .., 198
                                                                // No other run left: everything but the batch's last record.
        assert_eq!(sole(&keys, 0, None), 99);
        assert_eq!(sole(&keys, 98, None), 99);
        assert_eq!(sole(&keys, 99, None), 99); // the last record: nothing
                                               // The first key not below the bound: bound 51 stops at key 52 (record 26), bound 52 too.
        assert_eq!(sole(&keys, 0, Some(51)), 26);
        assert_eq!(sole(&keys, 0, Some(52)), 26);
        assert_eq!(sole(&keys, 10, Some(53)), 27);
        // The current key is not below the bound: nothing.
        assert_eq!(sole(&keys, 10, Some(20)), 10);
        assert_eq!(sole(&keys, 10, Some(5)), 10);
        // A bound above every key: up to the last record, which stays.
        assert_eq!(sole(&keys, 3, Some(1000)), 99);
        // Every start and bound against a linear scan.
        for start in 0..100 {
            for bound in [-1, 0, 1, 7, 8, 100, 101, 197, 198, 199, 500] {
                let expected = (start..99)
                    .find(|&i| keys[i] >= bound)
                    .unwrap_or(99)
                    .max(start);
                assert_eq!(sole(&keys, start, Some(bound)), expected, "{start} {bound}");
            }
        }
        // A key repeated inside the run (records 5 and 6): record 4 is the last one followed by a
        // greater key, whatever the bound.
        let repeated = [1, 2, 3, 4, 5, 6, 6, 7, 8];
        assert_eq!(sole(&repeated, 0, None), 5);
        assert_eq!(sole(&repeated, 0, Some(100)), 5);
        assert_eq!(sole(&repeated, 0, Some(3)), 2);
        assert_eq!(sole(&repeated, 5, None), 5);
        assert_eq!(sole(&repeated, 6, None), 8);
    }
}
