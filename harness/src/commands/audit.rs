//! `paimon-parity audit`: the changelog audit of a table, as text and optionally JSON.

use std::path::{Path, PathBuf};

use super::stdout_err;
use crate::audit::AuditReaders;
use crate::error::Result;
use crate::report::{check_json_target, text_output, write_json};

/// Audits `table` with `reader` (stock side and native line of `paimon_version`, when given); exit status 0
/// complete, 1 changelog lost.
pub(super) fn run(
    table: &Path,
    reader: AuditReaders,
    json: Option<PathBuf>,
    max_keys: usize,
    paimon_version: Option<String>,
) -> Result<i32> {
    if let Some(v) = &paimon_version {
        jvm_bridge::jvm::select_paimon_version(v)?;
    }
    check_json_target(json.as_deref())?;
    let report = crate::audit::audit(table, reader)?;
    let mut out = text_output(json.as_deref());
    crate::audit::write_text(&mut out, &report, max_keys).map_err(stdout_err)?;
    if let Some(path) = json {
        write_json(&path, &report)?;
    }
    Ok(report.exit_code())
}
