//! Part 2 of the audit, changelog completeness (data): one reader's changelog against its batch read of
//! the latest snapshot.

use std::collections::HashSet;

use native_reader::options::MergeEngine;
use native_reader::partition::RenderedPartition;
use native_reader::scan::ScanMode;
use native_reader::table::ChangelogProducer;
use native_reader::{DataFileDesc, Split, Table};

use super::durable::durable_but_unread;
use super::fold::{missing_keys, primary_key_columns, Folder};
use super::{CommitPair, Completeness, KeyPlace, MissingKey};
use crate::error::Result;
use crate::inspect::Timeline;
use crate::reader::TableReader;

/// Part 2 with one reader: replays the changelog (from snapshot 1, or as `from-snapshot-full` from the
/// earliest retained snapshot when the history has expired) and reads the latest snapshot in batch mode,
/// folding both per primary key batch by batch (memory: one entry per key, one batch per side). On a
/// deletion-vector table, the durable files of the buckets holding level-0 files of a lost compaction
/// (`pairs`) are read natively too, for the keys no reader returns ([`super::durable`]).
///
/// With `retained_only` (an unpacked evidence bundle), splits whose files are not all on disk are left out
/// and counted in `not_retained_splits`.
///
/// Errors: the table has no primary key (nothing to fold), or the reader fails.
pub(super) fn completeness(
    reader: &dyn TableReader,
    table: &std::sync::Arc<Table>,
    timeline: &Timeline,
    pairs: &[CommitPair],
    retained_only: bool,
) -> Result<Completeness> {
    let skipped = |reason: &str| Completeness {
        reader: reader.side().to_string(),
        from_snapshot: timeline.earliest_snapshot.unwrap_or(0),
        to_snapshot: timeline.latest_snapshot.unwrap_or(0),
        started_from_full_snapshot: false,
        keys: 0,
        missing: Vec::new(),
        skipped: Some(reason.to_string()),
        pending_level0_keys: 0,
        pending_postpone_keys: 0,
        pending_compaction_keys: 0,
        not_retained_splits: 0,
    };
    let key_columns = primary_key_columns(table)?;
    if key_columns.is_empty() {
        return Ok(skipped(
            "the table has no primary key: there is no per-key changelog to fold",
        ));
    }
    let options = table.options();
    let producer = options.changelog_producer;
    if matches!(producer, ChangelogProducer::None | ChangelogProducer::Input)
        && !options.merge_engine.is(MergeEngine::Deduplicate)
    {
        return Ok(skipped(&format!(
            "with changelog-producer {} a {} table streams its raw writes, not a changelog of merged \
             values; only lookup and full-compaction produce one",
            producer.as_str(),
            options.merge_engine
        )));
    }
    if matches!(
        options.file_format.get(),
        Ok(native_reader::decode::FileFormat::Csv)
    ) {
        return Ok(skipped(
            "the table's files are csv: a batch read without merging (deletion vectors, or a split of one \
             sorted run) takes the table's columns at their positions in the files' key-value layout in the \
             released reader (`RawFileSplitRead`: sequence numbers read as keys), so the table's state is \
             not read",
        ));
    }
    // A streaming read of such a table is not the table's whole changelog: it starts at the consumer's
    // next snapshot, or holds back the recent snapshots (`AbstractDataTableScan`, `DataTableStreamScan`).
    for (option, what) in [
        ("consumer-id", "starts at the consumer's next snapshot"),
        (
            "streaming.read.snapshot.delay",
            "holds back the snapshots younger than the delay",
        ),
    ] {
        if table.schema().option(option).is_some() {
            return Ok(skipped(&format!(
                "the table sets `{option}`: a streaming read of it {what}, so it is not the table's whole \
                 changelog"
            )));
        }
    }
    // A table whose own start options conflict with `scan.snapshot-id` (an explicit `scan.mode`, a start
    // time, a tag, a watermark, an increment): the release's validation fails the audit's read of the latest snapshot by id
    // (`SchemaValidation#validateStartupMode`).
    let own_start = ["scan.mode", "log.scan"]
        .iter()
        .filter_map(|k| table.schema().option(k).map(|v| (*k, v)))
        .find(|(_, v)| !v.trim().eq_ignore_ascii_case("default"))
        .or_else(|| {
            [
                "scan.timestamp-millis",
                "log.scan.timestamp-millis",
                "scan.timestamp",
                "scan.file-creation-time-millis",
                "scan.tag-name",
                "scan.watermark",
                "incremental-between",
                "incremental-between-timestamp",
                "incremental-to-auto-tag",
            ]
            .iter()
            .find_map(|k| table.schema().option(k).map(|v| (*k, v)))
        });
    if let Some((option, value)) = own_start {
        return Ok(skipped(&format!(
            "the table sets `{option}={value}`: the release's validation fails every read that names a \
             snapshot (`scan.snapshot-id`), as the audit's read of the latest snapshot does"
        )));
    }
    // A bounded stream ends at the first snapshot past its watermark (`BoundedChecker`): the changelog after
    // it is never streamed, by the table's own choice, which is not a loss.
    if let Some(bound) = table.schema().option("scan.bounded.watermark") {
        return Ok(skipped(&format!(
            "the table sets `scan.bounded.watermark={bound}`: its streams end at the first snapshot whose \
             watermark is past it"
        )));
    }
    let schema = native_reader::types::read_schema(&table.schema().fields);
    let mut stream = Folder::new(&schema, key_columns.clone())?;
    let mut rows = Folder::new(&schema, key_columns)?;
    let (Some(earliest), Some(latest)) = (timeline.earliest_snapshot, timeline.latest_snapshot)
    else {
        return Ok(skipped("the table has no snapshot"));
    };
    let full = earliest > 1;
    let mode = if full {
        ScanMode::StreamFull {
            from_snapshot: earliest,
        }
    } else {
        ScanMode::Stream { from_snapshot: 1 }
    };
    // The location read (a branch's, `t$branch_<name>`, when the audit is of a branch).
    let path = timeline.table.as_path();
    // A batch read of a table with a fallback branch also returns the partitions the branch lacks, from the
    // fallback branch, whose changes this branch's stream never carries: those partitions are not audited.
    // With a primary branch it is the other way round: the partitions read from the primary branch (the
    // splits not marked fallback) are not this branch's, and this branch's stream of them is not audited
    // either. Both passes skip these partitions: a fallback branch's never appear in this branch's stream.
    let primary = table.primary().is_some();
    let other_branch_partitions: HashSet<Vec<Option<String>>> =
        if table.fallback().is_some() || primary {
            table
                .plan_batch(Some(latest))?
                .into_iter()
                .filter(|s| s.fallback != primary)
                .map(|s| s.partition)
                .collect()
        } else {
            HashSet::new()
        };
    let mut not_retained_splits = 0;
    for (mode, folder, changelog) in [
        (mode, &mut stream, true),
        (
            ScanMode::Batch {
                snapshot: Some(latest),
            },
            &mut rows,
            false,
        ),
    ] {
        for split in reader.plan(path, mode, latest)? {
            if retained_only && !crate::replay::retained::split_is_retained(&split.split) {
                not_retained_splits += 1;
                continue;
            }
            if other_branch_partitions.contains(&split.split.partition) {
                continue;
            }
            for batch in reader.read_split(path, &split)? {
                folder.apply(&split.split, &batch?, changelog)?;
            }
        }
    }
    let (keys, mut missing) = missing_keys(&stream, &rows);
    // Keys whose newest durable record no reader returns (level-0 files of a lost compaction, which batch
    // reads of a deletion-vector table skip): listed as such, not left out as pending below.
    let (durable, unseen) = if super::durable::applies(table) {
        durable_but_unread(table, timeline, pairs, latest, &stream, &rows)?
    } else {
        (Vec::new(), 0)
    };
    let keys = keys + unseen;
    let place = |m: &MissingKey| -> KeyPlace { (m.partition.clone(), m.bucket, m.key.clone()) };
    let durable_places: HashSet<KeyPlace> = durable.iter().map(place).collect();
    missing.retain(|m| !durable_places.contains(&place(m)));
    let mut pending_level0_keys = 0;
    if options.deletion_vectors_enabled || options.merge_engine.is(MergeEngine::FirstRow) {
        let pending = level0_keys(table, latest, &stream)?;
        let before = missing.len();
        missing.retain(|m| !pending.contains(&(m.partition.clone(), m.bucket, m.key.clone())));
        pending_level0_keys = before - missing.len();
    }
    // Keys the stream saw in the postpone bucket (2.0, `bucket = -2`): batch reads skip that bucket
    // (`SnapshotReader.onlyReadRealBuckets`) until a job moves its records into real buckets, so the table
    // view is behind the stream there; nothing is lost yet.
    let before = missing.len();
    missing.retain(|m| m.bucket != native_reader::table::POSTPONE_BUCKET);
    let pending_postpone_keys = before - missing.len();
    missing.extend(durable);
    missing.sort_by(|a, b| (&a.partition, a.bucket, &a.key).cmp(&(&b.partition, b.bucket, &b.key)));
    Ok(Completeness {
        reader: reader.side().to_string(),
        from_snapshot: earliest,
        to_snapshot: latest,
        started_from_full_snapshot: full,
        keys,
        missing,
        skipped: None,
        pending_level0_keys,
        pending_postpone_keys,
        pending_compaction_keys: 0,
        not_retained_splits,
    })
}

/// Keys (partition, bucket, rendered key) held by the level-0 files of snapshot `id`, read natively.
fn level0_keys(
    table: &std::sync::Arc<Table>,
    id: i64,
    folder: &Folder,
) -> Result<HashSet<KeyPlace>> {
    let snapshot = table.snapshot(id)?;
    let mut out = HashSet::new();
    for group in native_reader::scan::read_all_files(table, &snapshot, &|level| level == 0)? {
        let files = group.files.iter().map(native_reader::scan::data_file_desc);
        let reader = raw_files_reader(table, id, &group.rendered, group.bucket, files.collect())?;
        for batch in reader {
            let batch = batch?;
            for r in 0..batch.num_rows() {
                out.insert((
                    group.rendered.values.clone(),
                    group.bucket,
                    folder.render_key(&batch, r),
                ));
            }
        }
    }
    Ok(out)
}

/// A reader of `data_files` of one bucket as they are stored (one raw streaming split at `snapshot_id`, no
/// merge, no deletion vectors): the rows each file holds, with their stored RowKind.
///
/// Errors: the native reader's, naming the file.
pub(super) fn raw_files_reader(
    table: &std::sync::Arc<Table>,
    snapshot_id: i64,
    partition: &RenderedPartition,
    bucket: i32,
    data_files: Vec<DataFileDesc>,
) -> Result<native_reader::decode::SplitReader> {
    let split = Split {
        snapshot_id,
        partition: partition.values.clone(),
        bucket,
        bucket_path: table.bucket_path(&partition.path, bucket),
        data_files,
        before_files: Vec::new(),
        before_deletion_files: Vec::new(),
        deletion_files: Vec::new(),
        is_streaming: true,
        raw_convertible: true,
        fallback: false,
    };
    Ok(native_reader::decode::SplitReader::new(
        table.clone(),
        &split,
        native_reader::decode::DEFAULT_BATCH_SIZE,
    )?)
}
