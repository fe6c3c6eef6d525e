//! `paimon-parity inspect`: the snapshot timeline of a table, as text and optionally JSON.

use std::path::{Path, PathBuf};

use super::stdout_err;
use crate::error::Result;
use crate::report::{
    check_html_target, check_json_target, inspect_page, text_output, write_html, write_json,
    JsonReport,
};

/// Prints the timeline of `table` as `filter` limits it; exit status 0.
pub(super) fn run(
    table: &Path,
    json: Option<PathBuf>,
    html: Option<PathBuf>,
    filter: &crate::inspect::InspectFilter,
) -> Result<i32> {
    check_json_target(json.as_deref())?;
    check_html_target(html.as_deref())?;
    let timeline = crate::inspect::inspect(table).map(|t| filter.apply(t));
    if let Ok(t) = &timeline {
        let mut out = text_output(json.as_deref());
        crate::inspect::write_text(&mut out, t).map_err(stdout_err)?;
    }
    // The JSON is written however the command ends (an unreadable table: `status` `error`).
    if let Some(path) = &json {
        let options = serde_json::json!({
            "table": table,
            "json": json,
            "html": html,
            "from_snapshot": filter.from,
            "to_snapshot": filter.to,
            "partition": filter.partition,
        });
        let mut report = JsonReport::new("inspect", options, timeline.as_ref().map(|_| 0));
        report.timeline = timeline.as_ref().ok();
        write_json(path, &report)?;
    }
    let timeline = timeline?;
    if let Some(path) = html {
        write_html(&path, &inspect_page(&timeline))?;
    }
    Ok(0)
}
