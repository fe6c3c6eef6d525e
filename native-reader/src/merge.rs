//! Reading a split the way the released Paimon 1.0 reader does (`KeyValueTableRead`, `MergeFileSplitRead`,
//! `RawFileSplitRead`), merge-on-read included.
//!
//! Which reader a split gets ([`read_split`], mirroring the split read providers of `KeyValueTableRead`):
//! * append tables: every file in split order, rows in file order, all `+I` (`RawFileSplitRead`);
//! * primary-key streaming splits with before-files (the changes plan of an OVERWRITE snapshot read with
//!   `streaming-read-overwrite=true`, see [`crate::scan::plan_changes`]): the **changes reader**
//!   (`IncrementalChangelogReadProvider`): the merge reader over the before-files (with their deletion
//!   vectors) with every row turned into `-D` (`ReverseReader`), then the merge reader over the data files,
//!   rows with their merged kind (`+I` or `+U`). Nothing is diffed: a key on both sides comes out as `-D`
//!   of its old value (in the before part) and again with its new value (in the after part), equal values
//!   included;
//! * primary-key batch splits with before-files (`IncrementalDiffSplitRead`, incremental-between batch
//!   scans, which the native planner never produces): not supported;
//! * primary-key batch splits (`!is_streaming`) that are raw-convertible and whose files all know their
//!   delete-row count: the **raw reader**, files concatenated, every row `+I` (`RawFileSplitReadProvider`);
//! * other primary-key streaming splits: the **no-merge reader**, each row with its stored RowKind
//!   (`MergeFileSplitRead.createNoMergeReader`);
//! * other primary-key batch splits: the **merge reader** (`MergeFileSplitRead.createMergeReader`).
//!
//! The merge reader:
//! 1. partitions the split's files into sections of sorted runs ([`crate::mergetree::interval_partition`] over the
//!    files' `_MIN_KEY`/`_MAX_KEY`), sections read one after the other;
//! 2. in a section, one reader per run (its files concatenated, deletion vectors applied per file), merged
//!    by a loser tree (`LoserTree`, `SortMergeReaderWithLoserTree`) that reproduces Java's tree states, so
//!    that records with equal key **and** equal sequence come out in the same order as in Java; keys are
//!    compared on Arrow rows (`arrow::row`) of the trimmed primary key, records of one key by
//!    (`sequence.field` honouring `sequence.field.sort-order`, NULL first, then `_SEQUENCE_NUMBER`);
//! 3. the records of one key go through `ReducerMergeFunctionWrapper` (a key seen once is emitted unchanged)
//!    and the merge engine: `deduplicate` (with `ignore-delete`), `first-row`, `partial-update` (with
//!    `sequence-group`s, their aggregate functions, `partial-update.remove-record-on-delete` and
//!    `partial-update.remove-record-on-sequence-group`) or `aggregation`;
//! 4. `DropDeleteReader`: results whose kind is `-U`/`-D` are dropped; the output row kind is the result's
//!    kind (`+I` or `+U`).
//!
//! A section with a single run holds every key once, so it is streamed without the tree (same output).
//!
//! Aggregate functions of 1.0 (`fields.<f>.aggregate-function`, `fields.default-aggregate-function`,
//! `fields.<f>.ignore-retract`): `sum`, `product`, `max`, `min`, `last_value`, `last_non_null_value`
//! (the default), `first_value`, `first_non_null_value` (and `first_not_null_value`), `listagg`
//! (`fields.<f>.list-agg-delimiter`), `bool_and`, `bool_or`, `collect` (`fields.<f>.distinct`),
//! `merge_map`, `nested_update` (`fields.<f>.nested-key`), `rbm32`, `rbm64`, `theta_sketch`,
//! `hll_sketch`, and `primary-key` for primary-key columns (1.0 has no `count` function). Retraction
//! (`-U`/`-D`) follows each Java class: `sum`, `product`, `last_value`, `last_non_null_value`,
//! `collect`, `merge_map` and `nested_update` retract, the others throw unless
//! `fields.<f>.ignore-retract`. The collection and bitmap functions live
//! in `crate::aggregate`, which says what of them is not reproduced exactly (then
//! [`Error::Unsupported`]): Java `HashSet`/`HashMap` orders of element types whose `hashCode()` is not
//! modelled (`byte[]`, nested) or of bins Java turns into trees; `rbm32` unions of two
//! run containers larger than a bitmap; and **every `rbm64` union of two non-NULL values**: Paimon 1.0's
//! `RoaringBitmap64` is a `Roaring64Bitmap` whose `serialize` writes RoaringBitmap 1.0.5's adaptive radix
//! tree layout (node types and order depend on its insertion history), not the portable 64-bit format
//! the `roaring` crate writes. `hll_sketch` and `theta_sketch` union DataSketches images byte for byte as
//! datasketches-java 4.2.0 does in Paimon 1.0 ([`crate::sketch`]); like every function without a retract,
//! they throw on `-U`/`-D` unless `fields.<f>.ignore-retract`.
//!
//! Output shape: [`crate::types::read_schema`] of the latest schema (`_row_kind`, then the table's columns),
//! batches of at most `batch_size` rows (never empty). Memory is bounded by the split: one batch per run of
//! the current section, plus the output batch being built.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::buffer::ScalarBuffer;
use arrow::row::{RowConverter, Rows, SortField};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, Int8Type};
use arrow_array::{
    new_null_array, Array, ArrayRef, BinaryArray, BooleanArray, Decimal128Array, Float32Array,
    Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, RecordBatch, StringArray,
};
use arrow_schema::{DataType as ArrowType, SchemaRef, SortOptions};

use crate::aggregate::{self, AggError, Val};
use crate::decode::{read_file, FileBatches, FileReadOptions, SplitReader};
use crate::error::{Error, Result};
use crate::mergetree::{interval_partition, KeyComparator, KeyedFile};
use crate::schema::{DataField, DataType, TypeKind};
use crate::split::{DataFileDesc, DeletionFileDesc, Split};
use crate::table::Table;
use crate::types::read_schema;

/// Row kinds (`org.apache.paimon.types.RowKind`).
const INSERT: i8 = 0;
const UPDATE_AFTER: i8 = 2;
const DELETE: i8 = 3;

/// Columns of a [`read_file`] batch before the value columns: `_SEQUENCE_NUMBER`, `_row_kind`.
const VALUE_OFFSET: usize = 2;

fn is_add(kind: i8) -> bool {
    kind == INSERT || kind == UPDATE_AFTER
}

/// Which reader [`read_split`] uses for a split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitReadKind {
    /// Files concatenated, rows with their stored kind (append tables: `+I`).
    NoMerge,
    /// Files concatenated, every row `+I` (raw-convertible batch splits of primary-key tables).
    Raw,
    /// Merge-on-read.
    Merge,
    /// Merge-on-read of the before-files as `-D`, then merge-on-read of the data files (streaming splits
    /// with before-files, `IncrementalChangelogReadProvider`).
    Changes,
}

/// The reader `KeyValueTableRead` picks for `split` of a table with (`primary_keyed`) or without a primary
/// key. Errors: [`Error::Unsupported`] naming the bucket directory for batch splits with before-files
/// (`IncrementalDiffSplitRead`).
pub fn split_read_kind(primary_keyed: bool, split: &Split) -> Result<SplitReadKind> {
    if !primary_keyed {
        return Ok(SplitReadKind::NoMerge);
    }
    if !split.before_files.is_empty() {
        if split.is_streaming {
            return Ok(SplitReadKind::Changes);
        }
        return Err(Error::Unsupported {
            path: PathBuf::from(&split.bucket_path),
            reason: "batch splits with before-files (incremental diff, IncrementalDiffSplitRead) are not \
                     read natively"
                .into(),
        });
    }
    let raw = !split.is_streaming
        && split.raw_convertible
        && split
            .data_files
            .iter()
            .all(|f| f.delete_row_count.is_some());
    Ok(if raw {
        SplitReadKind::Raw
    } else if split.is_streaming {
        SplitReadKind::NoMerge
    } else {
        SplitReadKind::Merge
    })
}

/// Reads `split` of `table` the way the released reader does (see the module docs), lazily, in batches of
/// at most `batch_size` rows with [`crate::types::read_schema`].
///
/// Errors (here or from the iterator, each naming a file, the bucket directory or the table):
/// [`Error::Unsupported`] for batch splits with before-files, unsupported merge engines or aggregate functions;
/// [`Error::Merge`] for invalid merge options or records the merge engine rejects (as Java throws);
/// [`Error::BinaryRow`] for malformed file keys; decoding errors of [`read_file`].
pub fn read_split(table: &Arc<Table>, split: &Split, batch_size: usize) -> Result<SplitBatches> {
    let batch_size = batch_size.max(1);
    let schema: SchemaRef = Arc::new(read_schema(&table.schema().fields));
    let kind = split_read_kind(table.is_primary_key_table(), split)?;
    let inner = match kind {
        SplitReadKind::NoMerge => Inner::Plain(SplitReader::new(table.clone(), split, batch_size)?),
        SplitReadKind::Raw => Inner::Raw(SplitReader::new(table.clone(), split, batch_size)?),
        SplitReadKind::Merge => Inner::Merge(Box::new(MergeReader::new(table, split, batch_size)?)),
        SplitReadKind::Changes => {
            // Each side read as `createMergeReader(files, deletionFiles, keepDelete = false)`.
            let side =
                |files: &[DataFileDesc], deletion_files: &[Option<DeletionFileDesc>]| Split {
                    data_files: files.to_vec(),
                    before_files: Vec::new(),
                    deletion_files: deletion_files.to_vec(),
                    before_deletion_files: Vec::new(),
                    is_streaming: false,
                    raw_convertible: false,
                    ..split.clone()
                };
            Inner::Changes {
                before: Some(Box::new(MergeReader::new(
                    table,
                    &side(&split.before_files, &split.before_deletion_files),
                    batch_size,
                )?)),
                after: Box::new(MergeReader::new(
                    table,
                    &side(&split.data_files, &split.deletion_files),
                    batch_size,
                )?),
                bucket_path: PathBuf::from(&split.bucket_path),
            }
        }
    };
    Ok(SplitBatches {
        schema,
        inner,
        failed: false,
    })
}

/// The batches of one split (see [`read_split`]). `Send`; ends after the first error.
pub struct SplitBatches {
    schema: SchemaRef,
    inner: Inner,
    failed: bool,
}

enum Inner {
    Plain(SplitReader),
    Raw(SplitReader),
    Merge(Box<MergeReader>),
    /// The before side (until exhausted), then the after side.
    Changes {
        before: Option<Box<MergeReader>>,
        after: Box<MergeReader>,
        bucket_path: PathBuf,
    },
}

impl SplitBatches {
    /// The schema of every batch: `_row_kind` then the table's columns.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

impl Iterator for SplitBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let item = match &mut self.inner {
            Inner::Plain(r) => r.next(),
            Inner::Raw(r) => r
                .next()
                .map(|b| b.and_then(|b| all_insert(&self.schema, b))),
            Inner::Merge(m) => m.next_batch().transpose(),
            Inner::Changes {
                before,
                after,
                bucket_path,
            } => loop {
                match before {
                    Some(b) => match b.next_batch() {
                        Ok(Some(batch)) => break Some(reverse_kinds(batch, bucket_path)),
                        Ok(None) => *before = None,
                        Err(e) => break Some(Err(e)),
                    },
                    None => break after.next_batch().transpose(),
                }
            },
        };
        if matches!(item, Some(Err(_))) {
            self.failed = true;
        }
        item
    }
}

/// `ReverseReader`: the batch with every row kind (`+I` or `+U`) set to `-D`. Errors: [`Error::Merge`]
/// naming the bucket directory for a `-U`/`-D` row (Java's `IllegalStateException`).
fn reverse_kinds(batch: RecordBatch, bucket_path: &Path) -> Result<RecordBatch> {
    let mut columns = batch.columns().to_vec();
    if let Some(first) = columns.first_mut() {
        if let Some(kinds) = first.as_any().downcast_ref::<Int8Array>() {
            if kinds.iter().any(|k| !k.is_some_and(is_add)) {
                return Err(Error::Merge {
                    path: bucket_path.to_path_buf(),
                    reason:
                        "In reverse reader, the value kind of records cannot be UPDATE_BEFORE or \
                             DELETE."
                            .into(),
                });
            }
        }
        *first = Arc::new(Int8Array::from(vec![DELETE; batch.num_rows()]));
    }
    RecordBatch::try_new(batch.schema(), columns).map_err(|e| Error::Decode {
        path: bucket_path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// The batch with every row kind set to `+I`.
fn all_insert(schema: &SchemaRef, batch: RecordBatch) -> Result<RecordBatch> {
    let mut columns = batch.columns().to_vec();
    if let Some(first) = columns.first_mut() {
        *first = Arc::new(Int8Array::from(vec![INSERT; batch.num_rows()]));
    }
    RecordBatch::try_new(schema.clone(), columns).map_err(|e| Error::Decode {
        path: PathBuf::from("<raw split>"),
        reason: e.to_string(),
    })
}

// ---------------------------------------------------------------------------------------------------------
// Merge configuration
// ---------------------------------------------------------------------------------------------------------

/// The merge engine of a table and its options, read from the latest schema's options.
#[derive(Clone, Debug)]
enum Engine {
    Deduplicate { ignore_delete: bool },
    FirstRow { ignore_delete: bool },
    PartialUpdate(PartialUpdateConfig),
    Aggregate(Vec<AggSpec>),
}

#[derive(Clone, Debug)]
struct PartialUpdateConfig {
    ignore_delete: bool,
    remove_record_on_delete: bool,
    /// Per field: the sequence group (its sequence fields) it belongs to, if any.
    groups: Vec<Option<Arc<Vec<usize>>>>,
    /// Per field: its aggregate function, if any.
    aggregators: Vec<Option<AggSpec>>,
    /// Sequence fields whose group removes the whole row on `-D`.
    partial_delete: Vec<usize>,
}

/// What aggregate function a field has.
#[derive(Clone, Debug, PartialEq)]
enum AggFunc {
    PrimaryKey,
    LastValue,
    LastNonNullValue,
    FirstValue,
    FirstNonNullValue,
    Max,
    Min,
    Sum,
    Product,
    Listagg(String),
    BoolAnd,
    BoolOr,
    /// `collect` of an ARRAY of `element`s, `fields.<f>.distinct`.
    Collect {
        element: DataType,
        distinct: bool,
    },
    /// `merge_map` of a MAP with `key`s.
    MergeMap {
        key: DataType,
    },
    /// `nested_update` of an ARRAY of ROWs of `fields`, keyed by `fields.<f>.nested-key` (indexes).
    NestedUpdate {
        fields: Vec<DataField>,
        key: Vec<usize>,
    },
    Rbm32,
    Rbm64,
    /// `theta_sketch`: [`crate::sketch::theta_union`].
    ThetaSketch,
    /// `hll_sketch`: [`crate::sketch::hll_union`].
    HllSketch,
}

#[derive(Clone, Debug)]
struct AggSpec {
    func: AggFunc,
    name: String,
    ignore_retract: bool,
    kind: TypeKind,
}

fn option<'a>(table: &'a Table, key: &str) -> Option<&'a str> {
    table.schema().option(key)
}

fn bool_opt(table: &Table, key: &str, default: bool) -> Result<bool> {
    match option(table, key) {
        None => Ok(default),
        Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
        Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
        Some(v) => Err(Error::Merge {
            path: table.path().to_path_buf(),
            reason: format!("option `{key}`: `{v}` is not a boolean"),
        }),
    }
}

fn merge_err(table: &Table, reason: String) -> Error {
    Error::Merge {
        path: table.path().to_path_buf(),
        reason,
    }
}

/// `FieldAggregatorFactory.create`: the function of field `field` (`is_pk` forces `primary-key`).
fn agg_spec(table: &Table, field: &DataField, func: &str, is_pk: bool) -> Result<AggSpec> {
    let name = if is_pk { "primary-key" } else { func };
    let numeric = matches!(
        field.data_type.kind,
        TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Float
            | TypeKind::Double
            | TypeKind::Decimal { .. }
    );
    let check = |ok: bool, what: &str| -> Result<()> {
        if ok {
            Ok(())
        } else {
            Err(merge_err(
                table,
                format!(
                    "Data type for {what} column must be '{}' but was '{:?}' (column `{}`).",
                    match what {
                        "sum" | "product" => "NumericType",
                        "list agg" => "VarCharType",
                        _ => "BooleanType",
                    },
                    field.data_type.kind,
                    field.name
                ),
            ))
        }
    };
    let f = match name {
        "primary-key" => AggFunc::PrimaryKey,
        "last_value" => AggFunc::LastValue,
        "last_non_null_value" => AggFunc::LastNonNullValue,
        "first_value" => AggFunc::FirstValue,
        "first_non_null_value" | "first_not_null_value" => AggFunc::FirstNonNullValue,
        "max" => AggFunc::Max,
        "min" => AggFunc::Min,
        "sum" => {
            check(numeric, "sum")?;
            AggFunc::Sum
        }
        "product" => {
            check(numeric, "product")?;
            AggFunc::Product
        }
        "listagg" => {
            check(
                matches!(field.data_type.kind, TypeKind::VarChar(_)),
                "list agg",
            )?;
            let key = format!("fields.{}.list-agg-delimiter", field.name);
            AggFunc::Listagg(option(table, &key).unwrap_or(",").to_string())
        }
        "bool_and" => {
            check(
                matches!(field.data_type.kind, TypeKind::Boolean),
                "bool and",
            )?;
            AggFunc::BoolAnd
        }
        "bool_or" => {
            check(matches!(field.data_type.kind, TypeKind::Boolean), "bool or")?;
            AggFunc::BoolOr
        }
        "collect" => match &field.data_type.kind {
            TypeKind::Array(element) => AggFunc::Collect {
                element: (**element).clone(),
                distinct: bool_opt(table, &format!("fields.{}.distinct", field.name), false)?,
            },
            _ => {
                return Err(merge_err(
                    table,
                    format!(
                    "Data type for collect column must be 'Array' but was '{:?}' (column `{}`).",
                    field.data_type.kind, field.name
                ),
                ))
            }
        },
        "merge_map" => match &field.data_type.kind {
            TypeKind::Map(key, _) => AggFunc::MergeMap {
                key: (**key).clone(),
            },
            _ => {
                return Err(merge_err(
                    table,
                    format!(
                        "Data type for merge map column must be 'MAP' but was '{:?}' (column `{}`)",
                        field.data_type.kind, field.name
                    ),
                ))
            }
        },
        "nested_update" => {
            let fields = match &field.data_type.kind {
                TypeKind::Array(element) => match &element.kind {
                    TypeKind::Row(fields) => Some(fields.clone()),
                    _ => None,
                },
                _ => None,
            };
            let Some(fields) = fields else {
                return Err(merge_err(
                    table,
                    format!(
                        "Data type for nested table column must be 'Array<Row>' but was '{:?}' \
                         (column `{}`).",
                        field.data_type.kind, field.name
                    ),
                ));
            };
            let mut key = Vec::new();
            if let Some(names) = option(table, &format!("fields.{}.nested-key", field.name)) {
                for name in names.split(',') {
                    key.push(fields.iter().position(|f| f.name == name).ok_or_else(|| {
                        merge_err(
                            table,
                            format!(
                                "nested-key `{name}` of column `{}` is not a field of its rows",
                                field.name
                            ),
                        )
                    })?);
                }
            }
            AggFunc::NestedUpdate { fields, key }
        }
        "rbm32" | "rbm64" => {
            if !matches!(field.data_type.kind, TypeKind::VarBinary(_)) {
                return Err(merge_err(
                    table,
                    format!(
                        "Data type for roaring bitmap column must be 'VarBinaryType' but was \
                         '{:?}' (column `{}`).",
                        field.data_type.kind, field.name
                    ),
                ));
            }
            if name == "rbm32" {
                AggFunc::Rbm32
            } else {
                AggFunc::Rbm64
            }
        }
        "hll_sketch" | "theta_sketch" => {
            // FieldHllSketchAggFactory / FieldThetaSketchAggFactory.
            if !matches!(field.data_type.kind, TypeKind::VarBinary(_)) {
                let what = if name == "hll_sketch" { "hll" } else { "theta" };
                return Err(merge_err(
                    table,
                    format!(
                        "Data type for {what} sketch column must be 'VarBinaryType' but was \
                         '{:?}' (column `{}`).",
                        field.data_type.kind, field.name
                    ),
                ));
            }
            if name == "hll_sketch" {
                AggFunc::HllSketch
            } else {
                AggFunc::ThetaSketch
            }
        }
        other => {
            return Err(merge_err(
                table,
                format!(
                    "Use unsupported aggregation: {other} or spell aggregate function incorrectly! \
                     (column `{}`)",
                    field.name
                ),
            ))
        }
    };
    let ignore_retract = bool_opt(
        table,
        &format!("fields.{}.ignore-retract", field.name),
        false,
    )?;
    Ok(AggSpec {
        func: f,
        name: name.to_string(),
        ignore_retract,
        kind: field.data_type.kind.clone(),
    })
}

fn engine(table: &Table) -> Result<Engine> {
    let schema = table.schema();
    let options = table.options();
    let ignore_delete = options.ignore_delete;
    let fields = &schema.fields;
    let field_agg = |f: &DataField| option(table, &format!("fields.{}.aggregate-function", f.name));
    let default_agg = option(table, "fields.default-aggregate-function");
    let is_pk = |f: &DataField| schema.primary_keys.contains(&f.name);
    match options.merge_engine.as_str() {
        "deduplicate" => Ok(Engine::Deduplicate { ignore_delete }),
        "first-row" => Ok(Engine::FirstRow { ignore_delete }),
        "aggregation" => {
            let mut specs = Vec::with_capacity(fields.len());
            for f in fields {
                let func = field_agg(f)
                    .or(default_agg)
                    .unwrap_or("last_non_null_value");
                specs.push(agg_spec(table, f, func, is_pk(f))?);
            }
            Ok(Engine::Aggregate(specs))
        }
        "partial-update" => {
            let index = |name: &str| -> Result<usize> {
                fields.iter().position(|f| f.name == name).ok_or_else(|| {
                    merge_err(
                        table,
                        format!("Field {name} can not be found in table schema"),
                    )
                })
            };
            let mut groups: Vec<Option<Arc<Vec<usize>>>> = vec![None; fields.len()];
            let mut by_sequence_name: Vec<(String, usize)> = Vec::new();
            for (k, v) in &schema.options {
                let Some(rest) = k.strip_prefix("fields.") else {
                    continue;
                };
                let Some(seq_names) = rest.strip_suffix(".sequence-group") else {
                    continue;
                };
                let seq: Vec<usize> = seq_names.split(',').map(index).collect::<Result<_>>()?;
                let seq = Arc::new(seq);
                for name in v.split(',') {
                    let i = index(name)?;
                    if groups[i].is_some() {
                        return Err(merge_err(
                            table,
                            format!("Field {name} is defined repeatedly by multiple groups: {k}"),
                        ));
                    }
                    groups[i] = Some(seq.clone());
                }
                for name in seq_names.split(',') {
                    let i = index(name)?;
                    groups[i] = Some(seq.clone());
                    by_sequence_name.push((name.to_string(), i));
                }
            }
            let mut aggregators = Vec::with_capacity(fields.len());
            for f in fields {
                aggregators.push(match field_agg(f).or(default_agg) {
                    Some(func) => Some(agg_spec(table, f, func, is_pk(f))?),
                    None => None,
                });
            }
            let has_groups = groups.iter().any(Option::is_some);
            if aggregators.iter().any(Option::is_some) && !has_groups {
                return Err(merge_err(
                    table,
                    "Must use sequence group for aggregation functions.".into(),
                ));
            }
            let remove_record_on_delete =
                bool_opt(table, "partial-update.remove-record-on-delete", false)?;
            if remove_record_on_delete && ignore_delete {
                return Err(merge_err(
                    table,
                    "ignore-delete and partial-update.remove-record-on-delete have conflicting \
                     behavior so should not be enabled at the same time."
                        .into(),
                ));
            }
            if remove_record_on_delete && has_groups {
                return Err(merge_err(
                    table,
                    "sequence group and partial-update.remove-record-on-delete have conflicting \
                     behavior so should not be enabled at the same time."
                        .into(),
                ));
            }
            let mut partial_delete = Vec::new();
            if let Some(names) = option(table, "partial-update.remove-record-on-sequence-group") {
                for name in names.split(',') {
                    match by_sequence_name.iter().find(|(n, _)| n == name) {
                        Some((_, i)) => partial_delete.push(*i),
                        None => {
                            return Err(merge_err(
                                table,
                                format!(
                                    "field '{names}' defined in \
                                     'partial-update.remove-record-on-sequence-group' option must \
                                     be part of sequence groups"
                                ),
                            ))
                        }
                    }
                }
            }
            Ok(Engine::PartialUpdate(PartialUpdateConfig {
                ignore_delete,
                remove_record_on_delete,
                groups,
                aggregators,
                partial_delete,
            }))
        }
        other => Err(Error::Unsupported {
            path: table.path().to_path_buf(),
            reason: format!("merge-engine={other}"),
        }),
    }
}

// ---------------------------------------------------------------------------------------------------------
// Runs and the loser tree
// ---------------------------------------------------------------------------------------------------------

/// What every run reader of one split shares.
struct RunContext {
    table: Arc<Table>,
    bucket_path: String,
    options: FileReadOptions,
    /// Columns of the trimmed primary key in a [`read_file`] batch.
    key_columns: Vec<usize>,
    keys: RowConverter,
    /// Columns of `sequence.field` in a [`read_file`] batch, with their converter.
    user_sequence: Option<(Vec<usize>, RowConverter)>,
}

/// The current batch of a run with its comparison keys.
struct RunBatch {
    batch: RecordBatch,
    /// Comparison rows of the key and the user sequence; `None` in single-run sections, which never
    /// compare.
    keys: Option<Rows>,
    user_sequence: Option<Rows>,
    sequence: ScalarBuffer<i64>,
    kinds: ScalarBuffer<i8>,
}

/// `LoserTree.State`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    LoserWithNewKey,
    LoserWithSameKey,
    LoserPopped,
    WinnerWithNewKey,
    WinnerWithSameKey,
    WinnerPopped,
}

impl State {
    fn is_winner(self) -> bool {
        matches!(
            self,
            State::WinnerWithNewKey | State::WinnerWithSameKey | State::WinnerPopped
        )
    }
}

/// Where a run's batches come from.
enum RunSource {
    /// Data files read one after the other with [`read_file`].
    Files {
        files: std::vec::IntoIter<(DataFileDesc, Option<DeletionFileDesc>)>,
        reader: Option<FileBatches>,
    },
    /// Batches in [`read_file`]'s shape (tests).
    #[cfg(test)]
    Memory(std::collections::VecDeque<RecordBatch>),
}

impl RunSource {
    /// The next non-empty batch and the file it came from, `None` at the end.
    fn next_batch(&mut self, ctx: &RunContext) -> Result<Option<(RecordBatch, PathBuf)>> {
        match self {
            RunSource::Files { files, reader } => loop {
                if reader.is_none() {
                    let Some((file, dv)) = files.next() else {
                        return Ok(None);
                    };
                    *reader = Some(read_file(
                        &ctx.table,
                        &ctx.bucket_path,
                        &file,
                        dv.as_ref(),
                        &ctx.options,
                    )?);
                }
                let Some(r) = reader.as_mut() else {
                    return Ok(None);
                };
                match r.next() {
                    None => *reader = None,
                    Some(Err(e)) => return Err(e),
                    Some(Ok(batch)) if batch.num_rows() == 0 => {}
                    Some(Ok(batch)) => return Ok(Some((batch, r.path().to_path_buf()))),
                }
            },
            #[cfg(test)]
            RunSource::Memory(batches) => {
                Ok(batches.pop_front().map(|b| (b, PathBuf::from("<memory>"))))
            }
        }
    }
}

/// One sorted run: its files read one after the other (a leaf of the loser tree).
struct Run {
    source: RunSource,
    current: Option<RunBatch>,
    row: usize,
    started: bool,
    state: State,
    first_same_key: isize,
    /// (output chunk generation, source index) of the current batch once registered in the chunk.
    chunk_source: Option<(u64, usize)>,
    /// Whether batches get comparison rows (runs of a loser tree).
    compared: bool,
}

impl Run {
    fn new(source: RunSource, compared: bool) -> Run {
        Run {
            source,
            compared,
            current: None,
            row: 0,
            started: false,
            state: State::WinnerWithNewKey,
            first_same_key: -1,
            chunk_source: None,
        }
    }

    fn has_record(&self) -> bool {
        self.current.is_some()
    }

    /// Moves to the next record (none at the end of the run).
    fn step(&mut self, ctx: &RunContext) -> Result<()> {
        if self.started {
            if let Some(c) = &self.current {
                if self.row + 1 < c.batch.num_rows() {
                    self.row += 1;
                    return Ok(());
                }
            }
        }
        self.started = true;
        self.current = None;
        self.chunk_source = None;
        if let Some((batch, path)) = self.source.next_batch(ctx)? {
            self.current = Some(run_batch(ctx, batch, &path, self.compared)?);
            self.row = 0;
        }
        Ok(())
    }

    /// `LeafIterator.advanceIfAvailable`.
    fn advance(&mut self, ctx: &RunContext) -> Result<()> {
        self.first_same_key = -1;
        self.state = State::WinnerWithNewKey;
        self.step(ctx)
    }

    fn set_first_same_key(&mut self, index: isize) {
        if self.first_same_key == -1 {
            self.first_same_key = index;
        }
    }

    fn kind(&self) -> i8 {
        self.current.as_ref().map_or(INSERT, |c| c.kinds[self.row])
    }
}

fn run_batch(
    ctx: &RunContext,
    batch: RecordBatch,
    path: &Path,
    compared: bool,
) -> Result<RunBatch> {
    let err = |reason: String| Error::Decode {
        path: path.to_path_buf(),
        reason,
    };
    let columns =
        |idx: &[usize]| -> Vec<ArrayRef> { idx.iter().map(|i| batch.column(*i).clone()).collect() };
    let keys = if compared {
        Some(
            ctx.keys
                .convert_columns(&columns(&ctx.key_columns))
                .map_err(|e| err(format!("primary key: {e}")))?,
        )
    } else {
        None
    };
    let user_sequence = match &ctx.user_sequence {
        Some((idx, conv)) if compared => Some(
            conv.convert_columns(&columns(idx))
                .map_err(|e| err(format!("sequence.field: {e}")))?,
        ),
        _ => None,
    };
    let sequence = batch
        .column(0)
        .as_primitive_opt::<Int64Type>()
        .ok_or_else(|| err("_SEQUENCE_NUMBER is not BIGINT".into()))?
        .values()
        .clone();
    let kinds = batch
        .column(1)
        .as_primitive_opt::<Int8Type>()
        .ok_or_else(|| err("_row_kind is not TINYINT".into()))?
        .values()
        .clone();
    Ok(RunBatch {
        batch,
        keys,
        user_sequence,
        sequence,
        kinds,
    })
}

/// `LoserTree` of Paimon 1.0 over the runs of one section, with the same node states and tie rules, so the
/// records of one key come out in the same order as in Java even when their sequences are equal.
struct LoserTree {
    tree: Vec<isize>,
    runs: Vec<Run>,
    initialized: bool,
}

impl LoserTree {
    fn new(runs: Vec<Run>) -> LoserTree {
        LoserTree {
            tree: vec![-1; runs.len()],
            runs,
            initialized: false,
        }
    }

    fn size(&self) -> isize {
        self.runs.len() as isize
    }

    fn leaf(&self, i: isize) -> Result<&Run> {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.runs.get(i))
            .ok_or_else(|| tree_bug(i))
    }

    fn leaf_mut(&mut self, i: isize) -> Result<&mut Run> {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.runs.get_mut(i))
            .ok_or_else(|| tree_bug(i))
    }

    fn node(&self, parent: isize) -> Result<isize> {
        usize::try_from(parent)
            .ok()
            .and_then(|p| self.tree.get(p).copied())
            .ok_or_else(|| tree_bug(parent))
    }

    fn set_node(&mut self, parent: isize, value: isize) -> Result<()> {
        let slot = usize::try_from(parent)
            .ok()
            .and_then(|p| self.tree.get_mut(p))
            .ok_or_else(|| tree_bug(parent))?;
        *slot = value;
        Ok(())
    }

    /// The user key order of the current records of runs `a` and `b`.
    fn key_order(&self, a: isize, b: isize) -> Result<Option<Ordering>> {
        let (ra, rb) = (self.leaf(a)?, self.leaf(b)?);
        Ok(match (&ra.current, &rb.current) {
            (Some(x), Some(y)) => match (&x.keys, &y.keys) {
                (Some(kx), Some(ky)) => Some(kx.row(ra.row).cmp(&ky.row(rb.row))),
                _ => None,
            },
            _ => None,
        })
    }

    /// The sequence order (user sequence fields, then `_SEQUENCE_NUMBER`) of runs `a` and `b`.
    fn sequence_order(&self, a: isize, b: isize) -> Result<Option<Ordering>> {
        let (ra, rb) = (self.leaf(a)?, self.leaf(b)?);
        Ok(match (&ra.current, &rb.current) {
            (Some(x), Some(y)) => {
                let user = match (&x.user_sequence, &y.user_sequence) {
                    (Some(ux), Some(uy)) => ux.row(ra.row).cmp(&uy.row(rb.row)),
                    _ => Ordering::Equal,
                };
                Some(user.then(x.sequence[ra.row].cmp(&y.sequence[rb.row])))
            }
            _ => None,
        })
    }

    /// Java's `firstComparator(e1, e2)`: e1 wins (`Greater`) when its key is smaller; a missing record
    /// (end of run) loses.
    fn first(&self, e1: isize, e2: isize) -> Result<Ordering> {
        if !self.leaf(e1)?.has_record() {
            return Ok(Ordering::Less);
        }
        if !self.leaf(e2)?.has_record() {
            return Ok(Ordering::Greater);
        }
        Ok(self.key_order(e2, e1)?.unwrap_or(Ordering::Equal))
    }

    /// Java's `secondComparator(e1, e2)`: e1 wins when its sequence is smaller.
    fn second(&self, e1: isize, e2: isize) -> Result<Ordering> {
        if !self.leaf(e1)?.has_record() {
            return Ok(Ordering::Less);
        }
        if !self.leaf(e2)?.has_record() {
            return Ok(Ordering::Greater);
        }
        Ok(self.sequence_order(e2, e1)?.unwrap_or(Ordering::Equal))
    }

    fn initialize(&mut self, ctx: &RunContext) -> Result<()> {
        if self.initialized {
            return Ok(());
        }
        self.tree.iter_mut().for_each(|t| *t = -1);
        for i in (0..self.size()).rev() {
            self.leaf_mut(i)?.advance(ctx)?;
            self.adjust(i)?;
        }
        self.initialized = true;
        Ok(())
    }

    fn adjust_for_next_loop(&mut self, ctx: &RunContext) -> Result<()> {
        loop {
            let w = self.node(0)?;
            if self.leaf(w)?.state != State::WinnerPopped {
                return Ok(());
            }
            self.leaf_mut(w)?.advance(ctx)?;
            self.adjust(w)?;
        }
    }

    /// Pops the winner's record: its run index, `None` when the records of the current key are exhausted
    /// or (when the winner has no record) at the end.
    fn pop_winner(&mut self) -> Result<Option<usize>> {
        let w = self.node(0)?;
        let leaf = self.leaf_mut(w)?;
        if leaf.state == State::WinnerPopped {
            return Ok(None);
        }
        leaf.state = State::WinnerPopped;
        let has = leaf.has_record();
        self.adjust(w)?;
        Ok(has.then_some(w as usize))
    }

    fn peek_winner(&self) -> Result<Option<usize>> {
        let w = self.node(0)?;
        let leaf = self.leaf(w)?;
        Ok((leaf.state != State::WinnerPopped && leaf.has_record()).then_some(w as usize))
    }

    fn adjust(&mut self, mut winner: isize) -> Result<()> {
        let size = self.size();
        let mut parent = (winner + size) / 2;
        while parent > 0 && winner >= 0 {
            if self.node(parent)? == -1 {
                self.leaf_mut(winner)?.state = State::LoserWithNewKey;
            } else {
                match self.leaf(winner)?.state {
                    State::WinnerWithNewKey => self.adjust_with_new_winner_key(parent, winner)?,
                    State::WinnerWithSameKey => self.adjust_with_same_winner_key(parent, winner)?,
                    State::WinnerPopped => {
                        let first_same = self.leaf(winner)?.first_same_key;
                        if first_same < 0 {
                            parent = -1;
                        } else {
                            parent = first_same;
                            let p = self.node(parent)?;
                            self.leaf_mut(winner)?.state = State::LoserPopped;
                            self.leaf_mut(p)?.state = State::WinnerWithSameKey;
                        }
                    }
                    other => {
                        return Err(Error::Merge {
                            path: PathBuf::from("<loser tree>"),
                            reason: format!("unknown state for {other:?}"),
                        })
                    }
                }
            }
            if !self.leaf(winner)?.state.is_winner() {
                let tmp = winner;
                winner = self.node(parent)?;
                self.set_node(parent, tmp)?;
            }
            parent /= 2;
        }
        self.set_node(0, winner)
    }

    fn adjust_with_same_winner_key(&mut self, index: isize, winner: isize) -> Result<()> {
        let p = self.node(index)?;
        match self.leaf(p)?.state {
            State::LoserWithSameKey => {
                if self.second(p, winner)? == Ordering::Greater {
                    self.leaf_mut(p)?.state = State::WinnerWithSameKey;
                    self.leaf_mut(winner)?.state = State::LoserWithSameKey;
                    self.leaf_mut(p)?.set_first_same_key(index);
                } else {
                    self.leaf_mut(winner)?.set_first_same_key(index);
                }
                Ok(())
            }
            State::LoserWithNewKey | State::LoserPopped => Ok(()),
            other => Err(Error::Merge {
                path: PathBuf::from("<loser tree>"),
                reason: format!("unknown state for {other:?}"),
            }),
        }
    }

    fn adjust_with_new_winner_key(&mut self, index: isize, winner: isize) -> Result<()> {
        let p = self.node(index)?;
        match self.leaf(p)?.state {
            State::LoserWithNewKey => {
                let first = self.first(p, winner)?;
                if first == Ordering::Equal {
                    if self.second(p, winner)? == Ordering::Less {
                        self.leaf_mut(p)?.state = State::LoserWithSameKey;
                        self.leaf_mut(winner)?.set_first_same_key(index);
                    } else {
                        self.leaf_mut(winner)?.state = State::LoserWithSameKey;
                        self.leaf_mut(p)?.state = State::WinnerWithNewKey;
                        self.leaf_mut(p)?.set_first_same_key(index);
                    }
                } else if first == Ordering::Greater {
                    self.leaf_mut(p)?.state = State::WinnerWithNewKey;
                    self.leaf_mut(winner)?.state = State::LoserWithNewKey;
                }
                Ok(())
            }
            State::LoserWithSameKey => Err(Error::Merge {
                path: PathBuf::from("<loser tree>"),
                reason: "a node in the WINNER_WITH_NEW_KEY state met a node in the \
                         LOSER_WITH_SAME_KEY state"
                    .into(),
            }),
            State::LoserPopped => {
                let parent = self.leaf_mut(p)?;
                parent.state = State::WinnerPopped;
                parent.first_same_key = -1;
                self.leaf_mut(winner)?.state = State::LoserWithNewKey;
                Ok(())
            }
            other => Err(Error::Merge {
                path: PathBuf::from("<loser tree>"),
                reason: format!("unknown state for {other:?}"),
            }),
        }
    }
}

fn tree_bug(i: isize) -> Error {
    Error::Merge {
        path: PathBuf::from("<loser tree>"),
        reason: format!("index {i} out of range"),
    }
}

// ---------------------------------------------------------------------------------------------------------
// Values, cells and the output chunk
// ---------------------------------------------------------------------------------------------------------

/// A non-null value computed by an aggregate function (integers of every width, dates and times as `Int`).
#[derive(Clone, Debug, PartialEq)]
enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f32),
    Double(f64),
    Decimal(i128),
    Str(String),
    Bytes(Vec<u8>),
    /// An ARRAY, MAP or ROW value (collection aggregate functions).
    Nested(Val),
}

/// A field of a merged row: NULL, a value of an input record (batch `src` of the chunk, `row`), or a
/// computed value.
#[derive(Clone, Debug, PartialEq)]
enum Cell {
    Null,
    Pick { src: usize, row: usize },
    Value(Scalar),
}

impl Cell {
    fn is_null(&self) -> bool {
        matches!(self, Cell::Null)
    }
}

/// An output row: a whole input record, or merged cells (one per value column).
enum OutRow {
    Whole { src: usize, row: usize, kind: i8 },
    Cells { kind: i8, cells: Vec<Cell> },
}

/// The output batch being built: input batches it references, and its rows.
struct Chunk {
    generation: u64,
    sources: Vec<RecordBatch>,
    rows: Vec<OutRow>,
}

impl Chunk {
    /// The source index of run `run`'s current batch, registering it on first use.
    fn source_of(&mut self, run: &mut Run) -> Result<usize> {
        if let Some((g, s)) = run.chunk_source {
            if g == self.generation {
                return Ok(s);
            }
        }
        let batch = run
            .current
            .as_ref()
            .map(|c| c.batch.clone())
            .ok_or_else(|| tree_bug(-1))?;
        self.sources.push(batch);
        let s = self.sources.len() - 1;
        run.chunk_source = Some((self.generation, s));
        Ok(s)
    }
}

/// One record of a run, as the merge functions see it.
#[derive(Clone, Copy, Debug)]
struct Rec {
    run: usize,
    row: usize,
    kind: i8,
}

/// What merge functions read records through.
struct Ctx<'a> {
    runs: &'a mut [Run],
    chunk: &'a mut Chunk,
    path: &'a Path,
    fields: &'a [DataField],
}

impl Ctx<'_> {
    fn run(&mut self, r: usize) -> Result<&mut Run> {
        self.runs.get_mut(r).ok_or_else(|| tree_bug(r as isize))
    }

    /// The source index of a record's batch.
    fn source(&mut self, rec: Rec) -> Result<usize> {
        let run = self
            .runs
            .get_mut(rec.run)
            .ok_or_else(|| tree_bug(rec.run as isize))?;
        self.chunk.source_of(run)
    }

    /// Field `col` of a record as a cell (NULL or a pick).
    fn field(&mut self, rec: Rec, col: usize) -> Result<Cell> {
        let run = self.run(rec.run)?;
        let null = run
            .current
            .as_ref()
            .map(|c| c.batch.column(col + VALUE_OFFSET).is_null(rec.row))
            .unwrap_or(true);
        if null {
            return Ok(Cell::Null);
        }
        let src = self.source(rec)?;
        Ok(Cell::Pick { src, row: rec.row })
    }

    /// The value of a cell of column `col`, `None` for NULL.
    fn scalar(&self, cell: &Cell, col: usize) -> Result<Option<Scalar>> {
        match cell {
            Cell::Null => Ok(None),
            Cell::Value(v) => Ok(Some(v.clone())),
            Cell::Pick { src, row } => {
                let batch = self
                    .chunk
                    .sources
                    .get(*src)
                    .ok_or_else(|| tree_bug(*src as isize))?;
                scalar_at(batch.column(col + VALUE_OFFSET).as_ref(), *row).map_err(|reason| {
                    Error::Merge {
                        path: self.path.to_path_buf(),
                        reason: format!("column `{}`: {reason}", self.field_name(col)),
                    }
                })
            }
        }
    }

    fn field_name(&self, col: usize) -> &str {
        self.fields.get(col).map_or("?", |f| f.name.as_str())
    }

    fn err(&self, reason: String) -> Error {
        Error::Merge {
            path: self.path.to_path_buf(),
            reason,
        }
    }
}

/// Reads one non-null value of the types aggregate functions and sequence groups compare or compute
/// ([`Val::from_arrow`], with ARRAY, MAP and ROW values kept whole as [`Scalar::Nested`]).
fn scalar_at(array: &dyn Array, row: usize) -> std::result::Result<Option<Scalar>, String> {
    Ok(Some(match Val::from_arrow(array, row)? {
        Val::Null => return Ok(None),
        Val::Bool(b) => Scalar::Bool(b),
        Val::Int(i) => Scalar::Int(i),
        Val::Float(f) => Scalar::Float(f),
        Val::Double(d) => Scalar::Double(d),
        Val::Decimal(d) => Scalar::Decimal(d),
        Val::Str(s) => Scalar::Str(s),
        Val::Bytes(b) => Scalar::Bytes(b),
        nested @ (Val::List(_) | Val::Map(_) | Val::Row(_)) => Scalar::Nested(nested),
    }))
}

/// `InternalRowUtils.compare` (aggregate `max`/`min`): `Float/Double.compare` for floating point (NaN
/// largest, -0.0 < 0.0); BOOLEAN and nested types are incomparable (an error, as in Java).
fn compare_internal(a: &Scalar, b: &Scalar) -> std::result::Result<Ordering, String> {
    Ok(match (a, b) {
        (Scalar::Int(x), Scalar::Int(y)) => x.cmp(y),
        (Scalar::Float(x), Scalar::Float(y)) => java_float_compare(*x as f64, *y as f64),
        (Scalar::Double(x), Scalar::Double(y)) => java_float_compare(*x, *y),
        (Scalar::Decimal(x), Scalar::Decimal(y)) => x.cmp(y),
        (Scalar::Str(x), Scalar::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Scalar::Bytes(x), Scalar::Bytes(y)) => x.cmp(y),
        (Scalar::Bool(_), _) => return Err("Incomparable type: BOOLEAN".into()),
        _ => return Err("values of different types".into()),
    })
}

/// Java `Double.compare`: total order with NaN largest and -0.0 below 0.0.
fn java_float_compare(x: f64, y: f64) -> Ordering {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => x.total_cmp(&y),
    }
}

/// The generated `RecordComparator`'s per-field order (sequence groups): `<`/`>` for numbers,
/// `false < true`, bytes for strings and binaries.
fn compare_codegen(a: &Scalar, b: &Scalar) -> Ordering {
    fn partial<T: PartialOrd>(x: T, y: T) -> Ordering {
        if x > y {
            Ordering::Greater
        } else if x < y {
            Ordering::Less
        } else {
            Ordering::Equal
        }
    }
    match (a, b) {
        (Scalar::Bool(x), Scalar::Bool(y)) => x.cmp(y),
        (Scalar::Int(x), Scalar::Int(y)) => x.cmp(y),
        (Scalar::Float(x), Scalar::Float(y)) => partial(x, y),
        (Scalar::Double(x), Scalar::Double(y)) => partial(x, y),
        (Scalar::Decimal(x), Scalar::Decimal(y)) => x.cmp(y),
        (Scalar::Str(x), Scalar::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Scalar::Bytes(x), Scalar::Bytes(y)) => x.cmp(y),
        _ => Ordering::Equal,
    }
}

// ---------------------------------------------------------------------------------------------------------
// Aggregate functions
// ---------------------------------------------------------------------------------------------------------

/// One field's aggregate function with its state (`FieldAggregator`).
struct FieldAgg {
    spec: AggSpec,
    col: usize,
    initialized: bool,
}

fn number_digits(v: i128) -> u32 {
    let mut n = v.unsigned_abs();
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

impl FieldAgg {
    fn new(spec: AggSpec, col: usize) -> FieldAgg {
        FieldAgg {
            spec,
            col,
            initialized: false,
        }
    }

    fn reset(&mut self) {
        self.initialized = false;
    }

    fn unsupported_retract(&self, ctx: &Ctx) -> Error {
        ctx.err(format!(
            "Aggregate function '{}' does not support retraction, If you allow this function to \
             ignore retraction messages, you can configure 'fields.${{field_name}}.ignore-retract'='true'. \
             (column `{}`)",
            self.spec.name,
            ctx.field_name(self.col)
        ))
    }

    /// `agg(accumulator, input)`.
    fn agg(&mut self, ctx: &Ctx, acc: Cell, input: Cell) -> Result<Cell> {
        use AggFunc::*;
        match &self.spec.func {
            PrimaryKey | LastValue => Ok(input),
            LastNonNullValue => Ok(if input.is_null() { acc } else { input }),
            FirstValue => {
                if !self.initialized {
                    self.initialized = true;
                    Ok(input)
                } else {
                    Ok(acc)
                }
            }
            FirstNonNullValue => {
                if !self.initialized && !input.is_null() {
                    self.initialized = true;
                    Ok(input)
                } else {
                    Ok(acc)
                }
            }
            Collect { element, distinct } => {
                let (a, b) = (self.val(ctx, &acc)?, self.val(ctx, &input)?);
                let r = aggregate::collect_agg(element, *distinct, &a, &b);
                self.computed(ctx, r)
            }
            MergeMap { key } => {
                let (a, b) = (self.val(ctx, &acc)?, self.val(ctx, &input)?);
                let r = aggregate::merge_map_agg(key, &a, &b);
                self.computed(ctx, r)
            }
            NestedUpdate { fields, key } => {
                let (a, b) = (self.val(ctx, &acc)?, self.val(ctx, &input)?);
                let r = aggregate::NestedUpdate { fields, key }.agg(&a, &b);
                self.computed(ctx, r)
            }
            _ if acc.is_null() || input.is_null() => Ok(if acc.is_null() { input } else { acc }),
            Rbm32 => match (self.value(ctx, &acc)?, self.value(ctx, &input)?) {
                (Scalar::Bytes(a), Scalar::Bytes(b)) => {
                    let r = aggregate::rbm32_or(&a, &b).map(Val::Bytes);
                    self.computed(ctx, r)
                }
                _ => Err(ctx.err("rbm32 over non-binaries".into())),
            },
            ThetaSketch | HllSketch => match (self.value(ctx, &acc)?, self.value(ctx, &input)?) {
                (Scalar::Bytes(a), Scalar::Bytes(b)) => {
                    let r = if self.spec.func == ThetaSketch {
                        crate::sketch::theta_union(&a, &b)
                    } else {
                        crate::sketch::hll_union(&a, &b)
                    };
                    self.computed(ctx, r.map(Val::Bytes).map_err(AggError::Java))
                }
                _ => Err(ctx.err(format!("{} over non-binaries", self.spec.name))),
            },
            Rbm64 => Err(Error::Unsupported {
                path: ctx.path.to_path_buf(),
                reason: format!(
                    "rbm64 of column `{}`: Paimon 1.0 serializes the union as a Roaring64Bitmap \
                     (RoaringBitmap 1.0.5's ART layout), which is not reproduced",
                    ctx.field_name(self.col)
                ),
            }),
            Max | Min => {
                let (a, b) = (self.value(ctx, &acc)?, self.value(ctx, &input)?);
                let ord = compare_internal(&a, &b).map_err(|e| ctx.err(e))?;
                let acc_smaller = ord == Ordering::Less;
                Ok(match (&self.spec.func, acc_smaller) {
                    (Max, true) | (Min, false) => input,
                    _ => acc,
                })
            }
            Sum => {
                let (a, b) = (self.value(ctx, &acc)?, self.value(ctx, &input)?);
                self.arith(ctx, a, b, false)
            }
            Product => {
                let (a, b) = (self.value(ctx, &acc)?, self.value(ctx, &input)?);
                self.multiply(ctx, a, b)
            }
            Listagg(delimiter) => {
                let (a, b) = (self.value(ctx, &acc)?, self.value(ctx, &input)?);
                match (a, b) {
                    (Scalar::Str(a), Scalar::Str(b)) => {
                        Ok(Cell::Value(Scalar::Str(format!("{a}{delimiter}{b}"))))
                    }
                    _ => Err(ctx.err("listagg over non-strings".into())),
                }
            }
            BoolAnd | BoolOr => {
                let (a, b) = (self.value(ctx, &acc)?, self.value(ctx, &input)?);
                match (a, b) {
                    (Scalar::Bool(a), Scalar::Bool(b)) => {
                        Ok(Cell::Value(Scalar::Bool(if self.spec.func == BoolAnd {
                            a && b
                        } else {
                            a || b
                        })))
                    }
                    _ => Err(ctx.err("bool_and/bool_or over non-booleans".into())),
                }
            }
        }
    }

    /// `aggReversed(accumulator, input)` = `agg(input, accumulator)`; `FieldCollectAgg` overrides it
    /// with `agg(accumulator, input)`.
    fn agg_reversed(&mut self, ctx: &Ctx, acc: Cell, input: Cell) -> Result<Cell> {
        if matches!(self.spec.func, AggFunc::Collect { .. }) {
            return self.agg(ctx, acc, input);
        }
        self.agg(ctx, input, acc)
    }

    /// A cell's value for the collection functions (`Val::Null` for NULL).
    fn val(&self, ctx: &Ctx, cell: &Cell) -> Result<Val> {
        Ok(match ctx.scalar(cell, self.col)? {
            None => Val::Null,
            Some(Scalar::Nested(v)) => v,
            Some(Scalar::Bytes(b)) => Val::Bytes(b),
            Some(other) => {
                return Err(ctx.err(format!(
                    "column `{}`: {other:?} is not a collection",
                    ctx.field_name(self.col)
                )))
            }
        })
    }

    /// The cell of a collection function's result; its errors as Java's or as unsupported.
    fn computed(&self, ctx: &Ctx, r: std::result::Result<Val, AggError>) -> Result<Cell> {
        match r {
            Ok(Val::Null) => Ok(Cell::Null),
            Ok(Val::Bytes(b)) => Ok(Cell::Value(Scalar::Bytes(b))),
            Ok(v) => Ok(Cell::Value(Scalar::Nested(v))),
            Err(AggError::Java(m)) => Err(ctx.err(format!(
                "{} of column `{}`: {m}",
                self.spec.name,
                ctx.field_name(self.col)
            ))),
            Err(AggError::Unsupported(m)) => Err(Error::Unsupported {
                path: ctx.path.to_path_buf(),
                reason: format!(
                    "{} of column `{}`: {m}",
                    self.spec.name,
                    ctx.field_name(self.col)
                ),
            }),
        }
    }

    /// `retract(accumulator, input)`.
    fn retract(&mut self, ctx: &Ctx, acc: Cell, input: Cell) -> Result<Cell> {
        use AggFunc::*;
        if self.spec.ignore_retract {
            return Ok(acc);
        }
        match &self.spec.func {
            PrimaryKey => Ok(input),
            LastValue => Ok(Cell::Null),
            LastNonNullValue => Ok(if input.is_null() { acc } else { Cell::Null }),
            Sum => {
                if acc.is_null() || input.is_null() {
                    if !acc.is_null() {
                        return Ok(acc);
                    }
                    if input.is_null() {
                        return Ok(Cell::Null);
                    }
                    let b = self.value(ctx, &input)?;
                    return self.negate(ctx, b);
                }
                let (a, b) = (self.value(ctx, &acc)?, self.value(ctx, &input)?);
                self.arith(ctx, a, b, true)
            }
            Product => {
                if acc.is_null() || input.is_null() {
                    return Ok(if acc.is_null() { input } else { acc });
                }
                let (a, b) = (self.value(ctx, &acc)?, self.value(ctx, &input)?);
                self.divide(ctx, a, b)
            }
            Collect { element, distinct } => {
                let (a, b) = (self.val(ctx, &acc)?, self.val(ctx, &input)?);
                let r = aggregate::collect_retract(element, *distinct, &a, &b);
                self.computed(ctx, r)
            }
            MergeMap { key } => {
                let (a, b) = (self.val(ctx, &acc)?, self.val(ctx, &input)?);
                let r = aggregate::merge_map_retract(key, &a, &b);
                self.computed(ctx, r)
            }
            NestedUpdate { fields, key } => {
                let (a, b) = (self.val(ctx, &acc)?, self.val(ctx, &input)?);
                let r = aggregate::NestedUpdate { fields, key }.retract(&a, &b);
                self.computed(ctx, r)
            }
            _ => Err(self.unsupported_retract(ctx)),
        }
    }

    fn value(&self, ctx: &Ctx, cell: &Cell) -> Result<Scalar> {
        ctx.scalar(cell, self.col)?.ok_or_else(|| {
            ctx.err(format!(
                "column `{}`: unexpected NULL",
                ctx.field_name(self.col)
            ))
        })
    }

    fn wrap(&self, v: i64) -> i64 {
        match self.spec.kind {
            TypeKind::TinyInt => v as i8 as i64,
            TypeKind::SmallInt => v as i16 as i64,
            TypeKind::Int => v as i32 as i64,
            _ => v,
        }
    }

    fn decimal_fit(&self, v: Option<i128>) -> Cell {
        let precision = match self.spec.kind {
            TypeKind::Decimal { precision, .. } => precision as u32,
            _ => 38,
        };
        match v {
            Some(v) if number_digits(v) <= precision => Cell::Value(Scalar::Decimal(v)),
            _ => Cell::Null,
        }
    }

    /// Sum (`subtract` false) or difference of two non-null values (`FieldSumAgg`).
    fn arith(&self, ctx: &Ctx, a: Scalar, b: Scalar, subtract: bool) -> Result<Cell> {
        Ok(match (a, b) {
            (Scalar::Int(a), Scalar::Int(b)) => Cell::Value(Scalar::Int(self.wrap(if subtract {
                a.wrapping_sub(b)
            } else {
                a.wrapping_add(b)
            }))),
            (Scalar::Float(a), Scalar::Float(b)) => {
                Cell::Value(Scalar::Float(if subtract { a - b } else { a + b }))
            }
            (Scalar::Double(a), Scalar::Double(b)) => {
                Cell::Value(Scalar::Double(if subtract { a - b } else { a + b }))
            }
            (Scalar::Decimal(a), Scalar::Decimal(b)) => {
                let compact = matches!(self.spec.kind, TypeKind::Decimal { precision, .. } if precision <= 18);
                if compact {
                    let exact = if subtract {
                        (a as i64).checked_sub(b as i64)
                    } else {
                        (a as i64).checked_add(b as i64)
                    };
                    if let Some(v) = exact {
                        // DecimalUtils.add/subtract keep a compact result without a precision check.
                        return Ok(Cell::Value(Scalar::Decimal(v as i128)));
                    }
                }
                self.decimal_fit(if subtract {
                    a.checked_sub(b)
                } else {
                    a.checked_add(b)
                })
            }
            _ => return Err(ctx.err("sum over non-numbers".into())),
        })
    }

    fn negate(&self, ctx: &Ctx, b: Scalar) -> Result<Cell> {
        Ok(match b {
            Scalar::Int(v) => Cell::Value(Scalar::Int(self.wrap(v.wrapping_neg()))),
            Scalar::Float(v) => Cell::Value(Scalar::Float(-v)),
            Scalar::Double(v) => Cell::Value(Scalar::Double(-v)),
            Scalar::Decimal(v) => Cell::Value(Scalar::Decimal(-v)),
            _ => return Err(ctx.err("sum over non-numbers".into())),
        })
    }

    fn multiply(&self, ctx: &Ctx, a: Scalar, b: Scalar) -> Result<Cell> {
        Ok(match (a, b) {
            (Scalar::Int(a), Scalar::Int(b)) => {
                Cell::Value(Scalar::Int(self.wrap(a.wrapping_mul(b))))
            }
            (Scalar::Float(a), Scalar::Float(b)) => Cell::Value(Scalar::Float(a * b)),
            (Scalar::Double(a), Scalar::Double(b)) => Cell::Value(Scalar::Double(a * b)),
            (Scalar::Decimal(a), Scalar::Decimal(b)) => {
                let scale = match self.spec.kind {
                    TypeKind::Decimal { scale, .. } => scale.max(0) as u32,
                    _ => 0,
                };
                // BigDecimal multiply (scale 2s), then setScale(s, HALF_UP) and the precision check.
                let product = a.checked_mul(b);
                let rescaled = product.and_then(|p| {
                    let d = 10i128.checked_pow(scale)?;
                    let q = p / d;
                    let r = p % d;
                    Some(if r.unsigned_abs() * 2 >= d.unsigned_abs() {
                        q + p.signum()
                    } else {
                        q
                    })
                });
                self.decimal_fit(rescaled)
            }
            _ => return Err(ctx.err("product over non-numbers".into())),
        })
    }

    fn divide(&self, ctx: &Ctx, a: Scalar, b: Scalar) -> Result<Cell> {
        Ok(match (a, b) {
            (Scalar::Int(_), Scalar::Int(0)) => {
                return Err(ctx.err(format!(
                    "/ by zero retracting product of column `{}`",
                    ctx.field_name(self.col)
                )))
            }
            (Scalar::Int(a), Scalar::Int(b)) => {
                Cell::Value(Scalar::Int(self.wrap(a.wrapping_div(b))))
            }
            (Scalar::Float(a), Scalar::Float(b)) => Cell::Value(Scalar::Float(a / b)),
            (Scalar::Double(a), Scalar::Double(b)) => Cell::Value(Scalar::Double(a / b)),
            (Scalar::Decimal(_), Scalar::Decimal(_)) => {
                return Err(Error::Unsupported {
                    path: ctx.path.to_path_buf(),
                    reason: format!(
                        "retracting a DECIMAL product (BigDecimal.divide) of column `{}`",
                        ctx.field_name(self.col)
                    ),
                })
            }
            _ => return Err(ctx.err("product over non-numbers".into())),
        })
    }
}

// ---------------------------------------------------------------------------------------------------------
// Merge functions
// ---------------------------------------------------------------------------------------------------------

/// The result of merging the records of one key.
enum Merged {
    Whole(Rec),
    Cells { kind: i8, cells: Vec<Cell> },
}

/// A merge engine's `MergeFunction` behind `ReducerMergeFunctionWrapper`.
struct MergeFunction {
    engine: Engine,
    fields: usize,
    initial: Option<Rec>,
    merging: bool,
    /// deduplicate / first-row: the chosen record.
    chosen: Option<Rec>,
    /// partial-update / aggregation: the row being built, its kind.
    row: Vec<Cell>,
    delete_row: bool,
    aggs: Vec<Option<FieldAgg>>,
    latest: Option<Rec>,
}

impl MergeFunction {
    fn new(engine: Engine, fields: usize) -> MergeFunction {
        let aggs = match &engine {
            Engine::Aggregate(specs) => specs
                .iter()
                .enumerate()
                .map(|(i, s)| Some(FieldAgg::new(s.clone(), i)))
                .collect(),
            Engine::PartialUpdate(cfg) => cfg
                .aggregators
                .iter()
                .enumerate()
                .map(|(i, s)| s.clone().map(|s| FieldAgg::new(s, i)))
                .collect(),
            _ => Vec::new(),
        };
        MergeFunction {
            engine,
            fields,
            initial: None,
            merging: false,
            chosen: None,
            row: vec![Cell::Null; fields],
            delete_row: false,
            aggs,
            latest: None,
        }
    }

    fn reset(&mut self) {
        self.initial = None;
        self.merging = false;
        self.chosen = None;
        if matches!(self.engine, Engine::PartialUpdate(_) | Engine::Aggregate(_)) {
            self.row.clear();
            self.row.resize(self.fields, Cell::Null);
        }
        self.delete_row = false;
        self.latest = None;
        for a in self.aggs.iter_mut().flatten() {
            a.reset();
        }
    }

    /// `ReducerMergeFunctionWrapper.add`.
    fn add(&mut self, ctx: &mut Ctx, rec: Rec) -> Result<()> {
        match self.initial {
            None => {
                self.initial = Some(rec);
                Ok(())
            }
            Some(first) => {
                if !self.merging {
                    self.merging = true;
                    self.merge(ctx, first)?;
                }
                self.merge(ctx, rec)
            }
        }
    }

    /// `ReducerMergeFunctionWrapper.getResult`.
    fn result(&mut self) -> Option<Merged> {
        if !self.merging {
            return self.initial.map(Merged::Whole);
        }
        match &self.engine {
            Engine::Deduplicate { .. } | Engine::FirstRow { .. } => self.chosen.map(Merged::Whole),
            Engine::PartialUpdate(_) => Some(Merged::Cells {
                kind: if self.delete_row { DELETE } else { INSERT },
                cells: std::mem::take(&mut self.row),
            }),
            Engine::Aggregate(_) => self.latest.map(|_| Merged::Cells {
                kind: INSERT,
                cells: std::mem::take(&mut self.row),
            }),
        }
    }

    fn merge(&mut self, ctx: &mut Ctx, rec: Rec) -> Result<()> {
        let retract = !is_add(rec.kind);
        match &self.engine {
            Engine::Deduplicate { ignore_delete } => {
                if !(*ignore_delete && retract) {
                    self.chosen = Some(rec);
                }
                Ok(())
            }
            Engine::FirstRow { ignore_delete } => {
                if retract {
                    if *ignore_delete {
                        return Ok(());
                    }
                    return Err(ctx.err(
                        "By default, First row merge engine can not accept DELETE/UPDATE_BEFORE \
                         records. You can config 'first-row.ignore-delete' to ignore the \
                         DELETE/UPDATE_BEFORE records."
                            .into(),
                    ));
                }
                if self.chosen.is_none() {
                    self.chosen = Some(rec);
                }
                Ok(())
            }
            Engine::Aggregate(_) => {
                self.latest = Some(rec);
                for i in 0..self.fields {
                    let input = ctx.field(rec, i)?;
                    let acc = std::mem::replace(&mut self.row[i], Cell::Null);
                    let Some(Some(agg)) = self.aggs.get_mut(i) else {
                        return Err(tree_bug(i as isize));
                    };
                    self.row[i] = if retract {
                        agg.retract(ctx, acc, input)?
                    } else {
                        agg.agg(ctx, acc, input)?
                    };
                }
                Ok(())
            }
            Engine::PartialUpdate(cfg) => {
                let cfg = cfg.clone();
                self.partial_update(ctx, &cfg, rec, retract)
            }
        }
    }

    fn partial_update(
        &mut self,
        ctx: &mut Ctx,
        cfg: &PartialUpdateConfig,
        rec: Rec,
        retract: bool,
    ) -> Result<()> {
        self.delete_row = false;
        let grouped = cfg.groups.iter().any(Option::is_some);
        if retract {
            if cfg.ignore_delete {
                return Ok(());
            }
            if grouped {
                return self.retract_with_sequence_group(ctx, cfg, rec);
            }
            if cfg.remove_record_on_delete {
                if rec.kind == DELETE {
                    self.delete_row = true;
                    self.row = vec![Cell::Null; self.fields];
                }
                return Ok(());
            }
            return Err(ctx.err(
                "By default, Partial update can not accept delete records, you can choose one of \
                 the following solutions: 1. Configure 'ignore-delete' to ignore delete records. \
                 2. Configure 'partial-update.remove-record-on-delete' to remove the whole row \
                 when receiving delete records. 3. Configure 'sequence-group's to retract partial \
                 columns."
                    .into(),
            ));
        }
        if !grouped {
            for i in 0..self.fields {
                let v = ctx.field(rec, i)?;
                if !v.is_null() {
                    self.row[i] = v;
                }
            }
            return Ok(());
        }
        for i in 0..self.fields {
            let field = ctx.field(rec, i)?;
            let acc = self.row[i].clone();
            match &cfg.groups[i] {
                None => {
                    if let Some(Some(agg)) = self.aggs.get_mut(i) {
                        self.row[i] = agg.agg(ctx, acc, field)?;
                    } else if !field.is_null() {
                        self.row[i] = field;
                    }
                }
                Some(seq) => {
                    if self.group_is_empty(ctx, rec, seq)? {
                        continue;
                    }
                    if self.compare_group(ctx, rec, seq)? != Ordering::Less {
                        if seq.contains(&i) {
                            for &s in seq.iter() {
                                self.row[s] = ctx.field(rec, s)?;
                            }
                        }
                        self.row[i] = match self.aggs.get_mut(i) {
                            Some(Some(agg)) => agg.agg(ctx, acc, field)?,
                            _ => field,
                        };
                    } else if let Some(Some(agg)) = self.aggs.get_mut(i) {
                        self.row[i] = agg.agg_reversed(ctx, acc, field)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn retract_with_sequence_group(
        &mut self,
        ctx: &mut Ctx,
        cfg: &PartialUpdateConfig,
        rec: Rec,
    ) -> Result<()> {
        let mut updated: Vec<usize> = Vec::new();
        for i in 0..self.fields {
            let Some(seq) = &cfg.groups[i] else {
                continue;
            };
            if self.group_is_empty(ctx, rec, seq)? {
                continue;
            }
            if self.compare_group(ctx, rec, seq)? != Ordering::Less {
                if seq.contains(&i) {
                    for &s in seq.iter() {
                        if updated.contains(&s) {
                            continue;
                        }
                        if rec.kind == DELETE && cfg.partial_delete.contains(&s) {
                            self.delete_row = true;
                            self.row = vec![Cell::Null; self.fields];
                            return Ok(());
                        }
                        self.row[s] = ctx.field(rec, s)?;
                        updated.push(s);
                    }
                } else {
                    match self.aggs.get_mut(i) {
                        Some(Some(agg)) => {
                            let acc = self.row[i].clone();
                            let input = ctx.field(rec, i)?;
                            self.row[i] = agg.retract(ctx, acc, input)?;
                        }
                        _ => self.row[i] = Cell::Null,
                    }
                }
            } else if let Some(Some(agg)) = self.aggs.get_mut(i) {
                let acc = self.row[i].clone();
                let input = ctx.field(rec, i)?;
                self.row[i] = agg.retract(ctx, acc, input)?;
            }
        }
        Ok(())
    }

    fn group_is_empty(&self, ctx: &mut Ctx, rec: Rec, seq: &[usize]) -> Result<bool> {
        for &s in seq {
            if !ctx.field(rec, s)?.is_null() {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The sequence-group comparator (`UserDefinedSeqComparator`, ascending, NULL first) of the record's
    /// sequence fields against the row being built.
    fn compare_group(&self, ctx: &mut Ctx, rec: Rec, seq: &[usize]) -> Result<Ordering> {
        for &s in seq {
            let input = ctx.field(rec, s)?;
            let a = ctx.scalar(&input, s)?;
            let b = ctx.scalar(&self.row[s], s)?;
            let c = match (a, b) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Less,
                (Some(_), None) => Ordering::Greater,
                (Some(a), Some(b)) => compare_codegen(&a, &b),
            };
            if c != Ordering::Equal {
                return Ok(c);
            }
        }
        Ok(Ordering::Equal)
    }
}

// ---------------------------------------------------------------------------------------------------------
// The merge reader
// ---------------------------------------------------------------------------------------------------------

/// A section being read.
enum SectionState {
    /// One run: every key once, streamed without the tree.
    Single(Box<Run>),
    /// Several runs merged by the loser tree.
    Merging(LoserTree),
}

/// `MergeFileSplitRead.createMergeReader` + `DropDeleteReader` over one split.
struct MergeReader {
    ctx: RunContext,
    schema: SchemaRef,
    fields: Vec<DataField>,
    bucket_path: PathBuf,
    sections: std::vec::IntoIter<Vec<RunSource>>,
    current: Option<SectionState>,
    function: MergeFunction,
    chunk: Chunk,
    batch_size: usize,
    done: bool,
}

impl MergeReader {
    fn new(table: &Arc<Table>, split: &Split, batch_size: usize) -> Result<MergeReader> {
        let bucket_path = PathBuf::from(&split.bucket_path);
        if !split.deletion_files.is_empty() && split.deletion_files.len() != split.data_files.len()
        {
            return Err(Error::Decode {
                path: bucket_path,
                reason: format!(
                    "{} deletion files for {} data files",
                    split.deletion_files.len(),
                    split.data_files.len()
                ),
            });
        }
        // Sections of sorted runs over the split's files, as IntervalPartition builds them.
        let comparator = KeyComparator::new(table.schema());
        let mut keyed = Vec::with_capacity(split.data_files.len());
        for (i, f) in split.data_files.iter().enumerate() {
            let path = bucket_path.join(&f.file_name);
            if f.min_key.is_empty() || f.max_key.is_empty() {
                return Err(Error::Unsupported {
                    path,
                    reason: "the split carries no min/max key of this file; it cannot be merged"
                        .into(),
                });
            }
            let dv = split.deletion_files.get(i).cloned().flatten();
            keyed.push(KeyedFile {
                min_key: comparator.decode(&f.min_key, &path)?,
                max_key: comparator.decode(&f.max_key, &path)?,
                file: (f.clone(), dv),
            });
        }
        let sections: Vec<Vec<RunSource>> = interval_partition(keyed, &comparator)
            .into_iter()
            .map(|runs| {
                runs.into_iter()
                    .map(|run| {
                        let files: Vec<_> = run.into_iter().map(|k| k.file).collect();
                        RunSource::Files {
                            files: files.into_iter(),
                            reader: None,
                        }
                    })
                    .collect()
            })
            .collect();
        Self::with_sections(table, &split.bucket_path, sections, batch_size)
    }

    /// The reader of `sections` (each a list of runs) of a bucket of `table`.
    fn with_sections(
        table: &Arc<Table>,
        bucket_path: &str,
        sections: Vec<Vec<RunSource>>,
        batch_size: usize,
    ) -> Result<MergeReader> {
        let schema = table.schema();
        let fields = schema.fields.clone();
        let column = |name: &str| -> Result<usize> {
            fields
                .iter()
                .position(|f| f.name == name)
                .map(|i| i + VALUE_OFFSET)
                .ok_or_else(|| Error::Merge {
                    path: table.path().to_path_buf(),
                    reason: format!("column `{name}` is not in the table schema"),
                })
        };
        let key_columns: Vec<usize> = schema
            .trimmed_primary_keys()
            .iter()
            .map(|f| column(&f.name))
            .collect::<Result<_>>()?;
        let sort_fields = |cols: &[usize], options: SortOptions| -> Vec<SortField> {
            cols.iter()
                .map(|c| {
                    let dt = crate::types::arrow_type(&fields[c - VALUE_OFFSET].data_type);
                    SortField::new_with_options(dt, options)
                })
                .collect()
        };
        let row_err = |e: arrow_schema::ArrowError| Error::Unsupported {
            path: table.path().to_path_buf(),
            reason: format!("cannot compare keys: {e}"),
        };
        let keys = RowConverter::new(sort_fields(&key_columns, SortOptions::default()))
            .map_err(row_err)?;
        let user_sequence = match &table.options().sequence_field {
            None => None,
            Some(names) => {
                let cols: Vec<usize> = names
                    .split(',')
                    .map(|n| column(n.trim()))
                    .collect::<Result<_>>()?;
                let descending = option(table, "sequence.field.sort-order")
                    .is_some_and(|o| o.eq_ignore_ascii_case("descending"));
                let conv = RowConverter::new(sort_fields(
                    &cols,
                    SortOptions {
                        descending,
                        nulls_first: true,
                    },
                ))
                .map_err(row_err)?;
                Some((cols, conv))
            }
        };
        let engine = engine(table)?;
        Ok(MergeReader {
            ctx: RunContext {
                table: table.clone(),
                bucket_path: bucket_path.to_string(),
                options: FileReadOptions {
                    with_sequence_number: true,
                    batch_size,
                },
                key_columns,
                keys,
                user_sequence,
            },
            schema: Arc::new(read_schema(&fields)),
            function: MergeFunction::new(engine, fields.len()),
            fields,
            bucket_path: PathBuf::from(bucket_path),
            sections: sections.into_iter(),
            current: None,
            chunk: Chunk {
                generation: 0,
                sources: Vec::new(),
                rows: Vec::new(),
            },
            batch_size,
            done: false,
        })
    }

    /// The next output batch, `None` at the end.
    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        while !self.done {
            if self.current.is_none() {
                match self.sections.next() {
                    None => {
                        self.done = true;
                        break;
                    }
                    Some(mut runs) => {
                        self.current = Some(if runs.len() == 1 {
                            match runs.pop() {
                                Some(run) => SectionState::Single(Box::new(Run::new(run, false))),
                                None => continue,
                            }
                        } else {
                            SectionState::Merging(LoserTree::new(
                                runs.into_iter().map(|r| Run::new(r, true)).collect(),
                            ))
                        });
                    }
                }
            }
            match self.current.as_mut() {
                Some(SectionState::Single(run)) => {
                    // Rows of earlier sections go out first.
                    if !self.chunk.rows.is_empty() {
                        return self.flush().map(Some);
                    }
                    match next_single(&self.ctx, run, &self.schema)? {
                        Some(batch) => return Ok(Some(batch)),
                        None => self.current = None,
                    }
                }
                Some(SectionState::Merging(tree)) => {
                    let more = merge_section(
                        &self.ctx,
                        tree,
                        &mut self.function,
                        &mut self.chunk,
                        &self.bucket_path,
                        &self.fields,
                        self.batch_size,
                    )?;
                    if !more {
                        self.current = None;
                    }
                    if self.chunk.rows.len() >= self.batch_size {
                        return self.flush().map(Some);
                    }
                }
                None => {}
            }
        }
        if self.chunk.rows.is_empty() {
            Ok(None)
        } else {
            self.flush().map(Some)
        }
    }

    /// Builds the output batch of the chunk and starts a new chunk.
    fn flush(&mut self) -> Result<RecordBatch> {
        let rows = std::mem::take(&mut self.chunk.rows);
        let sources = std::mem::take(&mut self.chunk.sources);
        self.chunk.generation += 1;
        build_batch(
            &self.schema,
            &self.fields,
            &sources,
            &rows,
            &self.bucket_path,
        )
    }
}

/// The next batch of a single-run section: its rows without `-U`/`-D`, kinds kept.
fn next_single(ctx: &RunContext, run: &mut Run, schema: &SchemaRef) -> Result<Option<RecordBatch>> {
    loop {
        run.step_batch(ctx)?;
        let Some(current) = &run.current else {
            return Ok(None);
        };
        let batch = &current.batch;
        let keep = BooleanArray::from_iter(current.kinds.iter().map(|k| Some(is_add(*k))));
        let columns: Vec<ArrayRef> = batch.columns()[1..].to_vec();
        let filtered = if keep.true_count() == batch.num_rows() {
            columns
        } else {
            columns
                .iter()
                .map(|c| arrow_select::filter::filter(c, &keep))
                .collect::<std::result::Result<_, _>>()
                .map_err(|e| Error::Decode {
                    path: PathBuf::from(&ctx.bucket_path),
                    reason: e.to_string(),
                })?
        };
        if keep.true_count() == 0 {
            continue;
        }
        return RecordBatch::try_new(schema.clone(), filtered)
            .map(Some)
            .map_err(|e| Error::Decode {
                path: PathBuf::from(&ctx.bucket_path),
                reason: e.to_string(),
            });
    }
}

impl Run {
    /// Moves to the next whole batch (for single-run sections).
    fn step_batch(&mut self, ctx: &RunContext) -> Result<()> {
        if let Some(c) = &self.current {
            self.row = c.batch.num_rows().saturating_sub(1);
        }
        self.step(ctx)
    }
}

/// Merges keys of a multi-run section into the chunk until it holds `batch_size` rows; false when the
/// section is exhausted.
fn merge_section(
    ctx: &RunContext,
    tree: &mut LoserTree,
    function: &mut MergeFunction,
    chunk: &mut Chunk,
    path: &Path,
    fields: &[DataField],
    batch_size: usize,
) -> Result<bool> {
    tree.initialize(ctx)?;
    let mut group: Vec<usize> = Vec::with_capacity(tree.runs.len());
    while chunk.rows.len() < batch_size {
        tree.adjust_for_next_loop(ctx)?;
        let Some(first) = tree.pop_winner()? else {
            return Ok(false);
        };
        function.reset();
        group.clear();
        group.push(first);
        while let Some(next) = tree.peek_winner()? {
            tree.pop_winner()?;
            group.push(next);
        }
        let mut c = Ctx {
            runs: &mut tree.runs,
            chunk,
            path,
            fields,
        };
        for &run in group.iter() {
            let r = c.run(run)?;
            let rec = Rec {
                run,
                row: r.row,
                kind: r.kind(),
            };
            function.add(&mut c, rec)?;
        }
        // DropDeleteReader: only +I and +U results are kept.
        match function.result() {
            Some(Merged::Whole(rec)) if is_add(rec.kind) => {
                let src = c.source(rec)?;
                c.chunk.rows.push(OutRow::Whole {
                    src,
                    row: rec.row,
                    kind: rec.kind,
                });
            }
            Some(Merged::Cells { kind, cells }) if is_add(kind) => {
                c.chunk.rows.push(OutRow::Cells { kind, cells });
            }
            _ => {}
        }
    }
    Ok(true)
}

/// Assembles an output batch: `_row_kind`, then each value column by `interleave` of the picked input
/// values, or from computed values when a column has any.
fn build_batch(
    schema: &SchemaRef,
    fields: &[DataField],
    sources: &[RecordBatch],
    rows: &[OutRow],
    path: &Path,
) -> Result<RecordBatch> {
    let err = |reason: String| Error::Decode {
        path: path.to_path_buf(),
        reason,
    };
    let kinds: Vec<i8> = rows
        .iter()
        .map(|r| match r {
            OutRow::Whole { kind, .. } | OutRow::Cells { kind, .. } => *kind,
        })
        .collect();
    let mut columns: Vec<ArrayRef> = vec![Arc::new(Int8Array::from(kinds))];
    for (c, field) in schema.fields().iter().skip(1).enumerate() {
        let computed = rows.iter().any(|r| {
            matches!(r, OutRow::Cells { cells, .. } if matches!(cells.get(c), Some(Cell::Value(_))))
        });
        let array = if computed {
            let mut values = Vec::with_capacity(rows.len());
            for r in rows {
                let cell = match r {
                    OutRow::Whole { src, row, .. } => Cell::Pick {
                        src: *src,
                        row: *row,
                    },
                    OutRow::Cells { cells, .. } => cells.get(c).cloned().unwrap_or(Cell::Null),
                };
                values.push(match cell {
                    Cell::Null => None,
                    Cell::Value(v) => Some(v),
                    Cell::Pick { src, row } => {
                        let batch = sources.get(src).ok_or_else(|| tree_bug(src as isize))?;
                        scalar_at(batch.column(c + VALUE_OFFSET).as_ref(), row).map_err(&err)?
                    }
                });
            }
            scalars_to_array(field.data_type(), values).map_err(|e| {
                err(format!(
                    "column `{}`: {e}",
                    fields.get(c).map_or("?", |f| f.name.as_str())
                ))
            })?
        } else {
            let null = new_null_array(field.data_type(), 1);
            let mut arrays: Vec<&dyn Array> = vec![null.as_ref()];
            for s in sources {
                arrays.push(s.column(c + VALUE_OFFSET).as_ref());
            }
            let indices: Vec<(usize, usize)> = rows
                .iter()
                .map(|r| match r {
                    OutRow::Whole { src, row, .. } => (src + 1, *row),
                    OutRow::Cells { cells, .. } => match cells.get(c) {
                        Some(Cell::Pick { src, row }) => (src + 1, *row),
                        _ => (0, 0),
                    },
                })
                .collect();
            arrow_select::interleave::interleave(&arrays, &indices)
                .map_err(|e| err(e.to_string()))?
        };
        columns.push(array);
    }
    RecordBatch::try_new(schema.clone(), columns).map_err(|e| err(e.to_string()))
}

/// An Arrow array of `data_type` from computed values.
fn scalars_to_array(
    data_type: &ArrowType,
    values: Vec<Option<Scalar>>,
) -> std::result::Result<ArrayRef, String> {
    fn ints(values: &[Option<Scalar>]) -> std::result::Result<Vec<Option<i64>>, String> {
        values
            .iter()
            .map(|v| match v {
                None => Ok(None),
                Some(Scalar::Int(i)) => Ok(Some(*i)),
                Some(other) => Err(format!("{other:?} is not an integer")),
            })
            .collect()
    }
    let bad = |v: &Scalar| format!("{v:?} does not fit {data_type}");
    Ok(match data_type {
        ArrowType::Int8 => Arc::new(Int8Array::from(
            ints(&values)?
                .into_iter()
                .map(|v| v.map(|v| v as i8))
                .collect::<Vec<_>>(),
        )),
        ArrowType::Int16 => Arc::new(Int16Array::from(
            ints(&values)?
                .into_iter()
                .map(|v| v.map(|v| v as i16))
                .collect::<Vec<_>>(),
        )),
        ArrowType::Int32 => Arc::new(Int32Array::from(
            ints(&values)?
                .into_iter()
                .map(|v| v.map(|v| v as i32))
                .collect::<Vec<_>>(),
        )),
        ArrowType::Int64 => Arc::new(Int64Array::from(ints(&values)?)),
        ArrowType::Float32 => Arc::new(Float32Array::from(
            values
                .iter()
                .map(|v| match v {
                    None => Ok(None),
                    Some(Scalar::Float(f)) => Ok(Some(*f)),
                    Some(o) => Err(bad(o)),
                })
                .collect::<std::result::Result<Vec<_>, _>>()?,
        )),
        ArrowType::Float64 => Arc::new(Float64Array::from(
            values
                .iter()
                .map(|v| match v {
                    None => Ok(None),
                    Some(Scalar::Double(f)) => Ok(Some(*f)),
                    Some(o) => Err(bad(o)),
                })
                .collect::<std::result::Result<Vec<_>, _>>()?,
        )),
        ArrowType::Decimal128(p, s) => Arc::new(
            Decimal128Array::from(
                values
                    .iter()
                    .map(|v| match v {
                        None => Ok(None),
                        Some(Scalar::Decimal(d)) => Ok(Some(*d)),
                        Some(o) => Err(bad(o)),
                    })
                    .collect::<std::result::Result<Vec<_>, _>>()?,
            )
            .with_precision_and_scale(*p, *s)
            .map_err(|e| e.to_string())?,
        ),
        ArrowType::Boolean => Arc::new(BooleanArray::from(
            values
                .iter()
                .map(|v| match v {
                    None => Ok(None),
                    Some(Scalar::Bool(b)) => Ok(Some(*b)),
                    Some(o) => Err(bad(o)),
                })
                .collect::<std::result::Result<Vec<_>, _>>()?,
        )),
        ArrowType::Utf8 => Arc::new(StringArray::from(
            values
                .into_iter()
                .map(|v| match v {
                    None => Ok(None),
                    Some(Scalar::Str(s)) => Ok(Some(s)),
                    Some(o) => Err(bad(&o)),
                })
                .collect::<std::result::Result<Vec<_>, _>>()?,
        )),
        ArrowType::Binary => Arc::new(BinaryArray::from_iter(
            values
                .into_iter()
                .map(|v| match v {
                    None => Ok(None),
                    Some(Scalar::Bytes(b)) => Ok(Some(b)),
                    Some(o) => Err(bad(&o)),
                })
                .collect::<std::result::Result<Vec<_>, _>>()?,
        )),
        ArrowType::List(_) | ArrowType::Map(_, _) | ArrowType::Struct(_) => Val::to_arrow(
            data_type,
            &values
                .into_iter()
                .map(|v| match v {
                    None => Ok(Val::Null),
                    Some(Scalar::Nested(v)) => Ok(v),
                    Some(o) => Err(bad(&o)),
                })
                .collect::<std::result::Result<Vec<_>, _>>()?,
        )?,
        other => return Err(format!("computed values of type {other} are not supported")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    use arrow_array::builder::{BooleanBuilder, Int32Builder, Int64Builder, StringBuilder};
    use serde_json::{json, Value};

    #[test]
    fn java_float_order() {
        assert_eq!(java_float_compare(f64::NAN, 1.0), Ordering::Greater);
        assert_eq!(java_float_compare(-0.0, 0.0), Ordering::Less);
        assert_eq!(java_float_compare(f64::NAN, f64::NAN), Ordering::Equal);
        assert_eq!(
            compare_codegen(&Scalar::Double(-0.0), &Scalar::Double(0.0)),
            Ordering::Equal
        );
    }

    #[test]
    fn digits() {
        assert_eq!(number_digits(0), 1);
        assert_eq!(number_digits(999), 3);
        assert_eq!(number_digits(-1000), 4);
    }

    #[test]
    fn scalars_round_trip_through_arrays() {
        let a = scalars_to_array(
            &ArrowType::Decimal128(5, 2),
            vec![Some(Scalar::Decimal(12345)), None],
        )
        .unwrap();
        assert_eq!(
            scalar_at(a.as_ref(), 0).unwrap(),
            Some(Scalar::Decimal(12345))
        );
        assert_eq!(scalar_at(a.as_ref(), 1).unwrap(), None);
        assert!(scalars_to_array(&ArrowType::Int32, vec![Some(Scalar::Str("x".into()))]).is_err());
    }

    #[test]
    fn read_kind_follows_key_value_table_read() {
        let split = |streaming, raw, drc: Option<i64>| Split {
            snapshot_id: 1,
            partition: vec![],
            bucket: 0,
            bucket_path: "/t/bucket-0".into(),
            data_files: vec![DataFileDesc {
                file_name: "f".into(),
                level: 1,
                row_count: 1,
                file_size: 1,
                min_sequence_number: 0,
                max_sequence_number: 0,
                schema_id: 0,
                delete_row_count: drc,
                min_key: vec![],
                max_key: vec![],
            }],
            before_files: vec![],
            before_deletion_files: vec![],
            deletion_files: vec![],
            is_streaming: streaming,
            raw_convertible: raw,
        };
        use SplitReadKind::*;
        assert_eq!(
            split_read_kind(false, &split(false, false, None)).unwrap(),
            NoMerge
        );
        assert_eq!(
            split_read_kind(true, &split(false, true, Some(0))).unwrap(),
            Raw
        );
        // unknown delete-row counts force the merge reader (legacy files)
        assert_eq!(
            split_read_kind(true, &split(false, true, None)).unwrap(),
            Merge
        );
        assert_eq!(
            split_read_kind(true, &split(true, true, Some(0))).unwrap(),
            NoMerge
        );
        assert_eq!(
            split_read_kind(true, &split(false, false, Some(0))).unwrap(),
            Merge
        );
        let mut with_before = split(false, false, Some(0));
        with_before.before_files = with_before.data_files.clone();
        // a batch split with before-files (IncrementalDiffSplitRead) is not read natively
        assert!(matches!(
            split_read_kind(true, &with_before),
            Err(Error::Unsupported { .. })
        ));
        // a streaming one is a changes split (IncrementalChangelogReadProvider), raw-convertible or not
        let mut streaming_before = split(true, true, Some(0));
        streaming_before.before_files = streaming_before.data_files.clone();
        assert_eq!(split_read_kind(true, &streaming_before).unwrap(), Changes);
        // without before-files a streaming split stays a no-merge split (MergeFileSplitReadProvider)
        assert_eq!(
            split_read_kind(true, &split(true, false, Some(0))).unwrap(),
            NoMerge
        );
    }

    /// A table with `fields` (JSON DataFields), primary key `pk` and `options`, in a temporary directory.
    fn table(dir: &Path, fields: Value, pk: &[&str], options: Value) -> Arc<Table> {
        std::fs::create_dir_all(dir.join("schema")).unwrap();
        let schema = json!({"version": 3, "id": 0, "fields": fields, "highestFieldId": 10,
            "partitionKeys": [], "primaryKeys": pk, "options": options});
        std::fs::write(dir.join("schema/schema-0"), schema.to_string()).unwrap();
        Arc::new(Table::open(dir).unwrap())
    }

    fn kv_fields(extra: &[(&str, &str)]) -> Value {
        let mut fields = vec![json!({"id": 0, "name": "k", "type": "INT NOT NULL"})];
        for (i, (name, ty)) in extra.iter().enumerate() {
            fields.push(json!({"id": i + 1, "name": name, "type": ty}));
        }
        Value::Array(fields)
    }

    /// One batch in `read_file`'s shape: rows of (sequence, kind, values in column order).
    fn batch(table: &Table, rows: &[(i64, i8, Value)]) -> RecordBatch {
        let schema = Arc::new(crate::decode::file_read_schema(table, true));
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(
                rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            )),
            Arc::new(Int8Array::from(
                rows.iter().map(|r| r.1).collect::<Vec<_>>(),
            )),
        ];
        for (c, field) in schema.fields().iter().enumerate().skip(2) {
            let values: Vec<&Value> = rows.iter().map(|r| &r.2[c - 2]).collect();
            let array: ArrayRef = match field.data_type() {
                ArrowType::Int32 => {
                    let mut b = Int32Builder::new();
                    values
                        .iter()
                        .for_each(|v| b.append_option(v.as_i64().map(|x| x as i32)));
                    Arc::new(b.finish())
                }
                ArrowType::Int64 => {
                    let mut b = Int64Builder::new();
                    values.iter().for_each(|v| b.append_option(v.as_i64()));
                    Arc::new(b.finish())
                }
                ArrowType::Utf8 => {
                    let mut b = StringBuilder::new();
                    values.iter().for_each(|v| b.append_option(v.as_str()));
                    Arc::new(b.finish())
                }
                ArrowType::Boolean => {
                    let mut b = BooleanBuilder::new();
                    values.iter().for_each(|v| b.append_option(v.as_bool()));
                    Arc::new(b.finish())
                }
                other => {
                    let vals: Vec<Val> = values.iter().map(|v| json_val(other, v)).collect();
                    Val::to_arrow(other, &vals).unwrap()
                }
            };
            columns.push(array);
        }
        RecordBatch::try_new(schema, columns).unwrap()
    }

    /// Merges one section whose runs are given as rows; returns `kind v1 v2 ...` per output row.
    fn merge(table: &Arc<Table>, runs: Vec<Vec<(i64, i8, Value)>>) -> Result<Vec<String>> {
        let section: Vec<RunSource> = runs
            .iter()
            .map(|rows| RunSource::Memory(VecDeque::from(vec![batch(table, rows)])))
            .collect();
        let mut reader = MergeReader::with_sections(table, "/t/bucket-0", vec![section], 2)?;
        let mut out = Vec::new();
        while let Some(b) = reader.next_batch()? {
            assert!(b.num_rows() > 0 && b.num_rows() <= 2);
            for r in 0..b.num_rows() {
                let kind = ["+I", "-U", "+U", "-D"]
                    [b.column(0).as_primitive::<Int8Type>().value(r) as usize];
                let mut line = kind.to_string();
                for c in b.columns().iter().skip(1) {
                    line.push(' ');
                    line.push_str(
                        &arrow_cast::display::array_value_to_string(c.as_ref(), r).unwrap(),
                    );
                }
                out.push(line);
            }
        }
        Ok(out)
    }

    const I: i8 = INSERT;
    const UA: i8 = UPDATE_AFTER;
    const UB: i8 = 1;
    const D: i8 = DELETE;

    #[test]
    fn deduplicate_keeps_the_latest_record_and_its_kind() {
        let dir = tempfile::tempdir().unwrap();
        let t = table(dir.path(), kv_fields(&[("v", "INT")]), &["k"], json!({}));
        let runs = vec![
            vec![
                (0, I, json!([1, 10])),
                (1, I, json!([2, 20])),
                (5, I, json!([4, 40])),
            ],
            vec![
                (2, UA, json!([1, 11])),
                (3, D, json!([2, 20])),
                (4, I, json!([3, 30])),
            ],
        ];
        assert_eq!(
            merge(&t, runs.clone()).unwrap(),
            ["+U 1 11", "+I 3 30", "+I 4 40"]
        );
        // ignore-delete: the -D of key 2 is skipped, its +I stays.
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            kv_fields(&[("v", "INT")]),
            &["k"],
            json!({"ignore-delete": "true"}),
        );
        assert_eq!(
            merge(&t, runs).unwrap(),
            ["+U 1 11", "+I 2 20", "+I 3 30", "+I 4 40"]
        );
    }

    #[test]
    fn a_key_seen_once_is_emitted_unchanged_and_deletes_are_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            kv_fields(&[("v", "BIGINT")]),
            &["k"],
            json!({"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"}),
        );
        let runs = vec![
            vec![(0, UA, json!([1, 5])), (1, D, json!([2, 7]))],
            vec![(2, I, json!([3, 1]))],
        ];
        assert_eq!(merge(&t, runs).unwrap(), ["+U 1 5", "+I 3 1"]);
    }

    #[test]
    fn sequence_field_orders_records_before_the_sequence_number() {
        for (order, expected) in [("ascending", "+I 1 1 5"), ("descending", "+I 1 2 3")] {
            let dir = tempfile::tempdir().unwrap();
            let t = table(
                dir.path(),
                kv_fields(&[("v", "INT"), ("ts", "INT")]),
                &["k"],
                json!({"sequence.field": "ts", "sequence.field.sort-order": order}),
            );
            let runs = vec![
                vec![(0, I, json!([1, 1, 5]))],
                vec![(1, I, json!([1, 2, 3]))],
            ];
            assert_eq!(merge(&t, runs).unwrap(), [expected], "{order}");
        }
    }

    #[test]
    fn first_row_keeps_the_first_record_and_rejects_deletes() {
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            kv_fields(&[("v", "INT")]),
            &["k"],
            json!({"merge-engine": "first-row"}),
        );
        let runs = vec![vec![(1, UA, json!([1, 11]))], vec![(0, I, json!([1, 10]))]];
        assert_eq!(merge(&t, runs).unwrap(), ["+I 1 10"]);
        let runs = vec![vec![(1, D, json!([1, 11]))], vec![(0, I, json!([1, 10]))]];
        assert!(matches!(merge(&t, runs), Err(Error::Merge { .. })));
    }

    #[test]
    fn partial_update_merges_non_null_fields() {
        let dir = tempfile::tempdir().unwrap();
        let fields = kv_fields(&[("a", "INT"), ("b", "STRING")]);
        let t = table(
            dir.path(),
            fields.clone(),
            &["k"],
            json!({"merge-engine": "partial-update"}),
        );
        let runs = vec![
            vec![(0, I, json!([1, 1, null])), (1, I, json!([2, 2, "x"]))],
            vec![(2, UA, json!([1, null, "y"]))],
        ];
        assert_eq!(merge(&t, runs).unwrap(), ["+I 1 1 y", "+I 2 2 x"]);
        // A delete is rejected by default ...
        let runs = vec![
            vec![(0, I, json!([1, 1, "a"]))],
            vec![(1, D, json!([1, 1, "a"]))],
        ];
        assert!(matches!(merge(&t, runs.clone()), Err(Error::Merge { .. })));
        // ... removes the row with remove-record-on-delete (a later insert starts afresh) ...
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            fields.clone(),
            &["k"],
            json!({"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"}),
        );
        assert_eq!(merge(&t, runs.clone()).unwrap(), Vec::<String>::new());
        let mut again = runs.clone();
        again.push(vec![(2, I, json!([1, null, "b"]))]);
        assert_eq!(merge(&t, again).unwrap(), ["+I 1  b"]);
        // ... and is skipped with ignore-delete.
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            fields,
            &["k"],
            json!({"merge-engine": "partial-update", "ignore-delete": "true"}),
        );
        assert_eq!(merge(&t, runs).unwrap(), ["+I 1 1 a"]);
    }

    #[test]
    fn partial_update_sequence_groups() {
        // The example of Paimon's partial-update docs: two groups, each updated only by newer sequences.
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            kv_fields(&[
                ("a", "INT"),
                ("b", "INT"),
                ("g_1", "INT"),
                ("c", "INT"),
                ("d", "INT"),
                ("g_2", "INT"),
            ]),
            &["k"],
            json!({"merge-engine": "partial-update",
                   "fields.g_1.sequence-group": "a,b", "fields.g_2.sequence-group": "c,d"}),
        );
        let runs = vec![
            vec![(0, I, json!([1, 1, 1, 1, 1, 1, 1]))],
            vec![(1, I, json!([1, 2, 2, 2, null, null, null]))],
            vec![(2, I, json!([1, 3, 3, 1, 3, 3, 3]))],
        ];
        assert_eq!(merge(&t, runs).unwrap(), ["+I 1 2 2 2 3 3 3"]);
        // Retracting with an older group sequence leaves the group alone; a newer one clears it.
        let runs = vec![
            vec![(0, I, json!([1, 1, 1, 5, 1, 1, 5]))],
            vec![(1, UB, json!([1, 1, 1, 4, 1, 1, 6]))],
        ];
        assert_eq!(merge(&t, runs).unwrap(), ["+I 1 1 1 5   6"]);
    }

    #[test]
    fn aggregate_functions() {
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            kv_fields(&[
                ("s", "BIGINT"),
                ("mx", "INT"),
                ("mn", "INT"),
                ("l", "STRING"),
                ("ba", "BOOLEAN"),
                ("bo", "BOOLEAN"),
                ("p", "INT"),
                ("x", "INT"),
                ("fv", "INT"),
                ("fnn", "INT"),
                ("lv", "INT"),
            ]),
            &["k"],
            json!({"merge-engine": "aggregation",
                "fields.s.aggregate-function": "sum", "fields.mx.aggregate-function": "max",
                "fields.mn.aggregate-function": "min", "fields.l.aggregate-function": "listagg",
                "fields.l.list-agg-delimiter": "|",
                "fields.ba.aggregate-function": "bool_and", "fields.bo.aggregate-function": "bool_or",
                "fields.p.aggregate-function": "product",
                "fields.fv.aggregate-function": "first_value",
                "fields.fnn.aggregate-function": "first_non_null_value",
                "fields.lv.aggregate-function": "last_value"}),
        );
        let runs = vec![
            vec![(
                0,
                I,
                json!([1, 10, 5, 5, "a", true, false, 2, 7, null, null, 1]),
            )],
            vec![(
                1,
                UA,
                json!([1, 20, 3, 3, "b", false, false, 3, null, 8, 9, null]),
            )],
            vec![(
                2,
                I,
                json!([1, null, 9, null, null, true, true, null, null, 6, 4, 2]),
            )],
        ];
        // A merged row is +I whatever its inputs' kinds.
        assert_eq!(
            merge(&t, runs).unwrap(),
            ["+I 1 30 9 3 a|b false true 6 7  9 2"]
        );
    }

    #[test]
    fn aggregate_retraction() {
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            kv_fields(&[("s", "BIGINT"), ("m", "INT")]),
            &["k"],
            json!({"merge-engine": "aggregation", "fields.s.aggregate-function": "sum",
                   "fields.m.aggregate-function": "max", "fields.m.ignore-retract": "true"}),
        );
        let runs = vec![
            vec![(0, I, json!([1, 10, 1]))],
            vec![(1, UB, json!([1, 4, 7]))],
            vec![(2, UA, json!([1, 6, 2]))],
            vec![(3, D, json!([2, 5, 1]))],
            vec![(4, I, json!([2, 1, 1]))],
        ]
        .into_iter()
        .collect::<Vec<_>>();
        // key 2: retract 5 from nothing = -5, then +1 = -4 (the -D sorts first by sequence)
        assert_eq!(merge(&t, runs).unwrap(), ["+I 1 12 2", "+I 2 -4 1"]);
        // max cannot retract without ignore-retract
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            kv_fields(&[("m", "INT")]),
            &["k"],
            json!({"merge-engine": "aggregation", "fields.m.aggregate-function": "max"}),
        );
        let runs = vec![vec![(0, I, json!([1, 1]))], vec![(1, UB, json!([1, 1]))]];
        assert!(matches!(merge(&t, runs), Err(Error::Merge { .. })));
    }

    /// A JSON test value as a [`Val`] of `data_type` (BINARY as a hex string).
    fn json_val(data_type: &ArrowType, v: &Value) -> Val {
        match (data_type, v) {
            (_, Value::Null) => Val::Null,
            (ArrowType::Int32 | ArrowType::Int64, v) => Val::Int(v.as_i64().unwrap()),
            (ArrowType::Utf8, v) => Val::Str(v.as_str().unwrap().to_string()),
            (ArrowType::Binary, v) => {
                let h = v.as_str().unwrap();
                Val::Bytes(
                    (0..h.len())
                        .step_by(2)
                        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
                        .collect(),
                )
            }
            (ArrowType::List(f), Value::Array(items)) => {
                Val::List(items.iter().map(|x| json_val(f.data_type(), x)).collect())
            }
            (other, v) => panic!("test value {v} of {other}"),
        }
    }

    #[test]
    fn collection_and_bitmap_functions_merge() {
        let dir = tempfile::tempdir().unwrap();
        let fields = json!([
            {"id": 0, "name": "k", "type": "INT NOT NULL"},
            {"id": 1, "name": "c", "type": {"type": "ARRAY", "element": "INT"}},
            {"id": 2, "name": "r", "type": "BYTES"},
            {"id": 3, "name": "r64", "type": "BYTES"}
        ]);
        let t = table(
            dir.path(),
            fields.clone(),
            &["k"],
            json!({"merge-engine": "aggregation", "fields.c.aggregate-function": "collect",
                   "fields.r.aggregate-function": "rbm32", "fields.r64.aggregate-function": "rbm64"}),
        );
        // RoaringBitmap32 {1, 2, 3} | {3, 4}: one run container (RoaringBitmap32.serialize after runOptimize).
        let (a, b) = (
            "3a300000010000000000020010000000010002000300",
            "3a30000001000000000001001000000003000400",
        );
        let runs = vec![
            vec![(0, I, json!([1, [1, 2], a, null]))],
            vec![(1, I, json!([1, [3], b, "00"]))],
        ];
        assert_eq!(
            merge(&t, runs).unwrap(),
            ["+I 1 [1, 2, 3] 3b3000000100000300010001000300 00"]
        );
        // Two rbm64 values: Roaring64Bitmap's serialized union is not reproduced.
        let runs = vec![
            vec![(0, I, json!([1, null, null, "00"]))],
            vec![(1, I, json!([1, null, null, "01"]))],
        ];
        assert!(matches!(merge(&t, runs), Err(Error::Unsupported { .. })));
        // rbm32 cannot retract (UnsupportedOperationException) unless ignore-retract.
        let runs = vec![
            vec![(0, I, json!([1, null, a, null]))],
            vec![(1, UB, json!([1, null, a, null]))],
        ];
        assert!(matches!(merge(&t, runs), Err(Error::Merge { .. })));

        // In a partial-update sequence group, FieldCollectAgg.aggReversed is agg(accumulator, input):
        // an older record's elements still come after the accumulator's.
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            json!([
                {"id": 0, "name": "k", "type": "INT NOT NULL"},
                {"id": 1, "name": "g", "type": "INT"},
                {"id": 2, "name": "c", "type": {"type": "ARRAY", "element": "INT"}}
            ]),
            &["k"],
            json!({"merge-engine": "partial-update", "fields.g.sequence-group": "c",
                   "fields.c.aggregate-function": "collect"}),
        );
        let runs = vec![
            vec![(0, I, json!([1, 2, [1]]))],
            vec![(1, I, json!([1, 1, [2]]))],
        ];
        assert_eq!(merge(&t, runs).unwrap(), ["+I 1 2 [1, 2]"]);
    }

    #[test]
    fn invalid_merge_options_fail_like_java() {
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            kv_fields(&[("v", "STRING")]),
            &["k"],
            json!({"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"}),
        );
        assert!(matches!(engine(&t), Err(Error::Merge { .. })));
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            kv_fields(&[("v", "INT")]),
            &["k"],
            json!({"merge-engine": "aggregation", "fields.v.aggregate-function": "collect"}),
        );
        // FieldCollectAggFactory: "Data type for collect column must be 'Array' ...".
        assert!(matches!(engine(&t), Err(Error::Merge { .. })));
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            kv_fields(&[("v", "BYTES")]),
            &["k"],
            json!({"merge-engine": "aggregation", "fields.v.aggregate-function": "hll_sketch"}),
        );
        assert!(engine(&t).is_ok());
        // FieldThetaSketchAggFactory: "Data type for theta sketch column must be 'VarBinaryType' ...".
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            kv_fields(&[("v", "STRING")]),
            &["k"],
            json!({"merge-engine": "aggregation", "fields.v.aggregate-function": "theta_sketch"}),
        );
        assert!(matches!(engine(&t), Err(Error::Merge { .. })));
        let dir = tempfile::tempdir().unwrap();
        let t = table(
            dir.path(),
            kv_fields(&[("v", "INT")]),
            &["k"],
            json!({"merge-engine": "partial-update", "fields.v.aggregate-function": "sum"}),
        );
        assert!(matches!(engine(&t), Err(Error::Merge { .. })));
    }

    #[test]
    fn single_run_sections_stream_without_deletes() {
        let dir = tempfile::tempdir().unwrap();
        let t = table(dir.path(), kv_fields(&[("v", "INT")]), &["k"], json!({}));
        let rows = vec![
            (0, I, json!([1, 1])),
            (1, D, json!([2, 2])),
            (2, UA, json!([3, 3])),
        ];
        assert_eq!(merge(&t, vec![rows]).unwrap(), ["+I 1 1", "+U 3 3"]);
    }
}
