//! Split generation (`SnapshotReaderImpl.generateSplits`, `MergeTreeSplitGenerator`,
//! `AppendOnlySplitGenerator`).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::error::Result;
use crate::manifest::DataFileMeta;
use crate::mergetree::{
    interval_partition, without_delete_row, FileStats, KeyComparator, KeyedFile,
};
use crate::options::MergeEngine;
use crate::snapshot::Snapshot;
use crate::split::{DataFileDesc, DeletionFileDesc, Split};
use crate::table::Table;

use super::bin_packing::pack_for_ordered;
use super::file_set::{
    deletion_vector_index, BucketFiles, DeletionVectorIndex, DeletionVectorLocation,
};

/// Builds the splits of one snapshot's grouped files (`SnapshotReaderImpl.generateSplits` with
/// `isStreaming=true`); deletion files (from `dv_index`) only on a line that attaches them to streaming splits
/// ([`crate::line::LineRules::streaming_deletion_files`]). A data-evolution table packs row-id groups
/// ([`data_evolution_packs`]).
///
/// Errors: as [`data_evolution_packs`].
pub(crate) fn generate_splits(
    table: &Table,
    snapshot_id: i64,
    groups: Vec<BucketFiles>,
    dv_index: &DeletionVectorIndex,
) -> Result<Vec<Split>> {
    let options = table.options();
    let bucket_unaware_append = !table.is_primary_key_table() && options.bucket == -1;
    let with_deletion_files = super::follow_up::streaming_deletion_files(table);
    let mut splits = Vec::new();
    for group in groups {
        let bucket_path = table.bucket_path(&group.rendered.path, group.bucket);
        let dvs = dv_index.get(&(group.partition.clone(), group.bucket));
        let packs = if table.data_evolution() {
            data_evolution_packs(table, group.files, &bucket_path)?
        } else if bucket_unaware_append {
            let mut files = group.files;
            files.sort_by_key(|f| f.min_sequence_number);
            pack_for_ordered(
                files,
                |f| f.file_size.max(options.split_open_file_cost),
                options.split_target_size,
            )
            .into_iter()
            .map(|p| (p, true))
            .collect()
        } else {
            vec![(group.files, true)]
        };
        for (files, raw_convertible) in packs {
            let deletion_files = if with_deletion_files {
                files.iter().map(|f| deletion_file(dvs, f)).collect()
            } else {
                Vec::new()
            };
            splits.push(Split {
                snapshot_id,
                partition: group.rendered.values.clone(),
                bucket: group.bucket,
                bucket_path: bucket_path.clone(),
                data_files: files.iter().map(data_file_desc).collect(),
                before_files: Vec::new(),
                deletion_files,
                before_deletion_files: Vec::new(),
                is_streaming: true,
                raw_convertible,
                fallback: false,
            });
        }
    }
    Ok(splits)
}

/// `DataEvolutionSplitGenerator.splitForBatch` (and `splitForStreaming`, the same) over one bucket's files
/// in manifest order: their row-id groups ([`crate::evolution::group_files`]) bin-packed in order with
/// weight `max(sum of file weights, open_file_cost)`, a file weighing its size, but a `.blob` file
/// (`BlobFileFormat.isBlobFile`) the open-file cost unless `blob.split-by-file-size` (1.4+); a split is raw-convertible when each of its groups is one
/// file.
///
/// Errors: [`crate::Error::Unsupported`] naming the bucket and a file without `_FIRST_ROW_ID`.
fn data_evolution_packs(
    table: &Table,
    files: Vec<DataFileMeta>,
    bucket_path: &str,
) -> Result<Vec<(Vec<DataFileMeta>, bool)>> {
    let options = table.options();
    let groups = crate::evolution::group_files(
        files,
        table.release().rules().data_evolution,
        Path::new(bucket_path),
    )?;
    Ok(pack_for_ordered(
        groups,
        |g| {
            g.iter()
                .map(|f| {
                    if f.file_name.ends_with(".blob") && !options.blob_split_by_file_size {
                        options.split_open_file_cost
                    } else {
                        f.file_size
                    }
                })
                .sum::<i64>()
                .max(options.split_open_file_cost)
        },
        options.split_target_size,
    )
    .into_iter()
    .map(|bins| {
        let raw = bins.iter().all(|g| g.len() == 1);
        (bins.into_iter().flatten().collect(), raw)
    })
    .collect())
}

/// The split view of a [`DataFileMeta`].
pub fn data_file_desc(f: &DataFileMeta) -> DataFileDesc {
    DataFileDesc {
        file_name: f.file_name.clone(),
        level: f.level,
        row_count: f.row_count,
        file_size: f.file_size,
        min_sequence_number: f.min_sequence_number,
        max_sequence_number: f.max_sequence_number,
        schema_id: f.schema_id,
        delete_row_count: f.delete_row_count,
        min_key: f.min_key.clone(),
        max_key: f.max_key.clone(),
        external_path: f.external_path.clone(),
        first_row_id: f.first_row_id,
        write_cols: f.write_cols.clone(),
        file_source: f.file_source,
    }
}

/// The deletion file of `file` in one bucket's deletion-vector map, as a split carries it.
pub(crate) fn deletion_file(
    dvs: Option<&HashMap<String, DeletionVectorLocation>>,
    file: &DataFileMeta,
) -> Option<DeletionFileDesc> {
    dvs.and_then(|m| m.get(&file.file_name))
        .map(|loc| DeletionFileDesc {
            path: loc.index_path.to_string_lossy().into_owned(),
            offset: loc.meta.offset as i64,
            length: loc.meta.length as i64,
            cardinality: loc.meta.cardinality,
        })
}

/// Builds the splits of a batch plan (or a streaming full first plan) of `snapshot` from its ALL-mode file
/// groups (`SnapshotReaderImpl.generateSplits` with `isStreaming=false`): per (partition, bucket),
/// [`merge_tree_split_for_batch`] for PK tables, [`append_split_for_batch`] for append tables; deletion files
/// from the snapshot's index manifest when deletion vectors are enabled.
///
/// Errors: [`Error::BinaryRow`] naming the data file whose `_MIN_KEY`/`_MAX_KEY` is malformed; index
/// manifest errors as [`deletion_vector_index`].
pub(crate) fn batch_splits(
    table: &Table,
    snapshot: &Snapshot,
    groups: Vec<BucketFiles>,
) -> Result<Vec<Split>> {
    let options = table.options();
    let dv_index = if options.deletion_vectors_enabled && !groups.is_empty() {
        deletion_vector_index(table, snapshot)?
    } else {
        HashMap::new()
    };
    let key_comparator = KeyComparator::new(table.schema());
    let mut splits = Vec::new();
    for group in groups {
        let bucket_path = table.bucket_path(&group.rendered.path, group.bucket);
        let dvs = dv_index.get(&(group.partition.clone(), group.bucket));
        let packs = if table.is_primary_key_table() {
            let keyed = decode_keys(&key_comparator, group.files, &bucket_path)?;
            merge_tree_split_for_batch(
                keyed,
                &key_comparator,
                options.split_target_size,
                options.split_open_file_cost,
                options.deletion_vectors_enabled || options.merge_engine.is(MergeEngine::FirstRow),
            )
            .into_iter()
            .map(|(files, raw)| (files.into_iter().map(|k| k.file).collect(), raw))
            .collect()
        } else if table.data_evolution() {
            data_evolution_packs(table, group.files, &bucket_path)?
        } else {
            append_split_for_batch(
                group.files,
                options.split_target_size,
                options.split_open_file_cost,
            )
            .into_iter()
            .map(|files| (files, true))
            .collect::<Vec<_>>()
        };
        for (files, raw_convertible) in packs {
            let deletion_files = if options.deletion_vectors_enabled {
                files.iter().map(|f| deletion_file(dvs, f)).collect()
            } else {
                Vec::new()
            };
            splits.push(Split {
                snapshot_id: snapshot.id,
                partition: group.rendered.values.clone(),
                bucket: group.bucket,
                bucket_path: bucket_path.clone(),
                data_files: files.iter().map(data_file_desc).collect(),
                before_files: Vec::new(),
                deletion_files,
                before_deletion_files: Vec::new(),
                is_streaming: false,
                raw_convertible,
                fallback: false,
            });
        }
    }
    Ok(splits)
}

/// `AppendOnlySplitGenerator.splitForBatch`: files stably sorted by `_MIN_SEQUENCE_NUMBER`, then bin-packed
/// in order with weight `max(file size, open_file_cost)` up to `target_size` bytes. Every split is
/// raw-convertible.
pub(crate) fn append_split_for_batch(
    mut files: Vec<DataFileMeta>,
    target_size: i64,
    open_file_cost: i64,
) -> Vec<Vec<DataFileMeta>> {
    files.sort_by_key(|f| f.min_sequence_number);
    pack_for_ordered(files, |f| f.file_size.max(open_file_cost), target_size)
}

fn decode_keys(
    cmp: &KeyComparator,
    files: Vec<DataFileMeta>,
    bucket_path: &str,
) -> Result<Vec<KeyedFile<DataFileMeta>>> {
    files
        .into_iter()
        .map(|f| {
            let path = Path::new(bucket_path).join(&f.file_name);
            Ok(KeyedFile {
                min_key: cmp.decode(&f.min_key, &path)?,
                max_key: cmp.decode(&f.max_key, &path)?,
                file: f,
            })
        })
        .collect()
}

/// `MergeTreeSplitGenerator.splitForBatch` over one bucket's files (in manifest order): the split groups and
/// whether each is raw-convertible.
///
/// * If every file is above level 0 without delete rows, and deletion vectors or `first-row` are on
///   (`always_raw`) or all files are on one level: the files are bin-packed in their order, all raw.
/// * Else [`interval_partition`] gives sections (each flattened run by run), the sections are bin-packed in
///   order with weight `max(section size, open_file_cost)`, and a split is raw-convertible when it holds one
///   file without delete rows.
pub(crate) fn merge_tree_split_for_batch<F: FileStats>(
    files: Vec<KeyedFile<F>>,
    cmp: &KeyComparator,
    target_size: i64,
    open_file_cost: i64,
    always_raw: bool,
) -> Vec<(Vec<KeyedFile<F>>, bool)> {
    let raw_convertible = files
        .iter()
        .all(|f| f.file.level() != 0 && without_delete_row(&f.file));
    let one_level = files
        .iter()
        .map(|f| f.file.level())
        .collect::<HashSet<_>>()
        .len()
        == 1;
    if raw_convertible && (always_raw || one_level) {
        return pack_for_ordered(files, |f| f.file.size().max(open_file_cost), target_size)
            .into_iter()
            .map(|p| (p, true))
            .collect();
    }
    let sections: Vec<Vec<KeyedFile<F>>> = interval_partition(files, cmp)
        .into_iter()
        .map(|runs| runs.into_iter().flatten().collect())
        .collect();
    pack_for_ordered(
        sections,
        |s| {
            s.iter()
                .map(|f| f.file.size())
                .sum::<i64>()
                .max(open_file_cost)
        },
        target_size,
    )
    .into_iter()
    .map(|packed| {
        let files: Vec<KeyedFile<F>> = packed.into_iter().flatten().collect();
        let raw = files.len() == 1 && without_delete_row(&files[0].file);
        (files, raw)
    })
    .collect()
}
