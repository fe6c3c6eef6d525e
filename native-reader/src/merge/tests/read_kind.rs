//! Which read a split gets: the rules of `KeyValueTableRead`.

use crate::merge::{split_read_kind, SplitReadKind};
use crate::split::{DataFileDesc, Split};

#[test]
fn read_kind_follows_key_value_table_read() {
    let split = |streaming, raw, drc: Option<i64>| Split {
        snapshot_id: 1,
        partition: vec![],
        bucket: 0,
        bucket_path: "/t/bucket-0".into(),
        data_files: vec![DataFileDesc {
            file_name: "f".into(),
            level: 1,
            row_count: 1,
            file_size: 1,
            min_sequence_number: 0,
            max_sequence_number: 0,
            schema_id: 0,
            delete_row_count: drc,
            min_key: vec![],
            max_key: vec![],
            external_path: None,
            first_row_id: None,
            write_cols: None,
            file_source: None,
        }],
        before_files: vec![],
        before_deletion_files: vec![],
        deletion_files: vec![],
        is_streaming: streaming,
        raw_convertible: raw,
        fallback: false,
    };
    use SplitReadKind::*;
    assert_eq!(
        split_read_kind(false, &split(false, false, None), false).unwrap(),
        NoMerge
    );
    assert_eq!(
        split_read_kind(true, &split(false, true, Some(0)), false).unwrap(),
        Raw
    );
    // `$audit_log` (forceKeepDelete) never reads raw: the same split is merged
    assert_eq!(
        split_read_kind(true, &split(false, true, Some(0)), true).unwrap(),
        Merge
    );
    // unknown delete-row counts force the merge reader (legacy files)
    assert_eq!(
        split_read_kind(true, &split(false, true, None), false).unwrap(),
        Merge
    );
    assert_eq!(
        split_read_kind(true, &split(true, true, Some(0)), false).unwrap(),
        NoMerge
    );
    assert_eq!(
        split_read_kind(true, &split(false, false, Some(0)), false).unwrap(),
        Merge
    );
    let mut with_before = split(false, false, Some(0));
    with_before.before_files = with_before.data_files.clone();
    // a batch split with before-files is a diff split (IncrementalDiffSplitRead)
    assert_eq!(split_read_kind(true, &with_before, false).unwrap(), Diff);
    // an append table reads its data files alone (RawFileSplitRead ignores the before-files)
    assert_eq!(
        split_read_kind(false, &with_before, false).unwrap(),
        NoMerge
    );
    // a streaming one is a changes split (IncrementalChangelogReadProvider), raw-convertible or not
    let mut streaming_before = split(true, true, Some(0));
    streaming_before.before_files = streaming_before.data_files.clone();
    assert_eq!(
        split_read_kind(true, &streaming_before, false).unwrap(),
        Changes
    );
    // without before-files a streaming split stays a no-merge split (MergeFileSplitReadProvider)
    assert_eq!(
        split_read_kind(true, &split(true, false, Some(0)), false).unwrap(),
        NoMerge
    );
}
