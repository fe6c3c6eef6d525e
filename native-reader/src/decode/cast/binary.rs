//! BINARY/VARBINARY targets (`BinaryToBinaryCastRule`, `StringToBinaryCastRule`).

use crate::schema::TypeKind;

/// `BinaryStringUtils.toBinaryString`: BINARY(n) targets padded with zero bytes or cut to `n`, VARBINARY(n)
/// targets cut to `n`.
pub(super) fn to_binary(mut b: Vec<u8>, t: &TypeKind) -> Vec<u8> {
    match t {
        TypeKind::Binary(n) => b.resize(*n as usize, 0),
        TypeKind::VarBinary(n) => b.truncate(*n as usize),
        _ => {}
    }
    b
}
