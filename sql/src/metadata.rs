//! A metadata system table (`t$snapshots`, `t$files`, …) as a DataFusion table that reads nothing until a
//! query scans it: its schema comes from the release's columns ([`metadata::schema`]), its rows from
//! [`metadata::read`] when DataFusion executes its one partition, so registering a table costs no manifest
//! or snapshot read. A read the native reader refuses fails the query with [`Error::Unread`] naming the
//! system table.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use datafusion::catalog::streaming::StreamingTable;
use datafusion::error::DataFusionError;
use datafusion::execution::TaskContext;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use datafusion::physical_plan::SendableRecordBatchStream;
use native_reader::system::{metadata, SystemTable};
use native_reader::Table;

use crate::error::{Error, Result};

/// One metadata system table of one table, read whole when its partition executes.
#[derive(Debug)]
struct MetadataStream {
    /// Its name in the session (`t$files`), for the error of a refused read.
    name: String,
    table: Arc<Table>,
    system: SystemTable,
    /// The columns without `_row_kind` (`+I` on every row of a metadata table).
    schema: SchemaRef,
}

impl PartitionStream for MetadataStream {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let (name, table, system, schema) = (
            self.name.clone(),
            self.table.clone(),
            self.system,
            self.schema.clone(),
        );
        let read = futures::stream::once(async move {
            // Reading the metadata is blocking file I/O: off DataFusion's async threads.
            tokio::task::spawn_blocking(move || {
                let batch = metadata::read(&table, system).map_err(|e| {
                    DataFusionError::External(Box::new(Error::Unread {
                        table: name,
                        reason: e.to_string(),
                    }))
                })?;
                let columns = batch.columns()[1..].to_vec();
                RecordBatch::try_new(schema, columns).map_err(DataFusionError::from)
            })
            .await
            .map_err(|e| DataFusionError::External(Box::new(e)))?
        });
        Box::pin(RecordBatchStreamAdapter::new(self.schema.clone(), read))
    }
}

/// `system` of `table` as a DataFusion table named `name` in the session, read when a query scans it.
///
/// Errors: [`Error::Native`] when `system` is not a metadata system table; [`Error::DataFusion`] (never
/// for a schema made here).
pub(crate) fn provider(
    name: &str,
    table: Arc<Table>,
    system: SystemTable,
) -> Result<Arc<StreamingTable>> {
    let with_row_kind = metadata::schema(&table, system)?;
    let schema: SchemaRef = Arc::new(Schema::new(with_row_kind.fields()[1..].to_vec()));
    let stream = MetadataStream {
        name: name.to_owned(),
        table,
        system,
        schema: schema.clone(),
    };
    Ok(Arc::new(StreamingTable::try_new(
        schema,
        vec![Arc::new(stream)],
    )?))
}

/// The [`Error::Unread`] a failed query's error holds (a refused metadata read), rebuilt; `None` for any
/// other error.
pub(crate) fn unread_in(error: &DataFusionError) -> Option<Error> {
    let DataFusionError::External(inner) = error.find_root() else {
        return None;
    };
    match inner.downcast_ref::<Error>() {
        Some(Error::Unread { table, reason }) => Some(Error::Unread {
            table: table.clone(),
            reason: reason.clone(),
        }),
        _ => None,
    }
}
