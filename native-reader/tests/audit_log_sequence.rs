//! `table-read.sequence-number.enabled` (Paimon 1.4+), natively: `$audit_log` of the committed corpus
//! `c50-audit-log-sequence-number` (written by Paimon 2.0.0; `merge-engine=aggregation`, `sum` of v, one bucket).
//! Expected sequence numbers are the writer's: one writer numbers the records of its bucket in write order
//! from 0 (`corpora/c50-audit-log-sequence-number/scenario.json`: 8 records, then 4, then 5), and a merged key
//! carries its last record's (`AggregateMergeFunction.getResult`). The released readers' agreement is
//! checked by the harness's `corpus_parity`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use native_reader::merge::read_split;
use native_reader::{Error, PaimonRelease, Table};

fn location() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora/c50-audit-log-sequence-number/paimon-2.0.0/table")
}

/// `(k, _SEQUENCE_NUMBER, v)` of `$audit_log`'s batch read as `release`, sorted by key; the column names.
fn audit_log(release: PaimonRelease) -> (Vec<String>, Vec<(i32, i64, i64)>) {
    let (table, _) =
        native_reader::system::open(Table::open_as(&location(), release).unwrap(), "audit_log")
            .unwrap();
    let table = Arc::new(table);
    let names = native_reader::merge::split_schema(&table)
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect::<Vec<_>>();
    let mut rows = Vec::new();
    for split in table.plan_batch(None).unwrap() {
        for batch in read_split(&table, &split, 2).unwrap() {
            let batch = batch.unwrap();
            assert_eq!(batch.schema(), native_reader::merge::split_schema(&table));
            let n = batch.num_columns();
            let k = batch.column(n - 2).as_primitive::<Int32Type>();
            let v = batch.column(n - 1).as_primitive::<Int64Type>();
            let seq = batch.column(2).as_primitive_opt::<Int64Type>();
            for i in 0..batch.num_rows() {
                rows.push((k.value(i), seq.map_or(-1, |s| s.value(i)), v.value(i)));
            }
        }
    }
    rows.sort();
    (names, rows)
}

#[test]
fn audit_log_rows_carry_the_sequence_number_of_their_last_record_from_1_4() {
    let expected = vec![
        // Commit 1: keys 1-8 numbered 0-7; commit 2: k1 8, k2 9, k3 -U 10 and +U 11; commit 4: k1 12,
        // k9 13, k4 -D 14, k5 -U 15 and +U 16.
        (1, 12, 1 + 10 + 100),
        (2, 9, 2 + 10),
        (3, 11, 30),
        (4, 14, 0),
        (5, 16, 50),
        (6, 5, 6),
        (7, 6, 7),
        (8, 7, 8),
        (9, 13, 9),
    ];
    for release in [PaimonRelease::V2_0_0, PaimonRelease::V1_4_2] {
        let (names, rows) = audit_log(release);
        assert_eq!(
            names,
            ["_row_kind", "rowkind", "_SEQUENCE_NUMBER", "k", "v"],
            "{release}"
        );
        assert_eq!(rows, expected, "{release}");
    }
    // 1.3 knows no such option: no such column.
    let (names, rows) = audit_log(PaimonRelease::V1_3_1);
    assert_eq!(names, ["_row_kind", "rowkind", "k", "v"]);
    assert_eq!(rows.len(), expected.len());
}

#[test]
fn a_sequence_number_option_that_is_not_a_boolean_fails_from_1_4_only() {
    let dir = std::env::temp_dir().join(format!("paimon-parity-audit-seq-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("schema")).unwrap();
    for entry in std::fs::read_dir(location().join("schema")).unwrap() {
        let entry = entry.unwrap();
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let text = text.replace(
            r#""table-read.sequence-number.enabled" : "true""#,
            r#""table-read.sequence-number.enabled" : "yes""#,
        );
        std::fs::write(dir.join("schema").join(entry.file_name()), text).unwrap();
    }
    let open = |release| {
        native_reader::system::open(Table::open_as(&dir, release).unwrap(), "audit_log").map(|_| ())
    };
    let err = open(PaimonRelease::V2_0_0).unwrap_err();
    assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("table-read.sequence-number.enabled"),
        "{err}"
    );
    open(PaimonRelease::V1_3_1).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}
