//! DECIMAL rules beyond [`crate::java::big_decimal`] (HALF_UP rescaling, `new BigDecimal(String)`):
//! `BigDecimal.doubleValue()` and the overflow error.

use super::CastError;
use crate::binary_row::decimal_to_plain_string;
use crate::schema::TypeKind;

/// A value that does not fit the target DECIMAL: `Decimal.fromBigDecimal` gives NULL, but the released
/// reader's `CastedRow` still reports the field non-null (the file value's flag), so reading it fails there
/// (`NullPointerException` in paimon-arrow, and in any consumer of the row). The native read fails too.
pub(super) fn decimal_overflow(value: String, to: &TypeKind) -> CastError {
    CastError::DecimalOverflow {
        value,
        to: to.clone(),
    }
}

/// `BigDecimal.doubleValue()` of `x * 10^-s` (correctly rounded via the decimal string).
pub(super) fn decimal_to_f64(x: i128, s: i8) -> f64 {
    decimal_to_plain_string(x, s).parse().unwrap_or(f64::NAN)
}
