//! `java.util.PriorityQueue` with a comparator, array layout included.

use std::cmp::Ordering;

/// A binary min-heap laid out exactly like `java.util.PriorityQueue` with a comparator (same sift-up and
/// sift-down rules), so that its array order, which `PriorityQueue.iterator()` and `stream()` expose, is the
/// same as Java's for the same sequence of `offer`/`poll` calls.
#[derive(Debug, Default)]
pub struct JavaPriorityQueue<T> {
    items: Vec<T>,
}

impl<T> JavaPriorityQueue<T> {
    /// An empty queue.
    pub fn new() -> Self {
        JavaPriorityQueue { items: Vec::new() }
    }

    /// `offer`: append, then sift up while strictly smaller than the parent.
    pub fn offer(&mut self, item: T, cmp: &impl Fn(&T, &T) -> Ordering) {
        self.items.push(item);
        let mut k = self.items.len() - 1;
        while k > 0 {
            let parent = (k - 1) / 2;
            if cmp(&self.items[k], &self.items[parent]) != Ordering::Less {
                break;
            }
            self.items.swap(k, parent);
            k = parent;
        }
    }

    /// `poll`: remove the head; the last element moves to the root and sifts down, taking the right child
    /// only when it is strictly smaller than the left one, and stopping when not greater than the child.
    pub fn poll(&mut self, cmp: &impl Fn(&T, &T) -> Ordering) -> Option<T> {
        if self.items.is_empty() {
            return None;
        }
        let last = self.items.len() - 1;
        self.items.swap(0, last);
        let result = self.items.pop();
        let n = self.items.len();
        let mut k = 0;
        let half = n / 2;
        while k < half {
            let mut child = 2 * k + 1;
            let right = child + 1;
            if right < n && cmp(&self.items[child], &self.items[right]) == Ordering::Greater {
                child = right;
            }
            if cmp(&self.items[k], &self.items[child]) != Ordering::Greater {
                break;
            }
            self.items.swap(k, child);
            k = child;
        }
        result
    }

    /// The elements in array (iteration) order.
    pub fn into_vec(self) -> Vec<T> {
        self.items
    }

    /// The elements in array (iteration) order.
    #[cfg(test)]
    pub fn as_slice(&self) -> &[T] {
        &self.items
    }
}

#[cfg(test)]
mod tests {
    use super::JavaPriorityQueue;

    #[test]
    fn java_priority_queue_layout() {
        let cmp = |a: &(i32, char), b: &(i32, char)| a.0.cmp(&b.0);
        let mut q = JavaPriorityQueue::new();
        for (i, v) in [5, 3, 8, 1].into_iter().enumerate() {
            q.offer((v, (b'a' + i as u8) as char), &cmp);
        }
        let keys: Vec<i32> = q.as_slice().iter().map(|x| x.0).collect();
        assert_eq!(keys, [1, 3, 8, 5]);
        assert_eq!(q.poll(&cmp).map(|x| x.0), Some(1));
        let keys: Vec<i32> = q.as_slice().iter().map(|x| x.0).collect();
        assert_eq!(keys, [3, 5, 8]);
        // Equal elements never move past each other on offer.
        let mut q = JavaPriorityQueue::new();
        q.offer((1, 'x'), &cmp);
        q.offer((1, 'y'), &cmp);
        assert_eq!(q.into_vec(), [(1, 'x'), (1, 'y')]);
    }
}
