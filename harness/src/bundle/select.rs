//! Which data and changelog files a finding needs (`retain --files findings`), from the JSON reports
//! (`harness/JSON-REPORT.md`) of the replay and the audit that found it:
//! - a replay: the files of every split that differed, failed (unreadable, reader error) or was
//!   unsupported. The split's files come from the native planner's plan of the same scan (metadata only,
//!   the split matched by snapshot, partition and bucket): its data and before files (their deletion
//!   vectors are index files, metadata, always retained). For a planning difference (or a split the native
//!   planner does not have) the readers disagree on the files, so every file of the split's bucket
//!   directory is kept.
//! - an audit: every file of each bucket a finding names (a key, an uncommitted file), committed or not: the
//!   audit folds whole buckets, and its part 3 lists what the bucket directories hold.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use native_reader::scan::ScanMode;
use native_reader::{PaimonRelease, Split};
use serde_json::Value;

use crate::error::Result;
use crate::reader::{NativeTableReader, TableReader};

/// What a finding needs of the bucket directories.
#[derive(Clone, Debug, Default)]
pub struct Needed {
    /// Files, by their path inside the table (`/`-separated).
    pub files: BTreeSet<String>,
    /// Whole bucket directories, by their path inside the table (`[partition/]bucket-N`).
    pub buckets: BTreeSet<String>,
    /// Every data file of the table: a finding whose files cannot be told (no partition or bucket in the
    /// report) keeps them all rather than none (said in `notes`).
    pub whole_table: bool,
    /// Why some selection was wider than asked, in words (a plan that failed, a bucket not found, a split
    /// without a verdict, a finding without partition or bucket).
    pub notes: Vec<String>,
}

impl Needed {
    /// Whether the file at `relative` (inside the table) is needed.
    pub fn contains(&self, relative: &str) -> bool {
        self.whole_table
            || self.files.contains(relative)
            || self.buckets.iter().any(|b| {
                relative
                    .strip_prefix(b.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
            })
    }
}

/// (partition values, bucket) of a split or a finding.
type Place = (Vec<Option<String>>, i32);

/// The files the findings of `reports` (replay and audit JSON reports of `table`) need, planned as
/// `release`.
///
/// Errors: none of its own; a scan the native planner cannot plan widens the selection to the named
/// buckets (said in [`Needed::notes`]).
pub fn needed(table: &Path, reports: &[Value], release: PaimonRelease) -> Result<Needed> {
    let table = if native_reader::fileio::is_store(table) {
        table.to_path_buf()
    } else {
        std::fs::canonicalize(table).unwrap_or_else(|_| table.to_path_buf())
    };
    let reader = NativeTableReader::for_release(release);
    let mut out = Needed::default();
    let mut buckets: HashMap<Place, BTreeSet<String>> = HashMap::new();
    let mut wanted_buckets: Vec<Place> = Vec::new();
    let remember = |splits: &[Split], buckets: &mut HashMap<Place, BTreeSet<String>>| {
        for s in splits {
            if let Some(dir) = relative_to(&table, Path::new(&s.bucket_path)) {
                buckets
                    .entry((s.partition.clone(), s.bucket))
                    .or_default()
                    .insert(dir);
            }
        }
    };
    for report in reports {
        for run in report["runs"].as_array().into_iter().flatten() {
            let r = &run["report"];
            let Ok(mode) = serde_json::from_value::<ScanMode>(r["mode"].clone()) else {
                continue;
            };
            let end = r["end_snapshot"].as_i64().unwrap_or(i64::MAX);
            let plan = match reader.plan(&table, mode, end) {
                Ok(p) => p.into_iter().map(|p| p.split).collect::<Vec<_>>(),
                Err(e) => {
                    out.notes.push(format!(
                        "the native planner cannot plan the {} scan ({e}): the buckets of the findings are kept whole",
                        mode.name()
                    ));
                    Vec::new()
                }
            };
            remember(&plan, &mut buckets);
            for s in r["splits"].as_array().into_iter().flatten() {
                // A split without a verdict is not evidence of identity: its files are kept like a finding's
                // (its whole bucket, the readers' files being unknown).
                let verdict = match s["verdict"].as_str() {
                    Some("identical") => continue,
                    Some(v) => v,
                    None => {
                        out.notes.push(format!(
                            "split {} of the {} scan has no verdict in the report: its bucket is kept whole",
                            s["key"],
                            mode.name()
                        ));
                        "no verdict"
                    }
                };
                let Some(place) = place_of(&s["key"]["partition"], &s["key"]["bucket"]) else {
                    out.whole_table = true;
                    out.notes.push(format!(
                        "split {} of the {} scan ({verdict}) names no partition or bucket in the report: its \
                         files cannot be told, so every data file of the table is kept",
                        s["key"],
                        mode.name()
                    ));
                    continue;
                };
                let snapshot = s["key"]["snapshot_id"].as_i64();
                let same_files = matches!(
                    verdict,
                    "differs-decoding" | "unreadable" | "reader-error" | "unsupported"
                );
                let planned: Vec<&Split> = plan
                    .iter()
                    .filter(|p| {
                        Some(p.snapshot_id) == snapshot
                            && p.partition == place.0
                            && p.bucket == place.1
                    })
                    .collect();
                if same_files && !planned.is_empty() {
                    for p in planned {
                        for f in p.data_files.iter().chain(&p.before_files) {
                            if let Some(rel) = f
                                .path(&p.bucket_path)
                                .ok()
                                .and_then(|path| relative_to(&table, &path))
                            {
                                out.files.insert(rel);
                            }
                        }
                    }
                } else {
                    wanted_buckets.push(place);
                }
            }
        }
        let audit = &report["audit"];
        if audit.is_object() {
            // The buckets the audit read: its changelog replay and its batch read.
            let earliest = audit["earliest_snapshot"].as_i64().unwrap_or(1);
            let latest = audit["latest_snapshot"].as_i64().unwrap_or(i64::MAX);
            for mode in [
                ScanMode::StreamFull {
                    from_snapshot: earliest,
                },
                ScanMode::Batch {
                    snapshot: Some(latest),
                },
            ] {
                if let Ok(plan) = reader.plan(&table, mode, latest) {
                    let splits: Vec<Split> = plan.into_iter().map(|p| p.split).collect();
                    remember(&splits, &mut buckets);
                }
            }
            for f in audit["findings"].as_array().into_iter().flatten() {
                match place_of(&f["partition"], &f["bucket"]) {
                    Some(place) => wanted_buckets.push(place),
                    None => {
                        out.whole_table = true;
                        out.notes.push(format!(
                            "the audit's finding of key {} names no partition or bucket in the report: its \
                             files cannot be told, so every data file of the table is kept",
                            f["key"]
                        ));
                    }
                }
            }
            for f in audit["uncommitted"]["files"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let finding = matches!(
                    f["class"].as_str(),
                    Some("rows-the-table-lacks") | Some("changelog-the-stream-lacks")
                );
                if !finding {
                    continue;
                }
                let dir = f["path"]
                    .as_str()
                    .and_then(|p| Path::new(p).parent().map(Path::to_path_buf))
                    .and_then(|d| relative_to(&table, &d));
                let place = place_of(&f["partition"], &f["bucket"]);
                if dir.is_none() && place.is_none() {
                    out.whole_table = true;
                    out.notes.push(format!(
                        "the audit's uncommitted file {} names no directory, partition or bucket in the \
                         report: its files cannot be told, so every data file of the table is kept",
                        f["file"]
                    ));
                }
                out.buckets.extend(dir);
                wanted_buckets.extend(place);
            }
        }
    }
    for place in wanted_buckets {
        match buckets.get(&place) {
            Some(dirs) => out.buckets.extend(dirs.iter().cloned()),
            None => {
                // Not planned by the native reader: every directory of that bucket number.
                let name = if place.1 == native_reader::table::POSTPONE_BUCKET {
                    "bucket-postpone".to_owned()
                } else {
                    format!("bucket-{}", place.1)
                };
                out.notes.push(format!(
                    "partition {:?} bucket {} is not in the native plan: every `{name}` directory is kept",
                    place.0, place.1
                ));
                for dir in bucket_dirs(&table, &name) {
                    out.buckets.insert(dir);
                }
            }
        }
    }
    Ok(out)
}

/// (partition values, bucket) of a report's `partition` (strings or nulls) and `bucket`.
fn place_of(partition: &Value, bucket: &Value) -> Option<Place> {
    let values = partition
        .as_array()?
        .iter()
        .map(|v| match v {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        })
        .collect();
    Some((values, bucket.as_i64()? as i32))
}

/// `path` relative to `table`, `/`-separated (a `file:` scheme dropped; a store URI compared as text); `None`
/// outside it.
fn relative_to(table: &Path, path: &Path) -> Option<String> {
    if native_reader::fileio::is_store(table) {
        let table = table.to_string_lossy();
        let path = path.to_string_lossy();
        let rest = path.strip_prefix(table.trim_end_matches('/'))?;
        if !rest.is_empty() && !rest.starts_with('/') {
            return None;
        }
        return Some(rest.trim_matches('/').to_owned());
    }
    let text = path.to_string_lossy();
    let plain = native_reader::split::local_path(&text)
        .ok()
        .unwrap_or_else(|| path.to_path_buf());
    let plain = std::fs::canonicalize(&plain).unwrap_or(plain);
    let rel = plain.strip_prefix(table).ok()?;
    Some(
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
    )
}

/// Every directory named `name` under `table` (local, or in a store through its LIST requests), relative to
/// it.
fn bucket_dirs(table: &Path, name: &str) -> Vec<String> {
    let Ok(io) = native_reader::fileio::for_path(table) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut dirs: Vec<(PathBuf, String)> = vec![(table.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = dirs.pop() {
        let Ok(entries) = io.list_status(&dir) else {
            continue;
        };
        for e in entries.into_iter().filter(|e| e.is_dir) {
            let relative = format!("{prefix}{}", e.name);
            if e.name == name {
                out.push(relative);
            } else {
                dirs.push((dir.join(&e.name), format!("{relative}/")));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_directory_holds_the_files_below_it_only() {
        let mut n = Needed::default();
        n.buckets.insert("pt=a/bucket-1".into());
        n.files.insert("bucket-0/data-1.parquet".into());
        assert!(n.contains("pt=a/bucket-1/data-2.parquet"));
        assert!(n.contains("bucket-0/data-1.parquet"));
        assert!(!n.contains("pt=a/bucket-10/data-2.parquet"));
        assert!(!n.contains("bucket-0/data-2.parquet"));
    }

    /// `needed` of the committed C00 table (one bucket, `bucket-0`) for a replay report of its stream scan
    /// whose only split is `split`, and an audit report whose only finding is `finding`.
    fn needed_of(split: Value, finding: Option<Value>) -> Needed {
        let table = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora/c00-lookup-fault/table");
        let mode = serde_json::to_value(ScanMode::Stream { from_snapshot: 1 }).unwrap();
        let replay = serde_json::json!({"runs": [{"report": {"mode": mode, "end_snapshot": 3, "splits": [split]}}]});
        let findings: Vec<Value> = finding.into_iter().collect();
        let audit = serde_json::json!({"audit": {"findings": findings}});
        let release = PaimonRelease::parse("1.0.0").unwrap();
        needed(&table, &[replay, audit], release).unwrap()
    }

    #[test]
    fn a_split_without_a_verdict_keeps_its_bucket_with_a_note() {
        let n = needed_of(
            serde_json::json!({"key": {"snapshot_id": 2, "partition": [], "bucket": 0}}),
            None,
        );
        assert!(n.buckets.contains("bucket-0"), "{n:?}");
        assert!(!n.whole_table);
        assert_eq!(
            n.notes,
            ["split {\"snapshot_id\":2,\"partition\":[],\"bucket\":0} of the stream scan has no verdict in \
              the report: its bucket is kept whole"]
        );
    }

    #[test]
    fn a_finding_without_partition_or_bucket_keeps_every_data_file_with_a_note() {
        let n = needed_of(
            serde_json::json!({"key": {"snapshot_id": 2}, "verdict": "differs-decoding"}),
            None,
        );
        assert!(n.whole_table && n.contains("bucket-0/data-x.parquet"));
        assert_eq!(n.notes.len(), 1);
        assert!(
            n.notes[0].starts_with(
                "split {\"snapshot_id\":2} of the stream scan (differs-decoding) names no \
                                    partition or bucket in the report"
            ),
            "{:?}",
            n.notes
        );
        let n = needed_of(
            serde_json::json!({"key": {"snapshot_id": 2, "partition": [], "bucket": 0}, "verdict": "identical"}),
            Some(serde_json::json!({"key": "k=1", "class": "final-value-never-delivered"})),
        );
        assert!(n.whole_table);
        assert_eq!(
            n.notes,
            ["the audit's finding of key \"k=1\" names no partition or bucket in the report: its files cannot \
              be told, so every data file of the table is kept"]
        );
    }
}
