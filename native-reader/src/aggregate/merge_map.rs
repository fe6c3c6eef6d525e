//! `merge_map` (`FieldMergeMapAgg`).

use crate::error::Result;
use crate::merge::output::{Cell, Ctx};
use crate::schema::DataType;

use super::collect::{entries, npe};
use super::java_hash::{java_equals, java_hash, JavaHashMap};
use super::val::Val;
use super::{computed, val, AggField, AggResult, FieldAggregator};
/// `FieldMergeMapAgg.agg`: the entries of `first` then `second` put into a `HashMap`.
pub(crate) fn merge_map_agg(key: &DataType, first: &Val, second: &Val) -> AggResult<Val> {
    if *first == Val::Null || *second == Val::Null {
        return Ok(if *first == Val::Null { second } else { first }.clone());
    }
    let mut map: JavaHashMap<Val, Val> = JavaHashMap::new();
    for (k, v) in entries(first)?.iter().chain(entries(second)?) {
        map.put(
            java_hash(&key.kind, k)?,
            k.clone(),
            v.clone(),
            java_equals,
            false,
        )?;
    }
    Ok(Val::Map(map.into_entries().collect()))
}

/// `FieldMergeMapAgg.retract`: the accumulator's entries whose key is not retracted, put into a
/// `HashMap`.
pub(crate) fn merge_map_retract(key: &DataType, acc: &Val, retract: &Val) -> AggResult<Val> {
    if *acc == Val::Null {
        return Ok(Val::Null);
    }
    if *retract == Val::Null {
        return npe("merge_map");
    }
    let retract_keys: Vec<&Val> = entries(retract)?.iter().map(|(k, _)| k).collect();
    let mut map: JavaHashMap<Val, Val> = JavaHashMap::new();
    for (k, v) in entries(acc)? {
        let hash = java_hash(&key.kind, k)?;
        if retract_keys.iter().any(|r| java_equals(r, k)) {
            continue;
        }
        map.put(hash, k.clone(), v.clone(), java_equals, false)?;
    }
    Ok(Val::Map(map.into_entries().collect()))
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
