//! `replay --unordered` old against new: the multiset diff of one split held whole in its hash map (the
//! diff before DataFusion: no memory limit) against the same diff with a memory limit, beyond which the
//! rows not yet matched go to DataFusion's hash aggregation and spill to disk
//! (`harness::diff::diff_multiset`). Wall time, peak heap growth (a counting global allocator: every
//! allocation of the process, DataFusion's included) and bytes spilled, on synthetic splits of
//! `(_row_kind, id BIGINT, s STRING)` whose native side returns the rows in the stock order or in reverse
//! (the worst case: nothing matches until half the split has been read).
//!
//! `cargo bench -p paimon-parity-benches --bench unordered [-- ROWS...]` (default 1000000 4000000) prints
//! one Markdown table; benches/README.md keeps the last one.
// The counting global allocator below needs `unsafe impl GlobalAlloc` (the workspace denies unsafe_code).
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use arrow_array::builder::StringBuilder;
use arrow_array::{ArrayRef, Int64Array, Int8Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use harness::diff::diff_multiset;
use harness::reader::Batches;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = CURRENT.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MIB: usize = 1 << 20;

/// `rows` rows in batches of `batch`, lazily; `reversed`: the whole split from the last row to the first.
/// `missing`: this row is left out.
fn split(rows: u64, batch: u64, reversed: bool, missing: Option<u64>) -> Batches<'static> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("_row_kind", DataType::Int8, false),
        Field::new("id", DataType::Int64, false),
        Field::new("s", DataType::Utf8, true),
    ]));
    let starts = (0..rows.div_ceil(batch)).map(move |b| b * batch);
    Box::new(starts.map(move |start| {
        let end = (start + batch).min(rows);
        let ids: Vec<u64> = if reversed {
            (rows - end..rows - start).rev().collect()
        } else {
            (start..end).collect()
        };
        let ids: Vec<u64> = ids.into_iter().filter(|i| Some(*i) != missing).collect();
        let kinds = Int8Array::from_iter_values(ids.iter().map(|i| (i % 4) as i8));
        let id = Int64Array::from_iter_values(ids.iter().map(|i| *i as i64));
        let mut s = StringBuilder::with_capacity(ids.len(), ids.len() * 12);
        for i in &ids {
            let _ = write!(s, "row-{i}");
            s.append_value("");
        }
        let columns: Vec<ArrayRef> = vec![Arc::new(kinds), Arc::new(id), Arc::new(s.finish())];
        RecordBatch::try_new(schema.clone(), columns).map_err(|e| {
            harness::error::Error::CompareSource {
                context: "synthetic batch".into(),
                source: e.into(),
            }
        })
    }))
}

fn main() {
    let mut rows: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    if rows.is_empty() {
        rows = vec![1_000_000, 4_000_000];
    }
    println!("| rows per side | native order | diff | memory limit | wall s | peak heap MiB | spilled MiB | rows only in stock |");
    println!("|---:|---|---|---:|---:|---:|---:|---:|");
    for &n in &rows {
        for reversed in [false, true] {
            for (name, limit) in [
                ("in memory (before)", usize::MAX),
                ("DataFusion, spilling", 64 * MIB),
            ] {
                let missing = n / 3;
                let base = CURRENT.load(Ordering::Relaxed);
                PEAK.store(base, Ordering::Relaxed);
                let started = Instant::now();
                let out = diff_multiset(
                    split(n, 8192, false, None),
                    split(n, 10_000, reversed, Some(missing)),
                    limit,
                );
                let secs = started.elapsed().as_secs_f64();
                let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
                let (diff, spilled) = match out {
                    Ok(d) => d,
                    Err(e) => {
                        eprintln!("{name} on {n} rows failed: {}", e.error);
                        std::process::exit(1);
                    }
                };
                assert_eq!((diff.only_in_stock, diff.only_in_native), (1, 0));
                println!(
                    "| {n} | {} | {name} | {} | {secs:.2} | {:.1} | {:.1} | {} |",
                    if reversed { "reversed" } else { "same" },
                    if limit == usize::MAX {
                        "none".to_string()
                    } else {
                        format!("{} MiB", limit / MIB)
                    },
                    peak as f64 / MIB as f64,
                    spilled as f64 / MIB as f64,
                    diff.only_in_stock
                );
            }
        }
    }
}
