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
        store,
        json,
        samples,
        threads,
        native_only,
        max_splits,
        kind,
        no_decode_ahead,
        no_rss,
        buffer_mib,
        paimon_version,
        flamegraph,
        html,
        compare,
        readers,
        reader_commands,
        reader_timeout,
    } = args;
    if let Some(v) = &paimon_version {
        jvm_bridge::jvm::select_paimon_version(v)?;
    }
    crate::replay::resolve_table(&table)?;
    crate::report::check_html_target(html.as_deref())?;
    // The earlier run is read first: a missing or malformed file fails before the benchmark.
    let old = match &compare {
        Some(p) => {
            let bytes = std::fs::read(p).map_err(|e| crate::Error::Io {
                path: p.clone(),
                source: e,
            })?;
            let v: serde_json::Value =
                serde_json::from_slice(&bytes).map_err(|e| crate::Error::TableSource {
                    path: p.clone(),
                    context: "not a bench JSON report".into(),
                    source: e.into(),
                })?;
            Some(v)
        }
        None => None,
    };
    if let Some(dir) = &flamegraph {
        std::fs::create_dir_all(dir).map_err(|e| crate::Error::Io {
            path: dir.clone(),
            source: e,
        })?;
    }
    let mut opts = crate::bench::BenchOptions {
        samples,
        native_only,
        measure_rss: !no_rss,
        flamegraph_dir: flamegraph,
        max_splits: max_splits.and_then(|n| usize::try_from(n).ok()),
        kinds: kind,
        decode_ahead: !no_decode_ahead,
        ..Default::default()
    };
    if let Some(t) = threads {
        opts.threads = t;
    }
    if let Some(m) = buffer_mib {
        opts.buffer_bytes = m << 20;
    }
    // `native` is always measured; the others are external readers reading the released planner's splits.
    let names: Vec<String> = readers
        .into_iter()
        .filter(|r| r.trim() != "native")
        .collect();
    let line = crate::reader::this_release()?;
    let readers = super::replay::readers(&names, &reader_commands, reader_timeout, false, line)?;
    opts.store = store;
    let report = crate::bench::run(&table, &opts, &readers)?;
    let mut out = std::io::stdout().lock();
    crate::bench::write_text(&mut out, &report).map_err(stdout_err)?;
    if let (Some(old), Some(p)) = (&old, &compare) {
        let rows = crate::bench::compare(old, &report);
        crate::bench::write_comparison(&mut out, &p.display().to_string(), &rows)
            .map_err(stdout_err)?;
    }
    if let Some(p) = &html {
        crate::report::write_html(p, &crate::bench::html_chart(&report))?;
    }
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
