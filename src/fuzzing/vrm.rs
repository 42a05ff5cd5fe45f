//! The `vrm` target: a fuzzed glTF JSON read as a VRM avatar (0.x or 1.0, springs included)
//! or a VRM animation. The first byte picks the BIN chunk it is framed with: even, the one
//! every walker avatar fixture shares; odd, the `.vrma` fixture's; so the seeds are those
//! files' JSON and every mutation reaches the extension readers.

use super::binding::{fit_in_words, play_bound};
use super::samples;
use super::tame::tame;
use crate::attach::{BindOptions, anim_warnings, attach};
use crate::report::vrm::{VrmAnimationDoc, VrmDoc};
use crate::rig::Rig;
use crate::{diagnose, import};

pub fn vrm(data: &[u8]) {
    let [which, json @ ..] = data else { return };
    let bin = &samples::bins()[usize::from(*which % 2)];
    let Ok(rig) = import::load_bytes(&samples::glb(json, bin), "fuzz-input", None) else { return };
    described(&rig);
    if rig.vrm.is_some() {
        avatar(&rig);
    }
    if rig.vrma.is_some() {
        for avatar in samples::avatars() {
            animation_on(avatar, &rig);
        }
    }
}

/// What `inspect` and `check` say of the extensions: written in text and JSON, no panic.
fn described(rig: &Rig) {
    let mut text = Vec::new();
    if let Err(e) = crate::report::vrm::write_text(rig, &mut text) {
        panic!("the VRM text cannot be written: {e}");
    }
    let docs = (serde_json::to_vec(&VrmDoc::new(rig)), serde_json::to_vec(&VrmAnimationDoc::new(rig)));
    if let (Err(e), _) | (_, Err(e)) = docs {
        panic!("the VRM report cannot be written as JSON: {e}");
    }
    let _ = diagnose::check(rig, &diagnose::Options::default());
}

/// A fuzzed avatar plays its own clips and the sample walk, springs stepped.
fn avatar(rig: &Rig) {
    let mut played = rig.clone();
    if let Err(e) = attach(&mut played, samples::vrma(), "walker-walk.vrma", &BindOptions::default()) {
        panic!("a .vrma binding was refused: {e}");
    }
    play_bound(&played, 0, false);
    fit_in_words(rig, samples::vrma(), &BindOptions::default());
}

/// A fuzzed `.vrma` on a sample avatar: every clip binds or says why, plays, and, when the
/// animation's numbers are ordinary, poses the avatar to finite places.
fn animation_on(avatar: &Rig, anim: &Rig) {
    let _ = anim_warnings(anim, "fuzz-input");
    let mut played = avatar.clone();
    if let Err(e) = attach(&mut played, anim, "fuzz-input", &BindOptions::default()) {
        panic!("a .vrma binding was refused: {e}");
    }
    play_bound(&played, avatar.clips.len(), tame(anim));
    fit_in_words(avatar, anim, &BindOptions::default());
}
