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
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::{ArrayRef, RecordBatch};
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ProjectionMask;

use super::conform::{conform_batch, parquet_row_nulls};
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
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| Error::library(ErrorKind::Decode, path, "not a readable Parquet file", e))?;
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
            assert_eq!(a.data_type(), &field_arrow_type(&c.data_type, c.id));
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

    #[test]
    fn not_parquet_is_a_decode_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data-1.parquet");
        std::fs::write(&path, b"PAR1 not really").unwrap();
        let err = open(&path, &[], 16).err().unwrap().to_string();
        assert!(err.contains("data-1.parquet"), "{err}");
    }
}
