//! Numeric primitive conversions (`NumericPrimitiveCastRule`: Java's primitive narrowing and
//! floating-to-integer conversions).

use crate::schema::TypeKind;

/// Java `(int) f` / `(long) d`: truncation toward zero, saturating, NaN is 0 (Rust `as` does the same).
pub(super) fn float_to_long(d: f64) -> i64 {
    d as i64
}

pub(super) fn narrow(v: i64, t: &TypeKind) -> i64 {
    match t {
        TypeKind::TinyInt => i64::from(v as i8),
        TypeKind::SmallInt => i64::from(v as i16),
        TypeKind::Int => i64::from(v as i32),
        _ => v,
    }
}

/// Java `Number.xxxValue()` of a floating value for an integer target: `(byte) (int) f` for TINYINT and
/// SMALLINT (via int), `(int) f`, `(long) f`.
pub(super) fn float_to_integer(d: f64, t: &TypeKind) -> i64 {
    match t {
        TypeKind::BigInt => float_to_long(d),
        _ => narrow(i64::from(d as i32), t),
    }
}
