//! Helpers shared by the harness's integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("harness sits in the workspace root")
        .to_path_buf()
}

/// Every committed corpus directory (those with a `case.json`), sorted.
pub fn corpora() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(repo_root().join("corpora"))
        .expect("corpora/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").is_file())
        .collect();
    out.sort();
    out
}

/// The native reader of the release line this test process runs (as the stock side does).
pub fn native() -> harness::reader::NativeTableReader {
    harness::reader::NativeTableReader::for_this_process().expect("a supported release line")
}

/// The released Paimon this test process runs: `PAIMON_PARITY_PAIMON_VERSION`, else the default line
/// (`jvm_bridge::jvm::paimon_version`, what the stock side loads).
pub fn line_version() -> String {
    jvm_bridge::jvm::paimon_version()
}

/// The release that wrote a corpus directory (its `case.json`'s `paimon_version`).
pub fn written_by(dir: &Path) -> String {
    let case: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
    case["paimon_version"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Every scenario's corpus as written by release `version`, sorted by scenario name: `corpora/<name>`
/// when its committed table was written by `version`; else `corpora/<name>/paimon-<version>` when that
/// line's table is committed; else the scenario generated now by the released writer of `version`
/// (`paimon-parity corpus generate --paimon-version <version>`, in its own process) into
/// `$CARGO_TARGET_TMPDIR/corpora-paimon-<version>/<name>`, reused while its recorded scenario is unchanged.
/// Scenarios that name another `paimon_version`, or a `min_paimon_version` after `version`, are left out.
pub fn line_corpora(version: &str) -> Vec<PathBuf> {
    static GENERATED: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = GENERATED.lock().unwrap_or_else(|e| e.into_inner());
    let mut out = Vec::new();
    for dir in scenario_dirs() {
        let scenario = std::fs::read(dir.join("scenario.json")).unwrap();
        let pinned: serde_json::Value = serde_json::from_slice(&scenario).unwrap();
        // The released reader's own stream of it fails (`expect_stream_error`): replayed by name only.
        if pinned.get("expect_stream_error").is_some() {
            continue;
        }
        if pinned["paimon_version"]
            .as_str()
            .is_some_and(|v| v != version)
        {
            continue;
        }
        let release =
            |v: &str| native_reader::PaimonRelease::parse(v).expect("a supported release");
        if pinned["min_paimon_version"]
            .as_str()
            .is_some_and(|first| release(version) < release(first))
        {
            continue;
        }
        if dir.join("case.json").is_file() && written_by(&dir) == version {
            out.push(dir);
            continue;
        }
        let committed = dir.join(format!("paimon-{version}"));
        if committed.join("case.json").is_file() {
            assert!(
                std::fs::read(committed.join("scenario.json"))
                    .ok()
                    .as_deref()
                    == Some(scenario.as_slice()),
                "{} was written from another scenario than {}: regenerate it \
                 (scripts/regenerate-corpora --paimon-version {version} {})",
                committed.display(),
                dir.join("scenario.json").display(),
                dir.file_name().unwrap().to_string_lossy()
            );
            out.push(committed);
            continue;
        }
        let name = dir.file_name().unwrap();
        let generated = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("corpora-paimon-{version}"))
            .join(name);
        let fresh = generated.join("case.json").is_file()
            && std::fs::read(generated.join("scenario.json"))
                .ok()
                .as_deref()
                == Some(scenario.as_slice());
        if !fresh {
            let _ = std::fs::remove_dir_all(&generated);
            let run = std::process::Command::new(env!("CARGO_BIN_EXE_paimon-parity"))
                .args(["corpus", "generate"])
                .arg(dir.join("scenario.json"))
                .arg("--out")
                .arg(&generated)
                .args(["--paimon-version", version])
                .output()
                .expect("paimon-parity runs");
            assert!(
                run.status.success(),
                "{} with Paimon {version}: {}",
                dir.display(),
                String::from_utf8_lossy(&run.stderr)
            );
        }
        out.push(generated);
    }
    out
}

/// Whether the corpus at `dir` (from [`line_corpora`]) holds absolute paths (`Scenario::absolute_paths`:
/// BLOB descriptors or external paths naming files of this disk), so that a copy of it elsewhere still
/// reads the files here.
pub fn holds_absolute_paths(dir: &Path) -> bool {
    let scenario = dir.join("scenario.json");
    std::fs::read(&scenario)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .is_some_and(|v| v["absolute_paths"].as_bool() == Some(true))
}

/// The scenario name of a corpus directory from [`corpora`] or [`line_corpora`] (`corpora/<name>`,
/// `corpora/<name>/paimon-<V>`, or a generated `<name>`).
pub fn corpus_name(dir: &Path) -> String {
    let last = dir.file_name().unwrap().to_string_lossy().into_owned();
    if last.starts_with("paimon-") {
        dir.parent()
            .and_then(|p| p.file_name())
            .unwrap()
            .to_string_lossy()
            .into_owned()
    } else {
        last
    }
}

/// Every corpus directory with a `scenario.json`, sorted: those of [`corpora`], and scenarios of later releases
/// only (pinned by `paimon_version` or `min_paimon_version`), whose table lives in `paimon-<V>/` alone.
pub fn scenario_dirs() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(repo_root().join("corpora"))
        .expect("corpora/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("scenario.json").is_file())
        .collect();
    out.sort();
    out
}

/// A committed corpus by name.
pub fn corpus(name: &str) -> PathBuf {
    let p = repo_root().join("corpora").join(name);
    assert!(
        p.join("case.json").is_file(),
        "missing corpus {}",
        p.display()
    );
    p
}

/// Copies a directory tree (so that tests that damage a table never touch a committed corpus).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A JSON file (a report, a case), panicking with its path when it cannot be read or parsed.
pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(
        &std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A path as a command-line argument (the tests' paths are UTF-8).
pub fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `paimon-parity` and fails with its output when it exits other than `want`: (stdout, stderr).
pub fn expect_exit(want: i32, args: &[&str]) -> (String, String) {
    let (code, out, err) = paimon_parity(args);
    assert_eq!(
        code, want,
        "paimon-parity {args:?}: exit {code}\nstdout:\n{out}\nstderr:\n{err}"
    );
    (out, err)
}

/// Runs the `paimon-parity` binary with `args`: (exit status, -1 when killed by a signal; stdout; stderr).
pub fn paimon_parity(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_paimon-parity"))
        .args(args)
        .output()
        .expect("paimon-parity runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A replay's JSON report without what differs between runs of the same replay: wall times (`*_ms`), the
/// summary lines' trailing time, and the options that name the run (`json`, `threads`, `shard`).
pub fn without_timings(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| {
                    !k.ends_with("_ms") && !["json", "shard", "threads"].contains(&k.as_str())
                })
                .map(|(k, x)| {
                    let x = match (k.as_str(), x) {
                        ("summary", Value::String(s)) => {
                            Value::String(s.rfind(", ").map_or(s.clone(), |c| s[..c].to_owned()))
                        }
                        _ => without_timings(x),
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_timings).collect()),
        other => other.clone(),
    }
}

/// A copy of c00-lookup-control as a recovery that dropped commit 2's whole committable leaves it: both
/// snapshots of identifier 2 gone (`filterAndCommit` drops a committable whose identifier the user's latest
/// snapshot already has; here as if it never landed), its files still in the bucket.
pub fn dropped_commit_2(into: &Path) {
    let control = line_corpora(&line_version())
        .into_iter()
        .find(|d| corpus_name(d) == "c00-lookup-control")
        .unwrap();
    copy_tree(&control.join("table"), into);
    let snapshots = into.join("snapshot");
    for id in [3, 4] {
        let path = snapshots.join(format!("snapshot-{id}"));
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(json["commitIdentifier"], 2, "{}", path.display());
        std::fs::remove_file(path).unwrap();
    }
    std::fs::write(snapshots.join("LATEST"), "2").unwrap();
}
