//! `collect` (`FieldCollectAgg`).

use crate::error::Result;
use crate::merge::output::{Cell, Ctx};
use crate::schema::{DataType, TypeKind};

use super::java_hash::{java_equals, java_hash, row_equals, JavaHashMap};
use super::val::Val;
use super::{computed, unsupported, val, AggError, AggField, AggResult, FieldAggregator};
pub(crate) fn items(v: &Val) -> AggResult<&[Val]> {
    match v {
        Val::List(items) => Ok(items),
        other => Err(AggError::Java(format!("{other:?} is not an ARRAY value"))),
    }
}

pub(crate) fn entries(v: &Val) -> AggResult<&[(Val, Val)]> {
    match v {
        Val::Map(e) => Ok(e),
        other => Err(AggError::Java(format!("{other:?} is not a MAP value"))),
    }
}

pub(crate) fn row(v: &Val) -> AggResult<&[Val]> {
    match v {
        Val::Row(r) => Ok(r),
        other => Err(AggError::Java(format!("{other:?} is not a ROW value"))),
    }
}

pub(crate) fn npe<T>(what: &str) -> AggResult<T> {
    Err(AggError::Java(format!(
        "NullPointerException: {what} retracts a NULL value from a non-NULL accumulator"
    )))
}

/// `FieldCollectAgg.agg` (and `aggReversed`, which is the same) for elements of type `element`.
pub(crate) fn collect_agg(
    element: &DataType,
    distinct: bool,
    acc: &Val,
    input: &Val,
) -> AggResult<Val> {
    if *acc == Val::Null && *input == Val::Null {
        return Ok(Val::Null);
    }
    if (*acc == Val::Null || *input == Val::Null) && !distinct {
        return Ok(if *acc == Val::Null { input } else { acc }.clone());
    }
    let acc_items: &[Val] = if *acc == Val::Null { &[] } else { items(acc)? };
    let input_items: &[Val] = if *input == Val::Null {
        &[]
    } else {
        items(input)?
    };
    if !distinct {
        return Ok(Val::List(
            acc_items.iter().chain(input_items).cloned().collect(),
        ));
    }
    match &element.kind {
        TypeKind::Row(fields) => {
            // A list deduplicated by the RecordEqualiser (the accumulator is not deduplicated again).
            let mut out: Vec<Val> = acc_items.to_vec();
            for e in input_items {
                let mut found = false;
                if *e == Val::Null {
                    found = out.contains(&Val::Null);
                } else {
                    for o in &out {
                        if *o == Val::Null {
                            return Err(AggError::Java(
                                "NullPointerException: collect with distinct compares a row with \
                                 a NULL element"
                                    .into(),
                            ));
                        }
                        if row_equals(fields, row(o)?, row(e)?)? {
                            found = true;
                            break;
                        }
                    }
                }
                if !found {
                    out.push(e.clone());
                }
            }
            Ok(Val::List(out))
        }
        TypeKind::Array(_) | TypeKind::Map(_, _) | TypeKind::Multiset(_) => unsupported(
            "collect with distinct over ARRAY/MAP/MULTISET elements (RecordEqualiser over \
             nested values) is not reproduced",
        ),
        kind => {
            let mut set: JavaHashMap<Val, ()> = JavaHashMap::new();
            for e in acc_items.iter().chain(input_items) {
                set.put(java_hash(kind, e)?, e.clone(), (), java_equals, true)?;
            }
            Ok(Val::List(set.into_entries().map(|(k, _)| k).collect()))
        }
    }
}

/// `FieldCollectAgg.retract`: removes, for each retracted element, one equal element.
pub(crate) fn collect_retract(
    element: &DataType,
    distinct: bool,
    acc: &Val,
    retract: &Val,
) -> AggResult<Val> {
    if *acc == Val::Null {
        return Ok(Val::Null);
    }
    if *retract == Val::Null {
        return npe("collect");
    }
    let mut retracted: Vec<Val> = items(retract)?.to_vec();
    let mut out = Vec::new();
    for candidate in items(acc)? {
        let mut hit = None;
        for (i, r) in retracted.iter().enumerate() {
            let eq = match (r, candidate) {
                (Val::Null, Val::Null) => true,
                (Val::Null, _) | (_, Val::Null) => false,
                _ => match &element.kind {
                    TypeKind::Row(fields) if distinct => {
                        row_equals(fields, row(r)?, row(candidate)?)?
                    }
                    kind => {
                        // Object.equals of the element objects; hashable kinds only.
                        java_hash(kind, r)?;
                        java_equals(r, candidate)
                    }
                },
            };
            if eq {
                hit = Some(i);
                break;
            }
        }
        match hit {
            Some(i) => {
                retracted.remove(i);
            }
            None => out.push(candidate.clone()),
        }
    }
    Ok(Val::List(out))
}

/// `FieldCollectAgg` of an ARRAY of `element`s (`fields.<f>.distinct`).
pub(crate) struct CollectAgg {
    pub(crate) field: AggField,
    pub(crate) element: DataType,
    pub(crate) distinct: bool,
}

impl FieldAggregator for CollectAgg {
    fn field(&self) -> &AggField {
        &self.field
    }

    fn agg(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        let (a, b) = (val(&self.field, ctx, &acc)?, val(&self.field, ctx, &input)?);
        let r = collect_agg(&self.element, self.distinct, &a, &b);
        computed(&self.field, ctx, r)
    }

    /// `FieldCollectAgg` overrides `aggReversed` with `agg(accumulator, input)`.
    fn agg_reversed(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        self.agg(ctx, acc, input)
    }

    fn retract(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        let (a, b) = (val(&self.field, ctx, &acc)?, val(&self.field, ctx, &input)?);
        let r = collect_retract(&self.element, self.distinct, &a, &b);
        computed(&self.field, ctx, r)
    }
}
