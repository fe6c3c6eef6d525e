//! Which file of a row-id group supplies each column (`DataEvolutionSplitRead.createUnionReader`).

use std::collections::HashSet;

use super::RowIdRange;
use crate::error::{Error, Result};
use crate::split::DataFileDesc;
use crate::table::Table;

/// The inclusive row-id range of each of `files` ([`RowIdRange::range`]).
///
/// Errors: [`Error::Unsupported`] naming `bucket_path` and the first file without `_FIRST_ROW_ID`.
pub(crate) fn row_id_ranges(files: &[&DataFileDesc], bucket_path: &str) -> Result<Vec<(i64, i64)>> {
    files
        .iter()
        .map(|f| {
            f.range().map_err(|reason| Error::Unsupported {
                path: bucket_path.into(),
                reason,
            })
        })
        .collect()
}

/// `DataEvolutionSplitRead.mergeRangesAndSort` for one group of data files: their indexes ordered by
/// `_MAX_SEQUENCE_NUMBER` descending (stable: equal ones keep the group's order).
///
/// Errors: [`Error::Unsupported`] naming `bucket_path` when the files do not all span the same row ids
/// (Java's `Data files … should be all row id ranges same`), or one has no `_FIRST_ROW_ID`.
pub(crate) fn merge_order(files: &[&DataFileDesc], bucket_path: &str) -> Result<Vec<usize>> {
    let ranges = row_id_ranges(files, bucket_path)?;
    if let Some(i) = ranges.iter().position(|r| *r != ranges[0]) {
        return Err(Error::Unsupported {
            path: bucket_path.into(),
            reason: format!(
                "data files {} (row ids {}..={}) and {} (row ids {}..={}) overlap but do not span the same row ids",
                files[0].file_name, ranges[0].0, ranges[0].1, files[i].file_name, ranges[i].0, ranges[i].1
            ),
        });
    }
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(files[i].max_sequence_number));
    Ok(order)
}

/// The field ids `file` holds: its schema (`_SCHEMA_ID`) projected on its `_WRITE_COLS` by name
/// (`schema.project(writeCols)`), every column of it when it has none.
///
/// Errors: schema errors of [`Table::schema_by_id`].
pub(crate) fn written_field_ids(table: &Table, file: &DataFileDesc) -> Result<HashSet<i32>> {
    let schema = table.schema_by_id(file.schema_id)?;
    Ok(schema
        .fields
        .iter()
        .filter(|field| {
            file.write_cols
                .as_ref()
                .is_none_or(|cols| cols.contains(&field.name))
        })
        .map(|field| field.id)
        .collect())
}

/// Where one column of a merged row-id group comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ColumnSource {
    /// The file at this position of the ordered non-`.blob` files.
    File(usize),
    /// The `.blob` files of this field id (2.0's `BlobFileBunch`).
    BlobBunch(i32),
    /// The vector-store bunch at this position of the group's bunches (2.0's `VectorFileBunch`).
    VectorBunch(usize),
    /// No file holds it: NULL.
    Null,
}

/// For each column of the table's latest schema, where it comes from: the first file of `ordered` (files
/// newest first, as [`merge_order`] gives them) whose written columns hold its field id (the file's schema
/// (`_SCHEMA_ID`) projected on `_WRITE_COLS` by name, all its columns when `None`), else the `.blob` files of
/// its field when `blob_fields` (the field ids of the group's blob bunches) has it, else the first
/// vector-store bunch whose field ids (`vector_fields`, the bunches in order) have it, else none
/// (`createUnionReader`: data bunches come before blob bunches, and those before vector-store bunches).
///
/// Errors: schema errors of [`Table::schema_by_id`]; [`Error::Unsupported`] naming `bucket_path` when a
/// NOT NULL column is held by no file (Java: `Field … is not null but can't find any file contains it`).
pub(crate) fn column_sources(
    table: &Table,
    ordered: &[&DataFileDesc],
    blob_fields: &HashSet<i32>,
    vector_fields: &[HashSet<i32>],
    bucket_path: &str,
) -> Result<Vec<ColumnSource>> {
    let mut written: Vec<HashSet<i32>> = Vec::with_capacity(ordered.len());
    for f in ordered {
        written.push(written_field_ids(table, f)?);
    }
    table
        .schema()
        .fields
        .iter()
        .map(|field| {
            if let Some(at) = written.iter().position(|ids| ids.contains(&field.id)) {
                return Ok(ColumnSource::File(at));
            }
            if blob_fields.contains(&field.id) {
                return Ok(ColumnSource::BlobBunch(field.id));
            }
            if let Some(at) = vector_fields.iter().position(|ids| ids.contains(&field.id)) {
                return Ok(ColumnSource::VectorBunch(at));
            }
            if !field.data_type.nullable {
                let first = ordered.first().map_or("", |f| f.file_name.as_str());
                return Err(Error::Unsupported {
                    path: bucket_path.into(),
                    reason: format!(
                        "column `{}` is NOT NULL but no file of the row-id group from {first} holds it",
                        field.name
                    ),
                });
            }
            Ok(ColumnSource::Null)
        })
        .collect()
}
