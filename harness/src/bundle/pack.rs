//! Writing a bundle in one pass over the table's files: each file is read once, in chunks that go to a
//! hashing thread (SHA-256) and to the compressor at the same time.
//!
//! The archive is one zstd stream of two frames (the files at level 3 with a 64 MiB window and long-distance
//! matching, compressed on the zstd library's worker threads, `PAIMON_PARITY_BUNDLE_THREADS`, default the
//! cores):
//! 1. the manifest's tar entry, in a frame of its own (the manifest holds every file's SHA-256, known only
//!    once every file is read, so this frame is compressed last and the second one, written first into a
//!    temporary file beside the bundle, is copied after it by the kernel);
//! 2. the table's files as tar entries under [`super::TABLE_DIR`], then the end of the archive.
//!
//! Decompressed, the frames are one tar archive whose first entry is the manifest (`zstd -dc bundle | tar
//! t` lists it first).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use super::{hex, FileKind, Manifest, MANIFEST_NAME, TABLE_DIR};
use crate::error::{Error, Result};

/// The zstd level of the table's files (as `zstd -3`).
pub const LEVEL: i32 = 3;

/// The zstd level of a small manifest's own frame (up to [`MANIFEST_SLOW_LIMIT`]): mostly paths and digests,
/// where level 19 takes a few milliseconds and keeps small bundles smaller.
pub const MANIFEST_LEVEL: i32 = 19;

/// The zstd level of a larger manifest's frame: level 19 takes about 1 ms per KB, level 6 gives within 10% of
/// its size at the speed of level 3.
pub const LARGE_MANIFEST_LEVEL: i32 = 6;

/// Manifests (tar entries) larger than this, in bytes, are compressed at [`LARGE_MANIFEST_LEVEL`].
const MANIFEST_SLOW_LIMIT: usize = 64 << 10;

/// The zstd window of the files' frame: 2^26 bytes (64 MiB). On a 2M-row table (100 MB) it gives 26.1 MB
/// against 52.5 MB without it, at 2^27 25.8 MB, but the 128 MiB window's buffers cost more page faults than
/// the 1% is worth.
pub const WINDOW_LOG: u32 = 26;

/// The largest zstd window a bundle may have to be read: 2^27 bytes, the largest every zstd decoder accepts
/// by default (`zstd -d` included, without `--long`).
pub const MAX_WINDOW_LOG: u32 = 27;

/// zstd worker threads: `PAIMON_PARITY_BUNDLE_THREADS`, else the cores this process may use.
fn threads() -> u32 {
    std::env::var("PAIMON_PARITY_BUNDLE_THREADS")
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u32))
}

/// Bytes read (and hashed, and compressed) at a time.
const CHUNK: usize = 256 << 10;

/// A file of the table (a local directory or a store location, [`native_reader::fileio`]).
#[derive(Clone, Debug)]
pub struct TableFile {
    /// Its path inside the table directory, `/`-separated.
    pub relative: String,
    /// Where it is: a local path, or a store URI (`s3://bucket/key`).
    pub absolute: PathBuf,
    /// Metadata or data.
    pub kind: FileKind,
    /// Size in bytes.
    pub size: u64,
    /// Last modified, in milliseconds since the epoch, when the file system says.
    pub modified_millis: Option<i64>,
}

/// Every file under `table` (a local directory, symbolic links followed, or a store location listed with
/// LIST requests only), metadata first, each group sorted by path.
///
/// Errors: [`Error::TableSource`] naming a directory that cannot be listed.
pub fn list_table(table: &Path) -> Result<Vec<TableFile>> {
    let err = |path: &Path, e: std::io::Error| Error::TableSource {
        path: path.to_path_buf(),
        context: "cannot list the table for the bundle".into(),
        source: e.into(),
    };
    let io = native_reader::fileio::for_path(table).map_err(|e| Error::TableSource {
        path: table.to_path_buf(),
        context: "cannot list the table for the bundle".into(),
        source: e.into(),
    })?;
    let mut out = Vec::new();
    // (directory, its path relative to the table with a trailing `/`, or empty for the table itself)
    let mut dirs = vec![(table.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = dirs.pop() {
        for status in io.list_status(&dir).map_err(|e| err(&dir, e))? {
            let path = dir.join(&status.name);
            let relative = format!("{prefix}{}", status.name);
            if status.is_dir {
                dirs.push((path, format!("{relative}/")));
            } else {
                out.push(TableFile {
                    kind: FileKind::of(Path::new(&relative)),
                    relative,
                    absolute: path,
                    size: status.size,
                    modified_millis: status.modified_millis,
                });
            }
        }
    }
    out.sort_by(|a, b| {
        (a.kind == FileKind::Data, &a.relative).cmp(&(b.kind == FileKind::Data, &b.relative))
    });
    Ok(out)
}

/// What writing a bundle took.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PackStats {
    /// Files written into the archive.
    pub files: usize,
    /// Their bytes, uncompressed.
    pub retained_bytes: u64,
    /// The bundle's size in bytes.
    pub bundle_bytes: u64,
    /// zstd worker threads.
    pub threads: u32,
    /// Wall time of reading, hashing, compressing and writing, in milliseconds.
    pub wall_time_ms: u128,
}

/// Writes the bundle `out`: `manifest` first (its `files[].sha256` filled in here), then each file of
/// `sources` (in the order and with the sizes of `manifest.files`; local or in a store) under [`TABLE_DIR`].
///
/// Errors: [`Error::Io`] naming `out` when it cannot be written; [`Error::TableSource`] naming a table file
/// that cannot be read or whose size changed while it was read.
pub fn pack(out: &Path, manifest: &mut Manifest, sources: &[TableFile]) -> Result<PackStats> {
    let started = Instant::now();
    let io = |e: std::io::Error| Error::Io {
        path: out.to_path_buf(),
        source: e,
    };
    // The files' frame goes to a temporary file beside `out` first: the manifest, which precedes it, holds
    // the digests known only once every file is read.
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut files_frame = tempfile::Builder::new()
        .prefix(".paimon-parity-bundle-")
        .tempfile_in(&dir)
        .map_err(io)?;
    let threads = threads();
    let mut encoder =
        zstd::stream::write::Encoder::new(files_frame.as_file_mut(), LEVEL).map_err(io)?;
    // With one worker the compression still runs beside this thread (zstd's asynchronous mode); 0 compresses
    // on this thread.
    if threads > 0 {
        encoder.multithread(threads).map_err(io)?;
    }
    // A table repeats itself far apart (a lookup changelog file holds the rows of the data file written
    // with it, compactions rewrite the same rows level after level): a 64 MiB window with long-distance
    // matching finds those repeats, halving the bundle of a large table.
    encoder.window_log(WINDOW_LOG).map_err(io)?;
    encoder.long_distance_matching(true).map_err(io)?;
    let mut builder = tar::Builder::new(encoder);
    // One pass: each chunk read is handed to the hashing thread and compressed here at the same time (the
    // zstd workers compress; this thread reads and feeds them).
    // Hashed chunks come back for reuse, so that a few buffers carry the whole table (no fresh pages).
    let (to_hash, chunks) = std::sync::mpsc::sync_channel::<Option<Arc<Vec<u8>>>>(8);
    let (hashed, pool) = std::sync::mpsc::channel::<Arc<Vec<u8>>>();
    let digests = std::thread::scope(|scope| -> Result<Vec<String>> {
        let hashing = scope.spawn(move || {
            let mut digests = Vec::new();
            let mut hasher = Sha256::new();
            for chunk in chunks {
                match chunk {
                    Some(c) => {
                        hasher.update(c.as_slice());
                        let _ = hashed.send(c);
                    }
                    None => digests.push(hex(&std::mem::take(&mut hasher).finalize())),
                }
            }
            digests
        });
        let pipe = Pipe {
            to_hash: &to_hash,
            pool: &pool,
        };
        for (entry, source) in manifest.files.iter().zip(sources) {
            feed(&mut builder, &pipe, &entry.path, entry.size, source, &io)?;
        }
        drop(to_hash);
        hashing
            .join()
            .map_err(|_| io(std::io::Error::other("the hashing thread panicked")))
    })?;
    for (entry, digest) in manifest.files.iter_mut().zip(digests) {
        entry.sha256 = digest;
    }
    let retained_bytes = manifest.files.iter().map(|f| f.size).sum();
    let encoder = builder.into_inner().map_err(io)?;
    encoder.finish().map_err(io)?;

    // The manifest's tar entry in a frame of its own, then the files' frame.
    let json = serde_json::to_vec_pretty(&*manifest).map_err(|e| io(std::io::Error::other(e)))?;
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(tar::EntryType::Regular);
    header.set_size(json.len() as u64);
    header.set_mode(0o644);
    header.set_mtime(
        std::time::SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    );
    header.set_path(MANIFEST_NAME).map_err(io)?;
    header.set_cksum();
    let mut entry = header.as_bytes().to_vec();
    entry.extend_from_slice(&json);
    entry.resize(512 + json.len().div_ceil(512) * 512, 0);
    let level = if entry.len() <= MANIFEST_SLOW_LIMIT {
        MANIFEST_LEVEL
    } else {
        LARGE_MANIFEST_LEVEL
    };
    let frame = zstd::bulk::compress(&entry, level).map_err(io)?;
    let mut file = File::create(out).map_err(io)?;
    file.write_all(&frame).map_err(io)?;
    let frames = files_frame.as_file_mut();
    frames.seek(SeekFrom::Start(0)).map_err(io)?;
    // A file-to-file copy (`copy_file_range` on Linux): the kernel moves the compressed bytes.
    let copied = std::io::copy(frames, &mut file).map_err(io)?;
    file.flush().map_err(io)?;
    Ok(PackStats {
        files: manifest.files.len(),
        retained_bytes,
        bundle_bytes: frame.len() as u64 + copied,
        threads,
        wall_time_ms: started.elapsed().as_millis(),
    })
}

/// Appends the file `source` (`size` bytes) as the entry `table/<path>`: its header (and a long-name entry when
/// the path needs one) through the tar crate, then its content chunk by chunk, each chunk sent to the hashing
/// thread (`None` after the last one) as it is compressed. A file in a store is read by ranged GETs of one
/// chunk each, so that memory stays a few chunks whatever the file's size.
///
/// Errors: [`Error::TableSource`] naming a file that cannot be read or is shorter than listed; `io` for the
/// bundle.
fn feed<W: Write>(
    builder: &mut tar::Builder<W>,
    pipe: &Pipe<'_>,
    path: &str,
    size: u64,
    source: &TableFile,
    io: &dyn Fn(std::io::Error) -> Error,
) -> Result<()> {
    let read_err = |e: std::io::Error| Error::TableSource {
        path: source.absolute.clone(),
        context: "cannot read it into the bundle".into(),
        source: e.into(),
    };
    let mut input = Source::open(&source.absolute).map_err(read_err)?;
    let mtime = source
        .modified_millis
        .and_then(|m| u64::try_from(m / 1000).ok())
        .unwrap_or(0);
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(tar::EntryType::Regular);
    header.set_size(size);
    header.set_mode(0o644);
    header.set_mtime(mtime);
    builder
        .append_data(&mut header, format!("{TABLE_DIR}/{path}"), std::io::empty())
        .map_err(io)?;
    let hashing_gone = || io(std::io::Error::other("the hashing thread stopped"));
    let mut left = size;
    while left > 0 {
        let mut chunk = pipe.buffer();
        chunk.resize((left as usize).min(CHUNK), 0);
        input.read_exact(&mut chunk, size - left).map_err(|e| {
            read_err(std::io::Error::new(
                e.kind(),
                format!(
                    "{e}: the file is shorter than when it was listed ({size} bytes): it changed while the bundle was written"
                ),
            ))
        })?;
        let chunk = Arc::new(chunk);
        pipe.to_hash
            .send(Some(chunk.clone()))
            .map_err(|_| hashing_gone())?;
        builder.get_mut().write_all(&chunk).map_err(io)?;
        left -= chunk.len() as u64;
    }
    pipe.to_hash.send(None).map_err(|_| hashing_gone())?;
    let pad = (512 - (size % 512) as usize) % 512;
    builder.get_mut().write_all(&[0u8; 512][..pad]).map_err(io)
}

/// A table file being read into the bundle: a local file read in order, or a store object read by range.
enum Source {
    /// A local file.
    Local(File),
    /// An object in a store, and its URI.
    Store(Arc<dyn native_reader::fileio::FileIO>, PathBuf),
}

impl Source {
    /// Opens `path` (a local path, `file:` URI or store URI).
    fn open(path: &Path) -> std::io::Result<Source> {
        if native_reader::fileio::is_store(path) {
            let io = native_reader::fileio::for_path(path).map_err(std::io::Error::other)?;
            Ok(Source::Store(io, path.to_path_buf()))
        } else {
            let local = native_reader::split::local_path(&path.to_string_lossy())
                .unwrap_or_else(|_| path.to_path_buf());
            File::open(local).map(Source::Local)
        }
    }

    /// Fills `buf` with the bytes from `offset` on (the local file is read in order: `offset` is where it
    /// already is).
    fn read_exact(&mut self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        match self {
            Source::Local(f) => f.read_exact(buf),
            Source::Store(io, path) => {
                let bytes = io.read_range(path, offset..offset + buf.len() as u64)?;
                if bytes.len() < buf.len() {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        format!("{} bytes at {offset}, {} asked", bytes.len(), buf.len()),
                    ));
                }
                buf.copy_from_slice(&bytes[..buf.len()]);
                Ok(())
            }
        }
    }
}

/// The way chunks go to the hashing thread, and the chunks it is done with.
struct Pipe<'a> {
    /// Chunks to hash; `None` ends a file.
    to_hash: &'a std::sync::mpsc::SyncSender<Option<Arc<Vec<u8>>>>,
    /// Chunks hashed, for reuse.
    pool: &'a std::sync::mpsc::Receiver<Arc<Vec<u8>>>,
}

impl Pipe<'_> {
    /// An empty buffer: a hashed chunk nobody else holds any more, else a new one.
    fn buffer(&self) -> Vec<u8> {
        while let Ok(used) = self.pool.try_recv() {
            if let Ok(mut v) = Arc::try_unwrap(used) {
                v.clear();
                return v;
            }
        }
        Vec::with_capacity(CHUNK)
    }
}
