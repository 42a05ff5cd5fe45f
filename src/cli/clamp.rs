//! Saying so when a requested time falls outside the clip: playback and sampling clamp it
//! (glTF holds the first and last keys), and a script asking for `--time 99` should learn
//! that it got the last frame instead.

use crate::rig::Rig;

/// The note for `t` on `clip`, or `None` when `t` lies within it (or there is no clip).
pub fn time_note(rig: &Rig, clip: Option<usize>, t: f32) -> Option<String> {
    flag_note(rig, clip, "--time", t)
}

/// `time_note` for the option `flag` (`--from`, `--to`).
pub fn flag_note(rig: &Rig, clip: Option<usize>, flag: &str, t: f32) -> Option<String> {
    let index = clip?;
    let data = rig.clips.get(index)?;
    let (shown, side) = if t < 0.0 {
        (0.0, "before the start")
    } else if t > data.duration {
        (data.duration, "past the end")
    } else {
        return None;
    };
    Some(format!(
        "{}: {flag} {t} is {side} of clip {} ({} s long): showing t = {shown}",
        rig.source,
        rig.clip_label(index),
        data.duration
    ))
}

/// Prints each note on stderr, as rigscope's other notes.
pub fn warn_times(rig: &Rig, clip: Option<usize>, times: &[f32]) {
    for &t in times {
        if let Some(note) = time_note(rig, clip, t) {
            eprintln!("rigscope: note: {}", crate::report::printable(&note));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::Clip;

    fn rig_with_clip(duration: f32) -> Rig {
        Rig {
            source: "x.glb".into(),
            clips: vec![Clip { vrm: None, name: Some("walk".into()), channels: Vec::new(), duration }],
            ..Rig::default()
        }
    }

    #[test]
    fn times_outside_the_clip_are_named_with_the_time_shown() {
        let rig = rig_with_clip(1.5);
        assert_eq!(time_note(&rig, Some(0), 0.0), None);
        assert_eq!(time_note(&rig, Some(0), 1.5), None);
        assert_eq!(
            time_note(&rig, Some(0), 99.0).as_deref(),
            Some("x.glb: --time 99 is past the end of clip walk (1.5 s long): showing t = 1.5")
        );
        assert_eq!(
            time_note(&rig, Some(0), -2.0).as_deref(),
            Some("x.glb: --time -2 is before the start of clip walk (1.5 s long): showing t = 0")
        );
        assert_eq!(time_note(&rig, None, 99.0), None);
    }
}
