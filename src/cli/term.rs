//! What the terminal named by `TERM` can show, for the viewer's defaults. Pure: the caller
//! reads the environment and passes the values in, so tests need not change it.
//!
//! `TERM=dumb` (Emacs' shell, some CI logs) moves no cursor: the full screen would print as
//! garbage, so the viewer refuses it. The Linux console (`TERM=linux`) has no braille in its
//! font and 16 colours; it gets ASCII and the 16 system colours unless the user asks for
//! others.

use crate::render::{ColorDepth, GlyphMode};

/// The viewer's defaults for one terminal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TermDefaults {
    pub mode: GlyphMode,
    pub color: ColorDepth,
}

/// The terminal cannot host the viewer: what to say.
pub fn refusal(term: Option<&str>) -> Option<String> {
    (term == Some("dumb")).then(|| {
        "TERM=dumb: this terminal cannot draw the full-screen viewer; \
         `rigscope render FILE` prints a frame as text (and `rigscope inspect FILE` a summary)"
            .to_string()
    })
}

/// Glyphs and colours for `TERM` and `COLORTERM` (24-bit when COLORTERM says so, else 256).
pub fn defaults(term: Option<&str>, colorterm: Option<&str>) -> TermDefaults {
    let linux_console = term == Some("linux");
    let color = match colorterm {
        _ if linux_console => ColorDepth::Ansi16,
        Some(v) if v.contains("truecolor") || v.contains("24bit") => ColorDepth::TrueColor,
        _ => ColorDepth::Ansi256,
    };
    TermDefaults { mode: if linux_console { GlyphMode::Ascii } else { GlyphMode::Braille }, color }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dumb_is_refused_with_a_pointer_to_render() {
        let why = refusal(Some("dumb")).expect("refused");
        assert!(why.contains("rigscope render FILE"), "{why}");
        assert_eq!(refusal(Some("xterm-256color")), None);
        assert_eq!(refusal(Some("linux")), None);
        assert_eq!(refusal(None), None);
    }

    #[test]
    fn the_linux_console_gets_ascii_and_16_colours() {
        let linux = defaults(Some("linux"), None);
        assert_eq!(linux, TermDefaults { mode: GlyphMode::Ascii, color: ColorDepth::Ansi16 });
        // A COLORTERM inherited over SSH does not give the console's font braille or 24 bits.
        assert_eq!(defaults(Some("linux"), Some("truecolor")), linux);
        let xterm = defaults(Some("xterm-256color"), Some("truecolor"));
        assert_eq!(xterm, TermDefaults { mode: GlyphMode::Braille, color: ColorDepth::TrueColor });
        assert_eq!(defaults(Some("screen"), None).color, ColorDepth::Ansi256);
    }
}
