//! Java's `hashCode()` and `equals()` of the objects Paimon's readers put into Java hash collections (a
//! `HashMap`'s keys, a `HashSet`'s elements), for the values of [`Datum`]; their order is
//! [`crate::java::hash_map::java_hash_order`] and [`crate::java::hash_map::java_hash_order_presized`].

use super::Datum;
use crate::java::hash_code;
use crate::schema::TypeKind;

/// `hashCode()` of the Java object `InternalArray.ElementGetter` returns for a value of `kind`; `None` for a
/// kind whose hash is not reproduced (BINARY's is an array identity, nested values are not modelled).
pub(crate) fn java_hash(kind: &TypeKind, v: &Datum) -> Option<i32> {
    Some(match (kind, v) {
        (_, Datum::Null) => 0,
        (
            TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::Date
            | TypeKind::Time(_),
            Datum::Int(i),
        ) => *i as i32,
        (TypeKind::BigInt, Datum::Int(i)) => hash_code::long(*i),
        (TypeKind::Boolean, Datum::Boolean(b)) => hash_code::boolean(*b),
        (TypeKind::Float, Datum::Float(f)) => hash_code::float(*f),
        (TypeKind::Double, Datum::Double(d)) => hash_code::double(*d),
        (TypeKind::Char(_) | TypeKind::VarChar(_), Datum::String(s)) => {
            hash_code::binary_string(s.as_bytes())
        }
        (TypeKind::Decimal { scale, .. }, Datum::Decimal { unscaled, .. }) => {
            hash_code::big_decimal(*unscaled, i32::from(*scale))
        }
        (
            TypeKind::Timestamp(_) | TypeKind::LocalZonedTimestamp(_),
            Datum::Timestamp {
                millis,
                nanos_of_milli,
            },
        ) => hash_code::timestamp(*millis, i64::from(*nanos_of_milli)),
        _ => return None,
    })
}

/// Whether [`java_hash`] reproduces the Java hash code of the values of `kind` (it returns `None` for the
/// others, once it sees a non-NULL one).
pub(crate) fn hashable(kind: &TypeKind) -> bool {
    matches!(
        kind,
        TypeKind::Boolean
            | TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Float
            | TypeKind::Double
            | TypeKind::Date
            | TypeKind::Time(_)
            | TypeKind::Char(_)
            | TypeKind::VarChar(_)
            | TypeKind::Decimal { .. }
            | TypeKind::Timestamp(_)
            | TypeKind::LocalZonedTimestamp(_)
    )
}

/// `equals()` of two Java objects of the hashable kinds of [`java_hash`].
pub(crate) fn java_equals(a: &Datum, b: &Datum) -> bool {
    match (a, b) {
        (Datum::Float(x), Datum::Float(y)) => {
            hash_code::float_to_int_bits(*x) == hash_code::float_to_int_bits(*y)
        }
        (Datum::Double(x), Datum::Double(y)) => {
            hash_code::double_to_long_bits(*x) == hash_code::double_to_long_bits(*y)
        }
        _ => a == b,
    }
}
