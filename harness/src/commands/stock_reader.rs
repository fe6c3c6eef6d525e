//! `paimon-parity stock-reader --paimon-version V [--candidate NAME] [describe | record ...]` (hidden): the
//! released reader of Paimon `V` as the external reader `stock@V` ([`crate::external::stock_at`]), or
//! candidate `NAME` (based on V) as `candidate@NAME`.

use std::io::Write;

use super::stdout_err;
use crate::cli::{ModeArg, StockReaderAction, StockReaderArgs};
use crate::error::{Error, Result};
use crate::external::stock_at::{self, StockCache};

/// Answers the request on stdin (exit 0 once it is answered, whatever the splits' statuses), prints the
/// description, or records scans into the cache (exit 0 when every scan was recorded, 1 otherwise).
///
/// Errors (exit 2): the release is not built, `PAIMON_PARITY_CLASSPATH` is set (the class path would decide
/// the release instead of `--paimon-version`), the request is not the protocol's, the table cannot be
/// planned.
pub(super) fn run(args: StockReaderArgs) -> Result<i32> {
    let version = args.paimon_version.trim().to_owned();
    if let Some(name) = &args.candidate {
        // Before `describe`: the description names the candidate. Only reads its candidate.json.
        let c = jvm_bridge::jvm::select_candidate(name).map_err(super::usage)?;
        if c.based_on != version {
            return Err(Error::Usage(format!(
                "candidate@{name} is based on Paimon {}, not {version}",
                c.based_on
            )));
        }
    }
    if let Some(StockReaderAction::Describe) = args.action {
        let d = stock_at::describe(&version);
        let text = serde_json::to_string(&d).unwrap_or_default();
        writeln!(std::io::stdout(), "{text}").map_err(stdout_err)?;
        return Ok(0);
    }
    stock_at::check_built(&version)?;
    if std::env::var_os(jvm_bridge::jvm::CLASSPATH_ENV).is_some_and(|v| !v.is_empty()) {
        return Err(Error::Usage(format!(
            "stock@{version}: {} is set, so the class path, not --paimon-version, would pick the release; \
             unset it",
            jvm_bridge::jvm::CLASSPATH_ENV
        )));
    }
    if args.candidate.is_none() {
        jvm_bridge::jvm::select_paimon_version(&version)?;
    }
    match args.action {
        Some(StockReaderAction::Record {
            tables,
            mode,
            cache,
        }) => {
            let cache = cache
                .map(StockCache::new)
                .or_else(StockCache::from_env)
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "record needs a cache: --cache DIR or {}",
                        stock_at::CACHE_ENV
                    ))
                })?;
            let modes = ModeArg::expand(&mode);
            let recorded = stock_at::record(&version, &tables, &modes, &cache)?;
            let mut out = std::io::stdout().lock();
            let mut failed = 0;
            for r in &recorded {
                let what = match (&r.error, r.cached) {
                    (Some(e), _) => {
                        failed += 1;
                        format!("not recorded: {e}")
                    }
                    (None, true) => format!("{} splits (cached before)", r.splits),
                    (None, false) => format!("{} splits", r.splits),
                };
                writeln!(
                    out,
                    "stock@{version} {} {}: {what}",
                    r.table.display(),
                    r.mode.name()
                )
                .map_err(stdout_err)?;
            }
            Ok(if failed > 0 { 1 } else { 0 })
        }
        Some(StockReaderAction::Describe) => Ok(0),
        None => {
            let cache = StockCache::from_env();
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            stock_at::serve(
                &version,
                &mut std::io::stdin().lock(),
                &mut out,
                cache.as_ref(),
            )?;
            Ok(0)
        }
    }
}
