//! Partition values and partition directories (`org.apache.paimon.utils.PartitionPathUtils`,
//! `InternalRowPartitionComputer`, options `partition.default-name` and `partition.legacy-name`).
//!
//! A partition directory is `escape(name)=escape(value)/` per partition key, in `partitionKeys` order
//! (for example `dt=2024-01-01/hr=5/`); unpartitioned tables have the empty string. NULL, empty and
//! whitespace-only values use the default partition name.

use std::path::Path;

use crate::binary_row::{decode_row, Datum};
use crate::error::{Error, Result};
use crate::schema::{DataField, TypeKind};

/// Default of `partition.default-name`.
pub const DEFAULT_PARTITION_NAME: &str = "__DEFAULT_PARTITION__";

/// True for the characters `PartitionPathUtils` escapes: 0x00-0x1F, 0x7F and `" # % ' * / : = ? \ { } [ ] ^`.
pub fn needs_escaping(c: char) -> bool {
    matches!(
        c,
        '\u{0}'
            ..='\u{1F}'
                | '\u{7F}'
                | '"'
                | '#'
                | '%'
                | '\''
                | '*'
                | '/'
                | ':'
                | '='
                | '?'
                | '\\'
                | '{'
                | '}'
                | '['
                | ']'
                | '^'
    )
}

/// `PartitionPathUtils.escapePathName`: each character of [`needs_escaping`] becomes `%` and two upper-case
/// hex digits (`/` ⇒ `%2F`); every other character, non-ASCII and space included, is kept.
/// (Java throws for an empty string; callers never pass one, see [`partition_path`].)
pub fn escape_path_name(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if needs_escaping(c) {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Java `Character.isWhitespace(char)`: Unicode space, line and paragraph separators except the no-break
/// spaces U+00A0, U+2007, U+202F, plus U+0009-U+000D and U+001C-U+001F.
pub fn is_java_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{D}'
            | '\u{1C}'..='\u{1F}'
            | ' '
            | '\u{1680}'
            | '\u{2000}'..='\u{2006}'
            | '\u{2008}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{205F}'
            | '\u{3000}'
    )
}

/// `StringUtils.isNullOrWhitespaceOnly`: `None`, empty, or only [`is_java_whitespace`] characters.
pub fn is_null_or_whitespace_only(s: Option<&str>) -> bool {
    match s {
        None => true,
        Some(s) => s.chars().all(is_java_whitespace),
    }
}

/// The partition directory of `(name, value)` pairs in partition-key order
/// (`PartitionPathUtils.generatePartitionPath` after `InternalRowPartitionComputer.generatePartValues`):
/// `escape(name)=escape(value)/` per pair, where a NULL, empty or whitespace-only value is replaced by
/// `default_name`. Empty string for no pairs. Errors when a name or the default name is empty.
pub fn partition_path(
    spec: &[(&str, Option<&str>)],
    default_name: &str,
) -> std::result::Result<String, PartitionError> {
    let mut out = String::new();
    for (name, value) in spec {
        let value = if is_null_or_whitespace_only(*value) {
            default_name
        } else {
            value.unwrap_or(default_name)
        };
        if name.is_empty() || value.is_empty() {
            return Err(format!(
                "partition path of `{name}`=`{value}`: an empty name or value cannot be a path"
            )
            .into());
        }
        out.push_str(&escape_path_name(name));
        out.push('=');
        out.push_str(&escape_path_name(value));
        out.push('/');
    }
    Ok(out)
}

/// A partition row rendered for a split: legacy values and directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderedPartition {
    /// One entry per partition key: the `partition.legacy-name=true` string of the value, `None` for NULL
    /// (`Split::partition`). Empty strings stay `Some("")` here; only the directory uses the default name.
    pub values: Vec<Option<String>>,
    /// Relative partition directory with a trailing `/`, or the empty string (unpartitioned).
    pub path: String,
}

/// Renders serialized partition rows of one table (`InternalRowPartitionComputer` + `PartitionPathUtils`).
#[derive(Clone, Debug)]
pub struct PartitionComputer {
    fields: Vec<DataField>,
    default_name: String,
    legacy_name: bool,
}

impl PartitionComputer {
    /// `fields` are the partition columns in `partitionKeys` order; `default_name` is
    /// `partition.default-name`; `legacy_name` is `partition.legacy-name`.
    pub fn new(fields: Vec<DataField>, default_name: &str, legacy_name: bool) -> Self {
        PartitionComputer {
            fields,
            default_name: default_name.to_string(),
            legacy_name,
        }
    }

    /// The partition columns.
    pub fn fields(&self) -> &[DataField] {
        &self.fields
    }

    /// Decodes a serialized partition row (4-byte arity prefix included) into typed values.
    ///
    /// Errors: [`Error::BinaryRow`] naming `source` (the manifest the row came from) when malformed.
    pub fn decode(&self, serialized: &[u8], source: &Path) -> Result<Vec<Datum>> {
        let types: Vec<_> = self.fields.iter().map(|f| &f.data_type).collect();
        decode_row(serialized, &types).map_err(|reason| Error::BinaryRow {
            path: source.to_path_buf(),
            reason: format!("partition row: {reason}"),
        })
    }

    /// Decodes and renders a serialized partition row.
    ///
    /// Errors: [`Error::BinaryRow`] for malformed rows; [`Error::Unsupported`] for values whose Java string
    /// cannot be reproduced (binary partitions; TIME/TIMESTAMP/FLOAT/DOUBLE with `partition.legacy-name=false`),
    /// both naming `source`.
    pub fn render(&self, serialized: &[u8], source: &Path) -> Result<RenderedPartition> {
        let datums = self.decode(serialized, source)?;
        let unsupported = |reason: String| Error::Unsupported {
            path: source.to_path_buf(),
            reason,
        };
        let mut values = Vec::with_capacity(datums.len());
        let mut path_values = Vec::with_capacity(datums.len());
        for (field, datum) in self.fields.iter().zip(&datums) {
            let legacy = datum
                .to_legacy_string()
                .map_err(|e| unsupported(format!("partition column `{}`: {e}", field.name)))?;
            let path_value = if self.legacy_name || datum.is_null() {
                legacy.clone()
            } else {
                Some(cast_to_string(field, datum).map_err(|e| unsupported(e.0))?)
            };
            values.push(legacy);
            path_values.push(path_value);
        }
        let spec: Vec<(&str, Option<&str>)> = self
            .fields
            .iter()
            .zip(&path_values)
            .map(|(f, v)| (f.name.as_str(), v.as_deref()))
            .collect();
        let path =
            partition_path(&spec, &self.default_name).map_err(|reason| Error::Unsupported {
                path: source.to_path_buf(),
                reason: reason.0,
            })?;
        Ok(RenderedPartition { values, path })
    }
}

/// Paimon's CAST(value AS STRING) as `partition.legacy-name=false` uses it, for the types where it is known
/// exactly: integers, BOOLEAN, strings and DECIMAL equal the legacy string; DATE is `yyyy-MM-dd`.
pub(crate) fn cast_to_string(
    field: &DataField,
    datum: &Datum,
) -> std::result::Result<String, PartitionError> {
    match (&field.data_type.kind, datum) {
        (TypeKind::Date, Datum::Int(days)) => {
            let (y, m, d) = crate::binary_row::civil_from_days(*days);
            Ok(format!("{y:04}-{m:02}-{d:02}"))
        }
        (
            TypeKind::Boolean
            | TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Char(_)
            | TypeKind::VarChar(_)
            | TypeKind::Decimal { .. },
            _,
        ) => Ok(datum.to_legacy_string()?.unwrap_or_default()),
        (kind, _) => Err(format!(
            "partition column `{}` of type {kind:?} with partition.legacy-name=false",
            field.name
        )
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::parse_atomic;

    #[test]
    fn escaping() {
        assert_eq!(escape_path_name("a/b"), "a%2Fb");
        assert_eq!(escape_path_name("x=y"), "x%3Dy");
        assert_eq!(escape_path_name("50%"), "50%25");
        assert_eq!(escape_path_name("12:30"), "12%3A30");
        assert_eq!(escape_path_name("a b"), "a b");
        assert_eq!(escape_path_name("tab\there"), "tab%09here");
        assert_eq!(escape_path_name("\u{7F}"), "%7F");
        assert_eq!(escape_path_name("{[^]}"), "%7B%5B%5E%5D%7D");
        assert_eq!(escape_path_name("\"#'*?\\"), "%22%23%27%2A%3F%5C");
        assert_eq!(escape_path_name("日本-ok_.~"), "日本-ok_.~");
        assert_eq!(escape_path_name("\u{1}"), "%01");
    }

    #[test]
    fn paths_and_default_name() {
        let d = DEFAULT_PARTITION_NAME;
        assert_eq!(partition_path(&[], d).unwrap(), "");
        assert_eq!(
            partition_path(&[("dt", Some("2024-01-01")), ("hr", Some("5"))], d).unwrap(),
            "dt=2024-01-01/hr=5/"
        );
        assert_eq!(
            partition_path(&[("f0", None)], d).unwrap(),
            "f0=__DEFAULT_PARTITION__/"
        );
        assert_eq!(
            partition_path(&[("f0", Some(""))], d).unwrap(),
            "f0=__DEFAULT_PARTITION__/"
        );
        assert_eq!(
            partition_path(&[("f0", Some(" \t\u{3000}"))], d).unwrap(),
            "f0=__DEFAULT_PARTITION__/"
        );
        // A no-break space is not Java whitespace.
        assert_eq!(
            partition_path(&[("f0", Some("\u{A0}"))], d).unwrap(),
            "f0=\u{A0}/"
        );
        assert_eq!(
            partition_path(&[("a=b", Some("c/d"))], "x").unwrap(),
            "a%3Db=c%2Fd/"
        );
        assert!(partition_path(&[("f0", None)], "").is_err());
    }

    fn field(id: i32, name: &str, ty: &str) -> DataField {
        DataField {
            id,
            name: name.into(),
            data_type: parse_atomic(ty).unwrap(),
            default_value: None,
        }
    }

    #[test]
    fn render_rows() {
        // arity 2: STRING NULL, INT 19723 (DATE)
        let mut bytes = 2i32.to_be_bytes().to_vec();
        let mut row = vec![0u8; 8];
        row[1] = 1;
        row.extend_from_slice(&[0; 8]);
        row.extend_from_slice(&19723i32.to_le_bytes());
        row.extend_from_slice(&[0; 4]);
        bytes.extend_from_slice(&row);
        let fields = vec![field(0, "s", "STRING"), field(1, "d", "DATE")];
        let src = Path::new("/t/manifest/manifest-x");
        let legacy = PartitionComputer::new(fields.clone(), DEFAULT_PARTITION_NAME, true)
            .render(&bytes, src)
            .unwrap();
        assert_eq!(legacy.values, vec![None, Some("19723".to_string())]);
        assert_eq!(legacy.path, "s=__DEFAULT_PARTITION__/d=19723/");
        let cast = PartitionComputer::new(fields, "none", false)
            .render(&bytes, src)
            .unwrap();
        assert_eq!(cast.values, vec![None, Some("19723".to_string())]);
        assert_eq!(cast.path, "s=none/d=2024-01-01/");
    }

    #[test]
    fn malformed_partition_names_the_file() {
        let c = PartitionComputer::new(vec![field(0, "s", "STRING")], "x", true);
        let err = c.render(&[0, 0, 0, 1, 0], Path::new("/t/m")).unwrap_err();
        assert!(matches!(err, Error::BinaryRow { .. }), "{err}");
        assert!(err.to_string().contains("/t/m"));
    }
}

/// A partition value that cannot be rendered as Paimon renders it (`InternalRowPartitionComputer`). The text is the message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PartitionError(pub String);

impl From<String> for PartitionError {
    fn from(message: String) -> Self {
        PartitionError(message)
    }
}

impl From<&str> for PartitionError {
    fn from(message: &str) -> Self {
        PartitionError(message.to_string())
    }
}

impl From<crate::binary_row::BinaryRowError> for PartitionError {
    fn from(e: crate::binary_row::BinaryRowError) -> Self {
        PartitionError(e.0)
    }
}

impl std::ops::Deref for PartitionError {
    type Target = str;

    /// The message.
    fn deref(&self) -> &str {
        &self.0
    }
}
