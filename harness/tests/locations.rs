//! Table locations (issue 34, first part): a `file:///…` URI reads the same table as its path, a folder of
//! tables given where a table is expected names the tables inside, and a store URI is refused by name
//! (exit 2), never as a missing directory.

use crate::common;

#[test]
fn a_file_uri_replays_and_audits_the_same_table_as_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let table = std::fs::canonicalize(common::corpus("c01-key-order").join("table")).unwrap();
    // A space in the path, percent-escaped in the URI.
    let spaced = dir.path().join("my tables").join("c01");
    common::copy_tree(&table, &spaced);
    let uri = format!("file://{}", spaced.display()).replace(' ', "%20");
    let (by_path, by_uri) = (dir.path().join("path.json"), dir.path().join("uri.json"));
    for (location, json) in [
        (spaced.to_str().unwrap(), &by_path),
        (uri.as_str(), &by_uri),
    ] {
        let (code, out, err) =
            common::paimon_parity(&["replay", location, "--json", json.to_str().unwrap()]);
        assert_eq!(code, 0, "{location}: {out}{err}");
    }
    let totals = |v: &serde_json::Value| v["runs"][0]["report"]["totals"].clone();
    let (a, b) = (common::read_json(&by_path), common::read_json(&by_uri));
    assert!(totals(&a)["splits"].as_u64().unwrap() > 0);
    assert_eq!(
        common::without_timings(&totals(&a)),
        common::without_timings(&totals(&b))
    );
    let (code, out, err) = common::paimon_parity(&["audit", &uri]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn a_folder_of_tables_names_them_and_a_store_uri_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    // A warehouse as Paimon lays it out: <warehouse>/<db>.db/<table>.
    let warehouse = dir.path().join("warehouse");
    for (db, t, corpus) in [
        ("sales", "orders", "c01-key-order"),
        ("ops", "events", "c02-overlapping-files"),
    ] {
        common::copy_tree(
            &common::corpus(corpus).join("table"),
            &warehouse.join(format!("{db}.db")).join(t),
        );
    }
    let (code, _, err) = common::paimon_parity(&["replay", warehouse.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("not a Paimon table: no schema/ directory; it holds 2 table(s), give one of them: ops.events, sales.orders"),
        "{err}"
    );
    let (code, _, err) =
        common::paimon_parity(&["inspect", warehouse.join("sales.db").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("it holds 1 table(s), give one of them: orders"),
        "{err}"
    );
    for command in ["replay", "audit", "inspect"] {
        let (code, _, err) = common::paimon_parity(&[command, "oss://bucket/w/sales.db/orders"]);
        assert_eq!(code, 2, "{command}: {err}");
        assert!(
            err.contains("oss://bucket/w/sales.db/orders: unsupported: tables in oss:// are not read yet (s3:// is)"),
            "{command}: {err}"
        );
    }
}

#[test]
fn all_tables_replays_every_table_of_a_warehouse_in_one_report() {
    let warehouse = tempfile::tempdir().unwrap();
    for (corpus, table) in [
        ("format-avro", "sales.db/avro"),
        ("format-orc", "ops.db/orc"),
    ] {
        common::copy_tree(
            &common::corpus(corpus).join("table"),
            &warehouse.path().join(table),
        );
    }
    let json = warehouse.path().join("report.json");
    let (_, err) = common::expect_exit(
        0,
        &[
            "replay",
            "--all-tables",
            common::path_str(warehouse.path()),
            "--json",
            common::path_str(&json),
        ],
    );
    assert!(err.contains("2 table(s): ops.orc, sales.avro"), "{err}");
    let report = common::read_json(&json);
    let tables: Vec<String> = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["table"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .take(2)
                .collect::<Vec<_>>()
                .join("<")
        })
        .collect();
    assert_eq!(tables, ["orc<ops.db", "avro<sales.db"], "{report}");
    // Without --all-tables the warehouse is named, not replayed.
    let (code, _, err) = common::paimon_parity(&["replay", common::path_str(warehouse.path())]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("give one of them: ops.orc, sales.avro"),
        "{err}"
    );
}
