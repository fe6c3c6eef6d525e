//! A Paimon table as a DataFusion table: its latest snapshot planned by the native reader
//! ([`native_reader::Table::plan_batch`], `DataTableBatchScan`), one DataFusion partition per split, each
//! read lazily ([`native_reader::merge::read_split`]: merge-on-read, deletion vectors), so that memory is
//! bounded by the splits being read at once, not by the table. A query's filters on partition columns
//! leave out the splits of the partitions they rule out before anything is read ([`PaimonTable`]).

use std::sync::Arc;

use arrow::compute::{cast_with_options, CastOptions};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Date32Array, RecordBatch, RecordBatchOptions, StringArray,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::streaming::StreamingTable;
use datafusion::catalog::Session;
use datafusion::common::DFSchema;
use datafusion::datasource::{TableProvider, TableType};
use datafusion::error::DataFusionError;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::empty::EmptyExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::SendableRecordBatchStream;
use native_reader::split::Split;
use native_reader::Table;

use crate::error::Result;

/// One split of a table, read when DataFusion executes its partition.
#[derive(Debug)]
struct SplitStream {
    table: Arc<Table>,
    split: Split,
    /// The table's columns, without the reader's leading `_row_kind`.
    schema: SchemaRef,
    /// Whether the reader's batches start with `_row_kind`, kept as a column.
    keep_row_kind: bool,
}

impl PartitionStream for SplitStream {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let schema = self.schema.clone();
        let keep = self.keep_row_kind;
        let out = schema.clone();
        let batches: Box<dyn Iterator<Item = native_reader::Result<RecordBatch>> + Send> =
            match native_reader::merge::read_split(
                &self.table,
                &self.split,
                native_reader::decode::DEFAULT_BATCH_SIZE,
            ) {
                Ok(b) => Box::new(b),
                Err(e) => Box::new(std::iter::once(Err(e))),
            };
        let stream = futures::stream::iter(batches.map(move |batch| {
            let batch = batch.map_err(|e| DataFusionError::External(Box::new(e)))?;
            let columns = if keep {
                batch.columns().to_vec()
            } else {
                batch.columns()[1..].to_vec()
            };
            RecordBatch::try_new(out.clone(), columns).map_err(DataFusionError::from)
        }));
        Box::pin(RecordBatchStreamAdapter::new(schema, stream))
    }
}

/// `table`'s latest snapshot as a DataFusion table ([`PaimonTable`]): a batch scan planned now, each split
/// one partition, read lazily; projections go to DataFusion, and filters on partition columns leave out the
/// splits of partitions they rule out. `keep_row_kind` keeps the reader's `_row_kind` column (Int8: 0 `+I`,
/// 1 `-U`, 2 `+U`, 3 `-D`) before the table's columns.
///
/// Errors: the native reader's planning error (a table it refuses names what it does not support).
pub fn table_provider(table: Arc<Table>, keep_row_kind: bool) -> Result<Arc<PaimonTable>> {
    let splits = table.plan_batch(None)?;
    splits_provider(table, splits, keep_row_kind)
}

/// `splits` of `table` (a batch plan, or a streaming scan's splits of every snapshot it read) as a
/// DataFusion table, each split one partition read lazily, as [`table_provider`] does.
///
/// Errors: none today (a `Result` for the schema work it shares with [`table_provider`]).
pub fn splits_provider(
    table: Arc<Table>,
    splits: Vec<Split>,
    keep_row_kind: bool,
) -> Result<Arc<PaimonTable>> {
    // `$binlog` and `$audit_log` read as their batches come (array columns, `rowkind` first,
    // `_SEQUENCE_NUMBER` next with `table-read.sequence-number.enabled`).
    let read: SchemaRef = native_reader::merge::split_schema(&table);
    let fields: Vec<_> = read
        .fields()
        .iter()
        .skip(usize::from(!keep_row_kind))
        .map(|f| f.as_ref().clone())
        .collect();
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    // Only the partition columns whose rendered values type back exactly prune (strings, integers,
    // booleans, decimals, dates); a filter on any other column is left to DataFusion.
    let mut partition_fields: Vec<Field> = table
        .schema()
        .partition_keys
        .iter()
        .filter_map(|k| schema.field_with_name(k).ok().cloned())
        .filter(|f| prunes_by(f.data_type()))
        .collect();
    if partition_fields.len() != table.schema().partition_keys.len() {
        // The split's values are by position: without every key, none is matched to its column.
        partition_fields.clear();
    }
    Ok(Arc::new(PaimonTable {
        table,
        splits,
        schema,
        keep_row_kind,
        partition_schema: Arc::new(Schema::new(partition_fields)),
    }))
}

/// A Paimon table's batch plan, or a streaming scan's splits, as a DataFusion [`TableProvider`] (see
/// [`table_provider`], [`splits_provider`]).
#[derive(Debug)]
pub struct PaimonTable {
    table: Arc<Table>,
    splits: Vec<Split>,
    schema: SchemaRef,
    keep_row_kind: bool,
    /// The partition columns (`partitionKeys` order), as the table's columns are typed.
    partition_schema: SchemaRef,
}

impl PaimonTable {
    /// The splits of the batch plan.
    pub fn splits(&self) -> &[Split] {
        &self.splits
    }

    /// Whether `expr` reads partition columns only (and at least one).
    fn on_partitions(&self, expr: &Expr) -> bool {
        let columns = expr.column_refs();
        !columns.is_empty()
            && columns
                .iter()
                .all(|c| self.partition_schema.field_with_name(&c.name).is_ok())
    }

    /// The splits `filters` (on partition columns) may keep: each split's partition values as one row of
    /// the partition columns, every filter evaluated on them; a split is left out only where a filter is
    /// false or NULL (a WHERE keeps no row of it). Nothing is left out when a value cannot be typed (a
    /// rendering this does not parse) or a filter cannot be evaluated.
    fn kept_splits(&self, state: &dyn Session, filters: &[Expr]) -> Vec<&Split> {
        let all = || self.splits.iter().collect();
        let filters: Vec<&Expr> = filters.iter().filter(|f| self.on_partitions(f)).collect();
        if filters.is_empty() || self.splits.is_empty() {
            return all();
        }
        let Some(values) = partition_batch(&self.partition_schema, &self.splits) else {
            return all();
        };
        let Ok(df_schema) = DFSchema::try_from(self.partition_schema.as_ref().clone()) else {
            return all();
        };
        let mut keep = vec![true; self.splits.len()];
        for filter in filters {
            let Ok(physical) = state.create_physical_expr(filter.clone(), &df_schema) else {
                return all();
            };
            let Ok(result) = physical
                .evaluate(&values)
                .and_then(|v| v.into_array(values.num_rows()))
            else {
                return all();
            };
            let Some(result) = result.as_any().downcast_ref::<BooleanArray>() else {
                return all();
            };
            for (i, k) in keep.iter_mut().enumerate() {
                *k &= result.is_valid(i) && result.value(i);
            }
        }
        self.splits
            .iter()
            .zip(keep)
            .filter_map(|(s, k)| k.then_some(s))
            .collect()
    }
}

/// Whether a partition column of this type is typed back from its rendering exactly (Java `toString()`
/// of the internal value, [`Split::partition`]): strings, integers, booleans, decimals (plain), dates (the
/// day count). Not binaries, floats, times or timestamps, whose renderings this does not parse.
fn prunes_by(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::Boolean
            | DataType::Decimal128(_, _)
            | DataType::Date32
    )
}

/// One row per split of its partition values, typed as the partition columns: a DATE from the rendered
/// day count (`Integer.toString` of the internal value), anything else cast from the rendered string
/// (`None` for a rendering that does not cast).
fn partition_batch(schema: &SchemaRef, splits: &[Split]) -> Option<RecordBatch> {
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(schema.fields().len());
    for (i, field) in schema.fields().iter().enumerate() {
        let rendered: Vec<Option<&str>> = splits
            .iter()
            .map(|s| s.partition.get(i).and_then(|v| v.as_deref()))
            .collect();
        let column: ArrayRef = if field.data_type() == &DataType::Date32 {
            let mut days = Vec::with_capacity(rendered.len());
            for v in &rendered {
                days.push(match v {
                    Some(v) => Some(v.parse::<i32>().ok()?),
                    None => None,
                });
            }
            Arc::new(Date32Array::from(days))
        } else {
            let strings = StringArray::from(rendered);
            let options = CastOptions {
                safe: false,
                ..CastOptions::default()
            };
            cast_with_options(&strings, field.data_type(), &options).ok()?
        };
        columns.push(column);
    }
    let options = RecordBatchOptions::new().with_row_count(Some(splits.len()));
    RecordBatch::try_new_with_options(schema.clone(), columns, &options).ok()
}

#[async_trait]
impl TableProvider for PaimonTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    /// Filters on partition columns prune splits, inexactly (DataFusion still applies them to the rows).
    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> datafusion::error::Result<Vec<TableProviderFilterPushDown>> {
        Ok(filters
            .iter()
            .map(|f| {
                if self.on_partitions(f) {
                    TableProviderFilterPushDown::Inexact
                } else {
                    TableProviderFilterPushDown::Unsupported
                }
            })
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> datafusion::error::Result<Arc<dyn ExecutionPlan>> {
        let partitions: Vec<Arc<dyn PartitionStream>> = self
            .kept_splits(state, filters)
            .into_iter()
            .map(|split| {
                Arc::new(SplitStream {
                    table: self.table.clone(),
                    split: split.clone(),
                    schema: self.schema.clone(),
                    keep_row_kind: self.keep_row_kind,
                }) as Arc<dyn PartitionStream>
            })
            .collect();
        if partitions.is_empty() {
            let projected = match projection {
                Some(p) => Arc::new(self.schema.project(p)?),
                None => self.schema.clone(),
            };
            return Ok(Arc::new(EmptyExec::new(projected)));
        }
        StreamingTable::try_new(self.schema.clone(), partitions)?
            .scan(state, projection, &[], limit)
            .await
    }
}
