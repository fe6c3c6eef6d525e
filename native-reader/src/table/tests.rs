//! Tests of [`super::Table`].

use super::*;

#[test]
fn table_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Table>();
}

fn write_schema(dir: &Path, id: i64, options: &str) {
    std::fs::create_dir_all(dir.join("schema")).unwrap();
    std::fs::write(
        dir.join("schema").join(format!("schema-{id}")),
        format!(
            r#"{{"version":3,"id":{id},"fields":[{{"id":0,"name":"p","type":"STRING"}},{{"id":1,"name":"v","type":"INT"}}],
            "highestFieldId":1,"partitionKeys":["p"],"primaryKeys":[],"options":{{{options}}}}}"#
        ),
    )
    .unwrap();
}

#[test]
fn read_options_the_release_honours_are_refused_by_name_on_their_lines() {
    use crate::read_options::Refused;
    // The list itself: each option with the first and last release whose released reader applies it
    // (`shared/docs/paimon-1.x-lines.md` §2: the release that brought each option).
    use PaimonRelease::*;
    let listed: Vec<(&str, PaimonRelease, PaimonRelease)> = UNSUPPORTED_READ_OPTIONS
        .iter()
        .map(|o| (o.pattern, o.releases.first, o.releases.last))
        .collect();
    assert_eq!(
        listed,
        [
            ("scan.version", V1_0_0, V2_0_0),
            ("scan.mode", V1_0_0, V2_0_0),
            ("log.scan", V1_0_0, V2_0_0),
            ("chain-table.enabled", V1_4_2, V2_0_0),
            ("key-value.sequence_number.enabled", V1_4_2, V2_0_0),
        ]
    );
    // Every entry: refused on its releases (with a value it refuses), read on the others, and read with a
    // value whose behaviour this reader has.
    for o in UNSUPPORTED_READ_OPTIONS {
        let key = o.pattern.replace('*', "d");
        for line in PaimonRelease::ALL {
            assert_eq!(
                o.refuses(line, &key, "7"),
                (o.releases.first..=o.releases.last).contains(&line),
                "{key} on {line:?}"
            );
            if let Refused::Unless(values) = o.refused {
                for v in values {
                    assert!(!o.refuses(line, &key, v), "{key}={v} on {line:?}");
                    assert!(
                        !o.refuses(line, &key, &v.to_ascii_uppercase()),
                        "{key}={v} on {line:?}"
                    );
                }
            }
        }
    }
    assert!(crate::read_options::refusal(V1_0_0, "scan.mode", "latest-full").is_none());
    assert!(crate::read_options::refusal(V1_0_0, "scan.mode", "compacted-full").is_none());
    assert!(crate::read_options::refusal(V1_0_0, "scan.mode", "incremental").is_none());
    assert!(crate::read_options::refusal(V2_0_0, "log.scan", "incremental").is_none());
    assert!(crate::read_options::refusal(V2_0_0, "scan.mode", "no-such-mode").is_some());
    assert!(crate::read_options::refusal(V2_0_0, "incremental-between", "1,3").is_none());
    // Both sort engines are read (`merge::reader`), on every release.
    for engine in ["loser-tree", "min-heap", "MIN-HEAP"] {
        assert!(crate::read_options::refusal(V1_0_0, "sort-engine", engine).is_none());
        assert!(crate::read_options::refusal(V2_0_0, "sort-engine", engine).is_none());
    }
    for (options, line, refused) in [
        // 1.0 to 1.2 fill NULLs with it (`merge::default_values`); 2.0 has no such option and ignores it.
        (r#""fields.v.default-value":"7""#, V1_0_0, false),
        (r#""fields.v.default-value":"7""#, V2_0_0, false),
        // Read as the release reads it (`scan::own_start::watermark`).
        (r#""scan.watermark":"1700000000000""#, V1_0_0, false),
        (r#""scan.watermark":"1700000000000""#, V2_0_0, false),
        // Read as the release reads it (`scan::own_start`).
        (
            r#""scan.file-creation-time-millis":"1700000000000""#,
            V2_0_0,
            false,
        ),
        (r#""log.scan":"latest-changes""#, V1_0_0, true),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write_schema(dir.path(), 0, options);
        let table = Table::open_as(dir.path(), line).unwrap();
        let result = table.check_read_options();
        assert_eq!(result.is_err(), refused, "{options} on {line:?}");
        if let Err(err) = result {
            assert!(matches!(err, Error::Unsupported { .. }), "{err}");
            let key = options.split('"').nth(1).unwrap();
            assert!(
                err.to_string().contains(&format!("table option `{key}=")),
                "{err}"
            );
            assert!(err.to_string().contains("schema-0"), "{err}");
        }
        // Planning refuses it too, before reading a manifest.
        if refused {
            let err = table.plan_batch(None).unwrap_err();
            assert!(matches!(err, Error::Unsupported { .. }), "{err}");
        }
    }
}

#[test]
fn open_errors_name_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let err = Table::open(&missing).unwrap_err();
    assert!(matches!(err, Error::NotATable { .. }), "{err}");
    assert!(err.to_string().contains("nope"));
    let err = Table::open(dir.path()).unwrap_err();
    assert!(matches!(err, Error::NotATable { .. }), "{err}");
    std::fs::create_dir(dir.path().join("schema")).unwrap();
    std::fs::write(dir.path().join("schema").join("schema-x"), "{}").unwrap();
    let err = Table::open(dir.path()).unwrap_err();
    assert!(matches!(err, Error::NotATable { .. }), "{err}");
    write_schema(dir.path(), 0, r#""bucket":"oops""#);
    let err = Table::open(dir.path()).unwrap_err();
    assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
    assert!(err.to_string().contains("schema-0"));
}

#[test]
fn open_reads_latest_schema_and_caches_others() {
    let dir = tempfile::tempdir().unwrap();
    write_schema(dir.path(), 0, r#""bucket":"2""#);
    write_schema(
        dir.path(),
        1,
        r#""bucket":"3","data-file.path-directory":"data/""#,
    );
    let t = Table::open(dir.path()).unwrap();
    assert_eq!(t.schema().id, 1);
    assert_eq!(t.options().bucket, 3);
    assert_eq!(t.schema_by_id(0).unwrap().id, 0);
    assert_eq!(t.schema_by_id(0).unwrap().option("bucket"), Some("2"));
    assert!(matches!(t.schema_by_id(7).unwrap_err(), Error::Io { .. }));
    assert_eq!(t.latest_snapshot_id().unwrap(), None);
    assert_eq!(t.earliest_snapshot_id().unwrap(), None);
    let root = t.root_string();
    assert_eq!(
        t.bucket_path("p=a/", 0),
        format!("{root}/data/p=a/bucket-0")
    );
    assert_eq!(t.bucket_path("", 2), format!("{root}/data/bucket-2"));
    assert!(t.plan_stream(1, 0).unwrap().is_empty());
}

#[test]
fn check_readable_reads_the_2_0_options_and_names_a_blob_column_it_refuses() {
    use PaimonRelease::*;
    for options in [
        // Row tracking and data evolution are read (1.3+), clustered primary-key files (1.4+), snapshot
        // ordering and shared-shredding maps (2.0): no longer refused.
        r#""row-tracking.enabled":"true""#,
        r#""fields.m.map.storage-layout":"shared-shredding""#,
        r#""pk-clustering-override":"true""#,
        r#""sequence.snapshot-ordering":"true""#,
        r#""data-evolution.enabled":"TRUE""#,
        r#""row-tracking.enabled":"false""#,
        r#""fields.m.map.storage-layout":"default""#,
        "",
    ] {
        let dir = tempfile::tempdir().unwrap();
        write_schema(dir.path(), 0, options);
        Table::open(dir.path()).unwrap().check_readable().unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("schema")).unwrap();
    std::fs::write(
        dir.path().join("schema/schema-3"),
        r#"{"version":3,"id":3,"fields":[{"id":0,"name":"k","type":"INT"},{"id":1,"name":"payload","type":"BLOB"}],
           "highestFieldId":1,"partitionKeys":[],"primaryKeys":[],"options":{}}"#,
    )
    .unwrap();
    // 2.0 reads a BLOB in the data file itself (descriptors or inline payloads) ...
    Table::open_as(dir.path(), V2_0_0)
        .unwrap()
        .check_readable()
        .unwrap();
    // ... 1.4 is modelled only for `.blob` files of a data-evolution table ...
    let err = Table::open_as(dir.path(), V1_4_2)
        .unwrap()
        .check_readable()
        .unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err}");
    assert!(err.to_string().contains("`payload`") && err.to_string().contains("BLOB"));
    // ... a `blob-view-field` column (references to another table's rows) is refused on 2.0 too ...
    std::fs::write(
        dir.path().join("schema/schema-4"),
        r#"{"version":3,"id":4,"fields":[{"id":0,"name":"k","type":"INT"},{"id":1,"name":"payload","type":"BLOB"}],
           "highestFieldId":1,"partitionKeys":[],"primaryKeys":[],"options":{"blob-view-field":"payload"}}"#,
    )
    .unwrap();
    let err = Table::open_as(dir.path(), V2_0_0)
        .unwrap()
        .check_readable()
        .unwrap_err();
    assert!(err.to_string().contains("blob-view-field"), "{err}");
    // ... and a release before 1.4.1 cannot open the schema at all.
    let Err(err) = Table::open_as(dir.path(), V1_3_1) else {
        panic!("1.3.1 does not know BLOB");
    };
    assert!(
        err.to_string().contains("Paimon 1.3.1 does not know"),
        "{err}"
    );
}

#[test]
fn data_evolution_files_this_reader_does_not_merge_are_named() {
    let mut f = crate::manifest::DataFileMeta {
        first_row_id: Some(0),
        write_cols: Some(vec!["a".into()]),
        ..crate::manifest::DataFileMeta::for_test("data-9.parquet")
    };
    use PaimonRelease::*;
    // Row ids and column files are read (merged by row-id range) from 1.3.0 on.
    assert_eq!(unsupported_data_evolution_file(&f, V2_0_0), None);
    assert_eq!(unsupported_data_evolution_file(&f, V1_3_1), None);
    // `.blob` column files are read (`crate::decode`'s blob format).
    f.file_name = "data-9.blob".into();
    assert_eq!(unsupported_data_evolution_file(&f, V2_0_0), None);
    f.file_name = "data-9.vector.lance".into();
    // Releases before 1.3.0 know no column files: their reader reads the file as a plain one. 2.0 chains
    // vector-store files, and so does 1.4 (`crate::decode`'s vector bunches); 1.3 knows none.
    assert_eq!(unsupported_data_evolution_file(&f, V1_2_0), None);
    assert_eq!(unsupported_data_evolution_file(&f, V2_0_0), None);
    assert_eq!(unsupported_data_evolution_file(&f, V1_4_2), None);
    assert!(unsupported_data_evolution_file(&f, V1_3_1)
        .unwrap()
        .contains("vector-store"));
    f.file_name = "data-9.parquet".into();
    // A `.row` sidecar is read only for scans pushed down to a few row ids: the data file is read.
    f.extra_files = vec!["data-9.parquet.row".into()];
    assert_eq!(unsupported_data_evolution_file(&f, V2_0_0), None);
    assert_eq!(unsupported_data_evolution_file(&f, V1_0_0), None);
}

#[test]
fn index_files_resolve_external_then_bucket_dir_then_index_dir() {
    let dir = tempfile::tempdir().unwrap();
    write_schema(dir.path(), 0, r#""bucket":"2""#);
    let t = Table::open_as(dir.path(), PaimonRelease::V1_3_1).unwrap();
    let root = t.root_string();
    // BinaryRow of one STRING partition value "a": arity 1, null bits, inline string (0x80 | len 1).
    let mut partition = 1i32.to_be_bytes().to_vec();
    partition.extend_from_slice(&[0; 8]);
    partition.extend_from_slice(&[b'a', 0, 0, 0, 0, 0, 0, 0x81]);
    let manifest = Path::new("/t/manifest/index-manifest-0");
    assert!(!t.index_file_in_data_file_dir());
    assert_eq!(
        t.index_file_path(&partition, 1, "index-u-0", None, manifest)
            .unwrap(),
        PathBuf::from(format!("{root}/index/index-u-0"))
    );
    assert_eq!(
        t.index_file_path(
            &partition,
            1,
            "index-u-0",
            Some("file:/elsewhere/index-u-0"),
            manifest
        )
        .unwrap(),
        PathBuf::from("/elsewhere/index-u-0")
    );
    let err = t
        .index_file_path(
            &partition,
            1,
            "index-u-0",
            Some("oss://b/index-u-0"),
            manifest,
        )
        .unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err}");
    assert!(err.to_string().contains("index-manifest-0"), "{err}");
    // 1.2.0 reads no `_EXTERNAL_PATH` of index files (apache/paimon#6132 is 1.3.0's): `<table>/index/`.
    assert_eq!(
        Table::open_as(dir.path(), PaimonRelease::V1_2_0)
            .unwrap()
            .index_file_path(
                &partition,
                1,
                "index-u-0",
                Some("file:/elsewhere/index-u-0"),
                manifest
            )
            .unwrap(),
        PathBuf::from(format!("{root}/index/index-u-0"))
    );

    let dir = tempfile::tempdir().unwrap();
    write_schema(dir.path(), 0, r#""index-file-in-data-file-dir":"true""#);
    // A release before 1.3.0 does not know the option.
    assert!(!Table::open_as(dir.path(), PaimonRelease::V1_2_0)
        .unwrap()
        .index_file_in_data_file_dir());
    let t = Table::open_as(dir.path(), PaimonRelease::V2_0_0).unwrap();
    let root = t.root_string();
    assert!(t.index_file_in_data_file_dir());
    assert_eq!(
        t.index_file_path(&partition, 1, "index-u-0", None, manifest)
            .unwrap(),
        PathBuf::from(format!("{root}/p=a/bucket-1/index-u-0"))
    );
}

#[test]
fn the_warehouse_of_a_table_is_above_its_database_directory() {
    // A filesystem catalog's layout: `<warehouse>/<db>.db/<table>`.
    assert_eq!(
        warehouse_of(Path::new("/wh/media.db/views")),
        PathBuf::from("/wh")
    );
    assert_eq!(
        warehouse_of(Path::new("s3://bucket/wh/db.db/t")),
        PathBuf::from("s3://bucket/wh")
    );
    // A table outside a database directory: its parent (a corpus's `paimon-2.0.0/table`).
    assert_eq!(
        warehouse_of(Path::new("corpora/c47/paimon-2.0.0/table")),
        PathBuf::from("corpora/c47/paimon-2.0.0")
    );
    assert_eq!(warehouse_of(Path::new("t")), PathBuf::from("."));
    assert_eq!(warehouse_of(Path::new("x.db/t")), PathBuf::from("x.db"));
}
