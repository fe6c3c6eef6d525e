//! The harness never touches a warehouse: every file of every committed corpus (bytes, size, modification
//! time) and every directory is the same before and after `replay` (stream and batch, both readers and an
//! external reader), `inspect` and `audit` (both readers), run on every committed corpus in place, and
//! `bench` on five of them. Nothing changed, nothing was added (no consumer, tag, temporary or lock file),
//! nothing removed.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// One entry of a directory tree: a directory, or a file with its size, modification time and content.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Entry {
    Dir,
    File {
        len: u64,
        modified: SystemTime,
        hash: u64,
    },
}

/// FNV-1a, 64 bits: enough to tell a changed byte (sizes and times are compared too).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Every directory and file under `root`, by path relative to it.
fn tree(root: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            let path = e.path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                out.insert(rel, Entry::Dir);
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.insert(
                    rel,
                    Entry::File {
                        len: meta.len(),
                        modified: meta.modified().unwrap(),
                        hash: fnv1a(&bytes),
                    },
                );
            }
        }
    }
    out
}

/// What differs between two trees, in words.
fn differences(before: &BTreeMap<PathBuf, Entry>, after: &BTreeMap<PathBuf, Entry>) -> Vec<String> {
    let mut out = Vec::new();
    for (p, e) in before {
        match after.get(p) {
            None => out.push(format!("removed {}", p.display())),
            Some(a) if a != e => out.push(format!("changed {}: {e:?} -> {a:?}", p.display())),
            _ => {}
        }
    }
    for p in after.keys().filter(|p| !before.contains_key(*p)) {
        out.push(format!("added {}", p.display()));
    }
    out
}

fn run(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_paimon-parity"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// The corpora `bench` runs on (one per file format, a deletion-vector table and a merge engine): `bench`
/// reads through the same readers as `replay` and `audit`, which run on every corpus; five corpora keep this
/// test's time in check.
const BENCHED: [&str; 5] = [
    "format-orc",
    "format-avro",
    "c07-deletion-vectors",
    "c09-partial-update",
    "c00-lookup-fault",
];

/// The commands run over the corpora: `(arguments, exit statuses that are a success on a committed corpus)`.
/// `replay` takes every table in one process (one JVM, the tables one after another); `inspect`, `audit` and
/// `bench` take one table each.
fn commands(tables: &[String], out: &Path) -> Vec<(Vec<String>, &'static [i32])> {
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let json = |name: &str| out.join(name).display().to_string();
    let every = |a: &[&str]| {
        let mut v = vec!["replay".to_owned()];
        v.extend(tables.iter().cloned());
        v.extend(args(a));
        v
    };
    let mut cmds: Vec<(Vec<String>, &'static [i32])> = vec![
        // Both readers: the stream and the batch replay of every corpus.
        (
            every(&["--mode", "stream,batch", "--json", &json("replay.json")]),
            &[0, 1],
        ),
        // The example external reader (it plans by itself, then reads its own splits).
        (
            every(&[
                "--reader",
                "example",
                "--reader-plans",
                "--mode",
                "stream,batch",
            ]),
            &[0, 1],
        ),
    ];
    for (i, table) in tables.iter().enumerate() {
        let json = json(&format!("{i}.json"));
        cmds.push((args(&["inspect", table, "--json", &json]), &[0]));
        // audit: 0 complete, 1 changelog lost (a finding, not a failure), 3 not checked (a table without
        // primary key, or whose producer streams raw writes); `both` runs both readers.
        cmds.push((
            args(&["audit", table, "--reader", "both", "--json", &json]),
            &[0, 1, 3],
        ));
        if BENCHED.iter().any(|c| table.contains(&format!("/{c}/"))) {
            cmds.push((
                args(&["bench", table, "--json", &json, "--samples", "1"]),
                &[0],
            ));
        }
    }
    cmds
}

#[test]
fn no_command_changes_adds_or_removes_a_file_of_any_corpus() {
    let corpora_dir = common::repo_root().join("corpora");
    let corpora = common::corpora();
    assert!(corpora.len() >= 2);
    let tables: Vec<String> = corpora
        .iter()
        .map(|dir| dir.join("table").display().to_string())
        .collect();
    let before = tree(&corpora_dir);
    let out = tempfile::tempdir().unwrap();
    let cmds = commands(&tables, out.path());
    // Two commands at a time (the machines that run this have two cores).
    let next = std::sync::atomic::AtomicUsize::new(0);
    #[allow(clippy::type_complexity)]
    let results: Vec<(usize, Option<i32>, bool, String)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((args, ok)) = cmds.get(i) else {
                            return mine;
                        };
                        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
                        let (code, text) = run(&refs);
                        mine.push((i, code, code.is_some_and(|c| ok.contains(&c)), text));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    for (i, code, success, text) in &results {
        assert!(success, "{:?}: exit {code:?}\n{text}", cmds[*i].0);
    }
    let diff = differences(&before, &tree(&corpora_dir));
    assert!(
        diff.is_empty(),
        "one of {} commands touched the corpora:\n{}",
        cmds.len(),
        diff.join("\n")
    );
    // Every corpus was replayed by both readers, in both scans, by one process.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("replay.json")).unwrap())
            .unwrap();
    assert_eq!(
        report["runs"].as_array().map(Vec::len),
        Some(2 * corpora.len())
    );
    assert_eq!(results.len(), cmds.len());
    assert!(cmds.len() >= 2 * corpora.len() + 2 + BENCHED.len());
}

#[test]
fn the_tree_comparison_sees_changes_additions_and_removals() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(&common::corpus("c00-full-compaction-control"), dir.path());
    let before = tree(dir.path());
    assert!(before.len() > 20);
    assert!(differences(&before, &tree(dir.path())).is_empty());
    let snapshot = dir.path().join("table/snapshot/snapshot-1");
    let mut bytes = std::fs::read(&snapshot).unwrap();
    bytes[0] ^= 1;
    std::fs::write(&snapshot, &bytes).unwrap();
    std::fs::create_dir(dir.path().join("table/consumer")).unwrap();
    std::fs::remove_file(dir.path().join("table/snapshot/LATEST")).unwrap();
    let diff = differences(&before, &tree(dir.path()));
    assert_eq!(diff.len(), 3, "{diff:?}");
    assert!(diff
        .iter()
        .any(|d| d.starts_with("changed table/snapshot/snapshot-1")));
    assert!(diff.iter().any(|d| d == "added table/consumer"));
    assert!(diff.iter().any(|d| d == "removed table/snapshot/LATEST"));
}
