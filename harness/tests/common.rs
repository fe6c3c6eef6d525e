//! Helpers shared by the harness's integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("harness sits in the workspace root")
        .to_path_buf()
}

/// Every committed corpus directory (those with a `case.json`), sorted.
pub fn corpora() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(repo_root().join("corpora"))
        .expect("corpora/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").is_file())
        .collect();
    out.sort();
    out
}

/// A committed corpus by name.
pub fn corpus(name: &str) -> PathBuf {
    let p = repo_root().join("corpora").join(name);
    assert!(
        p.join("case.json").is_file(),
        "missing corpus {}",
        p.display()
    );
    p
}

/// Copies a directory tree (so that tests that damage a table never touch a committed corpus).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
