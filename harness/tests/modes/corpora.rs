//! Every committed corpus and every paimon-cpp table, replayed in every mode and at every snapshot.

use super::*;

/// The paimon-cpp tables (read-only; the harness never writes into a table it reads).
fn paimon_cpp_tables() -> Vec<PathBuf> {
    let root = Path::new("/work/shared/external-corpora/paimon-cpp");
    let mut out = Vec::new();
    for format in ["orc", "parquet"] {
        let Ok(dbs) = std::fs::read_dir(root.join(format)) else {
            continue;
        };
        for db in dbs.flatten() {
            for t in std::fs::read_dir(db.path()).into_iter().flatten().flatten() {
                if t.path().join("schema").is_dir() {
                    out.push(t.path());
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_corpus_and_paimon_cpp_table_replays_identically_in_every_mode() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    let mut tables: Vec<PathBuf> = common::corpora().iter().map(|c| c.join("table")).collect();
    tables.extend(paimon_cpp_tables());
    assert!(!tables.is_empty());
    for table in &tables {
        for mode in MODES {
            assert_replays_identically(table, mode, &stock);
        }
    }
}

#[test]
fn batch_time_travel_replays_every_snapshot_identically() {
    let _serial = serial();
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let mut tables: Vec<PathBuf> = common::corpora().iter().map(|c| c.join("table")).collect();
    tables.extend(paimon_cpp_tables());
    for table in &tables {
        let meta = native_reader::Table::open(table).unwrap();
        let (Some(first), Some(last)) = (
            meta.earliest_snapshot_id().unwrap(),
            meta.latest_snapshot_id().unwrap(),
        ) else {
            continue;
        };
        for id in first..=last {
            let opts = ReplayOptions {
                snapshot: Some(id),
                ..options(ReplayMode::Batch)
            };
            let report = replay(table, &stock, &native, &opts).unwrap();
            // A snapshot whose batch plan is empty on both sides (e.g. every row deleted) compares nothing:
            // its own verdict, and still agreement of the two planners.
            assert!(
                matches!(report.verdict, "identical" | "nothing-compared"),
                "{} snapshot {id}: {}",
                table.display(),
                harness::report::summary_line(&report)
            );
        }
        // Outside [earliest, latest]: both readers refuse.
        assert!(native
            .plan(
                table,
                ScanMode::Batch {
                    snapshot: Some(last + 1)
                },
                last
            )
            .is_err());
        assert!(stock
            .plan(
                table,
                ScanMode::Batch {
                    snapshot: Some(last + 1)
                },
                last
            )
            .is_err());
    }
}
