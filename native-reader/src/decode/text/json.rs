//! `json` data files: a line to a row as paimon-format's `JsonFileReader` does it (2.0.0).
//!
//! Each line is one JSON value read by Jackson's `readTree` (the first value of the line; what follows it is
//! not read). The row's fields are the object's members by name (a missing or `null` member is NULL; of
//! duplicate names the last counts). A scalar field is the member's text (`JsonNode.asText`: a string's
//! text, a number's Java text, `true`/`false`, empty for an array or object) read as the type reads it
//! ([`super::values::parse_value`]; TINYINT..BIGINT by `Byte.parseByte`..`Long.parseLong`); BINARY is
//! Base64 text; an ARRAY or VECTOR is a JSON array; a MAP is an object whose member names are read as the
//! key type (keys Java finds equal collapse into the first one's place with the last value); a ROW is an
//! object. A value that does not convert fails the read, unless `json.ignore-parse-errors` makes it NULL
//! (and drops a line that is not a JSON object). A `null` line is dropped either way (a null row).

use serde_json::Value;

use super::values::parse_value;
use crate::line::LineRules;
use crate::schema::{DataType, TypeKind};
use crate::value::Datum;

/// Why a line or a value does not convert.
#[derive(Debug, PartialEq)]
pub(super) enum JsonError {
    /// Java throws (or, ignoring parse errors, would give NULL); the reason names the value.
    Value(String),
    /// A type the native reader does not read from JSON (VARIANT, BLOB, MULTISET).
    Unsupported(String),
}

/// The row of `line` for `columns` (name and type), or `None` when `ignore_errors` drops the line.
pub(super) fn parse_line(
    line: &str,
    columns: &[(&str, &DataType)],
    ignore_errors: bool,
    rules: &LineRules,
) -> Result<Option<Vec<Datum>>, JsonError> {
    let node = match serde_json::Deserializer::from_str(line)
        .into_iter::<Value>()
        .next()
    {
        Some(Ok(node)) => node,
        Some(Err(e)) if !ignore_errors => {
            return Err(JsonError::Value(format!("Failed to parse JSON line: {e}")))
        }
        // An empty or blank line is Jackson's missing node: not an object.
        None if !ignore_errors => {
            return Err(JsonError::Value(
                "Failed to convert JSON line: expected an object, the line is blank".into(),
            ))
        }
        _ => return Ok(None),
    };
    let Value::Object(members) = node else {
        // A `null` line converts to a null row, which `AbstractTextFileReader` skips as it skips a line
        // `ignore-parse-errors` drops.
        if ignore_errors || node.is_null() {
            return Ok(None);
        }
        return Err(JsonError::Value(format!(
            "Failed to convert JSON line: expected an object, got {node}"
        )));
    };
    let converter = Converter {
        ignore_errors,
        rules,
    };
    let mut row = Vec::with_capacity(columns.len());
    for (name, data_type) in columns {
        row.push(converter.field(members.get(*name), data_type)?);
    }
    Ok(Some(row))
}

struct Converter<'a> {
    ignore_errors: bool,
    rules: &'a LineRules,
}

impl Converter<'_> {
    /// `handleParseError`: NULL when ignoring errors, else the error.
    fn failed(&self, reason: String) -> Result<Datum, JsonError> {
        if self.ignore_errors {
            Ok(Datum::Null)
        } else {
            Err(JsonError::Value(reason))
        }
    }

    /// `convertJsonValue` of a member (absent: NULL) with the per-field handling of `convertJsonRow`.
    fn field(&self, node: Option<&Value>, data_type: &DataType) -> Result<Datum, JsonError> {
        match node {
            None | Some(Value::Null) => Ok(Datum::Null),
            Some(node) => match self.value(node, data_type) {
                Err(JsonError::Value(reason)) => self.failed(reason),
                other => other,
            },
        }
    }

    fn value(&self, node: &Value, data_type: &DataType) -> Result<Datum, JsonError> {
        match &data_type.kind {
            TypeKind::Array(element) => self.array(node, element, None),
            TypeKind::Vector(element, length) => self.array(node, element, Some(*length)),
            TypeKind::Map(key, value) => self.map(node, key, value),
            TypeKind::Row(fields) => {
                let Value::Object(members) = node else {
                    return self.failed(format!("Expected object node but got: {node}"));
                };
                let mut values = Vec::with_capacity(fields.len());
                for f in fields {
                    values.push(self.field(members.get(&f.name), &f.data_type)?);
                }
                Ok(Datum::Row(values))
            }
            _ => self.scalar(&as_text(node), data_type),
        }
    }

    fn array(
        &self,
        node: &Value,
        element: &DataType,
        length: Option<u32>,
    ) -> Result<Datum, JsonError> {
        let Value::Array(items) = node else {
            return self.failed(format!("Expected array node but got: {node}"));
        };
        let mut values = Vec::with_capacity(items.len());
        for item in items {
            values.push(self.field(Some(item), element)?);
        }
        if let Some(length) = length.filter(|l| *l as usize != values.len()) {
            return Err(JsonError::Unsupported(format!(
                "a VECTOR of {length} elements holds {} in the file",
                values.len()
            )));
        }
        Ok(Datum::List(values))
    }

    fn map(&self, node: &Value, key: &DataType, value: &DataType) -> Result<Datum, JsonError> {
        let Value::Object(members) = node else {
            return self.failed(format!("Expected object node but got: {node}"));
        };
        let mut entries: Vec<(Datum, Datum)> = Vec::with_capacity(members.len());
        for (name, member) in members {
            // An entry that fails is skipped when ignoring errors.
            let k = match self.scalar(name, key) {
                Ok(Datum::Null) => continue,
                Ok(k) => k,
                Err(JsonError::Value(_)) if self.ignore_errors => continue,
                Err(e) => return Err(e),
            };
            let v = match self.field(Some(member), value) {
                Ok(v) => v,
                Err(JsonError::Value(_)) if self.ignore_errors => continue,
                Err(e) => return Err(e),
            };
            // `LinkedHashMap.put`: an equal key keeps its place and takes the new value; Java compares
            // BINARY keys (`byte[]`) by identity, so they never collapse.
            match entries
                .iter_mut()
                .find(|(k2, _)| !matches!(k, Datum::Bytes(_)) && *k2 == k)
            {
                Some(entry) => entry.1 = v,
                None => entries.push((k, v)),
            }
        }
        Ok(Datum::Map(entries))
    }

    /// `convertPrimitiveStringToType` (BINARY: Base64) of a scalar's text.
    fn scalar(&self, text: &str, data_type: &DataType) -> Result<Datum, JsonError> {
        if matches!(
            data_type.kind,
            TypeKind::Array(_)
                | TypeKind::Vector(..)
                | TypeKind::Map(..)
                | TypeKind::Row(_)
                | TypeKind::Multiset(_)
                | TypeKind::Variant
                | TypeKind::Blob
        ) {
            return Err(JsonError::Unsupported(format!(
                "a {:?} value from JSON text is not read natively",
                data_type.kind
            )));
        }
        match parse_value(text, data_type, self.rules) {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(JsonError::Unsupported(format!(
                "a {:?} value from JSON text is not read natively",
                data_type.kind
            ))),
            Err(reason) => self.failed(reason),
        }
    }
}

/// Jackson's `JsonNode.asText`: a string's text, a number's Java text (`Integer`/`Long.toString` of an
/// integer, `Double.toString` of a number with a fraction or exponent), `true`/`false`, `null`, and the
/// empty text for an array or an object.
fn as_text(node: &Value) -> String {
    match node {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) => crate::binary_row::java_double_to_string(f),
            _ => n.to_string(),
        },
        Value::Array(_) | Value::Object(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::DataField;

    fn t(kind: TypeKind) -> DataType {
        DataType {
            kind,
            nullable: true,
        }
    }

    #[test]
    fn lines_convert_as_the_json_reader_converts_them() {
        let rules = crate::PaimonRelease::V2_0_0.rules();
        let int = t(TypeKind::Int);
        let map = t(TypeKind::Map(Box::new(int.clone()), Box::new(int.clone())));
        let row = t(TypeKind::Row(vec![DataField {
            id: 9,
            name: "a".into(),
            data_type: int.clone(),
            default_value: None,
        }]));
        let columns = [("i", &int), ("m", &map), ("r", &row)];
        let parsed = parse_line(
            r#"{"i":"7","m":{"1":"2","01":"3","x":"4"},"r":{"a":5},"i":8} trailing"#,
            &columns[..2],
            true,
            rules,
        )
        .unwrap()
        .unwrap();
        // The last `i` counts; map keys `1` and `01` are the same INT; `x` is dropped (ignored error).
        assert_eq!(
            parsed,
            vec![
                Datum::Int(8),
                Datum::Map(vec![(Datum::Int(1), Datum::Int(3))])
            ]
        );
        assert_eq!(
            parse_line(r#"{"r":{"a":1.5e0}}"#, &columns[2..], false, rules),
            Err(JsonError::Value("For input string: \"1.5\" (Int)".into()))
        );
        assert_eq!(parse_line("[1]", &columns, true, rules), Ok(None));
        assert_eq!(parse_line(" null ", &columns, false, rules), Ok(None));
        assert!(parse_line("[1]", &columns, false, rules).is_err());
        assert!(parse_line("", &columns, false, rules).is_err());
    }
}
