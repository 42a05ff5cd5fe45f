//! The clip picker (`K`): every clip of the list in an overlay, narrowed by a typed filter
//! (a case-insensitive substring, as the bone filter matches), one of them under a cursor.

use crate::rig::Rig;

/// One clip as the picker lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Its index in `Rig::clips`.
    pub clip: usize,
    /// Its name in its own file (an `--anim` clip's without the file after it).
    pub name: String,
    pub duration: f32,
    /// The `--anim` file it came from (None: the character's own clip, or `all`).
    pub file: Option<String>,
}

/// What is typed and where the cursor is; the matching entries are computed from the rig.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClipPicker {
    pub filter: String,
    /// Index into `entries`' result.
    pub cursor: usize,
}

impl ClipPicker {
    /// The clips whose name or file contains the filter, ignoring case, in list order.
    pub fn entries(&self, rig: &Rig) -> Vec<Entry> {
        let needle = self.filter.to_lowercase();
        (0..rig.clips.len())
            .map(|clip| entry(rig, clip))
            .filter(|e| {
                e.name.to_lowercase().contains(&needle)
                    || e.file.as_ref().is_some_and(|f| f.to_lowercase().contains(&needle))
            })
            .collect()
    }

    /// Moves the cursor by `delta` within `len` entries, stopping at the ends.
    pub fn move_cursor(&mut self, delta: isize, len: usize) {
        self.cursor = self.cursor.saturating_add_signed(delta).min(len.saturating_sub(1));
    }

    /// The clip under the cursor (the cursor clamped to what matches), if any matches.
    pub fn chosen(&self, rig: &Rig) -> Option<usize> {
        let entries = self.entries(rig);
        entries.get(self.cursor.min(entries.len().saturating_sub(1))).map(|e| e.clip)
    }
}

fn entry(rig: &Rig, clip: usize) -> Entry {
    let attached = rig.attached.iter().find(|a| a.clip == clip);
    Entry {
        clip,
        name: attached.map_or_else(|| rig.clip_label(clip), |a| a.name.clone()),
        duration: rig.clips[clip].duration,
        file: attached.map(|a| a.file.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{AttachedClip, Clip};

    fn rig() -> Rig {
        let clip = |name: &str, duration| Clip { name: Some(name.into()), duration, ..Clip::default() };
        Rig {
            clips: vec![clip("Walk", 1.0), clip("Idle", 2.0), clip("run (lib.glb)", 0.5)],
            attached: vec![AttachedClip {
                clip: 2,
                file: "lib.glb".into(),
                name: "run".into(),
                ..Default::default()
            }],
            ..Rig::default()
        }
    }

    #[test]
    fn the_filter_ignores_case_and_matches_the_file_too() {
        let rig = rig();
        let mut picker = ClipPicker { filter: "wAL".into(), cursor: 0 };
        let names = |p: &ClipPicker| p.entries(&rig).into_iter().map(|e| e.name).collect::<Vec<_>>();
        assert_eq!(names(&picker), ["Walk"]);
        picker.filter = "LIB".into();
        assert_eq!(names(&picker), ["run"]);
        assert_eq!(picker.entries(&rig)[0].file.as_deref(), Some("lib.glb"));
        picker.filter = "zzz".into();
        assert_eq!(picker.chosen(&rig), None);
    }

    #[test]
    fn the_cursor_stops_at_the_ends() {
        let rig = rig();
        let mut picker = ClipPicker::default();
        picker.move_cursor(-1, 3);
        assert_eq!(picker.chosen(&rig), Some(0));
        picker.move_cursor(5, 3);
        assert_eq!(picker.chosen(&rig), Some(2));
    }
}
