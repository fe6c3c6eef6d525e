//! `$files`' value stats columns (`null_value_counts`, `min_value_stats`, `max_value_stats`): a file's
//! `_VALUE_STATS` evolved to the table's current columns as `SimpleStatsEvolutions` /
//! `SimpleStatsEvolution.evolution` do, then rendered as `TreeMap.toString` of column name → value.
//!
//! Evolution of one file's stats, in the Java order:
//! 1. dense stats (`_VALUE_STATS_COLS` set): the stats row holds only those columns; each column of the
//!    file's schema takes the position of its name there, NULL (value and null count) when absent; an
//!    empty list means no stats at all;
//! 2. another schema than the table's (2.0: or a file with `_WRITE_COLS`, whose schema is first cut down
//!    to those columns): the table's columns are matched to the file's by field id
//!    (`SchemaEvolutionUtil.createIndexMapping`); a column the file lacks has NULL bounds and the file's
//!    row count as null count;
//! 3. a column whose type changed (ignoring nullability): its bounds are read as the file's type and cast
//!    to the table's (`CastFieldGetter`, [`crate::decode::cast`]).
//!
//! The map lists the table's columns up to the evolved row's field count (1.0 to 1.2: more fields than the
//! table has make the released reader fail; from 1.3 the smaller count), each value as its internal Java
//! object prints (`Datum::to_legacy_string`: DATE as its day number, TIME as milliseconds).

use std::collections::HashMap;
use std::sync::Arc;

use crate::binary_row::BinaryRow;
use crate::error::{Error, Result};
use crate::line::FilesTable;
use crate::manifest::DataFileMeta;
use crate::schema::DataField;
use crate::table::Table;
use crate::value::Datum;

/// What `$files` shows for a BINARY/VARBINARY stats bound: Java prints the `byte[]`'s object identity
/// (`[B@1b6d3586`), different in every JVM, so the comparison replaces the released reader's with this mark
/// (`harness::system_tables`) and counts it.
pub const BINARY_IDENTITY: &str = "[B@<identity>";

/// One `SimpleStatsEvolution`: the file side's columns, the table → file column mapping, and whether any
/// column is cast.
struct Evolution {
    /// The file's columns (`fieldNames` of the evolution), cut to `_WRITE_COLS` on 2.0.
    data_fields: Vec<DataField>,
    /// Table column → file column position (`None` for a column the file lacks); `None` when the
    /// mapping is the identity (`createIndexMapping` returns null).
    index_mapping: Option<Vec<Option<usize>>>,
    /// Some column's type differs from the file's (`createCastFieldGetterMapping` returns getters).
    casts: bool,
}

/// `SimpleStatsEvolutions` of one `$files` read: the table's current columns and an evolution per (schema
/// id, write columns).
pub(super) struct Evolutions<'t> {
    table: &'t Table,
    rule: FilesTable,
    table_fields: Vec<DataField>,
    cache: HashMap<(i64, Option<Vec<String>>), Arc<Evolution>>,
}

impl<'t> Evolutions<'t> {
    /// The evolutions of `table`, to its current schema.
    ///
    /// Errors: none yet (the schema is loaded); kept fallible for the schema reads it may do.
    pub(super) fn new(table: &'t Table) -> Result<Self> {
        Ok(Evolutions {
            table,
            rule: table.release().rules().files_table,
            table_fields: table.schema().fields.clone(),
            cache: HashMap::new(),
        })
    }

    fn evolution(&mut self, file: &DataFileMeta) -> Result<Arc<Evolution>> {
        let write_cols = if self.rule >= FilesTable::WriteColsStats {
            file.write_cols.clone()
        } else {
            None
        };
        let key = (file.schema_id, write_cols);
        if let Some(e) = self.cache.get(&key) {
            return Ok(e.clone());
        }
        let schema = self.table.schema_by_id(file.schema_id)?;
        let evolution = if file.schema_id == self.table.schema().id && key.1.is_none() {
            Evolution {
                data_fields: schema.fields.clone(),
                index_mapping: None,
                casts: false,
            }
        } else {
            let mut data_fields = schema.fields.clone();
            if let Some(cols) = &key.1 {
                data_fields = cols
                    .iter()
                    .filter_map(|c| schema.fields.iter().find(|f| f.name == *c).cloned())
                    .collect();
            }
            let by_id: HashMap<i32, usize> = data_fields
                .iter()
                .enumerate()
                .map(|(i, f)| (f.id, i))
                .collect();
            let mapping: Vec<Option<usize>> = self
                .table_fields
                .iter()
                .map(|f| by_id.get(&f.id).copied())
                .collect();
            let identity = mapping.iter().enumerate().all(|(i, m)| *m == Some(i));
            let casts = mapping.iter().enumerate().any(|(i, m)| {
                m.and_then(|d| data_fields.get(d)).is_some_and(|d| {
                    self.table_fields
                        .get(i)
                        .is_some_and(|t| t.data_type.kind != d.data_type.kind)
                })
            });
            Evolution {
                data_fields,
                index_mapping: (!identity).then_some(mapping),
                casts,
            }
        };
        let evolution = Arc::new(evolution);
        self.cache.insert(key, evolution.clone());
        Ok(evolution)
    }

    /// `null_value_counts`, `min_value_stats` and `max_value_stats` of `file`.
    ///
    /// Errors: [`Error::Unsupported`] naming the table and the file for stats this reader does not
    /// reproduce: none recorded, a position outside the stats row, a cast that fails, and on 1.0 to 1.2 more stats fields than the table has
    /// (the released reader fails); schema errors naming the schema file.
    pub(super) fn render(&mut self, file: &DataFileMeta) -> Result<[String; 3]> {
        let evolution = self.evolution(file)?;
        let table = self.table;
        let refuse = |what: String| Error::Unsupported {
            path: table.meta_path().to_path_buf(),
            reason: format!(
                "system table `files`, data file `{}`: {what}",
                file.file_name
            ),
        };
        let stats = file
            .value_stats
            .as_ref()
            .ok_or_else(|| refuse("no `_VALUE_STATS`".into()))?;
        let min = BinaryRow::from_serialized(&stats.min_values)
            .map_err(|e| refuse(format!("min values: {}", e.0)))?;
        let max = BinaryRow::from_serialized(&stats.max_values)
            .map_err(|e| refuse(format!("max values: {}", e.0)))?;
        let null_counts = stats
            .null_counts
            .as_ref()
            .ok_or_else(|| refuse("null `_NULL_COUNTS`".into()))?;
        let dense = file.value_stats_cols.as_ref();
        let table_count = self.table_fields.len();
        let count = if evolution.index_mapping.is_some() {
            table_count
        } else if dense.is_some() {
            evolution.data_fields.len()
        } else {
            min.arity()
        };
        let count = if self.rule >= FilesTable::AllLevels {
            count.min(table_count)
        } else if count > table_count {
            return Err(refuse(format!(
                "{count} stats fields for the table's {table_count} columns (the released reader \
                 fails on them)"
            )));
        } else {
            count
        };
        let rules = table.release().rules();
        let mut entries: Vec<(&str, String, String, String)> = Vec::with_capacity(count);
        for (i, field) in self.table_fields.iter().enumerate().take(count) {
            let data = match &evolution.index_mapping {
                Some(m) => m.get(i).copied().flatten(),
                None => Some(i),
            };
            let raw = match (data, dense) {
                (None, _) => None,
                (Some(d), None) => Some(d),
                (Some(d), Some(cols)) => evolution
                    .data_fields
                    .get(d)
                    .and_then(|f| cols.iter().position(|c| *c == f.name)),
            };
            let null_count = match (data, raw) {
                (None, _) if evolution.index_mapping.is_some() => Some(file.row_count),
                (_, None) => None,
                (_, Some(r)) => *null_counts
                    .get(r)
                    .ok_or_else(|| refuse(format!("no null count at position {r}")))?,
            };
            let read_type = match (evolution.casts, data) {
                (true, Some(d)) => evolution
                    .data_fields
                    .get(d)
                    .map(|f| &f.data_type)
                    .ok_or_else(|| refuse(format!("no column at position {d}")))?,
                _ => &field.data_type,
            };
            let mut bounds = [String::new(), String::new()];
            for (slot, row) in bounds.iter_mut().zip([&min, &max]) {
                let value = match raw {
                    None => Datum::Null,
                    Some(r) if r >= row.arity() => {
                        return Err(refuse(format!(
                            "stats position {r} outside the stats row of {} fields",
                            row.arity()
                        )))
                    }
                    Some(r) => row.get(r, read_type).map_err(|e| {
                        let write_cols = if file.write_cols.is_some() {
                            " (a file holding only its `_WRITE_COLS`, whose stats this release reads \
                             at the positions of all its schema's columns: the released reader prints \
                             whatever the bytes there hold)"
                        } else {
                            ""
                        };
                        refuse(format!("stats of `{}`: {}{write_cols}", field.name, e.0))
                    })?,
                };
                let value = if evolution.casts {
                    crate::decode::cast::cast_datum(value, read_type, &field.data_type, rules)
                        .map_err(|e| refuse(format!("stats of `{}`: {e}", field.name)))?
                } else {
                    value
                };
                // A BINARY/VARBINARY bound prints as Java's object identity (`[B@1b6d3586`), which no
                // reader can reproduce: written as the mark the comparison puts in its place.
                *slot = match value {
                    Datum::Bytes(_) => BINARY_IDENTITY.to_owned(),
                    value => value
                        .to_legacy_string()
                        .map_err(|e| refuse(format!("stats of `{}`: {}", field.name, e.0)))?
                        .unwrap_or_else(|| "null".into()),
                };
            }
            let [lower, upper] = bounds;
            let nulls = null_count.map_or_else(|| "null".to_owned(), |n| n.to_string());
            entries.push((field.name.as_str(), nulls, lower, upper));
        }
        // `TreeMap<String, …>`: Java string order (UTF-16 code units).
        entries.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
        let map = |pick: usize| {
            let parts: Vec<String> = entries
                .iter()
                .map(|e| {
                    let value = match pick {
                        0 => &e.1,
                        1 => &e.2,
                        _ => &e.3,
                    };
                    format!("{}={value}", e.0)
                })
                .collect();
            format!("{{{}}}", parts.join(", "))
        };
        Ok([map(0), map(1), map(2)])
    }
}
