//! Paimon's system tables (`SystemTableLoader`): tables named `<table>$<name>` that a catalog derives from a
//! data table. The ones read here are listed by [`SystemTable`]; every other name is refused by name.
//!
//! `$row_tracking` (`RowTrackingTable`, 1.3.0 on) is the data table read with two more columns,
//! [`ROW_ID`] and [`SEQUENCE_NUMBER`] (`SpecialFields.rowTypeWithRowTracking`): its scans are the data
//! table's, its read asks for the two columns (`newRead().withReadType(rowType())`).
//!
//! `$snapshots`, `$schemas`, `$options` and `$tags` are made of the table's metadata files ([`metadata`]): one batch,
//! read whole ([`metadata::read`]).

pub mod metadata;

use arrow_schema::{DataType as ArrowType, Field};

use crate::error::{Error, Result};
use crate::line::PaimonRelease;
use crate::table::Table;

/// `SpecialFields.ROW_ID`: the row's id, `BIGINT NOT NULL`, field id `Integer.MAX_VALUE - 5`.
pub const ROW_ID: (&str, i32) = ("_ROW_ID", i32::MAX - 5);

/// `SpecialFields.SEQUENCE_NUMBER`: the sequence number of the file that last wrote the row,
/// `BIGINT NOT NULL`, field id `Integer.MAX_VALUE - 1`.
pub const SEQUENCE_NUMBER: (&str, i32) = ("_SEQUENCE_NUMBER", i32::MAX - 1);

/// A system table this reader reads (`SystemTableLoader.SYSTEM_TABLE_LOADERS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SystemTable {
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
}

/// Names of Paimon's other system tables (2.0.0 `SystemTableLoader`), refused as not read here yet rather
/// than unknown.
const NOT_READ_YET: &[&str] = &[
    "audit_log",
    "binlog",
    "branches",
    "buckets",
    "consumers",
    "files",
    "manifests",
    "partitions",
    "read-optimized",
    "ro",
    "statistics",
    "table_indexes",
];

impl SystemTable {
    /// The system table called `name` (case-insensitive, as `SystemTableLoader.load` looks it up), as
    /// `release` knows it.
    ///
    /// Errors: [`SystemTableError::Unknown`] for a name `release`'s loader does not know (`row_tracking`
    /// before 1.3.0, a misspelt name); [`SystemTableError::NotRead`] for a system table of Paimon this
    /// reader does not read yet (`files`, `snapshots`, …).
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
            "snapshots" => Ok(SystemTable::Snapshots),
            "schemas" => Ok(SystemTable::Schemas),
            "options" => Ok(SystemTable::Options),
            "tags" => Ok(SystemTable::Tags),
            _ if NOT_READ_YET.contains(&lower.as_str()) => Err(SystemTableError::NotRead(format!(
                "system table `{name}` is not supported (this reader reads `$row_tracking`, `$snapshots`, \
                 `$schemas`, `$options` and `$tags`)"
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
            SystemTable::Snapshots => "snapshots",
            SystemTable::Schemas => "schemas",
            SystemTable::Options => "options",
            SystemTable::Tags => "tags",
        }
    }

    /// Whether the table is made of metadata files, read whole by [`metadata::read`] (not by splits).
    pub fn is_metadata(self) -> bool {
        self != SystemTable::RowTracking
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
/// Errors: [`Error::NotATable`] naming the table when the release has no such system table, or when the
/// table has no row tracking (`row-tracking.enabled` unset, as `RowTrackingTable` refuses);
/// [`Error::Unsupported`] naming it for a system table Paimon has that this reader does not read yet, and
/// for `$row_tracking` of a table with `scan.fallback-branch`.
pub fn open(table: Table, name: &str) -> Result<(Table, SystemTable)> {
    let path = table.meta_path().to_path_buf();
    let system = match SystemTable::parse(name, table.release()) {
        Ok(s) => s,
        Err(SystemTableError::Unknown(reason)) => return Err(Error::NotATable { path, reason }),
        Err(SystemTableError::NotRead(reason)) => return Err(Error::Unsupported { path, reason }),
    };
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
    if table.fallback().is_some() {
        return Err(Error::Unsupported {
            path,
            reason: "system table `row_tracking` of a table with `scan.fallback-branch` is not supported"
                .into(),
        });
    }
    Ok((table.with_row_tracking_columns(), system))
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
            SystemTable::parse("files", PaimonRelease::V2_0_0),
            Err(SystemTableError::NotRead(_))
        ));
        assert!(matches!(
            SystemTable::parse("filez", PaimonRelease::V2_0_0),
            Err(SystemTableError::Unknown(_))
        ));
    }
}
