//! `sequence.snapshot-ordering`, natively: the committed corpus `c30-snapshot-ordering` (written by Paimon
//! 2.0.0). Two writers commit key 1 in the opposite order of the sequence numbers they stored: writer-a's
//! `a1-last` (stored 5) in snapshot 6, writer-b's `b1-last` (stored 3) in snapshot 7. Expected values are the
//! scenario's own writes and the released readers' results recorded with it
//! (`corpora/c30-snapshot-ordering/paimon-2.0.0/case.json`: 2.0.0's batch read), never this reader's output.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use native_reader::merge::read_split;
use native_reader::{Error, PaimonRelease, Split, Table};

fn location() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora/c30-snapshot-ordering/paimon-2.0.0/table")
}

/// The rows `(k, v)` of `splits` read as `table`'s release.
fn rows(table: &Arc<Table>, splits: &[Split]) -> Result<Vec<(i32, String)>, Error> {
    let mut out = Vec::new();
    for split in splits {
        for batch in read_split(table, split, 16)? {
            let batch = batch?;
            let k = batch.column(1).as_primitive::<Int32Type>();
            let v = arrow_cast::cast(batch.column(2), &arrow_schema::DataType::Utf8).unwrap();
            let v = v.as_string::<i32>();
            for i in 0..batch.num_rows() {
                out.push((k.value(i), v.value(i).to_string()));
            }
        }
    }
    out.sort();
    Ok(out)
}

#[test]
fn the_later_commit_wins_on_2_0_0_and_the_larger_stored_number_before() {
    let s = |k: i32, v: &str| (k, v.to_string());
    for (release, key1) in [
        // 2.0.0's released reader: snapshot 7 (writer-b) wins.
        (PaimonRelease::V2_0_0, "b1-last"),
        // 1.x knows no such option: writer-a's stored 5 beats writer-b's 3.
        (PaimonRelease::V1_4_2, "a1-last"),
        (PaimonRelease::V1_0_0, "a1-last"),
    ] {
        let table = Arc::new(Table::open_as(&location(), release).unwrap());
        let splits = table.plan_batch(None).unwrap();
        assert_eq!(
            rows(&table, &splits).unwrap(),
            vec![s(1, key1), s(2, "a2-late"), s(3, "b3")],
            "{release}"
        );
    }
}

#[test]
fn a_file_without_its_source_is_refused_under_snapshot_ordering() {
    let table = Arc::new(Table::open_as(&location(), PaimonRelease::V2_0_0).unwrap());
    let mut splits = table.plan_batch(None).unwrap();
    for split in &mut splits {
        for file in &mut split.data_files {
            file.file_source = None;
        }
    }
    let err = rows(&table, &splits).unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err}");
    assert!(err.to_string().contains("_FILE_SOURCE"), "{err}");
    // 1.4.2 reads by the stored numbers and needs no source.
    let table = Arc::new(Table::open_as(&location(), PaimonRelease::V1_4_2).unwrap());
    assert_eq!(rows(&table, &splits).unwrap().len(), 3);
}
