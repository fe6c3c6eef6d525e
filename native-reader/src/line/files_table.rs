//! What differs between releases in `$files` (`org.apache.paimon.table.system.FilesTable`), checked against
//! the release tags' `FilesTable`, `DataFilePathFactory.formatIdentifier` and `SimpleStatsEvolutions`.

/// `$files` of a release ([`super::LineRules::files_table`]), each value keeping what the earlier ones
/// say unless it says otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FilesTable {
    /// 1.0.x: 17 columns, `partition` as `[v1, v2]` (`Arrays.toString` of the internal values); the files
    /// of each partition's batch scan (level 0 left out where the batch scan leaves it out); the value
    /// stats listed up to the evolved stats row's field count (more fields than the table's fail).
    ArrayPartition,
    /// 1.1.x: `partition` as `{v1, v2}` (`CastExecutors.resolveToString` of the partition row).
    CastPartition,
    /// 1.2.x: `deleteRowCount` (`_DELETE_ROW_COUNT`) before `file_source`, 18 columns.
    DeleteRowCount,
    /// 1.3.x: every level (`withLevelFilter(level -> true)`), the stats listed up to the smaller of the
    /// stats row's and the table's field counts, and `file_format` skipping a compression extension
    /// (`HadoopCompressionType`: `gz`, `bz2`, `deflate`, `snappy`, `lz4`, `zst`).
    AllLevels,
    /// 1.4.x: `first_row_id` and `write_cols` after `file_source`, 20 columns.
    RowIds,
    /// 2.0: the value stats of a file with `_WRITE_COLS` evolved from those columns of its schema only
    /// (`SimpleStatsEvolutions.getOrCreate(schemaId, writeCols)`), and the partitions listed with each
    /// manifest's entries merged straight into the shared map (`readPartitionEntries` without the
    /// per-manifest `HashMap`, so one manifest's partitions of one bin keep their first-seen order).
    WriteColsStats,
}

impl FilesTable {
    /// The number of columns of `FilesTable.TABLE_TYPE`.
    pub fn column_count(self) -> usize {
        match self {
            FilesTable::ArrayPartition | FilesTable::CastPartition => 17,
            FilesTable::DeleteRowCount | FilesTable::AllLevels => 18,
            FilesTable::RowIds | FilesTable::WriteColsStats => 20,
        }
    }
}
