//! `.row` data files (2.0 paimon-format `RowFileFormat`, `file.format=row`): a row store that does not
//! record its row type. The reader is given the file's whole row type (the columns in the order the writer
//! wrote them: [`physical_columns`]) and decodes every row positionally.
//!
//! Layout (`RowFormatWriter`): ZSTD-compressed blocks, then the block index (three varint-length-prefixed
//! `DeltaVarintCompressor` arrays: compressed sizes, uncompressed sizes, first row of each block), then a
//! 32-byte footer: `int64 LE rows`, `int32 LE blocks`, `int64 LE index offset`, `int32 LE index length`,
//! `byte version = 1`, 3 bytes, `int32 LE magic "ROWS"`. A block (`RowBlockWriter`) is its rows, then one
//! `int32 LE` offset per row and `int32 LE` row count. A row is a null bitmap (`(fields + 7) / 8` bytes, bit
//! `i % 8` of byte `i / 8` set for NULL) and each non-NULL field in order: BOOLEAN 1 byte; TINYINT,
//! SMALLINT, INT/DATE/TIME, BIGINT, FLOAT, DOUBLE little-endian; strings, binaries and BLOB a varint length
//! and the bytes; DECIMAL the unscaled long (precision <= 18) or a varint length and its big-endian
//! two's-complement bytes (NULL when it has more digits than the type);
//! TIMESTAMP epoch millis, then for precision > 3 a varint nano-of-milli; VARIANT its value and metadata
//! bytes; ARRAY a varint size, a null bitmap and the elements; VECTOR a varint size and the elements;
//! MAP its keys and its values as two arrays; ROW a nested row.
//!
//! Each row must end where the next begins (its offset): a row type other than the writer's is a decode
//! error naming the file, never a silent difference.

use std::path::Path;

use arrow_array::ArrayRef;

use super::format::{FileColumn, FormatReader, RawBatches};
use super::mapped;
use crate::error::{Error, Result};
use crate::schema::{DataField, DataType, TypeKind};
use crate::split::DataFileDesc;
use crate::value::Datum;

/// `RowFileFooter.MAGIC` ("ROWS").
const MAGIC: i32 = 0x524F_5753;
/// `RowFileFooter.FOOTER_SIZE`.
const FOOTER_SIZE: usize = 32;

/// The `.row` [`FormatReader`]: `columns` must be the file's whole row type, in the writer's order.
pub(crate) struct RowFileReader;

impl FormatReader for RowFileReader {
    fn open(&self, path: &Path, columns: &[FileColumn], batch_size: usize) -> Result<RawBatches> {
        let bytes = mapped::read_all(path)?;
        let bad = |reason: String| Error::Decode {
            path: path.to_path_buf(),
            reason: format!("not a readable row file: {reason}"),
        };
        for column in columns {
            refuse_type(&column.data_type).map_err(|reason| Error::Unsupported {
                path: path.to_path_buf(),
                reason: format!("column `{}` of a `row` file: {reason}", column.name),
            })?;
        }
        let blocks = blocks(&bytes).map_err(bad)?;
        Ok(Box::new(RowBatches {
            path: path.to_path_buf(),
            bytes,
            blocks: blocks.into_iter().enumerate().collect(),
            types: columns.iter().map(|c| c.data_type.clone()).collect(),
            targets: columns.iter().map(FileColumn::arrow_type).collect(),
            batch: batch_size.max(1),
            pending: std::collections::VecDeque::new(),
        }))
    }
}

/// The batches of one `row` file: a block is decompressed and decoded when its rows are needed.
struct RowBatches {
    path: std::path::PathBuf,
    bytes: bytes::Bytes,
    /// The blocks not yet decoded: (index, compressed range, uncompressed size).
    blocks: std::collections::VecDeque<(usize, (std::ops::Range<usize>, usize))>,
    types: Vec<DataType>,
    targets: Vec<arrow_schema::DataType>,
    batch: usize,
    /// Decoded rows not yet returned.
    pending: std::collections::VecDeque<Vec<Datum>>,
}

impl RowBatches {
    fn bad(&self, reason: String) -> Error {
        Error::Decode {
            path: self.path.clone(),
            reason: format!("not a readable row file: {reason}"),
        }
    }

    /// The next batch of at most `batch` rows, or `None` at the end.
    fn next_batch(&mut self) -> Result<Option<(usize, Vec<ArrayRef>)>> {
        while self.pending.len() < self.batch {
            let Some((i, (range, size))) = self.blocks.pop_front() else {
                break;
            };
            let data = zstd::bulk::decompress(&self.bytes[range], size)
                .map_err(|e| self.bad(format!("block {i}: {e}")))?;
            if data.len() != size {
                return Err(self.bad(format!(
                    "block {i} holds {} bytes, its index says {size}",
                    data.len()
                )));
            }
            let mut rows = Vec::new();
            decode_block(&data, &self.types, &mut rows)
                .map_err(|e| self.bad(format!("block {i}: {e}")))?;
            self.pending.extend(rows);
        }
        if self.pending.is_empty() {
            return Ok(None);
        }
        let n = self.pending.len().min(self.batch);
        let mut columns: Vec<Vec<Datum>> = vec![Vec::with_capacity(n); self.targets.len()];
        for row in self.pending.drain(..n) {
            for (column, value) in columns.iter_mut().zip(row) {
                column.push(value);
            }
        }
        let arrays = columns
            .iter()
            .zip(&self.targets)
            .enumerate()
            .map(|(c, (values, target))| {
                Datum::to_arrow(target, values).map_err(|e| Error::Decode {
                    path: self.path.clone(),
                    reason: format!("row file column {c}: {e}"),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Some((n, arrays)))
    }
}

impl Iterator for RowBatches {
    type Item = Result<(usize, Vec<ArrayRef>)>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_batch() {
            Ok(Some(batch)) => Some(Ok(batch)),
            Ok(None) => None,
            Err(e) => {
                // One error ends the file.
                self.blocks.clear();
                self.pending.clear();
                Some(Err(e))
            }
        }
    }
}

/// The row type `file` was written with, as the columns of a [`RowFileReader`]: for a primary-key table
/// `KeyValue.schema` (each trimmed primary key as `_KEY_<name>` unless `data-file.thin-mode`, then
/// `_SEQUENCE_NUMBER`, `_VALUE_KIND`, then the file schema's fields); for an append table the file schema's
/// fields, or its `_WRITE_COLS` in their order (`_ROW_ID` and `_SEQUENCE_NUMBER` among them as BIGINT).
/// `like` gives the columns' decoding settings (string views, shredding rules).
pub(crate) fn physical_columns(
    file: &DataFileDesc,
    fields: &[DataField],
    trimmed_keys: Option<(&[&DataField], bool)>,
    like: &[FileColumn],
) -> Vec<FileColumn> {
    let (views, variant_shredding, map_shredding) = like.first().map_or((false, true, true), |c| {
        (c.views, c.variant_shredding, c.map_shredding)
    });
    let column = |name: &str, id: i32, data_type: DataType| FileColumn {
        name: name.to_owned(),
        id,
        data_type,
        views,
        variant_shredding,
        map_shredding,
    };
    let bigint = |nullable| DataType {
        kind: TypeKind::BigInt,
        nullable,
    };
    let by_name = |name: &str| fields.iter().find(|f| f.name == name);
    let mut out = Vec::new();
    if let Some((keys, thin)) = trimmed_keys {
        if !thin {
            for key in keys {
                out.push(column(
                    &format!("_KEY_{}", key.name),
                    key.id,
                    key.data_type.clone(),
                ));
            }
        }
        out.push(column(
            super::SEQUENCE_NUMBER_COLUMN,
            i32::MAX - 1,
            bigint(false),
        ));
        out.push(column(
            super::VALUE_KIND_COLUMN,
            i32::MAX - 2,
            DataType {
                kind: TypeKind::TinyInt,
                nullable: false,
            },
        ));
    }
    match (&file.write_cols, trimmed_keys) {
        (Some(cols), None) => {
            for name in cols {
                match by_name(name) {
                    Some(f) => out.push(column(&f.name, f.id, f.data_type.clone())),
                    None => out.push(column(name, i32::MAX - 3, bigint(true))),
                }
            }
        }
        _ => out.extend(
            fields
                .iter()
                .map(|f| column(&f.name, f.id, f.data_type.clone())),
        ),
    }
    out
}

/// `batches` of the columns `physical` (a [`RowFileReader`]'s) as the columns `wanted`, matched by name; a
/// wanted column the file lacks is all NULL.
pub(crate) fn project(
    batches: RawBatches,
    physical: &[FileColumn],
    wanted: &[FileColumn],
) -> RawBatches {
    let picks: Vec<(Option<usize>, arrow_schema::DataType)> = wanted
        .iter()
        .map(|w| {
            (
                physical.iter().position(|p| p.name == w.name),
                w.arrow_type(),
            )
        })
        .collect();
    Box::new(batches.map(move |batch| {
        let (rows, arrays) = batch?;
        let out = picks
            .iter()
            .map(|(at, t)| match at {
                Some(i) => arrays[*i].clone(),
                None => arrow_array::new_null_array(t, rows),
            })
            .collect();
        Ok((rows, out))
    }))
}

/// The types this reader does not decode from a `row` file, with why.
fn refuse_type(t: &DataType) -> std::result::Result<(), String> {
    let mut refused: Option<&'static str> = None;
    t.visit(&mut |k| {
        let why = match k {
            TypeKind::Map(key, _) | TypeKind::Multiset(key) if !crate::value::java_hash::hashable(&key.kind) => Some(
                "MAP and MULTISET keys of this type are not supported (the released reader puts \
                     the entries in a HashMap, whose order follows the keys' Java hash codes)",
            ),
            _ => None,
        };
        refused = refused.or(why);
    });
    refused.map_or(Ok(()), |r| Err(r.to_owned()))
}

/// The compressed byte range and uncompressed size of each block, from the footer and the block index.
fn blocks(bytes: &[u8]) -> std::result::Result<Vec<(std::ops::Range<usize>, usize)>, String> {
    let n = bytes.len();
    if n < FOOTER_SIZE {
        return Err(format!(
            "{n} bytes, fewer than the {FOOTER_SIZE} of its footer"
        ));
    }
    let footer = &bytes[n - FOOTER_SIZE..];
    let int = |at: usize| {
        i32::from_le_bytes([footer[at], footer[at + 1], footer[at + 2], footer[at + 3]])
    };
    let long = |at: usize| i64::from(int(at) as u32) | (i64::from(int(at + 4)) << 32);
    if int(28) != MAGIC {
        return Err(format!("magic 0x{:08X}, expected 0x{MAGIC:08X}", int(28)));
    }
    if footer[24] != 1 {
        return Err(format!("version {}, expected 1", footer[24]));
    }
    let (block_count, index_offset, index_length) = (int(8), long(12), int(20));
    let index_start = usize::try_from(index_offset)
        .ok()
        .filter(|o| *o <= n - FOOTER_SIZE);
    let index = index_start
        .zip(usize::try_from(index_length).ok())
        .and_then(|(o, l)| bytes[..n - FOOTER_SIZE].get(o..o.checked_add(l)?))
        .ok_or_else(|| format!("index at {index_offset} of {index_length} bytes does not fit"))?;
    let index_start = index_start.unwrap_or(0);
    // Three arrays, each a varint length and its `DeltaVarintCompressor` bytes: compressed sizes,
    // uncompressed sizes, first rows.
    let mut arrays = Vec::with_capacity(2);
    let mut at = 0usize;
    for _ in 0..2 {
        let (len, used) = varint(index, at)?;
        let encoded = index
            .get(at + used..at + used + len as usize)
            .ok_or("the block index is cut short")?;
        arrays.push(super::blob::decompress(encoded)?);
        at += used + len as usize;
    }
    let (compressed, uncompressed) = (&arrays[0], &arrays[1]);
    if compressed.len() != block_count as usize || uncompressed.len() != compressed.len() {
        return Err(format!(
            "{} compressed and {} uncompressed block sizes for {block_count} blocks",
            compressed.len(),
            uncompressed.len()
        ));
    }
    let mut out = Vec::with_capacity(compressed.len());
    let mut start = 0usize;
    for (&size, &raw) in compressed.iter().zip(uncompressed) {
        let end = usize::try_from(size)
            .ok()
            .and_then(|s| start.checked_add(s))
            .filter(|e| *e <= index_start)
            .ok_or_else(|| format!("a block of {size} bytes at {start} runs into the index"))?;
        let raw = usize::try_from(raw)
            .ok()
            .filter(|r| *r <= i32::MAX as usize)
            .ok_or_else(|| format!("a block of {raw} uncompressed bytes"))?;
        out.push((start..end, raw));
        start = end;
    }
    Ok(out)
}

/// An unsigned LEB128 varint at `pos` (`BlockInput.readVarInt`): (value, bytes used).
fn varint(bytes: &[u8], pos: usize) -> std::result::Result<(u32, usize), String> {
    let mut value: u32 = 0;
    for i in 0..5 {
        let b = *bytes.get(pos + i).ok_or("a varint is cut short")?;
        value |= u32::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Ok((value, i + 1));
        }
    }
    Err("a varint is longer than 5 bytes".into())
}

/// Appends the rows of one decompressed block to `rows`, each checked to end where the next begins.
fn decode_block(
    data: &[u8],
    types: &[DataType],
    rows: &mut Vec<Vec<Datum>>,
) -> std::result::Result<(), String> {
    let n = data.len();
    if n < 4 {
        return Err("a block shorter than its row count".into());
    }
    let count = i32::from_le_bytes([data[n - 4], data[n - 3], data[n - 2], data[n - 1]]);
    let count = usize::try_from(count).map_err(|_| format!("row count {count}"))?;
    let offsets_start = 4usize
        .checked_mul(count)
        .and_then(|o| n.checked_sub(4 + o))
        .ok_or_else(|| format!("{count} row offsets do not fit the block"))?;
    let offsets: Vec<usize> = data[offsets_start..n - 4]
        .chunks_exact(4)
        .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .chain(std::iter::once(offsets_start as i32))
        .map(|o| usize::try_from(o).map_err(|_| format!("a row offset {o}")))
        .collect::<std::result::Result<_, _>>()?;
    for i in 0..count {
        let (start, end) = (offsets[i], offsets[i + 1]);
        if start > end || end > offsets_start {
            return Err(format!(
                "row {i} spans bytes {start}..{end} of a block whose rows end at {offsets_start}"
            ));
        }
        let mut cursor = Cursor {
            data: &data[..end],
            pos: start,
        };
        let row = cursor.row(types)?;
        if cursor.pos != end {
            return Err(format!(
                "row {i} ends at byte {} where the next begins at {end}: the file's row type is not {}",
                cursor.pos,
                types.iter().map(|t| format!("{:?}", t.kind)).collect::<Vec<_>>().join(", ")
            ));
        }
        rows.push(row);
    }
    Ok(())
}

/// A position in one row's bytes (`BlockInput`).
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> std::result::Result<&[u8], String> {
        let bytes = self
            .data
            .get(self.pos..self.pos + n)
            .ok_or_else(|| format!("a value at byte {} runs past its row", self.pos))?;
        self.pos += n;
        Ok(bytes)
    }

    fn fixed<const N: usize>(&mut self) -> std::result::Result<[u8; N], String> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn varint(&mut self) -> std::result::Result<usize, String> {
        let (v, used) = varint(self.data, self.pos)?;
        self.pos += used;
        Ok(v as usize)
    }

    fn bytes(&mut self) -> std::result::Result<Vec<u8>, String> {
        let n = self.varint()?;
        Ok(self.take(n)?.to_vec())
    }

    /// A null bitmap of `n` entries, then each non-NULL value decoded by `value`.
    fn with_nulls(
        &mut self,
        n: usize,
        mut value: impl FnMut(&mut Self, usize) -> std::result::Result<Datum, String>,
    ) -> std::result::Result<Vec<Datum>, String> {
        let bitmap = self.take(n.div_ceil(8))?.to_vec();
        (0..n)
            .map(|i| {
                if bitmap[i / 8] & (1 << (i % 8)) != 0 {
                    Ok(Datum::Null)
                } else {
                    value(self, i)
                }
            })
            .collect()
    }

    /// A MAP (`RowBlockReader.readMap`): the keys, then the values, each as an array, put into
    /// `new HashMap<>(size)` and returned in its iteration order.
    fn map(&mut self, key: &DataType, value: &DataType) -> std::result::Result<Datum, String> {
        let n = self.varint()?;
        let keys = self.with_nulls(n, |c, _| c.value(key))?;
        let m = self.varint()?;
        let values = self.with_nulls(m, |c, _| c.value(value))?;
        // Java pairs key i with value i: values beyond the keys are never read, too few fail.
        if m < n {
            return Err(format!("a map of {n} keys and {m} values"));
        }
        let items = keys
            .into_iter()
            .zip(values)
            .map(|(k, v)| {
                let h = crate::value::java_hash::java_hash(&key.kind, &k)
                    .ok_or_else(|| format!("no Java hash code of a {:?} key", key.kind))?;
                Ok((h, (k, v)))
            })
            .collect::<std::result::Result<Vec<_>, String>>()?;
        crate::java::hash_map::java_hash_order_presized(
            items,
            n,
            |a, b| crate::value::java_hash::java_equals(&a.0, &b.0),
            |kept, later| kept.1 = later.1,
        )
        .map(Datum::Map)
        .ok_or_else(|| {
            "a map with 9 or more keys in one bin of a HashMap of 64 bins or more (Java makes a tree \
             of it, whose order is not reproduced)"
                .to_string()
        })
    }

    /// A row's fields (a null bitmap, then each non-NULL field).
    fn row(&mut self, types: &[DataType]) -> std::result::Result<Vec<Datum>, String> {
        self.with_nulls(types.len(), |c, i| c.value(&types[i]))
    }

    /// One non-NULL value of type `t` (`RowBlockReader.createFieldReader`).
    fn value(&mut self, t: &DataType) -> std::result::Result<Datum, String> {
        Ok(match &t.kind {
            TypeKind::Boolean => Datum::Boolean(self.fixed::<1>()?[0] != 0),
            TypeKind::TinyInt => Datum::Int(i64::from(self.fixed::<1>()?[0] as i8)),
            TypeKind::SmallInt => Datum::Int(i64::from(i16::from_le_bytes(self.fixed()?))),
            TypeKind::Int | TypeKind::Date | TypeKind::Time(_) => {
                Datum::Int(i64::from(i32::from_le_bytes(self.fixed()?)))
            }
            TypeKind::BigInt => Datum::Int(i64::from_le_bytes(self.fixed()?)),
            TypeKind::Float => Datum::Float(f32::from_le_bytes(self.fixed()?)),
            TypeKind::Double => Datum::Double(f64::from_le_bytes(self.fixed()?)),
            TypeKind::Char(_) | TypeKind::VarChar(_) => {
                let bytes = self.bytes()?;
                Datum::String(
                    String::from_utf8(bytes).map_err(|_| "a string is not UTF-8".to_string())?,
                )
            }
            TypeKind::Binary(_) | TypeKind::VarBinary(_) | TypeKind::Blob => {
                Datum::Bytes(self.bytes()?)
            }
            TypeKind::Decimal { precision, scale } => {
                let unscaled = if *precision <= 18 {
                    i128::from(i64::from_le_bytes(self.fixed()?))
                } else {
                    // `Decimal.fromUnscaledBytes`: NULL when the value has more digits than the type
                    // (beyond 128 bits, it has more than 38).
                    let Some(unscaled) = big_endian_signed(&self.bytes()?)? else {
                        return Ok(Datum::Null);
                    };
                    let digits = unscaled
                        .unsigned_abs()
                        .checked_ilog10()
                        .map_or(1, |d| d + 1);
                    if digits > u32::from(*precision) {
                        return Ok(Datum::Null);
                    }
                    unscaled
                };
                Datum::Decimal {
                    unscaled,
                    precision: *precision,
                    scale: *scale,
                }
            }
            TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
                let millis = i64::from_le_bytes(self.fixed()?);
                let nanos_of_milli = if *p <= 3 { 0 } else { self.varint()? };
                // `Timestamp.fromEpochMillis(millis, nanos)` checks the nanos.
                if nanos_of_milli > 999_999 {
                    return Err(format!(
                        "a timestamp with {nanos_of_milli} nanoseconds of its millisecond"
                    ));
                }
                Datum::Timestamp {
                    millis,
                    nanos_of_milli: nanos_of_milli as i32,
                }
            }
            TypeKind::Variant => {
                let value = self.bytes()?;
                let metadata = self.bytes()?;
                // `new GenericVariant(value, metadata)` checks the metadata's version.
                crate::variant::encoding::check_metadata(&metadata)?;
                Datum::Row(vec![Datum::Bytes(value), Datum::Bytes(metadata)])
            }
            TypeKind::Array(element) => {
                let n = self.varint()?;
                Datum::List(self.with_nulls(n, |c, _| c.value(element))?)
            }
            TypeKind::Row(fields) => {
                let types: Vec<DataType> = fields.iter().map(|f| f.data_type.clone()).collect();
                Datum::Row(self.row(&types)?)
            }
            TypeKind::Map(key, value) => self.map(key, value)?,
            TypeKind::Multiset(element) => self.map(
                element,
                &DataType {
                    kind: TypeKind::Int,
                    nullable: false,
                },
            )?,
            TypeKind::Vector(element, length) => {
                // `VectorFieldReader`: a varint size, then the elements with no null bitmap.
                let n = self.varint()?;
                if n != *length as usize {
                    return Err(format!("a VECTOR of length {length} holds {n} elements"));
                }
                let items = (0..n)
                    .map(|_| self.value(element))
                    .collect::<std::result::Result<Vec<_>, _>>()?;
                Datum::List(items)
            }
        })
    }
}

/// `new BigInteger(bytes)`: big-endian two's complement; `None` when the value does not fit 128 bits (it
/// then has more digits than any DECIMAL).
///
/// Errors: no bytes (`Zero length BigInteger`).
fn big_endian_signed(bytes: &[u8]) -> std::result::Result<Option<i128>, String> {
    let Some(&first) = bytes.first() else {
        return Err("a decimal of 0 bytes (Zero length BigInteger)".into());
    };
    let fill = if first & 0x80 != 0 { 0xFF } else { 0 };
    let extra = bytes.len().saturating_sub(16);
    let (sign, bytes) = bytes.split_at(extra);
    if extra > 0 && (sign.iter().any(|b| *b != fill) || (bytes[0] & 0x80 != 0) != (fill == 0xFF)) {
        return Ok(None);
    }
    let mut be = [fill; 16];
    be[16 - bytes.len()..].copy_from_slice(bytes);
    Ok(Some(i128::from_be_bytes(be)))
}

#[cfg(test)]
mod tests {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int32Type;
    use arrow_array::Array;

    use super::*;
    use crate::decode::blob::tests::compress;

    /// A `row` file as `RowFormatWriter` lays it out, of one block holding `rows` (each already encoded).
    fn row_file(rows: &[&[u8]]) -> Vec<u8> {
        row_file_with(rows, None)
    }

    /// [`row_file`] with the row offsets given (`None`: the rows' own).
    fn row_file_with(rows: &[&[u8]], given: Option<&[i32]>) -> Vec<u8> {
        let mut block = Vec::new();
        let mut offsets = Vec::new();
        for row in rows {
            offsets.push(block.len() as i32);
            block.extend_from_slice(row);
        }
        if let Some(given) = given {
            offsets = given.to_vec();
        }
        for o in &offsets {
            block.extend_from_slice(&o.to_le_bytes());
        }
        block.extend_from_slice(&(rows.len() as i32).to_le_bytes());
        let compressed = zstd::stream::encode_all(block.as_slice(), 1).unwrap();
        let mut out = compressed.clone();
        let index_offset = out.len() as i64;
        for values in [
            vec![compressed.len() as i64],
            vec![block.len() as i64],
            vec![0],
        ] {
            let encoded = compress(&values);
            out.push(encoded.len() as u8);
            out.extend_from_slice(&encoded);
        }
        let index_length = (out.len() as i64 - index_offset) as i32;
        out.extend_from_slice(&(rows.len() as i64).to_le_bytes());
        out.extend_from_slice(&1i32.to_le_bytes());
        out.extend_from_slice(&index_offset.to_le_bytes());
        out.extend_from_slice(&index_length.to_le_bytes());
        out.extend_from_slice(&[1, 0, 0, 0]);
        out.extend_from_slice(&MAGIC.to_le_bytes());
        out
    }

    fn column(name: &str, json: serde_json::Value) -> FileColumn {
        FileColumn {
            name: name.into(),
            id: 0,
            data_type: crate::schema::parse_type(&json).unwrap(),
            views: false,
            variant_shredding: true,
            map_shredding: true,
        }
    }

    #[test]
    fn rows_decode_positionally_and_a_wrong_row_type_is_an_error() {
        // (7, "ab", [1, NULL]) and (NULL, NULL, NULL).
        let first: &[u8] = &[0x00, 7, 0, 0, 0, 2, b'a', b'b', 2, 0x02, 1, 0, 0, 0];
        let second: &[u8] = &[0x07];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data-1.row");
        std::fs::write(&path, row_file(&[first, second])).unwrap();
        let columns = [
            column("k", serde_json::json!("INT")),
            column("s", serde_json::json!("STRING")),
            column("a", serde_json::json!({"type": "ARRAY", "element": "INT"})),
        ];
        let (rows, arrays) = RowFileReader
            .open(&path, &columns, 16)
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(rows, 2);
        assert_eq!(arrays[0].as_primitive::<Int32Type>().value(0), 7);
        assert!(arrays[0].is_null(1));
        assert_eq!(arrays[1].as_string::<i32>().value(0), "ab");
        let list = arrays[2].as_list::<i32>().value(0);
        let list = list.as_primitive::<Int32Type>();
        assert_eq!((list.value(0), list.is_null(1)), (1, true));
        // Read as (INT, STRING) the first row does not end where the second begins.
        let err = match RowFileReader
            .open(&path, &columns[..2], 16)
            .and_then(|mut batches| batches.next().expect("one batch"))
        {
            Err(e) => e.to_string(),
            Ok(_) => panic!("a wrong row type must fail"),
        };
        assert!(
            err.contains("ends at byte 8 where the next begins at 14"),
            "{err}"
        );
        assert!(err.contains("data-1.row"), "{err}");
    }

    #[test]
    fn row_offsets_outside_the_block_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data-3.row");
        let columns = [column("k", serde_json::json!("INT"))];
        for offsets in [[0, i32::MAX], [0, -1], [3, 0]] {
            let rows: [&[u8]; 2] = [&[0x01], &[0x01]];
            std::fs::write(&path, row_file_with(&rows, Some(&offsets))).unwrap();
            let err = RowFileReader
                .open(&path, &columns, 16)
                .and_then(|mut batches| batches.next().expect("one batch"))
                .err()
                .unwrap_or_else(|| panic!("offsets {offsets:?} must fail"))
                .to_string();
            assert!(
                err.contains("data-3.row") && err.contains("offset") || err.contains("spans"),
                "{err}"
            );
        }
    }

    #[test]
    fn unhashable_map_keys_are_refused_and_a_bad_footer_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data-2.row");
        std::fs::write(&path, row_file(&[&[0x01]])).unwrap();
        let map = column(
            "m",
            serde_json::json!({"type": "MAP", "key": "BYTES", "value": "INT"}),
        );
        let err = RowFileReader.open(&path, &[map], 16).err().unwrap();
        assert!(matches!(err, Error::Unsupported { .. }), "{err}");
        std::fs::write(&path, b"not a row file, but long enough for a footer").unwrap();
        let err = RowFileReader
            .open(&path, &[column("k", serde_json::json!("INT"))], 16)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("magic") && err.contains("data-2.row"), "{err}");
    }

    #[test]
    fn non_compact_decimals_are_big_endian_twos_complement() {
        assert_eq!(big_endian_signed(&[0x01]).unwrap(), Some(1));
        assert_eq!(big_endian_signed(&[0xFF, 0x38]).unwrap(), Some(-200));
        assert!(big_endian_signed(&[]).is_err());
        // Redundant sign bytes are allowed, as `new BigInteger` allows them.
        assert_eq!(big_endian_signed(&[0; 17]).unwrap(), Some(0));
        assert_eq!(big_endian_signed(&[0xFF; 18]).unwrap(), Some(-1));
        // 2^128 fits no DECIMAL: NULL, as `Decimal.fromUnscaledBytes` returns.
        let mut wide = vec![0x01];
        wide.extend([0; 16]);
        assert_eq!(big_endian_signed(&wide).unwrap(), None);
    }
}
