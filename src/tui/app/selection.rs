//! What the user points at: the skin, the bone tree (its folds, filter and selected node), the
//! vertex and the problem under the weights panel's cursor, with what follows from them (the
//! selected bone's weights, the skin's unweighted joints). Indices into the session's rig,
//! found again by name on reload.

use glam::Vec3;

use super::Status;
use super::session::Session;
use crate::rig::Rig;
use crate::tui::action::Action;
use crate::tui::tree::BoneTree;
use crate::tui::ui::count;
use crate::tui::weights::{BoneWeights, VertexRef};

/// Rows PgUp and PgDn move the selection by.
const PAGE: isize = 10;

pub struct Selection {
    pub skin: Option<usize>,
    pub tree: BoneTree,
    /// The tree shows every node of the file rather than the current skin's bones.
    pub show_nodes: bool,
    /// The selected bone's weights.
    pub weights: BoneWeights,
    pub vertex: Option<VertexRef>,
    /// Index into the session's `vertex_problems` of the weights panel's cursor.
    pub problem: usize,
    /// Per node: a joint of the current skin that no vertex weights.
    pub unweighted: Vec<bool>,
}

/// What a change of selection asks of the panels showing it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Moved {
    /// Another bone's details start at the top (its name), not where the last one was.
    pub bone: bool,
    /// The weights panel shows a problem's vertex from the top.
    pub vertex: bool,
}

const NOTHING: Moved = Moved { bone: false, vertex: false };
const BONE: Moved = Moved { bone: true, vertex: false };

impl Selection {
    /// The first skin's tree, its first bone selected.
    pub fn new(session: &Session) -> Selection {
        let skin = if session.rig.skins.is_empty() { None } else { Some(0) };
        let mut selection = Selection {
            skin,
            tree: BoneTree::new(&session.rig, skin),
            show_nodes: false,
            weights: BoneWeights::default(),
            vertex: None,
            problem: 0,
            unweighted: Vec::new(),
        };
        selection.refresh_skin(session);
        selection
    }

    /// The selected node, if any.
    pub fn selected(&self) -> Option<usize> {
        self.tree.selected
    }

    /// The selected node's position in the current skin's joint list.
    pub fn selected_joint(&self, rig: &Rig) -> Option<usize> {
        let node = self.selected()?;
        self.skin.and_then(|s| rig.skins.get(s)).and_then(|s| s.joints.iter().position(|&j| j == node))
    }

    pub fn update(&mut self, action: Action, s: &Session, status: &mut Status) -> Moved {
        let rig = &s.rig;
        match action {
            Action::NextSkin => self.step_skin(s, 1, status),
            Action::PrevSkin => self.step_skin(s, -1, status),
            Action::SelectUp => self.move_selection(s, -1),
            Action::SelectDown => self.move_selection(s, 1),
            Action::SelectPageUp => self.move_selection(s, -PAGE),
            Action::SelectPageDown => self.move_selection(s, PAGE),
            Action::SelectRow(r) => {
                self.tree.select_row(r);
                self.refresh_selection(s)
            }
            Action::SelectNode(node) => {
                if self.tree.reveal(rig, node) {
                    return self.refresh_selection(s);
                }
                status
                    .say(format!("{} is not in this skin's tree (N lists every node)", rig.node_label(node)));
                NOTHING
            }
            Action::Collapse => {
                self.tree.collapse(rig);
                self.refresh_selection(s)
            }
            Action::Expand => self.tree_only(|t| t.expand(rig)),
            Action::ToggleCollapse => self.tree_only(|t| t.toggle(rig)),
            Action::StartFilter => self.tree_only(|t| t.filtering = true),
            Action::FilterChar(c) => {
                self.tree.filter.push(c);
                self.tree.rebuild(rig);
                self.refresh_selection(s)
            }
            Action::FilterBackspace => {
                self.tree.filter.pop();
                self.tree.rebuild(rig);
                self.refresh_selection(s)
            }
            Action::FilterAccept => self.tree_only(|t| t.filtering = false),
            Action::FilterCancel => {
                self.tree.filtering = false;
                self.clear_filter(rig);
                NOTHING
            }
            Action::NextVertex => self.cycle_vertex(1, status),
            Action::PrevVertex => self.cycle_vertex(-1, status),
            Action::NearestVertex => self.pick_nearest_vertex(s, status),
            Action::ProblemUp => self.walk_problems(s, -1, false, status),
            Action::ProblemDown | Action::NextProblem => {
                self.walk_problems(s, 1, action == Action::NextProblem, status)
            }
            Action::PrevProblem => self.walk_problems(s, -1, true, status),
            Action::JumpToProblem => self.jump_to_problem(s, status),
            Action::ToggleNodes if rig.skins.is_empty() => {
                status.say("no skin in this file: the tree already lists every node");
                NOTHING
            }
            Action::ToggleNodes => {
                self.show_nodes = !self.show_nodes;
                self.rebuild_tree(rig);
                self.refresh_selection(s)
            }
            _ => NOTHING,
        }
    }

    fn tree_only(&mut self, change: impl FnOnce(&mut BoneTree)) -> Moved {
        change(&mut self.tree);
        NOTHING
    }

    /// Esc: every bone again.
    pub fn clear_filter(&mut self, rig: &Rig) {
        self.tree.filter.clear();
        self.tree.rebuild(rig);
    }

    fn move_selection(&mut self, s: &Session, delta: isize) -> Moved {
        self.tree.move_selection(delta);
        self.refresh_selection(s)
    }

    /// Recomputes what depends on the selected bone (its weight statistics and vertex).
    fn refresh_selection(&mut self, s: &Session) -> Moved {
        let joint = self.selected_joint(&s.rig);
        self.set_weights(BoneWeights::compute(&s.rig, &s.ws, self.skin, joint));
        BONE
    }

    /// Recomputes what depends on the current skin: which of its joints no vertex weights,
    /// and the selected bone's weights. Both are whole-mesh scans, before the first frame
    /// among others: they run side by side on the pool.
    fn refresh_skin(&mut self, s: &Session) {
        let joint = self.selected_joint(&s.rig);
        let (unweighted, weights) = rayon::join(
            || unweighted_nodes(&s.rig, &s.ws, self.skin),
            || BoneWeights::compute(&s.rig, &s.ws, self.skin, joint),
        );
        self.unweighted = unweighted;
        self.set_weights(weights);
    }

    fn set_weights(&mut self, weights: BoneWeights) {
        self.weights = weights;
        self.vertex = self.weights.vertices.first().copied();
    }

    /// Moves to the next (`dir` 1) or previous (-1) skin, wrapping.
    fn step_skin(&mut self, s: &Session, dir: isize, status: &mut Status) -> Moved {
        let n = s.rig.skins.len();
        if n < 2 {
            // With one skin there is nowhere to go, but what it deforms is still the answer
            // the key was pressed for.
            let what = self.skin.map_or(String::new(), |k| format!(": {}", skin_deforms(&s.rig, k)));
            status.say(format!("{} in this file{what}", count(n, "skin", "skins")));
            return NOTHING;
        }
        let cur = self.skin.map_or(0, |k| k as isize);
        self.set_skin(s, (cur + dir).rem_euclid(n as isize) as usize, status);
        NOTHING
    }

    /// Shows skin `k`: its bones in the tree, its weights, and says what it deforms.
    pub fn set_skin(&mut self, s: &Session, k: usize, status: &mut Status) {
        self.skin = Some(k);
        self.rebuild_tree(&s.rig);
        self.refresh_skin(s);
        status.say(format!("skin {}/{}: {}", k + 1, s.rig.skins.len(), skin_deforms(&s.rig, k)));
    }

    /// The tree for the current view (every node, or the skin's bones), keeping the
    /// selection when the new tree has that node. The caller refreshes what depends on
    /// the selection (a whole-mesh scan, so it is done once).
    fn rebuild_tree(&mut self, rig: &Rig) {
        let keep = self.tree.selected;
        self.tree = BoneTree::new(rig, self.tree_skin());
        if let Some(node) = keep
            && self.tree.rows().iter().any(|r| r.node == node)
        {
            self.tree.selected = Some(node);
        }
    }

    /// The skin whose bones the tree lists (None: every node).
    fn tree_skin(&self) -> Option<usize> {
        if self.show_nodes { None } else { self.skin }
    }

    fn cycle_vertex(&mut self, dir: isize, status: &mut Status) -> Moved {
        let list = &self.weights.vertices;
        if list.is_empty() {
            status.say("the selected bone influences no vertex");
            return NOTHING;
        }
        let cur = self.vertex.and_then(|v| list.iter().position(|&x| x == v)).map_or(-1, |i| i as isize);
        let next = (cur + dir).rem_euclid(list.len() as isize) as usize;
        self.vertex = Some(list[next]);
        NOTHING
    }

    fn pick_nearest_vertex(&mut self, s: &Session, status: &mut Status) -> Moved {
        let Some(node) = self.selected() else { return NOTHING };
        let at = s.ws.globals.get(node).map(|m| m.w_axis.truncate()).unwrap_or(Vec3::ZERO);
        self.vertex = self.weights.nearest(&s.ws, at);
        if self.vertex.is_none() {
            status.say("the selected bone influences no vertex");
        }
        NOTHING
    }

    /// Moves the problem cursor by `dir` (wrapping round when `wrap`, else stopping at the
    /// ends) and selects that vertex: walking the list shows each problem at once.
    fn walk_problems(&mut self, s: &Session, dir: isize, wrap: bool, status: &mut Status) -> Moved {
        let n = s.vertex_problems.len();
        if n == 0 {
            status.say("no problem vertices: every weight passes");
            return NOTHING;
        }
        let cur = self.problem.min(n - 1) as isize;
        // The first `e` shows the problem under the cursor (the worst, at start) rather
        // than stepping past it.
        let on_cursor = s.vertex_problems.get(cur as usize).is_some_and(|p| {
            p.prim.is_some_and(|prim| self.vertex == Some(VertexRef { prim, vertex: p.vertex }))
        });
        let dir = if wrap && !on_cursor { 0 } else { dir };
        self.problem = if wrap {
            (cur + dir).rem_euclid(n as isize) as usize
        } else {
            (cur + dir).clamp(0, n as isize - 1) as usize
        };
        self.jump_to_problem(s, status)
    }

    /// Selects the vertex of the problem under the cursor, and a joint it uses in the tree.
    fn jump_to_problem(&mut self, s: &Session, status: &mut Status) -> Moved {
        let Some(p) = s.vertex_problems.get(self.problem) else {
            status.say("no vertex problem to jump to");
            return NOTHING;
        };
        let (mesh, primitive) = (p.mesh, p.primitive);
        let Some(prim) = p.prim else {
            status.say(format!("mesh {mesh} primitive {primitive} is not drawn by any node"));
            return NOTHING;
        };
        let Some(vf) =
            p.findings.first().and_then(|&i| s.diag.findings.get(i)).and_then(|f| f.vertex.as_ref())
        else {
            return NOTHING;
        };
        // Select the joint with the largest weight so that the tree, heatmap and weights
        // agree; an index past the skin's joints (the problem itself, perhaps) cannot be
        // selected, so the heaviest joint that exists wins.
        let skin = s.ws.primitives[prim].skin;
        let joints = skin.and_then(|k| s.rig.skins.get(k)).map_or(&[][..], |k| &k.joints[..]);
        let best = vf
            .joints
            .iter()
            .zip(&vf.weights)
            .filter(|&(&j, w)| w.is_finite() && (j as usize) < joints.len())
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(&j, _)| j as usize);
        let mut moved = NOTHING;
        if let (Some(k), Some(j)) = (skin, best)
            && let Some(&node) = joints.get(j)
        {
            let new_skin = self.skin != Some(k);
            if new_skin {
                self.skin = Some(k);
                self.tree = BoneTree::new(&s.rig, self.skin);
            }
            self.tree.filter.clear();
            self.tree.rebuild(&s.rig);
            self.tree.selected = Some(node);
            if new_skin {
                self.refresh_skin(s);
            } else {
                moved = self.refresh_selection(s);
            }
        }
        self.vertex = Some(VertexRef { prim, vertex: vf.vertex });
        Moved { vertex: true, ..moved }
    }

    /// After a reload: the same skin (by name, else place), bone (by name), folds, filter and
    /// vertex in `new`'s rig, and the problem cursor within `new`'s list.
    pub(super) fn rematch(&mut self, old: &Session, new: &Session) {
        let first = if new.rig.skins.is_empty() { None } else { Some(0) };
        self.skin = self.skin.and_then(|k| find_skin(&old.rig, k, &new.rig)).or(first);
        let mut tree = BoneTree::new(&new.rig, self.tree_skin());
        tree.filter = std::mem::take(&mut self.tree.filter);
        tree.filtering = self.tree.filtering;
        for node in self.tree.collapsed_nodes() {
            if let Some(n) = find_node(&old.rig, node, &new.rig) {
                tree.set_collapsed(n);
            }
        }
        if let Some(n) = self.selected().and_then(|node| find_node(&old.rig, node, &new.rig)) {
            tree.selected = Some(n);
        }
        tree.rebuild(&new.rig);
        self.tree = tree;
        let vertex = self.vertex;
        self.refresh_skin(new);
        if let Some(v) = vertex
            && self.weights.vertices.contains(&v)
        {
            self.vertex = Some(v);
        }
        self.problem = self.problem.min(new.vertex_problems.len().saturating_sub(1));
    }
}

/// "deforms node 5 body (mesh 2 Cesium_Man)": the nodes that use skin `k` and their meshes.
pub fn skin_deforms(rig: &Rig, k: usize) -> String {
    let users: Vec<String> = rig
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.skin == Some(k))
        .map(|(i, n)| {
            let mesh = n.mesh.map_or(String::new(), |m| format!(" (mesh {m} {})", mesh_label(rig, m)));
            format!("node {i} {}{mesh}", rig.node_label(i))
        })
        .collect();
    match users.as_slice() {
        [] => "deforms no node (no mesh node uses it)".to_string(),
        [one] => format!("deforms {one}"),
        [first, rest @ ..] => format!("deforms {first} and {} more", rest.len()),
    }
}

/// A mesh's name, or `#index`.
pub fn mesh_label(rig: &Rig, m: usize) -> String {
    match rig.meshes.get(m).and_then(|x| x.name.as_deref()) {
        Some(name) if !name.is_empty() => name.to_string(),
        _ => format!("#{m}"),
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

/// Per node, whether it is a joint of `skin` that no vertex of the skin's primitives
/// weights (false for every other node).
fn unweighted_nodes(rig: &Rig, ws: &crate::anim::Workspace, skin: Option<usize>) -> Vec<bool> {
    let mut unweighted = vec![false; rig.nodes.len()];
    let Some(joints) = skin.and_then(|s| rig.skins.get(s)).map(|s| &s.joints) else { return unweighted };
    let mut used = vec![false; joints.len()];
    for dp in ws.primitives.iter().filter(|p| p.skin == skin) {
        let Some(prim) = rig.meshes.get(dp.mesh).and_then(|m| m.primitives.get(dp.primitive)) else {
            continue;
        };
        prim.for_each_influences(|_, slots| {
            for &(j, w) in slots {
                if w != 0.0
                    && let Some(u) = used.get_mut(j as usize)
                {
                    *u = true;
                }
            }
        });
    }
    for (&node, _) in joints.iter().zip(&used).filter(|(_, used)| !**used) {
        if let Some(f) = unweighted.get_mut(node) {
            *f = true;
        }
    }
    unweighted
}
