//! The table as the crate opens it (local, or in S3 with the request's `file_io_options`), its own plans, and a request's split rebuilt as the crate's `DataSplit` from them by partition, bucket and
//! file names (Java 1.0's version-5 body, which the crate cannot decode).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
use paimon::catalog::Identifier;
use paimon::io::FileIO;
use paimon::spec::{BinaryRow, DataType, Datum};
use paimon::table::SchemaManager;
use paimon::{DataSplit, DataSplitBuilder, DeletionFile, IncrementalScanMode, Table};
use serde_json::Value;

use crate::protocol::{Request, ROW_KIND};

// ------------------------------------------------------------------------------------------------
// The table

pub(crate) struct Ctx {
    pub(crate) table: Table,
    /// `_row_kind` plus the table's columns, all nullable, as the crate would type them.
    pub(crate) schema: SchemaRef,
    /// The crate's own plans, keyed by (snapshot, streaming), for rebuilding splits.
    pub(crate) plans: HashMap<(i64, bool), Result<Vec<DataSplit>, String>>,
}

/// The table at `path`, a local path or an `s3://` / `s3a://` URI (`FileIO::from_path` with the request's
/// `file_io_options`, which the crate's `storage-s3` reads in Paimon's `s3.` spellings; `SchemaManager::latest`,
/// `Table::new`; no catalog), copied with the scan's dynamic `options`.
pub(crate) async fn open_table(
    path: &str,
    options: &HashMap<String, String>,
    file_io_options: &HashMap<String, String>,
) -> paimon::Result<Table> {
    let mut props = file_io_options.clone();
    // The crate's S3 storage needs a region, and finds none for an S3-compatible endpoint: AWS's default, as
    // Paimon's S3A and the native reader take it, unless the options name one.
    if path.contains("://")
        && !path.starts_with("file:")
        && !props.keys().any(|k| k.ends_with("region"))
    {
        props.insert("s3.region".into(), "us-east-1".into());
    }
    let file_io = FileIO::from_path(path)?.with_props(props).build()?;
    let schema = SchemaManager::new(file_io.clone(), path.to_string())
        .latest()
        .await?
        .ok_or_else(|| paimon::Error::DataInvalid {
            message: format!("no schema under {path}/schema"),
            source: None,
        })?;
    let p = std::path::Path::new(path);
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "t".into());
    let db = p
        .parent()
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().trim_end_matches(".db").to_string())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "default".into());
    let table = Table::new(
        file_io,
        Identifier::new(db, name),
        path.to_string(),
        (*schema).clone(),
        None,
    );
    Ok(if options.is_empty() {
        table
    } else {
        table.copy_with_options(options.clone())
    })
}

pub(crate) fn output_schema(table: &Table) -> Result<SchemaRef, String> {
    let target = paimon::arrow::build_target_arrow_schema(table.schema().fields())
        .map_err(|e| e.to_string())?;
    let mut fields = vec![Field::new(ROW_KIND, ArrowType::Int8, false)];
    fields.extend(
        target
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true)),
    );
    Ok(Arc::new(Schema::new(fields)))
}

pub(crate) fn row_kind_only_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new(
        ROW_KIND,
        ArrowType::Int8,
        false,
    )]))
}

pub(crate) fn split_index(split: &Value, position: usize) -> String {
    match split.get("index") {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) => s.clone(),
        _ => position.to_string(),
    }
}

// ------------------------------------------------------------------------------------------------
// Rebuilding a split the crate cannot decode, from the crate's own plan of the same snapshot

pub(crate) fn str_list(v: Option<&Value>) -> Vec<Option<String>> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(|x| x.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// The crate's splits of `snapshot`: its incremental (Auto) plan of that one snapshot for streaming
/// splits, a batch plan time-travelled to it otherwise. Cached per request.
pub(crate) async fn planned_splits(
    ctx: &mut Ctx,
    snapshot: i64,
    streaming: bool,
) -> Result<Vec<DataSplit>, String> {
    if let Some(r) = ctx.plans.get(&(snapshot, streaming)) {
        return r.clone();
    }
    let result = plan_snapshot(&ctx.table, snapshot, streaming).await;
    ctx.plans.insert((snapshot, streaming), result.clone());
    result
}

pub(crate) async fn plan_snapshot(
    table: &Table,
    snapshot: i64,
    streaming: bool,
) -> Result<Vec<DataSplit>, String> {
    if streaming {
        let builder = table.new_read_builder();
        let plan = builder
            .new_incremental_scan(IncrementalScanMode::Auto, snapshot - 1, snapshot)
            .plan()
            .await
            .map_err(|e| format!("incremental plan of snapshot {snapshot} failed: {e}"))?;
        Ok(plan.data_splits())
    } else {
        let travelled = table.copy_with_options(HashMap::from([(
            "scan.snapshot-id".to_string(),
            snapshot.to_string(),
        )]));
        let builder = travelled.new_read_builder();
        let plan = builder
            .new_scan()
            .plan()
            .await
            .map_err(|e| format!("batch plan of snapshot {snapshot} failed: {e}"))?;
        Ok(plan.splits().to_vec())
    }
}

/// Java's `toString()` of a partition value, where it can be reproduced exactly; `Err` otherwise.
pub(crate) fn partition_strings(table: &Table, row: &BinaryRow) -> Vec<Result<Option<String>, ()>> {
    let schema = table.schema();
    schema
        .partition_keys()
        .iter()
        .enumerate()
        .map(|(pos, key)| {
            let Some(field) = schema.fields().iter().find(|f| f.name() == key) else {
                return Err(());
            };
            if pos as i32 >= row.arity() {
                return Err(());
            }
            let datum = row.get_datum(pos, field.data_type()).map_err(|_| ())?;
            let Some(datum) = datum else { return Ok(None) };
            let s = match (&datum, field.data_type()) {
                (Datum::Bool(b), _) => b.to_string(),
                (Datum::TinyInt(v), _) => v.to_string(),
                (Datum::SmallInt(v), _) => v.to_string(),
                (Datum::Int(v), _) => v.to_string(),
                (Datum::Long(v), _) => v.to_string(),
                (Datum::Date(v), _) => v.to_string(),
                (Datum::Time(v), _) => v.to_string(),
                (Datum::String(s), _) => s.clone(),
                (
                    Datum::Decimal {
                        unscaled, scale, ..
                    },
                    _,
                ) => plain_decimal(*unscaled, *scale),
                (Datum::Double(d), DataType::Double(_))
                    if d.is_finite() && d.abs() >= 1e-3 && d.abs() < 1e7 =>
                {
                    format!("{d:?}")
                }
                (Datum::Float(f), DataType::Float(_))
                    if f.is_finite() && f.abs() >= 1e-3 && f.abs() < 1e7 =>
                {
                    format!("{f:?}")
                }
                _ => return Err(()),
            };
            Ok(Some(s))
        })
        .collect()
}

/// `BigDecimal.toPlainString()` of `unscaled * 10^-scale`.
pub(crate) fn plain_decimal(unscaled: i128, scale: u32) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let scale = scale as usize;
    let body = if scale == 0 {
        digits
    } else if digits.len() <= scale {
        format!("0.{}{}", "0".repeat(scale - digits.len()), digits)
    } else {
        let (i, f) = digits.split_at(digits.len() - scale);
        format!("{i}.{f}")
    };
    if unscaled < 0 {
        format!("-{body}")
    } else {
        body
    }
}

pub(crate) fn partition_matches(table: &Table, row: &BinaryRow, wanted: &[Option<String>]) -> bool {
    let ours = partition_strings(table, row);
    if ours.len() != wanted.len() {
        return false;
    }
    // A value whose Java rendering is not reproduced here does not decide; file names still must match.
    ours.iter().zip(wanted).all(|(o, w)| match o {
        Ok(v) => v == w,
        Err(()) => true,
    })
}

pub(crate) async fn rebuild_split(
    ctx: &mut Ctx,
    req: &Request,
    split: &Value,
) -> Result<DataSplit, String> {
    let inner = split
        .get("split")
        .ok_or("the request has no split object")?;
    let snapshot = inner
        .get("snapshot_id")
        .and_then(Value::as_i64)
        .ok_or("split.snapshot_id missing")?;
    let bucket = inner
        .get("bucket")
        .and_then(Value::as_i64)
        .ok_or("split.bucket missing")? as i32;
    let partition = str_list(inner.get("partition"));
    let is_streaming = inner
        .get("is_streaming")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let raw_convertible = inner
        .get("raw_convertible")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if inner
        .get("before_files")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty())
    {
        return Err(
            "the split has before files, which a DataSplit of paimon-rust cannot carry".into(),
        );
    }
    let names: Vec<String> = inner
        .get("data_files")
        .and_then(Value::as_array)
        .ok_or("split.data_files missing")?
        .iter()
        .map(|f| {
            f.get("file_name")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .collect::<Option<Vec<_>>>()
        .ok_or("a data file without file_name")?;

    let _ = &req.scan; // the split's own flags decide which plan it came from
    let mut reasons = Vec::new();
    // The plan the split should come from first, the other kind as a fallback.
    for streaming in [is_streaming, !is_streaming] {
        let planned = match planned_splits(ctx, snapshot, streaming).await {
            Ok(p) => p,
            Err(e) => {
                reasons.push(e);
                continue;
            }
        };
        let same_bucket: Vec<&DataSplit> = planned
            .iter()
            .filter(|s| {
                s.bucket() == bucket && partition_matches(&ctx.table, s.partition(), &partition)
            })
            .collect();
        // Exactly the planned split: same files in the same order, same flags.
        if let Some(s) = same_bucket.iter().find(|s| {
            s.is_streaming() == is_streaming
                && s.raw_convertible() == raw_convertible
                && s.data_files()
                    .iter()
                    .map(|f| f.file_name.as_str())
                    .eq(names.iter().map(String::as_str))
        }) {
            eprintln!(
                "rebuilt snapshot {snapshot} bucket {bucket} from the crate's {} plan (same split)",
                if streaming { "incremental" } else { "batch" }
            );
            return Ok((*s).clone());
        }
        // Otherwise assemble Java's split from the files the crate planned for this partition and bucket.
        let mut files = Vec::with_capacity(names.len());
        let mut dvs = Vec::with_capacity(names.len());
        let mut missing = None;
        for name in &names {
            let found = same_bucket.iter().find_map(|s| {
                s.data_files()
                    .iter()
                    .find(|f| &f.file_name == name)
                    .map(|f| (*s, f))
            });
            match found {
                Some((s, f)) => {
                    dvs.push(s.deletion_file_for_data_file(f).cloned());
                    files.push(f.clone());
                }
                None => {
                    missing = Some(name.clone());
                    break;
                }
            }
        }
        if let Some(name) = missing {
            reasons.push(format!(
                "the crate's {} plan of snapshot {snapshot} has no file {name} in partition {partition:?} bucket {bucket}",
                if streaming { "incremental" } else { "batch" }
            ));
            continue;
        }
        let template = same_bucket[0];
        // Java's deletion files when the request has them, the crate's planned ones otherwise.
        let dvs = match requested_deletion_files(inner, names.len()) {
            Some(d) => d,
            None => dvs,
        };
        let mut b = DataSplitBuilder::new()
            .with_snapshot(snapshot)
            .with_partition(template.partition().clone())
            .with_bucket(bucket)
            .with_bucket_path(template.bucket_path().to_string())
            .with_total_buckets(template.total_buckets())
            .with_data_files(files)
            .with_streaming(is_streaming)
            .with_raw_convertible(raw_convertible);
        if dvs.iter().any(Option::is_some) {
            b = b.with_data_deletion_files(dvs);
        }
        eprintln!(
            "rebuilt snapshot {snapshot} bucket {bucket} from the files of the crate's {} plan",
            if streaming { "incremental" } else { "batch" }
        );
        return b
            .build()
            .map_err(|e| format!("DataSplitBuilder failed: {e}"));
    }
    Err(reasons.join("; "))
}

pub(crate) fn requested_deletion_files(
    inner: &Value,
    n: usize,
) -> Option<Vec<Option<DeletionFile>>> {
    let list = inner.get("deletion_files")?.as_array()?;
    if list.len() != n {
        return None;
    }
    Some(
        list.iter()
            .map(|d| {
                let path = d.get("path")?.as_str()?.to_string();
                Some(DeletionFile::new(
                    path,
                    d.get("offset")?.as_i64()?,
                    d.get("length")?.as_i64()?,
                    d.get("cardinality").and_then(Value::as_i64),
                ))
            })
            .collect(),
    )
}
