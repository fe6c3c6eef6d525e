//! The class-data-sharing (CDS) archive of a release's build: the classes a replay loads (the bridge's,
//! Paimon's, Arrow's, Hadoop's), parsed and laid out once by `scripts/build-java` and mapped by every later
//! JVM start instead of being loaded from the jars again (HotSpot's dynamic archive,
//! `-XX:ArchiveClassesAtExit` at build time, `-XX:SharedArchiveFile` here).
//!
//! `scripts/build-java --paimon-version V` writes, into [`crate::jvm::build_dir`]:
//! - `paimon-parity.jsa`: the archive, made by a training run of `org.paimonparity.bridge.ClassDataTraining`
//!   (plan, stream scan, read and export of every split of a few committed corpora);
//! - `paimon-parity.jsa.classpath`: the class path it was made for, `:`-separated: the bridge's jar
//!   (`paimon-parity-bridge-0.1.0.jar`, not `classes/`: an archive cannot hold classes of a directory), then
//!   every `lib/*.jar` sorted.
//!
//! An archive is used only for the class path it was made for: [`choose`] checks that the recorded class
//! path is the build's current one and that nothing on it (nor any class under `classes/`) is newer than the
//! archive; otherwise the JVM starts from the plain class path and [`Choice::Ignored`] says why, in one line.
//! The JVM itself checks the rest (the JDK that made the archive); its own warning goes to stderr.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Environment variable: `0` starts the JVM without the class-data archive (and `scripts/build-java`
/// makes none).
pub const CDS_ENV: &str = "PAIMON_PARITY_CDS";
/// The archive's file name in a release's build directory.
pub const ARCHIVE_FILE: &str = "paimon-parity.jsa";
/// The file beside the archive recording the class path it was made for.
pub const CLASSPATH_FILE: &str = "paimon-parity.jsa.classpath";
/// The bridge's jar in a release's build directory (what the archive holds instead of `classes/`).
pub const BRIDGE_JAR: &str = "paimon-parity-bridge-0.1.0.jar";

/// What the JVM of a release's build starts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// Map `archive`, with `classpath` (the one it was made for) as the class path.
    Use {
        /// The archive (`-XX:SharedArchiveFile`).
        archive: PathBuf,
        /// The class path it was made for, `:`-separated.
        classpath: String,
    },
    /// There is an archive, but it does not fit this build: the reason, in words (one line).
    Ignored {
        /// The archive left unused.
        archive: PathBuf,
        /// Why, e.g. `lib/paimon-bundle-1.0.0.jar is newer than the archive`.
        reason: String,
    },
    /// No archive (not built, or [`CDS_ENV`] is `0`): the plain class path.
    None,
}

/// Chooses how the JVM of the build in `dir` (`<crate>/java/target/paimon-<V>`) starts; see the module
/// documentation. Never fails: anything unreadable is a reason to ignore the archive.
pub fn choose(dir: &Path) -> Choice {
    if std::env::var(CDS_ENV).is_ok_and(|v| v.trim() == "0") {
        return Choice::None;
    }
    let archive = dir.join(ARCHIVE_FILE);
    let Some(archive_time) = modified(&archive) else {
        return Choice::None;
    };
    match check(dir, archive_time) {
        Ok(classpath) => Choice::Use { archive, classpath },
        Err(reason) => Choice::Ignored { archive, reason },
    }
}

/// The recorded class path when it is the build's current one and nothing on it is newer than the archive.
fn check(dir: &Path, archive_time: SystemTime) -> Result<String, String> {
    let recorded = std::fs::read_to_string(dir.join(CLASSPATH_FILE))
        .map_err(|e| format!("cannot read {CLASSPATH_FILE} beside it: {e}"))?;
    let recorded = recorded.trim().to_owned();
    let entries: Vec<PathBuf> = recorded.split(':').map(PathBuf::from).collect();
    let mut expected = vec![dir.join(BRIDGE_JAR)];
    let mut jars: Vec<PathBuf> = std::fs::read_dir(dir.join("lib"))
        .map_err(|e| format!("cannot list lib/: {e}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jar"))
        .collect();
    jars.sort();
    expected.extend(jars);
    if entries != expected {
        return Err("it was made for another class path (the build changed since)".to_owned());
    }
    for entry in &entries {
        match modified(entry) {
            Some(t) if t <= archive_time => {}
            Some(_) => return Err(format!("{} is newer than the archive", entry.display())),
            None => return Err(format!("{} cannot be read", entry.display())),
        }
    }
    // The bridge's classes are taken from its jar: a `classes/` compiled after the jar would be shadowed.
    let jar_time = modified(&dir.join(BRIDGE_JAR)).unwrap_or(SystemTime::UNIX_EPOCH);
    if let Some(newer) = newer_file(&dir.join("classes"), jar_time) {
        return Err(format!("{} is newer than {BRIDGE_JAR}", newer.display()));
    }
    Ok(recorded)
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).ok()?.modified().ok()
}

/// A file under `dir` modified after `than`, if any.
fn newer_file(dir: &Path, than: SystemTime) -> Option<PathBuf> {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).ok()?.flatten() {
            let path = e.path();
            let meta = e.metadata().ok()?;
            if meta.is_dir() {
                stack.push(path);
            } else if meta.modified().ok()? > than {
                return Some(path);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn touch(path: &Path, time: SystemTime) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, b"x").unwrap();
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(time)
            .unwrap();
    }

    /// A build directory with an archive made after everything on its class path.
    fn build() -> (tempfile::TempDir, SystemTime) {
        let dir = tempfile::tempdir().unwrap();
        let t0 = SystemTime::now() - Duration::from_secs(3600);
        let d = dir.path();
        touch(
            &d.join("classes/org/paimonparity/bridge/StockReader.class"),
            t0,
        );
        touch(&d.join(BRIDGE_JAR), t0);
        touch(&d.join("lib/b.jar"), t0);
        touch(&d.join("lib/a.jar"), t0);
        let cp = format!(
            "{}:{}:{}",
            d.join(BRIDGE_JAR).display(),
            d.join("lib/a.jar").display(),
            d.join("lib/b.jar").display()
        );
        std::fs::write(d.join(CLASSPATH_FILE), cp).unwrap();
        touch(&d.join(ARCHIVE_FILE), t0 + Duration::from_secs(60));
        (dir, t0)
    }

    #[test]
    fn an_archive_made_for_the_build_is_used_with_its_class_path() {
        let (dir, _) = build();
        match choose(dir.path()) {
            Choice::Use { archive, classpath } => {
                assert_eq!(archive, dir.path().join(ARCHIVE_FILE));
                let jar = |name: &str| dir.path().join(name).display().to_string();
                assert_eq!(
                    classpath,
                    [jar(BRIDGE_JAR), jar("lib/a.jar"), jar("lib/b.jar")].join(":")
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn no_archive_is_no_choice() {
        let (dir, _) = build();
        std::fs::remove_file(dir.path().join(ARCHIVE_FILE)).unwrap();
        assert_eq!(choose(dir.path()), Choice::None);
    }

    #[test]
    fn a_rebuilt_jar_a_new_jar_or_recompiled_classes_make_it_ignored_with_the_reason() {
        let later = SystemTime::now();
        let (dir, _) = build();
        touch(&dir.path().join("lib/b.jar"), later);
        let Choice::Ignored { reason, .. } = choose(dir.path()) else {
            panic!("a rebuilt jar")
        };
        assert!(
            reason.ends_with("lib/b.jar is newer than the archive"),
            "{reason}"
        );

        let (dir, t0) = build();
        touch(&dir.path().join("lib/c.jar"), t0);
        let Choice::Ignored { reason, .. } = choose(dir.path()) else {
            panic!("a new jar")
        };
        assert_eq!(
            reason,
            "it was made for another class path (the build changed since)"
        );

        let (dir, _) = build();
        touch(
            &dir.path()
                .join("classes/org/paimonparity/bridge/StockReader.class"),
            later,
        );
        let Choice::Ignored { reason, .. } = choose(dir.path()) else {
            panic!("recompiled classes")
        };
        assert!(
            reason.ends_with(&format!("StockReader.class is newer than {BRIDGE_JAR}")),
            "{reason}"
        );

        let (dir, _) = build();
        std::fs::remove_file(dir.path().join(CLASSPATH_FILE)).unwrap();
        let Choice::Ignored { reason, .. } = choose(dir.path()) else {
            panic!("no recorded class path")
        };
        assert!(
            reason.starts_with("cannot read paimon-parity.jsa.classpath"),
            "{reason}"
        );
    }
}
