//! The details panel's fit lines: when the clip playing came from another file (`--anim`),
//! how its tracks bound, what bound to nothing, whether the selected node is driven and by
//! which source node, and `rigscope fit`'s sentences, so that the viewer says why a clip
//! plays wrong where the user is looking.

use ratatui::text::Line;

use super::Theme;
use crate::tui::app::App;

/// Nothing for the character's own clips.
pub fn lines(app: &App, node: usize, theme: &Theme) -> Vec<Line<'static>> {
    let Some(clip) = app.player.clip else { return Vec::new() };
    let Some(attached) = app.session.rig.attached.iter().find(|a| a.clip == clip) else { return Vec::new() };
    let channels = app.session.rig.clips.get(clip).map_or(&[][..], |c| c.channels.as_slice());
    let mut by_how: Vec<(&str, usize)> = Vec::new();
    for how in &attached.tracks {
        match by_how.iter_mut().find(|(h, _)| *h == how.label()) {
            Some((_, n)) => *n += 1,
            None => by_how.push((how.label(), 1)),
        }
    }
    let how: Vec<String> = by_how.iter().map(|(h, n)| format!("{n} {h}")).collect();
    let vrm = app.session.rig.clips.get(clip).and_then(|c| c.vrm.as_deref());
    if let Some(play) = vrm {
        // A .vrma binds through the humanoid: its first fit line says how much binds.
        let mut lines = vec![Line::raw(format!("clip from {} (VRM animation)", attached.file))];
        let eye = play.gaze.iter().flat_map(|g| g.eyes.iter()).any(|e| e.node == node);
        let moved = channels.iter().any(|c| c.node == node);
        lines.push(match (moved, eye) {
            (_, true) => Line::raw("this node: turned by the gaze (lookAt)"),
            (true, false) => Line::raw("this node: moved by its humanoid track"),
            (false, false) => Line::styled("this node: not moved by this clip", theme.dim),
        });
        lines.extend(attached.fit.iter().map(|s| Line::styled(format!("- {s}"), theme.label)));
        return lines;
    }
    let mut lines = vec![Line::styled(
        format!(
            "clip from {}: {} tracks bind ({}), {} to nothing",
            attached.file,
            attached.tracks.len(),
            if how.is_empty() { "none".to_string() } else { how.join(", ") },
            attached.unbound.len()
        ),
        if attached.unbound.is_empty() { theme.ok } else { theme.warning },
    )];
    let mut driven: Vec<String> = channels
        .iter()
        .zip(&attached.bound)
        .filter(|(c, _)| c.node == node)
        .map(|(_, b)| format!("{} ({})", b.source, b.how.label()))
        .collect();
    driven.dedup();
    lines.push(if driven.is_empty() {
        Line::styled("this node: not moved by this clip", theme.dim)
    } else {
        Line::raw(format!("this node: driven by {}", driven.join(", ")))
    });
    lines.extend(attached.fit.iter().map(|s| Line::styled(format!("- {s}"), theme.label)));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::app::Launch;

    fn text(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect()).collect()
    }

    #[test]
    fn an_attached_clip_says_how_it_bound_and_what_did_not() {
        let mut rig = crate::import::load_bytes(&crate::samplegen::walker(), "walker.glb", None).unwrap();
        let mut lib = rig.clone();
        lib.nodes[1].name = Some("mixamorig:spine".into());
        lib.nodes[0].rest.rotation = glam::Quat::from_rotation_z(0.5);
        crate::attach::attach(&mut rig, &lib, "lib.glb", &crate::attach::BindOptions::default()).unwrap();
        let clip = rig.find_clip("walk");
        assert_eq!(clip, Some(2));
        let app = App::new(rig, &Launch { clip, paused: true, ..Launch::default() });
        let theme = Theme::new(false);
        let hips = text(&lines(&app, 0, &theme));
        assert_eq!(hips[0], "clip from lib.glb: 14 tracks bind (14 exact), 1 to nothing");
        assert_eq!(hips[1], "this node: driven by hips (exact)");
        assert!(hips.iter().any(|l| l.contains("mixamorigspine.quaternion")), "{hips:?}");
        assert_eq!(text(&lines(&app, 1, &theme))[1], "this node: not moved by this clip");
        // The character's own clip has no fit lines.
        let own = App::new(app.session.rig.clone(), &Launch { clip: Some(0), ..Launch::default() });
        assert!(lines(&own, 0, &theme).is_empty());
    }
}
