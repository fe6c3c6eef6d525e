//! Scenarios with `"writer": "flink"`: the table is written by the released Paimon Flink connector, in a
//! Flink MiniCluster of its own JVM process (`flink-writer/`'s `FlinkCorpusJob`, built per release by
//! `scripts/build-flink-writer`), then read back with the released reader of the same release (a batch read,
//! a stream from snapshot 1, the snapshot timeline) into `case.json`, and checked against the job's own input
//! into `truth.json` ([`super::flink_truth`]). The job's failure log is kept as `failures.json`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::flink_truth::truth;
use super::summary::{batch_summary, latest_options, snapshot_summaries, stock_summary};
use super::Scenario;
use crate::error::{Error, Result};
use crate::reader::StockTableReader;

/// The Flink job of a scenario (its `flink` object).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlinkJob {
    /// The input.
    pub source: FlinkSource,
    /// Checkpoint (and so commit) interval.
    #[serde(default = "default_checkpoint_interval")]
    pub checkpoint_interval_ms: u64,
    /// Fixed-delay restarts before a job gives up.
    #[serde(default = "default_restart_attempts")]
    pub restart_attempts: u32,
    /// Delay between restarts.
    #[serde(default = "default_restart_delay")]
    pub restart_delay_ms: u64,
    /// Failures injected into Paimon's file IO.
    #[serde(default)]
    pub failures: FlinkFailures,
    /// The job process is killed after this long.
    #[serde(default = "default_timeout")]
    pub timeout_seconds: u64,
}

/// The deterministic input (`flink-writer`'s `InputGenerator`, [`FlinkSource::record`]).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlinkSource {
    /// Keys `0..keys`; producer `p` owns those with `k % producers == p`.
    pub keys: u32,
    /// Random records per producer before its final record per key.
    pub records: i64,
    /// Seed of every record.
    pub seed: i64,
    /// Producers: one streaming job, and one commit user, each.
    #[serde(default = "one")]
    pub producers: u32,
    /// Records per second per producer (the job spans `records / rate` seconds of checkpoints).
    #[serde(default = "default_rate")]
    pub rate_per_second: f64,
}

/// Failures injected through `FailingFileIO`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlinkFailures {
    /// Probability that opening a file or a rename fails, on a job's task threads.
    #[serde(default)]
    pub random_probability: f64,
    /// At most this many random failures.
    #[serde(default)]
    pub random_max: u32,
    /// Seed of the random failures (timing still decides which operations they hit).
    #[serde(default)]
    pub random_seed: i64,
    /// The manifest read right after a chosen commit's APPEND snapshot fails once, so that commit's
    /// COMPACT half is lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targeted: Option<TargetedFailure>,
}

/// The commit whose COMPACT half the targeted failure takes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct TargetedFailure {
    /// The producer whose job commits it.
    pub producer: u32,
    /// Its commit identifier (the checkpoint id).
    pub identifier: i64,
}

fn default_checkpoint_interval() -> u64 {
    400
}
fn default_restart_attempts() -> u32 {
    100
}
fn default_restart_delay() -> u64 {
    200
}
fn default_timeout() -> u64 {
    600
}
fn one() -> u32 {
    1
}
fn default_rate() -> f64 {
    400.0
}

/// The columns every Flink table has (the job's DDL): `k INT NOT NULL` (the primary key), `producer INT`,
/// `seq BIGINT`, `v BIGINT`.
pub const FLINK_COLUMNS: [(&str, &str); 4] = [
    ("k", "INT NOT NULL"),
    ("producer", "INT"),
    ("seq", "BIGINT"),
    ("v", "BIGINT"),
];

/// The class path of the Flink writer of `version`: `$PAIMON_PARITY_FLINK_WRITER` (a directory), else
/// `$PAIMON_PARITY_CACHE/flink-writer/paimon-<version>`.
///
/// Errors: not built (naming the command that builds it).
pub fn flink_writer_classpath(version: &str) -> Result<String> {
    let dir = match std::env::var_os("PAIMON_PARITY_FLINK_WRITER") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => crate::external::cache_dir()
            .join("flink-writer")
            .join(format!("paimon-{version}")),
    };
    let jar = dir.join("paimon-parity-flink-writer.jar");
    if !jar.is_file() {
        return Err(Error::Scenario(format!(
            "the Flink writer of Paimon {version} is not built ({} is missing): run \
             scripts/build-flink-writer --paimon-version {version}",
            jar.display()
        )));
    }
    Ok(format!("{}:{}/lib/*", jar.display(), dir.display()))
}

fn check_table(scenario: &Scenario) -> Result<()> {
    let t = &scenario.table;
    let fields: Vec<(String, String)> = t
        .fields
        .iter()
        .map(|f| {
            let ty = f.data_type.as_str().unwrap_or_default().to_owned();
            (f.name.clone(), ty)
        })
        .collect();
    let want: Vec<(String, String)> = FLINK_COLUMNS
        .iter()
        .map(|(n, t)| ((*n).to_owned(), (*t).to_owned()))
        .collect();
    if fields != want || t.primary_keys != ["k"] || !t.partition_keys.is_empty() {
        return Err(Error::Scenario(format!(
            "a Flink scenario's table is `k INT NOT NULL, producer INT, seq BIGINT, v BIGINT`, primary key k, \
             unpartitioned (scenario `{}`); only its options are free",
            scenario.name
        )));
    }
    if !scenario.steps.is_empty() {
        return Err(Error::Scenario(format!(
            "scenario `{}`: a Flink scenario has a `flink` job, not steps",
            scenario.name
        )));
    }
    Ok(())
}

/// Runs the Flink job of `scenario` with the released connector of `version` into `out/table`, writes
/// `out/failures.json` and `out/truth.json`, and returns the `case.json` value.
///
/// Errors: a store location (local only), a table that is not the Flink layout, the writer not built, the job
/// failing or running past its timeout (its log's last lines in the message), the released reader failing.
pub fn generate_flink(
    scenario: &Scenario,
    out: &Path,
    stock: &StockTableReader,
    version: &str,
) -> Result<Value> {
    let job = scenario.flink.as_ref().ok_or_else(|| {
        Error::Scenario(format!(
            "scenario `{}` has \"writer\": \"flink\" but no `flink` job",
            scenario.name
        ))
    })?;
    check_table(scenario)?;
    if native_reader::fileio::is_store(out) {
        return Err(Error::Scenario(
            "a Flink scenario is written to a local directory only".into(),
        ));
    }
    let classpath = flink_writer_classpath(version)?;
    let io = |path: &Path, e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    std::fs::create_dir_all(out).map_err(|e| io(out, e))?;
    let out = std::fs::canonicalize(out).map_err(|e| io(out, e))?;
    let warehouse = out.join(".warehouse");
    let _ = std::fs::remove_dir_all(&warehouse);
    std::fs::create_dir_all(&warehouse).map_err(|e| io(&warehouse, e))?;
    let failure_log = out.join("failures.json");
    let spec = json!({
        "warehouse": warehouse,
        "database": "default",
        "table": "t",
        "options": scenario.table.options,
        "source": job.source,
        "checkpoint_interval_ms": job.checkpoint_interval_ms,
        "restart_attempts": job.restart_attempts,
        "restart_delay_ms": job.restart_delay_ms,
        "failures": job.failures,
        "failure_log": failure_log,
    });
    let spec_file = warehouse.join("job.json");
    std::fs::write(&spec_file, spec.to_string()).map_err(|e| io(&spec_file, e))?;
    let log_file = warehouse.join("job.log");
    run_job(&classpath, &spec_file, &log_file, job.timeout_seconds)?;

    // The table leaves the warehouse (its files name no absolute path), and the log's paths become relative.
    let written = warehouse.join("default.db").join("t");
    let table = out.join("table");
    std::fs::rename(&written, &table).map_err(|e| io(&written, e))?;
    let prefix = format!("ppfail:{}/", written.display());
    let log_text = std::fs::read_to_string(&failure_log).map_err(|e| io(&failure_log, e))?;
    let log_text = log_text.replace(&prefix, "table/");
    std::fs::write(&failure_log, &log_text).map_err(|e| io(&failure_log, e))?;
    std::fs::remove_dir_all(&warehouse).map_err(|e| io(&warehouse, e))?;
    let failures: Value = serde_json::from_str(&log_text).map_err(|e| Error::ScenarioSource {
        context: failure_log.display().to_string(),
        source: e.into(),
    })?;
    if job.failures.targeted.is_some() && failures["targeted"]["fired"] != json!(true) {
        return Err(Error::Scenario(format!(
            "scenario `{}`: the targeted failure never fired (its commit had no APPEND snapshot, or no \
             manifest read followed it): the scenario no longer reproduces its situation",
            scenario.name
        )));
    }

    let stream = stock_summary(stock, &table)?;
    let batch = batch_summary(stock, &table, None)?;
    let snapshots = snapshot_summaries(&table)?;
    let options = latest_options(&table)?;
    let job_summary = json!({
        "flink_version": failures["flink_version"],
        "failovers": failures["failovers"],
        "random_failures": failures["random_failures"],
        "targeted": failures["targeted"],
    });
    let truth = truth(
        stock,
        &table,
        &job.source,
        &options,
        &snapshots,
        job_summary,
    )?;
    let truth_file = out.join("truth.json");
    let text = serde_json::to_string_pretty(&truth).map_err(|e| Error::ScenarioSource {
        context: String::new(),
        source: e.into(),
    })?;
    std::fs::write(&truth_file, text + "\n").map_err(|e| io(&truth_file, e))?;
    let connector = if version.starts_with("1.4") || version.starts_with("2.") {
        "paimon-flink-2.0"
    } else {
        "paimon-flink-1.20"
    };
    Ok(json!({
        "name": scenario.name,
        "description": scenario.description,
        "paimon_version": version,
        "written_by": format!(
            "org.apache.paimon:{connector}:{version} (released) on Flink {}, through flink-writer FlinkCorpusJob",
            failures["flink_version"].as_str().unwrap_or("?")
        ),
        "table": "table",
        "schema": scenario.table,
        "options": options,
        "snapshots": snapshots,
        "commits": [],
        "expected": {
            "stream_from_snapshot_1": stream,
            "batch_latest": batch,
            "batch_reads": [],
        },
    }))
}

/// Runs `FlinkCorpusJob` on `spec` in its own JVM, its output into `log`; kills it after `timeout_s`.
fn run_job(classpath: &str, spec: &Path, log: &Path, timeout_s: u64) -> Result<()> {
    let java = std::env::var_os("JAVA_HOME")
        .map(|h| PathBuf::from(h).join("bin/java"))
        .filter(|j| j.is_file())
        .unwrap_or_else(|| PathBuf::from("java"));
    let file = std::fs::File::create(log).map_err(|e| Error::Io {
        path: log.to_path_buf(),
        source: e,
    })?;
    let err = file.try_clone().map_err(|e| Error::Io {
        path: log.to_path_buf(),
        source: e,
    })?;
    let mut child = Command::new(&java)
        .args([
            "-Xmx1g",
            "-XX:+UseSerialGC",
            "-Duser.timezone=UTC",
            "-cp",
            classpath,
        ])
        .arg("org.paimonparity.flink.FlinkCorpusJob")
        .arg(spec)
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err)
        .spawn()
        .map_err(|e| Error::Scenario(format!("cannot start {}: {e}", java.display())))?;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| Error::Io {
            path: log.to_path_buf(),
            source: e,
        })? {
            break Some(status);
        }
        if start.elapsed() > Duration::from_secs(timeout_s) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    if status.is_some_and(|s| s.success()) {
        return Ok(());
    }
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let tail: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("at "))
        .collect();
    let tail = tail[tail.len().saturating_sub(15)..].join("\n");
    Err(Error::Scenario(match status {
        None => format!("the Flink job ran past {timeout_s} s and was killed; its log:\n{tail}"),
        Some(s) => format!("the Flink job failed ({s}); its log:\n{tail}"),
    }))
}

/// The committed Flink corpora: `corpora/flink/<name>` directories holding a `case.json`, sorted.
pub fn flink_corpora(corpora: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(corpora.join("flink"))
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.join("case.json").is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}
