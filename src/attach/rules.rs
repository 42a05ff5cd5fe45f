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
    pub pairs: HashMap<String, String>,
}

impl NameMap {
    /// One pair a line, `SOURCE TARGET`: separated by a tab when the line has one (so names
    /// may hold spaces), else by whitespace. `#` starts a comment; blank lines are skipped.
    /// The error names the line.
    pub fn parse(text: &str) -> Result<NameMap, String> {
        let mut pairs = HashMap::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = if line.contains('\t') {
                line.split('\t').map(str::trim).filter(|f| !f.is_empty()).collect()
            } else {
                line.split_whitespace().collect()
            };
            match fields.as_slice() {
                [from, to] => {
                    pairs.insert(from.to_string(), to.to_string());
                }
                _ => {
                    return Err(format!(
                        "line {}: expected two names (SOURCE TARGET, tab-separated if they hold spaces), found {}",
                        i + 1,
                        fields.len()
                    ));
                }
            }
        }
        Ok(NameMap { pairs })
    }
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
}
