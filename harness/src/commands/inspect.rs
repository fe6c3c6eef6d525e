//! `paimon-parity inspect`: the snapshot timeline of a table, as text and optionally JSON.

use std::path::{Path, PathBuf};

use super::stdout_err;
use crate::error::Result;
use crate::report::{check_json_target, text_output, write_json};

/// Prints the timeline of `table` as `filter` limits it; exit status 0.
pub(super) fn run(
    table: &Path,
    json: Option<PathBuf>,
    filter: &crate::inspect::InspectFilter,
) -> Result<i32> {
    check_json_target(json.as_deref())?;
    let timeline = filter.apply(crate::inspect::inspect(table)?);
    let mut out = text_output(json.as_deref());
    crate::inspect::write_text(&mut out, &timeline).map_err(stdout_err)?;
    if let Some(path) = json {
        write_json(&path, &timeline)?;
    }
    Ok(0)
}
