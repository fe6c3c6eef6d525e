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
use std::io::{self, BufWriter, Read, Write};
use std::process::ExitCode;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, Int8Array, LargeStringArray, RecordBatch, StringArray, StringViewArray,
};
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
use base64::Engine as _;
use futures::TryStreamExt;
use paimon::catalog::Identifier;
use paimon::io::FileIO;
use paimon::spec::{BinaryRow, DataType, Datum};
use paimon::table::SchemaManager;
use paimon::{DataSplit, DataSplitBuilder, DeletionFile, IncrementalScanMode, Table};
use serde_json::{json, Map, Value};

const PROTOCOL: &str = "paimon-parity-reader/1";
const READER: &str = "paimon-rust 0.4.0";
const ROW_KIND: &str = "_row_kind";
/// `DataSplit` body version of the crate's own `serialize_split_v1` (it writes Java's version 9).
const OWN_DATA_SPLIT_VERSION: i64 = 9;

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
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
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

// ------------------------------------------------------------------------------------------------
// Request

/// What the request asks, already checked for the fields every action needs.
struct Request {
    action: Action,
    table_path: String,
    scan: Scan,
    options: HashMap<String, String>,
    splits: Vec<Value>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
    Read,
    Plan,
}

#[derive(Clone, Debug)]
struct Scan {
    mode: String,
    from_snapshot: Option<i64>,
    snapshot: Option<i64>,
    end_snapshot: Option<i64>,
}

fn read_request() -> Result<Request, String> {
    let mut text = String::new();
    io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    let obj = v.as_object().ok_or("the request is not a JSON object")?;
    match obj.get("protocol").and_then(Value::as_str) {
        Some(PROTOCOL) => {}
        other => return Err(format!("protocol {other:?}, expected {PROTOCOL:?}")),
    }
    let action = match obj.get("action").and_then(Value::as_str) {
        Some("read") => Action::Read,
        Some("plan") => Action::Plan,
        other => return Err(format!("unknown action {other:?} (this reader does read and plan)")),
    };
    let table_path = obj
        .get("table_path")
        .and_then(Value::as_str)
        .ok_or("no table_path")?;
    if !table_path.starts_with('/') && !table_path.contains("://") {
        return Err(format!("table_path {table_path:?} is not absolute"));
    }
    let table_path = match table_path.trim_end_matches('/') {
        "" => "/".to_string(),
        p => p.to_string(),
    };
    let scan_v = obj.get("scan").cloned().unwrap_or(Value::Null);
    let scan = Scan {
        mode: scan_v
            .get("mode")
            .and_then(Value::as_str)
            .unwrap_or("batch")
            .to_string(),
        from_snapshot: scan_v.get("from_snapshot").and_then(Value::as_i64),
        snapshot: scan_v.get("snapshot").and_then(Value::as_i64),
        end_snapshot: scan_v.get("end_snapshot").and_then(Value::as_i64),
    };
    let mut options = HashMap::new();
    if let Some(o) = obj.get("options").and_then(Value::as_object) {
        for (k, v) in o {
            let v = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            options.insert(k.clone(), v);
        }
    }
    let splits = match obj.get("splits") {
        Some(Value::Array(a)) => a.clone(),
        None | Some(Value::Null) if action == Action::Plan => Vec::new(),
        _ => return Err("no splits array".into()),
    };
    Ok(Request {
        action,
        table_path,
        scan,
        options,
        splits,
    })
}

// ------------------------------------------------------------------------------------------------
// Answer

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Ok,
    Error,
    Unsupported,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Error => "error",
            Status::Unsupported => "unsupported",
        }
    }
}

/// One split's answer before it is written.
struct Answer {
    index: String,
    status: Status,
    message: Option<String>,
    batches: Vec<RecordBatch>,
}

impl Answer {
    fn failed(index: String, status: Status, message: impl Into<String>) -> Self {
        Answer {
            index,
            status,
            message: Some(one_line(&message.into())),
            batches: Vec::new(),
        }
    }
}

/// Longest message kept (the crate's errors can carry long debug chains).
const MAX_MESSAGE_CHARS: usize = 2000;

fn one_line(s: &str) -> String {
    let line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= MAX_MESSAGE_CHARS {
        line
    } else {
        let cut: String = line.chars().take(MAX_MESSAGE_CHARS).collect();
        format!("{cut} ...")
    }
}

/// Writes one complete IPC stream for `answer`. `fallback` is the schema used when there are no batches.
fn write_answer<W: Write>(out: &mut W, fallback: &SchemaRef, answer: Answer) -> Result<(), String> {
    let columns_schema = answer
        .batches
        .first()
        .map(|b| b.schema())
        .unwrap_or_else(|| fallback.clone());
    let mut metadata = HashMap::new();
    metadata.insert("paimon.parity.split".to_string(), answer.index.clone());
    metadata.insert(
        "paimon.parity.status".to_string(),
        answer.status.as_str().to_string(),
    );
    metadata.insert("paimon.parity.reader".to_string(), READER.to_string());
    if let Some(m) = &answer.message {
        metadata.insert("paimon.parity.message".to_string(), m.clone());
    }
    let schema = Arc::new(Schema::new_with_metadata(
        columns_schema.fields().clone(),
        metadata,
    ));
    let mut writer = StreamWriter::try_new(&mut *out, &schema).map_err(|e| e.to_string())?;
    for batch in &answer.batches {
        let batch = RecordBatch::try_new(schema.clone(), batch.columns().to_vec())
            .map_err(|e| e.to_string())?;
        writer.write(&batch).map_err(|e| e.to_string())?;
    }
    writer.finish().map_err(|e| e.to_string())?;
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// The table

struct Ctx {
    table: Table,
    /// `_row_kind` plus the table's columns, all nullable, as the crate would type them.
    schema: SchemaRef,
    /// The crate's own plans, keyed by (snapshot, streaming), for rebuilding splits.
    plans: HashMap<(i64, bool), Result<Vec<DataSplit>, String>>,
}

async fn open_table(path: &str, options: &HashMap<String, String>) -> paimon::Result<Table> {
    let file_io = FileIO::from_path(path)?.build()?;
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

fn output_schema(table: &Table) -> Result<SchemaRef, String> {
    let target =
        paimon::arrow::build_target_arrow_schema(table.schema().fields()).map_err(|e| e.to_string())?;
    let mut fields = vec![Field::new(ROW_KIND, ArrowType::Int8, false)];
    fields.extend(
        target
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true)),
    );
    Ok(Arc::new(Schema::new(fields)))
}

fn row_kind_only_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new(ROW_KIND, ArrowType::Int8, false)]))
}

fn split_index(split: &Value, position: usize) -> String {
    match split.get("index") {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) => s.clone(),
        _ => position.to_string(),
    }
}

async fn serve<W: Write>(req: &Request, out: &mut W) -> Result<(), Fatal> {
    if let Some((scheme, _)) = req.table_path.split_once("://") {
        let msg = format!(
            "tables in {scheme}:// are not read by this adapter: it builds paimon 0.4.0 with the storage-fs \
             feature only (reading them needs its storage-s3 feature, with the request's file_io_options)"
        );
        return answer_all_failed(req, out, Status::Unsupported, &msg);
    }
    let table = open_table(&req.table_path, &req.options).await;
    let mut ctx = match table {
        Ok(table) => match output_schema(&table) {
            Ok(schema) => Ctx {
                table,
                schema,
                plans: HashMap::new(),
            },
            Err(e) => {
                let msg = format!("paimon-rust 0.4.0 has no Arrow type for a column of the table: {e}");
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
        write_answer(out, &schema, Answer::failed(split_index(split, pos), status, msg))
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
            .map_err(|e| Failure(Status::Error, format!("java_split.base64 is not base64: {e}")))
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
        .map_err(|e| crate_failure("paimon-rust 0.4.0 refused the split (to_arrow_with_row_kind)", e))?;
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
// Rebuilding a split the crate cannot decode, from the crate's own plan of the same snapshot

fn str_list(v: Option<&Value>) -> Vec<Option<String>> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(|x| x.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// The crate's splits of `snapshot`: its incremental (Auto) plan of that one snapshot for streaming
/// splits, a batch plan time-travelled to it otherwise. Cached per request.
async fn planned_splits(ctx: &mut Ctx, snapshot: i64, streaming: bool) -> Result<Vec<DataSplit>, String> {
    if let Some(r) = ctx.plans.get(&(snapshot, streaming)) {
        return r.clone();
    }
    let result = plan_snapshot(&ctx.table, snapshot, streaming).await;
    ctx.plans.insert((snapshot, streaming), result.clone());
    result
}

async fn plan_snapshot(table: &Table, snapshot: i64, streaming: bool) -> Result<Vec<DataSplit>, String> {
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
fn partition_strings(table: &Table, row: &BinaryRow) -> Vec<Result<Option<String>, ()>> {
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
                (Datum::Decimal { unscaled, scale, .. }, _) => plain_decimal(*unscaled, *scale),
                (Datum::Double(d), DataType::Double(_)) if d.is_finite() && d.abs() >= 1e-3 && d.abs() < 1e7 => {
                    format!("{d:?}")
                }
                (Datum::Float(f), DataType::Float(_)) if f.is_finite() && f.abs() >= 1e-3 && f.abs() < 1e7 => {
                    format!("{f:?}")
                }
                _ => return Err(()),
            };
            Ok(Some(s))
        })
        .collect()
}

/// `BigDecimal.toPlainString()` of `unscaled * 10^-scale`.
fn plain_decimal(unscaled: i128, scale: u32) -> String {
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

fn partition_matches(table: &Table, row: &BinaryRow, wanted: &[Option<String>]) -> bool {
    let ours = partition_strings(table, row);
    if ours.len() != wanted.len() {
        return false;
    }
    // A value whose Java rendering is not reproduced here does not decide; file names still must match.
    ours.iter()
        .zip(wanted)
        .all(|(o, w)| match o {
            Ok(v) => v == w,
            Err(()) => true,
        })
}

async fn rebuild_split(ctx: &mut Ctx, req: &Request, split: &Value) -> Result<DataSplit, String> {
    let inner = split.get("split").ok_or("the request has no split object")?;
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
        return Err("the split has before files, which a DataSplit of paimon-rust cannot carry".into());
    }
    let names: Vec<String> = inner
        .get("data_files")
        .and_then(Value::as_array)
        .ok_or("split.data_files missing")?
        .iter()
        .map(|f| f.get("file_name").and_then(Value::as_str).map(str::to_string))
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
            .filter(|s| s.bucket() == bucket && partition_matches(&ctx.table, s.partition(), &partition))
            .collect();
        // Exactly the planned split: same files in the same order, same flags.
        if let Some(s) = same_bucket.iter().find(|s| {
            s.is_streaming() == is_streaming
                && s.raw_convertible() == raw_convertible
                && s.data_files().iter().map(|f| f.file_name.as_str()).eq(names.iter().map(String::as_str))
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
        return b.build().map_err(|e| format!("DataSplitBuilder failed: {e}"));
    }
    Err(reasons.join("; "))
}

fn requested_deletion_files(inner: &Value, n: usize) -> Option<Vec<Option<DeletionFile>>> {
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
        other => return Err(format!("this adapter does not plan the scan mode {other:?}")),
    }
    let mut splits = Vec::new();
    for (snapshot, streaming) in steps {
        let planned = planned_splits(ctx, snapshot, streaming)
            .await
            .map_err(|e| format!("paimon-rust 0.4.0 could not plan: {e}"))?;
        for split in planned {
            let bytes = split.serialize_split_v1().map_err(|e| {
                format!("paimon-rust 0.4.0 could not serialize its own split (serialize_split_v1): {e}")
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
    m.insert("bucket_path".into(), json!(split.bucket_path().trim_start_matches("file:")));
    m.insert("data_files".into(), Value::Array(files));
    m.insert("before_files".into(), json!([]));
    m.insert("deletion_files".into(), Value::Array(deletion_files));
    m.insert("before_deletion_files".into(), json!([]));
    m.insert("is_streaming".into(), json!(split.is_streaming()));
    m.insert("raw_convertible".into(), json!(split.raw_convertible()));
    Value::Object(m)
}
