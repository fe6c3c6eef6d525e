//! Timing: warm-up and samples, medians, and the native reads the samples time.

use std::sync::Arc;
use std::time::Instant;

use native_reader::{Split, Table};

use super::*;

/// One warm-up run, then `samples` timed runs of `f` (which returns the rows it read).
pub(super) fn measure(
    name: &str,
    samples: usize,
    bytes: u64,
    mut f: impl FnMut() -> Result<u64>,
) -> Result<Measurement> {
    let rows = f()?;
    let mut times = Vec::with_capacity(samples);
    for _ in 0..samples {
        let t = Instant::now();
        let n = f()?;
        times.push(t.elapsed().as_secs_f64());
        if n != rows {
            return Err(Error::Compare(format!(
                "{name}: {n} rows in one run, {rows} in another"
            )));
        }
    }
    eprintln!(
        "bench:   {name}: {rows} rows, median {:.3} s",
        median_of(&times)
    );
    Ok(measurement(name, rows, times, bytes))
}

pub(super) fn measurement(name: &str, rows: u64, samples_s: Vec<f64>, bytes: u64) -> Measurement {
    let median_s = median_of(&samples_s);
    let per_s = |x: f64| if median_s > 0.0 { x / median_s } else { 0.0 };
    Measurement {
        name: name.into(),
        rows,
        rows_per_s: per_s(rows as f64),
        mb_per_s: per_s(bytes as f64) / 1e6,
        samples_s,
        median_s,
    }
}

/// The Java-side time of counting every split's rows (`StockReader.countSplit`), per sample.
pub(super) fn measure_java_count(
    stock: &jvm_bridge::StockReader,
    table: &Path,
    splits: &[jvm_bridge::StockSplit],
    samples: usize,
    bytes: u64,
) -> Result<Measurement> {
    let run = || -> Result<(u64, f64)> {
        let mut rows = 0u64;
        let mut nanos = 0i64;
        for s in splits {
            let (r, n) = stock.count_split(table, s)?;
            rows += r.max(0) as u64;
            nanos += n;
        }
        Ok((rows, nanos as f64 / 1e9))
    };
    let (rows, _) = run()?;
    let mut times = Vec::with_capacity(samples);
    for _ in 0..samples {
        let (n, t) = run()?;
        if n != rows {
            return Err(Error::Compare(format!(
                "stock-count: {n} rows in one run, {rows} in another"
            )));
        }
        times.push(t);
    }
    eprintln!(
        "bench:   stock-count: {rows} rows, median {:.3} s",
        median_of(&times)
    );
    Ok(measurement("stock-count", rows, times, bytes))
}

pub(super) fn median_of(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Median over `samples` runs of `f` (after a warm-up), in microseconds per unit (`units` per run).
pub(super) fn mean_us(
    samples: usize,
    units: usize,
    mut f: impl FnMut() -> Result<()>,
) -> Result<f64> {
    f()?;
    let mut times = Vec::with_capacity(samples);
    for _ in 0..samples {
        let t = Instant::now();
        f()?;
        times.push(t.elapsed().as_secs_f64());
    }
    Ok(median_of(&times) * 1e6 / units.max(1) as f64)
}

/// Reads every split with the native reader on `threads` threads; returns the rows read. More than one
/// thread goes through `native_reader::read::read_splits` (a rayon pool, splits handed out in plan order,
/// as a replay consumes them). One thread is a spawned thread rather than the caller's (which, with the stock
/// reader, is the thread that created the JVM), so that `native-1t` and `native-par` both decode on threads
/// of their own.
pub fn native_read_all(table: &Arc<Table>, splits: &[Split], threads: usize) -> Result<u64> {
    let defaults = native_reader::read::ReadOptions::default();
    native_read_all_with(
        table,
        splits,
        threads,
        defaults.buffer_bytes,
        defaults.decode_ahead,
    )
}

/// [`native_read_all`] with at most `buffer_bytes` of decoded batches buffered ahead of the consumer on
/// more than one thread (`native_reader::read::ReadOptions::buffer_bytes`): with few large splits, a small
/// budget holds every worker but the one on the split being consumed. `decode_ahead`: also decode inside
/// each split in parallel (`native_reader::read::ReadOptions::decode_ahead`).
pub(crate) fn native_read_all_with(
    table: &Arc<Table>,
    splits: &[Split],
    threads: usize,
    buffer_bytes: usize,
    decode_ahead: bool,
) -> Result<u64> {
    if threads <= 1 {
        return std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let mut n = 0u64;
                    let mut prefetched = 0;
                    for (i, s) in splits.iter().enumerate() {
                        // In a store, the next splits' files are fetched while this one is decoded.
                        prefetched = native_reader::read::prefetch_window(splits, i, prefetched);
                        n += native_read_split(table, s)?;
                    }
                    Ok(n)
                })
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
    }
    let options = native_reader::read::ReadOptions {
        threads,
        in_flight: 2 * threads,
        batch_size: BATCH_SIZE,
        buffer_bytes,
        decode_ahead,
    };
    let mut n = 0u64;
    for split in native_reader::read::read_splits(table.clone(), splits.to_vec(), options)? {
        for batch in split {
            n += batch?.num_rows() as u64;
        }
    }
    Ok(n)
}

/// Reads one split natively; returns its rows.
pub(crate) fn native_read_split(table: &Arc<Table>, split: &Split) -> Result<u64> {
    let mut n = 0u64;
    for b in native_reader::merge::read_split(table, split, BATCH_SIZE)? {
        n += b?.num_rows() as u64;
    }
    Ok(n)
}
