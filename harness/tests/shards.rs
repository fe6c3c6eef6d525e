//! `replay --shard I/N` and `report merge`: the shards of a replay cover every split pair once, and their
//! merged report is the unsharded replay's report apart from timings (the expected values are the
//! unsharded replay's, which the corpus tests check against the tables' own writes). A merge refuses
//! reports that are not the shards of one replay, naming the file (exit 2).

mod common;

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
