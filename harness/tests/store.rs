//! Tables in an object store (issue 34): every corpus put into a real S3-compatible server on loopback
//! (SeaweedFS, `scripts/s3-server`) is planned and read from the store exactly as from disk, by the native
//! reader and by the released reader in a replay of every mode; the commands only read it (a recording
//! proxy counts the S3 operations); and bad input against the live server exits 2 naming the URI and what
//! failed, without showing the secret key.

use crate::common;
use crate::s3server;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use harness::reader::{NativeTableReader, TableReader};
use native_reader::scan::ScanMode;
use native_reader::snapshot::SnapshotManager;
use s3server::S3Server;

/// The S3 operations a read-only command may send.
const READ_OPERATIONS: [&str; 3] = ["GetObject", "HeadObject", "ListObjectsV2"];

/// Each committed corpus's table and its URI in `server` (`s3://paimon-parity/corpora/<name>/table`).
/// Each corpus of this process's release line (`common::line_corpora`) but those holding absolute paths,
/// and its URI in `server` (`s3://paimon-parity/corpora-<release>/<name>/table`, the upstream tables of
/// its BLOB views beside it), uploaded once per process.
fn upload_corpora(server: &S3Server) -> Vec<(PathBuf, String)> {
    static UPLOADED: std::sync::OnceLock<Vec<(PathBuf, String)>> = std::sync::OnceLock::new();
    UPLOADED
        .get_or_init(|| {
            let release = common::line_version();
            common::line_corpora(&release)
                .into_iter()
                // A table holding absolute paths (BLOB descriptors, external paths) points at files on
                // this disk wherever it is copied: not a store's table.
                .filter(|dir| !common::holds_absolute_paths(dir))
                // A table whose own `scan.snapshot-id` fails its `latest-full` scan on both readers (the
                // release's validation, C57; a tag's or watermark's, its streams, C58 and C71): `--mode all`
                // exits 2 on it, from disk as from the store.
                .filter(|dir| !own_start_option(&dir.join("table")))
                // A key whose records tie on their sequence under `sort-engine=min-heap` (C65), refused by
                // name by the native reader: `--mode all` exits 2 on it, from disk as from the store.
                .filter(|dir| {
                    !dir.to_string_lossy()
                        .contains("c65-sort-engine-min-heap-tie")
                })
                // A table with a data file cut short behind the writer's back (`damage-file`, C53 and C54):
                // the released paimon-s3 reader never ends on it, skipping towards the footer of the
                // manifest's file size past the object's end (`HadoopCompliantFileIO$HadoopSeekableInputStream
                // .skipFully`, whose `skip` returns 0 at the end).
                .filter(|dir| {
                    !std::fs::read_to_string(dir.join("scenario.json"))
                        .is_ok_and(|s| s.contains(r#""step": "damage-file""#))
                })
                .map(|dir| {
                    let table = dir.join("table");
                    let name = common::corpus_name(&dir);
                    let uri = server.put_tree(&table, &format!("corpora-{release}/{name}/table"));
                    // The upstream tables of its BLOB views (`<db>.db/<t>` beside `table`), in the
                    // same warehouse in the store.
                    for upstream in std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()) {
                        if upstream.is_dir() && upstream.extension().is_some_and(|e| e == "db") {
                            let db = upstream.file_name().unwrap().to_string_lossy().into_owned();
                            server.put_tree(&upstream, &format!("corpora-{release}/{name}/{db}"));
                        }
                    }
                    (table, uri)
                })
                .collect()
        })
        .clone()
}

/// Whether the latest schema of `table` sets its own `scan.snapshot-id`, `scan.tag-name` or `scan.watermark`.
fn own_start_option(table: &Path) -> bool {
    let Ok(schemas) = std::fs::read_dir(table.join("schema")) else {
        return false;
    };
    let latest = schemas
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let n = p
                .file_name()?
                .to_str()?
                .strip_prefix("schema-")?
                .parse::<u64>()
                .ok()?;
            Some((n, p))
        })
        .max();
    latest.is_some_and(|(_, path)| {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        [
            "\"scan.snapshot-id\"",
            "\"scan.tag-name\"",
            "\"scan.watermark\"",
        ]
        .iter()
        .any(|key| text.contains(key))
    })
}

/// Every split `reader` plans for `table` in `mode` up to `end`, as JSON with the table's location
/// replaced by `TABLE`, and each split's rows as Arrow's pretty print.
fn plan_and_read(
    reader: &NativeTableReader,
    table: &Path,
    mode: ScanMode,
    end: i64,
) -> Result<Vec<(String, String)>, String> {
    let location = table.to_str().unwrap();
    let planned = reader
        .plan(table, mode, end)
        .map_err(|e| e.to_string().replace(location, "TABLE"))?;
    planned
        .iter()
        .map(|p| {
            let split = serde_json::to_string(&p.split)
                .unwrap()
                .replace(location, "TABLE");
            let batches = reader
                .read_split(table, p)
                .and_then(|b| b.collect::<harness::Result<Vec<_>>>())
                .map_err(|e| e.to_string().replace(location, "TABLE"))?;
            let rows = arrow::util::pretty::pretty_format_batches(&batches)
                .map_err(|e| e.to_string())?
                .to_string();
            Ok((split, rows))
        })
        .collect()
}

#[test]
fn every_corpus_plans_and_reads_the_same_from_the_store_as_from_disk() {
    let server = S3Server::shared();
    let proxy = server.proxy();
    let corpora = upload_corpora(server);
    native_reader::fileio::configure(&proxy.file_io_options());
    let reader = common::native();
    let before = native_reader::fileio::store_requests();
    let mut compared = 0;
    let mut splits = 0;
    for (disk, uri) in corpora {
        let store = PathBuf::from(&uri);
        let end = SnapshotManager::new(&disk)
            .latest_snapshot_id()
            .unwrap()
            .expect("a corpus has snapshots");
        assert_eq!(
            SnapshotManager::new(&store).latest_snapshot_id().unwrap(),
            Some(end),
            "{uri}"
        );
        for mode in [
            ScanMode::Stream { from_snapshot: 1 },
            ScanMode::StreamFull { from_snapshot: 1 },
            ScanMode::LatestFull,
            ScanMode::Batch { snapshot: None },
        ] {
            let from_disk = plan_and_read(&reader, &disk, mode, end);
            let from_store = plan_and_read(&reader, &store, mode, end);
            assert_eq!(from_store, from_disk, "{uri} {mode}");
            if let Ok(s) = from_disk {
                splits += s.len();
                compared += 1;
            }
        }
    }
    let requests = native_reader::fileio::store_requests().since(&before);
    eprintln!("{compared} scans, {splits} splits from the store: {requests:?}");
    assert!(compared >= 4 * 30 && splits > 500, "{compared} {splits}");
    // What the reader counted is what the server answered, and only reads.
    let ops = proxy.operations_since(0);
    assert!(
        ops.keys().all(|op| READ_OPERATIONS.contains(&op.as_str())),
        "{ops:?}"
    );
    assert_eq!(
        ops.get("GetObject").copied().unwrap_or(0) as u64,
        requests.get,
        "{ops:?}"
    );
}

#[test]
fn inspect_and_audit_only_read_the_store_and_never_show_the_secret() {
    let server = S3Server::shared();
    let proxy = server.proxy();
    let table = common::corpus("c00-lookup-fault").join("table");
    let uri = server.put_tree(&table, "inspect/wh/db.db/c00");
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("audit.json");
    let mut checked = BTreeMap::new();
    for (command, want) in [("inspect", 0), ("audit", 1)] {
        let before = proxy.request_count();
        let mut args = vec![command.to_string(), uri.clone()];
        args.extend(proxy.option_args());
        if command == "audit" {
            args.extend(["--json".to_string(), common::path_str(&json).to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (out, err) = common::expect_exit(want, &args);
        let shown = format!(
            "{out}{err}{}",
            std::fs::read_to_string(&json).unwrap_or_default()
        );
        assert!(
            !shown.contains(server.secret()),
            "{command} showed the secret"
        );
        let ops = proxy.operations_since(before);
        assert!(
            ops.keys().all(|op| READ_OPERATIONS.contains(&op.as_str())),
            "{command}: {ops:?}"
        );
        assert!(ops.get("GetObject").copied().unwrap_or(0) > 0, "{ops:?}");
        checked.insert(command, ops);
    }
    // The audit found the loss the corpus holds, from the store.
    let audit = common::read_json(&json);
    assert_eq!(audit["audit"]["verdict"], "changelog-lost", "{audit}");
    eprintln!("requests by operation: {checked:?}");
}

#[test]
fn bad_store_input_exits_2_naming_the_uri_and_what_failed() {
    let server = S3Server::shared();
    let table = common::corpus("c01-key-order").join("table");
    let uri = server.put_tree(&table, "bad/wh/db.db/t");
    let endpoint = format!("s3.endpoint=http://127.0.0.1:{}", server.port());
    let key = format!("s3.access-key={}", s3server::ACCESS_KEY);
    let secret = format!("s3.secret-key={}", server.secret());
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let unreachable = format!("s3.endpoint=http://127.0.0.1:{closed}");
    // A store that refuses the LIST a table's schema/ needs (a policy without s3:ListBucket), and one
    // that throttles every request.
    let no_list = s3server::faulty::FaultyProxy::start(
        server.port(),
        std::sync::Arc::new(|_: &str, target: &str| {
            target
                .contains("list-type=2")
                .then_some((403, "AccessDenied"))
        }),
    );
    let throttled = s3server::faulty::FaultyProxy::start(
        server.port(),
        std::sync::Arc::new(|_: &str, _: &str| Some((503, "SlowDown"))),
    );
    let cases: Vec<(&str, String, Vec<String>, &str)> = vec![
        (
            "wrong credentials",
            uri.clone(),
            vec![endpoint.clone(), key.clone(), "s3.secret-key=wrong".into()],
            "the credentials are wrong (SignatureDoesNotMatch)",
        ),
        (
            "no credentials",
            uri.clone(),
            vec![endpoint.clone()],
            "no credentials were given",
        ),
        (
            "a missing bucket",
            "s3://no-such-bucket/wh/db.db/t".into(),
            vec![endpoint.clone(), key.clone(), secret.clone()],
            "the bucket does not exist (NoSuchBucket)",
        ),
        (
            "a missing prefix",
            format!("s3://{}/bad/wh/db.db/missing", s3server::BUCKET),
            vec![endpoint.clone(), key.clone(), secret.clone()],
            "not a Paimon table: no schema/ under this prefix",
        ),
        (
            "a warehouse",
            format!("s3://{}/bad/wh", s3server::BUCKET),
            vec![endpoint.clone(), key.clone(), secret.clone()],
            "it holds 1 table(s), give one of them: db.t",
        ),
        (
            "a 403 on the listing",
            uri.clone(),
            vec![
                format!("s3.endpoint={}", no_list.endpoint()),
                key.clone(),
                secret.clone(),
            ],
            "access denied (AccessDenied)",
        ),
        (
            "throttling that outlasts the retries",
            uri.clone(),
            vec![
                format!("s3.endpoint={}", throttled.endpoint()),
                key.clone(),
                secret.clone(),
                "fs.s3a.attempts.maximum=2".into(),
            ],
            "throttled, still after the retries",
        ),
        (
            "an unreachable endpoint",
            uri.clone(),
            vec![
                unreachable,
                key.clone(),
                secret.clone(),
                "fs.s3a.attempts.maximum=1".into(),
            ],
            "cannot connect",
        ),
    ];
    for (case, location, options, want) in cases {
        let mut args = vec!["inspect".to_string(), location.clone()];
        for o in options {
            args.extend(["--option".to_string(), o]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let started = std::time::Instant::now();
        let (code, out, err) = common::paimon_parity(&args);
        assert_eq!(code, 2, "{case}: {out}{err}");
        assert!(
            err.contains(&location) && err.contains(want),
            "{case}: {err}"
        );
        assert!(!err.contains(server.secret()), "{case}: {err}");
        eprintln!(
            "{case}: exit {code} in {:.2} s: {}",
            started.elapsed().as_secs_f64(),
            err.trim()
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "{case} took {:?}",
            started.elapsed()
        );
    }
}

#[test]
fn bench_reads_the_store_copy_beside_the_disk_and_counts_its_requests() {
    let server = S3Server::shared();
    let proxy = server.proxy();
    let table = common::corpus("c05-types-parquet").join("table");
    let uri = server.put_tree(&table, "bench/wh/db.db/bench");
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bench.json");
    let mut args: Vec<String> = [
        "bench",
        common::path_str(&table),
        "--store",
        &uri,
        "--native-only",
        "--no-rss",
        "--samples",
        "1",
        "--json",
        common::path_str(&json),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(proxy.option_args());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let before = proxy.request_count();
    common::expect_exit(0, &args);
    let report = common::read_json(&json);
    let kinds = report["kinds"].as_array().unwrap();
    assert!(!kinds.is_empty(), "{report}");
    for kind in kinds {
        let names: Vec<&str> = kind["measurements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .collect();
        assert!(names.contains(&"native-1t-store"), "{names:?}");
        let native = kind["measurements"][0]["rows"].as_u64();
        let store = kind["measurements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == "native-1t-store")
            .unwrap()["rows"]
            .as_u64();
        assert_eq!(native, store, "{kind}");
        // A Parquet data file read whole is one GET (the target is at most 3).
        let requests = &kind["store_requests"];
        assert_eq!(requests["gets_per_data_file"], 1.0, "{requests}");
        assert_eq!(requests["total"]["head"], 0, "{requests}");
        assert!(
            kind["ratios"]["native-1t vs native-1t-store"]
                .as_f64()
                .unwrap()
                > 0.0
        );
    }
    let ops = proxy.operations_since(before);
    assert!(
        ops.keys().all(|op| READ_OPERATIONS.contains(&op.as_str())),
        "{ops:?}"
    );
}

/// A replay report's runs without what names the location or the run: tables, timings, paths.
fn runs_without_locations(report: &serde_json::Value, locations: &[(String, String)]) -> String {
    let mut text = common::without_timings(&report["runs"]).to_string();
    for (from, to) in locations {
        text = text.replace(from.as_str(), to.as_str());
    }
    text
}

/// The plugin file format whose released reader is given none of the store's options, when the corpus at
/// `dir` writes one: `lance` (its scenario's `file.format`, or `vector.file.format` for its vector-store
/// files) or `vortex`.
fn storeless_format(dir: &Path) -> Option<&'static str> {
    let scenario = std::fs::read(dir.join("scenario.json")).ok()?;
    let v = serde_json::from_slice::<serde_json::Value>(&scenario).ok()?;
    let options = &v["table"]["options"];
    if options["file.format"] == "lance" || options["vector.file.format"] == "lance" {
        Some("lance")
    } else if options["file.format"] == "vortex" {
        Some("vortex")
    } else {
        None
    }
}

#[test]
fn a_replay_of_every_corpus_from_the_store_equals_the_replay_from_disk_in_every_mode() {
    let server = S3Server::shared();
    let proxy = server.proxy();
    // The released paimon-lance and paimon-vortex hand their native libraries none of the store's options
    // (`LanceUtils.toLanceSpecified` and `VortexUtils.toVortexSpecified` pass them for `oss` only), so the
    // released reader cannot read those files from this store; such tables are replayed from the store at
    // the end, where that failure is asserted.
    let (plugins, corpora): (Vec<_>, Vec<_>) = upload_corpora(server)
        .into_iter()
        .partition(|(dir, _)| storeless_format(dir.parent().unwrap_or(dir)).is_some());
    let dir = tempfile::tempdir().unwrap();
    let replay = |tables: Vec<String>, json: &Path, store: bool| {
        let mut args = vec!["replay".to_string()];
        args.extend(tables);
        args.extend(["--mode", "all", "--json"].map(String::from));
        args.push(common::path_str(json).to_string());
        if store {
            args.extend(proxy.option_args());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = common::paimon_parity(&args);
        assert!(code == 0 || code == 3, "exit {code}\n{out}\n{err}");
        (code, common::read_json(json))
    };
    let disk_json = dir.path().join("disk.json");
    let store_json = dir.path().join("store.json");
    let (disk_code, disk) = replay(
        corpora
            .iter()
            .map(|(d, _)| common::path_str(d).to_string())
            .collect(),
        &disk_json,
        false,
    );
    let before = proxy.request_count();
    let (store_code, store) = replay(
        corpora.iter().map(|(_, u)| u.clone()).collect(),
        &store_json,
        true,
    );
    assert_eq!(store_code, disk_code);
    let locations: Vec<(String, String)> = corpora
        .iter()
        .map(|(d, u)| (u.clone(), common::path_str(d).to_string()))
        .collect();
    let runs = store["runs"].as_array().unwrap().len();
    assert_eq!(runs, 4 * corpora.len(), "{store}");
    assert_eq!(
        runs_without_locations(&store, &locations),
        runs_without_locations(&disk, &[]),
        "the replay from the store differs from the replay from disk"
    );
    let ops = proxy.operations_since(before);
    eprintln!(
        "{} corpora x 4 modes replayed from the store by both readers, as from disk; requests: {ops:?}",
        corpora.len()
    );
    assert!(
        ops.keys().all(|op| READ_OPERATIONS.contains(&op.as_str())),
        "{ops:?}"
    );
    assert!(
        !std::fs::read_to_string(&store_json)
            .unwrap()
            .contains(server.secret()),
        "the report shows the secret"
    );
    for (dir, uri) in &plugins {
        // Lance fails on the region, Vortex's object store on the credentials it looks for instead.
        let cause = match storeless_format(dir.parent().unwrap_or(dir)) {
            Some("lance") => "Failed to resolve region",
            _ => "Vortex Error: Object store error",
        };
        let mut args = vec!["replay", uri.as_str(), "--mode", "batch"];
        let options = proxy.option_args();
        args.extend(options.iter().map(String::as_str));
        let (code, out, err) = common::paimon_parity(&args);
        assert_eq!(code, 2, "{out}\n{err}");
        assert!(
            out.contains("stock reader: java.io.IOException: Failed to create FileRecordReader")
                && out.contains(cause)
                && out.contains("the native reader reads the split"),
            "{out}\n{err}"
        );
    }
}

#[test]
fn a_bundle_retained_from_the_store_holds_what_the_disk_bundle_holds_and_reproduces() {
    let server = S3Server::shared();
    let proxy = server.proxy();
    let table = common::corpus("c00-lookup-fault").join("table");
    let uri = server.put_tree(&table, "retain/wh/db.db/t");
    let dir = tempfile::tempdir().unwrap();
    // retain with no report: its replay and audit run first, as children given the run's options.
    let retain = |location: &str, name: &str, store: bool| {
        let bundle = dir.path().join(format!("{name}.tar.zst"));
        let json = dir.path().join(format!("{name}.json"));
        let mut args = vec![
            "retain".to_string(),
            location.to_string(),
            "--out".into(),
            common::path_str(&bundle).into(),
            "--files".into(),
            "findings".into(),
            "--json".into(),
            common::path_str(&json).into(),
        ];
        if store {
            args.extend(proxy.option_args());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (_, err) = common::expect_exit(0, &args);
        assert!(!err.contains(server.secret()), "{err}");
        let text = std::fs::read_to_string(&json).unwrap();
        assert!(
            !text.contains(server.secret()),
            "the report shows the secret"
        );
        (bundle, common::read_json(&json))
    };
    let (_, disk) = retain(common::path_str(&table), "disk", false);
    let before = proxy.request_count();
    let (bundle, store) = retain(&uri, "store", true);
    // The finding C00 writes (from its scenario: key 1's final value (1, 20) never reached the stream), found
    // in the store as on disk, and the same files, byte for byte (digests), kept and left out.
    let finding = &store["bundle"]["manifest"]["finding"];
    assert_eq!(finding["verdict"], "changelog-lost");
    let key = &finding["first_difference_fields"]["key"];
    assert_eq!(
        (&key["key"], &key["stream_value"], &key["table_value"]),
        (&"k=1".into(), &"(1, 10)".into(), &"(1, 20)".into())
    );
    for part in ["files", "left_out"] {
        assert_eq!(
            store["bundle"]["manifest"][part], disk["bundle"]["manifest"][part],
            "{part}"
        );
    }
    assert!(!store["bundle"]["manifest"]["files"]
        .as_array()
        .unwrap()
        .is_empty());
    let ops = proxy.operations_since(before);
    assert!(ops.contains_key("GetObject"), "{ops:?}");
    assert!(
        ops.keys().all(|op| READ_OPERATIONS.contains(&op.as_str())),
        "retain only reads the store: {ops:?}"
    );
    // The bundle runs anywhere: reproduced from local disk, without the store.
    let (out, _) = common::expect_exit(0, &["reproduce", common::path_str(&bundle)]);
    assert!(
        out.contains("REPRODUCED: same verdict, same first difference"),
        "{out}"
    );
}

#[test]
fn the_audit_finds_files_never_committed_in_the_store_as_on_disk() {
    let server = S3Server::shared();
    let proxy = server.proxy();
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    common::dropped_commit_2(&table);
    let uri = server.put_tree(&table, "uncommitted/wh/db.db/t");
    let audit = |location: &str, json: &Path, store: bool| {
        let mut args = vec![
            "audit".to_string(),
            location.to_string(),
            "--json".into(),
            common::path_str(json).into(),
        ];
        if store {
            args.extend(proxy.option_args());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        common::expect_exit(1, &args);
        let mut part = common::read_json(json)["audit"]["uncommitted"].clone();
        for f in part["files"].as_array_mut().unwrap() {
            f.as_object_mut().unwrap().remove("modified");
        }
        part.to_string()
    };
    let disk = audit(
        common::path_str(&table),
        &dir.path().join("disk.json"),
        false,
    );
    let before = proxy.request_count();
    let store = audit(&uri, &dir.path().join("store.json"), true);
    assert_eq!(store.replace(&uri, common::path_str(&table)), disk);
    // From the scenario (as harness/tests/audit_uncommitted.rs): commit 2's three files, found in the store.
    assert!(disk.contains("rows-the-table-lacks"), "{disk}");
    assert!(!disk.contains("\"skipped\":\""), "{disk}");
    let ops = proxy.operations_since(before);
    assert!(
        ops.keys().all(|op| READ_OPERATIONS.contains(&op.as_str())),
        "{ops:?}"
    );
}
