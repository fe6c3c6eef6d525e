//! The vector-store files of a row-id group, read as Paimon 2.0 reads them (`DataEvolutionSplitRead`'s
//! `VectorFileBunch`): with `vector.file.format` set, an append table's VECTOR columns are written to their
//! own files (`.vector.<format>`, `DedicatedFormatRollingFileWriter`), and an update of them writes new ones.
//!
//! A group's vector-store files are split into bunches by `(_SCHEMA_ID, format, _WRITE_COLS)` (the columns
//! in their schema's order), bunches ordered by that key (`VectorStoreBunchKey.compareTo`). Inside a bunch
//! the files are taken by first row id, the newest (`_MAX_SEQUENCE_NUMBER`) first, and chained: a file
//! with the first row id of the file before it, or starting inside its rows, is an older version and is
//! skipped; a file that starts after a gap, or one that is newer than the chain it overlaps, fails the
//! read, as it does in the released reader. The chain is read file after file. 1.4 chains the `.blob`
//! files of each column the same way ([`chain`], `SpecialFieldBunch`).

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashSet};

use crate::error::{Error, Result};
use crate::split::DataFileDesc;
use crate::table::Table;

/// Whether `file` is a vector-store file (`VectorType.isVectorStoreFile`: `.vector.` in its name).
pub(crate) fn is_vector_store_file(file: &DataFileDesc) -> bool {
    file.file_name.contains(".vector.")
}

/// `VectorStoreBunchKey`: what the files of one bunch share.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BunchKey {
    schema_id: i64,
    /// The format identifier of the file name (`DataFilePathFactory.formatIdentifier`: after the last dot).
    format: String,
    /// `_WRITE_COLS` ordered by position in the file's schema (unknown names last, then by name).
    write_cols: Vec<String>,
}

impl Ord for BunchKey {
    fn cmp(&self, other: &Self) -> Ordering {
        // `compareTo`: schema id, format, then the columns name by name, a prefix first.
        (self.schema_id, &self.format, &self.write_cols).cmp(&(
            other.schema_id,
            &other.format,
            &other.write_cols,
        ))
    }
}

impl PartialOrd for BunchKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// One bunch of a row-id group: the files read one after another, and the field ids they hold.
pub(crate) struct VectorBunch<'a> {
    /// The chained files, by first row id.
    pub(crate) files: Vec<&'a DataFileDesc>,
    /// The field ids of the bunch's schema projected on its `_WRITE_COLS`.
    pub(crate) field_ids: HashSet<i32>,
}

/// The vector-store files `files` of a row-id group in their bunches, in the released reader's order
/// (`splitFieldBunches`), each chained as `VectorFileBunch.add` chains it. `expected_rows` is the row count
/// of the group's data files (`None` when it has none): a chain may not hold more rows.
///
/// Errors: [`Error::Unsupported`] naming `bucket_path` and the files, with the released reader's reason, when
/// a chain has a gap (`Vector file first row id should be continuous`), a newer file overlaps an older
/// chain (`… should have decreasing sequence number`), or a chain holds more rows than the group's data
/// files; schema errors of [`Table::schema_by_id`].
pub(crate) fn bunches<'a>(
    table: &Table,
    files: &[&'a DataFileDesc],
    expected_rows: Option<i64>,
    bucket_path: &str,
) -> Result<Vec<VectorBunch<'a>>> {
    let refuse = |reason: String| Error::Unsupported {
        path: bucket_path.into(),
        reason,
    };
    // Every file needs a first row id ([`chain`] orders each bunch's files by it).
    crate::evolution::row_id_ranges(files, bucket_path)?;
    let mut keyed: BTreeMap<BunchKey, (Vec<&'a DataFileDesc>, HashSet<i32>)> = BTreeMap::new();
    for &file in files {
        let schema = table.schema_by_id(file.schema_id)?;
        let position = |name: &str| schema.fields.iter().position(|f| f.name == name);
        let mut write_cols = file.write_cols.clone().unwrap_or_default();
        write_cols.sort_by(|a, b| {
            let key = |c: &String| (position(c).unwrap_or(usize::MAX), c.clone());
            key(a).cmp(&key(b))
        });
        let key = BunchKey {
            schema_id: file.schema_id,
            format: file
                .file_name
                .rsplit('.')
                .next()
                .unwrap_or_default()
                .to_owned(),
            write_cols,
        };
        match keyed.entry(key) {
            std::collections::btree_map::Entry::Occupied(mut bunch) => bunch.get_mut().0.push(file),
            std::collections::btree_map::Entry::Vacant(slot) => {
                slot.insert((
                    vec![file],
                    crate::evolution::written_field_ids(table, file)?,
                ));
            }
        }
    }
    keyed
        .into_values()
        .map(|(files, field_ids)| {
            Ok(VectorBunch {
                files: chain(&files, expected_rows, "vector-store").map_err(refuse)?,
                field_ids,
            })
        })
        .collect()
}

/// `VectorFileBunch.add` (1.4: `SpecialFieldBunch.add`) over the files of one bunch, taken by first row id,
/// the newest first (`mergeRangesAndSort`): the files read, one after another. `expected_rows` as for
/// [`bunches`]; `kind` names the files in errors (`vector-store`, `blob`).
///
/// Errors: the reason, naming the files, for a gap, a newer file overlapping the chain, or more rows than
/// `expected_rows`.
pub(crate) fn chain<'a>(
    files: &[&'a DataFileDesc],
    expected_rows: Option<i64>,
    kind: &str,
) -> std::result::Result<Vec<&'a DataFileDesc>, String> {
    // `mergeRangesAndSort`: by first row id, then the newest first (stable).
    let mut sorted = files.to_vec();
    sorted.sort_by_key(|f| {
        let first = f.first_row_id.unwrap_or_default();
        (first, std::cmp::Reverse(f.max_sequence_number))
    });
    let mut out: Vec<&'a DataFileDesc> = Vec::new();
    let mut rows = 0i64;
    for file in sorted {
        let first = file.first_row_id.unwrap_or_default();
        if let Some(last) = out.last() {
            let last_first = last.first_row_id.unwrap_or_default();
            let newer = file.max_sequence_number >= last.max_sequence_number;
            // The same start as the last file (`SpecialFieldBunch`'s first check), or one inside its rows.
            if first == last_first || first < last_first + last.row_count {
                if newer {
                    return Err(format!(
                        "{kind} file {} overlaps the rows of {} but is not older than it; the \
                         released reader fails the same way (`decreasing sequence number`)",
                        file.file_name, last.file_name
                    ));
                }
                continue;
            }
            if first > last_first + last.row_count {
                return Err(format!(
                    "{kind} file {} starts at row id {first}, after a gap from row id {} ({} ends \
                     before); the released reader fails the same way (`should be continuous`)",
                    file.file_name,
                    last_first + last.row_count,
                    last.file_name
                ));
            }
        }
        rows += file.row_count;
        if let Some(expected) = expected_rows.filter(|&e| e > 0 && rows > e) {
            return Err(format!(
                "{kind} files up to {} hold {rows} rows, more than the {expected} of the row-id \
                 group's data files",
                file.file_name
            ));
        }
        out.push(file);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(name: &str, first: i64, rows: i64, max_seq: i64) -> DataFileDesc {
        DataFileDesc {
            first_row_id: Some(first),
            write_cols: Some(vec!["emb".into()]),
            ..DataFileDesc::for_test(name, rows, max_seq)
        }
    }

    #[test]
    fn a_chain_keeps_the_newest_file_of_each_start_and_refuses_gaps_and_newer_overlaps() {
        // Rows 0-5 written as 0-2 and 3-5 (seq 2, 5), rewritten whole later (0-2 and 3-5, seq 8, 9).
        let (a, b) = (vector("a", 0, 3, 2), vector("b", 3, 3, 5));
        let (c, d) = (vector("c", 0, 3, 8), vector("d", 3, 3, 9));
        let names = |files: &[&DataFileDesc]| -> Vec<String> {
            files.iter().map(|f| f.file_name.clone()).collect()
        };
        // Sorted by first row id, newest first: c, a, d, b.
        let got = chain(&[&c, &a, &d, &b], Some(6), "vector-store").unwrap();
        assert_eq!(names(&got), ["c", "d"]);
        // An older file starting inside the chain's rows is skipped too.
        let e = vector("e", 1, 2, 1);
        let got = chain(&[&c, &e, &d], Some(6), "vector-store").unwrap();
        assert_eq!(names(&got), ["c", "d"]);
        // A newer file inside an older chain: the released reader fails.
        let f = vector("f", 1, 2, 10);
        let err = chain(&[&c, &f], Some(6), "vector-store").unwrap_err();
        assert!(err.contains("f overlaps the rows of c"), "{err}");
        // A gap (rows 3-4 missing).
        let g = vector("g", 5, 1, 3);
        let err = chain(&[&c, &g], Some(6), "vector-store").unwrap_err();
        assert!(
            err.contains("starts at row id 5") && err.contains("row id 3"),
            "{err}"
        );
        // More rows than the group's data files.
        let err = chain(&[&c, &d], Some(4), "blob").unwrap_err();
        assert!(
            err.contains("blob files up to d hold 6 rows, more than the 4"),
            "{err}"
        );
    }
}
