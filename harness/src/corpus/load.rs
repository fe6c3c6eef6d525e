//! Reading scenario files and finding them from a command-line argument.

use std::path::{Path, PathBuf};

use super::list::corpora_dir;
use super::Scenario;
use crate::error::{Error, Result};

/// Reads a scenario file.
///
/// Errors: [`Error::Io`] (unreadable), [`Error::Scenario`] (not a valid scenario: unknown step or field,
/// missing field, wrong type).
pub fn load_scenario(path: &Path) -> Result<Scenario> {
    let bytes = std::fs::read(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    serde_json::from_slice(&bytes).map_err(|e| Error::ScenarioSource {
        context: path.display().to_string(),
        source: e.into(),
    })
}

/// Finds a scenario file from a command-line argument: a scenario file, a directory holding `scenario.json`,
/// or the name of a corpus (`corpora/<name>/scenario.json`, relative to the current directory, then to the
/// workspace).
///
/// Errors: [`Error::Scenario`] naming the places looked at.
pub fn resolve_scenario(arg: &str) -> Result<PathBuf> {
    let direct = PathBuf::from(arg);
    let mut candidates = vec![direct.clone(), direct.join("scenario.json")];
    if !arg.contains('/') {
        candidates.push(Path::new("corpora").join(arg).join("scenario.json"));
        candidates.push(corpora_dir().join(arg).join("scenario.json"));
    }
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| {
            Error::Scenario(format!(
                "no scenario `{arg}`; looked at {}",
                candidates
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
}
