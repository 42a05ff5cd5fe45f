//! Live reload: the viewer takes the session built on the re-read file, then finds again by
//! name what the parts of the user's choice point at (clip, skin, selected and folded bones,
//! held expression), since indices shift whenever an exporter adds or removes a node. The
//! parts themselves are kept whole. Pure: no file or terminal I/O, so a test reloads with any
//! rig it builds.

use super::{App, FileNote, Session};
use crate::rig::Rig;

/// Names listed per kind of change before "…".
const LISTED: usize = 3;

impl App {
    /// Swaps in `fresh` (a session built on the reloaded file), keeping the clip (by name),
    /// time, playback settings, camera, selected bone (by name), skin, panels and view.
    pub fn reload(&mut self, mut fresh: Session) {
        let mut text = file_changes(&mut self.session, &mut fresh);
        let old = std::mem::replace(&mut self.session, fresh);
        if let Some(name) = self.player.rematch(&old, &self.session) {
            text = text.replacen("reloaded", &format!("reloaded (clip {name} is gone)"), 1);
        }
        // The new rig posed at the kept time: the framing below compares it with the old one.
        self.schedule.pose_dirty = true;
        self.evaluate();
        self.selection.rematch(&old, &self.session);
        self.session.set_engine(self.view.engine, self.player.clip, self.player.playback.time);
        if self.view.rematch(&old.ws, &self.session.ws) {
            // First, where an 80-column status line still shows it: the view jumping is
            // what the user sees before anything else.
            text = text.replacen("reloaded", "reloaded, view re-framed", 1);
        }
        self.status.message = self.session.warnings();
        self.status.file_note = Some(FileNote { text, error: false });
        // Once more before the next frame: the engine's workspace is posed with the rest.
        self.schedule.pose_dirty = true;
        self.schedule.dirty = true;
    }

    /// The file changed but does not load: keep everything, say why.
    pub fn reload_failed(&mut self, why: &str) {
        let text = format!("reload failed, showing the last good load: {why}");
        self.status.file_note = Some(FileNote { text, error: true });
        self.schedule.dirty = true;
    }

    /// The file cannot be watched: a note in the status bar, not a reason to refuse to show it.
    pub fn not_watching(&mut self, why: &str) {
        self.status.file_note = Some(FileNote { text: format!("not watching: {why}"), error: true });
    }
}

/// `changes` between the files' own clips: the `all` entries follow from them.
fn file_changes(old: &mut Session, new: &mut Session) -> String {
    let old_all = if old.all_entry { old.rig.clips.pop() } else { None };
    let new_all = if new.all_entry { new.rig.clips.pop() } else { None };
    let text = changes(&old.rig, &new.rig);
    old.rig.clips.extend(old_all);
    new.rig.clips.extend(new_all);
    text
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
    use crate::render::framed_camera;
    use crate::tui::Launch;
    use crate::tui::action::{Action, Focus};

    fn walker() -> Rig {
        crate::import::load_bytes(crate::cli::BUNDLED_SAMPLE, "walker.glb", None).unwrap()
    }

    fn paused() -> Launch {
        Launch { paused: true, ..Default::default() }
    }

    fn app(rig: Rig) -> App {
        App::new(rig, &paused())
    }

    fn session(rig: Rig) -> Session {
        Session::new(rig, &paused())
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
        let (clip, selected, camera, view) = (a.player.clip, a.selected(), a.view.camera, a.view);
        // The walker's second clip (idle), so that "the first clip" would not pass.
        assert_eq!(clip, Some(1));
        a.reload(session(walker()));
        assert_eq!(a.player.clip, clip);
        assert!((a.player.playback.time - 0.3).abs() < 1e-6);
        assert!(a.player.playback.paused);
        assert_eq!(a.selected(), selected);
        assert_eq!(a.view.camera, camera);
        assert_eq!(a.view, view);
        assert_eq!(a.panels.focus, Focus::Weights);
        let note = a.status.file_note.clone().unwrap();
        assert_eq!(
            note,
            FileNote { text: "reloaded: same joints, rest pose, vertices and clips".into(), error: false }
        );
        // The next key clears the summary.
        a.update(Action::ToggleStats);
        assert_eq!(a.status.file_note, None);
    }

    /// The parts of the user's choice come through a reload whole: nothing is copied field by
    /// field, so nothing can be left behind (the node browser, the curve shown, a half-typed
    /// prompt, the scrolls).
    #[test]
    fn a_reload_keeps_every_part_of_the_users_choice() {
        let mut a = app(walker());
        for action in [
            Action::NextClip,
            Action::Seek(0.3),
            Action::ToggleNodes,
            Action::SelectDown,
            Action::ToggleCurves,
            Action::ToggleEuler,
            Action::TogglePrecision,
            Action::ScrollDetails(3),
            Action::Focus(Focus::Weights),
            Action::ScrollDetails(2),
            Action::Zoom(0.5),
            Action::StartPrompt(crate::tui::action::PromptKind::Time),
            Action::PromptChar('1'),
        ] {
            a.update(action);
        }
        let (panels, overlays, view) = (a.panels.clone(), a.overlays.clone(), a.view);
        let rows: Vec<usize> = a.selection.tree.rows().iter().map(|r| r.node).collect();
        let (selected, playback) = (a.selected(), a.player.playback);
        a.reload(session(walker()));
        assert_eq!(a.panels, panels);
        assert_eq!(a.overlays, overlays);
        assert_eq!(a.view, view);
        assert!(a.selection.show_nodes);
        assert_eq!(a.selection.tree.rows().iter().map(|r| r.node).collect::<Vec<_>>(), rows);
        assert_eq!(a.selected(), selected);
        assert_eq!(a.player.playback, playback);
    }

    #[test]
    fn folded_bones_and_the_filter_are_kept() {
        let mut a = app(walker());
        // The tree opens on the skeleton's root: fold it, then filter.
        let root = a.selected().unwrap();
        a.update(Action::Collapse);
        assert_eq!(a.selection.tree.collapsed_nodes().collect::<Vec<_>>(), vec![root]);
        a.update(Action::StartFilter);
        a.update(Action::FilterChar('s'));
        a.update(Action::FilterAccept);
        let rows: Vec<usize> = a.selection.tree.rows().iter().map(|r| r.node).collect();
        a.reload(session(walker()));
        assert_eq!(a.selection.tree.collapsed_nodes().collect::<Vec<_>>(), vec![root]);
        assert_eq!(a.selection.tree.filter, "s");
        assert_eq!(a.selection.tree.rows().iter().map(|r| r.node).collect::<Vec<_>>(), rows);
    }

    #[test]
    fn state_follows_names_when_nodes_and_clips_move() {
        let mut a = app(walker());
        a.update(Action::NextClip);
        a.update(Action::Seek(0.25));
        a.update(Action::SelectDown);
        let bone = a.session.rig.node_label(a.selected().unwrap());
        let clip = a.session.rig.clip_label(a.player.clip.unwrap());

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
        a.reload(session(new));

        assert_eq!(a.session.rig.clip_label(a.player.clip.unwrap()), clip);
        assert!((a.player.playback.time - 0.25).abs() < 1e-6);
        assert_eq!(a.session.rig.node_label(a.selected().unwrap()), bone);
        let text = &a.status.file_note.as_ref().unwrap().text;
        // The renamed joint keeps its place and rest transform: `diff`'s matching calls it a
        // rename rather than one joint added and another removed.
        assert_eq!(text, &format!("reloaded: renamed 1 joint ({old_name} -> root_v2), +1 clip (wave)"));
    }

    #[test]
    fn a_gone_clip_falls_back_and_vertex_counts_are_reported() {
        let mut a = app(walker());
        let first = a.session.rig.clip_label(0);
        let mut new = walker();
        new.clips.remove(0);
        let before: usize = new.meshes.iter().flat_map(|m| &m.primitives).map(|p| p.positions.len()).sum();
        let p = &mut new.meshes[0].primitives[0];
        p.positions = p.positions.iter().chain(&p.positions[..1]).copied().collect();
        let text = changes(&a.session.rig, &new);
        assert!(text.contains(&format!("vertices {before} -> {}", before + 1)), "{text}");
        a.reload(session(new));
        let note = &a.status.file_note.as_ref().unwrap().text;
        assert!(note.starts_with(&format!("reloaded (clip {first} is gone): ")), "{note}");
        assert!(note.contains(&format!("-1 clip ({first})")), "{note}");
        assert_eq!(a.player.clip, if a.session.rig.clips.is_empty() { None } else { Some(0) });
    }

    #[test]
    fn a_failed_reload_keeps_the_rig_and_says_so() {
        let mut a = app(walker());
        a.update(Action::Seek(0.5));
        let nodes = a.session.rig.nodes.len();
        let broken = crate::import::load_bytes(b"{\"asset\":", "walker.glb", None).unwrap_err();
        a.reload_failed(&broken.to_string());
        assert_eq!(a.session.rig.nodes.len(), nodes);
        assert!((a.player.playback.time - 0.5).abs() < 1e-6);
        let note = a.status.file_note.as_ref().unwrap();
        assert!(note.error);
        assert!(
            note.text.starts_with("reload failed, showing the last good load: walker.glb"),
            "{}",
            note.text
        );
        // The next good load clears the error.
        a.reload(session(walker()));
        assert!(!a.status.file_note.as_ref().unwrap().error);
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
        let camera = a.view.camera;
        a.reload(session(scaled(1.1)));
        assert_eq!(a.view.camera, camera);
        assert!(!a.status.file_note.as_ref().unwrap().text.contains("re-framed"));

        let camera = a.view.camera;
        a.reload(session(scaled(3.0)));
        let note = &a.status.file_note.as_ref().unwrap().text;
        assert!(note.starts_with("reloaded, view re-framed: "), "{note}");
        assert!(
            (a.view.camera.yaw - camera.yaw).abs() < 1e-6
                && (a.view.camera.pitch - camera.pitch).abs() < 1e-6
        );
        // The framing distance grows with the rig (3 times, up to the bounds' rounding),
        // and the user's zoom of 2 is kept on it.
        let expected = framed_camera(&a.session.ws, a.view.camera.yaw, a.view.camera.pitch, 1.0);
        assert!((a.view.framed_distance - expected.distance).abs() < 1e-4 * expected.distance);
        assert!((a.zoom() - 2.0).abs() < 1e-4, "{}", a.zoom());
        assert!(
            a.view.camera.distance > 2.5 * camera.distance,
            "{} vs {}",
            a.view.camera.distance,
            camera.distance
        );
    }
}
