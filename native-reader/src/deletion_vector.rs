//! Deletion vectors: which rows of a data file are deleted (`org.apache.paimon.deletionvectors.DeletionVector`,
//! `BitmapDeletionVector`, 1.2+ `Bitmap64DeletionVector`).
//!
//! A deletion vector lives in an index file (`<table>/index/index-<uuid>-<n>`) at the (offset, length) that
//! the snapshot's index manifest records for the data file (`DeletionFile`). At `offset` there is:
//!
//! * **32-bit** (Paimon 1.0 writers): `int32 BE size` ++ `int32 BE magic 1581511376` ++ a 32-bit RoaringBitmap
//!   in the portable serialization ++ `int32 BE CRC32`; the recorded `length` equals `size`
//!   (magic + bitmap, without the size and CRC fields).
//! * **64-bit** (1.2+ `deletion-vectors.bitmap64=true`): `int32 BE size` ++ `magic 1681511377` written
//!   little-endian ++ the portable 64-bit RoaringBitmap layout (`int64 LE` count of 32-bit bitmaps, then per
//!   bitmap `int32 LE` key = high 32 bits and a portable 32-bit bitmap) ++ `int32 BE CRC32`; the recorded
//!   `length` is the whole record, `size + 8`.
//!
//! The two are told apart by the magic number, as `DeletionVector.read` of 1.2 does (1.0 knows only the
//! 32-bit form). The CRC is not verified (Java does not verify it on this path either). Positions are 0-based
//! row ordinals of the data file, in file order.
//!
//! Errors are [`Error::DeletionVector`] naming the index file and the data file; a deleted position at or
//! beyond the data file's row count is an error (Java would silently ignore it, which could hide a vector
//! attached to the wrong file).

use std::path::{Path, PathBuf};

use roaring::{RoaringBitmap, RoaringTreemap};

use crate::error::{Error, Result};
use crate::split::DeletionFileDesc;

/// Magic number of a 32-bit deletion vector, stored big-endian (`BitmapDeletionVector.MAGIC_NUMBER`).
pub const BITMAP32_MAGIC: i32 = 1_581_511_376;
/// Magic number of a 64-bit deletion vector, stored little-endian (`Bitmap64DeletionVector.MAGIC_NUMBER`).
pub const BITMAP64_MAGIC: i32 = 1_681_511_377;

/// Upper bound on a deletion vector's size in bytes (Java refuses vectors over 2 GB); protects against
/// allocating from a corrupt length field.
const MAX_SIZE: usize = i32::MAX as usize;

/// The deleted row positions of one data file.
#[derive(Clone, Debug, PartialEq)]
pub enum DeletionVector {
    /// A 32-bit vector (`BitmapDeletionVector`), positions below 2^32.
    Bitmap32(RoaringBitmap),
    /// A 64-bit vector (`Bitmap64DeletionVector`).
    Bitmap64(RoaringTreemap),
}

impl DeletionVector {
    /// True when row `position` (0-based, file order) is deleted.
    pub fn is_deleted(&self, position: u64) -> bool {
        match self {
            DeletionVector::Bitmap32(b) => u32::try_from(position).is_ok_and(|p| b.contains(p)),
            DeletionVector::Bitmap64(b) => b.contains(position),
        }
    }

    /// Number of deleted positions.
    pub fn cardinality(&self) -> u64 {
        match self {
            DeletionVector::Bitmap32(b) => b.len(),
            DeletionVector::Bitmap64(b) => b.len(),
        }
    }

    /// The largest deleted position, `None` when nothing is deleted.
    pub fn max_position(&self) -> Option<u64> {
        match self {
            DeletionVector::Bitmap32(b) => b.max().map(u64::from),
            DeletionVector::Bitmap64(b) => b.max(),
        }
    }

    /// Parses the record at the start of `bytes` (the bytes of the index file from the deletion file's
    /// offset on; at least the whole record). `length` is the length the index manifest records.
    /// The error is a reason without file names.
    pub fn parse(
        bytes: &[u8],
        length: i64,
    ) -> std::result::Result<DeletionVector, DeletionVectorError> {
        let size = read_i32_be(bytes, 0).ok_or("truncated before the size field")?;
        let size = usize::try_from(size).map_err(|_| format!("negative size {size}"))?;
        if size < 4 {
            return Err(format!("size {size} is too small for the magic number").into());
        }
        let body = bytes
            .get(4..4 + size)
            .ok_or_else(|| format!("size {size} runs past the end of the index file"))?;
        let magic_bytes: [u8; 4] = [body[0], body[1], body[2], body[3]];
        if i32::from_be_bytes(magic_bytes) == BITMAP32_MAGIC {
            if size as i64 != length {
                return Err(
                    format!("size {size} differs from the recorded length {length}").into(),
                );
            }
            let bitmap = RoaringBitmap::deserialize_from(&body[4..])
                .map_err(|e| format!("bad 32-bit roaring bitmap: {e}"))?;
            Ok(DeletionVector::Bitmap32(bitmap))
        } else if i32::from_le_bytes(magic_bytes) == BITMAP64_MAGIC {
            if size as i64 != length - 8 {
                return Err(format!(
                    "size {size} differs from the recorded length {length} minus 8"
                )
                .into());
            }
            let bitmap = parse_bitmap64(&body[4..])?;
            Ok(DeletionVector::Bitmap64(bitmap))
        } else {
            Err(format!(
                "unknown magic number {} (expected {BITMAP32_MAGIC} big-endian or {BITMAP64_MAGIC} little-endian)",
                i32::from_be_bytes(magic_bytes)
            ).into())
        }
    }

    /// Reads the deletion vector `deletion` of the data file at `data_file` holding `row_count` rows.
    ///
    /// Errors: [`Error::Io`] when the index file cannot be read; [`Error::DeletionVector`] naming the index
    /// file and `data_file` when the record is malformed (size, magic, bitmap), its cardinality differs
    /// from the recorded one, or it deletes a position `>= row_count`.
    pub fn read(
        deletion: &DeletionFileDesc,
        data_file: &Path,
        row_count: i64,
    ) -> Result<DeletionVector> {
        let index = PathBuf::from(&deletion.path);
        let bad = |reason: String| Error::DeletionVector {
            path: index.clone(),
            reason: format!("deletion vector of {}: {reason}", data_file.display()),
        };
        let offset = u64::try_from(deletion.offset)
            .map_err(|_| bad(format!("negative offset {}", deletion.offset)))?;
        let io = crate::fileio::for_path(&index)?;
        // Two ranged reads: the record's size field, then the record.
        let first = io
            .read_range(&index, offset..offset + 4)
            .map_err(|e| Error::io(&index, e))?;
        let head: [u8; 4] = first
            .get(..4)
            .and_then(|h| h.try_into().ok())
            .ok_or_else(|| {
                bad(format!(
                    "cannot read the size field at offset {offset}: the file ends after {} byte(s)",
                    first.len()
                ))
            })?;
        let size = i32::from_be_bytes(head);
        let size = usize::try_from(size)
            .ok()
            .filter(|s| *s <= MAX_SIZE - 4)
            .ok_or_else(|| bad(format!("invalid size {size} at offset {offset}")))?;
        let rest = io
            .read_range(&index, offset + 4..offset + 4 + size as u64)
            .map_err(|e| Error::io(&index, e))?;
        let bytes = [&first[..], &rest[..]].concat();
        let dv = DeletionVector::parse(&bytes, deletion.length)
            .map_err(|reason| bad(format!("at offset {offset}: {reason}")))?;
        if let Some(expected) = deletion.cardinality {
            if dv.cardinality() as i64 != expected {
                return Err(bad(format!(
                    "{} deleted rows, but the index manifest records {expected}",
                    dv.cardinality()
                )));
            }
        }
        dv.check_positions(row_count).map_err(|e| bad(e.0))?;
        Ok(dv)
    }

    /// Errors (as a reason) when a deleted position is at or beyond `row_count`.
    pub fn check_positions(&self, row_count: i64) -> std::result::Result<(), DeletionVectorError> {
        match self.max_position() {
            Some(max) if i64::try_from(max).map_or(true, |m| m >= row_count) => {
                Err(format!("deletes row {max}, beyond the data file's {row_count} rows").into())
            }
            _ => Ok(()),
        }
    }
}

/// Parses the portable 64-bit RoaringBitmap layout of `OptimizedRoaringBitmap64.deserialize` (little-endian):
/// `int64` count of 32-bit bitmaps (0..=2^31-1), then per bitmap an `int32` key (the high 32 bits of its
/// positions; 0..=2^31-2 and strictly ascending, as Java checks) followed by a portable 32-bit RoaringBitmap.
/// Positions are therefore below 2^63. Bytes after the last bitmap are ignored, as Java ignores them.
fn parse_bitmap64(mut bytes: &[u8]) -> std::result::Result<RoaringTreemap, DeletionVectorError> {
    let count = bytes
        .get(..8)
        .map(|b| i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .ok_or("64-bit bitmap truncated before its bitmap count")?;
    if !(0..=i64::from(i32::MAX)).contains(&count) {
        return Err(format!("invalid 64-bit bitmap count {count}").into());
    }
    bytes = &bytes[8..];
    let mut out = RoaringTreemap::new();
    let mut last_key: i64 = -1;
    for i in 0..count {
        let key = bytes
            .get(..4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| format!("64-bit bitmap truncated before the key of bitmap {i}"))?;
        if key < 0 || key == i32::MAX || i64::from(key) <= last_key {
            return Err(format!(
                "invalid key {key} of bitmap {i} (keys must be in 0..=2147483646 and ascending)"
            )
            .into());
        }
        last_key = i64::from(key);
        bytes = &bytes[4..];
        // `deserialize_from` reads exactly one portable bitmap and advances the slice past it.
        let bitmap = RoaringBitmap::deserialize_from(&mut bytes).map_err(|e| {
            format!("bad 32-bit roaring bitmap {i} (key {key}) of a 64-bit vector: {e}")
        })?;
        let high = u64::from(key as u32) << 32;
        out.extend(bitmap.iter().map(|low| high | u64::from(low)));
    }
    Ok(out)
}

fn read_i32_be(bytes: &[u8], at: usize) -> Option<i32> {
    let b = bytes.get(at..at + 4)?;
    Some(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 32-bit record deleting rows {1, 5}: magic 1581511376 BE, then RoaringBitmap portable bytes
    /// (cookie 12346 = no run containers, 1 container; key 0, cardinality-1 = 1; offset header; two u16 LE).
    fn record32() -> Vec<u8> {
        let body: Vec<u8> = [
            0x5E, 0x43, 0xF2, 0xD0u8, // magic 1581511376 BE
            0x3A, 0x30, 0x00, 0x00, // cookie 12346 LE
            0x01, 0x00, 0x00, 0x00, // 1 container
            0x00, 0x00, 0x01, 0x00, // key 0, cardinality - 1 = 1
            0x10, 0x00, 0x00, 0x00, // offset of the container: 16
            0x01, 0x00, 0x05, 0x00, // values 1, 5
        ]
        .to_vec();
        let mut out = (body.len() as i32).to_be_bytes().to_vec();
        out.extend_from_slice(&body);
        out.extend_from_slice(&[0xAA, 0xBB, 0xCC, 0xDD]); // CRC (not verified)
        out
    }

    #[test]
    fn reads_32_bit_vectors_from_exact_bytes() {
        let bytes = record32();
        assert_eq!(BITMAP32_MAGIC.to_be_bytes(), [0x5E, 0x43, 0xF2, 0xD0]);
        let dv = DeletionVector::parse(&bytes, 24).unwrap();
        assert!(matches!(dv, DeletionVector::Bitmap32(_)));
        assert_eq!(dv.cardinality(), 2);
        assert!(dv.is_deleted(1) && dv.is_deleted(5));
        assert!(!dv.is_deleted(0) && !dv.is_deleted(2) && !dv.is_deleted(1 << 40));
        assert_eq!(dv.max_position(), Some(5));
        assert!(dv.check_positions(6).is_ok());
        assert!(dv.check_positions(5).unwrap_err().contains("row 5"));
        // The recorded length must be the size field.
        assert!(DeletionVector::parse(&bytes, 32)
            .unwrap_err()
            .contains("length"));
    }

    #[test]
    fn reads_64_bit_vectors_from_exact_bytes() {
        let mut body = BITMAP64_MAGIC.to_le_bytes().to_vec();
        assert_eq!(body, [0xD1, 0xD3, 0x39, 0x64]);
        body.extend_from_slice(&2u64.to_le_bytes()); // two 32-bit bitmaps
        body.extend_from_slice(&0u32.to_le_bytes()); // key 0: empty bitmap
        body.extend_from_slice(&[0x3A, 0x30, 0, 0, 0, 0, 0, 0]); // cookie, 0 containers
        body.extend_from_slice(&1u32.to_le_bytes()); // key 1: { 2^32 + 7 }
        body.extend_from_slice(&[
            0x3A, 0x30, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
            0x00, 0x00, 0x07, 0x00,
        ]);
        let mut bytes = (body.len() as i32).to_be_bytes().to_vec();
        bytes.extend_from_slice(&body);
        bytes.extend_from_slice(&[0, 0, 0, 0]);
        let length = bytes.len() as i64;
        let dv = DeletionVector::parse(&bytes, length).unwrap();
        assert!(matches!(dv, DeletionVector::Bitmap64(_)));
        assert_eq!(dv.cardinality(), 1);
        assert!(dv.is_deleted((1u64 << 32) + 7));
        assert!(!dv.is_deleted(7));
        assert!(DeletionVector::parse(&bytes, length - 8)
            .unwrap_err()
            .contains("length"));
    }

    /// A 64-bit entry as `Bitmap64DeletionVector#serializeTo` writes it, built from the layout: `int32 BE
    /// len` · magic LE · `int64 LE` count · per bitmap `int32 LE` key + portable Roaring32 · `int32 BE` CRC.
    fn record64(bitmaps: &[(i32, &[u8])]) -> Vec<u8> {
        let mut body = vec![0xD1, 0xD3, 0x39, 0x64];
        body.extend_from_slice(&(bitmaps.len() as i64).to_le_bytes());
        for (key, portable) in bitmaps {
            body.extend_from_slice(&key.to_le_bytes());
            body.extend_from_slice(portable);
        }
        let mut out = (body.len() as i32).to_be_bytes().to_vec();
        out.extend_from_slice(&body);
        out.extend_from_slice(&[0x12, 0x34, 0x56, 0x78]);
        out
    }

    /// Portable Roaring32 with one run container (cookie 12347 | (1 - 1) << 16, run bitmap 0x01, key 0,
    /// cardinality-1 = 9, one run [3, 3+9]): positions 3..=12.
    const RUN_3_TO_12: &[u8] = &[
        0x3B, 0x30, 0x00, 0x00, // cookie 12347, 1 container
        0x01, // run-container bitmap: container 0 is a run container
        0x00, 0x00, 0x09, 0x00, // key 0, cardinality - 1 = 9
        0x01, 0x00, 0x03, 0x00, 0x09, 0x00, // 1 run: start 3, length - 1 = 9
    ];

    /// Portable Roaring32 {0} (array container).
    const ZERO: &[u8] = &[
        0x3A, 0x30, 0, 0, 0x01, 0, 0, 0, 0x00, 0x00, 0x00, 0x00, 0x10, 0, 0, 0, 0x00, 0x00,
    ];

    #[test]
    fn reads_64_bit_vectors_with_run_containers_and_high_keys() {
        let bytes = record64(&[(0, RUN_3_TO_12), (0x7FFF_FFFE, ZERO)]);
        let length = bytes.len() as i64;
        // `DeletionFile.length` covers the whole entry: 4 + len + 4.
        assert_eq!(
            i32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as i64,
            length - 8
        );
        let dv = DeletionVector::parse(&bytes, length).unwrap();
        assert_eq!(dv.cardinality(), 11);
        assert!((3..=12).all(|p| dv.is_deleted(p)));
        assert!(!dv.is_deleted(2) && !dv.is_deleted(13));
        let top = 0x7FFF_FFFEu64 << 32;
        assert!(dv.is_deleted(top));
        assert_eq!(dv.max_position(), Some(top));
        assert!(dv.check_positions(i64::MAX).is_ok());
        assert!(dv.check_positions(13).unwrap_err().contains("beyond"));
        // The 32-bit rule (length = len) does not apply to the 64-bit form.
        assert!(DeletionVector::parse(&bytes, length - 8)
            .unwrap_err()
            .contains("minus 8"));
    }

    #[test]
    fn rejects_64_bit_vectors_java_rejects() {
        for (what, bytes) in [
            ("unsorted", record64(&[(1, ZERO), (0, ZERO)])),
            ("duplicate", record64(&[(1, ZERO), (1, ZERO)])),
            ("negative", record64(&[(-1, ZERO)])),
            ("too large", record64(&[(i32::MAX, ZERO)])),
        ] {
            let err = DeletionVector::parse(&bytes, bytes.len() as i64).unwrap_err();
            assert!(err.contains("invalid key"), "{what}: {err}");
        }
        let mut bad_count = record64(&[(0, ZERO)]);
        bad_count[8..16].copy_from_slice(&(-1i64).to_le_bytes());
        let err = DeletionVector::parse(&bad_count, bad_count.len() as i64).unwrap_err();
        assert!(err.contains("bitmap count"), "{err}");
        // A count larger than what follows: truncated.
        let mut short = record64(&[(0, ZERO)]);
        short[8..16].copy_from_slice(&2i64.to_le_bytes());
        let err = DeletionVector::parse(&short, short.len() as i64).unwrap_err();
        assert!(err.contains("truncated"), "{err}");
        let empty = record64(&[]);
        let dv = DeletionVector::parse(&empty, empty.len() as i64).unwrap();
        assert_eq!(dv.cardinality(), 0);
    }

    #[test]
    fn read_detects_the_form_per_entry() {
        // One index file holding a 32-bit entry then a 64-bit entry, as a file rewritten after the option
        // changed could: each is told apart by its magic.
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("index-y-0");
        let first = record32();
        let second = record64(&[(0, RUN_3_TO_12)]);
        let mut content = vec![1u8];
        content.extend_from_slice(&first);
        content.extend_from_slice(&second);
        std::fs::write(&index, &content).unwrap();
        let path = index.to_string_lossy().into_owned();
        let d32 = DeletionFileDesc {
            path: path.clone(),
            offset: 1,
            length: 24,
            cardinality: Some(2),
        };
        let d64 = DeletionFileDesc {
            path,
            offset: 1 + first.len() as i64,
            length: second.len() as i64,
            cardinality: Some(10),
        };
        let data = Path::new("/t/bucket-0/data-2.parquet");
        assert!(matches!(
            DeletionVector::read(&d32, data, 10).unwrap(),
            DeletionVector::Bitmap32(_)
        ));
        let dv = DeletionVector::read(&d64, data, 13).unwrap();
        assert!(matches!(dv, DeletionVector::Bitmap64(_)));
        assert!(dv.is_deleted(12));
    }

    #[test]
    fn rejects_malformed_records() {
        let mut bad_magic = record32();
        bad_magic[4] = 0;
        assert!(DeletionVector::parse(&bad_magic, 24)
            .unwrap_err()
            .contains("magic"));
        let truncated = &record32()[..20];
        assert!(DeletionVector::parse(truncated, 24)
            .unwrap_err()
            .contains("past the end"));
        assert!(DeletionVector::parse(&[0, 0], 24).is_err());
        let mut negative = record32();
        negative[0] = 0xFF;
        assert!(DeletionVector::parse(&negative, 24).is_err());
        let mut bad_bitmap = record32();
        bad_bitmap[8] = 0x00; // cookie
        assert!(DeletionVector::parse(&bad_bitmap, 24)
            .unwrap_err()
            .contains("roaring"));
    }

    #[test]
    fn read_names_index_and_data_file() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("index-x-0");
        let mut content = vec![1u8]; // version byte
        content.extend_from_slice(&record32());
        std::fs::write(&index, &content).unwrap();
        let desc = DeletionFileDesc {
            path: index.to_string_lossy().into_owned(),
            offset: 1,
            length: 24,
            cardinality: Some(2),
        };
        let data = Path::new("/t/bucket-0/data-1.parquet");
        let dv = DeletionVector::read(&desc, data, 10).unwrap();
        assert!(dv.is_deleted(5));
        let err = DeletionVector::read(&desc, data, 5)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("index-x-0") && err.contains("data-1.parquet") && err.contains("beyond")
        );
        let wrong_count = DeletionFileDesc {
            cardinality: Some(3),
            ..desc.clone()
        };
        assert!(DeletionVector::read(&wrong_count, data, 10).is_err());
        let wrong_offset = DeletionFileDesc { offset: 2, ..desc };
        assert!(DeletionVector::read(&wrong_offset, data, 10).is_err());
    }
}

/// A deletion vector that does not parse or does not fit its data file (`BitmapDeletionVector`, `DeletionVectorsIndexFile`). The text is the message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DeletionVectorError(pub String);

impl From<String> for DeletionVectorError {
    fn from(message: String) -> Self {
        DeletionVectorError(message)
    }
}

impl From<&str> for DeletionVectorError {
    fn from(message: &str) -> Self {
        DeletionVectorError(message.to_string())
    }
}

impl std::ops::Deref for DeletionVectorError {
    type Target = str;

    /// The message.
    fn deref(&self) -> &str {
        &self.0
    }
}
