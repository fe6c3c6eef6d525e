//! The diff read of a batch split with before-files (`IncrementalDiffSplitRead`): what a batch scan of a
//! table's own `incremental-between` of two tags, or with `incremental-between-scan-mode=diff`, reads
//! ([`crate::scan`]'s diff plan).
//!
//! Each side (the before-files with their deletion vectors, the data files with theirs) is merged as a batch
//! split is, by a [`MergeReader`] with the table's merge engine (`MergeFileSplitRead#createMergeReader`),
//! deletes dropped unless the read keeps them and the release lets the sides keep them
//! ([`IncrementalDiff::sides_keep_delete`]). The two merged streams are then merged once more as two sorted
//! runs, the before side first (`mergeSortNoSpill`, levels `Integer.MIN_VALUE` and `Integer.MAX_VALUE`), by
//! the same loser tree as any section, so that records of one key with equal sequences come out in the
//! release's order; every key goes to [`DiffMerger`] (no `ReducerMergeFunctionWrapper`). A result that is
//! no add is kept only when the read keeps deletes (`$audit_log`, `$binlog`).

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema};

use crate::error::{Error, Result};
use crate::line::IncrementalDiff;
use crate::read::AheadPool;
use crate::row_kind::RowKind;
use crate::split::{DataFileDesc, DeletionFileDesc, Split};
use crate::table::Table;

use super::function::{MergeFunction, Merged};
use super::loser_tree::tree_bug;
use super::output::{Ctx, Rec};
use super::reader::{MergeReader, MergeSetup};
use super::run::{RunContext, RunSource};
use super::VALUE_OFFSET;

/// The run index of the before side in the diff merge (`BEFORE_LEVEL`, the first reader).
const BEFORE: usize = 0;
/// The run index of the after side (`AFTER_LEVEL`).
const AFTER: usize = 1;

/// The diff read of `split` (see the module doc), batches as [`MergeReader`]'s.
///
/// Errors: as [`MergeReader::new`] for either side; [`Error::Merge`] naming the table if a key comes more
/// than once from one side (a bug here: each side is merged).
pub(crate) fn diff_reader(
    table: &Arc<Table>,
    split: &Split,
    batch_size: usize,
    ahead: Option<AheadPool>,
) -> Result<MergeReader> {
    let rule = table.release().rules().incremental_diff;
    let keep_delete = table.audit_log();
    let side = |files: &[DataFileDesc], deletion_files: &[Option<DeletionFileDesc>], level| {
        let split = super::side_split(split, files, deletion_files);
        let mut setup = MergeSetup::of(table)?;
        setup.keep_delete = keep_delete && rule.sides_keep_delete();
        if !setup.with_sequence {
            setup.with_sequence = true;
            setup.schema = with_sequence_number(&setup.schema);
        }
        let reader = MergeReader::for_split(table, &split, batch_size, ahead.clone(), setup)?;
        Ok::<_, Error>(Box::new(MergedSide {
            reader,
            level,
            path: PathBuf::from(&split.bucket_path),
        }) as Box<dyn RunSource>)
    };
    let before = side(&split.before_files, &split.before_deletion_files, i32::MIN)?;
    let after = side(&split.data_files, &split.deletion_files, i32::MAX)?;
    let mut setup = MergeSetup::of(table)?;
    setup.function = Box::new(DiffMerger::new(rule, keep_delete, table));
    setup.lookup = None;
    setup.keep_delete = keep_delete;
    setup.sole_keys_as_is = false;
    MergeReader::with_setup(
        table,
        &split.bucket_path,
        &split.partition,
        vec![vec![before, after]],
        batch_size,
        None,
        setup,
    )
}

/// `schema` with `_SEQUENCE_NUMBER` (BIGINT NOT NULL) after `_row_kind`, as a merge reads its runs.
fn with_sequence_number(schema: &Schema) -> Schema {
    let mut fields: Vec<Arc<Field>> = schema.fields().iter().cloned().collect();
    let at = fields.len().min(1);
    fields.insert(
        at,
        Arc::new(Field::new("_SEQUENCE_NUMBER", ArrowType::Int64, false)),
    );
    Schema::new_with_metadata(fields, schema.metadata().clone())
}

/// One side of the diff as a sorted run: its merged rows, each key once, with `_SEQUENCE_NUMBER` (the merged
/// `KeyValue.sequenceNumber`), at the side's level.
struct MergedSide {
    reader: MergeReader,
    level: i32,
    path: PathBuf,
}

impl RunSource for MergedSide {
    fn next_batch(&mut self, _ctx: &RunContext) -> Result<Option<(RecordBatch, PathBuf, i32)>> {
        while let Some(batch) = self.reader.next_batch()? {
            if batch.num_rows() > 0 {
                return Ok(Some((
                    as_run_batch(&batch, &self.path)?,
                    self.path.clone(),
                    self.level,
                )));
            }
        }
        Ok(None)
    }
}

/// A merge's output batch (`_row_kind`, `_SEQUENCE_NUMBER`, the values) in the shape of a run's batch
/// ([`crate::decode::read_file`]'s: `_SEQUENCE_NUMBER`, `_row_kind`, the values).
///
/// Errors: [`Error::Decode`] naming the bucket if the batch has fewer than two columns (a bug here).
fn as_run_batch(batch: &RecordBatch, path: &std::path::Path) -> Result<RecordBatch> {
    if batch.num_columns() < VALUE_OFFSET {
        return Err(Error::Decode {
            path: path.to_path_buf(),
            reason: "a merged side of a diff lacks `_row_kind` or `_SEQUENCE_NUMBER`".into(),
        });
    }
    let order: Vec<usize> = [1, 0]
        .into_iter()
        .chain(VALUE_OFFSET..batch.num_columns())
        .collect();
    batch
        .project(&order)
        .map_err(|e| Error::library(crate::error::ErrorKind::Decode, path, "", e))
}

/// `IncrementalDiffSplitRead.DiffMerger` of a release ([`IncrementalDiff`]): the records of one key, at most
/// one per side, before side first unless the merge order says otherwise.
pub(crate) struct DiffMerger {
    rule: IncrementalDiff,
    keep_delete: bool,
    table_path: PathBuf,
    recs: Vec<Rec>,
    /// The two records differ (`!valueEquals`, or `!valueAndRowKindEquals`).
    differ: bool,
}

impl DiffMerger {
    pub(crate) fn new(rule: IncrementalDiff, keep_delete: bool, table: &Table) -> DiffMerger {
        DiffMerger {
            rule,
            keep_delete,
            table_path: table.path().to_path_buf(),
            recs: Vec::with_capacity(2),
            differ: false,
        }
    }
}

impl MergeFunction for DiffMerger {
    fn reset(&mut self) {
        self.recs.clear();
        self.differ = false;
    }

    fn add(&mut self, ctx: &mut Ctx<'_>, rec: Rec) -> Result<()> {
        match self.recs.first().copied() {
            None => {}
            Some(first) if self.recs.len() == 1 => {
                let kinds_differ = first.kind.is_add() != rec.kind.is_add();
                self.differ =
                    (self.rule.compares_kind() && kinds_differ) || !values_equal(ctx, first, rec)?;
            }
            Some(_) => {
                return Err(Error::Merge {
                    path: self.table_path.clone(),
                    reason: format!("Illegal kv number: {}", self.recs.len() + 1),
                })
            }
        }
        self.recs.push(rec);
        Ok(())
    }

    fn result(&mut self) -> Option<Merged> {
        let sides: Vec<(usize, bool)> =
            self.recs.iter().map(|r| (r.run, r.kind.is_add())).collect();
        let (at, as_delete) = pick(self.rule, self.keep_delete, &sides, self.differ)?;
        let rec = *self.recs.get(at)?;
        Some(Merged::Whole(if as_delete {
            Rec {
                kind: RowKind::Delete,
                ..rec
            }
        } else {
            rec
        }))
    }
}

/// `DiffMerger#getResult` on the records of one key, given as (run, is an add) in merge order, and whether
/// two records differ: the position of the record given back, and whether it goes out as a `-D`; `None` for
/// nothing.
fn pick(
    rule: IncrementalDiff,
    keep_delete: bool,
    sides: &[(usize, bool)],
    differ: bool,
) -> Option<(usize, bool)> {
    match *sides {
        [(BEFORE, add)] => {
            let deleted = rule == IncrementalDiff::AfterSecondByValue || add;
            (keep_delete && deleted).then_some((0, true))
        }
        [_] => Some((0, false)),
        [_, (AFTER, _)] if differ => Some((1, false)),
        [(AFTER, _), _] if differ && rule.after_wherever_ordered() => Some((0, false)),
        _ => None,
    }
}

/// Whether the values of records `a` and `b` are equal column by column (`BinaryRow#equals` of the two
/// values: NULL equals NULL, floating-point values by their bits).
///
/// Errors: [`Error::Merge`] naming the bucket when a record's run has no current batch (a bug here).
fn values_equal(ctx: &mut Ctx<'_>, a: Rec, b: Rec) -> Result<bool> {
    let batch = |ctx: &mut Ctx<'_>, rec: Rec| -> Result<RecordBatch> {
        ctx.run(rec.run)?
            .current
            .as_ref()
            .map(|c| c.batch.clone())
            .ok_or_else(|| tree_bug(rec.run as isize))
    };
    let (left, right) = (batch(ctx, a)?, batch(ctx, b)?);
    if left.num_columns() != right.num_columns() {
        return Err(merge_err_at(
            ctx,
            "the two sides of a diff have different columns",
        ));
    }
    for col in VALUE_OFFSET..left.num_columns() {
        let x = left.column(col).slice(a.row, 1).to_data();
        let y = right.column(col).slice(b.row, 1).to_data();
        if x != y {
            return Ok(false);
        }
    }
    Ok(true)
}

fn merge_err_at(ctx: &Ctx<'_>, reason: &str) -> Error {
    Error::Merge {
        path: ctx.path.to_path_buf(),
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use IncrementalDiff::*;

    const RULES: [IncrementalDiff; 3] = [
        AfterSecondByValue,
        AfterSecondByValueAndKind,
        AfterByValueAndKind,
    ];

    #[test]
    fn a_key_of_one_side_is_its_after_record_or_a_delete_of_its_before_record() {
        for rule in RULES {
            assert_eq!(pick(rule, false, &[(AFTER, true)], false), Some((0, false)));
            assert_eq!(pick(rule, false, &[(BEFORE, true)], false), None);
            // `$audit_log`: the before record of a key the after side lost goes out as a `-D`
            assert_eq!(pick(rule, true, &[(BEFORE, true)], false), Some((0, true)));
        }
        // a before record that is itself a retraction: a `-D` on 1.0.x only (its sides never keep one)
        assert_eq!(
            pick(AfterSecondByValue, true, &[(BEFORE, false)], false),
            Some((0, true))
        );
        assert_eq!(
            pick(AfterSecondByValueAndKind, true, &[(BEFORE, false)], false),
            None
        );
    }

    #[test]
    fn a_key_of_both_sides_gives_the_after_record_when_they_differ() {
        let ordered = [(BEFORE, true), (AFTER, true)];
        let reversed = [(AFTER, true), (BEFORE, true)];
        for rule in RULES {
            assert_eq!(pick(rule, false, &ordered, true), Some((1, false)));
            assert_eq!(pick(rule, false, &ordered, false), None);
            assert_eq!(pick(rule, false, &reversed, false), None);
        }
        // the after record first in merge order (a lower sequence number): nothing up to 1.4.2
        assert_eq!(pick(AfterSecondByValue, false, &reversed, true), None);
        assert_eq!(
            pick(AfterSecondByValueAndKind, false, &reversed, true),
            None
        );
        assert_eq!(
            pick(AfterByValueAndKind, false, &reversed, true),
            Some((0, false))
        );
    }

    #[test]
    fn only_the_merge_of_2_0_gives_the_after_side_wherever_it_sorts() {
        assert!(!AfterSecondByValue.sides_keep_delete());
        assert!(AfterSecondByValueAndKind.sides_keep_delete());
        assert!(!AfterSecondByValue.compares_kind());
        assert!(AfterByValueAndKind.compares_kind());
        assert!(AfterByValueAndKind.after_wherever_ordered());
        assert!(!AfterSecondByValueAndKind.after_wherever_ordered());
    }

    #[test]
    fn a_sequence_number_column_goes_after_the_row_kind() {
        let schema = Schema::new(vec![
            Field::new("_row_kind", ArrowType::Int8, false),
            Field::new("k", ArrowType::Int32, false),
        ]);
        let names: Vec<String> = with_sequence_number(&schema)
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        assert_eq!(names, ["_row_kind", "_SEQUENCE_NUMBER", "k"]);
    }
}
