//! The binding rules a user switches on when names do not match exactly: `--bind loose`'s
//! ladder of ever looser name keys, and `--map FILE`'s plain name map.
//!
//! Each rule turns a node name into a key; a source node binds by the first rule under
//! which its key names exactly one character node (two would be a guess, so it binds by
//! none of the looser ones either).

use std::collections::HashMap;

/// A rule: the name reports give it, and the key it makes of a node name.
pub type Rule = (&'static str, fn(&str) -> String);

/// The loose rules, tightest first.
pub const LOOSE_RULES: [Rule; 3] = [
    ("prefix", strip_prefix),
    ("prefix+case", prefix_case),
    ("prefix+case+separators", prefix_case_separators),
];

/// Drops a namespace: Mixamo's `mixamorig:`, `mixamorig1:`, `mixamorig7:` (also with the
/// colon already removed, as three.js-based tools save them: `mixamorigHips`), and
/// anything up to the last `:` or `|` (Blender's `Armature|`).
pub fn strip_prefix(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("mixamorig") {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let mut cut = "mixamorig".len() + digits;
        if name[cut..].starts_with(':') {
            cut += 1;
        }
        if cut < name.len() {
            return name[cut..].to_string();
        }
    }
    match name.rfind([':', '|']) {
        Some(i) if i + 1 < name.len() => name[i + 1..].to_string(),
        _ => name.to_string(),
    }
}

fn prefix_case(name: &str) -> String {
    strip_prefix(name).to_lowercase()
}

/// Also without `_`, `.`, `:` and whitespace: `Left_Arm`, `left.arm`, `LeftArm` meet.
fn prefix_case_separators(name: &str) -> String {
    prefix_case(name).chars().filter(|c| !matches!(c, '_' | '.' | ':') && !c.is_whitespace()).collect()
}

/// `--map FILE`: source name -> character name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NameMap {
    /// The map's file as the user named it, for messages (empty when parsed from text alone).
    pub file: String,
    pub pairs: HashMap<String, String>,
    /// Every pair as the file gives it, with its line number (1-based), in order: the ones
    /// `pairs` keeps and the ones it does not.
    pub lines: Vec<MapLine>,
    /// Lines that say again what an earlier line said otherwise, in words naming both lines.
    pub conflicts: Vec<String>,
}

/// One `SOURCE TARGET` line of a map.
#[derive(Debug, Clone, PartialEq)]
pub struct MapLine {
    pub line: usize,
    pub from: String,
    pub to: String,
}

impl NameMap {
    /// One pair a line, `SOURCE TARGET`. A name holding spaces or `#` is written in double
    /// quotes (`"Left Arm" "upper arm #2"`, with `\"` and `\\` for a quote and a backslash
    /// inside); without quotes the two names are separated by a tab when the line has one (so
    /// names may hold spaces), else by whitespace. `#` outside quotes starts a comment; blank
    /// lines are skipped; a byte order mark opening the file is not part of the first name.
    /// A source given again keeps its first line's target (the later line is a conflict);
    /// several sources may share a target (names from several libraries). The error names
    /// the line.
    pub fn parse(text: &str) -> Result<NameMap, String> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut map = NameMap::default();
        // Each source's first line, so that a long map is read in linear time.
        let mut first_line: HashMap<String, usize> = HashMap::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let fields = fields(raw).map_err(|why| format!("line {line}: {why}"))?;
            let (from, to) = match fields.as_slice() {
                [] => continue,
                [from, to] => (from.clone(), to.clone()),
                _ => {
                    return Err(format!(
                        "line {line}: expected two names (SOURCE TARGET; quote a name that holds spaces or #: \"Left Arm\"), found {}",
                        fields.len()
                    ));
                }
            };
            if let Some(first) = first_line.get(&from).map(|&k| &map.lines[k]) {
                if first.to != to {
                    map.conflicts.push(format!(
                        "line {line} maps '{from}' to '{to}', but line {} already maps it to '{}'; line {} is kept",
                        first.line, first.to, first.line
                    ));
                }
            } else {
                first_line.insert(from.clone(), map.lines.len());
                map.pairs.insert(from.clone(), to.clone());
            }
            map.lines.push(MapLine { line, from, to });
        }
        Ok(map)
    }
}

/// The names on one map line: quoted or bare, up to a comment.
fn fields(raw: &str) -> Result<Vec<String>, String> {
    if !raw.contains('"') {
        let line = raw.split('#').next().unwrap_or("").trim();
        return Ok(if line.contains('\t') {
            line.split('\t').map(str::trim).filter(|f| !f.is_empty()).map(String::from).collect()
        } else {
            line.split_whitespace().map(String::from).collect()
        });
    }
    let mut out = Vec::new();
    let mut chars = raw.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '#' {
            break;
        } else if c == '"' {
            chars.next();
            let mut name = String::new();
            loop {
                match chars.next() {
                    None => return Err("a quoted name is not closed (\")".to_string()),
                    Some('"') => break,
                    Some('\\') => match chars.next() {
                        Some(e @ ('"' | '\\')) => name.push(e),
                        _ => return Err("inside quotes, \\ is followed by \" or \\ only".to_string()),
                    },
                    Some(other) => name.push(other),
                }
            }
            out.push(name);
        } else {
            let mut name = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() || c == '#' || c == '"' {
                    break;
                }
                name.push(c);
                chars.next();
            }
            out.push(name);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_go_whatever_the_namespace() {
        assert_eq!(strip_prefix("mixamorig:Hips"), "Hips");
        assert_eq!(strip_prefix("mixamorig1:Hips"), "Hips");
        assert_eq!(strip_prefix("mixamorig7:LeftArm"), "LeftArm");
        assert_eq!(strip_prefix("mixamorigHips"), "Hips");
        assert_eq!(strip_prefix("Armature|spine"), "spine");
        assert_eq!(strip_prefix("Hips"), "Hips");
        assert_eq!(strip_prefix("mixamorig"), "mixamorig");
        assert_eq!(prefix_case_separators("mixamorig:Left_Up Leg.x"), "leftuplegx");
    }

    #[test]
    fn a_map_takes_two_columns_and_comments() {
        let map = NameMap::parse("# bones\nmixamorig:Hips hips # root\n\nLeft Arm\tupper_arm.L\n").unwrap();
        assert_eq!(map.pairs.len(), 2);
        assert_eq!(map.pairs["mixamorig:Hips"], "hips");
        assert_eq!(map.pairs["Left Arm"], "upper_arm.L");
        let bad = NameMap::parse("a b\nc\n").unwrap_err();
        assert!(bad.starts_with("line 2:"), "{bad}");
    }

    #[test]
    fn quotes_hold_spaces_and_hashes_and_conflicts_name_their_lines() {
        let text = "\u{feff}Hips hips\n\"Left Arm #2\" \"upper \\\"arm\\\" \\\\L\" # quoted\nHips pelvis\nSpine hips\n";
        let map = NameMap::parse(text).unwrap();
        assert_eq!(map.pairs.len(), 3);
        // The byte order mark is not part of the first name.
        assert_eq!(map.pairs["Hips"], "hips");
        assert_eq!(map.pairs["Spine"], "hips");
        assert_eq!(map.pairs["Left Arm #2"], "upper \"arm\" \\L");
        assert_eq!(
            map.conflicts,
            ["line 3 maps 'Hips' to 'pelvis', but line 1 already maps it to 'hips'; line 1 is kept"]
        );
        assert_eq!(map.lines.iter().map(|l| l.line).collect::<Vec<_>>(), [1, 2, 3, 4]);
        assert!(NameMap::parse("\"open b\n").unwrap_err().starts_with("line 1: a quoted name is not closed"));
    }
}
