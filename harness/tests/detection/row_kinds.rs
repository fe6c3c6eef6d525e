//! RowKind changed.

use arrow_array::RecordBatch;
use harness::diff::MismatchKind;

use super::*;

fn with_kinds(k: [i8; 5]) -> RecordBatch {
    with_column(&base(), "_row_kind", kinds(&k))
}

#[test]
fn row_kind_insert_to_update_after_is_caught() {
    let m = assert_pinpointed(
        &planted(with_kinds([0, 2, 1, 2, 3])),
        &key(),
        1,
        "_row_kind",
        "+I",
        "+U",
    );
    assert_eq!(m.kind, MismatchKind::Value);
}

#[test]
fn row_kind_update_before_to_delete_is_caught() {
    assert_pinpointed(
        &planted(with_kinds([0, 0, 3, 2, 3])),
        &key(),
        2,
        "_row_kind",
        "-U",
        "-D",
    );
}

#[test]
fn row_kinds_update_before_and_after_swapped_are_caught() {
    let report = planted(with_kinds([0, 0, 2, 1, 3]));
    assert_pinpointed(&report, &key(), 2, "_row_kind", "-U", "+U");
    assert_eq!(differing(&report)[0].differing_rows, 2);
}
