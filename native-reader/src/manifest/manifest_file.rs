//! Manifest files (`org.apache.paimon.manifest.ManifestFile`, `ManifestEntrySerializer`) and their data file
//! records (`org.apache.paimon.io.DataFileMeta`, `DataFileMetaSerializer`).

use std::path::Path;

use crate::error::Result;

use super::{file_kind, read_bytes, records_from_bytes, FileKind, FileSource, Malformed};

/// A data or changelog file (`org.apache.paimon.io.DataFileMeta`, the `_FILE` record: 18 columns from 1.0
/// writers, 20 from 2.0 writers, read by name). Stats are skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataFileMeta {
    /// File name in the bucket directory (`_FILE_NAME`).
    pub file_name: String,
    /// Size in bytes (`_FILE_SIZE`).
    pub file_size: i64,
    /// All rows, retract rows included (`_ROW_COUNT`).
    pub row_count: i64,
    /// Serialized BinaryRow (arity prefix included) of the first trimmed-PK key (`_MIN_KEY`); empty row for
    /// append tables.
    pub min_key: Vec<u8>,
    /// Same for the last key (`_MAX_KEY`).
    pub max_key: Vec<u8>,
    /// The value columns' stats (`_VALUE_STATS`), `None` when the record holds none.
    pub value_stats: Option<SimpleStats>,
    /// `_MIN_SEQUENCE_NUMBER`.
    pub min_sequence_number: i64,
    /// `_MAX_SEQUENCE_NUMBER`.
    pub max_sequence_number: i64,
    /// Schema the file was written with (`_SCHEMA_ID`).
    pub schema_id: i64,
    /// LSM level (`_LEVEL`).
    pub level: i32,
    /// Extra files next to it (`_EXTRA_FILES`): file indexes `<file>.index`, and from 2.0 writers with
    /// `lookup.remote-file.enabled` also remote lookup SST files; see [`DataFileMeta::index_files`].
    pub extra_files: Vec<String>,
    /// Creation time, epoch milliseconds of the writer's local wall clock (`_CREATION_TIME`).
    pub creation_time: Option<i64>,
    /// Number of `-U`/`-D` rows (`_DELETE_ROW_COUNT`); `None` for files of ≤0.7 writers.
    pub delete_row_count: Option<i64>,
    /// Inlined file index (`_EMBEDDED_FILE_INDEX`), for filtering only.
    pub embedded_index: Option<Vec<u8>>,
    /// `_FILE_SOURCE`, 0.9+.
    pub file_source: Option<FileSource>,
    /// Columns covered by the value stats (`_VALUE_STATS_COLS`, 1.0+); `None` = all.
    pub value_stats_cols: Option<Vec<String>>,
    /// Absolute location when outside the table (`_EXTERNAL_PATH`, 1.0+; always null from 1.0 writers, set
    /// by 1.1+ writers with `data-file.external-paths`): a URI such as `file:/data/x/data-1.parquet` or a
    /// plain path. When set it replaces `<bucket dir>/<file_name>`.
    pub external_path: Option<String>,
    /// Row id of the file's first row (`_FIRST_ROW_ID`, 1.3+): set only in row-tracking tables.
    pub first_row_id: Option<i64>,
    /// The columns the file physically holds (`_WRITE_COLS`, 1.3+, data-evolution tables); `None` = all.
    pub write_cols: Option<Vec<String>>,
}

/// Column stats as a manifest stores them (`org.apache.paimon.stats.SimpleStats`): the smallest and largest
/// values and the null counts of the columns covered, in their order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimpleStats {
    /// Serialized BinaryRow (arity prefix included) of the smallest values (`_MIN_VALUES`).
    pub min_values: Vec<u8>,
    /// Serialized BinaryRow of the largest values (`_MAX_VALUES`).
    pub max_values: Vec<u8>,
    /// Null count per column (`_NULL_COUNTS`), `None` when the array is null; an element may be null.
    pub null_counts: Option<Vec<Option<i64>>>,
}

/// Test files: a level-0 file `name` of one row and one byte, written with schema 0, sequence numbers 0,
/// without keys, stats, row ids or source (set the fields a test needs with `..`).
#[cfg(test)]
impl DataFileMeta {
    pub(crate) fn for_test(name: &str) -> DataFileMeta {
        DataFileMeta {
            file_name: name.into(),
            file_size: 1,
            row_count: 1,
            min_key: Vec::new(),
            max_key: Vec::new(),
            value_stats: None,
            min_sequence_number: 0,
            max_sequence_number: 0,
            schema_id: 0,
            level: 0,
            extra_files: Vec::new(),
            creation_time: None,
            delete_row_count: None,
            embedded_index: None,
            file_source: None,
            value_stats_cols: None,
            external_path: None,
            first_row_id: None,
            write_cols: None,
        }
    }
}

impl DataFileMeta {
    /// The file-index files among [`DataFileMeta::extra_files`]: the names ending in `.index`, in order (as
    /// `DataSplit#indexFiles` keeps them; 2.0 writers may also list remote lookup SST files there).
    pub fn index_files(&self) -> impl Iterator<Item = &str> {
        self.extra_files
            .iter()
            .map(String::as_str)
            .filter(|name| name.ends_with(".index"))
    }
}

/// One record of a manifest file (`ManifestEntry`, `_VERSION` 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestEntry {
    /// ADD or DELETE (`_KIND`).
    pub kind: FileKind,
    /// Serialized partition BinaryRow, 4-byte arity prefix included (`_PARTITION`); Java compares
    /// partitions by these bytes.
    pub partition: Vec<u8>,
    /// Bucket (`_BUCKET`).
    pub bucket: i32,
    /// Table `bucket` option at write time (`_TOTAL_BUCKETS`).
    pub total_buckets: i32,
    /// The file (`_FILE`).
    pub file: DataFileMeta,
}

/// Reads a manifest file: its entries in file order.
pub fn read_manifest_file(path: &Path) -> Result<Vec<ManifestEntry>> {
    manifest_file_from_bytes(path, &read_bytes(path)?)
}

/// [`read_manifest_file`] of the file's bytes, already in memory; `path` only names the file in errors.
pub fn manifest_file_from_bytes(path: &Path, bytes: &[u8]) -> Result<Vec<ManifestEntry>> {
    records_from_bytes(path, bytes, |r| {
        r.check_version(2)?;
        let f = r.record("_FILE")?;
        Ok(ManifestEntry {
            kind: file_kind(r.int("_KIND")?)?,
            partition: r.bytes("_PARTITION")?,
            bucket: r.int("_BUCKET")?,
            total_buckets: r.int("_TOTAL_BUCKETS")?,
            file: DataFileMeta {
                file_name: f.string("_FILE_NAME")?,
                file_size: f.long("_FILE_SIZE")?,
                row_count: f.long("_ROW_COUNT")?,
                min_key: f.bytes("_MIN_KEY")?,
                max_key: f.bytes("_MAX_KEY")?,
                value_stats: f
                    .opt_record("_VALUE_STATS")?
                    .map(|s| -> std::result::Result<SimpleStats, Malformed> {
                        Ok(SimpleStats {
                            min_values: s.bytes("_MIN_VALUES")?,
                            max_values: s.bytes("_MAX_VALUES")?,
                            null_counts: s.opt_longs("_NULL_COUNTS")?,
                        })
                    })
                    .transpose()?,
                min_sequence_number: f.long("_MIN_SEQUENCE_NUMBER")?,
                max_sequence_number: f.long("_MAX_SEQUENCE_NUMBER")?,
                schema_id: f.long("_SCHEMA_ID")?,
                level: f.int("_LEVEL")?,
                extra_files: f.opt_strings("_EXTRA_FILES")?.unwrap_or_default(),
                creation_time: f.opt_long("_CREATION_TIME")?,
                delete_row_count: f.opt_long("_DELETE_ROW_COUNT")?,
                embedded_index: f.opt_bytes("_EMBEDDED_FILE_INDEX")?,
                file_source: f
                    .opt_int("_FILE_SOURCE")?
                    .map(|v| match v {
                        0 => Ok(FileSource::Append),
                        1 => Ok(FileSource::Compact),
                        other => Err(Malformed::Invalid(format!("unknown _FILE_SOURCE {other}"))),
                    })
                    .transpose()?,
                value_stats_cols: f.opt_strings("_VALUE_STATS_COLS")?,
                external_path: f.opt_string("_EXTERNAL_PATH")?,
                first_row_id: f.opt_long("_FIRST_ROW_ID")?,
                write_cols: f.opt_strings("_WRITE_COLS")?,
            },
        })
    })
}
