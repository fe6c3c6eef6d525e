//! One split's answer of `stock@V`: the rows release `V` returned (or why it returned none), written as the
//! protocol's Arrow IPC stream (`adapters/README.md`, "Answer") and read back from the cache.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_ipc::reader::StreamReader;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{ArrowError, Schema, SchemaRef};

use crate::external::{Status, META_MESSAGE, META_READER, META_SPLIT, META_STATUS};

/// One split's answer: `_row_kind` then the table's columns as the released reader exported them (the
/// bridge's paimon-arrow types), or a failure with its message.
#[derive(Clone, Debug)]
pub(super) struct SplitAnswer {
    /// `ok`, `error` or `unsupported` (the stream's `paimon.parity.status`).
    pub status: Status,
    /// Why the split has no rows, for `error` and `unsupported`; empty for `ok`.
    pub message: String,
    /// The stream's schema, without the protocol's metadata.
    pub schema: SchemaRef,
    /// The rows, at most `jvm_bridge::stock::BATCH_ROWS` per batch; none for a failure or an empty split.
    pub batches: Vec<RecordBatch>,
}

impl SplitAnswer {
    /// The rows of a split the released reader read: `batches` with the schema of the first one, or, for a
    /// split without rows, the table's read schema ([`empty_schema`]).
    pub fn rows(table: &Path, batches: Vec<RecordBatch>) -> Self {
        let schema = batches
            .first()
            .map(|b| b.schema())
            .unwrap_or_else(|| empty_schema(table));
        SplitAnswer {
            status: Status::Ok,
            message: String::new(),
            schema: plain(&schema),
            batches,
        }
    }

    /// A split the released reader failed on (`Status::Error`) or that cannot be given to it: no rows, the
    /// schema of `_row_kind` alone.
    pub fn failed(status: Status, message: String) -> Self {
        SplitAnswer {
            status,
            message,
            schema: Arc::new(native_reader::types::read_schema(&[])),
            batches: Vec::new(),
        }
    }

    /// Writes the answer as one complete Arrow IPC stream (schema, batches, end-of-stream marker) whose
    /// schema metadata says the request `index`, the status, the message and the `reader`.
    ///
    /// Errors: the Arrow error of encoding or writing it.
    pub fn write(&self, out: &mut dyn Write, index: usize, reader: &str) -> Result<(), ArrowError> {
        let mut meta = HashMap::new();
        meta.insert(META_SPLIT.to_owned(), index.to_string());
        let status = match self.status {
            Status::Ok => "ok",
            Status::Error => "error",
            Status::Unsupported => "unsupported",
        };
        meta.insert(META_STATUS.to_owned(), status.to_owned());
        meta.insert(META_READER.to_owned(), reader.to_owned());
        if !self.message.is_empty() {
            meta.insert(META_MESSAGE.to_owned(), self.message.clone());
        }
        let schema = Arc::new(Schema::new_with_metadata(
            self.schema.fields().clone(),
            meta,
        ));
        let mut w = StreamWriter::try_new(out, &schema)?;
        for b in &self.batches {
            w.write(&RecordBatch::try_new(schema.clone(), b.columns().to_vec())?)?;
        }
        w.finish()
    }

    /// Reads back a stream [`write`](Self::write) wrote.
    ///
    /// Errors: the Arrow error when `input` is not such a stream (or has no known status).
    pub fn read(input: impl Read) -> Result<Self, ArrowError> {
        let reader = StreamReader::try_new(input, None)?;
        let schema = reader.schema();
        let meta = schema.metadata();
        let status = meta
            .get(META_STATUS)
            .and_then(|s| Status::parse(s))
            .ok_or_else(|| ArrowError::ParseError(format!("no `{META_STATUS}` in the stream")))?;
        let message = meta.get(META_MESSAGE).cloned().unwrap_or_default();
        let plain_schema = plain(&schema);
        let batches = reader
            .map(|b| {
                b.and_then(|b| RecordBatch::try_new(plain_schema.clone(), b.columns().to_vec()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SplitAnswer {
            status,
            message,
            schema: plain_schema,
            batches,
        })
    }
}

/// `schema` without schema-level metadata (field metadata, the field ids, is kept).
fn plain(schema: &SchemaRef) -> SchemaRef {
    Arc::new(Schema::new(schema.fields().clone()))
}

/// The schema of a split without rows: `_row_kind` and the columns of the table's latest schema
/// (`schema/schema-<max id>`), typed as `native_reader::types` types them. Only the names are checked by the
/// harness for a stream without rows; a table whose schema cannot be read gets `_row_kind` alone.
fn empty_schema(table: &Path) -> SchemaRef {
    let dir = table.join("schema");
    let latest = std::fs::read_dir(&dir).ok().and_then(|d| {
        d.filter_map(|e| e.ok())
            .filter_map(|e| {
                e.file_name()
                    .to_str()?
                    .strip_prefix("schema-")?
                    .parse::<i64>()
                    .ok()
            })
            .max()
    });
    let fields = latest
        .and_then(|id| {
            native_reader::schema::TableSchema::read(&dir.join(format!("schema-{id}"))).ok()
        })
        .map(|s| s.fields)
        .unwrap_or_default();
    Arc::new(native_reader::types::read_schema(&fields))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int32Array, Int8Array};
    use arrow_schema::{DataType, Field};

    #[test]
    fn an_answer_survives_the_cache_with_another_index() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("_row_kind", DataType::Int8, false),
            Field::new("v", DataType::Int32, true),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int8Array::from(vec![0, 2])),
                Arc::new(Int32Array::from(vec![Some(1), None])),
            ],
        )
        .unwrap();
        let answer = SplitAnswer::rows(Path::new("/nowhere"), vec![batch.clone()]);
        let mut bytes = Vec::new();
        answer.write(&mut bytes, 7, "stock@1.0.0").unwrap();
        let back = SplitAnswer::read(bytes.as_slice()).unwrap();
        assert_eq!(back.status, Status::Ok);
        assert_eq!(back.batches, vec![batch]);
        let mut again = Vec::new();
        back.write(&mut again, 3, "stock@1.0.0").unwrap();
        let reread = StreamReader::try_new(again.as_slice(), None).unwrap();
        assert_eq!(reread.schema().metadata()[META_SPLIT], "3");

        let failed = SplitAnswer::failed(Status::Error, "boom".into());
        let mut bytes = Vec::new();
        failed.write(&mut bytes, 0, "stock@1.0.0").unwrap();
        let back = SplitAnswer::read(bytes.as_slice()).unwrap();
        assert_eq!(
            (back.status, back.message.as_str()),
            (Status::Error, "boom")
        );
        assert!(back.batches.is_empty());
    }
}
