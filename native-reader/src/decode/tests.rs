//! Unit tests of reading one file: field-id mapping, deletion vectors, sequence numbers, formats.

use ::parquet::arrow::ArrowWriter;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::Int32Array;

use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};

use super::*;
use crate::split::{DataFileDesc, DeletionFileDesc};
use crate::table::Table;

/// An append table (`id INT`, `s STRING`) with one Parquet data file holding ids 0..10.
fn table_with_file(dir: &Path) -> (Arc<Table>, String, DataFileDesc) {
    std::fs::create_dir_all(dir.join("schema")).unwrap();
    std::fs::write(
        dir.join("schema/schema-0"),
        r#"{"version":3,"id":0,"fields":[{"id":0,"name":"id","type":"INT"},{"id":1,"name":"s","type":"STRING"}],
           "highestFieldId":1,"partitionKeys":[],"primaryKeys":[],"options":{}}"#,
    )
    .unwrap();
    let bucket = dir.join("bucket-0");
    std::fs::create_dir_all(&bucket).unwrap();
    // Written with the old name `id` only: `s` was added later and reads as NULL.
    let ids: ArrayRef = Arc::new(Int32Array::from_iter_values(0..10));
    let batch = RecordBatch::try_from_iter([("id", ids)]).unwrap();
    let file = std::fs::File::create(bucket.join("data-x-0.parquet")).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let desc = DataFileDesc {
        file_size: 0,
        min_sequence_number: 100,
        ..DataFileDesc::for_test("data-x-0.parquet", 10, 109)
    };
    let table = Arc::new(Table::open(dir).unwrap());
    (table, bucket.to_string_lossy().into_owned(), desc)
}

/// A 32-bit deletion vector record (after a version byte) deleting `positions` (< 2^16).
fn dv_index(dir: &Path, positions: &[u16]) -> DeletionFileDesc {
    let mut body = crate::deletion_vector::BITMAP32_MAGIC
        .to_be_bytes()
        .to_vec();
    body.extend_from_slice(&[0x3A, 0x30, 0, 0, 1, 0, 0, 0]); // cookie 12346, one container
    body.extend_from_slice(&0u16.to_le_bytes()); // key 0
    body.extend_from_slice(&(positions.len() as u16 - 1).to_le_bytes());
    body.extend_from_slice(&16u32.to_le_bytes()); // container offset
    for p in positions {
        body.extend_from_slice(&p.to_le_bytes());
    }
    let mut file = vec![1u8];
    file.extend_from_slice(&(body.len() as i32).to_be_bytes());
    file.extend_from_slice(&body);
    file.extend_from_slice(&[0, 0, 0, 0]);
    let path = dir.join("index-dv-0");
    std::fs::write(&path, &file).unwrap();
    DeletionFileDesc {
        path: path.to_string_lossy().into_owned(),
        offset: 1,
        length: body.len() as i64,
        cardinality: Some(positions.len() as i64),
    }
}

#[test]
fn read_file_maps_by_id_applies_deletion_vectors_and_adds_sequence_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let (table, bucket, file) = table_with_file(dir.path());
    let dv = dv_index(dir.path(), &[0, 3, 4, 9]);
    let options = FileReadOptions {
        with_sequence_number: true,
        batch_size: 4,
        raw_table_read: false,
    };
    let batches: Vec<RecordBatch> = read_file(&table, &bucket, &file, Some(&dv), &options)
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    assert!(batches
        .iter()
        .all(|b| b.num_rows() > 0 && b.num_rows() <= 4));
    let mut ids = Vec::new();
    let mut seqs = Vec::new();
    for b in &batches {
        assert_eq!(b.schema().field(0).name(), SEQUENCE_NUMBER_COLUMN);
        assert_eq!(b.schema().field(1).name(), "_row_kind");
        assert!(b
            .column(1)
            .as_primitive::<arrow_array::types::Int8Type>()
            .values()
            .iter()
            .all(|k| *k == 0));
        assert_eq!(b.column(3).null_count(), b.num_rows());
        ids.extend(
            b.column(2)
                .as_primitive::<Int32Type>()
                .values()
                .iter()
                .copied(),
        );
        seqs.extend(
            b.column(0)
                .as_primitive::<Int64Type>()
                .values()
                .iter()
                .copied(),
        );
    }
    assert_eq!(ids, vec![1, 2, 5, 6, 7, 8]);
    assert_eq!(seqs, vec![101, 102, 105, 106, 107, 108]);
    // Without options: no sequence number column.
    let plain = read_file(&table, &bucket, &file, None, &FileReadOptions::default()).unwrap();
    assert_eq!(plain.schema().fields().len(), 3);
    assert_eq!(plain.map(|b| b.unwrap().num_rows()).sum::<usize>(), 10);
}

#[test]
fn deletion_vector_beyond_the_file_is_an_error_naming_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let (table, bucket, file) = table_with_file(dir.path());
    let dv = dv_index(dir.path(), &[2, 10]);
    let err = read_file(
        &table,
        &bucket,
        &file,
        Some(&dv),
        &FileReadOptions::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        err.contains("index-dv-0") && err.contains("data-x-0.parquet"),
        "{err}"
    );
    // A file shorter than its manifest entry says: caught when the file ends.
    let lying = DataFileDesc {
        row_count: 11,
        ..file
    };
    let results: Vec<_> = read_file(
        &table,
        &bucket,
        &lying,
        Some(&dv),
        &FileReadOptions::default(),
    )
    .unwrap()
    .collect();
    let last = results.last().unwrap().as_ref().unwrap_err().to_string();
    assert!(
        last.contains("data-x-0.parquet") && last.contains("manifest entry records 11"),
        "{last}"
    );
}

#[test]
fn unknown_formats_are_refused_by_name() {
    let path = Path::new("/t/bucket-0/data-1.mosaic");
    let err = FileFormat::of("data-1.mosaic", path)
        .unwrap_err()
        .to_string();
    assert!(err.contains("data-1.mosaic"));
    assert_eq!(
        FileFormat::of("data-1.zstd.orc", path).unwrap(),
        FileFormat::Orc
    );
    assert_eq!(
        FileFormat::of("changelog-1.AVRO", path).unwrap(),
        FileFormat::Avro
    );
}

/// A 2.0 layout end to end: the data file lives at its `_EXTERNAL_PATH` (a `file:` URI outside the table)
/// and its deletion vector is in the bitmap64 form (`length` = the whole entry).
#[test]
fn read_file_follows_external_paths_and_reads_bitmap64_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let (table, bucket, file) = table_with_file(dir.path());
    let external_dir = tempfile::tempdir().unwrap();
    let moved = external_dir.path().join("data-x-0.parquet");
    std::fs::rename(Path::new(&bucket).join(&file.file_name), &moved).unwrap();
    let file = DataFileDesc {
        external_path: Some(format!("file:{}", moved.display())),
        first_row_id: None,
        write_cols: None,
        file_source: None,
        ..file
    };
    // int32 BE len · magic D1 D3 39 64 · int64 LE 1 bitmap · int32 LE key 0 · Roaring32 {2, 7} · CRC.
    let mut body = vec![0xD1, 0xD3, 0x39, 0x64];
    body.extend_from_slice(&1i64.to_le_bytes());
    body.extend_from_slice(&0i32.to_le_bytes());
    body.extend_from_slice(&[
        0x3A, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 2, 0, 7, 0,
    ]);
    let mut index = vec![1u8];
    index.extend_from_slice(&(body.len() as i32).to_be_bytes());
    index.extend_from_slice(&body);
    index.extend_from_slice(&[0, 0, 0, 0]);
    let index_path = external_dir.path().join("index-64-0");
    std::fs::write(&index_path, &index).unwrap();
    let dv = DeletionFileDesc {
        path: index_path.to_string_lossy().into_owned(),
        offset: 1,
        length: 4 + body.len() as i64 + 4,
        cardinality: Some(2),
    };
    let ids: Vec<i32> = read_file(
        &table,
        &bucket,
        &file,
        Some(&dv),
        &FileReadOptions::default(),
    )
    .unwrap()
    .flat_map(|b| {
        b.unwrap()
            .column(1)
            .as_primitive::<Int32Type>()
            .values()
            .to_vec()
    })
    .collect();
    assert_eq!(ids, vec![0, 1, 3, 4, 5, 6, 8, 9]);
    // An external path on a file system this reader has no FileIO for is refused, naming it.
    let remote = DataFileDesc {
        external_path: Some("oss://bucket/data-x-0.parquet".into()),
        first_row_id: None,
        write_cols: None,
        file_source: None,
        ..file
    };
    let err = read_file(&table, &bucket, &remote, None, &FileReadOptions::default())
        .err()
        .unwrap();
    assert!(matches!(err, crate::Error::Unsupported { .. }), "{err}");
    assert!(
        err.to_string().contains("oss://bucket/data-x-0.parquet"),
        "{err}"
    );
}
