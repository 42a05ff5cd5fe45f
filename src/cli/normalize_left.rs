//! `normalize`'s closing lines: every error or warning still in the repaired copy, with why
//! normalize leaves it (it rewrites only JOINTS_n/WEIGHTS_n), and the option that would help
//! when an engine still draws vertices elsewhere.

use crate::diagnose::Report;
use crate::diagnose::codes;
use crate::rig::Severity;

/// What a code that normalize does not repair is about, in a few words.
fn subject(code: &str) -> &'static str {
    match code {
        "SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE" => "the inverse bind matrices' layout",
        "ACCESSOR_INVALID_IBM" | "INVALID_IBM_ACCESSOR_COUNT" | "RIG_IBM_EXTRA_MATRICES" => {
            "the inverse bind matrices"
        }
        "SKIN_NO_COMMON_ROOT" | "SKIN_SKELETON_INVALID" | "SKIN_JOINT_DUPLICATE" => "the skin's joint list",
        c if c.starts_with("NODE_") || c == "SCENE_NON_ROOT_NODE" || c == "RIG_NODE_TRANSFORM_NOT_FINITE" => {
            "the node hierarchy"
        }
        c if c.contains("ANIMATION") || c.starts_with("RIG_ROTATION_") => "the clips' keys",
        c if c.starts_with("RIG_VRM_") => "the VRM humanoid mapping",
        "UNDECLARED_EXTENSION" => "the extensions the file declares",
        _ => "not the skin weights",
    }
}

/// Codes whose findings are about weights: normalize repairs them, unless the primitive was
/// left as is (a note says why) or an option keeps them.
const WEIGHT_CODES: &[&str] = &[
    codes::JOINTS_INDEX_OOB.id,
    codes::JOINTS_INDEX_DUPLICATE.id,
    codes::WEIGHTS_NEGATIVE.id,
    codes::WEIGHTS_NON_NORMALIZED.id,
    codes::JOINTS_USED_ZERO_WEIGHT.id,
    codes::INVALID_FLOAT.id,
];

/// The closing lines for `after`, the repaired copy's report; `max_influences` is the
/// option as given.
pub fn closing(after: &Report, max_influences: Option<usize>) -> Vec<String> {
    let mut lines = Vec::new();
    let serious = after.severities.iter().filter(|((_, s), n)| *s != Severity::Info && **n > 0);
    let mut failing: Vec<(&str, usize)> = Vec::new();
    for ((code, _), &n) in serious {
        match failing.iter_mut().find(|(c, _)| c == code) {
            Some((_, total)) => *total += n,
            None => failing.push((code, n)),
        }
    }
    let mut not_weights = false;
    for &(code, n) in &failing {
        let why = if code == codes::MORE_THAN_4_INFLUENCES.id {
            match max_influences {
                None => "vertices keep every influence, as stored; --max-influences N keeps the N largest"
                    .to_string(),
                Some(k) => format!("--max-influences {k} keeps more than 4"),
            }
        } else if WEIGHT_CODES.contains(&code) {
            "in primitives normalize left as is (see the notes)".to_string()
        } else {
            not_weights = true;
            format!("{}, which normalize does not change; re-export", subject(code))
        };
        lines.push(format!("still failing: {code} ({n}): {why}"));
    }
    if not_weights {
        lines.push(
            "(normalize rewrites only JOINTS_n/WEIGHTS_n; `check --explain CODE` says more)".to_string(),
        );
    }
    // Engines that read 4 influences still draw the vertices with more elsewhere.
    let four_would_help = max_influences.is_none_or(|k| k > 4);
    let moved: Vec<_> = after.consequences.engines.iter().filter(|e| e.moved + e.vanished > 0).collect();
    let vertices = moved.iter().map(|e| e.moved + e.vanished).max().unwrap_or(0);
    if four_would_help
        && failing.iter().any(|(c, _)| *c == codes::MORE_THAN_4_INFLUENCES.id)
        && !moved.is_empty()
    {
        let who = match moved.len() {
            1 => moved[0].label.to_string(),
            n => format!(
                "{} and {} other {}",
                moved[0].label,
                n - 1,
                if n == 2 { "engine" } else { "engines" }
            ),
        };
        lines.push(format!(
            "try: --max-influences 4: {who} still {} {} elsewhere, dropping weight past 4 influences",
            if moved.len() == 1 { "draws" } else { "draw" },
            crate::report::count(vertices, "vertex", "vertices")
        ));
    }
    if lines.is_empty() {
        lines.push("passes: no error or warning is left".to_string());
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::Engine;
    use crate::diagnose::EngineSummary;

    fn report(codes: &[(&'static str, Severity, usize)], moved: &[(Engine, usize)]) -> Report {
        let mut r = Report::default();
        for &(c, s, n) in codes {
            r.severities.insert((c, s), n);
            r.counts.insert(c, n);
        }
        for &(engine, n) in moved {
            r.consequences.engines.push(EngineSummary {
                engine,
                label: engine.label(),
                moved: n,
                vanished: 0,
                refuses: None,
                worst: None,
            });
        }
        r
    }

    #[test]
    fn what_is_left_is_named_with_why_and_the_option_that_helps() {
        let after = report(
            &[
                ("SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE", Severity::Error, 1),
                ("RIG_MORE_THAN_4_INFLUENCES", Severity::Warning, 3),
                ("RIG_JOINT_UNUSED", Severity::Info, 2),
            ],
            &[(Engine::Three, 3), (Engine::Babylon, 0), (Engine::Godot, 1)],
        );
        let lines = closing(&after, None);
        assert_eq!(
            lines,
            vec![
                "still failing: RIG_MORE_THAN_4_INFLUENCES (3): vertices keep every influence, as stored; --max-influences N keeps the N largest",
                "still failing: SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE (1): the inverse bind matrices' layout, which normalize does not change; re-export",
                "(normalize rewrites only JOINTS_n/WEIGHTS_n; `check --explain CODE` says more)",
                "try: --max-influences 4: three.js r187 and 1 other engine still draw 3 vertices elsewhere, dropping weight past 4 influences",
            ]
        );
        // With 4 or fewer asked for, no advice; with more than 4, the same advice.
        assert!(!closing(&after, Some(4)).iter().any(|l| l.starts_with("try:")));
        assert!(closing(&after, Some(8)).iter().any(|l| l.starts_with("try: --max-influences 4")));
        assert_eq!(
            closing(&report(&[("RIG_JOINT_UNUSED", Severity::Info, 2)], &[]), None),
            vec!["passes: no error or warning is left"]
        );
    }
}
