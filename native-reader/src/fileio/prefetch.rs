//! Whole objects fetched ahead of their reads: a split's data files are asked for at once, so that the
//! latency of one GET per file is paid once per split instead of once per file (what the reader would wait
//! for file after file). The fetched bytes wait here until their `read`, which takes them; at most
//! [`LIMIT`] objects wait at a time (the oldest requests are dropped past it), so memory stays bounded by the
//! splits being read.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use bytes::Bytes;
use object_store::path::Path as ObjectPath;
use tokio::task::JoinHandle;

/// Objects fetched ahead and not read yet, at most: more than the files of a few splits read at the same
/// time, few enough that abandoned ones (a split whose read stopped early) cost little.
pub const LIMIT: usize = 64;

/// The GETs started ahead of their reads, by object key.
#[derive(Debug, Default)]
pub struct Prefetched {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// The running or finished GET of each key.
    tasks: HashMap<ObjectPath, JoinHandle<object_store::Result<Bytes>>>,
    /// The keys in the order their GETs started, to drop the oldest past [`LIMIT`].
    order: VecDeque<ObjectPath>,
}

impl Prefetched {
    /// Whether a GET of `key` was started and not taken yet.
    pub fn contains(&self, key: &ObjectPath) -> bool {
        self.lock().tasks.contains_key(key)
    }

    /// Keeps `task`, the GET of `key`; aborts the oldest kept GETs past [`LIMIT`].
    pub fn insert(&self, key: ObjectPath, task: JoinHandle<object_store::Result<Bytes>>) {
        let mut inner = self.lock();
        if let Some(old) = inner.tasks.insert(key.clone(), task) {
            old.abort();
        } else {
            inner.order.push_back(key);
        }
        while inner.tasks.len() > LIMIT {
            let Some(oldest) = inner.order.pop_front() else {
                break;
            };
            if let Some(t) = inner.tasks.remove(&oldest) {
                t.abort();
            }
        }
    }

    /// The GET of `key` started ahead, taken out (the caller waits for it), or `None`.
    pub fn take(&self, key: &ObjectPath) -> Option<JoinHandle<object_store::Result<Bytes>>> {
        let mut inner = self.lock();
        let task = inner.tasks.remove(key)?;
        inner.order.retain(|k| k != key);
        Some(task)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fetched_objects_wait_for_their_read_and_the_oldest_go_past_the_limit() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let prefetched = Prefetched::default();
        let key = |i: usize| ObjectPath::from(format!("t/bucket-0/data-{i}.parquet"));
        for i in 0..=LIMIT {
            let body = Bytes::from(format!("file {i}"));
            prefetched.insert(key(i), rt.spawn(async move { Ok(body) }));
        }
        // LIMIT + 1 started: the oldest was dropped, the newest waits.
        assert!(!prefetched.contains(&key(0)));
        assert!(prefetched.contains(&key(1)));
        let task = prefetched.take(&key(LIMIT)).unwrap();
        assert_eq!(
            rt.block_on(task).unwrap().unwrap(),
            Bytes::from(format!("file {LIMIT}"))
        );
        // Taken once: a second read fetches it itself.
        assert!(prefetched.take(&key(LIMIT)).is_none());
        assert!(!prefetched.contains(&key(LIMIT)));
    }
}
