//! What the copy keys put on the clipboard, as plain text with every digit an f32 has
//! (`{:?}` writes the shortest decimal that reads back as the same f32), and the OSC 52
//! escape that hands it to the terminal: the terminal owns the clipboard, so this works
//! over SSH where no local clipboard tool could.

use base64::Engine;
use glam::{Mat4, Quat, Vec3};

use super::app::App;
use crate::render::{GlyphMode, framed_camera};

/// The escape sequence asking the terminal to put `text` on the system clipboard.
pub fn osc52(text: &str) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    format!("\x1b]52;c;{encoded}\x07")
}

fn v3(v: Vec3) -> String {
    format!("{:?} {:?} {:?}", v.x, v.y, v.z)
}

fn quat(q: Quat) -> String {
    format!("{:?} {:?} {:?} {:?}", q.x, q.y, q.z, q.w)
}

fn rows(m: &Mat4) -> Vec<String> {
    (0..4)
        .map(|r| {
            let row = m.row(r);
            format!("  {:?} {:?} {:?} {:?}", row.x, row.y, row.z, row.w)
        })
        .collect()
}

/// The selected node's values: local rest and current TRS, world matrix and (for a joint)
/// its inverse bind matrix. None when nothing is selected.
pub fn bone_text(app: &App) -> Option<String> {
    let node = app.selected()?;
    let rig = &app.session.rig;
    let n = rig.nodes.get(node)?;
    let mut out = vec![format!("node {} ({node})", rig.node_label(node))];
    if let Some(j) = app.selected_joint() {
        out.push(format!("joint {j} of skin {}", app.selection.skin.map_or(0, |s| s + 1)));
    }
    out.push(match app.player.clip {
        Some(c) => format!("clip {}, time {:?} s", rig.clip_label(c), app.player.playback.time),
        None => "rest pose".to_string(),
    });
    let now = app.session.ws.pose.locals.get(node).copied().unwrap_or(n.rest);
    for (what, t) in [("rest", n.rest), ("now", now)] {
        out.push(format!("local {what} translation {}", v3(t.translation)));
        out.push(format!("local {what} rotation (x y z w) {}", quat(t.rotation)));
        out.push(format!("local {what} scale {}", v3(t.scale)));
    }
    if let Some(world) = app.session.ws.globals.get(node) {
        out.push("world matrix (rows)".to_string());
        out.extend(rows(world));
    }
    let ibm = app
        .selected_joint()
        .and_then(|j| app.selection.skin.and_then(|s| rig.skins.get(s)).and_then(|s| s.inverse_bind.get(j)));
    if let Some(ibm) = ibm {
        out.push("inverse bind matrix (rows)".to_string());
        out.extend(rows(ibm));
    }
    Some(out.join("\n") + "\n")
}

/// The selected vertex as the weights panel shows it (rules, every listed slot, both sums),
/// with every digit of each weight and its position now. None without a vertex.
pub fn vertex_text(app: &App) -> Option<String> {
    let view = super::vertex_view::VertexView::of_selected(app, true)?;
    let v = app.selection.vertex?;
    let mut text = view.plain_text();
    if let Some(p) = app.session.ws.primitives.get(v.prim).and_then(|dp| dp.positions.get(v.vertex)) {
        text.push_str(&format!("position now {}\n", v3(*p)));
    }
    Some(text)
}

/// `path` as one shell word: bare when it is only safe characters, else single-quoted.
fn shell_word(path: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_./-+,:@%".contains(c);
    if !path.is_empty() && path.chars().all(safe) {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}

/// The `rigscope render` command line that draws the current view, and what it cannot
/// reproduce (another centre of view, a draw mode render lacks, the rest pose of a file
/// with clips).
pub fn render_command(app: &App, cols: u16, rows: u16) -> (String, Vec<&'static str>) {
    let mut cmd = format!("rigscope render {}", shell_word(&app.session.rig.source));
    let mut lost = Vec::new();
    match app.player.clip {
        Some(c) => cmd.push_str(&format!(" --clip '#{c}' --time {:?}", app.player.playback.time)),
        None if !app.session.rig.clips.is_empty() => lost.push("the rest pose"),
        None => {}
    }
    let (yaw, pitch) = (app.view.camera.yaw, app.view.camera.pitch);
    // Render frames the pose at its time from this yaw and pitch: the zoom is how much
    // nearer than that framing the viewer's camera is.
    let framed = framed_camera(&app.session.ws, yaw, pitch, 1.0);
    let zoom = framed.distance / app.view.camera.distance;
    let mode = match app.view.mode {
        GlyphMode::Braille | GlyphMode::BrailleDither => "braille",
        GlyphMode::HalfBlock => "halfblock",
        GlyphMode::Ascii => "ascii",
    };
    cmd.push_str(&format!(
        " --yaw {:.1} --pitch {:.1} --zoom {:.3} --size {cols}x{rows} --mode {mode}",
        yaw.to_degrees(),
        pitch.to_degrees(),
        zoom
    ));
    if app.view.bones {
        cmd.push_str(" --bones");
    }
    if framed.target.distance(app.view.camera.target) > 1e-3 * framed.distance.max(1e-6) {
        // A pan, or a pose whose bounds moved since the viewer framed it: render centres
        // the rig as posed at --time and has no flag for another centre.
        lost.push("the centre of view (render centres the pose at --time)");
    }
    if app.view.draw != crate::render::DrawMode::Shaded {
        lost.push("the draw mode");
    }
    if app.player.expression.as_ref().is_some_and(|e| e.held().is_some()) {
        lost.push("the expression held by hand");
    }
    (cmd, lost)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_is_base64_between_the_markers() {
        // "hi\n" is aGkK in base64 (RFC 4648 by hand: 0x68 0x69 0x0a).
        assert_eq!(osc52("hi\n"), "\x1b]52;c;aGkK\x07");
    }

    #[test]
    fn paths_become_one_shell_word() {
        assert_eq!(shell_word("samples/walker.glb"), "samples/walker.glb");
        assert_eq!(shell_word("my rig.glb"), "'my rig.glb'");
        assert_eq!(shell_word("it's.glb"), r"'it'\''s.glb'");
    }
}
