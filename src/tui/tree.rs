//! The bone tree panel's model: which nodes are rows, in what order, collapsed or filtered.
//! Pure data; the widget in `ui::tree` only draws what this computes.

use crate::rig::Rig;

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub node: usize,
    pub depth: usize,
    /// A joint of the current skin (others are ancestors shown for context, dimmed).
    pub joint: bool,
    pub has_children: bool,
    pub collapsed: bool,
}

/// Tree state that survives redraws: collapsed nodes, the filter and the selected node.
#[derive(Debug, Clone, Default)]
pub struct BoneTree {
    /// Nodes shown (joints of the skin and their ancestors), per node index.
    member: Vec<bool>,
    joint: Vec<bool>,
    collapsed: Vec<bool>,
    pub filter: String,
    pub filtering: bool,
    /// The selected node (kept across filtering and collapsing).
    pub selected: Option<usize>,
    rows: Vec<Row>,
    /// The rows with nothing collapsed or filtered out, which size the panel (so that it
    /// keeps its width while the user folds and filters).
    every_row: Vec<Row>,
}

impl BoneTree {
    /// The tree for `skin` (joints plus their ancestors), or every node when there is no skin.
    pub fn new(rig: &Rig, skin: Option<usize>) -> Self {
        let n = rig.nodes.len();
        let mut member = vec![false; n];
        let mut joint = vec![false; n];
        match skin.and_then(|s| rig.skins.get(s)) {
            Some(skin) => {
                for &j in &skin.joints {
                    if j < n {
                        joint[j] = true;
                        let mut cur = Some(j);
                        // Walk up until an already-marked node; the loader rejects cycles.
                        while let Some(c) = cur {
                            if member[c] {
                                break;
                            }
                            member[c] = true;
                            cur = rig.nodes[c].parent;
                        }
                    }
                }
            }
            None => member.iter_mut().for_each(|m| *m = true),
        }
        let mut tree = BoneTree {
            member,
            joint,
            collapsed: vec![false; n],
            filter: String::new(),
            filtering: false,
            selected: None,
            rows: Vec::new(),
            every_row: Vec::new(),
        };
        tree.rebuild(rig);
        tree.every_row = tree.rows.clone();
        // Start on the first joint (the skeleton root), not on a dimmed ancestor.
        tree.selected = tree.rows.iter().find(|r| r.joint).or(tree.rows.first()).map(|r| r.node);
        tree
    }

    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// Every row the tree can show, as if nothing were collapsed or filtered out.
    pub fn every_row(&self) -> &[Row] {
        &self.every_row
    }

    /// Index of the selected node among the visible rows.
    pub fn selected_row(&self) -> Option<usize> {
        self.selected.and_then(|s| self.rows.iter().position(|r| r.node == s))
    }

    pub fn is_joint(&self, node: usize) -> bool {
        self.joint.get(node).copied().unwrap_or(false)
    }

    /// Recomputes the visible rows after a change of filter or collapse state.
    pub fn rebuild(&mut self, rig: &Rig) {
        let n = rig.nodes.len();
        let needle = self.filter.to_lowercase();
        // With a filter, keep matching nodes and their ancestors so the structure stays readable.
        let mut keep = self.member.clone();
        let mut matches = vec![false; n];
        if !needle.is_empty() {
            keep = vec![false; n];
            for (i, matched) in matches.iter_mut().enumerate() {
                if self.member[i] && rig.node_label(i).to_lowercase().contains(&needle) {
                    *matched = true;
                    let mut cur = Some(i);
                    while let Some(c) = cur {
                        if keep[c] {
                            break;
                        }
                        keep[c] = true;
                        cur = rig.nodes[c].parent;
                    }
                }
            }
        }
        let filtering = !needle.is_empty();
        let roots: Vec<usize> =
            (0..n).filter(|&i| keep[i] && rig.nodes[i].parent.is_none_or(|p| !keep[p])).collect();
        self.rows.clear();
        let mut stack: Vec<(usize, usize)> = roots.into_iter().rev().map(|r| (r, 0)).collect();
        while let Some((node, depth)) = stack.pop() {
            let kids: Vec<usize> =
                rig.nodes[node].children.iter().copied().filter(|&c| c < n && keep[c]).collect();
            // A filter shows every match, whatever was collapsed before.
            let collapsed = self.collapsed[node] && !filtering;
            self.rows.push(Row {
                node,
                depth,
                joint: self.joint[node],
                has_children: !kids.is_empty(),
                collapsed,
            });
            if !collapsed {
                stack.extend(kids.into_iter().rev().map(|c| (c, depth + 1)));
            }
        }
        // While filtering, the selection is a match: the first one unless a match was
        // already selected (typing on narrows the list without moving the selection).
        let is_match = |node: usize| matches.get(node).copied().unwrap_or(false);
        if filtering && !self.selected.is_some_and(is_match) {
            self.selected = self.rows.iter().find(|r| is_match(r.node)).map(|r| r.node);
        }
        if self.selected_row().is_none() {
            self.selected = self.rows.first().map(|r| r.node);
        }
    }

    /// Moves the selection by `delta` rows, stopping at the ends.
    pub fn move_selection(&mut self, delta: isize) {
        if self.rows.is_empty() {
            return;
        }
        let cur = self.selected_row().unwrap_or(0) as isize;
        let next = (cur + delta).clamp(0, self.rows.len() as isize - 1) as usize;
        self.selected = Some(self.rows[next].node);
    }

    /// Selects `node` and makes its row visible: its ancestors unfolded, and the filter
    /// cleared when it hides the node. False (nothing changes) when the tree does not list
    /// the node at all (not a joint of this skin, nor an ancestor of one).
    pub fn reveal(&mut self, rig: &Rig, node: usize) -> bool {
        if !self.member.get(node).copied().unwrap_or(false) {
            return false;
        }
        let mut cur = rig.nodes[node].parent;
        while let Some(p) = cur {
            if let Some(c) = self.collapsed.get_mut(p) {
                *c = false;
            }
            cur = rig.nodes[p].parent;
        }
        self.rebuild(rig);
        if !self.rows.iter().any(|r| r.node == node) {
            self.filter.clear();
            self.rebuild(rig);
        }
        self.selected = Some(node);
        true
    }

    pub fn select_row(&mut self, row: usize) {
        if let Some(r) = self.rows.get(row) {
            self.selected = Some(r.node);
        }
    }

    /// Collapses the selection, or moves to its parent when it is already collapsed or a leaf.
    pub fn collapse(&mut self, rig: &Rig) {
        let Some(row) = self.selected_row().map(|i| self.rows[i].clone()) else { return };
        if row.has_children && !row.collapsed {
            self.collapsed[row.node] = true;
            self.rebuild(rig);
        } else if let Some(p) = rig.nodes[row.node].parent
            && self.rows.iter().any(|r| r.node == p)
        {
            self.selected = Some(p);
        }
    }

    pub fn expand(&mut self, rig: &Rig) {
        if let Some(node) = self.selected
            && self.collapsed[node]
        {
            self.collapsed[node] = false;
            self.rebuild(rig);
        }
    }

    pub fn toggle(&mut self, rig: &Rig) {
        if let Some(node) = self.selected {
            self.collapsed[node] = !self.collapsed[node];
            self.rebuild(rig);
        }
    }

    /// The collapsed nodes (for live reload, which folds the same bones in the new file).
    pub fn collapsed_nodes(&self) -> impl Iterator<Item = usize> + '_ {
        self.collapsed.iter().enumerate().filter(|(_, c)| **c).map(|(i, _)| i)
    }

    /// Folds `node` (ignored when out of range); `rebuild` shows the result.
    pub fn set_collapsed(&mut self, node: usize) {
        if let Some(c) = self.collapsed.get_mut(node) {
            *c = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{Node, Skin};

    /// scene_root(0) -> hips(1) -> {spine(2) -> head(3), leg(4)}; skin joints hips, spine, head, leg.
    fn rig() -> Rig {
        let names = ["scene_root", "hips", "spine", "head", "leg"];
        let parents = [None, Some(0), Some(1), Some(2), Some(1)];
        let mut nodes: Vec<Node> = names
            .iter()
            .zip(parents)
            .map(|(n, p)| Node { name: Some(n.to_string()), parent: p, ..Default::default() })
            .collect();
        for (i, parent) in parents.iter().enumerate() {
            if let Some(p) = *parent {
                nodes[p].children.push(i);
            }
        }
        Rig {
            nodes,
            skins: vec![Skin { joints: vec![3, 1, 2, 4], ..Default::default() }],
            ..Default::default()
        }
    }

    fn names(rig: &Rig, t: &BoneTree) -> Vec<String> {
        t.rows().iter().map(|r| format!("{}{}", "-".repeat(r.depth), rig.node_label(r.node))).collect()
    }

    #[test]
    fn rows_are_depth_first_with_ancestors_dimmed() {
        let rig = rig();
        let t = BoneTree::new(&rig, Some(0));
        assert_eq!(names(&rig, &t), ["scene_root", "-hips", "--spine", "---head", "--leg"]);
        assert!(!t.rows()[0].joint);
        assert!(t.rows()[1].joint);
        // Selection starts on the first joint, not the dimmed ancestor.
        assert_eq!(t.selected, Some(1));
    }

    #[test]
    fn collapse_hides_descendants_and_second_collapse_goes_to_parent() {
        let rig = rig();
        let mut t = BoneTree::new(&rig, Some(0));
        t.move_selection(1); // spine
        t.collapse(&rig);
        assert_eq!(names(&rig, &t), ["scene_root", "-hips", "--spine", "--leg"]);
        t.collapse(&rig);
        assert_eq!(t.selected, Some(1));
        t.select_row(2);
        t.expand(&rig);
        assert_eq!(t.rows().len(), 5);
    }

    #[test]
    fn filter_keeps_matches_and_their_ancestors() {
        let rig = rig();
        let mut t = BoneTree::new(&rig, Some(0));
        t.filter = "HEA".into();
        t.rebuild(&rig);
        assert_eq!(names(&rig, &t), ["scene_root", "-hips", "--spine", "---head"]);
        // The first match is selected, not an ancestor shown for context.
        assert_eq!(t.selected.map(|n| rig.node_label(n)), Some("head".to_string()));
        t.filter = "zzz".into();
        t.rebuild(&rig);
        assert!(t.rows().is_empty());
        assert_eq!(t.selected_row(), None);
        t.move_selection(1); // no rows: nothing to do, no panic
    }

    #[test]
    fn without_a_skin_every_node_is_listed() {
        let rig = rig();
        let t = BoneTree::new(&rig, None);
        assert_eq!(t.rows().len(), 5);
        assert!(t.rows().iter().all(|r| !r.joint));
    }
}
