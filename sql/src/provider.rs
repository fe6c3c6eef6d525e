//! A Paimon table as a DataFusion table: its latest snapshot planned by the native reader
//! ([`native_reader::Table::plan_batch`], `DataTableBatchScan`), one DataFusion partition per split, each
//! read lazily ([`native_reader::merge::read_split`]: merge-on-read, deletion vectors), so that memory is
//! bounded by the splits being read at once, not by the table.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use datafusion::catalog::streaming::StreamingTable;
use datafusion::error::DataFusionError;
use datafusion::execution::TaskContext;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
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

/// `table`'s latest snapshot as a DataFusion table: a batch scan planned now, each split one partition of a
/// [`StreamingTable`] (DataFusion applies projections and filters to its batches). `keep_row_kind` keeps
/// the reader's `_row_kind` column (Int8: 0 `+I`, 1 `-U`, 2 `+U`, 3 `-D`) before the table's columns.
///
/// Errors: the native reader's planning error (a table it refuses names what it does not support).
pub fn table_provider(table: Arc<Table>, keep_row_kind: bool) -> Result<Arc<StreamingTable>> {
    let splits = table.plan_batch(None)?;
    let read = native_reader::types::read_schema_as(&table.schema().fields, table.string_views());
    let fields: Vec<_> = read
        .fields()
        .iter()
        .skip(usize::from(!keep_row_kind))
        .map(|f| f.as_ref().clone())
        .collect();
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    let partitions = splits
        .into_iter()
        .map(|split| {
            Arc::new(SplitStream {
                table: table.clone(),
                split,
                schema: schema.clone(),
                keep_row_kind,
            }) as Arc<dyn PartitionStream>
        })
        .collect();
    Ok(Arc::new(StreamingTable::try_new(schema, partitions)?))
}
