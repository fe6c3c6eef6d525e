//! The verdict of the matrix (issue 33, no verdict without evidence): its exit status and the reasons it
//! proves less than it was asked to.

use super::{CellClass, UpgradeMatrix};

impl UpgradeMatrix {
    /// The exit status, the worst that applies in the order 130, 1, 3, 0 (as `replay`'s): 130 when
    /// interrupted; 1 when a cell shows the native reader differing from a release, or could not prove
    /// agreement (`unsupported`, `error`), or release A's writer failed on a scenario (`not-written`: a failed
    /// write is a failed check of every cell that needed the table, as an `error` cell is), or, with
    /// `fail_on_findings`, when there is an upgrade finding; 3 (`EXIT_NOTHING_COMPARED`) when the matrix
    /// proves less than asked ([`Self::not_checked`]: no cell compared anything, or a release asked for is not
    /// built); 0 when at least one cell compared and agreed, and nothing else applies.
    pub fn exit_code(&self, fail_on_findings: bool) -> i32 {
        if self.interrupted {
            return crate::error::EXIT_INTERRUPTED;
        }
        let failing = self
            .cells
            .iter()
            .any(|c| c.class.fails() || (fail_on_findings && c.class == CellClass::UpgradeFinding));
        if failing {
            crate::error::EXIT_DIFFERENT
        } else if !self.not_checked().is_empty() {
            crate::error::EXIT_NOTHING_COMPARED
        } else {
            crate::error::EXIT_IDENTICAL
        }
    }

    /// Why the matrix proves less than it was asked to, one sentence each; empty when it proves what it was
    /// asked: every release asked for that is not built (with the command that builds it), and, when no cell
    /// compared anything (`identical` or `upgrade-finding`), why: no cell at all (no scenario, or none
    /// written by the releases run, naming why per release and scenario) or only `nothing-compared` cells.
    pub fn not_checked(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .not_built
            .iter()
            .map(|n| {
                format!(
                    "Paimon {} is not built, so no table it writes or reads is checked: build it with `{}`",
                    n.release, n.build
                )
            })
            .collect();
        if self.cells.iter().any(|c| c.class.compared()) {
            return out;
        }
        if self.cells.is_empty() {
            let why: Vec<String> = self
                .corpora
                .iter()
                .filter(|c| !c.written())
                .map(|c| {
                    format!(
                        "{} by {}: {}",
                        c.corpus,
                        c.release,
                        c.detail.as_deref().unwrap_or("not written")
                    )
                })
                .collect();
            out.push(if self.scenarios.is_empty() {
                "no cell: there is no scenario to write".to_owned()
            } else if self.modes.is_empty() {
                "no cell: there is no scan mode".to_owned()
            } else if why.is_empty() {
                "no cell: no pair was replayed".to_owned()
            } else {
                format!(
                    "no cell: none of the releases run ({}) writes any of the scenarios ({})",
                    self.releases.join(", "),
                    why.join("; ")
                )
            });
        } else if !self.cells.iter().any(|c| c.class.fails()) {
            out.push(format!(
                "every cell ({}) compared nothing: no reader planned a split",
                self.cells.len()
            ));
        }
        out
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::*;

    /// A matrix of releases 1.0.0 and 2.0.0, one scenario `c`, batch scans, one cell per class of `classes`.
    pub(in crate::upgrade) fn matrix(classes: &[CellClass]) -> UpgradeMatrix {
        let cell = |class| Cell {
            written_by: "1.0.0".into(),
            read_by: "2.0.0".into(),
            corpus: "c".into(),
            table: PathBuf::from("/t"),
            mode: ReplayMode::Batch,
            class,
            detail: None,
            native: None,
            stock_at: None,
            candidate_rules: Vec::new(),
            native_follows_both: None,
        };
        UpgradeMatrix {
            releases: vec!["1.0.0".into(), "2.0.0".into()],
            modes: vec![ReplayMode::Batch],
            scenarios: vec!["c".into()],
            work_dir: PathBuf::from("/w"),
            store: None,
            corpora: Vec::new(),
            pairs: Vec::new(),
            cells: classes.iter().map(|c| cell(*c)).collect(),
            wall_time_ms: 0,
            interrupted: false,
            not_built: Vec::new(),
        }
    }

    #[test]
    fn findings_exit_0_unless_asked_native_differences_and_errors_exit_1() {
        use CellClass::*;
        assert_eq!(matrix(&[Identical, NothingCompared]).exit_code(false), 0);
        assert_eq!(matrix(&[Identical, UpgradeFinding]).exit_code(false), 0);
        assert_eq!(matrix(&[Identical, UpgradeFinding]).exit_code(true), 1);
        for bad in [NativeDiffers, Unsupported, Error] {
            assert_eq!(matrix(&[Identical, bad]).exit_code(false), 1, "{bad:?}");
        }
        let mut stopped = matrix(&[Identical]);
        stopped.interrupted = true;
        assert_eq!(stopped.exit_code(false), 130);
    }

    #[test]
    fn the_page_colours_its_verdict_by_the_exit_status_and_lists_what_was_not_checked() {
        use CellClass::*;
        let page = |m: &UpgradeMatrix| crate::report::upgrade_page(m, false);
        assert!(page(&matrix(&[Identical])).contains("verdict v-ok"));
        assert!(page(&matrix(&[Identical, UpgradeFinding])).contains("verdict v-warn"));
        // Was the green box: only nothing-compared cells, or only cells whose table was never written.
        let nothing = page(&matrix(&[NothingCompared]));
        assert!(nothing.contains("verdict v-info"), "{nothing}");
        assert!(nothing.contains("<h2>Not checked (1)</h2>"), "{nothing}");
        assert!(page(&matrix(&[NotWritten])).contains("verdict v-bad"));
        let mut unbuilt = matrix(&[Identical]);
        unbuilt.not_built.push(NotBuilt {
            release: "1.4.2".into(),
            build: "scripts/build-java --paimon-version 1.4.2".into(),
        });
        let unbuilt = page(&unbuilt);
        assert!(unbuilt.contains("verdict v-info"), "{unbuilt}");
        assert!(unbuilt.contains("Paimon 1.4.2 is not built"), "{unbuilt}");
    }

    #[test]
    fn a_matrix_that_compared_nothing_exits_3_with_the_reason() {
        use CellClass::*;
        // No cell at all: the one scenario is pinned to a release that was not run.
        let mut empty = matrix(&[]);
        empty.corpora.push(CorpusSource {
            corpus: "c16".into(),
            release: "1.0.0".into(),
            origin: Origin::Pinned,
            table: None,
            detail: Some("the scenario is written by Paimon 2.0.0 only".into()),
        });
        assert_eq!(empty.exit_code(false), 3);
        let why = empty.not_checked().join("; ");
        assert!(
            why.contains("no cell")
                && why.contains("c16 by 1.0.0: the scenario is written by Paimon 2.0.0"),
            "{why}"
        );
        let mut no_scenario = matrix(&[]);
        no_scenario.scenarios.clear();
        assert_eq!(no_scenario.exit_code(false), 3);
        assert_eq!(
            no_scenario.not_checked(),
            ["no cell: there is no scenario to write"]
        );
        // Only nothing-compared cells.
        let nothing = matrix(&[NothingCompared, NothingCompared]);
        assert_eq!(nothing.exit_code(false), 3);
        assert_eq!(nothing.exit_code(true), 3);
        assert_eq!(
            nothing.not_checked(),
            ["every cell (2) compared nothing: no reader planned a split"]
        );
        // One compared cell is evidence; a failing cell is worse than nothing compared.
        assert_eq!(matrix(&[NothingCompared, Identical]).exit_code(false), 0);
        assert_eq!(
            matrix(&[NothingCompared, UpgradeFinding]).exit_code(false),
            0
        );
        assert_eq!(matrix(&[NothingCompared, Error]).exit_code(false), 1);
    }

    #[test]
    fn a_release_asked_for_and_not_built_exits_3_naming_the_build_command() {
        let mut m = matrix(&[CellClass::Identical]);
        m.not_built
            .push(NotBuilt::of(PaimonRelease::parse("1.2.0").unwrap()));
        assert_eq!(m.exit_code(false), 3);
        let why = m.not_checked();
        assert_eq!(why.len(), 1, "{why:?}");
        assert!(
            why[0].contains("Paimon 1.2.0 is not built")
                && why[0].contains("`scripts/build-java --paimon-version 1.2.0`"),
            "{why:?}"
        );
        m.cells[0].class = CellClass::NativeDiffers;
        assert_eq!(m.exit_code(false), 1, "a failure is worse than not checked");
    }

    #[test]
    fn all_names_every_release_and_the_unbuilt_ones_are_kept_not_dropped() {
        let built = built_releases();
        let Ok(releases) = parse_releases(&["all".into()]) else {
            assert!(built.is_empty(), "all fails only when nothing is built");
            return;
        };
        assert_eq!(releases.run, built);
        let mut every: Vec<PaimonRelease> = releases.run.clone();
        every.extend(releases.not_built.iter().copied());
        every.sort();
        assert_eq!(every, PaimonRelease::ALL.to_vec());
        assert!(releases.not_built.iter().all(|r| !built.contains(r)));
    }

    #[test]
    fn a_scenario_the_writer_failed_on_is_a_failing_cell_per_later_release_and_mode() {
        let failed = CorpusSource {
            corpus: "format-parquet".into(),
            release: "1.0.0".into(),
            origin: Origin::NotWritten,
            table: None,
            detail: Some(
                "`paimon-parity corpus generate --paimon-version 1.0.0` failed: boom".into(),
            ),
        };
        let cells = not_written_cells(
            "1.0.0",
            "2.0.0",
            &[&failed],
            &[ReplayMode::Stream, ReplayMode::Batch],
        );
        assert_eq!(cells.len(), 2);
        for c in &cells {
            assert_eq!(c.class, CellClass::NotWritten);
            assert_eq!(
                (c.written_by.as_str(), c.read_by.as_str()),
                ("1.0.0", "2.0.0")
            );
            assert!(
                c.detail.as_deref().unwrap().ends_with("failed: boom"),
                "{c:?}"
            );
        }
        let mut m = matrix(&[CellClass::Identical]);
        m.cells.extend(cells);
        assert_eq!(m.exit_code(false), 1);
    }
}
