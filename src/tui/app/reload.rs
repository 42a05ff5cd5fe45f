//! Live reload's carry-over: the viewer swaps in an app built on the re-read file and keeps
//! what the user set up, matched by name (clip, selected bone, skin, folded bones), since
//! indices shift whenever an exporter adds or removes a node. Pure: no file or terminal I/O,
//! so a test reloads with any rig it builds.

use super::{App, BoneTree, Playback};
use crate::render::framed_camera;
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
        // The `all` entries follow from the file's clips: what changed is said of those.
        let old_all = if self.all_entry { self.rig.clips.pop() } else { None };
        let new_all = if fresh.all_entry { fresh.rig.clips.pop() } else { None };
        let mut text = changes(&self.rig, &fresh.rig);
        self.rig.clips.extend(old_all);
        fresh.rig.clips.extend(new_all);

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
        fresh.step = self.step;
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
        if let Some(camera) = reframed(self, &fresh) {
            fresh.framed_distance = camera.distance * self.zoom();
            fresh.camera = camera;
            // First, where an 80-column status line still shows it: the view jumping is
            // what the user sees before anything else.
            text = text.replacen("reloaded", "reloaded, view re-framed", 1);
        } else {
            fresh.camera = self.camera;
            // The zoom shown is relative to the framing the camera was made for.
            fresh.framed_distance = self.framed_distance;
        }
        fresh.view = self.view;
        fresh.details_scroll = self.details_scroll;
        fresh.full_precision = self.full_precision;
        fresh.euler = self.euler;
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
        // The picker lists the reloaded file's clips, under the filter being typed.
        fresh.picker = self.picker.take();
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

/// How much larger or smaller the framing may get, and how far (in framing distances) its
/// centre may move, before the old camera no longer shows the rig: a re-export nudges the
/// bounds by far less; another rig (a Fox replaced by a CesiumMan) by far more.
const FRAMING_SCALE: f32 = 1.5;
const FRAMING_SHIFT: f32 = 0.15;

/// The camera for `fresh` when its rig's bounds differ from `old`'s beyond what the user's
/// zoom and pan account for: framed anew from the user's angles and at the user's zoom, so a
/// re-framed view looks as the user had it, on the new rig. None: keep the old camera.
/// Both framings are taken at the same time of the same clip, so a walk cycle's stride
/// does not count as a change.
fn reframed(old: &App, fresh: &App) -> Option<crate::render::Camera> {
    let (yaw, pitch) = (old.camera.yaw, old.camera.pitch);
    let was = framed_camera(&old.ws, yaw, pitch, 1.0);
    let now = framed_camera(&fresh.ws, yaw, pitch, 1.0);
    let scale = now.distance / was.distance;
    let shift = now.target.distance(was.target) / was.distance;
    let same = scale.is_finite()
        && (1.0 / FRAMING_SCALE..=FRAMING_SCALE).contains(&scale)
        && shift.is_finite()
        && shift <= FRAMING_SHIFT;
    (!same).then(|| framed_camera(&fresh.ws, yaw, pitch, old.zoom()))
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

/// One line, as brief as `diff`'s summary and from the same matching (`diff::outline`): joints
/// added, removed and renamed, rest-pose moves, the vertex count, clips added, removed,
/// renamed and retimed. Poses are not sampled: the line must be ready within a frame.
pub fn changes(old: &Rig, new: &Rig) -> String {
    use crate::tui::ui::count;
    let o = crate::diff::outline(old, new, crate::diff::DEFAULT_TOLERANCE);
    let mut parts = Vec::new();
    let (j, c) = (&o.joints, &o.clips);
    let renames =
        |r: &[crate::diff::Rename]| r.iter().map(|r| format!("{} -> {}", r.from, r.to)).collect::<Vec<_>>();
    if !j.added.is_empty() {
        parts.push(format!("+{} ({})", count(j.added.len(), "joint", "joints"), listed(&j.added)));
    }
    if !j.removed.is_empty() {
        parts.push(format!("-{} ({})", count(j.removed.len(), "joint", "joints"), listed(&j.removed)));
    }
    if !j.renamed.is_empty() {
        let names = renames(&j.renamed);
        parts.push(format!("renamed {} ({})", count(names.len(), "joint", "joints"), listed(&names)));
    }
    if !j.reparented.is_empty() {
        let names: Vec<String> = j.reparented.iter().map(|r| r.joint.clone()).collect();
        parts.push(format!("reparented {} ({})", count(names.len(), "joint", "joints"), listed(&names)));
    }
    if !j.rest.is_empty() {
        // Largest first, as `diff` lists them.
        let names: Vec<String> = j.rest.iter().map(|r| r.joint.clone()).collect();
        parts.push(format!(
            "rest pose moved: {} ({})",
            count(names.len(), "joint", "joints"),
            listed(&names)
        ));
    }
    let (va, vb) = (vertex_count(old), vertex_count(new));
    if va != vb {
        parts.push(format!("vertices {va} -> {vb}"));
    }
    if !c.added.is_empty() {
        parts.push(format!("+{} ({})", count(c.added.len(), "clip", "clips"), listed(&c.added)));
    }
    if !c.removed.is_empty() {
        parts.push(format!("-{} ({})", count(c.removed.len(), "clip", "clips"), listed(&c.removed)));
    }
    if !c.renamed.is_empty() {
        let names = renames(&c.renamed);
        parts.push(format!("renamed {} ({})", count(names.len(), "clip", "clips"), listed(&names)));
    }
    let retimed: Vec<String> = c
        .changed
        .iter()
        .filter_map(|ch| ch.duration.map(|[x, y]| format!("{} {} -> {} s", ch.clip, seconds(x), seconds(y))))
        .collect();
    if !retimed.is_empty() {
        parts.push(format!("retimed {}", listed(&retimed)));
    }
    if parts.is_empty() {
        "reloaded: same joints, rest pose, vertices and clips".into()
    } else {
        format!("reloaded: {}", parts.join(", "))
    }
}

/// Seconds with at most 3 decimals and no trailing zeros (`1.5`, `0.833`).
fn seconds(x: f32) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn listed(names: &[String]) -> String {
    let shown: Vec<&str> = names.iter().take(LISTED).map(|s| s.as_str()).collect();
    let more = if names.len() > LISTED { ", …" } else { "" };
    format!("{}{more}", shown.join(", "))
}

fn vertex_count(rig: &Rig) -> usize {
    rig.meshes.iter().flat_map(|m| &m.primitives).map(|p| p.positions.len()).sum()
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
        assert_eq!(
            note,
            FileNote { text: "reloaded: same joints, rest pose, vertices and clips".into(), error: false }
        );
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
        // The renamed joint keeps its place and rest transform: `diff`'s matching calls it a
        // rename rather than one joint added and another removed.
        assert_eq!(text, &format!("reloaded: renamed 1 joint ({old_name} -> root_v2), +1 clip (wave)"));
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

    /// The note says what `diff` would: the joint whose rest pose moved and the retimed clip
    /// with both durations (the walker's first clip stretched by 1.5).
    #[test]
    fn rest_moves_and_retimings_are_in_the_line() {
        let old = walker();
        let mut new = walker();
        let moved = new.skins[0].joints[1];
        new.nodes[moved].rest.translation.y += 0.05;
        let before = new.clips[0].duration;
        for ch in &mut new.clips[0].channels {
            std::sync::Arc::make_mut(&mut ch.times).iter_mut().for_each(|t| *t *= 1.5);
        }
        new.clips[0].duration *= 1.5;
        let text = changes(&old, &new);
        let expected = format!(
            "reloaded: rest pose moved: 1 joint ({}), retimed {} {} -> {} s",
            new.node_label(moved),
            new.clip_label(0),
            seconds(before),
            seconds(before * 1.5)
        );
        assert_eq!(text, expected);
    }

    fn scaled(by: f32) -> Rig {
        let mut rig = walker();
        for r in rig
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.parent.is_none())
            .map(|(i, _)| i)
            .collect::<Vec<_>>()
        {
            rig.nodes[r].rest.scale *= by;
            rig.nodes[r].rest.translation *= by;
        }
        rig
    }

    /// Another rig three times the size: the view is framed anew from the user's angles and at
    /// the user's zoom, and the line says so. A rig 10% larger is what a re-export does: the
    /// camera stays where the user put it.
    #[test]
    fn a_rig_of_another_size_is_re_framed_and_a_nudge_is_not() {
        let mut a = app(walker());
        a.update(Action::Orbit { yaw: 40.0, pitch: -5.0 });
        a.update(Action::Zoom(0.5));
        let zoom = a.zoom();
        assert!((zoom - 2.0).abs() < 1e-4, "{zoom}");
        let camera = a.camera;
        a.adopt(app(scaled(1.1)));
        assert_eq!(a.camera, camera);
        assert!(!a.file_note.as_ref().unwrap().text.contains("re-framed"));

        let camera = a.camera;
        a.adopt(app(scaled(3.0)));
        let note = &a.file_note.as_ref().unwrap().text;
        assert!(note.starts_with("reloaded, view re-framed: "), "{note}");
        assert!((a.camera.yaw - camera.yaw).abs() < 1e-6 && (a.camera.pitch - camera.pitch).abs() < 1e-6);
        // The framing distance grows with the rig (3 times, up to the bounds' rounding),
        // and the user's zoom of 2 is kept on it.
        let expected = framed_camera(&a.ws, a.camera.yaw, a.camera.pitch, 1.0);
        assert!((a.framed_distance - expected.distance).abs() < 1e-4 * expected.distance);
        assert!((a.zoom() - 2.0).abs() < 1e-4, "{}", a.zoom());
        assert!(a.camera.distance > 2.5 * camera.distance, "{} vs {}", a.camera.distance, camera.distance);
    }
}
