//! `rigscope merge`: one file holding a character unchanged and clips of other files as glTF
//! animations on its nodes (`../shared/docs/skinning.md`, "A merged file").
//!
//! The clips are the ones `attach` binds at load, exactly as the viewer, `pose` and `render`
//! play them: `plan` binds each library onto the character with `attach::attach` and writes
//! what `Rig::clips` then holds. A channel whose keys are still the library's own (the same
//! decoded arrays, so bound as stored) has its sampler's accessors copied as stored; any other
//! (retargeted, or changed by `--in-place`) is written as the keys rigscope plays. Naming,
//! dropping and in-place travel are decided here; `export` writes the file; `files` reads the
//! inputs and writes the output safely. Everything but `files` is pure.

mod files;
pub mod hips;
pub mod in_place;
mod text;

pub use files::{Request, run};
pub use text::write_text;

use std::collections::HashMap;

use serde::Serialize;

use crate::attach::bind::track_name;
use crate::attach::names::threejs_names;
use crate::attach::{BindOptions, attach};
use crate::export::{NewChannel, NewClip, NewKeys};
use crate::import::RawAsset;
use crate::rig::{AttachedClip, Channel, Property, Rig};
use in_place::Travel;

/// One library file, loaded both ways: as a rig (to bind) and as data (to copy from).
pub struct Library {
    /// The file's name as clip labels show it (`walk (lib.glb)`).
    pub label: String,
    /// The file name without its extension, appended to a clip name that is taken.
    pub stem: String,
    pub rig: Rig,
    pub raw: RawAsset,
}

/// What to merge and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub binding: BindOptions,
    /// Only the library clips of these names (empty: every clip).
    pub clips: Vec<String>,
    /// Take the hips' travel across the ground out of every clip.
    pub in_place: bool,
}

/// What `plan` decided, for the report (`MergeReport::libraries`).
#[derive(Debug, Clone, Serialize)]
pub struct LibraryMerge {
    pub file: String,
    pub clips: Vec<ClipMerge>,
    /// Clips of the library that `--clip` did not choose.
    pub not_chosen: Vec<String>,
    /// What the user should know about the file as a whole (no clips, VRM expressions).
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClipMerge {
    /// Its name in the merged file.
    pub name: String,
    /// Its name in the library (three.js's `animation_N` for an unnamed clip).
    pub source: String,
    /// Why it is not `source` (the clip that already has that name), when renamed.
    pub renamed: Option<String>,
    /// Whether it is in the merged file: a clip none of whose tracks binds is not.
    pub written: bool,
    /// Tracks written, by the rule that bound them (`exact`, `map`, a loose rule).
    pub bound: Vec<HowMany>,
    /// Tracks written with the library's stored keys, bit for bit.
    pub stored: usize,
    /// Tracks written as keys computed here (retargeted, or taken in place).
    pub computed: usize,
    pub dropped: Vec<DroppedTrack>,
    /// The travel `--in-place` took out (absent without it, or when the hips do not travel).
    pub in_place: Option<Travel>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HowMany {
    pub how: String,
    pub tracks: usize,
}

/// A track of the library clip that is not in the merged file, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DroppedTrack {
    /// As three.js names it (`mixamorigHips.quaternion`), or the animation pointer.
    pub track: String,
    pub reason: DropReason,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// No character node of that name: three.js warns "No target node found for track".
    NoTargetNode,
    /// A `KHR_animation_pointer` channel, which three.js's GLTFLoader plays only with a plugin.
    AnimationPointer,
    /// Morph weights for a character node whose mesh has another number of morph targets.
    MorphTargets,
    /// A later track of the clip drives the same node and property (it is the one played).
    SameTarget,
}

impl DropReason {
    pub fn words(self) -> &'static str {
        match self {
            DropReason::NoTargetNode => "no target node (three.js warns \"No target node found for track\")",
            DropReason::AnimationPointer => {
                "KHR_animation_pointer (three.js's GLTFLoader plays it only with a plugin)"
            }
            DropReason::MorphTargets => "the character's mesh has another number of morph targets",
            DropReason::SameTarget => "a later track drives the same node and property",
        }
    }
}

/// The clips to write and what was decided for each library.
pub struct Plan {
    pub clips: Vec<NewClip>,
    pub libraries: Vec<LibraryMerge>,
    /// About the merge as a whole (`--in-place` on a rig without hips).
    pub notes: Vec<String>,
    /// Whether the clips were taken in place (asked for, and the character has hips).
    pub in_place: bool,
}

/// A `--clip` name no library has.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("no library has a clip named '{name}'; the clips are:\n{known}")]
pub struct UnknownClip {
    pub name: String,
    pub known: String,
}

/// Why a merge cannot be planned.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    UnknownClip(#[from] UnknownClip),
    /// A library `--retarget` refuses, and why.
    #[error("{label}: {refused}")]
    Retarget { label: String, refused: crate::attach::retarget::RatioRefused },
}

/// Binds every library onto `character` (appending to its clips, as `--anim` does) and
/// decides what the merged file holds.
pub fn plan(character: &mut Rig, libraries: &[Library], options: &Options) -> Result<Plan, PlanError> {
    let own = character.clips.len();
    let mut ranges = Vec::with_capacity(libraries.len());
    for library in libraries {
        let before = character.attached.len();
        attach(character, &library.rig, &library.label, &options.binding)
            .map_err(|refused| PlanError::Retarget { label: library.label.clone(), refused })?;
        ranges.push(before..character.attached.len());
    }
    let character = &*character;
    let chosen = chosen(character, options)?;

    let mut names = Names::default();
    for c in 0..own {
        let file = crate::attach::file_label(std::path::Path::new(&character.source));
        names.take(character.clips[c].name_or_index(c), file);
    }
    let hips = if options.in_place { hips::hips(character) } else { None };
    let mut notes = Vec::new();
    if options.in_place && hips.is_none() {
        notes.push(
            "--in-place: the character has no hips (no node named hips or pelvis, no VRM mapping), so the clips keep their travel"
                .to_string(),
        );
    }
    let targets = threejs_names(character);

    let mut clips = Vec::new();
    let mut reports = Vec::new();
    for (li, (library, range)) in libraries.iter().zip(ranges).enumerate() {
        let mut report = LibraryMerge {
            file: library.label.clone(),
            clips: Vec::new(),
            not_chosen: Vec::new(),
            warnings: Vec::new(),
        };
        report.warnings.extend(crate::attach::anim_warnings(&library.rig, &library.label));
        let stored = StoredKeys::of(&library.rig, &library.raw);
        let library_names = threejs_names(&library.rig);
        let vrma = library.rig.vrma.is_some() && character.vrm.is_some();
        let first = range.start;
        for (k, attached) in character.attached[range].iter().enumerate() {
            if !chosen[first + k] {
                report.not_chosen.push(attached.name.clone());
                continue;
            }
            // `attach` appends one clip per library clip, in order, except for a `.vrma` on a
            // VRM avatar, whose clips bind through the humanoid and carry no stored keys.
            let source = (!vrma).then_some(k);
            let clip = &character.clips[attached.clip];
            if clip.vrm.is_some() {
                let line = format!(
                    "{}: its expressions and gaze play through the avatar's VRM extension and are not written",
                    attached.name
                );
                report.warnings.push(line);
            }
            let mut work = Work::new(character, &targets, attached, &clip.channels);
            work.drop_pointer_tracks(&library.rig, &library_names, source);
            let travel = hips.and_then(|h| work.remove_travel(character, h, clip.duration));
            let channels = work.channels(li, &stored);
            let written = !channels.is_empty();
            let (name, renamed) = if written {
                names.claim(&attached.name, &library.stem, &library.label)
            } else {
                (attached.name.clone(), None)
            };
            let extras =
                source.and_then(|s| library.raw.json.pointer(&format!("/animations/{s}/extras")).cloned());
            report.clips.push(ClipMerge {
                name: name.clone(),
                source: attached.name.clone(),
                renamed,
                written,
                bound: work.bound_counts(),
                stored: channels.iter().filter(|c| matches!(c.keys, NewKeys::Stored { .. })).count(),
                computed: channels.iter().filter(|c| matches!(c.keys, NewKeys::Computed { .. })).count(),
                dropped: work.dropped,
                in_place: travel,
            });
            if written {
                clips.push(NewClip { name, extras, channels });
            }
        }
        reports.push(report);
    }
    Ok(Plan { clips, libraries: reports, notes, in_place: hips.is_some() })
}

/// Per attached clip, whether `--clip` chooses it (every one without `--clip`): by its name,
/// else past Blender's `OBJECT|` prefix when that names exactly one clip, as `--anim`'s
/// `--clip` finds it. Refuses a name that chooses nothing.
fn chosen(character: &Rig, options: &Options) -> Result<Vec<bool>, UnknownClip> {
    if options.clips.is_empty() {
        return Ok(vec![true; character.attached.len()]);
    }
    let mut chosen = vec![false; character.attached.len()];
    for name in &options.clips {
        let exact: Vec<usize> =
            (0..character.attached.len()).filter(|&a| character.attached[a].name == *name).collect();
        let found = if exact.is_empty() {
            let past = character.clips_past_prefix(name);
            let one = (past.len() == 1)
                .then(|| character.attached.iter().position(|a| a.clip == past[0]))
                .flatten();
            one.into_iter().collect()
        } else {
            exact
        };
        if found.is_empty() {
            let known: Vec<String> = character.attached.iter().map(|a| format!("  {}", a.name)).collect();
            let known = if known.is_empty() { "  none".to_string() } else { known.join("\n") };
            return Err(UnknownClip { name: name.clone(), known });
        }
        for a in found {
            chosen[a] = true;
        }
    }
    Ok(chosen)
}

/// Clip names in use, and who uses each.
#[derive(Default)]
struct Names {
    owner: HashMap<String, String>,
}

impl Names {
    fn take(&mut self, name: String, owner: String) {
        self.owner.entry(name).or_insert(owner);
    }

    /// `name`, or when it is taken `name (stem)` (then `name (stem 2)`, ...); with the reason.
    fn claim(&mut self, name: &str, stem: &str, file: &str) -> (String, Option<String>) {
        let Some(owner) = self.owner.get(name).cloned() else {
            self.take(name.to_string(), file.to_string());
            return (name.to_string(), None);
        };
        let mut candidate = format!("{name} ({stem})");
        let mut n = 2;
        while self.owner.contains_key(&candidate) {
            candidate = format!("{name} ({stem} {n})");
            n += 1;
        }
        self.take(candidate.clone(), file.to_string());
        (candidate, Some(format!("{owner} already has a clip named '{name}'")))
    }
}

/// Each library channel read by `import`, by the addresses of its decoded key arrays: the
/// accessors of its sampler. `import` decodes an accessor once and shares the arrays, and
/// binding as stored moves a channel without touching them, so a bound channel whose arrays
/// are found here still plays the library's stored keys.
struct StoredKeys {
    by_arrays: HashMap<(usize, usize), (usize, usize)>,
}

impl StoredKeys {
    fn of(lib: &Rig, raw: &RawAsset) -> StoredKeys {
        let mut by_arrays = HashMap::new();
        for (a, clip) in lib.clips.iter().enumerate() {
            let core = lib.core_channels.get(a).copied().unwrap_or(clip.channels.len());
            for (k, channel) in clip.channels.iter().enumerate().take(core) {
                let c = lib.file_channel(a, k);
                let animation = raw.json.get("animations").and_then(|list| list.get(a));
                let index = |v: &serde_json::Value| v.as_u64().and_then(|i| usize::try_from(i).ok());
                let sampler =
                    animation.and_then(|x| x.get("channels")?.get(c)?.get("sampler")).and_then(index);
                let accessor = |which: &str| {
                    animation.and_then(|x| x.get("samplers")?.get(sampler?)?.get(which)).and_then(index)
                };
                if let (Some(input), Some(output)) = (accessor("input"), accessor("output")) {
                    by_arrays.entry(arrays(channel)).or_insert((input, output));
                }
            }
        }
        StoredKeys { by_arrays }
    }

    fn find(&self, channel: &Channel) -> Option<(usize, usize)> {
        self.by_arrays.get(&arrays(channel)).copied()
    }
}

fn arrays(channel: &Channel) -> (usize, usize) {
    (channel.times.as_ptr() as usize, channel.values.as_ptr() as usize)
}

/// One clip on its way to the file: its bound channels (with how each bound), and what was
/// dropped.
struct Work<'a> {
    channels: Vec<(Channel, &'a str)>,
    dropped: Vec<DroppedTrack>,
}

impl<'a> Work<'a> {
    fn new(
        character: &Rig,
        targets: &[Option<String>],
        attached: &'a AttachedClip,
        channels: &[Channel],
    ) -> Self {
        let mut dropped: Vec<DroppedTrack> = attached
            .unbound
            .iter()
            .map(|t| DroppedTrack { track: t.clone(), reason: DropReason::NoTargetNode })
            .collect();
        let how = |k: usize| attached.bound.get(k).map_or("exact", |b| b.how.label());
        let mut kept: Vec<(Channel, &'a str)> = Vec::with_capacity(channels.len());
        // The last channel of a target is the one played (`anim::sample` applies them in
        // order): an earlier one is dropped, as a file may not animate a target twice.
        for (k, channel) in channels.iter().enumerate().rev() {
            let track = || track_name(targets, channel.node, channel.property);
            if kept.iter().any(|(c, _)| c.node == channel.node && c.property == channel.property) {
                dropped.push(DroppedTrack { track: track(), reason: DropReason::SameTarget });
            } else if channel.property == Property::Weights
                && morph_targets(character, channel.node) != channel.components
            {
                dropped.push(DroppedTrack { track: track(), reason: DropReason::MorphTargets });
            } else {
                kept.push((channel.clone(), how(k)));
            }
        }
        kept.reverse();
        Work { channels: kept, dropped }
    }

    /// The library clip's `KHR_animation_pointer` channels, which `attach` leaves out as
    /// three.js does.
    fn drop_pointer_tracks(&mut self, lib: &Rig, names: &[Option<String>], clip: Option<usize>) {
        let Some(a) = clip else { return };
        let core = lib.core_channels.get(a).copied();
        if let (Some(core), Some(clip)) = (core, lib.clips.get(a)) {
            for channel in clip.channels.iter().skip(core) {
                let track = track_name(names, channel.node, channel.property);
                self.dropped.push(DroppedTrack { track, reason: DropReason::AnimationPointer });
            }
        }
        for pointer in lib.unpreviewed_channels.iter().filter(|p| p.clip == a) {
            self.dropped
                .push(DroppedTrack { track: pointer.pointer.clone(), reason: DropReason::AnimationPointer });
        }
    }

    fn remove_travel(&mut self, character: &Rig, hips: hips::Hips, duration: f32) -> Option<Travel> {
        let mut channels: Vec<Channel> = self.channels.iter().map(|(c, _)| c.clone()).collect();
        let travel = in_place::remove_travel(character, hips, &mut channels, duration)?;
        // The hips' translation may be new (sampled under a moving parent): it binds as the
        // hips' other channels did.
        let how = self.channels.iter().find(|(c, _)| c.node == hips.node).map_or("exact", |(_, h)| *h);
        let mut kept = Vec::with_capacity(channels.len());
        for channel in channels {
            let h = self
                .channels
                .iter()
                .find(|(c, _)| c.node == channel.node && c.property == channel.property)
                .map_or(how, |(_, h)| *h);
            kept.push((channel, h));
        }
        self.channels = kept;
        Some(travel)
    }

    fn channels(&self, library: usize, stored: &StoredKeys) -> Vec<NewChannel> {
        self.channels
            .iter()
            .map(|(c, _)| NewChannel {
                node: c.node,
                property: c.property,
                interpolation: c.interpolation,
                keys: match stored.find(c) {
                    Some((input, output)) => NewKeys::Stored { library, input, output },
                    None => NewKeys::Computed { times: c.times.clone(), values: c.values.clone() },
                },
            })
            .collect()
    }

    fn bound_counts(&self) -> Vec<HowMany> {
        let mut counts: Vec<HowMany> = Vec::new();
        for (_, how) in &self.channels {
            match counts.iter_mut().find(|c| c.how == *how) {
                Some(c) => c.tracks += 1,
                None => counts.push(HowMany { how: how.to_string(), tracks: 1 }),
            }
        }
        counts
    }
}

/// How many morph targets the mesh of `node` has (0 without a mesh).
fn morph_targets(rig: &Rig, node: usize) -> usize {
    let mesh = rig.nodes.get(node).and_then(|n| n.mesh);
    mesh.and_then(|m| rig.meshes.get(m)).map_or(0, |m| m.default_weights.len())
}
