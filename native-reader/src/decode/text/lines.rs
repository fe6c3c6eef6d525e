//! The lines of a text data file as paimon-format's `TextLineReader` cuts them (2.0.0).
//!
//! * A line delimiter of `\n`, `\r\n` or `\r` (the default `\n` included) selects `StandardLineReader`: a
//!   line ends at `\n`, `\r` or `\r\n`, whichever the file holds; a UTF-8 byte order mark at the file's start
//!   is skipped; an empty line inside the file is a line, the empty rest after the last terminator is none.
//! * Any other delimiter selects `CustomLineReader`: the bytes are matched against the delimiter one at a
//!   time, a mismatch restarting the match only at the current byte (not a full substring search, so some
//!   overlapping delimiters are missed as Java misses them); there is no byte order mark handling, and the
//!   rest after the last delimiter is a line when it is not empty.
//!
//! Both decode a line as UTF-8 with malformed bytes replaced (Java's `new String(bytes, UTF_8)`).

/// Iterator over the lines of a decompressed file (`TextLineReader.readLine` until it returns null).
pub(super) struct Lines<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// `None`: the standard reader; `Some(d)`: the custom reader with delimiter `d` (non-empty).
    custom: Option<Vec<u8>>,
}

impl<'a> Lines<'a> {
    /// The lines of `bytes` cut at `delimiter` (the format's `line-delimiter` option).
    pub(super) fn new(bytes: &'a [u8], delimiter: &str) -> Lines<'a> {
        let standard = matches!(delimiter, "\n" | "\r\n" | "\r");
        let mut pos = 0;
        if standard && bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
            pos = 3;
        }
        Lines {
            bytes,
            pos,
            custom: (!standard).then(|| delimiter.as_bytes().to_vec()),
        }
    }

    /// Continues at byte `pos` (a [`Lines::position`] of an earlier pass over the same bytes; 0 keeps the
    /// byte order mark skipped).
    pub(super) fn seek(&mut self, pos: usize) {
        if pos > 0 {
            self.pos = pos;
        }
    }

    /// The byte offset of the next line.
    pub(super) fn position(&self) -> usize {
        self.pos
    }

    fn next_standard(&mut self) -> Option<&'a [u8]> {
        let rest = &self.bytes[self.pos..];
        match rest.iter().position(|b| *b == b'\n' || *b == b'\r') {
            Some(end) => {
                let line = &rest[..end];
                let mut skip = end + 1;
                if rest[end] == b'\r' && rest.get(end + 1) == Some(&b'\n') {
                    skip += 1;
                }
                self.pos += skip;
                Some(line)
            }
            None => {
                self.pos = self.bytes.len();
                (!rest.is_empty()).then_some(rest)
            }
        }
    }

    fn next_custom(&mut self, delimiter: &[u8]) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let mut matched = 0;
        loop {
            let Some(&current) = self.bytes.get(self.pos) else {
                out.extend_from_slice(&delimiter[..matched]);
                return (!out.is_empty()).then_some(out);
            };
            self.pos += 1;
            if current == delimiter[matched] {
                matched += 1;
                if matched == delimiter.len() {
                    return Some(out);
                }
            } else if matched > 0 {
                out.extend_from_slice(&delimiter[..matched]);
                if current == delimiter[0] {
                    matched = 1;
                } else {
                    out.push(current);
                    matched = 0;
                }
            } else {
                out.push(current);
            }
        }
    }
}

impl Iterator for Lines<'_> {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        match self.custom.take() {
            None => self
                .next_standard()
                .map(|l| String::from_utf8_lossy(l).into_owned()),
            Some(delimiter) => {
                let line = self.next_custom(&delimiter);
                self.custom = Some(delimiter);
                line.map(|l| String::from_utf8_lossy(&l).into_owned())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Lines;

    fn lines(bytes: &[u8], delimiter: &str) -> Vec<String> {
        Lines::new(bytes, delimiter).collect()
    }

    #[test]
    fn standard_lines_end_at_any_terminator() {
        assert_eq!(
            lines(b"\xEF\xBB\xBFa\r\nb\rc\n\nd", "\n"),
            ["a", "b", "c", "", "d"]
        );
        assert_eq!(lines(b"a\n", "\r\n"), ["a"]);
        assert_eq!(lines(b"", "\n"), Vec::<String>::new());
        assert_eq!(lines(b"\n", "\n"), [""]);
    }

    #[test]
    fn custom_delimiters_match_byte_by_byte() {
        assert_eq!(lines(b"a||b||", "||"), ["a", "b"]);
        assert_eq!(lines(b"a||||b|", "||"), ["a", "", "b|"]);
        // Java's restart misses the delimiter `aab` in `aaab`: the third `a` breaks the match of `aa` and
        // restarts it with one byte matched, which `b` then breaks too.
        assert_eq!(lines(b"xaaab", "aab"), ["xaaab"]);
        assert_eq!(lines(b"\xEF\xBB\xBFz;", ";"), ["\u{FEFF}z"]);
    }
}
