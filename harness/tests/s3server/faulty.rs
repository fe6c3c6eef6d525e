//! A proxy on loopback in front of the S3 server that records each request's S3 operation, answers some
//! requests itself with an S3 error (a 403 on a LIST, a 503 `SlowDown` on everything) and passes the
//! others through: the failures a real store gives that the server cannot be told to give. One request
//! per connection (`Connection: close` is added to what is passed on; it is not a signed header).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;

/// What the proxy answers in place of the server: HTTP status, S3 error code.
pub type Answer = (u16, &'static str);

/// Decides from a request's method and target (`/bucket?list-type=2&prefix=…`) whether the proxy answers
/// it itself.
pub type Rule = dyn Fn(&str, &str) -> Option<Answer> + Send + Sync;

/// Told each request's S3 operation ([`operation`]).
pub type Recorder = dyn Fn(String) + Send + Sync;

/// The S3 operation of a request: `HeadObject`, `GetObject`, `ListObjectsV2` (a GET of a bucket),
/// `CopyObject` (a PUT with `x-amz-copy-source`), `PutObject`, `DeleteObject`, else the method (`Post`).
pub fn operation(method: &str, target: &str, copy: bool) -> String {
    let path = target.split('?').next().unwrap_or_default();
    let object = path.trim_matches('/').contains('/');
    match method {
        "HEAD" if object => "HeadObject",
        "HEAD" => "HeadBucket",
        "GET" if object => "GetObject",
        "GET" => "ListObjectsV2",
        "PUT" if copy => "CopyObject",
        "PUT" => "PutObject",
        "DELETE" => "DeleteObject",
        _ => "Post",
    }
    .to_string()
}

/// A running proxy; its thread ends with the test process.
pub struct FaultyProxy {
    port: u16,
}

impl FaultyProxy {
    /// Starts a proxy to `127.0.0.1:upstream` that answers the requests `rule` picks.
    pub fn start(upstream: u16, rule: Arc<Rule>) -> FaultyProxy {
        Self::start_recording(upstream, rule, Arc::new(|_| {}))
    }

    /// [`FaultyProxy::start`], telling `record` each request's operation.
    pub fn start_recording(upstream: u16, rule: Arc<Rule>, record: Arc<Recorder>) -> FaultyProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let (rule, record) = (rule.clone(), record.clone());
                std::thread::spawn(move || {
                    let _ = serve(client, upstream, &*rule, &*record);
                });
            }
        });
        FaultyProxy { port }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

fn serve(client: TcpStream, upstream: u16, rule: &Rule, record: &Recorder) -> std::io::Result<()> {
    let mut reader = BufReader::new(client.try_clone()?);
    let mut head = Vec::new();
    let mut length = 0usize;
    let (mut chunked, mut expect_continue) = (false, false);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        chunked |= lower.starts_with("transfer-encoding:") && lower.contains("chunked");
        if lower.starts_with("expect:") && lower.contains("100-continue") {
            // The client waits for the go-ahead before its body (S3A's PUTs): given here, not forwarded.
            expect_continue = true;
            continue;
        }
        if line == "\r\n" {
            break;
        }
        head.push(line);
    }
    if expect_continue {
        let mut c = client.try_clone()?;
        c.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        c.flush()?;
    }
    let body = if chunked {
        // Forwarded as sent: every chunk up to the last (empty) one and the trailer's end.
        let mut raw = Vec::new();
        loop {
            let mut size_line = String::new();
            reader.read_line(&mut size_line)?;
            raw.extend_from_slice(size_line.as_bytes());
            let size = usize::from_str_radix(size_line.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            if size == 0 {
                // The trailer's lines (a checksum, perhaps), up to the empty line.
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line)? == 0 {
                        break;
                    }
                    raw.extend_from_slice(line.as_bytes());
                    if line == "\r\n" {
                        break;
                    }
                }
                break;
            }
            let mut chunk = vec![0u8; size + 2];
            reader.read_exact(&mut chunk)?;
            raw.extend_from_slice(&chunk);
        }
        raw
    } else {
        let mut body = vec![0u8; length];
        reader.read_exact(&mut body)?;
        body
    };
    let request_line = head.first().cloned().unwrap_or_default();
    let mut parts = request_line.split_whitespace();
    let (method, target) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );
    let copy = head
        .iter()
        .any(|l| l.to_ascii_lowercase().starts_with("x-amz-copy-source:"));
    record(operation(method, target, copy));
    let mut client = client;
    if let Some((status, code)) = rule(method, target) {
        let xml = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>{code}</Code><Message>injected by \
             the test proxy</Message></Error>"
        );
        write!(
            client,
            "HTTP/1.1 {status} {code}\r\nContent-Type: application/xml\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{xml}",
            xml.len()
        )?;
        return client.flush();
    }
    let mut server = TcpStream::connect(("127.0.0.1", upstream))?;
    for line in head
        .iter()
        .filter(|l| !l.to_ascii_lowercase().starts_with("connection:"))
    {
        server.write_all(line.as_bytes())?;
    }
    server.write_all(b"Connection: close\r\n\r\n")?;
    server.write_all(&body)?;
    std::io::copy(&mut server, &mut client)?;
    Ok(())
}
