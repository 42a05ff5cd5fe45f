//! `rigscope fit`: why a library's clips play, or play wrong, on a character, without playing
//! them. Which tracks bind and by which rule, which bind to nothing (exactly the tracks
//! three.js warns "No target node found for track" about), which character joints no clip
//! moves, how each bound joint's rest differs, the scale of the two rigs, and root motion.
//! Pure: the caller loads the files and prints the report (`fit_text::write_text`, or serde).

use glam::{Quat, Vec3};
use serde::Serialize;

use super::bind::{
    BindMode, BindOptions, NodeBinding, bind_nodes, bound_tracks, threejs_clips, track_name, unbound_tracks,
};
use super::names::threejs_names;
use super::rules::LOOSE_RULES;
use crate::rig::{Property, Rig};

/// A rest rotation difference above this is a problem when clips play raw.
pub const REST_ANGLE_PROBLEM_DEGREES: f32 = 10.0;
/// Rest differences below this are export noise, not worth a line.
pub(super) const REST_ANGLE_SHOWN_DEGREES: f32 = 1.0;
/// A typical translation ratio beyond this factor (either way) is a scale mismatch.
const SCALE_PROBLEM: f32 = 3.0;

/// The `format_version` of `fit --json`'s document.
pub const FORMAT_VERSION: u32 = 2;

#[derive(Debug, Clone, Serialize)]
pub struct FitReport {
    pub format_version: u32,
    pub character: String,
    pub libraries: Vec<LibraryFit>,
    /// What is wrong with the character itself for playing clips: its VRM humanoid mapping
    /// failing `check` (errors), which `.vrma` clips bind through. Each is a problem.
    pub character_problems: Vec<String>,
    /// The `--map` lines that contradict an earlier one or bind nothing, each with its line
    /// number (`attach::map_use`); filled by the caller, which has the map file's name.
    pub map_lines: Vec<String>,
    /// Joints of the character's skins that no clip of any library animates.
    pub unanimated_joints: Vec<String>,
    /// How many problems (each listed in a library's `problems`): exit 1 when any.
    pub problems: usize,
    /// How many notes (each listed in a library's `notes`): worth knowing, harmless.
    pub notes: usize,
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
    /// What must be said about the file before anything else (`attach::anim_warnings`: it
    /// has no clips, ...), each naming it.
    pub warnings: Vec<String>,
    /// The findings worth knowing that leave the clips playing right: tracks that bind to
    /// nothing while every skinned joint of the character is still driven.
    pub notes: Vec<String>,
    /// The sentences about the file as a whole (rest poses, scale; also in `summary`).
    #[serde(skip)]
    pub general: Vec<String>,
    /// Retargeting measured against raw binding (`fit` only; `null` for a `.vrma`).
    pub retarget: Option<super::fit_retarget::RetargetFit>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClipFit {
    /// Its name in the library.
    pub name: String,
    pub bound: Vec<BoundTrack>,
    /// Track names three.js binds to nothing (`mixamorigHips.quaternion`), once each, in order.
    pub unbound: Vec<String>,
    /// The skinned joints (joints some vertex weights) its unbound tracks leave undriven: a
    /// character joint no bound track moves, named like an unbound node (as `--bind loose`
    /// compares names), or an unbound library node its own mesh weights. Empty: the unbound
    /// tracks move nothing that is drawn (a weapon slot), which is a note, not a problem.
    pub undriven_joints: Vec<String>,
    /// The library nodes of `unbound`, once each, in order.
    #[serde(skip)]
    pub unbound_nodes: Vec<String>,
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
    /// The library node whose translation carries it: its hips (by VRM mapping or name) when
    /// they are bound and their translation animated, else the topmost such bound node.
    pub joint: String,
    /// The axis it travels most along, with its sign: `+Z`.
    pub axis: String,
    /// First key to last along that axis, in the library's world units (the translation
    /// taken through its parent's rest world matrix); `null` when a key is not a finite number.
    pub distance: Option<f32>,
    /// Whether the distance counts as travel (more than a tenth of the joint's rest world
    /// height); `null` when the distance cannot be measured.
    pub travels: Option<bool>,
}

/// The fit of every library on `character`.
pub fn fit(character: &Rig, libraries: &[(String, Rig)], options: &BindOptions) -> FitReport {
    let mut animated = vec![false; character.nodes.len()];
    let libraries: Vec<LibraryFit> = libraries
        .iter()
        .map(|(file, lib)| {
            let mut fit = fit_one(character, file, lib, options, &mut animated);
            fit.warnings = super::anim_warnings(lib, file);
            fit
        })
        .collect();
    let unanimated_joints = character
        .joint_flags()
        .iter()
        .enumerate()
        .filter(|(n, j)| **j && !animated[*n])
        .map(|(n, _)| character.node_label(n))
        .collect();
    let character_problems = humanoid_problems(character);
    let problems = character_problems.len() + libraries.iter().map(|l| l.problems.len()).sum::<usize>();
    let notes = libraries.iter().map(|l| l.notes.len()).sum();
    FitReport {
        format_version: FORMAT_VERSION,
        character: character.source.clone(),
        character_problems,
        map_lines: Vec::new(),
        libraries,
        unanimated_joints,
        problems,
        notes,
    }
}

/// The character's VRM humanoid mapping errors as `check` finds them, in one sentence: what a
/// `.vrma` binds through is then not the body it names.
fn humanoid_problems(character: &Rig) -> Vec<String> {
    let errors: Vec<crate::diagnose::Finding> = crate::diagnose::humanoid_findings(character)
        .into_iter()
        .filter(|f| f.severity == crate::rig::Severity::Error)
        .collect();
    let Some(first) = errors.first() else { return Vec::new() };
    let mut codes: Vec<(&str, usize)> = Vec::new();
    for f in &errors {
        match codes.iter_mut().find(|(c, _)| *c == f.code) {
            Some((_, n)) => *n += 1,
            None => codes.push((f.code, 1)),
        }
    }
    let codes: Vec<String> = codes.iter().map(|(c, n)| format!("{c} x{n}")).collect();
    vec![format!(
        "the character's VRM humanoid mapping fails check with {} {} ({}), so clips bound through it play on the wrong bones; first: {} (`rigscope check {}` lists them)",
        errors.len(),
        crate::report::inspect::plural(errors.len(), "error"),
        codes.join(", "),
        first.message,
        character.source
    )]
}

/// The fit of one library, marking in `animated` the character nodes its clips move.
fn fit_one(
    character: &Rig,
    file: &str,
    lib: &Rig,
    options: &BindOptions,
    animated: &mut [bool],
) -> LibraryFit {
    if lib.vrma.is_some() && character.vrm.is_some() {
        return vrma_fit(character, file, lib, animated);
    }
    let binding = bind_nodes(character, lib, options);
    for clip in &threejs_clips(lib) {
        for ch in &clip.channels {
            if let Some(Some((j, _))) = binding.get(ch.node) {
                animated[*j] = true;
            }
        }
    }
    let mut fit = library_fit(character, file, lib, &binding, options);
    let (retarget, sentences, problems) =
        super::fit_retarget::retarget_fit(character, lib, &binding, options);
    fit.summary.extend(sentences);
    fit.summary.extend(problems.iter().cloned());
    fit.problems.extend(problems);
    fit.retarget = Some(retarget);
    fit
}

/// A `.vrma` on a VRM avatar binds through the humanoid (`crate::vrma`): its notes are the
/// findings, and humanoid bones the animation moves that the avatar lacks are the problems.
fn vrma_fit(character: &Rig, file: &str, lib: &Rig, animated: &mut [bool]) -> LibraryFit {
    let mut clips = Vec::new();
    let mut summary = Vec::new();
    let mut problems = Vec::new();
    let world = lib.rest_world();
    let bones: Vec<usize> = lib.vrma.iter().flat_map(|m| m.bones.iter().map(|&(_, n)| n)).collect();
    let hips = lib.vrma.as_ref().and_then(|m| m.bones.iter().find(|(b, _)| b == "hips")).map(|&(_, n)| n);
    for (i, clip) in lib.clips.iter().enumerate() {
        let name = clip.name_or_index(i);
        let mut counts = None;
        let notes = match crate::vrma::bind(character, lib, i) {
            Ok(bound) => {
                for node in bound.clip.moved_nodes() {
                    if let Some(a) = animated.get_mut(node) {
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
            undriven_joints: Vec::new(),
            unbound_nodes: Vec::new(),
            root_motion: root_motion(lib, clip, &|n| bones.contains(&n), hips, &world),
            vrm: counts,
            summary: notes,
        });
    }
    summary.extend(root_motion_line(&clips));
    LibraryFit {
        file: file.to_string(),
        clips,
        rest: Vec::new(),
        translation_scale: None,
        summary,
        problems,
        warnings: Vec::new(),
        notes: Vec::new(),
        general: Vec::new(),
        retarget: None,
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
    let world = lib.rest_world();
    let hips = crate::merge::hips::hips(lib).map(|h| h.node);
    let skinned = skinned_joints(character);
    let skinned_in_lib = skinned_joints(lib);
    let key = LOOSE_RULES[LOOSE_RULES.len() - 1].1;
    let mut skinned_by_key: std::collections::HashMap<String, Vec<usize>> = std::collections::HashMap::new();
    for j in (0..character.nodes.len()).filter(|&j| skinned[j]) {
        if let Some(name) = character.nodes[j].name.as_deref().filter(|n| !n.is_empty()) {
            skinned_by_key.entry(key(name)).or_default().push(j);
        }
    }
    let source_clips = threejs_clips(lib);
    let clips: Vec<ClipFit> = source_clips
        .iter()
        .enumerate()
        .map(|(i, clip)| {
            let bound = bound_tracks(clip, binding)
                .map(|(ch, j, how)| BoundTrack {
                    track: track_name(&source_names, ch.node, ch.property),
                    node: character.node_label(j),
                    how: how.label().to_string(),
                })
                .collect();
            let mut moved = vec![false; character.nodes.len()];
            let mut unbound_nodes: Vec<usize> = Vec::new();
            let mut listed = vec![false; lib.nodes.len()];
            for ch in &clip.channels {
                match binding.get(ch.node) {
                    Some(Some((j, _))) => moved[*j] = true,
                    Some(None) if !std::mem::replace(&mut listed[ch.node], true) => {
                        unbound_nodes.push(ch.node)
                    }
                    _ => {}
                }
            }
            let mut undriven_joints: Vec<String> = Vec::new();
            for &s in &unbound_nodes {
                let meant = lib.nodes[s].name.as_deref().and_then(|n| skinned_by_key.get(&key(n)));
                let left: Vec<String> = meant
                    .into_iter()
                    .flatten()
                    .filter(|&&j| !moved[j])
                    .map(|&j| character.node_label(j))
                    .collect();
                if !left.is_empty() {
                    undriven_joints.extend(left);
                } else if skinned_in_lib[s] {
                    undriven_joints.push(format!("{} (skinned in the library)", lib.node_label(s)));
                }
            }
            undriven_joints.dedup();
            ClipFit {
                name: clip.name_or_index(i),
                bound,
                unbound: unbound_tracks(&source_names, clip, binding),
                undriven_joints,
                unbound_nodes: unbound_nodes.iter().map(|&s| lib.node_label(s)).collect(),
                root_motion: root_motion(
                    lib,
                    clip,
                    &|n| matches!(binding.get(n), Some(Some(_))),
                    hips,
                    &world,
                ),
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
    // A ratio whose inverse is not finite cannot be said either way ("1/inf").
    let translation_scale =
        ratios.get(ratios.len() / 2).copied().filter(|r| *r > 0.0 && r.recip().is_finite());

    let mut fit = LibraryFit {
        file: file.to_string(),
        clips,
        rest,
        translation_scale,
        summary: Vec::new(),
        problems: Vec::new(),
        warnings: Vec::new(),
        notes: Vec::new(),
        general: Vec::new(),
        retarget: None,
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
                "{}: {} of {} tracks bind to nothing, as three.js warns \"No target node found for track\": {}; {}",
                clip.name,
                clip.unbound.len(),
                total,
                list(&clip.unbound, 6),
                Verdict::of(clip).consequence(&clip.undriven_joints)
            );
            clip.summary.push(line);
        }
        if let Some(m) = &clip.root_motion {
            clip.summary.push(format!("{}: {}", clip.name, m.describe()));
        }
    }
    for group in unbound_groups(&fit.clips) {
        if group.verdict == Verdict::AllDriven {
            fit.notes.push(group.line.clone());
        } else {
            fit.problems.push(group.line.clone());
        }
        fit.summary.push(group.line);
    }
    if let Some(line) = root_motion_line(&fit.clips) {
        if fit.clips.iter().any(|c| c.root_motion.as_ref().is_some_and(|m| m.distance.is_none())) {
            fit.problems.push(line.clone());
        }
        fit.summary.push(line);
    }
    if let Some(line) = loose_would_bind(character, lib, binding, options) {
        fit.general.push(line.clone());
        fit.summary.push(line);
    }
    // Retargeting scales the travel by the hips heights, which `fit_retarget` measures.
    if let Some(scale) = fit.translation_scale
        && options.retarget.is_none()
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

/// What a clip's tracks that bind to nothing leave of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Verdict {
    /// Every skinned joint of the character is still driven: harmless (a note).
    AllDriven,
    /// Some skinned joints are moved by no track of the clip.
    Undriven,
    /// No track binds at all: nothing plays.
    BindsNothing,
}

impl Verdict {
    fn of(clip: &ClipFit) -> Verdict {
        if clip.bound.is_empty() {
            Verdict::BindsNothing
        } else if clip.undriven_joints.is_empty() {
            Verdict::AllDriven
        } else {
            Verdict::Undriven
        }
    }

    fn consequence(self, undriven: &[String]) -> String {
        match self {
            Verdict::AllDriven => "every skinned joint of the character is still driven".to_string(),
            Verdict::Undriven => format!(
                "{} skinned {} of the character {} left undriven: {}",
                undriven.len(),
                crate::report::inspect::plural(undriven.len(), "joint"),
                if undriven.len() == 1 { "is" } else { "are" },
                list(undriven, 6)
            ),
            Verdict::BindsNothing => "nothing binds, so nothing plays".to_string(),
        }
    }
}

/// One sentence for the clips whose unbound tracks are on the same library nodes with the
/// same consequence.
struct UnboundGroup {
    verdict: Verdict,
    line: String,
}

/// Clips that lose the same nodes the same way, said once: "all 48 clips: handslot.l,
/// handslot.r (6 tracks) have no node in the character; ...".
fn unbound_groups(clips: &[ClipFit]) -> Vec<UnboundGroup> {
    struct Group<'a> {
        nodes: Vec<&'a str>,
        verdict: Verdict,
        clips: Vec<&'a ClipFit>,
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut index: std::collections::HashMap<(Vec<&str>, Verdict), usize> = std::collections::HashMap::new();
    for clip in clips.iter().filter(|c| !c.unbound.is_empty()) {
        let nodes: Vec<&str> = clip.unbound_nodes.iter().map(String::as_str).collect();
        let verdict = Verdict::of(clip);
        let at = *index.entry((nodes.clone(), verdict)).or_insert_with(|| {
            groups.push(Group { nodes, verdict, clips: Vec::new() });
            groups.len() - 1
        });
        groups[at].clips.push(clip);
    }
    groups
        .into_iter()
        .map(|g| {
            let scope = clip_scope(&g.clips.iter().map(|c| c.name.clone()).collect::<Vec<_>>(), clips.len());
            let (fewest, most) = g
                .clips
                .iter()
                .map(|c| c.unbound.len())
                .fold((usize::MAX, 0), |(a, b), n| (a.min(n), b.max(n)));
            let tracks = match (fewest, most) {
                (1, 1) => "1 track".to_string(),
                (a, b) if a == b => format!("{a} tracks"),
                (a, b) => format!("{a} to {b} tracks each"),
            };
            let verb = if g.nodes.len() == 1 { "has" } else { "have" };
            let mut undriven: Vec<String> =
                g.clips.iter().flat_map(|c| c.undriven_joints.iter().cloned()).collect();
            undriven.sort();
            undriven.dedup();
            let nodes: Vec<String> = g.nodes.iter().map(|n| n.to_string()).collect();
            UnboundGroup {
                verdict: g.verdict,
                line: format!(
                    "{scope}: {} ({tracks}) {verb} no node in the character; {}",
                    list(&nodes, 8),
                    g.verdict.consequence(&undriven)
                ),
            }
        })
        .collect()
}

/// "all 48 clips", "walk", or "walk, run, and 3 more (5 of 48 clips)".
fn clip_scope(names: &[String], total: usize) -> String {
    match names.len() {
        n if n == total && n > 1 => format!("all {n} clips"),
        1 => names[0].clone(),
        n => format!("{} ({n} of {total} clips)", list(names, 3)),
    }
}

/// Root motion over every clip of a library in one sentence: where it is measured, which
/// clips stay in place, which travel and how far.
fn root_motion_line(clips: &[ClipFit]) -> Option<String> {
    let measured: Vec<(&str, &RootMotion)> =
        clips.iter().filter_map(|c| Some((c.name.as_str(), c.root_motion.as_ref()?))).collect();
    if measured.is_empty() {
        return None;
    }
    let mut joints: Vec<String> = measured.iter().map(|(_, m)| m.joint.clone()).collect();
    joints.sort();
    joints.dedup();
    let pick = |f: &dyn Fn(&RootMotion) -> bool| -> Vec<String> {
        measured.iter().filter(|(_, m)| f(m)).map(|(n, _)| n.to_string()).collect()
    };
    let in_place = pick(&|m| m.travels == Some(false));
    let travel: Vec<String> = measured
        .iter()
        .filter(|(_, m)| m.travels == Some(true))
        .map(|(n, m)| format!("{n} ({} {:.3})", m.axis, m.distance.unwrap_or(0.0)))
        .collect();
    let unmeasured = pick(&|m| m.distance.is_none());
    let mut parts = Vec::new();
    if !in_place.is_empty() {
        parts.push(format!("{} in place", clip_scope(&in_place, clips.len())));
    }
    if !travel.is_empty() {
        parts.push(format!("travelling: {}", list(&travel, 4)));
    }
    if !unmeasured.is_empty() {
        parts.push(format!(
            "not measurable (a translation key is not a finite number): {}",
            clip_scope(&unmeasured, clips.len())
        ));
    }
    Some(format!(
        "root motion, measured on {} in the library's world units: {}",
        list(&joints, 3),
        parts.join("; ")
    ))
}

impl RootMotion {
    /// "in place (hips ends 0.002 from where it starts, world units)" and the like.
    pub fn describe(&self) -> String {
        match (self.distance, self.travels) {
            (Some(d), Some(true)) => format!(
                "root motion on {}: it travels {d:.3} along {} over the clip (library world units)",
                self.joint, self.axis
            ),
            (Some(d), _) => {
                format!("in place ({} ends {d:.3} from where it starts, library world units)", self.joint)
            }
            (None, _) => format!(
                "root motion on {} cannot be measured: a translation key is not a finite number",
                self.joint
            ),
        }
    }
}

/// Per node: whether it is a joint that some vertex weights, one a clip must drive for the
/// mesh to move as animated.
fn skinned_joints(rig: &Rig) -> Vec<bool> {
    let mut weighted = vec![false; rig.nodes.len()];
    for (s, skin) in rig.skins.iter().enumerate() {
        let prims = (rig.nodes.iter())
            .filter(|n| n.skin == Some(s))
            .filter_map(|n| n.mesh.and_then(|m| rig.meshes.get(m)))
            .flat_map(|m| m.primitives.iter());
        for p in prims {
            p.for_each_influences(|_, slots| {
                for &(j, w) in slots {
                    if w > 0.0
                        && let Some(&node) = skin.joints.get(usize::from(j))
                        && let Some(flag) = weighted.get_mut(node)
                    {
                        *flag = true;
                    }
                }
            });
        }
    }
    weighted
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

/// Root motion of `clip`: on the library's hips when they are bound and their translation
/// animated, else on the topmost bound node with an animated translation; first key to last,
/// in the library's world units.
fn root_motion(
    lib: &Rig,
    clip: &crate::rig::Clip,
    bound: &dyn Fn(usize) -> bool,
    hips: Option<usize>,
    world: &[glam::Mat4],
) -> Option<RootMotion> {
    let candidates = || {
        clip.channels
            .iter()
            .filter(|c| c.property == Property::Translation && c.components == 3 && bound(c.node))
    };
    let channel = candidates()
        .find(|c| Some(c.node) == hips)
        .or_else(|| candidates().min_by_key(|c| (lib.ancestors(c.node).count(), c.node)))?;
    let keys = crate::anim::key_count(channel);
    let value = |k: usize| {
        let stride = if channel.interpolation == crate::rig::Interpolation::CubicSpline { 9 } else { 3 };
        let at = k * stride + if stride == 9 { 3 } else { 0 };
        channel.values.get(at..at + 3).map(|v| Vec3::new(v[0], v[1], v[2]))
    };
    let local = value(keys.checked_sub(1)?)? - value(0)?;
    let parent =
        lib.nodes[channel.node].parent.and_then(|p| world.get(p)).copied().unwrap_or(glam::Mat4::IDENTITY);
    let moved = parent.transform_vector3(local);
    let (axis, distance) = [("X", moved.x), ("Y", moved.y), ("Z", moved.z)]
        .into_iter()
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))?;
    let height = world.get(channel.node).map(|m| m.w_axis.y).filter(|h| *h > 0.0).unwrap_or(1.0);
    let finite = moved.is_finite();
    Some(RootMotion {
        joint: lib.node_label(channel.node),
        axis: format!("{}{axis}", if distance < 0.0 { "-" } else { "+" }),
        distance: finite.then_some(distance.abs()),
        travels: finite.then(|| distance.abs() > 0.1 * height),
    })
}

fn angle_degrees(a: Quat, b: Quat) -> f32 {
    super::body::angle(a, b).to_degrees()
}

/// 97 -> 100, 0.013 -> 0.01: the figure a person would say.
fn round_figure(x: f32) -> String {
    let magnitude = 10f32.powf(x.log10().floor());
    let rounded = (x / magnitude).round() * magnitude;
    if rounded >= 1.0 { format!("{rounded:.0}") } else { format!("{rounded}") }
}

pub(super) fn list(items: &[String], max: usize) -> String {
    if items.len() <= max {
        items.join(", ")
    } else {
        format!("{}, and {} more", items[..max].join(", "), items.len() - max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attach::fit_text::{TextOptions, write_text};

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
        assert_eq!((motion.joint.as_str(), motion.axis.as_str(), motion.travels), ("hips", "+Z", Some(true)));
        assert!((motion.distance.unwrap() - 200.0).abs() < 1e-3, "{:?}", motion.distance);
        // idle only bobs: no travel.
        assert_eq!(lib.clips[1].root_motion.as_ref().unwrap().travels, Some(false));
        assert_eq!(report.problems, 1);
        assert!(report.unanimated_joints.iter().any(|j| j == "neck"));
    }

    /// Under a constant `Armature` node scaled 0.01 (a centimetre FBX export's layout), with
    /// the armature's own translation animated and bound too: root motion is the hips', in
    /// world units (200 cm through the 0.01 scale: 2 units), not the armature's.
    #[test]
    fn root_motion_is_the_hips_in_world_units_under_a_scaled_armature() {
        let (walker, mut lib) = walker_and_centimetre_copy();
        let wrap = |rig: &mut Rig, scale: f32| {
            let hips = rig.nodes.iter().position(|n| n.name.as_deref() == Some("hips")).unwrap();
            let armature = rig.nodes.len();
            let mut node = crate::rig::Node {
                name: Some("Armature".into()),
                children: vec![hips],
                ..Default::default()
            };
            node.rest.scale = Vec3::splat(scale);
            rig.nodes.push(node);
            rig.nodes[hips].parent = Some(armature);
            // Parents first, as import orders them.
            rig.order.insert(0, armature);
            for scene in &mut rig.scenes {
                for root in &mut scene.roots {
                    if *root == hips {
                        *root = armature;
                    }
                }
            }
            armature
        };
        let mut character = walker.clone();
        wrap(&mut character, 1.0);
        let armature = wrap(&mut lib, 0.01);
        // The armature "moves" by a constant key pair far from the origin: 0 travel, topmost.
        let hips_track =
            lib.clips[0].channels.iter().find(|c| c.property == Property::Translation).unwrap().clone();
        let keys = hips_track.times.len();
        let constant: Vec<f32> = (0..keys).flat_map(|_| [5.0, 0.0, 0.0]).collect();
        lib.clips[0].channels.push(crate::rig::Channel {
            node: armature,
            values: constant.into(),
            ..hips_track
        });
        let report = fit(&character, &[("cm.glb".to_string(), lib.clone())], &BindOptions::default());
        let motion = report.libraries[0].clips[0].root_motion.as_ref().unwrap();
        assert_eq!((motion.joint.as_str(), motion.axis.as_str(), motion.travels), ("hips", "+Z", Some(true)));
        assert!((motion.distance.unwrap() - 2.0).abs() < 1e-5, "{:?}", motion.distance);
        // A NaN key: not "in place", said so, and a problem.
        let hips = lib.clips[0].channels.iter_mut().find(|c| c.property == Property::Translation).unwrap();
        let mut values = hips.values.to_vec();
        let last = values.len() - 1;
        values[last] = f32::NAN;
        hips.values = values.into();
        let report = fit(&character, &[("nan.glb".to_string(), lib)], &BindOptions::default());
        let motion = report.libraries[0].clips[0].root_motion.as_ref().unwrap();
        assert_eq!((motion.distance, motion.travels), (None, None));
        let mut text = Vec::new();
        write_text(&report, TextOptions { tracks: true }, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(
            text.contains("root motion on hips cannot be measured: a translation key is not a finite number"),
            "{text}"
        );
        assert!(!text.contains("walk: in place") && !text.contains("NaN"), "{text}");
        assert!(report.libraries[0].problems.iter().any(|p| p.contains("not measurable")));
    }

    #[test]
    fn a_translation_ratio_too_small_to_invert_is_not_one_over_nan() {
        // Ratios near 1e-39: finite, but their inverse is not in f32.
        let (mut walker, mut lib) = walker_and_centimetre_copy();
        for node in &mut walker.nodes {
            node.rest.translation *= 1e35;
        }
        for node in &mut lib.nodes {
            node.rest.translation *= 1e-6;
        }
        let report = fit(&walker, &[("tiny.glb".to_string(), lib)], &BindOptions::default());
        let mut text = Vec::new();
        write_text(&report, TextOptions { tracks: true }, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
    }

    #[test]
    fn a_library_on_its_own_character_fits() {
        let (walker, _) = walker_and_centimetre_copy();
        let report = fit(&walker, &[("walker.glb".to_string(), walker.clone())], &BindOptions::default());
        assert_eq!(report.problems, 0, "{:?}", report.libraries[0].problems);
        assert!(report.libraries[0].rest.iter().all(|r| r.rotation_degrees == 0.0));
        let mut text = Vec::new();
        write_text(&report, TextOptions::default(), &mut text).unwrap();
        assert!(String::from_utf8(text).unwrap().ends_with("fits: no problems\n"));
    }

    #[test]
    fn an_a_pose_library_on_a_t_pose_character_is_measured_not_guessed() {
        use crate::attach::body::ReferencePose;
        use crate::attach::retarget_tests::arms_raised;
        // The walker's arms hang 6 degrees off vertical: raised by 90 they are a T-pose, by 50
        // an A-pose; the A-pose library's keys are turned with its arms, so raw values swing
        // the character's arms exactly as the library's, and retargeting keeps the T-pose 40
        // degrees above them.
        let (t_pose, a_pose) = (arms_raised(90.0), arms_raised(50.0));
        let libs = [("apose.glb".to_string(), a_pose)];
        let report = fit(&t_pose, &libs, &BindOptions::default());
        let lib = &report.libraries[0];
        assert_eq!(report.problems, 0, "{:?}", lib.problems);
        let words = "the character's bind pose is a T-pose and the library's an A-pose";
        assert!(lib.summary.iter().any(|s| s.starts_with(words)), "{:?}", lib.summary);
        assert!(lib.summary.iter().any(|s| s.starts_with("advice: play raw")), "{:?}", lib.summary);
        let measured = lib.retarget.as_ref().unwrap();
        assert!(measured.raw.worst_limb.as_ref().unwrap().degrees < 0.1, "{:?}", measured.raw);
        let retargeted = measured.retargeted.as_ref().unwrap().worst_limb.clone().unwrap();
        // Within the idle's breathing, a chest scaled unevenly by up to 2%.
        assert!((retargeted.degrees - 40.0).abs() < 0.5, "{retargeted:?}");
        assert!(measured.identity_radians.unwrap() < 1e-5);
        let asked = BindOptions { retarget: Some(ReferencePose::Bind), ..BindOptions::default() };
        let report = fit(&t_pose, &libs, &asked);
        assert_eq!(report.problems, 1);
        assert!(
            report.libraries[0].problems[0].ends_with("so leave --retarget off"),
            "{:?}",
            report.libraries[0].problems
        );
    }
}
