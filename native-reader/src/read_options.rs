//! Table options the released reader honours when it plans or reads, and this reader does not implement.
//!
//! Every option a release reads at plan or read time either changes nothing the reader returns (file index,
//! batch size, manifest parallelism, lookup caches, Flink-only options), or is implemented here the way that
//! release does it (merge engines and their options, `sequence.field`, `ignore-delete`, changelog producers,
//! `streaming-read-overwrite`, deletion vectors, `scan.plan-sort-partition` is refused at plan time), or is
//! listed in [`UNSUPPORTED_READ_OPTIONS`] and refused by name ([`crate::Table::check_read_options`]), so that
//! a table setting one is an [`crate::Error::Unsupported`] rather than other rows than the release returns.
//! Options a release does not know are ignored by its reader and are not listed for it.

use crate::line::PaimonRelease;
use crate::line::PaimonRelease::{V1_0_0, V1_4_2, V2_0_0};

/// When a table option's value makes it unsupported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Whatever its value.
    Always,
    /// Unless its value is one of these (ASCII case ignored): the values whose behaviour this reader has.
    Unless(&'static [&'static str]),
}

/// One option the released reader of some releases honours and this reader does not implement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsupportedOption {
    /// The option key.
    pub pattern: &'static str,
    /// The releases whose released reader applies it.
    pub releases: Releases,
    /// Which values are refused.
    pub refused: Refused,
    /// What the release does with it, and where (the Java class).
    pub release: &'static str,
}

/// A contiguous range of releases, `first..=last` (an option appears in one release and, at most, is
/// removed in a later one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Releases {
    /// The first release whose reader applies the option.
    pub first: PaimonRelease,
    /// The last one.
    pub last: PaimonRelease,
}

impl Releases {
    /// Whether `release` is in the range.
    pub fn contains(self, release: PaimonRelease) -> bool {
        (self.first..=self.last).contains(&release)
    }
}

/// Every supported release.
const EVERY: Releases = since(V1_0_0);

/// `first` and every later release.
const fn since(first: PaimonRelease) -> Releases {
    Releases {
        first,
        last: V2_0_0,
    }
}

const fn option(
    pattern: &'static str,
    releases: Releases,
    refused: Refused,
    release: &'static str,
) -> UnsupportedOption {
    UnsupportedOption {
        pattern,
        releases,
        refused,
        release,
    }
}

/// The values of a table's own `scan.mode` (and its fallback key `log.scan`) whose batch scan this reader
/// plans (`scan::own_start`): every startup mode (`from-creation-timestamp`, from 1.2.0, fails on earlier
/// releases as their option parser does; `incremental` reads `incremental-between` of two snapshot ids
/// and `incremental-between-timestamp`).
const STARTUP_MODES_READ: &[&str] = &[
    "default",
    "latest",
    "latest-full",
    "full",
    "compacted-full",
    "from-timestamp",
    "from-snapshot",
    "from-snapshot-full",
    "from-file-creation-time",
    "from-creation-timestamp",
    "incremental",
];

/// The table options refused on read, per release (surveyed from the 1.0.0 and 2.0.0 release sources:
/// `CoreOptions` and where each option is read at plan or read time; the first release of each option
/// from `shared/docs/paimon-1.x-lines.md` §2).
pub const UNSUPPORTED_READ_OPTIONS: &[UnsupportedOption] = &[
    option(
        "scan.version",
        EVERY,
        Refused::Always,
        "time travel the table's load does not resolve here: no tag, snapshot or reached watermark of this \
         name, beside another start option or a scan.mode, on a fallback or primary branch, or to another \
         schema's columns (travelToVersion, TimeTravelUtil#adaptScanVersion)",
    ),
    option(
        "scan.mode",
        EVERY,
        Refused::Unless(STARTUP_MODES_READ),
        "no startup mode the release knows (CoreOptions.StartupMode)",
    ),
    option(
        "log.scan",
        EVERY,
        Refused::Unless(STARTUP_MODES_READ),
        "the fallback key of scan.mode: no startup mode the release knows (CoreOptions.StartupMode)",
    ),
    option(
        "chain-table.enabled",
        since(V1_4_2),
        Refused::Unless(&["false"]),
        "the table is read as a chain of snapshot and delta branches (ChainGroupReadTable)",
    ),
    option(
        "key-value.sequence_number.enabled",
        since(V1_4_2),
        Refused::Unless(&["false"]),
        "primary-key rows come back with _SEQUENCE_NUMBER in front (KeyValueTableRead)",
    ),
];

impl UnsupportedOption {
    /// Whether option `key=value` of a table read as `release` is refused by this entry.
    pub fn refuses(&self, release: PaimonRelease, key: &str, value: &str) -> bool {
        self.releases.contains(release)
            && key == self.pattern
            && match self.refused {
                Refused::Always => true,
                Refused::Unless(values) => {
                    !values.iter().any(|v| v.eq_ignore_ascii_case(value.trim()))
                }
            }
    }
}

/// The entry of [`UNSUPPORTED_READ_OPTIONS`] that refuses `key=value` on `release`, if any.
pub fn refusal(
    release: PaimonRelease,
    key: &str,
    value: &str,
) -> Option<&'static UnsupportedOption> {
    UNSUPPORTED_READ_OPTIONS
        .iter()
        .find(|o| o.refuses(release, key, value))
}
