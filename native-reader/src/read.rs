//! Reading many splits at once: splits decoded in parallel on a rayon pool, handed out in plan order.
//!
//! The released reader reads one split per `TableRead.createReader(split)` call, and engines parallelise
//! by handing splits to tasks (Flink's `ReadOperator` per subtask, Spark's partitions). A native engine
//! wants the same overlap on one machine without losing the order of the plan, because a streaming
//! replay is only meaningful in snapshot order. [`read_splits`] does that:
//!
//! * split `i` is read by [`crate::merge::read_split`] (the same reader, the same rows, in the same order,
//!   as one split read on its own) on a dedicated rayon pool of [`ReadOptions::threads`] threads;
//! * at most [`ReadOptions::in_flight`] splits are queued or being read: split `i + in_flight` is queued
//!   only once split `i` has been handed out; each buffers at most [`ReadOptions::queue_depth`] decoded
//!   batches in a bounded channel, so memory is bounded by `in_flight` splits, never by the table. Splits
//!   start in plan order (a FIFO queue), so the split the consumer waits for is always running: a worker
//!   blocked on a full channel never starves it;
//! * the iterator yields one [`SplitRead`] per split in plan order; its batches are yielded in the split's
//!   own order. Dropping either stops the decoding behind it (the worker's next send fails).
//!
//! A panic inside a worker (a decoder bug) is caught and becomes an [`Error::Decode`] naming the bucket
//! directory, so one bad split cannot take the process down.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;

use arrow_array::RecordBatch;

use crate::error::{Error, Result};
use crate::merge::read_split;
use crate::split::Split;
use crate::table::Table;

/// How [`read_splits`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// Worker threads (at least 1). Default: the machine's available parallelism.
    pub threads: usize,
    /// Splits queued or being read at once (at least `threads`): more lets later splits proceed while the
    /// consumer drains a long one. Default: twice the threads.
    pub in_flight: usize,
    /// Rows per record batch (at most), as for [`crate::merge::read_split`].
    pub batch_size: usize,
    /// Decoded batches a worker may buffer ahead of the consumer per split (at least 1). Default 2.
    pub queue_depth: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self {
            threads,
            in_flight: 2 * threads,
            batch_size: crate::decode::DEFAULT_BATCH_SIZE,
            queue_depth: 2,
        }
    }
}

/// The batches of one split, in the split's order; an iterator over `Result<RecordBatch>` with
/// [`crate::types::read_schema`] (`_row_kind` Int8 first). An error ends the split.
pub struct SplitRead {
    /// Position of the split in the slice given to [`read_splits`].
    pub index: usize,
    batches: Receiver<Result<RecordBatch>>,
}

impl Iterator for SplitRead {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        self.batches.recv().ok()
    }
}

/// The splits given to [`read_splits`], read in parallel and yielded in order (see the module docs).
pub struct OrderedSplitReads {
    pool: Arc<rayon::ThreadPool>,
    table: Arc<Table>,
    splits: Arc<[Split]>,
    options: ReadOptions,
    next_to_start: usize,
    in_flight: VecDeque<SplitRead>,
}

impl OrderedSplitReads {
    fn start_next(&mut self) {
        let index = self.next_to_start;
        if index >= self.splits.len() {
            return;
        }
        self.next_to_start += 1;
        let (tx, rx) = sync_channel(self.options.queue_depth.max(1));
        let table = self.table.clone();
        let splits = self.splits.clone();
        let batch_size = self.options.batch_size;
        self.pool.spawn_fifo(move || {
            let split = &splits[index];
            let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<()> {
                for batch in read_split(&table, split, batch_size)? {
                    let failed = batch.is_err();
                    if tx.send(batch).is_err() || failed {
                        // The consumer is gone, or the split ended with an error already sent.
                        return Ok(());
                    }
                }
                Ok(())
            }));
            let error = match outcome {
                Ok(Ok(())) => return,
                Ok(Err(e)) => e,
                Err(panic) => Error::Decode {
                    path: PathBuf::from(&split.bucket_path),
                    reason: format!(
                        "the native reader panicked reading the split of snapshot {}: {}",
                        split.snapshot_id,
                        panic_message(panic.as_ref())
                    ),
                },
            };
            let _ = tx.send(Err(error));
        });
        self.in_flight.push_back(SplitRead { index, batches: rx });
    }
}

impl Iterator for OrderedSplitReads {
    type Item = SplitRead;

    fn next(&mut self) -> Option<SplitRead> {
        while self.in_flight.len() < self.options.in_flight.max(self.options.threads).max(1)
            && self.next_to_start < self.splits.len()
        {
            self.start_next();
        }
        self.in_flight.pop_front()
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Reads `splits` of `table` on a rayon pool of `options.threads` threads and yields each split's
/// batches in plan order (see the module docs for bounds and ordering). Each split's rows are exactly
/// those of [`crate::merge::read_split`] on that split alone.
///
/// Errors: [`Error::ThreadPool`] when the pool cannot be started; every reading error of
/// [`crate::merge::read_split`] comes out of the split's [`SplitRead`], naming the file.
pub fn read_splits(
    table: Arc<Table>,
    splits: impl Into<Arc<[Split]>>,
    options: ReadOptions,
) -> Result<OrderedSplitReads> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.max(1))
        .thread_name(|i| format!("paimon-native-read-{i}"))
        .build()
        .map_err(|e| Error::ThreadPool {
            reason: e.to_string(),
        })?;
    Ok(OrderedSplitReads {
        pool: Arc::new(pool),
        table,
        splits: splits.into(),
        options,
        next_to_start: 0,
        in_flight: VecDeque::new(),
    })
}
