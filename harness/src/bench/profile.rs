//! `bench --flamegraph DIR`: a sampling profile of the native reader per split kind, as an SVG flame graph
//! (the `pprof` crate: `SIGPROF` sampling inside this process, no external tool).

use std::path::Path;
use std::time::Instant;

use crate::error::{Error, Result};

/// Samples per second of the profiler (a prime, so that it does not beat with periodic work).
const FREQUENCY_HZ: i32 = 997;

/// Runs `work` repeatedly for at least `min_seconds` (and at least once) under the sampling profiler and
/// writes the flame graph to `path`. Returns how many times `work` ran.
///
/// Errors: `work`'s own errors; [`Error::Io`] naming `path` when the profiler cannot start or the SVG
/// cannot be written.
pub fn flamegraph(
    path: &Path,
    title: &str,
    min_seconds: f64,
    mut work: impl FnMut() -> Result<u64>,
) -> Result<usize> {
    let io = |e: &dyn std::fmt::Display| Error::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    };
    let guard = pprof::ProfilerGuardBuilder::default()
        .frequency(FREQUENCY_HZ)
        .blocklist(&["libc", "libgcc", "pthread", "vdso"])
        .build()
        .map_err(|e| io(&e))?;
    let started = Instant::now();
    let mut runs = 0usize;
    loop {
        work()?;
        runs += 1;
        if started.elapsed().as_secs_f64() >= min_seconds {
            break;
        }
    }
    let report = guard.report().build().map_err(|e| io(&e))?;
    drop(guard);
    let file = std::fs::File::create(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let mut options = pprof::flamegraph::Options::default();
    options.title = title.to_owned();
    report
        .flamegraph_with_options(file, &mut options)
        .map_err(|e| io(&e))?;
    Ok(runs)
}
