//! The file-system options of a run (`--option KEY=VALUE`, `--options-file FILE`, the AWS environment):
//! one [`FileIOOptions`] map, spelled as Paimon spells it, given to the native reader
//! ([`native_reader::fileio::configure`]), to the released Java reader (its `CatalogContext`), and to
//! external readers. Secrets in it are never printed ([`FileIOOptions::redacted`]).

use std::collections::BTreeMap;
use std::path::Path;

use native_reader::fileio::FileIOOptions;

use crate::error::{Error, Result};

/// The options of a run, in the order that decides a key given twice: the options file, then each
/// `--option` (the last wins), then the AWS environment for what they leave unset; and
/// `s3.path.style.access=true` for an endpoint given as an address ([`FileIOOptions::with_path_style_for_addresses`]),
/// and bounded retries where none are given ([`FileIOOptions::with_bounded_retries`]).
///
/// Errors: [`Error::Usage`] for an `--option` without `=` or with an empty key; [`Error::Table`] naming the
/// file and line for an options file that cannot be read or has a line that is neither `KEY=VALUE`,
/// `KEY: VALUE`, blank nor a `#` comment.
pub fn from_args(options: &[String], file: Option<&Path>) -> Result<FileIOOptions> {
    let mut map = BTreeMap::new();
    if let Some(file) = file {
        map.extend(read_file(file)?);
    }
    for option in options {
        let (key, value) = option
            .split_once('=')
            .filter(|(k, _)| !k.trim().is_empty())
            .ok_or_else(|| {
                Error::Usage(format!(
                    "--option `{}`: expected KEY=VALUE (e.g. s3.endpoint=http://127.0.0.1:9000)",
                    shown(option)
                ))
            })?;
        map.insert(key.trim().to_string(), value.to_string());
    }
    Ok(FileIOOptions::from_map(map)
        .with_aws_environment(|v| std::env::var(v).ok())
        .with_path_style_for_addresses()
        .with_bounded_retries())
}

/// Writes `options` to `path` as `KEY=VALUE` lines (an options file, read back by [`from_args`]), created
/// new and readable by this user only (mode 0600): how a parent hands a child process its options, never on a
/// command line (which `ps` shows and reports record).
///
/// Errors: [`Error::Io`] naming `path` (it exists already, or cannot be written).
pub fn write_private(path: &Path, options: &FileIOOptions) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let io = |e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(io)?;
    for (k, v) in options.as_map() {
        writeln!(file, "{k}={v}").map_err(io)?;
    }
    Ok(())
}

/// An `--option` as it may be shown in an error: its value hidden when its key names a secret.
fn shown(option: &str) -> String {
    match option.split_once('=') {
        Some((k, _)) if native_reader::fileio::options::is_secret(k) => {
            format!("{k}={}", native_reader::fileio::options::REDACTED)
        }
        _ => option.to_string(),
    }
}

/// The `KEY=VALUE` or `KEY: VALUE` lines of an options file (`#` comments and blank lines skipped).
fn read_file(path: &Path) -> Result<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Table {
        path: path.to_path_buf(),
        reason: format!("cannot read the options file: {e}"),
    })?;
    let mut map = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let split = match (line.find('='), line.find(": ")) {
            (Some(e), Some(c)) => Some(if e < c { (e, 1) } else { (c, 2) }),
            (Some(e), None) => Some((e, 1)),
            (None, Some(c)) => Some((c, 2)),
            (None, None) => None,
        };
        let Some((at, width)) = split.filter(|(at, _)| *at > 0) else {
            return Err(Error::Table {
                path: path.to_path_buf(),
                reason: format!(
                    "line {}: expected KEY=VALUE or KEY: VALUE, found `{} …` (the rest not shown: it \
                     may hold a secret)",
                    n + 1,
                    line.split(|c: char| c.is_whitespace() || c == ':').next().unwrap_or_default()
                ),
            });
        };
        map.insert(
            line[..at].trim().to_string(),
            line[at + width..].trim().to_string(),
        );
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_come_from_the_file_then_the_flags() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s3.properties");
        std::fs::write(
            &file,
            "# the local server\ns3.endpoint=http://127.0.0.1:9000\ns3.access-key: from-file\n\ns3.region = eu-west-1\n",
        )
        .unwrap();
        let o = from_args(&["s3.access-key=from-flag".to_string()], Some(&file)).unwrap();
        assert_eq!(o.get("s3.endpoint"), Some("http://127.0.0.1:9000"));
        assert_eq!(o.get("s3.access-key"), Some("from-flag"));
        assert_eq!(o.get("s3.region"), Some("eu-west-1"));
        assert_eq!(o.get("s3.path.style.access"), Some("true"));

        std::fs::write(&file, "s3.endpoint=x\ns3.secret-key:very-secret\n").unwrap();
        let e = from_args(&[], Some(&file)).unwrap_err().to_string();
        assert!(e.contains("s3.properties") && e.contains("line 2"), "{e}");
        assert!(!e.contains("very-secret"), "{e}");
        let e = from_args(&["s3.secret-key".to_string()], None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected KEY=VALUE"), "{e}");
        let e = from_args(&["=x".to_string()], None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`=x`"), "{e}");
        let e = from_args(&[], Some(&dir.path().join("missing"))).unwrap_err();
        assert!(
            e.to_string().contains("cannot read the options file"),
            "{e}"
        );
    }
}
