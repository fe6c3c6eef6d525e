//! `bench --compare OLD.json`: throughput per kind and reader of this run against an earlier run's JSON.

use std::io::Write;

use super::BenchReport;

/// One reader of one kind measured in both runs.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Comparison {
    /// `changelog`, `raw` or `merge`.
    pub kind: String,
    /// The measurement (`native-1t`, `native-par`, `stock-export`, `stock-count`, `plain`, `reader:NAME`, ...).
    pub reader: String,
    /// Rows per second of the earlier run.
    pub old_rows_per_s: f64,
    /// Rows per second of this run.
    pub new_rows_per_s: f64,
    /// `new_rows_per_s / old_rows_per_s` (above 1: faster now).
    pub ratio: f64,
    /// Set when the two runs returned different row counts (then the ratio compares different work).
    pub rows_differ: Option<(u64, u64)>,
}

/// The measurements present in both `old` (a `bench` JSON report, as written by an earlier run) and `new`,
/// in `new`'s order. Measurements only one run has are left out.
pub fn compare(old: &serde_json::Value, new: &BenchReport) -> Vec<Comparison> {
    let mut out = Vec::new();
    let old_kinds = old["kinds"].as_array().cloned().unwrap_or_default();
    for k in &new.kinds {
        let Some(ok) = old_kinds.iter().find(|o| o["kind"] == k.kind.as_str()) else {
            continue;
        };
        let old_measurements = ok["measurements"].as_array().cloned().unwrap_or_default();
        for m in &k.measurements {
            let Some(om) = old_measurements
                .iter()
                .find(|o| o["name"] == m.name.as_str())
            else {
                continue;
            };
            let Some(old_rate) = om["rows_per_s"].as_f64().filter(|r| *r > 0.0) else {
                continue;
            };
            let old_rows = om["rows"].as_u64().unwrap_or(m.rows);
            out.push(Comparison {
                kind: k.kind.clone(),
                reader: m.name.clone(),
                old_rows_per_s: old_rate,
                new_rows_per_s: m.rows_per_s,
                ratio: m.rows_per_s / old_rate,
                rows_differ: (old_rows != m.rows).then_some((old_rows, m.rows)),
            });
        }
    }
    out
}

/// Prints the comparison: per kind and reader, old and new rows/s and their ratio.
pub fn write_comparison(
    out: &mut impl Write,
    old_name: &str,
    rows: &[Comparison],
) -> std::io::Result<()> {
    writeln!(out)?;
    writeln!(out, "compared with {old_name} (new / old rows/s):")?;
    if rows.is_empty() {
        writeln!(out, "  no kind and reader measured in both runs")?;
    }
    for c in rows {
        writeln!(
            out,
            "  {:<10} {:<20} {:>12.0} -> {:>12.0} rows/s  {:.2}x{}",
            c.kind,
            c.reader,
            c.old_rows_per_s,
            c.new_rows_per_s,
            c.ratio,
            match c.rows_differ {
                Some((o, n)) => format!("  (rows differ: old {o}, new {n})"),
                None => String::new(),
            }
        )?;
    }
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::bench::{Environment, KindReport, Measurement};

    /// A measurement of `rows` rows in `median_s` seconds (one sample).
    pub(in crate::bench) fn measurement(name: &str, rows: u64, median_s: f64) -> Measurement {
        Measurement {
            name: name.into(),
            rows,
            samples_s: vec![median_s],
            median_s,
            rows_per_s: rows as f64 / median_s,
            mb_per_s: 0.0,
        }
    }

    /// A report with these kinds and measurements, every other field empty.
    pub(in crate::bench) fn report(kinds: Vec<(&str, Vec<Measurement>)>) -> BenchReport {
        BenchReport {
            table: "t".into(),
            environment: Environment {
                cpu: String::new(),
                cores: 2,
                load_before: String::new(),
                load_after: String::new(),
                java: String::new(),
                paimon: String::new(),
                crates: Default::default(),
                optimized: true,
                started: String::new(),
                samples: 1,
                threads: 2,
                buffer_bytes: 0,
                decode_ahead: true,
            },
            kinds: kinds
                .into_iter()
                .map(|(kind, measurements)| KindReport {
                    kind: kind.into(),
                    plan: String::new(),
                    splits: 1,
                    files: 1,
                    file_bytes: 0,
                    file_rows: 0,
                    rows: 0,
                    measurements,
                    fixed_cost_us: Default::default(),
                    ratios: Default::default(),
                    flamegraph: None,
                    unmeasured: Default::default(),
                    store_requests: None,
                })
                .collect(),
            native_replay_peak_rss: serde_json::Value::Null,
        }
    }

    /// (kind, reader, ratio, rows that differ) of one comparison.
    type Row<'a> = (&'a str, &'a str, f64, Option<(u64, u64)>);

    /// (kind, reader, ratio, row counts when they differ) of each comparison.
    fn rows_of(rows: &[Comparison]) -> Vec<Row<'_>> {
        rows.iter()
            .map(|c| (c.kind.as_str(), c.reader.as_str(), c.ratio, c.rows_differ))
            .collect()
    }

    #[test]
    fn each_reader_of_each_kind_is_compared_with_the_earlier_run() {
        let old = serde_json::to_value(report(vec![
            (
                "merge",
                vec![
                    measurement("native-1t", 1000, 2.0),
                    measurement("plain", 1000, 1.0),
                ],
            ),
            ("raw", vec![measurement("native-1t", 500, 1.0)]),
        ]))
        .unwrap();
        let new = report(vec![
            (
                "merge",
                vec![
                    measurement("native-1t", 1000, 1.0),
                    measurement("native-par", 1000, 0.5),
                ],
            ),
            ("raw", vec![measurement("native-1t", 400, 1.0)]),
            ("changelog", vec![measurement("native-1t", 10, 1.0)]),
        ]);
        let rows = compare(&old, &new);
        let got = rows_of(&rows);
        // merge native-1t: 500 rows/s then 1000 (2x); raw: 500 then 400 rows/s over other row counts;
        // native-par and changelog exist only now, plain only then.
        assert_eq!(
            got,
            [
                ("merge", "native-1t", 2.0, None),
                ("raw", "native-1t", 0.8, Some((500, 400))),
            ]
        );
    }

    /// Reports written before the paimon-rust probe was replaced by `--reader paimon-rust` carry a
    /// `paimon_rust` key: it is ignored, and a `reader:paimon-rust` measurement compares like any other.
    #[test]
    fn an_old_report_with_the_probe_result_still_compares() {
        let mut old = serde_json::to_value(report(vec![(
            "merge",
            vec![
                measurement("native-1t", 1000, 1.0),
                measurement("reader:paimon-rust", 1000, 4.0),
            ],
        )]))
        .unwrap();
        old["paimon_rust"] = serde_json::json!({"available": true, "rows": 1000, "median_s": 3.0});
        let new = report(vec![(
            "merge",
            vec![
                measurement("native-1t", 1000, 1.0),
                measurement("reader:paimon-rust", 1000, 2.0),
            ],
        )]);
        let rows = compare(&old, &new);
        let got = rows_of(&rows);
        // reader:paimon-rust: 250 rows/s then 500 (2x).
        assert_eq!(
            got,
            [
                ("merge", "native-1t", 1.0, None),
                ("merge", "reader:paimon-rust", 2.0, None),
            ]
        );
    }
}
