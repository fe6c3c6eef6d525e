//! Which commit wrote each key of part 2, and which commit's lost COMPACT half it is blamed on.

use std::collections::{BTreeMap, HashMap, HashSet};

use native_reader::manifest::{FileKind, ManifestEntry};
use native_reader::snapshot::CommitKind;
use native_reader::{RowKind, Table};

use super::completeness::raw_files_reader;
use super::fold::{primary_key_columns, render_key, render_values};
use super::{CommitPair, Completeness, MissingKey, PairStatus};
use crate::error::Result;
use crate::inspect::{is_write_half, manifest_list_entries, Timeline};

/// Fills `written_by_*` of each missing key: the newest write snapshot (APPEND or OVERWRITE) whose added
/// level-0 files in the key's (partition, bucket) hold a row equal to the table's value, or, for a key the
/// table no longer has, a retraction (`-U`/`-D`) of the key. Reads only those files, natively. Then
/// `overwritten_by_snapshot`: the INSERT OVERWRITE (an OVERWRITE with identifier `Long.MAX_VALUE`) that
/// wrote the value, or for a key the table no longer has and no write deleted, the first one after the
/// stream's last event that replaced files of its bucket.
pub(super) fn attribute(
    table: &std::sync::Arc<Table>,
    timeline: &Timeline,
    missing: &mut [MissingKey],
) -> Result<()> {
    let wanted: HashSet<(Vec<Option<String>>, i32)> = missing
        .iter()
        .map(|m| (m.partition.clone(), m.bucket))
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let key_columns = primary_key_columns(table)?;
    let mut writes: Vec<_> = timeline
        .snapshots()
        .into_iter()
        .filter(|s| is_write_half(s.commit_kind))
        .collect();
    writes.reverse();
    for s in writes {
        if missing.iter().all(|m| m.written_by_snapshot.is_some()) {
            break;
        }
        let snapshot = table.snapshot(s.id)?;
        let delta = manifest_list_entries(table, &snapshot.delta_manifest_list)?;
        let mut by_bucket: BTreeMap<(Vec<u8>, i32), Vec<&ManifestEntry>> = BTreeMap::new();
        for e in delta
            .iter()
            .filter(|e| e.kind == FileKind::Add && e.file.level == 0)
        {
            by_bucket
                .entry((e.partition.clone(), e.bucket))
                .or_default()
                .push(e);
        }
        for ((partition_bytes, bucket), entries) in by_bucket {
            let source = table.manifest_path(&snapshot.delta_manifest_list);
            let rendered = table
                .partition_computer()
                .render(&partition_bytes, &source)?;
            if !wanted.contains(&(rendered.values.clone(), bucket)) {
                continue;
            }
            let files = entries
                .iter()
                .map(|e| native_reader::scan::data_file_desc(&e.file));
            let reader = raw_files_reader(table, s.id, &rendered, bucket, files.collect())?;
            let mut added: HashSet<String> = HashSet::new();
            let mut retracted: HashSet<String> = HashSet::new();
            for b in reader {
                let b = b?;
                let kinds = b
                    .column(0)
                    .as_any()
                    .downcast_ref::<arrow_array::Int8Array>();
                for r in 0..b.num_rows() {
                    let adds = kinds
                        .and_then(|k| RowKind::from_byte(k.value(r)))
                        .is_none_or(RowKind::is_add);
                    if adds {
                        added.insert(render_values(&b, r));
                    } else {
                        retracted.insert(render_key(&b, &key_columns, r));
                    }
                }
            }
            for m in missing.iter_mut() {
                if m.written_by_snapshot.is_some()
                    || m.partition != rendered.values
                    || m.bucket != bucket
                {
                    continue;
                }
                let hit = if m.table_row.is_none() {
                    retracted.contains(&m.key)
                } else {
                    added.contains(&m.table_value)
                };
                if hit {
                    m.written_by_snapshot = Some(s.id);
                    m.written_by_user = Some(s.commit_user.clone());
                    m.written_by_identifier = Some(s.commit_identifier);
                    m.written_by_kind = Some(s.commit_kind);
                }
            }
        }
    }
    // An INSERT OVERWRITE commits with identifier Long.MAX_VALUE (a batch write; Flink refuses a streaming
    // INSERT OVERWRITE); an OVERWRITE of a checkpoint identifier is a 1.3+ write committed as OVERWRITE,
    // which pairs with its COMPACT like an APPEND and explains nothing by itself.
    let insert_overwrite = |kind: Option<CommitKind>, id: Option<i64>| {
        kind == Some(CommitKind::Overwrite) && id == Some(i64::MAX)
    };
    let overwrites: Vec<_> = timeline
        .snapshots()
        .into_iter()
        .filter(|s| insert_overwrite(Some(s.commit_kind), Some(s.commit_identifier)))
        .collect();
    for m in missing.iter_mut() {
        if insert_overwrite(m.written_by_kind, m.written_by_identifier) {
            m.overwritten_by_snapshot = m.written_by_snapshot;
        } else if m.table_row.is_none() && m.written_by_snapshot.is_none() {
            let after = m.stream_last_snapshot.unwrap_or(0);
            m.overwritten_by_snapshot = overwrites
                .iter()
                .find(|s| {
                    s.id > after
                        && s.deleted
                            .iter()
                            .any(|g| g.partition == m.partition && g.bucket == m.bucket)
                })
                .map(|s| s.id);
        }
    }
    Ok(())
}

/// Blames each missing key of `c` on the commit whose COMPACT half was lost (`lost_with_*`): the commit
/// that wrote it when its pair is incomplete, or the commit whose full compaction its level-0 files waited
/// for. Keys written by a commit whose files still wait for a full compaction due at an identifier its
/// user has not committed yet are left out as pending (`pending_compaction_keys`): not lost yet.
pub(super) fn blame(pairs: &[CommitPair], c: &mut Completeness) {
    let by_commit: HashMap<(&str, i64), &CommitPair> = pairs
        .iter()
        .map(|p| ((p.commit_user.as_str(), p.commit_identifier), p))
        .collect();
    let before = c.missing.len();
    c.missing.retain_mut(|m| {
        let (Some(user), Some(id)) = (m.written_by_user.clone(), m.written_by_identifier) else {
            return true;
        };
        let Some(p) = by_commit.get(&(user.as_str(), id)) else {
            return true;
        };
        match (p.status, p.waits_for_identifier) {
            (PairStatus::Incomplete, _) => {
                m.lost_with_user = Some(user);
                m.lost_with_identifier = Some(id);
                true
            }
            (PairStatus::DeferredToLost, Some(due)) => {
                m.lost_with_user = Some(user);
                m.lost_with_identifier = Some(due);
                true
            }
            // Not yet committed by its user: the compaction is still to come.
            (PairStatus::Deferred, Some(due)) => by_commit.contains_key(&(user.as_str(), due)),
            _ => true,
        }
    });
    c.pending_compaction_keys = before - c.missing.len();
}
