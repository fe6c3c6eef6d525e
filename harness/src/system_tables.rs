//! Parity of Paimon's metadata system tables (`t$snapshots`, `t$schemas`, `t$options`, `t$tags`,
//! `t$manifests`, `t$partitions`, `t$buckets`, `t$files`): the native reader's
//! rows ([`native_reader::system::metadata::read`]) against the released reader's
//! (`SystemTableLoader.load`, [`jvm_bridge::StockReader::read_system_table`]), column by column and row
//! by row, in the order each returns them. `replay` takes this path for a location naming one of them;
//! `$row_tracking`, which is read by splits, takes the replay's own.

use std::path::{Path, PathBuf};

use crate::reader::StockTableReader;
use arrow_array::RecordBatch;
use native_reader::system::{metadata, SystemTable};
use native_reader::{PaimonRelease, Table};

use crate::error::{Error, Result};

/// The comparison of one metadata system table.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SystemTableParity {
    /// The location replayed (`…/t$snapshots`).
    pub location: PathBuf,
    /// The system table's name (`snapshots`).
    pub system_table: String,
    /// Rows the released reader returned.
    pub stock_rows: usize,
    /// Rows the native reader returned.
    pub native_rows: usize,
    /// Columns compared (the `_row_kind` column included).
    pub columns: usize,
    /// The first difference, in words (`None`: identical).
    pub first_difference: Option<String>,
    /// `$files` stats bounds of BINARY/VARBINARY columns, which the released reader prints as Java object
    /// identities (`[B@1b6d3586`, different in every JVM): replaced on its side by
    /// [`native_reader::system::BINARY_IDENTITY`], the native reader's mark, before the rows are compared.
    pub masked_identities: usize,
    /// `$files` rows compared as a set of partitions, not in order: those of two or more partitions of one
    /// bin of the hash map the released reader fills from one thread per manifest, whose order there its
    /// threads decide ([`native_reader::system::metadata::MetadataRows::unordered`]). Each partition's
    /// rows are still compared in order.
    pub unordered_rows: usize,
}

impl SystemTableParity {
    /// `DIFFERS` with a first difference, `NOTHING-COMPARED` when both readers returned no row (no
    /// evidence), else `IDENTICAL`.
    pub fn verdict(&self) -> &'static str {
        if self.first_difference.is_some() {
            "DIFFERS"
        } else if self.stock_rows == 0 && self.native_rows == 0 {
            "NOTHING-COMPARED"
        } else {
            "IDENTICAL"
        }
    }
}

/// The metadata system table `location` names as `release` reads it, if any: `t$snapshots` is, `t` and
/// `t$row_tracking` are not.
pub fn metadata_table(location: &Path, release: PaimonRelease) -> Option<SystemTable> {
    let (_, name) = crate::location::split_system(location);
    SystemTable::parse(&name?, release)
        .ok()
        .filter(|s| s.is_metadata())
}

/// Reads the system table `location` names with both readers and compares them.
///
/// Errors: [`Error::Table`] naming the location when it names no metadata system table; the native
/// reader's error (the table, a metadata file) and the released reader's ([`jvm_bridge::Error::Java`]),
/// each as it is.
pub fn compare(
    location: &Path,
    release: PaimonRelease,
    stock: &StockTableReader,
) -> Result<SystemTableParity> {
    let Some(system) = metadata_table(location, release) else {
        return Err(Error::Table {
            path: location.to_path_buf(),
            reason: "not a metadata system table (`$snapshots`, `$schemas`, `$options`, `$tags`, \
                     `$manifests`, `$partitions`, `$buckets`, `$files`)"
                .into(),
        });
    };
    let (base, branch) = crate::location::split_branch(location);
    let table = Table::open_branch(&base, branch.as_deref(), release)?;
    let native = metadata::read_with_order(&table, system)?;
    let stock_batches: Vec<RecordBatch> = stock
        .bridge()
        .read_system_table(location)?
        .collect::<std::result::Result<_, _>>()?;
    let mut masked_identities = 0;
    let mask = (system == SystemTable::Files).then_some(&mut masked_identities);
    let first_difference = first_difference(&stock_batches, &native.batch, &native.unordered, mask);
    Ok(SystemTableParity {
        location: location.to_path_buf(),
        system_table: system.name().to_owned(),
        stock_rows: stock_batches.iter().map(RecordBatch::num_rows).sum(),
        native_rows: native.batch.num_rows(),
        columns: native.batch.num_columns(),
        first_difference,
        masked_identities,
        unordered_rows: native.unordered.iter().map(|r| r.len()).sum(),
    })
}

/// The first difference between the released reader's batches and the native batch: a column's name or
/// Arrow type, then a row (rendered as `+I (…)`), then the row counts. With `masked` (`$files`), the Java
/// object identities of the released reader's rows are masked first ([`mask_identities`]) and counted there.
/// Within each `unordered` row range, both sides' rows are put in one order of their partitions first
/// ([`order_partitions`]).
fn first_difference(
    stock: &[RecordBatch],
    native: &RecordBatch,
    unordered: &[std::ops::Range<usize>],
    mut masked: Option<&mut usize>,
) -> Option<String> {
    let native_schema = native.schema();
    if let Some(first) = stock.first() {
        let stock_schema = first.schema();
        if stock_schema.fields().len() != native_schema.fields().len() {
            return Some(format!(
                "columns: stock {:?}, native {:?}",
                names(&stock_schema),
                names(&native_schema)
            ));
        }
        for (s, n) in stock_schema.fields().iter().zip(native_schema.fields()) {
            if s.name() != n.name()
                || s.data_type() != n.data_type()
                || s.is_nullable() != n.is_nullable()
            {
                return Some(format!(
                    "column `{}`: stock {} {}, native `{}` {} {}",
                    s.name(),
                    s.data_type(),
                    nullability(s.is_nullable()),
                    n.name(),
                    n.data_type(),
                    nullability(n.is_nullable())
                ));
            }
        }
    }
    let partitions = !unordered.is_empty();
    let mut stock_rows: Vec<(String, String)> = stock
        .iter()
        .flat_map(|b| rendered(b, partitions))
        .map(|(partition, row)| match masked.as_deref_mut() {
            Some(count) => (partition, mask_identities(&row, count)),
            None => (partition, row),
        })
        .collect();
    let mut native_rows = rendered(native, partitions);
    for range in unordered {
        order_partitions(&mut stock_rows, range);
        order_partitions(&mut native_rows, range);
    }
    for (i, ((_, s), (_, n))) in stock_rows.iter().zip(&native_rows).enumerate() {
        if s != n {
            let within = match unordered.iter().find(|r| r.contains(&i)) {
                Some(r) => format!(" (of rows {r:?}, compared by partition in any order)"),
                None => String::new(),
            };
            return Some(format!("row {i}{within}: stock {s}, native {n}"));
        }
    }
    (stock_rows.len() != native_rows.len()).then(|| {
        format!(
            "stock {} rows, native {} rows",
            stock_rows.len(),
            native_rows.len()
        )
    })
}

/// The rows of `batch` rendered (`+I (…)`), each with its `partition` column's value when `partitions`
/// (empty otherwise, or without such a column).
fn rendered(batch: &RecordBatch, partitions: bool) -> Vec<(String, String)> {
    let column = partitions
        .then(|| batch.schema().index_of("partition").ok())
        .flatten()
        .map(|i| batch.column(i).clone());
    (0..batch.num_rows())
        .map(|row| {
            let partition = column
                .as_ref()
                .map(|c| crate::diff::render_value(c.as_ref(), row))
                .unwrap_or_default();
            (partition, crate::diff::render_row(batch, row))
        })
        .collect()
}

/// Puts the rows of `range` (those that exist) in one order of their partitions: the runs of rows of one
/// partition (by their `partition` value), each kept in its order, sorted by their rendered rows.
fn order_partitions(rows: &mut [(String, String)], range: &std::ops::Range<usize>) {
    let end = range.end.min(rows.len());
    if range.start >= end {
        return;
    }
    let span = &mut rows[range.start..end];
    let mut runs: Vec<Vec<(String, String)>> = Vec::new();
    for row in span.iter() {
        match runs.last_mut() {
            Some(run) if run[0].0 == row.0 => run.push(row.clone()),
            _ => runs.push(vec![row.clone()]),
        }
    }
    runs.sort_by_cached_key(|run| run.iter().map(|(_, r)| r.clone()).collect::<Vec<_>>());
    for (slot, row) in span.iter_mut().zip(runs.into_iter().flatten()) {
        *slot = row;
    }
}

/// `row` with every Java array identity (`[B@` and hex digits) replaced by
/// [`native_reader::system::BINARY_IDENTITY`], adding the replacements to `count`.
fn mask_identities(row: &str, count: &mut usize) -> String {
    const PREFIX: &str = "[B@";
    let mut out = String::with_capacity(row.len());
    let mut rest = row;
    while let Some(at) = rest.find(PREFIX) {
        out.push_str(&rest[..at]);
        let after = &rest[at + PREFIX.len()..];
        let digits = after
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(after.len());
        if digits == 0 {
            out.push_str(PREFIX);
        } else {
            out.push_str(native_reader::system::BINARY_IDENTITY);
            *count += 1;
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

fn names(schema: &arrow_schema::Schema) -> Vec<&str> {
    schema.fields().iter().map(|f| f.name().as_str()).collect()
}

fn nullability(nullable: bool) -> &'static str {
    if nullable {
        "NULL"
    } else {
        "NOT NULL"
    }
}

/// One line of a system table's comparison: `IDENTICAL: system table $snapshots, 3 rows, 14 columns` or
/// `DIFFERS: system table $snapshots: <first difference>`.
pub fn summary_line(p: &SystemTableParity) -> String {
    match &p.first_difference {
        None if p.native_rows == 0 && p.stock_rows == 0 => format!(
            "NOTHING-COMPARED: system table ${}: neither reader returned a row",
            p.system_table
        ),
        None => format!(
            "IDENTICAL: system table ${}, {} rows, {} columns (stock {} rows, native {} rows){}{}",
            p.system_table,
            p.native_rows,
            p.columns.saturating_sub(1),
            p.stock_rows,
            p.native_rows,
            match p.masked_identities {
                0 => String::new(),
                n => format!(
                    "; {n} BINARY bounds not compared (Java prints object identities: `{}`)",
                    native_reader::system::BINARY_IDENTITY
                ),
            },
            match p.unordered_rows {
                0 => String::new(),
                n => format!(
                    "; {n} rows compared by partition in any order (partitions of one hash-map bin, \
                     ordered there by the released reader's threads)"
                ),
            }
        ),
        Some(d) => format!("DIFFERS: system table ${}: {d}", p.system_table),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_array_identities_are_masked_and_counted() {
        let mut count = 0;
        let row = r#"+I ("{b=[B@1b6d3586, c=x}", "{b=[B@7a81197d, c=[B@}")"#;
        assert_eq!(
            mask_identities(row, &mut count),
            r#"+I ("{b=[B@<identity>, c=x}", "{b=[B@<identity>, c=[B@}")"#
        );
        // `[B@` without hex digits after it is text, not an identity.
        assert_eq!(count, 2);
    }

    fn rows(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(p, r)| (p.to_string(), r.to_string()))
            .collect()
    }

    /// Partitions swapped inside the range compare equal; a swap of rows within one partition, or a row
    /// moved out of the range, still differs.
    #[test]
    fn unordered_ranges_compare_partitions_in_any_order_and_rows_in_order() {
        let range = 1..4;
        let ordered = |mut list: Vec<(String, String)>| {
            order_partitions(&mut list, &range);
            list
        };
        let stock = rows(&[
            ("a", "0"),
            ("p", "p1"),
            ("p", "p2"),
            ("q", "q1"),
            ("z", "9"),
        ]);
        let native = rows(&[
            ("a", "0"),
            ("q", "q1"),
            ("p", "p1"),
            ("p", "p2"),
            ("z", "9"),
        ]);
        assert_eq!(ordered(stock.clone()), ordered(native));
        let swapped_within = rows(&[
            ("a", "0"),
            ("q", "q1"),
            ("p", "p2"),
            ("p", "p1"),
            ("z", "9"),
        ]);
        assert_ne!(ordered(stock.clone()), ordered(swapped_within));
        let out_of_range = rows(&[
            ("q", "q1"),
            ("a", "0"),
            ("p", "p1"),
            ("p", "p2"),
            ("z", "9"),
        ]);
        assert_ne!(ordered(stock), ordered(out_of_range));
    }
}
