//! The merge functions of the merge engines (`org.apache.paimon.mergetree.compact.MergeFunction`) behind
//! `ReducerMergeFunctionWrapper`, and the merge engine's options.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::aggregate::factory::{agg_spec, AggSpec};
use crate::aggregate::field::FieldAgg;
use crate::error::{Error, Result};
use crate::schema::DataField;
use crate::table::Table;

use super::loser_tree::tree_bug;
use super::output::{compare_codegen, Cell, Ctx, Rec};
use super::{is_add, DELETE, INSERT};

/// The merge engine of a table and its options, read from the latest schema's options.
#[derive(Clone, Debug)]
pub(crate) enum Engine {
    Deduplicate { ignore_delete: bool },
    FirstRow { ignore_delete: bool },
    PartialUpdate(PartialUpdateConfig),
    Aggregate(Vec<AggSpec>),
}

#[derive(Clone, Debug)]
pub(crate) struct PartialUpdateConfig {
    pub(crate) ignore_delete: bool,
    pub(crate) remove_record_on_delete: bool,
    /// Per field: the sequence group (its sequence fields) it belongs to, if any.
    pub(crate) groups: Vec<Option<Arc<Vec<usize>>>>,
    /// Per field: its aggregate function, if any.
    pub(crate) aggregators: Vec<Option<AggSpec>>,
    /// Sequence fields whose group removes the whole row on `-D`.
    pub(crate) partial_delete: Vec<usize>,
}


pub(crate) fn option<'a>(table: &'a Table, key: &str) -> Option<&'a str> {
    table.schema().option(key)
}

pub(crate) fn bool_opt(table: &Table, key: &str, default: bool) -> Result<bool> {
    match option(table, key) {
        None => Ok(default),
        Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
        Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
        Some(v) => Err(Error::Merge {
            path: table.path().to_path_buf(),
            reason: format!("option `{key}`: `{v}` is not a boolean"),
        }),
    }
}

pub(crate) fn merge_err(table: &Table, reason: String) -> Error {
    Error::Merge {
        path: table.path().to_path_buf(),
        reason,
    }
}


pub(crate) fn engine(table: &Table) -> Result<Engine> {
    let schema = table.schema();
    let options = table.options();
    let ignore_delete = options.ignore_delete;
    let fields = &schema.fields;
    let field_agg = |f: &DataField| option(table, &format!("fields.{}.aggregate-function", f.name));
    let default_agg = option(table, "fields.default-aggregate-function");
    let is_pk = |f: &DataField| schema.primary_keys.contains(&f.name);
    match options.merge_engine.as_str() {
        "deduplicate" => Ok(Engine::Deduplicate { ignore_delete }),
        "first-row" => Ok(Engine::FirstRow { ignore_delete }),
        "aggregation" => {
            let mut specs = Vec::with_capacity(fields.len());
            for f in fields {
                let func = field_agg(f)
                    .or(default_agg)
                    .unwrap_or("last_non_null_value");
                specs.push(agg_spec(table, f, func, is_pk(f))?);
            }
            Ok(Engine::Aggregate(specs))
        }
        "partial-update" => {
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
            let mut aggregators = Vec::with_capacity(fields.len());
            for f in fields {
                aggregators.push(match field_agg(f).or(default_agg) {
                    Some(func) => Some(agg_spec(table, f, func, is_pk(f))?),
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
            Ok(Engine::PartialUpdate(PartialUpdateConfig {
                ignore_delete,
                remove_record_on_delete,
                groups,
                aggregators,
                partial_delete,
            }))
        }
        other => Err(Error::Unsupported {
            path: table.path().to_path_buf(),
            reason: format!("merge-engine={other}"),
        }),
    }
}

/// The result of merging the records of one key.
pub(crate) enum Merged {
    Whole(Rec),
    Cells { kind: i8, cells: Vec<Cell> },
}

/// A merge engine's `MergeFunction` behind `ReducerMergeFunctionWrapper`.
pub(crate) struct MergeFunction {
    pub(crate) engine: Engine,
    pub(crate) fields: usize,
    pub(crate) initial: Option<Rec>,
    pub(crate) merging: bool,
    /// deduplicate / first-row: the chosen record.
    pub(crate) chosen: Option<Rec>,
    /// partial-update / aggregation: the row being built, its kind.
    pub(crate) row: Vec<Cell>,
    pub(crate) delete_row: bool,
    pub(crate) aggs: Vec<Option<FieldAgg>>,
    pub(crate) latest: Option<Rec>,
}

impl MergeFunction {
    pub(crate) fn new(engine: Engine, fields: usize) -> MergeFunction {
        let aggs = match &engine {
            Engine::Aggregate(specs) => specs
                .iter()
                .enumerate()
                .map(|(i, s)| Some(FieldAgg::new(s.clone(), i)))
                .collect(),
            Engine::PartialUpdate(cfg) => cfg
                .aggregators
                .iter()
                .enumerate()
                .map(|(i, s)| s.clone().map(|s| FieldAgg::new(s, i)))
                .collect(),
            _ => Vec::new(),
        };
        MergeFunction {
            engine,
            fields,
            initial: None,
            merging: false,
            chosen: None,
            row: vec![Cell::Null; fields],
            delete_row: false,
            aggs,
            latest: None,
        }
    }

    pub(crate) fn reset(&mut self) {
        self.initial = None;
        self.merging = false;
        self.chosen = None;
        if matches!(self.engine, Engine::PartialUpdate(_) | Engine::Aggregate(_)) {
            self.row.clear();
            self.row.resize(self.fields, Cell::Null);
        }
        self.delete_row = false;
        self.latest = None;
        for a in self.aggs.iter_mut().flatten() {
            a.reset();
        }
    }

    /// `ReducerMergeFunctionWrapper.add`.
    pub(crate) fn add(&mut self, ctx: &mut Ctx, rec: Rec) -> Result<()> {
        match self.initial {
            None => {
                self.initial = Some(rec);
                Ok(())
            }
            Some(first) => {
                if !self.merging {
                    self.merging = true;
                    self.merge(ctx, first)?;
                }
                self.merge(ctx, rec)
            }
        }
    }

    /// `ReducerMergeFunctionWrapper.getResult`.
    pub(crate) fn result(&mut self) -> Option<Merged> {
        if !self.merging {
            return self.initial.map(Merged::Whole);
        }
        match &self.engine {
            Engine::Deduplicate { .. } | Engine::FirstRow { .. } => self.chosen.map(Merged::Whole),
            Engine::PartialUpdate(_) => Some(Merged::Cells {
                kind: if self.delete_row { DELETE } else { INSERT },
                cells: std::mem::take(&mut self.row),
            }),
            Engine::Aggregate(_) => self.latest.map(|_| Merged::Cells {
                kind: INSERT,
                cells: std::mem::take(&mut self.row),
            }),
        }
    }

    pub(crate) fn merge(&mut self, ctx: &mut Ctx, rec: Rec) -> Result<()> {
        let retract = !is_add(rec.kind);
        match &self.engine {
            Engine::Deduplicate { ignore_delete } => {
                if !(*ignore_delete && retract) {
                    self.chosen = Some(rec);
                }
                Ok(())
            }
            Engine::FirstRow { ignore_delete } => {
                if retract {
                    if *ignore_delete {
                        return Ok(());
                    }
                    return Err(ctx.err(
                        "By default, First row merge engine can not accept DELETE/UPDATE_BEFORE \
                         records. You can config 'first-row.ignore-delete' to ignore the \
                         DELETE/UPDATE_BEFORE records."
                            .into(),
                    ));
                }
                if self.chosen.is_none() {
                    self.chosen = Some(rec);
                }
                Ok(())
            }
            Engine::Aggregate(_) => {
                self.latest = Some(rec);
                for i in 0..self.fields {
                    let input = ctx.field(rec, i)?;
                    let acc = std::mem::replace(&mut self.row[i], Cell::Null);
                    let Some(Some(agg)) = self.aggs.get_mut(i) else {
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
            Engine::PartialUpdate(cfg) => {
                let cfg = cfg.clone();
                self.partial_update(ctx, &cfg, rec, retract)
            }
        }
    }

    pub(crate) fn partial_update(
        &mut self,
        ctx: &mut Ctx,
        cfg: &PartialUpdateConfig,
        rec: Rec,
        retract: bool,
    ) -> Result<()> {
        self.delete_row = false;
        let grouped = cfg.groups.iter().any(Option::is_some);
        if retract {
            if cfg.ignore_delete {
                return Ok(());
            }
            if grouped {
                return self.retract_with_sequence_group(ctx, cfg, rec);
            }
            if cfg.remove_record_on_delete {
                if rec.kind == DELETE {
                    self.delete_row = true;
                    self.row = vec![Cell::Null; self.fields];
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
        if !grouped {
            for i in 0..self.fields {
                let v = ctx.field(rec, i)?;
                if !v.is_null() {
                    self.row[i] = v;
                }
            }
            return Ok(());
        }
        for i in 0..self.fields {
            let field = ctx.field(rec, i)?;
            let acc = self.row[i].clone();
            match &cfg.groups[i] {
                None => {
                    if let Some(Some(agg)) = self.aggs.get_mut(i) {
                        self.row[i] = agg.agg(ctx, acc, field)?;
                    } else if !field.is_null() {
                        self.row[i] = field;
                    }
                }
                Some(seq) => {
                    if self.group_is_empty(ctx, rec, seq)? {
                        continue;
                    }
                    if self.compare_group(ctx, rec, seq)? != Ordering::Less {
                        if seq.contains(&i) {
                            for &s in seq.iter() {
                                self.row[s] = ctx.field(rec, s)?;
                            }
                        }
                        self.row[i] = match self.aggs.get_mut(i) {
                            Some(Some(agg)) => agg.agg(ctx, acc, field)?,
                            _ => field,
                        };
                    } else if let Some(Some(agg)) = self.aggs.get_mut(i) {
                        self.row[i] = agg.agg_reversed(ctx, acc, field)?;
                    }
                }
            }
        }
        Ok(())
    }

    pub(crate) fn retract_with_sequence_group(
        &mut self,
        ctx: &mut Ctx,
        cfg: &PartialUpdateConfig,
        rec: Rec,
    ) -> Result<()> {
        let mut updated: Vec<usize> = Vec::new();
        for i in 0..self.fields {
            let Some(seq) = &cfg.groups[i] else {
                continue;
            };
            if self.group_is_empty(ctx, rec, seq)? {
                continue;
            }
            if self.compare_group(ctx, rec, seq)? != Ordering::Less {
                if seq.contains(&i) {
                    for &s in seq.iter() {
                        if updated.contains(&s) {
                            continue;
                        }
                        if rec.kind == DELETE && cfg.partial_delete.contains(&s) {
                            self.delete_row = true;
                            self.row = vec![Cell::Null; self.fields];
                            return Ok(());
                        }
                        self.row[s] = ctx.field(rec, s)?;
                        updated.push(s);
                    }
                } else {
                    match self.aggs.get_mut(i) {
                        Some(Some(agg)) => {
                            let acc = self.row[i].clone();
                            let input = ctx.field(rec, i)?;
                            self.row[i] = agg.retract(ctx, acc, input)?;
                        }
                        _ => self.row[i] = Cell::Null,
                    }
                }
            } else if let Some(Some(agg)) = self.aggs.get_mut(i) {
                let acc = self.row[i].clone();
                let input = ctx.field(rec, i)?;
                self.row[i] = agg.retract(ctx, acc, input)?;
            }
        }
        Ok(())
    }

    pub(crate) fn group_is_empty(&self, ctx: &mut Ctx, rec: Rec, seq: &[usize]) -> Result<bool> {
        for &s in seq {
            if !ctx.field(rec, s)?.is_null() {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The sequence-group comparator (`UserDefinedSeqComparator`, ascending, NULL first) of the record's
    /// sequence fields against the row being built.
    pub(crate) fn compare_group(&self, ctx: &mut Ctx, rec: Rec, seq: &[usize]) -> Result<Ordering> {
        for &s in seq {
            let input = ctx.field(rec, s)?;
            let a = ctx.scalar(&input, s)?;
            let b = ctx.scalar(&self.row[s], s)?;
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

