//! `paimon-parity corpus list|generate`.

use crate::cli::CorpusCommand;
use crate::error::Result;

/// Lists the committed scenarios, or generates one; exit status 0.
pub(super) fn run(command: CorpusCommand) -> Result<i32> {
    match command {
        CorpusCommand::List => {
            for file in crate::corpus::scenario_files(&crate::corpus::corpora_dir())? {
                let s = crate::corpus::load_scenario(&file)?;
                println!("{}: {}", s.name, s.description);
            }
            Ok(0)
        }
        CorpusCommand::Generate {
            scenario,
            out,
            paimon_version,
        } => {
            if let Some(v) = &paimon_version {
                jvm_bridge::jvm::select_paimon_version(v)?;
            }
            let file = crate::corpus::resolve_scenario(&scenario)?;
            let case = crate::corpus::generate(&file, &out)?;
            println!("wrote {}", case.display());
            Ok(0)
        }
    }
}
