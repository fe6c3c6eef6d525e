//! Paimon's system tables (`SystemTableLoader`): tables named `<table>$<name>` that a catalog derives from a
//! data table. The ones read here are listed by [`SystemTable`]; every other name is refused by name.
//!
//! `$row_tracking` (`RowTrackingTable`, 1.3.0 on) is the data table read with two more columns,
//! [`ROW_ID`] and [`SEQUENCE_NUMBER`] (`SpecialFields.rowTypeWithRowTracking`): its scans are the data
//! table's, its read asks for the two columns (`newRead().withReadType(rowType())`).
//!
//! `$audit_log` (`AuditLogTable`) is the data table's scans read with `forceKeepDelete` (the merge keeps
//! `-U`/`-D` results, no split is read raw), every row `+I` with its kind as the string column `rowkind`
//! first ([`to_audit_log`]).
//!
//! `$ro` (`ReadOptimizedTable`) is a primary-key table's batch scan of its top level
//! ([`crate::line::ReadOptimizedLevels`]), without a streaming scan; an append table's `$ro` is the table.
//!
//! `$snapshots`, `$schemas`, `$options` and `$tags` are made of the table's metadata files ([`metadata`]): one batch,
//! read whole ([`metadata::read`]). So are `$partitions` and `$buckets`, made of the latest snapshot's
//! manifest entries ([`files_tables`]), and `$files`, the latest snapshot's batch scan file by file
//! ([`files`]).

pub mod binlog;
mod files;
mod files_stats;
pub use files_stats::BINARY_IDENTITY;
pub mod files_tables;
mod manifests;
pub mod metadata;

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int8Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};

use crate::error::{Error, Result};
use crate::line::PaimonRelease;
use crate::row_kind::RowKind;
use crate::table::Table;

/// `SpecialFields.ROW_ID`: the row's id, `BIGINT NOT NULL`, field id `Integer.MAX_VALUE - 5`.
pub const ROW_ID: (&str, i32) = ("_ROW_ID", i32::MAX - 5);

/// `SpecialFields.SEQUENCE_NUMBER`: the sequence number of the file that last wrote the row,
/// `BIGINT NOT NULL`, field id `Integer.MAX_VALUE - 1`.
pub const SEQUENCE_NUMBER: (&str, i32) = ("_SEQUENCE_NUMBER", i32::MAX - 1);

/// `SpecialFields.ROW_KIND`: `$audit_log`'s first column, `STRING` (nullable, never NULL), field id
/// `Integer.MAX_VALUE - 4`.
pub const ROW_KIND: (&str, i32) = ("rowkind", i32::MAX - 4);

/// A system table this reader reads (`SystemTableLoader.SYSTEM_TABLE_LOADERS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SystemTable {
    /// `audit_log` (`AuditLogTable`): every row with its RowKind as a column, deletes included.
    AuditLog,
    /// `binlog` (`BinlogTable`): `audit_log` with every column an array, updates packed in streaming
    /// splits ([`binlog`]).
    Binlog,
    /// `ro` (`ReadOptimizedTable`): a primary-key table's batch scan of its top level only, no streaming
    /// scan; an append table as it is.
    ReadOptimized,
    /// `row_tracking` (`RowTrackingTable`): the rows with `_ROW_ID` and `_SEQUENCE_NUMBER`. A table without
    /// `row-tracking.enabled` has none (`IllegalArgumentException` in its constructor).
    RowTracking,
    /// `snapshots` (`SnapshotsTable`): one row per snapshot file.
    Snapshots,
    /// `schemas` (`SchemasTable`): one row per schema file.
    Schemas,
    /// `options` (`OptionsTable`): the latest schema's options.
    Options,
    /// `tags` (`TagsTable`): one row per tag.
    Tags,
    /// `manifests` (`ManifestsTable`): one row per manifest file of the latest snapshot.
    Manifests,
    /// `partitions` (`PartitionsTable`): one row per partition of the latest snapshot, with its record,
    /// byte and file counts ([`files_tables`]).
    Partitions,
    /// `buckets` (`BucketsTable`): one row per (partition, bucket) of the latest snapshot
    /// ([`files_tables`]).
    Buckets,
    /// `files` (`FilesTable`): one row per data file of the latest snapshot's batch scan, with its
    /// stats ([`files`]).
    Files,
}

/// Names of Paimon's other system tables (2.0.0 `SystemTableLoader`), refused as not read here yet rather
/// than unknown.
const NOT_READ_YET: &[&str] = &["branches", "consumers", "statistics", "table_indexes"];

impl SystemTable {
    /// The system table called `name` (case-insensitive, as `SystemTableLoader.load` looks it up), as
    /// `release` knows it.
    ///
    /// Errors: [`SystemTableError::Unknown`] for a name `release`'s loader does not know (`row_tracking`
    /// before 1.3.0, a misspelt name); [`SystemTableError::NotRead`] for a system table of Paimon this
    /// reader does not read yet (`statistics`, `branches`, …).
    pub fn parse(
        name: &str,
        release: PaimonRelease,
    ) -> std::result::Result<SystemTable, SystemTableError> {
        let lower = name.to_ascii_lowercase();
        match lower.as_str() {
            "row_tracking" if release < PaimonRelease::V1_3_1 => {
                Err(SystemTableError::Unknown(format!(
                    "Paimon {release} has no system table `{name}` (`$row_tracking` is from 1.3.0)"
                )))
            }
            "row_tracking" => Ok(SystemTable::RowTracking),
            "audit_log" => Ok(SystemTable::AuditLog),
            "binlog" => Ok(SystemTable::Binlog),
            "ro" => Ok(SystemTable::ReadOptimized),
            "snapshots" => Ok(SystemTable::Snapshots),
            "schemas" => Ok(SystemTable::Schemas),
            "options" => Ok(SystemTable::Options),
            "tags" => Ok(SystemTable::Tags),
            "manifests" => Ok(SystemTable::Manifests),
            "partitions" => Ok(SystemTable::Partitions),
            "buckets" => Ok(SystemTable::Buckets),
            "files" => Ok(SystemTable::Files),
            _ if NOT_READ_YET.contains(&lower.as_str()) => Err(SystemTableError::NotRead(format!(
                "system table `{name}` is not supported (this reader reads `$audit_log`, `$binlog`, `$ro`, \
                 `$row_tracking`, `$snapshots`, `$schemas`, `$options`, `$tags`, `$manifests`, \
                 `$partitions`, `$buckets` and `$files`)"
            ))),
            _ => Err(SystemTableError::Unknown(format!(
                "Paimon has no system table `{name}`"
            ))),
        }
    }

    /// The name after `$`.
    pub fn name(self) -> &'static str {
        match self {
            SystemTable::RowTracking => "row_tracking",
            SystemTable::AuditLog => "audit_log",
            SystemTable::Binlog => "binlog",
            SystemTable::ReadOptimized => "ro",
            SystemTable::Snapshots => "snapshots",
            SystemTable::Schemas => "schemas",
            SystemTable::Options => "options",
            SystemTable::Tags => "tags",
            SystemTable::Manifests => "manifests",
            SystemTable::Partitions => "partitions",
            SystemTable::Buckets => "buckets",
            SystemTable::Files => "files",
        }
    }

    /// Whether the table is made of metadata files (manifests included), read whole by [`metadata::read`]
    /// (not by splits).
    pub fn is_metadata(self) -> bool {
        !matches!(
            self,
            SystemTable::RowTracking
                | SystemTable::AuditLog
                | SystemTable::Binlog
                | SystemTable::ReadOptimized
        )
    }
}

/// Why a system table name is not read ([`SystemTable::parse`]), in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SystemTableError {
    /// The release has no such system table.
    Unknown(String),
    /// Paimon has it; this reader does not read it yet.
    NotRead(String),
}

/// `table` as its system table `name` (`<table>$<name>`, `SystemTableLoader.load`), and which one it is:
/// `$row_tracking` reads add `_ROW_ID` and `_SEQUENCE_NUMBER` after the table's columns
/// ([`Table::row_tracking_columns`]); the metadata tables are read by [`metadata::read`].
///
/// Errors: [`Error::InvalidOption`] when the table's own start options fail the release's validation, as
/// its load does ([`crate::scan::validate_own_options`]); [`Error::NotATable`] naming the table when the
/// release has no such system table, or when the table has no row tracking (`row-tracking.enabled` unset, as `RowTrackingTable` refuses);
/// [`Error::Unsupported`] naming it for a system table Paimon has that this reader does not read yet, and
/// for `$row_tracking` of a table with `scan.fallback-branch` or `scan.primary-branch`.
pub fn open(table: Table, name: &str) -> Result<(Table, SystemTable)> {
    crate::scan::validate_own_options(&table)?;
    let path = table.meta_path().to_path_buf();
    let system = match SystemTable::parse(name, table.release()) {
        Ok(s) => s,
        Err(SystemTableError::Unknown(reason)) => return Err(Error::NotATable { path, reason }),
        Err(SystemTableError::NotRead(reason)) => return Err(Error::Unsupported { path, reason }),
    };
    if matches!(system, SystemTable::AuditLog | SystemTable::Binlog) {
        return open_audit_log(table, system);
    }
    if system == SystemTable::ReadOptimized {
        return match table.with_read_optimized() {
            Some(t) => Ok((t, system)),
            None => Err(Error::Unsupported {
                path,
                reason: "system table `ro` of a table whose fallback or primary branch is shared"
                    .into(),
            }),
        };
    }
    if system != SystemTable::RowTracking {
        return Ok((table, system));
    }
    if !table.options().row_tracking_enabled || table.is_primary_key_table() {
        return Err(Error::NotATable {
            path,
            reason: "the table has no row tracking (`row-tracking.enabled` is not set), so no \
                     `$row_tracking`"
                .into(),
        });
    }
    if table.fallback().is_some() || table.primary().is_some() {
        return Err(Error::Unsupported {
            path,
            reason: "system table `row_tracking` of a table with `scan.fallback-branch` or \
                     `scan.primary-branch` is not supported"
                .into(),
        });
    }
    Ok((table.with_row_tracking_columns(), system))
}

/// `$audit_log` of `table`. Errors: [`Error::InvalidOption`] naming the schema directory when
/// `table-read.sequence-number.enabled` is not a boolean (from 1.4, where `AuditLogTable` reads it);
/// [`Error::Unsupported`] naming the table when it is set on a table without a primary key (the release's
/// schema validation rejects it: "Sequence number is only available for primary key tables").
fn open_audit_log(table: Table, system: SystemTable) -> Result<(Table, SystemTable)> {
    let name = system.name();
    if sequence_number_option(&table)? && !table.is_primary_key_table() {
        return Err(Error::Unsupported {
            path: table.meta_path().to_path_buf(),
            reason: format!(
                "system table `{name}` of a table without a primary key with \
                 `table-read.sequence-number.enabled=true` (the released schema validation rejects it)"
            ),
        });
    }
    let path = table.meta_path().to_path_buf();
    let opened = if system == SystemTable::Binlog {
        table.with_binlog()
    } else {
        table.with_audit_log()
    };
    match opened {
        Some(t) => Ok((t, system)),
        None => Err(Error::Unsupported {
            path,
            reason: format!(
                "system table `{name}` of a table whose fallback or primary branch is shared"
            ),
        }),
    }
}

/// `table-read.sequence-number.enabled` (`CoreOptions.TABLE_READ_SEQUENCE_NUMBER_ENABLED`, 1.4) as the
/// table's release reads it: false on releases without it ([`crate::line::LineRules::audit_log_sequence_number`]).
///
/// Errors: [`Error::InvalidOption`] naming the schema directory for a value that is not a boolean.
fn sequence_number_option(table: &Table) -> Result<bool> {
    const KEY: &str = "table-read.sequence-number.enabled";
    if !table.release().rules().audit_log_sequence_number {
        return Ok(false);
    }
    table
        .schema()
        .option(KEY)
        .map_or(Ok(false), crate::options::parse_bool)
        .map_err(|reason| Error::InvalidOption {
            path: table.path().join("schema"),
            key: KEY.into(),
            reason,
        })
}

/// Whether reads of `table` (opened as `$audit_log` or `$binlog`) hold `_SEQUENCE_NUMBER` after `_row_kind`:
/// `table-read.sequence-number.enabled=true` on a release that reads it (an invalid value was refused when
/// the system table opened).
pub(crate) fn audit_sequence_number(table: &Table) -> bool {
    table.audit_log() && sequence_number_option(table).unwrap_or(false)
}

/// The data table's read schema `read` (`_row_kind` then the columns) as `$audit_log` and `$binlog` read
/// `table`: with [`SEQUENCE_NUMBER`] (`Int64` NOT NULL, with its field id) after `_row_kind` when
/// [`audit_sequence_number`] holds; with every column nullable where the release's merge keeps a removed
/// partial-update row all NULL, NOT NULL columns included (1.0.x with
/// `partial-update.remove-record-on-delete`, [`crate::line::InitRow::None`]). Any other table:
/// `read` as it is.
pub(crate) fn audit_read_schema(table: &Table, read: Schema) -> Schema {
    if !table.audit_log() {
        return read;
    }
    let mut fields: Vec<Arc<Field>> = read.fields().iter().cloned().collect();
    let removed_rows_all_null = table.release().rules().init_row == crate::line::InitRow::None
        && table
            .options()
            .merge_engine
            .is(crate::options::MergeEngine::PartialUpdate)
        && table
            .schema()
            .option("partial-update.remove-record-on-delete")
            .is_some_and(|v| crate::options::parse_bool(v) == Ok(true));
    if removed_rows_all_null {
        for field in fields.iter_mut().skip(1) {
            *field = Arc::new(field.as_ref().clone().with_nullable(true));
        }
    }
    if audit_sequence_number(table) {
        let (name, id) = SEQUENCE_NUMBER;
        let at = fields.len().min(1);
        fields.insert(
            at,
            Arc::new(crate::types::with_id(
                Field::new(name, ArrowType::Int64, false),
                Some(id),
            )),
        );
    }
    Schema::new_with_metadata(fields, read.metadata().clone())
}

/// `$audit_log`'s schema from the data table's read schema (`_row_kind` then its columns): `_row_kind`,
/// [`ROW_KIND`] as Utf8 (nullable, with its field id), then the columns.
pub fn audit_log_schema(read: &SchemaRef) -> SchemaRef {
    let mut fields: Vec<Arc<Field>> = Vec::with_capacity(read.fields().len() + 1);
    fields.extend(read.fields().iter().take(1).cloned());
    fields.push(Arc::new(crate::types::with_id(
        Field::new(ROW_KIND.0, ArrowType::Utf8, true),
        Some(ROW_KIND.1),
    )));
    fields.extend(read.fields().iter().skip(1).cloned());
    Arc::new(Schema::new_with_metadata(fields, read.metadata().clone()))
}

/// A batch of the data table's read (`_row_kind` Int8 first) as `$audit_log`'s (`AuditLogRow`): `_row_kind`
/// `+I` on every row, and the row's kind as `rowkind` (`RowKind.shortString()`: `+I`, `-U`, `+U`, `-D`).
///
/// Errors: [`Error::Decode`] naming `<audit_log>` when the first column is not the Int8 row kinds or holds
/// a byte that is no RowKind (a bug upstream, never the table's bytes), or the batch does not fit `schema`.
pub fn to_audit_log(schema: &SchemaRef, batch: RecordBatch) -> Result<RecordBatch> {
    let bad = |reason: String| Error::Decode {
        path: "<audit_log>".into(),
        reason,
    };
    let kinds = batch
        .columns()
        .first()
        .and_then(|c| c.as_any().downcast_ref::<Int8Array>())
        .ok_or_else(|| bad("the batch does not start with its row kinds".into()))?;
    let mut names = Vec::with_capacity(kinds.len());
    for i in 0..kinds.len() {
        let byte = kinds.value(i);
        let kind = RowKind::from_byte(byte).ok_or_else(|| bad(format!("row kind {byte}")))?;
        names.push(kind.short_string());
    }
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(batch.num_columns() + 1);
    columns.push(Arc::new(Int8Array::from(vec![
        RowKind::Insert.to_byte();
        batch.num_rows()
    ])));
    columns.push(Arc::new(StringArray::from(names)));
    columns.extend(batch.columns().iter().skip(1).cloned());
    RecordBatch::try_new(schema.clone(), columns).map_err(|e| bad(e.to_string()))
}

/// The Arrow fields `$row_tracking` adds after the table's columns: [`ROW_ID`] then [`SEQUENCE_NUMBER`],
/// `Int64` NOT NULL, with their field ids (`PARQUET:field_id` metadata, as every column's).
pub fn row_tracking_fields() -> [Field; 2] {
    [ROW_ID, SEQUENCE_NUMBER].map(|(name, id)| {
        crate::types::with_id(Field::new(name, ArrowType::Int64, false), Some(id))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audit_log_rows_are_inserts_with_their_kind_as_a_column() {
        let read: SchemaRef = Arc::new(Schema::new(vec![
            Field::new("_row_kind", ArrowType::Int8, false),
            Field::new("k", ArrowType::Int32, false),
        ]));
        let batch = RecordBatch::try_new(
            read.clone(),
            vec![
                Arc::new(Int8Array::from(vec![0, 1, 2, 3])),
                Arc::new(arrow_array::Int32Array::from(vec![1, 2, 2, 3])),
            ],
        )
        .unwrap();
        let schema = audit_log_schema(&read);
        let out = to_audit_log(&schema, batch).unwrap();
        let kinds = out.column(0).as_any().downcast_ref::<Int8Array>().unwrap();
        assert_eq!(kinds.values().to_vec(), vec![0; 4]);
        let names = out
            .column(1)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        let names: Vec<_> = names.iter().flatten().collect();
        assert_eq!(names, ["+I", "-U", "+U", "-D"]);
        assert_eq!(out.schema().field(1).name(), "rowkind");
        assert_eq!(out.num_columns(), 3);
    }

    #[test]
    fn row_tracking_is_known_from_1_3() {
        assert_eq!(
            SystemTable::parse("ROW_TRACKING", PaimonRelease::V1_3_1),
            Ok(SystemTable::RowTracking)
        );
        let Err(SystemTableError::Unknown(old)) =
            SystemTable::parse("row_tracking", PaimonRelease::V1_2_0)
        else {
            panic!("1.2.0 has no $row_tracking");
        };
        assert!(old.contains("Paimon 1.2.0 has no system table"), "{old}");
        assert!(matches!(
            SystemTable::parse("statistics", PaimonRelease::V2_0_0),
            Err(SystemTableError::NotRead(_))
        ));
        assert!(matches!(
            SystemTable::parse("filez", PaimonRelease::V2_0_0),
            Err(SystemTableError::Unknown(_))
        ));
    }
}
