//! Candidates: a released Paimon with patches laid over it (`scripts/build-candidate`), run by the bridge in
//! place of the release it is based on, and labelled as a candidate everywhere: never a release, never the
//! oracle.
//!
//! `scripts/build-java --candidate NAME --based-on V --patch FILE...` writes
//! `<crate>/java/target/candidate-NAME/`: `overlay/` (the classes compiled from the patched paimon sources,
//! e.g. `org.apache.paimon.operation.FileStoreCommitImpl`), or `jars/` (a user's own jars, `--jars DIR`), and
//! `candidate.json` ([`Candidate`]). Its class path ([`Candidate::classpath`]) is `overlay/`, `jars/*.jar`, then
//! release V's own build (`paimon-V/classes`, `paimon-V/lib/*.jar`), so the overlay's classes win and the rest is
//! the release's. The native reader follows release V's rules ([`crate::jvm::paimon_version`] is V while a
//! candidate is selected). A candidate starts without the release's class-data archive (it holds the release's
//! classes).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The file describing a candidate in its build directory.
pub const CANDIDATE_FILE: &str = "candidate.json";

/// One patch of a candidate, as `candidate.json` records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CandidatePatch {
    /// The patch's file name (e.g. `fix-recovery.patch`).
    pub file: String,
    /// SHA-256 of the patch file, hex.
    pub sha256: String,
    /// Lines the patch adds (`git apply --numstat`).
    pub lines_added: u64,
    /// Lines the patch removes.
    pub lines_removed: u64,
}

/// A candidate build, read from its `candidate.json` ([`Candidate::load`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    /// The candidate's name (`--candidate NAME`).
    pub name: String,
    /// The release it patches (e.g. `2.0.0`); its build is the rest of the class path.
    pub based_on: String,
    /// The patches, in the order they were applied; empty for `--jars`.
    #[serde(default)]
    pub patches: Vec<CandidatePatch>,
    /// Where the patched sources came from (`sources jar org.apache.paimon:paimon-core:2.0.0`, `source tree
    /// DIR`, `source tarball FILE`) or `jars DIR`.
    pub source: String,
    /// The overlay's class names (binary names, e.g. `org.apache.paimon.operation.FileStoreCommitImpl$1`).
    #[serde(default)]
    pub classes: Vec<String>,
    /// The jars of `--jars`, by file name.
    #[serde(default)]
    pub jars: Vec<String>,
    /// When it was built, UTC, ISO 8601.
    pub built_at: String,
    /// The build directory (`<crate>/java/target/candidate-NAME`); not in the file.
    #[serde(skip)]
    pub dir: PathBuf,
}

impl Candidate {
    /// Reads the candidate `name` from its build directory ([`candidate_dir`]).
    ///
    /// Errors: [`Error::Candidate`] when `name` is not a plain name, when no candidate of that name is built
    /// (naming the candidates that are, and `scripts/build-java --candidate`), when its `candidate.json` is
    /// unreadable, or when the release it is based on is not built.
    pub fn load(name: &str) -> Result<Candidate> {
        let plain = !name.is_empty()
            && !name.starts_with('.')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !plain {
            return Err(Error::Candidate(format!(
                "`{name}` is not a candidate name (letters, digits, '.', '_', '-')"
            )));
        }
        let dir = candidate_dir(name);
        let file = dir.join(CANDIDATE_FILE);
        let text = std::fs::read_to_string(&file).map_err(|_| unknown(name))?;
        let mut candidate: Candidate = serde_json::from_str(&text).map_err(|e| {
            Error::Candidate(format!(
                "{} is not a candidate description: {e}; rebuild it with `scripts/build-java --candidate {name} ...`",
                file.display()
            ))
        })?;
        if candidate.name != name {
            return Err(Error::Candidate(format!(
                "{} names candidate `{}`, not `{name}`",
                file.display(),
                candidate.name
            )));
        }
        candidate.dir = dir;
        let release = crate::jvm::build_dir(&candidate.based_on);
        if !release.join("classes").is_dir() {
            return Err(Error::Candidate(format!(
                "candidate {name} is based on Paimon {}, whose Java side is not built ({}); build it with \
                 `scripts/build-java --paimon-version {}`",
                candidate.based_on,
                release.display(),
                candidate.based_on
            )));
        }
        Ok(candidate)
    }

    /// How reports name it: `candidate NAME (based on V), not a release`.
    pub fn label(&self) -> String {
        format!(
            "candidate {} (based on {}), not a release",
            self.name, self.based_on
        )
    }

    /// The candidate as reports record it, beside the release it is based on:
    /// `{"name", "based_on", "patches": [{"file","sha256","lines_added","lines_removed"}], "source",
    /// "classes": N, "jars": [...], "built_at", "overlay_loaded_from"}` (the last: [`Self::overlay_origin`],
    /// or null).
    pub fn report_json(&self) -> serde_json::Value {
        serde_json::json!({
            "name": self.name,
            "based_on": self.based_on,
            "patches": self.patches,
            "source": self.source,
            "classes": self.classes.len(),
            "jars": self.jars,
            "built_at": self.built_at,
            "overlay_loaded_from": self.overlay_origin(),
        })
    }

    /// Where this process's running JVM loaded the overlay's first class from ([`class_origin`]): the
    /// overlay directory when the candidate is in use. `None` when no JVM runs (asking never starts one),
    /// the overlay is empty (`--jars`), or the class cannot be found.
    pub fn overlay_origin(&self) -> Option<String> {
        if !crate::jvm::is_running() {
            return None;
        }
        let first = self.classes.first()?;
        class_origin(first).ok().flatten()
    }

    /// The class path, `:`-separated: `overlay/`, `jars/*.jar` (sorted), then the based-on release's
    /// (`classes/`, `lib/*.jar`; [`crate::jvm::build_dir`]).
    ///
    /// Errors: [`Error::JvmStart`] when the release's build is incomplete.
    pub fn classpath(&self) -> Result<String> {
        let mut parts = Vec::new();
        let overlay = self.dir.join("overlay");
        if overlay.is_dir() {
            parts.push(path_string(&overlay)?);
        }
        let mut jars: Vec<PathBuf> = std::fs::read_dir(self.dir.join("jars"))
            .map(|d| {
                d.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "jar"))
                    .collect()
            })
            .unwrap_or_default();
        jars.sort();
        for jar in &jars {
            parts.push(path_string(jar)?);
        }
        let release = crate::jvm::release_classpath(&self.based_on)?;
        parts.push(release);
        Ok(parts.join(":"))
    }
}

fn path_string(p: &Path) -> Result<String> {
    p.to_str()
        .map(str::to_owned)
        .ok_or_else(|| Error::JvmStart(format!("classpath entry {} is not UTF-8", p.display())))
}

/// The build directory of candidate `name`: `<crate>/java/target/candidate-NAME`.
pub fn candidate_dir(name: &str) -> PathBuf {
    crate::jvm::target_dir().join(format!("candidate-{name}"))
}

/// The candidates built (`candidate-NAME` directories with a `candidate.json`), by name, sorted.
pub fn built_candidates() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(crate::jvm::target_dir())
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let name = name.strip_prefix("candidate-")?.to_owned();
                    e.path().join(CANDIDATE_FILE).is_file().then_some(name)
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The error for a candidate that is not built: the ones that are, and the command that builds one.
fn unknown(name: &str) -> Error {
    let built = built_candidates();
    Error::Candidate(format!(
        "no candidate `{name}` is built in {} (built: {}); build it with `scripts/build-java --candidate {name} \
         --based-on V --patch FILE`",
        crate::jvm::target_dir().display(),
        if built.is_empty() {
            "none".to_owned()
        } else {
            built.join(", ")
        }
    ))
}

/// Where the running JVM loaded class `class` (binary name, `org.apache.paimon.operation.FileStoreCommitImpl`)
/// from: its code source's location (`file:/…/candidate-NAME/overlay/`, `file:/…/paimon-bundle-1.0.0.jar`),
/// `None` for a class without one (the JDK's own). Starts the JVM if needed.
///
/// Errors: [`Error::Java`] (`NoClassDefFoundError`) when the class is not on the class path.
pub fn class_origin(class: &str) -> Result<Option<String>> {
    crate::jvm::with_env(|env| {
        let cls = env.find_class(class.replace('.', "/"))?;
        let domain = env
            .call_method(
                &cls,
                "getProtectionDomain",
                "()Ljava/security/ProtectionDomain;",
                &[],
            )?
            .l()?;
        if domain.is_null() {
            return Ok(None);
        }
        let source = env
            .call_method(
                &domain,
                "getCodeSource",
                "()Ljava/security/CodeSource;",
                &[],
            )?
            .l()?;
        if source.is_null() {
            return Ok(None);
        }
        let location = env
            .call_method(&source, "getLocation", "()Ljava/net/URL;", &[])?
            .l()?;
        if location.is_null() {
            return Ok(None);
        }
        let text = env
            .call_method(&location, "toString", "()Ljava/lang/String;", &[])?
            .l()?;
        crate::jvm::java_string(env, text).map(Some)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_candidate_names_the_build_command() {
        let e = Candidate::load("no-such-candidate").unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, Error::Candidate(_)), "{text}");
        assert!(text.contains("no candidate `no-such-candidate`"), "{text}");
        assert!(
            text.contains("scripts/build-java --candidate no-such-candidate --based-on V"),
            "{text}"
        );
        assert!(Candidate::load("../paimon-1.0.0").is_err());
        assert!(Candidate::load("").is_err());
    }

    #[test]
    fn labels_and_report_fields() {
        let c = Candidate {
            name: "fix".into(),
            based_on: "2.0.0".into(),
            patches: vec![CandidatePatch {
                file: "fix.patch".into(),
                sha256: "ab".into(),
                lines_added: 3,
                lines_removed: 1,
            }],
            source: "sources jar org.apache.paimon:paimon-core:2.0.0".into(),
            classes: vec!["a.B".into(), "a.B$1".into()],
            jars: vec![],
            built_at: "2026-01-01T00:00:00Z".into(),
            dir: PathBuf::new(),
        };
        assert_eq!(c.label(), "candidate fix (based on 2.0.0), not a release");
        let j = c.report_json();
        assert_eq!(j["classes"], 2);
        assert_eq!(j["patches"][0]["lines_removed"], 1);
        assert_eq!(j["based_on"], "2.0.0");
    }
}
