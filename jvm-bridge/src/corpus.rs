//! Writing test tables with the released Paimon writer.
//!
//! Mirrors `org.paimonparity.bridge.CorpusWriter` (Java), which calls the released Paimon 1.0 classes
//! `SchemaManager` (table creation without a catalog), `StreamWriteBuilder`, `StreamTableWrite` and
//! `StreamTableCommit`.
//!
//! JSON shapes:
//! - schema: `{"fields":[{"name":"k","type":"INT NOT NULL"}, ...],"partitionKeys":[..],"primaryKeys":[..],
//!   "options":{"bucket":"1", ...}}`; a type is a Paimon SQL type string, or Paimon's JSON form of a type for
//!   ARRAY / MAP / ROW (`DataTypeJsonParser.parseDataType`).
//! - rows: `[{"kind":"+I","values":[1,"a",null]}, ...]`, kinds `+I -U +U -D`, values in column order: BOOLEAN
//!   as JSON boolean; TINYINT..BIGINT as JSON integers; FLOAT/DOUBLE as numbers or `"NaN"`, `"Infinity"`,
//!   `"-Infinity"`; DECIMAL as a string (`"12.30"`); CHAR/VARCHAR/STRING as strings; BINARY/VARBINARY/BYTES as
//!   base64 strings; DATE as int days since 1970-01-01; TIME as int millis of the day; TIMESTAMP as
//!   `"yyyy-MM-ddTHH:mm:ss[.fffffffff]"` (TIMESTAMP WITH LOCAL TIME ZONE: the same, read as UTC); `null` is
//!   NULL. Other types are rejected with a Java exception.
//! - partition (for `compact`): the JSON array of the partition key values, converted the same way; `[]` for an
//!   unpartitioned table.

use std::path::Path;

use jni::objects::JValue;

use crate::error::Result;
use crate::jvm::{path_arg, with_env};

/// The Java class behind this module.
const CLASS: &str = "org/paimonparity/bridge/CorpusWriter";

/// An open writer of one table: a `StreamTableWrite` and a `StreamTableCommit` of one commit user.
///
/// Calls are serialised on the Java side. [`close`](Self::close) closes the write, the commit and the
/// `IOManager`; dropping an open writer closes it too (ignoring errors).
#[derive(Debug)]
pub struct CorpusWriter {
    handle: i64,
    closed: bool,
}

impl CorpusWriter {
    /// Creates a table at `table_dir` from `schema_json` (see the module docs) with
    /// `new SchemaManager(LocalFileIO.create(), path).createTable(schema)`.
    ///
    /// Errors: [`crate::Error::Java`] (bad JSON or type string, invalid schema, table exists, I/O),
    /// [`crate::Error::Protocol`] (non-UTF-8 path).
    pub fn create_table(table_dir: &Path, schema_json: &str) -> Result<()> {
        let dir = path_arg(table_dir)?;
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

    /// Opens a writer: `newStreamWriteBuilder().withCommitUser(commit_user)`, its `newWrite()` with
    /// `IOManager.create(io_tmp_dir)` (needed by `lookup` and deletion vectors) and its `newCommit()`.
    ///
    /// Use the same `commit_user` across writers of one logical job: Paimon's commit recovery keys on it.
    ///
    /// Errors: [`crate::Error::Java`] (no table, I/O), [`crate::Error::Protocol`] (non-UTF-8 path).
    pub fn open(table_dir: &Path, commit_user: &str, io_tmp_dir: &Path) -> Result<Self> {
        let dir = path_arg(table_dir)?;
        let tmp = path_arg(io_tmp_dir)?;
        let handle = with_env(|env| {
            let dir = env.new_string(dir)?;
            let user = env.new_string(commit_user)?;
            let tmp = env.new_string(tmp)?;
            Ok(env
                .call_static_method(
                    CLASS,
                    "openWriter",
                    "(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)J",
                    &[
                        JValue::Object(&dir),
                        JValue::Object(&user),
                        JValue::Object(&tmp),
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

    /// `commit.commit(identifier, write.prepareCommit(wait_compaction, identifier))`: one APPEND snapshot, and a
    /// COMPACT snapshot with the same identifier when compaction produced files. Identifiers must increase
    /// per commit user.
    ///
    /// Errors: [`crate::Error::Java`]. After a failed commit, close this writer and open a new one.
    pub fn commit(&self, identifier: i64, wait_compaction: bool) -> Result<()> {
        let handle = self.handle;
        with_env(|env| {
            env.call_static_method(
                CLASS,
                "commit",
                "(JJZ)V",
                &[
                    JValue::Long(handle),
                    JValue::Long(identifier),
                    JValue::Bool(u8::from(wait_compaction)),
                ],
            )?;
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
