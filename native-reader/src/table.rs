//! A Paimon table directory: the entry point of the native reader (`org.apache.paimon.table.FileStoreTable`
//! seen from a reader) and its typed options (`org.apache.paimon.CoreOptions` with 1.0 defaults).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::partition::{PartitionComputer, DEFAULT_PARTITION_NAME};
use crate::schema::TableSchema;
use crate::snapshot::{list_ids, Snapshot, SnapshotManager};

/// `changelog-producer` (`CoreOptions.ChangelogProducer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChangelogProducer {
    /// `none` (default): streaming reads the delta of APPEND snapshots.
    None,
    /// `input`: writers double-write input records to changelog files.
    Input,
    /// `full-compaction`: changelog produced by full compactions.
    FullCompaction,
    /// `lookup`: changelog produced by lookup compaction before commit.
    Lookup,
}

impl ChangelogProducer {
    /// The option value, e.g. `full-compaction`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ChangelogProducer::None => "none",
            ChangelogProducer::Input => "input",
            ChangelogProducer::FullCompaction => "full-compaction",
            ChangelogProducer::Lookup => "lookup",
        }
    }
}

/// Typed table options with Paimon 1.0 defaults (`org.apache.paimon.CoreOptions`). Only the options this
/// reader needs are typed; every option as written stays in [`TableSchema::options`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreOptions {
    /// `bucket`, default −1 (dynamic bucket for PK tables, bucket-unaware for append tables).
    pub bucket: i32,
    /// `changelog-producer`, default `none`.
    pub changelog_producer: ChangelogProducer,
    /// `merge-engine` lower-cased, default `deduplicate` (`partial-update`, `aggregation`, `first-row`).
    pub merge_engine: String,
    /// `file.format`, default `parquet` (`orc` for schema files of version ≤ 2, applied by the schema reader).
    pub file_format: String,
    /// `manifest.format`, default `avro`.
    pub manifest_format: String,
    /// `partition.default-name`, default `__DEFAULT_PARTITION__`.
    pub partition_default_name: String,
    /// `partition.legacy-name`, default true.
    pub partition_legacy_name: bool,
    /// `deletion-vectors.enabled`, default false.
    pub deletion_vectors_enabled: bool,
    /// `source.split.target-size` in bytes, default 128 MiB.
    pub split_target_size: i64,
    /// `source.split.open-file-cost` in bytes, default 4 MiB.
    pub split_open_file_cost: i64,
    /// `data-file.path-directory`: data directories live under `<table>/<this>/` when set.
    pub data_file_path_directory: Option<String>,
    /// `streaming-read-overwrite`, default false.
    pub streaming_read_overwrite: bool,
    /// `scan.plan-sort-partition`, default false.
    pub scan_plan_sort_partition: bool,
    /// `ignore-delete` (fallback keys `first-row.`, `deduplicate.`, `partial-update.ignore-delete`), default false.
    pub ignore_delete: bool,
    /// `sequence.field`, unset by default.
    pub sequence_field: Option<String>,
    /// `stream-scan-mode` lower-cased, default `none` (internal: `compact-bucket-table`, `file-monitor`).
    pub stream_scan_mode: String,
    /// `CoreOptions.changelogLifecycleDecoupled()`: `changelog.num-retained.max` > `snapshot.num-retained.max`,
    /// or `changelog.time-retained` > `snapshot.time-retained`, or `changelog.num-retained.min` >
    /// `snapshot.num-retained.min` (changelog options default to the snapshot ones).
    pub changelog_lifecycle_decoupled: bool,
}

impl Default for CoreOptions {
    fn default() -> Self {
        CoreOptions {
            bucket: -1,
            changelog_producer: ChangelogProducer::None,
            merge_engine: "deduplicate".into(),
            file_format: "parquet".into(),
            manifest_format: "avro".into(),
            partition_default_name: DEFAULT_PARTITION_NAME.into(),
            partition_legacy_name: true,
            deletion_vectors_enabled: false,
            split_target_size: 128 << 20,
            split_open_file_cost: 4 << 20,
            data_file_path_directory: None,
            streaming_read_overwrite: false,
            scan_plan_sort_partition: false,
            ignore_delete: false,
            sequence_field: None,
            stream_scan_mode: "none".into(),
            changelog_lifecycle_decoupled: false,
        }
    }
}

impl CoreOptions {
    /// Types the options of a schema file, applying defaults for absent keys.
    ///
    /// Errors (a reason naming the option) when a value cannot be parsed the way Java parses it: integers,
    /// booleans (`true`/`false`, any case), memory sizes (`128 mb`, `4mb`, bytes without unit), durations
    /// (`1 h`, `30 min`, milliseconds without unit) and enum values (any case).
    pub fn from_map(
        options: &BTreeMap<String, String>,
    ) -> std::result::Result<CoreOptions, String> {
        let d = CoreOptions::default();
        let get = |k: &str| options.get(k).map(String::as_str);
        let bool_opt = |k: &str, default: bool| -> std::result::Result<bool, String> {
            get(k).map_or(Ok(default), |v| {
                parse_bool(v).map_err(|e| format!("option `{k}`: {e}"))
            })
        };
        let int_opt = |k: &str, default: i32| -> std::result::Result<i32, String> {
            get(k).map_or(Ok(default), |v| {
                v.trim()
                    .parse::<i32>()
                    .map_err(|_| format!("option `{k}`: `{v}` is not an int"))
            })
        };
        let size_opt = |k: &str, default: i64| -> std::result::Result<i64, String> {
            get(k).map_or(Ok(default), |v| {
                parse_memory_size(v).map_err(|e| format!("option `{k}`: {e}"))
            })
        };
        let duration_opt = |k: &str| -> std::result::Result<Option<Duration>, String> {
            get(k)
                .map(|v| parse_duration(v).map_err(|e| format!("option `{k}`: {e}")))
                .transpose()
        };
        let changelog_producer = match get("changelog-producer") {
            None => d.changelog_producer,
            Some(v) => match v.to_ascii_lowercase().as_str() {
                "none" => ChangelogProducer::None,
                "input" => ChangelogProducer::Input,
                "full-compaction" => ChangelogProducer::FullCompaction,
                "lookup" => ChangelogProducer::Lookup,
                _ => return Err(format!("option `changelog-producer`: unknown value `{v}`")),
            },
        };
        let ignore_delete = [
            "ignore-delete",
            "first-row.ignore-delete",
            "deduplicate.ignore-delete",
            "partial-update.ignore-delete",
        ]
        .iter()
        .find(|k| options.contains_key(**k))
        .map_or(Ok(false), |k| bool_opt(k, false))?;

        let snap_min = int_opt("snapshot.num-retained.min", 10)?;
        let snap_max = int_opt("snapshot.num-retained.max", i32::MAX)?;
        let snap_time =
            duration_opt("snapshot.time-retained")?.unwrap_or(Duration::from_secs(3600));
        let cl_min = int_opt("changelog.num-retained.min", snap_min)?;
        let cl_max = int_opt("changelog.num-retained.max", snap_max)?;
        let cl_time = duration_opt("changelog.time-retained")?.unwrap_or(snap_time);

        Ok(CoreOptions {
            bucket: int_opt("bucket", d.bucket)?,
            changelog_producer,
            merge_engine: get("merge-engine").map_or(d.merge_engine, str::to_ascii_lowercase),
            file_format: get("file.format").map_or(d.file_format, str::to_string),
            manifest_format: get("manifest.format").map_or(d.manifest_format, str::to_string),
            partition_default_name: get("partition.default-name")
                .map_or(d.partition_default_name, str::to_string),
            partition_legacy_name: bool_opt("partition.legacy-name", true)?,
            deletion_vectors_enabled: bool_opt("deletion-vectors.enabled", false)?,
            split_target_size: size_opt("source.split.target-size", d.split_target_size)?,
            split_open_file_cost: size_opt("source.split.open-file-cost", d.split_open_file_cost)?,
            data_file_path_directory: get("data-file.path-directory").map(str::to_string),
            streaming_read_overwrite: bool_opt("streaming-read-overwrite", false)?,
            scan_plan_sort_partition: bool_opt("scan.plan-sort-partition", false)?,
            ignore_delete,
            sequence_field: get("sequence.field").map(str::to_string),
            stream_scan_mode: get("stream-scan-mode")
                .map_or(d.stream_scan_mode, str::to_ascii_lowercase),
            changelog_lifecycle_decoupled: cl_max > snap_max
                || cl_time > snap_time
                || cl_min > snap_min,
        })
    }
}

fn parse_bool(v: &str) -> std::result::Result<bool, String> {
    match v.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("`{v}` is not a boolean")),
    }
}

/// Splits `<digits><blanks><unit>` the way `MemorySize.parseBytes`/`TimeUtils.parseDuration` do.
fn number_and_unit(text: &str) -> std::result::Result<(i64, String), String> {
    let t = text.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Err(format!("`{text}` does not start with a number"));
    }
    let n = t[..digits]
        .parse::<i64>()
        .map_err(|_| format!("`{text}` overflows a 64-bit number"))?;
    Ok((n, t[digits..].trim().to_lowercase()))
}

/// `MemorySize.parseBytes`: a number and an optional unit (`b`, `k`/`kb`, `m`/`mb`, `g`/`gb`, `t`/`tb`,
/// powers of 1024, and their long names); bytes without unit.
pub fn parse_memory_size(text: &str) -> std::result::Result<i64, String> {
    let (n, unit) = number_and_unit(text)?;
    let mult: i64 = match unit.as_str() {
        "" | "b" | "bytes" => 1,
        "k" | "kb" | "kibibytes" => 1 << 10,
        "m" | "mb" | "mebibytes" => 1 << 20,
        "g" | "gb" | "gibibytes" => 1 << 30,
        "t" | "tb" | "tebibytes" => 1 << 40,
        other => return Err(format!("unknown memory unit `{other}` in `{text}`")),
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("`{text}` overflows 64 bits"))
}

/// `TimeUtils.parseDuration`: a number and an optional unit (`d`/`day(s)`, `h`/`hour(s)`,
/// `min`/`m`/`minute(s)`, `s`/`sec(s)`/`second(s)`, `ms`/`milli(s)`/`millisecond(s)`,
/// `µs`/`micro(s)`/`microsecond(s)`, `ns`/`nano(s)`/`nanosecond(s)`); milliseconds without unit.
pub fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let (n, unit) = number_and_unit(text)?;
    let n = n as u64;
    let d = match unit.as_str() {
        "" | "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => Duration::from_millis(n),
        "d" | "day" | "days" => Duration::from_secs(n.saturating_mul(86_400)),
        "h" | "hour" | "hours" => Duration::from_secs(n.saturating_mul(3600)),
        "min" | "m" | "minute" | "minutes" => Duration::from_secs(n.saturating_mul(60)),
        "s" | "sec" | "secs" | "second" | "seconds" => Duration::from_secs(n),
        "µs" | "micro" | "micros" | "microsecond" | "microseconds" => Duration::from_micros(n),
        "ns" | "nano" | "nanos" | "nanosecond" | "nanoseconds" => Duration::from_nanos(n),
        other => return Err(format!("unknown time unit `{other}` in `{text}`")),
    };
    Ok(d)
}

/// A Paimon table directory opened for reading (main branch).
///
/// Holds the latest schema and its options, read once at [`Table::open`]; snapshots are read afresh on every
/// call, so a long-lived `Table` sees new commits. `Table` is `Send + Sync`.
#[derive(Debug)]
pub struct Table {
    path: PathBuf,
    schema: Arc<TableSchema>,
    options: CoreOptions,
    schemas: Mutex<HashMap<i64, Arc<TableSchema>>>,
    snapshots: SnapshotManager,
    partitions: PartitionComputer,
}

/// File name prefix of schema files in `schema/`.
pub const SCHEMA_PREFIX: &str = "schema-";

impl Table {
    /// Opens the table at `path` and reads its latest `schema/schema-N` (largest N).
    ///
    /// Errors: [`Error::NotATable`] naming the path when it is missing, not a directory, has no `schema/`
    /// directory or no `schema-N` file; [`Error::Io`]/[`Error::Json`] naming the schema file when it cannot
    /// be read or parsed, or an option value is invalid.
    pub fn open(path: &Path) -> Result<Table> {
        let not_a_table = |reason: &str| Error::NotATable {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        };
        if !path.exists() {
            return Err(not_a_table("the path does not exist"));
        }
        if !path.is_dir() {
            return Err(not_a_table("not a directory"));
        }
        let schema_dir = path.join("schema");
        if !schema_dir.is_dir() {
            return Err(not_a_table("no schema/ directory"));
        }
        let latest = list_ids(&schema_dir, SCHEMA_PREFIX)?
            .into_iter()
            .max()
            .ok_or_else(|| not_a_table("no schema-N file in schema/"))?;
        let schema_path = schema_dir.join(format!("{SCHEMA_PREFIX}{latest}"));
        let schema = Arc::new(TableSchema::read(&schema_path)?);
        let json_err = |reason: String| Error::Json {
            path: schema_path.clone(),
            reason,
        };
        let options = CoreOptions::from_map(&schema.options).map_err(json_err)?;
        let fields = schema.partition_fields();
        if fields.len() != schema.partition_keys.len() {
            return Err(json_err(format!(
                "partition keys {:?} are not all columns",
                schema.partition_keys
            )));
        }
        let partitions = PartitionComputer::new(
            fields.into_iter().cloned().collect(),
            &options.partition_default_name,
            options.partition_legacy_name,
        );
        let mut schemas = HashMap::new();
        schemas.insert(schema.id, schema.clone());
        Ok(Table {
            path: path.to_path_buf(),
            schema,
            options,
            schemas: Mutex::new(schemas),
            snapshots: SnapshotManager::new(path),
            partitions,
        })
    }

    /// The table directory as given to [`Table::open`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The latest schema (as of [`Table::open`]).
    pub fn schema(&self) -> &TableSchema {
        &self.schema
    }

    /// Schema `id` (`schema/schema-<id>`), read once and cached.
    ///
    /// Errors: [`Error::Io`] naming the file when missing or unreadable, [`Error::Json`] when malformed.
    pub fn schema_by_id(&self, id: i64) -> Result<Arc<TableSchema>> {
        if let Some(s) = self
            .schemas
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&id)
        {
            return Ok(s.clone());
        }
        let path = self
            .path
            .join("schema")
            .join(format!("{SCHEMA_PREFIX}{id}"));
        let schema = Arc::new(TableSchema::read(&path)?);
        if schema.id != id {
            return Err(Error::Json {
                path,
                reason: format!("file holds schema id {}, expected {id}", schema.id),
            });
        }
        self.schemas
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, schema.clone());
        Ok(schema)
    }

    /// Typed options of the latest schema.
    pub fn options(&self) -> &CoreOptions {
        &self.options
    }

    /// True when the table has a primary key.
    pub fn is_primary_key_table(&self) -> bool {
        !self.schema.primary_keys.is_empty()
    }

    /// The snapshot directory rules of this table.
    pub fn snapshot_manager(&self) -> &SnapshotManager {
        &self.snapshots
    }

    /// Renders partition rows of this table (values and directories).
    pub fn partition_computer(&self) -> &PartitionComputer {
        &self.partitions
    }

    /// `<table>/manifest/<name>`: manifest lists, manifests and index manifests.
    pub fn manifest_path(&self, name: &str) -> PathBuf {
        self.path.join("manifest").join(name)
    }

    /// `<table>/index/<name>`: index files (deletion vectors, hash index).
    pub fn index_path(&self, name: &str) -> PathBuf {
        self.path.join("index").join(name)
    }

    /// The table path as a string without a trailing `/`, the root of bucket paths.
    pub fn root_string(&self) -> String {
        let s = self.path.to_string_lossy();
        let trimmed = s.trim_end_matches('/');
        if trimmed.is_empty() {
            s.into_owned()
        } else {
            trimmed.to_string()
        }
    }

    /// `FileStorePathFactory.bucketPath`: `<table>/[<data-file.path-directory>/]<partition path>bucket-<B>`,
    /// where `partition_path` is a relative directory with a trailing `/` (or empty).
    pub fn bucket_path(&self, partition_path: &str, bucket: i32) -> String {
        let mut s = self.root_string();
        s.push('/');
        if let Some(dir) = &self.options.data_file_path_directory {
            let dir = dir.trim_matches('/');
            if !dir.is_empty() {
                s.push_str(dir);
                s.push('/');
            }
        }
        s.push_str(partition_path);
        s.push_str("bucket-");
        s.push_str(&bucket.to_string());
        s
    }

    /// Latest snapshot id following the `LATEST` hint rules ([`SnapshotManager::latest_snapshot_id`]);
    /// `None` when the table has no snapshot.
    pub fn latest_snapshot_id(&self) -> Result<Option<i64>> {
        self.snapshots.latest_snapshot_id()
    }

    /// Earliest snapshot id following the `EARLIEST` hint rules ([`SnapshotManager::earliest_snapshot_id`]);
    /// `None` when the table has no snapshot.
    pub fn earliest_snapshot_id(&self) -> Result<Option<i64>> {
        self.snapshots.earliest_snapshot_id()
    }

    /// Reads `snapshot/snapshot-<id>`.
    ///
    /// Errors: [`Error::Snapshot`] naming the file when it does not exist, [`Error::Io`]/[`Error::Json`].
    pub fn snapshot(&self, id: i64) -> Result<Snapshot> {
        self.snapshots.snapshot(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pairs: &[(&str, &str)]) -> std::result::Result<CoreOptions, String> {
        CoreOptions::from_map(
            &pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn table_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Table>();
    }

    #[test]
    fn defaults() {
        let o = opts(&[]).unwrap();
        assert_eq!(o, CoreOptions::default());
        assert_eq!(o.bucket, -1);
        assert_eq!(o.split_target_size, 134_217_728);
        assert_eq!(o.split_open_file_cost, 4_194_304);
        assert!(!o.changelog_lifecycle_decoupled);
    }

    #[test]
    fn parses_values() {
        let o = opts(&[
            ("bucket", "4"),
            ("changelog-producer", "FULL-COMPACTION"),
            ("merge-engine", "partial-update"),
            ("deletion-vectors.enabled", "TRUE"),
            ("source.split.target-size", "64 mb"),
            ("source.split.open-file-cost", "1kb"),
            ("partition.default-name", "null_part"),
            ("partition-update.ignore-delete", "true"),
            ("partial-update.ignore-delete", "true"),
        ])
        .unwrap();
        assert_eq!(o.bucket, 4);
        assert_eq!(o.changelog_producer, ChangelogProducer::FullCompaction);
        assert_eq!(o.merge_engine, "partial-update");
        assert!(o.deletion_vectors_enabled);
        assert_eq!(o.split_target_size, 64 << 20);
        assert_eq!(o.split_open_file_cost, 1024);
        assert_eq!(o.partition_default_name, "null_part");
        assert!(o.ignore_delete);
        assert!(opts(&[("bucket", "x")]).is_err());
        assert!(opts(&[("changelog-producer", "sometimes")]).is_err());
        assert!(opts(&[("deletion-vectors.enabled", "yes")]).is_err());
        assert!(opts(&[("source.split.target-size", "12 parsecs")]).is_err());
    }

    #[test]
    fn changelog_decoupling() {
        // snapshot.num-retained.max defaults to Integer.MAX_VALUE: a changelog max alone never exceeds it
        assert!(
            !opts(&[("changelog.num-retained.max", "100")])
                .unwrap()
                .changelog_lifecycle_decoupled
        );
        assert!(
            opts(&[
                ("snapshot.num-retained.max", "50"),
                ("changelog.num-retained.max", "100")
            ])
            .unwrap()
            .changelog_lifecycle_decoupled
        );
        assert!(
            opts(&[("changelog.time-retained", "2 h")])
                .unwrap()
                .changelog_lifecycle_decoupled
        );
        assert!(
            !opts(&[("changelog.time-retained", "60 min")])
                .unwrap()
                .changelog_lifecycle_decoupled
        );
        assert!(
            opts(&[("changelog.num-retained.min", "11")])
                .unwrap()
                .changelog_lifecycle_decoupled
        );
        assert!(
            !opts(&[
                ("snapshot.num-retained.min", "20"),
                ("changelog.num-retained.min", "20")
            ])
            .unwrap()
            .changelog_lifecycle_decoupled
        );
    }

    #[test]
    fn durations_and_sizes() {
        assert_eq!(parse_duration("1 h").unwrap(), Duration::from_secs(3600));
        assert_eq!(parse_duration("500").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2d").unwrap(), Duration::from_secs(172_800));
        assert_eq!(parse_duration("3 MIN").unwrap(), Duration::from_secs(180));
        assert!(parse_duration("h").is_err());
        assert_eq!(parse_memory_size("128 mb").unwrap(), 128 << 20);
        assert_eq!(parse_memory_size("10").unwrap(), 10);
        assert_eq!(parse_memory_size(" 2 GB ").unwrap(), 2 << 30);
        assert!(parse_memory_size("99999999999 tb").is_err());
    }

    fn write_schema(dir: &Path, id: i64, options: &str) {
        std::fs::create_dir_all(dir.join("schema")).unwrap();
        std::fs::write(
            dir.join("schema").join(format!("schema-{id}")),
            format!(
                r#"{{"version":3,"id":{id},"fields":[{{"id":0,"name":"p","type":"STRING"}},{{"id":1,"name":"v","type":"INT"}}],
                "highestFieldId":1,"partitionKeys":["p"],"primaryKeys":[],"options":{{{options}}}}}"#
            ),
        )
        .unwrap();
    }

    #[test]
    fn open_errors_name_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        let err = Table::open(&missing).unwrap_err();
        assert!(matches!(err, Error::NotATable { .. }), "{err}");
        assert!(err.to_string().contains("nope"));
        let err = Table::open(dir.path()).unwrap_err();
        assert!(matches!(err, Error::NotATable { .. }), "{err}");
        std::fs::create_dir(dir.path().join("schema")).unwrap();
        std::fs::write(dir.path().join("schema").join("schema-x"), "{}").unwrap();
        let err = Table::open(dir.path()).unwrap_err();
        assert!(matches!(err, Error::NotATable { .. }), "{err}");
        write_schema(dir.path(), 0, r#""bucket":"oops""#);
        let err = Table::open(dir.path()).unwrap_err();
        assert!(matches!(err, Error::Json { .. }), "{err}");
        assert!(err.to_string().contains("schema-0"));
    }

    #[test]
    fn open_reads_latest_schema_and_caches_others() {
        let dir = tempfile::tempdir().unwrap();
        write_schema(dir.path(), 0, r#""bucket":"2""#);
        write_schema(
            dir.path(),
            1,
            r#""bucket":"3","data-file.path-directory":"data/""#,
        );
        let t = Table::open(dir.path()).unwrap();
        assert_eq!(t.schema().id, 1);
        assert_eq!(t.options().bucket, 3);
        assert_eq!(t.schema_by_id(0).unwrap().id, 0);
        assert_eq!(t.schema_by_id(0).unwrap().option("bucket"), Some("2"));
        assert!(matches!(t.schema_by_id(7).unwrap_err(), Error::Io { .. }));
        assert_eq!(t.latest_snapshot_id().unwrap(), None);
        assert_eq!(t.earliest_snapshot_id().unwrap(), None);
        let root = t.root_string();
        assert_eq!(
            t.bucket_path("p=a/", 0),
            format!("{root}/data/p=a/bucket-0")
        );
        assert_eq!(t.bucket_path("", 2), format!("{root}/data/bucket-2"));
        assert!(t.plan_stream(1, 0).unwrap().is_empty());
    }
}
