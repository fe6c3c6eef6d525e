//! Candidates (`scripts/build-java --candidate`, `jvm_bridge::candidate`): the test patch
//! `tests/fixtures/candidate-marker.patch` (a public constant added to `FileStoreCommitImpl`) built on 1.0.0 and
//! 2.0.0 (each release that is built), its `candidate.json`, and a JVM started with the candidate of this
//! process's release: the overlay's `FileStoreCommitImpl` is the one loaded (its code source is the overlay,
//! it has the constant), everything else still comes from the release's jars.

use std::path::{Path, PathBuf};
use std::process::Command;

use jvm_bridge::candidate::{self, Candidate};
use jvm_bridge::Error;

const COMMIT_CLASS: &str = "org.apache.paimon.operation.FileStoreCommitImpl";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/candidate-marker.patch")
}

/// Builds `test-marker-<version>` from the test patch; `false` when release `version` is not built.
fn build(version: &str) -> bool {
    if !jvm_bridge::jvm::build_dir(version).join("classes").is_dir() {
        eprintln!("Paimon {version} is not built: its candidate is not tested");
        return false;
    }
    let out = Command::new(repo_root().join("scripts/build-java"))
        .args(["--candidate", &format!("test-marker-{version}")])
        .args(["--based-on", version, "--patch"])
        .arg(fixture())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "build-candidate failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    true
}

fn sha256(path: &Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().unwrap();
    String::from_utf8(out.stdout).unwrap()[..64].to_owned()
}

#[test]
fn candidates_of_1_0_0_and_2_0_0_are_built_described_and_loaded_first() {
    let line = jvm_bridge::jvm::paimon_version();
    for version in ["1.0.0", "2.0.0"] {
        if !build(version) {
            assert_ne!(version, line, "this process's release must be built");
            continue;
        }
        let name = format!("test-marker-{version}");
        let dir = candidate::candidate_dir(&name);
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("candidate.json")).unwrap())
                .unwrap();
        assert_eq!(doc["name"], name.as_str());
        assert_eq!(doc["based_on"], version);
        assert_eq!(
            doc["source"],
            format!("sources jar org.apache.paimon:paimon-core:{version}")
        );
        assert_eq!(doc["patches"][0]["file"], "candidate-marker.patch");
        assert_eq!(doc["patches"][0]["sha256"], sha256(&fixture()).as_str());
        assert_eq!(doc["patches"][0]["lines_added"], 3);
        assert_eq!(doc["patches"][0]["lines_removed"], 0);
        let classes: Vec<&str> = doc["classes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert!(classes.contains(&COMMIT_CLASS), "{classes:?}");
        assert!(
            classes
                .iter()
                .all(|c| c.starts_with("org.apache.paimon.operation.FileStoreCommitImpl")),
            "only the patched file's classes: {classes:?}"
        );
        assert_eq!(doc["class_count"], classes.len());
        assert!(dir
            .join("overlay/org/apache/paimon/operation/FileStoreCommitImpl.class")
            .is_file());
        // Java 8 class files, as the releases' own (major version 52).
        let class = std::fs::read(
            dir.join("overlay/org/apache/paimon/operation/FileStoreCommitImpl.class"),
        )
        .unwrap();
        assert_eq!(u16::from_be_bytes([class[6], class[7]]), 52);
        assert!(candidate::built_candidates().contains(&name));
    }

    // An unknown candidate names the built ones and the build command.
    let e = jvm_bridge::jvm::select_candidate("no-such-candidate").unwrap_err();
    assert!(matches!(e, Error::Candidate(_)), "{e}");
    assert!(
        e.to_string().contains(&format!("test-marker-{line}")),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("scripts/build-java --candidate no-such-candidate"),
        "{e}"
    );

    // This process's JVM runs the candidate of its release.
    let name = format!("test-marker-{line}");
    let chosen: Candidate = jvm_bridge::jvm::select_candidate(&name).unwrap();
    assert_eq!(
        chosen.label(),
        format!("candidate {name} (based on {line}), not a release")
    );
    assert_eq!(
        jvm_bridge::jvm::paimon_version(),
        line,
        "the native rules stay the release's"
    );
    let cp = jvm_bridge::jvm::classpath().unwrap();
    let overlay = candidate::candidate_dir(&name).join("overlay");
    assert!(cp.starts_with(&format!("{}:", overlay.display())), "{cp}");
    assert!(cp.contains(&format!("paimon-{line}/classes")), "{cp}");

    let origin = candidate::class_origin(COMMIT_CLASS).unwrap().unwrap();
    assert!(
        origin.ends_with(&format!("/candidate-{name}/overlay/")),
        "FileStoreCommitImpl came from {origin}"
    );
    let snapshot = candidate::class_origin("org.apache.paimon.Snapshot")
        .unwrap()
        .unwrap();
    assert!(snapshot.ends_with(".jar"), "Snapshot came from {snapshot}");
    assert!(
        snapshot.contains(&format!("/paimon-{line}/lib/")),
        "{snapshot}"
    );
    let marker = jvm_bridge::jvm::with_env(|env| {
        let class = env.find_class("org/apache/paimon/operation/FileStoreCommitImpl")?;
        let value = env
            .get_static_field(
                &class,
                "PAIMON_PARITY_CANDIDATE_MARKER",
                "Ljava/lang/String;",
            )?
            .l()?;
        Ok(env
            .get_string(&value.into())?
            .to_string_lossy()
            .into_owned())
    })
    .unwrap();
    assert_eq!(marker, "candidate-marker");
    let report = chosen.report_json();
    assert_eq!(report["patches"][0]["lines_added"], 3);
    assert_eq!(
        chosen.overlay_origin().as_deref(),
        Some(origin.as_str()),
        "reports record where the overlay's first class was loaded from"
    );

    // The process cannot switch to another release now.
    let other = if line == "1.0.0" { "2.0.0" } else { "1.0.0" };
    assert!(jvm_bridge::jvm::select_paimon_version(other).is_err());
    assert!(jvm_bridge::jvm::select_paimon_version(&line).is_ok());
}
