//! Java's `hashCode()`/`equals()` of the values the aggregate functions hash, and `java.util.HashMap`'s
//! iteration order.

use crate::schema::{DataField, TypeKind};

use super::{unsupported, AggResult};
use crate::java::hash_code;
use crate::value::Datum;
/// `MurmurHashUtils.hashBytes` (seed 42): `BinaryString.hashCode()`, and over the bytes of a key row.
pub(crate) fn murmur(bytes: &[u8]) -> i32 {
    hash_code::binary_string(bytes)
}

/// `Decimal.hashCode()` = `BigDecimal.hashCode()` ([`hash_code::big_decimal`]).
#[cfg(test)]
pub(crate) fn decimal_hash(unscaled: i128, scale: i8) -> i32 {
    hash_code::big_decimal(unscaled, i32::from(scale))
}

/// `Timestamp.hashCode()` of a TIMESTAMP(`precision`) held in its Arrow unit (seconds, milli-, micro- or
/// nanoseconds, see [`crate::types::timestamp_unit`]), as [`crate::value::Datum::from_arrow`] splits it.
#[cfg(test)]
pub(crate) fn timestamp_hash(value: i64, precision: u8) -> i32 {
    let (millis, nanos) = match precision {
        0 => (value.wrapping_mul(1000), 0),
        1..=3 => (value, 0),
        4..=6 => (value.div_euclid(1000), value.rem_euclid(1000) * 1000),
        _ => (value.div_euclid(1_000_000), value.rem_euclid(1_000_000)),
    };
    hash_code::timestamp(millis, nanos)
}

/// `hashCode()` of the Java object `InternalArray.ElementGetter` returns for a value of `kind`
/// ([`crate::value::java_hash::java_hash`]).
///
/// Errors: unsupported for a kind whose hash is not reproduced.
pub(crate) fn java_hash(kind: &TypeKind, v: &Datum) -> AggResult<i32> {
    match crate::value::java_hash::java_hash(kind, v) {
        Some(h) => Ok(h),
        None => unsupported(format!(
            "the Java hash order of {kind:?} values (collect with distinct, merge_map keys) \
             is not reproduced"
        )),
    }
}

pub(crate) use crate::value::java_hash::java_equals;

/// A `java.util.HashMap` (default capacity 16, load factor 0.75) reduced to what decides its
/// iteration order: bins of (hash, key, value) in insertion order.
pub(crate) struct JavaHashMap<K, V> {
    pub(crate) table: Vec<Vec<(i32, K, V)>>,
    pub(crate) size: usize,
}

impl<K, V> JavaHashMap<K, V> {
    pub(crate) fn new() -> Self {
        JavaHashMap {
            table: Vec::new(),
            size: 0,
        }
    }

    pub(crate) fn index(hash: i32, n: usize) -> usize {
        let h = hash as u32;
        ((h ^ (h >> 16)) as usize) & (n - 1)
    }

    /// `put(key, value)`: an equal key keeps its place and takes the value; `only_if_absent` keeps
    /// the old value too (`HashSet.add`).
    pub(crate) fn put(
        &mut self,
        hash: i32,
        key: K,
        value: V,
        eq: impl Fn(&K, &K) -> bool,
        only_if_absent: bool,
    ) -> AggResult<()> {
        if self.table.is_empty() {
            self.table = (0..16).map(|_| Vec::new()).collect();
        }
        let n = self.table.len();
        let bin = &mut self.table[Self::index(hash, n)];
        if let Some(e) = bin.iter_mut().find(|e| e.0 == hash && eq(&e.1, &key)) {
            if !only_if_absent {
                e.2 = value;
            }
            return Ok(());
        }
        bin.push((hash, key, value));
        if bin.len() > 8 {
            return unsupported(
                "a java.util.HashMap bin of 9 entries (Java reorders it as a tree) is not reproduced",
            );
        }
        self.size += 1;
        if self.size > n * 3 / 4 {
            let old = std::mem::take(&mut self.table);
            self.table = (0..n * 2).map(|_| Vec::new()).collect();
            for e in old.into_iter().flatten() {
                let i = Self::index(e.0, n * 2);
                self.table[i].push(e);
            }
        }
        Ok(())
    }

    /// `remove(key)`.
    pub(crate) fn remove(&mut self, hash: i32, key: &K, eq: impl Fn(&K, &K) -> bool) {
        if self.table.is_empty() {
            return;
        }
        let n = self.table.len();
        let bin = &mut self.table[Self::index(hash, n)];
        if let Some(p) = bin.iter().position(|e| e.0 == hash && eq(&e.1, key)) {
            bin.remove(p);
            self.size -= 1;
        }
    }

    /// The entries in iteration order.
    pub(crate) fn into_entries(self) -> impl Iterator<Item = (K, V)> {
        self.table.into_iter().flatten().map(|(_, k, v)| (k, v))
    }
}

/// The generated `RecordEqualiser` over `fields`: field by field, NULL equals NULL, `==` for primitives
/// (floating point included), `equals` for strings. Other field types are not modelled.
pub(crate) fn row_equals(fields: &[DataField], a: &[Datum], b: &[Datum]) -> AggResult<bool> {
    for (i, f) in fields.iter().enumerate() {
        let (x, y) = (
            a.get(i).unwrap_or(&Datum::Null),
            b.get(i).unwrap_or(&Datum::Null),
        );
        let eq = match (x, y) {
            (Datum::Null, Datum::Null) => true,
            (Datum::Null, _) | (_, Datum::Null) => false,
            _ => match &f.data_type.kind {
                TypeKind::Boolean
                | TypeKind::TinyInt
                | TypeKind::SmallInt
                | TypeKind::Int
                | TypeKind::BigInt
                | TypeKind::Date
                | TypeKind::Time(_)
                | TypeKind::Char(_)
                | TypeKind::VarChar(_) => x == y,
                TypeKind::Float | TypeKind::Double => match (x, y) {
                    (Datum::Float(p), Datum::Float(q)) => p == q,
                    (Datum::Double(p), Datum::Double(q)) => p == q,
                    _ => false,
                },
                other => {
                    return unsupported(format!(
                        "comparing nested rows with a {other:?} field (RecordEqualiser) is not \
                         reproduced"
                    ))
                }
            },
        };
        if !eq {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The bytes of the `BinaryRow` the generated key `Projection` writes for `values` of `fields` (header
/// 0, null bits, one 8-byte slot per field, variable part of strings longer than 7 bytes, 8-byte
/// aligned), whose `hashCode()` is `MurmurHashUtils.hashBytesByWords` over them.
pub(crate) fn binary_row_key(fields: &[&DataField], values: &[&Datum]) -> AggResult<Vec<u8>> {
    let arity = fields.len();
    let null_bits = crate::binary_row::null_bits_width(arity);
    let fixed = null_bits + 8 * arity;
    let mut out = vec![0u8; fixed];
    for (i, (f, v)) in fields.iter().zip(values).enumerate() {
        let slot = null_bits + 8 * i;
        if **v == Datum::Null {
            out[(i + 8) / 8] |= 1 << ((i + 8) % 8);
            continue;
        }
        match (&f.data_type.kind, v) {
            (TypeKind::Boolean, Datum::Boolean(b)) => out[slot] = *b as u8,
            (TypeKind::TinyInt, Datum::Int(x)) => out[slot] = *x as i8 as u8,
            (TypeKind::SmallInt, Datum::Int(x)) => {
                out[slot..slot + 2].copy_from_slice(&(*x as i16).to_le_bytes())
            }
            (TypeKind::Int | TypeKind::Date | TypeKind::Time(_), Datum::Int(x)) => {
                out[slot..slot + 4].copy_from_slice(&(*x as i32).to_le_bytes())
            }
            (TypeKind::BigInt, Datum::Int(x)) => {
                out[slot..slot + 8].copy_from_slice(&x.to_le_bytes())
            }
            (TypeKind::Float, Datum::Float(x)) => {
                out[slot..slot + 4].copy_from_slice(&x.to_bits().to_le_bytes())
            }
            (TypeKind::Double, Datum::Double(x)) => {
                out[slot..slot + 8].copy_from_slice(&x.to_bits().to_le_bytes())
            }
            (TypeKind::Char(_) | TypeKind::VarChar(_), Datum::String(s)) => {
                let b = s.as_bytes();
                if b.len() <= 7 {
                    out[slot..slot + b.len()].copy_from_slice(b);
                    out[slot + 7] = 0x80 | b.len() as u8;
                } else {
                    let offset = out.len();
                    let v = ((offset as u64) << 32) | b.len() as u64;
                    out[slot..slot + 8].copy_from_slice(&v.to_le_bytes());
                    out.extend_from_slice(b);
                    out.resize(offset + b.len().div_ceil(8) * 8, 0);
                }
            }
            (kind, _) => {
                return unsupported(format!(
                    "nested-key fields of type {kind:?} (BinaryRow hash order) are not reproduced"
                ))
            }
        }
    }
    Ok(out)
}
