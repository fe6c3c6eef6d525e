//! S3 and S3-compatible stores behind [`super::FileIO`], through the `object_store` crate (the arrow-rs
//! project's): signed requests, timeouts, and retries with exponential backoff of transient failures (5xx,
//! throttling, reset connections). Mirrors what Paimon's `S3FileIO` (Hadoop S3A) reads; it only issues
//! GET, HEAD and LIST requests.
//!
//! `object_store` is asynchronous: requests run on one small Tokio runtime of the process (2 threads), and
//! the readers, which are synchronous, wait for them.

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path as ObjectPath;
use object_store::{BackoffConfig, ClientOptions, ObjectStore, ObjectStoreExt, RetryConfig};

use super::options::FileIOOptions;
use super::{FileIO, FileStatus, Location};

/// Requests made to stores, by kind, and the bytes their bodies carried.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RequestCounts {
    /// GET requests (whole objects and ranges).
    pub get: u64,
    /// HEAD requests.
    pub head: u64,
    /// LIST calls (`ListObjectsV2`; a listing of more than 1000 keys takes one request per page).
    pub list: u64,
    /// Bytes received in GET bodies.
    pub bytes: u64,
}

impl RequestCounts {
    /// What was made between `earlier` and `self`.
    pub fn since(&self, earlier: &RequestCounts) -> RequestCounts {
        RequestCounts {
            get: self.get - earlier.get,
            head: self.head - earlier.head,
            list: self.list - earlier.list,
            bytes: self.bytes - earlier.bytes,
        }
    }
}

static GETS: AtomicU64 = AtomicU64::new(0);
static HEADS: AtomicU64 = AtomicU64::new(0);
static LISTS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

/// The requests of every store of the process so far.
pub fn totals() -> RequestCounts {
    RequestCounts {
        get: GETS.load(Ordering::Relaxed),
        head: HEADS.load(Ordering::Relaxed),
        list: LISTS.load(Ordering::Relaxed),
        bytes: BYTES.load(Ordering::Relaxed),
    }
}

/// The Tokio runtime the stores' requests run on.
fn runtime() -> std::io::Result<&'static tokio::runtime::Runtime> {
    static RUNTIME: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("paimon-parity-store")
                .enable_all()
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| std::io::Error::other(format!("cannot start the store's runtime: {e}")))
}

/// One bucket of S3 or an S3-compatible store.
#[derive(Debug)]
pub struct S3FileIO {
    bucket: String,
    store: Arc<AmazonS3>,
    /// Where requests go (the endpoint, or AWS), for error messages.
    endpoint: String,
    /// Whether the options carried no credentials (requests are then unsigned, for public buckets).
    anonymous: bool,
    /// Whole objects being fetched ahead of their reads ([`FileIO::prefetch`]).
    prefetched: super::prefetch::Prefetched,
}

impl S3FileIO {
    /// The bucket `bucket`, reached with `options` (see [`FileIOOptions::s3`]).
    ///
    /// Without an access key the requests are unsigned (a public bucket): instance metadata is never
    /// asked, so a machine outside a cloud does not wait for it. Errors: an option that does not parse, an
    /// endpoint that is not a URL.
    pub fn new(bucket: &str, options: &FileIOOptions) -> std::io::Result<S3FileIO> {
        let s3 = options.s3().map_err(std::io::Error::other)?;
        let mut client = ClientOptions::new()
            .with_timeout(s3.request_timeout)
            .with_connect_timeout(s3.connect_timeout);
        let mut builder = AmazonS3Builder::new()
            .with_bucket_name(bucket)
            .with_region(s3.region.clone().unwrap_or_else(|| "us-east-1".to_string()))
            .with_virtual_hosted_style_request(!s3.path_style)
            .with_retry(RetryConfig {
                backoff: BackoffConfig {
                    init_backoff: Duration::from_millis(100),
                    max_backoff: Duration::from_secs(5),
                    base: 2.0,
                },
                max_retries: s3.max_retries,
                retry_timeout: s3.request_timeout.saturating_mul(2),
            });
        if let Some(endpoint) = &s3.endpoint {
            if endpoint.starts_with("http://") {
                client = client.with_allow_http(true);
            }
            builder = builder.with_endpoint(endpoint.trim_end_matches('/'));
        }
        let anonymous = s3.access_key.is_none();
        if let (Some(key), Some(secret)) = (&s3.access_key, &s3.secret_key) {
            builder = builder
                .with_access_key_id(key)
                .with_secret_access_key(secret);
            if let Some(token) = &s3.session_token {
                builder = builder.with_token(token);
            }
        } else if s3.access_key.is_some() {
            return Err(std::io::Error::other(
                "an access key is given without its secret key (s3.secret-key)",
            ));
        } else {
            builder = builder.with_skip_signature(true);
        }
        let store = builder
            .with_client_options(client)
            .build()
            .map_err(|e| std::io::Error::other(format!("cannot reach bucket `{bucket}`: {e}")))?;
        Ok(S3FileIO {
            bucket: bucket.to_string(),
            store: Arc::new(store),
            endpoint: s3.endpoint.unwrap_or_else(|| "AWS S3".to_string()),
            anonymous,
            prefetched: Default::default(),
        })
    }

    /// The object key of `path` in this bucket.
    fn key(&self, path: &Path) -> std::io::Result<ObjectPath> {
        match super::location(path) {
            // The key exactly as Paimon wrote it (`dt=50%25` for a partition value `50%`): `parse` keeps
            // it as it is (`from` would escape its `%` into another key), and the request URL encodes it.
            Ok(Location::S3 { bucket, key }) if bucket == self.bucket => ObjectPath::parse(&key)
                .map_err(|e| std::io::Error::other(format!("not an object key: {key}: {e}"))),
            _ => Err(std::io::Error::other(format!(
                "{} is not in the bucket `{}`",
                path.display(),
                self.bucket
            ))),
        }
    }

    /// Runs `request` on the store's runtime and maps its error (see [`FileIO`]'s errors).
    fn run<T>(
        &self,
        what: &str,
        request: impl std::future::Future<Output = object_store::Result<T>>,
    ) -> std::io::Result<T> {
        runtime()?
            .block_on(request)
            .map_err(|e| self.io_error(what, e))
    }

    fn io_error(&self, what: &str, error: object_store::Error) -> std::io::Error {
        use std::io::ErrorKind;
        let kind = match &error {
            object_store::Error::NotFound { .. } => ErrorKind::NotFound,
            object_store::Error::PermissionDenied { .. }
            | object_store::Error::Unauthenticated { .. } => ErrorKind::PermissionDenied,
            _ => ErrorKind::Other,
        };
        let text = error.to_string();
        // A refusal inside a generic error (object_store names LIST failures by their status only).
        let kind = if kind == ErrorKind::Other && text.contains("403 Forbidden") {
            ErrorKind::PermissionDenied
        } else {
            kind
        };
        let mut hint = String::new();
        if kind == ErrorKind::PermissionDenied && self.anonymous {
            hint = " (no credentials were given: set s3.access-key and s3.secret-key, or \
                    AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"
                .to_string();
        } else if text.contains("error sending request") || text.contains("timed out") {
            hint = format!(
                " (is the endpoint {} reachable? requests time out and are retried, see \
                 fs.s3a.connection.timeout and fs.s3a.attempts.maximum)",
                self.endpoint
            );
        }
        let kind = if kind == ErrorKind::Other && text.contains("timed out") {
            ErrorKind::TimedOut
        } else {
            kind
        };
        std::io::Error::new(
            kind,
            format!(
                "{what} on {}: {}{text}{hint}",
                self.endpoint,
                summary(&text)
            ),
        )
    }
}

/// What a store's error means in a few words, from the status and S3 error code in its text (`""` when
/// nothing is recognised), ending with `: ` before the full text.
fn summary(text: &str) -> String {
    let code = text
        .split_once("<Code>")
        .and_then(|(_, rest)| rest.split_once("</Code>"))
        .map_or("", |(code, _)| code);
    let words = match code {
        "SignatureDoesNotMatch" | "InvalidAccessKeyId" => "the credentials are wrong",
        "AccessDenied" => "access denied",
        "NoSuchBucket" => "the bucket does not exist",
        "SlowDown" | "Throttling" | "RequestLimitExceeded" => "throttled, still after the retries",
        "" if text.contains("error sending request") => "cannot connect",
        "" if text.contains("503 Service Unavailable") => "throttled, still after the retries",
        _ => return String::new(),
    };
    if code.is_empty() {
        format!("{words}: ")
    } else {
        format!("{words} ({code}): ")
    }
}

impl FileIO for S3FileIO {
    fn read(&self, path: &Path) -> std::io::Result<Bytes> {
        let key = self.key(path)?;
        if let Some(task) = self.prefetched.take(&key) {
            // Fetched ahead (its GET counted then); a fetch that failed is done again below.
            if let Ok(Ok(bytes)) = runtime()?.block_on(task) {
                BYTES.fetch_add(bytes.len() as u64, Ordering::Relaxed);
                return Ok(bytes);
            }
        }
        GETS.fetch_add(1, Ordering::Relaxed);
        let bytes = self.run("GET", async { self.store.get(&key).await?.bytes().await })?;
        BYTES.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(bytes)
    }

    fn read_range(&self, path: &Path, range: Range<u64>) -> std::io::Result<Bytes> {
        let key = self.key(path)?;
        if range.is_empty() {
            return Ok(Bytes::new());
        }
        GETS.fetch_add(1, Ordering::Relaxed);
        let bytes = self.run("GET (range)", self.store.get_range(&key, range))?;
        BYTES.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(bytes)
    }

    fn prefetch(&self, paths: &[std::path::PathBuf]) {
        let Ok(rt) = runtime() else {
            return;
        };
        for path in paths.iter().take(super::prefetch::LIMIT / 2) {
            let Ok(key) = self.key(path) else {
                continue;
            };
            if self.prefetched.contains(&key) {
                continue;
            }
            GETS.fetch_add(1, Ordering::Relaxed);
            let store = self.store.clone();
            let get = key.clone();
            let task = rt.spawn(async move { store.get(&get).await?.bytes().await });
            self.prefetched.insert(key, task);
        }
    }

    fn exists(&self, path: &Path) -> std::io::Result<bool> {
        let key = self.key(path)?;
        HEADS.fetch_add(1, Ordering::Relaxed);
        match self.run("HEAD", self.store.head(&key)) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn is_dir(&self, path: &Path) -> std::io::Result<bool> {
        let key = self.key(path)?;
        LISTS.fetch_add(1, Ordering::Relaxed);
        let listed = self.run("LIST", self.store.list_with_delimiter(Some(&key)))?;
        Ok(!listed.objects.is_empty() || !listed.common_prefixes.is_empty())
    }

    fn list_status(&self, dir: &Path) -> std::io::Result<Vec<FileStatus>> {
        let key = self.key(dir)?;
        LISTS.fetch_add(1, Ordering::Relaxed);
        let listed = self.run("LIST", self.store.list_with_delimiter(Some(&key)))?;
        let mut out: Vec<FileStatus> = listed
            .common_prefixes
            .iter()
            .filter_map(|p| p.parts().next_back().map(|n| n.as_ref().to_string()))
            .map(|name| FileStatus {
                name,
                is_dir: true,
                size: 0,
                modified_millis: None,
            })
            .collect();
        out.extend(listed.objects.iter().filter_map(|o| {
            Some(FileStatus {
                name: o.location.filename()?.to_string(),
                is_dir: false,
                size: o.size,
                modified_millis: Some(o.last_modified.timestamp_millis()),
            })
        }));
        Ok(out)
    }

    fn list(&self, dir: &Path) -> std::io::Result<Vec<String>> {
        let key = self.key(dir)?;
        LISTS.fetch_add(1, Ordering::Relaxed);
        let listed = self.run("LIST", self.store.list_with_delimiter(Some(&key)))?;
        let mut names: Vec<String> = listed
            .common_prefixes
            .iter()
            .filter_map(|p| p.parts().next_back().map(|n| n.as_ref().to_string()))
            .collect();
        names.extend(
            listed
                .objects
                .iter()
                .filter_map(|o| o.location.filename().map(str::to_string)),
        );
        Ok(names)
    }
}
