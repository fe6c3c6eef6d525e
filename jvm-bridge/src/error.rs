//! The one error type of `jvm-bridge`.

/// Everything that can go wrong between Rust and the embedded JVM.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A Java exception thrown by the released Paimon SDK or the bridge classes. The exception has been
    /// cleared, so the JVM stays usable.
    #[error("{class}: {message}")]
    Java {
        /// Fully qualified class name, e.g. `java.lang.IllegalArgumentException`.
        class: String,
        /// `getMessage()`; when null, the first cause's message as `caused by <class>: <message>`, else empty.
        message: String,
        /// `printStackTrace()` output: the whole trace, causes and suppressed exceptions included.
        stack: String,
    },
    /// The JVM could not be started: libjvm not found, classpath missing, `JNI_CreateJavaVM` failed.
    #[error("cannot start the JVM: {0}")]
    JvmStart(String),
    /// A JNI call failed without a Java exception (bad signature, thread not attachable, ...).
    #[error("JNI error: {0}")]
    Jni(String),
    /// Importing a batch through the Arrow C Data Interface failed.
    #[error("Arrow error: {0}")]
    Arrow(String),
    /// The Java side answered something the Rust side does not understand (bad JSON, null result, ...),
    /// or an argument cannot be passed to Java (e.g. a non-UTF-8 path).
    #[error("bridge protocol error: {0}")]
    Protocol(String),
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl From<jni::errors::Error> for Error {
    fn from(e: jni::errors::Error) -> Self {
        Error::Jni(e.to_string())
    }
}

impl From<arrow_schema::ArrowError> for Error {
    fn from(e: arrow_schema::ArrowError) -> Self {
        Error::Arrow(e.to_string())
    }
}
