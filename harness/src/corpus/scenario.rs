//! The scenario model: what `corpora/<name>/scenario.json` holds (format in `corpora/README.md`).

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::{DEFAULT_OVERWRITE_USER, DEFAULT_USER};
use native_reader::RowKind;

/// A scenario file: a table definition and a list of steps.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short name, also the corpus directory name.
    pub name: String,
    /// What the corpus is and why it exists.
    pub description: String,
    /// The Paimon release that must write this corpus (e.g. `1.0.0`); any when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paimon_version: Option<String>,
    /// The first release that can write this corpus (e.g. `1.2.0` for 64-bit deletion vectors): this release
    /// or any later supported one (`native_reader::PaimonRelease` order); any when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_paimon_version: Option<String>,
    /// The table.
    pub table: TableSpec,
    /// Dynamic table options per commit user, for that user's writer only (`table.copy(options)`), e.g.
    /// `{"writer-a": {"data-file.prefix": "data-1-"}}`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub writer_options: BTreeMap<String, BTreeMap<String, String>>,
    /// Writers that commit as another commit user: writer name (a step's `user`) -> the commit user it opens
    /// its `StreamWriteBuilder` with, e.g. `{"subtask-1": "job"}` for two writer subtasks of one Flink job. A
    /// writer not named here commits as its own name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub commit_users: BTreeMap<String, String>,
    /// Who writes the table: absent (or `"steps"`) for the released writer through `jvm-bridge`'s
    /// `CorpusWriter` running [`Self::steps`]; `"flink"` for the released Paimon Flink connector running the
    /// job [`Self::flink`] (`flink-writer/`, see [`super::flink`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writer: Option<String>,
    /// The Flink job of a `"writer": "flink"` scenario.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flink: Option<super::flink::FlinkJob>,
    /// The steps, in order (none for a Flink scenario).
    #[serde(default)]
    pub steps: Vec<Step>,
    /// The released reader's streaming read from snapshot 1 fails, with an error containing this text (a
    /// failure of that release, e.g. 2.0.0 on a BLOB update's placeholders): generation then requires the
    /// failure and records `expected.stream_from_snapshot_1` as `{"error": text}`. The tests that replay
    /// every corpus of a line leave such corpora out; `corpus_parity` replays them by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect_stream_error: Option<String>,
    /// The released reader's batch read of the latest snapshot named by id (`scan.snapshot-id`) fails, with
    /// an error containing this text (a table whose own start option the release's validation refuses
    /// beside it): generation then requires the failure and records `expected.batch_latest` as
    /// `{"error": text}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect_batch_error: Option<String>,
    /// The table holds absolute paths (BLOB descriptors of `.managed.blob` packs name the pack's path), so
    /// it is never committed: the tests write it where they read it (`line_corpora`), and
    /// `scripts/regenerate-corpora` leaves it out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub absolute_paths: bool,
    /// Other tables of the table's warehouse, written first, each into `out/<db>.db/<t>` (the warehouse of
    /// `out/table` is `out`, [`native_reader::table::warehouse_of`]): the upstream tables whose rows the
    /// table's `blob-view-field` values name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upstream_tables: Vec<UpstreamTable>,
}

/// A table written beside a scenario's table, in the same warehouse ([`Scenario::upstream_tables`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpstreamTable {
    /// Its identifier, `database.table`: it is written into `out/<database>.db/<table>`.
    pub identifier: String,
    /// The table.
    pub table: TableSpec,
    /// Dynamic table options per commit user, as [`Scenario::writer_options`] (`{"branch": "b1"}` writes
    /// that branch).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub writer_options: BTreeMap<String, BTreeMap<String, String>>,
    /// Its steps, in order.
    pub steps: Vec<Step>,
}

impl UpstreamTable {
    /// Its directory under the scenario's output directory `out`: `out/<database>.db/<table>`.
    ///
    /// Errors: [`Error::Scenario`] for an identifier that is not `database.table`.
    pub fn dir(&self, out: &std::path::Path) -> crate::error::Result<std::path::PathBuf> {
        match self.identifier.split_once('.') {
            Some((db, t)) if !db.is_empty() && !t.is_empty() && !t.contains(['.', '/', '$']) => {
                Ok(out.join(format!("{db}.db")).join(t))
            }
            _ => Err(crate::error::Error::Scenario(format!(
                "upstream table `{}`: an identifier is `database.table`",
                self.identifier
            ))),
        }
    }
}

impl Scenario {
    /// Whether the released Flink connector writes this scenario (`"writer": "flink"`).
    pub fn is_flink(&self) -> bool {
        self.writer.as_deref() == Some("flink")
    }
}

/// The table of a scenario, in the JSON shape `jvm-bridge`'s `CorpusWriter::create_table` takes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    /// Columns in order.
    pub fields: Vec<FieldSpec>,
    /// Partition keys.
    #[serde(default, rename = "partitionKeys")]
    pub partition_keys: Vec<String>,
    /// Primary key (empty: an append table).
    #[serde(default, rename = "primaryKeys")]
    pub primary_keys: Vec<String>,
    /// Table options (`bucket`, `changelog-producer`, `merge-engine`, `deletion-vectors.enabled`,
    /// `file.format`, `sequence.field`, ...).
    #[serde(default)]
    pub options: BTreeMap<String, String>,
}

/// One column.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldSpec {
    /// Column name.
    pub name: String,
    /// Paimon SQL type string (`INT NOT NULL`, `DECIMAL(38, 0)`, `TIMESTAMP(9)`), or Paimon's JSON form of a
    /// type for ARRAY / MAP / ROW.
    #[serde(rename = "type")]
    pub data_type: Value,
}

/// One row to write: its RowKind (`+I`, `-U`, `+U`, `-D`) and its values in column order.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowSpec {
    /// `+I`, `-U`, `+U` or `-D` in the JSON.
    #[serde(with = "row_kind_text")]
    pub kind: RowKind,
    /// Values in column order (see `jvm_bridge::corpus` for the JSON form of each type).
    pub values: Vec<Value>,
}

/// One step of a scenario.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Step {
    /// Write rows as commit user `user` (`StreamTableWrite.write`); they are buffered until the user's next
    /// commit.
    Write {
        /// Commit user (default [`DEFAULT_USER`]).
        #[serde(default = "default_user")]
        user: String,
        /// The rows.
        rows: Vec<RowSpec>,
    },
    /// Ask user `user`'s writer for a compaction (`StreamTableWrite.compact`): of one (partition, bucket), or
    /// with `touched` of every (partition, bucket) it wrote since its last commit. Committed by its next commit.
    Compact {
        /// Commit user (default [`DEFAULT_USER`]).
        #[serde(default = "default_user")]
        user: String,
        /// Partition key values (`[]` for an unpartitioned table); with `bucket`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partition: Option<Vec<Value>>,
        /// Bucket; with `partition`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bucket: Option<i32>,
        /// Every (partition, bucket) written since the last commit instead of one.
        #[serde(default)]
        touched: bool,
        /// Full compaction.
        #[serde(default)]
        full: bool,
    },
    /// `prepareCommit(wait_compaction, identifier)` then `commit(identifier, ...)` as user `user`.
    Commit {
        /// Commit user (default [`DEFAULT_USER`]).
        #[serde(default = "default_user")]
        user: String,
        /// Commit identifier; strictly increasing per user.
        identifier: i64,
        /// Wait for compaction in `prepareCommit` (default true, which keeps the corpus deterministic).
        #[serde(default = "yes")]
        wait_compaction: bool,
        /// The commit must fail with an error whose message contains this text (an armed fault, a conflict).
        /// Its messages then stay pending for a `recover` step.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expect_error: Option<String>,
        /// The prepared commit must (true) or must not (false) carry compaction changelog files.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expect_compact_changelog: Option<bool>,
        /// Commit through `filterAndCommit` instead of `commit`, as a restarted Flink committer does with the
        /// committables it restored or receives for an identifier (`StreamTableCommit.filterAndCommit`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        filter_and_commit: bool,
        /// With `filter_and_commit`: how many identifiers it must report committed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expect_committed: Option<i32>,
        /// The watermark the commit carries, in milliseconds (`ManifestCommittable(identifier, watermark)`, as
        /// Flink's committer commits its checkpoint's); unset: none, as `commit(identifier, messages)`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        watermark: Option<i64>,
    },
    /// Change the schema (`SchemaManager.commitChanges`): `{"op":"add-column","name":..,"type":..}`,
    /// `{"op":"rename-column","from":..,"to":..}`, `{"op":"drop-column","name":..}`,
    /// `{"op":"update-column-type","name":..,"type":..}` (`SchemaChange.updateColumnType`),
    /// `{"op":"set-option","key":..,"value":..}`, `{"op":"remove-option","key":..}`. Open writers are reopened.
    Alter {
        /// The changes, applied together.
        changes: Vec<SchemaChange>,
    },
    /// Arm a fault that fires once at an exact point: `manifest-read-after-snapshot` (the first manifest read
    /// after the next snapshot is published fails: a commit's APPEND snapshot is durable, its COMPACT snapshot
    /// is never written) or `callback-after-append` (a commit callback throws after the next APPEND snapshot).
    ArmFault {
        /// The fault.
        fault: Fault,
    },
    /// What a restarted job does after a failed commit: rebuild user `user`'s writer and committer (same
    /// commit user) and `filterAndCommit` its pending identifiers.
    Recover {
        /// Commit user (default [`DEFAULT_USER`]).
        #[serde(default = "default_user")]
        user: String,
        /// How many identifiers `filterAndCommit` must report committed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expect_committed: Option<i32>,
    },
    /// Rebuild user `user`'s writer and committer (same commit user), which then restore from the latest
    /// snapshot, as a job restarted from a successful checkpoint does.
    Reopen {
        /// Commit user (default [`DEFAULT_USER`]).
        #[serde(default = "default_user")]
        user: String,
    },
    /// One batch overwrite through the released batch write path
    /// (`newBatchWriteBuilder().withOverwrite(partition)`, write, `prepareCommit()`, `commit(messages)`): an
    /// OVERWRITE snapshot replacing the files of the overwritten partitions with the rows, identifier
    /// `BatchWriteBuilder.COMMIT_IDENTIFIER` (`i64::MAX`). Other users' writers are marked stale.
    Overwrite {
        /// Commit user (default [`DEFAULT_OVERWRITE_USER`]); its `writer_options` apply.
        #[serde(default = "default_overwrite_user")]
        user: String,
        /// Static partition values for the first partition keys (absent: the whole table). With
        /// `dynamic-partition-overwrite=true` (the default) only partitions the rows touch are replaced.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partition: Option<Vec<Value>>,
        /// The rows.
        rows: Vec<RowSpec>,
    },
    /// One commit of some columns of a row-tracking table, as a data-evolution update writes it
    /// (`withWriteType(columns)`, then `DataFileMeta.assignFirstRowId(first_row_id)` on every new file before
    /// `commit(identifier, messages)`; Paimon 1.3+). The files hold only `columns` (`_WRITE_COLS`); with
    /// `first_row_id` they cover the rows from that row id on, else the commit gives them the next row ids.
    WriteColumns {
        /// Commit user (default [`DEFAULT_USER`]).
        #[serde(default = "default_user")]
        user: String,
        /// Commit identifier; strictly increasing per user.
        identifier: i64,
        /// The columns written, by name; the rows' values are in this order.
        columns: Vec<String>,
        /// The row id of the first row written (`_FIRST_ROW_ID`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        first_row_id: Option<i64>,
        /// The rows.
        rows: Vec<RowSpec>,
    },
    /// Delete rows of an unpartitioned data-evolution table by row id, as its deletes are written (1.3+):
    /// each row's position in its row-id group's anchor file (`DataEvolutionUtils.retrieveAnchorFile`: the
    /// oldest data file of the group) goes into that file's deletion vector, committed as index files.
    DeleteRows {
        /// Commit user (default [`DEFAULT_USER`]).
        #[serde(default = "default_user")]
        user: String,
        /// Commit identifier; strictly increasing per user.
        identifier: i64,
        /// The `_ROW_ID`s to delete.
        row_ids: Vec<i64>,
    },
    /// Create an empty branch `name` with the table's latest schema (`Table.createBranch(name)`); a user whose
    /// `writer_options` hold `"branch": name` writes to it (`switchToBranch`).
    CreateBranch {
        /// Branch name (`branch/branch-<name>/`).
        name: String,
    },
    /// Tag snapshot `snapshot` as `name` (`Table.createTag(name, snapshot)`: `tag/tag-<name>`).
    CreateTag {
        /// Tag name.
        name: String,
        /// The snapshot tagged.
        snapshot: i64,
        /// How long the tag is kept, as an ISO-8601 duration (`PT36H`, Java's `Duration.parse`):
        /// `Table.createTag(name, snapshot, duration)`, whose tag also records its create time. `None`:
        /// a tag without either.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        time_retained: Option<String>,
    },
    /// Record that consumer `id` reads from snapshot `next_snapshot` on
    /// (`ConsumerManager.resetConsumer`: `consumer/consumer-<id>`), where a streaming scan with
    /// `consumer-id=<id>` starts.
    ResetConsumer {
        /// The consumer id.
        id: String,
        /// Its `nextSnapshot`.
        next_snapshot: i64,
    },
    /// Record a batch read of the latest snapshot at this point in `case.json`.
    ReadBatch,
    /// Damage one data file of the latest snapshot behind the writer's back, as a lost object or a partial
    /// upload leaves it: what `scan.ignore-lost-files` and `scan.ignore-corrupt-files` are for. Writers
    /// that would read the file again (a compaction) must not follow.
    DamageFile {
        /// The file: its index among the latest snapshot's live data files, partitions then buckets in the
        /// order their manifest entries first name them, files in manifest-entry order.
        file: usize,
        /// What is done to it.
        damage: Damage,
    },
    /// In a sweep scenario, where the job of the swept commit restarts: the steps between the swept commit
    /// and this one are other jobs' work while it is down (a dedicated compaction job, another writer), and a
    /// swept commit that threw or crashed is recovered here, after them; without it, right after the swept
    /// commit. Anywhere else it does nothing.
    Restart,
    /// A seeded random burst of commits.
    Random(RandomBurst),
}

/// A seeded random burst: users own disjoint key ranges in every partition and take turns (at random) writing
/// inserts, updates (`+U`) and deletes (`-D`) of their keys, one commit per turn.
///
/// The table must have exactly one primary-key column outside the partition keys, of type INT or BIGINT (the
/// key), and other columns of type INT, BIGINT or STRING (filled with generated values).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomBurst {
    /// Seed of the generator (SplitMix64).
    pub seed: u64,
    /// Commit users (default: [`DEFAULT_USER`] alone). User `i` owns keys `[key_base + i*keys, key_base + (i+1)*keys)`.
    #[serde(default = "default_users")]
    pub users: Vec<String>,
    /// Partitions: each a JSON array of partition key values (a scalar for one partition key). Empty for an
    /// unpartitioned table.
    #[serde(default)]
    pub partitions: Vec<Value>,
    /// Keys per user and partition.
    pub keys: u32,
    /// First key.
    #[serde(default)]
    pub key_base: i64,
    /// Before the random commits, every user inserts all its keys in one commit.
    #[serde(default)]
    pub fill: bool,
    /// Random commits (after the fill).
    pub commits: u32,
    /// Rows per random commit, `[min, max]`.
    #[serde(default = "default_rows_per_commit")]
    pub rows_per_commit: [u32; 2],
    /// Of the rows that touch a live key, the share that update it.
    pub update_ratio: f64,
    /// Of the rows that touch a live key, the share that delete it (the rest leave it alone).
    pub delete_ratio: f64,
    /// Before each commit, compact the (partition, bucket)s written: `none` (default), `touched`, or
    /// `touched-full` (what `changelog-producer=full-compaction` needs with the Java API).
    #[serde(default)]
    pub compact: RandomCompact,
    /// Reopen a user's writer before its turn when another user committed since its last commit (default
    /// true), so that each writer compacts files that still exist.
    #[serde(default = "yes")]
    pub reopen_on_switch: bool,
}

fn default_user() -> String {
    DEFAULT_USER.to_owned()
}
fn default_overwrite_user() -> String {
    DEFAULT_OVERWRITE_USER.to_owned()
}
fn default_users() -> Vec<String> {
    vec![default_user()]
}
fn yes() -> bool {
    true
}
fn default_rows_per_commit() -> [u32; 2] {
    [8, 24]
}

/// The `step` name of a step as the scenario JSON spells it (`commit`, `arm-fault`).
pub fn step_name(step: &Step) -> &'static str {
    match step {
        Step::Write { .. } => "write",
        Step::Compact { .. } => "compact",
        Step::Commit { .. } => "commit",
        Step::Alter { .. } => "alter",
        Step::ArmFault { .. } => "arm-fault",
        Step::Recover { .. } => "recover",
        Step::Reopen { .. } => "reopen",
        Step::Overwrite { .. } => "overwrite",
        Step::WriteColumns { .. } => "write-columns",
        Step::CreateBranch { .. } => "create-branch",
        Step::CreateTag { .. } => "create-tag",
        Step::DeleteRows { .. } => "delete-rows",
        Step::ReadBatch => "read-batch",
        Step::DamageFile { .. } => "damage-file",
        Step::ResetConsumer { .. } => "reset-consumer",
        Step::Restart => "restart",
        Step::Random(_) => "random",
    }
}

/// What a `damage-file` step does to the file, named in kebab case in the JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Damage {
    /// `delete`: the file is removed (`FileIO.exists` is false: a lost file).
    Delete,
    /// `truncate`: only the first half of its bytes is kept (the file exists and its footer or header is
    /// gone: a corrupt file).
    Truncate,
}

/// A fault armed by an `arm-fault` step (`org.paimonparity.bridge.Faults`), named in kebab case in the JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fault {
    /// `manifest-read-after-snapshot`: the first manifest read after the next snapshot is published fails
    /// (`FaultyFileIO`): a commit's APPEND snapshot is durable, its COMPACT snapshot is never written.
    ManifestReadAfterSnapshot,
    /// `callback-after-append`: a commit callback throws after the next APPEND snapshot
    /// (`FailAfterAppendCallback`).
    CallbackAfterAppend,
}

impl Fault {
    /// The name the JSON and the Java side (`Faults.arm`) use.
    pub fn name(self) -> &'static str {
        match self {
            Fault::ManifestReadAfterSnapshot => "manifest-read-after-snapshot",
            Fault::CallbackAfterAppend => "callback-after-append",
        }
    }
}

/// One change of an `alter` step (`org.apache.paimon.schema.SchemaChange`), `{"op": "<kebab-case>", ...}` in
/// the JSON, the shape `CorpusWriter.alterTable` takes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum SchemaChange {
    /// `SchemaChange.addColumn(name, type)`.
    AddColumn {
        /// Column name.
        name: String,
        /// Paimon SQL type string, or Paimon's JSON form of a type.
        #[serde(rename = "type")]
        data_type: Value,
    },
    /// `SchemaChange.renameColumn(from, to)`.
    RenameColumn {
        /// Old name.
        from: String,
        /// New name.
        to: String,
    },
    /// `SchemaChange.dropColumn(name)`.
    DropColumn {
        /// Column name.
        name: String,
    },
    /// `SchemaChange.updateColumnType(name, type)`.
    UpdateColumnType {
        /// Column name.
        name: String,
        /// The new type, as in [`SchemaChange::AddColumn`].
        #[serde(rename = "type")]
        data_type: Value,
    },
    /// `SchemaChange.updateColumnNullability(name, nullable)`; making a nullable column `NOT NULL` needs the
    /// table option `alter-column-null-to-not-null.disabled=false`, and leaves the NULLs already written in
    /// the old files.
    UpdateColumnNullability {
        /// Column name.
        name: String,
        /// The new nullability.
        nullable: bool,
    },
    /// `SchemaChange.updateColumnPosition(Move.first(name))`.
    MoveFirst {
        /// Column name.
        name: String,
    },
    /// `SchemaChange.setOption(key, value)`.
    SetOption {
        /// Option key.
        key: String,
        /// Option value.
        value: String,
    },
    /// `SchemaChange.removeOption(key)`.
    RemoveOption {
        /// Option key.
        key: String,
    },
    /// `SchemaChange.setOption(key, value)` where the value is the commit time (`timeMillis`, milliseconds
    /// since the epoch) of snapshot `snapshot` plus `plus_millis`, read from the snapshot file when the step
    /// runs: how a scenario names a time between two of its own commits (`scan.timestamp-millis`,
    /// `scan.file-creation-time-millis`, `scan.timestamp` with `as_text`). With `to_snapshot`, two such
    /// times joined by a comma, `start,end` (`incremental-between-timestamp`).
    SetOptionToSnapshotTime {
        /// Option key.
        key: String,
        /// The snapshot whose commit time is taken.
        snapshot: i64,
        /// Added to that time (may be negative).
        #[serde(default)]
        plus_millis: i64,
        /// Set it as a UTC local date and time, `yyyy-MM-dd HH:mm:ss.SSS` (`scan.timestamp`), instead of
        /// milliseconds.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        as_text: bool,
        /// The snapshot whose commit time (plus `to_plus_millis`) is the second time of the value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to_snapshot: Option<i64>,
        /// Added to the second time (may be negative).
        #[serde(default, skip_serializing_if = "is_zero")]
        to_plus_millis: i64,
    },
}

/// Whether an offset is 0 (left out of the JSON).
fn is_zero(millis: &i64) -> bool {
    *millis == 0
}

/// What a random burst compacts before each commit (`compact` in the JSON).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RandomCompact {
    /// `none` (default): no compaction.
    #[default]
    None,
    /// `touched`: `compact_touched(false)`.
    Touched,
    /// `touched-full`: `compact_touched(true)`, what `changelog-producer=full-compaction` needs with the Java
    /// API.
    TouchedFull,
}

/// A [`RowKind`] as its short string (`+I`, `-U`, `+U`, `-D`) in scenario JSON.
mod row_kind_text {
    use super::*;

    pub(super) fn serialize<S: Serializer>(kind: &RowKind, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(kind.short_string())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<RowKind, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(|_| {
            serde::de::Error::custom(format!("row kind `{text}` is not one of +I, -U, +U, -D"))
        })
    }
}
