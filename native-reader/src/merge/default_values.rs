//! `fields.<f>.default-value` as releases 1.0.0 to 1.2.0 read it (`DefaultValueAssigner`, deprecated in 1.2.0
//! and removed in 1.3.0; [`crate::line::LineRules::read_time_default_values`]).
//!
//! `AbstractDataTableRead#createReader` wraps every data-table read, merged or not, batch or streaming, and
//! so `$audit_log`, `$binlog` and `$ro` too, in a `DefaultValueRow`: a NULL of a column that has a default
//! value reads as that value, whatever the row's RowKind. The default is the option's text cast from STRING
//! to the column's type (`CastExecutors.resolve(STRING, type)`, the cast rules of schema evolution), once
//! per read; a text that does not cast fails the read, as the Java cast throws. The column is found by name
//! in the table's schema: the option's key with every `fields.` and `.default-value` taken out
//! (`CoreOptions#getFieldDefaultValues`). Later releases ignore the option, and so does this module as them.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use arrow::compute::is_not_null;
use arrow::compute::kernels::zip::zip;
use arrow_array::{Array, ArrayRef, RecordBatch, Scalar, StringArray};
use arrow_schema::SchemaRef;

use crate::decode::cast::cast;
use crate::error::{Error, Result};
use crate::options::ValueError;
use crate::schema::{DataType, TypeKind};
use crate::table::Table;

/// The columns of a read that have a default value, each with its value.
pub(crate) struct DefaultValues {
    /// (column index in the read's batches, the default as a one-value array of the column's Arrow type).
    columns: Vec<(usize, ArrayRef)>,
    /// The table's directory, for errors.
    table_path: PathBuf,
}

impl DefaultValues {
    /// The default values of `table`'s columns in batches of `schema` (the read's schema: the table's
    /// columns by name), `None` when the release reads no default value or the table sets none.
    ///
    /// Errors: [`Error::InvalidOption`] naming the option when its text does not cast to the column's type.
    pub(crate) fn of(table: &Table, schema: &SchemaRef) -> Result<Option<DefaultValues>> {
        if !table.release().rules().read_time_default_values {
            return Ok(None);
        }
        let table_schema = table.schema();
        let by_name: HashMap<String, (&String, &String)> = table_schema
            .options
            .iter()
            .filter(|(k, _)| k.starts_with("fields.") && k.ends_with(".default-value"))
            .map(|(k, v)| {
                (
                    k.replace("fields.", "").replace(".default-value", ""),
                    (k, v),
                )
            })
            .collect();
        if by_name.is_empty() {
            return Ok(None);
        }
        let string = DataType {
            kind: TypeKind::VarChar(i32::MAX as u32),
            nullable: true,
        };
        let mut columns = Vec::new();
        for field in &table_schema.fields {
            let (Some((key, text)), Ok(index)) =
                (by_name.get(&field.name), schema.index_of(&field.name))
            else {
                continue;
            };
            let invalid = |why: String| Error::InvalidOption {
                path: table.path().join("schema"),
                key: (*key).clone(),
                reason: ValueError::DefaultValue((*text).clone(), why),
            };
            let text_array: ArrayRef = Arc::new(StringArray::from(vec![text.as_str()]));
            let value = cast(
                &text_array,
                &string,
                &field.data_type,
                field.id,
                table.string_views(),
                table.release().rules(),
            )
            .map_err(|e| invalid(e.to_string()))?;
            // A STRING column's value is the text itself, in the read's layout (views or not).
            let target = schema.field(index).data_type();
            let value = if value.data_type() == target {
                value
            } else {
                arrow::compute::cast(&value, target).map_err(|e| invalid(e.to_string()))?
            };
            columns.push((index, value));
        }
        Ok((!columns.is_empty()).then(|| DefaultValues {
            columns,
            table_path: table.path().to_path_buf(),
        }))
    }

    /// `batch` with each NULL of a column that has a default value replaced by that value
    /// (`DefaultValueRow`); the other columns as they are.
    pub(crate) fn fill(&self, batch: RecordBatch) -> Result<RecordBatch> {
        let failed = |e: arrow_schema::ArrowError| Error::Merge {
            path: self.table_path.clone(),
            reason: format!("filling default values: {e}"),
        };
        let mut arrays = batch.columns().to_vec();
        for (index, value) in &self.columns {
            let Some(column) = arrays.get(*index) else {
                continue;
            };
            if column.null_count() == 0 {
                continue;
            }
            let present = is_not_null(column).map_err(failed)?;
            arrays[*index] = zip(&present, column, &Scalar::new(value.clone())).map_err(failed)?;
        }
        RecordBatch::try_new(batch.schema(), arrays).map_err(failed)
    }
}
