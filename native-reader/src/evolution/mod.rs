//! Data evolution (`data-evolution.enabled`, 1.3+): an append table whose files may hold some columns
//! (`_WRITE_COLS`) of a range of row ids (`_FIRST_ROW_ID` .. `+ _ROW_COUNT - 1`). Files whose row-id ranges
//! overlap form one group and are merged column by column into whole rows.
//!
//! * Planning ([`group_files`], packed by `crate::scan`) mirrors `DataEvolutionSplitGenerator`: the groups
//!   of one bucket (`RangeHelper.mergeOverlappingRanges`) are bin-packed in row-id order; a split is
//!   raw-convertible when each of its groups is one file. Streaming plans pack the same way
//!   (`splitForStreaming`).
//! * Reading ([`merge_order`], [`column_sources`], used by `crate::decode`) mirrors
//!   `DataEvolutionSplitRead` for data files: a group of one file is a plain
//!   file (the columns it does not hold NULL); in a larger group every file spans the same row ids, files
//!   are ordered by `_MAX_SEQUENCE_NUMBER` descending, and each column comes from the first file whose
//!   written columns (its schema projected on `_WRITE_COLS`) hold its field id.
//!
//! `.blob` column files, vector-store files and row sidecars are refused by name when planned
//! ([`crate::table::unsupported_data_evolution_file`]), and so are deletion vectors on a merged group.

mod columns;

pub(crate) use columns::{column_sources, merge_order};

use crate::error::{Error, Result};
use crate::manifest::DataFileMeta;
use crate::split::DataFileDesc;

/// A file with a row-id range (`DataFileMeta.nonNullRowIdRange`).
pub(crate) trait RowIdRange {
    /// The file name, for errors.
    fn name(&self) -> &str;
    /// `_FIRST_ROW_ID`, if the file has one.
    fn first_row_id(&self) -> Option<i64>;
    /// `_ROW_COUNT`.
    fn row_count(&self) -> i64;

    /// The inclusive row-id range `(from, to)`.
    ///
    /// Errors: the reason, naming the file, when it has no `_FIRST_ROW_ID` (a data-evolution table's files
    /// all have one; Java's `nonNullRowIdRange` fails the same way).
    fn range(&self) -> std::result::Result<(i64, i64), String> {
        match self.first_row_id() {
            Some(first) => Ok((first, first + self.row_count() - 1)),
            None => Err(format!(
                "data file {} of a data-evolution table has no _FIRST_ROW_ID",
                self.name()
            )),
        }
    }
}

impl RowIdRange for DataFileMeta {
    fn name(&self) -> &str {
        &self.file_name
    }
    fn first_row_id(&self) -> Option<i64> {
        self.first_row_id
    }
    fn row_count(&self) -> i64 {
        self.row_count
    }
}

impl RowIdRange for DataFileDesc {
    fn name(&self) -> &str {
        &self.file_name
    }
    fn first_row_id(&self) -> Option<i64> {
        self.first_row_id
    }
    fn row_count(&self) -> i64 {
        self.row_count
    }
}

/// `RangeHelper.mergeOverlappingRanges`: indexes of `files` grouped by overlapping row-id ranges. Groups are
/// in the order of their smallest range (ranges sorted by start, then end); inside a group the indexes keep
/// the input order.
///
/// Errors: the reason naming a file without `_FIRST_ROW_ID`.
pub(crate) fn row_id_groups<F: RowIdRange>(
    files: &[F],
) -> std::result::Result<Vec<Vec<usize>>, String> {
    let mut ranges = files
        .iter()
        .enumerate()
        .map(|(i, f)| f.range().map(|(from, to)| (from, to, i)))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    ranges.sort_by_key(|&(from, to, _)| (from, to));
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut end = i64::MIN;
    for (from, to, i) in ranges {
        match groups.last_mut() {
            Some(group) if from <= end => {
                group.push(i);
                end = end.max(to);
            }
            _ => {
                groups.push(vec![i]);
                end = to;
            }
        }
    }
    for group in &mut groups {
        group.sort_unstable();
    }
    Ok(groups)
}

/// `files` moved into their row-id groups ([`row_id_groups`]), for `DataEvolutionSplitGenerator`, which
/// bin-packs them (`crate::scan`).
///
/// Errors: [`Error::Unsupported`] naming `manifest` and a file without `_FIRST_ROW_ID`.
pub(crate) fn group_files(
    files: Vec<DataFileMeta>,
    manifest: &std::path::Path,
) -> Result<Vec<Vec<DataFileMeta>>> {
    let groups = row_id_groups(&files).map_err(|reason| Error::Unsupported {
        path: manifest.to_path_buf(),
        reason,
    })?;
    let mut slots: Vec<Option<DataFileMeta>> = files.into_iter().map(Some).collect();
    Ok(groups
        .into_iter()
        .map(|g| g.into_iter().filter_map(|i| slots[i].take()).collect())
        .collect())
}

#[cfg(test)]
mod tests;
