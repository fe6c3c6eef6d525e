//! Self-contained HTML pages of `replay`, `audit` and `inspect` (`--html FILE`).
//!
//! Each page is one file: inline CSS, no script, no font, image or style sheet fetched, no external URL of
//! any kind (the only links are in-page `#run-N` anchors), so it opens from disk or a mail attachment without
//! a network and prints cleanly. Every piece of text from a table (paths, commit users, values, error
//! messages) is escaped.
//!
//! The size of a page is bounded whatever the table: at most [`MAX_SPLIT_CELLS`] split cells over all runs,
//! [`MAX_TIMELINE_SNAPSHOTS`] snapshots per timeline, [`MAX_TABLE_ROWS`] rows per table and
//! [`MAX_MISMATCHES`] described differences per run; what is left out is counted on the page.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use native_reader::snapshot::CommitKind;

use super::matrix::{table_name, MatrixRun};
use crate::audit::{AuditReport, CommitPair, PairStatus};
use crate::diff::RowCounts;
use crate::error::{Error, Result};
use crate::inspect::{FileGroup, Timeline};
use crate::replay::{ReplayReport, SplitReport, SplitVerdict};

/// Split cells drawn over all runs of one replay page; the rest are counted per verdict.
pub const MAX_SPLIT_CELLS: usize = 5000;
/// Snapshots drawn per timeline (the earliest ones); the rest are counted.
pub const MAX_TIMELINE_SNAPSHOTS: usize = 1500;
/// Rows per table (snapshots, missing keys, splits that are not identical); the rest are counted.
pub const MAX_TABLE_ROWS: usize = 2000;
/// Splits per run whose first row difference is shown with both values.
pub const MAX_MISMATCHES: usize = 20;
/// Snapshots per row of a timeline: longer timelines wrap onto further rows (every lane on each), so that a
/// page shows the whole history without scrolling sideways.
const TIMELINE_COLUMNS: usize = 18;
/// Characters of one message (an error, a planning detail) kept in a tooltip or a cell.
const MAX_TEXT: usize = 600;

/// `write!` into a `String`, which cannot fail.
macro_rules! put {
    ($out:expr, $($arg:tt)*) => {{
        let _ = write!($out, $($arg)*);
    }};
}

mod remedy;
mod runs;
mod sweep;
mod timeline;
mod upgrade;

pub use remedy::{cell_words as remedy_cell_words, remedy_page};
use runs::*;
pub use sweep::sweep_page;
use timeline::*;
pub use upgrade::upgrade_page;

/// The replay page: a matrix of the runs (table x mode x reader: splits, split verdicts, rows per side,
/// verdict, first difference or problem, each linking to its run), then per run its summary, the first
/// difference and up to [`MAX_MISMATCHES`] row differences with the stock value beside the compared
/// reader's, a grid of one cell per split coloured by [`SplitVerdict`] (with a legend; key, verdict and
/// detail as tooltip and as text for screen readers; at most [`MAX_SPLIT_CELLS`] cells on the page) and a
/// table of the splits that are not identical; then the snapshot timeline of each table in `timelines`.
///
/// A run without a report (`None`: it stopped with an error) shows its error.
pub fn replay_page(
    runs: &[(&MatrixRun, Option<&ReplayReport>)],
    timelines: &[(PathBuf, Timeline)],
) -> String {
    let mut tables: Vec<String> = Vec::new();
    for (run, _) in runs {
        let name = table_name(&run.table);
        if !tables.contains(&name) {
            tables.push(name);
        }
    }
    let title = match tables.as_slice() {
        [] => "paimon-parity replay".to_owned(),
        [one] => format!("paimon-parity replay: {one}"),
        [first, rest @ ..] => format!("paimon-parity replay: {first} and {} more", rest.len()),
    };
    let mut body = String::new();
    put!(
        body,
        "<header><h1>{}</h1><p class=\"sub\">{} run{} (table x mode x reader) against the released Java \
         reader</p></header><main>",
        esc(&title),
        runs.len(),
        plural(runs.len())
    );
    body.push_str("<section><h2>Runs</h2>");
    run_matrix(&mut body, runs);
    body.push_str("</section>");
    let mut budget = MAX_SPLIT_CELLS;
    for (i, (run, report)) in runs.iter().enumerate() {
        run_section(&mut body, i + 1, run, *report, &mut budget);
    }
    for (path, timeline) in timelines {
        put!(
            body,
            "<section><h2>Snapshot timeline of {}</h2><p class=\"path mono\">{}</p>",
            esc(&table_name(path)),
            esc(&timeline.table.display().to_string())
        );
        timeline_view(&mut body, timeline);
        body.push_str("</section>");
    }
    page(&title, &body)
}

/// The audit page: the verdict and its sentence, the commit pairs counted and the incomplete and deferred
/// ones listed (user, identifier, write and COMPACT snapshots, detail and cause) with the pointer to the
/// sweep, the snapshot timeline of `timeline` with the incomplete pairs marked, the per-user summary, per
/// reader the changelog-completeness check with the missing keys (partition, bucket, key, class, the
/// stream's last event, the table's value, the write snapshot that wrote it and the commit it is blamed on),
/// and the files written but never committed (at most [`MAX_TABLE_ROWS`] rows per table).
pub fn audit_page(report: &AuditReport, timeline: &Timeline) -> String {
    let name = table_name(&report.table);
    let title = format!("paimon-parity audit: {name}");
    let mut body = String::new();
    let range = range_words(report.earliest_snapshot, report.latest_snapshot);
    put!(
        body,
        "<header><h1>{}</h1><p class=\"sub mono\">{}</p><p class=\"sub\">changelog-producer {}, {}</p>\
         </header><main>",
        esc(&title),
        esc(&report.table.display().to_string()),
        esc(&report.changelog_producer),
        esc(&range)
    );
    let class = match report.verdict {
        "complete" => "ok",
        "not-checked" => "info",
        "changelog-lost" | "rows-never-committed" => "bad",
        _ => "warn",
    };
    put!(
        body,
        "<section class=\"verdict v-{class}\"><p class=\"vword\">{}</p><p>{}</p></section>",
        esc(&report.verdict.to_uppercase().replace('-', " ")),
        esc(&audit_sentence(report))
    );

    let count = |s: PairStatus| report.pairs.iter().filter(|p| p.status == s).count();
    put!(
        body,
        "<section><h2>Commit pairs</h2><p>{} (commit user, identifier): {} complete, {} compacted later, \
         {} with no compaction due, <strong>{} whose changelog was lost and healed later</strong>, {} deferred, \
         <strong>{} deferred to a lost compaction</strong>, <strong>{} incomplete</strong>, {} not applicable. \
         Compaction: {}.</p>",
        report.pairs.len(),
        count(PairStatus::Complete),
        count(PairStatus::CompactedLater),
        count(PairStatus::NoCompactionDue),
        count(PairStatus::LostHealedLater),
        count(PairStatus::Deferred),
        count(PairStatus::DeferredToLost),
        count(PairStatus::Incomplete),
        count(PairStatus::NotApplicable),
        esc(&report.compaction.words())
    );
    let listed: Vec<&CommitPair> = report
        .pairs
        .iter()
        .filter(|p| {
            matches!(
                p.status,
                PairStatus::Incomplete
                    | PairStatus::LostHealedLater
                    | PairStatus::DeferredToLost
                    | PairStatus::Deferred
            )
        })
        .collect();
    if listed.is_empty() {
        body.push_str("<p>No incomplete or deferred pair.</p>");
    } else {
        body.push_str(
            "<table class=\"incomplete-pairs\"><caption>Incomplete and deferred pairs</caption><thead><tr>\
             <th>status</th><th>commit user</th><th>identifier</th><th>write snapshots</th>\
             <th>COMPACT snapshots</th><th>level-0 files</th><th>detail</th></tr></thead><tbody>",
        );
        for p in listed.iter().take(MAX_TABLE_ROWS) {
            let detail = match &p.cause {
                Some(cause) => format!("{}. Why: {cause}", p.detail),
                None => p.detail.clone(),
            };
            put!(
                body,
                "<tr{}><td>{}</td><td class=\"mono\">{}</td><td class=\"num\">{}</td>\
                 <td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
                if p.status == PairStatus::Deferred {
                    ""
                } else {
                    " class=\"row-incomplete\""
                },
                status_badge(p.status),
                esc(&p.commit_user),
                esc(&identifier(p.commit_identifier)),
                esc(&p.write_words()),
                esc(&ids(&p.compact_snapshots)),
                p.level0_files,
                esc(&shorten(&detail, MAX_TEXT))
            );
        }
        body.push_str("</tbody></table>");
        more_rows(&mut body, listed.len(), "incomplete and deferred pairs");
    }
    if let Some(sweep) = &report.sweep {
        put!(body, "<p class=\"note\">Next: {}.</p>", esc(sweep));
    }
    body.push_str("</section>");

    put!(
        body,
        "<section><h2>Snapshot timeline</h2><p class=\"path mono\">{}</p>",
        esc(&timeline.table.display().to_string())
    );
    timeline_view(&mut body, timeline);
    body.push_str("</section>");

    body.push_str(
        "<section><h2>Commit users</h2><table><thead><tr><th>commit user</th><th>last APPEND</th>\
         <th>last COMPACT</th><th>incomplete identifiers</th></tr></thead><tbody>",
    );
    for u in report.users.iter().take(MAX_TABLE_ROWS) {
        let incomplete = if u.incomplete_identifiers.is_empty() {
            "none".to_owned()
        } else {
            ids(&u.incomplete_identifiers)
        };
        put!(
            body,
            "<tr{}><td class=\"mono\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            if u.incomplete_identifiers.is_empty() {
                ""
            } else {
                " class=\"row-incomplete\""
            },
            esc(&u.commit_user),
            opt(u.last_append),
            opt(u.last_compact),
            esc(&incomplete)
        );
    }
    body.push_str("</tbody></table>");
    more_rows(&mut body, report.users.len(), "commit users");
    body.push_str("</section>");

    for c in &report.completeness {
        put!(
            body,
            "<section><h2>Changelog completeness ({} reader)</h2>",
            esc(&c.reader)
        );
        if let Some(why) = &c.skipped {
            put!(body, "<p>Not checked: {}</p></section>", esc(why));
            continue;
        }
        put!(
            body,
            "<p>Snapshots {}..{}{}: <strong>{} of {} keys</strong> disagree between the changelog and the \
             table.</p>",
            c.from_snapshot,
            c.to_snapshot,
            if c.started_from_full_snapshot {
                format!(
                    " (history before snapshot {} expired: the replay starts with a full read of it)",
                    c.from_snapshot
                )
            } else {
                String::new()
            },
            c.missing.len(),
            c.keys
        );
        for note in c.left_out_notes() {
            put!(body, "<p class=\"note\">{}.</p>", esc(&note));
        }
        body.push_str("</section>");
    }
    let checked = report
        .completeness
        .iter()
        .filter(|c| c.skipped.is_none())
        .count();
    if !report.findings.is_empty() {
        put!(
            body,
            "<section><h2>Keys where the changelog and the table disagree</h2><p>Each key once{}; values \
             are <span class=\"mono\">({})</span>.</p>",
            if checked > 1 {
                ", with the readers that report it and whether they agree"
            } else {
                ""
            },
            esc(&report.columns.join(", "))
        );
        put!(
            body,
            "<table class=\"missing-keys\"><caption>Missing keys</caption><thead><tr><th>partition</th>\
             <th>bucket</th><th>key</th><th>class</th><th>stream's last event</th><th>table value</th>\
             <th>written by</th>{}</tr></thead><tbody>",
            if checked > 1 { "<th>readers</th>" } else { "" }
        );
        for f in report.findings.iter().take(MAX_TABLE_ROWS) {
            let m = &f.key;
            let kind = match m.written_by_kind {
                Some(CommitKind::Overwrite) => "OVERWRITE",
                _ => "APPEND",
            };
            let mut by = match (
                m.written_by_snapshot,
                &m.written_by_user,
                m.written_by_identifier,
            ) {
                (Some(s), Some(u), Some(i)) => format!(
                    "{kind} snapshot {s} (user {}, identifier {})",
                    esc(u),
                    esc(&identifier(i))
                ),
                (Some(s), _, _) => format!("{kind} snapshot {s}"),
                _ => "<span class=\"muted\">unknown</span>".to_owned(),
            };
            if let (Some(u), Some(i)) = (&m.lost_with_user, m.lost_with_identifier) {
                put!(
                    by,
                    "; lost with the COMPACT half of user {}, identifier {}",
                    esc(u),
                    esc(&identifier(i))
                );
            }
            if let Some(s) = m.overwritten_by_snapshot {
                put!(
                    by,
                    "; explained by the OVERWRITE snapshot {s} (no changelog)"
                );
            }
            let readers = match (checked > 1, f.readers_agree, &f.disagreement) {
                (false, _, _) => String::new(),
                (true, Some(true), _) => "<td>both agree</td>".to_owned(),
                (true, _, why) => format!(
                    "<td class=\"disagree\">DISAGREE: {}</td>",
                    esc(why.as_deref().unwrap_or("the readers differ"))
                ),
            };
            put!(
                body,
                "<tr><td class=\"mono\">{}</td><td class=\"num\">{}</td><td class=\"mono\">{}</td><td>{}</td>\
                 <td class=\"mono\">{}</td><td class=\"mono\">{}</td><td>{by}</td>{readers}</tr>",
                esc(&crate::audit::named_partition(&report.partition_keys, &m.partition)),
                m.bucket,
                esc(&m.key),
                esc(m.class.words()),
                esc(m
                    .stream_last_event
                    .as_deref()
                    .unwrap_or("nothing (the key never appeared in it)")),
                esc(&match &m.durable {
                    Some(d) => format!(
                        "{}; durable only in level {}: {} ({})",
                        m.table_value, d.level, d.record, d.file
                    ),
                    None => m.table_value.clone(),
                })
            );
        }
        body.push_str("</tbody></table>");
        more_rows(&mut body, report.findings.len(), "missing keys");
        body.push_str("</section>");
    }
    uncommitted_section(&mut body, report);
    if let Some(agree) = report.readers_agree {
        put!(
            body,
            "<section><h2>Readers</h2><p>{}</p></section>",
            if agree {
                "The native and the stock reader find the same keys."
            } else {
                "The native and the stock reader DISAGREE on the keys marked above (the JSON report has each reader's list)."
            }
        );
    }
    page(&title, &body)
}

/// The inspect page: the table's changelog producer, merge engine and snapshot range, the snapshot timeline
/// (a lane per commit user, APPEND and COMPACT halves of one commit joined, incomplete pairs marked), and a
/// table of the snapshots (id, kind, user, identifier, pair status, time, schema, record counts, changelog,
/// files added and deleted; at most [`MAX_TABLE_ROWS`]).
pub fn inspect_page(timeline: &Timeline) -> String {
    let name = table_name(&timeline.table);
    let title = format!("paimon-parity inspect: {name}");
    let mut body = String::new();
    put!(
        body,
        "<header><h1>{}</h1><p class=\"sub mono\">{}</p><p class=\"sub\">changelog-producer {}, merge-engine \
         {}, {}</p></header><main>",
        esc(&title),
        esc(&timeline.table.display().to_string()),
        esc(&timeline.changelog_producer),
        esc(&timeline.merge_engine),
        esc(&range_words(
            timeline.earliest_snapshot,
            timeline.latest_snapshot
        ))
    );
    body.push_str("<section><h2>Snapshot timeline</h2>");
    timeline_view(&mut body, timeline);
    body.push_str("</section><section><h2>Snapshots</h2>");
    snapshot_table(&mut body, timeline);
    body.push_str("</section>");
    page(&title, &body)
}

/// The timelines of the distinct tables among `tables` (for [`replay_page`]), each read from the table's
/// own metadata ([`crate::inspect::inspect`]); a table whose timeline cannot be read is left out.
pub fn timelines(tables: &[PathBuf]) -> Vec<(PathBuf, Timeline)> {
    let mut out: Vec<(PathBuf, Timeline)> = Vec::new();
    for table in tables {
        if out.iter().any(|(t, _)| t == table) {
            continue;
        }
        if let Ok(timeline) = crate::inspect::inspect(table) {
            out.push((table.clone(), timeline));
        }
    }
    out
}

/// Checks that `--html PATH` can be written before any work starts (creating the file, or leaving an
/// existing one as it is until the page replaces it), as [`super::check_json_target`] does for `--json`;
/// `-` is a file name here, not standard output.
///
/// Errors: [`Error::Io`] naming the path.
pub fn check_html_target(html: Option<&Path>) -> Result<()> {
    html.map_or(Ok(()), super::check_writable)
}

/// Writes `page` to `path`, replacing the file.
///
/// Errors: [`Error::Io`] naming the path.
pub fn write_html(path: &Path, page: &str) -> Result<()> {
    std::fs::write(path, page).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })
}

// ---- page frame ----------------------------------------------------------------------------------------

const CSS: &str = r#"
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;
--ok:#1a7f37;--okbg:#dafbe1;--okline:#4ac26b;--bad:#b91c1c;--badbg:#fde8e8;--badline:#f87171;
--warn:#8a5a00;--warnbg:#fff4cc;--warnline:#e3b341;--info:#0550ae;--infobg:#ddf4ff;--infoline:#54aeff}
*{box-sizing:border-box}
html{-webkit-print-color-adjust:exact;print-color-adjust:exact}
body{margin:0;color:var(--fg);background:#fff;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
header{padding:18px 32px 14px;border-bottom:1px solid var(--line);background:var(--soft)}
main{padding:4px 32px 40px}
h1{font-size:21px;margin:0 0 4px;font-weight:650}
h2{font-size:16px;margin:26px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line);font-weight:650}
h3{font-size:14px;margin:16px 0 6px;font-weight:650}
p{margin:6px 0}
.sub{margin:2px 0;color:var(--muted)}
.mono,code,pre{font-family:ui-monospace,SFMono-Regular,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
.path{color:var(--muted);word-break:break-all}
.muted{color:var(--muted)}
.nowrap{white-space:nowrap}
pre .del{background:#ffebe9;display:block}
pre .ins{background:#dafbe1;display:block}
pre .hunk{color:var(--info);display:block}
.note{color:var(--muted);font-size:13px}
.disagree{color:#9b1c1c;font-weight:600}
table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
caption{text-align:left;font-weight:650;padding:2px 0 4px}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600;white-space:nowrap}
.matrix{width:100%}
.matrix th{white-space:normal}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.row-incomplete td{background:var(--badbg)}
a{color:var(--info)}
pre{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:8px 10px;overflow-x:auto;margin:6px 0 12px;white-space:pre-wrap;word-break:break-all}
.badge{display:inline-block;padding:0 8px;border-radius:10px;font-size:12px;font-weight:650;border:1px solid;white-space:nowrap}
.b-ok{color:var(--ok);background:var(--okbg);border-color:var(--okline)}
.b-bad{color:var(--bad);background:var(--badbg);border-color:var(--badline)}
.b-warn{color:var(--warn);background:var(--warnbg);border-color:var(--warnline)}
.b-info{color:var(--info);background:var(--infobg);border-color:var(--infoline)}
.b-none{color:var(--muted);background:#fff;border-color:var(--line)}
.verdict{margin:16px 0;padding:10px 16px;border:1px solid;border-left-width:6px;border-radius:6px}
.verdict .vword{font-weight:700;font-size:15px;margin:0 0 2px}
.v-ok{background:var(--okbg);border-color:var(--okline)}
.v-bad{background:var(--badbg);border-color:var(--badline)}
.v-warn{background:var(--warnbg);border-color:var(--warnline)}
.v-info{background:var(--infobg);border-color:var(--infoline)}
.run{margin-top:30px}
.run h2 .badge{margin-left:8px;vertical-align:2px}
.facts{color:var(--muted);margin:2px 0 8px}
.vs td.stock{background:#eef6ff}
.vs td.other{background:var(--warnbg)}
.vs td.stock,.vs td.other{font-weight:600}
.legend{display:flex;flex-wrap:wrap;gap:6px 16px;list-style:none;padding:0;margin:6px 0;font-size:12.5px}
.legend li{display:flex;align-items:center;gap:6px}
.cells{display:flex;flex-wrap:wrap;gap:2px;list-style:none;padding:0;margin:6px 0 10px;max-width:1200px}
.cell{width:16px;height:16px;border-radius:2px;font:700 10px/16px system-ui,sans-serif;text-align:center;color:#fff;overflow:hidden}
.s-identical{background:#2da44e}
.s-differs-planning{background:#d4620b}
.s-differs-decoding{background:#cf222e}
.s-only-in-stock{background:#8250df}
.s-only-in-native{background:#bf3989}
.s-unreadable{background:#24292f}
.s-reader-error{background:#9a6700}
.s-unsupported{background:#8c959f}
.sr{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.timeline{--lane:140px;--col:64px}
.tl-chunk{margin:0 0 10px;break-inside:avoid-page}
.tl-range{margin:0 0 2px;font-size:11.5px;color:var(--muted)}
.tl{display:grid;grid-auto-rows:54px;row-gap:6px;column-gap:0;align-items:stretch;border:1px solid var(--line);border-radius:6px;padding:6px;width:max-content;max-width:100%;overflow-x:auto}
.lane{grid-column:1;z-index:4;background:#fff;display:flex;flex-direction:column;justify-content:center;padding:0 10px 0 2px;overflow:hidden}
.lane .who{font-weight:650;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.lane .n{color:var(--muted);font-size:11.5px}
.lanebg{grid-column:2/-1;background:var(--soft);border-radius:4px;z-index:0}
.pair{z-index:1;margin:1px 0;border:2px solid #8c959f;border-radius:9px;background:#e6eaef}
.pair.later{border-style:dotted}
.pair.incomplete{border:2px dashed var(--bad);background:repeating-linear-gradient(45deg,#fde8e8 0 6px,#fff 6px 12px)}
.pair.cont-left{border-left:none;border-top-left-radius:0;border-bottom-left-radius:0}
.pair.cont-right{border-right:none;border-top-right-radius:0;border-bottom-right-radius:0}
.snap{z-index:2;margin:5px 3px;border:1px solid;border-radius:5px;text-align:center;font-size:10px;line-height:1.15;padding:2px 1px;display:flex;flex-direction:column;justify-content:center;overflow:hidden;white-space:nowrap}
.snap .id{font-weight:700;font-size:12px}
.k-append{background:#ddf4ff;border-color:#54aeff}
.k-compact{background:#f3e8ff;border-color:#a475f9}
.k-overwrite{background:#fff1e5;border-color:#fb8f44}
.k-analyze{background:#fff;border-color:#afb8c1}
.snap.bad{border:2px solid var(--bad);background:#fff;margin:4px 1px;overflow:visible}
.flag{display:inline-block;color:#fff;background:var(--bad);border-radius:3px;font-weight:700;font-size:9px;padding:0 2px;margin-top:1px}
.sw{display:inline-block;width:26px;height:14px;border:1px solid;border-radius:3px;vertical-align:middle}
.incomplete-list{margin:8px 0 0;padding-left:20px}
.incomplete-list li{margin:2px 0}
footer{color:var(--muted);font-size:12px;padding:12px 32px;border-top:1px solid var(--line)}
@page{size:A4 landscape;margin:12mm}
@media print{
 header{background:#fff}
 main{padding:0 12px}
 .timeline{zoom:.75}
 section,table,tr{break-inside:avoid-page}
 .cells{max-width:none}
}
"#;

/// The whole document around `body` (which opened `<main>`).
fn page(title: &str, body: &str) -> String {
    let mut out = String::with_capacity(body.len() + CSS.len() + 512);
    put!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"generator\" content=\"paimon-parity {}\"><title>{}</title><style>{CSS}</style></head>\
         <body>{body}</main><footer>Written by paimon-parity {}. A self-contained page: nothing is loaded \
         from the network.</footer></body></html>\n",
        env!("CARGO_PKG_VERSION"),
        esc(title),
        env!("CARGO_PKG_VERSION")
    );
    out
}

// ---- replay ---------------------------------------------------------------------------------------------

/// The CSS class of a run's or report's verdict badge.
fn replay_verdict_class(verdict: &str) -> &'static str {
    match verdict {
        "identical" => "b-ok",
        "different" | "unreadable" | "error" => "b-bad",
        "incomplete" | "interrupted" => "b-warn",
        "nothing-compared" => "b-info",
        _ => "b-none",
    }
}

fn verdict_badge(verdict: &str) -> String {
    format!(
        "<span class=\"badge {}\">{}</span>",
        replay_verdict_class(verdict),
        esc(&verdict.to_uppercase())
    )
}

fn counts(r: &RowCounts) -> String {
    format!(
        "{} <span class=\"muted\">({} {} {} {})</span>",
        r.total(),
        r.insert,
        r.update_before,
        r.update_after,
        r.delete
    )
}

/// A unified diff with its removed (`-`), added (`+`) and hunk (`@@`) lines marked, escaped.
fn diff_lines(diff: &str) -> String {
    let mut out = String::with_capacity(diff.len() + 64);
    for line in diff.lines() {
        let class = if line.starts_with("---") || line.starts_with("+++") {
            None
        } else if line.starts_with('-') {
            Some("del")
        } else if line.starts_with('+') {
            Some("ins")
        } else if line.starts_with("@@") {
            Some("hunk")
        } else {
            None
        };
        match class {
            Some(c) => put!(out, "<span class=\"{c}\">{}</span>", esc(line)),
            None => put!(out, "{}\n", esc(line)),
        }
    }
    out
}

// ---- small helpers --------------------------------------------------------------------------------------

/// `text` with `&`, `<`, `>`, `"` and `'` escaped, for element content and quoted attribute values.
pub(crate) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` cut to at most `max` characters, with `…` where it was cut.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn opt(v: Option<i64>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

fn identifier(id: i64) -> String {
    crate::inspect::identifier_words(id)
}

/// The audit's part 3: the files written but never committed, findings first (class, partition, bucket,
/// file, records, the first records the table lacks, detail; at most [`MAX_TABLE_ROWS`]).
fn uncommitted_section(body: &mut String, report: &AuditReport) {
    let u = &report.uncommitted;
    body.push_str("<section><h2>Files written but never committed</h2>");
    if let Some(why) = &u.skipped {
        put!(body, "<p>Not checked: {}</p></section>", esc(why));
        return;
    }
    let findings = u.findings().count();
    put!(
        body,
        "<p>{} file{} in {} bucket director{} that no snapshot, tag, long-lived changelog or branch references \
         ({} committed files); <strong>{findings}</strong> hold rows the table or its changelog lacks.</p>",
        u.files.len(),
        plural(u.files.len()),
        u.buckets,
        if u.buckets == 1 { "y" } else { "ies" },
        u.committed_files
    );
    if u.files.is_empty() {
        body.push_str("</section>");
        return;
    }
    let mut files: Vec<&crate::audit::UncommittedFile> = u.files.iter().collect();
    files.sort_by_key(|f| !f.class.is_finding());
    body.push_str(
        "<table class=\"uncommitted\"><caption>Uncommitted files</caption><thead><tr><th>class</th>\
         <th>partition</th><th>bucket</th><th>file</th><th>records</th><th>lacking</th><th>first lacking \
         records</th><th>detail</th></tr></thead><tbody>",
    );
    for f in files.iter().take(MAX_TABLE_ROWS) {
        put!(
            body,
            "<tr{}><td>{}</td><td class=\"mono\">{}</td><td class=\"num\">{}</td><td class=\"mono\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"mono\">{}</td><td>{}</td></tr>",
            if f.class.is_finding() {
                " class=\"row-incomplete\""
            } else {
                ""
            },
            esc(f.class.words()),
            esc(&crate::audit::named_partition(&report.partition_keys, &f.partition)),
            f.bucket,
            esc(&f.file),
            f.rows,
            f.lacking_rows,
            esc(&shorten(&f.lacking.join(", "), MAX_TEXT)),
            esc(&shorten(&f.detail, MAX_TEXT))
        );
    }
    body.push_str("</tbody></table>");
    more_rows(body, files.len(), "uncommitted files");
    body.push_str("</section>");
}

fn ids(v: &[i64]) -> String {
    if v.is_empty() {
        return "none".into();
    }
    v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

fn partition(p: &[Option<String>]) -> String {
    let parts: Vec<&str> = p.iter().map(|v| v.as_deref().unwrap_or("NULL")).collect();
    format!("[{}]", parts.join(", "))
}

fn files(groups: &[FileGroup]) -> String {
    let n: usize = groups.iter().map(|g| g.files).sum();
    let rows: i64 = groups.iter().map(|g| g.rows).sum();
    format!("{n} file{}, {rows} rows", plural(n))
}

fn range_words(earliest: Option<i64>, latest: Option<i64>) -> String {
    match (earliest, latest) {
        (Some(a), Some(b)) => format!("snapshots {a}..{b}"),
        _ => "no snapshot".into(),
    }
}

/// `… N more <what> not shown` when `total` exceeds [`MAX_TABLE_ROWS`].
fn more_rows(out: &mut String, total: usize, what: &str) {
    if total > MAX_TABLE_ROWS {
        put!(
            out,
            "<p class=\"note\">{} more {what} not shown (at most {MAX_TABLE_ROWS} rows).</p>",
            total - MAX_TABLE_ROWS
        );
    }
}

/// The audit's verdict sentence, as its text report words it (the `verdict:` line, without its leading
/// `CHANGELOG LOST: ` that the page shows as a heading).
fn audit_sentence(report: &AuditReport) -> String {
    let mut text = Vec::new();
    if crate::audit::write_text(&mut text, report, 0).is_ok() {
        if let Some(line) = String::from_utf8_lossy(&text)
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("verdict: "))
        {
            return match line.split_once(": ") {
                Some((word, rest)) if !word.chars().any(char::is_lowercase) => {
                    let mut chars = rest.chars();
                    chars
                        .next()
                        .map(|c| c.to_uppercase().chain(chars).collect())
                        .unwrap_or_default()
                }
                _ => line.to_owned(),
            };
        }
    }
    report.verdict.to_owned()
}

#[cfg(test)]
mod tests {
    use super::{esc, shorten};

    #[test]
    fn text_is_escaped_for_content_and_attributes() {
        assert_eq!(
            esc(r#"<a href="x">&'b'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;b&#39;"
        );
        assert_eq!(shorten("abcdef", 4), "abc…");
        assert_eq!(shorten("abc", 4), "abc");
    }
}
