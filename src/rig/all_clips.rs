//! `--clip all`: every clip of the file played together, each channel from its own clip, as
//! glTF sample viewers play a file whose exporter wrote one clip per joint (COLLADA2GLTF).
//! Builds the combined clip from the file's own clips; it never changes the file's clips.

use super::{Clip, Property, Rig};
use std::collections::HashMap;

/// The `--clip` word and the combined clip's name (so `clip_label` gives what `--clip` takes).
pub const ALL_CLIPS: &str = "all";

impl Rig {
    /// The file's own clips, in file order: not those bound from `--anim` files (each of
    /// those is a whole-body clip; playing them together means nothing).
    pub fn own_clips(&self) -> impl Iterator<Item = usize> + '_ {
        let mut attached = vec![false; self.clips.len()];
        for a in &self.attached {
            if let Some(flag) = attached.get_mut(a.clip) {
                *flag = true;
            }
        }
        (0..self.clips.len()).filter(move |&c| !attached[c])
    }

    /// Every own clip's channels in one clip, lasting as long as the longest. A node's
    /// property driven by several clips (glTF allows one channel per target within a clip,
    /// but not across clips) takes the channel of the later clip in the file, so the
    /// combined clip drives each target once. `None` when the file has no clips of its own.
    pub fn all_clips(&self) -> Option<Clip> {
        let own: Vec<&Clip> = self.own_clips().map(|c| &self.clips[c]).collect();
        if own.is_empty() {
            return None;
        }
        let mut last: HashMap<(usize, Property), (usize, usize)> = HashMap::new();
        for (c, clip) in own.iter().enumerate() {
            for (i, channel) in clip.channels.iter().enumerate() {
                last.insert((channel.node, channel.property), (c, i));
            }
        }
        let channels = own
            .iter()
            .enumerate()
            .flat_map(|(c, clip)| clip.channels.iter().enumerate().map(move |(i, ch)| (c, i, ch)))
            .filter(|&(c, i, ch)| last.get(&(ch.node, ch.property)) == Some(&(c, i)))
            .map(|(_, _, ch)| ch.clone())
            .collect();
        Some(Clip {
            name: Some(ALL_CLIPS.to_string()),
            channels,
            duration: own.iter().map(|c| c.duration).fold(0.0, f32::max),
            vrm: own.iter().rev().find_map(|c| c.vrm.clone()),
        })
    }

    /// True when `--clip KEY` asks for every clip at once: KEY is `all`, no clip of the file
    /// is itself named `all` (that clip wins, as names do), and the file has clips of its own.
    pub fn plays_all(&self, key: &str) -> bool {
        key == ALL_CLIPS
            && self.clips.iter().all(|c| c.name.as_deref() != Some(ALL_CLIPS))
            && self.own_clips().next().is_some()
    }

    /// Resolves `--clip all` (see `plays_all`) by adding the combined clip and returning its
    /// index; `None` for any other key.
    pub fn add_all_clips(&mut self, key: &str) -> Option<usize> {
        if !self.plays_all(key) {
            return None;
        }
        let all = self.all_clips()?;
        self.clips.push(all);
        Some(self.clips.len() - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{AttachedClip, Channel, Interpolation};

    fn channel(node: usize, property: Property, last: f32) -> Channel {
        Channel {
            node,
            property,
            interpolation: Interpolation::Linear,
            times: vec![0.0, last].into(),
            values: vec![0.0; 6].into(),
            components: 3,
        }
    }

    fn clip(name: &str, channels: Vec<Channel>) -> Clip {
        let duration = channels.iter().filter_map(|c| c.times.last().copied()).fold(0.0, f32::max);
        Clip { name: Some(name.into()), channels, duration, vrm: None }
    }

    #[test]
    fn every_own_clip_plays_once_per_target_the_later_clip_winning() {
        let t = Property::Translation;
        let mut rig = Rig {
            clips: vec![
                clip("a", vec![channel(0, t, 1.0), channel(1, t, 1.0)]),
                clip("b", vec![channel(1, t, 3.0), channel(2, Property::Scale, 2.0)]),
                clip("lib (x.glb)", vec![channel(5, t, 9.0)]),
            ],
            attached: vec![AttachedClip { clip: 2, ..AttachedClip::default() }],
            ..Rig::default()
        };
        let all = rig.all_clips().expect("two own clips");
        let targets: Vec<(usize, f32)> =
            all.channels.iter().map(|c| (c.node, *c.times.last().unwrap())).collect();
        // Node 1's translation comes from b (last key 3), not a; the --anim clip is left out.
        assert_eq!(targets, vec![(0, 1.0), (1, 3.0), (2, 2.0)]);
        assert_eq!(all.duration, 3.0);
        assert_eq!(rig.add_all_clips("al"), None);
        assert_eq!(rig.add_all_clips("all"), Some(3));
        assert_eq!(rig.find_clip("all"), Some(3));
        // A second `all` finds the file's (here, the first added) clip of that name.
        assert_eq!(rig.add_all_clips("all"), None);
        assert_eq!(Rig::default().all_clips().map(|c| c.channels.len()), None);
    }
}
