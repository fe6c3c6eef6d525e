//! `paimon-parity audit`: the changelog audit of a table, as text and optionally JSON.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::stdout_err;
use crate::audit::AuditReaders;
use crate::error::Result;
use crate::report::{
    audit_page, check_html_target, check_json_target, text_output, write_html, write_json,
    JsonReport,
};

/// Audits `table` with `reader` (stock side and native line of `paimon_version`, when given; the stock side
/// run by `candidate` instead of the release when given, and labelled so); exit status 0
/// complete, 1 changelog lost. `bundle`: the table is an unpacked evidence bundle (only the splits whose
/// files it retains are read). `to_snapshot`: the table as it was at that snapshot (`--to-snapshot`).
#[allow(clippy::too_many_arguments)]
pub(super) fn run(
    table: &Path,
    bundle: bool,
    reader: AuditReaders,
    json: Option<PathBuf>,
    html: Option<PathBuf>,
    max_keys: usize,
    paimon_version: Option<String>,
    candidate: Option<String>,
    to_snapshot: Option<i64>,
) -> Result<i32> {
    if let Some(name) = &candidate {
        super::select_candidate(name, paimon_version.as_deref())?;
    } else if let Some(v) = &paimon_version {
        jvm_bridge::jvm::select_paimon_version(v)?;
    }
    check_json_target(json.as_deref())?;
    check_html_target(html.as_deref())?;
    super::choose_compilation(&[table.to_path_buf()]);
    let report = crate::audit::audit_to(table, reader, bundle, to_snapshot);
    if let Ok(r) = &report {
        let mut out = text_output(json.as_deref());
        if candidate.is_some() {
            writeln!(out, "audited with {}", crate::report::paimon_label()).map_err(stdout_err)?;
        }
        crate::audit::write_text(&mut out, r, max_keys).map_err(stdout_err)?;
    }
    // The JSON is written however the command ends (an unreadable table: `status` `error`).
    if let Some(path) = &json {
        let options = serde_json::json!({
            "table": table,
            "reader": reader,
            "json": json,
            "html": html,
            "max_keys": max_keys,
            "paimon_version": paimon_version,
            "candidate": candidate,
            "to_snapshot": to_snapshot,
        });
        let outcome = report.as_ref().map(|r| r.exit_code());
        let mut envelope = JsonReport::new("audit", options, outcome);
        envelope.audit = report.as_ref().ok();
        write_json(path, &envelope)?;
    }
    let report = report?;
    if let Some(path) = html {
        // The timeline the audit's part 1 read (read again, up to the audited snapshot), for the page.
        let to = crate::inspect::InspectFilter {
            to: report.latest_snapshot,
            ..Default::default()
        };
        let timeline = to.apply(crate::audit::timeline(table)?);
        write_html(&path, &audit_page(&report, &timeline))?;
    }
    Ok(report.exit_code())
}
