//! Evidence bundles: one compressed archive holding what a finding about a Paimon table needs to be seen
//! again elsewhere (`paimon-parity retain`, `paimon-parity reproduce`, and `replay`, `audit`, `inspect` of a
//! bundle file).
//!
//! A bundle is a tar archive compressed with zstd (`.tar.zst`). Its first entry is [`MANIFEST_NAME`], the
//! [`Manifest`] (JSON): tool and release versions, the JDK, the command and options that found the finding,
//! its verdict and first difference, every retained file with its size and SHA-256, and every file left out.
//! The table's files follow under [`TABLE_DIR`], by their path inside the table directory:
//! - its metadata, always whole ([`FileKind::Metadata`]): schema files, snapshot files and the hints
//!   (`snapshot/EARLIEST`, `LATEST`), manifest lists, manifests and index manifests (`manifest/`),
//!   deletion-vector index files (`index/`), changelog metadata (`changelog/`), tags, branches, statistics;
//! - its data and changelog files, in the bucket directories (`[partition/]bucket-N/`,
//!   [`FileKind::Data`]): all, none, or those the finding needs ([`Files`], [`select`]).
//!
//! A bundle is read-only evidence ([`unpack`]): it is unpacked into a new temporary directory only, its
//! entries are regular files under [`TABLE_DIR`] (an absolute path, a `..` component or a link is refused),
//! and every file is checked against the manifest's size and SHA-256; anything else is [`Damage`] (exit 2).
//!
//! Layout: [`manifest`] (the JSON, the recorded finding), [`pack`] (writing), [`unpack`] (reading),
//! [`select`] (which data files a finding needs). This module imports the replay and audit reports only as
//! JSON; `replay` and `audit` know nothing of bundles (they take a "retained only" flag).

pub mod manifest;
pub mod pack;
pub mod select;
pub mod unpack;

use std::path::{Path, PathBuf};

pub use manifest::{BundleFile, Counts, Finding, LeftOut, Manifest, RetainOptions};
pub use pack::{pack, PackStats};
pub use unpack::{unpack, Unpacked};

/// The first entry of every bundle: the [`Manifest`].
pub const MANIFEST_NAME: &str = "bundle.json";

/// The directory of the archive that holds the table's files (`table/<path inside the table>`).
pub const TABLE_DIR: &str = "table";

/// The manifest's `schema`.
pub const SCHEMA: &str = "paimon-parity-bundle";

/// The manifest's `bundle_version`: raised when a field is renamed, removed or changes meaning.
pub const BUNDLE_VERSION: u32 = 1;

/// Which data and changelog files a bundle retains (`retain --files`); the metadata is always whole.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Files {
    /// Every file of every bucket directory.
    All,
    /// Only those a finding needs: the files of every split that differed, failed or was unsupported in
    /// the replay, and every file of each bucket an audit finding names ([`select`]).
    #[default]
    Findings,
    /// None: metadata only.
    None,
}

/// What a file of the table is, for the bundle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileKind {
    /// Anything outside the bucket directories: schema, snapshots and hints, manifest lists, manifests,
    /// index manifests, index files (deletion vectors), changelog metadata, tags, branches, statistics.
    Metadata,
    /// A file in a bucket directory (a path component `bucket-…`): data and changelog files (committed or
    /// not).
    Data,
}

impl FileKind {
    /// The kind of the file at `relative` (a path inside the table directory): [`FileKind::Data`] when a
    /// directory on the way is a bucket directory (`bucket-N`, `bucket-postpone`), else
    /// [`FileKind::Metadata`].
    pub fn of(relative: &Path) -> FileKind {
        let mut dirs = relative.components().rev().skip(1);
        if dirs.any(|c| c.as_os_str().to_string_lossy().starts_with("bucket-")) {
            FileKind::Data
        } else {
            FileKind::Metadata
        }
    }
}

/// What is wrong with a bundle: the source of [`crate::Error::Bundle`], naming the entry or file.
#[derive(Debug, thiserror::Error)]
pub enum Damage {
    /// The compressed stream or the archive ends early, or is not zstd-compressed tar at all.
    #[error("truncated or not a zstd-compressed tar archive: {0}")]
    Truncated(#[source] std::io::Error),
    /// The first entry is not the manifest.
    #[error("no manifest: the first entry is `{0}`, not {MANIFEST_NAME}")]
    NoManifest(String),
    /// The manifest is not the JSON of a bundle this tool reads.
    #[error("{MANIFEST_NAME} cannot be read: {0}")]
    BadManifest(String),
    /// An entry with an absolute path.
    #[error("entry `{0}` has an absolute path; a bundle holds relative paths only")]
    AbsolutePath(String),
    /// An entry whose path climbs out through `..`.
    #[error("entry `{0}` escapes the bundle through `..`")]
    EscapingPath(String),
    /// An entry outside [`TABLE_DIR`], or whose path is not plain UTF-8 components.
    #[error("entry `{0}` is not a file of the table (`{TABLE_DIR}/...`)")]
    OutsideTable(String),
    /// A symbolic or hard link (a bundle holds regular files only).
    #[error("entry `{path}` is a {kind} to `{target}`{}", if *leaves { ", which leaves the bundle" } else { "; a bundle holds regular files only" })]
    Link {
        /// The entry.
        path: String,
        /// `symbolic link` or `hard link`.
        kind: &'static str,
        /// Where it points.
        target: String,
        /// Whether the target is outside the bundle (absolute, or through `..`).
        leaves: bool,
    },
    /// An entry that is neither a regular file nor a directory (a device, a FIFO).
    #[error("entry `{0}` is not a regular file")]
    NotAFile(String),
    /// An entry the manifest does not list, or one listed twice.
    #[error("entry `{0}` is not listed in the manifest (or appears twice)")]
    Unlisted(String),
    /// A file whose content is not what the manifest says.
    #[error("file `{path}` was changed: {what}")]
    Changed {
        /// The file, inside the table.
        path: String,
        /// SHA-256 or size, both values.
        what: String,
    },
    /// A file the manifest lists and the archive does not hold.
    #[error("file `{0}` is listed in the manifest but missing from the archive")]
    Missing(String),
    /// A read of the bundle, or a write into the temporary directory, failed.
    #[error("{0}")]
    Io(#[source] std::io::Error),
}

impl Damage {
    /// The [`crate::Error::Bundle`] of this damage to the bundle at `path`.
    pub fn of(self, path: &Path) -> crate::Error {
        crate::Error::Bundle {
            path: path.to_path_buf(),
            source: Box::new(self),
        }
    }
}

/// Whether `path` is a bundle file rather than a table directory: a regular file (a table is a directory).
pub fn is_bundle(path: &Path) -> bool {
    path.is_file()
}

/// The safe relative path of an archive entry named `name` (as stored, `/`-separated), refusing what could
/// write outside the directory it is unpacked into.
///
/// Errors: [`Damage::AbsolutePath`] for `/x` (and a Windows drive or UNC prefix, `C:\x`, `\\host`),
/// [`Damage::EscapingPath`] for any `..` component, [`Damage::OutsideTable`] for an empty path or a
/// backslash-separated one. `.` components are dropped.
pub fn safe_relative(name: &str) -> Result<PathBuf, Damage> {
    if name.starts_with('/') || name.starts_with('\\') || name.as_bytes().get(1) == Some(&b':') {
        return Err(Damage::AbsolutePath(name.to_owned()));
    }
    if name.contains('\\') {
        if name.split('\\').any(|c| c == "..") {
            return Err(Damage::EscapingPath(name.to_owned()));
        }
        return Err(Damage::OutsideTable(name.to_owned()));
    }
    let mut out = PathBuf::new();
    for c in name.split('/') {
        match c {
            "" | "." => continue,
            ".." => return Err(Damage::EscapingPath(name.to_owned())),
            c => out.push(c),
        }
    }
    if out.as_os_str().is_empty() {
        return Err(Damage::OutsideTable(name.to_owned()));
    }
    Ok(out)
}

/// Whether a link target, relative to the directory of the link at `link` (a safe relative path), stays
/// inside the bundle: not absolute, and never climbing above the bundle's root.
pub fn link_stays_inside(link: &Path, target: &str) -> bool {
    if target.starts_with('/')
        || target.starts_with('\\')
        || target.as_bytes().get(1) == Some(&b':')
    {
        return false;
    }
    let mut depth = link.components().count() as i64 - 1;
    for c in target.split(['/', '\\']) {
        match c {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => depth += 1,
        }
    }
    true
}

/// Lowercase hex of bytes (SHA-256 digests).
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_relative_paths_are_kept_and_dots_dropped() {
        assert_eq!(
            safe_relative("table/bucket-0/data-1.parquet").unwrap(),
            PathBuf::from("table/bucket-0/data-1.parquet")
        );
        assert_eq!(
            safe_relative("./table/./snapshot/LATEST").unwrap(),
            PathBuf::from("table/snapshot/LATEST")
        );
        // A name with dots inside a component is not `..`.
        assert_eq!(
            safe_relative("table/a..b/x").unwrap(),
            PathBuf::from("table/a..b/x")
        );
    }

    #[test]
    fn absolute_paths_are_refused() {
        for name in [
            "/etc/passwd",
            "/table/x",
            "\\\\host\\share",
            "C:\\x",
            "c:/x",
        ] {
            assert!(
                matches!(safe_relative(name), Err(Damage::AbsolutePath(_))),
                "{name}"
            );
        }
    }

    #[test]
    fn parent_components_are_refused_wherever_they_are() {
        for name in [
            "../x",
            "table/../../x",
            "table/bucket-0/..",
            "table/..",
            "a\\..\\b",
        ] {
            let e = safe_relative(name).unwrap_err();
            assert!(matches!(e, Damage::EscapingPath(_)), "{name}: {e}");
            assert!(e.to_string().contains("escapes the bundle through `..`"));
        }
    }

    #[test]
    fn empty_and_backslash_names_are_refused() {
        assert!(matches!(safe_relative(""), Err(Damage::OutsideTable(_))));
        assert!(matches!(safe_relative("./"), Err(Damage::OutsideTable(_))));
        assert!(matches!(
            safe_relative("table\\x"),
            Err(Damage::OutsideTable(_))
        ));
    }

    #[test]
    fn links_leave_the_bundle_when_absolute_or_climbing_above_its_root() {
        let link = Path::new("table/bucket-0/data-1.parquet");
        assert!(link_stays_inside(link, "data-2.parquet"));
        assert!(link_stays_inside(link, "../../table/bucket-1/x"));
        assert!(!link_stays_inside(link, "../../../x"));
        assert!(!link_stays_inside(link, "/etc/passwd"));
        assert!(!link_stays_inside(Path::new("x"), "../y"));
    }

    #[test]
    fn bucket_directories_hold_data_files_and_the_rest_is_metadata() {
        assert_eq!(
            FileKind::of(Path::new("bucket-0/data-1.parquet")),
            FileKind::Data
        );
        assert_eq!(
            FileKind::of(Path::new("pt=a/bucket-postpone/changelog-1.orc")),
            FileKind::Data
        );
        for m in [
            "snapshot/LATEST",
            "snapshot/snapshot-3",
            "schema/schema-0",
            "manifest/manifest-list-1",
            "index/index-1",
            "changelog/changelog-2",
        ] {
            assert_eq!(FileKind::of(Path::new(m)), FileKind::Metadata, "{m}");
        }
    }

    #[test]
    fn damage_names_what_is_wrong() {
        let e = Damage::Missing("bucket-0/data-1.parquet".into()).of(Path::new("b.tar.zst"));
        assert_eq!(
            e.to_string(),
            "bundle b.tar.zst: file `bucket-0/data-1.parquet` is listed in the manifest but missing from the archive"
        );
        assert!(std::error::Error::source(&e).is_some());
    }
}
