//! Criterion benchmarks of paimon-parity (`cargo bench -p paimon-parity-benches`); see `benches/README.md`.
//!
//! The benchmark corpus is generated once by `scripts/bench-corpus` into
//! `$PAIMON_PARITY_BENCH_CORPUS` (default `$HOME/.cache/paimon-parity/bench-corpus`).

use std::path::PathBuf;

/// The benchmark corpus directory: `$PAIMON_PARITY_BENCH_CORPUS`, else
/// `$HOME/.cache/paimon-parity/bench-corpus`.
pub fn corpus_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("PAIMON_PARITY_BENCH_CORPUS") {
        return PathBuf::from(d);
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    home.join(".cache/paimon-parity/bench-corpus")
}

/// The benchmark tables present in the corpus: `(name, <corpus>/<name>/table)`, sorted by name.
pub fn tables() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(corpus_dir()) {
        for e in entries.flatten() {
            let table = e.path().join("table");
            if table.join("snapshot").is_dir() {
                out.push((e.file_name().to_string_lossy().into_owned(), table));
            }
        }
    }
    out.sort();
    out
}
