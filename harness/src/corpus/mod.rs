//! `paimon-parity corpus`: writes retained tables with the **released** Paimon writer (through `jvm-bridge`'s
//! `CorpusWriter`) from declarative scenario files, and records what the released reader returns in
//! `case.json`.
//!
//! A scenario (`corpora/<name>/scenario.json`, format in `corpora/README.md`) names a table (columns, keys,
//! options) and steps in order: writes with RowKinds as a named commit user, compactions, commits with an
//! identifier, schema changes, faults armed at exact points of the commit protocol, recoveries the way a
//! restarted job does them, and seeded random bursts. Every scenario is deterministic: the same file gives the
//! same rows, the same commit sequence and the same `case.json` (file names and times differ from run to run,
//! as the writer picks them, and are not recorded). Expectations in the scenario (a commit must fail with a
//! given message, a prepared commit must carry compaction changelog, a recovery must commit N identifiers,
//! an armed fault must fire) make generation fail when a scenario stops reproducing its situation.

mod crash;
mod damage;
mod evolution;
mod flink;
mod flink_truth;
mod generate;
mod list;
mod load;
mod random;
mod scenario;
mod summary;
#[cfg(test)]
mod tests;

pub use crash::{run_with_crash_point, CrashPoint, CrashRun, Recovery};
pub use flink::{
    flink_corpora, flink_writer_classpath, EndOfInputFailure, EndOfInputPoint, FlinkFailures,
    FlinkJob, FlinkSource, TargetedFailure, WhileWritingFailure, WriteOperation, WrittenFile,
    FLINK_COLUMNS,
};
pub use flink_truth::{FlinkRow, FlinkTruth, InputRecord, KeyDifference, LostCompactHalf};
pub use generate::{generate, generate_scenario, remove_generated, BatchRead, CommitRecord};
pub use list::{corpora_dir, scenario_files};
pub use load::{load_scenario, resolve_scenario};
pub use scenario::{
    step_name, Damage, Fault, FieldSpec, RandomBurst, RandomCompact, RowSpec, Scenario,
    SchemaChange, Step, TableSpec,
};
pub use summary::{
    batch_summary, first_json_difference, snapshot_summaries, stock_summary, BatchSummary,
    SnapshotSummary, StockSplitSummary, StockSummary,
};

/// Whether anything is at `location`: a local path that exists, or a store prefix with at least one object
/// under it, at any depth (a LIST per folder walked, until the first object). Folders alone do not count:
/// some S3-compatible servers (SeaweedFS's filer) keep the folders of deleted objects as common prefixes.
/// A store that cannot be asked counts as empty: the writer's own error names it next.
fn location_exists(location: &std::path::Path) -> bool {
    if !native_reader::fileio::is_store(location) {
        return location.exists();
    }
    let Ok(io) = native_reader::fileio::for_path(location) else {
        return false;
    };
    let mut folders = vec![location.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = io.list_status(&folder) else {
            return false;
        };
        for e in entries {
            if !e.is_dir {
                return true;
            }
            folders.push(folder.join(&e.name));
        }
    }
    false
}

/// Commit user of steps that name none.
pub const DEFAULT_USER: &str = "paimon-parity-corpus";
/// The commit user of an `overwrite` step when it names none (the released `BatchWriteBuilderImpl` would pick a
/// random UUID, which would make `case.json` irreproducible).
pub const DEFAULT_OVERWRITE_USER: &str = "paimon-parity-overwrite";

/// Streams or batches with at most this many rows are recorded row by row in `case.json`.
pub const MAX_RECORDED_ROWS: u64 = 1024;
