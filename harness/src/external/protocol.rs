//! The wire shapes of `paimon-parity-reader/1` (documented for adapter authors in `adapters/README.md`):
//! the JSON request on the reader's stdin, the `plan` answer, and the schema metadata keys of each
//! split's Arrow IPC stream on its stdout.

use std::collections::BTreeMap;
use std::path::Path;

use jvm_bridge::JavaSplit;
use native_reader::scan::ScanMode;
use native_reader::Split;
use serde::{Deserialize, Serialize};

/// The protocol name and version, in every request and `describe` answer.
pub const PROTOCOL: &str = "paimon-parity-reader/1";
/// Schema metadata: the request `index` of the split the stream answers.
pub const META_SPLIT: &str = "paimon.parity.split";
/// Schema metadata: `ok`, `error` or `unsupported`.
pub const META_STATUS: &str = "paimon.parity.status";
/// Schema metadata: the reason of an `error` or `unsupported` status.
pub const META_MESSAGE: &str = "paimon.parity.message";
/// Schema metadata: the reader and its version.
pub const META_READER: &str = "paimon.parity.reader";

/// What the harness asks of a reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Read the given splits, one Arrow IPC stream each, in order.
    Read,
    /// Plan the scan; answer one JSON [`PlanAnswer`].
    Plan,
}

/// The scan the splits come from (or the reader must plan, for [`Action::Plan`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanRequest {
    /// `stream`, `stream-full`, `latest-full` or `batch` (`ScanMode::name`).
    pub mode: String,
    /// `scan.snapshot-id` of the streaming modes (`None` for `latest-full` and `batch`).
    pub from_snapshot: Option<i64>,
    /// The batch scan's time travel (`None`: the latest snapshot).
    pub snapshot: Option<i64>,
    /// The last snapshot the scan covers.
    pub end_snapshot: i64,
}

impl ScanRequest {
    /// The request form of `mode` ending at `end_snapshot`.
    pub fn of(mode: ScanMode, end_snapshot: i64) -> Self {
        let (from_snapshot, snapshot) = match mode {
            ScanMode::Stream { from_snapshot } | ScanMode::StreamFull { from_snapshot } => {
                (Some(from_snapshot), None)
            }
            ScanMode::LatestFull => (None, None),
            ScanMode::Batch { snapshot } => (None, snapshot),
        };
        ScanRequest {
            mode: mode.name().to_owned(),
            from_snapshot,
            snapshot,
            end_snapshot,
        }
    }
}

/// One split of a [`Request`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RequestSplit {
    /// Position in the request; the answer's stream carries it as [`META_SPLIT`].
    pub index: usize,
    /// `DataSplit` or `IncrementalSplit`.
    pub split_type: String,
    /// Paimon's own bytes of the split, when the released planner produced it and its line has a form.
    pub java_split: Option<JavaSplit>,
    /// The split as plain JSON (`native_reader::Split`).
    pub split: Split,
}

/// The one JSON document written to a reader's stdin.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Request {
    /// [`PROTOCOL`].
    pub protocol: String,
    /// What to do.
    pub action: Action,
    /// The released Paimon the planner ran, e.g. `2.0.0`.
    pub paimon_version: String,
    /// Absolute, canonical table directory, or the table's store URI (`s3://bucket/wh/db.db/t`).
    pub table_path: String,
    /// The scan.
    pub scan: ScanRequest,
    /// Dynamic table options (empty today).
    pub options: BTreeMap<String, String>,
    /// The file-system options of the run, as Paimon spells them (`s3.endpoint`, `s3.access-key`,
    /// `s3.secret-key`, `s3.path.style.access`, …: `--option`, `--options-file`, the AWS environment),
    /// for a table in an object store; empty for a local table. Holds secrets: sent on the reader's stdin
    /// only, never written anywhere else.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub file_io_options: BTreeMap<String, String>,
    /// The splits to read (empty for [`Action::Plan`]).
    pub splits: Vec<RequestSplit>,
}

impl Request {
    /// A request of `action` for `table`.
    pub fn new(action: Action, table: &Path, scan: ScanRequest, splits: Vec<RequestSplit>) -> Self {
        Request {
            protocol: PROTOCOL.to_owned(),
            action,
            paimon_version: jvm_bridge::jvm::paimon_version(),
            table_path: table.display().to_string(),
            scan,
            options: BTreeMap::new(),
            file_io_options: if native_reader::fileio::is_store(table) {
                native_reader::fileio::configured().as_map().clone()
            } else {
                BTreeMap::new()
            },
            splits,
        }
    }
}

/// What a reader prints for `describe`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Description {
    /// [`PROTOCOL`].
    pub protocol: String,
    /// The reader and its version, e.g. `pypaimon 2.1.0`.
    pub reader: String,
    /// The actions it serves: `read`, and `plan` if it plans by itself.
    pub actions: Vec<Action>,
}

/// A reader's answer to [`Action::Plan`]: the splits it planned, in its order.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlanAnswer {
    /// The splits.
    pub splits: Vec<PlannedBySelf>,
}

/// One split a reader planned by itself.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlannedBySelf {
    /// The split (the request's `split` shape).
    pub split: Split,
    /// The reader's own bytes for the split, handed back to it in the `read` request; optional.
    #[serde(default)]
    pub java_split: Option<JavaSplit>,
    /// `DataSplit` unless said otherwise.
    #[serde(default)]
    pub split_type: Option<String>,
}

/// The per-split status of an answer stream ([`META_STATUS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// The rows are the reader's answer.
    Ok,
    /// The reader failed on the split.
    Error,
    /// The reader does not implement something the split needs.
    Unsupported,
}

impl Status {
    /// Parses the metadata value.
    pub fn parse(s: &str) -> Option<Status> {
        match s {
            "ok" => Some(Status::Ok),
            "error" => Some(Status::Error),
            "unsupported" => Some(Status::Unsupported),
            _ => None,
        }
    }
}
