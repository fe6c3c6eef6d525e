//! Reading a split the way the released Paimon 1.0 reader does (`KeyValueTableRead`, `MergeFileSplitRead`,
//! `RawFileSplitRead`), merge-on-read included.
//!
//! Which reader a split gets ([`read_split`], mirroring the split read providers of `KeyValueTableRead`):
//! * append tables: every file in split order, rows in file order, all `+I` (`RawFileSplitRead`);
//! * primary-key streaming splits with before-files (the changes plan of an OVERWRITE snapshot read with
//!   `streaming-read-overwrite=true`, see [`crate::scan::plan_changes`]): the **changes reader**
//!   (`IncrementalChangelogReadProvider`): the merge reader over the before-files (with their deletion
//!   vectors) with every row turned into `-D` (`ReverseReader`), then the merge reader over the data files,
//!   rows with their merged kind (`+I` or `+U`). Nothing is diffed: a key on both sides comes out as `-D`
//!   of its old value (in the before part) and again with its new value (in the after part), equal values
//!   included;
//! * primary-key batch splits with before-files (`IncrementalDiffSplitRead`, the diff plans of
//!   `incremental-between`): the **diff reader** ([`diff`]): each side merged, then the two merged by key,
//!   a key's after-side record kept where it differs from the before side's;
//! * primary-key batch splits (`!is_streaming`) that are raw-convertible and whose files all know their
//!   delete-row count: the **raw reader**, files concatenated, every row `+I` (`RawFileSplitReadProvider`);
//! * other primary-key streaming splits: the **no-merge reader**, each row with its stored RowKind
//!   (`MergeFileSplitRead.createNoMergeReader`);
//! * other primary-key batch splits: the **merge reader** (`MergeFileSplitRead.createMergeReader`).
//!
//! The merge reader:
//! 1. partitions the split's files into sections of sorted runs ([`crate::mergetree::interval_partition`] over the
//!    files' `_MIN_KEY`/`_MAX_KEY`), sections read one after the other;
//! 2. in a section, one reader per run (its files concatenated, deletion vectors applied per file), merged
//!    by a loser tree (`LoserTree`, `SortMergeReaderWithLoserTree`) that reproduces Java's tree states, so
//!    that records with equal key **and** equal sequence come out in the same order as in Java; keys are
//!    compared on Arrow rows (`arrow::row`) of the trimmed primary key, records of one key by
//!    (`sequence.field` honouring `sequence.field.sort-order`, NULL first, then `_SEQUENCE_NUMBER`);
//! 3. the records of one key go through `ReducerMergeFunctionWrapper` (a key seen once is emitted unchanged)
//!    and the merge engine: `deduplicate` (with `ignore-delete`), `first-row`, `partial-update` (with
//!    `sequence-group`s, their aggregate functions, `partial-update.remove-record-on-delete` and
//!    `partial-update.remove-record-on-sequence-group`) or `aggregation`;
//!    When the table needs lookup (`changelog-producer=lookup`, `deletion-vectors.enabled`, `force-lookup`;
//!    not first-row), the engine is wrapped in `LookupMergeFunction` as the release does: of a key's records
//!    above level 0 only one is merged with its level-0 records (1.0: the latest; 2.0: the one at the lowest
//!    level), since lookup compaction already folded the deeper ones into it;
//! 4. `DropDeleteReader`: results whose kind is `-U`/`-D` are dropped; the output row kind is the result's
//!    kind (`+I` or `+U`).
//!
//! A section with a single run holds every key once, so it is streamed without the tree (same output).
//!
//! Aggregate functions of 1.0 (`fields.<f>.aggregate-function`, `fields.default-aggregate-function`,
//! `fields.<f>.ignore-retract`): `sum`, `product`, `max`, `min`, `last_value`, `last_non_null_value`
//! (the default), `first_value`, `first_non_null_value` (and `first_not_null_value`), `listagg`
//! (`fields.<f>.list-agg-delimiter`), `bool_and`, `bool_or`, `collect` (`fields.<f>.distinct`),
//! `merge_map`, `nested_update` (`fields.<f>.nested-key`), `rbm32`, `rbm64`, `theta_sketch`,
//! `hll_sketch`, and `primary-key` for primary-key columns (1.0 has no `count` function). Retraction
//! (`-U`/`-D`) follows each Java class: `sum`, `product`, `last_value`, `last_non_null_value`,
//! `collect`, `merge_map` and `nested_update` retract, the others throw unless
//! `fields.<f>.ignore-retract`. The collection and bitmap functions live
//! in `crate::aggregate`, which says what of them is not reproduced exactly (then
//! [`Error::Unsupported`]): Java `HashSet`/`HashMap` orders of element types whose `hashCode()` is not
//! modelled (`byte[]`, nested) or of bins Java turns into trees; `rbm32` unions of two
//! run containers larger than a bitmap; and **every `rbm64` union of two non-NULL values**: Paimon 1.0's
//! `RoaringBitmap64` is a `Roaring64Bitmap` whose `serialize` writes RoaringBitmap 1.0.5's adaptive radix
//! tree layout (node types and order depend on its insertion history), not the portable 64-bit format
//! the `roaring` crate writes. `hll_sketch` and `theta_sketch` union DataSketches images byte for byte as
//! datasketches-java 4.2.0 does in Paimon 1.0 ([`crate::sketch`]); like every function without a retract,
//! they throw on `-U`/`-D` unless `fields.<f>.ignore-retract`.
//!
//! Output shape: [`crate::types::read_schema`] of the latest schema (`_row_kind`, then the table's columns;
//! top-level strings and binaries as views), batches of at most `batch_size` rows (never empty), of varying
//! sizes: a stretch of at least 256 keys that one sorted run alone holds goes out as a slice of that run's
//! decoded batch (no value copied); the rows between such stretches are gathered into one batch. Memory is
//! bounded by the split: one batch per run of the current section, plus the output batches being built.

pub(crate) mod blob_view;
pub(crate) mod default_values;
pub(crate) mod diff;
pub(crate) mod function;
pub(crate) mod loser_tree;
pub(crate) mod output;
pub(crate) mod reader;
pub(crate) mod run;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Array, Int8Array, RecordBatch};
use arrow_schema::SchemaRef;

use crate::decode::SplitReader;
use crate::error::{Error, ErrorKind, Result};
use crate::line::FallbackBranch;
use crate::read::AheadPool;
use crate::row_kind::RowKind;
use crate::split::{DataFileDesc, DeletionFileDesc, Split};
use crate::system::binlog::BinlogPacker;
use crate::table::Table;
use crate::types::read_schema_as;

use reader::MergeReader;
/// Columns of a [`crate::decode::read_file`] batch before the value columns: `_SEQUENCE_NUMBER`,
/// `_row_kind`.
const VALUE_OFFSET: usize = 2;

/// Which reader [`read_split`] uses for a split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitReadKind {
    /// Files concatenated, rows with their stored kind (append tables: `+I`).
    NoMerge,
    /// Files concatenated, every row `+I` (raw-convertible batch splits of primary-key tables).
    Raw,
    /// Merge-on-read.
    Merge,
    /// Merge-on-read of the before-files as `-D`, then merge-on-read of the data files (streaming splits
    /// with before-files, `IncrementalChangelogReadProvider`).
    Changes,
    /// Each side merged, then the two diffed by key (batch splits with before-files, 1.0 to 1.3; every batch
    /// split of a diff plan from 1.4: `IncrementalDiffSplitRead`).
    Diff,
}

/// The reader `KeyValueTableRead` picks for `split` of a table with (`primary_keyed`) or without a primary
/// key; `force_keep_delete` (`InnerTableRead.forceKeepDelete`, `$audit_log`) turns the raw-file read off
/// (`PrimaryKeyTableRawFileSplitReadProvider.match`). A batch split with before-files is a diff
/// (`IncrementalDiffReadProvider.match` up to 1.3; from 1.4 every split of a diff plan is an
/// `IncrementalSplit`, which this reader's splits do not mark, so a diff split whose before side is empty
/// is read as a merged batch split, which gives the same rows: each key of the after side alone).
pub fn split_read_kind(
    primary_keyed: bool,
    split: &Split,
    force_keep_delete: bool,
) -> Result<SplitReadKind> {
    if !primary_keyed {
        return Ok(SplitReadKind::NoMerge);
    }
    if !split.before_files.is_empty() {
        return Ok(if split.is_streaming {
            SplitReadKind::Changes
        } else {
            SplitReadKind::Diff
        });
    }
    let raw = !force_keep_delete
        && !split.is_streaming
        && split.raw_convertible
        && split
            .data_files
            .iter()
            .all(|f| f.delete_row_count.is_some());
    Ok(if raw {
        SplitReadKind::Raw
    } else if split.is_streaming || split.bucket == crate::table::POSTPONE_BUCKET {
        // `MergeFileSplitRead.createReader`: streaming splits and splits of the postpone bucket (2.0; planned
        // by full first plans of streaming scans, whose batch phase does not skip it) are read without
        // merging, every record with its RowKind (`createNoMergeReader(.., keepDelete = true)`).
        SplitReadKind::NoMerge
    } else {
        SplitReadKind::Merge
    })
}

/// Reads `split` of `table` the way the released reader does (see the module docs), lazily, in batches of
/// at most `batch_size` rows with [`crate::types::read_schema`].
///
/// Errors (here or from the iterator, each naming a file, the bucket directory or the table):
/// [`Error::Unsupported`] for batch splits with before-files, unsupported merge engines or aggregate functions;
/// [`Error::Merge`] for invalid merge options or records the merge engine rejects (as Java throws);
/// [`Error::BinaryRow`] for malformed file keys; decoding errors of [`crate::decode::read_file`].
pub fn read_split(table: &Arc<Table>, split: &Split, batch_size: usize) -> Result<SplitBatches> {
    read_split_with(table, split, batch_size, None)
}

/// Starts fetching the data files of `split` when they are in an object store, all at once (one GET each,
/// [`crate::fileio::prefetch`]), so that its readers do not wait for them one after another. Files fetched
/// already, or being fetched, are not asked for again; local files need nothing.
pub fn prefetch_split(split: &Split) {
    if crate::fileio::is_store(Path::new(&split.bucket_path)) {
        let paths: Vec<PathBuf> = split
            .data_files
            .iter()
            .chain(&split.before_files)
            .filter_map(|f| f.path(&split.bucket_path).ok())
            .collect();
        crate::fileio::prefetch(&paths);
    }
}

/// [`read_split`], decoding ahead inside the split on `ahead`'s threads when given
/// ([`crate::read::ahead`]): each sorted run of a merge section, and the next file of a split read without
/// merging, are decoded on the pool while this thread merges or consumes the current batch. The batches
/// and their order are those of [`read_split`]; the extra memory is at most two decoded batches per sorted
/// run (per file of the two being read). The native reader's multi-threaded reads
/// ([`crate::read::read_splits`]) use it with their own pool.
///
/// Errors: as [`read_split`].
pub fn read_split_with(
    table: &Arc<Table>,
    split: &Split,
    batch_size: usize,
    ahead: Option<AheadPool>,
) -> Result<SplitBatches> {
    // `FallbackReadFileStoreTable.Read`: a split of the branch read second (marked fallback) is read by that
    // branch's table, every other split by the first's: with a primary branch, the primary branch's table,
    // streaming splits of the main branch included. 1.0/1.1 mark no split: a split whose first file has a key
    // goes to the fallback branch's reader (for one this branch planned, not reproduced: refused), any other
    // to this one's.
    let keyed = split
        .data_files
        .first()
        .is_some_and(|f| f.min_key.get(..4).is_some_and(|a| a != [0u8; 4]));
    let by_key =
        table.release().rules().fallback_branch == FallbackBranch::KeyedFilesReadByFallback;
    let table = match (split.fallback, table.fallback(), table.primary()) {
        (true, Some(fallback), _) if by_key && keyed => fallback,
        (false, Some(_), _) if by_key && keyed => {
            return Err(Error::Unsupported {
                path: PathBuf::from(&split.bucket_path),
                reason: format!(
                    "`scan.fallback-branch` as Paimon {} reads it: a split of keyed files (a primary-key \
                     table's) goes to the fallback branch's reader, with that branch's schemas, even one the \
                     main branch planned; not reproduced",
                    table.release()
                ),
            })
        }
        (_, Some(_), _) if by_key => table,
        (false, _, Some(primary)) => primary,
        (false, _, None) => table,
        (true, Some(fallback), _) => fallback,
        (true, None, Some(_)) => table,
        (true, None, None) => {
            return Err(Error::Unsupported {
                path: PathBuf::from(&split.bucket_path),
                reason: format!(
                "the split is of a fallback branch, but table {} has none (`scan.fallback-branch`)",
                table.path().display()
            ),
            })
        }
    };
    let batch_size = batch_size.max(1);
    let schema = read_schema_of(table);
    let kind = split_read_kind(table.is_primary_key_table(), split, table.audit_log())?;
    prefetch_split(split);
    let inner = match kind {
        SplitReadKind::NoMerge => Inner::Plain(SplitReader::with_ahead(
            table.clone(),
            split,
            batch_size,
            ahead,
        )?),
        SplitReadKind::Raw => Inner::Raw(SplitReader::with_ahead(
            table.clone(),
            split,
            batch_size,
            ahead,
        )?),
        SplitReadKind::Merge => {
            Inner::Merge(Box::new(MergeReader::new(table, split, batch_size, ahead)?))
        }
        SplitReadKind::Diff => Inner::Merge(Box::new(diff::diff_reader(
            table, split, batch_size, ahead,
        )?)),
        SplitReadKind::Changes => {
            // Each side read as `createMergeReader(files, deletionFiles, keepDelete = false)`.
            let side = |files: &[DataFileDesc], deletion_files: &[Option<DeletionFileDesc>]| {
                side_split(split, files, deletion_files)
            };
            Inner::Changes {
                before: Some(Box::new(MergeReader::new(
                    table,
                    &side(&split.before_files, &split.before_deletion_files),
                    batch_size,
                    ahead.clone(),
                )?)),
                after: Box::new(MergeReader::new(
                    table,
                    &side(&split.data_files, &split.deletion_files),
                    batch_size,
                    ahead,
                )?),
                bucket_path: PathBuf::from(&split.bucket_path),
            }
        }
    };
    let binlog = table.binlog().then(|| {
        BinlogPacker::new(
            &schema,
            split.is_streaming,
            crate::system::audit_sequence_number(table),
        )
    });
    let audit_log = table
        .audit_log()
        .then(|| crate::system::audit_log_schema(binlog.as_ref().map_or(&schema, |b| b.schema())));
    let defaults = default_values::DefaultValues::of(table, &schema)?;
    Ok(SplitBatches {
        schema,
        inner,
        views: blob_view::BlobViews::new(table),
        defaults,
        binlog,
        audit_log,
        failed: false,
    })
}

/// One side of a split with before-files (`files` with their `deletion_files`: the before side or the data
/// files) as a batch split of its own, to be merged (`MergeFileSplitRead#createMergeReader`).
pub(crate) fn side_split(
    split: &Split,
    files: &[DataFileDesc],
    deletion_files: &[Option<DeletionFileDesc>],
) -> Split {
    Split {
        data_files: files.to_vec(),
        before_files: Vec::new(),
        deletion_files: deletion_files.to_vec(),
        before_deletion_files: Vec::new(),
        is_streaming: false,
        raw_convertible: false,
        ..split.clone()
    }
}

/// The data table's read schema of `table`'s splits: [`read_schema_as`] of the latest schema, with
/// `_SEQUENCE_NUMBER` after `_row_kind` for `$audit_log`/`$binlog` with `table-read.sequence-number.enabled`
/// ([`crate::system::audit_read_schema`]).
fn read_schema_of(table: &Table) -> SchemaRef {
    Arc::new(crate::system::audit_read_schema(
        table,
        read_schema_as(&table.schema().fields, table.string_views()),
    ))
}

/// The schema of every batch [`read_split`] returns for a split of `table`: `_row_kind` then the latest
/// schema's columns (top-level strings and binaries as views); as `$binlog`, every column a list
/// ([`crate::system::binlog::binlog_schema`]); as `$audit_log` (and `$binlog`), `rowkind` after `_row_kind`
/// ([`crate::system::audit_log_schema`]), then `_SEQUENCE_NUMBER` with `table-read.sequence-number.enabled`.
/// `$row_tracking` and data-evolution reads have their own ([`SplitBatches::schema`]).
pub fn split_schema(table: &Table) -> SchemaRef {
    let read = read_schema_of(table);
    let read = if table.binlog() {
        crate::system::binlog::binlog_schema_of(&read, crate::system::audit_sequence_number(table))
    } else {
        read
    };
    if table.audit_log() {
        crate::system::audit_log_schema(&read)
    } else {
        read
    }
}

/// The batches of one split (see [`read_split`]). `Send`; ends after the first error.
pub struct SplitBatches {
    schema: SchemaRef,
    inner: Inner,
    /// `blob-view-field` values resolved from their upstream tables ([`blob_view`]), first of all steps.
    views: Option<blob_view::BlobViews>,
    /// `fields.<f>.default-value` filled into NULLs as 1.0 to 1.2 read them ([`default_values`]), right after
    /// the views.
    defaults: Option<default_values::DefaultValues>,
    /// `$binlog`'s packing, when the table is read as it (before the `$audit_log` step).
    binlog: Option<BinlogPacker>,
    /// `$audit_log`'s schema, when the table is read as it (or as `$binlog`): every batch goes through
    /// [`crate::system::to_audit_log`].
    audit_log: Option<SchemaRef>,
    failed: bool,
}

enum Inner {
    Plain(SplitReader),
    Raw(SplitReader),
    Merge(Box<MergeReader>),
    /// The before side (until exhausted), then the after side.
    Changes {
        before: Option<Box<MergeReader>>,
        after: Box<MergeReader>,
        bucket_path: PathBuf,
    },
}

impl SplitBatches {
    /// The schema of every batch: `_row_kind` then the table's columns (`$audit_log`: `_row_kind`,
    /// `rowkind`, then the table's columns).
    pub fn schema(&self) -> SchemaRef {
        self.audit_log
            .clone()
            .unwrap_or_else(|| self.schema.clone())
    }

    /// The next `$binlog` batch: the reader's batches through the [`BinlogPacker`], which may hold a row
    /// back until the next batch or the end.
    fn next_packed(&mut self) -> Option<Result<RecordBatch>> {
        loop {
            let next = self.next_inner();
            let packer = self.binlog.as_mut()?;
            let packed = match next {
                Some(Ok(batch)) => packer.push(batch),
                Some(Err(e)) => return Some(Err(e)),
                None => return packer.finish().transpose(),
            };
            match packed {
                Ok(None) => continue,
                other => return other.transpose(),
            }
        }
    }

    /// The next batch of the split's reader, its BLOB views resolved and its default values filled in.
    fn next_inner(&mut self) -> Option<Result<RecordBatch>> {
        let next = self.next_read();
        let next = match (&mut self.views, next) {
            (Some(views), Some(Ok(batch))) => Some(views.resolve(batch)),
            (_, next) => next,
        };
        match (&self.defaults, next) {
            (Some(defaults), Some(Ok(batch))) => Some(defaults.fill(batch)),
            (_, next) => next,
        }
    }

    /// The next batch of the split's reader.
    fn next_read(&mut self) -> Option<Result<RecordBatch>> {
        match &mut self.inner {
            Inner::Plain(r) => r.next(),
            Inner::Raw(r) => r
                .next()
                .map(|b| b.and_then(|b| all_insert(&self.schema, b))),
            Inner::Merge(m) => m.next_batch().transpose(),
            Inner::Changes {
                before,
                after,
                bucket_path,
            } => loop {
                match before {
                    Some(b) => match b.next_batch() {
                        Ok(Some(batch)) => break Some(reverse_kinds(batch, bucket_path)),
                        Ok(None) => *before = None,
                        Err(e) => break Some(Err(e)),
                    },
                    None => break after.next_batch().transpose(),
                }
            },
        }
    }
}

impl Iterator for SplitBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let item = if self.binlog.is_some() {
            self.next_packed()
        } else {
            self.next_inner()
        };
        let item = match (&self.audit_log, item) {
            (Some(schema), Some(Ok(batch))) => Some(crate::system::to_audit_log(schema, batch)),
            (_, item) => item,
        };
        if matches!(item, Some(Err(_))) {
            self.failed = true;
        }
        item
    }
}

/// `ReverseReader`: the batch with every row kind (`+I` or `+U`) set to `-D`. Errors: [`Error::Merge`]
/// naming the bucket directory for a `-U`/`-D` row (Java's `IllegalStateException`).
fn reverse_kinds(batch: RecordBatch, bucket_path: &Path) -> Result<RecordBatch> {
    let mut columns = batch.columns().to_vec();
    if let Some(first) = columns.first_mut() {
        if let Some(kinds) = first.as_any().downcast_ref::<Int8Array>() {
            if kinds
                .iter()
                .any(|k| !k.and_then(RowKind::from_byte).is_some_and(RowKind::is_add))
            {
                return Err(Error::Merge {
                    path: bucket_path.to_path_buf(),
                    reason:
                        "In reverse reader, the value kind of records cannot be UPDATE_BEFORE or \
                             DELETE."
                            .into(),
                });
            }
        }
        *first = Arc::new(Int8Array::from(vec![
            RowKind::Delete.to_byte();
            batch.num_rows()
        ]));
    }
    RecordBatch::try_new(batch.schema(), columns)
        .map_err(|e| Error::library(ErrorKind::Decode, bucket_path, "", e))
}

/// The batch with every row kind set to `+I`.
fn all_insert(schema: &SchemaRef, batch: RecordBatch) -> Result<RecordBatch> {
    let mut columns = batch.columns().to_vec();
    if let Some(first) = columns.first_mut() {
        *first = Arc::new(Int8Array::from(vec![
            RowKind::Insert.to_byte();
            batch.num_rows()
        ]));
    }
    RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| Error::library(ErrorKind::Decode, "<raw split>", "", e))
}
