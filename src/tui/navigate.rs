//! The app's answers to the keys that read several parts at once: the go-to prompts (a time
//! or frame, a skin by number), the copy key and the `rigscope render` command line.

use super::action::{Focus, PromptKind};
use super::app::{App, mesh_label, skin_deforms};
use super::copy;
use super::prompt::{Prompt, parse_skin};

impl App {
    /// "deforms node 5 body (mesh 2 Cesium_Man)": the nodes that use skin `s` and their meshes.
    pub fn skin_deforms(&self, s: usize) -> String {
        skin_deforms(&self.session.rig, s)
    }

    /// A mesh's name, or `#index`.
    pub fn mesh_label(&self, m: usize) -> String {
        mesh_label(&self.session.rig, m)
    }

    /// What the tree panel lists, for the status line's focus: bones or nodes.
    pub fn focus_name(&self) -> &'static str {
        if self.panels.focus == Focus::Bones && (self.selection.show_nodes || self.selection.skin.is_none()) {
            "nodes"
        } else {
            self.panels.focus.title()
        }
    }

    pub(super) fn accept_prompt(&mut self, p: &Prompt) {
        match p.kind {
            PromptKind::Time => self.player.go_to(&p.text, &mut self.status),
            PromptKind::Skin => match parse_skin(&p.text, self.session.rig.skins.len()) {
                Ok(s) => self.selection.set_skin(&self.session, s, &mut self.status),
                Err(e) => self.status.message = Some(e),
            },
            PromptKind::Merge => self.merge_into(&p.text),
        }
    }

    /// The weights panel copies the selected vertex, every other panel the selected bone.
    pub(super) fn copy(&mut self) {
        let (what, text) = if self.panels.focus == Focus::Weights {
            ("vertex", copy::vertex_text(self))
        } else {
            ("bone", copy::bone_text(self))
        };
        match text {
            Some(text) => {
                self.status.message = Some(format!(
                    "sent the {what}'s values ({} lines) to the terminal's clipboard (OSC 52)",
                    text.lines().count()
                ));
                self.status.clipboard = Some(text);
            }
            None => self.status.message = Some(format!("no {what} selected to copy")),
        }
    }

    /// Says (and copies) the `rigscope render` command line that draws this view.
    pub(super) fn render_command(&mut self) {
        let (cols, rows) = self.panels.measured.viewport_cells;
        let (cmd, lost) = copy::render_command(self, cols, rows);
        let note =
            if lost.is_empty() { String::new() } else { format!(" (not reproduced: {})", lost.join(", ")) };
        self.status.say(format!("copied{note}: {cmd}"));
        self.status.clipboard = Some(cmd);
    }
}
