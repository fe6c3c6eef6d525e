//! File sets of a snapshot (`AbstractFileStoreScan`, `FileStoreScan.Plan.groupByPartFiles`): the ADD files of
//! one manifest list (DELTA/CHANGELOG modes), the ALL-mode file set, and the deletion-vector index.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::error::{Error, Result};
use crate::manifest::{
    read_index_manifest, read_manifest_file, read_manifest_list, DataFileMeta, DeletionVectorMeta,
    FileKind, ManifestEntry, DELETION_VECTORS_INDEX,
};
use crate::partition::RenderedPartition;
use crate::snapshot::Snapshot;
use crate::table::Table;

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

/// One partition's serialized row, rendering and buckets (first seen order) with their files.
pub(crate) type PartitionGroup = (Vec<u8>, RenderedPartition, Vec<(i32, Vec<DataFileMeta>)>);

/// Groups ADD entries by partition (first seen) then bucket (first seen), files in arrival order
/// (`FileStoreScan.Plan.groupByPartFiles`, two nested `LinkedHashMap`s).
pub(crate) struct Grouper<'t> {
    table: &'t Table,
    pub(crate) partitions: Vec<PartitionGroup>,
    index: HashMap<Vec<u8>, usize>,
}

impl<'t> Grouper<'t> {
    pub(crate) fn new(table: &'t Table) -> Self {
        Grouper {
            table,
            partitions: Vec::new(),
            index: HashMap::new(),
        }
    }

    /// Adds one entry read from the manifest at `path` (for error messages).
    pub(crate) fn add(
        &mut self,
        path: &Path,
        partition: Vec<u8>,
        bucket: i32,
        file: DataFileMeta,
    ) -> Result<()> {
        // Data evolution: vector-store files are not merged by this reader.
        if let Some(reason) =
            crate::table::unsupported_data_evolution_file(&file, self.table.release())
        {
            return Err(Error::Unsupported {
                path: path.to_path_buf(),
                reason,
            });
        }
        let slot = match self.index.get(&partition) {
            Some(i) => *i,
            None => {
                let rendered = self.table.partition_computer().render(&partition, path)?;
                self.index.insert(partition.clone(), self.partitions.len());
                self.partitions.push((partition, rendered, Vec::new()));
                self.partitions.len() - 1
            }
        };
        let buckets = &mut self.partitions[slot].2;
        match buckets.iter_mut().find(|(b, _)| *b == bucket) {
            Some((_, files)) => files.push(file),
            None => buckets.push((bucket, vec![file])),
        }
        Ok(())
    }

    fn finish(self) -> Vec<BucketFiles> {
        self.partitions
            .into_iter()
            .flat_map(|(partition, rendered, buckets)| {
                buckets.into_iter().map(move |(bucket, files)| BucketFiles {
                    partition: partition.clone(),
                    rendered: rendered.clone(),
                    bucket,
                    files,
                })
            })
            .collect()
    }
}

/// Which manifest entries a scan of the data table keeps by bucket (`ManifestsReader`'s and
/// `ManifestEntryFilters`' bucket tests): buckets < 0 skipped when `real_only`
/// ([`super::real_buckets_only`]), and only bucket `only` kept when set (`scan.bucket`, 2.0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct BucketFilter {
    /// Skip entries of buckets < 0 (`SnapshotReader#onlyReadRealBuckets`).
    pub(crate) real_only: bool,
    /// Keep only entries of this bucket (`SnapshotReader#withBucket`).
    pub(crate) only: Option<i32>,
}

impl BucketFilter {
    /// Whether an entry of `bucket` is kept (ADD and DELETE entries alike).
    pub(crate) fn keeps(self, bucket: i32) -> bool {
        !(self.real_only && bucket < 0) && self.only.is_none_or(|only| only == bucket)
    }
}

/// Reads the manifest list `name` without merging (DELTA/CHANGELOG scan modes) and groups its ADD entries by
/// partition (first seen) then bucket (first seen), files in manifest-entry order
/// (`FileStoreScan.Plan.groupByPartFiles`). Groups of one partition stay adjacent. Entries of buckets that
/// `buckets` does not keep are skipped (the postpone bucket, `SnapshotReader#onlyReadRealBuckets`;
/// `scan.bucket`).
pub(crate) fn read_added_files(
    table: &Table,
    manifest_list: &str,
    buckets: BucketFilter,
) -> Result<Vec<BucketFiles>> {
    group_added_files(table, &[manifest_list], buckets, false)
}

/// The entries of the manifest lists `lists`, read in order without merging, grouped as [`read_added_files`]
/// groups them (across the lists): the scan of an increment (`IncrementalStartingScanner`,
/// `IncrementalDeltaStartingScanner`), which must meet ADD entries only.
///
/// Errors: as [`read_added_files`]; [`Error::Snapshot`] naming the manifest that holds a DELETE entry (the
/// release fails there: `Delta or changelog should only have ADD files.`).
pub(crate) fn read_only_added_files(
    table: &Table,
    lists: &[&str],
    buckets: BucketFilter,
) -> Result<Vec<BucketFiles>> {
    group_added_files(table, lists, buckets, true)
}

/// The ADD entries of the manifest lists `lists`, in order, grouped by partition then bucket (first seen),
/// entries of buckets `buckets` does not keep skipped; a DELETE entry skipped, or an error when
/// `deletes_fail` ([`read_only_added_files`]).
fn group_added_files(
    table: &Table,
    lists: &[&str],
    buckets: BucketFilter,
    deletes_fail: bool,
) -> Result<Vec<BucketFiles>> {
    let mut grouper = Grouper::new(table);
    for list in lists {
        for meta in read_manifest_list(&table.manifest_path(list))? {
            let path = table.manifest_path(&meta.file_name);
            for entry in read_manifest_file(&path)? {
                if entry.kind != FileKind::Add {
                    if !deletes_fail {
                        continue;
                    }
                    return Err(Error::Snapshot {
                        path,
                        reason: format!(
                            "a DELETE entry of `{}` in an increment's delta or changelog (the released \
                             scan fails: Delta or changelog should only have ADD files.)",
                            entry.file.file_name
                        ),
                    });
                }
                if buckets.keeps(entry.bucket) {
                    grouper.add(&path, entry.partition, entry.bucket, entry.file)?;
                }
            }
        }
    }
    Ok(grouper.finish())
}

/// What identifies a file entry across ADD and DELETE entries (`FileEntry.Identifier`).
#[derive(PartialEq, Eq, Hash)]
struct FileIdentifier {
    partition: Vec<u8>,
    bucket: i32,
    level: i32,
    file_name: String,
    extra_files: Vec<String>,
    embedded_index: Option<Vec<u8>>,
    external_path: Option<String>,
}

impl FileIdentifier {
    fn of(e: &ManifestEntry) -> Self {
        FileIdentifier {
            partition: e.partition.clone(),
            bucket: e.bucket,
            level: e.file.level,
            file_name: e.file.file_name.clone(),
            extra_files: e.file.extra_files.clone(),
            embedded_index: e.file.embedded_index.clone(),
            external_path: e.file.external_path.clone(),
        }
    }
}

/// The ALL-mode file set of `snapshot` (`ScanMode.ALL`): ADD entries of the manifests of
/// `baseManifestList` then `deltaManifestList` whose identifier no DELETE entry names, keeping only files
/// whose level passes `level_filter` (applied to ADD and DELETE entries alike, as the manifest row filter
/// does), grouped like [`read_added_files`].
///
/// Errors: as [`read_added_files`].
pub fn read_all_files(
    table: &Table,
    snapshot: &Snapshot,
    level_filter: &dyn Fn(i32) -> bool,
) -> Result<Vec<BucketFiles>> {
    read_all_files_of(table, snapshot, level_filter, BucketFilter::default())
}

/// [`read_all_files`], skipping entries of buckets that `buckets` does not keep (ADD and DELETE alike, as
/// the manifest filters of `SnapshotReader#onlyReadRealBuckets` and `withBucket` do).
pub(crate) fn read_all_files_of(
    table: &Table,
    snapshot: &Snapshot,
    level_filter: &dyn Fn(i32) -> bool,
    buckets: BucketFilter,
) -> Result<Vec<BucketFiles>> {
    let mut manifests = Vec::new();
    for list in [&snapshot.base_manifest_list, &snapshot.delta_manifest_list] {
        manifests.extend(read_manifest_list(&table.manifest_path(list))?);
    }
    let mut deleted: HashSet<FileIdentifier> = HashSet::new();
    let mut added: Vec<(std::path::PathBuf, Vec<ManifestEntry>)> = Vec::new();
    for meta in &manifests {
        let path = table.manifest_path(&meta.file_name);
        let mut adds = Vec::new();
        for entry in read_manifest_file(&path)? {
            if !level_filter(entry.file.level) || !buckets.keeps(entry.bucket) {
                continue;
            }
            match entry.kind {
                FileKind::Delete => {
                    deleted.insert(FileIdentifier::of(&entry));
                }
                FileKind::Add => adds.push(entry),
            }
        }
        if meta.num_added_files > 0 {
            added.push((path, adds));
        }
    }
    let mut grouper = Grouper::new(table);
    for (path, entries) in added {
        for entry in entries {
            if deleted.contains(&FileIdentifier::of(&entry)) {
                continue;
            }
            grouper.add(&path, entry.partition, entry.bucket, entry.file)?;
        }
    }
    Ok(grouper.finish())
}

/// The entries of every manifest of `snapshot`'s `baseManifestList` then `deltaManifestList`, unmerged (ADD
/// and DELETE entries as written), each manifest's with its path: what `AbstractFileStoreScan
/// .readPartitionEntries` and `readBucketEntries` sum up.
///
/// Errors: [`Error::Io`] / manifest decoding errors naming the manifest list or file.
pub(crate) fn read_snapshot_entries(
    table: &Table,
    snapshot: &Snapshot,
) -> Result<Vec<(std::path::PathBuf, Vec<ManifestEntry>)>> {
    let mut out = Vec::new();
    for list in [&snapshot.base_manifest_list, &snapshot.delta_manifest_list] {
        for meta in read_manifest_list(&table.manifest_path(list))? {
            let path = table.manifest_path(&meta.file_name);
            let entries = read_manifest_file(&path)?;
            out.push((path, entries));
        }
    }
    Ok(out)
}

/// A deletion vector located in an index file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeletionVectorLocation {
    /// Index file name (`_FILE_NAME`).
    pub index_file: String,
    /// Where the index file is ([`Table::index_file_path`]: its external path, the bucket directory or
    /// `<table>/index/`).
    pub index_path: std::path::PathBuf,
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
    let manifest = table.manifest_path(name);
    for entry in read_index_manifest(&manifest)? {
        // HASH and 2.0 global index types (btree, bitmap, vector, …) are not deletion vectors.
        if entry.index_type != DELETION_VECTORS_INDEX {
            continue;
        }
        let index_path = table.index_file_path(
            &entry.partition,
            entry.bucket,
            &entry.file_name,
            entry.external_path.as_deref(),
            &manifest,
        )?;
        let files = out.entry((entry.partition, entry.bucket)).or_default();
        for meta in entry.deletion_vectors.unwrap_or_default() {
            files.insert(
                meta.data_file_name.clone(),
                DeletionVectorLocation {
                    index_file: entry.file_name.clone(),
                    index_path: index_path.clone(),
                    meta,
                },
            );
        }
    }
    Ok(out)
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
