//! Running a scenario with the released writer: one `CorpusWriter` per commit user, the steps in order,
//! the expectations checked, and `case.json` assembled.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::load::load_scenario;
use super::scenario::step_name;
use super::summary::{
    batch_summary, expectation, explain, latest_options, snapshot_summaries, stock_summary,
    BatchSummary,
};
use super::{RowSpec, Scenario, SchemaChange, Step, TableSpec};
use crate::error::{Error, Result};
use crate::reader::StockTableReader;

/// Generates the scenario in `scenario_file` into `out` (the corpus directory, local or a store URI such as
/// `s3://bucket/corpora/c01`): `out/table/` is the Paimon table, `out/scenario.json` a copy of the scenario,
/// `out/case.json` the description, the snapshots and the stock reader's summary. In a store every file is
/// written by the released writer's `FileIO`. Returns the path of `case.json`.
///
/// The process's JVM must run the release the scenario names (if it names one); select it with
/// `jvm_bridge::jvm::select_paimon_version` before the JVM starts.
///
/// Errors: `out/table` already exists (never overwritten), the scenario is invalid or stops reproducing its
/// situation (an expectation failed), the writer or the stock reader fails.
pub fn generate(scenario_file: &Path, out: &Path) -> Result<PathBuf> {
    let scenario = load_scenario(scenario_file)?;
    let case = generate_scenario(&scenario, out)?;
    let io = |path: &Path, e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let case_path = out.join("case.json");
    let text = serde_json::to_string_pretty(&case).map_err(|e| Error::ScenarioSource {
        context: String::new(),
        source: e.into(),
    })?;
    let target = out.join("scenario.json");
    if native_reader::fileio::is_store(out) {
        let scenario_text =
            std::fs::read_to_string(scenario_file).map_err(|e| io(scenario_file, e))?;
        jvm_bridge::CorpusWriter::write_file(&target, &scenario_text)?;
        jvm_bridge::CorpusWriter::write_file(&case_path, &(text + "\n"))?;
        return Ok(case_path);
    }
    let same = match (
        std::fs::canonicalize(scenario_file),
        std::fs::canonicalize(&target),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same {
        std::fs::copy(scenario_file, &target).map_err(|e| io(&target, e))?;
    }
    std::fs::write(&case_path, text + "\n").map_err(|e| io(&case_path, e))?;
    Ok(case_path)
}

/// Removes what [`generate`] wrote into `out`: `case.json` first (so that a half-removed corpus is never
/// taken for a complete one), then `table/` (and locally the upstream tables' `<db>.db/` directories); in a store with the released `FileIO` (the bridge's
/// `TableLocations.deleteAll`), locally with `std::fs`. `scenario.json` is left: the next write replaces it.
///
/// Errors: [`Error::Io`] naming what cannot be removed locally; [`Error::Stock`] when the store refuses.
pub fn remove_generated(out: &Path) -> Result<()> {
    let (case, table) = (out.join("case.json"), out.join("table"));
    if native_reader::fileio::is_store(out) {
        jvm_bridge::CorpusWriter::delete_table(&case)?;
        jvm_bridge::CorpusWriter::delete_table(&table)?;
        return Ok(());
    }
    let io = |path: &Path, e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    // A Flink scenario's truth and failure log go with its table.
    for file in [
        case.clone(),
        out.join("truth.json"),
        out.join("failures.json"),
    ] {
        match std::fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(&file, e)),
            _ => {}
        }
    }
    if table.exists() {
        std::fs::remove_dir_all(&table).map_err(|e| io(&table, e))?;
    }
    // The upstream tables of a scenario with BLOB views (`out/<db>.db/<t>`).
    let entries = match std::fs::read_dir(out) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(out, e)),
    };
    for entry in entries {
        let dir = entry.map_err(|e| io(out, e))?.path();
        if dir.is_dir() && dir.extension().is_some_and(|e| e == "db") {
            std::fs::remove_dir_all(&dir).map_err(|e| io(&dir, e))?;
        }
    }
    Ok(())
}

/// Runs `scenario` into `out/table` and returns the `case.json` value (without writing it).
///
/// Errors: as [`generate`].
pub fn generate_scenario(scenario: &Scenario, out: &Path) -> Result<Value> {
    let table = out.join("table");
    if super::location_exists(&table) {
        return Err(Error::Scenario(format!(
            "{} already exists; remove it first, or pass --replace, to regenerate",
            table.display()
        )));
    }
    let stock = StockTableReader::new()?;
    let version = stock.bridge().paimon_version()?;
    if let Some(first) = &scenario.min_paimon_version {
        let order = |v: &str| native_reader::PaimonRelease::parse(v).map_err(Error::from);
        if order(&version)? < order(first)? {
            return Err(Error::Scenario(format!(
                "scenario `{}` needs Paimon {first} or later, but this process runs Paimon {version} \
                 (use --paimon-version with one of {})",
                scenario.name,
                native_reader::PaimonRelease::ALL
                    .iter()
                    .filter(|r| r.name() >= first.as_str())
                    .map(|r| r.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    if let Some(wanted) = &scenario.paimon_version {
        if *wanted != version {
            return Err(Error::Scenario(format!(
                "scenario `{}` must be written by Paimon {wanted}, but this process runs Paimon {version} \
                 (use --paimon-version {wanted})",
                scenario.name
            )));
        }
    }
    match scenario.writer.as_deref() {
        Some("flink") => return super::flink::generate_flink(scenario, out, &stock, &version),
        None | Some("steps") => {}
        Some(other) => {
            return Err(Error::Scenario(format!(
                "scenario `{}`: unknown writer `{other}` (known: steps, flink)",
                scenario.name
            )))
        }
    }
    let io = |path: &Path, e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let store = native_reader::fileio::is_store(out);
    if !store {
        std::fs::create_dir_all(out).map_err(|e| io(out, e))?;
    }
    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let tmp = std::env::temp_dir().join(format!(
        "paimon-parity-io-{}-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        scenario.name
    ));
    std::fs::create_dir_all(&tmp).map_err(|e| io(&tmp, e))?;

    // `${out}` in a table option's value is the output directory's absolute path (an external data path
    // beside the table, for a scenario with `absolute_paths`); local outputs of step scenarios only.
    let mut spec = scenario.table.clone();
    if !store {
        let root = std::fs::canonicalize(out).map_err(|e| io(out, e))?;
        for value in spec.options.values_mut() {
            *value = value.replace("${out}", &root.to_string_lossy());
        }
    }
    // The upstream tables of the table's BLOB views, each by its own steps, before the table.
    for upstream in &scenario.upstream_tables {
        let dir = upstream.dir(out)?;
        let schema = serde_json::to_string(&upstream.table).map_err(|e| Error::ScenarioSource {
            context: upstream.identifier.clone(),
            source: e.into(),
        })?;
        jvm_bridge::CorpusWriter::create_table(&dir, &schema)?;
        let dir = if store {
            dir
        } else {
            std::fs::canonicalize(&dir).map_err(|e| io(&dir, e))?
        };
        let mut run = Run::new(&dir, &tmp, &upstream.table, &stock);
        run.writer_options = upstream.writer_options.clone();
        let outcome = run.steps(&upstream.steps);
        let closed = run.close();
        outcome?;
        closed?;
    }
    let schema = serde_json::to_string(&spec).map_err(|e| Error::ScenarioSource {
        context: String::new(),
        source: e.into(),
    })?;
    jvm_bridge::CorpusWriter::create_table(&table, &schema)?;
    let table = if store {
        table
    } else {
        std::fs::canonicalize(&table).map_err(|e| io(&table, e))?
    };
    let mut run = Run::new(&table, &tmp, &scenario.table, &stock);
    run.writer_options = scenario.writer_options.clone();
    run.commit_users = scenario.commit_users.clone();
    let outcome = run.steps(&scenario.steps);
    let fired = run.check_faults_fired();
    let closed = run.close();
    let _ = std::fs::remove_dir_all(&tmp);
    outcome?;
    fired?;
    closed?;
    let Run {
        log, batch_reads, ..
    } = run;

    let stream = expectation(
        ("streaming", "expect_stream_error"),
        stock_summary(&stock, &table).map(|s| json!(s)),
        scenario.expect_stream_error.as_deref(),
    )?;
    let batch = expectation(
        ("batch", "expect_batch_error"),
        batch_summary(&stock, &table, None).map(|s| json!(s)),
        scenario.expect_batch_error.as_deref(),
    )?;
    let snapshots = snapshot_summaries(&table)?;
    let options = latest_options(&table)?;
    Ok(json!({
        "name": scenario.name,
        "description": scenario.description,
        "paimon_version": version,
        "written_by": "org.apache.paimon:paimon-bundle (released), through jvm-bridge CorpusWriter",
        "table": "table",
        "schema": scenario.table,
        "options": options,
        "snapshots": snapshots,
        "commits": log,
        "expected": {
            "stream_from_snapshot_1": stream,
            "batch_latest": batch,
            "batch_reads": batch_reads,
        },
    }))
}

/// What happened to one commit, as recorded in `case.json` (`commits`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct CommitRecord {
    /// Commit user.
    pub user: String,
    /// Commit identifier (for a recovery: the identifiers handed to `filterAndCommit`).
    pub identifier: i64,
    /// `committed`, `failed: <expected text>`, or `recovered: <n> committed`.
    pub outcome: String,
    /// What `prepareCommit` returned (absent for a recovery).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prepared: Option<jvm_bridge::corpus::Prepared>,
}

/// A batch read recorded by a `read-batch` step.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct BatchRead {
    /// Index of the step in the scenario.
    pub after_step: usize,
    /// The batch read.
    #[serde(flatten)]
    pub batch: BatchSummary,
}

/// A user's writer and what the run knows about it.
pub(super) struct UserWriter {
    pub(super) writer: jvm_bridge::CorpusWriter,
    /// Another user committed since this writer was (re)opened or last committed.
    pub(super) stale: bool,
    /// Identifiers prepared and not committed (failed commits awaiting a recovery).
    pub(super) pending: Vec<i64>,
}

/// The state of one scenario run.
pub(super) struct Run<'a> {
    pub(super) table: &'a Path,
    pub(super) tmp: &'a Path,
    pub(super) stock: &'a StockTableReader,
    pub(super) fields: Vec<(String, String)>,
    pub(super) partition_keys: Vec<String>,
    pub(super) primary_keys: Vec<String>,
    pub(super) writers: BTreeMap<String, UserWriter>,
    pub(super) writer_options: BTreeMap<String, BTreeMap<String, String>>,
    /// Writer name -> the commit user it commits as ([`Scenario::commit_users`]).
    pub(super) commit_users: BTreeMap<String, String>,
    pub(super) last_identifier: HashMap<String, i64>,
    pub(super) log: Vec<CommitRecord>,
    pub(super) batch_reads: Vec<BatchRead>,
}

impl<'a> Run<'a> {
    pub(super) fn new(
        table: &'a Path,
        tmp: &'a Path,
        spec: &TableSpec,
        stock: &'a StockTableReader,
    ) -> Self {
        Self {
            table,
            tmp,
            stock,
            fields: spec
                .fields
                .iter()
                .map(|f| (f.name.clone(), type_text(&f.data_type)))
                .collect(),
            partition_keys: spec.partition_keys.clone(),
            primary_keys: spec.primary_keys.clone(),
            writers: BTreeMap::new(),
            writer_options: BTreeMap::new(),
            commit_users: BTreeMap::new(),
            last_identifier: HashMap::new(),
            log: Vec::new(),
            batch_reads: Vec::new(),
        }
    }

    pub(super) fn writer(&mut self, user: &str) -> Result<&mut UserWriter> {
        if !self.writers.contains_key(user) {
            let options = self.writer_options.get(user).cloned().unwrap_or_default();
            let commit_user = self.commit_users.get(user).map_or(user, String::as_str);
            let writer = jvm_bridge::CorpusWriter::open_with_options(
                self.table,
                commit_user,
                self.tmp,
                &options,
            )?;
            self.writers.insert(
                user.to_owned(),
                UserWriter {
                    writer,
                    stale: false,
                    pending: Vec::new(),
                },
            );
        }
        self.writers
            .get_mut(user)
            .ok_or_else(|| Error::Scenario(format!("no writer for user `{user}`")))
    }

    fn steps(&mut self, steps: &[Step]) -> Result<()> {
        for (i, step) in steps.iter().enumerate() {
            self.step(i, step).map_err(|e| {
                Error::Scenario(format!("step {i} ({}): {}", step_name(step), explain(&e)))
            })?;
        }
        Ok(())
    }

    /// Disarms the table's faults; fails when one was armed and never fired.
    fn check_faults_fired(&self) -> Result<()> {
        let unfired = jvm_bridge::corpus::disarm_faults(self.table)?;
        if !unfired.is_empty() {
            return Err(Error::Scenario(format!(
                "fault(s) {} were armed but never fired: the scenario no longer reproduces its situation",
                unfired.join(", ")
            )));
        }
        Ok(())
    }

    pub(super) fn step(&mut self, index: usize, step: &Step) -> Result<()> {
        match step {
            Step::Write { user, rows } => {
                let rows = serde_json::to_string(rows).map_err(|e| Error::ScenarioSource {
                    context: String::new(),
                    source: e.into(),
                })?;
                Ok(self.writer(user)?.writer.write(&rows)?)
            }
            Step::Compact {
                user,
                partition,
                bucket,
                touched,
                full,
            } => {
                let w = self.writer(user)?;
                match (partition, bucket, touched) {
                    (Some(p), Some(b), false) => {
                        let p = serde_json::to_string(p).map_err(|e| Error::ScenarioSource {
                            context: String::new(),
                            source: e.into(),
                        })?;
                        Ok(w.writer.compact(&p, *b, *full)?)
                    }
                    (None, None, true) => Ok(w.writer.compact_touched(*full).map(|_| ())?),
                    _ => Err(Error::Scenario(
                        "a compact step takes either `partition` and `bucket`, or `touched: true`"
                            .into(),
                    )),
                }
            }
            Step::Commit {
                user,
                identifier,
                wait_compaction,
                filter_and_commit: true,
                expect_committed,
                ..
            } => self.filter_and_commit(user, *identifier, *wait_compaction, *expect_committed),
            Step::Commit {
                user,
                identifier,
                wait_compaction,
                expect_error,
                expect_compact_changelog,
                watermark,
                ..
            } => self.commit(
                user,
                (*identifier, *watermark),
                *wait_compaction,
                expect_error.as_deref(),
                *expect_compact_changelog,
            ),
            Step::Alter { changes } => self.alter(changes),
            Step::ArmFault { fault } => {
                jvm_bridge::corpus::arm_fault(self.table, fault.name()).map_err(Error::from)
            }
            Step::Recover {
                user,
                expect_committed,
            } => {
                let w = self.writer(user)?;
                let pending = std::mem::take(&mut w.pending);
                let committed = w.writer.recover()?;
                w.stale = false;
                if let Some(expected) = expect_committed {
                    if *expected != committed {
                        return Err(Error::Scenario(format!(
                            "filterAndCommit committed {committed} identifier(s), the scenario expects {expected}"
                        )));
                    }
                }
                self.log.push(CommitRecord {
                    user: user.clone(),
                    identifier: pending.iter().copied().max().unwrap_or(-1),
                    outcome: format!("recovered: {committed} committed"),
                    prepared: None,
                });
                if committed > 0 {
                    self.mark_others_stale(user);
                }
                Ok(())
            }
            Step::Reopen { user } => {
                let w = self.writer(user)?;
                w.writer.reopen()?;
                w.stale = false;
                Ok(())
            }
            Step::Overwrite {
                user,
                partition,
                rows,
            } => self.overwrite(user, partition.as_deref(), rows),
            Step::WriteColumns {
                user,
                identifier,
                columns,
                first_row_id,
                rows,
            } => self.write_columns(user, *identifier, columns, *first_row_id, rows),
            Step::DeleteRows {
                user,
                identifier,
                row_ids,
            } => self.delete_rows(user, *identifier, row_ids),
            Step::CreateBranch { name } => Ok(jvm_bridge::corpus::create_branch(self.table, name)?),
            Step::CreateTag {
                name,
                snapshot,
                time_retained,
            } => Ok(jvm_bridge::corpus::create_tag(
                self.table,
                name,
                *snapshot,
                time_retained.as_deref(),
            )?),
            Step::Restart => Ok(()),
            Step::ReadBatch => {
                let batch = batch_summary(self.stock, self.table, None)?;
                self.batch_reads.push(BatchRead {
                    after_step: index,
                    batch,
                });
                Ok(())
            }
            Step::DamageFile { file, damage } => {
                super::damage::damage_file(self.table, *file, *damage).map(drop)
            }
            Step::ResetConsumer { id, next_snapshot } => Ok(jvm_bridge::corpus::reset_consumer(
                self.table,
                id,
                *next_snapshot,
            )?),
            Step::Random(burst) => self.random(burst),
        }
    }

    /// Records `identifier` as `user`'s latest; fails when it is not above the previous one.
    pub(super) fn note_identifier(&mut self, user: &str, identifier: i64) -> Result<()> {
        if let Some(last) = self.last_identifier.get(user) {
            if identifier <= *last {
                return Err(Error::Scenario(format!(
                    "identifier {identifier} of user `{user}` is not above its previous one ({last})"
                )));
            }
        }
        self.last_identifier.insert(user.to_owned(), identifier);
        Ok(())
    }

    /// After `user`'s job restarted and recovered: its writer restored from the latest snapshot, the other
    /// users' writers must reopen before they compact.
    pub(super) fn mark_stale_after_recovery(&mut self, user: &str) {
        self.mark_others_stale(user);
        if let Some(w) = self.writers.get_mut(user) {
            w.stale = false;
        }
    }

    pub(super) fn mark_others_stale(&mut self, user: &str) {
        for (name, w) in self.writers.iter_mut() {
            if name != user {
                w.stale = true;
            }
        }
    }

    /// `prepareCommit` then `filterAndCommit` of that identifier alone, as a restarted committer does.
    fn filter_and_commit(
        &mut self,
        user: &str,
        identifier: i64,
        wait_compaction: bool,
        expect_committed: Option<i32>,
    ) -> Result<()> {
        self.note_identifier(user, identifier)?;
        let w = self.writer(user)?;
        let prepared = w.writer.prepare(identifier, wait_compaction)?;
        let committed = w.writer.recover_identifier(identifier)?;
        w.stale = false;
        if let Some(expected) = expect_committed {
            if expected != committed {
                return Err(Error::Scenario(format!(
                    "filterAndCommit of identifier {identifier} committed {committed}, the scenario expects \
                     {expected}: it no longer reproduces its situation"
                )));
            }
        }
        self.log.push(CommitRecord {
            user: user.to_owned(),
            identifier,
            outcome: format!("filterAndCommit: {committed} committed"),
            prepared: Some(prepared),
        });
        if committed > 0 {
            self.mark_others_stale(user);
        }
        Ok(())
    }

    /// `prepareCommit` then the commit of identifier `id.0`, carrying watermark `id.1` when set.
    pub(super) fn commit(
        &mut self,
        user: &str,
        (identifier, watermark): (i64, Option<i64>),
        wait_compaction: bool,
        expect_error: Option<&str>,
        expect_compact_changelog: Option<bool>,
    ) -> Result<()> {
        if let Some(last) = self.last_identifier.get(user) {
            if identifier <= *last {
                return Err(Error::Scenario(format!(
                    "identifier {identifier} of user `{user}` is not above its previous one ({last})"
                )));
            }
        }
        self.last_identifier.insert(user.to_owned(), identifier);
        let w = self.writer(user)?;
        let prepared = w.writer.prepare(identifier, wait_compaction)?;
        if let Some(expected) = expect_compact_changelog {
            if expected != (prepared.compact_changelog > 0) {
                return Err(Error::Scenario(format!(
                    "the prepared commit {identifier} carries {} compaction changelog file(s), the scenario \
                     expects {}: it no longer reproduces its situation",
                    prepared.compact_changelog,
                    if expected { "some" } else { "none" }
                )));
            }
        }
        let result = w.writer.commit_prepared_carrying(identifier, watermark);
        let outcome = match (result, expect_error) {
            (Ok(()), None) => "committed".to_owned(),
            (Ok(()), Some(text)) => {
                return Err(Error::Scenario(format!(
                    "commit {identifier} succeeded, the scenario expects it to fail with `{text}`: it no longer \
                     reproduces its situation"
                )))
            }
            (Err(e), Some(text)) if error_mentions(&e, text) => {
                w.pending.push(identifier);
                format!("failed: {text}")
            }
            (Err(e), _) => return Err(e.into()),
        };
        self.log.push(CommitRecord {
            user: user.to_owned(),
            identifier,
            outcome,
            prepared: Some(prepared),
        });
        // A failed commit may still have published its APPEND snapshot.
        self.mark_others_stale(user);
        if let Some(w) = self.writers.get_mut(user) {
            w.stale = false;
        }
        Ok(())
    }

    fn overwrite(
        &mut self,
        user: &str,
        partition: Option<&[Value]>,
        rows: &[RowSpec],
    ) -> Result<()> {
        let rows_json = serde_json::to_string(rows).map_err(|e| Error::ScenarioSource {
            context: String::new(),
            source: e.into(),
        })?;
        let partition_json = partition
            .map(serde_json::to_string)
            .transpose()
            .map_err(|e| Error::ScenarioSource {
                context: String::new(),
                source: e.into(),
            })?;
        let options = self.writer_options.get(user).cloned().unwrap_or_default();
        let prepared = jvm_bridge::corpus::overwrite(
            self.table,
            user,
            self.tmp,
            &options,
            partition_json.as_deref(),
            &rows_json,
        )?;
        self.log.push(CommitRecord {
            user: user.to_owned(),
            identifier: i64::MAX,
            outcome: "committed".to_owned(),
            prepared: Some(prepared),
        });
        self.mark_others_stale(user);
        Ok(())
    }

    fn alter(&mut self, changes: &[SchemaChange]) -> Result<()> {
        if let Some((user, _)) = self.writers.iter().find(|(_, w)| !w.pending.is_empty()) {
            return Err(Error::Scenario(format!(
                "user `{user}` has pending identifiers; recover before altering the table"
            )));
        }
        let changes = super::evolution::with_snapshot_times(self.table, changes)?;
        let changes = &changes[..];
        let text = serde_json::to_string(changes).map_err(|e| Error::ScenarioSource {
            context: String::new(),
            source: e.into(),
        })?;
        jvm_bridge::corpus::alter_table(self.table, &text)?;
        for change in changes {
            self.apply_change(change);
        }
        for w in self.writers.values_mut() {
            w.writer.reopen()?;
            w.stale = false;
        }
        Ok(())
    }

    /// Keeps the run's column list in step with the table (for random bursts after a schema change).
    fn apply_change(&mut self, change: &SchemaChange) {
        match change {
            SchemaChange::AddColumn { name, data_type } => {
                self.fields.push((name.clone(), type_text(data_type)));
            }
            SchemaChange::RenameColumn { from, to } => {
                for f in &mut self.fields {
                    if &f.0 == from {
                        f.0 = to.clone();
                    }
                }
            }
            SchemaChange::DropColumn { name } => {
                self.fields.retain(|f| &f.0 != name);
            }
            SchemaChange::UpdateColumnType { name, data_type } => {
                let ty = type_text(data_type);
                for f in &mut self.fields {
                    if &f.0 == name {
                        f.1 = ty.clone();
                    }
                }
            }
            SchemaChange::UpdateColumnNullability { name, nullable } => {
                for f in &mut self.fields {
                    if &f.0 == name {
                        let base = f.1.trim_end_matches(" NOT NULL").to_owned();
                        f.1 = if *nullable {
                            base
                        } else {
                            format!("{base} NOT NULL")
                        };
                    }
                }
            }
            SchemaChange::MoveFirst { .. }
            | SchemaChange::SetOption { .. }
            | SchemaChange::SetOptionToSnapshotTime { .. }
            | SchemaChange::RemoveOption { .. } => {}
        }
    }

    pub(super) fn close(&mut self) -> Result<()> {
        let mut first = None;
        for (_, w) in std::mem::take(&mut self.writers) {
            if let Err(e) = w.writer.close() {
                first.get_or_insert(e);
            }
        }
        match first {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }
}

fn type_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether `e` (its message, or for a Java exception its stack trace with the causes) contains `text`.
fn error_mentions(e: &jvm_bridge::Error, text: &str) -> bool {
    match e {
        jvm_bridge::Error::Java { stack, .. } if stack.contains(text) => true,
        other => other.to_string().contains(text),
    }
}
