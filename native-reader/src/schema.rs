//! Table schemas: `schema/schema-N` JSON files (`org.apache.paimon.schema.TableSchema`,
//! `SchemaSerializer`) and Paimon data types (`org.apache.paimon.types.DataType`, `DataTypeJsonParser`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, ErrorKind, Result};

/// A Paimon data type with its nullability.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataType {
    /// The type without nullability.
    pub kind: TypeKind,
    /// False when the type string carried `NOT NULL`.
    pub nullable: bool,
}

/// The Paimon types (`org.apache.paimon.types.DataTypeRoot`): those of 1.0 plus 2.0's VARIANT, BLOB and
/// VECTOR. Lengths and precisions as declared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeKind {
    Boolean,
    TinyInt,
    SmallInt,
    Int,
    BigInt,
    Float,
    Double,
    /// DECIMAL(precision, scale), precision 1..=38.
    Decimal {
        precision: u8,
        scale: i8,
    },
    /// CHAR(n).
    Char(u32),
    /// VARCHAR(n); STRING is VARCHAR(2147483647).
    VarChar(u32),
    /// BINARY(n).
    Binary(u32),
    /// VARBINARY(n); BYTES is VARBINARY(2147483647).
    VarBinary(u32),
    /// Days since 1970-01-01.
    Date,
    /// TIME(p): milliseconds of the day.
    Time(u8),
    /// TIMESTAMP(p) without time zone.
    Timestamp(u8),
    /// TIMESTAMP(p) WITH LOCAL TIME ZONE.
    LocalZonedTimestamp(u8),
    /// VARIANT (2.0 `VariantType`): semi-structured value, stored as (value, metadata) binaries.
    Variant,
    /// BLOB (2.0 `BlobType`): large binary, possibly stored out of line; not readable here.
    Blob,
    Array(Box<DataType>),
    /// VECTOR<element, length> (2.0 `VectorType`): exactly `length` (>= 1) elements of BOOLEAN, TINYINT,
    /// SMALLINT, INT, BIGINT, FLOAT or DOUBLE; stored like ARRAY.
    Vector(Box<DataType>, u32),
    Multiset(Box<DataType>),
    Map(Box<DataType>, Box<DataType>),
    Row(Vec<DataField>),
}

/// One column (`org.apache.paimon.types.DataField`): a stable field id, a name and a type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataField {
    /// Field id; columns are matched across schema versions by this id, never by name.
    pub id: i32,
    /// Column name in this schema version.
    pub name: String,
    /// Column type.
    pub data_type: DataType,
    /// The column's default value (1.2+ `defaultValue`, a SQL literal), applied by writers only: 2.0 does not
    /// fill NULLs with it on read, and neither does this reader. `None` when not set.
    pub default_value: Option<String>,
}

impl DataType {
    /// True when this type is BLOB or has a BLOB inside (ARRAY, VECTOR, MULTISET, MAP, ROW).
    pub fn contains_blob(&self) -> bool {
        let mut blob = false;
        self.visit(&mut |k| blob |= matches!(k, TypeKind::Blob));
        blob
    }

    /// Calls `f` with this type's kind, then with every nested one (ARRAY, VECTOR and MULTISET elements, MAP
    /// keys and values, ROW fields), depth first.
    pub fn visit(&self, f: &mut dyn FnMut(&TypeKind)) {
        f(&self.kind);
        match &self.kind {
            TypeKind::Array(e) | TypeKind::Vector(e, _) | TypeKind::Multiset(e) => e.visit(f),
            TypeKind::Map(k, v) => {
                k.visit(f);
                v.visit(f);
            }
            TypeKind::Row(fields) => fields.iter().for_each(|x| x.data_type.visit(f)),
            _ => {}
        }
    }
}

/// One version of a table's schema (`schema/schema-N`).
#[derive(Clone, Debug)]
pub struct TableSchema {
    /// Schema id (N).
    pub id: i64,
    /// Columns in order.
    pub fields: Vec<DataField>,
    /// Partition key names, in order.
    pub partition_keys: Vec<String>,
    /// Primary key names, in declared order (may include partition keys).
    pub primary_keys: Vec<String>,
    /// Table options as written (only explicitly set ones).
    pub options: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSchema {
    #[serde(default)]
    version: Option<i32>,
    id: i64,
    fields: Vec<RawField>,
    #[serde(default)]
    partition_keys: Vec<String>,
    #[serde(default)]
    primary_keys: Vec<String>,
    #[serde(default)]
    options: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct RawField {
    id: i32,
    name: String,
    #[serde(rename = "type")]
    data_type: serde_json::Value,
    #[serde(default, rename = "defaultValue")]
    default_value: Option<String>,
}

impl TableSchema {
    /// Reads and parses `path` (a `schema-N` file).
    ///
    /// Errors: [`Error::Io`] if unreadable, [`Error::Json`] if malformed or a type string is unknown.
    /// Applies `SchemaSerializer`'s compatibility rules: version <= 1 without `bucket` gets `bucket=1`,
    /// version <= 2 without `file.format` gets `file.format=orc`.
    pub fn read(path: &Path) -> Result<TableSchema> {
        let bytes = crate::fileio::read(path)?;
        Self::parse(&bytes).map_err(|e| e.at(path))
    }

    /// Parses schema JSON.
    ///
    /// Errors: [`SchemaError`] when the bytes are not a schema or a type is unknown.
    pub fn parse(bytes: &[u8]) -> std::result::Result<TableSchema, SchemaError> {
        let raw: RawSchema = serde_json::from_slice(bytes).map_err(SchemaError::Json)?;
        let fields = raw
            .fields
            .into_iter()
            .map(parse_field)
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let mut options = raw.options;
        let version = raw.version.unwrap_or(1);
        if version <= 1 && !options.contains_key("bucket") {
            options.insert("bucket".into(), "1".into());
        }
        if version <= 2 && !options.contains_key("file.format") {
            options.insert("file.format".into(), "orc".into());
        }
        Ok(TableSchema {
            id: raw.id,
            fields,
            partition_keys: raw.partition_keys,
            primary_keys: raw.primary_keys,
            options,
        })
    }

    /// Looks a column up by name.
    pub fn field(&self, name: &str) -> Option<&DataField> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The trimmed primary key: primary keys minus partition keys, in declared order
    /// (`TableSchema.trimmedPrimaryKeys()`).
    pub fn trimmed_primary_keys(&self) -> Vec<&DataField> {
        self.primary_keys
            .iter()
            .filter(|k| !self.partition_keys.contains(k))
            .filter_map(|k| self.field(k))
            .collect()
    }

    /// The partition columns in `partitionKeys` order.
    pub fn partition_fields(&self) -> Vec<&DataField> {
        self.partition_keys
            .iter()
            .filter_map(|k| self.field(k))
            .collect()
    }

    /// An option, or `None` when not set.
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options.get(key).map(String::as_str)
    }
}

fn parse_field(raw: RawField) -> std::result::Result<DataField, SchemaError> {
    Ok(DataField {
        id: raw.id,
        data_type: parse_type(&raw.data_type)
            .map_err(|e| e.within(format_args!("field `{}`", raw.name)))?,
        name: raw.name,
        default_value: raw.default_value,
    })
}

/// Parses a JSON type: a string for atomic types, an object for ARRAY, VECTOR, MULTISET, MAP and ROW
/// (`DataTypeJsonParser`; VECTOR is `{"type": "VECTOR", "element": T, "length": n}`).
pub fn parse_type(value: &serde_json::Value) -> std::result::Result<DataType, SchemaError> {
    match value {
        serde_json::Value::String(s) => parse_atomic(s),
        serde_json::Value::Object(obj) => {
            let ty = obj
                .get("type")
                .and_then(|t| t.as_str())
                .ok_or_else(|| invalid("nested type without a `type` string"))?;
            let (root, nullable) = split_not_null(ty);
            let child = |key: &str| -> std::result::Result<Box<DataType>, SchemaError> {
                let v = obj
                    .get(key)
                    .ok_or_else(|| invalid(format!("{root} type without `{key}`")))?;
                Ok(Box::new(parse_type(v)?))
            };
            let kind = match root.to_ascii_uppercase().as_str() {
                "ARRAY" => TypeKind::Array(child("element")?),
                "MULTISET" => TypeKind::Multiset(child("element")?),
                "VECTOR" => {
                    let element = child("element")?;
                    let length = obj
                        .get("length")
                        .and_then(|l| l.as_u64())
                        .and_then(|l| u32::try_from(l).ok())
                        .filter(|l| (1..=i32::MAX as u32).contains(l))
                        .ok_or_else(|| invalid("VECTOR type without a `length` >= 1"))?;
                    if !matches!(
                        element.kind,
                        TypeKind::Boolean
                            | TypeKind::TinyInt
                            | TypeKind::SmallInt
                            | TypeKind::Int
                            | TypeKind::BigInt
                            | TypeKind::Float
                            | TypeKind::Double
                    ) {
                        return Err(invalid(format!(
                            "VECTOR element must be BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT or DOUBLE, found {:?}",
                            element.kind
                        )));
                    }
                    TypeKind::Vector(element, length)
                }
                "MAP" => TypeKind::Map(child("key")?, child("value")?),
                "ROW" => {
                    let fields = obj
                        .get("fields")
                        .and_then(|f| f.as_array())
                        .ok_or_else(|| invalid("ROW type without `fields`"))?;
                    let mut out = Vec::with_capacity(fields.len());
                    for f in fields {
                        let raw: RawField =
                            serde_json::from_value(f.clone()).map_err(SchemaError::Json)?;
                        out.push(parse_field(raw)?);
                    }
                    TypeKind::Row(out)
                }
                other => return Err(invalid(format!("unknown type `{other}`"))),
            };
            Ok(DataType { kind, nullable })
        }
        other => Err(invalid(format!(
            "a type must be a string or an object, found {other}"
        ))),
    }
}

fn split_not_null(s: &str) -> (&str, bool) {
    let t = s.trim();
    let upper = t.to_ascii_uppercase();
    if upper.ends_with(" NOT NULL") {
        (t[..t.len() - " NOT NULL".len()].trim_end(), false)
    } else {
        (t, true)
    }
}

/// Parses an atomic type string such as `DECIMAL(10, 2) NOT NULL` or `TIMESTAMP(6) WITH LOCAL TIME ZONE`.
pub fn parse_atomic(s: &str) -> std::result::Result<DataType, SchemaError> {
    let (body, nullable) = split_not_null(s);
    let upper = body.to_ascii_uppercase();
    let (name, args) = match upper.find('(') {
        Some(open) => {
            let close = upper[open..]
                .find(')')
                .map(|c| c + open)
                .ok_or_else(|| invalid(format!("unbalanced parentheses in type `{s}`")))?;
            let args: Vec<String> = upper[open + 1..close]
                .split(',')
                .map(|a| a.trim().to_string())
                .collect();
            let rest = upper[close + 1..].trim().to_string();
            (
                format!(
                    "{}{}",
                    upper[..open].trim(),
                    if rest.is_empty() {
                        String::new()
                    } else {
                        format!(" {rest}")
                    }
                ),
                args,
            )
        }
        None => (upper.clone(), Vec::new()),
    };
    let num = |i: usize, default: u32| -> std::result::Result<u32, SchemaError> {
        match args.get(i) {
            None => Ok(default),
            Some(a) => a
                .parse::<u32>()
                .map_err(|_| invalid(format!("bad type parameter `{a}` in `{s}`"))),
        }
    };
    let kind = match name.as_str() {
        "BOOLEAN" => TypeKind::Boolean,
        "TINYINT" => TypeKind::TinyInt,
        "SMALLINT" => TypeKind::SmallInt,
        "INT" | "INTEGER" => TypeKind::Int,
        "BIGINT" => TypeKind::BigInt,
        "FLOAT" => TypeKind::Float,
        "DOUBLE" | "DOUBLE PRECISION" => TypeKind::Double,
        "DECIMAL" | "NUMERIC" | "DEC" => {
            let precision = num(0, 10)?;
            let scale = num(1, 0)?;
            if !(1..=38).contains(&precision) || scale > precision {
                return Err(invalid(format!("invalid decimal `{s}`")));
            }
            TypeKind::Decimal {
                precision: precision as u8,
                scale: scale as i8,
            }
        }
        "CHAR" => TypeKind::Char(num(0, 1)?),
        "VARCHAR" => TypeKind::VarChar(num(0, 1)?),
        "STRING" => TypeKind::VarChar(i32::MAX as u32),
        "BINARY" => TypeKind::Binary(num(0, 1)?),
        "VARBINARY" => TypeKind::VarBinary(num(0, 1)?),
        "BYTES" => TypeKind::VarBinary(i32::MAX as u32),
        "DATE" => TypeKind::Date,
        "VARIANT" => TypeKind::Variant,
        "BLOB" => TypeKind::Blob,
        "TIME" | "TIME WITHOUT TIME ZONE" => TypeKind::Time(num(0, 0)? as u8),
        "TIMESTAMP" | "TIMESTAMP WITHOUT TIME ZONE" => TypeKind::Timestamp(num(0, 6)? as u8),
        "TIMESTAMP WITH LOCAL TIME ZONE" | "TIMESTAMP_LTZ" => {
            TypeKind::LocalZonedTimestamp(num(0, 6)? as u8)
        }
        _ => return Err(invalid(format!("unknown type `{s}`"))),
    };
    if let TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) | TypeKind::Time(p) = kind {
        if p > 9 {
            return Err(invalid(format!("invalid precision in `{s}`")));
        }
    }
    Ok(DataType { kind, nullable })
}

/// Why schema JSON does not parse: the JSON error, or a check of ours (an unknown type, a bad type
/// parameter) with its text; `context` names the field it was in (`field `v`: …`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The bytes are not the JSON of a schema (or of a nested field).
    #[error("{0}")]
    Json(serde_json::Error),
    /// The JSON error met inside `context` (a field).
    #[error("{context}: {source}")]
    JsonIn {
        /// Where, e.g. ``field `v` ``.
        context: String,
        /// The JSON error.
        source: serde_json::Error,
    },
    /// A check of the schema reader failed; the text says what.
    #[error("{0}")]
    Invalid(String),
}

fn invalid(text: impl Into<String>) -> SchemaError {
    SchemaError::Invalid(text.into())
}

impl SchemaError {
    /// The same error seen from the enclosing field: `{context}: {self}`.
    fn within(self, context: impl std::fmt::Display) -> Self {
        match self {
            SchemaError::Json(source) => SchemaError::JsonIn {
                context: context.to_string(),
                source,
            },
            SchemaError::JsonIn {
                context: inner,
                source,
            } => SchemaError::JsonIn {
                context: format!("{context}: {inner}"),
                source,
            },
            SchemaError::Invalid(text) => SchemaError::Invalid(format!("{context}: {text}")),
        }
    }

    /// The [`Error`] naming the schema file at `path`: [`Error::Json`], or [`Error::Library`] keeping the
    /// JSON error as its source (same message).
    fn at(self, path: &Path) -> Error {
        match self {
            SchemaError::Json(source) => Error::library(ErrorKind::Json, path, "", source),
            SchemaError::JsonIn { context, source } => {
                Error::library(ErrorKind::Json, path, context, source)
            }
            SchemaError::Invalid(reason) => Error::Json {
                path: path.to_path_buf(),
                reason,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_atomic_types() {
        let t = parse_atomic("DECIMAL(10, 2) NOT NULL").unwrap();
        assert_eq!(
            t.kind,
            TypeKind::Decimal {
                precision: 10,
                scale: 2
            }
        );
        assert!(!t.nullable);
        assert_eq!(
            parse_atomic("TIMESTAMP(3) WITH LOCAL TIME ZONE")
                .unwrap()
                .kind,
            TypeKind::LocalZonedTimestamp(3)
        );
        assert_eq!(
            parse_atomic("STRING").unwrap().kind,
            TypeKind::VarChar(2147483647)
        );
        assert!(parse_atomic("STRNG").is_err());
    }

    #[test]
    fn parses_2_0_types_and_default_values() {
        // A schema as 2.0.0's SchemaSerializer writes it: `defaultValue` on a field, VARIANT, BLOB, VECTOR.
        let json = br#"{"version":3,"id":2,"fields":[
            {"id":0,"name":"k","type":"INT NOT NULL"},
            {"id":1,"name":"v","type":"STRING","defaultValue":"'none'"},
            {"id":2,"name":"j","type":"VARIANT"},
            {"id":3,"name":"jn","type":"VARIANT NOT NULL"},
            {"id":4,"name":"b","type":"BLOB"},
            {"id":5,"name":"e","type":{"type":"VECTOR NOT NULL","element":"FLOAT NOT NULL","length":3}},
            {"id":6,"name":"r","type":{"type":"ROW","fields":[{"id":7,"name":"bb","type":"BLOB NOT NULL"}]}}
        ],"highestFieldId":7,"partitionKeys":[],"primaryKeys":["k"],"options":{},"timeMillis":1}"#;
        let s = TableSchema::parse(json).unwrap();
        assert_eq!(s.fields[0].default_value, None);
        assert_eq!(s.fields[1].default_value.as_deref(), Some("'none'"));
        assert_eq!(s.fields[2].data_type.kind, TypeKind::Variant);
        assert!(s.fields[2].data_type.nullable);
        assert_eq!(s.fields[3].data_type.kind, TypeKind::Variant);
        assert!(!s.fields[3].data_type.nullable);
        assert_eq!(s.fields[4].data_type.kind, TypeKind::Blob);
        assert!(s.fields[4].data_type.contains_blob());
        let TypeKind::Vector(element, 3) = &s.fields[5].data_type.kind else {
            panic!("{:?}", s.fields[5].data_type)
        };
        assert_eq!(element.kind, TypeKind::Float);
        assert!(!element.nullable && !s.fields[5].data_type.nullable);
        assert!(!s.fields[5].data_type.contains_blob());
        assert!(s.fields[6].data_type.contains_blob());
        for bad in [
            serde_json::json!({"type":"VECTOR","element":"FLOAT"}),
            serde_json::json!({"type":"VECTOR","element":"FLOAT","length":0}),
            serde_json::json!({"type":"VECTOR","element":"STRING","length":2}),
        ] {
            assert!(parse_type(&bad).is_err(), "{bad}");
        }
    }
}
