//! What differs between releases in an incremental diff read (`IncrementalDiffSplitRead`, its `DiffMerger`),
//! checked against the release tags' `IncrementalDiffSplitRead`, `IncrementalDiffStartingScanner` and
//! `AbstractDataTableScan#createIncrementalStartingScanner`.
//!
//! Every release reads a diff split the same way at heart: the split's before-files and after-files are
//! each merged as a batch split is (`MergeFileSplitRead#createMergeReader`), and the two merged streams are
//! merged again by key (`mergeSortNoSpill`, before first), the records of one key handed to `DiffMerger`
//! without `ReducerMergeFunctionWrapper`. The rules below are where the releases part.

/// `DiffMerger#getResult` and the sides' merge of a release ([`super::LineRules::incremental_diff`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IncrementalDiff {
    /// 1.0.x: each side drops its deletes (`createMergeReader(.., false)`), whatever the read. A key of the
    /// before side alone gives nothing, or a `-D` of its record when the read keeps deletes
    /// (`forceKeepDelete`, `$audit_log`); a key of the after side alone gives its record; a key of both
    /// gives the second record in merge order when it is the after side's and its value differs.
    AfterSecondByValue,
    /// 1.1.1 to 1.4.2: each side keeps its deletes when the read does; a key of the before side alone gives
    /// a `-D` only when the read keeps deletes and the record is an insert or update-after; a key of both
    /// sides differs when the value or the add-ness (`isAdd`) differs, and gives the second record in merge
    /// order when it is the after side's; a result that is no add is kept only when the read keeps deletes.
    AfterSecondByValueAndKind,
    /// 2.0.0: as [`IncrementalDiff::AfterSecondByValueAndKind`], except that a key of both sides that
    /// differs gives the after side's record wherever the merge order puts it (`after.level() ==
    /// AFTER_LEVEL ? after : before`).
    AfterByValueAndKind,
}

impl IncrementalDiff {
    /// Whether each side keeps its deletes when the read does (`createMergeReader(.., forceKeepDelete)`).
    pub fn sides_keep_delete(self) -> bool {
        self != IncrementalDiff::AfterSecondByValue
    }

    /// Whether two records of one key differ when their add-ness differs, equal values aside
    /// (`valueAndRowKindEquals`).
    pub fn compares_kind(self) -> bool {
        self != IncrementalDiff::AfterSecondByValue
    }

    /// Whether a key of both sides that differs gives the after side's record even when the merge order puts
    /// it first (a lower sequence number: an overwrite restarts them; a `sequence.field`).
    pub fn after_wherever_ordered(self) -> bool {
        self == IncrementalDiff::AfterByValueAndKind
    }
}
