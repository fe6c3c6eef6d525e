//! A Paimon table directory: the entry point of the native reader (`org.apache.paimon.table.FileStoreTable`
//! seen from a reader). Its typed options are [`crate::options::CoreOptions`]; planning is
//! [`Table::scan`] and the `plan_*` methods of [`crate::scan`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::line::PaimonLine;
use crate::partition::PartitionComputer;
use crate::schema::TableSchema;
use crate::snapshot::{list_ids, Snapshot, SnapshotManager};

pub use crate::options::{ChangelogProducer, CoreOptions};

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
    line: PaimonLine,
}

/// The postpone bucket (`BucketMode.POSTPONE_BUCKET`, since 1.1): the `bucket` option and the `_BUCKET` of
/// entries written before a job moves them into real buckets.
pub const POSTPONE_BUCKET: i32 = -2;

/// File name prefix of schema files in `schema/`.
pub const SCHEMA_PREFIX: &str = "schema-";

impl Table {
    /// Opens the table at `path` and reads its latest `schema/schema-N` (largest N).
    ///
    /// Errors: [`Error::NotATable`] naming the path when it is missing, not a directory, has no `schema/`
    /// directory or no `schema-N` file; [`Error::Io`]/[`Error::Json`] naming the schema file when it cannot
    /// be read or parsed; [`Error::InvalidOption`] naming it when an option value is invalid.
    pub fn open(path: &Path) -> Result<Table> {
        Table::open_as(path, PaimonLine::default())
    }

    /// Opens the table at `path` to be read the way the reader of release line `line` reads it: planning
    /// (and the decode hooks of [`crate::line::LineRules`]) follow `line`'s rules. [`Table::open`] is
    /// `open_as(path, PaimonLine::V1_0)`.
    ///
    /// Errors: as [`Table::open`].
    pub fn open_as(path: &Path, line: PaimonLine) -> Result<Table> {
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
        let options = CoreOptions::from_map(&schema.options).map_err(|e| e.at(&schema_path))?;
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
            line,
        })
    }

    /// The release line whose reader this table mimics (chosen at [`Table::open_as`]).
    pub fn line(&self) -> PaimonLine {
        self.line
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
    /// where `partition_path` is a relative directory with a trailing `/` (or empty); the postpone bucket
    /// (−2, since 1.1) is `bucket-postpone`.
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
        if bucket == POSTPONE_BUCKET {
            s.push_str("postpone");
        } else {
            s.push_str(&bucket.to_string());
        }
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

    #[test]
    fn table_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Table>();
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
        assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
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
