//! Part 2, keys no reader returns: values written and durable in the level-0 files of a commit whose
//! COMPACT half was lost, that neither the changelog nor the batch read shows.
//!
//! A batch read of a deletion-vector table reads only levels above 0 (`DataTableBatchScan`, which sets
//! `withLevelFilter(level > 0)` when deletion vectors are enabled): its records reach the table view when a
//! compaction moves them up. When that compaction was the lost COMPACT half, the commit's records stay in
//! level 0, the batch read and the changelog agree on the older values, and folding one against the other
//! finds nothing. This check reads the durable files of the buckets those level-0 files are in: the newest
//! record of each key (highest sequence number among the committed files of the bucket in the latest
//! snapshot, level 0 included, deletion vectors applied) is what a compaction would make the key, and where
//! it differs from both the stream's and the batch read's value, no reader returns it.
//!
//! Only for `deduplicate` tables, where the newest record is the key's value; the other merge engines
//! merge several records into it.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{Array, Int64Array, Int8Array, RecordBatch};
use native_reader::decode::{read_file, FileReadOptions, DEFAULT_BATCH_SIZE};
use native_reader::options::MergeEngine;
use native_reader::scan::{data_file_desc, deletion_vector_index, read_all_files};
use native_reader::snapshot::CommitKind;
use native_reader::{DeletionFileDesc, RowKind, Table};

use super::fold::{primary_key_columns, render_key, Folder, KeyView};
use super::{CommitPair, DurableRecord, KeyClass, MissingKey, PairStatus};
use crate::diff::{json_row, render_value, row_kind_symbol};
use crate::error::Result;
use crate::inspect::{is_write_half, Timeline};

/// (partition values, bucket).
type Bucket = (Vec<Option<String>>, i32);

/// The commit that wrote a lost level-0 file, and the one whose lost COMPACT half would have compacted it.
struct Lost<'a> {
    /// The pair that wrote the file.
    writer: &'a CommitPair,
    /// (commit user, identifier) of the commit whose COMPACT half was lost.
    lost_with: (String, i64),
}

/// The newest durable record of one key.
struct Newest {
    key_values: serde_json::Map<String, serde_json::Value>,
    record: DurableRecord,
    adds: bool,
}

/// Whether the check applies to `table`: its batch reads skip level 0 (deletion vectors) and the newest
/// record of a key is its value (`deduplicate`).
pub(super) fn applies(table: &Table) -> bool {
    let options = table.options();
    options.deletion_vectors_enabled && options.merge_engine.is(MergeEngine::Deduplicate)
}

/// The keys whose newest durable record sits in a level-0 file that a lost COMPACT half should have
/// compacted (the files of [`PairStatus::Incomplete`] pairs, and of [`PairStatus::DeferredToLost`] ones, that
/// no changelog-writing compaction rewrote) and differs from both the value `stream` (the folded changelog)
/// and `rows` (the folded batch read of snapshot `latest`) give it, as [`KeyClass::DurableButUnread`] keys
/// written by that commit and blamed on the lost one.
///
/// Also returns how many of those keys neither fold holds (a key only that commit wrote), which the
/// caller adds to its count of keys.
///
/// Errors: the native reader's, on a manifest, an index or a data file of those buckets.
pub(super) fn durable_but_unread(
    table: &Arc<Table>,
    timeline: &Timeline,
    pairs: &[CommitPair],
    latest: i64,
    stream: &Folder,
    rows: &Folder,
) -> Result<(Vec<MissingKey>, usize)> {
    // (partition, bucket) -> file name -> who wrote it and whose compaction was lost.
    let mut lost: HashMap<Bucket, HashMap<&str, Lost<'_>>> = HashMap::new();
    for p in pairs {
        let lost_with = match (p.status, p.waits_for_identifier) {
            (PairStatus::Incomplete, _) => (p.commit_user.clone(), p.commit_identifier),
            (PairStatus::DeferredToLost, Some(due)) => (p.commit_user.clone(), due),
            _ => continue,
        };
        for (partition, bucket, name) in &p.waiting {
            lost.entry((partition.clone(), *bucket))
                .or_default()
                .insert(
                    name.as_str(),
                    Lost {
                        writer: p,
                        lost_with: lost_with.clone(),
                    },
                );
        }
    }
    if lost.is_empty() {
        return Ok((Vec::new(), 0));
    }
    let snapshot = table.snapshot(latest)?;
    let dvs = deletion_vector_index(table, &snapshot)?;
    let key_columns: Vec<usize> = primary_key_columns(table)?
        .into_iter()
        .map(|i| i + 1)
        .collect();
    let stream_views = stream.views();
    let row_views = rows.views();
    let mut out = Vec::new();
    let mut unseen = 0;
    for group in read_all_files(table, &snapshot, &|_| true)? {
        let Some(files) = lost.get(&(group.rendered.values.clone(), group.bucket)) else {
            continue;
        };
        let bucket_path = table.bucket_path(&group.rendered.path, group.bucket);
        let bucket_dvs = dvs.get(&(group.partition.clone(), group.bucket));
        // The lost files first (they name the keys to follow), then the other committed files of the
        // bucket, which may hold a newer record of those keys.
        let (ours, others): (Vec<_>, Vec<_>) = group
            .files
            .iter()
            .partition(|f| files.contains_key(f.file_name.as_str()));
        let mut newest: HashMap<String, Newest> = HashMap::new();
        for (i, f) in ours.iter().chain(&others).enumerate() {
            let follow_only = i >= ours.len();
            let deletion =
                bucket_dvs
                    .and_then(|m| m.get(&f.file_name))
                    .map(|loc| DeletionFileDesc {
                        path: loc.index_path.to_string_lossy().into_owned(),
                        offset: i64::from(loc.meta.offset),
                        length: i64::from(loc.meta.length),
                        cardinality: loc.meta.cardinality,
                    });
            let options = FileReadOptions {
                with_sequence_number: true,
                batch_size: DEFAULT_BATCH_SIZE,
                raw_table_read: false,
            };
            let desc = data_file_desc(f);
            for batch in read_file(table, &bucket_path, &desc, deletion.as_ref(), &options)? {
                let batch: RecordBatch = batch?;
                newer_records(
                    &batch,
                    &key_columns,
                    &f.file_name,
                    f.level,
                    follow_only,
                    &mut newest,
                );
            }
        }
        let place = |key: &str| (group.rendered.values.clone(), group.bucket, key.to_owned());
        for (key, n) in newest {
            let Some(l) = files.get(n.record.file.as_str()) else {
                continue;
            };
            let durable = n.adds.then_some(n.record.value.as_str());
            let s = stream_views.get(&place(&key));
            let t = row_views.get(&place(&key));
            if durable == value(s) || durable == value(t) {
                continue;
            }
            if s.is_none() && t.is_none() {
                unseen += 1;
            }
            let written = write_snapshot(timeline, l.writer, &n.record.file);
            out.push(MissingKey {
                partition: group.rendered.values.clone(),
                bucket: group.bucket,
                key,
                key_values: n.key_values,
                class: KeyClass::DurableButUnread,
                stream_last_event: s.map(|s| s.last_event.to_owned()),
                stream_last_snapshot: s.map(|s| s.last_snapshot),
                stream_value: value(s).unwrap_or("<none>").to_owned(),
                table_value: value(t).unwrap_or("<none>").to_owned(),
                stream_row: s.and_then(|s| s.value.map(|(_, row)| row.clone())),
                table_row: t.and_then(|t| t.value.map(|(_, row)| row.clone())),
                written_by_snapshot: written.map(|(id, _)| id),
                written_by_user: Some(l.writer.commit_user.clone()),
                written_by_identifier: Some(l.writer.commit_identifier),
                written_by_kind: written.map(|(_, kind)| kind),
                lost_with_user: Some(l.lost_with.0.clone()),
                lost_with_identifier: Some(l.lost_with.1),
                overwritten_by_snapshot: None,
                durable: Some(n.record),
            });
        }
    }
    out.sort_by(|a, b| (&a.partition, a.bucket, &a.key).cmp(&(&b.partition, b.bucket, &b.key)));
    Ok((out, unseen))
}

/// The value a fold left a key with, rendered; `None` when it has no value (retracted, or never seen).
fn value<'a>(view: Option<&KeyView<'a>>) -> Option<&'a str> {
    view.and_then(|v| v.value.map(|(r, _)| r))
}

/// Folds the records of `batch` (read with sequence numbers: `_SEQUENCE_NUMBER`, `_row_kind`, then the
/// table's columns) into `newest`, keeping per key the record with the highest sequence number (the later
/// one on a tie, as a merge of the same key keeps the last). With `follow_only`, only keys already in
/// `newest` are followed.
fn newer_records(
    batch: &RecordBatch,
    key_columns: &[usize],
    file: &str,
    level: i32,
    follow_only: bool,
    newest: &mut HashMap<String, Newest>,
) {
    let (Some(seqs), Some(kinds)) = (
        batch.column(0).as_any().downcast_ref::<Int64Array>(),
        batch.column(1).as_any().downcast_ref::<Int8Array>(),
    ) else {
        return;
    };
    for r in 0..batch.num_rows() {
        let key = render_key(batch, key_columns, r);
        let seq = seqs.value(r);
        let known = newest.get(&key).map(|n| n.record.sequence_number);
        if (follow_only && known.is_none()) || known.is_some_and(|k| k > seq) {
            continue;
        }
        let kind = kinds.value(r);
        let adds = RowKind::from_byte(kind).is_none_or(RowKind::is_add);
        let values: Vec<String> = batch
            .columns()
            .iter()
            .skip(2)
            .map(|c| render_value(c.as_ref(), r))
            .collect();
        let values = format!("({})", values.join(", "));
        newest.insert(
            key,
            Newest {
                key_values: json_row(batch, key_columns.iter().copied(), r),
                record: DurableRecord {
                    record: format!("{} {values}", row_kind_symbol(Some(kind))),
                    value: if adds { values } else { "<deleted>".to_owned() },
                    row: adds.then(|| json_row(batch, 2..batch.num_columns(), r)),
                    sequence_number: seq,
                    file: file.to_owned(),
                    level,
                },
                adds,
            },
        );
    }
}

/// The write snapshot (id and kind) of `writer` that added `file`, else its newest write snapshot.
fn write_snapshot(
    timeline: &Timeline,
    writer: &CommitPair,
    file: &str,
) -> Option<(i64, CommitKind)> {
    let ids = writer.write_snapshots();
    let writes: Vec<_> = timeline
        .snapshots()
        .into_iter()
        .filter(|s| is_write_half(s.commit_kind) && ids.contains(&s.id))
        .collect();
    writes
        .iter()
        .find(|s| {
            s.added
                .iter()
                .any(|g| g.names.iter().any(|n| n.as_str() == file))
        })
        .or(writes.last())
        .map(|s| (s.id, s.commit_kind))
}
