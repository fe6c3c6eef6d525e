//! `paimon-parity sql`: DataFusion SQL over Paimon tables ([`paimon_sql::SqlSession`]), their system tables,
//! and a replay's two sides.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use native_reader::scan::ScanMode;

use crate::cli::SqlArgs;
use crate::error::{Error, Result};
use crate::reader::{NativeTableReader, StockTableReader, TableReader};
use crate::replay::resolve_table;

pub(super) fn run(args: SqlArgs) -> Result<i32> {
    if let Some(v) = &args.paimon_version {
        jvm_bridge::jvm::select_paimon_version(v)?;
    }
    let release = crate::reader::this_release()?;
    let mut session = paimon_sql::SqlSession::new(release)?;
    for (spec, stream) in args
        .tables
        .iter()
        .map(|s| (s, false))
        .chain(args.streams.iter().map(|s| (s, true)))
    {
        let Some((name, location)) = spec.split_once('=') else {
            let option = if stream { "--stream" } else { "--table" };
            return Err(Error::Usage(format!(
                "{option} {spec}: expected NAME=LOCATION"
            )));
        };
        let location = resolve_table(Path::new(location))?;
        let registered = if stream {
            session.register_stream(name, &location, None)
        } else {
            session.register_table(name, &location)
        };
        registered.map_err(|e| native_error(e, &location))?;
    }
    if let Some(table) = &args.replay {
        let location = resolve_table(table)?;
        let stock = StockTableReader::new()?;
        let native = NativeTableReader::for_this_process()?;
        for (name, reader) in [
            ("stock", &stock as &dyn TableReader),
            ("native", &native as &dyn TableReader),
        ] {
            let (schema, batches) = batch_scan(reader, &location)?;
            session.register_batches_with_schema(name, schema, batches)?;
        }
    }
    let batches = session.query(&args.query)?;
    write_result(&args, &batches)?;
    Ok(0)
}

/// A table that cannot be registered: the native reader's error as the replay reports it.
fn native_error(e: paimon_sql::Error, location: &Path) -> Error {
    match e {
        paimon_sql::Error::Native(n) => Error::Native(n),
        paimon_sql::Error::Usage(u) => Error::Usage(format!("{}: {u}", location.display())),
        other => other.into(),
    }
}

/// Every row of `reader`'s batch scan of the latest snapshot, in plain Arrow types ([`plain`]).
fn batch_scan(
    reader: &dyn TableReader,
    location: &Path,
) -> Result<(Arc<Schema>, Vec<RecordBatch>)> {
    let mode = ScanMode::Batch { snapshot: None };
    let splits = reader.plan(location, mode, i64::MAX)?;
    let mut batches = Vec::new();
    for split in &splits {
        for batch in reader.read_split(location, split)? {
            batches.push(plain(&batch?)?);
        }
    }
    let schema = match batches.first() {
        Some(b) => b.schema(),
        None => Arc::new(Schema::empty()),
    };
    Ok((schema, batches))
}

/// `batch` with string and binary views as `Utf8` / `Binary` and no field metadata, so that the two readers'
/// rows have one schema (the native reader returns views for Parquet tables, the released reader does not).
fn plain(batch: &RecordBatch) -> Result<RecordBatch> {
    let mut fields = Vec::with_capacity(batch.num_columns());
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(batch.num_columns());
    for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
        let to = match field.data_type() {
            DataType::Utf8View => DataType::Utf8,
            DataType::BinaryView => DataType::Binary,
            other => other.clone(),
        };
        let column = if &to == field.data_type() {
            column.clone()
        } else {
            arrow_cast::cast(column, &to).map_err(|e| Error::Compare(e.to_string()))?
        };
        fields.push(Field::new(field.name(), to, field.is_nullable()));
        columns.push(column);
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
        .map_err(|e| Error::Compare(e.to_string()))
}

/// Prints the result as a table, or writes it as JSON, CSV (to a file or `-`) or Arrow IPC.
fn write_result(args: &SqlArgs, batches: &[RecordBatch]) -> Result<()> {
    let target = args
        .json
        .as_ref()
        .or(args.csv.as_ref())
        .or(args.arrow.as_ref());
    let io = |e: std::io::Error| Error::Io {
        path: target.cloned().unwrap_or_else(|| "<stdout>".into()),
        source: e,
    };
    let arrow_err = |e: arrow_schema::ArrowError| Error::Compare(e.to_string());
    let mut out: Box<dyn Write> = match target {
        Some(path) if path.as_os_str() != "-" => Box::new(std::fs::File::create(path).map_err(io)?),
        _ => Box::new(std::io::stdout().lock()),
    };
    if args.arrow.is_some() {
        let schema = batches
            .first()
            .map_or_else(|| Arc::new(Schema::empty()), RecordBatch::schema);
        let mut writer =
            arrow_ipc::writer::FileWriter::try_new(&mut out, &schema).map_err(arrow_err)?;
        for b in batches {
            writer.write(b).map_err(arrow_err)?;
        }
        writer.finish().map_err(arrow_err)?;
    } else if args.json.is_some() {
        let mut writer = arrow_json::ArrayWriter::new(&mut out);
        let refs: Vec<&RecordBatch> = batches.iter().collect();
        writer.write_batches(&refs).map_err(arrow_err)?;
        writer.finish().map_err(arrow_err)?;
        out.write_all(b"\n").map_err(io)?;
    } else if args.csv.is_some() {
        let mut writer = arrow_csv::Writer::new(&mut out);
        for b in batches {
            writer.write(b).map_err(arrow_err)?;
        }
    } else {
        let text = arrow::util::pretty::pretty_format_batches(batches).map_err(arrow_err)?;
        out.write_all(format!("{text}\n").as_bytes()).map_err(io)?;
    }
    out.flush().map_err(io)
}
