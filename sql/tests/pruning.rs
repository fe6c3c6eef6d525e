//! Filters on partition columns leave out the splits of the partitions they rule out, and the rows a
//! query returns are still the ones the released reader returned (corpus c06-null-partitions: DATE and
//! STRING partition columns with NULLs, an empty string and dates around the epoch; its case.json holds the
//! released 1.0.0 reader's rows of the latest snapshot).

use std::path::Path;
use std::sync::Arc;

use arrow_array::{Array, Int32Array};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionContext;
use native_reader::{PaimonRelease, Table};

/// The released reader's rows: (region, dt, id) parsed from `+I ("eu", 2026-01-01, 1, 10)`.
fn released_rows(corpus: &Path) -> Vec<(Option<String>, Option<String>, i32)> {
    let case: serde_json::Value =
        serde_json::from_slice(&std::fs::read(corpus.join("case.json")).unwrap()).unwrap();
    case["expected"]["batch_latest"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let text = v.as_str().unwrap();
            let inner = text
                .trim_start_matches("+I (")
                .trim_end_matches(')')
                .to_owned();
            let parts: Vec<&str> = inner.split(", ").collect();
            let value = |s: &str| (s != "NULL").then(|| s.trim_matches('"').to_owned());
            (value(parts[0]), value(parts[1]), parts[2].parse().unwrap())
        })
        .collect()
}

/// Partitions (splits) the plan's scan reads: its leaf's output partitions, 0 for an empty scan.
fn scanned_partitions(plan: &Arc<dyn ExecutionPlan>) -> usize {
    let children = plan.children();
    if children.is_empty() {
        return if plan.name() == "EmptyExec" || plan.name() == "PlaceholderRowExec" {
            0
        } else {
            plan.properties().output_partitioning().partition_count()
        };
    }
    children.into_iter().map(scanned_partitions).sum()
}

#[test]
fn partition_filters_prune_splits_and_keep_the_released_rows() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora/c06-null-partitions");
    let table = Arc::new(Table::open_as(&corpus.join("table"), PaimonRelease::V1_0_0).unwrap());
    let provider = paimon_sql::provider::table_provider(table, false).unwrap();
    let splits = provider.splits().len();
    assert_eq!(
        splits, 7,
        "the released reader planned 7 splits (case.json)"
    );
    let context = SessionContext::new();
    context.register_table("t", provider).unwrap();
    let released = released_rows(&corpus);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    type Keep = fn(&(Option<String>, Option<String>, i32)) -> bool;
    let cases: [(&str, Keep, usize); 5] = [
        (
            "dt = DATE '2026-01-01'",
            |r| r.1.as_deref() == Some("2026-01-01"),
            2,
        ),
        (
            "dt IS NULL AND region = 'eu'",
            |r| r.1.is_none() && r.0.as_deref() == Some("eu"),
            1,
        ),
        ("region IS NULL", |r| r.0.is_none(), 2),
        (
            "dt < DATE '1970-01-01'",
            |r| r.1.as_deref() == Some("1969-12-31"),
            1,
        ),
        // Not on a partition column: every split is read, DataFusion filters the rows.
        ("id > 4", |r| r.2 > 4, 7),
    ];
    for (filter, keep, expected_splits) in cases {
        let sql = format!("SELECT id FROM t WHERE {filter}");
        let (plan, batches) = runtime.block_on(async {
            let frame = context.sql(&sql).await.unwrap();
            let plan = frame.clone().create_physical_plan().await.unwrap();
            (plan, frame.collect().await.unwrap())
        });
        assert_eq!(scanned_partitions(&plan), expected_splits, "{filter}");
        let mut ids: Vec<i32> = batches
            .iter()
            .flat_map(|b| {
                let ids = b.column(0).as_any().downcast_ref::<Int32Array>().unwrap();
                (0..ids.len()).map(|i| ids.value(i)).collect::<Vec<_>>()
            })
            .collect();
        ids.sort_unstable();
        let mut expected: Vec<i32> = released.iter().filter(|r| keep(r)).map(|r| r.2).collect();
        expected.sort_unstable();
        assert!(!expected.is_empty(), "{filter}: no released row to compare");
        assert_eq!(ids, expected, "{filter}");
    }
}
