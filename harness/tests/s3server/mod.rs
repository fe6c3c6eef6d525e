//! A real S3-compatible server on loopback for the store tests: SeaweedFS (`weed mini`, built once per
//! machine by `scripts/s3-server install`), one per test process, with its own access and secret key
//! (anonymous requests are refused) and the bucket [`BUCKET`]. Each test talks to it through its own
//! recording proxy ([`S3Server::proxy`]), which counts the requests by S3 operation, so that a test can
//! prove a command only read.

// Shared by the store tests (store.rs, store_write.rs) and the peer readers' (peer_readers.rs), each of which uses
// a part of it.
#![allow(dead_code)]

pub mod faulty;

use std::collections::BTreeMap;
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
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

/// `n` distinct free ports on 127.0.0.1, all below the Linux ephemeral floor (32768), so that no outbound
/// connection of the tests can claim one between its choice and the server's bind (SeaweedFS warns of
/// exactly that race). Each is held bound until all are chosen, so none is chosen twice.
fn free_ports(n: usize) -> Vec<u16> {
    use std::hash::{BuildHasher, Hasher};
    let mut held = Vec::new();
    let mut ports = Vec::new();
    let mut seed = std::collections::hash_map::RandomState::new().build_hasher();
    seed.write_u32(std::process::id());
    let mut next = seed.finish();
    while ports.len() < n {
        next = next
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let port = 20000 + ((next >> 33) % 12000) as u16;
        if ports.contains(&port) {
            continue;
        }
        if let Ok(listener) = TcpListener::bind(("127.0.0.1", port)) {
            held.push(listener);
            ports.push(port);
        }
    }
    ports
}

/// The flags of `weed mini` that take a port, besides `-s3.port`.
const PORT_FLAGS: [&str; 10] = [
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
];

impl S3Server {
    /// The server of this process, started on first use on 127.0.0.1 (every port it opens a free one
    /// below the ephemeral range), waited for until its S3 port answers a LIST of the bucket. A start
    /// that exits or does not answer within 60 s is stopped and tried again on fresh ports, up to 3
    /// times; the last failure shows the server's log. A watchdog stops it when this process exits.
    pub fn shared() -> &'static S3Server {
        static SERVER: OnceLock<S3Server> = OnceLock::new();
        SERVER.get_or_init(|| {
            let mut failures = Vec::new();
            for attempt in 1..=3 {
                match S3Server::start() {
                    Ok(server) => return server,
                    Err(why) => {
                        eprintln!("S3 server start {attempt} of 3 failed: {why}");
                        failures.push(why);
                    }
                }
            }
            panic!("the S3 server did not start:\n{}", failures.join("\n"))
        })
    }

    fn start() -> Result<S3Server, String> {
        let root = tempfile::tempdir().unwrap();
        let mut ports = free_ports(PORT_FLAGS.len() + 1);
        let port = ports.pop().unwrap();
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
        for (flag, p) in PORT_FLAGS.iter().zip(ports) {
            args.push(format!("-{flag}={p}"));
        }
        std::fs::create_dir_all(root.path().join("data")).unwrap();
        let log = root.path().join("server.log");
        // The watchdog: the server lives as long as this test process.
        let script = format!(
            "\"$0\" \"$@\" & server=$!; trap 'kill $server 2>/dev/null; wait $server' EXIT; \
             while kill -0 {} 2>/dev/null && kill -0 $server 2>/dev/null; do sleep 0.5; done",
            std::process::id()
        );
        let out = std::fs::File::create(&log).unwrap();
        let mut watchdog = Command::new("sh")
            .process_group(0)
            .arg("-c")
            .arg(script)
            .arg(binary())
            .args(&args)
            .current_dir(root.path())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .expect("the S3 server starts");
        let deadline = Instant::now() + Duration::from_secs(60);
        let failure = loop {
            if let Ok(Some(status)) = watchdog.try_wait() {
                break format!("it exited ({status})");
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() && answers(port, &secret) {
                return Ok(S3Server {
                    port,
                    secret,
                    _root: root,
                    _watchdog: watchdog,
                });
            }
            if Instant::now() >= deadline {
                // Stop the watchdog and its server (their own process group) before the next try.
                let _ = Command::new("kill")
                    .args(["-KILL", "--", &format!("-{}", watchdog.id())])
                    .status();
                let _ = watchdog.wait();
                break "its S3 port did not answer within 60 s".to_string();
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(30).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        Err(format!(
            "{failure}; the last lines of its log:\n{}",
            tail.join("\n")
        ))
    }

    fn client(&self) -> AmazonS3 {
        client_of(self.port, &self.secret, false)
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

/// A client of the server on `port` with the test's keys, not through any proxy. `once` makes it send
/// each request once and wait at most 5 s for it (the default retries a starting server's answers for
/// minutes).
fn client_of(port: u16, secret: &str, once: bool) -> AmazonS3 {
    let mut builder = AmazonS3Builder::new()
        .with_bucket_name(BUCKET)
        .with_region("us-east-1")
        .with_endpoint(format!("http://127.0.0.1:{port}"))
        .with_access_key_id(ACCESS_KEY)
        .with_secret_access_key(secret);
    let mut options = object_store::ClientOptions::new().with_allow_http(true);
    if once {
        options = options.with_timeout(Duration::from_secs(5));
        builder = builder.with_retry(object_store::RetryConfig {
            max_retries: 0,
            retry_timeout: Duration::from_secs(5),
            ..Default::default()
        });
    }
    builder.with_client_options(options).build().unwrap()
}

/// Whether a LIST of the bucket on `port` succeeds yet (one request).
fn answers(port: u16, secret: &str) -> bool {
    runtime()
        .block_on(client_of(port, secret, true).list_with_delimiter(None))
        .is_ok()
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
