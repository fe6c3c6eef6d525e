//! The tables each release wrote: a scenario's committed table when that release wrote it, else the scenario
//! written once by that release's released writer into the work directory (`paimon-parity corpus generate
//! --paimon-version A`, one child process each), reused while the scenario is unchanged. A failed write is
//! never reused: it is tried again by the next run (the failure may have been the machine's, not the
//! scenario's: a killed child, a full disk, a Java side rebuilt since).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

use crate::corpus::load_scenario;
use crate::error::{Error, Result};

/// Where the table a release wrote comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// Committed in the repository: `corpora/<name>/table` (its `case.json` names the release) or
    /// `corpora/<name>/paimon-<A>/table` (its `scenario.json` equal to the scenario's).
    Committed,
    /// Written by this run into the work directory.
    Generated,
    /// Written into the work directory by an earlier run, from the same scenario.
    Reused,
    /// The release's writer failed on the scenario in this run (a failure is recorded beside the work
    /// directory's corpus for people, never reused: every run tries again).
    NotWritten,
    /// The scenario names the releases that write it (`paimon_version`: that one alone;
    /// `min_paimon_version`: that one and later ones), and this release is not one of them.
    Pinned,
}

/// The table release `release` wrote for one scenario, or why there is none.
#[derive(Clone, Debug, Serialize)]
pub struct CorpusSource {
    /// The scenario's name (its directory under `corpora/`).
    pub corpus: String,
    /// The writing release.
    pub release: String,
    /// Where the table comes from.
    pub origin: Origin,
    /// The table directory; `None` unless the release wrote it.
    pub table: Option<PathBuf>,
    /// Why there is no table: the writer's error (last lines of its output), or the release the scenario
    /// is pinned to.
    pub detail: Option<String>,
}

impl CorpusSource {
    /// Whether the release wrote this corpus (committed, generated or reused).
    pub fn written(&self) -> bool {
        self.table.is_some()
    }
}

/// A scenario of the matrix: its name, its file, its text and the release it is pinned to.
#[derive(Clone, Debug)]
pub struct ScenarioFile {
    /// The scenario's `name`.
    pub name: String,
    /// The `scenario.json` file.
    pub file: PathBuf,
    /// Its bytes (to compare with the copies beside committed and generated tables).
    pub bytes: Vec<u8>,
    /// `paimon_version`, when the scenario names the one release that writes it.
    pub pinned: Option<String>,
    /// `min_paimon_version`, when the scenario names the first release that can write it.
    pub min_release: Option<String>,
}

impl ScenarioFile {
    /// Reads a scenario file.
    ///
    /// Errors: [`Error::Io`], [`Error::Scenario`] (as `crate::corpus::load_scenario`).
    pub fn read(file: &Path) -> Result<Self> {
        let scenario = load_scenario(file)?;
        let bytes = std::fs::read(file).map_err(|e| Error::Io {
            path: file.to_path_buf(),
            source: e,
        })?;
        Ok(ScenarioFile {
            name: scenario.name,
            file: file.to_path_buf(),
            bytes,
            pinned: scenario.paimon_version,
            min_release: scenario.min_paimon_version,
        })
    }

    /// Why `release` does not write this scenario (`paimon_version` names another release,
    /// `min_paimon_version` a later one); `None` when it does.
    pub fn not_written_by(&self, release: &str) -> Option<String> {
        if let Some(pinned) = self.pinned.as_deref().filter(|p| *p != release) {
            return Some(format!("the scenario is written by Paimon {pinned} only"));
        }
        let order = |v: &str| native_reader::PaimonRelease::parse(v).ok();
        match (self.min_release.as_deref(), order(release)) {
            (Some(first), Some(this)) if order(first).is_some_and(|f| this < f) => Some(format!(
                "the scenario is written by Paimon {first} and later releases only"
            )),
            _ => None,
        }
    }

    /// The directory of the scenario's committed corpus (the one holding `scenario.json`).
    fn dir(&self) -> &Path {
        self.file.parent().unwrap_or(Path::new("."))
    }

    /// The committed table `release` wrote, if any: `<dir>/table` when `<dir>/case.json` records
    /// `paimon_version` = `release`, else `<dir>/paimon-<release>/table` when its `scenario.json` is this
    /// scenario's (a copy written from an older scenario is not this scenario's table).
    pub fn committed_table(&self, release: &str) -> Option<PathBuf> {
        let dir = self.dir();
        if dir.join("table").is_dir() && written_by(dir).as_deref() == Some(release) {
            return Some(dir.join("table"));
        }
        let line = dir.join(format!("paimon-{release}"));
        let same = std::fs::read(line.join("scenario.json")).ok().as_deref()
            == Some(self.bytes.as_slice());
        (same && line.join("table").is_dir()).then(|| line.join("table"))
    }
}

/// The `paimon_version` a corpus directory's `case.json` records.
fn written_by(dir: &Path) -> Option<String> {
    let bytes = std::fs::read(dir.join("case.json")).ok()?;
    let case: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    case["paimon_version"].as_str().map(str::to_owned)
}

/// The file in a generated corpus's directory recording the last failure of the release's writer on its
/// scenario (for people: it is never read back).
const FAILED_FILE: &str = "generate-failed.txt";

/// How the matrix starts its child processes: this binary, with the run's file-system options handed over in
/// a file only this user can read (`--options-file`, for tables in a store), never on a command line.
#[derive(Clone, Copy, Debug)]
pub struct Children<'a> {
    /// The `paimon-parity` binary.
    pub exe: &'a Path,
    /// The options file (`crate::store_options::write_private`), when the tables are in a store.
    pub options_file: Option<&'a Path>,
}

impl Children<'_> {
    /// A command running the binary, with `--options-file` when there is one.
    pub fn command(&self) -> Command {
        let mut command = Command::new(self.exe);
        if let Some(file) = self.options_file {
            command.arg("--options-file").arg(file);
        }
        command
    }
}

/// Where the tables the releases write go: the work directory (`<work>/corpora/<release>/<name>`), or a
/// store (`<store>/<release>/<name>`, e.g. `s3://bucket/matrix/1.0.0/c01-key-order`), with what the people
/// running it need (the failures of the writer) kept in the work directory either way.
#[derive(Clone, Copy, Debug)]
pub struct Destination<'a> {
    /// The local work directory.
    pub work: &'a Path,
    /// The store URI the corpora are written into, if not the work directory.
    pub store: Option<&'a Path>,
}

/// The table `release` wrote for `scenario`: committed (only when the corpora stay on local disk: with a
/// store every table is written into it), reused from the destination (only a complete write of the same
/// scenario: its `scenario.json` equal to the scenario, and `case.json`, which `corpus generate` writes
/// last), or generated there now by `exe corpus generate <scenario> --out <dir> --paimon-version <release>`
/// (a child process: one release per JVM; `--replace` in a store, where an earlier half-written table is
/// removed through the released FileIO). A failed generation is [`Origin::NotWritten`] with the writer's
/// error, recorded in the work directory (`corpora/<release>/<name>/generate-failed.txt`, with the
/// scenario) and tried again by the next run.
///
/// Errors: [`Error::Io`] when the work directory cannot be written or the child cannot be started;
/// [`Error::Native`] when the store cannot be read.
pub fn table_of(
    children: Children<'_>,
    to: Destination<'_>,
    scenario: &ScenarioFile,
    release: &str,
) -> Result<CorpusSource> {
    let source = |origin, table: Option<PathBuf>, detail: Option<String>| CorpusSource {
        corpus: scenario.name.clone(),
        release: release.to_owned(),
        origin,
        table,
        detail,
    };
    if let Some(why) = scenario.not_written_by(release) {
        return Ok(source(Origin::Pinned, None, Some(why)));
    }
    let local = to.work.join("corpora").join(release).join(&scenario.name);
    let io = |path: &Path, e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let dir = match to.store {
        Some(store) => store.join(release).join(&scenario.name),
        None => {
            if let Some(table) = scenario.committed_table(release) {
                return Ok(source(Origin::Committed, Some(table), None));
            }
            local.clone()
        }
    };
    if complete(&dir, &scenario.bytes)? {
        return Ok(source(Origin::Reused, Some(dir.join("table")), None));
    }
    if to.store.is_none() && dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| io(&dir, e))?;
    }
    let parent = dir.parent().unwrap_or(to.work);
    if to.store.is_none() {
        std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
    }
    let mut command = children.command();
    command
        .args(["corpus", "generate"])
        .arg(&scenario.file)
        .arg("--out")
        .arg(&dir)
        .args(["--paimon-version", release])
        .env_remove(jvm_bridge::jvm::PAIMON_VERSION_ENV);
    if to.store.is_some() {
        command.arg("--replace");
    }
    let output = command.output().map_err(|e| io(children.exe, e))?;
    if output.status.success() && complete(&dir, &scenario.bytes)? {
        if to.store.is_some() {
            // The failure an earlier run recorded in the work directory is answered.
            let _ = std::fs::remove_dir_all(&local);
        }
        return Ok(source(Origin::Generated, Some(dir.join("table")), None));
    }
    let why = format!(
        "`paimon-parity corpus generate --paimon-version {release}` failed ({}): {}",
        output.status,
        last_lines(&String::from_utf8_lossy(&output.stderr), 3)
    );
    // Keep the failure (and the scenario it was for), not the half-written table.
    let _ = std::fs::remove_dir_all(&local);
    std::fs::create_dir_all(&local).map_err(|e| io(&local, e))?;
    std::fs::write(local.join("scenario.json"), &scenario.bytes)
        .map_err(|e| io(&local.join("scenario.json"), e))?;
    std::fs::write(local.join(FAILED_FILE), format!("{why}\n"))
        .map_err(|e| io(&local.join(FAILED_FILE), e))?;
    Ok(source(Origin::NotWritten, None, Some(why)))
}

/// Whether `dir` (local or in a store) holds a complete write of the scenario `bytes`: its `scenario.json`
/// equal to them, its `case.json` (written last) present, and locally its `table/`.
///
/// Errors: [`Error::Native`] when the store cannot be read (a missing object is not an error).
fn complete(dir: &Path, bytes: &[u8]) -> Result<bool> {
    if !native_reader::fileio::is_store(dir) {
        let same = std::fs::read(dir.join("scenario.json")).ok().as_deref() == Some(bytes);
        return Ok(same && dir.join("case.json").is_file() && dir.join("table").is_dir());
    }
    let scenario = dir.join("scenario.json");
    if !native_reader::fileio::exists(&scenario)? {
        return Ok(false);
    }
    let same = native_reader::fileio::read(&scenario)?.as_ref() == bytes;
    Ok(same && native_reader::fileio::exists(&dir.join("case.json"))?)
}

/// The last `n` non-empty lines of `text`, joined with ` | `.
pub(super) fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_tables_by_release() {
        let dir = crate::corpus::corpora_dir();
        let with_line =
            ScenarioFile::read(&dir.join("c07-deletion-vectors/scenario.json")).unwrap();
        assert_eq!(
            with_line.committed_table("1.0.0"),
            Some(dir.join("c07-deletion-vectors/table"))
        );
        assert_eq!(
            with_line.committed_table("2.0.0"),
            Some(dir.join("c07-deletion-vectors/paimon-2.0.0/table"))
        );
        assert_eq!(with_line.committed_table("1.2.0"), None);
        let pinned = ScenarioFile::read(&dir.join("c16-postpone-bucket/scenario.json")).unwrap();
        assert_eq!(pinned.pinned.as_deref(), Some("2.0.0"));
        assert_eq!(pinned.committed_table("1.0.0"), None);
        assert!(pinned.not_written_by("1.0.0").is_some());
        assert!(pinned.not_written_by("2.0.0").is_none());
        let from =
            ScenarioFile::read(&dir.join("c14-deletion-vectors-bitmap64/scenario.json")).unwrap();
        assert_eq!(from.min_release.as_deref(), Some("1.2.0"));
        assert!(from.not_written_by("1.1.1").is_some());
        assert!(from.not_written_by("1.2.0").is_none());
        assert!(from.not_written_by("2.0.0").is_none());
    }

    #[test]
    fn a_pinned_scenario_is_not_written_by_another_release() {
        let dir = crate::corpus::corpora_dir();
        let pinned = ScenarioFile::read(&dir.join("c16-postpone-bucket/scenario.json")).unwrap();
        let s = table_of(
            Children {
                exe: Path::new("/nonexistent"),
                options_file: None,
            },
            Destination {
                work: Path::new("/nonexistent"),
                store: None,
            },
            &pinned,
            "1.0.0",
        )
        .unwrap();
        assert_eq!(s.origin, Origin::Pinned);
        assert!(!s.written());
    }

    /// `table_of` with `exe`, retried while the executable is busy (a test thread's fork may hold the freshly
    /// written script open for a moment: ETXTBSY).
    fn table_of_retrying(exe: &Path, work: &Path, s: &ScenarioFile) -> CorpusSource {
        for _ in 0..50 {
            let children = Children {
                exe,
                options_file: None,
            };
            let to = Destination { work, store: None };
            match table_of(children, to, s, "1.0.0") {
                Err(Error::Io { source, .. }) if source.raw_os_error() == Some(26) => {
                    std::thread::sleep(std::time::Duration::from_millis(20))
                }
                other => return other.unwrap(),
            }
        }
        panic!("{} stayed busy", exe.display())
    }

    #[test]
    fn a_failed_write_is_reported_and_tried_again_by_the_next_run() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("scenario.json");
        std::fs::write(&file, b"{\"name\": \"retried\"}").unwrap();
        let scenario = ScenarioFile {
            name: "retried".into(),
            file,
            bytes: b"{\"name\": \"retried\"}".to_vec(),
            pinned: None,
            min_release: None,
        };
        let work = dir.path().join("work");
        // The writer fails: reported with its exit status, the failure recorded beside the corpus.
        let failed = table_of_retrying(Path::new("/bin/false"), &work, &scenario);
        assert_eq!(failed.origin, Origin::NotWritten);
        assert!(!failed.written());
        let why = failed.detail.unwrap();
        assert!(
            why.contains("corpus generate --paimon-version 1.0.0` failed"),
            "{why}"
        );
        let record = work.join("corpora/1.0.0/retried").join(FAILED_FILE);
        assert!(record.is_file());
        // The next run tries again: a writer that now succeeds (as `corpus generate` does: `case.json`,
        // `scenario.json` and `table/` under `--out`) gives the table, not the old failure.
        let ok = dir.path().join("writer-ok");
        std::fs::write(
            &ok,
            "#!/bin/sh\nmkdir -p \"$5/table\" && cp \"$3\" \"$5/scenario.json\" && echo '{}' > \"$5/case.json\"\n",
        )
        .unwrap();
        std::fs::set_permissions(&ok, std::fs::Permissions::from_mode(0o755)).unwrap();
        let written = table_of_retrying(&ok, &work, &scenario);
        assert_eq!(written.origin, Origin::Generated, "{written:?}");
        assert_eq!(
            written.table,
            Some(work.join("corpora/1.0.0/retried/table"))
        );
        // And a complete write is reused while the scenario is unchanged (no writer runs).
        let reused = table_of_retrying(Path::new("/bin/false"), &work, &scenario);
        assert_eq!(reused.origin, Origin::Reused);
    }

    #[test]
    fn last_lines_of_output() {
        assert_eq!(last_lines("a\n\nb\nc\n", 2), "b | c");
        assert_eq!(last_lines("", 2), "");
    }
}
