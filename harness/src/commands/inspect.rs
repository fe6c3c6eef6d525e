//! `paimon-parity inspect`: the snapshot timeline of a table, as text and optionally JSON.

use std::path::{Path, PathBuf};

use super::stdout_err;
use crate::error::Result;
use crate::report::write_json;

/// Prints the timeline of `table`; exit status 0.
pub(super) fn run(table: &Path, json: Option<PathBuf>) -> Result<i32> {
    let timeline = crate::inspect::inspect(table)?;
    let mut out = std::io::stdout().lock();
    crate::inspect::write_text(&mut out, &timeline).map_err(stdout_err)?;
    if let Some(path) = json {
        write_json(&path, &timeline)?;
    }
    Ok(0)
}
