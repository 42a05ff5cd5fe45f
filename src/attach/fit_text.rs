//! `rigscope fit`'s report for people. By default it scales with the library: one header per
//! library with its totals, then `fit`'s sentences, which already say once what repeats across
//! clips; `--tracks` adds every clip's tracks, the rest-pose table and the full joint list.

use crate::report::inspect::plural_n;
use std::io::{self, Write};

use super::fit::{FitReport, JointRest, LibraryFit, REST_ANGLE_SHOWN_DEGREES, list};

/// How much of the report to write.
#[derive(Debug, Clone, Copy, Default)]
pub struct TextOptions {
    /// Every clip's tracks, the rest table and every unanimated joint (`--tracks`).
    pub tracks: bool,
}

/// The report for people.
pub fn write_text(report: &FitReport, options: TextOptions, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{}", report.character)?;
    for problem in &report.character_problems {
        writeln!(out, "  - {problem}")?;
    }
    for line in &report.map_lines {
        writeln!(out, "  ! warning: {line}")?;
    }
    for lib in &report.libraries {
        write_library(lib, options, out)?;
    }
    if !report.unanimated_joints.is_empty() {
        let max = if options.tracks { usize::MAX } else { 10 };
        writeln!(
            out,
            "\ncharacter joints no clip animates ({}): {}",
            report.unanimated_joints.len(),
            list(&report.unanimated_joints, max)
        )?;
    }
    let notes = match report.notes {
        0 => String::new(),
        1 => " (1 note)".to_string(),
        n => format!(" ({n} notes)"),
    };
    match report.problems {
        0 => writeln!(out, "\nfits: no problems{notes}"),
        1 => writeln!(out, "\n1 problem{notes}"),
        n => writeln!(out, "\n{n} problems{notes}"),
    }
}

fn write_library(lib: &LibraryFit, options: TextOptions, out: &mut dyn Write) -> io::Result<()> {
    let clips = lib.clips.len();
    let vrm = lib.clips.iter().any(|c| c.vrm.is_some());
    if vrm || clips == 0 {
        writeln!(out, "\nwith {}: {}", lib.file, plural_n(clips, "clip"))?;
    } else {
        let bound: usize = lib.clips.iter().map(|c| c.bound.len()).sum();
        let total: usize = lib.clips.iter().map(|c| c.bound.len() + c.unbound.len()).sum();
        let how = by_how(lib.clips.iter().flat_map(|c| c.bound.iter().map(|b| b.how.as_str())));
        writeln!(
            out,
            "\nwith {}: {}, {bound} of {} bind{how}",
            lib.file,
            plural_n(clips, "clip"),
            plural_n(total, "track")
        )?;
    }
    for w in &lib.warnings {
        writeln!(out, "  ! warning: {w}")?;
    }
    if options.tracks {
        write_tracks(lib, out)?;
    } else {
        // A .vrma binds through the humanoid: how much binds is its one line per clip.
        for clip in &lib.clips {
            if let Some(c) = &clip.vrm {
                writeln!(out, "  clip {}: {}", clip.name, c.describe())?;
            }
        }
    }
    for line in &lib.summary {
        writeln!(out, "  - {line}")?;
    }
    Ok(())
}

/// Per clip: how many tracks bind and how, every track bound by a rule or the map, every
/// track that binds to nothing; then the rest table and the translation ratio.
fn write_tracks(lib: &LibraryFit, out: &mut dyn Write) -> io::Result<()> {
    for clip in &lib.clips {
        if let Some(c) = &clip.vrm {
            writeln!(out, "  clip {}: {}", clip.name, c.describe())?;
            for line in &clip.summary {
                writeln!(out, "    {line}")?;
            }
            continue;
        }
        writeln!(
            out,
            "  clip {}: {} of {} bind{}",
            clip.name,
            clip.bound.len(),
            plural_n(clip.bound.len() + clip.unbound.len(), "track"),
            by_how(clip.bound.iter().map(|b| b.how.as_str()))
        )?;
        for b in clip.bound.iter().filter(|b| b.how != "exact") {
            writeln!(out, "    {} -> {} by {}", b.track, b.node, b.how)?;
        }
        for u in &clip.unbound {
            writeln!(out, "    {u}: no target node")?;
        }
        if let Some(m) = &clip.root_motion {
            writeln!(out, "    {}", m.describe())?;
        }
    }
    let shown: Vec<&JointRest> =
        lib.rest.iter().filter(|r| r.rotation_degrees >= REST_ANGLE_SHOWN_DEGREES).collect();
    if !shown.is_empty() {
        writeln!(out, "  rest poses differ:")?;
        for r in shown {
            let ratio = r.translation_ratio.map_or(String::new(), |x| format!(", translation x{x:.3}"));
            writeln!(out, "    {:<24} {:>6.1}°{ratio}", r.joint, r.rotation_degrees)?;
        }
    }
    if let Some(s) = lib.translation_scale {
        writeln!(out, "  translations: library/character about x{s:.3}")?;
    }
    Ok(())
}

/// " (40 exact, 2 map)": how the bound tracks bound, in the order first met.
fn by_how<'a>(hows: impl Iterator<Item = &'a str>) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for h in hows {
        match counts.iter_mut().find(|(x, _)| *x == h) {
            Some((_, n)) => *n += 1,
            None => counts.push((h, 1)),
        }
    }
    if counts.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = counts.iter().map(|(h, n)| format!("{n} {h}")).collect();
    format!(" ({})", parts.join(", "))
}
