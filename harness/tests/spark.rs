//! `scripts/spark-replay` and `scripts/spark-audit` on PySpark in local mode (`local[2,2]`: two task slots,
//! two attempts per task, so a retry happens), over committed corpora as a warehouse and over the same tables
//! in the local S3 server. The expected values are the serial `paimon-parity replay --all-tables` and
//! `audit` of the same tables: the warehouse report must equal them table by table.
//!
//! PySpark comes from a virtual environment outside the clone (`scripts/spark-replay` sets it up once per
//! machine). The tests run on the default release only: the driver and the merge are the same on every one.

use crate::common;
use crate::s3server;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// The corpora the warehouse tests use: small, of several shapes (partitioned, deletion vectors, an
/// aggregation, lost changelog), and one (lookup-partitioned) large enough to be cut into several units.
const TABLES: [&str; 6] = [
    "c00-lookup-fault",
    "c01-key-order",
    "c07-deletion-vectors",
    "c09-aggregation",
    "format-parquet",
    "lookup-partitioned",
];

/// A warehouse folder of links to the corpora `names`' tables.
fn warehouse(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in names {
        std::os::unix::fs::symlink(common::corpus(name).join("table"), dir.path().join(name))
            .unwrap();
    }
    dir
}

/// Runs `scripts/<script>` with `args` on `local[2,2]` and the test's binary; (exit status, stdout, stderr).
fn spark(script: &str, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(common::repo_root().join("scripts").join(script))
        .args(args)
        .args(["--master", "local[2,2]"])
        .env("PAIMON_PARITY_BINARY", env!("CARGO_BIN_EXE_paimon-parity"))
        .env_remove("PAIMON_PARITY_SPARK_FAIL_UNIT")
        .envs(env.iter().copied())
        .output()
        .expect("scripts/spark-replay runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    eprintln!(
        "{script} {}:\n{stdout}{}",
        args.join(" "),
        tail(&stderr, 3000)
    );
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

fn tail(s: &str, n: usize) -> &str {
    &s[s.len().saturating_sub(n)..]
}

/// A table's name in a report: its corpus for `…/<corpus>/table`, else the last path segment (a link's or a
/// store prefix's name).
fn table_name(table: &str) -> String {
    let p = Path::new(table.trim_end_matches('/'));
    let last = p.file_name().unwrap().to_string_lossy().into_owned();
    if last == "table" {
        p.parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    } else {
        last
    }
}

/// The runs of a replay report by (table name, mode): the report of each without wall times and without
/// the table's location (the same table on disk and in a store).
fn runs(report: &Value) -> BTreeMap<(String, String), Value> {
    report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| {
            let table = table_name(run["table"].as_str().unwrap());
            let mut r = common::without_timings(&run["report"]);
            r.as_object_mut().unwrap().remove("table");
            ((table, run["mode"].to_string()), r)
        })
        .collect()
}

/// The warehouse report holds exactly the serial replay's `count` runs, each equal to its serial twin
/// (table by table, scan by scan).
fn assert_same_runs(report: &Value, serial: &Value, count: usize) {
    let (merged, serial) = (runs(report), runs(serial));
    assert_eq!(serial.len(), count);
    assert_eq!(
        merged.keys().collect::<Vec<_>>(),
        serial.keys().collect::<Vec<_>>()
    );
    for (key, want) in &serial {
        assert_eq!(&merged[key], want, "{key:?}");
    }
}

fn serial_replay(locations: &[&str], modes: &str, dir: &Path) -> Value {
    let json = dir.join("serial.json");
    let mut args = vec!["replay", "--all-tables", "--mode", modes, "-q", "--json"];
    args.push(common::path_str(&json));
    args.extend(locations);
    let (code, out, err) = common::paimon_parity(&args);
    assert!(code <= 1, "{out}{err}");
    common::read_json(&json)
}

/// The units `paimon-parity units` plans, as the driver does.
fn units(location: &str, modes: &str, size: &str) -> Vec<Value> {
    let (code, out, err) =
        common::paimon_parity(&["units", location, "--mode", modes, "--unit-size", size]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str::<Value>(&out).unwrap()["units"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn a_warehouse_replayed_as_spark_tasks_equals_the_serial_replay_and_a_retried_unit_counts_once() {
    let wh = warehouse(&TABLES);
    let out = tempfile::tempdir().unwrap();
    let location = common::path_str(wh.path());
    let planned = units(location, "stream,batch", "16k");
    // lookup-partitioned's stream scan (about 155 KiB of files) is cut into several units; the small scans
    // are packed, several tables to a unit.
    let cut = planned
        .iter()
        .filter(|u| {
            u["scans"].as_array().unwrap().len() == 1
                && u["scans"][0]["name"] == "lookup-partitioned"
                && u["scans"][0]["mode"] == "stream"
        })
        .count();
    assert!(cut > 1, "{planned:?}");
    let packs: Vec<&Value> = planned
        .iter()
        .filter(|u| u["scans"].as_array().unwrap().len() > 1)
        .collect();
    assert!(!packs.is_empty(), "{planned:?}");
    // The first attempt of a pack fails after its replay ran.
    let failing = packs[0]["id"].as_str().unwrap().to_owned();
    let json = out.path().join("warehouse.json");
    let junit = out.path().join("warehouse.xml");
    let html = out.path().join("warehouse.html");
    let (code, stdout, stderr) = spark(
        "spark-replay",
        &[
            location,
            "--mode",
            "stream,batch",
            "--unit-size",
            "16k",
            "--json",
            common::path_str(&json),
            "--junit",
            common::path_str(&junit),
            "--html",
            common::path_str(&html),
            "--work",
            common::path_str(&out.path().join("work")),
        ],
        &[("PAIMON_PARITY_SPARK_FAIL_UNIT", &failing)],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    // The injected failure happened, and its retry counted once.
    assert!(
        stderr.contains(&format!("unit {failing}: failure injected")),
        "{stderr}"
    );
    let report = common::read_json(&json);
    let spark = &report["spark"];
    assert_eq!(spark["units"], planned.len(), "{spark}");
    assert_eq!(spark["units_retried"], 1, "{spark}");
    assert_eq!(spark["failed_attempts"], 1, "{spark}");
    assert_eq!(spark["attempts"], planned.len() + 1, "{spark}");
    assert_eq!(
        spark["unit_seconds"].as_object().unwrap().len(),
        planned.len()
    );
    // One line per finished table.
    for name in TABLES {
        assert!(
            stderr.contains(&format!("table {name}: ")),
            "{name}: {stderr}"
        );
    }
    // Table by table, scan by scan: the serial replay's verdicts, splits and rows.
    let serial = serial_replay(&[location], "stream,batch", out.path());
    assert_same_runs(&report, &serial, TABLES.len() * 2);
    assert_eq!(report["exit_code"], 0);
    assert!(std::fs::read_to_string(&junit)
        .unwrap()
        .contains("lookup-partitioned"));
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .contains("lookup-partitioned"));
}

#[test]
fn a_unit_that_differs_makes_the_warehouse_differ_and_names_its_table() {
    // A reader that changes a value in the fourth split it answers: c07's stream scan (5 splits) differs,
    // c01's scans (2 splits and 1) do not.
    let wh = warehouse(&["c01-key-order", "c07-deletion-vectors"]);
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("warehouse.json");
    let faulty = format!(
        "faulty={} --fault change-value --fault-split 3",
        env!("CARGO_BIN_EXE_paimon-parity-example-reader")
    );
    let (code, stdout, stderr) = spark(
        "spark-replay",
        &[
            common::path_str(wh.path()),
            "--mode",
            "stream,batch",
            "--reader",
            "faulty",
            "--reader-command",
            &faulty,
            "--json",
            common::path_str(&json),
            "--work",
            common::path_str(&out.path().join("work")),
        ],
        &[],
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("c07-deletion-vectors"), "{stdout}");
    let report = common::read_json(&json);
    let verdicts: BTreeMap<(String, String), String> = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                (
                    table_name(r["table"].as_str().unwrap()),
                    r["mode"].to_string(),
                ),
                r["verdict"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let differing: Vec<&(String, String)> = verdicts
        .iter()
        .filter(|(_, v)| v.as_str() != "identical")
        .map(|(k, _)| k)
        .collect();
    assert_eq!(
        differing,
        [&("c07-deletion-vectors".to_owned(), "\"stream\"".to_owned())],
        "{verdicts:?}"
    );
    assert_eq!(report["exit_code"], 1);
}

#[test]
fn a_warehouse_in_the_object_store_equals_the_serial_replay_of_its_tables_on_disk() {
    let server = s3server::S3Server::shared();
    let names = [
        "c01-key-order",
        "c07-deletion-vectors",
        "lookup-partitioned",
    ];
    let mut prefix = String::new();
    for name in names {
        let uri = server.put_tree(
            &common::corpus(name).join("table"),
            &format!("spark/wh/{name}"),
        );
        prefix = uri.rsplit_once('/').unwrap().0.to_owned();
    }
    let out = tempfile::tempdir().unwrap();
    // The store's settings reach the tasks in a 0600 file, never on a command line.
    let options = out.path().join("s3.options");
    std::fs::write(
        &options,
        format!(
            "s3.endpoint=http://127.0.0.1:{}\ns3.access-key={}\ns3.secret-key={}\n",
            server.port(),
            s3server::ACCESS_KEY,
            server.secret()
        ),
    )
    .unwrap();
    let json = out.path().join("warehouse.json");
    let (code, stdout, stderr) = spark(
        "spark-replay",
        &[
            &prefix,
            "--mode",
            "stream,batch",
            "--unit-size",
            "32k",
            "--options-file",
            common::path_str(&options),
            "--json",
            common::path_str(&json),
            "--work",
            common::path_str(&out.path().join("work")),
        ],
        &[],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    let report = common::read_json(&json);
    assert!(!report.to_string().contains(server.secret()));
    assert!(!stderr.contains(server.secret()));
    let wh = warehouse(&names);
    let serial = serial_replay(&[common::path_str(wh.path())], "stream,batch", out.path());
    assert_same_runs(&report, &serial, names.len() * 2);
}

#[test]
fn a_warehouse_audited_as_spark_tasks_equals_the_serial_audit_of_each_table() {
    let names = [
        "c00-lookup-fault",
        "c00-lookup-control",
        "c07-deletion-vectors",
    ];
    let wh = warehouse(&names);
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("audit.json");
    let (code, stdout, stderr) = spark(
        "spark-audit",
        &[
            common::path_str(wh.path()),
            "--json",
            common::path_str(&json),
            "--work",
            common::path_str(&out.path().join("work")),
        ],
        &[],
    );
    // c00-lookup-fault lost a commit's changelog: exit 1, and the table is named.
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("c00-lookup-fault"), "{stdout}");
    let report = common::read_json(&json);
    let tables = report["tables"].as_array().unwrap();
    assert_eq!(tables.len(), names.len());
    for t in tables {
        let name = t["name"].as_str().unwrap();
        let serial_json = out.path().join(format!("{name}.audit.json"));
        let (serial_code, _, err) = common::paimon_parity(&[
            "audit",
            common::path_str(&wh.path().join(name)),
            "--json",
            common::path_str(&serial_json),
        ]);
        let serial = common::read_json(&serial_json);
        assert_eq!(t["exit_code"], serial_code, "{name}: {err}");
        assert_eq!(
            common::without_timings(&t["report"]["audit"]),
            common::without_timings(&serial["audit"]),
            "{name}"
        );
    }
}

#[test]
fn a_unit_over_its_memory_budget_fails_naming_the_setting_to_raise() {
    let wh = warehouse(&["c01-key-order"]);
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("warehouse.json");
    // 100 MiB: less than the replay's JVM alone holds.
    let (code, stdout, stderr) = spark(
        "spark-replay",
        &[
            common::path_str(wh.path()),
            "--task-memory-mib",
            "100",
            "--json",
            common::path_str(&json),
            "--work",
            common::path_str(&out.path().join("work")),
        ],
        &[],
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains("over this task's budget of 100 MiB")
            && stderr.contains("raise spark.executor.memoryOverhead"),
        "{stderr}"
    );
    let report = common::read_json(&json);
    assert_eq!(
        report["spark"]["failed_tables"][0]["table"],
        "c01-key-order"
    );
    assert_eq!(report["exit_code"], 2);
}

#[test]
fn spark_submit_with_the_packed_archive_replays_as_the_script_does() {
    // What a cluster runs: `pack`, then spark-submit with the archive (--archives …#pp) and the package.
    let out = tempfile::tempdir().unwrap();
    let packed = out.path().join("packed");
    let (code, stdout, stderr) = spark_raw(
        "spark-replay",
        &["pack", "--out", common::path_str(&packed)],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    let venv = String::from_utf8(
        Command::new(common::repo_root().join("spark/setup"))
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let wh = warehouse(&["c07-deletion-vectors"]);
    let json = out.path().join("warehouse.json");
    let archive = format!(
        "{}#pp",
        packed.join("paimon-parity-bundle.tar.gz").display()
    );
    let run = Command::new(Path::new(venv.trim()).join("bin/spark-submit"))
        .args(["--master", "local[2,2]"])
        .args(["--conf", "spark.driver.host=127.0.0.1"])
        .args(["--conf", "spark.driver.bindAddress=127.0.0.1"])
        .args(["--archives", &archive])
        .args([
            "--py-files",
            common::path_str(&packed.join("paimon_parity_spark.zip")),
        ])
        .arg(packed.join("submit.py"))
        // A location relative to the driver's directory: the tasks run elsewhere.
        .current_dir(wh.path().parent().unwrap())
        .args([
            "replay",
            wh.path().file_name().unwrap().to_str().unwrap(),
            "--shipped",
        ])
        .args(["--binary", env!("CARGO_BIN_EXE_paimon-parity")])
        .args(["--java-target", "/nonexistent: the tasks use the archive"])
        .args(["--json", common::path_str(&json)])
        .args(["--work", common::path_str(&out.path().join("work"))])
        .env("SPARK_LOCAL_IP", "127.0.0.1")
        // The environment's python (with pyspark) for the driver and the workers.
        .env(
            "PATH",
            format!(
                "{}:{}",
                Path::new(venv.trim()).join("bin").display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env_remove("PAIMON_PARITY_SPARK_FAIL_UNIT")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        tail(&err, 4000)
    );
    let report = common::read_json(&json);
    let serial = serial_replay(&[common::path_str(wh.path())], "stream", out.path());
    assert_same_runs(&report, &serial, 1);
}

/// Runs `scripts/<script>` with `args` only (no master): (exit status, stdout, stderr).
fn spark_raw(script: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(common::repo_root().join("scripts").join(script))
        .args(args)
        .env("PAIMON_PARITY_BINARY", env!("CARGO_BIN_EXE_paimon-parity"))
        .output()
        .expect("the script runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
