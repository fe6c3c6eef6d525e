//! The page of `upgrade-matrix --html`: the verdict, the release table (rows: written by A, columns: read by
//! B), every upgrade finding with its rules, every native difference and cell that could not be compared,
//! the corpora a release could not write, and per pair the rules that differ between its releases.

use super::*;
use crate::upgrade::text::{cell_name, follows_words, pair_cell, rules_words, verdict_line};
use crate::upgrade::{Cell, CellClass, Origin, UpgradeMatrix};

/// The upgrade matrix page (see the module doc); at most [`MAX_TABLE_ROWS`] rows per table, the rest counted.
pub fn upgrade_page(m: &UpgradeMatrix, fail_on_findings: bool) -> String {
    let title = format!("paimon-parity upgrade matrix: {}", m.releases.join(", "));
    let mut body = String::new();
    put!(
        body,
        "<header><h1>{}</h1><p class=\"sub\">{} scenarios; modes {}; work directory <span class=\"mono\">{}\
         </span></p></header><main>",
        esc(&title),
        m.scenarios.len(),
        esc(&m.modes.iter().map(|x| x.name()).collect::<Vec<_>>().join(", ")),
        esc(&m.work_dir.display().to_string())
    );
    // The box's colour follows the exit status (one rule with the text and the JSON): a failing cell or an
    // interruption is bad, a matrix that checked less than asked is info, upgrade findings alone warn.
    let class = match m.exit_code(fail_on_findings) {
        crate::error::EXIT_IDENTICAL if m.cells_of(CellClass::UpgradeFinding).count() > 0 => "warn",
        crate::error::EXIT_IDENTICAL => "ok",
        crate::error::EXIT_NOTHING_COMPARED => "info",
        _ => "bad",
    };
    put!(
        body,
        "<section class=\"verdict v-{class}\"><p class=\"vword\">{}</p></section>",
        esc(&verdict_line(m, fail_on_findings))
    );
    matrix_section(&mut body, m);
    let findings: Vec<&Cell> = m.cells_of(CellClass::UpgradeFinding).collect();
    put!(
        body,
        "<section><h2>Upgrade findings ({})</h2><p class=\"note\">Release B reads A's table differently from \
         release A (release A's own reader, <span class=\"mono\">stock@A</span>, against release B, split by \
         split and row by row), while the native reader returns what release B returns. Rules: those of \
         <span class=\"mono\">native-reader/src/line.rs</span> whose value differs between A and B and that \
         apply to the table and scan.</p>",
        findings.len()
    );
    if !findings.is_empty() {
        body.push_str(
            "<table class=\"matrix\"><thead><tr><th>written by</th><th>read by</th><th>corpus</th><th>mode</th>\
             <th>first difference (release A vs release B)</th><th>rules</th><th>native reader</th></tr>\
             </thead><tbody>",
        );
        for c in findings.iter().take(MAX_TABLE_ROWS) {
            put!(
                body,
                "<tr><td>{}</td><td>{}</td><td class=\"mono\">{}</td><td>{}</td><td>{}</td><td>{}</td>\
                 <td>{}</td></tr>",
                esc(&c.written_by),
                esc(&c.read_by),
                esc(&c.corpus),
                esc(c.mode.name()),
                esc(&shorten(c.detail.as_deref().unwrap_or_default(), MAX_TEXT)),
                esc(&rules_words(c)),
                esc(follows_words(c))
            );
        }
        body.push_str("</tbody></table>");
        more_rows(&mut body, findings.len(), "findings");
    }
    body.push_str("</section>");
    for (class, title) in [
        (CellClass::NativeDiffers, "Native differences"),
        (CellClass::Unsupported, "Unsupported"),
        (CellClass::Error, "Errors"),
    ] {
        let list: Vec<&Cell> = m.cells_of(class).collect();
        if list.is_empty() {
            continue;
        }
        put!(body, "<section><h2>{title} ({})</h2><ul>", list.len());
        for c in list.iter().take(MAX_TABLE_ROWS) {
            put!(
                body,
                "<li><span class=\"mono\">{}</span>: {}</li>",
                esc(&cell_name(c)),
                esc(&shorten(c.detail.as_deref().unwrap_or_default(), MAX_TEXT))
            );
        }
        body.push_str("</ul>");
        more_rows(&mut body, list.len(), "cells");
        body.push_str("</section>");
    }
    let not_written: Vec<_> = m
        .corpora
        .iter()
        .filter(|c| c.origin == Origin::NotWritten)
        .collect();
    if !not_written.is_empty() {
        put!(
            body,
            "<section><h2>Not written ({})</h2><p class=\"note\">The release's writer fails on the scenario; \
             every cell that would read its table is a failing <span class=\"mono\">not-written</span> cell.\
             </p><ul>",
            not_written.len()
        );
        for c in not_written.iter().take(MAX_TABLE_ROWS) {
            put!(
                body,
                "<li><span class=\"mono\">{}</span> by {}: {}</li>",
                esc(&c.corpus),
                esc(&c.release),
                esc(&shorten(c.detail.as_deref().unwrap_or_default(), MAX_TEXT))
            );
        }
        body.push_str("</ul></section>");
    }
    let not_checked = m.not_checked();
    if !not_checked.is_empty() {
        put!(
            body,
            "<section><h2>Not checked ({})</h2><ul>",
            not_checked.len()
        );
        for why in &not_checked {
            put!(body, "<li>{}</li>", esc(why));
        }
        body.push_str("</ul></section>");
    }
    body.push_str("<section><h2>Rules that differ per pair</h2><table><thead><tr><th>written by</th>\
                   <th>read by</th><th>rules (A value → B value)</th><th>replay</th></tr></thead><tbody>");
    for p in m.pairs.iter().filter(|p| p.written_by != p.read_by) {
        let rules = if p.changed_rules.is_empty() {
            "none".to_owned()
        } else {
            p.changed_rules
                .iter()
                .map(|r| format!("{} ({} → {})", r.rule, r.written_by_value, r.read_by_value))
                .collect::<Vec<_>>()
                .join("; ")
        };
        put!(
            body,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"mono\">{}</td></tr>",
            esc(&p.written_by),
            esc(&p.read_by),
            esc(&rules),
            esc(&p
                .report
                .as_ref()
                .map(|r| r.display().to_string())
                .unwrap_or_default())
        );
    }
    body.push_str("</tbody></table></section>");
    page(&title, &body)
}

/// The release table: one row per writing release, one column per reading release, each cell a badge
/// with `identical/cells` and what else the pair found.
fn matrix_section(body: &mut String, m: &UpgradeMatrix) {
    body.push_str(
        "<section><h2>Releases</h2><p class=\"note\">Rows: written by A. Columns: read by B. A cell counts \
         corpora x modes: identical (every reader returns release B's splits and rows), then findings, native \
         differences, unsupported and errors.</p><table><thead><tr><th>written by \\ read by</th>",
    );
    for b in &m.releases {
        put!(body, "<th>{}</th>", esc(b));
    }
    body.push_str("</tr></thead><tbody>");
    for a in &m.releases {
        put!(body, "<tr><th>{}</th>", esc(a));
        for b in &m.releases {
            match m
                .pairs
                .iter()
                .find(|p| &p.written_by == a && &p.read_by == b)
            {
                None => body.push_str("<td class=\"muted\">–</td>"),
                Some(p) => {
                    let class =
                        if p.native_differs + p.unsupported + p.errors > 0 || p.error.is_some() {
                            "b-bad"
                        } else if p.upgrade_findings > 0 {
                            "b-warn"
                        } else if p.cells == 0 {
                            "b-none"
                        } else {
                            "b-ok"
                        };
                    put!(
                        body,
                        "<td><span class=\"badge {class}\">{}</span> <span class=\"muted\">{:.1} s</span></td>",
                        esc(&pair_cell(p)),
                        p.wall_time_ms as f64 / 1000.0
                    );
                }
            }
        }
        body.push_str("</tr>");
    }
    body.push_str("</tbody></table></section>");
}
