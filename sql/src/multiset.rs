//! Net counts of distinct rows on DataFusion's hash aggregation, spilled to disk when they outgrow a memory
//! limit: the operator behind `replay --unordered` once the rows one side has returned and the other has
//! not yet matched no longer fit in its in-memory map.
//!
//! The input is batches of [`counts_schema`]: a row's encoded bytes (`key`, Arrow's row format), how many
//! more copies the stock side has than the native side (`net`), and one more than the highest ordinal each
//! side returned the row at (`last_stock`, `last_native`; 0 for a side that did not). DataFusion groups them
//! by `key` (`SUM(net)`, `MAX` of the ordinals) under a [`FairSpillPool`] of the given size, with its disk
//! manager in the OS temporary directory, and returns the groups whose `net` is not 0: the rows only one
//! side has, with their copies.

use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::streaming::StreamingTable;
use datafusion::error::DataFusionError;
use datafusion::execution::memory_pool::FairSpillPool;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::execution::TaskContext;
use datafusion::physical_plan::metrics::MetricValue;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use datafusion::physical_plan::{ExecutionPlan, SendableRecordBatchStream};
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};

use crate::error::{Error, Result};

/// The smallest memory limit [`SpillingCounts::start`] accepts, in bytes: below it DataFusion cannot hold
/// the batches it merges its spill files from.
pub const MIN_MEMORY: usize = 16 << 20;

/// `key` Binary, `net` Int64, `last_stock` UInt64, `last_native` UInt64, none nullable: the shape of
/// [`SpillingCounts::push`]'s input and of [`SpillingCounts::finish`]'s output.
pub fn counts_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("key", DataType::Binary, false),
        Field::new("net", DataType::Int64, false),
        Field::new("last_stock", DataType::UInt64, false),
        Field::new("last_native", DataType::UInt64, false),
    ]))
}

/// The input batches, handed over once to the one partition DataFusion executes.
#[derive(Debug)]
struct Input {
    schema: SchemaRef,
    batches: Mutex<Option<mpsc::Receiver<RecordBatch>>>,
}

impl PartitionStream for Input {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let taken = self.batches.lock().ok().and_then(|mut b| b.take());
        let stream: futures::stream::BoxStream<'static, datafusion::error::Result<RecordBatch>> =
            match taken {
                Some(rx) => rx.map(Ok).boxed(),
                None => futures::stream::once(async {
                    Err(DataFusionError::Internal(
                        "the counted rows were read twice".into(),
                    ))
                })
                .boxed(),
            };
        Box::pin(RecordBatchStreamAdapter::new(self.schema.clone(), stream))
    }
}

/// What the aggregation thread sends back: the groups with a non-zero `net`, then how much it spilled.
enum Output {
    Batch(RecordBatch),
    Done { spilled_bytes: usize },
    Failed(String),
}

/// A running aggregation of net row counts (see the module docs): batches go in with
/// [`push`](Self::push), the rows only one side has come out of [`finish`](Self::finish). Its own thread
/// runs DataFusion; memory is bounded by the limit given to [`start`](Self::start) plus a batch or two in
/// flight.
pub struct SpillingCounts {
    input: Option<mpsc::Sender<RecordBatch>>,
    output: Receiver<Output>,
    thread: Option<JoinHandle<()>>,
}

/// The rows only one side has ([`SpillingCounts::finish`]).
pub struct Remaining {
    output: Receiver<Output>,
    thread: Option<JoinHandle<()>>,
    /// Bytes DataFusion wrote to its spill files, known once every batch has been returned.
    pub spilled_bytes: usize,
}

impl SpillingCounts {
    /// Starts the aggregation with `memory_limit` bytes for DataFusion's operators (at least
    /// [`MIN_MEMORY`]).
    ///
    /// Errors: [`Error::Runtime`] when its thread or runtime cannot start.
    pub fn start(memory_limit: usize) -> Result<SpillingCounts> {
        let (tx, rx) = mpsc::channel::<RecordBatch>(1);
        let (out_tx, out_rx) = sync_channel::<Output>(2);
        let runtime = tokio::runtime::Builder::new_current_thread().build()?;
        let thread = std::thread::Builder::new()
            .name("unordered-counts".into())
            .spawn(move || {
                let result = runtime.block_on(aggregate(rx, memory_limit.max(MIN_MEMORY), &out_tx));
                let last = match result {
                    Ok(spilled_bytes) => Output::Done { spilled_bytes },
                    Err(e) => Output::Failed(e.to_string()),
                };
                let _ = out_tx.send(last);
            })?;
        Ok(SpillingCounts {
            input: Some(tx),
            output: out_rx,
            thread: Some(thread),
        })
    }

    /// Adds a batch of [`counts_schema`] rows; blocks while the aggregation is behind.
    ///
    /// Errors: [`Error::Aggregation`] with DataFusion's words when the aggregation has stopped (a memory
    /// limit too small for a batch, a spill file that cannot be written).
    pub fn push(&mut self, batch: RecordBatch) -> Result<()> {
        let Some(tx) = self.input.as_mut() else {
            return Err(Error::Aggregation("rows pushed after finish".into()));
        };
        if futures::executor::block_on(tx.send(batch)).is_err() {
            self.input = None;
            return Err(self.failure());
        }
        Ok(())
    }

    /// Why the aggregation thread stopped early.
    fn failure(&mut self) -> Error {
        loop {
            match self.output.recv() {
                Ok(Output::Failed(e)) => return Error::Aggregation(e),
                Ok(Output::Batch(_)) => continue,
                Ok(Output::Done { .. }) | Err(_) => {
                    return Error::Aggregation("the aggregation stopped early".into())
                }
            }
        }
    }

    /// Ends the input; the groups whose `net` is not 0, batch by batch.
    pub fn finish(mut self) -> Remaining {
        self.input = None;
        Remaining {
            output: std::mem::replace(&mut self.output, sync_channel(0).1),
            thread: self.thread.take(),
            spilled_bytes: 0,
        }
    }
}

impl Remaining {
    /// The next batch of groups with a non-zero `net` ([`counts_schema`]), `None` after the last.
    ///
    /// Errors: [`Error::Aggregation`] with DataFusion's words.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        match self.output.recv() {
            Ok(Output::Batch(b)) => Ok(Some(b)),
            Ok(Output::Done { spilled_bytes }) => {
                self.spilled_bytes = spilled_bytes;
                if let Some(t) = self.thread.take() {
                    let _ = t.join();
                }
                Ok(None)
            }
            Ok(Output::Failed(e)) => Err(Error::Aggregation(e)),
            Err(_) => Err(Error::Aggregation(
                "the aggregation stopped without an answer".into(),
            )),
        }
    }
}

impl Drop for SpillingCounts {
    fn drop(&mut self) {
        self.input = None;
        // Unblock the thread if it is sending, then wait for it (its spill files go with it).
        while self.output.try_recv().is_ok() {}
        drop(std::mem::replace(&mut self.output, sync_channel(0).1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Remaining {
    fn drop(&mut self) {
        drop(std::mem::replace(&mut self.output, sync_channel(0).1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Runs `SELECT key, SUM(net), MAX(last_stock), MAX(last_native) … GROUP BY key HAVING SUM(net) <> 0`
/// over the pushed batches, sending each result batch; returns the bytes spilled.
async fn aggregate(
    rx: mpsc::Receiver<RecordBatch>,
    memory_limit: usize,
    out: &std::sync::mpsc::SyncSender<Output>,
) -> datafusion::error::Result<usize> {
    let runtime = RuntimeEnvBuilder::new()
        .with_memory_pool(Arc::new(FairSpillPool::new(memory_limit)))
        .build_arc()?;
    let config = SessionConfig::new()
        .with_target_partitions(1)
        .with_batch_size(8192);
    let context = SessionContext::new_with_config_rt(config, runtime);
    let schema = counts_schema();
    let input = Input {
        schema: schema.clone(),
        batches: Mutex::new(Some(rx)),
    };
    context.register_table(
        "counted",
        Arc::new(StreamingTable::try_new(schema, vec![Arc::new(input)])?),
    )?;
    let plan = context
        .sql(
            "SELECT key, SUM(net) AS net, MAX(last_stock) AS last_stock, \
             MAX(last_native) AS last_native FROM counted GROUP BY key HAVING SUM(net) <> 0",
        )
        .await?
        .create_physical_plan()
        .await?;
    let mut stream = datafusion::physical_plan::execute_stream(plan.clone(), context.task_ctx())?;
    while let Some(batch) = stream.next().await {
        if out.send(Output::Batch(batch?)).is_err() {
            // Nobody reads the answer any more.
            return Ok(0);
        }
    }
    Ok(spilled_bytes(plan.as_ref()))
}

/// The bytes every operator of `plan` spilled.
fn spilled_bytes(plan: &dyn ExecutionPlan) -> usize {
    let own = plan.metrics().map_or(0, |m| {
        m.iter()
            .map(|metric| match metric.value() {
                MetricValue::SpilledBytes(c) => c.value(),
                _ => 0,
            })
            .sum()
    });
    own + plan
        .children()
        .into_iter()
        .map(|c| spilled_bytes(c.as_ref()))
        .sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{BinaryArray, Int64Array, UInt64Array};

    fn batch(keys: &[u64], net: i64, at: u64) -> RecordBatch {
        let n = keys.len();
        let bytes: Vec<Vec<u8>> = keys.iter().map(|k| k.to_be_bytes().repeat(4)).collect();
        let (stock, native) = if net > 0 {
            ((at + 1..at + 1 + n as u64).collect(), vec![0; n])
        } else {
            (vec![0; n], (at + 1..at + 1 + n as u64).collect())
        };
        RecordBatch::try_new(
            counts_schema(),
            vec![
                Arc::new(BinaryArray::from_iter_values(bytes.iter())),
                Arc::new(Int64Array::from(vec![net; n])),
                Arc::new(UInt64Array::from(stock)),
                Arc::new(UInt64Array::from(native)),
            ],
        )
        .unwrap()
    }

    /// 600 000 stock rows, then the same rows but one from the native side in reverse: a hash table of
    /// every row is about 60 MB, more than the 16 MB allowed, so the aggregation must spill, and the one
    /// row the native side lacks must come out with its stock ordinal.
    #[test]
    fn rows_only_one_side_has_survive_a_spill() {
        let rows = 600_000u64;
        let missing = 123_456u64;
        let mut counts = SpillingCounts::start(MIN_MEMORY).unwrap();
        let keys: Vec<u64> = (0..rows).collect();
        for chunk in keys.chunks(8192) {
            counts.push(batch(chunk, 1, chunk[0])).unwrap();
        }
        let reversed: Vec<u64> = keys
            .iter()
            .rev()
            .copied()
            .filter(|k| *k != missing)
            .collect();
        for chunk in reversed.chunks(8192) {
            counts.push(batch(chunk, -1, 0)).unwrap();
        }
        let mut remaining = counts.finish();
        let mut out = Vec::new();
        while let Some(b) = remaining.next_batch().unwrap() {
            out.push(b);
        }
        let rows_out: usize = out.iter().map(|b| b.num_rows()).sum();
        assert_eq!(rows_out, 1);
        let b = out.iter().find(|b| b.num_rows() == 1).unwrap();
        let key = b.column(0).as_any().downcast_ref::<BinaryArray>().unwrap();
        assert_eq!(key.value(0), missing.to_be_bytes().repeat(4).as_slice());
        let net = b.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
        assert_eq!(net.value(0), 1);
        let last = b.column(2).as_any().downcast_ref::<UInt64Array>().unwrap();
        assert_eq!(last.value(0), missing + 1);
        assert!(remaining.spilled_bytes > 0, "nothing was spilled");
    }
}
