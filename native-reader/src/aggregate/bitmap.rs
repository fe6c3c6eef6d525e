//! `rbm32` (`FieldRoaringBitmap32Agg`): the portable RoaringBitmap serialization of the union.

use crate::error::{Error, Result};
use crate::merge::output::{Cell, Ctx};
use crate::value::Datum;

use super::{computed, unsupported, value, AggError, AggField, AggResult, FieldAggregator};
pub(crate) const SERIAL_COOKIE_NO_RUNCONTAINER: u32 = 12346;
pub(crate) const SERIAL_COOKIE: u32 = 12347;
pub(crate) const NO_OFFSET_THRESHOLD: usize = 4;
pub(crate) const ARRAY_MAX: usize = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Array,
    Bitmap,
    Run,
}

/// A malformed `RoaringBitmap` image (the reason, in words).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct BitmapError(String);

/// One container of a serialized `RoaringBitmap`: its key (high 16 bits), type and values.
pub(crate) struct Container {
    pub(crate) key: u16,
    pub(crate) kind: Kind,
    pub(crate) values: Vec<u16>,
}

/// Reads the portable serialization `RoaringBitmap.deserialize(ByteBuffer)` reads.
pub(crate) fn parse_rbm32(bytes: &[u8]) -> std::result::Result<Vec<Container>, BitmapError> {
    let mut pos = 0usize;
    let mut take = |n: usize| -> std::result::Result<&[u8], BitmapError> {
        let s = bytes
            .get(pos..pos + n)
            .ok_or_else(|| BitmapError(format!("roaring bitmap truncated at byte {pos}")))?;
        pos += n;
        Ok(s)
    };
    let u16_at = |s: &[u8], i: usize| u16::from_le_bytes([s[2 * i], s[2 * i + 1]]);
    let c = take(4)?;
    let cookie = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    let (size, runs, offsets) = if cookie == SERIAL_COOKIE_NO_RUNCONTAINER {
        let s = take(4)?;
        let size = u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize;
        if size > 65536 {
            return Err(BitmapError(format!("roaring bitmap of {size} containers")));
        }
        (size, vec![0u8; size.div_ceil(8)], true)
    } else if cookie & 0xFFFF == SERIAL_COOKIE {
        let size = (cookie >> 16) as usize + 1;
        (
            size,
            take(size.div_ceil(8))?.to_vec(),
            size >= NO_OFFSET_THRESHOLD,
        )
    } else {
        return Err(BitmapError(format!("roaring bitmap cookie {cookie}")));
    };
    let header = take(4 * size)?.to_vec();
    if offsets {
        take(4 * size)?;
    }
    let mut out: Vec<Container> = Vec::with_capacity(size);
    for i in 0..size {
        let key = u16_at(&header, 2 * i);
        let card = u16_at(&header, 2 * i + 1) as usize + 1;
        if out.last().is_some_and(|c| c.key >= key) {
            return Err(BitmapError("roaring bitmap keys out of order".into()));
        }
        let is_run = runs[i / 8] & (1 << (i % 8)) != 0;
        let (kind, values) = if is_run {
            let n = take(2)?;
            let n = u16::from_le_bytes([n[0], n[1]]) as usize;
            let r = take(4 * n)?;
            let mut values: Vec<u16> = Vec::new();
            for j in 0..n {
                let start = u16_at(r, 2 * j) as u32;
                let end = start + u16_at(r, 2 * j + 1) as u32;
                if end > 0xFFFF || values.last().is_some_and(|&l| l as u32 >= start) {
                    return Err(BitmapError(
                        "roaring bitmap run container out of order".into(),
                    ));
                }
                values.extend((start..=end).map(|v| v as u16));
            }
            (Kind::Run, values)
        } else if card > ARRAY_MAX {
            let b = take(8192)?;
            let mut values = Vec::with_capacity(card);
            for (w, chunk) in b.chunks_exact(8).enumerate() {
                let mut word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
                while word != 0 {
                    values.push((w * 64 + word.trailing_zeros() as usize) as u16);
                    word &= word - 1;
                }
            }
            (Kind::Bitmap, values)
        } else {
            let a = take(2 * card)?;
            let values: Vec<u16> = (0..card).map(|j| u16_at(a, j)).collect();
            if values.windows(2).any(|w| w[0] >= w[1]) {
                return Err(BitmapError(
                    "roaring bitmap array container out of order".into(),
                ));
            }
            (Kind::Array, values)
        };
        if kind != Kind::Run && values.len() != card {
            return Err(BitmapError(
                "roaring bitmap container cardinality mismatch".into(),
            ));
        }
        out.push(Container { key, kind, values });
    }
    Ok(out)
}

pub(crate) fn run_count(values: &[u16]) -> usize {
    if values.is_empty() {
        return 0;
    }
    1 + values.windows(2).filter(|w| w[1] != w[0] + 1).count()
}

/// The type `runOptimize()` leaves a container of `before` type with `values` in (RoaringBitmap 1.0.5:
/// `ArrayContainer.runOptimize`, `BitmapContainer.runOptimize`, `RunContainer.toEfficientContainer`),
/// `None` when `before` is unknown and matters.
pub(crate) fn optimized_kind(before: Option<Kind>, values: &[u16]) -> Option<Kind> {
    let card = values.len();
    let run_size = 2 + 4 * run_count(values);
    if card > ARRAY_MAX {
        return Some(if run_size < 8192 {
            Kind::Run
        } else {
            Kind::Bitmap
        });
    }
    let array_size = 2 * card;
    let as_array = if array_size > run_size {
        Kind::Run
    } else {
        Kind::Array
    };
    let as_run = if run_size <= 8192.min(array_size + 2) {
        Kind::Run
    } else {
        Kind::Array
    };
    match before {
        Some(Kind::Array) => Some(as_array),
        Some(Kind::Run) => Some(as_run),
        _ if as_array == as_run => Some(as_array),
        _ => None,
    }
}

/// `FieldRoaringBitmap32Agg.agg` of two non-NULL values: deserialize both, `or`, `runOptimize`,
/// serialize.
pub(crate) fn rbm32_or(a: &[u8], b: &[u8]) -> AggResult<Vec<u8>> {
    let java =
        |e: BitmapError| AggError::Java(format!("Unable to se/deserialize roaring bitmap: {e}"));
    let x = parse_rbm32(a).map_err(java)?;
    let y = parse_rbm32(b).map_err(java)?;
    let (mut i, mut j) = (0, 0);
    let mut merged: Vec<(u16, Kind, Vec<u16>)> = Vec::new();
    while i < x.len() || j < y.len() {
        let take_x = j >= y.len() || (i < x.len() && x[i].key < y[j].key);
        let take_y = i >= x.len() || (j < y.len() && y[j].key < x[i].key);
        let (key, before, values) = if take_x {
            i += 1;
            (x[i - 1].key, Some(x[i - 1].kind), x[i - 1].values.clone())
        } else if take_y {
            j += 1;
            (y[j - 1].key, Some(y[j - 1].kind), y[j - 1].values.clone())
        } else {
            let (p, q) = (&x[i], &y[j]);
            i += 1;
            j += 1;
            let mut values: Vec<u16> = Vec::with_capacity(p.values.len() + q.values.len());
            let (mut s, mut t) = (0, 0);
            while s < p.values.len() || t < q.values.len() {
                let v = match (p.values.get(s), q.values.get(t)) {
                    (Some(&u), Some(&w)) if u == w => {
                        s += 1;
                        t += 1;
                        u
                    }
                    (Some(&u), Some(&w)) if u < w => {
                        s += 1;
                        u
                    }
                    (Some(&u), None) => {
                        s += 1;
                        u
                    }
                    (_, Some(&w)) => {
                        t += 1;
                        w
                    }
                    (None, None) => break,
                };
                values.push(v);
            }
            // The container `ior` returns: ArrayContainer.ior(ArrayContainer) is an array up to 4096
            // values; with a run container on either side, RunContainer.toEfficientContainer() (array
            // with run) or RunContainer.toBitmapIfNeeded() (run with run) decides, so up to 4096 values
            // the result is the run container unless a run-with-run union is larger than a bitmap
            // (then a bitmap container of at most 4096 values, not modelled).
            let before = match (p.kind, q.kind) {
                (Kind::Array, Kind::Array) => Some(Kind::Array),
                (Kind::Run, Kind::Run)
                    if values.len() <= ARRAY_MAX && 2 + 4 * run_count(&values) > 8192 =>
                {
                    return unsupported(format!(
                        "rbm32: the union of two run containers of key {} leaves a bitmap container \
                         of at most 4096 values, which is not reproduced",
                        p.key
                    ));
                }
                (Kind::Array | Kind::Run, Kind::Array | Kind::Run) => Some(Kind::Run),
                _ => None,
            };
            (p.key, before, values)
        };
        let kind = optimized_kind(before, &values).ok_or_else(|| {
            AggError::Unsupported(format!(
                "rbm32: the container type after or() + runOptimize() of key {key} ({} values in {} \
                 runs, merged with a run container) is not reproduced",
                values.len(),
                run_count(&values)
            ))
        })?;
        merged.push((key, kind, values));
    }
    Ok(serialize_rbm32(&merged))
}

/// `RoaringBitmap.serialize(ByteBuffer)` (little endian).
pub(crate) fn serialize_rbm32(containers: &[(u16, Kind, Vec<u16>)]) -> Vec<u8> {
    let size = containers.len();
    let has_run = containers.iter().any(|c| c.1 == Kind::Run);
    let mut out = Vec::new();
    let size_of = |c: &(u16, Kind, Vec<u16>)| match c.1 {
        Kind::Array => 2 * c.2.len(),
        Kind::Bitmap => 8192,
        Kind::Run => 2 + 4 * run_count(&c.2),
    };
    let mut start;
    if has_run {
        out.extend_from_slice(&(SERIAL_COOKIE | (((size - 1) as u32) << 16)).to_le_bytes());
        let mut flags = vec![0u8; size.div_ceil(8)];
        for (i, c) in containers.iter().enumerate() {
            if c.1 == Kind::Run {
                flags[i / 8] |= 1 << (i % 8);
            }
        }
        out.extend_from_slice(&flags);
        start = if size < NO_OFFSET_THRESHOLD {
            4 + 4 * size + flags.len()
        } else {
            4 + 8 * size + flags.len()
        };
    } else {
        out.extend_from_slice(&SERIAL_COOKIE_NO_RUNCONTAINER.to_le_bytes());
        out.extend_from_slice(&(size as u32).to_le_bytes());
        start = 4 + 4 + 8 * size;
    }
    for c in containers {
        out.extend_from_slice(&c.0.to_le_bytes());
        out.extend_from_slice(&((c.2.len() - 1) as u16).to_le_bytes());
    }
    if !has_run || size >= NO_OFFSET_THRESHOLD {
        for c in containers {
            out.extend_from_slice(&(start as u32).to_le_bytes());
            start += size_of(c);
        }
    }
    for (_, kind, values) in containers {
        match kind {
            Kind::Array => values
                .iter()
                .for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
            Kind::Bitmap => {
                let mut words = [0u64; 1024];
                for &v in values {
                    words[v as usize / 64] |= 1 << (v % 64);
                }
                words
                    .iter()
                    .for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
            }
            Kind::Run => {
                let mut runs: Vec<(u16, u16)> = Vec::new();
                for &v in values {
                    match runs.last_mut() {
                        Some((s, l)) if *s as u32 + *l as u32 + 1 == v as u32 => *l += 1,
                        _ => runs.push((v, 0)),
                    }
                }
                out.extend_from_slice(&(runs.len() as u16).to_le_bytes());
                for (s, l) in runs {
                    out.extend_from_slice(&s.to_le_bytes());
                    out.extend_from_slice(&l.to_le_bytes());
                }
            }
        }
    }
    out
}

/// `FieldRoaringBitmap32Agg`: the union of two `RoaringBitmap32` images ([`rbm32_or`]); no retraction.
pub(crate) struct Rbm32Agg(pub(crate) AggField);

impl FieldAggregator for Rbm32Agg {
    fn field(&self) -> &AggField {
        &self.0
    }

    fn agg(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        if acc.is_null() || input.is_null() {
            return Ok(if acc.is_null() { input } else { acc });
        }
        match (value(&self.0, ctx, &acc)?, value(&self.0, ctx, &input)?) {
            (Datum::Bytes(a), Datum::Bytes(b)) => {
                let r = rbm32_or(&a, &b).map(Datum::Bytes);
                computed(&self.0, ctx, r)
            }
            _ => Err(ctx.err("rbm32 over non-binaries".into())),
        }
    }
}

/// `FieldRoaringBitmap64Agg`: a NULL side gives the other; a union of two values is
/// [`Error::Unsupported`] (see the module docs of [`crate::merge`]); no retraction.
pub(crate) struct Rbm64Agg(pub(crate) AggField);

impl FieldAggregator for Rbm64Agg {
    fn field(&self) -> &AggField {
        &self.0
    }

    fn agg(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        if acc.is_null() || input.is_null() {
            return Ok(if acc.is_null() { input } else { acc });
        }
        Err(Error::Unsupported {
            path: ctx.path.to_path_buf(),
            reason: format!(
                "rbm64 of column `{}`: Paimon 1.0 serializes the union as a Roaring64Bitmap \
                 (RoaringBitmap 1.0.5's ART layout), which is not reproduced",
                ctx.field_name(self.0.col)
            ),
        })
    }
}
