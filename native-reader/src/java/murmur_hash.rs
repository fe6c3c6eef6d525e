//! Paimon's `org.apache.paimon.utils.MurmurHashUtils` (MurmurHash3 x86 32-bit, seed 42; `MemorySegmentUtils.hash`
//! calls it), whose values decide Java hash orders the native reader reproduces: `BinaryString.hashCode()`
//! (`hashBytes`) and `BinaryRow.hashCode()` (`hashBytesByWords`).

/// The seed `MurmurHashUtils` uses (`DEFAULT_SEED`).
const SEED: u32 = 42;

fn mix_k1(k: u32) -> u32 {
    k.wrapping_mul(0xcc9e_2d51)
        .rotate_left(15)
        .wrapping_mul(0x1b87_3593)
}

fn mix_h1(h: u32, k: u32) -> u32 {
    (h ^ k)
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xe654_6b64)
}

fn fmix(h: u32, length: usize) -> i32 {
    let mut h = h ^ length as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h as i32
}

/// `MurmurHashUtils.hashBytes`: 4-byte little-endian words (as `MemorySegment.getInt` reads them on x86),
/// then each remaining byte as a signed byte, then `fmix(h ^ length)`.
pub(crate) fn hash_bytes(bytes: &[u8]) -> i32 {
    let aligned = bytes.len() - bytes.len() % 4;
    let mut h = SEED;
    for w in bytes[..aligned].chunks_exact(4) {
        h = mix_h1(h, mix_k1(u32::from_le_bytes([w[0], w[1], w[2], w[3]])));
    }
    for &b in &bytes[aligned..] {
        h = mix_h1(h, mix_k1(b as i8 as i32 as u32));
    }
    fmix(h, bytes.len())
}

/// `MurmurHashUtils.hashBytesByWords`: 4-byte little-endian words only (the length is a multiple of 4, as
/// every `BinaryRow`'s is), then `fmix(h ^ length)`.
pub(crate) fn hash_bytes_by_words(bytes: &[u8]) -> i32 {
    let mut h = SEED;
    for w in bytes.chunks_exact(4) {
        h = mix_h1(h, mix_k1(u32::from_le_bytes([w[0], w[1], w[2], w[3]])));
    }
    fmix(h, bytes.len())
}
