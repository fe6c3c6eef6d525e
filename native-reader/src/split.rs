//! The one split type both readers speak.
//!
//! A [`Split`] is Paimon's `org.apache.paimon.table.source.DataSplit` seen from outside: which snapshot it
//! belongs to, which partition and bucket, and which files (with their level and row count) a reader must
//! read. The native planner produces it, the stock reader (through `jvm-bridge`) describes its own
//! `DataSplit`s with it, and the harness matches the two by [`SplitKey`].

use std::path::{Path, PathBuf};

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
    /// The file's absolute location when it lives outside the table (`_EXTERNAL_PATH`, written by 1.1+
    /// writers with `data-file.external-paths`): a `file:` URI or a plain path. `None`: the file is
    /// `<bucket_path>/<file_name>`. See [`DataFileDesc::path`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_path: Option<String>,
    /// Row id of the file's first row (`_FIRST_ROW_ID`, 1.3+ row-tracking tables); the file covers row ids
    /// `first_row_id ..= first_row_id + row_count - 1` (`DataFileMeta.nonNullRowIdRange`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_row_id: Option<i64>,
    /// The columns the file physically holds, by name (`_WRITE_COLS`, 1.3+ data-evolution tables); `None`:
    /// every column of its schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_cols: Option<Vec<String>>,
    /// Whether the file was flushed new data or written by compaction (`_FILE_SOURCE`, 0.9+ writers);
    /// `None` when the manifest does not say (older writers, or a split described by the stock reader).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_source: Option<crate::manifest::FileSource>,
}

impl DataFileDesc {
    /// Where the file is (`DataFilePathFactory#toPath(DataFileMeta)`): the location of
    /// [`DataFileDesc::external_path`] when set ([`file_location`]), else `bucket_path/file_name`.
    ///
    /// Errors: the reason (naming the location) when the external path is on a file system this reader
    /// cannot read (see [`file_location`]).
    pub fn path(&self, bucket_path: &str) -> Result<PathBuf, String> {
        match &self.external_path {
            Some(external) => file_location(external),
            None => Ok(Path::new(bucket_path).join(&self.file_name)),
        }
    }

    /// [`DataFileDesc::path`] for error messages: the external location as written when it is not local.
    pub fn display_path(&self, bucket_path: &str) -> PathBuf {
        self.path(bucket_path).unwrap_or_else(|_| {
            PathBuf::from(self.external_path.as_deref().unwrap_or(&self.file_name))
        })
    }
}

/// The location of an absolute path as Paimon writes it (an external data or index file): an S3 URI
/// (`s3://`, `s3a://`, `s3n://`) as `s3://bucket/key`, read through [`crate::fileio`]; any other location as
/// [`local_path`].
///
/// Errors: as [`local_path`].
pub fn file_location(location: &str) -> Result<PathBuf, String> {
    if let Some((scheme, rest)) = location.split_once("://") {
        if matches!(scheme.to_ascii_lowercase().as_str(), "s3" | "s3a" | "s3n") {
            return Ok(PathBuf::from(format!("s3://{rest}")));
        }
    }
    local_path(location)
}

/// The local file of an absolute location as Paimon writes it into `_EXTERNAL_PATH` (`new Path(String)` of
/// a `LocalFileIO`): `file:/a/b`, `file:///a/b` and `file://localhost/a/b` are `/a/b` (the scheme in any
/// case: `FILE:/a/b` too); a plain `/a/b` is itself.
///
/// Errors: a reason naming `location` for another scheme (`s3://`, `hdfs://`, `oss://`, …) or a `file:`
/// URI with a remote host, which this reader cannot open, and for a relative path.
pub fn local_path(location: &str) -> Result<PathBuf, String> {
    // A scheme is case-insensitive (RFC 3986): Java's `LocalFileIO` reads `FILE:/a/b` as `/a/b` too.
    let scheme_file = location
        .get(..5)
        .filter(|p| p.eq_ignore_ascii_case("file:"))
        .map(|_| &location[5..]);
    let path = match scheme_file {
        Some(rest) => match rest.strip_prefix("//") {
            // `file://<authority>/<path>`: only an empty or `localhost` authority is local.
            Some(authority_and_path) => {
                let (authority, path) = match authority_and_path.find('/') {
                    Some(i) => authority_and_path.split_at(i),
                    None => (authority_and_path, ""),
                };
                if !authority.is_empty() && authority != "localhost" {
                    return Err(format!(
                        "location `{location}` names the remote host `{authority}`; only local files can be read"
                    ));
                }
                path
            }
            None => rest,
        },
        None => {
            if let Some(i) = location.find("://") {
                if location[..i]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                {
                    return Err(format!(
                        "location `{location}` uses the `{}` file system; only local files can be read",
                        &location[..i]
                    ));
                }
            }
            location
        }
    };
    if !path.starts_with('/') {
        return Err(format!("location `{location}` is not an absolute path"));
    }
    Ok(PathBuf::from(path))
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
    /// Planned from, and read by, the table's fallback branch (`FallbackDataSplit.isFallback()`,
    /// `scan.fallback-branch`): the partition is missing from the main branch.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fallback: bool,
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

/// Test files: a level-0 file `name` of `rows` rows and 10 bytes, written with schema 0, its sequence numbers
/// all `max_seq`, without key, row ids or source (set the fields a test needs with `..`).
#[cfg(test)]
impl DataFileDesc {
    pub(crate) fn for_test(name: &str, rows: i64, max_seq: i64) -> DataFileDesc {
        DataFileDesc {
            file_name: name.into(),
            level: 0,
            row_count: rows,
            file_size: 10,
            min_sequence_number: max_seq,
            max_sequence_number: max_seq,
            schema_id: 0,
            delete_row_count: Some(0),
            min_key: Vec::new(),
            max_key: Vec::new(),
            external_path: None,
            first_row_id: None,
            write_cols: None,
            file_source: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_uri_is_local_in_any_case_and_other_schemes_are_refused() {
        let local = PathBuf::from("/tmp/external/f1=10/bucket-0/index-1");
        // paimon-cpp's tables written by Java name external index files `FILE:/tmp/external/...`.
        assert_eq!(
            local_path("FILE:/tmp/external/f1=10/bucket-0/index-1"),
            Ok(local.clone())
        );
        assert_eq!(
            local_path("file:///tmp/external/f1=10/bucket-0/index-1"),
            Ok(local.clone())
        );
        assert_eq!(
            local_path("File://localhost/tmp/external/f1=10/bucket-0/index-1"),
            Ok(local)
        );
        assert!(local_path("FILE://host/tmp/x")
            .unwrap_err()
            .contains("remote host `host`"));
        assert!(local_path("s3://bucket/x")
            .unwrap_err()
            .contains("`s3` file system"));
        assert!(local_path("FILE:tmp/x")
            .unwrap_err()
            .contains("not an absolute path"));
    }

    fn desc(external: Option<&str>) -> DataFileDesc {
        DataFileDesc {
            file_name: "data-1.parquet".into(),
            level: 0,
            row_count: 1,
            file_size: 1,
            min_sequence_number: 0,
            max_sequence_number: 0,
            schema_id: 0,
            delete_row_count: Some(0),
            min_key: Vec::new(),
            max_key: Vec::new(),
            external_path: external.map(str::to_string),
            first_row_id: None,
            write_cols: None,
            file_source: None,
        }
    }

    #[test]
    fn external_paths_replace_the_bucket_directory() {
        assert_eq!(
            desc(None).path("/t/p=1/bucket-0").unwrap(),
            PathBuf::from("/t/p=1/bucket-0/data-1.parquet")
        );
        for (location, want) in [
            ("file:/ext/a/data-1.parquet", "/ext/a/data-1.parquet"),
            ("file:///ext/a/data-1.parquet", "/ext/a/data-1.parquet"),
            (
                "file://localhost/ext/a/data-1.parquet",
                "/ext/a/data-1.parquet",
            ),
            ("/ext/a/data-1.parquet", "/ext/a/data-1.parquet"),
            // Read through the store's FileIO (`crate::fileio`).
            (
                "s3://bucket/a/data-1.parquet",
                "s3://bucket/a/data-1.parquet",
            ),
            (
                "s3a://bucket/a/data-1.parquet",
                "s3://bucket/a/data-1.parquet",
            ),
        ] {
            assert_eq!(
                desc(Some(location)).path("/t/bucket-0").unwrap(),
                PathBuf::from(want),
                "{location}"
            );
        }
        for location in [
            "oss://bucket/a/data-1.parquet",
            "hdfs://nn:8020/a/data-1.parquet",
            "file://otherhost/a/data-1.parquet",
            "relative/data-1.parquet",
        ] {
            let err = desc(Some(location)).path("/t/bucket-0").unwrap_err();
            assert!(err.contains(location), "{err}");
            assert_eq!(
                desc(Some(location)).display_path("/t/bucket-0"),
                PathBuf::from(location)
            );
        }
    }

    #[test]
    fn external_path_is_optional_in_split_json() {
        let json = r#"{"file_name":"f","level":0,"row_count":2,"file_size":10,"min_sequence_number":0,
            "max_sequence_number":1,"schema_id":0}"#;
        let d: DataFileDesc = serde_json::from_str(json).unwrap();
        assert_eq!(d.external_path, None);
        assert!(!serde_json::to_string(&d).unwrap().contains("external_path"));
    }
}
