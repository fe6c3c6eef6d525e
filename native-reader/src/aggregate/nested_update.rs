//! `nested_update` (`FieldNestedUpdateAgg`).

use crate::error::Result;
use crate::line::NestedUpdateNullAccumulator;
use crate::merge::output::{Cell, Ctx};
use crate::schema::DataField;

use super::collect::{items, row};
use super::java_hash::{binary_row_key, murmur, row_equals, JavaHashMap};
use super::{computed, val, AggField, AggResult, FieldAggregator};
use crate::value::Datum;
/// `FieldNestedUpdateAgg` over rows of `fields`, keyed by the fields at `key` (empty: no key).
pub(crate) struct NestedUpdate<'a> {
    pub(crate) fields: &'a [DataField],
    pub(crate) key: &'a [usize],
    /// The release line's rule for a NULL accumulator ([`NestedUpdateNullAccumulator`]).
    pub(crate) null_accumulator: NestedUpdateNullAccumulator,
}

impl NestedUpdate<'_> {
    pub(crate) fn key_of(&self, r: &Datum) -> AggResult<(i32, Vec<u8>)> {
        let values = row(r)?;
        let fields: Vec<&DataField> = self.key.iter().map(|&i| &self.fields[i]).collect();
        let vals: Vec<&Datum> = self
            .key
            .iter()
            .map(|&i| values.get(i).unwrap_or(&Datum::Null))
            .collect();
        let bytes = binary_row_key(&fields, &vals)?;
        let hash = {
            // hashBytesByWords: the length is a multiple of 8.
            murmur(&bytes)
        };
        Ok((hash, bytes))
    }

    /// `agg(first, second)`: the non-NULL rows of both, the later of equal keys winning in the place
    /// of the first. A NULL `second` keeps `first`; a NULL `first` keeps `second` as it is in 1.0 and gives
    /// its non-NULL rows (in key-map order when keyed) in 2.0.
    pub(crate) fn agg(&self, first: &Datum, second: &Datum) -> AggResult<Datum> {
        if *second == Datum::Null {
            return Ok(first.clone());
        }
        if *first == Datum::Null && self.null_accumulator == NestedUpdateNullAccumulator::KeepsInput
        {
            return Ok(second.clone());
        }
        let none: &[Datum] = &[];
        let first_rows = if *first == Datum::Null {
            none
        } else {
            items(first)?
        };
        let rows = first_rows
            .iter()
            .chain(items(second)?)
            .filter(|r| **r != Datum::Null);
        if self.key.is_empty() {
            return Ok(Datum::List(rows.cloned().collect()));
        }
        let mut map: JavaHashMap<Vec<u8>, Datum> = JavaHashMap::new();
        for r in rows {
            let (hash, key) = self.key_of(r)?;
            map.put(hash, key, r.clone(), |a, b| a == b, false)?;
        }
        Ok(Datum::List(map.into_entries().map(|(_, v)| v).collect()))
    }

    /// `retract(acc, retract)`.
    pub(crate) fn retract(&self, acc: &Datum, retract: &Datum) -> AggResult<Datum> {
        if *acc == Datum::Null || *retract == Datum::Null {
            return Ok(acc.clone());
        }
        let removed = items(retract)?.iter().filter(|r| **r != Datum::Null);
        if self.key.is_empty() {
            let mut rows: Vec<Datum> = items(acc)?
                .iter()
                .filter(|r| **r != Datum::Null)
                .cloned()
                .collect();
            for r in removed {
                let mut kept = Vec::with_capacity(rows.len());
                for x in rows {
                    if !row_equals(self.fields, row(&x)?, row(r)?)? {
                        kept.push(x);
                    }
                }
                rows = kept;
            }
            return Ok(Datum::List(rows));
        }
        let mut map: JavaHashMap<Vec<u8>, Datum> = JavaHashMap::new();
        for r in items(acc)?.iter().filter(|r| **r != Datum::Null) {
            let (hash, key) = self.key_of(r)?;
            map.put(hash, key, r.clone(), |a, b| a == b, false)?;
        }
        for r in removed {
            let (hash, key) = self.key_of(r)?;
            map.remove(hash, &key, |a, b| a == b);
        }
        Ok(Datum::List(map.into_entries().map(|(_, v)| v).collect()))
    }
}

/// `FieldNestedUpdateAgg` of an ARRAY of ROWs of `fields`, keyed by `fields.<f>.nested-key` (indexes).
pub(crate) struct NestedUpdateAgg {
    pub(crate) field: AggField,
    pub(crate) fields: Vec<DataField>,
    pub(crate) key: Vec<usize>,
    pub(crate) null_accumulator: NestedUpdateNullAccumulator,
}

impl FieldAggregator for NestedUpdateAgg {
    fn field(&self) -> &AggField {
        &self.field
    }

    fn agg(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        let (a, b) = (val(&self.field, ctx, &acc)?, val(&self.field, ctx, &input)?);
        let r = NestedUpdate {
            fields: &self.fields,
            key: &self.key,
            null_accumulator: self.null_accumulator,
        }
        .agg(&a, &b);
        computed(&self.field, ctx, r)
    }

    fn retract(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        let (a, b) = (val(&self.field, ctx, &acc)?, val(&self.field, ctx, &input)?);
        let r = NestedUpdate {
            fields: &self.fields,
            key: &self.key,
            null_accumulator: self.null_accumulator,
        }
        .retract(&a, &b);
        computed(&self.field, ctx, r)
    }
}
