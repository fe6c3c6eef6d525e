//! Rows missing, extra, swapped, moved.

use std::sync::Arc;

use arrow_array::ArrayRef;
use harness::diff::MismatchKind;

use super::*;

#[test]
fn missing_row_is_caught_as_one_row_only_in_stock() {
    let b = base();
    let report = planted(rows(&b, &[0, 1, 3, 4]));
    let expected = harness::diff::render_row(&b, 2);
    let m = assert_pinpointed(&report, &key(), 2, "<row>", &expected, "<none>");
    assert_eq!(m.kind, MismatchKind::Missing);
    assert_eq!(
        differing(&report)[0].differing_rows,
        1,
        "realigned after it"
    );
    assert!(expected.starts_with("-U (3, 7.89"), "{expected}");
}

#[test]
fn missing_last_row_is_caught() {
    let b = base();
    let report = planted(rows(&b, &[0, 1, 2, 3]));
    let m = assert_pinpointed(
        &report,
        &key(),
        4,
        "<row>",
        &harness::diff::render_row(&b, 4),
        "<none>",
    );
    assert_eq!(m.kind, MismatchKind::Missing);
}

#[test]
fn extra_row_is_caught_as_one_row_only_in_native() {
    let b = base();
    // A copy of row 0 with another id, inserted at ordinal 1.
    let extra = with_column(
        &rows(&b, &[0]),
        "id",
        Arc::new(arrow_array::Int32Array::from(vec![99])) as ArrayRef,
    );
    let native =
        arrow::compute::concat_batches(&b.schema(), &[b.slice(0, 1), extra.clone(), b.slice(1, 4)])
            .unwrap();
    let report = planted(native);
    let m = assert_pinpointed(
        &report,
        &key(),
        1,
        "<row>",
        "<none>",
        &harness::diff::render_row(&extra, 0),
    );
    assert_eq!(m.kind, MismatchKind::Extra);
    assert_eq!(differing(&report)[0].differing_rows, 1);
}

#[test]
fn extra_last_row_is_caught() {
    let b = base();
    let report = planted(rows(&b, &[0, 1, 2, 3, 4, 4]));
    let m = assert_pinpointed(
        &report,
        &key(),
        5,
        "<row>",
        "<none>",
        &harness::diff::render_row(&b, 4),
    );
    assert_eq!(m.kind, MismatchKind::Extra);
}

#[test]
fn two_swapped_rows_are_caught() {
    let report = planted(rows(&base(), &[0, 2, 1, 3, 4]));
    // Rows 1 and 2 differ first in the RowKind (+I vs -U).
    let m = assert_pinpointed(&report, &key(), 1, "_row_kind", "+I", "-U");
    assert_eq!(m.kind, MismatchKind::Swapped);
    assert_eq!(differing(&report)[0].differing_rows, 2);
    assert!(m.context.contains("rows 1 and 2"), "{}", m.context);
}

#[test]
fn rows_moved_to_another_split_are_caught_in_both() {
    let b = base();
    let a = split(3, "p1", 2, &["data-a.parquet"]);
    let c = split(3, "p1", 3, &["data-c.parquet"]);
    let stock = vec![(a.clone(), vec![b.clone()]), (c.clone(), vec![b.clone()])];
    // The native reader returns the last row of split a at the end of split c.
    let native = vec![
        (a.clone(), vec![b.slice(0, 4)]),
        (c.clone(), vec![b.clone(), b.slice(4, 1)]),
    ];
    let report = replay_mem(stock, native, false);
    let text = text(&report);
    assert_eq!(report.exit_code(), 1);
    let d = differing(&report);
    assert_eq!(d.len(), 2, "{text}");
    let moved = harness::diff::render_row(&b, 4);
    let ma = d[0].first_mismatch.as_ref().unwrap();
    assert_eq!(d[0].key, a.key());
    assert_eq!((ma.row, ma.field.as_str()), (4, "<row>"));
    assert_eq!(
        (ma.stock.as_str(), ma.native.as_str()),
        (moved.as_str(), "<none>")
    );
    let mc = d[1].first_mismatch.as_ref().unwrap();
    assert_eq!(d[1].key, c.key());
    assert_eq!((mc.row, mc.field.as_str()), (5, "<row>"));
    assert_eq!(
        (mc.stock.as_str(), mc.native.as_str()),
        ("<none>", moved.as_str())
    );
    assert!(text.contains(&format!(
        "{}, row 4, field <row>: stock {moved} | native <none>",
        a.key()
    )));
    assert!(text.contains(&format!(
        "{}, row 5, field <row>: stock <none> | native {moved}",
        c.key()
    )));
}

#[test]
fn missing_row_at_a_batch_boundary_is_realigned() {
    let b = base();
    // The native batches end right before and start right after the missing row 2.
    let native = vec![b.slice(0, 2), b.slice(3, 2)];
    let report = replay_mem(
        one_split(b.clone()),
        vec![(split(3, "p1", 2, &["data-a.parquet"]), native)],
        false,
    );
    let m = assert_pinpointed(
        &report,
        &key(),
        2,
        "<row>",
        &harness::diff::render_row(&b, 2),
        "<none>",
    );
    assert_eq!(m.kind, MismatchKind::Missing);
    assert_eq!(differing(&report)[0].differing_rows, 1);
}
