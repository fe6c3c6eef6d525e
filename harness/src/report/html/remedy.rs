//! The page of `report remedy --html`: one table, a row per release, scenario and fault mode, a column per
//! remedy, each cell the failing windows of that sweep or `clean`.

use super::*;
use crate::report::remedy::{RemedyCell, RemedyReport};

/// The remedy report page.
pub fn remedy_page(r: &RemedyReport) -> String {
    let title = "paimon-parity remedy report";
    let mut body = String::new();
    put!(
        body,
        "<header><h1>{title}</h1><p class=\"sub\">{} sweeps; the crash-point windows of each fault mode, before \
         and after each remedy. A candidate is Paimon built from a patched tree, not a release.</p></header>\
         <main><section><table><thead><tr><th>release</th><th>scenario</th><th>mode</th>",
        r.sweeps
    );
    for remedy in &r.remedies {
        put!(body, "<th>{}</th>", esc(remedy));
    }
    put!(body, "</tr></thead><tbody>");
    for row in &r.rows {
        put!(
            body,
            "<tr><td>{}</td><td class=\"mono\">{}</td><td>{}</td>",
            esc(&row.release),
            esc(&row.scenario),
            esc(&row.mode)
        );
        for remedy in &r.remedies {
            match row.cells.get(remedy) {
                Some(c) => put!(
                    body,
                    "<td class=\"{}\">{}</td>",
                    if c.failing == 0 { "b-ok" } else { "b-bad" },
                    esc(&cell_words(c))
                ),
                None => put!(body, "<td>not swept</td>"),
            }
        }
        put!(body, "</tr>");
    }
    put!(body, "</tbody></table></section>");
    page(title, &body)
}

/// A cell in words: `clean (69 points)`, or the failing windows and how many points fail.
pub fn cell_words(c: &RemedyCell) -> String {
    if c.failing == 0 {
        return format!("clean ({} points)", c.points);
    }
    format!(
        "{} ({} of {} points)",
        c.windows.join(", "),
        c.failing,
        c.points
    )
}
