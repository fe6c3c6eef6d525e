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
    /// Once the producer's source has emitted its last record, the first commit of its job fails: the job
    /// restarts and must finish the tail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_of_input: Option<EndOfInputFailure>,
    /// A data or changelog file written after a chosen commit fails: the attempt aborts before its next
    /// checkpoint completes, and the restarted job re-processes the input since the last one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub while_writing: Option<WhileWritingFailure>,
}

/// Where the failure at end of input fires (`FailingFileIO.EndOfInput`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum EndOfInputPoint {
    /// The first manifest file written after the last record (by any job of the process): the next commit
    /// fails while it prepares its snapshot, before any snapshot is published.
    Commit,
    /// The rename that publishes the producer's next snapshot (APPEND or COMPACT) after the last record. From
    /// 1.4 (at least 1.4.2) Paimon retries a commit whose snapshot rename failed in place, so the job does not
    /// fail over.
    SnapshotRename,
    /// The manifest read right after the first APPEND snapshot after the last record: that commit's APPEND
    /// is durable and, when the restored committer finds its identifier committed, its COMPACT half is lost.
    Compact,
}

/// The failure at end of input: armed when producer `producer`'s source emits its last record (`InputGenerator`),
/// it fires once, at the first commit after that point ([`EndOfInputPoint`]).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct EndOfInputFailure {
    /// The producer whose input ends.
    pub producer: u32,
    /// Which operation of the first commit after that fails.
    pub at: EndOfInputPoint,
}

/// Which files the failure while writing counts.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WrittenFile {
    /// Data files (`data-*`): level-0 files a flush writes, and compaction outputs.
    Data,
    /// Changelog files (`changelog-*`): those of a `lookup` or `full-compaction` compaction, or `input`'s.
    Changelog,
}

/// Which operation on the chosen file fails.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WriteOperation {
    /// Creating it (`FileIO.newOutputStream`): the file is never written.
    #[default]
    Create,
    /// The first write into it: the writer aborts it.
    Write,
}

/// The failure while writing: armed when a snapshot of producer `producer`'s job with identifier
/// `after_identifier` or above is published, it fails the `nth` file of kind `file` created after that (every
/// job of the process counted), once. The data and changelog files the failing task attempt created after the
/// arming (before or after the failure, on its task thread or its compaction threads) are logged
/// (`failures.json`, `while_writing.files_of_aborted_attempt`): they belong to checkpoints that never completed,
/// so those its writers did not delete on close stay in the table, never committed.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct WhileWritingFailure {
    /// The producer whose commit arms it.
    pub producer: u32,
    /// The identifier (checkpoint id) of that commit, or a lower bound: the first snapshot at or above it arms.
    pub after_identifier: i64,
    /// Data or changelog files.
    pub file: WrittenFile,
    /// The how-manieth of those files after the arming fails (1: the first).
    #[serde(default = "one")]
    pub nth: u32,
    /// Its creation or its first write.
    #[serde(default)]
    pub operation: WriteOperation,
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
    for (name, configured) in [
        ("end_of_input", job.failures.end_of_input.is_some()),
        ("while_writing", job.failures.while_writing.is_some()),
    ] {
        if configured && failures[name]["fired"] != json!(true) {
            return Err(Error::Scenario(format!(
                "scenario `{}`: the failure `{name}` never fired ({} in {}): the scenario no longer \
                 reproduces its situation",
                scenario.name,
                failures[name],
                failure_log.display()
            )));
        }
    }
    let aborted = aborted_attempt_files(&failures, &out)?;

    let stream = stock_summary(stock, &table)?;
    let batch = batch_summary(stock, &table, None)?;
    let snapshots = snapshot_summaries(&table)?;
    let options = latest_options(&table)?;
    let job_summary = json!({
        "flink_version": failures["flink_version"],
        "failovers": failures["failovers"],
        "random_failures": failures["random_failures"],
        "targeted": failures["targeted"],
        "end_of_input": failures["end_of_input"],
        "while_writing": failures["while_writing"],
    });
    let truth = truth(
        stock,
        &table,
        &job.source,
        &options,
        &snapshots,
        job_summary,
        aborted,
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

/// The changelog files the task attempt that the failure while writing aborted created after the arming and
/// left in the table (paths relative to `out`, sorted), from the job's failure log. They belong to checkpoints
/// that never completed, so no commit references them, provided the attempt published no snapshot of a later
/// checkpoint after the arming (`later_commits_of_aborted_attempt`; then the failure fired too late to tell).
///
/// Errors: the failure log's lists are not lists, or the aborted attempt committed a later checkpoint.
fn aborted_attempt_files(failures: &Value, out: &Path) -> Result<Vec<String>> {
    let log = out.join("failures.json");
    let w = &failures["while_writing"];
    if w["fired"] != json!(true) {
        return Ok(Vec::new());
    }
    let later = w["later_commits_of_aborted_attempt"]
        .as_array()
        .ok_or_else(|| {
            Error::Scenario(format!(
                "{}: while_writing.later_commits_of_aborted_attempt is not a list",
                log.display()
            ))
        })?;
    if !later.is_empty() {
        return Err(Error::Scenario(format!(
            "{}: the attempt the failure while writing aborted had committed checkpoints {later:?} after the \
             arming snapshot, so its files may be committed: choose a smaller `nth`",
            log.display()
        )));
    }
    let list = w["files_of_aborted_attempt"].as_array().ok_or_else(|| {
        Error::Scenario(format!(
            "{}: while_writing.files_of_aborted_attempt is not a list",
            log.display()
        ))
    })?;
    let mut kept = Vec::new();
    for f in list {
        let f = f.as_str().ok_or_else(|| {
            Error::Scenario(format!(
                "{}: while_writing.files_of_aborted_attempt holds {f}, not a path",
                log.display()
            ))
        })?;
        let changelog = Path::new(f)
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("changelog-"));
        if changelog && out.join(f).is_file() {
            kept.push(f.to_owned());
        }
    }
    kept.sort();
    Ok(kept)
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
