//! `listagg` (`FieldListaggAgg`, `fields.<f>.list-agg-delimiter`).

use crate::error::Result;
use crate::merge::output::{Cell, Ctx};
use crate::value::Datum;

use super::{value, AggField, FieldAggregator};

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
        if acc.is_null() || input.is_null() {
            return Ok(if acc.is_null() { input } else { acc });
        }
        let (a, b) = (
            value(&self.field, ctx, &acc)?,
            value(&self.field, ctx, &input)?,
        );
        match (a, b) {
            (Datum::String(a), Datum::String(b)) => Ok(Cell::Value(Datum::String(format!(
                "{a}{}{b}",
                self.delimiter
            )))),
            _ => Err(ctx.err("listagg over non-strings".into())),
        }
    }
}
