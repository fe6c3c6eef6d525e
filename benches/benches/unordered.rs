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

use std::time::Instant;

use harness::diff::diff_multiset;

#[path = "../../harness/tests/counting/mod.rs"]
mod counting;
#[path = "../../harness/tests/lazy_split/mod.rs"]
mod lazy_split;

const MIB: usize = 1 << 20;

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
                let started = Instant::now();
                let (out, peak) = counting::peak_growth(|| {
                    let native = if reversed {
                        lazy_split::split_from_end(n, 10_000, Some(missing))
                    } else {
                        lazy_split::split(n, 10_000, None, Some(missing), false)
                    };
                    diff_multiset(lazy_split::split(n, 8192, None, None, false), native, limit)
                });
                let secs = started.elapsed().as_secs_f64();
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
