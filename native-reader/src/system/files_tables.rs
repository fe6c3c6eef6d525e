//! `$partitions` (`PartitionsTable`) and `$buckets` (`BucketsTable`): the latest snapshot's data files summed
//! per partition, or per (partition, bucket), from its manifest entries as written (ADD entries counted,
//! DELETE entries subtracted, `AbstractFileStoreScan.readPartitionEntries` / `readBucketEntries`); groups
//! left with no file are dropped. `last_update_time` is the largest `_CREATION_TIME` of the group's entries,
//! DELETE entries included (`PartitionEntry.merge`), as a `TIMESTAMP(3)` wall clock (see [`super::metadata`]
//! for the JVM zone). Rows are sorted by the partition string, then the bucket.
//!
//! What differs between releases is [`crate::line::PartitionsTable`]: the partition string (`[…]`, `{…}`,
//! `k=v/…`), which levels `$partitions` counts (1.0 to 1.2 count the files the batch scan reads, so a
//! primary-key table with deletion vectors or `first-row` leaves level 0 out) and the columns (1.4 adds
//! `created_at`, `created_by`, `updated_by`, `options`, NULL for a table read without a catalog; 2.0
//! `total_buckets`, `done` and `deleted_record_count`).
//!
//! `$partitions` of a table with `scan.fallback-branch` adds the fallback branch's partitions the main branch
//! lacks (`FallbackReadScan.listPartitionEntries`); `$buckets` reads the main branch only.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::line::{PartitionsTable, PostponeBucket};
use crate::manifest::{read_index_manifest, FileKind, DELETION_VECTORS_INDEX};
use crate::partition::is_null_or_whitespace_only;
use crate::scan::BucketFilter;
use crate::schema::{DataField, TypeKind};
use crate::table::{Table, POSTPONE_BUCKET};
use crate::value::Datum;

use super::SystemTable;

/// `PartitionsTable.TABLE_TYPE` of 2.0; earlier releases have its first 5 (up to 1.3.x) or 9 (1.4.x).
const PARTITIONS_COLUMNS: &[(&str, &str)] = &[
    ("partition", "STRING"),
    ("record_count", "BIGINT NOT NULL"),
    ("file_size_in_bytes", "BIGINT NOT NULL"),
    ("file_count", "BIGINT NOT NULL"),
    ("last_update_time", "TIMESTAMP(3)"),
    ("created_at", "TIMESTAMP(3)"),
    ("created_by", "STRING"),
    ("updated_by", "STRING"),
    ("options", "STRING"),
    ("total_buckets", "INT NOT NULL"),
    ("done", "BOOLEAN NOT NULL"),
    ("deleted_record_count", "BIGINT"),
];

/// `BucketsTable.TABLE_TYPE`, the same in every release.
const BUCKETS_COLUMNS: &[(&str, &str)] = &[
    ("partition", "STRING"),
    ("bucket", "INT NOT NULL"),
    ("record_count", "BIGINT NOT NULL"),
    ("file_size_in_bytes", "BIGINT NOT NULL"),
    ("file_count", "BIGINT NOT NULL"),
    ("last_update_time", "TIMESTAMP(3)"),
];

/// The columns (name, Paimon type) of `$partitions` or `$buckets` as `rule`'s release defines them; none
/// for another system table.
pub(crate) fn columns(
    rule: PartitionsTable,
    system: SystemTable,
) -> &'static [(&'static str, &'static str)] {
    match system {
        SystemTable::Partitions => match rule {
            PartitionsTable::ArrayString
            | PartitionsTable::RowString
            | PartitionsTable::RowStringAllLevels => &PARTITIONS_COLUMNS[..5],
            PartitionsTable::Spec => &PARTITIONS_COLUMNS[..9],
            PartitionsTable::SpecWithBuckets => PARTITIONS_COLUMNS,
        },
        SystemTable::Buckets => BUCKETS_COLUMNS,
        _ => &[],
    }
}

/// One group's sums (`PartitionEntry` / `BucketEntry`).
#[derive(Clone, Debug)]
struct Totals {
    record_count: i64,
    file_size: i64,
    file_count: i64,
    last_creation: i64,
    total_buckets: i32,
    /// Where the group comes in the released reader's list before it is sorted: 0 for the main branch, 1
    /// for the fallback branch, then its bin in the `ConcurrentHashMap` the entries were merged into
    /// (`$partitions` only: groups of one bin, or of `$buckets`, have no known order among themselves).
    order: (u8, usize),
}

/// The groups of one scan: (serialized partition, bucket) → sums, with the first arrival order kept.
type Groups = Vec<((Vec<u8>, i32), Totals)>;

/// The rows of `$partitions` or `$buckets` of `table`, in the released reader's order, one `Vec` of column
/// values each ([`columns`]).
///
/// Errors: manifest and snapshot errors naming the file; [`Error::Unsupported`] naming the table or the
/// manifest for what this reader does not reproduce: `$partitions` of a table read at another snapshot
/// than the latest (`scan.snapshot-id`, `scan.tag-name`, …), a data file without `_CREATION_TIME`, a
/// partition type whose string the release renders in a way not modelled here (1.1 on: other types than
/// BOOLEAN, integers, VARCHAR/STRING, DECIMAL and DATE; 1.0: BINARY), two groups with the same partition
/// string whose order in the released reader's hash map is not known (same bin, or `$buckets`), and a
/// partition whose entries disagree on `_TOTAL_BUCKETS` (2.0).
pub(crate) fn rows(table: &Table, system: SystemTable) -> Result<Vec<Vec<Datum>>> {
    let rule = table.release().rules().partitions_table;
    let by_bucket = system == SystemTable::Buckets;
    let mut groups = if by_bucket {
        // `newSnapshotReader().bucketEntries()`: every level; 1.1.x skips the postpone bucket on every read.
        let skip_postpone = table.options().bucket == POSTPONE_BUCKET
            && table.release().rules().postpone_bucket == PostponeBucket::EveryReadSkips;
        let buckets = BucketFilter {
            real_only: skip_postpone,
            only: None,
        };
        sum_entries(table, None, true, false, buckets)?
    } else {
        partition_groups(table, rule)?
    };
    let fields = table.partition_computer().fields().to_vec();
    let mut keyed: Vec<(String, i32, Vec<u8>, Totals)> = Vec::with_capacity(groups.len());
    let spec = !by_bucket && rule >= PartitionsTable::Spec;
    for ((partition, bucket), totals) in groups.drain(..) {
        let values = table
            .partition_computer()
            .decode(&partition, table.meta_path())?;
        let text = if spec {
            spec_string(table, &fields, &values)?
        } else {
            row_string(
                table,
                rule == PartitionsTable::ArrayString,
                &fields,
                &values,
            )?
        };
        keyed.push((text, bucket, partition, totals));
    }
    // 1.0 sorts Java strings (UTF-16 units); later releases `BinaryString`s (UTF-8 bytes).
    // Equal strings (NULL and '' both the default partition name) keep the hash map's order (stable sort).
    if rule == PartitionsTable::ArrayString {
        keyed.sort_by(|a, b| {
            a.0.encode_utf16()
                .cmp(b.0.encode_utf16())
                .then(a.1.cmp(&b.1))
                .then(a.3.order.cmp(&b.3.order))
        });
    } else {
        keyed.sort_by(|a, b| {
            a.0.as_bytes()
                .cmp(b.0.as_bytes())
                .then(a.1.cmp(&b.1))
                .then(a.3.order.cmp(&b.3.order))
        });
    }
    let tied = |a: &(String, i32, Vec<u8>, Totals), b: &(String, i32, Vec<u8>, Totals)| {
        a.0 == b.0 && a.1 == b.1 && (by_bucket || a.3.order == b.3.order)
    };
    if let Some(w) = keyed.windows(2).find(|w| tied(&w[0], &w[1])) {
        return Err(unsupported(
            table,
            format!(
                "two groups of `${}` with the same partition string `{}` whose order in the released \
                 reader's hash map is not known",
                system.name(),
                w[0].0
            ),
        ));
    }
    let deleted = if rule == PartitionsTable::SpecWithBuckets && !by_bucket {
        Some(deleted_record_counts(table)?)
    } else {
        None
    };
    let mut out = Vec::with_capacity(keyed.len());
    for (text, bucket, partition, t) in keyed {
        let mut row = vec![Datum::String(text)];
        if by_bucket {
            row.push(Datum::Int(i64::from(bucket)));
        }
        row.extend([
            Datum::Int(t.record_count),
            Datum::Int(t.file_size),
            Datum::Int(t.file_count),
            Datum::Timestamp {
                millis: t.last_creation,
                nanos_of_milli: 0,
            },
        ]);
        if spec {
            // `created_at`, `created_by`, `updated_by`, `options`: a partition listed from the scan has none.
            row.extend([Datum::Null, Datum::Null, Datum::Null, Datum::Null]);
        }
        if let Some(deleted) = &deleted {
            row.push(Datum::Int(i64::from(t.total_buckets)));
            row.push(Datum::Boolean(false));
            row.push(match deleted.get(&partition) {
                Some(Some(n)) => Datum::Int(*n),
                Some(None) => Datum::Null,
                None => Datum::Int(0),
            });
        }
        out.push(row);
    }
    Ok(out)
}

/// `fileStoreTable.newScan().listPartitionEntries()` of `$partitions`: the batch scan's latest snapshot,
/// its level filter up to 1.2.x, its postpone-bucket rule and `scan.bucket` (2.0), and on a table with a fallback branch that
/// branch's partitions the main branch lacks (with a primary branch: that branch's, then this branch's
/// partitions it lacks).
///
/// A table whose own start option names one snapshot (`scan.snapshot-id`, a kept tag's snapshot, the start
/// times, `scan.watermark`, `scan.mode=compacted-full`): that snapshot's entries, as the starting scanner
/// lists them (`ReadPlanStartingScanner#scanPartitions`: `configure(snapshotReader).partitionEntries()`);
/// none when its batch scan plans nothing. Other starts (a file creation time, an increment), a start on a
/// table with a fallback or primary branch, and 2.0's `deleted_record_count` of a deletion-vector table
/// under a start (`TimeTravelUtil#tryTravelOrLatest`, another rule) stay refused by name.
fn partition_groups(table: &Table, rule: PartitionsTable) -> Result<Groups> {
    let at = match refuse_other_snapshots(table, "partitions") {
        Ok(()) => None,
        Err(refused) => {
            let other_branch = table.primary().is_some() || table.fallback().is_some();
            let deletion_counts = rule == PartitionsTable::SpecWithBuckets
                && table.options().deletion_vectors_enabled;
            if other_branch || deletion_counts {
                return Err(refused);
            }
            match crate::scan::own_start_snapshot(table)? {
                Some(Some(id)) => Some(id),
                Some(None) => return Ok(Vec::new()),
                None => return Err(refused),
            }
        }
    };
    let all_levels = rule >= PartitionsTable::RowStringAllLevels;
    // `FallbackReadScan.listPartitionEntries`: the first branch's entries, then the second's of the other
    // partitions (the primary branch first when the table has one, else this branch and its fallback).
    let fallback = match table.primary() {
        Some(_) => None,
        None => table.fallback_for_listing()?,
    };
    let (first, second): (&Table, Option<&Table>) = match table.primary() {
        Some(primary) => (primary, Some(table)),
        None => (table, fallback.as_deref()),
    };
    let skip_level_0 = !all_levels && crate::scan::batch_skips_level_0(first)?;
    let buckets = crate::scan::bucket_filter(first, false)?;
    let mut groups = sum_entries(first, at, false, skip_level_0, buckets)?;
    if let Some(fallback) = second {
        let skip_level_0 = !all_levels && crate::scan::batch_skips_level_0(fallback)?;
        let buckets = crate::scan::bucket_filter(fallback, false)?;
        let main: std::collections::HashSet<Vec<u8>> =
            groups.iter().map(|((p, _), _)| p.clone()).collect();
        for mut group in sum_entries(fallback, None, false, skip_level_0, buckets)? {
            group.1.order.0 = 1;
            if !main.contains(&(group.0).0) {
                groups.push(group);
            }
        }
    }
    Ok(groups)
}

/// Refuses system table `name` of a table whose options make its batch scan start elsewhere than at the
/// latest snapshot (`scan.snapshot-id`, `scan.tag-name`, …, a `scan.mode` other than the full ones): the
/// released reader's listing and its scans would read different snapshots.
///
/// Errors: [`Error::Unsupported`] naming the table and the option.
pub(super) fn refuse_other_snapshots(table: &Table, name: &str) -> Result<()> {
    refuse_start_options(table, name, &[])
}

/// [`refuse_other_snapshots`], but for the start options in `handled`, which the caller reads.
///
/// Errors: as [`refuse_other_snapshots`].
pub(super) fn refuse_start_options(table: &Table, name: &str, handled: &[&str]) -> Result<()> {
    for (key, value) in &table.schema().options {
        if handled.contains(&key.as_str()) {
            continue;
        }
        let starting = matches!(
            key.as_str(),
            "scan.snapshot-id"
                | "scan.tag-name"
                | "scan.watermark"
                | "scan.timestamp-millis"
                | "log.scan.timestamp-millis"
                | "scan.timestamp"
                | "scan.version"
                | "scan.file-creation-time-millis"
                | "incremental-between"
                | "incremental-between-timestamp"
        ) || (key == "scan.creation-time-millis"
            && table.release() >= crate::line::PaimonRelease::V1_2_0)
            || (key == "incremental-to-auto-tag"
                && table.release() >= crate::line::PaimonRelease::V1_1_1)
            || ((key == "scan.mode" || key == "log.scan")
                && !["default", "latest", "latest-full", "full"]
                    .iter()
                    .any(|m| value.eq_ignore_ascii_case(m)));
        if starting {
            return Err(unsupported(
                table,
                format!("system table `{name}` of a table with `{key}={value}`"),
            ));
        }
    }
    Ok(())
}

/// Sums the manifest entries of snapshot `at` of `table` (the latest when `None`) per partition (and per bucket when `by_bucket`),
/// leaving out level 0 when `skip_level_0` and the buckets `buckets` does not keep; groups without a file left are
/// dropped. No snapshot: no group.
fn sum_entries(
    table: &Table,
    at: Option<i64>,
    by_bucket: bool,
    skip_level_0: bool,
    buckets: BucketFilter,
) -> Result<Groups> {
    let Some(id) = at.map_or_else(
        || table.snapshot_manager().latest_snapshot_id(),
        |id| Ok(Some(id)),
    )?
    else {
        return Ok(Vec::new());
    };
    let snapshot = table.snapshot(id)?;
    let mut index: HashMap<(Vec<u8>, i32), usize> = HashMap::new();
    let mut groups: Groups = Vec::new();
    for (path, entries) in crate::scan::read_snapshot_entries(table, &snapshot)? {
        for entry in entries {
            if (skip_level_0 && entry.file.level <= 0) || !buckets.keeps(entry.bucket) {
                continue;
            }
            let Some(created) = entry.file.creation_time else {
                return Err(Error::Unsupported {
                    path: path.clone(),
                    reason: format!(
                        "data file `{}` without `_CREATION_TIME` (the released reader's \
                         `creationTimeEpochMillis` fails on it)",
                        entry.file.file_name
                    ),
                });
            };
            let sign = if entry.kind == FileKind::Delete {
                -1
            } else {
                1
            };
            let key = (entry.partition, if by_bucket { entry.bucket } else { 0 });
            let slot = *index.entry(key.clone()).or_insert_with(|| {
                groups.push((
                    key,
                    Totals {
                        record_count: 0,
                        file_size: 0,
                        file_count: 0,
                        last_creation: created,
                        total_buckets: entry.total_buckets,
                        order: (0, 0),
                    },
                ));
                groups.len() - 1
            });
            let t = &mut groups[slot].1;
            if t.total_buckets != entry.total_buckets && !by_bucket {
                return Err(Error::Unsupported {
                    path: path.clone(),
                    reason: "a partition whose manifest entries disagree on `_TOTAL_BUCKETS` (the \
                             released reader keeps whichever it merges last)"
                        .into(),
                });
            }
            t.record_count += sign * entry.file.row_count;
            t.file_size += sign * entry.file.file_size;
            t.file_count += sign;
            t.last_creation = t.last_creation.max(created);
        }
    }
    // `ConcurrentHashMap`: 16 bins, doubled whenever the size reaches 3/4 of them; a key's bin is its
    // spread hash (`h ^ h >>> 16`, sign bit cleared) modulo the bins. Its values are listed by bin.
    let mut bins = 16usize;
    while groups.len() >= bins - bins / 4 {
        bins *= 2;
    }
    for ((partition, _), t) in groups.iter_mut() {
        let h = crate::scan::binary_row_hash(partition) as u32;
        t.order.1 = ((h ^ (h >> 16)) & 0x7fff_ffff) as usize & (bins - 1);
    }
    groups.retain(|(_, t)| t.file_count > 0);
    Ok(groups)
}

/// The partition as `$buckets` (every release), `$partitions` (up to 1.3.x) and `$manifests`' bounds render
/// it: with `arrays` (1.0) `[v1, v2]` of the values' Java `toString` (`Arrays.toString`), else `{v1, v2}` of
/// the values CAST to STRING (`RowToStringCastRule`); NULL as `null`.
pub(super) fn row_string(
    table: &Table,
    arrays: bool,
    fields: &[DataField],
    values: &[Datum],
) -> Result<String> {
    let mut parts = Vec::with_capacity(values.len());
    for (field, value) in fields.iter().zip(values) {
        let text = if value.is_null() {
            "null".to_owned()
        } else if arrays {
            value
                .to_legacy_string()
                .map_err(|e| unsupported(table, format!("partition column `{}`: {e}", field.name)))?
                .unwrap_or_default()
        } else {
            cast_to_string(table, field, value)?
        };
        parts.push(text);
    }
    Ok(if arrays {
        format!("[{}]", parts.join(", "))
    } else {
        format!("{{{}}}", parts.join(", "))
    })
}

/// CAST(value AS STRING) for the partition types whose cast is reproduced (not CHAR, whose padding is not
/// modelled).
fn cast_to_string(table: &Table, field: &DataField, value: &Datum) -> Result<String> {
    if matches!(field.data_type.kind, TypeKind::Char(_)) {
        return Err(unsupported(
            table,
            format!(
                "CHAR partition column `{}` in a partitions string",
                field.name
            ),
        ));
    }
    crate::partition::cast_to_string(field, value).map_err(|e| unsupported(table, e.0))
}

/// 1.4 on: `k1=v1/k2=v2`, each value CAST to STRING (the partition spec read back as the column's type,
/// `convertSpecToInternalRow`); NULL, and a value whose spec string is empty, blank or the default
/// partition name, as the default partition name.
fn spec_string(table: &Table, fields: &[DataField], values: &[Datum]) -> Result<String> {
    let options = table.options();
    let default = &options.partition_default_name;
    let mut parts = Vec::with_capacity(values.len());
    for (field, value) in fields.iter().zip(values) {
        let spec = if value.is_null() {
            None
        } else if options.partition_legacy_name {
            value.to_legacy_string().map_err(|e| {
                unsupported(table, format!("partition column `{}`: {e}", field.name))
            })?
        } else {
            Some(cast_to_string(table, field, value)?)
        };
        let text = match spec {
            Some(s) if !is_null_or_whitespace_only(Some(&s)) && s != *default => {
                cast_to_string(table, field, value)?
            }
            _ => default.clone(),
        };
        parts.push(format!("{}={text}", field.name));
    }
    Ok(parts.join("/"))
}

/// 2.0 `deleted_record_count` per serialized partition: with deletion vectors, the sum of the cardinalities
/// of the latest snapshot's deletion vectors (`None` once one has no cardinality); without, none (0).
fn deleted_record_counts(table: &Table) -> Result<HashMap<Vec<u8>, Option<i64>>> {
    let mut out: HashMap<Vec<u8>, Option<i64>> = HashMap::new();
    if !table.options().deletion_vectors_enabled {
        return Ok(out);
    }
    let Some(id) = table.snapshot_manager().latest_snapshot_id()? else {
        return Ok(out);
    };
    let Some(name) = table.snapshot(id)?.index_manifest else {
        return Ok(out);
    };
    for entry in read_index_manifest(&table.manifest_path(&name))? {
        if entry.index_type != DELETION_VECTORS_INDEX || entry.kind != FileKind::Add {
            continue;
        }
        let Some(vectors) = entry.deletion_vectors.filter(|v| !v.is_empty()) else {
            continue;
        };
        let slot = out.entry(entry.partition).or_insert(Some(0));
        for v in vectors {
            *slot = match (*slot, v.cardinality) {
                (Some(n), Some(c)) => Some(n + c),
                _ => None,
            };
        }
    }
    Ok(out)
}

/// [`Error::Unsupported`] naming `table`'s branch directory.
pub(super) fn unsupported(table: &Table, reason: String) -> Error {
    Error::Unsupported {
        path: table.meta_path().to_path_buf(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line::PaimonRelease;

    fn corpus(path: &str, release: PaimonRelease) -> Table {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora");
        Table::open_as(&root.join(path), release).unwrap()
    }

    /// (partition, record_count, file_size_in_bytes) of each row.
    fn summary(rows: &[Vec<Datum>]) -> Vec<(String, i64, i64)> {
        rows.iter()
            .map(|r| match (&r[0], &r[1], &r[2]) {
                (Datum::String(p), Datum::Int(n), Datum::Int(size)) => (p.clone(), *n, *size),
                other => panic!("unexpected row {other:?}"),
            })
            .collect()
    }

    /// The rows below are what the released 1.0.0 and 2.0.0 readers return for this corpus (its NULL and
    /// empty partitions): 1.0 prints the DATE's day number and sorts `[null, ]` before `[null, eu]`; 2.0
    /// renders NULL and '' alike and keeps the NULL partition (bin 0 of its hash map) first.
    #[test]
    fn partitions_of_null_and_empty_partitions_as_the_released_readers_list_them() {
        let old = corpus("c06-null-partitions/table", PaimonRelease::V1_0_0);
        let got = rows(&old, SystemTable::Partitions).unwrap();
        assert_eq!(
            summary(&got),
            [
                ("[-1, ]".to_owned(), 1, 784),
                ("[0, ap]".into(), 1, 798),
                ("[20454, eu]".into(), 1, 798),
                ("[20454, null]".into(), 1, 771),
                ("[null, ]".into(), 1, 748),
                ("[null, eu]".into(), 2, 1524),
                ("[null, null]".into(), 1, 736),
            ]
        );
        assert_eq!(got[0].len(), 5);
        let new = corpus("c06-null-partitions/table", PaimonRelease::V2_0_0);
        let rows = rows(&new, SystemTable::Partitions).unwrap();
        let both = "dt=__DEFAULT_PARTITION__/region=__DEFAULT_PARTITION__";
        let got = summary(&rows);
        assert_eq!(got.len(), 7);
        assert_eq!(
            got[0],
            ("dt=1969-12-31/region=__DEFAULT_PARTITION__".into(), 1, 784)
        );
        assert_eq!(got[4], (both.into(), 1, 736));
        assert_eq!(got[5], (both.into(), 1, 748));
        assert_eq!(
            got[6],
            ("dt=__DEFAULT_PARTITION__/region=eu".into(), 2, 1524)
        );
        // total_buckets (-1: dynamic), done, deleted_record_count (no deletion vectors: 0).
        assert_eq!(
            rows[6][9..],
            [Datum::Int(-1), Datum::Boolean(false), Datum::Int(0)]
        );
    }

    /// The released 2.0.0 reader: one unpartitioned row, 226 records in 2 files, 4 rows deleted by
    /// deletion vectors.
    #[test]
    fn deleted_record_count_sums_the_deletion_vectors() {
        let table = corpus(
            "c07-deletion-vectors/paimon-2.0.0/table",
            PaimonRelease::V2_0_0,
        );
        let rows = rows(&table, SystemTable::Partitions).unwrap();
        assert_eq!(summary(&rows), [(String::new(), 226, 3901)]);
        assert_eq!(rows[0][3], Datum::Int(2));
        assert_eq!(
            rows[0][9..],
            [Datum::Int(1), Datum::Boolean(false), Datum::Int(4)]
        );
    }

    /// The released 1.2.0 reader counts the batch scan's files of a deletion-vector table (level 0 left
    /// out), 1.3.1 every level; 1.2.0 on lists the postpone bucket in `$buckets`.
    #[test]
    fn partitions_count_the_levels_of_their_release_and_buckets_list_the_postpone_bucket() {
        let c22 = "c22-lookup-dv-level0-lost/table";
        let old = rows(&corpus(c22, PaimonRelease::V1_2_0), SystemTable::Partitions).unwrap();
        assert_eq!(summary(&old), [("{}".to_owned(), 3, 1136)]);
        let new = rows(&corpus(c22, PaimonRelease::V1_3_1), SystemTable::Partitions).unwrap();
        assert_eq!(summary(&new), [("{}".to_owned(), 7, 2258)]);
        assert_eq!(new[0][3], Datum::Int(2));
        let postpone = corpus(
            "c16-postpone-bucket/paimon-2.0.0/table",
            PaimonRelease::V2_0_0,
        );
        let buckets = rows(&postpone, SystemTable::Buckets).unwrap();
        assert_eq!(buckets.len(), 1);
        assert_eq!(
            buckets[0][..4],
            [
                Datum::String("{}".into()),
                Datum::Int(-2),
                Datum::Int(5),
                Datum::Int(762)
            ]
        );
        assert!(rows(&postpone, SystemTable::Partitions).unwrap().is_empty());
    }
}
