//! The committed corpora: `corpora/*/scenario.json`.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The workspace's `corpora/` directory.
pub fn corpora_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("corpora")
}

/// Every scenario file under `corpora` (`<corpora>/<name>/scenario.json`), sorted by name.
///
/// Errors: [`Error::Io`] when `corpora` cannot be listed.
pub fn scenario_files(corpora: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(corpora).map_err(|e| Error::Io {
        path: corpora.to_path_buf(),
        source: e,
    })?;
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::Io {
            path: corpora.to_path_buf(),
            source: e,
        })?;
        let file = entry.path().join("scenario.json");
        if file.is_file() {
            out.push(file);
        }
    }
    out.sort();
    Ok(out)
}
