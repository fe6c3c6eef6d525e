//! Scenario steps of row-tracking and data-evolution tables (1.3+), `write-columns` and `delete-rows`, and
//! the schema changes an `alter` step resolves before the released writer applies them.

use std::collections::BTreeMap;

use native_reader::evolution::{anchor_file, row_id_groups, DataEvolution, RowIdRange};

use super::generate::{CommitRecord, Run};
use super::{RowSpec, SchemaChange};
use crate::error::{Error, Result};

impl Run<'_> {
    pub(super) fn write_columns(
        &mut self,
        user: &str,
        identifier: i64,
        columns: &[String],
        first_row_id: Option<i64>,
        rows: &[RowSpec],
    ) -> Result<()> {
        self.note_identifier(user, identifier)?;
        let encode = |e: serde_json::Error| Error::ScenarioSource {
            context: String::new(),
            source: e.into(),
        };
        let rows_json = serde_json::to_string(rows).map_err(encode)?;
        let columns_json = serde_json::to_string(columns).map_err(encode)?;
        let prepared = jvm_bridge::corpus::write_columns(
            self.table,
            user,
            self.tmp,
            identifier,
            &columns_json,
            first_row_id,
            &rows_json,
        )?;
        self.log.push(CommitRecord {
            user: user.to_owned(),
            identifier,
            outcome: "committed".to_owned(),
            prepared: Some(prepared),
        });
        self.mark_others_stale(user);
        Ok(())
    }

    /// Deletes the rows `row_ids` of the (unpartitioned) table's latest snapshot: each row's position in its
    /// row-id group's anchor file ([`anchor_file`], groups as 1.4+ form them), committed as that file's
    /// deletion vector by the released writer.
    pub(super) fn delete_rows(
        &mut self,
        user: &str,
        identifier: i64,
        row_ids: &[i64],
    ) -> Result<()> {
        self.note_identifier(user, identifier)?;
        // The files as the writing release plans them (a 1.0.0 table would refuse its 2.0 types).
        let release = native_reader::PaimonRelease::parse(&self.stock.bridge().paimon_version()?)?;
        let table = native_reader::Table::open_as(self.table, release)?;
        let latest = table
            .latest_snapshot_id()?
            .ok_or_else(|| Error::Scenario("delete-rows: the table has no snapshot".into()))?;
        let snapshot = table.snapshot(latest)?;
        let files: Vec<_> = native_reader::scan::read_all_files(&table, &snapshot, &|_| true)?
            .into_iter()
            .flat_map(|g| g.files)
            .collect();
        let groups = row_id_groups(&files, DataEvolution::ByRowIdRange).map_err(Error::Scenario)?;
        let mut positions: BTreeMap<String, Vec<i64>> = BTreeMap::new();
        for &row_id in row_ids {
            let group = groups
                .iter()
                .map(|g| g.iter().map(|&i| &files[i]).collect::<Vec<_>>())
                .find(|g| {
                    g.iter().any(|f| {
                        f.range()
                            .is_ok_and(|(from, to)| (from..=to).contains(&row_id))
                    })
                })
                .ok_or_else(|| {
                    Error::Scenario(format!("delete-rows: no data file holds row id {row_id}"))
                })?;
            let anchor = anchor_file(&group).ok_or_else(|| {
                Error::Scenario(format!("delete-rows: row id {row_id} has no anchor file"))
            })?;
            let first = anchor.first_row_id.unwrap_or(0);
            positions
                .entry(anchor.file_name.clone())
                .or_default()
                .push(row_id - first);
        }
        let json = serde_json::to_string(&positions).map_err(|e| Error::ScenarioSource {
            context: String::new(),
            source: e.into(),
        })?;
        jvm_bridge::corpus::delete_rows(self.table, user, identifier, &json)?;
        self.log.push(CommitRecord {
            user: user.to_owned(),
            identifier,
            outcome: "committed".to_owned(),
            prepared: None,
        });
        self.mark_others_stale(user);
        Ok(())
    }
}

/// `changes` with each [`SchemaChange::SetOptionToSnapshotTime`] turned into the
/// [`SchemaChange::SetOption`] it stands for: the commit time of that snapshot of the table at `table`,
/// read from its snapshot file, plus the offset.
///
/// Errors: [`Error::Scenario`] naming the snapshot when it cannot be read.
pub(super) fn with_snapshot_times(
    table: &std::path::Path,
    changes: &[SchemaChange],
) -> Result<Vec<SchemaChange>> {
    let snapshots = native_reader::snapshot::SnapshotManager::new(table);
    changes
        .iter()
        .map(|change| match change {
            SchemaChange::SetOptionToSnapshotTime {
                key,
                snapshot,
                plus_millis,
                as_text,
                to_snapshot,
                to_plus_millis,
            } => {
                let time = |snapshot: i64, plus_millis: i64| -> Result<String> {
                    let millis = snapshots
                        .snapshot(snapshot)
                        .map_err(|e| {
                            Error::Scenario(format!(
                                "set-option-to-snapshot-time `{key}`: snapshot {snapshot}: {e}"
                            ))
                        })?
                        .time_millis
                        + plus_millis;
                    match as_text {
                        false => Ok(millis.to_string()),
                        true => Ok(chrono::DateTime::from_timestamp_millis(millis)
                            .ok_or_else(|| {
                                Error::Scenario(format!(
                                    "set-option-to-snapshot-time `{key}`: {millis} ms is out of range"
                                ))
                            })?
                            .format("%Y-%m-%d %H:%M:%S%.3f")
                            .to_string()),
                    }
                };
                let mut value = time(*snapshot, *plus_millis)?;
                if let Some(to) = to_snapshot {
                    value = format!("{value},{}", time(*to, *to_plus_millis)?);
                }
                Ok(SchemaChange::SetOption {
                    key: key.clone(),
                    value,
                })
            }
            other => Ok(other.clone()),
        })
        .collect()
}
