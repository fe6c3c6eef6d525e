//! Splits of millions of rows are diffed streaming, with memory bounded by a batch, not by the split: the
//! batches are produced lazily, batch by batch, and a counting allocator measures the peak heap while the
//! diff runs (no timing assertions).

use harness::diff::{diff_multiset, diff_rows, diff_rows_unordered, MismatchKind};

mod counting;
mod lazy_split;

use counting::peak_growth;
use lazy_split::{split, split_from_end};

const MB: usize = 1 << 20;

/// The allocator counts the whole process: the tests of this file measure one at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Bytes the split would take if held whole: 1 + 8 + 4 (offset) + at least 9 string bytes per row.
fn whole_split_bytes(rows: u64) -> usize {
    rows as usize * 22
}

#[test]
fn millions_of_rows_are_diffed_streaming_with_memory_bounded_by_a_batch() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // Ordered: 3 million rows per side, different batch sizes on each side, one value changed near the end.
    let rows = 3_000_000u64;
    let planted = 2_999_990u64;
    let (diff, peak) = peak_growth(|| {
        diff_rows(
            split(rows, 8192, None, None, false),
            split(rows, 10_000, Some(planted), None, false),
        )
    });
    let diff = diff.expect("both sides read");
    assert_eq!(diff.stock_rows.total(), rows);
    assert_eq!(diff.native_rows.total(), rows);
    assert_eq!(diff.differing_rows, 1);
    let m = diff.first.expect("the planted change");
    assert_eq!(m.kind, MismatchKind::Value);
    assert_eq!((m.row, m.field.as_str()), (planted, "s"));
    assert_eq!(m.stock, format!("\"row-{planted}\""));
    assert_eq!(m.native, format!("\"row-{planted}-changed\""));
    assert!(
        peak < 8 * MB && peak * 4 < whole_split_bytes(rows),
        "ordered diff peak heap growth {peak} bytes for a split of {} bytes",
        whole_split_bytes(rows)
    );

    // Identical sides: no difference at all.
    let (diff, _) = peak_growth(|| {
        diff_rows(
            split(1_000_000, 4096, None, None, false),
            split(1_000_000, 7000, None, None, false),
        )
    });
    let diff = diff.expect("both sides read");
    assert_eq!((diff.differing_rows, diff.first.is_none()), (0, true));

    // Unordered: 2 million rows per side, every native batch in reverse order, one native row missing.
    let rows = 2_000_000u64;
    let missing = 1_234_567u64;
    let (diff, peak) = peak_growth(|| {
        diff_rows_unordered(
            split(rows, 8192, None, None, false),
            split(rows, 10_000, None, Some(missing), true),
        )
    });
    let diff = diff.expect("both sides read");
    assert_eq!(diff.stock_rows.total(), rows);
    assert_eq!(diff.native_rows.total(), rows - 1);
    assert_eq!(
        (diff.differing_rows, diff.only_in_stock, diff.only_in_native),
        (1, 1, 0)
    );
    let m = diff.first.expect("the missing row");
    assert_eq!(m.kind, MismatchKind::Missing);
    assert_eq!((m.row, m.field.as_str()), (missing, "<row>"));
    assert_eq!(
        m.stock,
        format!(
            "{} ({missing}, \"row-{missing}\")",
            ["+I", "-U", "+U", "-D"][(missing % 4) as usize]
        )
    );
    assert!(
        peak < 16 * MB && peak * 4 < whole_split_bytes(rows),
        "unordered diff peak heap growth {peak} bytes for a split of {} bytes",
        whole_split_bytes(rows)
    );
}

/// A split returned in the opposite order by the native side: nothing matches until half of it has been
/// read, so the rows not yet matched grow to half the split. Held in memory (no limit) they take what the
/// map needs; with a 16 MiB limit they go to DataFusion's aggregation and spill, the one missing row is
/// still found at its ordinal, and the peak heap is well under the unlimited one.
#[test]
fn a_reversed_split_spills_instead_of_holding_every_row() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let rows = 1_000_000u64;
    let missing = 654_321u64;
    let run = |limit: usize| {
        let (out, peak) = peak_growth(|| {
            diff_multiset(
                split(rows, 8192, None, None, false),
                split_from_end(rows, 10_000, Some(missing)),
                limit,
            )
        });
        let (diff, spilled) = out.expect("both sides read");
        assert_eq!(
            (diff.differing_rows, diff.only_in_stock, diff.only_in_native),
            (1, 1, 0)
        );
        let m = diff.first.expect("the missing row");
        assert_eq!((m.kind, m.row), (MismatchKind::Missing, missing));
        (peak, spilled)
    };
    let (held, not_spilled) = run(usize::MAX);
    let (spilling, spilled) = run(16 * MB);
    assert_eq!(not_spilled, 0);
    assert!(spilled > 0, "nothing was spilled");
    assert!(
        spilling * 2 < held && spilling < 64 * MB,
        "reversed split: peak heap growth {spilling} bytes with a 16 MiB limit, {held} without"
    );
    eprintln!("reversed split of {rows} rows: peak heap {held} bytes held, {spilling} spilling ({spilled} bytes spilled)");
}
