//! Which commit of a scenario the sweep faults, and the scenario it runs: the scenario's own faults left out.

use crate::corpus::{Scenario, Step};
use crate::error::{Error, Result};

/// The commit the sweep faults.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SweptCommit {
    /// Its index in the (prepared) scenario's steps.
    pub step: usize,
    /// Its commit user.
    pub user: String,
    /// Its commit identifier.
    pub identifier: i64,
}

/// `scenario` without its own faults, and the commit to sweep: the last `commit` step with `identifier` (of
/// `writer`, when given, else of any), or the scenario's last commit (of `writer`). Returns what was left out, in words.
///
/// The scenario's own fault is an `arm-fault` step, the `expect_error` of the next commit (which that fault
/// fails) and the next `recover` step of that commit's user: all three are removed, since the sweep puts its
/// own fault in their place and recovers by itself.
///
/// Errors: [`Error::Scenario`] when the scenario has no such commit.
pub fn prepare(
    scenario: &Scenario,
    identifier: Option<i64>,
    writer: Option<&str>,
) -> Result<(Scenario, SweptCommit, Vec<String>)> {
    let mut out = scenario.clone();
    let mut left_out = Vec::new();
    let mut steps = Vec::with_capacity(out.steps.len());
    let mut armed: Option<String> = None;
    let mut recover_of: Option<String> = None;
    for step in std::mem::take(&mut out.steps) {
        match step {
            Step::ArmFault { fault } => {
                left_out.push(format!("the scenario's fault `{}`", fault.name()));
                armed = Some(fault.name().to_owned());
            }
            Step::Commit {
                user,
                identifier,
                wait_compaction,
                expect_error,
                expect_compact_changelog,
                filter_and_commit,
                expect_committed,
                watermark,
            } => {
                let expect_error = match (armed.take(), expect_error) {
                    (Some(fault), Some(text)) => {
                        left_out.push(format!(
                            "the failure `{text}` it expects of commit {identifier} of user `{user}` ({fault})"
                        ));
                        recover_of = Some(user.clone());
                        None
                    }
                    (_, e) => e,
                };
                steps.push(Step::Commit {
                    user,
                    identifier,
                    wait_compaction,
                    expect_error,
                    expect_compact_changelog,
                    filter_and_commit,
                    expect_committed,
                    watermark,
                });
            }
            Step::Recover { user, .. } if recover_of.as_deref() == Some(user.as_str()) => {
                left_out.push(format!("its recovery of user `{user}`"));
                recover_of = None;
            }
            other => steps.push(other),
        }
    }
    out.steps = steps;
    let swept = out
        .steps
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, s)| match s {
            Step::Commit {
                user,
                identifier: id,
                ..
            } if identifier.is_none_or(|want| want == *id)
                && writer.is_none_or(|w| w == user.as_str()) =>
            {
                Some(SweptCommit {
                    step: i,
                    user: user.clone(),
                    identifier: *id,
                })
            }
            _ => None,
        })
        .ok_or_else(|| {
            let of = writer
                .map(|w| format!(" of writer `{w}`"))
                .unwrap_or_default();
            Error::Scenario(match identifier {
                Some(id) => format!(
                    "scenario `{}` has no commit with identifier {id}{of}",
                    scenario.name
                ),
                None => format!("scenario `{}` has no commit step{of}", scenario.name),
            })
        })?;
    Ok((out, swept, left_out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(name: &str) -> Scenario {
        let path = crate::corpus::corpora_dir()
            .join(name)
            .join("scenario.json");
        crate::corpus::load_scenario(&path).unwrap()
    }

    /// The C00 fault scenario's own fault (arm, expected failure, recovery) is left out and said so.
    #[test]
    fn a_scenarios_own_fault_is_left_out() {
        let (s, swept, left_out) = prepare(&scenario("c00-lookup-fault"), None, None).unwrap();
        assert_eq!(swept.identifier, 2);
        assert_eq!(left_out.len(), 3, "{left_out:?}");
        assert!(left_out[0].contains("manifest-read-after-snapshot"));
        assert!(!s
            .steps
            .iter()
            .any(|st| matches!(st, Step::ArmFault { .. } | Step::Recover { .. })));
        assert!(matches!(
            &s.steps[swept.step],
            Step::Commit {
                expect_error: None,
                identifier: 2,
                ..
            }
        ));
    }

    #[test]
    fn the_commit_is_chosen_by_identifier() {
        let (_, swept, left_out) = prepare(&scenario("c00-lookup-control"), Some(1), None).unwrap();
        assert_eq!((swept.identifier, swept.step), (1, 2));
        assert!(left_out.is_empty());
        let e = prepare(&scenario("c00-lookup-control"), Some(7), None).unwrap_err();
        assert!(e.to_string().contains("no commit with identifier 7"), "{e}");
    }
}
