//! `merge_map` (`FieldMergeMapAgg`).

use crate::error::Result;
use crate::merge::output::{Cell, Ctx};
use crate::schema::DataType;

use super::collect::{entries, npe};
use super::java_hash::{java_equals, java_hash, JavaHashMap};
use super::{computed, val, AggField, AggResult, FieldAggregator};
use crate::value::Datum;
/// `FieldMergeMapAgg.agg`: the entries of `first` then `second` put into a `HashMap`.
pub(crate) fn merge_map_agg(key: &DataType, first: &Datum, second: &Datum) -> AggResult<Datum> {
    if *first == Datum::Null || *second == Datum::Null {
        return Ok(if *first == Datum::Null { second } else { first }.clone());
    }
    let mut map: JavaHashMap<Datum, Datum> = JavaHashMap::new();
    for (k, v) in entries(first)?.iter().chain(entries(second)?) {
        map.put(
            java_hash(&key.kind, k)?,
            k.clone(),
            v.clone(),
            java_equals,
            false,
        )?;
    }
    Ok(Datum::Map(map.into_entries().collect()))
}

/// `FieldMergeMapAgg.retract`: the accumulator's entries whose key is not retracted, put into a
/// `HashMap`.
pub(crate) fn merge_map_retract(key: &DataType, acc: &Datum, retract: &Datum) -> AggResult<Datum> {
    if *acc == Datum::Null {
        return Ok(Datum::Null);
    }
    if *retract == Datum::Null {
        return npe("merge_map");
    }
    let retract_keys: Vec<&Datum> = entries(retract)?.iter().map(|(k, _)| k).collect();
    let mut map: JavaHashMap<Datum, Datum> = JavaHashMap::new();
    for (k, v) in entries(acc)? {
        let hash = java_hash(&key.kind, k)?;
        if retract_keys.iter().any(|r| java_equals(r, k)) {
            continue;
        }
        map.put(hash, k.clone(), v.clone(), java_equals, false)?;
    }
    Ok(Datum::Map(map.into_entries().collect()))
}

/// `FieldMergeMapAgg` of a MAP with `key`s.
pub(crate) struct MergeMapAgg {
    pub(crate) field: AggField,
    pub(crate) key: DataType,
}

impl FieldAggregator for MergeMapAgg {
    fn field(&self) -> &AggField {
        &self.field
    }

    fn agg(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        let (a, b) = (val(&self.field, ctx, &acc)?, val(&self.field, ctx, &input)?);
        let r = merge_map_agg(&self.key, &a, &b);
        computed(&self.field, ctx, r)
    }

    fn retract(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        let (a, b) = (val(&self.field, ctx, &acc)?, val(&self.field, ctx, &input)?);
        let r = merge_map_retract(&self.key, &a, &b);
        computed(&self.field, ctx, r)
    }
}
