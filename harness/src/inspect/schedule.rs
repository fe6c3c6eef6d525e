//! Which commits of a table are due to compact their level-0 files, modelled from the table's options.
//!
//! The COMPACT half of a commit that carries the changelog exists only when the writer compacted in that
//! commit. Paimon's streaming writers decide that as follows:
//! - `changelog-producer=lookup`: every commit waits for the lookup compaction of its level-0 files
//!   (`CoreOptions.prepareCommitWaitCompaction`, `lookup-wait` default true; `ForceUpLevel0Compaction`
//!   picks every level-0 file in the default `lookup-compact=radical` mode);
//! - `changelog-producer=full-compaction`: Flink's `GlobalFullCompactionSinkWrite` (chosen by
//!   `StoreSinkWrite.createWriteProvider`) fully compacts every bucket written since the last full compaction
//!   at the checkpoints whose identifier `FullCompactedStartingScanner.isFullCompactedIdentifier` accepts:
//!   a multiple of `full-compaction.delta-commits` (1 when unset), or `Long.MAX_VALUE` (the end of input of
//!   a bounded job, and every batch commit). Only that full compaction writes changelog
//!   (`FullChangelogMergeTreeCompactRewriter.rewriteChangelog`: output at the maximum level); the commits in
//!   between compact nothing, or compact into lower levels without changelog, and their level-0 files wait.

use std::collections::BTreeMap;

use serde::Serialize;

/// `full-compaction.delta-commits` (`CoreOptions.FULL_COMPACTION_DELTA_COMMITS`).
pub const FULL_COMPACTION_DELTA_COMMITS: &str = "full-compaction.delta-commits";
/// `changelog-producer.full-compaction.trigger-interval`
/// (`CoreOptions.CHANGELOG_PRODUCER_FULL_COMPACTION_TRIGGER_INTERVAL`).
pub const FULL_COMPACTION_TRIGGER_INTERVAL: &str =
    "changelog-producer.full-compaction.trigger-interval";
/// `lookup-wait` (`CoreOptions.LOOKUP_WAIT`, fallback key `changelog-producer.lookup-wait`).
pub const LOOKUP_WAIT: &str = "lookup-wait";
/// `lookup-compact` (`CoreOptions.LOOKUP_COMPACT`: `radical` or `gentle`).
pub const LOOKUP_COMPACT: &str = "lookup-compact";
/// `write-only` (`CoreOptions.WRITE_ONLY`, fallback key `write.compaction-skip`).
pub const WRITE_ONLY: &str = "write-only";

/// How often the table's writers compact their level-0 files into a changelog-producing compaction, as
/// the table's options say (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum CompactionSchedule {
    /// The changelog producer does not write changelog in compactions (`none`, `input`).
    NoCompactionChangelog,
    /// Every commit compacts its level-0 files in its own COMPACT half (`lookup`; `full-compaction` without
    /// `full-compaction.delta-commits`, or with 1).
    EveryCommit {
        /// What may still put the compaction into a later commit (`lookup-wait=false`: a streaming writer
        /// does not wait for it, and a later commit carries its result), in words.
        caveat: Option<String>,
    },
    /// A full compaction at every identifier that is a multiple of `delta_commits`, and at `Long.MAX_VALUE`
    /// (`full-compaction.delta-commits` above 1).
    EveryNthIdentifier {
        /// `full-compaction.delta-commits`.
        delta_commits: i64,
    },
    /// The table does not say at which commit the compaction comes (`write-only`, a dedicated compaction
    /// job; `lookup-compact=gentle`; a full-compaction trigger interval, whose number of commits depends on
    /// the checkpoint interval).
    Unknown {
        /// Why, naming the option.
        reason: String,
    },
}

/// Whether a compaction was due at one commit identifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Due {
    /// The writer compacts (and writes the changelog) in this commit.
    Yes,
    /// Not at this identifier: the level-0 files wait for the full compaction due at `next` (the next
    /// multiple of `full-compaction.delta-commits`).
    No {
        /// The next identifier at which a full compaction is due.
        next: i64,
    },
    /// The table does not say (see [`CompactionSchedule::Unknown`]).
    Unknown,
}

fn flag(options: &BTreeMap<String, String>, keys: &[&str]) -> Option<bool> {
    keys.iter()
        .find_map(|k| options.get(*k))
        .map(|v| v.trim().eq_ignore_ascii_case("true"))
}

impl CompactionSchedule {
    /// The schedule of a table with changelog producer `producer` (`none`, `input`, `lookup`,
    /// `full-compaction`) and table options `options` (as written in its schema).
    pub fn of(producer: &str, options: &BTreeMap<String, String>) -> CompactionSchedule {
        let unknown = |reason: String| CompactionSchedule::Unknown { reason };
        if producer != "lookup" && producer != "full-compaction" {
            return CompactionSchedule::NoCompactionChangelog;
        }
        if flag(options, &[WRITE_ONLY, "write.compaction-skip"]) == Some(true) {
            return unknown(format!(
                "{WRITE_ONLY}=true: the writers never compact, a dedicated compaction job does"
            ));
        }
        if producer == "lookup" {
            if options
                .get(LOOKUP_COMPACT)
                .is_some_and(|m| m.trim().eq_ignore_ascii_case("gentle"))
            {
                return unknown(format!(
                    "{LOOKUP_COMPACT}=gentle: level-0 files are forced up only every few compactions"
                ));
            }
            // `full-compaction.delta-commits` on a lookup table (refused by 2.0's schema validation, taken by
            // 1.x) adds periodic full compactions; the lookup compaction still runs in every commit.
            let caveat = (flag(options, &[LOOKUP_WAIT, "changelog-producer.lookup-wait"])
                == Some(false))
            .then(|| {
                format!(
                    "{LOOKUP_WAIT}=false: a streaming writer does not wait for the lookup compaction, and a \
                     later commit of the same job carries it; if that job still runs, the compaction may \
                     still come"
                )
            });
            return CompactionSchedule::EveryCommit { caveat };
        }
        match options
            .get(FULL_COMPACTION_DELTA_COMMITS)
            .map(|v| v.trim().parse::<i64>())
        {
            Some(Ok(n)) if n > 1 => CompactionSchedule::EveryNthIdentifier { delta_commits: n },
            Some(Ok(_)) => CompactionSchedule::EveryCommit { caveat: None },
            Some(Err(_)) => unknown(format!(
                "{FULL_COMPACTION_DELTA_COMMITS} is not a number: {:?}",
                options[FULL_COMPACTION_DELTA_COMMITS]
            )),
            None if options.contains_key(FULL_COMPACTION_TRIGGER_INTERVAL) => unknown(format!(
                "{FULL_COMPACTION_TRIGGER_INTERVAL} is set: the number of commits between full compactions \
                 depends on the checkpoint interval, which the table does not record"
            )),
            None => CompactionSchedule::EveryCommit { caveat: None },
        }
    }

    /// Whether the commit with `identifier` compacts (`FullCompactedStartingScanner.isFullCompactedIdentifier`
    /// for a full-compaction table with `full-compaction.delta-commits`).
    pub fn due(&self, identifier: i64) -> Due {
        match self {
            CompactionSchedule::NoCompactionChangelog | CompactionSchedule::Unknown { .. } => {
                Due::Unknown
            }
            CompactionSchedule::EveryCommit { .. } => Due::Yes,
            CompactionSchedule::EveryNthIdentifier { delta_commits } => {
                let n = *delta_commits;
                if identifier == i64::MAX || identifier.rem_euclid(n) == 0 {
                    Due::Yes
                } else {
                    let next = identifier
                        .div_euclid(n)
                        .checked_add(1)
                        .and_then(|q| q.checked_mul(n))
                        .unwrap_or(i64::MAX);
                    Due::No { next }
                }
            }
        }
    }

    /// In words, for the pair details: `every commit`, `every 3rd identifier (full-compaction.delta-commits = 3)`.
    pub fn words(&self) -> String {
        match self {
            CompactionSchedule::NoCompactionChangelog => "no compaction writes changelog".into(),
            CompactionSchedule::EveryCommit { caveat: None } => "every commit compacts".into(),
            CompactionSchedule::EveryCommit {
                caveat: Some(caveat),
            } => format!("every commit compacts ({caveat})"),
            CompactionSchedule::EveryNthIdentifier { delta_commits } => format!(
                "a full compaction at every identifier divisible by {delta_commits} \
                 ({FULL_COMPACTION_DELTA_COMMITS} = {delta_commits}) and at the end of input"
            ),
            CompactionSchedule::Unknown { reason } => {
                format!("compactions at no known commit: {reason}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn delta_commits_above_one_makes_only_multiples_and_the_end_of_input_due() {
        let s = CompactionSchedule::of(
            "full-compaction",
            &options(&[(FULL_COMPACTION_DELTA_COMMITS, "3")]),
        );
        assert_eq!(
            s,
            CompactionSchedule::EveryNthIdentifier { delta_commits: 3 }
        );
        assert_eq!(s.due(3), Due::Yes);
        assert_eq!(s.due(6), Due::Yes);
        assert_eq!(s.due(4), Due::No { next: 6 });
        assert_eq!(s.due(5), Due::No { next: 6 });
        assert_eq!(s.due(1), Due::No { next: 3 });
        assert_eq!(s.due(i64::MAX), Due::Yes);
        // Long.MAX_VALUE - 1 is a multiple of 3; the end of input comes after it.
        assert_eq!(s.due(i64::MAX - 1), Due::Yes);
        assert_eq!(s.due(i64::MAX - 2), Due::No { next: i64::MAX - 1 });
        let s = CompactionSchedule::EveryNthIdentifier { delta_commits: 2 };
        assert_eq!(s.due(i64::MAX - 1), Due::Yes);
        assert_eq!(s.due(i64::MAX - 2), Due::No { next: i64::MAX - 1 });
    }

    #[test]
    fn lookup_and_plain_full_compaction_compact_in_every_commit() {
        for (producer, opts) in [
            ("lookup", options(&[])),
            // 1.x takes the option on a lookup table; the lookup compaction still runs every commit.
            ("lookup", options(&[(FULL_COMPACTION_DELTA_COMMITS, "5")])),
            ("full-compaction", options(&[])),
            (
                "full-compaction",
                options(&[(FULL_COMPACTION_DELTA_COMMITS, "1")]),
            ),
        ] {
            let s = CompactionSchedule::of(producer, &opts);
            assert_eq!(
                s,
                CompactionSchedule::EveryCommit { caveat: None },
                "{producer} {opts:?}"
            );
            assert_eq!(s.due(7), Due::Yes);
        }
        // lookup-wait=false: still due at every commit (the writer asks for it), with the caveat said.
        for key in [LOOKUP_WAIT, "changelog-producer.lookup-wait"] {
            let s = CompactionSchedule::of("lookup", &options(&[(key, "false")]));
            assert_eq!(s.due(7), Due::Yes);
            assert!(s.words().contains("lookup-wait=false"), "{}", s.words());
        }
    }

    #[test]
    fn options_that_hide_the_schedule_make_it_unknown() {
        for (producer, opts) in [
            ("lookup", options(&[(LOOKUP_COMPACT, "gentle")])),
            ("full-compaction", options(&[(WRITE_ONLY, "true")])),
            ("lookup", options(&[("write.compaction-skip", "true")])),
            (
                "full-compaction",
                options(&[(FULL_COMPACTION_TRIGGER_INTERVAL, "5 min")]),
            ),
            (
                "full-compaction",
                options(&[(FULL_COMPACTION_DELTA_COMMITS, "x")]),
            ),
        ] {
            let s = CompactionSchedule::of(producer, &opts);
            assert!(
                matches!(s, CompactionSchedule::Unknown { .. }),
                "{producer} {opts:?}: {s:?}"
            );
            assert_eq!(s.due(3), Due::Unknown);
        }
        assert_eq!(
            CompactionSchedule::of("input", &options(&[])),
            CompactionSchedule::NoCompactionChangelog
        );
    }
}
