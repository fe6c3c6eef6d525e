//! One cell of the matrix (written by A, read by B, corpus, mode) from the runs of B's replay: the native
//! reader against release B, and `stock@A` (release A's own plan and rows) against release B.

use serde::{Deserialize, Serialize};

/// What the matrix found for one (A, B, corpus, mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CellClass {
    /// Every reader returned the same splits and rows as release B (the native reader, and with A < B
    /// release A itself).
    Identical,
    /// No reader planned a split for the scan (a batch scan of a table whose files all sit in the postpone
    /// bucket): nothing to compare, and no reader disagrees.
    NothingCompared,
    /// Release B reads A's table differently from release A (`stock@A` differs from release B), while the
    /// native reader returns what release B returns: a finding about Paimon, not about the native reader.
    UpgradeFinding,
    /// The native reader does not return what release B returns: a native gap to fix.
    NativeDiffers,
    /// The native reader refuses something the table needs, by name (`unsupported` splits).
    Unsupported,
    /// A run could not compare: release B (or A) failed on the table, a reader failed, the replay did not run.
    Error,
    /// Release A's writer failed to write the scenario (`paimon-parity corpus generate --paimon-version A`
    /// failed; `detail` is its error): there is no table of A's to read, so nothing of the cell was checked.
    NotWritten,
}

impl CellClass {
    /// The word printed for the class.
    pub fn word(self) -> &'static str {
        match self {
            CellClass::Identical => "identical",
            CellClass::NothingCompared => "nothing-compared",
            CellClass::UpgradeFinding => "upgrade-finding",
            CellClass::NativeDiffers => "native-differs",
            CellClass::Unsupported => "unsupported",
            CellClass::Error => "error",
            CellClass::NotWritten => "not-written",
        }
    }

    /// Whether the cell shows a disagreement of the native reader with release B, or could not prove
    /// agreement (native differs, unsupported, error, or release A's writer failed on the scenario): such a
    /// cell makes the matrix exit 1.
    pub fn fails(self) -> bool {
        matches!(
            self,
            CellClass::NativeDiffers
                | CellClass::Unsupported
                | CellClass::Error
                | CellClass::NotWritten
        )
    }

    /// Whether the cell compared something and found the readers in agreement or an upgrade finding: the
    /// cells that are evidence of a verdict (identical, upgrade finding). A matrix without one proves nothing.
    pub fn compared(self) -> bool {
        matches!(self, CellClass::Identical | CellClass::UpgradeFinding)
    }
}

/// One run of a child replay's JSON report (`runs[]`, `harness/JSON-REPORT.md`), the fields the matrix reads.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct RunView {
    /// The table directory as given to the replay.
    #[serde(default)]
    pub table: String,
    /// `stream`, `stream-full`, `latest-full` or `batch`.
    #[serde(default)]
    pub mode: String,
    /// `native` or `stock@A`.
    #[serde(default)]
    pub reader: String,
    /// The run's verdict (`identical`, `different`, `incomplete`, `unreadable`, `nothing-compared`,
    /// `interrupted`, `error`).
    #[serde(default)]
    pub verdict: String,
    /// Split pairs compared.
    #[serde(default)]
    pub splits: usize,
    /// Per-split verdict counts.
    #[serde(default)]
    pub split_verdicts: serde_json::Value,
    /// Rows per RowKind of release B.
    #[serde(default)]
    pub stock_rows: serde_json::Value,
    /// Rows per RowKind of the compared reader.
    #[serde(default, rename(deserialize = "native_rows"))]
    pub reader_rows: serde_json::Value,
    /// The first difference in words.
    #[serde(default)]
    pub first_difference: Option<String>,
    /// The first split a reader failed on or does not support, in words.
    #[serde(default)]
    pub first_problem: Option<String>,
    /// The error that stopped the run.
    #[serde(default)]
    pub error: Option<String>,
    /// The run's one-line summary.
    #[serde(default)]
    pub summary: String,
}

/// A child replay's JSON report, the fields the matrix reads.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct ChildReport {
    /// `complete`, `error` or `interrupted`.
    #[serde(default)]
    pub status: String,
    /// The error that stopped the replay (`message`).
    #[serde(default)]
    pub error: Option<serde_json::Value>,
    /// The JDK of the child's JVM.
    #[serde(default)]
    pub jdk: Option<String>,
    /// Every run.
    #[serde(default)]
    pub runs: Vec<RunView>,
}

impl ChildReport {
    /// The error message of a report that ended in error.
    pub fn error_message(&self) -> Option<String> {
        self.error.as_ref().map(|e| {
            e.get("message")
                .and_then(|m| m.as_str())
                .map(str::to_owned)
                .unwrap_or_else(|| e.to_string())
        })
    }
}

/// The class of a cell and the sentence that says why, from the native run and (A < B) the `stock@A` run.
/// `None` runs are runs the replay never reported (it stopped before them).
pub fn classify(
    native: Option<&RunView>,
    stock_at: Option<&RunView>,
    cross: bool,
) -> (CellClass, Option<String>) {
    let Some(n) = native else {
        return (
            CellClass::Error,
            Some("the replay reported no native run".into()),
        );
    };
    let problem = |r: &RunView| {
        r.error
            .clone()
            .or_else(|| r.first_problem.clone())
            .unwrap_or_else(|| r.summary.clone())
    };
    let agreed = |r: &RunView| matches!(r.verdict.as_str(), "identical" | "nothing-compared");
    match n.verdict.as_str() {
        "different" => {
            let mut why = n
                .first_difference
                .clone()
                .unwrap_or_else(|| n.summary.clone());
            if let Some(s) = stock_at.filter(|s| s.verdict == "different") {
                why.push_str(&format!(
                    "; release A also differs from release B: {}",
                    s.first_difference.clone().unwrap_or_default()
                ));
            }
            return (CellClass::NativeDiffers, Some(why));
        }
        "incomplete" => return (CellClass::Unsupported, Some(problem(n))),
        "identical" | "nothing-compared" => {}
        _ => return (CellClass::Error, Some(problem(n))),
    }
    if !cross {
        return if n.verdict == "identical" {
            (CellClass::Identical, None)
        } else {
            (CellClass::NothingCompared, None)
        };
    }
    let Some(s) = stock_at else {
        return (
            CellClass::Error,
            Some("the replay reported no run of release A".into()),
        );
    };
    match s.verdict.as_str() {
        "different" => (
            CellClass::UpgradeFinding,
            Some(
                s.first_difference
                    .clone()
                    .unwrap_or_else(|| s.summary.clone()),
            ),
        ),
        _ if !agreed(s) => (CellClass::Error, Some(problem(s))),
        // Both agree with release B; nothing compared only when no reader planned a split.
        _ if n.verdict == "identical" || s.verdict == "identical" => (CellClass::Identical, None),
        _ => (CellClass::NothingCompared, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(verdict: &str, first: Option<&str>) -> RunView {
        RunView {
            verdict: verdict.into(),
            first_difference: first.map(str::to_owned),
            summary: format!("{} summary", verdict.to_uppercase()),
            ..RunView::default()
        }
    }

    #[test]
    fn cells_by_the_verdicts_of_their_runs() {
        let same = run("identical", None);
        let none = run("nothing-compared", None);
        let differs = run("different", Some("decoding at snapshot 2: row 0"));
        let class = |n: Option<&RunView>, s: Option<&RunView>, cross| classify(n, s, cross).0;
        assert_eq!(class(Some(&same), Some(&same), true), CellClass::Identical);
        assert_eq!(class(Some(&same), None, false), CellClass::Identical);
        assert_eq!(
            class(Some(&none), Some(&none), true),
            CellClass::NothingCompared
        );
        assert_eq!(
            class(Some(&same), Some(&differs), true),
            CellClass::UpgradeFinding
        );
        assert_eq!(
            class(Some(&differs), Some(&same), true),
            CellClass::NativeDiffers
        );
        assert_eq!(
            class(Some(&differs), Some(&differs), true),
            CellClass::NativeDiffers
        );
        assert_eq!(
            class(Some(&run("incomplete", None)), Some(&same), true),
            CellClass::Unsupported
        );
        assert_eq!(
            class(Some(&run("unreadable", None)), Some(&same), true),
            CellClass::Error
        );
        assert_eq!(
            class(Some(&same), Some(&run("incomplete", None)), true),
            CellClass::Error
        );
        assert_eq!(class(None, None, true), CellClass::Error);
        assert_eq!(class(Some(&same), None, true), CellClass::Error);
        let (_, why) = classify(Some(&same), Some(&differs), true);
        assert_eq!(why.as_deref(), Some("decoding at snapshot 2: row 0"));
        let (_, why) = classify(Some(&differs), Some(&differs), true);
        assert!(why.unwrap().contains("release A also differs"));
    }
}
