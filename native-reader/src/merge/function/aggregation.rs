//! `aggregation` (`AggregateMergeFunction`): every field through its aggregate function
//! (`fields.<f>.aggregate-function`, `fields.default-aggregate-function`, else `last_non_null_value`;
//! `primary-key` for primary-key columns; for `sequence.field` columns the function of the release,
//! [`crate::line::LineRules::sequence_field_aggregation`]); `-U`/`-D` records retract.

use crate::aggregate::{self, FieldAggregator};
use crate::error::Result;
use crate::line::SequenceFieldAggregation;
use crate::merge::loser_tree::tree_bug;
use crate::merge::output::{Cell, Ctx, Rec};
use crate::row_kind::RowKind;
use crate::table::Table;

use super::{MergeFunction, Merged};

/// `AggregateMergeFunction`.
pub(crate) struct Aggregation {
    aggregators: Vec<Box<dyn FieldAggregator>>,
    row: Vec<Cell>,
    latest: Option<Rec>,
}

impl Aggregation {
    /// The aggregators of `table`'s fields. Errors: those of [`aggregate::create`].
    pub(crate) fn new(table: &Table) -> Result<Aggregation> {
        let schema = table.schema();
        // The function of the `sequence.field` columns (`AggregateMergeFunction#getAggFuncName`).
        let sequence_function = match table.release().rules().sequence_field_aggregation {
            SequenceFieldAggregation::Default => None,
            SequenceFieldAggregation::LastNonNullValue => Some("last_non_null_value"),
            SequenceFieldAggregation::LastValue => Some("last_value"),
        };
        let sequence_fields: Vec<&str> = table
            .options()
            .sequence_field
            .as_deref()
            .map(|s| s.split(',').map(str::trim).collect())
            .unwrap_or_default();
        let mut aggregators = Vec::with_capacity(schema.fields.len());
        for (i, f) in schema.fields.iter().enumerate() {
            let func = match sequence_function {
                Some(func) if sequence_fields.contains(&f.name.as_str()) => func,
                _ => aggregate::field_function(table, f).unwrap_or("last_non_null_value"),
            };
            let is_pk = schema.primary_keys.contains(&f.name);
            aggregators.push(aggregate::create(table, f, i, func, is_pk)?);
        }
        Ok(Aggregation {
            row: vec![Cell::Null; aggregators.len()],
            aggregators,
            latest: None,
        })
    }
}

impl MergeFunction for Aggregation {
    fn reset(&mut self) {
        self.row.clear();
        self.row.resize(self.aggregators.len(), Cell::Null);
        self.latest = None;
        self.aggregators.iter_mut().for_each(|a| a.reset());
    }

    fn add(&mut self, ctx: &mut Ctx<'_>, rec: Rec) -> Result<()> {
        let retract = rec.kind.is_retract();
        self.latest = Some(rec);
        for i in 0..self.aggregators.len() {
            let input = ctx.field(rec, i)?;
            let acc = std::mem::replace(&mut self.row[i], Cell::Null);
            let Some(agg) = self.aggregators.get_mut(i) else {
                return Err(tree_bug(i as isize));
            };
            self.row[i] = if retract {
                agg.retract(ctx, acc, input)?
            } else {
                agg.agg(ctx, acc, input)?
            };
        }
        Ok(())
    }

    fn result(&mut self) -> Option<Merged> {
        self.latest.map(|latest| Merged::Cells {
            kind: RowKind::Insert,
            cells: std::mem::take(&mut self.row),
            seq: latest.seq,
        })
    }
}
