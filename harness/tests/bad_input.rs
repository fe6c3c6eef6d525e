//! Bad input: damaged copies of committed corpora (and of small tables written here with the released
//! writer), one fault per case, read by both readers.
//!
//! For every case:
//! * `paimon-parity replay` (a child process per case) exits with the status the case expects (2 when a
//!   reader cannot read the table, 1 when both read it and differ, 0 when the damage is one Paimon
//!   tolerates), its output names the damaged file and, for every reader that fails, the cause; it never
//!   panics, aborts or dies of a signal, and the JVM never writes an `hs_err` crash file;
//! * in one process, both readers are driven directly through `harness::reader`: each either reads the
//!   damaged table or fails with an error naming the file and the cause, as the case records, and after
//!   every stock failure the same JVM still reads a good table correctly.
//!
//! Where the released Java reader accepts what the native reader rejects (or the other way round), the
//! case records it (`stock: Reads` with `native: Fails(..)`) and the harness output must say so.

use crate::common;
use crate::damage;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use harness::reader::{StockTableReader, TableReader};
use native_reader::scan::ScanMode;

use damage::*;

/// What one reader does with a damaged table.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// Plans and reads every split without error.
    Reads,
    /// Fails with an error that names the damaged file and contains each of these (case-insensitive).
    Fails(&'static [&'static str]),
    /// Fails with an error that contains each of these, but does not name the damaged file: released
    /// Paimon does not put the path into its JSON-parser, type-parser and Avro-codec errors. The harness
    /// output still names the file (through the native reader's error).
    FailsUnnamed(&'static [&'static str]),
}

/// Which scan the case replays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `--mode stream` from snapshot 1 (the default).
    Stream,
    /// `--mode batch` of the latest snapshot (deletion vectors are applied by batch reads).
    Batch,
}

/// One damaged table.
struct Case {
    name: &'static str,
    /// The table to copy and damage.
    base: fn() -> PathBuf,
    mode: Mode,
    /// Damages the copy; returns the file name (or path fragment) the errors must name.
    damage: fn(&Path) -> String,
    native: Expect,
    stock: Expect,
    /// Exit status of `paimon-parity replay`.
    exit: i32,
}

use Expect::{Fails, FailsUnnamed, Reads};

fn snapshot_file(t: &Path, id: i64) -> PathBuf {
    t.join("snapshot").join(format!("snapshot-{id}"))
}

/// The manifest named first by the changelog manifest list of C00's snapshot 2 (read by the stream scan).
fn c00_changelog_manifest(t: &Path) -> PathBuf {
    let list = snapshot(t, 2)
        .changelog_manifest_list
        .expect("changelog list");
    t.join("manifest").join(&manifests_of(t, &list)[0])
}

/// The changelog data file the stream scan reads at C00's snapshot 2.
fn c00_changelog_file(t: &Path) -> PathBuf {
    files_with_prefix(&t.join("bucket-0"), "changelog-")
        .into_iter()
        .next()
        .expect("a changelog file")
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "snapshot JSON truncated (half-written snapshot-2)",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                truncate(&snapshot_file(t, 2), 0.5);
                "snapshot-2".into()
            },
            native: Fails(&["invalid JSON", "EOF"]),
            stock: FailsUnnamed(&["JsonMappingException", "end-of-input"]),
            exit: 2,
        },
        Case {
            name: "snapshot file empty (crash before the first byte)",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                fs::write(snapshot_file(t, 2), b"").unwrap();
                "snapshot-2".into()
            },
            native: Fails(&["invalid JSON"]),
            stock: FailsUnnamed(&["No content", "end-of-input"]),
            exit: 2,
        },
        Case {
            name: "snapshot JSON invalid",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                fs::write(snapshot_file(t, 2), "{ this is not JSON").unwrap();
                "snapshot-2".into()
            },
            native: Fails(&["invalid JSON"]),
            stock: FailsUnnamed(&["JsonParseException"]),
            exit: 2,
        },
        Case {
            name: "snapshot JSON without commitKind",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                let p = snapshot_file(t, 2);
                let text = fs::read_to_string(&p).unwrap();
                let kept: Vec<&str> = text
                    .lines()
                    .filter(|l| !l.contains("\"commitKind\""))
                    .collect();
                fs::write(&p, kept.join("\n")).unwrap();
                "snapshot-2".into()
            },
            native: Fails(&["invalid JSON", "commitKind"]),
            // Jackson leaves commitKind null; Java's follow-up scanner then skips snapshot 2 as "not
            // COMPACT" and silently drops its changelog (2 rows instead of 3).
            stock: Reads,
            exit: 2,
        },
        Case {
            name: "snapshot missing in the middle of the chain",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                fs::remove_file(snapshot_file(t, 2)).unwrap();
                "snapshot-2".into()
            },
            native: Fails(&["does not exist"]),
            // Java's stream scan waits for the missing snapshot (SnapshotNotExistPlan): no error.
            stock: Reads,
            exit: 2,
        },
        Case {
            name: "LATEST hint stale (2 of 4)",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                fs::write(t.join("snapshot/LATEST"), "2").unwrap();
                "LATEST".into()
            },
            native: Reads,
            stock: Reads,
            exit: 0,
        },
        Case {
            name: "LATEST hint garbage",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                fs::write(t.join("snapshot/LATEST"), "\u{0}zz\n").unwrap();
                "LATEST".into()
            },
            native: Reads,
            stock: Reads,
            exit: 0,
        },
        Case {
            name: "LATEST hint ahead of the last snapshot (9 of 4)",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                fs::write(t.join("snapshot/LATEST"), "9").unwrap();
                "snapshot-5".into()
            },
            // Both trust the hint (Java's rule); the native planner then misses snapshot 5, the Java
            // stream scan waits for it.
            native: Fails(&["does not exist"]),
            stock: Reads,
            exit: 2,
        },
        Case {
            name: "EARLIEST hint garbage",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                fs::write(t.join("snapshot/EARLIEST"), "-x").unwrap();
                "EARLIEST".into()
            },
            native: Reads,
            stock: Reads,
            exit: 0,
        },
        Case {
            name: "EARLIEST hint stale (snapshot 1 expired)",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                fs::remove_file(snapshot_file(t, 1)).unwrap();
                fs::write(t.join("snapshot/EARLIEST"), "1").unwrap();
                "EARLIEST".into()
            },
            native: Reads,
            stock: Reads,
            exit: 0,
        },
        Case {
            name: "orphan files (temporary snapshot, stray manifest, stray data file)",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                fs::write(t.join("snapshot/.snapshot-5.3f1c.tmp"), "{").unwrap();
                fs::write(t.join("manifest/manifest-orphan-0"), "garbage").unwrap();
                fs::write(t.join("bucket-0/data-orphan-0.parquet"), "garbage").unwrap();
                "orphan".into()
            },
            native: Reads,
            stock: Reads,
            exit: 0,
        },
        Case {
            name: "snapshot names a missing manifest list",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                let list = snapshot(t, 2).changelog_manifest_list.unwrap();
                fs::remove_file(t.join("manifest").join(&list)).unwrap();
                list
            },
            native: Fails(&["No such file"]),
            stock: Fails(&["FileNotFoundException", "not found"]),
            exit: 2,
        },
        Case {
            name: "manifest list names a missing manifest",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                let m = c00_changelog_manifest(t);
                fs::remove_file(&m).unwrap();
                name(&m)
            },
            native: Fails(&["No such file"]),
            stock: Fails(&["FileNotFoundException", "not found"]),
            exit: 2,
        },
        Case {
            name: "manifest list truncated (Avro)",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                let list = snapshot(t, 2).changelog_manifest_list.unwrap();
                truncate(&t.join("manifest").join(&list), 0.6);
                list
            },
            native: Fails(&["invalid Avro", "header"]),
            stock: Fails(&["EOFException"]),
            exit: 2,
        },
        Case {
            name: "manifest truncated in its data block (Avro)",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                let m = c00_changelog_manifest(t);
                let b = fs::read(&m).unwrap();
                fs::write(&m, &b[..b.len() - 40]).unwrap();
                name(&m)
            },
            native: Fails(&["invalid Avro", "block 0", "remain"]),
            // Java's Avro reader stops at the truncated block without an error: the manifest's entries
            // are silently lost (snapshot 2's changelog split disappears).
            stock: Reads,
            exit: 2,
        },
        Case {
            name: "manifest with the wrong codec in its header (zstandard blocks, deflate header)",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                let m = c00_changelog_manifest(t);
                let old = set_avro_codec(&m, "deflate");
                assert_eq!(old, "zstandard");
                name(&m)
            },
            native: Fails(&["invalid Avro", "flate"]),
            stock: FailsUnnamed(&["ZipException"]),
            exit: 2,
        },
        Case {
            name: "manifest with an unknown codec",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                let m = c00_changelog_manifest(t);
                set_avro_codec(&m, "lzma-9");
                name(&m)
            },
            native: Fails(&["invalid Avro", "lzma-9"]),
            stock: FailsUnnamed(&["Unrecognized codec: lzma-9"]),
            exit: 2,
        },
        Case {
            name: "Parquet footer corrupt (footer length past the start of the file)",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                let f = c00_changelog_file(t);
                let len = fs::metadata(&f).unwrap().len() as usize;
                let mut b = fs::read(&f).unwrap();
                b[len - 8..len - 4].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
                fs::write(&f, b).unwrap();
                name(&f)
            },
            native: Fails(&["Parquet"]),
            stock: Fails(&["footer"]),
            exit: 2,
        },
        Case {
            name: "Parquet page corrupt (values of column v)",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                let f = c00_changelog_file(t);
                corrupt_parquet_column(&f, "v");
                name(&f)
            },
            native: Fails(&["cannot decode", "Parquet"]),
            stock: Fails(&["PageHeader"]),
            exit: 2,
        },
        Case {
            name: "Parquet file truncated",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                let f = c00_changelog_file(t);
                truncate(&f, 0.5);
                name(&f)
            },
            native: Fails(&["Parquet"]),
            stock: Fails(&["not a Parquet file"]),
            exit: 2,
        },
        Case {
            name: "data file missing",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                let f = c00_changelog_file(t);
                fs::remove_file(&f).unwrap();
                name(&f)
            },
            native: Fails(&["No such file"]),
            stock: Fails(&["FileNotFoundException", "not found"]),
            exit: 2,
        },
        Case {
            name: "zero-row data file (manifest says 1 row)",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                let f = c00_changelog_file(t);
                rewrite_parquet_rows(&f, 0);
                name(&f)
            },
            // Java trusts the file and returns no row; the native reader checks the manifest's row count.
            native: Fails(&["0 rows", "records 1"]),
            stock: Reads,
            exit: 2,
        },
        Case {
            name: "data file 1000 times larger than its manifest says (valid Parquet, 60000 rows)",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                let f = c00_changelog_file(t);
                let before = fs::metadata(&f).unwrap().len();
                rewrite_parquet_rows(&f, 60_000);
                let after = fs::metadata(&f).unwrap().len();
                assert!(after >= 1000 * before, "{after} < 1000 x {before}");
                name(&f)
            },
            // The native reader stops at the first batch past the manifest's row count; the stock reader
            // reads the split without error but returns none of the file's 60000 rows.
            native: Fails(&["more than the 1 rows"]),
            stock: Reads,
            exit: 2,
        },
        Case {
            name: "data file 1000 times larger than its manifest says (trailing garbage)",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                let f = c00_changelog_file(t);
                let mut b = fs::read(&f).unwrap();
                let garbage: Vec<u8> = (0..b.len() * 1000).map(|i| (i * 31 % 251) as u8).collect();
                b.extend_from_slice(&garbage);
                fs::write(&f, b).unwrap();
                name(&f)
            },
            native: Fails(&["Parquet"]),
            stock: Fails(&["not a Parquet file"]),
            exit: 2,
        },
        Case {
            name: "ORC data file truncated",
            base: orc_table,
            mode: Mode::Stream,
            damage: |t| {
                let f = files_with_prefix(&t.join("bucket-0"), "data-")
                    .into_iter()
                    .find(|p| name(p).ends_with("-0.orc"))
                    .expect("the first ORC data file");
                truncate(&f, 0.5);
                name(&f)
            },
            native: Fails(&["cannot decode", "ORC"]),
            stock: Fails(&["InvalidProtocolBufferException", "truncated"]),
            exit: 2,
        },
        Case {
            name: "ORC data file whose postscript announces a footer past the file (fuzzer input)",
            base: orc_table,
            mode: Mode::Stream,
            damage: |t| {
                let f = files_with_prefix(&t.join("bucket-0"), "data-")
                    .into_iter()
                    .find(|p| name(p).ends_with("-0.orc"))
                    .expect("the first ORC data file");
                // Found by the `manifest` fuzz target: `orc-rust` sliced past the end of such a file.
                fs::write(
                    &f,
                    include_bytes!(
                        "../../native-reader/tests/fuzz-regressions/manifest-orc-tail-past-end"
                    ),
                )
                .unwrap();
                name(&f)
            },
            native: Fails(&["not a readable ORC file", "postscript announces a footer"]),
            stock: Fails(&["Problem reading file footer"]),
            exit: 2,
        },
        Case {
            name: "deletion vector with a wrong magic number",
            base: dv_table,
            mode: Mode::Batch,
            damage: |t| {
                let (index, offset, _) = first_deletion_vector(t);
                scribble(&index, offset as usize + 4, 4);
                name(&index)
            },
            native: Fails(&["magic"]),
            stock: Fails(&["magic"]),
            exit: 2,
        },
        Case {
            name: "deletion vector offset past the end of its index file",
            base: dv_table,
            mode: Mode::Batch,
            damage: |t| {
                let (index, offset, _) = first_deletion_vector(t);
                let b = fs::read(&index).unwrap();
                fs::write(&index, &b[..offset as usize]).unwrap();
                name(&index)
            },
            native: Fails(&["offset 1", "size field"]),
            stock: Fails(&["EOFException"]),
            exit: 2,
        },
        Case {
            name: "deletion vector deleting a position past its data file's rows",
            base: dv_table,
            mode: Mode::Batch,
            damage: |t| {
                let (index, offset, _) = first_deletion_vector(t);
                set_last_deleted_position(&index, offset, 60_000);
                name(&index)
            },
            // Java applies the vector as a filter and ignores positions past the end (the row the vector
            // no longer deletes comes back: 10 rows instead of 9).
            native: Fails(&["deletes row 60000", "10 rows"]),
            stock: Reads,
            exit: 2,
        },
        Case {
            name: "schema id with no schema file (data files of schema 0, only schema-1 left)",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                let p = t.join("schema/schema-0");
                let mut v: serde_json::Value =
                    serde_json::from_slice(&fs::read(&p).unwrap()).unwrap();
                v["id"] = serde_json::json!(1);
                fs::write(t.join("schema/schema-1"), v.to_string()).unwrap();
                fs::remove_file(&p).unwrap();
                "schema-0".into()
            },
            native: Fails(&["No such file"]),
            stock: Fails(&["No such file"]),
            exit: 2,
        },
        Case {
            name: "unknown type string in the schema",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                let p = t.join("schema/schema-0");
                let text = fs::read_to_string(&p).unwrap();
                fs::write(&p, text.replace("\"INT\"", "\"INTEGRAL\"")).unwrap();
                "schema-0".into()
            },
            native: Fails(&["unknown type", "INTEGRAL"]),
            stock: FailsUnnamed(&["Could not parse type", "INTEGRAL"]),
            exit: 2,
        },
        Case {
            name: "empty table: schema only, no snapshot",
            base: c00,
            mode: Mode::Stream,
            damage: |t| {
                for d in ["snapshot", "manifest", "bucket-0"] {
                    fs::remove_dir_all(t.join(d)).unwrap();
                }
                "snapshot".into()
            },
            // Both readers plan nothing; the harness has no snapshot to replay and says so.
            native: Reads,
            stock: Reads,
            exit: 2,
        },
    ]
}

/// Messages that must never appear: a Rust panic, a JVM crash, a fatal signal.
const CRASH_MARKERS: &[&str] = &[
    "panicked",
    "hs_err",
    "SIGSEGV",
    "SIGABRT",
    "fatal error",
    "A fatal error has been detected",
];

/// What the binary did with one damaged copy.
struct Run {
    code: Option<i32>,
    output: String,
    crash_files: Vec<PathBuf>,
}

fn run_binary(table: &Path, mode: Mode) -> Run {
    let cwd = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_paimon-parity"));
    cmd.current_dir(cwd.path()).arg("replay").arg(table);
    if mode == Mode::Batch {
        cmd.args(["--mode", "batch"]);
    }
    let out = cmd.output().expect("paimon-parity runs");
    // The JVM writes hs_err_pid*.log into its working directory when it crashes.
    let crash_files = fs::read_dir(cwd.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    Run {
        code: out.status.code(),
        output: format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        crash_files,
    }
}

fn contains(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}

/// Checks a failure message against an expectation; returns what is wrong.
fn check_failure(message: &str, file: &str, words: &[&str]) -> Option<String> {
    let mut missing: Vec<&str> = Vec::new();
    if !message.contains(file) {
        missing.push(file);
    }
    missing.extend(words.iter().filter(|w| !contains(message, w)));
    (!missing.is_empty()).then(|| format!("message lacks {missing:?}: {message}"))
}

#[test]
fn every_damaged_table_gives_a_precise_error_and_never_a_crash() {
    let cases = cases();
    // Generate the base tables first (in this process's JVM), then run the cases, three at a time.
    for c in &cases {
        (c.base)();
    }
    let mut failures = Vec::new();
    let mut lines = Vec::new();
    for chunk in cases.chunks(3) {
        let results: Vec<(String, Vec<String>)> = std::thread::scope(|s| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|c| {
                    s.spawn(move || {
                        let (_guard, table) = copy_of(&(c.base)());
                        let file = (c.damage)(&table);
                        let run = run_binary(&table, c.mode);
                        let mut problems = Vec::new();
                        if run.code != Some(c.exit) {
                            problems.push(format!("exit {:?}, expected {}", run.code, c.exit));
                        }
                        for m in CRASH_MARKERS {
                            if run.output.contains(m) {
                                problems.push(format!("crash marker `{m}` in the output"));
                            }
                        }
                        if !run.crash_files.is_empty() {
                            problems.push(format!("JVM crash files {:?}", run.crash_files));
                        }
                        if c.exit != 0 {
                            let mut words: Vec<&str> = Vec::new();
                            for e in [c.native, c.stock] {
                                if let Fails(w) | FailsUnnamed(w) = e {
                                    words.extend_from_slice(w);
                                }
                            }
                            if let Some(p) = check_failure(&run.output, &file, &words) {
                                problems.push(p);
                            }
                        }
                        let excerpt: String = run
                            .output
                            .lines()
                            .filter(|l| !l.trim_start().starts_with("identical"))
                            .collect::<Vec<_>>()
                            .join(" | ");
                        (
                            format!("{:<80} exit {:?}: {excerpt}", c.name, run.code),
                            problems
                                .into_iter()
                                .map(|p| format!("{}: {p}", c.name))
                                .collect(),
                        )
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("case thread"))
                .collect()
        });
        for (line, problems) in results {
            lines.push(line);
            failures.extend(problems);
        }
    }
    println!("{} damaged tables replayed:", cases.len());
    for l in &lines {
        println!("  {l}");
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Plans and reads everything one reader returns for the case's scan; the first error as text.
fn read_all(reader: &dyn TableReader, table: &Path, mode: Mode) -> Result<u64, String> {
    let end = native_reader::snapshot::SnapshotManager::new(table)
        .latest_snapshot_id()
        .map_err(|e| e.to_string())?
        .unwrap_or(0);
    let scan = match mode {
        Mode::Stream => ScanMode::Stream { from_snapshot: 1 },
        Mode::Batch => ScanMode::Batch { snapshot: None },
    };
    let splits = reader.plan(table, scan, end).map_err(|e| e.to_string())?;
    let mut rows = 0;
    for split in &splits {
        for batch in reader.read_split(table, split).map_err(|e| e.to_string())? {
            rows += batch.map_err(|e| e.to_string())?.num_rows() as u64;
        }
    }
    Ok(rows)
}

#[test]
fn both_readers_fail_precisely_and_the_jvm_stays_usable() {
    let stock = StockTableReader::new().expect("JVM starts");
    let native = common::native();
    let good = c00();
    let mut failures = Vec::new();
    let mut stock_failures = 0;
    for c in cases() {
        let (_guard, table) = copy_of(&(c.base)());
        let file = (c.damage)(&table);
        for (reader, expect) in [
            (&stock as &dyn TableReader, c.stock),
            (&native as &dyn TableReader, c.native),
        ] {
            let outcome = read_all(reader, &table, c.mode);
            println!(
                "{:<80} {:<6} {}",
                c.name,
                reader.side(),
                match &outcome {
                    Ok(rows) => format!("reads {rows} rows"),
                    Err(e) => format!("fails: {}", e.lines().next().unwrap_or_default()),
                }
            );
            match (expect, &outcome) {
                (Reads, Ok(_)) => {}
                (Reads, Err(e)) => {
                    failures.push(format!("{}: {} fails: {e}", c.name, reader.side()))
                }
                (Fails(_) | FailsUnnamed(_), Ok(rows)) => failures.push(format!(
                    "{}: {} reads {rows} rows, expected an error",
                    c.name,
                    reader.side()
                )),
                (Fails(words), Err(e)) => {
                    if let Some(p) = check_failure(e, &file, words) {
                        failures.push(format!("{}: {}: {p}", c.name, reader.side()));
                    }
                }
                (FailsUnnamed(words), Err(e)) => {
                    if let Some(p) = check_failure(e, "", words) {
                        failures.push(format!("{}: {}: {p}", c.name, reader.side()));
                    }
                }
            }
            if reader.side() == harness::error::Side::Stock && outcome.is_err() {
                stock_failures += 1;
                // The same JVM reads a good table right after: C00's changelog is 3 rows.
                match read_all(&stock, &good, Mode::Stream) {
                    Ok(3) => {}
                    other => failures.push(format!(
                        "{}: the JVM is not usable after the failure: {other:?}",
                        c.name
                    )),
                }
            }
        }
    }
    let bridge = stock.bridge();
    assert_eq!(bridge.open_readers().unwrap(), 0, "Java readers left open");
    assert_eq!(bridge.allocated_bytes().unwrap(), 0, "Arrow memory left");
    assert!(stock_failures >= 15, "only {stock_failures} stock failures");
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
