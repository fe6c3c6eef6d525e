//! `paimon-parity bench` and its internal `bench-rss` child.

use std::io::Write;
use std::path::Path;

use super::stdout_err;
use crate::cli::BenchArgs;
use crate::error::Result;
use crate::report::write_json;

/// Runs the benchmark, prints it and writes its JSON; exit status 0.
pub(super) fn run(args: BenchArgs) -> Result<i32> {
    let BenchArgs {
        table,
        json,
        samples,
        threads,
        native_only,
        no_rss,
        buffer_mib,
        paimon_version,
    } = args;
    if let Some(v) = &paimon_version {
        jvm_bridge::jvm::select_paimon_version(v)?;
    }
    crate::replay::resolve_table(&table)?;
    let mut opts = crate::bench::BenchOptions {
        samples,
        native_only,
        measure_rss: !no_rss,
        ..Default::default()
    };
    if let Some(t) = threads {
        opts.threads = t;
    }
    if let Some(m) = buffer_mib {
        opts.buffer_bytes = m << 20;
    }
    let report = crate::bench::run(&table, &opts)?;
    let mut out = std::io::stdout().lock();
    crate::bench::write_text(&mut out, &report).map_err(stdout_err)?;
    let path = json.unwrap_or_else(crate::bench::default_json_path);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| crate::Error::Io {
            path: dir.to_path_buf(),
            source: e,
        })?;
    }
    write_json(&path, &report)?;
    writeln!(std::io::stdout(), "wrote {}", path.display()).map_err(stdout_err)?;
    Ok(0)
}

/// `bench-rss`: the native-only replay, printing its peak resident memory as JSON; exit status 0.
pub(super) fn rss(table: &Path) -> Result<i32> {
    let v = crate::bench::native_replay_rss(table)?;
    writeln!(std::io::stdout(), "{v}").map_err(stdout_err)?;
    Ok(0)
}
