//! `stock@V`: the released Java reader of Paimon release `V` as an external reader of
//! `paimon-parity-reader/1` (`adapters/README.md`), so that a replay running release `B` can diff, split by
//! split and row by row, what release `V` returns from the same table (`replay --paimon-version B --reader
//! stock@V`; the upgrade matrix, [`crate::upgrade`]).
//!
//! One process runs one released Paimon (one JVM, one class path), so `stock@V` is a child process: this
//! binary's hidden subcommand `paimon-parity stock-reader --paimon-version V` ([`spec`]), whose JVM loads
//! release `V` (`jvm-bridge/java/target/paimon-V`) and drives it through the bridge's `StockReader` exactly as
//! the stock side of a replay does (`jvm_bridge::StockReader`: `DataTableStreamScan`, `DataTableBatchScan`,
//! `TableRead`, paimon-arrow). It always **plans by itself** (`action: plan`, with release `V`'s planner):
//! release `V` cannot necessarily decode the split bytes another release wrote, and the point is to compare
//! what each release plans too. Its `java_split` is the bridge's own Java serialization of the `DataSplit`
//! (format [`PAYLOAD_FORMAT`]), which it gets back in the `read` request and hands to release `V` unchanged.
//!
//! JVM starts are the cost (seconds each): without a cache a replay run starts two (the `plan` request, then
//! the `read` request). With a cache directory ([`CACHE_ENV`], or `stock-reader record`), a `plan` also reads
//! every split it planned and keeps plan and rows on disk ([`StockCache`]), so the `read` request that follows
//! is answered without a JVM; `stock-reader record` fills the cache for many tables and scans in one JVM.

mod answer;
mod cache;
mod serve;

use std::path::{Path, PathBuf};

pub use cache::{StockCache, CACHE_ENV};
pub use serve::{describe, record, serve, RecordedScan};

use super::ReaderSpec;
use crate::error::{Error, Result};

/// The prefix of the reader name: `stock@1.0.0` is the released reader of Paimon 1.0.0.
pub const PREFIX: &str = "stock@";

/// The prefix of a candidate's reader name: `candidate@fix` is candidate `fix` (`scripts/build-java
/// --candidate fix --based-on V`), answered like `stock@V` by a child process whose JVM runs the candidate.
pub const CANDIDATE_PREFIX: &str = "candidate@";

/// The candidate a reader name `candidate@NAME` names (`NAME`), or `None` for any other name.
pub fn candidate_of(name: &str) -> Option<&str> {
    name.trim().strip_prefix(CANDIDATE_PREFIX)
}

/// The reader spec of `candidate@<name>`: this binary's `stock-reader --paimon-version V --candidate NAME`,
/// V being the release the candidate is based on. The candidate is one more reader diffed against the
/// release, never the reference.
///
/// Errors: [`Error::Usage`] when the candidate is not built (naming the built ones and the build command).
pub fn candidate_spec(name: &str) -> Result<ReaderSpec> {
    let candidate = jvm_bridge::Candidate::load(name)
        .map_err(|e| Error::Usage(format!("{CANDIDATE_PREFIX}{name}: {e}")))?;
    check_built(&candidate.based_on)?;
    Ok(ReaderSpec {
        name: format!("{CANDIDATE_PREFIX}{name}"),
        command: vec![
            paimon_parity_exe().display().to_string(),
            "stock-reader".into(),
            "--paimon-version".into(),
            candidate.based_on.clone(),
            "--candidate".into(),
            name.to_owned(),
        ],
        setup: Some(format!(
            "scripts/build-java --candidate {name} --based-on {} --patch FILE",
            candidate.based_on
        )),
    })
}

/// The `java_split.format` of the splits `stock@V` plans: the bridge's `java.io` serialization of the
/// released `DataSplit` (`jvm_bridge::StockSplit::payload`), base64; only the release that planned the split
/// reads it back.
pub const PAYLOAD_FORMAT: &str = "paimon-parity-stock-payload";

/// The release a reader name `stock@V` names (`V`), or `None` for any other name.
pub fn release_of(name: &str) -> Option<&str> {
    name.trim().strip_prefix(PREFIX)
}

/// The reader spec of `stock@<version>`: this binary's `stock-reader --paimon-version <version>`
/// ([`paimon_parity_exe`]).
///
/// Errors: [`Error::Usage`] when the native reader does not know the release (`native_reader::PaimonRelease`),
/// or when its Java side is not built (`jvm-bridge/java/target/paimon-<version>`), naming the releases that
/// are, and how to build it.
pub fn spec(version: &str) -> Result<ReaderSpec> {
    check_built(version)?;
    let exe = paimon_parity_exe();
    Ok(ReaderSpec {
        name: format!("{PREFIX}{version}"),
        command: vec![
            exe.display().to_string(),
            "stock-reader".into(),
            "--paimon-version".into(),
            version.to_owned(),
        ],
        setup: Some(format!("scripts/build-java --paimon-version {version}")),
    })
}

/// Checks that `version` is a release of `native_reader::PaimonRelease` whose Java side is built.
///
/// Errors: [`Error::Usage`] naming the release, the built ones and `scripts/build-java`.
pub fn check_built(version: &str) -> Result<()> {
    native_reader::PaimonRelease::parse(version)
        .map_err(|e| Error::Usage(format!("{PREFIX}{version}: {e}")))?;
    let (target, built) = jvm_bridge::jvm::built_versions();
    if built.iter().any(|b| b == version) {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "{PREFIX}{version}: the Java side of Paimon {version} is not built in {} (built: {}); build it \
         with `scripts/build-java --paimon-version {version}`",
        target.display(),
        if built.is_empty() {
            "none".to_owned()
        } else {
            built.join(", ")
        }
    )))
}

/// The `paimon-parity` binary: the running one, or, from a test binary (`target/<profile>/deps/…`), the one
/// built beside it (`target/<profile>/paimon-parity`).
pub fn paimon_parity_exe() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    if exe.file_stem().is_some_and(|s| s == "paimon-parity") {
        return exe;
    }
    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    let here = dir.join("paimon-parity");
    if here.exists() {
        return here;
    }
    dir.parent()
        .map(|p| p.join("paimon-parity"))
        .unwrap_or(here)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_stock_readers() {
        assert_eq!(release_of("stock@1.0.0"), Some("1.0.0"));
        assert_eq!(release_of(" stock@2.0.0"), Some("2.0.0"));
        assert_eq!(release_of("native"), None);
        assert_eq!(release_of("stock"), None);
        assert_eq!(candidate_of("candidate@fix-1"), Some("fix-1"));
        assert_eq!(candidate_of("stock@1.0.0"), None);
    }

    #[test]
    fn an_unknown_release_is_a_usage_error_naming_it() {
        let e = spec("1.3.0").unwrap_err();
        assert!(matches!(e, Error::Usage(_)), "{e}");
        assert!(e.to_string().contains("stock@1.3.0"), "{e}");
        let e = candidate_spec("no-such-candidate").unwrap_err();
        assert!(matches!(e, Error::Usage(_)), "{e}");
        assert!(
            e.to_string()
                .contains("scripts/build-java --candidate no-such-candidate"),
            "{e}"
        );
    }
}
