//! The `damage-file` step: one data file of the latest snapshot lost or cut short behind the writer's back,
//! the tables `scan.ignore-lost-files` and `scan.ignore-corrupt-files` are made for.

use std::path::{Path, PathBuf};

use native_reader::{PaimonRelease, Table};

use super::scenario::Damage;
use crate::error::{Error, Result};

/// Applies `damage` to live data file number `index` of the latest snapshot of the table at `table`
/// (partitions then buckets in the order their manifest entries first name them, files in manifest-entry
/// order: [`native_reader::scan::read_all_files`]) and returns its path.
///
/// Errors: [`Error::Scenario`] when the table has no snapshot or fewer than `index + 1` live data files, or
/// the file has an external path; [`Error::Io`] when the file cannot be removed, read or rewritten; the
/// native reader's errors reading the snapshot and its manifests.
pub(super) fn damage_file(table: &Path, index: usize, damage: Damage) -> Result<PathBuf> {
    let opened = Table::open_as(table, PaimonRelease::V2_0_0)?;
    let manager = opened.snapshot_manager();
    let latest = manager
        .latest_snapshot_id()?
        .ok_or_else(|| Error::Scenario("damage-file: the table has no snapshot".into()))?;
    let snapshot = manager.snapshot(latest)?;
    let groups = native_reader::scan::read_all_files(&opened, &snapshot, &|_| true)?;
    let mut live = groups.iter().flat_map(|g| {
        let bucket_path = opened.bucket_path(&g.rendered.path, g.bucket);
        g.files.iter().map(move |f| (bucket_path.clone(), f))
    });
    let count = live.clone().count();
    let (bucket_path, file) = live.nth(index).ok_or_else(|| {
        Error::Scenario(format!(
            "damage-file: file {index} asked for, but snapshot {latest} has {count} live data file(s)"
        ))
    })?;
    if file.external_path.is_some() {
        return Err(Error::Scenario(format!(
            "damage-file: data file {} has an external path",
            file.file_name
        )));
    }
    let path = Path::new(&bucket_path).join(&file.file_name);
    let io = |e: std::io::Error| Error::Io {
        path: path.clone(),
        source: e,
    };
    match damage {
        Damage::Delete => std::fs::remove_file(&path).map_err(io)?,
        Damage::Truncate => {
            let bytes = std::fs::read(&path).map_err(io)?;
            std::fs::write(&path, &bytes[..bytes.len() / 2]).map_err(io)?;
        }
    }
    Ok(path)
}
