//! The kind of change a row carries (`org.apache.paimon.types.RowKind`).
//!
//! Every batch either reader returns starts with `_row_kind` Int8, holding [`RowKind::to_byte`]; primary-key
//! files store the same byte in `_VALUE_KIND`. This one enum is what the merge, the diff, the corpus writer and
//! the bridge speak.

use std::fmt;
use std::str::FromStr;

/// A row's change kind, with the byte values of `org.apache.paimon.types.RowKind#toByteValue`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(i8)]
pub enum RowKind {
    /// `+I`: insertion (byte 0).
    Insert = 0,
    /// `-U`: the row before an update (byte 1).
    UpdateBefore = 1,
    /// `+U`: the row after an update (byte 2).
    UpdateAfter = 2,
    /// `-D`: deletion (byte 3).
    Delete = 3,
}

impl RowKind {
    /// Every kind in byte order: `+I`, `-U`, `+U`, `-D` (the order of per-kind row counts `[u64; 4]`).
    pub const ALL: [RowKind; 4] = [
        RowKind::Insert,
        RowKind::UpdateBefore,
        RowKind::UpdateAfter,
        RowKind::Delete,
    ];

    /// The stored byte (`RowKind#toByteValue`): 0 to 3.
    pub const fn to_byte(self) -> i8 {
        self as i8
    }

    /// The kind of a stored byte (`RowKind#fromByteValue`); `None` for any byte other than 0 to 3.
    pub const fn from_byte(byte: i8) -> Option<RowKind> {
        match byte {
            0 => Some(RowKind::Insert),
            1 => Some(RowKind::UpdateBefore),
            2 => Some(RowKind::UpdateAfter),
            3 => Some(RowKind::Delete),
            _ => None,
        }
    }

    /// The short string Paimon prints (`RowKind#shortString`): `+I`, `-U`, `+U` or `-D`.
    pub const fn short_string(self) -> &'static str {
        match self {
            RowKind::Insert => "+I",
            RowKind::UpdateBefore => "-U",
            RowKind::UpdateAfter => "+U",
            RowKind::Delete => "-D",
        }
    }

    /// Whether the row adds its value (`+I`, `+U`) rather than retracting it (`-U`, `-D`)
    /// (`RowKind#isAdd`).
    pub const fn is_add(self) -> bool {
        matches!(self, RowKind::Insert | RowKind::UpdateAfter)
    }

    /// Whether the row retracts its value (`-U`, `-D`) (`RowKind#isRetract`).
    pub const fn is_retract(self) -> bool {
        !self.is_add()
    }

    /// The index of this kind in a per-kind count array `[+I, -U, +U, -D]`.
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for RowKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short_string())
    }
}

/// A string that is not one of `+I`, `-U`, `+U`, `-D`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a RowKind: {0:?} (expected +I, -U, +U or -D)")]
pub struct ParseRowKindError(pub String);

impl FromStr for RowKind {
    type Err = ParseRowKindError;

    /// Parses the short string (`RowKind#fromShortString`).
    fn from_str(s: &str) -> Result<RowKind, ParseRowKindError> {
        RowKind::ALL
            .into_iter()
            .find(|k| k.short_string() == s)
            .ok_or_else(|| ParseRowKindError(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_and_short_strings_match_paimon() {
        // org.apache.paimon.types.RowKind: INSERT("+I", 0), UPDATE_BEFORE("-U", 1), UPDATE_AFTER("+U", 2),
        // DELETE("-D", 3).
        let expected = [("+I", 0), ("-U", 1), ("+U", 2), ("-D", 3)];
        for (kind, (s, b)) in RowKind::ALL.into_iter().zip(expected) {
            assert_eq!(kind.short_string(), s);
            assert_eq!(kind.to_byte(), b);
            assert_eq!(RowKind::from_byte(b), Some(kind));
            assert_eq!(s.parse::<RowKind>(), Ok(kind));
        }
        assert_eq!(RowKind::from_byte(4), None);
        assert_eq!(RowKind::from_byte(-1), None);
        assert!("+X".parse::<RowKind>().is_err());
        assert!(RowKind::Insert.is_add() && RowKind::UpdateAfter.is_add());
        assert!(RowKind::UpdateBefore.is_retract() && RowKind::Delete.is_retract());
    }
}
