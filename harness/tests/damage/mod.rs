//! Tables to damage and the ways to damage them, for the bad-input and JVM-fault tests.
//!
//! Base tables are the committed corpora (copied, never touched in place) and a few small tables written
//! here with the released writer (`jvm_bridge::CorpusWriter`) for what the corpora do not have: ORC data
//! files, deletion vectors, a huge value. Every damage works on a copy in a temporary directory and
//! returns the name of the file it damaged, which the readers' errors must name.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use arrow_array::{Int32Array, RecordBatch, UInt32Array};
use jvm_bridge::CorpusWriter;
use native_reader::snapshot::Snapshot;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding};
use parquet::file::properties::WriterProperties;

use crate::common;

/// A directory for generated base tables, under the cargo target directory (recreated per test process).
pub fn generated_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("damage-bases-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create the generated-table directory");
        dir
    })
    .clone()
}

/// A fresh copy of `table` in a new temporary directory: `(guard, copy)`.
pub fn copy_of(table: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let copy = dir.path().join("table");
    common::copy_tree(table, &copy);
    (dir, copy)
}

/// The committed C00 control table: `(k INT, v INT)`, full-compaction changelog, 4 snapshots.
pub fn c00() -> PathBuf {
    common::corpus("c00-full-compaction-control").join("table")
}

/// The committed partitioned lookup table: 3 partitions, 4 buckets, 24 snapshots.
pub fn lookup() -> PathBuf {
    common::corpus("lookup-partitioned").join("table")
}

/// Writes with the released writer serialise on this lock (one JVM per process, shared by test threads).
static WRITER: Mutex<()> = Mutex::new(());

fn write_table(name: &str, schema: &str, commits: &[(&str, bool)]) -> PathBuf {
    let _guard = WRITER.lock().unwrap_or_else(|p| p.into_inner());
    let dir = generated_dir().join(name);
    let io = generated_dir().join(format!("{name}-io"));
    fs::create_dir_all(&io).unwrap();
    CorpusWriter::create_table(&dir, schema).expect("create table");
    let writer = CorpusWriter::open(&dir, "damage-base", &io).expect("open writer");
    for (i, (rows, compact)) in commits.iter().enumerate() {
        writer.write(rows).expect("write");
        if *compact {
            writer.compact("[]", 0, true).expect("compact");
        }
        writer.commit(i as i64 + 1, true).expect("commit");
    }
    writer.close().expect("close writer");
    dir
}

/// A primary-key table in ORC, `changelog-producer=none`: two APPEND snapshots of 3 and 2 rows.
pub fn orc_table() -> PathBuf {
    static T: OnceLock<PathBuf> = OnceLock::new();
    T.get_or_init(|| {
        write_table(
            "orc",
            r#"{"fields":[{"name":"k","type":"INT NOT NULL"},{"name":"v","type":"STRING"}],
                "primaryKeys":["k"],"options":{"bucket":"1","file.format":"orc"}}"#,
            &[
                (
                    r#"[{"kind":"+I","values":[1,"a"]},{"kind":"+I","values":[2,"b"]},{"kind":"+I","values":[3,"c"]}]"#,
                    false,
                ),
                (
                    r#"[{"kind":"+I","values":[4,"d"]},{"kind":"+I","values":[5,"e"]}]"#,
                    false,
                ),
            ],
        )
    })
    .clone()
}

/// A primary-key table with deletion vectors: 10 keys fully compacted to the top level, then an update of
/// key 3 and a delete of key 5 compacted, which marks their old rows deleted in a deletion vector.
pub fn dv_table() -> PathBuf {
    static T: OnceLock<PathBuf> = OnceLock::new();
    T.get_or_init(|| {
        let first: Vec<String> = (1..=10)
            .map(|k| format!(r#"{{"kind":"+I","values":[{k},"v{k}"]}}"#))
            .collect();
        let first = format!("[{}]", first.join(","));
        write_table(
            "dv",
            r#"{"fields":[{"name":"k","type":"INT NOT NULL"},{"name":"v","type":"STRING"}],
                "primaryKeys":["k"],"options":{"bucket":"1","deletion-vectors.enabled":"true"}}"#,
            &[
                (&first, true),
                (
                    r#"[{"kind":"+U","values":[3,"v3-new"]},{"kind":"-D","values":[5,"v5"]}]"#,
                    false,
                ),
            ],
        )
    })
    .clone()
}

/// An append table with one row holding a `mb` MiB string, in Parquet without compression, so that
/// reading it needs far more heap than a small `-Xmx`.
pub fn huge_value_table(mb: usize) -> PathBuf {
    static T: OnceLock<PathBuf> = OnceLock::new();
    T.get_or_init(|| {
        let big = "x".repeat(mb << 20);
        let rows = format!(r#"[{{"kind":"+I","values":[1,"{big}"]}}]"#);
        write_table(
            "huge",
            r#"{"fields":[{"name":"k","type":"INT"},{"name":"v","type":"STRING"}],
                "options":{"bucket":"-1","file.compression":"uncompressed","parquet.enable.dictionary":"false"}}"#,
            &[(&rows, false)],
        )
    })
    .clone()
}

/// Snapshot `id` of `table`.
pub fn snapshot(table: &Path, id: i64) -> Snapshot {
    Snapshot::read(&table.join("snapshot").join(format!("snapshot-{id}"))).expect("snapshot")
}

/// The manifest files named by manifest list `list` of `table`.
pub fn manifests_of(table: &Path, list: &str) -> Vec<String> {
    native_reader::manifest::read_manifest_list(&table.join("manifest").join(list))
        .expect("manifest list")
        .into_iter()
        .map(|m| m.file_name)
        .collect()
}

/// Every file under `dir` whose name starts with `prefix`, sorted.
pub fn files_with_prefix(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The file name of `p`.
pub fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// Keeps the first `fraction` of the bytes of `p`.
pub fn truncate(p: &Path, fraction: f64) {
    let bytes = fs::read(p).unwrap();
    let keep = ((bytes.len() as f64) * fraction) as usize;
    fs::write(p, &bytes[..keep]).unwrap();
}

/// Overwrites `len` bytes of `p` at `at` with a fixed garbage pattern.
pub fn scribble(p: &Path, at: usize, len: usize) {
    let mut bytes = fs::read(p).unwrap();
    for (i, b) in bytes.iter_mut().skip(at).take(len).enumerate() {
        *b = [0xDE, 0xAD, 0xBE, 0xEF][i % 4];
    }
    fs::write(p, bytes).unwrap();
}

fn read_long(b: &[u8], pos: &mut usize) -> i64 {
    let mut value: u64 = 0;
    let mut shift = 0;
    loop {
        let byte = b[*pos];
        *pos += 1;
        value |= u64::from(byte & 0x7F) << shift;
        if byte & 0x80 == 0 {
            break;
        }
        shift += 7;
    }
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

fn write_long(out: &mut Vec<u8>, v: i64) {
    let mut n = ((v << 1) ^ (v >> 63)) as u64;
    loop {
        if n < 0x80 {
            out.push(n as u8);
            break;
        }
        out.push((n as u8 & 0x7F) | 0x80);
        n >>= 7;
    }
}

fn read_bytes<'a>(b: &'a [u8], pos: &mut usize) -> &'a [u8] {
    let len = read_long(b, pos) as usize;
    let out = &b[*pos..*pos + len];
    *pos += len;
    out
}

/// Rewrites the `avro.codec` of an Avro object container file's header to `codec`, leaving the blocks as
/// they were compressed: a file whose header names the wrong codec. Returns the codec it had.
pub fn set_avro_codec(p: &Path, codec: &str) -> String {
    let b = fs::read(p).unwrap();
    assert_eq!(&b[..4], b"Obj\x01", "{} is not Avro", p.display());
    let mut pos = 4;
    let mut meta: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    loop {
        let mut count = read_long(&b, &mut pos);
        if count == 0 {
            break;
        }
        if count < 0 {
            count = -count;
            let _size = read_long(&b, &mut pos);
        }
        for _ in 0..count {
            let k = read_bytes(&b, &mut pos).to_vec();
            let v = read_bytes(&b, &mut pos).to_vec();
            meta.push((k, v));
        }
    }
    let rest = &b[pos..];
    let mut old = String::from("null");
    let mut out = b"Obj\x01".to_vec();
    let mut found = false;
    for (k, v) in meta.iter_mut() {
        if k == b"avro.codec" {
            old = String::from_utf8_lossy(v).into_owned();
            *v = codec.as_bytes().to_vec();
            found = true;
        }
    }
    if !found {
        meta.push((b"avro.codec".to_vec(), codec.as_bytes().to_vec()));
    }
    write_long(&mut out, meta.len() as i64);
    for (k, v) in &meta {
        write_long(&mut out, k.len() as i64);
        out.extend_from_slice(k);
        write_long(&mut out, v.len() as i64);
        out.extend_from_slice(v);
    }
    write_long(&mut out, 0);
    out.extend_from_slice(rest);
    fs::write(p, out).unwrap();
    old
}

/// Overwrites the second half of the first data page of column `column` of a Parquet file (its
/// compressed values) with garbage; the footer stays intact.
pub fn corrupt_parquet_column(p: &Path, column: &str) {
    let file = fs::File::open(p).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let meta = builder.metadata().clone();
    let rg = meta.row_group(0);
    let chunk = rg
        .columns()
        .iter()
        .find(|c| c.column_path().string() == column)
        .unwrap_or_else(|| panic!("no column {column} in {}", p.display()));
    let (start, len) = chunk.byte_range();
    let (start, len) = (start as usize, len as usize);
    scribble(p, start + len / 2, len - len / 2);
}

/// Replaces a Parquet file by one with the same schema holding `rows` rows: the first row of the
/// original repeated (`rows` = 0: an empty file), written without dictionary or compression so that its
/// size grows with `rows`.
pub fn rewrite_parquet_rows(p: &Path, rows: usize) {
    let file = fs::File::open(p).unwrap();
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    let first = batches.first().expect("a row to repeat").clone();
    let schema = first.schema();
    let props = WriterProperties::builder()
        .set_compression(Compression::UNCOMPRESSED)
        .set_dictionary_enabled(false)
        .set_encoding(Encoding::PLAIN)
        .build();
    let out = fs::File::create(p).unwrap();
    let mut w = ArrowWriter::try_new(out, schema, Some(props)).unwrap();
    let mut left = rows;
    while left > 0 {
        let n = left.min(8192);
        let indices = UInt32Array::from(vec![0u32; n]);
        let columns = first
            .columns()
            .iter()
            .map(|c| arrow::compute::take(c.as_ref(), &indices, None).unwrap())
            .collect();
        w.write(&RecordBatch::try_new(first.schema(), columns).unwrap())
            .unwrap();
        left -= n;
    }
    w.close().unwrap();
}

/// `(index file, offset, length)` of the first deletion vector of the latest snapshot of `table`.
pub fn first_deletion_vector(table: &Path) -> (PathBuf, i64, i64) {
    let t = native_reader::Table::open(table).unwrap();
    let splits = t.plan_batch(None).unwrap();
    let dv = splits
        .iter()
        .flat_map(|s| s.deletion_files.iter().flatten())
        .next()
        .expect("a deletion vector in the latest snapshot")
        .clone();
    (PathBuf::from(dv.path), dv.offset, dv.length)
}

/// Rewrites the largest deleted position of a 32-bit deletion vector whose bitmap is one array
/// container to `position`, in place (same length, still a valid sorted bitmap): a vector that deletes a
/// row the data file does not have.
pub fn set_last_deleted_position(index: &Path, offset: i64, position: u16) {
    let mut b = fs::read(index).unwrap();
    let body = offset as usize + 4 + 4; // size field, magic
                                        // Portable RoaringBitmap without run containers: cookie 12346, container count, then per container
                                        // (key u16, cardinality-1 u16), then per container a u32 offset, then the u16 values.
    let cookie = u32::from_le_bytes(b[body..body + 4].try_into().unwrap());
    assert_eq!(cookie, 12346, "expected a bitmap without run containers");
    let containers = u32::from_le_bytes(b[body + 4..body + 8].try_into().unwrap()) as usize;
    assert_eq!(containers, 1, "expected one container");
    let last = u16::from_le_bytes(b[body + 10..body + 12].try_into().unwrap()) as usize;
    let values = body + 8 + 4 + 4;
    let at = values + 2 * last;
    let previous = u16::from_le_bytes(b[at..at + 2].try_into().unwrap());
    assert!(previous < position, "{previous} >= {position}");
    b[at..at + 2].copy_from_slice(&position.to_le_bytes());
    fs::write(index, b).unwrap();
}

/// Rows of a batch's `k` column, for checks of a good table read after a failure.
pub fn keys(batches: &[RecordBatch]) -> Vec<i32> {
    batches
        .iter()
        .flat_map(|b| {
            let i = b.schema().index_of("k").unwrap();
            let k = b
                .column(i)
                .as_any()
                .downcast_ref::<Int32Array>()
                .unwrap()
                .clone();
            k.values().to_vec()
        })
        .collect()
}
