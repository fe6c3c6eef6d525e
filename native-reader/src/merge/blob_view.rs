//! `blob-view-field` values resolved, as 2.0's `DataEvolutionTableRead` resolves them for a reader that
//! opened the table through a catalog: each value of a view column is a `BlobViewStruct` (an upstream
//! table `db.t`, a field id and a row id), and the reader gets that upstream row's BLOB instead.
//!
//! * The upstream table is `<warehouse>/<db>.db/<t>` ([`crate::table::warehouse_of`]; `db.t$branch_<b>`
//!   names its branch `b`), planned once per open table at its latest snapshot ([`Table::blob_view_cache`]).
//!   For each batch, the upstream files whose row-id ranges hold a row the batch's views name are read,
//!   with `blob-as-descriptor` and `_ROW_ID` (`BlobViewLookup`'s preload, `withRowRanges`), and their rows
//!   kept for the split's later batches. Memory: the upstream plan, and one descriptor per row of the
//!   upstream files the split's views name.
//! * A view whose upstream value is NULL reads as NULL (`BlobViewResolvingRow.isNullAt`); a NULL view is
//!   NULL.
//! * The value is the upstream BLOB's payload, or its serialized descriptor (the upstream's `.blob` file,
//!   offset and length) when the view table has `blob-as-descriptor` (`BlobView.toDescriptor`).
//!
//! Errors, as the released reader fails: a value that is not a view (`IllegalArgumentException`), an
//! upstream table or field that does not exist, a row id the upstream does not hold ("not found in
//! preloaded cache").

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BinaryArray, RecordBatch};

use crate::decode::blob_ref::{is_view, view, Packs};
use crate::error::{Error, ErrorKind, Result};
use crate::scan::{plan, ScanMode};
use crate::split::Split;
use crate::table::{warehouse_of, Table};

/// A view: (upstream table identifier, field id, row id).
type ViewKey = (String, i32, i64);

/// An upstream table, opened and planned once per open view table.
struct Upstream {
    table: Arc<Table>,
    /// Its batch plan at the latest snapshot (empty without one).
    splits: Vec<Split>,
}

/// The view columns of a split's batches and how their values come back.
pub(crate) struct BlobViews {
    table: Arc<Table>,
    /// Names of the view columns (looked up in each batch's schema).
    columns: Vec<String>,
    /// Serialized descriptors instead of payloads (`blob-as-descriptor` of the view table).
    descriptors: bool,
    packs: Packs,
    /// The upstream values read so far in this split (every row of the upstream files read, for the fields
    /// its views name): a serialized descriptor, `None` for NULL.
    values: HashMap<ViewKey, Option<Vec<u8>>>,
}

impl BlobViews {
    /// The resolution for reads of `table`, `None` when it has no view column to resolve
    /// ([`Table::blob_view_fields`]).
    pub(crate) fn new(table: &Arc<Table>) -> Option<BlobViews> {
        let columns = table.blob_view_fields();
        (!columns.is_empty()).then(|| BlobViews {
            table: table.clone(),
            columns,
            descriptors: table.blob_as_descriptor(),
            packs: Packs::default(),
            values: HashMap::new(),
        })
    }

    /// `batch` with every view column's values resolved.
    ///
    /// Errors: see the module doc; each names the view table or the upstream table.
    pub(crate) fn resolve(&mut self, batch: RecordBatch) -> Result<RecordBatch> {
        let mut columns = batch.columns().to_vec();
        let mut views: Vec<(usize, Vec<Option<ViewKey>>)> = Vec::new();
        for name in &self.columns {
            if let Ok(at) = batch.schema().index_of(name) {
                views.push((at, self.views_of(&columns[at])?));
            }
        }
        // The upstream rows this batch names and this split has not read yet, by upstream table.
        let mut missing: BTreeMap<String, BTreeSet<(i32, i64)>> = BTreeMap::new();
        for key in views.iter().flat_map(|(_, keys)| keys.iter().flatten()) {
            if !self.values.contains_key(key) {
                missing
                    .entry(key.0.clone())
                    .or_default()
                    .insert((key.1, key.2));
            }
        }
        for (identifier, wanted) in missing {
            self.load(&identifier, &wanted)?;
        }
        for (at, keys) in views {
            columns[at] = self.resolved(&columns[at], &keys)?;
        }
        RecordBatch::try_new(batch.schema(), columns)
            .map_err(|e| Error::library(ErrorKind::Decode, self.table.path(), "", e))
    }

    fn bad(&self, reason: String) -> Error {
        Error::Decode {
            path: self.table.path().to_path_buf(),
            reason,
        }
    }

    /// The view of each value of a view column (`None` for NULL).
    fn views_of(&self, array: &ArrayRef) -> Result<Vec<Option<ViewKey>>> {
        let binary = arrow_cast::cast(array, &arrow_schema::DataType::Binary).map_err(|e| {
            self.bad(format!(
                "a BLOB view column of type {}: {e}",
                array.data_type()
            ))
        })?;
        binary
            .as_binary::<i32>()
            .iter()
            .map(|stored| {
                let Some(bytes) = stored else {
                    return Ok(None);
                };
                if !is_view(bytes) {
                    return Err(self.bad(
                        "blob-view-field requires blob field value to be a serialized \
                         BlobViewStruct"
                            .into(),
                    ));
                }
                view(bytes)
                    .map(Some)
                    .map_err(|r| self.bad(format!("Invalid BlobViewStruct data: {r}")))
            })
            .collect()
    }

    /// The view column `array` with each view replaced by its upstream value (all read by now).
    fn resolved(&mut self, array: &ArrayRef, keys: &[Option<ViewKey>]) -> Result<ArrayRef> {
        let path = self.table.path().to_path_buf();
        let mut out: Vec<Option<Vec<u8>>> = Vec::with_capacity(keys.len());
        for key in keys {
            let Some(key) = key else {
                out.push(None);
                continue;
            };
            match self.values.get(key) {
                None => {
                    return Err(self.bad(format!(
                        "BlobViewStruct{{identifier={}, fieldId={}, rowId={}}}: the upstream table \
                         holds no such row (the released reader fails: not found in preloaded cache)",
                        key.0, key.1, key.2
                    )))
                }
                Some(None) => out.push(None),
                Some(Some(descriptor)) if self.descriptors => out.push(Some(descriptor.clone())),
                Some(Some(descriptor)) => {
                    let descriptor = descriptor.clone();
                    out.push(Some(self.packs.payload(&descriptor, &path)?));
                }
            }
        }
        let resolved: ArrayRef = Arc::new(BinaryArray::from_iter(out));
        if resolved.data_type() == array.data_type() {
            Ok(resolved)
        } else {
            arrow_cast::cast(&resolved, array.data_type()).map_err(|e| self.bad(e.to_string()))
        }
    }

    /// The upstream table `identifier`, opened and planned once per open view table.
    fn upstream(&self, identifier: &str) -> Result<Arc<Upstream>> {
        let cache = self.table.blob_view_cache();
        // A poisoned lock (a reader thread panicked while inserting) still holds a usable map.
        if let Some(found) = cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(identifier)
        {
            if let Ok(upstream) = found.clone().downcast::<Upstream>() {
                return Ok(upstream);
            }
        }
        let (path, branch) = upstream_path(&self.table, identifier)?;
        let table = Table::open_branch(&path, branch.as_deref(), self.table.release())?
            .with_row_tracking_columns()
            .with_blob_as_descriptor();
        let splits = match table.latest_snapshot_id()? {
            Some(_) => plan(&table, ScanMode::Batch { snapshot: None }, i64::MAX)?,
            None => Vec::new(),
        };
        let upstream = Arc::new(Upstream {
            table: Arc::new(table),
            splits,
        });
        cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(identifier.to_owned(), upstream.clone());
        Ok(upstream)
    }

    /// `BlobViewLookup.loadTableDescriptorChunk`: the `wanted` (field id, row id) values of the upstream
    /// `identifier`, from the files whose row-id ranges hold one of their rows, into [`Self::values`].
    ///
    /// Errors: [`Error::Decode`] naming the upstream table for a field id it does not have, and the errors
    /// of opening, planning and reading it.
    fn load(&mut self, identifier: &str, wanted: &BTreeSet<(i32, i64)>) -> Result<()> {
        let upstream = self.upstream(identifier)?;
        // Each field the views name, looked up once (not once per wanted row).
        let field_ids: BTreeSet<i32> = wanted.iter().map(|(field, _)| *field).collect();
        let mut fields: BTreeMap<i32, String> = BTreeMap::new();
        for field_id in field_ids {
            let Some(field) = upstream
                .table
                .schema()
                .fields
                .iter()
                .find(|f| f.id == field_id)
            else {
                return Err(Error::Decode {
                    path: upstream.table.path().to_path_buf(),
                    reason: format!(
                        "Cannot find blob fieldId {field_id} in upstream table {identifier}."
                    ),
                });
            };
            fields.insert(field_id, field.name.clone());
        }
        let rows: BTreeSet<i64> = wanted.iter().map(|(_, row)| *row).collect();
        let holds = |first: i64, count: i64| {
            rows.range(first..first.saturating_add(count))
                .next()
                .is_some()
        };
        let bad = |reason: String| Error::Decode {
            path: upstream.table.path().to_path_buf(),
            reason,
        };
        for split in &upstream.splits {
            // Only the files holding a wanted row (`withRowRanges`), with their deletion vectors.
            let keep: Vec<usize> = (0..split.data_files.len())
                .filter(|&i| {
                    let f = &split.data_files[i];
                    f.first_row_id
                        .is_some_and(|first| holds(first, f.row_count))
                })
                .collect();
            if keep.is_empty() {
                continue;
            }
            let part = Split {
                data_files: keep.iter().map(|&i| split.data_files[i].clone()).collect(),
                deletion_files: if split.deletion_files.is_empty() {
                    Vec::new()
                } else {
                    keep.iter()
                        .map(|&i| split.deletion_files[i].clone())
                        .collect()
                },
                ..split.clone()
            };
            for batch in super::read_split(&upstream.table, &part, 4096)? {
                let batch = batch?;
                let ids = batch
                    .column_by_name("_ROW_ID")
                    .ok_or_else(|| bad("the upstream read has no `_ROW_ID` column".into()))?;
                let ids = arrow_cast::cast(ids, &arrow_schema::DataType::Int64)
                    .map_err(|e| bad(e.to_string()))?;
                let ids = ids.as_primitive::<arrow_array::types::Int64Type>();
                for (field_id, name) in &fields {
                    let blobs = batch
                        .column_by_name(name)
                        .ok_or_else(|| bad(format!("the upstream read has no `{name}` column")))?;
                    let blobs = arrow_cast::cast(blobs, &arrow_schema::DataType::Binary)
                        .map_err(|e| bad(e.to_string()))?;
                    // Every row of the files read is kept, not only the wanted ones: the split's later
                    // batches name rows of the same files without reading them again.
                    for (id, blob) in ids.iter().zip(blobs.as_binary::<i32>().iter()) {
                        if let Some(id) = id {
                            self.values.insert(
                                (identifier.to_owned(), *field_id, id),
                                blob.map(<[u8]>::to_vec),
                            );
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
/// Where the upstream table `identifier` (`db.t`, or `db.t$branch_<b>` for a branch of it, as
/// `Identifier.fromString` reads it) of a view of `table` is: its directory and branch.
///
/// Errors: [`Error::Unsupported`] for an identifier without a database, or naming a system table.
fn upstream_path(table: &Table, identifier: &str) -> Result<(PathBuf, Option<String>)> {
    let refuse = || {
        Error::Unsupported {
        path: table.path().to_path_buf(),
        reason: format!(
            "a BLOB view of `{identifier}`: only an upstream table `database.table` (or a branch of it, \
             `database.table$branch_<name>`) of the view table's warehouse is resolved"
        ),
    }
    };
    let Some((db, name)) = identifier.split_once('.') else {
        return Err(refuse());
    };
    let (name, branch) = match name.split_once("$branch_") {
        Some((name, branch)) if !branch.is_empty() && !branch.contains('$') => {
            (name, Some(branch.to_owned()))
        }
        _ => (name, None),
    };
    if db.is_empty() || name.is_empty() || name.contains('$') {
        return Err(refuse());
    }
    Ok((
        warehouse_of(table.path())
            .join(format!("{db}.db"))
            .join(name),
        branch,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line::PaimonRelease;
    use crate::scan::plan;
    use std::path::Path;

    /// `corpora/c47-blob-view`'s view table read natively: (id, image) of every row in batch.
    fn read_ids_and_images(table: &Path) -> Result<Vec<(i32, Option<Vec<u8>>)>> {
        let table = Arc::new(Table::open_as(table, PaimonRelease::V2_0_0)?);
        let mut rows = Vec::new();
        for split in plan(&table, ScanMode::Batch { snapshot: None }, i64::MAX)? {
            for batch in crate::merge::read_split(&table, &split, 2)? {
                let batch = batch?;
                let ids = batch.column_by_name("id").unwrap();
                let ids = ids.as_primitive::<arrow_array::types::Int32Type>();
                let images = arrow_cast::cast(
                    batch.column_by_name("image").unwrap(),
                    &arrow_schema::DataType::Binary,
                )
                .unwrap();
                for (id, image) in ids.iter().zip(images.as_binary::<i32>().iter()) {
                    rows.push((id.unwrap(), image.map(<[u8]>::to_vec)));
                }
            }
        }
        Ok(rows)
    }

    #[test]
    fn views_read_as_the_upstream_rows_the_scenario_wrote() {
        let corpus =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora/c47-blob-view/paimon-2.0.0");
        // The scenario's own writes: upstream rows 0-4 hold 00 01 02, 01 x4, NULL, 03 x10 and the empty
        // BLOB, and row 0 of its branch `b1` 05 x3; the views name rows 0, 2, (none), 3, 1, 3, 4 and b1's 0. Batches of 2 rows: views of one upstream row
        // in two batches are read twice.
        let expected: Vec<(i32, Option<Vec<u8>>)> = vec![
            (10, Some(vec![0, 1, 2])),
            (11, None),
            (12, None),
            (13, Some(vec![3; 10])),
            (14, Some(vec![1; 4])),
            (15, Some(vec![3; 10])),
            (16, Some(Vec::new())),
            (17, Some(vec![5; 3])),
        ];
        assert_eq!(
            read_ids_and_images(&corpus.join("table")).unwrap(),
            expected
        );
        // Without its upstream table (the view table copied alone), the read fails naming where the
        // upstream should be.
        let alone = tempfile::tempdir().unwrap();
        copy(&corpus.join("table"), &alone.path().join("table"));
        let err = read_ids_and_images(&alone.path().join("table"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("media.db/images"), "{err}");
    }

    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &to.join(entry.file_name()));
            } else {
                std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
            }
        }
    }
}
