//! Where the table a replay reads is: a location resolved to a table directory or store location, and the
//! directory of a branch's schemas and snapshots.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Resolves a table location (a directory, a `file:///…` URI or an `s3://` URI:
/// [`crate::location::table_location`]; a branch and a system table after its last component are kept,
/// [`crate::location::split_system`]) to a canonical absolute path or store location, with a clear error
/// when it is missing or is not a Paimon table (no `schema/` directory; the error names the tables the
/// location holds, when it is a warehouse, a database or a folder of tables). A store location is checked
/// with one LIST of its `schema/` prefix; a refused or failed request is an error naming the location.
pub fn resolve_table(path: &Path) -> Result<PathBuf> {
    let (rest, system) = crate::location::split_system(path);
    let resolved = resolve_branch(&rest)?;
    Ok(match system {
        Some(name) => crate::location::with_system(&resolved, &name),
        None => resolved,
    })
}

/// [`resolve_table`] of a location that names no system table.
fn resolve_branch(path: &Path) -> Result<PathBuf> {
    let (base, branch) = crate::location::split_branch(path);
    let resolved = resolve_main_table(&base)?;
    let Some(branch) = branch else {
        return Ok(resolved);
    };
    let schema = native_reader::table::branch_path(&resolved, Some(&branch)).join("schema");
    let found = if crate::location::is_store(&resolved) {
        native_reader::fileio::for_path(&schema)?
            .list(&schema)
            .is_ok_and(|names| names.iter().any(|n| n.starts_with("schema-")))
    } else {
        schema.is_dir()
    };
    if !found {
        return Err(Error::Table {
            path: resolved,
            reason: format!(
                "the table has no branch `{branch}` (no branch/branch-{branch}/schema/)"
            ),
        });
    }
    Ok(crate::location::with_branch(&resolved, &branch))
}

/// Where the schemas and snapshots of the table (or branch, [`crate::location::BRANCH_SUFFIX`]) at
/// `location` are: the table directory, or its `branch/branch-<name>/`.
pub fn meta_location(location: &Path) -> PathBuf {
    let (base, branch) = crate::location::split_branch(location);
    native_reader::table::branch_path(&base, branch.as_deref())
}

/// [`resolve_table`] of a location that names no branch.
fn resolve_main_table(path: &Path) -> Result<PathBuf> {
    let path = &crate::location::table_location(path)?;
    if crate::location::is_store(path) {
        return resolve_store_table(path);
    }
    let canonical = std::fs::canonicalize(path).map_err(|e| Error::TableSource {
        path: path.to_path_buf(),
        context: "cannot open table directory".to_owned(),
        source: e.into(),
    })?;
    if !canonical.is_dir() {
        return Err(Error::Table {
            path: canonical,
            reason: "not a directory".into(),
        });
    }
    if !canonical.join("schema").is_dir() {
        let reason = match crate::location::tables_hint(&canonical) {
            Some(hint) => format!("not a Paimon table: no schema/ directory; {hint}"),
            None => "not a Paimon table: no schema/ directory".into(),
        };
        return Err(Error::Table {
            path: canonical,
            reason,
        });
    }
    Ok(canonical)
}

/// [`resolve_table`] of a store location.
fn resolve_store_table(path: &Path) -> Result<PathBuf> {
    let io = native_reader::fileio::for_path(path)?;
    let schema = path.join("schema");
    let names = io.list(&schema).map_err(|e| Error::TableSource {
        path: path.to_path_buf(),
        context: "cannot list the table's schema/".to_owned(),
        source: e.into(),
    })?;
    if names.iter().any(|n| n.starts_with("schema-")) {
        return Ok(path.to_path_buf());
    }
    let reason = match crate::location::tables_hint(path) {
        Some(hint) => format!("not a Paimon table: no schema/ under this prefix; {hint}"),
        None => {
            "not a Paimon table: no schema/ under this prefix (no object, or no table in it)".into()
        }
    };
    Err(Error::Table {
        path: path.to_path_buf(),
        reason,
    })
}
