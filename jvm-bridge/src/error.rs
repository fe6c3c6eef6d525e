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
    /// A candidate build (`scripts/build-java --candidate`, [`crate::candidate`]) cannot be used: no
    /// candidate of that name is built (the message names the built ones and the build command), its
    /// `candidate.json` is unreadable, or its release is not built.
    #[error("{0}")]
    Candidate(String),
    /// A JNI call failed without a Java exception (bad signature, thread not attachable, ...), in words.
    #[error("JNI error: {0}")]
    Jni(String),
    /// A JNI call failed without a Java exception: the `jni` crate's error kept as the source.
    #[error("JNI error: {0}")]
    JniCall(#[from] jni::errors::Error),
    /// Importing a batch through the Arrow C Data Interface failed (the Arrow error kept as the source).
    #[error("Arrow error: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    /// The Java side answered something the Rust side does not understand (bad JSON, null result, ...),
    /// or an argument cannot be passed to Java (e.g. a non-UTF-8 path).
    #[error("bridge protocol error: {0}")]
    Protocol(#[source] ProtocolError),
}

/// What [`Error::Protocol`] says: a message, and the JSON or base64 error behind it when there is one
/// (shown as `<message>: <source>`).
#[derive(Debug)]
pub struct ProtocolError {
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl ProtocolError {
    /// The message alone.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.source {
            Some(source) => write!(f, "{}: {source}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ProtocolError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl Error {
    /// [`Error::Protocol`] with a message.
    pub(crate) fn protocol(message: impl Into<String>) -> Self {
        Error::Protocol(ProtocolError {
            message: message.into(),
            source: None,
        })
    }

    /// [`Error::Protocol`] `<context>: <source>`, keeping `source`.
    pub(crate) fn protocol_source(
        context: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Error::Protocol(ProtocolError {
            message: context.into(),
            source: Some(source.into()),
        })
    }
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
