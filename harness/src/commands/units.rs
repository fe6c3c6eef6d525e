//! `paimon-parity units`: the units of work of a replay spread over a cluster (`scripts/spark-replay`): per
//! table its pinned snapshot, per scan the splits and bytes the native planner plans, and the shards that
//! cut it into units of similar size.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::{ModeArg, UnitsArgs};
use crate::error::Result;
use crate::reader::{this_release, NativeTableReader, TableReader};
use crate::replay::{resolve_table, ReplayMode};

/// One scan of one table, as planned.
#[derive(Debug, Serialize)]
pub struct PlannedScan {
    /// `--mode` of the scan.
    pub mode: ReplayMode,
    /// Splits the native planner planned (`None` when it could not plan: the unit is the whole scan).
    pub splits: Option<usize>,
    /// Bytes of the data, changelog and before files of those splits, a file counted once per split.
    pub bytes: Option<u64>,
    /// How many shards the scan is cut into (`replay --shard I/N`): the bytes over `--unit-size`, rounded
    /// up, at least 1 and at most the splits.
    pub shards: usize,
    /// Why the native planner could not plan the scan, when it could not.
    pub plan_error: Option<String>,
}

/// One table of the warehouse.
#[derive(Debug, Serialize)]
pub struct PlannedTable {
    /// The table location, as `replay` takes it.
    pub table: PathBuf,
    /// Its name in the report (`db.table`, or the directory name).
    pub name: String,
    /// The snapshot every unit of the table is pinned to (`replay --to-snapshot`): the latest when planned;
    /// `None` for a table without a snapshot (its units report that).
    pub to_snapshot: Option<i64>,
    /// One entry per scan.
    pub scans: Vec<PlannedScan>,
}

/// One scan of a unit: a shard of one scan of one table, pinned.
#[derive(Debug, Serialize)]
pub struct ScanOfUnit {
    /// As [`PlannedTable::table`].
    pub table: PathBuf,
    /// As [`PlannedTable::name`].
    pub name: String,
    /// The scan.
    pub mode: ReplayMode,
    /// `replay --to-snapshot`.
    pub to_snapshot: Option<i64>,
    /// `replay --shard`, `I/N`.
    pub shard: String,
    /// Estimated bytes (the scan's bytes over its shards).
    pub bytes: Option<u64>,
}

/// One unit of work, one replay process (`replay --units`): one shard of a scan larger than the target
/// size, or several whole scans (of any tables) that together come near it, so that many small tables do
/// not each pay a process and a JVM.
#[derive(Debug, Serialize)]
pub struct Unit {
    /// Unique within the plan: `<table name>/<mode>/<I>of<N>` for a shard, `pack-<K>` for whole scans.
    pub id: String,
    /// Estimated bytes of its scans.
    pub bytes: u64,
    /// Its scans, in table and scan order.
    pub scans: Vec<ScanOfUnit>,
}

/// Whole scans in one unit at most (a unit of many tiny tables still ends).
pub const MAX_SCANS_PER_UNIT: usize = 32;

/// The JSON `units` writes.
#[derive(Debug, Serialize)]
pub struct UnitPlan {
    /// `paimon-parity-units`.
    pub schema: &'static str,
    /// The release whose rules planned the splits.
    pub paimon_version: String,
    /// The target size of a unit, in bytes.
    pub unit_bytes: u64,
    /// Every table, in name order.
    pub tables: Vec<PlannedTable>,
    /// Every unit: the shards of the scans larger than the target size, table by table, then the packs of
    /// whole scans.
    pub units: Vec<Unit>,
}

/// One scan of a unit file, as `replay --units` reads it.
#[derive(Debug, serde::Deserialize)]
pub(super) struct UnitScan {
    /// The table location.
    pub table: PathBuf,
    /// The scan.
    pub mode: ReplayMode,
    /// `--to-snapshot` of the scan.
    pub to_snapshot: Option<i64>,
    /// `--shard` of the scan, `I/N`.
    #[serde(deserialize_with = "shard")]
    pub shard: crate::replay::Shard,
}

fn shard<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<crate::replay::Shard, D::Error> {
    let text = <String as serde::Deserialize>::deserialize(d)?;
    text.parse().map_err(serde::de::Error::custom)
}

/// Reads a unit file of `replay --units`: `{"scans": [...]}` (a unit of `paimon-parity units`).
///
/// Errors: [`crate::Error::Usage`] naming the file when it cannot be read, is not such JSON, or lists no
/// scan, or one scan twice.
pub(super) fn read_unit(path: &Path) -> Result<Vec<UnitScan>> {
    #[derive(serde::Deserialize)]
    struct File {
        scans: Vec<UnitScan>,
    }
    let bad = |why: String| crate::Error::Usage(format!("--units {}: {why}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read it: {e}")))?;
    let file: File = serde_json::from_str(&text)
        .map_err(|e| bad(format!("not a unit of `paimon-parity units` ({e})")))?;
    if file.scans.is_empty() {
        return Err(bad("lists no scan".into()));
    }
    for (i, a) in file.scans.iter().enumerate() {
        if file.scans[..i]
            .iter()
            .any(|b| b.table == a.table && b.mode == a.mode)
        {
            return Err(bad(format!(
                "lists the {} scan of {} twice",
                a.mode.name(),
                a.table.display()
            )));
        }
    }
    Ok(file.scans)
}

/// Runs `units`: plans, writes the JSON (to `--json`, default stdout) and a summary on stderr; exit 0.
///
/// Errors: a location that is neither a table nor holds one; an unknown release; an unwritable output.
pub(super) fn run(args: UnitsArgs) -> Result<i32> {
    if let Some(v) = &args.paimon_version {
        jvm_bridge::jvm::select_paimon_version(v)?;
    }
    let release = this_release()?;
    let tables = super::replay::every_table(&args.locations)?;
    let modes = ModeArg::expand(&args.mode);
    let unit_bytes = args.unit_size.max(1);
    let native = NativeTableReader::for_release(release);
    let mut plan = UnitPlan {
        schema: "paimon-parity-units",
        paimon_version: jvm_bridge::jvm::paimon_version(),
        unit_bytes,
        tables: Vec::new(),
        units: Vec::new(),
    };
    let mut whole: Vec<ScanOfUnit> = Vec::new();
    for table in &tables {
        let planned = plan_table(&native, table, &modes, unit_bytes)?;
        for scan in &planned.scans {
            let of = |i: usize| ScanOfUnit {
                table: planned.table.clone(),
                name: planned.name.clone(),
                mode: scan.mode,
                to_snapshot: planned.to_snapshot,
                shard: format!("{i}/{}", scan.shards),
                bytes: scan.bytes.map(|b| b / scan.shards as u64),
            };
            if scan.shards == 1 {
                whole.push(of(1));
                continue;
            }
            for i in 1..=scan.shards {
                let s = of(i);
                plan.units.push(Unit {
                    id: format!("{}/{}/{i}of{}", planned.name, scan.mode.name(), scan.shards),
                    bytes: s.bytes.unwrap_or(0),
                    scans: vec![s],
                });
            }
        }
        plan.tables.push(planned);
    }
    // Whole scans packed in table order until a unit reaches the target size.
    let mut pack: Vec<ScanOfUnit> = Vec::new();
    let mut bytes = 0u64;
    let mut packs = 0usize;
    let mut flush = |pack: &mut Vec<ScanOfUnit>, bytes: &mut u64, units: &mut Vec<Unit>| {
        if pack.is_empty() {
            return;
        }
        packs += 1;
        units.push(Unit {
            id: format!("pack-{packs}"),
            bytes: *bytes,
            scans: std::mem::take(pack),
        });
        *bytes = 0;
    };
    for scan in whole {
        bytes += scan.bytes.unwrap_or(0);
        pack.push(scan);
        if bytes >= unit_bytes || pack.len() >= MAX_SCANS_PER_UNIT {
            flush(&mut pack, &mut bytes, &mut plan.units);
        }
    }
    flush(&mut pack, &mut bytes, &mut plan.units);
    eprintln!(
        "{} table(s), {} unit(s) of about {} KiB",
        plan.tables.len(),
        plan.units.len(),
        unit_bytes.div_ceil(1024)
    );
    crate::report::write_json(args.json.as_deref().unwrap_or(Path::new("-")), &plan)?;
    Ok(0)
}

/// Plans every scan of `table` at its latest snapshot.
fn plan_table(
    native: &NativeTableReader,
    table: &Path,
    modes: &[ReplayMode],
    unit_bytes: u64,
) -> Result<PlannedTable> {
    let resolved = resolve_table(table)?;
    let name = crate::report::table_name(table);
    let snapshots = native_reader::snapshot::SnapshotManager::new(&resolved);
    let latest = snapshots.latest_snapshot_id()?;
    let earliest = snapshots.earliest_snapshot_id()?.unwrap_or(1);
    let scans = modes
        .iter()
        .map(|mode| {
            let Some(end) = latest else {
                return PlannedScan {
                    mode: *mode,
                    splits: None,
                    bytes: None,
                    shards: 1,
                    plan_error: Some("the table has no snapshot".into()),
                };
            };
            match native.plan(&resolved, mode.scan_mode(earliest, Some(end)), end) {
                Ok(splits) => {
                    let bytes: u64 = splits
                        .iter()
                        .flat_map(|s| s.split.data_files.iter().chain(&s.split.before_files))
                        .map(|f| f.file_size.max(0) as u64)
                        .sum();
                    let shards = bytes
                        .div_ceil(unit_bytes)
                        .clamp(1, splits.len().max(1) as u64);
                    PlannedScan {
                        mode: *mode,
                        splits: Some(splits.len()),
                        bytes: Some(bytes),
                        shards: shards as usize,
                        plan_error: None,
                    }
                }
                Err(e) => PlannedScan {
                    mode: *mode,
                    splits: None,
                    bytes: None,
                    shards: 1,
                    plan_error: Some(e.to_string()),
                },
            }
        })
        .collect();
    Ok(PlannedTable {
        table: table.to_path_buf(),
        name,
        to_snapshot: latest,
        scans,
    })
}
