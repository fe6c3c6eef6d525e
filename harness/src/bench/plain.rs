//! Plain parquet-rs / orc-rust / apache-avro decoding of a split's files: every column, no Paimon logic.

use std::fs::File;
use std::path::{Path, PathBuf};

use native_reader::Split;

use super::timing::measure;
use super::*;

/// The plain format of `files` when all are Parquet, all ORC or all Avro.
pub(super) fn plain_format(files: &[PathBuf]) -> Option<&'static str> {
    let ext = |p: &PathBuf| {
        p.extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
    };
    let first = ext(files.first()?)?;
    if !files
        .iter()
        .all(|f| ext(f).as_deref() == Some(first.as_str()))
    {
        return None;
    }
    match first.as_str() {
        "parquet" => Some("parquet"),
        "orc" => Some("orc"),
        "avro" => Some("avro"),
        _ => None,
    }
}

pub(super) fn plain_err(path: &Path, source: impl Into<crate::error::BoxError>) -> Error {
    Error::TableSource {
        path: path.to_path_buf(),
        context: String::new(),
        source: source.into(),
    }
}

pub(super) enum PlainReader {
    Parquet(parquet::arrow::arrow_reader::ParquetRecordBatchReader),
    Orc(Box<orc_rust::ArrowReader<File>>),
    /// The `apache-avro` crate's reader: every record decoded into its `Value` tree (Avro has no Arrow
    /// reader in the arrow-rs release in use, so this is the format's own decoder, row by row).
    Avro(Box<apache_avro::Reader<'static, std::io::BufReader<File>>>),
}

/// Opens `path` with parquet-rs or orc-rust (footer parsed), all columns, batches of [`BATCH_SIZE`], or
/// with apache-avro (header and schema parsed).
pub(super) fn plain_open(path: &Path) -> Result<PlainReader> {
    plain_open_with(path, BATCH_SIZE)
}

/// The plain decoder's first row of `path` (opened with batches of one row): what any reader pays before
/// its first row of the file (the footer, and the first page of every column or the first stripe/block).
pub(super) fn plain_first_row(path: &Path) -> Result<()> {
    match plain_open_with(path, 1)? {
        PlainReader::Parquet(mut r) => {
            r.next().transpose().map_err(|e| plain_err(path, e))?;
        }
        PlainReader::Orc(mut r) => {
            r.next().transpose().map_err(|e| plain_err(path, e))?;
        }
        PlainReader::Avro(mut r) => {
            r.next().transpose().map_err(|e| plain_err(path, e))?;
        }
    }
    Ok(())
}

/// [`plain_open`] with batches of `batch_size` rows (Parquet, ORC).
fn plain_open_with(path: &Path, batch_size: usize) -> Result<PlainReader> {
    let file = File::open(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    if ext.eq_ignore_ascii_case("avro") {
        let r = apache_avro::Reader::new(std::io::BufReader::new(file))
            .map_err(|e| plain_err(path, e))?;
        return Ok(PlainReader::Avro(Box::new(r)));
    }
    if ext.eq_ignore_ascii_case("orc") {
        let r = orc_rust::ArrowReaderBuilder::try_new(file)
            .map_err(|e| plain_err(path, e))?
            .with_batch_size(batch_size)
            .build();
        Ok(PlainReader::Orc(Box::new(r)))
    } else {
        let r = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|e| plain_err(path, e))?
            .with_batch_size(batch_size)
            .build()
            .map_err(|e| plain_err(path, e))?;
        Ok(PlainReader::Parquet(r))
    }
}

/// The data files of `splits`, as paths.
pub fn split_files(splits: &[Split]) -> Vec<PathBuf> {
    splits
        .iter()
        .flat_map(|s| {
            s.data_files
                .iter()
                .map(move |f| Path::new(&s.bucket_path).join(&f.file_name))
        })
        .collect()
}

/// Decodes `path` entirely with the plain format reader; returns its rows.
pub fn plain_decode(path: &Path) -> Result<u64> {
    let mut n = 0u64;
    match plain_open(path)? {
        PlainReader::Parquet(r) => {
            for b in r {
                n += b.map_err(|e| plain_err(path, e))?.num_rows() as u64;
            }
        }
        PlainReader::Orc(r) => {
            for b in r {
                n += b.map_err(|e| plain_err(path, e))?.num_rows() as u64;
            }
        }
        PlainReader::Avro(r) => {
            for v in *r {
                v.map_err(|e| plain_err(path, e))?;
                n += 1;
            }
        }
    }
    Ok(n)
}

pub(super) fn plain_measurement(
    files: &[PathBuf],
    samples: usize,
    bytes: u64,
) -> Result<Option<Measurement>> {
    if plain_format(files).is_none() {
        return Ok(None);
    }
    measure("plain", samples, bytes, || {
        let mut n = 0u64;
        for f in files {
            n += plain_decode(f)?;
        }
        Ok(n)
    })
    .map(Some)
}
