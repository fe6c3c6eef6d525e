//! `paimon-rust-probe <table-dir> [samples]`: batch-reads the latest snapshot of a Paimon table with the
//! `paimon` crate (paimon-rust) and prints one JSON object: rows, every sample's seconds, or the error.
//!
//! The crate reads through a filesystem catalog, so the table is linked into a temporary warehouse as
//! `default.db/<name>`.

use std::time::Instant;

use futures::TryStreamExt;
use paimon::catalog::{Catalog, FileSystemCatalog, Identifier};
use paimon::{CatalogOptions, Options};

async fn read_once(warehouse: &str, name: &str) -> Result<u64, String> {
    let mut options = Options::new();
    options.set(CatalogOptions::WAREHOUSE, warehouse);
    let catalog = FileSystemCatalog::new(options).map_err(|e| e.to_string())?;
    let table = catalog
        .get_table(&Identifier::new("default", name))
        .await
        .map_err(|e| e.to_string())?;
    let rb = table.new_read_builder();
    let plan = rb.new_scan().plan().await.map_err(|e| e.to_string())?;
    let read = rb.new_read().map_err(|e| e.to_string())?;
    let stream = read.to_arrow(plan.splits()).map_err(|e| e.to_string())?;
    let batches: Vec<_> = stream.try_collect().await.map_err(|e| e.to_string())?;
    Ok(batches.iter().map(|b| b.num_rows() as u64).sum())
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let out = run(&args).await;
    println!("{out}");
}

async fn run(args: &[String]) -> serde_json::Value {
    let Some(table) = args.get(1) else {
        return serde_json::json!({"available": false, "reason": "usage: paimon-rust-probe <table-dir> [samples]"});
    };
    let samples: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let table = match std::fs::canonicalize(table) {
        Ok(t) => t,
        Err(e) => return serde_json::json!({"available": false, "reason": e.to_string()}),
    };
    let warehouse = std::env::temp_dir().join(format!("paimon-rust-probe-{}", std::process::id()));
    let db = warehouse.join("default.db");
    if let Err(e) =
        std::fs::create_dir_all(&db).and_then(|_| std::os::unix::fs::symlink(&table, db.join("t")))
    {
        return serde_json::json!({"available": false, "reason": e.to_string()});
    }
    let wh = warehouse.display().to_string();
    let mut times = Vec::new();
    let mut rows = 0;
    let mut error = None;
    for _ in 0..samples + 1 {
        let t = Instant::now();
        match read_once(&wh, "t").await {
            Ok(n) => {
                rows = n;
                times.push(t.elapsed().as_secs_f64());
            }
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&warehouse);
    match error {
        Some(e) => {
            serde_json::json!({"available": true, "read": false, "what": "batch read of the latest snapshot", "error": e})
        }
        None => {
            let samples_s: Vec<f64> = times.into_iter().skip(1).collect();
            serde_json::json!({"available": true, "read": true, "what": "batch read of the latest snapshot", "rows": rows, "samples_s": samples_s})
        }
    }
}
