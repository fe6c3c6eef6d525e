//! The diff plan of two snapshots (`IncrementalDiffStartingScanner`, `SnapshotReaderImpl#readIncrementalDiff`):
//! what a batch scan of a table's own `incremental-between` of two tags, or of `incremental-between-scan-mode
//! =diff`, plans.
//!
//! Both snapshots are planned as a batch scan plans them (`ScanMode.ALL`, with the batch scan's level filter,
//! bucket filter and `$ro`'s level), the files grouped by (partition, bucket). Each partition and bucket of
//! either snapshot becomes one split of the end snapshot, unpacked: its before-files are the start snapshot's
//! files, its data files the end snapshot's, less the files both hold (the same data file meta: a file
//! whose level a compaction raised is two files here), each with its deletion vector in its own snapshot
//! when deletion vectors are enabled. The split is a batch split with before-files (1.0 to 1.3 a
//! `DataSplit`, from 1.4 an `IncrementalSplit`), read by [`crate::merge`]'s diff read for a primary-key
//! table and as its data files alone for an append table (`RawFileSplitRead`).
//!
//! From 1.1.1 the two snapshots must have the same bucket number when their schemas differ
//! (`TimeTravelUtil#checkRescaleBucketForIncrementalDiffQuery`). A data-evolution table is refused by name:
//! the released reader reads the end snapshot's files of such a split without merging their row-id groups.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::manifest::DataFileMeta;
use crate::options::{InvalidOption, ValueError};
use crate::scan::file_set::{deletion_vector_index, BucketFiles, DeletionVectorIndex};
use crate::scan::split_generator::{data_file_desc, deletion_file};
use crate::snapshot::Snapshot;
use crate::split::Split;
use crate::table::Table;

use super::Start;

/// The splits of the diff from `start` to `end` (see the module doc); `check_buckets` runs the release's
/// bucket-number check (1.1.1 on). `key=value` is the option that asked for it, for messages.
///
/// Errors: [`Error::InvalidOption`] naming the schema directory when the two snapshots' schemas have
/// different bucket numbers, in the release's words; [`Error::Unsupported`] for a data-evolution table;
/// the batch planner's errors for either snapshot.
pub(super) fn plan(
    table: &Table,
    start: &Snapshot,
    end: &Snapshot,
    check_buckets: bool,
    (key, value): (&str, &str),
) -> Result<Start> {
    if check_buckets && start.schema_id != end.schema_id {
        let (from, to) = (bucket_number(table, start)?, bucket_number(table, end)?);
        if from != to {
            return Err(InvalidOption::new(
                key,
                ValueError::Refused(format!(
                    "The bucket number of two snapshots are different ({from}, {to}), which is not \
                     supported in incremental diff query."
                )),
            )
            .at(table.path().join("schema")));
        }
    }
    if table.data_evolution() {
        return Err(Error::Unsupported {
            path: table.path().join("schema"),
            reason: format!(
                "the table's own {key}={value} as a diff of two snapshots on a data-evolution table (the \
                 released reader reads the end snapshot's files without merging their row-id groups)"
            ),
        });
    }
    let after = crate::scan::starting::batch_file_groups(table, end)?;
    let before = crate::scan::starting::batch_file_groups(table, start)?;
    let dv = table.options().deletion_vectors_enabled;
    let index = |snapshot: &Snapshot| -> Result<DeletionVectorIndex> {
        if dv {
            deletion_vector_index(table, snapshot)
        } else {
            Ok(HashMap::new())
        }
    };
    let (before_dvs, after_dvs) = (index(start)?, index(end)?);
    let splits = pair_up(before, after)
        .into_iter()
        .map(|(group, mut before, mut after)| {
            deduplicate(&mut before, &mut after);
            let at = (group.partition.clone(), group.bucket);
            let deletion_files = |files: &[DataFileMeta], dvs: &DeletionVectorIndex| {
                if dv {
                    files
                        .iter()
                        .map(|f| deletion_file(dvs.get(&at), f))
                        .collect()
                } else {
                    Vec::new()
                }
            };
            Split {
                snapshot_id: end.id,
                partition: group.rendered.values.clone(),
                bucket: group.bucket,
                bucket_path: table.bucket_path(&group.rendered.path, group.bucket),
                deletion_files: deletion_files(&after, &after_dvs),
                before_deletion_files: deletion_files(&before, &before_dvs),
                data_files: after.iter().map(data_file_desc).collect(),
                before_files: before.iter().map(data_file_desc).collect(),
                is_streaming: false,
                raw_convertible: false,
                fallback: false,
            }
        })
        .collect();
    Ok(Start::Planned(splits))
}

/// `deduplicate`: the files both lists hold (the same data file meta) leave both, the others keep their
/// order. Files are looked up by name first, so that a bucket of many files is not compared pairwise.
fn deduplicate(before: &mut Vec<DataFileMeta>, after: &mut Vec<DataFileMeta>) {
    let by_name = |files: &[DataFileMeta]| -> HashMap<String, Vec<DataFileMeta>> {
        let mut map: HashMap<String, Vec<DataFileMeta>> = HashMap::new();
        for f in files {
            map.entry(f.file_name.clone()).or_default().push(f.clone());
        }
        map
    };
    let in_after = by_name(after);
    let holds = |map: &HashMap<String, Vec<DataFileMeta>>, f: &DataFileMeta| {
        map.get(&f.file_name).is_some_and(|same| same.contains(f))
    };
    let common: Vec<DataFileMeta> = before
        .iter()
        .filter(|f| holds(&in_after, f))
        .cloned()
        .collect();
    let common = by_name(&common);
    before.retain(|f| !holds(&common, f));
    after.retain(|f| !holds(&common, f));
}

/// Every (partition, bucket) of either side, with the files of each side (the end snapshot's groups first,
/// then those only the start snapshot has; the release's order is a hash map's, and splits are matched by
/// partition and bucket).
fn pair_up(
    before: Vec<BucketFiles>,
    after: Vec<BucketFiles>,
) -> Vec<(BucketFiles, Vec<DataFileMeta>, Vec<DataFileMeta>)> {
    let mut out: Vec<(BucketFiles, Vec<DataFileMeta>, Vec<DataFileMeta>)> = after
        .into_iter()
        .map(|mut g| {
            let files = std::mem::take(&mut g.files);
            (g, Vec::new(), files)
        })
        .collect();
    let mut at: HashMap<(Vec<u8>, i32), usize> = out
        .iter()
        .enumerate()
        .map(|(i, (g, _, _))| ((g.partition.clone(), g.bucket), i))
        .collect();
    for mut g in before {
        let files = std::mem::take(&mut g.files);
        match at.get(&(g.partition.clone(), g.bucket)) {
            Some(&i) => out[i].1 = files,
            None => {
                at.insert((g.partition.clone(), g.bucket), out.len());
                out.push((g, files, Vec::new()));
            }
        }
    }
    out
}

/// The bucket number of the schema `snapshot` was written with (`CoreOptions#bucket`, -1 when unset).
///
/// Errors: the schema file's read errors; [`Error::InvalidOption`] when `bucket` is not an int.
fn bucket_number(table: &Table, snapshot: &Snapshot) -> Result<i32> {
    let schema = table.schema_by_id(snapshot.schema_id)?;
    match schema.option("bucket") {
        None => Ok(-1),
        Some(v) => v.trim().parse::<i32>().map_err(|_| {
            InvalidOption::new("bucket", ValueError::NotAnInt(v.to_owned()))
                .at(table.path().join("schema"))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partition::RenderedPartition;

    fn group(partition: u8, bucket: i32, files: &[&str]) -> BucketFiles {
        BucketFiles {
            partition: vec![partition],
            rendered: RenderedPartition {
                values: vec![Some(partition.to_string())],
                path: format!("p={partition}"),
            },
            bucket,
            files: files.iter().map(|n| meta(n)).collect(),
        }
    }

    fn meta(name: &str) -> DataFileMeta {
        DataFileMeta::for_test(name)
    }

    #[test]
    fn files_both_sides_hold_leave_both_and_a_raised_level_is_another_file() {
        let raised = DataFileMeta {
            level: 5,
            ..meta("b")
        };
        let mut before = vec![meta("a"), meta("b"), meta("c")];
        let mut after = vec![meta("d"), raised.clone(), meta("a")];
        deduplicate(&mut before, &mut after);
        assert_eq!(before, vec![meta("b"), meta("c")]);
        assert_eq!(after, vec![meta("d"), raised]);
    }

    #[test]
    fn every_partition_and_bucket_of_either_side_is_one_pair() {
        let before = vec![group(1, 0, &["a", "b"]), group(2, 0, &["c"])];
        let after = vec![group(1, 0, &["a", "d"]), group(1, 1, &["e"])];
        let pairs = pair_up(before, after);
        let names = |files: &[DataFileMeta]| -> Vec<String> {
            files.iter().map(|f| f.file_name.clone()).collect()
        };
        let got: Vec<(u8, i32, Vec<String>, Vec<String>)> = pairs
            .iter()
            .map(|(g, b, a)| (g.partition[0], g.bucket, names(b), names(a)))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    1,
                    0,
                    vec!["a".into(), "b".into()],
                    vec!["a".into(), "d".into()]
                ),
                (1, 1, vec![], vec!["e".into()]),
                (2, 0, vec!["c".into()], vec![]),
            ]
        );
    }
}
