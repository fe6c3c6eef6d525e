//! Where and with what a benchmark runs: the peak-RSS child run, CPU, load, Java and crate versions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use std::time::Instant;

use native_reader::scan::ScanMode;

use super::*;

/// The workspace directory this binary was built from (for `benches/results`).
pub(crate) fn workspace_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Runs `paimon-parity bench-rss <table>` as a child (no JVM in it) and returns its report.
pub(super) fn measure_rss_child(table: &Path) -> Value {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return serde_json::json!({"available": false, "reason": e.to_string()}),
    };
    // The child plans as the same release line (`--paimon-version` is not inherited, the env var is).
    match std::process::Command::new(exe)
        .arg("bench-rss")
        .arg(table)
        .env(
            jvm_bridge::jvm::PAIMON_VERSION_ENV,
            jvm_bridge::jvm::paimon_version(),
        )
        .output()
    {
        Ok(o) => serde_json::from_slice::<Value>(&o.stdout).unwrap_or_else(|_| {
            serde_json::json!({
                "available": false,
                "reason": String::from_utf8_lossy(&o.stderr).chars().take(2000).collect::<String>(),
            })
        }),
        Err(e) => serde_json::json!({"available": false, "reason": e.to_string()}),
    }
}

/// The native-only replay whose peak resident memory `bench` reports: the streaming plan from snapshot 1
/// and the batch plan of the latest snapshot, every split read natively on one thread. Returns the JSON
/// report (`rows`, `seconds`, `vm_hwm_bytes` from `/proc/self/status`).
///
/// Planned as the line of the process's release ([`crate::reader::this_release`]).
///
/// Errors: the native reader's.
pub fn native_replay_rss(table: &Path) -> Result<Value> {
    let t = Instant::now();
    let native = Arc::new(Table::open_as(table, crate::reader::this_release()?)?);
    let end = native.latest_snapshot_id()?.unwrap_or(0);
    let mut rows = 0u64;
    let mut splits = 0usize;
    for mode in [
        ScanMode::Stream { from_snapshot: 1 },
        ScanMode::Batch { snapshot: None },
    ] {
        for s in native.plan(mode, end)? {
            rows += native_read_split(&native, &s)?;
            splits += 1;
        }
    }
    Ok(serde_json::json!({
        "available": true,
        "what": "native replay: stream from snapshot 1 and batch of the latest snapshot, one thread",
        "splits": splits,
        "rows": rows,
        "seconds": t.elapsed().as_secs_f64(),
        "vm_hwm_bytes": proc_status_kb("VmHWM").map(|k| k * 1024),
    }))
}

pub(super) fn proc_status_kb(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with(key))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

pub(super) fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|_| "unknown".into())
}

pub(super) fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into())
}

pub(super) fn java_version() -> String {
    let java = std::env::var_os("JAVA_HOME")
        .map(|h| PathBuf::from(h).join("bin/java"))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("java"));
    match std::process::Command::new(java).arg("-version").output() {
        Ok(o) => String::from_utf8_lossy(&o.stderr)
            .lines()
            .next()
            .unwrap_or("unknown")
            .to_owned(),
        Err(e) => format!("unknown ({e})"),
    }
}

/// Versions of the decoding crates, read from the workspace's `Cargo.lock` at build time.
pub(super) fn crate_versions() -> BTreeMap<String, String> {
    const LOCK: &str = include_str!("../../../Cargo.lock");
    let wanted = ["arrow", "parquet", "orc-rust", "apache-avro", "jni", "zstd"];
    let mut out = BTreeMap::new();
    out.insert("harness".into(), env!("CARGO_PKG_VERSION").into());
    let mut name: Option<&str> = None;
    for line in LOCK.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"'));
        } else if let (Some(v), Some(n)) = (line.strip_prefix("version = "), name) {
            if wanted.contains(&n) {
                out.entry(n.to_owned())
                    .or_insert_with(|| v.trim_matches('"').to_owned());
            }
            name = None;
        }
    }
    out
}
