//! `deduplicate` (`DeduplicateMergeFunction`, with `ignore-delete`): the last record of the key.

use crate::error::Result;
use crate::merge::output::{Ctx, Rec};

use super::{MergeFunction, Merged};

/// `DeduplicateMergeFunction`.
pub(crate) struct Deduplicate {
    ignore_delete: bool,
    latest: Option<Rec>,
}

impl Deduplicate {
    pub(crate) fn new(ignore_delete: bool) -> Deduplicate {
        Deduplicate {
            ignore_delete,
            latest: None,
        }
    }
}

impl MergeFunction for Deduplicate {
    fn reset(&mut self) {
        self.latest = None;
    }

    fn add(&mut self, _ctx: &mut Ctx<'_>, rec: Rec) -> Result<()> {
        if !(self.ignore_delete && rec.kind.is_retract()) {
            self.latest = Some(rec);
        }
        Ok(())
    }

    fn result(&mut self) -> Option<Merged> {
        self.latest.map(Merged::Whole)
    }
}
