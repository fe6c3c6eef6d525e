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


pub(crate) mod bitmap;
pub(crate) mod collect;
pub(crate) mod factory;
pub(crate) mod field;
pub(crate) mod java_hash;
pub(crate) mod merge_map;
pub(crate) mod nested_update;
pub mod sketch;
pub(crate) mod val;
#[cfg(test)]
mod tests;
/// Why an aggregate function could not produce its value.
#[derive(Debug)]
pub(crate) enum AggError {
    /// Java throws here too (the message says what Java throws).
    Java(String),
    /// Java computes a value the native reader does not reproduce exactly.
    Unsupported(String),
}

pub(crate) type AggResult<T> = std::result::Result<T, AggError>;

pub(crate) fn unsupported<T>(reason: impl Into<String>) -> AggResult<T> {
    Err(AggError::Unsupported(reason.into()))
}

