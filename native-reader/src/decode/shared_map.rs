//! A MAP column in 2.0's shared-shredding layout (`fields.<f>.map.storage-layout=shared-shredding`,
//! `MapSharedShreddingRowConverter` writes it, `MapSharedShreddingReadPlan` reads it) brought back to a map.
//!
//! The file holds a struct: `__field_mapping` (ARRAY<INT>: the field id each value column holds in this row,
//! -1 for none), the value columns `__col_<i>`, and `__overflow` (MAP<INT, V>: the fields that found no
//! column). Field ids are named through a dictionary in the column's `ARROW:schema` field metadata
//! (`paimon.map.shared-shredding.field-dict`: the JSON object name -> id, compressed as
//! `...field-dict-compression` says, ZSTD when it does not, its bytes held as ISO-8859-1 text). A row's map is its value columns in
//! column order (each column whose id is not -1), then its overflow entries in order; an id the dictionary
//! lacks is left out, as the released reader leaves it.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, MapArray, StringArray, StructArray};
use arrow_schema::{DataType as ArrowType, Field, Fields};

use super::DecodeError;

/// `MapSharedShreddingDefine.FIELD_MAPPING`.
pub(crate) const FIELD_MAPPING: &str = "__field_mapping";
/// `MapSharedShreddingDefine.OVERFLOW`.
const OVERFLOW: &str = "__overflow";
/// `MapSharedShreddingDefine.FIELD_DICT` and the keys that describe it.
const FIELD_DICT: &str = "paimon.map.shared-shredding.field-dict";
const FIELD_DICT_COMPRESSION: &str = "paimon.map.shared-shredding.field-dict-compression";
const FIELD_DICT_ORIGINAL_SIZE: &str = "paimon.map.shared-shredding.field-dict-original-size";
const NUM_COLUMNS: &str = "paimon.map.shared-shredding.num-columns";
const VERSION: &str = "paimon.map.shared-shredding.version";

/// Whether `array` is a MAP stored in the shared-shredding layout (a struct starting with `__field_mapping`).
pub(crate) fn is_shared_shredding(array: &ArrayRef) -> bool {
    matches!(array.data_type(), ArrowType::Struct(fields)
        if fields.first().is_some_and(|f| f.name() == FIELD_MAPPING))
}

/// The logical MAP<STRING, V> of `array` (the physical struct), given the column's field `metadata`.
///
/// Errors: [`DecodeError::Unsupported`] when the metadata lacks the dictionary or names a compression other
/// than `zstd` and `none`; a decode error when the dictionary or a row's field mapping is malformed.
pub(crate) fn to_map(
    array: &ArrayRef,
    metadata: &HashMap<String, String>,
) -> Result<ArrayRef, DecodeError> {
    let source = array.as_struct();
    let names = dictionary(metadata)?;
    let columns = metadata
        .get(NUM_COLUMNS)
        .and_then(|n| n.parse::<usize>().ok())
        .ok_or_else(|| {
            DecodeError::from(format!("shared-shredding MAP without `{NUM_COLUMNS}`"))
        })?;
    let mapping = source
        .column_by_name(FIELD_MAPPING)
        .and_then(|c| c.as_list_opt::<i32>())
        .ok_or_else(|| DecodeError::from("shared-shredding MAP without its field mapping list"))?;
    let ids = arrow_cast::cast(mapping.values(), &ArrowType::Int32).map_err(DecodeError::from)?;
    let ids = ids.as_primitive::<arrow_array::types::Int32Type>();
    let mut sources: Vec<ArrayRef> = Vec::with_capacity(columns + 1);
    for i in 0..columns {
        let column = source
            .column_by_name(&format!("__col_{i}"))
            .ok_or_else(|| {
                DecodeError::from(format!("shared-shredding MAP without `__col_{i}`"))
            })?;
        sources.push(column.clone());
    }
    let overflow = match source.column_by_name(OVERFLOW) {
        Some(o) => Some(o.as_map_opt().cloned().ok_or_else(|| {
            DecodeError::from(format!(
                "shared-shredding `{OVERFLOW}` stored as {}",
                o.data_type()
            ))
        })?),
        None => None,
    };
    let overflow_ids = match &overflow {
        Some(o) => Some(arrow_cast::cast(o.keys(), &ArrowType::Int32).map_err(DecodeError::from)?),
        None => None,
    };
    let value_type = sources
        .first()
        .map(|s| s.data_type().clone())
        .or_else(|| overflow.as_ref().map(|o| o.values().data_type().clone()))
        .ok_or_else(|| {
            DecodeError::from("shared-shredding MAP with neither columns nor overflow")
        })?;
    if let Some(o) = &overflow {
        sources.push(o.values().clone());
    }
    let mut keys: Vec<&str> = Vec::new();
    let mut picks: Vec<(usize, usize)> = Vec::new();
    let mut offsets: Vec<i32> = Vec::with_capacity(source.len() + 1);
    offsets.push(0);
    for row in 0..source.len() {
        if source.is_valid(row) {
            let (from, to) = (
                mapping.value_offsets()[row] as usize,
                mapping.value_offsets()[row + 1] as usize,
            );
            if to - from != columns || mapping.is_null(row) {
                return Err(DecodeError::from(format!(
                    "row {row}: a field mapping of {} entries for {columns} columns",
                    to - from
                )));
            }
            for (column, at) in (from..to).enumerate() {
                if ids.is_null(at) {
                    return Err(DecodeError::from(format!(
                        "row {row}: a NULL field id in the mapping at column {column}"
                    )));
                }
                // -1: the column holds no field in this row.
                let id = ids.value(at);
                if let Some(name) = names.get(&id).filter(|_| id >= 0) {
                    keys.push(name);
                    picks.push((column, row));
                }
            }
            let valid = overflow.as_ref().filter(|o| o.is_valid(row));
            if let (Some(o), Some(ids)) = (valid, &overflow_ids) {
                let ids = ids.as_primitive::<arrow_array::types::Int32Type>();
                for entry in o.value_offsets()[row] as usize..o.value_offsets()[row + 1] as usize {
                    if let Some(name) = names.get(&ids.value(entry)) {
                        keys.push(name);
                        picks.push((columns, entry));
                    }
                }
            }
        }
        offsets.push(i32::try_from(keys.len()).map_err(|_| DecodeError::from("map beyond 2^31"))?);
    }
    let refs: Vec<&dyn Array> = sources.iter().map(|s| s.as_ref()).collect();
    let values = arrow_select::interleave::interleave(&refs, &picks).map_err(DecodeError::from)?;
    let entries = Fields::from(vec![
        Field::new("key", ArrowType::Utf8, false),
        Field::new("value", value_type, true),
    ]);
    let entries = StructArray::try_new(
        entries,
        vec![Arc::new(StringArray::from(keys)) as ArrayRef, values],
        None,
    )
    .map_err(DecodeError::from)?;
    let field = Arc::new(Field::new("entries", entries.data_type().clone(), false));
    MapArray::try_new(
        field,
        arrow::buffer::OffsetBuffer::new(offsets.into()),
        entries,
        source.nulls().cloned(),
        false,
    )
    .map(|a| Arc::new(a) as ArrayRef)
    .map_err(DecodeError::from)
}

/// The field id -> name dictionary of the column's metadata (`MapSharedShreddingUtils.deserializeMetadata`).
fn dictionary(metadata: &HashMap<String, String>) -> Result<HashMap<i32, String>, DecodeError> {
    let text = metadata.get(FIELD_DICT).ok_or_else(|| {
        DecodeError::Unsupported(
            "a shared-shredding MAP without its field dictionary in the file's `ARROW:schema` is not \
             supported"
                .into(),
        )
    })?;
    // The compressed bytes, one char each (`new String(bytes, ISO_8859_1)`).
    let bytes = text
        .chars()
        .map(|c| u8::try_from(u32::from(c)))
        .collect::<Result<Vec<u8>, _>>()
        .map_err(|_| {
            DecodeError::from("a shared-shredding field dictionary that is not ISO-8859-1")
        })?;
    if let Some(v) = metadata.get(VERSION).filter(|v| v.trim() != "1") {
        return Err(DecodeError::Unsupported(format!(
            "shared-shredding MAP layout version {v} (1 is read)"
        )));
    }
    // `normalizeFieldDictCompression`: ZSTD by default, any case. The writer records the table's
    // `file.compression` (none, lz4 or zstd: `SchemaValidation` refuses others for such a table).
    let compression = metadata
        .get(FIELD_DICT_COMPRESSION)
        .map_or_else(|| "zstd".to_owned(), |c| c.to_ascii_lowercase());
    // The dictionary's decompressed size is required (`requiredInt`), and bounds what is decompressed.
    let size = metadata
        .get(FIELD_DICT_ORIGINAL_SIZE)
        .and_then(|s| s.trim().parse::<i32>().ok())
        .and_then(|s| usize::try_from(s).ok())
        .ok_or_else(|| {
            DecodeError::from(format!(
                "a shared-shredding field dictionary without a valid `{FIELD_DICT_ORIGINAL_SIZE}`"
            ))
        })?;
    let json = match compression.as_str() {
        "none" => bytes,
        "zstd" => zstd::bulk::decompress(&bytes, size)
            .map_err(|e| DecodeError::from(format!("shared-shredding field dictionary: {e}")))?,
        "lz4" => lz4_block(&bytes, size)?,
        other => {
            return Err(DecodeError::Unsupported(format!(
                "a shared-shredding field dictionary compressed with `{other}` is not supported"
            )))
        }
    };
    let names: HashMap<String, i32> = serde_json::from_slice(&json)
        .map_err(|e| DecodeError::from(format!("shared-shredding field dictionary: {e}")))?;
    let mut by_id = HashMap::with_capacity(names.len());
    for (name, id) in names {
        if let Some(other) = by_id.insert(id, name.clone()) {
            return Err(DecodeError::from(format!(
                "shared-shredding field dictionary names both `{other}` and `{name}` {id}"
            )));
        }
    }
    Ok(by_id)
}

/// One block of Paimon's `Lz4BlockCompressor`: the compressed and the original length (4 bytes each, little
/// endian), then a raw LZ4 block. Decompressed as `Lz4BlockDecompressor` does into a buffer of `capacity`
/// bytes (the recorded original size): lengths checked as `CompressorUtils.validateLength`, the block
/// required to be whole and to decompress to exactly its original length.
fn lz4_block(bytes: &[u8], capacity: usize) -> Result<Vec<u8>, DecodeError> {
    let corrupt =
        |what: &str| DecodeError::from(format!("shared-shredding field dictionary: {what}"));
    let int_at = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| corrupt("an LZ4 block shorter than its 8-byte header"))
    };
    let (compressed, original) = (int_at(0)?, int_at(4)?);
    if original < 0 || compressed < 0 || (original == 0) != (compressed == 0) {
        return Err(corrupt("an LZ4 block with invalid lengths"));
    }
    let (compressed, original) = (compressed as usize, original as usize);
    if original > capacity {
        return Err(corrupt(
            "an LZ4 block longer than the recorded original size",
        ));
    }
    let block = bytes
        .get(8..8 + compressed)
        .ok_or_else(|| corrupt("an LZ4 block that is not whole"))?;
    let mut out = vec![0u8; capacity];
    let n = lz4_flex::block::decompress_into(block, &mut out)
        .map_err(|e| corrupt(&format!("a corrupt LZ4 block ({e})")))?;
    if n != original {
        return Err(corrupt(
            "an LZ4 block whose length is not the one in its header",
        ));
    }
    out.truncate(n);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use arrow_array::builder::{Int32Builder, ListBuilder, MapBuilder};
    use arrow_array::Int32Array;

    use super::*;

    /// Two value columns and an overflow; rows: {a: 1, c: 3 (overflow)}, NULL, {b: NULL} with an id the
    /// dictionary lacks in column 0.
    fn physical() -> ArrayRef {
        let mut mapping = ListBuilder::new(Int32Builder::new());
        for ids in [[0, -1], [-1, -1], [7, 1]] {
            mapping.values().append_slice(&ids);
            mapping.append(true);
        }
        let col0 = Int32Array::from(vec![Some(1), None, Some(9)]);
        let col1 = Int32Array::from(vec![None, None, None]);
        let mut overflow = MapBuilder::new(None, Int32Builder::new(), Int32Builder::new());
        overflow.keys().append_value(2);
        overflow.values().append_value(3);
        overflow.append(true).unwrap();
        overflow.append(false).unwrap();
        overflow.append(false).unwrap();
        let columns: Vec<ArrayRef> = vec![
            Arc::new(mapping.finish()),
            Arc::new(col0),
            Arc::new(col1),
            Arc::new(overflow.finish()),
        ];
        let fields: Fields = ["__field_mapping", "__col_0", "__col_1", "__overflow"]
            .iter()
            .zip(&columns)
            .map(|(n, c)| Field::new(*n, c.data_type().clone(), true))
            .collect();
        let nulls = arrow::buffer::NullBuffer::from(vec![true, false, true]);
        Arc::new(StructArray::new(fields, columns, Some(nulls)))
    }

    fn metadata(compression: &str) -> HashMap<String, String> {
        let json = br#"{"a":0,"b":1,"c":2}"#;
        let bytes = match compression {
            "zstd" => zstd::stream::encode_all(&json[..], 1).unwrap(),
            "lz4" => lz4_with_header(json),
            _ => json.to_vec(),
        };
        HashMap::from([
            (
                FIELD_DICT.to_owned(),
                bytes.iter().map(|&b| char::from(b)).collect(),
            ),
            (FIELD_DICT_COMPRESSION.to_owned(), compression.to_owned()),
            (NUM_COLUMNS.to_owned(), "2".to_owned()),
            (FIELD_DICT_ORIGINAL_SIZE.to_owned(), json.len().to_string()),
        ])
    }

    /// As `Lz4BlockCompressor` writes a block: compressed and original length, then the raw block.
    fn lz4_with_header(data: &[u8]) -> Vec<u8> {
        let block = lz4_flex::block::compress(data);
        let mut out = (block.len() as i32).to_le_bytes().to_vec();
        out.extend_from_slice(&(data.len() as i32).to_le_bytes());
        out.extend_from_slice(&block);
        out
    }

    #[test]
    fn rows_are_their_columns_then_their_overflow() {
        for compression in ["none", "zstd"] {
            let map = to_map(&physical(), &metadata(compression)).unwrap();
            let map = map.as_map();
            assert!(map.is_valid(0) && map.is_null(1) && map.is_valid(2));
            let row = |i: usize| {
                let entries = map.value(i);
                let keys = entries.column(0).as_string::<i32>().clone();
                let values = entries
                    .column(1)
                    .as_primitive::<arrow_array::types::Int32Type>()
                    .clone();
                (0..keys.len())
                    .map(|j| {
                        (
                            keys.value(j).to_owned(),
                            values.is_valid(j).then(|| values.value(j)),
                        )
                    })
                    .collect::<Vec<_>>()
            };
            assert_eq!(row(0), vec![("a".into(), Some(1)), ("c".into(), Some(3))]);
            // Id 7 is not in the dictionary: left out, as the released reader leaves it.
            assert_eq!(row(2), vec![("b".into(), None)]);
        }
    }

    #[test]
    fn an_lz4_dictionary_reads_as_lz4_block_decompressor_does() {
        let lz4 = metadata("lz4");
        assert_eq!(
            dictionary(&lz4).unwrap(),
            HashMap::from([(0, "a".into()), (1, "b".into()), (2, "c".into())])
        );
        let with_dict = |bytes: Vec<u8>| {
            let mut m = lz4.clone();
            m.insert(
                FIELD_DICT.to_owned(),
                bytes.iter().map(|&b| char::from(b)).collect(),
            );
            dictionary(&m)
        };
        let good = lz4_with_header(br#"{"a":0,"b":1,"c":2}"#);
        // A header whose original length is not what the block decompresses to, a cut block, a block
        // longer than the recorded size, and a header alone with one length zero.
        let mut wrong_length = good.clone();
        wrong_length[4] -= 1;
        let cut = good[..good.len() - 1].to_vec();
        let mut too_long = lz4.clone();
        too_long.insert(FIELD_DICT_ORIGINAL_SIZE.to_owned(), "3".to_owned());
        for bad in [
            with_dict(wrong_length),
            with_dict(cut),
            dictionary(&too_long),
            with_dict(vec![0, 0, 0, 0, 5, 0, 0, 0]),
            with_dict(vec![1, 2]),
        ] {
            assert!(matches!(bad, Err(DecodeError::Invalid(_))), "{bad:?}");
        }
    }

    #[test]
    fn a_missing_dictionary_or_original_size_is_refused() {
        assert!(matches!(
            to_map(&physical(), &HashMap::new()),
            Err(DecodeError::Unsupported(_))
        ));
        let mut no_size = metadata("zstd");
        no_size.remove(FIELD_DICT_ORIGINAL_SIZE);
        assert!(matches!(dictionary(&no_size), Err(DecodeError::Invalid(_))));
        let mut snappy = metadata("none");
        snappy.insert(FIELD_DICT_COMPRESSION.to_owned(), "snappy".to_owned());
        assert!(matches!(
            dictionary(&snappy),
            Err(DecodeError::Unsupported(_))
        ));
    }
}
