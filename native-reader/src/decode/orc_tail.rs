//! Guards around `orc-rust` for ORC files from untrusted storage (data files and `manifest.format=orc`
//! manifests).
//!
//! `orc-rust` 0.9 trusts the lengths in a file: it subtracts the postscript's footer and metadata lengths
//! from the file length without checking (a panic on a short file), allocates every `get_bytes` read up
//! front (`vec![0; length]` for a length taken from the file: a corrupt footer or stripe length aborts the
//! process on allocation failure), and lets LZ4 allocate the postscript's compression block size.
//! [`check_tail`] checks the postscript before `orc-rust` sees the file, and [`Bounded`] refuses reads
//! past the end of the file before anything is allocated.

use std::io::{Error as IoError, ErrorKind};

use crate::decode::DecodeError;
use bytes::Bytes;
use orc_rust::reader::ChunkReader;

/// The largest compression block size accepted (ORC writers use 256 KiB by default).
pub(crate) const MAX_COMPRESSION_BLOCK_SIZE: u64 = 64 << 20;

/// How many bytes at the end of the file [`check_tail`] needs at most: the postscript (at most 255 bytes)
/// and its length byte.
pub(crate) const TAIL_LEN: u64 = 256;

/// Reads one protobuf varint at `pos`.
fn varint(b: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *b.get(*pos)?;
        *pos += 1;
        value |= u64::from(byte & 0x7F) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// Checks the ORC postscript at the end of a file of `file_len` bytes, given the file's last
/// `min(file_len, TAIL_LEN)` bytes: the postscript must fit in the file, and so must the footer and the
/// metadata it announces; the compression block size must be at most [`MAX_COMPRESSION_BLOCK_SIZE`].
/// Anything else malformed is left to `orc-rust`, which reports it. The error is a reason.
pub(crate) fn check_tail(tail: &[u8], file_len: u64) -> Result<(), DecodeError> {
    let Some((&ps_len, before)) = tail.split_last() else {
        return Err("the file is empty".into());
    };
    let ps_len = usize::from(ps_len);
    if ps_len > before.len() {
        return Err(DecodeError::from(format!(
            "the postscript length {ps_len} exceeds the file's {file_len} bytes"
        )));
    }
    let ps = &before[before.len() - ps_len..];
    let (mut footer, mut metadata, mut block) = (None, None, None);
    let mut pos = 0;
    while pos < ps.len() {
        let key = varint(ps, &mut pos).ok_or("the postscript is not valid protobuf")?;
        let value = match key & 7 {
            0 => varint(ps, &mut pos).ok_or("the postscript is not valid protobuf")?,
            1 | 5 => {
                pos += if key & 7 == 1 { 8 } else { 4 };
                continue;
            }
            2 => {
                let len = varint(ps, &mut pos).ok_or("the postscript is not valid protobuf")?;
                pos = usize::try_from(len)
                    .ok()
                    .and_then(|l| pos.checked_add(l))
                    .filter(|end| *end <= ps.len())
                    .ok_or("the postscript is not valid protobuf")?;
                continue;
            }
            _ => return Err("the postscript is not valid protobuf".into()),
        };
        match key >> 3 {
            1 => footer = Some(value),
            3 => block = Some(value),
            5 => metadata = Some(value),
            _ => {}
        }
    }
    if let (Some(footer), Some(metadata)) = (footer, metadata) {
        let needed = footer
            .checked_add(metadata)
            .and_then(|n| n.checked_add(ps_len as u64 + 1));
        if needed.is_none_or(|n| n > file_len) {
            return Err(DecodeError::from(format!(
                "the postscript announces a footer of {footer} bytes and metadata of {metadata} \
                 bytes, more than the file's {file_len} bytes"
            )));
        }
    }
    if let Some(block) = block.filter(|b| *b > MAX_COMPRESSION_BLOCK_SIZE) {
        return Err(DecodeError::from(format!(
            "compression block size {block} exceeds {MAX_COMPRESSION_BLOCK_SIZE}"
        )));
    }
    Ok(())
}

/// [`check_tail`] of an open file (reads its last [`TAIL_LEN`] bytes).
pub(crate) fn check_file(file: &std::fs::File) -> Result<(), DecodeError> {
    use std::io::{Read, Seek, SeekFrom};
    let len = file
        .metadata()
        .map_err(|e| DecodeError::library("", e))?
        .len();
    let n = len.min(TAIL_LEN);
    let mut tail = vec![0u8; n as usize];
    let mut f = file;
    f.seek(SeekFrom::Start(len - n))
        .and_then(|_| f.read_exact(&mut tail))
        .map_err(|e| DecodeError::library("cannot read the file's tail", e))?;
    check_tail(&tail, len)
}

/// [`check_tail`] of a file's bytes (its last [`TAIL_LEN`] bytes).
pub(crate) fn check_bytes(bytes: &[u8]) -> Result<(), DecodeError> {
    let len = bytes.len();
    let n = len.min(TAIL_LEN as usize);
    check_tail(&bytes[len - n..], len as u64)
}

/// A [`ChunkReader`] that refuses reads past the end of the file (an `UnexpectedEof` error) before
/// `orc-rust` allocates a buffer for them.
pub(crate) struct Bounded<R>(pub(crate) R);

impl<R: ChunkReader> ChunkReader for Bounded<R> {
    type T = R::T;

    fn len(&self) -> u64 {
        self.0.len()
    }

    fn get_read(&self, offset_from_start: u64) -> std::io::Result<Self::T> {
        if offset_from_start > self.0.len() {
            return Err(past_end(offset_from_start, 0, self.0.len()));
        }
        self.0.get_read(offset_from_start)
    }

    fn get_bytes(&self, offset_from_start: u64, length: u64) -> std::io::Result<Bytes> {
        let len = self.0.len();
        match offset_from_start.checked_add(length) {
            Some(end) if end <= len => self.0.get_bytes(offset_from_start, length),
            _ => Err(past_end(offset_from_start, length, len)),
        }
    }
}

fn past_end(offset: u64, length: u64, len: u64) -> IoError {
    IoError::new(
        ErrorKind::UnexpectedEof,
        format!(
            "a read of {length} bytes at offset {offset} is past the end of the {len}-byte file"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The postscript bytes of a real Paimon ORC file: footerLength 1 = 300, compression 2 = ZSTD (5),
    /// compressionBlockSize 3 = 262144, version 4 = [0, 12], metadataLength 5 = 40, writerVersion 6 = 9,
    /// magic 8000 = "ORC".
    fn tail(footer: u64, metadata: u64, block: u64) -> Vec<u8> {
        fn put(out: &mut Vec<u8>, mut v: u64) {
            while v >= 0x80 {
                out.push((v as u8) | 0x80);
                v >>= 7;
            }
            out.push(v as u8);
        }
        let mut ps = Vec::new();
        for (field, value) in [(1u64, footer), (2, 5), (3, block)] {
            put(&mut ps, field << 3);
            put(&mut ps, value);
        }
        ps.extend_from_slice(&[0x22, 0x02, 0x00, 0x0C]); // version, packed
        put(&mut ps, 5 << 3);
        put(&mut ps, metadata);
        ps.extend_from_slice(&[0x30, 0x09]); // writerVersion
        ps.extend_from_slice(&[0xC2, 0x3E, 0x03, b'O', b'R', b'C']); // magic
        let len = ps.len() as u8;
        ps.push(len);
        ps
    }

    #[test]
    fn postscript_lengths_must_fit_the_file() {
        let t = tail(300, 40, 262_144);
        assert!(check_tail(&t, 2000).is_ok());
        let err = check_tail(&t, 300).unwrap_err().to_string();
        assert!(err.contains("footer of 300 bytes"), "{err}");
        assert!(check_tail(&tail(u64::MAX, 40, 262_144), 2000).is_err());
        assert!(check_tail(&tail(300, 40, 1 << 40), 2000)
            .unwrap_err()
            .to_string()
            .contains("compression block size"));
        assert!(check_tail(&[], 0)
            .unwrap_err()
            .to_string()
            .contains("empty"));
        assert!(check_tail(&[1, 2, 200], 3)
            .unwrap_err()
            .to_string()
            .contains("postscript length 200"));
        assert!(check_tail(&[0xFF, 0xFF, 2], 3).is_err());
    }

    /// Found by the `manifest` fuzz target: a 22-byte "ORC" file whose postscript announces lengths
    /// beyond the file made `orc-rust` slice past the end of its bytes (a panic).
    #[test]
    fn the_fuzzed_tail_is_rejected() {
        let crashing = include_bytes!("../../tests/fuzz-regressions/manifest-orc-tail-past-end");
        let reason = check_tail(crashing, crashing.len() as u64)
            .unwrap_err()
            .to_string();
        assert!(reason.contains("postscript"), "{reason}");
    }

    #[test]
    fn reads_past_the_end_are_refused_before_allocating() {
        let r = Bounded(Bytes::from_static(b"0123456789"));
        assert_eq!(r.get_bytes(2, 3).unwrap(), Bytes::from_static(b"234"));
        assert_eq!(r.get_bytes(0, 10).unwrap().len(), 10);
        for (offset, length) in [(0, 11), (9, 2), (11, 0), (u64::MAX, 2), (1, u64::MAX)] {
            let err = r.get_bytes(offset, length).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::UnexpectedEof, "{offset} {length}");
        }
        assert!(r.get_read(11).is_err());
        assert!(r.get_read(10).is_ok());
    }
}
