//! `blob-view-field` values resolved, as 2.0's `DataEvolutionTableRead` resolves them for a reader that
//! opened the table through a catalog: each value of a view column is a `BlobViewStruct` (an upstream
//! table `db.t`, a field id and a row id), and the reader gets that upstream row's BLOB instead.
//!
//! * The upstream table is `<warehouse>/<db>.db/<t>` ([`crate::table::warehouse_of`]), read at its latest
//!   snapshot with `blob-as-descriptor` and `_ROW_ID` (`BlobViewLookup`'s preload), once per open table and
//!   field ([`Table::blob_view_cache`]). Memory: one serialized descriptor per upstream row of that field.
//! * A view whose upstream value is NULL reads as NULL (`BlobViewResolvingRow.isNullAt`); a NULL view is
//!   NULL.
//! * The value is the upstream BLOB's payload, or its serialized descriptor (the upstream's `.blob` file,
//!   offset and length) when the view table has `blob-as-descriptor` (`BlobView.toDescriptor`).
//!
//! Errors, as the released reader fails: a value that is not a view (`IllegalArgumentException`), an
//! upstream table or field that does not exist, a row id the upstream does not hold ("not found in
//! preloaded cache").

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BinaryArray, RecordBatch};

use crate::decode::blob_ref::{is_view, view, Packs};
use crate::error::{Error, ErrorKind, Result};
use crate::scan::{plan, ScanMode};
use crate::table::{warehouse_of, Table};

/// Upstream values of one (table, field): row id -> serialized descriptor, `None` for NULL.
type Values = Arc<HashMap<i64, Option<Vec<u8>>>>;

/// The view columns of a split's batches and how their values come back.
pub(crate) struct BlobViews {
    table: Arc<Table>,
    /// Names of the view columns (looked up in each batch's schema).
    columns: Vec<String>,
    /// Serialized descriptors instead of payloads (`blob-as-descriptor` of the view table).
    descriptors: bool,
    packs: Packs,
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
        })
    }

    /// `batch` with every view column's values resolved.
    ///
    /// Errors: see the module doc; each names the view table and the view.
    pub(crate) fn resolve(&mut self, batch: RecordBatch) -> Result<RecordBatch> {
        let mut columns = batch.columns().to_vec();
        for name in self.columns.clone() {
            let Ok(at) = batch.schema().index_of(&name) else {
                continue;
            };
            columns[at] = self.resolve_column(&columns[at])?;
        }
        RecordBatch::try_new(batch.schema(), columns)
            .map_err(|e| Error::library(ErrorKind::Decode, self.table.path(), "", e))
    }

    fn resolve_column(&mut self, array: &ArrayRef) -> Result<ArrayRef> {
        let path = self.table.path().to_path_buf();
        let bad = |reason: String| Error::Decode {
            path: path.clone(),
            reason,
        };
        let binary = arrow_cast::cast(array, &arrow_schema::DataType::Binary).map_err(|e| {
            bad(format!(
                "a BLOB view column of type {}: {e}",
                array.data_type()
            ))
        })?;
        let mut out: Vec<Option<Vec<u8>>> = Vec::with_capacity(binary.len());
        for stored in binary.as_binary::<i32>().iter() {
            let Some(bytes) = stored else {
                out.push(None);
                continue;
            };
            if !is_view(bytes) {
                return Err(bad(
                    "blob-view-field requires blob field value to be a serialized BlobViewStruct"
                        .into(),
                ));
            }
            let (identifier, field_id, row_id) =
                view(bytes).map_err(|r| bad(format!("Invalid BlobViewStruct data: {r}")))?;
            let values = self.upstream(&identifier, field_id)?;
            let struct_name = format!(
                "BlobViewStruct{{identifier={}, fieldId={}, rowId={}}}",
                identifier.as_str(),
                field_id,
                row_id
            );
            match values.get(&row_id) {
                None => {
                    return Err(bad(format!(
                    "{struct_name}: the upstream table holds no row {row_id} (the released reader \
                         fails: not found in preloaded cache)"
                )))
                }
                Some(None) => out.push(None),
                Some(Some(descriptor)) if self.descriptors => out.push(Some(descriptor.clone())),
                Some(Some(descriptor)) => out.push(Some(self.packs.payload(descriptor, &path)?)),
            }
        }
        let resolved: ArrayRef = Arc::new(BinaryArray::from_iter(out));
        if resolved.data_type() == array.data_type() {
            Ok(resolved)
        } else {
            arrow_cast::cast(&resolved, array.data_type()).map_err(|e| bad(e.to_string()))
        }
    }

    /// The values of `field_id` in the upstream table `identifier`, read once per open table.
    fn upstream(&self, identifier: &str, field_id: i32) -> Result<Values> {
        let key = (identifier.to_owned(), field_id);
        if let Some(values) = self.table.blob_view_cache().lock().unwrap().get(&key) {
            return Ok(values.clone());
        }
        let values = Arc::new(load(&self.table, identifier, field_id)?);
        self.table
            .blob_view_cache()
            .lock()
            .unwrap()
            .insert(key, values.clone());
        Ok(values)
    }
}

/// Where the upstream table `identifier` (`db.t`) of a view of `table` is.
///
/// Errors: [`Error::Unsupported`] for an identifier without a database, or naming a branch or system
/// table (`$`).
fn upstream_path(table: &Table, identifier: &str) -> Result<PathBuf> {
    match identifier.split_once('.') {
        Some((db, name)) if !db.is_empty() && !name.is_empty() && !identifier.contains('$') => {
            Ok(warehouse_of(table.path())
                .join(format!("{db}.db"))
                .join(name))
        }
        _ => Err(Error::Unsupported {
            path: table.path().to_path_buf(),
            reason: format!(
                "a BLOB view of `{identifier}`: only an upstream table `database.table` of the view \
                 table's warehouse is resolved"
            ),
        }),
    }
}

/// `BlobViewLookup.loadTableDescriptorChunk` for every row: the upstream's `field_id` of each `_ROW_ID`,
/// as its serialized descriptor (`blob-as-descriptor`), at the latest snapshot.
fn load(table: &Table, identifier: &str, field_id: i32) -> Result<HashMap<i64, Option<Vec<u8>>>> {
    let path = upstream_path(table, identifier)?;
    let upstream = Table::open_as(&path, table.release())?;
    let Some(field) = upstream
        .schema()
        .fields
        .iter()
        .find(|f| f.id == field_id)
        .map(|f| f.name.clone())
    else {
        return Err(Error::Decode {
            path: Path::new(&path).to_path_buf(),
            reason: format!("Cannot find blob fieldId {field_id} in upstream table {identifier}."),
        });
    };
    let mut values = HashMap::new();
    let Some(_) = upstream.latest_snapshot_id()? else {
        return Ok(values);
    };
    let upstream = Arc::new(
        upstream
            .with_row_tracking_columns()
            .with_blob_as_descriptor(),
    );
    let bad = |reason: String| Error::Decode {
        path: path.clone(),
        reason,
    };
    for split in plan(&upstream, ScanMode::Batch { snapshot: None }, i64::MAX)? {
        for batch in super::read_split(&upstream, &split, 4096)? {
            let batch = batch?;
            let (Some(ids), Some(blobs)) = (
                batch.column_by_name("_ROW_ID"),
                batch.column_by_name(&field),
            ) else {
                return Err(bad(format!(
                    "the upstream read has no `_ROW_ID` or `{field}` column"
                )));
            };
            let ids = arrow_cast::cast(ids, &arrow_schema::DataType::Int64)
                .map_err(|e| bad(e.to_string()))?;
            let blobs = arrow_cast::cast(blobs, &arrow_schema::DataType::Binary)
                .map_err(|e| bad(e.to_string()))?;
            let ids = ids.as_primitive::<arrow_array::types::Int64Type>();
            for (id, blob) in ids.iter().zip(blobs.as_binary::<i32>().iter()) {
                if let Some(id) = id {
                    values.insert(id, blob.map(<[u8]>::to_vec));
                }
            }
        }
    }
    Ok(values)
}
