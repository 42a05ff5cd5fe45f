//! The merge report for people: per library the clips written (and renamed), the tracks bound
//! by rule, the tracks dropped grouped by why (each track once, with the clips that lose it),
//! the travel `--in-place` took out; then the output's size against the character's.

use std::io::{self, Write};

use super::files::MergeReport;
use super::{ClipMerge, DropReason, LibraryMerge};
use crate::report::inspect::plural_n;

/// Tracks listed per reason before "and N more".
const LISTED: usize = 8;

pub fn write_text(report: &MergeReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "merge: {} -> {}", report.character, report.written.join(" + "))?;
    for library in &report.libraries {
        write_library(library, report.in_place, out)?;
    }
    let added = report.output_bytes as i64 - report.character_bytes as i64;
    writeln!(
        out,
        "\n{} written; {} = the character's {} {} {} ({})",
        plural_n(report.clips_written, "clip"),
        plural_n(report.output_bytes as usize, "byte"),
        report.character_bytes,
        if added < 0 { "-" } else { "+" },
        added.unsigned_abs(),
        percent(added, report.character_bytes),
    )?;
    for note in &report.notes {
        writeln!(out, "note: {note}")?;
    }
    if report.tracks_dropped > 0 {
        writeln!(out, "{} dropped", plural_n(report.tracks_dropped, "track"))?;
    }
    Ok(())
}

fn percent(added: i64, of: u64) -> String {
    if of == 0 {
        "the character is empty".to_string()
    } else {
        format!("{:+.1}%", added as f64 * 100.0 / of as f64)
    }
}

fn write_library(library: &LibraryMerge, in_place: bool, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "\nfrom {}", library.file)?;
    for warning in &library.warnings {
        writeln!(out, "  warning: {warning}")?;
    }
    for clip in &library.clips {
        write_clip(clip, in_place, out)?;
    }
    if !library.not_chosen.is_empty() {
        writeln!(out, "  not chosen by --clip: {}", list(&library.not_chosen))?;
    }
    // Each dropped track once per reason, with the clips that lose it.
    let mut groups: Vec<(DropReason, Losses)> = Vec::new();
    for clip in &library.clips {
        for d in &clip.dropped {
            let group = match groups.iter_mut().position(|(r, _)| *r == d.reason) {
                Some(i) => &mut groups[i].1,
                None => {
                    groups.push((d.reason, Vec::new()));
                    &mut groups.last_mut().expect("just pushed").1
                }
            };
            match group.iter_mut().find(|(t, _)| *t == d.track) {
                Some((_, clips)) if !clips.contains(&clip.source.as_str()) => clips.push(&clip.source),
                Some(_) => {}
                None => group.push((d.track.clone(), vec![&clip.source])),
            }
        }
    }
    let clips = library.clips.len();
    for (reason, tracks) in groups {
        let names: Vec<String> = tracks
            .iter()
            .map(
                |(t, from)| {
                    if from.len() == clips { t.clone() } else { format!("{t} ({})", from.join(", ")) }
                },
            )
            .collect();
        let every = if tracks.iter().all(|(_, from)| from.len() == clips) && clips > 1 {
            ", in every clip"
        } else {
            ""
        };
        writeln!(out, "  dropped, {}{every}: {}", reason.words(), list(&names))?;
    }
    Ok(())
}

/// Dropped tracks, each with the clips that lose it.
type Losses<'a> = Vec<(String, Vec<&'a str>)>;

fn write_clip(clip: &ClipMerge, in_place: bool, out: &mut dyn Write) -> io::Result<()> {
    if !clip.written {
        return writeln!(out, "  {}: not written, no track binds to the character", clip.source);
    }
    let tracks: usize = clip.bound.iter().map(|b| b.tracks).sum();
    let how: Vec<String> = clip.bound.iter().map(|b| format!("{} {}", b.tracks, b.how)).collect();
    let keys = match (clip.stored, clip.computed) {
        (_, 0) => "keys as stored".to_string(),
        (0, _) => "keys computed".to_string(),
        (s, c) => format!("{s} as stored, {c} computed"),
    };
    write!(out, "  {}: {tracks} tracks ({}; {keys})", clip.name, how.join(", "))?;
    if !clip.dropped.is_empty() {
        write!(out, ", {} dropped", clip.dropped.len())?;
    }
    writeln!(out)?;
    if let Some(why) = &clip.renamed {
        writeln!(out, "    renamed from '{}': {why}", clip.source)?;
    }
    match &clip.in_place {
        Some(t) if t.distance < 1e-5 => writeln!(
            out,
            "    in place: the hips end where they start; their sway across the ground (up to {:.3}) is taken out",
            t.farthest
        )?,
        Some(t) => {
            let [x, y, z] = t.direction;
            writeln!(
                out,
                "    in place: took out {:.3} of travel along ({x:.3}, {y:.3}, {z:.3}), {:.3} per second on average (farthest from the start {:.3})",
                t.distance, t.speed, t.farthest
            )?;
        }
        None if in_place => writeln!(out, "    in place already: the hips do not move across the ground")?,
        None => {}
    }
    Ok(())
}

fn list(items: &[String]) -> String {
    if items.len() <= LISTED {
        items.join(", ")
    } else {
        format!("{}, and {} more", items[..LISTED].join(", "), items.len() - LISTED)
    }
}
