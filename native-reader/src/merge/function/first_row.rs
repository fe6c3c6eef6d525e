//! `first-row` (`FirstRowMergeFunction`, with `first-row.ignore-delete` / `ignore-delete`): the first
//! record of the key; `-U`/`-D` records are an error unless ignored.

use crate::error::Result;
use crate::merge::output::{Ctx, Rec};

use super::{MergeFunction, Merged};

/// `FirstRowMergeFunction`.
pub(crate) struct FirstRow {
    ignore_delete: bool,
    first: Option<Rec>,
}

impl FirstRow {
    pub(crate) fn new(ignore_delete: bool) -> FirstRow {
        FirstRow {
            ignore_delete,
            first: None,
        }
    }
}

impl MergeFunction for FirstRow {
    fn reset(&mut self) {
        self.first = None;
    }

    fn add(&mut self, ctx: &mut Ctx<'_>, rec: Rec) -> Result<()> {
        if rec.kind.is_retract() {
            if self.ignore_delete {
                return Ok(());
            }
            return Err(ctx.err(
                "By default, First row merge engine can not accept DELETE/UPDATE_BEFORE \
                 records. You can config 'first-row.ignore-delete' to ignore the \
                 DELETE/UPDATE_BEFORE records."
                    .into(),
            ));
        }
        if self.first.is_none() {
            self.first = Some(rec);
        }
        Ok(())
    }

    fn result(&mut self) -> Option<Merged> {
        self.first.map(Merged::Whole)
    }
}
