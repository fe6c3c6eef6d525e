//! A manifest record read by field name (how Java reads files of older and newer writers).

use apache_avro::types::Value;

use super::Malformed;

fn unwrap_union(v: &Value) -> &Value {
    match v {
        Value::Union(_, inner) => unwrap_union(inner),
        other => other,
    }
}

pub(super) fn type_error(field: &str, expected: &str, got: &Value) -> Malformed {
    let kind = match got {
        Value::Null => "null",
        Value::Boolean(_) => "boolean",
        Value::Int(_) => "int",
        Value::Long(_) => "long",
        Value::Float(_) => "float",
        Value::Double(_) => "double",
        Value::Bytes(_) | Value::Fixed(..) => "bytes",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Map(_) => "map",
        Value::Record(_) => "record",
        _ => "another type",
    };
    Malformed::Invalid(format!(
        "field `{field}`: expected {expected}, found {kind}"
    ))
}

/// A record whose fields are looked up by name.
pub(super) struct Rec<'a> {
    fields: &'a [(String, Value)],
}

impl<'a> Rec<'a> {
    pub(super) fn from_value(v: &'a Value, what: &str) -> Result<Self, Malformed> {
        match unwrap_union(v) {
            Value::Record(fields) => Ok(Rec { fields }),
            other => Err(type_error(what, "record", other)),
        }
    }

    /// The field's value with unions unwrapped; `None` when absent or null.
    pub(super) fn get(&self, name: &str) -> Option<&'a Value> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| unwrap_union(v))
            .filter(|v| !matches!(v, Value::Null))
    }

    pub(super) fn required(&self, name: &str) -> Result<&'a Value, Malformed> {
        self.get(name).ok_or_else(|| {
            Malformed::Invalid(format!("required field `{name}` is missing or null"))
        })
    }

    pub(super) fn check_version(&self, expected: i32) -> Result<(), Malformed> {
        let v = self.int("_VERSION")?;
        if v != expected {
            return Err(format!("unsupported _VERSION {v}, expected {expected}").into());
        }
        Ok(())
    }

    pub(super) fn opt_long(&self, name: &str) -> Result<Option<i64>, Malformed> {
        self.get(name)
            .map(|v| match v {
                Value::Long(x)
                | Value::TimestampMillis(x)
                | Value::TimestampMicros(x)
                | Value::LocalTimestampMillis(x)
                | Value::LocalTimestampMicros(x)
                | Value::TimeMicros(x) => Ok(*x),
                Value::Int(x) | Value::Date(x) | Value::TimeMillis(x) => Ok(*x as i64),
                other => Err(type_error(name, "long", other)),
            })
            .transpose()
    }

    pub(super) fn long(&self, name: &str) -> Result<i64, Malformed> {
        self.required(name)?;
        self.opt_long(name)?.ok_or_else(|| {
            Malformed::Invalid(format!("required field `{name}` is missing or null"))
        })
    }

    pub(super) fn opt_int(&self, name: &str) -> Result<Option<i32>, Malformed> {
        self.opt_long(name)?
            .map(|x| {
                i32::try_from(x)
                    .map_err(|_| Malformed::Invalid(format!("field `{name}`: {x} is not an int")))
            })
            .transpose()
    }

    pub(super) fn int(&self, name: &str) -> Result<i32, Malformed> {
        self.opt_int(name)?.ok_or_else(|| {
            Malformed::Invalid(format!("required field `{name}` is missing or null"))
        })
    }

    pub(super) fn opt_string(&self, name: &str) -> Result<Option<String>, Malformed> {
        self.get(name)
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                Value::Bytes(b) => String::from_utf8(b.clone())
                    .map_err(|_| Malformed::Invalid(format!("field `{name}`: invalid UTF-8"))),
                other => Err(type_error(name, "string", other)),
            })
            .transpose()
    }

    pub(super) fn string(&self, name: &str) -> Result<String, Malformed> {
        self.opt_string(name)?.ok_or_else(|| {
            Malformed::Invalid(format!("required field `{name}` is missing or null"))
        })
    }

    pub(super) fn opt_bytes(&self, name: &str) -> Result<Option<Vec<u8>>, Malformed> {
        self.get(name)
            .map(|v| match v {
                Value::Bytes(b) | Value::Fixed(_, b) => Ok(b.clone()),
                Value::String(s) => Ok(s.as_bytes().to_vec()),
                other => Err(type_error(name, "bytes", other)),
            })
            .transpose()
    }

    pub(super) fn bytes(&self, name: &str) -> Result<Vec<u8>, Malformed> {
        self.opt_bytes(name)?.ok_or_else(|| {
            Malformed::Invalid(format!("required field `{name}` is missing or null"))
        })
    }

    pub(super) fn opt_strings(&self, name: &str) -> Result<Option<Vec<String>>, Malformed> {
        self.get(name)
            .map(|v| match v {
                Value::Array(items) => items
                    .iter()
                    .map(|item| match unwrap_union(item) {
                        Value::String(s) => Ok(s.clone()),
                        other => Err(type_error(name, "array of strings", other)),
                    })
                    .collect(),
                other => Err(type_error(name, "array", other)),
            })
            .transpose()
    }

    /// An array of nullable longs, `None` when the field is absent or null.
    pub(super) fn opt_longs(&self, name: &str) -> Result<Option<Vec<Option<i64>>>, Malformed> {
        self.get(name)
            .map(|v| match v {
                Value::Array(items) => items
                    .iter()
                    .map(|item| match unwrap_union(item) {
                        Value::Null => Ok(None),
                        Value::Long(x) => Ok(Some(*x)),
                        Value::Int(x) => Ok(Some(i64::from(*x))),
                        other => Err(type_error(name, "array of longs", other)),
                    })
                    .collect(),
                other => Err(type_error(name, "array", other)),
            })
            .transpose()
    }

    pub(super) fn record(&self, name: &str) -> Result<Rec<'a>, Malformed> {
        Rec::from_value(self.required(name)?, name)
    }

    /// The record field `name`, `None` when it is absent or null.
    pub(super) fn opt_record(&self, name: &str) -> Result<Option<Rec<'a>>, Malformed> {
        self.get(name).map(|v| Rec::from_value(v, name)).transpose()
    }
}
