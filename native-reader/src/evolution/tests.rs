use super::*;
use crate::line::DataEvolution;

fn file(name: &str, first: Option<i64>, rows: i64, max_seq: i64) -> DataFileDesc {
    DataFileDesc {
        first_row_id: first,
        ..DataFileDesc::for_test(name, rows, max_seq)
    }
}

#[test]
fn row_id_groups_merge_overlapping_ranges_in_range_order_keeping_input_order() {
    // RangeHelper.mergeOverlappingRanges: sorted by (start, end); [5,7] and [6,9] overlap, [0,4] and [0,4]
    // too; [10,10] stands alone; inside a group the input order is kept.
    let files = vec![
        file("d", Some(6), 4, 1),
        file("a", Some(0), 5, 1),
        file("e", Some(10), 1, 1),
        file("b", Some(5), 3, 1),
        file("c", Some(0), 5, 2),
    ];
    assert_eq!(
        row_id_groups(&files, DataEvolution::ByRowIdRange).unwrap(),
        vec![vec![1, 4], vec![0, 3], vec![2]]
    );
    // Ranges are inclusive: [0,4] and [5,5] do not overlap; [0,4] and [4,4] do.
    let files = vec![file("a", Some(0), 5, 1), file("b", Some(5), 1, 1)];
    assert_eq!(
        row_id_groups(&files, DataEvolution::ByRowIdRange).unwrap(),
        vec![vec![0], vec![1]]
    );
    let files = vec![file("a", Some(0), 5, 1), file("b", Some(4), 1, 1)];
    assert_eq!(
        row_id_groups(&files, DataEvolution::ByRowIdRange).unwrap(),
        vec![vec![0, 1]]
    );
    assert!(
        row_id_groups::<DataFileDesc>(&[], DataEvolution::ByRowIdRange)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_file_without_first_row_id_is_named() {
    let files = vec![file("a", Some(0), 5, 1), file("x-1.parquet", None, 5, 1)];
    let reason = row_id_groups(&files, DataEvolution::ByRowIdRange).unwrap_err();
    assert!(
        reason.contains("x-1.parquet") && reason.contains("_FIRST_ROW_ID"),
        "{reason}"
    );
}

#[test]
fn merge_order_is_newest_first_and_stable() {
    let a = file("a", Some(0), 5, 1);
    let b = file("b", Some(0), 5, 3);
    let c = file("c", Some(0), 5, 3);
    let d = file("d", Some(0), 5, 2);
    assert_eq!(
        merge_order(&[&a, &b, &c, &d], "/t/bucket-0").unwrap(),
        vec![1, 2, 3, 0]
    );
    // Overlapping files that span different row ids are refused (Java's checkArgument), naming both.
    let e = file("e", Some(2), 5, 9);
    let err = merge_order(&[&a, &e], "/t/bucket-0").unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("/t/bucket-0") && text.contains("a") && text.contains("row ids 2..=6"),
        "{text}"
    );
}

#[test]
fn release_1_3_groups_equal_first_row_ids_newest_first() {
    // DataEvolutionSplitGenerator.split of 1.3.1: sorted by first row id, then max sequence number
    // descending (stable); one group per first row id; a file without one is a group alone, first.
    let files = vec![
        file("a", Some(0), 5, 1),
        file("b", Some(5), 3, 2),
        file("c", Some(0), 5, 3),
        file("d", Some(5), 3, 4),
        file("e", Some(0), 5, 5),
        file("x", None, 2, 9),
    ];
    assert_eq!(
        row_id_groups(&files, DataEvolution::ByFirstRowId).unwrap(),
        vec![vec![5], vec![4, 2, 0], vec![3, 1]]
    );
    // A file starting inside the previous group's rows is refused, named.
    let files = vec![
        file("a", Some(0), 5, 1),
        file("late-2.parquet", Some(3), 5, 2),
    ];
    let reason = row_id_groups(&files, DataEvolution::ByFirstRowId).unwrap_err();
    assert!(
        reason.contains("late-2.parquet") && reason.contains("row id 3"),
        "{reason}"
    );
    // Before 1.3.0 every file is read alone, in split order.
    assert_eq!(
        row_id_groups(&files, DataEvolution::Unknown).unwrap(),
        vec![vec![0], vec![1]]
    );
}
