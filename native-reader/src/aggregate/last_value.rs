//! The functions that keep one of the values: `primary-key` (`FieldPrimaryKeyAgg`), `last_value`
//! (`FieldLastValueAgg`), `last_non_null_value` (`FieldLastNonNullValueAgg`, the default), `first_value`
//! (`FieldFirstValueAgg`) and `first_non_null_value` / `first_not_null_value`
//! (`FieldFirstNonNullValueAgg`).

use crate::error::Result;
use crate::merge::output::{Cell, Ctx};

use super::{AggField, FieldAggregator};

/// `FieldPrimaryKeyAgg`: the input, also on retraction.
pub(crate) struct PrimaryKey(pub(crate) AggField);

impl FieldAggregator for PrimaryKey {
    fn field(&self) -> &AggField {
        &self.0
    }

    fn agg(&mut self, _ctx: &Ctx<'_>, _acc: Cell, input: Cell) -> Result<Cell> {
        Ok(input)
    }

    fn retract(&mut self, _ctx: &Ctx<'_>, _acc: Cell, input: Cell) -> Result<Cell> {
        Ok(input)
    }
}

/// `FieldLastValueAgg`: the input; a retraction gives NULL.
pub(crate) struct LastValue(pub(crate) AggField);

impl FieldAggregator for LastValue {
    fn field(&self) -> &AggField {
        &self.0
    }

    fn agg(&mut self, _ctx: &Ctx<'_>, _acc: Cell, input: Cell) -> Result<Cell> {
        Ok(input)
    }

    fn retract(&mut self, _ctx: &Ctx<'_>, _acc: Cell, _input: Cell) -> Result<Cell> {
        Ok(Cell::Null)
    }
}

/// `FieldLastNonNullValueAgg`: the input unless NULL; retracting a non-NULL input gives NULL.
pub(crate) struct LastNonNullValue(pub(crate) AggField);

impl FieldAggregator for LastNonNullValue {
    fn field(&self) -> &AggField {
        &self.0
    }

    fn agg(&mut self, _ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        Ok(if input.is_null() { acc } else { input })
    }

    fn retract(&mut self, _ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        Ok(if input.is_null() { acc } else { Cell::Null })
    }
}

/// `FieldFirstValueAgg`: the first input of the key (NULL included).
pub(crate) struct FirstValue {
    pub(crate) field: AggField,
    pub(crate) initialized: bool,
}

impl FieldAggregator for FirstValue {
    fn field(&self) -> &AggField {
        &self.field
    }

    fn agg(&mut self, _ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        if !self.initialized {
            self.initialized = true;
            Ok(input)
        } else {
            Ok(acc)
        }
    }

    fn reset(&mut self) {
        self.initialized = false;
    }
}

/// `FieldFirstNonNullValueAgg`: the first non-NULL input of the key.
pub(crate) struct FirstNonNullValue {
    pub(crate) field: AggField,
    pub(crate) initialized: bool,
}

impl FieldAggregator for FirstNonNullValue {
    fn field(&self) -> &AggField {
        &self.field
    }

    fn agg(&mut self, _ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        if !self.initialized && !input.is_null() {
            self.initialized = true;
            Ok(input)
        } else {
            Ok(acc)
        }
    }

    fn reset(&mut self) {
        self.initialized = false;
    }
}
