//! The Avro object container: header (`avro.schema`, `avro.codec`, sync marker), then blocks of records
//! decoded into batches.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use arrow_array::{new_null_array, ArrayRef};

use crate::decode::DecodeError;
use crate::decode::{FileColumn, RawBatches};
use crate::error::{Error, Result};

use super::column::Column;
use super::cursor::{skip, Cursor};
use super::schema::{parse_schema, unwrap_nullable, Schema};

/// Opens an Avro data file and decodes `columns` (see [`FileColumn`]) in batches of `batch_size` rows.
///
/// Errors: [`Error::Io`] when the file cannot be opened, [`Error::Decode`] naming it when the container,
/// schema, codec or a value is malformed or a column's Avro type does not fit its Paimon type.
pub(crate) fn open(path: &Path, columns: &[FileColumn], batch_size: usize) -> Result<RawBatches> {
    let decode_err = |e: DecodeError| e.at(path);
    let mut input: Input = if crate::fileio::is_store(path) {
        // One GET of the whole object, read from memory.
        BufReader::new(Box::new(std::io::Cursor::new(crate::fileio::read(path)?)))
    } else {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        BufReader::new(Box::new(file))
    };
    let header = read_header(&mut input).map_err(&decode_err)?;
    let fields = match unwrap_nullable(&header.schema) {
        Schema::Record(fields) => fields.clone(),
        _ => return Err(decode_err("the file schema is not a record".into())),
    };
    let top_union = match &header.schema {
        Schema::Union(branches) => Some(branches.clone()),
        _ => None,
    };
    // For each writer field: the requested column it feeds.
    let mut targets: Vec<Option<usize>> = vec![None; fields.len()];
    for (i, column) in columns.iter().enumerate() {
        if let Some(f) = fields.iter().position(|(name, _)| name == &column.name) {
            if targets[f].is_none() {
                targets[f] = Some(i);
            }
        }
    }
    let buffers = columns
        .iter()
        .map(|c| Column::new(&c.data_type, &c.arrow_type()))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(&decode_err)?;
    let present: Vec<bool> = (0..columns.len())
        .map(|i| targets.contains(&Some(i)))
        .collect();
    Ok(Box::new(AvroBatches {
        path: path.to_path_buf(),
        input,
        codec: header.codec,
        sync: header.sync,
        fields,
        top_union,
        targets,
        present,
        buffers,
        block: Vec::new(),
        block_pos: 0,
        block_left: 0,
        batch_size,
        done: false,
    }))
}

pub(super) struct Header {
    schema: Schema,
    codec: apache_avro::Codec,
    sync: [u8; 16],
}

pub(super) fn read_exact(
    input: &mut impl Read,
    n: usize,
) -> std::result::Result<Vec<u8>, DecodeError> {
    let mut buf = Vec::new();
    input
        .take(n as u64)
        .read_to_end(&mut buf)
        .map_err(|e| DecodeError::library("", e))?;
    if buf.len() != n {
        return Err("truncated file".into());
    }
    Ok(buf)
}

/// Reads a zig-zag varint from a stream; `None` at a clean end of input.
pub(super) fn read_long(input: &mut impl Read) -> std::result::Result<Option<i64>, DecodeError> {
    let mut value: u64 = 0;
    let mut shift = 0;
    loop {
        let mut b = [0u8; 1];
        let n = input
            .read(&mut b)
            .map_err(|e| DecodeError::library("", e))?;
        if n == 0 {
            return if shift == 0 {
                Ok(None)
            } else {
                Err("truncated variable-length integer".into())
            };
        }
        if shift >= 64 {
            return Err("variable-length integer longer than 10 bytes".into());
        }
        value |= u64::from(b[0] & 0x7F) << shift;
        if b[0] & 0x80 == 0 {
            return Ok(Some((value >> 1) as i64 ^ -((value & 1) as i64)));
        }
        shift += 7;
    }
}

pub(super) fn required_long(input: &mut impl Read) -> std::result::Result<i64, DecodeError> {
    read_long(input)?.ok_or_else(|| "truncated file".into())
}

pub(super) fn read_header(input: &mut impl Read) -> std::result::Result<Header, DecodeError> {
    let magic = read_exact(input, 4)?;
    if magic != b"Obj\x01" {
        return Err("not an Avro object container file (bad magic)".into());
    }
    let mut meta: HashMap<String, Vec<u8>> = HashMap::new();
    loop {
        let count = required_long(input)?;
        if count == 0 {
            break;
        }
        if count < 0 {
            required_long(input)?;
        }
        for _ in 0..count.unsigned_abs() {
            let klen = usize::try_from(required_long(input)?).map_err(|_| "negative length")?;
            let key =
                String::from_utf8(read_exact(input, klen)?).map_err(|_| "bad metadata key")?;
            let vlen = usize::try_from(required_long(input)?).map_err(|_| "negative length")?;
            meta.insert(key, read_exact(input, vlen)?);
        }
    }
    let mut sync = [0u8; 16];
    sync.copy_from_slice(&read_exact(input, 16)?);
    let schema_json = meta
        .get("avro.schema")
        .ok_or("no avro.schema in the header")?;
    let json: serde_json::Value = serde_json::from_slice(schema_json)
        .map_err(|e| DecodeError::library("bad avro.schema", e))?;
    let schema = parse_schema(&json).map_err(|e| e.prefixed("bad avro.schema"))?;
    let codec_name = meta
        .get("avro.codec")
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .unwrap_or_else(|| "null".into());
    let codec: apache_avro::Codec = codec_name
        .parse()
        .map_err(|_| DecodeError::from(format!("unsupported Avro codec `{codec_name}`")))?;
    Ok(Header {
        schema,
        codec,
        sync,
    })
}

/// Where the container's bytes come from: the open local file, or an object store's object in memory.
type Input = BufReader<Box<dyn Read + Send>>;

pub(super) struct AvroBatches {
    path: PathBuf,
    input: Input,
    codec: apache_avro::Codec,
    sync: [u8; 16],
    fields: Vec<(String, Schema)>,
    top_union: Option<Vec<Schema>>,
    targets: Vec<Option<usize>>,
    present: Vec<bool>,
    buffers: Vec<Column>,
    /// The current decompressed block, the read position in it and the records left.
    block: Vec<u8>,
    block_pos: usize,
    block_left: usize,
    batch_size: usize,
    done: bool,
}

impl AvroBatches {
    /// Loads the next block; false at the end of the file.
    pub(super) fn next_block(&mut self) -> std::result::Result<bool, DecodeError> {
        let Some(count) = read_long(&mut self.input)? else {
            return Ok(false);
        };
        let count = usize::try_from(count)
            .map_err(|_| DecodeError::from(format!("negative block count {count}")))?;
        let size = required_long(&mut self.input)?;
        let size = usize::try_from(size)
            .map_err(|_| DecodeError::from(format!("negative block size {size}")))?;
        let mut block = read_exact(&mut self.input, size)?;
        let sync = read_exact(&mut self.input, 16)?;
        if sync != self.sync {
            return Err("block sync marker does not match the header".into());
        }
        if matches!(self.codec, apache_avro::Codec::Snappy) && block.len() < 4 {
            return Err("snappy block shorter than its checksum".into());
        }
        let codec = self.codec;
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            codec.decompress(&mut block)
        }))
        .map_err(|_| "the decompressor panicked on a block".to_string())?
        .map_err(|e| DecodeError::library("cannot decompress a block", e))?;
        self.block = block;
        self.block_pos = 0;
        self.block_left = count;
        Ok(true)
    }

    pub(super) fn read_batch(
        &mut self,
    ) -> std::result::Result<Option<(usize, Vec<ArrayRef>)>, DecodeError> {
        let mut rows = 0;
        while rows < self.batch_size {
            if self.block_left == 0 {
                if self.block_pos != self.block.len() {
                    return Err("block has bytes after its last record".into());
                }
                if !self.next_block()? {
                    break;
                }
                continue;
            }
            let mut c = Cursor {
                bytes: &self.block,
                pos: self.block_pos,
            };
            if let Some(branches) = &self.top_union {
                if let Schema::Null = c.branch(branches)? {
                    return Err("a NULL row".into());
                }
            }
            for ((_, schema), target) in self.fields.iter().zip(&self.targets) {
                match target {
                    Some(i) => self.buffers[*i]
                        .decode(schema, &mut c)
                        .map_err(|e| e.prefixed(&format!("column `{}`", self.fields_name(*i))))?,
                    None => skip(schema, &mut c)?,
                }
            }
            self.block_pos = c.pos;
            self.block_left -= 1;
            rows += 1;
        }
        if rows == 0 {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(self.buffers.len());
        for (buffer, present) in self.buffers.iter_mut().zip(&self.present) {
            if *present {
                out.push(buffer.finish()?);
            } else {
                out.push(new_null_array(&buffer.target, rows));
            }
        }
        Ok(Some((rows, out)))
    }

    pub(super) fn fields_name(&self, column: usize) -> &str {
        self.targets
            .iter()
            .position(|t| *t == Some(column))
            .map_or("?", |f| self.fields[f].0.as_str())
    }
}

impl Iterator for AvroBatches {
    type Item = Result<(usize, Vec<ArrayRef>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.read_batch() {
            Ok(Some(batch)) => Some(Ok(batch)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e.at(&self.path)))
            }
        }
    }
}
