//! How a release reads the `.blob` and vector-store files of a data-evolution row-id group
//! (`DataEvolutionSplitRead.splitFieldBunches`), checked against the release tags' `DataEvolutionSplitRead`.

/// The field bunches of a release ([`super::LineRules::field_bunches`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FieldBunches {
    /// Up to 1.3.x: no bunches; a `.blob` file is merged as any other file (1.3 knows no BLOB type, and
    /// no vector-store file: the native reader refuses one by name).
    None,
    /// 1.4.x: `SpecialFieldBunch`: the `.blob` files of each column (by field id), and the vector-store
    /// files of each schema, format and written columns (`VectorStoreBunchKey`), each a chain by first
    /// row id read one file after another; an older file of a start already chained is skipped, and a
    /// newer one overlapping the chain, or a gap, fails the read.
    Chains,
    /// 2.0.0: `BlobFileBunch` for `.blob` files (every file of a column, each row from the newest file
    /// whose value is not a placeholder, `BlobFallbackRecordReader`) and `VectorFileBunch` chains, as
    /// 1.4's, for vector-store files.
    BlobPlaceholders,
}

impl FieldBunches {
    /// 1.4.x true: `BlobFileMeta.returnedPosition(i)` returns `i` where 2.0.0 returns `i - 1` (the reader
    /// asks after moving past the row, and no selection is set), so a `.blob` file read by itself (a
    /// stream of an update of a BLOB column) gives its rows `_ROW_ID`s from its first row id plus one.
    pub fn blob_positions_from_one(self) -> bool {
        self == FieldBunches::Chains
    }
}
