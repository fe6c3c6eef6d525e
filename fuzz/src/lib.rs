//! How raw fuzzer bytes become calls into the native reader, shared by the targets (`fuzz_targets/`) and
//! the seed writer (`examples/seeds.rs`), which turns the committed corpora into inputs of the same shape.
//!
//! Every function here must return normally for every input: an `Err` from the reader is a correct answer
//! to bad bytes; a panic, an abort or an out-of-memory is a bug in the reader.

use std::path::Path;

use native_reader::binary_row::{decode_row, BinaryRow};
use native_reader::deletion_vector::DeletionVector;
use native_reader::partition::{escape_path_name, partition_path, PartitionComputer};
use native_reader::schema::{parse_atomic, parse_type, DataField, DataType, TableSchema, TypeKind};
use native_reader::snapshot::Snapshot;
use native_reader::table::CoreOptions;

/// The types a fuzz input can name, by code (bit 7 of a code means NOT NULL). Codes past the end wrap.
pub fn type_of(code: u8) -> DataType {
    let kind = match (code & 0x7F) % 25 {
        0 => TypeKind::Boolean,
        1 => TypeKind::TinyInt,
        2 => TypeKind::SmallInt,
        3 => TypeKind::Int,
        4 => TypeKind::BigInt,
        5 => TypeKind::Float,
        6 => TypeKind::Double,
        7 => TypeKind::Decimal {
            precision: 10,
            scale: 2,
        },
        8 => TypeKind::Decimal {
            precision: 38,
            scale: 10,
        },
        9 => TypeKind::Char(5),
        10 => TypeKind::VarChar(u32::MAX >> 1),
        11 => TypeKind::Binary(4),
        12 => TypeKind::VarBinary(u32::MAX >> 1),
        13 => TypeKind::Date,
        14 => TypeKind::Time(0),
        15 => TypeKind::Timestamp(3),
        16 => TypeKind::Timestamp(6),
        17 => TypeKind::Timestamp(9),
        18 => TypeKind::LocalZonedTimestamp(3),
        19 => TypeKind::LocalZonedTimestamp(6),
        20 => TypeKind::Decimal {
            precision: 18,
            scale: 0,
        },
        21 => TypeKind::Decimal {
            precision: 19,
            scale: 4,
        },
        22 => TypeKind::Timestamp(0),
        23 => TypeKind::Array(Box::new(DataType {
            kind: TypeKind::Int,
            nullable: true,
        })),
        _ => TypeKind::Row(vec![DataField {
            id: 0,
            name: "f".into(),
            data_type: DataType {
                kind: TypeKind::VarChar(10),
                nullable: true,
            },
            default_value: None,
        }]),
    };
    DataType {
        kind,
        nullable: code & 0x80 == 0,
    }
}

/// A code whose type has the same BinaryRow layout as `t` (for seeds); `None` for nested types.
pub fn code_of(t: &DataType) -> Option<u8> {
    let code = match &t.kind {
        TypeKind::Boolean => 0,
        TypeKind::TinyInt => 1,
        TypeKind::SmallInt => 2,
        TypeKind::Int => 3,
        TypeKind::BigInt => 4,
        TypeKind::Float => 5,
        TypeKind::Double => 6,
        TypeKind::Decimal { precision, .. } if *precision <= 18 => 7,
        TypeKind::Decimal { .. } => 8,
        TypeKind::Char(_) | TypeKind::VarChar(_) => 10,
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => 12,
        TypeKind::Date => 13,
        TypeKind::Time(_) => 14,
        TypeKind::Timestamp(p) if *p <= 3 => 15,
        TypeKind::Timestamp(_) => 17,
        TypeKind::LocalZonedTimestamp(p) if *p <= 3 => 18,
        TypeKind::LocalZonedTimestamp(_) => 19,
        _ => return None,
    };
    Some(if t.nullable { code } else { code | 0x80 })
}

/// Splits a typed-row input: `[n] [n type codes] [serialized row]` (n taken modulo 9).
pub fn split_typed_row(data: &[u8]) -> (Vec<DataType>, &[u8]) {
    let Some((&n, rest)) = data.split_first() else {
        return (Vec::new(), data);
    };
    let n = (n % 9) as usize;
    let n = n.min(rest.len());
    let (codes, row) = rest.split_at(n);
    (codes.iter().map(|c| type_of(*c)).collect(), row)
}

/// The typed-row input for `types` and a serialized row; `None` when a type has no code.
pub fn typed_row_input(types: &[&DataType], row: &[u8]) -> Option<Vec<u8>> {
    let mut out = vec![u8::try_from(types.len()).ok().filter(|n| *n < 9)?];
    for t in types {
        out.push(code_of(t)?);
    }
    out.extend_from_slice(row);
    Some(out)
}

/// `binary_row`: decodes a serialized BinaryRow (`[n][types][row]`) as the given types, renders every
/// value the way partitions are rendered, and probes the accessors at every position, out of range too.
pub fn binary_row(data: &[u8]) {
    let (types, row) = split_typed_row(data);
    let refs: Vec<&DataType> = types.iter().collect();
    if let Ok(datums) = decode_row(row, &refs) {
        for d in &datums {
            let _ = d.to_legacy_string();
            let _ = d.is_null();
        }
    }
    if let Ok(r) = BinaryRow::from_serialized(row) {
        let _ = r.header();
        for pos in 0..=r.arity().min(64) + 1 {
            let _ = r.is_null_at(pos);
            let _ = r.get_int(pos);
            let _ = r.get_long(pos);
            let _ = r.get_binary(pos);
            for t in &types {
                let _ = r.get(pos, t);
            }
        }
    }
}

/// `snapshot_json`: parses snapshot JSON; what parses must survive a round trip unchanged.
pub fn snapshot_json(data: &[u8]) {
    if let Ok(s) = Snapshot::parse(data) {
        let json = serde_json::to_vec(&s).expect("a parsed snapshot serializes");
        let again = Snapshot::parse(&json).expect("a serialized snapshot parses");
        assert_eq!(s, again, "snapshot JSON round trip");
    }
}

/// `schema_json`: parses a schema file, types its options, and maps its columns to Arrow; also parses the
/// bytes as a type string and as a JSON type.
pub fn schema_json(data: &[u8]) {
    if let Ok(s) = TableSchema::parse(data) {
        let _ = CoreOptions::from_map(&s.options);
        let _ = s.partition_fields();
        let _ = s.trimmed_primary_keys();
        let _ = native_reader::types::read_schema(&s.fields);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(t) = parse_atomic(text) {
            let _ = native_reader::types::arrow_type(&t);
        }
    }
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(data) {
        if let Ok(t) = parse_type(&v) {
            let _ = native_reader::types::arrow_type(&t);
        }
    }
}

/// Panics raised inside `orc-rust` (and contained by native-reader's unwind guard) so far.
pub static CONTAINED_ORC_PANICS: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(0);

/// `manifest`: the bytes as a manifest list, a manifest file and an index manifest (Avro or ORC).
///
/// `orc-rust` 0.9 asserts (panics) on some corrupt ORC footers that native-reader cannot check without
/// decoding them (for example a root type that is not a struct); native-reader's unwind guard turns those
/// into errors naming the file. This target therefore lets panics located in `orc-rust`'s sources unwind
/// to that guard (libFuzzer's hook would abort on them); every other panic still aborts and is a crash.
pub fn manifest(data: &[u8]) {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info
                .location()
                .is_some_and(|l| l.file().contains("orc-rust"))
            {
                CONTAINED_ORC_PANICS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                return;
            }
            previous(info)
        }));
    });
    let path = Path::new("fuzz-manifest");
    let _ = native_reader::manifest::manifest_list_from_bytes(path, data);
    let _ = native_reader::manifest::manifest_file_from_bytes(path, data);
    let _ = native_reader::manifest::index_manifest_from_bytes(path, data);
}

/// `deletion_vector`: the bytes as a deletion-vector record (starting at its size field), with the
/// recorded length of a 32-bit vector, of a 64-bit vector, and of the whole input; every vector that parses
/// is queried.
pub fn deletion_vector(data: &[u8]) {
    let size = data.get(..4).map_or(0, |b| {
        i64::from(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    });
    for length in [size, size + 8, data.len() as i64] {
        if let Ok(dv) = DeletionVector::parse(data, length) {
            let n = dv.cardinality();
            let max = dv.max_position();
            for p in [0, 1, 4095, 65_536, u64::from(u32::MAX), 1 << 40, u64::MAX] {
                let _ = dv.is_deleted(p);
            }
            let _ = dv.check_positions(0);
            let _ = dv.check_positions(i64::MAX);
            if let Some(max) = max {
                assert!(dv.is_deleted(max), "the largest position is deleted");
                assert!(n > 0);
            }
        }
    }
}

/// The separator of the string form of a `partition_path` input.
pub const SEPARATOR: u8 = 0;
/// A piece that stands for a NULL value in the string form.
pub const NULL_PIECE: &[u8] = &[0xFF];

/// `partition_path`: byte 0 holds flags (bit 0: `partition.legacy-name`, bit 1: row form).
///
/// * String form: the rest is pieces separated by [`SEPARATOR`]: the default partition name, then
///   name, value, name, value, ...; a value piece [`NULL_PIECE`] is NULL. Builds the partition path.
/// * Row form: the rest is a typed row (`[n][types][row]`) rendered by a `PartitionComputer` of `n`
///   partition columns.
pub fn partition_path_input(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let legacy = flags & 1 == 1;
    if flags & 2 == 0 {
        let pieces: Vec<&[u8]> = rest.split(|b| *b == SEPARATOR).collect();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let default_name = pieces.first().map_or(String::new(), |p| text(p));
        let pairs: Vec<(String, Option<String>)> = pieces[1.min(pieces.len())..]
            .chunks(2)
            .map(|c| {
                let value = c.get(1).filter(|v| **v != NULL_PIECE).map(|v| text(v));
                (text(c[0]), value)
            })
            .collect();
        for (name, value) in &pairs {
            let _ = escape_path_name(name);
            if let Some(v) = value {
                let escaped = escape_path_name(v);
                assert!(!escaped.contains('/'), "an escaped value holds no `/`");
            }
        }
        let spec: Vec<(&str, Option<&str>)> = pairs
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_deref()))
            .collect();
        if let Ok(path) = partition_path(&spec, &default_name) {
            assert_eq!(
                path.matches('/').count(),
                spec.len(),
                "one directory per partition key"
            );
        }
    } else {
        let (types, row) = split_typed_row(rest);
        let fields: Vec<DataField> = types
            .into_iter()
            .enumerate()
            .map(|(i, t)| DataField {
                id: i as i32,
                name: format!("p{i}"),
                data_type: t,
                default_value: None,
            })
            .collect();
        let computer = PartitionComputer::new(fields, "__DEFAULT_PARTITION__", legacy);
        let _ = computer.render(row, Path::new("fuzz-partition"));
    }
}
