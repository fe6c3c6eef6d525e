//! A real S3-compatible server on loopback for the store tests: SeaweedFS (`weed mini`, built once per
//! machine by `scripts/s3-server install`), one per test process, with its own access and secret key
//! (anonymous requests are refused) and the bucket [`BUCKET`]. Each test talks to it through its own
//! recording proxy ([`S3Server::proxy`]), which counts the requests by S3 operation, so that a test can
//! prove a command only read.

// Shared by the store test binaries (store.rs, store_write.rs), each of which uses a part of it.
#![allow(dead_code)]

pub mod faulty;

use std::collections::BTreeMap;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};

/// The bucket every test table is put in.
pub const BUCKET: &str = "paimon-parity";
/// The access key the server accepts.
pub const ACCESS_KEY: &str = "parity-access";

/// The server of this test process: its S3 port and secret key. It stops when the process ends.
pub struct S3Server {
    port: u16,
    secret: String,
    _root: tempfile::TempDir,
    /// The watchdog shell that runs the server and stops it with this process.
    _watchdog: std::process::Child,
}

/// A test's way to the server: a recording proxy and the operations it saw.
pub struct Proxy {
    proxy: faulty::FaultyProxy,
    server: &'static S3Server,
    seen: Arc<Mutex<Vec<String>>>,
}

/// The server binary: `PAIMON_PARITY_S3_SERVER`, else the one `scripts/s3-server install` built.
fn binary() -> PathBuf {
    if let Ok(p) = std::env::var("PAIMON_PARITY_S3_SERVER") {
        return PathBuf::from(p);
    }
    let out = Command::new(super::common::repo_root().join("scripts/s3-server"))
        .arg("path")
        .output()
        .expect("scripts/s3-server runs");
    assert!(
        out.status.success(),
        "the S3 server is not built: run scripts/s3-server install (scripts/test does): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl S3Server {
    /// The server of this process, started on first use on 127.0.0.1 (every port it opens a free one),
    /// waited for until its S3 port answers (at most 60 s). A watchdog stops it when this process exits.
    pub fn shared() -> &'static S3Server {
        static SERVER: OnceLock<S3Server> = OnceLock::new();
        SERVER.get_or_init(S3Server::start)
    }

    fn start() -> S3Server {
        let root = tempfile::tempdir().unwrap();
        let port = free_port();
        let secret = format!("parity-secret-{}-{port}", std::process::id());
        let config = root.path().join("s3.json");
        std::fs::write(
            &config,
            format!(
                r#"{{"identities":[{{"name":"parity","credentials":[{{"accessKey":"{ACCESS_KEY}","secretKey":"{secret}"}}],"actions":["Admin","Read","Write","List","Tagging"]}}]}}"#
            ),
        )
        .unwrap();
        let mut args = vec![
            "mini".to_string(),
            format!("-dir={}", root.path().join("data").display()),
            "-ip=127.0.0.1".into(),
            "-ip.bind=127.0.0.1".into(),
            format!("-s3.config={}", config.display()),
            format!("-bucket={BUCKET}"),
            format!("-s3.port={port}"),
            "-webdav=false".into(),
            "-admin.ui=false".into(),
            "-admin.port.legacy=0".into(),
            "-s3.port.iceberg=0".into(),
            "-s3.port.lance=0".into(),
        ];
        for flag in [
            "s3.port.grpc",
            "master.port",
            "master.port.grpc",
            "volume.port",
            "volume.port.grpc",
            "filer.port",
            "filer.port.grpc",
            "admin.port",
            "admin.port.grpc",
            "debug.port",
        ] {
            args.push(format!("-{flag}={}", free_port()));
        }
        std::fs::create_dir_all(root.path().join("data")).unwrap();
        // The watchdog: the server lives as long as this test process.
        let script = format!(
            "\"$0\" \"$@\" & server=$!; trap 'kill $server 2>/dev/null; wait $server' EXIT; \
             while kill -0 {} 2>/dev/null && kill -0 $server 2>/dev/null; do sleep 0.5; done",
            std::process::id()
        );
        let watchdog = Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(binary())
            .args(&args)
            .current_dir(root.path())
            .stdout(std::fs::File::create(root.path().join("server.log")).unwrap())
            .stderr(Stdio::null())
            .spawn()
            .expect("the S3 server starts");
        let server = S3Server {
            port,
            secret,
            _root: root,
            _watchdog: watchdog,
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() && server.bucket_answers() {
                break;
            }
            assert!(Instant::now() < deadline, "the S3 server did not start");
            std::thread::sleep(Duration::from_millis(200));
        }
        server
    }

    /// Whether a LIST of the bucket succeeds yet.
    fn bucket_answers(&self) -> bool {
        let store = self.client();
        runtime().block_on(store.list_with_delimiter(None)).is_ok()
    }

    fn client(&self) -> AmazonS3 {
        AmazonS3Builder::new()
            .with_bucket_name(BUCKET)
            .with_region("us-east-1")
            .with_endpoint(format!("http://127.0.0.1:{}", self.port))
            .with_allow_http(true)
            .with_access_key_id(ACCESS_KEY)
            .with_secret_access_key(&self.secret)
            .build()
            .unwrap()
    }

    /// The server's S3 port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The secret key the server accepts.
    pub fn secret(&self) -> &str {
        &self.secret
    }

    /// Uploads the files of the local directory `dir` under `key` (`wh/db.db/t`) in [`BUCKET`] with PUTs
    /// (not through any proxy). Returns the table's URI `s3://BUCKET/key`.
    pub fn put_tree(&self, dir: &Path, key: &str) -> String {
        let store = self.client();
        let mut files = Vec::new();
        collect(dir, dir, &mut files);
        runtime().block_on(async {
            for (relative, path) in files {
                let body = PutPayload::from(std::fs::read(&path).unwrap());
                store
                    .put(
                        &object_store::path::Path::parse(format!("{key}/{relative}")).unwrap(),
                        body,
                    )
                    .await
                    .unwrap_or_else(|e| panic!("PUT {key}/{relative}: {e}"));
            }
        });
        format!("s3://{BUCKET}/{key}")
    }

    /// The objects under `prefix` in [`BUCKET`], at any depth (listed directly, not through any proxy).
    /// SeaweedFS keeps the empty folders of deleted objects and lists them as common prefixes: those are
    /// walked, not counted.
    pub fn objects_under(&self, prefix: &str) -> Vec<String> {
        let store = self.client();
        let mut out = Vec::new();
        let mut prefixes = vec![object_store::path::Path::parse(prefix).unwrap()];
        while let Some(p) = prefixes.pop() {
            let listed = runtime()
                .block_on(store.list_with_delimiter(Some(&p)))
                .unwrap();
            out.extend(listed.objects.iter().map(|m| m.location.to_string()));
            prefixes.extend(listed.common_prefixes);
        }
        out
    }

    /// A recording proxy of its own for one test.
    pub fn proxy(&'static self) -> Proxy {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();
        let proxy = faulty::FaultyProxy::start_recording(
            self.port,
            Arc::new(|_: &str, _: &str| None),
            Arc::new(move |op: String| record.lock().unwrap().push(op)),
        );
        Proxy {
            proxy,
            server: self,
            seen,
        }
    }
}

impl Proxy {
    /// `http://127.0.0.1:PORT` of the proxy.
    pub fn endpoint(&self) -> String {
        self.proxy.endpoint()
    }

    /// The options that reach the server through the proxy, as `--option` arguments.
    pub fn option_args(&self) -> Vec<String> {
        [
            format!("s3.endpoint={}", self.endpoint()),
            format!("s3.access-key={ACCESS_KEY}"),
            format!("s3.secret-key={}", self.server.secret),
            "s3.path.style.access=true".to_string(),
        ]
        .into_iter()
        .flat_map(|o| ["--option".to_string(), o])
        .collect()
    }

    /// The same options as a map, as `--option` hands them to the native reader.
    pub fn file_io_options(&self) -> native_reader::fileio::FileIOOptions {
        native_reader::fileio::FileIOOptions::from_map(
            self.option_args()
                .chunks(2)
                .filter_map(|c| c[1].split_once('='))
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        )
    }

    /// How many requests went through so far.
    pub fn request_count(&self) -> usize {
        self.seen.lock().unwrap().len()
    }

    /// The S3 operations (`GetObject`, `HeadObject`, `ListObjectsV2`, `PutObject`, `CopyObject`,
    /// `DeleteObject`, `Post`) of the requests after the first `skip`, counted by name.
    pub fn operations_since(&self, skip: usize) -> BTreeMap<String, usize> {
        let mut ops = BTreeMap::new();
        for op in self.seen.lock().unwrap().iter().skip(skip) {
            *ops.entry(op.clone()).or_insert(0) += 1;
        }
        ops
    }
}

/// Files under `dir` with their paths relative to `root` (`/`-separated).
fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(root, &path, out);
        } else {
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.push((relative, path));
        }
    }
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    })
}
