//! The one-line prompts at the bottom of the screen (`:` go to a time or frame, `#` go to
//! a skin, `M` name the file for the `--anim` clips): what is being typed, and what the text
//! means once Enter is pressed.

use super::action::PromptKind;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub text: String,
}

impl Prompt {
    pub fn new(kind: PromptKind) -> Prompt {
        Prompt { kind, text: String::new() }
    }

    /// What the status line shows before the typed text.
    pub fn label(&self) -> &'static str {
        match self.kind {
            PromptKind::Time => "go to (seconds, or frame as 12f): ",
            PromptKind::Skin => "go to skin (1, 2, ... or #0, #1, ... as inspect lists them): ",
            PromptKind::Merge => "write the character and its --anim clips beside it as (.glb or .gltf): ",
        }
    }
}

/// Where a go-to prompt's text points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    Seconds(f32),
    Frame(i64),
}

/// "0.5", "0.5s" -> seconds; "12f", "f12" -> frame 12. Anything else says what it expected.
pub fn parse_target(text: &str) -> Result<Target, String> {
    let t = text.trim().to_ascii_lowercase();
    // "inf" ends in f but is no frame: it is an infinite time, refused below as a time.
    let frame = if t.ends_with("inf") { None } else { t.strip_suffix('f').or_else(|| t.strip_prefix('f')) };
    if let Some(n) = frame {
        return match n.trim().parse::<i64>() {
            Ok(n) => Ok(Target::Frame(n)),
            Err(_) => Err(format!("'{text}' is not a frame number (12f is frame 12)")),
        };
    }
    let secs = t.strip_suffix('s').unwrap_or(&t).trim();
    match secs.parse::<f32>() {
        Ok(s) if s.is_finite() => Ok(Target::Seconds(s)),
        _ => Err(format!("'{text}' is not a time (0.5 is 0.5 s, 12f is frame 12)")),
    }
}

/// "3" -> skin index 2 (counting from 1, as the tree's title does); "#2" -> index 2 (the
/// file's own index, as `rigscope inspect` lists skins).
pub fn parse_skin(text: &str, skins: usize) -> Result<usize, String> {
    let text = text.trim();
    let index = match text.strip_prefix('#') {
        Some(i) => i.trim().parse::<usize>().ok().filter(|&i| i < skins),
        None => text.parse::<usize>().ok().filter(|n| (1..=skins).contains(n)).map(|n| n - 1),
    };
    index.ok_or_else(|| {
        format!(
            "'{text}' is not a skin: this file has skins 1 to {skins} (#0 to #{} as inspect lists them)",
            skins.saturating_sub(1)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skins_count_from_one_or_go_by_the_files_index() {
        assert_eq!(parse_skin("1", 2), Ok(0));
        assert_eq!(parse_skin("#0", 2), Ok(0));
        assert_eq!(parse_skin(" #1 ", 2), Ok(1));
        assert!(parse_skin("0", 2).unwrap_err().contains("skins 1 to 2 (#0 to #1 as inspect lists them)"));
        assert!(parse_skin("#2", 2).is_err());
        assert!(parse_skin("3", 2).is_err());
    }

    #[test]
    fn times_and_frames_parse() {
        assert_eq!(parse_target("0.5"), Ok(Target::Seconds(0.5)));
        assert_eq!(parse_target(" 1.25s "), Ok(Target::Seconds(1.25)));
        assert_eq!(parse_target("12f"), Ok(Target::Frame(12)));
        assert_eq!(parse_target("F7"), Ok(Target::Frame(7)));
        assert!(parse_target("abc").unwrap_err().contains("'abc' is not a time"));
        assert!(parse_target("1.5f").unwrap_err().contains("not a frame number"));
        assert!(parse_target("inf").unwrap_err().contains("'inf' is not a time"));
        assert!(parse_target("-inf").unwrap_err().contains("is not a time"));
        assert!(parse_target("nan").is_err());
        assert!(parse_target("").is_err());
    }

    #[test]
    fn skins_count_from_one() {
        assert_eq!(parse_skin("1", 84), Ok(0));
        assert_eq!(parse_skin("84", 84), Ok(83));
        assert!(parse_skin("85", 84).unwrap_err().contains("skins 1 to 84"));
        assert!(parse_skin("0", 84).is_err());
    }
}
