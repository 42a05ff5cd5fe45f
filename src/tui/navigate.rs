//! The app's answers to the navigation keys added for big rigs and exact reading: skins
//! back and forth or by number, the node browser, the go-to prompt and the copy key.

use super::action::{Focus, PromptKind};
use super::app::App;
use super::copy;
use super::prompt::{Prompt, Target, parse_skin, parse_target};
use super::tree::BoneTree;
use super::ui::count;

impl App {
    /// Moves to the next (`dir` 1) or previous (-1) skin, wrapping.
    pub(super) fn step_skin(&mut self, dir: isize) {
        let n = self.rig.skins.len();
        if n < 2 {
            // With one skin there is nowhere to go, but what it deforms is still the answer
            // the key was pressed for.
            let what = self.skin.map_or(String::new(), |s| format!(": {}", self.skin_deforms(s)));
            self.message = Some(format!("{} in this file{what}", count(n, "skin", "skins")));
            return;
        }
        let cur = self.skin.map_or(0, |s| s as isize);
        self.set_skin((cur + dir).rem_euclid(n as isize) as usize);
    }

    /// Shows skin `s`: its bones in the tree, its weights, and says what it deforms.
    pub(super) fn set_skin(&mut self, s: usize) {
        self.skin = Some(s);
        self.rebuild_tree();
        self.refresh_skin();
        self.message = Some(format!("skin {}/{}: {}", s + 1, self.rig.skins.len(), self.skin_deforms(s)));
    }

    /// The tree for the current view (every node, or the skin's bones), keeping the
    /// selection when the new tree has that node. The caller refreshes what depends on
    /// the selection (a whole-mesh scan, so it is done once).
    pub(super) fn rebuild_tree(&mut self) {
        let keep = self.tree.selected;
        let skin = if self.show_nodes { None } else { self.skin };
        self.tree = BoneTree::new(&self.rig, skin);
        if let Some(node) = keep
            && self.tree.rows().iter().any(|r| r.node == node)
        {
            self.tree.selected = Some(node);
        }
    }

    /// "deforms node 5 body (mesh 2 Cesium_Man)": the nodes that use skin `s` and their meshes.
    pub fn skin_deforms(&self, s: usize) -> String {
        let users: Vec<String> = self
            .rig
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.skin == Some(s))
            .map(|(i, n)| {
                let mesh = n.mesh.map_or(String::new(), |m| format!(" (mesh {m} {})", self.mesh_label(m)));
                format!("node {i} {}{mesh}", self.rig.node_label(i))
            })
            .collect();
        match users.as_slice() {
            [] => "deforms no node (no mesh node uses it)".to_string(),
            [one] => format!("deforms {one}"),
            [first, rest @ ..] => format!("deforms {first} and {} more", rest.len()),
        }
    }

    /// A mesh's name, or `#index`.
    pub fn mesh_label(&self, m: usize) -> String {
        match self.rig.meshes.get(m).and_then(|x| x.name.as_deref()) {
            Some(name) if !name.is_empty() => name.to_string(),
            _ => format!("#{m}"),
        }
    }

    /// What the tree panel lists, for the status line's focus: bones or nodes.
    pub fn focus_name(&self) -> &'static str {
        if self.focus == Focus::Bones && (self.show_nodes || self.skin.is_none()) {
            "nodes"
        } else {
            self.focus.title()
        }
    }

    pub(super) fn accept_prompt(&mut self, p: &Prompt) {
        match p.kind {
            PromptKind::Time => match parse_target(&p.text) {
                Ok(_) if self.clip.is_none() => {
                    self.message = Some("the rest pose has no timeline: pick a clip with c / C first".into());
                }
                Ok(target) => {
                    let t = match target {
                        Target::Seconds(s) => s,
                        Target::Frame(f) => self.frames.time_of(f),
                    };
                    self.playback.paused = true;
                    self.playback.seek(t);
                    if (self.playback.time - t).abs() > 1e-6 {
                        let duration = self.playback.duration;
                        let (now, last) =
                            (self.frames.frame_at(self.playback.time), self.frames.frame_at(duration));
                        self.message = Some(match target {
                            Target::Frame(f) => format!(
                                "frame {f} is outside the clip: at frame {now} (the clip has frames 0 to {last})"
                            ),
                            Target::Seconds(s) => format!(
                                "{s} s is outside the clip: at {:.4} s (the clip is 0 to {duration:.4} s)",
                                self.playback.time
                            ),
                        });
                    }
                }
                Err(e) => self.message = Some(e),
            },
            PromptKind::Skin => match parse_skin(&p.text, self.rig.skins.len()) {
                Ok(s) => self.set_skin(s),
                Err(e) => self.message = Some(e),
            },
            PromptKind::Merge => self.merge_into(&p.text),
        }
    }

    /// The weights panel copies the selected vertex, every other panel the selected bone.
    pub(super) fn copy(&mut self) {
        let (what, text) = if self.focus == Focus::Weights {
            ("vertex", copy::vertex_text(self))
        } else {
            ("bone", copy::bone_text(self))
        };
        match text {
            Some(text) => {
                self.message = Some(format!(
                    "sent the {what}'s values ({} lines) to the terminal's clipboard (OSC 52)",
                    text.lines().count()
                ));
                self.clipboard = Some(text);
            }
            None => self.message = Some(format!("no {what} selected to copy")),
        }
    }
}
