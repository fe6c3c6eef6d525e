//! The one split type both readers speak.
//!
//! A [`Split`] is Paimon's `org.apache.paimon.table.source.DataSplit` seen from outside: which snapshot it
//! belongs to, which partition and bucket, and which files (with their level and row count) a reader must
//! read. The native planner produces it, the stock reader (through `jvm-bridge`) describes its own
//! `DataSplit`s with it, and the harness matches the two by [`SplitKey`].

use serde::{Deserialize, Serialize};

/// One data or changelog file of a split, as `org.apache.paimon.io.DataFileMeta` describes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataFileDesc {
    /// File name inside the bucket directory, e.g. `data-<uuid>-0.parquet` or `changelog-<uuid>-0.parquet`.
    pub file_name: String,
    /// LSM level (`_LEVEL`); 0 for freshly flushed files.
    pub level: i32,
    /// All rows in the file, retract rows included (`_ROW_COUNT`).
    pub row_count: i64,
    /// Size in bytes (`_FILE_SIZE`).
    pub file_size: i64,
    /// Smallest and largest sequence number in the file (`_MIN_SEQUENCE_NUMBER`, `_MAX_SEQUENCE_NUMBER`).
    pub min_sequence_number: i64,
    /// See `min_sequence_number`.
    pub max_sequence_number: i64,
    /// Schema the file was written with (`_SCHEMA_ID`).
    pub schema_id: i64,
    /// Number of `-U`/`-D` rows (`_DELETE_ROW_COUNT`); `None` when unknown (files of ≤0.7 writers). A batch
    /// read uses the raw reader only when every file's count is known (`RawFileSplitReadProvider.match`).
    #[serde(default)]
    pub delete_row_count: Option<i64>,
    /// Serialized BinaryRow (4-byte big-endian arity prefix included) of the file's first trimmed-PK key
    /// (`_MIN_KEY`); an empty row for append tables. Merge reads partition files by key range with it.
    #[serde(default)]
    pub min_key: Vec<u8>,
    /// Same for the file's last key (`_MAX_KEY`).
    #[serde(default)]
    pub max_key: Vec<u8>,
}

/// A deletion vector attached to one data file of a split (`org.apache.paimon.table.source.DeletionFile`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeletionFileDesc {
    /// Path of the index file that holds the deletion vector.
    pub path: String,
    /// Byte offset of the deletion vector's length field in that file.
    pub offset: i64,
    /// Length in bytes as recorded in the index manifest.
    pub length: i64,
    /// Number of deleted rows, when recorded.
    pub cardinality: Option<i64>,
}

/// A split as `DataSplit` describes it.
///
/// Shapes: `partition` has one entry per partition key in `partitionKeys` order, each the value rendered
/// the way `partition.legacy-name=true` renders it (Java `toString()` of the internal value; `None` for NULL).
/// `deletion_files` is empty or has one entry per data file, in the same order; `before_deletion_files`
/// likewise for `before_files`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Split {
    /// The snapshot this split was planned from (`DataSplit.snapshotId()`).
    pub snapshot_id: i64,
    /// Partition values, see the type docs.
    pub partition: Vec<Option<String>>,
    /// Bucket number (`DataSplit.bucket()`).
    pub bucket: i32,
    /// Bucket directory, without a `file:` scheme (`DataSplit.bucketPath()`).
    pub bucket_path: String,
    /// Files to read, in read order (`DataSplit.dataFiles()`).
    pub data_files: Vec<DataFileDesc>,
    /// Files of the previous state, for changes plans (`DataSplit.beforeFiles()`); usually empty.
    pub before_files: Vec<DataFileDesc>,
    /// Deletion vectors of `data_files` (`DataSplit.deletionFiles()`); empty when the split has none.
    pub deletion_files: Vec<Option<DeletionFileDesc>>,
    /// Deletion vectors of `before_files` (`DataSplit.beforeDeletionFiles()`); empty when the split has none.
    #[serde(default)]
    pub before_deletion_files: Vec<Option<DeletionFileDesc>>,
    /// True for splits of a streaming follow-up plan, read without merging (`DataSplit.isStreaming()`).
    pub is_streaming: bool,
    /// True when the files can be read as plain files (`DataSplit.rawConvertible()`).
    pub raw_convertible: bool,
}

/// What the harness matches splits by: (snapshot, partition, bucket).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SplitKey {
    /// `Split::snapshot_id`.
    pub snapshot_id: i64,
    /// `Split::partition`.
    pub partition: Vec<Option<String>>,
    /// `Split::bucket`.
    pub bucket: i32,
}

impl Split {
    /// The key the harness matches this split by.
    pub fn key(&self) -> SplitKey {
        SplitKey {
            snapshot_id: self.snapshot_id,
            partition: self.partition.clone(),
            bucket: self.bucket,
        }
    }

    /// Sum of `row_count` over the data files (rows a no-merge read returns, before deletion vectors).
    pub fn row_count(&self) -> i64 {
        self.data_files.iter().map(|f| f.row_count).sum()
    }
}

impl std::fmt::Display for SplitKey {
    /// `snapshot 5, partition [p1, NULL], bucket 2`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<&str> = self
            .partition
            .iter()
            .map(|p| p.as_deref().unwrap_or("NULL"))
            .collect();
        write!(
            f,
            "snapshot {}, partition [{}], bucket {}",
            self.snapshot_id,
            parts.join(", "),
            self.bucket
        )
    }
}
