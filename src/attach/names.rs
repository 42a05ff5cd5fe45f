//! Node names as three.js makes them, so that a clip binds to exactly the nodes it binds to
//! in three.js (r187, `examples/jsm/loaders/GLTFLoader.js` and
//! `src/animation/PropertyBinding.js`):
//!
//! - `PropertyBinding.sanitizeNodeName`: every whitespace character (JavaScript's `\s`)
//!   becomes `_`, and `[ ] . : /` are removed.
//! - `GLTFParser.createUniqueName`: the first use of a sanitised name keeps it; each later
//!   use gets `_1`, `_2`, ... (a counter per sanitised name, so a node literally named
//!   `a_1` can still collide with a renamed second `a`: three.js does not check).
//! - The order names are handed out: `GLTFParser.parse` loads every scene in order (its name
//!   first), each scene's roots depth-first (`loadNode`: the node's own name in
//!   `_loadNodeShallow`, then its children, then the joints of its skin that were not named
//!   yet, in `loadSkin`), then nodes only a clip reaches (`loadAnimation`). Meshes are named
//!   later, asynchronously, so they never change a node's name; unnamed nodes get none.
//! - `PropertyBinding.findNode` looks a track's node up depth-first through the scene, the
//!   first match winning.
//!
//! Cameras and lights also take names from the same pool in three.js; a `Rig` does not keep
//! them, so a node sharing a name with a camera may be suffixed there and not here.

use std::collections::HashMap;

use crate::rig::Rig;

/// `PropertyBinding.sanitizeNodeName`.
pub fn sanitize(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '[' | ']' | '.' | ':' | '/'))
        .map(|c| if is_js_whitespace(c) { '_' } else { c })
        .collect()
}

/// JavaScript's `\s`: Unicode's White_Space without U+0085, plus U+FEFF.
fn is_js_whitespace(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

/// The name three.js gives each node of `rig` (index = node index); `None` for a node
/// without a name or one three.js never loads.
pub fn threejs_names(rig: &Rig) -> Vec<Option<String>> {
    let mut namer = Namer {
        rig,
        used: HashMap::new(),
        names: vec![None; rig.nodes.len()],
        shallow_done: vec![false; rig.nodes.len()],
        deep_done: vec![false; rig.nodes.len()],
        skin_done: vec![false; rig.skins.len()],
    };
    for scene in &rig.scenes {
        if let Some(name) = scene.name.as_deref().filter(|n| !n.is_empty()) {
            namer.unique(name);
        }
        for &root in &scene.roots {
            namer.load_node(root);
        }
    }
    // The file's own clips (not ones attached from other files), core channels only:
    // `KHR_animation_pointer` ones reach no node in GLTFLoader.
    let mut attached = vec![false; rig.clips.len()];
    for a in &rig.attached {
        if let Some(flag) = attached.get_mut(a.clip) {
            *flag = true;
        }
    }
    for (i, clip) in rig.clips.iter().enumerate() {
        if attached[i] {
            continue;
        }
        let core = rig.core_channels.get(i).copied().unwrap_or(clip.channels.len());
        for channel in clip.channels.iter().take(core) {
            namer.load_node(channel.node);
        }
    }
    namer.names
}

/// `GLTFParser`'s bookkeeping: `nodeNamesUsed` and which nodes and skins are loaded.
struct Namer<'a> {
    rig: &'a Rig,
    used: HashMap<String, u32>,
    names: Vec<Option<String>>,
    shallow_done: Vec<bool>,
    deep_done: Vec<bool>,
    skin_done: Vec<bool>,
}

impl Namer<'_> {
    /// `createUniqueName`.
    fn unique(&mut self, original: &str) -> String {
        let sanitized = sanitize(original);
        match self.used.get_mut(&sanitized) {
            Some(count) => {
                *count += 1;
                format!("{sanitized}_{count}")
            }
            None => {
                self.used.insert(sanitized.clone(), 0);
                sanitized
            }
        }
    }

    /// `_loadNodeShallow`: names the node once.
    fn load_shallow(&mut self, node: usize) {
        if self.shallow_done.get(node).copied().unwrap_or(true) {
            return;
        }
        self.shallow_done[node] = true;
        if let Some(name) = self.rig.nodes[node].name.as_deref().filter(|n| !n.is_empty()) {
            self.names[node] = Some(self.unique(name));
        }
    }

    /// `loadNode` (through `getDependency`'s cache): the node, its children, its skin's joints.
    /// A work list rather than recursion, so a deep hierarchy cannot exhaust the stack.
    fn load_node(&mut self, node: usize) {
        enum Step {
            Enter(usize),
            Skin(usize),
        }
        let mut stack = vec![Step::Enter(node)];
        while let Some(step) = stack.pop() {
            match step {
                Step::Enter(n) => {
                    if self.deep_done.get(n).copied().unwrap_or(true) {
                        continue;
                    }
                    self.deep_done[n] = true;
                    self.load_shallow(n);
                    let node = &self.rig.nodes[n];
                    if let Some(skin) = node.skin {
                        stack.push(Step::Skin(skin));
                    }
                    stack.extend(node.children.iter().rev().map(|&c| Step::Enter(c)));
                }
                Step::Skin(skin) => {
                    if self.skin_done.get(skin).copied().unwrap_or(true) {
                        continue;
                    }
                    self.skin_done[skin] = true;
                    for &joint in &self.rig.skins[skin].joints {
                        self.load_shallow(joint);
                    }
                }
            }
        }
    }
}

/// Every node of the shown scene by three.js name, the first in `findNode`'s depth-first
/// order winning.
pub fn lookup(rig: &Rig, names: &[Option<String>]) -> HashMap<String, usize> {
    let mut found = HashMap::new();
    let roots: Vec<usize> = match rig.scene() {
        Some(scene) => scene.roots.clone(),
        None => (0..rig.nodes.len()).filter(|&n| rig.nodes[n].parent.is_none()).collect(),
    };
    let mut seen = vec![false; rig.nodes.len()];
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(n) = stack.pop() {
        if seen.get(n).copied().unwrap_or(true) {
            continue;
        }
        seen[n] = true;
        if let Some(name) = names.get(n).and_then(|x| x.as_deref()) {
            found.entry(name.to_string()).or_insert(n);
        }
        stack.extend(rig.nodes[n].children.iter().rev());
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{Node, Scene, Skin};

    #[test]
    fn sanitising_follows_property_binding() {
        assert_eq!(sanitize("mixamorig:Hips"), "mixamorigHips");
        assert_eq!(sanitize("upper_arm.L"), "upper_armL");
        assert_eq!(sanitize("Left Arm\tx"), "Left_Arm_x");
        assert_eq!(sanitize("a[0]/b"), "a0b");
        assert_eq!(sanitize("nbsp\u{a0}bom\u{feff}nel\u{85}"), "nbsp_bom_nel\u{85}");
    }

    fn node(name: &str, children: Vec<usize>) -> Node {
        Node { name: Some(name.to_string()), children, ..Node::default() }
    }

    #[test]
    fn duplicates_are_numbered_in_three_js_loading_order() {
        // Scene "Hips" takes the name first; node 0's children come before node 3, and the
        // skin's joint 4 (outside the scene) is named when the skinned node 2 is loaded.
        let mut nodes = vec![
            node("Hips", vec![1, 2]),
            node("a.b", vec![]),
            node("ab", vec![]),
            node("ab", vec![]),
            node("a_1", vec![]),
            Node::default(),
        ];
        nodes[2].skin = Some(0);
        let rig = Rig {
            nodes,
            scenes: vec![Scene { name: Some("Hips".into()), roots: vec![0, 3] }],
            default_scene: Some(0),
            skins: vec![Skin { joints: vec![4, 0], ..Skin::default() }],
            ..Rig::default()
        };
        let names = threejs_names(&rig);
        let names: Vec<Option<&str>> = names.iter().map(|n| n.as_deref()).collect();
        assert_eq!(names, [Some("Hips_1"), Some("ab"), Some("ab_1"), Some("ab_2"), Some("a_1"), None]);
    }
}
