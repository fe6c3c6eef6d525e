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

/// The audit page: the verdict and its sentence, the commit pairs counted and the incomplete ones listed
/// (user, identifier, APPEND and COMPACT snapshots, detail), the snapshot timeline of `timeline` with the
/// incomplete pairs marked, the per-user summary, and per reader the changelog-completeness check with the
/// missing keys (partition, bucket, key, class, the stream's last event, the table's value, the APPEND
/// snapshot and commit that wrote it; at most [`MAX_TABLE_ROWS`]).
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
        "changelog-lost" => "bad",
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
         <strong>{} incomplete</strong>, {} not applicable.</p>",
        report.pairs.len(),
        count(PairStatus::Complete),
        count(PairStatus::CompactedLater),
        count(PairStatus::Incomplete),
        count(PairStatus::NotApplicable)
    );
    let incomplete = report.incomplete_pairs();
    if incomplete.is_empty() {
        body.push_str("<p>No incomplete pair.</p>");
    } else {
        body.push_str(
            "<table class=\"incomplete-pairs\"><caption>Incomplete pairs</caption><thead><tr>\
             <th>status</th><th>commit user</th><th>identifier</th><th>APPEND snapshots</th>\
             <th>COMPACT snapshots</th><th>level-0 files</th><th>detail</th></tr></thead><tbody>",
        );
        for p in incomplete.iter().take(MAX_TABLE_ROWS) {
            put!(
                body,
                "<tr class=\"row-incomplete\"><td>{}</td><td class=\"mono\">{}</td><td class=\"num\">{}</td>\
                 <td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
                status_badge(PairStatus::Incomplete),
                esc(&p.commit_user),
                esc(&identifier(p.commit_identifier)),
                esc(&ids(&p.append_snapshots)),
                esc(&ids(&p.compact_snapshots)),
                p.level0_files,
                esc(&shorten(&p.detail, MAX_TEXT))
            );
        }
        body.push_str("</tbody></table>");
        more_rows(&mut body, incomplete.len(), "incomplete pairs");
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
        if c.pending_level0_keys > 0 {
            put!(
                body,
                "<p class=\"note\">{} keys left out: they sit in level-0 files that batch reads of this table \
                 do not see until compaction.</p>",
                c.pending_level0_keys
            );
        }
        if c.pending_postpone_keys > 0 {
            put!(
                body,
                "<p class=\"note\">{} keys left out: the stream saw them in the postpone bucket (bucket -2), \
                 which batch reads skip.</p>",
                c.pending_postpone_keys
            );
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
            let by = match (
                m.written_by_snapshot,
                &m.written_by_user,
                m.written_by_identifier,
            ) {
                (Some(s), Some(u), Some(i)) => format!(
                    "APPEND snapshot {s} (user {}, identifier {})",
                    esc(u),
                    esc(&identifier(i))
                ),
                (Some(s), _, _) => format!("APPEND snapshot {s}"),
                _ => "<span class=\"muted\">unknown</span>".to_owned(),
            };
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
                esc(&m.table_value)
            );
        }
        body.push_str("</tbody></table>");
        more_rows(&mut body, report.findings.len(), "missing keys");
        body.push_str("</section>");
    }
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

fn run_matrix(out: &mut String, runs: &[(&MatrixRun, Option<&ReplayReport>)]) {
    out.push_str(
        "<table class=\"matrix\"><thead><tr><th>#</th><th>table</th><th>mode</th><th>reader</th><th>splits</th>\
         <th>identical / differ / error / unsupported</th><th>stock rows (+I -U +U -D)</th>\
         <th>reader rows (+I -U +U -D)</th><th>verdict</th><th>first difference or problem</th></tr></thead><tbody>",
    );
    for (i, (run, _)) in runs.iter().enumerate() {
        let note = run
            .first_difference
            .as_ref()
            .or(run.first_problem.as_ref())
            .map(|n| esc(&shorten(n, 200)))
            .unwrap_or_default();
        put!(
            out,
            "<tr><td class=\"num\"><a href=\"#run-{n}\">{n}</a></td><td class=\"mono nowrap\" title=\"{}\">{}</td>\
             <td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td>{}</td><td>{note}</td></tr>",
            esc(&run.table.display().to_string()),
            esc(&table_name(&run.table)),
            esc(run.mode.name()),
            esc(&run.reader),
            run.splits,
            esc(&run.split_verdicts.to_string()),
            counts(&run.stock_rows),
            counts(&run.native_rows),
            verdict_badge(&run.verdict),
            n = i + 1
        );
    }
    out.push_str("</tbody></table>");
    let mut verdicts: Vec<(&str, usize)> = Vec::new();
    for (r, _) in runs {
        match verdicts.iter_mut().find(|(v, _)| *v == r.verdict) {
            Some((_, n)) => *n += 1,
            None => verdicts.push((&r.verdict, 1)),
        }
    }
    let parts: Vec<String> = verdicts
        .iter()
        .map(|(v, n)| format!("{n} {}", esc(v)))
        .collect();
    put!(
        out,
        "<p>{} run{}: {}.</p>",
        runs.len(),
        plural(runs.len()),
        parts.join(", ")
    );
}

/// Every split verdict in legend order, with its glyph (so that a cell does not speak by colour alone).
const VERDICTS: [(SplitVerdict, &str); 8] = [
    (SplitVerdict::Identical, ""),
    (SplitVerdict::DiffersPlanning, "P"),
    (SplitVerdict::DiffersDecoding, "D"),
    (SplitVerdict::OnlyInStock, "S"),
    (SplitVerdict::OnlyInNative, "R"),
    (SplitVerdict::Unreadable, "U"),
    (SplitVerdict::ReaderError, "E"),
    (SplitVerdict::Unsupported, "N"),
];

/// `differs-planning` for [`SplitVerdict::DiffersPlanning`]: the class suffix of its cells.
fn verdict_slug(v: SplitVerdict) -> &'static str {
    match v {
        SplitVerdict::Identical => "identical",
        SplitVerdict::DiffersPlanning => "differs-planning",
        SplitVerdict::DiffersDecoding => "differs-decoding",
        SplitVerdict::OnlyInStock => "only-in-stock",
        SplitVerdict::OnlyInNative => "only-in-native",
        SplitVerdict::Unreadable => "unreadable",
        SplitVerdict::ReaderError => "reader-error",
        SplitVerdict::Unsupported => "unsupported",
    }
}

fn glyph(v: SplitVerdict) -> &'static str {
    VERDICTS
        .iter()
        .find(|(w, _)| *w == v)
        .map(|(_, g)| *g)
        .unwrap_or("")
}

/// The verdict's words in a report of `reader` (`only in native` reads `only in <reader>`).
fn verdict_words(v: SplitVerdict, reader: &str) -> String {
    match v {
        SplitVerdict::OnlyInNative => format!("only in {reader}"),
        v => v.word().to_owned(),
    }
}

fn run_section(
    out: &mut String,
    n: usize,
    run: &MatrixRun,
    report: Option<&ReplayReport>,
    budget: &mut usize,
) {
    put!(
        out,
        "<section class=\"run\" id=\"run-{n}\"><h2>Run {n}: {} · {} · {}{}</h2><p class=\"path mono\">{}</p>",
        esc(&table_name(&run.table)),
        esc(run.mode.name()),
        esc(&run.reader),
        verdict_badge(&run.verdict),
        esc(&run.table.display().to_string())
    );
    let Some(report) = report else {
        put!(
            out,
            "<div class=\"verdict v-bad\"><p class=\"vword\">The run stopped with an error</p><p class=\"mono\">\
             {}</p></div></section>",
            esc(run.error.as_deref().unwrap_or(&run.summary))
        );
        return;
    };
    let reader = report.reader.as_str();
    let scan = match report.mode {
        native_reader::scan::ScanMode::Stream { .. }
        | native_reader::scan::ScanMode::StreamFull { .. } => {
            format!(
                "{} scan, up to snapshot {}",
                report.mode, report.end_snapshot
            )
        }
        mode => format!("{mode} scan, up to snapshot {}", report.end_snapshot),
    };
    put!(
        out,
        "<p class=\"facts\">{}; released reader against <strong>{}</strong>{}</p><p class=\"mono\">{}</p>",
        esc(&scan),
        esc(reader),
        report
            .reader_version
            .as_ref()
            .map(|v| format!(" ({})", esc(v)))
            .unwrap_or_default(),
        esc(&run.summary)
    );

    // First difference, then the row differences with both values.
    if let Some(f) = &report.first_difference {
        put!(
            out,
            "<h3>First difference</h3><div class=\"verdict v-bad first-difference\"><p class=\"vword\">{} at {}</p>\
             <p class=\"mono\">{}</p></div>",
            esc(f.kind),
            esc(&f.split.to_string()),
            esc(&shorten(&f.detail, MAX_TEXT * 2))
        );
    }
    let mismatches: Vec<&SplitReport> = report
        .splits
        .iter()
        .filter(|s| s.first_mismatch.is_some())
        .collect();
    if !mismatches.is_empty() {
        put!(
            out,
            "<h3>Row differences (first of each split{})</h3><table class=\"vs\"><thead><tr><th>split</th>\
             <th>kind</th><th>row</th><th>field</th><th>stock value</th><th>{} value</th></tr></thead><tbody>",
            if mismatches.len() > MAX_MISMATCHES {
                format!(", {MAX_MISMATCHES} of {} splits", mismatches.len())
            } else {
                String::new()
            },
            esc(reader)
        );
        for s in mismatches.iter().take(MAX_MISMATCHES) {
            if let Some(m) = &s.first_mismatch {
                put!(
                    out,
                    "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"mono\">{}</td>\
                     <td class=\"mono stock\">{}</td><td class=\"mono other\">{}</td></tr>",
                    esc(&s.key.to_string()),
                    esc(&format!("{:?}", m.kind).to_lowercase()),
                    m.row,
                    esc(&m.field),
                    esc(&shorten(&m.stock, MAX_TEXT)),
                    esc(&shorten(&m.native, MAX_TEXT))
                );
            }
        }
        out.push_str("</tbody></table>");
        if let Some(m) = mismatches.first().and_then(|s| s.first_mismatch.as_ref()) {
            if !m.context.is_empty() {
                let context = if reader == "native" {
                    m.context.clone()
                } else {
                    m.context
                        .replace("+++ native", &format!("+++ {reader}"))
                        .replace(", native rows", &format!(", {reader} rows"))
                };
                put!(
                    out,
                    "<p class=\"note\">Neighbouring rows of the first one (stock as <code>-</code>, {} as \
                     <code>+</code>):</p><pre>{}</pre>",
                    esc(reader),
                    diff_lines(&shorten(&context, 8000))
                );
            }
        }
    }

    // The split grid.
    put!(
        out,
        "<h3>Splits ({})</h3><ul class=\"legend\" aria-label=\"legend\">",
        report.splits.len()
    );
    for (v, g) in VERDICTS {
        let n = report.splits.iter().filter(|s| s.verdict == v).count();
        if v != SplitVerdict::Identical && n == 0 {
            continue;
        }
        put!(
            out,
            "<li><span class=\"cell s-{}\" aria-hidden=\"true\">{g}</span>{} ({n})</li>",
            verdict_slug(v),
            esc(&verdict_words(v, reader))
        );
    }
    out.push_str("</ul>");
    let drawn = report.splits.len().min(*budget);
    *budget -= drawn;
    put!(
        out,
        "<ul class=\"cells split-grid\" aria-label=\"split verdicts of run {n}, in plan order\">"
    );
    for s in &report.splits[..drawn] {
        let words = verdict_words(s.verdict, reader);
        let mut tip = format!("{}: {words}", s.key);
        if let Some(m) = &s.first_mismatch {
            put!(
                tip,
                "; {} differing rows, first at row {} field {}: stock {} | {reader} {}",
                s.differing_rows,
                m.row,
                m.field,
                shorten(&m.stock, 80),
                shorten(&m.native, 80)
            );
        } else if let Some(d) = &s.detail {
            put!(tip, "; {}", shorten(d, MAX_TEXT / 2));
        }
        put!(
            out,
            "<li class=\"cell s-{}\" title=\"{}\"><span class=\"sr\">{}: {}</span>{}</li>",
            verdict_slug(s.verdict),
            esc(&tip),
            esc(&s.key.to_string()),
            esc(&words),
            glyph(s.verdict)
        );
    }
    out.push_str("</ul>");
    if drawn < report.splits.len() {
        let rest = &report.splits[drawn..];
        let parts: Vec<String> = VERDICTS
            .iter()
            .filter_map(|(v, _)| {
                let n = rest.iter().filter(|s| s.verdict == *v).count();
                (n > 0).then(|| format!("{n} {}", verdict_words(*v, reader)))
            })
            .collect();
        put!(
            out,
            "<p class=\"note more-cells\">{} more splits not drawn (at most {MAX_SPLIT_CELLS} cells per page): {}.</p>",
            rest.len(),
            esc(&parts.join(", "))
        );
    }

    // The splits that are not identical, as a table.
    let odd: Vec<&SplitReport> = report
        .splits
        .iter()
        .filter(|s| s.verdict != SplitVerdict::Identical)
        .collect();
    if !odd.is_empty() {
        put!(
            out,
            "<table><caption>Splits that are not identical</caption><thead><tr><th>verdict</th><th>split</th>\
             <th>files</th><th>stock rows</th><th>{} rows</th><th>detail</th></tr></thead><tbody>",
            esc(reader)
        );
        for s in odd.iter().take(MAX_TABLE_ROWS) {
            let detail = match (&s.first_mismatch, &s.detail) {
                (Some(m), _) => format!(
                    "{} differing rows, first at row {} field {}",
                    s.differing_rows, m.row, m.field
                ),
                (None, Some(d)) => shorten(d, MAX_TEXT),
                (None, None) => String::new(),
            };
            put!(
                out,
                "<tr><td><span class=\"cell s-{} inline\" aria-hidden=\"true\" style=\"display:inline-block;\
                 vertical-align:-3px;margin-right:6px\">{}</span>{}</td><td>{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"mono\">{}</td></tr>",
                verdict_slug(s.verdict),
                glyph(s.verdict),
                esc(&verdict_words(s.verdict, reader)),
                esc(&s.key.to_string()),
                s.files,
                s.stock_rows.as_ref().map(counts).unwrap_or_else(|| "-".into()),
                s.native_rows.as_ref().map(counts).unwrap_or_else(|| "-".into()),
                esc(&detail)
            );
        }
        out.push_str("</tbody></table>");
        more_rows(out, odd.len(), "splits that are not identical");
    }
    out.push_str("</section>");
}

// ---- timeline -------------------------------------------------------------------------------------------

fn kind_word(k: CommitKind) -> &'static str {
    match k {
        CommitKind::Append => "APPEND",
        CommitKind::Compact => "COMPACT",
        CommitKind::Overwrite => "OVERWRITE",
        CommitKind::Analyze => "ANALYZE",
    }
}

fn kind_class(k: CommitKind) -> &'static str {
    match k {
        CommitKind::Append => "k-append",
        CommitKind::Compact => "k-compact",
        CommitKind::Overwrite => "k-overwrite",
        CommitKind::Analyze => "k-analyze",
    }
}

fn status_word(s: PairStatus) -> &'static str {
    match s {
        PairStatus::Complete => "complete",
        PairStatus::CompactedLater => "compacted later",
        PairStatus::NotApplicable => "not applicable",
        PairStatus::Incomplete => "incomplete",
    }
}

fn status_badge(s: PairStatus) -> String {
    let class = match s {
        PairStatus::Complete => "b-ok",
        PairStatus::CompactedLater => "b-info",
        PairStatus::NotApplicable => "b-none",
        PairStatus::Incomplete => "b-bad",
    };
    format!("<span class=\"badge {class}\">{}</span>", status_word(s))
}

/// The pairing verdict of every (commit user, identifier) of `t`: the one `inspect` recorded from the whole
/// timeline when there is one (a filtered timeline keeps it), else part 1 of the audit on `t`.
fn pair_statuses(t: &Timeline) -> HashMap<(String, i64), (PairStatus, String)> {
    let mut out: HashMap<(String, i64), (PairStatus, String)> = crate::audit::commit_pairs_of(t)
        .into_iter()
        .map(|p: CommitPair| ((p.commit_user, p.commit_identifier), (p.status, p.detail)))
        .collect();
    for c in &t.commits {
        if let Some(p) = &c.pair {
            out.insert(
                (c.commit_user.clone(), c.commit_identifier),
                (p.status, p.detail.clone()),
            );
        }
    }
    out
}

/// The timeline: a lane per commit user (in order of first snapshot), snapshots as boxes in id order (one
/// column per snapshot, so that lanes line up in time), the halves of one (user, identifier) on a shared
/// band, incomplete pairs dashed red with an `incomplete` label and their detail as tooltip; then a legend
/// and the incomplete pairs in words. At most [`MAX_TIMELINE_SNAPSHOTS`] snapshots are drawn.
fn timeline_view(out: &mut String, t: &Timeline) {
    let all = t.snapshots();
    if all.is_empty() {
        out.push_str("<p>No snapshot.</p>");
        return;
    }
    let shown = &all[..all.len().min(MAX_TIMELINE_SNAPSHOTS)];
    // Position in id order of every drawn snapshot: chunk `i / TIMELINE_COLUMNS`, column within it.
    let index: HashMap<i64, usize> = shown.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
    let mut users: Vec<&str> = Vec::new();
    for s in shown {
        if !users.contains(&s.commit_user.as_str()) {
            users.push(&s.commit_user);
        }
    }
    let lane = |user: &str| users.iter().position(|u| *u == user).unwrap_or(0) + 1;
    let statuses = pair_statuses(t);
    let status_of = |user: &str, id: i64| statuses.get(&(user.to_owned(), id));

    out.push_str(
        "<div class=\"timeline\" role=\"group\" aria-label=\"snapshot timeline, a lane per commit user\">",
    );
    for (chunk, part) in shown.chunks(TIMELINE_COLUMNS).enumerate() {
        let lo = chunk * TIMELINE_COLUMNS;
        let hi = lo + part.len() - 1;
        let col = |i: usize| i - lo + 2;
        put!(
            out,
            "<div class=\"tl-chunk\"><p class=\"tl-range\">snapshots {}–{}</p><div class=\"tl\" \
             style=\"grid-template-columns:var(--lane) repeat({}, var(--col))\">",
            part[0].id,
            part[part.len() - 1].id,
            part.len()
        );
        for (i, user) in users.iter().enumerate() {
            let n = shown.iter().filter(|s| s.commit_user == *user).count();
            put!(
                out,
                "<div class=\"lane\" style=\"grid-row:{r}\" title=\"{u}\"><span class=\"who mono\">{u}</span>\
                 <span class=\"n\">{n} snapshot{}</span></div><div class=\"lanebg\" style=\"grid-row:{r}\"></div>",
                plural(n),
                r = i + 1,
                u = esc(user)
            );
        }
        // Bands joining the halves of one commit (the part of each that falls in this chunk).
        for c in &t.commits {
            let at: Vec<usize> = c
                .snapshots
                .iter()
                .filter_map(|s| index.get(&s.id).copied())
                .collect();
            let (Some(&first), Some(&last)) = (at.iter().min(), at.iter().max()) else {
                continue;
            };
            if last < lo || first > hi {
                continue;
            }
            let status = status_of(&c.commit_user, c.commit_identifier);
            let incomplete = status.is_some_and(|(s, _)| *s == PairStatus::Incomplete);
            if at.len() < 2 && !incomplete {
                continue;
            }
            let mut class = match status.map(|(s, _)| *s) {
                Some(PairStatus::Incomplete) => "pair incomplete".to_owned(),
                Some(PairStatus::CompactedLater) => "pair later".to_owned(),
                _ => "pair".to_owned(),
            };
            if first < lo {
                class.push_str(" cont-left");
            }
            if last > hi {
                class.push_str(" cont-right");
            }
            let halves: Vec<String> = c
                .snapshots
                .iter()
                .map(|s| format!("{} {}", kind_word(s.commit_kind), s.id))
                .collect();
            let tip = format!(
                "user {}, identifier {}: {}{}",
                c.commit_user,
                identifier(c.commit_identifier),
                halves.join(" + "),
                status
                    .map(|(s, d)| format!(" - {}: {}", status_word(*s), shorten(d, MAX_TEXT)))
                    .unwrap_or_default()
            );
            put!(
                out,
                "<div class=\"{class}\" style=\"grid-row:{};grid-column:{}/{}\" title=\"{}\"></div>",
                lane(&c.commit_user),
                col(first.max(lo)),
                col(last.min(hi)) + 1,
                esc(&tip)
            );
        }
        for (i, s) in part.iter().enumerate() {
            let status = status_of(&s.commit_user, s.commit_identifier);
            let incomplete = status.is_some_and(|(st, _)| *st == PairStatus::Incomplete);
            let mut tip = format!(
                "snapshot {} {}\nuser {}, identifier {}\n{}\nrecords total {}, delta {}; changelog {} file{} {} rows\n\
                 files added {}, deleted {}",
                s.id,
                kind_word(s.commit_kind),
                s.commit_user,
                identifier(s.commit_identifier),
                s.time,
                opt(s.total_record_count),
                opt(s.delta_record_count),
                s.changelog_files(),
                plural(s.changelog_files()),
                s.changelog_rows(),
                files(&s.added),
                files(&s.deleted)
            );
            if let Some((st, d)) = status {
                put!(tip, "\npair {}: {}", status_word(*st), shorten(d, MAX_TEXT));
            }
            put!(
                out,
                "<div class=\"snap {}{}\" style=\"grid-row:{};grid-column:{}\" title=\"{}\"><span class=\"id\">{}\
                 </span><span class=\"kind\">{}</span>{}</div>",
                kind_class(s.commit_kind),
                if incomplete { " bad" } else { "" },
                lane(&s.commit_user),
                col(lo + i),
                esc(&tip),
                s.id,
                kind_word(s.commit_kind),
                if incomplete {
                    "<span class=\"flag\">incomplete</span>"
                } else {
                    ""
                }
            );
        }
        out.push_str("</div></div>");
    }
    out.push_str("</div>");
    if shown.len() < all.len() {
        put!(
            out,
            "<p class=\"note\">{} later snapshots not drawn (at most {MAX_TIMELINE_SNAPSHOTS}); snapshots {}..{} \
             are.</p>",
            all.len() - shown.len(),
            shown[0].id,
            shown[shown.len() - 1].id
        );
    }
    out.push_str(
        "<ul class=\"legend\" aria-label=\"timeline legend\">\
         <li><span class=\"sw k-append\"></span>APPEND snapshot</li>\
         <li><span class=\"sw k-compact\"></span>COMPACT snapshot</li>\
         <li><span class=\"sw\" style=\"border:2px solid #8c959f;background:#e6eaef\"></span>halves of one \
         commit (user, identifier)</li>\
         <li><span class=\"sw\" style=\"border:2px dotted #8c959f;background:#e6eaef\"></span>compacted later</li>\
         <li><span class=\"sw\" style=\"border:2px dashed #b91c1c;background:#fde8e8\"></span>\
         <span class=\"flag\">incomplete</span> APPEND whose changelog never came</li></ul>",
    );
    let incomplete: Vec<_> = t
        .commits
        .iter()
        .filter_map(|c| {
            status_of(&c.commit_user, c.commit_identifier)
                .filter(|(s, _)| *s == PairStatus::Incomplete)
                .map(|(_, d)| (c, d))
        })
        .collect();
    if !incomplete.is_empty() {
        out.push_str("<ul class=\"incomplete-list\">");
        for (c, d) in incomplete.iter().take(MAX_TABLE_ROWS) {
            let snaps: Vec<String> = c
                .snapshots
                .iter()
                .map(|s| format!("{} {}", kind_word(s.commit_kind), s.id))
                .collect();
            put!(
                out,
                "<li class=\"incomplete-pair\"><span class=\"flag\">incomplete</span> user <code>{}</code>, \
                 identifier <code>{}</code> ({}): {}</li>",
                esc(&c.commit_user),
                esc(&identifier(c.commit_identifier)),
                esc(&snaps.join(" + ")),
                esc(&shorten(d, MAX_TEXT))
            );
        }
        out.push_str("</ul>");
        more_rows(out, incomplete.len(), "incomplete pairs");
    }
}

/// The snapshot table of `inspect`: one row per snapshot in id order, at most [`MAX_TABLE_ROWS`].
fn snapshot_table(out: &mut String, t: &Timeline) {
    let all = t.snapshots();
    if all.is_empty() {
        out.push_str("<p>No snapshot.</p>");
        return;
    }
    let statuses = pair_statuses(t);
    out.push_str(
        "<table class=\"snapshots\"><thead><tr><th>snapshot</th><th>kind</th><th>commit user</th>\
         <th>identifier</th><th>pair</th><th>time (UTC)</th><th>schema</th><th>records total</th>\
         <th>delta</th><th>changelog</th><th>files added</th><th>files deleted</th></tr></thead><tbody>",
    );
    for s in all.iter().take(MAX_TABLE_ROWS) {
        let status = statuses.get(&(s.commit_user.clone(), s.commit_identifier));
        let incomplete = status.is_some_and(|(st, _)| *st == PairStatus::Incomplete);
        let pair = status
            .map(|(st, d)| {
                format!(
                    "<span title=\"{}\">{}</span>",
                    esc(&shorten(d, MAX_TEXT)),
                    status_badge(*st)
                )
            })
            .unwrap_or_default();
        put!(
            out,
            "<tr{}><td class=\"num\">{}</td><td>{}</td><td class=\"mono\">{}</td><td class=\"num\">{}</td>\
             <td>{pair}</td><td class=\"mono\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td>{}{}</tr>",
            if incomplete {
                " class=\"row-incomplete\""
            } else {
                ""
            },
            s.id,
            kind_word(s.commit_kind),
            esc(&s.commit_user),
            esc(&identifier(s.commit_identifier)),
            esc(&s.time),
            s.schema_id,
            opt(s.total_record_count),
            opt(s.delta_record_count),
            if s.changelog.is_empty() {
                "-".to_owned()
            } else {
                format!(
                    "{} file{}, {} rows",
                    s.changelog_files(),
                    plural(s.changelog_files()),
                    s.changelog_rows()
                )
            },
            file_cell(&s.added),
            file_cell(&s.deleted)
        );
    }
    out.push_str("</tbody></table>");
    more_rows(out, all.len(), "snapshots");
}

/// `3 files, 20 rows` (with the levels, and every group as tooltip), or `-`.
fn file_cell(groups: &[FileGroup]) -> String {
    if groups.is_empty() {
        return "<td class=\"num\">-</td>".to_owned();
    }
    let mut levels: Vec<i32> = groups.iter().map(|g| g.level).collect();
    levels.sort_unstable();
    levels.dedup();
    let levels: Vec<String> = levels.iter().map(|l| format!("L{l}")).collect();
    let tip: Vec<String> = groups
        .iter()
        .take(200)
        .map(|g| {
            format!(
                "{}bucket {} level {}: {} file{} {} rows",
                if g.partition.is_empty() {
                    String::new()
                } else {
                    format!("{} ", partition(&g.partition))
                },
                g.bucket,
                g.level,
                g.files,
                plural(g.files),
                g.rows
            )
        })
        .collect();
    format!(
        "<td class=\"num\" title=\"{}\">{} <span class=\"muted\">({})</span></td>",
        esc(&tip.join("\n")),
        esc(&files(groups)),
        esc(&levels.join(" "))
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
    if id == i64::MAX {
        "MAX (batch)".into()
    } else {
        id.to_string()
    }
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
