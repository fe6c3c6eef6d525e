//! Rows per RowKind, as both readers' batches are counted.

use arrow_array::{Array, Int8Array, RecordBatch};
use native_reader::RowKind;
use serde::Serialize;

/// Rows per RowKind (`org.apache.paimon.types.RowKind`): `+I`, `-U`, `+U`, `-D`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct RowCounts {
    /// `+I` rows (byte value 0).
    pub insert: u64,
    /// `-U` rows (byte value 1).
    pub update_before: u64,
    /// `+U` rows (byte value 2).
    pub update_after: u64,
    /// `-D` rows (byte value 3).
    pub delete: u64,
    /// Rows whose `_row_kind` is not 0..=3 (never valid).
    pub invalid: u64,
}

impl RowCounts {
    /// All rows.
    pub fn total(&self) -> u64 {
        self.insert + self.update_before + self.update_after + self.delete + self.invalid
    }

    /// Adds every row of a `_row_kind` column.
    pub fn add_kinds(&mut self, kinds: &Int8Array) {
        for k in kinds.iter() {
            match k.and_then(RowKind::from_byte) {
                Some(RowKind::Insert) => self.insert += 1,
                Some(RowKind::UpdateBefore) => self.update_before += 1,
                Some(RowKind::UpdateAfter) => self.update_after += 1,
                Some(RowKind::Delete) => self.delete += 1,
                None => self.invalid += 1,
            }
        }
    }

    /// Adds another count.
    pub fn add(&mut self, other: &RowCounts) {
        self.insert += other.insert;
        self.update_before += other.update_before;
        self.update_after += other.update_after;
        self.delete += other.delete;
        self.invalid += other.invalid;
    }
}

impl std::fmt::Display for RowCounts {
    /// `12 rows (+I 10, -U 1, +U 1, -D 0)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} rows (+I {}, -U {}, +U {}, -D {}",
            self.total(),
            self.insert,
            self.update_before,
            self.update_after,
            self.delete
        )?;
        if self.invalid > 0 {
            write!(f, ", invalid {}", self.invalid)?;
        }
        f.write_str(")")
    }
}

/// Adds the RowKinds of a batch as the reader returned it (`_row_kind` Int8 first).
pub(crate) fn count_kinds(counts: &mut RowCounts, batch: &RecordBatch) {
    if let Some(kinds) = batch
        .columns()
        .first()
        .and_then(|c| c.as_any().downcast_ref::<Int8Array>())
    {
        counts.add_kinds(kinds);
    } else {
        counts.invalid += batch.num_rows() as u64;
    }
}
