//! `replay --shard I/N` and `report merge`: the shards of a replay cover every split pair once, and their
//! merged report is the unsharded replay's report apart from timings (the expected values are the
//! unsharded replay's, which the corpus tests check against the tables' own writes). A merge refuses
//! reports that are not the shards of one replay, naming the file (exit 2).

use crate::common;

use serde_json::Value;

fn read(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn merged_shards_are_the_whole_replay() {
    let dir = tempfile::tempdir().unwrap();
    let tables: Vec<String> = ["lookup-partitioned", "c07-deletion-vectors"]
        .iter()
        .map(|c| common::corpus(c).join("table").display().to_string())
        .collect();
    let json = |name: &str| dir.path().join(name).display().to_string();
    let replay = |extra: &[&str], out: &str| {
        let mut args: Vec<&str> = vec!["replay"];
        args.extend(tables.iter().map(String::as_str));
        args.extend_from_slice(&["--mode", "stream,batch", "-q", "--json", out]);
        args.extend_from_slice(extra);
        common::paimon_parity(&args)
    };
    let whole = json("whole.json");
    assert_eq!(replay(&[], &whole).0, 0);
    let mut shard_files = Vec::new();
    let mut covered = 0u64;
    for i in 1..=4 {
        let out = json(&format!("shard-{i}.json"));
        let (code, stdout, stderr) = replay(&["--shard", &format!("{i}/4")], &out);
        // A shard without a split of a run (the batch scan of C07 has one split) compares nothing there.
        assert!(
            code == 0 || code == 3,
            "shard {i}: {code}\n{stdout}{stderr}"
        );
        let v = read(std::path::Path::new(&out));
        for run in v["runs"].as_array().unwrap() {
            assert_eq!(run["report"]["shard"]["index"], i);
            covered += run["report"]["totals"]["splits"].as_u64().unwrap();
        }
        shard_files.push(out);
    }
    let whole_v = read(std::path::Path::new(&whole));
    let splits: u64 = whole_v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["report"]["totals"]["splits"].as_u64().unwrap())
        .sum();
    // lookup-partitioned: 98 stream + 12 batch splits; C07: 5 + 1.
    assert_eq!((covered, splits), (116, 116));

    let merged = json("merged.json");
    let junit = json("merged.xml");
    let mut args = vec!["report", "merge"];
    // Any order.
    args.extend(shard_files.iter().rev().map(String::as_str));
    args.extend_from_slice(&["--json", &merged, "--junit", &junit]);
    let (code, stdout, stderr) = common::paimon_parity(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(
        common::without_timings(&read(std::path::Path::new(&merged))),
        common::without_timings(&whole_v)
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("tests=\"4\" failures=\"0\""), "{xml}");

    // Refusals, each naming the file.
    let refused = |files: &[&str], says: &str| {
        let mut args = vec!["report", "merge"];
        args.extend_from_slice(files);
        let (code, stdout, stderr) = common::paimon_parity(&args);
        assert_eq!(code, 2, "{files:?}: {stdout}{stderr}");
        assert!(
            stderr.contains(says),
            "{files:?}: expected `{says}` in {stderr}"
        );
    };
    refused(
        &[&shard_files[0], &shard_files[1], &shard_files[2]],
        "shard 4/4 of",
    );
    refused(
        &[
            &shard_files[0],
            &shard_files[0],
            &shard_files[1],
            &shard_files[2],
        ],
        "is given twice",
    );
    refused(
        &[&whole, &shard_files[1]],
        "is not a shard (written without --shard)",
    );
    let other = json("other.json");
    let c09 = common::corpus("c09-partial-update")
        .join("table")
        .display()
        .to_string();
    common::paimon_parity(&["replay", &c09, "--shard", "1/1", "-q", "--json", &other]);
    refused(&[&other, &shard_files[0]], "runs (table x mode x reader)");
    let not_json = json("not.json");
    std::fs::write(&not_json, "{").unwrap();
    refused(&[&not_json], &format!("{not_json}: not JSON"));
}

/// Writes `v` as JSON to `dir/name` and returns the path.
fn write(dir: &std::path::Path, name: &str, v: &Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec_pretty(v).unwrap()).unwrap();
    path.display().to_string()
}

/// `report merge FILES`: exit 2 and the message names `file` and says `says`.
fn merge_refused(files: &[&str], file: &str, says: &str) {
    let mut args = vec!["report", "merge"];
    args.extend_from_slice(files);
    let (code, stdout, stderr) = common::paimon_parity(&args);
    assert_eq!(code, 2, "{files:?}: {stdout}{stderr}");
    assert!(
        stderr.contains(&format!("{file}: ")) && stderr.contains(says),
        "{files:?}: expected `{file}: ...{says}` in {stderr}"
    );
}

#[test]
fn a_merge_refuses_shards_that_differ_only_in_table_release_option_or_coverage() {
    let dir = tempfile::tempdir().unwrap();
    let table = common::corpus("c07-deletion-vectors").join("table");
    // The same table in another directory: the same last two path components, another table.
    let copy = dir.path().join("c07-deletion-vectors").join("table");
    common::copy_tree(&table, &copy);
    let shard = |table: &std::path::Path, i: usize, name: &str| {
        let out = dir.path().join(name).display().to_string();
        let (code, stdout, stderr) = common::paimon_parity(&[
            "replay",
            table.to_str().unwrap(),
            "--shard",
            &format!("{i}/2"),
            "-q",
            "--json",
            &out,
        ]);
        assert_eq!(code, 0, "{stdout}{stderr}");
        out
    };
    let one = shard(&table, 1, "one.json");
    let two = shard(&table, 2, "two.json");
    let two_of_copy = shard(&copy, 2, "two-of-copy.json");
    let v1 = read(std::path::Path::new(&one));
    let v2 = read(std::path::Path::new(&two));
    // The released reader's stream plan of C07: 5 split pairs, positions 0, 2, 4 and 1, 3.
    let positions = |v: &Value| -> Vec<u64> {
        v["runs"][0]["report"]["splits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["position"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(
        (positions(&v1), positions(&v2)),
        (vec![0, 2, 4], vec![1, 3])
    );
    assert_eq!(v2["runs"][0]["report"]["plan_size"], 5);
    let (code, stdout, stderr) = common::paimon_parity(&["report", "merge", &two, &one]);
    assert_eq!(code, 0, "{stdout}{stderr}");

    // Only the table differs.
    let canonical = |p: &std::path::Path| std::fs::canonicalize(p).unwrap().display().to_string();
    merge_refused(
        &[&one, &two_of_copy],
        &two_of_copy,
        &format!(
            "shard 2/2 of {c} is of table {c}, shard 1/2 (the first report) of table {t}: not the same table",
            c = canonical(&copy),
            t = canonical(&table)
        ),
    );
    // Only the release differs.
    let mut other = v2.clone();
    other["paimon_version"] = "0.9.0".into();
    let release = write(dir.path(), "release.json", &other);
    merge_refused(
        &[&one, &release],
        &release,
        &format!(
            "was written with Paimon 0.9.0, {one} with Paimon {}",
            common::line_version()
        ),
    );
    // Only an option differs.
    for (key, value, says) in [
        ("unordered", Value::Bool(true), "--unordered true"),
        ("reader_plans", Value::Bool(true), "--reader-plans true"),
        (
            "reader_commands",
            serde_json::json!(["x=/bin/x"]),
            "--reader-command [\"x=/bin/x\"]",
        ),
    ] {
        let mut other = v2.clone();
        let theirs = other["options"][key].to_string();
        other["options"][key] = value;
        let path = write(dir.path(), &format!("{key}.json"), &other);
        let flag = says.split(' ').next().unwrap();
        merge_refused(
            &[&one, &path],
            &path,
            &format!("was run with {says}, {one} with {flag} {theirs}: not shards of one replay"),
        );
    }
    // A position missing: shard 2 without its split at position 3.
    let mut other = v2.clone();
    other["runs"][0]["report"]["splits"]
        .as_array_mut()
        .unwrap()
        .pop();
    let missing = write(dir.path(), "missing.json", &other);
    merge_refused(
        &[&one, &missing],
        &missing,
        "lacks split position 3 of the paired plan of 5 split pairs (no shard holds 1 of its positions)",
    );
    // A position repeated: shard 2 holding its position 1 twice, or shard 1's position 0.
    let mut other = v2.clone();
    let split1 = other["runs"][0]["report"]["splits"][0].clone();
    other["runs"][0]["report"]["splits"]
        .as_array_mut()
        .unwrap()
        .push(split1);
    let twice = write(dir.path(), "twice.json", &other);
    merge_refused(&[&one, &twice], &twice, "holds split position 1 (");
    merge_refused(&[&one, &twice], &twice, ") twice");
    let mut other = v2.clone();
    let split0 = v1["runs"][0]["report"]["splits"][0].clone();
    other["runs"][0]["report"]["splits"]
        .as_array_mut()
        .unwrap()
        .push(split0);
    let stolen = write(dir.path(), "stolen.json", &other);
    merge_refused(
        &[&one, &stolen],
        &stolen,
        "), which shard 1/2 takes, not 2/2",
    );
    // A shard written before shards recorded their plan's size.
    let mut other = v2.clone();
    other["runs"][0]["report"]
        .as_object_mut()
        .unwrap()
        .remove("plan_size");
    let old = write(dir.path(), "old.json", &other);
    merge_refused(&[&one, &old], &old, "records no plan size");
    // Another scan in run 1.
    let mut other = v2.clone();
    other["runs"][0]["mode"] = "batch".into();
    let batch = write(dir.path(), "batch.json", &other);
    merge_refused(
        &[&one, &batch],
        &batch,
        &format!("run 1 is the batch scan by reader native, run 1 of {one} the stream scan by reader native"),
    );
}

#[test]
fn a_merge_of_one_report_or_of_no_runs_is_refused_and_one_shard_of_one_merges() {
    let dir = tempfile::tempdir().unwrap();
    let table = common::corpus("c07-deletion-vectors").join("table");
    let replay = |shard: &str, name: &str| {
        let out = dir.path().join(name).display().to_string();
        let (code, stdout, stderr) = common::paimon_parity(&[
            "replay",
            table.to_str().unwrap(),
            "--shard",
            shard,
            "-q",
            "--json",
            &out,
        ]);
        assert_eq!(code, 0, "{stdout}{stderr}");
        out
    };
    let one_of_two = replay("1/2", "one-of-two.json");
    merge_refused(&[&one_of_two], &one_of_two, "shard 2/2 of ");
    merge_refused(&[&one_of_two], &one_of_two, " is missing");
    // A complete report without runs: nothing to merge, never a verdict.
    let mut empty = read(std::path::Path::new(&one_of_two));
    empty["runs"] = serde_json::json!([]);
    let empty = write(dir.path(), "empty.json", &empty);
    merge_refused(
        &[&empty],
        &empty,
        "has no runs (table x mode x reader): nothing to merge",
    );
    // A report that names no release: never assumed to be any.
    let mut nameless = read(std::path::Path::new(&one_of_two));
    nameless.as_object_mut().unwrap().remove("paimon_version");
    let nameless = write(dir.path(), "nameless.json", &nameless);
    merge_refused(
        &[&one_of_two, &nameless],
        &nameless,
        "names no Paimon release (`paimon_version`)",
    );
    // Shard 1/1 is the whole replay: 5 split pairs, all identical (the released reader's plan of C07).
    let whole = replay("1/1", "whole.json");
    let merged = dir.path().join("merged.json");
    let (code, stdout, stderr) = common::paimon_parity(&[
        "report",
        "merge",
        &whole,
        "--json",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let totals = &read(&merged)["runs"][0]["report"]["totals"];
    assert_eq!(
        (&totals["splits"], &totals["identical"]),
        (&5.into(), &5.into())
    );
}
