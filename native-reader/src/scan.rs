//! Streaming split planning of Paimon 1.0.x (`DataTableStreamScan` with `scan.mode=from-snapshot`).
//!
//! * Starting scanner (`ContinuousFromSnapshotStartingScanner`): the first plan is empty; the next snapshot
//!   is `max(S, earliest)`, where earliest is the earliest long-lived changelog when the changelog lifecycle
//!   is decoupled and one exists, else the earliest snapshot.
//! * Follow-up scanner, one snapshot per plan (`DeltaFollowUpScanner`, `InputChangelogFollowUpScanner`,
//!   `CompactionChangelogFollowUpScanner`), by `changelog-producer`:
//!   `none` ⇒ APPEND snapshots, ADD entries of `deltaManifestList`; `input` ⇒ APPEND snapshots,
//!   `changelogManifestList`; `lookup`/`full-compaction` ⇒ COMPACT snapshots, `changelogManifestList`.
//!   Other snapshots produce no plan.
//! * Splits (`SnapshotReaderImpl.generateSplits`): ADD entries grouped by partition (first seen) then bucket
//!   (first seen), files in manifest-entry order; PK tables and fixed-bucket append tables get one split per
//!   (partition, bucket); bucket-unaware append tables (`bucket=-1`) get their files sorted by
//!   `_MIN_SEQUENCE_NUMBER` and bin-packed (`AppendOnlySplitGenerator`, `BinPacking.packForOrdered`).
//!   `is_streaming` and `raw_convertible` are true. With `deletion-vectors.enabled`, each split carries one
//!   deletion file (or `None`) per data file from the snapshot's index manifest.
//!
//! Memory is bounded by one snapshot's manifests: snapshots are planned one after the other.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::manifest::{
    read_index_manifest, read_manifest_file, read_manifest_list, DataFileMeta, DeletionVectorMeta,
    FileKind, ManifestEntry, DELETION_VECTORS_INDEX,
};
use crate::partition::RenderedPartition;
use crate::snapshot::{CommitKind, Snapshot};
use crate::split::{DataFileDesc, DeletionFileDesc, Split};
use crate::table::{ChangelogProducer, Table};

/// Which manifest list a follow-up plan reads (`ScanMode.DELTA` or `ScanMode.CHANGELOG`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FollowUpMode {
    /// `deltaManifestList` (changelog-producer `none`).
    Delta,
    /// `changelogManifestList` (`input`, `lookup`, `full-compaction`).
    Changelog,
}

/// The follow-up scanner of a table: whether it plans a snapshot of `kind` (`FollowUpScanner.shouldScanSnapshot`)
/// and, if so, from which manifest list.
pub fn follow_up(producer: ChangelogProducer, kind: CommitKind) -> Option<FollowUpMode> {
    match (producer, kind) {
        (ChangelogProducer::None, CommitKind::Append) => Some(FollowUpMode::Delta),
        (ChangelogProducer::Input, CommitKind::Append) => Some(FollowUpMode::Changelog),
        (ChangelogProducer::Lookup | ChangelogProducer::FullCompaction, CommitKind::Compact) => {
            Some(FollowUpMode::Changelog)
        }
        _ => None,
    }
}

/// The first snapshot id the follow-up scanner reads for `scan.snapshot-id=from_snapshot`:
/// `max(from_snapshot, earliest)`, `None` when the table has no snapshot (nor long-lived changelog).
pub fn starting_snapshot_id(table: &Table, from_snapshot: i64) -> Result<Option<i64>> {
    let sm = table.snapshot_manager();
    let earliest = if table.options().changelog_lifecycle_decoupled {
        match sm.earliest_long_lived_changelog_id()? {
            Some(id) => Some(id),
            None => sm.earliest_snapshot_id()?,
        }
    } else {
        sm.earliest_snapshot_id()?
    };
    Ok(earliest.map(|e| from_snapshot.max(e)))
}

/// Fetches the snapshot the follow-up scanner reads at `id` (`NextSnapshotFetcher`): `snapshot-<id>`, or,
/// when it has expired and the changelog lifecycle is decoupled, `changelog/changelog-<id>`.
///
/// Errors: [`Error::Snapshot`] naming `snapshot-<id>` when neither exists.
pub fn fetch_snapshot(table: &Table, id: i64) -> Result<Snapshot> {
    let sm = table.snapshot_manager();
    if sm.snapshot_exists(id) {
        return sm.snapshot(id);
    }
    let earliest = sm.earliest_snapshot_id()?;
    let expired = earliest.is_some_and(|e| id < e);
    if expired && table.options().changelog_lifecycle_decoupled && sm.changelog_exists(id) {
        return sm.changelog(id);
    }
    let reason = if expired {
        format!(
            "snapshot {id} has expired (earliest snapshot is {})",
            earliest.unwrap_or_default()
        )
    } else {
        match sm.latest_snapshot_id()? {
            Some(latest) => format!("snapshot {id} does not exist (latest snapshot is {latest})"),
            None => format!("snapshot {id} does not exist (the table has no snapshot)"),
        }
    };
    Err(Error::Snapshot {
        path: sm.snapshot_path(id),
        reason,
    })
}

/// Streaming plan of `scan.mode=from-snapshot`, `scan.snapshot-id=from_snapshot`, followed until the next
/// snapshot id passes `end_snapshot`: the splits of every accepted snapshot in
/// `max(from_snapshot, earliest)..=end_snapshot`, in snapshot order.
///
/// Empty when `from_snapshot > end_snapshot` (or the start is past the end). Errors: [`Error::Snapshot`]
/// naming the first missing snapshot in the range (also when the table has no snapshot at all);
/// [`Error::Unsupported`] for internal `stream-scan-mode`s, `scan.plan-sort-partition=true`, and OVERWRITE
/// snapshots of PK tables with `streaming-read-overwrite=true` (change plans); manifest errors as
/// [`plan_snapshot`].
pub fn plan_stream(table: &Table, from_snapshot: i64, end_snapshot: i64) -> Result<Vec<Split>> {
    let unsupported = |reason: String| Error::Unsupported {
        path: table.path().to_path_buf(),
        reason,
    };
    let options = table.options();
    if options.stream_scan_mode != "none" {
        return Err(unsupported(format!(
            "stream-scan-mode={} (internal streaming scans)",
            options.stream_scan_mode
        )));
    }
    if options.scan_plan_sort_partition {
        return Err(unsupported("scan.plan-sort-partition=true".into()));
    }
    if from_snapshot > end_snapshot {
        return Ok(Vec::new());
    }
    let Some(mut next) = starting_snapshot_id(table, from_snapshot)? else {
        return Err(Error::Snapshot {
            path: table.snapshot_manager().snapshot_path(from_snapshot),
            reason: format!(
                "the table has no snapshot, cannot stream from {from_snapshot} to {end_snapshot}"
            ),
        });
    };
    let mut splits = Vec::new();
    while next <= end_snapshot {
        let snapshot = fetch_snapshot(table, next)?;
        if snapshot.commit_kind == CommitKind::Overwrite
            && options.streaming_read_overwrite
            && table.is_primary_key_table()
        {
            return Err(unsupported(format!(
                "snapshot {next} is an OVERWRITE read with streaming-read-overwrite=true (change plans)"
            )));
        }
        splits.extend(plan_snapshot(table, &snapshot)?.unwrap_or_default());
        next += 1;
    }
    Ok(splits)
}

/// The follow-up plan of one snapshot: `None` when the table's follow-up scanner skips its commit kind,
/// else its splits (possibly none).
///
/// Errors: [`Error::Io`]/[`Error::Avro`] naming a manifest list, manifest or index manifest that cannot be
/// read; [`Error::BinaryRow`] naming the manifest holding a malformed partition; [`Error::Unsupported`]
/// naming the manifest for ORC manifests, unrenderable partition values and files with an external path.
pub fn plan_snapshot(table: &Table, snapshot: &Snapshot) -> Result<Option<Vec<Split>>> {
    let Some(mode) = follow_up(table.options().changelog_producer, snapshot.commit_kind) else {
        return Ok(None);
    };
    let list = match mode {
        FollowUpMode::Delta => Some(snapshot.delta_manifest_list.as_str()),
        FollowUpMode::Changelog => snapshot.changelog_manifest_list.as_deref(),
    };
    let groups = match list {
        Some(name) => read_added_files(table, name)?,
        None => Vec::new(),
    };
    let dv_index = if table.options().deletion_vectors_enabled && !groups.is_empty() {
        deletion_vector_index(table, snapshot)?
    } else {
        HashMap::new()
    };
    Ok(Some(generate_splits(table, snapshot.id, groups, &dv_index)))
}

/// Files of one (partition, bucket), in manifest-entry order.
#[derive(Debug)]
pub struct BucketFiles {
    /// Serialized partition row (Java's partition identity).
    pub partition: Vec<u8>,
    /// The partition rendered for splits and paths.
    pub rendered: RenderedPartition,
    /// Bucket.
    pub bucket: i32,
    /// ADD files in manifest order.
    pub files: Vec<DataFileMeta>,
}

/// Reads the manifest list `name` without merging (DELTA/CHANGELOG scan modes) and groups its ADD entries by
/// partition (first seen) then bucket (first seen), files in manifest-entry order
/// (`FileStoreScan.Plan.groupByPartFiles`). Groups of one partition stay adjacent.
pub fn read_added_files(table: &Table, manifest_list: &str) -> Result<Vec<BucketFiles>> {
    let list_path = table.manifest_path(manifest_list);
    let metas = read_manifest_list(&list_path)?;
    // Partitions in first-seen order, each with its buckets in first-seen order.
    struct PartitionFiles {
        partition: Vec<u8>,
        rendered: RenderedPartition,
        buckets: Vec<(i32, Vec<DataFileMeta>)>,
    }
    let mut partitions: Vec<PartitionFiles> = Vec::new();
    let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
    for meta in metas {
        let path = table.manifest_path(&meta.file_name);
        for entry in read_manifest_file(&path)? {
            let ManifestEntry {
                kind,
                partition,
                bucket,
                file,
                ..
            } = entry;
            if kind != FileKind::Add {
                continue;
            }
            if let Some(external) = &file.external_path {
                return Err(Error::Unsupported {
                    path,
                    reason: format!(
                        "data file {} has an external path ({external})",
                        file.file_name
                    ),
                });
            }
            let slot = match index.get(&partition) {
                Some(i) => *i,
                None => {
                    let rendered = table.partition_computer().render(&partition, &path)?;
                    index.insert(partition.clone(), partitions.len());
                    partitions.push(PartitionFiles {
                        partition,
                        rendered,
                        buckets: Vec::new(),
                    });
                    partitions.len() - 1
                }
            };
            let buckets = &mut partitions[slot].buckets;
            match buckets.iter_mut().find(|(b, _)| *b == bucket) {
                Some((_, files)) => files.push(file),
                None => buckets.push((bucket, vec![file])),
            }
        }
    }
    Ok(partitions
        .into_iter()
        .flat_map(|p| {
            let PartitionFiles {
                partition,
                rendered,
                buckets,
            } = p;
            buckets.into_iter().map(move |(bucket, files)| BucketFiles {
                partition: partition.clone(),
                rendered: rendered.clone(),
                bucket,
                files,
            })
        })
        .collect())
}

/// A deletion vector located in an index file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeletionVectorLocation {
    /// Index file name in `<table>/index/`.
    pub index_file: String,
    /// The vector's range.
    pub meta: DeletionVectorMeta,
}

/// Deletion vectors of a snapshot: (partition bytes, bucket) → data file name → location, from the
/// `DELETION_VECTORS` entries of the snapshot's index manifest. When several index files of one bucket name
/// the same data file, the later entry wins (as `SnapshotReaderImpl.getDeletionFiles` does).
pub type DeletionVectorIndex = HashMap<(Vec<u8>, i32), HashMap<String, DeletionVectorLocation>>;

/// Reads the deletion-vector index of `snapshot` (empty when it has no index manifest).
pub fn deletion_vector_index(table: &Table, snapshot: &Snapshot) -> Result<DeletionVectorIndex> {
    let mut out: DeletionVectorIndex = HashMap::new();
    let Some(name) = &snapshot.index_manifest else {
        return Ok(out);
    };
    for entry in read_index_manifest(&table.manifest_path(name))? {
        if entry.index_type != DELETION_VECTORS_INDEX {
            continue;
        }
        let files = out.entry((entry.partition, entry.bucket)).or_default();
        for meta in entry.deletion_vectors.unwrap_or_default() {
            files.insert(
                meta.data_file_name.clone(),
                DeletionVectorLocation {
                    index_file: entry.file_name.clone(),
                    meta,
                },
            );
        }
    }
    Ok(out)
}

/// Builds the splits of one snapshot's grouped files (`SnapshotReaderImpl.generateSplits` with
/// `isStreaming=true`).
pub fn generate_splits(
    table: &Table,
    snapshot_id: i64,
    groups: Vec<BucketFiles>,
    dv_index: &DeletionVectorIndex,
) -> Vec<Split> {
    let options = table.options();
    let bucket_unaware_append = !table.is_primary_key_table() && options.bucket == -1;
    let mut splits = Vec::new();
    for group in groups {
        let bucket_path = table.bucket_path(&group.rendered.path, group.bucket);
        let dvs = dv_index.get(&(group.partition.clone(), group.bucket));
        let packs = if bucket_unaware_append {
            let mut files = group.files;
            files.sort_by_key(|f| f.min_sequence_number);
            pack_for_ordered(
                files,
                |f| f.file_size.max(options.split_open_file_cost),
                options.split_target_size,
            )
        } else {
            vec![group.files]
        };
        for files in packs {
            let deletion_files = if options.deletion_vectors_enabled {
                files
                    .iter()
                    .map(|f| {
                        dvs.and_then(|m| m.get(&f.file_name))
                            .map(|loc| DeletionFileDesc {
                                path: table
                                    .index_path(&loc.index_file)
                                    .to_string_lossy()
                                    .into_owned(),
                                offset: loc.meta.offset as i64,
                                length: loc.meta.length as i64,
                                cardinality: loc.meta.cardinality,
                            })
                    })
                    .collect()
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
                is_streaming: true,
                raw_convertible: true,
            });
        }
    }
    splits
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
    }
}

/// `BinPacking.packForOrdered`: items in order; a new bin starts when adding the next item would exceed
/// `target` and the current bin is not empty.
pub fn pack_for_ordered<T>(items: Vec<T>, weight: impl Fn(&T) -> i64, target: i64) -> Vec<Vec<T>> {
    let mut packed = Vec::new();
    let mut bin = Vec::new();
    let mut bin_weight: i64 = 0;
    for item in items {
        let w = weight(&item);
        if bin_weight.saturating_add(w) > target && !bin.is_empty() {
            packed.push(std::mem::take(&mut bin));
            bin_weight = 0;
        }
        bin_weight = bin_weight.saturating_add(w);
        bin.push(item);
    }
    if !bin.is_empty() {
        packed.push(bin);
    }
    packed
}

/// Sum over the ADD entries minus the DELETE entries of a manifest list's row counts; for a snapshot's delta
/// list this is the snapshot's `deltaRecordCount`, for its changelog list `changelogRecordCount`.
pub fn manifest_list_record_delta(table: &Table, manifest_list: &str) -> Result<i64> {
    let mut sum = 0i64;
    for meta in read_manifest_list(&table.manifest_path(manifest_list))? {
        for e in read_manifest_file(&table.manifest_path(&meta.file_name))? {
            match e.kind {
                FileKind::Add => sum += e.file.row_count,
                FileKind::Delete => sum -= e.file.row_count,
            }
        }
    }
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use apache_avro::types::Value;
    use apache_avro::{Codec, Schema, Writer};
    use std::path::Path;

    const LIST_SCHEMA: &str = r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},{"name":"_SCHEMA_ID","type":"long"}]}"#;
    const ENTRY_SCHEMA: &str = r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},{"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}}]}}]}"#;
    const INDEX_SCHEMA: &str = r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":{"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[{"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"},{"name":"_CARDINALITY","type":["null","long"]}]}}]}]}"#;

    fn write_avro(path: &Path, schema: &str, values: Vec<Value>) {
        let schema = Schema::parse_str(schema).unwrap();
        let mut w = Writer::with_codec(&schema, Vec::new(), Codec::Null);
        for v in values {
            w.append(v).unwrap();
        }
        std::fs::write(path, w.into_inner().unwrap()).unwrap();
    }

    fn rec(fields: Vec<(&str, Value)>) -> Value {
        Value::Record(
            fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    /// Serialized one-STRING partition row: `Some(s)` with |s| <= 7, or NULL.
    fn part_row(v: Option<&str>) -> Vec<u8> {
        let mut b = vec![0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
        let mut slot = [0u8; 8];
        match v {
            None => b[5] = 1,
            Some(s) => {
                slot[..s.len()].copy_from_slice(s.as_bytes());
                slot[7] = 0x80 | s.len() as u8;
            }
        }
        b.extend_from_slice(&slot);
        b
    }

    struct E {
        kind: i32,
        part: Option<&'static str>,
        bucket: i32,
        name: &'static str,
        size: i64,
        min_seq: i64,
    }

    fn entry(e: &E) -> Value {
        let empty = vec![0u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        rec(vec![
            ("_VERSION", Value::Int(2)),
            ("_KIND", Value::Int(e.kind)),
            ("_PARTITION", Value::Bytes(part_row(e.part))),
            ("_BUCKET", Value::Int(e.bucket)),
            ("_TOTAL_BUCKETS", Value::Int(-1)),
            (
                "_FILE",
                rec(vec![
                    ("_FILE_NAME", Value::String(e.name.into())),
                    ("_FILE_SIZE", Value::Long(e.size)),
                    ("_ROW_COUNT", Value::Long(e.size / 10)),
                    ("_MIN_KEY", Value::Bytes(empty.clone())),
                    ("_MAX_KEY", Value::Bytes(empty)),
                    ("_MIN_SEQUENCE_NUMBER", Value::Long(e.min_seq)),
                    ("_MAX_SEQUENCE_NUMBER", Value::Long(e.min_seq + 1)),
                    ("_SCHEMA_ID", Value::Long(0)),
                    ("_LEVEL", Value::Int(0)),
                    ("_EXTRA_FILES", Value::Array(vec![])),
                ]),
            ),
        ])
    }

    /// A table at `dir` with one STRING partition column `p`, the given primary keys and options, and
    /// snapshots: 1 APPEND (`entries`), 2 COMPACT (same delta), 3 APPEND with an empty delta, 4 COMPACT whose
    /// index manifest has a deletion vector for `f-dv` in (p=a, bucket 0).
    fn build_table(dir: &Path, primary_keys: &str, options: &str, entries: &[E]) {
        for d in ["schema", "snapshot", "manifest"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        std::fs::write(
            dir.join("schema/schema-0"),
            format!(
                r#"{{"version":3,"id":0,"fields":[{{"id":0,"name":"p","type":"STRING"}},{{"id":1,"name":"k","type":"INT NOT NULL"}}],
                "highestFieldId":1,"partitionKeys":["p"],"primaryKeys":[{primary_keys}],"options":{{{options}}}}}"#
            ),
        )
        .unwrap();
        let m = dir.join("manifest");
        write_avro(
            &m.join("manifest-0"),
            ENTRY_SCHEMA,
            entries.iter().map(entry).collect(),
        );
        let list = |name: &str| {
            rec(vec![
                ("_VERSION", Value::Int(2)),
                ("_FILE_NAME", Value::String(name.into())),
                ("_FILE_SIZE", Value::Long(1)),
                ("_NUM_ADDED_FILES", Value::Long(1)),
                ("_NUM_DELETED_FILES", Value::Long(0)),
                ("_SCHEMA_ID", Value::Long(0)),
            ])
        };
        write_avro(&m.join("list-delta"), LIST_SCHEMA, vec![list("manifest-0")]);
        write_avro(&m.join("list-empty"), LIST_SCHEMA, vec![]);
        write_avro(
            &m.join("index-manifest-0"),
            INDEX_SCHEMA,
            vec![rec(vec![
                ("_VERSION", Value::Int(1)),
                ("_KIND", Value::Int(0)),
                ("_PARTITION", Value::Bytes(part_row(Some("a")))),
                ("_BUCKET", Value::Int(0)),
                ("_INDEX_TYPE", Value::String(DELETION_VECTORS_INDEX.into())),
                ("_FILE_NAME", Value::String("index-0".into())),
                ("_FILE_SIZE", Value::Long(40)),
                ("_ROW_COUNT", Value::Long(1)),
                (
                    "_DELETIONS_VECTORS_RANGES",
                    Value::Union(
                        1,
                        Box::new(Value::Array(vec![rec(vec![
                            ("f0", Value::String("f-dv".into())),
                            ("f1", Value::Int(1)),
                            ("f2", Value::Int(22)),
                            ("_CARDINALITY", Value::Union(1, Box::new(Value::Long(2)))),
                        ])])),
                    ),
                ),
            ])],
        );
        for (id, kind, delta, index) in [
            (1, "APPEND", "list-delta", None),
            (2, "COMPACT", "list-delta", None),
            (3, "APPEND", "list-empty", Some("index-manifest-0")),
            (4, "COMPACT", "list-delta", Some("index-manifest-0")),
        ] {
            let index = index.map_or(String::new(), |i| format!(r#""indexManifest":"{i}","#));
            std::fs::write(
                dir.join(format!("snapshot/snapshot-{id}")),
                format!(
                    r#"{{"version":3,"id":{id},"schemaId":0,"baseManifestList":"list-empty","deltaManifestList":"{delta}",
                    "changelogManifestList":"list-delta",{index}"commitUser":"u","commitIdentifier":{id},"commitKind":"{kind}","timeMillis":0}}"#
                ),
            )
            .unwrap();
        }
    }

    /// (snapshot, partition, bucket or bucket path, file names) of a split.
    type Summary<'a, B> = (i64, Vec<Option<String>>, B, Vec<&'a str>);

    fn names(s: &Split) -> Vec<&str> {
        s.data_files.iter().map(|f| f.file_name.as_str()).collect()
    }

    #[test]
    fn bucket_unaware_append_sorts_and_bin_packs() {
        let dir = tempfile::tempdir().unwrap();
        let e = |kind, part, name, size, min_seq| E {
            kind,
            part,
            bucket: 0,
            name,
            size,
            min_seq,
        };
        build_table(
            dir.path(),
            "",
            r#""source.split.target-size":"100 b","source.split.open-file-cost":"1 b""#,
            &[
                e(0, Some("a"), "f-60", 60, 5),
                e(0, None, "f-null", 10, 0),
                e(0, Some("a"), "f-50", 50, 0),
                e(1, Some("a"), "f-deleted", 10, 3),
                e(0, Some("a"), "f-30", 30, 10),
            ],
        );
        let t = Table::open(dir.path()).unwrap();
        let splits = t.plan_stream(1, 4).unwrap();
        // snapshot 1 only: COMPACT 2 and 4 are skipped, APPEND 3 has an empty delta
        let root = t.root_string();
        let got: Vec<Summary<String>> = splits
            .iter()
            .map(|s| {
                (
                    s.snapshot_id,
                    s.partition.clone(),
                    s.bucket_path.clone(),
                    names(s),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    1,
                    vec![Some("a".into())],
                    format!("{root}/p=a/bucket-0"),
                    vec!["f-50"]
                ),
                (
                    1,
                    vec![Some("a".into())],
                    format!("{root}/p=a/bucket-0"),
                    vec!["f-60", "f-30"]
                ),
                (
                    1,
                    vec![None],
                    format!("{root}/p=__DEFAULT_PARTITION__/bucket-0"),
                    vec!["f-null"]
                ),
            ]
        );
        assert!(splits.iter().all(|s| s.is_streaming && s.raw_convertible));
        assert!(splits.iter().all(|s| s.deletion_files.is_empty()));
    }

    #[test]
    fn pk_table_groups_by_first_seen_partition_and_bucket() {
        let dir = tempfile::tempdir().unwrap();
        let e = |part, bucket, name| E {
            kind: 0,
            part,
            bucket,
            name,
            size: 10,
            min_seq: 100,
        };
        build_table(
            dir.path(),
            r#""p","k""#,
            r#""bucket":"2","changelog-producer":"lookup","deletion-vectors.enabled":"true""#,
            &[
                e(Some("a"), 1, "f-a1-x"),
                e(None, 0, "f-n0"),
                e(Some("a"), 0, "f-dv"),
                e(Some("a"), 1, "f-a1-y"),
                e(Some("a"), 0, "f-a0"),
            ],
        );
        let t = Table::open(dir.path()).unwrap();
        // lookup: COMPACT snapshots 2 and 4 read their changelog list; only 4 has an index manifest.
        let splits = t.plan_stream(1, 4).unwrap();
        let got: Vec<Summary<i32>> = splits
            .iter()
            .map(|s| (s.snapshot_id, s.partition.clone(), s.bucket, names(s)))
            .collect();
        let a = || vec![Some("a".to_string())];
        // LinkedHashMap<partition, LinkedHashMap<bucket, files>>: all buckets of partition `a` (first seen
        // bucket 1, then 0) come before the NULL partition seen second.
        assert_eq!(
            got,
            vec![
                (2, a(), 1, vec!["f-a1-x", "f-a1-y"]),
                (2, a(), 0, vec!["f-dv", "f-a0"]),
                (2, vec![None], 0, vec!["f-n0"]),
                (4, a(), 1, vec!["f-a1-x", "f-a1-y"]),
                (4, a(), 0, vec!["f-dv", "f-a0"]),
                (4, vec![None], 0, vec!["f-n0"]),
            ]
        );
        for s in &splits {
            assert_eq!(s.deletion_files.len(), s.data_files.len());
        }
        assert_eq!(splits[1].deletion_files, vec![None, None]);
        let dv = splits[4].deletion_files[0].as_ref().unwrap();
        assert_eq!(
            dv.path,
            dir.path().join("index").join("index-0").to_string_lossy()
        );
        assert_eq!((dv.offset, dv.length, dv.cardinality), (1, 22, Some(2)));
        assert_eq!(splits[4].deletion_files[1], None);
        // from before the earliest snapshot and a missing end
        assert_eq!(t.plan_stream(-5, 4).unwrap(), splits);
        let err = t.plan_stream(3, 5).unwrap_err();
        assert!(matches!(err, Error::Snapshot { .. }), "{err}");
        assert!(err.to_string().contains("snapshot-5"));
    }

    #[test]
    fn expired_snapshot_in_range_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        build_table(dir.path(), "", "", &[]);
        std::fs::remove_file(dir.path().join("snapshot/snapshot-2")).unwrap();
        let t = Table::open(dir.path()).unwrap();
        let err = t.plan_stream(1, 3).unwrap_err();
        assert!(matches!(err, Error::Snapshot { .. }), "{err}");
        assert!(err.to_string().contains("snapshot-2"), "{err}");
        // no snapshot at all
        for id in [1, 3, 4] {
            std::fs::remove_file(dir.path().join(format!("snapshot/snapshot-{id}"))).unwrap();
        }
        let err = t.plan_stream(1, 3).unwrap_err();
        assert!(matches!(err, Error::Snapshot { .. }), "{err}");
    }

    #[test]
    fn follow_up_scanners() {
        use ChangelogProducer as P;
        use CommitKind as K;
        assert_eq!(follow_up(P::None, K::Append), Some(FollowUpMode::Delta));
        assert_eq!(follow_up(P::None, K::Compact), None);
        assert_eq!(follow_up(P::None, K::Overwrite), None);
        assert_eq!(
            follow_up(P::Input, K::Append),
            Some(FollowUpMode::Changelog)
        );
        assert_eq!(follow_up(P::Input, K::Compact), None);
        assert_eq!(
            follow_up(P::Lookup, K::Compact),
            Some(FollowUpMode::Changelog)
        );
        assert_eq!(
            follow_up(P::FullCompaction, K::Compact),
            Some(FollowUpMode::Changelog)
        );
        assert_eq!(follow_up(P::Lookup, K::Append), None);
        assert_eq!(follow_up(P::FullCompaction, K::Analyze), None);
    }

    #[test]
    fn bin_packing_like_java() {
        let packs = pack_for_ordered(vec![5, 5, 5, 20, 1, 1], |x| *x, 10);
        assert_eq!(packs, vec![vec![5, 5], vec![5], vec![20], vec![1, 1]]);
        let packs = pack_for_ordered(Vec::<i64>::new(), |x| *x, 10);
        assert!(packs.is_empty());
        // open-file cost as minimum weight
        let packs = pack_for_ordered(vec![1, 1, 1, 1, 1], |x| (*x).max(4), 10);
        assert_eq!(packs, vec![vec![1, 1], vec![1, 1], vec![1]]);
    }
}
