//! The embedded JVM: started once per process, attached per call, Java exceptions turned into [`Error::Java`].
//!
//! There is exactly one JVM per process (JNI cannot create a second one, nor re-create a destroyed one). It is
//! started lazily by the first call that needs it ([`ensure_started`], [`with_env`]) with:
//!
//! - libjvm from `JAVA_HOME`, else from `java` on `PATH` (the `jni` crate's `java-locator`);
//! - `-Djava.class.path=` the env var `PAIMON_PARITY_CLASSPATH` if set, else the build of the selected Paimon
//!   release: `<crate>/java/target/paimon-<version>/classes` plus every jar in `<crate>/java/target/paimon-<version>/lib`
//!   (built by `scripts/build-java --paimon-version <version>`). The release is the one given to
//!   [`select_paimon_version`] before the JVM starts, else the env var `PAIMON_PARITY_PAIMON_VERSION`, else
//!   [`DEFAULT_PAIMON_VERSION`]. One process runs exactly one release: its JVM has one classpath. A
//!   candidate chosen with [`select_candidate`] puts its overlay in front of its release's build
//!   ([`crate::candidate`]) and starts without the class-data archive;
//! - `-Duser.timezone=UTC` (paimon-arrow stamps TIMESTAMP WITH LOCAL TIME ZONE with the JVM zone),
//!   `--add-opens=java.base/java.nio=ALL-UNNAMED` (Arrow memory on JDK 17), `-Xrs` (signals stay with Rust),
//!   `-Xmx` from `PAIMON_PARITY_XMX` (default `2g`), then the options of `PAIMON_PARITY_JVM_OPTIONS`;
//! - the release's class-data-sharing archive when it fits the build ([`crate::class_data`]: the bridge's jar
//!   and `lib/*.jar` as the class path, `-XX:SharedArchiveFile`), else a one-line note on stderr;
//! - `-Xlog:disable -Xlog:all=warning:stderr`: the JVM's own warnings go to stderr, never to stdout.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use jni::objects::{JObject, JObjectArray, JString, JThrowable, JValue};
use jni::{InitArgsBuilder, JNIEnv, JNIVersion, JavaVM};

use crate::candidate::Candidate;
use crate::class_data::{self, Choice};
use crate::error::{Error, Result};

/// Environment variable that replaces the default classpath (`:`-separated, as `java -cp` takes it).
pub const CLASSPATH_ENV: &str = "PAIMON_PARITY_CLASSPATH";
/// Environment variable for the JVM's maximum heap (`-Xmx` value, e.g. `4g`); default `2g`.
pub const XMX_ENV: &str = "PAIMON_PARITY_XMX";
/// Environment variable naming the Paimon release whose build the JVM loads (e.g. `1.0.0`), when
/// [`select_paimon_version`] was not called.
pub const PAIMON_VERSION_ENV: &str = "PAIMON_PARITY_PAIMON_VERSION";
/// Environment variable with further JVM options, separated by white space (e.g.
/// `-XX:TieredStopAtLevel=1 -Xlog:gc`), added after the bridge's own.
pub const JVM_OPTIONS_ENV: &str = "PAIMON_PARITY_JVM_OPTIONS";
/// Env var: the directory holding the Java side's builds (`paimon-<V>/`, `candidate-<NAME>/`) instead of
/// `<crate>/java/target`, for a binary shipped away from its source tree.
pub const JAVA_TARGET_ENV: &str = "PAIMON_PARITY_JAVA_TARGET";
/// The Paimon release used when none is selected.
pub const DEFAULT_PAIMON_VERSION: &str = "1.0.0";

/// How to build the Java side, quoted in [`Error::JvmStart`].
const BUILD_HINT: &str =
    "build the Java side first: `scripts/build-java --paimon-version <version>`, which runs \
     `mvn -B -q -f jvm-bridge/java/pom.xml package` (from the workspace root), or point \
     PAIMON_PARITY_CLASSPATH at the classes and jars";

/// The class that describes exceptions (`org.paimonparity.bridge.Errors`).
const ERRORS_CLASS: &str = "org/paimonparity/bridge/Errors";

static JVM: OnceLock<JavaVM> = OnceLock::new();
/// The release chosen with [`select_paimon_version`].
static SELECTED: Mutex<Option<String>> = Mutex::new(None);
/// The release whose build the running JVM loaded (`None` when started from `PAIMON_PARITY_CLASSPATH`).
static STARTED_WITH: OnceLock<Option<String>> = OnceLock::new();
/// The candidate chosen with [`select_candidate`] (the JVM runs it once started).
static CANDIDATE: Mutex<Option<Candidate>> = Mutex::new(None);
/// Serialises start-up and remembers a failed `JNI_CreateJavaVM` (which cannot be retried).
static START: Mutex<Option<String>> = Mutex::new(None);
/// The `-Xmx` value the running JVM was started with, quoted in `OutOfMemoryError` messages.
static HEAP: OnceLock<String> = OnceLock::new();
/// The compilation chosen with [`select_compilation`].
static COMPILATION: Mutex<Compilation> = Mutex::new(Compilation::Tiered);

/// How the JVM compiles the released reader's Java code (HotSpot's tiered compilation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Compilation {
    /// C1 then C2 (the JVM's default): the fastest reading once the code is hot; C2 compiling costs
    /// seconds of CPU at the start. Measured: the merge splits of the 2M-row `bench-pk-parquet` replayed
    /// on 2 threads in 0.74 s, against 3.15 s with C1 only.
    #[default]
    Tiered,
    /// C1 only (`-XX:TieredStopAtLevel=1`): the quickest start, for small tables. Measured: the smallest
    /// corpus replayed in 0.79 s instead of 1.11 s, every committed corpus in every mode in 4.6 s instead of
    /// 7.3 s.
    QuickStart,
}

/// Chooses how the JVM compiles (see [`Compilation`]); call it before the JVM starts (it is ignored once it
/// runs). `PAIMON_PARITY_JVM_OPTIONS` comes after and wins (e.g. `-XX:TieredStopAtLevel=4`).
pub fn select_compilation(compilation: Compilation) {
    *COMPILATION.lock().unwrap_or_else(|p| p.into_inner()) = compilation;
}

/// Chooses the Paimon release (e.g. `1.0.0`, `2.0.0`) whose build this process's JVM loads. Call it before
/// the JVM starts; calling it again with the release already in use is fine.
///
/// Errors: [`Error::JvmStart`] when `version` is not a plain release name (digits, letters, `.`, `-`), or
/// when the JVM already runs another release (a process cannot switch: start another process).
pub fn select_paimon_version(version: &str) -> Result<()> {
    check_version_name(version)?;
    let _start = START.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(c) = CANDIDATE.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
        if c.based_on != version {
            return Err(Error::JvmStart(format!(
                "this process runs {}; Paimon {version} needs another process",
                c.label()
            )));
        }
    }
    if let Some(started) = STARTED_WITH.get() {
        return match started {
            Some(v) if v == version => Ok(()),
            Some(v) => Err(Error::JvmStart(format!(
                "this process's JVM already runs Paimon {v}; Paimon {version} needs another process"
            ))),
            None => Err(Error::JvmStart(format!(
                "this process's JVM already runs the classpath of {CLASSPATH_ENV}; Paimon {version} \
                 needs another process"
            ))),
        };
    }
    *SELECTED.lock().unwrap_or_else(|p| p.into_inner()) = Some(version.to_owned());
    Ok(())
}

/// Chooses candidate `name` ([`crate::candidate`]) for this process's JVM instead of a release: its class
/// path is the candidate's overlay, then the build of the release it is based on, which also becomes
/// [`paimon_version`] (the native reader follows that release's rules). Call it before the JVM starts;
/// calling it again with the same candidate is fine. Returns the candidate read from its `candidate.json`.
///
/// Errors: [`Error::Candidate`] for a candidate that is not built (naming the built ones and the build
/// command); [`Error::JvmStart`] when the JVM already runs something else, or another release was selected.
pub fn select_candidate(name: &str) -> Result<Candidate> {
    let candidate = Candidate::load(name)?;
    let _start = START.lock().unwrap_or_else(|p| p.into_inner());
    let mut chosen = CANDIDATE.lock().unwrap_or_else(|p| p.into_inner());
    let same = chosen.as_ref().is_some_and(|c| c.name == name);
    if STARTED_WITH.get().is_some() && !same {
        return Err(Error::JvmStart(format!(
            "this process's JVM already runs another Paimon build; {} needs another process",
            candidate.label()
        )));
    }
    let mut selected = SELECTED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(v) = selected.as_ref().filter(|v| **v != candidate.based_on) {
        return Err(Error::JvmStart(format!(
            "Paimon {v} was selected for this process; {} needs another process",
            candidate.label()
        )));
    }
    *selected = Some(candidate.based_on.clone());
    *chosen = Some(candidate.clone());
    Ok(candidate)
}

/// The candidate chosen with [`select_candidate`], if any: the JVM runs it, not a release.
pub fn candidate() -> Option<Candidate> {
    CANDIDATE.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// The Paimon release whose build the JVM loads (or would load): the one given to
/// [`select_paimon_version`], else `PAIMON_PARITY_PAIMON_VERSION`, else [`DEFAULT_PAIMON_VERSION`].
/// With `PAIMON_PARITY_CLASSPATH` set, the classpath decides instead (ask the JVM:
/// `StockReader::paimon_version`).
pub fn paimon_version() -> String {
    if let Some(v) = SELECTED.lock().unwrap_or_else(|p| p.into_inner()).clone() {
        return v;
    }
    match std::env::var(PAIMON_VERSION_ENV) {
        Ok(v) if !v.trim().is_empty() => v.trim().to_owned(),
        _ => DEFAULT_PAIMON_VERSION.to_owned(),
    }
}

fn check_version_name(version: &str) -> Result<()> {
    let plain = !version.is_empty()
        && !version.starts_with('.')
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    if plain {
        Ok(())
    } else {
        Err(Error::JvmStart(format!(
            "`{version}` is not a Paimon release name (e.g. 1.0.0)"
        )))
    }
}

/// The directory the Java side of Paimon release `version` is built into:
/// `<crate>/java/target/paimon-<version>` (with `classes/` and `lib/`).
pub fn build_dir(version: &str) -> PathBuf {
    target_dir().join(format!("paimon-{version}"))
}

/// The directory holding the builds of every release and candidate: `PAIMON_PARITY_JAVA_TARGET` when set (a
/// copy shipped beside the binary, e.g. the archive of `scripts/spark-replay`), else `<crate>/java/target`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os(JAVA_TARGET_ENV).filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("java")
            .join("target"),
    }
}

/// The classpath the JVM is (or would be) started with, `:`-separated.
///
/// Errors: [`Error::JvmStart`] when `PAIMON_PARITY_CLASSPATH` is unset and the Maven build output of the
/// selected release ([`build_dir`]: `classes/` with the bridge classes, `lib/*.jar`) is missing.
pub fn classpath() -> Result<String> {
    if let Some(cp) = classpath_override() {
        return Ok(cp);
    }
    if let Some(c) = candidate() {
        return c.classpath();
    }
    release_classpath(&paimon_version())
}

/// The class path of release `version`'s build: [`build_dir`]`/classes`, then `lib/*.jar` sorted.
///
/// Errors: [`Error::JvmStart`] for a name that is not a release's, or a build that is missing.
pub fn release_classpath(version: &str) -> Result<String> {
    check_version_name(version)?;
    let dir = build_dir(version);
    default_classpath(&dir.join("classes"), &dir.join("lib"))
}

fn classpath_override() -> Option<String> {
    std::env::var(CLASSPATH_ENV)
        .ok()
        .filter(|cp| !cp.trim().is_empty())
}

/// Checks `PAIMON_PARITY_CLASSPATH` before the JVM sees it (the JVM silently skips a missing entry and then
/// fails on the first bridge class): every `:`-separated entry must exist (`DIR/*` needs `DIR`).
///
/// Errors: [`Error::JvmStart`] naming the variable and the first missing entry.
fn check_classpath_override(cp: &str) -> Result<()> {
    for entry in cp.split(':').filter(|e| !e.is_empty()) {
        let path = entry.strip_suffix("/*").unwrap_or(entry);
        if !Path::new(path).exists() {
            return Err(Error::JvmStart(format!(
                "{CLASSPATH_ENV}: the entry `{entry}` does not exist (the variable holds `{cp}`)"
            )));
        }
    }
    Ok(())
}

/// The `-Xmx` value of `PAIMON_PARITY_XMX` (default `2g`), checked before the JVM sees it (the JVM exits the
/// whole process with status 1 on a bad one): digits with an optional `k`, `m`, `g` or `t` suffix, at least
/// 16 MiB (a smaller one makes the JVM exit with "Too small maximum heap").
///
/// Errors: [`Error::JvmStart`] naming the variable and its value.
pub fn heap_setting() -> Result<String> {
    let raw = std::env::var(XMX_ENV).unwrap_or_default();
    let value = raw.trim();
    if value.is_empty() {
        return Ok("2g".to_owned());
    }
    let (digits, unit) = match value.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&value[..i], c.to_ascii_lowercase()),
        _ => (value, 'b'),
    };
    let shift = match unit {
        'b' => 0,
        'k' => 10,
        'm' => 20,
        'g' => 30,
        't' => 40,
        _ => u32::MAX,
    };
    let bytes = digits
        .parse::<u64>()
        .ok()
        .filter(|_| shift != u32::MAX && !digits.is_empty())
        .and_then(|n| n.checked_mul(1u64 << shift.min(40)));
    match bytes {
        Some(b) if b >= 16 << 20 => Ok(value.to_owned()),
        Some(_) => Err(Error::JvmStart(format!(
            "{XMX_ENV}=`{raw}` is below 16m, the smallest heap the bridge starts a JVM with"
        ))),
        None => Err(Error::JvmStart(format!(
            "{XMX_ENV}=`{raw}` is not a heap size: digits with an optional k, m, g or t suffix, e.g. 4g"
        ))),
    }
}

/// The bridge class whose presence in `classes/` says a release's Java side is built.
fn bridge_marker(classes: &Path) -> PathBuf {
    classes.join("org/paimonparity/bridge/StockReader.class")
}

/// The directory holding every release's build ([`build_dir`]'s parent, `<crate>/java/target`) and the
/// releases built there (`paimon-<V>` with the bridge classes), sorted.
pub fn built_versions() -> (PathBuf, Vec<String>) {
    let target = target_dir();
    let mut built: Vec<String> = std::fs::read_dir(&target)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let version = name.strip_prefix("paimon-")?.to_owned();
                    bridge_marker(&e.path().join("classes"))
                        .is_file()
                        .then_some(version)
                })
                .collect()
        })
        .unwrap_or_default();
    built.sort();
    (target, built)
}

fn default_classpath(classes: &Path, lib: &Path) -> Result<String> {
    let marker = bridge_marker(classes);
    if !marker.is_file() {
        return Err(Error::JvmStart(format!(
            "{} not found; {BUILD_HINT}",
            marker.display()
        )));
    }
    let entries = std::fs::read_dir(lib).map_err(|e| {
        Error::JvmStart(format!("cannot list {}: {e}; {BUILD_HINT}", lib.display()))
    })?;
    let mut jars: Vec<PathBuf> = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| Error::JvmStart(format!("cannot list {}: {e}", lib.display())))?
            .path();
        if path.extension().is_some_and(|x| x == "jar") {
            jars.push(path);
        }
    }
    if jars.is_empty() {
        return Err(Error::JvmStart(format!(
            "no jars in {}; {BUILD_HINT}",
            lib.display()
        )));
    }
    jars.sort();
    let mut parts = vec![path_str(classes)?];
    for jar in &jars {
        parts.push(path_str(jar)?);
    }
    Ok(parts.join(":"))
}

fn path_str(p: &Path) -> Result<String> {
    p.to_str()
        .map(str::to_owned)
        .ok_or_else(|| Error::JvmStart(format!("classpath entry {} is not UTF-8", p.display())))
}

/// Starts the JVM if it is not running yet, and returns it.
///
/// Errors: [`Error::JvmStart`] (classpath missing, libjvm not found, `JNI_CreateJavaVM` failed). A failure
/// before `JNI_CreateJavaVM` (e.g. a missing classpath) can be retried after fixing it; a failed
/// `JNI_CreateJavaVM` is remembered and returned again.
pub fn vm() -> Result<&'static JavaVM> {
    if let Some(vm) = JVM.get() {
        return Ok(vm);
    }
    let mut failed = START.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(vm) = JVM.get() {
        return Ok(vm);
    }
    if let Some(msg) = failed.as_ref() {
        return Err(Error::JvmStart(msg.clone()));
    }
    let mut cp = classpath()?;
    if let Some(cp) = classpath_override() {
        check_classpath_override(&cp)?;
    }
    let release = classpath_override().is_none().then(paimon_version);
    let mut archive = None;
    // A candidate's overlay is not in the release's archive: it starts without one.
    if let Some(version) = release.as_ref().filter(|_| candidate().is_none()) {
        match class_data::choose(&build_dir(version)) {
            Choice::Use {
                archive: file,
                classpath,
            } => {
                cp = classpath;
                archive = Some(file);
            }
            Choice::Ignored { archive, reason } => eprintln!(
                "note: the class-data archive {} is not used: {reason}; `scripts/build-java \
                 --paimon-version {version}` makes it again",
                archive.display()
            ),
            Choice::None => {}
        }
    }
    let xmx = heap_setting()?;
    let mut builder = InitArgsBuilder::new()
        .version(JNIVersion::V8)
        .option(format!("-Djava.class.path={cp}"))
        // The JVM's own log (a class-data archive it cannot map, say) goes to stderr, never into a report
        // written to stdout.
        .option("-Xlog:disable")
        .option("-Xlog:all=warning:stderr")
        .option("-Duser.timezone=UTC")
        .option("--add-opens=java.base/java.nio=ALL-UNNAMED")
        .option("-Xrs")
        .option(format!("-Xmx{}", xmx.trim()));
    if *COMPILATION.lock().unwrap_or_else(|p| p.into_inner()) == Compilation::QuickStart {
        builder = builder.option("-XX:TieredStopAtLevel=1");
    }
    if let Some(file) = &archive {
        builder = builder.option(format!("-XX:SharedArchiveFile={}", path_str(file)?));
    }
    for option in std::env::var(JVM_OPTIONS_ENV)
        .unwrap_or_default()
        .split_whitespace()
    {
        builder = builder.option(option.to_owned());
    }
    let args = builder
        .ignore_unrecognized(false)
        .build()
        .map_err(|e| Error::JvmStart(format!("bad JVM option: {e}")))?;
    match JavaVM::new(args) {
        Ok(vm) => {
            let _ = STARTED_WITH.set(release);
            let _ = HEAP.set(xmx.trim().to_owned());
            Ok(JVM.get_or_init(|| vm))
        }
        Err(e) => {
            let msg =
                format!("{e} (libjvm is found through JAVA_HOME, else through `java` on PATH)");
            *failed = Some(msg.clone());
            Err(Error::JvmStart(msg))
        }
    }
}

/// The JDK of the JVM running in this process, as `<java.vm.vendor> <java.runtime.version>` (e.g.
/// `Debian 17.0.13+11-Debian-2deb12u1`), from its system properties; `None` when no JVM was started
/// (a command that used only the native reader), so asking never starts one.
pub fn running_jdk() -> Option<String> {
    JVM.get()?;
    let property = |env: &mut JNIEnv<'_>, name: &str| -> Result<String> {
        let key = env.new_string(name)?;
        let value = env
            .call_static_method(
                "java/lang/System",
                "getProperty",
                "(Ljava/lang/String;)Ljava/lang/String;",
                &[(&key).into()],
            )?
            .l()?;
        if value.is_null() {
            return Ok(String::new());
        }
        Ok(env.get_string(&value.into())?.into())
    };
    with_env(|env| {
        let vendor = property(env, "java.vm.vendor")?;
        let version = property(env, "java.runtime.version")?;
        Ok(format!("{vendor} {version}").trim().to_owned())
    })
    .ok()
}

/// Whether this process's JVM has started (asking never starts it).
pub fn is_running() -> bool {
    JVM.get().is_some()
}

/// Starts the JVM if needed (see [`vm`]).
pub fn ensure_started() -> Result<()> {
    vm().map(|_| ())
}

/// Attaches the current thread (permanently; it detaches when the thread exits), runs `f` in a fresh JNI
/// local frame, and turns a pending Java exception into [`Error::Java`], clearing it so the JVM stays usable.
///
/// Local references created in `f` are freed when it returns; return only Rust values.
pub fn with_env<T, F>(f: F) -> Result<T>
where
    F: FnOnce(&mut JNIEnv<'_>) -> Result<T>,
{
    let vm = vm()?;
    let mut env = vm.attach_current_thread_permanently()?;
    env.with_local_frame(64, |env| {
        let out = ensure_context_class_loader(env).and_then(|()| f(env));
        if env.exception_check().unwrap_or(false) {
            return Err(take_exception(env));
        }
        out
    })
}

/// Natively attached threads start with a null context class loader, which libraries that look up resources
/// or services through it (snappy-java, `ServiceLoader` users) trip over; give them the system class loader,
/// which holds the whole classpath.
fn ensure_context_class_loader(env: &mut JNIEnv<'_>) -> Result<()> {
    let thread = env
        .call_static_method(
            "java/lang/Thread",
            "currentThread",
            "()Ljava/lang/Thread;",
            &[],
        )?
        .l()?;
    let loader = env
        .call_method(
            &thread,
            "getContextClassLoader",
            "()Ljava/lang/ClassLoader;",
            &[],
        )?
        .l()?;
    if loader.is_null() {
        let system = env
            .call_static_method(
                "java/lang/ClassLoader",
                "getSystemClassLoader",
                "()Ljava/lang/ClassLoader;",
                &[],
            )?
            .l()?;
        env.call_method(
            &thread,
            "setContextClassLoader",
            "(Ljava/lang/ClassLoader;)V",
            &[JValue::Object(&system)],
        )?;
    }
    Ok(())
}

/// Takes the pending exception: clears it and describes it with `Errors.describe`.
fn take_exception(env: &mut JNIEnv<'_>) -> Error {
    let throwable = match env.exception_occurred() {
        Ok(t) => t,
        Err(e) => {
            let _ = env.exception_clear();
            return Error::Jni(format!("cannot get the pending Java exception: {e}"));
        }
    };
    if env.exception_clear().is_err() {
        return Error::Jni("cannot clear the pending Java exception".to_owned());
    }
    let described = describe(env, &throwable);
    with_heap(match described {
        Ok(e) => e,
        Err(first) => {
            let _ = env.exception_clear();
            match fallback_describe(env, &throwable) {
                Ok(e) => e,
                Err(_) => {
                    let _ = env.exception_clear();
                    Error::Jni(format!(
                        "a Java exception was thrown but could not be described: {first}"
                    ))
                }
            }
        }
    })
}

/// Adds the JVM's heap size to the message of an `OutOfMemoryError` (thrown, or the cause of what was
/// thrown): `... (JVM heap -Xmx2g; raise it with PAIMON_PARITY_XMX)`.
fn with_heap(e: Error) -> Error {
    match e {
        Error::Java {
            class,
            message,
            stack,
        } if class.contains("OutOfMemoryError") || stack.contains("java.lang.OutOfMemoryError") => {
            let heap = HEAP.get().map_or("unknown", String::as_str);
            Error::Java {
                message: format!("{message} (JVM heap -Xmx{heap}; raise it with {XMX_ENV})"),
                class,
                stack,
            }
        }
        other => other,
    }
}

fn describe(env: &mut JNIEnv<'_>, throwable: &JThrowable<'_>) -> Result<Error> {
    let parts = env
        .call_static_method(
            ERRORS_CLASS,
            "describe",
            "(Ljava/lang/Throwable;)[Ljava/lang/String;",
            &[JValue::Object(throwable)],
        )?
        .l()?;
    if parts.is_null() {
        return Err(Error::protocol("Errors.describe returned null".to_owned()));
    }
    let parts = JObjectArray::from(parts);
    let mut out = Vec::with_capacity(3);
    for i in 0..3 {
        let s = env.get_object_array_element(&parts, i)?;
        out.push(java_string(env, s)?);
    }
    let stack = out.pop().unwrap_or_default();
    let message = with_root_cause(out.pop().unwrap_or_default(), &stack);
    let class = out.pop().unwrap_or_default();
    Ok(Error::Java {
        class,
        message,
        stack,
    })
}

/// Appends the root cause of an exception chain (the last top-level `Caused by:` line of `stack`) to
/// `message` unless the message already holds it: released Paimon often wraps the precise error
/// (`FileNotFoundException: ... does not exist`) in a generic one (`Failed to read manifest-...`).
fn with_root_cause(message: String, stack: &str) -> String {
    let root = stack
        .lines()
        .filter_map(|l| l.strip_prefix("Caused by: "))
        .next_back()
        .map(str::trim);
    match root {
        Some(root) if !root.is_empty() && !message.contains(root) => {
            if message.is_empty() {
                format!("caused by {root}")
            } else {
                format!("{message} (root cause: {root})")
            }
        }
        _ => message,
    }
}

/// Describes an exception without the bridge classes (e.g. when they failed to load): class name and
/// `toString()`.
fn fallback_describe(env: &mut JNIEnv<'_>, throwable: &JThrowable<'_>) -> Result<Error> {
    let class = env.get_object_class(throwable)?;
    let name = env
        .call_method(&class, "getName", "()Ljava/lang/String;", &[])?
        .l()?;
    let class = java_string(env, name)?;
    let text = env
        .call_method(throwable, "toString", "()Ljava/lang/String;", &[])?
        .l()?;
    let text = java_string(env, text)?;
    Ok(Error::Java {
        class,
        message: text.clone(),
        stack: text,
    })
}

/// A Java `String` object as a Rust `String`; null becomes the empty string.
pub(crate) fn java_string(env: &mut JNIEnv<'_>, obj: JObject<'_>) -> Result<String> {
    if obj.is_null() {
        return Ok(String::new());
    }
    let s = JString::from(obj);
    let out: String = env.get_string(&s)?.into();
    Ok(out)
}

/// A path as the `String` Java gets. Errors: [`Error::Protocol`] when the path is not UTF-8.
pub(crate) fn path_arg(p: &Path) -> Result<&str> {
    p.to_str()
        .ok_or_else(|| Error::protocol(format!("path {} is not UTF-8", p.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_build_output_is_a_start_error_with_instructions() {
        let dir = std::env::temp_dir().join("jvm-bridge-no-such-build");
        let err = default_classpath(&dir.join("classes"), &dir.join("lib")).unwrap_err();
        match err {
            Error::JvmStart(msg) => {
                assert!(msg.contains("mvn -B -q -f jvm-bridge/java/pom.xml package"))
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn root_cause_is_appended_once() {
        let stack = "java.lang.RuntimeException: Failed to read manifest-a-0\n\tat X.y(X.java:1)\n\
                     Caused by: java.lang.RuntimeException: wrapped\n\tat X.z(X.java:2)\n\
                     Caused by: java.io.FileNotFoundException: File /t/manifest/manifest-a-0 does not exist\n\
                     \tat X.w(X.java:3)\n\tSuppressed: java.lang.Exception: other\n\t\tCaused by: x.Y: nested\n";
        assert_eq!(
            with_root_cause("Failed to read manifest-a-0".into(), stack),
            "Failed to read manifest-a-0 (root cause: java.io.FileNotFoundException: File \
             /t/manifest/manifest-a-0 does not exist)"
        );
        assert_eq!(
            with_root_cause(String::new(), stack),
            "caused by java.io.FileNotFoundException: File /t/manifest/manifest-a-0 does not exist"
        );
        let already = "java.io.FileNotFoundException: File /t/manifest/manifest-a-0 does not exist";
        assert_eq!(with_root_cause(already.into(), stack), already);
        assert_eq!(
            with_root_cause("plain".into(), "x.Y: plain\n\tat A.b"),
            "plain"
        );
    }

    #[test]
    fn out_of_memory_errors_name_the_heap() {
        let oom = Error::Java {
            class: "java.lang.OutOfMemoryError".into(),
            message: "Java heap space".into(),
            stack: String::new(),
        };
        let Error::Java { message, .. } = with_heap(oom) else {
            panic!("not a Java error")
        };
        assert!(
            message.starts_with("Java heap space (JVM heap -Xmx"),
            "{message}"
        );
        assert!(message.contains(XMX_ENV), "{message}");
        let other = Error::Java {
            class: "java.io.IOException".into(),
            message: "disk".into(),
            stack: String::new(),
        };
        let Error::Java { message, .. } = with_heap(other) else {
            panic!("not a Java error")
        };
        assert_eq!(message, "disk");
    }

    #[test]
    fn release_names_are_plain() {
        assert!(check_version_name("1.0.0").is_ok());
        assert!(check_version_name("2.0.0-rc1").is_ok());
        for bad in ["", "../x", "1.0/..", ".hidden", "1 0"] {
            assert!(check_version_name(bad).is_err(), "{bad}");
        }
        assert!(build_dir("1.0.0").ends_with("java/target/paimon-1.0.0"));
    }
}
