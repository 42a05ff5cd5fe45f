//! Live reload's carry-over: the viewer swaps in an app built on the re-read file and keeps
//! what the user set up, matched by name (clip, selected bone, skin, folded bones), since
//! indices shift whenever an exporter adds or removes a node. Pure: no file or terminal I/O,
//! so a test reloads with any rig it builds.

use super::{App, BoneTree, Playback};
use crate::rig::Rig;

/// The status bar's line about the file: what the last reload changed, or why it failed.
#[derive(Debug, Clone, PartialEq)]
pub struct FileNote {
    pub text: String,
    /// The file on disk is broken: the viewer still shows the last good load.
    pub error: bool,
}

/// Names listed per kind of change before "…".
const LISTED: usize = 3;

impl App {
    /// Becomes `fresh` (an app just built on the reloaded file) while keeping the clip (by
    /// name), time, playback settings, camera, selected bone (by name), skin, panels and view.
    pub fn adopt(&mut self, mut fresh: App) {
        let mut text = changes(&self.rig, &fresh.rig);

        let skin = self.skin.and_then(|s| find_skin(&self.rig, s, &fresh.rig)).or(fresh.skin);
        if skin != fresh.skin {
            fresh.skin = skin;
            fresh.tree = BoneTree::new(&fresh.rig, skin);
        }

        let clip_name = self.clip.map(|c| self.rig.clip_label(c));
        let clip = match &clip_name {
            Some(name) => {
                let found = fresh.rig.clips.iter().position(|c| c.name.as_deref() == Some(name.as_str()));
                // An unnamed clip is known only by its place in the file.
                let found = found
                    .or_else(|| self.clip.filter(|&c| c < fresh.rig.clips.len() && name.starts_with('#')));
                if found.is_none() {
                    text = text.replacen("reloaded", &format!("reloaded (clip {name} is gone)"), 1);
                }
                found.or(fresh.clip)
            }
            None => fresh.clip,
        };
        fresh.clip = clip;
        let duration = clip.and_then(|c| fresh.rig.clips.get(c)).map_or(0.0, |c| c.duration);
        fresh.playback = Playback::new(duration);
        fresh.playback.speed = self.playback.speed;
        fresh.playback.mode = self.playback.mode;
        fresh.playback.paused = self.playback.paused || duration <= 0.0;
        fresh.playback.seek(self.playback.time);
        fresh.refresh_clip_info();
        fresh.pose_dirty = true;
        fresh.evaluate();

        fresh.tree.filter = self.tree.filter.clone();
        fresh.tree.filtering = self.tree.filtering;
        for node in self.tree.collapsed_nodes() {
            if let Some(n) = find_node(&self.rig, node, &fresh.rig) {
                fresh.tree.set_collapsed(n);
            }
        }
        if let Some(n) = self.selected().and_then(|s| find_node(&self.rig, s, &fresh.rig)) {
            fresh.tree.selected = Some(n);
        }
        fresh.tree.rebuild(&fresh.rig);
        fresh.refresh_skin();
        if let Some(v) = self.vertex
            && fresh.weights.vertices.contains(&v)
        {
            fresh.vertex = Some(v);
        }

        fresh.set_engine(self.engine);
        fresh.camera = self.camera;
        // The zoom shown is relative to the framing the camera was made for.
        fresh.framed_distance = self.framed_distance;
        fresh.view = self.view;
        fresh.details_scroll = self.details_scroll;
        fresh.full_precision = self.full_precision;
        fresh.show_nodes = self.show_nodes;
        // `--compare B` stays on, matched anew to the reloaded rig.
        if let Some(compare) = self.compare.take() {
            let mut compare = crate::tui::compare::Compare::new(&fresh.rig, compare.rig);
            compare.evaluate(&fresh.rig, fresh.clip, fresh.playback.time);
            fresh.compare = Some(compare);
        }
        fresh.mode_before_heatmap = self.mode_before_heatmap;
        fresh.focus = self.focus;
        fresh.show_help = self.show_help;
        fresh.help_scroll = self.help_scroll;
        fresh.show_stats = self.show_stats;
        fresh.tree_page = self.tree_page;
        fresh.fps = self.fps;
        fresh.color = self.color;
        fresh.timings = self.timings;
        fresh.problem = self.problem.min(fresh.vertex_problems.len().saturating_sub(1));
        fresh.file_note = Some(FileNote { text, error: false });
        fresh.pose_dirty = true;
        fresh.dirty = true;
        *self = fresh;
    }

    /// The file changed but does not load: keep everything, say why.
    pub fn reload_failed(&mut self, why: &str) {
        let text = format!("reload failed, showing the last good load: {why}");
        self.file_note = Some(FileNote { text, error: true });
        self.dirty = true;
    }
}

/// The skin of `new` that matches `old`'s skin `s`: the same name, else the same place.
fn find_skin(old: &Rig, s: usize, new: &Rig) -> Option<usize> {
    let name = old.skins.get(s)?.name.as_deref();
    match name {
        Some(n) if !n.is_empty() => new.skins.iter().position(|k| k.name.as_deref() == Some(n)),
        _ => (s < new.skins.len()).then_some(s),
    }
}

/// The node of `new` labelled as `old`'s node is (a name, or `#N` for an unnamed node).
fn find_node(old: &Rig, node: usize, new: &Rig) -> Option<usize> {
    let label = old.node_label(node);
    (0..new.nodes.len()).find(|&n| new.node_label(n) == label)
}

/// One line: joints added and removed (by name), the vertex count, clips added and removed.
pub fn changes(old: &Rig, new: &Rig) -> String {
    let mut parts = Vec::new();
    let (before, after) = (joint_names(old), joint_names(new));
    let added: Vec<&String> = after.iter().filter(|n| !before.contains(n)).collect();
    let removed: Vec<&String> = before.iter().filter(|n| !after.contains(n)).collect();
    if !added.is_empty() {
        parts.push(format!(
            "+{} ({})",
            crate::tui::ui::count(added.len(), "joint", "joints"),
            listed(&added)
        ));
    }
    if !removed.is_empty() {
        parts.push(format!(
            "-{} ({})",
            crate::tui::ui::count(removed.len(), "joint", "joints"),
            listed(&removed)
        ));
    }
    let (va, vb) = (vertex_count(old), vertex_count(new));
    if va != vb {
        parts.push(format!("vertices {va} -> {vb}"));
    }
    let (ca, cb) = (clip_names(old), clip_names(new));
    let added: Vec<&String> = cb.iter().filter(|n| !ca.contains(n)).collect();
    let removed: Vec<&String> = ca.iter().filter(|n| !cb.contains(n)).collect();
    if !added.is_empty() {
        parts.push(format!("+{} ({})", crate::tui::ui::count(added.len(), "clip", "clips"), listed(&added)));
    }
    if !removed.is_empty() {
        parts.push(format!(
            "-{} ({})",
            crate::tui::ui::count(removed.len(), "clip", "clips"),
            listed(&removed)
        ));
    }
    if parts.is_empty() {
        "reloaded: same joints, vertices and clips".into()
    } else {
        format!("reloaded: {}", parts.join(", "))
    }
}

fn listed(names: &[&String]) -> String {
    let shown: Vec<&str> = names.iter().take(LISTED).map(|s| s.as_str()).collect();
    let more = if names.len() > LISTED { ", …" } else { "" };
    format!("{}{more}", shown.join(", "))
}

/// The labels of every node that is a joint of some skin, in node order.
fn joint_names(rig: &Rig) -> Vec<String> {
    let mut joint = vec![false; rig.nodes.len()];
    for &j in rig.skins.iter().flat_map(|s| &s.joints) {
        if let Some(f) = joint.get_mut(j) {
            *f = true;
        }
    }
    (0..rig.nodes.len()).filter(|&n| joint[n]).map(|n| rig.node_label(n)).collect()
}

fn vertex_count(rig: &Rig) -> usize {
    rig.meshes.iter().flat_map(|m| &m.primitives).map(|p| p.positions.len()).sum()
}

fn clip_names(rig: &Rig) -> Vec<String> {
    (0..rig.clips.len()).map(|c| rig.clip_label(c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::Launch;
    use crate::tui::action::{Action, Focus};

    fn walker() -> Rig {
        crate::import::load_bytes(crate::cli::BUNDLED_SAMPLE, "walker.glb", None).unwrap()
    }

    fn app(rig: Rig) -> App {
        App::new(rig, &Launch { paused: true, ..Default::default() })
    }

    #[test]
    fn an_unchanged_file_keeps_every_setting_and_says_nothing_changed() {
        let mut a = app(walker());
        a.update(Action::NextClip);
        a.update(Action::Seek(0.3));
        a.update(Action::SelectDown);
        a.update(Action::SelectDown);
        a.update(Action::Orbit { yaw: 30.0, pitch: 5.0 });
        a.update(Action::ToggleNames);
        a.update(Action::Focus(Focus::Weights));
        let (clip, selected, camera, view) = (a.clip, a.selected(), a.camera, a.view);
        // The walker's second clip (idle), so that "the first clip" would not pass.
        assert_eq!(clip, Some(1));
        a.adopt(app(walker()));
        assert_eq!(a.clip, clip);
        assert!((a.playback.time - 0.3).abs() < 1e-6);
        assert!(a.playback.paused);
        assert_eq!(a.selected(), selected);
        assert_eq!(a.camera, camera);
        assert_eq!(a.view, view);
        assert_eq!(a.focus, Focus::Weights);
        let note = a.file_note.clone().unwrap();
        assert_eq!(note, FileNote { text: "reloaded: same joints, vertices and clips".into(), error: false });
        // The next key clears the summary.
        a.update(Action::ToggleStats);
        assert_eq!(a.file_note, None);
    }

    #[test]
    fn folded_bones_and_the_filter_are_kept() {
        let mut a = app(walker());
        // The tree opens on the skeleton's root: fold it, then filter.
        let root = a.selected().unwrap();
        a.update(Action::Collapse);
        assert_eq!(a.tree.collapsed_nodes().collect::<Vec<_>>(), vec![root]);
        a.update(Action::StartFilter);
        a.update(Action::FilterChar('s'));
        a.update(Action::FilterAccept);
        let rows: Vec<usize> = a.tree.rows().iter().map(|r| r.node).collect();
        a.adopt(app(walker()));
        assert_eq!(a.tree.collapsed_nodes().collect::<Vec<_>>(), vec![root]);
        assert_eq!(a.tree.filter, "s");
        assert_eq!(a.tree.rows().iter().map(|r| r.node).collect::<Vec<_>>(), rows);
    }

    #[test]
    fn state_follows_names_when_nodes_and_clips_move() {
        let mut a = app(walker());
        a.update(Action::NextClip);
        a.update(Action::Seek(0.25));
        a.update(Action::SelectDown);
        let bone = a.rig.node_label(a.selected().unwrap());
        let clip = a.rig.clip_label(a.clip.unwrap());

        // The "new export": clips in the other order and an extra clip; one joint renamed.
        let mut new = walker();
        new.clips.reverse();
        let mut extra = new.clips[0].clone();
        extra.name = Some("wave".into());
        new.clips.push(extra);
        let renamed = new.skins[0].joints[0];
        let old_name = new.node_label(renamed);
        assert_ne!(old_name, bone, "the selected bone must not be the renamed one");
        new.nodes[renamed].name = Some("root_v2".into());
        a.adopt(app(new));

        assert_eq!(a.rig.clip_label(a.clip.unwrap()), clip);
        assert!((a.playback.time - 0.25).abs() < 1e-6);
        assert_eq!(a.rig.node_label(a.selected().unwrap()), bone);
        let text = &a.file_note.as_ref().unwrap().text;
        assert_eq!(text, &format!("reloaded: +1 joint (root_v2), -1 joint ({old_name}), +1 clip (wave)"),);
    }

    #[test]
    fn a_gone_clip_falls_back_and_vertex_counts_are_reported() {
        let mut a = app(walker());
        let first = a.rig.clip_label(0);
        let mut new = walker();
        new.clips.remove(0);
        let before: usize = new.meshes.iter().flat_map(|m| &m.primitives).map(|p| p.positions.len()).sum();
        let p = &mut new.meshes[0].primitives[0];
        p.positions = p.positions.iter().chain(&p.positions[..1]).copied().collect();
        let text = changes(&a.rig, &new);
        assert!(text.contains(&format!("vertices {before} -> {}", before + 1)), "{text}");
        a.adopt(app(new));
        let note = &a.file_note.as_ref().unwrap().text;
        assert!(note.starts_with(&format!("reloaded (clip {first} is gone): ")), "{note}");
        assert!(note.contains(&format!("-1 clip ({first})")), "{note}");
        assert_eq!(a.clip, if a.rig.clips.is_empty() { None } else { Some(0) });
    }

    #[test]
    fn a_failed_reload_keeps_the_rig_and_says_so() {
        let mut a = app(walker());
        a.update(Action::Seek(0.5));
        let nodes = a.rig.nodes.len();
        let broken = crate::import::load_bytes(b"{\"asset\":", "walker.glb", None).unwrap_err();
        a.reload_failed(&broken.to_string());
        assert_eq!(a.rig.nodes.len(), nodes);
        assert!((a.playback.time - 0.5).abs() < 1e-6);
        let note = a.file_note.as_ref().unwrap();
        assert!(note.error);
        assert!(
            note.text.starts_with("reload failed, showing the last good load: walker.glb"),
            "{}",
            note.text
        );
        // The next good load clears the error.
        a.adopt(app(walker()));
        assert!(!a.file_note.as_ref().unwrap().error);
    }
}
