//! The orders Java compares [`Datum`]s by: `InternalRowUtils.compare` (aggregate `max`/`min`) and the
//! generated `RecordComparator` (sequence groups). Both compare values of one column (one type).

use std::cmp::Ordering;

use super::{Datum, ValueError};

/// `InternalRowUtils.compare` (aggregate `max`/`min`): `Float/Double.compare` for floating point (NaN
/// largest, -0.0 < 0.0); BOOLEAN and nested types are incomparable (an error, as in Java).
pub(crate) fn compare_internal(a: &Datum, b: &Datum) -> Result<Ordering, ValueError> {
    Ok(match (a, b) {
        (Datum::Int(x), Datum::Int(y)) => x.cmp(y),
        (Datum::Float(x), Datum::Float(y)) => java_float_compare(*x as f64, *y as f64),
        (Datum::Double(x), Datum::Double(y)) => java_float_compare(*x, *y),
        (Datum::Decimal { unscaled: x, .. }, Datum::Decimal { unscaled: y, .. }) => x.cmp(y),
        (Datum::String(x), Datum::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Datum::Bytes(x), Datum::Bytes(y)) => x.cmp(y),
        (
            Datum::Timestamp {
                millis: mx,
                nanos_of_milli: nx,
            },
            Datum::Timestamp {
                millis: my,
                nanos_of_milli: ny,
            },
        ) => (mx, nx).cmp(&(my, ny)),
        (Datum::Boolean(_), _) => {
            return Err(ValueError::Mismatch("Incomparable type: BOOLEAN".into()))
        }
        _ => return Err(ValueError::Mismatch("values of different types".into())),
    })
}

/// Java `Double.compare`: total order with NaN largest and -0.0 below 0.0.
pub(crate) fn java_float_compare(x: f64, y: f64) -> Ordering {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => x.total_cmp(&y),
    }
}

/// The generated `RecordComparator`'s per-field order (primary keys, sequence groups): NULL first, `<`/`>`
/// for numbers (so NaN equals anything), `false < true`, unsigned bytes then length for strings and binaries,
/// decimals of one scale by unscaled value, timestamps by (milliseconds, nanoseconds). Values of different
/// types never meet in one column and compare equal.
pub(crate) fn compare_codegen(a: &Datum, b: &Datum) -> Ordering {
    fn partial<T: PartialOrd>(x: T, y: T) -> Ordering {
        if x > y {
            Ordering::Greater
        } else if x < y {
            Ordering::Less
        } else {
            Ordering::Equal
        }
    }
    match (a, b) {
        (Datum::Null, Datum::Null) => Ordering::Equal,
        (Datum::Null, _) => Ordering::Less,
        (_, Datum::Null) => Ordering::Greater,
        (Datum::Boolean(x), Datum::Boolean(y)) => x.cmp(y),
        (Datum::Int(x), Datum::Int(y)) => x.cmp(y),
        (Datum::Float(x), Datum::Float(y)) => partial(x, y),
        (Datum::Double(x), Datum::Double(y)) => partial(x, y),
        (
            Datum::Decimal {
                unscaled: x,
                scale: sx,
                ..
            },
            Datum::Decimal {
                unscaled: y,
                scale: sy,
                ..
            },
        ) if sx == sy => x.cmp(y),
        (Datum::String(x), Datum::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Datum::Bytes(x), Datum::Bytes(y)) => x.cmp(y),
        (
            Datum::Timestamp {
                millis: mx,
                nanos_of_milli: nx,
            },
            Datum::Timestamp {
                millis: my,
                nanos_of_milli: ny,
            },
        ) => (mx, nx).cmp(&(my, ny)),
        _ => Ordering::Equal,
    }
}
