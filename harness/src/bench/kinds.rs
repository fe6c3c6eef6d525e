//! The split kinds of a benchmark (changelog, raw batch, merge-on-read batch) and the measurements of one kind.

use std::path::Path;
use std::sync::Arc;

use native_reader::merge::{split_read_kind, SplitReadKind};
use native_reader::scan::ScanMode;
use native_reader::{Split, Table};

use super::plain::{plain_first_row, plain_format, plain_measurement, plain_open};
use super::timing::{mean_us, measure, measure_java_count};
use super::*;

/// Plans the splits of each kind. With the stock reader, its plans (so both sides read the same splits);
/// without it, the native plans (no payload).
///
/// Errors: either reader's planning errors.
pub fn plan_kinds(
    table: &Path,
    native: &Arc<Table>,
    stock: Option<&jvm_bridge::StockReader>,
    end: i64,
) -> Result<Vec<KindSplits>> {
    let plan = |mode: ScanMode| -> Result<Vec<jvm_bridge::StockSplit>> {
        match stock {
            Some(s) => Ok(s.plan(table, mode, end)?),
            None => Ok(native
                .plan(mode, end)?
                .into_iter()
                .map(|split| jvm_bridge::StockSplit {
                    split,
                    payload: Vec::new(),
                    wire: None,
                })
                .collect()),
        }
    };
    let mut out = Vec::new();
    let stream: Vec<_> = plan(ScanMode::Stream { from_snapshot: 1 })?
        .into_iter()
        .filter(|s| !s.split.data_files.is_empty())
        .collect();
    if !stream.is_empty() {
        out.push(KindSplits {
            kind: "changelog",
            plan: "stream from snapshot 1".into(),
            splits: stream,
            scan: (ScanMode::Stream { from_snapshot: 1 }, end),
        });
    }
    let pk = native.is_primary_key_table();
    let mut raw: Option<KindSplits> = None;
    let mut merge: Option<KindSplits> = None;
    // The latest snapshot that has splits of a kind supplies that kind's splits.
    let earliest = native.earliest_snapshot_id()?.unwrap_or(1);
    let mut id = end;
    while id >= earliest && (raw.is_none() || merge.is_none()) {
        let splits = plan(ScanMode::Batch { snapshot: Some(id) })?;
        let mut r = Vec::new();
        let mut m = Vec::new();
        for s in splits {
            match split_read_kind(pk, &s.split, false)? {
                // Batch plans carry no before-files, so `Changes` does not occur here.
                SplitReadKind::Merge | SplitReadKind::Changes | SplitReadKind::Diff => m.push(s),
                SplitReadKind::Raw | SplitReadKind::NoMerge => r.push(s),
            }
        }
        if raw.is_none() && !r.is_empty() {
            raw = Some(KindSplits {
                kind: "raw",
                plan: format!("batch snapshot {id}"),
                splits: r,
                scan: (ScanMode::Batch { snapshot: Some(id) }, id),
            });
        }
        if merge.is_none() && !m.is_empty() {
            merge = Some(KindSplits {
                kind: "merge",
                plan: format!("batch snapshot {id}"),
                splits: m,
                scan: (ScanMode::Batch { snapshot: Some(id) }, id),
            });
        }
        id -= 1;
    }
    out.extend(raw);
    out.extend(merge);
    Ok(out)
}

pub(super) fn bench_kind(
    table: &Path,
    native: &Arc<Table>,
    stock: Option<&jvm_bridge::StockReader>,
    k: &KindSplits,
    opts: &BenchOptions,
    readers: &[Box<dyn crate::reader::TableReader>],
    store: Option<&StoreCopy>,
) -> Result<KindReport> {
    let splits: Vec<Split> = k.splits.iter().map(|s| s.split.clone()).collect();
    let files = split_files(&splits);
    let file_bytes: u64 = splits
        .iter()
        .flat_map(|s| s.data_files.iter())
        .map(|f| f.file_size.max(0) as u64)
        .sum();
    let file_rows: u64 = splits.iter().map(|s| s.row_count().max(0) as u64).sum();
    let samples = opts.samples.max(1);
    // The splits as a replay hands them to its readers (the replay kinds and the external readers).
    let planned: Vec<crate::reader::PlannedSplit> = k
        .splits
        .iter()
        .cloned()
        .map(crate::reader::PlannedSplit::from)
        .collect();
    let mut measurements = Vec::new();

    let native_1t = measure("native-1t", samples, file_bytes, || {
        native_read_all(native, &splits, 1)
    })?;
    let rows = native_1t.rows;
    measurements.push(native_1t);
    let flamegraph = match &opts.flamegraph_dir {
        Some(dir) => {
            let path = dir.join(format!("{}.svg", k.kind));
            let title = format!(
                "native-1t, {} splits ({}), {}",
                k.kind,
                k.plan,
                table.display()
            );
            let runs = flamegraph(&path, &title, 3.0, || native_read_all(native, &splits, 1))?;
            eprintln!(
                "bench:   flame graph of {runs} native-1t runs: {}",
                path.display()
            );
            Some(path.display().to_string())
        }
        None => None,
    };
    if opts.threads > 1 {
        measurements.push(measure("native-par", samples, file_bytes, || {
            native_read_all_with(
                native,
                &splits,
                opts.threads,
                opts.buffer_bytes,
                opts.decode_ahead,
            )
        })?);
    }
    let store_requests = match store {
        Some(copy) => {
            let (timed, requests) = copy.measure(&splits, file_bytes, opts)?;
            measurements.extend(timed);
            Some(requests)
        }
        None => None,
    };
    if let Some(stock) = stock {
        measurements.push(measure("stock-export", samples, file_bytes, || {
            let mut n = 0u64;
            for s in &k.splits {
                for b in stock.read_split(table, s)? {
                    n += b?.num_rows() as u64;
                }
            }
            Ok(n)
        })?);
        measurements.push(measure_java_count(
            stock, table, &k.splits, samples, file_bytes,
        )?);
        // The whole replay of these splits (both readers and the row diff), at 1 thread and at
        // `--threads`: its floor is `stock-export`, which a replay must read through.
        let stock_reader = crate::reader::StockTableReader::new()?;
        let native_reader =
            crate::reader::NativeTableReader::for_release(crate::reader::this_release()?);
        let replay_at = |name: &str, threads: usize| {
            measure(name, samples, file_bytes, || {
                let reports = crate::replay::compare_splits(
                    table,
                    &stock_reader,
                    &native_reader,
                    &planned,
                    threads,
                    crate::replay::DEFAULT_BUDGET_BYTES,
                );
                if let Some(r) = reports
                    .iter()
                    .find(|r| r.verdict != crate::replay::SplitVerdict::Identical)
                {
                    return Err(Error::Compare(format!(
                        "{name}: split {} is {}: {}",
                        r.key,
                        r.verdict.word(),
                        r.detail.clone().unwrap_or_default()
                    )));
                }
                Ok(reports
                    .iter()
                    .filter_map(|r| r.stock_rows.map(|c| c.total()))
                    .sum())
            })
        };
        measurements.push(replay_at("replay-1t", 1)?);
        if opts.threads > 1 {
            measurements.push(replay_at("replay-par", opts.threads)?);
        }
    }
    // Other readers of the external protocol, on the same splits (the released planner's, as a replay
    // hands them): the whole read, and per split the time to the first byte of its answer and from there
    // to the last (what the reader spends before answering vs streaming the answer).
    let mut unmeasured = BTreeMap::new();
    let mut fixed_external = BTreeMap::new();
    if !readers.is_empty() {
        for reader in readers {
            let name = format!("reader:{}", reader.side());
            let read = || -> Result<u64> {
                reader.begin_read(table, k.scan.0, k.scan.1, &planned)?;
                let mut n = 0u64;
                for p in &planned {
                    for b in reader.read_split(table, p)? {
                        n += b?.num_rows() as u64;
                    }
                }
                Ok(n)
            };
            match measure(&name, samples, file_bytes, read) {
                Ok(m) => {
                    let timings = reader.answer_timings();
                    let per_split_us = |d: std::time::Duration| {
                        d.as_secs_f64() * 1e6 / timings.len().max(1) as f64
                    };
                    fixed_external.insert(
                        format!("{name}-to-first-byte"),
                        per_split_us(timings.iter().map(|t| t.to_first_byte).sum()),
                    );
                    fixed_external.insert(
                        format!("{name}-first-to-last-byte"),
                        per_split_us(timings.iter().map(|t| t.first_to_last_byte).sum()),
                    );
                    measurements.push(m);
                }
                Err(e) => {
                    eprintln!("bench:   {name}: not measured: {e}");
                    unmeasured.insert(name, e.to_string());
                }
            }
        }
    }
    // The plain decoders are a baseline, not a reader under test: when they cannot decode a file that
    // Paimon wrote (orc-rust overflows on year-9999 timestamps in nanoseconds), the baseline is left out
    // and the rest of the comparison still runs.
    match plain_measurement(&files, samples, file_bytes) {
        Ok(Some(plain)) => measurements.push(plain),
        Ok(None) => {}
        Err(e) => eprintln!("bench:   plain: not measured: {e}"),
    }

    let open_first_rows = || -> Result<u64> {
        for s in &splits {
            let mut r = native_reader::merge::read_split(native, s, 1)?;
            if let Some(b) = r.next() {
                b?;
            }
        }
        Ok(splits.len() as u64)
    };
    let mut fixed_cost_us = fixed_external;
    fixed_cost_us.insert(
        "native-open-first-row".into(),
        mean_us(samples, splits.len(), || open_first_rows().map(|_| ()))?,
    );
    if let Some(dir) = &opts.flamegraph_dir {
        // Where the fixed cost per split goes: opening each split and reading its first row, over and over.
        let path = dir.join(format!("{}-open-first-row.svg", k.kind));
        let title = format!(
            "native open + first row, {} splits ({}), {}",
            k.kind,
            k.plan,
            table.display()
        );
        let runs = super::flamegraph(&path, &title, 3.0, open_first_rows)?;
        eprintln!(
            "bench:   flame graph of {runs} opens of every split: {}",
            path.display()
        );
    }
    if plain_format(&files).is_some() {
        // The floor of the native fixed cost: the plain decoder's first row of each file the native reader
        // must open before its first row (every file of a merge split, whose runs all start at once; the
        // first file of other splits).
        let first_files: Vec<PathBuf> = splits
            .iter()
            .flat_map(|s| {
                let n = if k.kind == "merge" {
                    s.data_files.len()
                } else {
                    1
                };
                split_files(std::slice::from_ref(s)).into_iter().take(n)
            })
            .collect();
        fixed_cost_us.insert(
            "plain-open-first-row".into(),
            mean_us(samples, splits.len(), || {
                for f in &first_files {
                    plain_first_row(f)?;
                }
                Ok(())
            })?,
        );
        fixed_cost_us.insert(
            "plain-footer-per-file".into(),
            mean_us(samples, files.len(), || {
                for f in &files {
                    plain_open(f)?;
                }
                Ok(())
            })?,
        );
    }
    if let Some(stock) = stock {
        fixed_cost_us.insert(
            "stock-open-first-batch".into(),
            mean_us(samples, splits.len(), || {
                for s in &k.splits {
                    let mut it = stock.read_split(table, s)?;
                    if let Some(b) = it.next() {
                        b?;
                    }
                }
                Ok(())
            })?,
        );
    }

    let median = |name: &str| {
        measurements
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.median_s)
    };
    let mut ratios = BTreeMap::new();
    let mut ratio = |label: &str, fast: &str, slow: &str| {
        if let (Some(f), Some(s)) = (median(fast), median(slow)) {
            if f > 0.0 {
                ratios.insert(label.to_string(), s / f);
            }
        }
    };
    ratio("native-1t vs stock-export", "native-1t", "stock-export");
    ratio("native-1t vs stock-count", "native-1t", "stock-count");
    ratio("native-1t vs plain", "native-1t", "plain");
    ratio("native-par vs native-1t", "native-par", "native-1t");
    ratio("native-par vs stock-export", "native-par", "stock-export");
    ratio("replay-1t vs stock-export", "replay-1t", "stock-export");
    ratio("replay-par vs replay-1t", "replay-par", "replay-1t");
    ratio(
        "native-1t vs native-1t-store",
        "native-1t",
        "native-1t-store",
    );
    ratio(
        "native-par vs native-par-store",
        "native-par",
        "native-par-store",
    );
    for reader in readers {
        let name = format!("reader:{}", reader.side());
        ratio(&format!("native-1t vs {name}"), "native-1t", &name);
        ratio(&format!("{name} vs stock-export"), &name, "stock-export");
    }
    Ok(KindReport {
        kind: k.kind.into(),
        plan: k.plan.clone(),
        splits: splits.len(),
        files: files.len(),
        file_bytes,
        file_rows,
        rows,
        measurements,
        fixed_cost_us,
        ratios,
        flamegraph,
        unmeasured,
        store_requests,
    })
}
