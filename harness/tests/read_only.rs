//! The harness never touches a warehouse: every file of every committed corpus (bytes, size, modification
//! time) and every directory is the same before and after `replay` (stream and batch), `inspect`, `audit`
//! (both readers) and `bench`, run on every committed corpus in place. Nothing changed, nothing was added (no consumer, tag, temporary or lock file), nothing removed.

mod common;

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

/// True when this build of the binary has the subcommand (`bench` does not exist yet).
fn has_subcommand(name: &str) -> bool {
    run(&[name, "--help"]).0 == Some(0)
}

/// The commands run on every corpus: `(arguments, exit statuses that are a success on a committed corpus)`.
fn commands(table: &str, json: &str) -> Vec<(Vec<String>, &'static [i32])> {
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut out: Vec<(Vec<String>, &'static [i32])> = vec![
        // Both readers: the stream replay, the batch replay.
        (args(&["replay", table, "--json", json]), &[0, 1]),
        (args(&["replay", table, "--mode", "batch"]), &[0, 1]),
        // The example external reader (it plans by itself, then reads its own splits).
        (
            args(&[
                "replay",
                table,
                "--reader",
                "example",
                "--reader-plans",
                "--mode",
                "stream,batch",
            ]),
            &[0, 1],
        ),
        (args(&["inspect", table, "--json", json]), &[0]),
        // audit: 0 complete, 1 changelog lost (a finding, not a failure); `both` runs both readers.
        (
            args(&["audit", table, "--reader", "both", "--json", json]),
            &[0, 1],
        ),
    ];
    // BENCH: hashed like the others as soon as this build has `bench` (it writes its JSON report outside
    // the corpora).
    if has_subcommand("bench") {
        out.push((
            args(&["bench", table, "--json", json, "--samples", "1"]),
            &[0],
        ));
    }
    out
}

#[test]
fn no_command_changes_adds_or_removes_a_file_of_any_corpus() {
    let corpora_dir = common::repo_root().join("corpora");
    let corpora = common::corpora();
    assert!(corpora.len() >= 2);
    let before = tree(&corpora_dir);
    let mut commands_run = 0;
    // Three corpora at a time; the whole tree is compared after each group.
    for group in corpora.chunks(3) {
        let outs: Vec<tempfile::TempDir> =
            group.iter().map(|_| tempfile::tempdir().unwrap()).collect();
        #[allow(clippy::type_complexity)]
        let results: Vec<Vec<(Vec<String>, Option<i32>, bool, String)>> = std::thread::scope(|s| {
            let handles: Vec<_> = group
                .iter()
                .zip(&outs)
                .map(|(dir, out)| {
                    s.spawn(move || {
                        let table = dir.join("table");
                        let json = out.path().join("out.json");
                        commands(table.to_str().unwrap(), json.to_str().unwrap())
                            .into_iter()
                            .map(|(args, ok)| {
                                let refs: Vec<&str> = args.iter().map(String::as_str).collect();
                                let (code, text) = run(&refs);
                                let success = code.is_some_and(|c| ok.contains(&c));
                                (args, code, success, text)
                            })
                            .collect()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let ran: Vec<&Vec<String>> = results.iter().flatten().map(|(a, ..)| a).collect();
        commands_run += ran.len();
        for (args, code, success, text) in results.iter().flatten() {
            assert!(success, "{args:?}: exit {code:?}\n{text}");
        }
        let diff = differences(&before, &tree(&corpora_dir));
        assert!(
            diff.is_empty(),
            "one of {ran:?} touched the corpora:\n{}",
            diff.join("\n")
        );
    }
    assert!(commands_run >= 4 * corpora.len(), "{commands_run} commands");
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
