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
//! On 2.0 the `.blob` files of each BLOB column are read together, with fallback on placeholders
//! (`crate::decode`'s blob bunches, [`crate::line::LineRules::field_bunches`]), and vector-store files
//! (`.vector.<format>`) in chains per schema, format and written columns (its vector bunches; 1.3 and 1.4
//! refuse them by name when planned, [`crate::table::unsupported_data_evolution_file`]); a file's `.row`
//! sidecar is not read (the released reader reads it only for scans pushed down to a few row ids).

mod columns;

pub(crate) use columns::{
    column_sources, merge_order, row_id_ranges, written_field_ids, ColumnSource,
};

pub use crate::line::DataEvolution;

use crate::error::{Error, Result};
use crate::manifest::DataFileMeta;
use crate::split::DataFileDesc;

/// A file with a row-id range (`DataFileMeta.nonNullRowIdRange`).
pub trait RowIdRange {
    /// The file name, for errors.
    fn name(&self) -> &str;
    /// `_FIRST_ROW_ID`, if the file has one.
    fn first_row_id(&self) -> Option<i64>;
    /// `_ROW_COUNT`.
    fn row_count(&self) -> i64;
    /// `_MAX_SEQUENCE_NUMBER`.
    fn max_sequence_number(&self) -> i64;

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

/// [`RowIdRange`] of a file meta type with the fields of `DataFileMeta`: the manifest's entries and the
/// splits' file descriptions.
macro_rules! row_id_range_of_fields {
    ($($t:ty),*) => {$(
        impl RowIdRange for $t {
            fn name(&self) -> &str {
                &self.file_name
            }
            fn first_row_id(&self) -> Option<i64> {
                self.first_row_id
            }
            fn row_count(&self) -> i64 {
                self.row_count
            }
            fn max_sequence_number(&self) -> i64 {
                self.max_sequence_number
            }
        }
    )*};
}

row_id_range_of_fields!(DataFileMeta, DataFileDesc);

/// The row-id groups of `files` as `rule` forms them: indexes into `files`, in read order.
///
/// * [`DataEvolution::ByRowIdRange`] (1.4+): `RangeHelper.mergeOverlappingRanges`: groups of overlapping
///   ranges, in the order of their smallest range (ranges sorted by start, then end); inside a group the
///   input order is kept.
/// * [`DataEvolution::ByFirstRowId`] (1.3): `DataEvolutionSplitGenerator.split`: files stably sorted by
///   `_FIRST_ROW_ID` (none first) then `_MAX_SEQUENCE_NUMBER` descending; files with equal first row ids are
///   one group, a file without one is a group alone.
/// * [`DataEvolution::Unknown`]: each file alone, in input order.
///
/// Errors: the reason naming a file without `_FIRST_ROW_ID` (1.4+), or (1.3) a file whose first row id
/// falls inside the previous group's rows (Java: `There are overlapping files in the split`).
pub fn row_id_groups<F: RowIdRange>(
    files: &[F],
    rule: DataEvolution,
) -> std::result::Result<Vec<Vec<usize>>, String> {
    match rule {
        DataEvolution::Unknown => Ok((0..files.len()).map(|i| vec![i]).collect()),
        DataEvolution::ByRowIdRange => overlapping_ranges(files),
        DataEvolution::ByFirstRowId => equal_first_row_ids(files),
    }
}

fn overlapping_ranges<F: RowIdRange>(files: &[F]) -> std::result::Result<Vec<Vec<usize>>, String> {
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

fn equal_first_row_ids<F: RowIdRange>(files: &[F]) -> std::result::Result<Vec<Vec<usize>>, String> {
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|&i| {
        (
            files[i].first_row_id().unwrap_or(i64::MIN),
            std::cmp::Reverse(files[i].max_sequence_number()),
        )
    });
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    let mut last: Option<i64> = None;
    let mut next_free = 0i64;
    for i in order {
        let Some(first) = files[i].first_row_id() else {
            groups.push(vec![i]);
            continue;
        };
        if last != Some(first) {
            if !current.is_empty() {
                groups.push(std::mem::take(&mut current));
            }
            if first < next_free {
                return Err(format!(
                    "data file {} starts at row id {first}, inside the rows of the files before it (overlapping files in one split)",
                    files[i].name()
                ));
            }
            last = Some(first);
            next_free = first + files[i].row_count();
        }
        current.push(i);
    }
    if !current.is_empty() {
        groups.push(current);
    }
    Ok(groups)
}

/// `DataEvolutionUtils.retrieveAnchorFile` (2.0): the file of a row-id group whose deletion vector holds the
/// group's deleted rows, at positions from the group's first row id: the oldest data file (smallest
/// `_MAX_SEQUENCE_NUMBER`, then file name), `.blob` and vector-store files left out. `None` when the group
/// has no data file.
pub fn anchor_file<'a, F: RowIdRange>(group: &[&'a F]) -> Option<&'a F> {
    group
        .iter()
        .filter(|f| !f.name().ends_with(".blob") && !f.name().contains(".vector."))
        .min_by(|a, b| {
            (a.max_sequence_number(), a.name()).cmp(&(b.max_sequence_number(), b.name()))
        })
        .copied()
}

/// `files` moved into their row-id groups ([`row_id_groups`]), for `DataEvolutionSplitGenerator`, which
/// bin-packs them (`crate::scan`).
///
/// Errors: [`Error::Unsupported`] naming `manifest` and a file without `_FIRST_ROW_ID`.
pub(crate) fn group_files(
    files: Vec<DataFileMeta>,
    rule: DataEvolution,
    manifest: &std::path::Path,
) -> Result<Vec<Vec<DataFileMeta>>> {
    let groups = row_id_groups(&files, rule).map_err(|reason| Error::Unsupported {
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
