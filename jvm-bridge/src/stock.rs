//! The released Paimon reader as an oracle: streaming plans and split reads through the embedded JVM.
//!
//! Mirrors `org.paimonparity.bridge.StockReader` (Java), which calls the released Paimon 1.0 classes
//! `FileStoreTableFactory`, `StreamTableScan` (`DataTableStreamScan`), `TableScan` (`DataTableBatchScan`),
//! `DataSplit` and `TableRead`, and exports
//! rows through the Arrow C Data Interface: with the release's own paimon-arrow (`ArrowUtils`,
//! `ArrowFieldWriter`) where it is served (1.0.0, 2.0.0), else with the bridge's `RowArrowExport`, which gives
//! the schema and values that release's paimon-arrow gives (docs/src/concepts/releases.md, "Rows to Arrow without paimon-arrow").

use std::path::Path;

use arrow::ffi::{from_ffi_and_data_type, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::DataType;
use base64::Engine as _;
use jni::objects::{JByteArray, JValue};
use native_reader::scan::ScanMode;
use native_reader::Split;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::jvm::{self, java_string, path_arg, with_env};
use crate::scan_options::{scan_options, StreamStop};

/// The Java class behind this module.
const CLASS: &str = "org/paimonparity/bridge/StockReader";

/// Rows per batch the Java side exports at most (`StockReader.BATCH_ROWS`).
pub const BATCH_ROWS: usize = 4096;

/// One split planned by the released reader.
///
/// `split` describes the Java `DataSplit` in the shared shape (with `bucket_path` stripped of a `file:` scheme);
/// `payload` is the Java-serialized `DataSplit` itself, which [`StockReader::read_split`] hands back to Java
/// unchanged, so the released reader reads exactly the split it planned.
#[derive(Clone, Debug)]
pub struct StockSplit {
    /// The split as `native_reader::Split`.
    pub split: Split,
    /// `java.io` serialization of the `org.apache.paimon.table.source.DataSplit`; opaque to Rust.
    pub payload: Vec<u8>,
    /// The split's type and Paimon's own serialization of it, for other readers; `None` for splits that did
    /// not come from the Java planner.
    pub wire: Option<WireSplit>,
}

/// A planned split as other readers see it (the `split_type` and `java_split` of the external-reader
/// protocol, `adapters/README.md`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireSplit {
    /// The Java class of the split: `DataSplit`, or 2.0's `IncrementalSplit`.
    pub split_type: String,
    /// Paimon's serialization of the split, when the line has one for it.
    pub java_split: Option<JavaSplit>,
}

/// Paimon's own bytes of a split: 2.0's `SplitSerializer.serialize(split)` frame (`format` = `split-v1`) or
/// 1.0's raw `DataSplit#serialize(DataOutputView)` body (`format` = `data-split`, version 5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JavaSplit {
    /// `split-v1` or `data-split`.
    pub format: String,
    /// `DataSplit.VERSION` of the body: 5 on 1.0, 8 on 2.0.
    pub data_split_version: i32,
    /// The bytes, standard base64.
    pub base64: String,
}

/// Handle to the released reader in the embedded JVM. Cheap to create and clone, `Send + Sync`.
///
/// Every method attaches the calling thread to the JVM (permanently) if needed. Tables are opened read-only
/// (`FileStoreTableFactory.create(LocalFileIO, path)`, no catalog, no consumer): nothing is written into them.
#[derive(Clone, Debug)]
pub struct StockReader {
    _started: (),
}

/// What `StockReader.planBatch` and `nextStreamPlan` return per split.
#[derive(Deserialize)]
struct PlannedSplit {
    split: Split,
    payload: String,
    #[serde(default)]
    split_type: Option<String>,
    #[serde(default)]
    java_split: Option<JavaSplit>,
}

/// The file-system options of tables in object stores as JSON ([`set_file_io_options`]), and whether the
/// JVM has them yet.
static FILE_IO_OPTIONS: std::sync::Mutex<(String, bool)> =
    std::sync::Mutex::new((String::new(), true));

/// Sets the file-system options (Paimon's spelling: `s3.endpoint`, `s3.access-key`, `s3.secret-key`,
/// `s3.path.style.access`, `fs.s3a.*`) the released reader opens tables in object stores with: given to
/// `CatalogContext.create(Options)` and `FileIO.get` (the bridge's `TableLocations`) when the next
/// [`StockReader`] is made, so that a command that never starts the JVM does not start it for them.
/// They hold secrets: never printed on either side.
pub fn set_file_io_options(options: &std::collections::BTreeMap<String, String>) {
    let json = serde_json::to_string(options).unwrap_or_else(|_| "{}".to_string());
    let mut set = FILE_IO_OPTIONS.lock().unwrap_or_else(|e| e.into_inner());
    if set.0 != json {
        *set = (json, false);
    }
}

/// Hands the JVM the options of [`set_file_io_options`] when it does not have them yet.
pub(crate) fn apply_file_io_options() -> Result<()> {
    let mut set = FILE_IO_OPTIONS.lock().unwrap_or_else(|e| e.into_inner());
    if set.1 {
        return Ok(());
    }
    let json = set.0.clone();
    with_env(|env| {
        let json = env.new_string(&json)?;
        env.call_static_method(
            "org/paimonparity/bridge/TableLocations",
            "setOptions",
            "(Ljava/lang/String;)V",
            &[JValue::Object(&json)],
        )?;
        Ok(())
    })?;
    set.1 = true;
    Ok(())
}

impl StockReader {
    /// Starts the JVM if needed (see [`crate::jvm`]) and hands it the file-system options of
    /// [`set_file_io_options`].
    ///
    /// Errors: [`Error::JvmStart`]; [`Error::Java`] when the options cannot be set.
    pub fn new() -> Result<Self> {
        jvm::ensure_started()?;
        apply_file_io_options()?;
        Ok(Self { _started: () })
    }

    /// Plans a streaming read of `table_dir` the way a streaming job would: `scan.mode=from-snapshot`,
    /// `scan.snapshot-id=from_snapshot`, then `StreamTableScan.plan()` until `checkpoint()` (the next snapshot to
    /// scan) passes `end_snapshot` or the scanner stops making progress (`SnapshotNotExistPlan` twice without
    /// moving). Same as [`plan`](Self::plan) with [`ScanMode::Stream`].
    ///
    /// Returns every split of snapshots `<= end_snapshot`, in plan order: one snapshot after another, and
    /// within a snapshot in `DataSplit` order. Which snapshots yield splits depends on the table's
    /// `changelog-producer` (Paimon's follow-up scanners), exactly as in the released reader. Snapshot ids are
    /// Paimon's (`snapshot-N`), starting at 1.
    ///
    /// Errors: [`Error::Java`] (no table at `table_dir`, unreadable metadata, ...), [`Error::Protocol`]
    /// (non-UTF-8 path, unexpected JSON).
    pub fn plan_stream(
        &self,
        table_dir: &Path,
        from_snapshot: i64,
        end_snapshot: i64,
    ) -> Result<Vec<StockSplit>> {
        self.plan(table_dir, ScanMode::Stream { from_snapshot }, end_snapshot)
    }

    /// Plans a scan of `table_dir` in `mode` with the released scans. The options of `mode`
    /// ([`scan_options`](crate::scan_options::scan_options)) and the streaming stop rule
    /// ([`StreamStop`](crate::scan_options::StreamStop)) are computed here; Java (`StockReader.planBatch`,
    /// `openStreamScan`, `nextStreamPlan`) applies the options with `Table.copy` and returns plans:
    ///
    /// - [`ScanMode::Stream`], [`ScanMode::StreamFull`], [`ScanMode::LatestFull`]: a `StreamTableScan` with
    ///   `scan.mode` = `from-snapshot`, `from-snapshot-full` (both with `scan.snapshot-id`) or `latest-full`,
    ///   planned until `checkpoint()` passes `end_snapshot` (see [`plan_stream`](Self::plan_stream)); splits of
    ///   snapshots after `end_snapshot` are dropped. The full first plan's splits are batch splits
    ///   (`is_streaming` false).
    /// - [`ScanMode::Batch`]: `newScan().plan()` of the latest snapshot, or of `scan.snapshot-id` (time
    ///   travel); `end_snapshot` is unused.
    ///
    /// Splits come in plan order. Errors: [`Error::Java`] (no table, no such snapshot, unreadable metadata,
    /// ...), [`Error::Protocol`] (non-UTF-8 path, unexpected JSON).
    pub fn plan(
        &self,
        table_dir: &Path,
        mode: ScanMode,
        end_snapshot: i64,
    ) -> Result<Vec<StockSplit>> {
        let dir = path_arg(table_dir)?;
        let options = serde_json::to_string(&scan_options(mode))
            .map_err(|e| Error::protocol_source("scan options", e))?;
        if !mode.is_streaming() {
            let json = with_env(|env| {
                let dir = env.new_string(dir)?;
                let options = env.new_string(&options)?;
                let out = env
                    .call_static_method(
                        CLASS,
                        "planBatch",
                        "(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;",
                        &[JValue::Object(&dir), JValue::Object(&options)],
                    )?
                    .l()?;
                if out.is_null() {
                    return Err(Error::protocol("planBatch returned null".to_owned()));
                }
                java_string(env, out)
            })?;
            return parse_plan(&json);
        }
        let scan = StreamScan::open(dir, &options)?;
        let mut stop = StreamStop::new(end_snapshot);
        let mut out = Vec::new();
        loop {
            let step = scan.next_plan()?;
            out.extend(
                parse_splits(step.splits)?
                    .into_iter()
                    .filter(|s| stop.keeps(s.split.snapshot_id)),
            );
            // A bounded stream (`scan.bounded.watermark`) ends where the scan says so.
            if step.end_of_scan || stop.after_plan(step.checkpoint, step.snapshot_not_exist) {
                return Ok(out);
            }
        }
    }

    /// The latest snapshot id of `table_dir` (`SnapshotManager.latestSnapshotId()`), `None` when it has none
    /// (also when the directory does not exist).
    ///
    /// Errors: [`Error::Java`], [`Error::Protocol`] (non-UTF-8 path).
    pub fn latest_snapshot_id(&self, table_dir: &Path) -> Result<Option<i64>> {
        let dir = path_arg(table_dir)?;
        let id = with_env(|env| {
            let dir = env.new_string(dir)?;
            Ok(env
                .call_static_method(
                    CLASS,
                    "latestSnapshotId",
                    "(Ljava/lang/String;)J",
                    &[JValue::Object(&dir)],
                )?
                .j()?)
        })?;
        Ok((id >= 0).then_some(id))
    }

    /// Reads one split with the released reader: `table.newReadBuilder().newRead().createReader(dataSplit)`,
    /// where `dataSplit` is deserialized from `split.payload`.
    ///
    /// The batches have `_row_kind` (Int8 NOT NULL: 0 `+I`, 1 `-U`, 2 `+U`, 3 `-D`) followed by the table's
    /// columns in schema order, typed as the release's paimon-arrow types them; at most [`BATCH_ROWS`] rows each, never empty. Every field
    /// carries paimon-arrow's `PARQUET:field_id` metadata: the table's field ids, and for `_row_kind` 2147483645
    /// (the id of Paimon's TINYINT row-kind system field `_VALUE_KIND`). TIMESTAMP WITH LOCAL TIME ZONE columns
    /// carry the zone `UTC` (the JVM runs with `-Duser.timezone=UTC`). Streaming
    /// splits (`is_streaming`) are read without merging, so every changelog row comes back with its own kind.
    ///
    /// Errors: [`Error::Java`] (opening the reader failed); the iterator yields the errors of later reads.
    /// The message of every [`Error::Java`] ends with the split's bucket directory, data files and deletion
    /// files (`(reading <bucket path>: [data files]; deletion files [..])`): Paimon's format readers do not
    /// always name the file they fail on.
    pub fn read_split(&self, table_dir: &Path, split: &StockSplit) -> Result<StockBatches> {
        let dir = path_arg(table_dir)?;
        let reading = reading(&split.split);
        let handle = with_env(|env| {
            let dir = env.new_string(dir)?;
            let payload: JByteArray<'_> = env.byte_array_from_slice(&split.payload)?;
            Ok(env
                .call_static_method(
                    CLASS,
                    "openRead",
                    "(Ljava/lang/String;[B)J",
                    &[JValue::Object(&dir), JValue::Object(&payload)],
                )?
                .j()?)
        })
        .map_err(|e| in_split(e, &reading))?;
        Ok(StockBatches {
            handle,
            closed: false,
            reading,
        })
    }

    /// Reads a metadata system table whole with the released reader (`StockReader.openSystemRead`):
    /// `SystemTableLoader.load(name, table)` of the table at `location`, whose last component ends in
    /// `$<name>` (`t$snapshots`, `t$branch_b1$schemas`), every split of its `newReadBuilder().newScan()`
    /// read in plan order. The batches are as [`StockReader::read_split`]'s: `_row_kind` then the system
    /// table's columns.
    ///
    /// Errors: [`Error::Java`] naming the release's refusal (no such system table, a table it refuses).
    pub fn read_system_table(&self, location: &Path) -> Result<StockBatches> {
        let dir = path_arg(location)?;
        let reading = format!("reading system table {dir}");
        let handle = with_env(|env| {
            let dir = env.new_string(dir)?;
            Ok(env
                .call_static_method(
                    CLASS,
                    "openSystemRead",
                    "(Ljava/lang/String;)J",
                    &[JValue::Object(&dir)],
                )?
                .j()?)
        })
        .map_err(|e| in_split(e, &reading))?;
        Ok(StockBatches {
            handle,
            closed: false,
            reading,
        })
    }

    /// The version of the Paimon SDK the JVM runs (`Implementation-Version` of the jar holding
    /// `org.apache.paimon.table.FileStoreTable`), e.g. `1.0.0`.
    ///
    /// Errors: [`Error::Java`] (no version in the manifest), [`Error::Jni`].
    pub fn paimon_version(&self) -> Result<String> {
        with_env(|env| {
            let v = env
                .call_static_method(CLASS, "paimonVersion", "()Ljava/lang/String;", &[])?
                .l()?;
            if v.is_null() {
                return Err(Error::protocol("paimonVersion returned null".to_owned()));
            }
            java_string(env, v)
        })
    }

    /// Benchmark helper: reads `split` with the released reader in Java and only counts its rows, without
    /// exporting them (`StockReader.countSplit`). Returns `(rows, nanoseconds)`, the time of `createReader`
    /// and the read as Java's `System.nanoTime` measures it (JNI and payload decoding excluded).
    ///
    /// Errors: [`Error::Java`] (the read failed), [`Error::Jni`], [`Error::Protocol`].
    pub fn count_split(&self, table_dir: &Path, split: &StockSplit) -> Result<(i64, i64)> {
        let dir = path_arg(table_dir)?;
        let reading = reading(&split.split);
        with_env(|env| {
            let dir = env.new_string(dir)?;
            let payload: JByteArray<'_> = env.byte_array_from_slice(&split.payload)?;
            let out = env
                .call_static_method(
                    CLASS,
                    "countSplit",
                    "(Ljava/lang/String;[B)[J",
                    &[JValue::Object(&dir), JValue::Object(&payload)],
                )?
                .l()?;
            let arr = jni::objects::JLongArray::from(out);
            let mut buf = [0i64; 2];
            env.get_long_array_region(&arr, 0, &mut buf)?;
            Ok((buf[0], buf[1]))
        })
        .map_err(|e| in_split(e, &reading))
    }

    /// Bytes the Java export allocator still holds (`RootAllocator.getAllocatedMemory()`): memory of batches
    /// exported to Rust and not yet dropped. 0 when every batch has been dropped.
    ///
    /// Errors: [`Error::Java`], [`Error::Jni`].
    pub fn allocated_bytes(&self) -> Result<i64> {
        with_env(|env| {
            Ok(env
                .call_static_method(CLASS, "allocatedBytes", "()J", &[])?
                .j()?)
        })
    }

    /// Number of Java readers opened by [`read_split`](Self::read_split) and not closed yet.
    ///
    /// Errors: [`Error::Java`], [`Error::Jni`].
    pub fn open_readers(&self) -> Result<i32> {
        with_env(|env| {
            Ok(env
                .call_static_method(CLASS, "openReaders", "()I", &[])?
                .i()?)
        })
    }
}

/// Parses `planBatch`'s JSON: `[{"split": <Split>, "payload": "<base64>"}, ...]`.
fn parse_plan(json: &str) -> Result<Vec<StockSplit>> {
    let planned: Vec<PlannedSplit> =
        serde_json::from_str(json).map_err(|e| Error::protocol_source("bad plan JSON", e))?;
    parse_splits(planned)
}

/// Decodes the payloads of planned splits and strips the `file:` scheme of their bucket paths and of their
/// deletion files' paths (an index file under an external path, `index-file-in-data-file-dir`, is named by
/// its URI), so that both readers name a local file alike.
fn parse_splits(planned: Vec<PlannedSplit>) -> Result<Vec<StockSplit>> {
    planned
        .into_iter()
        .map(|p| {
            let payload = base64::engine::general_purpose::STANDARD
                .decode(p.payload.as_bytes())
                .map_err(|e| Error::protocol_source("bad split payload", e))?;
            let mut split = p.split;
            split.bucket_path = strip_file_scheme(&split.bucket_path);
            for d in split
                .deletion_files
                .iter_mut()
                .chain(split.before_deletion_files.iter_mut())
                .flatten()
            {
                d.path = strip_file_scheme(&d.path);
            }
            let wire = p.split_type.map(|split_type| WireSplit {
                split_type,
                java_split: p.java_split,
            });
            Ok(StockSplit {
                split,
                payload,
                wire,
            })
        })
        .collect()
}

/// What `StockReader.nextStreamPlan` returns for one `StreamTableScan.plan()`.
#[derive(Deserialize)]
struct StreamPlan {
    splits: Vec<PlannedSplit>,
    /// `StreamTableScan.checkpoint()`: the next snapshot to scan, `None` for null.
    checkpoint: Option<i64>,
    /// The plan was a `SnapshotNotExistPlan`.
    snapshot_not_exist: bool,
    /// The scan threw `EndOfScanException`: a bounded stream ended (`BoundedChecker`).
    #[serde(default)]
    end_of_scan: bool,
}

/// A `StreamTableScan` open in the JVM (`StockReader.openStreamScan`); closed on drop.
struct StreamScan {
    handle: i64,
}

impl StreamScan {
    fn open(dir: &str, options: &str) -> Result<Self> {
        let handle = with_env(|env| {
            let dir = env.new_string(dir)?;
            let options = env.new_string(options)?;
            Ok(env
                .call_static_method(
                    CLASS,
                    "openStreamScan",
                    "(Ljava/lang/String;Ljava/lang/String;)J",
                    &[JValue::Object(&dir), JValue::Object(&options)],
                )?
                .j()?)
        })?;
        Ok(Self { handle })
    }

    fn next_plan(&self) -> Result<StreamPlan> {
        let handle = self.handle;
        let json = with_env(|env| {
            let out = env
                .call_static_method(
                    CLASS,
                    "nextStreamPlan",
                    "(J)Ljava/lang/String;",
                    &[JValue::Long(handle)],
                )?
                .l()?;
            if out.is_null() {
                return Err(Error::protocol("nextStreamPlan returned null".to_owned()));
            }
            java_string(env, out)
        })?;
        serde_json::from_str(&json).map_err(|e| Error::protocol_source("bad plan JSON", e))
    }
}

impl Drop for StreamScan {
    fn drop(&mut self) {
        let handle = self.handle;
        let _ = with_env(|env| {
            env.call_static_method(CLASS, "closeStreamScan", "(J)V", &[JValue::Long(handle)])?;
            Ok(())
        });
    }
}

/// `t` with every map's `value` field made nullable (recursively).
fn nullable_map_values(t: &DataType) -> DataType {
    use arrow_schema::{Field, Fields};
    use std::sync::Arc;
    let field = |f: &Field, nullable: bool| {
        Arc::new(
            f.clone()
                .with_data_type(nullable_map_values(f.data_type()))
                .with_nullable(nullable),
        )
    };
    match t {
        DataType::Struct(fields) => DataType::Struct(Fields::from(
            fields
                .iter()
                .map(|f| field(f, f.is_nullable()))
                .collect::<Vec<_>>(),
        )),
        DataType::List(f) => DataType::List(field(f, f.is_nullable())),
        DataType::Map(entries, sorted) => {
            let kv = match entries.data_type() {
                DataType::Struct(kv) if kv.len() == 2 => DataType::Struct(Fields::from(vec![
                    field(&kv[0], kv[0].is_nullable()),
                    field(&kv[1], true),
                ])),
                other => nullable_map_values(other),
            };
            DataType::Map(
                Arc::new(entries.as_ref().clone().with_data_type(kv)),
                *sorted,
            )
        }
        other => other.clone(),
    }
}

/// `t` (the exported struct of one batch) with every top-level field nullable.
fn nullable_columns(t: &DataType) -> DataType {
    match t {
        DataType::Struct(fields) => DataType::Struct(
            fields
                .iter()
                .map(|f| f.as_ref().clone().with_nullable(true))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `file:/a/b`, `file:///a/b` and `FILE:/a/b` become `/a/b` (the forms a local table's paths take in Java,
/// [`native_reader::split::local_path`]); anything else is returned unchanged.
fn strip_file_scheme(path: &str) -> String {
    let scheme = path
        .get(..5)
        .is_some_and(|p| p.eq_ignore_ascii_case("file:"));
    match native_reader::split::local_path(path) {
        Ok(local) if scheme => local.to_string_lossy().into_owned(),
        _ => path.to_owned(),
    }
}

/// The batches of one split, pulled from the Java reader one `nextBatch` JNI call per batch.
///
/// The Java reader is closed when the iterator is exhausted, after the first error, and on drop. Batches own
/// their memory until dropped (it stays allocated in the JVM until then, see
/// [`StockReader::allocated_bytes`]); they can be dropped on any thread.
#[derive(Debug)]
pub struct StockBatches {
    handle: i64,
    closed: bool,
    /// The split's files, for error messages (see [`reading`]).
    reading: String,
}

/// `reading <bucket path>: [data files]` plus the deletion files, if any: what a Java error during a split
/// read is about.
fn reading(split: &Split) -> String {
    let files: Vec<&str> = split
        .data_files
        .iter()
        .map(|f| f.file_name.as_str())
        .collect();
    let deletions: Vec<&str> = split
        .deletion_files
        .iter()
        .flatten()
        .map(|d| d.path.as_str())
        .collect();
    let mut out = format!("reading {}: [{}]", split.bucket_path, files.join(", "));
    if !deletions.is_empty() {
        out.push_str(&format!("; deletion files [{}]", deletions.join(", ")));
    }
    out
}

/// Appends `(reading ...)` to the message of a Java error.
fn in_split(e: Error, reading: &str) -> Error {
    match e {
        Error::Java {
            class,
            message,
            stack,
        } => Error::Java {
            class,
            message: format!("{message} ({reading})"),
            stack,
        },
        other => other,
    }
}

impl StockBatches {
    fn close(&mut self) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        self.closed = true;
        let handle = self.handle;
        with_env(|env| {
            env.call_static_method(CLASS, "closeRead", "(J)V", &[JValue::Long(handle)])?;
            Ok(())
        })
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        let mut array = FFI_ArrowArray::empty();
        let mut schema = FFI_ArrowSchema::empty();
        let handle = self.handle;
        let array_addr = std::ptr::addr_of_mut!(array) as i64;
        let schema_addr = std::ptr::addr_of_mut!(schema) as i64;
        let rows = with_env(|env| {
            Ok(env
                .call_static_method(
                    CLASS,
                    "nextBatch",
                    "(JJJ)I",
                    &[
                        JValue::Long(handle),
                        JValue::Long(array_addr),
                        JValue::Long(schema_addr),
                    ],
                )?
                .i()?)
        })?;
        if rows < 0 {
            return Ok(None);
        }
        // SAFETY: Java filled both structs through the C Data Interface (Data.exportVectorSchemaRoot); `array`
        // is moved into the ArrayData, which calls its release callback when the last buffer is dropped.
        // paimon-arrow declares map `value` fields NOT NULL yet writes NULL values into them (invalid Arrow);
        // import them as nullable (native_reader::types documents the same type).
        // The released reader also returns the NULLs an old file holds in a column a later schema declares
        // NOT NULL (`alter-column-null-to-not-null.disabled=false`), under the NOT NULL field: the top-level
        // columns are imported as nullable, and a column keeps its declared NOT NULL when it holds no NULL.
        let exported = DataType::try_from(&schema)?;
        drop(schema);
        let declared = match &exported {
            DataType::Struct(fields) => fields.clone(),
            _ => arrow_schema::Fields::empty(),
        };
        #[allow(unsafe_code)]
        let mut data = unsafe {
            from_ffi_and_data_type(array, nullable_columns(&nullable_map_values(&exported)))
        }?;
        data.align_buffers();
        data.validate_full()?;
        if !matches!(data.data_type(), DataType::Struct(_)) {
            return Err(Error::protocol(format!(
                "nextBatch exported {} instead of a struct",
                data.data_type()
            )));
        }
        let columns = StructArray::from(data);
        if columns.null_count() != 0 {
            return Err(Error::protocol(
                "nextBatch exported a struct with top-level nulls",
            ));
        }
        if columns.len() != rows as usize {
            return Err(Error::protocol(format!(
                "nextBatch reported {rows} rows but exported {}",
                columns.len()
            )));
        }
        let (imported, arrays, _) = columns.into_parts();
        let fields: Vec<arrow_schema::FieldRef> = imported
            .iter()
            .zip(declared.iter())
            .zip(&arrays)
            .map(|((f, d), a)| {
                let nullable = d.is_nullable() || a.null_count() > 0;
                std::sync::Arc::new(f.as_ref().clone().with_nullable(nullable))
            })
            .collect();
        let schema = std::sync::Arc::new(arrow_schema::Schema::new(fields));
        let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(rows as usize));
        Ok(Some(RecordBatch::try_new_with_options(
            schema, arrays, &options,
        )?))
    }
}

impl Iterator for StockBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.closed {
            return None;
        }
        match self.next_batch() {
            Ok(Some(batch)) => Some(Ok(batch)),
            Ok(None) => self.close().err().map(|e| Err(in_split(e, &self.reading))),
            Err(e) => {
                let _ = self.close();
                Some(Err(in_split(e, &self.reading)))
            }
        }
    }
}

impl Drop for StockBatches {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_read_errors_name_the_split_files() {
        let split: Split = serde_json::from_str(
            r#"{"snapshot_id":1,"partition":[],"bucket":0,"bucket_path":"/t/bucket-0",
            "data_files":[{"file_name":"a.parquet","level":0,"row_count":2,"file_size":10,
              "min_sequence_number":0,"max_sequence_number":1,"schema_id":0},
              {"file_name":"b.parquet","level":5,"row_count":2,"file_size":10,
              "min_sequence_number":0,"max_sequence_number":1,"schema_id":0}],
            "before_files":[],"deletion_files":[{"path":"/t/index/index-x-0","offset":1,"length":24,
              "cardinality":2},null],"is_streaming":false,"raw_convertible":false}"#,
        )
        .unwrap();
        let reading = reading(&split);
        assert_eq!(
            reading,
            "reading /t/bucket-0: [a.parquet, b.parquet]; deletion files [/t/index/index-x-0]"
        );
        let java = Error::Java {
            class: "java.io.EOFException".into(),
            message: "".into(),
            stack: "trace".into(),
        };
        match in_split(java, &reading) {
            Error::Java { message, stack, .. } => {
                assert_eq!(message, format!(" ({reading})"));
                assert_eq!(stack, "trace");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(
            in_split(Error::Jni("x".into()), &reading),
            Error::Jni(m) if m == "x"
        ));
    }

    #[test]
    fn file_scheme_is_stripped() {
        assert_eq!(strip_file_scheme("file:/tmp/t/bucket-0"), "/tmp/t/bucket-0");
        assert_eq!(
            strip_file_scheme("file:///tmp/t/bucket-0"),
            "/tmp/t/bucket-0"
        );
        assert_eq!(strip_file_scheme("FILE:/tmp/t/bucket-0"), "/tmp/t/bucket-0");
        assert_eq!(strip_file_scheme("/tmp/t/bucket-0"), "/tmp/t/bucket-0");
        assert_eq!(strip_file_scheme("s3://b/t/bucket-0"), "s3://b/t/bucket-0");
    }

    #[test]
    fn plan_json_is_parsed_and_bad_json_is_a_protocol_error() {
        let json = r#"[{"split":{"snapshot_id":1,"partition":["p1",null],"bucket":0,
            "bucket_path":"file:/t/p=p1/bucket-0",
            "data_files":[{"file_name":"f","level":0,"row_count":2,"file_size":10,
              "min_sequence_number":0,"max_sequence_number":1,"schema_id":0}],
            "before_files":[],"deletion_files":[],"is_streaming":true,"raw_convertible":false},
            "payload":"AAEC"}]"#;
        let splits = parse_plan(json).unwrap();
        assert_eq!(splits.len(), 1);
        assert_eq!(splits[0].payload, vec![0, 1, 2]);
        assert_eq!(splits[0].split.bucket_path, "/t/p=p1/bucket-0");
        assert_eq!(splits[0].split.partition, vec![Some("p1".to_owned()), None]);
        assert!(matches!(parse_plan("{"), Err(Error::Protocol(_))));
        let bad_payload = json.replace("AAEC", "!!");
        assert!(matches!(parse_plan(&bad_payload), Err(Error::Protocol(_))));
    }
}
