//! `partial-update` (`PartialUpdateMergeFunction`): each field takes the latest non-NULL value; with
//! `fields.<g>.sequence-group`s a group of fields is updated only by records whose sequence fields are not
//! older, with the groups' aggregate functions; `ignore-delete`, `partial-update.remove-record-on-delete` and
//! `partial-update.remove-record-on-sequence-group` decide what a `-U`/`-D` record does.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::aggregate::{self, FieldAggregator};
use crate::error::Result;
use crate::line::InitRow;
use crate::merge::output::{Cell, Ctx, Rec};
use crate::row_kind::RowKind;
use crate::schema::DataField;
use crate::table::Table;
use crate::value::compare::compare_codegen;

use super::{bool_opt, merge_err, option, MergeFunction, Merged};

/// `PartialUpdateMergeFunction` with its options.
pub(crate) struct PartialUpdate {
    ignore_delete: bool,
    remove_record_on_delete: bool,
    /// Per field: the sequence group (its sequence fields) it belongs to, if any.
    groups: Vec<Option<Arc<Vec<usize>>>>,
    /// Per field: its aggregate function, if any.
    aggregators: Vec<Option<Box<dyn FieldAggregator>>>,
    /// Sequence fields whose group removes the whole row on `-D`.
    partial_delete: Vec<usize>,
    /// The row being built.
    row: Vec<Cell>,
    delete_row: bool,
    /// [`crate::line::LineRules::init_row`] of the table's release.
    init_rule: InitRow,
    /// `meetInsert`: a non-retract record was added (1.1 on).
    meet_insert: bool,
    /// `notNullColumnFilled`: the row was initialised from a record (1.1 on).
    filled: bool,
    /// Per field: whether its type is nullable (`initRow` fails on a NULL in another).
    nullable: Vec<bool>,
    /// `latestSequenceNumber`: the sequence number of the last record added and not ignored (0 before).
    latest_seq: i64,
}

impl PartialUpdate {
    /// The function of `table`'s options. Errors: [`crate::Error::Merge`] with Java's messages for
    /// unknown or repeated sequence-group fields, aggregate functions without sequence groups, conflicting
    /// options; those of [`aggregate::create`].
    pub(crate) fn new(table: &Table, ignore_delete: bool) -> Result<PartialUpdate> {
        let schema = table.schema();
        let fields: &[DataField] = &schema.fields;
        let is_pk = |f: &DataField| schema.primary_keys.contains(&f.name);
        let index = |name: &str| -> Result<usize> {
            fields.iter().position(|f| f.name == name).ok_or_else(|| {
                merge_err(
                    table,
                    format!("Field {name} can not be found in table schema"),
                )
            })
        };
        let mut groups: Vec<Option<Arc<Vec<usize>>>> = vec![None; fields.len()];
        let mut by_sequence_name: Vec<(String, usize)> = Vec::new();
        for (k, v) in &schema.options {
            let Some(rest) = k.strip_prefix("fields.") else {
                continue;
            };
            let Some(seq_names) = rest.strip_suffix(".sequence-group") else {
                continue;
            };
            let seq: Vec<usize> = seq_names.split(',').map(index).collect::<Result<_>>()?;
            let seq = Arc::new(seq);
            for name in v.split(',') {
                let i = index(name)?;
                if groups[i].is_some() {
                    return Err(merge_err(
                        table,
                        format!("Field {name} is defined repeatedly by multiple groups: {k}"),
                    ));
                }
                groups[i] = Some(seq.clone());
            }
            for name in seq_names.split(',') {
                let i = index(name)?;
                groups[i] = Some(seq.clone());
                by_sequence_name.push((name.to_string(), i));
            }
        }
        // From 1.0.1 the sequence fields of the groups are never aggregated (apache/paimon#4897).
        let aggregates_sequence_fields = table
            .release()
            .rules()
            .partial_update_aggregates_sequence_fields;
        let mut aggregators = Vec::with_capacity(fields.len());
        for (i, f) in fields.iter().enumerate() {
            if !aggregates_sequence_fields && by_sequence_name.iter().any(|(_, j)| *j == i) {
                aggregators.push(None);
                continue;
            }
            aggregators.push(match aggregate::field_function(table, f) {
                Some(func) => Some(aggregate::create(table, f, i, func, is_pk(f))?),
                None => None,
            });
        }
        let has_groups = groups.iter().any(Option::is_some);
        if aggregators.iter().any(Option::is_some) && !has_groups {
            return Err(merge_err(
                table,
                "Must use sequence group for aggregation functions.".into(),
            ));
        }
        let remove_record_on_delete =
            bool_opt(table, "partial-update.remove-record-on-delete", false)?;
        if remove_record_on_delete && ignore_delete {
            return Err(merge_err(
                table,
                "ignore-delete and partial-update.remove-record-on-delete have conflicting \
                 behavior so should not be enabled at the same time."
                    .into(),
            ));
        }
        if remove_record_on_delete && has_groups {
            return Err(merge_err(
                table,
                "sequence group and partial-update.remove-record-on-delete have conflicting \
                 behavior so should not be enabled at the same time."
                    .into(),
            ));
        }
        let mut partial_delete = Vec::new();
        if let Some(names) = option(table, "partial-update.remove-record-on-sequence-group") {
            for name in names.split(',') {
                match by_sequence_name.iter().find(|(n, _)| n == name) {
                    Some((_, i)) => partial_delete.push(*i),
                    None => {
                        return Err(merge_err(
                            table,
                            format!(
                                "field '{names}' defined in \
                                 'partial-update.remove-record-on-sequence-group' option must \
                                 be part of sequence groups"
                            ),
                        ))
                    }
                }
            }
        }
        Ok(PartialUpdate {
            ignore_delete,
            remove_record_on_delete,
            groups,
            aggregators,
            partial_delete,
            row: vec![Cell::Null; fields.len()],
            delete_row: false,
            init_rule: table.release().rules().init_row,
            meet_insert: false,
            filled: false,
            nullable: fields.iter().map(|f| f.data_type.nullable).collect(),
            latest_seq: 0,
        })
    }

    fn partial_update(&mut self, ctx: &mut Ctx<'_>, rec: Rec, retract: bool) -> Result<()> {
        self.delete_row = false;
        let grouped = self.groups.iter().any(Option::is_some);
        if retract {
            if self.init_rule != InitRow::None && !self.filled {
                super::init_row(ctx, rec, self.init_rule, &self.nullable, &mut self.row)?;
                self.filled = true;
            }
            if self.ignore_delete {
                return Ok(());
            }
            self.latest_seq = rec.seq;
            if grouped {
                return self.retract_with_sequence_group(ctx, rec);
            }
            if self.remove_record_on_delete {
                if rec.kind == RowKind::Delete {
                    self.delete_row = true;
                    self.row = vec![Cell::Null; self.groups.len()];
                    super::init_row(ctx, rec, self.init_rule, &self.nullable, &mut self.row)?;
                }
                return Ok(());
            }
            return Err(ctx.err(
                "By default, Partial update can not accept delete records, you can choose one of \
                 the following solutions: 1. Configure 'ignore-delete' to ignore delete records. \
                 2. Configure 'partial-update.remove-record-on-delete' to remove the whole row \
                 when receiving delete records. 3. Configure 'sequence-group's to retract partial \
                 columns."
                    .into(),
            ));
        }
        self.latest_seq = rec.seq;
        self.meet_insert = true;
        self.filled = true;
        if !grouped {
            for i in 0..self.groups.len() {
                let v = ctx.field(rec, i)?;
                if !v.is_null() {
                    self.row[i] = v;
                }
            }
            return Ok(());
        }
        for i in 0..self.groups.len() {
            let field = ctx.field(rec, i)?;
            let acc = self.row[i].clone();
            match self.groups[i].clone() {
                None => {
                    if let Some(Some(agg)) = self.aggregators.get_mut(i) {
                        self.row[i] = agg.agg(ctx, acc, field)?;
                    } else if !field.is_null() {
                        self.row[i] = field;
                    }
                }
                Some(seq) => {
                    if self.group_is_empty(ctx, rec, &seq)? {
                        continue;
                    }
                    if self.compare_group(ctx, rec, &seq)? != Ordering::Less {
                        if seq.contains(&i) {
                            for &s in seq.iter() {
                                self.row[s] = ctx.field(rec, s)?;
                            }
                        }
                        self.row[i] = match self.aggregators.get_mut(i) {
                            Some(Some(agg)) => agg.agg(ctx, acc, field)?,
                            _ => field,
                        };
                    } else if let Some(Some(agg)) = self.aggregators.get_mut(i) {
                        self.row[i] = agg.agg_reversed(ctx, acc, field)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn retract_with_sequence_group(&mut self, ctx: &mut Ctx<'_>, rec: Rec) -> Result<()> {
        let mut updated: Vec<usize> = Vec::new();
        for i in 0..self.groups.len() {
            let Some(seq) = self.groups[i].clone() else {
                continue;
            };
            if self.group_is_empty(ctx, rec, &seq)? {
                continue;
            }
            if self.compare_group(ctx, rec, &seq)? != Ordering::Less {
                if seq.contains(&i) {
                    for &s in seq.iter() {
                        if updated.contains(&s) {
                            continue;
                        }
                        if rec.kind == RowKind::Delete && self.partial_delete.contains(&s) {
                            self.delete_row = true;
                            self.row = vec![Cell::Null; self.groups.len()];
                            return Ok(());
                        }
                        self.row[s] = ctx.field(rec, s)?;
                        updated.push(s);
                    }
                } else {
                    match self.aggregators.get_mut(i) {
                        Some(Some(agg)) => {
                            let acc = self.row[i].clone();
                            let input = ctx.field(rec, i)?;
                            self.row[i] = agg.retract(ctx, acc, input)?;
                        }
                        _ => self.row[i] = Cell::Null,
                    }
                }
            } else if let Some(Some(agg)) = self.aggregators.get_mut(i) {
                let acc = self.row[i].clone();
                let input = ctx.field(rec, i)?;
                self.row[i] = agg.retract(ctx, acc, input)?;
            }
        }
        Ok(())
    }

    fn group_is_empty(&self, ctx: &mut Ctx<'_>, rec: Rec, seq: &[usize]) -> Result<bool> {
        for &s in seq {
            if !ctx.field(rec, s)?.is_null() {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The sequence-group comparator (`UserDefinedSeqComparator`, ascending, NULL first) of the record's
    /// sequence fields against the row being built.
    fn compare_group(&self, ctx: &mut Ctx<'_>, rec: Rec, seq: &[usize]) -> Result<Ordering> {
        for &s in seq {
            let input = ctx.field(rec, s)?;
            let a = ctx.datum(&input, s)?;
            let b = ctx.datum(&self.row[s], s)?;
            let c = match (a, b) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Less,
                (Some(_), None) => Ordering::Greater,
                (Some(a), Some(b)) => compare_codegen(&a, &b),
            };
            if c != Ordering::Equal {
                return Ok(c);
            }
        }
        Ok(Ordering::Equal)
    }
}

impl MergeFunction for PartialUpdate {
    fn reset(&mut self) {
        self.row.clear();
        self.row.resize(self.groups.len(), Cell::Null);
        self.delete_row = false;
        self.meet_insert = false;
        self.filled = false;
        self.latest_seq = 0;
        self.aggregators
            .iter_mut()
            .flatten()
            .for_each(|a| a.reset());
    }

    fn add(&mut self, ctx: &mut Ctx<'_>, rec: Rec) -> Result<()> {
        let retract = rec.kind.is_retract();
        self.partial_update(ctx, rec, retract)
    }

    fn result(&mut self) -> Option<Merged> {
        Some(Merged::Cells {
            kind: if self.delete_row || (self.init_rule != InitRow::None && !self.meet_insert) {
                RowKind::Delete
            } else {
                RowKind::Insert
            },
            cells: std::mem::take(&mut self.row),
            seq: self.latest_seq,
        })
    }
}
