//! Splits in flight: the pairs of a replay are read on up to N threads and their results handed back on
//! the replay's own thread in plan order, so that the report, the JSON and the progress are the same at any
//! number of threads (Paimon's own parallel sources read splits the same way: one `TableRead` per reader
//! thread, the splits of one plan spread over them).

use std::collections::BTreeMap;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Condvar, Mutex, PoisonError};

/// How much may be in flight at once.
#[derive(Clone, Copy, Debug)]
pub(super) struct InFlight {
    /// Threads reading splits (1: every split is read on the calling thread, one after another).
    pub threads: usize,
    /// Bytes the finished results waiting for their turn may hold (Arrow buffer sizes): no new split starts
    /// while they hold more, unless none waits. A split being read is bounded by the split itself.
    pub budget_bytes: usize,
}

/// The shared state of [`in_order`].
struct State<T> {
    /// The next item a worker takes.
    next: usize,
    /// Items the consumer has taken: `0..consumed`.
    consumed: usize,
    /// Finished items not yet taken, by position (a panic is kept and resumed on the consumer's thread).
    done: BTreeMap<usize, std::thread::Result<T>>,
    /// Bytes the items in `done` hold.
    held_bytes: usize,
    /// The consumer asked to stop: no item starts any more.
    stop: bool,
}

/// Runs `work(i)` for every `i` in `0..n` on up to `limits.threads` threads and calls `consume(i, result)` on
/// the calling thread in order of `i`. At most twice as many items as threads run ahead of the consumer, and
/// no new item starts while the finished ones waiting hold more than `limits.budget_bytes` (`size` of each),
/// unless none waits. When `consume` returns `false`, no further item starts; the ones in flight finish and
/// are dropped. A panic in `work` is resumed on the calling thread when its turn comes.
pub(super) fn in_order<T: Send>(
    n: usize,
    limits: InFlight,
    work: impl Fn(usize) -> T + Sync,
    size: impl Fn(&T) -> usize + Sync,
    mut consume: impl FnMut(usize, T) -> bool,
) {
    let threads = limits.threads.clamp(1, n.max(1));
    if threads == 1 {
        for i in 0..n {
            if !consume(i, work(i)) {
                return;
            }
        }
        return;
    }
    let window = 2 * threads;
    let state = Mutex::new(State {
        next: 0,
        consumed: 0,
        done: BTreeMap::new(),
        held_bytes: 0,
        stop: false,
    });
    let changed = Condvar::new();
    let lock = || state.lock().unwrap_or_else(PoisonError::into_inner);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = {
                    let mut s = lock();
                    loop {
                        if s.stop || s.next >= n {
                            return;
                        }
                        let ahead = s.next - s.consumed;
                        if ahead < window
                            && (s.held_bytes <= limits.budget_bytes || s.done.is_empty())
                        {
                            break;
                        }
                        s = changed.wait(s).unwrap_or_else(PoisonError::into_inner);
                    }
                    s.next += 1;
                    s.next - 1
                };
                let result = catch_unwind(AssertUnwindSafe(|| work(i)));
                let bytes = result.as_ref().map(&size).unwrap_or(0);
                let mut s = lock();
                s.held_bytes += bytes;
                s.done.insert(i, result);
                changed.notify_all();
            });
        }
        for i in 0..n {
            let result = {
                let mut s = lock();
                loop {
                    if let Some(r) = s.done.remove(&i) {
                        s.held_bytes -= r.as_ref().map(&size).unwrap_or(0);
                        s.consumed = i + 1;
                        changed.notify_all();
                        break r;
                    }
                    s = changed.wait(s).unwrap_or_else(PoisonError::into_inner);
                }
            };
            let go_on = match result {
                Ok(t) => consume(i, t),
                Err(panic) => {
                    lock().stop = true;
                    changed.notify_all();
                    resume_unwind(panic);
                }
            };
            if !go_on {
                lock().stop = true;
                changed.notify_all();
                return;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn limits(threads: usize, budget_bytes: usize) -> InFlight {
        InFlight {
            threads,
            budget_bytes,
        }
    }

    #[test]
    fn results_come_back_in_order_whatever_order_they_finish_in() {
        for threads in [1, 2, 3, 8] {
            let mut seen = Vec::new();
            in_order(
                20,
                limits(threads, usize::MAX),
                |i| {
                    // Later items finish first.
                    std::thread::sleep(std::time::Duration::from_millis((20 - i as u64) % 7));
                    i * 10
                },
                |_| 0,
                |i, v| {
                    seen.push((i, v));
                    true
                },
            );
            let expected: Vec<(usize, usize)> = (0..20).map(|i| (i, i * 10)).collect();
            assert_eq!(seen, expected, "{threads} threads");
        }
    }

    #[test]
    fn no_more_than_the_threads_run_at_once_and_the_window_bounds_what_runs_ahead() {
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let started = AtomicUsize::new(0);
        let mut ahead_seen = 0;
        in_order(
            30,
            limits(3, usize::MAX),
            |_| {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                started.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(2));
                running.fetch_sub(1, Ordering::SeqCst);
            },
            |_| 0,
            |i, ()| {
                // Items started beyond the one in hand: at most the window (2 x threads).
                ahead_seen = ahead_seen.max(started.load(Ordering::SeqCst) - (i + 1));
                std::thread::sleep(std::time::Duration::from_millis(3));
                true
            },
        );
        assert_eq!(most.load(Ordering::SeqCst), 3);
        assert!(ahead_seen <= 6, "{ahead_seen} items ahead of the consumer");
    }

    #[test]
    fn the_byte_budget_holds_back_new_items_while_results_wait() {
        // Each result holds 100 bytes; a budget of 150 lets at most two wait (the second starts while one
        // waits under the budget), whatever the threads.
        let held = AtomicUsize::new(0);
        let most_held = AtomicUsize::new(0);
        in_order(
            12,
            limits(4, 150),
            |_| {
                let now = held.fetch_add(100, Ordering::SeqCst) + 100;
                most_held.fetch_max(now, Ordering::SeqCst);
                100usize
            },
            |b| *b,
            |_, b| {
                std::thread::sleep(std::time::Duration::from_millis(5));
                held.fetch_sub(b, Ordering::SeqCst);
                true
            },
        );
        // Two waiting plus the one in the consumer's hand, plus one per thread that checked the budget just
        // before the last result landed.
        assert!(
            most_held.load(Ordering::SeqCst) <= 100 * (3 + 4),
            "{} bytes held",
            most_held.load(Ordering::SeqCst)
        );
        assert!(most_held.load(Ordering::SeqCst) >= 100);
    }

    #[test]
    fn stopping_starts_nothing_more() {
        let started = AtomicUsize::new(0);
        let mut consumed = 0;
        in_order(
            1000,
            limits(2, usize::MAX),
            |_| {
                started.fetch_add(1, Ordering::SeqCst);
            },
            |_| 0,
            |i, ()| {
                consumed += 1;
                i < 4
            },
        );
        assert_eq!(consumed, 5);
        // The five consumed plus at most the window started ahead.
        assert!(started.load(Ordering::SeqCst) <= 5 + 4);
    }

    #[test]
    fn a_panic_in_the_work_reaches_the_caller() {
        let caught = catch_unwind(AssertUnwindSafe(|| {
            in_order(
                10,
                limits(2, usize::MAX),
                |i| {
                    if i == 3 {
                        panic!("item 3");
                    }
                    i
                },
                |_| 0,
                |_, _| true,
            )
        }));
        assert!(caught.is_err());
    }
}
