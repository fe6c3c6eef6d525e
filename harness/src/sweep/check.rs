//! What the sweep checks in each end state, with expected values from the scenario's writes
//! ([`super::oracle`]): the snapshot chain, the batch read and the streaming changelog.

use std::collections::BTreeMap;
use std::path::Path;

use arrow_array::{Array, Int8Array, RecordBatch};
use native_reader::scan::ScanMode;
use serde::Serialize;

use super::class::{exceptions, recoveries, Findings, PointClass};
use super::oracle::{tuple, Expected, Key, DELETED};
use crate::corpus::{CrashRun, SnapshotSummary};
use crate::diff::render_value;
use crate::error::Result;
use crate::reader::{StockTableReader, TableReader};

/// One snapshot, as the point's evidence names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnapshotRef {
    /// Snapshot id.
    pub id: i64,
    /// Commit kind.
    pub kind: String,
    /// Commit user.
    pub user: String,
    /// Commit identifier.
    pub identifier: i64,
}

impl From<&SnapshotSummary> for SnapshotRef {
    fn from(s: &SnapshotSummary) -> Self {
        SnapshotRef {
            id: s.id,
            kind: s.commit_kind.clone(),
            user: s.commit_user.clone(),
            identifier: s.commit_identifier,
        }
    }
}

/// What the end state of one point shows.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Evidence {
    /// The batch read of the latest snapshot by the released reader, sorted (`(1, 20)`); empty when it threw.
    pub batch: Vec<String>,
    /// Per key whose changelog is not what the writes make: the values the released reader's streaming read
    /// from snapshot 1 takes it through (`<deleted>` for a removal).
    pub changelog: BTreeMap<Key, Vec<String>>,
    /// The snapshots of the end state.
    pub snapshots: Vec<SnapshotRef>,
    /// The native reader against the released one on the end state: `identical`, or the replay verdicts and
    /// first difference.
    pub parity: Option<String>,
    /// The audit's verdict on the end state (`complete`, `changelog-lost`, …).
    pub audit: Option<String>,
    /// Whether the audit found what the checks did: `changelog-lost` where the changelog is lost, a finding
    /// where it is merged, `complete` where the checks pass.
    pub audit_agrees: Option<bool>,
    /// Orphan files the fault left for information: `.tmp` files in `snapshot/`, and files in `manifest/` no
    /// snapshot references are not counted here.
    pub tmp_files: usize,
    /// The `snapshot/LATEST` hint at the end, when there is one. Below the last snapshot it is stale: readers
    /// probe past it (`HintFileUtils`), at the cost of a request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_hint: Option<i64>,
}

/// The rows of `batch` as rendered column values, with their RowKind byte.
fn rows_of(batch: &RecordBatch) -> Vec<(i8, Vec<String>)> {
    let kinds = batch
        .columns()
        .first()
        .and_then(|c| c.as_any().downcast_ref::<Int8Array>());
    (0..batch.num_rows())
        .map(|r| {
            let kind = kinds.filter(|k| k.is_valid(r)).map_or(0, |k| k.value(r));
            let values = batch
                .columns()
                .iter()
                .skip(1)
                .map(|c| render_value(c.as_ref(), r))
                .collect();
            (kind, values)
        })
        .collect()
}

fn read_all(
    stock: &StockTableReader,
    table: &Path,
    mode: ScanMode,
    end: i64,
) -> Result<Vec<(i8, Vec<String>)>> {
    let mut out = Vec::new();
    for split in stock.plan(table, mode, end)? {
        for batch in stock.read_split(table, &split)? {
            out.extend(rows_of(&batch?));
        }
    }
    Ok(out)
}

/// Checks the end state of `table` after `run` against `expected`: batch and streaming reads by the released
/// reader, the snapshot chain, idempotence, and the success classes. Parity and audit are the caller's.
pub fn check(
    stock: &StockTableReader,
    table: &Path,
    run: &CrashRun,
    expected: &Expected,
    evidence: &mut Evidence,
) -> Findings {
    let mut f = Findings::default();
    evidence.latest_hint = native_reader::fileio::read(&table.join("snapshot/LATEST"))
        .ok()
        .and_then(|b| String::from_utf8_lossy(&b).trim().parse().ok());
    let snapshots = match crate::corpus::snapshot_summaries(table) {
        Ok(s) => s,
        Err(e) => {
            f.add(PointClass::Corrupt, format!("the snapshot files: {e}"));
            return f;
        }
    };
    evidence.snapshots = snapshots.iter().map(SnapshotRef::from).collect();
    chain(evidence.latest_hint, &snapshots, &mut f);
    exceptions(run, &mut f);
    recoveries(run, &mut f);
    let Some(end) = snapshots.last().map(|s| s.id) else {
        f.add(PointClass::Corrupt, "the table has no snapshot".into());
        return f;
    };
    match read_all(stock, table, ScanMode::Batch { snapshot: None }, end) {
        Ok(rows) => batch(&rows, expected, evidence, &mut f),
        Err(e) => f.add(PointClass::Corrupt, format!("the batch read threw: {e}")),
    }
    match read_all(stock, table, ScanMode::Stream { from_snapshot: 1 }, end) {
        Ok(rows) => stream(&rows, expected, evidence, &mut f),
        Err(e) => f.add(
            PointClass::Corrupt,
            format!("the streaming read from snapshot 1 threw: {e}"),
        ),
    }
    f
}

/// The snapshot chain: ids without gaps, one snapshot of each kind per (user, identifier), and the `LATEST`
/// hint (read once by [`check`]) not past the last snapshot.
fn chain(latest_hint: Option<i64>, snapshots: &[SnapshotSummary], f: &mut Findings) {
    for w in snapshots.windows(2) {
        if w[1].id != w[0].id + 1 {
            f.add(
                PointClass::Corrupt,
                format!("snapshot ids jump from {} to {}", w[0].id, w[1].id),
            );
        }
    }
    let mut seen: BTreeMap<(&str, i64, &str), i64> = BTreeMap::new();
    for s in snapshots {
        let kind = if s.commit_kind == "OVERWRITE" {
            "APPEND"
        } else {
            s.commit_kind.as_str()
        };
        if let Some(first) = seen.insert((&s.commit_user, s.commit_identifier, kind), s.id) {
            f.add(
                PointClass::NotIdempotent,
                format!(
                    "user `{}` identifier {} has two {kind} snapshots ({first} and {})",
                    s.commit_user, s.commit_identifier, s.id
                ),
            );
        }
    }
    let last = snapshots.last().map_or(0, |s| s.id);
    if let Some(hint) = latest_hint {
        if hint > last {
            f.add(
                PointClass::Corrupt,
                format!("snapshot/LATEST says {hint}, past the last snapshot {last}"),
            );
        }
    }
}

fn key_of(values: &[String], expected: &Expected) -> Key {
    tuple(
        expected
            .key_columns
            .iter()
            .map(|i| values.get(*i).map_or("<missing column>", String::as_str)),
    )
}

fn batch(rows: &[(i8, Vec<String>)], expected: &Expected, ev: &mut Evidence, f: &mut Findings) {
    let mut got: BTreeMap<Key, Vec<String>> = BTreeMap::new();
    for (_, values) in rows {
        got.entry(key_of(values, expected))
            .or_default()
            .push(tuple(values.iter().map(String::as_str)));
    }
    ev.batch = got.values().flatten().cloned().collect();
    for (key, values) in &got {
        if values.len() > 1 {
            f.add(
                PointClass::DuplicateRows,
                format!(
                    "key {key} is read {} times: {}",
                    values.len(),
                    values.join(", ")
                ),
            );
        }
        match expected.rows.get(key) {
            None => f.add(
                PointClass::DataLost,
                format!("key {key} is read as {}, the writes deleted it", values[0]),
            ),
            Some(want) if !values.contains(want) => f.add(
                PointClass::DataLost,
                format!(
                    "key {key} is read as {}, the writes made it {want}",
                    values[0]
                ),
            ),
            Some(_) => {}
        }
    }
    for (key, want) in &expected.rows {
        if !got.contains_key(key) {
            f.add(
                PointClass::DataLost,
                format!("key {key} is missing from the batch read, the writes made it {want}"),
            );
        }
    }
}

/// Whether `short` is `long` with some elements left out.
fn is_subsequence(short: &[String], long: &[String]) -> bool {
    let mut it = long.iter();
    short.iter().all(|s| it.any(|l| l == s))
}

fn stream(rows: &[(i8, Vec<String>)], expected: &Expected, ev: &mut Evidence, f: &mut Findings) {
    let mut got: BTreeMap<Key, Vec<String>> = BTreeMap::new();
    // A consumer's view: what each key holds. A retraction (-U, -D) of anything else is a change delivered
    // again (or out of order): a consumer that applies it retracts a value it does not hold.
    // A stray retraction followed by the value the key held is that change delivered again; followed by
    // another value, an earlier commit's change delivered late (the key held a later value already).
    let mut holds: BTreeMap<Key, String> = BTreeMap::new();
    let mut pending: BTreeMap<Key, (String, String)> = BTreeMap::new();
    let mut stray: BTreeMap<Key, Vec<(bool, String)>> = BTreeMap::new();
    for (kind, values) in rows {
        let key = key_of(values, expected);
        let value = tuple(values.iter().map(String::as_str));
        match kind {
            1 | 3 => {
                if holds.get(&key) != Some(&value) {
                    let held = holds.get(&key).map_or(DELETED, String::as_str).to_owned();
                    let sign = if *kind == 1 { "-U" } else { "-D" };
                    let what = format!("{sign} {value} while it holds {held}");
                    if *kind == 3 {
                        stray.entry(key.clone()).or_default().push((false, what));
                    } else {
                        pending.insert(key.clone(), (held, what));
                    }
                }
                holds.remove(&key);
            }
            _ => {
                if let Some((held, what)) = pending.remove(&key) {
                    let late = held != value;
                    let what = format!("{what}, then +U {value}");
                    stray.entry(key.clone()).or_default().push((late, what));
                }
                holds.insert(key.clone(), value.clone());
            }
        }
        let state = match kind {
            0 | 2 => tuple(values.iter().map(String::as_str)),
            3 => DELETED.to_owned(),
            // -U: the retraction before a +U; the key's next state comes with it.
            _ => continue,
        };
        let seq = got.entry(key_of(values, expected)).or_default();
        if seq.last() != Some(&state) {
            seq.push(state);
        }
    }
    let none = Vec::new();
    let keys: std::collections::BTreeSet<&Key> =
        got.keys().chain(expected.changes.keys()).collect();
    for key in keys {
        let have = got.get(key).unwrap_or(&none);
        let want = expected.changes.get(key).unwrap_or(&none);
        for (late, words, class) in [
            (true, "out of order", PointClass::ChangelogOutOfOrder),
            (false, "twice", PointClass::ChangelogDuplicated),
        ] {
            let of: Vec<&str> = stray
                .get(key)
                .into_iter()
                .flatten()
                .filter(|(l, _)| *l == late)
                .map(|(_, w)| w.as_str())
                .collect();
            if of.is_empty() {
                continue;
            }
            ev.changelog.insert(key.clone(), have.clone());
            f.add(
                class,
                format!(
                    "key {key}: the changelog retracts what the key does not hold ({}): a change delivered \
                     {words}",
                    of.join("; ")
                ),
            );
        }
        if have == want {
            continue;
        }
        ev.changelog.insert(key.clone(), have.clone());
        let last = |s: &[String]| s.last().cloned().unwrap_or_else(|| DELETED.to_owned());
        let (have_last, want_last) = (last(have), last(want));
        if have_last != want_last {
            f.add(
                PointClass::ChangelogLost,
                format!(
                    "key {key}: the changelog ends at {have_last}, the writes end at {want_last} (changes {})",
                    if have.is_empty() { "none".to_owned() } else { have.join(" -> ") }
                ),
            );
        } else if is_subsequence(have, want) {
            f.add(
                PointClass::ChangelogLostHealedLater,
                format!(
                    "key {key}: the changelog goes {}, the writes went {}",
                    have.join(" -> "),
                    want.join(" -> ")
                ),
            );
        } else {
            f.add(
                PointClass::ChangelogDuplicated,
                format!(
                    "key {key}: the changelog goes {}, the writes went {}",
                    have.join(" -> "),
                    want.join(" -> ")
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// C00's writes: key 1 goes (1, 10) then (1, 20).
    fn c00() -> Expected {
        let mut e = Expected {
            key_columns: vec![0],
            ..Expected::default()
        };
        e.rows.insert("(1)".into(), "(1, 20)".into());
        e.changes
            .insert("(1)".into(), vec!["(1, 10)".into(), "(1, 20)".into()]);
        e
    }

    fn row(kind: i8, k: i32, v: i32) -> (i8, Vec<String>) {
        (kind, vec![k.to_string(), v.to_string()])
    }

    #[test]
    fn a_stream_that_stops_before_the_final_value_lost_it() {
        let (mut ev, mut f) = (Evidence::default(), Findings::default());
        stream(&[row(0, 1, 10)], &c00(), &mut ev, &mut f);
        assert_eq!(f.classes(), [PointClass::ChangelogLost]);
        assert_eq!(ev.changelog["(1)"], ["(1, 10)"]);
    }

    #[test]
    fn a_stream_missing_only_an_intermediate_value_merged_it() {
        let mut e = c00();
        e.rows.insert("(1)".into(), "(1, 30)".into());
        e.changes.get_mut("(1)").unwrap().push("(1, 30)".into());
        let (mut ev, mut f) = (Evidence::default(), Findings::default());
        // +I (1, 10), -U (1, 10), +U (1, 30): (1, 20) never delivered.
        stream(
            &[row(0, 1, 10), row(1, 1, 10), row(2, 1, 30)],
            &e,
            &mut ev,
            &mut f,
        );
        assert_eq!(f.classes(), [PointClass::ChangelogLostHealedLater]);
    }

    #[test]
    fn a_change_delivered_twice_retracts_a_value_the_key_no_longer_holds() {
        // +I (1, 10), then -U (1, 10) +U (1, 20) twice (a COMPACT half's changelog committed beside the
        // changelog a later compaction made of the same files): the states alone read 10 -> 20.
        let rows = [
            row(0, 1, 10),
            row(1, 1, 10),
            row(2, 1, 20),
            row(1, 1, 10),
            row(2, 1, 20),
        ];
        let (mut ev, mut f) = (Evidence::default(), Findings::default());
        stream(&rows, &c00(), &mut ev, &mut f);
        assert_eq!(f.classes(), [PointClass::ChangelogDuplicated]);
        assert!(
            f.found[0].1.contains("-U (1, 10) while it holds (1, 20)"),
            "{:?}",
            f.found
        );
        // Once, it is the complete changelog.
        let (mut ev, mut f) = (Evidence::default(), Findings::default());
        stream(&rows[..3], &c00(), &mut ev, &mut f);
        assert!(f.found.is_empty(), "{:?}", f.found);
    }

    #[test]
    fn an_earlier_change_delivered_after_a_later_one_is_out_of_order() {
        // The writes go 10 -> 20 -> 30; the stream delivers commit 3's change (20 -> 30) before commit 2's
        // (10 -> 20): the consumer ends at (1, 20).
        let mut e = c00();
        e.rows.insert("(1)".into(), "(1, 30)".into());
        e.changes.get_mut("(1)").unwrap().push("(1, 30)".into());
        let rows = [
            row(0, 1, 10),
            row(1, 1, 20),
            row(2, 1, 30),
            row(1, 1, 10),
            row(2, 1, 20),
        ];
        let (mut ev, mut f) = (Evidence::default(), Findings::default());
        stream(&rows, &e, &mut ev, &mut f);
        assert_eq!(
            f.classes(),
            [PointClass::ChangelogOutOfOrder, PointClass::ChangelogLost],
            "{:?}",
            f.found
        );
        assert!(
            f.found[0]
                .1
                .contains("-U (1, 20) while it holds (1, 10), then +U (1, 30)")
                && f.found[0]
                    .1
                    .contains("-U (1, 10) while it holds (1, 30), then +U (1, 20)"),
            "{:?}",
            f.found
        );
    }

    #[test]
    fn a_stream_going_back_and_forth_duplicated_changes() {
        let (mut ev, mut f) = (Evidence::default(), Findings::default());
        let rows = [row(0, 1, 10), row(2, 1, 20), row(2, 1, 10), row(2, 1, 20)];
        stream(&rows, &c00(), &mut ev, &mut f);
        assert_eq!(f.classes(), [PointClass::ChangelogDuplicated]);
        // The complete changelog, -U retractions included, is no finding.
        let (mut ev, mut f) = (Evidence::default(), Findings::default());
        stream(
            &[row(0, 1, 10), row(1, 1, 10), row(2, 1, 20)],
            &c00(),
            &mut ev,
            &mut f,
        );
        assert!(f.found.is_empty(), "{:?}", f.found);
    }

    #[test]
    fn the_batch_read_must_hold_each_key_once_with_its_last_value() {
        let (mut ev, mut f) = (Evidence::default(), Findings::default());
        batch(&[row(0, 1, 20), row(0, 1, 20)], &c00(), &mut ev, &mut f);
        assert_eq!(f.classes(), [PointClass::DuplicateRows]);
        let (mut ev, mut f) = (Evidence::default(), Findings::default());
        batch(&[row(0, 1, 10), row(0, 2, 5)], &c00(), &mut ev, &mut f);
        assert_eq!(f.classes(), [PointClass::DataLost, PointClass::DataLost]);
        let (mut ev, mut f) = (Evidence::default(), Findings::default());
        batch(&[], &c00(), &mut ev, &mut f);
        assert_eq!(f.classes(), [PointClass::DataLost]);
        assert!(f.found[0].1.contains("missing"), "{:?}", f.found);
    }
}
