//! `MergeFileSplitRead.createMergeReader` + `DropDeleteReader`: sections of sorted runs merged by the
//! loser tree and the merge function.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::row::{RowConverter, SortField};
use arrow_array::{BooleanArray, RecordBatch};
use arrow_schema::{SchemaRef, SortOptions};

use crate::decode::{FailedFiles, FileReadOptions};
use crate::error::{Error, ErrorKind, Result};
use crate::mergetree::{interval_partition, KeyComparator, KeyedFile};
use crate::options::SortEngine;
use crate::row_kind::RowKind;
use crate::schema::DataField;
use crate::split::Split;
use crate::table::Table;
use crate::types::read_schema_as;

use super::function::{merge_function, option, Merged, Reducer};
use super::loser_tree::{tree_bug, Cursor, LoserTree};
use super::output::{output_columns, Chunk, Ctx, OutRow, Rec};
use super::run::{AheadRun, FileRun, LookupPick, Run, RunContext, RunSource};
use super::VALUE_OFFSET;
use crate::read::ahead::AheadPool;

/// A section being read.
pub(crate) enum SectionState {
    /// One run: every key once, streamed without the tree.
    Single(Box<Run>),
    /// Several runs merged by the loser tree.
    Merging(LoserTree<Run>),
}

/// How a [`MergeReader`] merges the records of a key and what it outputs: the table's merge function with
/// its `LookupMergeFunction` pick and the read's `forceKeepDelete` ([`MergeSetup::of`]), or another merge
/// (the diff read's, [`super::diff`]).
pub(crate) struct MergeSetup {
    pub(crate) function: Box<dyn super::function::MergeFunction>,
    pub(crate) lookup: Option<LookupPick>,
    /// Results that are no add are kept ([`RunContext::keep_delete`]).
    pub(crate) keep_delete: bool,
    /// [`RunContext::sole_keys_as_is`].
    pub(crate) sole_keys_as_is: bool,
    /// `_SEQUENCE_NUMBER` after `_row_kind` in the output ([`Chunk::new`]); `schema` must have it then.
    pub(crate) with_sequence: bool,
    /// The schema of the output batches.
    pub(crate) schema: arrow_schema::Schema,
}

impl MergeSetup {
    /// The merge of a batch read of `table`: its merge engine's function, its lookup pick, deletes kept for
    /// `$audit_log`, `_SEQUENCE_NUMBER` for `$audit_log` with `table-read.sequence-number.enabled`.
    ///
    /// Errors: as [`merge_function`]; [`Error::InvalidOption`] when `force-lookup` is not a boolean.
    pub(crate) fn of(table: &Table) -> Result<MergeSetup> {
        Ok(MergeSetup {
            function: merge_function(table)?,
            lookup: lookup_pick(table)?,
            keep_delete: table.audit_log(),
            sole_keys_as_is: true,
            with_sequence: crate::system::audit_sequence_number(table),
            schema: crate::system::audit_read_schema(
                table,
                read_schema_as(&table.schema().fields, table.string_views()),
            ),
        })
    }
}

/// `MergeFileSplitRead.createMergeReader` + `DropDeleteReader` over one split.
pub(crate) struct MergeReader {
    pub(crate) ctx: Arc<RunContext>,
    pub(crate) schema: SchemaRef,
    pub(crate) fields: Vec<DataField>,
    pub(crate) bucket_path: PathBuf,
    pub(crate) sections: std::vec::IntoIter<Vec<Box<dyn RunSource>>>,
    pub(crate) current: Option<SectionState>,
    pub(crate) function: Reducer,
    pub(crate) chunk: Chunk,
    /// Output batches built by the last flush and not yet returned, in order.
    pub(crate) ready: VecDeque<RecordBatch>,
    pub(crate) batch_size: usize,
    pub(crate) done: bool,
}

impl MergeReader {
    pub(crate) fn new(
        table: &Arc<Table>,
        split: &Split,
        batch_size: usize,
        ahead: Option<AheadPool>,
    ) -> Result<MergeReader> {
        let setup = MergeSetup::of(table)?;
        Self::for_split(table, split, batch_size, ahead, setup)
    }

    /// [`MergeReader::new`] with the merge `setup` given instead of the table's.
    pub(crate) fn for_split(
        table: &Arc<Table>,
        split: &Split,
        batch_size: usize,
        ahead: Option<AheadPool>,
        setup: MergeSetup,
    ) -> Result<MergeReader> {
        let bucket_path = PathBuf::from(&split.bucket_path);
        if !split.deletion_files.is_empty() && split.deletion_files.len() != split.data_files.len()
        {
            return Err(Error::Decode {
                path: bucket_path,
                reason: format!(
                    "{} deletion files for {} data files",
                    split.deletion_files.len(),
                    split.data_files.len()
                ),
            });
        }
        // Sections of sorted runs over the split's files, as IntervalPartition builds them.
        let comparator = KeyComparator::new(table.schema());
        let mut keyed = Vec::with_capacity(split.data_files.len());
        for (i, f) in split.data_files.iter().enumerate() {
            let path = f.display_path(&split.bucket_path);
            if f.min_key.is_empty() || f.max_key.is_empty() {
                return Err(Error::Unsupported {
                    path,
                    reason: "the split carries no min/max key of this file; it cannot be merged"
                        .into(),
                });
            }
            let dv = split.deletion_files.get(i).cloned().flatten();
            keyed.push(KeyedFile {
                min_key: comparator.decode(&f.min_key, &path)?,
                max_key: comparator.decode(&f.max_key, &path)?,
                file: (f.clone(), dv),
            });
        }
        let sections: Vec<Vec<Box<dyn RunSource>>> = interval_partition(keyed, &comparator)
            .into_iter()
            .map(|runs| {
                runs.into_iter()
                    .map(|run| {
                        let files: Vec<_> = run.into_iter().map(|k| k.file).collect();
                        Box::new(FileRun::new(files)) as Box<dyn RunSource>
                    })
                    .collect()
            })
            .collect();
        Self::with_setup(
            table,
            &split.bucket_path,
            &split.partition,
            sections,
            batch_size,
            ahead,
            setup,
        )
    }

    /// The reader of `sections` (each a list of runs) of a bucket of `table`, in the partition whose values
    /// are `partition` ([`Split::partition`]).
    #[cfg(test)]
    pub(crate) fn with_sections(
        table: &Arc<Table>,
        bucket_path: &str,
        partition: &[Option<String>],
        sections: Vec<Vec<Box<dyn RunSource>>>,
        batch_size: usize,
        ahead: Option<AheadPool>,
    ) -> Result<MergeReader> {
        let setup = MergeSetup::of(table)?;
        Self::with_setup(
            table,
            bucket_path,
            partition,
            sections,
            batch_size,
            ahead,
            setup,
        )
    }

    /// [`MergeReader::with_sections`] with the merge `setup` given instead of the table's.
    pub(crate) fn with_setup(
        table: &Arc<Table>,
        bucket_path: &str,
        partition: &[Option<String>],
        sections: Vec<Vec<Box<dyn RunSource>>>,
        batch_size: usize,
        ahead: Option<AheadPool>,
        setup: MergeSetup,
    ) -> Result<MergeReader> {
        let schema = table.schema();
        let fields = schema.fields.clone();
        let column = |name: &str| -> Result<usize> {
            fields
                .iter()
                .position(|f| f.name == name)
                .map(|i| i + VALUE_OFFSET)
                .ok_or_else(|| Error::Merge {
                    path: table.path().to_path_buf(),
                    reason: format!("column `{name}` is not in the table schema"),
                })
        };
        let key_columns: Vec<usize> = schema
            .trimmed_primary_keys()
            .iter()
            .map(|f| column(&f.name))
            .collect::<Result<_>>()?;
        let sort_fields = |cols: &[usize], options: SortOptions| -> Vec<SortField> {
            cols.iter()
                .map(|c| {
                    let dt = crate::types::arrow_type_as(
                        &fields[c - VALUE_OFFSET].data_type,
                        table.string_views(),
                    );
                    SortField::new_with_options(dt, options)
                })
                .collect()
        };
        let row_err = |e: arrow_schema::ArrowError| Error::Unsupported {
            path: table.path().to_path_buf(),
            reason: format!("cannot compare keys: {e}"),
        };
        let keys = RowConverter::new(sort_fields(&key_columns, SortOptions::default()))
            .map_err(row_err)?;
        let user_sequence = match &table.options().sequence_field {
            None => None,
            Some(names) => {
                let cols: Vec<usize> = names
                    .split(',')
                    .map(|n| column(n.trim()))
                    .collect::<Result<_>>()?;
                let descending = option(table, "sequence.field.sort-order")
                    .is_some_and(|o| o.eq_ignore_ascii_case("descending"));
                let conv = RowConverter::new(sort_fields(
                    &cols,
                    SortOptions {
                        descending,
                        nulls_first: true,
                    },
                ))
                .map_err(row_err)?;
                Some((cols, conv))
            }
        };
        let function = Reducer::new(setup.function);
        // Read where Java's `MergeSorter` reads it: an unknown engine fails the merge read.
        let sort_engine = table
            .options()
            .sort_engine
            .get()
            .map_err(|e| e.at(table.path().join("schema")))?;
        Ok(MergeReader {
            ctx: Arc::new(RunContext {
                table: table.clone(),
                bucket_path: bucket_path.to_string(),
                partition: partition.to_vec(),
                options: FileReadOptions {
                    with_sequence_number: true,
                    batch_size,
                    raw_table_read: false,
                },
                key_columns,
                keys,
                user_sequence,
                lookup: setup.lookup,
                ahead,
                on_failure: FailedFiles::of(table)?,
                sort_engine,
                keep_delete: setup.keep_delete,
                sole_keys_as_is: setup.sole_keys_as_is,
            }),
            schema: Arc::new(setup.schema),
            function,
            fields,
            bucket_path: PathBuf::from(bucket_path),
            sections: sections.into_iter(),
            current: None,
            chunk: Chunk::new(setup.with_sequence),
            ready: VecDeque::new(),
            batch_size,
            done: false,
        })
    }

    /// The next output batch, `None` at the end.
    pub(crate) fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if let Some(batch) = self.ready.pop_front() {
            return Ok(Some(batch));
        }
        while !self.done {
            if self.current.is_none() {
                match self.sections.next() {
                    None => {
                        self.done = true;
                        break;
                    }
                    Some(runs) => {
                        let mut runs: Vec<Box<dyn RunSource>> = match &self.ctx.ahead {
                            Some(pool) => runs
                                .into_iter()
                                .map(|r| {
                                    Box::new(AheadRun::new(r, self.ctx.clone(), pool.clone()))
                                        as Box<dyn RunSource>
                                })
                                .collect(),
                            None => runs,
                        };
                        self.current = Some(if runs.len() == 1 {
                            match runs.pop() {
                                Some(run) => SectionState::Single(Box::new(Run::new(run, false))),
                                None => continue,
                            }
                        } else {
                            SectionState::Merging(LoserTree::new(
                                runs.into_iter().map(|r| Run::new(r, true)).collect(),
                            ))
                        });
                    }
                }
            }
            match self.current.as_mut() {
                Some(SectionState::Single(run)) => {
                    // Rows of earlier sections go out first.
                    if !self.chunk.is_empty() {
                        return self.flush();
                    }
                    match next_single(&self.ctx, run, &self.schema, self.chunk.with_sequence())? {
                        Some(batch) => return Ok(Some(batch)),
                        None => self.current = None,
                    }
                }
                Some(SectionState::Merging(tree)) => {
                    let more = merge_section(
                        &self.ctx,
                        tree,
                        &mut self.function,
                        &mut self.chunk,
                        &self.bucket_path,
                        &self.fields,
                        self.batch_size,
                    )?;
                    if !more {
                        self.current = None;
                    }
                    if self.chunk.len() >= self.batch_size {
                        return self.flush();
                    }
                }
                None => {}
            }
        }
        if self.chunk.is_empty() {
            Ok(None)
        } else {
            self.flush()
        }
    }

    /// Builds the output batches of the chunk ([`Chunk::flush`]), starts a new chunk, and returns the first
    /// batch (the others wait in `ready`).
    pub(crate) fn flush(&mut self) -> Result<Option<RecordBatch>> {
        let batches = self
            .chunk
            .flush(&self.schema, &self.fields, &self.bucket_path)?;
        self.ready.extend(batches);
        Ok(self.ready.pop_front())
    }
}

/// The next batch of a single-run section: its rows without `-U`/`-D` (all of them for `$audit_log`,
/// [`Table::audit_log`]), kinds kept, with `_SEQUENCE_NUMBER` after `_row_kind` when `with_sequence`.
pub(crate) fn next_single(
    ctx: &RunContext,
    run: &mut Run,
    schema: &SchemaRef,
    with_sequence: bool,
) -> Result<Option<RecordBatch>> {
    loop {
        run.step_batch(ctx)?;
        let Some(current) = &run.current else {
            return Ok(None);
        };
        let batch = &current.batch;
        let keep_delete = ctx.keep_delete;
        let keep = BooleanArray::from_iter(
            current
                .kinds
                .iter()
                .map(|k| Some(keep_delete || RowKind::from_byte(*k).is_some_and(RowKind::is_add))),
        );
        let columns = output_columns(batch, with_sequence);
        let filtered = if keep.true_count() == batch.num_rows() {
            columns
        } else {
            columns
                .iter()
                .map(|c| arrow_select::filter::filter(c, &keep))
                .collect::<std::result::Result<_, _>>()
                .map_err(|e| Error::library(ErrorKind::Decode, &ctx.bucket_path, "", e))?
        };
        if keep.true_count() == 0 {
            continue;
        }
        return RecordBatch::try_new(schema.clone(), filtered)
            .map(Some)
            .map_err(|e| Error::library(ErrorKind::Decode, &ctx.bucket_path, "", e));
    }
}

/// The `LookupMergeFunction` pick of `table`'s line when its merge function is wrapped in one
/// (`CoreOptions#needLookup`: `changelog-producer=lookup`, `deletion-vectors.enabled` or `force-lookup`;
/// never for `merge-engine=first-row`, which `LookupMergeFunction.wrap` leaves as it is).
///
/// Errors: [`Error::InvalidOption`] when `force-lookup` is not a boolean.
fn lookup_pick(table: &Table) -> Result<Option<LookupPick>> {
    let options = table.options();
    if options
        .merge_engine
        .is(crate::options::MergeEngine::FirstRow)
    {
        return Ok(None);
    }
    let force = options
        .force_lookup
        .get()
        .map_err(|e| e.at(table.path().join("schema")))?;
    let needs = options.changelog_producer == crate::options::ChangelogProducer::Lookup
        || options.deletion_vectors_enabled
        || force;
    Ok(needs.then_some(table.release().rules().lookup_pick))
}

/// The fast path of [`merge_section`]: while the tree rests on a winner whose key is below every other
/// run's current key, and unique in its own run, that record is the only one of its key, which the tree, the
/// `ReducerMergeFunctionWrapper` (a key seen once is emitted unchanged) and `DropDeleteReader` would turn into
/// itself (kept when `+I`/`+U`). Emits such records straight from the winner's batch as ranges of it
/// ([`OutRow::Range`], found by a galloping search against the lowest other run's key:
/// [`Run::sole_keys_below`]), then re-plays the tree once for the record it stopped at; the output is the
/// same as record by record. Returns whether it emitted or skipped any record.
fn emit_sole_keys(
    tree: &mut LoserTree<Run>,
    chunk: &mut Chunk,
    batch_size: usize,
    keep_delete: bool,
) -> Result<bool> {
    let Some(w) = tree.resting_winner() else {
        return Ok(false);
    };
    let runs = tree.cursors_mut();
    if w >= runs.len() {
        return Err(tree_bug(w as isize));
    }
    // The run holding the lowest current key of the other runs (`None`: they are all at their end). Those
    // runs do not move while the winner's records go out, so their key is borrowed, not copied.
    let mut lowest: Option<usize> = None;
    for (i, r) in runs.iter().enumerate() {
        if i == w || r.current.is_none() {
            continue;
        }
        let Some(k) = r.key() else {
            return Ok(false);
        };
        if lowest.is_none_or(|l| runs[l].key().is_none_or(|b| k < b)) {
            lowest = Some(i);
        }
    }
    let (run, other): (&mut Run, Option<&Run>) = match lowest {
        None => (runs.get_mut(w).ok_or_else(|| tree_bug(w as isize))?, None),
        Some(l) if l < w => {
            let (low, high) = runs.split_at_mut(w);
            (
                high.first_mut().ok_or_else(|| tree_bug(w as isize))?,
                low.get(l),
            )
        }
        Some(l) => {
            let (low, high) = runs.split_at_mut(l);
            (
                low.get_mut(w).ok_or_else(|| tree_bug(w as isize))?,
                high.first(),
            )
        }
    };
    let bound = other.and_then(Run::key);
    // The winner's records from its current one up to (not including) the first whose key is not below the
    // bound or is not the only one of its key in the run, all in the current batch ([`Run::sole_keys_below`]).
    let start = run.row;
    let end = run.sole_keys_below(bound);
    let mut moved = false;
    if end > start {
        let src = chunk.source_of(run)?;
        let kinds = run
            .current
            .as_ref()
            .map(|c| c.kinds.clone())
            .ok_or_else(|| tree_bug(w as isize))?;
        // `+I`/`+U` records go out in ranges; `-U`/`-D` ones are dropped (DropDeleteReader) unless
        // `keep_delete`; at most `batch_size` rows in the chunk.
        let mut row = start;
        let mut from = start;
        while row < end && chunk.len() + (row - from) < batch_size {
            let add = keep_delete
                || RowKind::from_byte(kinds[row])
                    .ok_or_else(|| super::run::kind_error(kinds[row]))?
                    .is_add();
            if !add {
                chunk.push(OutRow::Range {
                    src,
                    start: from,
                    len: row - from,
                });
                from = row + 1;
            }
            row += 1;
        }
        chunk.push(OutRow::Range {
            src,
            start: from,
            len: row - from,
        });
        run.row = row;
        moved = row > start;
    }
    if moved {
        tree.readjust_winner(w)?;
    }
    Ok(moved)
}

/// Under `sort-engine=min-heap`, the records of one key (`group`, runs in merge order) must not tie on
/// their sequence (`sequence.field`, then `_SEQUENCE_NUMBER`). Without ties `SortMergeReaderWithMinHeap`
/// gives the records of a key in the loser tree's order, ascending sequence; with a tie the order is
/// `java.util.PriorityQueue`'s heap layout, which the format readers' batch boundaries shape, and is not
/// reproduced. The loser tree puts tied records next to each other, so comparing neighbours finds every tie.
///
/// Errors: [`Error::Unsupported`] naming the bucket and the option.
fn refuse_sequence_ties(runs: &[Run], group: &[usize], path: &Path) -> Result<()> {
    for pair in group.windows(2) {
        let (Some(a), Some(b)) = (runs.get(pair[0]), runs.get(pair[1])) else {
            return Err(tree_bug(pair[0].max(pair[1]) as isize));
        };
        if a.sequence_order(b) == Some(std::cmp::Ordering::Equal) {
            return Err(Error::Unsupported {
                path: path.to_path_buf(),
                reason: format!(
                    "sort-engine=min-heap: two records of one key have the same sequence ({}), which \
                     SortMergeReaderWithMinHeap orders by its java.util.PriorityQueue's layout",
                    a.sequence_number()
                ),
            });
        }
    }
    Ok(())
}

/// Merges keys of a multi-run section into the chunk until it holds `batch_size` rows; false when the
/// section is exhausted.
pub(crate) fn merge_section(
    ctx: &RunContext,
    tree: &mut LoserTree<Run>,
    function: &mut Reducer,
    chunk: &mut Chunk,
    path: &Path,
    fields: &[DataField],
    batch_size: usize,
) -> Result<bool> {
    tree.initialize(ctx)?;
    // `forceKeepDelete` (`$audit_log`): no DropDeleteReader.
    let keep_delete = ctx.keep_delete;
    let mut group: Vec<usize> = Vec::with_capacity(tree.len());
    // The levels of the group's records (LookupMergeFunction), reused from key to key.
    let mut levels: Vec<i32> = Vec::with_capacity(tree.len());
    while chunk.len() < batch_size {
        tree.adjust_for_next_loop(ctx)?;
        if ctx.sole_keys_as_is && emit_sole_keys(tree, chunk, batch_size, keep_delete)? {
            continue;
        }
        let Some(first) = tree.pop_winner()? else {
            return Ok(false);
        };
        function.reset();
        if !ctx.sole_keys_as_is {
            function.merge_all();
        }
        group.clear();
        group.push(first);
        while let Some(next) = tree.peek_winner()? {
            tree.pop_winner()?;
            group.push(next);
        }
        if ctx.sort_engine == SortEngine::MinHeap {
            refuse_sequence_ties(tree.cursors_mut(), &group, path)?;
        }
        if let (Some(pick), true) = (ctx.lookup, group.len() > 1) {
            // LookupMergeFunction: the records of level 0 and one record above it.
            levels.clear();
            let cursors = tree.cursors_mut();
            levels.extend(group.iter().map(|r| cursors.get(*r).map_or(0, Run::level)));
            if let Some(kept) = pick.pick(&levels) {
                let mut i = 0;
                group.retain(|_| {
                    let keep = levels[i] <= 0 || i == kept;
                    i += 1;
                    keep
                });
            }
            function.merge_all();
        }
        let mut c = Ctx {
            runs: tree.cursors_mut(),
            chunk,
            path,
            fields,
        };
        for &run in group.iter() {
            let r = c.run(run)?;
            let rec = Rec {
                run,
                row: r.row,
                kind: r.kind()?,
                seq: r.sequence_number(),
            };
            function.add(&mut c, rec)?;
        }
        // DropDeleteReader: only +I and +U results are kept (every result with `keep_delete`).
        match function.result() {
            Some(Merged::Whole(rec)) if keep_delete || rec.kind.is_add() => {
                let src = c.source(rec)?;
                c.chunk.push(OutRow::Whole {
                    src,
                    row: rec.row,
                    kind: rec.kind,
                });
            }
            Some(Merged::Cells { kind, cells, seq }) if keep_delete || kind.is_add() => {
                c.chunk.push(OutRow::Cells { kind, cells, seq });
            }
            _ => {}
        }
    }
    Ok(true)
}
