//! `org.apache.paimon.mergetree.compact.IntervalPartition`.

use std::cmp::Ordering;

use crate::binary_row::Datum;
use crate::java::priority_queue::JavaPriorityQueue;

use super::{KeyComparator, KeyedFile};

/// `IntervalPartition.partition()`: sections of sorted runs.
///
/// Files are sorted (stably) by (min key, max key); a new section starts when a file's min key is greater
/// than the largest max key of the current section. Inside a section, runs are built greedily with a
/// priority queue of runs ordered by their last file's max key: each next file is appended to the run with
/// the smallest last max key if it starts after it, else it opens a new run. The runs of a section are
/// returned in the queue's internal array order, exactly as `java.util.PriorityQueue.stream()` yields them,
/// because that order decides the file order of a split and the leaf order of the merge.
pub fn interval_partition<F>(
    mut files: Vec<KeyedFile<F>>,
    cmp: &KeyComparator,
) -> Vec<Vec<Vec<KeyedFile<F>>>> {
    files.sort_by(|a, b| {
        cmp.compare(&a.min_key, &b.min_key)
            .then_with(|| cmp.compare(&a.max_key, &b.max_key))
    });
    let mut result = Vec::new();
    let mut section: Vec<KeyedFile<F>> = Vec::new();
    let mut bound: Option<Vec<Datum>> = None;
    for file in files {
        if let Some(b) = &bound {
            if !section.is_empty() && cmp.compare(&file.min_key, b) == Ordering::Greater {
                result.push(section_runs(std::mem::take(&mut section), cmp));
                bound = None;
            }
        }
        let extend = match &bound {
            None => true,
            Some(b) => cmp.compare(&file.max_key, b) == Ordering::Greater,
        };
        if extend {
            bound = Some(file.max_key.clone());
        }
        section.push(file);
    }
    if !section.is_empty() {
        result.push(section_runs(section, cmp));
    }
    result
}

fn section_runs<F>(metas: Vec<KeyedFile<F>>, cmp: &KeyComparator) -> Vec<Vec<KeyedFile<F>>> {
    let by_last_max = |a: &Vec<KeyedFile<F>>, b: &Vec<KeyedFile<F>>| match (a.last(), b.last()) {
        (Some(x), Some(y)) => cmp.compare(&x.max_key, &y.max_key),
        _ => Ordering::Equal,
    };
    let mut queue = JavaPriorityQueue::new();
    let mut metas = metas.into_iter();
    let Some(first) = metas.next() else {
        return Vec::new();
    };
    queue.offer(vec![first], &by_last_max);
    for meta in metas {
        let Some(mut top) = queue.poll(&by_last_max) else {
            break;
        };
        let after = top
            .last()
            .is_some_and(|last| cmp.compare(&meta.min_key, &last.max_key) == Ordering::Greater);
        if after {
            top.push(meta);
        } else {
            queue.offer(vec![meta], &by_last_max);
        }
        queue.offer(top, &by_last_max);
    }
    queue.into_vec()
}
