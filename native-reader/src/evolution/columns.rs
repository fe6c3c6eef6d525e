//! Which file of a row-id group supplies each column (`DataEvolutionSplitRead.createUnionReader`).

use std::collections::HashSet;

use super::RowIdRange;
use crate::error::{Error, Result};
use crate::split::DataFileDesc;
use crate::table::Table;

/// `DataEvolutionSplitRead.mergeRangesAndSort` for one group of data files: their indexes ordered by
/// `_MAX_SEQUENCE_NUMBER` descending (stable: equal ones keep the group's order).
///
/// Errors: [`Error::Unsupported`] naming `bucket_path` when the files do not all span the same row ids
/// (Java's `Data files … should be all row id ranges same`), or one has no `_FIRST_ROW_ID`.
pub(crate) fn merge_order(files: &[&DataFileDesc], bucket_path: &str) -> Result<Vec<usize>> {
    let refuse = |reason: String| Error::Unsupported {
        path: bucket_path.into(),
        reason,
    };
    let mut ranges = Vec::with_capacity(files.len());
    for f in files {
        ranges.push(f.range().map_err(refuse)?);
    }
    if let Some(i) = ranges.iter().position(|r| *r != ranges[0]) {
        return Err(refuse(format!(
            "data files {} (row ids {}..={}) and {} (row ids {}..={}) overlap but do not span the same row ids",
            files[0].file_name, ranges[0].0, ranges[0].1, files[i].file_name, ranges[i].0, ranges[i].1
        )));
    }
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(files[i].max_sequence_number));
    Ok(order)
}

/// For each column of the table's latest schema, the position in `ordered` (files newest first, as
/// [`merge_order`] gives them) of the first file whose written columns hold its field id: the file's
/// schema (`_SCHEMA_ID`) projected on `_WRITE_COLS` by name (all its columns when `None`). `None`: no file
/// holds the column, which is then NULL.
///
/// Errors: schema errors of [`Table::schema_by_id`]; [`Error::Unsupported`] naming `bucket_path` when a
/// NOT NULL column is held by no file (Java: `Field … is not null but can't find any file contains it`).
pub(crate) fn column_sources(
    table: &Table,
    ordered: &[&DataFileDesc],
    bucket_path: &str,
) -> Result<Vec<Option<usize>>> {
    let mut written: Vec<HashSet<i32>> = Vec::with_capacity(ordered.len());
    for f in ordered {
        let schema = table.schema_by_id(f.schema_id)?;
        written.push(
            schema
                .fields
                .iter()
                .filter(|field| {
                    f.write_cols
                        .as_ref()
                        .is_none_or(|cols| cols.contains(&field.name))
                })
                .map(|field| field.id)
                .collect(),
        );
    }
    table
        .schema()
        .fields
        .iter()
        .map(|field| {
            let source = written.iter().position(|ids| ids.contains(&field.id));
            if source.is_none() && !field.data_type.nullable {
                return Err(Error::Unsupported {
                    path: bucket_path.into(),
                    reason: format!(
                        "column `{}` is NOT NULL but no file of the row-id group from {} holds it",
                        field.name, ordered[0].file_name
                    ),
                });
            }
            Ok(source)
        })
        .collect()
}
