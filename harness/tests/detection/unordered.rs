//! `--unordered`: a split as a multiset.

use std::sync::Arc;

use arrow_array::{ArrayRef, StringViewArray};
use harness::diff::MismatchKind;

use super::*;

#[test]
fn unordered_accepts_reordered_rows_that_ordered_reports() {
    let b = base();
    let shuffled = rows(&b, &[3, 0, 4, 2, 1]);
    let stock = vec![(split(3, "p1", 2, &["data-a.parquet"]), cut(&b, &[2, 3]))];
    let native = vec![(
        split(3, "p1", 2, &["data-a.parquet"]),
        cut(&shuffled, &[1, 1, 3]),
    )];
    assert_identical(&replay_mem(stock.clone(), native.clone(), true));
    assert_eq!(replay_mem(stock, native, false).exit_code(), 1);
}

#[test]
fn unordered_reports_the_rows_only_one_side_has() {
    let b = base();
    // Native: rows reordered, row 1 missing, row 3 twice.
    let native = rows(&b, &[4, 3, 0, 2, 3]);
    let report = replay_mem(one_split(b.clone()), one_split(native), true);
    let row1 = harness::diff::render_row(&b, 1);
    let m = assert_pinpointed(&report, &key(), 1, "<row>", &row1, "<none>");
    assert_eq!(m.kind, MismatchKind::Missing);
    let d = differing(&report);
    assert_eq!(d[0].differing_rows, 2);
    let row3 = harness::diff::render_row(&b, 3);
    assert!(
        m.context
            .contains("1 rows only in stock, 1 rows only in native"),
        "{}",
        m.context
    );
    assert!(
        m.context.contains(&format!("- stock row 1: {row1}")),
        "{}",
        m.context
    );
    // The second copy of row 3 is native row 4.
    assert!(
        m.context.contains(&format!("+ native row 4: {row3}")),
        "{}",
        m.context
    );
}

#[test]
fn unordered_reports_an_extra_row() {
    let b = base();
    let native = rows(&b, &[1, 0, 2, 3, 4, 2]);
    let report = replay_mem(one_split(b.clone()), one_split(native), true);
    // The second copy of row 2 is native row 5.
    let m = assert_pinpointed(
        &report,
        &key(),
        5,
        "<row>",
        "<none>",
        &harness::diff::render_row(&b, 2),
    );
    assert_eq!(m.kind, MismatchKind::Extra);
}

#[test]
fn unordered_catches_every_value_difference_too() {
    // A NaN payload, a trailing space, map entry order: the multiset rows differ.
    let cases: Vec<(&str, ArrayRef)> = vec![
        (
            "f",
            doubles(&[
                1.5f64.to_bits(),
                0.0f64.to_bits(),
                NAN_OTHER,
                (-2.5f64).to_bits(),
                3.0f64.to_bits(),
            ]),
        ),
        (
            "s",
            strings(&[Some("a"), Some("bb "), Some(""), None, Some("e")]),
        ),
        (
            "m",
            map(&[
                Some(vec![("y", 2), ("x", 1)]),
                Some(vec![]),
                Some(vec![("k", 7)]),
                None,
                Some(vec![("a", 1), ("b", 2), ("c", 3)]),
            ]),
        ),
    ];
    for (column, array) in cases {
        let b = base();
        let native = with_column(&b, column, array);
        let report = replay_mem(one_split(b.clone()), one_split(native.clone()), true);
        let d = differing(&report);
        assert_eq!(report.exit_code(), 1, "{column}");
        assert_eq!(d.len(), 1, "{column}");
        assert_eq!(d[0].differing_rows, 2, "{column}: one row on each side");
        let m = d[0].first_mismatch.as_ref().unwrap();
        assert_eq!(m.field, "<row>");
        let changed = (0..5)
            .find(|r| harness::diff::render_row(&b, *r) != harness::diff::render_row(&native, *r))
            .unwrap();
        assert_eq!(m.row, changed as u64, "{column}");
        assert_eq!(m.stock, harness::diff::render_row(&b, changed), "{column}");
        assert!(
            m.context.contains(&format!(
                "+ native row {changed}: {}",
                harness::diff::render_row(&native, changed)
            )),
            "{column}: {}",
            m.context
        );
    }
}

#[test]
fn unordered_reports_a_type_difference_with_both_types() {
    let scaled: Vec<i128> = DECIMALS.iter().map(|v| v * 10).collect();
    let native = with_column(&base(), "dec", decimals(&scaled, 10, 3));
    let report = replay_mem(one_split(base()), one_split(native), true);
    let m = assert_pinpointed(
        &report,
        &key(),
        0,
        "dec",
        "1.23 (column dec: Decimal128(10, 2))",
        "1.230 (column dec: Decimal128(10, 3))",
    );
    assert_eq!(m.kind, MismatchKind::Type);
}

#[test]
fn unordered_accepts_representation_differences() {
    let v = [Some("a"), Some("bb"), Some(""), None, Some("e")];
    let native = with_column(
        &rows(&base(), &[4, 3, 2, 1, 0]),
        "s",
        Arc::new(StringViewArray::from(
            v.iter().rev().cloned().collect::<Vec<_>>(),
        )) as ArrayRef,
    );
    assert_identical(&replay_mem(one_split(base()), one_split(native), true));
}
