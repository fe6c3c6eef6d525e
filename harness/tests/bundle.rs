//! Evidence bundles end to end (`paimon-parity retain`, `reproduce`, and `replay`/`audit`/`inspect` of a
//! bundle), through the `paimon-parity` binary.
//!
//! Expected values come from the corpora's own writes or from the released reader, never from the native
//! reader: C00 (`corpora/c00-*-fault`) writes `+I (1, 10)`, then `(1, 20)` whose changelog is lost, so the
//! audit's key is `k=1`, stream `(1, 10)`, table `(1, 20)`; C01 (`corpora/c01-key-order`) commit 1 writes
//! `(1, 101, 5)` first, which the example reader's `--fault change-value` returns as 6 (row 0, field
//! `amount`, as `tests/external_readers.rs` pins it); split counts are those of the released reader's
//! replay of the table itself.

use crate::common;

use common::{expect_exit as expect, path_str as s, read_json};

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The archive's entries: raw 512-byte header and content.
fn entries(bundle: &Path) -> Vec<(Vec<u8>, Vec<u8>)> {
    let bytes = zstd::decode_all(std::fs::File::open(bundle).unwrap()).unwrap();
    let mut archive = tar::Archive::new(bytes.as_slice());
    let mut out = Vec::new();
    for e in archive.entries().unwrap() {
        let mut e = e.unwrap();
        let header = e.header().as_bytes().to_vec();
        let mut data = Vec::new();
        e.read_to_end(&mut data).unwrap();
        out.push((header, data));
    }
    out
}

/// Writes `entries` as a zstd-compressed tar archive (headers taken as they are).
fn write_bundle(path: &Path, entries: &[(Vec<u8>, Vec<u8>)]) {
    let mut tar = Vec::new();
    for (header, data) in entries {
        tar.extend_from_slice(header);
        tar.extend_from_slice(data);
        tar.resize(tar.len().div_ceil(512) * 512, 0);
    }
    tar.extend_from_slice(&[0u8; 1024]);
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(&zstd::encode_all(tar.as_slice(), 3).unwrap())
        .unwrap();
}

/// A header with a raw `name` (and `link` target) written into its fields, as an archive made by another
/// tool could hold them (the tar crate refuses to set such names itself).
fn raw_header(kind: tar::EntryType, name: &str, link: &str, size: u64) -> Vec<u8> {
    let mut h = tar::Header::new_old();
    h.set_entry_type(kind);
    h.set_size(size);
    h.set_mode(0o644);
    h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
    h.as_old_mut().linkname[..link.len()].copy_from_slice(link.as_bytes());
    h.set_cksum();
    h.as_bytes().to_vec()
}

fn entry_name(header: &[u8]) -> String {
    let end = header[..100].iter().position(|b| *b == 0).unwrap_or(100);
    String::from_utf8_lossy(&header[..end]).into_owned()
}

/// The native audit's report of C00 (lookup, with the fault) and a bundle of it with every file.
fn c00_bundle(dir: &Path) -> PathBuf {
    let table = common::corpus("c00-lookup-fault").join("table");
    let audit = dir.join("audit.json");
    expect(1, &["audit", s(&table), "--json", s(&audit)]);
    let bundle = dir.join("c00.tar.zst");
    expect(
        0,
        &[
            "retain",
            s(&table),
            "--out",
            s(&bundle),
            "--report",
            s(&audit),
            "--files",
            "all",
        ],
    );
    bundle
}

/// Runs `inspect` of a damaged bundle: exit 2, and the message names `what`.
fn refused(bundle: &Path, what: &str) {
    let (code, out, err) = common::paimon_parity(&["inspect", s(bundle)]);
    assert_eq!(code, 2, "{}: exit {code}\n{out}\n{err}", bundle.display());
    assert!(
        err.contains(&format!("bundle {}", bundle.display())) && err.contains(what),
        "{}: the error should name `{what}`: {err}",
        bundle.display()
    );
}

#[test]
fn a_damaged_bundle_is_exit_2_naming_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = c00_bundle(dir.path());
    // The bundle as written is read.
    expect(0, &["inspect", s(&bundle)]);
    let good = entries(&bundle);
    assert_eq!(
        entry_name(&good[0].0),
        "bundle.json",
        "the manifest comes first"
    );
    let data = good
        .iter()
        .position(|(h, _)| entry_name(h).contains("/bucket-0/data-"))
        .expect("a data file");

    // Truncated.
    let bytes = std::fs::read(&bundle).unwrap();
    let cut = dir.path().join("truncated.tar.zst");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    refused(&cut, "truncated");
    let (code, _, err) = common::paimon_parity(&["reproduce", s(&cut)]);
    assert_eq!(code, 2, "{err}");

    // A changed file: one byte of a data file.
    let mut changed = good.clone();
    changed[data].1[10] ^= 0xff;
    let path = dir.path().join("changed.tar.zst");
    write_bundle(&path, &changed);
    let name = entry_name(&good[data].0);
    let inside = name.strip_prefix("table/").unwrap();
    refused(&path, &format!("file `{inside}` was changed: SHA-256"));

    // A path that escapes through `..`, and an absolute one: refused before anything is written.
    let escape = format!("paimon-parity-escaped-{}", std::process::id());
    let mut climbing = good.clone();
    climbing.insert(
        1,
        (
            raw_header(
                tar::EntryType::Regular,
                &format!("table/../../{escape}"),
                "",
                4,
            ),
            b"evil".to_vec(),
        ),
    );
    let path = dir.path().join("climbing.tar.zst");
    write_bundle(&path, &climbing);
    refused(&path, "escapes the bundle through `..`");
    assert!(!std::env::temp_dir().join(&escape).exists());

    let absolute = std::env::temp_dir().join(format!("{escape}-absolute"));
    let mut rooted = good.clone();
    rooted.insert(
        1,
        (
            raw_header(tar::EntryType::Regular, s(&absolute), "", 4),
            b"evil".to_vec(),
        ),
    );
    let path = dir.path().join("absolute.tar.zst");
    write_bundle(&path, &rooted);
    refused(&path, "has an absolute path");
    assert!(!absolute.exists());

    // A symbolic link and a hard link leaving the bundle.
    for (kind, word) in [
        (tar::EntryType::Symlink, "symbolic link"),
        (tar::EntryType::Link, "hard link"),
    ] {
        let mut linked = good.clone();
        linked.insert(
            1,
            (
                raw_header(kind, "table/bucket-0/link", "../../../../etc/passwd", 0),
                Vec::new(),
            ),
        );
        let path = dir
            .path()
            .join(format!("{}.tar.zst", word.replace(' ', "-")));
        write_bundle(&path, &linked);
        refused(
            &path,
            &format!("is a {word} to `../../../../etc/passwd`, which leaves the bundle"),
        );
    }

    // A file the manifest lists and the archive lacks.
    let mut missing = good.clone();
    missing.remove(data);
    let path = dir.path().join("missing.tar.zst");
    write_bundle(&path, &missing);
    refused(
        &path,
        &format!("file `{inside}` is listed in the manifest but missing from the archive"),
    );

    // Not a bundle at all.
    let path = dir.path().join("not-a-bundle.tar.zst");
    std::fs::write(&path, b"plain text, not zstd").unwrap();
    refused(&path, "not a zstd-compressed tar archive");
}

/// The archive entry of a manifest (`bundle.json`, its header and JSON).
fn manifest_entry(manifest: &Value) -> (Vec<u8>, Vec<u8>) {
    let text = serde_json::to_vec_pretty(manifest).unwrap();
    let mut header = tar::Header::new_gnu();
    header.set_path("bundle.json").unwrap();
    header.set_size(text.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    (header.as_bytes().to_vec(), text)
}

#[test]
fn a_bundle_recording_an_argument_retain_never_records_cannot_run_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = c00_bundle(dir.path());
    let mut all = entries(&bundle);
    let mut manifest: Value = serde_json::from_slice(&all[0].1).unwrap();
    // bundle.json is not covered by the files' checksums: an edited argument is refused before any run.
    manifest["finding"]["args"]
        .as_array_mut()
        .unwrap()
        .push("--no-such-option".into());
    all[0] = manifest_entry(&manifest);
    let path = dir.path().join("edited.tar.zst");
    write_bundle(&path, &all);
    let (code, out, err) = common::paimon_parity(&["reproduce", s(&path)]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        out.contains(
            "CANNOT RUN: the bundle records the argument `--no-such-option` for `audit`, which `retain` never \
             records"
        ),
        "{out}"
    );
}

#[test]
fn a_bundle_found_with_a_release_not_built_here_says_how_to_build_it() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = c00_bundle(dir.path());
    let mut all = entries(&bundle);
    let mut manifest: Value = serde_json::from_slice(&all[0].1).unwrap();
    let (_, built) = jvm_bridge::jvm::built_versions();
    let Some(absent) = native_reader::PaimonRelease::ALL
        .iter()
        .map(|r| r.to_string())
        .find(|v| !built.contains(v))
    else {
        return; // every release is built here
    };
    manifest["paimon_version"] = absent.clone().into();
    manifest["finding"]["command"] = "replay".into();
    manifest["finding"]["args"] =
        serde_json::json!(["--mode", "stream", "--paimon-version", absent]);
    all[0] = manifest_entry(&manifest);
    let path = dir.path().join("other-release.tar.zst");
    write_bundle(&path, &all);
    let (code, out, err) = common::paimon_parity(&["reproduce", s(&path)]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        out.contains(&format!("CANNOT RUN: the finding was found with the released Paimon {absent}, which is not built here"))
            && out.contains(&format!("scripts/build-java --paimon-version {absent}")),
        "{out}"
    );
}

#[test]
fn a_c00_bundle_of_the_findings_reproduces_the_audit_finding() {
    for name in [
        "c00-lookup-fault",
        "c00-full-compaction-fault",
        "c00-callback-fault",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let table = common::corpus(name).join("table");
        let bundle = dir.path().join(format!("{name}.tar.zst"));
        let json = dir.path().join("retain.json");
        // No report given: the replay and the audit run first.
        expect(
            0,
            &[
                "retain",
                s(&table),
                "--out",
                s(&bundle),
                "--files",
                "findings",
                "--json",
                s(&json),
            ],
        );
        let retained = read_json(&json);
        assert_eq!(retained["command"], "retain");
        assert_eq!(retained["schema"], "paimon-parity-report");
        let manifest = &retained["bundle"]["manifest"];
        let finding = &manifest["finding"];
        assert_eq!(finding["command"], "audit", "{name}");
        assert_eq!(finding["verdict"], "changelog-lost", "{name}");
        let key = &finding["first_difference_fields"]["key"];
        assert_eq!(
            (&key["key"], &key["stream_value"], &key["table_value"]),
            (&"k=1".into(), &"(1, 10)".into(), &"(1, 20)".into()),
            "{name}: the key C00 writes"
        );
        // Every listed file with its size and digest; the metadata whole.
        for f in manifest["files"].as_array().unwrap() {
            assert_eq!(f["sha256"].as_str().unwrap().len(), 64);
        }
        for hint in ["snapshot/EARLIEST", "snapshot/LATEST", "schema/schema-0"] {
            assert!(
                manifest["files"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|f| f["path"] == hint),
                "{name}: {hint} retained"
            );
        }
        let out_json = dir.path().join("reproduce.json");
        let (out, _) = expect(0, &["reproduce", s(&bundle), "--json", s(&out_json)]);
        assert!(
            out.contains("REPRODUCED: same verdict, same first difference"),
            "{out}"
        );
        let r = read_json(&out_json);
        assert_eq!(r["command"], "reproduce");
        assert_eq!(r["exit_code"], 0);
        assert_eq!(r["bundle"]["verdict"], "reproduced");
        assert_eq!(r["bundle"]["now"]["verdict"], "changelog-lost");
    }
}

/// Every file under `dir` with its content, to check that a command left a table as it was.
fn snapshot_of(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn a_findings_bundle_of_a_two_writer_table_keeps_the_finding_buckets_and_reproduces_its_audit() {
    let dir = tempfile::tempdir().unwrap();
    let table = common::corpus("two-writers-lookup").join("table");
    let before = snapshot_of(&table);
    let audit = dir.path().join("audit.json");
    expect(1, &["audit", s(&table), "--json", s(&audit)]);
    let of_table = read_json(&audit);
    let bundle = dir.path().join("two-writers.tar.zst");
    let json = dir.path().join("retain.json");
    expect(
        0,
        &[
            "retain",
            s(&table),
            "--out",
            s(&bundle),
            "--report",
            s(&audit),
            "--json",
            s(&json),
        ],
    );
    let manifest = &read_json(&json)["bundle"]["manifest"];
    let data_kept: Vec<&str> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "data")
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(!data_kept.is_empty());
    assert!(!manifest["left_out"].as_array().unwrap().is_empty());
    // Every finding's bucket is kept whole: each file of its directory.
    for f in of_table["audit"]["findings"].as_array().unwrap() {
        let partition = f["partition"][0].as_str().unwrap();
        let bucket = f["bucket"].as_i64().unwrap();
        let dir = table
            .join(format!("pt={partition}"))
            .join(format!("bucket-{bucket}"));
        for e in std::fs::read_dir(&dir).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            let rel = format!("pt={partition}/bucket-{bucket}/{name}");
            assert!(data_kept.contains(&rel.as_str()), "{rel} retained");
        }
    }
    let (out, _) = expect(0, &["reproduce", s(&bundle)]);
    assert!(out.contains("REPRODUCED"), "{out}");
    // The bundle's own audit leaves out, and counts, the splits of the buckets it does not retain.
    let of_bundle = dir.path().join("bundle-audit.json");
    expect(1, &["audit", s(&bundle), "--json", s(&of_bundle)]);
    let c = &read_json(&of_bundle)["audit"]["completeness"][0];
    assert!(c["not_retained_splits"].as_u64().unwrap() > 0, "{c}");
    assert_eq!(
        read_json(&of_bundle)["audit"]["findings"],
        of_table["audit"]["findings"].clone(),
        "the same keys, values and blame"
    );
    assert!(snapshot_of(&table) == before, "the table is left as it was");
}

#[test]
fn a_bundle_without_data_files_compares_nothing_and_counts_every_split_not_retained() {
    let dir = tempfile::tempdir().unwrap();
    let table = common::corpus("c00-lookup-fault").join("table");
    // The released reader's plan of the table itself: the splits the bundle's replay must count.
    let of_table = dir.path().join("table.json");
    expect(0, &["replay", s(&table), "--json", s(&of_table)]);
    let planned = read_json(&of_table)["runs"][0]["report"]["totals"]["splits"]
        .as_u64()
        .unwrap();
    assert!(planned > 0);
    let bundle = dir.path().join("none.tar.zst");
    expect(
        0,
        &[
            "retain",
            s(&table),
            "--out",
            s(&bundle),
            "--files",
            "none",
            "--report",
            s(&of_table),
        ],
    );
    let json = dir.path().join("replay.json");
    let (out, _) = expect(3, &["replay", s(&bundle), "--json", s(&json)]);
    assert!(
        out.contains("NOTHING-COMPARED: ") && out.contains(&format!("{planned} not retained")),
        "{out}"
    );
    let run = &read_json(&json)["runs"][0];
    assert_eq!(run["verdict"], "nothing-compared");
    assert_eq!(run["exit_code"], 3);
    assert_eq!(run["split_verdicts"]["not_retained"], planned);
    assert_eq!(run["report"]["totals"]["not_retained"], planned);
    assert_eq!(run["report"]["totals"]["splits"], 0);
    assert_eq!(
        run["report"]["not_retained"].as_array().unwrap().len() as u64,
        planned
    );
}

#[test]
fn a_findings_bundle_of_a_planted_difference_reproduces_its_row_field_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let table = common::corpus("c01-key-order").join("table");
    let planted = format!(
        "planted={} --fault change-value",
        env!("CARGO_BIN_EXE_paimon-parity-example-reader")
    );
    let report = dir.path().join("replay.json");
    expect(
        1,
        &[
            "replay",
            s(&table),
            "--reader",
            "planted",
            "--reader-command",
            &planted,
            "--json",
            s(&report),
        ],
    );
    let of_table = read_json(&report);
    let splits = of_table["runs"][0]["report"]["totals"]["splits"]
        .as_u64()
        .unwrap();
    let bundle = dir.path().join("planted.tar.zst");
    let json = dir.path().join("retain.json");
    expect(
        0,
        &[
            "retain",
            s(&table),
            "--out",
            s(&bundle),
            "--report",
            s(&report),
            "--json",
            s(&json),
        ],
    );
    let manifest = &read_json(&json)["bundle"]["manifest"];
    let fields = &manifest["finding"]["first_difference_fields"];
    // C01's first write, (1, 101, 5), changed to 6 by the planted reader.
    assert_eq!(
        (
            &fields["kind"],
            &fields["row"],
            &fields["field"],
            &fields["stock"],
            &fields["native"]
        ),
        (
            &"decoding".into(),
            &0.into(),
            &"amount".into(),
            &"5".into(),
            &"6".into()
        )
    );
    assert!(
        !manifest["left_out"].as_array().unwrap().is_empty(),
        "the identical split's files are left out"
    );
    // The bundle names the planted reader's command; reproduce runs it only when the user gives it.
    let (out, _) = expect(2, &["reproduce", s(&bundle)]);
    assert!(
        out.contains("CANNOT RUN: the finding was made with the external reader `planted`"),
        "{out}"
    );
    let out_json = dir.path().join("reproduce.json");
    let (out, _) = expect(
        0,
        &[
            "reproduce",
            s(&bundle),
            "--reader-command",
            &planted,
            "--json",
            s(&out_json),
        ],
    );
    assert!(out.contains("REPRODUCED"), "{out}");
    let now = &read_json(&out_json)["bundle"]["now"]["first_difference_fields"];
    assert_eq!(now, fields);
    // The bundle's own replay: the differing split compared, the identical one not retained.
    let replayed = dir.path().join("bundle-replay.json");
    expect(
        1,
        &[
            "replay",
            s(&bundle),
            "--reader",
            "planted",
            "--reader-command",
            &planted,
            "--json",
            s(&replayed),
        ],
    );
    let totals = &read_json(&replayed)["runs"][0]["report"]["totals"];
    assert_eq!(totals["differ_decoding"], 1);
    assert_eq!(
        totals["splits"].as_u64().unwrap() + totals["not_retained"].as_u64().unwrap(),
        splits
    );
    assert!(totals["not_retained"].as_u64().unwrap() > 0);
}
