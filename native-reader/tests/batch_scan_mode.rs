//! `batch-scan-mode=compact` (Paimon 1.3+), natively: the committed corpus `c49-batch-scan-mode` (written by
//! Paimon 2.0.0), a deletion-vector primary-key table whose level-0 files a batch scan skips until the last
//! schema sets `batch-scan-mode=compact`. Expected rows are the released 2.0.0 writer's own batch reads,
//! recorded before and after that change (`corpora/c49-batch-scan-mode/paimon-2.0.0/case.json`), never this
//! reader's output.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int8Type};
use native_reader::merge::read_split;
use native_reader::{PaimonRelease, RowKind, Table};

use crate::common;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora/c49-batch-scan-mode/paimon-2.0.0")
}

/// The batch read of the latest snapshot as `release`, each row as `case.json` writes it: `+I (1, "v1-1")`.
fn batch_read(release: PaimonRelease) -> Vec<String> {
    let table = Arc::new(Table::open_as(&corpus().join("table"), release).unwrap());
    let mut out = Vec::new();
    for split in table.plan_batch(None).unwrap() {
        for batch in read_split(&table, &split, 2).unwrap() {
            let batch = batch.unwrap();
            let kind = batch.column(0).as_primitive::<Int8Type>();
            let k = batch.column(1).as_primitive::<Int32Type>();
            let v = arrow_cast::cast(batch.column(2), &arrow_schema::DataType::Utf8).unwrap();
            let v = v.as_string::<i32>();
            for i in 0..batch.num_rows() {
                let kind = RowKind::from_byte(kind.value(i)).unwrap();
                out.push(format!(
                    "{} ({}, \"{}\")",
                    kind.short_string(),
                    k.value(i),
                    v.value(i)
                ));
            }
        }
    }
    out.sort();
    out
}

/// The released writer's batch reads recorded in `case.json`, in step order, each sorted.
fn recorded() -> Vec<Vec<String>> {
    common::recorded_batch_reads(&corpus())
}

#[test]
fn compact_mode_keeps_level_0_from_1_3_and_earlier_releases_skip_it() {
    let [skipped, merged] = <[Vec<String>; 2]>::try_from(recorded()).unwrap();
    assert_ne!(skipped, merged);
    for release in [
        PaimonRelease::V2_0_0,
        PaimonRelease::V1_4_2,
        PaimonRelease::V1_3_1,
    ] {
        assert_eq!(batch_read(release), merged, "{release}");
    }
    for release in [PaimonRelease::V1_2_0, PaimonRelease::V1_0_0] {
        assert_eq!(batch_read(release), skipped, "{release}");
    }
}
