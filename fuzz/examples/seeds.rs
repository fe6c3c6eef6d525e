//! Writes the seed inputs of every fuzz target from the committed corpora:
//! `cargo run --manifest-path fuzz/Cargo.toml --example seeds -- <corpora dir> <out dir>` fills
//! `<out dir>/<target>/` (normally `fuzz/corpus/<target>/`, git-ignored) with
//!
//! * `snapshot_json`: every `snapshot/snapshot-N` (and `changelog/changelog-N`, `tag/tag-*`);
//! * `schema_json`: every `schema/schema-N`;
//! * `manifest`: every manifest list, manifest and index manifest;
//! * `deletion_vector`: every deletion-vector record of every index file (as the index manifests place
//!   them), plus one built-in 32-bit record;
//! * `binary_row`: every partition row and min/max key of every manifest entry, typed by the schema;
//! * `partition_path`: the same partition rows, and every partition directory as `name=value` strings.
//!
//! Seeds are de-duplicated by content and capped per target.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use native_reader::manifest::{read_index_manifest, read_manifest_file, DELETION_VECTORS_INDEX};
use native_reader::Table;
use paimon_parity_fuzz::{typed_row_input, NULL_PIECE, SEPARATOR};

/// At most this many seeds per target.
const CAP: usize = 400;

#[derive(Default)]
struct Seeds(BTreeMap<&'static str, BTreeSet<Vec<u8>>>);

impl Seeds {
    fn add(&mut self, target: &'static str, bytes: Vec<u8>) {
        let set = self.0.entry(target).or_default();
        if set.len() < CAP {
            set.insert(bytes);
        }
    }
}

fn files(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.is_file()
                        && p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with(prefix))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Partition directories (`name=value`) below `dir`, as relative paths.
fn partition_dirs(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.filter_map(|e| e.ok()) {
        let name = e.file_name().to_string_lossy().into_owned();
        if e.path().is_dir() && name.contains('=') {
            let rel = format!("{prefix}{name}/");
            out.push(rel.clone());
            partition_dirs(&e.path(), &rel, out);
        }
    }
}

fn table_seeds(table: &Path, seeds: &mut Seeds) {
    for (sub, prefix) in [
        ("snapshot", "snapshot-"),
        ("changelog", "changelog-"),
        ("tag", "tag-"),
    ] {
        for f in files(&table.join(sub), prefix) {
            if let Ok(b) = std::fs::read(&f) {
                seeds.add("snapshot_json", b);
            }
        }
    }
    for f in files(&table.join("schema"), "schema-") {
        if let Ok(b) = std::fs::read(&f) {
            seeds.add("schema_json", b);
        }
    }
    let manifests = files(&table.join("manifest"), "");
    for f in &manifests {
        if let Ok(b) = std::fs::read(f) {
            seeds.add("manifest", b);
        }
    }

    let meta = Table::open(table).ok();
    let partition_types: Vec<_> = meta
        .as_ref()
        .map(|t| {
            t.schema()
                .partition_fields()
                .into_iter()
                .map(|f| f.data_type.clone())
                .collect()
        })
        .unwrap_or_default();
    let key_types: Vec<_> = meta
        .as_ref()
        .map(|t| {
            t.schema()
                .trimmed_primary_keys()
                .into_iter()
                .map(|f| f.data_type.clone())
                .collect()
        })
        .unwrap_or_default();
    let partition_refs: Vec<_> = partition_types.iter().collect();
    let key_refs: Vec<_> = key_types.iter().collect();
    for f in &manifests {
        let name = f.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with("manifest-list-") {
            continue;
        } else if name.starts_with("index-manifest-") {
            for entry in read_index_manifest(f).unwrap_or_default() {
                if entry.index_type != DELETION_VECTORS_INDEX {
                    continue;
                }
                let Ok(index) = std::fs::read(table.join("index").join(&entry.file_name)) else {
                    continue;
                };
                for dv in entry.deletion_vectors.unwrap_or_default() {
                    let start = dv.offset.max(0) as usize;
                    let end = (start + dv.length.max(0) as usize + 8).min(index.len());
                    if start < end {
                        seeds.add("deletion_vector", index[start..end].to_vec());
                    }
                }
            }
        } else if name.starts_with("manifest-") {
            for entry in read_manifest_file(f).unwrap_or_default() {
                if let Some(input) = typed_row_input(&partition_refs, &entry.partition) {
                    let mut p = vec![3u8]; // legacy names, row form
                    p.extend_from_slice(&input);
                    seeds.add("partition_path", p);
                    seeds.add("binary_row", input);
                }
                for key in [&entry.file.min_key, &entry.file.max_key] {
                    if let Some(input) = typed_row_input(&key_refs, key) {
                        seeds.add("binary_row", input);
                    }
                }
            }
        }
    }

    let mut dirs = Vec::new();
    partition_dirs(table, "", &mut dirs);
    for d in dirs {
        let mut input = vec![1u8]; // legacy names, string form
        input.extend_from_slice(b"__DEFAULT_PARTITION__");
        for segment in d.trim_end_matches('/').split('/') {
            let (name, value) = segment.split_once('=').unwrap_or((segment, ""));
            input.push(SEPARATOR);
            input.extend_from_slice(name.as_bytes());
            input.push(SEPARATOR);
            if value == "__DEFAULT_PARTITION__" {
                input.extend_from_slice(NULL_PIECE);
            } else {
                input.extend_from_slice(value.as_bytes());
            }
        }
        seeds.add("partition_path", input);
    }
}

/// A 32-bit deletion vector deleting rows {1, 5} (see native-reader's `deletion_vector` tests).
fn builtin_deletion_vector() -> Vec<u8> {
    let body: [u8; 24] = [
        0x5E, 0x43, 0xF2, 0xD0, 0x3A, 0x30, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
        0x00, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x05, 0x00,
    ];
    let mut out = (body.len() as i32).to_be_bytes().to_vec();
    out.extend_from_slice(&body);
    out.extend_from_slice(&[0, 0, 0, 0]);
    out
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(corpora), Some(out)) = (args.next(), args.next()) else {
        eprintln!("usage: seeds <corpora dir> <out dir>");
        std::process::exit(2);
    };
    let mut seeds = Seeds::default();
    seeds.add("deletion_vector", builtin_deletion_vector());
    let mut tables: Vec<PathBuf> = std::fs::read_dir(&corpora)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path().join("table")))
                .filter(|p| p.join("schema").is_dir())
                .collect()
        })
        .unwrap_or_default();
    tables.sort();
    for t in &tables {
        table_seeds(t, &mut seeds);
    }
    for target in [
        "binary_row",
        "snapshot_json",
        "schema_json",
        "manifest",
        "deletion_vector",
        "partition_path",
    ] {
        let dir = Path::new(&out).join(target);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            eprintln!("seeds: cannot create {}: {e}", dir.display());
            std::process::exit(2);
        }
        let set = seeds.0.remove(target).unwrap_or_default();
        for (i, bytes) in set.iter().enumerate() {
            let path = dir.join(format!("seed-{i:04}"));
            if let Err(e) = std::fs::write(&path, bytes) {
                eprintln!("seeds: cannot write {}: {e}", path.display());
                std::process::exit(2);
            }
        }
        println!("{target}: {} seeds from {} tables", set.len(), tables.len());
    }
}
