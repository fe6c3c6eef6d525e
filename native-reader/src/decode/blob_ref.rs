//! BLOB values held in an ordinary data file (2.0 `Blob.fromBytes(.., allowBlobData = false)`, as the
//! Parquet, ORC and Avro readers call it): a primary-key table's `blob-field` columns, whose payloads 2.0
//! moves to `.managed.blob` packs and replaces by serialized `BlobDescriptor`s (scalars, ARRAY elements and
//! MAP values alike), and `blob-descriptor-field` columns, which hold descriptors written by the user. A
//! stored value is one of:
//!
//! * a `BlobViewStruct` (`blob-view-field`, version 1 and the magic `BLOBVIEW`): a reference to another
//!   table's row, kept as it is when the read resolves views after the split (`crate::merge`'s
//!   `blob_view`), else [`Error::Unsupported`];
//! * a `BlobDescriptor` (a signed version byte <= 2 and the magic `BLOBDESC`): the payload is `length`
//!   bytes from `offset` of the file `uri` (all the rest for -1, nothing for another negative length:
//!   `BlobRef.toData`, `OffsetSeekableInputStream`);
//! * anything else: not a descriptor, which the released reader still parses as one and fails on; an error
//!   here.
//!
//! A `row` file holds each BLOB's payload itself (`RowBlockReader`: `Blob.fromData`), and is not resolved.
//! With `blob-as-descriptor` a reader gets each descriptor serialized again (version 2), as the released
//! reader's `toDescriptor().serialize()`; a `row` file's payload has no descriptor, and fails there as in
//! Java.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BinaryArray, ListArray, MapArray, StructArray};

use super::format::{FileColumn, RawBatches};
use super::mapped;
use crate::error::{Error, Result};
use crate::schema::{DataType, TypeKind};

/// `BlobDescriptor.MAGIC` ("BLOBDESC") and `CURRENT_VERSION`.
const DESCRIPTOR_MAGIC: i64 = 0x424C_4F42_4445_5343;
const DESCRIPTOR_VERSION: i8 = 2;
/// `BlobViewStruct.MAGIC` ("BLOBVIEW") and `CURRENT_VERSION`.
const VIEW_MAGIC: i64 = 0x424C_4F42_5649_4557;
const VIEW_VERSION: i8 = 1;

/// `raw` (batches of `columns` decoded from the data file at `path`) with every BLOB value, at any depth,
/// replaced by its payload, or by its serialized descriptor when `descriptors` (`blob-as-descriptor`);
/// `inline` when the file holds payloads (a `row` file), which only `descriptors` changes (into an error).
/// Each pack is read once per file.
///
/// A `BlobViewStruct` is kept as it is when `views` (the table resolves views after the split).
///
/// Errors, from the iterator: [`Error::Unsupported`] naming `path` for a `BlobViewStruct` without `views`, a descriptor
/// whose URI is on a file system this reader does not reach, or an inline payload read as a descriptor;
/// [`Error::Io`] naming the pack when it cannot be read; [`Error::Decode`] naming `path` for a malformed
/// descriptor or a range outside its pack.
pub(crate) fn resolve(
    raw: RawBatches,
    columns: &[FileColumn],
    descriptors: bool,
    inline: bool,
    views: bool,
    path: &Path,
) -> RawBatches {
    let types: Vec<DataType> = columns.iter().map(|c| c.data_type.clone()).collect();
    let path = path.to_path_buf();
    let mut packs = Packs {
        inline,
        views,
        ..Packs::default()
    };
    Box::new(raw.map(move |batch| {
        let (rows, arrays) = batch?;
        let arrays = arrays
            .iter()
            .zip(&types)
            .map(|(array, t)| {
                if t.contains_blob() {
                    resolve_array(array, t, descriptors, &mut packs, &path)
                } else {
                    Ok(array.clone())
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((rows, arrays))
    }))
}

/// The packs read so far, by URI; `inline` when the values are payloads (a `row` file); `views` when a
/// `BlobViewStruct` is kept for the split's view resolution.
#[derive(Default)]
pub(crate) struct Packs {
    read: HashMap<String, bytes::Bytes>,
    inline: bool,
    views: bool,
}

/// Whether `bytes` is a serialized `BlobViewStruct` (`BlobViewStruct.isBlobViewStruct`).
pub(crate) fn is_view(bytes: &[u8]) -> bool {
    header(bytes) == Some((VIEW_VERSION, VIEW_MAGIC))
}

/// `BlobViewStruct.deserialize`: (upstream table identifier, field id, row id).
///
/// Errors: the reason, as Java's `IllegalArgumentException` gives it, for a value too short or whose
/// identifier length is negative or past its end.
pub(crate) fn view(bytes: &[u8]) -> std::result::Result<(String, i32, i64), String> {
    let mut at = 9;
    let mut take = |n: usize| {
        let slice = bytes.get(at..at + n);
        at += n;
        slice
    };
    let len = take(4).ok_or("too short")?;
    let len = i32::from_le_bytes(len.try_into().map_err(|_| "too short")?);
    let len = usize::try_from(len).map_err(|_| format!("negative identifier length: {len}"))?;
    let identifier = take(len).ok_or("identifier length exceeds data size")?;
    let identifier = String::from_utf8_lossy(identifier).into_owned();
    let field = take(4).ok_or("missing fieldId/rowId")?;
    let row = take(8).ok_or("missing fieldId/rowId")?;
    let field = i32::from_le_bytes(field.try_into().map_err(|_| "missing fieldId")?);
    let row = i64::from_le_bytes(row.try_into().map_err(|_| "missing rowId")?);
    Ok((identifier, field, row))
}

impl Packs {
    /// The payload of the BLOB whose serialized descriptor is `descriptor` (`BlobRef.toData`), read from
    /// its file; `path` names the file the descriptor came from, in errors.
    ///
    /// Errors: as [`resolve`]'s for a descriptor.
    pub(crate) fn payload(&mut self, descriptor: &[u8], path: &Path) -> Result<Vec<u8>> {
        value(descriptor, false, self, path)
    }
}

fn resolve_array(
    array: &ArrayRef,
    t: &DataType,
    descriptors: bool,
    packs: &mut Packs,
    path: &Path,
) -> Result<ArrayRef> {
    let bad = |reason: String| Error::Decode {
        path: path.to_path_buf(),
        reason,
    };
    Ok(match &t.kind {
        TypeKind::Blob => {
            let binary = arrow_cast::cast(array, &arrow_schema::DataType::Binary)
                .map_err(|e| bad(format!("a BLOB column of type {}: {e}", array.data_type())))?;
            let values = binary
                .as_binary::<i32>()
                .iter()
                .map(|v| {
                    v.map(|bytes| value(bytes, descriptors, packs, path))
                        .transpose()
                })
                .collect::<Result<Vec<Option<Vec<u8>>>>>()?;
            let resolved: ArrayRef = Arc::new(BinaryArray::from_iter(values));
            if resolved.data_type() == array.data_type() {
                resolved
            } else {
                arrow_cast::cast(&resolved, array.data_type()).map_err(|e| bad(e.to_string()))?
            }
        }
        TypeKind::Array(element) => {
            let list = array.as_list::<i32>();
            let values = resolve_array(list.values(), element, descriptors, packs, path)?;
            let field = match list.data_type() {
                arrow_schema::DataType::List(f) => f.clone(),
                other => return Err(bad(format!("an ARRAY decoded as {other}"))),
            };
            Arc::new(
                ListArray::try_new(field, list.offsets().clone(), values, list.nulls().cloned())
                    .map_err(|e| bad(e.to_string()))?,
            )
        }
        TypeKind::Map(_, value_type) => {
            let map = array.as_map();
            let entries = map.entries();
            let values = resolve_array(entries.column(1), value_type, descriptors, packs, path)?;
            let entries = StructArray::try_new(
                entries.fields().clone(),
                vec![entries.column(0).clone(), values],
                entries.nulls().cloned(),
            )
            .map_err(|e| bad(e.to_string()))?;
            let (field, sorted) = match map.data_type() {
                arrow_schema::DataType::Map(f, sorted) => (f.clone(), *sorted),
                other => return Err(bad(format!("a MAP decoded as {other}"))),
            };
            Arc::new(
                MapArray::try_new(
                    field,
                    map.offsets().clone(),
                    entries,
                    map.nulls().cloned(),
                    sorted,
                )
                .map_err(|e| bad(e.to_string()))?,
            )
        }
        TypeKind::Row(fields) => {
            let row = array.as_struct();
            let children = row
                .columns()
                .iter()
                .zip(fields)
                .map(|(c, f)| resolve_array(c, &f.data_type, descriptors, packs, path))
                .collect::<Result<Vec<_>>>()?;
            Arc::new(
                StructArray::try_new(row.fields().clone(), children, row.nulls().cloned())
                    .map_err(|e| bad(e.to_string()))?,
            )
        }
        _ => array.clone(),
    })
}

/// A stored value's version byte (signed, as Java's `byte`) and magic, when it has them.
fn header(bytes: &[u8]) -> Option<(i8, i64)> {
    let magic = bytes.get(1..9)?;
    Some((bytes[0] as i8, i64::from_le_bytes(magic.try_into().ok()?)))
}

/// One stored BLOB value as the released reader returns it (see the module doc).
fn value(bytes: &[u8], descriptors: bool, packs: &mut Packs, path: &Path) -> Result<Vec<u8>> {
    let unsupported = |reason: String| Error::Unsupported {
        path: path.to_path_buf(),
        reason,
    };
    if packs.inline {
        return if descriptors {
            Err(unsupported(
                "a `row` file's BLOB payload read with `blob-as-descriptor` has no descriptor (the \
                 released reader fails too)"
                    .into(),
            ))
        } else {
            Ok(bytes.to_vec())
        };
    }
    match header(bytes) {
        Some((VIEW_VERSION, VIEW_MAGIC)) if packs.views => Ok(bytes.to_vec()),
        Some((VIEW_VERSION, VIEW_MAGIC)) => Err(unsupported(
            "a BLOB view (`blob-view-field`, BlobViewStruct: a row of another table) is not supported"
                .into(),
        )),
        Some((version, DESCRIPTOR_MAGIC)) if version <= DESCRIPTOR_VERSION => {
            let (uri, offset, length) = descriptor(bytes).map_err(|reason| Error::Decode {
                path: path.to_path_buf(),
                reason: format!("a BLOB descriptor: {reason}"),
            })?;
            if descriptors {
                return Ok(crate::decode::blob::descriptor_of(&uri, offset, length));
            }
            packs.read(&uri, offset, length, path)
        }
        _ => Err(unsupported(
            "a stored BLOB value that is not a BlobDescriptor, which the released reader parses as \
             one (Blob.fromBytes without blob data) and fails on"
                .into(),
        )),
    }
}

/// `BlobDescriptor.deserialize`: (uri, offset, length). The magic follows the version byte from version 2;
/// a version 0 or 1 value is read without it (a value is taken for a descriptor only when its bytes 1-8
/// are the magic, `isBlobDescriptor`, so those read the magic's bytes as the URI length, as Java does).
fn descriptor(bytes: &[u8]) -> std::result::Result<(String, i64, i64), String> {
    let mut at = if bytes.first().is_some_and(|v| *v as i8 > 1) {
        9
    } else {
        1
    };
    let mut take = |n: usize| {
        let slice = bytes.get(at..at + n).ok_or("too short")?;
        at += n;
        Ok::<&[u8], &str>(slice)
    };
    let uri_len = i32::from_le_bytes(take(4)?.try_into().map_err(|_| "too short")?);
    let uri_len = usize::try_from(uri_len).map_err(|_| format!("negative URI length {uri_len}"))?;
    let uri = String::from_utf8_lossy(take(uri_len).map_err(|_| "URI length exceeds data size")?)
        .into_owned();
    let offset = i64::from_le_bytes(take(8)?.try_into().map_err(|_| "missing offset")?);
    let length = i64::from_le_bytes(take(8)?.try_into().map_err(|_| "missing length")?);
    Ok((uri, offset, length))
}

impl Packs {
    /// `length` bytes (all the rest when negative) from `offset` of the file `uri`.
    fn read(&mut self, uri: &str, offset: i64, length: i64, path: &Path) -> Result<Vec<u8>> {
        if !self.read.contains_key(uri) {
            let file = pack_path(uri).ok_or_else(|| Error::Unsupported {
                path: path.to_path_buf(),
                reason: format!(
                    "a BLOB descriptor of `{uri}`, on a file system this reader does not reach"
                ),
            })?;
            let bytes = mapped::read_all(&file)?;
            self.read.insert(uri.to_owned(), bytes);
        }
        let pack = &self.read[uri];
        // `OffsetSeekableInputStream`: -1 reads to the end, another negative length reads nothing; a seek
        // past the end is allowed, and reading past it fails.
        let start = usize::try_from(offset).ok();
        let end = match (start, length) {
            (Some(s), -1) => Some(pack.len().max(s)),
            (Some(s), l) if l < 0 => Some(s),
            (Some(s), l) => usize::try_from(l).ok().and_then(|l| s.checked_add(l)),
            (None, _) => None,
        };
        match (start, end) {
            // Nothing asked for, wherever the seek went.
            (Some(s), Some(e)) if e == s => Ok(Vec::new()),
            (Some(s), Some(e)) if s <= e && e <= pack.len() => Ok(pack[s..e].to_vec()),
            _ => Err(Error::Decode {
                path: path.to_path_buf(),
                reason: format!(
                    "a BLOB descriptor's range (offset {offset}, length {length}) is outside `{uri}` \
                     ({} bytes)",
                    pack.len()
                ),
            }),
        }
    }
}

/// The file a descriptor URI names (`new Path(uri)`, opened through the table's file system): a local path
/// or `file:` URI, or an object in a store this reader reaches ([`crate::fileio::is_store`]). `None` for
/// another scheme.
fn pack_path(uri: &str) -> Option<PathBuf> {
    if let Some(rest) = uri.strip_prefix("file://") {
        // `file://host/p` names `/p` on the local file system (`toUri().getPath()`).
        return Some(PathBuf::from(match rest.find('/') {
            Some(at) => &rest[at..],
            None => "/",
        }));
    }
    if let Some(rest) = uri.strip_prefix("file:") {
        return Some(PathBuf::from(rest));
    }
    match uri.split_once("://") {
        None => Some(PathBuf::from(uri)),
        Some(_) if crate::fileio::is_store(Path::new(uri)) => Some(PathBuf::from(uri)),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `BlobDescriptor(uri, offset, length).serialize()`, written out by hand.
    fn descriptor_bytes(uri: &str, offset: i64, length: i64) -> Vec<u8> {
        let mut out = vec![2];
        out.extend_from_slice(b"CSEDBOLB");
        out.extend_from_slice(&(uri.len() as i32).to_le_bytes());
        out.extend_from_slice(uri.as_bytes());
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&length.to_le_bytes());
        out
    }

    #[test]
    fn descriptors_read_their_range_and_row_files_hold_payloads() {
        let dir = tempfile::tempdir().unwrap();
        let pack = dir.path().join("data-1.managed.blob");
        std::fs::write(&pack, b"0123456789").unwrap();
        let uri = pack.to_string_lossy().into_owned();
        let file = Path::new("data-2.parquet");
        let mut packs = Packs::default();
        let d = descriptor_bytes(&uri, 2, 3);
        assert_eq!(value(&d, false, &mut packs, file).unwrap(), b"234");
        // A negative length reads to the end; a `file:` URI is the same file.
        let d = descriptor_bytes(&format!("file:{uri}"), 7, -1);
        assert_eq!(value(&d, false, &mut packs, file).unwrap(), b"789");
        // With `blob-as-descriptor` the descriptor comes back serialized.
        let d = descriptor_bytes(&uri, 2, 3);
        assert_eq!(value(&d, true, &mut packs, file).unwrap(), d);
        // -2 reads nothing; past the end, nothing is read when nothing is asked for.
        let d = descriptor_bytes(&uri, 2, -2);
        assert_eq!(value(&d, false, &mut packs, file).unwrap(), b"");
        let d = descriptor_bytes(&uri, 20, -1);
        assert_eq!(value(&d, false, &mut packs, file).unwrap(), b"");
        // `file://host/p` is `/p`.
        let d = descriptor_bytes(&format!("file://host{uri}"), 0, 1);
        assert_eq!(value(&d, false, &mut packs, file).unwrap(), b"0");
        // Not a descriptor: the released reader parses it as one and fails; so does this reader.
        assert!(matches!(
            value(b"plain", false, &mut packs, file),
            Err(Error::Unsupported { .. })
        ));
        // A `row` file's values are the payloads; as descriptors, an error.
        let mut inline = Packs {
            inline: true,
            ..Packs::default()
        };
        let d = descriptor_bytes(&uri, 2, 3);
        assert_eq!(value(&d, false, &mut inline, file).unwrap(), d);
        assert!(matches!(
            value(b"plain", true, &mut inline, file),
            Err(Error::Unsupported { .. })
        ));
    }

    /// `BlobViewStruct(identifier, fieldId, rowId).serialize()`, written out by hand.
    fn view_bytes(identifier: &str, field: i32, row: i64) -> Vec<u8> {
        let mut out = vec![1];
        out.extend_from_slice(b"WEIVBOLB");
        out.extend_from_slice(&(identifier.len() as i32).to_le_bytes());
        out.extend_from_slice(identifier.as_bytes());
        out.extend_from_slice(&field.to_le_bytes());
        out.extend_from_slice(&row.to_le_bytes());
        out
    }

    #[test]
    fn views_parse_and_are_kept_for_the_split_when_resolved() {
        let bytes = view_bytes("media.images", 2, 40);
        assert!(is_view(&bytes));
        assert!(!is_view(&descriptor_bytes("x", 0, 1)));
        assert_eq!(view(&bytes).unwrap(), ("media.images".into(), 2, 40));
        assert_eq!(
            view(&bytes[..20]).unwrap_err(),
            "identifier length exceeds data size"
        );
        assert_eq!(view(&bytes[..30]).unwrap_err(), "missing fieldId/rowId");
        let mut negative = bytes.clone();
        negative[9..13].copy_from_slice(&(-1i32).to_le_bytes());
        assert!(view(&negative).unwrap_err().contains("negative"));
        let file = Path::new("data-4.parquet");
        let mut kept = Packs {
            views: true,
            ..Packs::default()
        };
        assert_eq!(value(&bytes, false, &mut kept, file).unwrap(), bytes);
    }

    #[test]
    fn views_other_schemes_and_ranges_past_the_pack_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let pack = dir.path().join("p.managed.blob");
        std::fs::write(&pack, b"abc").unwrap();
        let file = Path::new("data-3.parquet");
        let mut packs = Packs::default();
        let mut view = vec![1];
        view.extend_from_slice(b"WEIVBOLB");
        view.extend_from_slice(&[0; 8]);
        assert!(matches!(
            value(&view, false, &mut packs, file),
            Err(Error::Unsupported { .. })
        ));
        let hdfs = descriptor_bytes("hdfs://nn/p.managed.blob", 0, 1);
        assert!(matches!(
            value(&hdfs, false, &mut packs, file),
            Err(Error::Unsupported { .. })
        ));
        let past = descriptor_bytes(&pack.to_string_lossy(), 2, 5);
        let err = value(&past, false, &mut packs, file)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("outside") && err.contains("data-3.parquet"),
            "{err}"
        );
        let cut = &descriptor_bytes("x", 0, 1)[..15];
        assert!(matches!(
            value(cut, false, &mut packs, file),
            Err(Error::Decode { .. })
        ));
    }
}
