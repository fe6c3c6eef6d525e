//! The benchmark report for people, and where its JSON goes by default.

use std::io::Write;
use std::path::PathBuf;

use super::*;

/// The default JSON path: `benches/results/<UTC timestamp>.json` in the workspace.
pub fn default_json_path() -> PathBuf {
    let ts = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    workspace_dir().join(format!("benches/results/{ts}.json"))
}

/// Prints the report as a table: per kind, each measurement's rows/s and MB/s, then the ratios, fixed
/// costs and the readers that could not be measured (with the reason); the environment and samples.
pub fn write_text(out: &mut impl Write, r: &BenchReport) -> std::io::Result<()> {
    let e = &r.environment;
    writeln!(out, "table: {}", r.table)?;
    writeln!(
        out,
        "environment: {} ({} cores), {}, Paimon {}, optimized {}, load {} -> {}",
        e.cpu, e.cores, e.java, e.paimon, e.optimized, e.load_before, e.load_after
    )?;
    writeln!(
        out,
        "crates: {}",
        e.crates
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    for k in &r.kinds {
        writeln!(out)?;
        writeln!(
            out,
            "{} ({}): {} splits, {} files, {:.1} MB, {} file rows, {} rows returned",
            k.kind,
            k.plan,
            k.splits,
            k.files,
            k.file_bytes as f64 / 1e6,
            k.file_rows,
            k.rows
        )?;
        writeln!(
            out,
            "  {:<20} {:>10} {:>10} {:>12} {:>9}  samples (s)",
            "reader", "rows", "median s", "rows/s", "MB/s"
        )?;
        for m in &k.measurements {
            writeln!(
                out,
                "  {:<20} {:>10} {:>10.4} {:>12.0} {:>9.1}  {}",
                m.name,
                m.rows,
                m.median_s,
                m.rows_per_s,
                m.mb_per_s,
                m.samples_s
                    .iter()
                    .map(|s| format!("{s:.4}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            )?;
        }
        for (name, v) in &k.ratios {
            writeln!(out, "  ratio {name}: {v:.2}x")?;
        }
        for (name, v) in &k.fixed_cost_us {
            writeln!(out, "  fixed cost {name}: {v:.0} us")?;
        }
        if let Some(s) = &k.store_requests {
            writeln!(
                out,
                "  store requests of one read: {} GET, {} HEAD, {} LIST, {:.1} MB; {:.2} GET per split, \
                 {:.2} GET per data file, {:.0} bytes per split",
                s.total.get,
                s.total.head,
                s.total.list,
                s.total.bytes as f64 / 1e6,
                s.gets_per_split,
                s.gets_per_data_file,
                s.bytes_per_split
            )?;
        }
        for (name, why) in &k.unmeasured {
            writeln!(out, "  not measured {name}: {why}")?;
        }
    }
    writeln!(out)?;
    writeln!(out, "native replay peak RSS: {}", r.native_replay_peak_rss)?;
    Ok(())
}
