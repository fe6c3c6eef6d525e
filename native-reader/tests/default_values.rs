//! `fields.<f>.default-value` read natively as each release reads it, on the committed corpus
//! `c66-read-time-default-values` (written by Paimon 2.0.0, which stores and reads its NULLs as NULL): 1.0.0
//! to 1.2.0 fill each NULL of a column with a default value (`DefaultValueAssigner`), 1.3.0 on do not.
//!
//! Expected rows are the released 2.0.0 writer's own batch read of the latest snapshot (`case.json`), with
//! each NULL of a column that has a default replaced by the option's text as the column's type prints it.
//! The released readers' agreement, row for row and in every scan, is checked by the harness's
//! `corpus_parity`.

use std::path::{Path, PathBuf};

use native_reader::{Error, PaimonRelease, Table};

use crate::common;
use common::{batch_read, copy_dir, edit_latest_schema, recorded_batch_reads};

fn table() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora/c66-read-time-default-values/paimon-2.0.0")
}

/// The default of each column after the key `k`, as a read prints it: the table's options
/// `fields.<f>.default-value` (`7`, `none`, `12.5`, `2024-02-29`, `2024-01-02 03:04:05.678`, `true`, `2.25`,
/// `ab`) in the columns' types, DECIMAL(10, 2) with its scale and CHAR(4) padded to its length as the
/// STRING-to-CHAR cast pads it.
const DEFAULTS: [&str; 8] = [
    "7",
    "\"none\"",
    "12.50",
    "2024-02-29",
    "2024-01-02T03:04:05.678",
    "true",
    "2.25",
    "\"ab  \"",
];

/// The released 2.0.0 read of the latest snapshot, with every NULL after the key replaced by its default.
fn filled() -> Vec<String> {
    let latest = recorded_batch_reads(&table()).pop().unwrap();
    let mut rows: Vec<String> = latest
        .iter()
        .map(|row| {
            let (head, values) = row.split_once(" (").unwrap();
            let values = values.strip_suffix(')').unwrap();
            let mut cells: Vec<&str> = values.split(", ").collect();
            for (cell, default) in cells[1..].iter_mut().zip(DEFAULTS) {
                if *cell == "NULL" {
                    *cell = default;
                }
            }
            format!("{head} ({})", cells.join(", "))
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn releases_up_to_1_2_fill_nulls_with_default_values_and_later_ones_do_not() {
    let table = table().join("table");
    let recorded = recorded_batch_reads(&self::table()).pop().unwrap();
    assert!(recorded.iter().any(|r| r.contains("NULL")), "{recorded:?}");
    let filled = filled();
    assert!(filled.iter().all(|r| !r.contains("NULL")), "{filled:?}");
    for release in [
        PaimonRelease::V1_0_0,
        PaimonRelease::V1_0_1,
        PaimonRelease::V1_1_1,
        PaimonRelease::V1_2_0,
    ] {
        assert_eq!(batch_read(&table, release).unwrap(), filled, "{release}");
    }
    for release in [
        PaimonRelease::V1_3_1,
        PaimonRelease::V1_4_2,
        PaimonRelease::V2_0_0,
    ] {
        assert_eq!(batch_read(&table, release).unwrap(), recorded, "{release}");
    }
}

#[test]
fn a_default_value_that_does_not_cast_fails_the_read_naming_its_option() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("table");
    copy_dir(&table().join("table"), &copy);
    edit_latest_schema(
        &copy,
        "\"fields.i.default-value\" : \"7\"",
        "\"fields.i.default-value\" : \"seven\"",
    );
    // The Java cast throws (`BinaryStringUtils.toInt`: NumberFormatException) when the read starts.
    let err = batch_read(&copy, PaimonRelease::V1_0_0).unwrap_err();
    assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
    let text = err.to_string();
    assert!(text.contains("`fields.i.default-value`"), "{text}");
    assert!(text.contains("`seven`"), "{text}");
    assert!(text.contains("schema"), "{text}");
    // 2.0.0 ignores the option.
    assert_eq!(
        batch_read(&copy, PaimonRelease::V2_0_0).unwrap(),
        recorded_batch_reads(&table()).pop().unwrap()
    );
    // Opening and planning do not read it; the read does.
    let opened = Table::open_as(&copy, PaimonRelease::V1_0_0).unwrap();
    assert!(!opened.plan_batch(None).unwrap().is_empty());
}
