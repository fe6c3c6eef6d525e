//! `$binlog` (`BinlogTable`): `$audit_log`'s rows with every column as an array. A batch split's row is
//! `[v]`; in a streaming split an `-U` row and the row after it (`PackChangelogReader`: whatever its kind,
//! within the split) become one row `[before, after]` with the second row's kind, so an update reads as one
//! `+U` row. An `-U` that ends the split stays alone, as `[v]` with kind `-U`.

use std::sync::Arc;

use arrow::buffer::OffsetBuffer;
use arrow_array::{Array, ArrayRef, Int8Array, ListArray, RecordBatch, UInt32Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use crate::error::{Error, Result};
use crate::row_kind::RowKind;

/// `$binlog`'s columns before [`super::to_audit_log`]: `_row_kind` (the packed row's kind), then each of
/// the read schema's columns as a nullable list of nullable elements (`ArrayType(field.type().nullable())`),
/// with the column's field id kept.
pub fn binlog_schema(read: &SchemaRef) -> SchemaRef {
    binlog_schema_of(read, false)
}

/// [`binlog_schema`], with `read`'s second column kept as it is when `sequence` (`_SEQUENCE_NUMBER`, not
/// packed: `BinlogRead.convertToArray` copies the first row's).
pub(crate) fn binlog_schema_of(read: &SchemaRef, sequence: bool) -> SchemaRef {
    let kept = 1 + usize::from(sequence);
    let fields: Vec<Arc<Field>> = read
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if i < kept {
                return f.clone();
            }
            let element = Field::new("element", f.data_type().clone(), true);
            Arc::new(
                Field::new(f.name(), DataType::List(Arc::new(element)), true)
                    .with_metadata(f.metadata().clone()),
            )
        })
        .collect();
    Arc::new(Schema::new_with_metadata(fields, read.metadata().clone()))
}

/// Turns one split's batches (`_row_kind` first) into `$binlog` rows ([`binlog_schema`]), pairing `-U`
/// with the next row when `pack` (streaming splits). Holds back at most one row, an `-U` that ended a
/// batch, until the next batch or [`finish`](Self::finish).
pub(crate) struct BinlogPacker {
    schema: SchemaRef,
    pack: bool,
    /// The batches' second column is `_SEQUENCE_NUMBER`, kept unpacked (the first row's of a pair).
    sequence: bool,
    pending: Option<RecordBatch>,
}

impl BinlogPacker {
    /// A packer for batches of `read` (the data table's read schema); `pack` for a streaming split;
    /// `sequence` when `read`'s second column is `_SEQUENCE_NUMBER`
    /// ([`super::audit_read_schema`]).
    pub(crate) fn new(read: &SchemaRef, pack: bool, sequence: bool) -> BinlogPacker {
        BinlogPacker {
            schema: binlog_schema_of(read, sequence),
            pack,
            sequence,
            pending: None,
        }
    }

    /// The schema of the batches this packer returns.
    pub(crate) fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The `$binlog` rows of `batch` (and of a row held back from the last one); `None` when every row is
    /// held back.
    ///
    /// Errors: [`Error::Decode`] naming `<binlog>` for a batch without its row kinds (a bug upstream).
    pub(crate) fn push(&mut self, batch: RecordBatch) -> Result<Option<RecordBatch>> {
        let batch = match self.pending.take() {
            Some(held) => arrow_select::concat::concat_batches(&batch.schema(), [&held, &batch])
                .map_err(|e| bad(e.to_string()))?,
            None => batch,
        };
        self.pack_rows(batch, false)
    }

    /// The row held back, if any, alone (the split ended after an `-U`).
    pub(crate) fn finish(&mut self) -> Result<Option<RecordBatch>> {
        match self.pending.take() {
            Some(held) => self.pack_rows(held, true),
            None => Ok(None),
        }
    }

    fn pack_rows(&mut self, batch: RecordBatch, last: bool) -> Result<Option<RecordBatch>> {
        let kinds = batch
            .columns()
            .first()
            .and_then(|c| c.as_any().downcast_ref::<Int8Array>())
            .ok_or_else(|| bad("the batch does not start with its row kinds".into()))?;
        let n = batch.num_rows();
        // Each output row: the rows it is made of (one or two), and its kind.
        let mut taken: Vec<u32> = Vec::with_capacity(n);
        let mut offsets: Vec<i32> = Vec::with_capacity(n + 1);
        offsets.push(0);
        let mut out_kinds: Vec<i8> = Vec::with_capacity(n);
        let before = RowKind::UpdateBefore.to_byte();
        let mut i = 0;
        while i < n {
            let kind = kinds.value(i);
            if self.pack && kind == before {
                if i + 1 < n {
                    taken.extend([i as u32, i as u32 + 1]);
                    out_kinds.push(kinds.value(i + 1));
                    offsets.push(taken.len() as i32);
                    i += 2;
                    continue;
                }
                if !last {
                    self.pending = Some(batch.slice(i, 1));
                    break;
                }
            }
            taken.push(i as u32);
            out_kinds.push(kind);
            offsets.push(taken.len() as i32);
            i += 1;
        }
        if out_kinds.is_empty() {
            return Ok(None);
        }
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(batch.num_columns());
        if self.sequence {
            // Each output row's first row: where each row's list starts.
            let firsts: Vec<u32> = offsets[..offsets.len() - 1]
                .iter()
                .map(|&at| taken[at as usize])
                .collect();
            let sequence =
                arrow_select::take::take(batch.column(1), &UInt32Array::from(firsts), None)
                    .map_err(|e| bad(e.to_string()))?;
            columns.push(sequence);
        }
        let indices = UInt32Array::from(taken);
        let offsets = OffsetBuffer::new(offsets.into());
        let leading = 1 + usize::from(self.sequence);
        columns.insert(0, Arc::new(Int8Array::from(out_kinds)));
        for (column, field) in batch
            .columns()
            .iter()
            .zip(self.schema.fields())
            .skip(leading)
        {
            let DataType::List(element) = field.data_type() else {
                return Err(bad(format!("column {} is not a list", field.name())));
            };
            let values =
                arrow_select::take::take(column, &indices, None).map_err(|e| bad(e.to_string()))?;
            let list = ListArray::try_new(element.clone(), offsets.clone(), values, None)
                .map_err(|e| bad(e.to_string()))?;
            columns.push(Arc::new(list));
        }
        RecordBatch::try_new(self.schema.clone(), columns)
            .map(Some)
            .map_err(|e| bad(e.to_string()))
    }
}

fn bad(reason: String) -> Error {
    Error::Decode {
        path: "<binlog>".into(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Int32Array;

    fn batch(kinds: &[i8], values: &[i32]) -> RecordBatch {
        let read: SchemaRef = Arc::new(Schema::new(vec![
            Field::new("_row_kind", DataType::Int8, false),
            Field::new("v", DataType::Int32, true),
        ]));
        RecordBatch::try_new(
            read,
            vec![
                Arc::new(Int8Array::from(kinds.to_vec())),
                Arc::new(Int32Array::from(values.to_vec())),
            ],
        )
        .unwrap()
    }

    fn lists(b: &RecordBatch) -> Vec<(i8, Vec<i32>)> {
        let kinds = b.column(0).as_any().downcast_ref::<Int8Array>().unwrap();
        let list = b.column(1).as_any().downcast_ref::<ListArray>().unwrap();
        (0..b.num_rows())
            .map(|i| {
                let v = list.value(i);
                let v = v.as_any().downcast_ref::<Int32Array>().unwrap();
                (kinds.value(i), v.values().to_vec())
            })
            .collect()
    }

    /// A streaming split `+I 1, -U 1 | +U 2, -D 3, -U 4`: the update packed across the batch boundary, the
    /// last `-U` alone at the end.
    #[test]
    fn updates_pack_across_batches_in_streaming_splits() {
        let first = batch(&[0, 1], &[1, 1]);
        let mut packer = BinlogPacker::new(&first.schema(), true, false);
        let a = packer.push(first).unwrap().unwrap();
        assert_eq!(lists(&a), vec![(0, vec![1])]);
        let b = packer.push(batch(&[2, 3, 1], &[2, 3, 4])).unwrap().unwrap();
        assert_eq!(lists(&b), vec![(2, vec![1, 2]), (3, vec![3])]);
        let c = packer.finish().unwrap().unwrap();
        assert_eq!(lists(&c), vec![(1, vec![4])]);
        assert!(packer.finish().unwrap().is_none());
    }

    #[test]
    fn batch_splits_are_never_packed() {
        let only = batch(&[1, 2], &[1, 2]);
        let mut packer = BinlogPacker::new(&only.schema(), false, false);
        let a = packer.push(only).unwrap().unwrap();
        assert_eq!(lists(&a), vec![(1, vec![1]), (2, vec![2])]);
        assert!(packer.finish().unwrap().is_none());
    }

    /// With `_SEQUENCE_NUMBER` second (`table-read.sequence-number.enabled`): it stays a plain column, and a
    /// packed pair carries its first row's (`BinlogRead.convertToArray` copies `row1`'s).
    #[test]
    fn sequence_numbers_stay_unpacked_and_a_pair_keeps_its_first() {
        let read: SchemaRef = Arc::new(Schema::new(vec![
            Field::new("_row_kind", DataType::Int8, false),
            Field::new("_SEQUENCE_NUMBER", DataType::Int64, false),
            Field::new("v", DataType::Int32, true),
        ]));
        let input = RecordBatch::try_new(
            read.clone(),
            vec![
                Arc::new(Int8Array::from(vec![1, 2, 0])),
                Arc::new(arrow_array::Int64Array::from(vec![5, 6, 7])),
                Arc::new(Int32Array::from(vec![1, 2, 3])),
            ],
        )
        .unwrap();
        let mut packer = BinlogPacker::new(&read, true, true);
        assert_eq!(packer.schema().field(1).data_type(), &DataType::Int64);
        let out = packer.push(input).unwrap().unwrap();
        let seq = out
            .column(1)
            .as_any()
            .downcast_ref::<arrow_array::Int64Array>()
            .unwrap();
        assert_eq!(seq.values().to_vec(), vec![5, 7]);
        let kinds = out.column(0).as_any().downcast_ref::<Int8Array>().unwrap();
        assert_eq!(kinds.values().to_vec(), vec![2, 0]);
        let list = out.column(2).as_any().downcast_ref::<ListArray>().unwrap();
        let first = list.value(0);
        let first = first.as_any().downcast_ref::<Int32Array>().unwrap();
        assert_eq!(first.values().to_vec(), vec![1, 2]);
    }
}
