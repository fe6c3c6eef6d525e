//! A batch scan with a fallback branch, natively: the committed corpus `c26-fallback-branch` (written by
//! Paimon 2.0.0) has partitions 2 and 3 on the main branch and partitions 1, 2 and 4 on branch `b1`, which
//! the main branch names in `scan.fallback-branch`. And one with a primary branch: `c31-primary-branch` has
//! partitions 1, 2 and 4 on the main branch and 2 and 3 on branch `p1`, which the main branch names in
//! `scan.primary-branch`. Expected values are the scenarios' own writes
//! (`corpora/c26-fallback-branch/scenario.json`, `corpora/c31-primary-branch/scenario.json`), never this
//! reader's output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use native_reader::merge::read_split;
use native_reader::{PaimonRelease, Table};

fn table() -> PathBuf {
    corpus("c26-fallback-branch")
}

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../corpora/{name}/paimon-2.0.0/table"))
}

/// Per partition: whether its split is the fallback branch's, and its rows `(k, v)`.
fn batch(release: PaimonRelease) -> BTreeMap<String, (bool, Vec<(i32, String)>)> {
    batch_of(&table(), release)
}

/// [`batch`] of the table at `location`.
fn batch_of(
    location: &Path,
    release: PaimonRelease,
) -> BTreeMap<String, (bool, Vec<(i32, String)>)> {
    let table = Arc::new(Table::open_as(location, release).unwrap());
    let mut out = BTreeMap::new();
    for split in table.plan_batch(None).unwrap() {
        let mut rows = Vec::new();
        for batch in read_split(&table, &split, 16).unwrap() {
            let batch = batch.unwrap();
            let k = batch.column(2).as_primitive::<Int32Type>();
            let v = arrow_cast::cast(batch.column(3), &arrow_schema::DataType::Utf8).unwrap();
            let v = v.as_string::<i32>();
            for i in 0..batch.num_rows() {
                rows.push((k.value(i), v.value(i).to_string()));
            }
        }
        let partition = split.partition[0].clone().unwrap();
        assert!(
            out.insert(partition.clone(), (split.fallback, rows))
                .is_none(),
            "one split per partition here: {partition}"
        );
    }
    out
}

#[test]
fn partitions_the_main_branch_lacks_are_read_from_the_fallback_branch() {
    let s = |v: &str| v.to_string();
    for release in [
        PaimonRelease::V1_2_0,
        PaimonRelease::V1_3_1,
        PaimonRelease::V2_0_0,
    ] {
        let got = batch(release);
        let want: BTreeMap<String, (bool, Vec<(i32, String)>)> = [
            (s("1"), (true, vec![(1, s("b1-1-1b")), (2, s("b1-1-2"))])),
            // Partition 2 is on both branches: the main branch's rows, not b1's `b1-2-1`.
            (
                s("2"),
                (false, vec![(1, s("main-2-1")), (2, s("main-2-2"))]),
            ),
            (
                s("3"),
                (false, vec![(1, s("main-3-1b")), (2, s("main-3-2"))]),
            ),
            (s("4"), (true, vec![(1, s("b1-4-1"))])),
        ]
        .into_iter()
        .collect();
        assert_eq!(got, want, "{release}");
    }
}

#[test]
fn the_branch_itself_and_streams_of_the_main_branch_do_not_fall_back() {
    let b1 = Table::open_branch(&table(), Some("b1"), PaimonRelease::V2_0_0).unwrap();
    assert_eq!(b1.branch(), Some("b1"));
    assert!(b1.fallback().is_none());
    let mut partitions: Vec<_> = b1
        .plan_batch(None)
        .unwrap()
        .into_iter()
        .map(|s| (s.partition[0].clone().unwrap(), s.fallback))
        .collect();
    partitions.sort();
    assert_eq!(
        partitions,
        vec![
            ("1".into(), false),
            ("2".into(), false),
            ("4".into(), false)
        ]
    );
    let main = Table::open_as(&table(), PaimonRelease::V2_0_0).unwrap();
    let streamed = main.plan_stream(1, 2).unwrap();
    assert!(!streamed.is_empty() && streamed.iter().all(|s| !s.fallback));
    let err = Table::open_branch(&table(), Some("nope"), PaimonRelease::V2_0_0).unwrap_err();
    assert!(err.to_string().contains("branch-nope"), "{err}");
}

#[test]
fn partitions_of_the_primary_branch_are_read_from_it_and_the_rest_from_main() {
    let s = |v: &str| v.to_string();
    let location = corpus("c31-primary-branch");
    let main_1 = (s("1"), vec![(1, s("main-1-1b")), (2, s("main-1-2"))]);
    let main_4 = (s("4"), vec![(1, s("main-4-1"))]);
    for release in [PaimonRelease::V1_4_2, PaimonRelease::V2_0_0] {
        let got = batch_of(&location, release);
        let want: BTreeMap<String, (bool, Vec<(i32, String)>)> = [
            (main_1.0.clone(), (true, main_1.1.clone())),
            // Partition 2 is on both branches: p1's rows, not main's `main-2-1`.
            (s("2"), (false, vec![(1, s("p1-2-1")), (2, s("p1-2-2"))])),
            (s("3"), (false, vec![(1, s("p1-3-1b")), (2, s("p1-3-2"))])),
            (main_4.0.clone(), (true, main_4.1.clone())),
        ]
        .into_iter()
        .collect();
        assert_eq!(got, want, "{release}");
    }
    // 1.3 knows no primary branch: the main branch alone.
    let got = batch_of(&location, PaimonRelease::V1_3_1);
    let want: BTreeMap<String, (bool, Vec<(i32, String)>)> = [
        (main_1.0.clone(), (false, main_1.1.clone())),
        (s("2"), (false, vec![(1, s("main-2-1"))])),
        (main_4.0.clone(), (false, main_4.1.clone())),
    ]
    .into_iter()
    .collect();
    assert_eq!(got, want);
}
