//! What the released writer writes into an object store (issue 34), on a real S3-compatible server on
//! loopback (SeaweedFS, `scripts/s3-server`): a corpus generated into the store, and the crash-point sweep of
//! the C00 scenario with each point's table in its own prefix, the faulty `FileIO` wrapping the store's
//! released `FileIO`. Points are named by the store's
//! operations; the store-only faults are a COPY whose acknowledgement is lost, a temporary snapshot object
//! left behind, and a stale `LATEST` hint. Expected classes come from the scenario's writes (commit 1 writes
//! (1, 10), commit 2 writes (1, 20)) and from what each point leaves durable.

use crate::common;
use crate::s3server;

use serde_json::Value;

use s3server::S3Server;

/// The store operations a point may be named by.
const STORE_OPERATIONS: [&str; 6] = ["HEAD", "GET", "PUT", "COPY", "DELETE", "LIST"];

/// Runs `sweep` of C00's control scenario with its points in the store, faults `modes` at `ops`
/// (`1000`: past the commit, the counting run alone); returns the JSON report's `sweep`.
fn sweep(proxy: &s3server::Proxy, name: &str, modes: &str, ops: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("sweep.json");
    let scenario = common::repo_root().join("corpora/c00-full-compaction-control/scenario.json");
    let mut args = vec![
        "sweep".to_string(),
        common::path_str(&scenario).into(),
        "--work".into(),
        format!("s3://{}/sweeps/{name}", s3server::BUCKET),
        "--fault".into(),
        modes.into(),
        "--ops".into(),
        ops.into(),
        "--threads".into(),
        "2".into(),
        "--json".into(),
        common::path_str(&json).into(),
    ];
    args.extend(proxy.option_args());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = common::paimon_parity(&args);
    assert!(matches!(code, 0 | 1 | 3), "exit {code}: {out}\n{err}");
    let text = std::fs::read_to_string(&json).unwrap();
    let server = S3Server::shared();
    assert!(
        !text.contains(server.secret()),
        "the report shows the secret"
    );
    assert!(!err.contains(server.secret()) && !out.contains(server.secret()));
    serde_json::from_str::<Value>(&text).unwrap()["sweep"].clone()
}

/// The index of the COPY publishing the `kind` snapshot.
fn publication(ops: &[Value], kind: &str) -> usize {
    ops.iter()
        .find(|o| o["op"] == "COPY" && o["publishes"].as_str().is_some_and(|p| p.starts_with(kind)))
        .unwrap_or_else(|| panic!("no {kind} publication in {ops:?}"))["index"]
        .as_u64()
        .unwrap() as usize
}

fn op(ops: &[Value], index: usize) -> (String, String) {
    let o = &ops[index - 1];
    (
        o["op"].as_str().unwrap().to_owned(),
        o["path"].as_str().unwrap().to_owned(),
    )
}

fn point<'a>(sweep: &'a Value, mode: &str, at: usize) -> &'a Value {
    sweep["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["mode"] == mode && p["op_index"] == at)
        .unwrap_or_else(|| panic!("no point {mode} {at}"))
}

fn durable_kinds(p: &Value) -> Vec<String> {
    p["durable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_sweep_in_the_store_names_store_operations_and_finds_the_store_only_failures() {
    let server = S3Server::shared();
    let proxy = server.proxy();
    let release = common::line_version();

    // The counting run: every operation is a store operation, and a snapshot is published as S3A renames,
    // a PUT of the temporary object, the COPY onto snapshot-N, the DELETE of the temporary object.
    let counted = sweep(&proxy, &format!("count-{release}"), "crash", "1000");
    let ops = counted["ops"].as_array().unwrap().clone();
    assert!(ops.len() > 20, "{ops:?}");
    for o in &ops {
        assert!(STORE_OPERATIONS.contains(&o["op"].as_str().unwrap()), "{o}");
    }
    let (append, compact) = (publication(&ops, "APPEND"), publication(&ops, "COMPACT"));
    assert!(append < compact);
    for p in [append, compact] {
        let (copy, snapshot) = op(&ops, p);
        let id = snapshot.strip_prefix("snapshot/snapshot-").unwrap();
        let tmp = format!("snapshot/.snapshot-{id}.<uuid>.tmp");
        assert_eq!(copy, "COPY");
        assert_eq!(op(&ops, p - 1), ("PUT".to_owned(), tmp.clone()));
        assert_eq!(op(&ops, p + 1), ("DELETE".to_owned(), tmp));
    }
    // The names are what the server was asked: COPY and DELETE requests reached it.
    let seen = proxy.operations_since(0);
    for request in ["CopyObject", "DeleteObject", "PutObject"] {
        assert!(seen.contains_key(request), "{request}: {seen:?}");
    }
    // The last hint written by the commit: `PUT snapshot/LATEST` after the COMPACT publication.
    let latest = (compact..=ops.len())
        .find(|&i| op(&ops, i) == ("PUT".to_owned(), "snapshot/LATEST".to_owned()))
        .expect("the commit writes the LATEST hint after its COMPACT snapshot");

    // Crashes around the publications.
    let crash = sweep(
        &proxy,
        &format!("crash-{release}"),
        "crash",
        &format!(
            "{},{append},{},{compact},{}",
            append - 1,
            append + 1,
            compact + 1
        ),
    );
    // Before the APPEND snapshot is durable nothing of commit 2 is: the recovery commits it whole.
    for at in [append - 1, append] {
        assert_eq!(point(&crash, "crash", at)["class"], "OK", "crash at {at}");
    }
    // The crash between the COPY and the DELETE of the APPEND snapshot: the snapshot is published, its
    // temporary object is left behind, and the COMPACT half is never committed (the split-commit loss).
    let left_behind = point(&crash, "crash", append + 1);
    assert_eq!(left_behind["class"], "CHANGELOG-LOST");
    assert_eq!(durable_kinds(left_behind), ["APPEND"]);
    assert_eq!(left_behind["evidence"]["tmp_files"], 1);
    assert_eq!(
        left_behind["evidence"]["batch"],
        serde_json::json!(["(1, 20)"])
    );
    assert_eq!(
        left_behind["evidence"]["changelog"]["(1)"],
        serde_json::json!(["(1, 10)"])
    );
    assert_eq!(left_behind["evidence"]["audit"], "changelog-lost");
    assert_eq!(left_behind["evidence"]["parity"], "identical");
    assert_eq!(point(&crash, "crash", compact)["class"], "CHANGELOG-LOST");
    // The crash after the COMPACT COPY: everything is durable, the temporary object stays.
    let after = point(&crash, "crash", compact + 1);
    assert_eq!(after["class"], "SPURIOUS-FAILURE");
    assert_eq!(durable_kinds(after), ["APPEND", "COMPACT"]);
    assert_eq!(after["evidence"]["tmp_files"], 1);

    // The COPY whose acknowledgement is lost: the snapshot is published, the committer is told it failed.
    // 2.0.0 checks whether the snapshot it meant to write is there when the publication fails
    // (apache/paimon#6778), finds it, and goes on to the COMPACT half; 1.x treats the commit as failed, its
    // recovery drops the whole identifier, and the COMPACT half is lost.
    let lost_ack = sweep(
        &proxy,
        &format!("lost-ack-{release}"),
        "fail-after",
        &format!("{append},{compact}"),
    );
    let at_append = point(&lost_ack, "fail-after", append);
    if release.starts_with("1.") {
        assert_eq!(at_append["class"], "CHANGELOG-LOST", "{at_append}");
        assert_eq!(durable_kinds(at_append), ["APPEND"]);
        assert!(at_append["commit_error"].is_string(), "{at_append}");
        assert_eq!(
            at_append["evidence"]["tmp_files"], 0,
            "deleted after the failure"
        );
    } else {
        assert_eq!(at_append["class"], "ABSORBED", "{at_append}");
        assert_eq!(durable_kinds(at_append), ["APPEND", "COMPACT"]);
        assert!(at_append["commit_error"].is_null(), "{at_append}");
    }
    let at_compact = point(&lost_ack, "fail-after", compact);
    assert_eq!(durable_kinds(at_compact), ["APPEND", "COMPACT"]);
    assert_eq!(
        at_compact["class"],
        if release.starts_with("1.") {
            "SPURIOUS-FAILURE"
        } else {
            "ABSORBED"
        }
    );

    // The LATEST hint: a PUT that fails once is retried by the committer (the hint is right at the end); a
    // crash there leaves it stale, one below the last snapshot, and readers probe past it and read everything.
    let hint = sweep(
        &proxy,
        &format!("hint-{release}"),
        "crash,fail",
        &latest.to_string(),
    );
    for (mode, class, behind) in [("fail", "ABSORBED", 0), ("crash", "SPURIOUS-FAILURE", 1)] {
        let p = point(&hint, mode, latest);
        assert_eq!(p["class"], class, "{p}");
        assert_eq!(durable_kinds(p), ["APPEND", "COMPACT"]);
        assert_eq!(p["evidence"]["parity"], "identical");
        assert_eq!(
            p["evidence"]["changelog"],
            serde_json::json!({}),
            "no key differs"
        );
        let last = p["durable"][1]["id"].as_i64().unwrap();
        assert_eq!(p["evidence"]["latest_hint"], last - behind, "{mode}");
    }

    // Every run's prefix (`paimon-parity-sweep-<pid>`, the points' tables below it) was removed at its end:
    // no object is left under --work.
    for name in ["count", "crash", "lost-ack", "hint"] {
        let left = server.objects_under(&format!("sweeps/{name}-{release}"));
        assert!(left.is_empty(), "{name}: {left:?}");
    }
}

/// `corpus generate --out s3://…`: the released writer writes the table, `scenario.json` and `case.json` into
/// the store; the snapshots and expectations equal the committed corpus this release wrote on disk, and the
/// replay from the store is identical in every mode.
#[test]
fn a_corpus_generated_into_the_store_is_the_one_written_on_disk() {
    let server = S3Server::shared();
    let proxy = server.proxy();
    let release = common::line_version();
    let name = "c01-key-order";
    // The corpus this release wrote on disk (committed, or generated by the tests into the target directory).
    let committed = common::line_corpora(&release)
        .into_iter()
        .find(|d| common::corpus_name(d) == name)
        .expect("this release writes c01");
    let out = format!("s3://{}/generated-{release}/{name}", s3server::BUCKET);
    // `paimon-parity ARGS` with the store's options, expecting exit `code`: (stdout, stderr).
    let run = |args: &[&str], code: i32| {
        let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        args.extend(proxy.option_args());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        common::expect_exit(code, &args)
    };
    let generate = ["corpus", "generate", name, "--out", out.as_str()];
    let (stdout, _) = run(&generate, 0);
    assert!(stdout.contains(&format!("{out}/case.json")), "{stdout}");
    let objects = server.objects_under(&format!("generated-{release}/{name}"));
    for file in [
        "case.json",
        "scenario.json",
        "table/schema/schema-0",
        "table/snapshot/LATEST",
    ] {
        assert!(
            objects
                .iter()
                .any(|o| o.ends_with(&format!("{name}/{file}"))),
            "{file}: {objects:?}"
        );
    }
    // The case the store holds, read back through the native reader's FileIO.
    native_reader::fileio::configure(&proxy.file_io_options());
    let case: Value = serde_json::from_slice(
        &native_reader::fileio::read(std::path::Path::new(&format!("{out}/case.json"))).unwrap(),
    )
    .unwrap();
    let on_disk = common::read_json(&committed.join("case.json"));
    assert_eq!(on_disk["paimon_version"], release.as_str());
    for part in [
        "paimon_version",
        "snapshots",
        "commits",
        "expected",
        "schema",
        "options",
    ] {
        assert_eq!(case[part], on_disk[part], "{part}");
    }
    let (stdout, _) = run(&["replay", &format!("{out}/table"), "--mode", "all"], 0);
    assert!(stdout.contains("IDENTICAL"), "{stdout}");
    // Generating again never overwrites the table.
    let (_, err) = run(&generate, 2);
    assert!(err.contains("already exists"), "{err}");
    // Unless asked to replace it: the table is written again (a new commit time in the snapshots).
    let snapshot = format!("{out}/table/snapshot/snapshot-1");
    let before = native_reader::fileio::read(std::path::Path::new(&snapshot)).unwrap();
    let mut replace = generate.to_vec();
    replace.push("--replace");
    run(&replace, 0);
    let after = native_reader::fileio::read(std::path::Path::new(&snapshot)).unwrap();
    assert_ne!(before, after, "--replace wrote the table again");
}

/// `upgrade-matrix --store s3://…`: release 1.0.0 and the newest built release each write `c01-key-order`
/// into the store (`<store>/<release>/c01-key-order/table`), and every pair replays the tables from the
/// store: 1.0.0's table read by the newest release through the native reader and release 1.0.0's own reader
/// (both given the run's options in a file, never on a command line). c01 is a deduplicate table both
/// releases read alike (its committed `case.json` of each release records the same batch and stream), so
/// every cell is identical. A second run reuses the tables in the store. Runs once, in the 1.0.0 pass of the
/// tests (it spans the releases itself).
#[test]
fn an_upgrade_matrix_writes_its_corpora_into_the_store_and_reads_them_from_it() {
    if common::line_version() != "1.0.0" {
        eprintln!("left out: the matrix spans the releases and runs in the 1.0.0 pass");
        return;
    }
    let newest = jvm_bridge::jvm::built_versions()
        .1
        .into_iter()
        .filter(|v| v != "1.0.0")
        .max_by_key(|v| native_reader::PaimonRelease::parse(v).ok())
        .expect("a release besides 1.0.0 is built (scripts/build-java --paimon-version 2.0.0)");
    let server = S3Server::shared();
    let proxy = server.proxy();
    let prefix = format!("matrix-{}", std::process::id());
    let store = format!("s3://{}/{prefix}", s3server::BUCKET);
    let work = tempfile::tempdir().unwrap();
    let run = |releases: &str, json: &std::path::Path| {
        let mut args: Vec<String> = [
            "upgrade-matrix",
            "c01-key-order",
            "--releases",
            releases,
            "--mode",
            "batch,stream",
            "--store",
            &store,
            "--work",
            common::path_str(work.path()),
            "--json",
            common::path_str(json),
        ]
        .iter()
        .map(|a| a.to_string())
        .collect();
        args.extend(proxy.option_args());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (stdout, _) = common::expect_exit(0, &args);
        let text = std::fs::read_to_string(json).unwrap();
        assert!(
            !text.contains(server.secret()),
            "the report shows the secret"
        );
        assert!(!stdout.contains(server.secret()));
        (stdout, serde_json::from_str::<Value>(&text).unwrap())
    };
    // A store that cannot be listed stops the matrix before any child starts, naming it.
    let mut bad: Vec<String> = ["upgrade-matrix", "c01-key-order", "--releases", "1.0.0"]
        .iter()
        .map(|a| a.to_string())
        .chain(["--store".into(), "s3://no-such-bucket-here/m".into()])
        .chain(["--work".into(), common::path_str(work.path()).into()])
        .collect();
    bad.extend(proxy.option_args());
    let bad: Vec<&str> = bad.iter().map(String::as_str).collect();
    let (_, err) = common::expect_exit(2, &bad);
    assert!(
        err.contains("s3://no-such-bucket-here/m") && err.contains("the bucket does not exist"),
        "{err}"
    );
    let json = work.path().join("matrix.json");
    let (stdout, report) = run(&format!("1.0.0,{newest}"), &json);
    assert!(stdout.contains(&store), "{stdout}");
    let m = &report["upgrade_matrix"];
    assert_eq!(m["store"], store.as_str());
    for release in ["1.0.0", newest.as_str()] {
        let corpus = m["corpora"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["release"] == release)
            .unwrap();
        assert_eq!(corpus["origin"], "generated", "{corpus}");
        assert_eq!(
            corpus["table"],
            format!("{store}/{release}/c01-key-order/table").as_str()
        );
        let objects = server.objects_under(&format!("{prefix}/{release}/c01-key-order/"));
        for file in ["case.json", "scenario.json", "table/snapshot/LATEST"] {
            assert!(
                objects.iter().any(|o| o.ends_with(file)),
                "{release} {file}: {objects:?}"
            );
        }
    }
    // Three pairs (1.0.0 x 1.0.0, 1.0.0 x newest, newest x newest), two scans each, all identical.
    let cells = m["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6, "{cells:?}");
    for c in cells {
        assert_eq!(c["class"], "identical", "{c}");
    }
    let cross = cells
        .iter()
        .find(|c| c["written_by"] == "1.0.0" && c["read_by"] == newest.as_str())
        .unwrap();
    assert!(
        cross["stock_at"].is_object(),
        "release 1.0.0's own reading: {cross}"
    );
    // The children's options never stay behind, and no log holds the secret.
    assert!(!work.path().join("file-io-options").exists());
    for log in std::fs::read_dir(work.path().join("runs")).unwrap() {
        let text = std::fs::read_to_string(log.unwrap().path()).unwrap_or_default();
        assert!(
            !text.contains(server.secret()),
            "a child's log shows the secret"
        );
    }
    // The next run reuses what the store holds.
    let (_, again) = run("1.0.0", &work.path().join("again.json"));
    assert_eq!(again["upgrade_matrix"]["corpora"][0]["origin"], "reused");
    assert_eq!(
        again["upgrade_matrix"]["cells"][0]["class"], "identical",
        "{again}"
    );
}
