//! The `retarget` target: a fuzzed library retargeted onto the walker and the walker's clips
//! retargeted onto a fuzzed character, from either reference pose, with `fit`'s measures of
//! each pair.

use super::binding::{fit_in_words, play_bound};
use super::samples;
use super::tame::{finite, tame};
use crate::attach::body::ReferencePose;
use crate::attach::retarget::{RATIO_LIMITS, RatioRefused};
use crate::attach::{BindMode, BindOptions, attach};
use crate::import;
use crate::rig::Rig;

pub fn retarget(data: &[u8]) {
    let Ok(fuzzed) = import::load_bytes(data, "fuzz-input", None) else { return };
    let walker = samples::walker();
    // Each reference pose once, with one of the bind modes (every mode is `anim_bind`'s).
    for (reference, mode) in [(ReferencePose::Bind, BindMode::Exact), (ReferencePose::Rest, BindMode::Loose)]
    {
        let options = BindOptions { mode, map: None, retarget: Some(reference) };
        retarget_onto(walker, &fuzzed, &options);
        retarget_onto(&fuzzed, walker, &options);
    }
}

/// Retargets `lib` onto `character`: refused only for a hips height ratio outside the
/// limits; otherwise every key it writes is finite when both rigs are ordinary, and the
/// clips play. `fit`'s measures of the pair are finite then too.
fn retarget_onto(character: &Rig, lib: &Rig, options: &BindOptions) {
    let ordinary = tame(character) && tame(lib);
    let mut bound = character.clone();
    match attach(&mut bound, lib, "fuzz-input", options) {
        Err(RatioRefused { ratio, .. }) => {
            let sane = ratio.is_finite() && (RATIO_LIMITS.0..=RATIO_LIMITS.1).contains(&ratio);
            assert!(!sane, "retargeting refused a ratio of {ratio} inside the limits");
        }
        Ok(()) => {
            if ordinary {
                for clip in &bound.clips[character.clips.len()..] {
                    for ch in &clip.channels {
                        assert!(finite(&ch.values), "a retargeted key of node {} is not finite", ch.node);
                    }
                }
            }
            play_bound(&bound, character.clips.len(), ordinary);
        }
    }
    let report = fit_in_words(character, lib, options);
    let Some(measured) = report.libraries.first().and_then(|l| l.retarget.as_ref()) else { return };
    if !ordinary {
        return;
    }
    for way in std::iter::once(&measured.raw).chain(&measured.retargeted) {
        if let Some(limb) = &way.worst_limb {
            assert!(limb.degrees.is_finite() && limb.reference_degrees.is_finite(), "fit measures {limb:?}");
        }
        assert!(
            way.hips_drift.is_none_or(f32::is_finite),
            "fit measures a hips drift of {:?}",
            way.hips_drift
        );
    }
    let heights = [measured.character_hips_height, measured.library_hips_height, measured.ratio];
    assert!(heights.iter().flatten().all(|h| h.is_finite()), "fit measures hips heights {heights:?}");
    assert!(
        measured.identity_radians.is_none_or(f32::is_finite),
        "fit measures {:?}",
        measured.identity_radians
    );
}
