//! Merge-tree concepts shared by split planning ([`crate::scan`]) and merge-on-read ([`crate::merge`])
//! (`org.apache.paimon.mergetree`): keyed data files, the key comparator (`KeyComparatorSupplier`) and the
//! interval partition of a bucket's files into sections of sorted runs (`mergetree.compact.IntervalPartition`).

mod interval_partition;
mod key_comparator;

pub use interval_partition::interval_partition;
pub use key_comparator::KeyComparator;

use crate::binary_row::Datum;
use crate::manifest::DataFileMeta;
use crate::split::DataFileDesc;

/// A data file with its decoded `_MIN_KEY` and `_MAX_KEY`.
#[derive(Clone, Debug)]
pub struct KeyedFile<F> {
    /// The file.
    pub file: F,
    /// Decoded `_MIN_KEY` (trimmed primary key).
    pub min_key: Vec<Datum>,
    /// Decoded `_MAX_KEY`.
    pub max_key: Vec<Datum>,
}

/// Something with a size, a level and a delete-row count: what split generation looks at in a data file.
pub trait FileStats {
    /// `_FILE_SIZE` in bytes.
    fn size(&self) -> i64;
    /// `_LEVEL`.
    fn level(&self) -> i32;
    /// `_DELETE_ROW_COUNT`, `None` when unknown.
    fn delete_rows(&self) -> Option<i64>;
}

impl FileStats for DataFileMeta {
    fn size(&self) -> i64 {
        self.file_size
    }
    fn level(&self) -> i32 {
        self.level
    }
    fn delete_rows(&self) -> Option<i64> {
        self.delete_row_count
    }
}

impl FileStats for DataFileDesc {
    fn size(&self) -> i64 {
        self.file_size
    }
    fn level(&self) -> i32 {
        self.level
    }
    fn delete_rows(&self) -> Option<i64> {
        self.delete_row_count
    }
}

/// `withoutDeleteRow`: `_DELETE_ROW_COUNT` is 0, or unknown (null, files of old writers).
pub fn without_delete_row<F: FileStats>(f: &F) -> bool {
    f.delete_rows().is_none_or(|c| c == 0)
}
