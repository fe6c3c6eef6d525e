//! `listagg` (`FieldListaggAgg`, `fields.<f>.list-agg-delimiter`).

use crate::error::Result;
use crate::merge::output::{Cell, Ctx};
use crate::value::Datum;

use super::{null_keeps_other, AggField, FieldAggregator};

/// `FieldListaggAgg`: the accumulator, the delimiter, the input; NULL keeps the other side.
pub(crate) struct Listagg {
    pub(crate) field: AggField,
    pub(crate) delimiter: String,
}

impl FieldAggregator for Listagg {
    fn field(&self) -> &AggField {
        &self.field
    }

    fn agg(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        null_keeps_other(&self.field, ctx, acc, input, |a, b| match (a, b) {
            (Datum::String(a), Datum::String(b)) => Ok(Cell::Value(Datum::String(format!(
                "{a}{}{b}",
                self.delimiter
            )))),
            _ => Err(ctx.err("listagg over non-strings".into())),
        })
    }
}
