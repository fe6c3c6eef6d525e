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
