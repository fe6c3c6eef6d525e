//! A real S3-compatible server on loopback for the store tests: `s3s-fs` (`scripts/s3-server install`)
//! serving a temporary directory, each top-level directory a bucket, with its own access and secret key.
//! Its request log (`s3s::ops` at debug level) says which S3 operation each request was, so a test can
//! count them.

pub mod faulty;

use std::collections::BTreeMap;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The bucket every test table is put in.
pub const BUCKET: &str = "paimon-parity";
/// The access key the server accepts.
pub const ACCESS_KEY: &str = "parity-access";

/// A running server; stopped when dropped.
pub struct S3Server {
    child: Child,
    port: u16,
    root: tempfile::TempDir,
    log: PathBuf,
    secret: String,
}

/// The server binary: `PAIMON_PARITY_S3S_FS`, else the one `scripts/s3-server install` built.
fn binary() -> PathBuf {
    if let Ok(p) = std::env::var("PAIMON_PARITY_S3S_FS") {
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

impl S3Server {
    /// Starts a server on 127.0.0.1 and a free port, and waits until it accepts connections (at most 30 s).
    pub fn start() -> S3Server {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join(BUCKET)).unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = root.path().join("requests.log");
        // A secret no output may ever show: the tests look for it.
        let secret = format!("parity-secret-{}-{port}", std::process::id());
        let child = Command::new(binary())
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--access-key", ACCESS_KEY, "--secret-key", &secret])
            .arg(root.path())
            .env("RUST_LOG", "s3s::ops=debug")
            .env("NO_COLOR", "1")
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(Stdio::null())
            .spawn()
            .expect("the S3 server starts");
        let server = S3Server {
            child,
            port,
            root,
            log,
            secret,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the S3 server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// The server's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The secret key the server accepts.
    pub fn secret(&self) -> &str {
        &self.secret
    }

    /// Puts the files of the local directory `dir` under `key` (`wh/db.db/t`) in [`BUCKET`]: s3s-fs serves
    /// its root directory's files as the objects. Returns the table's URI `s3://BUCKET/key`.
    pub fn put_tree(&self, dir: &Path, key: &str) -> String {
        super::common::copy_tree(dir, &self.root.path().join(BUCKET).join(key));
        format!("s3://{BUCKET}/{key}")
    }

    /// The options that reach the server, as `--option` arguments.
    pub fn option_args(&self) -> Vec<String> {
        [
            format!("s3.endpoint={}", self.endpoint()),
            format!("s3.access-key={ACCESS_KEY}"),
            format!("s3.secret-key={}", self.secret),
            "s3.path.style.access=true".to_string(),
        ]
        .into_iter()
        .flat_map(|o| ["--option".to_string(), o])
        .collect()
    }

    /// How many requests the server has answered so far.
    pub fn request_count(&self) -> usize {
        self.operations_since(0).values().sum()
    }

    /// The S3 operations (`GetObject`, `HeadObject`, `ListObjectsV2`, `PutObject`, `CopyObject`,
    /// `DeleteObject`, …) of the requests after the first `skip`, counted by name.
    pub fn operations_since(&self, skip: usize) -> BTreeMap<String, usize> {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let mut ops = BTreeMap::new();
        for op in log
            .lines()
            .filter_map(|l| l.split_once("resolved route, op: "))
            .filter_map(|(_, rest)| rest.split([',', ' ']).next())
            .skip(skip)
        {
            *ops.entry(op.to_string()).or_insert(0) += 1;
        }
        ops
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
