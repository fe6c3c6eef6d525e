//! Paimon type <-> Arrow type: the one place where the Arrow type of each Paimon type is fixed.
//!
//! Both readers return these types. They mirror `org.apache.paimon.arrow.ArrowUtils.toArrowField` /
//! `ArrowFieldTypeConversion` of the released `paimon-arrow` 1.0, which the stock side uses to export rows,
//! with the JVM's default time zone pinned to UTC by `jvm-bridge`:
//!
//! | Paimon | Arrow | value |
//! |---|---|---|
//! | BOOLEAN | Boolean | |
//! | TINYINT, SMALLINT, INT, BIGINT | Int8, Int16, Int32, Int64 | |
//! | FLOAT, DOUBLE | Float32, Float64 | |
//! | DECIMAL(p, s) | Decimal128(p, s) | unscaled value |
//! | CHAR(n), VARCHAR(n), STRING | Utf8 (top-level in a Parquet table: Utf8View, see below) | as stored (no CHAR padding added or removed) |
//! | BINARY(n), VARBINARY(n), BYTES | Binary (top-level in a Parquet table: BinaryView) | |
//! | DATE | Date32 | days since 1970-01-01 |
//! | TIME(p) | Time32(Millisecond) | milliseconds of the day (any p) |
//! | TIMESTAMP(p) | Timestamp(unit, no zone): Second for p = 0, Millisecond 1-3, Microsecond 4-6, Nanosecond 7-9 | see below |
//! | TIMESTAMP(p) WITH LOCAL TIME ZONE | Timestamp(same units, zone `UTC`) | see below |
//! | ARRAY<T> | List, element field `$data$` | |
//! | VECTOR<T, n> (2.0) | FixedSizeList(n), element field `$data$` (field id as an ARRAY element) | |
//! | VARIANT (2.0) | Struct{`value` Binary NOT NULL, `metadata` Binary NOT NULL} (no child field ids) | the stored binaries |
//! | BLOB (2.0) | refused: tables with a BLOB column are not read (paimon-arrow 2.0 throws too) | |
//! | MAP<K, V> | Map (unsorted), entries `entries` NOT NULL = Struct{`key` NOT NULL, `value` nullable} | entries in the reader's order |
//! | MULTISET<T> | as MAP<T, INT NOT NULL> (paimon-arrow 1.0 cannot export MULTISET at all) | element → count |
//! | ROW<...> | Struct of the nested fields | |
//!
//! Timestamp values are paimon-arrow's `nonCastedTimestampToEpoch` of Paimon's `Timestamp(millisecond,
//! nanoOfMillisecond)`: seconds = millis / 1000 (truncated toward zero), millis, micros = millis * 1000 +
//! nanos / 1000, nanos = millis * 10^6 + nanos, all in wrapping Java `long` arithmetic (so a TIMESTAMP(9)
//! beyond year 2262 wraps exactly as the stock side's does). LTZ values are the UTC epoch.
//!
//! Field metadata: like paimon-arrow, every field carries `PARQUET:field_id` = its Paimon field id; a list
//! element carries `536870911 + id * 1024 + depth`, a map key `536870911 - id * 1024 - depth`, a map value
//! `536870911 + id * 1024 + depth` and the map entries struct the map's id (`SpecialFields`, `depth` counted
//! from 1 below the top-level field, restarting at 0 inside a ROW's own fields). Because nested field
//! metadata is part of an Arrow `DataType`, [`arrow_field`] (with ids) is what batches carry;
//! [`arrow_type`] is the same type without metadata, for callers that do not know the field id.
//!
//! One deliberate difference: paimon-arrow declares every map `value` field NOT NULL (it builds it from
//! `valueType.notNull()`) yet writes NULL values into it, which is invalid Arrow; `jvm-bridge` imports it as
//! nullable, and so is it here.
//!
//! **String views.** In a table whose `file.format` is `parquet` (the default; [`crate::Table::string_views`])
//! the native reader returns a top-level CHAR/VARCHAR/STRING column as `Utf8View` and a top-level
//! BINARY/VARBINARY/BYTES column as `BinaryView` ([`arrow_type_as`], [`read_schema_as`] with `views`): Parquet
//! pages decode into views of the page and dictionary bytes without copying them, and the merge gathers
//! 16-byte views instead of the bytes. ORC and Avro tables keep `Utf8`/`Binary`: their decoders build plain
//! arrays, and turning those into views is one more pass that measured 5-15% slower on every kind
//! (`benches/README.md`); a file of another format in a table is brought to the table's representation.
//! Strings nested in ARRAY, MAP, ROW and VARIANT stay `Utf8`/`Binary`. The released reader's export is
//! unchanged (`Utf8`/`Binary`, [`ArrowExport`]); the harness compares a view and a plain string or binary as
//! the same value.
//!
//! paimon-arrow 2.0 differs in two labels only: TIMESTAMP_LTZ is always in zone `"UTC"` (1.0: the JVM default
//! zone) and a MAP value is as nullable as its Paimon type. [`ArrowExport`] is the hook that describes either
//! release and relabels the reader's batches (`ArrowExport::apply`); the reader itself keeps the mapping
//! above (`ArrowExport::default`).
//!
//! Every batch starts with `_row_kind` Int8 NOT NULL: 0 `+I`, 1 `-U`, 2 `+U`, 3 `-D` (`org.apache.paimon.types.RowKind`),
//! field id 2147483645 (`SpecialFields.VALUE_KIND`).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType as ArrowType, Field, Fields, Schema, TimeUnit};

use crate::schema::{DataField, DataType, TypeKind};

/// Name of the leading RowKind column of every read schema (Int8, `RowKind#toByteValue`).
pub const ROW_KIND_COLUMN: &str = "_row_kind";

/// Field id of the `_row_kind` column (`SpecialFields.VALUE_KIND`), as the stock side exports it.
pub(crate) const ROW_KIND_FIELD_ID: i32 = i32::MAX - 2;

/// Arrow field metadata key holding the Paimon field id (`ArrowUtils.PARQUET_FIELD_ID`).
pub(crate) const FIELD_ID_KEY: &str = "PARQUET:field_id";

/// Name of a list's element field (Arrow Java `ListVector.DATA_VECTOR_NAME`).
pub(crate) const LIST_ELEMENT_NAME: &str = "$data$";

/// Base of the ids of nested array elements and map keys/values (`SpecialFields.STRUCTURED_TYPE_FIELD_ID_BASE`).
pub(crate) const STRUCTURED_TYPE_FIELD_ID_BASE: i32 = i32::MAX / 4;

/// How a Paimon release's paimon-arrow exports the two things that differ between 1.0 and 2.0
/// (`ArrowFieldTypeConversion.ArrowFieldTypeVisitor`): the zone of TIMESTAMP_LTZ and the nullability of MAP
/// values. Everything else is the same in both (see the module docs).
///
/// The reader itself always produces [`ArrowExport::default`]; a caller comparing against one release (a
/// per-line rule of the harness) builds that release's profile and converts batches with
/// [`ArrowExport::apply`], which only relabels types (no value changes, no copies).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrowExport {
    /// The zone of TIMESTAMP(p) WITH LOCAL TIME ZONE columns. paimon-arrow 1.0 uses the JVM's default zone
    /// (`ZoneId.systemDefault()`; `jvm-bridge` pins it to UTC), 2.0 always `"UTC"`. `None`: no zone. The
    /// values are the UTC epoch either way.
    pub local_zoned_timezone: Option<Arc<str>>,
    /// The nullability of MAP (and MULTISET) value fields.
    pub map_values: MapValueNullability,
}

/// Nullability of a MAP's Arrow `value` field ([`ArrowExport::map_values`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapValueNullability {
    /// Always nullable. paimon-arrow 1.0 declares it NOT NULL yet writes NULLs into it, which `jvm-bridge`
    /// imports as nullable: this is what both sides compare as for 1.0, and the reader's default.
    AlwaysNullable,
    /// As the Paimon value type says (paimon-arrow 2.0).
    FollowType,
}

impl Default for ArrowExport {
    /// What the reader produces: zone `"UTC"`, map values always nullable (paimon-arrow 1.0 as `jvm-bridge`
    /// imports it with the JVM zone pinned to UTC).
    fn default() -> Self {
        ArrowExport {
            local_zoned_timezone: Some("UTC".into()),
            map_values: MapValueNullability::AlwaysNullable,
        }
    }
}

static DEFAULT_EXPORT: std::sync::LazyLock<ArrowExport> =
    std::sync::LazyLock::new(ArrowExport::default);

impl ArrowExport {
    /// paimon-arrow 2.0.0: TIMESTAMP_LTZ in `"UTC"`, map value nullability from the Paimon type.
    pub fn paimon_arrow_2_0() -> Self {
        ArrowExport {
            local_zoned_timezone: Some("UTC".into()),
            map_values: MapValueNullability::FollowType,
        }
    }

    /// paimon-arrow 1.0.0 under a JVM whose default zone is `zone` (map values as
    /// [`MapValueNullability::AlwaysNullable`]).
    pub fn paimon_arrow_1_0(zone: &str) -> Self {
        ArrowExport {
            local_zoned_timezone: Some(zone.into()),
            map_values: MapValueNullability::AlwaysNullable,
        }
    }

    /// The Arrow field of a column under this profile (as `arrow_field`, field-id metadata included).
    pub fn field(&self, f: &DataField) -> Field {
        with_id(
            Field::new(
                &f.name,
                build_type(&f.data_type, Some(f.id), 0, self),
                f.data_type.nullable,
            ),
            Some(f.id),
        )
    }

    /// The read schema (`_row_kind`, then `fields`) under this profile; [`read_schema`] is this for the
    /// default profile.
    pub fn read_schema(&self, fields: &[DataField]) -> Schema {
        let mut out = Vec::with_capacity(fields.len() + 1);
        out.push(row_kind_field());
        out.extend(fields.iter().map(|f| self.field(f)));
        Schema::new(out)
    }

    /// Relabels a batch the reader produced (default profile) to this profile: every column named like one
    /// of `fields` gets [`ArrowExport::field`]'s type, nested types included; other columns (`_row_kind`,
    /// `_SEQUENCE_NUMBER`) are kept. Buffers are shared, not copied, except that top-level string and binary
    /// views become `Utf8`/`Binary` arrays (a copy of their bytes).
    ///
    /// Errors: the Arrow error when a column does not have the shape of its field, or when a MAP value
    /// becomes NOT NULL under [`MapValueNullability::FollowType`] but holds a NULL.
    pub fn apply(
        &self,
        batch: &arrow_array::RecordBatch,
        fields: &[DataField],
    ) -> Result<arrow_array::RecordBatch, arrow_schema::ArrowError> {
        let schema = batch.schema();
        let mut out_fields = Vec::with_capacity(schema.fields().len());
        let mut columns = Vec::with_capacity(schema.fields().len());
        for (field, column) in schema.fields().iter().zip(batch.columns()) {
            match fields.iter().find(|f| f.name == *field.name()) {
                Some(paimon) => {
                    let target = self.field(paimon);
                    let column = match column.data_type() {
                        ArrowType::Utf8View | ArrowType::BinaryView => {
                            arrow_cast::cast(column, &without_view(column.data_type()))?
                        }
                        _ => column.clone(),
                    };
                    let data = retype(column.to_data(), target.data_type())?;
                    columns.push(arrow_array::make_array(data));
                    out_fields.push(Arc::new(target));
                }
                None => {
                    columns.push(column.clone());
                    out_fields.push(field.clone());
                }
            }
        }
        let schema = Schema::new_with_metadata(out_fields, schema.metadata().clone());
        arrow_array::RecordBatch::try_new(Arc::new(schema), columns)
    }
}

/// `data` relabelled as `target` (same physical layout), children first; `build` validates it, including
/// NULLs in fields that become NOT NULL.
fn retype(
    data: arrow::array::ArrayData,
    target: &ArrowType,
) -> Result<arrow::array::ArrayData, arrow_schema::ArrowError> {
    if data.data_type() == target {
        return Ok(data);
    }
    let child_types: Vec<&ArrowType> = match target {
        ArrowType::List(f)
        | ArrowType::LargeList(f)
        | ArrowType::FixedSizeList(f, _)
        | ArrowType::Map(f, _) => vec![f.data_type()],
        ArrowType::Struct(fs) => fs.iter().map(|f| f.data_type()).collect(),
        _ => Vec::new(),
    };
    if child_types.len() != data.child_data().len() {
        return Err(arrow_schema::ArrowError::InvalidArgumentError(format!(
            "cannot relabel {} as {target}",
            data.data_type()
        )));
    }
    let children = data
        .child_data()
        .iter()
        .zip(child_types)
        .map(|(c, t)| retype(c.clone(), t))
        .collect::<Result<Vec<_>, _>>()?;
    data.into_builder()
        .data_type(target.clone())
        .child_data(children)
        .build()
}

/// The Arrow time unit for a TIMESTAMP precision.
pub(crate) fn timestamp_unit(precision: u8) -> TimeUnit {
    match precision {
        0 => TimeUnit::Second,
        1..=3 => TimeUnit::Millisecond,
        4..=6 => TimeUnit::Microsecond,
        _ => TimeUnit::Nanosecond,
    }
}

/// `SpecialFields.getArrayElementFieldId` (Java `int` arithmetic).
pub(crate) fn array_element_field_id(field_id: i32, depth: i32) -> i32 {
    STRUCTURED_TYPE_FIELD_ID_BASE
        .wrapping_add(field_id.wrapping_mul(1024))
        .wrapping_add(depth)
}

/// `SpecialFields.getMapKeyFieldId` (Java `int` arithmetic).
pub(crate) fn map_key_field_id(field_id: i32, depth: i32) -> i32 {
    STRUCTURED_TYPE_FIELD_ID_BASE
        .wrapping_sub(field_id.wrapping_mul(1024))
        .wrapping_sub(depth)
}

/// `SpecialFields.getMapValueFieldId` (Java `int` arithmetic).
pub(crate) fn map_value_field_id(field_id: i32, depth: i32) -> i32 {
    array_element_field_id(field_id, depth)
}

/// The Arrow type of a Paimon type, without field-id metadata (see the module docs).
pub fn arrow_type(t: &DataType) -> ArrowType {
    build_type(t, None, 0, &DEFAULT_EXPORT)
}

/// The Arrow type the native reader returns for a top-level column of Paimon type `t`, without field-id
/// metadata: [`arrow_type`], or a view for strings and binaries when `views` (module docs, "String views").
pub fn arrow_type_as(t: &DataType, views: bool) -> ArrowType {
    views
        .then(|| top_level_view(t))
        .flatten()
        .unwrap_or_else(|| arrow_type(t))
}

/// The Arrow type the native reader returns for a top-level column of Paimon type `t` with field id
/// `field_id`, nested field metadata included (the type of [`arrow_field`]); strings and binaries as views
/// when `views`.
pub(crate) fn field_arrow_type(t: &DataType, field_id: i32, views: bool) -> ArrowType {
    views
        .then(|| top_level_view(t))
        .flatten()
        .unwrap_or_else(|| build_type(t, Some(field_id), 0, &DEFAULT_EXPORT))
}

/// `Utf8View` for CHAR/VARCHAR/STRING, `BinaryView` for BINARY/VARBINARY/BYTES, `None` for other types: how
/// the native reader returns a top-level column of those types (module docs, "String views").
fn top_level_view(t: &DataType) -> Option<ArrowType> {
    match t.kind {
        TypeKind::Char(_) | TypeKind::VarChar(_) => Some(ArrowType::Utf8View),
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => Some(ArrowType::BinaryView),
        _ => None,
    }
}

/// The non-view type of a top-level column type: `Utf8` for `Utf8View`, `Binary` for `BinaryView`, others
/// unchanged: what format decoders and casts build before it is cast to the view type, and the released
/// reader's type for the same column.
pub fn without_view(t: &ArrowType) -> ArrowType {
    match t {
        ArrowType::Utf8View => ArrowType::Utf8,
        ArrowType::BinaryView => ArrowType::Binary,
        other => other.clone(),
    }
}

pub(crate) fn with_id(field: Field, id: Option<i32>) -> Field {
    match id {
        Some(id) => {
            field.with_metadata(HashMap::from([(FIELD_ID_KEY.to_string(), id.to_string())]))
        }
        None => field,
    }
}

/// `ArrowUtils.toArrowField(name, fieldId, type, depth)`'s type; `id` is `None` for no metadata.
fn build_type(t: &DataType, id: Option<i32>, depth: i32, export: &ArrowExport) -> ArrowType {
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
            ArrowType::Timestamp(timestamp_unit(*p), export.local_zoned_timezone.clone())
        }
        TypeKind::Array(e) => ArrowType::List(Arc::new(list_element(e, id, depth, export))),
        TypeKind::Vector(e, length) => ArrowType::FixedSizeList(
            Arc::new(list_element(e, id, depth, export)),
            i32::try_from(*length).unwrap_or(i32::MAX),
        ),
        TypeKind::Variant => variant_type(),
        // paimon-arrow 2.0 throws for BLOB; tables with BLOB columns are refused before any read
        // (`Table::check_readable`), so this type only describes the stored bytes.
        TypeKind::Blob => ArrowType::Binary,
        TypeKind::Multiset(e) => {
            let count = DataType {
                kind: TypeKind::Int,
                nullable: false,
            };
            map_type(e, &count, id, depth, export)
        }
        TypeKind::Map(k, v) => map_type(k, v, id, depth, export),
        TypeKind::Row(fields) => ArrowType::Struct(Fields::from(
            fields
                .iter()
                .map(|f| {
                    let field = Field::new(
                        &f.name,
                        build_type(&f.data_type, id.map(|_| f.id), 0, export),
                        f.data_type.nullable,
                    );
                    with_id(field, id.map(|_| f.id))
                })
                .collect::<Vec<_>>(),
        )),
    }
}

/// The element field of an ARRAY or VECTOR: `$data$`, with the array element field id.
fn list_element(e: &DataType, id: Option<i32>, depth: i32, export: &ArrowExport) -> Field {
    let element = Field::new(
        LIST_ELEMENT_NAME,
        build_type(e, id, depth + 1, export),
        e.nullable,
    );
    with_id(element, id.map(|i| array_element_field_id(i, depth + 1)))
}

/// Name of a VARIANT's value child (`Variant.VALUE`).
pub(crate) const VARIANT_VALUE: &str = "value";
/// Name of a VARIANT's metadata child (`Variant.METADATA`).
pub(crate) const VARIANT_METADATA: &str = "metadata";

/// VARIANT as paimon-arrow 2.0 exports it (`ArrowUtils.toArrowField`): Struct{`value` Binary NOT NULL,
/// `metadata` Binary NOT NULL}, children without field ids.
pub(crate) fn variant_type() -> ArrowType {
    ArrowType::Struct(Fields::from(vec![
        Field::new(VARIANT_VALUE, ArrowType::Binary, false),
        Field::new(VARIANT_METADATA, ArrowType::Binary, false),
    ]))
}

fn map_type(
    key: &DataType,
    value: &DataType,
    id: Option<i32>,
    depth: i32,
    export: &ArrowExport,
) -> ArrowType {
    let value_nullable = match export.map_values {
        MapValueNullability::AlwaysNullable => true,
        MapValueNullability::FollowType => value.nullable,
    };
    let key_field = with_id(
        Field::new("key", build_type(key, id, depth + 1, export), false),
        id.map(|i| map_key_field_id(i, depth + 1)),
    );
    let value_field = with_id(
        Field::new(
            "value",
            build_type(value, id, depth + 1, export),
            value_nullable,
        ),
        id.map(|i| map_value_field_id(i, depth + 1)),
    );
    let entries = with_id(
        Field::new(
            "entries",
            ArrowType::Struct(Fields::from(vec![key_field, value_field])),
            false,
        ),
        id,
    );
    ArrowType::Map(Arc::new(entries), false)
}

/// The Arrow field of a Paimon column: same name, [`field_arrow_type`], nullability, and `PARQUET:field_id`
/// metadata; strings and binaries as views when `views`.
pub(crate) fn arrow_field(f: &DataField, views: bool) -> Field {
    with_id(
        Field::new(
            &f.name,
            field_arrow_type(&f.data_type, f.id, views),
            f.data_type.nullable,
        ),
        Some(f.id),
    )
}

/// The `_row_kind` field every batch starts with.
pub(crate) fn row_kind_field() -> Field {
    with_id(
        Field::new(ROW_KIND_COLUMN, ArrowType::Int8, false),
        Some(ROW_KIND_FIELD_ID),
    )
}

/// The read schema of a table as the released reader exports it: `_row_kind` then the table's columns.
pub fn read_schema(fields: &[DataField]) -> Schema {
    read_schema_as(fields, false)
}

/// The read schema the native reader returns: [`read_schema`], with top-level strings and binaries as views
/// when `views` ([`crate::Table::string_views`]).
pub fn read_schema_as(fields: &[DataField], views: bool) -> Schema {
    let mut out = Vec::with_capacity(fields.len() + 1);
    out.push(row_kind_field());
    out.extend(fields.iter().map(|f| arrow_field(f, views)));
    Schema::new(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::parse_type;

    fn field(id: i32, name: &str, json: serde_json::Value) -> DataField {
        DataField {
            id,
            name: name.into(),
            data_type: parse_type(&json).unwrap(),
            default_value: None,
        }
    }

    fn id_of(f: &Field) -> &str {
        f.metadata()
            .get(FIELD_ID_KEY)
            .map(String::as_str)
            .unwrap_or("")
    }

    #[test]
    fn nested_ids_and_names_follow_paimon_arrow() {
        // MAP<STRING, ARRAY<INT>> as field 27: key id B - 27*1024 - 1, value B + 27*1024 + 1, the array
        // element below the value B + 27*1024 + 2.
        let f = field(
            27,
            "m",
            serde_json::json!({"type": "MAP", "key": "STRING NOT NULL", "value": {"type": "ARRAY", "element": "INT"}}),
        );
        let arrow = arrow_field(&f, false);
        assert_eq!(id_of(&arrow), "27");
        let ArrowType::Map(entries, false) = arrow.data_type() else {
            panic!("{arrow:?}")
        };
        assert_eq!(entries.name(), "entries");
        assert!(!entries.is_nullable());
        assert_eq!(id_of(entries), "27");
        let ArrowType::Struct(kv) = entries.data_type() else {
            panic!()
        };
        assert_eq!((kv[0].name().as_str(), id_of(&kv[0])), ("key", "536843262"));
        assert_eq!(
            (kv[1].name().as_str(), id_of(&kv[1])),
            ("value", "536898560")
        );
        assert!(!kv[0].is_nullable() && kv[1].is_nullable());
        let ArrowType::List(element) = kv[1].data_type() else {
            panic!()
        };
        assert_eq!(element.name(), LIST_ELEMENT_NAME);
        assert_eq!(id_of(element), "536898561");
        // Without ids: the same shape, no metadata.
        let ArrowType::Map(entries, _) = arrow_type(&f.data_type) else {
            panic!()
        };
        assert!(entries.metadata().is_empty());
    }

    #[test]
    fn row_fields_use_their_own_ids_from_depth_zero() {
        let f = field(
            3,
            "r",
            serde_json::json!({"type": "ROW", "fields": [
                {"id": 10, "name": "a", "type": {"type": "ARRAY", "element": "INT NOT NULL"}},
                {"id": 11, "name": "b", "type": "TIMESTAMP(9) WITH LOCAL TIME ZONE"}
            ]}),
        );
        let ArrowType::Struct(children) = field_arrow_type(&f.data_type, f.id, false) else {
            panic!()
        };
        assert_eq!(id_of(&children[0]), "10");
        let ArrowType::List(element) = children[0].data_type() else {
            panic!()
        };
        assert_eq!(id_of(element), (536870911 + 10 * 1024 + 1).to_string());
        assert!(!element.is_nullable());
        assert_eq!(
            children[1].data_type(),
            &ArrowType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into()))
        );
    }

    #[test]
    fn export_profiles_relabel_ltz_zones_and_map_values() {
        use arrow_array::{Array, RecordBatch};
        let fields = vec![
            field(
                1,
                "t",
                serde_json::json!("TIMESTAMP(3) WITH LOCAL TIME ZONE"),
            ),
            field(
                2,
                "m",
                serde_json::json!({"type": "MAP", "key": "INT NOT NULL", "value": "BIGINT NOT NULL"}),
            ),
            field(
                3,
                "a",
                serde_json::json!({"type": "ARRAY", "element": "TIMESTAMP(6) WITH LOCAL TIME ZONE"}),
            ),
        ];
        // The default is today's mapping.
        assert_eq!(
            ArrowExport::default().read_schema(&fields),
            read_schema(&fields)
        );
        let t: arrow_array::ArrayRef = Arc::new(
            arrow_array::TimestampMillisecondArray::from(vec![Some(1_000), None])
                .with_timezone("UTC"),
        );
        let mut m = arrow_array::builder::MapBuilder::new(
            None,
            arrow_array::builder::Int32Builder::new(),
            arrow_array::builder::Int64Builder::new(),
        );
        m.keys().append_value(7);
        m.values().append_value(70);
        m.append(true).unwrap();
        m.append(false).unwrap();
        let m = m.finish();
        let m = arrow_cast::cast(&m, &field_arrow_type(&fields[1].data_type, 2, false)).unwrap();
        let mut a = arrow_array::builder::ListBuilder::new(
            arrow_array::builder::TimestampMicrosecondBuilder::new().with_timezone("UTC"),
        );
        a.values().append_value(5);
        a.append(true);
        a.append(false);
        let a = arrow_cast::cast(
            &a.finish(),
            &field_arrow_type(&fields[2].data_type, 3, false),
        )
        .unwrap();
        let kinds: arrow_array::ArrayRef = Arc::new(arrow_array::Int8Array::from(vec![0, 0]));
        let batch =
            RecordBatch::try_new(Arc::new(read_schema(&fields)), vec![kinds, t, m, a]).unwrap();

        let v2 = ArrowExport::paimon_arrow_2_0()
            .apply(&batch, &fields)
            .unwrap();
        let ArrowType::Map(entries, _) = v2.schema().field(2).data_type().clone() else {
            panic!()
        };
        let ArrowType::Struct(kv) = entries.data_type() else {
            panic!()
        };
        assert!(
            !kv[1].is_nullable(),
            "2.0: the value follows BIGINT NOT NULL"
        );
        assert_eq!(
            v2.schema().as_ref(),
            &ArrowExport::paimon_arrow_2_0().read_schema(&fields)
        );
        assert_eq!(
            v2.column(1).to_data().buffers(),
            batch.column(1).to_data().buffers()
        );

        let shanghai = ArrowExport::paimon_arrow_1_0("Asia/Shanghai")
            .apply(&batch, &fields)
            .unwrap();
        assert_eq!(
            shanghai.schema().field(1).data_type(),
            &ArrowType::Timestamp(TimeUnit::Millisecond, Some("Asia/Shanghai".into()))
        );
        let ArrowType::List(element) = shanghai.schema().field(3).data_type().clone() else {
            panic!()
        };
        assert_eq!(
            element.data_type(),
            &ArrowType::Timestamp(TimeUnit::Microsecond, Some("Asia/Shanghai".into()))
        );
        assert_eq!(shanghai.column(1).len(), 2);
        assert!(shanghai.column(1).is_null(1));

        // A NULL in a value that becomes NOT NULL is an error, not invalid Arrow.
        let nullable_value = vec![field(
            2,
            "m",
            serde_json::json!({"type": "MAP", "key": "INT NOT NULL", "value": "BIGINT"}),
        )];
        let mut m = arrow_array::builder::MapBuilder::new(
            None,
            arrow_array::builder::Int32Builder::new(),
            arrow_array::builder::Int64Builder::new(),
        );
        m.keys().append_value(1);
        m.values().append_null();
        m.append(true).unwrap();
        let m = arrow_cast::cast(
            &m.finish(),
            &field_arrow_type(&nullable_value[0].data_type, 2, false),
        )
        .unwrap();
        let kinds: arrow_array::ArrayRef = Arc::new(arrow_array::Int8Array::from(vec![0]));
        let batch =
            RecordBatch::try_new(Arc::new(read_schema(&nullable_value)), vec![kinds, m]).unwrap();
        let not_null = vec![field(
            2,
            "m",
            serde_json::json!({"type": "MAP", "key": "INT NOT NULL", "value": "BIGINT NOT NULL"}),
        )];
        assert!(ArrowExport::paimon_arrow_2_0()
            .apply(&batch, &not_null)
            .is_err());
        assert!(ArrowExport::paimon_arrow_2_0()
            .apply(&batch, &nullable_value)
            .is_ok());
    }

    #[test]
    fn timestamp_units_by_precision() {
        assert_eq!(timestamp_unit(0), TimeUnit::Second);
        assert_eq!(timestamp_unit(3), TimeUnit::Millisecond);
        assert_eq!(timestamp_unit(4), TimeUnit::Microsecond);
        assert_eq!(timestamp_unit(7), TimeUnit::Nanosecond);
        assert_eq!(
            read_schema(&[]).field(0).metadata()[FIELD_ID_KEY],
            "2147483645"
        );
    }
}
