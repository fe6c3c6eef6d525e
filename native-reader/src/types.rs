//! Paimon type <-> Arrow type: the one place where the Arrow type of each Paimon type is fixed.
//!
//! Both readers return these types. They mirror `org.apache.paimon.arrow.ArrowUtils` /
//! `ArrowFieldTypeConversion` of the released `paimon-arrow` 1.0, which the stock side uses to export rows,
//! with the JVM's default time zone pinned to UTC by `jvm-bridge`:
//!
//! | Paimon | Arrow |
//! |---|---|
//! | BOOLEAN | Boolean |
//! | TINYINT, SMALLINT, INT, BIGINT | Int8, Int16, Int32, Int64 |
//! | FLOAT, DOUBLE | Float32, Float64 |
//! | DECIMAL(p, s) | Decimal128(p, s) |
//! | CHAR, VARCHAR, STRING | Utf8 |
//! | BINARY, VARBINARY, BYTES | Binary |
//! | DATE | Date32 (days) |
//! | TIME(p) | Time32(Millisecond) |
//! | TIMESTAMP(p) | Timestamp(Second / Millisecond / Microsecond / Nanosecond for p = 0, 1-3, 4-6, 7-9, no zone) |
//! | TIMESTAMP(p) WITH LOCAL TIME ZONE | the same units, zone `UTC` |
//! | ARRAY<T>, MULTISET<T> | List<T> / Map<T, Int32> |
//! | MAP<K, V> | Map<K, V> (entries `key`, `value`) |
//! | ROW<...> | Struct |
//!
//! Every batch starts with `_row_kind` Int8 NOT NULL: 0 `+I`, 1 `-U`, 2 `+U`, 3 `-D` (`org.apache.paimon.types.RowKind`).

use std::sync::Arc;

use arrow_schema::{DataType as ArrowType, Field, Fields, Schema, TimeUnit};

use crate::schema::{DataField, DataType, TypeKind};

/// Name of the leading RowKind column of every batch.
pub const ROW_KIND_COLUMN: &str = "_row_kind";

/// The Arrow time unit for a TIMESTAMP precision.
pub fn timestamp_unit(precision: u8) -> TimeUnit {
    match precision {
        0 => TimeUnit::Second,
        1..=3 => TimeUnit::Millisecond,
        4..=6 => TimeUnit::Microsecond,
        _ => TimeUnit::Nanosecond,
    }
}

/// The Arrow type of a Paimon type (see the module table).
pub fn arrow_type(t: &DataType) -> ArrowType {
    match &t.kind {
        TypeKind::Boolean => ArrowType::Boolean,
        TypeKind::TinyInt => ArrowType::Int8,
        TypeKind::SmallInt => ArrowType::Int16,
        TypeKind::Int => ArrowType::Int32,
        TypeKind::BigInt => ArrowType::Int64,
        TypeKind::Float => ArrowType::Float32,
        TypeKind::Double => ArrowType::Float64,
        TypeKind::Decimal { precision, scale } => ArrowType::Decimal128(*precision, *scale),
        TypeKind::Char(_) | TypeKind::VarChar(_) => ArrowType::Utf8,
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => ArrowType::Binary,
        TypeKind::Date => ArrowType::Date32,
        TypeKind::Time(_) => ArrowType::Time32(TimeUnit::Millisecond),
        TypeKind::Timestamp(p) => ArrowType::Timestamp(timestamp_unit(*p), None),
        TypeKind::LocalZonedTimestamp(p) => {
            ArrowType::Timestamp(timestamp_unit(*p), Some("UTC".into()))
        }
        TypeKind::Array(e) => {
            ArrowType::List(Arc::new(Field::new("element", arrow_type(e), e.nullable)))
        }
        TypeKind::Multiset(e) => map_type(arrow_type(e), ArrowType::Int32, false),
        TypeKind::Map(k, v) => map_type(arrow_type(k), arrow_type(v), v.nullable),
        TypeKind::Row(fields) => ArrowType::Struct(Fields::from(
            fields.iter().map(arrow_field).collect::<Vec<_>>(),
        )),
    }
}

fn map_type(key: ArrowType, value: ArrowType, value_nullable: bool) -> ArrowType {
    let entries = Field::new(
        "entries",
        ArrowType::Struct(Fields::from(vec![
            Field::new("key", key, false),
            Field::new("value", value, value_nullable),
        ])),
        false,
    );
    ArrowType::Map(Arc::new(entries), false)
}

/// The Arrow field of a Paimon column: same name, Arrow type, nullability.
pub fn arrow_field(f: &DataField) -> Field {
    Field::new(&f.name, arrow_type(&f.data_type), f.data_type.nullable)
}

/// The read schema of a table as every reader returns it: `_row_kind` then the table's columns.
pub fn read_schema(fields: &[DataField]) -> Schema {
    let mut out = Vec::with_capacity(fields.len() + 1);
    out.push(Field::new(ROW_KIND_COLUMN, ArrowType::Int8, false));
    out.extend(fields.iter().map(arrow_field));
    Schema::new(out)
}
