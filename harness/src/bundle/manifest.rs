//! The manifest of a bundle ([`super::MANIFEST_NAME`]) and the finding it records, read from the JSON report
//! (`harness/JSON-REPORT.md`) of the replay or audit that found it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{FileKind, Files};

/// The manifest: the bundle's first entry. Field by field in `harness/JSON-REPORT.md` ("Evidence bundles").
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`super::SCHEMA`].
    pub schema: String,
    /// [`super::BUNDLE_VERSION`].
    pub bundle_version: u32,
    /// The version of the tool that wrote the bundle.
    pub tool_version: String,
    /// The released Paimon the finding was found with (`--paimon-version`).
    pub paimon_version: String,
    /// The release whose rules the native reader followed (`native_reader::line`), when it implements it.
    pub paimon_line: Option<String>,
    /// The JDK of the JVM that found the finding (`java.vm.vendor java.runtime.version`); `None` when no JVM
    /// ran (an audit with the native reader).
    pub jdk: Option<String>,
    /// When the bundle was written, ISO-8601 UTC.
    pub created: String,
    /// The table directory as `retain` was given it.
    pub table: String,
    /// The options of `retain`.
    pub options: RetainOptions,
    /// The command that found the finding, its verdict and first difference; `None` when none was run.
    pub finding: Option<Finding>,
    /// Bytes of the retained files (uncompressed).
    pub retained_bytes: u64,
    /// Bytes of the files left out.
    pub left_out_bytes: u64,
    /// Every retained file, in archive order.
    pub files: Vec<BundleFile>,
    /// Every file of the table left out.
    pub left_out: Vec<LeftOut>,
    /// Why the selection of data files is wider than `--files` asks, or what of the reports could not be
    /// used, in words (a split without a verdict, a finding without partition or bucket, a plan that
    /// failed); empty in bundles written before notes were recorded.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// The options `retain` ran with.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RetainOptions {
    /// `--from-snapshot`: the first snapshot of the streaming replay.
    pub from_snapshot: Option<i64>,
    /// `--mode`: the scans replayed.
    pub mode: Vec<String>,
    /// `--paimon-version`, as given.
    pub paimon_version: Option<String>,
    /// `--files`.
    pub files: Files,
    /// `--report`: the JSON report the finding was taken from; `None` when `retain` ran the replay and audit.
    pub report: Option<String>,
}

/// One retained file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BundleFile {
    /// Its path inside the table directory, `/`-separated (in the archive under `table/`).
    pub path: String,
    /// Metadata or data.
    pub kind: FileKind,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256 of its content, lowercase hex (64 characters).
    pub sha256: String,
}

/// One file of the table left out of the bundle.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LeftOut {
    /// Its path inside the table directory.
    pub path: String,
    /// Always data (the metadata is retained whole).
    pub kind: FileKind,
    /// Size in bytes.
    pub size: u64,
    /// Why, in words (`--files none`, or `no finding needs it`).
    pub reason: String,
}

/// The recorded command and what it found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// `replay` or `audit`.
    pub command: String,
    /// Its arguments after the table, as `paimon-parity <command> BUNDLE <args>` takes them (`--json` left
    /// out).
    pub args: Vec<String>,
    /// The whole command line, for people: `paimon-parity replay BUNDLE --mode stream ...`.
    pub command_line: String,
    /// Its verdict (`different`, `incomplete`, `identical`, `changelog-lost`, `complete`, …).
    pub verdict: String,
    /// Its exit status.
    pub exit_code: i32,
    /// The first difference in words (replay: kind, split, row, field and both values; audit: the first
    /// incomplete commit, key finding or uncommitted file); `None` when there is none.
    pub first_difference: Option<String>,
    /// The same, as fields (replay: `kind`, `split`, `detail`, `row`, `field`, `stock`, `native`; audit:
    /// `pair`, `key`, `uncommitted`), which `reproduce` compares.
    pub first_difference_fields: Option<Value>,
    /// What the command compared, which `reproduce` compares too; `None` in bundles written before counts
    /// were recorded.
    #[serde(default)]
    pub counts: Option<Counts>,
}

/// What a replay run or an audit compared (the evidence behind its verdict).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// What `compared` counts: `splits` (a replay run's split pairs, `runs[].splits`) or `keys` (an audit's
    /// primary keys checked, `audit.completeness[].keys` summed over its readers).
    pub unit: String,
    /// How many `unit` were compared; 0 is no evidence either way.
    pub compared: u64,
    /// Splits planned but not compared because the evidence bundle does not retain all their files (a
    /// replay's `split_verdicts.not_retained`, an audit's `completeness[].not_retained_splits`; 0 for a
    /// table).
    pub not_retained_splits: u64,
    /// A replay run: rows the released reader returned, every RowKind (`runs[].stock_rows`); `None` for an
    /// audit.
    pub stock_rows: Option<u64>,
    /// A replay run: rows the compared reader returned, every RowKind (`runs[].native_rows`); `None` for an
    /// audit.
    pub native_rows: Option<u64>,
}

impl Counts {
    /// `5 splits compared (2 not retained), rows 10 / 10`, for people.
    pub fn words(&self) -> String {
        let mut out = format!("{} {} compared", self.compared, self.unit);
        if self.not_retained_splits > 0 {
            out.push_str(&format!(
                " ({} splits not retained)",
                self.not_retained_splits
            ));
        }
        if let (Some(s), Some(n)) = (self.stock_rows, self.native_rows) {
            out.push_str(&format!(", rows stock {s}, compared reader {n}"));
        }
        out
    }

    /// Why a re-run that compared `now` is not the run that compared `self` (the recorded counts), or
    /// `None` when it can be: the same unit; for a replay the same plan (compared + not retained splits);
    /// then, when the re-run leaves out no more splits than the recorded run, the same counts (and rows);
    /// when it leaves out more (a bundle that retains only the findings' files), no more than recorded.
    pub fn mismatch(&self, now: &Counts) -> Option<String> {
        if self.unit != now.unit {
            return Some(format!(
                "the recorded run counted {}, the re-run {}",
                self.unit, now.unit
            ));
        }
        let planned = |c: &Counts| c.compared + c.not_retained_splits;
        if self.unit == "splits" && planned(self) != planned(now) {
            return Some(format!(
                "the re-run planned {} split pairs (compared and not retained), the recorded run {}: not \
                 the same plan",
                planned(now),
                planned(self)
            ));
        }
        let rows = |c: &Counts| (c.stock_rows, c.native_rows);
        if now.not_retained_splits == self.not_retained_splits {
            if now.compared != self.compared || rows(now) != rows(self) {
                return Some(format!(
                    "the re-run: {}; the recorded run: {}",
                    now.words(),
                    self.words()
                ));
            }
        } else {
            let more =
                |x: Option<u64>, y: Option<u64>| matches!((x, y), (Some(x), Some(y)) if x > y);
            if now.compared > self.compared
                || more(now.stock_rows, self.stock_rows)
                || more(now.native_rows, self.native_rows)
            {
                return Some(format!(
                    "the re-run compared more than the recorded run although it leaves out more splits: \
                     the re-run: {}; the recorded run: {}",
                    now.words(),
                    self.words()
                ));
            }
        }
        None
    }
}

/// The verdicts that mean nothing was compared: a replay's `nothing-compared`, an audit's `not-checked`.
pub const NOTHING_COMPARED: [&str; 2] = ["nothing-compared", "not-checked"];

impl Finding {
    /// Whether `other` is the same finding: same command, verdict and first difference (in fields).
    pub fn same_as(&self, other: &Finding) -> bool {
        self.command == other.command
            && self.verdict == other.verdict
            && self.first_difference_fields == other.first_difference_fields
    }
}

/// The finding of a JSON report (`replay` or `audit`, `harness/JSON-REPORT.md`): for a replay the first run
/// that is not identical (or nothing-compared), else the first run; for an audit the audit. `None` when the
/// report holds no run or audit (it stopped with an error), names no release (`paimon_version`: the
/// release is never assumed; `retain` refuses such a report first), or its replay run names no mode or
/// reader.
pub fn finding_of_report(report: &Value) -> Option<Finding> {
    let command = report["command"].as_str()?;
    let options = &report["options"];
    let version = report["paimon_version"].as_str()?;
    match command {
        "replay" => {
            let runs = report["runs"].as_array()?;
            let run = runs
                .iter()
                .find(|r| !matches!(r["exit_code"].as_i64(), Some(0) | Some(3)))
                .or_else(|| runs.first())?;
            // The scan and the reader are never assumed: a run without them records no finding.
            let mode = run["mode"].as_str()?;
            let reader = run["reader"].as_str()?;
            let mut args = vec!["--mode".to_owned(), mode.to_owned()];
            if let Some(n) = options["from_snapshot"].as_i64() {
                if matches!(run["mode"].as_str(), Some("stream") | Some("stream-full")) {
                    args.extend(["--from-snapshot".to_owned(), n.to_string()]);
                }
            }
            if let Some(n) = options["snapshot"].as_i64() {
                if run["mode"].as_str() == Some("batch") {
                    args.extend(["--snapshot".to_owned(), n.to_string()]);
                }
            }
            args.extend(["--reader".to_owned(), reader.to_owned()]);
            for declared in options["reader_commands"].as_array().into_iter().flatten() {
                if let Some(d) = declared.as_str() {
                    if d.split_once('=')
                        .is_some_and(|(name, _)| name.trim() == reader)
                    {
                        args.extend(["--reader-command".to_owned(), d.to_owned()]);
                    }
                }
            }
            if options["unordered"].as_bool() == Some(true) {
                args.push("--unordered".to_owned());
            }
            if options["reader_plans"].as_bool() == Some(true) {
                args.push("--reader-plans".to_owned());
            }
            if let Some(t) = options["reader_timeout"].as_u64() {
                args.extend(["--reader-timeout".to_owned(), t.to_string()]);
            }
            args.extend(["--paimon-version".to_owned(), version.to_owned()]);
            let fields = replay_first_difference(run);
            let rows = |r: &Value| {
                [
                    "insert",
                    "update_before",
                    "update_after",
                    "delete",
                    "invalid",
                ]
                .iter()
                .map(|k| r[k].as_u64())
                .sum::<Option<u64>>()
            };
            let counts = Counts {
                unit: "splits".into(),
                compared: run["splits"].as_u64().unwrap_or(0),
                not_retained_splits: run["split_verdicts"]["not_retained"].as_u64().unwrap_or(0),
                stock_rows: rows(&run["stock_rows"]),
                native_rows: rows(&run["native_rows"]),
            };
            Some(Finding {
                command: "replay".into(),
                command_line: command_line("replay", &args),
                args,
                verdict: run["verdict"].as_str().unwrap_or("error").to_owned(),
                exit_code: run["exit_code"].as_i64().unwrap_or(2) as i32,
                first_difference: run["first_difference"]
                    .as_str()
                    .or(run["first_problem"].as_str())
                    .map(str::to_owned),
                first_difference_fields: fields,
                counts: Some(counts),
            })
        }
        "audit" => {
            let audit = &report["audit"];
            if audit.is_null() {
                return None;
            }
            let mut args = Vec::new();
            if let Some(r) = options["reader"].as_str() {
                args.extend(["--reader".to_owned(), r.to_owned()]);
            }
            args.extend(["--paimon-version".to_owned(), version.to_owned()]);
            let (words, fields) = audit_first_difference(audit);
            let sum = |key: &str| {
                audit["completeness"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c[key].as_u64())
                    .sum::<u64>()
            };
            let counts = Counts {
                unit: "keys".into(),
                compared: sum("keys"),
                not_retained_splits: sum("not_retained_splits"),
                stock_rows: None,
                native_rows: None,
            };
            Some(Finding {
                command: "audit".into(),
                command_line: command_line("audit", &args),
                args,
                verdict: audit["verdict"].as_str().unwrap_or("error").to_owned(),
                exit_code: report["exit_code"].as_i64().unwrap_or(2) as i32,
                first_difference: words,
                first_difference_fields: fields,
                counts: Some(counts),
            })
        }
        _ => None,
    }
}

/// `paimon-parity <command> BUNDLE <args>`, arguments with spaces quoted.
fn command_line(command: &str, args: &[String]) -> String {
    let mut out = format!("paimon-parity {command} BUNDLE");
    for a in args {
        if a.contains(char::is_whitespace) {
            out.push_str(&format!(" '{a}'"));
        } else {
            out.push(' ');
            out.push_str(a);
        }
    }
    out
}

/// A replay run's first difference as fields: `kind`, `split`, `detail`, and, for a decoding difference,
/// the first mismatch's `row`, `field`, `kind` and both values (`stock`, `native`: the compared reader's).
/// Without a difference, the run's first problem (`problem`: a split a reader failed on or does not
/// support). `None` when neither.
fn replay_first_difference(run: &Value) -> Option<Value> {
    let report = &run["report"];
    let first = &report["first_difference"];
    if first.is_object() {
        let mut fields = serde_json::json!({
            "kind": first["kind"],
            "split": first["split"],
            "detail": first["detail"],
        });
        if let Some(split) = report["splits"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|s| s["key"] == first["split"] && s["first_mismatch"].is_object())
        {
            let m = &split["first_mismatch"];
            for (k, v) in [
                ("row", &m["row"]),
                ("field", &m["field"]),
                ("mismatch", &m["kind"]),
                ("stock", &m["stock"]),
                ("native", &m["native"]),
            ] {
                fields[k] = v.clone();
            }
        }
        return Some(fields);
    }
    let problem = report["splits"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| {
            matches!(
                s["verdict"].as_str(),
                Some("unreadable") | Some("reader-error") | Some("unsupported")
            )
        })?;
    Some(serde_json::json!({
        "problem": problem["verdict"],
        "split": problem["key"],
    }))
}

/// An audit's first difference, in words and as fields: the first incomplete commit pair (`pair`: user and
/// identifier), the first key finding (`key`: partition, bucket, key, class, stream and table values) and
/// the first uncommitted file that is a finding (`uncommitted`: partition, bucket, file, class, lacking
/// rows). `(None, None)` for a complete audit.
fn audit_first_difference(audit: &Value) -> (Option<String>, Option<Value>) {
    let mut words = Vec::new();
    let mut fields = serde_json::Map::new();
    if let Some(p) = audit["pairs"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["status"] == "incomplete")
    {
        words.push(format!(
            "commit ({}, {}) incomplete",
            p["commit_user"].as_str().unwrap_or("?"),
            p["commit_identifier"]
        ));
        fields.insert(
            "pair".into(),
            serde_json::json!({
                "commit_user": p["commit_user"],
                "commit_identifier": p["commit_identifier"],
                "status": p["status"],
            }),
        );
    }
    if let Some(k) = audit["findings"].as_array().and_then(|f| f.first()) {
        words.push(format!(
            "key {} (partition {}, bucket {}): {}, stream {}, table {}",
            k["key"].as_str().unwrap_or("?"),
            k["partition"],
            k["bucket"],
            k["class"].as_str().unwrap_or("?"),
            k["stream_value"].as_str().unwrap_or("?"),
            k["table_value"].as_str().unwrap_or("?"),
        ));
        fields.insert(
            "key".into(),
            serde_json::json!({
                "partition": k["partition"],
                "bucket": k["bucket"],
                "key": k["key"],
                "class": k["class"],
                "stream_value": k["stream_value"],
                "table_value": k["table_value"],
            }),
        );
    }
    if let Some(f) = audit["uncommitted"]["files"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|f| {
            matches!(
                f["class"].as_str(),
                Some("rows-the-table-lacks") | Some("changelog-the-stream-lacks")
            )
        })
    {
        words.push(format!(
            "uncommitted {} (partition {}, bucket {}): {}, {} rows lacking",
            f["file"].as_str().unwrap_or("?"),
            f["partition"],
            f["bucket"],
            f["class"].as_str().unwrap_or("?"),
            f["lacking_rows"]
        ));
        fields.insert(
            "uncommitted".into(),
            serde_json::json!({
                "partition": f["partition"],
                "bucket": f["bucket"],
                "file": f["file"],
                "class": f["class"],
                "lacking_rows": f["lacking_rows"],
            }),
        );
    }
    if fields.is_empty() {
        (None, None)
    } else {
        (Some(words.join("; ")), Some(Value::Object(fields)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_finding_keeps_the_differing_run_its_options_and_first_mismatch() {
        let report = serde_json::json!({
            "command": "replay",
            "paimon_version": "1.0.0",
            "options": {"from_snapshot": 2, "reader_commands": ["planted=/bin/r --fault change-value", "x=/bin/x"],
                        "unordered": false, "reader_timeout": 30},
            "runs": [
                {"mode": "stream", "reader": "native", "verdict": "identical", "exit_code": 0, "report": null},
                {"mode": "stream", "reader": "planted", "verdict": "different", "exit_code": 1,
                 "first_difference": "decoding at s1: row 0", "report": {
                    "first_difference": {"kind": "decoding", "split": {"snapshot_id": 1, "partition": [], "bucket": 0}, "detail": "row 0, field v: stock 5 vs planted 6"},
                    "splits": [{"key": {"snapshot_id": 1, "partition": [], "bucket": 0}, "verdict": "differs-decoding",
                                "first_mismatch": {"row": 0, "field": "v", "kind": "value", "stock": "5", "native": "6", "context": "..."}}]
                 }}
            ]
        });
        let f = finding_of_report(&report).unwrap();
        assert_eq!(f.verdict, "different");
        assert_eq!(
            f.command_line,
            "paimon-parity replay BUNDLE --mode stream --from-snapshot 2 --reader planted --reader-command \
             'planted=/bin/r --fault change-value' --reader-timeout 30 --paimon-version 1.0.0"
        );
        let fields = f.first_difference_fields.unwrap();
        assert_eq!(fields["row"], 0);
        assert_eq!(fields["field"], "v");
        assert_eq!(fields["stock"], "5");
        assert_eq!(fields["native"], "6");
    }

    #[test]
    fn an_audit_finding_names_the_incomplete_commit_and_the_first_key() {
        let report = serde_json::json!({
            "command": "audit", "paimon_version": "1.0.0", "exit_code": 1,
            "options": {"reader": "native"},
            "audit": {"verdict": "changelog-lost",
                "pairs": [{"commit_user": "u", "commit_identifier": 2, "status": "incomplete"}],
                "findings": [{"key": "k=1", "partition": [], "bucket": 0, "class": "final-value-never-delivered",
                              "stream_value": "(1, 1)", "table_value": "(1, 2)"}],
                "uncommitted": {"files": []}}
        });
        let f = finding_of_report(&report).unwrap();
        assert_eq!(f.args, ["--reader", "native", "--paimon-version", "1.0.0"]);
        assert_eq!(
            f.first_difference.as_deref(),
            Some("commit (u, 2) incomplete; key k=1 (partition [], bucket 0): final-value-never-delivered, stream (1, 1), table (1, 2)")
        );
        assert!(f.same_as(&f.clone()));
        // No completeness entry: 0 keys checked.
        assert_eq!(
            f.counts.map(|c| (c.unit, c.compared)),
            Some(("keys".into(), 0))
        );
    }

    #[test]
    fn a_report_that_names_no_release_has_no_finding() {
        let mut report = serde_json::json!({
            "command": "audit", "paimon_version": "1.0.0", "exit_code": 0, "options": {},
            "audit": {"verdict": "complete", "completeness": [{"keys": 3, "not_retained_splits": 1},
                                                             {"keys": 3, "not_retained_splits": 0}]}
        });
        let counts = finding_of_report(&report).unwrap().counts.unwrap();
        assert_eq!((counts.compared, counts.not_retained_splits), (6, 1));
        report.as_object_mut().unwrap().remove("paimon_version");
        assert_eq!(finding_of_report(&report), None);
        // A replay run that names no scan mode: not assumed to be a stream scan.
        let replay = serde_json::json!({
            "command": "replay", "paimon_version": "1.0.0", "options": {},
            "runs": [{"reader": "native", "verdict": "identical", "exit_code": 0, "splits": 3}]
        });
        assert_eq!(finding_of_report(&replay), None);
    }

    fn counts(compared: u64, not_retained: u64, rows: Option<u64>) -> Counts {
        Counts {
            unit: if rows.is_some() { "splits" } else { "keys" }.into(),
            compared,
            not_retained_splits: not_retained,
            stock_rows: rows,
            native_rows: rows,
        }
    }

    #[test]
    fn counts_of_a_re_run_must_be_those_of_the_same_plan() {
        let recorded = counts(10, 0, Some(100));
        assert_eq!(recorded.mismatch(&recorded.clone()), None);
        // A bundle that retains the findings' splits only: fewer compared, the rest not retained.
        assert_eq!(recorded.mismatch(&counts(1, 9, Some(7))), None);
        // Nothing compared, every split not retained: the plan is the same, yet counts say nothing.
        assert_eq!(recorded.mismatch(&counts(0, 10, Some(0))), None);
        // Another plan.
        assert!(recorded.mismatch(&counts(0, 0, Some(0))).unwrap().contains(
            "the re-run planned 0 split pairs (compared and not retained), the recorded run 10"
        ));
        // Everything retained, other rows.
        assert_eq!(
            recorded.mismatch(&counts(10, 0, Some(99))).unwrap(),
            "the re-run: 10 splits compared, rows stock 99, compared reader 99; the recorded run: 10 splits \
             compared, rows stock 100, compared reader 100"
        );
        // An audit: fewer keys only when more splits are left out.
        let keys = counts(5, 0, None);
        assert_eq!(keys.mismatch(&counts(3, 2, None)), None);
        assert!(keys.mismatch(&counts(3, 0, None)).is_some());
        assert!(keys.mismatch(&counts(6, 2, None)).is_some());
        assert!(keys.mismatch(&counts(5, 0, Some(1))).is_some());
    }
}
