//! Lance data files (2.0 `paimon-lance`, `file.format=lance`; Paimon's `LanceReaderFactory` reads them
//! through the lance-core JNI library), decoded natively.
//!
//! A Lance v2 file is data buffers, then one protobuf `ColumnMetadata` per column (its pages, each with its
//! buffers' positions and an encoding), the tables of their positions and of the global buffers, and a
//! 40-byte footer ending in `LANC` (`file2.proto`). Global buffer 0 is the `FileDescriptor`: the schema,
//! as fields in pre-order naming their parent, and the row count. Columns follow the fields in pre-order:
//! a leaf (fixed-size lists included) has one, a struct one (its header, no validity in 2.0) before its
//! children's, a list one (its offsets) before its item's.
//!
//! Read here: files of the 2.0 layout (version 0.3, which lance-core 0.39, the release's dependency, writes
//! by default) in the encodings of [`encoding`]; columns are matched by name, and one the file lacks reads
//! as NULL. A 2.1 file (structural page layouts), an indirect encoding, or an encoding not in
//! [`encoding`] is [`Error::Unsupported`] naming the file and what it holds.
//!
//! A file's requested columns are decoded whole when it is opened and handed out in batches: memory is
//! bounded by one file (Paimon's `target-file-size`), not by the table.

mod encoding;
mod proto;

use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::UInt64Type;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Fields, Schema, TimeUnit};
use prost::Message;

use self::encoding::{decode, offsets_and_validity, LanceError, PageBuffers};
use super::conform::conform_batch;
use super::format::{FileColumn, FormatReader, RawBatches};
use super::mapped;
use crate::error::{Error, Result};

/// The footer: three u64 positions, two u32 counts, two u16 versions and the magic.
const FOOTER: usize = 40;
const MAGIC: &[u8; 4] = b"LANC";
const ARRAY_ENCODING: &str = "/lance.encodings.ArrayEncoding";

/// Reads `.lance` data files ([`FormatReader`]).
pub(crate) struct LanceReader;

impl FormatReader for LanceReader {
    fn open(&self, path: &Path, columns: &[FileColumn], batch_size: usize) -> Result<RawBatches> {
        let bytes = mapped::read_all(path)?;
        let fail = |e: LanceError| match e {
            LanceError::Unsupported(reason) => Error::Unsupported {
                path: path.to_path_buf(),
                reason: format!("Lance data file: {reason}"),
            },
            LanceError::Invalid(reason) => Error::Decode {
                path: path.to_path_buf(),
                reason: format!("not a readable Lance file: {reason}"),
            },
        };
        let file = LanceFile::parse(&bytes).map_err(fail)?;
        let top = file.top_level();
        let mut fields = Vec::new();
        let mut arrays = Vec::new();
        let mut positions = Vec::with_capacity(columns.len());
        for column in columns {
            match top.iter().find(|(f, _)| f.name == column.name) {
                Some(&(field, first_column)) => {
                    let mut next = first_column;
                    // `read_field` checks that the column holds the file's rows.
                    let array = file.read_field(field, &mut next, file.rows).map_err(fail)?;
                    positions.push(Some(arrays.len()));
                    fields.push(Field::new(
                        field.name.clone(),
                        array.data_type().clone(),
                        true,
                    ));
                    arrays.push(array);
                }
                None => positions.push(None),
            }
        }
        let rows = file.rows;
        let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(rows));
        let batch =
            RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options)
                .map_err(|e| fail(LanceError::Invalid(e.to_string())))?;
        let columns = columns.to_vec();
        let path = path.to_path_buf();
        let step = batch_size.max(1);
        Ok(Box::new((0..rows).step_by(step).map(move |start| {
            let slice = batch.slice(start, step.min(rows - start));
            conform_batch(&slice, &columns, &positions, &path, |a, _| Ok(a.clone()))
        })))
    }
}

/// A parsed Lance file: its bytes, row count, fields and column metadata.
struct LanceFile<'a> {
    bytes: &'a [u8],
    rows: usize,
    fields: Vec<proto::Field>,
    columns: Vec<proto::ColumnMetadata>,
}

fn u64_at(bytes: &[u8], at: usize) -> encoding::PageResult<u64> {
    at.checked_add(8)
        .and_then(|end| bytes.get(at..end))
        .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
        .ok_or_else(|| LanceError::Invalid(format!("a position table beyond the file at {at}")))
}

fn range(bytes: &[u8], position: u64, size: u64) -> encoding::PageResult<&[u8]> {
    usize::try_from(position)
        .ok()
        .zip(usize::try_from(size).ok())
        .and_then(|(p, s)| bytes.get(p..p.checked_add(s)?))
        .ok_or_else(|| {
            LanceError::Invalid(format!(
                "a buffer of {size} bytes at {position} beyond the file's {} bytes",
                bytes.len()
            ))
        })
}

impl<'a> LanceFile<'a> {
    fn parse(bytes: &'a [u8]) -> encoding::PageResult<LanceFile<'a>> {
        let invalid = |r: String| LanceError::Invalid(r);
        if bytes.len() < FOOTER || &bytes[bytes.len() - 4..] != MAGIC {
            return Err(invalid("no `LANC` footer".into()));
        }
        let footer = &bytes[bytes.len() - FOOTER..];
        let u32_at = |at: usize| {
            u32::from_le_bytes([footer[at], footer[at + 1], footer[at + 2], footer[at + 3]])
        };
        let u16_at = |at: usize| u16::from_le_bytes([footer[at], footer[at + 1]]);
        let (cmo, gbo) = (u64_at(footer, 8)?, u64_at(footer, 16)?);
        let (globals, column_count) = (u32_at(24) as usize, u32_at(28) as usize);
        let (major, minor) = (u16_at(32), u16_at(34));
        if (major, minor) != (0, 3) {
            let name = match (major, minor) {
                (0, 1) | (0, 2) => "0.1 (the legacy format)".to_owned(),
                (2, m) => format!("2.{m}"),
                (a, b) => format!("{a}.{b}"),
            };
            return Err(LanceError::Unsupported(format!(
                "Lance file format version {name} (2.0 is read)"
            )));
        }
        let table = |start: u64, i: usize| -> encoding::PageResult<(u64, u64)> {
            let at = usize::try_from(start)
                .ok()
                .and_then(|s| s.checked_add(i.checked_mul(16)?))
                .ok_or_else(|| invalid("a position table beyond the file".into()))?;
            Ok((u64_at(bytes, at)?, u64_at(bytes, at.saturating_add(8))?))
        };
        if globals == 0 {
            return Err(invalid("no global buffer (the file descriptor)".into()));
        }
        let (position, size) = table(gbo, 0)?;
        let descriptor = proto::FileDescriptor::decode(range(bytes, position, size)?)
            .map_err(|e| invalid(format!("file descriptor: {e}")))?;
        // Arrow arrays of this reader index rows with i32.
        let rows = usize::try_from(descriptor.length)
            .ok()
            .filter(|&r| r <= i32::MAX as usize)
            .ok_or_else(|| invalid(format!("{} rows", descriptor.length)))?;
        let fields = descriptor.schema.map(|s| s.fields).unwrap_or_default();
        if column_count > bytes.len() / 16 {
            return Err(invalid(format!(
                "{column_count} columns in a file of {} bytes",
                bytes.len()
            )));
        }
        let columns = (0..column_count)
            .map(|i| {
                let (position, size) = table(cmo, i)?;
                proto::ColumnMetadata::decode(range(bytes, position, size)?)
                    .map_err(|e| invalid(format!("column {i} metadata: {e}")))
            })
            .collect::<encoding::PageResult<Vec<_>>>()?;
        Ok(LanceFile {
            bytes,
            rows,
            fields,
            columns,
        })
    }

    /// The fields after `field` (in pre-order) that name it as their parent.
    fn children(&self, field: &proto::Field) -> Vec<&proto::Field> {
        let at = self
            .fields
            .iter()
            .position(|f| std::ptr::eq(f, field))
            .unwrap_or(self.fields.len());
        self.fields[at.saturating_add(1).min(self.fields.len())..]
            .iter()
            .filter(|f| f.parent_id == field.id)
            .collect()
    }

    /// The columns `field` and its descendants take (children come after their parent, so this ends).
    fn column_count(&self, field: &proto::Field) -> usize {
        1usize.saturating_add(
            self.children(field)
                .iter()
                .map(|c| self.column_count(c))
                .fold(0usize, usize::saturating_add),
        )
    }

    /// The top-level fields, each with its first column.
    fn top_level(&self) -> Vec<(&proto::Field, usize)> {
        let mut next = 0;
        self.fields
            .iter()
            .filter(|f| f.parent_id == -1)
            .map(|f| {
                let first = next;
                next += self.column_count(f);
                (f, first)
            })
            .collect()
    }

    /// The whole of `field`, read from column `*next` on (advanced past its columns).
    /// `rows` is the count the field's column must hold (the file's, its struct's, or its list's items).
    fn read_field(
        &self,
        field: &proto::Field,
        next: &mut usize,
        rows: usize,
    ) -> encoding::PageResult<ArrayRef> {
        let column = *next;
        let held = self.column_rows(column)?;
        if held != rows {
            return Err(LanceError::Invalid(format!(
                "column {column} (`{}`) holds {held} values where {rows} are due",
                field.name
            )));
        }
        *next += 1;
        let logical = field.logical_type.as_str();
        if field.metadata.contains_key("lance-encoding:blob") {
            return Err(LanceError::Unsupported(format!(
                "column `{}` is a Lance blob column",
                field.name
            )));
        }
        match logical {
            "struct" => {
                let children = self.children(field);
                let mut fields = Vec::with_capacity(children.len());
                let mut arrays = Vec::with_capacity(children.len());
                for c in children {
                    let array = self.read_field(c, next, rows)?;
                    fields.push(Field::new(
                        c.name.clone(),
                        array.data_type().clone(),
                        c.nullable,
                    ));
                    arrays.push(array);
                }
                arrow_array::StructArray::try_new_with_length(
                    Fields::from(fields),
                    arrays,
                    None,
                    rows,
                )
                .map(|a| Arc::new(a) as ArrayRef)
                .map_err(|e| LanceError::Invalid(e.to_string()))
            }
            "list" | "large_list" | "list.struct" | "large_list.struct" => {
                let large = logical.starts_with("large_list");
                let item = match self.children(field).as_slice() {
                    [item] => *item,
                    _ => {
                        return Err(LanceError::Invalid(format!(
                            "list `{}` without one item field",
                            field.name
                        )))
                    }
                };
                let (offsets, validity) = self.list_offsets(column)?;
                let total = offsets.last().copied().unwrap_or(0);
                let total = usize::try_from(total)
                    .ok()
                    .filter(|&t| t <= i32::MAX as usize || large)
                    .ok_or_else(|| LanceError::Invalid(format!("a list of {total} items")))?;
                let items = self.read_field(item, next, total)?;
                let item_field = Arc::new(Field::new(
                    item.name.clone(),
                    items.data_type().clone(),
                    item.nullable,
                ));
                let nulls =
                    Some(arrow::buffer::NullBuffer::new(validity)).filter(|n| n.null_count() > 0);
                let array: ArrayRef = if large {
                    let o = offsets.iter().map(|&o| o as i64).collect::<Vec<_>>();
                    Arc::new(
                        arrow_array::LargeListArray::try_new(
                            item_field,
                            arrow::buffer::OffsetBuffer::new(o.into()),
                            items,
                            nulls,
                        )
                        .map_err(|e| LanceError::Invalid(e.to_string()))?,
                    )
                } else {
                    let o = offsets
                        .iter()
                        .map(|&o| i32::try_from(o))
                        .collect::<std::result::Result<Vec<_>, _>>()
                        .map_err(|_| LanceError::Invalid("a list beyond 2^31 items".into()))?;
                    Arc::new(
                        arrow_array::ListArray::try_new(
                            item_field,
                            arrow::buffer::OffsetBuffer::new(o.into()),
                            items,
                            nulls,
                        )
                        .map_err(|e| LanceError::Invalid(e.to_string()))?,
                    )
                };
                Ok(array)
            }
            _ => {
                let t = arrow_type(logical)?;
                let pages = self.pages(column)?;
                let mut parts = Vec::with_capacity(pages.len());
                for (page, encoding) in &pages {
                    parts.push(decode(
                        encoding,
                        &self.page_buffers(page)?,
                        page.length as usize,
                        &t,
                    )?);
                }
                concat(parts, &t)
            }
        }
    }

    /// The rows a column's pages hold.
    fn column_rows(&self, column: usize) -> encoding::PageResult<usize> {
        let meta = self.column(column)?;
        Ok(meta
            .pages
            .iter()
            .map(|p| usize::try_from(p.length).unwrap_or(usize::MAX))
            .fold(0usize, usize::saturating_add))
    }

    fn column(&self, column: usize) -> encoding::PageResult<&proto::ColumnMetadata> {
        self.columns
            .get(column)
            .ok_or_else(|| LanceError::Invalid(format!("column {column} is missing")))
    }

    /// A column's pages with their array encodings.
    fn pages(
        &self,
        column: usize,
    ) -> encoding::PageResult<Vec<(&proto::Page, proto::ArrayEncoding)>> {
        self.column(column)?
            .pages
            .iter()
            .map(|page| {
                let direct = page
                    .encoding
                    .as_ref()
                    .and_then(|e| e.direct.as_ref())
                    .ok_or_else(|| {
                        LanceError::Unsupported(
                            "a Lance page whose encoding is not held in the page (indirect)".into(),
                        )
                    })?;
                let any = proto::Any::decode(direct.encoding.as_slice())
                    .map_err(|e| LanceError::Invalid(format!("page encoding: {e}")))?;
                if any.type_url != ARRAY_ENCODING {
                    return Err(LanceError::Unsupported(format!(
                        "a Lance page encoded as `{}` (the 2.1 structural layouts are not read)",
                        any.type_url.trim_start_matches('/')
                    )));
                }
                let encoding = proto::ArrayEncoding::decode(any.value.as_slice())
                    .map_err(|e| LanceError::Invalid(format!("page encoding: {e}")))?;
                Ok((page, encoding))
            })
            .collect()
    }

    fn page_buffers(&self, page: &proto::Page) -> encoding::PageResult<PageBuffers<'a>> {
        if page.buffer_offsets.len() != page.buffer_sizes.len() {
            return Err(LanceError::Invalid(
                "page buffer offsets and sizes differ in count".into(),
            ));
        }
        let buffers = page
            .buffer_offsets
            .iter()
            .zip(&page.buffer_sizes)
            .map(|(&p, &s)| range(self.bytes, p, s))
            .collect::<encoding::PageResult<Vec<_>>>()?;
        Ok(PageBuffers { buffers })
    }

    /// A list column's Arrow offsets over all its pages (each page's offsets count from its own first item)
    /// and its validity.
    fn list_offsets(
        &self,
        column: usize,
    ) -> encoding::PageResult<(Vec<u64>, arrow::buffer::BooleanBuffer)> {
        let mut offsets = vec![0u64];
        let mut valid = arrow::array::BooleanBufferBuilder::new(0);
        for (page, encoding) in self.pages(column)? {
            let Some(proto::array_encoding::Kind::List(list)) = &encoding.kind else {
                return Err(LanceError::Unsupported(format!(
                    "a Lance list page encoded as `{}`",
                    encoding.kind.as_ref().map_or("nothing", |k| k.name())
                )));
            };
            let ends_encoding = list
                .offsets
                .as_deref()
                .ok_or_else(|| LanceError::Invalid("a list page without offsets".into()))?;
            let ends = decode(
                ends_encoding,
                &self.page_buffers(page)?,
                page.length as usize,
                &ArrowType::UInt64,
            )?;
            let ends = ends.as_primitive::<UInt64Type>();
            let (page_offsets, page_valid) =
                offsets_and_validity(ends.values(), list.null_offset_adjustment, list.num_items)?;
            let base = *offsets.last().unwrap_or(&0);
            for o in &page_offsets[1..] {
                offsets.push(
                    base.checked_add(*o)
                        .ok_or_else(|| LanceError::Invalid("list offsets beyond 2^64".into()))?,
                );
            }
            valid.append_buffer(&page_valid);
        }
        Ok((offsets, valid.finish()))
    }
}

fn concat(parts: Vec<ArrayRef>, t: &ArrowType) -> encoding::PageResult<ArrayRef> {
    match parts.len() {
        0 => Ok(arrow_array::new_empty_array(t)),
        1 => Ok(parts
            .into_iter()
            .next()
            .unwrap_or_else(|| arrow_array::new_empty_array(t))),
        _ => {
            let refs = parts.iter().map(|a| a.as_ref()).collect::<Vec<_>>();
            arrow_select::concat::concat(&refs).map_err(|e| LanceError::Invalid(e.to_string()))
        }
    }
}

/// The Arrow type of a Lance logical type (lance-core's `LogicalType` names) other than a struct or list.
fn arrow_type(logical: &str) -> encoding::PageResult<ArrowType> {
    use ArrowType::*;
    let unit = |u: &str| match u {
        "s" => Some(TimeUnit::Second),
        "ms" => Some(TimeUnit::Millisecond),
        "us" => Some(TimeUnit::Microsecond),
        "ns" => Some(TimeUnit::Nanosecond),
        _ => None,
    };
    let simple = match logical {
        "null" => Some(Null),
        "bool" => Some(Boolean),
        "int8" => Some(Int8),
        "uint8" => Some(UInt8),
        "int16" => Some(Int16),
        "uint16" => Some(UInt16),
        "int32" => Some(Int32),
        "uint32" => Some(UInt32),
        "int64" => Some(Int64),
        "uint64" => Some(UInt64),
        "halffloat" => Some(Float16),
        "float" => Some(Float32),
        "double" => Some(Float64),
        "string" => Some(Utf8),
        "binary" => Some(Binary),
        "large_string" => Some(LargeUtf8),
        "large_binary" => Some(LargeBinary),
        "date32:day" => Some(Date32),
        "date64:ms" => Some(Date64),
        "time32:s" => Some(Time32(TimeUnit::Second)),
        "time32:ms" => Some(Time32(TimeUnit::Millisecond)),
        "time64:us" => Some(Time64(TimeUnit::Microsecond)),
        "time64:ns" => Some(Time64(TimeUnit::Nanosecond)),
        _ => None,
    };
    if let Some(t) = simple {
        return Ok(t);
    }
    let parts = logical.split(':').collect::<Vec<_>>();
    let unsupported = || LanceError::Unsupported(format!("the Lance logical type `{logical}`"));
    match parts.as_slice() {
        ["decimal", "128", p, s] => Ok(Decimal128(
            p.parse().map_err(|_| unsupported())?,
            s.parse().map_err(|_| unsupported())?,
        )),
        ["decimal", "256", p, s] => Ok(Decimal256(
            p.parse().map_err(|_| unsupported())?,
            s.parse().map_err(|_| unsupported())?,
        )),
        ["timestamp", u, tz] => {
            let tz = (*tz != "-").then(|| Arc::<str>::from(*tz));
            Ok(Timestamp(unit(u).ok_or_else(unsupported)?, tz))
        }
        ["fixed_size_binary", w] => Ok(FixedSizeBinary(w.parse().map_err(|_| unsupported())?)),
        ["fixed_size_list", inner @ .., size] if !inner.is_empty() => {
            let item = arrow_type(&inner.join(":"))?;
            Ok(FixedSizeList(
                Arc::new(Field::new("item", item, true)),
                size.parse().map_err(|_| unsupported())?,
            ))
        }
        _ => Err(unsupported()),
    }
}

#[cfg(test)]
mod tests;
