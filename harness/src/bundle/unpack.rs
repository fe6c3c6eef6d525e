//! Reading a bundle: into a new temporary directory only, every entry checked before and while it is
//! written ([`super::safe_relative`], links refused), every file's SHA-256 and size checked against the
//! manifest.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{
    hex, link_stays_inside, safe_relative, Damage, Manifest, BUNDLE_VERSION, MANIFEST_NAME, SCHEMA,
    TABLE_DIR,
};
use crate::error::Result;

/// An unpacked bundle: its table in a temporary directory, removed when this is dropped.
#[derive(Debug)]
pub struct Unpacked {
    /// The temporary directory (removed on drop).
    dir: tempfile::TempDir,
    /// The bundle file.
    pub bundle: PathBuf,
    /// The manifest, as read and checked.
    pub manifest: Manifest,
}

impl Unpacked {
    /// The table directory inside the temporary directory (`<tmp>/table`): the retained files by their paths
    /// inside the table.
    pub fn table(&self) -> PathBuf {
        self.dir.path().join(TABLE_DIR)
    }

    /// One line for people: the bundle, what it retains and leaves out, where it was unpacked.
    pub fn describe(&self) -> String {
        format!(
            "bundle {}: {} files verified (SHA-256), {} data files left out, unpacked into {}",
            self.bundle.display(),
            self.manifest.files.len(),
            self.manifest.left_out.len(),
            self.table().display()
        )
    }
}

/// Unpacks the bundle at `path` into a new temporary directory and checks it against its manifest.
///
/// Nothing is written outside that directory: entries with an absolute path or a `..` component, links
/// (symbolic or hard) and entries other than regular files and directories are refused before anything is
/// written for them, and each file is created anew (never through an existing path).
///
/// Errors: [`crate::Error::Bundle`] naming what is wrong ([`Damage`]): not a bundle or truncated, no
/// manifest first, a bad path or a link, a file whose SHA-256 or size differs from the manifest's, a file the
/// manifest lists that the archive lacks, an entry it does not list.
pub fn unpack(path: &Path) -> Result<Unpacked> {
    let damaged = |d: Damage| d.of(path);
    let file = File::open(path).map_err(|e| damaged(Damage::Io(e)))?;
    let decoder = zstd::stream::read::Decoder::with_buffer(BufReader::with_capacity(1 << 20, file))
        .map_err(|e| damaged(Damage::Truncated(e)))?;
    let mut decoder = decoder;
    decoder
        .window_log_max(super::pack::MAX_WINDOW_LOG)
        .map_err(|e| damaged(Damage::Truncated(e)))?;
    let mut archive = tar::Archive::new(decoder);
    let name = path
        .file_name()
        .map(|n| {
            n.to_string_lossy().replace(
                |c: char| !c.is_ascii_alphanumeric() && c != '.' && c != '-',
                "_",
            )
        })
        .unwrap_or_default();
    let dir = tempfile::Builder::new()
        .prefix(&format!("paimon-parity-bundle-{name}-"))
        .tempdir()
        .map_err(|e| damaged(Damage::Io(e)))?;
    let root = dir.path().to_path_buf();
    let mut manifest: Option<Manifest> = None;
    let mut expected: HashMap<String, (u64, String)> = HashMap::new();
    let mut buf = vec![0u8; 1 << 20];
    {
        let entries = archive
            .entries()
            .map_err(|e| damaged(Damage::Truncated(e)))?;
        for entry in entries {
            let mut entry = entry.map_err(|e| damaged(Damage::Truncated(e)))?;
            let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            let relative = safe_relative(&name).map_err(damaged)?;
            let kind = entry.header().entry_type();
            if kind.is_symlink() || kind.is_hard_link() {
                let target = entry
                    .link_name_bytes()
                    .map(|t| String::from_utf8_lossy(&t).into_owned())
                    .unwrap_or_default();
                // A hard link's target is named from the archive's root, a symbolic one from its directory.
                let leaves = if kind.is_hard_link() {
                    safe_relative(&target).is_err()
                } else {
                    !link_stays_inside(&relative, &target)
                };
                return Err(damaged(Damage::Link {
                    path: name,
                    kind: if kind.is_symlink() {
                        "symbolic link"
                    } else {
                        "hard link"
                    },
                    target,
                    leaves,
                }));
            }
            if manifest.is_none() {
                // The first entry must be the manifest.
                if relative != Path::new(MANIFEST_NAME) || !kind.is_file() {
                    return Err(damaged(Damage::NoManifest(name)));
                }
                let mut text = Vec::new();
                entry
                    .read_to_end(&mut text)
                    .map_err(|e| damaged(Damage::Truncated(e)))?;
                let m: Manifest = serde_json::from_slice(&text)
                    .map_err(|e| damaged(Damage::BadManifest(e.to_string())))?;
                if m.schema != SCHEMA || m.bundle_version > BUNDLE_VERSION {
                    return Err(damaged(Damage::BadManifest(format!(
                        "schema `{}` version {}; this tool reads `{SCHEMA}` up to version {BUNDLE_VERSION}",
                        m.schema, m.bundle_version
                    ))));
                }
                expected = m
                    .files
                    .iter()
                    .map(|f| (f.path.clone(), (f.size, f.sha256.clone())))
                    .collect();
                if expected.len() != m.files.len() {
                    return Err(damaged(Damage::BadManifest(
                        "a file is listed twice".into(),
                    )));
                }
                manifest = Some(m);
                continue;
            }
            if kind.is_dir() {
                continue;
            }
            if !kind.is_file() {
                return Err(damaged(Damage::NotAFile(name)));
            }
            let inside = relative
                .strip_prefix(TABLE_DIR)
                .ok()
                .filter(|r| !r.as_os_str().is_empty())
                .ok_or_else(|| damaged(Damage::OutsideTable(name.clone())))?;
            let key = inside
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            let Some((size, sha256)) = expected.remove(&key) else {
                return Err(damaged(Damage::Unlisted(name)));
            };
            let target = root.join(&relative);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|e| damaged(Damage::Io(e)))?;
            }
            let mut out = File::options()
                .write(true)
                .create_new(true)
                .open(&target)
                .map_err(|e| damaged(Damage::Io(e)))?;
            let mut hasher = Sha256::new();
            let mut written = 0u64;
            loop {
                let n = entry
                    .read(&mut buf)
                    .map_err(|e| damaged(Damage::Truncated(e)))?;
                if n == 0 {
                    break;
                }
                hasher.update(&buf[..n]);
                out.write_all(&buf[..n])
                    .map_err(|e| damaged(Damage::Io(e)))?;
                written += n as u64;
            }
            if written != size {
                return Err(damaged(Damage::Changed {
                    path: key,
                    what: format!("{written} bytes, the manifest says {size}"),
                }));
            }
            let actual = hex(&hasher.finalize());
            if actual != sha256 {
                return Err(damaged(Damage::Changed {
                    path: key,
                    what: format!("SHA-256 {actual}, the manifest says {sha256}"),
                }));
            }
            if let Ok(mtime) = entry.header().mtime() {
                let _ =
                    out.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(mtime));
            }
        }
    }
    // The rest of the stream (the end of the archive, the frame's end): a cut there is a truncation too.
    std::io::copy(&mut archive.into_inner(), &mut std::io::sink())
        .map_err(|e| damaged(Damage::Truncated(e)))?;
    let Some(manifest) = manifest else {
        return Err(damaged(Damage::NoManifest("<nothing>".into())));
    };
    let mut missing: Vec<&String> = expected.keys().collect();
    missing.sort();
    if let Some(first) = missing.first() {
        return Err(damaged(Damage::Missing((*first).clone())));
    }
    // A bundle without any table file still holds the table directory.
    std::fs::create_dir_all(root.join(TABLE_DIR)).map_err(|e| damaged(Damage::Io(e)))?;
    Ok(Unpacked {
        dir,
        bundle: path.to_path_buf(),
        manifest,
    })
}
