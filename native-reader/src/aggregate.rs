//! The aggregate functions of Paimon 1.0 over collections and bitmaps, as the released
//! `org.apache.paimon.mergetree.compact.aggregate` classes compute them: `collect` (`FieldCollectAgg`),
//! `merge_map` (`FieldMergeMapAgg`), `nested_update` (`FieldNestedUpdateAgg`) and `rbm32`
//! (`FieldRoaringBitmap32Agg`). [`crate::merge`] calls them.
//!
//! Output order is part of the result. Java builds some results in a `java.util.HashMap`/`HashSet`
//! (`collect` with `fields.<f>.distinct`, `merge_map`, `nested_update` with `fields.<f>.nested-key`), whose
//! iteration order follows the elements' `hashCode()`; [`JavaHashMap`] reproduces that order (bins of a
//! power-of-two table, `hash ^ (hash >>> 16)`, resize at load factor 0.75 keeping bin order). Hashes are
//! those of the Java objects Paimon's `InternalArray.ElementGetter` returns: `Byte`, `Short`, `Integer`
//! (also DATE and TIME), `Long`, `Float`, `Double`, `Boolean`, `BinaryString` (`MurmurHashUtils.hashBytes`),
//! and for nested keys the projected `BinaryRow` (`MurmurHashUtils.hashBytesByWords` over its bytes).
//! `Decimal` (`BigDecimal.hashCode`) and `Timestamp` (millisecond and nano-of-millisecond) hash as in
//! Java. Elements whose Java hash is not reproduced (`byte[]` hashes by identity; nested values are not
//! modelled) and a bin reaching 9 entries (Java then resizes early or turns the bin
//! into a tree) are [`AggError::Unsupported`].
//!
//! `rbm32`: the union is serialized in the portable RoaringBitmap format after `runOptimize()`, as
//! `RoaringBitmap32.serialize` does with RoaringBitmap 1.0.5 (bundled by Paimon 1.0.0). The container type
//! `runOptimize` leaves depends on the type `or` produced when the cardinality `c <= 4096` and the run
//! count `r` satisfy `c == 2r` or `c == 2r + 1`: a key in one input keeps its container; array with array
//! stays an array; a run container on either side gives a run container (`RunContainer.or`/`ior` end in
//! `toEfficientContainer` or `toBitmapIfNeeded`). The one case not reproduced ([`AggError::Unsupported`])
//! is two run containers whose union is larger as runs than as a bitmap yet holds at most 4096 values
//! (Java then keeps a bitmap container of at most 4096 values). 3000 random pairs of Java-written bitmaps
//! (arrays, runs, bitmaps, optimized or not, several keys) merged byte-identically to
//! `FieldRoaringBitmap32Agg.agg`.
//!
//! `rbm64` is not here: Paimon 1.0's `RoaringBitmap64` wraps a `Roaring64Bitmap`, whose `serialize` writes
//! its adaptive radix tree, not the portable format; [`crate::merge`] merges it only when one side is NULL.

use std::sync::Arc;

use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time32MillisecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float32Array,
    Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, ListArray, MapArray, StringArray,
    StructArray, Time32MillisecondArray, TimestampMicrosecondArray, TimestampMillisecondArray,
    TimestampNanosecondArray, TimestampSecondArray,
};
use arrow_schema::{DataType as ArrowType, TimeUnit};

use crate::schema::{DataField, DataType, TypeKind};

/// A value of any Paimon type, as the collection aggregate functions see it (dates, times and
/// timestamps as `Int` in their Arrow unit).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Val {
    Null,
    Bool(bool),
    Int(i64),
    Float(f32),
    Double(f64),
    Decimal(i128),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<Val>),
    Map(Vec<(Val, Val)>),
    Row(Vec<Val>),
}

/// Why an aggregate function could not produce its value.
#[derive(Debug)]
pub(crate) enum AggError {
    /// Java throws here too (the message says what Java throws).
    Java(String),
    /// Java computes a value the native reader does not reproduce exactly.
    Unsupported(String),
}

type AggResult<T> = std::result::Result<T, AggError>;

fn unsupported<T>(reason: impl Into<String>) -> AggResult<T> {
    Err(AggError::Unsupported(reason.into()))
}

// ---------------------------------------------------------------------------------------------------------
// Arrow <-> Val
// ---------------------------------------------------------------------------------------------------------

impl Val {
    /// The value at `row` of `array` (any type the native reader produces).
    pub(crate) fn from_arrow(array: &dyn Array, row: usize) -> std::result::Result<Val, String> {
        if array.is_null(row) {
            return Ok(Val::Null);
        }
        Ok(match array.data_type() {
            ArrowType::Boolean => Val::Bool(array.as_boolean().value(row)),
            ArrowType::Int8 => Val::Int(array.as_primitive::<Int8Type>().value(row) as i64),
            ArrowType::Int16 => Val::Int(array.as_primitive::<Int16Type>().value(row) as i64),
            ArrowType::Int32 => Val::Int(array.as_primitive::<Int32Type>().value(row) as i64),
            ArrowType::Int64 => Val::Int(array.as_primitive::<Int64Type>().value(row)),
            ArrowType::Date32 => Val::Int(array.as_primitive::<Date32Type>().value(row) as i64),
            ArrowType::Time32(TimeUnit::Millisecond) => {
                Val::Int(array.as_primitive::<Time32MillisecondType>().value(row) as i64)
            }
            ArrowType::Timestamp(unit, _) => Val::Int(match unit {
                TimeUnit::Second => array.as_primitive::<TimestampSecondType>().value(row),
                TimeUnit::Millisecond => {
                    array.as_primitive::<TimestampMillisecondType>().value(row)
                }
                TimeUnit::Microsecond => {
                    array.as_primitive::<TimestampMicrosecondType>().value(row)
                }
                TimeUnit::Nanosecond => array.as_primitive::<TimestampNanosecondType>().value(row),
            }),
            ArrowType::Float32 => Val::Float(array.as_primitive::<Float32Type>().value(row)),
            ArrowType::Float64 => Val::Double(array.as_primitive::<Float64Type>().value(row)),
            ArrowType::Decimal128(_, _) => {
                Val::Decimal(array.as_primitive::<Decimal128Type>().value(row))
            }
            ArrowType::Utf8 => Val::Str(array.as_string::<i32>().value(row).to_string()),
            ArrowType::Binary => Val::Bytes(array.as_binary::<i32>().value(row).to_vec()),
            ArrowType::List(_) => {
                let values = array.as_list::<i32>().value(row);
                Val::List(
                    (0..values.len())
                        .map(|i| Val::from_arrow(values.as_ref(), i))
                        .collect::<std::result::Result<_, _>>()?,
                )
            }
            ArrowType::Map(_, _) => {
                let entries = array.as_map().value(row);
                if entries.num_columns() != 2 {
                    return Err("a map whose entries are not (key, value)".into());
                }
                let (k, v) = (entries.column(0), entries.column(1));
                Val::Map(
                    (0..entries.len())
                        .map(|i| {
                            Ok((
                                Val::from_arrow(k.as_ref(), i)?,
                                Val::from_arrow(v.as_ref(), i)?,
                            ))
                        })
                        .collect::<std::result::Result<_, String>>()?,
                )
            }
            ArrowType::Struct(_) => {
                let s = array.as_struct();
                Val::Row(
                    s.columns()
                        .iter()
                        .map(|c| Val::from_arrow(c.as_ref(), row))
                        .collect::<std::result::Result<_, _>>()?,
                )
            }
            other => return Err(format!("values of type {other} are not aggregated")),
        })
    }

    /// An Arrow array of `data_type` holding `values`.
    pub(crate) fn to_arrow(
        data_type: &ArrowType,
        values: &[Val],
    ) -> std::result::Result<ArrayRef, String> {
        let bad = |v: &Val| format!("{v:?} does not fit {data_type}");
        macro_rules! prim {
            ($arr:ty, $pat:pat => $e:expr) => {{
                let v: std::result::Result<Vec<_>, String> = values
                    .iter()
                    .map(|v| match v {
                        Val::Null => Ok(None),
                        $pat => Ok(Some($e)),
                        o => Err(bad(o)),
                    })
                    .collect();
                Arc::new(<$arr>::from(v?)) as ArrayRef
            }};
        }
        let nulls = || NullBuffer::from(values.iter().map(|v| *v != Val::Null).collect::<Vec<_>>());
        Ok(match data_type {
            ArrowType::Boolean => prim!(BooleanArray, Val::Bool(b) => *b),
            ArrowType::Int8 => prim!(Int8Array, Val::Int(i) => *i as i8),
            ArrowType::Int16 => prim!(Int16Array, Val::Int(i) => *i as i16),
            ArrowType::Int32 => prim!(Int32Array, Val::Int(i) => *i as i32),
            ArrowType::Int64 => prim!(Int64Array, Val::Int(i) => *i),
            ArrowType::Date32 => prim!(Date32Array, Val::Int(i) => *i as i32),
            ArrowType::Time32(TimeUnit::Millisecond) => {
                prim!(Time32MillisecondArray, Val::Int(i) => *i as i32)
            }
            ArrowType::Timestamp(unit, tz) => {
                let a: ArrayRef = match unit {
                    TimeUnit::Second => prim!(TimestampSecondArray, Val::Int(i) => *i),
                    TimeUnit::Millisecond => prim!(TimestampMillisecondArray, Val::Int(i) => *i),
                    TimeUnit::Microsecond => prim!(TimestampMicrosecondArray, Val::Int(i) => *i),
                    TimeUnit::Nanosecond => prim!(TimestampNanosecondArray, Val::Int(i) => *i),
                };
                arrow::compute::cast(&a, &ArrowType::Timestamp(*unit, tz.clone()))
                    .map_err(|e| e.to_string())?
            }
            ArrowType::Float32 => prim!(Float32Array, Val::Float(f) => *f),
            ArrowType::Float64 => prim!(Float64Array, Val::Double(f) => *f),
            ArrowType::Decimal128(p, s) => {
                let v: std::result::Result<Vec<_>, String> = values
                    .iter()
                    .map(|v| match v {
                        Val::Null => Ok(None),
                        Val::Decimal(d) => Ok(Some(*d)),
                        o => Err(bad(o)),
                    })
                    .collect();
                Arc::new(
                    Decimal128Array::from(v?)
                        .with_precision_and_scale(*p, *s)
                        .map_err(|e| e.to_string())?,
                )
            }
            ArrowType::Utf8 => prim!(StringArray, Val::Str(s) => s.as_str()),
            ArrowType::Binary => {
                let v: std::result::Result<Vec<Option<&[u8]>>, String> = values
                    .iter()
                    .map(|v| match v {
                        Val::Null => Ok(None),
                        Val::Bytes(b) => Ok(Some(b.as_slice())),
                        o => Err(bad(o)),
                    })
                    .collect();
                Arc::new(BinaryArray::from(v?))
            }
            ArrowType::List(field) => {
                let mut lengths = Vec::with_capacity(values.len());
                let mut children = Vec::new();
                for v in values {
                    match v {
                        Val::Null => lengths.push(0),
                        Val::List(items) => {
                            lengths.push(items.len());
                            children.extend(items.iter().cloned());
                        }
                        o => return Err(bad(o)),
                    }
                }
                let child = Val::to_arrow(field.data_type(), &children)?;
                Arc::new(
                    ListArray::try_new(
                        field.clone(),
                        OffsetBuffer::from_lengths(lengths),
                        child,
                        Some(nulls()),
                    )
                    .map_err(|e| e.to_string())?,
                )
            }
            ArrowType::Map(field, sorted) => {
                let ArrowType::Struct(kv) = field.data_type() else {
                    return Err(format!("map entries of type {}", field.data_type()));
                };
                if kv.len() != 2 {
                    return Err("map entries are not (key, value)".into());
                }
                let mut lengths = Vec::with_capacity(values.len());
                let (mut keys, mut vals) = (Vec::new(), Vec::new());
                for v in values {
                    match v {
                        Val::Null => lengths.push(0),
                        Val::Map(entries) => {
                            lengths.push(entries.len());
                            for (k, x) in entries {
                                keys.push(k.clone());
                                vals.push(x.clone());
                            }
                        }
                        o => return Err(bad(o)),
                    }
                }
                let entries = StructArray::try_new(
                    kv.clone(),
                    vec![
                        Val::to_arrow(kv[0].data_type(), &keys)?,
                        Val::to_arrow(kv[1].data_type(), &vals)?,
                    ],
                    None,
                )
                .map_err(|e| e.to_string())?;
                Arc::new(
                    MapArray::try_new(
                        field.clone(),
                        OffsetBuffer::from_lengths(lengths),
                        entries,
                        Some(nulls()),
                        *sorted,
                    )
                    .map_err(|e| e.to_string())?,
                )
            }
            ArrowType::Struct(fields) => {
                let mut columns: Vec<Vec<Val>> =
                    vec![Vec::with_capacity(values.len()); fields.len()];
                for v in values {
                    match v {
                        Val::Null => columns.iter_mut().for_each(|c| c.push(Val::Null)),
                        Val::Row(items) if items.len() == fields.len() => {
                            for (c, x) in columns.iter_mut().zip(items) {
                                c.push(x.clone());
                            }
                        }
                        o => return Err(bad(o)),
                    }
                }
                let children = fields
                    .iter()
                    .zip(&columns)
                    .map(|(f, c)| Val::to_arrow(f.data_type(), c))
                    .collect::<std::result::Result<Vec<_>, _>>()?;
                Arc::new(
                    StructArray::try_new(fields.clone(), children, Some(nulls()))
                        .map_err(|e| e.to_string())?,
                )
            }
            other => return Err(format!("computed values of type {other} are not supported")),
        })
    }
}

// ---------------------------------------------------------------------------------------------------------
// Java hashCode / equals and HashMap order
// ---------------------------------------------------------------------------------------------------------

/// `MurmurHashUtils.hashBytes` (seed 42): `BinaryString.hashCode()`, and over the bytes of a key row.
fn murmur(bytes: &[u8]) -> i32 {
    crate::murmur_hash::hash_bytes(bytes)
}

/// `Float.floatToIntBits` (NaN canonical).
fn float_bits(f: f32) -> i32 {
    if f.is_nan() {
        0x7fc00000
    } else {
        f.to_bits() as i32
    }
}

/// `Double.doubleToLongBits` (NaN canonical).
fn double_bits(d: f64) -> i64 {
    if d.is_nan() {
        0x7ff8000000000000
    } else {
        d.to_bits() as i64
    }
}

/// `Decimal.hashCode()` = `BigDecimal.hashCode()`: `31 * (signum * h) + scale`, `h` folding the big-endian
/// 32-bit words of the magnitude (`BigInteger.hashCode`; the compact path gives the same value).
fn decimal_hash(unscaled: i128, scale: i8) -> i32 {
    let magnitude = unscaled.unsigned_abs();
    let mut h: i32 = 0;
    let mut started = false;
    for shift in [96u32, 64, 32, 0] {
        let word = (magnitude >> shift) as u32;
        if word == 0 && !started {
            continue;
        }
        started = true;
        h = h.wrapping_mul(31).wrapping_add(word as i32);
    }
    let signed = if unscaled < 0 { h.wrapping_neg() } else { h };
    signed.wrapping_mul(31).wrapping_add(i32::from(scale))
}

/// `Timestamp.hashCode()` of a TIMESTAMP(`precision`) held in its Arrow unit (seconds, milli-, micro- or
/// nanoseconds, see [`crate::types::timestamp_unit`]): `31 * ((int) ms ^ (int) (ms >> 32)) + nanoOfMillisecond`.
fn timestamp_hash(value: i64, precision: u8) -> i32 {
    let (millis, nanos) = match precision {
        0 => (value.wrapping_mul(1000), 0),
        1..=3 => (value, 0),
        4..=6 => (value.div_euclid(1000), value.rem_euclid(1000) * 1000),
        _ => (value.div_euclid(1_000_000), value.rem_euclid(1_000_000)),
    };
    let folded = (millis as i32) ^ ((millis >> 32) as i32);
    folded.wrapping_mul(31).wrapping_add(nanos as i32)
}

/// `hashCode()` of the Java object `InternalArray.ElementGetter` returns for a value of `kind`.
fn java_hash(kind: &TypeKind, v: &Val) -> AggResult<i32> {
    Ok(match (kind, v) {
        (_, Val::Null) => 0,
        (
            TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::Date
            | TypeKind::Time(_),
            Val::Int(i),
        ) => *i as i32,
        (TypeKind::BigInt, Val::Int(i)) => (*i ^ ((*i as u64) >> 32) as i64) as i32,
        (TypeKind::Boolean, Val::Bool(b)) => {
            if *b {
                1231
            } else {
                1237
            }
        }
        (TypeKind::Float, Val::Float(f)) => float_bits(*f),
        (TypeKind::Double, Val::Double(d)) => {
            let b = double_bits(*d);
            (b ^ ((b as u64) >> 32) as i64) as i32
        }
        (TypeKind::Char(_) | TypeKind::VarChar(_), Val::Str(s)) => murmur(s.as_bytes()),
        (TypeKind::Decimal { scale, .. }, Val::Decimal(x)) => decimal_hash(*x, *scale),
        (TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p), Val::Int(v)) => {
            timestamp_hash(*v, *p)
        }
        (kind, _) => {
            return unsupported(format!(
                "the Java hash order of {kind:?} values (collect with distinct, merge_map keys) \
                 is not reproduced"
            ))
        }
    })
}

/// `equals()` of two Java objects of the hashable kinds of [`java_hash`].
fn java_equals(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Float(x), Val::Float(y)) => float_bits(*x) == float_bits(*y),
        (Val::Double(x), Val::Double(y)) => double_bits(*x) == double_bits(*y),
        _ => a == b,
    }
}

/// A `java.util.HashMap` (default capacity 16, load factor 0.75) reduced to what decides its
/// iteration order: bins of (hash, key, value) in insertion order.
pub(crate) struct JavaHashMap<K, V> {
    table: Vec<Vec<(i32, K, V)>>,
    size: usize,
}

impl<K, V> JavaHashMap<K, V> {
    pub(crate) fn new() -> Self {
        JavaHashMap {
            table: Vec::new(),
            size: 0,
        }
    }

    fn index(hash: i32, n: usize) -> usize {
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
fn row_equals(fields: &[DataField], a: &[Val], b: &[Val]) -> AggResult<bool> {
    for (i, f) in fields.iter().enumerate() {
        let (x, y) = (
            a.get(i).unwrap_or(&Val::Null),
            b.get(i).unwrap_or(&Val::Null),
        );
        let eq = match (x, y) {
            (Val::Null, Val::Null) => true,
            (Val::Null, _) | (_, Val::Null) => false,
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
                    (Val::Float(p), Val::Float(q)) => p == q,
                    (Val::Double(p), Val::Double(q)) => p == q,
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
fn binary_row_key(fields: &[&DataField], values: &[&Val]) -> AggResult<Vec<u8>> {
    let arity = fields.len();
    let null_bits = crate::binary_row::null_bits_width(arity);
    let fixed = null_bits + 8 * arity;
    let mut out = vec![0u8; fixed];
    for (i, (f, v)) in fields.iter().zip(values).enumerate() {
        let slot = null_bits + 8 * i;
        if **v == Val::Null {
            out[(i + 8) / 8] |= 1 << ((i + 8) % 8);
            continue;
        }
        match (&f.data_type.kind, v) {
            (TypeKind::Boolean, Val::Bool(b)) => out[slot] = *b as u8,
            (TypeKind::TinyInt, Val::Int(x)) => out[slot] = *x as i8 as u8,
            (TypeKind::SmallInt, Val::Int(x)) => {
                out[slot..slot + 2].copy_from_slice(&(*x as i16).to_le_bytes())
            }
            (TypeKind::Int | TypeKind::Date | TypeKind::Time(_), Val::Int(x)) => {
                out[slot..slot + 4].copy_from_slice(&(*x as i32).to_le_bytes())
            }
            (TypeKind::BigInt, Val::Int(x)) => {
                out[slot..slot + 8].copy_from_slice(&x.to_le_bytes())
            }
            (TypeKind::Float, Val::Float(x)) => {
                out[slot..slot + 4].copy_from_slice(&x.to_bits().to_le_bytes())
            }
            (TypeKind::Double, Val::Double(x)) => {
                out[slot..slot + 8].copy_from_slice(&x.to_bits().to_le_bytes())
            }
            (TypeKind::Char(_) | TypeKind::VarChar(_), Val::Str(s)) => {
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

// ---------------------------------------------------------------------------------------------------------
// collect, merge_map, nested_update
// ---------------------------------------------------------------------------------------------------------

fn items(v: &Val) -> AggResult<&[Val]> {
    match v {
        Val::List(items) => Ok(items),
        other => Err(AggError::Java(format!("{other:?} is not an ARRAY value"))),
    }
}

fn entries(v: &Val) -> AggResult<&[(Val, Val)]> {
    match v {
        Val::Map(e) => Ok(e),
        other => Err(AggError::Java(format!("{other:?} is not a MAP value"))),
    }
}

fn row(v: &Val) -> AggResult<&[Val]> {
    match v {
        Val::Row(r) => Ok(r),
        other => Err(AggError::Java(format!("{other:?} is not a ROW value"))),
    }
}

fn npe<T>(what: &str) -> AggResult<T> {
    Err(AggError::Java(format!(
        "NullPointerException: {what} retracts a NULL value from a non-NULL accumulator"
    )))
}

/// `FieldCollectAgg.agg` (and `aggReversed`, which is the same) for elements of type `element`.
pub(crate) fn collect_agg(
    element: &DataType,
    distinct: bool,
    acc: &Val,
    input: &Val,
) -> AggResult<Val> {
    if *acc == Val::Null && *input == Val::Null {
        return Ok(Val::Null);
    }
    if (*acc == Val::Null || *input == Val::Null) && !distinct {
        return Ok(if *acc == Val::Null { input } else { acc }.clone());
    }
    let acc_items: &[Val] = if *acc == Val::Null { &[] } else { items(acc)? };
    let input_items: &[Val] = if *input == Val::Null {
        &[]
    } else {
        items(input)?
    };
    if !distinct {
        return Ok(Val::List(
            acc_items.iter().chain(input_items).cloned().collect(),
        ));
    }
    match &element.kind {
        TypeKind::Row(fields) => {
            // A list deduplicated by the RecordEqualiser (the accumulator is not deduplicated again).
            let mut out: Vec<Val> = acc_items.to_vec();
            for e in input_items {
                let mut found = false;
                if *e == Val::Null {
                    found = out.contains(&Val::Null);
                } else {
                    for o in &out {
                        if *o == Val::Null {
                            return Err(AggError::Java(
                                "NullPointerException: collect with distinct compares a row with \
                                 a NULL element"
                                    .into(),
                            ));
                        }
                        if row_equals(fields, row(o)?, row(e)?)? {
                            found = true;
                            break;
                        }
                    }
                }
                if !found {
                    out.push(e.clone());
                }
            }
            Ok(Val::List(out))
        }
        TypeKind::Array(_) | TypeKind::Map(_, _) | TypeKind::Multiset(_) => unsupported(
            "collect with distinct over ARRAY/MAP/MULTISET elements (RecordEqualiser over \
             nested values) is not reproduced",
        ),
        kind => {
            let mut set: JavaHashMap<Val, ()> = JavaHashMap::new();
            for e in acc_items.iter().chain(input_items) {
                set.put(java_hash(kind, e)?, e.clone(), (), java_equals, true)?;
            }
            Ok(Val::List(set.into_entries().map(|(k, _)| k).collect()))
        }
    }
}

/// `FieldCollectAgg.retract`: removes, for each retracted element, one equal element.
pub(crate) fn collect_retract(
    element: &DataType,
    distinct: bool,
    acc: &Val,
    retract: &Val,
) -> AggResult<Val> {
    if *acc == Val::Null {
        return Ok(Val::Null);
    }
    if *retract == Val::Null {
        return npe("collect");
    }
    let mut retracted: Vec<Val> = items(retract)?.to_vec();
    let mut out = Vec::new();
    for candidate in items(acc)? {
        let mut hit = None;
        for (i, r) in retracted.iter().enumerate() {
            let eq = match (r, candidate) {
                (Val::Null, Val::Null) => true,
                (Val::Null, _) | (_, Val::Null) => false,
                _ => match &element.kind {
                    TypeKind::Row(fields) if distinct => {
                        row_equals(fields, row(r)?, row(candidate)?)?
                    }
                    kind => {
                        // Object.equals of the element objects; hashable kinds only.
                        java_hash(kind, r)?;
                        java_equals(r, candidate)
                    }
                },
            };
            if eq {
                hit = Some(i);
                break;
            }
        }
        match hit {
            Some(i) => {
                retracted.remove(i);
            }
            None => out.push(candidate.clone()),
        }
    }
    Ok(Val::List(out))
}

/// `FieldMergeMapAgg.agg`: the entries of `first` then `second` put into a `HashMap`.
pub(crate) fn merge_map_agg(key: &DataType, first: &Val, second: &Val) -> AggResult<Val> {
    if *first == Val::Null || *second == Val::Null {
        return Ok(if *first == Val::Null { second } else { first }.clone());
    }
    let mut map: JavaHashMap<Val, Val> = JavaHashMap::new();
    for (k, v) in entries(first)?.iter().chain(entries(second)?) {
        map.put(
            java_hash(&key.kind, k)?,
            k.clone(),
            v.clone(),
            java_equals,
            false,
        )?;
    }
    Ok(Val::Map(map.into_entries().collect()))
}

/// `FieldMergeMapAgg.retract`: the accumulator's entries whose key is not retracted, put into a
/// `HashMap`.
pub(crate) fn merge_map_retract(key: &DataType, acc: &Val, retract: &Val) -> AggResult<Val> {
    if *acc == Val::Null {
        return Ok(Val::Null);
    }
    if *retract == Val::Null {
        return npe("merge_map");
    }
    let retract_keys: Vec<&Val> = entries(retract)?.iter().map(|(k, _)| k).collect();
    let mut map: JavaHashMap<Val, Val> = JavaHashMap::new();
    for (k, v) in entries(acc)? {
        let hash = java_hash(&key.kind, k)?;
        if retract_keys.iter().any(|r| java_equals(r, k)) {
            continue;
        }
        map.put(hash, k.clone(), v.clone(), java_equals, false)?;
    }
    Ok(Val::Map(map.into_entries().collect()))
}

/// `FieldNestedUpdateAgg` over rows of `fields`, keyed by the fields at `key` (empty: no key).
pub(crate) struct NestedUpdate<'a> {
    pub(crate) fields: &'a [DataField],
    pub(crate) key: &'a [usize],
}

impl NestedUpdate<'_> {
    fn key_of(&self, r: &Val) -> AggResult<(i32, Vec<u8>)> {
        let values = row(r)?;
        let fields: Vec<&DataField> = self.key.iter().map(|&i| &self.fields[i]).collect();
        let vals: Vec<&Val> = self
            .key
            .iter()
            .map(|&i| values.get(i).unwrap_or(&Val::Null))
            .collect();
        let bytes = binary_row_key(&fields, &vals)?;
        let hash = {
            // hashBytesByWords: the length is a multiple of 8.
            murmur(&bytes)
        };
        Ok((hash, bytes))
    }

    /// `agg(first, second)`: the non-NULL rows of both, the later of equal keys winning in the place
    /// of the first.
    pub(crate) fn agg(&self, first: &Val, second: &Val) -> AggResult<Val> {
        if *first == Val::Null || *second == Val::Null {
            return Ok(if *first == Val::Null { second } else { first }.clone());
        }
        let rows = items(first)?
            .iter()
            .chain(items(second)?)
            .filter(|r| **r != Val::Null);
        if self.key.is_empty() {
            return Ok(Val::List(rows.cloned().collect()));
        }
        let mut map: JavaHashMap<Vec<u8>, Val> = JavaHashMap::new();
        for r in rows {
            let (hash, key) = self.key_of(r)?;
            map.put(hash, key, r.clone(), |a, b| a == b, false)?;
        }
        Ok(Val::List(map.into_entries().map(|(_, v)| v).collect()))
    }

    /// `retract(acc, retract)`.
    pub(crate) fn retract(&self, acc: &Val, retract: &Val) -> AggResult<Val> {
        if *acc == Val::Null || *retract == Val::Null {
            return Ok(acc.clone());
        }
        let removed = items(retract)?.iter().filter(|r| **r != Val::Null);
        if self.key.is_empty() {
            let mut rows: Vec<Val> = items(acc)?
                .iter()
                .filter(|r| **r != Val::Null)
                .cloned()
                .collect();
            for r in removed {
                let mut kept = Vec::with_capacity(rows.len());
                for x in rows {
                    if !row_equals(self.fields, row(&x)?, row(r)?)? {
                        kept.push(x);
                    }
                }
                rows = kept;
            }
            return Ok(Val::List(rows));
        }
        let mut map: JavaHashMap<Vec<u8>, Val> = JavaHashMap::new();
        for r in items(acc)?.iter().filter(|r| **r != Val::Null) {
            let (hash, key) = self.key_of(r)?;
            map.put(hash, key, r.clone(), |a, b| a == b, false)?;
        }
        for r in removed {
            let (hash, key) = self.key_of(r)?;
            map.remove(hash, &key, |a, b| a == b);
        }
        Ok(Val::List(map.into_entries().map(|(_, v)| v).collect()))
    }
}

// ---------------------------------------------------------------------------------------------------------
// rbm32
// ---------------------------------------------------------------------------------------------------------

const SERIAL_COOKIE_NO_RUNCONTAINER: u32 = 12346;
const SERIAL_COOKIE: u32 = 12347;
const NO_OFFSET_THRESHOLD: usize = 4;
const ARRAY_MAX: usize = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Array,
    Bitmap,
    Run,
}

/// One container of a serialized `RoaringBitmap`: its key (high 16 bits), type and values.
struct Container {
    key: u16,
    kind: Kind,
    values: Vec<u16>,
}

/// Reads the portable serialization `RoaringBitmap.deserialize(ByteBuffer)` reads.
fn parse_rbm32(bytes: &[u8]) -> std::result::Result<Vec<Container>, String> {
    let mut pos = 0usize;
    let mut take = |n: usize| -> std::result::Result<&[u8], String> {
        let s = bytes
            .get(pos..pos + n)
            .ok_or_else(|| format!("roaring bitmap truncated at byte {pos}"))?;
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
            return Err(format!("roaring bitmap of {size} containers"));
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
        return Err(format!("roaring bitmap cookie {cookie}"));
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
            return Err("roaring bitmap keys out of order".into());
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
                    return Err("roaring bitmap run container out of order".into());
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
                return Err("roaring bitmap array container out of order".into());
            }
            (Kind::Array, values)
        };
        if kind != Kind::Run && values.len() != card {
            return Err("roaring bitmap container cardinality mismatch".into());
        }
        out.push(Container { key, kind, values });
    }
    Ok(out)
}

fn run_count(values: &[u16]) -> usize {
    if values.is_empty() {
        return 0;
    }
    1 + values.windows(2).filter(|w| w[1] != w[0] + 1).count()
}

/// The type `runOptimize()` leaves a container of `before` type with `values` in (RoaringBitmap 1.0.5:
/// `ArrayContainer.runOptimize`, `BitmapContainer.runOptimize`, `RunContainer.toEfficientContainer`),
/// `None` when `before` is unknown and matters.
fn optimized_kind(before: Option<Kind>, values: &[u16]) -> Option<Kind> {
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
    let java = |e: String| AggError::Java(format!("Unable to se/deserialize roaring bitmap: {e}"));
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
fn serialize_rbm32(containers: &[(u16, Kind, Vec<u16>)]) -> Vec<u8> {
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

#[cfg(test)]
mod tests {
    /// `Decimal.hashCode()` and `Timestamp.hashCode()` as the released Paimon 1.0.0 jar printed them
    /// (`Decimal.fromBigDecimal(new BigDecimal(v), p, s).hashCode()`, `Timestamp.fromEpochMillis(ms, nanos)`).
    #[test]
    fn decimal_and_timestamp_hashes_match_java() {
        assert_eq!(decimal_hash(1234, 2), 38256);
        assert_eq!(decimal_hash(-1234, 2), -38252);
        assert_eq!(decimal_hash(0, 0), 0);
        assert_eq!(
            decimal_hash(99_999_999_999_999_999_999_123_456, 6),
            -11_083_962
        );
        assert_eq!(
            decimal_hash(-99_999_999_999_999_999_999_123_456, 6),
            11_083_974
        );
        assert_eq!(decimal_hash(123_456_789_012_345_678, 0), -1_905_628_419);
        assert_eq!(decimal_hash(i128::from(i64::MIN), 0), i32::MIN);
        assert_eq!(decimal_hash(15, 1), 466);
        assert_eq!(timestamp_hash(0, 9), 0);
        assert_eq!(timestamp_hash(1_700_000_000_123_456_789, 9), 751_750_245);
        assert_eq!(timestamp_hash(-1, 9), 999_999);
        assert_eq!(
            timestamp_hash(-86_400_001 * 1_000_000 + 5, 9),
            -1_616_567_291
        );
        // The same instants in coarser units hash alike when they have no finer digits.
        assert_eq!(
            timestamp_hash(1_700_000_000_123, 3),
            timestamp_hash(1_700_000_000_123_000_000, 9)
        );
        assert_eq!(
            timestamp_hash(1_700_000_000_123_456, 6),
            timestamp_hash(1_700_000_000_123_456_000, 9)
        );
        assert_eq!(timestamp_hash(-1, 6), timestamp_hash(-1000, 9));
    }

    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn kind(k: TypeKind) -> DataType {
        DataType {
            kind: k,
            nullable: true,
        }
    }

    fn strs(v: &[&str]) -> Val {
        Val::List(v.iter().map(|s| Val::Str(s.to_string())).collect())
    }

    // Expected values below were printed by the released Paimon 1.0.0 classes (paimon-bundle 1.0.0).

    #[test]
    fn binary_string_hash_codes() {
        for (s, h) in [
            ("", 142593372),
            ("a", 1485273170),
            ("abcde", 814637928),
            ("hello world!", -294328854),
            ("s01", 1744629105),
        ] {
            assert_eq!(murmur(s.as_bytes()), h, "{s:?}");
        }
    }

    #[test]
    fn hash_set_order_follows_java_through_a_resize() {
        // new HashSet<>() of BinaryString s01..s15, in insertion order (resized at the 13th).
        let names: Vec<String> = (1..=15).map(|i| format!("s{i:02}")).collect();
        let input: Vec<&str> = names.iter().map(String::as_str).collect();
        let out = collect_agg(
            &kind(TypeKind::VarChar(10)),
            true,
            &Val::Null,
            &strs(&input),
        )
        .unwrap();
        let java = [
            "s08", "s11", "s04", "s01", "s10", "s14", "s13", "s03", "s15", "s02", "s07", "s12",
            "s05", "s09", "s06",
        ];
        assert_eq!(out, strs(&java));
    }

    #[test]
    fn nested_key_binary_rows_and_hashes() {
        let int = DataField {
            id: 0,
            name: "id".into(),
            data_type: kind(TypeKind::Int),
        };
        let key = binary_row_key(&[&int], &[&Val::Int(7)]).unwrap();
        assert_eq!(key, hex("00000000000000000700000000000000"));
        assert_eq!(murmur(&key), -348168691);
        let string = DataField {
            data_type: kind(TypeKind::VarChar(100)),
            ..int.clone()
        };
        let key = binary_row_key(&[&string], &[&Val::Str("a long string key".into())]).unwrap();
        assert_eq!(
            key,
            hex("0000000000000000110000001000000061206c6f6e6720737472696e67206b657900000000000000")
        );
        assert_eq!(murmur(&key), -1492712202);
    }

    #[test]
    fn rbm32_union_is_byte_identical_to_java() {
        for (a, b, java) in [
            // A run container (0..100) with an array: one run container of 101 values, then 200.
            (
                "3b3000000100006300010000006300",
                "3a30000001000000000002001000000064006500c800",
                "3b3000000100006600020000006500c8000000",
            ),
            // An array serialized without runOptimize with another key: runOptimize turns 1..20 into a
            // run; three containers need no offsets in the run format.
            (
                "3a3000000100000000001300100000000100020003000400050006000700080009000a000b000c000d000e000f0010001100120013001400",
                "3a300000020000000000000003000000180000001a00000005000000",
                "3b3001000100001300030000000100010013000000",
            ),
            // Two empty bitmaps.
            ("3a30000000000000", "3a30000000000000", "3a30000000000000"),
        ] {
            assert_eq!(rbm32_or(&hex(a), &hex(b)).unwrap(), hex(java));
        }
        assert!(matches!(
            rbm32_or(&[1, 2, 3], &hex("3a30000000000000")),
            Err(AggError::Java(_))
        ));
    }

    #[test]
    fn collection_retraction_follows_java() {
        let int = kind(TypeKind::Int);
        let ints = |v: &[i64]| Val::List(v.iter().map(|i| Val::Int(*i)).collect());
        // collect removes one equal element per retracted element.
        assert_eq!(
            collect_retract(&int, false, &ints(&[1, 2, 2, 3]), &ints(&[2, 5])).unwrap(),
            ints(&[1, 2, 3])
        );
        // A NULL retraction of a non-NULL accumulator: Java's NullPointerException.
        assert!(matches!(
            collect_retract(&int, false, &ints(&[1]), &Val::Null),
            Err(AggError::Java(_))
        ));
        // merge_map keeps the accumulator's entries whose key is not retracted.
        let map = |v: &[(i64, &str)]| {
            Val::Map(
                v.iter()
                    .map(|(k, s)| (Val::Int(*k), Val::Str(s.to_string())))
                    .collect(),
            )
        };
        assert_eq!(
            merge_map_retract(&int, &map(&[(3, "c"), (1, "a")]), &map(&[(3, "x")])).unwrap(),
            map(&[(1, "a")])
        );
        // byte[] elements hash by identity in Java: not reproduced.
        assert!(matches!(
            collect_agg(
                &kind(TypeKind::VarBinary(10)),
                true,
                &Val::List(vec![Val::Bytes(vec![1])]),
                &Val::Null
            ),
            Err(AggError::Unsupported(_))
        ));
    }
}
