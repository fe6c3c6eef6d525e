//! The `paimon-parity-reader/1` protocol: the request read from stdin, and each split's answer (its status
//! and Arrow IPC stream) written to stdout (see `adapters/README.md`).

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{Schema, SchemaRef};
use serde_json::Value;

pub(crate) const PROTOCOL: &str = "paimon-parity-reader/1";
pub(crate) const READER: &str = "paimon-rust 0.4.0";
pub(crate) const ROW_KIND: &str = "_row_kind";
/// `DataSplit` body version of the crate's own `serialize_split_v1` (it writes Java's version 9).
pub(crate) const OWN_DATA_SPLIT_VERSION: i64 = 9;

// ------------------------------------------------------------------------------------------------
// Request

/// What the request asks, already checked for the fields every action needs.
pub(crate) struct Request {
    pub(crate) action: Action,
    pub(crate) table_path: String,
    pub(crate) scan: Scan,
    pub(crate) options: HashMap<String, String>,
    /// The run's file-system options for a table in an object store (`s3.endpoint`, `s3.access-key`, ...,
    /// as Paimon spells them); empty for a local table. They hold secrets: never echoed.
    pub(crate) file_io_options: HashMap<String, String>,
    pub(crate) splits: Vec<Value>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Read,
    Plan,
}

#[derive(Clone, Debug)]
pub(crate) struct Scan {
    pub(crate) mode: String,
    pub(crate) from_snapshot: Option<i64>,
    pub(crate) snapshot: Option<i64>,
    pub(crate) end_snapshot: Option<i64>,
}

pub(crate) fn read_request() -> Result<Request, String> {
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
        other => {
            return Err(format!(
                "unknown action {other:?} (this reader does read and plan)"
            ))
        }
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
    let strings = |key: &str| -> HashMap<String, String> {
        obj.get(key)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, v)| {
                let v = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (k.clone(), v)
            })
            .collect()
    };
    let options = strings("options");
    let file_io_options = strings("file_io_options");
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
        file_io_options,
        splits,
    })
}

// ------------------------------------------------------------------------------------------------
// Answer

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Ok,
    Error,
    Unsupported,
}

impl Status {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Error => "error",
            Status::Unsupported => "unsupported",
        }
    }
}

/// One split's answer before it is written.
pub(crate) struct Answer {
    pub(crate) index: String,
    pub(crate) status: Status,
    pub(crate) message: Option<String>,
    pub(crate) batches: Vec<RecordBatch>,
}

impl Answer {
    pub(crate) fn failed(index: String, status: Status, message: impl Into<String>) -> Self {
        Answer {
            index,
            status,
            message: Some(one_line(&message.into())),
            batches: Vec::new(),
        }
    }
}

/// Longest message kept (the crate's errors can carry long debug chains).
pub(crate) const MAX_MESSAGE_CHARS: usize = 2000;

pub(crate) fn one_line(s: &str) -> String {
    let line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= MAX_MESSAGE_CHARS {
        line
    } else {
        let cut: String = line.chars().take(MAX_MESSAGE_CHARS).collect();
        format!("{cut} ...")
    }
}

/// Writes one complete IPC stream for `answer`. `fallback` is the schema used when there are no batches.
pub(crate) fn write_answer<W: Write>(
    out: &mut W,
    fallback: &SchemaRef,
    answer: Answer,
) -> Result<(), String> {
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
