//! `$files` (`FilesTable`): one row per data file of the latest snapshot's batch scan, partition by
//! partition, with its manifest record rendered as the released reader renders it. A table's own start
//! option that names one snapshot (`scan.snapshot-id`, a kept tag's snapshot, `scan.timestamp-millis`,
//! `scan.mode=compacted-full`, …) makes each partition's scan read that snapshot; the partitions are still
//! the latest snapshot's.
//!
//! Order: the partitions as the snapshot reader lists them (`SnapshotReader.partitions()`: the values of a
//! `ConcurrentHashMap` keyed by the partition row, i.e. by bin of the row's hash; see [`partition_order`]),
//! then for each partition the splits of a batch scan of that partition alone (`newScan()
//! .withPartitionFilter`), then each split's data files. A table with a fallback or primary branch lists
//! this branch's partitions (`newSnapshotReader` is not wrapped) and plans each through `FallbackReadScan`
//! ([`crate::scan::splits_by_partition`]); the other branch's files are rendered with this branch's
//! schemas, as `FilesRead` does with the wrapped table's `SchemaManager`.
//!
//! Columns ([`crate::line::FilesTable`]): `partition` as `$buckets` renders it
//! ([`super::files_tables::row_string`]), `file_path` the external path or `<bucket path>/<file name>`,
//! `file_format` the file name's extension, `min_key`/`max_key` `Arrays.toString` of the key's internal
//! values (the file's schema's trimmed primary key; NULL for a file without key), the value stats as
//! `{name=value, …}` maps sorted by column name (`TreeMap.toString`) over the table's current columns,
//! evolved from the file's schema ([`stats`]), `creation_time` as written (the bridge's JVM runs in UTC).

use std::collections::HashMap;
use std::ops::Range;

use super::files_tables::unsupported;
use crate::error::{Error, Result};
use crate::line::{FilesTable, PostponeBucket};
use crate::manifest::{DataFileMeta, FileKind, FileSource};
use crate::schema::{parse_atomic, DataField, DataType, TypeKind};
use crate::table::{Table, POSTPONE_BUCKET};
use crate::value::Datum;

/// `FilesTable.TABLE_TYPE` of 2.0 (name, Paimon type); `write_cols` (ARRAY<STRING>) is added by
/// [`fields`]. Earlier releases leave out `deleteRowCount` (before 1.2) and the last two (before 1.4).
const COLUMNS: &[(&str, &str)] = &[
    ("partition", "STRING"),
    ("bucket", "INT NOT NULL"),
    ("file_path", "STRING NOT NULL"),
    ("file_format", "STRING NOT NULL"),
    ("schema_id", "BIGINT NOT NULL"),
    ("level", "INT NOT NULL"),
    ("record_count", "BIGINT NOT NULL"),
    ("file_size_in_bytes", "BIGINT NOT NULL"),
    ("min_key", "STRING"),
    ("max_key", "STRING"),
    ("null_value_counts", "STRING NOT NULL"),
    ("min_value_stats", "STRING NOT NULL"),
    ("max_value_stats", "STRING NOT NULL"),
    ("min_sequence_number", "BIGINT"),
    ("max_sequence_number", "BIGINT"),
    ("creation_time", "TIMESTAMP(3)"),
    ("deleteRowCount", "BIGINT"),
    ("file_source", "STRING"),
    ("first_row_id", "BIGINT"),
];

/// The columns of `$files` as `rule`'s release defines them.
///
/// Errors: the reason when a type above does not parse (a bug here).
pub(crate) fn fields(rule: FilesTable) -> std::result::Result<Vec<DataField>, String> {
    let field = |id: usize, name: &str, data_type: DataType| DataField {
        id: id as i32,
        name: name.into(),
        data_type,
        default_value: None,
    };
    let mut out = Vec::with_capacity(rule.column_count());
    for (name, t) in COLUMNS {
        if *name == "deleteRowCount" && rule < FilesTable::DeleteRowCount {
            continue;
        }
        if *name == "first_row_id" && rule < FilesTable::RowIds {
            continue;
        }
        let data_type = parse_atomic(t).map_err(|e| format!("column `{name}`: {e}"))?;
        out.push(field(out.len(), name, data_type));
    }
    if rule >= FilesTable::RowIds {
        let string = parse_atomic("STRING").map_err(|e| e.to_string())?;
        let array = DataType {
            kind: TypeKind::Array(Box::new(string)),
            nullable: true,
        };
        out.push(field(out.len(), "write_cols", array));
    }
    Ok(out)
}

/// Rows of column values.
type Rows = Vec<Vec<Datum>>;

/// The rows of `$files` of `table`, one `Vec` of column values each ([`fields`]), in the released reader's
/// order (the module docs), with the row ranges whose order the released reader's threads decide: each
/// holds the rows of two or more partitions of one bin of its hash map ([`partition_order`]), in an order of
/// the native reader's own; within a partition the rows keep the released reader's order.
///
/// Errors: manifest and snapshot errors naming the file; [`Error::Unsupported`] naming the table or the
/// data file for what is not reproduced: a table whose own start is no one snapshot's batch scan (a file
/// creation time, an increment, an expired tag's snapshot); the start options' errors
/// ([`crate::scan::plan`]); a value whose string is not reproducible
/// (CHAR partitions); stats whose evolution is not modelled ([`super::files_stats`]); a file name without
/// extension (the released reader throws).
pub(crate) fn rows(table: &Table) -> Result<(Rows, Vec<Range<usize>>)> {
    // A table's own start option: the partitions are still the latest snapshot's, each planned by the
    // table's batch scan (`newScan()`), which reads the start's snapshot.
    let start = match super::files_tables::refuse_other_snapshots(table, "files") {
        Ok(()) => None,
        Err(refused) => match crate::scan::own_start_snapshot(table)? {
            Some(Some(id)) => Some(id),
            Some(None) => return Ok((Vec::new(), Vec::new())),
            None => return Err(refused),
        },
    };
    let rule = table.release().rules().files_table;
    let Some(id) = table.snapshot_manager().latest_snapshot_id()? else {
        return Ok((Vec::new(), Vec::new()));
    };
    let snapshot = table.snapshot(id)?;
    let bins = partition_order(table, &snapshot)?;
    let all_levels = rule >= FilesTable::AllLevels;
    let by_partition = match start {
        Some(at) => crate::scan::batch_splits_by_partition_at(table, Some(at), all_levels)?,
        None => crate::scan::splits_by_partition(table, all_levels)?,
    };
    let mut planned: HashMap<Vec<u8>, Vec<(crate::split::Split, Vec<DataFileMeta>)>> =
        by_partition.into_iter().collect();
    let mut evolutions = super::files_stats::Evolutions::new(table)?;
    let mut out = Vec::new();
    let mut unordered = Vec::new();
    for (partitions, known) in bins {
        let start = out.len();
        let mut listed = 0;
        for partition in partitions {
            let Some(splits) = planned.remove(&partition) else {
                continue;
            };
            listed += 1;
            push_partition(table, rule, &mut evolutions, &partition, splits, &mut out)?;
        }
        if !known && listed > 1 {
            unordered.push(start..out.len());
        }
    }
    Ok((out, unordered))
}

/// Appends the rows of the files of one partition (its planned splits, in plan order) to `out`.
fn push_partition(
    table: &Table,
    rule: FilesTable,
    evolutions: &mut super::files_stats::Evolutions<'_>,
    partition: &[u8],
    splits: Vec<(crate::split::Split, Vec<DataFileMeta>)>,
    out: &mut Vec<Vec<Datum>>,
) -> Result<()> {
    let partition_fields = table.partition_computer().fields().to_vec();
    let values = table
        .partition_computer()
        .decode(partition, table.meta_path())?;
    let partition_text = super::files_tables::row_string(
        table,
        rule == FilesTable::ArrayPartition,
        &partition_fields,
        &values,
    )?;
    for (split, files) in splits {
        for file in files {
            let mut row = vec![
                Datum::String(partition_text.clone()),
                Datum::Int(i64::from(split.bucket)),
                Datum::String(match &file.external_path {
                    Some(external) => external.clone(),
                    None => normalized(&format!("{}/{}", split.bucket_path, file.file_name)),
                }),
                Datum::String(format_identifier(table, rule, &file.file_name)?),
                Datum::Int(file.schema_id),
                Datum::Int(i64::from(file.level)),
                Datum::Int(file.row_count),
                Datum::Int(file.file_size),
                key_string(table, &file, &file.min_key)?,
                key_string(table, &file, &file.max_key)?,
            ];
            let [nulls, min, max] = evolutions.render(&file)?;
            row.extend([Datum::String(nulls), Datum::String(min), Datum::String(max)]);
            row.extend([
                Datum::Int(file.min_sequence_number),
                Datum::Int(file.max_sequence_number),
                file.creation_time
                    .map_or(Datum::Null, |millis| Datum::Timestamp {
                        millis,
                        nanos_of_milli: 0,
                    }),
            ]);
            if rule >= FilesTable::DeleteRowCount {
                row.push(file.delete_row_count.map_or(Datum::Null, Datum::Int));
            }
            row.push(match file.file_source {
                Some(FileSource::Append) => Datum::String("APPEND".into()),
                Some(FileSource::Compact) => Datum::String("COMPACT".into()),
                None => Datum::Null,
            });
            if rule >= FilesTable::RowIds {
                row.push(file.first_row_id.map_or(Datum::Null, Datum::Int));
                row.push(match &file.write_cols {
                    Some(cols) => {
                        Datum::List(cols.iter().map(|c| Datum::String(c.clone())).collect())
                    }
                    None => Datum::Null,
                });
            }
            out.push(row);
        }
    }
    Ok(())
}

/// A local path as Paimon's `Path` prints it: its `URI` normalized (`.` segments dropped, `a/..` pairs
/// resolved, repeated slashes collapsed); a location with a scheme (`s3://…`) is left as it is.
fn normalized(path: &str) -> String {
    if path.contains("://") || !path.starts_with('/') {
        return path.to_owned();
    }
    let mut parts: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

/// `DataFilePathFactory.formatIdentifier`: the text after the file name's last dot; from 1.3 the text
/// between the last two dots when the last is a compression extension (`HadoopCompressionType`).
///
/// Errors: [`Error::Unsupported`] naming the table for a name without a dot (the released reader throws
/// "is not a legal file name").
fn format_identifier(table: &Table, rule: FilesTable, name: &str) -> Result<String> {
    let illegal = || {
        unsupported(
            table,
            format!("data file `{name}` without a format extension"),
        )
    };
    let (stem, extension) = name.rsplit_once('.').ok_or_else(illegal)?;
    let compressed = ["gz", "bz2", "deflate", "snappy", "lz4", "zst"]
        .iter()
        .any(|c| extension.eq_ignore_ascii_case(c));
    if rule >= FilesTable::AllLevels && compressed {
        let (_, format) = stem.rsplit_once('.').ok_or_else(illegal)?;
        return Ok(format.to_owned());
    }
    Ok(extension.to_owned())
}

/// `min_key` / `max_key`: NULL for a key row without fields (append tables), else `Arrays.toString` of
/// its values read as the file's schema's trimmed primary key (its whole row type when the trimmed key is
/// empty).
fn key_string(table: &Table, file: &DataFileMeta, serialized: &[u8]) -> Result<Datum> {
    let row = crate::binary_row::BinaryRow::from_serialized(serialized).map_err(|e| {
        Error::BinaryRow {
            path: table.meta_path().to_path_buf(),
            reason: format!("key of data file `{}`: {}", file.file_name, e.0),
        }
    })?;
    if row.arity() == 0 {
        return Ok(Datum::Null);
    }
    let schema = table.schema_by_id(file.schema_id)?;
    let keys = schema.trimmed_primary_keys();
    let types: Vec<&DataType> = if keys.is_empty() {
        schema.fields.iter().map(|f| &f.data_type).collect()
    } else {
        keys.iter().map(|f| &f.data_type).collect()
    };
    let values = crate::binary_row::decode_row(serialized, &types).map_err(|e| {
        unsupported(
            table,
            format!("key of data file `{}` ({})", file.file_name, e.0),
        )
    })?;
    let mut parts = Vec::with_capacity(values.len());
    for v in &values {
        let text = v.to_legacy_string().map_err(|e| {
            unsupported(
                table,
                format!("key of data file `{}` in `$files`: {}", file.file_name, e.0),
            )
        })?;
        parts.push(text.unwrap_or_else(|| "null".into()));
    }
    Ok(Datum::String(format!("[{}]", parts.join(", "))))
}

/// The partitions of the latest snapshot as `SnapshotReader.partitions()` lists them: each manifest's
/// entries summed per partition into a `HashMap` (`PartitionEntry.merge`), whose values are then merged into
/// one `ConcurrentHashMap` (16 bins, doubled whenever its size reaches 3/4 of them; one thread per
/// manifest), listed by bin (the partition row's spread hash), partitions left without file dropped. 1.1.x
/// leaves the postpone bucket out.
///
/// Within one bin the map keeps the order its threads inserted in. Up to 1.4 a manifest's thread inserts
/// in its `HashMap`'s order, where `compute` puts a new key first in its bin: the partitions of one bin
/// come newest first; 2.0 inserts the entries as they come (first seen first). The order is known when
/// one manifest holds all the listed partitions of the bin, every other manifest holds at most the first
/// of them, and the map never grew (growing splits bins in an order not modelled here). Which partitions
/// share a bin follows from the map's final size, which follows from the number of partitions when one
/// thread fills the map; with more (more than one manifest) and more than 12 partitions, a thread that
/// loses a race skips the resize check (`ConcurrentHashMap.addCount`), so the final size, and with it the
/// order of all the partitions, is the threads' to decide.
///
/// Returns the listed partitions bin by bin, each bin with whether their order is the released reader's
/// (a bin of one partition always is); all of them as one bin whose order is not known in the last case.
///
/// Errors: manifest errors naming the file.
fn partition_order(
    table: &Table,
    snapshot: &crate::snapshot::Snapshot,
) -> Result<Vec<(Vec<Vec<u8>>, bool)>> {
    let skip_postpone = table.options().bucket == POSTPONE_BUCKET
        && table.release().rules().postpone_bucket == PostponeBucket::EveryReadSkips;
    // partition → file count; per manifest, its partitions in first-seen order.
    let mut counts: HashMap<Vec<u8>, i64> = HashMap::new();
    let mut per_manifest: Vec<Vec<Vec<u8>>> = Vec::new();
    for (_, entries) in crate::scan::read_snapshot_entries(table, snapshot)? {
        let mut seen: Vec<Vec<u8>> = Vec::new();
        for entry in entries {
            if skip_postpone && entry.bucket < 0 {
                continue;
            }
            if !seen.contains(&entry.partition) {
                seen.push(entry.partition.clone());
            }
            *counts.entry(entry.partition).or_insert(0) += if entry.kind == FileKind::Delete {
                -1
            } else {
                1
            };
        }
        per_manifest.push(seen);
    }
    let mut bins = 16usize;
    while counts.len() >= bins - bins / 4 {
        bins *= 2;
    }
    let bin_of = |partition: &[u8]| {
        let h = crate::scan::binary_row_hash(partition) as u32;
        ((h ^ (h >> 16)) & 0x7fff_ffff) as usize & (bins - 1)
    };
    let mut by_bin: std::collections::BTreeMap<usize, Vec<Vec<u8>>> = Default::default();
    for (partition, count) in counts {
        if count > 0 {
            by_bin
                .entry(bin_of(&partition))
                .or_default()
                .push(partition);
        }
    }
    let threads = per_manifest.iter().filter(|m| !m.is_empty()).count();
    if bins > 16 && threads > 1 {
        let mut all: Vec<Vec<u8>> = by_bin.into_values().flatten().collect();
        all.sort();
        return Ok(vec![(all, false)]);
    }
    let newest_first = table.release().rules().files_table < FilesTable::WriteColsStats;
    let mut out = Vec::new();
    for (_, mut partitions) in by_bin {
        if partitions.len() < 2 {
            out.push((partitions, true));
            continue;
        }
        let holds_all = |m: &Vec<Vec<u8>>| partitions.iter().all(|p| m.contains(p));
        let home = per_manifest
            .iter()
            .position(holds_all)
            .filter(|_| bins == 16);
        let Some(home) = home else {
            // Not known: listed in the bytes' order, a stable order of the native reader's own.
            partitions.sort();
            out.push((partitions, false));
            continue;
        };
        let rank = |p: &Vec<u8>| per_manifest[home].iter().position(|q| q == p);
        if newest_first {
            // Newest first: the reverse of the home manifest's first-seen order.
            partitions.sort_by_key(|p| std::cmp::Reverse(rank(p)));
        } else {
            partitions.sort_by_key(rank);
        }
        let others_only_first = per_manifest
            .iter()
            .enumerate()
            .all(|(i, m)| i == home || partitions.iter().skip(1).all(|p| !m.contains(p)));
        if !others_only_first {
            partitions.sort();
        }
        out.push((partitions, others_only_first));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line::PaimonRelease;

    fn corpus(path: &str, release: PaimonRelease) -> Table {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora");
        Table::open_as(&root.join(path), release).unwrap()
    }

    /// Columns 8..13 (`min_key` … `max_value_stats`) of each row, as strings.
    fn stats(rows: &[Vec<Datum>]) -> Vec<Vec<String>> {
        rows.iter()
            .map(|r| {
                r[8..13]
                    .iter()
                    .map(|d| match d {
                        Datum::String(s) => s.clone(),
                        other => format!("{other:?}"),
                    })
                    .collect()
            })
            .collect()
    }

    /// What the released 1.0.0 reader returns for c04 (a column added, another renamed): stats of the
    /// older schemas evolved to the current one, the added column's null count the file's row count.
    #[test]
    fn stats_of_older_schemas_as_the_released_reader_prints_them() {
        let table = corpus("c04-schema-evolution/table", PaimonRelease::V1_0_0);
        let (rows, unordered) = rows(&table).unwrap();
        assert!(unordered.is_empty());
        assert_eq!(rows[0].len(), 17);
        assert_eq!(
            stats(&rows),
            [
                [
                    "[1]",
                    "[3]",
                    "{c2=0, d=3, id=0}",
                    "{c2=a, d=null, id=1}",
                    "{c2=c, d=null, id=3}"
                ],
                [
                    "[3]",
                    "[5]",
                    "{c2=0, d=1, id=0}",
                    "{c2=c3, d=300, id=3}",
                    "{c2=e, d=300, id=5}"
                ],
                [
                    "[2]",
                    "[4]",
                    "{c2=0, d=2, id=0}",
                    "{c2=b2, d=null, id=2}",
                    "{c2=d, d=null, id=4}"
                ],
            ]
        );
        assert_eq!(rows[1][4], Datum::Int(3));
    }

    /// The released 1.0.0 reader lists c06's partitions by hash-map bin, the two of one bin newest first,
    /// as `[v1, v2]`; DATE partitions and stats as day numbers.
    #[test]
    fn partitions_in_the_order_of_the_released_reader() {
        let table = corpus("c06-null-partitions/table", PaimonRelease::V1_0_0);
        let (rows, unordered) = rows(&table).unwrap();
        assert!(unordered.is_empty(), "{unordered:?}");
        let partitions: Vec<&Datum> = rows.iter().map(|r| &r[0]).collect();
        let expected = [
            "[0, ap]",
            "[null, eu]",
            "[null, eu]",
            "[null, null]",
            "[20454, eu]",
            "[-1, ]",
            "[20454, null]",
            "[null, ]",
        ];
        assert_eq!(
            partitions,
            expected
                .iter()
                .map(|s| Datum::String((*s).into()))
                .collect::<Vec<_>>()
                .iter()
                .collect::<Vec<_>>()
        );
        assert_eq!(
            stats(&rows)[4][2..],
            [
                "{dt=0, id=0, region=0, v=0}",
                "{dt=20454, id=1, region=eu, v=10}",
                "{dt=20454, id=1, region=eu, v=10}"
            ]
        );
        assert_eq!(rows[0][8], Datum::Null);
    }

    /// c05's partitions `0.00` (updated by commit 2) and `-123456789012345678.99` share one bin of the
    /// released reader's map and reach it from different manifests, so their order there is its threads'
    /// (seen changing from run to run): one range of their 3 rows; `123456789012345678.99` has a bin alone.
    #[test]
    fn partitions_ordered_by_threads_are_one_range() {
        let table = corpus("c05-types-parquet/table", PaimonRelease::V1_0_0);
        let (rows, unordered) = rows(&table).unwrap();
        assert_eq!(unordered.len(), 1);
        assert_eq!(unordered[0], 0..3);
        let partitions: Vec<&Datum> = rows.iter().map(|r| &r[0]).collect();
        let text = |s: &str| Datum::String(s.into());
        let (zero, low) = (text("[0.00]"), text("[-123456789012345678.99]"));
        let mut range: Vec<&Datum> = partitions[..3].to_vec();
        range.sort_by_key(|d| format!("{d:?}"));
        assert_eq!(range, [&low, &zero, &zero]);
        assert_eq!(partitions[3], &text("[123456789012345678.99]"));
    }

    /// c31's main branch names `p1` as its primary branch: `$files` lists the main branch's partitions (1,
    /// 2, 4; not `p1`'s 3), and partition 2, which both branches have, with `p1`'s file, as the released
    /// 2.0.0 reader does (`data-c16f836b…`; the main branch's own is `data-8559cd9f…`, which 1.3.1, without
    /// the option, lists).
    #[test]
    fn a_primary_branch_gives_the_files_of_the_partitions_it_has() {
        let file_of_2 = |release| {
            let table = corpus("c31-primary-branch/paimon-2.0.0/table", release);
            let (rows, _) = rows(&table).unwrap();
            let partitions: Vec<String> = rows.iter().map(|r| format!("{:?}", r[0])).collect();
            assert_eq!(partitions.len(), 4, "{partitions:?}");
            assert!(
                !partitions.iter().any(|p| p.contains("{3}")),
                "{partitions:?}"
            );
            let row = rows
                .iter()
                .find(|r| r[0] == Datum::String("{2}".into()))
                .unwrap();
            match &row[2] {
                Datum::String(path) => path.rsplit('/').next().unwrap()[..13].to_owned(),
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(file_of_2(PaimonRelease::V2_0_0), "data-c16f836b");
        assert_eq!(file_of_2(PaimonRelease::V1_3_1), "data-8559cd9f");
    }
}
