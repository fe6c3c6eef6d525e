//! The merge functions of the merge engines (`org.apache.paimon.mergetree.compact.MergeFunction`), one
//! implementation of [`MergeFunction`] per engine: [`deduplicate`], [`first_row`], [`partial_update`] and
//! [`aggregation`]; [`Reducer`] is `ReducerMergeFunctionWrapper` around them; [`merge_function`] picks the
//! table's.

pub(crate) mod aggregation;
pub(crate) mod deduplicate;
pub(crate) mod first_row;
pub(crate) mod partial_update;

use crate::error::{Error, Result};
use crate::line::InitRow;
use crate::options::MergeEngine;
use crate::row_kind::RowKind;
use crate::table::Table;

use super::output::{Cell, Ctx, Rec};

/// The result of merging the records of one key.
pub(crate) enum Merged {
    /// One of the input records, unchanged.
    Whole(Rec),
    /// A row built field by field (one cell per value column) with its kind and sequence number (the
    /// `KeyValue.sequenceNumber` of the function's `getResult`).
    Cells {
        kind: RowKind,
        cells: Vec<Cell>,
        seq: i64,
    },
}

/// A merge engine's merge function (`org.apache.paimon.mergetree.compact.MergeFunction`): `reset` before
/// the records of a key, `add` for each of them in merge order, `result` (`getResult`) after the last.
/// Records are read through the merge's [`Ctx`]. Errors: [`Error::Merge`] where Java throws (a record the
/// engine rejects), [`Error::Unsupported`] for a value the native reader does not reproduce.
pub(crate) trait MergeFunction: Send {
    /// `reset()`.
    fn reset(&mut self);

    /// `add(kv)`.
    fn add(&mut self, ctx: &mut Ctx<'_>, rec: Rec) -> Result<()>;

    /// `getResult()`; `None` when the engine keeps nothing of the key.
    fn result(&mut self) -> Option<Merged>;
}

/// The merge function of `table`'s `merge-engine` (`deduplicate`, `first-row`, `partial-update`,
/// `aggregation`), with its options checked as Java checks them. Errors: [`Error::Merge`] for invalid
/// options (Java's messages), [`Error::Unsupported`] for another merge engine.
pub(crate) fn merge_function(table: &Table) -> Result<Box<dyn MergeFunction>> {
    let options = table.options();
    let ignore_delete = options.ignore_delete;
    // An unknown `merge-engine` fails here, where Java's `CoreOptions.mergeEngine()` is read.
    let engine = options.merge_engine.get().map_err(|_| Error::Unsupported {
        path: table.path().to_path_buf(),
        reason: format!("merge-engine={}", options.merge_engine),
    })?;
    Ok(match engine {
        MergeEngine::Deduplicate => Box::new(deduplicate::Deduplicate::new(ignore_delete)),
        MergeEngine::FirstRow => Box::new(first_row::FirstRow::new(ignore_delete)),
        MergeEngine::Aggregation => Box::new(aggregation::Aggregation::new(table)?),
        MergeEngine::PartialUpdate => {
            Box::new(partial_update::PartialUpdate::new(table, ignore_delete)?)
        }
    })
}

/// `ReducerMergeFunctionWrapper`: a key seen once is emitted unchanged, without the merge function.
pub(crate) struct Reducer {
    function: Box<dyn MergeFunction>,
    initial: Option<Rec>,
    merging: bool,
}

impl Reducer {
    pub(crate) fn new(function: Box<dyn MergeFunction>) -> Reducer {
        Reducer {
            function,
            initial: None,
            merging: false,
        }
    }

    /// Before the records of the next key.
    pub(crate) fn reset(&mut self) {
        self.initial = None;
        self.merging = false;
        self.function.reset();
    }

    /// Sends every record of this key to the merge function, even if only one is added: the key had
    /// several records before `LookupMergeFunction` dropped some (`ReducerMergeFunctionWrapper` counts what
    /// it was given, the wrapped function merges what is left).
    pub(crate) fn merge_all(&mut self) {
        self.merging = true;
    }

    /// `ReducerMergeFunctionWrapper.add`.
    pub(crate) fn add(&mut self, ctx: &mut Ctx<'_>, rec: Rec) -> Result<()> {
        if self.merging && self.initial.is_none() {
            return self.function.add(ctx, rec);
        }
        match self.initial {
            None => {
                self.initial = Some(rec);
                Ok(())
            }
            Some(first) => {
                if !self.merging {
                    self.merging = true;
                    self.function.add(ctx, first)?;
                }
                self.function.add(ctx, rec)
            }
        }
    }

    /// `ReducerMergeFunctionWrapper.getResult`.
    pub(crate) fn result(&mut self) -> Option<Merged> {
        if !self.merging {
            return self.initial.map(Merged::Whole);
        }
        self.function.result()
    }
}

/// `initRow` of `rec` into `row`, as the release does ([`InitRow`]): nothing (1.0), the NOT NULL fields
/// (1.1-1.3), or every field (1.4 on); `nullable` per field. Errors: [`Error::Merge`] naming the field's
/// position for a NULL in a NOT NULL field (Java's "Field i can not be null").
pub(crate) fn init_row(
    ctx: &mut Ctx<'_>,
    rec: Rec,
    rule: InitRow,
    nullable: &[bool],
    row: &mut [Cell],
) -> Result<()> {
    if rule == InitRow::None {
        return Ok(());
    }
    for (i, slot) in row.iter_mut().enumerate() {
        let nullable = nullable.get(i).copied().unwrap_or(true);
        if nullable && rule == InitRow::NotNullFields {
            continue;
        }
        let v = ctx.field(rec, i)?;
        if v.is_null() && !nullable {
            return Err(ctx.err(format!("Field {i} can not be null")));
        }
        *slot = v;
    }
    Ok(())
}

/// The value of option `key` in the latest schema.
pub(crate) fn option<'a>(table: &'a Table, key: &str) -> Option<&'a str> {
    table.schema().option(key)
}

/// A boolean option (`true`/`false`, any case), `default` when unset. Errors: [`Error::Merge`] naming the
/// option for another value.
pub(crate) fn bool_opt(table: &Table, key: &str, default: bool) -> Result<bool> {
    match option(table, key) {
        None => Ok(default),
        Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
        Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
        Some(v) => Err(Error::Merge {
            path: table.path().to_path_buf(),
            reason: format!("option `{key}`: `{v}` is not a boolean"),
        }),
    }
}

/// [`Error::Merge`] naming the table.
pub(crate) fn merge_err(table: &Table, reason: String) -> Error {
    Error::Merge {
        path: table.path().to_path_buf(),
        reason,
    }
}
