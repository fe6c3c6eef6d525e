//! `$manifests` (`ManifestsTable`): one row per manifest file of the latest snapshot (or of the one the
//! table's own `scan.snapshot-id` or `scan.tag-name` names: `TimeTravelUtil.tryTravelOrLatest`; its other
//! start options are refused by name), in the order
//! `ManifestList.readAllManifests` returns them (the base list's, the delta list's, then the changelog
//! list's), with the columns of each release ([`crate::line::ManifestsTable`]).
//!
//! The partition bounds (`min_partition_stats`, `max_partition_stats`, 1.0.1 on) are the manifest list's
//! `_PARTITION_STATS` rows as strings: in 1.0.1 `Arrays.toString` of their internal values (`[v1, v2]`,
//! each value's `toString()`), from 1.1 cast to STRING (`RowToStringCastRule`: `{v1, v2}`, each field cast
//! to STRING); `null` for a NULL field. The casts modelled are those of the partition types Paimon tables
//! use (integers, strings, booleans, dates, decimals); any other partition type is refused by name.

use crate::error::Result;
use crate::line::ManifestsTable;
use crate::table::Table;
use crate::value::Datum;

/// The columns of `$manifests` as `rule` defines them, as (name, Paimon type).
pub(crate) fn columns(rule: ManifestsTable) -> &'static [(&'static str, &'static str)] {
    const ALL: &[(&str, &str)] = &[
        ("file_name", "STRING NOT NULL"),
        ("file_size", "BIGINT NOT NULL"),
        ("num_added_files", "BIGINT NOT NULL"),
        ("num_deleted_files", "BIGINT NOT NULL"),
        ("schema_id", "BIGINT NOT NULL"),
        ("min_partition_stats", "STRING"),
        ("max_partition_stats", "STRING"),
        ("min_row_id", "BIGINT"),
        ("max_row_id", "BIGINT"),
    ];
    match rule {
        ManifestsTable::Counts => &ALL[..5],
        ManifestsTable::WithPartitionArrays | ManifestsTable::WithPartitionStats => &ALL[..7],
        ManifestsTable::WithRowIds => ALL,
    }
}

/// The rows of `$manifests` of `table` (no row when it has no snapshot).
///
/// Errors: the manifest list's read errors (naming the file); [`Error::Unsupported`] naming the table for
/// a partition type whose cast to STRING is not modelled here, or a start option of the table other than
/// `scan.snapshot-id`, `scan.tag-name`, `scan.timestamp-millis`, `scan.watermark` (which it travels to), the creation times,
/// `scan.mode`, the increments and diffs (which it does not look at); the travelled snapshot's errors
/// ([`crate::scan::travelled_snapshot`]).
pub(crate) fn rows(table: &Table) -> Result<Vec<Vec<Datum>>> {
    super::files_tables::refuse_start_options(
        table,
        "manifests",
        &[
            "scan.snapshot-id",
            "scan.tag-name",
            "scan.watermark",
            "scan.timestamp-millis",
            "log.scan.timestamp-millis",
            "scan.timestamp",
            "scan.file-creation-time-millis",
            "scan.creation-time-millis",
            "scan.mode",
            "log.scan",
            "incremental-between",
            "incremental-between-timestamp",
            "incremental-to-auto-tag",
        ],
    )?;
    let snapshot = match crate::scan::travelled_snapshot(table)? {
        Some(snapshot) => snapshot,
        None => {
            let Some(latest) = table.snapshot_manager().latest_snapshot_id()? else {
                return Ok(Vec::new());
            };
            table.snapshot(latest)?
        }
    };
    let rule = table.release().rules().manifests_table;
    let mut rows = Vec::new();
    let lists = [
        Some(&snapshot.base_manifest_list),
        Some(&snapshot.delta_manifest_list),
        snapshot.changelog_manifest_list.as_ref(),
    ];
    for list in lists.into_iter().flatten() {
        let path = table.manifest_path(list);
        for meta in crate::manifest::read_manifest_list(&path)? {
            let mut row = vec![
                Datum::String(meta.file_name.clone()),
                Datum::Int(meta.file_size),
                Datum::Int(meta.num_added_files),
                Datum::Int(meta.num_deleted_files),
                Datum::Int(meta.schema_id),
            ];
            if rule != ManifestsTable::Counts {
                for bound in [&meta.min_partition, &meta.max_partition] {
                    row.push(partition_string(table, rule, bound, &path)?);
                }
            }
            if rule == ManifestsTable::WithRowIds {
                row.push(meta.min_row_id.map_or(Datum::Null, Datum::Int));
                row.push(meta.max_row_id.map_or(Datum::Null, Datum::Int));
            }
            rows.push(row);
        }
    }
    Ok(rows)
}

/// A partition bound (a serialized `BinaryRow` of the partition fields) as `rule` renders it
/// ([`super::files_tables::row_string`]); NULL when the list recorded no bound.
fn partition_string(
    table: &Table,
    rule: ManifestsTable,
    serialized: &[u8],
    list: &std::path::Path,
) -> Result<Datum> {
    if serialized.is_empty() {
        return Ok(Datum::Null);
    }
    let computer = table.partition_computer();
    let values = computer.decode(serialized, list)?;
    let arrays = rule == ManifestsTable::WithPartitionArrays;
    super::files_tables::row_string(table, arrays, computer.fields(), &values).map(Datum::String)
}
