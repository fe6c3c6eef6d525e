//! Split matching across the two readers and the file-list comparison of a matched pair.

use std::collections::{HashMap, VecDeque};

use native_reader::{DataFileDesc, Split, SplitKey};

/// A split as matched across the two readers. Copied freely whatever `T` is (it holds references only).
#[derive(Debug)]
pub enum Paired<'a, T> {
    /// Both readers planned it (under the same key, or the same files under another key).
    Both(&'a T, &'a T),
    /// Only the stock reader planned this split.
    StockOnly(&'a T),
    /// Only the native reader planned this split.
    NativeOnly(&'a T),
}

impl<T> Clone for Paired<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Paired<'_, T> {}

/// Pairs of splits matched by (snapshot, partition, bucket). A key planned several times on one side
/// (bin-packed append splits) is matched by its occurrence: the n-th with the n-th.
///
/// A split left unmatched on both sides with the very same (non-empty) list of data files is paired too:
/// the readers planned the same files under another snapshot, partition or bucket, which
/// [`compare_plans`] then names (stock value and native value) instead of reporting two unrelated
/// one-sided splits.
///
/// Order: stock order, then native-only splits in native order.
pub fn match_splits<'a, T>(
    stock: &'a [T],
    native: &'a [T],
    split_of: impl Fn(&T) -> &Split,
) -> Vec<Paired<'a, T>> {
    let mut native_by_key: HashMap<SplitKey, VecDeque<usize>> = HashMap::new();
    for (i, s) in native.iter().enumerate() {
        native_by_key
            .entry(split_of(s).key())
            .or_default()
            .push_back(i);
    }
    let mut used = vec![false; native.len()];
    let mut out = Vec::with_capacity(stock.len().max(native.len()));
    for s in stock {
        let n = native_by_key
            .get_mut(&split_of(s).key())
            .and_then(VecDeque::pop_front);
        match n {
            Some(i) => {
                used[i] = true;
                out.push(Paired::Both(s, &native[i]));
            }
            None => out.push(Paired::StockOnly(s)),
        }
    }
    // Second pass: the same files planned under another key.
    let files = |s: &T| -> Vec<String> {
        split_of(s)
            .data_files
            .iter()
            .map(|f| f.file_name.clone())
            .collect()
    };
    let mut native_by_files: HashMap<Vec<String>, VecDeque<usize>> = HashMap::new();
    for (i, n) in native.iter().enumerate() {
        if !used[i] && !split_of(n).data_files.is_empty() {
            native_by_files.entry(files(n)).or_default().push_back(i);
        }
    }
    if !native_by_files.is_empty() {
        for pair in out.iter_mut() {
            if let Paired::StockOnly(s) = *pair {
                if let Some(i) = native_by_files
                    .get_mut(&files(s))
                    .and_then(VecDeque::pop_front)
                {
                    used[i] = true;
                    *pair = Paired::Both(s, &native[i]);
                }
            }
        }
    }
    for (i, n) in native.iter().enumerate() {
        if !used[i] {
            out.push(Paired::NativeOnly(n));
        }
    }
    out
}

fn show_partition(p: &[Option<String>]) -> String {
    let parts: Vec<&str> = p.iter().map(|v| v.as_deref().unwrap_or("NULL")).collect();
    format!("[{}]", parts.join(", "))
}

/// Compares what two readers planned for the same split. `None` when the plans agree; otherwise a sentence
/// naming the first difference with both values: the key (snapshot, partition, bucket) when the same files
/// were planned under another one, the data files (naming the file only one side has), the before files,
/// deletion files, flags, bucket path.
pub fn compare_plans(stock: &Split, native: &Split) -> Option<String> {
    fn files(list: &[DataFileDesc]) -> Vec<(String, i32, i64)> {
        list.iter()
            .map(|f| (f.file_name.clone(), f.level, f.row_count))
            .collect()
    }
    fn show_one((n, l, r): &(String, i32, i64)) -> String {
        format!("{n} (level {l}, {r} rows)")
    }
    fn show(list: &[(String, i32, i64)]) -> String {
        let parts: Vec<String> = list.iter().map(show_one).collect();
        format!("[{}]", parts.join(", "))
    }
    fn what_differs(s: &[(String, i32, i64)], n: &[(String, i32, i64)]) -> String {
        let only = |a: &[(String, i32, i64)], b: &[(String, i32, i64)]| {
            a.iter()
                .filter(|f| !b.iter().any(|g| g.0 == f.0))
                .map(show_one)
                .collect::<Vec<_>>()
        };
        let (only_s, only_n) = (only(s, n), only(n, s));
        let mut parts = Vec::new();
        if !only_s.is_empty() {
            parts.push(format!("{} only in stock", only_s.join(", ")));
        }
        if !only_n.is_empty() {
            parts.push(format!("{} only in native", only_n.join(", ")));
        }
        if parts.is_empty() {
            parts.push("same files in another order, level or row count".into());
        }
        parts.join(", ")
    }
    let (sk, nk) = (stock.key(), native.key());
    if sk != nk {
        let mut parts = Vec::new();
        if sk.snapshot_id != nk.snapshot_id {
            parts.push(format!(
                "snapshot differs: stock {} vs native {}",
                sk.snapshot_id, nk.snapshot_id
            ));
        }
        if sk.partition != nk.partition {
            parts.push(format!(
                "partition differs: stock {} vs native {}",
                show_partition(&sk.partition),
                show_partition(&nk.partition)
            ));
        }
        if sk.bucket != nk.bucket {
            parts.push(format!(
                "bucket differs: stock {} vs native {}",
                sk.bucket, nk.bucket
            ));
        }
        return Some(format!(
            "{} (the native reader planned the same files as {nk})",
            parts.join("; ")
        ));
    }
    let (sf, nf) = (files(&stock.data_files), files(&native.data_files));
    if sf != nf {
        return Some(format!(
            "data files differ: {}; stock {} vs native {}",
            what_differs(&sf, &nf),
            show(&sf),
            show(&nf)
        ));
    }
    let (sb, nb) = (files(&stock.before_files), files(&native.before_files));
    if sb != nb {
        return Some(format!(
            "before files differ: {}; stock {} vs native {}",
            what_differs(&sb, &nb),
            show(&sb),
            show(&nb)
        ));
    }
    // `DataSplit.deletionFiles()` is absent or one entry per file; a list of nothing but `None` says the same
    // as no list (no file has a deletion vector).
    let same_deletions = |a: &[Option<native_reader::DeletionFileDesc>],
                          b: &[Option<native_reader::DeletionFileDesc>]| {
        a == b || (a.iter().all(Option::is_none) && b.iter().all(Option::is_none))
    };
    if !same_deletions(&stock.before_deletion_files, &native.before_deletion_files) {
        return Some(format!(
            "before deletion files differ: stock {:?} vs native {:?}",
            stock.before_deletion_files, native.before_deletion_files
        ));
    }
    if !same_deletions(&stock.deletion_files, &native.deletion_files) {
        return Some(format!(
            "deletion files differ: stock {:?} vs native {:?}",
            stock.deletion_files, native.deletion_files
        ));
    }
    if stock.is_streaming != native.is_streaming {
        return Some(format!(
            "is-streaming differs: stock {} vs native {}",
            stock.is_streaming, native.is_streaming
        ));
    }
    if stock.raw_convertible != native.raw_convertible {
        return Some(format!(
            "raw-convertible differs: stock {} vs native {}",
            stock.raw_convertible, native.raw_convertible
        ));
    }
    if stock.bucket_path.trim_end_matches('/') != native.bucket_path.trim_end_matches('/') {
        return Some(format!(
            "bucket path differs: stock {} vs native {}",
            stock.bucket_path, native.bucket_path
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::compare_plans;
    use native_reader::{DataFileDesc, DeletionFileDesc, Split};

    fn split(deletion_files: Vec<Option<DeletionFileDesc>>) -> Split {
        Split {
            snapshot_id: 3,
            partition: vec![],
            bucket: 0,
            bucket_path: "/t/bucket-0".into(),
            data_files: vec![DataFileDesc {
                file_name: "data-a.parquet".into(),
                level: 0,
                row_count: 2,
                file_size: 10,
                min_sequence_number: 0,
                max_sequence_number: 1,
                schema_id: 0,
                delete_row_count: Some(0),
                min_key: vec![],
                max_key: vec![],
                external_path: None,
                first_row_id: None,
                write_cols: None,
                file_source: None,
            }],
            before_files: vec![],
            deletion_files,
            before_deletion_files: vec![],
            is_streaming: true,
            raw_convertible: true,
            fallback: false,
        }
    }

    #[test]
    fn no_deletion_vector_is_the_same_with_or_without_a_list() {
        // Java 1.0 sends `[None]` for a file without a deletion vector, other planners send no list.
        assert_eq!(compare_plans(&split(vec![None]), &split(vec![])), None);
        let dv = DeletionFileDesc {
            path: "/t/index/dv-0".into(),
            offset: 1,
            length: 20,
            cardinality: Some(1),
        };
        let why = compare_plans(&split(vec![Some(dv)]), &split(vec![])).expect("a difference");
        assert!(why.starts_with("deletion files differ"), "{why}");
    }
}
