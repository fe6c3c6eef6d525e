//! `java.util.HashMap` iteration order of the maps the released Avro reader builds, from the keys' Java
//! `hashCode`s.

use arrow_array::types::{
    Date32Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    Time32MillisecondType, TimestampMicrosecondType, TimestampMillisecondType,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType as ArrowType, TimeUnit};

use crate::schema::{DataType, TypeKind};

/// The entry order the released Avro reader returns for each map (`offsets` delimit the maps in `keys`):
/// `java.util.HashMap` iteration order of the keys' Java `hashCode`s — bucket `(h ^ h >>> 16) & (n - 1)`
/// ascending, insertion order within a bucket, `n` the table size after inserting every key (16, doubled
/// while size > 0.75 n). `None` when the key type's Java hash is not reproducible (identity-hashed byte
/// arrays, nested keys): file order is kept.
pub fn java_map_order(keys: &ArrayRef, key_type: &DataType, offsets: &[i32]) -> Option<Vec<u32>> {
    let hash = java_hasher(keys, key_type)?;
    let mut order = Vec::with_capacity(keys.len());
    for w in offsets.windows(2) {
        let (start, end) = (w[0] as usize, w[1] as usize);
        let size = end.saturating_sub(start);
        let mut n: usize = 16;
        while size * 4 > n * 3 {
            n *= 2;
        }
        let mut entries: Vec<(usize, u32)> = (start..end)
            .map(|i| {
                let h = hash(i);
                let spread = h ^ ((h as u32) >> 16) as i32;
                ((spread as u32 as usize) & (n - 1), i as u32)
            })
            .collect();
        entries.sort_by_key(|(bucket, _)| *bucket); // stable: insertion order within a bucket
        order.extend(entries.into_iter().map(|(_, i)| i));
    }
    Some(order)
}

pub(super) type Hasher<'a> = Box<dyn Fn(usize) -> i32 + 'a>;

/// Java `hashCode` of the key object the Avro reader builds for each row of `keys`.
pub(super) fn java_hasher<'a>(keys: &'a ArrayRef, t: &DataType) -> Option<Hasher<'a>> {
    use arrow_array::cast::AsArray;
    let long_hash = |v: i64| (v ^ ((v as u64) >> 32) as i64) as i32;
    Some(match &t.kind {
        TypeKind::Char(_) | TypeKind::VarChar(_) => {
            let a = keys.as_string_opt::<i32>()?;
            Box::new(move |i| murmur_hash_bytes(a.value(i).as_bytes()))
        }
        TypeKind::Boolean => {
            let a = keys.as_boolean_opt()?;
            Box::new(move |i| if a.value(i) { 1231 } else { 1237 })
        }
        TypeKind::TinyInt => {
            let a = keys.as_primitive_opt::<Int8Type>()?;
            Box::new(move |i| i32::from(a.value(i)))
        }
        TypeKind::SmallInt => {
            let a = keys.as_primitive_opt::<Int16Type>()?;
            Box::new(move |i| i32::from(a.value(i)))
        }
        TypeKind::Int => {
            let a = keys.as_primitive_opt::<Int32Type>()?;
            Box::new(move |i| a.value(i))
        }
        TypeKind::Date => {
            let a = keys.as_primitive_opt::<Date32Type>()?;
            Box::new(move |i| a.value(i))
        }
        TypeKind::Time(_) => {
            let a = keys.as_primitive_opt::<Time32MillisecondType>()?;
            Box::new(move |i| a.value(i))
        }
        TypeKind::BigInt => {
            let a = keys.as_primitive_opt::<Int64Type>()?;
            Box::new(move |i| long_hash(a.value(i)))
        }
        TypeKind::Float => {
            let a = keys.as_primitive_opt::<Float32Type>()?;
            Box::new(move |i| {
                let v = a.value(i);
                // Float.hashCode = floatToIntBits (one canonical NaN).
                if v.is_nan() {
                    0x7fc0_0000
                } else {
                    v.to_bits() as i32
                }
            })
        }
        TypeKind::Double => {
            let a = keys.as_primitive_opt::<Float64Type>()?;
            Box::new(move |i| {
                let v = a.value(i);
                let bits = if v.is_nan() {
                    0x7ff8_0000_0000_0000u64 as i64
                } else {
                    v.to_bits() as i64
                };
                long_hash(bits)
            })
        }
        TypeKind::Decimal { scale, .. } => {
            let a = keys.as_primitive_opt::<arrow_array::types::Decimal128Type>()?;
            let scale = i32::from(*scale);
            Box::new(move |i| big_decimal_hash(a.value(i), scale))
        }
        TypeKind::Timestamp(_) | TypeKind::LocalZonedTimestamp(_) => {
            // Paimon `Timestamp.hashCode` over (millisecond, nanoOfMillisecond) of the stored value; the
            // buffered value is the exported one, from which both are recovered for units >= ms.
            let (unit, values): (TimeUnit, Vec<i64>) = match keys.data_type() {
                ArrowType::Timestamp(TimeUnit::Millisecond, _) => (
                    TimeUnit::Millisecond,
                    keys.as_primitive_opt::<TimestampMillisecondType>()?
                        .values()
                        .to_vec(),
                ),
                ArrowType::Timestamp(TimeUnit::Microsecond, _) => (
                    TimeUnit::Microsecond,
                    keys.as_primitive_opt::<TimestampMicrosecondType>()?
                        .values()
                        .to_vec(),
                ),
                _ => return None,
            };
            Box::new(move |i| {
                let v = values[i];
                let (millis, nanos) = match unit {
                    TimeUnit::Microsecond => (v.div_euclid(1000), v.rem_euclid(1000) * 1000),
                    _ => (v, 0),
                };
                let ret = (millis as i32) ^ ((millis >> 32) as i32);
                ret.wrapping_mul(31).wrapping_add(nanos as i32)
            })
        }
        _ => return None,
    })
}

/// `BinaryString.hashCode`: Paimon's MurmurHash3 variant over the UTF-8 bytes (seed 42, 4-byte
/// little-endian words, then one mixing round per trailing byte, finalised with the length).
pub fn murmur_hash_bytes(bytes: &[u8]) -> i32 {
    const C1: i32 = 0xcc9e_2d51_u32 as i32;
    const C2: i32 = 0x1b87_3593;
    let mix_k1 = |k: i32| k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    let mix_h1 = |h: i32, k: i32| {
        (h ^ k)
            .rotate_left(13)
            .wrapping_mul(5)
            .wrapping_add(0xe654_6b64_u32 as i32)
    };
    let aligned = bytes.len() - bytes.len() % 4;
    let mut h = 42i32;
    for w in bytes[..aligned].chunks_exact(4) {
        h = mix_h1(h, mix_k1(i32::from_le_bytes([w[0], w[1], w[2], w[3]])));
    }
    for b in &bytes[aligned..] {
        h = mix_h1(h, mix_k1(i32::from(*b as i8)));
    }
    h ^= bytes.len() as i32;
    h ^= ((h as u32) >> 16) as i32;
    h = h.wrapping_mul(0x85eb_ca6b_u32 as i32);
    h ^= ((h as u32) >> 13) as i32;
    h = h.wrapping_mul(0xc2b2_ae35_u32 as i32);
    h ^ ((h as u32) >> 16) as i32
}

/// `java.math.BigDecimal.hashCode` of `unscaled * 10^-scale`: `31 * BigInteger.hashCode() + scale`, where
/// `BigInteger.hashCode` folds the big-endian 32-bit words of the magnitude (`h = 31 * h + word`) and
/// multiplies by the signum.
pub(super) fn big_decimal_hash(unscaled: i128, scale: i32) -> i32 {
    let magnitude = unscaled.unsigned_abs();
    let mut h: i32 = 0;
    let mut started = false;
    for shift in [96u32, 64, 32, 0] {
        let word = (magnitude >> shift) as u32;
        if word != 0 || started {
            started = true;
            h = h.wrapping_mul(31).wrapping_add(word as i32);
        }
    }
    let signum = unscaled.signum() as i32;
    h.wrapping_mul(signum).wrapping_mul(31).wrapping_add(scale)
}
