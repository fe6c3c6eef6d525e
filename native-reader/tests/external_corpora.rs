//! Metadata and streaming planning against tables written by the released Java writer (apache/paimon-cpp test
//! data, see `shared/external-corpora/README.md`). The tables are read-only.
//!
//! Expected values come from the tables' own files: their README (writes per snapshot), snapshot JSON
//! (`deltaRecordCount`, `commitKind`, manifest list names, `schemaId`), hint files, schema files and the
//! directories and files present on disk — never from this reader's output.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use native_reader::manifest::read_manifest_list;
use native_reader::partition::partition_path;
use native_reader::scan::{deletion_vector_index, manifest_list_record_delta};
use native_reader::snapshot::CommitKind;
use native_reader::table::ChangelogProducer;
use native_reader::{Error, Split, Table};

fn corpora() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/external-corpora/paimon-cpp");
    match p.canonicalize() {
        Ok(p) if p.is_dir() => Some(p),
        _ => {
            eprintln!("skipping: external corpora not found at {}", p.display());
            None
        }
    }
}

fn open(rel: &str) -> Option<(PathBuf, Table)> {
    let root = corpora()?.join(rel);
    let table = Table::open(&root).unwrap_or_else(|e| panic!("open {rel}: {e}"));
    Some((root, table))
}

/// The snapshot JSON as the file says, read without this crate.
fn snapshot_json(root: &Path, id: i64) -> serde_json::Value {
    let p = root.join("snapshot").join(format!("snapshot-{id}"));
    serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap()
}

fn json_i64(v: &serde_json::Value, key: &str) -> i64 {
    v[key].as_i64().unwrap_or_else(|| panic!("{key} in {v}"))
}

fn rows_by_snapshot(splits: &[Split]) -> BTreeMap<i64, i64> {
    let mut m = BTreeMap::new();
    for s in splits {
        *m.entry(s.snapshot_id).or_insert(0) += s.row_count();
    }
    m
}

/// (snapshot, partition) -> rows.
fn rows_by_partition(splits: &[Split]) -> BTreeMap<(i64, Vec<Option<String>>), i64> {
    let mut m = BTreeMap::new();
    for s in splits {
        *m.entry((s.snapshot_id, s.partition.clone())).or_insert(0) += s.row_count();
    }
    m
}

fn part(values: &[&str]) -> Vec<Option<String>> {
    values.iter().map(|v| Some(v.to_string())).collect()
}

/// Invariants every streaming split of these tables satisfies, checked against the disk.
fn check_splits_on_disk(root: &Path, table: &Table, splits: &[Split]) {
    let keys = table.schema().partition_keys.clone();
    for s in splits {
        assert!(s.is_streaming && s.raw_convertible, "{}", s.key());
        assert!(s.before_files.is_empty());
        assert_eq!(s.partition.len(), keys.len());
        let spec: Vec<(&str, Option<&str>)> = keys
            .iter()
            .map(String::as_str)
            .zip(s.partition.iter().map(|v| v.as_deref()))
            .collect();
        let dir = partition_path(&spec, "__DEFAULT_PARTITION__").unwrap();
        assert_eq!(
            s.bucket_path,
            format!("{}/{dir}bucket-{}", root.display(), s.bucket)
        );
        assert!(
            Path::new(&s.bucket_path).is_dir(),
            "{} missing",
            s.bucket_path
        );
        assert!(!s.data_files.is_empty());
        for f in &s.data_files {
            let p = Path::new(&s.bucket_path).join(&f.file_name);
            let meta = std::fs::metadata(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            assert_eq!(meta.len() as i64, f.file_size, "{}", p.display());
        }
        if table.options().deletion_vectors_enabled {
            assert_eq!(s.deletion_files.len(), s.data_files.len());
        } else {
            assert!(s.deletion_files.is_empty());
        }
    }
}

/// For every snapshot, ADD minus DELETE row counts of the delta manifest list equal the snapshot's own
/// `deltaRecordCount`, and each manifest list entry's `_FILE_SIZE` equals the manifest's size on disk.
fn check_deltas(root: &Path, table: &Table, latest: i64) {
    for id in 1..=latest {
        let json = snapshot_json(root, id);
        let delta = json["deltaManifestList"].as_str().unwrap();
        assert_eq!(
            manifest_list_record_delta(table, delta).unwrap(),
            json_i64(&json, "deltaRecordCount"),
            "snapshot {id}"
        );
        for m in read_manifest_list(&table.manifest_path(delta)).unwrap() {
            let len = std::fs::metadata(table.manifest_path(&m.file_name))
                .unwrap()
                .len();
            assert_eq!(m.file_size, len as i64, "{}", m.file_name);
        }
        let snap = table.snapshot(id).unwrap();
        assert_eq!(snap.id, id);
        assert_eq!(snap.delta_manifest_list, delta);
        assert_eq!(snap.schema_id, json_i64(&json, "schemaId"));
    }
}

#[test]
fn append_09_has_orc_manifests() {
    let Some((root, t)) = open("orc/append_09.db/append_09") else {
        return;
    };
    // schema-0 and README: partition f1, bucket 2, bucket key f2; ORC manifests.
    assert_eq!(t.schema().partition_keys, vec!["f1"]);
    assert_eq!(t.options().bucket, 2);
    assert_eq!(t.options().manifest_format, "orc");
    assert_eq!(t.options().file_format, "orc");
    assert!(!t.is_primary_key_table());
    // LATEST = 5, EARLIEST = 1, snapshot-1..5.
    assert_eq!(t.latest_snapshot_id().unwrap(), Some(5));
    assert_eq!(t.earliest_snapshot_id().unwrap(), Some(1));
    for id in 1..=5 {
        let json = snapshot_json(&root, id);
        let s = t.snapshot(id).unwrap();
        let kind = if json["commitKind"] == "COMPACT" {
            CommitKind::Compact
        } else {
            CommitKind::Append
        };
        assert_eq!(s.commit_kind, kind);
        assert_eq!(s.delta_record_count, json["deltaRecordCount"].as_i64());
    }
    // README: "snapshot-4-5 ... FullCompact".
    assert_eq!(t.snapshot(5).unwrap().commit_kind, CommitKind::Compact);
    // Manifests (and data files) are ORC: they plan and read natively.
    let splits = t.plan_stream(1, 5).unwrap();
    assert!(!splits.is_empty());
    let t = std::sync::Arc::new(t);
    let rows: usize = splits
        .iter()
        .map(|s| {
            native_reader::decode::SplitReader::new(t.clone(), s, 1024)
                .unwrap()
                .map(|b| b.unwrap().num_rows())
                .sum::<usize>()
        })
        .sum();
    assert_eq!(
        rows as i64,
        splits.iter().map(|s| s.row_count()).sum::<i64>()
    );
    // README data_split-01: partition 10, bucket 1; partition 20 has bucket 0.
    assert!(
        Path::new(&t.bucket_path(&partition_path(&[("f1", Some("10"))], "x").unwrap(), 1)).is_dir()
    );
    assert!(
        Path::new(&t.bucket_path(&partition_path(&[("f1", Some("20"))], "x").unwrap(), 0)).is_dir()
    );
}

#[test]
fn append_with_empty_partition_uses_default_name() {
    let Some((_root, t)) =
        open("parquet/append_with_empty_partition.db/append_with_empty_partition")
    else {
        return;
    };
    // README: f0 is the partition key, bucket -1 (option unset), NULL values in f0.
    assert_eq!(t.options().bucket, -1);
    assert_eq!(t.options().partition_default_name, "__DEFAULT_PARTITION__");
    assert_eq!(t.latest_snapshot_id().unwrap(), Some(1));
    assert_eq!(t.earliest_snapshot_id().unwrap(), Some(1));
    let default = &t.options().partition_default_name;
    for value in [None, Some("2024"), Some("2025"), Some(""), Some("  ")] {
        let dir = partition_path(&[("f0", value)], default).unwrap();
        // bucket-unaware append tables write to bucket-0
        let bucket = t.bucket_path(&dir, 0);
        assert!(Path::new(&bucket).is_dir(), "{bucket}");
    }
    // ORC manifests plan natively: one split per partition (NULL, "2024", "2025").
    assert_eq!(t.plan_stream(1, 1).unwrap().len(), 3);
}

#[test]
fn pk_09_streams_append_deltas() {
    let Some((root, t)) = open("parquet/pk_09.db/pk_09") else {
        return;
    };
    assert_eq!(t.latest_snapshot_id().unwrap(), Some(8));
    assert_eq!(t.earliest_snapshot_id().unwrap(), Some(1));
    assert!(t.is_primary_key_table());
    assert!(t.options().deletion_vectors_enabled);
    assert_eq!(t.options().changelog_producer, ChangelogProducer::None);
    check_deltas(&root, &t, 8);

    let splits = t.plan_stream(1, 8).unwrap();
    check_splits_on_disk(&root, &t, &splits);
    // changelog-producer none: only APPEND snapshots (odd ids here) are planned, each with its whole delta.
    let mut expected = BTreeMap::new();
    for id in 1..=8 {
        let json = snapshot_json(&root, id);
        if json["commitKind"] == "APPEND" {
            expected.insert(id, json_i64(&json, "deltaRecordCount"));
        }
    }
    assert_eq!(
        expected.keys().copied().collect::<Vec<_>>(),
        vec![1, 3, 5, 7]
    );
    assert_eq!(rows_by_snapshot(&splits), expected);
    for s in &splits {
        assert!(s.bucket == 0 || s.bucket == 1, "bucket count 2");
        assert!(s.partition == part(&["10"]) || s.partition == part(&["20"]));
        // one split per (partition, bucket) per snapshot
        assert_eq!(
            splits.iter().filter(|o| o.key() == s.key()).count(),
            1,
            "{}",
            s.key()
        );
    }
    // Starting before the earliest snapshot starts at the earliest; a later start is a suffix.
    assert_eq!(t.plan_stream(0, 8).unwrap(), splits);
    let from3 = t.plan_stream(3, 8).unwrap();
    let tail: Vec<Split> = splits
        .iter()
        .filter(|s| s.snapshot_id >= 3)
        .cloned()
        .collect();
    assert_eq!(from3, tail);
    assert!(t.plan_stream(5, 4).unwrap().is_empty());
    // A snapshot missing inside the range names its file.
    let err = t.plan_stream(7, 9).unwrap_err();
    assert!(matches!(err, Error::Snapshot { .. }), "{err}");
    assert!(err.to_string().contains("snapshot-9"), "{err}");
}

#[test]
fn pk_table_scan_and_read_dv_follows_readme() {
    let Some((root, t)) = open("parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv")
    else {
        return;
    };
    assert_eq!(t.latest_snapshot_id().unwrap(), Some(6));
    check_deltas(&root, &t, 6);
    let splits = t.plan_stream(1, 6).unwrap();
    check_splits_on_disk(&root, &t, &splits);
    // README: snapshot 1 writes 7 rows with f1=10 and 2 with f1=20; snapshot 3 one delete and one update in
    // f1=10; snapshots 5 and 6 three rows each in f1=10; 2 and 4 are compactions (not streamed).
    let by_part = rows_by_partition(&splits);
    let expected: BTreeMap<_, _> = [
        ((1, part(&["10"])), 7),
        ((1, part(&["20"])), 2),
        ((3, part(&["10"])), 2),
        ((5, part(&["10"])), 3),
        ((6, part(&["10"])), 3),
    ]
    .into_iter()
    .collect();
    assert_eq!(by_part, expected);
    // In snapshot 1, f1=10 has f2=1 (2 rows) and f2=0 (5 rows): two buckets. Snapshots 5 and 6 only write
    // f2=0, so they land in the bucket that got 5 rows in snapshot 1.
    let s1: Vec<&Split> = splits
        .iter()
        .filter(|s| s.snapshot_id == 1 && s.partition == part(&["10"]))
        .collect();
    assert_eq!(s1.len(), 2);
    let f2_zero_bucket = s1.iter().find(|s| s.row_count() == 5).unwrap().bucket;
    assert!(s1
        .iter()
        .any(|s| s.row_count() == 2 && s.bucket != f2_zero_bucket));
    for id in [5, 6] {
        let s: Vec<&Split> = splits.iter().filter(|s| s.snapshot_id == id).collect();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].bucket, f2_zero_bucket);
    }

    // Snapshot 4 (the compaction after the delete) carries the index manifest: every deletion vector names a
    // data file that exists in its bucket directory and lies inside its index file.
    let snap4 = t.snapshot(4).unwrap();
    assert_eq!(
        snap4.index_manifest.as_deref(),
        snapshot_json(&root, 4)["indexManifest"].as_str()
    );
    let index = deletion_vector_index(&t, &snap4).unwrap();
    assert!(!index.is_empty());
    for ((partition, bucket), files) in &index {
        let rendered = t
            .partition_computer()
            .render(partition, Path::new("index-manifest"))
            .unwrap();
        let bucket_dir = PathBuf::from(t.bucket_path(&rendered.path, *bucket));
        for (data_file, loc) in files {
            assert!(bucket_dir.join(data_file).is_file(), "{data_file}");
            let size = std::fs::metadata(t.index_path(&loc.index_file))
                .unwrap()
                .len() as i64;
            // offset points at the 4-byte length; then the vector; then a 4-byte CRC.
            assert!(loc.meta.offset >= 1);
            assert!(loc.meta.offset as i64 + 4 + loc.meta.length as i64 + 4 <= size);
        }
    }
}

#[test]
fn pk_table_with_alter_table_has_two_schemas() {
    let Some((root, t)) = open("parquet/pk_table_with_alter_table.db/pk_table_with_alter_table")
    else {
        return;
    };
    // Hint files: LATEST = 6, EARLIEST = 1 (snapshot-1..6 on disk).
    assert_eq!(std::fs::read(root.join("snapshot/LATEST")).unwrap(), b"6");
    assert_eq!(std::fs::read(root.join("snapshot/EARLIEST")).unwrap(), b"1");
    assert_eq!(t.latest_snapshot_id().unwrap(), Some(6));
    assert_eq!(t.earliest_snapshot_id().unwrap(), Some(1));
    // schema-1 is the latest; schema-0 still has key2 (renamed key_2 later).
    assert_eq!(t.schema().id, 1);
    assert_eq!(t.schema().partition_keys, vec!["key0", "key1"]);
    assert_eq!(t.schema_by_id(0).unwrap().fields[2].name, "key2");
    assert_eq!(t.schema_by_id(1).unwrap().fields[2].name, "key_2");
    check_deltas(&root, &t, 6);

    let splits = t.plan_stream(1, 6).unwrap();
    check_splits_on_disk(&root, &t, &splits);
    // README: snapshot 1 adds 2 rows in (key0=0, key1=1) and 7 in (1, 1); snapshot 3 deletes Tony and Lily in
    // (1, 1) and updates Alice in (0, 1); after the schema change snapshot 5 adds Paul in (0, 1) and updates
    // Alex in (1, 1).
    let expected: BTreeMap<_, _> = [
        ((1, part(&["0", "1"])), 2),
        ((1, part(&["1", "1"])), 7),
        ((3, part(&["0", "1"])), 1),
        ((3, part(&["1", "1"])), 2),
        ((5, part(&["0", "1"])), 1),
        ((5, part(&["1", "1"])), 1),
    ]
    .into_iter()
    .collect();
    assert_eq!(rows_by_partition(&splits), expected);
    for s in &splits {
        assert_eq!(s.bucket, 0, "bucket count 1");
        let schema_id = json_i64(&snapshot_json(&root, s.snapshot_id), "schemaId");
        assert!(s.data_files.iter().all(|f| f.schema_id == schema_id));
    }
    let dirs: BTreeSet<String> = splits.iter().map(|s| s.bucket_path.clone()).collect();
    assert_eq!(
        dirs,
        [
            format!("{}/key0=0/key1=1/bucket-0", root.display()),
            format!("{}/key0=1/key1=1/bucket-0", root.display()),
        ]
        .into_iter()
        .collect()
    );
}

#[test]
fn pk_table_partial_update_is_unpartitioned() {
    let Some((root, t)) = open("parquet/pk_table_partial_update.db/pk_table_partial_update") else {
        return;
    };
    assert_eq!(t.options().merge_engine, "partial-update");
    assert!(t.options().ignore_delete);
    assert_eq!(t.latest_snapshot_id().unwrap(), Some(2));
    check_deltas(&root, &t, 2);
    let splits = t.plan_stream(1, 2).unwrap();
    check_splits_on_disk(&root, &t, &splits);
    // README: snapshot 1 writes 3 rows, snapshot 2 writes 5 (3 adds, 2 deletes); no partition, bucket 0.
    assert_eq!(
        rows_by_snapshot(&splits),
        [(1, 3), (2, 5)].into_iter().collect()
    );
    for s in &splits {
        assert!(s.partition.is_empty());
        assert_eq!(s.bucket_path, format!("{}/bucket-0", root.display()));
    }
}
