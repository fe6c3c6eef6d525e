//! No verdict without evidence in `retain` and `reproduce` (issue 33), through the `paimon-parity` binary:
//! a child that wrote no report and a report that names no release are refused without a bundle; a re-run
//! that compared nothing never reproduces a finding that compared something, and when neither compared
//! anything the outcome is NOTHING-COMPARED (exit 3); a split without a verdict is kept, with a note.
//!
//! Expected values come from the table's own writes or the released reader's report of the table itself:
//! C00 (`corpora/c00-lookup-fault`) writes one key, `k=1`, in one bucket; its stream replay from snapshot 3
//! plans no split (snapshot 3 is the write half of the commit whose COMPACT half, the changelog, is lost);
//! split counts are those of the released reader's replay of the table.

use crate::common;

use common::{expect_exit as expect, path_str as s, read_json};

use std::path::Path;

fn c00() -> std::path::PathBuf {
    common::corpus("c00-lookup-fault").join("table")
}

#[test]
fn retain_writes_no_bundle_when_its_replay_wrote_no_report() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("b.tar.zst");
    // No file may grow past 0 bytes (RLIMIT_FSIZE 0): the replay retain runs cannot write its report. The
    // output goes to pipes, which the limit does not touch.
    let run = std::process::Command::new("sh")
        .args(["-c", "ulimit -f 0; exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_paimon-parity"))
        .args(["retain", s(&c00()), "--out", s(&bundle)])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    let table = std::fs::canonicalize(c00()).unwrap();
    assert!(
        err.contains(&format!(
            "the replay run by retain (`paimon-parity replay {} --mode stream",
            table.display()
        )) && err.contains("wrote no report")
            && err.contains("no finding to retain, no bundle written"),
        "{err}"
    );
    assert!(!bundle.exists(), "no bundle is written");
}

#[test]
fn retain_refuses_a_report_that_names_no_release_or_records_no_finding() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.json");
    expect(1, &["audit", s(&c00()), "--json", s(&audit)]);
    let mut v = read_json(&audit);
    v.as_object_mut().unwrap().remove("paimon_version");
    let nameless = dir.path().join("nameless.json");
    std::fs::write(&nameless, serde_json::to_vec(&v).unwrap()).unwrap();
    let bundle = dir.path().join("b.tar.zst");
    let retain = |report: &Path| {
        let (_, err) = expect(
            2,
            &[
                "retain",
                s(&c00()),
                "--out",
                s(&bundle),
                "--report",
                s(report),
            ],
        );
        assert!(!bundle.exists(), "no bundle is written");
        err
    };
    let err = retain(&nameless);
    assert!(
        err.contains(&format!(
            "{}: names no Paimon release (`paimon_version`)",
            nameless.display()
        )),
        "{err}"
    );
    let inspect = dir.path().join("inspect.json");
    expect(0, &["inspect", s(&c00()), "--json", s(&inspect)]);
    let err = retain(&inspect);
    assert!(
        err.contains(&format!(
            "{}: is the report of `inspect`, not of `replay` or `audit`",
            inspect.display()
        )),
        "{err}"
    );
}

#[test]
fn a_replay_finding_is_not_reproduced_by_a_bundle_without_data_files() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("replay.json");
    expect(0, &["replay", s(&c00()), "--json", s(&report)]);
    let run = &read_json(&report)["runs"][0];
    let splits = run["splits"].as_u64().unwrap();
    assert!(splits > 0);
    let bundle = dir.path().join("none.tar.zst");
    expect(
        0,
        &[
            "retain",
            s(&c00()),
            "--out",
            s(&bundle),
            "--files",
            "none",
            "--report",
            s(&report),
        ],
    );
    let json = dir.path().join("reproduce.json");
    let (out, _) = expect(1, &["reproduce", s(&bundle), "--json", s(&json)]);
    assert!(
        out.contains(&format!(
            "NOT REPRODUCED: the re-run compared nothing (verdict nothing-compared, 0 splits compared \
             ({splits} splits not retained)"
        )) && out.contains(&format!(
            "the recorded run found identical with {splits} splits compared"
        )),
        "{out}"
    );
    let r = read_json(&json);
    assert_eq!(r["exit_code"], 1);
    assert_eq!(r["bundle"]["recorded"]["counts"]["compared"], splits);
    assert_eq!(r["bundle"]["now"]["counts"]["compared"], 0);
}

#[test]
fn an_audit_finding_is_not_reproduced_by_an_audit_that_checked_no_key() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.json");
    expect(1, &["audit", s(&c00()), "--json", s(&audit)]);
    let bundle = dir.path().join("none.tar.zst");
    expect(
        0,
        &[
            "retain",
            s(&c00()),
            "--out",
            s(&bundle),
            "--files",
            "none",
            "--report",
            s(&audit),
        ],
    );
    let (out, _) = expect(1, &["reproduce", s(&bundle)]);
    // C00 writes one key.
    assert!(
        out.contains("NOT REPRODUCED: the re-run compared nothing (verdict ")
            && out.contains(", 0 keys compared (")
            && out.contains("the recorded run found changelog-lost with 1 keys compared"),
        "{out}"
    );
}

#[test]
fn a_run_that_compared_nothing_is_nothing_compared_when_reproduced() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("replay.json");
    expect(
        3,
        &[
            "replay",
            s(&c00()),
            "--from-snapshot",
            "3",
            "--json",
            s(&report),
        ],
    );
    let bundle = dir.path().join("b.tar.zst");
    expect(
        0,
        &[
            "retain",
            s(&c00()),
            "--out",
            s(&bundle),
            "--report",
            s(&report),
        ],
    );
    let json = dir.path().join("reproduce.json");
    let (out, _) = expect(3, &["reproduce", s(&bundle), "--json", s(&json)]);
    assert!(
        out.contains("NOTHING-COMPARED: the recorded run (nothing-compared, 0 splits compared")
            && out.contains("both compared nothing: no evidence either way"),
        "{out}"
    );
    let r = read_json(&json);
    assert_eq!(
        (&r["exit_code"], &r["bundle"]["verdict"]),
        (&3.into(), &"nothing-compared".into())
    );
}

#[test]
fn a_split_without_a_verdict_is_retained_with_a_note_in_the_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("replay.json");
    expect(0, &["replay", s(&c00()), "--json", s(&report)]);
    let mut v = read_json(&report);
    let split = &mut v["runs"][0]["report"]["splits"][0];
    let key = split["key"].clone();
    split.as_object_mut().unwrap().remove("verdict");
    let edited = dir.path().join("no-verdict.json");
    std::fs::write(&edited, serde_json::to_vec(&v).unwrap()).unwrap();
    let bundle = dir.path().join("b.tar.zst");
    let json = dir.path().join("retain.json");
    let (out, _) = expect(
        0,
        &[
            "retain",
            s(&c00()),
            "--out",
            s(&bundle),
            "--report",
            s(&edited),
            "--json",
            s(&json),
        ],
    );
    let note = format!(
        "split {key} of the stream scan has no verdict in the report: its bucket is kept whole"
    );
    assert!(out.contains(&format!("note: {note}")), "{out}");
    let manifest = &read_json(&json)["bundle"]["manifest"];
    assert_eq!(manifest["notes"], serde_json::json!([note]));
    // C00's one bucket is kept: every data file of it.
    let kept: Vec<&str> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "data")
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    let on_disk = std::fs::read_dir(c00().join("bucket-0")).unwrap().count();
    assert_eq!(kept.len(), on_disk, "{kept:?}");
}

#[test]
fn retain_refuses_a_report_that_stopped_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("replay.json");
    // C00 has snapshots 1..3: a usage error, written as a report without runs.
    let (_, err) = expect(
        2,
        &[
            "replay",
            s(&c00()),
            "--from-snapshot",
            "9",
            "--json",
            s(&report),
        ],
    );
    assert!(err.contains("--from-snapshot 9"), "{err}");
    let bundle = dir.path().join("b.tar.zst");
    let (_, err) = expect(
        2,
        &[
            "retain",
            s(&c00()),
            "--out",
            s(&bundle),
            "--report",
            s(&report),
        ],
    );
    assert!(
        err.contains(&format!(
            "{}: no finding to retain (the replay stopped: usage: --from-snapshot 9",
            report.display()
        )) && err.contains("): no bundle written"),
        "{err}"
    );
    assert!(!bundle.exists(), "no bundle is written");
}
