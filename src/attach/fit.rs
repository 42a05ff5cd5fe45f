//! `rigscope fit`: why a library's clips play, or play wrong, on a character, without playing
//! them. Which tracks bind and by which rule, which bind to nothing (exactly the tracks
//! three.js warns "No target node found for track" about), which character joints no clip
//! moves, how each bound joint's rest differs, the scale of the two rigs, and root motion.
//! Pure: the caller loads the files and prints the report (`write_text`, or serde).

use std::io::{self, Write};

use glam::{Quat, Vec3};
use serde::Serialize;

use super::bind::{
    BindMode, BindOptions, NodeBinding, bind_nodes, threejs_clips, track_name, unbound_tracks,
};
use super::names::threejs_names;
use super::retarget::world_rest_matrices;
use crate::rig::{Property, Rig};

/// A rest rotation difference above this is a problem when clips play raw.
pub const REST_ANGLE_PROBLEM_DEGREES: f32 = 10.0;
/// Rest differences below this are export noise, not worth a line.
const REST_ANGLE_SHOWN_DEGREES: f32 = 1.0;
/// A typical translation ratio beyond this factor (either way) is a scale mismatch.
const SCALE_PROBLEM: f32 = 3.0;

#[derive(Debug, Clone, Serialize)]
pub struct FitReport {
    pub format_version: u32,
    pub character: String,
    pub libraries: Vec<LibraryFit>,
    /// Joints of the character's skins that no clip of any library animates.
    pub unanimated_joints: Vec<String>,
    /// How many problems (each listed in a library's `problems`): exit 1 when any.
    pub problems: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct LibraryFit {
    pub file: String,
    pub clips: Vec<ClipFit>,
    /// Per bound, animated joint: how its rest differs from the character's.
    pub rest: Vec<JointRest>,
    /// The typical ratio of the library's rest translations to the character's (median over
    /// bound joints with a translation in both); `null` when there is none to compare.
    pub translation_scale: Option<f32>,
    /// The findings in words, one sentence each.
    pub summary: Vec<String>,
    /// The findings that make the clips play wrong.
    pub problems: Vec<String>,
    /// The sentences about the file as a whole (rest poses, scale; also in `summary`).
    #[serde(skip)]
    pub general: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClipFit {
    /// Its name in the library.
    pub name: String,
    pub bound: Vec<BoundTrack>,
    /// Track names three.js binds to nothing (`mixamorigHips.quaternion`), once each, in order.
    pub unbound: Vec<String>,
    pub root_motion: Option<RootMotion>,
    /// A `.vrma` clip on a VRM avatar binds through the humanoid, not by node name: how much
    /// of it binds (`bound` and `unbound` are then empty). Absent for other libraries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vrm: Option<crate::vrma::VrmaCounts>,
    /// Its own sentences (also in `LibraryFit::summary`).
    #[serde(skip)]
    pub summary: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BoundTrack {
    /// The track as three.js names it.
    pub track: String,
    /// The character node it drives.
    pub node: String,
    /// `exact`, `map`, or the loose rule's name.
    pub how: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct JointRest {
    /// The character joint.
    pub joint: String,
    /// The library node bound to it.
    pub source: String,
    /// The angle between the two rest rotations (local, as a raw binding replaces them).
    pub rotation_degrees: f32,
    /// Library rest translation length over the character's (`null` when either is zero).
    pub translation_ratio: Option<f32>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RootMotion {
    /// The library node whose translation carries it (the topmost animated translation).
    pub joint: String,
    /// The axis it travels most along, with its sign: `+Z`.
    pub axis: String,
    /// First key to last along that axis, in the library's units.
    pub distance: f32,
    /// Whether the distance counts as travel (more than a tenth of the joint's rest height).
    pub travels: bool,
}

/// The fit of every library on `character`.
pub fn fit(character: &Rig, libraries: &[(String, Rig)], options: &BindOptions) -> FitReport {
    let mut animated = vec![false; character.nodes.len()];
    let libraries: Vec<LibraryFit> = libraries
        .iter()
        .map(|(file, lib)| {
            if lib.vrma.is_some() && character.vrm.is_some() {
                return vrma_fit(character, file, lib, &mut animated);
            }
            let binding = bind_nodes(character, lib, options);
            for clip in &threejs_clips(lib) {
                for ch in &clip.channels {
                    if let Some(Some((j, _))) = binding.get(ch.node) {
                        animated[*j] = true;
                    }
                }
            }
            library_fit(character, file, lib, &binding, options)
        })
        .collect();
    let unanimated_joints = character
        .joint_flags()
        .iter()
        .enumerate()
        .filter(|(n, j)| **j && !animated[*n])
        .map(|(n, _)| character.node_label(n))
        .collect();
    let problems = libraries.iter().map(|l| l.problems.len()).sum();
    FitReport {
        format_version: 1,
        character: character.source.clone(),
        libraries,
        unanimated_joints,
        problems,
    }
}

/// A `.vrma` on a VRM avatar binds through the humanoid (`crate::vrma`): its notes are the
/// findings, and humanoid bones the animation moves that the avatar lacks are the problems.
fn vrma_fit(character: &Rig, file: &str, lib: &Rig, animated: &mut [bool]) -> LibraryFit {
    let mut clips = Vec::new();
    let mut summary = Vec::new();
    let mut problems = Vec::new();
    for (i, clip) in lib.clips.iter().enumerate() {
        let name = clip.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| format!("animation_{i}"));
        let mut counts = None;
        let notes = match crate::vrma::bind(character, lib, i) {
            Ok(bound) => {
                for ch in &bound.clip.channels {
                    if let Some(a) = animated.get_mut(ch.node) {
                        *a = true;
                    }
                }
                // The eyes the gaze turns are animated too.
                let eyes = bound.clip.vrm.iter().flat_map(|p| p.gaze.iter()).flat_map(|g| g.eyes.iter());
                for eye in eyes {
                    if let Some(a) = animated.get_mut(eye.node) {
                        *a = true;
                    }
                }
                counts = Some(bound.counts);
                bound.notes
            }
            Err(e) => vec![e.to_string()],
        };
        let notes: Vec<String> = notes.into_iter().map(|n| format!("{name}: {n}")).collect();
        // Only missing bones are problems: a missing expression is skipped by three-vrm as well
        // and leaves the body's motion whole.
        problems.extend(notes.iter().filter(|n| n.contains(" bone; its track is not played")).cloned());
        summary.extend(notes.iter().cloned());
        clips.push(ClipFit {
            name,
            bound: Vec::new(),
            unbound: Vec::new(),
            root_motion: None,
            vrm: counts,
            summary: notes,
        });
    }
    LibraryFit {
        file: file.to_string(),
        clips,
        rest: Vec::new(),
        translation_scale: None,
        summary,
        problems,
        general: Vec::new(),
    }
}

/// The fit of one library on `character`, given how its nodes bind.
pub fn library_fit(
    character: &Rig,
    file: &str,
    lib: &Rig,
    binding: &NodeBinding,
    options: &BindOptions,
) -> LibraryFit {
    let source_names = threejs_names(lib);
    let heights: Vec<f32> = world_rest_matrices(lib).iter().map(|m| m.w_axis.y).collect();
    let source_clips = threejs_clips(lib);
    let clips: Vec<ClipFit> = source_clips
        .iter()
        .enumerate()
        .map(|(i, clip)| {
            let bound = clip
                .channels
                .iter()
                .filter_map(|ch| {
                    let (j, how) = binding.get(ch.node)?.as_ref()?;
                    Some(BoundTrack {
                        track: track_name(&source_names, ch.node, ch.property),
                        node: character.node_label(*j),
                        how: how.label().to_string(),
                    })
                })
                .collect();
            ClipFit {
                name: clip.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| format!("animation_{i}")),
                bound,
                unbound: unbound_tracks(&source_names, clip, binding),
                root_motion: root_motion(lib, clip, &heights),
                vrm: None,
                summary: Vec::new(),
            }
        })
        .collect();

    let mut animated: Vec<usize> =
        source_clips.iter().flat_map(|c| c.channels.iter().map(|ch| ch.node)).collect();
    animated.sort_unstable();
    animated.dedup();
    let rest: Vec<JointRest> = animated
        .iter()
        .filter_map(|&s| {
            let (j, _) = binding.get(s)?.as_ref()?;
            let (a, b) = (&lib.nodes[s].rest, &character.nodes[*j].rest);
            let (la, lb) = (a.translation.length(), b.translation.length());
            Some(JointRest {
                joint: character.node_label(*j),
                source: lib.node_label(s),
                rotation_degrees: angle_degrees(a.rotation, b.rotation),
                translation_ratio: (la > 1e-6 && lb > 1e-6).then(|| la / lb),
            })
        })
        .collect();
    let mut ratios: Vec<f32> =
        rest.iter().filter_map(|r| r.translation_ratio).filter(|r| r.is_finite()).collect();
    ratios.sort_by(f32::total_cmp);
    let translation_scale = ratios.get(ratios.len() / 2).copied();

    let mut fit = LibraryFit {
        file: file.to_string(),
        clips,
        rest,
        translation_scale,
        summary: Vec::new(),
        problems: Vec::new(),
        general: Vec::new(),
    };
    describe(&mut fit, character, lib, binding, options);
    fit
}

/// The findings in words; the ones that make clips play wrong are also problems.
fn describe(fit: &mut LibraryFit, character: &Rig, lib: &Rig, binding: &NodeBinding, options: &BindOptions) {
    for clip in &mut fit.clips {
        let total = clip.bound.len() + clip.unbound.len();
        if !clip.unbound.is_empty() {
            let line = format!(
                "{}: {} of {} tracks bind to nothing, as three.js warns \"No target node found for track\": {}",
                clip.name,
                clip.unbound.len(),
                total,
                list(&clip.unbound, 6)
            );
            fit.problems.push(line.clone());
            clip.summary.push(line);
        }
        if let Some(m) = &clip.root_motion {
            clip.summary.push(if m.travels {
                format!(
                    "{}: root motion on {}: it travels {:.3} along {} over the clip",
                    clip.name, m.joint, m.distance, m.axis
                )
            } else {
                format!("{}: in place ({} ends {:.3} from where it starts)", clip.name, m.joint, m.distance)
            });
        }
        fit.summary.extend(clip.summary.iter().cloned());
    }
    if let Some(line) = loose_would_bind(character, lib, binding, options) {
        fit.general.push(line.clone());
        fit.summary.push(line);
    }
    let mut off: Vec<&JointRest> =
        fit.rest.iter().filter(|r| r.rotation_degrees >= REST_ANGLE_SHOWN_DEGREES).collect();
    off.sort_by(|a, b| b.rotation_degrees.total_cmp(&a.rotation_degrees));
    if let Some(worst) = off.first().filter(|w| w.rotation_degrees > REST_ANGLE_PROBLEM_DEGREES) {
        let joints: Vec<String> = off
            .iter()
            .filter(|r| r.rotation_degrees > REST_ANGLE_PROBLEM_DEGREES)
            .map(|r| format!("{} {:.0}°", r.joint, r.rotation_degrees))
            .collect();
        let poses = match (arm_pose(lib, binding, character, true), arm_pose(lib, binding, character, false))
        {
            (Some(src), Some(dst)) if src != dst => {
                format!("the clip was made on an {src} rig and this character is in {dst}: ")
            }
            _ => "the clip was made on a rig with another rest pose: ".to_string(),
        };
        let others =
            if joints.len() > 1 { format!(" ({} too)", list(&joints[1..], 5)) } else { String::new() };
        let tail = if options.retarget {
            "--retarget rest plays each joint relative to its own rest, so this is taken care of".to_string()
        } else {
            format!(
                "played raw, {} will be {:.0}° off unless retargeted (--retarget rest)",
                worst.joint, worst.rotation_degrees
            )
        };
        let line =
            format!("{poses}{} rests {:.0}° apart{others}; {tail}", worst.joint, worst.rotation_degrees);
        if !options.retarget {
            fit.problems.push(line.clone());
        }
        fit.general.push(line.clone());
        fit.summary.push(line);
    }
    if let Some(scale) = fit.translation_scale
        && !(1.0 / SCALE_PROBLEM..=SCALE_PROBLEM).contains(&scale)
    {
        let units = if (50.0..=200.0).contains(&scale) {
            ": centimetres on a metre rig"
        } else if (1.0 / 200.0..=1.0 / 50.0).contains(&scale) {
            ": metres on a centimetre rig"
        } else {
            ""
        };
        let factor = if scale >= 1.0 {
            format!("{}x", round_figure(scale))
        } else {
            format!("1/{}", round_figure(1.0 / scale))
        };
        let line = format!("translations are about {factor} the character's{units}");
        fit.problems.push(line.clone());
        fit.general.push(line.clone());
        fit.summary.push(line);
    }
}

/// With exact binding, what `--bind loose` would add: the way out of "no target node" that
/// a user most often needs (Mixamo's `mixamorig:` prefixes), said where the problem is listed.
fn loose_would_bind(
    character: &Rig,
    lib: &Rig,
    exact: &NodeBinding,
    options: &BindOptions,
) -> Option<String> {
    if options.mode != BindMode::Exact {
        return None;
    }
    let mut animated: Vec<usize> =
        threejs_clips(lib).iter().flat_map(|c| c.channels.iter().map(|ch| ch.node)).collect();
    animated.sort_unstable();
    animated.dedup();
    let unbound: Vec<usize> =
        animated.into_iter().filter(|&n| !matches!(exact.get(n), Some(Some(_)))).collect();
    if unbound.is_empty() {
        return None;
    }
    let loose = bind_nodes(character, lib, &BindOptions { mode: BindMode::Loose, ..options.clone() });
    let gained = unbound.iter().filter(|&&n| matches!(loose.get(n), Some(Some(_)))).count();
    let still = unbound.len() - gained;
    let rest = if still > 0 {
        format!("; {still} would still bind to nothing: name them with --map FILE")
    } else {
        String::new()
    };
    (gained > 0).then(|| {
        format!(
            "--bind loose would bind {gained} of the {} animated nodes that bind to nothing (namespace prefixes such as mixamorig:, case, separators){rest}",
            unbound.len()
        )
    })
}

/// "A-pose" or "T-pose" for the rig's left (or right) upper arm: the bone from the bound
/// joint named like an upper arm to its first child, against the horizontal. `None` when
/// no such joint binds or the bone is neither.
fn arm_pose(lib: &Rig, binding: &NodeBinding, character: &Rig, source_side: bool) -> Option<&'static str> {
    let is_upper_arm = |name: &str| {
        let n = name.to_lowercase();
        (n.contains("upperarm")
            || n.contains("upper_arm")
            || n.ends_with("leftarm")
            || n.ends_with("arm.l")
            || n.ends_with("arm_l"))
            && !n.contains("fore")
            && !n.contains("right")
            && !n.ends_with(".r")
            && !n.ends_with("_r")
    };
    let (s, (j, _)) = binding
        .iter()
        .enumerate()
        .find_map(|(s, b)| b.as_ref().filter(|_| is_upper_arm(&lib.node_label(s))).map(|b| (s, b)))?;
    let (rig, node) = if source_side { (lib, s) } else { (character, *j) };
    let child = *rig.nodes[node].children.first()?;
    let world = world_rest_matrices(rig);
    let dir: Vec3 = (world[child].w_axis - world[node].w_axis).truncate();
    if dir.length() < 1e-9 {
        return None;
    }
    let elevation = (dir.y / dir.length()).clamp(-1.0, 1.0).asin().to_degrees();
    match elevation {
        e if e.abs() < 10.0 => Some("T-pose"),
        e if (-70.0..=-15.0).contains(&e) => Some("A-pose"),
        _ => None,
    }
}

/// The topmost animated translation of `clip`, and how far it goes from first key to last.
fn root_motion(lib: &Rig, clip: &crate::rig::Clip, heights: &[f32]) -> Option<RootMotion> {
    let depth = |mut n: usize| {
        let mut d = 0;
        while let Some(p) = lib.nodes.get(n).and_then(|x| x.parent) {
            n = p;
            d += 1;
            if d > lib.nodes.len() {
                break;
            }
        }
        d
    };
    let channel = clip
        .channels
        .iter()
        .filter(|c| c.property == Property::Translation && c.components == 3)
        .min_by_key(|c| depth(c.node))?;
    let keys = crate::anim::key_count(channel);
    let value = |k: usize| {
        let stride = if channel.interpolation == crate::rig::Interpolation::CubicSpline { 9 } else { 3 };
        let at = k * stride + if stride == 9 { 3 } else { 0 };
        channel.values.get(at..at + 3).map(|v| Vec3::new(v[0], v[1], v[2]))
    };
    let moved = value(keys.checked_sub(1)?)? - value(0)?;
    let (axis, distance) = [("X", moved.x), ("Y", moved.y), ("Z", moved.z)]
        .into_iter()
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))?;
    let height = heights.get(channel.node).copied().filter(|h| *h > 0.0).unwrap_or(1.0);
    Some(RootMotion {
        joint: lib.node_label(channel.node),
        axis: format!("{}{axis}", if distance < 0.0 { "-" } else { "+" }),
        distance: distance.abs(),
        travels: distance.abs() > 0.1 * height,
    })
}

fn angle_degrees(a: Quat, b: Quat) -> f32 {
    let d = a.normalize() * b.normalize().inverse();
    (2.0 * d.xyz().length().atan2(d.w.abs())).to_degrees()
}

/// 97 -> 100, 0.013 -> 0.01: the figure a person would say.
fn round_figure(x: f32) -> String {
    let magnitude = 10f32.powf(x.log10().floor());
    let rounded = (x / magnitude).round() * magnitude;
    if rounded >= 1.0 { format!("{rounded:.0}") } else { format!("{rounded}") }
}

fn list(items: &[String], max: usize) -> String {
    if items.len() <= max {
        items.join(", ")
    } else {
        format!("{}, and {} more", items[..max].join(", "), items.len() - max)
    }
}

/// The report for people.
pub fn write_text(report: &FitReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{}", report.character)?;
    for lib in &report.libraries {
        writeln!(out, "\nwith {}", lib.file)?;
        for clip in &lib.clips {
            let mut by_how: Vec<(String, usize)> = Vec::new();
            for b in &clip.bound {
                match by_how.iter_mut().find(|(h, _)| *h == b.how) {
                    Some((_, n)) => *n += 1,
                    None => by_how.push((b.how.clone(), 1)),
                }
            }
            let how: Vec<String> = by_how.iter().map(|(h, n)| format!("{n} {h}")).collect();
            if let Some(c) = &clip.vrm {
                writeln!(out, "  clip {}: {}", clip.name, c.describe())?;
                continue;
            }
            writeln!(
                out,
                "  clip {}: {} of {} tracks bind{}",
                clip.name,
                clip.bound.len(),
                clip.bound.len() + clip.unbound.len(),
                if how.is_empty() { String::new() } else { format!(" ({})", how.join(", ")) }
            )?;
            for b in clip.bound.iter().filter(|b| b.how != "exact") {
                writeln!(out, "    {} -> {} by {}", b.track, b.node, b.how)?;
            }
            for u in &clip.unbound {
                writeln!(out, "    {u}: no target node")?;
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
        for line in &lib.summary {
            writeln!(out, "  - {line}")?;
        }
    }
    if !report.unanimated_joints.is_empty() {
        writeln!(out, "\ncharacter joints no clip animates: {}", report.unanimated_joints.join(", "))?;
    }
    match report.problems {
        0 => writeln!(out, "\nfits: no problems"),
        1 => writeln!(out, "\n1 problem"),
        n => writeln!(out, "\n{n} problems"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_round_as_people_say_them() {
        assert_eq!(round_figure(97.0), "100");
        assert_eq!(round_figure(2.6), "3");
        assert_eq!(round_figure(0.013), "0.01");
        assert!(
            (angle_degrees(Quat::from_rotation_z(38f32.to_radians()), Quat::IDENTITY) - 38.0).abs() < 1e-3
        );
    }

    /// walker, and a copy in centimetres whose walk also travels 2 m forward (+Z).
    fn walker_and_centimetre_copy() -> (Rig, Rig) {
        let walker = crate::import::load_bytes(&crate::samplegen::walker(), "walker.glb", None).unwrap();
        let mut lib = walker.clone();
        for node in &mut lib.nodes {
            node.rest.translation *= 100.0;
        }
        let walk = &mut lib.clips[0];
        let hips = walk.channels.iter_mut().find(|c| c.property == Property::Translation).unwrap();
        let keys = hips.times.len();
        let values: Vec<f32> = hips
            .values
            .chunks_exact(3)
            .enumerate()
            .flat_map(|(k, v)| {
                [v[0] * 100.0, v[1] * 100.0, v[2] * 100.0 + 200.0 * k as f32 / (keys - 1) as f32]
            })
            .collect();
        hips.values = values.into();
        (walker, lib)
    }

    #[test]
    fn exact_binding_says_what_loose_binding_would_add() {
        let walker = crate::import::load_bytes(&crate::samplegen::walker(), "walker.glb", None).unwrap();
        let mut lib = walker.clone();
        // Mixamo's namespace on every node but the first; the first gets a name no rule finds.
        for (i, node) in lib.nodes.iter_mut().enumerate() {
            let name = node.name.clone().unwrap_or_default();
            node.name =
                Some(if i == 0 { "nothing-like-it".to_string() } else { format!("mixamorig:{name}") });
        }
        let mut animated: Vec<usize> =
            lib.clips.iter().flat_map(|c| c.channels.iter().map(|ch| ch.node)).collect();
        animated.sort_unstable();
        animated.dedup();
        let lost = usize::from(animated.contains(&0));
        let report = fit(&walker, &[("mixamo.glb".to_string(), lib.clone())], &BindOptions::default());
        let line = format!(
            "--bind loose would bind {} of the {} animated nodes that bind to nothing",
            animated.len() - lost,
            animated.len()
        );
        assert!(
            report.libraries[0].summary.iter().any(|s| s.starts_with(&line)),
            "{:?}",
            report.libraries[0].summary
        );
        // Loose binding itself, or a library that binds, says nothing of it.
        let loose = BindOptions { mode: BindMode::Loose, ..BindOptions::default() };
        let report = fit(&walker, &[("mixamo.glb".to_string(), lib)], &loose);
        assert!(!report.libraries[0].summary.iter().any(|s| s.contains("--bind loose")));
        let report = fit(&walker, &[("walker.glb".to_string(), walker.clone())], &BindOptions::default());
        assert!(!report.libraries[0].summary.iter().any(|s| s.contains("--bind loose")));
    }

    #[test]
    fn centimetres_on_a_metre_rig_and_root_motion_are_named() {
        let (walker, lib) = walker_and_centimetre_copy();
        let report = fit(&walker, &[("cm.glb".to_string(), lib)], &BindOptions::default());
        let lib = &report.libraries[0];
        let scale = lib.translation_scale.unwrap();
        assert!((scale - 100.0).abs() < 1e-3, "{scale}");
        let words = "translations are about 100x the character's: centimetres on a metre rig";
        assert!(lib.problems.iter().any(|p| p == words), "{:?}", lib.problems);
        let motion = lib.clips[0].root_motion.as_ref().unwrap();
        assert_eq!((motion.joint.as_str(), motion.axis.as_str(), motion.travels), ("hips", "+Z", true));
        assert!((motion.distance - 200.0).abs() < 1e-3, "{}", motion.distance);
        // idle only bobs: no travel.
        assert!(!lib.clips[1].root_motion.as_ref().unwrap().travels);
        assert_eq!(report.problems, 1);
        assert!(report.unanimated_joints.iter().any(|j| j == "neck"));
    }

    #[test]
    fn a_library_on_its_own_character_fits() {
        let (walker, _) = walker_and_centimetre_copy();
        let report = fit(&walker, &[("walker.glb".to_string(), walker.clone())], &BindOptions::default());
        assert_eq!(report.problems, 0, "{:?}", report.libraries[0].problems);
        assert!(report.libraries[0].rest.iter().all(|r| r.rotation_degrees == 0.0));
        let mut text = Vec::new();
        write_text(&report, &mut text).unwrap();
        assert!(String::from_utf8(text).unwrap().ends_with("fits: no problems\n"));
    }

    #[test]
    fn an_a_pose_clip_on_a_t_pose_character_is_named_so() {
        let walker = crate::import::load_bytes(&crate::samplegen::walker(), "walker.glb", None).unwrap();
        let arm = walker.nodes.iter().position(|n| n.name.as_deref() == Some("upper_arm.L")).unwrap();
        // walker's arms hang down; turned 90 degrees up they are a T-pose, 50 an A-pose.
        let turned = |degrees: f32| {
            let mut rig = walker.clone();
            let rest = &mut rig.nodes[arm].rest.rotation;
            *rest = Quat::from_rotation_z(degrees.to_radians()) * *rest;
            rig
        };
        let report = fit(&turned(90.0), &[("apose.glb".to_string(), turned(50.0))], &BindOptions::default());
        let words = &report.libraries[0].problems;
        let expected = "the clip was made on an A-pose rig and this character is in T-pose: upper_arm.L rests 40° apart; \
                        played raw, upper_arm.L will be 40° off unless retargeted (--retarget rest)";
        assert!(words.iter().any(|w| w == expected), "{words:?}");
    }
}
