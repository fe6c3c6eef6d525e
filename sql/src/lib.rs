//! SQL over Paimon tables with DataFusion: each table registered by name is read by the native reader
//! ([`provider::table_provider`]: its latest snapshot, one partition per split), its metadata system tables
//! are registered beside it as `"name$snapshots"`, `"name$schemas"`, `"name$options"`, `"name$tags"`,
//! `"name$manifests"`, `"name$partitions"`, `"name$buckets"` and `"name$files"`
//! ([`native_reader::system::metadata`], read when a query scans them: [`metadata`]), and any set of record
//! batches (a replay's `stock` and `native`
//! rows) can be registered as a table too.
//!
//! ```no_run
//! # fn main() -> paimon_sql::Result<()> {
//! let mut session = paimon_sql::SqlSession::new(native_reader::PaimonRelease::V2_0_0)?;
//! session.register_table("t", std::path::Path::new("wh/db.db/t"))?;
//! let batches = session.query(r#"SELECT snapshot_id, commit_kind FROM "t$snapshots""#)?;
//! # Ok(()) }
//! ```

pub mod error;
mod metadata;
pub mod multiset;
pub mod provider;

use std::path::Path;
use std::sync::Arc;

use arrow_array::RecordBatch;
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;
use native_reader::system::SystemTable;
use native_reader::{PaimonRelease, Table};

pub use error::{Error, Result};

/// The metadata system tables registered beside every table, each read when a query scans it; one the
/// native reader cannot read for that table (a metadata file missing, a value it refuses to render) fails
/// that query with the reason.
const SYSTEM_TABLES: [SystemTable; 8] = [
    SystemTable::Snapshots,
    SystemTable::Schemas,
    SystemTable::Options,
    SystemTable::Tags,
    SystemTable::Manifests,
    SystemTable::Partitions,
    SystemTable::Buckets,
    SystemTable::Files,
];

/// A DataFusion session with Paimon tables in it, read as one release reads them.
pub struct SqlSession {
    context: SessionContext,
    runtime: tokio::runtime::Runtime,
    release: PaimonRelease,
    names: Vec<String>,
    /// Views of registered tables that the native reader refuses (a view the release has none of), with
    /// why: a query naming one fails with that reason.
    unread: Vec<(String, native_reader::Error)>,
}

impl SqlSession {
    /// An empty session reading tables as `release` ([`native_reader::Table::open_as`]).
    ///
    /// Errors: [`Error::Runtime`] when the query runtime (a Tokio runtime) cannot start.
    pub fn new(release: PaimonRelease) -> Result<SqlSession> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(std::thread::available_parallelism().map_or(2, |n| n.get()))
            .build()?;
        Ok(SqlSession {
            context: SessionContext::new(),
            runtime,
            release,
            names: Vec::new(),
            unread: Vec::new(),
        })
    }

    /// The tables registered so far, in order (system tables included).
    pub fn table_names(&self) -> &[String] {
        &self.names
    }

    fn claim(&mut self, name: &str) -> Result<()> {
        if name.trim().is_empty() {
            return Err(Error::Usage("a table name must not be empty".into()));
        }
        if self.names.iter().any(|n| n == name) {
            return Err(Error::Usage(format!("table `{name}` is registered twice")));
        }
        self.names.push(name.to_owned());
        Ok(())
    }

    /// Registers the Paimon table at `location` (a directory or store URI the native reader opens) as
    /// `name`: its rows at the latest snapshot (the table's columns), and its system tables `name$snapshots`,
    /// `name$schemas`, `name$options`, `name$tags`, `name$manifests`, `name$partitions`, `name$buckets` and
    /// `name$files` (quote them in SQL: `"t$snapshots"`), and the views `name$audit_log`, `name$binlog` and
    /// `name$ro` the release has. Nothing is read until a query scans a table (the table's batch plan is made
    /// now); a metadata system table is read whole when a query scans it, and one the native reader refuses
    /// fails that query with [`Error::Unread`].
    ///
    /// Errors: [`Error::Usage`] for an empty or repeated name; the native reader's error for a location that
    /// is not a table, or a table it refuses.
    pub fn register_table(&mut self, name: &str, location: &Path) -> Result<()> {
        let table = Arc::new(Table::open_as(location, self.release)?);
        self.claim(name)?;
        self.context
            .register_table(name, provider::table_provider(table.clone(), false)?)?;
        for system in SYSTEM_TABLES {
            let system_name = format!("{name}${}", system.name());
            let provider = metadata::provider(&system_name, table.clone(), system)?;
            self.claim(&system_name)?;
            self.context.register_table(system_name, provider)?;
        }
        // The system tables read by splits, as DataFusion tables like the table itself. One the table has
        // none of (a view its release refuses) is not registered; a query naming it fails with the reason.
        for view in ["audit_log", "binlog", "ro"] {
            let opened = Table::open_as(location, self.release)
                .and_then(|t| native_reader::system::open(t, view));
            let view_name = format!("{name}${view}");
            let (viewed, _) = match opened {
                Ok(v) => v,
                Err(e) => {
                    self.unread.push((view_name, e));
                    continue;
                }
            };
            let provider = provider::table_provider(Arc::new(viewed), false)?;
            self.claim(&view_name)?;
            self.context.register_table(view_name, provider)?;
        }
        Ok(())
    }

    /// Registers the streaming scan of the Paimon table at `location` as `name`: every change of every
    /// snapshot from `from_snapshot` (default: the earliest retained one) to the latest, as
    /// `scan.mode=from-snapshot` with `scan.snapshot-id` reads them (`replay --mode stream`), with
    /// `_row_kind` (Int8: 0 `+I`, 1 `-U`, 2 `+U`, 3 `-D`) before the table's columns. The splits are planned
    /// now and read when a query scans them, one partition each.
    ///
    /// Errors: [`Error::Usage`] for an empty or repeated name; the native reader's error for a location that
    /// is not a table, a table without a snapshot, or a streaming scan it refuses.
    pub fn register_stream(
        &mut self,
        name: &str,
        location: &Path,
        from_snapshot: Option<i64>,
    ) -> Result<()> {
        let table = Arc::new(Table::open_as(location, self.release)?);
        let manager = table.snapshot_manager();
        let (Some(earliest), Some(latest)) = (
            manager.earliest_snapshot_id()?,
            manager.latest_snapshot_id()?,
        ) else {
            return Err(native_reader::Error::Snapshot {
                path: table.meta_path().join("snapshot"),
                reason: "the table has no snapshot to stream".into(),
            }
            .into());
        };
        let splits = table.plan_stream(from_snapshot.unwrap_or(earliest), latest)?;
        let provider = provider::splits_provider(table, splits, true)?;
        self.claim(name)?;
        self.context.register_table(name, provider)?;
        Ok(())
    }

    /// Registers `batches` (all of one schema; at least one, possibly empty) as table `name`.
    ///
    /// Errors: [`Error::Usage`] for an empty or repeated name, or no batch; [`Error::DataFusion`] when the
    /// batches' schemas differ.
    pub fn register_batches(&mut self, name: &str, batches: Vec<RecordBatch>) -> Result<()> {
        let Some(first) = batches.first() else {
            return Err(Error::Usage(format!(
                "table `{name}`: no batch to register"
            )));
        };
        let table = MemTable::try_new(first.schema(), vec![batches])?;
        self.claim(name)?;
        self.context.register_table(name, Arc::new(table))?;
        Ok(())
    }

    /// Registers `batches` (possibly none) of `schema` as table `name`.
    ///
    /// Errors: [`Error::Usage`] for an empty or repeated name; [`Error::DataFusion`] when a batch does not
    /// have `schema`.
    pub fn register_batches_with_schema(
        &mut self,
        name: &str,
        schema: arrow_schema::SchemaRef,
        batches: Vec<RecordBatch>,
    ) -> Result<()> {
        let table = MemTable::try_new(schema, vec![batches])?;
        self.claim(name)?;
        self.context.register_table(name, Arc::new(table))?;
        Ok(())
    }

    /// Runs `sql` and collects its result: at least one batch (an empty one of the result's schema when
    /// there is no row).
    ///
    /// Errors: [`Error::DataFusion`] for SQL that does not parse or names what is not registered, and for a
    /// failed read of a table's splits (its native error inside); [`Error::Unread`] for a metadata system
    /// table the native reader refuses to read, or a view of a registered table that it refused.
    pub fn query(&self, sql: &str) -> Result<Vec<RecordBatch>> {
        self.run(sql).map_err(|e| {
            // A metadata system table the native reader refused to read: its reason.
            if let Some(unread) = match &e {
                Error::DataFusion(d) => metadata::unread_in(d),
                _ => None,
            } {
                return unread;
            }
            // A view the native reader refused at registration: its reason, not "not found".
            let missing = match &e {
                Error::DataFusion(d) => missing_table(&d.to_string()),
                _ => None,
            };
            let unread = missing.and_then(|m| self.unread.iter().find(|(name, _)| *name == m));
            match unread {
                Some((name, reason)) => Error::Unread {
                    table: name.clone(),
                    reason: reason.to_string(),
                },
                None => e,
            }
        })
    }

    fn run(&self, sql: &str) -> Result<Vec<RecordBatch>> {
        self.runtime.block_on(async {
            let frame = self.context.sql(sql).await?;
            let schema: arrow_schema::SchemaRef = Arc::new(frame.schema().as_arrow().clone());
            let batches = frame.collect().await?;
            if batches.iter().all(|b| b.num_rows() == 0) {
                return Ok(vec![RecordBatch::new_empty(schema)]);
            }
            Ok(batches)
        })
    }
}

/// The table a DataFusion planning error says it cannot find (`table 'datafusion.public.t$files' not
/// found`), without its catalog and schema; `None` for any other error.
fn missing_table(error: &str) -> Option<String> {
    let start = error.find("table '")? + "table '".len();
    let end = start + error[start..].find("' not found")?;
    let qualified = &error[start..end];
    Some(qualified.rsplit('.').next().unwrap_or(qualified).to_owned())
}
