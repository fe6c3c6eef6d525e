//! `paimon-parity-paimon-rust`: the released crate `paimon` 0.4.0 as a `paimon-parity-reader/1` reader.
//!
//! Reads one JSON request from stdin and writes one Arrow IPC stream per split to stdout (see
//! `adapters/README.md`). `describe` as the only argument prints what this reader is and exits.
//!
//! Per split: Java 2.0's `split-v1` frame goes to `DataSplit::deserialize_split_v1`; Java 1.0's version-5
//! `DataSplit` body (which this crate cannot decode) is rebuilt from the crate's own plan of the same
//! snapshot, by partition, bucket and file names. The split is read with `TableRead::to_arrow_with_row_kind`
//! and its `rowkind` strings become the protocol's Int8 codes; nothing else about the rows is changed.

use std::collections::HashMap;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, Int8Array, LargeStringArray, RecordBatch, StringArray, StringViewArray,
};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
use base64::Engine as _;
use futures::TryStreamExt;
use paimon::{DataSplit, Table};
use serde_json::{json, Map, Value};

mod protocol;
mod table;

use protocol::*;
use table::*;

/// Why the whole answer could not be given.
enum Fatal {
    /// stdout failed.
    Write(String),
    /// The crate could not plan the scan (`plan` has no per-split stream to carry it).
    Plan(String),
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() == 1 && args[0] == "describe" {
        println!(
            "{}",
            json!({"protocol": PROTOCOL, "reader": READER, "actions": ["read", "plan"]})
        );
        return ExitCode::SUCCESS;
    }
    if !args.is_empty() {
        eprintln!("usage: paimon-parity-paimon-rust [describe] < request.json");
        return ExitCode::from(2);
    }

    let request = match read_request() {
        Ok(r) => r,
        Err(msg) => {
            eprintln!("paimon-parity-paimon-rust: unusable request: {msg}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("paimon-parity-paimon-rust: cannot start the tokio runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = runtime.block_on(serve(&request, &mut out));
    let result = result.and_then(|()| out.flush().map_err(|e| Fatal::Write(e.to_string())));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fatal::Write(msg)) => {
            eprintln!("paimon-parity-paimon-rust: cannot write the answer: {msg}");
            ExitCode::from(1)
        }
        Err(Fatal::Plan(msg)) => {
            eprintln!("paimon-parity-paimon-rust: no plan: {}", one_line(&msg));
            ExitCode::from(1)
        }
    }
}

async fn serve<W: Write>(req: &Request, out: &mut W) -> Result<(), Fatal> {
    if let Some((scheme, _)) = req.table_path.split_once("://") {
        if !matches!(scheme.to_ascii_lowercase().as_str(), "s3" | "s3a" | "file") {
            let msg = format!(
                "tables in {scheme}:// are not read by this adapter: it builds paimon 0.4.0 with the \
                 storage-fs and storage-s3 features only"
            );
            return answer_all_failed(req, out, Status::Unsupported, &msg);
        }
    }
    let table = open_table(&req.table_path, &req.options, &req.file_io_options).await;
    let mut ctx = match table {
        Ok(table) => match output_schema(&table) {
            Ok(schema) => Ctx {
                table,
                schema,
                plans: HashMap::new(),
            },
            Err(e) => {
                let msg =
                    format!("paimon-rust 0.4.0 has no Arrow type for a column of the table: {e}");
                return answer_all_failed(req, out, Status::Unsupported, &msg);
            }
        },
        Err(e) => {
            let msg = format!("paimon-rust 0.4.0 could not open the table: {e}");
            eprintln!("{msg}");
            return answer_all_failed(req, out, Status::Error, &msg);
        }
    };
    match req.action {
        Action::Read => {
            for (pos, split) in req.splits.iter().enumerate() {
                let index = split_index(split, pos);
                let answer = read_request_split(&mut ctx, req, split, index).await;
                if answer.status != Status::Ok {
                    eprintln!(
                        "split {}: {} {}",
                        answer.index,
                        answer.status.as_str(),
                        answer.message.as_deref().unwrap_or("")
                    );
                }
                write_answer(out, &ctx.schema, answer).map_err(Fatal::Write)?;
            }
        }
        Action::Plan => {
            let answer = plan_answer(&mut ctx, req).await.map_err(Fatal::Plan)?;
            writeln!(out, "{answer}").map_err(|e| Fatal::Write(e.to_string()))?;
        }
    }
    Ok(())
}

fn answer_all_failed<W: Write>(
    req: &Request,
    out: &mut W,
    status: Status,
    msg: &str,
) -> Result<(), Fatal> {
    if req.action == Action::Plan {
        // A plan answer has no stream to carry the reason.
        return Err(Fatal::Plan(msg.to_string()));
    }
    let schema = row_kind_only_schema();
    for (pos, split) in req.splits.iter().enumerate() {
        write_answer(
            out,
            &schema,
            Answer::failed(split_index(split, pos), status, msg),
        )
        .map_err(Fatal::Write)?;
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// `read`: one requested split

/// Why a split got no rows: the status to report and one sentence.
struct Failure(Status, String);

fn crate_failure(what: &str, e: paimon::Error) -> Failure {
    let status = match &e {
        paimon::Error::Unsupported { .. } => Status::Unsupported,
        _ => Status::Error,
    };
    Failure(status, format!("{what}: {e}"))
}

async fn read_request_split(ctx: &mut Ctx, req: &Request, split: &Value, index: String) -> Answer {
    let split_type = split
        .get("split_type")
        .and_then(Value::as_str)
        .unwrap_or("DataSplit");
    if split_type == "IncrementalSplit" {
        return Answer::failed(
            index,
            Status::Unsupported,
            "paimon-rust 0.4.0 cannot read an IncrementalSplit (the changes plan of a primary-key \
             overwrite, with before files): its split decoder knows only DataSplit and IndexedSplit \
             and its readers have no before/after split",
        );
    }
    if split_type != "DataSplit" {
        return Answer::failed(
            index,
            Status::Unsupported,
            format!("paimon-rust 0.4.0 does not read Java {split_type} splits"),
        );
    }
    let data_split = match resolve_split(ctx, req, split).await {
        Ok(s) => s,
        Err(Failure(status, msg)) => return Answer::failed(index, status, msg),
    };
    match read_split(ctx, &data_split).await {
        Ok(batches) => Answer {
            index,
            status: Status::Ok,
            message: None,
            batches,
        },
        Err(Failure(status, msg)) => Answer::failed(index, status, msg),
    }
}

/// The crate's `DataSplit` for a requested split: decoded from Java's bytes, or rebuilt.
async fn resolve_split(ctx: &mut Ctx, req: &Request, split: &Value) -> Result<DataSplit, Failure> {
    let java = split.get("java_split").filter(|j| !j.is_null());
    let format = java.and_then(|j| j.get("format")).and_then(Value::as_str);
    let version = java
        .and_then(|j| j.get("data_split_version"))
        .and_then(Value::as_i64);
    let bytes = || -> Result<Vec<u8>, Failure> {
        let b64 = java
            .and_then(|j| j.get("base64"))
            .and_then(Value::as_str)
            .ok_or_else(|| Failure(Status::Error, "java_split has no base64".into()))?;
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|e| {
                Failure(
                    Status::Error,
                    format!("java_split.base64 is not base64: {e}"),
                )
            })
    };
    match format {
        Some("split-v1") => DataSplit::deserialize_split_v1(&bytes()?).map_err(|e| {
            crate_failure(
                "paimon-rust 0.4.0 could not decode the Java split-v1 bytes (DataSplit::deserialize_split_v1)",
                e,
            )
        }),
        // Bodies of version 8 and 9 are the ones the crate decodes; 1.0 writes version 5.
        Some("data-split") if matches!(version, Some(8) | Some(9)) => {
            DataSplit::deserialize(&bytes()?).map_err(|e| {
                crate_failure(
                    "paimon-rust 0.4.0 could not decode the Java DataSplit bytes (DataSplit::deserialize)",
                    e,
                )
            })
        }
        _ => {
            let why_not_bytes = match (format, version) {
                (Some("data-split"), Some(v)) => format!(
                    "paimon-rust 0.4.0 cannot decode Java 1.0 DataSplit v{v} bytes (it reads versions 8 and 9)"
                ),
                (Some(f), _) => format!("paimon-rust 0.4.0 does not know the split format {f:?}"),
                (None, _) => "the request carries no Java bytes for this split".to_string(),
            };
            rebuild_split(ctx, req, split)
                .await
                .map_err(|reason| {
                    Failure(
                        Status::Unsupported,
                        format!("{why_not_bytes} and could not rebuild the split from its own plan: {reason}"),
                    )
                })
        }
    }
}

/// Reads one split with the crate's RowKind API and converts each batch to the protocol's shape.
async fn read_split(ctx: &Ctx, split: &DataSplit) -> Result<Vec<RecordBatch>, Failure> {
    let builder = ctx.table.new_read_builder();
    let read = builder
        .new_read()
        .map_err(|e| crate_failure("paimon-rust 0.4.0 could not create a TableRead", e))?;
    let stream = read
        .to_arrow_with_row_kind(std::slice::from_ref(split))
        .map_err(|e| {
            crate_failure(
                "paimon-rust 0.4.0 refused the split (to_arrow_with_row_kind)",
                e,
            )
        })?;
    let batches: Vec<RecordBatch> = stream
        .try_collect()
        .await
        .map_err(|e| crate_failure("paimon-rust 0.4.0 failed reading the split", e))?;
    let mut out = Vec::with_capacity(batches.len());
    let mut schema: Option<SchemaRef> = None;
    for batch in batches {
        let converted = convert_batch(ctx, &batch).map_err(|m| Failure(Status::Error, m))?;
        if let Some(s) = &schema {
            if s.fields() != converted.schema().fields() {
                return Err(Failure(
                    Status::Error,
                    "paimon-rust 0.4.0 returned batches of different schemas for one split".into(),
                ));
            }
        } else {
            schema = Some(converted.schema());
        }
        if converted.num_rows() > 0 {
            out.push(converted);
        }
    }
    Ok(out)
}

/// `rowkind` (Utf8) becomes `_row_kind` (Int8); every other column is kept as the crate typed it,
/// made nullable.
fn convert_batch(ctx: &Ctx, batch: &RecordBatch) -> Result<RecordBatch, String> {
    let fields = ctx.table.schema().fields();
    let in_schema = batch.schema();
    if batch.num_columns() != fields.len() + 1 {
        return Err(format!(
            "paimon-rust 0.4.0 returned {} columns, expected its rowkind column and the table's {}",
            batch.num_columns(),
            fields.len()
        ));
    }
    for (i, f) in fields.iter().enumerate() {
        let got = in_schema.field(i + 1).name();
        if got != f.name() {
            return Err(format!(
                "paimon-rust 0.4.0 returned column {got:?} where the table has {:?}",
                f.name()
            ));
        }
    }
    let kinds = row_kind_codes(batch.column(0).as_ref())?;
    let mut out_fields = vec![Field::new(ROW_KIND, ArrowType::Int8, false)];
    let mut columns: Vec<ArrayRef> = vec![Arc::new(kinds)];
    for i in 1..batch.num_columns() {
        out_fields.push(in_schema.field(i).clone().with_nullable(true));
        columns.push(batch.column(i).clone());
    }
    RecordBatch::try_new(Arc::new(Schema::new(out_fields)), columns).map_err(|e| e.to_string())
}

fn row_kind_code(s: &str) -> Option<i8> {
    match s {
        "+I" => Some(0),
        "-U" => Some(1),
        "+U" => Some(2),
        "-D" => Some(3),
        _ => None,
    }
}

fn row_kind_codes(col: &dyn Array) -> Result<Int8Array, String> {
    let strings: Vec<Option<&str>> = if let Some(a) = col.as_any().downcast_ref::<StringArray>() {
        a.iter().collect()
    } else if let Some(a) = col.as_any().downcast_ref::<LargeStringArray>() {
        a.iter().collect()
    } else if let Some(a) = col.as_any().downcast_ref::<StringViewArray>() {
        a.iter().collect()
    } else {
        return Err(format!(
            "paimon-rust 0.4.0 returned its rowkind column as {}, not a string",
            col.data_type()
        ));
    };
    let mut codes = Vec::with_capacity(strings.len());
    for s in strings {
        match s.and_then(row_kind_code) {
            Some(c) => codes.push(c),
            None => return Err(format!("paimon-rust 0.4.0 returned the row kind {s:?}")),
        }
    }
    Ok(Int8Array::from(codes))
}

// ------------------------------------------------------------------------------------------------
// `plan`: the crate plans the scan itself

/// The crate's own plan of the request's scan, as the `plan` answer: `{"splits": [...]}`, each split in
/// the request's `split` shape with the crate's `serialize_split_v1` bytes, which come back in the `read`.
async fn plan_answer(ctx: &mut Ctx, req: &Request) -> Result<Value, String> {
    let manager = ctx.table.snapshot_manager();
    let latest = manager
        .get_latest_snapshot_id()
        .await
        .map_err(|e| format!("paimon-rust 0.4.0 could not find the latest snapshot: {e}"))?;
    let Some(latest) = latest else {
        return Ok(json!({"splits": []}));
    };
    let earliest = manager
        .earliest_snapshot_id()
        .await
        .map_err(|e| format!("paimon-rust 0.4.0 could not find the earliest snapshot: {e}"))?
        .unwrap_or(1);
    let end = req.scan.end_snapshot.unwrap_or(latest).min(latest);
    // (snapshot, streaming) plans, in scan order.
    let mut steps: Vec<(i64, bool)> = Vec::new();
    match req.scan.mode.as_str() {
        "stream" => {
            let from = req.scan.from_snapshot.unwrap_or(1).max(earliest);
            steps.extend((from..=end).map(|k| (k, true)));
        }
        "stream-full" => {
            let from = req.scan.from_snapshot.unwrap_or(1).max(earliest);
            if from <= end {
                steps.push((from, false));
                steps.extend((from + 1..=end).map(|k| (k, true)));
            }
        }
        "latest-full" => steps.push((end, false)),
        "batch" => steps.push((req.scan.snapshot.unwrap_or(end), false)),
        other => {
            return Err(format!(
                "this adapter does not plan the scan mode {other:?}"
            ))
        }
    }
    let mut splits = Vec::new();
    for (snapshot, streaming) in steps {
        let planned = planned_splits(ctx, snapshot, streaming)
            .await
            .map_err(|e| format!("paimon-rust 0.4.0 could not plan: {e}"))?;
        for split in planned {
            let bytes = split.serialize_split_v1().map_err(|e| {
                format!(
                    "paimon-rust 0.4.0 could not serialize its own split (serialize_split_v1): {e}"
                )
            })?;
            splits.push(json!({
                "split": describe_split(&ctx.table, &split),
                "split_type": "DataSplit",
                "java_split": {
                    "format": "split-v1",
                    "data_split_version": OWN_DATA_SPLIT_VERSION,
                    "base64": base64::engine::general_purpose::STANDARD.encode(bytes),
                },
            }));
        }
    }
    Ok(json!({ "splits": splits }))
}

/// The split as the request's `split` JSON shape.
fn describe_split(table: &Table, split: &DataSplit) -> Value {
    let partition: Vec<Value> = partition_strings(table, split.partition())
        .into_iter()
        .enumerate()
        .map(|(pos, r)| match r {
            Ok(Some(s)) => Value::String(s),
            Ok(None) => Value::Null,
            Err(()) => {
                // Not reproducible exactly: the crate's own rendering.
                let key = &table.schema().partition_keys()[pos];
                let dt = table
                    .schema()
                    .fields()
                    .iter()
                    .find(|f| f.name() == key)
                    .map(|f| f.data_type().clone());
                match dt.and_then(|dt| split.partition().get_datum(pos, &dt).ok().flatten()) {
                    Some(d) => Value::String(d.to_string()),
                    None => Value::Null,
                }
            }
        })
        .collect();
    let files: Vec<Value> = split
        .data_files()
        .iter()
        .map(|f| {
            json!({
                "file_name": f.file_name,
                "level": f.level,
                "row_count": f.row_count,
                "file_size": f.file_size,
                "min_sequence_number": f.min_sequence_number,
                "max_sequence_number": f.max_sequence_number,
                "schema_id": f.schema_id,
                "delete_row_count": f.delete_row_count,
                "min_key": f.min_key,
                "max_key": f.max_key,
                "external_path": f.external_path,
            })
        })
        .collect();
    let deletion_files: Vec<Value> = match split.data_deletion_files() {
        Some(d) if d.iter().any(Option::is_some) => d
            .iter()
            .map(|d| match d {
                Some(d) => json!({"path": d.path(), "offset": d.offset(), "length": d.length(),
                                  "cardinality": d.cardinality()}),
                None => Value::Null,
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut m = Map::new();
    m.insert("snapshot_id".into(), json!(split.snapshot_id()));
    m.insert("partition".into(), Value::Array(partition));
    m.insert("bucket".into(), json!(split.bucket()));
    m.insert(
        "bucket_path".into(),
        json!(split.bucket_path().trim_start_matches("file:")),
    );
    m.insert("data_files".into(), Value::Array(files));
    m.insert("before_files".into(), json!([]));
    m.insert("deletion_files".into(), Value::Array(deletion_files));
    m.insert("before_deletion_files".into(), json!([]));
    m.insert("is_streaming".into(), json!(split.is_streaming()));
    m.insert("raw_convertible".into(), json!(split.raw_convertible()));
    Value::Object(m)
}
