//! Writing test tables with the released Paimon writer.
//!
//! Mirrors `org.paimonparity.bridge.CorpusWriter` (Java), which calls the released Paimon 1.0 classes
//! `SchemaManager` (table creation without a catalog), `StreamWriteBuilder`, `StreamTableWrite` and
//! `StreamTableCommit`, and for [`overwrite`] the batch write path of `BatchWriteBuilder.withOverwrite`.
//!
//! JSON shapes:
//! - schema: `{"fields":[{"name":"k","type":"INT NOT NULL"}, ...],"partitionKeys":[..],"primaryKeys":[..],
//!   "options":{"bucket":"1", ...}}`; a type is a Paimon SQL type string, or Paimon's JSON form of a type for
//!   ARRAY / MAP / ROW (`DataTypeJsonParser.parseDataType`).
//! - rows: `[{"kind":"+I","values":[1,"a",null]}, ...]`, kinds `+I -U +U -D`, values in column order: BOOLEAN
//!   as JSON boolean; TINYINT..BIGINT as JSON integers; FLOAT/DOUBLE as numbers or `"NaN"`, `"Infinity"`,
//!   `"-Infinity"`; DECIMAL as a string (`"12.30"`); CHAR/VARCHAR/STRING as strings; BINARY/VARBINARY/BYTES as
//!   base64 strings; DATE as int days since 1970-01-01; TIME as int millis of the day; TIMESTAMP as
//!   `"yyyy-MM-ddTHH:mm:ss[.fffffffff]"` (TIMESTAMP WITH LOCAL TIME ZONE: the same, read as UTC); ARRAY as a
//!   JSON array of elements; MAP as a JSON array of `[key, value]` pairs (written in that order); MULTISET as a
//!   JSON array of `[element, count]` pairs; ROW as a JSON array of the nested fields' values; `null` is NULL.
//! - partition (for `compact`): the JSON array of the partition key values, converted the same way; `[]` for an
//!   unpartitioned table.
//! - schema changes (for [`alter_table`]): `[{"op":"add-column","name":"d","type":"INT"},
//!   {"op":"rename-column","from":"c","to":"c2"}, {"op":"drop-column","name":"d"},
//!   {"op":"set-option","key":"k","value":"v"}, {"op":"remove-option","key":"k"},
//!   {"op":"update-column-type","name":"c","type":"BIGINT"}, {"op":"move-first","name":"c"}]`.
//!
//! Faults ([`arm_fault`]) belong to one table and fire once, at an exact point of the released commit protocol:
//! [`FAULT_MANIFEST_READ`] fails the first manifest read after the next snapshot is published (in a commit with
//! APPEND and COMPACT parts: after the APPEND snapshot is durable, before the COMPACT snapshot is written);
//! [`FAULT_CALLBACK`] throws from a commit callback after the next APPEND snapshot. Injected exceptions carry
//! [`INJECTED`] in their message.

use std::collections::BTreeMap;
use std::path::Path;

use jni::objects::JValue;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::jvm::{java_string, path_arg, with_env};

mod refs;
pub use refs::{create_branch, create_tag, reset_consumer};

/// Name of the fault that fails the first manifest read after the next snapshot is published.
pub const FAULT_MANIFEST_READ: &str = "manifest-read-after-snapshot";
/// Name of the fault that throws from a commit callback after the next APPEND snapshot.
pub const FAULT_CALLBACK: &str = "callback-after-append";
/// Marker in the message of every injected exception.
pub const INJECTED: &str = "paimon-parity injected fault";

/// What a prepared commit holds: `StreamTableWrite.prepareCommit`'s messages, file counts summed over them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
pub struct Prepared {
    /// Commit messages (one per written or compacted (partition, bucket)).
    pub messages: u64,
    /// `newFilesIncrement().newFiles()`: new level-0 files (the APPEND part).
    pub new_files: u64,
    /// `newFilesIncrement().deletedFiles()`.
    pub deleted_files: u64,
    /// `newFilesIncrement().changelogFiles()`: `input` changelog (APPEND part).
    pub append_changelog: u64,
    /// `compactIncrement().compactBefore()` (COMPACT part).
    pub compact_before: u64,
    /// `compactIncrement().compactAfter()` (COMPACT part).
    pub compact_after: u64,
    /// `compactIncrement().changelogFiles()`: `lookup` / `full-compaction` changelog (COMPACT part).
    pub compact_changelog: u64,
}

/// Arms a fault by name ([`FAULT_MANIFEST_READ`], [`FAULT_CALLBACK`]) for the table at `table_dir` (as
/// given to [`CorpusWriter::open`]); it fires once, in a writer of that table only.
///
/// Errors: [`Error::Java`] for an unknown name, [`Error::Protocol`] (non-UTF-8 path).
pub fn arm_fault(table_dir: &Path, name: &str) -> Result<()> {
    let dir = path_arg(table_dir)?;
    with_env(|env| {
        let dir = env.new_string(dir)?;
        let name = env.new_string(name)?;
        env.call_static_method(
            CLASS,
            "armFault",
            "(Ljava/lang/String;Ljava/lang/String;)V",
            &[JValue::Object(&dir), JValue::Object(&name)],
        )?;
        Ok(())
    })
}

/// Disarms every fault of the table at `table_dir` and returns the names of those that were armed and never
/// fired.
///
/// Errors: [`Error::Java`], [`Error::Jni`], [`Error::Protocol`] (non-UTF-8 path).
pub fn disarm_faults(table_dir: &Path) -> Result<Vec<String>> {
    let dir = path_arg(table_dir)?;
    let text = with_env(|env| {
        let dir = env.new_string(dir)?;
        let out = env
            .call_static_method(
                CLASS,
                "disarmFaults",
                "(Ljava/lang/String;)Ljava/lang/String;",
                &[JValue::Object(&dir)],
            )?
            .l()?;
        java_string(env, out)
    })?;
    Ok(text
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect())
}

/// A fault of the crash-point sweep at one numbered file operation (`org.paimonparity.bridge.CrashPoints`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum FaultMode {
    /// No fault: the operations are only counted and recorded.
    None,
    /// The operation and every later one of the same `FileIO` instance (its writer and committer) throw, and
    /// its open output streams fail without closing: the process is gone.
    Crash,
    /// The operation throws once, before it takes effect.
    Fail,
    /// The operation takes effect, then throws once.
    FailAfter,
}

impl FaultMode {
    /// The name the JSON, the command line and the Java side use (`crash`, `fail`, `fail-after`, `none`).
    pub fn name(self) -> &'static str {
        match self {
            FaultMode::None => "none",
            FaultMode::Crash => "crash",
            FaultMode::Fail => "fail",
            FaultMode::FailAfter => "fail-after",
        }
    }
}

/// How a restarted job recovers the committables of its checkpoint.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum RecoveryStrategy {
    /// `StreamTableCommit.filterAndCommit`, as released (what Flink's `StoreCommitter` does on restore): an
    /// identifier any snapshot of the commit user carries is dropped whole.
    #[default]
    Stock,
    /// The bridge's `PairAwareRecovery` (released APIs only), then `filterAndCommit`: an identifier whose
    /// APPEND snapshot is durable and whose COMPACT one is not gets its COMPACT half committed alone, with
    /// the same identifier (left out where a later commit already removed a file it compacts).
    PairAware,
}

impl RecoveryStrategy {
    /// The name the command line, the JSON and the Java side use (`stock`, `pair-aware`).
    pub fn name(self) -> &'static str {
        match self {
            RecoveryStrategy::Stock => "stock",
            RecoveryStrategy::PairAware => "pair-aware",
        }
    }
}

/// What one recovery did ([`CorpusWriter::recover_identifier_with`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct RecoveryOutcome {
    /// Identifiers committed in all (by the strategy's own step and by `filterAndCommit`).
    pub committed: i32,
    /// Identifiers whose whole COMPACT half the pair-aware step committed.
    pub compact_halves: Vec<i64>,
    /// Identifiers with a message whose COMPACT half the pair-aware step left out, because a later commit had
    /// already removed a file it compacts (that compaction made the changelog of the same changes).
    pub conflicts: Vec<i64>,
}

/// One primitive file operation recorded in a crash window.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct FileOp {
    /// The `FileIO` method (`newInputStream`, `newOutputStream`, `getFileStatus`, `listStatus`, `exists`,
    /// `delete`, `mkdirs`, `rename`), or `close` for an output stream.
    pub op: String,
    /// The path relative to the table directory (for `rename`, the target).
    pub path: String,
    /// The Java thread that made the call (`MANIFEST-READ-THREAD-POOL-…` for the parallel manifest reads).
    pub thread: String,
}

/// What a crash window recorded ([`close_crash_window`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct CrashWindow {
    /// Every operation on a path under the table while the window was open, in the order they started (index
    /// `i` is operation `i + 1`).
    pub ops: Vec<FileOp>,
    /// The operation at which the fault fired (from 1); 0 when it did not fire.
    pub fired_at: usize,
    /// The method of that operation.
    #[serde(default)]
    pub fired_op: Option<String>,
}

/// Opens the crash window of the table at `table_dir`: from now on every primitive file operation on a path
/// under it is numbered from 1 and recorded (on every thread), and a fault of `mode` fires at operation `at`
/// (see [`FaultMode`]). Only writers opened by [`CorpusWriter`] (their `FaultyFileIO`) take part.
///
/// Errors: [`Error::Java`], [`Error::Protocol`] (non-UTF-8 path).
pub fn open_crash_window(table_dir: &Path, mode: FaultMode, at: usize) -> Result<()> {
    let dir = path_arg(table_dir)?;
    let at = i32::try_from(at).unwrap_or(i32::MAX);
    with_env(|env| {
        let dir = env.new_string(dir)?;
        let mode = env.new_string(mode.name())?;
        env.call_static_method(
            CLASS,
            "openCrashWindow",
            "(Ljava/lang/String;Ljava/lang/String;I)V",
            &[JValue::Object(&dir), JValue::Object(&mode), JValue::Int(at)],
        )?;
        Ok(())
    })
}

/// Closes the crash window of the table at `table_dir` and returns what it recorded (empty when none was
/// open).
///
/// Errors: [`Error::Java`], [`Error::Jni`], [`Error::Protocol`] (bad JSON, non-UTF-8 path).
pub fn close_crash_window(table_dir: &Path) -> Result<CrashWindow> {
    let dir = path_arg(table_dir)?;
    let json = with_env(|env| {
        let dir = env.new_string(dir)?;
        let out = env
            .call_static_method(
                CLASS,
                "closeCrashWindow",
                "(Ljava/lang/String;)Ljava/lang/String;",
                &[JValue::Object(&dir)],
            )?
            .l()?;
        java_string(env, out)
    })?;
    serde_json::from_str(&json)
        .map_err(|e| Error::protocol_source(format!("bad crash window JSON `{json}`"), e))
}

/// Changes the schema of the table at `table_dir` (`SchemaManager.commitChanges`), see the module docs for
/// `changes_json`. Writers opened before keep the old schema: reopen them.
///
/// Errors: [`Error::Java`] (bad JSON, unknown column, change Paimon rejects), [`Error::Protocol`].
pub fn alter_table(table_dir: &Path, changes_json: &str) -> Result<()> {
    let dir = path_arg(table_dir)?;
    with_env(|env| {
        let dir = env.new_string(dir)?;
        let changes = env.new_string(changes_json)?;
        env.call_static_method(
            CLASS,
            "alterTable",
            "(Ljava/lang/String;Ljava/lang/String;)V",
            &[JValue::Object(&dir), JValue::Object(&changes)],
        )?;
        Ok(())
    })
}

/// One batch overwrite of the table at `table_dir` through the released batch write path
/// (`newBatchWriteBuilder().withOverwrite(staticPartition)`, as `BatchWriteBuilderImpl` builds it, with
/// `commit_user` instead of a random UUID): a write that ignores previous files, `rows_json` written,
/// `prepareCommit()`, then `commit(messages)` with identifier `BatchWriteBuilder.COMMIT_IDENTIFIER`
/// (`i64::MAX`). `partition_json` is `None` (the whole table) or the JSON array of static partition values for
/// the first partition keys; `options` are dynamic table options. Returns what the messages hold.
///
/// Errors: [`Error::Java`] (bad JSON, a row outside the static partition, a commit failure),
/// [`Error::Protocol`] (non-UTF-8 path, bad answer).
pub fn overwrite(
    table_dir: &Path,
    commit_user: &str,
    io_tmp_dir: &Path,
    options: &BTreeMap<String, String>,
    partition_json: Option<&str>,
    rows_json: &str,
) -> Result<Prepared> {
    let dir = path_arg(table_dir)?;
    let tmp = path_arg(io_tmp_dir)?;
    let options_json = serde_json::to_string(options)
        .map_err(|e| Error::protocol_source("cannot encode writer options", e))?;
    let json = with_env(|env| {
        let dir = env.new_string(dir)?;
        let user = env.new_string(commit_user)?;
        let tmp = env.new_string(tmp)?;
        let options = env.new_string(&options_json)?;
        let partition = match partition_json {
            Some(p) => env.new_string(p)?.into(),
            None => jni::objects::JObject::null(),
        };
        let rows = env.new_string(rows_json)?;
        let out = env
            .call_static_method(
                CLASS,
                "overwrite",
                "(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;\
                 Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;",
                &[
                    JValue::Object(&dir),
                    JValue::Object(&user),
                    JValue::Object(&tmp),
                    JValue::Object(&options),
                    JValue::Object(&partition),
                    JValue::Object(&rows),
                ],
            )?
            .l()?;
        java_string(env, out)
    })?;
    serde_json::from_str(&json)
        .map_err(|e| Error::protocol_source(format!("bad overwrite JSON `{json}`"), e))
}

/// One commit of deletion vectors of the unpartitioned, bucket-unaware append table at `table_dir`, as a
/// delete of a data-evolution table writes them (`org.paimonparity.bridge.ColumnWriter.deleteRows`, Paimon
/// 1.3+: `BaseAppendDeleteFileMaintainer.forUnawareAppend`, `notifyNewDeletionVector`, `persist`, a commit of
/// the index files). `positions_json` maps data file names to row positions in them: `{"f.parquet": [1]}`.
///
/// Errors: [`Error::Java`] (a release before 1.3.0, bad JSON, a commit failure), [`Error::Protocol`].
pub fn delete_rows(
    table_dir: &Path,
    commit_user: &str,
    identifier: i64,
    positions_json: &str,
) -> Result<()> {
    let dir = path_arg(table_dir)?;
    with_env(|env| {
        let dir = env.new_string(dir)?;
        let user = env.new_string(commit_user)?;
        let positions = env.new_string(positions_json)?;
        env.call_static_method(
            "org/paimonparity/bridge/ColumnWriter",
            "deleteRows",
            "(Ljava/lang/String;Ljava/lang/String;JLjava/lang/String;)V",
            &[
                JValue::Object(&dir),
                JValue::Object(&user),
                JValue::Long(identifier),
                JValue::Object(&positions),
            ],
        )?;
        Ok(())
    })
}

/// One commit of some columns of the row-tracking table at `table_dir`, as a data-evolution update writes it
/// (`org.paimonparity.bridge.ColumnWriter`, Paimon 1.3+): `newWrite(commit_user).withWriteType(columns)`, the
/// rows written (values in the order of `columns_json`, a JSON array of column names), `prepareCommit(false,
/// identifier)`, every new file given `first_row_id` (`DataFileMeta.assignFirstRowId`; `None`: the commit
/// assigns the table's next row id), and `commit(identifier, messages)`. Returns what the messages hold.
///
/// Errors: [`Error::Java`] (a release before 1.3.0, an unknown column, bad JSON, a commit failure),
/// [`Error::Protocol`] (non-UTF-8 path, bad answer).
pub fn write_columns(
    table_dir: &Path,
    commit_user: &str,
    io_tmp_dir: &Path,
    identifier: i64,
    columns_json: &str,
    first_row_id: Option<i64>,
    rows_json: &str,
) -> Result<Prepared> {
    let dir = path_arg(table_dir)?;
    let tmp = path_arg(io_tmp_dir)?;
    let json = with_env(|env| {
        let dir = env.new_string(dir)?;
        let user = env.new_string(commit_user)?;
        let tmp = env.new_string(tmp)?;
        let columns = env.new_string(columns_json)?;
        let rows = env.new_string(rows_json)?;
        let out = env
            .call_static_method(
                "org/paimonparity/bridge/ColumnWriter",
                "writeColumns",
                "(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;JLjava/lang/String;J\
                 Ljava/lang/String;)Ljava/lang/String;",
                &[
                    JValue::Object(&dir),
                    JValue::Object(&user),
                    JValue::Object(&tmp),
                    JValue::Long(identifier),
                    JValue::Object(&columns),
                    JValue::Long(first_row_id.unwrap_or(-1)),
                    JValue::Object(&rows),
                ],
            )?
            .l()?;
        java_string(env, out)
    })?;
    serde_json::from_str(&json)
        .map_err(|e| Error::protocol_source(format!("bad writeColumns JSON `{json}`"), e))
}

/// The Java class behind this module.
const CLASS: &str = "org/paimonparity/bridge/CorpusWriter";

/// An open writer of one table: a `StreamTableWrite` and a `StreamTableCommit` of one commit user.
///
/// The table is opened on the bridge's `FaultyFileIO` (the released `LocalFileIO` unless a fault is armed) with
/// the dynamic option `commit.callbacks` naming the bridge's fault callback (a no-op unless armed).
/// Calls are serialised on the Java side. [`close`](Self::close) closes the write, the commit and the
/// `IOManager`; dropping an open writer closes it too (ignoring errors).
#[derive(Debug)]
pub struct CorpusWriter {
    handle: i64,
    closed: bool,
}

impl CorpusWriter {
    /// Creates a table at `table_dir` (a local path or a store URI) from `schema_json` (see the module docs)
    /// with `new SchemaManager(FileIO, path).createTable(schema)`, the location's released `FileIO`.
    ///
    /// Errors: [`crate::Error::Java`] (bad JSON or type string, invalid schema, table exists, I/O),
    /// [`crate::Error::Protocol`] (non-UTF-8 path).
    pub fn create_table(table_dir: &Path, schema_json: &str) -> Result<()> {
        let dir = path_arg(table_dir)?;
        crate::stock::apply_file_io_options()?;
        with_env(|env| {
            let dir = env.new_string(dir)?;
            let schema = env.new_string(schema_json)?;
            env.call_static_method(
                CLASS,
                "createTable",
                "(Ljava/lang/String;Ljava/lang/String;)V",
                &[JValue::Object(&dir), JValue::Object(&schema)],
            )?;
            Ok(())
        })
    }

    /// Deletes everything under `location` (a table the sweep or the corpus writer wrote, local or in a
    /// store) with the released `FileIO.delete(path, true)` (`TableLocations.deleteAll`); `Ok(false)` when
    /// nothing was there.
    ///
    /// Errors: [`crate::Error::Java`] (the store refuses, I/O), [`crate::Error::Protocol`] (non-UTF-8 path).
    pub fn delete_table(location: &Path) -> Result<bool> {
        let dir = path_arg(location)?;
        crate::stock::apply_file_io_options()?;
        with_env(|env| {
            let dir = env.new_string(dir)?;
            let deleted = env
                .call_static_method(
                    "org/paimonparity/bridge/TableLocations",
                    "deleteAll",
                    "(Ljava/lang/String;)Z",
                    &[JValue::Object(&dir)],
                )?
                .z()?;
            Ok(deleted)
        })
    }

    /// Writes `content` to the file at `location` (local or in a store) with the released
    /// `FileIO.overwriteFileUtf8` (`TableLocations.writeUtf8`): a store receives one PUT.
    ///
    /// Errors: [`crate::Error::Java`] (the store refuses, I/O), [`crate::Error::Protocol`] (non-UTF-8 path).
    pub fn write_file(location: &Path, content: &str) -> Result<()> {
        let path = path_arg(location)?;
        crate::stock::apply_file_io_options()?;
        with_env(|env| {
            let path = env.new_string(path)?;
            let content = env.new_string(content)?;
            env.call_static_method(
                "org/paimonparity/bridge/TableLocations",
                "writeUtf8",
                "(Ljava/lang/String;Ljava/lang/String;)V",
                &[JValue::Object(&path), JValue::Object(&content)],
            )?;
            Ok(())
        })
    }

    /// Opens a writer: `newStreamWriteBuilder().withCommitUser(commit_user)`, its `newWrite()` with
    /// `IOManager.create(io_tmp_dir)` (needed by `lookup` and deletion vectors) and its `newCommit()`.
    ///
    /// Use the same `commit_user` across writers of one logical job: Paimon's commit recovery keys on it.
    ///
    /// Errors: [`crate::Error::Java`] (no table, I/O), [`crate::Error::Protocol`] (non-UTF-8 path).
    pub fn open(table_dir: &Path, commit_user: &str, io_tmp_dir: &Path) -> Result<Self> {
        Self::open_with_options(table_dir, commit_user, io_tmp_dir, &BTreeMap::new())
    }

    /// [`open`](Self::open) with dynamic table options for this writer only (`table.copy(options)`), e.g.
    /// `data-file.prefix`.
    ///
    /// Errors: as [`open`](Self::open); [`crate::Error::Java`] also for options Paimon rejects.
    pub fn open_with_options(
        table_dir: &Path,
        commit_user: &str,
        io_tmp_dir: &Path,
        options: &BTreeMap<String, String>,
    ) -> Result<Self> {
        let dir = path_arg(table_dir)?;
        let tmp = path_arg(io_tmp_dir)?;
        let options = serde_json::to_string(options)
            .map_err(|e| Error::protocol_source("writer options", e))?;
        let handle = with_env(|env| {
            let dir = env.new_string(dir)?;
            let user = env.new_string(commit_user)?;
            let tmp = env.new_string(tmp)?;
            let options = env.new_string(&options)?;
            Ok(env
                .call_static_method(
                    CLASS,
                    "openWriterWithOptions",
                    "(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)J",
                    &[
                        JValue::Object(&dir),
                        JValue::Object(&user),
                        JValue::Object(&tmp),
                        JValue::Object(&options),
                    ],
                )?
                .j()?)
        })?;
        Ok(Self {
            handle,
            closed: false,
        })
    }

    /// Writes rows (`StreamTableWrite.write(GenericRow.ofKind(kind, values...))`), see the module docs for
    /// `rows_json`. Rows are buffered by Paimon until [`commit`](Self::commit).
    ///
    /// Errors: [`crate::Error::Java`] (bad JSON, value does not fit its column, NULL in a NOT NULL column, ...).
    pub fn write(&self, rows_json: &str) -> Result<()> {
        let handle = self.handle;
        with_env(|env| {
            let rows = env.new_string(rows_json)?;
            env.call_static_method(
                CLASS,
                "write",
                "(JLjava/lang/String;)V",
                &[JValue::Long(handle), JValue::Object(&rows)],
            )?;
            Ok(())
        })
    }

    /// Asks for a compaction of one bucket: `StreamTableWrite.compact(partition, bucket, full)`, with the
    /// partition given as a JSON array of partition key values (`[]` when unpartitioned). The result is
    /// committed by the next [`commit`](Self::commit).
    ///
    /// Errors: [`crate::Error::Java`].
    pub fn compact(&self, partition_json: &str, bucket: i32, full: bool) -> Result<()> {
        let handle = self.handle;
        with_env(|env| {
            let partition = env.new_string(partition_json)?;
            env.call_static_method(
                CLASS,
                "compact",
                "(JLjava/lang/String;IZ)V",
                &[
                    JValue::Long(handle),
                    JValue::Object(&partition),
                    JValue::Int(bucket),
                    JValue::Bool(u8::from(full)),
                ],
            )?;
            Ok(())
        })
    }

    /// `write.compact(partition, bucket, full)` for every (partition, bucket) written since the last
    /// [`prepare`](Self::prepare); returns how many.
    ///
    /// Errors: [`crate::Error::Java`].
    pub fn compact_touched(&self, full: bool) -> Result<i32> {
        let handle = self.handle;
        with_env(|env| {
            Ok(env
                .call_static_method(
                    CLASS,
                    "compactTouched",
                    "(JZ)I",
                    &[JValue::Long(handle), JValue::Bool(u8::from(full))],
                )?
                .i()?)
        })
    }

    /// `write.prepareCommit(wait_compaction, identifier)`. The messages stay in the JVM, pending, until
    /// [`commit_prepared`](Self::commit_prepared) commits them (or [`recover`](Self::recover) after a failure).
    ///
    /// Errors: [`crate::Error::Java`] (also when `identifier` is already pending), [`crate::Error::Protocol`].
    pub fn prepare(&self, identifier: i64, wait_compaction: bool) -> Result<Prepared> {
        let handle = self.handle;
        let json = with_env(|env| {
            let out = env
                .call_static_method(
                    CLASS,
                    "prepare",
                    "(JJZ)Ljava/lang/String;",
                    &[
                        JValue::Long(handle),
                        JValue::Long(identifier),
                        JValue::Bool(u8::from(wait_compaction)),
                    ],
                )?
                .l()?;
            java_string(env, out)
        })?;
        serde_json::from_str(&json)
            .map_err(|e| Error::protocol_source(format!("bad prepare JSON `{json}`"), e))
    }

    /// `commit.commit(identifier, messages)` with the messages [`prepare`](Self::prepare) kept: one APPEND
    /// snapshot, and a COMPACT snapshot with the same identifier when compaction produced files. On failure the
    /// messages stay pending and the write must not be used again: call [`recover`](Self::recover).
    ///
    /// Errors: [`crate::Error::Java`] (also injected faults and commit conflicts).
    pub fn commit_prepared(&self, identifier: i64) -> Result<()> {
        let handle = self.handle;
        with_env(|env| {
            env.call_static_method(
                CLASS,
                "commitPrepared",
                "(JJ)V",
                &[JValue::Long(handle), JValue::Long(identifier)],
            )?;
            Ok(())
        })
    }

    /// [`commit_prepared`](Self::commit_prepared) of a committable that carries `watermark` when it is set
    /// (milliseconds, as Flink's committer commits its checkpoint's watermark):
    /// `TableCommitImpl.commit(ManifestCommittable)`. The snapshots it publishes carry the larger of `watermark`
    /// and the latest snapshot's (`FileStoreCommitImpl`). `None`: [`commit_prepared`](Self::commit_prepared).
    ///
    /// Errors: [`crate::Error::Java`], as [`commit_prepared`](Self::commit_prepared).
    pub fn commit_prepared_carrying(&self, identifier: i64, watermark: Option<i64>) -> Result<()> {
        let Some(watermark) = watermark else {
            return self.commit_prepared(identifier);
        };
        let handle = self.handle;
        with_env(|env| {
            env.call_static_method(
                CLASS,
                "commitPreparedWithWatermark",
                "(JJJ)V",
                &[
                    JValue::Long(handle),
                    JValue::Long(identifier),
                    JValue::Long(watermark),
                ],
            )?;
            Ok(())
        })
    }

    /// [`prepare`](Self::prepare) then [`commit_prepared`](Self::commit_prepared): one whole commit. Identifiers
    /// must increase per commit user.
    ///
    /// Errors: [`crate::Error::Java`]. After a failed commit, [`recover`](Self::recover).
    pub fn commit(&self, identifier: i64, wait_compaction: bool) -> Result<()> {
        self.prepare(identifier, wait_compaction)?;
        self.commit_prepared(identifier)
    }

    /// What a restarted job does: closes the write and the commit, builds new ones with the same commit user
    /// from a freshly loaded table, and calls `StreamTableCommit.filterAndCommit` with every pending
    /// identifier. Returns how many identifiers Paimon committed (0 when it considers them all committed).
    ///
    /// Errors: [`crate::Error::Java`].
    pub fn recover(&self) -> Result<i32> {
        let handle = self.handle;
        with_env(|env| {
            Ok(env
                .call_static_method(CLASS, "recover", "(J)I", &[JValue::Long(handle)])?
                .i()?)
        })
    }

    /// What a job restarted from the checkpoint holding the committables of `identifier` does, whether or not
    /// their commit returned: the write and the commit are closed (errors ignored), new ones are built with the
    /// same commit user from a freshly loaded table, and `filterAndCommit` gets `identifier` with the messages
    /// [`prepare`](Self::prepare) returned for it. May be called again (a second restart from the same
    /// checkpoint). Returns how many identifiers Paimon committed (0 or 1).
    ///
    /// Errors: [`crate::Error::Java`] (also when `identifier` was never prepared).
    pub fn recover_identifier(&self, identifier: i64) -> Result<i32> {
        let handle = self.handle;
        with_env(|env| {
            Ok(env
                .call_static_method(
                    CLASS,
                    "recoverIdentifier",
                    "(JJ)I",
                    &[JValue::Long(handle), JValue::Long(identifier)],
                )?
                .i()?)
        })
    }

    /// [`recover_identifier`](Self::recover_identifier) with `strategy` (`CorpusWriter.recoverIdentifierWith`):
    /// the same restart, then the strategy's recovery of `identifier`'s committables.
    ///
    /// Errors: [`crate::Error::Java`] (also when `identifier` was never prepared); [`crate::Error::Protocol`]
    /// when the answer is not the outcome's JSON.
    pub fn recover_identifier_with(
        &self,
        identifier: i64,
        strategy: RecoveryStrategy,
    ) -> Result<RecoveryOutcome> {
        let handle = self.handle;
        let json = with_env(|env| {
            let strategy = env.new_string(strategy.name())?;
            let answer = env
                .call_static_method(
                    CLASS,
                    "recoverIdentifierWith",
                    "(JJLjava/lang/String;)Ljava/lang/String;",
                    &[
                        JValue::Long(handle),
                        JValue::Long(identifier),
                        JValue::Object(&strategy),
                    ],
                )?
                .l()?;
            java_string(env, answer)
        })?;
        serde_json::from_str::<RecoveryOutcome>(&json)
            .map_err(|e| Error::protocol_source(format!("bad recovery outcome JSON `{json}`"), e))
    }

    /// Closes the write and the commit and builds new ones with the same commit user (they restore from the
    /// latest snapshot), as a job restarted from a successful checkpoint does. Needed after
    /// [`alter_table`] and to see other users' commits.
    ///
    /// Errors: [`crate::Error::Java`] (also when prepared identifiers are pending).
    pub fn reopen(&self) -> Result<()> {
        let handle = self.handle;
        with_env(|env| {
            env.call_static_method(CLASS, "reopen", "(J)V", &[JValue::Long(handle)])?;
            Ok(())
        })
    }

    /// Closes the write, the commit and the `IOManager`. Uncommitted rows are discarded.
    ///
    /// Errors: [`crate::Error::Java`] (the first close failure; the others are suppressed into it).
    pub fn close(mut self) -> Result<()> {
        self.close_inner()
    }

    fn close_inner(&mut self) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        self.closed = true;
        let handle = self.handle;
        with_env(|env| {
            env.call_static_method(CLASS, "closeWriter", "(J)V", &[JValue::Long(handle)])?;
            Ok(())
        })
    }
}

impl Drop for CorpusWriter {
    fn drop(&mut self) {
        let _ = self.close_inner();
    }
}
