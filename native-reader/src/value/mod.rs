//! One value model: [`Datum`], a value of any Paimon type, with its Arrow conversions ([`arrow`]) and the
//! orders Java compares values by ([`compare`]).

pub(crate) mod arrow;
pub(crate) mod compare;
pub(crate) mod java_hash;

/// Why a value could not be read from or written to an Arrow array, or compared.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ValueError {
    /// The value does not fit the type, or the type is not supported here (the reason, in words).
    #[error("{0}")]
    Mismatch(String),
    /// Arrow rejected the array being built.
    #[error(transparent)]
    Arrow(#[from] arrow_schema::ArrowError),
}

/// A value of any Paimon type in Paimon's *internal* representation (`org.apache.paimon.data`): the fields of
/// a serialized `BinaryRow` ([`crate::binary_row`]), and the values the merge compares and the aggregate
/// functions compute ([`crate::aggregate`]), read from and written to Arrow arrays with
/// [`Datum::from_arrow`] and [`Datum::to_arrow`].
#[derive(Clone, Debug, PartialEq)]
pub enum Datum {
    /// SQL NULL.
    Null,
    /// BOOLEAN.
    Boolean(bool),
    /// TINYINT, SMALLINT, INT, BIGINT; DATE as days since 1970-01-01; TIME as milliseconds of the day.
    Int(i64),
    /// FLOAT.
    Float(f32),
    /// DOUBLE.
    Double(f64),
    /// CHAR, VARCHAR, STRING (UTF-8; invalid UTF-8 is an error).
    String(String),
    /// BINARY, VARBINARY, BYTES.
    Bytes(Vec<u8>),
    /// DECIMAL(precision, scale): value = unscaled × 10^-scale.
    Decimal {
        /// Unscaled value.
        unscaled: i128,
        /// Declared precision.
        precision: u8,
        /// Declared scale.
        scale: i8,
    },
    /// TIMESTAMP and TIMESTAMP WITH LOCAL TIME ZONE (`org.apache.paimon.data.Timestamp`): epoch milliseconds
    /// (wall clock for TIMESTAMP, UTC instant for LTZ) plus nanoseconds within that millisecond (0..=999_999).
    Timestamp {
        /// Milliseconds since 1970-01-01T00:00.
        millis: i64,
        /// Nanoseconds of the millisecond.
        nanos_of_milli: i32,
    },
    /// ARRAY (`InternalArray`): the elements in order.
    List(Vec<Datum>),
    /// MAP and MULTISET (`InternalMap`): the (key, value) entries in order.
    Map(Vec<(Datum, Datum)>),
    /// ROW (`InternalRow`): one value per field.
    Row(Vec<Datum>),
}
