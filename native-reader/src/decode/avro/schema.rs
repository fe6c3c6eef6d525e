//! The Avro writer schema (`avro.schema` of the container header): the parts decoding needs.

use std::collections::HashMap;

use super::MAX_DEPTH;
use crate::decode::DecodeError;

/// Avro logical types that change how a value is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Logical {
    None,
    TimestampMillis,
    TimestampMicros,
    Decimal { scale: i32 },
}

/// The parts of an Avro writer schema that decoding needs.
#[derive(Clone, Debug)]
pub(super) enum Schema {
    Null,
    Boolean,
    Int,
    Long(Logical),
    Float,
    Double,
    Bytes(Logical),
    String,
    Fixed(usize, Logical),
    Enum,
    Array(Box<Schema>),
    Map(Box<Schema>),
    Union(Vec<Schema>),
    Record(Vec<(String, Schema)>),
}

pub(super) fn parse_schema(json: &serde_json::Value) -> Result<Schema, DecodeError> {
    let mut named = HashMap::new();
    parse_node(json, None, &mut named, 0)
}

pub(super) fn full_name(name: &str, namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) if !name.contains('.') && !ns.is_empty() => format!("{ns}.{name}"),
        _ => name.to_string(),
    }
}

pub(super) fn parse_node(
    json: &serde_json::Value,
    namespace: Option<&str>,
    named: &mut HashMap<String, Schema>,
    depth: usize,
) -> Result<Schema, DecodeError> {
    if depth > MAX_DEPTH {
        return Err("schema nested too deeply".into());
    }
    use serde_json::Value as J;
    match json {
        J::String(name) => primitive(name, Logical::None)
            .or_else(|| {
                named
                    .get(&full_name(name, namespace))
                    .or_else(|| named.get(name.as_str()))
                    .cloned()
            })
            .ok_or_else(|| DecodeError::from(format!("unknown type `{name}`"))),
        J::Array(branches) => Ok(Schema::Union(
            branches
                .iter()
                .map(|b| parse_node(b, namespace, named, depth + 1))
                .collect::<Result<_, _>>()?,
        )),
        J::Object(obj) => {
            let ty = obj.get("type").ok_or("schema object without `type`")?;
            let logical = match obj.get("logicalType").and_then(J::as_str) {
                Some("timestamp-millis") | Some("local-timestamp-millis") => {
                    Logical::TimestampMillis
                }
                Some("timestamp-micros") | Some("local-timestamp-micros") => {
                    Logical::TimestampMicros
                }
                Some("decimal") => Logical::Decimal {
                    scale: obj.get("scale").and_then(J::as_i64).unwrap_or(0) as i32,
                },
                _ => Logical::None,
            };
            let ty = match ty {
                J::String(s) => s.as_str(),
                nested => return parse_node(nested, namespace, named, depth + 1),
            };
            let own_ns = obj.get("namespace").and_then(J::as_str).or(namespace);
            let name = obj
                .get("name")
                .and_then(J::as_str)
                .map(|n| full_name(n, own_ns));
            let record_ns = name
                .as_deref()
                .and_then(|n| n.rsplit_once('.').map(|(ns, _)| ns.to_string()));
            match ty {
                "record" | "error" => {
                    let fields = obj
                        .get("fields")
                        .and_then(J::as_array)
                        .ok_or("record without `fields`")?;
                    // Register a placeholder first so a self-reference fails cleanly instead of looping.
                    if let Some(n) = &name {
                        named.insert(n.clone(), Schema::Null);
                    }
                    let mut out = Vec::with_capacity(fields.len());
                    for f in fields {
                        let fname = f
                            .get("name")
                            .and_then(J::as_str)
                            .ok_or("record field without `name`")?;
                        let ftype = f.get("type").ok_or("record field without `type`")?;
                        out.push((
                            fname.to_string(),
                            parse_node(ftype, record_ns.as_deref().or(own_ns), named, depth + 1)?,
                        ));
                    }
                    let record = Schema::Record(out);
                    if let Some(n) = name {
                        named.insert(n, record.clone());
                    }
                    Ok(record)
                }
                "enum" => {
                    if let Some(n) = name {
                        named.insert(n, Schema::Enum);
                    }
                    Ok(Schema::Enum)
                }
                "fixed" => {
                    let size = obj
                        .get("size")
                        .and_then(J::as_u64)
                        .ok_or("fixed without `size`")? as usize;
                    let fixed = Schema::Fixed(size, logical);
                    if let Some(n) = name {
                        named.insert(n, fixed.clone());
                    }
                    Ok(fixed)
                }
                "array" => Ok(Schema::Array(Box::new(parse_node(
                    obj.get("items").ok_or("array without `items`")?,
                    own_ns,
                    named,
                    depth + 1,
                )?))),
                "map" => Ok(Schema::Map(Box::new(parse_node(
                    obj.get("values").ok_or("map without `values`")?,
                    own_ns,
                    named,
                    depth + 1,
                )?))),
                other => Ok(primitive(other, logical)
                    .ok_or_else(|| DecodeError::from(format!("unknown type `{other}`")))?),
            }
        }
        other => Err(DecodeError::from(format!("invalid schema node {other}"))),
    }
}

pub(super) fn primitive(name: &str, logical: Logical) -> Option<Schema> {
    Some(match name {
        "null" => Schema::Null,
        "boolean" => Schema::Boolean,
        "int" => Schema::Int,
        "long" => Schema::Long(logical),
        "float" => Schema::Float,
        "double" => Schema::Double,
        "bytes" => Schema::Bytes(logical),
        "string" => Schema::String,
        _ => return None,
    })
}

pub(super) fn unwrap_nullable(schema: &Schema) -> &Schema {
    match schema {
        Schema::Union(b) => b
            .iter()
            .find(|s| !matches!(s, Schema::Null))
            .unwrap_or(schema),
        other => other,
    }
}
