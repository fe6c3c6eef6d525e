//! `paimon-parity corpus list|generate`.

use std::io::Write;

use super::stdout_err;
use crate::cli::CorpusCommand;
use crate::error::Result;

/// Lists the committed scenarios, or generates one; exit status 0.
pub(super) fn run(command: CorpusCommand) -> Result<i32> {
    match command {
        CorpusCommand::List => {
            let mut out = std::io::stdout().lock();
            for file in crate::corpus::scenario_files(&crate::corpus::corpora_dir())? {
                let s = crate::corpus::load_scenario(&file)?;
                writeln!(out, "{}: {}", s.name, s.description).map_err(stdout_err)?;
            }
            Ok(0)
        }
        CorpusCommand::Generate {
            scenario,
            out,
            paimon_version,
            replace,
        } => {
            if let Some(v) = &paimon_version {
                jvm_bridge::jvm::select_paimon_version(v)?;
            }
            let file = crate::corpus::resolve_scenario(&scenario)?;
            let out = crate::location::table_location(&out)?;
            if replace {
                crate::corpus::remove_generated(&out)?;
            }
            let case = crate::corpus::generate(&file, &out)?;
            writeln!(std::io::stdout(), "wrote {}", case.display()).map_err(stdout_err)?;
            Ok(0)
        }
    }
}
