//! Replays of an evidence bundle (`paimon-parity retain`): only the splits whose files the bundle retained
//! are compared; the others are counted as `not retained` ([`Totals::not_retained`](super::Totals)), never
//! skipped silently.
//!
//! A split is retained when every file it reads is on disk in the unpacked bundle: its data files and before
//! files (`DataSplit.dataFiles()`, `beforeFiles()`) and their deletion-vector index files
//! (`DataSplit.deletionFiles()`). The bundle's metadata (schema, snapshots, manifests, index manifests) is
//! always whole, so both readers still plan the full scan.

use native_reader::{Split, SplitKey};

use crate::diff::Paired;
use crate::reader::PlannedSplit;

/// Whether every file `split` reads exists on disk: data and before files (at their bucket path, or their
/// external path), and the index files of their deletion vectors. A file whose location is not local is
/// not retained.
pub fn split_is_retained(split: &Split) -> bool {
    let files = split.data_files.iter().chain(&split.before_files);
    let data = files.into_iter().all(|f| {
        f.path(&split.bucket_path)
            .map(|p| p.is_file())
            .unwrap_or(false)
    });
    let deletion = split
        .deletion_files
        .iter()
        .chain(&split.before_deletion_files)
        .flatten()
        .all(|d| native_reader::split::local_path(&d.path).is_ok_and(|p| p.is_file()));
    data && deletion
}

/// Splits `pairs` into those whose every planned split (either side's) is retained, in order, and the keys of
/// the others, in order.
pub fn retained_pairs<'a>(
    pairs: Vec<Paired<'a, PlannedSplit>>,
) -> (Vec<Paired<'a, PlannedSplit>>, Vec<SplitKey>) {
    let mut kept = Vec::with_capacity(pairs.len());
    let mut left_out = Vec::new();
    for pair in pairs {
        let (retained, key) = match pair {
            Paired::Both(s, n) => (
                split_is_retained(&s.split) && split_is_retained(&n.split),
                s.split.key(),
            ),
            Paired::StockOnly(s) => (split_is_retained(&s.split), s.split.key()),
            Paired::NativeOnly(n) => (split_is_retained(&n.split), n.split.key()),
        };
        if retained {
            kept.push(pair);
        } else {
            left_out.push(key);
        }
    }
    (kept, left_out)
}
