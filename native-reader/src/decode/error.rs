//! [`DecodeError`]: why a data file's bytes cannot be decoded, before the file name is known.

use std::path::Path;

use crate::error::{Cause, Error, ErrorKind};

/// Why the bytes of a data file cannot be decoded, without the file name: the format readers and
/// [`super::conform`] return it and [`DecodeError::at`] turns it into the crate's [`Error`] naming the file.
/// A library error (Arrow, Parquet, ORC, Avro, JSON, I/O) stays the source.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DecodeError {
    /// The bytes are not what the format or the column's type says; the reason as the message prints it.
    #[error("{0}")]
    Invalid(String),
    /// The bytes are valid but use something this reader does not read (e.g. a shredded VARIANT); becomes
    /// [`Error::Unsupported`].
    #[error("{0}")]
    Unsupported(String),
    /// A library failed; `context` (may be empty) says what was being read, printed before the source
    /// as `context: source`.
    #[error("{}", library_message(context, source))]
    Library {
        /// What was being read.
        context: String,
        /// The library's error.
        #[source]
        source: Cause,
    },
}

fn library_message(context: &str, source: &Cause) -> String {
    if context.is_empty() {
        source.to_string()
    } else {
        format!("{context}: {source}")
    }
}

impl DecodeError {
    /// A library error with what was being read (`context`, may be empty).
    pub(crate) fn library(context: impl Into<String>, source: impl Into<Cause>) -> Self {
        DecodeError::Library {
            context: context.into(),
            source: source.into(),
        }
    }

    /// The same error with `prefix: ` before its message (e.g. the column being read).
    pub(crate) fn prefixed(self, prefix: &str) -> Self {
        match self {
            DecodeError::Invalid(reason) => DecodeError::Invalid(format!("{prefix}: {reason}")),
            DecodeError::Unsupported(reason) => {
                DecodeError::Unsupported(format!("{prefix}: {reason}"))
            }
            DecodeError::Library { context, source } => DecodeError::Library {
                context: if context.is_empty() {
                    prefix.to_string()
                } else {
                    format!("{prefix}: {context}")
                },
                source,
            },
        }
    }

    /// The crate's error naming `path`: [`Error::Decode`] with the reason, or [`Error::Library`] of kind
    /// [`ErrorKind::Decode`] keeping the library error; both print `{path}: cannot decode: {message}`.
    /// [`DecodeError::Unsupported`] becomes [`Error::Unsupported`].
    pub(crate) fn at(self, path: &Path) -> Error {
        match self {
            DecodeError::Unsupported(reason) => Error::Unsupported {
                path: path.to_path_buf(),
                reason,
            },
            DecodeError::Invalid(reason) => Error::Decode {
                path: path.to_path_buf(),
                reason,
            },
            DecodeError::Library { context, source } => {
                Error::library(ErrorKind::Decode, path, context, source)
            }
        }
    }
}

impl From<String> for DecodeError {
    fn from(reason: String) -> Self {
        DecodeError::Invalid(reason)
    }
}

impl From<&str> for DecodeError {
    fn from(reason: &str) -> Self {
        DecodeError::Invalid(reason.to_string())
    }
}

impl From<arrow_schema::ArrowError> for DecodeError {
    fn from(e: arrow_schema::ArrowError) -> Self {
        DecodeError::library("", e)
    }
}
