//! Checks of the Avro object container framing done before apache-avro decodes a manifest, so that bad
//! bytes are errors, never panics or huge allocations.

use super::Malformed;

pub(super) const AVRO_MAGIC: &[u8] = b"Obj\x01";

/// The largest length or item count apache-avro may take from a manifest (`util::max_allocation_bytes`,
/// process-wide, set by the first manifest read): 16 MiB for a string, a bytes value or a block, and
/// 16 Mi items for an array or map, which apache-avro reserves up front (56 to 80 bytes per item) before
/// reading them. A corrupt count then costs at most about 1 GiB for a moment instead of aborting the
/// process. Paimon writes blocks of about 64 KiB, and no manifest field comes near these sizes.
pub(crate) const MAX_AVRO_ALLOCATION: usize = 16 << 20;

/// Reads one zig-zag variable-length long of the Avro binary encoding at `pos`.
fn avro_long(b: &[u8], pos: &mut usize) -> Result<i64, Malformed> {
    let mut value: u64 = 0;
    for shift in (0..64).step_by(7) {
        let byte = *b
            .get(*pos)
            .ok_or_else(|| Malformed::Invalid(format!("truncated at byte {}", *pos)))?;
        *pos += 1;
        value |= u64::from(byte & 0x7F) << shift;
        if byte & 0x80 == 0 {
            return Ok(((value >> 1) as i64) ^ -((value & 1) as i64));
        }
    }
    Err(format!(
        "a variable-length integer at byte {} is longer than 10 bytes",
        *pos
    )
    .into())
}

/// Checks the names and sizes of a writer schema (Avro schema JSON) before apache-avro parses it: apache-avro
/// 0.21 panics on a name or alias that is not an Avro name (its schema parser unwraps `Name::new`) and allocates a
/// `fixed` value of the schema's size up front. Every `name`, `aliases` entry and named-type reference
/// must be dotted identifiers (`[A-Za-z_][A-Za-z0-9_]*`), a `namespace` too (or empty), and a `fixed`
/// size at most [`MAX_AVRO_ALLOCATION`]. Anything else wrong is left to apache-avro, which reports it.
pub(super) fn check_writer_schema(json: &[u8]) -> Result<(), Malformed> {
    fn is_name(s: &str) -> bool {
        let s = s.strip_prefix('.').unwrap_or(s);
        !s.is_empty()
            && s.split('.').all(|part| {
                let mut chars = part.chars();
                chars
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
    }
    fn name(v: &serde_json::Value, what: &str) -> Result<(), Malformed> {
        match v {
            serde_json::Value::String(s) if is_name(s) => Ok(()),
            serde_json::Value::String(s) => Err(format!("{what} `{s}` is not an Avro name").into()),
            _ => Ok(()),
        }
    }
    fn walk(v: &serde_json::Value) -> Result<(), Malformed> {
        match v {
            serde_json::Value::String(_) => name(v, "type"),
            serde_json::Value::Array(items) => items.iter().try_for_each(walk),
            serde_json::Value::Object(o) => {
                if let Some(n) = o.get("name") {
                    name(n, "name")?;
                }
                if let Some(serde_json::Value::String(ns)) = o.get("namespace") {
                    if !ns.is_empty() && !is_name(ns) {
                        return Err(format!("namespace `{ns}` is not an Avro name").into());
                    }
                }
                if let Some(serde_json::Value::Array(aliases)) = o.get("aliases") {
                    aliases.iter().try_for_each(|a| name(a, "alias"))?;
                }
                if o.get("type").and_then(|t| t.as_str()) == Some("fixed") {
                    let size = o.get("size").and_then(serde_json::Value::as_u64);
                    if size.is_some_and(|n| n > MAX_AVRO_ALLOCATION as u64) {
                        return Err(format!(
                            "fixed size {} exceeds {MAX_AVRO_ALLOCATION}",
                            size.unwrap_or_default()
                        )
                        .into());
                    }
                }
                for key in ["type", "items", "values"] {
                    if let Some(t) = o.get(key) {
                        walk(t)?;
                    }
                }
                if let Some(serde_json::Value::Array(fields)) = o.get("fields") {
                    for f in fields {
                        if let serde_json::Value::Object(f) = f {
                            if let Some(n) = f.get("name") {
                                name(n, "field name")?;
                            }
                            if let Some(serde_json::Value::Array(aliases)) = f.get("aliases") {
                                aliases.iter().try_for_each(|a| name(a, "alias"))?;
                            }
                            if let Some(t) = f.get("type") {
                                walk(t)?;
                            }
                        }
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
    let v: serde_json::Value =
        serde_json::from_slice(json).map_err(|e| Malformed::library("not JSON", e))?;
    walk(&v)
}

/// Reads a length at `pos` and checks that that many bytes follow; returns it.
fn avro_len(b: &[u8], pos: &mut usize, what: &str) -> Result<usize, Malformed> {
    let at = *pos;
    let len = avro_long(b, pos)?;
    usize::try_from(len)
        .ok()
        .filter(|n| *n <= b.len() - *pos)
        .ok_or_else(|| {
            Malformed::Invalid(format!(
                "{what} at byte {at} claims {len} bytes, {} remain",
                b.len() - *pos
            ))
        })
}

/// Checks the framing of an Avro object container file without decoding values: the header's metadata map
/// (every count and length must fit in the bytes that follow), its writer schema ([`check_writer_schema`]),
/// the 16-byte sync marker, and every data block (object count, byte size within the file, the same sync
/// marker after it). The error is a reason.
pub(super) fn check_container(b: &[u8]) -> Result<(), Malformed> {
    let mut pos = AVRO_MAGIC.len();
    let mut schema = None;
    loop {
        let at = pos;
        let count = avro_long(b, &mut pos)?;
        if count == 0 {
            break;
        }
        if count < 0 {
            avro_long(b, &mut pos)?; // byte size of the block
        }
        let count = count.unsigned_abs();
        // Every entry is at least a key length and a value length.
        if count > ((b.len() - pos) / 2) as u64 {
            return Err(format!(
                "header metadata map at byte {at} claims {count} entries in {} bytes",
                b.len() - pos
            )
            .into());
        }
        for _ in 0..count {
            let key = avro_len(b, &mut pos, "header metadata key")?;
            let name = &b[pos..pos + key];
            pos += key;
            let value = avro_len(b, &mut pos, "header metadata value")?;
            if name == b"avro.schema" {
                schema = Some(&b[pos..pos + value]);
            }
            pos += value;
        }
    }
    check_writer_schema(schema.ok_or("the header has no avro.schema")?)
        .map_err(|e| e.within("the header's writer schema"))?;
    let sync = b
        .get(pos..pos + 16)
        .ok_or("truncated in the header's sync marker")?;
    pos += 16;
    let mut block = 0usize;
    while pos < b.len() {
        let at = pos;
        let objects = avro_long(b, &mut pos)?;
        if objects < 0 {
            return Err(
                format!("block {block} at byte {at}: negative object count {objects}").into(),
            );
        }
        let size = avro_len(b, &mut pos, &format!("block {block}"))?;
        pos += size;
        if b.get(pos..pos + 16) != Some(sync) {
            return Err(format!(
                "block {block} at byte {at}: no sync marker after its {size} bytes (truncated or corrupt)"
            ).into());
        }
        pos += 16;
        block += 1;
    }
    Ok(())
}
