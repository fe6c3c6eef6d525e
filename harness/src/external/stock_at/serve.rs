//! The `stock@V` side of the exchange: `describe`, one `plan` or `read` request answered with release `V`'s
//! released reader, and `record` (many tables and scans planned and read in one JVM into the cache).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use jvm_bridge::JavaSplit;
use native_reader::scan::ScanMode;

use super::answer::SplitAnswer;
use super::cache::StockCache;
use super::{PAYLOAD_FORMAT, PREFIX};
use crate::error::{Error, Result};
use crate::external::{
    Action, Description, PlanAnswer, PlannedBySelf, Request, RequestSplit, ScanRequest, Status,
    PROTOCOL,
};
use crate::reader::{PlannedSplit, StockTableReader, TableReader};
use crate::replay::{resolve_table, ReplayMode};

/// What `stock-reader --paimon-version V describe` prints: it plans and reads.
pub fn describe(version: &str) -> Description {
    Description {
        protocol: PROTOCOL.to_owned(),
        reader: reader_name(version),
        actions: vec![Action::Read, Action::Plan],
    }
}

/// The reader's name in its streams (`paimon.parity.reader`): `stock@V (the released Paimon V reader)`, or
/// for a candidate this process runs, `candidate@NAME (candidate NAME (based on V), not a release)`.
fn reader_name(version: &str) -> String {
    match jvm_bridge::jvm::candidate() {
        Some(c) => format!("{}{} ({})", super::CANDIDATE_PREFIX, c.name, c.label()),
        None => format!("{PREFIX}{version} (the released Paimon {version} reader)"),
    }
}

/// The key of this reader's answers in a [`StockCache`]: the release, or for a candidate
/// `candidate-NAME-<built_at>` (a rebuilt candidate never gets an older build's answers, nor the release's).
fn cache_key(version: &str) -> String {
    match jvm_bridge::jvm::candidate() {
        Some(c) => format!(
            "candidate-{}-{}",
            c.name,
            c.built_at
                .replace(|ch: char| !ch.is_ascii_alphanumeric(), "")
        ),
        None => version.to_owned(),
    }
}

/// The released reader of this process, started on first use (the JVM of the release the process selected).
struct Released {
    reader: Option<StockTableReader>,
}

impl Released {
    fn new() -> Self {
        Released { reader: None }
    }

    /// The reader, starting the JVM the first time.
    ///
    /// Errors: [`Error::Stock`] when the JVM cannot start.
    fn get(&mut self) -> Result<&StockTableReader> {
        if self.reader.is_none() {
            self.reader = Some(StockTableReader::new()?);
        }
        self.reader
            .as_ref()
            .ok_or_else(|| Error::Scenario("internal: no stock reader".into()))
    }
}

/// Adds the request's `file_io_options` (the parent's options for a table in a store) to this process's own
/// (its `--option`s and the AWS environment, which they override), for both the native side and the JVM,
/// which starts after this.
fn apply_file_io_options(request: &Request) {
    if request.file_io_options.is_empty() {
        return;
    }
    let mut options = native_reader::fileio::configured();
    for (k, v) in &request.file_io_options {
        options.set(k.clone(), v.clone());
    }
    native_reader::fileio::configure(&options);
    jvm_bridge::stock::set_file_io_options(options.as_map());
}

/// Answers one `paimon-parity-reader/1` request read from `input` on `out` with release `version`'s released
/// reader (the process must have selected `version` before: `jvm_bridge::jvm::select_paimon_version`).
///
/// `plan`: plans the scan with release `version`'s planner and prints the plan answer, each split's
/// `java_split` being the bridge's payload ([`PAYLOAD_FORMAT`]); with `cache`, it also reads every split it
/// planned and stores plan and rows. `read`: answers one stream per requested split, in order, from the cache
/// when it holds the split, else by reading it with the released reader; a split whose `java_split` is not a
/// payload of this reader's gets an `error` stream naming why.
///
/// Errors: the request is not this protocol's JSON (or names an unknown scan mode), the table cannot be
/// planned (for `plan`), the output cannot be written. A split the released reader fails on is that split's
/// `error` stream, not an error.
pub fn serve(
    version: &str,
    input: &mut dyn Read,
    out: &mut dyn Write,
    cache: Option<&StockCache>,
) -> Result<()> {
    let mut bytes = Vec::new();
    input.read_to_end(&mut bytes).map_err(|e| Error::Io {
        path: PathBuf::from("<stdin>"),
        source: e,
    })?;
    let request: Request = serde_json::from_slice(&bytes)
        .map_err(|e| Error::Usage(format!("the request on stdin is not {PROTOCOL} JSON: {e}")))?;
    if request.protocol != PROTOCOL {
        return Err(Error::Usage(format!(
            "the request speaks `{}`, not `{PROTOCOL}`",
            request.protocol
        )));
    }
    apply_file_io_options(&request);
    let table = PathBuf::from(&request.table_path);
    let mode = scan_mode(&request.scan)?;
    let entry = match cache {
        Some(c) => Some(c.entry(&cache_key(version), &table, &request.scan)?),
        None => None,
    };
    let mut released = Released::new();
    let stdout_err = |e: std::io::Error| Error::Io {
        path: PathBuf::from("<stdout>"),
        source: e,
    };
    match request.action {
        Action::Plan => {
            let cached = entry.as_ref().and_then(|e| e.plan());
            let plan = match cached {
                Some(plan) => plan,
                None => {
                    let stock = released.get()?;
                    let (plan, answers) = plan_and_read(
                        stock,
                        &table,
                        mode,
                        request.scan.end_snapshot,
                        entry.is_some(),
                    )?;
                    if let Some(e) = &entry {
                        // A cache that cannot be written only costs a JVM start later.
                        let _ = e.store(&plan, &answers, &reader_name(version));
                    }
                    plan
                }
            };
            let text = serde_json::to_string(&plan).map_err(|e| Error::Io {
                path: PathBuf::from("<stdout>"),
                source: std::io::Error::other(e),
            })?;
            writeln!(out, "{text}").map_err(stdout_err)?;
        }
        Action::Read => {
            let cached_plan = entry.as_ref().and_then(|e| e.plan());
            let name = reader_name(version);
            for s in &request.splits {
                let cached = cached_plan.as_ref().and_then(|plan| {
                    let i = plan
                        .splits
                        .iter()
                        .position(|p| p.java_split.is_some() && p.java_split == s.java_split)?;
                    entry.as_ref()?.answer(i)
                });
                let answer = match cached {
                    Some(a) => a,
                    None => read_requested(&mut released, version, &table, s),
                };
                answer
                    .write(out, s.index, &name)
                    .map_err(|e| stdout_err(std::io::Error::other(e)))?;
            }
        }
    }
    out.flush().map_err(stdout_err)
}

/// The answer to one requested split read with the released reader: its payload decoded, the split read.
fn read_requested(
    released: &mut Released,
    version: &str,
    table: &Path,
    s: &RequestSplit,
) -> SplitAnswer {
    let payload = match payload_of(version, s) {
        Ok(p) => p,
        Err(message) => return SplitAnswer::failed(Status::Error, message),
    };
    let stock = match released.get() {
        Ok(stock) => stock,
        Err(e) => return SplitAnswer::failed(Status::Error, e.to_string()),
    };
    let planned = PlannedSplit {
        split: s.split.clone(),
        payload: Some(payload),
        wire: None,
    };
    read_one(stock, table, &planned)
}

/// The bridge payload a request split carries back.
///
/// Errors: in words, when its `java_split` is not one this reader planned.
fn payload_of(version: &str, s: &RequestSplit) -> std::result::Result<Vec<u8>, String> {
    match &s.java_split {
        Some(j) if j.format == PAYLOAD_FORMAT => base64::engine::general_purpose::STANDARD
            .decode(j.base64.as_bytes())
            .map_err(|e| format!("split {}: its `java_split` is not base64: {e}", s.index)),
        other => Err(format!(
            "{PREFIX}{version} reads only the splits it planned itself (`java_split` of format \
             `{PAYLOAD_FORMAT}`); split {} has {}: run the replay with this reader planning by itself",
            s.index,
            match other {
                Some(j) => format!("format `{}`", j.format),
                None => "none".to_owned(),
            }
        )),
    }
}

/// Reads one split the released reader planned: its rows, or its error as an `error` answer.
fn read_one(stock: &StockTableReader, table: &Path, split: &PlannedSplit) -> SplitAnswer {
    let rows = stock
        .read_split(table, split)
        .and_then(|batches| batches.collect::<Result<Vec<_>>>());
    match rows {
        Ok(batches) => SplitAnswer::rows(table, batches),
        Err(e) => SplitAnswer::failed(Status::Error, e.to_string()),
    }
}

/// Plans `mode` of `table` up to `end_snapshot` with the released planner; with `read_all`, also reads every
/// split it planned (one answer per split, in plan order).
///
/// Errors: the released planner's error.
fn plan_and_read(
    stock: &StockTableReader,
    table: &Path,
    mode: ScanMode,
    end_snapshot: i64,
    read_all: bool,
) -> Result<(PlanAnswer, Vec<SplitAnswer>)> {
    let splits = stock.plan(table, mode, end_snapshot)?;
    let plan = PlanAnswer {
        splits: splits
            .iter()
            .map(|p| PlannedBySelf {
                split: p.split.clone(),
                java_split: p.payload.as_ref().map(|payload| JavaSplit {
                    format: PAYLOAD_FORMAT.to_owned(),
                    data_split_version: 0,
                    base64: base64::engine::general_purpose::STANDARD.encode(payload),
                }),
                split_type: p.wire.as_ref().map(|w| w.split_type.clone()),
            })
            .collect(),
    };
    let answers = if read_all {
        splits.iter().map(|p| read_one(stock, table, p)).collect()
    } else {
        Vec::new()
    };
    Ok((plan, answers))
}

/// The [`ScanMode`] of a request's scan.
///
/// Errors: [`Error::Usage`] for a mode the protocol does not name.
fn scan_mode(scan: &ScanRequest) -> Result<ScanMode> {
    let from_snapshot = scan.from_snapshot.unwrap_or(1);
    Ok(match scan.mode.as_str() {
        "stream" => ScanMode::Stream { from_snapshot },
        "stream-full" => ScanMode::StreamFull { from_snapshot },
        "latest-full" => ScanMode::LatestFull,
        "batch" => ScanMode::Batch {
            snapshot: scan.snapshot,
        },
        other => {
            return Err(Error::Usage(format!(
                "unknown scan mode `{other}` (stream, stream-full, latest-full, batch)"
            )))
        }
    })
}

/// One scan `record` planned and read into the cache.
#[derive(Clone, Debug)]
pub struct RecordedScan {
    /// The table directory as given.
    pub table: PathBuf,
    /// The scan.
    pub mode: ReplayMode,
    /// Splits the released planner planned (0 when it failed).
    pub splits: usize,
    /// Whether the cache held it already (nothing was planned or read).
    pub cached: bool,
    /// Why it could not be recorded (a replay of it then asks the JVM again, and reports the same error).
    pub error: Option<String>,
}

/// Plans and reads every scan of `modes` on every table with release `version`'s released reader, in this
/// process's JVM (which must run `version`), into `cache`, as a replay of that table and mode asks for it:
/// stream scans from snapshot 1, batch scans of the latest snapshot, up to the latest snapshot when it runs.
/// Scans the cache already holds are skipped.
///
/// Errors: the JVM cannot start. A table or scan that cannot be planned is recorded with its error.
pub fn record(
    version: &str,
    tables: &[PathBuf],
    modes: &[ReplayMode],
    cache: &StockCache,
) -> Result<Vec<RecordedScan>> {
    let mut released = Released::new();
    let mut out = Vec::new();
    let bar = indicatif::ProgressBar::new((tables.len() * modes.len()) as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} stock@{msg} {pos}/{len} scans recorded")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message(version.to_owned());
    for table in tables {
        let resolved = resolve_table(table).and_then(|t| {
            let end = native_reader::snapshot::SnapshotManager::new(&t)
                .latest_snapshot_id()?
                .ok_or_else(|| Error::Table {
                    path: t.join("snapshot"),
                    reason: "the table has no snapshot to replay".into(),
                })?;
            Ok((t, end))
        });
        for mode in modes {
            bar.inc(1);
            let (path, end) = match &resolved {
                Ok(r) => r,
                Err(e) => {
                    out.push(RecordedScan {
                        table: table.clone(),
                        mode: *mode,
                        splits: 0,
                        cached: false,
                        error: Some(e.to_string()),
                    });
                    continue;
                }
            };
            let scan_mode = mode.scan_mode(1, None);
            let scan = ScanRequest::of(scan_mode, *end);
            let entry = cache.entry(&cache_key(version), path, &scan)?;
            if let Some(plan) = entry.plan() {
                out.push(RecordedScan {
                    table: table.clone(),
                    mode: *mode,
                    splits: plan.splits.len(),
                    cached: true,
                    error: None,
                });
                continue;
            }
            let stock = released.get()?;
            let recorded =
                plan_and_read(stock, path, scan_mode, *end, true).and_then(|(plan, answers)| {
                    entry.store(&plan, &answers, &reader_name(version))?;
                    Ok(plan.splits.len())
                });
            out.push(RecordedScan {
                table: table.clone(),
                mode: *mode,
                splits: *recorded.as_ref().unwrap_or(&0),
                cached: false,
                error: recorded.err().map(|e| e.to_string()),
            });
        }
    }
    bar.finish_and_clear();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_planned_by_another_reader_is_refused_by_name() {
        let split: native_reader::Split = serde_json::from_value(serde_json::json!({
            "snapshot_id": 1, "partition": [], "bucket": 0, "bucket_path": "/t/bucket-0",
            "data_files": [], "before_files": [], "deletion_files": [], "before_deletion_files": [],
            "is_streaming": true, "raw_convertible": true
        }))
        .unwrap();
        let s = RequestSplit {
            index: 4,
            split_type: "DataSplit".into(),
            java_split: Some(JavaSplit {
                format: "split-v1".into(),
                data_split_version: 8,
                base64: String::new(),
            }),
            split,
        };
        let why = payload_of("1.0.0", &s).unwrap_err();
        assert!(
            why.contains("stock@1.0.0 reads only the splits it planned"),
            "{why}"
        );
        assert!(why.contains("split 4 has format `split-v1`"), "{why}");
    }

    #[test]
    fn scan_modes_of_requests() {
        let scan = |mode: ScanMode| scan_mode(&ScanRequest::of(mode, 9)).unwrap();
        for mode in [
            ScanMode::Stream { from_snapshot: 2 },
            ScanMode::StreamFull { from_snapshot: 1 },
            ScanMode::LatestFull,
            ScanMode::Batch { snapshot: Some(3) },
            ScanMode::Batch { snapshot: None },
        ] {
            assert_eq!(scan(mode), mode);
        }
        let mut bad = ScanRequest::of(ScanMode::LatestFull, 1);
        bad.mode = "incremental".into();
        assert!(scan_mode(&bad).is_err());
    }
}
