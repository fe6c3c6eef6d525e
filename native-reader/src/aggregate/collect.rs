//! `collect` (`FieldCollectAgg`).

use crate::error::Result;
use crate::merge::output::{Cell, Ctx};
use crate::schema::{DataType, TypeKind};

use super::java_hash::{java_equals, java_hash, row_equals, JavaHashMap};
use super::{computed, unsupported, val, AggError, AggField, AggResult, FieldAggregator};
use crate::value::Datum;
pub(crate) fn items(v: &Datum) -> AggResult<&[Datum]> {
    match v {
        Datum::List(items) => Ok(items),
        other => Err(AggError::Java(format!("{other:?} is not an ARRAY value"))),
    }
}

pub(crate) fn entries(v: &Datum) -> AggResult<&[(Datum, Datum)]> {
    match v {
        Datum::Map(e) => Ok(e),
        other => Err(AggError::Java(format!("{other:?} is not a MAP value"))),
    }
}

pub(crate) fn row(v: &Datum) -> AggResult<&[Datum]> {
    match v {
        Datum::Row(r) => Ok(r),
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
    acc: &Datum,
    input: &Datum,
) -> AggResult<Datum> {
    if *acc == Datum::Null && *input == Datum::Null {
        return Ok(Datum::Null);
    }
    if (*acc == Datum::Null || *input == Datum::Null) && !distinct {
        return Ok(if *acc == Datum::Null { input } else { acc }.clone());
    }
    let acc_items: &[Datum] = if *acc == Datum::Null {
        &[]
    } else {
        items(acc)?
    };
    let input_items: &[Datum] = if *input == Datum::Null {
        &[]
    } else {
        items(input)?
    };
    if !distinct {
        return Ok(Datum::List(
            acc_items.iter().chain(input_items).cloned().collect(),
        ));
    }
    match &element.kind {
        TypeKind::Row(fields) => {
            // A list deduplicated by the RecordEqualiser (the accumulator is not deduplicated again).
            let mut out: Vec<Datum> = acc_items.to_vec();
            for e in input_items {
                let mut found = false;
                if *e == Datum::Null {
                    found = out.contains(&Datum::Null);
                } else {
                    for o in &out {
                        if *o == Datum::Null {
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
            Ok(Datum::List(out))
        }
        TypeKind::Array(_) | TypeKind::Map(_, _) | TypeKind::Multiset(_) => unsupported(
            "collect with distinct over ARRAY/MAP/MULTISET elements (RecordEqualiser over \
             nested values) is not reproduced",
        ),
        kind => {
            let mut set: JavaHashMap<Datum, ()> = JavaHashMap::new();
            for e in acc_items.iter().chain(input_items) {
                set.put(java_hash(kind, e)?, e.clone(), (), java_equals, true)?;
            }
            Ok(Datum::List(set.into_entries().map(|(k, _)| k).collect()))
        }
    }
}

/// `FieldCollectAgg.retract`: removes, for each retracted element, one equal element.
pub(crate) fn collect_retract(
    element: &DataType,
    distinct: bool,
    acc: &Datum,
    retract: &Datum,
) -> AggResult<Datum> {
    if *acc == Datum::Null {
        return Ok(Datum::Null);
    }
    if *retract == Datum::Null {
        return npe("collect");
    }
    let mut retracted: Vec<Datum> = items(retract)?.to_vec();
    let mut out = Vec::new();
    for candidate in items(acc)? {
        let mut hit = None;
        for (i, r) in retracted.iter().enumerate() {
            let eq = match (r, candidate) {
                (Datum::Null, Datum::Null) => true,
                (Datum::Null, _) | (_, Datum::Null) => false,
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
    Ok(Datum::List(out))
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
