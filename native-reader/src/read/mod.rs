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
//!   only once split `i` has been handed out. Splits start in plan order (a FIFO queue);
//! * the iterator yields one [`SplitRead`] per split in plan order, its batches in the split's own order;
//! * the last splits of the plan (the last [`ReadOptions::threads`], so every split of a plan with fewer
//!   splits than threads) are also decoded in parallel inside themselves ([`ahead`], through
//!   [`crate::merge::read_split_with`]): the sorted runs of a merge section, the next file of a split, or
//!   the two column halves of a single-file split, on the same pool. Unless
//!   [`ReadOptions::decode_ahead`] is false;
//! * memory: decoded batches waiting for the consumer are bounded by [`ReadOptions::buffer_bytes`]
//!   (Arrow memory size, over all in-flight splits), plus the batch each worker is decoding and two
//!   batches of the split the consumer is reading. A worker whose batch does not fit waits, except the
//!   worker of the split being read, which always may hold two batches, so the consumer never starves.
//!   Splits read ahead fill the budget while the consumer drains the current one: with few large splits
//!   that is what lets the threads overlap (a fixed per-split queue of a couple of batches leaves them
//!   idle behind the current split). The bound holds when splits are read in plan order; a consumer that
//!   waits for a split whose worker has not started yet lets the others exceed it rather than deadlock.
//!
//! Dropping a [`SplitRead`] or the [`OrderedSplitReads`] stops the decoding behind it: the worker sees the
//! split cancelled before its next batch. A panic inside a worker (a decoder bug) is caught and becomes an
//! [`Error::Decode`] naming the bucket directory, so one bad split cannot take the process down.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Condvar, Mutex};

use arrow_array::RecordBatch;

use crate::error::{Error, Result};
use crate::merge::read_split_with;

pub(crate) mod ahead;
use crate::split::Split;
use crate::table::Table;
pub use ahead::AheadPool;

/// How [`read_splits`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// Worker threads (at least 1). Default: the machine's available parallelism.
    pub threads: usize,
    /// Splits queued or being read at once (at least `threads`). Default: twice the threads.
    pub in_flight: usize,
    /// Rows per record batch (at most), as for [`crate::merge::read_split`].
    pub batch_size: usize,
    /// Bytes of decoded batches (Arrow memory size) buffered ahead of the consumer over all in-flight
    /// splits (see the module docs). Default 64 MiB.
    pub buffer_bytes: usize,
    /// With more than one thread, also decode inside each split in parallel ([`crate::merge::read_split_with`]:
    /// the sorted runs of a merge section, the next file, or the two column halves of a single-file split,
    /// on the same pool), so that tables with fewer splits than threads use them. Default true; false
    /// reads each split on one thread, as [`crate::merge::read_split`] does.
    pub decode_ahead: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self {
            threads,
            in_flight: 2 * threads,
            batch_size: crate::decode::DEFAULT_BATCH_SIZE,
            buffer_bytes: 64 << 20,
            decode_ahead: true,
        }
    }
}

/// Batches of one split that a worker may hold ahead of the consumer when it is the split being read,
/// whatever the budget.
const HEAD_BATCHES: usize = 2;

/// The shared buffer budget.
struct Budget {
    state: Mutex<BudgetState>,
    changed: Condvar,
    limit: usize,
}

struct BudgetState {
    /// Bytes of batches sent and not yet taken by the consumer.
    bytes: usize,
    /// The split the consumer is reading (or will read next).
    head: usize,
    /// What its worker shares, once known.
    head_split: Option<Arc<SplitShared>>,
}

impl Budget {
    fn lock(&self) -> std::sync::MutexGuard<'_, BudgetState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits until split `index` may buffer a batch of `size` bytes; false when the split was cancelled.
    fn acquire(&self, index: usize, size: usize, split: &SplitShared) -> bool {
        let mut state = self.lock();
        loop {
            if split.cancelled.load(Ordering::Acquire) {
                return false;
            }
            let fits = state.bytes == 0 || state.bytes + size <= self.limit;
            let head =
                state.head == index && split.outstanding.load(Ordering::Acquire) < HEAD_BATCHES;
            // The consumer waits for a split whose worker has not started (it reads splits out of plan
            // order, or the pool is busy): workers ahead must not hold the threads it needs.
            let head_queued = state
                .head_split
                .as_ref()
                .is_some_and(|h| !h.started.load(Ordering::Acquire));
            if fits || head || head_queued {
                state.bytes += size;
                split.outstanding.fetch_add(1, Ordering::AcqRel);
                return true;
            }
            state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    fn release(&self, size: usize, split: &SplitShared) {
        let mut state = self.lock();
        state.bytes = state.bytes.saturating_sub(size);
        split.outstanding.fetch_sub(1, Ordering::AcqRel);
        drop(state);
        self.changed.notify_all();
    }

    fn set_head(&self, index: usize, split: &Arc<SplitShared>) {
        let mut state = self.lock();
        if state.head == index && state.head_split.is_some() {
            return;
        }
        state.head = index;
        state.head_split = Some(split.clone());
        drop(state);
        self.changed.notify_all();
    }
}

/// What a worker and the consumer of one split share.
#[derive(Default)]
struct SplitShared {
    started: AtomicBool,
    cancelled: AtomicBool,
    outstanding: AtomicUsize,
}

/// One message of a worker: a batch with its accounted size, or the error that ended the split.
type Message = (Result<RecordBatch>, usize);

/// The batches of one split, in the split's order; an iterator over `Result<RecordBatch>` with
/// [`crate::types::read_schema`] (`_row_kind` Int8 first). An error ends the split.
pub struct SplitRead {
    /// Position of the split in the slice given to [`read_splits`].
    pub index: usize,
    batches: Receiver<Message>,
    shared: Arc<SplitShared>,
    budget: Arc<Budget>,
}

impl Iterator for SplitRead {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        self.budget.set_head(self.index, &self.shared);
        let (batch, size) = self.batches.recv().ok()?;
        if batch.is_ok() {
            self.budget.release(size, &self.shared);
        }
        Some(batch)
    }
}

impl Drop for SplitRead {
    fn drop(&mut self) {
        // Stop the worker, then take back what it buffered (it sends nothing after it sees the flag). The
        // flag is set under the budget's lock so that a worker about to wait cannot miss the wake-up.
        {
            let _state = self.budget.lock();
            self.shared.cancelled.store(true, Ordering::Release);
        }
        self.budget.changed.notify_all();
        while let Ok((batch, size)) = self.batches.recv() {
            if batch.is_ok() {
                self.budget.release(size, &self.shared);
            }
        }
    }
}

/// The splits given to [`read_splits`], read in parallel and yielded in order (see the module docs).
pub struct OrderedSplitReads {
    in_flight: VecDeque<SplitRead>,
    pool: Arc<rayon::ThreadPool>,
    table: Arc<Table>,
    splits: Arc<[Split]>,
    options: ReadOptions,
    budget: Arc<Budget>,
    next_to_start: usize,
    /// The splits before this one had their files in a store asked for ([`prefetch_window`]).
    prefetched_up_to: usize,
}

/// How far ahead of the split being started the files of later splits in an object store are fetched: at most
/// this many splits...
const PREFETCH_SPLITS: usize = 8;
/// ...and at most this many bytes of their files (as the plan gives their sizes), so that memory stays bounded
/// by a few splits.
const PREFETCH_BYTES: i64 = 64 << 20;

/// Starts fetching the files of split `index` of `splits` (in an object store) and of the splits after it,
/// within [`PREFETCH_SPLITS`] and [`PREFETCH_BYTES`], from `from` on (the splits before `from` were asked for
/// already); returns the index past the last split asked for, the `from` of the next call. A reader going
/// through a plan split after split calls it before each split, so that the latency of a GET is paid while
/// the splits before are decoded, not file after file. Files on local disk need nothing: no-op.
pub fn prefetch_window(splits: &[Split], index: usize, from: usize) -> usize {
    let mut bytes = 0i64;
    let mut next = from.max(index);
    let end = splits.len().min(index + PREFETCH_SPLITS);
    for (j, split) in splits.iter().enumerate().take(end).skip(index) {
        bytes += split
            .data_files
            .iter()
            .chain(&split.before_files)
            .map(|f| f.file_size)
            .sum::<i64>();
        if j > index && bytes > PREFETCH_BYTES {
            break;
        }
        if j >= next {
            crate::merge::prefetch_split(split);
            next = j + 1;
        }
    }
    next
}

impl OrderedSplitReads {
    fn start_next(&mut self) {
        let index = self.next_to_start;
        if index >= self.splits.len() {
            return;
        }
        self.next_to_start += 1;
        let (tx, rx) = channel::<Message>();
        let shared = Arc::new(SplitShared::default());
        let (table, splits, budget, worker_shared) = (
            self.table.clone(),
            self.splits.clone(),
            self.budget.clone(),
            shared.clone(),
        );
        let batch_size = self.options.batch_size;
        self.prefetched_up_to = prefetch_window(&self.splits, index, self.prefetched_up_to);
        // Decoding ahead inside the split when there are threads to spare for it (crate::read::ahead).
        // Only where splits alone no longer keep the threads busy: the last splits of the plan (all of
        // them when it has fewer splits than threads). Elsewhere the splits are the parallelism, and
        // dividing each split's work only adds its costs (a second reader per file, hand-offs).
        let tail = self.splits.len() - index <= self.options.threads;
        let ahead = (self.options.threads > 1 && self.options.decode_ahead && tail)
            .then(|| self.pool.clone());
        self.pool.spawn_fifo(move || {
            let split = &splits[index];
            worker_shared.started.store(true, Ordering::Release);
            let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<()> {
                if worker_shared.cancelled.load(Ordering::Acquire) {
                    return Ok(());
                }
                for batch in read_split_with(&table, split, batch_size, ahead)? {
                    let batch = batch?;
                    let size = batch.get_array_memory_size();
                    if !budget.acquire(index, size, &worker_shared) {
                        return Ok(());
                    }
                    if tx.send((Ok(batch), size)).is_err() {
                        budget.release(size, &worker_shared);
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
            let _ = tx.send((Err(error), 0));
        });
        self.in_flight.push_back(SplitRead {
            index,
            batches: rx,
            shared,
            budget: self.budget.clone(),
        });
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
        let read = self.in_flight.pop_front()?;
        self.budget.set_head(read.index, &read.shared);
        Some(read)
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
        in_flight: VecDeque::new(),
        pool: Arc::new(pool),
        table,
        splits: splits.into(),
        options,
        budget: Arc::new(Budget {
            state: Mutex::new(BudgetState {
                bytes: 0,
                head: 0,
                head_split: None,
            }),
            changed: Condvar::new(),
            limit: options.buffer_bytes,
        }),
        next_to_start: 0,
        prefetched_up_to: 0,
    })
}
