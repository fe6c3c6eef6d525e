//! One run of an external reader's command: the request written to its stdin, its stdout read as one
//! Arrow IPC stream per split on a reader thread, its stderr tail kept for messages, and a per-split
//! timeout after which the process is killed.
//!
//! Memory: the reader thread decodes one split ahead of the harness (a channel of one answer), so at most
//! two splits' batches are held at a time.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use arrow_ipc::reader::StreamReader;
use arrow_schema::SchemaRef;

/// Lines of stderr kept for messages.
const STDERR_LINES: usize = 12;

/// The stream of one split as the reader wrote it.
pub(super) struct Answer {
    /// The stream's schema (with its metadata).
    pub schema: SchemaRef,
    /// Its batches.
    pub batches: Vec<RecordBatch>,
    /// When the stream's first bytes arrived.
    pub first_byte: Instant,
    /// When its last bytes arrived (the end-of-stream marker read).
    pub last_byte: Instant,
}

/// What ends a session early: in words, without the stderr tail (see [`Session::stderr_tail`]).
type Failure = String;

/// A running reader command.
pub(super) struct Session {
    child: Child,
    /// `None` only while dropping: the receiver goes first so that a reader thread blocked on sending the
    /// next answer wakes up and ends.
    answers: Option<Receiver<Result<Answer, Failure>>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// The thread reading stderr into `stderr`; it ends at the pipe's end.
    stderr_thread: Option<JoinHandle<()>>,
    threads: Vec<JoinHandle<()>>,
    /// Set once the session failed; every later split gets it.
    failed: Option<Failure>,
    /// Streams received so far.
    received: usize,
    /// Streams requested.
    expected: usize,
}

impl Session {
    /// Starts `command` (program then arguments), writes `request` to its stdin on a thread and starts
    /// reading `expected` streams from its stdout.
    ///
    /// Errors: the program cannot be started (missing, not executable), in words naming it.
    pub fn start(command: &[String], request: Vec<u8>, expected: usize) -> Result<Self, String> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| "the reader's command is empty".to_owned())?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start `{program}`: {e}"))?;
        let mut threads = Vec::new();
        if let Some(mut stdin) = child.stdin.take() {
            // A reader that never reads its stdin must not block the harness: write on a thread and
            // ignore a closed pipe (the reader's answer, or its absence, says what went wrong).
            threads.push(std::thread::spawn(move || {
                let _ = stdin.write_all(&request);
            }));
        }
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let mut stderr_thread = None;
        if let Some(err) = child.stderr.take() {
            let tail = stderr.clone();
            stderr_thread = Some(std::thread::spawn(move || {
                for line in BufReader::new(err).lines() {
                    let Ok(line) = line else { break };
                    if let Ok(mut t) = tail.lock() {
                        if t.len() == STDERR_LINES {
                            t.pop_front();
                        }
                        t.push_back(line);
                    }
                }
            }));
        }
        let (tx, answers) = sync_channel(1);
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| "the reader's stdout is not a pipe".to_owned())?;
        threads.push(std::thread::spawn(move || {
            let mut out = BufReader::new(stdout);
            for i in 0..expected {
                let answer = read_stream(&mut out, i, expected);
                let stop = answer.is_err();
                if tx.send(answer).is_err() || stop {
                    return;
                }
            }
        }));
        Ok(Session {
            child,
            answers: Some(answers),
            stderr,
            stderr_thread,
            threads,
            failed: None,
            received: 0,
            expected,
        })
    }

    /// The next stream, waiting at most `timeout` for it.
    ///
    /// Errors: in words, once the reader crashed, wrote something that is not an Arrow IPC stream, ended
    /// early, or gave no answer within `timeout` (the process is then killed); every later call returns the
    /// same failure.
    pub fn next(&mut self, timeout: Duration) -> Result<Answer, Failure> {
        if let Some(f) = &self.failed {
            return Err(f.clone());
        }
        let Some(answers) = &self.answers else {
            return Err("internal: the session is closed".into());
        };
        let failure = match answers.recv_timeout(timeout) {
            Ok(Ok(answer)) => {
                self.received += 1;
                return Ok(answer);
            }
            Ok(Err(f)) => f,
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                format!(
                    "no answer for split {} within {} s; the reader was stopped",
                    self.received,
                    timeout.as_secs()
                )
            }
            Err(RecvTimeoutError::Disconnected) => format!(
                "the reader's output ended after {} of {} splits",
                self.received, self.expected
            ),
        };
        let failure = match self.exit_status() {
            Some(status) => format!("{failure} ({status})"),
            None => failure,
        };
        self.failed = Some(failure.clone());
        Err(failure)
    }

    /// The reader's exit status in words, once it has exited (waiting up to a second for it).
    fn exit_status(&mut self) -> Option<String> {
        for _ in 0..20 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(match status.code() {
                    Some(code) => format!("exit status {code}"),
                    None => format!("{status}"),
                });
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }

    /// [`Self::stderr_tail`] once a reader that ended has been read to its end: when it exits within `grace`,
    /// the stderr thread is given the rest of `grace` to read what the reader wrote last (the line it wrote
    /// just before exiting can still be in the pipe when its stdout ends). A reader still running after
    /// `grace` gets the tail read so far.
    pub fn final_stderr_tail(&mut self, grace: Duration) -> String {
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(Some(_)) => {
                    while self
                        .stderr_thread
                        .as_ref()
                        .is_some_and(|t| !t.is_finished())
                        && Instant::now() < deadline
                    {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(_) => break,
            }
        }
        self.stderr_tail()
    }

    /// The last lines the reader wrote to stderr, joined with ` | `; empty when it wrote none.
    pub fn stderr_tail(&self) -> String {
        self.stderr
            .lock()
            .map(|t| tail_of(t.iter().map(String::as_str)))
            .unwrap_or_default()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // A reader still running when the harness is done with it (it answered every split, or the
        // replay moved on) is stopped; its threads end with its pipes.
        self.answers = None;
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
        for t in self.threads.drain(..).chain(self.stderr_thread.take()) {
            let _ = t.join();
        }
    }
}

/// The last [`STDERR_LINES`] of `lines`, joined with ` | ` (how messages quote a reader's stderr).
pub(super) fn tail_of<'a>(lines: impl DoubleEndedIterator<Item = &'a str>) -> String {
    let mut tail: Vec<&str> = lines.rev().take(STDERR_LINES).collect();
    tail.reverse();
    tail.join(" | ")
}

/// Reads stream `i` of `expected` from `out`.
fn read_stream(
    out: &mut BufReader<ChildStdout>,
    i: usize,
    expected: usize,
) -> Result<Answer, Failure> {
    let head = out.fill_buf().map(|b| b.to_vec()).unwrap_or_default();
    let first_byte = Instant::now();
    if head.is_empty() {
        return Err(format!(
            "the reader's output ended after {i} of {expected} splits"
        ));
    }
    // Every message of a current IPC stream starts with the continuation marker 0xFFFFFFFF; checking it
    // first turns text or other garbage into a clear message instead of a read of a made-up length.
    if head.len() >= 4 && head[..4] != [0xFF; 4] {
        let shown: String = String::from_utf8_lossy(&head[..head.len().min(40)])
            .chars()
            .map(|c| if c.is_control() { '.' } else { c })
            .collect();
        return Err(format!(
            "the answer to split {i} is not an Arrow IPC stream (it starts with `{shown}`)"
        ));
    }
    let reader = StreamReader::try_new(out.by_ref(), None)
        .map_err(|e| format!("the answer to split {i} is not an Arrow IPC stream: {e}"))?;
    let schema = reader.schema();
    let mut batches = Vec::new();
    for batch in reader {
        batches.push(batch.map_err(|e| {
            format!(
                "the answer to split {i} breaks off after {} batches: {e}",
                batches.len()
            )
        })?);
    }
    Ok(Answer {
        schema,
        batches,
        first_byte,
        last_byte: Instant::now(),
    })
}
