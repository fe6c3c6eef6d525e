//! `.blob` files (paimon-format `BlobFileFormat`, from 1.4.1; `BlobFormatWriter`, `BlobFileMeta`): the values of
//! one BLOB column of a data-evolution table, one record per row.
//!
//! Layout: records, then the index, then `int32 LE index length` and `byte version = 1`. A record is
//! `int32 LE magic 1481511375`, the payload, `int64 LE record length` (magic, payload and these 12 bytes)
//! and `int32 LE CRC32` of the magic and payload. The index is `DeltaVarintCompressor` of the record lengths
//! (deltas, ZigZag, varints), `-1` for a NULL row and `-2` for a placeholder (a row whose value an older
//! file of the column holds), neither taking bytes; records follow each other from offset 0.
//!
//! Values are returned as Arrow Binary, as the released reader's `Blob.toData()` gives them. A placeholder
//! read on its own fails, as it does in the released reader (`BlobPlaceholder.toData`); the fallback read of
//! a BLOB column's files ([`BlobCells`], `BlobFallbackRecordReader`) takes such rows from older files.

use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::BinaryBuilder;
use arrow_array::ArrayRef;

use super::format::{FileColumn, FormatReader, RawBatches};
use super::mapped;
use crate::error::{Error, Result};
use crate::split::DataFileDesc;

/// `BlobFormatWriter.MAGIC_NUMBER`.
const MAGIC: i32 = 1_481_511_375;
/// `BlobFormatWriter.VERSION`.
const VERSION: u8 = 1;
/// Magic before the payload, record length and CRC after it.
const RECORD_OVERHEAD: i64 = 16;

/// One row of a `.blob` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BlobCell {
    /// A NULL value (index length -1).
    Null,
    /// `BlobPlaceholder` (index length -2): the value is in an older file of the column.
    Placeholder,
    /// The payload's bytes in the file.
    Value(std::ops::Range<usize>),
}

/// Every row of one `.blob` file, with the file's bytes (held whole: a blob file is read at once, as
/// `BlobFormatReader` does, and a split bounds how many are held).
pub(crate) struct BlobCells {
    bytes: bytes::Bytes,
    /// The rows, in file order.
    pub(crate) cells: Vec<BlobCell>,
}

impl BlobCells {
    /// Reads the `.blob` file at `path`.
    ///
    /// Errors: [`Error::Io`] when it cannot be read; [`Error::Decode`] naming it when its footer, index or a
    /// record is malformed.
    pub(crate) fn read(path: &Path) -> Result<BlobCells> {
        let bytes = mapped::read_all(path)?;
        let bad = |reason: String| Error::Decode {
            path: path.to_path_buf(),
            reason: format!("not a readable blob file: {reason}"),
        };
        let records = index(&bytes).map_err(bad)?;
        let mut cells = Vec::with_capacity(records.len());
        let mut offset: i64 = 0;
        for (row, &length) in records.iter().enumerate() {
            cells.push(match length {
                -1 => BlobCell::Null,
                -2 => BlobCell::Placeholder,
                n if n >= RECORD_OVERHEAD => {
                    let range = record(&bytes, offset, n).map_err(bad)?;
                    offset += n;
                    BlobCell::Value(range)
                }
                n => return Err(bad(format!("row {row} has the record length {n}"))),
            });
        }
        Ok(BlobCells { bytes, cells })
    }

    /// The payload of `cell` (a cell of this file).
    pub(crate) fn value(&self, range: &std::ops::Range<usize>) -> &[u8] {
        &self.bytes[range.clone()]
    }
}

/// `BlobDescriptor.serialize()` (version 2): the version byte, the magic `BLOBDESC` (int64 LE), the URI's
/// length (int32 LE) and UTF-8 bytes, then the payload's offset and length in the file (int64 LE each): what
/// a reader of a `blob-as-descriptor` table gets for a BLOB (`toDescriptor().serialize()` of the `BlobRef` the
/// released reader returns).
pub(crate) fn descriptor(uri: &str, range: &std::ops::Range<usize>) -> Vec<u8> {
    descriptor_of(uri, range.start as i64, range.len() as i64)
}

/// `BlobDescriptor(uri, offset, length).serialize()` (version 2; see [`descriptor`]).
pub(crate) fn descriptor_of(uri: &str, offset: i64, length: i64) -> Vec<u8> {
    const VERSION: u8 = 2;
    const MAGIC: i64 = 0x424C_4F42_4445_5343;
    let uri = uri.as_bytes();
    let mut out = Vec::with_capacity(1 + 8 + 4 + uri.len() + 16);
    out.push(VERSION);
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.extend_from_slice(&(uri.len() as i32).to_le_bytes());
    out.extend_from_slice(uri);
    out.extend_from_slice(&offset.to_le_bytes());
    out.extend_from_slice(&length.to_le_bytes());
    out
}

/// The `.blob` [`FormatReader`]: each value as its bytes (`Blob.toData()`).
pub(crate) struct BlobReader;

impl FormatReader for BlobReader {
    fn open(&self, path: &Path, columns: &[FileColumn], batch_size: usize) -> Result<RawBatches> {
        open(path, columns, batch_size, false)
    }
}

/// The rows of the `.blob` file at `path` in batches of `batch_size`: each value as its bytes, or as its
/// serialized descriptor ([`descriptor`], the file's path as its URI) when `descriptors`
/// (`blob-as-descriptor`).
///
/// Errors: those of [`BlobCells::read`]; [`Error::Decode`] naming the file when more than one column is asked
/// for; [`Error::Unsupported`] naming it for a placeholder, read without the older files that hold its value
/// (the released reader fails on it too).
pub(crate) fn open(
    path: &Path,
    columns: &[FileColumn],
    batch_size: usize,
    descriptors: bool,
) -> Result<RawBatches> {
    if columns.len() > 1 {
        return Err(Error::Decode {
            path: path.to_path_buf(),
            reason: format!(
                "not a readable blob file: a blob file holds one column, {} were asked for",
                columns.len()
            ),
        });
    }
    let file = BlobCells::read(path)?;
    let values = file
        .cells
        .into_iter()
        .enumerate()
        .map(|(row, cell)| match cell {
            BlobCell::Null => Ok(None),
            BlobCell::Value(range) => Ok(Some(range)),
            BlobCell::Placeholder => Err(placeholder_alone(path, row)),
        })
        .collect::<Result<Vec<Option<std::ops::Range<usize>>>>>()?;
    let bytes = file.bytes;
    let uri = path.to_string_lossy().into_owned();
    let want = !columns.is_empty();
    let batch = batch_size.max(1);
    let chunks: Vec<Vec<Option<std::ops::Range<usize>>>> =
        values.chunks(batch).map(<[_]>::to_vec).collect();
    Ok(Box::new(chunks.into_iter().map(move |chunk| {
        let rows = chunk.len();
        if !want {
            return Ok((rows, Vec::new()));
        }
        let mut builder = BinaryBuilder::with_capacity(rows, 0);
        for value in chunk {
            match value {
                Some(range) if descriptors => builder.append_value(descriptor(&uri, &range)),
                Some(range) => builder.append_value(&bytes[range]),
                None => builder.append_null(),
            }
        }
        Ok((rows, vec![Arc::new(builder.finish()) as ArrayRef]))
    })))
}

/// The error of row `row` of the `.blob` file at `path` being a placeholder where no older file of the column
/// is read with it (the file read on its own, or the column's files all of one `_MAX_SEQUENCE_NUMBER`): the
/// released reader fails there too (`BlobPlaceholder.toData`).
pub(crate) fn placeholder_alone(path: &Path, row: usize) -> Error {
    Error::Unsupported {
        path: path.to_path_buf(),
        reason: format!(
            "row {row} of the blob file is a placeholder (its value is in an older file of the column), \
             read without those files; the released reader fails here too (BlobPlaceholder.toData)"
        ),
    }
}

/// Refuses the descriptors of `file` (`blob-as-descriptor`) when it lives under an external path, whose URI
/// as the released reader prints it (`Path.toString()` of the external location) is not reproduced.
///
/// Errors: [`Error::Unsupported`] naming `path`.
pub(crate) fn check_descriptor_location(file: &DataFileDesc, path: &Path) -> Result<()> {
    match &file.external_path {
        Some(_) => Err(Error::Unsupported {
            path: path.to_path_buf(),
            reason:
                "`blob-as-descriptor` of a blob file under an external path: its descriptor URI is \
                     not reproduced"
                    .into(),
        }),
        None => Ok(()),
    }
}

/// The record lengths of the index (`BlobFileMeta`).
fn index(bytes: &[u8]) -> std::result::Result<Vec<i64>, String> {
    let n = bytes.len();
    if n < 5 {
        return Err(format!("{n} bytes, fewer than the 5 of its footer"));
    }
    if bytes[n - 1] != VERSION {
        return Err(format!("version {}, expected {VERSION}", bytes[n - 1]));
    }
    let index_len = i32::from_le_bytes([bytes[n - 5], bytes[n - 4], bytes[n - 3], bytes[n - 2]]);
    let index_len = usize::try_from(index_len)
        .ok()
        .filter(|l| *l <= n - 5)
        .ok_or_else(|| format!("index length {index_len} does not fit the file"))?;
    decompress(&bytes[n - 5 - index_len..n - 5])
}

/// `DeltaVarintCompressor.decompress`: ZigZag varints of the first value and then the deltas.
pub(crate) fn decompress(mut input: &[u8]) -> std::result::Result<Vec<i64>, String> {
    let mut out: Vec<i64> = Vec::new();
    while !input.is_empty() {
        let mut raw: u64 = 0;
        let mut shift = 0;
        loop {
            let Some((&b, rest)) = input.split_first() else {
                return Err("the index ends inside a varint".into());
            };
            input = rest;
            raw |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift > 63 {
                return Err("a varint of the index overflows".into());
            }
        }
        let value = (raw >> 1) as i64 ^ -((raw & 1) as i64);
        let value = match out.last() {
            Some(prev) => prev.wrapping_add(value),
            None => value,
        };
        out.push(value);
    }
    Ok(out)
}

/// The payload of the record at `offset` of `length` bytes, checked against its magic and trailer.
fn record(
    bytes: &[u8],
    offset: i64,
    length: i64,
) -> std::result::Result<std::ops::Range<usize>, String> {
    let start = usize::try_from(offset).map_err(|_| format!("record offset {offset}"))?;
    let len = usize::try_from(length).map_err(|_| format!("record length {length}"))?;
    let end = start
        .checked_add(len)
        .filter(|e| *e <= bytes.len())
        .ok_or_else(|| format!("the record at {offset} of {length} bytes runs past the file"))?;
    let magic = i32::from_le_bytes([
        bytes[start],
        bytes[start + 1],
        bytes[start + 2],
        bytes[start + 3],
    ]);
    if magic != MAGIC {
        return Err(format!(
            "the record at {offset} has the magic {magic}, expected {MAGIC}"
        ));
    }
    let mut trailer = [0u8; 8];
    trailer.copy_from_slice(&bytes[end - 12..end - 4]);
    let stored = i64::from_le_bytes(trailer);
    if stored != length {
        return Err(format!(
            "the record at {offset} says it is {stored} bytes, the index {length}"
        ));
    }
    Ok(start + 4..end - 12)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn descriptors_serialize_as_the_released_reader_does() {
        // The released 2.0.0 reader's value of row 0 of c28 written with `blob-as-descriptor` at /tmp/bd
        // (`toDescriptor().serialize()`): its payload is 1 byte at offset 4 of the file.
        let uri = "/tmp/bd/table/bucket-0/data-09e685b8-e616-41ca-ade2-6e7d5c7cfc09-1.blob";
        let released = "0243534544424f4c42470000002f746d702f62642f7461626c652f6275636b65742d302f646174612d\
                        30396536383562382d653631362d343163612d616465322d3665376435633763666330392d312e626c\
                        6f6204000000000000000100000000000000";
        let hex: String = descriptor(uri, &(4..5))
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(hex, released.replace(' ', ""));
    }

    /// `DeltaVarintCompressor.compress` of `values`, written independently of [`decompress`].
    pub(crate) fn compress(values: &[i64]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut prev = 0i64;
        for (i, &v) in values.iter().enumerate() {
            let delta = if i == 0 { v } else { v - prev };
            prev = v;
            let mut z = ((delta << 1) ^ (delta >> 63)) as u64;
            while z & !0x7f != 0 {
                out.push((z as u8 & 0x7f) | 0x80);
                z >>= 7;
            }
            out.push(z as u8);
        }
        out
    }

    fn file(payloads: &[Option<&[u8]>]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut lengths = Vec::new();
        for p in payloads {
            match p {
                None => lengths.push(-1),
                Some(p) => {
                    out.extend_from_slice(&MAGIC.to_le_bytes());
                    out.extend_from_slice(p);
                    let len = p.len() as i64 + RECORD_OVERHEAD;
                    out.extend_from_slice(&len.to_le_bytes());
                    out.extend_from_slice(&0i32.to_le_bytes());
                    lengths.push(len);
                }
            }
        }
        let index = compress(&lengths);
        out.extend_from_slice(&index);
        out.extend_from_slice(&(index.len() as i32).to_le_bytes());
        out.push(VERSION);
        out
    }

    #[test]
    fn records_and_nulls_come_back_in_order() {
        let bytes = file(&[Some(b"abc"), None, Some(b""), Some(&[0u8; 300])]);
        let lengths = index(&bytes).unwrap();
        assert_eq!(lengths, vec![19, -1, 16, 316]);
        assert_eq!(record(&bytes, 0, 19).unwrap(), 4..7);
        assert_eq!(record(&bytes, 19, 16).unwrap(), 23..23);
        assert!(record(&bytes, 1, 19).unwrap_err().contains("magic"));
        let mut bad = bytes.clone();
        let n = bad.len();
        bad[n - 1] = 2;
        assert!(index(&bad).unwrap_err().contains("version 2"));
        assert!(decompress(&[0x80]).unwrap_err().contains("varint"));
    }
}
