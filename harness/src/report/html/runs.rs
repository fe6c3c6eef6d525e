//! The replay page's parts: the matrix of runs and, per run, the grid of one cell per split (coloured and
//! lettered by verdict) with the first differences.

use super::*;

pub(super) fn run_matrix(out: &mut String, runs: &[(&MatrixRun, Option<&ReplayReport>)]) {
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
pub(super) const VERDICTS: [(SplitVerdict, &str); 8] = [
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
pub(super) fn verdict_slug(v: SplitVerdict) -> &'static str {
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

pub(super) fn glyph(v: SplitVerdict) -> &'static str {
    VERDICTS
        .iter()
        .find(|(w, _)| *w == v)
        .map(|(_, g)| *g)
        .unwrap_or("")
}

/// The verdict's words in a report of `reader` (`only in native` reads `only in <reader>`).
pub(super) fn verdict_words(v: SplitVerdict, reader: &str) -> String {
    match v {
        SplitVerdict::OnlyInNative => format!("only in {reader}"),
        v => v.word().to_owned(),
    }
}

pub(super) fn run_section(
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
