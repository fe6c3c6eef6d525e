//! Parquet data files (paimon-format `ParquetReaderFactory`), decoded with the `parquet` crate's Arrow
//! reader and brought to Paimon's Arrow types by [`super::conform`].
//!
//! Physical encodings handled (what 1.0 writers produce, `ParquetSchemaConverter`, and what its reader
//! accepts): decimals in INT32, INT64, FIXED_LEN_BYTE_ARRAY and BINARY; timestamps as INT64 MILLIS/MICROS
//! (and NANOS) and INT96 (12 bytes: nanos of day, Julian day; Paimon's formula `millis = (day - 2440588) *
//! 86400000 + nanos / 10^6`, `nanoOfMilli = nanos % 10^6` gives the same epoch nanoseconds as the crate's
//! conversion); TINYINT/SMALLINT as annotated INT32; 3-level LIST and MAP groups; nested groups for ROW.
//! Compression: whatever the file says (zstd, lz4, snappy, gzip, none — all enabled in the workspace).
//!
//! Columns are matched **by name** in the file (as the 1.0 reader does); a name the file lacks reads as NULL.
//!
//! One quirk of the 1.0 reader is reproduced: a ROW (at any depth) whose fields are all NULL is read as a
//! NULL row ([`super::conform::parquet_row_nulls`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::ProjectionMask;
use parquet::file::reader::ChunkReader;

use super::conform::{conform_batch, parquet_row_nulls};
use super::mapped::{self, DataFile};
use super::{FileColumn, FormatReader, RawBatches};
use crate::error::{Error, ErrorKind, Result};

/// The Parquet [`FormatReader`] (paimon-format `ParquetReaderFactory`): [`open`].
pub(crate) struct ParquetReader;

impl FormatReader for ParquetReader {
    fn open(&self, path: &Path, columns: &[FileColumn], batch_size: usize) -> Result<RawBatches> {
        open(path, columns, batch_size)
    }
}

/// Opens a Parquet file and decodes `columns` (see [`FileColumn`]) in batches of `batch_size` rows.
///
/// Errors: [`Error::Io`] when the file cannot be opened, [`Error::Decode`] naming it when it is not
/// readable Parquet or a column cannot be brought to its Paimon type.
pub(crate) fn open(path: &Path, columns: &[FileColumn], batch_size: usize) -> Result<RawBatches> {
    match mapped::open(path)? {
        DataFile::Mapped(bytes) => open_with(bytes, path, columns, batch_size),
        DataFile::Read(file) => open_with(file, path, columns, batch_size),
    }
}

/// [`open`] of a file opened as `input` (its bytes mapped, or the file read).
fn open_with<T: ChunkReader + 'static>(
    input: T,
    path: &Path,
    columns: &[FileColumn],
    batch_size: usize,
) -> Result<RawBatches> {
    let metadata = ArrowReaderMetadata::load(&input, ArrowReaderOptions::new())
        .map_err(|e| Error::library(ErrorKind::Decode, path, "not a readable Parquet file", e))?;
    // Top-level string and binary columns decode straight into views of the pages' bytes (the native
    // reader's type for them, `crate::types` "String views").
    let view_columns: Vec<&str> = columns
        .iter()
        .filter(|c| c.views)
        .map(|c| c.name.as_str())
        .collect();
    let metadata = match views_hint(metadata.schema(), &view_columns) {
        Some(hint) => ArrowReaderMetadata::try_new(
            metadata.metadata().clone(),
            ArrowReaderOptions::new().with_schema(hint),
        )
        .map_err(|e| Error::library(ErrorKind::Decode, path, "", e))?,
        None => metadata,
    };
    let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(input, metadata);
    let by_name: HashMap<&str, usize> = builder
        .schema()
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name().as_str(), i))
        .collect();
    let roots: Vec<Option<usize>> = columns
        .iter()
        .map(|c| by_name.get(c.name.as_str()).copied())
        .collect();
    // The projection returns the selected roots in file order.
    let mut wanted: Vec<usize> = roots.iter().flatten().copied().collect();
    wanted.sort_unstable();
    wanted.dedup();
    let positions: Vec<Option<usize>> = roots
        .iter()
        .map(|r| r.and_then(|root| wanted.iter().position(|w| *w == root)))
        .collect();
    let mask = ProjectionMask::roots(builder.parquet_schema(), wanted.iter().copied());
    let reader = builder
        .with_projection(mask)
        .with_batch_size(batch_size)
        .build()
        .map_err(|e| Error::library(ErrorKind::Decode, path, "", e))?;
    Ok(Box::new(ParquetBatches {
        path: path.to_path_buf(),
        reader,
        columns: columns.to_vec(),
        positions,
    }))
}

/// `schema` (a file's Arrow schema as the parquet crate infers it) with each top-level `Utf8`/`LargeUtf8`
/// column named in `names` as `Utf8View` and `Binary`/`LargeBinary` as `BinaryView`; `None` when that
/// changes nothing.
fn views_hint(schema: &SchemaRef, names: &[&str]) -> Option<SchemaRef> {
    let mut changed = false;
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            if !names.contains(&f.name().as_str()) {
                return f.as_ref().clone();
            }
            let view = match f.data_type() {
                ArrowType::Utf8 | ArrowType::LargeUtf8 => ArrowType::Utf8View,
                ArrowType::Binary | ArrowType::LargeBinary => ArrowType::BinaryView,
                _ => return f.as_ref().clone(),
            };
            changed = true;
            f.as_ref().clone().with_data_type(view)
        })
        .collect();
    changed.then(|| Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone())))
}

struct ParquetBatches {
    path: PathBuf,
    reader: ParquetRecordBatchReader,
    columns: Vec<FileColumn>,
    positions: Vec<Option<usize>>,
}

impl ParquetBatches {
    fn convert(&self, batch: RecordBatch) -> Result<(usize, Vec<ArrayRef>)> {
        conform_batch(
            &batch,
            &self.columns,
            &self.positions,
            &self.path,
            parquet_row_nulls,
        )
    }
}

impl Iterator for ParquetBatches {
    type Item = Result<(usize, Vec<ArrayRef>)>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.reader.next()? {
            Ok(batch) => Some(self.convert(batch)),
            Err(e) => Some(Err(Error::library(ErrorKind::Decode, &self.path, "", e))),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs::File;
    use std::sync::Arc;

    use crate::types::field_arrow_type;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Decimal128Type, TimestampNanosecondType};
    use arrow_array::Array;
    use parquet::data_type::{ByteArray, ByteArrayType, FixedLenByteArray, FixedLenByteArrayType};
    use parquet::data_type::{Int32Type, Int64Type, Int96, Int96Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    use super::*;
    use crate::schema::parse_atomic;

    fn column(id: i32, name: &str, t: &str) -> FileColumn {
        FileColumn {
            name: name.into(),
            id,
            data_type: parse_atomic(t).unwrap(),
            views: true,
            variant_shredding: true,
            map_shredding: true,
        }
    }

    /// Decimals in each physical encoding a reader must accept (Paimon writes INT32, INT64 and
    /// FIXED_LEN_BYTE_ARRAY; other writers also BINARY), and INT96 timestamps.
    #[test]
    fn decimals_in_every_physical_encoding_and_int96() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data-0.parquet");
        let schema = parse_message_type(
            "message paimon_schema {
               optional binary d1 (DECIMAL(10, 2));
               optional int32 d2 (DECIMAL(5, 2));
               optional int64 d3 (DECIMAL(15, 2));
               optional fixed_len_byte_array(9) d4 (DECIMAL(20, 2));
               optional int96 t9;
             }",
        )
        .unwrap();
        let file = File::create(&path).unwrap();
        let mut writer = SerializedFileWriter::new(
            file,
            Arc::new(schema),
            Arc::new(WriterProperties::builder().build()),
        )
        .unwrap();
        let mut rg = writer.next_row_group().unwrap();
        let defs = [1i16, 1, 0];
        // -12345 (0xCFC7) and 1 as minimal big-endian two's complement.
        let mut c = rg.next_column().unwrap().unwrap();
        c.typed::<ByteArrayType>()
            .write_batch(
                &[
                    ByteArray::from(vec![0xCF, 0xC7]),
                    ByteArray::from(vec![0x01]),
                ],
                Some(&defs),
                None,
            )
            .unwrap();
        c.close().unwrap();
        let mut c = rg.next_column().unwrap().unwrap();
        c.typed::<Int32Type>()
            .write_batch(&[-12345, 1], Some(&defs), None)
            .unwrap();
        c.close().unwrap();
        let mut c = rg.next_column().unwrap().unwrap();
        c.typed::<Int64Type>()
            .write_batch(&[-12345, 1], Some(&defs), None)
            .unwrap();
        c.close().unwrap();
        let mut c = rg.next_column().unwrap().unwrap();
        let mut neg = vec![0xFF; 9];
        neg[7] = 0xCF;
        neg[8] = 0xC7;
        let mut one = vec![0; 9];
        one[8] = 1;
        c.typed::<FixedLenByteArrayType>()
            .write_batch(
                &[FixedLenByteArray::from(neg), FixedLenByteArray::from(one)],
                Some(&defs),
                None,
            )
            .unwrap();
        c.close().unwrap();
        let mut c = rg.next_column().unwrap().unwrap();
        // (nanos of day, Julian day): 1970-01-01 + 1 ns, and 1969-12-31 23:59:59.999999999.
        let mut a = Int96::new();
        a.set_data(1, 0, 2_440_588);
        let mut b = Int96::new();
        let nanos: u64 = 86_400_000_000_000 - 1;
        b.set_data(nanos as u32, (nanos >> 32) as u32, 2_440_587);
        c.typed::<Int96Type>()
            .write_batch(&[a, b], Some(&defs), None)
            .unwrap();
        c.close().unwrap();
        rg.close().unwrap();
        writer.close().unwrap();

        let columns = [
            column(1, "d1", "DECIMAL(10, 2)"),
            column(2, "d2", "DECIMAL(5, 2)"),
            column(3, "d3", "DECIMAL(15, 2)"),
            column(4, "d4", "DECIMAL(20, 2)"),
            column(5, "t9", "TIMESTAMP(9)"),
            column(6, "missing", "INT"),
        ];
        let mut batches = open(&path, &columns, 16).unwrap();
        let (rows, arrays) = batches.next().unwrap().unwrap();
        assert_eq!(rows, 3);
        for (i, c) in columns.iter().enumerate().take(4) {
            let a = arrays[i].as_primitive::<Decimal128Type>();
            assert_eq!(a.data_type(), &field_arrow_type(&c.data_type, c.id, true));
            assert_eq!(
                (a.value(0), a.value(1), a.is_null(2)),
                (-12345, 1, true),
                "{}",
                c.name
            );
        }
        let t = arrays[4].as_primitive::<TimestampNanosecondType>();
        assert_eq!((t.value(0), t.value(1), t.is_null(2)), (1, -1, true));
        assert_eq!(arrays[5].null_count(), 3);
        assert!(batches.next().is_none());
    }

    fn typed_column(id: i32, name: &str, json: serde_json::Value) -> FileColumn {
        FileColumn {
            name: name.into(),
            id,
            data_type: crate::schema::parse_type(&json).unwrap(),
            views: true,
            variant_shredding: true,
            map_shredding: true,
        }
    }

    /// Writes one row group of `message` where each leaf column gets (values, def levels, rep levels).
    fn write_byte_and_float_columns(path: &Path, message: &str, leaves: Vec<LeafData>) {
        let schema = parse_message_type(message).unwrap();
        let file = File::create(path).unwrap();
        let mut writer = SerializedFileWriter::new(
            file,
            Arc::new(schema),
            Arc::new(WriterProperties::builder().build()),
        )
        .unwrap();
        let mut rg = writer.next_row_group().unwrap();
        for leaf in leaves {
            let mut c = rg.next_column().unwrap().unwrap();
            match leaf {
                LeafData::Bytes(values, defs, reps) => {
                    let values: Vec<ByteArray> = values.into_iter().map(ByteArray::from).collect();
                    c.typed::<ByteArrayType>()
                        .write_batch(&values, Some(&defs), reps.as_deref())
                        .unwrap();
                }
                LeafData::Float(values, defs, reps) => {
                    c.typed::<parquet::data_type::FloatType>()
                        .write_batch(&values, Some(&defs), reps.as_deref())
                        .unwrap();
                }
            }
            c.close().unwrap();
        }
        rg.close().unwrap();
        writer.close().unwrap();
    }

    enum LeafData {
        Bytes(Vec<Vec<u8>>, Vec<i16>, Option<Vec<i16>>),
        Float(Vec<f32>, Vec<i16>, Option<Vec<i16>>),
    }

    /// VARIANT and VECTOR as 2.0's `ParquetSchemaConverter` writes them: VARIANT a group of required
    /// `value` (id 0) and `metadata` (id 1) binaries; VECTOR<FLOAT NOT NULL, 2> a 3-level LIST.
    #[test]
    fn variant_groups_and_vector_lists_of_2_0_writers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data-v.parquet");
        write_byte_and_float_columns(
            &path,
            "message paimon_schema {
               optional group j = 2 { required binary value = 0; required binary metadata = 1; }
               optional group e (LIST) = 5 { repeated group list { required float element = 536875032; } }
             }",
            vec![
                // Rows: {value 0x0C 0x01, metadata 01 00 00}, NULL, {value 0x00, metadata 01 00 00}.
                LeafData::Bytes(vec![vec![0x0C, 0x01], vec![0x00]], vec![1, 0, 1], None),
                LeafData::Bytes(vec![vec![1, 0, 0], vec![1, 0, 0]], vec![1, 0, 1], None),
                // Rows: [1, 2], NULL, [3, 4].
                LeafData::Float(
                    vec![1.0, 2.0, 3.0, 4.0],
                    vec![2, 2, 0, 2, 2],
                    Some(vec![0, 1, 0, 0, 1]),
                ),
            ],
        );
        let columns = [
            typed_column(2, "j", serde_json::json!("VARIANT")),
            typed_column(
                5,
                "e",
                serde_json::json!({"type": "VECTOR", "element": "FLOAT NOT NULL", "length": 2}),
            ),
        ];
        let mut batches = open(&path, &columns, 16).unwrap();
        let (rows, arrays) = batches.next().unwrap().unwrap();
        assert_eq!(rows, 3);
        assert_eq!(
            arrays[0].data_type(),
            &field_arrow_type(&columns[0].data_type, 2, true)
        );
        let j = arrays[0].as_struct();
        assert_eq!(j.fields()[0].name(), "value");
        assert_eq!(j.fields()[1].name(), "metadata");
        assert!(!j.fields()[0].is_nullable() && !j.fields()[1].is_nullable());
        assert!(j.is_valid(0) && j.is_null(1) && j.is_valid(2));
        let value = j.column(0).as_binary::<i32>();
        let metadata = j.column(1).as_binary::<i32>();
        assert_eq!(
            (value.value(0), value.value(2)),
            (&[0x0C, 0x01][..], &[0x00][..])
        );
        assert_eq!(metadata.value(0), &[1, 0, 0]);

        assert_eq!(
            arrays[1].data_type(),
            &field_arrow_type(&columns[1].data_type, 5, true)
        );
        let e = arrays[1].as_fixed_size_list();
        assert_eq!(e.value_length(), 2);
        assert_eq!(
            e.data_type().to_string(),
            field_arrow_type(&columns[1].data_type, 5, true).to_string()
        );
        let arrow_schema::DataType::FixedSizeList(child, 2) = e.data_type() else {
            panic!("{:?}", e.data_type())
        };
        assert_eq!(child.name(), crate::types::LIST_ELEMENT_NAME);
        assert_eq!(
            child.metadata()["PARQUET:field_id"],
            (536870911 + 5 * 1024 + 1).to_string()
        );
        assert!(e.is_valid(0) && e.is_null(1) && e.is_valid(2));
        let floats = e.values().as_primitive::<arrow_array::types::Float32Type>();
        assert_eq!((floats.value(0), floats.value(1)), (1.0, 2.0));
        assert_eq!((floats.value(4), floats.value(5)), (3.0, 4.0));
    }

    #[test]
    fn shredded_variants_are_rebuilt_and_short_vectors_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data-s.parquet");
        write_byte_and_float_columns(
            &path,
            "message paimon_schema {
               optional group j = 2 { required binary metadata; optional binary value; optional binary typed_value (STRING); }
             }",
            vec![
                LeafData::Bytes(vec![vec![1, 0, 0]], vec![1], None),
                LeafData::Bytes(vec![], vec![1], None),
                LeafData::Bytes(vec![b"x".to_vec()], vec![2], None),
            ],
        );
        let mut columns = [typed_column(2, "j", serde_json::json!("VARIANT"))];
        // From 1.3.0 the typed string is rebuilt: a short string "x" and an empty dictionary.
        let (_, arrays) = open(&path, &columns, 16).unwrap().next().unwrap().unwrap();
        let variant = arrays[0].as_struct();
        let value = variant.column_by_name("value").unwrap().as_binary::<i32>();
        let metadata = variant
            .column_by_name("metadata")
            .unwrap()
            .as_binary::<i32>();
        assert_eq!(
            (value.value(0), metadata.value(0)),
            (&[0x05, b'x'][..], &[1, 0, 0][..])
        );
        // Before 1.3.0 the release reads `value` and `metadata` alone: refused.
        columns[0].variant_shredding = false;
        let err = open(&path, &columns, 16)
            .unwrap()
            .next()
            .unwrap()
            .err()
            .unwrap();
        assert!(matches!(err, Error::Unsupported { .. }), "{err}");
        let text = err.to_string();
        assert!(
            text.contains("`j`") && text.contains("shredded") && text.contains("data-s.parquet"),
            "{text}"
        );

        let path = dir.path().join("data-short.parquet");
        write_byte_and_float_columns(
            &path,
            "message paimon_schema {
               optional group e (LIST) { repeated group list { required float element; } }
             }",
            // One row holding [1] where VECTOR length is 2.
            vec![LeafData::Float(vec![1.0], vec![2], Some(vec![0]))],
        );
        let columns = [typed_column(
            5,
            "e",
            serde_json::json!({"type": "VECTOR", "element": "FLOAT NOT NULL", "length": 2}),
        )];
        let err = open(&path, &columns, 16)
            .unwrap()
            .next()
            .unwrap()
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("`e`") && err.contains("length 2") && err.contains("1 elements"),
            "{err}"
        );
    }

    #[test]
    fn not_parquet_is_a_decode_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data-1.parquet");
        std::fs::write(&path, b"PAR1 not really").unwrap();
        let err = open(&path, &[], 16).err().unwrap().to_string();
        assert!(err.contains("data-1.parquet"), "{err}");
    }
}
