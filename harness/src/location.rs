//! Where a table is: the location a command is given (a path, or a `file:///…` URI), resolved to a local
//! directory; and, for a directory that is not a table, the tables it holds (a warehouse `<db>.db/<table>`,
//! a database, or any folder of tables), so that the error can name them.
//!
//! Object stores (`s3://`, `s3a://`, `oss://`, `hdfs://`, …) are recognised and refused by name: the native
//! reader reads local tables only so far.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// URI schemes of the stores Paimon's `FileIO` implementations serve, refused by name until they are read.
const STORE_SCHEMES: [&str; 9] = [
    "s3", "s3a", "s3n", "oss", "hdfs", "viewfs", "gs", "abfs", "abfss",
];

/// The local path of a table location: `path` itself, or the path of a `file:` URI (`file:///data/t`,
/// `file://localhost/data/t`, percent-escapes decoded).
///
/// Errors: [`Error::Table`] naming the location for a `file:` URI with another host or that is not a valid
/// URI, and for a store URI (`s3://bucket/db.db/t`), which is not read yet.
pub fn local_path(path: &Path) -> Result<PathBuf> {
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
    if STORE_SCHEMES.contains(&scheme.as_str()) {
        return Err(refuse(format!(
            "unsupported: tables in object stores and distributed file systems ({scheme}://) are not read \
             yet; give a local path or a file:/// URI"
        )));
    }
    Err(refuse(format!(
        "unknown location scheme `{scheme}://`: give a local path or a file:/// URI"
    )))
}

/// How deep [`tables_under`] looks: a warehouse holds `<db>.db/<table>`, a folder of corpora
/// `<name>/table`; one level more covers a folder of warehouses.
const MAX_DEPTH: usize = 3;

/// The tables under `dir` (directories with a `schema/` directory, not looked into further), sorted, each
/// named as Paimon names it where it can be: `db.table` for `<db>.db/<table>` in a warehouse, `table`
/// for a table of the database `dir` itself (a `*.db` directory), else its path relative to `dir`.
/// Unreadable directories are passed over; at most [`MAX_DEPTH`] levels down.
pub fn tables_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    walk(dir, dir, 0, &mut found);
    found.sort();
    found
}

fn walk(root: &Path, dir: &Path, depth: usize, found: &mut Vec<String>) {
    if depth >= MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut children: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    children.sort();
    for child in children {
        if child.join("schema").is_dir() {
            found.push(table_name(root, &child));
        } else {
            walk(root, &child, depth + 1, found);
        }
    }
}

/// `db.table` for a table in a database directory `<db>.db`, else the path relative to `root`.
fn table_name(root: &Path, table: &Path) -> String {
    let relative = table.strip_prefix(root).unwrap_or(table);
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
    fn file_uris_are_local_paths_and_stores_are_refused_by_name() {
        assert_eq!(
            local_path(Path::new("file:///data/my%20db.db/t")).unwrap(),
            PathBuf::from("/data/my db.db/t")
        );
        assert_eq!(
            local_path(Path::new("file://localhost/data/t")).unwrap(),
            PathBuf::from("/data/t")
        );
        assert_eq!(
            local_path(Path::new("corpora/c01/table")).unwrap(),
            PathBuf::from("corpora/c01/table")
        );
        let e = local_path(Path::new("file://otherhost/data/t"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("file://otherhost/data/t") && e.contains("`otherhost`"),
            "{e}"
        );
        for uri in [
            "s3://bucket/db.db/t",
            "S3A://bucket/t",
            "hdfs://nn:8020/w/db.db/t",
            "oss://b/t",
        ] {
            let e = local_path(Path::new(uri)).unwrap_err().to_string();
            assert!(
                e.contains(uri) && e.contains("unsupported: tables in object stores"),
                "{e}"
            );
        }
        let e = local_path(Path::new("ftp://h/t")).unwrap_err().to_string();
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
