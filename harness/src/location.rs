//! Where a table is: the location a command is given (a path, a `file:///…` URI, or an S3 URI
//! `s3://bucket/wh/db.db/t`, `s3a://` and `s3n://` read as `s3://`), resolved to a local directory or a
//! store location; and, for a location that is not a table, the tables it holds (a warehouse
//! `<db>.db/<table>`, a database, or any folder of tables), so that the error can name them.
//!
//! Other stores (`oss://`, `hdfs://`, `gs://`, `abfs://`) are recognised and refused by name, saying what
//! reading them would take.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// URI schemes of the stores Paimon's `FileIO` implementations serve that are not read yet, refused by
/// name.
const OTHER_STORE_SCHEMES: [&str; 6] = ["oss", "hdfs", "viewfs", "gs", "abfs", "abfss"];

/// The schemes read as S3 (`s3://`; Hadoop's `s3a://` and `s3n://` name the same objects).
const S3_SCHEMES: [&str; 3] = ["s3", "s3a", "s3n"];

/// What follows a table's location to name one of its branches: `t$branch_<name>`, as Paimon's catalogs
/// name a branch table (`db.t$branch_b1`, `Identifier.SYSTEM_BRANCH_PREFIX`). `--branch NAME` appends it.
pub const BRANCH_SUFFIX: &str = "$branch_";

/// `location` naming branch `branch` of its table: `location` with [`BRANCH_SUFFIX`] and the name after
/// its last component (`wh/db.db/t` becomes `wh/db.db/t$branch_b1`).
pub fn with_branch(location: &Path, branch: &str) -> PathBuf {
    let mut s = location.as_os_str().to_os_string();
    while s.to_string_lossy().ends_with('/') && s.len() > 1 {
        let trimmed = s.to_string_lossy().trim_end_matches('/').to_owned();
        s = trimmed.into();
    }
    s.push(BRANCH_SUFFIX);
    s.push(branch);
    PathBuf::from(s)
}

/// The location without the system table its last component names, and that system table: `t$row_tracking`
/// and `t$branch_b1$row_tracking` name `$row_tracking` (Paimon's `Identifier`: `table[$branch_<b>][$<system>]`);
/// `None` when it names none (a `$branch_` part is not a system table).
pub fn split_system(location: &Path) -> (PathBuf, Option<String>) {
    let Some(text) = location.to_str() else {
        return (location.to_path_buf(), None);
    };
    let last = text.rfind('/').map_or(0, |i| i + 1);
    match text[last..].rfind('$') {
        Some(at)
            if last + at + 1 < text.len()
                && at > 0
                && !text[last + at..].starts_with(BRANCH_SUFFIX) =>
        {
            let (base, name) = text.split_at(last + at);
            (PathBuf::from(base), Some(name[1..].to_owned()))
        }
        _ => (location.to_path_buf(), None),
    }
}

/// `location` naming its table's system table `system`: `location` with `$<system>` after its last
/// component.
pub fn with_system(location: &Path, system: &str) -> PathBuf {
    let mut s = location.as_os_str().to_os_string();
    s.push("$");
    s.push(system);
    PathBuf::from(s)
}

/// The table location and the branch a location names ([`BRANCH_SUFFIX`] in its last component); the
/// location itself and `None` when it names no branch. A system table it names ([`split_system`]) is left
/// out of both.
pub fn split_branch(location: &Path) -> (PathBuf, Option<String>) {
    let (location, _) = split_system(location);
    let location = location.as_path();
    let Some(text) = location.to_str() else {
        return (location.to_path_buf(), None);
    };
    let last = text.rfind('/').map_or(0, |i| i + 1);
    match text[last..].find(BRANCH_SUFFIX) {
        Some(at) if last + at + BRANCH_SUFFIX.len() < text.len() => {
            let (base, name) = text.split_at(last + at);
            (
                PathBuf::from(base),
                Some(name[BRANCH_SUFFIX.len()..].to_owned()),
            )
        }
        _ => (location.to_path_buf(), None),
    }
}

/// The location of a table as the readers take it: `path` itself, the path of a `file:` URI
/// (`file:///data/t`, `file://localhost/data/t`, percent-escapes decoded), or an S3 URI as
/// `s3://bucket/key` without a trailing `/` (`s3a://` and `s3n://` rewritten to `s3://`, the one scheme
/// Paimon's `paimon-s3` registers).
///
/// Errors: [`Error::Table`] naming the location for a `file:` URI with another host or that is not a valid
/// URI, an S3 URI without a bucket, and a URI of another store (`oss://`, `hdfs://`), which is not read
/// yet.
pub fn table_location(path: &Path) -> Result<PathBuf> {
    let Some(text) = path.to_str() else {
        return Ok(path.to_path_buf());
    };
    let Some((scheme, _)) = text.split_once("://") else {
        return Ok(path.to_path_buf());
    };
    let scheme = scheme.to_ascii_lowercase();
    let refuse = |reason: String| Error::Table {
        path: path.to_path_buf(),
        reason,
    };
    if scheme == "file" {
        let url =
            url::Url::parse(text).map_err(|e| refuse(format!("not a valid file URI: {e}")))?;
        return url.to_file_path().map_err(|()| {
            refuse(format!(
                "a file URI names a local path (file:///path, or file://localhost/path), not the host `{}`",
                url.host_str().unwrap_or_default()
            ))
        });
    }
    if S3_SCHEMES.contains(&scheme.as_str()) {
        let rest = text.split_once("://").map_or("", |(_, r)| r);
        let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(refuse(
                "an S3 location names a bucket: s3://bucket/path/to/table".into(),
            ));
        }
        let key = key.trim_matches('/');
        return Ok(PathBuf::from(if key.is_empty() {
            format!("s3://{bucket}")
        } else {
            format!("s3://{bucket}/{key}")
        }));
    }
    if OTHER_STORE_SCHEMES.contains(&scheme.as_str()) {
        return Err(refuse(format!(
            "unsupported: tables in {scheme}:// are not read yet (s3:// is); reading them needs a native \
             FileIO for {scheme} and the release's Paimon file system for it on the Java side's class path"
        )));
    }
    Err(refuse(format!(
        "unknown location scheme `{scheme}://`: give a local path, a file:/// URI or an s3:// URI"
    )))
}

/// Whether `location` (from [`table_location`]) is in an object store.
pub fn is_store(location: &Path) -> bool {
    native_reader::fileio::is_store(location)
}

/// How deep [`tables_under`] looks: a warehouse holds `<db>.db/<table>`, a folder of corpora
/// `<name>/table`; one level more covers a folder of warehouses.
const MAX_DEPTH: usize = 3;

/// The tables under `dir` (directories with a `schema/` directory, not looked into further), sorted, each
/// named as Paimon names it where it can be: `db.table` for `<db>.db/<table>` in a warehouse, `table`
/// for a table of the database `dir` itself (a `*.db` directory), else its path relative to `dir`.
/// Unreadable directories are passed over; at most [`MAX_DEPTH`] levels down.
pub fn tables_under(dir: &Path) -> Vec<String> {
    tables_in(dir).into_iter().map(|(name, _)| name).collect()
}

/// The tables under `dir` as [`tables_under`] finds them: each one's name and location, sorted by name.
pub fn tables_in(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    if is_store(dir) {
        walk_store(dir, dir, 0, &mut found);
    } else {
        walk(dir, dir, 0, &mut found);
    }
    found.sort();
    found
}

/// [`walk`] of a store location: one LIST per prefix, `<prefix>/schema/` marking a table.
fn walk_store(root: &Path, dir: &Path, depth: usize, found: &mut Vec<(String, PathBuf)>) {
    if depth >= MAX_DEPTH {
        return;
    }
    let Ok(io) = native_reader::fileio::for_path(dir) else {
        return;
    };
    let Ok(mut names) = io.list(dir) else {
        return;
    };
    names.sort();
    for name in names {
        let child = dir.join(&name);
        if io.is_dir(&child.join("schema")).unwrap_or(false) {
            found.push((table_name(root, &child), child));
        } else if io.is_dir(&child).unwrap_or(false) {
            walk_store(root, &child, depth + 1, found);
        }
    }
}

fn walk(root: &Path, dir: &Path, depth: usize, found: &mut Vec<(String, PathBuf)>) {
    if depth >= MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut children: Vec<PathBuf> = entries
        .flatten()
        // Symbolic links to directories are followed (a folder of links to tables is a warehouse too);
        // MAX_DEPTH bounds a loop of links.
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    children.sort();
    for child in children {
        if child.join("schema").is_dir() {
            found.push((table_name(root, &child), child));
        } else {
            walk(root, &child, depth + 1, found);
        }
    }
}

/// `db.table` for a table in a database directory `<db>.db`, else the path relative to `root`.
fn table_name(root: &Path, table: &Path) -> String {
    let relative = match (root.to_str(), table.to_str()) {
        // Store locations are strings: `Path::strip_prefix` would see `s3:` as a component.
        (Some(r), Some(t)) if is_store(root) => {
            Path::new(t.strip_prefix(r).unwrap_or(t).trim_start_matches('/'))
        }
        _ => table.strip_prefix(root).unwrap_or(table),
    };
    let parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let database = |p: &str| p.strip_suffix(".db").map(str::to_owned);
    match parts.as_slice() {
        [db, t] if database(db).is_some() => format!("{}.{t}", database(db).unwrap_or_default()),
        [t] => t.clone(),
        _ => relative.display().to_string(),
    }
}

/// The sentence that names the tables under a directory that is not a table: up to 10 names, then how many
/// more; `None` when it holds none.
pub fn tables_hint(dir: &Path) -> Option<String> {
    let tables = tables_under(dir);
    let (first, rest) = tables.split_at(tables.len().min(10));
    (!first.is_empty()).then(|| {
        format!(
            "it holds {} table(s), give one of them: {}{}",
            tables.len(),
            first.join(", "),
            if rest.is_empty() {
                String::new()
            } else {
                format!(" (and {} more)", rest.len())
            }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_location_names_a_branch_and_a_system_table_after_its_last_component() {
        let split = |l: &str| {
            let (base, branch) = split_branch(Path::new(l));
            let system = split_system(Path::new(l)).1;
            (base.to_string_lossy().into_owned(), branch, system)
        };
        let s = |v: &str| Some(v.to_owned());
        assert_eq!(split("wh/t"), ("wh/t".into(), None, None));
        assert_eq!(
            split("wh/t$row_tracking"),
            ("wh/t".into(), None, s("row_tracking"))
        );
        assert_eq!(split("wh/t$branch_b1"), ("wh/t".into(), s("b1"), None));
        assert_eq!(
            split("wh/t$branch_b1$row_tracking"),
            ("wh/t".into(), s("b1"), s("row_tracking"))
        );
        // Only the last component: a `$` in a directory above is part of the path.
        assert_eq!(split("w$h/t"), ("w$h/t".into(), None, None));
        assert_eq!(split("wh/t$"), ("wh/t$".into(), None, None));
        assert_eq!(
            with_system(&with_branch(Path::new("wh/t/"), "b1"), "files"),
            PathBuf::from("wh/t$branch_b1$files")
        );
    }

    #[test]
    fn file_uris_are_local_paths_s3_is_a_store_and_other_stores_are_refused_by_name() {
        assert_eq!(
            table_location(Path::new("file:///data/my%20db.db/t")).unwrap(),
            PathBuf::from("/data/my db.db/t")
        );
        assert_eq!(
            table_location(Path::new("file://localhost/data/t")).unwrap(),
            PathBuf::from("/data/t")
        );
        assert_eq!(
            table_location(Path::new("corpora/c01/table")).unwrap(),
            PathBuf::from("corpora/c01/table")
        );
        let e = table_location(Path::new("file://otherhost/data/t"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("file://otherhost/data/t") && e.contains("`otherhost`"),
            "{e}"
        );
        for (uri, read) in [
            ("s3://bucket/db.db/t/", "s3://bucket/db.db/t"),
            ("S3A://bucket/t", "s3://bucket/t"),
            ("s3n://bucket", "s3://bucket"),
        ] {
            assert_eq!(table_location(Path::new(uri)).unwrap(), PathBuf::from(read));
        }
        let e = table_location(Path::new("s3:///t"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("names a bucket"), "{e}");
        for uri in ["hdfs://nn:8020/w/db.db/t", "oss://b/t"] {
            let e = table_location(Path::new(uri)).unwrap_err().to_string();
            assert!(
                e.contains(uri) && e.contains("are not read yet (s3:// is)"),
                "{e}"
            );
        }
        let e = table_location(Path::new("ftp://h/t"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown location scheme `ftp://`"), "{e}");
    }

    #[test]
    fn a_warehouse_a_database_and_a_folder_name_their_tables() {
        let dir = tempfile::tempdir().unwrap();
        let mk = |p: &str| std::fs::create_dir_all(dir.path().join(p).join("schema")).unwrap();
        mk("sales.db/orders");
        mk("sales.db/items");
        mk("ops.db/events");
        std::fs::create_dir_all(dir.path().join("ops.db/empty")).unwrap();
        assert_eq!(
            tables_under(dir.path()),
            ["ops.events", "sales.items", "sales.orders"]
        );
        assert_eq!(
            tables_under(&dir.path().join("sales.db")),
            ["items", "orders"]
        );
        let corpora = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(corpora.path().join("c01/table/schema")).unwrap();
        assert_eq!(tables_under(corpora.path()), ["c01/table"]);
        let hint = tables_hint(dir.path()).unwrap();
        assert_eq!(
            hint,
            "it holds 3 table(s), give one of them: ops.events, sales.items, sales.orders"
        );
        assert_eq!(tables_hint(&dir.path().join("ops.db/empty")), None);
    }
}
