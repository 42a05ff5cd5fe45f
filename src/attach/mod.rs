//! Clips from other files (`--anim LIB`): each clip of LIB is bound once, at load, to the
//! character's nodes and appended to `Rig::clips`, so the viewer, `pose`, `render`, `record`,
//! `diff` and `bench` play it as they play the file's own clips, with no second path.
//!
//! Stage order: `import` loads both files; `names` gives every node the name three.js gives
//! it; `bind` decides which character node each source node drives (three.js's rule by
//! default, `rules` and `--map` when asked); `retarget` rebuilds a clip so the character
//! keeps the source's motion (`--retarget`), from each rig's `body` (reference pose, body
//! frame and hips height, found by the `landmarks` table); `fit` explains, without playing
//! anything, why a clip fits or not.
//! Everything here is pure except `load`, which reads the files.

pub mod bind;
pub mod body;
pub mod fit;
pub mod fit_retarget;
pub mod fit_text;
pub mod landmarks;
pub mod measure;

mod load;
pub mod map_use;
pub mod names;
pub mod retarget;
#[cfg(test)]
mod retarget_tests;
pub mod rules;

pub use bind::{BindMode, BindOptions};
pub use load::{AnimSet, anim_warnings, file_label, file_labels, load_with_anims, no_clips};
pub use rules::NameMap;

use crate::rig::{AttachedClip, BoundChannel, Clip, Rig};

/// Appends every clip of `source` to `character`, labelled `name (label)`, bound by
/// `options`. A clip without a name is `animation_N`, as three.js's GLTFLoader names it.
/// Retargeting refuses two rigs whose hips heights are too far apart to be one body's scale.
pub fn attach(
    character: &mut Rig,
    source: &Rig,
    label: &str,
    options: &BindOptions,
) -> Result<(), retarget::RatioRefused> {
    // A VRM animation on a VRM avatar binds through the humanoid, as three-vrm plays it.
    if source.vrma.is_some() && character.vrm.is_some() {
        attach_vrma(character, source, label);
        return Ok(());
    }
    let binding = bind::bind_nodes(character, source, options);
    let retarget = match options.retarget {
        Some(reference) => Some(retarget::Retarget::new(character, source, reference)?),
        None => None,
    };
    let report = fit::library_fit(character, label, source, &binding, options);
    let source_names = names::threejs_names(source);
    let shared = std::sync::Arc::new(source.clone());
    let (turn, scale) = retarget.as_ref().map_or((glam::Quat::IDENTITY, 1.0), |r| (r.turn, r.ratio));
    let beside = {
        let body = body::Body::new(character, body::ReferencePose::Bind);
        let left = body.frame.map_or(glam::Vec3::X, |f| f * glam::Vec3::X);
        left * body.hips_height.filter(|h| *h > 0.0).unwrap_or(1.0)
    };
    for (i, clip) in bind::threejs_clips(source).iter().enumerate() {
        let name = clip.name_or_index(i);
        let (channels, sources) = match &retarget {
            Some(r) => r.clip(character, source, clip, &binding),
            None => bind::rebind_clip(clip, &binding),
        };
        let bound = sources
            .iter()
            .map(|&s| BoundChannel {
                source: source.node_label(s),
                how: binding
                    .get(s)
                    .and_then(|b| b.as_ref())
                    .map_or(crate::rig::BindHow::Exact, |(_, how)| how.clone()),
            })
            .collect();
        let unbound = bind::unbound_tracks(&source_names, clip, &binding);
        let tracks = bind::bound_tracks(clip, &binding).map(|(_, _, how)| how.clone()).collect();
        let fit = report
            .clips
            .get(i)
            .map(|c| c.summary.clone())
            .unwrap_or_default()
            .into_iter()
            .chain(report.general.iter().cloned())
            .collect();
        character.attached.push(AttachedClip {
            clip: character.clips.len(),
            file: label.to_string(),
            name: name.clone(),
            bound,
            tracks,
            unbound,
            fit,
            source: Some(crate::rig::SourceRig { rig: shared.clone(), clip: i, turn, scale, beside }),
        });
        character.clips.push(Clip {
            vrm: None,
            name: Some(format!("{name} ({label})")),
            channels,
            duration: clip.duration,
        });
    }
    Ok(())
}

/// Appends every clip of the `.vrma` `source`, bound by `crate::vrma::bind`; its notes (what is
/// not played, where three-vrm would differ) are the clip's fit lines.
fn attach_vrma(character: &mut Rig, source: &Rig, label: &str) {
    for i in 0..source.clips.len() {
        let Ok(bound) = crate::vrma::bind(character, source, i) else {
            continue;
        };
        let name = source.clips[i].name_or_index(i);
        let channels: Vec<BoundChannel> = bound
            .clip
            .channels
            .iter()
            .map(|_| BoundChannel {
                source: "VRMC_vrm_animation".to_string(),
                how: crate::rig::BindHow::Exact,
            })
            .collect();
        character.attached.push(AttachedClip {
            clip: character.clips.len(),
            file: label.to_string(),
            name: name.clone(),
            tracks: channels.iter().map(|c| c.how.clone()).collect(),
            bound: channels,
            unbound: Vec::new(),
            source: None,
            fit: std::iter::once(bound.counts.describe()).chain(bound.notes).collect(),
        });
        character.clips.push(Clip { name: Some(format!("{name} ({label})")), ..bound.clip });
    }
}
