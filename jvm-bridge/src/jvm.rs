//! The embedded JVM: started once per process, attached per call, Java exceptions turned into [`Error::Java`].
//!
//! There is exactly one JVM per process (JNI cannot create a second one, nor re-create a destroyed one). It is
//! started lazily by the first call that needs it ([`ensure_started`], [`with_env`]) with:
//!
//! - libjvm from `JAVA_HOME`, else from `java` on `PATH` (the `jni` crate's `java-locator`);
//! - `-Djava.class.path=` the env var `PAIMON_PARITY_CLASSPATH` if set, else `<crate>/java/target/classes` plus
//!   every jar in `<crate>/java/target/lib` (built by `mvn -B -q -f jvm-bridge/java/pom.xml package`);
//! - `-Duser.timezone=UTC` (paimon-arrow stamps TIMESTAMP WITH LOCAL TIME ZONE with the JVM zone),
//!   `--add-opens=java.base/java.nio=ALL-UNNAMED` (Arrow memory on JDK 17), `-Xrs` (signals stay with Rust),
//!   `-Xmx` from `PAIMON_PARITY_XMX` (default `2g`).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use jni::objects::{JObject, JObjectArray, JString, JThrowable, JValue};
use jni::{InitArgsBuilder, JNIEnv, JNIVersion, JavaVM};

use crate::error::{Error, Result};

/// Environment variable that replaces the default classpath (`:`-separated, as `java -cp` takes it).
pub const CLASSPATH_ENV: &str = "PAIMON_PARITY_CLASSPATH";
/// Environment variable for the JVM's maximum heap (`-Xmx` value, e.g. `4g`); default `2g`.
pub const XMX_ENV: &str = "PAIMON_PARITY_XMX";

/// How to build the Java side, quoted in [`Error::JvmStart`].
const BUILD_HINT: &str =
    "build the Java side first: `mvn -B -q -f jvm-bridge/java/pom.xml package` \
     (run from the workspace root), or point PAIMON_PARITY_CLASSPATH at the classes and jars";

/// The class that describes exceptions (`org.paimonparity.bridge.Errors`).
const ERRORS_CLASS: &str = "org/paimonparity/bridge/Errors";

static JVM: OnceLock<JavaVM> = OnceLock::new();
/// Serialises start-up and remembers a failed `JNI_CreateJavaVM` (which cannot be retried).
static START: Mutex<Option<String>> = Mutex::new(None);

/// The classpath the JVM is (or would be) started with, `:`-separated.
///
/// Errors: [`Error::JvmStart`] when `PAIMON_PARITY_CLASSPATH` is unset and the Maven build output
/// (`java/target/classes` with the bridge classes, `java/target/lib/*.jar`) is missing.
pub fn classpath() -> Result<String> {
    if let Ok(cp) = std::env::var(CLASSPATH_ENV) {
        if !cp.trim().is_empty() {
            return Ok(cp);
        }
    }
    let java = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("java")
        .join("target");
    default_classpath(&java.join("classes"), &java.join("lib"))
}

fn default_classpath(classes: &Path, lib: &Path) -> Result<String> {
    let marker = classes.join("org/paimonparity/bridge/StockReader.class");
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
    let cp = classpath()?;
    let xmx = std::env::var(XMX_ENV)
        .ok()
        .filter(|x| !x.trim().is_empty())
        .unwrap_or_else(|| "2g".to_owned());
    let args = InitArgsBuilder::new()
        .version(JNIVersion::V8)
        .option(format!("-Djava.class.path={cp}"))
        .option("-Duser.timezone=UTC")
        .option("--add-opens=java.base/java.nio=ALL-UNNAMED")
        .option("-Xrs")
        .option(format!("-Xmx{xmx}"))
        .ignore_unrecognized(false)
        .build()
        .map_err(|e| Error::JvmStart(format!("bad JVM option: {e}")))?;
    match JavaVM::new(args) {
        Ok(vm) => Ok(JVM.get_or_init(|| vm)),
        Err(e) => {
            let msg =
                format!("{e} (libjvm is found through JAVA_HOME, else through `java` on PATH)");
            *failed = Some(msg.clone());
            Err(Error::JvmStart(msg))
        }
    }
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
    F: FnOnce(&mut JNIEnv) -> Result<T>,
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
fn ensure_context_class_loader(env: &mut JNIEnv) -> Result<()> {
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
fn take_exception(env: &mut JNIEnv) -> Error {
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
    match describe(env, &throwable) {
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
    }
}

fn describe(env: &mut JNIEnv, throwable: &JThrowable) -> Result<Error> {
    let parts = env
        .call_static_method(
            ERRORS_CLASS,
            "describe",
            "(Ljava/lang/Throwable;)[Ljava/lang/String;",
            &[JValue::Object(throwable)],
        )?
        .l()?;
    if parts.is_null() {
        return Err(Error::Protocol("Errors.describe returned null".to_owned()));
    }
    let parts = JObjectArray::from(parts);
    let mut out = Vec::with_capacity(3);
    for i in 0..3 {
        let s = env.get_object_array_element(&parts, i)?;
        out.push(java_string(env, s)?);
    }
    let stack = out.pop().unwrap_or_default();
    let message = out.pop().unwrap_or_default();
    let class = out.pop().unwrap_or_default();
    Ok(Error::Java {
        class,
        message,
        stack,
    })
}

/// Describes an exception without the bridge classes (e.g. when they failed to load): class name and
/// `toString()`.
fn fallback_describe(env: &mut JNIEnv, throwable: &JThrowable) -> Result<Error> {
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
pub(crate) fn java_string(env: &mut JNIEnv, obj: JObject) -> Result<String> {
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
        .ok_or_else(|| Error::Protocol(format!("path {} is not UTF-8", p.display())))
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
}
