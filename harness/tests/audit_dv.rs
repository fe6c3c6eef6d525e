//! Issue 25: values written and durable that no reader returns. On a lookup table with deletion vectors
//! whose commit lost its COMPACT half (C22), the commit's records sit only in its level-0 file, which the
//! batch read skips, so the stream and the batch read agree and both miss them. The audit finds those keys
//! in the durable files. Expected values come from the scenario's writes.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use harness::audit::{run, AuditReport, KeyClass, PairStatus};
use native_reader::snapshot::CommitKind;

const NAME: &str = "c22-lookup-dv-level0-lost";
const USER: &str = "paimon-parity-corpus";

/// The corpus of the line under test named `name`.
fn line_corpus(name: &str) -> PathBuf {
    common::line_corpora(&common::line_version())
        .into_iter()
        .find(|d| common::corpus_name(d) == name)
        .unwrap_or_else(|| panic!("no corpus {name}"))
}

/// Per commit identifier of the scenario, what its writes leave each key with: `(k, v)` rendered as the
/// audit renders values, or `None` for a delete.
fn written(scenario: &Path) -> BTreeMap<i64, BTreeMap<i64, Option<String>>> {
    let s: serde_json::Value = serde_json::from_slice(&std::fs::read(scenario).unwrap()).unwrap();
    let mut out: BTreeMap<i64, BTreeMap<i64, Option<String>>> = BTreeMap::new();
    let mut pending: BTreeMap<i64, Option<String>> = BTreeMap::new();
    for step in s["steps"].as_array().unwrap() {
        match step["step"].as_str().unwrap() {
            "write" => {
                for row in step["rows"].as_array().unwrap() {
                    let values = row["values"].as_array().unwrap();
                    let k = values[0].as_i64().unwrap();
                    let value = format!("({k}, {})", values[1].as_i64().unwrap());
                    let adds = matches!(row["kind"].as_str().unwrap(), "+I" | "+U");
                    pending.insert(k, adds.then_some(value));
                }
            }
            "commit" => {
                let id = step["identifier"].as_i64().unwrap();
                out.insert(id, std::mem::take(&mut pending));
            }
            _ => {}
        }
    }
    out
}

fn audit(table: &Path, reader: &str) -> AuditReport {
    run(table, reader).unwrap_or_else(|e| panic!("{}: {e}", table.display()))
}

#[test]
fn keys_durable_only_in_the_lost_commits_level0_file_are_found_and_blamed_on_it() {
    let dir = line_corpus(NAME);
    let writes = written(&dir.join("scenario.json"));
    let (first, second) = (&writes[&1], &writes[&2]);
    let r = audit(&dir.join("table"), "both");
    assert_eq!(r.verdict, "changelog-lost");
    assert_eq!(r.exit_code(), 1);
    let incomplete: Vec<(&str, i64)> = r
        .incomplete_pairs()
        .iter()
        .map(|p| (p.commit_user.as_str(), p.commit_identifier))
        .collect();
    assert_eq!(incomplete, [(USER, 2)]);
    assert_eq!(r.readers_agree, Some(true));
    for c in &r.completeness {
        assert_eq!(c.skipped, None, "{}", c.reader);
        // Nothing is left out as pending: these level-0 files wait for a compaction that was lost.
        assert_eq!(c.pending_level0_keys, 0, "{}", c.reader);
        assert_eq!(c.keys, 4, "{}", c.reader);
    }
    // Every key commit 2 wrote, with the value commit 2 left it: (1, 20), (2, 20), the delete of 3, (4, 20).
    // The stream and the batch read both still give commit 1's value (none for key 4).
    assert_eq!(r.findings.len(), second.len(), "{:?}", r.findings);
    for (k, durable) in second {
        let f = r
            .findings
            .iter()
            .find(|f| f.key.key == format!("k={k}"))
            .unwrap_or_else(|| panic!("k={k} not reported: {:?}", r.findings));
        assert_eq!(f.found_by, ["native", "stock"], "k={k}");
        let m = &f.key;
        assert_eq!(m.class, KeyClass::DurableButUnread, "k={k}");
        let before = first.get(k).cloned().flatten();
        let none = || "<none>".to_owned();
        assert_eq!(m.stream_value, before.clone().unwrap_or_else(none), "k={k}");
        assert_eq!(m.table_value, before.unwrap_or_else(none), "k={k}");
        let d = m.durable.as_ref().expect("the durable record");
        assert_eq!(
            Some(d.value.as_str()),
            Some(durable.as_deref().unwrap_or("<deleted>")),
            "k={k}"
        );
        assert_eq!(d.row.is_some(), durable.is_some(), "k={k}");
        assert_eq!(d.level, 0, "k={k}");
        assert_eq!(m.written_by_snapshot, Some(3), "k={k}");
        assert_eq!(m.written_by_kind, Some(CommitKind::Append), "k={k}");
        assert_eq!(
            (m.written_by_user.as_deref(), m.written_by_identifier),
            (Some(USER), Some(2)),
            "k={k}"
        );
        assert_eq!(
            (m.lost_with_user.as_deref(), m.lost_with_identifier),
            (Some(USER), Some(2)),
            "k={k}"
        );
    }
    let k4 = &r.findings.iter().find(|f| f.key.key == "k=4").unwrap().key;
    let row = k4.durable.as_ref().and_then(|d| d.row.clone()).unwrap();
    assert_eq!(
        serde_json::Value::Object(row),
        serde_json::json!({"k": 4, "v": 20})
    );
    assert_eq!(k4.stream_last_event, None);

    let mut text = Vec::new();
    harness::audit::write_text(&mut text, &r, 10).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(
        !text.contains("A batch read of the table has them"),
        "{text}"
    );
    assert!(text.contains("No reader returns them either"), "{text}");
    assert!(
        text.contains("key k=3: written and durable in level-0 files of the incomplete commit")
            && text.contains("the newest durable record is -D (3, 10)"),
        "{text}"
    );
}

/// The JSON report names the class and the durable record.
#[test]
fn the_json_report_carries_the_class_and_the_durable_record() {
    let table = line_corpus(NAME).join("table");
    let r = audit(&table, "native");
    let json = serde_json::to_value(&r).unwrap();
    let k1 = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["key"] == "k=1")
        .unwrap();
    assert_eq!(k1["class"], "durable-but-unread");
    assert_eq!(k1["durable"]["value"], "(1, 20)");
    assert_eq!(k1["durable"]["row"], serde_json::json!({"k": 1, "v": 20}));
    assert_eq!(k1["durable"]["level"], 0);
    assert_eq!(k1["lost_with_identifier"], 2);
}

/// A deletion-vector lookup table whose every pair is complete (C07) has no such key: nothing waits for a
/// lost compaction.
#[test]
fn complete_deletion_vector_tables_have_no_durable_but_unread_keys() {
    let r = audit(&line_corpus("c07-deletion-vectors").join("table"), "native");
    assert!(
        r.pairs.iter().all(|p| p.status != PairStatus::Incomplete),
        "{:?}",
        r.pairs
    );
    assert!(
        r.findings
            .iter()
            .all(|f| f.key.class != KeyClass::DurableButUnread),
        "{:?}",
        r.findings
    );
}
