//! `bench --store URI`: the native reader on the same splits read from a copy of the bench table in an
//! object store (a local S3 server, say), beside its reads from disk in the same run: `native-1t-store`,
//! `native-par-store`, and the requests one read of a kind's splits makes (GET, HEAD, LIST, bytes), per
//! split and per data file.

use std::path::Path;
use std::sync::Arc;

use native_reader::{Split, Table};
use serde::Serialize;

use super::timing::{measure, native_read_all_with};
use super::{BenchOptions, Measurement};
use crate::error::{Error, Result};

/// The bench table's copy in a store: opened as the bench table is, and how its splits are rewritten.
pub struct StoreCopy {
    /// The copy, opened for the same release.
    pub table: Arc<Table>,
    /// The location the local table's splits name (its root, without a trailing `/`).
    local_root: String,
    /// The copy's location (`s3://bucket/…`, without a trailing `/`).
    store_root: String,
}

/// What one read of a kind's splits from the store asked of it.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct StoreRequests {
    /// Requests of one read of every split, by kind, and the bytes the GETs returned.
    pub total: native_reader::fileio::RequestCounts,
    /// GETs per split.
    pub gets_per_split: f64,
    /// GETs per data file of the splits (a data file read whole is one GET).
    pub gets_per_data_file: f64,
    /// Bytes per split.
    pub bytes_per_split: f64,
}

impl StoreCopy {
    /// Opens the copy at `store` of the table `local` (both as their readers name them).
    ///
    /// Errors: [`Error::Native`] when the copy cannot be opened; [`Error::Table`] when its latest snapshot
    /// is not the local table's (not a copy of it).
    pub fn open(local: &Path, native: &Table, store: &Path) -> Result<StoreCopy> {
        let location = crate::location::table_location(store)?;
        let table = Arc::new(Table::open_as(&location, native.release())?);
        if table.latest_snapshot_id()? != native.latest_snapshot_id()? {
            return Err(Error::Table {
                path: location,
                reason: format!(
                    "--store: not a copy of {}: its latest snapshot differs",
                    local.display()
                ),
            });
        }
        Ok(StoreCopy {
            local_root: native.root_string(),
            store_root: table.root_string(),
            table,
        })
    }

    /// `splits` with every location under the local table moved under the copy.
    fn rewrite(&self, splits: &[Split]) -> Result<Vec<Split>> {
        splits
            .iter()
            .map(|s| {
                let json = serde_json::to_string(s).map_err(|e| Error::Compare(e.to_string()))?;
                let moved = json.replace(
                    &format!("\"{}/", self.local_root),
                    &format!("\"{}/", self.store_root),
                );
                serde_json::from_str(&moved).map_err(|e| Error::Compare(e.to_string()))
            })
            .collect()
    }

    /// `native-1t-store` (and `native-par-store` on more than one thread) over `splits`, and the requests
    /// of one more read on one thread.
    pub(super) fn measure(
        &self,
        splits: &[Split],
        file_bytes: u64,
        opts: &BenchOptions,
    ) -> Result<(Vec<Measurement>, StoreRequests)> {
        let moved = self.rewrite(splits)?;
        let samples = opts.samples.max(1);
        let defaults = native_reader::read::ReadOptions::default();
        let mut out = vec![measure("native-1t-store", samples, file_bytes, || {
            native_read_all_with(
                &self.table,
                &moved,
                1,
                defaults.buffer_bytes,
                defaults.decode_ahead,
            )
        })?];
        if opts.threads > 1 {
            out.push(measure("native-par-store", samples, file_bytes, || {
                native_read_all_with(
                    &self.table,
                    &moved,
                    opts.threads,
                    opts.buffer_bytes,
                    opts.decode_ahead,
                )
            })?);
        }
        let before = native_reader::fileio::store_requests();
        native_read_all_with(
            &self.table,
            &moved,
            1,
            defaults.buffer_bytes,
            defaults.decode_ahead,
        )?;
        let total = native_reader::fileio::store_requests().since(&before);
        let files: usize = moved.iter().map(|s| s.data_files.len()).sum();
        let per = |n: u64, d: usize| n as f64 / d.max(1) as f64;
        Ok((
            out,
            StoreRequests {
                gets_per_split: per(total.get, moved.len()),
                gets_per_data_file: per(total.get, files),
                bytes_per_split: per(total.bytes, moved.len()),
                total,
            },
        ))
    }
}
