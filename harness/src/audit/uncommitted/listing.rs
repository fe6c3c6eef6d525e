//! Which data and changelog files the table's metadata references, and which files its bucket directories
//! hold that it does not.
//!
//! Referenced are the files named by any manifest entry (ADD or DELETE) reachable from: every retained
//! snapshot's delta and changelog manifest lists and the earliest one's base list (together, every file
//! live in any retained snapshot); every tag (`tag/tag-*`); every long-lived changelog
//! (`changelog/changelog-*`, `changelog.num-retained.*`); and the same of every branch
//! (`branch/branch-*/`, whose files live in the table's bucket directories). Snapshot expiration deletes the
//! files only expired snapshots used (`ExpireSnapshotsImpl`), so a file none of these names was never
//! committed, or its deletion did not finish.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use native_reader::manifest::{
    read_manifest_file, read_manifest_list, DataFileMeta, FileKind, ManifestEntry,
};
use native_reader::snapshot::{list_ids, Snapshot};
use native_reader::Table;

use crate::error::{Error, Result};

/// `data-file.prefix` (`CoreOptions.DATA_FILE_PREFIX`), default `data-`.
const DATA_FILE_PREFIX: &str = "data-file.prefix";
/// `changelog-file.prefix` (`CoreOptions.CHANGELOG_FILE_PREFIX`), default `changelog-`.
const CHANGELOG_FILE_PREFIX: &str = "changelog-file.prefix";
/// The format extensions of Paimon data files (`FileFormat` identifiers), with an optional compression
/// infix before them (`file.suffix.include.compression`).
const FORMATS: [&str; 3] = [".parquet", ".orc", ".avro"];
/// Directories at the table's root that hold metadata, never buckets.
const METADATA_DIRS: [&str; 9] = [
    "schema",
    "snapshot",
    "manifest",
    "index",
    "tag",
    "changelog",
    "branch",
    "consumer",
    "statistics",
];

/// A file the metadata references, as its manifest entry describes it.
#[derive(Clone, Debug)]
pub(super) struct Committed {
    /// The file's manifest metadata (`DataFileMeta`).
    pub meta: DataFileMeta,
    /// A changelog file (from a changelog manifest list) rather than a data file.
    pub changelog: bool,
    /// Live in the latest snapshot (a data file a batch read of it sees).
    pub live: bool,
    /// Partition values.
    pub partition: Vec<Option<String>>,
    /// Bucket.
    pub bucket: i32,
}

/// What the table's metadata references.
#[derive(Default)]
pub(super) struct Referenced {
    /// Every file name any entry names.
    pub names: HashSet<String>,
    /// Per bucket directory ([`Table::bucket_path`]): the files added there, each once.
    pub by_bucket: HashMap<String, Vec<Committed>>,
    /// When the history before the earliest retained snapshot has expired: per bucket directory, the
    /// largest sequence number of that snapshot's files (the table as of the start of the retained
    /// history).
    pub expired_up_to: HashMap<String, i64>,
}

impl Referenced {
    fn add_entries(
        &mut self,
        table: &Table,
        entries: &[ManifestEntry],
        changelog: bool,
        source: &Path,
        seen: &mut HashSet<String>,
    ) -> Result<()> {
        for e in entries {
            self.names.insert(e.file.file_name.clone());
            if e.kind != FileKind::Add || !seen.insert(e.file.file_name.clone()) {
                continue;
            }
            let rendered = table.partition_computer().render(&e.partition, source)?;
            self.by_bucket
                .entry(table.bucket_path(&rendered.path, e.bucket))
                .or_default()
                .push(Committed {
                    meta: e.file.clone(),
                    changelog,
                    live: false,
                    partition: rendered.values,
                    bucket: e.bucket,
                });
        }
        Ok(())
    }
}

/// Reads every manifest of the lists of `snapshot` that `lists` picks (manifests under `manifest_dir`),
/// skipping manifests already read.
fn read_lists(
    table: &Table,
    manifest_dir: &Path,
    snapshot: &Snapshot,
    base: bool,
    out: &mut Referenced,
    read: &mut HashSet<PathBuf>,
    seen: &mut HashSet<String>,
) -> Result<()> {
    let mut lists: Vec<(&str, bool)> = vec![(snapshot.delta_manifest_list.as_str(), false)];
    if base {
        lists.push((snapshot.base_manifest_list.as_str(), false));
    }
    if let Some(c) = &snapshot.changelog_manifest_list {
        lists.push((c.as_str(), true));
    }
    for (list, changelog) in lists {
        let list_path = manifest_dir.join(list);
        for meta in read_manifest_list(&list_path)? {
            let path = manifest_dir.join(&meta.file_name);
            if !read.insert(path.clone()) {
                continue;
            }
            let entries = read_manifest_file(&path)?;
            out.add_entries(table, &entries, changelog, &path, seen)?;
        }
    }
    Ok(())
}

/// Snapshot files of `dir` whose names start with `prefix`, in name order (tags are named, not numbered).
fn snapshot_files(dir: &Path, prefix: &str) -> Result<Vec<PathBuf>> {
    let names = match native_reader::fileio::for_path(dir)?.list(dir) {
        Ok(names) => names,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(Error::Io {
                path: dir.to_path_buf(),
                source: e,
            })
        }
    };
    let mut out: Vec<PathBuf> = names
        .into_iter()
        .filter(|n| n.starts_with(prefix) && !n.ends_with(".tmp"))
        .map(|n| dir.join(n))
        .collect();
    out.sort();
    Ok(out)
}

/// Everything the metadata under `root` (the table, or one branch directory) references: its retained
/// snapshots (the earliest with its base), tags and long-lived changelogs. Every branch's manifests are in
/// the table's own `manifest/` (`FileStorePathFactory` of a branch keeps the table root).
fn referenced_under(
    table: &Table,
    root: &Path,
    out: &mut Referenced,
    read: &mut HashSet<PathBuf>,
    seen: &mut HashSet<String>,
) -> Result<()> {
    let manifest_dir = table.path().join("manifest");
    let snapshot_dir = root.join("snapshot");
    let mut ids = list_ids(&snapshot_dir, "snapshot-")?;
    ids.sort_unstable();
    for (i, id) in ids.iter().enumerate() {
        let snapshot = Snapshot::read(&snapshot_dir.join(format!("snapshot-{id}")))?;
        read_lists(table, &manifest_dir, &snapshot, i == 0, out, read, seen)?;
    }
    for dir in ["tag", "changelog"] {
        let prefix = if dir == "tag" { "tag-" } else { "changelog-" };
        for path in snapshot_files(&root.join(dir), prefix)? {
            let snapshot = Snapshot::read(&path)?;
            read_lists(table, &manifest_dir, &snapshot, true, out, read, seen)?;
        }
    }
    Ok(())
}

/// What the table's metadata references (see the module documentation), with the files of the latest
/// snapshot marked live, and the sequence numbers the expired history reached when `earliest` is not the
/// table's first snapshot.
pub(super) fn referenced(
    table: &Table,
    earliest: Option<i64>,
    latest: Option<i64>,
) -> Result<Referenced> {
    let mut out = Referenced::default();
    let mut read = HashSet::new();
    let mut seen = HashSet::new();
    referenced_under(table, table.path(), &mut out, &mut read, &mut seen)?;
    for branch in snapshot_files(&table.path().join("branch"), "branch-")? {
        referenced_under(table, &branch, &mut out, &mut read, &mut seen)?;
    }
    if let Some(earliest) = earliest.filter(|e| *e > 1) {
        let snapshot = table.snapshot(earliest)?;
        for g in native_reader::scan::read_all_files(table, &snapshot, &|_| true)? {
            let max = g.files.iter().map(|f| f.max_sequence_number).max();
            if let Some(max) = max {
                out.expired_up_to
                    .insert(table.bucket_path(&g.rendered.path, g.bucket), max);
            }
        }
    }
    if let Some(latest) = latest {
        let snapshot = table.snapshot(latest)?;
        let live: HashSet<String> =
            native_reader::scan::read_all_files(table, &snapshot, &|_| true)?
                .into_iter()
                .flat_map(|g| g.files.into_iter().map(|f| f.file_name))
                .collect();
        for files in out.by_bucket.values_mut() {
            for f in files.iter_mut().filter(|f| !f.changelog) {
                f.live = live.contains(&f.meta.file_name);
            }
        }
    }
    Ok(out)
}

/// A file in a bucket directory that no metadata references.
#[derive(Clone, Debug)]
pub(super) struct Candidate {
    /// The bucket directory, as [`Table::bucket_path`] writes it.
    pub bucket_path: String,
    /// Bucket.
    pub bucket: i32,
    /// Partition values parsed from the directory names (`k=v`, unescaped; the default partition name as
    /// NULL).
    pub partition: Vec<Option<String>>,
    /// File name.
    pub name: String,
    /// A changelog file (by its prefix) rather than a data file.
    pub changelog: bool,
    /// Size in bytes.
    pub size: u64,
    /// Last modification time, epoch milliseconds.
    pub modified_millis: Option<i64>,
}

/// Undoes `PartitionPathUtils.escapePathName` (`%XX`).
fn unescape(s: &str) -> String {
    let hex = |b: u8| (b as char).to_digit(16);
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The data and changelog files in the table's bucket directories that `referenced` does not name.
pub(super) fn candidates(
    table: &Table,
    referenced: &Referenced,
) -> Result<(usize, Vec<Candidate>)> {
    let options = &table.schema().options;
    let data_prefix = options
        .get(DATA_FILE_PREFIX)
        .map_or("data-", String::as_str);
    let changelog_prefix = options
        .get(CHANGELOG_FILE_PREFIX)
        .map_or("changelog-", String::as_str);
    let default_name = table.options().partition_default_name.clone();
    // The root of the bucket directories: the table, or its `data-file.path-directory`.
    let base = table.bucket_path("", 0);
    let base = base
        .strip_suffix("bucket-0")
        .unwrap_or(&base)
        .trim_end_matches('/')
        .to_owned();
    let mut buckets = 0;
    let mut out = Vec::new();
    let mut stack: Vec<(PathBuf, Vec<Option<String>>)> = vec![(PathBuf::from(&base), Vec::new())];
    let io = native_reader::fileio::for_path(Path::new(&base))?;
    while let Some((dir, partition)) = stack.pop() {
        let Ok(mut entries) = io.list_status(&dir) else {
            continue;
        };
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        for e in entries {
            let name = e.name.clone();
            let child = dir.join(&name);
            if !e.is_dir
                || name.starts_with('.')
                || name.starts_with('_')
                || (partition.is_empty()
                    && dir == Path::new(&base)
                    && METADATA_DIRS.contains(&name.as_str()))
            {
                continue;
            }
            if let Some(b) = name.strip_prefix("bucket-") {
                let bucket = if b == "postpone" {
                    native_reader::table::POSTPONE_BUCKET
                } else {
                    match b.parse::<i32>() {
                        Ok(b) => b,
                        Err(_) => continue,
                    }
                };
                buckets += 1;
                let bucket_path = child.to_string_lossy().into_owned();
                let mut files = io.list_status(&child).map_err(|source| Error::Io {
                    path: child.clone(),
                    source,
                })?;
                files.sort_by(|a, b| a.name.cmp(&b.name));
                for f in files.into_iter().filter(|f| !f.is_dir) {
                    let file = f.name;
                    let changelog = file.starts_with(changelog_prefix);
                    if !(changelog || file.starts_with(data_prefix))
                        || !FORMATS.iter().any(|x| file.ends_with(x))
                        || referenced.names.contains(&file)
                    {
                        continue;
                    }
                    out.push(Candidate {
                        bucket_path: bucket_path.clone(),
                        bucket,
                        partition: partition.clone(),
                        name: file,
                        changelog,
                        size: f.size,
                        modified_millis: f.modified_millis,
                    });
                }
            } else if let Some((_, value)) = name.split_once('=') {
                let value = unescape(value);
                let mut p = partition.clone();
                p.push((value != default_name).then_some(value));
                stack.push((child, p));
            }
        }
    }
    out.sort_by(|a, b| (&a.bucket_path, &a.name).cmp(&(&b.bucket_path, &b.name)));
    Ok((buckets, out))
}

#[cfg(test)]
mod tests {
    use super::unescape;

    #[test]
    fn partition_directory_names_are_unescaped() {
        assert_eq!(unescape("a%2Fb"), "a/b");
        assert_eq!(unescape("100%25"), "100%");
        assert_eq!(unescape("plain"), "plain");
        assert_eq!(unescape("bad%zz"), "bad%zz");
        assert_eq!(unescape("end%4"), "end%4");
    }
}
