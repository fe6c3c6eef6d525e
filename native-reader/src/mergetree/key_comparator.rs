//! The comparator of trimmed primary keys (`KeyComparatorSupplier`, the generated `RecordComparator`).

use std::cmp::Ordering;
use std::path::Path;

use crate::binary_row::{decode_row, Datum};
use crate::error::{Error, Result};
use crate::schema::{DataType, TableSchema};

/// Compares trimmed primary keys the way Paimon's generated `RecordComparator` over the key type does: field
/// by field in key order, NULL first, integers/dates/times and floating point numerically (`<`/`>`, so NaN
/// equals anything), strings and binaries by unsigned bytes then length, decimals by value, timestamps by
/// (milliseconds, nanoseconds), `false < true`.
#[derive(Clone, Debug)]
pub struct KeyComparator {
    types: Vec<DataType>,
}

impl KeyComparator {
    /// The comparator of `schema`'s trimmed primary key.
    pub fn new(schema: &TableSchema) -> Self {
        KeyComparator {
            types: schema
                .trimmed_primary_keys()
                .into_iter()
                .map(|f| f.data_type.clone())
                .collect(),
        }
    }

    /// Decodes a serialized key row (`_MIN_KEY`/`_MAX_KEY`, arity prefix included).
    ///
    /// Errors: [`Error::BinaryRow`] naming `path` (the data file the key describes).
    pub fn decode(&self, serialized: &[u8], path: &Path) -> Result<Vec<Datum>> {
        let types: Vec<&DataType> = self.types.iter().collect();
        decode_row(serialized, &types).map_err(|reason| Error::BinaryRow {
            path: path.to_path_buf(),
            reason: format!("key row: {reason}"),
        })
    }

    /// Compares two decoded keys.
    pub fn compare(&self, a: &[Datum], b: &[Datum]) -> Ordering {
        for (x, y) in a.iter().zip(b) {
            let c = compare_datum(x, y);
            if c != Ordering::Equal {
                return c;
            }
        }
        a.len().cmp(&b.len())
    }
}

/// One field of [`KeyComparator::compare`]: the generated `RecordComparator`'s order, NULL first
/// ([`crate::value::compare::compare_codegen`]).
pub(crate) use crate::value::compare::compare_codegen as compare_datum;
