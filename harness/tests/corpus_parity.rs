//! Both readers agree on every committed corpus: the streaming replay from snapshot 1 and the batch read of
//! the latest snapshot give the same splits and the same rows through the released Java reader and the
//! native reader.
//!
//! A corpus the native reader cannot read yet, or reads differently, must be listed in [`KNOWN`] with the
//! text of its first difference (or of the reason it is unreadable) and the issue that will fix it; then the
//! test checks that exactly that difference is still the first one. A listed corpus that has become identical
//! passes (with a note to remove its entry). Anything else fails, naming the corpus, the scan and the first
//! difference.
//!
//! The stock side runs the release this process's JVM runs (default 1.0.0; CI runs this test a second time
//! with `PAIMON_PARITY_PAIMON_VERSION` set to the other released line).

use crate::common;

use harness::reader::StockTableReader;
use harness::replay::SplitVerdict;
use harness::replay::{replay, ReplayMode, ReplayOptions, ReplayReport};

/// A difference the native reader is known to have on a committed corpus.
struct Known {
    /// Corpus directory name.
    corpus: &'static str,
    /// The scan: `stream` or `batch`.
    mode: &'static str,
    /// Text the first difference (or the unreadable split's reason, or the replay error) contains.
    first_difference: &'static str,
    /// The issue that will fix it.
    issue: &'static str,
}

/// Known differences. Empty: with the native reader of this tree every committed corpus replays identically
/// in both scans. Add an entry (and the issue that fixes it) rather than weakening the test.
const KNOWN: &[Known] = &[];

#[path = "corpus_parity/limits.rs"]
mod limits;

use limits::*;

fn options(mode: ReplayMode) -> ReplayOptions {
    ReplayOptions {
        progress: false,
        mode,
        ..ReplayOptions::default()
    }
}

/// The first thing that is not identical, in words; `None` when the replay is identical.
fn first_problem(report: &ReplayReport) -> Option<String> {
    if report.verdict == "identical" {
        return None;
    }
    if let Some(d) = &report.first_difference {
        return Some(format!(
            "{} difference at {}: {}",
            d.kind, d.split, d.detail
        ));
    }
    let unreadable = report
        .splits
        .iter()
        .find(|s| s.verdict == SplitVerdict::Unreadable);
    Some(match unreadable {
        Some(s) => format!(
            "unreadable split {}: {}",
            s.key,
            s.detail.clone().unwrap_or_default()
        ),
        None => format!("verdict {}", report.verdict),
    })
}

#[test]
fn both_readers_agree_on_every_committed_corpus() {
    let stock = StockTableReader::new().expect("JVM starts");
    let version = stock.bridge().paimon_version().expect("version");
    // Each scenario as this line's released writer wrote it (committed, or generated now).
    let corpora = common::line_corpora(&version);
    assert!(corpora.len() >= 20, "expected the committed corpora");
    check_corpora(
        &stock,
        &version,
        &corpora,
        &[("stream", ReplayMode::Stream), ("batch", ReplayMode::Batch)],
    );
}

/// `--unordered` with no memory for the rows not yet matched, so that every row of every split goes through
/// DataFusion's spilling aggregation: on every corpus this line wrote, the streaming replay's verdict, splits
/// and row counts per split equal the ordered replay's (which the test above holds to the released reader).
#[test]
fn unordered_diff_through_the_aggregation_agrees_with_the_ordered_diff_on_every_corpus() {
    let stock = StockTableReader::new().expect("JVM starts");
    let version = stock.bridge().paimon_version().expect("version");
    let native = common::native();
    let mut failures = Vec::new();
    let mut splits = 0;
    for dir in common::line_corpora(&version) {
        let table = dir.join("table");
        let ordered = replay(&table, &stock, &native, &options(ReplayMode::Stream));
        let spilling = ReplayOptions {
            unordered: true,
            unordered_memory: 0,
            ..options(ReplayMode::Stream)
        };
        let unordered = replay(&table, &stock, &native, &spilling);
        let (Ok(ordered), Ok(unordered)) = (ordered, unordered) else {
            // A table this release refuses: the test above holds it to its recorded limit.
            continue;
        };
        let shape = |r: &ReplayReport| -> Vec<String> {
            r.splits
                .iter()
                .map(|s| {
                    format!(
                        "{} {:?} {:?} {:?} {}",
                        s.key, s.verdict, s.stock_rows, s.native_rows, s.differing_rows
                    )
                })
                .collect()
        };
        splits += unordered.splits.len();
        if ordered.verdict != unordered.verdict || shape(&ordered) != shape(&unordered) {
            failures.push(format!(
                "{}: ordered {} vs unordered {}",
                common::corpus_name(&dir),
                harness::report::summary_line(&ordered),
                harness::report::summary_line(&unordered)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(splits >= 50, "only {splits} splits compared");
    eprintln!(
        "Paimon {version}: {splits} splits compared through the aggregation, as the ordered diff"
    );
}

/// The upgrade path: tables an earlier line wrote (the committed 1.0.0 corpora), replayed by this line's
/// two readers in every scan mode. Nothing to do when this process runs the line that wrote them.
#[test]
fn tables_of_an_earlier_line_replay_identically_on_this_line() {
    let stock = StockTableReader::new().expect("JVM starts");
    let version = stock.bridge().paimon_version().expect("version");
    let older: Vec<_> = common::corpora()
        .into_iter()
        .filter(|d| common::written_by(d) != version)
        .collect();
    if older.is_empty() {
        eprintln!(
            "every committed corpus was written by Paimon {version}, the line this process runs"
        );
        return;
    }
    check_corpora(&stock, &version, &older, ALL_MODES);
}

/// Tables with what 2.0.0 writes and older lines know less of (row tracking, data evolution, data evolution
/// with type changes, a fallback or primary branch, snapshot-ordered sequence numbers, BLOB updates with
/// placeholders, primary-key files in clustering order, row sidecars, shredded variants, `row` files, shared-shredding maps, `scan.bucket`, `batch-scan-mode`, lost and corrupt data files, a snapshot delay, a consumer, a table's own start options, `sort-engine=min-heap`, default values read by 1.0 to 1.2, a table's own `incremental-between`), written by 2.0.0 and replayed in every scan mode
/// by this line's two readers: a line
/// that knows the feature merges as it does, an earlier one reads the files as plain ones, quirks included
/// (1.0.0's Parquet reader remembers the columns a file lacked).
const WRITTEN_BY_2_0_0: &[&str] = &[
    "c23-row-tracking",
    "c24-data-evolution",
    "c25-data-evolution-casts",
    "c26-fallback-branch",
    "c27-data-evolution-deletes",
    "c30-snapshot-ordering",
    "c31-primary-branch",
    "c32-blob-update",
    "c33-pk-clustering",
    "c34-row-sidecar",
    "c36-variant-shredding",
    "c37-row-format",
    "c38-map-shared-shredding",
    "c38-map-shared-shredding-orc",
    "c38-map-shared-shredding-lz4",
    "c41-lance-format",
    "c41-lance-primary-key",
    "c42-vector-store",
    "c42-vector-store-rolled",
    "c42-vector-store-no-dv",
    "c43-data-evolution-not-null",
    "c44-blob-rolled",
    "c45-vortex-format",
    "c45-vortex-primary-key",
    "c46-csv-format",
    "c46-csv-line-breaks",
    "c46-csv-primary-key",
    "c46-json-format",
    "c46-json-primary-key",
    "c46-text-format",
    "c47-blob-view",
    "c48-scan-bucket",
    "c49-batch-scan-mode",
    "c50-audit-log-sequence-number",
    "c51-partial-update-removed-rows",
    "c52-aggregation-remove-record-on-delete",
    "c53-ignore-lost-and-corrupt-files",
    "c54-append-ignore-lost-and-corrupt-files",
    "c55-streaming-read-snapshot-delay",
    "c56-consumer-id",
    "c57-table-scan-snapshot-id",
    "c58-table-scan-tag-name",
    "c59-table-scan-timestamp-millis",
    "c60-table-scan-file-creation-time",
    "c61-table-scan-creation-time",
    "c62-table-scan-mode-compacted-full",
    "c63-table-scan-timestamp",
    "c64-sort-engine-min-heap",
    "c65-sort-engine-min-heap-tie",
    "c66-read-time-default-values",
    "c67-incremental-between",
    "c68-incremental-between-changelog",
    "c69-incremental-between-timestamp",
    "c70-incremental-between-timestamp-text",
    "c71-table-scan-watermark",
    "c72-scan-bounded-watermark",
    "c73-incremental-between-tags",
    "c74-incremental-to-auto-tag",
];

/// Every scan mode, as the tests name them.
const ALL_MODES: &[(&str, ReplayMode)] = &[
    ("stream", ReplayMode::Stream),
    ("stream-full", ReplayMode::StreamFull),
    ("latest-full", ReplayMode::LatestFull),
    ("batch", ReplayMode::Batch),
];

/// The committed `corpora/<name>/paimon-2.0.0` directories of `names`.
fn written_by_2_0_0(names: &[&str]) -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora");
    names
        .iter()
        .map(|name| root.join(name).join("paimon-2.0.0"))
        .collect()
}

#[test]
fn tables_2_0_0_writes_replay_identically_on_this_line() {
    let stock = StockTableReader::new().expect("JVM starts");
    let version = stock.bridge().paimon_version().expect("version");
    check_corpora(
        &stock,
        &version,
        &written_by_2_0_0(WRITTEN_BY_2_0_0),
        ALL_MODES,
    );
}

/// The corpora written by 2.0.0 with row tracking, whose system table `$row_tracking` (`RowTrackingTable`:
/// the rows with `_ROW_ID` and `_SEQUENCE_NUMBER`) is replayed in every scan mode.
const WITH_ROW_TRACKING: &[&str] = &[
    "c23-row-tracking",
    "c24-data-evolution",
    "c25-data-evolution-casts",
    "c27-data-evolution-deletes",
    "c28-blob",
    "c32-blob-update",
    "c34-row-sidecar",
    "c42-vector-store",
    "c42-vector-store-rolled",
    "c42-vector-store-no-dv",
    "c43-data-evolution-not-null",
    "c44-blob-rolled",
    "c47-blob-view",
];

/// A release that does not know BLOB refuses c28's schema first; `$row_tracking` is from 1.3.0, so both
/// readers refuse it as an earlier release; 1.3.x and 1.4.x refuse c27 as they refuse its data table. The
/// first entry that matches applies.
const ROW_TRACKING_LIMITS: &[ReleaseLimit] = &[
    C32_BLOB_UNKNOWN,
    C32_1_4_MERGED,
    C32_1_4_STREAMED,
    C32_2_0_STREAMED,
    C43_STREAMED,
    C43_BLOB_UNKNOWN,
    C44_BLOB_UNKNOWN,
    C47_BLOB_UNKNOWN,
    C47_1_4_FAILS,
    blob_unknown("c28-blob"),
    ReleaseLimit {
        corpus: "*",
        releases: &["1.0.0", "1.0.1", "1.1.1", "1.2.0"],
        modes: EVERY_MODE,
        problem: "has no system table `row_tracking` (`$row_tracking` is from 1.3.0); stock reader: \
                  java.lang.IllegalArgumentException: Paimon",
    },
    ReleaseLimit {
        corpus: "c27-data-evolution-deletes",
        releases: &["1.3.1", "1.4.2"],
        modes: EVERY_MODE,
        problem: "stock reader: java.lang.IllegalArgumentException: Data evolution config must disabled with deletion-vectors.enabled",
    },
];

/// `$binlog` of `corpus` in `modes` as 1.4.2 on read it: `BinlogRead.createReader` casts the scan's
/// `IncrementalSplit` to `DataSplit`, and the released reader fails (no native verdict).
const fn binlog_casts_incremental_split(
    corpus: &'static str,
    modes: &'static [&'static str],
) -> ReleaseLimit {
    ReleaseLimit {
        corpus,
        releases: &["1.4.2", "2.0.0"],
        modes,
        problem: "stock reader: java.lang.ClassCastException: class \
                  org.apache.paimon.table.source.IncrementalSplit cannot be cast",
    }
}

#[test]
fn row_tracking_system_tables_replay_identically_on_this_line() {
    let stock = StockTableReader::new().expect("JVM starts");
    let version = stock.bridge().paimon_version().expect("version");
    check_tables(
        &stock,
        &version,
        &written_by_2_0_0(WITH_ROW_TRACKING),
        ALL_MODES,
        "table$row_tracking",
        ROW_TRACKING_LIMITS,
    );
}

fn check_corpora(
    stock: &StockTableReader,
    version: &str,
    corpora: &[std::path::PathBuf],
    modes: &[(&str, ReplayMode)],
) {
    check_tables(stock, version, corpora, modes, "table", RELEASE_LIMITS);
}

/// [`check_corpora`] of each corpus's `table_name` (`table`, or a system table `table$row_tracking`), with
/// what each release does not read of them (`limits`).
fn check_tables(
    stock: &StockTableReader,
    version: &str,
    corpora: &[std::path::PathBuf],
    modes: &[(&str, ReplayMode)],
    table_name: &str,
    limits: &[ReleaseLimit],
) -> usize {
    let native = common::native();
    let mut failures = Vec::new();
    let mut notes = Vec::new();
    let mut identical = 0;
    // `$ro` plans its own files (a primary-key table's top level): the data table's recorded plans do not
    // apply, and a table with nothing there has nothing to compare on either side.
    let own_plan = table_name.ends_with("$ro");
    for dir in corpora {
        let name = common::corpus_name(dir);
        let written = common::written_by(dir);
        let table = dir.join(table_name);
        let case: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
        for &(mode_name, mode) in modes {
            // The released reader's own plan, recorded when the corpus was written: a scan it planned no
            // split for must say so (nothing compared), never IDENTICAL.
            let recorded = match mode_name {
                _ if own_plan => None,
                "stream" => case["expected"]["stream_from_snapshot_1"]["splits"].as_u64(),
                "batch" => case["expected"]["batch_latest"]["splits"].as_u64(),
                _ => None,
            };
            let problem = match replay(&table, stock, &native, &options(mode)) {
                Ok(report) => {
                    notes.push(format!(
                        "{name} (written by {written}) [{mode_name}]: {}",
                        harness::report::summary_line(&report)
                    ));
                    if report.verdict == "identical" {
                        identical += 1;
                    }
                    match (report.verdict, recorded) {
                        ("nothing-compared", _) if own_plan => None,
                        ("nothing-compared", Some(0)) => None,
                        ("nothing-compared", _) => Some(format!(
                            "nothing compared, but the released reader recorded {recorded:?} splits"
                        )),
                        (_, Some(0)) => Some(format!(
                            "verdict {} where the released reader recorded no split",
                            report.verdict
                        )),
                        _ => first_problem(&report),
                    }
                }
                Err(e) => Some(format!("replay failed: {e}")),
            };
            let limit = C42_LIMITS.iter().chain(limits).find(|l| {
                (l.corpus == name || l.corpus == "*")
                    && l.releases.contains(&version)
                    && l.modes.contains(&mode_name)
            });
            if let Some(l) = limit {
                match problem {
                    Some(p) if p.contains(l.problem) => notes.push(format!(
                        "{name} [{mode_name}]: as Paimon {version} does: {p}"
                    )),
                    other => failures.push(format!(
                        "{name} [{mode_name}]: expected `{}` on Paimon {version}, got {other:?}",
                        l.problem
                    )),
                }
                continue;
            }
            let known = KNOWN
                .iter()
                .find(|k| k.corpus == name && k.mode == mode_name);
            match (problem, known) {
                (None, None) => {}
                (None, Some(k)) => notes.push(format!(
                    "{name} [{mode_name}]: now identical; remove its KNOWN entry ({})",
                    k.issue
                )),
                (Some(p), Some(k)) if p.contains(k.first_difference) => notes.push(format!(
                    "{name} [{mode_name}]: known difference, to be fixed by {}: {p}",
                    k.issue
                )),
                (Some(p), Some(k)) => failures.push(format!(
                    "{name} [{mode_name}]: first difference changed (known: `{}`, {}): {p}",
                    k.first_difference, k.issue
                )),
                (Some(p), None) => failures.push(format!(
                    "{name} [{mode_name}]: {p} (no issue names this difference: fix it, or list it in KNOWN \
                     with the issue that will)"
                )),
            }
        }
    }
    eprintln!("stock: Paimon {version}\n  {}", notes.join("\n  "));
    assert!(
        failures.is_empty(),
        "the readers differ on {} corpus scan(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    identical
}

/// `$audit_log` and `$binlog` of every corpus this line wrote (batch and streaming scans) and of the
/// tables 2.0.0 wrote (every scan): the merge keeps `-U`/`-D` results (`forceKeepDelete`), no split is
/// read raw, and every row is `+I` with its kind in the column `rowkind`; `$binlog`'s columns are arrays,
/// a streaming split's `-U` packed with the row after it. The data table's limits apply (the system table
/// refuses what its table refuses).
#[test]
fn audit_log_and_binlog_system_tables_replay_identically_on_this_line() {
    let stock = StockTableReader::new().expect("JVM starts");
    let version = stock.bridge().paimon_version().expect("version");
    // From 1.4 a streaming scan plans an OVERWRITE snapshot as an `IncrementalSplit`, and a batch scan an
    // incremental diff (C73, C74), which `BinlogRead.createReader` casts to `DataSplit`: the released reader
    // fails on it (no native verdict).
    // With `table-read.sequence-number.enabled`, `PackChangelogReader` serializes the rows it packs with
    // the data table's row type, one field short of the `_SEQUENCE_NUMBER` in front: the released reader
    // fails on every streaming split holding an `-U` (no native verdict).
    let binlog_limits: Vec<ReleaseLimit> = [
        binlog_casts_incremental_split("c11-streaming-read-overwrite", &["stream"]),
        binlog_casts_incremental_split("c73-incremental-between-tags", &["batch"]),
        binlog_casts_incremental_split("c74-incremental-to-auto-tag", &["batch"]),
        ReleaseLimit {
            corpus: "c50-audit-log-sequence-number",
            releases: &["1.4.2", "2.0.0"],
            modes: &["stream", "stream-full"],
            problem: "stock reader: java.lang.IllegalArgumentException: Row arity: 3, but \
                      serializer arity: 2",
        },
        // 1.0.x keeps a removed partial-update row all NULL, its NOT NULL key included; `$binlog`'s array
        // of it fails in the released reader.
        ReleaseLimit {
            corpus: "c51-partial-update-removed-rows",
            releases: &["1.0.0", "1.0.1"],
            modes: &["latest-full", "batch"],
            problem: "stock reader: java.lang.NullPointerException",
        },
    ]
    .into_iter()
    .chain(RELEASE_LIMITS.iter().copied())
    .collect();
    for (name, limits) in [
        ("table$audit_log", RELEASE_LIMITS),
        ("table$binlog", &binlog_limits[..]),
    ] {
        check_tables(
            &stock,
            &version,
            &common::line_corpora(&version),
            &[("stream", ReplayMode::Stream), ("batch", ReplayMode::Batch)],
            name,
            limits,
        );
        check_tables(
            &stock,
            &version,
            &written_by_2_0_0(WRITTEN_BY_2_0_0),
            ALL_MODES,
            name,
            limits,
        );
    }
}

/// `$ro` of every corpus of the line and of the tables 2.0.0 wrote, batch scans: a primary-key table's top
/// level only (1.0.x: unless its batch scan skips level 0, whose filter then replaces the top-level one).
/// A primary-key table's `$ro` has no streaming scan: both readers refuse it.
#[test]
fn read_optimized_system_tables_replay_identically_on_this_line() {
    let stock = StockTableReader::new().expect("JVM starts");
    let version = stock.bridge().paimon_version().expect("version");
    let batch = &[("batch", ReplayMode::Batch)];
    let line = common::line_corpora(&version);
    // `$ro` (`ReadOptimizedTable`) reads the main branch alone on every release: no fallback branch. c53's
    // and c65's `$ro` have no file at the top level (no compaction), so not c53's lost one, nor c65's keys
    // with tied sequence numbers either.
    let limits: Vec<ReleaseLimit> = RELEASE_LIMITS
        .iter()
        .filter(|l| l.corpus != "c26-fallback-branch" || !l.releases.contains(&"1.0.0"))
        .filter(|l| {
            l.corpus != "c53-ignore-lost-and-corrupt-files"
                && l.corpus != "c65-sort-engine-min-heap-tie"
        })
        .copied()
        .collect();
    let identical = check_tables(&stock, &version, &line, batch, "table$ro", &limits);
    let written = written_by_2_0_0(WRITTEN_BY_2_0_0);
    let identical =
        identical + check_tables(&stock, &version, &written, batch, "table$ro", &limits);
    // Append tables and the primary-key tables with files at the top level (full compaction).
    assert!(
        identical >= 10,
        "only {identical} `$ro` scans compared rows"
    );
    // c01 is a primary-key table: no streaming scan of its `$ro`, on either side.
    let keyed = line
        .iter()
        .find(|d| common::corpus_name(d) == "c01-key-order")
        .expect("c01 on every line")
        .join("table$ro");
    let native = common::native();
    let text = match replay(&keyed, &stock, &native, &options(ReplayMode::Stream)) {
        Ok(report) => format!("{report:?}"),
        Err(e) => e.to_string(),
    };
    assert_eq!(
        text.matches("Unsupported streaming scan for read optimized table")
            .count()
            .min(2),
        2,
        "both readers must refuse: {text}"
    );
}

/// `blob-as-descriptor` (1.4 on): a reader asking for descriptors gets each BLOB's serialized
/// `BlobDescriptor` (its `.blob` file, offset and length). The descriptor names the table's absolute path, so
/// no committed `case.json` can hold it: c28's scenario with the option is written by this line's released
/// writer into a temporary directory, then replayed in every scan mode by both readers. A line before 1.4.1
/// cannot write BLOB, and says so.
#[test]
fn blob_descriptors_replay_identically_on_this_line() {
    let stock = StockTableReader::new().expect("JVM starts");
    let version = stock.bridge().paimon_version().expect("version");
    let line = native_reader::PaimonRelease::parse(&version).expect("a supported release");
    if line < native_reader::PaimonRelease::V1_4_2 {
        eprintln!(
            "Paimon {version} cannot write BLOB (from 1.4.1): no blob-as-descriptor table written"
        );
        return;
    }
    let source = common::repo_root().join("corpora/c28-blob/scenario.json");
    let mut scenario = harness::corpus::load_scenario(&source).expect("c28's scenario");
    scenario.name = "c28-blob-as-descriptor".into();
    scenario.paimon_version = None;
    scenario
        .table
        .options
        .insert("blob-as-descriptor".into(), "true".into());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c28-blob-as-descriptor");
    let case =
        harness::corpus::generate_scenario(&scenario, &out).expect("the released writer writes it");
    let table = std::fs::canonicalize(out.join("table")).unwrap();
    let native = common::native();
    for &(mode_name, mode) in ALL_MODES {
        let report = replay(&table, &stock, &native, &options(mode)).expect("replay runs");
        assert_eq!(
            first_problem(&report),
            None,
            "[{mode_name}] {}",
            harness::report::summary_line(&report)
        );
        assert!(report.totals.splits > 0, "[{mode_name}] compared nothing");
    }
    // The released reader's values are descriptors: version 2, `BLOBDESC`, then the `.blob` file's path.
    let first = case["expected"]["batch_latest"]["values"][0]
        .as_str()
        .unwrap()
        .to_owned();
    let hex = first.rsplit(", ").next().unwrap().trim_end_matches(')');
    assert!(hex.starts_with("0243534544424f4c42"), "{first}");
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let uri = String::from_utf8_lossy(&bytes[13..bytes.len() - 16]).into_owned();
    assert!(
        uri.ends_with(".blob") && uri.contains("c28-blob-as-descriptor/table/bucket-0/"),
        "{uri}"
    );
}
