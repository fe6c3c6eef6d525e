use super::bin_packing::pack_for_ordered;
use super::follow_up::{follow_up, FollowUpMode};
use super::split_generator::merge_tree_split_for_batch;
use super::*;
use crate::error::Error;
use crate::manifest::DELETION_VECTORS_INDEX;
use crate::mergetree::{interval_partition, KeyComparator, KeyedFile};
use crate::schema::TableSchema;
use crate::snapshot::CommitKind;
use crate::split::DataFileDesc;
use crate::table::ChangelogProducer;
use apache_avro::types::Value;
use apache_avro::{Codec, Schema, Writer};
use std::path::Path;

mod line;

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
    let got: Vec<Summary<'_, String>> = splits
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
    let got: Vec<Summary<'_, i32>> = splits
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

fn int_key(v: i32) -> Vec<u8> {
    let mut b = vec![0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
    b.extend_from_slice(&(v as i64).to_le_bytes());
    b
}

fn int_schema() -> TableSchema {
    TableSchema::parse(
        br#"{"version":3,"id":0,"fields":[{"id":0,"name":"k","type":"INT NOT NULL"}],
            "highestFieldId":0,"partitionKeys":[],"primaryKeys":["k"],"options":{}}"#,
    )
    .unwrap()
}

fn desc(
    name: &str,
    min: i32,
    max: i32,
    level: i32,
    size: i64,
    deletes: Option<i64>,
) -> DataFileDesc {
    DataFileDesc {
        file_name: name.into(),
        level,
        row_count: 1,
        file_size: size,
        min_sequence_number: 0,
        max_sequence_number: 0,
        schema_id: 0,
        delete_row_count: deletes,
        min_key: int_key(min),
        max_key: int_key(max),
        external_path: None,
        first_row_id: None,
        write_cols: None,
        file_source: None,
    }
}

fn keyed(cmp: &KeyComparator, files: Vec<DataFileDesc>) -> Vec<KeyedFile<DataFileDesc>> {
    files
        .into_iter()
        .map(|f| KeyedFile {
            min_key: cmp.decode(&f.min_key, Path::new("x")).unwrap(),
            max_key: cmp.decode(&f.max_key, Path::new("x")).unwrap(),
            file: f,
        })
        .collect()
}

fn sections_of(parts: Vec<Vec<Vec<KeyedFile<DataFileDesc>>>>) -> Vec<Vec<Vec<String>>> {
    parts
        .into_iter()
        .map(|runs| {
            runs.into_iter()
                .map(|r| r.into_iter().map(|k| k.file.file_name).collect())
                .collect()
        })
        .collect()
}

#[test]
fn interval_partition_sections_and_runs() {
    let cmp = KeyComparator::new(&int_schema());
    // The example of MergeTreeSplitGenerator's comment.
    let files = vec![
        desc("e", 200, 600, 0, 1, Some(0)),
        desc("a", 1, 2, 0, 1, Some(0)),
        desc("d", 5, 190, 0, 1, Some(0)),
        desc("b", 3, 4, 0, 1, Some(0)),
        desc("c", 5, 180, 0, 1, Some(0)),
        desc("f", 210, 700, 0, 1, Some(0)),
    ];
    let s = sections_of(interval_partition(keyed(&cmp, files), &cmp));
    assert_eq!(
        s,
        vec![
            vec![vec!["a"]],
            vec![vec!["b"]],
            vec![vec!["c"], vec!["d"]],
            vec![vec!["e"], vec!["f"]],
        ]
    );
    // Runs come in the queue's array order: [b, c] moved before [a].
    let files = vec![
        desc("a", 1, 10, 0, 1, Some(0)),
        desc("b", 2, 3, 0, 1, Some(0)),
        desc("c", 4, 5, 0, 1, Some(0)),
    ];
    let s = sections_of(interval_partition(keyed(&cmp, files), &cmp));
    assert_eq!(s, vec![vec![vec!["b", "c"], vec!["a"]]]);
}

#[test]
fn merge_tree_split_generation() {
    let cmp = KeyComparator::new(&int_schema());
    let names = |groups: Vec<(Vec<KeyedFile<DataFileDesc>>, bool)>| -> Vec<(Vec<String>, bool)> {
        groups
            .into_iter()
            .map(|(f, raw)| (f.into_iter().map(|k| k.file.file_name).collect(), raw))
            .collect()
    };
    // One level, no delete rows: bin-packed in order, all raw (target 10, open cost 4).
    let files = vec![
        desc("x", 5, 9, 3, 5, Some(0)),
        desc("y", 1, 4, 3, 5, None),
        desc("z", 10, 12, 3, 1, Some(0)),
    ];
    assert_eq!(
        names(merge_tree_split_for_batch(
            keyed(&cmp, files),
            &cmp,
            10,
            4,
            false
        )),
        vec![
            (vec!["x".into(), "y".into()], true),
            (vec!["z".into()], true)
        ]
    );
    // Level 0 present: sections by key range; a lone file without delete rows is raw.
    let files = vec![
        desc("l0", 1, 5, 0, 3, Some(0)),
        desc("l1", 2, 8, 1, 3, Some(0)),
        desc("far", 20, 30, 1, 3, Some(2)),
        desc("farther", 40, 50, 1, 3, Some(0)),
    ];
    assert_eq!(
        names(merge_tree_split_for_batch(
            keyed(&cmp, files),
            &cmp,
            7,
            1,
            false
        )),
        vec![
            (vec!["l0".into(), "l1".into()], false),
            (vec!["far".into(), "farther".into()], false),
        ]
    );
    // A lone file without delete rows is raw-convertible, even at level 0.
    let files = vec![
        desc("l0", 1, 5, 0, 3, Some(0)),
        desc("l1", 2, 8, 1, 3, Some(0)),
        desc("far", 20, 30, 1, 3, Some(2)),
        desc("farther", 40, 50, 0, 3, Some(0)),
    ];
    assert_eq!(
        names(merge_tree_split_for_batch(
            keyed(&cmp, files),
            &cmp,
            4,
            1,
            false
        )),
        vec![
            (vec!["l0".into(), "l1".into()], false),
            (vec!["far".into()], false),
            (vec!["farther".into()], true),
        ]
    );
    // Deletion vectors: raw-convertible files are packed as they come even across levels.
    let files = vec![
        desc("p", 1, 5, 2, 3, Some(0)),
        desc("q", 2, 8, 1, 3, Some(0)),
    ];
    assert_eq!(
        names(merge_tree_split_for_batch(
            keyed(&cmp, files),
            &cmp,
            100,
            1,
            true
        )),
        vec![(vec!["p".into(), "q".into()], true)]
    );
}

const FULL_ENTRY_SCHEMA: &str = r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},{"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},{"name":"_DELETE_ROW_COUNT","type":["null","long"]}]}}]}"#;

/// (kind, file, level, min key, max key, size)
type Entry = (i32, &'static str, i32, i32, i32, i64);

fn full_entry(e: &Entry) -> Value {
    rec(vec![
        ("_VERSION", Value::Int(2)),
        ("_KIND", Value::Int(e.0)),
        ("_PARTITION", Value::Bytes(vec![0u8; 12])),
        ("_BUCKET", Value::Int(0)),
        ("_TOTAL_BUCKETS", Value::Int(1)),
        (
            "_FILE",
            rec(vec![
                ("_FILE_NAME", Value::String(e.1.into())),
                ("_FILE_SIZE", Value::Long(e.5)),
                ("_ROW_COUNT", Value::Long(1)),
                ("_MIN_KEY", Value::Bytes(int_key(e.3))),
                ("_MAX_KEY", Value::Bytes(int_key(e.4))),
                ("_MIN_SEQUENCE_NUMBER", Value::Long(0)),
                ("_MAX_SEQUENCE_NUMBER", Value::Long(0)),
                ("_SCHEMA_ID", Value::Long(0)),
                ("_LEVEL", Value::Int(e.2)),
                ("_EXTRA_FILES", Value::Array(vec![])),
                (
                    "_DELETE_ROW_COUNT",
                    Value::Union(1, Box::new(Value::Long(0))),
                ),
            ]),
        ),
    ])
}

/// An unpartitioned PK table (k INT) with `options` and snapshots: 1 APPEND (base: -, delta: m1),
/// 2 COMPACT (base: m1, delta: m2), 3 APPEND (base: m1, m2, delta: m3).
fn build_all_mode_table(dir: &Path, options: &str, m1: &[Entry], m2: &[Entry], m3: &[Entry]) {
    for d in ["schema", "snapshot", "manifest"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    std::fs::write(
        dir.join("schema/schema-0"),
        format!(
            r#"{{"version":3,"id":0,"fields":[{{"id":0,"name":"k","type":"INT NOT NULL"}},{{"id":1,"name":"v","type":"INT"}}],
            "highestFieldId":1,"partitionKeys":[],"primaryKeys":["k"],"options":{{{options}}}}}"#
        ),
    )
    .unwrap();
    let m = dir.join("manifest");
    let meta = |name: &str, entries: &[Entry]| {
        let added = entries.iter().filter(|e| e.0 == 0).count() as i64;
        rec(vec![
            ("_VERSION", Value::Int(2)),
            ("_FILE_NAME", Value::String(name.into())),
            ("_FILE_SIZE", Value::Long(1)),
            ("_NUM_ADDED_FILES", Value::Long(added)),
            (
                "_NUM_DELETED_FILES",
                Value::Long(entries.len() as i64 - added),
            ),
            ("_SCHEMA_ID", Value::Long(0)),
        ])
    };
    for (name, entries) in [("m1", m1), ("m2", m2), ("m3", m3)] {
        write_avro(
            &m.join(name),
            FULL_ENTRY_SCHEMA,
            entries.iter().map(full_entry).collect(),
        );
    }
    write_avro(&m.join("l-empty"), LIST_SCHEMA, vec![]);
    write_avro(&m.join("l-1"), LIST_SCHEMA, vec![meta("m1", m1)]);
    write_avro(&m.join("l-2"), LIST_SCHEMA, vec![meta("m2", m2)]);
    write_avro(&m.join("l-3"), LIST_SCHEMA, vec![meta("m3", m3)]);
    write_avro(
        &m.join("l-12"),
        LIST_SCHEMA,
        vec![meta("m1", m1), meta("m2", m2)],
    );
    for (id, kind, base, delta) in [
        (1, "APPEND", "l-empty", "l-1"),
        (2, "COMPACT", "l-1", "l-2"),
        (3, "APPEND", "l-12", "l-3"),
    ] {
        std::fs::write(
            dir.join(format!("snapshot/snapshot-{id}")),
            format!(
                r#"{{"version":3,"id":{id},"schemaId":0,"baseManifestList":"{base}","deltaManifestList":"{delta}",
                "changelogManifestList":null,"commitUser":"u","commitIdentifier":{id},"commitKind":"{kind}","timeMillis":0}}"#
            ),
        )
        .unwrap();
    }
}

fn split_files(splits: &[Split]) -> Vec<(i64, Vec<&str>, bool, bool)> {
    splits
        .iter()
        .map(|s| (s.snapshot_id, names(s), s.is_streaming, s.raw_convertible))
        .collect()
}

#[test]
fn batch_plans_read_the_all_mode_file_set() {
    // Snapshot 1: f0, f1 at level 0. Snapshot 2 compacts f0 away and upgrades f1 to level 5 (DELETE
    // level 0 + ADD level 5), adding g at level 5. Snapshot 3 adds h at level 0.
    let m1: Vec<Entry> = vec![(0, "f0", 0, 1, 5, 10), (0, "f1", 0, 6, 9, 10)];
    let m2: Vec<Entry> = vec![
        (1, "f0", 0, 1, 5, 10),
        (1, "f1", 0, 6, 9, 10),
        (0, "f1", 5, 6, 9, 10),
        (0, "g", 5, 1, 5, 10),
    ];
    let m3: Vec<Entry> = vec![(0, "h", 0, 2, 3, 10)];
    let dir = tempfile::tempdir().unwrap();
    build_all_mode_table(dir.path(), r#""bucket":"1""#, &m1, &m2, &m3);
    let t = Table::open(dir.path()).unwrap();
    // Latest: f1 and g at level 5, h at level 0 → sections {g, h} (runs [h], [g] in queue order) and
    // {f1}, packed into one split.
    assert_eq!(
        split_files(&t.plan_batch(None).unwrap()),
        vec![(3, vec!["h", "g", "f1"], false, false)]
    );
    // Time travel.
    assert_eq!(
        split_files(&t.plan_batch(Some(1)).unwrap()),
        vec![(1, vec!["f0", "f1"], false, false)]
    );
    assert_eq!(
        split_files(&t.plan_batch(Some(2)).unwrap()),
        vec![(2, vec!["f1", "g"], false, true)]
    );
    let err = t.plan_batch(Some(4)).unwrap_err();
    assert!(
        err.to_string()
            .contains("out of available snapshotId range [1, 3]"),
        "{err}"
    );
    // A batch split's files carry what a merge read needs.
    let s = &t.plan_batch(None).unwrap()[0];
    assert_eq!(s.data_files[1].min_key, int_key(1));
    assert_eq!(s.data_files[0].delete_row_count, Some(0));

    // Deletion vectors: level 0 is not visible to batch reads.
    let dir = tempfile::tempdir().unwrap();
    build_all_mode_table(
        dir.path(),
        r#""bucket":"1","deletion-vectors.enabled":"true""#,
        &m1,
        &m2,
        &m3,
    );
    let t = Table::open(dir.path()).unwrap();
    assert_eq!(
        split_files(&t.plan_batch(None).unwrap()),
        vec![(3, vec!["f1", "g"], false, true)]
    );
    // Streaming full first plan with DVs (lookup needed): levels > 0; the follow-up starts at the same
    // snapshot (deletion vectors without lookup changelog) and reads its APPEND delta.
    assert_eq!(
        split_files(&t.plan_latest_full(3).unwrap()),
        vec![
            (3, vec!["f1", "g"], false, true),
            (3, vec!["h"], true, true)
        ]
    );
}

#[test]
fn stream_full_first_plans() {
    let m1: Vec<Entry> = vec![(0, "f0", 0, 1, 5, 10)];
    let m2: Vec<Entry> = vec![(1, "f0", 0, 1, 5, 10), (0, "top", 5, 1, 5, 10)];
    let m3: Vec<Entry> = vec![(0, "h", 0, 2, 3, 10)];
    // full-compaction: only the top level in the first plan; follow-ups read COMPACT changelogs
    // (none here).
    let dir = tempfile::tempdir().unwrap();
    build_all_mode_table(
        dir.path(),
        r#""bucket":"1","changelog-producer":"full-compaction""#,
        &m1,
        &m2,
        &m3,
    );
    let t = Table::open(dir.path()).unwrap();
    assert_eq!(
        split_files(&t.plan_stream_full(1, 3).unwrap()),
        Vec::<(i64, Vec<&str>, bool, bool)>::new()
    );
    assert_eq!(
        split_files(&t.plan_stream_full(2, 3).unwrap()),
        vec![(2, vec!["top"], false, true)]
    );
    // none: every level, then the APPEND deltas after the first snapshot.
    let dir = tempfile::tempdir().unwrap();
    build_all_mode_table(dir.path(), r#""bucket":"1""#, &m1, &m2, &m3);
    let t = Table::open(dir.path()).unwrap();
    assert_eq!(
        split_files(&t.plan_stream_full(1, 3).unwrap()),
        vec![(1, vec!["f0"], false, true), (3, vec!["h"], true, true)]
    );
    // The end cuts the follow-ups; a start past the end keeps nothing.
    assert_eq!(split_files(&t.plan_stream_full(1, 2).unwrap()).len(), 1);
    assert!(t.plan_stream_full(3, 2).unwrap().is_empty());
    assert!(t.plan_stream_full(9, 9).is_err());
    assert_eq!(
        t.plan(ScanMode::StreamFull { from_snapshot: 1 }, 3)
            .unwrap(),
        t.plan_stream_full(1, 3).unwrap()
    );
}
