//! `bench --html FILE`: one self-contained page (inline SVG, nothing fetched) charting rows per second per
//! reader for each split kind, with the ratios the targets are stated in marked beside the bars.

use super::{BenchReport, KindReport};
use crate::report::esc;

/// Bar colour per measurement.
fn colour(name: &str) -> &'static str {
    match name {
        "native-1t" => "#1f6feb",
        "native-par" => "#0b3d91",
        "stock-export" => "#d97706",
        "stock-count" => "#b45309",
        "plain" => "#6b7280",
        _ => "#10b981",
    }
}

/// `12.3 M` rows/s.
fn rate(r: f64) -> String {
    if r >= 1e6 {
        format!("{:.1} M", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.0} k", r / 1e3)
    } else {
        format!("{r:.0}")
    }
}

/// The first line of a reader's error, at most 160 characters (the whole reason is in the JSON report).
fn first_line(why: &str) -> String {
    let line = why.lines().next().unwrap_or_default();
    match line.char_indices().nth(160) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

/// The ratios of one kind worth marking, with the target each is held to (`None`: no target).
fn marked_ratios(k: &KindReport) -> Vec<(String, f64, Option<f64>)> {
    let targets = [
        ("native-1t vs plain", 0.8),
        ("native-1t vs stock-count", 3.0),
        ("native-1t vs stock-export", 5.0),
        ("native-par vs native-1t", 1.8),
    ];
    k.ratios
        .iter()
        .map(|(name, v)| {
            let target = targets.iter().find(|(t, _)| t == name).map(|(_, t)| *t);
            (name.clone(), *v, target)
        })
        .collect()
}

/// The page: per kind a group of horizontal bars (one per measurement, length ∝ rows/s, on one scale over
/// all kinds so kinds compare too), the value at the end of each bar, and the kind's ratios, each with its
/// target and whether it is met. Readers asked for that could not be measured on a kind (`--reader`) are
/// listed under its bars with the reason.
pub fn html_chart(r: &BenchReport) -> String {
    const LABEL_W: f64 = 130.0;
    const BAR_MAX: f64 = 640.0;
    const BAR_H: f64 = 18.0;
    const GAP: f64 = 6.0;
    let max_rate = r
        .kinds
        .iter()
        .flat_map(|k| k.measurements.iter().map(|m| m.rows_per_s))
        .fold(0.0f64, f64::max)
        .max(1.0);
    let mut svg = String::new();
    let mut y = 10.0;
    for k in &r.kinds {
        svg.push_str(&format!(
            "<text x=\"0\" y=\"{:.0}\" class=\"kind\">{} ({}; {} splits, {} rows)</text>",
            y + 14.0,
            esc(&k.kind),
            esc(&k.plan),
            k.splits,
            k.rows
        ));
        y += 24.0;
        for m in &k.measurements {
            let w = (m.rows_per_s / max_rate * BAR_MAX).max(1.0);
            svg.push_str(&format!(
                "<text x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"end\" class=\"label\">{}</text>\
                 <rect x=\"{LABEL_W}\" y=\"{y:.0}\" width=\"{w:.1}\" height=\"{BAR_H}\" fill=\"{}\">\
                 <title>{}: {:.0} rows/s, median {:.4} s over {} samples</title></rect>\
                 <text x=\"{:.1}\" y=\"{:.0}\" class=\"value\">{} rows/s</text>",
                LABEL_W - 8.0,
                y + 13.0,
                esc(&m.name),
                colour(&m.name),
                esc(&m.name),
                m.rows_per_s,
                m.median_s,
                m.samples_s.len(),
                LABEL_W + w + 6.0,
                y + 13.0,
                rate(m.rows_per_s)
            ));
            y += BAR_H + GAP;
        }
        for (name, why) in &k.unmeasured {
            svg.push_str(&format!(
                "<text x=\"{LABEL_W}\" y=\"{:.0}\" class=\"ratio missed\">{}</text>",
                y + 12.0,
                esc(&format!("{name}: not measured: {}", first_line(why)))
            ));
            y += 16.0;
        }
        let ratios = marked_ratios(k);
        let mut x = LABEL_W;
        for (name, v, target) in ratios {
            let (class, note) = match target {
                Some(t) if v >= t => ("met", format!(" (target {t}x: met)")),
                Some(t) => ("missed", format!(" (target {t}x: missed)")),
                None => ("plain", String::new()),
            };
            let text = format!("{name}: {v:.2}x{note}");
            svg.push_str(&format!(
                "<text x=\"{x:.0}\" y=\"{:.0}\" class=\"ratio {class}\">{}</text>",
                y + 12.0,
                esc(&text)
            ));
            y += 16.0;
            x = LABEL_W;
        }
        y += 18.0;
    }
    let height = y + 10.0;
    let width = LABEL_W + BAR_MAX + 160.0;
    let e = &r.environment;
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>paimon-parity bench: {table}</title>\
         <style>body{{font-family:system-ui,sans-serif;margin:24px;color:#111}}h1{{font-size:20px}}\
         .env{{color:#555;font-size:13px}}svg text{{font-size:12px}}.kind{{font-weight:600;font-size:14px}}\
         .label{{fill:#333}}.value{{fill:#333}}.ratio{{fill:#333}}.met{{fill:#166534;font-weight:600}}\
         .missed{{fill:#9b1c1c;font-weight:600}}</style></head><body>\
         <h1>paimon-parity bench: {table}</h1>\
         <p class=\"env\">{cpu} ({cores} cores), {java}, Paimon {paimon}, optimized {opt}, {samples} samples, \
         {threads} threads, load {lb} &rarr; {la}, started {started}</p>\
         <svg width=\"{width:.0}\" height=\"{height:.0}\" \
         role=\"img\" aria-label=\"rows per second per reader and split kind\">{svg}</svg></body></html>\n",
        table = esc(&r.table),
        cpu = esc(&e.cpu),
        cores = e.cores,
        java = esc(&e.java),
        paimon = esc(&e.paimon),
        opt = e.optimized,
        samples = e.samples,
        threads = e.threads,
        lb = esc(&e.load_before),
        la = esc(&e.load_after),
        started = esc(&e.started),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::compare::tests::{measurement, report};

    /// An external reader is a bar like the others; one that could not read a kind is named under the
    /// kind's bars with the first line of its reason, escaped.
    #[test]
    fn external_readers_are_charted_and_unmeasured_ones_say_why() {
        let mut r = report(vec![
            (
                "merge",
                vec![
                    measurement("native-1t", 1000, 1.0),
                    measurement("reader:paimon-rust", 1000, 4.0),
                ],
            ),
            ("changelog", vec![measurement("native-1t", 10, 1.0)]),
        ]);
        r.kinds[1].unmeasured.insert(
            "reader:paimon-rust".into(),
            "unsupported: <streaming> scans\nsecond line".into(),
        );
        let page = html_chart(&r);
        // 1000 rows in 4 s: 250 rows/s, a bar a quarter as long as native-1t's (640 px at 1000 rows/s).
        assert!(
            page.contains(
                "<title>reader:paimon-rust: 250 rows/s, median 4.0000 s over 1 samples</title>"
            ),
            "{page}"
        );
        assert!(page.contains("width=\"160.0\""), "{page}");
        assert!(
            page.contains(
                ">reader:paimon-rust: not measured: unsupported: &lt;streaming&gt; scans</text>"
            ),
            "{page}"
        );
        assert!(!page.contains("second line"));
    }

    #[test]
    fn a_long_reason_is_cut_to_160_characters() {
        let long = "x".repeat(200);
        assert_eq!(first_line(&long).chars().count(), 161);
        assert_eq!(first_line("short\nmore"), "short");
    }
}
