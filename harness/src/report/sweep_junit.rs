//! The sweep as JUnit XML: a test suite per fault mode (and per recovery sweep), a test case per point, failing when the point's class
//! is not a success class.

use std::fmt::Write;

use super::junit::xml;
use crate::sweep::{Point, SweepReport};

/// The JUnit XML of `r`.
pub fn junit_xml(r: &SweepReport) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let every = || {
        r.points
            .iter()
            .chain(r.recovery.iter().flat_map(|s| s.points.iter()))
    };
    let failures = every().filter(|p| p.class.fails()).count();
    let _ = writeln!(
        out,
        "<testsuites name=\"paimon-parity sweep\" tests=\"{}\" failures=\"{failures}\" errors=\"0\">",
        every().count()
    );
    let mut suites: Vec<(String, Vec<&Point>)> = Vec::new();
    let mut modes: Vec<_> = r.points.iter().map(|p| p.mode).collect();
    modes.dedup();
    for mode in modes {
        suites.push((
            format!(
                "{} commit {} {}",
                r.scenario,
                r.swept.identifier,
                mode.name()
            ),
            r.points.iter().filter(|p| p.mode == mode).collect(),
        ));
    }
    for rs in &r.recovery {
        suites.push((
            format!("{} recovery after {}", r.scenario, rs.commit_fault),
            rs.points.iter().collect(),
        ));
    }
    for (name, points) in suites {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{} ({})\" tests=\"{}\" failures=\"{}\">",
            xml(&name),
            xml(&r.paimon.label),
            points.len(),
            points.iter().filter(|p| p.class.fails()).count()
        );
        for p in points {
            let _ = write!(
                out,
                "    <testcase classname=\"{}.{}\" name=\"op {:03} {} {}\" time=\"{:.3}\"",
                xml(&r.scenario),
                p.mode.name(),
                p.op_index,
                xml(&p.op),
                xml(&p.path),
                p.millis as f64 / 1000.0
            );
            if p.class.fails() {
                let detail: Vec<String> = p
                    .findings
                    .iter()
                    .map(|f| format!("{}: {}", f.class.name(), f.detail))
                    .collect();
                let _ = writeln!(
                    out,
                    ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>",
                    xml(p.class.name()),
                    xml(&detail.join("\n"))
                );
            } else {
                let _ = writeln!(
                    out,
                    "><system-out>{}</system-out></testcase>",
                    xml(p.class.name())
                );
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
