//! The line-specific planning rules ([`crate::line::LineRules`]) under both lines. Expected values come from
//! the Java sources of `release-1.0.0` and `release-2.0.0` (class named at each test) or, for the corpora,
//! from the released 1.0.0 reader's plans in `case.json` and the tables' own snapshot files.

use super::*;
use crate::line::PaimonRelease;

const LINES: [PaimonRelease; 7] = PaimonRelease::ALL;

fn open(dir: &Path, line: PaimonRelease) -> Table {
    Table::open_as(dir, line).unwrap()
}

/// Rewrites one snapshot file of a hand-built table: `from` → `to` in its JSON.
fn edit_snapshot(dir: &Path, id: i64, from: &str, to: &str) {
    let path = dir.join(format!("snapshot/snapshot-{id}"));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{from} in {text}");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

fn e(kind: i32, part: Option<&'static str>, bucket: i32, name: &'static str) -> E {
    E {
        kind,
        part,
        bucket,
        name,
        size: 10,
        min_seq: 100,
    }
}

/// (snapshot, bucket, file names) of each split.
fn keys(splits: &[Split]) -> Vec<(i64, i32, Vec<&str>)> {
    splits
        .iter()
        .map(|s| (s.snapshot_id, s.bucket, names(s)))
        .collect()
}

fn snapshot_ids(splits: &[Split]) -> Vec<i64> {
    splits.iter().map(|s| s.snapshot_id).collect()
}

#[test]
fn follow_up_scanner_by_line() {
    // build_table: 1 APPEND, 2 COMPACT, 3 APPEND (empty delta), 4 COMPACT; every snapshot's changelog list
    // holds the entries. Snapshot 2's changelog list is then removed.
    let dir = tempfile::tempdir().unwrap();
    let entries = [e(0, Some("a"), 0, "f-a0")];
    for (producer, v1, v2) in [
        // 1.0 InputChangelogFollowUpScanner: APPEND; 2.0 ChangelogFollowUpScanner: any kind with changelog.
        ("input", vec![1, 3], vec![1, 3, 4]),
        // 1.0 CompactionChangelogFollowUpScanner: COMPACT.
        ("lookup", vec![4], vec![1, 3, 4]),
        ("full-compaction", vec![4], vec![1, 3, 4]),
        // DeltaFollowUpScanner in both: APPEND deltas (snapshot 3's is empty).
        ("none", vec![1], vec![1]),
    ] {
        let dir = dir.path().join(producer);
        build_table(
            &dir,
            r#""p","k""#,
            &format!(r#""bucket":"1","changelog-producer":"{producer}""#),
            &entries,
        );
        edit_snapshot(
            &dir,
            2,
            r#""changelogManifestList":"list-delta""#,
            r#""changelogManifestList":null"#,
        );
        for (line, want) in [(PaimonRelease::V1_0_0, &v1), (PaimonRelease::V2_0_0, &v2)] {
            let splits = open(&dir, line).plan_stream(1, 4).unwrap();
            assert_eq!(&snapshot_ids(&splits), want, "{producer} on {line}");
        }
    }
    // Table::open is the 1.0 line.
    let dir = dir.path().join("input");
    assert_eq!(
        Table::open(&dir).unwrap().plan_stream(1, 4).unwrap(),
        open(&dir, PaimonRelease::V1_0_0).plan_stream(1, 4).unwrap()
    );
}

#[test]
fn streaming_splits_carry_deletion_files_in_1_0_only() {
    // SnapshotReaderImpl#generateSplits: 1.0 attaches the DV index to every split; 2.0 only when not
    // streaming. Snapshot 4 has a deletion vector for f-dv.
    let dir = tempfile::tempdir().unwrap();
    build_table(
        dir.path(),
        r#""p","k""#,
        r#""bucket":"2","changelog-producer":"lookup","deletion-vectors.enabled":"true""#,
        &[e(0, Some("a"), 0, "f-dv"), e(0, Some("a"), 0, "f-a0")],
    );
    let v1 = open(dir.path(), PaimonRelease::V1_0_0)
        .plan_stream(1, 4)
        .unwrap();
    let v2 = open(dir.path(), PaimonRelease::V2_0_0)
        .plan_stream(1, 4)
        .unwrap();
    assert_eq!(snapshot_ids(&v1), vec![2, 4]);
    assert_eq!(snapshot_ids(&v2), vec![1, 2, 3, 4]);
    assert!(v1.iter().all(|s| s.deletion_files.len() == 2));
    assert!(v1[1].deletion_files[0].is_some() && v1[1].deletion_files[1].is_none());
    assert!(v2.iter().all(|s| s.deletion_files.is_empty()));
}

/// Snapshot 1: f0, f1 at level 0; 2 (COMPACT) upgrades f1 to level 5 and adds g at level 5; 3 (APPEND) adds
/// h at level 0 (as `batch_plans_read_the_all_mode_file_set`).
fn all_mode_entries() -> [Vec<Entry>; 3] {
    [
        vec![(0, "f0", 0, 1, 5, 10), (0, "f1", 0, 6, 9, 10)],
        vec![
            (1, "f0", 0, 1, 5, 10),
            (1, "f1", 0, 6, 9, 10),
            (0, "f1", 5, 6, 9, 10),
            (0, "g", 5, 1, 5, 10),
        ],
        vec![(0, "h", 0, 2, 3, 10)],
    ]
}

fn all_mode_table(dir: &Path, options: &str) {
    let [m1, m2, m3] = all_mode_entries();
    build_all_mode_table(dir, options, &m1, &m2, &m3);
}

#[test]
fn full_first_plan_by_line() {
    let dir = tempfile::tempdir().unwrap();
    // DV without lookup changelog. 1.0 (needLookup): levels > 0, then snapshot 3 again as a delta.
    // 2.0: every level (the batch split of a non-DV table, `batch_plans_read_the_all_mode_file_set`), then
    // from snapshot 4.
    all_mode_table(
        dir.path(),
        r#""bucket":"1","deletion-vectors.enabled":"true""#,
    );
    assert_eq!(
        split_files(
            &open(dir.path(), PaimonRelease::V1_0_0)
                .plan_latest_full(3)
                .unwrap()
        ),
        vec![
            (3, vec!["f1", "g"], false, true),
            (3, vec!["h"], true, true)
        ]
    );
    assert_eq!(
        split_files(
            &open(dir.path(), PaimonRelease::V2_0_0)
                .plan_latest_full(3)
                .unwrap()
        ),
        vec![(3, vec!["h", "g", "f1"], false, false)]
    );
    // first-row (and force-lookup) without DV: 1.0 levels > 0 (snapshot 1 has none), 2.0 every level; both
    // follow up from the next snapshot.
    for options in [
        r#""bucket":"1","merge-engine":"first-row""#,
        r#""bucket":"1","force-lookup":"true""#,
    ] {
        let dir = tempfile::tempdir().unwrap();
        all_mode_table(dir.path(), options);
        assert_eq!(
            split_files(
                &open(dir.path(), PaimonRelease::V1_0_0)
                    .plan_stream_full(1, 3)
                    .unwrap()
            ),
            vec![(3, vec!["h"], true, true)],
            "{options}"
        );
        assert_eq!(
            split_files(
                &open(dir.path(), PaimonRelease::V2_0_0)
                    .plan_stream_full(1, 3)
                    .unwrap()
            ),
            vec![
                (1, vec!["f0", "f1"], false, false),
                (3, vec!["h"], true, true)
            ],
            "{options}"
        );
    }
    // lookup: levels > 0 in both lines; the follow-ups read changelogs (none here).
    let dir2 = tempfile::tempdir().unwrap();
    all_mode_table(
        dir2.path(),
        r#""bucket":"1","changelog-producer":"lookup","deletion-vectors.enabled":"true""#,
    );
    for line in LINES {
        assert_eq!(
            split_files(&open(dir2.path(), line).plan_latest_full(3).unwrap()),
            vec![(3, vec!["f1", "g"], false, true)],
            "{line}"
        );
    }
}

#[test]
fn batch_level_0_by_line() {
    // AbstractBatchTableScan / CoreOptions#batchScanSkipLevel0 (2.0): DV → !deletion-vectors.merge-on-read,
    // else first-row. 1.0 DataTableBatchScan: DV or first-row; the merge-on-read option does not exist.
    let visible = vec![(3, vec!["h", "g", "f1"], false, false)];
    let skipped = vec![(3, vec!["f1", "g"], false, true)];
    for (options, v1, v2) in [
        (r#""deletion-vectors.enabled":"true""#, &skipped, &skipped),
        (
            r#""deletion-vectors.enabled":"true","deletion-vectors.merge-on-read":"true""#,
            &skipped,
            &visible,
        ),
        (r#""merge-engine":"first-row""#, &skipped, &skipped),
        (
            r#""merge-engine":"first-row","deletion-vectors.merge-on-read":"true""#,
            &skipped,
            &skipped,
        ),
        (
            r#""deletion-vectors.merge-on-read":"true""#,
            &visible,
            &visible,
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        all_mode_table(dir.path(), &format!(r#""bucket":"1",{options}"#));
        for (line, want) in [(PaimonRelease::V1_0_0, v1), (PaimonRelease::V2_0_0, v2)] {
            let splits = open(dir.path(), line).plan_batch(None).unwrap();
            assert_eq!(&split_files(&splits), want, "{options} on {line}");
        }
    }
    // A bad value is an error where the option is read (2.0, DV tables) and unknown to 1.0.
    let dir = tempfile::tempdir().unwrap();
    all_mode_table(
        dir.path(),
        r#""bucket":"1","deletion-vectors.enabled":"true","deletion-vectors.merge-on-read":"yes""#,
    );
    assert_eq!(
        split_files(
            &open(dir.path(), PaimonRelease::V1_0_0)
                .plan_batch(None)
                .unwrap()
        ),
        skipped
    );
    let err = open(dir.path(), PaimonRelease::V2_0_0)
        .plan_batch(None)
        .unwrap_err();
    assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
    assert!(
        err.to_string().contains("deletion-vectors.merge-on-read"),
        "{err}"
    );
}

/// Sets `_BUCKET` of a manifest entry record.
fn with_bucket(entry: Value, bucket: i32) -> Value {
    let Value::Record(mut fields) = entry else {
        unreachable!("entries are records")
    };
    for (name, value) in &mut fields {
        if name == "_BUCKET" {
            *value = Value::Int(bucket);
        }
    }
    Value::Record(fields)
}

#[test]
fn postpone_bucket_by_line() {
    // build_all_mode_table with `bucket=-2`, and snapshot 3's h rewritten into the postpone bucket at level
    // 5 (so no level filter hides it).
    let table = |options: &str| {
        let dir = tempfile::tempdir().unwrap();
        all_mode_table(dir.path(), &format!(r#""bucket":"-2",{options}"#));
        let h: Entry = (0, "h", 5, 2, 3, 10);
        write_avro(
            &dir.path().join("manifest/m3"),
            FULL_ENTRY_SCHEMA,
            vec![with_bucket(full_entry(&h), -2)],
        );
        dir
    };
    // 1.0 has no postpone bucket: every plan is Unsupported, naming the option.
    let dir = table(r#""changelog-producer":"none""#);
    let v1 = open(dir.path(), PaimonRelease::V1_0_0);
    for err in [
        v1.plan_batch(None).unwrap_err(),
        v1.plan_stream(1, 3).unwrap_err(),
        v1.plan_latest_full(3).unwrap_err(),
    ] {
        assert!(matches!(err, Error::Unsupported { .. }), "{err}");
        assert!(err.to_string().contains("bucket=-2"), "{err}");
    }
    // 2.0 batch (AbstractBatchTableScan → onlyReadRealBuckets): bucket < 0 skipped.
    let v2 = open(dir.path(), PaimonRelease::V2_0_0);
    assert_eq!(
        keys(&v2.plan_batch(None).unwrap()),
        vec![(3, 0, vec!["f1", "g"])]
    );
    // 2.0 streaming with changelog-producer none (DataTableStreamScan ctor keeps them): the postpone
    // bucket's files stream as they are, under `bucket-postpone`.
    let splits = v2.plan_stream(1, 3).unwrap();
    assert_eq!(
        keys(&splits),
        vec![(1, 0, vec!["f0", "f1"]), (3, -2, vec!["h"])]
    );
    assert!(
        splits[1].bucket_path.ends_with("/bucket-postpone"),
        "{}",
        splits[1].bucket_path
    );
    assert_eq!(
        keys(&v2.plan_latest_full(3).unwrap()),
        vec![(3, 0, vec!["f1", "g"]), (3, -2, vec!["h"])]
    );
    // 1.1.1 (KeyValueFileStore#newScan: `POSTPONE_BUCKET && scanType == FOR_READ`): every read scan skips
    // bucket < 0, the streaming ones with changelog-producer none too.
    let v11 = open(dir.path(), PaimonRelease::V1_1_1);
    assert_eq!(
        keys(&v11.plan_batch(None).unwrap()),
        vec![(3, 0, vec!["f1", "g"])]
    );
    assert_eq!(
        keys(&v11.plan_stream(1, 3).unwrap()),
        vec![(1, 0, vec!["f0", "f1"])]
    );
    assert_eq!(
        keys(&v11.plan_latest_full(3).unwrap()),
        vec![(3, 0, vec!["f1", "g"])]
    );
    // 1.2.0 streams them as 2.0 does (DataTableStreamScan, apache/paimon#5783).
    assert_eq!(
        keys(
            &open(dir.path(), PaimonRelease::V1_2_0)
                .plan_stream(1, 3)
                .unwrap()
        ),
        vec![(1, 0, vec!["f0", "f1"]), (3, -2, vec!["h"])]
    );
    // 2.0 streaming with another producer: skipped in the first plan too.
    let dir = table(r#""changelog-producer":"input""#);
    assert_eq!(
        keys(
            &open(dir.path(), PaimonRelease::V2_0_0)
                .plan_latest_full(3)
                .unwrap()
        ),
        vec![(3, 0, vec!["f1", "g"])]
    );
}

#[test]
fn overwrite_changes_plan_by_line() {
    // Snapshot 4 (index manifest: a DV for f-dv, also in snapshot 3's) becomes an OVERWRITE that deletes
    // f-dv and f-same, adds f-new and f-same again.
    let dir = tempfile::tempdir().unwrap();
    build_table(
        dir.path(),
        r#""p","k""#,
        r#""bucket":"1","streaming-read-overwrite":"true","deletion-vectors.enabled":"true""#,
        &[
            e(1, Some("a"), 0, "f-dv"),
            e(0, Some("a"), 0, "f-new"),
            e(1, Some("a"), 0, "f-same"),
            e(0, Some("a"), 0, "f-same"),
        ],
    );
    edit_snapshot(
        dir.path(),
        4,
        r#""commitKind":"COMPACT""#,
        r#""commitKind":"OVERWRITE""#,
    );
    let before =
        |s: &Split| -> Vec<String> { s.before_files.iter().map(|f| f.file_name.clone()).collect() };
    // 1.0 SnapshotReaderImpl#toChangesPlan: before.removeIf(data::remove) drops f-same from both sides;
    // deletion files from snapshot 3's (before) and 4's (after) index manifests.
    let v1 = open(dir.path(), PaimonRelease::V1_0_0)
        .plan_stream(4, 4)
        .unwrap();
    assert_eq!(v1.len(), 1);
    assert_eq!(
        (before(&v1[0]), names(&v1[0])),
        (vec!["f-dv".to_string()], vec!["f-new"])
    );
    assert!(v1[0].before_deletion_files[0].is_some());
    assert_eq!(v1[0].deletion_files, vec![None]);
    // 2.0 toIncrementalPlan: deduplicate compares ManifestEntry (kind included), so nothing is dropped;
    // streaming, so no deletion files.
    let v2 = open(dir.path(), PaimonRelease::V2_0_0)
        .plan_stream(4, 4)
        .unwrap();
    assert_eq!(v2.len(), 1);
    assert_eq!(
        (before(&v2[0]), names(&v2[0])),
        (
            vec!["f-dv".to_string(), "f-same".to_string()],
            vec!["f-new", "f-same"]
        )
    );
    assert!(v2[0].deletion_files.is_empty() && v2[0].before_deletion_files.is_empty());
    for s in v1.iter().chain(&v2) {
        assert!(s.is_streaming && !s.raw_convertible);
    }
}

#[test]
fn append_overwrite_streaming_by_line() {
    // An append table whose snapshot 2 is an OVERWRITE (e.g. 2.0's shouldBeOverwriteCommit for a DELETE):
    // DeltaFollowUpScanner skips it, unless 2.0's streaming-read-append-overwrite makes
    // AppendOnlyFileStoreTable#supportStreamingReadOverwrite true (then the ADD files of its delta, DELTA).
    for (options, v1, v2) in [
        ("", vec![1, 3], vec![1, 3]),
        (
            r#","streaming-read-append-overwrite":"true""#,
            vec![1, 3],
            vec![1, 2, 3],
        ),
        (
            r#","streaming-read-overwrite":"true""#,
            vec![1, 3],
            vec![1, 3],
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        build_table(
            dir.path(),
            "",
            &format!(r#""bucket":"1"{options}"#),
            &[e(0, Some("a"), 0, "f-a"), e(1, Some("a"), 0, "f-gone")],
        );
        edit_snapshot(
            dir.path(),
            2,
            r#""commitKind":"COMPACT""#,
            r#""commitKind":"OVERWRITE""#,
        );
        edit_snapshot(
            dir.path(),
            3,
            r#""deltaManifestList":"list-empty""#,
            r#""deltaManifestList":"list-delta""#,
        );
        for (line, want) in [(PaimonRelease::V1_0_0, &v1), (PaimonRelease::V2_0_0, &v2)] {
            let splits = open(dir.path(), line).plan_stream(1, 3).unwrap();
            assert_eq!(&snapshot_ids(&splits), want, "{options} on {line}");
            assert!(splits
                .iter()
                .all(|s| names(s) == vec!["f-a"] && s.before_files.is_empty()));
        }
    }
}

/// A released reader's streaming split key: `(snapshot, partition, bucket, file count)`.
type SplitKeyCount = (i64, Vec<Option<String>>, i32, usize);

/// The corpus `name` (1.0.0-written) and its released reader's streaming split keys.
fn corpus_stream(name: &str) -> (std::path::PathBuf, Vec<SplitKeyCount>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora")
        .join(name);
    let case: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
    let keys = case["expected"]["stream_from_snapshot_1"]["per_split"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let partition = s["partition"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect();
            (
                s["snapshot_id"].as_i64().unwrap(),
                partition,
                s["bucket"].as_i64().unwrap() as i32,
                s["files"].as_u64().unwrap() as usize,
            )
        })
        .collect();
    (dir.join("table"), keys)
}

#[test]
fn corpora_stream_the_same_splits_under_both_lines() {
    // 1.0 writers put changelog only on the snapshots 1.0's follow-up scanners read (`input`: APPEND,
    // `lookup`/`full-compaction`: COMPACT; checked on the tables' own snapshot files below), so 2.0's
    // ChangelogFollowUpScanner plans the same splits as the released 1.0.0 reader did (case.json); only
    // deletion files leave streaming splits.
    for name in [
        "c00-lookup-fault",
        "c00-full-compaction-control",
        "c07-deletion-vectors",
        "c08-lookup-compact-snapshots",
        "format-parquet",
        "lookup-partitioned",
        "two-writers-full-compaction",
        "c11-streaming-read-overwrite",
    ] {
        let (table, expected) = corpus_stream(name);
        let t1 = open(&table, PaimonRelease::V1_0_0);
        let latest = t1.latest_snapshot_id().unwrap().unwrap();
        let producer = t1.options().changelog_producer;
        for id in 1..=latest {
            let s = t1.snapshot(id).unwrap();
            if s.changelog_manifest_list.is_some() {
                let expected_kind = if producer == ChangelogProducer::Input {
                    CommitKind::Append
                } else {
                    CommitKind::Compact
                };
                assert_eq!(s.commit_kind, expected_kind, "{name} snapshot {id}");
            }
        }
        for line in LINES {
            let splits = open(&table, line).plan_stream(1, latest).unwrap();
            let got: Vec<_> = splits
                .iter()
                .map(|s| {
                    (
                        s.snapshot_id,
                        s.partition.clone(),
                        s.bucket,
                        s.data_files.len(),
                    )
                })
                .collect();
            assert_eq!(got, expected, "{name} on {line}");
            let dv = t1.options().deletion_vectors_enabled && line.rules().streaming_deletion_files;
            for s in &splits {
                assert_eq!(
                    s.deletion_files.len(),
                    if dv { s.data_files.len() } else { 0 },
                    "{name}"
                );
            }
        }
    }
}
