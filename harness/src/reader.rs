//! The one reader interface the harness sees: "plan splits" and "read a split".
//!
//! Both the released Java reader ([`StockTableReader`]) and the native reader ([`NativeTableReader`])
//! implement [`TableReader`]; tests wrap either to plant differences, and later an external reader speaking
//! Arrow IPC will implement it too.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use native_reader::scan::ScanMode;
use native_reader::{PaimonRelease, Split, Table};

use crate::error::{Error, Result, Side};

/// A planned split plus whatever the reader that planned it needs to read it again
/// (the stock side keeps the Java-serialized `DataSplit`).
#[derive(Clone, Debug)]
pub struct PlannedSplit {
    /// The split as both readers describe it.
    pub split: Split,
    /// Reader-private bytes (stock: Java-serialized `DataSplit`); `None` for the native reader.
    pub payload: Option<Vec<u8>>,
    /// The split's type and Paimon's own serialization of it, handed to external readers; `None` where the
    /// released planner did not plan the split.
    pub wire: Option<jvm_bridge::WireSplit>,
}

impl From<jvm_bridge::StockSplit> for PlannedSplit {
    /// A split the released planner planned, with its Java-serialized `DataSplit` as the payload (an empty
    /// payload, a split the native planner stood in for, becomes `None`).
    fn from(s: jvm_bridge::StockSplit) -> Self {
        PlannedSplit {
            split: s.split,
            payload: (!s.payload.is_empty()).then_some(s.payload),
            wire: s.wire,
        }
    }
}

/// Record batches of one split: `_row_kind` Int8 then the table's columns (see `native_reader::types`).
pub type Batches<'a> = Box<dyn Iterator<Item = Result<RecordBatch>> + 'a>;

/// A Paimon table reader as the harness sees it. Readers are shared by the threads of a replay
/// (`replay --threads`): a reader is read from several threads at once unless it says
/// [`reads_in_order`](Self::reads_in_order).
pub trait TableReader: Send + Sync {
    /// Which side this is, for messages.
    fn side(&self) -> Side;

    /// Plans the streaming replay of `table` with `scan.mode=from-snapshot`, `scan.snapshot-id=from_snapshot`,
    /// stopping once the follow-up scan passes `end_snapshot` (mirrors `DataTableStreamScan`).
    fn plan_stream(
        &self,
        table: &Path,
        from_snapshot: i64,
        end_snapshot: i64,
    ) -> Result<Vec<PlannedSplit>>;

    /// Plans a scan of `table` in `mode`: the streaming modes followed until the follow-up scan passes
    /// `end_snapshot` (mirrors `DataTableStreamScan`), [`ScanMode::Batch`] as one batch plan
    /// (`DataTableBatchScan`).
    ///
    /// The default supports [`ScanMode::Stream`] through [`plan_stream`](Self::plan_stream) only and reports
    /// the other modes as a [`Error::Scenario`] naming the side.
    fn plan(&self, table: &Path, mode: ScanMode, end_snapshot: i64) -> Result<Vec<PlannedSplit>> {
        match mode {
            ScanMode::Stream { from_snapshot } => {
                self.plan_stream(table, from_snapshot, end_snapshot)
            }
            other => Err(Error::Scenario(format!(
                "the {} reader cannot plan {other}",
                self.side()
            ))),
        }
    }

    /// The reader's own name and version, when it reports one (external readers); `None` by default.
    fn reader_version(&self) -> Option<String> {
        None
    }

    /// Whether the replay hands this reader the released planner's splits instead of asking it to plan
    /// (external readers in `read` mode); `false` by default.
    fn reads_released_plan(&self) -> bool {
        false
    }

    /// Whether this reader must be asked for its splits one after another, in the order given to
    /// [`begin_read`](Self::begin_read) (an external reader answers one request in that order); the replay
    /// then reads it on its own thread and only the released reader's splits are read ahead. `false` by
    /// default: splits are read from any thread, several at once.
    fn reads_in_order(&self) -> bool {
        false
    }

    /// When each split's answer of the last read request arrived (external readers, for `bench`); empty
    /// by default.
    fn answer_timings(&self) -> Vec<AnswerTiming> {
        Vec::new()
    }

    /// Called once per replay, before any [`read_split`](Self::read_split), with the scan and every split
    /// this reader will be asked to read, in order (an external reader sends them in one request). Does
    /// nothing by default.
    fn begin_read(
        &self,
        _table: &Path,
        _mode: ScanMode,
        _end_snapshot: i64,
        _splits: &[PlannedSplit],
    ) -> Result<()> {
        Ok(())
    }

    /// Reads one split it planned, lazily, batch by batch.
    fn read_split<'a>(&'a self, table: &Path, split: &'a PlannedSplit) -> Result<Batches<'a>>;
}

/// The release the native reader mimics in this process: the release the stock side runs
/// ([`jvm_bridge::jvm::paimon_version`]: `--paimon-version`, else `PAIMON_PARITY_PAIMON_VERSION`, else 1.0.0),
/// so one value picks both sides. With `PAIMON_PARITY_CLASSPATH` the classpath decides the stock side and
/// this still follows the version setting.
///
/// Errors: [`Error::Native`] holding `native_reader::Error::UnsupportedRelease` naming a version the native
/// reader does not implement, with the list of those it does.
pub fn this_release() -> Result<PaimonRelease> {
    Ok(PaimonRelease::parse(&jvm_bridge::jvm::paimon_version())?)
}

/// The native reader behind [`TableReader`]. Opened tables are cached per path, opened as one release
/// ([`Table::open_as`]).
#[derive(Default)]
pub struct NativeTableReader {
    tables: Mutex<HashMap<PathBuf, Arc<Table>>>,
    batch_size: Option<usize>,
    release: PaimonRelease,
}

impl NativeTableReader {
    /// A reader of release 1.0.0 decoding batches of `native_reader::decode::DEFAULT_BATCH_SIZE` rows.
    pub fn new() -> Self {
        Self::default()
    }

    /// A reader that plans and reads as the reader of `release` (see [`this_release`] for the process's).
    pub fn for_release(release: PaimonRelease) -> Self {
        Self {
            release,
            ..Self::default()
        }
    }

    /// A reader of this process's release ([`this_release`]), the one the stock side runs.
    ///
    /// Errors: as [`this_release`].
    pub fn for_this_process() -> Result<Self> {
        Ok(Self::for_release(this_release()?))
    }

    /// The release this reader mimics.
    pub fn release(&self) -> PaimonRelease {
        self.release
    }

    /// Opens (or returns the cached) table at `path`.
    pub fn table(&self, path: &Path) -> Result<Arc<Table>> {
        let mut tables = self
            .tables
            .lock()
            .map_err(|_| Error::Scenario("native table cache poisoned".into()))?;
        if let Some(t) = tables.get(path) {
            return Ok(t.clone());
        }
        let (base, branch) = crate::location::split_branch(path);
        let mut t = Table::open_branch(&base, branch.as_deref(), self.release)?;
        if let (_, Some(system)) = crate::location::split_system(path) {
            t = native_reader::system::open(t, &system)?.0;
        }
        let t = Arc::new(t);
        tables.insert(path.to_path_buf(), t.clone());
        Ok(t)
    }
}

impl TableReader for NativeTableReader {
    fn side(&self) -> Side {
        Side::Native
    }

    fn plan_stream(
        &self,
        table: &Path,
        from_snapshot: i64,
        end_snapshot: i64,
    ) -> Result<Vec<PlannedSplit>> {
        let t = self.table(table)?;
        Ok(t.plan_stream(from_snapshot, end_snapshot)?
            .into_iter()
            .map(|split| PlannedSplit {
                split,
                payload: None,
                wire: None,
            })
            .collect())
    }

    fn plan(&self, table: &Path, mode: ScanMode, end_snapshot: i64) -> Result<Vec<PlannedSplit>> {
        let t = self.table(table)?;
        Ok(t.plan(mode, end_snapshot)?
            .into_iter()
            .map(|split| PlannedSplit {
                split,
                payload: None,
                wire: None,
            })
            .collect())
    }

    fn read_split<'a>(&'a self, table: &Path, split: &'a PlannedSplit) -> Result<Batches<'a>> {
        let t = self.table(table)?;
        let size = self
            .batch_size
            .unwrap_or(native_reader::decode::DEFAULT_BATCH_SIZE);
        let reader = native_reader::merge::read_split(&t, &split.split, size)?;
        Ok(Box::new(reader.map(|r| r.map_err(Error::from))))
    }
}

/// The released Paimon Java reader behind [`TableReader`], through `jvm-bridge`.
pub struct StockTableReader {
    inner: jvm_bridge::StockReader,
}

impl StockTableReader {
    /// Starts (or reuses) the process's JVM.
    pub fn new() -> Result<Self> {
        Ok(Self {
            inner: jvm_bridge::StockReader::new()?,
        })
    }

    /// The underlying bridge.
    pub fn bridge(&self) -> &jvm_bridge::StockReader {
        &self.inner
    }
}

impl TableReader for StockTableReader {
    fn side(&self) -> Side {
        Side::Stock
    }

    fn plan_stream(
        &self,
        table: &Path,
        from_snapshot: i64,
        end_snapshot: i64,
    ) -> Result<Vec<PlannedSplit>> {
        Ok(self
            .inner
            .plan_stream(table, from_snapshot, end_snapshot)?
            .into_iter()
            .map(PlannedSplit::from)
            .collect())
    }

    fn plan(&self, table: &Path, mode: ScanMode, end_snapshot: i64) -> Result<Vec<PlannedSplit>> {
        Ok(self
            .inner
            .plan(table, mode, end_snapshot)?
            .into_iter()
            .map(PlannedSplit::from)
            .collect())
    }

    fn read_split<'a>(&'a self, table: &Path, split: &'a PlannedSplit) -> Result<Batches<'a>> {
        let payload = split.payload.clone().ok_or_else(|| Error::Table {
            path: PathBuf::from(&split.split.bucket_path),
            reason: "the stock reader can only read splits it planned itself".into(),
        })?;
        let stock = jvm_bridge::StockSplit {
            split: split.split.clone(),
            payload,
            wire: None,
        };
        let batches = self.inner.read_split(table, &stock)?;
        Ok(Box::new(batches.map(|r| r.map_err(Error::from))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_native_reader_plans_as_its_line() {
        // c07 (lookup, deletion vectors): 1.0 streaming splits carry deletion files, 2.0 ones do not
        // (`SnapshotReaderImpl#generateSplits`); the split keys are the same.
        let table =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora/c07-deletion-vectors/table");
        let plan = |reader: &NativeTableReader| {
            reader
                .plan(&table, ScanMode::Stream { from_snapshot: 1 }, 10)
                .unwrap()
        };
        let v1 = plan(&NativeTableReader::new());
        let v2 = plan(&NativeTableReader::for_release(PaimonRelease::V2_0_0));
        assert_eq!(NativeTableReader::new().release(), PaimonRelease::V1_0_0);
        assert_eq!(v1.len(), v2.len());
        assert!(v1.iter().all(|s| !s.split.deletion_files.is_empty()));
        assert!(v2.iter().all(|s| s.split.deletion_files.is_empty()));
        let key = |s: &PlannedSplit| (s.split.snapshot_id, s.split.bucket);
        assert!(v1.iter().map(key).eq(v2.iter().map(key)));
    }

    #[test]
    fn a_release_outside_the_lines_is_named() {
        let err = Error::from(PaimonRelease::parse("1.4.0").unwrap_err());
        assert!(err.to_string().contains("`1.4.0`"), "{err}");
    }
}

/// When one split's answer (an external reader's Arrow IPC stream) arrived on the reader's stdout: `bench` tells the
/// reader's own time to start answering a split apart from the time to stream the answer.
#[derive(Clone, Copy, Debug)]
pub struct AnswerTiming {
    /// From the end of the previous answer (the request, for the first) to this answer's first byte:
    /// the reader opening and decoding the start of the split, plus the protocol's latency.
    pub to_first_byte: std::time::Duration,
    /// From this answer's first byte to its last.
    pub first_to_last_byte: std::time::Duration,
}
