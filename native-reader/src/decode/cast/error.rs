//! [`CastError`]: why a column or a value cannot be cast.

use crate::schema::TypeKind;

/// Why a column written as one type cannot be read as another, or why one value's cast fails as the Java
/// cast throws. The message names the types and the value (no file name: the reader adds the file and the
/// column).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum CastError {
    /// `CastExecutors.resolve` of Paimon 1.0 finds no rule for this type change (refused when the file is
    /// opened).
    #[error(
        "the file stores {from:?} but the table reads {to:?}: this type change is not read natively"
    )]
    NoRule {
        /// The file's type.
        from: TypeKind,
        /// The table's (read) type.
        to: TypeKind,
    },
    /// A value with more digits than the target DECIMAL's precision: `Decimal.fromBigDecimal` gives NULL,
    /// but the released reader's `CastedRow` still reports the field non-null, so reading it fails there
    /// (`NullPointerException` in paimon-arrow). `value` is the value as the message prints it.
    #[error(
        "{value} does not fit {to:?}: the cast gives NULL in a field the released reader reports \
         non-null (CastedRow), so Paimon 1.0 fails reading it (NullPointerException)"
    )]
    DecimalOverflow {
        /// The value (a number, or quoted text).
        value: String,
        /// The target DECIMAL type.
        to: TypeKind,
    },
    /// A value the Java cast throws on (text that does not parse, a number out of the target's range, NaN
    /// or an infinity to DECIMAL); the message names the value and the target.
    #[error("{0}")]
    Value(String),
    /// An array or value of a shape the cast rules do not handle (a reader invariant broken).
    #[error("{0}")]
    Unsupported(String),
    /// Building the result array failed in Arrow.
    #[error(transparent)]
    Arrow(#[from] arrow_schema::ArrowError),
}

impl PartialEq for CastError {
    /// Same variant and fields; Arrow errors compare by message (`ArrowError` has no `PartialEq`).
    fn eq(&self, other: &Self) -> bool {
        use CastError::*;
        match (self, other) {
            (NoRule { from: a, to: b }, NoRule { from: c, to: d }) => a == c && b == d,
            (DecimalOverflow { value: a, to: b }, DecimalOverflow { value: c, to: d }) => {
                a == c && b == d
            }
            (Value(a), Value(b)) | (Unsupported(a), Unsupported(b)) => a == b,
            (Arrow(a), Arrow(b)) => a.to_string() == b.to_string(),
            _ => false,
        }
    }
}
