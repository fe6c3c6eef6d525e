//! Decoding ahead inside one split: the parallelism of a split whose files or sorted runs can be decoded
//! side by side (the sorted runs of a merge section, the next file of a raw split), for reads on more than
//! one thread.
//!
//! The released reader decodes a split on the thread that reads it (`RecordReader` chains); engines get
//! their parallelism from many splits. A table with one or two large splits then leaves cores idle. An
//! [`Ahead`] wraps one sequential source (an iterator of batches) and keeps up to [`DEPTH`] of its next
//! items decoded by tasks on a rayon pool while the consumer works on the current one. The items and their
//! order are exactly the source's: only *when* and *on which thread* each is produced changes.
//!
//! Never blocking on a queued task: the consumer that finds nothing ready and the source idle (its task
//! not started yet, or the pool busy) steps the source itself, inline. It waits only for a task that is
//! stepping the source at that moment, which finishes without waiting for anything. So a pool whose threads
//! are all consumers (split workers of [`super::read_splits`]) cannot deadlock on its own decode-ahead
//! tasks; it only loses the overlap.
//!
//! Memory: at most [`DEPTH`] items of each [`Ahead`] wait for their consumer, plus the one a task is
//! producing.

use std::collections::VecDeque;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Items of one source decoded ahead of its consumer at most.
pub(crate) const DEPTH: usize = 2;

/// The pool decode-ahead tasks run on (the split pool of [`super::read_splits`]).
pub type AheadPool = Arc<rayon::ThreadPool>;

struct State<I: Iterator> {
    /// The source, `None` while a task or the consumer is stepping it.
    source: Option<I>,
    ready: VecDeque<I::Item>,
    /// The source returned `None`.
    ended: bool,
    /// A task is queued or running.
    scheduled: bool,
    /// The consumer is gone: tasks stop.
    cancelled: bool,
    /// A task's step panicked (a decoder bug): the consumer re-raises it on its own thread, after the items
    /// produced before it, so that the split's reader fails as it would have without decoding ahead (and a
    /// task never takes the process down).
    panic: Option<Box<dyn std::any::Any + Send>>,
}

struct Shared<I: Iterator> {
    state: Mutex<State<I>>,
    changed: Condvar,
}

impl<I: Iterator> Shared<I> {
    fn lock(&self) -> MutexGuard<'_, State<I>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A sequential source decoded ahead on a pool (see the module docs). An iterator of the source's items,
/// in the source's order.
pub(crate) struct Ahead<I>
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
{
    shared: Arc<Shared<I>>,
    pool: AheadPool,
}

impl<I> Ahead<I>
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
{
    /// Starts decoding `source` ahead on `pool`.
    pub(crate) fn new(source: I, pool: AheadPool) -> Ahead<I> {
        let ahead = Ahead {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    source: Some(source),
                    ready: VecDeque::with_capacity(DEPTH),
                    ended: false,
                    scheduled: false,
                    cancelled: false,
                    panic: None,
                }),
                changed: Condvar::new(),
            }),
            pool,
        };
        let mut state = ahead.shared.lock();
        ahead.schedule(&mut state);
        drop(state);
        ahead
    }

    /// Queues a task when the source is idle, not ended, and fewer than [`DEPTH`] items are ready.
    fn schedule(&self, state: &mut State<I>) {
        if state.scheduled || state.ended || state.cancelled || state.ready.len() >= DEPTH {
            return;
        }
        state.scheduled = true;
        let shared = self.shared.clone();
        self.pool.spawn(move || produce(&shared));
    }
}

/// The task: steps the source while fewer than [`DEPTH`] items are ready and nobody else holds it.
fn produce<I: Iterator>(shared: &Shared<I>) {
    let mut state = shared.lock();
    loop {
        if state.cancelled || state.ended || state.ready.len() >= DEPTH {
            break;
        }
        // The consumer is stepping it inline.
        let Some(mut source) = state.source.take() else {
            break;
        };
        drop(state);
        let stepped = catch_unwind(AssertUnwindSafe(|| source.next()));
        state = shared.lock();
        match stepped {
            Ok(item) => {
                state.source = Some(source);
                match item {
                    Some(item) => state.ready.push_back(item),
                    None => state.ended = true,
                }
            }
            Err(panic) => {
                // The source is dropped: after a panic its state is unknown.
                state.panic = Some(panic);
                state.ended = true;
            }
        }
        shared.changed.notify_all();
    }
    state.scheduled = false;
    if state.cancelled {
        state.source = None;
        state.ready.clear();
    }
}

impl<I> Iterator for Ahead<I>
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
{
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        let mut state = self.shared.lock();
        loop {
            if let Some(item) = state.ready.pop_front() {
                self.schedule(&mut state);
                return Some(item);
            }
            if let Some(panic) = state.panic.take() {
                drop(state);
                resume_unwind(panic);
            }
            if state.ended {
                return None;
            }
            if let Some(mut source) = state.source.take() {
                // Nothing ready and no task stepping it: step it here rather than wait for the pool.
                drop(state);
                let item = source.next();
                state = self.shared.lock();
                state.source = Some(source);
                match item {
                    Some(item) => {
                        self.schedule(&mut state);
                        return Some(item);
                    }
                    None => {
                        state.ended = true;
                        return None;
                    }
                }
            }
            // A task is stepping the source: it finishes without waiting for anything.
            state = self
                .shared
                .changed
                .wait(state)
                .unwrap_or_else(|p| p.into_inner());
        }
    }
}

impl<I> Drop for Ahead<I>
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
{
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.cancelled = true;
        // A task holding the source drops it when it sees the flag; otherwise it goes now.
        state.source = None;
        state.ready.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn pool(threads: usize) -> AheadPool {
        Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap(),
        )
    }

    /// Items come out in the source's order, each once, whatever thread produced them, and the end is
    /// reported once the source ends.
    #[test]
    fn items_keep_the_source_order() {
        let pool = pool(2);
        for n in [0usize, 1, 2, 3, 1000] {
            let got: Vec<usize> = Ahead::new(0..n, pool.clone()).collect();
            assert_eq!(got, (0..n).collect::<Vec<_>>(), "{n} items");
        }
    }

    /// A pool whose only thread is busy never runs the task: the consumer steps the source inline.
    #[test]
    fn a_busy_pool_does_not_stall_the_consumer() {
        let pool = pool(1);
        let (release, wait) = std::sync::mpsc::channel::<()>();
        pool.spawn(move || {
            let _ = wait.recv();
        });
        let got: Vec<u32> = Ahead::new(0..5u32, pool.clone()).collect();
        assert_eq!(got, vec![0, 1, 2, 3, 4]);
        release.send(()).unwrap();
    }

    /// A step that panics on a pool thread does not abort the process: the consumer gets the items before
    /// it, then the panic on its own thread (where `read_splits` turns it into an error naming the split).
    #[test]
    fn a_panicking_step_reaches_the_consumer_after_the_items_before_it() {
        let pool = pool(2);
        for _ in 0..20 {
            let source = (0..5u32).inspect(|i| {
                if *i == 3 {
                    panic!("decoder bug at item 3");
                }
            });
            let got = Mutex::new(Vec::new());
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                for i in Ahead::new(source, pool.clone()) {
                    got.lock().unwrap().push(i);
                }
            }));
            let panic = outcome.expect_err("the panic reaches the consumer");
            assert_eq!(
                panic.downcast_ref::<&str>().copied(),
                Some("decoder bug at item 3")
            );
            assert_eq!(*got.lock().unwrap(), vec![0, 1, 2]);
        }
    }

    /// With a free thread the source runs ahead, but never more than DEPTH items beyond what was taken.
    #[test]
    fn no_more_than_depth_items_wait() {
        let pool = pool(2);
        let produced = Arc::new(AtomicUsize::new(0));
        let counter = produced.clone();
        let source = (0..100usize).inspect(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        let mut ahead = Ahead::new(source, pool);
        assert_eq!(ahead.next(), Some(0));
        std::thread::sleep(std::time::Duration::from_millis(50));
        let n = produced.load(Ordering::SeqCst);
        // The one taken, DEPTH ready; the task stops there.
        assert_eq!(n, 1 + DEPTH, "{n} items produced");
        drop(ahead);
    }
}
