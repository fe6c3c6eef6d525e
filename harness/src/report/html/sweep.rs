//! The page of `sweep --html`: the verdict, then one strip per fault mode with a cell per file operation,
//! coloured by the point's class, the two snapshot publications marked; the windows of one class as a table.

use super::*;
use crate::sweep::{PointClass, SweepReport};

/// The colour of a class's cells.
fn colour(c: PointClass) -> &'static str {
    match c {
        PointClass::Ok => "#2da44e",
        PointClass::Absorbed => "#57ab5a",
        PointClass::SpuriousFailure => "#8ddb8c",
        PointClass::DeferredFailure => "#b4dfb4",
        PointClass::ChangelogLost => "#cf222e",
        PointClass::ChangelogLostHealedLater => "#d4620b",
        PointClass::ChangelogDuplicated => "#bf3989",
        PointClass::ChangelogOutOfOrder => "#8250df",
        PointClass::DataLost => "#6e0b0b",
        PointClass::DuplicateRows => "#8250df",
        PointClass::RecoveryThrew => "#9a6700",
        PointClass::UnexpectedError => "#57606a",
        PointClass::LaterStepThrew => "#7d4e00",
        PointClass::NotIdempotent => "#e3b341",
        PointClass::Corrupt => "#24292f",
        PointClass::ParityDiffers => "#0550ae",
        PointClass::NotReached => "#8c959f",
    }
}

/// The sweep page (see the module doc).
pub fn sweep_page(r: &SweepReport) -> String {
    let title = format!(
        "paimon-parity sweep: {} commit {} ({})",
        r.scenario, r.swept.identifier, r.paimon.label
    );
    let mut body = String::new();
    put!(
        body,
        "<header><h1>{}</h1><p class=\"sub\">user {}; {} file operations; {} points in {:.1} s</p></header><main>",
        esc(&title),
        esc(&r.swept.user),
        r.ops.len(),
        r.points.len(),
        r.total_millis as f64 / 1000.0
    );
    let v = match r.verdict {
        "clean" => "ok",
        "not-checked" => "info",
        _ => "bad",
    };
    put!(
        body,
        "<section class=\"verdict v-{v}\"><p class=\"vword\">{}</p></section>",
        esc(&r.verdict_words())
    );
    for l in &r.left_out {
        put!(
            body,
            "<p class=\"note\">Left out of the sweep: {}</p>",
            esc(l)
        );
    }
    body.push_str("<ul class=\"legend\">");
    for c in PointClass::ALL {
        if r.points.iter().any(|p| p.class == c) {
            put!(
                body,
                "<li><span class=\"sw\" style=\"background:{}\"></span>{}</li>",
                colour(c),
                c.name()
            );
        }
    }
    body.push_str("<li><span class=\"sw\" style=\"border:2px solid #000\"></span>publishes a snapshot</li></ul>");
    strips(&mut body, &r.points, &r.ops, &r.windows, "");
    for rs in &r.recovery {
        put!(
            body,
            "<section><h2>Recovery after {} ({} durable)</h2><p class=\"note\">The first recovery's {} \
             operations{}; the later recoveries run clean.</p></section>",
            esc(&rs.commit_fault),
            esc(&rs.state),
            rs.ops.len(),
            if rs.points.is_empty() {
                ": none of them selected by --recovery-ops"
            } else {
                ", each failed in turn"
            }
        );
        strips(&mut body, &rs.points, &rs.ops, &rs.windows, "recovery, ");
    }
    page(&title, &body)
}

/// A strip per fault mode of `points` (a cell per operation of `ops`) and its windows of one class.
fn strips(
    body: &mut String,
    points: &[crate::sweep::Point],
    ops: &[crate::sweep::OpView],
    windows: &[crate::sweep::ClassWindow],
    heading: &str,
) {
    let mut modes: Vec<_> = points.iter().map(|p| p.mode).collect();
    modes.dedup();
    for mode in modes {
        put!(
            body,
            "<section><h2>{}{}</h2><ul class=\"cells\">",
            esc(heading),
            esc(mode.name())
        );
        for p in points.iter().filter(|p| p.mode == mode) {
            let publishes = ops
                .get(p.op_index.wrapping_sub(1))
                .and_then(|o| o.publishes.as_deref());
            let tip = format!(
                "op {}: {} {}{} — {}{}",
                p.op_index,
                p.op,
                p.path,
                publishes
                    .map(|s| format!(" (publishes the {s})"))
                    .unwrap_or_default(),
                p.class.name(),
                p.findings
                    .first()
                    .map(|f| format!(": {}", f.detail))
                    .unwrap_or_default()
            );
            put!(
                body,
                "<li class=\"cell\" style=\"background:{};{}\" title=\"{}\"><span class=\"sr\">{}</span></li>",
                colour(p.class),
                if publishes.is_some() {
                    "outline:2px solid #000;outline-offset:0"
                } else {
                    ""
                },
                esc(&tip),
                esc(&tip)
            );
        }
        body.push_str(
            "</ul><table><thead><tr><th>ops</th><th>from</th><th>to</th><th>class</th>\
             <th>what shows it</th></tr></thead><tbody>",
        );
        for w in windows.iter().filter(|w| w.mode == mode) {
            put!(
                body,
                "<tr><td class=\"num\">{}</td><td class=\"mono\">{}</td><td class=\"mono\">{}</td><td>{}</td>\
                 <td>{}</td></tr>",
                if w.first == w.last {
                    w.first.to_string()
                } else {
                    format!("{}-{}", w.first, w.last)
                },
                esc(&w.first_op),
                esc(&w.last_op),
                esc(w.class.name()),
                esc(&w.detail)
            );
        }
        body.push_str("</tbody></table></section>");
    }
}
