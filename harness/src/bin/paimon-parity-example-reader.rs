//! `paimon-parity-example-reader`: a minimal external reader speaking `paimon-parity-reader/1`
//! (`adapters/README.md`), over this project's native reader. It shows an adapter author the whole
//! exchange, and the protocol tests run it, also with planted faults.
//!
//! ```text
//! paimon-parity-example-reader describe        # prints what it serves
//! paimon-parity-example-reader [--fault F] [--fault-split N] < request.json > answers.arrows
//! ```
//!
//! It rebuilds each split from the request's plain `split` description (it never decodes `java_split`)
//! and reads it with `native_reader::merge::read_split`. `--fault` plants one misbehaviour at split `N`
//! (default: the first split with rows): `crash` (exits 101 before answering it), `hang` (stops answering),
//! `garbage` (writes bytes that are not Arrow IPC), `wrong-schema` (names its first column `row_kind`),
//! `change-value` (changes the last column of the first row), `drop-row` (leaves out the last row),
//! `error` and `unsupported` (answers that status), `short` (stops after that split with exit 0).

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{Field, Schema, SchemaRef};
use harness::external::{
    Action, Description, PlanAnswer, PlannedBySelf, Request, META_MESSAGE, META_READER, META_SPLIT,
    META_STATUS, PROTOCOL,
};
use native_reader::scan::ScanMode;
use native_reader::{PaimonRelease, Split, Table};

const READER: &str = concat!("paimon-parity-example-reader ", env!("CARGO_PKG_VERSION"));

#[derive(Clone, Copy, PartialEq, Eq)]
enum Fault {
    Crash,
    Hang,
    Garbage,
    WrongSchema,
    ChangeValue,
    DropRow,
    Error,
    Unsupported,
    Short,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("describe") {
        let d = Description {
            protocol: PROTOCOL.into(),
            reader: READER.into(),
            actions: vec![Action::Read, Action::Plan],
        };
        println!("{}", serde_json::to_string(&d).unwrap_or_default());
        return;
    }
    let mut fault = None;
    let mut fault_split: Option<usize> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--fault" => {
                fault = Some(match it.next().map(String::as_str) {
                    Some("crash") => Fault::Crash,
                    Some("hang") => Fault::Hang,
                    Some("garbage") => Fault::Garbage,
                    Some("wrong-schema") => Fault::WrongSchema,
                    Some("change-value") => Fault::ChangeValue,
                    Some("drop-row") => Fault::DropRow,
                    Some("error") => Fault::Error,
                    Some("unsupported") => Fault::Unsupported,
                    Some("short") => Fault::Short,
                    other => die(&format!("unknown --fault {other:?}")),
                })
            }
            "--fault-split" => {
                fault_split = it.next().and_then(|n| n.parse().ok());
            }
            other => die(&format!("unknown argument `{other}`")),
        }
    }
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        die(&format!("cannot read the request: {e}"));
    }
    let request: Request = serde_json::from_slice(&input).unwrap_or_else(|e| {
        die(&format!(
            "the request is not paimon-parity-reader/1 JSON: {e}"
        ))
    });
    if request.protocol != PROTOCOL {
        die(&format!("unknown protocol `{}`", request.protocol));
    }
    let line =
        PaimonRelease::parse(&request.paimon_version).unwrap_or_else(|e| die(&e.to_string()));
    let table = Table::open_as(Path::new(&request.table_path), line).map(Arc::new);
    match request.action {
        Action::Plan => plan(&request, table),
        Action::Read => read(&request, table, fault, fault_split),
    }
}

fn die(message: &str) -> ! {
    eprintln!("paimon-parity-example-reader: {message}");
    std::process::exit(2)
}

fn plan(request: &Request, table: native_reader::Result<Arc<Table>>) {
    let table = table.unwrap_or_else(|e| die(&e.to_string()));
    let scan = &request.scan;
    let mode = match scan.mode.as_str() {
        "stream" => ScanMode::Stream {
            from_snapshot: scan.from_snapshot.unwrap_or(1),
        },
        "stream-full" => ScanMode::StreamFull {
            from_snapshot: scan.from_snapshot.unwrap_or(1),
        },
        "latest-full" => ScanMode::LatestFull,
        "batch" => ScanMode::Batch {
            snapshot: scan.snapshot,
        },
        other => die(&format!("unknown scan mode `{other}`")),
    };
    let splits = table
        .plan(mode, scan.end_snapshot)
        .unwrap_or_else(|e| die(&e.to_string()));
    let answer = PlanAnswer {
        splits: splits
            .into_iter()
            .map(|split| PlannedBySelf {
                split,
                java_split: None,
                split_type: None,
            })
            .collect(),
    };
    println!("{}", serde_json::to_string(&answer).unwrap_or_default());
}

fn read(
    request: &Request,
    table: native_reader::Result<Arc<Table>>,
    fault: Option<Fault>,
    fault_split: Option<usize>,
) {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    // The split the fault is planted in: as asked, else the first one with rows.
    let target = fault_split.or_else(|| {
        request
            .splits
            .iter()
            .position(|s| s.split.data_files.iter().any(|f| f.row_count > 0))
    });
    for s in &request.splits {
        let here = fault.filter(|_| Some(s.index) == target);
        match here {
            Some(Fault::Crash) => {
                let _ = out.flush();
                eprintln!("example reader: planted crash at split {}", s.index);
                std::process::exit(101);
            }
            Some(Fault::Hang) => {
                let _ = out.flush();
                eprintln!("example reader: planted hang at split {}", s.index);
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
            Some(Fault::Garbage) => {
                let _ = out.write_all(b"this is not an Arrow IPC stream\n");
                let _ = out.flush();
                std::process::exit(0);
            }
            _ => {}
        }
        let answer = match (&table, here) {
            (_, Some(Fault::Error)) => Err(("error", "planted error".to_owned())),
            (_, Some(Fault::Unsupported)) => {
                Err(("unsupported", "planted unsupported feature".to_owned()))
            }
            (Err(e), _) => Err(("error", e.to_string())),
            (Ok(t), _) => read_split(t, &s.split).map_err(|e| {
                let status = if matches!(e, native_reader::Error::Unsupported { .. }) {
                    "unsupported"
                } else {
                    "error"
                };
                (status, e.to_string())
            }),
        };
        let (schema, batches, status, message) = match answer {
            Ok((schema, batches)) => (schema, batches, "ok", String::new()),
            Err((status, message)) => (
                Arc::new(native_reader::types::read_schema(&[])),
                Vec::new(),
                status,
                message,
            ),
        };
        let (schema, batches) = match here {
            Some(Fault::WrongSchema) => rename_first(schema, batches),
            Some(Fault::ChangeValue) => (schema.clone(), change_first_row(&schema, batches)),
            Some(Fault::DropRow) => (schema.clone(), drop_last_row(batches)),
            _ => (schema, batches),
        };
        if let Err(e) = write_stream(&mut out, s.index, &schema, &batches, status, &message) {
            die(&format!("cannot write split {}: {e}", s.index));
        }
        if here == Some(Fault::Short) {
            break;
        }
    }
    let _ = out.flush();
}

fn read_split(
    table: &Arc<Table>,
    split: &Split,
) -> native_reader::Result<(SchemaRef, Vec<RecordBatch>)> {
    let reader =
        native_reader::merge::read_split(table, split, native_reader::decode::DEFAULT_BATCH_SIZE)?;
    let schema = reader.schema();
    let batches = reader.collect::<native_reader::Result<Vec<_>>>()?;
    Ok((schema, batches))
}

fn write_stream(
    out: &mut dyn Write,
    index: usize,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    status: &str,
    message: &str,
) -> Result<(), arrow_schema::ArrowError> {
    let mut meta = HashMap::new();
    meta.insert(META_SPLIT.to_owned(), index.to_string());
    meta.insert(META_STATUS.to_owned(), status.to_owned());
    meta.insert(META_READER.to_owned(), READER.to_owned());
    if !message.is_empty() {
        meta.insert(META_MESSAGE.to_owned(), message.to_owned());
    }
    let schema = Arc::new(Schema::new_with_metadata(schema.fields().clone(), meta));
    let mut w = StreamWriter::try_new(out, &schema)?;
    for b in batches {
        w.write(&RecordBatch::try_new(schema.clone(), b.columns().to_vec())?)?;
    }
    w.finish()
}

fn rename_first(schema: SchemaRef, batches: Vec<RecordBatch>) -> (SchemaRef, Vec<RecordBatch>) {
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    if let Some(f) = fields.first_mut() {
        *f = Field::new("row_kind", f.data_type().clone(), f.is_nullable());
    }
    let schema = Arc::new(Schema::new(fields));
    let batches = batches
        .into_iter()
        .filter_map(|b| RecordBatch::try_new(schema.clone(), b.columns().to_vec()).ok())
        .collect();
    (schema, batches)
}

/// The last column of the first row replaced by the value of another row, or by NULL when there is no
/// other distinct value (a planted decoding difference).
fn change_first_row(schema: &SchemaRef, batches: Vec<RecordBatch>) -> Vec<RecordBatch> {
    let mut out = Vec::with_capacity(batches.len());
    let mut done = false;
    for b in batches {
        if done || b.num_rows() == 0 {
            out.push(b);
            continue;
        }
        done = true;
        let last = b.num_columns() - 1;
        let column = b.column(last);
        // Take row 1's value for row 0 (or NULL for a one-row batch): indices [1, 1, 2, ...].
        let indices: Vec<Option<u32>> = (0..b.num_rows() as u32)
            .map(|i| {
                if i == 0 {
                    (b.num_rows() > 1).then_some(1)
                } else {
                    Some(i)
                }
            })
            .collect();
        let indices = arrow_array::UInt32Array::from(indices);
        let changed: ArrayRef = match arrow_select::take::take(column.as_ref(), &indices, None) {
            Ok(a) => a,
            Err(_) => column.clone(),
        };
        let same = changed.len() == column.len()
            && arrow_ord::cmp::not_distinct(&changed.slice(0, 1), &column.slice(0, 1))
                .map(|eq| eq.value(0))
                .unwrap_or(false);
        let changed = if same {
            arrow_array::new_null_array(column.data_type(), column.len())
        } else {
            changed
        };
        let mut columns = b.columns().to_vec();
        columns[last] = changed;
        out.push(RecordBatch::try_new(schema.clone(), columns).unwrap_or(b));
    }
    out
}

fn drop_last_row(mut batches: Vec<RecordBatch>) -> Vec<RecordBatch> {
    if let Some(i) = batches.iter().rposition(|b| b.num_rows() > 0) {
        let b = &batches[i];
        batches[i] = b.slice(0, b.num_rows() - 1);
    }
    batches
}
