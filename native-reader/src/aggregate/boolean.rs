//! `bool_and` (`FieldBoolAndAgg`) and `bool_or` (`FieldBoolOrAgg`).

use crate::error::Result;
use crate::merge::output::{Cell, Ctx};
use crate::value::Datum;

use super::{null_keeps_other, AggField, FieldAggregator};

/// `FieldBoolAndAgg` (`and` true) or `FieldBoolOrAgg`: NULL keeps the other side.
pub(crate) struct BoolAgg {
    pub(crate) field: AggField,
    pub(crate) and: bool,
}

impl FieldAggregator for BoolAgg {
    fn field(&self) -> &AggField {
        &self.field
    }

    fn agg(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        null_keeps_other(&self.field, ctx, acc, input, |a, b| match (a, b) {
            (Datum::Boolean(a), Datum::Boolean(b)) => {
                Ok(Cell::Value(Datum::Boolean(if self.and {
                    a && b
                } else {
                    a || b
                })))
            }
            _ => Err(ctx.err("bool_and/bool_or over non-booleans".into())),
        })
    }
}
