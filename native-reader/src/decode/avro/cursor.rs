//! The Avro binary encoding over one decompressed block: zig-zag varints, lengths, unions, and skipping
//! an unrequested value by its schema.

use super::schema::Schema;
use crate::decode::DecodeError;

/// A cursor over one decompressed block.
pub(super) struct Cursor<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn long(&mut self) -> Result<i64, DecodeError> {
        let mut value: u64 = 0;
        let mut shift = 0;
        loop {
            let b = *self
                .bytes
                .get(self.pos)
                .ok_or("truncated variable-length integer")?;
            self.pos += 1;
            if shift >= 64 {
                return Err("variable-length integer longer than 10 bytes".into());
            }
            value |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        Ok((value >> 1) as i64 ^ -((value & 1) as i64))
    }

    pub(super) fn int(&mut self) -> Result<i32, DecodeError> {
        let v = self.long()?;
        i32::try_from(v).map_err(|_| DecodeError::from(format!("int value {v} out of range")))
    }

    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|e| *e <= self.bytes.len())
            .ok_or_else(|| DecodeError::from(format!("truncated value of {n} bytes")))?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    pub(super) fn len_prefixed(&mut self) -> Result<&'a [u8], DecodeError> {
        let len = self.long()?;
        let len = usize::try_from(len)
            .map_err(|_| DecodeError::from(format!("negative length {len}")))?;
        self.take(len)
    }

    pub(super) fn f32(&mut self) -> Result<f32, DecodeError> {
        let b = self.take(4)?;
        Ok(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(super) fn f64(&mut self) -> Result<f64, DecodeError> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(f64::from_le_bytes(a))
    }

    pub(super) fn boolean(&mut self) -> Result<bool, DecodeError> {
        match self.take(1)?[0] {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(DecodeError::from(format!("invalid boolean byte {other}"))),
        }
    }

    /// Number of items of the next array/map block (0 ends the sequence); skips the block byte size that
    /// follows a negative count.
    pub(super) fn block_count(&mut self) -> Result<usize, DecodeError> {
        let count = self.long()?;
        if count < 0 {
            self.long()?;
        }
        let count = count.unsigned_abs();
        // Every item takes at least... nothing (null items), so bound by a sane maximum instead.
        usize::try_from(count)
            .ok()
            .filter(|c| *c <= self.bytes.len().saturating_mul(8).max(1 << 20))
            .ok_or_else(|| DecodeError::from(format!("implausible block count {count}")))
    }

    /// Index of the union branch.
    pub(super) fn branch<'s>(&mut self, branches: &'s [Schema]) -> Result<&'s Schema, DecodeError> {
        let i = self.long()?;
        usize::try_from(i)
            .ok()
            .and_then(|i| branches.get(i))
            .ok_or_else(|| DecodeError::from(format!("union branch {i} out of range")))
    }
}

pub(super) fn skip(schema: &Schema, c: &mut Cursor<'_>) -> Result<(), DecodeError> {
    match schema {
        Schema::Null => Ok(()),
        Schema::Boolean => c.take(1).map(|_| ()),
        Schema::Int | Schema::Long(_) | Schema::Enum => c.long().map(|_| ()),
        Schema::Float => c.take(4).map(|_| ()),
        Schema::Double => c.take(8).map(|_| ()),
        Schema::Bytes(_) | Schema::String => c.len_prefixed().map(|_| ()),
        Schema::Fixed(n, _) => c.take(*n).map(|_| ()),
        Schema::Array(items) => loop {
            let n = c.block_count()?;
            if n == 0 {
                return Ok(());
            }
            for _ in 0..n {
                skip(items, c)?;
            }
        },
        Schema::Map(values) => loop {
            let n = c.block_count()?;
            if n == 0 {
                return Ok(());
            }
            for _ in 0..n {
                c.len_prefixed()?;
                skip(values, c)?;
            }
        },
        Schema::Union(branches) => {
            let b = c.branch(branches)?;
            skip(b, c)
        }
        Schema::Record(fields) => {
            for (_, f) in fields {
                skip(f, c)?;
            }
            Ok(())
        }
    }
}
