use super::avro_container::check_writer_schema;
use super::*;
use apache_avro::types::Value;
use apache_avro::{Codec, Schema, Writer};

const ENTRY_SCHEMA_09: &str = r#"["null",{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},{"name":"_FILE","type":["null",{"type":"record","name":"record__FILE","fields":[{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},{"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},{"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null}]}],"default":null}]}]"#;

fn entry_value(kind: i32, name: &str, version: i32) -> Value {
    let empty_row = vec![0u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    Value::Union(
        1,
        Box::new(Value::Record(vec![
            ("_VERSION".into(), Value::Int(version)),
            ("_KIND".into(), Value::Int(kind)),
            ("_PARTITION".into(), Value::Bytes(empty_row.clone())),
            ("_BUCKET".into(), Value::Int(3)),
            ("_TOTAL_BUCKETS".into(), Value::Int(4)),
            (
                "_FILE".into(),
                Value::Union(
                    1,
                    Box::new(Value::Record(vec![
                        ("_FILE_NAME".into(), Value::String(name.into())),
                        ("_FILE_SIZE".into(), Value::Long(100)),
                        ("_ROW_COUNT".into(), Value::Long(7)),
                        ("_MIN_KEY".into(), Value::Bytes(empty_row.clone())),
                        ("_MAX_KEY".into(), Value::Bytes(empty_row)),
                        ("_MIN_SEQUENCE_NUMBER".into(), Value::Long(1)),
                        ("_MAX_SEQUENCE_NUMBER".into(), Value::Long(7)),
                        ("_SCHEMA_ID".into(), Value::Long(0)),
                        ("_LEVEL".into(), Value::Int(0)),
                        (
                            "_EXTRA_FILES".into(),
                            Value::Array(vec![Value::String("x.index".into())]),
                        ),
                        (
                            "_CREATION_TIME".into(),
                            Value::Union(1, Box::new(Value::TimestampMillis(1_700_000_000_000))),
                        ),
                        (
                            "_DELETE_ROW_COUNT".into(),
                            Value::Union(0, Box::new(Value::Null)),
                        ),
                    ])),
                ),
            ),
        ])),
    )
}

fn write(path: &Path, schema: &str, values: Vec<Value>, codec: Codec) {
    let schema = Schema::parse_str(schema).unwrap();
    let mut w = Writer::with_codec(&schema, Vec::new(), codec);
    for v in values {
        w.append(v).unwrap();
    }
    std::fs::write(path, w.into_inner().unwrap()).unwrap();
}

#[test]
fn reads_older_manifest_with_missing_trailing_fields() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("manifest-a-0");
    write(
        &p,
        ENTRY_SCHEMA_09,
        vec![
            entry_value(0, "data-1.parquet", 2),
            entry_value(1, "data-0.parquet", 2),
        ],
        Codec::Zstandard(Default::default()),
    );
    let entries = read_manifest_file(&p).unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].kind, FileKind::Add);
    assert_eq!(entries[1].kind, FileKind::Delete);
    let f = &entries[0].file;
    assert_eq!(f.file_name, "data-1.parquet");
    assert_eq!(entries[0].bucket, 3);
    assert_eq!(entries[0].total_buckets, 4);
    assert_eq!(entries[0].partition.len(), 12);
    assert_eq!(f.row_count, 7);
    assert_eq!(f.extra_files, vec!["x.index".to_string()]);
    assert_eq!(f.creation_time, Some(1_700_000_000_000));
    assert_eq!(f.delete_row_count, None);
    assert_eq!(f.file_source, None);
    assert_eq!(f.external_path, None);
    assert_eq!(f.value_stats_cols, None);
}

#[test]
fn bad_version_and_kind_are_avro_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("manifest-v1");
    write(
        &p,
        ENTRY_SCHEMA_09,
        vec![entry_value(0, "d", 1)],
        Codec::Null,
    );
    let err = read_manifest_file(&p).unwrap_err();
    assert!(matches!(err, Error::Avro { .. }), "{err}");
    assert!(err.to_string().contains("_VERSION"));
    let p = dir.path().join("manifest-kind");
    write(
        &p,
        ENTRY_SCHEMA_09,
        vec![entry_value(5, "d", 2)],
        Codec::Null,
    );
    assert!(matches!(
        read_manifest_file(&p).unwrap_err(),
        Error::Avro { .. }
    ));
}

/// Found by the `manifest` fuzz target: a 2 KB file whose header metadata map claims billions of
/// entries made apache-avro reserve them up front (`malloc` of 10 GB, an abort). Now an Avro error.
#[test]
fn header_map_with_a_huge_count_is_an_error_not_an_allocation() {
    let path = Path::new("manifest-oom");
    let crashing = include_bytes!("../../tests/fuzz-regressions/manifest-oom-header-map");
    let mut huge = AVRO_MAGIC.to_vec();
    huge.extend_from_slice(&[0xFE, 0xFF, 0xFF, 0xFF, 0x7F]); // zig-zag 2^34 - 1 entries
    huge.extend_from_slice(b"avro.codec");
    for bytes in [&crashing[..], &huge[..]] {
        for err in [
            manifest_list_from_bytes(path, bytes).unwrap_err(),
            manifest_file_from_bytes(path, bytes).unwrap_err(),
            index_manifest_from_bytes(path, bytes).unwrap_err(),
        ] {
            assert!(matches!(err, Error::Avro { .. }), "{err}");
            let text = err.to_string();
            assert!(
                text.contains("manifest-oom") && text.contains("entries"),
                "{text}"
            );
        }
    }
    // What one count may allocate is bounded for the whole process.
    assert_eq!(
        apache_avro::util::max_allocation_bytes(usize::MAX),
        MAX_AVRO_ALLOCATION
    );
}

/// Found by the `manifest` fuzz target: a writer schema naming a record `record__FILE__VALUE_ST TS`
/// made apache-avro panic (`Name::new(..).unwrap()`). Now an Avro error naming the bad name.
#[test]
fn invalid_names_in_the_writer_schema_are_errors_not_panics() {
    let path = Path::new("manifest-bad-name");
    let crashing = include_bytes!("../../tests/fuzz-regressions/manifest-panic-schema-name");
    let err = manifest_file_from_bytes(path, crashing).unwrap_err();
    assert!(matches!(err, Error::Avro { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("`record__FILE__VALUE_ST TS` is not an Avro name"),
        "{err}"
    );
    let ok = |json: &str| check_writer_schema(json.as_bytes());
    assert!(ok(ENTRY_SCHEMA_09).is_ok());
    for bad in [
        r#"{"type":"record","name":"a b","fields":[]}"#,
        r#"{"type":"record","name":"r","namespace":"x..y","fields":[]}"#,
        r#"{"type":"record","name":"r","aliases":["1x"],"fields":[]}"#,
        r#"{"type":"record","name":"r","fields":[{"name":"f","type":"no such"}]}"#,
        r#"{"type":"record","name":"r","fields":[{"name":"f","type":["null",{"type":"array","items":"a-b"}]}]}"#,
        r#"{"type":"fixed","name":"f","size":1000000000000}"#,
        "not json",
    ] {
        assert!(ok(bad).is_err(), "{bad}");
    }
}

/// Found by the `manifest` fuzz target: ORC manifests whose tail announces lengths past the file (a
/// slice past the end in `orc-rust`) are rejected before `orc-rust` reads them; one whose footer's
/// root type is not a struct trips an `orc-rust` assertion, which the unwind guard turns into an
/// error naming the file (the panic message still reaches stderr: `orc-rust` 0.9 asserts instead of
/// returning an error there).
#[test]
fn corrupt_orc_manifests_are_errors() {
    let path = Path::new("manifest-orc");
    let past_end = include_bytes!("../../tests/fuzz-regressions/manifest-orc-tail-past-end");
    let err = manifest_file_from_bytes(path, past_end).unwrap_err();
    assert!(
        err.to_string().contains("postscript announces a footer"),
        "{err}"
    );
    let not_struct = include_bytes!("../../tests/fuzz-regressions/manifest-orc-root-not-struct");
    let err = manifest_list_from_bytes(path, not_struct).unwrap_err();
    assert!(matches!(err, Error::Avro { .. }), "{err}");
    assert!(err.to_string().contains("manifest-orc"), "{err}");
}

#[test]
fn container_framing_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("manifest-good");
    write(
        &good,
        ENTRY_SCHEMA_09,
        (0..20)
            .map(|i| entry_value(0, &format!("data-{i}"), 2))
            .collect(),
        Codec::Null,
    );
    let bytes = std::fs::read(&good).unwrap();
    assert!(check_container(&bytes).is_ok());
    // A block claiming more bytes than the file has.
    let cut = &bytes[..bytes.len() - 40];
    let reason = check_container(cut).unwrap_err().to_string();
    assert!(
        reason.contains("block 0") && reason.contains("remain"),
        "{reason}"
    );
    // Bytes after the last block that are not a block.
    let mut trailing = bytes.clone();
    trailing.extend_from_slice(&[0x02, 0x02, 0xAA]);
    assert!(check_container(&trailing)
        .unwrap_err()
        .to_string()
        .contains("block 1"));
    // A varint that never ends.
    let mut endless = AVRO_MAGIC.to_vec();
    endless.extend_from_slice(&[0xFF; 12]);
    assert!(check_container(&endless)
        .unwrap_err()
        .to_string()
        .contains("longer than 10 bytes"));
    assert!(check_container(AVRO_MAGIC)
        .unwrap_err()
        .to_string()
        .contains("truncated"));
}

#[test]
fn malformed_files_name_the_path() {
    let dir = tempfile::tempdir().unwrap();
    // not Avro at all
    let p = dir.path().join("manifest-garbage");
    std::fs::write(&p, b"hello world").unwrap();
    let err = read_manifest_file(&p).unwrap_err();
    assert!(matches!(err, Error::Avro { .. }), "{err}");
    assert!(err.to_string().contains("manifest-garbage"));
    // valid header, truncated body
    let good = dir.path().join("manifest-good");
    write(
        &good,
        ENTRY_SCHEMA_09,
        (0..50)
            .map(|i| entry_value(0, &format!("data-{i}"), 2))
            .collect(),
        Codec::Snappy,
    );
    let bytes = std::fs::read(&good).unwrap();
    for cut in [5, bytes.len() / 3, bytes.len() / 2, bytes.len() - 3] {
        let p = dir.path().join(format!("manifest-cut-{cut}"));
        std::fs::write(&p, &bytes[..cut]).unwrap();
        let err = read_manifest_file(&p).unwrap_err();
        assert!(matches!(err, Error::Avro { .. }), "cut {cut}: {err}");
        assert!(err.to_string().contains(&format!("manifest-cut-{cut}")));
    }
    // flipped bytes never panic
    for i in (4..bytes.len()).step_by(7) {
        let mut b = bytes.clone();
        b[i] ^= 0x5A;
        let p = dir.path().join("manifest-flip");
        std::fs::write(&p, &b).unwrap();
        let _ = read_manifest_file(&p);
        let _ = read_manifest_list(&p);
        let _ = read_index_manifest(&p);
    }
    // a manifest list is not a manifest file
    let err = read_manifest_list(&good).unwrap_err();
    assert!(matches!(err, Error::Avro { .. }), "{err}");
    // missing file
    assert!(matches!(
        read_manifest_file(&dir.path().join("nope")).unwrap_err(),
        Error::Io { .. }
    ));
    // A truncated ORC manifest is an error naming the file, not a panic.
    let p = dir.path().join("manifest-orc");
    std::fs::write(&p, b"ORC\x11\x00\x00").unwrap();
    let err = read_manifest_file(&p).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Avro { .. }
                | Error::Library {
                    kind: ErrorKind::Avro,
                    ..
                }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("manifest-orc"));
    // Parquet manifests are not supported.
    std::fs::write(&p, b"PAR1\x00\x00").unwrap();
    assert!(matches!(
        read_manifest_file(&p).unwrap_err(),
        Error::Unsupported { .. }
    ));
}

#[test]
fn reads_index_manifest_with_and_without_cardinality() {
    let schema = r#"["null",{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",{"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[{"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"},{"name":"_CARDINALITY","type":["null","long"],"default":null}]}]}],"default":null}]}]"#;
    let dv = |name: &str, off: i32, card: Option<i64>| {
        Value::Union(
            1,
            Box::new(Value::Record(vec![
                ("f0".into(), Value::String(name.into())),
                ("f1".into(), Value::Int(off)),
                ("f2".into(), Value::Int(22)),
                (
                    "_CARDINALITY".into(),
                    match card {
                        Some(c) => Value::Union(1, Box::new(Value::Long(c))),
                        None => Value::Union(0, Box::new(Value::Null)),
                    },
                ),
            ])),
        )
    };
    let entry = |ty: &str, dvs: Option<Vec<Value>>| {
        Value::Union(
            1,
            Box::new(Value::Record(vec![
                ("_VERSION".into(), Value::Int(1)),
                ("_KIND".into(), Value::Int(0)),
                ("_PARTITION".into(), Value::Bytes(vec![0; 12])),
                ("_BUCKET".into(), Value::Int(1)),
                ("_INDEX_TYPE".into(), Value::String(ty.into())),
                ("_FILE_NAME".into(), Value::String("index-u-0".into())),
                ("_FILE_SIZE".into(), Value::Long(64)),
                ("_ROW_COUNT".into(), Value::Long(2)),
                (
                    "_DELETIONS_VECTORS_RANGES".into(),
                    match dvs {
                        Some(d) => Value::Union(1, Box::new(Value::Array(d))),
                        None => Value::Union(0, Box::new(Value::Null)),
                    },
                ),
            ])),
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("index-manifest-u-0");
    write(
        &p,
        schema,
        vec![
            entry(
                DELETION_VECTORS_INDEX,
                Some(vec![dv("data-a", 1, Some(3)), dv("data-b", 31, None)]),
            ),
            entry(HASH_INDEX, None),
        ],
        Codec::Null,
    );
    let got = read_index_manifest(&p).unwrap();
    assert_eq!(got.len(), 2);
    let dvs = got[0].deletion_vectors.as_ref().unwrap();
    assert_eq!(dvs[0].data_file_name, "data-a");
    assert_eq!(dvs[0].offset, 1);
    assert_eq!(dvs[0].length, 22);
    assert_eq!(dvs[0].cardinality, Some(3));
    assert_eq!(dvs[1].cardinality, None);
    assert_eq!(got[1].index_type, HASH_INDEX);
    assert_eq!(got[1].deletion_vectors, None);
}

/// The manifest-list writer schema of 2.0.0 (`ManifestFileMeta.SCHEMA` behind `_VERSION`, 12 columns).
const LIST_SCHEMA_20: &str = r#"["null",{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},{"name":"_PARTITION_STATS","type":["null",{"type":"record","name":"record__PARTITION_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}],"default":null},{"name":"_SCHEMA_ID","type":"long"},{"name":"_MIN_BUCKET","type":["null","int"],"default":null},{"name":"_MAX_BUCKET","type":["null","int"],"default":null},{"name":"_MIN_LEVEL","type":["null","int"],"default":null},{"name":"_MAX_LEVEL","type":["null","int"],"default":null},{"name":"_MIN_ROW_ID","type":["null","long"],"default":null},{"name":"_MAX_ROW_ID","type":["null","long"],"default":null}]}]"#;

fn some(v: Value) -> Value {
    Value::Union(1, Box::new(v))
}

fn null() -> Value {
    Value::Union(0, Box::new(Value::Null))
}

#[test]
fn reads_2_0_manifest_list_with_twelve_columns() {
    let row = |name: &str, buckets: Option<(i32, i32)>, row_ids: Option<(i64, i64)>| {
        some(Value::Record(vec![
            ("_VERSION".into(), Value::Int(2)),
            ("_FILE_NAME".into(), Value::String(name.into())),
            ("_FILE_SIZE".into(), Value::Long(2048)),
            ("_NUM_ADDED_FILES".into(), Value::Long(3)),
            ("_NUM_DELETED_FILES".into(), Value::Long(1)),
            (
                "_PARTITION_STATS".into(),
                some(Value::Record(vec![
                    ("_MIN_VALUES".into(), Value::Bytes(vec![0; 8])),
                    ("_MAX_VALUES".into(), Value::Bytes(vec![0; 8])),
                    ("_NULL_COUNTS".into(), some(Value::Array(vec![]))),
                ])),
            ),
            ("_SCHEMA_ID".into(), Value::Long(1)),
            (
                "_MIN_BUCKET".into(),
                buckets.map_or_else(null, |b| some(Value::Int(b.0))),
            ),
            (
                "_MAX_BUCKET".into(),
                buckets.map_or_else(null, |b| some(Value::Int(b.1))),
            ),
            ("_MIN_LEVEL".into(), some(Value::Int(0))),
            ("_MAX_LEVEL".into(), some(Value::Int(5))),
            (
                "_MIN_ROW_ID".into(),
                row_ids.map_or_else(null, |r| some(Value::Long(r.0))),
            ),
            (
                "_MAX_ROW_ID".into(),
                row_ids.map_or_else(null, |r| some(Value::Long(r.1))),
            ),
        ]))
    };
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("manifest-list-20");
    write(
        &p,
        LIST_SCHEMA_20,
        vec![
            row("manifest-a-0", Some((-2, -2)), None),
            row("manifest-a-1", None, Some((10, 19))),
        ],
        Codec::Zstandard(Default::default()),
    );
    let got = read_manifest_list(&p).unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].file_name, "manifest-a-0");
    assert_eq!(
        (
            got[0].file_size,
            got[0].num_added_files,
            got[0].num_deleted_files
        ),
        (2048, 3, 1)
    );
    assert_eq!(got[0].schema_id, 1);
    assert_eq!((got[0].min_bucket, got[0].max_bucket), (Some(-2), Some(-2)));
    assert_eq!((got[0].min_level, got[0].max_level), (Some(0), Some(5)));
    assert_eq!((got[0].min_row_id, got[0].max_row_id), (None, None));
    assert_eq!((got[1].min_bucket, got[1].max_bucket), (None, None));
    assert_eq!((got[1].min_row_id, got[1].max_row_id), (Some(10), Some(19)));
}

/// The manifest-entry writer schema of 2.0.0 (`ManifestEntry.SCHEMA`, `_FILE` = the 20 `DataFileMeta`
/// columns; stats records as `SimpleStats.SCHEMA`).
const ENTRY_SCHEMA_20: &str = r#"["null",{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},{"name":"_FILE","type":["null",{"type":"record","name":"record__FILE","fields":[{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},{"name":"_KEY_STATS","type":["null",{"type":"record","name":"record__FILE__KEY_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}],"default":null},{"name":"_VALUE_STATS","type":["null",{"type":"record","name":"record__FILE__VALUE_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}],"default":null},{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},{"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},{"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null},{"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null},{"name":"_FILE_SOURCE","type":["null","int"],"default":null},{"name":"_VALUE_STATS_COLS","type":["null",{"type":"array","items":"string"}],"default":null},{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},{"name":"_FIRST_ROW_ID","type":["null","long"],"default":null},{"name":"_WRITE_COLS","type":["null",{"type":"array","items":"string"}],"default":null}]}],"default":null}]}]"#;

#[test]
fn reads_2_0_manifest_entries_with_twenty_file_columns() {
    let stats = || {
        some(Value::Record(vec![
            ("_MIN_VALUES".into(), Value::Bytes(vec![0; 4])),
            ("_MAX_VALUES".into(), Value::Bytes(vec![0; 4])),
            ("_NULL_COUNTS".into(), null()),
        ]))
    };
    let entry = |name: &str,
                 external: Option<&str>,
                 first_row_id: Option<i64>,
                 write_cols: Option<Vec<&str>>| {
        some(Value::Record(vec![
            ("_VERSION".into(), Value::Int(2)),
            ("_KIND".into(), Value::Int(0)),
            ("_PARTITION".into(), Value::Bytes(vec![0; 4])),
            ("_BUCKET".into(), Value::Int(-2)),
            ("_TOTAL_BUCKETS".into(), Value::Int(-2)),
            (
                "_FILE".into(),
                some(Value::Record(vec![
                    ("_FILE_NAME".into(), Value::String(name.into())),
                    ("_FILE_SIZE".into(), Value::Long(900)),
                    ("_ROW_COUNT".into(), Value::Long(12)),
                    ("_MIN_KEY".into(), Value::Bytes(vec![0; 4])),
                    ("_MAX_KEY".into(), Value::Bytes(vec![0; 4])),
                    ("_KEY_STATS".into(), stats()),
                    ("_VALUE_STATS".into(), stats()),
                    ("_MIN_SEQUENCE_NUMBER".into(), Value::Long(4)),
                    ("_MAX_SEQUENCE_NUMBER".into(), Value::Long(15)),
                    ("_SCHEMA_ID".into(), Value::Long(2)),
                    ("_LEVEL".into(), Value::Int(5)),
                    (
                        "_EXTRA_FILES".into(),
                        Value::Array(vec![
                            Value::String(format!("{name}.index")),
                            Value::String("lookup-3f1c.sst".into()),
                        ]),
                    ),
                    (
                        "_CREATION_TIME".into(),
                        some(Value::TimestampMillis(1_767_225_600_000)),
                    ),
                    ("_DELETE_ROW_COUNT".into(), some(Value::Long(2))),
                    ("_EMBEDDED_FILE_INDEX".into(), null()),
                    ("_FILE_SOURCE".into(), some(Value::Int(1))),
                    (
                        "_VALUE_STATS_COLS".into(),
                        some(Value::Array(vec![Value::String("v".into())])),
                    ),
                    (
                        "_EXTERNAL_PATH".into(),
                        external.map_or_else(null, |e| some(Value::String(e.into()))),
                    ),
                    (
                        "_FIRST_ROW_ID".into(),
                        first_row_id.map_or_else(null, |r| some(Value::Long(r))),
                    ),
                    (
                        "_WRITE_COLS".into(),
                        write_cols.map_or_else(null, |c| {
                            some(Value::Array(
                                c.into_iter().map(|s| Value::String(s.into())).collect(),
                            ))
                        }),
                    ),
                ])),
            ),
        ]))
    };
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("manifest-20");
    write(
        &p,
        ENTRY_SCHEMA_20,
        vec![
            entry(
                "data-1.parquet",
                Some("file:/ext/a/bucket-0/data-1.parquet"),
                None,
                None,
            ),
            entry("data-2.parquet", None, Some(100), Some(vec!["a", "b"])),
        ],
        Codec::Snappy,
    );
    let got = read_manifest_file(&p).unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!((got[0].bucket, got[0].total_buckets), (-2, -2));
    let f = &got[0].file;
    assert_eq!(
        (f.file_name.as_str(), f.file_size, f.row_count),
        ("data-1.parquet", 900, 12)
    );
    assert_eq!(
        (
            f.min_sequence_number,
            f.max_sequence_number,
            f.schema_id,
            f.level
        ),
        (4, 15, 2, 5)
    );
    assert_eq!(f.delete_row_count, Some(2));
    assert_eq!(f.file_source, Some(FileSource::Compact));
    assert_eq!(f.value_stats_cols, Some(vec!["v".to_string()]));
    assert_eq!(
        f.external_path.as_deref(),
        Some("file:/ext/a/bucket-0/data-1.parquet")
    );
    assert_eq!((f.first_row_id, f.write_cols.clone()), (None, None));
    assert_eq!(f.extra_files.len(), 2);
    assert_eq!(
        f.index_files().collect::<Vec<_>>(),
        vec!["data-1.parquet.index"]
    );
    let g = &got[1].file;
    assert_eq!(g.external_path, None);
    assert_eq!(g.first_row_id, Some(100));
    assert_eq!(g.write_cols, Some(vec!["a".to_string(), "b".to_string()]));
}

#[test]
fn reads_2_0_index_manifest_with_external_path_and_global_index() {
    let schema = r#"["null",{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",{"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[{"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"},{"name":"_CARDINALITY","type":["null","long"],"default":null}]}]}],"default":null},{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},{"name":"_GLOBAL_INDEX","type":["null",{"type":"record","name":"record__GLOBAL_INDEX","fields":[{"name":"_ROW_RANGE_START","type":"long"},{"name":"_ROW_RANGE_END","type":"long"},{"name":"_INDEX_FIELD_ID","type":"int"},{"name":"_EXTRA_FIELD_IDS","type":["null",{"type":"array","items":"int"}],"default":null},{"name":"_INDEX_META","type":["null","bytes"],"default":null},{"name":"_SOURCE_META","type":["null","bytes"],"default":null}]}],"default":null}]}]"#;
    let entry =
        |ty: &str, name: &str, dvs: Option<Vec<Value>>, external: Option<&str>, global: bool| {
            some(Value::Record(vec![
                ("_VERSION".into(), Value::Int(1)),
                ("_KIND".into(), Value::Int(0)),
                ("_PARTITION".into(), Value::Bytes(vec![0; 4])),
                ("_BUCKET".into(), Value::Int(0)),
                ("_INDEX_TYPE".into(), Value::String(ty.into())),
                ("_FILE_NAME".into(), Value::String(name.into())),
                ("_FILE_SIZE".into(), Value::Long(64)),
                ("_ROW_COUNT".into(), Value::Long(1)),
                (
                    "_DELETIONS_VECTORS_RANGES".into(),
                    dvs.map_or_else(null, |d| some(Value::Array(d))),
                ),
                (
                    "_EXTERNAL_PATH".into(),
                    external.map_or_else(null, |e| some(Value::String(e.into()))),
                ),
                (
                    "_GLOBAL_INDEX".into(),
                    if global {
                        some(Value::Record(vec![
                            ("_ROW_RANGE_START".into(), Value::Long(0)),
                            ("_ROW_RANGE_END".into(), Value::Long(99)),
                            ("_INDEX_FIELD_ID".into(), Value::Int(1)),
                            (
                                "_EXTRA_FIELD_IDS".into(),
                                some(Value::Array(vec![Value::Int(2)])),
                            ),
                            ("_INDEX_META".into(), some(Value::Bytes(vec![1, 2]))),
                            ("_SOURCE_META".into(), null()),
                        ]))
                    } else {
                        null()
                    },
                ),
            ]))
        };
    let dv = some(Value::Record(vec![
        ("f0".into(), Value::String("data-a.parquet".into())),
        ("f1".into(), Value::Int(1)),
        ("f2".into(), Value::Int(40)),
        ("_CARDINALITY".into(), some(Value::Long(2))),
    ]));
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("index-manifest-20");
    write(
        &p,
        schema,
        vec![
            entry(
                DELETION_VECTORS_INDEX,
                "index-u-0",
                Some(vec![dv]),
                Some("file:/ext/idx/index-u-0"),
                false,
            ),
            entry("btree", "btree-u-1", None, None, true),
        ],
        Codec::Null,
    );
    let got = read_index_manifest(&p).unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(
        got[0].external_path.as_deref(),
        Some("file:/ext/idx/index-u-0")
    );
    let dvs = got[0].deletion_vectors.as_ref().unwrap();
    assert_eq!(
        (dvs[0].offset, dvs[0].length, dvs[0].cardinality),
        (1, 40, Some(2))
    );
    assert!(is_known_index_type(&got[0].index_type));
    assert_eq!(got[1].index_type, "btree");
    assert_eq!(got[1].external_path, None);
    assert!(!is_known_index_type(&got[1].index_type));
    assert!(is_known_index_type(HASH_INDEX));
}
