//! `paimon-parity sweep`: the crash-point sweep of one commit of a scenario ([`crate::sweep`]); the windows as
//! text, the points as JSON (`sweep` in the report envelope), HTML and JUnit.

use serde::Serialize;

use super::stdout_err;
use crate::cli::{SweepArgs, SweepFault, SweepRecovery};
use crate::error::{Error, Result};
use crate::report::{
    check_html_target, check_json_target, sweep_page, text_output, write_html, write_json,
    JsonReport,
};
use crate::sweep::{sweep, FaultMode, RecoveryStrategy, SweepOptions, SweepReport};

/// The JSON report of a sweep: the common envelope with `command: "sweep"` and the sweep.
#[derive(Serialize)]
struct SweepJson<'a> {
    #[serde(flatten)]
    envelope: JsonReport<'a>,
    /// The sweep; `None` when the command stopped before it (see `error`).
    sweep: Option<&'a SweepReport>,
}

/// Runs the sweep and writes its reports; exit 0 clean, 1 findings, 2 when it cannot run.
///
/// Errors (exit 2): see [`crate::sweep::sweep`]; a report path that cannot be written; a bad `--ops` list.
pub(super) fn run(args: SweepArgs) -> Result<i32> {
    if args.compare {
        return super::sweep_compare::run(args);
    }
    check_json_target(args.json.as_deref())?;
    check_json_target(args.junit.as_deref())?;
    check_html_target(args.html.as_deref())?;
    if let Some(name) = &args.candidate {
        super::select_candidate(name, args.paimon_version.as_deref())?;
    } else if let Some(v) = &args.paimon_version {
        jvm_bridge::jvm::select_paimon_version(v)?;
    }
    let options_json = serde_json::to_value(&args).unwrap_or_default();
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(usize::from)
            .unwrap_or(1)
    });
    let outcome = options(&args, threads).and_then(|o| {
        crate::replay::stop_on_interrupt();
        let r = sweep(&o);
        crate::sweep::remove_work(&o.work);
        r
    });
    if let Some(path) = &args.json {
        let code = match &outcome {
            Ok(r) => Ok(r.exit_code()),
            Err(e) => Err(e),
        };
        let report = SweepJson {
            envelope: JsonReport::new("sweep", options_json, code),
            sweep: outcome.as_ref().ok(),
        };
        write_json(path, &report)?;
    }
    let r = outcome?;
    let mut out = text_output(args.json.as_deref());
    crate::sweep::text::write_text(&mut out, &r, threads, args.quiet).map_err(stdout_err)?;
    if let Some(path) = &args.html {
        write_html(path, &sweep_page(&r))?;
    }
    if let Some(path) = &args.junit {
        std::fs::write(path, crate::report::sweep_junit_xml(&r)).map_err(|e| Error::Io {
            path: path.clone(),
            source: e,
        })?;
    }
    Ok(r.exit_code())
}

fn options(args: &SweepArgs, threads: usize) -> Result<SweepOptions> {
    let scenario_file =
        crate::corpus::resolve_scenario(&args.scenario).map_err(|e| Error::Usage(e.to_string()))?;
    let ops = args.ops.as_deref().map(parse_ops).transpose()?;
    let recovery_ops = args.recovery_ops.as_deref().map(parse_ops).transpose()?;
    let modes_of = |faults: &[SweepFault]| {
        let mut modes = Vec::new();
        for f in faults {
            let m = match f {
                SweepFault::Crash => FaultMode::Crash,
                SweepFault::Fail => FaultMode::Fail,
                SweepFault::FailAfter => FaultMode::FailAfter,
            };
            if !modes.contains(&m) {
                modes.push(m);
            }
        }
        modes
    };
    let modes = modes_of(&args.fault);
    let recovery_faults = modes_of(&args.recovery_fault);
    let base = match &args.work {
        Some(location) => crate::location::table_location(location)?,
        None => std::env::temp_dir(),
    };
    let work = base.join(format!("paimon-parity-sweep-{}", std::process::id()));
    Ok(SweepOptions {
        scenario_file,
        modes,
        commit: args.commit,
        writer: args.writer.clone(),
        recoveries: usize::try_from(args.recovery_attempts).unwrap_or(usize::MAX),
        recovery_faults,
        recovery_ops,
        ops,
        keep: args.keep.clone(),
        work,
        threads,
        parity: !args.no_parity,
        strategy: match args.recovery {
            SweepRecovery::Stock => RecoveryStrategy::Stock,
            SweepRecovery::PairAware => RecoveryStrategy::PairAware,
        },
        progress: true,
    })
}

/// `1-10,24,60` as the operation indices it names, in order.
fn parse_ops(list: &str) -> Result<Vec<usize>> {
    let bad = |part: &str| {
        Error::Usage(format!(
            "--ops {list}: `{part}` is not an operation index or a range like 20-30 (indices start at 1)"
        ))
    };
    let mut out = Vec::new();
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let a: usize = a.trim().parse().map_err(|_| bad(part))?;
        let b: usize = b.trim().parse().map_err(|_| bad(part))?;
        if a == 0 || b < a {
            return Err(bad(part));
        }
        out.extend(a..=b);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::parse_ops;

    #[test]
    fn ops_lists_take_indices_and_ranges() {
        assert_eq!(parse_ops("1-3,24, 2,60").unwrap(), [1, 2, 3, 24, 60]);
        for bad in ["0", "5-3", "a", "1-b"] {
            let e = parse_ops(bad).unwrap_err().to_string();
            assert!(e.contains(&format!("`{bad}`")), "{e}");
        }
    }
}
