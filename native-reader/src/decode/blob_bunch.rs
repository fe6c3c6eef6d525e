//! The `.blob` files of one BLOB column of a row-id group, read together as Paimon 2.0 reads them
//! (`DataEvolutionSplitRead.BlobFileBunch`, `BlobFallbackRecordReader`): an update of a BLOB column writes a
//! new `.blob` file for some rows, with placeholders (`BlobPlaceholder`) where the older files keep the value.
//!
//! The files are grouped by `_MAX_SEQUENCE_NUMBER`, newest first; within a group they are ordered by first row
//! id and must not overlap, and the rows of the group's range that no file of it covers count as
//! placeholders. Each row takes its value (a payload or NULL) from the newest group that has one that is not a
//! placeholder, and is NULL when every group has a placeholder. When every file has the same
//! `_MAX_SEQUENCE_NUMBER` the files are read one after the other, and a placeholder fails the read, as it
//! does in the released reader (`sequentialReadOptimize`, then `BlobPlaceholder.toData`).

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use arrow_array::builder::BinaryBuilder;
use arrow_array::ArrayRef;

use super::blob::{BlobCell, BlobCells};
use crate::error::{Error, Result};
use crate::split::DataFileDesc;
use crate::table::Table;

/// Whether `file` is a `.blob` file (`BlobFileFormat.isBlobFile`).
pub(crate) fn is_blob_file(file: &DataFileDesc) -> bool {
    file.file_name.ends_with(".blob")
}

/// The `.blob` files of a row-id group by the field id they hold (`splitFieldBunches`: the field of the
/// file's schema named by its first `_WRITE_COLS` entry).
///
/// Errors: [`Error::Unsupported`] naming `bucket_path` for a `.blob` file without `_WRITE_COLS` or whose
/// column is not in its schema, or one whose `_WRITE_COLS` differ from those of the first file of its field
/// (`BlobFileBunch.add`: "All files in this bunch should have the same write columns", e.g. after a
/// rename); schema errors of [`Table::schema_by_id`].
pub(crate) fn by_field<'a>(
    table: &Table,
    files: &[&'a DataFileDesc],
    bucket_path: &str,
) -> Result<BTreeMap<i32, Vec<&'a DataFileDesc>>> {
    let mut out: BTreeMap<i32, Vec<&'a DataFileDesc>> = BTreeMap::new();
    for &file in files {
        let schema = table.schema_by_id(file.schema_id)?;
        let column = file.write_cols.as_ref().and_then(|c| c.first());
        let field = column.and_then(|c| schema.fields.iter().find(|f| &f.name == c));
        let Some(field) = field else {
            return Err(Error::Unsupported {
                path: bucket_path.into(),
                reason: format!(
                    "blob file {} names no column of its schema {} in _WRITE_COLS",
                    file.file_name, file.schema_id
                ),
            });
        };
        let bunch = out.entry(field.id).or_default();
        if let Some(first) = bunch.first() {
            if first.write_cols != file.write_cols {
                return Err(Error::Unsupported {
                    path: bucket_path.into(),
                    reason: format!(
                        "blob files {} and {} of one column have different _WRITE_COLS ({:?} and {:?}); the \
                         released reader refuses them too",
                        first.file_name, file.file_name, first.write_cols, file.write_cols
                    ),
                });
            }
        }
        bunch.push(file);
    }
    Ok(out)
}

/// What one row of the bunch takes: `(file, cell)` of the file that supplies it.
type Pick = Option<(usize, BlobCell)>;

/// The values of the bunch `files` (the `.blob` files of one column of a row-id group) for the group's rows
/// `first..=last`, as Arrow Binary: the bytes, or each value's serialized descriptor when `descriptors`
/// (`blob-as-descriptor`, [`super::blob::descriptor`]).
///
/// Errors, naming the files: [`Error::Unsupported`] when the files do not cover exactly the group's rows
/// (Java: `Blob file bunch should always contain a contiguous row range` / `should be aligned with normal
/// files`), two files of one `_MAX_SEQUENCE_NUMBER` overlap, the files share one `_MAX_SEQUENCE_NUMBER` and
/// one holds a placeholder (the released reader fails on it), or descriptors are asked for a file under an
/// external path (naming the file); [`Error::Decode`] when a file does not hold its `_ROW_COUNT` rows; those of
/// [`BlobCells::read`].
pub(crate) fn read_bunch(
    files: &[&DataFileDesc],
    (first, last): (i64, i64),
    bucket_path: &str,
    descriptors: bool,
) -> Result<ArrayRef> {
    let refuse = |reason: String| Error::Unsupported {
        path: bucket_path.into(),
        reason,
    };
    let ranges = crate::evolution::row_id_ranges(files, bucket_path)?;
    check_covers(files, &ranges, (first, last)).map_err(refuse)?;
    // Each file's location, once: it is read from there, and it is the URI of its descriptors.
    let mut paths = Vec::with_capacity(files.len());
    for f in files {
        let path = f.path(bucket_path).map_err(refuse)?;
        if descriptors {
            super::blob::check_descriptor_location(f, &path)?;
        }
        paths.push(path);
    }
    // `_MAX_SEQUENCE_NUMBER` groups, newest first; files by first row id inside.
    let mut groups: BTreeMap<std::cmp::Reverse<i64>, Vec<usize>> = BTreeMap::new();
    for (i, f) in files.iter().enumerate() {
        groups
            .entry(std::cmp::Reverse(f.max_sequence_number))
            .or_default()
            .push(i);
    }
    let sequential = groups.len() == 1;
    let rows = usize::try_from(last - first + 1).unwrap_or(0);
    let mut picks: Vec<Pick> = vec![None; rows];
    let mut read: Vec<Option<BlobCells>> = (0..files.len()).map(|_| None).collect();
    for group in groups.values_mut() {
        group.sort_by_key(|&i| ranges[i].0);
        if let Some(w) = group.windows(2).find(|w| ranges[w[0]].1 >= ranges[w[1]].0) {
            return Err(refuse(format!(
                "blob files {} and {} have the same _MAX_SEQUENCE_NUMBER and overlapping row ids",
                files[w[0]].file_name, files[w[1]].file_name
            )));
        }
        for &i in group.iter() {
            let cells = BlobCells::read(&paths[i])?;
            if cells.cells.len() as i64 != files[i].row_count {
                return Err(Error::Decode {
                    path: files[i].display_path(bucket_path),
                    reason: format!(
                        "{} rows, but its _ROW_COUNT is {}",
                        cells.cells.len(),
                        files[i].row_count
                    ),
                });
            }
            let offset = usize::try_from(ranges[i].0 - first).unwrap_or(0);
            for (at, cell) in cells.cells.iter().enumerate() {
                if *cell == BlobCell::Placeholder {
                    if sequential {
                        return Err(super::blob::placeholder_alone(&paths[i], at));
                    }
                    continue;
                }
                let pick = &mut picks[offset + at];
                if pick.is_none() {
                    *pick = Some((i, cell.clone()));
                }
            }
            read[i] = Some(cells);
        }
    }
    let mut builder = BinaryBuilder::with_capacity(rows, 0);
    for pick in &picks {
        match pick {
            Some((i, BlobCell::Value(range))) if descriptors => {
                builder.append_value(super::blob::descriptor(&paths[*i].to_string_lossy(), range));
            }
            Some((i, BlobCell::Value(range))) => match &read[*i] {
                Some(cells) => builder.append_value(cells.value(range)),
                None => builder.append_null(),
            },
            // NULL, or a placeholder in every file (`nullBlobRow`).
            _ => builder.append_null(),
        }
    }
    Ok(Arc::new(builder.finish()))
}

/// Whether the row-id ranges of a bunch's files, merged, are exactly `first..=last`.
fn check_covers(
    files: &[&DataFileDesc],
    ranges: &[(i64, i64)],
    (first, last): (i64, i64),
) -> std::result::Result<(), String> {
    let mut sorted: Vec<(i64, i64)> = ranges.to_vec();
    sorted.sort_unstable();
    let mut merged: Vec<(i64, i64)> = Vec::new();
    for (from, to) in sorted {
        match merged.last_mut() {
            Some(last) if from <= last.1 + 1 => last.1 = last.1.max(to),
            _ => merged.push((from, to)),
        }
    }
    if merged == [(first, last)] {
        return Ok(());
    }
    let names: HashSet<&str> = files.iter().map(|f| f.file_name.as_str()).collect();
    let mut names: Vec<&str> = names.into_iter().collect();
    names.sort_unstable();
    Err(format!(
        "blob files {} cover row ids {merged:?}, not the row-id group's {first}..={last}",
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evolution::RowIdRange;

    fn blob(name: &str, first: i64, rows: i64, max_seq: i64) -> DataFileDesc {
        DataFileDesc {
            first_row_id: Some(first),
            write_cols: Some(vec!["b".into()]),
            ..DataFileDesc::for_test(name, rows, max_seq)
        }
    }

    #[test]
    fn a_bunch_must_cover_the_group_rows_exactly_and_not_overlap_within_a_sequence() {
        // Two files of one update rolled over (rows 0-2 and 3-5) and an older file of all six: covered.
        let (a, b, c) = (
            blob("a.blob", 0, 3, 2),
            blob("b.blob", 3, 3, 2),
            blob("c.blob", 0, 6, 1),
        );
        let files = [&a, &b, &c];
        let ranges: Vec<(i64, i64)> = files.iter().map(|f| f.range().unwrap()).collect();
        assert_eq!(check_covers(&files, &ranges, (0, 5)), Ok(()));
        // Rows 0-4 only, for a group of 0-5.
        let short = blob("d.blob", 0, 5, 1);
        let err = check_covers(&[&short], &[(0, 4)], (0, 5)).unwrap_err();
        assert!(err.contains("d.blob") && err.contains("0..=5"), "{err}");
        // Two files of one sequence number that overlap: refused before any file is read.
        let (e, f) = (blob("e.blob", 0, 4, 3), blob("f.blob", 2, 4, 3));
        let err = read_bunch(&[&e, &f], (0, 5), "/nowhere/bucket-0", false).unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{err}");
        assert!(err.to_string().contains("e.blob and f.blob"), "{err}");
    }
}
