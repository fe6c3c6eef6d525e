//! ORC data files (paimon-format `OrcReaderFactory`), decoded with `orc-rust` and brought to Paimon's Arrow
//! types by [`super::conform`].
//!
//! Type notes (paimon-format `OrcTypeUtil`, §6.2 of the format notes):
//! * TIMESTAMP is an ORC `timestamp` holding the writer JVM's wall clock; `orc-rust` converts it from the
//!   stripe's writer time zone to UTC wall clock, which is what the released reader returns with its JVM
//!   pinned to UTC. LTZ is `timestamp with local time zone` (an instant, UTC). Each timestamp column is
//!   decoded in the unit of its precision (ms for 0-3, µs for 4-6, i128 ns for 7-9), so values of any year
//!   fit; the export to the column's unit then wraps like paimon-arrow's Java `long` arithmetic.
//! * TIME is an ORC `int` (ms of day); TINYINT/SMALLINT are `tinyint`/`smallint`; DECIMAL is `decimal(p,s)`.
//! * CHAR(n) values: the ORC writer pads them to n and the ORC Java reader strips trailing spaces again
//!   (`CharTreeReader`), so trailing spaces are stripped ([`super::conform::orc_char_trim`]).
//! * ARRAY/MAP/ROW are `array`/`map`/`struct`; MULTISET is not supported by Paimon's ORC format.
//!
//! Compression: zlib (Paimon's "gzip"), snappy, lz4, zstd, lzo and none, as the file's postscript says.
//! Columns are matched **by name** (the 1.0 reader's default); a name the file lacks reads as NULL.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Fields, Schema};
use orc_rust::error::OrcError;
use orc_rust::projection::ProjectionMask;
use orc_rust::reader::ChunkReader;
use orc_rust::{ArrowReader, ArrowReaderBuilder};

use super::conform::{conform_batch, orc_char_trim};
use super::mapped::{self, DataFile};
use super::orc_tail::{check_bytes, check_file, Bounded};
use super::{DecodeError, FileColumn, FormatReader, RawBatches};
use crate::error::{Error, ErrorKind, Result};
use crate::schema::{DataType, TypeKind};
use crate::types::timestamp_unit;

/// The ORC [`FormatReader`] (paimon-format `OrcReaderFactory`): [`open`].
pub(crate) struct OrcReader;

impl FormatReader for OrcReader {
    fn open(&self, path: &Path, columns: &[FileColumn], batch_size: usize) -> Result<RawBatches> {
        open(path, columns, batch_size)
    }
}

/// Opens an ORC file and decodes `columns` (see [`FileColumn`]) in batches of `batch_size` rows.
///
/// Errors: [`Error::Io`] when the file cannot be opened, [`Error::Decode`] naming it when it is not
/// readable ORC or a column cannot be brought to its Paimon type.
pub(crate) fn open(path: &Path, columns: &[FileColumn], batch_size: usize) -> Result<RawBatches> {
    let unreadable = |e: DecodeError| e.prefixed("not a readable ORC file").at(path);
    match mapped::open(path)? {
        DataFile::Mapped(bytes) => {
            check_bytes(&bytes).map_err(unreadable)?;
            open_with(Bounded(bytes), path, columns, batch_size)
        }
        DataFile::Read(file) => {
            check_file(&file).map_err(unreadable)?;
            open_with(Bounded(file), path, columns, batch_size)
        }
    }
}

/// The top-level fields' metadata of the `ARROW:schema` a 2.0 writer puts in the file's user metadata
/// (`FormatMetadataUtils`: an Arrow IPC schema message, base64 text), by field name: where a shared-shredding
/// MAP keeps its field dictionary. Empty when the file has none or it does not decode (as Java's
/// `readFieldMetadata`).
fn written_field_metadata(
    user: &HashMap<String, Vec<u8>>,
) -> HashMap<String, HashMap<String, String>> {
    use base64::Engine;
    let Some(text) = user.get("ARROW:schema") else {
        return HashMap::new();
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap_or_else(|_| text.clone());
    // arrow-ipc panics on some well-formed buffers that are not a valid schema: such a file's metadata is
    // ignored, as Java ignores metadata it cannot read.
    let parsed =
        std::panic::catch_unwind(|| arrow_ipc::convert::try_schema_from_ipc_buffer(&bytes));
    match parsed
        .unwrap_or_else(|_| Err(arrow_schema::ArrowError::ParseError("ARROW:schema".into())))
    {
        Ok(schema) => schema
            .fields()
            .iter()
            .map(|f| (f.name().clone(), f.metadata().clone()))
            .collect(),
        Err(_) => HashMap::new(),
    }
}

/// [`open`] of a file checked and opened as `input` (its bytes mapped, or the file read).
fn open_with<R: ChunkReader + Send + 'static>(
    input: Bounded<R>,
    path: &Path,
    columns: &[FileColumn],
    batch_size: usize,
) -> Result<RawBatches> {
    let unreadable = |e: DecodeError| e.prefixed("not a readable ORC file").at(path);
    let builder = guard(|| ArrowReaderBuilder::try_new(input)).map_err(unreadable)?;
    let root = builder.file_metadata().root_data_type().clone();
    let present: Vec<&str> = root.children().iter().map(|c| c.name()).collect();
    let wanted: Vec<&str> = columns
        .iter()
        .map(|c| c.name.as_str())
        .filter(|n| present.contains(n))
        .collect();
    let builder = builder
        .with_projection(ProjectionMask::named_roots(&root, &wanted))
        .with_batch_size(batch_size);
    // Decode every timestamp in the unit of its Paimon precision (orc-rust defaults to ns).
    let types: HashMap<&str, &DataType> = columns
        .iter()
        .map(|c| (c.name.as_str(), &c.data_type))
        .collect();
    let projected = builder.schema();
    // Only a shared-shredding MAP needs the written metadata (its field dictionary).
    let written = if columns
        .iter()
        .any(|c| matches!(c.data_type.kind, TypeKind::Map(..)))
    {
        written_field_metadata(builder.file_metadata().user_custom_metadata())
    } else {
        HashMap::new()
    };
    let fields: Vec<Field> = projected
        .fields()
        .iter()
        .map(|f| {
            let field = match types.get(f.name().as_str()) {
                Some(t) => f
                    .as_ref()
                    .clone()
                    .with_data_type(decode_type(f.data_type(), t)),
                None => f.as_ref().clone(),
            };
            match written.get(f.name()) {
                Some(metadata) if !metadata.is_empty() => field.with_metadata(metadata.clone()),
                _ => field,
            }
        })
        .collect();
    let schema = Arc::new(Schema::new_with_metadata(
        fields,
        projected.metadata().clone(),
    ));
    let by_name: HashMap<String, usize> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name().clone(), i))
        .collect();
    let positions = columns
        .iter()
        .map(|c| by_name.get(&c.name).copied())
        .collect();
    let reader = builder.with_schema(schema.clone()).build();
    Ok(Box::new(OrcBatches {
        path: path.to_path_buf(),
        reader,
        schema,
        columns: columns.to_vec(),
        positions,
    }))
}

/// Runs `f`, turning a panic of the ORC decoder on bad bytes into an error; an ORC error stays the source.
fn guard<T>(
    f: impl FnOnce() -> std::result::Result<T, OrcError>,
) -> std::result::Result<T, DecodeError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(|e| DecodeError::library("", e)),
        Err(_) => Err(PANICKED.into()),
    }
}

/// The reason given when the ORC decoder panics on a file.
const PANICKED: &str = "the ORC decoder panicked on this file";

/// The Arrow type to ask orc-rust for: its default for the ORC type, with timestamps in the unit of the
/// Paimon precision (nested ones included).
fn decode_type(default: &ArrowType, t: &DataType) -> ArrowType {
    match (default, &t.kind) {
        (
            ArrowType::Timestamp(_, zone),
            TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p),
        ) => {
            match *p {
                0..=3 => ArrowType::Timestamp(timestamp_unit(3), zone.clone()),
                4..=6 => ArrowType::Timestamp(timestamp_unit(6), zone.clone()),
                // i128 epoch nanoseconds: years beyond 1677..2262 do not fit i64 nanoseconds.
                _ => ArrowType::Decimal128(38, 9),
            }
        }
        (ArrowType::List(f), TypeKind::Array(e)) => ArrowType::List(Arc::new(
            f.as_ref()
                .clone()
                .with_data_type(decode_type(f.data_type(), e)),
        )),
        (ArrowType::Map(entries, sorted), TypeKind::Map(k, v)) => match entries.data_type() {
            ArrowType::Struct(kv) if kv.len() == 2 => {
                let key = kv[0]
                    .as_ref()
                    .clone()
                    .with_data_type(decode_type(kv[0].data_type(), k));
                let value = kv[1]
                    .as_ref()
                    .clone()
                    .with_data_type(decode_type(kv[1].data_type(), v));
                let entries = entries
                    .as_ref()
                    .clone()
                    .with_data_type(ArrowType::Struct(Fields::from(vec![key, value])));
                ArrowType::Map(Arc::new(entries), *sorted)
            }
            _ => default.clone(),
        },
        (ArrowType::Struct(children), TypeKind::Row(fields)) => ArrowType::Struct(Fields::from(
            children
                .iter()
                .map(|c| {
                    let t = fields.iter().find(|f| &f.name == c.name());
                    match t {
                        Some(f) => c
                            .as_ref()
                            .clone()
                            .with_data_type(decode_type(c.data_type(), &f.data_type)),
                        None => c.as_ref().clone(),
                    }
                })
                .collect::<Vec<_>>(),
        )),
        _ => default.clone(),
    }
}

struct OrcBatches<R: ChunkReader> {
    path: PathBuf,
    reader: ArrowReader<Bounded<R>>,
    /// The schema asked for, with the written fields' metadata, which the batches do not carry.
    schema: Arc<Schema>,
    columns: Vec<FileColumn>,
    positions: Vec<Option<usize>>,
}

impl<R: ChunkReader> OrcBatches<R> {
    fn convert(&self, batch: RecordBatch) -> Result<(usize, Vec<ArrayRef>)> {
        let batch = batch
            .with_schema(self.schema.clone())
            .map_err(|e| Error::library(ErrorKind::Decode, &self.path, "", e))?;
        conform_batch(
            &batch,
            &self.columns,
            &self.positions,
            &self.path,
            orc_char_trim,
        )
    }
}

impl<R: ChunkReader> Iterator for OrcBatches<R> {
    type Item = Result<(usize, Vec<ArrayRef>)>;

    fn next(&mut self) -> Option<Self::Item> {
        let reader = &mut self.reader;
        let next = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reader.next()));
        match next {
            Ok(None) => None,
            Ok(Some(Ok(batch))) => Some(self.convert(batch)),
            Ok(Some(Err(e))) => Some(Err(Error::library(ErrorKind::Decode, &self.path, "", e))),
            Err(_) => Some(Err(DecodeError::from(PANICKED).at(&self.path))),
        }
    }
}
