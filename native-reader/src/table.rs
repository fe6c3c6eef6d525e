//! A Paimon table directory: the entry point of the native reader (`org.apache.paimon.table.FileStoreTable`
//! seen from a reader). Its typed options are [`crate::options::CoreOptions`]; planning is
//! [`Table::scan`] and the `plan_*` methods of [`crate::scan`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::line::PaimonRelease;
use crate::partition::PartitionComputer;
use crate::schema::{TableSchema, TypeKind};
use crate::snapshot::{list_ids, Snapshot, SnapshotManager};

pub use crate::options::{ChangelogProducer, CoreOptions};

/// A Paimon table directory opened for reading (main branch).
///
/// Holds the latest schema and its options, read once at [`Table::open`]; snapshots are read afresh on every
/// call, so a long-lived `Table` sees new commits. `Table` is `Send + Sync`.
#[derive(Debug)]
pub struct Table {
    path: PathBuf,
    /// The branch read (`branch/branch-<name>/`), `None` for the main branch.
    branch: Option<String>,
    /// Where the branch's schemas and snapshots are: `path`, or `path/branch/branch-<name>`.
    meta: PathBuf,
    /// The fallback branch of a batch scan (`scan.fallback-branch`, `FallbackReadFileStoreTable`), opened
    /// when the option names an existing branch and the release reads it ([`crate::line::FallbackBranch`]).
    fallback: Option<Arc<Table>>,
    /// The primary branch of a batch scan (`scan.primary-branch`, `FallbackReadFileStoreTable` with the other
    /// table first), opened when the option names an existing branch, no fallback branch is named, and the
    /// release knows it ([`crate::line::FallbackBranch::primary_branch_known`]).
    primary: Option<Arc<Table>>,
    schema: Arc<TableSchema>,
    options: CoreOptions,
    schemas: Mutex<HashMap<i64, Arc<TableSchema>>>,
    snapshots: SnapshotManager,
    partitions: PartitionComputer,
    release: PaimonRelease,
    /// Reads add `$row_tracking`'s columns ([`Table::row_tracking_columns`]).
    row_tracking_columns: bool,
    /// Reads are `$audit_log`'s ([`Table::audit_log`]).
    audit_log: bool,
    /// Reads are `$binlog`'s ([`Table::binlog`]).
    binlog: bool,
    /// Scans are `$ro`'s ([`Table::read_optimized`]).
    read_optimized: bool,
    /// BLOB values read as descriptors whatever the options ([`Table::with_blob_as_descriptor`]).
    blob_as_descriptor: bool,
    /// Upstream BLOB values of this table's views ([`Table::blob_view_cache`]).
    blob_views: BlobViewCache,
}

/// What the view resolution keeps per open table, by upstream table identifier `db.t`: the upstream table
/// opened and planned ([`crate::merge`]'s `blob_view`; typed there, so that this module needs none of it).
pub(crate) type BlobViewCache = Mutex<HashMap<String, Arc<dyn std::any::Any + Send + Sync>>>;

/// The warehouse of the catalog the table at `path` belongs to: the directory above its `<db>.db`
/// directory, or its own parent when that is not a database directory (a filesystem catalog's layout,
/// `<warehouse>/<db>.db/<table>`). The upstream table `db.t` of a BLOB view is `<warehouse>/db.db/t`. The
/// bridge's `TableLocations.warehouse`.
pub fn warehouse_of(path: &Path) -> PathBuf {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let database = parent
        .file_name()
        .is_some_and(|n| n.to_string_lossy().ends_with(".db"));
    match parent.parent() {
        Some(warehouse) if database && !warehouse.as_os_str().is_empty() => warehouse.to_path_buf(),
        _ => parent.to_path_buf(),
    }
}

/// The postpone bucket (`BucketMode.POSTPONE_BUCKET`, since 1.1): the `bucket` option and the `_BUCKET` of
/// entries written before a job moves them into real buckets.
pub const POSTPONE_BUCKET: i32 = -2;

/// Option key of [`Table::index_file_in_data_file_dir`].
pub const INDEX_FILE_IN_DATA_FILE_DIR: &str = "index-file-in-data-file-dir";

pub use crate::read_options::{UnsupportedOption, UNSUPPORTED_READ_OPTIONS};

/// Why `file` of a manifest cannot be read by this reader as `release`, if it is a data-evolution file this
/// reader does not merge as that release: a vector-store file (`VectorType.isVectorStoreFile`, `.vector.` in
/// its name) as 1.3, which knows no such file (1.4 and 2.0 chain them,
/// [`crate::line::LineRules::field_bunches`]). The reason names the file and what it is. `None` for every
/// other file, and for releases before 1.3.0 ([`crate::line::LineRules::data_evolution`]), whose readers
/// know no row-id groups and read it as a plain one.
/// A file's `.row` sidecar (`data-evolution.row-sidecar.enabled`) is not read: the released reader reads it
/// only for a scan pushed down to a few row ids (`DataEvolutionSplitRead.readTarget`), which no scan here
/// is, and reads the data file itself otherwise.
pub fn unsupported_data_evolution_file(
    file: &crate::manifest::DataFileMeta,
    release: PaimonRelease,
) -> Option<String> {
    let rules = release.rules();
    if !rules.data_evolution.known() || rules.field_bunches != crate::line::FieldBunches::None {
        return None;
    }
    let name = &file.file_name;
    if name.contains(".vector.") {
        return Some(format!(
            "data file {name} is a vector-store file (data evolution), which this reader does not support"
        ));
    }
    None
}

/// `scan.fallback-branch` (`CoreOptions.SCAN_FALLBACK_BRANCH`): the branch a batch scan reads the partitions
/// the table lacks from.
pub const SCAN_FALLBACK_BRANCH: &str = "scan.fallback-branch";

/// `scan.primary-branch` (`CoreOptions.SCAN_PRIMARY_BRANCH`, 1.4 on): the branch a batch scan reads first,
/// the partitions it lacks then read from this branch.
pub const SCAN_PRIMARY_BRANCH: &str = "scan.primary-branch";

/// `BranchManager.branchPath`: `path/branch/branch-<name>` for a branch, `path` for the main branch (`None`).
pub fn branch_path(path: &Path, branch: Option<&str>) -> PathBuf {
    match branch {
        Some(name) => path.join("branch").join(format!("branch-{name}")),
        None => path.to_path_buf(),
    }
}

/// Whether branch `name` of the table at `path` has a `schema/` (on a store, through its FileIO).
fn branch_exists(path: &Path, name: &str) -> bool {
    let schema = branch_path(path, Some(name)).join("schema");
    crate::fileio::for_path(&schema).is_ok_and(|io| io.is_dir(&schema).unwrap_or(false))
}

/// File name prefix of schema files in `schema/`.
pub const SCHEMA_PREFIX: &str = "schema-";

/// `alter-column-null-to-not-null.disabled` (`CoreOptions.DISABLE_ALTER_COLUMN_NULL_TO_NOT_NULL`, default
/// true): when false, `SchemaManager` lets a nullable column become NOT NULL and leaves the NULLs in the files
/// written before.
const ALTER_NULL_TO_NOT_NULL_DISABLED: &str = "alter-column-null-to-not-null.disabled";

/// The released reader returns the NULLs old files hold in a column a later schema made NOT NULL (it reads
/// them under the new schema without a check). When the table allows that change, every top-level column
/// that is NOT NULL in `schema` but nullable in an earlier `schema-N` is read as nullable, so that such a
/// NULL is returned, not rejected.
///
/// Errors: [`Error::Io`]/[`Error::Json`] naming an earlier schema file that cannot be read.
fn relax_tightened_columns(schema: &mut TableSchema, dir: &Path, latest: i64) -> Result<()> {
    if schema.option(ALTER_NULL_TO_NOT_NULL_DISABLED) != Some("false") {
        return Ok(());
    }
    for id in list_ids(dir, SCHEMA_PREFIX)? {
        if id >= latest {
            continue;
        }
        let older = TableSchema::read(&dir.join(format!("{SCHEMA_PREFIX}{id}")))?;
        for field in schema.fields.iter_mut() {
            let was_nullable = older
                .fields
                .iter()
                .any(|f| f.id == field.id && f.data_type.nullable);
            if was_nullable && !field.data_type.nullable {
                field.data_type.nullable = true;
            }
        }
    }
    Ok(())
}

impl Table {
    /// Opens the table at `path` and reads its latest `schema/schema-N` (largest N).
    ///
    /// Errors: [`Error::NotATable`] naming the path when it is missing, not a directory, has no `schema/`
    /// directory or no `schema-N` file; [`Error::Io`]/[`Error::Json`] naming the schema file when it cannot
    /// be read or parsed; [`Error::InvalidOption`] naming it when an option value is invalid.
    pub fn open(path: &Path) -> Result<Table> {
        Table::open_as(path, PaimonRelease::default())
    }

    /// Opens the table at `path` to be read the way the reader of release `release` reads it: planning,
    /// merging and the decode hooks follow its [`crate::line::LineRules`]. [`Table::open`] is
    /// `open_as(path, PaimonRelease::V1_0_0)`.
    ///
    /// Errors: as [`Table::open`].
    pub fn open_as(path: &Path, release: PaimonRelease) -> Result<Table> {
        Table::open_branch(path, None, release)
    }

    /// [`Table::open_as`] of branch `branch` of the table at `path` (`None`: the main branch): its schemas
    /// and snapshots are under `path/branch/branch-<name>/` (`BranchManager.branchPath`), its manifests and
    /// data files under `path`, shared with every branch.
    ///
    /// Errors: as [`Table::open`]; [`Error::NotATable`] naming the branch directory when the branch has no
    /// schema.
    pub fn open_branch(path: &Path, branch: Option<&str>, release: PaimonRelease) -> Result<Table> {
        Table::open_at(path, branch, release, true)
    }

    fn open_at(
        path: &Path,
        branch: Option<&str>,
        release: PaimonRelease,
        with_fallback: bool,
    ) -> Result<Table> {
        let meta = branch_path(path, branch);
        let not_a_table = |reason: &str| Error::NotATable {
            path: meta.clone(),
            reason: reason.to_string(),
        };
        let schema_dir = meta.join("schema");
        if crate::fileio::is_store(path) {
            // A store has no directories apart from the keys under them: one LIST says whether the table
            // has schema files (below).
            if !crate::fileio::for_path(path)?
                .is_dir(path)
                .map_err(|e| Error::io(path, e))?
            {
                return Err(not_a_table("no object under this prefix"));
            }
        } else {
            if !path.exists() {
                return Err(not_a_table("the path does not exist"));
            }
            if !path.is_dir() {
                return Err(not_a_table("not a directory"));
            }
            if !schema_dir.is_dir() {
                return Err(not_a_table(match branch {
                    Some(_) => "no schema/ directory: the table has no such branch",
                    None => "no schema/ directory",
                }));
            }
        }
        let latest = list_ids(&schema_dir, SCHEMA_PREFIX)?
            .into_iter()
            .max()
            .ok_or_else(|| not_a_table("no schema-N file in schema/"))?;
        let schema_path = schema_dir.join(format!("{SCHEMA_PREFIX}{latest}"));
        let mut schema = TableSchema::read(&schema_path)?;
        relax_tightened_columns(&mut schema, &schema_dir, latest)?;
        let names = release.rules().type_names;
        if let Some((field, (name, first))) = schema
            .fields
            .iter()
            .find_map(|f| names.unknown_in(&f.data_type).map(|u| (f, u)))
        {
            return Err(Error::Unsupported {
                path: schema_path,
                reason: format!(
                    "column `{}` has type {name}, which Paimon {} does not know (its schema parser fails on \
                     it; {name} is from {first})",
                    field.name, release
                ),
            });
        }
        let schema = Arc::new(schema);
        let json_err = |reason: String| Error::Json {
            path: schema_path.clone(),
            reason,
        };
        let options = CoreOptions::from_map(&schema.options).map_err(|e| e.at(&schema_path))?;
        // Before 2.0.0 no `row` format factory exists, and the bundles carry no `lance` one (nor `csv` and
        // `json` before 1.3.0, `text` before 1.4.1): the release cannot create the table at all.
        if let Some((format, first)) = options
            .file_format
            .get()
            .ok()
            .and_then(|f| Some((f, f.factory_release()?)))
            .filter(|&(_, first)| release < first)
        {
            let name = crate::options::OptionName::as_str(&format);
            return Err(Error::Unsupported {
                path: schema_path,
                reason: format!(
                    "table option `file.format={name}`: the `{name}` file format is read as Paimon \
                     {first} and later, and Paimon {release} finds no factory for it"
                ),
            });
        }
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
        // `FileStoreTableFactory.create`: a fallback or primary branch that does not exist is logged and
        // ignored; a fallback branch named (even one that does not exist) leaves the primary branch unread.
        let rule = release.rules().fallback_branch;
        let other = |key: &str, known: bool| -> Result<Option<Arc<Table>>> {
            Ok(match schema.option(key).map(str::trim) {
                Some(name)
                    if with_fallback && known && !name.is_empty() && branch_exists(path, name) =>
                {
                    Some(Arc::new(Table::open_at(path, Some(name), release, false)?))
                }
                _ => None,
            })
        };
        let fallback = other(SCAN_FALLBACK_BRANCH, true)?;
        let fallback_named = schema
            .option(SCAN_FALLBACK_BRANCH)
            .is_some_and(|n| !n.trim().is_empty());
        let primary = if fallback_named {
            None
        } else {
            other(SCAN_PRIMARY_BRANCH, rule.primary_branch_known())?
        };
        let mut table = Table {
            path: path.to_path_buf(),
            branch: branch.map(str::to_owned),
            snapshots: SnapshotManager::new(&meta),
            meta,
            fallback,
            primary,
            schema,
            options,
            schemas: Mutex::new(schemas),
            partitions,
            release,
            row_tracking_columns: false,
            audit_log: false,
            binlog: false,
            read_optimized: false,
            blob_as_descriptor: false,
            blob_views: Mutex::default(),
        };
        // `scan.version`: the load's time travel puts the start option it names in its place.
        if let Some((key, value)) = crate::scan::resolved_scan_version(&table)? {
            let schema = Arc::make_mut(&mut table.schema);
            schema.options.remove(crate::scan::SCAN_VERSION);
            schema.options.insert(key.to_owned(), value);
        }
        Ok(table)
    }

    /// This table read with `_ROW_ID` and `_SEQUENCE_NUMBER` after its columns (the system table
    /// `$row_tracking`, opened by [`crate::system::open`], which checks that the table has row tracking).
    pub(crate) fn with_row_tracking_columns(mut self) -> Table {
        self.row_tracking_columns = true;
        self
    }

    /// Whether reads add `_ROW_ID` and `_SEQUENCE_NUMBER` after the table's columns (`$row_tracking`).
    pub fn row_tracking_columns(&self) -> bool {
        self.row_tracking_columns
    }

    /// `set` applied to this table and to its fallback or primary branch's (a system table's read applies to both:
    /// `FallbackReadFileStoreTable.Read.forceKeepDelete` forwards to both reads, its scans to both scans).
    /// `None` when that branch's table is shared (held elsewhere, so it cannot be changed here).
    fn with_fallback_too(mut self, set: fn(&mut Table)) -> Option<Table> {
        set(&mut self);
        for other in [&mut self.fallback, &mut self.primary] {
            if let Some(table) = other.take() {
                let mut table = Arc::try_unwrap(table).ok()?;
                set(&mut table);
                *other = Some(Arc::new(table));
            }
        }
        Some(self)
    }

    /// This table read as the system table `$audit_log` (opened by [`crate::system::open`]), its fallback
    /// branch too; `None` when that branch's table is shared.
    pub(crate) fn with_audit_log(self) -> Option<Table> {
        self.with_fallback_too(|t| t.audit_log = true)
    }

    /// This table scanned as the system table `$ro` (opened by [`crate::system::open`]), its fallback
    /// branch too; `None` when that branch's table is shared.
    pub(crate) fn with_read_optimized(self) -> Option<Table> {
        self.with_fallback_too(|t| t.read_optimized = true)
    }

    /// Whether scans are `$ro`'s (`ReadOptimizedTable`): a primary-key table's batch scan reads its top
    /// level only ([`crate::line::ReadOptimizedLevels`]), and it has no streaming scan; an append table's
    /// scans are its own.
    pub fn read_optimized(&self) -> bool {
        self.read_optimized
    }

    /// This table read as the system table `$binlog`: `$audit_log`'s read ([`Table::with_audit_log`]), its
    /// rows as arrays; its fallback branch too. `None` when that branch's table is shared.
    pub(crate) fn with_binlog(self) -> Option<Table> {
        self.with_fallback_too(|t| {
            t.audit_log = true;
            t.binlog = true;
        })
    }

    /// Whether BLOB values are returned as their serialized descriptors (`blob-as-descriptor`,
    /// `CoreOptions.blobAsDescriptor`, 1.4 on: the `.blob` file, offset and length of each value, as a reader
    /// asking for descriptors gets them) instead of their bytes.
    pub fn blob_as_descriptor(&self) -> bool {
        self.blob_as_descriptor
            || self.release >= PaimonRelease::V1_4_2
                && self
                    .schema
                    .option("blob-as-descriptor")
                    .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    }

    /// Whether reads are `$binlog`'s (`BinlogTable`, on top of [`Table::audit_log`]): every column an array,
    /// a streaming split's `-U` packed with the row after it ([`crate::system::binlog`]).
    pub fn binlog(&self) -> bool {
        self.binlog
    }

    /// Whether reads are `$audit_log`'s (`AuditLogTable`): the merge keeps `-U`/`-D` results
    /// (`InnerTableRead.forceKeepDelete`, so no split is read raw), and every row comes out as `+I` with its
    /// kind as the string column `rowkind` first ([`crate::system::audit_log_field`]).
    pub fn audit_log(&self) -> bool {
        self.audit_log
    }

    /// The release whose reader this table mimics (chosen at [`Table::open_as`]).
    pub fn release(&self) -> PaimonRelease {
        self.release
    }

    /// The table directory as given to [`Table::open`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The branch this table reads (`None`: the main branch).
    pub fn branch(&self) -> Option<&str> {
        self.branch.as_deref()
    }

    /// The directory of this branch's `schema/` and `snapshot/`: the table directory, or
    /// `branch/branch-<name>/` under it.
    pub fn meta_path(&self) -> &Path {
        &self.meta
    }

    /// The fallback branch of `scan.fallback-branch` opened whatever the release's rule for reading it
    /// ([`crate::line::FallbackBranch`]), for listings that every release makes the same way
    /// (`FallbackReadScan.listPartitionEntries`); `None` without the option or when the branch does not
    /// exist (`FileStoreTableFactory.create` ignores it).
    ///
    /// Errors: as [`Table::open_branch`] of the fallback branch.
    pub(crate) fn fallback_for_listing(&self) -> Result<Option<Arc<Table>>> {
        if let Some(fallback) = &self.fallback {
            return Ok(Some(fallback.clone()));
        }
        match self.schema.option(SCAN_FALLBACK_BRANCH).map(str::trim) {
            Some(name) if !name.is_empty() && branch_exists(&self.path, name) => Ok(Some(
                Arc::new(Table::open_at(&self.path, Some(name), self.release, false)?),
            )),
            _ => Ok(None),
        }
    }

    /// The fallback branch a batch scan reads the partitions this branch lacks from (`scan.fallback-branch`),
    /// when it exists and the release reads it.
    pub fn fallback(&self) -> Option<&Arc<Table>> {
        self.fallback.as_ref()
    }

    /// The primary branch a batch scan reads first, this branch then read for the partitions it lacks
    /// (`scan.primary-branch`), when it exists, no fallback branch is named, and the release knows it.
    pub fn primary(&self) -> Option<&Arc<Table>> {
        self.primary.as_ref()
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
            .meta
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

    /// Whether this table is planned and read by row-id range (`data-evolution.enabled` on an append table,
    /// read as a release that knows it: [`crate::line::LineRules::data_evolution`]); see
    /// [`crate::evolution`].
    pub fn data_evolution(&self) -> bool {
        self.options.data_evolution_enabled
            && self.schema.primary_keys.is_empty()
            && self.release.rules().data_evolution.known()
    }

    /// Whether the native reader returns the table's top-level string and binary columns as views
    /// (`Utf8View`, `BinaryView`): when its `file.format` is `parquet` (the default), whose decoder builds
    /// them from the pages' bytes without a copy (`crate::types`, "String views").
    pub fn string_views(&self) -> bool {
        matches!(
            self.options.file_format.get(),
            Ok(crate::decode::FileFormat::Parquet)
        )
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

    /// `<table>/index/<name>`: index files (deletion vectors, hash index) by default.
    pub fn index_path(&self, name: &str) -> PathBuf {
        self.path.join("index").join(name)
    }

    /// The option `index-file-in-data-file-dir` (`CoreOptions.INDEX_FILE_IN_DATA_FILE_DIR`, from 1.3.0,
    /// default false): index files are written into the bucket directory instead of `<table>/index/`.
    /// Always false when the table is read as a release before 1.3.0, which does not know the option.
    pub fn index_file_in_data_file_dir(&self) -> bool {
        self.release >= PaimonRelease::V1_3_1
            && self
                .schema
                .option(INDEX_FILE_IN_DATA_FILE_DIR)
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    }

    /// Where the index file `file_name` of (`partition`, `bucket`) is, as `FileStorePathFactory#indexFileFactory`
    /// resolves an `IndexFileMeta`: its `_EXTERNAL_PATH` when set (`external_path`, a `file:` URI or plain
    /// path; from 1.3.0, apache/paimon#6132: a release before it does not read the column), else the bucket
    /// directory when [`Table::index_file_in_data_file_dir`], else [`Table::index_path`]. `manifest` is the
    /// index manifest the entry came from (for errors).
    ///
    /// Errors: [`Error::Unsupported`] naming the index manifest for an external path on a non-local file
    /// system; [`Error::BinaryRow`]/[`Error::Unsupported`] naming it when the partition cannot be rendered
    /// into a bucket directory.
    pub fn index_file_path(
        &self,
        partition: &[u8],
        bucket: i32,
        file_name: &str,
        external_path: Option<&str>,
        manifest: &Path,
    ) -> Result<PathBuf> {
        if let Some(external) = external_path.filter(|_| self.release >= PaimonRelease::V1_3_1) {
            return crate::split::file_location(external).map_err(|reason| Error::Unsupported {
                path: manifest.to_path_buf(),
                reason: format!("index file {file_name}: {reason}"),
            });
        }
        if self.index_file_in_data_file_dir() {
            let rendered = self.partitions.render(partition, manifest)?;
            return Ok(PathBuf::from(self.bucket_path(&rendered.path, bucket)).join(file_name));
        }
        Ok(self.index_path(file_name))
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

    /// The names listed in `blob-view-field` (`CoreOptions.blobViewField`), whatever their types.
    fn view_names(&self) -> Vec<&str> {
        self.schema
            .option("blob-view-field")
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The top-level BLOB columns whose values are resolved from the upstream tables their views name
    /// (`DataEvolutionTableRead.blobViewFields`: 2.0.0 on, a data-evolution table, `blob-view-field`, and
    /// `blob-view.resolve.enabled`, true by default), by name; empty for any other table.
    pub fn blob_view_fields(&self) -> Vec<String> {
        let enabled = self
            .schema
            .option("blob-view.resolve.enabled")
            .is_none_or(|v| !v.trim().eq_ignore_ascii_case("false"));
        if self.release < PaimonRelease::V2_0_0 || !self.data_evolution() || !enabled {
            return Vec::new();
        }
        let names = self.view_names();
        self.schema
            .fields
            .iter()
            .filter(|f| f.data_type.kind == TypeKind::Blob && names.contains(&f.name.as_str()))
            .map(|f| f.name.clone())
            .collect()
    }

    /// The upstream tables that views of this table name, opened and planned once per open table
    /// ([`crate::merge`]'s view resolution fills it).
    pub(crate) fn blob_view_cache(&self) -> &BlobViewCache {
        &self.blob_views
    }

    /// This table read with every BLOB value as its serialized descriptor, whatever its
    /// `blob-as-descriptor` (`table.copy({"blob-as-descriptor": "true"})`, as `BlobViewLookup` reads an
    /// upstream table).
    pub(crate) fn with_blob_as_descriptor(mut self) -> Table {
        self.blob_as_descriptor = true;
        self
    }

    /// Refuses what this reader cannot read the way the table's release does, before any data file is
    /// decoded: a `blob-view-field` column, and before 2.0.0 a BLOB column this reader does not read as
    /// that release: one nested in another type, one outside a data-evolution table's `.blob` files, or one
    /// of a table with `blob-field`, `blob-descriptor-field` or `blob-view-field`.
    ///
    /// Errors: [`Error::Unsupported`] naming the latest schema file and the column.
    pub fn check_readable(&self) -> Result<()> {
        let schema_file = self
            .meta
            .join("schema")
            .join(format!("{SCHEMA_PREFIX}{}", self.schema.id));
        let refuse = |reason: String| {
            Err(Error::Unsupported {
                path: schema_file.clone(),
                reason,
            })
        };
        // `blob-view-field` columns hold references to rows of other tables (`BlobViewStruct`), which 2.0
        // resolves in a data-evolution read only (`DataEvolutionTableRead`); any other read of one fails
        // in the released reader ("BlobView is not resolved").
        let views = self.view_names();
        if let Some(column) = self
            .schema
            .fields
            .iter()
            .find(|f| views.contains(&f.name.as_str()))
        {
            // Empty before 2.0.0 too (`blob_view_fields`).
            if self.blob_view_fields().is_empty() {
                return refuse(format!(
                    "column `{}` is a `blob-view-field` (BLOB views of another table's rows), which \
                     Paimon {} resolves only in a data-evolution table with `blob-view.resolve.enabled` \
                     (the released reader fails on any other read of one: a view not resolved)",
                    column.name, self.release
                ));
            }
        }
        // 2.0 reads a BLOB wherever it is stored: `.blob` column files of a data-evolution table, or the
        // data file itself (`.managed.blob` descriptors of `blob-field`, `blob-descriptor-field`, inline
        // payloads), scalar or inside ARRAY and MAP. 1.4 is modelled only for a top-level column of a
        // data-evolution table in `.blob` files, without the 2.0 options.
        if self.release >= PaimonRelease::V2_0_0 {
            return Ok(());
        }
        let blob_files = self.data_evolution()
            && self.release >= PaimonRelease::V1_4_2
            && ["blob-descriptor-field", "blob-view-field", "blob-field"]
                .iter()
                .all(|k| {
                    self.schema.option(k).is_none_or(|v| {
                        v.trim().is_empty() || v.trim().eq_ignore_ascii_case("false")
                    })
                });
        if let Some(column) = self.schema.fields.iter().find(|f| {
            f.data_type.contains_blob() && !(blob_files && f.data_type.kind == TypeKind::Blob)
        }) {
            return refuse(format!(
                "column `{}` has type BLOB, which this reader reads as Paimon {} only as a top-level column of a data-evolution table in `.blob` files (without `blob-field`, `blob-descriptor-field`, `blob-view-field`)",
                column.name, self.release
            ));
        }
        Ok(())
    }

    /// Refuses a table whose options include one of [`UNSUPPORTED_READ_OPTIONS`] for this table's release:
    /// planning and reading it would differ from the release. Called by every planning entry point.
    ///
    /// Errors: [`Error::Unsupported`] naming the latest schema file, the option and its value, and what the
    /// release does with it.
    pub fn check_read_options(&self) -> Result<()> {
        for (key, value) in &self.schema.options {
            if let Some(o) = crate::read_options::refusal(self.release, key, value) {
                return Err(Error::Unsupported {
                    path: self
                        .meta
                        .join("schema")
                        .join(format!("{SCHEMA_PREFIX}{}", self.schema.id)),
                    reason: format!(
                        "table option `{key}={value}` is not implemented: {}",
                        o.release
                    ),
                });
            }
        }
        Ok(())
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
mod tests;
