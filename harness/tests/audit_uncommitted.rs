//! Part 3 of the audit: files written but never committed. After a recovery that dropped a whole
//! committable, the files it wrote are the only trace of it in the table; files whose records the table
//! already has are not findings. Expected values come from the scenario that wrote the corpus.

use crate::common;

use harness::audit::{run, UncommittedClass, UncommittedKind};

#[test]
fn a_dropped_committable_is_found_in_its_files_and_only_there() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    common::dropped_commit_2(&table);
    let r = run(&table, "both").unwrap();
    // What is left is commit 1, complete, and its changelog agrees with the table.
    assert!(r.incomplete_pairs().is_empty(), "{:?}", r.pairs);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(r.verdict, "rows-never-committed");
    assert_eq!(r.exit_code(), 1);
    assert_eq!(r.sweep, None);
    // From the scenario: commit 2 wrote +I (1, 20) in a level-0 file and, compacting it, a data file with
    // (1, 20) and a changelog file with -U (1, 10), +U (1, 20) (the control's snapshot 4).
    let u = &r.uncommitted;
    assert_eq!(u.skipped, None);
    assert_eq!(u.files.len(), 3, "{:?}", u.files);
    assert!(
        u.files.iter().all(|f| f.class.is_finding()),
        "{:?}",
        u.files
    );
    let data: Vec<_> = u
        .files
        .iter()
        .filter(|f| f.kind == UncommittedKind::Data)
        .collect();
    assert_eq!(data.len(), 2);
    for f in data {
        assert_eq!(f.class, UncommittedClass::RowsTheTableLacks);
        assert_eq!((f.rows, f.lacking_rows), (1, 1), "{}", f.file);
        assert!(f.lacking[0].ends_with(" (1, 20)"), "{:?}", f.lacking);
    }
    let changelog = u
        .files
        .iter()
        .find(|f| f.kind == UncommittedKind::Changelog)
        .unwrap();
    assert_eq!(changelog.class, UncommittedClass::ChangelogTheStreamLacks);
    assert_eq!(changelog.lacking, ["-U (1, 10)", "+U (1, 20)"]);
    // No retained commit is incomplete: nothing to attribute the files to.
    assert!(u.files.iter().all(|f| f.likely_identifier.is_none()));
    let mut text = Vec::new();
    harness::audit::write_text(&mut text, &r, 10).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("ROWS THE TABLE LACKS"), "{text}");
    assert!(text.contains("verdict: ROWS NEVER COMMITTED"), "{text}");
    assert!(text.contains("only trace of them in the table"), "{text}");

    // The JSON report carries part 3 (fields added to the audit object).
    let json = dir.path().join("audit.json");
    let (code, _, err) = common::paimon_parity(&[
        "audit",
        table.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let audit = &report["audit"];
    assert_eq!(audit["verdict"], "rows-never-committed");
    assert_eq!(audit["uncommitted"]["files"].as_array().unwrap().len(), 3);
    assert_eq!(
        audit["uncommitted"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["class"] == "rows-the-table-lacks")
            .count(),
        2
    );
    assert_eq!(audit["compaction"]["kind"], "every-commit");
}

/// A file an aborted write left, whose records the table already has, is not a finding: the commit-2 data
/// file copied into the bucket of the complete control table (where commit 2 did land) is listed and
/// cleared.
#[test]
fn a_leftover_whose_rows_the_table_has_is_not_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    let dropped = dir.path().join("dropped");
    common::dropped_commit_2(&dropped);
    let control = common::line_corpora(&common::line_version())
        .into_iter()
        .find(|d| common::corpus_name(d) == "c00-lookup-control")
        .unwrap();
    let table = dir.path().join("table");
    common::copy_tree(&control.join("table"), &table);
    // The level-0 data file of commit 2 under another name, as a retried write would have left it.
    let r = run(&dropped, "native").unwrap();
    let level0 = r
        .uncommitted
        .files
        .iter()
        .find(|f| f.kind == UncommittedKind::Data && f.file.starts_with("data-"))
        .unwrap();
    let copy = format!("data-00000000-0000-0000-0000-000000000000-0.{}", "parquet");
    std::fs::copy(&level0.path, table.join("bucket-0").join(&copy)).unwrap();
    let r = run(&table, "native").unwrap();
    assert_eq!(r.verdict, "complete", "{:?}", r.uncommitted.files);
    let f = r
        .uncommitted
        .files
        .iter()
        .find(|f| f.file == copy)
        .unwrap_or_else(|| panic!("{:?}", r.uncommitted.files));
    assert_eq!(f.class, UncommittedClass::NothingLacking);
    assert_eq!((f.rows, f.lacking_rows), (1, 0));
}
