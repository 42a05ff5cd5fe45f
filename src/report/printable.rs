//! Text from a file (node, clip and mesh names) made safe to print on a terminal: a name
//! holding ESC or another control character could otherwise recolour the screen, move the
//! cursor or retitle the window when a text report prints it. Each such character is
//! written as a visible escape instead; newlines and tabs, which lay the text out, pass.

use std::borrow::Cow;
use std::io::{self, Write};

/// `s` with every control character but newline and tab as a visible escape: C0 and DEL as
/// `\x1b`, C1 (U+0080 to U+009F, which some terminals obey as ESC sequences) as `\u{9b}`.
pub fn printable(s: &str) -> Cow<'_, str> {
    if !s.chars().any(escaped) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            c if !escaped(c) => out.push(c),
            c if u32::from(c) < 0x80 => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
        }
    }
    Cow::Owned(out)
}

fn escaped(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// A writer that passes text on through `printable`. A UTF-8 sequence split across two
/// writes is held until it is whole; bytes that are not UTF-8 pass as they are.
pub struct Printable<W: Write> {
    out: W,
    /// The start of a UTF-8 sequence the last write ended inside.
    pending: Vec<u8>,
}

impl<W: Write> Printable<W> {
    pub fn new(out: W) -> Self {
        Self { out, pending: Vec::new() }
    }

    /// Writes what is still held (an unfinished UTF-8 sequence, as it is) and hands back
    /// the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(&self.pending)?;
        Ok(self.out)
    }
}

impl<W: Write> Write for Printable<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let joined;
        let mut rest: &[u8] = if self.pending.is_empty() {
            buf
        } else {
            self.pending.extend_from_slice(buf);
            joined = std::mem::take(&mut self.pending);
            &joined
        };
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    self.out.write_all(printable(text).as_bytes())?;
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    let text = std::str::from_utf8(valid).map_err(io::Error::other)?;
                    self.out.write_all(printable(text).as_bytes())?;
                    match e.error_len() {
                        Some(n) => {
                            self.out.write_all(&after[..n])?;
                            rest = &after[n..];
                        }
                        None => {
                            self.pending = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_become_visible_and_layout_passes() {
        assert_eq!(printable("Hips"), "Hips");
        assert!(matches!(printable("Hips\tLeg\n"), Cow::Borrowed(_)));
        assert_eq!(printable("\u{1b}[31mred\u{7}"), "\\x1b[31mred\\x07");
        assert_eq!(printable("a\rb\u{7f}"), "a\\x0db\\x7f");
        assert_eq!(printable("csi\u{9b}2J ü"), "csi\\u{9b}2J ü");
    }

    #[test]
    fn the_writer_escapes_across_split_writes_and_keeps_other_bytes() {
        let text = "bone \u{1b}]0;title\u{7} \u{9b}31m é";
        let bytes = text.as_bytes();
        // Every split point, through the middle of the two-byte sequences too.
        for at in 0..=bytes.len() {
            let mut w = Printable::new(Vec::new());
            w.write_all(&bytes[..at]).unwrap();
            w.write_all(&bytes[at..]).unwrap();
            let out = String::from_utf8(w.finish().unwrap()).unwrap();
            assert_eq!(out, "bone \\x1b]0;title\\x07 \\u{9b}31m é", "split at {at}");
        }
        let mut w = Printable::new(Vec::new());
        w.write_all(b"not utf-8 \xff\x1b end \xc3").unwrap();
        assert_eq!(w.finish().unwrap(), b"not utf-8 \xff\\x1b end \xc3");
    }
}
