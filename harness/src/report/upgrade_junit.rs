//! `upgrade-matrix --junit FILE`: one `<testsuite>` per pair (`written by A, read by B`), one `<testcase>` per
//! corpus and scan. A native difference, an unsupported cell, an error or a `not-written` cell (release A's
//! writer failed on the scenario; the message is its error) is a `<failure>`; an upgrade finding passes with
//! the finding in `<system-out>` (a finding about Paimon), or fails with `--fail-on-findings`. A release asked
//! for that is not built is a `<skipped>` test case of the suite `not built`, naming the command that builds
//! it; a matrix that compared nothing is a `<failure>` test case of the suite `evidence`, with the reason.

use std::fmt::Write as _;

use super::junit::xml;
use crate::upgrade::{Cell, CellClass, UpgradeMatrix};

/// The matrix as JUnit XML.
pub fn junit_xml(m: &UpgradeMatrix, fail_on_findings: bool) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"paimon-parity upgrade-matrix\">\n");
    for p in &m.pairs {
        let cells: Vec<_> = m
            .cells
            .iter()
            .filter(|c| c.written_by == p.written_by && c.read_by == p.read_by)
            .collect();
        let fails = |c: &Cell| {
            c.class.fails() || (fail_on_findings && c.class == CellClass::UpgradeFinding)
        };
        let failures = cells.iter().filter(|c| fails(c)).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"written by {} read by {}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" \
             time=\"{:.3}\">",
            xml(&p.written_by),
            xml(&p.read_by),
            cells.len(),
            p.wall_time_ms as f64 / 1000.0
        );
        for c in &cells {
            let _ = write!(
                out,
                "    <testcase classname=\"upgrade.{}-to-{}\" name=\"{} {}\"",
                xml(&c.written_by),
                xml(&c.read_by),
                xml(&c.corpus),
                c.mode.name()
            );
            let detail = xml(c.detail.as_deref().unwrap_or_default());
            if fails(c) {
                let _ = writeln!(
                    out,
                    ">\n      <failure message=\"{}\">{detail}</failure>\n    </testcase>",
                    c.class.word()
                );
            } else if c.class == CellClass::UpgradeFinding {
                let _ = writeln!(
                    out,
                    ">\n      <system-out>upgrade finding: {detail}</system-out>\n    </testcase>"
                );
            } else {
                out.push_str("/>\n");
            }
        }
        out.push_str("  </testsuite>\n");
    }
    if !m.not_built.is_empty() {
        let _ = writeln!(
            out,
            "  <testsuite name=\"not built\" tests=\"{}\" failures=\"0\" errors=\"0\" skipped=\"{}\">",
            m.not_built.len(),
            m.not_built.len()
        );
        for n in &m.not_built {
            let _ = writeln!(
                out,
                "    <testcase classname=\"upgrade.not-built\" name=\"Paimon {}\">\n      <skipped message=\"not \
                 built: {}\"/>\n    </testcase>",
                xml(&n.release),
                xml(&n.build)
            );
        }
        out.push_str("  </testsuite>\n");
    }
    if !m.interrupted
        && !m
            .cells
            .iter()
            .any(|c| c.class.compared() || c.class.fails())
    {
        let why = m.not_checked().join("; ");
        let _ = writeln!(
            out,
            "  <testsuite name=\"evidence\" tests=\"1\" failures=\"1\" errors=\"0\">\n    <testcase \
             classname=\"upgrade.evidence\" name=\"at least one cell compared\">\n      <failure \
             message=\"nothing-compared\">{}</failure>\n    </testcase>\n  </testsuite>",
            xml(&why)
        );
    }
    out.push_str("</testsuites>\n");
    out
}
