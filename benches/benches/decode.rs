//! Decode throughput per split kind on the benchmark corpus (see `benches/README.md`):
//! native decode to Arrow (one thread and all cores), the released reader through the bridge with and
//! without the Arrow export, plain parquet-rs / orc-rust decoding of the same files, and the per-split
//! fixed cost (open and first row).
//!
//! `PAIMON_PARITY_BENCH_STOCK=0` leaves out the released reader (no JVM).

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use harness::bench::{native_read_all, plain_decode, plan_kinds, split_files};
use native_reader::{Split, Table};

fn decode(c: &mut Criterion) {
    let tables = paimon_parity_benches::tables();
    if tables.is_empty() {
        eprintln!(
            "no benchmark corpus in {}: run scripts/bench-corpus first",
            paimon_parity_benches::corpus_dir().display()
        );
        return;
    }
    let with_stock = std::env::var("PAIMON_PARITY_BENCH_STOCK").map_or(true, |v| v != "0");
    let stock = if with_stock {
        match jvm_bridge::StockReader::new() {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("released reader not available ({e}); native and plain only");
                None
            }
        }
    } else {
        None
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for (name, dir) in tables {
        let table = match Table::open(&dir) {
            Ok(t) => Arc::new(t),
            Err(e) => {
                eprintln!("{name}: {e}");
                continue;
            }
        };
        let Ok(Some(end)) = table.latest_snapshot_id() else {
            continue;
        };
        let kinds = match plan_kinds(&dir, &table, stock.as_ref(), end) {
            Ok(k) => k,
            Err(e) => {
                eprintln!("{name}: {e}");
                continue;
            }
        };
        for k in kinds {
            let splits: Vec<Split> = k.splits.iter().map(|s| s.split.clone()).collect();
            let rows: i64 = splits.iter().map(Split::row_count).sum();
            let files = split_files(&splits);
            let mut g = c.benchmark_group(format!("{name}/{}", k.kind));
            g.sample_size(10);
            g.throughput(Throughput::Elements(rows.max(0) as u64));
            g.bench_function("native-1t", |b| {
                b.iter(|| native_read_all(&table, &splits, 1).ok())
            });
            if cores > 1 {
                g.bench_function(BenchmarkId::new("native-par", cores), |b| {
                    b.iter(|| native_read_all(&table, &splits, cores).ok())
                });
            }
            if files.iter().all(|f| {
                matches!(
                    f.extension().and_then(|e| e.to_str()),
                    Some("parquet" | "orc")
                )
            }) {
                g.bench_function("plain", |b| {
                    b.iter(|| {
                        files
                            .iter()
                            .map(|f| plain_decode(f).unwrap_or(0))
                            .sum::<u64>()
                    })
                });
            }
            if let Some(stock) = &stock {
                g.bench_function("stock-export", |b| {
                    b.iter(|| {
                        let mut n = 0usize;
                        for s in &k.splits {
                            if let Ok(it) = stock.read_split(&dir, s) {
                                n += it.flatten().map(|b| b.num_rows()).sum::<usize>();
                            }
                        }
                        n
                    })
                });
                // Java-side time only (System.nanoTime around createReader and the read, no export).
                g.bench_function("stock-count", |b| {
                    b.iter_custom(|iters| {
                        let mut nanos = 0i64;
                        for _ in 0..iters {
                            for s in &k.splits {
                                if let Ok((_, n)) = stock.count_split(&dir, s) {
                                    nanos += n;
                                }
                            }
                        }
                        std::time::Duration::from_nanos(nanos.max(0) as u64)
                    })
                });
            }
            g.finish();
            // Per-split fixed cost: open the split and decode its first row.
            let mut g = c.benchmark_group(format!("{name}/{}/fixed-cost", k.kind));
            g.sample_size(10);
            g.throughput(Throughput::Elements(splits.len() as u64));
            g.bench_function("native-open-first-row", |b| {
                b.iter(|| {
                    for s in &splits {
                        if let Ok(mut r) = native_reader::merge::read_split(&table, s, 1) {
                            let _ = r.next();
                        }
                    }
                })
            });
            g.finish();
        }
    }
}

criterion_group!(benches, decode);
criterion_main!(benches);
