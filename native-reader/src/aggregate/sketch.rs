//! The sketch unions behind the `theta_sketch` and `hll_sketch` aggregate functions, byte for byte as the
//! released Paimon 1.0 writes them.
//!
//! Paimon 1.0 merges two VARBINARY sketch images with Apache DataSketches Java 4.2.0 (shaded into
//! `paimon-bundle`):
//! * `theta_sketch` (`FieldThetaSketchAgg`, `org.apache.paimon.utils.ThetaSketch.union`): a default theta
//!   `Union` (nominal entries 4096, seed 9001) of the accumulator then the input, `getResult()` (ordered,
//!   compact) serialized with `toByteArray()`;
//! * `hll_sketch` (`FieldHllSketchAgg`, `org.apache.paimon.utils.HllSketchUtil.union`): `HllSketch.heapify`
//!   of the accumulator, `Union.heapify` of the input (a union with `lgMaxK` = the input's `lgConfigK`,
//!   holding the input), `update(accumulator)`, then `getResult(HLL_4).toCompactByteArray()`.
//!
//! The unions themselves are the Apache DataSketches Rust component (`datasketches`). Its images differ from
//! Java's in three places, which [`theta_union`] and [`hll_union`] reproduce:
//! * a compact theta image with two or more preamble longs carries the sampling probability `p` as the
//!   float 1.0 (bytes 12..16) in Java, 0 in Rust;
//! * a theta image of exactly one retained hash with theta 1.0 carries the `SINGLE_ITEM` flag (0x20) in
//!   Java;
//! * Java rebuilds a compact HLL `SET` image by inserting its coupons into a hash set that starts at 32
//!   slots and grows (`CouponHashSet.heapifySet`), Rust directly into a table of the image's size: the
//!   slot order, and so the order of the result's coupons, differs. [`hll_union`] re-lays such inputs
//!   out the Java way (as an updatable image, whose layout Rust keeps) before the union;
//! * a compact `HLL_4` image with exceptions records the exception table's size (`lgAuxArrInts`, byte 4)
//!   in Java, 0 in Rust.
//!
//! Both functions were checked against images produced by the released Paimon 1.0.0 jar
//! (`native-reader/tests/sketch_union.rs`: empty, single-item, exact and estimation theta sketches, HLL
//! `LIST`, `SET` and `HLL` modes of every target type and several `lgConfigK`s).

use datasketches::hll::{HllSketch, HllType, HllUnion};
use datasketches::theta::{CompactThetaSketch, ThetaUnionBuilder};

use crate::error::Result as ReadResult;
use crate::merge::output::{Cell, Ctx};
use crate::value::Datum;

use super::{computed, value, AggError, AggField, FieldAggregator};

/// Why two images could not be united: an image that is not a sketch of the expected kind (the reason, in
/// words; the text reads as a string: `Deref<Target = str>`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SketchError(String);

impl std::ops::Deref for SketchError {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

/// Theta image flag bits (DataSketches `PreambleUtil`).
const THETA_SINGLE_ITEM: u8 = 0x20;

/// The union of two compact theta sketch images, as `org.apache.paimon.utils.ThetaSketch.union(acc, input)`
/// returns it. Errors: an image that is not a compact theta sketch of seed 9001 (the reason, in words).
pub fn theta_union(acc: &[u8], input: &[u8]) -> Result<Vec<u8>, SketchError> {
    let a = CompactThetaSketch::deserialize(acc)
        .map_err(|e| SketchError(format!("the accumulated value is not a theta sketch: {e}")))?;
    let b = CompactThetaSketch::deserialize(input)
        .map_err(|e| SketchError(format!("the input value is not a theta sketch: {e}")))?;
    let mut union = ThetaUnionBuilder::default()
        .build()
        .map_err(|e| SketchError(e.to_string()))?;
    union.update(&a).map_err(|e| SketchError(e.to_string()))?;
    union.update(&b).map_err(|e| SketchError(e.to_string()))?;
    let mut out = union.to_sketch(true).serialize();
    let pre_longs = out.first().map_or(0, |b| b & 0x3f);
    if pre_longs >= 2 && out.len() >= 16 {
        out[12..16].copy_from_slice(&1.0f32.to_le_bytes());
    } else if pre_longs == 1 && out.len() == 16 {
        // One hash after the 8-byte preamble, theta 1.0: Java's SingleItemSketch.
        out[5] |= THETA_SINGLE_ITEM;
    }
    Ok(out)
}

/// HLL image layout (DataSketches `PreambleUtil`).
const HLL_LG_ARR_BYTE: usize = 4;
const HLL_FLAGS_BYTE: usize = 5;
const HLL_MODE_BYTE: usize = 7;
const HLL_COMPACT_FLAG: u8 = 0x08;
const HLL_MODE_SET: u8 = 1;
const HLL_MODE_HLL: u8 = 2;
const HLL_SET_COUNT: usize = 8;
const HLL_SET_START: usize = 12;
const HLL_AUX_COUNT: usize = 36;
const KEY_MASK_26: u32 = (1 << 26) - 1;
/// `HllUtil.LG_AUX_ARR_INTS`: the initial exception table size per `lgConfigK`.
const LG_AUX_ARR_INTS: [u8; 27] = [
    0, 2, 2, 2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
];

/// The union of two HLL sketch images, as `org.apache.paimon.utils.HllSketchUtil.union(acc, input)` returns
/// it (see the module docs). Errors: an image that is not an HLL sketch (the reason, in words).
pub fn hll_union(acc: &[u8], input: &[u8]) -> Result<Vec<u8>, SketchError> {
    let a = heapify_hll(acc)
        .map_err(|e| SketchError(format!("the accumulated value is not an HLL sketch: {e}")))?;
    let b = heapify_hll(input)
        .map_err(|e| SketchError(format!("the input value is not an HLL sketch: {e}")))?;
    let mut union = HllUnion::new(b.lg_config_k()).map_err(|e| SketchError(e.to_string()))?;
    union.update(&b);
    union.update(&a);
    let mut out = union.to_sketch(HllType::Hll4).serialize();
    if out.len() >= HLL_AUX_COUNT + 4 && out[HLL_MODE_BYTE] & 3 == HLL_MODE_HLL {
        let aux_count = u64::from(le_u32(&out[HLL_AUX_COUNT..]));
        if aux_count > 0 {
            let lg_k = usize::from(out[3]).min(LG_AUX_ARR_INTS.len() - 1);
            let mut lg = LG_AUX_ARR_INTS[lg_k];
            // `HeapAuxHashMap.checkGrow` after every insert: grow while 4 * count > 3 * slots.
            while 4 * aux_count > 3 * (1u64 << lg) {
                lg += 1;
            }
            out[HLL_LG_ARR_BYTE] = lg;
        }
    }
    Ok(out)
}

/// The little-endian u32 at the start of `b`, which holds at least 4 bytes (callers check lengths).
fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// `HllSketch.heapify` of an image: compact `SET` images are re-laid out as Java rebuilds them, then read.
fn heapify_hll(image: &[u8]) -> Result<HllSketch, SketchError> {
    let is_compact_set = image.len() >= HLL_SET_START
        && image[HLL_MODE_BYTE] & 3 == HLL_MODE_SET
        && image[HLL_FLAGS_BYTE] & HLL_COMPACT_FLAG != 0;
    if !is_compact_set {
        return HllSketch::deserialize(image).map_err(|e| SketchError(e.to_string()));
    }
    let count = le_u32(&image[HLL_SET_COUNT..]) as usize;
    let coupons = image[HLL_SET_START..]
        .chunks_exact(4)
        .take(count)
        .map(le_u32)
        .collect::<Vec<_>>();
    if coupons.len() != count {
        return Err(SketchError(format!(
            "the SET image announces {count} coupons but holds {}",
            coupons.len()
        )));
    }
    let lg_config_k = image[3];
    // `CouponHashSet.heapifySet` of a compact image: `couponUpdate` of each coupon into a set of
    // 2^LG_INIT_SET_SIZE slots, growing (`checkGrowOrPromote`) as it fills.
    let mut lg = 5u32;
    let mut table = vec![0u32; 1 << lg];
    let mut filled = 0usize;
    for &coupon in &coupons {
        if insert(&mut table, lg, coupon)? {
            filled += 1;
        }
        if 4 * filled > 3 * table.len() {
            if lg + 3 >= u32::from(lg_config_k) {
                // Java would promote to HLL here; a valid SET image never holds that many coupons.
                return Err(SketchError(format!(
                    "the SET image holds {count} coupons, more than a SET of lgConfigK {lg_config_k} can"
                )));
            }
            lg += 1;
            let old = std::mem::replace(&mut table, vec![0u32; 1 << lg]);
            for c in old.into_iter().filter(|c| *c != 0) {
                insert(&mut table, lg, c)?;
            }
        }
    }
    let mut updatable = Vec::with_capacity(HLL_SET_START + 4 * table.len());
    updatable.extend_from_slice(&image[..HLL_SET_START]);
    updatable[HLL_LG_ARR_BYTE] = lg as u8;
    updatable[HLL_FLAGS_BYTE] &= !HLL_COMPACT_FLAG;
    updatable[HLL_SET_COUNT..HLL_SET_START].copy_from_slice(&(filled as u32).to_le_bytes());
    for c in &table {
        updatable.extend_from_slice(&c.to_le_bytes());
    }
    HllSketch::deserialize(&updatable).map_err(|e| SketchError(e.to_string()))
}

/// `CouponHashSet.find` then insert: open addressing with the stride `((coupon & KEY_MASK_26) >> lg) | 1`.
/// Returns whether the coupon was new.
fn insert(table: &mut [u32], lg: u32, coupon: u32) -> Result<bool, SketchError> {
    if coupon == 0 {
        return Err(SketchError("a SET image holds an empty coupon".into()));
    }
    let mask = table.len() - 1;
    let start = coupon as usize & mask;
    let mut probe = start;
    loop {
        match table[probe] {
            0 => {
                table[probe] = coupon;
                return Ok(true);
            }
            c if c == coupon => return Ok(false),
            _ => {}
        }
        let stride = (((coupon & KEY_MASK_26) >> lg) | 1) as usize;
        probe = (probe + stride) & mask;
        if probe == start {
            return Err(SketchError(
                "a SET image's coupons overflow their table".into(),
            ));
        }
    }
}

/// `FieldThetaSketchAgg` (`theta` true, [`theta_union`]) or `FieldHllSketchAgg` ([`hll_union`]): a NULL side
/// gives the other; no retraction.
pub(crate) struct SketchAgg {
    pub(crate) field: AggField,
    pub(crate) theta: bool,
}

impl FieldAggregator for SketchAgg {
    fn field(&self) -> &AggField {
        &self.field
    }

    fn agg(&mut self, ctx: &Ctx<'_>, acc: Cell, input: Cell) -> ReadResult<Cell> {
        if acc.is_null() || input.is_null() {
            return Ok(if acc.is_null() { input } else { acc });
        }
        match (
            value(&self.field, ctx, &acc)?,
            value(&self.field, ctx, &input)?,
        ) {
            (Datum::Bytes(a), Datum::Bytes(b)) => {
                let r = if self.theta {
                    theta_union(&a, &b)
                } else {
                    hll_union(&a, &b)
                };
                computed(
                    &self.field,
                    ctx,
                    r.map(Datum::Bytes).map_err(|e| AggError::Java(e.0)),
                )
            }
            _ => Err(ctx.err(format!("{} over non-binaries", self.field.function))),
        }
    }
}
