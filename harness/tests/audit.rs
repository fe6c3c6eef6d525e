//! `paimon-parity audit` finds the lost changelog of the C00 fault corpora, and raises no false alarm on
//! control corpora, `none`/`input` tables and the external corpora. The OVERWRITE write half, the
//! compaction schedule and the files never committed have their own files (`audit_pairs.rs`,
//! `audit_uncommitted.rs`).

use crate::common;

use std::path::{Path, PathBuf};

use harness::audit::{run, PairStatus, UncommittedClass, UncommittedKind};

fn audit(table: &Path, reader: &str) -> harness::audit::AuditReport {
    run(table, reader).unwrap_or_else(|e| panic!("{}: {e}", table.display()))
}

/// Corpora whose audit is not `complete` by design: written with a fault at the APPEND/COMPACT boundary
/// (their names say so), or with an INSERT OVERWRITE, whose changes Paimon never writes to the changelog
/// (c21, `audit_pairs.rs`).
fn is_fault(dir: &Path) -> bool {
    let name = common::corpus_name(dir);
    name.contains("fault") || name.starts_with("two-writers") || name.contains("insert-overwrite")
        // C22: a lost COMPACT half on a deletion-vector table (harness/tests/audit_dv.rs).
        || name.ends_with("-lost")
        // Released 1.0.0 breaks the equal-sequence tie by file name in compaction, so here the compacted
        // table keeps (1,8) while the changelog ends with (1,9) (corpora/README.md, C03).
        || name == "c03-two-writers-equal-sequence-reversed"
        // Data files lost or cut short behind the writer's back (`damage-file`, C53 and C54): the table no
        // longer holds what its changelog delivered.
        || std::fs::read_to_string(dir.join("scenario.json"))
            .is_ok_and(|s| s.contains(r#""step": "damage-file""#))
}

#[test]
fn c00_fault_corpora_lose_exactly_key_1_with_value_20() {
    let faults: Vec<PathBuf> = common::line_corpora(&common::line_version())
        .into_iter()
        .filter(|d| common::corpus_name(d).starts_with("c00") && is_fault(d))
        .collect();
    assert!(!faults.is_empty(), "no C00 fault corpus committed");
    let controls: Vec<PathBuf> = common::line_corpora(&common::line_version())
        .into_iter()
        .filter(|d| common::corpus_name(d).starts_with("c00") && !is_fault(d))
        .collect();
    for dir in faults {
        let report = audit(&dir.join("table"), "both");
        let name = dir.display();
        assert_eq!(report.exit_code(), 1, "{name}");
        assert_eq!(report.verdict, "changelog-lost", "{name}");
        let incomplete = report.incomplete_pairs();
        assert_eq!(incomplete.len(), 1, "{name}: one incomplete pair");
        // Commit 2 (the one whose COMPACT half was given up) is the incomplete one.
        assert_eq!(incomplete[0].commit_identifier, 2, "{name}");
        assert!(incomplete[0].compact_snapshots.is_empty(), "{name}");
        assert_eq!(report.readers_agree, Some(true), "{name}");
        for c in &report.completeness {
            assert_eq!(c.keys, 1, "{name}: one key");
            assert_eq!(c.missing.len(), 1, "{name}: {} reader", c.reader);
            let m = &c.missing[0];
            // From the writes: +I (1,10) reached the changelog, +I (1,20) did not.
            assert_eq!(m.key, "k=1", "{name}");
            assert_eq!(m.key_values, json_object(r#"{"k": 1}"#), "{name}");
            assert_eq!(m.table_value, "(1, 20)", "{name}");
            assert_eq!(m.table_row, Some(json_object(r#"{"k": 1, "v": 20}"#)));
            assert_eq!(m.stream_row, Some(json_object(r#"{"k": 1, "v": 10}"#)));
            assert_eq!(m.stream_value, "(1, 10)", "{name}");
            assert_eq!(m.written_by_identifier, Some(2), "{name}");
            assert_eq!(
                m.written_by_snapshot,
                incomplete[0].append_snapshots.first().copied()
            );
        }
        // Listed once, found by both readers, who agree.
        assert_eq!(report.findings.len(), 1, "{name}");
        let f = &report.findings[0];
        assert_eq!(f.key.key, "k=1", "{name}");
        assert_eq!(f.found_by, ["native", "stock"], "{name}");
        assert_eq!(f.readers_agree, Some(true), "{name}");
        let mut text = Vec::new();
        harness::audit::write_text(&mut text, &report, 20).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert_eq!(
            text.matches("key k=1:").count(),
            1,
            "{name}: the key is listed once\n{text}"
        );
        assert!(
            text.contains(
                "bucket 0, key k=1: final value never delivered: the stream's last event is +I (1, 10) at snapshot"
            ),
            "{name}\n{text}"
        );
        assert!(text.contains("[both readers agree]"), "{name}\n{text}");

        // Part 3: the lost COMPACT half left its changelog file in the bucket, holding exactly the changelog
        // its control twin (same steps, no fault) committed for commit 2.
        let control = twin_control(&dir, &controls);
        let lost_changelog = changelog_of_last_compact(&control);
        assert_eq!(lost_changelog.len(), 2, "{}", control.display());
        let u = &report.uncommitted;
        assert_eq!(u.skipped, None, "{name}");
        let found: Vec<_> = u.findings().collect();
        assert_eq!(found.len(), 1, "{name}: {:?}", u.files);
        let f = found[0];
        assert_eq!(f.kind, UncommittedKind::Changelog, "{name}");
        assert_eq!(f.class, UncommittedClass::ChangelogTheStreamLacks, "{name}");
        assert_eq!(sorted(f.lacking.clone()), sorted(lost_changelog), "{name}");
        assert_eq!(f.lacking_rows, f.rows, "{name}");
        assert_eq!(f.likely_identifier, Some(2), "{name}");
        // The compacted data file of that COMPACT holds (1, 20), which the table has: not a finding.
        assert!(
            u.files
                .iter()
                .filter(|x| !x.class.is_finding())
                .all(|x| x.kind == UncommittedKind::Data
                    && x.class == UncommittedClass::NothingLacking
                    && x.lacking_rows == 0),
            "{name}: {:?}",
            u.files
        );
        // The pair names what the table shows of the cause, and the report points at the sweep.
        let cause = incomplete[0].cause.as_deref().unwrap_or_default();
        assert!(cause.contains(&f.file), "{name}: {cause}");
        assert!(!cause.contains("CommitRollback"), "{name}: {cause}");
        assert_eq!(report.sweep.as_deref(), Some(harness::audit::SWEEP_HINT));
        assert!(text.contains("next: paimon-parity sweep"), "{name}\n{text}");
        assert!(
            text.contains("CHANGELOG THE STREAM LACKS"),
            "{name}\n{text}"
        );
    }
}

/// The control corpus with the same changelog producer as the fault corpus `dir` (c00-<producer>-control).
fn twin_control(dir: &Path, controls: &[PathBuf]) -> PathBuf {
    let scenario: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("scenario.json")).unwrap()).unwrap();
    let producer = scenario["table"]["options"]["changelog-producer"]
        .as_str()
        .unwrap()
        .to_owned();
    let want = format!("c00-{producer}-control");
    controls
        .iter()
        .find(|c| common::corpus_name(c) == want)
        .unwrap_or_else(|| panic!("no {want} for {}", dir.display()))
        .clone()
}

/// The rows the released reader's stream returned for the latest snapshot of a corpus (its `case.json`,
/// `expected.stream_from_snapshot_1.per_split`), rendered `+U (1, 20)`.
fn changelog_of_last_compact(corpus: &Path) -> Vec<String> {
    let case: serde_json::Value =
        serde_json::from_slice(&std::fs::read(corpus.join("case.json")).unwrap()).unwrap();
    let last = case["snapshots"].as_array().unwrap().len() as u64;
    case["expected"]["stream_from_snapshot_1"]["per_split"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["snapshot_id"].as_u64() == Some(last))
        .flat_map(|s| s["values"].as_array().unwrap().iter())
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn json_object(text: &str) -> serde_json::Map<String, serde_json::Value> {
    serde_json::from_str(text).unwrap()
}

/// Why the audit cannot check a table's changelog, from the table's own latest schema file (not from the
/// audit): no primary key, a merge engine other than deduplicate whose changelog producer (`none`,
/// `input`) streams the raw writes, or a table option that changes what its scans read (a consumer, a delay,
/// a bounded watermark, its own start). The words the audit's reason must contain; `None` when it can check.
fn unauditable(table: &Path) -> Option<&'static str> {
    let latest = std::fs::read_dir(table.join("schema"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix("schema-")?
                .parse::<u64>()
                .ok()
                .map(|n| (n, e.path()))
        })
        .max()
        .unwrap()
        .1;
    let schema: serde_json::Value =
        serde_json::from_slice(&std::fs::read(latest).unwrap()).unwrap();
    let options = &schema["options"];
    let producer = options["changelog-producer"].as_str().unwrap_or("none");
    let engine = options["merge-engine"].as_str().unwrap_or("deduplicate");
    if schema["primaryKeys"].as_array().is_none_or(Vec::is_empty) {
        Some("no primary key")
    } else if matches!(producer, "none" | "input") && engine != "deduplicate" {
        Some("streams its raw writes")
    } else if options["file.format"].as_str() == Some("csv") {
        Some("the table's files are csv")
    } else if !options["consumer-id"].is_null() {
        Some("the table sets `consumer-id`")
    } else if !options["streaming.read.snapshot.delay"].is_null() {
        Some("the table sets `streaming.read.snapshot.delay`")
    } else if options["scan.mode"]
        .as_str()
        .is_some_and(|m| m != "default")
    {
        Some("the table sets `scan.mode=")
    } else if [
        "scan.timestamp-millis",
        "scan.timestamp",
        "scan.file-creation-time-millis",
        "scan.tag-name",
        "scan.watermark",
        "incremental-between",
        "incremental-between-timestamp",
    ]
    .iter()
    .any(|k| !options[*k].is_null())
    {
        Some("fails every read that names a snapshot")
    } else if !options["scan.bounded.watermark"].is_null() {
        Some("its streams end at the first snapshot whose watermark is past it")
    } else {
        None
    }
}

#[test]
fn control_corpora_are_complete() {
    let controls: Vec<PathBuf> = common::line_corpora(&common::line_version())
        .into_iter()
        .filter(|d| !is_fault(d))
        // c65's merge reads meet keys whose records tie on their sequence under `sort-engine=min-heap`,
        // which the native reader refuses by name (`corpus_parity` checks that refusal).
        .filter(|d| !d.to_string_lossy().contains("c65-sort-engine-min-heap-tie"))
        .collect();
    assert!(controls.len() >= 2);
    let mut checked = 0;
    for dir in controls {
        let table = dir.join("table");
        let report = audit(&table, "native");
        // A table whose changelog the audit cannot fold is NOT-CHECKED (exit 3), never COMPLETE.
        if let Some(why) = unauditable(&table) {
            assert_eq!(report.verdict, "not-checked", "{}", dir.display());
            assert_eq!(report.exit_code(), 3);
            let reason = report.not_checked.as_deref().unwrap_or_default();
            assert!(reason.contains(why), "{}: {reason}", dir.display());
            continue;
        }
        checked += 1;
        // c64 (no changelog producer, `sequence.field=ts`): commit 3's update of key 2 has an older `ts` than
        // the stored record and loses the merge, but the stream delivers the delta as written, so its last
        // event for key 2 is a value the table never holds: a true divergence, the table's own writes say.
        if dir.to_string_lossy().contains("c64-sort-engine-min-heap") {
            assert_eq!(report.verdict, "changelog-diverges", "{}", dir.display());
            let missing: Vec<_> = report
                .completeness
                .iter()
                .flat_map(|c| c.missing.iter())
                .collect();
            assert_eq!(missing.len(), 1, "{missing:?}");
            assert_eq!(missing[0].key, "k=2", "{missing:?}");
            continue;
        }
        assert_eq!(
            report.verdict,
            "complete",
            "{}: {:?}",
            dir.display(),
            report
                .completeness
                .iter()
                .map(|c| &c.missing)
                .collect::<Vec<_>>()
        );
        assert_eq!(report.exit_code(), 0);
        assert!(report.completeness[0].keys > 0, "{}", dir.display());
        assert!(report.incomplete_pairs().is_empty(), "{}", dir.display());
    }
    assert!(checked >= 2);
}

#[test]
fn external_corpora_raise_no_false_alarm() {
    let root = common::repo_root().join("../shared/external-corpora/paimon-cpp");
    if !root.is_dir() {
        eprintln!("skipped: {} is absent", root.display());
        return;
    }
    let mut tables = Vec::new();
    for format in std::fs::read_dir(&root).unwrap().flatten() {
        if !format.path().is_dir() {
            continue;
        }
        for db in std::fs::read_dir(format.path()).unwrap().flatten() {
            for t in std::fs::read_dir(db.path()).into_iter().flatten().flatten() {
                if t.path().join("schema").is_dir() {
                    tables.push(t.path());
                }
            }
        }
    }
    assert!(tables.len() >= 6, "found {tables:?}");
    for t in tables {
        let report = audit(&t, "both");
        let want = if unauditable(&t).is_some() {
            "not-checked"
        } else {
            "complete"
        };
        assert_eq!(report.verdict, want, "{}", t.display());
        assert_ne!(report.readers_agree, Some(false), "{}", t.display());
    }
}

#[test]
fn expired_history_says_which_range_was_checked() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    common::copy_tree(&common::corpus("lookup-partitioned").join("table"), &table);
    // Expire snapshots 1..=6 the way snapshot expiration leaves the directory: their changelog files gone
    // (`ExpireSnapshotsImpl` deletes them with the snapshot when the changelog lifecycle is not decoupled),
    // the snapshot files gone, EARLIEST moved.
    let t = native_reader::Table::open(&table).unwrap();
    for id in 1..=6 {
        let snapshot = t.snapshot(id).unwrap();
        if let Some(list) = &snapshot.changelog_manifest_list {
            for meta in native_reader::manifest::read_manifest_list(&t.manifest_path(list)).unwrap()
            {
                let path = t.manifest_path(&meta.file_name);
                for e in native_reader::manifest::read_manifest_file(&path).unwrap() {
                    let partition = t.partition_computer().render(&e.partition, &path).unwrap();
                    let bucket = t.bucket_path(&partition.path, e.bucket);
                    std::fs::remove_file(Path::new(&bucket).join(&e.file.file_name)).unwrap();
                }
            }
        }
    }
    for id in 1..=6 {
        std::fs::remove_file(table.join(format!("snapshot/snapshot-{id}"))).unwrap();
    }
    std::fs::write(table.join("snapshot/EARLIEST"), "7").unwrap();
    let report = audit(&table, "native");
    let c = &report.completeness[0];
    assert_eq!(c.from_snapshot, 7);
    assert!(c.started_from_full_snapshot);
    assert_eq!(report.earliest_snapshot, Some(7));
    assert_eq!(report.verdict, "complete", "{:?}", c.missing);
    let mut text = Vec::new();
    harness::audit::write_text(&mut text, &report, 10).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("snapshots 7..24"), "{text}");
    assert!(text.contains("history before snapshot 7 expired"), "{text}");
    assert!(report
        .pairs
        .iter()
        .all(|p| p.status != PairStatus::Incomplete));
    // Nothing the expiry left in the bucket directories holds rows the table or its changelog lacks.
    assert_eq!(
        report.uncommitted.findings().count(),
        0,
        "{:?}",
        report.uncommitted.files
    );
}

#[test]
fn audit_cli_exit_codes() {
    let bin = env!("CARGO_BIN_EXE_paimon-parity");
    let control = common::corpus("c00-full-compaction-control").join("table");
    let out = std::process::Command::new(bin)
        .args(["audit", control.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let missing = std::process::Command::new(bin)
        .args(["audit", "/nonexistent/table"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/table"));
}

/// No verdict without evidence: an audit that compared no key is NOT-CHECKED, exit 3, never COMPLETE.
/// A bundle that retains no data file (`retain --files none`) has every split left out; an append table
/// (no primary key) has no per-key changelog to fold.
#[test]
fn an_audit_that_compared_nothing_is_not_checked() {
    let dir = tempfile::tempdir().unwrap();
    let control = common::corpus("c00-full-compaction-control").join("table");
    let bundle = dir.path().join("none.ppbundle");
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    let (code, out, err) = common::paimon_parity(&[
        "retain",
        &s(&control),
        "--out",
        &s(&bundle),
        "--files",
        "none",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let json = dir.path().join("audit.json");
    let (code, out, err) = common::paimon_parity(&["audit", &s(&bundle), "--json", &s(&json)]);
    assert_eq!(code, 3, "{out}{err}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["exit_code"], 3);
    assert_eq!(report["audit"]["verdict"], "not-checked");
    assert_eq!(report["audit"]["completeness"][0]["keys"], 0);
    let reason = report["audit"]["not_checked"].as_str().unwrap();
    assert!(
        reason.contains("retains the files of none of the"),
        "{reason}"
    );
    let (code, out, err) = common::paimon_parity(&["audit", &s(&bundle)]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains("verdict: NOT CHECKED: "), "{out}");
    assert!(!out.contains("COMPLETE"), "{out}");

    let append = common::corpus("c12-schema-evolution-casts-append").join("table");
    assert_eq!(unauditable(&append), Some("no primary key"));
    let (code, out, err) = common::paimon_parity(&["audit", &s(&append)]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains("verdict: NOT CHECKED: "), "{out}");
    assert!(out.contains("no primary key"), "{out}");
}

/// The two-writer tables: the given-up COMPACT of one user is flagged, and the number of keys whose final
/// value is missing equals what the released reader's own changelog lacks, counted here independently
/// (a plain fold of the stock stream rows against the stock batch rows, keyed by rendered primary key).
#[test]
fn two_writer_tables_flag_the_given_up_compact_and_count_what_stock_lacks() {
    use harness::reader::{StockTableReader, TableReader};
    use native_reader::scan::ScanMode;
    use std::collections::HashMap;

    let stock = StockTableReader::new().unwrap();
    let dirs: Vec<PathBuf> = common::line_corpora(&common::line_version())
        .into_iter()
        .filter(|d| common::corpus_name(d).starts_with("two-writers"))
        .collect();
    assert_eq!(dirs.len(), 2, "lookup and full-compaction twins");
    for dir in dirs {
        let table = std::fs::canonicalize(dir.join("table")).unwrap();
        let report = audit(&table, "both");
        let name = dir.display();
        let incomplete = report.incomplete_pairs();
        assert_eq!(incomplete.len(), 1, "{name}");
        let given_up = incomplete[0];
        let user = report
            .users
            .iter()
            .find(|u| u.commit_user == given_up.commit_user)
            .unwrap();
        // The given-up pair is that user's last APPEND, after its last COMPACT.
        assert_eq!(
            user.last_append,
            given_up.append_snapshots.last().copied(),
            "{name}"
        );
        assert!(user.last_compact < user.last_append, "{name}");
        assert_eq!(report.exit_code(), 1);

        let end = native_reader::Table::open(&table)
            .unwrap()
            .latest_snapshot_id()
            .unwrap()
            .unwrap();
        let key_of = |b: &arrow_array::RecordBatch, r: usize| {
            format!(
                "{}|{}",
                harness::diff::render_value(b.column(1).as_ref(), r),
                harness::diff::render_value(b.column(2).as_ref(), r)
            )
        };
        let mut stream: HashMap<String, String> = HashMap::new();
        for s in stock
            .plan(&table, ScanMode::Stream { from_snapshot: 1 }, end)
            .unwrap()
        {
            for b in stock.read_split(&table, &s).unwrap() {
                let b = b.unwrap();
                let kinds = b
                    .column(0)
                    .as_any()
                    .downcast_ref::<arrow_array::Int8Array>()
                    .unwrap();
                for r in 0..b.num_rows() {
                    let row = harness::audit::render_values(&b, r);
                    match kinds.value(r) {
                        0 | 2 => stream.insert(key_of(&b, r), row),
                        _ => stream.remove(&key_of(&b, r)),
                    };
                }
            }
        }
        let mut batch: HashMap<String, String> = HashMap::new();
        for s in stock
            .plan(&table, ScanMode::Batch { snapshot: None }, end)
            .unwrap()
        {
            for b in stock.read_split(&table, &s).unwrap() {
                let b = b.unwrap();
                for r in 0..b.num_rows() {
                    batch.insert(key_of(&b, r), harness::audit::render_values(&b, r));
                }
            }
        }
        let lacking = batch
            .iter()
            .filter(|(k, v)| stream.get(*k) != Some(v))
            .count()
            + stream.keys().filter(|k| !batch.contains_key(*k)).count();
        assert!(lacking > 0, "{name}: the fault must lose some changelog");
        for c in &report.completeness {
            assert_eq!(c.missing.len(), lacking, "{name}: {} reader", c.reader);
        }
    }
}

/// A postpone-bucket table (2.0, `bucket = -2`, c16): batch reads skip the postpone bucket, so the keys the
/// stream saw there are pending, not lost. From the writes: keys 1 and 3 are live (2 was deleted).
#[test]
fn postpone_bucket_keys_are_pending_not_lost() {
    let dirs: Vec<PathBuf> = common::line_corpora(&common::line_version())
        .into_iter()
        .filter(|d| common::corpus_name(d) == "c16-postpone-bucket")
        .collect();
    if dirs.is_empty() {
        eprintln!("no postpone-bucket corpus on this line (its scenario is a Paimon 2.0 one)");
        return;
    }
    for dir in dirs {
        let report = audit(&dir.join("table"), "both");
        assert_eq!(report.verdict, "complete", "{}", dir.display());
        for c in &report.completeness {
            assert_eq!(
                c.pending_postpone_keys,
                2,
                "{}: {} reader",
                dir.display(),
                c.reader
            );
            assert!(c.missing.is_empty());
        }
    }
}

#[test]
fn an_equal_sequence_tie_between_writers_is_a_divergence_not_a_lost_commit() {
    // C03 reversed: writer-a commits (1,8), writer-b commits (1,9) with the same sequence number; the
    // compaction keeps (1,8) (the tie is broken by file name), while the changelog (producer `none`: the
    // APPEND deltas) ends with writer-b's +I (1,9) of snapshot 2. No commit is incomplete.
    // The tie is 1.0.0's (2.0.0 keeps writer-b's (1,9), and the audit is complete there).
    if common::line_version() != "1.0.0" {
        return;
    }
    let dirs: Vec<PathBuf> = common::line_corpora(&common::line_version())
        .into_iter()
        .filter(|d| common::corpus_name(d) == "c03-two-writers-equal-sequence-reversed")
        .collect();
    assert_eq!(dirs.len(), 1);
    for dir in dirs {
        let report = audit(&dir.join("table"), "native");
        let name = dir.display();
        assert!(report.incomplete_pairs().is_empty(), "{name}");
        assert_eq!(report.verdict, "changelog-diverges", "{name}");
        assert_eq!(report.exit_code(), 1, "{name}");
        let m = &report.completeness[0].missing[0];
        assert_eq!(
            m.class,
            harness::audit::KeyClass::FinalValueNeverDelivered,
            "{name}"
        );
        assert_eq!(m.table_value, "(1, 8)", "{name}");
        assert_eq!(
            m.stream_last_event.as_deref(),
            Some("+I (1, 9) at snapshot 2"),
            "{name}"
        );
    }
}
