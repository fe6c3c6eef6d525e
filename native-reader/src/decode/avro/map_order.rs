//! `java.util.HashMap` iteration order of the maps the released Avro reader builds, from the keys' Java
//! `hashCode`s ([`crate::java::hash_code`]).

use arrow_array::types::{
    Date32Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    Time32MillisecondType, TimestampMicrosecondType, TimestampMillisecondType,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType as ArrowType, TimeUnit};

use crate::java::hash_code;
use crate::schema::{DataType, TypeKind};

/// The entry order the released Avro reader returns for each map (`offsets` delimit the maps in `keys`):
/// `java.util.HashMap` iteration order of the keys' Java `hashCode`s — bucket `(h ^ h >>> 16) & (n - 1)`
/// ascending, insertion order within a bucket, `n` the table size after inserting every key (16, doubled
/// while size > 0.75 n). `None` when the key type's Java hash is not reproducible (identity-hashed byte
/// arrays, nested keys): file order is kept.
pub(crate) fn java_map_order(
    keys: &ArrayRef,
    key_type: &DataType,
    offsets: &[i32],
) -> Option<Vec<u32>> {
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
    Some(match &t.kind {
        TypeKind::Char(_) | TypeKind::VarChar(_) => {
            let a = keys.as_string_opt::<i32>()?;
            Box::new(move |i| hash_code::binary_string(a.value(i).as_bytes()))
        }
        TypeKind::Boolean => {
            let a = keys.as_boolean_opt()?;
            Box::new(move |i| hash_code::boolean(a.value(i)))
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
            Box::new(move |i| hash_code::long(a.value(i)))
        }
        TypeKind::Float => {
            let a = keys.as_primitive_opt::<Float32Type>()?;
            Box::new(move |i| hash_code::float(a.value(i)))
        }
        TypeKind::Double => {
            let a = keys.as_primitive_opt::<Float64Type>()?;
            Box::new(move |i| hash_code::double(a.value(i)))
        }
        TypeKind::Decimal { scale, .. } => {
            let a = keys.as_primitive_opt::<arrow_array::types::Decimal128Type>()?;
            let scale = i32::from(*scale);
            Box::new(move |i| hash_code::big_decimal(a.value(i), scale))
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
                hash_code::timestamp(millis, nanos)
            })
        }
        _ => return None,
    })
}
