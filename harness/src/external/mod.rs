//! External readers: any Paimon reader, run as a command speaking `paimon-parity-reader/1`
//! (`adapters/README.md`), checked against the released reader like the native one.
//!
//! [`ExternalReader`] implements [`TableReader`]. By default it reads the splits the released planner
//! produced ([`TableReader::reads_released_plan`]): the replay hands them over in one request per table and
//! scan ([`TableReader::begin_read`]) and then asks for each split in plan order. With
//! [`ExternalReader::plans_by_itself`] it is first asked to plan the scan (`action: plan`), and the replay
//! diffs its plan against the released one before reading its own splits.
//!
//! Readers are declared by name ([`ReaderSpec`]): the ones shipped with the project in
//! `adapters/readers.json` ([`shipped_readers`]), others with `--reader-command NAME=COMMAND`.

mod protocol;
mod session;
pub mod stock_at;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema};
use native_reader::scan::ScanMode;
use native_reader::Split;
use serde::Deserialize;

pub use protocol::{
    Action, Description, PlanAnswer, PlannedBySelf, Request, RequestSplit, ScanRequest, Status,
    META_MESSAGE, META_READER, META_SPLIT, META_STATUS, PROTOCOL,
};
use session::{Answer, Session};

use crate::error::{Error, ExternalFailure, Result, Side};
use crate::reader::{Batches, PlannedSplit, TableReader};

/// Default of `--reader-timeout`: seconds a reader may take to answer one split.
pub const DEFAULT_TIMEOUT_SECS: u64 = 300;

/// Environment variable naming a directory the harness copies every request it sends into (for adapter
/// authors: `request-<n>-<reader>.json`).
pub const REQUEST_DIR_ENV: &str = "PAIMON_PARITY_READER_REQUEST_DIR";

/// A reader as declared: its name and the command that runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReaderSpec {
    /// The name `--reader` uses and reports show.
    pub name: String,
    /// Program and arguments.
    pub command: Vec<String>,
    /// How to set it up, for the message when the program is missing.
    pub setup: Option<String>,
}

impl ReaderSpec {
    /// Parses `--reader-command NAME=COMMAND` (the command split on whitespace, no shell).
    ///
    /// Errors: [`Error::Usage`] without a `=`, with an empty name or command.
    pub fn parse_flag(flag: &str) -> Result<Self> {
        let (name, command) = flag.split_once('=').ok_or_else(|| {
            Error::Usage(format!(
                "--reader-command `{flag}`: expected NAME=COMMAND, e.g. mine='/opt/my-reader --verbose'"
            ))
        })?;
        let command: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
        if name.trim().is_empty() || command.is_empty() {
            return Err(Error::Usage(format!(
                "--reader-command `{flag}`: both the name and the command must be given"
            )));
        }
        Ok(ReaderSpec {
            name: name.trim().to_owned(),
            command,
            setup: None,
        })
    }
}

#[derive(Deserialize)]
struct ShippedReader {
    command: Vec<String>,
    #[serde(default)]
    setup: Option<String>,
}

/// The repository root (the directory holding `adapters/`), as built.
pub fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The cache directory outside the clone: `$PAIMON_PARITY_CACHE`, else `$HOME/.cache/paimon-parity`.
pub fn cache_dir() -> PathBuf {
    match std::env::var_os("PAIMON_PARITY_CACHE") {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/paimon-parity")
        }
    }
}

/// The readers shipped with the project (`adapters/readers.json`): name → command, with `${REPO}` (the
/// repository root), `${CACHE}` ([`cache_dir`]) and `${EXAMPLE_READER}` (the example adapter built next
/// to this binary) expanded.
///
/// Errors: [`Error::TableSource`] naming the file when it cannot be read or is not the expected JSON.
pub fn shipped_readers() -> Result<Vec<ReaderSpec>> {
    let path = repository_root().join("adapters/readers.json");
    let text = std::fs::read_to_string(&path).map_err(|e| Error::TableSource {
        path: path.clone(),
        context: "cannot read the shipped readers".into(),
        source: e.into(),
    })?;
    let map: BTreeMap<String, ShippedReader> =
        serde_json::from_str(&text).map_err(|e| Error::TableSource {
            path: path.clone(),
            context: "not a JSON object of name -> {command, setup}".into(),
            source: e.into(),
        })?;
    let repo = repository_root().display().to_string();
    let cache = cache_dir().display().to_string();
    let example = example_reader_path().display().to_string();
    let expand = |s: &str| {
        s.replace("${REPO}", &repo)
            .replace("${CACHE}", &cache)
            .replace("${EXAMPLE_READER}", &example)
    };
    Ok(map
        .into_iter()
        .map(|(name, r)| ReaderSpec {
            name,
            command: r.command.iter().map(|c| expand(c)).collect(),
            setup: r.setup.as_deref().map(expand),
        })
        .collect())
}

/// Where `paimon-parity-example-reader` is: next to the running binary (or one directory up, for test
/// binaries in `deps/`).
pub fn example_reader_path() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = "paimon-parity-example-reader";
    let here = dir.join(name);
    if here.exists() {
        return here;
    }
    dir.parent().map(|p| p.join(name)).unwrap_or(here)
}

/// One split's answer as the harness keeps it.
struct Kept {
    index: usize,
    outcome: std::result::Result<Vec<RecordBatch>, (ExternalFailure, String)>,
}

/// The state of the current read request.
struct ReadState {
    splits: Vec<Split>,
    session: std::result::Result<Session, String>,
    /// Next index to receive from the session.
    next: usize,
    /// The last answer handed out, kept for a second read of the same split.
    last: Option<Kept>,
    /// Expected column names after `_row_kind`.
    columns: Option<Vec<String>>,
    /// When the request was sent (the session started).
    started: std::time::Instant,
    /// When the last answer received ended.
    last_byte: Option<std::time::Instant>,
    /// Per answer received, in order: its first and last byte's arrival.
    timings: Vec<crate::reader::AnswerTiming>,
}

/// An external reader behind [`TableReader`].
pub struct ExternalReader {
    spec: ReaderSpec,
    side: Side,
    timeout: Duration,
    plans: bool,
    reader_name: Mutex<Option<String>>,
    state: Mutex<Option<ReadState>>,
}

impl ExternalReader {
    /// A reader running `spec.command`, reading the released planner's splits, with the default timeout.
    pub fn new(spec: ReaderSpec) -> Self {
        // Reports name sides by a `&'static str`; readers are few per process.
        let side = Side::External(Box::leak(spec.name.clone().into_boxed_str()));
        ExternalReader {
            spec,
            side,
            timeout: Duration::from_secs(DEFAULT_TIMEOUT_SECS),
            plans: false,
            reader_name: Mutex::new(None),
            state: Mutex::new(None),
        }
    }

    /// Sets how long the reader may take to answer one split (`--reader-timeout`).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Lets the reader plan by itself (`--reader-plans`) when its `describe` lists `plan`.
    pub fn plans_by_itself(mut self, plans: bool) -> Self {
        self.plans = plans;
        self
    }

    /// The arrival times of the answers of the current (last) read request, in split order.
    pub fn answer_timings(&self) -> Vec<crate::reader::AnswerTiming> {
        self.state
            .lock()
            .ok()
            .and_then(|s| s.as_ref().map(|s| s.timings.clone()))
            .unwrap_or_default()
    }

    /// The declared spec.
    pub fn spec(&self) -> &ReaderSpec {
        &self.spec
    }

    /// The reader's own name and version from its streams (`paimon.parity.reader`), once it answered.
    pub fn reported_name(&self) -> Option<String> {
        self.reader_name.lock().ok().and_then(|n| n.clone())
    }

    /// Runs `COMMAND describe` and parses its answer.
    ///
    /// Errors: [`Error::External`] when the program is missing (with the set-up command when known),
    /// fails, or does not print a [`Description`] of [`PROTOCOL`].
    pub fn describe(&self) -> Result<Description> {
        let mut command = self.spec.command.clone();
        command.push("describe".into());
        let output = std::process::Command::new(&command[0])
            .args(&command[1..])
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| self.failure(ExternalFailure::Error, self.missing(&e), ""))?;
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        if !output.status.success() {
            return Err(self.failure(
                ExternalFailure::Error,
                format!("`{}` failed ({})", command.join(" "), output.status),
                &stderr,
            ));
        }
        let d: Description = serde_json::from_slice(&output.stdout).map_err(|e| {
            self.failure(
                ExternalFailure::Error,
                format!(
                    "`{}` did not print a JSON description: {e}",
                    command.join(" ")
                ),
                &stderr,
            )
        })?;
        if d.protocol != PROTOCOL {
            return Err(self.failure(
                ExternalFailure::Error,
                format!("speaks `{}`, not `{PROTOCOL}`", d.protocol),
                &stderr,
            ));
        }
        Ok(d)
    }

    fn missing(&self, e: &std::io::Error) -> String {
        self.with_setup_hint(format!("cannot start `{}`: {e}", self.spec.command[0]))
    }

    /// `message`, then how to set the reader up, when its declaration says.
    fn with_setup_hint(&self, message: String) -> String {
        match &self.spec.setup {
            Some(setup) => format!("{message}; set it up with `{setup}`"),
            None => message,
        }
    }

    fn failure(&self, kind: ExternalFailure, message: String, stderr: &str) -> Error {
        Error::External {
            reader: self.spec.name.clone(),
            kind,
            message,
            stderr: stderr.to_owned(),
        }
    }

    fn send(&self, request: &Request) -> Result<Vec<u8>> {
        let bytes = serde_json::to_vec(request).map_err(|e| {
            self.failure(
                ExternalFailure::Error,
                format!("cannot encode the request: {e}"),
                "",
            )
        })?;
        if let Some(dir) = std::env::var_os(REQUEST_DIR_ENV) {
            static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let path = Path::new(&dir).join(format!("request-{n}-{}.json", self.spec.name));
            let _ = std::fs::create_dir_all(&dir);
            let _ = std::fs::write(path, serde_json::to_vec_pretty(request).unwrap_or_default());
        }
        Ok(bytes)
    }

    /// The answer to split `index` of the current request, checked: status, split number, columns.
    fn receive(&self, state: &mut ReadState, index: usize) -> Kept {
        if let Some(kept) = &state.last {
            if kept.index == index {
                return Kept {
                    index,
                    outcome: kept.outcome.clone(),
                };
            }
        }
        let outcome = loop {
            let session = match &mut state.session {
                Ok(s) => s,
                Err(e) => break Err((ExternalFailure::Error, e.clone())),
            };
            if state.next > index {
                break Err((
                    ExternalFailure::Error,
                    format!(
                        "internal: split {index} was asked for after split {}",
                        state.next
                    ),
                ));
            }
            let answer = session.next(self.timeout);
            let received = state.next;
            state.next += 1;
            let answer = match answer {
                Ok(a) => {
                    let previous = state.last_byte.unwrap_or(state.started);
                    state.timings.push(crate::reader::AnswerTiming {
                        to_first_byte: a.first_byte.saturating_duration_since(previous),
                        first_to_last_byte: a.last_byte.saturating_duration_since(a.first_byte),
                    });
                    state.last_byte = Some(a.last_byte);
                    a
                }
                Err(f) => {
                    // The reader ended or failed: what it wrote last on stderr says why.
                    let tail = session.final_stderr_tail(Duration::from_secs(1));
                    break Err((ExternalFailure::Error, with_tail(f, &tail)));
                }
            };
            if received < index {
                continue;
            }
            let tail = session.stderr_tail();
            // The reader's own error and unsupported statuses carry its message; only what the harness
            // found wrong with the output gets the stderr tail.
            break self
                .check(answer, index, state.columns.as_deref())
                .map_err(|(k, m, own)| (k, if own { m } else { with_tail(m, &tail) }));
        };
        Kept { index, outcome }
    }

    fn check(
        &self,
        answer: Answer,
        index: usize,
        columns: Option<&[String]>,
    ) -> std::result::Result<Vec<RecordBatch>, (ExternalFailure, String, bool)> {
        let meta = answer.schema.metadata();
        if let Some(name) = meta.get(META_READER) {
            if let Ok(mut n) = self.reader_name.lock() {
                n.get_or_insert_with(|| name.clone());
            }
        }
        let error = |m: String| Err((ExternalFailure::Error, m, false));
        match meta.get(META_SPLIT).map(|s| s.trim().parse::<usize>()) {
            Some(Ok(i)) if i == index => {}
            Some(Ok(i)) => {
                return error(format!(
                    "the stream in position {index} answers split {i} (`{META_SPLIT}`)"
                ))
            }
            _ => {
                return error(format!(
                "the stream of split {index} has no numeric `{META_SPLIT}` in its schema metadata"
            ))
            }
        }
        let message = meta.get(META_MESSAGE).cloned().unwrap_or_default();
        match meta.get(META_STATUS).map(|s| Status::parse(s)) {
            Some(Some(Status::Ok)) => {}
            Some(Some(Status::Error)) => {
                return Err((ExternalFailure::Error, or_unsaid(message), true));
            }
            Some(Some(Status::Unsupported)) => {
                return Err((ExternalFailure::Unsupported, or_unsaid(message), true));
            }
            Some(None) | None => {
                return error(format!(
                    "the stream of split {index} has no `{META_STATUS}` of ok, error or unsupported"
                ))
            }
        }
        let fields = answer.schema.fields();
        match fields.first() {
            Some(f)
                if f.name() == native_reader::types::ROW_KIND_COLUMN
                    && f.data_type() == &DataType::Int8 => {}
            Some(f) => {
                return error(format!(
                    "wrong schema: the first column is `{}` {}, expected `{}` Int8",
                    f.name(),
                    f.data_type(),
                    native_reader::types::ROW_KIND_COLUMN
                ))
            }
            None => return error("wrong schema: the stream has no columns".into()),
        }
        if let Some(expected) = columns {
            let got: Vec<&str> = fields.iter().skip(1).map(|f| f.name().as_str()).collect();
            if got != expected.iter().map(String::as_str).collect::<Vec<_>>() {
                return error(format!(
                    "wrong schema: columns [{}] where the table has [{}]",
                    got.join(", "),
                    expected.join(", ")
                ));
            }
        }
        for batch in &answer.batches {
            let kinds = batch.column(0);
            if kinds.null_count() > 0 {
                return error("`_row_kind` holds NULLs".into());
            }
        }
        // Schema metadata is the protocol's, not the table's: drop it so batches compare as data only.
        let plain = std::sync::Arc::new(Schema::new(
            fields
                .iter()
                .map(|f| Field::new(f.name(), f.data_type().clone(), f.is_nullable()))
                .collect::<Vec<_>>(),
        ));
        answer
            .batches
            .into_iter()
            .map(|b| {
                RecordBatch::try_new(plain.clone(), b.columns().to_vec())
                    .map_err(|e| (ExternalFailure::Error, format!("bad batch: {e}"), false))
            })
            .collect()
    }
}

fn or_unsaid(message: String) -> String {
    if message.trim().is_empty() {
        "(the reader gave no message)".into()
    } else {
        message
    }
}

fn with_tail(message: String, tail: &str) -> String {
    if tail.is_empty() {
        message
    } else {
        format!("{message}; stderr: {tail}")
    }
}

/// The table's column names in its latest schema, as every reader returns them after `_row_kind`.
fn table_columns(table: &Path) -> Option<Vec<String>> {
    let dir = table.join("schema");
    let latest = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_prefix("schema-")?
                .parse::<i64>()
                .ok()
        })
        .max()?;
    let schema =
        native_reader::schema::TableSchema::read(&dir.join(format!("schema-{latest}"))).ok()?;
    Some(schema.fields.iter().map(|f| f.name.clone()).collect())
}

impl TableReader for ExternalReader {
    fn side(&self) -> Side {
        self.side
    }

    fn reads_released_plan(&self) -> bool {
        !self.plans
    }

    fn reads_in_order(&self) -> bool {
        true
    }

    fn answer_timings(&self) -> Vec<crate::reader::AnswerTiming> {
        ExternalReader::answer_timings(self)
    }

    fn reader_version(&self) -> Option<String> {
        self.reported_name()
    }

    fn plan_stream(
        &self,
        table: &Path,
        from_snapshot: i64,
        end_snapshot: i64,
    ) -> Result<Vec<PlannedSplit>> {
        self.plan(table, ScanMode::Stream { from_snapshot }, end_snapshot)
    }

    fn plan(&self, table: &Path, mode: ScanMode, end_snapshot: i64) -> Result<Vec<PlannedSplit>> {
        let d = self.describe()?;
        if !d.actions.contains(&Action::Plan) {
            return Err(self.failure(
                ExternalFailure::Unsupported,
                format!(
                    "{} does not plan by itself (its describe lists no `plan`)",
                    d.reader
                ),
                "",
            ));
        }
        let request = Request::new(
            Action::Plan,
            table,
            ScanRequest::of(mode, end_snapshot),
            Vec::new(),
        );
        let bytes = self.send(&request)?;
        let output = run_to_end(&self.spec.command, bytes, self.timeout)
            .map_err(|(m, tail)| self.failure(ExternalFailure::Error, m, &tail))?;
        let answer: PlanAnswer = serde_json::from_slice(&output.0).map_err(|e| {
            self.failure(
                ExternalFailure::Error,
                format!("the plan answer is not the expected JSON: {e}"),
                &output.1,
            )
        })?;
        Ok(answer
            .splits
            .into_iter()
            .map(|p| PlannedSplit {
                split: p.split,
                payload: None,
                wire: Some(jvm_bridge::WireSplit {
                    split_type: p.split_type.unwrap_or_else(|| "DataSplit".into()),
                    java_split: p.java_split,
                }),
            })
            .collect())
    }

    fn begin_read(
        &self,
        table: &Path,
        mode: ScanMode,
        end_snapshot: i64,
        splits: &[PlannedSplit],
    ) -> Result<()> {
        let request_splits = splits
            .iter()
            .enumerate()
            .map(|(index, p)| RequestSplit {
                index,
                split_type: p
                    .wire
                    .as_ref()
                    .map(|w| w.split_type.clone())
                    .unwrap_or_else(|| "DataSplit".into()),
                java_split: p.wire.as_ref().and_then(|w| w.java_split.clone()),
                split: p.split.clone(),
            })
            .collect();
        let request = Request::new(
            Action::Read,
            table,
            ScanRequest::of(mode, end_snapshot),
            request_splits,
        );
        let bytes = self.send(&request)?;
        // Nothing to read: no process (a scan that planned no split is reported without one).
        let session = if splits.is_empty() {
            Err("no split was requested".to_owned())
        } else {
            Session::start(&self.spec.command, bytes, splits.len())
        }
        .map_err(|m| self.with_setup_hint(m));
        let state = ReadState {
            splits: splits.iter().map(|p| p.split.clone()).collect(),
            session,
            next: 0,
            last: None,
            columns: table_columns(table),
            started: std::time::Instant::now(),
            last_byte: None,
            timings: Vec::new(),
        };
        *self
            .state
            .lock()
            .map_err(|_| Error::Scenario("external reader state poisoned".into()))? = Some(state);
        Ok(())
    }

    fn read_split<'a>(&'a self, _table: &Path, split: &'a PlannedSplit) -> Result<Batches<'a>> {
        let mut guard = self
            .state
            .lock()
            .map_err(|_| Error::Scenario("external reader state poisoned".into()))?;
        let state = guard.as_mut().ok_or_else(|| {
            self.failure(
                ExternalFailure::Error,
                "internal: a split was read before the request was sent".into(),
                "",
            )
        })?;
        let from = state.last.as_ref().map(|k| k.index).unwrap_or(0);
        let index = (from..state.splits.len())
            .chain(0..from)
            .find(|&i| state.splits[i] == split.split)
            .ok_or_else(|| {
                self.failure(
                    ExternalFailure::Error,
                    format!(
                        "internal: split {} was not in the request",
                        split.split.key()
                    ),
                    "",
                )
            })?;
        let kept = self.receive(state, index);
        let outcome = kept.outcome.clone();
        state.last = Some(kept);
        match outcome {
            Ok(batches) => Ok(Box::new(batches.into_iter().map(Ok))),
            Err((kind, message)) => Err(self.failure(kind, message, "")),
        }
    }
}

/// Runs `command` with `input` on stdin to its end: (stdout, stderr tail), or (what failed, stderr tail).
fn run_to_end(
    command: &[String],
    input: Vec<u8>,
    timeout: Duration,
) -> std::result::Result<(Vec<u8>, String), (String, String)> {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| (format!("cannot start `{}`: {e}", command[0]), String::new()))?;
    let mut stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            let _ = s.write_all(&input);
        }
    });
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(o) = out.as_mut() {
            let _ = o.read_to_end(&mut buf);
        }
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = String::new();
        if let Some(e) = err.as_mut() {
            let _ = e.read_to_string(&mut buf);
        }
        buf
    });
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if started.elapsed() < timeout => {
                std::thread::sleep(Duration::from_millis(20))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let _ = writer.join();
    let stdout = reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    let tail = session::tail_of(stderr.lines());
    match status {
        Some(s) if s.success() => Ok((stdout, tail)),
        Some(s) => Err((format!("the reader failed ({s})"), tail)),
        None => Err((
            format!(
                "no answer within {} s; the reader was stopped",
                timeout.as_secs()
            ),
            tail,
        )),
    }
}
