//! `aggregation` (`AggregateMergeFunction`): every field through its aggregate function
//! (`fields.<f>.aggregate-function`, `fields.default-aggregate-function`, else `last_non_null_value`;
//! `primary-key` for primary-key columns; for `sequence.field` columns the function of the release,
//! [`crate::line::LineRules::sequence_field_aggregation`]); `-U`/`-D` records retract.

use crate::aggregate::{self, FieldAggregator};
use crate::error::Result;
use crate::line::{InitRow, SequenceFieldAggregation};
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
    /// `aggregation.remove-record-on-delete` where the release reads it (1.1 on): a `-D` record removes the
    /// row (`currentDeleteRow`), which restarts as the record's fields ([`super::init_row`]).
    remove_on_delete: bool,
    init_rule: InitRow,
    nullable: Vec<bool>,
    /// `currentDeleteRow`: the last record added was such a `-D`.
    delete_row: bool,
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
        let init_rule = table.release().rules().init_row;
        let remove_on_delete = init_rule != InitRow::None
            && super::bool_opt(table, "aggregation.remove-record-on-delete", false)?;
        if remove_on_delete {
            for f in &schema.fields {
                let ignore_retract = format!("fields.{}.ignore-retract", f.name);
                if super::bool_opt(table, &ignore_retract, false)? {
                    // `FieldAggregatorFactory.create`'s check.
                    return Err(super::merge_err(
                        table,
                        format!(
                            "aggregation.remove-record-on-delete and {ignore_retract} have conflicting \
                             behavior so should not be enabled at the same time."
                        ),
                    ));
                }
            }
        }
        Ok(Aggregation {
            row: vec![Cell::Null; aggregators.len()],
            aggregators,
            latest: None,
            remove_on_delete,
            init_rule,
            nullable: schema.fields.iter().map(|f| f.data_type.nullable).collect(),
            delete_row: false,
        })
    }
}

impl MergeFunction for Aggregation {
    fn reset(&mut self) {
        self.row.clear();
        self.row.resize(self.aggregators.len(), Cell::Null);
        self.latest = None;
        self.delete_row = false;
        self.aggregators.iter_mut().for_each(|a| a.reset());
    }

    fn add(&mut self, ctx: &mut Ctx<'_>, rec: Rec) -> Result<()> {
        let retract = rec.kind.is_retract();
        self.latest = Some(rec);
        self.delete_row = self.remove_on_delete && rec.kind == RowKind::Delete;
        if self.delete_row {
            // The aggregators keep their state: later records aggregate onto the `-D`'s fields.
            self.row = vec![Cell::Null; self.aggregators.len()];
            super::init_row(ctx, rec, self.init_rule, &self.nullable, &mut self.row)?;
            return Ok(());
        }
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
        let kind = if self.delete_row {
            RowKind::Delete
        } else {
            RowKind::Insert
        };
        self.latest.map(|latest| Merged::Cells {
            kind,
            cells: std::mem::take(&mut self.row),
            seq: latest.seq,
        })
    }
}
